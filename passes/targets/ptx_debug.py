"""PTX of ``simt.assert`` and ``simt.print`` (device assert and print, as Triton emits them).

``simt.assert``: the registers' predicates are and-ed; where one is false the thread calls
``__assertfail(message, file, line, function, 1)`` (the CUDA runtime's device assert, which
ptxas knows: it prints the message with the block and thread, and stops the kernel), over a
branch the true case takes.

``simt.print``: per register, one ``vprintf`` of
``"pid (%u, %u, %u) idx (%d)<prefix><value>\\n"`` with its arguments packed in a local buffer
(C's variadic promotions: floats as ``double``, small integers as ``int``; ``%x``/``%llx`` of
the bits with ``hex``). The element index is the row-major one of the op's keys: the register's
key xor the keys of the set bits of ``%tid.x`` (:func:`llc.dialects.simt.element_keys`).

Strings are ``.global`` byte arrays and the two callees ``.extern .func`` declarations, which
the handlers mark with :data:`MODULE_LINE` and :func:`llc.passes.targets.ptx.emit_ptx` hoists
to the module (once each).

>>> _string_bytes("ab")
'{97, 98, 0}'
"""

from __future__ import annotations

import hashlib

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    VectorType,
)
from xdsl.ir import Attribute, Operation

from llc.dialects import simt
from llc.dialects.diagnostics import error_at, op_location
from llc.passes.targets.ptx import PtxFunction, bits_of, f8_to_f16, handles, scalar_of

__all__ = ["MODULE_LINE"]

MODULE_LINE = "// llc.module "
"""The prefix of a body line :func:`llc.passes.targets.ptx.emit_ptx` moves to the module."""

_ASSERTFAIL = (
    ".extern .func __assertfail (.param .b64 message, .param .b64 file, .param .b32 line, "
    ".param .b64 function, .param .b64 char_size);"
)
_VPRINTF = ".extern .func (.param .b32 status) vprintf (.param .b64 format, .param .b64 arguments);"


def _string_bytes(text: str) -> str:
    return "{" + ", ".join(str(b) for b in (*text.encode(), 0)) + "}"


def _string(f: PtxFunction, text: str) -> str:
    """A generic-address register of the NUL-terminated ``text`` (one ``.global`` per text)."""
    sym = "$str_" + hashlib.sha1(text.encode()).hexdigest()[:12]
    size = len(text.encode()) + 1
    f.emit(f"{MODULE_LINE}.global .align 1 .b8 {sym}[{size}] = {_string_bytes(text)};")
    raw, generic = f.new_of(".b64", "%rd"), f.new_of(".b64", "%rd")
    f.emit(f"mov.u64 {raw}, {sym};")
    f.emit(f"cvta.global.u64 {generic}, {raw};")
    return generic


def _function_name(op: Operation) -> str:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        parent = parent.parent_op()
    return parent.sym_name.data if parent is not None else "kernel"


@handles("simt.assert")
def _assert(f: PtxFunction, op: Operation) -> None:
    assert isinstance(op, simt.AssertOp)
    preds = f.get(op.condition)
    ok = preds[0]
    for p in preds[1:]:
        both = f.new_of(".pred", "%p")
        f.emit(f"and.pred {both}, {ok}, {p};")
        ok = both
    f.emit(f"{MODULE_LINE}{_ASSERTFAIL}")
    done = f.label("assert_ok")
    f.emit(f"@{ok} bra {done};")
    loc = op_location(op)
    args = [
        ("b64", _string(f, op.message.data)),
        ("b64", _string(f, loc.file if loc is not None else "unknown")),
        ("b32", str(loc.line if loc is not None else 0)),
        ("b64", _string(f, _function_name(op))),
        ("b64", "1"),
    ]
    _call(f, "__assertfail", args, returns=False)
    f.emit(f"{done}:")


def _call(f: PtxFunction, callee: str, args: list[tuple[str, str]], returns: bool) -> None:
    f.emit("{")
    names = []
    for i, (kind, value) in enumerate(args):
        f.emit(f".param .{kind} param{i};")
        f.emit(f"st.param.{kind} [param{i}], {value};")
        names.append(f"param{i}")
    if returns:
        f.emit(".param .b32 retval0;")
        f.emit(f"call.uni (retval0), {callee}, ({', '.join(names)});")
    else:
        f.emit(f"call.uni {callee}, ({', '.join(names)});")
    f.emit("}")


def _thread_key(f: PtxFunction, bits: list[int]) -> str:
    """``xor`` of ``bits[b]`` over the set bits ``b`` of ``%tid.x``, a ``.b32`` register."""
    tid, acc = f.new_of(".b32", "%r"), f.new_of(".b32", "%r")
    f.emit(f"mov.u32 {tid}, %tid.x;")
    f.emit(f"mov.b32 {acc}, 0;")
    for b, key in enumerate(bits):
        if not key:
            continue
        bit, part, nxt = (f.new_of(".b32", "%r") for _ in range(3))
        p = f.new_of(".pred", "%p")
        f.emit(f"and.b32 {bit}, {tid}, {1 << b};")
        f.emit(f"setp.ne.u32 {p}, {bit}, 0;")
        f.emit(f"selp.b32 {part}, {key}, 0, {p};")
        f.emit(f"xor.b32 {nxt}, {acc}, {part};")
        acc = nxt
    return acc


def _value(
    f: PtxFunction, op: Operation, reg: str, t: Attribute, hex_: bool, signed: bool
) -> tuple[str, str, str]:
    """(format spec, argument kind, argument register) of one register of type ``t``."""
    bits = bits_of(t)
    if isinstance(t, Float8E4M3FNType | Float8E5M2Type):
        half = f8_to_f16(f, reg, "e4m3fn" if isinstance(t, Float8E4M3FNType) else "e5m2")
        return _value(f, op, half, Float16Type(), hex_, signed)
    is_float = isinstance(t, Float16Type | BFloat16Type | Float32Type | Float64Type)
    if is_float and not hex_:
        d = f.new_of(".f64", "%fd")
        if isinstance(t, BFloat16Type):
            w = f.new_of(".f32", "%f")
            f.emit(f"cvt.f32.bf16 {w}, {reg};")
            f.emit(f"cvt.f64.f32 {d}, {w};")
        elif isinstance(t, Float64Type):
            f.emit(f"mov.f64 {d}, {reg};")
        else:
            f.emit(f"cvt.f64.{'f16' if bits == 16 else 'f32'} {d}, {reg};")
        return "%f", "f64", d
    if isinstance(t, IntegerType) and t.width.data == 1:
        r = f.new_of(".b32", "%r")
        f.emit(f"selp.b32 {r}, 1, 0, {reg};")
        return "%d", "b32", r
    if bits == 64:
        return ("%llx" if hex_ else "%lld" if signed else "%llu"), "b64", reg
    if not (is_float or isinstance(t, IntegerType)):
        raise error_at(op, f"-t ptx: printing {t} is not supported")
    r = f.new_of(".b32", "%r")
    if bits == 32:
        f.emit(f"mov.b32 {r}, {reg};")
    else:
        s = "s" if signed and not hex_ and not is_float else "u"
        f.emit(f"cvt.{s}32.{s}{max(bits, 16)} {r}, {reg};")
    return ("%x" if hex_ else "%d" if signed else "%u"), "b32", r


@handles("simt.print")
def _print(f: PtxFunction, op: Operation) -> None:
    assert isinstance(op, simt.PrintOp)
    f.emit(f"{MODULE_LINE}{_VPRINTF}")
    ctas = []
    for axis in "xyz":
        r = f.new_of(".b32", "%r")
        f.emit(f"mov.u32 {r}, %ctaid.{axis};")
        ctas.append(r)
    head = "pid (%u, %u, %u) idx (%d)" + op.prefix.data.replace("%", "%%")
    if op.value is None:
        zero = f.new_of(".b32", "%r")
        f.emit(f"mov.b32 {zero}, 0;")
        _vprintf(f, head + "\n", [*ctas, zero], None)
        return
    t = scalar_of(op.value.type)
    hex_ = str(op.attributes.get("hex")) == "true"
    signed_attr = op.attributes.get("isSigned")
    signed = signed_attr is None or 1 in tuple(signed_attr.get_values())  # type: ignore[attr-defined]
    thread = _thread_key(f, list(op.thread_keys.get_values()))
    regs = f.get(op.value)
    keys = list(op.register_keys.get_values())
    if not isinstance(op.value.type, VectorType):
        regs, keys = regs[:1], [0]
    for reg, key in zip(regs, keys, strict=True):
        idx = f.new_of(".b32", "%r")
        f.emit(f"xor.b32 {idx}, {thread}, {key};")
        spec, kind, value = _value(f, op, reg, t, hex_, signed)
        _vprintf(f, f"{head}{spec}\n", [*ctas, idx], (kind, value))


def _vprintf(f: PtxFunction, fmt: str, words: list[str], value: tuple[str, str] | None) -> None:
    """``vprintf(fmt, buffer)``: four 32-bit words, then the value at offset 16."""
    buf = f.label("print_args").replace("$", "_")
    f.emit(f".local .align 8 .b8 {buf}[24];")
    for i, w in enumerate(words):
        f.emit(f"st.local.u32 [{buf}+{4 * i}], {w};")
    if value is not None:
        kind, reg = value
        f.emit(f"st.local.{kind} [{buf}+16], {reg};")
    raw, generic = f.new_of(".b64", "%rd"), f.new_of(".b64", "%rd")
    f.emit(f"mov.u64 {raw}, {buf};")
    f.emit(f"cvta.local.u64 {generic}, {raw};")
    _call(f, "vprintf", [("b64", _string(f, fmt)), ("b64", generic)], returns=True)
