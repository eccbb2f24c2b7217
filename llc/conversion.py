"""What converting a tensor between two distributed layouts needs (Triton's ``minimalCvtLayout``).

Both layouts map the hardware index ``(register, lane, warp, block)`` to the tensor index. The
*lowering map* ``SRC⁻¹∘DST = dst.invert_and_compose(src)`` sends each destination hardware
index to a source hardware index holding the same element. On every trailing in-dim on which
that map is the identity (slowest first: ``block``, ``warp``, ``lane``, ``register``) no data
crosses that hardware level; quotienting those dims away leaves the *minimal* map, whose
slowest remaining in-dim is the level the data must cross (seed 001, "Layout Conversions"):

* nothing left: the layouts are equal up to broadcast, the conversion is a no-op;
* ``register``: a register renaming inside each thread, no instructions;
* ``lane``: data moves within a warp (warp shuffles);
* ``warp``: data moves across warps (a shared-memory round trip);
* ``block``: across CTAs (distributed shared memory).

>>> src = LinearLayout.from_bases([("register", [[1]]), ("lane", [[2], [4]])], ["dim0"])
>>> dst = LinearLayout.from_bases([("register", [[2]]), ("lane", [[1], [4]])], ["dim0"])
>>> analyze_conversion(src, dst).level
'lane'

Results are cached per ``(src, dst)`` pair (layouts are immutable and hashable).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from llc.f2 import EchelonBasis
from llc.linear_layout import LinearLayout

__all__ = [
    "HARDWARE_LEVELS",
    "MOVEMENT",
    "ConversionReport",
    "analyze_conversion",
    "clear_conversion_cache",
    "in_dim_columns",
    "required_level",
]

HARDWARE_LEVELS: tuple[str, ...] = ("block", "warp", "lane", "register")
"""The hardware in-dims of a distributed layout, slowest first (the order Triton quotients in)."""

MOVEMENT: dict[str | None, str] = {
    "block": "across CTAs (distributed shared memory)",
    "warp": "across warps (shared memory)",
    "lane": "within a warp (warp shuffles)",
    "register": "register only (register permutation, no data movement)",
    None: "none (layouts are equal up to broadcast)",
}
"""What a conversion needs, keyed by the slowest in-dim left in the minimal conversion map."""


@dataclass(frozen=True)
class ConversionReport:
    """What converting a tensor from ``src`` to ``dst`` needs.

    ``forward`` is ``DST⁻¹∘SRC = src.invert_and_compose(dst)``: it maps every hardware index
    ``(register, lane, warp, block)`` of the source layout to the destination hardware index that
    receives its element (seed 001's ``L_B⁻¹∘L_A``). ``conversion`` is the other direction,
    ``SRC⁻¹∘DST = dst.invert_and_compose(src)``: each destination index to the source index
    holding its element, which is what Triton's lowering iterates over (a destination may read
    an element the source broadcasts). ``minimal`` is ``conversion`` without the
    trailing in-dims on which it is the identity (``removed``, slowest first, as Triton's
    ``minimalCvtLayout``); ``level`` is the slowest in-dim left (``None``: nothing moves).
    ``required`` is the slowest level data must cross when each destination may read *any*
    source copy of its element (:func:`required_level`); it differs from ``level`` only when the
    source broadcasts (Triton's minimal-norm preimage reads lane/warp 0's copy).

    >>> ll = LinearLayout.from_bases([("register", [[1]]), ("lane", [[2]])], ["dim0"])
    >>> report = analyze_conversion(ll, ll)
    >>> report.removed, report.level
    (('lane', 'register'), None)
    """

    forward: LinearLayout
    conversion: LinearLayout
    minimal: LinearLayout
    removed: tuple[str, ...]
    level: str | None
    required: str | None

    @property
    def movement(self) -> str:
        """A human description of :attr:`level`, e.g. ``'across warps (shared memory)'``.

        >>> ll = LinearLayout.from_bases([("register", [[1]]), ("lane", [[2]])], ["dim0"])
        >>> analyze_conversion(ll, ll).movement
        'none (layouts are equal up to broadcast)'
        """
        return MOVEMENT[self.level]


def analyze_conversion(src: LinearLayout, dst: LinearLayout) -> ConversionReport:
    """Triton's ``minimalCvtLayout`` and the hardware level the conversion must cross.

    Both layouts must have the same out-dims (the tensor) and hardware in-dims; a
    :class:`~llc.errors.LayoutError` says when they do not. Cached per pair.

    >>> src = LinearLayout.from_bases([("register", [[1]]), ("lane", [[2], [4]])], ["dim0"])
    >>> dst = LinearLayout.from_bases([("register", [[2]]), ("lane", [[1], [4]])], ["dim0"])
    >>> analyze_conversion(src, dst).movement
    'within a warp (warp shuffles)'
    >>> analyze_conversion(src, src).movement
    'none (layouts are equal up to broadcast)'
    """
    return _analyze(src, dst)


def clear_conversion_cache() -> None:
    """Forget the cached :func:`analyze_conversion` reports (for cold benchmarks).

    >>> clear_conversion_cache()
    """
    _analyze.cache_clear()


@functools.lru_cache(maxsize=4096)
def _analyze(src: LinearLayout, dst: LinearLayout) -> ConversionReport:
    forward = src.invert_and_compose(dst)
    conversion = dst.invert_and_compose(src)
    minimal = conversion
    removed: list[str] = []
    for dim in HARDWARE_LEVELS:
        if not minimal.has_in_dim(dim):
            continue
        quotient = minimal.quotient([dim])
        if quotient is None:
            break
        minimal = quotient
        removed.append(dim)
    level = next((d for d in HARDWARE_LEVELS if minimal.has_in_dim(d)), None)
    return ConversionReport(
        forward, conversion, minimal, tuple(removed), level, required_level(src, dst)
    )


def in_dim_columns(layout: LinearLayout, dim: str) -> list[int]:
    """The bit-packed tensor images (out-dim 0 in the low bits) of ``dim``'s bases.

    >>> ll = LinearLayout.from_bases([("register", [[1, 0]]), ("lane", [[0, 1], [2, 0]])],
    ...                              ["dim0", "dim1"])
    >>> in_dim_columns(ll, "lane"), in_dim_columns(ll, "warp")
    ([4, 2], [])
    """
    if not layout.has_in_dim(dim):
        return []
    start = 0
    for name in layout.get_in_dim_names():
        if name == dim:
            break
        start += layout.get_in_dim_size_log2(name)
    return list(layout.columns()[start : start + layout.get_in_dim_size_log2(dim)])


def required_level(src: LinearLayout, dst: LinearLayout) -> str | None:
    """The slowest hardware level a conversion must cross, with broadcast taken into account.

    Data need not cross the levels ``K`` (the slowest ones) when some map ``C`` from destination
    to source hardware indices has ``src ∘ C = dst`` and is the identity on ``K``: that holds
    iff every destination basis of a dim in ``K`` differs from the source's by a combination of
    the source's faster columns, and every other destination basis is such a combination. For
    layouts without broadcast this is :attr:`ConversionReport.level`.

    >>> src = LinearLayout.from_bases([("register", [[1]]), ("lane", [[2], [3]])], ["dim0"])
    >>> analyze_conversion(src, src).level, required_level(src, src)  # lane 2 repeats lane 0
    ('lane', None)
    >>> dst = LinearLayout.from_bases([("register", [[2]]), ("lane", [[1], [0]])], ["dim0"])
    >>> required_level(src, dst)
    'lane'
    """
    for index, level in enumerate(HARDWARE_LEVELS):
        kept = HARDWARE_LEVELS[: index + 1]
        if not _stays_on(src, dst, kept):
            return level
    return None


def _stays_on(src: LinearLayout, dst: LinearLayout, kept: tuple[str, ...]) -> bool:
    moving = [d for d in HARDWARE_LEVELS if d not in kept]
    faster = EchelonBasis([c for d in moving for c in in_dim_columns(src, d)])
    for dim in kept:
        src_cols = in_dim_columns(src, dim)
        dst_cols = in_dim_columns(dst, dim)
        if len(src_cols) != len(dst_cols):
            return False
        if not all(faster.contains(a ^ b) for a, b in zip(src_cols, dst_cols, strict=True)):
            return False
    return all(faster.contains(c) for d in moving for c in in_dim_columns(dst, d))
