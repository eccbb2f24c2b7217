"""SIMT lowering of the elementwise ``tl`` ops that have no exact ``arith``/``math`` twin at the
tensor level but do per register: ``tl.clampf``, ``tl.precise_sqrt``, ``tl.precise_divf`` (and
``tl.mulhiui``, which stays itself on vectors and prints as ``mul.hi``).

Why they become ``arith``/``math`` only here: Triton's plain ``math.sqrt`` and ``arith.divf`` may
be approximate, so ``-t ttgir`` must keep the ``precise_`` spelling; llc's own PTX emitter
already rounds ``math.sqrt`` and ``arith.divf`` to nearest (``sqrt.rn``, ``div.rn``), so per
register they are the same instruction.

>>> sorted(VECTOR_TWINS)
['tl.precise_divf', 'tl.precise_sqrt']
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects import arith, math
from xdsl.ir import Operation

from llc.dialects import tl

__all__ = ["VECTOR_TWINS", "lower_clampf", "lower_elementwise_twin"]

VECTOR_TWINS: dict[str, type[Operation]] = {
    "tl.precise_sqrt": math.SqrtOp,
    "tl.precise_divf": arith.DivfOp,
}
"""tl op -> the arith/math op that computes it on register vectors (round to nearest)."""


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
