"""The costs the layout passes compare: converting a tensor, and recomputing an op.

The passes depend only on the two functions here. They use the team's cost model
(:mod:`llc.cost`, ``conversion_cost(src, dst, shape, dtype)``) when it is installed and
otherwise this module's own estimate, in the same unit (**cycles-per-byte-moved weighted
bytes**: bytes moved per CTA times a per-level factor):

* 0 when the layouts are equal up to broadcast (nothing moves);
* 1 x bytes when only registers move (a renaming, charged a little so that it is not free);
* 4 x bytes when the data stays within a warp (warp shuffles);
* 32 x bytes for a shared-memory round trip (store, barrier, load), Triton's
  ``isRematBeneficial`` figure.

Recomputing an op costs its per-CTA bytes times 8 for expensive math (exp, div, ...) and times
1 otherwise; free ops (constants, splats, ranges) cost 0.

>>> from llc.layouts import BlockedLayout
>>> from llc.dialects.layout_attrs import BlockedEncodingAttr
>>> a = BlockedEncodingAttr(BlockedLayout([1], [32], [4], [0]))
>>> b = BlockedEncodingAttr(BlockedLayout([4], [32], [4], [0]))
>>> conversion_cost(a, a, (512,), 32)
0.0
>>> conversion_cost(a, b, (512,), 32) > conversion_cost(a, b, (128,), 32) > 0
True
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from xdsl.ir import Attribute

from llc.errors import LayoutError
from llc.layouts.common import padded_shape

__all__ = ["EXPENSIVE_OPS", "conversion_cost", "conversion_level", "remat_cost"]

LEVEL_FACTOR = {None: 0.0, "register": 1.0, "lane": 4.0, "warp": 32.0, "block": 64.0}
"""Cost per byte of a conversion whose slowest moving hardware level is the key."""

EXPENSIVE_OPS = frozenset(
    {
        "arith.divf", "arith.divsi", "arith.divui", "arith.remsi", "arith.remui",
        "math.exp", "math.exp2", "math.log", "math.log2", "math.sqrt", "math.rsqrt",
        "math.sin", "math.cos", "math.tanh", "math.erf", "math.powf",
    }
)  # fmt: skip
"""Ops whose recomputation costs 8x a cheap op (Triton's expensive-math list)."""


@functools.lru_cache(maxsize=65536)
def conversion_level(src: Attribute, dst: Attribute, shape: tuple[int, ...]) -> str | None:
    """The slowest hardware level a conversion moves data across (``None``: nothing moves).

    Triton's ``minimalCvtLayout``: ``dst⁻¹∘src`` without the trailing identity in-dims.
    """
    from llc.conversion import analyze_conversion

    if src == dst:
        return None
    padded = padded_shape(shape)
    try:
        src_ll = src.to_linear_layout(padded)  # type: ignore[attr-defined]
        dst_ll = dst.to_linear_layout(padded)  # type: ignore[attr-defined]
        return analyze_conversion(src_ll, dst_ll).level
    except (LayoutError, ValueError, AttributeError):
        return "warp"


def _bytes(shape: Sequence[int], dtype_bits: int) -> int:
    n = 1
    for s in shape:
        n *= s
    return max(1, n * max(dtype_bits, 8) // 8)


def conversion_cost(src: Attribute, dst: Attribute, shape: Sequence[int], dtype_bits: int) -> float:
    """The cost of converting a ``shape`` tensor of ``dtype_bits``-bit elements ``src`` -> ``dst``."""
    try:
        from llc import cost as team_cost  # branch c: the shared model, when it has landed

        return float(team_cost.conversion_cost(src, dst, tuple(shape), dtype_bits))
    except (ImportError, AttributeError, TypeError):
        pass
    level = conversion_level(src, dst, tuple(shape))
    return LEVEL_FACTOR[level] * _bytes(shape, dtype_bits)


def remat_cost(op_name: str, shape: Sequence[int], dtype_bits: int) -> float:
    """The cost of recomputing one op producing a ``shape`` tensor in another layout.

    >>> remat_cost("math.exp", (128,), 32) == 8 * remat_cost("arith.addf", (128,), 32)
    True
    """
    if op_name in ("tl.constant", "arith.constant", "tl.splat", "tl.make_range"):
        return 0.0
    factor = 8.0 if op_name in EXPENSIVE_OPS else 1.0
    return factor * _bytes(shape, dtype_bits)
