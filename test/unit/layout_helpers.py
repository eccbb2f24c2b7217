"""Helpers of the layout-pass tests: strip layouts from IR, run kernels, count conversions."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp, NoneAttr, TensorType
from xdsl.rewriter import Rewriter

from llc.dialects.tl import ConvertLayoutOp, MemDescType
from llc.passes.layout_assignment import walk_ops


def strip_layouts(module: ModuleOp) -> ModuleOp:
    """Remove every encoding and conversion (the layout-free form, as ``llc-strip-layouts``)."""
    for op in list(walk_ops(module)):
        if isinstance(op, ConvertLayoutOp):
            op.result.replace_all_uses_with(op.src)
            Rewriter.erase_op(op, safe_erase=False)
    values = []
    for op in walk_ops(module):
        values += list(op.results)
        for region in op.regions:
            for block in region.blocks:
                values += list(block.args)
    for v in values:
        t = v.type
        if isinstance(t, TensorType) and not isinstance(t.encoding, NoneAttr):
            Rewriter.replace_value_with_new_type(v, TensorType(t.element_type, t.get_shape()))
        elif isinstance(t, MemDescType) and not isinstance(t.encoding, NoneAttr):
            Rewriter.replace_value_with_new_type(v, MemDescType(t.element_type, t.get_shape()))
    return module
