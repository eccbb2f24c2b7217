"""``mma.sync`` beyond f16 x f16 -> f32 (llc.passes.lower_mma): i8 x i8 -> i32 (m16n8k32) and
f16 accumulation (m16n8k16 .f16), the SIMT interpreter against the tensor level (the real
kernels -- matmul_i8, f16_acc_dot, bmm -- and their PTX: test_real_kernels.py)."""

from __future__ import annotations

import numpy as np

from llc.dialects.tl_interpreter import Buffer, Pointer
from llc.testing.semantics import apply_pipeline, call_kernel, parse

DOT_KERNEL = """
module attributes {{"tl.num-warps" = {warps} : i32, "tl.threads-per-warp" = 32 : i32,
                   "tl.target" = "cuda:80"}} {{
  func.func @k(%a_ptr: !tl.ptr<{ab}>, %b_ptr: !tl.ptr<{ab}>, %c_ptr: !tl.ptr<{c}>) {{
    %ia = tl.make_range {{end = {asize} : i32, start = 0 : i32}} : tensor<{asize}xi32>
    %ab = tl.splat %a_ptr : !tl.ptr<{ab}> -> tensor<{asize}x!tl.ptr<{ab}>>
    %ap = tl.addptr %ab, %ia : tensor<{asize}x!tl.ptr<{ab}>>, tensor<{asize}xi32>
    %af = tl.load %ap : tensor<{asize}x!tl.ptr<{ab}>>
    %a = tl.reshape %af : tensor<{asize}x{ab}> -> tensor<{m}x{k}x{ab}>
    %ib = tl.make_range {{end = {bsize} : i32, start = 0 : i32}} : tensor<{bsize}xi32>
    %bb = tl.splat %b_ptr : !tl.ptr<{ab}> -> tensor<{bsize}x!tl.ptr<{ab}>>
    %bp = tl.addptr %bb, %ib : tensor<{bsize}x!tl.ptr<{ab}>>, tensor<{bsize}xi32>
    %bf = tl.load %bp : tensor<{bsize}x!tl.ptr<{ab}>>
    %b = tl.reshape %bf : tensor<{bsize}x{ab}> -> tensor<{k}x{n}x{ab}>
    %ic = tl.make_range {{end = {csize} : i32, start = 0 : i32}} : tensor<{csize}xi32>
    %cb = tl.splat %c_ptr : !tl.ptr<{c}> -> tensor<{csize}x!tl.ptr<{c}>>
    %cp = tl.addptr %cb, %ic : tensor<{csize}x!tl.ptr<{c}>>, tensor<{csize}xi32>
    %cf = tl.load %cp : tensor<{csize}x!tl.ptr<{c}>>
    %c = tl.reshape %cf : tensor<{csize}x{c}> -> tensor<{m}x{n}x{c}>
    %d = tl.dot %a, %b, %c : tensor<{m}x{k}x{ab}> * tensor<{k}x{n}x{ab}> -> tensor<{m}x{n}x{c}>
    %df = tl.reshape %d : tensor<{m}x{n}x{c}> -> tensor<{csize}x{c}>
    tl.store %cp, %df : tensor<{csize}x!tl.ptr<{c}>>
    func.return
  }}
}}
"""


def _kernel(ab: str, c: str, m: int, n: int, k: int, warps: int = 1) -> str:
    return DOT_KERNEL.format(
        ab=ab, c=c, m=m, n=n, k=k, warps=warps, asize=m * k, bsize=k * n, csize=m * n
    )


def _run_both(text: str, arrays: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, str]:
    lowered = apply_pipeline(parse(text), "llc-compile")
    outs = []
    for module in (parse(text), lowered):
        bufs = [Buffer(f"b{i}", a.copy()) for i, a in enumerate(arrays)]
        call_kernel(module, "k", [Pointer(b, 0) for b in bufs])
        outs.append(bufs[2].data)
    return outs[0], outs[1], str(lowered)


def test_an_i8_dot_is_m16n8k32_and_wraps_like_the_tensor_level() -> None:
    """32x64 by 64x16 (two K steps of 32) on full-range bytes, the accumulator near 2^31: the
    i32 sums wrap as the tensor level's, bit for bit."""
    rng = np.random.default_rng(8)
    a = rng.integers(-128, 128, 32 * 64).astype(np.int8)
    b = rng.integers(-128, 128, 64 * 16).astype(np.int8)
    c = rng.integers(2**31 - 300000, 2**31 - 1, 32 * 16, dtype=np.int64).astype(np.int32)
    expected, got, lowered = _run_both(_kernel("i8", "i32", 32, 16, 64, warps=2), [a, b, c])
    assert "simt.mma_m16n8k32" in lowered
    assert (expected < 0).any()  # some sums wrapped
    assert np.array_equal(expected, got)


def test_an_f16_accumulating_dot_rounds_each_mma_to_f16() -> None:
    """K = 16 (one mma per tile) on normal f16 data: one rounding to f16, as the tensor level's."""
    rng = np.random.default_rng(9)
    a = rng.standard_normal(16 * 16).astype(np.float16)
    b = rng.standard_normal(16 * 16).astype(np.float16)
    c = rng.standard_normal(16 * 16).astype(np.float16)
    expected, got, lowered = _run_both(_kernel("f16", "f16", 16, 16, 16), [a, b, c])
    assert "vector<4xf16>" in lowered and "simt.mma_m16n8k16" in lowered
    assert np.array_equal(expected.view(np.uint16), got.view(np.uint16))
