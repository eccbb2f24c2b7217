"""``-t ptx`` for ``simt.inline_asm``: per group of ``pack`` registers, the asm text in a ``{ }``
scope with ``$i`` replaced by the group's registers (outputs, then inputs), each of its
constraint's class (``r`` a ``.b32`` word packing the group, low element first; ``h`` ``.b16``;
``f`` ``.f32``; ``l`` ``.b64``; ``d`` ``.f64``), as LLVM substitutes inline asm operands.

>>> substitute("max.f32 $0, $1, 0f00000000;", ["%r1", "%r0"])
'max.f32 %r1, %r0, 0f00000000;'
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from xdsl.dialects.builtin import Float32Type, Float64Type
from xdsl.ir import Attribute, Operation

from llc.dialects import simt
from llc.dialects.diagnostics import error_at
from llc.dialects.inline_ptx import InlinePtxError, parse_constraints
from llc.passes.targets.ptx import PtxFunction, bits_of, handles, scalar_of

__all__ = ["substitute"]

_CLASS = {"h": (".b16", "%h"), "r": (".b32", "%r"), "f": (".f32", "%f"), "l": (".b64", "%rd"),
          "d": (".f64", "%fd")}  # fmt: skip


def substitute(asm: str, names: Sequence[str]) -> str:
    """``asm`` with every ``$i`` replaced by ``names[i]``."""
    return re.sub(r"\$(\d+)", lambda m: names[int(m.group(1))], asm)


def _direct(letter: str, t: Attribute, pack: int) -> bool:
    """Whether an element register of ``t`` already is the ``letter`` register."""
    if pack != 1:
        return False
    if letter == "f":
        return isinstance(t, Float32Type)
    if letter == "d":
        return isinstance(t, Float64Type)
    if letter == "l":
        return bits_of(t) == 64 and not isinstance(t, Float64Type)
    return letter == "h" and bits_of(t) == 16


@handles("simt.inline_asm")
def _inline_asm(f: PtxFunction, op: Operation) -> None:
    assert isinstance(op, simt.InlineAsmOp)
    pack = op.pack.value.data
    try:
        outs, ins = parse_constraints(op.constraints.data)
    except InlinePtxError as err:
        raise error_at(op, f"-t ptx: {err}") from None
    for letter, v in (*zip(ins, op.args, strict=True), *zip(outs, op.outs, strict=True)):
        t = scalar_of(v.type)
        if not _direct(letter, t, pack) and (letter != "r" or pack * bits_of(t) != 32):
            raise error_at(op, f"-t ptx: {pack} x {t} in a '{letter}' register")
    regs = op.outs.types[0].get_shape()[0]  # type: ignore[union-attr]
    results: list[list[str]] = [[] for _ in op.outs]
    for g in range(0, regs, pack):
        names = []
        out_regs = []
        for letter, v in zip(outs, op.outs, strict=True):
            t = scalar_of(v.type)
            reg = f.new(t) if _direct(letter, t, pack) else f.new_of(*_CLASS[letter])
            out_regs.append(reg)
            names.append(reg)
        for letter, v in zip(ins, op.args, strict=True):
            t = scalar_of(v.type)
            group = f.get(v)[g : g + pack]
            names.append(group[0] if _direct(letter, t, pack) else f.to_words(group, t)[0])
        f.emit("{")
        for line in substitute(op.asm_string.data, names).split("\n"):
            f.emit(line.strip())
        f.emit("}")
        for k, (letter, v) in enumerate(zip(outs, op.outs, strict=True)):
            t = scalar_of(v.type)
            if _direct(letter, t, pack):
                results[k].append(out_regs[k])
            else:
                results[k] += f.from_words([out_regs[k]], t, pack)
    for v, regs_of in zip(op.outs, results, strict=True):
        f.regs[v] = regs_of
