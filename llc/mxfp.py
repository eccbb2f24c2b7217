"""Narrow floats (fp8, fp4) and the OCP Microscaling (MX) format, in numpy; the fp4 unpack layout.

Formats (OCP 8-bit floating point and OCP MX v1.0 specifications):

* ``e4m3fn`` (f8E4M3FN): bias 7, no infinities, ``S.1111.111`` is NaN, largest 448;
* ``e5m2`` (f8E5M2): bias 15, IEEE-like with infinities, largest 57344;
* ``e2m1`` (f4E2M1FN, the MXFP4 element): bias 1, values ``0, 0.5, 1, 1.5, 2, 3, 4, 6``, no
  infinities or NaN;
* ``e8m0`` (the MX scale): ``2^(code - 127)``, code 255 is NaN.

An MX block is 32 elements sharing one e8m0 scale; its value is ``scale * element``. fp4 values
are stored two per byte, the even element of a pair in the low nibble (as Triton packs them).

Unpacking fp4 along an axis is a layout change (:func:`unpacked_layout`): each byte a thread holds
becomes two consecutive elements of the same thread, i.e. the linear layout of the unpacked
tensor is ``identity_1d(2, register, axis) * L``: one new lowest register bit for the low/high
nibble, and every existing basis doubled along the axis.

>>> decode(np.arange(8), "e2m1").tolist()
[0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
>>> quantize(np.array([0.3, 2.5, 5.0, 7.0, 100.0]), "e2m1", saturate=True).tolist()
[0.5, 2.0, 4.0, 6.0, 6.0]
"""

from __future__ import annotations

import functools

import numpy as np

from llc.errors import LayoutError
from llc.linear_layout import LinearLayout

__all__ = [
    "FORMATS",
    "MX_BLOCK",
    "decode",
    "decode_e8m0",
    "encode",
    "mx_dequantize",
    "mx_quantize",
    "pack_fp4",
    "quantize",
    "unpack_fp4",
    "unpacked_layout",
]

#: name -> (exponent bits, mantissa bits, bias, has infinities, all-ones code is NaN)
FORMATS: dict[str, tuple[int, int, int, bool, bool]] = {
    "e4m3fn": (4, 3, 7, False, True),
    "e5m2": (5, 2, 15, True, True),
    "e2m1": (2, 1, 1, False, False),
}

#: Elements sharing one e8m0 scale in the MX formats.
MX_BLOCK = 32


def _format(fmt: str) -> tuple[int, int, int, bool, bool]:
    if fmt not in FORMATS:
        raise LayoutError(f"float format '{fmt}' is not one of {sorted(FORMATS)}")
    return FORMATS[fmt]


@functools.cache
def _table(fmt: str) -> np.ndarray:
    """Every code's value (NaN for NaN codes)."""
    ebits, mbits, bias, has_inf, ones_nan = _format(fmt)
    bits = 1 + ebits + mbits
    codes = np.arange(1 << bits)
    sign = np.where(codes >> (bits - 1) & 1, -1.0, 1.0)
    exp = codes >> mbits & ((1 << ebits) - 1)
    man = codes & ((1 << mbits) - 1)
    normal = (1 + man / (1 << mbits)) * np.exp2(exp - bias)
    sub = (man / (1 << mbits)) * np.exp2(1 - bias)
    values = sign * np.where(exp == 0, sub, normal)
    top = exp == (1 << ebits) - 1
    if has_inf:
        values = np.where(top & (man == 0), sign * np.inf, values)
        values = np.where(top & (man != 0), np.nan, values)
    elif ones_nan:
        values = np.where(top & (man == (1 << mbits) - 1), np.nan, values)
    return values


def decode(codes: np.ndarray, fmt: str) -> np.ndarray:
    """Values (float64) of the codes of ``fmt``.

    >>> decode(np.array([0x7E, 0x7F, 0x38]), "e4m3fn").tolist()
    [448.0, nan, 1.0]
    """
    return _table(fmt)[np.asarray(codes, dtype=np.int64)]


def encode(values: np.ndarray, fmt: str, saturate: bool = False) -> np.ndarray:
    """Codes (int64) of ``values`` rounded to nearest, ties to even.

    Beyond the largest finite value: the largest value when ``saturate`` (the MX conversion),
    else infinity where the format has it, else NaN. NaN stays NaN (e2m1 has none: an error).

    >>> encode(np.array([1.0, -0.25, 1.0625, 1.1875]), "e4m3fn").tolist()
    [56, 168, 56, 58]
    """
    ebits, mbits, _bias, has_inf, ones_nan = _format(fmt)
    table = _table(fmt)
    bits = 1 + ebits + mbits
    half = 1 << (bits - 1)
    positive = table[:half]
    finite = np.isfinite(positive)
    codes = np.arange(half)[finite]
    magnitudes = positive[finite]
    order = np.argsort(magnitudes, kind="stable")
    magnitudes, codes = magnitudes[order], codes[order]
    x = np.asarray(values, dtype=np.float64)
    mag = np.abs(x)
    hi = np.clip(np.searchsorted(magnitudes, mag), 1, len(magnitudes) - 1)
    lo = hi - 1
    d_lo, d_hi = mag - magnitudes[lo], magnitudes[hi] - mag
    pick_hi = (d_hi < d_lo) | ((d_hi == d_lo) & (codes[hi] % 2 == 0))
    out = np.where(pick_hi, codes[hi], codes[lo])
    largest = magnitudes[-1]
    # Past the largest value by more than half an ulp of the top binade: overflow.
    ulp = largest - magnitudes[-2]
    over = mag >= largest + ulp / 2
    if saturate:
        out = np.where(mag > largest, codes[-1], out)
    elif has_inf:
        out = np.where(over, (1 << (ebits + mbits)) - (1 << mbits) + 0 * out, out)
    elif ones_nan:
        out = np.where(over, half - 1, out)
    else:
        out = np.where(mag > largest, codes[-1], out)
    nan = np.isnan(x)
    if nan.any():
        if not (has_inf or ones_nan):
            raise LayoutError(f"{fmt} has no NaN encoding")
        out = np.where(nan, half - 1, out)
    return np.where(np.signbit(x), out | half, out).astype(np.int64)


def quantize(values: np.ndarray, fmt: str, saturate: bool = False) -> np.ndarray:
    """``values`` rounded to ``fmt`` and back (float64)."""
    return decode(encode(values, fmt, saturate), fmt)


def decode_e8m0(codes: np.ndarray) -> np.ndarray:
    """MX scales: ``2^(code - 127)``, NaN for 255.

    >>> decode_e8m0(np.array([127, 130, 0])).tolist()
    [1.0, 8.0, 5.877471754111438e-39]
    """
    c = np.asarray(codes, dtype=np.int64)
    return np.where(c == 255, np.nan, np.exp2(c - 127.0))


def pack_fp4(codes: np.ndarray, axis: int) -> np.ndarray:
    """Pack e2m1 codes two per byte along ``axis`` (even element in the low nibble) as int8.

    >>> pack_fp4(np.array([[1, 2, 3, 15]]), 1).view(np.uint8).tolist()
    [[33, 243]]
    """
    c = np.moveaxis(np.asarray(codes, dtype=np.int64), axis, -1)
    if c.shape[-1] % 2:
        raise LayoutError(f"pack_fp4: dim {axis} has odd size {c.shape[-1]}")
    packed = (c[..., 0::2] & 15) | ((c[..., 1::2] & 15) << 4)
    return np.moveaxis(packed.astype(np.uint8).view(np.int8), -1, axis)


def unpack_fp4(packed: np.ndarray, axis: int) -> np.ndarray:
    """The e2m1 codes of int8 bytes, two per byte, along ``axis`` (its size doubles).

    >>> unpack_fp4(pack_fp4(np.array([[1, 2, 3, 15]]), 1), 1).tolist()
    [[1, 2, 3, 15]]
    """
    p = np.moveaxis(np.asarray(packed).astype(np.int64) & 255, axis, -1)
    out = np.stack([p & 15, p >> 4], axis=-1).reshape(*p.shape[:-1], 2 * p.shape[-1])
    return np.moveaxis(out, -1, axis)


def mx_quantize(x: np.ndarray, axis: int, fmt: str = "e2m1") -> tuple[np.ndarray, np.ndarray]:
    """OCP MX quantization of ``x`` in blocks of 32 along ``axis``: ``(element codes, e8m0 codes)``.

    The shared exponent is ``floor(log2(max |x| of the block)) - emax(fmt)`` (OCP MX v1.0, 6.3),
    elements are ``x / 2^shared`` rounded to ``fmt`` with saturation; an all-zero block gets the
    smallest scale.

    >>> codes, scales = mx_quantize(np.full((1, 32), 3.0), 1)   # 3 = 2^(1 - 2) * 6
    >>> decode_e8m0(scales).tolist(), decode(codes[0, :2], "e2m1").tolist()
    ([[0.5]], [6.0, 6.0])
    """
    ebits, _mbits, bias, _, _ = _format(fmt)
    emax = (1 << ebits) - 1 - bias if fmt == "e2m1" else {"e4m3fn": 8, "e5m2": 15}[fmt]
    xs = np.moveaxis(np.asarray(x, dtype=np.float64), axis, -1)
    if xs.shape[-1] % MX_BLOCK:
        raise LayoutError(f"mx_quantize: dim {axis} has size {xs.shape[-1]}, not a multiple of 32")
    blocks = xs.reshape(*xs.shape[:-1], -1, MX_BLOCK)
    amax = np.abs(blocks).max(axis=-1)
    with np.errstate(divide="ignore"):
        shared = np.where(amax > 0, np.floor(np.log2(np.where(amax > 0, amax, 1))) - emax, -127)
    shared = np.clip(shared, -127, 127)
    scale_codes = (shared + 127).astype(np.int64)
    elements = encode(blocks / np.exp2(shared)[..., None], fmt, saturate=True)
    elements = np.moveaxis(elements.reshape(xs.shape), -1, axis)
    return elements, np.moveaxis(scale_codes, -1, axis)


def mx_dequantize(
    codes: np.ndarray, scales: np.ndarray, axis: int, fmt: str = "e2m1"
) -> np.ndarray:
    """``scale * element`` of MX data (float64); ``scales`` has one entry per 32 along ``axis``."""
    values = decode(codes, fmt)
    expanded = np.repeat(decode_e8m0(scales), MX_BLOCK, axis=axis)
    return values * expanded


def unpacked_layout(packed: LinearLayout, axis: int) -> LinearLayout:
    """The layout of ``fp4_to_fp(x, axis)`` when ``x`` (two fp4 per byte) has layout ``packed``.

    Each byte a thread holds becomes two consecutive elements of that thread: one new lowest
    register bit selects the nibble, and every basis doubles along the axis. In LinearLayout
    algebra that is the product ``identity_1d(2, register, dim_axis) * packed``.

    >>> packed = LinearLayout.from_bases(
    ...     [("register", [[0, 1]]), ("lane", [[0, 2], [1, 0]]), ("warp", [])], ["dim0", "dim1"])
    >>> unpacked_layout(packed, 1).bases[:2]
    [('register', [[0, 1], [0, 2]]), ('lane', [[0, 4], [1, 0]])]
    """
    outs = packed.get_out_dim_names()
    if not 0 <= axis < len(outs):
        raise LayoutError(f"unpacked_layout: axis {axis} is out of range for rank {len(outs)}")
    if not packed.has_in_dim("register"):
        raise LayoutError("unpacked_layout: the packed layout has no 'register' in-dim")
    nibble = LinearLayout.identity_1d(2, "register", outs[axis])
    return (nibble * packed).transpose_outs(outs).transpose_ins(packed.get_in_dim_names())
