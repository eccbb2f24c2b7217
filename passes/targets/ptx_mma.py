"""``-t ptx`` for ``simt.mma_m16n8k32``: ``mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32``,
its 16 + 8 bytes packed four to a 32-bit register, low byte first (the fragment order).

>>> mma_k32_text(["%r0", "%r1", "%r2", "%r3"], ["%r4", "%r5"], ["%r6"] * 4, ["%r7"] * 4)
'mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%r7, %r7, %r7, %r7}, {%r0, %r1, %r2, %r3}, \
{%r4, %r5}, {%r6, %r6, %r6, %r6};'
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Operation

from llc.dialects import simt
from llc.passes.targets.ptx import PtxFunction, handles, scalar_of

__all__ = ["mma_k32_text"]


def mma_k32_text(a: Sequence[str], b: Sequence[str], c: Sequence[str], d: Sequence[str]) -> str:
    """The instruction, from the registers of its fragments."""
    regs = ", ".join
    return (
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
        f"{{{regs(d)}}}, {{{regs(a)}}}, {{{regs(b)}}}, {{{regs(c)}}};"
    )


@handles("simt.mma_m16n8k32")
def _mma_k32(f: PtxFunction, op: Operation) -> None:
    assert isinstance(op, simt.MmaK32Op)
    a = f.to_words(f.get(op.a), scalar_of(op.a.type))
    b = f.to_words(f.get(op.b), scalar_of(op.b.type))
    d = [f.new_of(".b32", "%r") for _ in range(4)]
    f.emit(mma_k32_text(a, b, f.get(op.c), d))
    f.regs[op.result] = d
