"""llc.conversion: the minimal conversion map and the hardware level a conversion crosses."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from layout_strategies import random_distributed

from llc.conversion import HARDWARE_LEVELS, analyze_conversion
from llc.linear_layout import LinearLayout


def _ll(bases: list[tuple[str, list[list[int]]]], outs: list[str]) -> LinearLayout:
    return LinearLayout.from_bases(bases, outs)


def _flat(ll: LinearLayout, values: dict[str, np.ndarray]) -> np.ndarray:
    """Flatten per-dim index arrays of ``ll``'s in-dims to one hardware index."""
    flat = np.zeros_like(next(iter(values.values())))
    shift = 0
    for name in ll.get_in_dim_names():
        flat = flat + (values[name] << shift)
        shift += ll.get_in_dim_size_log2(name)
    return flat


def test_conversion_classes() -> None:
    src = _ll([("register", [[1]]), ("lane", [[2], [4]]), ("warp", [[8]])], ["dim0"])
    regs = _ll([("register", [[1]]), ("lane", [[2], [4]]), ("warp", [[8]])], ["dim0"])
    shuffle = _ll([("register", [[2]]), ("lane", [[1], [4]]), ("warp", [[8]])], ["dim0"])
    across = _ll([("register", [[8]]), ("lane", [[2], [4]]), ("warp", [[1]])], ["dim0"])
    assert analyze_conversion(src, regs).level is None
    assert analyze_conversion(src, shuffle).level == "lane"
    assert analyze_conversion(src, across).level == "warp"
    two_regs = _ll([("register", [[1], [2]]), ("lane", [[4]])], ["dim0"])
    swapped = _ll([("register", [[2], [1]]), ("lane", [[4]])], ["dim0"])
    report = analyze_conversion(two_regs, swapped)
    assert report.level == "register"
    assert report.removed == ("lane",)
    # dst(x) == src(conversion(x)): the map goes from destination to source hardware indices.
    outs = report.conversion.apply_all()
    flat = sum(outs[name] * (1 << shift) for name, shift in (("register", 0), ("lane", 2)))
    src_elem = two_regs.apply_all()["dim0"][flat]
    assert np.array_equal(src_elem, swapped.apply_all()["dim0"])


def test_cross_cta_level() -> None:
    src = _ll([("register", [[1]]), ("lane", []), ("warp", []), ("block", [[2]])], ["dim0"])
    dst = _ll([("register", [[2]]), ("lane", []), ("warp", []), ("block", [[1]])], ["dim0"])
    assert analyze_conversion(src, dst).level == "block"


def test_report_is_cached_and_immutable() -> None:
    src = _ll([("register", [[1]]), ("lane", [[2]])], ["dim0"])
    dst = _ll([("register", [[2]]), ("lane", [[1]])], ["dim0"])
    report = analyze_conversion(src, dst)
    assert analyze_conversion(src, dst) is report
    assert hash(report) == hash(analyze_conversion(src, dst))


@settings(max_examples=60, deadline=None)
@given(
    seeds=st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1)),
    dims=st.sampled_from([[3, 4], [5, 3], [4, 4], [8], [2, 3, 3]]),
    broadcast=st.tuples(st.integers(0, 2), st.integers(0, 2)),
    unit_only=st.booleans(),
)
def test_conversion_map_properties(
    seeds: tuple[int, int], dims: list[int], broadcast: tuple[int, int], unit_only: bool
) -> None:
    src = random_distributed(seeds[0], dims, 3, 2, broadcast[0], unit_only)
    dst = random_distributed(seeds[1], dims, 3, 2, broadcast[1], unit_only)
    report = analyze_conversion(src, dst)
    conversion = report.conversion
    # Every destination index reads a source index holding the same element.
    src_index = _flat(src, conversion.apply_all())
    src_elems = src.apply_all()
    dst_elems = dst.apply_all()
    for dim in src.get_out_dim_names():
        assert np.array_equal(src_elems[dim][src_index], dst_elems[dim])
    # On each removed level the map is the identity: data stays on that level.
    inputs = {
        name: (np.arange(conversion.total_in_size) >> shift) & (size - 1)
        for name, size, shift in _in_fields(conversion)
    }
    outs = conversion.apply_all()
    for dim in report.removed:
        assert np.array_equal(outs[dim], inputs[dim])
    # The level is the slowest hardware dim the minimal map still has.
    kept = [d for d in HARDWARE_LEVELS if report.minimal.has_in_dim(d)]
    assert report.level == (kept[0] if kept else None)
    # Converting to itself moves nothing, unless lanes or warps broadcast: then Triton's
    # minimal-norm preimage reads the copy of lane/warp 0 and the map is not the identity.
    if not broadcast[0]:
        assert analyze_conversion(src, src).level is None
    # With broadcast taken into account it never does, and without broadcast both agree.
    assert analyze_conversion(src, src).required is None
    if not broadcast[0]:
        assert report.required == report.level
    else:
        order = [*HARDWARE_LEVELS, None]
        assert order.index(report.required) >= order.index(report.level)


def _holders(ll: LinearLayout, group: int) -> list[set[int]]:
    """Elements held by each group of ``group`` consecutive hardware indices."""
    return [set(row.tolist()) for row in ll.apply_all_packed().reshape(-1, group)]


@settings(max_examples=60, deadline=None)
@given(
    seeds=st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1)),
    dims=st.sampled_from([[3, 3], [4, 3], [7]]),
    broadcast=st.tuples(st.integers(0, 3), st.integers(0, 3)),
    same_registers=st.booleans(),
)
def test_required_level_is_sound_and_tight(
    seeds: tuple[int, int], dims: list[int], broadcast: tuple[int, int], same_registers: bool
) -> None:
    src = random_distributed(seeds[0], dims, 3, 2, broadcast[0])
    dst = random_distributed(seeds[1], dims, 3, 2, broadcast[1])
    if same_registers:
        # Keep the source's threads: only lanes shuffle, or nothing moves between threads.
        dst = src
    level = analyze_conversion(src, dst).required
    regs = src.get_in_dim_size("register")
    lanes = src.get_in_dim_size("lane")
    for size, crosses in ((regs, ("block", "warp", "lane")), (regs * lanes, ("block", "warp"))):
        # Data stays inside each group (thread, then warp) exactly when the level is faster.
        if src.get_in_dim_size("register") != dst.get_in_dim_size("register"):
            continue
        stays = all(d <= s for d, s in zip(_holders(dst, size), _holders(src, size), strict=True))
        assert stays == (level not in crosses)


def _in_fields(ll: LinearLayout) -> list[tuple[str, int, int]]:
    fields = []
    shift = 0
    for name in ll.get_in_dim_names():
        size = ll.get_in_dim_size(name)
        fields.append((name, size, shift))
        shift += ll.get_in_dim_size_log2(name)
    return fields
