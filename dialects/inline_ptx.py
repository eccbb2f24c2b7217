"""Running the PTX of ``tl.elementwise_inline_asm`` (and its lowered ``simt.inline_asm``) in the
interpreters: a model of a small set of PTX instructions, as the PTX ISA defines them.

An asm string is a sequence of ``;``-separated instructions (``{``/``}`` scopes and ``.reg``
declarations of locals allowed) over the operands ``$0..$n`` -- the outputs first, then the
inputs, as the constraints list them (``=r,r,r``) -- local registers, and immediates (integers,
``0fXXXXXXXX`` / ``0dXXXXXXXXXXXXXXXX`` floats). Each operand is a register of its constraint's
width (``h`` 16, ``r``/``f`` 32, ``l``/``d`` 64 bits) holding raw bits; each instruction reads
them as its type.

Modelled: ``mov``, ``add``, ``sub``, ``mul`` (``.lo`` for integers), ``mad``/``fma``, ``div``
(floats), ``min``, ``max``, ``neg``, ``abs``, ``and``, ``or``, ``xor``, ``not``, ``shl``,
``shr``, ``sqrt``, ``rsqrt.approx``, ``ex2.approx``, ``lg2.approx``, ``rcp`` on ``.f32``/``.f64``/
``.s32``/``.u32``/``.b32``/``.s64``/``.u64``/``.b64``/``.f16``/``.b16``; rounding modifiers
(``.rn``), ``.ftz`` and ``.approx`` are read as IEEE results in the type (the approximations to
the result rounded once). Anything else is an :class:`InlinePtxError` naming the instruction.

>>> import numpy as np
>>> x = np.array([-1.5, 2.0], np.float32).view(np.uint32)
>>> out = run_asm("max.f32 $0, $1, 0f00000000;", "=r,r", [x])
>>> out[0].view(np.float32).tolist()
[0.0, 2.0]
"""

from __future__ import annotations

import re
import struct
from collections.abc import Sequence

import numpy as np

__all__ = ["CONSTRAINT_BITS", "InlinePtxError", "parse_constraints", "run_asm"]

CONSTRAINT_BITS = {"h": 16, "r": 32, "f": 32, "l": 64, "d": 64}
"""Register width of each operand constraint letter."""


class InlinePtxError(ValueError):
    """An asm string or constraint the interpreters do not model."""


def parse_constraints(constraints: str) -> tuple[list[str], list[str]]:
    """(output letters, input letters) of an LLVM constraint string ``=r,=r,r,l``.

    >>> parse_constraints("=r,=h,r,l")
    (['r', 'h'], ['r', 'l'])
    """
    outs, ins = [], []
    for c in (c.strip() for c in constraints.split(",") if c.strip()):
        letter = c.lstrip("=&")
        if letter not in CONSTRAINT_BITS:
            raise InlinePtxError(f"constraint '{c}' (llc models {', '.join(CONSTRAINT_BITS)})")
        (outs if c.startswith("=") else ins).append(letter)
    return outs, ins


_TYPES = {
    "f16": np.float16,
    "f32": np.float32,
    "f64": np.float64,
    "s16": np.int16,
    "u16": np.uint16,
    "b16": np.uint16,
    "s32": np.int32,
    "u32": np.uint32,
    "b32": np.uint32,
    "s64": np.int64,
    "u64": np.uint64,
    "b64": np.uint64,
}
_MODIFIERS = {"rn", "rz", "rm", "rp", "ftz", "approx", "sat", "full", "lo", "wide", "hi"}


def _bits_of(value: np.ndarray, dtype: type) -> np.ndarray:
    width = np.dtype(dtype).itemsize * 8
    return np.ascontiguousarray(np.asarray(value, dtype)).view(f"u{width // 8}")


def _immediate(text: str, dtype: type, shape: tuple[int, ...]) -> np.ndarray:
    if text.startswith(("0f", "0F")):
        value: float | int = struct.unpack(">f", bytes.fromhex(text[2:]))[0]
    elif text.startswith(("0d", "0D")):
        value = struct.unpack(">d", bytes.fromhex(text[2:]))[0]
    else:
        value = int(text, 0)
    with np.errstate(all="ignore"):
        return np.full(shape, value).astype(dtype)


def _compute(name: str, dtype: type, xs: list[np.ndarray], line: str) -> np.ndarray:
    is_float = np.issubdtype(dtype, np.floating)
    one = {
        "mov": lambda a: a,
        "neg": lambda a: -a,
        "abs": np.abs,
        "not": np.invert,
        "sqrt": lambda a: np.sqrt(a.astype(np.float64)),
        "rsqrt": lambda a: 1.0 / np.sqrt(a.astype(np.float64)),
        "rcp": lambda a: 1.0 / a.astype(np.float64),
        "ex2": lambda a: np.exp2(a.astype(np.float64)),
        "lg2": lambda a: np.log2(a.astype(np.float64)),
    }
    two = {
        "add": np.add,
        "sub": np.subtract,
        "mul": np.multiply,
        "div": np.divide,
        "min": np.fmin if is_float else np.minimum,
        "max": np.fmax if is_float else np.maximum,
        "and": np.bitwise_and,
        "or": np.bitwise_or,
        "xor": np.bitwise_xor,
        "shl": lambda a, b: np.left_shift(a, b.astype(np.uint32) & 63),
        "shr": lambda a, b: np.right_shift(a, b.astype(np.uint32) & 63),
    }
    with np.errstate(all="ignore"):
        if name in one and len(xs) == 1:
            return np.asarray(one[name](xs[0])).astype(dtype)
        if name in two and len(xs) == 2 and not (name == "div" and not is_float):
            return np.asarray(two[name](xs[0], xs[1])).astype(dtype)
        if name in ("fma", "mad") and len(xs) == 3:
            wide = np.float64 if is_float else np.int64
            a, b, c = (x.astype(wide) for x in xs)
            return (a * b + c).astype(dtype)
    raise InlinePtxError(f"PTX '{line}' is not modelled by the interpreters")


def run_asm(
    asm: str, constraints: str, inputs: Sequence[np.ndarray], shape: tuple[int, ...] | None = None
) -> list[np.ndarray]:
    """Run ``asm`` on every element of the ``inputs`` (raw bits, one array per input operand,
    of its constraint's width); the outputs' raw bits."""
    outs, ins = parse_constraints(constraints)
    if len(ins) != len(inputs):
        raise InlinePtxError(f"{len(ins)} input constraints for {len(inputs)} operands")
    shape = shape if shape is not None else np.shape(inputs[0]) if inputs else ()
    regs: dict[str, np.ndarray] = {}
    for i, letter in enumerate(outs):
        regs[f"${i}"] = np.zeros(shape, f"u{CONSTRAINT_BITS[letter] // 8}")
    for i, (letter, value) in enumerate(zip(ins, inputs, strict=True)):
        regs[f"${len(outs) + i}"] = np.broadcast_to(
            np.asarray(value).astype(f"u{CONSTRAINT_BITS[letter] // 8}"), shape
        )
    text = asm.replace("{", ";").replace("}", ";").replace("\n", ";")
    for raw in text.split(";"):
        line = raw.strip()
        if not line or line.startswith("//"):
            continue
        head, _, rest = line.partition(" ")
        if head == ".reg":  # .reg .f32 %a, %b;  (locals: any name, set before use)
            continue
        parts = head.split(".")
        name = parts[0]
        types = [p for p in parts[1:] if p in _TYPES]
        unknown = [p for p in parts[1:] if p not in _TYPES and p not in _MODIFIERS]
        if len(types) != 1 or unknown or name.startswith("@"):
            raise InlinePtxError(f"PTX '{line}' is not modelled by the interpreters")
        dtype = _TYPES[types[0]]
        operands = [o.strip() for o in rest.split(",")]
        dest, srcs = operands[0], operands[1:]
        xs = []
        for s in srcs:
            if s in regs:
                xs.append(_as_type(regs[s], dtype))
            elif re.fullmatch(r"-?(0[fFdD][0-9a-fA-F]+|0x[0-9a-fA-F]+|\d+)", s):
                xs.append(_immediate(s, dtype, shape))
            else:
                raise InlinePtxError(f"operand '{s}' of '{line}' is not set")
        result = _compute(name, dtype, xs, line)
        bits = _bits_of(result, dtype)
        if dest in regs and regs[dest].dtype.itemsize != bits.dtype.itemsize:
            raise InlinePtxError(
                f"'{line}' writes {dtype.__name__} to a {regs[dest].dtype} register"
            )
        regs[dest] = bits
    return [np.asarray(regs[f"${i}"]) for i in range(len(outs))]


def _as_type(bits: np.ndarray, dtype: type) -> np.ndarray:
    """A register's raw bits read as ``dtype`` (same width)."""
    want = np.dtype(dtype).itemsize
    if bits.dtype.itemsize != want:
        raise InlinePtxError(f"a {bits.dtype.itemsize * 8}-bit register read as {np.dtype(dtype)}")
    return np.ascontiguousarray(bits).view(dtype)


def pack_words(values: np.ndarray, bits: int, pack: int, letter: str) -> np.ndarray:
    """Raw words of a constraint ``letter`` from the last axis of ``values`` (element width
    ``bits``), ``pack`` consecutive elements per word, the first in the low bits.

    >>> pack_words(np.array([[1, 2, 3, 4]], np.int8), 8, 4, "r").tolist()
    [[67305985]]
    """
    width = CONSTRAINT_BITS[letter]
    if pack * bits != width:
        raise InlinePtxError(
            f"{pack} element(s) of {bits} bits do not fill a '{letter}' register ({width} bits)"
        )
    raw = np.ascontiguousarray(values).view(f"u{bits // 8}")
    grouped = raw.reshape(*raw.shape[:-1], raw.shape[-1] // pack, pack)
    return np.ascontiguousarray(grouped).view(f"u{width // 8}")[..., 0]


def unpack_words(words: np.ndarray, dtype: np.dtype, pack: int) -> np.ndarray:
    """The inverse of :func:`pack_words`: ``pack`` elements of ``dtype`` per word, along the
    last axis.

    >>> unpack_words(np.array([[67305985]], np.uint32), np.dtype(np.int8), 4).tolist()
    [[1, 2, 3, 4]]
    """
    raw = np.ascontiguousarray(words)[..., None].view(dtype)
    return raw.reshape(*words.shape[:-1], words.shape[-1] * pack)


def asm_elementwise(
    asm: str,
    constraints: str,
    args: Sequence[np.ndarray],
    dtypes: Sequence[np.dtype],
    pack: int,
) -> list[np.ndarray]:
    """Run ``asm`` on the arrays ``args`` (same shape, their last axis grouped ``pack`` at a
    time); ``dtypes``: the inputs' then the outputs' element types. The outputs, in their types.

    >>> asm_elementwise("add.s32 $0, $1, $2;", "=r,r,r", [np.arange(3), np.ones(3)],
    ...                 [np.dtype(np.int32)] * 3, 1)[0].tolist()
    [1, 2, 3]
    """
    outs, ins = parse_constraints(constraints)
    if len(ins) != len(args) or len(dtypes) != len(ins) + len(outs):
        raise InlinePtxError(f"constraints '{constraints}' do not match the operands")
    words = []
    for arg, dt, letter in zip(args, dtypes, ins, strict=False):
        dt = np.dtype(dt)
        if dt == np.bool_:
            raise InlinePtxError("i1 operands of inline asm")
        words.append(pack_words(np.asarray(arg, dt), dt.itemsize * 8, pack, letter))
    shape = words[0].shape if words else ()
    results = run_asm(asm, constraints, words, shape)
    out = []
    for w, dt, letter in zip(results, dtypes[len(ins) :], outs, strict=True):
        dt = np.dtype(dt)
        if dt.itemsize * 8 * pack != CONSTRAINT_BITS[letter]:
            raise InlinePtxError(f"{pack} x {dt} results do not fill a '{letter}' register")
        out.append(unpack_words(w, dt, pack))
    return out
