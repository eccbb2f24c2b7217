"""llc.swizzle: shared-memory plans for conversions, checked against brute-force counting."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from layout_strategies import random_distributed

from llc.errors import LayoutError
from llc.layouts import BlockedLayout, DotOperandLayout, NvidiaMmaLayout
from llc.linear_layout import LinearLayout
from llc.swizzle import SwizzlePlan, count_wavefronts, lanes_per_phase, plan_swizzle

ROW = BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
COL = BlockedLayout([4, 1], [4, 8], [1, 4], [0, 1])
ROW8 = BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
MMA2 = NvidiaMmaLayout(2, 0, [2, 2], [16, 8])
MMA3 = NvidiaMmaLayout(3, 0, [4, 1], [16, 64, 16])


def _brute(plan: SwizzlePlan) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    store = count_wavefronts(
        plan.store_layout,
        plan.shared,
        plan.store_vector,
        plan.bitwidth,
        plan.scratch_elements,
        store=True,
    )
    load = count_wavefronts(
        plan.load_layout, plan.shared, plan.load_vector, plan.bitwidth, plan.scratch_elements
    )
    return store.wavefronts, store.ideal, load.wavefronts, load.ideal


def _check_plan(plan: SwizzlePlan) -> None:
    """Every property a plan promises, checked independently of how it was found."""
    # The shared layout is a bijection onto the tensor.
    assert plan.shared.is_invertible()
    assert plan.shared.out_dims == plan.src.out_dims
    # Reported counts are what brute-force counting over every address finds.
    store_wf, store_ideal, load_wf, load_ideal = _brute(plan)
    assert (store_wf == plan.store_wavefronts).all()
    assert (store_ideal == plan.store_ideal).all()
    assert (load_wf == plan.load_wavefronts).all()
    assert (load_ideal == plan.load_ideal).all()
    # Never better than the ideal.
    assert plan.store_wavefronts >= plan.store_ideal
    assert plan.load_wavefronts >= plan.load_ideal
    assert plan.store_vector * plan.bitwidth <= 128
    assert plan.load_vector * plan.bitwidth <= 128
    # The renumbered layouts hold the same elements per thread (duplicate registers dropped).
    for original, moved in ((plan.src, plan.store_layout), (plan.dst, plan.load_layout)):
        assert _thread_elements(original) == _thread_elements(moved)
    # Instructions cover every distinct register once, over all rounds.
    regs_src = 1 << plan.store_layout.get_in_dim_size_log2("register")
    assert plan.store_instructions * plan.store_vector == regs_src
    assert plan.scratch_bytes * plan.rounds == plan.shared.total_in_size * plan.element_bytes


def _thread_elements(layout: LinearLayout) -> list[frozenset[int]]:
    flat = layout.apply_all_packed()
    regs = layout.get_in_dim_size("register")
    return [frozenset(row.tolist()) for row in flat.reshape(-1, regs)]


@pytest.mark.parametrize("bitwidth", [8, 16, 32, 64])
@pytest.mark.parametrize(
    ("src", "dst", "shape"),
    [
        (ROW, COL, [64, 64]),  # transpose
        (COL, ROW, [64, 64]),
        (ROW8, BlockedLayout([8, 1], [8, 4], [1, 4], [0, 1]), [64, 64]),
        (ROW, MMA2, [64, 64]),
        (MMA2, ROW8, [64, 64]),
        (ROW, DotOperandLayout(0, MMA2, 2), [64, 64]),
        (ROW, DotOperandLayout(1, MMA2, 2), [64, 64]),
        (ROW8, DotOperandLayout(0, MMA2, 4), [64, 64]),
        (MMA3, ROW8, [128, 128]),
    ],
)
def test_conflict_free_where_both_layouts_allow(
    src: object, dst: object, shape: list[int], bitwidth: int
) -> None:
    plan = plan_swizzle(src.to_linear_layout(shape), dst.to_linear_layout(shape), bitwidth)  # type: ignore[attr-defined]
    _check_plan(plan)
    assert plan.store_conflicts == 0
    assert plan.load_conflicts == 0


def test_transpose_is_fully_vectorized() -> None:
    src = ROW.to_linear_layout([64, 64])
    dst = COL.to_linear_layout([64, 64])
    plan = plan_swizzle(src, dst, 32)
    assert (plan.store_vector, plan.load_vector) == (4, 4)
    assert (plan.store_wavefronts, plan.load_wavefronts) == (4, 4)  # 512 bytes per warp access
    assert plan.barriers == 1 and plan.rounds == 1
    assert plan.scratch_bytes == 64 * 64 * 4


def test_unswizzled_transpose_would_conflict() -> None:
    # The plain row-major buffer (offset = row * 64 + col) makes a column-major f32 load hit one
    # bank 8 times per phase; the planner's layout does not.
    src = BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0]).to_linear_layout([64, 64])
    dst = BlockedLayout([1, 1], [32, 1], [1, 4], [0, 1]).to_linear_layout([64, 64])
    row_major = LinearLayout.identity_1d(64, "offset", "dim1") * LinearLayout.identity_1d(
        64, "offset", "dim0"
    )
    naive = count_wavefronts(dst, row_major, 1, 32)
    assert naive.per_instruction == 32
    plan = plan_swizzle(src, dst, 32)
    _check_plan(plan)
    # Registers repeat in both layouts, so the plan even moves 128-bit vectors, conflict-free.
    assert plan.load_vector == plan.store_vector == 4
    assert plan.load_wavefronts == plan.load_ideal == 4
    assert plan.store_wavefronts == plan.store_ideal == 4


def test_rounds_when_scratch_is_limited() -> None:
    src = ROW.to_linear_layout([128, 128])
    dst = COL.to_linear_layout([128, 128])
    plan = plan_swizzle(src, dst, 32, scratch_limit=16 * 1024)
    _check_plan(plan)
    assert plan.scratch_bytes <= 16 * 1024
    assert plan.rounds == 4
    assert plan.barriers == 7


def test_broadcast_sources_and_destinations() -> None:
    # Source broadcast along lanes (slice-like), destination with duplicated registers.
    src = LinearLayout.from_bases(
        [("register", [[1], [2]]), ("lane", [[4], [8], [0], [16], [32]]), ("warp", [[0], [64]])],
        ["dim0"],
    )
    dst = LinearLayout.from_bases(
        [("register", [[64], [0]]), ("lane", [[1], [2], [4], [8], [16]]), ("warp", [[32], [0]])],
        ["dim0"],
    )
    plan = plan_swizzle(src, dst, 16)
    _check_plan(plan)
    assert plan.load_layout.get_in_dim_size("register") == 2  # the duplicate is loaded once


def test_lanes_per_phase_and_errors() -> None:
    assert lanes_per_phase(16) == 8
    src = ROW.to_linear_layout([64, 64])
    with pytest.raises(LayoutError, match="bit width"):
        plan_swizzle(src, src, 12)
    with pytest.raises(LayoutError, match="different tensors"):
        plan_swizzle(src, ROW.to_linear_layout([64, 32]), 16)
    shared = LinearLayout.identity_1d(64, "offset", "dim1") * LinearLayout.identity_1d(
        64, "offset", "dim0"
    )
    with pytest.raises(LayoutError, match="aligned vectors"):
        count_wavefronts(COL.to_linear_layout([64, 64]), shared, 4, 32)


@settings(max_examples=80, deadline=None)
@given(
    seeds=st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1)),
    dims=st.sampled_from([[4, 4], [5, 4], [6, 5], [8], [3, 3, 3], [7, 6]]),
    warps=st.integers(0, 3),
    broadcast=st.tuples(st.integers(0, 2), st.integers(0, 2)),
    unit_only=st.booleans(),
    bitwidth=st.sampled_from([8, 16, 32, 64]),
)
def test_random_plans_match_brute_force(
    seeds: tuple[int, int],
    dims: list[int],
    warps: int,
    broadcast: tuple[int, int],
    unit_only: bool,
    bitwidth: int,
) -> None:
    src = random_distributed(seeds[0], dims, 5, warps, broadcast[0], unit_only)
    dst = random_distributed(seeds[1], dims, 5, warps, broadcast[1], unit_only)
    _check_plan(plan_swizzle(src, dst, bitwidth, scratch_limit=2048))


@settings(max_examples=60, deadline=None)
@given(
    seeds=st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1)),
    dims=st.sampled_from([[6, 6], [7, 5], [12], [4, 4, 4]]),
    unit_only=st.booleans(),
    bitwidth=st.sampled_from([8, 16, 32, 64]),
)
def test_pairs_without_broadcast_are_conflict_free(
    seeds: tuple[int, int], dims: list[int], unit_only: bool, bitwidth: int
) -> None:
    # Without broadcast a segment that avoids what each side's phase touches exists (two
    # subspaces of equal dimension have a common complement; the optimal-swizzling argument),
    # so the planner must reach the ideal, narrowing a vector if a lane would misalign it.
    src = random_distributed(seeds[0], dims, 5, 2, 0, unit_only)
    dst = random_distributed(seeds[1], dims, 5, 2, 0, unit_only)
    plan = plan_swizzle(src, dst, bitwidth)
    _check_plan(plan)
    assert plan.store_conflicts == 0 and plan.load_conflicts == 0


@pytest.mark.parametrize(
    ("access_bytes", "lane_bytes", "store", "expected"),
    [
        # Measured with Nsight Compute on an H100 (bench/RESULTS.md, "Wavefront model").
        (16, [16, 32, 4096, 64, 128], False, 8),  # quarter-warp phases, 2 rows each
        (8, [8, 16, 32, 4096, 64], False, 4),  # half-warp phases
        (16, [16, 32, 4096, 64, 128], True, 8),
        (16, [0, 16, 32, 64, 128], False, 2),  # lane pairs read one address: merged
        (16, [0, 0, 0, 0, 0], False, 2),
        (16, [0, 0, 0, 0, 0], True, 4),  # stores do not merge
        (8, [0, 8, 16, 32, 64], False, 1),
        (8, [0, 8, 16, 32, 64], True, 2),
        (16, [16, 32, 0, 64, 128], False, 4),  # only lane-pair duplicates merge
        (16, [16, 32, 64, 0, 0], False, 4),
        (4, [256, 512, 1024, 2048, 4096], False, 32),  # a column of a row-major f32 buffer
        (1, [64, 128, 256, 512, 1024], False, 16),
    ],
)
def test_wavefronts_match_the_hardware(
    access_bytes: int, lane_bytes: list[int], store: bool, expected: int
) -> None:
    # One warp instruction: lane l accesses the XOR of lane_bytes[j] over its set bits j. A
    # 16-byte access is a vector of two 64-bit elements.
    bitwidth = min(access_bytes, 8) * 8
    vector = access_bytes * 8 // bitwidth
    element_bytes = bitwidth // 8
    lanes = LinearLayout.from_bases(
        [
            ("register", [[1 << i] for i in range(vector.bit_length() - 1)]),
            ("lane", [[b // element_bytes] for b in lane_bytes]),
            ("warp", []),
        ],
        ["dim0"],
        [1 << 14],
        require_surjective=False,
    )
    shared = LinearLayout.identity_1d(1 << 14, "offset", "dim0")
    count = count_wavefronts(lanes, shared, vector, bitwidth, store=store)
    assert count.per_instruction == expected
