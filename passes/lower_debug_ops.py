"""Lowering ``tl.assert`` and ``tl.print`` to SIMT code: ``simt.assert`` / ``simt.print`` on
the registers, each carrying the element keys of its tensor's layout.

As in Triton, every thread checks (prints) the registers it holds: ``simt.assert`` stops the
kernel where a register is false (PTX: a branch around a call of ``__assertfail`` with the
message, as Triton does), ``simt.print`` prints each register (PTX: ``vprintf`` of
``pid (x, y, z) idx (i) <prefix><value>``). The SIMT interpreter needs to say *which* element
failed and to print the tensor in a stable order, so the ops carry the row-major index of the
element each (thread, register) holds, in the F2-linear form of the layout: the index of each
register in thread 0 and the index each thread bit adds by xor
(:func:`llc.dialects.simt.element_keys`); the interpreter then reports the failing element, its
thread and register, and prints each element once, in row-major order, as the tensor level does.

>>> from llc.layouts import BlockedLayout
>>> layout_keys(BlockedLayout([2], [4], [1], [0]).to_linear_layout([8]), [8], 4)
([0, 1], [2, 4])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from llc.dialects import simt, tl
from llc.errors import LayoutError
from llc.passes.simt_lowering import (
    FunctionLowering,
    coordinate_keys,
    tensor_layout,
    thread_coords,
)

__all__ = ["layout_keys", "lower_assert", "lower_print"]


def layout_keys(ll: Any, shape: Sequence[int], threads: int) -> tuple[list[int], list[int]]:
    """``(register_keys, thread_keys)`` of the layout ``ll`` of a tensor of ``shape`` over
    ``threads`` threads (see the module docstring); a layout whose keys are not xor-linear (a
    shape that is not a power of two) is a :class:`~llc.errors.LayoutError`."""
    coords = thread_coords(ll, threads)
    keys = coordinate_keys(coords, list(shape))
    regs = [int(k) for k in keys[0]]
    bits = [int(keys[1 << b, 0] ^ keys[0, 0]) for b in range(threads.bit_length() - 1)]
    tid = np.arange(threads)
    part = np.zeros(threads, dtype=np.int64)
    for b, key in enumerate(bits):
        part ^= np.where((tid >> b) & 1, key, 0)
    if not np.array_equal(part[:, None] ^ np.asarray(regs)[None, :], keys):
        raise LayoutError(f"the element indices of a {list(shape)} tensor are not xor-linear")
    return regs, bits


def _keys(lowering: FunctionLowering, value: SSAValue) -> tuple[list[int], list[int], list[int]]:
    typ = value.type
    if not isinstance(typ, TensorType):  # a scalar: every thread holds the one element
        return [], [0], []
    shape = list(typ.get_shape())
    return (shape, *layout_keys(tensor_layout(typ), shape, lowering.threads))


def _located(new: Operation, op: Operation) -> Operation:
    new.location = op.location  # the interpreter's and the PTX's errors point at the source
    return new


def lower_assert(lowering: FunctionLowering, op: tl.AssertOp) -> None:
    """``tl.assert`` as ``simt.assert`` of the condition's registers."""
    shape, regs, bits = _keys(lowering, op.condition)
    cond = lowering.get(op.condition)
    lowering.emit(_located(simt.AssertOp(cond, op.message.data, shape, regs, bits), op))


def lower_print(lowering: FunctionLowering, op: tl.PrintOp) -> None:
    """``tl.print``: one ``simt.print`` per argument (the tensor level prints one line each),
    or of the prefix alone."""
    attrs = {k: v for k, v in op.attributes.items() if k in ("hex", "isSigned")}
    if not op.args:
        new = simt.PrintOp(op.prefix.data, None, [], [], [])
        new.attributes |= attrs
        lowering.emit(_located(new, op))
    for arg in op.args:
        shape, regs, bits = _keys(lowering, arg)
        new = simt.PrintOp(op.prefix.data, lowering.get(arg), shape, regs, bits)
        new.attributes |= attrs
        lowering.emit(_located(new, op))
