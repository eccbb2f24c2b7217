"""tl.gather plans (llc.gather) executed by the per-lane numpy model against numpy.

200 random (source layout, index layout, axis) triples: random bases with broadcast, warp-local
pairs, 1 to 3 dims, 32 or 64 lanes, 1 to 8 warps (test/unit/conversion_pairs.py). Each plan runs
thread by thread (``shfl.sync.idx`` modelled per lane, or shared memory) on random data and
random indices and must equal ``numpy.take_along_axis``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from conversion_pairs import _random_pair

from llc.errors import LayoutError
from llc.gather import execute_gather, plan_gather
from llc.layouts import BlockedLayout

RANDOM_GATHERS = 200


def _axis_for(src, rng: np.random.Generator) -> int:
    outs = src.get_out_dim_names()
    free = [
        i
        for i, o in enumerate(outs)
        if all(src.basis("warp", b)[i] == 0 for b in range(src.get_in_dim_size_log2("warp")))
        and src.get_out_dim_size(o) > 1
    ]
    if free and rng.random() < 0.75:
        return int(rng.choice(free))
    return int(rng.integers(0, len(outs)))


def test_random_gathers_match_numpy() -> None:
    strategies = {"shuffle": 0, "shared": 0}
    for seed in range(RANDOM_GATHERS):
        rng = np.random.default_rng(seed)
        src, idx = _random_pair(rng, warp_local=bool(seed % 2))
        axis = _axis_for(src, rng)
        dtype = ["i8", "f16", "f32", "f64"][seed % 4]
        plan = plan_gather(src, idx, axis, dtype)
        strategies[plan.strategy] += 1
        shape = tuple(src.get_out_dim_size(o) for o in src.get_out_dim_names())
        values = rng.integers(-1000, 1000, size=shape)
        indices = rng.integers(0, shape[axis], size=shape)
        run = execute_gather(plan, src, idx, values, indices)
        expected = np.take_along_axis(values, indices, axis)
        assert (run.result == expected).all(), (seed, plan.strategy)
        if plan.strategy == "shuffle":
            assert run.shuffles == plan.shuffles and run.load_wavefronts == 0
        else:
            assert run.load_wavefronts >= plan.load_instructions * plan.num_warps
    assert strategies["shuffle"] >= 60 and strategies["shared"] >= 60, strategies


def test_warp_local_gather_uses_no_shared_memory() -> None:
    src = BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0]).to_linear_layout((64, 32))
    plan = plan_gather(src, src, 1, "f16")
    assert plan.strategy == "shuffle" and plan.shuffles > 0
    assert "no shared memory" in plan.report()
    rng = np.random.default_rng(1)
    x = rng.standard_normal((64, 32)).astype(np.float16)
    i = rng.integers(0, 32, size=(64, 32))
    run = execute_gather(plan, src, src, x, i)
    assert (run.result == np.take_along_axis(x, i, 1)).all()
    assert run.load_wavefronts == 0 and run.store_wavefronts == 0


def test_dropping_a_shuffle_round_is_caught() -> None:
    """The model is not a tautology: a plan missing one source register fails."""
    src = BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0]).to_linear_layout((64, 32))
    plan = plan_gather(src, src, 1, "f32")
    broken = dataclasses.replace(plan, candidates=((0,), *plan.candidates[1:]))
    x = np.arange(64 * 32).reshape(64, 32)
    i = np.full((64, 32), 31)
    with pytest.raises(LayoutError, match="unwritten"):
        execute_gather(broken, src, src, x, i)


def test_gather_across_warps_goes_through_shared_memory() -> None:
    src = BlockedLayout([1, 4], [8, 4], [1, 4], [1, 0]).to_linear_layout((32, 64))
    plan = plan_gather(src, src, 1, "f32")
    assert plan.strategy == "shared" and plan.shuffles == 0
    x = np.arange(32 * 64).reshape(32, 64)
    i = (np.arange(32 * 64).reshape(32, 64) * 5) % 64
    run = execute_gather(plan, src, src, x, i)
    assert (run.result == np.take_along_axis(x, i, 1)).all()
    assert run.store_wavefronts == plan.store_wavefronts > 0


def test_bad_arguments_name_the_parameter() -> None:
    src = BlockedLayout([1, 4], [8, 4], [1, 4], [1, 0]).to_linear_layout((32, 64))
    other = BlockedLayout([1, 4], [8, 4], [1, 4], [1, 0]).to_linear_layout((16, 64))
    with pytest.raises(LayoutError, match="axis 2 is out of range"):
        plan_gather(src, src, 2)
    with pytest.raises(LayoutError, match="differ off the axis"):
        plan_gather(src, other, 1)
    plan = plan_gather(src, src, 1)
    with pytest.raises(LayoutError, match="out of range"):
        execute_gather(plan, src, src, np.zeros((32, 64)), np.full((32, 64), 64))


# ---------------------------------------------------------------- lowered, in the SIMT interpreter
SIMT_GATHERS = 200  # issue 14: at least 200 random gathers in the SIMT interpreter
SIMT_CHUNK = 40


@pytest.mark.parametrize("start", range(0, SIMT_GATHERS, SIMT_CHUNK))
def test_random_gathers_lowered_to_simt_match_numpy(start: int) -> None:
    """Translation validation: each random gather is lowered to SIMT ops (shfl.sync.idx rounds or
    a shared-memory round trip) and run in the SIMT interpreter; every result register of every
    thread must hold take_along_axis's element, and the shuffle count is the plan's."""
    from llc.passes.lower_gather import check_gather

    for seed in range(start, start + SIMT_CHUNK):
        rng = np.random.default_rng(10_000 + seed)
        src, idx = _random_pair(rng, warp_local=bool(seed % 2))
        axis = _axis_for(src, rng)
        bits = [8, 16, 32, 64][seed % 4]
        plan = plan_gather(src, idx, axis, bits)
        shape = tuple(src.get_out_dim_size(o) for o in src.get_out_dim_names())
        values = rng.integers(0, 1 << min(bits, 62), size=shape)
        indices = rng.integers(0, shape[axis], size=shape)
        result = check_gather(plan, src, idx, values, indices)
        assert result.ok, f"seed {seed} ({plan.strategy}): {result.message}"
        assert result.instructions.get("shfl", 0) == plan.shuffles, seed
        if plan.strategy == "shuffle":
            assert "st.shared" not in result.instructions and result.wavefronts == 0
