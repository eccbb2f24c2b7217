"""llc.cost: the conversion ladder, byte scaling, broadcast, and rematerialization costs."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from layout_strategies import random_distributed

from llc.cost import (
    BARRIER_CYCLES,
    ConversionCost,
    conversion_cost,
    dtype_bitwidth,
    rematerialization_cost,
)
from llc.errors import LayoutError
from llc.layouts import BlockedLayout, CTALayout, DotOperandLayout, NvidiaMmaLayout, SliceLayout
from llc.linear_layout import LinearLayout

ROW = BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
COL = BlockedLayout([4, 1], [4, 8], [1, 4], [0, 1])
MMA2 = NvidiaMmaLayout(2, 0, [2, 2], [16, 8])


def _swap(layout: LinearLayout, first: tuple[str, int], second: tuple[str, int]) -> LinearLayout:
    """``layout`` with two hardware bases exchanged (a conversion that crosses their level)."""
    bases = {name: [list(b) for b in vectors] for name, vectors in layout.bases}
    (d1, i1), (d2, i2) = first, second
    bases[d1][i1], bases[d2][i2] = bases[d2][i2], bases[d1][i1]
    return LinearLayout.from_bases(
        [(name, bases[name]) for name in layout.get_in_dim_names()],
        layout.get_out_dim_names(),
        [size for _, size in layout.out_dims],
    )


def _ladder(src: LinearLayout) -> tuple[LinearLayout, LinearLayout, LinearLayout]:
    registers = _swap(src, ("register", 0), ("register", 1))
    shuffle = _swap(src, ("register", 0), ("lane", 2))
    shared = _swap(src, ("lane", 0), ("warp", 0))
    return registers, shuffle, shared


def test_identical_and_register_only_conversions_are_free() -> None:
    src = ROW.to_linear_layout([64, 64])
    none = conversion_cost(src, src, [64, 64], "f32")
    assert none == ConversionCost.zero("none") and none.total == 0
    registers, _, _ = _ladder(src)
    cost = conversion_cost(src, registers, [64, 64], "f32")
    assert (cost.strategy, cost.total, cost.instruction_counts) == ("registers", 0.0, {})


@pytest.mark.parametrize("dtype", ["i8", "f16", "f32", "f64"])
def test_ladder_orders_registers_shuffles_shared(dtype: str) -> None:
    src = ROW.to_linear_layout([64, 64])
    registers, shuffle, shared = _ladder(src)
    costs = [conversion_cost(src, dst, [64, 64], dtype) for dst in (registers, shuffle, shared)]
    assert [c.strategy for c in costs] == ["registers", "shuffle", "shared"]
    assert costs[0].total < costs[1].total < costs[2].total
    assert costs[2].wavefronts >= costs[2].ideal_wavefronts > 0
    # Swapping a lane and a warp leaves most registers common to both sides: the round trip
    # runs in rounds over them (one store/load pair per round, a barrier between each).
    tensor_bytes = 64 * 64 * dtype_bitwidth(dtype) // 8
    rounds = tensor_bytes // costs[2].shared_bytes
    assert rounds * costs[2].shared_bytes == tensor_bytes and rounds > 1
    assert costs[2].barriers == 2 * rounds - 1


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    dims=st.sampled_from([[6, 6], [7, 5], [12], [4, 4, 4]]),
    dtype=st.sampled_from(["f16", "f32", "f64"]),
    unit_only=st.booleans(),
)
def test_ladder_on_random_layouts(seed: int, dims: list[int], dtype: str, unit_only: bool) -> None:
    src = random_distributed(seed, dims, 5, 2, 0, unit_only)
    registers, shuffle, shared = _ladder(src)
    costs = [
        conversion_cost(src, d, [1 << b for b in dims], dtype) for d in (registers, shuffle, shared)
    ]
    assert [c.level for c in costs] == ["register", "lane", "warp"]
    assert costs[0].total == 0 < costs[1].total < costs[2].total


@pytest.mark.parametrize(
    ("src", "dst"), [(ROW, COL), (ROW, MMA2), (MMA2, DotOperandLayout(0, MMA2, 2))]
)
def test_more_bytes_cost_more(src: object, dst: object) -> None:
    # The instructions and wavefronts grow with the bytes moved. Barriers need not: they
    # follow the rounds the smallest scratch takes (blocked -> transposed f16 goes through
    # ldmatrix in 4 rounds, f32 in one), so the total is compared without them.
    def work(shape: list[int], dtype: str) -> float:
        cost = conversion_cost(src, dst, shape, dtype)  # type: ignore[arg-type]
        return cost.total - cost.barriers * BARRIER_CYCLES

    totals = [work([64, 64], t) for t in ("i8", "f16", "f32", "f64")]
    assert totals[0] < totals[1] < totals[2] < totals[3]
    assert work([64, 64], "f32") < work([128, 128], "f32")


def test_shuffle_costs_scale_with_bytes() -> None:
    src = ROW.to_linear_layout([64, 64])
    _, shuffle, _ = _ladder(src)
    totals = [conversion_cost(src, shuffle, [64, 64], t).total for t in ("f16", "f32", "f64")]
    assert totals[0] < totals[1] < totals[2]
    bigger = _ladder(ROW.to_linear_layout([128, 64]))[1]
    assert (
        conversion_cost(ROW.to_linear_layout([128, 64]), bigger, [128, 64], "f32").total
        > (totals[1])
    )


def test_broadcast_sources_read_any_copy() -> None:
    # A slice of a blocked layout broadcasts along the sliced lanes; converting it to itself,
    # or to a layout that only differs in which copy a lane holds, moves nothing.
    sliced = SliceLayout(1, ROW)
    ll = sliced.to_linear_layout([64])
    assert conversion_cost(sliced, sliced, [64], "f32").strategy == "none"
    free = ll.get_free_variable_masks()
    assert free["lane"]  # lanes along dim1 hold duplicates
    cost = conversion_cost(sliced, BlockedLayout([1], [32], [4], [0]), [64], "f32")
    assert math.isfinite(cost.total) and cost.strategy in ("shuffle", "shared")
    assert conversion_cost(BlockedLayout([1], [32], [4], [0]), sliced, [64], "f16").total > 0


def test_cached_and_accepts_families_or_linear_layouts() -> None:
    first = conversion_cost(ROW, COL, [64, 64], "f16")
    assert conversion_cost(ROW, COL, [64, 64], "f16") is first
    linear = conversion_cost(
        ROW.to_linear_layout([64, 64]), COL.to_linear_layout([64, 64]), (64, 64), 16
    )
    assert linear == first
    assert first.plan is not None and first.plan.shared.is_invertible()
    assert first.as_dict()["wavefronts"] == first.wavefronts
    # A non-power-of-two shape is padded, as the families lay it out.
    assert conversion_cost(ROW, COL, [48, 64], "f16") == first


def test_ctas_that_split_the_tensor_plan_per_cta() -> None:
    split = CTALayout([2, 1], [2, 1], [1, 0])
    a, b = (
        BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0], split),
        BlockedLayout([1, 4], [8, 4], [1, 4], [1, 0], split),
    )
    per_cta = conversion_cost(
        BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0]),
        BlockedLayout([1, 4], [8, 4], [1, 4], [1, 0]),
        [32, 64],
        "f16",
    )
    cost = conversion_cost(a, b, [64, 64], "f16")
    assert cost.strategy == "shared"
    assert cost.total == per_cta.total and cost.shared_bytes == per_cta.shared_bytes
    # Across CTAs: distributed shared memory, dearer than any in-CTA round trip.
    other = BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0], CTALayout([1, 2], [1, 2], [1, 0]))
    crossing = conversion_cost(a, other, [64, 64], "f16")
    assert crossing.strategy == "distributed_shared" and crossing.total > cost.total


def test_conversion_cost_errors() -> None:
    with pytest.raises(LayoutError, match="dtype"):
        conversion_cost(ROW, COL, [64, 64], "complex")
    with pytest.raises(LayoutError, match="pads to"):
        conversion_cost(ROW.to_linear_layout([64, 64]), COL, [32, 64], "f32")


def test_dtype_bitwidth() -> None:
    assert dtype_bitwidth("bf16") == 16 and dtype_bitwidth("i1") == 8
    assert dtype_bitwidth("f8E5M2") == 8 and dtype_bitwidth("!tl.ptr<f16>") == 64
    with pytest.raises(LayoutError):
        dtype_bitwidth(128)


def test_rematerialization_cost() -> None:
    load = rematerialization_cost("tl.load", 4, "f32")
    assert not load.rematerializable and load.total == math.inf
    for op in ("tl.store", "tl.dot", "tl.reduce", "scf.for"):
        assert rematerialization_cost(op, 4, "f32").total == math.inf
    add = rematerialization_cost("arith.addf", 8, "f32")
    assert add.rematerializable and add.total == 8
    assert rematerialization_cost("arith.addf", 16, "f32").total == 16
    assert rematerialization_cost("arith.addf", 8, "f16").total == 4  # packed half2
    assert rematerialization_cost("arith.addf", 8, "f64").total == 16
    assert rematerialization_cost("math.exp", 8, "f32").total > add.total
    assert rematerialization_cost("arith.divf", 8, "f32").total > add.total
    for free in ("tl.broadcast", "tl.expand_dims", "tl.reshape", "tl.trans", "tl.splat"):
        assert rematerialization_cost(free, 64, "f32").total == 0
    assert rematerialization_cost("tl.make_range", 4, "i32").total == 4
    with pytest.raises(LayoutError, match="unknown op kind"):
        rematerialization_cost("tl.bogus", 4, "f32")
    with pytest.raises(LayoutError, match="negative"):
        rematerialization_cost("arith.addf", -1, "f32")


@settings(max_examples=40, deadline=None)
@given(
    seeds=st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1)),
    dims=st.sampled_from([[6, 6], [12], [4, 4, 4]]),
    broadcast=st.tuples(st.integers(0, 2), st.integers(0, 2)),
)
def test_wider_elements_never_cost_less(
    seeds: tuple[int, int], dims: list[int], broadcast: tuple[int, int]
) -> None:
    # Plain ld/st.shared and shuffles (compute capability 70: no ldmatrix/stmatrix). With the
    # matrix instructions (sm_75+/sm_90+), which move only b16 (32-bit data as b16 pairs), a 16-bit
    # conversion can genuinely cost less than the same 8-bit one, which must use plain accesses.
    # Non-strict: a 64-byte and a 128-byte warp access both take one wavefront. Bases are unit
    # vectors, as in every layout family; on arbitrary #ttg.linear bases the greedy segment
    # choice can miss a conflict-free plan for one width (about 2% of random pairs), so the
    # order is not guaranteed there.
    src = random_distributed(seeds[0], dims, 5, 2, broadcast[0])
    dst = random_distributed(seeds[1], dims, 5, 2, broadcast[1])
    shape = [1 << b for b in dims]
    totals = [
        conversion_cost(src, dst, shape, bits, compute_capability=70).total
        for bits in (8, 16, 32, 64)
    ]
    assert totals == sorted(totals)
    assert all(math.isfinite(t) for t in totals)
