"""Translation validation of llc-lower-conversions: lower random conversions and run them in the
SIMT interpreter on distinct values; every register of every thread must hold the element the
destination layout puts there. The figures the planner reports must be the interpreter's."""

from __future__ import annotations

import pytest
from conversion_pairs import random_pair
from xdsl.dialects.builtin import ModuleOp, TensorType, f16, f32, f64, i8

from llc.dialects.simt_interpreter import check_conversion
from llc.lowering import plan_conversion
from llc.passes.lower_conversions import conversion_function

_TYPES = {8: i8, 16: f16, 32: f32, 64: f64}
PAIRS = 1200
CHUNK = 50


def _lower_and_check(src, dst, bits, force=None, scratch_limit=65536):
    plan = plan_conversion(src, dst, bits, scratch_limit, force)
    shape = [size for _, size in src.out_dims]
    tensor = TensorType(_TYPES[bits], shape)
    function = conversion_function("cvt", tensor, tensor, plan)
    module = ModuleOp([function])
    module.verify()
    return plan, check_conversion(module, function, src, dst, bits)


@pytest.mark.parametrize("start", range(0, PAIRS, CHUNK))
def test_random_pairs_translate_correctly(start: int) -> None:
    for seed in range(start, start + CHUNK):
        src, dst, bits, kind = random_pair(seed)
        plan, result = _lower_and_check(src, dst, bits)
        assert result.ok, f"seed {seed} ({kind}, {plan.strategy}): {result.message}"
        # The plan's figures are what the lowered code does when it runs.
        assert result.stats.instructions == plan.instructions, f"seed {seed}"
        warps = plan.num_warps
        assert result.stats.wavefronts == plan.wavefronts * warps, f"seed {seed}"
        assert result.stats.ideal_wavefronts == plan.ideal_wavefronts * warps, f"seed {seed}"


@pytest.mark.parametrize("seed", range(1, 200, 8))
def test_forced_shared_round_trip_is_correct_for_warp_local_pairs(seed: int) -> None:
    src, dst, bits, kind = random_pair(seed)
    plan, result = _lower_and_check(src, dst, bits, force="shared")
    assert plan.strategy == "shared"
    assert result.ok, f"seed {seed} ({kind}): {result.message}"


@pytest.mark.parametrize("seed", range(3, 400, 8))
def test_rounds_under_a_small_scratch_limit_are_correct_and_race_free(seed: int) -> None:
    src, dst, bits, kind = random_pair(seed)
    plan, result = _lower_and_check(src, dst, bits, force="shared", scratch_limit=512)
    assert result.ok, f"seed {seed} ({kind}): {result.message}"
    if plan.rounds > 1:
        assert plan.instructions["bar.sync"] == 2 * plan.rounds - 1
        assert plan.shared_bytes * plan.rounds == src.total_out_size * bits // 8


def test_transpose_runs_in_rounds_when_the_buffer_is_too_large() -> None:
    from llc.layouts import BlockedLayout

    row = BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0]).to_linear_layout([64, 64])
    col = BlockedLayout([4, 1], [4, 8], [1, 4], [0, 1]).to_linear_layout([64, 64])
    whole, _ = _lower_and_check(row, col, 32)
    plan, result = _lower_and_check(row, col, 32, scratch_limit=4096)
    assert (whole.rounds, whole.shared_bytes) == (1, 16384)
    assert (plan.rounds, plan.shared_bytes, plan.instructions["bar.sync"]) == (4, 4096, 7)
    assert result.ok and result.stats.wavefronts == result.stats.ideal_wavefronts
