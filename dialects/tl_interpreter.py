"""Reference semantics of the ``tl`` IR: xDSL interpreter functions on numpy arrays.

Layouts never change values, so a kernel must compute exactly the same numbers before and after
any layout pass; this interpreter is the oracle for that. It ignores encodings entirely.

Values during interpretation:

* tensors: ``numpy.ndarray`` with the tensor's shape and the element type's dtype (``f16`` ->
  ``float16``, ``i1`` -> ``bool``, ``iN`` -> signed ``intN``; ``bf16`` is held in ``float32``
  rounded to bf16 after every operation);
* scalars: numpy scalars of the same dtypes (``index`` values are Python ints);
* pointers: :class:`Pointer` (a :class:`Buffer` and an element offset); tensors of pointers:
  :class:`PointerTensor` (one buffer and an ``int64`` array of element offsets);
* shared memory (``!tl.memdesc``): :class:`SharedMemory`.

Loads and stores index the real numpy buffers: an active lane (mask true or no mask) outside
``[0, buffer size)`` raises :class:`TLInterpretationError` naming the op and the offset (no
wrap-around); masked-off lanes are not accessed and loads give ``other`` (or 0) there.

Integer arithmetic wraps (two's complement), float arithmetic is IEEE in the element type;
transcendental ``math`` functions are evaluated in float64 and rounded once to the result type;
``math.fma`` is fused (one correct rounding of the exact ``a * b + c``, see
:func:`fused_multiply_add`).
``tl.reduce`` combines pairwise (a balanced tree along the axis), ``tl.dot`` accumulates in
float64 (int64 for integers) and rounds once: both depend only on the shapes, never on layouts.

>>> buf = Buffer("x", np.arange(4, dtype=np.float32))
>>> PointerTensor(buf, np.array([0, 2])).offsets.tolist()
[0, 2]
"""

from __future__ import annotations

import math as pymath
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
    VectorType,
)
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    ReturnedValues,
    TerminatorValue,
    impl,
    impl_terminator,
    register_impls,
)
from xdsl.ir import Attribute, Operation, Region
from xdsl.utils.exceptions import InterpretationError

from llc.dialects import tl
from llc.dialects.diagnostics import OpDiagnostic
from llc.dialects.tl import PointerType, element_type_of, shape_of
from llc.dialects.xdsl_private import import_submodule

# Not `from xdsl.interpreters.func import ...`: that runs xdsl/interpreters/__init__.py, which
# imports every xDSL interpreter (RISC-V, ...) and slows llc-run's start-up (bench/startup.py).
FuncFunctions = import_submodule("xdsl.interpreters.func").FuncFunctions
ScfFunctions = import_submodule("xdsl.interpreters.scf").ScfFunctions

__all__ = [
    "Buffer",
    "OpTracker",
    "Pointer",
    "PointerTensor",
    "SharedMemory",
    "TLFunctions",
    "TLInterpretationError",
    "make_interpreter",
    "numpy_dtype",
    "run_function",
    "set_grid",
    "to_value",
]

# --------------------------------------------------------------------------------------
# Runtime values
# --------------------------------------------------------------------------------------


@dataclass(eq=False)
class Buffer:
    """A global-memory buffer: a flat, writable numpy array that pointers index by element.

    ``shape`` is the shape the caller gave (for saving the buffer back); ``data`` is always 1-D.

    >>> b = Buffer("out", np.zeros((2, 3), np.float32))
    >>> b.data.shape, b.shape
    ((6,), (2, 3))
    """

    name: str
    data: np.ndarray
    shape: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if not self.shape:
            self.shape = tuple(self.data.shape)
        # Own a contiguous copy so stores never write into the caller's array by surprise.
        self.data = np.array(self.data, copy=True).reshape(-1)

    @property
    def size(self) -> int:
        """Number of elements."""
        return int(self.data.size)

    def array(self) -> np.ndarray:
        """The contents in the caller's shape."""
        return self.data.reshape(self.shape)


@dataclass(frozen=True, eq=False)
class Pointer:
    """A scalar pointer: element ``offset`` of ``buffer``.

    >>> Pointer(Buffer("x", np.zeros(4, np.float32)), 2).offset
    2
    """

    buffer: Buffer
    offset: int


@dataclass(frozen=True, eq=False)
class PointerTensor:
    """A tensor of pointers into one buffer: an ``int64`` array of element offsets.

    >>> PointerTensor(Buffer("x", np.zeros(4, np.float32)), np.arange(2)).shape
    (2,)
    """

    buffer: Buffer
    offsets: np.ndarray

    @property
    def shape(self) -> tuple[int, ...]:
        """The tensor shape."""
        return tuple(self.offsets.shape)


@dataclass(eq=False)
class SharedMemory:
    """A shared-memory allocation (the value of a ``!tl.memdesc``)."""

    data: np.ndarray
    freed: bool = field(default=False)


class TLInterpretationError(OpDiagnostic, InterpretationError):
    """An error while interpreting ``op``; its ``op`` field lets tools report the op's location."""

    def __init__(self, op: Operation, detail: str):
        super().__init__(op, f"{op.name}: {detail}")
        self.detail = detail
        """The message without the op name."""


# --------------------------------------------------------------------------------------
# Types <-> numpy
# --------------------------------------------------------------------------------------


def numpy_dtype(typ: Attribute) -> np.dtype:
    """The numpy dtype holding values of the scalar/element type ``typ``.

    >>> from xdsl.dialects.builtin import f16, i1, i32, bf16
    >>> [str(numpy_dtype(t)) for t in (f16, i1, i32, bf16)]
    ['float16', 'bool', 'int32', 'float32']
    """
    typ = element_type_of(typ)
    if isinstance(typ, Float16Type):
        return np.dtype(np.float16)
    if isinstance(typ, Float32Type | BFloat16Type | Float8E4M3FNType | Float8E5M2Type):
        # Narrow floats live in float32, rounded to their format (see to_value).
        return np.dtype(np.float32)
    if isinstance(typ, Float64Type):
        return np.dtype(np.float64)
    if isinstance(typ, IntegerType):
        width = typ.width.data
        if width == 1:
            return np.dtype(np.bool_)
        if width in (8, 16, 32, 64):
            return np.dtype(f"int{width}")
    if isinstance(typ, IndexType):
        return np.dtype(np.int64)
    raise InterpretationError(f"the interpreter does not support values of type {typ}")


def _unsigned(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.bool_) if dtype == np.bool_ else np.dtype(f"uint{dtype.itemsize * 8}")


def round_bf16(x: np.ndarray) -> np.ndarray:
    """Round float32 values to the nearest bfloat16 (ties to even), kept in float32."""
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), x, out)


def to_value(value: Any, typ: Attribute) -> Any:
    """Convert ``value`` (scalar or array-like) to the interpreter value of type ``typ``.

    Tensors become arrays of the tensor's shape (scalars broadcast), scalars numpy scalars,
    ``index`` a Python int. Integer conversion wraps, float conversion rounds to nearest.

    >>> from xdsl.dialects.builtin import TensorType, i32, f32
    >>> to_value(2**31, i32), to_value([1, 2], TensorType(f32, [2])).dtype
    (np.int32(-2147483648), dtype('float32'))
    """
    element = element_type_of(typ)
    dtype = numpy_dtype(element)
    arr = np.asarray(value)
    if arr.dtype != dtype:
        with np.errstate(all="ignore"):
            if dtype == np.bool_:
                arr = arr != 0
            elif np.issubdtype(dtype, np.integer) and np.issubdtype(arr.dtype, np.integer):
                arr = arr.astype(np.int64).astype(dtype)  # wraps, as in hardware
            else:
                arr = arr.astype(dtype)
    if isinstance(element, BFloat16Type):
        arr = round_bf16(arr)
    elif isinstance(element, Float8E4M3FNType | Float8E5M2Type):
        from llc.mxfp import quantize

        fmt = "e4m3fn" if isinstance(element, Float8E4M3FNType) else "e5m2"
        arr = quantize(arr, fmt).astype(np.float32)
    if isinstance(typ, TensorType):
        shape = typ.get_shape()
        if arr.shape != shape:
            arr = np.broadcast_to(arr, shape)
        return arr
    if isinstance(element, IndexType) and arr.ndim == 0:
        return int(arr)
    return arr[()]


def _result(op: Operation, value: Any, index: int = 0) -> Any:
    return to_value(value, op.results[index].type)


def _is_float(typ: Attribute) -> bool:
    return isinstance(element_type_of(typ), AnyFloat)


def _mx_operand(value: np.ndarray, scale: np.ndarray | None, fmt: str, k_axis: int) -> np.ndarray:
    """An MX operand of ``tl.dot_scaled`` as float64: elements times ``2^(scale - 127)``."""
    from llc.mxfp import decode, decode_e8m0, unpack_fp4

    if fmt == "e2m1":
        elements = decode(unpack_fp4(value, k_axis), "e2m1")
    elif fmt in ("e4m3", "e5m2"):
        elements = decode(value.astype(np.int64) & 255, "e4m3fn" if fmt == "e4m3" else "e5m2")
    else:
        elements = value.astype(np.float64)
    if scale is None:  # an operand without scales
        return elements
    scales = decode_e8m0(scale.astype(np.int64) & 255)
    # A scale covers 32 (OCP MX) or 16 consecutive elements along K: the verifier admits both.
    group = elements.shape[k_axis] // scales.shape[k_axis]
    return elements * np.repeat(scales, group, axis=k_axis)


# --------------------------------------------------------------------------------------
# Elementwise arith / math / tl ops
# --------------------------------------------------------------------------------------

ElementwiseFn = Callable[..., Any]


def _signed_div(op: Operation, a: Any, b: Any) -> np.ndarray:
    a, b = np.asarray(a), np.asarray(b)
    if np.any(b == 0):
        raise TLInterpretationError(op, "integer division by zero")
    q = a // b
    # numpy floors; MLIR's divsi truncates toward zero.
    return np.where((a % b != 0) & ((a < 0) != (b < 0)), q + 1, q)


def _unsigned_args(op: Operation, *args: Any) -> list[np.ndarray]:
    typ = op.operands[0].type
    # The SIMT interpreter applies these per register: its operands are vectors.
    dtype = numpy_dtype(typ.element_type if isinstance(typ, VectorType) else typ)
    return [np.asarray(a).astype(dtype).view(_unsigned(dtype)) for a in args]


def _unsigned_div(op: Operation, a: Any, b: Any) -> np.ndarray:
    ua, ub = _unsigned_args(op, a, b)
    if np.any(ub == 0):
        raise TLInterpretationError(op, "integer division by zero")
    return ua // ub


def _unsigned_rem(op: Operation, a: Any, b: Any) -> np.ndarray:
    ua, ub = _unsigned_args(op, a, b)
    if np.any(ub == 0):
        raise TLInterpretationError(op, "integer remainder by zero")
    return ua % ub


def _signed_rem(op: Operation, a: Any, b: Any) -> np.ndarray:
    a, b = np.asarray(a), np.asarray(b)
    if np.any(b == 0):
        raise TLInterpretationError(op, "integer remainder by zero")
    return np.fmod(a, b)  # sign of the dividend, as C and MLIR's remsi


def _floor_div(op: Operation, a: Any, b: Any) -> np.ndarray:
    if np.any(np.asarray(b) == 0):
        raise TLInterpretationError(op, "integer division by zero")
    return np.floor_divide(a, b)


def _ceil_div(op: Operation, a: Any, b: Any) -> np.ndarray:
    a, b = np.asarray(a), np.asarray(b)
    if np.any(b == 0):
        raise TLInterpretationError(op, "integer division by zero")
    return a // b + (a % b != 0)


def _ceil_div_unsigned(op: Operation, a: Any, b: Any) -> np.ndarray:
    ua, ub = _unsigned_args(op, a, b)
    if np.any(ub == 0):
        raise TLInterpretationError(op, "integer division by zero")
    return ua // ub + (ua % ub != 0)


def _shift_unsigned_right(op: Operation, a: Any, b: Any) -> np.ndarray:
    ua, ub = _unsigned_args(op, a, b)
    return np.right_shift(ua, ub)


def _max_unsigned(op: Operation, a: Any, b: Any) -> np.ndarray:
    ua, ub = _unsigned_args(op, a, b)
    return np.maximum(ua, ub)


def _min_unsigned(op: Operation, a: Any, b: Any) -> np.ndarray:
    ua, ub = _unsigned_args(op, a, b)
    return np.minimum(ua, ub)


def _maximumf(op: Operation, a: Any, b: Any) -> np.ndarray:
    a, b = np.asarray(a), np.asarray(b)
    out = np.maximum(a, b)  # propagates NaN
    both_zero = (a == 0) & (b == 0)
    # IEEE maximum: +0 > -0.
    return np.where(both_zero, np.where(np.signbit(a) & np.signbit(b), a, np.abs(a)), out)


def _minimumf(op: Operation, a: Any, b: Any) -> np.ndarray:
    a, b = np.asarray(a), np.asarray(b)
    out = np.minimum(a, b)
    both_zero = (a == 0) & (b == 0)
    return np.where(both_zero, np.where(np.signbit(a) | np.signbit(b), -np.abs(a), a), out)


def compare_floats(predicate: str, a: Any, b: Any) -> np.ndarray:
    """``arith.cmpf`` on arrays: ordered (``o*``) predicates are false and unordered (``u*``)
    ones true where either side is NaN.

    >>> compare_floats("olt", [1.0, float("nan")], [2.0, 0.0]).tolist()
    [True, False]
    >>> compare_floats("ult", [1.0, float("nan")], [2.0, 0.0]).tolist()
    [True, True]
    """
    a, b = np.asarray(a), np.asarray(b)
    ordered = ~(np.isnan(a) | np.isnan(b))
    table: dict[str, Callable[[], np.ndarray]] = {
        "false": lambda: np.zeros(np.broadcast(a, b).shape, bool),
        "true": lambda: np.ones(np.broadcast(a, b).shape, bool),
        "oeq": lambda: ordered & (a == b),
        "ogt": lambda: ordered & (a > b),
        "oge": lambda: ordered & (a >= b),
        "olt": lambda: ordered & (a < b),
        "ole": lambda: ordered & (a <= b),
        "one": lambda: ordered & (a != b),
        "ord": lambda: ordered,
        "ueq": lambda: ~ordered | (a == b),
        "ugt": lambda: ~ordered | (a > b),
        "uge": lambda: ~ordered | (a >= b),
        "ult": lambda: ~ordered | (a < b),
        "ule": lambda: ~ordered | (a <= b),
        "une": lambda: ~ordered | (a != b),
        "uno": lambda: ~ordered,
    }
    return table[predicate]()


def compare_integers(predicate: str, a: Any, b: Any, dtype: np.dtype) -> np.ndarray:
    """``arith.cmpi`` on arrays of ``dtype``: ``u*`` predicates compare the bits as unsigned.

    >>> compare_integers("slt", [-1], [0], np.dtype(np.int8)).tolist()
    [True]
    >>> compare_integers("ult", [-1], [0], np.dtype(np.int8)).tolist()
    [False]
    """
    a, b = np.asarray(a).astype(dtype), np.asarray(b).astype(dtype)
    if predicate.startswith("u"):
        a, b = a.view(_unsigned(dtype)), b.view(_unsigned(dtype))
    table = {
        "eq": np.equal, "ne": np.not_equal,
        "slt": np.less, "sle": np.less_equal, "sgt": np.greater, "sge": np.greater_equal,
        "ult": np.less, "ule": np.less_equal, "ugt": np.greater, "uge": np.greater_equal,
    }  # fmt: skip
    return table[predicate](a, b)


def _f64(fn: Callable[..., Any]) -> ElementwiseFn:
    """A float function evaluated in float64 (rounded once to the result type afterwards)."""
    return lambda op, *xs: fn(*(np.asarray(x, dtype=np.float64) for x in xs))


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Knuth's error-free sum: ``s = fl(a + b)`` and ``e`` with ``s + e == a + b`` exactly."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _odd_toward(rounded: np.ndarray, direction: np.ndarray, inexact: np.ndarray) -> np.ndarray:
    """Round to odd: where inexact and ``rounded`` has an even last bit, step one ulp along
    ``direction`` (then ``rounded`` is the odd one of the two neighbours of the exact value)."""
    bits = rounded.view(np.int64 if rounded.dtype == np.float64 else np.int32)
    step = inexact & (bits & 1 == 0) & np.isfinite(rounded)
    target = np.where(direction > 0, np.inf, -np.inf).astype(rounded.dtype)
    return np.where(step, np.nextafter(rounded, target), rounded)


def _fma_exact_scalar(a: float, b: float, c: float) -> float:
    """Correctly rounded binary64 ``a * b + c`` by exact rational arithmetic."""
    if not (pymath.isfinite(a) and pymath.isfinite(b)):
        return a * b + c  # the product is already the exact inf/nan
    if not pymath.isfinite(c):
        return c  # a finite product cannot cancel an infinite (or nan) addend
    product = Fraction(a) * Fraction(b)
    exact = product + Fraction(c)
    if exact == 0:
        # IEEE's zero sign: an exact zero product adds as a signed zero, cancellation gives +0.
        return (a * b) + c if product == 0 else 0.0
    try:
        return float(exact)  # int / int true division: correctly rounded, subnormals too
    except OverflowError:
        return pymath.inf if exact > 0 else -pymath.inf


_FMA_F64 = np.frompyfunc(_fma_exact_scalar, 3, 1)


def fused_multiply_add(a: Any, b: Any, c: Any, element: Attribute) -> np.ndarray:
    """``a * b + c`` rounded once to ``element`` (f16, bf16, f32 or f64): IEEE ``fusedMultiplyAdd``.

    f64 is computed exactly with fractions. For the narrower types the f64 product of two
    operands is exact (at most 2 x 24 significant bits, far inside f64's exponent range) and
    Knuth's two-sum gives its sum with ``c`` exactly as ``s + e``; rounding that to odd in f64
    (53 bits) and then to nearest in the target (at most 24 bits) is correct, because 53 >= 24
    + 2 (Boldo & Melquiond, "Emulation of FMA and correctly rounded sums", IEEE TC 2008). A
    direct nearest rounding to f64 first would double-round. bf16 (held in float32) is rounded
    to odd in float32 (24 >= 8 + 2) before the caller's nearest rounding to bf16.

    >>> x = 1 + 2.0**-30
    >>> float(fused_multiply_add(x, x, -(1 + 2.0**-29), Float64Type())) == 2.0**-60
    True
    >>> a = np.float32(1 + 2.0**-12)
    >>> float(fused_multiply_add(a, a, np.float32(-(1 + 2.0**-11)), Float32Type())) == 2.0**-24
    True
    """
    if isinstance(element, Float64Type):
        args = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (a, b, c)))
        return np.asarray(_FMA_F64(*args), dtype=np.float64)
    a64, b64, c64 = (np.asarray(v, dtype=np.float64) for v in (a, b, c))
    s, e = _two_sum(a64 * b64, c64)
    finite = np.isfinite(s)
    e = np.where(finite, e, 0.0)
    odd53 = _odd_toward(np.asarray(s, dtype=np.float64), e, e != 0)
    if not isinstance(element, BFloat16Type):
        return odd53
    # bf16: round the exact s + e to odd in float32. d = s - f is exact (Sterbenz), and
    # d + e has the sign of the exact remainder, since |e| is below half an f64 ulp of s.
    f = odd53.astype(np.float32)
    d = np.where(finite, s - f.astype(np.float64), 0.0)
    remainder = d + e
    return _odd_toward(f, remainder, (remainder != 0) & finite)


def _round_half_away(x: np.ndarray) -> np.ndarray:
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t)


def _ext_signed(op: Operation, a: Any) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype == np.bool_:  # i1 true is -1 when read as signed
        return np.where(a, -1, 0)
    return a.astype(np.int64)


def _ext_unsigned(op: Operation, a: Any) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype == np.bool_:
        return a.astype(np.int64)
    return a.view(_unsigned(a.dtype)).astype(np.uint64).astype(np.int64)


def _trunc_int(op: Operation, a: Any) -> np.ndarray:
    a = np.asarray(a)
    if numpy_dtype(op.results[0].type) == np.bool_:
        return (a & 1) != 0
    return a


def _fp_to_int(op: Operation, a: Any, unsigned: bool) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    dtype = numpy_dtype(op.results[0].type)
    if np.any(~np.isfinite(a)):
        raise TLInterpretationError(op, "cannot convert NaN or infinity to an integer")
    t = np.trunc(a)
    info = np.iinfo(_unsigned(dtype) if unsigned else dtype)
    if np.any((t < info.min) | (t > info.max)):
        bad = a[(t < info.min) | (t > info.max)].flat[0]
        raise TLInterpretationError(
            op, f"value {bad} does not fit in {op.results[0].type} (conversion is undefined)"
        )
    if unsigned:
        return t.astype(_unsigned(dtype)).view(dtype) if dtype != np.bool_ else t != 0
    return t.astype(dtype)


def _bitcast(op: Operation, a: Any) -> Any:
    src = numpy_dtype(op.operands[0].type)
    dst = numpy_dtype(op.results[0].type)
    if isinstance(element_type_of(op.results[0].type), BFloat16Type) or isinstance(
        element_type_of(op.operands[0].type), BFloat16Type
    ):
        raise TLInterpretationError(op, "bitcast from/to bf16 is not supported")
    return np.asarray(a, dtype=src).view(dst)


def _select(op: Operation, c: Any, a: Any, b: Any) -> Any:
    if isinstance(a, PointerTensor | Pointer) or isinstance(b, PointerTensor | Pointer):
        return _select_pointers(op, c, a, b)
    return np.where(c, a, b)


def _select_pointers(op: Operation, c: Any, a: Any, b: Any) -> Any:
    if not (isinstance(a, PointerTensor | Pointer) and isinstance(b, PointerTensor | Pointer)):
        raise TLInterpretationError(op, "cannot select between a pointer and a non-pointer")
    if a.buffer is not b.buffer:
        raise TLInterpretationError(
            op,
            f"selecting between pointers into different buffers ('{a.buffer.name}' and "
            f"'{b.buffer.name}') is not supported",
        )
    if isinstance(a, Pointer) and isinstance(b, Pointer) and np.ndim(c) == 0:
        return a if bool(c) else b
    off_a = a.offsets if isinstance(a, PointerTensor) else a.offset
    off_b = b.offsets if isinstance(b, PointerTensor) else b.offset
    return PointerTensor(a.buffer, np.where(c, off_a, off_b).astype(np.int64))


def _clampf(op: Operation, x: Any, lo: Any, hi: Any) -> np.ndarray:
    # Triton's clampf is max then min; "all" propagates a NaN x, "none" clamps it to lo.
    if op.properties["propagateNan"].data == "all":  # type: ignore[attr-defined]
        return _minimumf(op, _maximumf(op, x, lo), hi)
    return np.fmin(np.fmax(x, lo), hi)


def _mulhi_unsigned(op: Operation, a: Any, b: Any) -> np.ndarray:
    ua, ub = _unsigned_args(op, a, b)
    bits = ua.dtype.itemsize * 8
    if bits <= 32:
        wide = ua.astype(np.uint64) * ub.astype(np.uint64)
        return (wide >> np.uint64(bits)).astype(ua.dtype)
    # 64-bit: four 32-bit partial products (numpy has no 128-bit integers).
    m32 = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    al, ah, bl, bh = ua & m32, ua >> s32, ub & m32, ub >> s32
    lo_lo, lo_hi, hi_lo, hi_hi = al * bl, al * bh, ah * bl, ah * bh
    middle = (lo_lo >> s32) + (lo_hi & m32) + (hi_lo & m32)
    return hi_hi + (lo_hi >> s32) + (hi_lo >> s32) + (middle >> s32)


# op class -> function(op, *operand values) -> raw result (converted to the result type after)
ELEMENTWISE_FUNCTIONS: dict[type[Operation], ElementwiseFn] = {
    # The numpy semantics of every elementwise op (op, *operand arrays) -> result array; the
    # SIMT interpreter applies the same functions per register.
    # float arithmetic, in the element type (IEEE)
    arith.AddfOp: lambda op, a, b: np.add(a, b),
    arith.SubfOp: lambda op, a, b: np.subtract(a, b),
    arith.MulfOp: lambda op, a, b: np.multiply(a, b),
    arith.DivfOp: lambda op, a, b: np.divide(a, b),
    arith.NegfOp: lambda op, a: np.negative(a),
    arith.MaxnumfOp: lambda op, a, b: np.fmax(a, b),
    arith.MinnumfOp: lambda op, a, b: np.fmin(a, b),
    arith.MaximumfOp: _maximumf,
    arith.MinimumfOp: _minimumf,
    # integer arithmetic, wrapping
    arith.AddiOp: lambda op, a, b: np.add(a, b),
    arith.SubiOp: lambda op, a, b: np.subtract(a, b),
    arith.MuliOp: lambda op, a, b: np.multiply(a, b),
    arith.DivSIOp: _signed_div,
    arith.DivUIOp: _unsigned_div,
    arith.RemSIOp: _signed_rem,
    arith.RemUIOp: _unsigned_rem,
    arith.FloorDivSIOp: _floor_div,
    arith.CeilDivSIOp: _ceil_div,
    arith.CeilDivUIOp: _ceil_div_unsigned,
    arith.AndIOp: lambda op, a, b: np.bitwise_and(a, b),
    arith.OrIOp: lambda op, a, b: np.bitwise_or(a, b),
    arith.XOrIOp: lambda op, a, b: np.bitwise_xor(a, b),
    arith.ShLIOp: lambda op, a, b: np.left_shift(a, b),
    arith.ShRSIOp: lambda op, a, b: np.right_shift(a, b),
    arith.ShRUIOp: _shift_unsigned_right,
    arith.MaxSIOp: lambda op, a, b: np.maximum(a, b),
    arith.MinSIOp: lambda op, a, b: np.minimum(a, b),
    arith.MaxUIOp: _max_unsigned,
    arith.MinUIOp: _min_unsigned,
    # conversions
    arith.ExtFOp: lambda op, a: np.asarray(a),
    arith.TruncFOp: lambda op, a: np.asarray(a),
    arith.ExtSIOp: _ext_signed,
    arith.ExtUIOp: _ext_unsigned,
    arith.TruncIOp: _trunc_int,
    arith.SIToFPOp: lambda op, a: _ext_signed(op, a).astype(np.float64),
    arith.UIToFPOp: lambda op, a: _ext_unsigned(op, a).astype(np.float64),
    arith.FPToSIOp: lambda op, a: _fp_to_int(op, a, unsigned=False),
    arith.FPToUIOp: lambda op, a: _fp_to_int(op, a, unsigned=True),
    arith.IndexCastOp: lambda op, a: _ext_signed(op, a),
    arith.BitcastOp: _bitcast,
    arith.SelectOp: _select,
    arith.CmpfOp: lambda op, a, b: compare_floats(
        tl.CMPF_PREDICATES[op.predicate.value.data], a, b
    ),
    arith.CmpiOp: lambda op, a, b: compare_integers(
        tl.CMPI_PREDICATES[op.predicate.value.data], a, b, numpy_dtype(op.lhs.type)
    ),
    # math: transcendental functions in float64, rounded once
    math.ExpOp: _f64(np.exp),
    math.Exp2Op: _f64(np.exp2),
    math.ExpM1Op: _f64(np.expm1),
    math.LogOp: _f64(np.log),
    math.Log2Op: _f64(np.log2),
    math.Log10Op: _f64(np.log10),
    math.Log1pOp: _f64(np.log1p),
    math.SqrtOp: _f64(np.sqrt),
    math.RsqrtOp: _f64(lambda x: 1.0 / np.sqrt(x)),
    math.CbrtOp: _f64(np.cbrt),
    math.TanhOp: _f64(np.tanh),
    math.SinOp: _f64(np.sin),
    math.CosOp: _f64(np.cos),
    math.TanOp: _f64(np.tan),
    math.SinhOp: _f64(np.sinh),
    math.CoshOp: _f64(np.cosh),
    math.AsinOp: _f64(np.arcsin),
    math.AcosOp: _f64(np.arccos),
    math.AtanOp: _f64(np.arctan),
    math.AsinhOp: _f64(np.arcsinh),
    math.AcoshOp: _f64(np.arccosh),
    math.AtanhOp: _f64(np.arctanh),
    math.Atan2Op: _f64(np.arctan2),
    math.ErfOp: _f64(np.vectorize(pymath.erf, otypes=[np.float64])),
    math.PowFOp: _f64(np.power),
    math.FmaOp: lambda op, a, b, c: fused_multiply_add(a, b, c, element_type_of(op.result.type)),
    math.AbsFOp: lambda op, a: np.abs(a),
    math.AbsIOp: lambda op, a: np.abs(a),
    math.CopySignOp: lambda op, a, b: np.copysign(a, b),
    math.FloorOp: lambda op, a: np.floor(a),
    math.CeilOp: lambda op, a: np.ceil(a),
    math.TruncOp: lambda op, a: np.trunc(a),
    math.RoundOp: lambda op, a: _round_half_away(np.asarray(a)),
    math.RoundEvenOp: lambda op, a: np.rint(a),
    # tl versions of the ops xDSL's arith only accepts on scalars
    tl.CmpfOp: lambda op, a, b: compare_floats(op.predicate.data, a, b),
    tl.CmpiOp: lambda op, a, b: compare_integers(op.predicate.data, a, b, numpy_dtype(op.lhs.type)),
    tl.SelectOp: _select,
    tl.SIToFPOp: lambda op, a: _ext_signed(op, a).astype(np.float64),
    tl.UIToFPOp: lambda op, a: _ext_unsigned(op, a).astype(np.float64),
    tl.FPToSIOp: lambda op, a: _fp_to_int(op, a, unsigned=False),
    tl.FPToUIOp: lambda op, a: _fp_to_int(op, a, unsigned=True),
    tl.ExtSIOp: _ext_signed,
    tl.ExtUIOp: _ext_unsigned,
    tl.TruncIOp: _trunc_int,
    tl.ClampFOp: _clampf,
    tl.MulhiUIOp: _mulhi_unsigned,
    tl.PreciseSqrtOp: lambda op, a: np.sqrt(a),
    tl.PreciseDivFOp: lambda op, a, b: np.divide(a, b),
    # the tensor level divides exactly: div.full.f32's 2 ulp are the hardware's, not the op's
    tl.ApproxDivFOp: lambda op, a, b: np.divide(a, b),
}


def _elementwise_impl(op_type: type[Operation], fn: ElementwiseFn) -> Any:
    def run(
        self: InterpreterFunctions, interpreter: Interpreter, op: Operation, args: PythonValues
    ) -> PythonValues:
        with np.errstate(all="ignore"):
            raw = fn(op, *args)
            if isinstance(raw, PointerTensor | Pointer):
                return (raw,)
            return (_result(op, raw),)

    run.__name__ = f"run_{op_type.name.replace('.', '_')}"
    run.__doc__ = f"Interpret ``{op_type.name}`` elementwise on numpy values."
    return impl(op_type)(run)


def _constant_value(attr: Attribute, typ: Attribute) -> Any:
    if isinstance(attr, DenseIntOrFPElementsAttr):
        values = np.asarray(attr.get_values())
        return to_value(values.reshape(attr.get_shape()), typ)
    if isinstance(attr, FloatAttr | IntegerAttr):
        return to_value(attr.value.data, typ)
    raise InterpretationError(f"unsupported constant {attr}")


class _ElementwiseBase(InterpreterFunctions):
    """arith/math/tl elementwise ops (generated from a table) and ``arith.constant``."""

    @impl(arith.ConstantOp)
    def run_arith_constant(
        self, interpreter: Interpreter, op: arith.ConstantOp, args: PythonValues
    ) -> PythonValues:
        return (_constant_value(op.value, op.result.type),)


ElementwiseFunctions = register_impls(
    type(
        "ElementwiseFunctions",
        (_ElementwiseBase,),
        {
            "__doc__": "Numpy implementations of the arith, math and tl elementwise ops.",
            **{
                f"run_{cls.name.replace('.', '_')}": _elementwise_impl(cls, fn)
                for cls, fn in ELEMENTWISE_FUNCTIONS.items()
            },
        },
    )
)
"""Interpreter functions for arith/math (scalars and tensors) and the tl elementwise ops."""


# --------------------------------------------------------------------------------------
# tl ops
# --------------------------------------------------------------------------------------


def _structural(value: Any, fn: Callable[[np.ndarray], np.ndarray]) -> Any:
    """Apply a data-movement function to a tensor, or to the offsets of a pointer tensor."""
    if isinstance(value, PointerTensor):
        return PointerTensor(value.buffer, fn(value.offsets))
    return fn(np.asarray(value))


def _check_pointee(op: Operation, buffer: Buffer, ptr_type: Attribute) -> None:
    element = element_type_of(ptr_type)
    assert isinstance(element, PointerType)
    expected = numpy_dtype(element.pointee)
    if buffer.data.dtype != expected:
        raise TLInterpretationError(
            op,
            f"buffer '{buffer.name}' holds {buffer.data.dtype} but the pointer type is "
            f"{element} ({expected})",
        )


def _active_offsets(
    op: Operation, ptr: Pointer | PointerTensor, mask: Any, verb: str
) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, active mask) with every active offset checked against the buffer bounds."""
    if isinstance(ptr, Pointer):
        offsets = np.asarray(ptr.offset, dtype=np.int64)
    elif isinstance(ptr, PointerTensor):
        offsets = ptr.offsets
    else:
        raise TLInterpretationError(op, f"expected a pointer value, got {type(ptr).__name__}")
    active = np.ones(offsets.shape, bool) if mask is None else np.broadcast_to(mask, offsets.shape)
    size = ptr.buffer.size
    bad = active & ((offsets < 0) | (offsets >= size))
    if np.any(bad):
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        lane = f" (element {list(index)} of the pointer tensor)" if index else ""
        count = int(np.count_nonzero(bad))
        more = f"; {count} lanes are out of bounds" if count > 1 else ""
        hint = "" if mask is not None else " Use a mask to skip out-of-bounds lanes."
        raise TLInterpretationError(
            op,
            f"out-of-bounds {verb} at offset {int(offsets[index])}{lane} of buffer "
            f"'{ptr.buffer.name}' with {size} elements{more}.{hint}",
        )
    return offsets, active


def is_elementwise_region(region: Region) -> bool:
    """Whether ``region`` is one block of elementwise ops (and constants) and its terminator.

    Such a region, written for scalars, gives the same result run once on whole arrays as run
    on each element; any other region (``scf.if``, loops, calls, ...) must run per element.

    >>> from xdsl.ir import Block
    >>> from xdsl.dialects.builtin import f32
    >>> block = Block(arg_types=[f32, f32])
    >>> add = arith.AddfOp(block.args[0], block.args[1])
    >>> block.add_ops([add, tl.ReduceReturnOp(add.result)])
    >>> is_elementwise_region(Region(block))
    True
    """
    if len(region.blocks) != 1:
        return False
    block = region.blocks[0]
    last = block.last_op
    return all(
        type(inner) in ELEMENTWISE_FUNCTIONS or isinstance(inner, arith.ConstantOp) or inner is last
        for inner in block.ops
    )


def _region_per_element(
    interpreter: Interpreter,
    region: Region,
    arrays: list[np.ndarray],
    dtypes: list[Any],
    name: str,
) -> list[np.ndarray]:
    """Run a region written for scalars once per element of ``arrays`` (its arguments, one
    array each, all of one shape): exact scalar semantics, control flow included. Returns one
    array of each of ``dtypes`` (what the region returns)."""
    shape = arrays[0].shape
    outs = [np.empty(shape, dtype=d) for d in dtypes]
    for index in np.ndindex(shape):
        values = interpreter.run_ssacfg_region(region, tuple(a[index] for a in arrays), name)
        for out, value in zip(outs, values, strict=True):
            out[index] = value
    return outs


def _combine_per_element(
    interpreter: Interpreter, op: tl.ReduceOp, lhs: list[np.ndarray], rhs: list[np.ndarray]
) -> list[np.ndarray]:
    """Run the scalar combine region once per element (exact scalar semantics)."""
    return _region_per_element(
        interpreter, op.combine, [*lhs, *rhs], [a.dtype for a in lhs], "tl.reduce"
    )


def _reduce_pairwise(
    interpreter: Interpreter, op: tl.ReduceOp, arrays: list[np.ndarray]
) -> list[np.ndarray]:
    """Combine along axis 0 with a balanced tree: ((x0 c x1) c (x2 c x3)) ...

    A straight-line elementwise combine region runs once on whole slabs (fast); any other
    region runs once per element, so control flow sees scalars as it was written for.
    """
    vectorized = is_elementwise_region(op.combine)
    n = arrays[0].shape[0]
    while n > 1:
        half = n // 2
        lhs = [a[0 : 2 * half : 2] for a in arrays]
        rhs = [a[1 : 2 * half : 2] for a in arrays]
        if vectorized:
            combined = interpreter.run_ssacfg_region(op.combine, (*lhs, *rhs), "tl.reduce")
        else:
            combined = _combine_per_element(interpreter, op, lhs, rhs)
        out: list[np.ndarray] = []
        for c, a in zip(combined, arrays, strict=True):
            c = np.broadcast_to(np.asarray(c, dtype=a.dtype), lhs[0].shape[:1] + a.shape[1:])
            if n % 2:
                c = np.concatenate([c, a[n - 1 : n]])
            out.append(c)
        arrays = out
        n = half + n % 2
    return [a[0] for a in arrays]


def _program_data(interpreter: Interpreter) -> dict[str, tuple[int, int, int]]:
    return interpreter.get_data(
        TLFunctions, "grid", lambda: {"program_id": (0, 0, 0), "num_programs": (1, 1, 1)}
    )


def set_grid(
    interpreter: Interpreter, program_id: Sequence[int], num_programs: Sequence[int]
) -> None:
    """Set what ``tl.get_program_id`` / ``tl.get_num_programs`` return (x, y, z)."""
    pid = (*program_id, 0, 0, 0)[:3]
    grid = (*num_programs, 1, 1, 1)[:3]
    interpreter.set_data(TLFunctions, "grid", {"program_id": pid, "num_programs": grid})


@register_impls
class TLFunctions(InterpreterFunctions):
    """Numpy implementations of the non-elementwise tl ops."""

    @impl(tl.ConstantOp)
    def run_constant(
        self, interpreter: Interpreter, op: tl.ConstantOp, args: PythonValues
    ) -> PythonValues:
        return (_constant_value(op.value, op.result.type),)

    @impl(tl.MakeRangeOp)
    def run_make_range(
        self, interpreter: Interpreter, op: tl.MakeRangeOp, args: PythonValues
    ) -> PythonValues:
        return (np.arange(op.start.value.data, op.end.value.data, dtype=np.int32),)

    @impl(tl.SplatOp)
    def run_splat(
        self, interpreter: Interpreter, op: tl.SplatOp, args: PythonValues
    ) -> PythonValues:
        (value,) = args
        shape = shape_of(op.result.type)
        if isinstance(value, Pointer):
            return (PointerTensor(value.buffer, np.full(shape, value.offset, np.int64)),)
        return (_result(op, np.full(shape, value)),)

    @impl(tl.BroadcastOp)
    def run_broadcast(
        self, interpreter: Interpreter, op: tl.BroadcastOp, args: PythonValues
    ) -> PythonValues:
        shape = shape_of(op.result.type)
        return (_structural(args[0], lambda a: np.broadcast_to(a, shape)),)

    @impl(tl.ExpandDimsOp)
    def run_expand_dims(
        self, interpreter: Interpreter, op: tl.ExpandDimsOp, args: PythonValues
    ) -> PythonValues:
        axis = op.axis.value.data
        return (_structural(args[0], lambda a: np.expand_dims(a, axis)),)

    @impl(tl.ReshapeOp)
    def run_reshape(
        self, interpreter: Interpreter, op: tl.ReshapeOp, args: PythonValues
    ) -> PythonValues:
        shape = shape_of(op.result.type)
        return (_structural(args[0], lambda a: np.reshape(a, shape)),)

    @impl(tl.TransOp)
    def run_trans(
        self, interpreter: Interpreter, op: tl.TransOp, args: PythonValues
    ) -> PythonValues:
        order = op.permutation
        return (_structural(args[0], lambda a: np.transpose(a, order)),)

    @impl(tl.ConvertLayoutOp)
    def run_convert_layout(
        self, interpreter: Interpreter, op: tl.ConvertLayoutOp, args: PythonValues
    ) -> PythonValues:
        return args  # layouts never change values

    @impl(tl.AddPtrOp)
    def run_addptr(
        self, interpreter: Interpreter, op: tl.AddPtrOp, args: PythonValues
    ) -> PythonValues:
        ptr, offset = args
        if isinstance(ptr, Pointer):
            return (Pointer(ptr.buffer, ptr.offset + int(offset)),)
        if isinstance(ptr, PointerTensor):
            return (PointerTensor(ptr.buffer, ptr.offsets + np.asarray(offset, np.int64)),)
        raise TLInterpretationError(op, f"expected a pointer value, got {type(ptr).__name__}")

    @impl(tl.LoadOp)
    def run_load(self, interpreter: Interpreter, op: tl.LoadOp, args: PythonValues) -> PythonValues:
        ptr = args[0]
        mask = args[1] if op.mask is not None else None
        other = args[2] if op.other is not None else None
        if not isinstance(ptr, Pointer | PointerTensor):
            raise TLInterpretationError(op, f"expected a pointer value, got {type(ptr).__name__}")
        _check_pointee(op, ptr.buffer, op.ptr.type)
        offsets, active = _active_offsets(op, ptr, mask, "load")
        data = ptr.buffer.data
        values = data[np.where(active, offsets, 0)] if data.size else np.zeros(offsets.shape)
        fill = 0 if other is None else other
        return (_result(op, np.where(active, values, fill)),)

    @impl(tl.StoreOp)
    def run_store(
        self, interpreter: Interpreter, op: tl.StoreOp, args: PythonValues
    ) -> PythonValues:
        ptr, value = args[0], args[1]
        mask = args[2] if op.mask is not None else None
        if not isinstance(ptr, Pointer | PointerTensor):
            raise TLInterpretationError(op, f"expected a pointer value, got {type(ptr).__name__}")
        _check_pointee(op, ptr.buffer, op.ptr.type)
        offsets, active = _active_offsets(op, ptr, mask, "store")
        values = np.broadcast_to(np.asarray(value, ptr.buffer.data.dtype), offsets.shape)
        ptr.buffer.data[offsets[active]] = values[active]
        return ()

    @impl(tl.ReduceOp)
    def run_reduce(
        self, interpreter: Interpreter, op: tl.ReduceOp, args: PythonValues
    ) -> PythonValues:
        axis = op.axis.value.data
        arrays = [np.moveaxis(np.asarray(a), axis, 0) for a in args]
        if arrays[0].shape[0] == 0:
            raise TLInterpretationError(op, "cannot reduce an empty axis")
        combined = _reduce_pairwise(interpreter, op, arrays)
        return tuple(_result(op, c, i) for i, c in enumerate(combined))

    @impl_terminator(tl.ReduceReturnOp)
    def run_reduce_return(
        self, interpreter: Interpreter, op: tl.ReduceReturnOp, args: PythonValues
    ) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(args), ()

    @impl(tl.DotOp)
    def run_dot(self, interpreter: Interpreter, op: tl.DotOp, args: PythonValues) -> PythonValues:
        a, b, acc = (np.asarray(x) for x in args)
        # Mixed precision: the integer operand is converted (rounded) to the float operand's type.
        if not _is_float(op.a.type) and _is_float(op.b.type):
            a = to_value(a, op.b.type.element_type)
        elif _is_float(op.a.type) and not _is_float(op.b.type):
            b = to_value(b, op.a.type.element_type)
        wide = np.float64 if _is_float(op.result.type) else np.int64
        with np.errstate(all="ignore"):
            out = np.matmul(a.astype(wide), b.astype(wide)) + acc.astype(wide)
        return (_result(op, out),)

    @impl(tl.GetProgramIdOp)
    def run_get_program_id(
        self, interpreter: Interpreter, op: tl.GetProgramIdOp, args: PythonValues
    ) -> PythonValues:
        return (np.int32(_program_data(interpreter)["program_id"][op.axis.value.data]),)

    @impl(tl.GetNumProgramsOp)
    def run_get_num_programs(
        self, interpreter: Interpreter, op: tl.GetNumProgramsOp, args: PythonValues
    ) -> PythonValues:
        return (np.int32(_program_data(interpreter)["num_programs"][op.axis.value.data]),)

    @impl(tl.LocalAllocOp)
    def run_local_alloc(
        self, interpreter: Interpreter, op: tl.LocalAllocOp, args: PythonValues
    ) -> PythonValues:
        typ = op.result.type
        if args:
            return (SharedMemory(np.array(args[0], copy=True)),)
        dtype = numpy_dtype(typ.element_type)
        # Uninitialised memory: NaN for floats makes reads before writes visible.
        fill = np.nan if np.issubdtype(dtype, np.floating) else 0
        return (SharedMemory(np.full(typ.get_shape(), fill, dtype)),)

    @impl(tl.LocalLoadOp)
    def run_local_load(
        self, interpreter: Interpreter, op: tl.LocalLoadOp, args: PythonValues
    ) -> PythonValues:
        mem = _live_memory(op, args[0])
        _check_no_copy_in_flight(self, op, mem, "reads")
        return (mem.data.copy(),)

    @impl(tl.LocalStoreOp)
    def run_local_store(
        self, interpreter: Interpreter, op: tl.LocalStoreOp, args: PythonValues
    ) -> PythonValues:
        value, mem = args
        _check_no_copy_in_flight(self, op, _live_memory(op, mem), "writes")
        _live_memory(op, mem).data[...] = value
        return ()

    @impl(tl.LocalDeallocOp)
    def run_local_dealloc(
        self, interpreter: Interpreter, op: tl.LocalDeallocOp, args: PythonValues
    ) -> PythonValues:
        _live_memory(op, args[0]).freed = True
        return ()

    @impl(tl.MemDescIndexOp)
    def run_memdesc_index(
        self, interpreter: Interpreter, op: tl.MemDescIndexOp, args: PythonValues
    ) -> PythonValues:
        mem, index = _live_memory(op, args[0]), int(args[1])
        if not 0 <= index < mem.data.shape[0]:
            raise TLInterpretationError(
                op, f"buffer index {index} is out of range [0, {mem.data.shape[0]})"
            )
        return (SharedMemory(mem.data[index]),)  # a numpy view: writes reach the allocation

    @impl(tl.MemDescSubsliceOp)
    def run_memdesc_subslice(
        self, interpreter: Interpreter, op: tl.MemDescSubsliceOp, args: PythonValues
    ) -> PythonValues:
        mem = _live_memory(op, args[0])
        window = tuple(
            slice(o, o + d)
            for o, d in zip(op.get_offsets(), op.result.type.get_shape(), strict=True)
        )
        return (SharedMemory(mem.data[window]),)  # a numpy view: writes reach the allocation

    # Asynchronous copies: each copy reads global memory when it starts (nothing writes it
    # meanwhile in a kernel that pipelines loads) and lands at the tl.async_wait that retires
    # its group; a local_load or local_store of a buffer a copy still writes is an error.
    @impl(tl.AsyncCopyGlobalToLocalOp)
    def run_async_copy(
        self, interpreter: Interpreter, op: tl.AsyncCopyGlobalToLocalOp, args: PythonValues
    ) -> PythonValues:
        ptr, mem = args[0], _live_memory(op, args[1])
        _check_no_copy_in_flight(self, op, mem, "starts a copy into")
        mask = args[2] if op.mask is not None else None
        other = args[3] if op.other is not None else None
        if not isinstance(ptr, PointerTensor):
            raise TLInterpretationError(op, f"expected a pointer tensor, got {type(ptr).__name__}")
        _check_pointee(op, ptr.buffer, op.ptr.type)
        offsets, active = _active_offsets(op, ptr, mask, "load")
        data = ptr.buffer.data
        values = data[np.where(active, offsets, 0)] if data.size else np.zeros(offsets.shape)
        fill = 0 if other is None else other
        landed = np.where(active, values, fill).astype(mem.data.dtype)
        _async_state(self).open.append(_Copy(op, mem, landed))
        return _tokens(op)

    @impl(tl.AsyncCommitGroupOp)
    def run_async_commit(
        self, interpreter: Interpreter, op: tl.AsyncCommitGroupOp, args: PythonValues
    ) -> PythonValues:
        state = _async_state(self)
        state.groups.append(state.open)
        state.open = []
        return _tokens(op)

    @impl(tl.AsyncWaitOp)
    def run_async_wait(
        self, interpreter: Interpreter, op: tl.AsyncWaitOp, args: PythonValues
    ) -> PythonValues:
        state = _async_state(self)
        keep = op.num.value.data
        retired = state.groups[: max(0, len(state.groups) - keep)]
        state.groups = state.groups[len(retired) :]
        for group in retired:
            for copy in group:
                copy.mem.data[...] = copy.values
        return _tokens(op)

    @impl(tl.WarpGroupDotOp)
    def run_warp_group_dot(
        self, interpreter: Interpreter, op: tl.WarpGroupDotOp, args: PythonValues
    ) -> PythonValues:
        a, b = (
            _live_memory(op, x).data if isinstance(x, SharedMemory) else np.asarray(x)
            for x in args[:2]
        )
        acc = np.asarray(args[2])
        if len(args) > 3 and not bool(args[3]):  # useC false: the accumulator is not added
            acc = np.zeros_like(acc)
        wide = np.float64 if _is_float(op.result.type) else np.int64
        with np.errstate(all="ignore"):
            out = np.matmul(a.astype(wide), b.astype(wide)) + acc.astype(wide)
        return (_result(op, out),)

    @impl(tl.WarpGroupDotWaitOp)
    def run_warp_group_dot_wait(
        self, interpreter: Interpreter, op: tl.WarpGroupDotWaitOp, args: PythonValues
    ) -> PythonValues:
        # The product is computed eagerly by run_warp_group_dot: waiting returns the values.
        return tuple(args)

    @impl(tl.FenceAsyncSharedOp)
    def run_fence_async_shared(
        self, interpreter: Interpreter, op: tl.FenceAsyncSharedOp, args: PythonValues
    ) -> PythonValues:
        return ()


# --------------------------------------------------------------------------------------
# Atomics, cat/join/split, casts, histogram, gather, print, assert
# --------------------------------------------------------------------------------------


def to_bits(op: Operation, value: Any, typ: Attribute) -> np.ndarray:
    """The bit patterns (unsigned ints) of the elements of ``value`` of element type ``typ``
    (``op`` locates the error for a pointer).

    >>> from xdsl.dialects.builtin import f16
    >>> to_bits(None, np.array([1.0, -2.0], np.float16), f16).tolist()  # type: ignore[arg-type]
    [15360, 49152]
    """
    element = element_type_of(typ)
    arr = np.asarray(value)
    if isinstance(element, BFloat16Type):
        return (arr.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    if isinstance(element, IntegerType) and element.width.data == 1:
        return arr.astype(np.uint8)
    if isinstance(element, PointerType):
        raise TLInterpretationError(op, "cannot take the bits of a pointer value")
    dtype = numpy_dtype(element)
    return arr.astype(dtype).view(_unsigned(dtype))


def _from_bits(bits: np.ndarray, typ: Attribute) -> np.ndarray:
    element = element_type_of(typ)
    if isinstance(element, BFloat16Type):
        return (bits.astype(np.uint32) << 16).view(np.float32)
    dtype = numpy_dtype(element)
    if dtype == np.bool_:
        return bits != 0
    return bits.astype(_unsigned(dtype)).view(dtype)


def _retyped_buffer(buffer: Buffer, dtype: np.dtype) -> Buffer:
    """``buffer`` seen with another element type of the same size (shares the memory)."""
    view = Buffer.__new__(Buffer)
    view.name, view.data, view.shape = buffer.name, buffer.data.view(dtype), buffer.shape
    return view


def _round_toward_zero(exact: np.ndarray, rounded: np.ndarray) -> np.ndarray:
    """``rounded`` (nearest, in a narrower float dtype) moved one step toward zero where
    rounding went away from zero."""
    wide = rounded.astype(np.float64)
    away = np.isfinite(exact) & (np.abs(wide) > np.abs(exact))
    stepped = np.nextafter(rounded, np.zeros_like(rounded))
    # An exact value beyond the largest finite number rounds to it, not to infinity.
    return np.where(away, stepped, rounded)


def _f8_toward_zero(exact: np.ndarray, dst: Attribute) -> np.ndarray:
    """``exact`` rounded toward zero to an 8-bit float: the nearest code, one code toward zero
    where it rounded away (overflow included: infinity, or e4m3fn's NaN, becomes the largest
    finite value); NaN and infinities stay what rounding to nearest gives.

    >>> from xdsl.dialects.builtin import Float8E4M3FNType
    >>> _f8_toward_zero(np.array([1.1, -1.1, 500.0, np.inf]), Float8E4M3FNType()).tolist()
    [1.0, -1.0, 448.0, nan]
    """
    from llc.mxfp import decode, encode

    fmt = "e4m3fn" if isinstance(dst, Float8E4M3FNType) else "e5m2"
    codes = encode(exact, fmt)
    nearest = decode(codes, fmt)
    with np.errstate(invalid="ignore"):
        away = np.isfinite(exact) & ((np.abs(nearest) > np.abs(exact)) | np.isnan(nearest))
    return decode(np.where(away, codes - 1, codes), fmt)


_RMW_FUNCTIONS: dict[str, Callable[[Any, Any], Any]] = {
    "add": lambda old, val: old + val,
    "fadd": lambda old, val: old + val,
    "and": lambda old, val: old & val,
    "or": lambda old, val: old | val,
    "xor": lambda old, val: old ^ val,
    "max": lambda old, val: max(old, val),
    "min": lambda old, val: min(old, val),
    "exch": lambda old, val: val,
}


def _unsigned_rmw(kind: str) -> Callable[[Any, Any], Any]:
    pick = max if kind == "umax" else min

    def apply(old: Any, val: Any) -> Any:
        width = old.dtype.itemsize * 8
        as_unsigned = (int(old) % (1 << width), int(val) % (1 << width))
        return val if pick(as_unsigned) == as_unsigned[1] else old

    return apply


def _atomic(
    op: Operation,
    ptr: Any,
    mask: Any,
    update: Callable[[Any, Any, int], Any],
    result_type: Attribute,
) -> Any:
    """Apply ``update(old, element index) -> new`` to every active element, one at a time in
    element order (a valid serialization of the atomics); the old values (0 where inactive)."""
    if not isinstance(ptr, Pointer | PointerTensor):
        raise TLInterpretationError(op, f"expected a pointer value, got {type(ptr).__name__}")
    _check_pointee(op, ptr.buffer, op.operands[0].type)
    offsets, active = _active_offsets(op, ptr, mask, "update")
    flat_offsets, flat_active = offsets.reshape(-1), np.asarray(active).reshape(-1)
    data = ptr.buffer.data
    old = np.zeros(flat_offsets.shape, data.dtype)
    with np.errstate(all="ignore"):
        for i in np.flatnonzero(flat_active):
            off = flat_offsets[i]
            old[i] = data[off]
            data[off] = update(data[off], i)
    return _result(op, old.reshape(offsets.shape), 0) if offsets.shape else _result(op, old[0])


def _elements(value: Any, size: int, dtype: np.dtype) -> np.ndarray:
    return np.broadcast_to(np.asarray(value, dtype), (size,)).reshape(-1) if size else np.zeros(0)


@register_impls
class TLExtraFunctions(InterpreterFunctions):
    """Interpreter semantics of the ops real Triton kernels use beyond the tutorials."""

    @impl(tl.AtomicRMWOp)
    def run_atomic_rmw(
        self, interpreter: Interpreter, op: tl.AtomicRMWOp, args: PythonValues
    ) -> PythonValues:
        ptr, val = args[0], args[1]
        mask = args[2] if op.mask is not None else None
        kind = op.atomic_rmw_op.data
        fn = _unsigned_rmw(kind) if kind in ("umax", "umin") else _RMW_FUNCTIONS[kind]
        size = int(np.prod(shape_of(op.ptr.type), dtype=np.int64))
        vals = (
            _elements(val, max(size, 1), ptr.buffer.data.dtype)
            if isinstance(ptr, Pointer | PointerTensor)
            else np.asarray(val)
        )
        dtype = ptr.buffer.data.dtype if isinstance(ptr, Pointer | PointerTensor) else None
        return (
            _atomic(op, ptr, mask, lambda old, i: dtype.type(fn(old, vals[i])), op.result.type),
        )

    @impl(tl.AtomicCASOp)
    def run_atomic_cas(
        self, interpreter: Interpreter, op: tl.AtomicCASOp, args: PythonValues
    ) -> PythonValues:
        ptr, cmp, val = args
        if not isinstance(ptr, Pointer | PointerTensor):
            raise TLInterpretationError(op, f"expected a pointer value, got {type(ptr).__name__}")
        size = max(int(np.prod(shape_of(op.ptr.type), dtype=np.int64)), 1)
        dtype = ptr.buffer.data.dtype
        cmps, vals = _elements(cmp, size, dtype), _elements(val, size, dtype)
        return (
            _atomic(
                op, ptr, None, lambda old, i: vals[i] if old == cmps[i] else old, op.result.type
            ),
        )

    @impl(tl.CatOp)
    def run_cat(self, interpreter: Interpreter, op: tl.CatOp, args: PythonValues) -> PythonValues:
        return (_result(op, np.concatenate([np.asarray(a) for a in args], axis=0)),)

    @impl(tl.JoinOp)
    def run_join(self, interpreter: Interpreter, op: tl.JoinOp, args: PythonValues) -> PythonValues:
        return (_result(op, np.stack([np.asarray(a) for a in args], axis=-1)),)

    @impl(tl.SplitOp)
    def run_split(
        self, interpreter: Interpreter, op: tl.SplitOp, args: PythonValues
    ) -> PythonValues:
        arr = np.asarray(args[0])
        return (_result(op, arr[..., 0], 0), _result(op, arr[..., 1], 1))

    @impl(tl.BitcastOp)
    def run_bitcast(
        self, interpreter: Interpreter, op: tl.BitcastOp, args: PythonValues
    ) -> PythonValues:
        value = args[0]
        dst = element_type_of(op.result.type)
        if isinstance(dst, PointerType):
            dtype = numpy_dtype(dst.pointee)
            if isinstance(value, Pointer):
                return (Pointer(_retyped_buffer(value.buffer, dtype), value.offset),)
            if isinstance(value, PointerTensor):
                return (PointerTensor(_retyped_buffer(value.buffer, dtype), value.offsets),)
            raise TLInterpretationError(op, f"expected a pointer, got {type(value).__name__}")
        bits = to_bits(op, value, op.src.type)
        return (_result(op, _from_bits(bits, op.result.type)),)

    @impl(tl.FpToFpOp)
    def run_fp_to_fp(
        self, interpreter: Interpreter, op: tl.FpToFpOp, args: PythonValues
    ) -> PythonValues:
        exact = np.asarray(args[0], np.float64)
        nearest = _result(op, exact)
        if op.rounding is None or op.rounding.data == "rtne":
            return (nearest,)
        dst = element_type_of(op.result.type)
        if isinstance(dst, BFloat16Type):  # truncate the low 16 bits of the float32
            truncated = exact.astype(np.float32).view(np.uint32) & np.uint32(0xFFFF0000)
            return (_result(op, np.where(np.isnan(exact), exact, truncated.view(np.float32))),)
        if isinstance(dst, Float8E4M3FNType | Float8E5M2Type):
            return (_result(op, _f8_toward_zero(exact, dst)),)
        return (_result(op, _round_toward_zero(exact, np.asarray(nearest))),)

    @impl(tl.HistogramOp)
    def run_histogram(
        self, interpreter: Interpreter, op: tl.HistogramOp, args: PythonValues
    ) -> PythonValues:
        values = np.asarray(args[0]).astype(np.int64)
        bins = shape_of(op.result.type)[0]
        inside = values[(values >= 0) & (values < bins)]
        return (_result(op, np.bincount(inside, minlength=bins)[:bins]),)

    @impl(tl.GatherOp)
    def run_gather(
        self, interpreter: Interpreter, op: tl.GatherOp, args: PythonValues
    ) -> PythonValues:
        src, idx = np.asarray(args[0]), np.asarray(args[1]).astype(np.int64)
        axis = op.axis.value.data
        size = src.shape[axis]
        bad = (idx < 0) | (idx >= size)
        if bad.any():
            first = tuple(int(i) for i in np.argwhere(bad)[0])
            raise TLInterpretationError(
                op, f"index {int(idx[first])} at {list(first)} is out of range [0, {size})"
            )
        return (_result(op, np.take_along_axis(src, idx, axis)),)

    @impl(tl.ScanOp)
    def run_scan(self, interpreter: Interpreter, op: tl.ScanOp, args: PythonValues) -> PythonValues:
        axis = op.axis.value.data
        arrays = [np.moveaxis(np.array(a, copy=True), axis, 0) for a in args]
        order = range(arrays[0].shape[0])
        if op.reverse.value.data:
            order = reversed(order)  # type: ignore[assignment]
        vectorized = is_elementwise_region(op.combine)
        acc: list[np.ndarray] | None = None
        for i in order:
            row = [a[i] for a in arrays]
            if acc is not None:
                if vectorized:
                    combined = interpreter.run_ssacfg_region(op.combine, (*acc, *row), op.name)
                else:
                    combined = _combine_per_element(interpreter, op, acc, row)  # type: ignore[arg-type]
                row = [
                    np.broadcast_to(np.asarray(c, dtype=a.dtype), r.shape)
                    for c, a, r in zip(combined, arrays, row, strict=True)
                ]
            for a, r in zip(arrays, row, strict=True):
                a[i] = r
            acc = [np.asarray(a[i]) for a in arrays]
        return tuple(_result(op, np.moveaxis(a, 0, axis), i) for i, a in enumerate(arrays))

    @impl_terminator(tl.ScanReturnOp)
    def run_scan_return(
        self, interpreter: Interpreter, op: tl.ScanReturnOp, args: PythonValues
    ) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(args), ()

    @impl(tl.MemDescTransOp)
    def run_memdesc_trans(
        self, interpreter: Interpreter, op: tl.MemDescTransOp, args: PythonValues
    ) -> PythonValues:
        # A view: stores through it reach the buffer (numpy's transpose shares the data).
        return (SharedMemory(_live_memory(op, args[0]).data.transpose(op.permutation)),)

    @impl(tl.ElementwiseInlineAsmOp)
    def run_inline_asm(
        self, interpreter: Interpreter, op: tl.ElementwiseInlineAsmOp, args: PythonValues
    ) -> PythonValues:
        from llc.dialects.inline_ptx import asm_elementwise

        pack = op.packed_element.value.data
        if pack != 1:  # which elements share a call follows the registers of the layout
            raise TLInterpretationError(op, f"pack = {pack} is not interpretable")
        try:
            dtypes = [numpy_dtype(element_type_of(v.type)) for v in (*op.args, *op.results_)]
            outs = asm_elementwise(
                op.asm_string.data, op.constraints.data, [np.asarray(a) for a in args], dtypes, 1
            )
        except ValueError as err:
            raise TLInterpretationError(op, f"is not interpretable: {err}") from None
        return tuple(_result(op, o, i) for i, o in enumerate(outs))

    @impl(tl.MapElementwiseOp)
    def run_map_elementwise(
        self, interpreter: Interpreter, op: tl.MapElementwiseOp, args: PythonValues
    ) -> PythonValues:
        if op.pack_size != 1:
            # Which elements share a call follows the registers of the layout, not the tensor.
            raise TLInterpretationError(op, f"pack = {op.pack_size} is not interpretable")
        arrays = [np.asarray(a) for a in args]
        if is_elementwise_region(op.body):
            outs = interpreter.run_ssacfg_region(op.body, tuple(arrays), op.name)
        else:
            dtypes = [numpy_dtype(element_type_of(r.type)) for r in op.results]
            outs = _region_per_element(interpreter, op.body, arrays, dtypes, op.name)
        return tuple(
            _result(op, np.broadcast_to(np.asarray(v), arrays[0].shape), i)
            for i, v in enumerate(outs)
        )

    @impl_terminator(tl.MapElementwiseReturnOp)
    def run_map_elementwise_return(
        self, interpreter: Interpreter, op: tl.MapElementwiseReturnOp, args: PythonValues
    ) -> tuple[ReturnedValues, PythonValues]:
        return ReturnedValues(args), ()

    @impl(tl.ExternElementwiseOp)
    def run_extern_elementwise(
        self, interpreter: Interpreter, op: tl.ExternElementwiseOp, args: PythonValues
    ) -> PythonValues:
        from llc.passes.lower_extern import libdevice_op

        cls = libdevice_op(op.symbol.data)  # the libdevice functions llc maps to math ops
        if cls is None:
            raise TLInterpretationError(
                op, f"is not interpretable: llc does not run {op.libname.data}'s {op.symbol.data}"
            )
        with np.errstate(all="ignore"):
            return (_result(op, ELEMENTWISE_FUNCTIONS[cls](op, *args)),)

    @impl(tl.DescriptorLoadOp)
    def run_descriptor_load(
        self, interpreter: Interpreter, op: tl.DescriptorLoadOp, args: PythonValues
    ) -> PythonValues:
        raise TLInterpretationError(op, "is not interpretable: llc has no TMA descriptors")

    @impl(tl.DescriptorStoreOp)
    def run_descriptor_store(
        self, interpreter: Interpreter, op: tl.DescriptorStoreOp, args: PythonValues
    ) -> PythonValues:
        raise TLInterpretationError(op, "is not interpretable: llc has no TMA descriptors")

    @impl(tl.Fp4ToFpOp)
    def run_fp4_to_fp(
        self, interpreter: Interpreter, op: tl.Fp4ToFpOp, args: PythonValues
    ) -> PythonValues:
        from llc.mxfp import decode, unpack_fp4

        return (_result(op, decode(unpack_fp4(np.asarray(args[0]), op.axis.value.data), "e2m1")),)

    @impl(tl.DotScaledOp)
    def run_dot_scaled(
        self, interpreter: Interpreter, op: tl.DotScaledOp, args: PythonValues
    ) -> PythonValues:
        values = iter(np.asarray(x) for x in args)
        slots = [
            None if v is None else next(values)
            for v in (op.a, op.a_scale, op.b, op.b_scale, op.acc)
        ]
        a, a_scale, b, b_scale, acc = slots
        a_val = _mx_operand(a, a_scale, op.lhs.data, k_axis=1)
        b_val = _mx_operand(b, None if b_scale is None else b_scale.T, op.rhs.data, k_axis=0)
        with np.errstate(all="ignore"):
            out = a_val @ b_val + acc.astype(np.float64)
        return (_result(op, out),)

    @impl(tl.PrintOp)
    def run_print(
        self, interpreter: Interpreter, op: tl.PrintOp, args: PythonValues
    ) -> PythonValues:
        for value in args:
            shown = np.asarray(value)
            if op.attributes.get("hex") == IntegerAttr(1, IntegerType(1)):
                shown = np.vectorize(hex)(to_bits(op, value, op.args[0].type))
            print(
                f"{op.prefix.data}{np.array2string(shown, threshold=1 << 20)}",
                file=interpreter.file,
            )
        if not args:
            print(op.prefix.data, file=interpreter.file)
        return ()

    @impl(tl.AssertOp)
    def run_assert(
        self, interpreter: Interpreter, op: tl.AssertOp, args: PythonValues
    ) -> PythonValues:
        cond = np.asarray(args[0])
        if not cond.all():
            where = [int(i) for i in np.argwhere(~cond)[0]] if cond.shape else []
            at = f" (first failing element {where})" if where else ""
            raise TLInterpretationError(op, f"assertion failed: {op.message.data}{at}")
        return ()


ASYNC_TOKEN = "async-token"
"""The value of every ``!tl.async_token``: the interpreter orders the copies by the order of
the ops (Triton's tokens name the same order), so a token carries nothing."""


def _tokens(op: Operation) -> PythonValues:
    return tuple(ASYNC_TOKEN for _ in op.results)


@dataclass
class _Copy:
    """An asynchronous copy in flight: the op, its destination and the values it will write."""

    op: Operation
    mem: SharedMemory
    values: np.ndarray


@dataclass
class _AsyncCopies:
    """Copies not yet committed (``open``) and committed groups not yet retired, oldest first."""

    open: list[_Copy] = field(default_factory=list)
    groups: list[list[_Copy]] = field(default_factory=list)


def _async_state(functions: Any) -> _AsyncCopies:
    state = getattr(functions, "_async_copies", None)
    if state is None:
        state = functions._async_copies = _AsyncCopies()
    return state


def _check_no_copy_in_flight(functions: Any, op: Operation, mem: SharedMemory, verb: str) -> None:
    """A shared-memory access to a buffer that an asynchronous copy still writes is a race."""
    state = _async_state(functions)
    for copy in [*state.open, *(c for g in state.groups for c in g)]:
        if np.shares_memory(copy.mem.data, mem.data):
            raise TLInterpretationError(
                op,
                f"race: {op.name} {verb} shared memory that a tl.async_copy_global_to_local "
                "still writes (no tl.async_wait has retired its group)",
            )


def _live_memory(op: Operation, mem: Any) -> SharedMemory:
    if not isinstance(mem, SharedMemory):
        raise TLInterpretationError(op, f"expected shared memory, got {type(mem).__name__}")
    if mem.freed:
        raise TLInterpretationError(op, "shared memory used after tl.local_dealloc")
    return mem


# --------------------------------------------------------------------------------------
# Putting it together
# --------------------------------------------------------------------------------------


@dataclass
class OpTracker(Interpreter.Listener):
    """Remembers the op being interpreted, to locate errors raised by any implementation."""

    current: Operation | None = None

    def will_interpret_op(self, op: Operation, args: PythonValues) -> None:
        self.current = op


def make_interpreter(module: ModuleOp, *, tracker: OpTracker | None = None) -> Interpreter:
    """An xDSL ``Interpreter`` for ``module`` with the tl, arith, math, scf and func semantics.

    >>> from xdsl.dialects.builtin import ModuleOp
    >>> make_interpreter(ModuleOp([])).module.name
    'builtin.module'
    """
    listeners = (tracker,) if tracker is not None else ()
    interpreter = Interpreter(module, listeners=listeners)
    interpreter.register_implementations(ElementwiseFunctions())
    interpreter.register_implementations(TLFunctions())
    interpreter.register_implementations(TLExtraFunctions())
    interpreter.register_implementations(ScfFunctions())
    interpreter.register_implementations(FuncFunctions())
    return interpreter


def run_function(
    module: ModuleOp,
    name: str,
    args: Sequence[Any],
    *,
    grid: Sequence[int] = (1,),
) -> list[tuple[Any, ...]]:
    """Run ``func.func @name`` once per program of ``grid``; return each program's results.

    Arguments are interpreter values (see the module docstring); :func:`to_value` converts
    Python numbers and lists. Programs run one after another in row-major order of
    ``(x, y, z)`` with ``x`` fastest, sharing the buffers.

    >>> from xdsl.dialects.builtin import ModuleOp
    >>> from llc.dialects.tl import TL
    >>> from xdsl.context import Context
    >>> from xdsl.parser import Parser
    >>> from xdsl.dialects import arith, func
    >>> ctx = Context(); ctx.load_dialect(func.Func); ctx.load_dialect(arith.Arith)
    >>> m = Parser(ctx, '''func.func @twice(%x: i32) -> i32 {
    ...   %y = arith.addi %x, %x : i32
    ...   func.return %y : i32
    ... }''').parse_module()
    >>> run_function(m, "twice", [np.int32(21)])
    [(np.int32(42),)]
    """
    interpreter = make_interpreter(module)
    dims = (*grid, 1, 1, 1)[:3]
    results: list[tuple[Any, ...]] = []
    for z in range(dims[2]):
        for y in range(dims[1]):
            for x in range(dims[0]):
                set_grid(interpreter, (x, y, z), dims)
                results.append(tuple(interpreter.call_op(name, tuple(args))))
    return results
