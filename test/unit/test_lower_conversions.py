"""Translation validation of llc-lower-conversions: lower random conversions and run them in the
SIMT interpreter on distinct values; every register of every thread must hold the element the
destination layout puts there. The figures the planner reports must be the interpreter's."""

from __future__ import annotations

import os

import pytest
from conversion_pairs import KINDS, random_pair
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType, f16, f32, f64, i8

from llc.conversion import in_dim_columns
from llc.dialects.diagnostics import parse_module
from llc.dialects.simt_interpreter import check_conversion
from llc.errors import LayoutError
from llc.lowering import plan_conversion
from llc.passes.conversion_kernel import _context
from llc.passes.layout_passes import OptimizeLayoutsPass
from llc.passes.lower_conversions import LowerConversionsPass, conversion_function
from llc.passes.lower_to_simt import LowerToSimtPass
from llc.swizzle import rank

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_TYPES = {8: i8, 16: f16, 32: f32, 64: f64}
PAIRS = 1000  # issue 10: at least 1,000 random pairs in the default run
CHUNK = 50


def _lower_and_check(src, dst, bits, force=None, scratch_limit=65536, verify=True):
    plan = plan_conversion(src, dst, bits, scratch_limit, force)
    shape = [size for _, size in src.out_dims]
    tensor = TensorType(_TYPES[bits], shape)
    function = conversion_function("cvt", tensor, tensor, plan)
    module = ModuleOp([function])
    if verify:
        module.verify()
    return plan, check_conversion(module, function, src, dst, bits)


@pytest.mark.parametrize("start", range(0, PAIRS, CHUNK))
def test_random_pairs_translate_correctly(start: int) -> None:
    for seed in range(start, start + CHUNK):
        src, dst, bits, kind = random_pair(seed)
        # The interpreter checks every pair's values; xDSL's verifier (a fifth of the time)
        # checks the IR of every fourth run of len(KINDS) seeds (one pair of each kind): an
        # invalid op is a strategy's, not a pair's, and those 256 pairs draw every kind.
        verify = (seed // len(KINDS)) % 4 == 0
        plan, result = _lower_and_check(src, dst, bits, verify=verify)
        assert result.ok, f"seed {seed} ({kind}, {plan.strategy}): {result.message}"
        # The plan's figures are what the lowered code does when it runs.
        assert result.stats.instructions == plan.instructions, f"seed {seed}"
        warps = plan.num_warps
        assert result.stats.wavefronts == plan.wavefronts * warps, f"seed {seed}"
        assert result.stats.ideal_wavefronts == plan.ideal_wavefronts * warps, f"seed {seed}"


def test_random_pairs_draw_both_dot_operands_and_amd_layouts() -> None:
    """The mma_dot pairs cover dot operands of either index, of nvidia_mma, amd_mfma (64-lane
    waves) and amd_wmma parents, and the AMD layouts themselves (to and from blocked)."""
    from llc.layouts import AmdMfmaLayout, AmdWmmaLayout, DotOperandLayout, NvidiaMmaLayout

    seen = set()
    for seed in range(5, PAIRS, 8):  # the mma_dot seeds of the random-pair test
        families: list = []
        random_pair(seed, families)
        for layout in families:
            if isinstance(layout, DotOperandLayout):
                seen.add((type(layout.parent).__name__, layout.op_idx))
            elif isinstance(layout, AmdMfmaLayout | AmdWmmaLayout | NvidiaMmaLayout):
                seen.add(type(layout).__name__)
    for parent in (NvidiaMmaLayout, AmdMfmaLayout, AmdWmmaLayout):
        assert parent.__name__ in seen
        assert {(parent.__name__, 0), (parent.__name__, 1)} <= seen, seen


@pytest.mark.parametrize("seed", range(1, 200, 8))
def test_forced_shared_round_trip_is_correct_for_warp_local_pairs(seed: int) -> None:
    src, dst, bits, kind = random_pair(seed)
    plan, result = _lower_and_check(src, dst, bits, force="shared")
    assert plan.strategy == "shared"
    assert result.ok, f"seed {seed} ({kind}): {result.message}"


def _least_scratch(src, dst, bits) -> int:
    """A lower bound on the scratch bytes of any round trip in rounds: a thread stores and
    loads a round's elements in one instruction stream, so which round an element belongs to
    cannot depend on any lane or warp of either side; the rounds split the tensor only along
    directions outside the span of both sides' threads (for unit bases: the registers common
    to both sides)."""
    threads = [c for ll in (src, dst) for d in ("lane", "warp") for c in in_dim_columns(ll, d)]
    return (bits // 8) << rank(threads)


@pytest.mark.parametrize("seed", range(3, 400, 8))
@pytest.mark.parametrize("force", ["shared", None])
def test_rounds_under_a_small_scratch_limit_are_correct_and_race_free(
    seed: int, force: str | None
) -> None:
    src, dst, bits, kind = random_pair(seed)
    limit = 512
    if _least_scratch(src, dst, bits) > limit:
        # The limit is a hard bound: a conversion that cannot fit it is an error, never a
        # larger buffer (a warp-local conversion may still use shuffles).
        try:
            plan = plan_conversion(src, dst, bits, limit, force)
        except LayoutError as error:
            assert "scratch limit of 512 bytes" in str(error)
            return
        assert force is None and plan.strategy != "shared", f"seed {seed}"
    plan, result = _lower_and_check(src, dst, bits, force=force, scratch_limit=limit)
    assert result.ok, f"seed {seed} ({kind}): {result.message}"
    assert result.stats.instructions == plan.instructions, f"seed {seed}"
    assert result.stats.wavefronts == plan.wavefronts * plan.num_warps, f"seed {seed}"
    assert plan.shared_bytes <= limit
    if plan.strategy == "shared":
        assert plan.instructions["bar.sync"] == 2 * plan.rounds - 1
        assert plan.shared_bytes * plan.rounds == src.total_out_size * bits // 8


@pytest.mark.parametrize("start", range(0, 400, 50))
def test_scratch_never_exceeds_the_limit(start: int) -> None:
    # At the default limit and at a small one, every plan (plain or ldmatrix/stmatrix) stays
    # within the limit, and every round trip reaches the fewest bytes rounds can give.
    for seed in range(start, start + 50):
        src, dst, bits, _ = random_pair(seed)
        least = _least_scratch(src, dst, bits)
        for limit in (65536, 2048):
            try:
                plan = plan_conversion(src, dst, bits, limit)
            except LayoutError:
                assert least > limit, f"seed {seed}: {least} bytes would fit {limit}"
                continue
            assert plan.shared_bytes <= limit, f"seed {seed}"


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
    # Free of bank conflicts, and ahead of the plain vectorized round trip: round trips are
    # ranked by conflicts, then shared-memory instructions, then scratch bytes, then cycles.
    plain = plan_conversion(src, dst, 16, force="shared")
    assert _trip_key(plan) <= _trip_key(plain)
    assert plan.wavefronts == plan.ideal_wavefronts


def _trip_key(plan) -> tuple[int, int, int, float]:
    kinds = ("st.shared", "ld.shared", "ldmatrix", "stmatrix")
    accesses = sum(plan.instructions.get(k, 0) for k in kinds)
    return plan.wavefronts - plan.ideal_wavefronts, accesses, plan.shared_bytes, plan.cost


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
    # Fewer stores than the plain trip and half its scratch (the plain trip's vector holds a
    # register the stmatrix plan runs rounds over), so it is preferred although its extra
    # barrier costs more cycles.
    plain = plan_conversion(mma, out, 32, force="shared")
    assert (plan.shared_bytes, plan.rounds) == (8192, 2)
    assert (plain.shared_bytes, plain.rounds) == (16384, 1)


def _mma_epilogue_128():
    # bench/conversions.py's "mma v2 [4,1] -> blocked" 128x128 f32 (64 KiB in all); Triton 3.9
    # converts it through 8192 bytes (8 rounds, 15 barriers, ldmatrix on the blocked side).
    from llc.layouts import BlockedLayout, NvidiaMmaLayout

    mma = NvidiaMmaLayout(2, 0, [4, 1], [16, 8]).to_linear_layout([128, 128])
    out = BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]).to_linear_layout([128, 128])
    return mma, out


@pytest.mark.parametrize(("capability", "op"), [(90, "stm"), (80, "ldm")])
def test_matrix_round_trips_run_in_rounds(capability: int, op: str) -> None:
    # The registers common to both sides that the matrix tile does not use become rounds, so
    # the buffer is what Triton allocates; each round is stored, then (barrier) loaded, then
    # (barrier) the next one, and the interpreter finds no race.
    mma, out = _mma_epilogue_128()
    plan = plan_conversion(mma, out, 32, compute_capability=capability)
    shape = [size for _, size in mma.out_dims]
    function = conversion_function("cvt", TensorType(f32, shape), TensorType(f32, shape), plan)
    result = check_conversion(ModuleOp([function]), function, mma, out, 32)
    assert result.ok, result.message
    assert {o for o, _, _ in _matrix_ops(plan)} == {op}
    assert plan.shared_bytes <= 8192 and plan.rounds == 8
    assert plan.shared_bytes * plan.rounds == 128 * 128 * 4
    assert plan.instructions["bar.sync"] == 2 * plan.rounds - 1
    assert result.stats.instructions == plan.instructions
    assert result.stats.wavefronts == plan.wavefronts * plan.num_warps
    assert plan.wavefronts == plan.ideal_wavefronts


def test_matrix_round_trips_respect_a_small_scratch_limit() -> None:
    # Before rounds, a matrix trip needed the whole tensor within the limit and was skipped;
    # a limit between Triton's buffer and the tensor now gives more, smaller rounds, and one
    # below what rounds can reach is an error naming the limit, never a larger buffer.
    mma, out = _mma_epilogue_128()
    for limit in (32768, 8192):
        plan, result = _lower_and_check(mma, out, 32, scratch_limit=limit)
        assert result.ok, result.message
        assert _matrix_ops(plan) and plan.shared_bytes <= limit
    assert _least_scratch(mma, out, 32) == 8192
    with pytest.raises(LayoutError, match="scratch limit of 4096 bytes"):
        plan_conversion(mma, out, 32, 4096)


# Random pairs (from conversion_pairs) whose chosen plan uses ldmatrix / stmatrix: 16-bit (among
# them .trans ones: 54, 227, 286, 336, ...) and 32-bit (75, 232, ...), so translation
# validation covers the matrix paths on random layouts. (The seeds changed when the one
# wavefront model, llc.swizzle.warp_wavefronts, replaced the planner's: plain trips whose load
# lanes pair up lost their apparent conflicts and now win some pairs.)
# (Seed 569, warp-local, left: its shuffles cost 84 cycles once senders pre-permute only the
# registers they send, cheaper than any round trip. Seeds 266, 303 and 386, 16-bit, left for
# 1157, 1220 and 1200 when 16-bit values began to travel packed two to a word: their shuffles
# became cheaper than any round trip. Seeds 1040, 1123 and 771 moved from stmatrix to ldmatrix,
# replaced by 1346, 1392 and 1442, when a broadcast destination could be read with ldmatrix:
# as few wavefronts or fewer, and fewer instructions.)
_RANDOM_LDMATRIX = [54, 111, 1157, 286, 1220, 328, 439, 459, 630, 752, 754, 837, 944, 959]
_RANDOM_LDMATRIX += [75, 187, 643, 652, 664, 819, 920, 1056, 1120, 1151, 1040, 1123, 771]
_RANDOM_STMATRIX = [24, 227, 336, 337, 1200, 474, 707, 907, 1032, 1346, 1055, 1392, 1138, 1144]
_RANDOM_STMATRIX += [232, 276, 308, 442, 444, 674, 746, 768, 1442, 820]


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
        # The staged assignment: it keeps the shared-memory conversions (operand staging, the
        # accumulator's store conversion) whose lowering this test is about; the solver's
        # assignment of these kernels needs fewer of them.
        OptimizeLayoutsPass(solver="staged").apply(ctx, module)
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


# Random warp-local pairs of 8/16-bit elements whose packed program (values that travel
# together share a 32-bit word) receives words whose values are in another order than the
# destination's, by destination register and by thread (the source's columns differ from the
# destination's by a packing direction): the program must put them back.
_PACKED_REORDERED = [9, 57, 313, 529]


@pytest.mark.parametrize("seed", _PACKED_REORDERED)
def test_packed_shuffles_restore_the_order_of_values_in_a_word(seed: int) -> None:
    src, dst, bits, kind = random_pair(seed)
    plan, result = _lower_and_check(src, dst, bits, force="shuffle")
    words = {i.type[2] for i in plan.program.instrs if i.op == "shfl"}
    assert words and words <= {"i32", "b16"}, f"seed {seed} ({kind}): {words}"
    assert result.ok, f"seed {seed} ({kind}): {result.message}"
    assert result.stats.instructions == plan.instructions
