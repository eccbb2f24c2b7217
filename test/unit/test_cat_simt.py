"""``tl.cat`` lowered to SIMT code (llc.passes.lower_cat): the plain concatenation, by register
renaming when the result's layout keeps elements in their threads, else by a conversion of the
stacked operand layout (shuffles within a warp, shared memory across warps)."""

from __future__ import annotations

import numpy as np
import pytest

from llc.dialects.tl_interpreter import Buffer, Pointer
from llc.testing.semantics import apply_pipeline, call_kernel, parse

CAT_KERNEL = """
#a = #tl.blocked<{{sizePerThread = [{spt_a}], threadsPerWarp = [32], warpsPerCTA = [{w}],
                   order = [0]}}>
#c = #tl.blocked<{{sizePerThread = [{spt_c}], threadsPerWarp = [32], warpsPerCTA = [{w}],
                   order = [0]}}>
module attributes {{"tl.num-warps" = {w} : i32, "tl.threads-per-warp" = 32 : i32,
                   "tl.target" = "cuda:80"}} {{
  func.func @k(%x_ptr: !tl.ptr<f32>, %y_ptr: !tl.ptr<f32>, %o_ptr: !tl.ptr<f32>) {{
    %r = tl.make_range {{end = {n} : i32, start = 0 : i32}} : tensor<{n}xi32, #a>
    %xb = tl.splat %x_ptr : !tl.ptr<f32> -> tensor<{n}x!tl.ptr<f32>, #a>
    %xp = tl.addptr %xb, %r : tensor<{n}x!tl.ptr<f32>, #a>, tensor<{n}xi32, #a>
    %x = tl.load %xp : tensor<{n}x!tl.ptr<f32>, #a>
    %yb = tl.splat %y_ptr : !tl.ptr<f32> -> tensor<{n}x!tl.ptr<f32>, #a>
    %yp = tl.addptr %yb, %r : tensor<{n}x!tl.ptr<f32>, #a>, tensor<{n}xi32, #a>
    %y = tl.load %yp : tensor<{n}x!tl.ptr<f32>, #a>
    %c = tl.cat %x, %y : tensor<{n}xf32, #a> -> tensor<{n2}xf32, #c>
    %r2 = tl.make_range {{end = {n2} : i32, start = 0 : i32}} : tensor<{n2}xi32, #c>
    %ob = tl.splat %o_ptr : !tl.ptr<f32> -> tensor<{n2}x!tl.ptr<f32>, #c>
    %op = tl.addptr %ob, %r2 : tensor<{n2}x!tl.ptr<f32>, #c>, tensor<{n2}xi32, #c>
    tl.store %op, %c : tensor<{n2}x!tl.ptr<f32>, #c>
    func.return
  }}
}}
"""


@pytest.mark.parametrize(
    "w, spt_a, spt_c, n, moves",
    [
        (1, 1, 1, 64, None),  # lhs registers 0-1, rhs 2-3: a renaming
        (1, 1, 2, 64, "simt.shuffle"),  # pairs per thread: elements cross lanes
        (2, 1, 2, 64, "simt.shared_load"),  # pairs per thread: elements cross warps
    ],
)
def test_cat_is_the_concatenation(w: int, spt_a: int, spt_c: int, n: int, moves: str | None):
    """The lowered kernel stores ``x`` then ``y``, as the tensor level does, whichever way
    the elements travel."""
    text = CAT_KERNEL.format(w=w, spt_a=spt_a, spt_c=spt_c, n=n, n2=2 * n)
    lowered = apply_pipeline(parse(text), "llc-lower-to-simt")
    if moves is None:
        assert "simt.shuffle" not in str(lowered) and "simt.shared" not in str(lowered)
    else:
        assert moves in str(lowered)
    x = np.arange(n, dtype=np.float32) + 0.25
    y = -np.arange(n, dtype=np.float32) - 0.5
    outs = []
    for module in (parse(text), lowered):
        bufs = [
            Buffer("x", x.copy()),
            Buffer("y", y.copy()),
            Buffer("o", np.zeros(2 * n, np.float32)),
        ]
        call_kernel(module, "k", [Pointer(b, 0) for b in bufs])
        outs.append(bufs[2].data)
    assert np.array_equal(outs[0], np.concatenate([x, y]))
    assert np.array_equal(outs[1], outs[0])
