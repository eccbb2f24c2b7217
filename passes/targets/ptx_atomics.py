"""``-t ptx`` for ``simt.atomic``: one predicated ``atom`` per op, its destination zeroed first
(a thread whose mask is false gets 0, as in the SIMT interpreter).

>>> from xdsl.dialects.builtin import i32
>>> atom_text("add", "acq_rel", "gpu", i32, "%r1", "%p0", "%rd2", ["%r0"])
'@%p0 atom.acq_rel.gpu.global.add.u32 %r1, [%rd2], %r0;'
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute, Operation

from llc.dialects import simt
from llc.dialects.diagnostics import error_at
from llc.dialects.simt_atomics import ptx_atomic_suffix
from llc.errors import LayoutError
from llc.passes.targets.ptx import PtxFunction, constant_reg, handles

__all__ = ["atom_text"]


def atom_text(
    kind: str,
    sem: str,
    scope: str,
    typ: Attribute,
    d: str,
    pred: str,
    addr: str,
    srcs: Sequence[str],
) -> str:
    """The ``atom`` instruction of a ``simt.atomic`` (``srcs``: cmp then value for ``cas``)."""
    suffix = ptx_atomic_suffix(kind, typ)
    return f"@{pred} atom.{sem}.{scope}.global.{suffix} {d}, [{addr}], {', '.join(srcs)};"


@handles("simt.atomic")
def _atomic(f: PtxFunction, op: Operation) -> None:
    assert isinstance(op, simt.AtomicOp)
    t = op.value.type
    kind = op.kind.data
    try:
        d = constant_reg(f, 0, t)
        srcs = [f.get(op.value)[0]]
        if op.cmp is not None:
            srcs.insert(0, f.get(op.cmp)[0])
        text = atom_text(
            kind, op.sem.data, op.scope.data, t, d, f.get(op.mask)[0], f.get(op.addr)[0], srcs
        )
    except LayoutError as err:
        raise error_at(op, f"-t ptx: {err}") from None
    if "bf16" in text and int(f.arch.removeprefix("sm_").rstrip("a")) < 90:
        raise error_at(op, f"-t ptx: atom.add.noftz.bf16 needs sm_90, not {f.arch}")
    f.emit(text)
    f.regs[op.result] = [d]
