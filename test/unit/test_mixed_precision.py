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


# ---------------------------------------------------------------------------- lowered pairs
PAIRS = [(i, f) for i in INTS for f in FLOATS]
MMA_FLOATS = ("f8", "f16")  # the float types mma.sync m16n8k16 f16 takes exactly


@pytest.mark.parametrize("int_type,float_type", PAIRS)
def test_pair_lowered_to_simt_matches_the_tensor_run(int_type: str, float_type: str) -> None:
    """Every pair of the seed's table through ``llc-compile`` for sm_80: mma for f8/f16 (both
    operands in dot_op layouts of the narrower type's kWidth, the integer converted and 8-bit
    floats widened to f16 in registers), FMA for f32/f64 (tf32 mma would round). The tensor
    level equals the numpy reference (the integer rounded to the float type: the data make it
    round), the SIMT kernel interpreter gives it bit for bit, and the PTX assembles with ptxas
    for sm_80 and sm_90."""
    from llc.testing.mixed_precision import run_lowered

    result = run_lowered(int_type, float_type, "cuda:80")
    assert result.path == ("mma" if float_type in MMA_FLOATS else "FMA"), result
    if result.path == "mma":
        narrow = min(int(int_type[1:]), 8 if float_type == "f8" else 16)
        assert result.k_widths == (k_width(f"i{narrow}"),) * 2
    assert result.exact and result.bit_identical, result
    assert all(ok is not False for ok in result.ptx.values()), result


@pytest.mark.parametrize("float_type", FLOATS)
@pytest.mark.parametrize("int_type", INTS)
def test_pair_lowered_with_fma_and_the_integer_on_b(int_type: str, float_type: str) -> None:
    """The FMA path (sm_70: no tensor cores) with the integer operand as A, and sm_80 with it
    as B (the K order then comes from the float operand's layout)."""
    from llc.testing.mixed_precision import run_lowered

    fma = run_lowered(int_type, float_type, "cuda:70", archs=())
    assert fma.path == "FMA" and fma.exact and fma.bit_identical, fma
    on_b = run_lowered(int_type, float_type, "cuda:80", "b", archs=())
    assert on_b.path == ("mma" if float_type in MMA_FLOATS else "FMA"), on_b
    assert on_b.exact and on_b.bit_identical, on_b


@pytest.mark.parametrize("target", ["cuda:70", "cuda:80"])
def test_f8e5m2_pair_lowered(target: str) -> None:
    from llc.testing.mixed_precision import run_lowered

    result = run_lowered("i16", "f8e5m2", target, "b")
    assert result.path == ("mma" if target == "cuda:80" else "FMA")
    assert result.exact and result.bit_identical, result
    assert all(v is not False for v in result.ptx.values()), result


def test_f8_mma_ptx_converts_in_registers_per_target() -> None:
    """sm_90 widens e4m3 with cvt.rn.f16x2.e4m3x2; sm_80 has no f8 conversion and gets the
    exact integer sequence; the integer is rounded to e4m3 by the same sequence on both
    (PTX's own conversions to f8 saturate); the mma runs on f16."""
    from llc.passes.targets.ptx import emit_ptx
    from llc.testing.mixed_precision import kernel_text
    from llc.testing.ptxas import assemble, find_ptxas
    from llc.testing.semantics import apply_pipeline, parse

    module = apply_pipeline(parse(kernel_text("i8", "f8", "cuda:80")), "llc-compile")
    sm80, sm90 = emit_ptx(module, "sm_80"), emit_ptx(module, "sm_90")
    for ptx in (sm80, sm90):
        assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in ptx
        assert "cvt.rn.f32.s8" in ptx and "cvt.rni.u32.f32" in ptx  # i8 -> f32 -> e4m3 code
    assert "cvt.rn.f16x2.e4m3x2" in sm90 and "cvt.rn.f16x2.e4m3x2" not in sm80
    assert "0x232221201E1C1800" in sm80  # the e4m3 subnormal table of the decode sequence
    # sm_89 has the f8 cvt only from PTX ISA 8.1 (ptxas says so); llc prints .version 8.0
    sm89 = emit_ptx(module, "sm_89")
    assert "e4m3x2" not in sm89
    if find_ptxas() is not None:
        assert assemble(sm89, "sm_89") == ""


def test_one_mma_needs_both_operands_in_one_k_order() -> None:
    """The real constraint behind 'one kWidth for both operands': mma.sync sums A[m, k] B[k, n]
    over the K positions of its fragments, so the lowering may feed K in any order, but the
    same order to both operands. A kWidth-4 layout gives thread t of a quad K = 4t..4t+3 (fed
    at 2t, 2t+1, 2t+8, 2t+9), a kWidth-2 layout K = 2t, 2t+1, 2t+8, 2t+9: with per-operand
    kWidths (i8: 4, f16: 2) no one order serves both, and the lowering refuses the very kernel
    that lowers and runs exactly with one kWidth (4, 4)."""
    import re

    from llc.testing.mixed_precision import kernel_text, run_lowered
    from llc.testing.semantics import apply_pipeline, parse

    laid = str(apply_pipeline(parse(kernel_text("i8", "f16", "cuda:80")), "llc-optimize-layouts"))
    b_operand = r"(opIdx = 1, parent = #tl\.nvidia_mma<\{[^}]*\}>, kWidth = )4"
    assert re.search(b_operand, laid)
    own_k_widths = re.sub(b_operand, r"\g<1>2", laid)
    with pytest.raises(Exception, match="same K order"):
        apply_pipeline(parse(own_k_widths), "llc-lower-to-simt")
    shared = run_lowered("i8", "f16", "cuda:80", archs=())
    assert shared.k_widths == (4, 4) and shared.path == "mma" and shared.bit_identical


def test_int_bf16_dot_ptx_assembles_on_sm80() -> None:
    """Beyond the seed's table: i8 x bf16 lowers to mma on sm_80, and its integer conversion
    goes through f32 (PTX converts integers to bf16 directly only from sm_90). Not run in the
    SIMT interpreter, which has no bf16 global buffers."""
    from llc.passes.targets.ptx import emit_ptx
    from llc.testing.mixed_precision import kernel_text
    from llc.testing.ptxas import assemble, find_ptxas
    from llc.testing.semantics import apply_pipeline, parse

    module = apply_pipeline(parse(kernel_text("i8", "bf16", "cuda:80")), "llc-compile")
    assert "simt.mma_m16n8k16" in str(module)
    ptx = emit_ptx(module, "sm_80")
    assert "cvt.rn.bf16.f32" in ptx and "cvt.rn.bf16.s" not in ptx
    if find_ptxas() is not None:
        assert assemble(ptx, "sm_80") == ""


@pytest.mark.parametrize(
    "int_type,float_type,side",
    [
        ("i8", "f16", "a"),
        ("i8", "f8", "b"),
        ("i16", "f16", "b"),
        ("i64", "f8", "a"),
        ("i8", "f32", "b"),
    ],
)
@pytest.mark.parametrize("shape,warps", [((32, 64, 32), 2), ((64, 32, 64), 4)])
def test_lowered_pairs_on_larger_tiles(
    int_type: str, float_type: str, side: str, shape: tuple[int, int, int], warps: int
) -> None:
    """Several warps and K spanning several mma K steps (the K order across steps): a sample of
    pairs, bit-identical to the tensor level, exact against numpy."""
    from llc.testing.mixed_precision import run_lowered

    result = run_lowered(int_type, float_type, "cuda:80", side, archs=(), shape=shape, warps=warps)
    assert result.path == ("mma" if float_type in MMA_FLOATS else "FMA"), result
    assert result.exact and result.bit_identical, result
