"""``tl.fp_to_fp`` lowered to SIMT code (llc.passes.lower_fp_to_fp): narrowing f32 to f16, bf16
and the 8-bit floats (rtne, rtz) and widening back, run by the kernel interpreter against the
tensor-level interpreter bit for bit on ties, overflow, subnormals, infinities and NaN; the PTX
assembles for sm_80 and sm_90a."""

from __future__ import annotations

import numpy as np
import pytest

from llc.dialects.tl_interpreter import Buffer, Pointer
from llc.testing.semantics import apply_pipeline, call_kernel, parse

N = 256

KERNEL = """
#b = #tl.blocked<{{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}}>
module attributes {{"tl.num-warps" = 2 : i32, "tl.threads-per-warp" = 32 : i32,
                   "tl.target" = "cuda:80"}} {{
  func.func @k(%x_ptr: !tl.ptr<f32>, %o_ptr: !tl.ptr<f32>) {{
    %r = tl.make_range {{end = {n} : i32, start = 0 : i32}} : tensor<{n}xi32, #b>
    %xb = tl.splat %x_ptr : !tl.ptr<f32> -> tensor<{n}x!tl.ptr<f32>, #b>
    %xp = tl.addptr %xb, %r : tensor<{n}x!tl.ptr<f32>, #b>, tensor<{n}xi32, #b>
    %x = tl.load %xp : tensor<{n}x!tl.ptr<f32>, #b>
    %s = tl.fp_to_fp %x{mid_rounding} : tensor<{n}xf32, #b> -> tensor<{n}x{mid}, #b>
    %n = tl.fp_to_fp %s, rounding = {rounding} : tensor<{n}x{mid}, #b> -> tensor<{n}x{t}, #b>
    %w = tl.fp_to_fp %n : tensor<{n}x{t}, #b> -> tensor<{n}xf32, #b>
    %ob = tl.splat %o_ptr : !tl.ptr<f32> -> tensor<{n}x!tl.ptr<f32>, #b>
    %op = tl.addptr %ob, %r : tensor<{n}x!tl.ptr<f32>, #b>, tensor<{n}xi32, #b>
    tl.store %op, %w : tensor<{n}x!tl.ptr<f32>, #b>
    func.return
  }}
}}
"""


def _kernel(t: str, rounding: str, mid: str = "f32") -> str:
    mid_rounding = "" if mid == "f32" else ", rounding = rtne"
    return KERNEL.format(n=N, t=t, rounding=rounding, mid=mid, mid_rounding=mid_rounding)


def _inputs() -> np.ndarray:
    """Ties and their neighbours for f16, bf16 and f8, overflow, subnormals, specials."""
    rng = np.random.default_rng(7)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 65520.0, 65519.0, -70000.0, 3.4e38]
    special += [57344.0, 61440.0, 61439.0, 448.0, 464.0, 463.9, 1e-7, -6e-8, 2**-17, 2**-16]
    ties = [1 + 2**-11, 1 + 3 * 2**-11, 1 + 2**-8, 1 + 3 * 2**-8, 1.125, 1.375, 1.0625, 2**-9]
    x = np.array(special + ties + [-v for v in ties], np.float32)
    near = np.concatenate([np.nextafter(x, np.float32(np.inf)), np.nextafter(x, -x)])
    rand = (rng.standard_normal(N) * rng.choice([1e-6, 1.0, 300.0, 7e4], N)).astype(np.float32)
    return np.concatenate([x, near, rand])[:N].astype(np.float32)


def _run(text: str, x: np.ndarray, lowered: bool) -> np.ndarray:
    module = apply_pipeline(parse(text), "llc-compile") if lowered else parse(text)
    bufs = [Buffer("x", x.copy()), Buffer("o", np.zeros(N, np.float32))]
    call_kernel(module, "k", [Pointer(b, 0) for b in bufs])
    return bufs[1].data


@pytest.mark.parametrize(
    "t, rounding, mid",
    [
        ("f16", "rtne", "f32"),
        ("f16", "rtz", "f32"),
        ("bf16", "rtz", "f32"),
        ("f8E5M2", "rtne", "f32"),
        ("f8E4M3FN", "rtne", "f32"),
        ("f8E5M2", "rtne", "f16"),  # f16 -> f8, as Triton's f16 operands of fp8 dots
        ("bf16", "rtz", "f16"),  # f16 -> bf16 rounds too
        ("f8E5M2", "rtz", "f32"),  # overflow to inf steps to 57344
        ("f8E4M3FN", "rtz", "f32"),  # overflow to NaN steps to 448
        ("f8E5M2", "rtz", "f16"),  # Triton's f16 -> e5m2 truncation
    ],
)
def test_fp_to_fp_rounds_like_the_tensor_level(t: str, rounding: str, mid: str) -> None:
    """Narrow (one rounding mode), widen back to f32: the lowered kernel's words are the tensor
    level's; rtz and rtne differ where rounding went away from zero, so rtz is not rtne."""
    x = _inputs()
    text = _kernel(t, rounding, mid)
    want, got = _run(text, x, False), _run(text, x, True)
    assert np.array_equal(want.view(np.uint32), got.view(np.uint32))
    if rounding == "rtz":
        nearest = _run(_kernel(t, "rtne", mid), x, False)
        fin = np.isfinite(want) & np.isfinite(nearest)
        assert (np.abs(want[fin]) <= np.abs(nearest[fin])).all()
        assert (want != nearest).sum() > 20  # away-from-zero roundings moved toward zero


def test_fp_to_fp_ptx_assembles() -> None:
    """rtz to f16 and e4m3, rtne f32 -> e4m3 -> f32 are accepted by ptxas for sm_80 and sm_90a (the
    f8 widening is ``cvt.rn.f16x2.e4m3x2`` there, an integer sequence on sm_80)."""
    from llc.passes.targets.ptx import emit_ptx
    from llc.testing.ptxas import assemble, find_ptxas

    if find_ptxas() is None:
        pytest.skip("ptxas is not installed (pip install nvidia-cuda-nvcc)")
    for t, rounding in (("f16", "rtz"), ("f8E4M3FN", "rtne"), ("f8E4M3FN", "rtz")):
        lowered = apply_pipeline(parse(_kernel(t, rounding)), "llc-compile")
        for arch in ("sm_80", "sm_90a"):
            ptx = emit_ptx(lowered, arch)
            assert ("cvt.rn.f16x2.e4m3x2" in ptx) == (t == "f8E4M3FN" and arch == "sm_90a")
            assert assemble(ptx, arch) == ""
