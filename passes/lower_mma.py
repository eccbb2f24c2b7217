"""Lowering ``tl.dot`` on ``#tl.nvidia_mma`` (v2) layouts to ``mma.sync``: every 16x8
accumulator tile a warp owns, K in steps of the instruction's K.

The instruction follows the operand and accumulator types:

* 16-bit floats (``f16``/``bf16``; 8-bit floats widened exactly to ``f16``; an integer operand
  of a mixed dot converted to the other's type): ``mma.sync.m16n8k16`` (``simt.mma_m16n8k16``),
  accumulating in ``f32``, or in ``f16`` for an ``f16`` dot with an ``f16`` accumulator
  (``.f16.f16.f16.f16``: each instruction rounds its 16x8 result to f16, as the tensor cores do);
* 8-bit integers with an ``i32`` accumulator: ``mma.sync.m16n8k32.s8.s8.s32``
  (``simt.mma_m16n8k32``), K in steps of 32 (the ``kWidth = 4`` operand layouts hold 4
  consecutive K per register group, as the instruction's fragments do).

A rank-3 (batched) dot is one rank-2 dot per batch index: the accumulator tile of a register is
(batch, M/16, N/8), and the fragments are gathered at the same batch index of A and B.

The fragments are gathered from the operands' registers by coordinates (the PTX fragment
layouts of :func:`llc.dialects.simt_kernel_interpreter.mma_fragment_coords` and
:func:`llc.dialects.simt_mma.mma_k32_fragment_coords`); a layout whose registers do not sit
where the fragments need them is a located error.

>>> [instruction_for(a, c) for a, c in (("f16", "f32"), ("f16", "f16"), ("i8", "i32"))]
['m16n8k16', 'm16n8k16', 'm16n8k32']
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import Float16Type, IntegerType, TensorType, VectorType
from xdsl.ir import Attribute, SSAValue

from llc.dialects import simt, tl
from llc.errors import LayoutError
from llc.passes.simt_lowering import (
    FunctionLowering,
    register_renaming,
    register_vector_type,
    tensor_layout,
    thread_coords,
)

__all__ = ["instruction_for", "lower_dot_mma"]


def instruction_for(ab: str, acc: str) -> str:
    """The ``mma.sync`` shape for operands of type ``ab`` accumulating in ``acc`` (type names
    as the IR prints them); a :class:`~llc.errors.LayoutError` when there is none."""
    if ab in ("i8", "si8", "ui8") and acc == "i32":
        return "m16n8k32"
    if (ab in ("f16", "bf16") and acc == "f32") or (ab, acc) == ("f16", "f16"):
        return "m16n8k16"
    raise LayoutError(
        f"mma.sync has no {ab} x {ab} -> {acc} form here (f16/bf16 -> f32, f16 -> f16, i8 -> i32)"
    )


def _is_f8(t: Attribute) -> bool:
    return simt.bit_width(t) == 8 and not isinstance(t, IntegerType)


def _mma_operand(
    lowering: FunctionLowering, value: SSAValue, f_elem: Attribute, mma_elem: Attribute
) -> SSAValue:
    """An mma fragment: integers converted to the dot's float type (unless the mma takes
    integers), then 8-bit floats widened (exactly) to the mma's f16."""
    from llc.passes.lower_to_simt import as_float

    if not isinstance(mma_elem, IntegerType):
        value = as_float(lowering, value, f_elem)
    vt = value.type
    assert isinstance(vt, VectorType)
    if vt.element_type == mma_elem:
        return value
    target = VectorType(mma_elem, list(vt.get_shape()))
    return lowering.emit(simt.CastOp("extf", value, target)).results[0]


def _types(lowering: FunctionLowering, op: tl.DotOp) -> tuple[Attribute, Attribute, str]:
    """(the type operands are converted to, the mma's operand type, the instruction)."""
    at, bt, rt = op.a.type, op.b.type, op.result.type
    assert isinstance(at, TensorType) and isinstance(bt, TensorType)
    assert isinstance(rt, TensorType)
    a_elem = register_vector_type(at).element_type
    b_elem = register_vector_type(bt).element_type
    c_elem = register_vector_type(rt).element_type
    if lowering.lanes != 32:
        raise LayoutError("mma.sync needs warps of 32 lanes")
    if isinstance(a_elem, IntegerType) and isinstance(b_elem, IntegerType):
        if simt.bit_width(a_elem) != 8 or a_elem != b_elem:
            raise LayoutError(f"mma.sync has no {a_elem} x {b_elem} form (i8 x i8 -> i32)")
        return a_elem, a_elem, instruction_for("i8", str(c_elem))
    # Mixed precision: the integer operand is converted to the float one's type in registers,
    # after its fragment is gathered from its own dot-operand layout; 8-bit floats are then
    # widened to f16 (exact), so the mma runs on f16.
    f_elem = b_elem if isinstance(a_elem, IntegerType) else a_elem
    mma_elem = Float16Type() if _is_f8(f_elem) else f_elem
    if _is_f8(a_elem) and _is_f8(b_elem) and a_elem != b_elem:
        raise LayoutError("mma.sync m16n8k16 takes f16/bf16 operands (one f8 format)")
    if simt.bit_width(mma_elem) != 16:
        raise LayoutError("mma.sync m16n8k16 takes f16/bf16 operands in warps of 32 lanes")
    acc = str(c_elem)
    if acc == "f16" and not isinstance(mma_elem, Float16Type):
        raise LayoutError("mma.sync accumulates bf16 products in f32 only")
    return f_elem, mma_elem, instruction_for(str(mma_elem), acc)


def lower_dot_mma(lowering: FunctionLowering, op: tl.DotOp) -> None:
    """``tl.dot`` with an ``#tl.nvidia_mma`` v2 result: ``mma.sync`` (see the module docstring)."""
    from llc.dialects.simt_kernel_interpreter import mma_fragment_coords
    from llc.dialects.simt_mma import mma_k32_fragment_coords
    from llc.passes.lower_to_simt import mma_k_order

    rt = op.result.type
    at, bt = op.a.type, op.b.type
    assert isinstance(rt, TensorType) and isinstance(at, TensorType)
    assert isinstance(bt, TensorType)
    enc = rt.encoding
    if getattr(enc.layout, "version_major", 2) != 2:  # type: ignore[union-attr]
        raise LayoutError("only mma v2 lowers to SIMT code (llc-compile picks it)")
    f_elem, mma_elem, shape = _types(lowering, op)
    if shape == "m16n8k32":
        ra, ca, rb, cb, rc, cc = mma_k32_fragment_coords()
        kstep = 32
    else:
        ra, ca, rb, cb, rc, cc = mma_fragment_coords()
        kstep = 16
    acc = lowering.laid[op.acc]
    a, b = lowering.laid[op.a], lowering.laid[op.b]
    rt_ll = tensor_layout(rt)
    dst = thread_coords(rt_ll, lowering.threads)  # (threads, R, rank)
    shape_c = [int(x) for x in rt.get_shape()]
    rank = len(shape_c)
    if rank not in (2, 3):
        raise LayoutError(f"a rank-{rank} dot has no mma lowering")
    acc_v = lowering.remap(acc, dst, shape_c, rt_ll)
    kdim = int(at.get_shape()[-1])
    if kdim % kstep:
        raise LayoutError(f"K = {kdim} is not a multiple of {kstep} ({shape})")
    lane = np.arange(lowering.threads) % 32
    R = dst.shape[1]
    m, n = dst[..., -2], dst[..., -1]
    batch = dst[..., 0] if rank == 3 else np.zeros_like(m)
    tile = (batch * (shape_c[-2] // 16) + m // 16) * (shape_c[-1] // 8) + n // 8  # (threads, R)
    within = (m % 16, n % 8)
    # register r of thread t holds c_j of its tile: the j whose PTX coordinate it is
    j_of = np.full((lowering.threads, R), -1)
    for j in range(4):
        hit = (rc[lane, j][:, None] == within[0]) & (cc[lane, j][:, None] == within[1])
        j_of[hit] = j
    if (j_of < 0).any():
        raise LayoutError("the accumulator layout is not the mma m16n8 fragment layout")
    groups: list[list[int]] = []
    seen: dict[int, int] = {}
    for r in range(R):
        t0 = int(tile[0, r])
        if t0 not in seen:
            seen[t0] = len(groups)
            groups.append([-1] * 4)
        groups[seen[t0]][int(j_of[0, r])] = r
    for g in groups:
        if -1 in g or not all(
            (tile[:, x] == tile[:, g[0]]).all() and (j_of[:, x] == j).all() for j, x in enumerate(g)
        ):
            raise LayoutError("accumulator registers do not form whole mma tiles per thread")
    ashape = [int(x) for x in at.get_shape()]
    bshape = [int(x) for x in bt.get_shape()]
    # k16: the operand layout's K order (kWidth 4 feeds 8-bit floats permuted); k32: the
    # fragments' own order, which kWidth 4 holds
    k_of = mma_k_order(a.coords[..., -2:], ra, ca, kdim) if kstep == 16 else np.arange(kdim)
    outs = []
    for g in groups:
        m0 = (dst[:, g[0], -2] // 16 * 16)[:, None]
        n0 = (dst[:, g[0], -1] // 8 * 8)[:, None]
        b0 = dst[:, g[0], 0][:, None]
        frag = lowering.shuffle(acc_v, acc_v, g)
        for k0 in range(0, kdim, kstep):
            need_a = [m0 + ra[lane], k_of[k0 + ca[lane]]]
            need_b = [k_of[k0 + rb[lane]], n0 + cb[lane]]
            if rank == 3:
                need_a.insert(0, np.broadcast_to(b0, need_a[0].shape))
                need_b.insert(0, np.broadcast_to(b0, need_b[1].shape))
            ma = register_renaming(a.coords, np.stack(need_a, -1), ashape)
            mb = register_renaming(b.coords, np.stack(need_b, -1), bshape)
            if ma is None or mb is None:
                raise LayoutError(
                    "the dot operands' registers are not the mma fragments (one mma needs "
                    "both operands in the same K order: dot_op layouts of equal kWidth)"
                )
            av = _mma_operand(lowering, lowering.shuffle(a.value, a.value, ma), f_elem, mma_elem)
            bv = _mma_operand(lowering, lowering.shuffle(b.value, b.value, mb), f_elem, mma_elem)
            mma = simt.MmaK32Op(av, bv, frag) if kstep == 32 else simt.MmaOp(av, bv, frag)
            frag = lowering.emit(mma).results[0]
        outs.append(frag)
    order = [r for g in groups for r in g]
    joined = lowering.concat(outs)
    inverse = [order.index(r) for r in range(R)]
    lowering.set_tensor(op.result, lowering.shuffle(joined, joined, inverse), rt_ll)
