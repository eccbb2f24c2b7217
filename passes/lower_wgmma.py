"""Emit the SIMT code of one warpgroup dot (``tl.warp_group_dot`` with mma v3): wgmma ops reading
shared operands through descriptors read off their layouts.

:func:`emit_warpgroup_dot` is the piece a lowering of ``tl.warp_group_dot`` calls once the
operands are in place: B (and A, unless A is in registers) stored in a ``!simt.smem`` buffer
through their shared layouts, made visible to the async proxy (``simt.fence_async_shared`` then
``gpu.barrier``). It emits ``simt.wgmma_fence``, one ``simt.wgmma`` per K step (descriptors for
each step's sub-tile, and per warpgroup for A's rows: warpgroup ``g`` multiplies rows
``64g .. 64g+63``), ``simt.wgmma_commit_group`` and ``simt.wgmma_wait_group``.

Not wired into ``llc-lower-to-simt`` yet: that needs ``tl.warp_group_dot`` in the ``tl``
dialect, shared buffers placed at 1024-byte aligned offsets for swizzled layouts, and the
accumulator split into 64 x 256 instruction tiles when the tile is wider (see the report of
issue 21).

>>> from llc.layouts.shared import NvmmaSharedLayout
>>> plan = plan_warpgroup_dot(None, SharedTile(NvmmaSharedLayout(128, True, 16), (64, 64), 0),
...                           16, num_warps=4)
>>> plan.steps, plan.n
(4, 64)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xdsl.builder import Builder
from xdsl.dialects import arith, gpu, vector
from xdsl.dialects.builtin import DenseArrayBase, IndexType, IntegerAttr, VectorType, i64
from xdsl.ir import Attribute, SSAValue

from llc.dialects import simt
from llc.errors import LayoutError
from llc.wgmma import SharedOperand, instruction_k, operand_descriptor

__all__ = ["SharedTile", "WarpgroupDotPlan", "emit_warpgroup_dot", "plan_warpgroup_dot"]


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
