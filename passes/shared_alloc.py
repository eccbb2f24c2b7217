"""Shared-memory allocation of lowered SIMT code: one arena per CTA, buffers whose lifetimes do
not meet share bytes, as Triton's allocation analysis does.

Each ``simt.shared_alloc`` of a function gets a **live interval** over the function's ops in
program order (preorder numbering, an op with regions spanning its nested ops):

* the ops that touch the buffer: its users (stores, loads, ``ldmatrix``/``stmatrix``,
  ``cp.async``, wgmma), the ``simt.wgmma_wait_group`` that retires a wgmma reading it (the tensor
  cores read until then), and every ``simt.cp_async_wait_group`` when the buffer is copied to
  (the copies land there);
* the interval runs from the first to the last of those ops, each lifted to the block that holds
  them all (an access inside a loop nested below that block makes the whole loop live);
* a buffer that may carry data from one iteration of a loop to the next (a ``tl.local_alloc``
  buffer, a ring of pipeline slots) is live through the whole outermost loop around that block;
  the **scratch** of one op (a layout conversion, gather, reduction or scan exchange: stores,
  barrier, loads, within the op) holds nothing between executions, so it lives only around it;
* a buffer some op uses that the analysis does not know (a call, a ``scf.yield``) lives through
  the whole function.

:func:`assign_offsets` places the buffers first-fit, largest first: a buffer takes the lowest
offset that is a multiple of its alignment (the swizzle period of an ``nvmma_shared`` operand,
16 bytes for ``cp.async``) and meets no placed buffer whose interval meets its own.
:func:`allocate_shared` writes the offsets on the ops (``offset N``); the PTX emitter then
declares one arena and the SIMT interpreter runs every buffer in it, so a reuse that is not
ordered is a race it reports.

Reuse needs a barrier: the threads that last touched a buffer's bytes must be done before others
write them as another buffer. :func:`allocate_shared` puts a ``gpu.barrier`` before the first
access of a buffer (before its loop when its interval covers one) that reuses bytes of a buffer
live earlier, unless a barrier in that block already stands between the two; and before a
buffer that a later buffer in the same loop shares bytes with (the back edge brings that one
first). :func:`llc.passes.barriers.prune_barriers`, which sees overlapping byte ranges as the
same memory, then removes every barrier something else already orders, and keeps the ones that
order a reuse.

>>> assign_offsets([Buffer(4096, 16, 0, 5), Buffer(8192, 1024, 6, 9), Buffer(512, 512, 3, 7)])
[0, 0, 8192]
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from xdsl.dialects import func, gpu, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Block, Operation

from llc.dialects import simt

__all__ = ["Buffer", "allocate_shared", "arena_bytes", "assign_offsets", "live_intervals"]

_LOOPS = (scf.ForOp, scf.WhileOp)


@dataclass(frozen=True)
class Buffer:
    """A shared buffer to place: ``size`` bytes aligned to ``align``, live over the ops
    numbered ``start`` to ``end`` (both included).

    >>> a, b, c = Buffer(64, 16, 0, 3), Buffer(64, 16, 3, 5), Buffer(64, 16, 4, 5)
    >>> a.meets(b), a.meets(c)
    (True, False)
    """

    size: int
    align: int
    start: int
    end: int

    def meets(self, other: Buffer) -> bool:
        """Whether the two live intervals share an op."""
        return self.start <= other.end and other.start <= self.end


def assign_offsets(buffers: list[Buffer]) -> list[int]:
    """Each buffer's offset (in ``buffers``' order): largest first, each at the lowest offset,
    a multiple of its alignment, that overlaps no placed buffer whose interval meets its own.

    >>> assign_offsets([Buffer(100, 16, 0, 1), Buffer(100, 16, 1, 2)])  # both live at op 1
    [0, 112]
    >>> assign_offsets([Buffer(100, 16, 0, 1), Buffer(100, 16, 2, 3)])  # one after the other
    [0, 0]
    """
    order = sorted(range(len(buffers)), key=lambda i: (-buffers[i].size, buffers[i].start, i))
    placed: list[tuple[int, int, Buffer]] = []  # (offset, end offset, buffer)
    offsets = [0] * len(buffers)
    for i in order:
        b = buffers[i]
        live = sorted((lo, hi) for lo, hi, other in placed if other.meets(b))
        offset = 0
        for lo, hi in live:
            if offset + b.size <= lo:
                break
            offset = max(offset, -(-hi // b.align) * b.align)
        offsets[i] = offset
        placed.append((offset, offset + b.size, b))
    return offsets


def arena_bytes(fn: func.FuncOp) -> int:
    """The bytes of ``fn``'s shared arena: the end of its last placed buffer (0 without any).

    >>> from xdsl.ir import Block, Region
    >>> block = Block()
    >>> block.add_ops([simt.SharedAllocOp(64, 16, offset=128), func.ReturnOp()])
    >>> arena_bytes(func.FuncOp("k", ([], []), Region(block)))
    192
    """
    ends = [
        o.byte_range[1] for o in fn.walk() if isinstance(o, simt.SharedAllocOp) and o.byte_range
    ]
    return max(ends, default=0)


def _numbering(fn: func.FuncOp) -> tuple[dict[Operation, int], dict[Operation, int]]:
    """Preorder number of every op, and the last number inside it (itself when it has no
    regions)."""
    first: dict[Operation, int] = {}
    last: dict[Operation, int] = {}

    def visit(op: Operation) -> int:
        n = len(first)
        first[op] = n
        end = n
        for region in op.regions:
            for block in region.blocks:
                for inner in block.ops:
                    end = visit(inner)
        last[op] = end
        return end

    for block in fn.body.blocks:
        for op in block.ops:
            visit(op)
    return first, last


def _wgmma_readers(op: simt.WgmmaWaitGroupOp) -> list[Operation] | None:
    """The allocs the wgmma chains ``op`` waits for read, through ``scf.if`` results
    (``None``: every buffer)."""
    if not op.operands:
        return None
    found: list[Operation] = []
    for value in op.operands:
        for source in simt.wgmma_sources(value):
            for mem in (source.smem, source.a_smem):
                if mem is not None and mem.owner not in found:
                    found.append(mem.owner)  # type: ignore[arg-type]
    return found


def _accesses(fn: func.FuncOp) -> tuple[dict[Operation, list[Operation]], set[Operation]]:
    """The ops touching each alloc (see the module docstring), and the allocs some op uses that
    the analysis does not know."""
    allocs = [o for o in fn.walk() if isinstance(o, simt.SharedAllocOp)]
    touch: dict[Operation, list[Operation]] = {a: [] for a in allocs}
    unknown: set[Operation] = set()
    known = (
        simt.SharedStoreOp,
        simt.SharedLoadOp,
        simt.LdMatrixOp,
        simt.StMatrixOp,
        simt.CpAsyncOp,
        simt.WgmmaOp,
    )
    for a in allocs:
        for use in a.result.uses:
            user = use.operation
            touch[a].append(user)
            if not isinstance(user, known):
                unknown.add(a)
    copied = {o.operands[0].owner for o in fn.walk() if isinstance(o, simt.CpAsyncOp)} & set(allocs)
    for op in fn.walk():
        if isinstance(op, simt.CpAsyncWaitGroupOp):
            for a in copied:
                touch[a].append(op)
        elif isinstance(op, simt.WgmmaWaitGroupOp):
            readers = _wgmma_readers(op)
            for a in allocs if readers is None else readers:
                if a in touch:
                    touch[a].append(op)
    return touch, unknown


def _lifted(ops: list[Operation], fn: func.FuncOp) -> tuple[Block, list[Operation]]:
    """The innermost block holding every op of ``ops`` (itself or through an op around it), and
    each op's ancestor in that block."""
    chains: list[list[Operation]] = []  # per op: it and the ops around it, outermost first
    for op in ops:
        chain: list[Operation] = []
        current: Operation | None = op
        while current is not None and current is not fn:
            chain.append(current)
            current = current.parent_op()
        chains.append(chain[::-1])
    depth = 0  # chains[*][depth] all sit in one block
    while all(len(c) > depth + 1 for c in chains) and len({c[depth] for c in chains}) == 1:
        # one op holds them all: look one level down, unless they sit in different blocks
        # (both branches of an scf.if): then that op is where they meet
        if len({c[depth + 1].parent_block() for c in chains}) != 1:
            break
        depth += 1
    tops = [c[depth] for c in chains]
    block = tops[0].parent_block()
    assert block is not None
    return block, tops


def live_intervals(
    fn: func.FuncOp, scratch: Collection[Operation] = ()
) -> dict[simt.SharedAllocOp, tuple[int, int]]:
    """The live interval (first and last op number, :func:`_numbering`) of every
    ``simt.shared_alloc`` of ``fn`` (see the module docstring); ``scratch``: the allocs that
    hold nothing between executions of their op.

    >>> from xdsl.dialects import arith
    >>> from xdsl.dialects.builtin import IndexType, VectorType, f32
    >>> from xdsl.ir import Region
    >>> c0 = arith.ConstantOp.from_int_and_width(0, IndexType())
    >>> a, b = simt.SharedAllocOp(64, 16), simt.SharedAllocOp(64, 16)
    >>> la = simt.SharedLoadOp(a.results[0], c0.results[0], VectorType(f32, [1]))
    >>> lb = simt.SharedLoadOp(b.results[0], c0.results[0], VectorType(f32, [1]))
    >>> block = Block()
    >>> block.add_ops([c0, a, b, la, lb, func.ReturnOp()])
    >>> fn = func.FuncOp("k", ([], []), Region(block))
    >>> sorted(live_intervals(fn).values())
    [(3, 3), (4, 4)]
    """
    first, last = _numbering(fn)
    touch, unknown = _accesses(fn)
    everything = (0, max(last.values(), default=0))
    intervals: dict[simt.SharedAllocOp, tuple[int, int]] = {}
    for alloc, ops in touch.items():
        assert isinstance(alloc, simt.SharedAllocOp)
        if alloc in unknown:
            intervals[alloc] = everything
            continue
        if not ops:
            intervals[alloc] = (first[alloc], first[alloc])
            continue
        block, tops = _lifted(ops, fn)
        start = min(first[t] for t in tops)
        end = max(last[t] for t in tops)
        if alloc not in scratch:
            # data may go round a loop's back edge: live through the outermost loop around
            around = block.parent_op()
            while around is not None and around is not fn:
                if isinstance(around, _LOOPS):
                    start, end = first[around], last[around]
                around = around.parent_op()
        intervals[alloc] = (start, end)
    return intervals


def allocate_shared(fn: func.FuncOp, scratch: Iterable[Operation] = ()) -> int:
    """Give every ``simt.shared_alloc`` of ``fn`` its offset in the CTA's arena (see the module
    docstring), put a barrier ahead of every buffer that shares bytes with another, and return
    the arena's size in bytes. Run it before :func:`llc.passes.barriers.prune_barriers`.

    >>> from xdsl.dialects import arith
    >>> from xdsl.dialects.builtin import IndexType, VectorType, f32
    >>> from xdsl.ir import Region
    >>> c0 = arith.ConstantOp.from_int_and_width(0, IndexType())
    >>> a, b = simt.SharedAllocOp(64, 16), simt.SharedAllocOp(64, 16)
    >>> block = Block()
    >>> ops = [simt.SharedLoadOp(m.results[0], c0.results[0], VectorType(f32, [1])) for m in (a, b)]
    >>> block.add_ops([c0, a, b, *ops, func.ReturnOp()])
    >>> fn = func.FuncOp("k", ([], []), Region(block))
    >>> allocate_shared(fn), a.offset.value.data, b.offset.value.data
    (64, 0, 0)
    >>> [op.name.split(".")[1] for op in block.ops][3:]  # b waits for a's readers
    ['shared_load', 'barrier', 'shared_load', 'return']
    """
    scratch = set(scratch)
    intervals = live_intervals(fn, scratch)
    allocs = list(intervals)
    if not allocs:
        return 0
    buffers = []
    for alloc in allocs:
        t = alloc.result.type
        assert isinstance(t, simt.SharedMemoryType)
        start, end = intervals[alloc]
        buffers.append(Buffer(t.size.data, max(16, t.alignment.data), start, end))
    offsets = assign_offsets(buffers)
    for alloc, offset in zip(allocs, offsets, strict=True):
        alloc.offset = IntegerAttr(offset, 64)
    first, last = _numbering(fn)
    by_number = {n: op for op, n in first.items()}
    loops = [(first[o], last[o]) for o in first if isinstance(o, _LOOPS)]
    for i, b in enumerate(buffers):
        at = by_number[b.start]
        if isinstance(at, simt.SharedAllocOp):  # a buffer no op touches
            continue
        block = at.parent_block()
        assert block is not None
        shares = [
            a
            for j, a in enumerate(buffers)
            if i != j and offsets[i] < offsets[j] + a.size and offsets[j] < offsets[i] + b.size
        ]
        # a buffer later in a loop around both comes back round the back edge before this one
        back = any(
            a.start > b.end and lo <= b.start and a.end <= hi for a in shares for lo, hi in loops
        )
        before = [a.end for a in shares if a.end < b.start]
        if not back:
            if not before:
                continue
            # a barrier already between the last reader of the bytes and this buffer's first
            # access, on every path (in the block of that access) orders the reuse
            if any(
                isinstance(o, gpu.BarrierOp) and max(before) < first[o] <= b.start
                for o in block.ops
            ):
                continue
        barrier = gpu.BarrierOp()
        block.insert_op_before(barrier, at)
        first[barrier] = b.start  # just before the access it is put ahead of
    return max(o + b.size for o, b in zip(offsets, buffers, strict=True))
