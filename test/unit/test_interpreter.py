"""The reference interpreter (llc.dialects.tl_interpreter) on small IR built in Python."""

from __future__ import annotations

import math as pymath
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from xdsl.builder import ImplicitBuilder
from xdsl.dialects import arith, func, math, scf
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    FunctionType,
    ModuleOp,
    TensorType,
    f16,
    f32,
    f64,
    i1,
    i8,
    i32,
)
from xdsl.ir import Attribute, Block, Region, SSAValue

from llc.dialects import tl
from llc.dialects.tl_interpreter import (
    Buffer,
    Pointer,
    TLInterpretationError,
    run_function,
    to_value,
)

# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def T(shape: Sequence[int], element: Attribute = f32) -> TensorType:
    """A plain (encoding-less) tensor type."""
    return TensorType(element, shape)


def build(
    arg_types: Sequence[Attribute],
    result_types: Sequence[Attribute],
    body: Callable[..., Sequence[SSAValue | Any]],
    *,
    extra: Sequence[func.FuncOp] = (),
) -> ModuleOp:
    """``func.func @f(arg_types) -> result_types`` whose body ``body(*args)`` returns results."""
    block = Block(arg_types=arg_types)
    with ImplicitBuilder(block) as args:
        results = body(*args)
        func.ReturnOp(*results)
    f = func.FuncOp("f", FunctionType.from_lists(arg_types, result_types), Region(block))
    module = ModuleOp([f, *extra])
    module.verify()
    return module


def run(
    arg_types: Sequence[Attribute],
    result_types: Sequence[Attribute],
    body: Callable[..., Sequence[SSAValue | Any]],
    args: Sequence[Any] = (),
    **kwargs: Any,
) -> tuple[Any, ...]:
    module = build(arg_types, result_types, body)
    values = [
        a if isinstance(a, Pointer) else to_value(a, t)
        for a, t in zip(args, arg_types, strict=True)
    ]
    return run_function(module, "f", values, **kwargs)[-1]


def ptr_to(name: str, array: Any, dtype: Any = np.float32) -> Pointer:
    return Pointer(Buffer(name, np.asarray(array, dtype=dtype)), 0)


def pointers(base: SSAValue, n: int, offsets: SSAValue | None = None) -> SSAValue:
    """``splat(base) + offsets`` (``offsets`` defaults to ``make_range(0, n)``)."""
    ptr_t = TensorType(base.type, [n])
    if offsets is None:
        offsets = tl.MakeRangeOp(0, n, T([n], i32)).result
    return tl.AddPtrOp(tl.SplatOp(base, ptr_t), offsets).result


def reduce_region(element: Attribute, combine: Callable[[SSAValue, SSAValue], SSAValue]) -> Region:
    block = Block(arg_types=[element, element])
    with ImplicitBuilder(block) as (lhs, rhs):
        tl.ReduceReturnOp(combine(lhs, rhs))
    return Region(block)


# --------------------------------------------------------------------------------------
# Tensor creation and shape ops
# --------------------------------------------------------------------------------------


def test_make_range_expand_broadcast_reshape_trans() -> None:
    def body() -> list[SSAValue]:
        r = tl.MakeRangeOp(0, 4, T([4], i32))
        e = tl.ExpandDimsOp(r, 0, T([1, 4], i32))
        b = tl.BroadcastOp(e, T([3, 4], i32))
        t = tl.TransOp(b, [1, 0], T([4, 3], i32))
        s = tl.ReshapeOp(t, T([12], i32))
        return [b.result, t.result, s.result]

    b, t, s = run([], [T([3, 4], i32), T([4, 3], i32), T([12], i32)], body)
    np.testing.assert_array_equal(b, np.tile(np.arange(4), (3, 1)))
    np.testing.assert_array_equal(t, b.T)
    np.testing.assert_array_equal(s, b.T.reshape(-1))
    assert s.dtype == np.int32


def test_make_range_with_offset_start() -> None:
    (r,) = run([], [T([4], i32)], lambda: [tl.MakeRangeOp(8, 12, T([4], i32)).result])
    assert r.tolist() == [8, 9, 10, 11]


def test_constants_splat_dense_and_infinities() -> None:
    dense = DenseIntOrFPElementsAttr.from_list(T([2, 2], i32), [1, 2, 3, 4])

    def body() -> list[SSAValue]:
        return [
            tl.ConstantOp(-np.inf, T([3])).result,
            tl.ConstantOp(dense, T([2, 2], i32)).result,
            tl.ConstantOp(True, T([2], i1)).result,
            tl.ConstantOp(0.1, f16).result,
        ]

    ninf, d, b, h = run([], [T([3]), T([2, 2], i32), T([2], i1), f16], body)
    assert np.all(np.isneginf(ninf)) and ninf.dtype == np.float32
    assert d.tolist() == [[1, 2], [3, 4]]
    assert b.dtype == np.bool_ and b.all()
    assert h == np.float16(0.1) and isinstance(h, np.float16)


def test_splat_of_scalar_argument() -> None:
    (s,) = run([f32], [T([2, 3])], lambda x: [tl.SplatOp(x, T([2, 3])).result], [2.5])
    np.testing.assert_array_equal(s, np.full((2, 3), 2.5, np.float32))


# --------------------------------------------------------------------------------------
# Elementwise semantics
# --------------------------------------------------------------------------------------


def test_integer_arithmetic_wraps() -> None:
    big = np.int32(2**31 - 1)
    (s, p) = run(
        [i32, T([2], i32)],
        [i32, T([2], i32)],
        lambda a, v: [arith.AddiOp(a, a).result, arith.MuliOp(v, v).result],
        [big, [65536, 3]],
    )
    assert s == np.int32(-2)
    assert p.tolist() == [0, 9]


def test_signed_division_truncates_toward_zero() -> None:
    a, b = [-7, 7, -7, 7], [2, -2, -2, 2]
    q, r, fq = run(
        [T([4], i32), T([4], i32)],
        [T([4], i32)] * 3,
        lambda x, y: [
            arith.DivSIOp(x, y).result,
            arith.RemSIOp(x, y).result,
            arith.FloorDivSIOp(x, y).result,
        ],
        [a, b],
    )
    assert q.tolist() == [-3, -3, 3, 3]
    assert r.tolist() == [-1, 1, -1, 1]
    assert fq.tolist() == [-4, -4, 3, 3]


def test_unsigned_ops_reinterpret_bits() -> None:
    q, m, lt = run(
        [T([2], i32), T([2], i32)],
        [T([2], i32), T([2], i32), T([2], i1)],
        lambda x, y: [
            arith.DivUIOp(x, y).result,
            arith.MaxUIOp(x, y).result,
            tl.CmpiOp("ult", x, y).result,
        ],
        [[-1, 8], [2, 2]],
    )
    assert q.tolist() == [2**31 - 1, 4]  # 0xFFFFFFFF / 2
    assert m.tolist() == [-1, 8]  # -1 is the largest unsigned value
    assert lt.tolist() == [False, False]


def test_integer_division_by_zero_is_an_error() -> None:
    with pytest.raises(TLInterpretationError, match=r"arith\.divsi: integer division by zero"):
        run([i32, i32], [i32], lambda a, b: [arith.DivSIOp(a, b).result], [1, 0])


def test_cmpf_ordered_and_unordered_with_nan() -> None:
    preds = ["olt", "ult", "oeq", "une", "ord", "uno"]

    def body(x: SSAValue, y: SSAValue) -> list[SSAValue]:
        return [tl.CmpfOp(p, x, y).result for p in preds]

    res = run([T([3]), T([3])], [T([3], i1)] * len(preds), body, [[1, np.nan, 2], [2, 1, 2]])
    got = {p: r.tolist() for p, r in zip(preds, res, strict=True)}
    assert got["olt"] == [True, False, False]
    assert got["ult"] == [True, True, False]
    assert got["oeq"] == [False, False, True]
    assert got["une"] == [True, True, False]
    assert got["ord"] == [True, False, True]
    assert got["uno"] == [False, True, False]


def test_maxnumf_ignores_nan_and_maximumf_propagates_it() -> None:
    a, b = [np.nan, 1.0, -0.0], [2.0, np.nan, 0.0]
    num, mx = run(
        [T([3]), T([3])],
        [T([3]), T([3])],
        lambda x, y: [arith.MaxnumfOp(x, y).result, arith.MaximumfOp(x, y).result],
        [a, b],
    )
    assert num.tolist() == [2.0, 1.0, 0.0]
    assert np.isnan(mx[:2]).all()
    assert mx[2] == 0.0 and not np.signbit(mx[2])  # +0 > -0


def test_select_with_tensor_condition() -> None:
    (s,) = run(
        [T([3], i1), T([3]), T([3])],
        [T([3])],
        lambda c, a, b: [tl.SelectOp(c, a, b).result],
        [[True, False, True], [1, 2, 3], [10, 20, 30]],
    )
    assert s.tolist() == [1, 20, 3]


def test_casts() -> None:
    def body(i: SSAValue, f: SSAValue, m: SSAValue) -> list[SSAValue]:
        return [
            tl.SIToFPOp(i, T([3])).result,
            tl.FPToSIOp(f, T([3], i32)).result,
            tl.ExtSIOp(m, T([3], i32)).result,
            tl.ExtUIOp(m, T([3], i32)).result,
            tl.TruncIOp(i, T([3], i8)).result,
            tl.UIToFPOp(i, T([3])).result,
        ]

    result_types = [T([3]), T([3], i32), T([3], i32), T([3], i32), T([3], i8), T([3])]
    sf, fi, ext_s, ext_u, tr, uf = run(
        [T([3], i32), T([3]), T([3], i1)],
        result_types,
        body,
        [[-1, 300, 7], [-2.7, 2.7, 1e9], [True, False, True]],
    )
    assert sf.tolist() == [-1.0, 300.0, 7.0]
    assert fi.tolist() == [-2, 2, 1_000_000_000]  # toward zero
    assert ext_s.tolist() == [-1, 0, -1]  # i1 true is -1 as a signed value
    assert ext_u.tolist() == [1, 0, 1]
    assert tr.tolist() == [-1, 44, 7]  # low 8 bits
    assert uf[0] == np.float32(2**32 - 1)


def test_fptosi_out_of_range_is_an_error() -> None:
    with pytest.raises(TLInterpretationError, match="does not fit in tensor<1xi8>"):
        run([T([1])], [T([1], i8)], lambda f: [tl.FPToSIOp(f, T([1], i8)).result], [[300.0]])


def test_truncf_rounds_to_nearest_even() -> None:
    bf16 = BFloat16Type()
    # 1 + 2^-11 is halfway between two f16 values: ties go to the even one (1.0);
    # 1 + 3 * 2^-11 rounds up to 1 + 2^-9 (even); bf16 keeps 8 significant bits.
    x = [1 + 2**-11, 1 + 3 * 2**-11, 1 + 2**-8 + 2**-9]
    h, b = run(
        [T([3])],
        [T([3], f16), T([3], bf16)],
        lambda v: [arith.TruncFOp(v, T([3], f16)).result, arith.TruncFOp(v, T([3], bf16)).result],
        [x],
    )
    assert h.tolist() == [1.0, 1 + 2**-9, 1 + 2**-8 + 2**-9]
    assert b.tolist() == [1.0, 1.0, 1 + 2**-7]


def test_math_functions() -> None:
    (e, r) = run(
        [T([2])],
        [T([2]), T([2])],
        lambda x: [math.ExpOp(x).result, math.RsqrtOp(x).result],
        [[0.0, 4.0]],
    )
    assert e.tolist() == [1.0, np.float32(np.exp(4.0))]
    assert r[1] == np.float32(0.5) and np.isinf(r[0])


# math.fma: one rounding of the exact a * b + c. The reference rounds exact rationals.
# (precision p, minimum normal exponent, maximum exponent) of each IEEE format
FORMATS = {"f16": (11, -14, 15), "bf16": (8, -126, 127), "f32": (24, -126, 127)}
FORMATS["f64"] = (53, -1022, 1023)


def round_exact(x: Fraction, fmt: str) -> float:
    """Round-to-nearest-even of the rational ``x`` in ``fmt`` (subnormals, overflow to inf)."""
    p, emin, emax = FORMATS[fmt]
    if x == 0:
        return 0.0
    m = abs(x)
    e = m.numerator.bit_length() - m.denominator.bit_length()
    if Fraction(2) ** e > m:
        e -= 1
    quantum = Fraction(2) ** (max(e, emin) - p + 1)
    n, rem = divmod(m / quantum, 1)
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n % 2):
        n += 1
    value = n * quantum
    if value >= Fraction(2) ** (emax + 1):
        return pymath.inf if x > 0 else -pymath.inf
    return float(value) if x > 0 else -float(value)


def fma_reference(a: Any, b: Any, c: Any, fmt: str) -> list[float]:
    return [
        round_exact(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)), fmt)
        for x, y, z in zip(np.ravel(a), np.ravel(b), np.ravel(c), strict=True)
    ]


def run_fma(a: Any, b: Any, c: Any, element: Attribute) -> np.ndarray:
    n = len(a)
    (r,) = run(
        [T([n], element)] * 3,
        [T([n], element)],
        lambda x, y, z: [math.FmaOp(x, y, z).result],
        [a, b, c],
    )
    return r


def test_fma_is_fused_on_the_issue_example() -> None:
    # f64 a = b = 1 + 2^-30, c = -(1 + 2^-29): a*b + c = 2^-60 exactly; two roundings give 0.
    x = 1 + 2.0**-30
    ((r,),) = [
        run(
            [f64, f64, f64],
            [f64],
            lambda a, b, c: [math.FmaOp(a, b, c).result],
            [x, x, -(1 + 2.0**-29)],
        )
    ]
    assert r == 2.0**-60 and isinstance(r, np.float64)


@pytest.mark.parametrize(
    ("fmt", "element", "a", "b", "c", "expected"),
    [
        # f32: a*b = 1 + 2^-11 + 2^-24 is a midpoint between two f32 values; c = 2^-80 puts the
        # exact sum just above it. Rounding to f64 first lands on the midpoint and ties to the
        # even, lower value; the fused result rounds up.
        ("f32", f32, 1 + 2.0**-12, 1 + 2.0**-12, 2.0**-80, 1 + 2.0**-11 + 2.0**-23),
        ("f32", f32, 1 + 2.0**-12, 1 + 2.0**-12, -(2.0**-80), 1 + 2.0**-11),
        # bf16 (8 bits): a*b = 1 + 2^-3 + 2^-8 is a midpoint; + 2^-100 rounds up.
        ("bf16", BFloat16Type(), 1 + 2.0**-4, 1 + 2.0**-4, 2.0**-100, 1 + 2.0**-3 + 2.0**-7),
        # f16: no double rounding is possible through f64, but the result is still exact.
        ("f16", f16, 1 + 2.0**-5, 1 + 2.0**-6, 2.0**-24, 1 + 2.0**-5 + 2.0**-6 + 2.0**-10),
        # f64: cancellation leaves the product's low bits.
        ("f64", f64, 1 + 2.0**-30, 1 + 2.0**-30, -(1 + 2.0**-29), 2.0**-60),
        # The product 2^1024 overflows on its own, the fused sum 2^1023 does not.
        ("f64", f64, 2.0**1000, 2.0**24, -(2.0**1023), 2.0**1023),
        ("f64", f64, 2.0**1000, 2.0**24, 2.0**1023, pymath.inf),
        # 1.5 * 2^-1075 lies above half the smallest subnormal: rounds up to it.
        ("f64", f64, 1.5 * 2.0**-538, 2.0**-537, 0.0, 2.0**-1074),
    ],
)
def test_fma_hard_cases(
    fmt: str, element: Attribute, a: float, b: float, c: float, expected: float
) -> None:
    (r,) = run_fma([a], [b], [c], element).tolist()
    assert r == fma_reference([a], [b], [c], fmt)[0] == expected


@pytest.mark.parametrize("fmt", ["f16", "bf16", "f32", "f64"])
def test_fma_matches_the_exact_reference(fmt: str) -> None:
    element = {"f16": f16, "bf16": BFloat16Type(), "f32": f32, "f64": f64}[fmt]
    dtype = {"f16": np.float16, "bf16": np.float32, "f32": np.float32, "f64": np.float64}[fmt]
    rng = np.random.default_rng(11)
    n = 400
    a = to_value(rng.standard_normal(n) * 2.0 ** rng.integers(-8, 8, n), T([n], element))
    b = to_value(rng.standard_normal(n) * 2.0 ** rng.integers(-8, 8, n), T([n], element))
    ab = np.asarray(a, np.float64) * np.asarray(b, np.float64)
    # Addends that cancel the product almost exactly, tiny ones and ordinary ones.
    c = np.concatenate(
        [-ab[: n // 2], rng.standard_normal(n // 4) * 1e-6, rng.standard_normal(n // 4)]
    )
    c = to_value(c, T([n], element))
    r = run_fma(np.asarray(a, dtype), np.asarray(b, dtype), np.asarray(c, dtype), element)
    assert r.tolist() == fma_reference(a, b, c, fmt)


# --------------------------------------------------------------------------------------
# Pointers, loads and stores
# --------------------------------------------------------------------------------------


def test_masked_load_takes_other_and_masked_store_skips_lanes() -> None:
    ptr_t = tl.PointerType(f32)
    src = ptr_to("src", [1, 2, 3])
    dst = ptr_to("dst", np.zeros(3))

    def body(x: SSAValue, y: SSAValue, n: SSAValue) -> list[SSAValue]:
        offs = tl.MakeRangeOp(0, 4, T([4], i32))
        mask = tl.CmpiOp("slt", offs, tl.SplatOp(n, T([4], i32)))
        other = tl.ConstantOp(-1.0, T([4]))
        loaded = tl.LoadOp(pointers(x, 4, offs.result), mask, other)
        no_other = tl.LoadOp(pointers(x, 4, offs.result), mask)
        tl.StoreOp(pointers(y, 4, offs.result), loaded, mask)
        return [loaded.result, no_other.result]

    loaded, no_other = run([ptr_t, ptr_t, i32], [T([4]), T([4])], body, [src, dst, np.int32(3)])
    assert loaded.tolist() == [1, 2, 3, -1]
    assert no_other.tolist() == [1, 2, 3, 0]
    assert dst.buffer.array().tolist() == [1, 2, 3]


def test_unmasked_out_of_bounds_load_names_op_and_offset() -> None:
    ptr_t = tl.PointerType(f32)
    with pytest.raises(TLInterpretationError) as info:
        run([ptr_t], [T([4])], lambda x: [tl.LoadOp(pointers(x, 4)).result], [ptr_to("x", [0, 1])])
    assert isinstance(info.value.op, tl.LoadOp)
    assert str(info.value).startswith("tl.load: out-of-bounds load at offset 2 ")
    assert "of buffer 'x' with 2 elements; 2 lanes are out of bounds" in str(info.value)


def test_negative_offsets_do_not_wrap_around() -> None:
    ptr_t = tl.PointerType(f32)

    def body(x: SSAValue, off: SSAValue) -> list[SSAValue]:
        return [tl.LoadOp(tl.AddPtrOp(x, off)).result]

    with pytest.raises(TLInterpretationError, match="out-of-bounds load at offset -1 "):
        run([ptr_t, i32], [f32], body, [ptr_to("x", [5, 6, 7]), np.int32(-1)])


def test_out_of_bounds_store() -> None:
    ptr_t = tl.PointerType(f32)

    def body(x: SSAValue) -> list[SSAValue]:
        tl.StoreOp(pointers(x, 4), tl.ConstantOp(1.0, T([4])))
        return []

    with pytest.raises(TLInterpretationError, match="out-of-bounds store at offset 3 "):
        run([ptr_t], [], body, [ptr_to("x", [0, 0, 0])])


def test_pointer_type_must_match_buffer() -> None:
    ptr_t = tl.PointerType(f32)
    with pytest.raises(TLInterpretationError, match="holds int32 but the pointer type"):
        run([ptr_t], [f32], lambda x: [tl.LoadOp(x).result], [ptr_to("x", [1], np.int32)])


def test_pointer_tensors_move_through_shape_ops() -> None:
    ptr_t = tl.PointerType(f32)
    data = np.arange(6, dtype=np.float32)

    def body(x: SSAValue) -> list[SSAValue]:
        p = pointers(x, 3)  # x + [0, 1, 2]
        p2 = tl.ExpandDimsOp(p, 0, TensorType(ptr_t, [1, 3]))
        p3 = tl.BroadcastOp(p2, TensorType(ptr_t, [2, 3]))
        rows = tl.ConstantOp(
            DenseIntOrFPElementsAttr.from_list(T([2, 3], i32), [0] * 3 + [3] * 3), T([2, 3], i32)
        )
        p4 = tl.AddPtrOp(p3, rows)
        p5 = tl.TransOp(p4, [1, 0], TensorType(ptr_t, [3, 2]))
        return [tl.LoadOp(p5).result]

    (v,) = run([ptr_t], [T([3, 2])], body, [ptr_to("x", data)])
    np.testing.assert_array_equal(v, data.reshape(2, 3).T)


# --------------------------------------------------------------------------------------
# Reductions and dot
# --------------------------------------------------------------------------------------


def test_reduce_sum_max_and_to_scalar() -> None:
    x = np.arange(21, dtype=np.float32).reshape(3, 7)  # 7: not a power of two

    def body(v: SSAValue) -> list[SSAValue]:
        add = reduce_region(f32, lambda a, b: arith.AddfOp(a, b).result)
        mx = reduce_region(f32, lambda a, b: arith.MaxnumfOp(a, b).result)
        total = reduce_region(f32, lambda a, b: arith.AddfOp(a, b).result)
        rows = tl.ReduceOp([v], 1, [T([3])], add)
        cols = tl.ReduceOp([v], 0, [T([7])], mx)
        scalar = tl.ReduceOp([rows.results_[0]], 0, [f32], total)
        return [rows.results_[0], cols.results_[0], scalar.results_[0]]

    rows, cols, total = run([T([3, 7])], [T([3]), T([7]), f32], body, [x])
    np.testing.assert_array_equal(rows, x.sum(axis=1))
    np.testing.assert_array_equal(cols, x.max(axis=0))
    assert total == x.sum() and isinstance(total, np.float32)


def test_reduce_with_two_operands_argmax() -> None:
    values = np.array([[3, 9, 1, 9, 4], [0, -1, 7, 2, 7]], np.float32)
    block = Block(arg_types=[f32, i32, f32, i32])
    with ImplicitBuilder(block) as (v0, i0, v1, i1_):
        gt = arith.CmpfOp(v1, v0, "ogt")
        tl.ReduceReturnOp(arith.SelectOp(gt, v1, v0), arith.SelectOp(gt, i1_, i0))
    region = Region(block)

    def body(v: SSAValue) -> list[SSAValue]:
        idx = tl.BroadcastOp(
            tl.ExpandDimsOp(tl.MakeRangeOp(0, 5, T([5], i32)), 0, T([1, 5], i32)), T([2, 5], i32)
        )
        red = tl.ReduceOp([v, idx.result], 1, [T([2]), T([2], i32)], region)
        return list(red.results_)

    best, arg = run([T([2, 5])], [T([2]), T([2], i32)], body, [values])
    assert best.tolist() == [9, 7]
    # The combine keeps the left operand on ties; pairwise order still picks the first max.
    assert arg.tolist() == [1, 2]


def max_by_branch_region() -> Region:
    """``cmpf ogt`` then ``scf.if`` yielding the larger value: control flow in the combine."""
    block = Block(arg_types=[f32, f32])
    with ImplicitBuilder(block) as (a, b):
        gt = arith.CmpfOp(a, b, "ogt")
        then_block, else_block = Block(), Block()
        with ImplicitBuilder(then_block):
            scf.YieldOp(a)
        with ImplicitBuilder(else_block):
            scf.YieldOp(b)
        branch = scf.IfOp(gt, [f32], Region(then_block), Region(else_block))
        tl.ReduceReturnOp(branch.results[0])
    return Region(block)


def test_reduce_with_control_flow_in_the_combine_region() -> None:
    # Issue 7: the region ran once on whole vectors, and scf.if asked numpy for the truth
    # value of an array. It must run with scalar semantics; compare with numpy's max.
    x = np.random.default_rng(7).standard_normal((5, 13)).astype(np.float32)

    def body(v: SSAValue) -> list[SSAValue]:
        rows = tl.ReduceOp([v], 1, [T([5])], max_by_branch_region())
        cols = tl.ReduceOp([v], 0, [T([13])], max_by_branch_region())
        return [rows.results_[0], cols.results_[0]]

    rows, cols = run([T([5, 13])], [T([5]), T([13])], body, [x])
    np.testing.assert_array_equal(rows, x.max(axis=1))
    np.testing.assert_array_equal(cols, x.max(axis=0))
    assert rows.dtype == np.float32 and cols.dtype == np.float32


def test_reduce_region_kinds() -> None:
    from llc.dialects.tl_interpreter import is_elementwise_region

    assert is_elementwise_region(reduce_region(f32, lambda a, b: arith.AddfOp(a, b).result))
    assert not is_elementwise_region(max_by_branch_region())


def test_straight_line_reduce_stays_vectorized(monkeypatch: pytest.MonkeyPatch) -> None:
    # The per-element fallback is only for regions that need it.
    import llc.dialects.tl_interpreter as interp

    def fail(*args: Any) -> None:
        raise AssertionError("a straight-line combine region ran per element")

    monkeypatch.setattr(interp, "_combine_per_element", fail)
    x = np.arange(12, dtype=np.float32).reshape(3, 4)

    def body(v: SSAValue) -> list[SSAValue]:
        add = reduce_region(f32, lambda a, b: arith.AddfOp(a, b).result)
        return [tl.ReduceOp([v], 1, [T([3])], add).results_[0]]

    (rows,) = run([T([3, 4])], [T([3])], body, [x])
    np.testing.assert_array_equal(rows, x.sum(axis=1))


def test_dot_accumulates_in_result_type() -> None:
    # In f16, 2048 + 1 == 2048: a dot accumulated in f16 would stop at 2048.
    a = np.ones((2, 4096), np.float16)
    b = np.ones((4096, 3), np.float16)

    def body(x: SSAValue, y: SSAValue) -> list[SSAValue]:
        acc = tl.ConstantOp(1.0, T([2, 3]))
        return [tl.DotOp(x, y, acc).result]

    (d,) = run([T([2, 4096], f16), T([4096, 3], f16)], [T([2, 3])], body, [a, b])
    assert d.dtype == np.float32
    assert d.tolist() == [[4097.0] * 3] * 2


# --------------------------------------------------------------------------------------
# Shared memory, control flow, calls, program ids
# --------------------------------------------------------------------------------------


def test_shared_memory_round_trip() -> None:
    mem_t = tl.MemDescType(f16, [2, 2])

    def body(x: SSAValue, y: SSAValue) -> list[SSAValue]:
        a = tl.LocalAllocOp(mem_t, x)
        b = tl.LocalAllocOp(mem_t)
        tl.LocalStoreOp(y, b)
        la = tl.LocalLoadOp(a, T([2, 2], f16))
        lb = tl.LocalLoadOp(b, T([2, 2], f16))
        tl.LocalDeallocOp(a)
        tl.LocalDeallocOp(b)
        return [la.result, lb.result]

    la, lb = run([T([2, 2], f16)] * 2, [T([2, 2], f16)] * 2, body, [[[1, 2], [3, 4]], 5])
    assert la.tolist() == [[1, 2], [3, 4]] and lb.tolist() == [[5, 5], [5, 5]]


def test_shared_memory_use_after_dealloc() -> None:
    mem_t = tl.MemDescType(f32, [2])

    def body(x: SSAValue) -> list[SSAValue]:
        a = tl.LocalAllocOp(mem_t, x)
        tl.LocalDeallocOp(a)
        return [tl.LocalLoadOp(a, T([2])).result]

    with pytest.raises(TLInterpretationError, match=r"used after tl\.local_dealloc"):
        run([T([2])], [T([2])], body, [[1, 2]])


def test_scf_for_with_tensor_iter_args() -> None:
    def body(n: SSAValue, x: SSAValue) -> list[SSAValue]:
        zero = arith.ConstantOp.from_int_and_width(0, 32)
        one = arith.ConstantOp.from_int_and_width(1, 32)
        loop_body = Block(arg_types=[i32, T([4])])
        with ImplicitBuilder(loop_body) as (i, acc):
            step = tl.SIToFPOp(tl.SplatOp(i, T([4], i32)), T([4]))
            scf.YieldOp(arith.AddfOp(acc, step))
        loop = scf.ForOp(zero, n, one, [x], loop_body)
        return [loop.res[0]]

    (r,) = run([i32, T([4])], [T([4])], body, [np.int32(5), [0, 1, 2, 3]])
    assert r.tolist() == [10, 11, 12, 13]  # + 0 + 1 + 2 + 3 + 4


def test_func_call() -> None:
    helper_block = Block(arg_types=[T([2])])
    with ImplicitBuilder(helper_block) as (x,):
        func.ReturnOp(arith.MulfOp(x, x))
    helper = func.FuncOp(
        "square", FunctionType.from_lists([T([2])], [T([2])]), Region(helper_block)
    )
    module = build(
        [T([2])],
        [T([2])],
        lambda x: [func.CallOp("square", [x], [T([2])]).res[0]],
        extra=[helper],
    )
    ((r,),) = run_function(module, "f", [np.array([3, -4], np.float32)])
    assert r.tolist() == [9, 16]


def test_program_ids_follow_the_grid() -> None:
    ptr_t = tl.PointerType(i32)
    out = ptr_to("out", np.zeros(6), np.int32)

    def body(o: SSAValue) -> list[SSAValue]:
        x = tl.GetProgramIdOp("x")
        y = tl.GetProgramIdOp("y")
        nx = tl.GetNumProgramsOp("x")
        linear = arith.AddiOp(arith.MuliOp(y, nx), x)
        tl.StoreOp(tl.AddPtrOp(o, linear), arith.AddiOp(arith.MuliOp(x, nx), linear))
        return []

    module = build([ptr_t], [], body)
    run_function(module, "f", [out], grid=(3, 2))
    # out[y * 3 + x] = x * 3 + (y * 3 + x)
    assert out.buffer.array().tolist() == [0, 4, 8, 3, 7, 11]


# --------------------------------------------------------------------------------------
# Layouts never change values
# --------------------------------------------------------------------------------------

BLOCKED = "#tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
BLOCKED += "order = [1, 0]}>"
OTHER = "#tl.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], "
OTHER += "order = [0, 1]}>"
KERNEL = f"""
#blocked = {BLOCKED}
#other = {OTHER}
#rows = #tl.slice<{{dim = 1, parent = #blocked}}>
module attributes {{"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32}} {{
  func.func @f(%x: tensor<32x32xf32, #blocked>)
      -> (tensor<32xf32, #rows>, tensor<32x32xf32, #other>) {{
    %s = tl.reduce %x {{axis = 1 : i32}} : tensor<32x32xf32, #blocked> -> tensor<32xf32, #rows> {{
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      tl.reduce.return %c : f32
    }}
    %y = tl.convert_layout %x : tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #other>
    func.return %s, %y : tensor<32xf32, #rows>, tensor<32x32xf32, #other>
  }}
}}
"""


def test_results_do_not_depend_on_layouts() -> None:
    from llc.dialects.diagnostics import parse_module
    from llc.tools.run import make_context

    with_layouts = parse_module(make_context(), KERNEL)
    with_layouts.verify()
    plain_text = KERNEL.split("module attributes", 1)[1]
    for alias in ("#blocked", "#other", "#rows"):
        plain_text = plain_text.replace(f", {alias}>", ">")
    plain = parse_module(make_context(), "module attributes" + plain_text)
    plain.verify()
    assert "#" not in str(plain)

    x = np.random.default_rng(0).standard_normal((32, 32)).astype(np.float32)
    ((s1, y1),) = run_function(with_layouts, "f", [x])
    ((s2, y2),) = run_function(plain, "f", [x])
    assert np.array_equal(s1, s2) and np.array_equal(y1, y2)
    np.testing.assert_allclose(s1, x.sum(axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(y1, x)


# --------------------------------------------------------------------------------------
# Module-wide checks run by llc-run before interpreting
# --------------------------------------------------------------------------------------


def _parse(text: str) -> ModuleOp:
    from llc.dialects.diagnostics import parse_module
    from llc.tools.run import make_context

    module = parse_module(make_context(), text)
    module.verify()
    return module


def test_verify_module_checks_arith_elementwise_shapes() -> None:
    from xdsl.utils.exceptions import VerifyException

    module = _parse(
        "func.func @f(%h: tensor<4xf16>) {\n"
        "  %x = arith.extf %h : tensor<4xf16> to tensor<8xf32>\n"
        "  func.return\n"
        "}"
    )
    with pytest.raises(VerifyException, match=r"arith\.extf: result #0 shape \[8\] differs"):
        tl.verify_module(module)


def test_verify_module_checks_layouts_only_arith_touches() -> None:
    from xdsl.utils.exceptions import VerifyException

    two_warps = BLOCKED.replace("warpsPerCTA = [4, 1]", "warpsPerCTA = [2, 1]")
    module = _parse(
        f'module attributes {{"tl.num-warps" = 4 : i32}} {{\n'
        f"  func.func @f(%x: tensor<32x32xf32, {two_warps}>) {{\n"
        f"    %y = arith.addf %x, %x : tensor<32x32xf32, {two_warps}>\n"
        f"    func.return\n"
        f"  }}\n"
        f"}}"
    )
    with pytest.raises(VerifyException, match="warpsPerCTA") as info:
        tl.verify_module(module)
    assert info.value.op.name == "func.func"  # type: ignore[attr-defined]
