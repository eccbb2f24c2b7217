"""MXFP lowered and interpreted: ``tl.fp4_to_fp`` and ``tl.dot_scaled`` kernels go through
``llc-compile`` (``llc-decompose-dot-scaled``, layouts, SIMT code), run in the SIMT kernel
interpreter (``llc-run``) and match the numpy OCP MX reference of :mod:`llc.mxfp` on random data,
including every fp4 code, NaN / smallest (0) e8m0 scales and f8 infinities and NaNs."""

from __future__ import annotations

import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from llc.mxfp import MX_BLOCK, decode, decode_e8m0, unpack_fp4
from llc.testing.mxfp_kernels import dot_scaled_kernel, operand_shape
from llc.testing.semantics import apply_pipeline, parse

ROOT = Path(__file__).resolve().parents[2]
FP4_KERNEL = ROOT / "test" / "lit" / "lower" / "Inputs" / "fp4_unpack.mlir"


def _compile(text: str) -> str:
    module = parse(text)
    apply_pipeline(module, "llc-compile")
    lowered = str(module)
    assert "tensor<" not in lowered and "tl.dot_scaled" not in lowered
    return lowered


def _run_lowered(tmp_path: Path, text: str, entry: str, args: list[str]) -> Path:
    path = tmp_path / f"{entry}.simt.mlir"
    path.write_text(text)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "llc.tools.run", str(path), "--entry", entry, "--out", str(out)]
    proc = subprocess.run([*cmd, "--args", *args], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return out


def _save(tmp_path: Path, name: str, value: np.ndarray) -> str:
    path = tmp_path / f"{name}.npy"
    np.save(path, value)
    return str(path)


def test_fp4_to_fp_every_code_lowered(tmp_path: Path) -> None:
    """Every byte 0..255 (so every e2m1 code in both nibbles) unpacks to the OCP values in
    f32, f16 and bf16 after llc-compile."""
    rng = np.random.default_rng(7)
    packed = rng.permutation(np.tile(np.arange(256), 2)).reshape(32, 16).astype(np.uint8)
    packed = packed.view(np.int8)
    lowered = _compile(FP4_KERNEL.read_text())
    args = [_save(tmp_path, "p", packed), "zeros:32x32xf32", "zeros:32x32xf16", "zeros:32x32xf32"]
    out = _run_lowered(tmp_path, lowered, "fp4_unpack", args)
    codes = unpack_fp4(packed, 1)
    assert set(np.unique(codes).tolist()) == set(range(16))
    want = decode(codes, "e2m1")
    for name, dtype in (("f_ptr", np.float32), ("h_ptr", np.float16), ("b_ptr", np.float32)):
        got = np.load(out / f"{name}.npy")
        assert got.dtype == dtype
        # bit-exact, signed zeros included (code 8 is -0.0)
        assert np.array_equal(got.astype(np.float64), want)
        assert np.array_equal(np.signbit(got), np.signbit(want))


_FINITE = {
    "e4m3": [c for c in range(256) if c & 0x7F != 0x7F],
    "e5m2": [c for c in range(256) if (c >> 2) & 0x1F != 0x1F],
}
_F8_NAME = {"e4m3": "e4m3fn", "e5m2": "e5m2"}


def _operand(
    rng: np.random.Generator, fmt: str, side: str, m: int, n: int, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """(the stored operand, its element values as float64 in M x K / K x N)."""
    shape = operand_shape(fmt, side, m, n, k)
    axis = 1 if side == "a" else 0
    if fmt == "e2m1":
        stored = rng.integers(0, 256, shape).astype(np.uint8).view(np.int8)
        return stored, decode(unpack_fp4(stored, axis), "e2m1")
    if fmt in _FINITE:
        codes = rng.choice(_FINITE[fmt], shape)
        # one NaN code, and for e5m2 one infinity, in row/column 1 and 2
        where = (1, 5) if side == "a" else (5, 1)
        codes[where] = 0x7F
        if fmt == "e5m2":
            codes[(2, 7) if side == "a" else (7, 2)] = 0x7C
        stored = codes.astype(np.uint8).view(np.int8)
        return stored, decode(codes, _F8_NAME[fmt])
    if fmt == "fp16":
        stored = rng.standard_normal(shape).astype(np.float16)
        return stored, stored.astype(np.float64)
    # bf16: stored as f32 holding bf16 values (the kernel rounds to bf16, exactly)
    bits = rng.standard_normal(shape).astype(np.float32).view(np.uint32) & 0xFFFF0000
    stored = bits.view(np.float32)
    return stored, stored.astype(np.float64)


def _scales(rng: np.random.Generator, rows: int, groups: int, f16: bool) -> np.ndarray:
    # fp16 operands compute in f16 (as in Triton): keep scaled values inside its range (scales
    # up to 2^0: e5m2's 57344 < 65504) and give it no scale 0 (2^-127 underflows to 0 in f16,
    # and inf * 0 would be NaN where OCP says inf)
    codes = (
        rng.integers(115, 128, (rows, groups)) if f16 else rng.integers(120, 137, (rows, groups))
    )
    codes[3, 0] = 255  # NaN
    if not f16:
        codes[4, :] = 0  # 2^-127, the smallest scale, on a whole row
    return codes.astype(np.uint8).view(np.int8)


@pytest.mark.parametrize(
    ("lhs", "rhs", "m", "n", "k"),
    [
        ("e2m1", "e2m1", 32, 32, 64),
        ("e4m3", "e5m2", 16, 32, 64),
        ("bf16", "e2m1", 32, 16, 32),
        ("e2m1", "bf16", 16, 16, 64),
        ("fp16", "e4m3", 16, 16, 32),
        ("e5m2", "fp16", 16, 16, 32),
    ],
)
def test_dot_scaled_lowered_matches_ocp_reference(
    tmp_path: Path, lhs: str, rhs: str, m: int, n: int, k: int
) -> None:
    rng = np.random.default_rng(zlib.crc32(f"{lhs}x{rhs}".encode()))
    a, a_val = _operand(rng, lhs, "a", m, n, k)
    b, b_val = _operand(rng, rhs, "b", m, n, k)
    f16 = "fp16" in (lhs, rhs)
    a_scale = _scales(rng, m, k // MX_BLOCK, f16)
    b_scale = _scales(rng, n, k // MX_BLOCK, f16)
    lowered = _compile(dot_scaled_kernel(lhs, rhs, m, n, k))
    args = [
        _save(tmp_path, "a", a),
        _save(tmp_path, "as", a_scale),
        _save(tmp_path, "b", b),
        _save(tmp_path, "bs", b_scale),
        f"zeros:{m}x{n}xf32",
    ]
    got = np.load(_run_lowered(tmp_path, lowered, "mx", args) / "o_ptr.npy").astype(np.float64)
    # OCP MX: element times 2^(scale - 127) per 32 along K, 255 is NaN; exact sum in float64.
    sa = np.repeat(decode_e8m0(a_scale.view(np.uint8)), MX_BLOCK, axis=1)
    sb = np.repeat(decode_e8m0(b_scale.view(np.uint8)), MX_BLOCK, axis=1).T
    with np.errstate(all="ignore"):
        ref = (a_val * sa) @ (b_val * sb)
        bound = np.abs(a_val * sa) @ np.abs(b_val * sb)
    assert np.isnan(ref).any()  # the NaN scale (and NaN codes) reach the result
    assert np.array_equal(np.isnan(got), np.isnan(ref))
    assert np.array_equal(np.isinf(got), np.isinf(ref))
    finite = np.isfinite(ref)
    assert np.array_equal(got[np.isinf(ref)], ref[np.isinf(ref)])
    # Error sources: f32 accumulation (mma), |error| <= K * 2^-24 * sum |products|; rounding
    # the scaled operands to the compute type, exact except below its normal range (scale 0
    # makes bf16 subnormals, steps of 2^-133; f16 subnormals are steps of 2^-24); K f32
    # subnormal steps where products underflow (both scales 0: 2^-254).
    tol = 1e-5
    half_step = 2.0**-25 if f16 else 2.0**-134
    with np.errstate(all="ignore"):
        a_sum = np.nansum(np.abs(np.where(np.isinf(a_val), 0, a_val) * sa), axis=1)[:, None]
        b_sum = np.nansum(np.abs(np.where(np.isinf(b_val), 0, b_val) * sb), axis=0)[None, :]
    limit = tol * bound + half_step * (a_sum + b_sum) + k * 2.0**-149
    err = np.abs(got[finite] - ref[finite])
    limit = limit[finite]
    assert (err <= limit).all(), float((err / limit).max())
    if not f16:  # the row of smallest scales is tiny but not flushed to zero
        row = np.isfinite(ref[4])
        assert (np.abs(ref[4][row]) < 1e-25).all() and (got[4][row] != 0).any()
