"""Lower Hopper warpgroup dots (``tl.warp_group_dot`` with an mma v3 accumulator) to wgmma ops
reading shared operands through descriptors read off their ``nvmma_shared`` layouts.

The ``llc-lower-to-simt`` pieces (each ``lower_<op>(lowering, op)``, dispatched from
:mod:`llc.passes.lower_to_simt`):

* :func:`lower_warp_group_dot`: the accumulator is split into ``64 x N`` instruction tiles
  (:func:`plan_accumulator`: ``N`` the layout's ``instrShape[1]``; warpgroup ``g`` owns the
  tiles its threads hold), each tile a chain of one ``simt.wgmma`` per K step between one
  ``simt.wgmma_fence`` and one ``simt.wgmma_commit_group``. A and B descriptors are constants
  for warpgroup 0 plus, for the others, the byte offset of their rows of A / columns of B (bit
  fields of the thread id, checked to add up). A in registers is gathered per tile and K step by
  register renamings of its ``#tl.dot_op`` layout; so is the accumulator. Everything a wgmma
  reads from registers is computed before the fence.
* :func:`lower_warp_group_dot_wait`: ``simt.wgmma_wait_group`` on every tile of the products it
  waits for, then the tiles are put back in the accumulator layout's register order (renamings:
  an accumulator is read only once its group has retired).
* :func:`lower_fence_async_shared`: ``simt.fence_async_shared`` then ``gpu.barrier``: each thread
  fences its own shared-memory writes for the async proxy and the barrier makes every thread's
  fenced writes visible before any warpgroup's wgmma reads them.
* :func:`shared_alignment`: a ``tl.local_alloc`` buffer is aligned to its swizzle period
  (1024 bytes for 128-byte swizzling), so descriptors need no base offset.

:func:`emit_warpgroup_dot` is the one-tile form on hand-placed operands (the unit tests' entry).

>>> from llc.layouts.shared import NvmmaSharedLayout
>>> plan = plan_warpgroup_dot(None, SharedTile(NvmmaSharedLayout(128, True, 16), (64, 64), 0),
...                           16, num_warps=4)
>>> plan.steps, plan.n
(4, 64)
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, gpu, vector
from xdsl.dialects.builtin import DenseArrayBase, IndexType, IntegerAttr, VectorType, i64
from xdsl.ir import Attribute, Operation, SSAValue

from llc.dialects import simt
from llc.errors import LayoutError
from llc.wgmma import SharedOperand, instruction_k, operand_descriptor

__all__ = [
    "AccumulatorTiling",
    "SharedTile",
    "WarpgroupDotPlan",
    "carries_product",
    "emit_warpgroup_dot",
    "if_carries_product",
    "lower_fence_async_shared",
    "lower_scf_if_products",
    "lower_warp_group_dot",
    "lower_warp_group_dot_wait",
    "lower_yield_products",
    "plan_accumulator",
    "plan_warpgroup_dot",
    "shared_alignment",
    "yields_products",
]


@dataclass(frozen=True)
class SharedTile:
    """An operand tile in the shared buffer: its shared layout (or linear layout), shape
    (``[M, K]`` for A, ``[K, N]`` for B) and byte offset in the buffer."""

    layout: Any
    shape: tuple[int, int]
    base: int


@dataclass(frozen=True)
class WarpgroupDotPlan:
    """The descriptors of a warpgroup dot: B's (``b``), A's (``a``, None when A is in
    registers), the byte step between warpgroups' A rows, the K steps and N."""

    a: SharedOperand | None
    b: SharedOperand
    a_group_step: int
    steps: int
    n: int
    element_bits: int


def plan_warpgroup_dot(
    a: SharedTile | None, b: SharedTile, element_bits: int, num_warps: int
) -> WarpgroupDotPlan:
    """Read the descriptors off the operands' layouts; refuse what wgmma cannot do here.

    >>> from llc.layouts.shared import NvmmaSharedLayout
    >>> a = SharedTile(NvmmaSharedLayout(128, False, 16), (128, 64), 0)
    >>> b = SharedTile(NvmmaSharedLayout(128, True, 16), (64, 64), 16384)
    >>> plan_warpgroup_dot(a, b, 16, num_warps=8).a_group_step  # rows 64.. of A: 8 KiB on
    8192
    """
    if num_warps % simt.WGMMA_WARPS:
        raise LayoutError(f"lower_wgmma: {num_warps} warps are not whole warpgroups of 4")
    groups = num_warps // simt.WGMMA_WARPS
    k, n = b.shape
    if n > 256:
        raise LayoutError(f"lower_wgmma: N = {n} needs several wgmma per K step (at most 256)")
    kinst = instruction_k(element_bits)
    b_op = operand_descriptor(b.layout, b.shape, element_bits, "b", base=b.base)
    a_op = None
    step = 0
    if a is not None:
        if a.shape != (64 * groups, k):
            raise LayoutError(
                f"lower_wgmma: A is {list(a.shape)}; {groups} warpgroup(s) multiply "
                f"{[64 * groups, k]} (64 rows each)"
            )
        a_op = operand_descriptor(a.layout, a.shape, element_bits, "a", base=a.base)
        step = int(a_op.byte_offsets[64, 0]) if groups > 1 else 0
        for g in range(groups):
            for k0 in range(0, k, kinst):
                want = a_op.at(64 * g, k0).start
                got = a_op.at(0, k0).start + g * step
                if want != got:
                    raise LayoutError(
                        f"lower_wgmma: A's rows {64 * g}.. start at byte {want}, not "
                        f"{got}: the warpgroups' slabs are not evenly spaced"
                    )
    return WarpgroupDotPlan(a_op, b_op, step, k // kinst, n, element_bits)


def emit_warpgroup_dot(
    builder: Builder,
    smem: SSAValue,
    a: SSAValue | SharedTile,
    b: SharedTile,
    acc: SSAValue,
    element_type: Attribute,
    num_warps: int,
    pending: int = 0,
) -> SSAValue:
    """Emit the wgmma chain computing ``acc + A @ B``; returns the accumulator after
    ``simt.wgmma_wait_group pending`` (``vector<N/2 x f32>`` in the mma v3 layout).

    ``a`` is a shared tile or A's registers: the mma v3 dot-operand layout of the whole
    ``[64 x warpgroups, K]`` tile, ``K / k`` steps of the instruction's fragment each.
    """
    bits = simt.bit_width(element_type)
    in_registers = isinstance(a, SSAValue)
    plan = plan_warpgroup_dot(None if in_registers else a, b, bits, num_warps)
    kinst = instruction_k(bits)
    group_offset = None
    if plan.a is not None and plan.a_group_step:
        # the descriptor's start field counts 16-byte units: add g * step / 16 for warpgroup g
        warp = builder.insert(gpu.SubgroupIdOp()).result
        two = builder.insert(arith.ConstantOp(IntegerAttr(2, IndexType()))).result
        group = builder.insert(arith.ShRUIOp(warp, two)).result
        group64 = builder.insert(arith.IndexCastOp(group, i64)).result
        units = builder.insert(arith.ConstantOp(IntegerAttr(plan.a_group_step >> 4, i64))).result
        group_offset = builder.insert(arith.MuliOp(group64, units)).result
    a_parts: list[SSAValue] = []
    if in_registers:
        a_parts = _register_steps(builder, a, plan, num_warps, element_type)
    builder.insert(simt.WgmmaFenceOp())
    for s in range(plan.steps):
        k0 = s * kinst
        b_desc = _constant(builder, plan.b.at(0, k0).encode())
        if plan.a is None:
            a_val = a_parts[s]
        else:
            a_val = _constant(builder, plan.a.at(0, k0).encode())
            if group_offset is not None:
                a_val = builder.insert(arith.AddiOp(a_val, group_offset)).result
        acc = builder.insert(
            simt.WgmmaOp(
                a_val,
                b_desc,
                acc,
                smem,
                plan.n,
                element_type,
                element_type,
                trans_a=plan.a is not None and not plan.a.k_major,
                trans_b=not plan.b.k_major,
            )
        ).result
    builder.insert(simt.WgmmaCommitGroupOp())
    return builder.insert(simt.WgmmaWaitGroupOp(pending, [acc])).results[0]


def _constant(builder: Builder, value: int) -> SSAValue:
    signed = value - (1 << 64) if value >= 1 << 63 else value
    return builder.insert(arith.ConstantOp(IntegerAttr(signed, i64))).result


def _register_steps(
    builder: Builder, a: SSAValue, plan: WarpgroupDotPlan, num_warps: int, element_type: Any
) -> list[SSAValue]:
    """A's registers split into each K step's fragment (``vector.shuffle`` renamings): the
    register of the whole tile's layout holding each (row, k) of the step's fragment."""
    from llc.layouts.nvidia import DotOperandLayout, NvidiaMmaLayout

    bits = plan.element_bits
    kinst = instruction_k(bits)
    k = plan.steps * kinst
    rows = 64 * (num_warps // simt.WGMMA_WARPS)
    kw = 32 // bits

    def coords(kk: int) -> tuple[Any, Any]:
        parent = NvidiaMmaLayout(3, 0, [num_warps, 1], [16, plan.n, kinst])
        layout = DotOperandLayout(0, parent, kw).to_linear_layout([rows, kk])
        images = layout.apply_all()
        threads = 32 * num_warps
        return images["dim0"].reshape(threads, -1), images["dim1"].reshape(threads, -1)

    full_r, full_k = coords(k)
    step_r, step_k = coords(kinst)
    a_type = a.type
    count = full_r.shape[1]
    if a_type.get_shape() != (count,):  # type: ignore[attr-defined]
        raise LayoutError(f"lower_wgmma: A's registers are {a_type}, the layout has {count}")
    parts = []
    for s in range(plan.steps):
        indices = []
        for r in range(step_r.shape[1]):
            want = (step_r[:, r], step_k[:, r] + s * kinst)
            match = [
                j
                for j in range(count)
                if (full_r[:, j] == want[0]).all() and (full_k[:, j] == want[1]).all()
            ]
            if len(match) != 1:
                raise LayoutError(f"lower_wgmma: register {r} of K step {s} is not one register")
            indices.append(match[0])
        mask = DenseArrayBase.from_list(i64, indices)
        result_type = VectorType(element_type, [len(indices)])
        parts.append(builder.insert(vector.ShuffleOp(a, a, mask, result_type=result_type)).result)
    return parts


# ------------------------------------------------------------------ llc-lower-to-simt pieces


def shared_alignment(memdesc: Any) -> int:
    """The alignment of a ``tl.local_alloc`` buffer: its swizzle period for an ``nvmma_shared``
    layout (a wgmma descriptor's swizzle xors absolute address bits), else 16 bytes.

    >>> from xdsl.dialects.builtin import f16
    >>> from llc.dialects.layout_attrs import NVMMASharedEncodingAttr
    >>> from llc.dialects.tl import MemDescType
    >>> from llc.layouts.shared import NvmmaSharedLayout
    >>> enc = NVMMASharedEncodingAttr(NvmmaSharedLayout(128, False, 16))
    >>> shared_alignment(MemDescType(f16, [64, 64], enc)), shared_alignment(MemDescType(f16, [8]))
    (1024, 16)
    """
    from llc.wgmma import swizzle_period

    layout = getattr(getattr(memdesc, "encoding", None), "layout", None)
    width = getattr(layout, "swizzling_byte_width", None)
    if getattr(layout, "kind", "") != "nvmma_shared" or not width:
        return 16
    return max(16, swizzle_period(int(width)))


@dataclass(frozen=True)
class AccumulatorTiling:
    """How a v3 accumulator layout splits into ``64 x n`` wgmma tiles.

    ``registers[j][i]``: the accumulator register that holds register ``i`` of tile ``j``'s
    instruction fragment (the same in every thread); ``origins[j]``: tile ``j``'s first element
    (row, column) for warpgroup 0; ``group_offsets[g]``: what warpgroup ``g`` adds to every
    origin."""

    n: int
    registers: tuple[tuple[int, ...], ...]
    origins: tuple[tuple[int, int], ...]
    group_offsets: tuple[tuple[int, int], ...]


def _instruction_coords(n: int) -> np.ndarray:
    """(128, n/2, 2): (row, column) of each register of the m64nN accumulator fragment."""
    from llc.layouts.nvidia import NvidiaMmaLayout

    ll = NvidiaMmaLayout(3, 0, [4, 1], [16, n, 16]).to_linear_layout([64, n])
    images = ll.apply_all()
    return np.stack([images["dim0"], images["dim1"]], -1).reshape(128, n // 2, 2).astype(np.int64)


def _a_fragment_coords(bits: int) -> np.ndarray:
    """(128, R, 2): (row, k) of each register of wgmma's A fragment (one K step)."""
    from llc.layouts.nvidia import DotOperandLayout, NvidiaMmaLayout

    k = instruction_k(bits)
    parent = NvidiaMmaLayout(3, 0, [4, 1], [16, 64, k])
    ll = DotOperandLayout(0, parent, max(1, 32 // bits)).to_linear_layout([64, k])
    images = ll.apply_all()
    return np.stack([images["dim0"], images["dim1"]], -1).reshape(128, -1, 2).astype(np.int64)


def plan_accumulator(coords: np.ndarray, shape: tuple[int, int], n: int) -> AccumulatorTiling:
    """Split an accumulator (``coords[t, r]`` = (row, column) of register ``r`` of thread
    ``t``) into ``64 x n`` instruction tiles; refuse a layout that is not whole tiles per
    warpgroup, uniformly placed.

    >>> from llc.layouts.nvidia import NvidiaMmaLayout
    >>> ll = NvidiaMmaLayout(3, 0, [8, 1], [16, 64, 16]).to_linear_layout([256, 128])
    >>> images = ll.apply_all()
    >>> coords = np.stack([images["dim0"], images["dim1"]], -1).reshape(256, -1, 2)
    >>> tiling = plan_accumulator(coords, (256, 128), 64)
    >>> tiling.origins, tiling.group_offsets
    (((0, 0), (0, 64), (128, 0), (128, 64)), ((0, 0), (64, 0)))
    """
    from llc.passes.simt_lowering import register_renaming as _renaming

    threads, regs = coords.shape[:2]
    if threads % 128 or n % 8 or n // 2 > regs:
        raise LayoutError(
            f"wgmma: an accumulator of {regs} registers in {threads} threads is not m64n{n} "
            "tiles of warpgroups"
        )
    inst = _instruction_coords(n)
    sizes = [int(shape[0]), int(shape[1])]
    first = coords[:128]
    registers: list[tuple[int, ...]] = []
    origins: list[tuple[int, int]] = []
    covered: set[int] = set()
    for r in range(regs):
        if r in covered:
            continue
        origin = (int(first[0, r, 0]) // 64 * 64, int(first[0, r, 1]) // n * n)
        need = inst + np.asarray(origin)[None, None, :]
        mask = _renaming(first, need, sizes)
        if mask is None or covered.intersection(mask):
            raise LayoutError(
                f"wgmma: the accumulator layout does not hold the m64n{n} tile at {list(origin)} "
                "as one instruction fragment per warpgroup"
            )
        covered.update(mask)
        registers.append(tuple(mask))
        origins.append(origin)
    offsets = [(0, 0)]
    for g in range(1, threads // 128):
        own = coords[128 * g : 128 * (g + 1)]
        j0 = registers[0]
        delta = (
            int(own[0, j0[0], 0]) - origins[0][0] - int(inst[0, 0, 0]),
            int(own[0, j0[0], 1]) - origins[0][1] - int(inst[0, 0, 1]),
        )
        for mask, origin in zip(registers, origins, strict=True):
            want = inst + (np.asarray(origin) + np.asarray(delta))[None, None, :]
            if not (own[:, list(mask)] == want).all():
                raise LayoutError(
                    f"wgmma: warpgroup {g}'s accumulator tiles are not warpgroup 0's moved by "
                    f"one offset"
                )
        offsets.append(delta)
    return AccumulatorTiling(n, tuple(registers), tuple(origins), tuple(offsets))


_PENDING: weakref.WeakKeyDictionary[SSAValue, tuple[list[SSAValue], AccumulatorTiling, Any]] = (
    weakref.WeakKeyDictionary()
)
"""The tiles of each ``tl.warp_group_dot`` result (or ``scf.if`` result carrying one) not
waited for yet (keyed by the tensor-level value, which is unique per lowering): (tile values,
tiling, accumulator linear layout). Weak keys: an entry goes with its module."""

_PRODUCT_IFS: weakref.WeakKeyDictionary[Operation, dict[int, tuple[AccumulatorTiling, Any]]] = (
    weakref.WeakKeyDictionary()
)
"""The lowered ``scf.if`` ops that carry products in flight: for each tensor-level result
position, the tiling (the position is one result per tile)."""


def _tiling(lowering: Any, rt: Any) -> tuple[AccumulatorTiling, Any]:
    """The instruction tiles of a v3 accumulator type and its linear layout."""
    from llc.passes.simt_lowering import tensor_layout as _layout
    from llc.passes.simt_lowering import thread_coords as _coords

    mma = rt.encoding.layout
    shape = tuple(int(x) for x in rt.get_shape())
    acc_ll = _layout(rt)
    n = int(mma.instr_shape[1])
    return plan_accumulator(_coords(acc_ll, lowering.threads), shape, n), acc_ll  # type: ignore[arg-type]


def carries_product(value: SSAValue) -> bool:
    """Whether a tensor-level value is a ``tl.warp_group_dot`` product not waited for: the
    dot's result, or an ``scf.if`` result that a branch yields such a product to (the pipelined
    loop's peeled iterations chain their products through their ``scf.if``)."""
    from xdsl.dialects import scf

    owner = value.owner
    if isinstance(owner, Operation) and owner.name == "tl.warp_group_dot":
        return True
    if isinstance(owner, scf.IfOp):
        index = list(owner.results).index(value)
        for region in owner.regions:
            last = region.blocks[0].last_op if region.blocks else None
            if isinstance(last, scf.YieldOp) and carries_product(last.operands[index]):
                return True
    return False


def if_carries_product(lowering: Any, op: Operation) -> bool:
    """Whether an ``scf.if`` has a result that :func:`carries_product`."""
    return op.name == "scf.if" and any(carries_product(r) for r in op.results)


def lower_scf_if_products(lowering: Any, op: Operation) -> None:
    """``scf.if`` whose results carry products in flight: each such result becomes one result
    per instruction tile, so the wgmma registers pass through unread (a branch that yields a
    retired value splits it into tiles); the next ``tl.warp_group_dot`` chains onto them and a
    ``tl.warp_group_dot_wait`` after the ``scf.if`` retires them."""
    from xdsl.dialects import scf
    from xdsl.dialects.builtin import VectorType

    assert isinstance(op, scf.IfOp)
    carried = [carries_product(r) for r in op.results]  # before the regions move
    cond = lowering.get(op.cond)
    then = lowering.lower_region(op.true_region)
    otherwise = lowering.lower_region(op.false_region)
    types: list[Attribute] = []
    spans: list[tuple[int, int]] = []
    products: dict[int, tuple[AccumulatorTiling, Any]] = {}
    for p, r in enumerate(op.results):
        start = len(types)
        if carried[p]:
            tiling, ll = _tiling(lowering, r.type)
            products[p] = (tiling, ll)
            elem = lowering.vtype(r.type).element_type
            types += [VectorType(elem, [len(regs)]) for regs in tiling.registers]
        else:
            types.append(lowering.vtype(r.type))
        spans.append((start, len(types)))
    new = lowering.region_op(scf.IfOp(cond, types, then, otherwise))
    _PRODUCT_IFS[new] = products
    for p, (r, (lo, hi)) in enumerate(zip(op.results, spans, strict=True)):
        values = list(new.results[lo:hi])
        if p in products:
            tiling, ll = products[p]
            _PENDING[r] = (values, tiling, ll)
            lowering.vals[r] = values[0]  # read only through the dot or the wait
        else:
            lowering.set_results([r], values)


def yields_products(lowering: Any, op: Operation) -> bool:
    """Whether ``op`` is the ``scf.yield`` of an ``scf.if`` :func:`lower_scf_if_products`
    lowered."""
    return op.parent_op() in _PRODUCT_IFS


def lower_yield_products(lowering: Any, op: Operation) -> None:
    """The ``scf.yield`` of an ``scf.if`` carrying products: a product's tiles as they are; a
    retired accumulator split into the tiles."""
    from xdsl.dialects import scf

    products = _PRODUCT_IFS[op.parent_op()]  # type: ignore[index]
    values: list[SSAValue] = []
    for p, v in enumerate(op.operands):
        if p not in products:
            values.append(lowering.get(v))
        elif v in _PENDING:
            values += _PENDING[v][0]
        else:
            whole = lowering.get(v)
            values += [lowering.shuffle(whole, whole, list(r)) for r in products[p][0].registers]
    lowering.emit(scf.YieldOp(*values))


def _group_offset(lowering: Any, per_group: list[int]) -> SSAValue | None:
    """``per_group[g]`` (16-byte units) as an ``i64`` for the threads of warpgroup ``g``: bit
    fields of the thread id (checked to be linear in the warpgroup index), or None when 0."""
    groups = len(per_group)
    if not any(per_group):
        return None
    bits = (groups - 1).bit_length()
    columns = [0] * 7 + [per_group[1 << b] for b in range(bits)]
    for g in range(groups):
        x = 0
        for b in range(bits):
            if g >> b & 1:
                x ^= columns[7 + b]
        if x != per_group[g]:
            raise LayoutError(
                f"wgmma: warpgroup {g}'s operand offset {per_group[g] * 16} is not linear in the "
                "warpgroup index"
            )
    value = lowering.thread_linear(columns)
    return lowering.emit(arith.IndexCastOp(value, i64)).results[0]


def _descriptors(
    lowering: Any,
    operand: SharedOperand,
    origins: list[int],
    group_mn: list[int],
    steps: int,
    kinst: int,
    what: str,
    memdesc: SSAValue | None = None,
) -> dict[tuple[int, int], SSAValue]:
    """The descriptor value of each (tile origin along M/N, K step) for every warpgroup; a
    ``memdesc`` that is a slot of a ring (``tl.memdesc_index``: the pipelined operand) adds the
    slot's byte base to the start address."""
    offsets = operand.byte_offsets
    base_row = int(offsets[0, 0])
    per_group = []
    for d in group_mn:
        delta = int(offsets[d, 0]) - base_row
        for o in origins:
            for s in range(steps):
                if operand.at(o + d, s * kinst).start != operand.at(o, s * kinst).start + delta:
                    raise LayoutError(
                        f"wgmma: {what}'s tile at {o + d} does not start {delta} bytes after the "
                        f"tile at {o}: the warpgroups' slabs are not evenly placed"
                    )
        per_group.append(delta >> 4)
    offset = _group_offset(lowering, per_group)
    slot = lowering.smem_base.get(memdesc) if memdesc is not None else None
    if slot is not None:
        from llc.passes.lower_async_copy import slot_bytes as ring_slot_bytes

        period = shared_alignment(memdesc.type)
        slot_bytes = ring_slot_bytes(_ring_type(memdesc))
        if slot_bytes % period:
            raise LayoutError(
                f"wgmma: {what}'s ring slots are {slot_bytes} bytes apart, not a multiple of "
                f"the {period}-byte swizzle period a descriptor's start must keep"
            )
        units = lowering.emit(arith.IndexCastOp(slot, i64)).results[0]
        four = lowering.emit(arith.ConstantOp(IntegerAttr(4, i64))).results[0]
        units = lowering.emit(arith.ShRUIOp(units, four)).results[0]  # 16-byte units
        offset = units if offset is None else lowering.emit(arith.AddiOp(offset, units)).results[0]
    out: dict[tuple[int, int], SSAValue] = {}
    for o in sorted(set(origins)):
        for s in range(steps):
            value = operand.at(o, s * kinst).encode()
            signed = value - (1 << 64) if value >= 1 << 63 else value
            const = lowering.emit(arith.ConstantOp(IntegerAttr(signed, i64))).results[0]
            if offset is not None:
                const = lowering.emit(arith.AddiOp(const, offset)).results[0]
            out[(o, s)] = const
    return out


def _ring_type(slot: SSAValue) -> Any:
    """The ring buffer's type of a slot (the ``tl.memdesc_index`` that made it, through a
    ``tl.memdesc_trans`` view of the slot)."""
    owner = slot.owner
    while isinstance(owner, Operation) and owner.name == "tl.memdesc_trans":
        owner = owner.operands[0].owner
    assert isinstance(owner, Operation) and owner.name == "tl.memdesc_index"
    return owner.operands[0].type


def _memdesc_layout(typ: Any) -> tuple[Any, tuple[int, int]]:
    from llc.dialects import tl

    if not isinstance(typ, tl.MemDescType):
        raise LayoutError(f"wgmma reads a shared buffer here, not {typ}")
    layout = getattr(typ.encoding, "layout", None)
    if layout is None or not hasattr(layout, "to_linear_layout"):
        raise LayoutError(f"{typ} has no shared layout (run llc-optimize-layouts first)")
    shape = tuple(int(x) for x in typ.get_shape())
    if len(shape) != 2 or any(x & (x - 1) for x in shape):
        raise LayoutError(f"wgmma: the buffer {typ} is not a power-of-two 2-D tile")
    return layout, (shape[0], shape[1])


def lower_warp_group_dot(lowering: Any, op: Operation) -> None:
    """``tl.warp_group_dot``: the accumulator's instruction tiles, each a chain of wgmma ops
    over K, issued and committed as one group (see the module docstring)."""
    from xdsl.dialects.builtin import TensorType

    from llc.passes.simt_lowering import register_renaming as _renaming
    from llc.passes.simt_lowering import tensor_layout as _layout

    a, b, acc = op.operands[:3]
    if len(op.operands) > 3:  # a run-time useC: llc's wgmma chains always add the accumulator
        raise LayoutError(
            "tl.warp_group_dot with a useC operand is not lowered (llc's wgmma chains always "
            "accumulate)"
        )
    rt = op.results[0].type
    assert isinstance(rt, TensorType)
    for use in op.results[0].uses:
        if use.operation.name not in (
            "tl.warp_group_dot_wait",
            "tl.warp_group_dot",
            "scf.yield",
        ) or (use.operation.name == "tl.warp_group_dot" and use.index != 2):
            raise LayoutError(
                f"the product is read by '{use.operation.name}' before a tl.warp_group_dot_wait "
                "returns it"
            )
    mma = getattr(rt.encoding, "layout", None)
    if getattr(mma, "kind", None) != "nvidia_mma" or not getattr(mma, "is_hopper", False):
        raise LayoutError(f"tl.warp_group_dot needs an mma v3 accumulator, not {rt.encoding}")
    if lowering.lanes != 32 or lowering.num_warps % simt.WGMMA_WARPS:
        raise LayoutError(
            f"wgmma runs on warpgroups of 4 warps of 32 lanes, not {lowering.num_warps} warps of "
            f"{lowering.lanes}"
        )
    b_layout, (k, n_total) = _memdesc_layout(b.type)
    element = b.type.element_type  # type: ignore[attr-defined]
    a_element = a.type.element_type  # type: ignore[attr-defined]
    if a_element != element:
        # The verifier takes two float types of one width as Triton's does; the instructions
        # below are emitted for one element type.
        raise LayoutError(
            f"wgmma: llc emits A and B of one element type, not {a_element} x {element}"
        )
    bits = simt.bit_width(element)
    kinst = instruction_k(bits)
    m = int(rt.get_shape()[0])
    if k % kinst:
        raise LayoutError(f"wgmma: K = {k} is not a multiple of the instruction's {kinst}")
    steps = k // kinst
    n = int(mma.instr_shape[1])
    acc_ll = _layout(rt)
    tiling = _tiling(lowering, rt)[0]
    # everything the wgmma ops read from registers: before the fence
    acc_value = lowering.get(acc)
    pending = _PENDING.get(acc)  # an scf.if product may also be yielded by the other branch
    if pending is not None and pending[1] == tiling:
        acc_tiles = list(pending[0])
    else:
        if pending is not None:
            raise LayoutError("wgmma: the accumulator comes from a dot with another tiling")
        acc_tiles = [
            lowering.shuffle(acc_value, acc_value, list(regs)) for regs in tiling.registers
        ]
    b_op = operand_descriptor(b_layout, (k, n_total), bits, "b", n=n)
    b_desc = _descriptors(
        lowering,
        b_op,
        [o[1] for o in tiling.origins],
        [d[1] for d in tiling.group_offsets],
        steps,
        kinst,
        "B",
        b,
    )
    a_smem = None
    a_parts: dict[tuple[int, int], SSAValue] = {}
    if isinstance(a.type, TensorType):
        laid = lowering.laid[a]
        frag = _a_fragment_coords(bits)
        groups = lowering.threads // 128
        for o, _ in tiling.origins:
            if (o, 0) in a_parts:
                continue
            for s in range(steps):
                need = np.concatenate(
                    [
                        frag + np.asarray([o + tiling.group_offsets[g][0], s * kinst])
                        for g in range(groups)
                    ]
                )
                mask = _renaming(laid.coords, need, [m, k])
                if mask is None:
                    raise LayoutError(
                        f"wgmma: A's registers do not hold the fragment of rows {o}.. and K step "
                        f"{s} (A's #tl.dot_op must have the accumulator as parent)"
                    )
                a_parts[(o, s)] = lowering.shuffle(laid.value, laid.value, mask)
        a_trans = False
    else:
        a_layout, a_shape = _memdesc_layout(a.type)
        a_op = operand_descriptor(a_layout, a_shape, bits, "a")
        a_parts = _descriptors(
            lowering,
            a_op,
            [o[0] for o in tiling.origins],
            [d[0] for d in tiling.group_offsets],
            steps,
            kinst,
            "A",
            a,
        )
        a_smem = lowering.get(a)
        a_trans = not a_op.k_major
    b_smem = lowering.get(b)
    lowering.emit(simt.WgmmaFenceOp())
    tiles = []
    for (row, col), tile in zip(tiling.origins, acc_tiles, strict=True):
        for s in range(steps):
            tile = lowering.emit(
                simt.WgmmaOp(
                    a_parts[(row, s)],
                    b_desc[(col, s)],
                    tile,
                    b_smem,
                    n,
                    element,
                    element,
                    trans_a=a_trans,
                    trans_b=not b_op.k_major,
                    a_smem=a_smem if a_smem is not None and a_smem is not b_smem else None,
                )
            ).results[0]
        tiles.append(tile)
    lowering.emit(simt.WgmmaCommitGroupOp())
    _PENDING[op.results[0]] = (tiles, tiling, acc_ll)
    lowering.vals[op.results[0]] = tiles[0]  # read only through lower_warp_group_dot_wait


def lower_warp_group_dot_wait(lowering: Any, op: Operation) -> None:
    """``tl.warp_group_dot_wait``: one ``simt.wgmma_wait_group`` on the tiles of the products
    it returns; each product is then put back in its layout's register order."""
    pendings = op.attributes.get("pendings")
    count = pendings.value.data if isinstance(pendings, IntegerAttr) else 0
    if count:
        raise LayoutError(
            f"tl.warp_group_dot_wait {{pendings = {count}}}: only waiting for every product "
            "(pendings = 0) lowers to SIMT code"
        )
    waited: list[tuple[SSAValue, list[SSAValue], AccumulatorTiling, Any]] = []
    flat: list[SSAValue] = []
    for value, result in zip(op.operands, op.results, strict=True):
        entry = _PENDING.pop(value, None)
        if entry is None:
            # a buffer (kept alive until the products are done) or a ready tensor
            lowering.vals[result] = lowering.get(value)
            if value in lowering.laid:
                lowering.set_tensor(result, lowering.get(value), lowering.laid[value].ll)
            continue
        tiles, tiling, ll = entry
        waited.append((result, tiles, tiling, ll))
        flat.extend(tiles)
    if not flat:
        return
    done = lowering.emit(simt.WgmmaWaitGroupOp(0, flat)).results
    at = 0
    for result, tiles, tiling, ll in waited:
        parts = list(done[at : at + len(tiles)])
        at += len(tiles)
        order = [r for regs in tiling.registers for r in regs]
        joined = lowering.concat(parts)
        inverse = [0] * len(order)
        for position, r in enumerate(order):
            inverse[r] = position
        lowering.set_tensor(result, lowering.shuffle(joined, joined, inverse), ll)


def lower_fence_async_shared(lowering: Any, op: Operation) -> None:
    """``tl.fence_async_shared``: every thread fences its shared-memory writes for the async
    proxy, then a barrier orders all threads' fences before any wgmma reads."""
    lowering.emit(simt.FenceAsyncSharedOp())
    lowering.emit(gpu.BarrierOp())
