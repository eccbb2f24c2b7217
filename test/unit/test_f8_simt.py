"""8-bit floats (f8E4M3FN, f8E5M2) below the tensor level: the PTX conversion sequences against
the OCP codecs (exhaustively on codes and f16 values), and f8 data moved by shuffles and
shared memory in lowered conversion kernels (SIMT interpreter and ptxas)."""

from __future__ import annotations

import numpy as np
import pytest

from llc.mxfp import decode, encode
from llc.passes.ptx_f8 import decode_steps, encode_steps, evaluate

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
