"""Mixed-precision tl.dot (seed 001 case 1): every int x float pair of the seed's table."""

from __future__ import annotations

import pytest

from llc.testing.mixed_precision import FLOATS, INTS, Case, k_width, layouts_of, run_case
from llc.vectorize import largest_vectorization


@pytest.mark.parametrize("side", ["a", "b"])
@pytest.mark.parametrize("float_type", FLOATS)
@pytest.mark.parametrize("int_type", INTS)
def test_pair_matches_numpy(int_type: str, float_type: str, side: str) -> None:
    result = run_case(Case(int_type, float_type, side, (32, 16, 32), 2), seed=hash(side) % 7)
    assert result.passed, result


def test_the_conversion_is_observable() -> None:
    """f8 rounds integers above 16 (step 2): a reference without the conversion would differ,
    so the pass above is not vacuous for narrow floats."""
    import numpy as np

    from llc.mxfp import quantize

    ints = np.arange(-100, 100)
    assert (quantize(ints.astype(float), "e4m3fn") != ints).any()


def test_each_operand_keeps_its_own_kwidth_and_load_width() -> None:
    """The i8 operand is loaded 4 per register (kWidth 4, 32-bit loads along K) and converted
    in registers; the f16 operand keeps kWidth 2."""
    a, b = layouts_of(Case("i8", "f16", "a", (64, 32, 64), 4))
    assert (k_width("i8"), k_width("f16"), k_width("f64")) == (4, 2, 1)
    va = largest_vectorization(a, "i8", "dim1")
    vb = largest_vectorization(b, "f16", "dim0")
    assert (va.run, va.width_bits) == (4, 32)
    assert (vb.run, vb.width_bits) == (2, 32)


def test_verifier_rejects_float_float_and_int_accumulator() -> None:
    from llc.testing.semantics import parse

    text = """
func.func @k(%a: tensor<16x16xf16>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) {
  %d = tl.dot %a, %b, %c : tensor<16x16xf16> * tensor<16x16xf32> -> tensor<16x16xf32>
  func.return
}"""
    with pytest.raises(Exception, match="mixed precision needs one integer and one float"):
        parse(text)
    text = """
func.func @k(%a: tensor<16x16xi8>, %b: tensor<16x16xf16>, %c: tensor<16x16xi32>) {
  %d = tl.dot %a, %b, %c : tensor<16x16xi8> * tensor<16x16xf16> -> tensor<16x16xi32>
  func.return
}"""
    with pytest.raises(Exception, match="accumulates in a float type"):
        parse(text)
