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

from xdsl.ir import Attribute

from llc import cost as cost_model
from llc.errors import LayoutError
from llc.layouts.common import padded_shape

__all__ = ["conversion_cost", "remat_cost"]

UNKNOWN_CONVERSION_CYCLES_PER_ELEMENT = 8.0
"""Fallback for layouts the model cannot analyse (e.g. a shape a family rejects)."""


def conversion_cost(src: Attribute, dst: Attribute, shape: Sequence[int], dtype_bits: int) -> float:
    """Cycles per warp to convert a ``shape`` tensor of ``dtype_bits``-bit elements ``src`` ->
    ``dst`` (layout attributes)."""
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
            ).total
        )
    except (LayoutError, ValueError, AttributeError):
        return UNKNOWN_CONVERSION_CYCLES_PER_ELEMENT * math.prod(padded)


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
