"""Translation validation of llc-lower-conversions: lower random conversions and run them in the
SIMT interpreter on distinct values; every register of every thread must hold the element the
destination layout puts there. The figures the planner reports must be the interpreter's."""

from __future__ import annotations

import os

import pytest
from conversion_pairs import random_pair
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType, f16, f32, f64, i8

from llc.dialects.diagnostics import parse_module
from llc.dialects.simt_interpreter import check_conversion
from llc.lowering import plan_conversion
from llc.passes.conversion_kernel import _context
from llc.passes.layout_passes import OptimizeLayoutsPass
from llc.passes.lower_conversions import LowerConversionsPass, conversion_function
from llc.passes.lower_to_simt import LowerToSimtPass

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

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


# ------------------------------------------------------------------ ldmatrix / stmatrix
def _matrix_ops(plan) -> list[tuple[str, int, bool]]:
    return [
        (ins.op, ins.attr("count"), ins.attr("trans"))
        for ins in plan.program.instrs
        if ins.op in ("ldm", "stm")
    ]


def _matrix_case(name: str):
    from llc.layouts import BlockedLayout, DotOperandLayout, NvidiaMmaLayout

    row_major = BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    col_major = BlockedLayout([8, 1], [8, 4], [1, 4], [0, 1])
    mma = NvidiaMmaLayout(2, 0, [4, 1], [16, 8])
    mma22 = NvidiaMmaLayout(2, 0, [2, 2], [16, 8])
    pairs = {
        "blocked->dot_a": (row_major, DotOperandLayout(0, mma, 2)),
        "mma->blocked": (mma, row_major),
        "blocked->dot_b(trans)": (row_major, DotOperandLayout(1, mma22, 2)),
        "col_major->dot_a(trans)": (col_major, DotOperandLayout(0, mma22, 2)),
    }
    a, b = pairs[name]
    return a.to_linear_layout([64, 64]), b.to_linear_layout([64, 64])


@pytest.mark.parametrize(
    ("name", "op", "trans"),
    [
        ("blocked->dot_a", "ldm", False),
        ("mma->blocked", "stm", False),
        ("blocked->dot_b(trans)", "ldm", True),
        ("col_major->dot_a(trans)", "ldm", True),
    ],
)
def test_f16_mma_operands_go_through_ldmatrix_and_stmatrix(name: str, op: str, trans: bool) -> None:
    src, dst = _matrix_case(name)
    plan, result = _lower_and_check(src, dst, 16)
    assert result.ok, result.message
    assert result.stats.instructions == plan.instructions
    assert result.stats.wavefronts == plan.wavefronts * plan.num_warps
    ops = _matrix_ops(plan)
    assert ops and all(o == (op, 4, trans) for o in ops), ops
    # Cheaper than the plain vectorized round trip, and free of bank conflicts.
    plain = plan_conversion(src, dst, 16, force="shared")
    assert plan.cost <= plain.cost
    assert plan.wavefronts == plan.ideal_wavefronts


def test_ldmatrix_replaces_four_narrow_loads() -> None:
    # The dot operand holds pairs of f16 per 32-bit register: plain loads move 32 bits, one
    # ldmatrix.x4 moves 8 registers' worth. 64x64 f16 over 4 warps: 8 KiB.
    src, dst = _matrix_case("blocked->dot_a")
    plan = plan_conversion(src, dst, 16)
    assert plan.instructions["ldmatrix"] == 4 and "ld.shared" not in plan.instructions
    assert (plan.shared_bytes, plan.wavefronts, plan.ideal_wavefronts) == (8192, 32, 32)


def test_matrix_instructions_are_never_used_for_8_or_64_bit_elements() -> None:
    src, dst = _matrix_case("blocked->dot_a")
    for bits in (8, 64):
        assert not _matrix_ops(plan_conversion(src, dst, bits))


def test_32_bit_elements_use_stmatrix_as_b16_pairs() -> None:
    # mma v2 f32 accumulators -> 8 contiguous per thread: each stmatrix.x4 stores 4 f32
    # (a b16 pair each) of 4 matrices; the plain round trip needs 16 st.shared.v2.
    from llc.layouts import BlockedLayout, NvidiaMmaLayout

    mma = NvidiaMmaLayout(2, 0, [4, 1], [16, 8]).to_linear_layout([64, 64])
    out = BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]).to_linear_layout([64, 64])
    plan, result = _lower_and_check(mma, out, 32)
    assert result.ok, result.message
    assert _matrix_ops(plan) == [("stm", 4, False)] * 8
    assert plan.instructions["stmatrix"] == 8 and "st.shared" not in plan.instructions
    assert result.stats.instructions == plan.instructions
    assert (plan.wavefronts, plan.ideal_wavefronts) == (64, 64)
    assert plan.cost < plan_conversion(mma, out, 32, force="shared").cost


# Random pairs (from conversion_pairs) whose cheapest plan uses ldmatrix / stmatrix: 16-bit (among
# them .trans ones: 227, 266, ...) and 32-bit (75, 129, ...), so translation validation covers
# the matrix paths on random layouts.
_RANDOM_LDMATRIX = [54, 111, 266, 286, 303, 328, 459, 555, 569, 601, 630, 715, 724, 752, 754]
_RANDOM_LDMATRIX += [75, 162, 466, 594, 643, 664, 819, 920, 1006, 1056]
_RANDOM_STMATRIX = [24, 227, 336, 337, 386, 474, 707, 907, 964, 1032, 1040, 1055, 1138, 1139]
_RANDOM_STMATRIX += [129, 187, 228, 232, 276, 396, 442, 444, 674, 746]


@pytest.mark.parametrize("seed", _RANDOM_LDMATRIX + _RANDOM_STMATRIX)
def test_random_pairs_through_ldmatrix_and_stmatrix(seed: int) -> None:
    src, dst, bits, kind = random_pair(seed)
    plan, result = _lower_and_check(src, dst, bits)
    wanted = "ldm" if seed in _RANDOM_LDMATRIX else "stm"
    assert any(op == wanted for op, _, _ in _matrix_ops(plan)), f"seed {seed} ({kind})"
    assert result.ok, f"seed {seed} ({kind}): {result.message}"
    assert result.stats.instructions == plan.instructions
    assert result.stats.wavefronts == plan.wavefronts * plan.num_warps
    assert result.stats.ideal_wavefronts == plan.ideal_wavefronts * plan.num_warps


# stmatrix needs sm_90 and ldmatrix sm_75 (PTX ISA; ptxas refuses stmatrix for sm_80): the
# planner only picks them for targets that have them.
@pytest.mark.parametrize("seed", _RANDOM_LDMATRIX[:5] + _RANDOM_STMATRIX[:5])
def test_matrix_instructions_follow_the_target(seed: int) -> None:
    src, dst, bits, kind = random_pair(seed)
    ops = {
        cc: {op for op, _, _ in _matrix_ops(plan_conversion(src, dst, bits, compute_capability=cc))}
        for cc in (70, 75, 80, 90)
    }
    assert ops[90] == {op for op, _, _ in _matrix_ops(plan_conversion(src, dst, bits))}
    wanted = "ldm" if seed in _RANDOM_LDMATRIX else "stm"
    assert wanted in ops[90], f"seed {seed} ({kind})"
    assert "stm" not in ops[80] | ops[75] and not ops[70], f"seed {seed} ({kind}): {ops}"
    assert ops[80] == ops[75]
    # Without stmatrix the plan is still correct (plain stores, or ldmatrix on the other side).
    plan = plan_conversion(src, dst, bits, compute_capability=80)
    shape = [size for _, size in src.out_dims]
    tensor = TensorType(_TYPES[bits], shape)
    function = conversion_function("cvt", tensor, tensor, plan)
    result = check_conversion(ModuleOp([function]), function, src, dst, bits)
    assert result.ok, f"seed {seed} ({kind}): {result.message}"


def _lowered_ops(target: str) -> set[str]:
    """The ops of examples/attention.mlir and matmul.mlir lowered for ``target`` by
    llc-lower-conversions and by llc-lower-to-simt."""
    names: set[str] = set()
    for example in ("attention", "matmul"):
        ctx = _context()
        with open(f"{_ROOT}/examples/{example}.mlir") as f:
            module = parse_module(ctx, f.read(), example)
        module.attributes["tl.target"] = StringAttr(target)
        OptimizeLayoutsPass().apply(ctx, module)
        copy = module.clone()
        LowerConversionsPass().apply(ctx, copy)
        LowerToSimtPass().apply(ctx, module)
        names |= {op.name for m in (module, copy) for op in m.walk()}
    return names


def test_lowering_passes_take_the_target_from_the_module() -> None:
    # examples/attention.mlir (tl.target = "cuda:80") must never lower to stmatrix (ptxas
    # refuses it below sm_90) but loads its dot operands with ldmatrix; as cuda:90 (other mma
    # layouts) its accumulators go through stmatrix; sm_70 has neither instruction.
    sm80, sm90 = _lowered_ops("cuda:80"), _lowered_ops("cuda:90")
    assert "simt.stmatrix" not in sm80 and "simt.ldmatrix" in sm80
    assert "simt.stmatrix" in sm90
    assert not {"simt.stmatrix", "simt.ldmatrix"} & _lowered_ops("cuda:70")
