"""Lowering ``tl.fp_to_fp`` (Triton's float-to-float conversion, 8-bit floats included) to SIMT
code.

A widening conversion (f8 -> f16/bf16/f32, f16 -> f32, ...) is exact: ``simt.cast "extf"``. A
narrowing one rounds by the op's mode, with llc's tensor-level semantics
(:meth:`llc.dialects.tl_interpreter.TLFunctions.run_fp_to_fp`):

* ``rtne`` (and no mode, for equal widths): ``simt.cast "truncf"``, rounded once to nearest
  even, overflowing to infinity (e5m2) or NaN (e4m3fn). The PTX back end prints the exact integer
  sequences of :mod:`llc.passes.targets.ptx_f8` for every conversion to f8 (PTX's own ``cvt`` to
  f8 exists only from sm_89 and saturates) and ``cvt.rn.f16x2.e{4m3,5m2}x2`` from f8 on sm_90.
* ``rtz``: the nearest value ``r`` stepped one unit toward zero where it rounded away from zero
  (``|extf(r)| > |x|``, false for NaN and infinities; for 8-bit floats also where a finite
  ``x`` overflowed to e4m3fn's NaN): ``r``'s bits minus one, which for a sign-magnitude float is
  the next value toward zero, the largest finite one from infinity (or from e4m3fn's NaN).

Triton itself (sm_80) narrows f32 to f8 through f16, rounding twice, and on sm_90 with
``cvt.rn.satfinite``, clamping overflow; llc rounds once and overflows like MLIR's ``truncf``,
so results agree except on double-rounding ties and out-of-range values.

>>> from xdsl.dialects.builtin import Float8E5M2Type, Float16Type, Float32Type
>>> _kind(Float32Type(), Float16Type())
'truncf'
>>> _kind(Float8E5M2Type(), Float16Type())
'extf'
"""

from __future__ import annotations

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import IntegerType, TensorType, VectorType
from xdsl.ir import Attribute, SSAValue

from llc.dialects import simt, tl
from llc.errors import LayoutError
from llc.passes.simt_lowering import FunctionLowering

__all__ = ["lower_fp_to_fp"]


def _kind(src: Attribute, dst: Attribute) -> str:
    """``extf`` when ``dst`` is at least as wide as ``src`` (f16 <-> bf16 rounds: ``truncf``)."""
    sb, db = simt.bit_width(src), simt.bit_width(dst)
    return "extf" if db > sb else "truncf"


def lower_fp_to_fp(lowering: FunctionLowering, op: tl.FpToFpOp) -> None:
    """``tl.fp_to_fp`` on register vectors (see the module docstring)."""
    rt = op.result.type
    if not isinstance(rt, TensorType):
        raise LayoutError("tl.fp_to_fp on a scalar has no SIMT lowering")
    out_t = lowering.vtype(rt)
    assert isinstance(out_t, VectorType)
    src = lowering.get(op.src)
    assert isinstance(src.type, VectorType)
    kind = _kind(src.type.element_type, out_t.element_type)
    nearest = lowering.emit(simt.CastOp(kind, src, out_t)).results[0]
    if kind == "extf" or op.rounding is None or op.rounding.data == "rtne":
        lowering.set_tensor(op.result, nearest)
        return
    lowering.set_tensor(op.result, _toward_zero(lowering, src, nearest))


def _toward_zero(lowering: FunctionLowering, x: SSAValue, nearest: SSAValue) -> SSAValue:
    """``nearest`` (``x`` rounded to nearest) moved one step toward zero where it rounded away."""
    nt = nearest.type
    assert isinstance(nt, VectorType) and isinstance(x.type, VectorType)
    width = simt.bit_width(nt.element_type)
    if width not in (8, 16, 32):
        raise LayoutError(f"fp_to_fp rounding rtz to {nt.element_type}")
    n = nt.get_shape()[0]
    back = lowering.emit(simt.CastOp("extf", nearest, x.type)).results[0]
    mag_back = lowering.emit(math.AbsFOp(back)).results[0]
    mag_x = lowering.emit(math.AbsFOp(x)).results[0]
    away = lowering.emit(simt.CompareOp("ogt", mag_back, mag_x)).results[0]
    if width == 8:  # e4m3fn overflows to NaN: a finite x steps from it to the largest value
        nan = lowering.emit(simt.CompareOp("uno", back, back)).results[0]
        inf = lowering.const_vec(x.type, [float("inf")] * n)  # type: ignore[arg-type]
        finite = lowering.emit(simt.CompareOp("olt", mag_x, inf)).results[0]
        overflow = lowering.emit(arith.AndIOp(nan, finite)).results[0]
        away = lowering.emit(arith.OrIOp(away, overflow)).results[0]
    bits_t = VectorType(IntegerType(width), [n])
    bits = lowering.emit(simt.CastOp("bitcast", nearest, bits_t)).results[0]
    one = lowering.const_vec(bits_t, [1] * n)
    stepped = lowering.emit(arith.SubiOp(bits, one)).results[0]
    chosen = lowering.emit(simt.SelectOp(away, stepped, bits)).results[0]
    return lowering.emit(simt.CastOp("bitcast", chosen, nt)).results[0]
