"""Lowering ``tl.join`` and ``tl.split`` (Triton's ``tt.join``/``tt.split``) to SIMT code.

Both are register renamings: the new minor dimension of size 2 lives in each thread's registers
(Triton's layout rule, :func:`llc.dialects.layout_rules.join_encoding`), so no element changes
threads. ``split`` renames the operand's registers twice, once for the elements whose minor
coordinate is 0 and once for 1; ``join`` picks, for each register of the result, the register of
``a`` (minor coordinate 0) or of ``b`` (1) that holds its element, in one ``vector.shuffle`` of
the two operands. A layout that would move elements between threads is a located error (the
layout passes never leave one: a conversion comes first).

>>> _halves(np.array([[[0, 0], [0, 1]], [[1, 0], [1, 1]]]))
([0], [1])
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation

from llc.errors import LayoutError
from llc.passes.simt_lowering import (
    FunctionLowering,
    register_renaming,
    tensor_layout,
    thread_coords,
)

__all__ = ["lower_join", "lower_split"]


def _padded(shape: tuple[int, ...] | list[int]) -> list[int]:
    return [1 << (int(s) - 1).bit_length() for s in shape]


def _halves(coords: np.ndarray) -> tuple[list[int], list[int]]:
    """The result registers holding minor coordinate 0 and those holding 1 (the same registers
    in every thread, else the join would move data)."""
    minor = coords[..., -1]
    if not (minor == minor[:1]).all():
        raise LayoutError("the joined dimension is not in each thread's registers")
    first = minor[0]
    return [r for r in range(len(first)) if first[r] == 0], [
        r for r in range(len(first)) if first[r] == 1
    ]


def lower_join(lowering: FunctionLowering, op: Operation) -> None:
    """``tl.join %a, %b``: each result register copies the register of ``a`` or ``b`` that holds
    its element."""
    a, b = (lowering.laid[v] for v in op.operands)
    rt = op.results[0].type
    assert isinstance(rt, TensorType)
    dst_ll = tensor_layout(rt)
    dst = thread_coords(dst_ll, lowering.threads)
    zeros, ones = _halves(dst)
    sizes = _padded(rt.get_shape()[:-1])
    from_a = register_renaming(a.coords, dst[:, zeros, :-1], sizes)
    from_b = register_renaming(b.coords, dst[:, ones, :-1], sizes)
    if from_a is None or from_b is None:
        raise LayoutError("this join moves data between threads")
    width = a.value.type.get_shape()[0]  # type: ignore[attr-defined]
    mask = [0] * dst.shape[1]
    for r, src in zip(zeros, from_a, strict=True):
        mask[r] = src
    for r, src in zip(ones, from_b, strict=True):
        mask[r] = width + src
    lowering.set_tensor(op.results[0], lowering.shuffle(a.value, b.value, mask), dst_ll)


def lower_split(lowering: FunctionLowering, op: Operation) -> None:
    """``tl.split %x``: each result is the operand's registers renamed, for minor coordinate 0
    and 1."""
    src = lowering.laid[op.operands[0]]
    st = op.operands[0].type
    assert isinstance(st, TensorType)
    sizes = _padded(st.get_shape())
    for half, result in enumerate(op.results):
        rt = result.type
        assert isinstance(rt, TensorType)
        dst_ll = tensor_layout(rt)
        dst = thread_coords(dst_ll, lowering.threads)
        need = np.concatenate([dst, np.full((*dst.shape[:-1], 1), half, dtype=np.int64)], -1)
        lowering.set_tensor(result, lowering.remap(src, need, sizes, dst_ll), dst_ll)
