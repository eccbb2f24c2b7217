"""The costs the layout passes compare, from llc's cost model (:mod:`llc.cost`).

Two questions, in :mod:`llc.cost`'s unit (**issue cycles per warp**):

* :func:`conversion_cost`: converting a tensor between two layout attributes (0 for a register
  renaming, warp shuffles within a warp, a shared-memory round trip counted in wavefronts
  otherwise);
* :func:`remat_cost`: recomputing one op in another layout, from its kind and its per-thread
  element count (``inf`` for ops that must never be duplicated: loads, dots, reductions, ...).

The passes only rank alternatives with these numbers, so the unit cancels out.

>>> from llc.layouts import BlockedLayout
>>> from llc.dialects.layout_attrs import BlockedEncodingAttr
>>> a = BlockedEncodingAttr(BlockedLayout([1], [32], [4], [0]))
>>> b = BlockedEncodingAttr(BlockedLayout([4], [32], [4], [0]))
>>> conversion_cost(a, a, (512,), 32)
0.0
>>> conversion_cost(a, b, (1024,), 32) > conversion_cost(a, b, (512,), 32) > 0
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Attribute, Operation

from llc import cost as cost_model
from llc.dialects.tl import TARGET_ATTR
from llc.errors import LayoutError
from llc.layouts.common import padded_shape
from llc.lowering import DEFAULT_COMPUTE_CAPABILITY, compute_capability_of

__all__ = ["capability_of", "conversion_cost", "remat_cost"]

UNKNOWN_CONVERSION_CYCLES_PER_ELEMENT = 8.0
"""Fallback for layouts the model cannot analyse (e.g. a shape a family rejects)."""


def conversion_cost(
    src: Attribute,
    dst: Attribute,
    shape: Sequence[int],
    dtype_bits: int,
    compute_capability: int = DEFAULT_COMPUTE_CAPABILITY,
) -> float:
    """Cycles per warp to convert a ``shape`` tensor of ``dtype_bits``-bit elements ``src`` ->
    ``dst`` (layout attributes) on a target of ``compute_capability`` (:func:`capability_of`
    the module: ``ldmatrix`` from 75, ``stmatrix`` from 90, neither off CUDA)."""
    if src == dst:
        return 0.0
    padded = padded_shape(shape)
    try:
        return float(
            cost_model.conversion_cost(
                src.layout,  # type: ignore[attr-defined]
                dst.layout,  # type: ignore[attr-defined]
                padded,
                max(1, dtype_bits),
                compute_capability,
            ).total
        )
    except (LayoutError, ValueError, AttributeError):
        return UNKNOWN_CONVERSION_CYCLES_PER_ELEMENT * math.prod(padded)


def capability_of(op: Operation) -> int:
    """The compute capability of the ``tl.target`` of the module holding ``op``
    (:func:`llc.lowering.compute_capability_of`: ``cuda:90`` when there is none).

    >>> from xdsl.dialects.builtin import ModuleOp, StringAttr
    >>> capability_of(ModuleOp([], {"tl.target": StringAttr("cuda:80")}))
    80
    """
    node: Operation | None = op
    while node is not None and not isinstance(node, ModuleOp):
        node = node.parent_op()
    target = node.attributes.get(TARGET_ATTR) if node is not None else None
    return compute_capability_of(target.data if isinstance(target, StringAttr) else None)


def remat_cost(
    op_name: str, shape: Sequence[int], dtype_bits: int, num_threads: int = 128
) -> float:
    """Cycles per warp to recompute an ``op_name`` op whose result is a ``shape`` tensor
    spread over ``num_threads`` threads.

    >>> remat_cost("math.exp", (128,), 32) > remat_cost("arith.addf", (128,), 32) > 0
    True
    >>> remat_cost("tl.make_range", (128,), 32) <= 1
    True
    """
    per_thread = max(1, math.prod(shape) // max(1, num_threads))
    try:
        return float(
            cost_model.rematerialization_cost(op_name, per_thread, max(1, dtype_bits)).total
        )
    except LayoutError:  # an op kind the model does not know: one ALU cycle per element
        return float(per_thread)
