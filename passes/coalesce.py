"""Coalescing: the blocked layout of a global load or store (Triton's Coalesce pass).

The pointer tensor's axis info (:mod:`llc.passes.axis_info`) gives, per dim, how many
consecutive addresses a thread may read as one vector:

* ``order``: dims sorted by contiguity, most contiguous first (ties keep the row-major order);
* per-thread elements along ``order[0]``: ``min(contiguity, alignment, 128 bits / element)``
  where ``alignment`` is the pointer's byte divisibility in elements, and never more than the
  tensor's elements divided by the threads of the CTA;
* lanes then warps spread along ``order`` (:func:`llc.passes.layout_assignment.default_blocked`).
"""

from __future__ import annotations

from xdsl.ir import Operation

from llc.dialects.layout_attrs import BlockedEncodingAttr
from llc.dialects.tl import PointerType, element_type_of, shape_of
from llc.passes.axis_info import AxisAnalysis

__all__ = ["coalesced_layout", "coalesced_params"]


def coalesced_params(
    shape: tuple[int, ...],
    contiguity: tuple[int, ...],
    divisibility_bytes: tuple[int, ...],
    element_bytes: int,
    num_threads: int,
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``(size_per_thread, order)`` of the coalesced layout.

    >>> coalesced_params((1024,), (1024,), (16,), 4, 128)
    ((4,), (0,))
    >>> coalesced_params((64, 32), (1, 32), (16, 16), 2, 128)
    ((1, 8), (1, 0))
    >>> coalesced_params((64, 64), (64, 1), (16, 4), 4, 128)
    ((4, 1), (0, 1))
    """
    rank = len(shape)
    row_major = list(reversed(range(rank)))
    order = tuple(sorted(row_major, key=lambda d: -contiguity[d]))
    fastest = order[0]
    alignment = max(1, min(divisibility_bytes[fastest] // element_bytes, contiguity[fastest]))
    per_thread = min(alignment, max(1, 16 // element_bytes))
    elements = 1
    for s in shape:
        elements *= s
    per_thread = max(1, min(per_thread, elements // num_threads, shape[fastest]))
    spt = [1] * rank
    spt[fastest] = per_thread
    return tuple(spt), order


def coalesced_layout(op: Operation, axis: AxisAnalysis, hw: object) -> BlockedEncodingAttr:
    """The coalesced blocked layout of a ``tl.load`` / ``tl.store`` (its pointer operand)."""
    from llc.passes.layout_assignment import default_blocked

    ptr = op.operands[0]
    shape = shape_of(ptr.type)
    info = axis.info(ptr)
    pointee = element_type_of(ptr.type)
    element = pointee.pointee if isinstance(pointee, PointerType) else pointee
    width = getattr(element, "bitwidth", None)
    if not isinstance(width, int):
        width = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}.get(str(element), 32)
    element_bytes = max(1, width // 8)
    num_warps, tpw = hw.num_warps, hw.threads_per_warp  # type: ignore[attr-defined]
    spt, order = coalesced_params(
        shape, info.contiguity, info.divisibility, element_bytes, num_warps * tpw
    )
    return default_blocked(shape, num_warps, tpw, spt, order)
