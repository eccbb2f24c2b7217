"""8-bit floats (f8E4M3FN, f8E5M2) below the tensor level: the PTX conversion sequences against
the OCP codecs (exhaustively on codes and f16 values), and f8 data moved by shuffles and
shared memory in lowered conversion kernels (SIMT interpreter and ptxas)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from llc.mxfp import decode, encode
from llc.passes.targets.ptx_f8 import decode_steps, encode_steps, evaluate

FORMATS = ("e4m3fn", "e5m2")


@pytest.mark.parametrize("fmt", FORMATS)
def test_decode_sequence_is_exact_on_every_code(fmt: str) -> None:
    codes = np.arange(256)
    bits = evaluate(decode_steps(fmt), {"c": codes})["h"].astype(np.uint16)
    got = bits.view(np.float16).astype(np.float64)
    assert np.array_equal(got, decode(codes, fmt), equal_nan=True)
    # signs of zeros and NaNs survive too
    assert np.array_equal(np.signbit(got), codes >= 128)


@pytest.mark.parametrize("fmt", FORMATS)
def test_encode_sequence_rounds_like_the_codec(fmt: str) -> None:
    """Every f16 value (ties, subnormals, overflow, infinities, NaN) and random f32 bit
    patterns, plus the midpoints between neighbouring f8 values and their f32 neighbours."""
    rng = np.random.default_rng(3)
    f16 = np.arange(1 << 16).astype(np.uint16).view(np.float16).astype(np.float32)
    table = decode(np.arange(128), fmt)
    finite = np.sort(table[np.isfinite(table)])
    mids = ((finite[1:] + finite[:-1]) / 2).astype(np.float32)
    near = np.concatenate([mids, np.nextafter(mids, np.inf), np.nextafter(mids, -np.inf)])
    near = np.concatenate([near, -near])
    rand = rng.integers(0, 1 << 32, 200_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    x = np.concatenate([f16, near, rand])
    got = evaluate(encode_steps(fmt), {"x": x.view(np.uint32)})["c"]
    with np.errstate(all="ignore"):
        want = encode(x.astype(np.float64), fmt)
    assert np.array_equal(got, want)


def test_bad_format_is_an_error() -> None:
    with pytest.raises(ValueError, match="no 8-bit float format"):
        encode_steps("e3m4")


@pytest.mark.parametrize("elem", ["f8E4M3FN", "f8E5M2"])
@pytest.mark.parametrize("how", ["shuffle", "shared"])
def test_f8_conversion_kernels_move_bytes(elem: str, how: str) -> None:
    """A layout conversion of f8 data through warp shuffles or shared memory returns its input
    bit for bit in the SIMT interpreter (registers hold the codes), and its PTX assembles."""
    from llc.layouts import BlockedLayout
    from llc.passes.conversion_kernel import (
        conversion_kernel,
        conversion_ptx,
        run_conversion_kernel,
    )
    from llc.testing.ptxas import assemble, find_ptxas

    if how == "shuffle":
        src = BlockedLayout([1, 4], [4, 8], [1, 1], [1, 0])
        dst = BlockedLayout([1, 4], [8, 4], [1, 1], [1, 0])
        shape, warps, op = [8, 32], 1, "simt.shuffle"
    else:
        src = BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
        dst = BlockedLayout([4, 1], [4, 8], [1, 4], [0, 1])
        shape, warps, op = [32, 32], 4, "simt.shared_load"
    module = conversion_kernel(src, dst, shape, elem, warps)
    assert op in str(module) and f"vector<4x{elem}>" in str(module)
    fmt = "e4m3fn" if elem == "f8E4M3FN" else "e5m2"
    data = decode(np.random.default_rng(1).integers(0, 256, shape), fmt).astype(np.float32)
    out = run_conversion_kernel(module, data)
    assert np.array_equal(out, data, equal_nan=True)
    assert np.array_equal(np.signbit(out), np.signbit(data))
    if find_ptxas() is not None:
        for arch in ("sm_80", "sm_90"):
            assert assemble(conversion_ptx(src, dst, shape, elem, warps, arch), arch) == ""


F8_ARITH_KERNEL = """
module attributes {{"tl.num-warps" = 1 : i32, "tl.threads-per-warp" = 32 : i32,
                   "tl.target" = "cuda:80"}} {{
  func.func @k(%x_ptr: !tl.ptr<{t}>, %y_ptr: !tl.ptr<{t}>, %z_ptr: !tl.ptr<{t}>,
               %w_ptr: !tl.ptr<f32>) {{
    %r = tl.make_range {{end = 128 : i32, start = 0 : i32}} : tensor<128xi32>
    %xb = tl.splat %x_ptr : !tl.ptr<{t}> -> tensor<128x!tl.ptr<{t}>>
    %xp = tl.addptr %xb, %r : tensor<128x!tl.ptr<{t}>>, tensor<128xi32>
    %x = tl.load %xp : tensor<128x!tl.ptr<{t}>>
    %yb = tl.splat %y_ptr : !tl.ptr<{t}> -> tensor<128x!tl.ptr<{t}>>
    %yp = tl.addptr %yb, %r : tensor<128x!tl.ptr<{t}>>, tensor<128xi32>
    %y = tl.load %yp : tensor<128x!tl.ptr<{t}>>
    %s = arith.addf %x, %y : tensor<128x{t}>
    %prod = arith.mulf %s, %y : tensor<128x{t}>
    %lt = tl.cmpf olt, %x, %y : tensor<128x{t}>
    %z = tl.select %lt, %prod, %x : tensor<128xi1>, tensor<128x{t}>
    %zb = tl.splat %z_ptr : !tl.ptr<{t}> -> tensor<128x!tl.ptr<{t}>>
    %zp = tl.addptr %zb, %r : tensor<128x!tl.ptr<{t}>>, tensor<128xi32>
    tl.store %zp, %z : tensor<128x!tl.ptr<{t}>>
    %w = arith.extf %z : tensor<128x{t}> to tensor<128xf32>
    %wb = tl.splat %w_ptr : !tl.ptr<f32> -> tensor<128x!tl.ptr<f32>>
    %wp = tl.addptr %wb, %r : tensor<128x!tl.ptr<f32>>, tensor<128xi32>
    tl.store %wp, %w : tensor<128x!tl.ptr<f32>>
    func.return
  }}
}}
"""


@pytest.mark.parametrize("elem", ["f8E4M3FN", "f8E5M2"])
def test_f8_arithmetic_lowered(elem: str) -> None:
    """f8 add, multiply, compare and select (computed in f32, rounded back to f8, overflow and
    NaN included) lowered by llc-compile: the SIMT interpreter gives the tensor level bit for
    bit, and the PTX (f8 decoded/encoded around f32 arithmetic) assembles for sm_80 and sm_90."""
    from llc.dialects.simt_kernel_interpreter import GlobalMemory, make_kernel_interpreter
    from llc.dialects.tl_interpreter import Buffer, Pointer
    from llc.passes.targets.ptx import emit_ptx
    from llc.testing.ptxas import assemble, find_ptxas
    from llc.testing.semantics import apply_pipeline, make_interpreter, parse

    text = F8_ARITH_KERNEL.format(t=elem)
    lowered = apply_pipeline(parse(text), "llc-compile")
    assert re.search(rf"arith\.addf .* : vector<\d+x{elem}>", str(lowered))
    fmt = "e4m3fn" if elem == "f8E4M3FN" else "e5m2"
    rng = np.random.default_rng(5)
    x, y = (decode(rng.integers(0, 256, 128), fmt).astype(np.float32) for _ in range(2))
    outs = []
    for module in (parse(text), lowered):
        bufs = [Buffer(n, v) for n, v in (("x", x), ("y", y), ("z", np.zeros(128, np.float32)))]
        bufs.append(Buffer("w", np.zeros(128, np.float32)))
        ptrs = tuple(Pointer(b, 0) for b in bufs)
        if module is lowered:
            make_kernel_interpreter(module, 1, 32, GlobalMemory())[0].call_op("k", ptrs)
        else:
            make_interpreter(module).call_op("k", ptrs)
        outs.append((bufs[2].data.copy(), bufs[3].data.copy()))
    for tensor_level, simt_level in zip(outs[0], outs[1], strict=True):
        assert np.array_equal(tensor_level.view(np.uint32), simt_level.view(np.uint32))
    # the reference: numpy in f32, rounded to the format
    with np.errstate(all="ignore"):
        m = decode(encode((x + y).astype(np.float64), fmt), fmt) * y
        want = np.where(x < y, decode(encode(m.astype(np.float32), fmt), fmt), x)
    assert np.array_equal(outs[0][1], want.astype(np.float32), equal_nan=True)
    if find_ptxas() is not None:
        for arch in ("sm_80", "sm_90"):
            assert assemble(emit_ptx(lowered, arch), arch) == ""
