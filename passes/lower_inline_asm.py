"""Lowering ``tl.elementwise_inline_asm`` to SIMT code: one ``simt.inline_asm`` on the
operands' register vectors, run per group of ``pack`` consecutive registers (Triton's grouping:
the elements a thread holds one after the other in its register order), which ``-t ptx`` emits
as the asm text with ``$i`` replaced by the group's registers.

Operands and results share one layout (the op's verifier); a scalar operand is broadcast to the
registers first. The register count must be a multiple of ``pack`` (a located error otherwise).
"""

from __future__ import annotations

from xdsl.dialects import vector
from xdsl.dialects.builtin import TensorType, VectorType
from xdsl.ir import Operation

from llc.dialects import simt, tl
from llc.errors import LayoutError
from llc.passes.simt_lowering import FunctionLowering, register_vector_type

__all__ = ["lower_inline_asm"]


def lower_inline_asm(lowering: FunctionLowering, op: Operation) -> None:
    """``tl.elementwise_inline_asm`` (see the module docstring)."""
    assert isinstance(op, tl.ElementwiseInlineAsmOp)
    rts = [register_vector_type(r.type) for r in op.results_]  # type: ignore[arg-type]
    regs = rts[0].get_shape()[0]
    pack = op.packed_element.value.data
    if regs % pack:
        raise LayoutError(f"{regs} registers per thread do not split into groups of pack {pack}")
    args = []
    for v in op.args:
        x = lowering.get(v)
        if not isinstance(x.type, VectorType):
            x = lowering.emit(vector.BroadcastOp(x, VectorType(x.type, [regs]))).results[0]
        args.append(x)
    new = simt.InlineAsmOp(op.asm_string.data, op.constraints.data, pack, args, rts)
    lowering.emit(new)
    for old, res in zip(op.results_, new.outs, strict=True):
        assert isinstance(old.type, TensorType)
        lowering.set_tensor(old, res)
