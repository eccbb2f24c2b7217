"""Exact 8-bit float conversions as PTX integer sequences (f8E4M3FN, f8E5M2 <-> f16/f32).

PTX converts 8-bit floats in hardware only from sm_89 (``cvt.rn.f16x2.e4m3x2``,
``cvt.rn.satfinite.e4m3x2.f32``), and its conversions *to* f8 exist only with ``.satfinite``
(clamp to the largest finite value), while llc's semantics (MLIR's ``truncf``/``sitofp`` and the
interpreters, :mod:`llc.mxfp`) round to nearest-even and overflow to NaN (e4m3fn) or infinity
(e5m2). So the PTX emitter uses these sequences for every conversion *to* f8, and for
conversions *from* f8 below sm_90 (ptxas accepts the f8 ``cvt`` for sm_89 only from PTX ISA 8.1,
and llc prints ``.version 8.0``).

A sequence is a tuple of steps over named 32-bit registers (``c``: an f8 code in the low byte,
``h``: f16 bits in the low half, ``x``: f32 bits). The same steps are printed as PTX
(:func:`emit_steps`) and evaluated in numpy (:func:`evaluate`), so the exhaustive tests of
:func:`evaluate` against :mod:`llc.mxfp` check exactly what the PTX computes.

Steps (``d`` a destination, ``a``/``b`` a register name or an integer, ``p`` a predicate):
``("and"|"or"|"add"|"sub"|"shl"|"shr", d, a, b)``, ``("lt"|"ge"|"eq", p, a, b)`` (unsigned
compare), ``("sel", d, a, b, p)`` (``p ? a : b``), ``("byte64", d, K, a)`` (byte ``a / 8`` of
the 64-bit constant ``K``: ``(K >> a) & 255``), ``("rni", d, a, k)`` (``a`` read as an f32,
times the power of two ``k``, rounded to the nearest-even integer: exact).

>>> import numpy as np
>>> evaluate(decode_steps("e4m3fn"), {"c": np.array([0x38, 0x01, 0xFE])})["h"].tolist()
[15360, 6144, 57088]
>>> [hex(v) for v in np.array([1.0, 2**-9, -448.0], np.float16).view(np.uint16)]
['0x3c00', '0x1800', '0xdf00']
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["F8_FORMATS", "decode_steps", "emit_steps", "encode_steps", "evaluate"]

Step = tuple
"""One step of a sequence (see the module docstring)."""

#: format -> (mantissa bits, exponent bias, smallest normal as f32 bits, first overflowing
#: magnitude as f32 bits, the code of an overflow).
F8_FORMATS: dict[str, tuple[int, int, int, int, int]] = {
    # e4m3fn: largest 448, values >= 464 (448 + half an ulp) overflow to NaN (S.1111.111)
    "e4m3fn": (3, 7, 0x3C800000, 0x43E80000, 0x7F),
    # e5m2: largest 57344, values >= 61440 overflow to infinity (S.11111.00)
    "e5m2": (2, 15, 0x38800000, 0x47700000, 0x7C),
}

# f16 bits of the e4m3fn subnormals m * 2^-9 (m = 0..7), high bytes, one per byte of a b64.
_E4M3_SUBNORMAL_F16_HIGH = 0x232221201E1C1800


def decode_steps(fmt: str) -> tuple[Step, ...]:
    """Steps turning an f8 code ``c`` into the f16 bits ``h`` of the same value (exact).

    >>> len(decode_steps("e5m2"))
    1
    """
    if fmt == "e5m2":  # e5m2 is the high byte of an f16
        return (("shl", "h", "c", 8),)
    if fmt != "e4m3fn":
        raise ValueError(f"no 8-bit float format '{fmt}'")
    return (
        ("and", "m", "c", 0x7F),
        ("shl", "n", "m", 7),
        ("add", "n", "n", 0x2000),  # normal: exponent bias 7 -> 15
        ("and", "e", "c", 0x78),
        ("eq", "sub", "e", 0),
        ("shl", "k", "m", 3),
        ("byte64", "t", _E4M3_SUBNORMAL_F16_HIGH, "k"),
        ("shl", "t", "t", 8),
        ("sel", "h", "t", "n", "sub"),
        ("eq", "nan", "m", 0x7F),
        ("sel", "h", 0x7E00, "h", "nan"),
        ("and", "s", "c", 0x80),
        ("shl", "s", "s", 8),
        ("or", "h", "h", "s"),
    )


def encode_steps(fmt: str) -> tuple[Step, ...]:
    """Steps rounding the f32 bits ``x`` to the nearest f8 code ``c`` (ties to even; overflow
    to NaN for e4m3fn, to infinity for e5m2; NaN to NaN).

    >>> encode_steps("e4m3fn")[0]
    ('and', 'a', 'x', 2147483647)
    """
    if fmt not in F8_FORMATS:
        raise ValueError(f"no 8-bit float format '{fmt}'")
    mbits, bias, min_normal, overflow, overflow_code = F8_FORMATS[fmt]
    drop = 23 - mbits
    return (
        ("and", "a", "x", 0x7FFFFFFF),
        # normal: round the f32 mantissa to mbits bits (a carry moves into the exponent)
        ("shr", "r", "a", drop),
        ("and", "r", "r", 1),
        ("add", "r", "r", (1 << (drop - 1)) - 1),
        ("add", "r", "r", "a"),
        ("shr", "r", "r", drop),
        ("sub", "r", "r", (127 - bias) << mbits),
        # subnormal: the value in units of the smallest subnormal, rounded to even
        ("rni", "q", "a", 1 << (bias - 1 + mbits)),
        ("lt", "small", "a", min_normal),
        ("sel", "c", "q", "r", "small"),
        ("ge", "big", "a", overflow),
        ("sel", "c", overflow_code, "c", "big"),
        ("lt", "nan", 0x7F800000, "a"),
        ("sel", "c", 0x7F, "c", "nan"),
        ("shr", "s", "x", 24),
        ("and", "s", "s", 0x80),
        ("or", "c", "c", "s"),
    )


def evaluate(steps: tuple[Step, ...], inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Run ``steps`` on numpy arrays of unsigned 32-bit values (every register is returned).

    >>> evaluate((("add", "y", "x", 1),), {"x": np.array([0xFFFFFFFF])})["y"].tolist()
    [0]
    """
    regs = {k: np.asarray(v, np.uint64) & 0xFFFFFFFF for k, v in inputs.items()}

    def val(x: str | int) -> np.ndarray:
        return regs[x] if isinstance(x, str) else np.uint64(x)

    for step in steps:
        op, d = step[0], step[1]
        if op == "sel":
            out = np.where(regs[step[4]].astype(bool), val(step[2]), val(step[3]))
        elif op == "byte64":
            shift = val(step[3])
            out = np.where(shift < 64, np.uint64(step[2]) >> np.minimum(shift, 63), 0) & 0xFF
        elif op == "rni":
            # cvt.rni.u32.f32 saturates, and gives 0 for NaN
            with np.errstate(invalid="ignore"):
                f = val(step[2]).astype(np.uint32).view(np.float32).astype(np.float64)
                out = np.clip(np.nan_to_num(np.rint(f * step[3])), 0, 0xFFFFFFFF).astype(np.uint64)
        else:
            out = _NUMPY_BINARY[op](val(step[2]), val(step[3]))
        regs[d] = np.asarray(out, np.uint64) & 0xFFFFFFFF
    return regs


_NUMPY_BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "and": np.bitwise_and,
    "or": np.bitwise_or,
    "add": np.add,
    "sub": np.subtract,
    "shl": np.left_shift,
    "shr": np.right_shift,
    "lt": np.less,
    "ge": np.greater_equal,
    "eq": np.equal,
}

_PTX_BINARY = {"and": "and.b32", "or": "or.b32", "add": "add.u32", "sub": "sub.u32"}
_PTX_SHIFT = {"shl": "shl.b32", "shr": "shr.u32"}
_PTX_COMPARE = {"lt": "lt", "ge": "ge", "eq": "eq"}


def emit_steps(
    steps: tuple[Step, ...],
    inputs: dict[str, str],
    new: Callable[[str, str], str],
    emit: Callable[[str], None],
) -> dict[str, str]:
    """Print ``steps`` as PTX: ``inputs`` names the ``.b32`` registers of the inputs, ``new(kind,
    prefix)`` makes a register, ``emit(line)`` prints an instruction. Returns every register.

    >>> lines = []
    >>> regs = emit_steps(decode_steps("e5m2"), {"c": "%r1"}, lambda k, p: p + "9", lines.append)
    >>> lines, regs["h"]
    (['shl.b32 %r9, %r1, 8;'], '%r9')
    """
    regs = dict(inputs)

    def val(x: str | int) -> str:
        return regs[x] if isinstance(x, str) else str(x)

    for step in steps:
        op, d = step[0], step[1]
        if op in _PTX_COMPARE:
            p = new(".pred", "%p")
            emit(f"setp.{_PTX_COMPARE[op]}.u32 {p}, {val(step[2])}, {val(step[3])};")
            regs[d] = p
            continue
        r = new(".b32", "%r")
        if op == "sel":
            emit(f"selp.b32 {r}, {val(step[2])}, {val(step[3])}, {regs[step[4]]};")
        elif op == "byte64":
            k, w = new(".b64", "%rd"), new(".b64", "%rd")
            emit(f"mov.b64 {k}, 0x{step[2]:016X};")
            emit(f"shr.b64 {w}, {k}, {val(step[3])};")  # shifts past 63 give 0
            emit(f"cvt.u32.u64 {r}, {w};")
            emit(f"and.b32 {r}, {r}, 255;")
        elif op == "rni":
            x, y = new(".f32", "%f"), new(".f32", "%f")
            scale = np.array(step[3], np.float32).view(np.uint32)
            emit(f"mov.b32 {x}, {val(step[2])};")
            emit(f"mul.rn.f32 {y}, {x}, 0f{int(scale):08X};")  # a power of two: exact
            emit(f"cvt.rni.u32.f32 {r}, {y};")
        elif op in _PTX_SHIFT:
            emit(f"{_PTX_SHIFT[op]} {r}, {val(step[2])}, {val(step[3])};")
        else:
            emit(f"{_PTX_BINARY[op]} {r}, {val(step[2])}, {val(step[3])};")
        regs[d] = r
    return regs
