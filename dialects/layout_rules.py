"""Per-op layout transfer rules of the ``tl`` IR: the one table the layout passes consult.

Every op that touches tensors has one :class:`LayoutRule` in :data:`LAYOUT_RULES` (looked up by
:func:`rule_for`). A rule answers two questions about a single op, in terms of encodings
(layout attributes such as ``#tl.blocked<...>``):

* **forward**: the tensor operand ``index`` has encoding ``enc``; which encodings do the tensor
  results get if the op runs in that layout (Triton's ``inferDstEncoding``)? ``None``: the op
  cannot take ``enc`` on that operand without a conversion.
* **backward**: the tensor results have encodings ``encs``; which encodings must the tensor
  operands have (Triton's ``inferSrcEncoding``)? ``None`` = *cannot*. An entry of the answer
  may be :data:`ANY`: that operand accepts every layout (``tl.local_alloc``'s source).

Ops whose values are tied together by control flow (``scf.for``/``scf.if``/``scf.while`` and
their ``scf.yield``/``scf.condition``) have no rule: :func:`tied_values` lists which values must
share one layout (an iteration argument, its init operand, its yielded value and the loop
result), and the passes give each such group one layout.

The kinds (``RuleKind``) tell the passes how an op may be treated:

* ``transparent``: layouts flow through unchanged (elementwise ``arith``/``math`` ops,
  comparisons, ``select``, casts, ``addptr``, ``load`` and ``store`` operands);
* ``free``: the op can be recreated in any layout at no cost (``splat``, ``make_range``,
  constants), Triton's ``canFoldIntoConversion``;
* ``structural``: the result layout is a function of the operand layout (``reduce``,
  ``expand_dims``, ``broadcast``, ``trans``, ``reshape``, ``convert_layout``);
* ``anchor``: the layout is chosen by a heuristic, not by its neighbours (``dot``,
  ``dot_scaled``, ``warp_group_dot``);
* ``sink``: consumes tensors whose layout does not matter to it (``store``, ``local_alloc``,
  ``print``, ``assert``, ``descriptor_store``: operands accept :data:`ANY`);
* ``source``: produces a tensor in whatever layout is asked for at no extra cost, but reads
  memory and so is never copied (``local_load``, ``descriptor_load``);
* ``memory``: works on shared-memory buffers only (``memdesc_trans``, ``memdesc_index``): no
  register layout to choose.

A structural rule that answers ``None`` both ways is a barrier (``cat``, ``histogram``, a
``reshape`` or ``gather`` marked ``efficient_layout``): its comment says why.

>>> from llc.layouts import BlockedLayout
>>> from llc.dialects.layout_attrs import BlockedEncodingAttr
>>> b = BlockedEncodingAttr(BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0]))
>>> reduce_result_encoding(b, 1).layout.dim
1
>>> transposed = trans_encoding(b, (1, 0), (32, 32))
>>> transposed.layout.size_per_thread, transposed.layout.order
((4, 1), (0, 1))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Operation, SSAValue

from llc.dialects.layout_attrs import (
    BlockedEncodingAttr,
    DistributedEncodingAttr,
    DotOperandEncodingAttr,
    LinearEncodingAttr,
    SliceEncodingAttr,
    layout_attr_for,
)
from llc.dialects.tl import ELEMENTWISE_OP_NAMES, encoding_of, is_elementwise, shape_of
from llc.errors import LayoutError
from llc.layouts import BlockedLayout
from llc.layouts.common import reshape_layout
from llc.layouts.linear import DistributedLinearLayout
from llc.layouts.slice import SliceLayout
from llc.linear_layout import LinearLayout

__all__ = [
    "ANY",
    "LAYOUT_RULES",
    "LayoutRule",
    "RuleKind",
    "expand_dims_operand_encoding",
    "gather_backward",
    "is_tensor",
    "join_encoding",
    "reduce_result_encoding",
    "reshape_encoding",
    "rule_for",
    "split_encoding",
    "tensor_operands",
    "tensor_results",
    "tied_values",
    "trans_encoding",
]

Encoding = Attribute
RuleKind = Literal["transparent", "free", "structural", "anchor", "sink", "source", "memory"]


class _Any:
    """Marker: an operand that accepts every layout."""

    def __repr__(self) -> str:
        return "ANY"


ANY: Attribute = _Any()  # type: ignore[assignment]
"""Backward answer for an operand that takes any layout (no conversion is ever needed)."""


def is_tensor(value: SSAValue) -> bool:
    """Whether ``value`` is a tensor of rank 1 or more (the only values that carry a register
    layout: Triton gives a rank-0 ``tensor<f32>`` none, like a scalar)."""
    return isinstance(value.type, TensorType) and bool(value.type.get_shape())


def tensor_operands(op: Operation) -> list[int]:
    """Indices of ``op``'s tensor operands."""
    return [i for i, v in enumerate(op.operands) if is_tensor(v)]


def tensor_results(op: Operation) -> list[int]:
    """Indices of ``op``'s tensor results."""
    return [i for i, v in enumerate(op.results) if is_tensor(v)]


# --------------------------------------------------------------------------------------------
# Encoding transforms (the linear-layout algebra the structural rules need)


def reduce_result_encoding(enc: Encoding, axis: int) -> Encoding:
    """The layout of a reduction of a tensor in ``enc`` along ``axis``: its slice."""
    return SliceEncodingAttr(SliceLayout(axis, enc.layout))  # type: ignore[attr-defined]


def expand_dims_operand_encoding(result_enc: Encoding, axis: int) -> Encoding:
    """The operand layout ``expand_dims`` needs to produce ``result_enc``: its slice at ``axis``."""
    return SliceEncodingAttr(SliceLayout(axis, result_enc.layout))  # type: ignore[attr-defined]


def _linear_attr(ll: object) -> Encoding:
    return LinearEncodingAttr(DistributedLinearLayout.from_linear_layout(ll))  # type: ignore[arg-type]


def blocked_equivalent(ll: LinearLayout) -> BlockedEncodingAttr | None:
    """The ``#tl.blocked`` attribute that maps exactly like the distributed linear layout ``ll``
    at its shape, or ``None`` when no blocked layout does.

    A rule that derives a layout (``reshape``) states it as a blocked layout when it can, as
    Triton's inference does: two attributes with one map are still two layouts to the rewrite,
    which then leaves a free but real ``convert_layout`` between them (Triton's ``tl.flip``:
    a reshape to 2x2x...x64 and back next to a scan, which only takes blocked layouts).

    >>> b = BlockedLayout([1, 2], [4, 8], [2, 2], [1, 0])
    >>> blocked_equivalent(b.to_linear_layout([16, 64])).layout == b
    True
    >>> from llc.layouts.linear import DistributedLinearLayout
    >>> mixed = DistributedLinearLayout([], [[0, 1], [1, 0], [0, 2]], [], []).linear_layout()
    >>> blocked_equivalent(mixed) is None  # lanes along dim 1, then dim 0, then dim 1 again
    True
    """
    try:
        shape = [size for _, size in ll.out_dims]
        rank = len(shape)
        bases = {name: [list(v) for v in vs] for name, vs in ll.bases}
        if bases.get("block") or rank == 0:
            return None

        def dim_of(v: list[int]) -> int | None:
            moved = [d for d, c in enumerate(v) if c]
            return moved[0] if len(moved) == 1 else None

        spt, run, repeats = [1] * rank, [], []
        for v in bases.get("register", []):
            d = dim_of(v)
            if d is None:
                return None  # a duplicated register: blocked layouts have none
            if not repeats and v[d] == spt[d]:  # a thread's own block comes first
                spt[d] *= 2
                run.append(d)
            else:
                repeats.append(d)
        seen = [dim_of(v) for name in ("lane", "warp") for v in bases.get(name, [])]
        order: list[int] = []
        for d in [*run, *seen, *repeats, *range(rank - 1, -1, -1)]:
            if d is not None and d not in order:
                order.append(d)
        counts = {}
        for name in ("lane", "warp"):
            per_dim = [1] * rank
            last = order[0]
            for v in bases.get(name, []):
                d = dim_of(v)
                last = last if d is None else d  # a broadcast basis: the dim it overhangs
                per_dim[last] *= 2
            counts[name] = per_dim
        candidate = BlockedLayout(spt, counts["lane"], counts["warp"], order)
        if candidate.to_linear_layout(shape) != ll:
            return None
        return BlockedEncodingAttr(candidate)
    except (LayoutError, ValueError, IndexError):
        return None


def _derived_attr(ll: LinearLayout) -> Encoding:
    """A derived layout's attribute: blocked where one maps alike, else ``#tl.linear``."""
    return blocked_equivalent(ll) or _linear_attr(ll)


def trans_encoding(
    enc: Encoding, order: Sequence[int], src_shape: Sequence[int]
) -> Encoding | None:
    """The layout of ``trans(x, order)`` for ``x`` in ``enc`` (result dim ``i`` = ``order[i]``).

    Blocked layouts stay blocked (their per-dim parameters are permuted); every other family
    becomes the ``#tl.linear`` layout whose bases are the permuted bases of ``enc``.
    """
    layout = enc.layout  # type: ignore[attr-defined]
    if isinstance(layout, BlockedLayout) and layout.cta_layout is None:
        inverse = [0] * len(order)
        for i, o in enumerate(order):
            inverse[o] = i
        return BlockedEncodingAttr(
            BlockedLayout(
                [layout.size_per_thread[o] for o in order],
                [layout.threads_per_warp[o] for o in order],
                [layout.warps_per_cta[o] for o in order],
                [inverse[o] for o in layout.order],
            )
        )
    try:
        ll = enc.to_linear_layout(list(src_shape))  # type: ignore[attr-defined]
        bases = [(name, [[v[o] for o in order] for v in vs]) for name, vs in ll.bases]
        return LinearEncodingAttr(
            DistributedLinearLayout(
                *(dict(bases).get(n, []) for n in ("register", "lane", "warp", "block"))
            )
        )
    except LayoutError:
        return None


def reshape_encoding(
    enc: Encoding, src_shape: Sequence[int], dst_shape: Sequence[int]
) -> Encoding | None:
    """The layout of ``reshape(x)`` (row-major) when ``x`` is in ``enc``, as ``#tl.linear``.

    ``None`` when a shape is not a power of two (linear layouts need power-of-two dims).
    """
    if any(s & (s - 1) for s in (*src_shape, *dst_shape)):
        return None
    try:
        ll = enc.to_linear_layout(list(src_shape))  # type: ignore[attr-defined]
        return _derived_attr(reshape_layout(ll, list(dst_shape)))
    except LayoutError:
        return None


# --------------------------------------------------------------------------------------------
# The rules


ForwardFn = Callable[[Operation, int, Encoding], "list[Encoding] | None"]
BackwardFn = Callable[[Operation, "list[Encoding]"], "list[Encoding] | None"]


@dataclass(frozen=True)
class LayoutRule:
    """How layouts cross one kind of op (see the module docstring).

    ``forward(op, operand_index, enc)`` gives the encodings of ``op``'s tensor results (in the
    order of :func:`tensor_results`); ``backward(op, result_encs)`` gives those of its tensor
    operands (in the order of :func:`tensor_operands`), ``None`` meaning *cannot*.
    """

    kind: RuleKind
    forward: ForwardFn
    backward: BackwardFn
    rematerializable: bool = True
    """Whether recomputing the op in another layout is allowed (no loads of anchors, dots,
    side effects)."""


def _same_forward(op: Operation, index: int, enc: Encoding) -> list[Encoding]:
    return [enc for _ in tensor_results(op)]


def _same_backward(op: Operation, encs: list[Encoding]) -> list[Encoding] | None:
    if not encs or any(e != encs[0] for e in encs):
        return None
    return [encs[0] for _ in tensor_operands(op)]


def _free_forward(op: Operation, index: int, enc: Encoding) -> list[Encoding] | None:
    return None  # no tensor operands


def _free_backward(op: Operation, encs: list[Encoding]) -> list[Encoding]:
    return []


def _axis(op: Operation) -> int:
    return op.axis.value.data  # type: ignore[attr-defined]


def _reduce_forward(op: Operation, index: int, enc: Encoding) -> list[Encoding] | None:
    if not isinstance(enc, DistributedEncodingAttr):
        return None
    return [reduce_result_encoding(enc, _axis(op)) for _ in tensor_results(op)]


def _reduce_backward(op: Operation, encs: list[Encoding]) -> list[Encoding] | None:
    if not encs:
        return None
    first = encs[0]
    if not isinstance(first, SliceEncodingAttr) or first.layout.dim != _axis(op):
        return None
    if any(e != first for e in encs):
        return None
    parent = layout_attr_for(first.layout.parent)
    return [parent for _ in tensor_operands(op)]


def _expand_forward(op: Operation, index: int, enc: Encoding) -> list[Encoding] | None:
    if isinstance(enc, SliceEncodingAttr) and enc.layout.dim == _axis(op):
        return [layout_attr_for(enc.layout.parent)]
    return None


def _expand_backward(op: Operation, encs: list[Encoding]) -> list[Encoding] | None:
    if not isinstance(encs[0], DistributedEncodingAttr):
        return None
    return [expand_dims_operand_encoding(encs[0], _axis(op))]


def _any_shape(enc: Encoding) -> bool:
    # A #tl.linear attribute stands for its bases at every shape, as Triton's LinearEncodingAttr
    # does (registers past a size-1 dim are dropped, and added back when the dim grows), so a
    # broadcast keeps it like any family's: Triton's flip, a reshape's linear result expanded.
    return isinstance(enc, DistributedEncodingAttr)


def _broadcast_forward(op: Operation, index: int, enc: Encoding) -> list[Encoding] | None:
    return [enc] if _any_shape(enc) else None


def _broadcast_backward(op: Operation, encs: list[Encoding]) -> list[Encoding] | None:
    # A #tl.linear result layout read on the smaller operand shape drops (registers) or zeroes
    # (lanes, warps) the bases that fall outside it: exactly the broadcast operand's layout,
    # so the same attribute serves both (as a reshape's backward rule produces it).
    return [encs[0]] if isinstance(encs[0], DistributedEncodingAttr) else None


def _trans_forward(op: Operation, index: int, enc: Encoding) -> list[Encoding] | None:
    result = trans_encoding(enc, op.permutation, shape_of(op.operands[0].type))  # type: ignore[attr-defined]
    return None if result is None else [result]


def _trans_backward(op: Operation, encs: list[Encoding]) -> list[Encoding] | None:
    order = op.permutation  # type: ignore[attr-defined]
    inverse = [0] * len(order)
    for i, o in enumerate(order):
        inverse[o] = i
    result = trans_encoding(encs[0], inverse, shape_of(op.results[0].type))
    return None if result is None else [result]


def _reshape_forward(op: Operation, index: int, enc: Encoding) -> list[Encoding] | None:
    if _efficient(op):
        return None
    result = reshape_encoding(enc, shape_of(op.operands[0].type), shape_of(op.results[0].type))
    return None if result is None else [result]


def _reshape_backward(op: Operation, encs: list[Encoding]) -> list[Encoding] | None:
    # An efficient_layout reshape keeps layouts from being pushed forward through it, but a
    # consumer may still ask for its result in another layout: its operand follows (Triton
    # rematerializes through it too).
    result = reshape_encoding(encs[0], shape_of(op.results[0].type), shape_of(op.operands[0].type))
    return None if result is None else [result]


def _dot_forward(op: Operation, index: int, enc: Encoding) -> list[Encoding] | None:
    # Only the accumulator determines the result; a and b must already be its dot operands.
    if index == 2 and getattr(enc.layout, "kind", None) in (
        "nvidia_mma",
        "amd_mfma",
        "amd_wmma",
        "blocked",
    ):  # type: ignore[attr-defined]
        return [enc]
    return None


def _dot_backward(op: Operation, encs: list[Encoding]) -> list[Encoding] | None:
    from llc.dialects.layout_attrs import DotOperandEncodingAttr
    from llc.layouts.nvidia import DotOperandLayout

    result = encs[0]
    layout = getattr(result, "layout", None)
    kind = getattr(layout, "kind", None)
    if kind not in ("nvidia_mma", "amd_mfma", "amd_wmma", "blocked"):
        return None
    a, b = op.operands[0].type, op.operands[1].type
    if kind == "nvidia_mma" and layout.is_hopper:  # type: ignore[union-attr]
        return [*_hopper_operands(op, layout), result]
    current = [encoding_of(a), encoding_of(b)]
    kept = [
        enc
        if enc is not None
        and getattr(enc.layout, "parent", None) == layout  # type: ignore[attr-defined]
        and getattr(enc.layout, "op_idx", None) == idx  # type: ignore[attr-defined]
        else None
        for idx, enc in enumerate(current)
    ]
    # One kWidth for both operands, from the narrower element type (Triton's rule): a single
    # mma reads both in the same K order only if their kWidths agree (see
    # llc.passes.lower_to_simt.mma_k_order), and the narrow operand then loads kWidth elements
    # of K per 32-bit register. An operand that keeps its existing dot_op of this parent (its
    # kWidth was chosen with the element type) sets the kWidth of the other.
    bits = min(_origin_bits(v) for v in op.operands[:2])
    k_width = 0 if kind == "blocked" else max(1, 32 // bits) if kind == "nvidia_mma" else 4
    for enc in kept:
        if enc is not None:
            k_width = enc.layout.k_width  # type: ignore[attr-defined]
    operands: list[Encoding] = [
        kept[idx] or DotOperandEncodingAttr(DotOperandLayout(idx, layout, k_width))
        for idx in (0, 1)
    ]
    return [*operands, result]


def _hopper_operands(op: Operation, layout: object) -> list[Encoding]:
    """Operand layouts of a dot with an mma v3 (wgmma) accumulator: B, and A when it comes from
    a load, are staged in shared memory whatever their register layout (:data:`ANY`); an A
    computed in registers must be the v3 ``dot_op`` (llc.passes.hopper_dots)."""
    from llc.dialects.layout_attrs import DotOperandEncodingAttr
    from llc.layouts.nvidia import DotOperandLayout
    from llc.passes.hopper_dots import comes_from_load

    a = op.operands[0]
    current = encoding_of(a.type)
    if not is_tensor(a):
        return [ANY] if op.name == "tl.dot" else []
    if op.name == "tl.dot" and comes_from_load(a):
        a_enc: Encoding = ANY
    elif current is not None and getattr(current.layout, "parent", None) == layout:  # type: ignore[attr-defined]
        a_enc = current
    else:
        k_width = max(1, 32 // _element_bits(a.type.element_type))  # type: ignore[attr-defined]
        a_enc = DotOperandEncodingAttr(DotOperandLayout(0, layout, k_width))  # type: ignore[arg-type]
    return [a_enc, ANY] if op.name == "tl.dot" else [a_enc]


def _wgd_backward(op: Operation, encs: list[Encoding]) -> list[Encoding] | None:
    # tl.warp_group_dot: a (when a tensor) as for a v3 tl.dot, b is a buffer, acc = result.
    layout = getattr(encs[0], "layout", None)
    if getattr(layout, "kind", None) != "nvidia_mma" or not layout.is_hopper:  # type: ignore[union-attr]
        return None
    return [*_hopper_operands(op, layout), encs[0]]


def _wgd_forward(op: Operation, index: int, enc: Encoding) -> list[Encoding] | None:
    layout = getattr(enc, "layout", None)
    if index == 2 and getattr(layout, "kind", None) == "nvidia_mma" and layout.is_hopper:  # type: ignore[union-attr]
        return [enc]
    return None


def _wait_forward(op: Operation, index: int, enc: Encoding) -> list[Encoding] | None:
    # tl.warp_group_dot_wait returns its operands: result i is operand i.
    out = [enc if i == index else encoding_of(op.results[i].type) for i in tensor_results(op)]
    return None if any(e is None for e in out) else out


def _wait_backward(op: Operation, encs: list[Encoding]) -> list[Encoding]:
    return list(encs)


_CAST_CHAIN = frozenset(
    {
        "tl.convert_layout", "tl.fp_to_fp", "tl.bitcast", "tl.sitofp", "tl.uitofp",
        "tl.fptosi", "tl.fptoui", "tl.extsi", "tl.extui", "tl.trunci",
    }
)  # fmt: skip
"""Single-operand ops Triton's ``computeOrigBitWidth`` looks through (with ``arith`` ones)."""


_ORIGIN_SLICE = frozenset(
    {
        "tl.convert_layout", "tl.fp_to_fp", "tl.bitcast", "tl.reshape", "tl.trans",
        "tl.expand_dims", "tl.join", "tl.split", "tl.broadcast", "tl.fp4_to_fp", "tl.load",
        "tl.descriptor_load",
    }
)  # fmt: skip
"""Ops Triton 3.9's ``computeOrigBitWidth`` walks back through besides pure elementwise ones:
views, broadcasts, conversions, ``fp4_to_fp`` and the loads themselves."""


def _origin_bits(value: SSAValue) -> int:
    """Triton 3.9's ``computeOrigBitWidth``: the element width of a dot operand, or the
    narrowest element loaded in its backward slice through elementwise ops, views, broadcasts
    and conversions (4 when an ``fp4_to_fp`` is in it), so that an i8 widened to f16 gets i8's
    ``kWidth``, and so do int4 weights unpacked from bytes, joined and reshaped before the
    widening (the unpacking is not a chain of single-operand casts).

    >>> from xdsl.dialects.builtin import TensorType, f16
    >>> from xdsl.utils.test_value import create_ssa_value
    >>> _origin_bits(create_ssa_value(TensorType(f16, [16, 16])))
    16
    """
    narrowest = _element_bits(value.type.element_type)  # type: ignore[attr-defined]
    seen: set[int] = set()
    stack = [value]
    while stack:
        owner = stack.pop().owner
        if not isinstance(owner, Operation) or id(owner) in seen:
            continue  # block arguments end the slice (Triton omits them)
        if not (owner.name in _ORIGIN_SLICE or owner.name in _CAST_CHAIN or is_elementwise(owner)):
            continue
        seen.add(id(owner))
        if owner.name == "tl.fp4_to_fp":
            return 4
        if owner.name in ("tl.load", "tl.descriptor_load") and owner.results:
            loaded = owner.results[0].type
            if isinstance(loaded, TensorType):
                narrowest = min(narrowest, _element_bits(loaded.element_type))
        stack.extend(owner.operands)
    return narrowest


def _element_bits(element: Attribute) -> int:
    width = getattr(element, "bitwidth", None)
    if isinstance(width, int):
        return width
    name = str(element)
    return {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}.get(name, 32)


def _cvt_forward(op: Operation, index: int, enc: Encoding) -> list[Encoding]:
    # Propagating through a conversion means the conversion disappears: the result takes enc.
    return [enc]


def _cvt_backward(op: Operation, encs: list[Encoding]) -> list[Encoding]:
    return [encs[0]]


def _sink_backward(op: Operation, encs: list[Encoding]) -> list[Encoding]:
    return [ANY for _ in tensor_operands(op)]


def _gather_forward(op: Operation, index: int, enc: Encoding) -> list[Encoding] | None:
    # The result has the indices' shape and, as in Triton, their layout; the source is read
    # whole, whatever its layout.
    if index != 1 or _efficient(op) or not _gather_stays_in_warps(op, enc):
        return None
    return [enc]


def _gather_backward(op: Operation, encs: list[Encoding]) -> list[Encoding] | None:
    return gather_backward(op, encs)


def gather_backward(
    op: Operation, encs: list[Encoding], operands: Sequence[Encoding] | None = None
) -> list[Encoding] | None:
    """The gather's backward rule. ``operands``: the layouts of its source and indices the move
    starts from, where they are not yet in the IR (the layout solver prices a gather the
    anchors laid out, whose operands the rewrite converts to that layout); by default their
    types' (what the rewrite sees)."""
    if not encs or _efficient(op) or not _gather_stays_in_warps(op, encs[0], operands):
        return None
    return [ANY, encs[0]]


def _gather_strategy(src: Encoding | None, idx: Encoding | None, op: Operation) -> str | None:
    from llc.gather import plan_gather

    try:
        lls = [
            e.to_linear_layout(list(shape_of(v.type)))  # type: ignore[union-attr]
            for e, v in ((src, op.operands[0]), (idx, op.operands[1]))
        ]
        return plan_gather(lls[0], lls[1], op.axis.value.data, 32).strategy  # type: ignore[attr-defined]
    except (LayoutError, AttributeError):
        return None


def _gather_stays_in_warps(
    op: Operation, idx_enc: Encoding, operands: Sequence[Encoding] | None = None
) -> bool:
    """A gather whose layouts keep its axis inside each warp (shuffles, no shared memory: what
    llc's assignment and Triton's OptimizeGatherLayouts choose) only moves to indices' layouts
    that keep it so. ``operands``: see :func:`gather_backward`."""
    if operands is None:
        operands = [encoding_of(op.operands[0].type), encoding_of(op.operands[1].type)]  # type: ignore[list-item]
    src = operands[0]
    if _gather_strategy(src, operands[1], op) != "shuffle":
        return True
    return _gather_strategy(src, idx_enc, op) == "shuffle"


def _fp4_forward(op: Operation, index: int, enc: Encoding) -> list[Encoding] | None:
    # Unpacking doubles the register bits along the axis (llc.mxfp.unpacked_layout).
    from llc.mxfp import unpacked_layout

    shape = list(shape_of(op.operands[0].type))
    if any(s & (s - 1) for s in shape):
        return None
    try:
        ll = enc.to_linear_layout(shape)  # type: ignore[attr-defined]
        return [_linear_attr(unpacked_layout(ll, op.axis.value.data))]  # type: ignore[attr-defined]
    except (LayoutError, AttributeError):
        return None


def _fp4_backward(op: Operation, encs: list[Encoding]) -> list[Encoding] | None:
    # The packed layout exists when the result's lowest register bit is the nibble bit (+1 along
    # the axis) and no other basis has an odd axis coordinate: drop that bit, halve the axis.
    from llc.linear_layout import LinearLayout

    axis = op.axis.value.data  # type: ignore[attr-defined]
    shape = list(shape_of(op.results[0].type))
    if any(s & (s - 1) for s in shape):
        return None
    try:
        ll = encs[0].to_linear_layout(shape)  # type: ignore[attr-defined]
    except (LayoutError, AttributeError):
        return None
    unit = [1 if d == axis else 0 for d in range(len(shape))]
    regs = ll.bases[0][1] if ll.bases and ll.bases[0][0] == "register" else []
    if not regs or regs[0] != unit:
        return None
    bases = []
    for name, vectors in ll.bases:
        kept = vectors[1:] if name == "register" else vectors
        if any(v[axis] & 1 for v in kept):
            return None
        bases.append((name, [[c >> 1 if d == axis else c for d, c in enumerate(v)] for v in kept]))
    sizes = [s // 2 if d == axis else s for d, s in enumerate(shape)]
    try:
        packed = LinearLayout.from_bases(bases, ll.get_out_dim_names(), sizes)
    except LayoutError:
        return None
    # Triton's own rule spells a dot operand's packed layout as the dot operand of half the
    # kWidth (the same map): a conversion into it is then priced, and lowered, as a dot operand's.
    if isinstance(encs[0], DotOperandEncodingAttr) and encs[0].layout.k_width % 2 == 0:
        layout = encs[0].layout
        try:
            half = DotOperandEncodingAttr(replace(layout, k_width=layout.k_width // 2))
            if half.to_linear_layout(sizes) == packed:
                return [half]
        except LayoutError:
            pass
    return [_linear_attr(packed)]


def join_encoding(enc: Encoding, src_shape: Sequence[int]) -> Encoding | None:
    """The layout of ``join(a, b)`` for ``a``, ``b`` in ``enc``: a new minor dimension of size 2
    held in each thread's registers (its two values are consecutive registers), Triton's rule.

    Blocked layouts stay blocked (``sizePerThread`` gains a 2, the new dimension is fastest);
    every other family becomes the equivalent ``#tl.linear``.

    >>> from llc.layouts import BlockedLayout
    >>> b = BlockedEncodingAttr(BlockedLayout([1, 2], [4, 8], [4, 1], [1, 0]))
    >>> j = join_encoding(b, (16, 16))
    >>> j.layout.size_per_thread, j.layout.order
    ((1, 2, 2), (2, 1, 0))
    """
    layout = enc.layout  # type: ignore[attr-defined]
    rank = len(src_shape)
    if isinstance(layout, BlockedLayout) and layout.cta_layout is None:
        return BlockedEncodingAttr(
            BlockedLayout(
                [*layout.size_per_thread, 2],
                [*layout.threads_per_warp, 1],
                [*layout.warps_per_cta, 1],
                [rank, *layout.order],
            )
        )
    try:
        ll = enc.to_linear_layout(list(src_shape))  # type: ignore[attr-defined]
    except (LayoutError, AttributeError):
        return None
    bases = {name: [[*v, 0] for v in vs] for name, vs in ll.bases}
    bases["register"] = [[0] * rank + [1], *bases.get("register", [])]
    return LinearEncodingAttr(
        DistributedLinearLayout(*(bases.get(n, []) for n in ("register", "lane", "warp", "block")))
    )


def split_encoding(enc: Encoding, src_shape: Sequence[int]) -> Encoding | None:
    """The layout of each result of ``split(x)`` for ``x`` (minor dimension 2) in ``enc``: the
    minor dimension must live in one register bit of each thread, which is dropped. ``None``
    when the two halves sit in different threads (the split would move data).

    >>> from llc.layouts import BlockedLayout
    >>> b = BlockedEncodingAttr(BlockedLayout([1, 2, 2], [4, 8, 1], [4, 1, 1], [2, 1, 0]))
    >>> split_encoding(b, (16, 16, 2)).layout.size_per_thread
    (1, 2)
    >>> split_encoding(join_encoding(b, (16, 16, 2)), (16, 16, 2, 2)) == b
    True
    """
    layout = enc.layout  # type: ignore[attr-defined]
    rank = len(src_shape) - 1
    if (
        isinstance(layout, BlockedLayout)
        and layout.cta_layout is None
        and layout.size_per_thread[-1] == 2
        and layout.threads_per_warp[-1] == 1
        and layout.warps_per_cta[-1] == 1
    ):
        return BlockedEncodingAttr(
            BlockedLayout(
                layout.size_per_thread[:-1],
                layout.threads_per_warp[:-1],
                layout.warps_per_cta[:-1],
                [o for o in layout.order if o != rank],
            )
        )
    try:
        ll = enc.to_linear_layout(list(src_shape))  # type: ignore[attr-defined]
    except (LayoutError, AttributeError):
        return None
    unit = [0] * rank + [1]
    bases: dict[str, list[list[int]]] = {}
    found = False
    for name, vectors in ll.bases:
        kept = []
        for v in vectors:
            if name == "register" and list(v) == unit and not found:
                found = True
                continue
            if v[rank]:
                return None
            kept.append(list(v[:rank]))
        bases[name] = kept
    if not found:
        return None
    return LinearEncodingAttr(
        DistributedLinearLayout(*(bases.get(n, []) for n in ("register", "lane", "warp", "block")))
    )


def _join_forward(op: Operation, index: int, enc: Encoding) -> list[Encoding] | None:
    result = join_encoding(enc, shape_of(op.operands[0].type))
    return None if result is None else [result]


def _join_backward(op: Operation, encs: list[Encoding]) -> list[Encoding] | None:
    operand = split_encoding(encs[0], shape_of(op.results[0].type))
    return None if operand is None else [operand, operand]


def _split_forward(op: Operation, index: int, enc: Encoding) -> list[Encoding] | None:
    result = split_encoding(enc, shape_of(op.operands[0].type))
    return None if result is None else [result, result]


def _split_backward(op: Operation, encs: list[Encoding]) -> list[Encoding] | None:
    if not encs or any(e != encs[0] for e in encs):
        return None
    operand = join_encoding(encs[0], shape_of(op.results[0].type))
    return None if operand is None else [operand]


def _scan_forward(op: Operation, index: int, enc: Encoding) -> list[Encoding] | None:
    # Triton lowers scans of blocked layouts only, and so keeps any other layout away from them.
    if not isinstance(enc, BlockedEncodingAttr):
        return None
    return _same_forward(op, index, enc)


def _scan_backward(op: Operation, encs: list[Encoding]) -> list[Encoding] | None:
    if not encs or not isinstance(encs[0], BlockedEncodingAttr):
        return None
    return _same_backward(op, encs)


def _pinned_operands_backward(acc: int) -> BackwardFn:
    """An mma-like anchor: the accumulator (operand ``acc``) takes the result's layout, the
    other operands keep the layouts the front end gave them (their kWidth, scale layouts)."""

    def backward(op: Operation, encs: list[Encoding]) -> list[Encoding] | None:
        out: list[Encoding] = []
        for i in tensor_operands(op):
            current = encoding_of(op.operands[i].type)
            if i == acc:
                out.append(encs[0])
            elif current is None:
                return None
            else:
                out.append(current)
        return out

    return backward


def _acc_forward(acc: int) -> ForwardFn:
    def forward(op: Operation, index: int, enc: Encoding) -> list[Encoding] | None:
        return [enc] if index == acc else None

    return forward


def _no_forward(op: Operation, index: int, enc: Encoding) -> list[Encoding] | None:
    return None


def _no_backward(op: Operation, encs: list[Encoding]) -> list[Encoding] | None:
    return None


def _efficient(op: Operation) -> bool:
    """``efficient_layout``: the front end chose this op's layout on purpose; Triton does not
    push another operand layout forward through it (a backward request still crosses it)."""
    return "efficient_layout" in op.properties or "efficient_layout" in op.attributes


_TRANSPARENT = LayoutRule("transparent", _same_forward, _same_backward)
_FREE = LayoutRule("free", _free_forward, _free_backward)

LAYOUT_RULES: dict[str, LayoutRule] = {
    **{name: _TRANSPARENT for name in ELEMENTWISE_OP_NAMES},
    "tl.addptr": _TRANSPARENT,
    "tl.load": LayoutRule("transparent", _same_forward, _same_backward, rematerializable=False),
    "tl.store": LayoutRule("sink", _same_forward, _same_backward, rematerializable=False),
    "tl.splat": _FREE,
    "tl.make_range": _FREE,
    "tl.constant": _FREE,
    "arith.constant": _FREE,
    "tl.reduce": LayoutRule("structural", _reduce_forward, _reduce_backward),
    "tl.expand_dims": LayoutRule("structural", _expand_forward, _expand_backward),
    "tl.broadcast": LayoutRule("structural", _broadcast_forward, _broadcast_backward),
    "tl.trans": LayoutRule("structural", _trans_forward, _trans_backward),
    "tl.reshape": LayoutRule("structural", _reshape_forward, _reshape_backward),
    "tl.convert_layout": LayoutRule("structural", _cvt_forward, _cvt_backward),
    "tl.dot": LayoutRule("anchor", _dot_forward, _dot_backward, rematerializable=False),
    # Hopper (llc.passes.hopper_dots): the product anchors like a dot; the wait hands back its
    # operands, so layouts cross it unchanged (Triton propagates through it too).
    "tl.warp_group_dot": LayoutRule("anchor", _wgd_forward, _wgd_backward, rematerializable=False),
    "tl.warp_group_dot_wait": LayoutRule(
        "transparent", _wait_forward, _wait_backward, rematerializable=False
    ),
    "tl.local_alloc": LayoutRule("sink", _free_forward, _sink_backward, rematerializable=False),
    "tl.local_store": LayoutRule("sink", _free_forward, _sink_backward, rematerializable=False),
    "tl.local_load": LayoutRule("source", _free_forward, _free_backward, rematerializable=False),
    # Ops added for Triton's kernels (branch g): elementwise casts pass layouts through; atomics
    # behave like loads (their values must not be recomputed); print/assert consume like stores.
    "tl.bitcast": _TRANSPARENT,
    "tl.fp_to_fp": _TRANSPARENT,
    "tl.atomic_rmw": LayoutRule(
        "transparent", _same_forward, _same_backward, rematerializable=False
    ),
    "tl.atomic_cas": LayoutRule(
        "transparent", _same_forward, _same_backward, rematerializable=False
    ),
    # Printing and asserting read every element whatever its layout (Triton lets any layout
    # reach them): their operands accept ANY.
    "tl.print": LayoutRule("sink", _free_forward, _sink_backward, rematerializable=False),
    "tl.assert": LayoutRule("sink", _free_forward, _sink_backward, rematerializable=False),
    # A gather follows its indices both ways (Triton 3.9 recomputes it in another layout), unless
    # it is marked efficient_layout (its layout was chosen on purpose) or the move would take a
    # gather that stays inside warps (shuffles) out of them (shared memory): then None.
    "tl.gather": LayoutRule("structural", _gather_forward, _gather_backward),
    # MXFP (issue 14): fp4 unpacking is a layout change by LinearLayout algebra; a scaled dot
    # pins its operands like calls do (no rule: its layouts are chosen by hand for now).
    "tl.fp4_to_fp": LayoutRule("structural", _fp4_forward, _fp4_backward),
    # Issue 18: the rest of what Triton 3.9 writes.
    "tl.join": LayoutRule("structural", _join_forward, _join_backward),
    "tl.split": LayoutRule("structural", _split_forward, _split_backward),
    "tl.scan": LayoutRule("structural", _scan_forward, _scan_backward),
    # Inline asm, library calls and mapped functions are elementwise: one layout for operands and
    # results. Their
    # cost is unknown, so they are moved (a conversion hoisted above them) but never copied.
    "tl.elementwise_inline_asm": LayoutRule(
        "transparent", _same_forward, _same_backward, rematerializable=False
    ),
    "tl.extern_elementwise": LayoutRule(
        "transparent", _same_forward, _same_backward, rematerializable=False
    ),
    "tl.map_elementwise": LayoutRule(
        "transparent", _same_forward, _same_backward, rematerializable=False
    ),
    # Anchors (tl.warp_group_dot and its wait: with tl.dot above): the mma layout of the
    # accumulator is chosen with the instruction; the operand layouts (dot_op kWidth, scale
    # layouts) were chosen with it and stay.
    "tl.dot_scaled": LayoutRule(
        "anchor", _acc_forward(4), _pinned_operands_backward(4), rematerializable=False
    ),
    # Barriers: tt.cat may reorder its result (can_reorder) and a histogram's bins do not
    # follow its input, so no layout of one side determines the other's.
    "tl.cat": LayoutRule("structural", _no_forward, _no_backward, rematerializable=False),
    "tl.histogram": LayoutRule("structural", _no_forward, _no_backward, rematerializable=False),
    # TMA: the block goes through shared memory, so the register layout is free on both sides;
    # the load is not recomputed (it reads memory), the store takes any layout.
    "tl.descriptor_load": LayoutRule(
        "source", _free_forward, _free_backward, rematerializable=False
    ),
    "tl.descriptor_store": LayoutRule(
        "sink", _free_forward, _sink_backward, rematerializable=False
    ),
    # Views of shared memory: no register tensor, nothing to choose.
    "tl.memdesc_trans": LayoutRule("memory", _free_forward, _free_backward, False),
    "tl.memdesc_index": LayoutRule("memory", _free_forward, _free_backward, False),
    "tl.memdesc_subslice": LayoutRule("memory", _free_forward, _free_backward, False),
    # Triton's pipelined copies: pointers, mask and other in one layout, as tl.store takes
    # them (the copy writes shared memory, so its layout is free otherwise); commit and wait
    # hold tokens only.
    "tl.async_copy_global_to_local": LayoutRule(
        "sink", _same_forward, _same_backward, rematerializable=False
    ),
    "tl.async_commit_group": LayoutRule("memory", _free_forward, _free_backward, False),
    "tl.async_wait": LayoutRule("memory", _free_forward, _free_backward, False),
    "tl.local_dealloc": LayoutRule("memory", _free_forward, _free_backward, False),
    "tl.fence_async_shared": LayoutRule("memory", _free_forward, _free_backward, False),
    # Issue 18, item 4 (Triton's lit inputs): tl.int_to_ptr / tl.ptr_to_int are elementwise
    # casts (transparent, through ELEMENTWISE_OP_NAMES); the reinterpreted and reshaped views
    # of a shared buffer hold no register tensor.
    "tl.memdesc_reinterpret": LayoutRule("memory", _free_forward, _free_backward, False),
    "tl.memdesc_reshape": LayoutRule("memory", _free_forward, _free_backward, False),
    # TMA gathers and scatters go through shared memory like descriptor_load/store: the block's
    # register layout is free, and the row offsets are read whole whatever their layout.
    "tl.make_tensor_descriptor": LayoutRule("memory", _free_forward, _free_backward, False),
    "tl.descriptor_gather": LayoutRule(
        "source", _free_forward, _sink_backward, rematerializable=False
    ),
    "tl.descriptor_scatter": LayoutRule(
        "sink", _free_forward, _sink_backward, rematerializable=False
    ),
}
"""Op name -> its rule. Ops not listed (calls, returns, unknown ops) pin their tensors' layouts;
so does ``tl.warp_specialize`` with ``tl.warp_yield``/``tl.warp_return``: a partition runs on
warps of its own and is laid out apart (:mod:`llc.passes.warp_partitions`), and the default
region's yielded values are the op's results, which the code after it reads as they are."""


def rule_for(op: Operation) -> LayoutRule | None:
    """The transfer rule of ``op``, or ``None`` when layouts cannot cross it.

    >>> from xdsl.dialects.builtin import ModuleOp
    >>> rule_for(ModuleOp([])) is None
    True
    """
    return LAYOUT_RULES.get(op.name)


def tied_values(op: Operation) -> list[list[SSAValue]]:
    """Groups of tensor values that control flow forces into one layout.

    ``scf.for``: per iteration argument, {init operand, body block argument, yielded value, loop
    result}; ``scf.if``: per result, {result, the value each branch yields};
    ``scf.while``: per before-argument, {init, before block arg, after-region yield operand} and
    per condition argument {condition operand, after block arg, while result}.

    >>> from xdsl.dialects.builtin import ModuleOp
    >>> tied_values(ModuleOp([]))
    []
    """
    groups: list[list[SSAValue]] = []
    name = op.name
    if name == "scf.for":
        body = op.regions[0].block
        yielded = body.last_op.operands if body.last_op is not None else []
        inits = op.operands[3:]
        for i, result in enumerate(op.results):
            group = [inits[i], body.args[i + 1], result]
            if i < len(yielded):
                group.append(yielded[i])
            groups.append(group)
    elif name == "scf.if":
        for i, result in enumerate(op.results):
            group: list[SSAValue] = [result]
            for region in op.regions:
                if region.blocks and region.block.last_op is not None:
                    group.append(region.block.last_op.operands[i])
            groups.append(group)
    elif name == "scf.while":
        before, after = op.regions[0].block, op.regions[1].block
        after_yield = after.last_op.operands if after.last_op is not None else []
        for i, init in enumerate(op.operands):
            group = [init, before.args[i]]
            if i < len(after_yield):
                group.append(after_yield[i])
            groups.append(group)
        condition = before.last_op
        cond_args = condition.operands[1:] if condition is not None else []
        for i, result in enumerate(op.results):
            group = [result, after.args[i]]
            if i < len(cond_args):
                group.append(cond_args[i])
            groups.append(group)
    return [[v for v in g if is_tensor(v)] for g in groups if any(is_tensor(v) for v in g)]
