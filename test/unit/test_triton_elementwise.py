"""The elementwise ops of Triton's front end that have no exact arith/math twin: ``tt.clampf``
(``tl.clamp``), ``tt.mulhiui`` (``tl.umulhi``, and the Philox generator of ``tl.rand``),
``tt.precise_sqrt`` and ``tt.precise_divf`` (``tl.sqrt_rn``, ``tl.div_rn``).

Their numpy semantics are checked against exact references (Python integers, NaN cases), and a
kernel using all of them compiles with ``llc-compile``, runs in the SIMT interpreter bit for bit
like the tensor level (inputs with NaNs, huge and negative values), and assembles with ptxas.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import f32, i32, i64
from xdsl.utils.test_value import create_ssa_value

from llc.dialects import tl
from llc.dialects.tl_interpreter import ELEMENTWISE_FUNCTIONS
from llc.dialects.ttgir import parse_triton_module
from llc.testing.ptxas import assemble, find_ptxas
from llc.testing.semantics import apply_pipeline

ROOT = Path(__file__).resolve().parents[2]
KERNEL = ROOT / "test" / "lit" / "lower" / "Inputs" / "triton_elementwise.ttir"


def _clamp(mode: str, x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    v = create_ssa_value(f32)
    op = tl.ClampFOp(v, v, v, mode)
    return np.asarray(ELEMENTWISE_FUNCTIONS[tl.ClampFOp](op, x, np.float32(lo), np.float32(hi)))


def test_clamp_nan_modes() -> None:
    x = np.array([np.nan, -3.0, 0.5, 7.0, -0.0], np.float32)
    got_all = _clamp("all", x, -1.0, 1.0)
    got_none = _clamp("none", x, -1.0, 1.0)
    assert np.isnan(got_all[0]) and got_all[1:].tolist() == [-1.0, 0.5, 1.0, 0.0]
    assert got_none.tolist() == [-1.0, -1.0, 0.5, 1.0, 0.0]  # a NaN x is clamped to lo


@pytest.mark.parametrize("width", [32, 64])
def test_mulhi_unsigned_is_the_high_half(width: int) -> None:
    typ = i32 if width == 32 else i64
    op = tl.MulhiUIOp(create_ssa_value(typ), create_ssa_value(typ))
    rng = np.random.default_rng(width)
    dtype = np.int32 if width == 32 else np.int64
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, 500, dtype=dtype, endpoint=True)
    b = rng.integers(info.min, info.max, 500, dtype=dtype, endpoint=True)
    a[:3], b[:3] = [-1, -1, info.min], [-1, 1, info.min]  # all ones, and the sign bit alone
    got = np.asarray(ELEMENTWISE_FUNCTIONS[tl.MulhiUIOp](op, a, b)).astype(dtype)
    mod = 1 << width
    want = [((int(x) % mod) * (int(y) % mod)) >> width for x, y in zip(a, b, strict=True)]
    assert [int(g) % mod for g in got] == want


def test_verifier_names_bad_operands() -> None:
    with pytest.raises(Exception, match="propagateNan 'some'"):
        v = create_ssa_value(f32)
        tl.ClampFOp(v, v, v, "some").verify()
    with pytest.raises(Exception, match="expects i32 or i64, got f32"):
        tl.MulhiUIOp(create_ssa_value(f32), create_ssa_value(f32)).verify()
    with pytest.raises(Exception, match="expects floats, got i32"):
        tl.PreciseSqrtOp(create_ssa_value(i32)).verify()


def _llc_run(path: Path, args: list[str], out: Path) -> None:
    from llc.tools.cli import run_arg_parser
    from llc.tools.run import run

    argv = [str(path), "--entry", "k", "--out", str(out), "--args", *args]
    assert run(run_arg_parser().parse_args(argv)) == 0


def test_kernel_compiles_runs_like_the_tensor_level_and_assembles(tmp_path: Path) -> None:
    text = KERNEL.read_text()
    module = parse_triton_module(text, str(KERNEL))
    apply_pipeline(module, "llc-compile")
    lowered = str(module)
    # The NaN mode decides the instruction: IEEE maximum/minimum propagate a NaN, maxnum clamps.
    assert "arith.maximumf" in lowered and "arith.minimumf" in lowered
    assert "arith.maxnumf" in lowered and "arith.minnumf" in lowered
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(256) * 4).astype(np.float32)
    x[::7] = np.nan
    x[5::11] = -0.0
    u = rng.integers(-(2**31), 2**31 - 1, 256, dtype=np.int64).astype(np.int32)
    w = rng.integers(-(2**63), 2**63 - 1, 256, dtype=np.int64)
    for name, value in (("x", x), ("u", u), ("w", w)):
        np.save(tmp_path / f"{name}.npy", value)
    args = [str(tmp_path / f"{n}.npy") for n in ("x", "u", "w")]
    args += ["zeros:256xf32", "zeros:256xf32", "zeros:256xf32", "zeros:256xi32", "zeros:256xi64"]
    (tmp_path / "k.ttir").write_text(text)
    (tmp_path / "k.simt.mlir").write_text(lowered)
    _llc_run(tmp_path / "k.ttir", args, tmp_path / "tensor")
    _llc_run(tmp_path / "k.simt.mlir", args, tmp_path / "simt")
    for name in ("all", "none", "q", "h", "h64"):
        want = np.load(tmp_path / "tensor" / f"{name}.npy")
        got = np.load(tmp_path / "simt" / f"{name}.npy")
        assert want.tobytes() == got.tobytes(), f"{name} differs"
    assert np.isnan(np.load(tmp_path / "tensor" / "all.npy")[0])
    assert np.load(tmp_path / "tensor" / "none.npy")[0] == -1.0
    if find_ptxas() is None:
        pytest.skip("no ptxas (pip install -e '.[test]')")
    from llc.passes.targets.ptx import emit_ptx

    ptx = emit_ptx(module)
    for instruction in ("max.NaN.f32", "max.f32", "sqrt.rn.f32", "div.rn.f32"):
        assert instruction in ptx
    assert "mul.hi.u32" in ptx and "mul.hi.u64" in ptx
    assert assemble(ptx, "sm_90") == ""  # TTIR without a target gets cuda:90


MAP_KERNEL = ROOT / "test" / "lit" / "lower" / "Inputs" / "triton_map_elementwise.ttir"


def _map_outputs(text: str, tmp_path: Path) -> tuple[np.ndarray, np.ndarray]:
    module = parse_triton_module(text, str(MAP_KERNEL))
    apply_pipeline(module, "llc-compile")
    rng = np.random.default_rng(5)
    x, y = (rng.standard_normal(128).astype(np.float32) for _ in range(2))
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    (tmp_path / "k.ttir").write_text(text)
    (tmp_path / "k.simt.mlir").write_text(str(module))
    outs = []
    for name in ("k.ttir", "k.simt.mlir"):
        from llc.tools.cli import run_arg_parser
        from llc.tools.run import run

        argv = [str(tmp_path / name), "--out", str(tmp_path / name[:-5]), "--args"]
        argv += [str(tmp_path / "x.npy"), str(tmp_path / "y.npy")]
        assert run(run_arg_parser().parse_args(argv)) == 0
        outs.append(np.load(tmp_path / name[:-5] / "y_ptr.npy"))
    np.testing.assert_array_equal(outs[0], np.where(x > y, x - y, y * 2))
    return outs[0], outs[1]


def test_map_elementwise_body_runs_on_register_vectors(tmp_path: Path) -> None:
    tensor, simt = _map_outputs(MAP_KERNEL.read_text(), tmp_path)
    assert tensor.tobytes() == simt.tobytes()


def test_map_elementwise_limits_are_clear(tmp_path: Path) -> None:
    from llc.dialects.diagnostics import OpPassFailedException

    text = MAP_KERNEL.read_text().replace("pack = 1", "pack = 2")
    text = text.replace(
        "^bb0(%arg2: f32, %arg3: f32)", "^bb0(%arg2: f32, %a2: f32, %arg3: f32, %b2: f32)"
    )
    text = text.replace(
        "tt.map_elementwise.return %4 : f32", "tt.map_elementwise.return %4, %4 : f32, f32"
    )
    module = parse_triton_module(text, "k.ttir")
    with pytest.raises(OpPassFailedException, match="pack = 2 has no SIMT lowering") as info:
        apply_pipeline(module, "llc-compile")
    assert info.value.op.name == "tl.map_elementwise"  # located on the op
