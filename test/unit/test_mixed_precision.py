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


LOWERABLE = [(i, f) for i in INTS for f in FLOATS]


@pytest.mark.parametrize("int_type,float_type", LOWERABLE)
def test_pair_lowered_to_simt_matches_the_tensor_run(
    int_type: str, float_type: str, tmp_path
) -> None:
    """llc-compile lowers the mixed dot (FMA path: the integer registers are converted with
    sitofp after their load), its PTX assembles with ptxas (when installed), and the SIMT kernel
    interpreter gives the tensor-level result bit for bit (small integers and halves: every
    product and sum is exact)."""
    import numpy as np

    from llc.testing.mixed_precision import kernel_text
    from llc.testing.semantics import apply_pipeline, parse
    from llc.tools.cli import run_arg_parser
    from llc.tools.run import run

    text = kernel_text(int_type, float_type)
    src = tmp_path / "k.mlir"
    src.write_text(text)
    lowered = tmp_path / "k.simt.mlir"
    module = apply_pipeline(parse(text), "llc-compile")
    lowered.write_text(str(module))
    assert "sitofp" in lowered.read_text() and "math.fma" in lowered.read_text()
    from llc.passes.ptx import emit_ptx
    from llc.testing.ptxas import assemble, find_ptxas

    ptx = emit_ptx(module, "sm_80")
    assert "cvt.rn.f" in ptx  # the integer operand's conversion in registers
    if find_ptxas() is not None:
        assert assemble(ptx, "sm_80") == ""
    rng = np.random.default_rng(7)
    np.save(tmp_path / "a.npy", rng.integers(-8, 8, 256).astype(f"int{int_type[1:]}"))
    # f8 buffers hold float32 values rounded to the format (halves in [-4, 4) are exact)
    fdt = {"f8": np.float32, "f16": np.float16, "f32": np.float32, "f64": np.float64}[float_type]
    np.save(tmp_path / "b.npy", (rng.integers(-8, 8, 256) / 2).astype(fdt))
    acc = "f64" if float_type == "f64" else "f32"
    outs = {}
    for name, path in (("tensor", src), ("simt", lowered)):
        argv = [str(path), "--entry", "k", "--out", str(tmp_path / name), "--args"]
        argv += [str(tmp_path / "a.npy"), str(tmp_path / "b.npy"), f"zeros:256x{acc}"]
        assert run(run_arg_parser().parse_args(argv)) in (None, 0)
        outs[name] = np.load(tmp_path / name / "c_ptr.npy")
    a = np.load(tmp_path / "a.npy").reshape(16, 16).astype(np.float64)
    b = np.load(tmp_path / "b.npy").reshape(16, 16).astype(np.float64)
    assert np.array_equal(outs["tensor"].reshape(16, 16), a @ b)
    assert np.array_equal(outs["simt"], outs["tensor"])
