"""SIMT lowering of the elementwise ``tl`` ops that have no exact ``arith``/``math`` twin at the
tensor level but do per register: ``tl.clampf``, ``tl.precise_sqrt``, ``tl.precise_divf`` (and
``tl.mulhiui``, which stays itself on vectors and prints as ``mul.hi``), and
``tl.map_elementwise``, whose scalar body runs once on each thread's register vectors.

Why they become ``arith``/``math`` only here: Triton's plain ``math.sqrt`` and ``arith.divf`` may
be approximate, so ``-t ttgir`` must keep the ``precise_`` spelling; llc's own PTX emitter
already rounds ``math.sqrt`` and ``arith.divf`` to nearest (``sqrt.rn``, ``div.rn``), so per
register they are the same instruction.

>>> sorted(VECTOR_TWINS)
['tl.precise_divf', 'tl.precise_sqrt']
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects import arith, math, vector
from xdsl.dialects.builtin import VectorType
from xdsl.ir import Block, Operation, SSAValue

from llc.dialects import simt, tl
from llc.errors import LayoutError

__all__ = [
    "VECTOR_TWINS",
    "lower_clampf",
    "lower_elementwise_twin",
    "lower_map_elementwise",
    "vectorize_region",
]

VECTOR_TWINS: dict[str, type[Operation]] = {
    "tl.precise_sqrt": math.SqrtOp,
    "tl.precise_divf": arith.DivfOp,
}
"""tl op -> the arith/math op that computes it on register vectors (round to nearest)."""

_SCALAR_ONLY = frozenset({"arith.cmpf", "arith.cmpi", "arith.select"})
"""Ops a body may hold that are elementwise only on scalars in xDSL (their tl twins are in
``tl.ELEMENTWISE_OP_NAMES``)."""

_CASTS = {
    f"{prefix}.{kind}": kind
    for prefix in ("tl", "arith")
    for kind in ("extsi", "extui", "trunci", "sitofp", "uitofp", "fptosi", "fptoui")
} | {"arith.bitcast": "bitcast", "arith.extf": "extf", "arith.truncf": "truncf"}
"""Casts in a body -> ``simt.cast`` kind."""


def lower_elementwise_twin(lowering: Any, op: Operation) -> None:
    """Emit ``op``'s arith/math twin on the lowered operands (``VECTOR_TWINS``)."""
    operands = [lowering.get(v) for v in op.operands]
    twin = VECTOR_TWINS[op.name].create(
        operands=operands, result_types=[lowering.vtype(op.results[0].type)]
    )
    lowering.set_result(op, lowering.emit(twin).results[0])


def lower_clampf(lowering: Any, op: tl.ClampFOp) -> None:
    """``max`` then ``min``: IEEE ``maximum``/``minimum`` (NaN in, NaN out) for
    ``propagateNan = all``, ``maxnum``/``minnum`` (a NaN ``x`` becomes ``lo``) for ``none``."""
    x, lo, hi = (lowering.get(v) for v in op.operands)
    nan = op.propagate_nan == "all"
    upper = (arith.MaximumfOp if nan else arith.MaxnumfOp)(x, lo)
    lowering.emit(upper)
    lower = (arith.MinimumfOp if nan else arith.MinnumfOp)(upper.result, hi)
    lowering.set_result(op, lowering.emit(lower).result)


_REGION_RETURNS = frozenset({"tl.reduce.return", "tl.scan.return", "tl.map_elementwise.return"})


def vectorize_region(
    lowering: Any,
    block: Block,
    args: list[SSAValue],
    what: str,
    elementwise_only: bool = False,
) -> list[SSAValue]:
    """Run ``block``, written for scalars, once on register vectors (a reduce's or scan's
    combine region, a ``tl.map_elementwise`` body): its arguments are ``args``, scalars defined
    above it are broadcast, constants become constant vectors, comparisons, selects and casts
    become their ``simt`` forms (``tl.cmpf``, as Triton's regions import, included). Returns the
    values its terminator returns. ``what`` names the region in errors; ``elementwise_only``
    refuses ops outside ``tl.ELEMENTWISE_OP_NAMES``."""
    width = args[0].type.get_shape()[0]  # type: ignore[attr-defined]
    local: dict[SSAValue, SSAValue] = dict(zip(block.args, args, strict=True))

    def value(v: SSAValue) -> SSAValue:
        if v not in local:  # a scalar defined above the region: the same in every register
            local[v] = lowering.emit(
                vector.BroadcastOp(lowering.get(v), VectorType(v.type, [width]))
            ).results[0]
        return local[v]

    for inner in block.ops:
        if inner.name in _REGION_RETURNS:
            return [value(v) for v in inner.operands]
        if isinstance(inner, arith.ConstantOp):
            vt = VectorType(inner.result.type, [width])
            local[inner.result] = lowering.const_vec(vt, [inner.value.value.data] * width)  # type: ignore[attr-defined]
            continue
        if inner.regions or (
            elementwise_only and inner.name not in tl.ELEMENTWISE_OP_NAMES | _SCALAR_ONLY
        ):
            raise LayoutError(f"'{inner.name}' in a {what} has no SIMT lowering")
        operands = [value(v) for v in inner.operands]
        result_type = VectorType(inner.results[0].type, [width])
        if isinstance(inner, tl.CmpfOp | tl.CmpiOp):
            new = lowering.emit(simt.CompareOp(inner.predicate.data, operands[0], operands[1]))
        elif isinstance(inner, arith.CmpfOp | arith.CmpiOp):
            table = tl.CMPF_PREDICATES if inner.name == "arith.cmpf" else tl.CMPI_PREDICATES
            pred = table[inner.predicate.value.data]
            new = lowering.emit(simt.CompareOp(pred, operands[0], operands[1]))
        elif isinstance(inner, tl.SelectOp | arith.SelectOp):
            new = lowering.emit(simt.SelectOp(*operands))
        elif inner.name in _CASTS:  # casts on vectors are simt.cast (as outside the region)
            new = lowering.emit(simt.CastOp(_CASTS[inner.name], operands[0], result_type))
        elif inner.name in VECTOR_TWINS:
            new = lowering.emit(
                VECTOR_TWINS[inner.name].create(operands=operands, result_types=[result_type])
            )
        else:
            new = lowering.emit(
                type(inner).create(
                    operands=operands,
                    result_types=[VectorType(r.type, [width]) for r in inner.results],
                    properties=dict(inner.properties),
                    attributes=dict(inner.attributes),
                )
            )
        local.update(zip(inner.results, new.results, strict=True))
    raise LayoutError(f"{what} without its return")


def lower_map_elementwise(lowering: Any, op: tl.MapElementwiseOp) -> None:
    """The body, written for scalars, once on the register vectors (:func:`vectorize_region`).
    Only straight-line elementwise bodies with ``pack = 1`` lower (a body with control flow
    would need the registers one at a time)."""
    if op.pack_size != 1:
        raise LayoutError(f"'tl.map_elementwise' with pack = {op.pack_size} has no SIMT lowering")
    operands = [lowering.get(v) for v in op.srcs]
    values = vectorize_region(
        lowering, op.body.block, operands, "tl.map_elementwise body", elementwise_only=True
    )
    for old, new in zip(op.results, values, strict=True):
        lowering.set_tensor(old, new)
