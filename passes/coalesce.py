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

import numpy as np
from xdsl.ir import Operation

from llc.dialects.layout_attrs import BlockedEncodingAttr
from llc.dialects.tl import PointerType, element_type_of, shape_of
from llc.passes.axis_info import AxisAnalysis

__all__ = ["coalesced_layout", "coalesced_params", "memory_transactions"]


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


def memory_transactions(
    enc: object, shape: tuple[int, ...], contiguous_dim: int, element_bytes: int
) -> float:
    """128-byte memory segments per element one warp accesses for a ``shape`` tensor in
    ``enc``, when ``contiguous_dim`` is contiguous in memory.

    A thread's consecutive registers along ``contiguous_dim`` form one vector access (up to 16
    bytes); per access instruction, the lanes' distinct segments are counted (lanes reading
    the same segment share it), and the total is divided by the distinct elements the warp
    holds. Lower is more coalesced; the passes let a load change layout only to one at least
    as coalesced.

    >>> from llc.layouts import BlockedLayout
    >>> from llc.dialects.layout_attrs import BlockedEncodingAttr
    >>> rows = BlockedEncodingAttr(BlockedLayout([1, 4], [2, 16], [4, 1], [1, 0]))
    >>> cols = BlockedEncodingAttr(BlockedLayout([4, 1], [16, 2], [1, 4], [0, 1]))
    >>> memory_transactions(rows, (64, 64), 1, 4), memory_transactions(cols, (64, 64), 1, 4)
    (0.03125, 0.5)
    """
    from llc.layouts.common import padded_shape

    padded = padded_shape(shape)
    ll = enc.to_linear_layout(padded)  # type: ignore[attr-defined]
    coords = ll.apply_all()
    sizes = ll.in_dims
    regs, lanes = sizes.get("register", 1), sizes.get("lane", 1)
    per_warp = regs * lanes
    # Vector width: leading register bases that step along the contiguous dim by 1, 2, 4, ...
    vec = 1
    for i, basis in enumerate(dict(ll.bases).get("register", [])):
        expected = [0] * len(shape)
        expected[contiguous_dim] = 1 << i
        if list(basis) != expected or (vec * 2) * element_bytes > 16:
            break
        vec *= 2
    segment = max(1, 128 // element_bytes)
    key = np.zeros(per_warp, dtype=np.int64)
    element = np.zeros(per_warp, dtype=np.int64)
    stride = 1
    for d in range(len(shape)):
        values = coords[f"dim{d}"][:per_warp]
        element += values * stride
        if d == contiguous_dim:
            values = values // segment
        key += values * stride
        stride *= padded[d]
    key = key.reshape(lanes, regs // vec, vec).transpose(1, 0, 2).reshape(regs // vec, -1)
    segments = sum(len(np.unique(row)) for row in key)
    return segments / len(np.unique(element))
