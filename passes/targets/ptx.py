"""``-t ptx``: lowered llc IR (``simt`` + ``arith``/``vector``/``gpu``/``math``/``scf``) to PTX.

One ``.entry`` per kernel function (scalar and pointer parameters). Every SSA value maps to a list
of PTX registers, one per element (a scalar is a list of one), so ``vector.extract``/
``vector.shuffle``/``vector.broadcast`` are renamings that emit nothing; element-wise ops emit one
instruction per element. Each op kind has exactly one handler, registered in :data:`_HANDLERS`;
instruction spellings come from the tables below (``_INT_BINARY``, ``_FLOAT_BINARY``, ``_CMP``,
...), so the format of an instruction lives in one place.

Register classes: ``i1`` -> ``.pred %p``; ``i8``/``i16``/``f16``/``bf16`` -> ``.b16 %h`` (PTX has
no 8-bit registers); ``i32`` -> ``.b32 %r``; ``f32`` -> ``.f32 %f``; ``i64``/``index`` -> ``.b64
%rd``; ``f64`` -> ``.f64 %fd``. Narrow values are packed into 32-bit words for shuffles, shared
and global memory and mma fragments (``mov.b32 {lo, hi}`` for 16 bits, ``bfi``/``bfe`` for 8).
Half-precision arithmetic is done in f32 and rounded back (``cvt.rn``), exactly what the SIMT
interpreter's numpy arithmetic does for a single operation.

>>> from xdsl.dialects.builtin import ModuleOp
>>> print(emit_ptx(ModuleOp([]), arch="sm_80"))  # doctest: +NORMALIZE_WHITESPACE
.version 8.0
.target sm_80
.address_size 64
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import IO, ClassVar

from xdsl.context import Context
from xdsl.dialects import arith, func, scf, vector
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    TensorType,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.utils.target import Target

from llc.dialects import simt
from llc.dialects.diagnostics import error_at
from llc.errors import LayoutError
from llc.lowering import compute_capability_of
from llc.passes.targets.ptx_math import F64_SEQUENCES, render

__all__ = ["PtxTarget", "emit_ptx", "ptx_arch", "shared_bytes"]

STATIC_SHARED_LIMIT = 48 * 1024
DYNAMIC_SHARED = "__llc_dynamic_smem"
ARENA = "__llc_smem"
"""The static shared array of a function whose buffers the shared allocation placed."""
_DYNAMIC_ALIGN = re.compile(r"// llc\.dynamic_shared_align = (\d+)")
PTX_VERSION = {"sm_80": "8.0", "sm_90": "8.0", "sm_90a": "8.0"}


def ptx_arch(module: ModuleOp, override: str = "") -> str:
    """``sm_80``/``sm_90`` from ``-t 'ptx{arch=...}'`` or the module's ``tl.target``.

    >>> from xdsl.dialects.builtin import StringAttr
    >>> ptx_arch(ModuleOp([], attributes={"tl.target": StringAttr("cuda:90")}))
    'sm_90'
    """
    if override:
        return _checked_arch(override)
    target = module.attributes.get("tl.target")
    if isinstance(target, StringAttr) and target.data.partition(":")[0] == "cuda":
        cc = compute_capability_of(target.data)
        return "sm_90" if cc >= 90 else "sm_80"
    return "sm_80"


def _checked_arch(arch: str) -> str:
    from llc.targets import check_ptx_arch

    try:
        return check_ptx_arch(arch)
    except LayoutError as err:
        raise LayoutError(f"-t 'ptx{{arch={arch}}}': {err}") from None


# -- types ------------------------------------------------------------------------------------


def scalar_of(typ: Attribute) -> Attribute:
    """The element type of a register vector type, or the scalar type itself.

    >>> from xdsl.dialects.builtin import f16
    >>> str(scalar_of(VectorType(f16, [4]))), str(scalar_of(f16))
    ('f16', 'f16')
    """
    return typ.element_type if isinstance(typ, VectorType) else typ


def _count(typ: Attribute) -> int:
    if isinstance(typ, VectorType):
        n = 1
        for d in typ.get_shape():
            n *= d
        return n
    return 1


def bits_of(t: Attribute) -> int:
    """Bits of one PTX register of scalar type ``t`` (``index`` is 64-bit).

    >>> from xdsl.dialects.builtin import IndexType, f16
    >>> bits_of(f16), bits_of(IndexType())
    (16, 64)
    """
    if isinstance(t, IndexType):
        return 64
    if isinstance(t, IntegerType):
        return t.width.data
    if isinstance(t, Float16Type | BFloat16Type):
        return 16
    if isinstance(t, Float8E4M3FNType | Float8E5M2Type):
        return 8
    if isinstance(t, Float32Type):
        return 32
    if isinstance(t, Float64Type):
        return 64
    if isinstance(t, simt.SharedMemoryType):
        return 64
    if t.name == "tl.ptr":
        return 64
    raise LayoutError(
        f"{t} has no PTX type (PTX has f16, bf16, f32, f64, e4m3 and e5m2; the FNUZ fp8 "
        "types are AMD's)"
    )


def _is_i1(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 1


def _is_float(t: Attribute) -> bool:
    return isinstance(t, Float16Type | BFloat16Type | Float32Type | Float64Type)


def _reg_class(t: Attribute) -> tuple[str, str]:
    """(PTX register type, name prefix) holding one element of ``t``."""
    if isinstance(t, IntegerType) and t.width.data == 1:
        return ".pred", "%p"
    if isinstance(t, Float32Type):
        return ".f32", "%f"
    if isinstance(t, Float64Type):
        return ".f64", "%fd"
    bits = bits_of(t)
    return {8: (".b16", "%h"), 16: (".b16", "%h"), 32: (".b32", "%r"), 64: (".b64", "%rd")}[bits]


def _int_suffix(t: Attribute, signed: bool = True) -> str:
    bits = max(16, bits_of(t))
    return f".{'s' if signed else 'u'}{bits}"


def _float_suffix(t: Attribute) -> str:
    return (
        {16: ".f16", 32: ".f32", 64: ".f64"}[bits_of(t)]
        if not isinstance(t, BFloat16Type)
        else ".bf16"
    )


# -- instruction tables -----------------------------------------------------------------------

_INT_BINARY: dict[str, str] = {
    "arith.addi": "add{s}",
    "arith.subi": "sub{s}",
    "arith.muli": "mul.lo{s}",
    "tl.mulhiui": "mul.hi{u}",
    "arith.divsi": "div{s}",
    "arith.divui": "div{u}",
    "arith.remsi": "rem{s}",
    "arith.remui": "rem{u}",
    "arith.minsi": "min{s}",
    "arith.maxsi": "max{s}",
    "arith.minui": "min{u}",
    "arith.maxui": "max{u}",
    "arith.andi": "and{b}",
    "arith.ori": "or{b}",
    "arith.xori": "xor{b}",
    "arith.shli": "shl{b}",
    "arith.shrui": "shr{u}",
    "arith.shrsi": "shr{s}",
}
_SHIFTS = {"arith.shli", "arith.shrui", "arith.shrsi"}

_FLOAT_BINARY: dict[str, str] = {
    "arith.addf": "add.rn.f32",
    "arith.subf": "sub.rn.f32",
    "arith.mulf": "mul.rn.f32",
    "arith.divf": "div.rn.f32",
    "arith.maxnumf": "max.f32",
    "arith.minnumf": "min.f32",
    "arith.maximumf": "max.NaN.f32",
    "arith.minimumf": "min.NaN.f32",
}
_F64_BINARY = {k: v.replace("f32", "f64").replace(".NaN", "") for k, v in _FLOAT_BINARY.items()}

_CMP: dict[str, tuple[str, str]] = {
    # predicate -> (PTX comparison, operand kind: s signed, u unsigned, f float)
    "eq": ("eq", "s"),
    "ne": ("ne", "s"),
    "slt": ("lt", "s"),
    "sle": ("le", "s"),
    "sgt": ("gt", "s"),
    "sge": ("ge", "s"),
    "ult": ("lt", "u"),
    "ule": ("le", "u"),
    "ugt": ("gt", "u"),
    "uge": ("ge", "u"),
    "oeq": ("eq", "f"),
    "one": ("ne", "f"),
    "olt": ("lt", "f"),
    "ole": ("le", "f"),
    "ogt": ("gt", "f"),
    "oge": ("ge", "f"),
    "ueq": ("equ", "f"),
    "une": ("neu", "f"),
    "ult_f": ("ltu", "f"),
    "ule_f": ("leu", "f"),
    "ugt_f": ("gtu", "f"),
    "uge_f": ("geu", "f"),
    "ord": ("num", "f"),
    "uno": ("nan", "f"),
}
_CMPI_NUMBERS = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
_CMPF_NUMBERS = [
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
    "ueq", "ugt_f", "uge_f", "ult_f", "ule_f", "une", "uno", "true",
]  # fmt: skip

_MATH_UNARY: dict[str, list[str]] = {
    # f32 sequences; {d} result, {a} operand, {t} a scratch f32 register
    "math.exp": ["mul.f32 {t}, {a}, 0f3FB8AA3B;", "ex2.approx.ftz.f32 {d}, {t};"],
    "math.exp2": ["ex2.approx.ftz.f32 {d}, {a};"],
    "math.log": ["lg2.approx.ftz.f32 {t}, {a};", "mul.f32 {d}, {t}, 0f3F317218;"],
    "math.log2": ["lg2.approx.ftz.f32 {d}, {a};"],
    "math.sqrt": ["sqrt.rn.f32 {d}, {a};"],
    "math.rsqrt": ["rsqrt.approx.ftz.f32 {d}, {a};"],
    "math.absf": ["abs.f32 {d}, {a};"],
    "arith.negf": ["neg.f32 {d}, {a};"],
    "math.sin": ["sin.approx.ftz.f32 {d}, {a};"],
    "math.cos": ["cos.approx.ftz.f32 {d}, {a};"],
    "math.tanh": ["tanh.approx.f32 {d}, {a};"],
}


@dataclass
class PtxFunction:
    """The state of one ``.entry`` being emitted."""

    arch: str
    lines: list[str] = field(default_factory=list)
    regs: dict[SSAValue, list[str]] = field(default_factory=dict)
    counters: dict[str, int] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    shared: list[tuple[str, int, int]] = field(default_factory=list)
    """(symbol, bytes, alignment) of each ``simt.shared_alloc``."""
    shared_offsets: dict[str, int] = field(default_factory=dict)
    """The arena offset of each symbol whose alloc the shared allocation placed."""
    labels: int = 0
    threads_per_warp: int = 32
    wgmma_a: dict[Operation, list[str]] = field(default_factory=dict)
    """The packed A words of each ``simt.wgmma`` with A in registers."""
    wgmma_d: dict[Operation, list[str]] = field(default_factory=dict)
    """The accumulator registers each ``simt.wgmma`` updates."""

    # registers
    def new(self, t: Attribute) -> str:
        kind, prefix = _reg_class(t)
        return self.new_of(kind, prefix)

    def new_of(self, kind: str, prefix: str) -> str:
        n = self.counters.get(prefix, 0)
        self.counters[prefix] = n + 1
        self.kinds[prefix] = kind
        return f"{prefix}{n}"

    def label(self, hint: str) -> str:
        self.labels += 1
        return f"$L_{hint}_{self.labels}"

    def emit(self, text: str) -> None:
        self.lines.append("\t" + text)

    def get(self, value: SSAValue) -> list[str]:
        return self.regs[value]

    # packing of narrow elements into 32-bit words (shuffles, shared/global memory, mma)
    def bytes_of(self, preds: Sequence[str]) -> list[str]:
        """i1 predicates as i8 values 0/1 (their memory and shuffle form)."""
        out = []
        for p in preds:
            h = self.new_of(".b16", "%h")
            self.emit(f"selp.b16 {h}, 1, 0, {p};")
            out.append(h)
        return out

    def preds_of(self, values: Sequence[str]) -> list[str]:
        """i8 values as i1 predicates (non-zero is true)."""
        out = []
        for h in values:
            p = self.new_of(".pred", "%p")
            self.emit(f"setp.ne.b16 {p}, {h}, 0;")
            out.append(p)
        return out

    def to_words(self, regs: Sequence[str], t: Attribute) -> list[str]:
        if _is_i1(t):
            return self.to_words(self.bytes_of(regs), IntegerType(8))
        bits = bits_of(t)
        if bits == 32:
            if isinstance(t, Float32Type):
                out = []
                for r in regs:
                    w = self.new_of(".b32", "%r")
                    self.emit(f"mov.b32 {w}, {r};")
                    out.append(w)
                return out
            return list(regs)
        if bits == 64:
            out = []
            for r in regs:
                lo, hi = self.new_of(".b32", "%r"), self.new_of(".b32", "%r")
                self.emit(f"mov.b64 {{{lo}, {hi}}}, {r};")
                out += [lo, hi]
            return out
        if bits == 16:
            if len(regs) % 2:
                w = self.new_of(".b32", "%r")
                self.emit(f"cvt.u32.u16 {w}, {regs[0]};")
                return [w]
            out = []
            for i in range(0, len(regs), 2):
                w = self.new_of(".b32", "%r")
                self.emit(f"mov.b32 {w}, {{{regs[i]}, {regs[i + 1]}}};")
                out.append(w)
            return out
        if bits == 8:
            out = []
            for i in range(0, len(regs), 4):
                w = self.new_of(".b32", "%r")
                self.emit(f"cvt.u32.u8 {w}, {regs[i]};")
                for j in range(1, min(4, len(regs) - i)):
                    e = self.new_of(".b32", "%r")
                    self.emit(f"cvt.u32.u8 {e}, {regs[i + j]};")
                    self.emit(f"bfi.b32 {w}, {e}, {w}, {8 * j}, 8;")
                out.append(w)
            return out
        raise KeyError(bits)

    def from_words(self, words: Sequence[str], t: Attribute, count: int) -> list[str]:
        if _is_i1(t):
            return self.preds_of(self.from_words(words, IntegerType(8), count))
        bits = bits_of(t)
        if bits == 32:
            if isinstance(t, Float32Type):
                out = []
                for w in words:
                    f = self.new_of(".f32", "%f")
                    self.emit(f"mov.b32 {f}, {w};")
                    out.append(f)
                return out
            return list(words)
        if bits == 64:
            out = []
            for i in range(0, len(words), 2):
                d = self.new(t)
                self.emit(f"mov.b64 {d}, {{{words[i]}, {words[i + 1]}}};")
                out.append(d)
            return out
        if bits == 16:
            if count == 1:
                h = self.new_of(".b16", "%h")
                self.emit(f"cvt.u16.u32 {h}, {words[0]};")
                return [h]
            out = []
            for w in words:
                lo, hi = self.new_of(".b16", "%h"), self.new_of(".b16", "%h")
                self.emit(f"mov.b32 {{{lo}, {hi}}}, {w};")
                out += [lo, hi]
            return out[:count]
        if bits == 8:
            out = []
            for i in range(count):
                e = self.new_of(".b32", "%r")
                self.emit(f"bfe.u32 {e}, {words[i // 4]}, {8 * (i % 4)}, 8;")
                h = self.new_of(".b16", "%h")
                self.emit(f"cvt.u16.u32 {h}, {e};")
                out.append(h)
            return out
        raise KeyError(bits)

    def u32(self, reg: str, t: Attribute) -> str:
        """A 32-bit copy of an integer register (shift amounts, lanes)."""
        bits = bits_of(t)
        if bits == 32:
            return reg
        r = self.new_of(".b32", "%r")
        self.emit(f"cvt.u32.u{max(bits, 16)} {r}, {reg};")
        return r

    def address(self, base: str, offset: str, offset_type: Attribute) -> str:
        off = offset
        if bits_of(offset_type) != 64:
            off = self.new_of(".b64", "%rd")
            self.emit(f"cvt.u64.u{max(16, bits_of(offset_type))} {off}, {offset};")
        a = self.new_of(".b64", "%rd")
        self.emit(f"add.s64 {a}, {base}, {off};")
        return a


# -- handlers: one per op ---------------------------------------------------------------------

Handler = Callable[[PtxFunction, Operation], None]
_HANDLERS: dict[str, Handler] = {}


def handles(*names: str) -> Callable[[Handler], Handler]:
    """Registers the decorated function as the PTX emitter of the ops ``names``; the sibling
    modules (``ptx_atomics``, ``ptx_mma``, ...) add their ops this way.

    >>> @handles("simt.example_op")
    ... def _emit(f, op): ...
    >>> _HANDLERS.pop("simt.example_op") is _emit
    True
    """

    def register(fn: Handler) -> Handler:
        for n in names:
            _HANDLERS[n] = fn
        return fn

    return register


def _float_literal(value: float, t: Attribute) -> str:
    if isinstance(t, Float64Type):
        return "0d" + struct.pack(">d", value).hex().upper()
    return "0f" + struct.pack(">f", value).hex().upper()


def constant_reg(f: PtxFunction, value: int | float, t: Attribute) -> str:
    """A new register of type ``t`` of ``f`` holding ``value`` (its name); the ``mov`` is
    emitted into ``f``."""
    d = f.new(t)
    if isinstance(t, IntegerType) and t.width.data == 1:
        f.emit(f"setp.ne.u32 {d}, {1 if value else 0}, 0;")
    elif isinstance(t, Float32Type | Float64Type):
        f.emit(f"mov{_float_suffix(t)} {d}, {_float_literal(float(value), t)};")
    elif _f8_format(t) is not None:
        import numpy as np

        from llc.mxfp import encode

        code = int(encode(np.array([float(value)], np.float32), _f8_format(t))[0])  # type: ignore[arg-type]
        f.emit(f"mov.b16 {d}, 0x{code:02X};")
    elif isinstance(t, Float16Type | BFloat16Type):
        import numpy as np

        dtype = np.float16 if isinstance(t, Float16Type) else None
        if dtype is None:
            bits = (struct.unpack(">I", struct.pack(">f", float(value)))[0] + 0x8000) >> 16
        else:
            bits = int(np.array(value, dtype=np.float16).view(np.uint16))
        f.emit(f"mov.b16 {d}, 0x{bits & 0xFFFF:04X};")
    else:
        bits = bits_of(t)
        f.emit(f"mov.b{max(16, bits)} {d}, {int(value) & ((1 << max(16, bits)) - 1)};")
    return d


@handles("arith.constant")
def _constant(f: PtxFunction, op: Operation) -> None:
    assert isinstance(op, arith.ConstantOp)
    typ = op.result.type
    t = scalar_of(typ)
    attr = op.value
    if isinstance(attr, DenseIntOrFPElementsAttr):
        values = list(attr.get_values())
        if len(values) == 1 or len(set(values)) == 1:
            r = constant_reg(f, values[0], t)
            f.regs[op.result] = [r] * _count(typ)
        else:
            f.regs[op.result] = [constant_reg(f, v, t) for v in values]
    elif isinstance(attr, IntegerAttr | FloatAttr):
        f.regs[op.result] = [constant_reg(f, attr.value.data, t)]
    else:
        raise error_at(op, f"-t ptx: constant {attr} is not supported")


def _map(f: PtxFunction, op: Operation, emit_one: Callable[[str, list[str]], None]) -> None:
    """Emit one instruction per element: ``emit_one(dest, [operand regs])``."""
    t = scalar_of(op.results[0].type)
    n = _count(op.results[0].type)
    operands = [f.get(o) for o in op.operands]
    out = []
    for i in range(n):
        d = f.new(t)
        emit_one(d, [regs[i] if len(regs) > 1 else regs[0] for regs in operands])
        out.append(d)
    f.regs[op.results[0]] = out


@handles(*_INT_BINARY)
def _int_binary(f: PtxFunction, op: Operation) -> None:
    t = scalar_of(op.results[0].type)
    if isinstance(t, IntegerType) and t.width.data == 1:
        name = {"arith.andi": "and", "arith.ori": "or", "arith.xori": "xor"}.get(op.name)
        if name is None:
            raise error_at(op, f"-t ptx: {op.name} on i1 is not supported")
        _map(f, op, lambda d, a: f.emit(f"{name}.pred {d}, {a[0]}, {a[1]};"))
        return
    bits = max(16, bits_of(t))
    form = _INT_BINARY[op.name].format(s=f".s{bits}", u=f".u{bits}", b=f".b{bits}")

    def one(d: str, a: list[str]) -> None:
        lhs, rhs = a
        if bits_of(t) == 8 and op.name in _NEEDS_BYTE_EXTENDED:
            signed = _NEEDS_BYTE_EXTENDED[op.name]
            lhs = _extend_byte(f, lhs, signed)
            rhs = _extend_byte(f, rhs, signed and op.name not in _SHIFTS)
        elif bits_of(t) == 8 and op.name in _SHIFTS:
            rhs = _extend_byte(f, rhs, False)
        rhs = f.u32(rhs, t) if op.name in _SHIFTS else rhs
        f.emit(f"{form} {d}, {lhs}, {rhs};")

    _map(f, op, one)


_NEEDS_BYTE_EXTENDED = {
    # ops whose result depends on an i8's upper bits (-> signed?): the others only ever need the
    # low byte, which is all an i8 register defines (add.s16 of two i8 may carry into bit 8)
    "arith.divsi": True, "arith.remsi": True, "arith.minsi": True, "arith.maxsi": True,
    "arith.shrsi": True, "arith.divui": False, "arith.remui": False, "arith.minui": False,
    "arith.maxui": False, "arith.shrui": False,
}  # fmt: skip


def _extend_byte(f: PtxFunction, reg: str, signed: bool) -> str:
    """The i8 in ``reg``'s low byte, sign- or zero-extended to its 16-bit register."""
    s = "s" if signed else "u"
    wide = f.new_of(".b16", "%h")
    f.emit(f"cvt.{s}16.{s}8 {wide}, {reg};")
    return wide


def _via_f32(f: PtxFunction, t: Attribute, regs: list[str]) -> list[str]:
    fmt = _f8_format(t)
    if fmt is not None:  # 8-bit floats compute in f32 too (exact widening)
        out = []
        for r in regs:
            x = f.new_of(".f32", "%f")
            f.emit(f"cvt.f32.f16 {x}, {f8_to_f16(f, r, fmt)};")
            out.append(x)
        return out
    if bits_of(t) != 16:
        return regs
    out = []
    for r in regs:
        x = f.new_of(".f32", "%f")
        f.emit(f"cvt.f32{_float_suffix(t)} {x}, {r};")
        out.append(x)
    return out


def _from_f32(f: PtxFunction, t: Attribute, reg: str, dest: str) -> None:
    fmt = _f8_format(t)
    if fmt is not None:
        _f8_from_f32(f, reg, fmt, dest)
        return
    f.emit(f"cvt.rn{_float_suffix(t)}.f32 {dest}, {reg};")


def _float_elementwise(
    f: PtxFunction,
    t: Attribute,
    d: str,
    a: list[str],
    instruction: Callable[[str, list[str], str], str],
) -> None:
    """Emit ``instruction(dest, operands, suffix)`` for one element of float type ``t``: natively
    for f32/f64, in f32 between exact conversions for f16, bf16 and f8 (rounded once at the end)."""
    if bits_of(t) < 32:
        x = _via_f32(f, t, a)
        r = f.new_of(".f32", "%f")
        f.emit(instruction(r, x, ".f32"))
        _from_f32(f, t, r, d)
    else:
        f.emit(instruction(d, a, _float_suffix(t)))


@handles(*_FLOAT_BINARY)
def _float_binary(f: PtxFunction, op: Operation) -> None:
    t = scalar_of(op.results[0].type)
    form = (_F64_BINARY if isinstance(t, Float64Type) else _FLOAT_BINARY)[op.name]

    def one(d: str, a: list[str]) -> None:
        _float_elementwise(f, t, d, a, lambda r, x, _: f"{form} {r}, {x[0]}, {x[1]};")

    _map(f, op, one)


@handles(*_MATH_UNARY, *F64_SEQUENCES)
def _math_unary(f: PtxFunction, op: Operation) -> None:
    # (also math.atan2, the one binary op of ptx_math)
    # f32 (and f16/bf16 through f32): the hardware's approximate instructions of _MATH_UNARY;
    # f64, and f32 ops with no such instruction: the software sequences of ptx_math (an f32 one
    # through f64, rounded once at the end).
    t = scalar_of(op.results[0].type)
    in_f64 = isinstance(t, Float64Type) or op.name not in _MATH_UNARY

    def one(d: str, a: list[str]) -> None:
        if in_f64:
            xs = a
            if not isinstance(t, Float64Type):
                xs = [f.new_of(".f64", "%fd") for _ in a]
                for wide, narrow in zip(xs, a, strict=True):
                    _float_convert(f, narrow, t, Float64Type(), wide)
            r = d if isinstance(t, Float64Type) else f.new_of(".f64", "%fd")
            for line in render(op.name, r, xs, lambda kind: f.new_of(kind, _PREFIX[kind])):
                f.emit(line)
            if r != d:
                _float_convert(f, r, Float64Type(), t, d)
            return
        x = _via_f32(f, t, a)[0]
        r = d if bits_of(t) == 32 else f.new_of(".f32", "%f")
        scratch = f.new_of(".f32", "%f")  # one per element: the sequence's lines share it
        for line in _MATH_UNARY[op.name]:
            f.emit(line.format(d=r, a=x, t=scratch))
        if r != d:
            _from_f32(f, t, r, d)

    _map(f, op, one)


_PREFIX = {".f64": "%fd", ".b32": "%r", ".pred": "%p", ".f32": "%f", ".b64": "%rd", ".b16": "%h"}


@handles("arith.floordivsi", "arith.ceildivsi", "arith.ceildivui")
def _rounded_div(f: PtxFunction, op: Operation) -> None:
    # q = x / y truncated; floor: q - 1 when the remainder is non-zero and its sign differs from
    # y's; ceil: q + 1 when it is non-zero with y's sign (unsigned: non-zero)
    t = scalar_of(op.results[0].type)
    bits = max(16, bits_of(t))
    signed = op.name != "arith.ceildivui"
    s = "s" if signed else "u"

    def one(d: str, a: list[str]) -> None:
        x, y = (_extend_byte(f, r, signed) for r in a) if bits_of(t) == 8 else a
        q, r = f.new(t), f.new(t)
        f.emit(f"div.{s}{bits} {q}, {x}, {y};")
        f.emit(f"rem.{s}{bits} {r}, {x}, {y};")
        adjust = f.new_of(".pred", "%p")
        f.emit(f"setp.ne.{s}{bits} {adjust}, {r}, 0;")
        if signed:
            signs, differ = f.new(t), f.new_of(".pred", "%p")
            f.emit(f"xor.b{bits} {signs}, {r}, {y};")
            cmp = "lt" if op.name == "arith.floordivsi" else "ge"
            f.emit(f"setp.{cmp}.s{bits} {differ}, {signs}, 0;")
            f.emit(f"and.pred {adjust}, {adjust}, {differ};")
        step = -1 if op.name == "arith.floordivsi" else 1
        moved = f.new(t)
        f.emit(f"add.s{bits} {moved}, {q}, {step};")
        f.emit(f"selp.b{bits} {d}, {moved}, {q}, {adjust};")

    _map(f, op, one)


@handles("math.copysign")
def _copysign(f: PtxFunction, op: Operation) -> None:
    # PTX's copysign takes the sign from its first operand: math.copysign(x, y) is (y, x)
    t = scalar_of(op.results[0].type)

    def one(d: str, a: list[str]) -> None:
        _float_elementwise(f, t, d, a, lambda r, x, s: f"copysign{s} {r}, {x[1]}, {x[0]};")

    _map(f, op, one)


@handles("math.absi")
def _absi(f: PtxFunction, op: Operation) -> None:
    t = scalar_of(op.results[0].type)
    bits = max(16, bits_of(t))

    def one(d: str, a: list[str]) -> None:
        x = _extend_byte(f, a[0], signed=True) if bits_of(t) == 8 else a[0]
        f.emit(f"abs.s{bits} {d}, {x};")

    _map(f, op, one)


@handles("math.fma")
def _fma(f: PtxFunction, op: Operation) -> None:
    t = scalar_of(op.results[0].type)

    def one(d: str, a: list[str]) -> None:
        _float_elementwise(f, t, d, a, lambda r, x, s: f"fma.rn{s} {r}, {x[0]}, {x[1]}, {x[2]};")

    _map(f, op, one)


def _compare(f: PtxFunction, op: Operation, predicate: str, operand_type: Attribute) -> None:
    cmp, kind = _CMP[predicate]
    t = scalar_of(operand_type)
    f8 = _f8_format(t) is not None
    if kind == "f" or _is_float(t) or f8:
        suffix = ".f32" if bits_of(t) < 32 else _float_suffix(t)
    elif _is_i1(t):  # predicates compare as 16-bit 0/-1 (signed) or 0/1 (unsigned) values
        suffix = ".b16" if cmp in ("eq", "ne") else (".s16" if kind == "s" else ".u16")
    else:
        suffix = _int_suffix(t, signed=kind == "s")

    def one(d: str, a: list[str]) -> None:
        if isinstance(t, IntegerType) and t.width.data == 1:
            # predicates compare as 0/1 values
            vals = []
            for r in a:
                v = f.new_of(".b16", "%h")
                f.emit(f"selp.b16 {v}, {-1 if suffix == '.s16' else 1}, 0, {r};")
                vals.append(v)
            a = vals
        elif (_is_float(t) and bits_of(t) == 16) or f8:
            a = _via_f32(f, t, a)
        elif bits_of(t) == 8:
            a = [_extend_byte(f, r, kind == "s") for r in a]
        f.emit(f"setp.{cmp}{suffix} {d}, {a[0]}, {a[1]};")

    _map(f, op, one)


@handles("arith.cmpi", "arith.cmpf")
def _arith_cmp(f: PtxFunction, op: Operation) -> None:
    number = op.predicate.value.data  # type: ignore[attr-defined]
    names = _CMPI_NUMBERS if op.name == "arith.cmpi" else _CMPF_NUMBERS
    name = names[number]
    if name in ("true", "false"):
        _map(f, op, lambda d, a: f.emit(f"setp.ne.u32 {d}, {int(name == 'true')}, 0;"))
        return
    _compare(f, op, name, op.operands[0].type)


@handles("simt.compare")
def _simt_compare(f: PtxFunction, op: Operation) -> None:
    assert isinstance(op, simt.CompareOp)
    name = op.predicate.data
    t = scalar_of(op.lhs.type)
    if (_is_float(t) or _f8_format(t)) and name in ("ult", "ule", "ugt", "uge"):
        name += "_f"
    _compare(f, op, name, op.lhs.type)


@handles("arith.select", "simt.select")
def _select(f: PtxFunction, op: Operation) -> None:
    t = scalar_of(op.results[0].type)

    def one(d: str, a: list[str]) -> None:
        c, x, y = a
        if isinstance(t, IntegerType) and t.width.data == 1:
            u, v = f.new_of(".pred", "%p"), f.new_of(".pred", "%p")
            f.emit(f"and.pred {u}, {c}, {x};")
            nc = f.new_of(".pred", "%p")
            f.emit(f"not.pred {nc}, {c};")
            f.emit(f"and.pred {v}, {nc}, {y};")
            f.emit(f"or.pred {d}, {u}, {v};")
        else:
            kind = _reg_class(t)[0]
            sel = {".f32": "f32", ".f64": "f64"}.get(kind, f"b{max(16, bits_of(t))}")
            f.emit(f"selp.{sel} {d}, {x}, {y}, {c};")

    _map(f, op, one)


_CAST_KINDS = {
    "extsi", "extui", "trunci", "index_cast", "index_castui", "sitofp", "uitofp", "fptosi",
    "fptoui", "extf", "truncf", "bitcast",
}  # fmt: skip


def _cast(
    f: PtxFunction, op: Operation | None, kind: str, src: Attribute, dst: Attribute
) -> Callable[[str, list[str]], None]:
    """Emit the cast ``op`` per element; with no ``op``, only return the per-element emitter
    ``one(dest, [source])``."""
    sb, db = bits_of(src), bits_of(dst)
    src_is_i1 = isinstance(src, IntegerType) and src.width.data == 1
    dst_is_i1 = isinstance(dst, IntegerType) and dst.width.data == 1

    if kind != "bitcast" and (_f8_format(src) or _f8_format(dst)):
        _map(f, op, lambda d, a: _f8_cast(f, op, kind, src, dst, d, a[0]))
        return

    def one(d: str, a: list[str]) -> None:
        x = a[0]
        if src_is_i1:
            one_ = "-1" if kind == "extsi" else "1"
            f.emit(f"selp.b{max(16, db)} {d}, {one_}, 0, {x};")
        elif dst_is_i1:
            t = f.new_of(".b32", "%r") if sb <= 32 else f.new_of(".b64", "%rd")
            f.emit(f"and.b{max(32, sb)} {t}, {f.u32(x, src) if sb < 32 else x}, 1;")
            f.emit(f"setp.ne.b{max(32, sb)} {d}, {t}, 0;")
        elif kind in ("extsi", "extui", "trunci", "index_cast", "index_castui"):
            if sb == db:
                f.emit(f"mov.b{max(16, db)} {d}, {x};")
                return
            s = "s" if kind in ("extsi", "index_cast") else "u"
            if kind == "trunci" or db < sb:
                f.emit(f"cvt.u{max(16, db)}.u{max(16, sb)} {d}, {x};")
            elif sb == 8:
                # an i8 lives in a 16-bit register: extend from its low byte
                f.emit(f"cvt.{s}{db}.{s}8 {d}, {x};")
            else:
                f.emit(f"cvt.{s}{db}.{s}{sb} {d}, {x};")
        elif kind == "bitcast":
            f.emit(f"mov.b{max(16, db)} {d}, {x};")
        elif isinstance(src, BFloat16Type) and not isinstance(dst, Float32Type):
            # bf16 converts only to/from f32 on sm_80: widen exactly, then convert from f32
            wide = f.new_of(".f32", "%f")
            f.emit(f"cvt.f32.bf16 {wide}, {x};")
            _cast_from(f, kind, wide, Float32Type(), dst, d)
        elif isinstance(dst, BFloat16Type) and not isinstance(src, Float32Type):
            narrow = _f32_for_bf16(f, kind, x, src)
            f.emit(f"cvt.rn.bf16.f32 {d}, {narrow};")
        else:
            _cast_from(f, kind, x, src, dst, d)

    if op is None:
        return one
    if kind not in _CAST_KINDS:
        raise error_at(op, f"-t ptx: cast {kind} is not supported")
    _map(f, op, one)
    return one


def _float_convert(f: PtxFunction, x: str, src: Attribute, dst: Attribute, d: str) -> None:
    """``d = x`` converted between float types, rounded once (bf16 only through f32)."""
    _cast(f, None, "extf" if bits_of(dst) > bits_of(src) else "truncf", src, dst)(d, [x])


def _cast_from(f: PtxFunction, kind: str, x: str, src: Attribute, dst: Attribute, d: str) -> None:
    """The int <-> float and float <-> float casts PTX has one ``cvt`` for."""
    sb, db = bits_of(src), bits_of(dst)
    if not _is_float(src):
        s = "u" if kind in ("uitofp", "extui") else "s"
        f.emit(f"cvt.rn{_float_suffix(dst)}.{s}{max(8, sb)} {d}, {x};")
    elif not _is_float(dst):
        s = "u" if kind == "fptoui" else "s"
        f.emit(f"cvt.rzi.{s}{max(8, db)}{_float_suffix(src)} {d}, {x};")
    elif bits_of(src) == bits_of(dst) == 16:  # f16 <-> bf16
        t = f.new_of(".f32", "%f")
        f.emit(f"cvt.f32{_float_suffix(src)} {t}, {x};")
        f.emit(f"cvt.rn{_float_suffix(dst)}.f32 {d}, {t};")
    elif sb == db:
        f.emit(f"mov{_float_suffix(dst)} {d}, {x};")
    else:
        rnd = ".rn" if db < sb else ""
        f.emit(f"cvt{rnd}{_float_suffix(dst)}{_float_suffix(src)} {d}, {x};")


def _f32_for_bf16(f: PtxFunction, kind: str, x: str, src: Attribute) -> str:
    """``x`` (an integer or f16/f64) as an f32 whose rounding to bf16 is the correctly rounded
    conversion: exact for 8/16-bit sources, else rounded to odd (truncate, then set the lowest
    bit when inexact), which f32's 16 extra bits make equivalent to rounding once."""
    sb = bits_of(src)
    t = f.new_of(".f32", "%f")
    if sb <= 16:
        _cast_from(f, kind, x, src, Float32Type(), t)
        return t
    if _is_float(src):
        f.emit(f"cvt.rz.f32.f64 {t}, {x};")
        back, kind_of = f.new_of(".f64", "%fd"), ".f64"
        f.emit(f"cvt.f64.f32 {back}, {t};")
    else:
        s = "u" if kind == "uitofp" else "s"
        f.emit(f"cvt.rz.f32.{s}{sb} {t}, {x};")
        back, kind_of = f.new(src), f".{s}{sb}"
        f.emit(f"cvt.rzi.{s}{sb}.f32 {back}, {t};")
    inexact = f.new_of(".pred", "%p")
    f.emit(f"setp.ne{kind_of} {inexact}, {back}, {x};")
    w, odd = f.new_of(".b32", "%r"), f.new_of(".b32", "%r")
    f.emit(f"mov.b32 {w}, {t};")
    f.emit(f"or.b32 {odd}, {w}, 1;")
    f.emit(f"selp.b32 {w}, {odd}, {w}, {inexact};")
    rounded = f.new_of(".f32", "%f")
    f.emit(f"mov.b32 {rounded}, {w};")
    return rounded


def _f8_format(t: Attribute) -> str | None:
    if isinstance(t, Float8E4M3FNType):
        return "e4m3fn"
    return "e5m2" if isinstance(t, Float8E5M2Type) else None


def f8_to_f16(f: PtxFunction, x: str, fmt: str) -> str:
    """The f16 register of the 8-bit float code in ``x`` (exact): ``cvt.rn.f16x2.{e4m3,e5m2}x2``
    from sm_90, else :func:`llc.passes.targets.ptx_f8.decode_steps` (sm_89 has the instruction
    only from PTX ISA 8.1; llc prints ``.version 8.0``)."""
    from llc.passes.targets.ptx_f8 import decode_steps, emit_steps

    half = f.new_of(".b16", "%h")
    if int(f.arch.removeprefix("sm_").rstrip("a")) >= 90:
        pair = f.new_of(".b32", "%r")
        hi = f.new_of(".b16", "%h")
        f.emit(f"cvt.rn.f16x2.{'e4m3x2' if fmt == 'e4m3fn' else 'e5m2x2'} {pair}, {x};")
        f.emit(f"mov.b32 {{{half}, {hi}}}, {pair};")
    else:
        code = f.u32(x, IntegerType(16))
        h = emit_steps(decode_steps(fmt), {"c": code}, f.new_of, f.emit)["h"]
        f.emit(f"cvt.u16.u32 {half}, {h};")
    return half


def _f8_from_f32(f: PtxFunction, v: str, fmt: str, dest: str) -> None:
    """``dest`` (``.b16``) = the f32 register ``v`` rounded to the 8-bit float ``fmt``, by
    :func:`llc.passes.targets.ptx_f8.encode_steps` (PTX's own conversions to f8 saturate)."""
    from llc.passes.targets.ptx_f8 import emit_steps, encode_steps

    bits = f.new_of(".b32", "%r")
    f.emit(f"mov.b32 {bits}, {v};")
    code = emit_steps(encode_steps(fmt), {"x": bits}, f.new_of, f.emit)["c"]
    f.emit(f"cvt.u16.u32 {dest}, {code};")


def _f8_cast(
    f: PtxFunction, op: Operation, kind: str, src: Attribute, dst: Attribute, d: str, x: str
) -> None:
    """A cast from or to an 8-bit float (held as its code in a ``.b16`` register), exact: to f8
    through f32 (:func:`_f8_from_f32`), from f8 through f16 (:func:`f8_to_f16`)."""
    sfmt, dfmt = _f8_format(src), _f8_format(dst)
    if sfmt and dfmt:
        raise error_at(op, "-t ptx: casts between two 8-bit float types are not supported")
    if dfmt:  # to f8: the value as f32 first
        if kind in ("truncf", "extf"):
            v = _via_f32(f, src, [x])[0] if bits_of(src) == 16 else x
            if isinstance(src, Float64Type):
                v = f.new_of(".f32", "%f")
                f.emit(f"cvt.rn.f32.f64 {v}, {x};")
        elif kind in ("sitofp", "uitofp"):
            v = f.new_of(".f32", "%f")
            s = "s" if kind == "sitofp" else "u"
            f.emit(f"cvt.rn.f32.{s}{max(8, bits_of(src))} {v}, {x};")
        else:
            raise error_at(op, f"-t ptx: cast {kind} to an 8-bit float is not supported")
        _f8_from_f32(f, v, dfmt, d)
        return
    assert sfmt is not None
    half = f8_to_f16(f, x, sfmt)
    if isinstance(dst, Float16Type) and kind == "extf":
        f.emit(f"mov.b16 {d}, {half};")
    elif kind == "extf" and isinstance(dst, Float32Type | Float64Type):
        f.emit(f"cvt{_float_suffix(dst)}.f16 {d}, {half};")
    elif kind in ("fptosi", "fptoui"):
        s = "s" if kind == "fptosi" else "u"
        f.emit(f"cvt.rzi.{s}{max(16, bits_of(dst))}.f16 {d}, {half};")
    else:
        raise error_at(op, f"-t ptx: cast {kind} from an 8-bit float is not supported")


@handles("simt.cast")
def _simt_cast(f: PtxFunction, op: Operation) -> None:
    assert isinstance(op, simt.CastOp)
    _cast(f, op, op.kind.data, scalar_of(op.value.type), scalar_of(op.result.type))


@handles(
    "arith.extsi", "arith.extui", "arith.trunci", "arith.sitofp", "arith.uitofp",
    "arith.fptosi", "arith.fptoui", "arith.extf", "arith.truncf", "arith.bitcast",
    "arith.index_cast", "arith.index_castui",
)  # fmt: skip
def _arith_cast(f: PtxFunction, op: Operation) -> None:
    _cast(
        f,
        op,
        op.name.split(".", 1)[1],
        scalar_of(op.operands[0].type),
        scalar_of(op.results[0].type),
    )


# -- registers and vectors (renamings) --------------------------------------------------------


@handles("vector.broadcast", "vector.splat")
def _broadcast(f: PtxFunction, op: Operation) -> None:
    src = f.get(op.operands[0])
    n = _count(op.results[0].type)
    f.regs[op.results[0]] = src * n if len(src) == 1 else src


@handles("vector.extract")
def _extract(f: PtxFunction, op: Operation) -> None:
    assert isinstance(op, vector.ExtractOp)
    src = f.get(op.vector)
    positions = list(op.static_position.get_values())
    if op.dynamic_position or len(positions) != 1 or positions[0] < 0:
        raise error_at(op, "-t ptx: vector.extract needs one static position")
    n = _count(op.result.type)
    f.regs[op.result] = src[positions[0] * n : positions[0] * n + n]


@handles("vector.insert")
def _insert(f: PtxFunction, op: Operation) -> None:
    assert isinstance(op, vector.InsertOp)
    dest = list(f.get(op.dest))
    positions = list(op.static_position.get_values())
    if op.dynamic_position or len(positions) != 1:
        raise error_at(op, "-t ptx: vector.insert needs one static position")
    src = f.get(op.operands[0])
    dest[positions[0] * len(src) : positions[0] * len(src) + len(src)] = src
    f.regs[op.result] = dest


@handles("vector.shuffle")
def _shuffle(f: PtxFunction, op: Operation) -> None:
    assert isinstance(op, vector.ShuffleOp)
    both = f.get(op.v1) + f.get(op.v2)
    f.regs[op.result] = [both[i] for i in op.mask.get_values()]


@handles("vector.bitcast")
def _bitcast(f: PtxFunction, op: Operation) -> None:
    src_t, dst_t = op.operands[0].type, op.results[0].type
    words = f.to_words(f.get(op.operands[0]), scalar_of(src_t))
    f.regs[op.results[0]] = f.from_words(words, scalar_of(dst_t), _count(dst_t))


# -- thread identity, barriers ----------------------------------------------------------------


def _special_u64(f: PtxFunction, register: str) -> str:
    r = f.new_of(".b32", "%r")
    f.emit(f"mov.u32 {r}, {register};")
    d = f.new_of(".b64", "%rd")
    f.emit(f"cvt.u64.u32 {d}, {r};")
    return d


@handles("gpu.thread_id")
def _thread_id(f: PtxFunction, op: Operation) -> None:
    dim = str(op.dimension.data.value)  # type: ignore[attr-defined]
    f.regs[op.results[0]] = [_special_u64(f, f"%tid.{dim}")]


@handles("gpu.lane_id")
def _lane_id(f: PtxFunction, op: Operation) -> None:
    f.regs[op.results[0]] = [_special_u64(f, "%laneid")]


@handles("gpu.subgroup_id")
def _warp_id(f: PtxFunction, op: Operation) -> None:
    # %warpid may change during execution (PTX ISA): the warp index is tid.x / warp size.
    tid = _special_u64(f, "%tid.x")
    d = f.new_of(".b64", "%rd")
    f.emit(f"shr.u64 {d}, {tid}, {f.threads_per_warp.bit_length() - 1};")
    f.regs[op.results[0]] = [d]


@handles("tl.get_program_id", "tl.get_num_programs")
def _program_id(f: PtxFunction, op: Operation) -> None:
    axis = "xyz"[op.axis.value.data]  # type: ignore[attr-defined]
    special = "%ctaid" if op.name == "tl.get_program_id" else "%nctaid"
    r = f.new_of(".b32", "%r")
    f.emit(f"mov.u32 {r}, {special}.{axis};")
    f.regs[op.results[0]] = [r]


@handles("gpu.barrier")
def _barrier(f: PtxFunction, op: Operation) -> None:
    f.emit("bar.sync 0;")


# -- simt: shuffles, shared memory, global memory, mma ----------------------------------------


@handles("simt.ptr_to_int")
def _ptr_to_int(f: PtxFunction, op: Operation) -> None:
    f.regs[op.results[0]] = f.get(op.operands[0])


@handles("simt.shuffle")
def _shfl(f: PtxFunction, op: Operation) -> None:
    assert isinstance(op, simt.ShuffleOp)
    t = scalar_of(op.value.type)
    words = f.to_words(f.get(op.value), t)
    lane = f.u32(f.get(op.lane)[0], op.lane.type)
    mask = op.mask.value.data & 0xFFFFFFFF
    out = []
    for word in words:  # one word but for i1 vectors, one byte per element (see bytes_of)
        moved = f.new_of(".b32", "%r")
        f.emit(
            f"shfl.sync.{op.mode.data}.b32 {moved}, {word}, {lane}, {op.c.value.data}, "
            f"0x{mask:08x};"
        )
        out.append(moved)
    f.regs[op.result] = f.from_words(out, t, _count(op.value.type))


@handles("simt.shared_alloc")
def _shared_alloc(f: PtxFunction, op: Operation) -> None:
    t = op.results[0].type
    assert isinstance(t, simt.SharedMemoryType)
    name = f"__llc_smem{len(f.shared)}"
    f.shared.append((name, t.size.data, max(16, t.alignment.data)))
    placed = op.byte_range if isinstance(op, simt.SharedAllocOp) else None
    if placed is not None:
        f.shared_offsets[name] = placed[0]
    d = f.new_of(".b64", "%rd")
    f.emit(f"mov.u64 {d}, {name};")
    f.regs[op.results[0]] = [d]


def _vec(words: Sequence[str]) -> tuple[str, str]:
    """(``.v2``/``.v4``/'' , operand text) for a memory access of 32-bit words."""
    if len(words) == 1:
        return "", words[0]
    return f".v{len(words)}", "{" + ", ".join(words) + "}"


def _memory_words(f: PtxFunction, regs: list[str], t: Attribute) -> tuple[str, list[str]]:
    """The access type and registers of a store of ``regs`` (``.b8``/``.b16`` for one narrow
    element, else 32-bit words)."""
    total = len(regs) * bits_of(t)
    if total < 32:
        if total == 8:
            return ".b8", [regs[0]]
        if len(regs) == 1:
            return ".b16", [regs[0]]
        return ".b16", [f.to_words(regs, t)[0]]  # two i8 in a u16: handled below
    return ".b32", f.to_words(regs, t)


@handles("simt.shared_store", "simt.global_store")
def _store(f: PtxFunction, op: Operation) -> None:
    value = op.operands[0]
    t, regs = scalar_of(value.type), f.get(value)
    if _is_i1(t):  # an i1 is one byte in memory, as in the SIMT interpreter
        t, regs = IntegerType(8), f.bytes_of(regs)
    if op.name == "simt.shared_store":
        addr = f.address(f.get(op.operands[1])[0], f.get(op.operands[2])[0], op.operands[2].type)
        space, guard = "shared", ""
    else:
        addr, space = f.get(op.operands[1])[0], "global"
        guard = f"@{f.get(op.operands[2])[0]} "
    total = len(regs) * bits_of(t)
    if total == 16 and len(regs) == 2:  # two bytes
        w = f.to_words(regs, t)[0]
        h = f.new_of(".b16", "%h")
        f.emit(f"cvt.u16.u32 {h}, {w};")
        kind, words = ".b16", [h]
    else:
        kind, words = _memory_words(f, regs, t)
    v, text = _vec(words)
    f.emit(f"{guard}st.{space}{v}{kind} [{addr}], {text};")


@handles("simt.shared_load", "simt.global_load")
def _load(f: PtxFunction, op: Operation) -> None:
    result = op.results[0]
    t, n = scalar_of(result.type), _count(result.type)
    predicates = _is_i1(t)
    if predicates:  # an i1 is one byte in memory, as in the SIMT interpreter
        t = IntegerType(8)
    total = n * bits_of(t)

    def done(regs: list[str]) -> None:
        f.regs[result] = f.preds_of(regs) if predicates else regs

    if op.name == "simt.shared_load":
        addr = f.address(f.get(op.operands[0])[0], f.get(op.operands[1])[0], op.operands[1].type)
        space, guard, other = "shared", "", None
    else:
        addr, space = f.get(op.operands[0])[0], "global"
        guard = f"@{f.get(op.operands[1])[0]} "
        other = f.get(op.operands[2])
        other = f.bytes_of(other) if predicates else other
    if total < 32:
        h = f.new_of(".b16", "%h")
        kind = ".b8" if total == 8 else ".b16"
        if other is not None:
            if n == 1:
                f.emit(f"mov.b16 {h}, {other[0]};")
            else:
                w = f.to_words(other, t)[0]
                f.emit(f"cvt.u16.u32 {h}, {w};")
        f.emit(f"{guard}ld.{space}{kind} {h}, [{addr}];")
        if n == 1:
            done([h])
        else:
            w = f.new_of(".b32", "%r")
            f.emit(f"cvt.u32.u16 {w}, {h};")
            done(f.from_words([w], t, n))
        return
    words = [f.new_of(".b32", "%r") for _ in range(total // 32)]
    if other is not None:
        for w, o in zip(words, f.to_words(other, t), strict=True):
            f.emit(f"mov.b32 {w}, {o};")
    v, text = _vec(words)
    f.emit(f"{guard}ld.{space}{v}.b32 {text}, [{addr}];")
    done(f.from_words(words, t, n))


def _matrix_suffix(op: Operation) -> str:
    """``.m8n8.x{1,2,4}[.trans]`` of a ``simt.ldmatrix``/``simt.stmatrix``."""
    assert isinstance(op, simt.LdMatrixOp | simt.StMatrixOp)
    trans = ".trans" if op.trans is not None else ""
    return f".m8n8.x{op.count.value.data}{trans}"


@handles("simt.ldmatrix")
def _ldmatrix(f: PtxFunction, op: Operation) -> None:
    # One 32-bit register per 8x8 matrix, its two b16 elements packed low (the first) to high, as
    # the SIMT interpreter orders them: ``from_words`` unpacks them like a shared load's words.
    assert isinstance(op, simt.LdMatrixOp)
    addr = f.address(f.get(op.smem)[0], f.get(op.addr)[0], op.addr.type)
    words = [f.new_of(".b32", "%r") for _ in range(op.count.value.data)]
    f.emit(
        f"ldmatrix.sync.aligned{_matrix_suffix(op)}.shared.b16 {{{', '.join(words)}}}, [{addr}];"
    )
    f.regs[op.result] = f.from_words(words, scalar_of(op.result.type), _count(op.result.type))


@handles("simt.stmatrix")
def _stmatrix(f: PtxFunction, op: Operation) -> None:
    # stmatrix needs sm_90 (PTX ISA 7.8); the planner only picks it for such targets.
    assert isinstance(op, simt.StMatrixOp)
    words = f.to_words(f.get(op.value), scalar_of(op.value.type))
    addr = f.address(f.get(op.smem)[0], f.get(op.addr)[0], op.addr.type)
    f.emit(
        f"stmatrix.sync.aligned{_matrix_suffix(op)}.shared.b16 [{addr}], {{{', '.join(words)}}};"
    )


@handles("simt.mma_m16n8k16")
def _mma(f: PtxFunction, op: Operation) -> None:
    assert isinstance(op, simt.MmaOp)
    ab = scalar_of(op.a.type)
    ab_name = "bf16" if isinstance(ab, BFloat16Type) else "f16"
    a = f.to_words(f.get(op.a), ab)
    b = f.to_words(f.get(op.b), scalar_of(op.b.type))
    c = f.get(op.c)
    acc = scalar_of(op.c.type)
    if isinstance(acc, Float16Type):  # .f16 accumulator: two halves per 32-bit register
        c = f.to_words(c, acc)
        d = [f.new_of(".b32", "%r") for _ in range(2)]
        acc_name = "f16"
    else:
        d = [f.new_of(".f32", "%f") for _ in range(4)]
        acc_name = "f32"
    f.emit(
        f"mma.sync.aligned.m16n8k16.row.col.{acc_name}.{ab_name}.{ab_name}.{acc_name} "
        f"{{{', '.join(d)}}}, {{{', '.join(a)}}}, {{{', '.join(b)}}}, {{{', '.join(c)}}};"
    )
    f.regs[op.result] = f.from_words(d, acc, 4) if acc_name == "f16" else d


# -- cp.async (sm_80, every arch llc emits) ---------------------------------------------------


@handles("simt.cp_async")
def _cp_async(f: PtxFunction, op: Operation) -> None:
    assert isinstance(op, simt.CpAsyncOp)
    n = op.bytes.value.data
    dst = f.address(f.get(op.smem)[0], f.get(op.addr)[0], op.addr.type)
    src, size = f.get(op.src)[0], f.get(op.size)[0]
    # .cg (L2 only) exists for 16 bytes; the src-size operand zero-fills the rest (masking)
    cache = "cg" if n == 16 else "ca"
    f.emit(f"cp.async.{cache}.shared.global [{dst}], [{src}], {n}, {size};")


@handles("simt.cp_async_commit_group")
def _cp_async_commit(f: PtxFunction, op: Operation) -> None:
    f.emit("cp.async.commit_group;")


@handles("simt.cp_async_wait_group")
def _cp_async_wait(f: PtxFunction, op: Operation) -> None:
    assert isinstance(op, simt.CpAsyncWaitGroupOp)
    f.emit(f"cp.async.wait_group {op.pending.value.data};")


# -- wgmma (sm_90a) ---------------------------------------------------------------------------


def _need_sm90(f: PtxFunction, op: Operation) -> None:
    if not f.arch.startswith("sm_90"):
        raise error_at(
            op, f"-t ptx: {op.name} needs Hopper (tl.target cuda:90, sm_90a), not {f.arch}"
        )


@handles("simt.wgmma_fence")
def _wgmma_fence(f: PtxFunction, op: Operation) -> None:
    _need_sm90(f, op)
    # Pack the A fragments and copy the first accumulators of the wgmma ops that follow before
    # the fence: a register write between two wgmma ops serializes the wgmma pipeline.
    following = op.next_op
    while following is not None and not isinstance(following, simt.WgmmaCommitGroupOp):
        if isinstance(following, simt.WgmmaOp):
            _wgmma_registers(f, following)
        following = following.next_op
    f.emit("wgmma.fence.sync.aligned;")


def _wgmma_registers(f: PtxFunction, op: simt.WgmmaOp) -> None:
    """A's packed words and the accumulator registers of ``op``, each emitted once: at the
    fence before the op when its operand is defined there, else at the op."""
    if op.a_in_registers and op not in f.wgmma_a and op.a in f.regs:
        f.wgmma_a[op] = f.to_words(f.get(op.a), op.a_type)
    if op in f.wgmma_d or op.c not in f.regs:
        return
    c_regs = f.get(op.c)
    if isinstance(op.c.owner, simt.WgmmaOp | simt.WgmmaWaitGroupOp) and op.c.has_one_use():
        # an accumulator chain: wgmma updates the same registers in place
        f.wgmma_d[op] = list(c_regs)
        return
    if isinstance(op.c.owner, scf.IfOp | scf.ForOp):
        # A structured op's result has registers of its own (a product still in flight keeps
        # the wgmma's, see _if). Updated in place when no other reader can run after this
        # wgmma: then no instruction but a wgmma defines the registers between the first
        # wgmma and the wait (ptxas serializes the pipeline otherwise, C7515).
        alone = all(u.operation is op or _exclusive(u.operation, op) for u in op.c.uses)
        if alone:
            f.wgmma_d[op] = list(c_regs)
            return
        if simt.wgmma_sources(op.c):
            raise error_at(
                op,
                "-t ptx: this wgmma's accumulator is still in flight and read elsewhere: "
                "copying it would read registers the wgmma pipeline is still writing",
            )
    acc_t = scalar_of(op.c.type)
    d_regs = [f.new(acc_t) for _ in c_regs]
    for dst, src in zip(d_regs, c_regs, strict=True):
        _mov(f, dst, src, acc_t)
    f.wgmma_d[op] = d_regs


@handles("simt.fence_async_shared")
def _fence_async_shared(f: PtxFunction, op: Operation) -> None:
    _need_sm90(f, op)
    f.emit("fence.proxy.async.shared::cta;")


@handles("simt.wgmma_commit_group")
def _wgmma_commit(f: PtxFunction, op: Operation) -> None:
    _need_sm90(f, op)
    f.emit("wgmma.commit_group.sync.aligned;")


@handles("simt.wgmma_wait_group")
def _wgmma_wait(f: PtxFunction, op: Operation) -> None:
    assert isinstance(op, simt.WgmmaWaitGroupOp)
    _need_sm90(f, op)
    f.emit(f"wgmma.wait_group.sync.aligned {op.pending.value.data};")
    # The accumulators stay in their registers: moving them would be a register access the
    # wgmma pipeline must wait for.
    for value, result in zip(op.values, op.results_, strict=True):
        f.regs[result] = f.get(value)


def _descriptor(f: PtxFunction, desc: SSAValue, smem: SSAValue) -> str:
    """The 64-bit descriptor: the IR's start address is relative to the buffer, so add the
    buffer's shared address (encoded as ``(addr & 0x3FFFF) >> 4``) to bits 0-13."""
    base = f.get(smem)[0]
    t = f.new_of(".b64", "%rd")
    f.emit(f"shr.u64 {t}, {base}, 4;")
    f.emit(f"and.b64 {t}, {t}, 16383;")
    d = f.new_of(".b64", "%rd")
    f.emit(f"add.s64 {d}, {f.get(desc)[0]}, {t};")
    return d


@handles("simt.wgmma")
def _wgmma(f: PtxFunction, op: Operation) -> None:
    assert isinstance(op, simt.WgmmaOp)
    _need_sm90(f, op)
    n, k = op.n.value.data, op.k
    a_name = simt.wgmma_ab_name(op.a_type)
    b_name = simt.wgmma_ab_name(op.b_type)
    integer = a_name in ("s8", "u8")
    _wgmma_registers(f, op)
    d_regs = f.wgmma_d[op]
    if op.a_in_registers:
        a_text = "{" + ", ".join(f.wgmma_a[op]) + "}"
    else:
        a_text = _descriptor(f, op.a, op.a_buffer)
    b_text = _descriptor(f, op.b, op.smem)
    scale_d = f.new_of(".pred", "%p")
    one = f.new_of(".b32", "%r")
    f.emit(f"mov.b32 {one}, 1;")
    f.emit(f"setp.ne.b32 {scale_d}, {one}, 0;")
    args = ["{" + ", ".join(d_regs) + "}", a_text, b_text, scale_d]
    if not integer:
        args += ["1", "1"]  # imm-scale-a, imm-scale-b
        if a_name in ("f16", "bf16"):
            if not op.a_in_registers:
                args.append("1" if op.trans_a is not None else "0")
            args.append("1" if op.trans_b is not None else "0")
    dtype = "s32" if integer else "f32"
    f.emit(f"wgmma.mma_async.sync.aligned.m64n{n}k{k}.{dtype}.{a_name}.{b_name} {', '.join(args)};")
    f.regs[op.result] = d_regs


# -- control flow -----------------------------------------------------------------------------


def _fresh_like(f: PtxFunction, value: SSAValue) -> list[str]:
    t = scalar_of(value.type)
    return [f.new(t) for _ in range(_count(value.type))]


def _mov(f: PtxFunction, dest: str, src: str, t: Attribute) -> None:
    kind = _reg_class(t)[0]
    f.emit(f"mov{kind if kind != '.pred' else '.pred'} {dest}, {src};")


def _parallel_move(f: PtxFunction, dests: list[list[str]], srcs: list[list[str]], types) -> None:
    """Copy ``srcs`` to ``dests`` as if at once (a yield may swap loop-carried values)."""
    temps = []
    for regs, t in zip(srcs, types, strict=True):
        tmp = [f.new(t) for _ in regs]
        for d, s in zip(tmp, regs, strict=True):
            _mov(f, d, s, t)
        temps.append(tmp)
    for regs, tmp, t in zip(dests, temps, types, strict=True):
        for d, s in zip(regs, tmp, strict=True):
            _mov(f, d, s, t)


def _yield_into(f: PtxFunction, block: Block, dests: list[list[str]]) -> Operation | None:
    """Emit ``block``'s ops; its terminator (``scf.yield``, or ``scf.condition`` whose first
    operand is the condition) writes its values into ``dests``. Returns the terminator."""
    terminator = block.last_op
    is_yield = terminator is not None and terminator.name in ("scf.yield", "scf.condition")
    for inner in block.ops:
        if inner is terminator and is_yield:
            break
        _emit_op(f, inner)
    if not is_yield:
        return None
    assert terminator is not None
    values = list(terminator.operands)[1 if terminator.name == "scf.condition" else 0 :]
    if dests:
        _parallel_move(f, dests, [f.get(v) for v in values], [scalar_of(v.type) for v in values])
    return terminator


@handles("scf.for")
def _for(f: PtxFunction, op: Operation) -> None:
    assert isinstance(op, scf.ForOp)
    body = op.body.block
    iv_t = scalar_of(op.lb.type)
    iv = f.new(iv_t)
    _mov(f, iv, f.get(op.lb)[0], iv_t)
    carried = [_fresh_like(f, a) for a in body.args[1:]]
    for regs, init in zip(carried, op.iter_args, strict=True):
        t = scalar_of(init.type)
        for d, s in zip(regs, f.get(init), strict=True):
            _mov(f, d, s, t)
    f.regs[body.args[0]] = [iv]
    for arg, regs in zip(body.args[1:], carried, strict=True):
        f.regs[arg] = regs
    head, end = f.label("for"), f.label("endfor")
    done = f.new_of(".pred", "%p")
    bits = max(16, bits_of(iv_t))
    f.lines.append(f"{head}:")
    f.emit(f"setp.ge.s{bits} {done}, {iv}, {f.get(op.ub)[0]};")
    f.emit(f"@{done} bra {end};")
    _yield_into(f, body, carried)
    f.emit(f"add.s{bits} {iv}, {iv}, {f.get(op.step)[0]};")
    f.emit(f"bra.uni {head};")
    f.lines.append(f"{end}:")
    for res, regs in zip(op.results, carried, strict=True):
        f.regs[res] = regs


def _exclusive(a: Operation, b: Operation) -> bool:
    """Whether ``a`` and ``b`` sit in different branches of one ``scf.if`` (never both run)."""
    branch_of: dict[Operation, object] = {}
    x: Operation | None = a
    while x is not None:
        parent = x.parent_op()
        if isinstance(parent, scf.IfOp):
            branch_of[parent] = x.parent_region()
        x = parent
    x = b
    while x is not None:
        parent = x.parent_op()
        if parent in branch_of and x.parent_region() is not branch_of[parent]:
            return True
        x = parent
    return False


def _branch_into(
    f: PtxFunction, block: Block, dests: list[list[str] | None], op: Operation
) -> None:
    """Emit a branch of an ``scf.if``; its yield fills ``dests``. A product still in flight
    (:func:`llc.dialects.simt.wgmma_sources`) is never moved, since a move reads registers the
    wgmma pipeline is still writing: where ``dests`` has none yet the result takes the product's
    registers, and another branch must yield it in those same registers."""
    terminator = block.last_op
    assert terminator is not None and terminator.name == "scf.yield"
    for inner in block.ops:
        if inner is not terminator:
            _emit_op(f, inner)
    moves: list[tuple[list[str], list[str], Attribute]] = []
    for i, v in enumerate(terminator.operands):
        src = f.get(v)
        flying = bool(simt.wgmma_sources(v))
        if dests[i] is None:
            dests[i] = list(src) if flying else _fresh_like(f, v)
        if dests[i] == list(src):
            continue
        if flying:
            raise error_at(
                op,
                f"-t ptx: result {i} of this scf.if is a wgmma product still in flight that "
                "its branches yield in different registers (moving it would read them)",
            )
        moves.append((dests[i], list(src), scalar_of(v.type)))  # type: ignore[arg-type]
    if moves:
        _parallel_move(f, [m[0] for m in moves], [m[1] for m in moves], [m[2] for m in moves])


@handles("scf.if")
def _if(f: PtxFunction, op: Operation) -> None:
    assert isinstance(op, scf.IfOp)
    # a product in flight takes its registers from the branch that computes it
    results: list[list[str] | None] = [
        None if simt.wgmma_sources(r) else _fresh_like(f, r) for r in op.results
    ]
    other, end = f.label("else"), f.label("endif")
    f.emit(f"@!{f.get(op.cond)[0]} bra {other};")
    _branch_into(f, op.true_region.block, results, op)
    f.emit(f"bra.uni {end};")
    f.lines.append(f"{other}:")
    if op.false_region.blocks:
        _branch_into(f, op.false_region.block, results, op)
    f.lines.append(f"{end}:")
    for res, regs in zip(op.results, results, strict=True):
        assert regs is not None
        f.regs[res] = regs


@handles("scf.while")
def _while(f: PtxFunction, op: Operation) -> None:
    # head: before region (its args are the loop-carried registers); scf.condition copies its
    # values into the after region's args, which are also the results; false exits. The after
    # region's scf.yield writes the loop-carried registers and jumps back to the head.
    assert isinstance(op, scf.WhileOp)
    before, after = op.before_region.block, op.after_region.block
    carried = [_fresh_like(f, a) for a in before.args]
    _parallel_move(
        f, carried, [f.get(v) for v in op.arguments], [scalar_of(v.type) for v in op.arguments]
    )
    for arg, regs in zip(before.args, carried, strict=True):
        f.regs[arg] = regs
    passed = [_fresh_like(f, a) for a in after.args]
    for arg, regs in zip(after.args, passed, strict=True):
        f.regs[arg] = regs
    head, end = f.label("while"), f.label("endwhile")
    f.lines.append(f"{head}:")
    condition = _yield_into(f, before, passed)
    assert condition is not None and condition.name == "scf.condition"
    f.emit(f"@!{f.get(condition.operands[0])[0]} bra {end};")
    _yield_into(f, after, carried)
    f.emit(f"bra.uni {head};")
    f.lines.append(f"{end}:")
    for res, regs in zip(op.results, passed, strict=True):
        f.regs[res] = regs


@handles("scf.index_switch")
def _index_switch(f: PtxFunction, op: Operation) -> None:
    # a compare and branch per case, the default region last
    assert isinstance(op, scf.IndexSwitchOp)
    results = [_fresh_like(f, r) for r in op.results]
    index = f.get(op.arg)[0]
    end = f.label("endswitch")
    for value, region in zip(op.cases.get_values(), op.case_regions, strict=True):
        other, hit = f.label("case"), f.new_of(".pred", "%p")
        f.emit(f"setp.ne.s64 {hit}, {index}, {value};")
        f.emit(f"@{hit} bra {other};")
        _yield_into(f, region.block, results)
        f.emit(f"bra.uni {end};")
        f.lines.append(f"{other}:")
    _yield_into(f, op.default_region.block, results)
    f.lines.append(f"{end}:")
    for res, regs in zip(op.results, results, strict=True):
        f.regs[res] = regs


@handles("func.return")
def _return(f: PtxFunction, op: Operation) -> None:
    if op.operands:
        raise error_at(op, "-t ptx: a kernel returns nothing")
    f.emit("ret;")


def _emit_op(f: PtxFunction, op: Operation) -> None:
    handler = _HANDLERS.get(op.name)
    if (
        handler is None
        and op.name.startswith(("arith.", "math."))
        and not any(isinstance(v.type, TensorType) for v in (*op.operands, *op.results))
    ):
        raise error_at(op, f"-t ptx: '{op.name}' has no PTX sequence yet (see docs/reference.md)")
    if handler is None:
        raise error_at(
            op,
            "-t ptx: the first op left that is not lowered (PTX has no instruction for it): "
            "run llc-compile (or llc-lower-to-simt) first",
        )
    handler(f, op)


# -- module -----------------------------------------------------------------------------------


def _param_type(t: Attribute) -> str:
    if t.name == "tl.ptr" or isinstance(t, IndexType):
        return ".u64"
    if _is_float(t):
        return {16: ".b16", 32: ".f32", 64: ".f64"}[bits_of(t)]
    return f".u{max(16, bits_of(t))}" if bits_of(t) > 1 else ".u8"


def _arena_offsets(f: PtxFunction) -> dict[str, int]:
    """Each shared symbol's offset in the one arena: where the shared allocation placed it,
    else one after the other (aligned) past the placed ones."""
    offsets = dict(f.shared_offsets)
    end = max((offsets[s] + size for s, size, _ in f.shared if s in offsets), default=0)
    for sym, size, align in f.shared:
        if sym not in offsets:
            end = -(-end // align) * align
            offsets[sym] = end
            end += size
    return offsets


def _function(fn: func.FuncOp, arch: str, lanes: int) -> str:
    f = PtxFunction(arch=arch, threads_per_warp=lanes)
    name = fn.sym_name.data
    params = []
    for i, arg in enumerate(fn.body.block.args):
        t = arg.type
        if isinstance(t, VectorType) or fn.function_type.outputs.data:
            raise error_at(
                fn,
                f"-t ptx: @{name} is not a kernel (vector arguments or results); PTX entries "
                "take scalars and pointers",
            )
        pname = f"{name}_param_{i}"
        params.append(f"\t.param {_param_type(t)} {pname}")
        if isinstance(t, IntegerType) and t.width.data == 1:
            h = f.new_of(".b16", "%h")
            f.emit(f"ld.param.u8 {h}, [{pname}];")
            p = f.new_of(".pred", "%p")
            f.emit(f"setp.ne.b16 {p}, {h}, 0;")
            f.regs[arg] = [p]
            continue
        if t.name == "tl.ptr":
            d = f.new_of(".b64", "%rd")
            f.emit(f"ld.param.u64 {d}, [{pname}];")
            g = f.new_of(".b64", "%rd")
            f.emit(f"cvta.to.global.u64 {g}, {d};")
            f.regs[arg] = [g]
            continue
        d = f.new(t)
        f.emit(f"ld.param{_param_type(t)} {d}, [{pname}];")
        f.regs[arg] = [d]
    for op in fn.body.block.ops:
        _emit_op(f, op)
    out = [f".visible .entry {name}(", ",\n".join(params), ")", "{"]
    offsets = _arena_offsets(f)
    total = max((offsets[sym] + size for sym, size, _ in f.shared), default=0)
    if not f.shared_offsets:
        total = sum(size for _, size, _ in f.shared)  # separate arrays: each pads to its own
    lines = f.lines
    if total > STATIC_SHARED_LIMIT:
        # Static shared variables are limited to 48 KiB: above that the buffers are slices of
        # the dynamic shared memory, whose size the launch gives (see ``shared_bytes``).
        out.append(f"\t// llc.dynamic_shared_bytes = {total}")
        out.append(f"\t// llc.dynamic_shared_align = {max(a for _, _, a in f.shared)}")
        renames = {s: f"{DYNAMIC_SHARED}+{o}" if o else DYNAMIC_SHARED for s, o in offsets.items()}
        lines = [_rename_shared(line, renames) for line in lines]
    elif f.shared_offsets:
        # one arena: the shared allocation placed buffers whose lifetimes do not meet over the
        # same bytes (llc.passes.shared_alloc)
        align = max(a for _, _, a in f.shared)
        out.append(f"\t.shared .align {align} .b8 {ARENA}[{total}];")
        renames = {s: f"{ARENA}+{o}" if o else ARENA for s, o in offsets.items()}
        lines = [_rename_shared(line, renames) for line in lines]
    else:
        out += [f"\t.shared .align {a} .b8 {sym}[{size}];" for sym, size, a in f.shared]
    for prefix, n in f.counters.items():
        out.append(f"\t.reg {f.kinds[prefix]} {prefix}<{n}>;")
    out.append("")
    out += lines
    out.append("}")
    return "\n".join(out)


def emit_ptx(module: ModuleOp, arch: str = "") -> str:
    """The PTX module of a lowered llc module (one ``.entry`` per ``func.func``)."""
    arch = ptx_arch(module, arch)
    lanes_attr = module.attributes.get("tl.threads-per-warp")
    lanes = lanes_attr.value.data if isinstance(lanes_attr, IntegerAttr) else 32
    if lanes != 32:
        raise error_at(module, f"-t ptx: NVIDIA warps have 32 lanes, the module has {lanes}")
    parts = [f".version {PTX_VERSION.get(arch, '8.0')}", f".target {arch}", ".address_size 64", ""]
    body: list[str] = []
    for op in module.body.block.ops:
        if isinstance(op, func.FuncOp):
            if op.is_declaration:
                continue
            body.append(_function(op, arch, lanes))
            body.append("")
        else:
            _emit_op(PtxFunction(arch=arch), op)
    body, hoisted = _hoist_module_lines(body)
    parts += hoisted
    if arch == "sm_90" and any("\twgmma." in text for text in body):
        # wgmma is an sm_90a feature: the arch-specific target is required to assemble it
        parts[1] = ".target sm_90a"
    if any("// llc.dynamic_shared_bytes" in text for text in body):
        # a swizzled wgmma operand needs its buffer aligned to the swizzle period (1024 bytes)
        align = max((int(a) for text in body for a in _DYNAMIC_ALIGN.findall(text)), default=16)
        parts.append(f".extern .shared .align {align} .b8 {DYNAMIC_SHARED}[];")
        parts.append("")
    return "\n".join(parts + body).rstrip() + "\n"


def _hoist_module_lines(body: list[str]) -> tuple[list[str], list[str]]:
    r"""The entries without the lines marked ``// llc.module`` (strings and callees of
    :mod:`llc.passes.targets.ptx_debug`), and those lines, once each, for the module.

    >>> _hoist_module_lines(["{\n\t// llc.module .global x;\n\tret;\n}"])
    (['{\n\tret;\n}'], ['.global x;', ''])
    """
    marker = "\t// llc.module "
    hoisted: dict[str, None] = {}
    kept = []
    for text in body:
        lines = []
        for line in text.split("\n"):
            if line.startswith(marker):
                hoisted[line[len(marker) :]] = None
            else:
                lines.append(line)
        kept.append("\n".join(lines))
    return kept, [*hoisted, ""] if hoisted else []


def shared_bytes(ptx: str, entry: str) -> int:
    """The dynamic shared memory an entry of :func:`emit_ptx`'s output needs at launch (0 when
    its buffers are static).

    >>> text = "\\n".join([".visible .entry k()", "{", "// llc.dynamic_shared_bytes = 65536", "}"])
    >>> shared_bytes(text, "k")
    65536
    """
    import re

    start = ptx.find(f".entry {entry}(")
    if start < 0:
        raise KeyError(entry)
    end = ptx.find("\n}", start)
    found = re.search(r"llc\.dynamic_shared_bytes = (\d+)", ptx[start:end])
    return int(found.group(1)) if found else 0


def _rename_shared(line: str, renames: dict[str, str]) -> str:
    for sym, new in renames.items():
        if sym in line:
            line = line.replace(f"{sym};", f"{new};")
    return line


@dataclass(frozen=True)
class PtxTarget(Target):
    """``-t ptx`` (``-t 'ptx{arch=sm_80}'`` overrides the module's ``tl.target``)."""

    name: ClassVar[str] = "ptx"
    arch: str = ""

    def __post_init__(self) -> None:
        if self.arch:
            _checked_arch(self.arch)

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(emit_ptx(module, self.arch))


# the handlers of simt.atomic, simt.inline_asm and simt.mma_m16n8k32 register themselves with
# handles (modules of their own: merges stay local)
from llc.passes.targets import ptx_atomics, ptx_debug, ptx_inline_asm, ptx_mma  # noqa: E402, F401
