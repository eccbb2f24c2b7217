"""Lowering ``tl.extern_elementwise`` calls of libdevice (``tl.extern_elementwise``, Triton's
``libdevice.*``) to the ``math``/``arith`` op that computes the same function.

llc does not link libdevice: a call of a function of :data:`LIBDEVICE` becomes that op on the
registers, which ``-t ptx`` emits as the hardware's approximation (``ex2.approx``,
``rsqrt.approx``, ``tanh.approx``, ... for f32, as ``__nv_fast_*`` and Triton's fast math do) or
a software sequence (:mod:`llc.passes.targets.ptx_math`: ``erf``, ``pow``, f64); the tensor-level
interpreter runs the same op's semantics (so ``llc-run`` runs such kernels too). Any other symbol
is a located error naming it. ``__nv_<name>f`` is the f32 function, ``__nv_<name>`` the f64 one,
``__nv_fast_<name>f`` the fast f32 one (the same op: its PTX already is the approximation).

>>> [libdevice_op(s).name for s in ("__nv_erff", "__nv_fast_expf", "__nv_pow")]
['math.erf', 'math.exp', 'math.powf']
>>> libdevice_op("__nv_j0f") is None
True
"""

from __future__ import annotations

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation

from llc.dialects import tl
from llc.errors import LayoutError
from llc.passes.simt_lowering import FunctionLowering

__all__ = ["LIBDEVICE", "libdevice_op", "lower_extern_elementwise"]

LIBDEVICE: dict[str, type[Operation]] = {
    "exp": math.ExpOp,
    "exp2": math.Exp2Op,
    "expm1": math.ExpM1Op,
    "log": math.LogOp,
    "log2": math.Log2Op,
    "log10": math.Log10Op,
    "log1p": math.Log1pOp,
    "sqrt": math.SqrtOp,
    "rsqrt": math.RsqrtOp,
    "cbrt": math.CbrtOp,
    "sin": math.SinOp,
    "cos": math.CosOp,
    "tan": math.TanOp,
    "sinh": math.SinhOp,
    "cosh": math.CoshOp,
    "tanh": math.TanhOp,
    "asin": math.AsinOp,
    "acos": math.AcosOp,
    "atan": math.AtanOp,
    "asinh": math.AsinhOp,
    "acosh": math.AcoshOp,
    "atanh": math.AtanhOp,
    "atan2": math.Atan2Op,
    "erf": math.ErfOp,
    "pow": math.PowFOp,
    "fabs": math.AbsFOp,
    "floor": math.FloorOp,
    "ceil": math.CeilOp,
    "trunc": math.TruncOp,
    "round": math.RoundOp,
    "rint": math.RoundEvenOp,
    "nearbyint": math.RoundEvenOp,
    "copysign": math.CopySignOp,
    "fma": math.FmaOp,
    "fmax": arith.MaxnumfOp,
    "fmin": arith.MinnumfOp,
    "fdivide": arith.DivfOp,
}
"""libdevice's function name (without ``__nv_`` and the ``f`` of the f32 version) -> the op."""


def libdevice_op(symbol: str) -> type[Operation] | None:
    """The op computing libdevice's ``symbol`` (see the module docstring), else None."""
    if not symbol.startswith("__nv_"):
        return None
    name = symbol.removeprefix("__nv_").removeprefix("fast_")
    if name in LIBDEVICE and not symbol.startswith("__nv_fast_"):
        return LIBDEVICE[name]  # f64 (and the f32-only names: fdivide is __nv_fdividef)
    if name.endswith("f") and name[:-1] in LIBDEVICE:
        return LIBDEVICE[name[:-1]]
    return None


def extern_op_class(op: Operation) -> type[Operation]:
    """The op of a ``tl.extern_elementwise`` (a :class:`~llc.errors.LayoutError` for a symbol
    llc does not map)."""
    assert isinstance(op, tl.ExternElementwiseOp)
    symbol = op.symbol.data
    cls = libdevice_op(symbol)
    if cls is None:
        raise LayoutError(
            f"extern function '{symbol}' has no lowering (llc maps libdevice's "
            f"{', '.join(sorted(LIBDEVICE))} in f32, f64 and fast forms)"
        )
    return cls


def lower_extern_elementwise(lowering: FunctionLowering, op: Operation) -> None:
    """``tl.extern_elementwise``: the mapped op on the operands' registers."""
    cls = extern_op_class(op)
    new = cls.create(
        operands=[lowering.get(v) for v in op.operands],
        result_types=[lowering.vtype(op.results[0].type)],
    )
    lowering.emit(new)
    if isinstance(op.results[0].type, TensorType):
        lowering.set_tensor(op.results[0], new.results[0])
    else:
        lowering.vals[op.results[0]] = new.results[0]
