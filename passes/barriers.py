"""Barriers that order something: which ``gpu.barrier`` of lowered SIMT code separates a
conflicting pair of shared-memory accesses, and removing the ones that separate none.

The whole-kernel lowering (:mod:`llc.passes.lower_to_simt`) brackets every shared-memory use
with barriers where it cannot see its neighbours: a ``local_store`` waits for earlier readers of
its buffer and for its own stores, a cross-warp exchange or a conversion inside a loop waits
before the next iteration rewrites its buffer. Many of those are redundant in context: a
reduction's second exchange starts with a barrier that already keeps the first exchange's loads
before the next iteration's stores, and a buffer written once, before anything reads it, needs
no barrier ahead of the store. :func:`prune_barriers` removes them, as Triton's membar analysis
inserts only the barriers it needs.

The model is the PTX's: each ``simt.shared_alloc`` is one static buffer (whatever the loop
iteration), two accesses conflict when they touch the same buffer, or two buffers the shared
allocation (:mod:`llc.passes.shared_alloc`) placed over the same bytes, and one of them writes
(``simt.shared_store``, ``simt.stmatrix``, ``simt.cp_async``, and the
``simt.cp_async_wait_group`` where the copies land, for every buffer copied to, ordered
against later accesses only: the copies' issue is ordered against earlier ones; a
``simt.shared_load`` marked ``llc.own_copies`` reads only what its own thread copied, and needs no
barrier after the copies or their wait, nor before the next copies into its ring when those are
marked too (a ring every copy fills in one layout); ``simt.wgmma``
reads its buffers, and since it reads them asynchronously, ``simt.wgmma_wait_group`` reads again
the buffers of the wgmma chains it waits for (through ``scf.if`` results), ordered against later
accesses only; a ``simt.cp_async`` lands at its thread's wait, so
no barrier right after the copy orders anything: what follows it conflicts with the wait), and
a ``simt.fence_async_shared`` needs a barrier before any later wgmma (the fence covers only its
own thread's writes), and a barrier is needed when some path of the
structured control flow (``scf.for`` and ``scf.while`` back edges, both ``scf.if`` branches, a
loop that runs zero times) leads from an access through that barrier to a conflicting access
without passing another barrier. Barriers are examined in program order and each one removed
at once if unneeded, so two redundant barriers side by side never both go. An access whose buffer
is not a ``simt.shared_alloc`` result, a call and any op with regions the analysis does not know
conflict with everything (the barriers around them stay).

>>> from xdsl.dialects import func, gpu
>>> from xdsl.ir import Block, Region
>>> from llc.dialects import simt
>>> from xdsl.dialects.builtin import VectorType, f32, IndexType
>>> from xdsl.dialects import arith
>>> block = Block()
>>> c0 = arith.ConstantOp.from_int_and_width(0, IndexType())
>>> mem = simt.SharedAllocOp(64, 16)
>>> load = simt.SharedLoadOp(mem.results[0], c0.results[0], VectorType(f32, [1]))
>>> block.add_ops([c0, gpu.BarrierOp(), mem, load, gpu.BarrierOp(), func.ReturnOp()])
>>> fn = func.FuncOp("f", ([], []), Region(block))
>>> prune_barriers(fn)  # nothing is written: no barrier orders anything
2
>>> sum(isinstance(o, gpu.BarrierOp) for o in fn.walk())
0
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import func, gpu, scf
from xdsl.ir import Block, Operation, SSAValue

from llc.dialects import simt

__all__ = ["OWN_COPIES", "barrier_needed", "prune_barriers"]

OWN_COPIES = "llc.own_copies"
"""Marks a ``simt.shared_load`` whose thread reads only bytes its own ``cp.async`` copied (its
own ``cp.async.wait_group`` makes them visible to it, no barrier has to), and a ``simt.cp_async``
into a ring that every copy fills in one layout (each byte is always copied by one thread)."""

_WRITES = (simt.SharedStoreOp, simt.StMatrixOp)
_READS = (simt.SharedLoadOp, simt.LdMatrixOp)
_ANY = object()
"""The buffer of an access the analysis cannot name: it conflicts with every access."""


@dataclass(eq=False)
class _Node:
    """One point of the control-flow graph: an access, a barrier, or a join (``op`` None)."""

    op: Operation | None = None
    buffer: object = None
    writes: bool = False
    own_copies: bool = False
    """A read of bytes only its own thread's ``cp.async`` wrote (``OWN_COPIES``)."""
    succ: list[_Node] = field(default_factory=list)
    pred: list[_Node] = field(default_factory=list)


def _buffer(value: SSAValue) -> object:
    owner = value.owner
    return owner if isinstance(owner, simt.SharedAllocOp) else _ANY


def _wgmma_buffers(op: Operation) -> list[object]:
    """The buffers a ``simt.wgmma`` reads; for a ``simt.wgmma_wait_group``, those of the wgmma
    chains whose results it waits for, through ``scf.if`` results (every buffer when it names
    none)."""
    if isinstance(op, simt.WgmmaOp):
        return [_buffer(v) for v in (op.smem, op.a_smem) if v is not None]
    found: list[object] = []
    for value in op.operands:
        for source in simt.wgmma_sources(value):
            found += [b for b in _wgmma_buffers(source) if b not in found]
    return found if op.operands else [_ANY]


class _Graph:
    def __init__(self, fn: func.FuncOp) -> None:
        self.nodes: list[_Node] = []
        self.barriers: dict[Operation, _Node] = {}
        self.exit = self._node(None)
        # a cp.async lands at the wait that retires it: the wait writes every buffer copied to
        targets = {_buffer(o.operands[0]) for o in fn.walk() if isinstance(o, simt.CpAsyncOp)}
        self.copied: object = _ANY if _ANY in targets else frozenset(targets)
        if fn.body.blocks:
            self._block(fn.body.block, [self.exit])
        for n in self.nodes:
            for s in n.succ:
                s.pred.append(n)

    def _node(self, op: Operation | None, succ: list[_Node] | None = None) -> _Node:
        n = _Node(op, succ=list(succ or []))
        self.nodes.append(n)
        return n

    def _block(self, block: Block | None, after: list[_Node]) -> list[_Node]:
        """Build the nodes of ``block``'s ops; return the entry points (``after`` if none)."""
        nxt = after
        for op in reversed(list(block.ops) if block is not None else []):
            nxt = self._op(op, nxt)
        return nxt

    def _op(self, op: Operation, nxt: list[_Node]) -> list[_Node]:
        if isinstance(op, gpu.BarrierOp):
            n = self._node(op, nxt)
            self.barriers[op] = n
            return [n]
        if isinstance(op, simt.WgmmaOp | simt.WgmmaWaitGroupOp):
            # a wgmma reads its buffers from its issue until the wait that retires it
            for buffer in _wgmma_buffers(op):
                nxt = [self._node(op, nxt)]
                nxt[0].buffer = buffer
            return nxt
        if isinstance(op, (*_WRITES, *_READS)):
            n = self._node(op, nxt)
            mem = op.operands[1] if isinstance(op, _WRITES) else op.operands[0]
            n.buffer, n.writes = _buffer(mem), isinstance(op, _WRITES)
            n.own_copies = OWN_COPIES in op.attributes
            return [n]
        if isinstance(op, simt.FenceAsyncSharedOp):
            # each thread fences its own generic-proxy writes; a wgmma of another thread may
            # read them only after a barrier behind every fence
            n = self._node(op, nxt)
            n.buffer = _ANY
            return [n]
        if isinstance(op, simt.CpAsyncOp | simt.CpAsyncWaitGroupOp):
            n = self._node(op, nxt)
            n.writes = True
            n.buffer = _buffer(op.operands[0]) if isinstance(op, simt.CpAsyncOp) else self.copied
            n.own_copies = OWN_COPIES in op.attributes
            return [n]
        if isinstance(op, scf.ForOp):
            head = self._node(None)  # each iteration starts here; it may also leave the loop
            head.succ = [*self._block(op.body.block, [head]), *nxt]
            return [head]
        if isinstance(op, scf.WhileOp):
            head = self._node(None)
            body = self._block(op.after_region.block, [head])
            head.succ = self._block(op.before_region.block, [*body, *nxt])
            return [head]
        if isinstance(op, scf.IfOp):
            then = self._block(op.true_region.block, nxt)
            other = self._block(op.false_region.block, nxt) if op.false_region.blocks else nxt
            return [*then, *other]
        if isinstance(op, func.CallOp) or op.regions:
            n = self._node(op, nxt)  # unknown: reads and writes every buffer
            n.buffer, n.writes = _ANY, True
            return [n]
        return nxt

    @staticmethod
    def reach(start: list[_Node], forward: bool) -> list[_Node]:
        """Accesses reachable from ``start`` (forward or backward) before any barrier."""
        seen: set[int] = set()
        stack = list(start)
        found = []
        while stack:
            n = stack.pop()
            if id(n) in seen:
                continue
            seen.add(id(n))
            if isinstance(n.op, gpu.BarrierOp):
                continue
            if n.op is not None:
                found.append(n)
            stack.extend(n.succ if forward else n.pred)
        return found


def _conflict(a: _Node, b: _Node) -> bool:
    """Whether the earlier access ``a`` and the later ``b`` (another thread's) need a barrier
    between them."""
    if isinstance(a.op, simt.FenceAsyncSharedOp) or isinstance(b.op, simt.FenceAsyncSharedOp):
        return isinstance(a.op, simt.FenceAsyncSharedOp) and isinstance(b.op, simt.WgmmaOp)
    if not (a.writes or b.writes):
        return False
    if isinstance(a.op, simt.CpAsyncOp):
        # a copy lands at its own thread's wait, not at its issue: what follows it is ordered
        # by that wait and a barrier after it (the wait's own conflicts), never by a barrier
        # right after the issue
        return False
    if b.own_copies and isinstance(a.op, simt.CpAsyncWaitGroupOp):
        # ``b`` reads only the bytes its own thread copied: its own wait made them visible to it
        return False
    if (
        b.own_copies
        and isinstance(b.op, simt.CpAsyncOp)
        and (isinstance(a.op, simt.CpAsyncWaitGroupOp) or (a.own_copies and a.buffer is b.buffer))
    ):
        # every copy into ``b``'s ring is in one layout: a thread overwrites only bytes that
        # its own earlier copies wrote (landing at the wait ``a``) or, for an own-copies read
        # ``a``, that it read itself
        return False
    if isinstance(b.op, simt.WgmmaWaitGroupOp):
        # The wait ends the reads of wgmma ops issued before it: an access ``a`` before their
        # issue is ordered against the wgmma itself (an access on the path), one after it
        # touched bytes a wgmma may still read, a race only the wait fixes. So the wait
        # conflicts only with what follows it.
        return False
    if isinstance(b.op, simt.CpAsyncWaitGroupOp):
        # The copies landing at a later wait were issued before it: after ``a`` (then their
        # cp.async is itself an access on the path, ordered against ``a``) or before ``a``
        # (then ``a`` touched bytes a copy still wrote, a race no barrier fixes). Either way
        # the landing needs no barrier of its own ahead of it, only behind it.
        return False
    if a.buffer is b.buffer or a.buffer is _ANY or b.buffer is _ANY:
        return True
    sa = a.buffer if isinstance(a.buffer, frozenset) else {a.buffer}
    sb = b.buffer if isinstance(b.buffer, frozenset) else {b.buffer}
    return bool(sa & sb) or any(_overlap(x, y) for x in sa for y in sb)


def _overlap(a: object, b: object) -> bool:
    """Whether two buffers placed in the arena (:mod:`llc.passes.shared_alloc`) share bytes."""
    if not isinstance(a, simt.SharedAllocOp) or not isinstance(b, simt.SharedAllocOp):
        return False
    ra, rb = a.byte_range, b.byte_range
    return ra is not None and rb is not None and ra[0] < rb[1] and rb[0] < ra[1]


def barrier_needed(fn: func.FuncOp, barrier: gpu.BarrierOp) -> bool:
    """Whether ``barrier`` (in ``fn``) is the only barrier on some path between two conflicting
    shared-memory accesses (see the module docstring)."""
    graph = _Graph(fn)
    node = graph.barriers[barrier]
    before = graph.reach(node.pred, forward=False)
    after = graph.reach(node.succ, forward=True)
    return any(_conflict(a, b) for a in before for b in after)


def prune_barriers(fn: func.FuncOp) -> int:
    """Remove, in program order, every barrier of ``fn`` that :func:`barrier_needed` says orders
    nothing; return how many went (the module docstring has an example)."""
    removed = 0
    for op in [o for o in fn.walk() if isinstance(o, gpu.BarrierOp)]:
        if not barrier_needed(fn, op):
            op.detach()
            op.erase()
            removed += 1
    return removed


_GENERIC_SHARED_WRITES = frozenset(
    {"simt.shared_store", "simt.stmatrix", "simt.cp_async", "simt.cp_async_wait_group"}
)
"""Ops that write shared memory through the generic proxy (a ``cp.async`` copy lands at its
wait), which a ``fence.proxy.async`` must order before a wgmma reads the bytes."""


def prune_async_fences(fn: func.FuncOp) -> int:
    """Remove every ``simt.fence_async_shared`` that an earlier one in the same block already
    covers: no generic-proxy shared write (``_GENERIC_SHARED_WRITES``), call or op with regions
    between them (a fence orders every buffer). Return how many went. A fence first in its
    block stays (a loop's back edge may bring writes).

    >>> from xdsl.dialects import func
    >>> from xdsl.ir import Block, Region
    >>> from llc.dialects import simt
    >>> block = Block()
    >>> block.add_ops([simt.FenceAsyncSharedOp(), simt.FenceAsyncSharedOp(), func.ReturnOp()])
    >>> fn = func.FuncOp("k", ((), ()), Region(block))
    >>> prune_async_fences(fn), len(list(fn.walk()))
    (1, 3)
    """
    removed = 0
    for fence in [o for o in fn.walk() if isinstance(o, simt.FenceAsyncSharedOp)]:
        prev = fence.prev_op
        while prev is not None and not isinstance(prev, simt.FenceAsyncSharedOp):
            if prev.name in _GENERIC_SHARED_WRITES or prev.regions or prev.name == "func.call":
                break
            prev = prev.prev_op
        if isinstance(prev, simt.FenceAsyncSharedOp):
            fence.detach()
            fence.erase()
            removed += 1
    return removed
