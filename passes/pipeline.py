"""``llc-pipeline{num-stages=3}``: software pipelining of the loads that feed dots.

In an ``scf.for`` whose body loads tiles (``tl.load``) that reach a ``tl.dot`` operand (through
``tl.convert_layout``, ``tl.trans``, ``tl.local_alloc``, casts), each such load becomes an
asynchronous copy (``tl.async_copy_global_to_local``) into a ring of ``num_stages`` shared
buffers, issued ``num_stages - 1`` iterations ahead, as Triton's software pipeliner does (a
two-stage modulo schedule: the loads and the address arithmetic they need in stage 0, the rest
of the body in stage ``num_stages - 1``):

* **prologue**: the copies of the first ``num_stages - 1`` iterations are issued before the loop,
  one ``tl.async_commit_group`` each; a copy of an iteration past the trip count (a loop of fewer
  iterations than stages, dynamic bounds) has its mask cleared, so it reads nothing and fills its
  slot with zeros;
* **kernel**: iteration ``j`` waits (``tl.async_wait {num = num_stages - 2}``) until its own
  group has landed, reads its tile (``tl.local_load``, straight into the dot-operand layout
  when the load's only use was that conversion, through a ``tl.memdesc_trans`` view of the slot
  when it was transposed first), issues the copy of iteration ``j + num_stages - 1`` and
  commits. A tile read into registers frees its slot at once: the ring has ``num_stages - 1``
  slots and the copy, placed after this iteration's reads (the copy lowering's barrier keeps
  them ahead of it), refills the slot just read, as Triton's pipeliner does. A slot the kernel
  stages itself for a wgmma (which reads it asynchronously) stays busy: the ring has
  ``num_stages`` slots and the copy, issued before the reads, goes into the slot iteration
  ``j - 1`` read (the wait's barrier keeps those reads ahead of it). Each slot count has its own
  slot counters;
  with rings of both kinds the copies go after the register reads and behind the wgmma's
  ``tl.fence_async_shared`` (its barrier keeps the reads ahead of the refill: one barrier, not
  two). The loop stops ``num_stages - 1`` iterations
  early, so every copy it issues is for an iteration that runs: no bound check, the original
  masks (the K tail) only;
* **epilogue**, peeled: the last ``num_stages - 1`` iterations follow the loop without copies;
  before peeled iteration ``e`` a ``tl.async_wait {num = num_stages - 2 - e}`` lets the groups of
  the later iterations stay in flight (the last wait is 0: nothing is left in flight), and the
  iteration runs under ``scf.if iv < upper bound``: a loop of fewer than ``num_stages - 1``
  iterations (0 and 1 included) runs only its own. A wgmma product the loop carries only into
  the next ``tl.warp_group_dot``'s accumulator stays in flight through the peeled iterations
  (their ``scf.if`` results carry it) and one ``tl.warp_group_dot_wait`` after the last retires
  it: no copy follows a peeled iteration to overwrite the slots it read, so a wait in each would
  order nothing (unless the iteration stages an operand in a buffer of its own: then it waits,
  and the next one reuses the bytes). ``peel-epilogue=false`` keeps Triton 3.9's
  form instead: the loop runs every iteration, the copies past the upper bound masked off, and
  a ``tl.async_wait {num = 0}`` after it drains them.

The loop carries two slot counters (the slot to fill, the slot to read), its next induction value
(where the peeled iterations start) and the values the address arithmetic carries (pointer tensors
advanced by ``tl.addptr``) ``num_stages - 1`` iterations ahead. A load is left alone (synchronous)
when its address or mask depends on a value the later stage computes, on another load, or on a
carried value the rest of the body also reads or the loop returns. ``other`` values that are not
zero are applied after the ``tl.local_load`` with the consumer iteration's mask (``cp.async`` fills
masked bytes with zeros).

The ring is one ``tl.local_alloc`` of ``slots x tile`` in the swizzled shared layout the
layout assignment gives dot operands (:func:`llc.passes.layout_assignment.shared_layout_for`);
``tl.memdesc_index`` picks a slot.

>>> from llc.testing.semantics import apply_pipeline, parse
>>> from pathlib import Path
>>> root = Path(__file__).resolve().parents[1]
>>> text = (root / "examples" / "matmul.mlir").read_text()
>>> hint = ": i32 {tl.divisibility = 16 : i32}"  # rows of A and B start 16-byte aligned
>>> module = parse(text.replace("%N: i32", "%N" + hint).replace("%K: i32", "%K" + hint))
>>> _ = apply_pipeline(module, "llc-pipeline{num-stages=3}")
>>> names = [op.name[9:] for op in module.walk() if op.name.startswith("tl.async")]
>>> print(" ".join(n.replace("copy_global_to_local", "copy") for n in names))
copy copy commit_group copy copy commit_group wait copy copy commit_group wait wait
>>> [op.results[0].type.get_shape()[0] for op in module.walk() if op.name == "tl.local_alloc"]
[2, 2]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    TensorType,
    i1,
    i32,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import is_side_effect_free
from xdsl.transforms.dead_code_elimination import region_dce

from llc.dialects import tl
from llc.dialects.simt import bit_width as simt_bits

__all__ = ["PipelinePass", "module_stages", "pipelinable_loads", "pipeline_loop", "pipeline_stages"]

_TO_DOT = ("tl.convert_layout", "tl.trans", "tl.local_alloc", "tl.local_load", "tl.fp_to_fp")
"""Ops a loaded tile may pass through on its way to a ``tl.dot`` operand."""


def _feeds_dot(value: SSAValue, depth: int = 0) -> bool:
    """Whether ``value`` reaches an A or B operand of a ``tl.dot`` through :data:`_TO_DOT` ops
    and casts."""
    if depth > 8:
        return False
    for use in value.uses:
        user = use.operation
        if user.name in ("tl.dot", "tl.warp_group_dot") and use.index < 2:
            return True
        cast = user.name.startswith(
            (
                "arith.ext",
                "arith.trunc",
                "arith.sitofp",
                "arith.uitofp",
                "tl.ext",
                "tl.trunc",
                "tl.sitofp",
                "tl.uitofp",
            )
        )
        if (
            (user.name in _TO_DOT or cast)
            and user.results
            and _feeds_dot(user.results[0], depth + 1)
        ):
            return True
    return False


def _is_zero(value: SSAValue | None) -> bool:
    """``value`` is absent or a constant splat of zero (what ``cp.async`` fills masked bytes
    with)."""
    if value is None:
        return True
    owner = value.owner
    if not isinstance(owner, Operation) or owner.name not in ("tl.constant", "arith.constant"):
        return False
    attr = owner.properties.get("value") or owner.attributes.get("value")
    if isinstance(attr, DenseIntOrFPElementsAttr):
        values = attr.get_values()
        return len(set(values)) == 1 and values[0] == 0 and str(values[0])[0] != "-"
    if isinstance(attr, IntegerAttr | FloatAttr):
        return attr.value.data == 0 and str(attr.value.data)[0] != "-"
    return False


def _copy_bytes(load: tl.LoadOp) -> int:
    """Bytes one thread's widest copy of ``load`` could move: registers consecutive along a
    dim in its layout, as far as the pointer's contiguity and alignment allow (the axis
    analysis, which follows carried values over the loop's back edge). ``cp.async`` moves 4
    bytes or more: a load below that stays synchronous.
    """
    from llc.passes.axis_info import AxisAnalysis

    rt = load.result.type
    assert isinstance(rt, TensorType)
    enc = rt.encoding
    if not hasattr(enc, "to_linear_layout"):
        return 0
    shape = [1 << (int(s) - 1).bit_length() for s in rt.get_shape()]
    ll = enc.to_linear_layout(shape)  # type: ignore[union-attr]
    item = max(1, simt_bits(rt.element_type) // 8)
    axis = AxisAnalysis()
    info = axis.info(load.ptr)
    best = 0
    for d in range(len(shape)):
        k = 0
        while k < ll.get_in_dim_size_log2("register"):
            want = [0] * len(shape)
            want[d] = 1 << k
            if [int(x) for x in ll.basis("register", k)] != want:
                break
            k += 1
        regs = min(1 << k, info.contiguity[d], max(1, info.divisibility[d] // item))
        best = max(best, 1 << (max(1, regs).bit_length() - 1))
    return min(best * item, 16, _slot_run_bytes(load, ll, shape, item))


def _slot_run_bytes(load: tl.LoadOp, ll: object, shape: list[int], item: int) -> int:
    """Bytes one thread's copy of ``load`` can write at once into the ring slot's shared layout
    (consecutive offsets there, as the ``cp.async`` lowering takes them): a tile the slot stores
    transposed (the K-major B of an fp8 wgmma, loaded N-contiguous) has runs of one element,
    and Triton does not pipeline such a load either."""
    import numpy as np

    from llc.passes.simt_lowering import coordinate_keys, thread_coords, widest_run

    slot = _ring_type(load, 1)[1]
    sll = slot.encoding.to_linear_layout(shape)  # type: ignore[union-attr]
    outs = sll.apply_all()
    scoords = np.stack([np.asarray(outs[n]).astype(np.int64) for n, _ in sll.out_dims], -1)
    table = np.full(int(np.prod(shape)), -1, dtype=np.int64)
    table[coordinate_keys(scoords, shape)] = np.arange(scoords.shape[0])
    threads = ll.get_in_dim_size("lane") * ll.get_in_dim_size("warp")  # type: ignore[attr-defined]
    off = table[coordinate_keys(thread_coords(ll, threads), shape)]
    if (off < 0).any():
        return 0
    bits = (threads - 1).bit_length()
    thread = [int(off[1 << b, 0] ^ off[0, 0]) for b in range(bits)]
    return widest_run([int(x) for x in off[0]], thread, max(1, 16 // item)) * item


@dataclass
class _Plan:
    """What stage 0 of the loop is: the loads, the ops computing their addresses and masks
    (body order), and the carried values (iter-arg positions) they advance."""

    loads: list[tl.LoadOp]
    stage0: list[Operation]
    carried: list[int]
    selects: set[tl.LoadOp] = field(default_factory=set)
    """Loads whose non-zero ``other`` is applied after the ``tl.local_load``."""


def _slice(
    loop: scf.ForOp, load: tl.LoadOp
) -> tuple[set[Operation], set[int], set[Operation]] | None:
    """The stage-0 slice of ``load``: body ops computing its pointer and mask, the carried
    values (iter-arg positions) it reads, and the ops of the slice that read a carried value
    (directly or not). ``None`` when the slice holds an op that is not pure or has regions."""
    body = loop.body.block
    ops: set[Operation] = set()
    carried: set[int] = set()
    tainted: set[Operation] = set()
    work: list[SSAValue] = [load.ptr, *([load.mask] if load.mask is not None else [])]
    seen: set[SSAValue] = set()
    while work:
        v = work.pop()
        if v in seen:
            continue
        seen.add(v)
        if isinstance(v, BlockArgument):
            if v.block is body and v.index > 0:
                pos = v.index - 1
                if pos not in carried:
                    carried.add(pos)
                    work.append(body.last_op.operands[pos])  # type: ignore[union-attr]
            continue
        op = v.owner
        assert isinstance(op, Operation)
        if op.parent_block() is not body:
            if loop.is_ancestor(op):
                return None  # defined in a nested region
            continue  # loop invariant
        if op.regions or not is_side_effect_free(op):
            return None
        ops.add(op)
        work.extend(op.operands)
    for op in body.ops:  # program order: taint flows forward
        if op in ops and any(
            (isinstance(x, BlockArgument) and x.block is body and x.index - 1 in carried)
            or (isinstance(x.owner, Operation) and x.owner in tainted)
            for x in op.operands
        ):
            tainted.add(op)
    return ops, carried, tainted


def pipelinable_loads(loop: scf.ForOp) -> _Plan | None:
    """The loads of ``loop``'s body that feed dots and can be issued iterations ahead, with
    their stage-0 slice; ``None`` when there is none.

    >>> from xdsl.dialects.builtin import IndexType
    >>> c = arith.ConstantOp(IntegerAttr(0, IndexType()))
    >>> body = Block(arg_types=[IndexType()]); body.add_op(scf.YieldOp())
    >>> pipelinable_loads(scf.ForOp(c, c, c, [], Region(body))) is None
    True
    """
    body = loop.body.block
    yield_op = body.last_op
    assert yield_op is not None
    loads: list[tl.LoadOp] = []
    stage0: set[Operation] = set()
    carried: set[int] = set()
    selects: set[tl.LoadOp] = set()
    for op in body.ops:
        if not isinstance(op, tl.LoadOp) or not isinstance(op.result.type, TensorType):
            continue
        if not _feeds_dot(op.result) or _copy_bytes(op) < 4:
            continue
        found = _slice(loop, op)
        if found is None:
            continue
        ops, args, tainted = found
        # A carried value advanced for stage 0 must be read by stage 0 only, and not returned.
        ok = all(not loop.results[p].uses for p in args)
        for p in args:
            for use in body.args[p + 1].uses:
                user = use.operation
                ok &= user in ops or user is op
        for t in tainted:
            for r in t.results:
                for use in r.uses:
                    user = use.operation
                    at_yield = user is yield_op and use.index in args
                    ok &= user in ops or user is op or at_yield
        if op.mask is not None and not _is_zero(op.other):
            # the consumer iteration applies `other` with its own mask, computed in place
            ok &= not (isinstance(op.mask.owner, Operation) and op.mask.owner in tainted)
            ok &= not (isinstance(op.other, BlockArgument) and op.other.block is body)
            if ok:
                selects.add(op)
        if not ok:
            continue
        loads.append(op)
        stage0 |= ops
        carried |= args
    if not loads:
        return None
    # every carried value's update must be computed by stage 0 alone
    for p in carried:
        nxt = yield_op.operands[p]
        owner = nxt.owner
        if isinstance(owner, Operation) and owner.parent_block() is body and owner not in stage0:
            return None
    order = [o for o in body.ops if o in stage0]
    return _Plan(loads, order, sorted(carried), selects)


class _Emitter:
    """Inserts ops before ``before`` (or at the end of ``block`` when it is ``None``)."""

    def __init__(self, block: Block, before: Operation | None = None) -> None:
        self.block, self.before = block, before

    def __call__(self, op: Operation) -> Operation:
        if self.before is None:
            self.block.add_op(op)
        else:
            self.block.insert_op_before(op, self.before)
        return op

    def const(self, typ: Attribute, v: int) -> SSAValue:
        return self(arith.ConstantOp(IntegerAttr(v, typ))).results[0]  # type: ignore[arg-type]


def _ring_type(load: tl.LoadOp, stages: int) -> tuple[tl.MemDescType, tl.MemDescType]:
    """The ring (``stages x tile``) and slot memdesc types, in the dot-operand shared layout.
    The ring carries the slot's (rank-2) layout, which applies to its trailing dims, the leading
    dim picking whole slots: the form Triton writes (and verifies: a 3-D swizzled layout over
    ``3 x tile`` is not a power-of-2 shape)."""
    from llc.passes.layout_assignment import shared_layout_for

    rt = load.result.type
    assert isinstance(rt, TensorType)
    shape = list(rt.get_shape())
    staged = _staging_alloc(load)
    if staged is not None and staged.operands[0] is not load.result:
        slot_enc = _slot_encoding(load)  # staged transposed: its view is the kernel's layout
    elif staged is not None:  # the kernel stages the tile itself: keep its shared layout
        slot_enc = staged.results[0].type.encoding  # type: ignore[attr-defined]
    else:
        slot_enc = shared_layout_for(tl.MemDescType(rt.element_type, shape))
    return (
        tl.MemDescType(rt.element_type, [stages, *shape], slot_enc),
        tl.MemDescType(rt.element_type, shape, slot_enc),
    )


def _issue(
    plan: _Plan,
    loop: scf.ForOp,
    rings: list[tuple[SSAValue, tl.MemDescType]],
    iv: SSAValue,
    carried_in: list[SSAValue],
    slots: list[SSAValue],
    put: _Emitter,
    guard: bool = True,
) -> list[SSAValue]:
    """Clone stage 0 for the iteration of induction value ``iv`` (carried values
    ``carried_in``), issue each ring's copy into its slot of ``slots`` (with ``guard``, masked
    off past the upper bound) and commit them; return the carried values of the next iteration."""
    body = loop.body.block
    mapping: dict[SSAValue, SSAValue] = {body.args[0]: iv}
    for p, v in zip(plan.carried, carried_in, strict=True):
        mapping[body.args[p + 1]] = v
    for op in plan.stage0:
        put(op.clone(value_mapper=mapping))
    valid = put(arith.CmpiOp(iv, loop.ub, "slt")).results[0] if guard else None
    for load, (ring, slot_t), slot in zip(plan.loads, rings, slots, strict=True):
        ptr = mapping.get(load.ptr, load.ptr)
        pt = ptr.type
        assert isinstance(pt, TensorType)
        mask_t = TensorType(i1, pt.get_shape(), pt.encoding)
        live = None
        if valid is not None:
            live = put(tl.SplatOp(valid, mask_t)).results[0]  # type: ignore[arg-type]
        if load.mask is not None:
            mask = mapping.get(load.mask, load.mask)
            live = mask if live is None else put(arith.AndIOp(mask, live)).results[0]
        dst = put(tl.MemDescIndexOp(operands=[ring, slot], result_types=[slot_t])).results[0]
        put(tl.AsyncCopyGlobalToLocalOp(ptr, dst, live))
    put(tl.AsyncCommitGroupOp())
    yield_op = body.last_op
    assert yield_op is not None
    return [mapping.get(yield_op.operands[p], yield_op.operands[p]) for p in plan.carried]


def _next_slot(idx: SSAValue, stages: int, put: _Emitter) -> SSAValue:
    inc = put(arith.AddiOp(idx, put.const(i32, 1))).results[0]
    wrap = put(arith.CmpiOp(inc, put.const(i32, stages), "eq")).results[0]
    return put(arith.SelectOp(wrap, put.const(i32, 0), inc)).results[0]


def pipeline_loop(loop: scf.ForOp, stages: int, peel: bool = True) -> scf.ForOp | None:
    """Pipeline ``loop`` over ``stages`` buffers (see the module docstring); return the new
    loop, or ``None`` (``loop`` unchanged) when no load qualifies or ``stages < 2``. With
    ``peel`` the last ``stages - 1`` iterations follow the loop (no copies); without, they stay
    in the loop with their copies masked off (Triton 3.9's form)."""
    if stages < 2:
        return None
    plan = pipelinable_loads(loop)
    if plan is None:
        return None
    body = loop.body.block
    outer = loop.parent_block()
    assert outer is not None
    before = _Emitter(outer, loop)
    iv_t = body.args[0].type

    # ---- prologue: the rings, then the copies of the first stages - 1 iterations
    # A tile read into registers (tl.local_load) frees its slot at once: the copy of iteration
    # j + stages - 1 refills the slot iteration j just read, after those reads (stages - 1
    # slots, as Triton's pipeliner allocates). A slot a wgmma reads from shared memory stays
    # busy until the wgmma retires: stages slots, the copy going into the one read last.
    # Each slot count has its own pair of counters (a wgmma's B ring beside A read into
    # registers: 3 and 2 slots, as Triton allocates them).
    read_in = {load: _read_into_registers(load, plan) for load in plan.loads}
    count_of = {load: stages - 1 if read_in[load] else stages for load in plan.loads}
    counts = sorted(set(count_of.values()))
    in_registers = any(read_in.values())
    rings = []
    for load in plan.loads:
        ring_t, slot_t = _ring_type(load, count_of[load])
        rings.append((before(tl.LocalAllocOp(ring_t)).results[0], slot_t))
    ahead = before(arith.MuliOp(loop.step, before.const(iv_t, stages - 1))).results[0]
    carried = [loop.iter_args[p] for p in plan.carried]
    iv = loop.lb
    for s in range(stages - 1):
        if s:
            iv = before(arith.AddiOp(iv, loop.step)).results[0]
        at = before.const(i32, s)
        carried = _issue(plan, loop, rings, iv, carried, [at] * len(rings), before)

    # ---- the loop: wait for this iteration's tiles, issue stages - 1 iterations ahead, then
    # the old body with each load reading its slot (peeled: the loop stops stages - 1
    # iterations early, so every copy it issues is for an iteration that runs)
    inits = list(loop.iter_args)
    for p, v in zip(plan.carried, carried, strict=True):
        inits[p] = v
    counters = []
    for k in counts:
        inits += [before.const(i32, (stages - 1) % k), before.const(i32, 0)]
        counters += [i32, i32]
    if peel:  # the induction value after the loop: where the peeled iterations start
        inits.append(loop.lb)
        counters.append(iv_t)
    new_body = Block(arg_types=[a.type for a in body.args] + counters)
    for old_arg, new_arg in zip(body.args, new_body.args, strict=False):
        new_arg.name_hint = old_arg.name_hint
    pairs = {
        k: (new_body.args[len(body.args) + 2 * i], new_body.args[len(body.args) + 2 * i + 1])
        for i, k in enumerate(counts)
    }
    for k, (fill, read) in pairs.items():
        suffix = "" if len(counts) == 1 else f"_{k}"
        fill.name_hint, read.name_hint = f"fill_slot{suffix}", f"read_slot{suffix}"
    fills = [pairs[count_of[load]][0] for load in plan.loads]
    if peel:
        new_body.args[-1].name_hint = "next_iv"
    put = _Emitter(new_body)
    put(tl.AsyncWaitOp(stages - 2))
    iv_ahead = put(arith.AddiOp(new_body.args[0], ahead)).results[0]
    ahead_args = [new_body.args[p + 1] for p in plan.carried]
    waited = set(new_body.ops)
    next_carried = _issue(plan, loop, rings, iv_ahead, ahead_args, fills, put, guard=not peel)
    issued = [o for o in new_body.ops if o not in waited]
    issue_ops = set(new_body.ops)
    for op in list(body.ops):
        op.detach()
        new_body.add_op(op)
    for old_arg, new_arg in zip(body.args, new_body.args, strict=False):
        old_arg.replace_all_uses_with(new_arg)
    slot_views = []
    for load, (ring, slot_t) in zip(plan.loads, rings, strict=True):
        at = _Emitter(new_body, load)
        read = pairs[count_of[load]][1]
        src = at(tl.MemDescIndexOp(operands=[ring, read], result_types=[slot_t])).results[0]
        if read_in[load]:
            slot_views.append(src)
        _replace_load(load, src, at, plan)
    if in_registers:
        # the refill goes after this iteration's reads of the slot (the copy lowering's barrier
        # keeps every thread's reads ahead of it)
        readers = [u.operation for v in slot_views for u in v.uses]
        order = {o: i for i, o in enumerate(new_body.ops)}
        last = max((_in_block(r, new_body) for r in readers), key=order.__getitem__)
        # and after the async-proxy fence of the wgmma that follows, if any: the fence's
        # barrier then also keeps the reads ahead of the copies (one barrier, not two)
        nxt = last.next_op
        while nxt is not None and not isinstance(nxt, tl.WarpGroupDotOp):
            if isinstance(nxt, tl.FenceAsyncSharedOp):
                last = nxt
                break
            nxt = nxt.next_op
        for o in reversed(issued):
            o.detach()
            new_body.insert_op_after(o, last)
    old_yield = new_body.last_op
    assert isinstance(old_yield, scf.YieldOp)
    values = list(old_yield.operands)
    for p, v in zip(plan.carried, next_carried, strict=True):
        values[p] = v
    at_end = _Emitter(new_body, old_yield)
    for k, (fill, read) in pairs.items():
        values += [_next_slot(fill, k, at_end), _next_slot(read, k, at_end)]
    if peel:
        values.append(at_end(arith.AddiOp(new_body.args[0], loop.step)).results[0])
    old_yield.detach()
    old_yield.erase()
    new_body.add_op(scf.YieldOp(*values))

    ub = before(arith.SubiOp(loop.ub, ahead)).results[0] if peel else loop.ub
    new_loop = before(scf.ForOp(loop.lb, ub, loop.step, inits, Region(new_body)))
    assert isinstance(new_loop, scf.ForOp)
    region_dce(new_loop.body)  # what the copies replaced: the loads' address arithmetic
    if peel:
        results = _peel_epilogue(
            new_loop, issue_ops, plan, stages, loop, len(loop.results), len(counts)
        )
    else:
        # the masked-off copies of the last iterations are still in flight
        outer.insert_op_after(tl.AsyncWaitOp(0), new_loop)
        results = list(new_loop.results)
    for old, new in zip(loop.results, results, strict=False):
        old.replace_all_uses_with(new)
    loop.detach()
    loop.erase()
    return new_loop


def _in_block(op: Operation, block: Block) -> Operation:
    """``op``'s ancestor in ``block`` (``op`` itself when it is there)."""
    while op.parent_block() is not block:
        parent = op.parent_op()
        assert parent is not None
        op = parent
    return op


def _peel_epilogue(
    new_loop: scf.ForOp,
    issue_ops: set[Operation],
    plan: _Plan,
    stages: int,
    loop: scf.ForOp,
    count: int,
    pairs: int = 1,
) -> list[SSAValue]:
    """The last ``stages - 1`` iterations after ``new_loop``: each waits for its own group
    (``stages - 2 - e`` groups may stay in flight before peeled iteration ``e``; the last wait
    is 0 and drains every copy) and runs the loop's body without its copies, under ``scf.if
    iv < ub`` (a loop of fewer than ``stages - 1`` iterations runs fewer of them: its
    prologue's extra copies were masked off). Returns the values of the original loop's
    ``count`` results."""
    body = new_loop.body.block
    outer = new_loop.parent_block()
    after = new_loop.next_op
    assert outer is not None and after is not None  # a loop is followed by its block's end
    put = _Emitter(outer, after)
    current = list(new_loop.results)
    # a fill counter, then a read counter per slot count, then the induction value
    fill_pos = [count + 2 * i for i in range(pairs)]
    yield_op = body.last_op
    assert yield_op is not None
    chained = _chained_products(body)
    for e in range(stages - 1):
        put(tl.AsyncWaitOp(stages - 2 - e))
        iv = current[-1]
        valid = put(arith.CmpiOp(iv, loop.ub, "slt")).results[0]
        mapping: dict[SSAValue, SSAValue] = dict(zip(body.args, [iv, *current], strict=True))
        then_block = Block()
        for op in body.ops:
            if op not in issue_ops and op is not yield_op:
                then_block.add_op(op.clone(value_mapper=mapping))
        for wait, drop in chained.items():
            moved = _drop_waited(mapping[wait.results[0]].owner, drop)  # type: ignore[arg-type]
            mapping = {k: moved.get(v, v) for k, v in mapping.items()}
        then_values = [mapping.get(v, v) for v in yield_op.operands]
        for p in [*plan.carried, *fill_pos]:  # no copies: stage 0's values stay as they are
            then_values[p] = current[p]
        then_block.add_op(scf.YieldOp(*then_values))
        then_region = Region(then_block)
        region_dce(then_region)
        else_region = Region(Block([scf.YieldOp(*current)]))
        branch = put(scf.IfOp(valid, [v.type for v in current], then_region, else_region))
        current = list(branch.results)
    positions = [p for p, v in enumerate(yield_op.operands) if _chained_at(v, chained)]
    if positions:  # one wait after the last peeled iteration retires every chained product
        done = put(tl.WarpGroupDotWaitOp([current[p] for p in positions], 0)).results
        for p, v in zip(positions, done, strict=True):
            current[p] = v
    return current[:count]


def _chained_products(body: Block) -> dict[Operation, set[int]]:
    """The ``tl.warp_group_dot_wait`` ops of the loop body whose product operands (by index)
    the peeled iterations leave in flight: the waited product goes only to the ``scf.yield``
    and the value the loop carries there is read only as a ``tl.warp_group_dot``
    accumulator (the next peeled iteration's product chains onto it in place), and the dot
    reads ring slots or registers (:func:`_staged_in`). No copy follows a peeled iteration to
    overwrite the slots those products read, so one wait after the last peeled iteration
    retires them all; a wait in each would order nothing."""
    yield_op = body.last_op
    assert isinstance(yield_op, scf.YieldOp)
    out: dict[Operation, set[int]] = {}
    for p, v in enumerate(yield_op.operands):
        wait = v.owner
        if not isinstance(wait, tl.WarpGroupDotWaitOp) or not v.has_one_use():
            continue
        pendings = wait.attributes.get("pendings")
        if not isinstance(pendings, IntegerAttr) or pendings.value.data != 0:
            continue
        i = list(wait.results).index(v)
        dot = wait.operands[i].owner
        if not isinstance(dot, tl.WarpGroupDotOp) or any(
            _staged_in(operand, body) for operand in dot.operands[:2]
        ):
            continue
        uses = body.args[p + 1].uses
        if uses and all(isinstance(u.operation, tl.WarpGroupDotOp) and u.index == 2 for u in uses):
            out.setdefault(wait, set()).add(i)
    return out


def _staged_in(operand: SSAValue, body: Block) -> bool:
    """Whether a dot operand is a buffer ``body`` allocates itself (a ``tl.local_alloc``, seen
    through ``tl.memdesc_trans``): each peeled iteration's copy then needs its own bytes while
    its product is in flight, where a wait lets the next one reuse them (fp8's B, not
    pipelined: one staging buffer, 8 KiB, instead of two)."""
    owner = operand.owner
    while isinstance(owner, tl.MemDescTransOp):
        owner = owner.operands[0].owner
    return isinstance(owner, tl.LocalAllocOp) and owner.parent_block() is body


def _chained_at(value: SSAValue, chained: dict[Operation, set[int]]) -> bool:
    owner = value.owner
    return owner in chained and list(owner.results).index(value) in chained[owner]  # type: ignore[union-attr]


def _drop_waited(wait: Operation, drop: set[int]) -> dict[SSAValue, SSAValue]:
    """Take the operands ``drop`` out of a cloned ``tl.warp_group_dot_wait`` (their users read
    the product itself); the wait goes when it no longer waits for any product. Returns what
    replaced each of its results."""
    keep = [i for i in range(len(wait.operands)) if i not in drop]
    moved = {wait.results[i]: wait.operands[i] for i in drop}
    rest = [wait.operands[i] for i in keep]
    if any(isinstance(v.owner, tl.WarpGroupDotOp) for v in rest) or any(
        wait.results[i].uses for i in keep
    ):
        new = tl.WarpGroupDotWaitOp(rest, 0)
        block = wait.parent_block()
        assert block is not None
        block.insert_op_before(new, wait)
        moved |= {wait.results[i]: r for i, r in zip(keep, new.results, strict=True)}
    for old, value in moved.items():
        old.replace_all_uses_with(value)
    wait.detach()
    wait.erase()
    return moved


def _read_into_registers(load: tl.LoadOp, plan: _Plan) -> bool:
    """Whether every read of ``load``'s slot is a ``tl.local_load`` into registers (its slot is
    free once read): no staging buffer, a non-zero ``other`` (read back, then selected), or a
    staging buffer the kernel itself only loads from (i8's A, converted to f16 in registers)
    rather than a wgmma operand that reads it asynchronously."""
    staged = _staging_alloc(load)
    if staged is None or load in plan.selects:
        return True
    return all(u.operation.name == "tl.local_load" for u in staged.results[0].uses)


def _staging_alloc(load: tl.LoadOp) -> Operation | None:
    """The ``tl.local_alloc`` that stages the load's tile through shared memory itself (with a
    shared layout), as the load's only use or through a ``tl.trans`` that is (flash attention's
    ``k``, whose transposed tile wgmma reads): the ring's slot (or a transposed view of it) can
    replace it."""
    users = [u.operation for u in load.result.uses]
    if len(users) == 1 and isinstance(users[0], tl.TransOp):
        if _slot_encoding(load) is None:
            return None
        users = [u.operation for u in users[0].results[0].uses]
    if len(users) != 1 or users[0].name != "tl.local_alloc":
        return None
    mt = users[0].results[0].type
    if not isinstance(mt, tl.MemDescType) or not hasattr(mt.encoding, "layout"):
        return None
    return users[0]


def _slot_encoding(load: tl.LoadOp) -> Attribute | None:
    """For a load staged as ``tl.local_alloc(tl.trans(load))``: the shared layout of the
    load's (untransposed) tile whose transposed view is exactly the alloc's layout (a swizzled
    layout with its order permuted, an nvmma one with ``transposed`` flipped; checked element by
    element), or ``None``."""
    import dataclasses

    import numpy as np

    from llc.dialects.layout_attrs import NVMMASharedEncodingAttr, SwizzledSharedEncodingAttr
    from llc.layouts.shared import SwizzledSharedLayout

    trans = next(iter(load.result.uses)).operation
    allocs = [u.operation for u in trans.results[0].uses]
    if len(allocs) != 1 or allocs[0].name != "tl.local_alloc":
        return None
    mt = allocs[0].results[0].type
    perm = [int(v) for v in trans.order.get_values()]  # type: ignore[attr-defined]
    enc = getattr(mt, "encoding", None)
    lay = getattr(enc, "layout", None)
    if isinstance(enc, SwizzledSharedEncodingAttr):
        order = [perm[d] for d in lay.order]  # type: ignore[union-attr]
        cand: Attribute = SwizzledSharedEncodingAttr(
            SwizzledSharedLayout(lay.vec, lay.per_phase, lay.max_phase, order)  # type: ignore[union-attr]
        )
    elif isinstance(enc, NVMMASharedEncodingAttr):
        flipped = dataclasses.replace(lay, transposed=not lay.transposed)  # type: ignore[type-var]
        cand = NVMMASharedEncodingAttr(flipped)
    else:
        return None
    shape = [int(x) for x in load.result.type.get_shape()]  # type: ignore[union-attr]
    if any(x & (x - 1) for x in shape):
        return None

    def coords(e: Any, sh: list[int]) -> np.ndarray:
        ll = e.to_linear_layout(sh)
        outs = ll.apply_all()
        return np.stack([np.asarray(outs[n]) for n, _ in ll.out_dims], -1)

    view = coords(enc, [shape[d] for d in perm])  # offset -> coordinate in the alloc
    base = coords(cand, shape)  # offset -> coordinate in the slot
    return cand if np.array_equal(view, base[:, perm]) else None


def _replace_load(load: tl.LoadOp, src: SSAValue, at: _Emitter, plan: _Plan) -> None:
    """Read this iteration's tile in place of ``load``: the slot itself replaces a staging
    ``tl.local_alloc`` (its ``tl.local_dealloc`` goes: the ring outlives the loop); else a
    ``tl.local_load``, straight into the dot-operand layout when the load's only use converts
    it there, with ``other`` applied when it is not zero."""
    rt = load.result.type
    assert isinstance(rt, TensorType)
    staged = _staging_alloc(load) if load not in plan.selects else None
    if staged is not None:
        for use in list(staged.results[0].uses):
            if use.operation.name == "tl.local_dealloc":
                use.operation.detach()
                use.operation.erase()
        trans = staged.operands[0].owner
        if trans is not load:  # staged transposed: a transposed view of the slot
            assert isinstance(trans, tl.TransOp)
            props = {"order": trans.order}
            view_t = staged.results[0].type
            src = at(
                tl.MemDescTransOp.create(operands=[src], result_types=[view_t], properties=props)
            ).results[0]
        staged.results[0].replace_all_uses_with(src)
        staged.detach()
        staged.erase()
        if trans is not load:
            trans.detach()
            trans.erase()
        load.detach()
        load.erase()
        return
    users = [u.operation for u in load.result.uses]
    trans = users[0] if len(users) == 1 and isinstance(users[0], tl.TransOp) else None
    # a transposed operand reads a transposed view of the slot (no data moves), as Triton does
    view = _transposed_view(src, trans) if trans is not None else None
    if view is not None:
        assert trans is not None
        users = [u.operation for u in trans.results[0].uses]
    if load not in plan.selects and len(users) == 1 and users[0].name == "tl.convert_layout":
        conv = users[0]
        ct = conv.results[0].type
        if getattr(getattr(ct, "encoding", None), "kind", "") == "dot_op":
            dead = [conv, load]
            if view is not None:
                assert trans is not None
                props = {"order": trans.order}  # type: ignore[attr-defined]
                flip = tl.MemDescTransOp.create(
                    operands=[src], result_types=[view], properties=props
                )
                src = at(flip).results[0]
                dead.insert(1, trans)
            out = at(tl.LocalLoadOp(src, ct)).results[0]  # type: ignore[arg-type]
            conv.results[0].replace_all_uses_with(out)
            for op in dead:
                op.detach()
                op.erase()
            return
    value = at(tl.LocalLoadOp(src, rt)).results[0]
    if load in plan.selects:
        assert load.mask is not None and load.other is not None
        value = at(tl.SelectOp(load.mask, value, load.other)).results[0]
    load.result.replace_all_uses_with(value)
    load.detach()
    load.erase()


def _transposed_view(slot: SSAValue, trans: Operation) -> tl.MemDescType | None:
    """The memdesc type of ``tl.memdesc_trans`` of ``slot`` by ``trans``'s order (a swizzled
    shared layout with its order permuted alike: the same bytes), or ``None`` for other
    layouts."""
    from llc.dialects.layout_attrs import SwizzledSharedEncodingAttr
    from llc.layouts.shared import SwizzledSharedLayout

    mt = slot.type
    assert isinstance(mt, tl.MemDescType)
    enc = mt.encoding
    if not isinstance(enc, SwizzledSharedEncodingAttr):
        return None
    perm = [int(v) for v in trans.order.get_values()]  # type: ignore[attr-defined]
    lay = enc.layout
    order = [perm.index(d) for d in lay.order]
    shape = [mt.get_shape()[d] for d in perm]
    layout = SwizzledSharedLayout(lay.vec, lay.per_phase, lay.max_phase, order)
    return tl.MemDescType(mt.element_type, shape, SwizzledSharedEncodingAttr(layout))


def pipeline_stages(target: str, requested: int) -> int:
    """The stages ``llc-compile`` pipelines with on ``target``: ``requested`` where
    ``cp.async`` exists (``cuda:80`` and newer), else 1 (no pipelining).

    >>> pipeline_stages("cuda:80", 3), pipeline_stages("cuda:90", 4), pipeline_stages("cuda:75", 3)
    (3, 4, 1)
    >>> pipeline_stages("hip:gfx942", 3)
    1
    """
    vendor, _, arch = target.partition(":")
    return requested if vendor == "cuda" and arch.isdigit() and int(arch) >= 80 else 1


def module_stages(module: ModuleOp, requested: int) -> int:
    """:func:`pipeline_stages` for the module's ``tl.target`` (``cuda:90`` when it has none).

    >>> module_stages(ModuleOp([]), 3)
    3
    """
    from xdsl.dialects.builtin import StringAttr

    from llc.passes.layout_assignment import DEFAULT_TARGET

    target = module.attributes.get("tl.target")
    return pipeline_stages(
        target.data if isinstance(target, StringAttr) else DEFAULT_TARGET, requested
    )


@dataclass(frozen=True)
class PipelinePass(ModulePass):
    """``-p 'llc-pipeline{num-stages=3 peel-epilogue=true}'``: pipeline every ``scf.for`` whose
    loads feed dots over ``num-stages`` shared buffers (``num-stages < 2``: nothing to do), the
    last ``num-stages - 1`` iterations peeled after the loop unless ``peel-epilogue=false``.

    >>> PipelinePass().num_stages, PipelinePass().peel_epilogue
    (3, True)
    """

    name = "llc-pipeline"
    num_stages: int = 3
    peel_epilogue: bool = True

    def __post_init__(self) -> None:
        from llc.errors import LayoutError

        if not isinstance(self.num_stages, int) or self.num_stages < 1:
            raise LayoutError(f"llc-pipeline: num-stages must be at least 1, got {self.num_stages}")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # innermost loops first: a pipelined loop's body is not pipelined again
        for loop in [o for o in op.walk() if isinstance(o, scf.ForOp)]:
            if not any(isinstance(x, scf.ForOp) for x in loop.body.walk()):
                pipeline_loop(loop, self.num_stages, self.peel_epilogue)
