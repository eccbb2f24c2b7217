"""``llc-pipeline`` and its ``cp.async`` lowering (issue 21).

* The matmul, matmul-epilogue and flash-attention examples, pipelined over 3 stages and lowered
  to SIMT code, give the SIMT interpreter the same buffers as the tensor-level interpreter gives
  the original kernel, at trip counts below, equal to and above the stage count and not a
  multiple of it (K tails masked inside the tile, rows masked by M).
* Deleting any ``cp.async.commit_group``, ``cp.async.wait_group`` or barrier of those kernels is
  reported by the SIMT interpreter (a race, a copy in flight at the kernel's end) or changes the
  output; the counts are recorded like ``test_barriers``'.
* The tensor level models the copies as asynchronous too: the pipelined kernel (before lowering)
  runs in the tensor interpreter to the same buffers, and a wait that retires too little is an
  error there.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from xdsl.dialects import func, gpu
from xdsl.dialects.builtin import ModuleOp

from llc.dialects import simt
from llc.dialects.tl_interpreter import TLInterpretationError
from llc.testing.semantics import apply_pipeline, parse

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
STAGES = 3


def _hinted(name: str) -> str:
    """The laid-out example with its i32 sizes hinted divisible by 16 (as Triton specializes
    them), so the copies are 16-byte ``cp.async`` (unhinted, rows may start anywhere)."""
    text = (EXAMPLES / f"{name}.mlir").read_text()
    return re.sub(r"(%(?:N|K|N_CTX)): i32", r"\1: i32 {tl.divisibility = 16 : i32}", text)


def _matmul_args(m: int, n: int, k: int, epilogue: bool) -> list[Any]:
    rng = np.random.default_rng(k)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    args: list[Any] = [a, b]
    if epilogue:
        args.append(rng.standard_normal(n).astype(np.float32))
    return [*args, np.zeros((m, n), np.float32), m, n, k]


def _flash_args(n_ctx: int) -> list[Any]:
    rng = np.random.default_rng(n_ctx)
    q, k, v = (rng.standard_normal((n_ctx, 64)).astype(np.float16) for _ in range(3))
    return [q, k, v, np.zeros((n_ctx, 64), np.float32), 0.125, n_ctx]


# name, entry, arguments, trip count of the K loop (program 0)
CASES: list[tuple[str, str, list[Any], int]] = [
    ("matmul", "matmul_kernel", _matmul_args(50, 48, 16, False), 1),  # below, K tail masked
    ("matmul", "matmul_kernel", _matmul_args(64, 64, 96, False), 3),  # equal
    ("matmul", "matmul_kernel", _matmul_args(40, 64, 144, False), 5),  # above, masked tail
    ("matmul_epilogue", "matmul_kernel", _matmul_args(50, 48, 64, True), 2),
    ("matmul_epilogue", "matmul_kernel", _matmul_args(64, 64, 112, True), 4),
    ("flash_attention", "attention_fwd_kernel", _flash_args(64), 2),
    ("flash_attention", "attention_fwd_kernel", _flash_args(96), 3),
    ("flash_attention", "attention_fwd_kernel", _flash_args(128), 4),
]


def _bind(module: ModuleOp, entry: str, values: list[Any]) -> tuple[list[Any], dict[str, Any]]:
    """Interpreter arguments for ``values`` (arrays become fresh buffers), and the buffers."""
    from llc.dialects.tl_interpreter import Buffer, Pointer, to_value

    fn = next(o for o in module.walk() if isinstance(o, func.FuncOp) and o.sym_name.data == entry)
    args, buffers = [], {}
    for i, (v, typ) in enumerate(zip(values, fn.function_type.inputs.data, strict=True)):
        if isinstance(v, np.ndarray):
            buf = Buffer(f"arg{i}", v.reshape(-1).copy(), v.shape)
            buffers[f"arg{i}"] = buf
            args.append(Pointer(buf, 0))
        else:
            args.append(to_value(v, typ))
    return args, buffers


def run_tensor_level(module: ModuleOp, entry: str, values: list[Any]) -> dict[str, np.ndarray]:
    """Program 0 of ``module`` in the tensor-level interpreter; the buffers afterwards."""
    from llc.dialects.tl_interpreter import make_interpreter, set_grid

    args, buffers = _bind(module, entry, values)
    interp = make_interpreter(module)
    set_grid(interp, (0, 0, 0), (1, 1, 1))
    interp.call_op(entry, tuple(args))
    return {k: np.array(b.data) for k, b in buffers.items()}


def simt_runner(entry: str, values: list[Any]) -> Callable[[ModuleOp], dict[str, np.ndarray]]:
    """Runs program 0 of a lowered module in the SIMT interpreter (fresh buffers each run)."""
    from llc.dialects.simt_kernel_interpreter import GlobalMemory, make_kernel_interpreter

    def run(module: ModuleOp) -> dict[str, np.ndarray]:
        args, buffers = _bind(module, entry, values)
        fn = next(o for o in module.walk() if isinstance(o, func.FuncOp))
        warps = fn.attributes["llc.num_warps"].value.data  # type: ignore[attr-defined]
        lanes = fn.attributes["llc.threads_per_warp"].value.data  # type: ignore[attr-defined]
        interp, kernel = make_kernel_interpreter(module, warps, lanes, GlobalMemory())
        kernel.num_programs = (1, 1, 1)
        kernel.program_id = (0, 0, 0)
        interp.call_op(entry, tuple(args))
        return {k: np.array(b.data) for k, b in buffers.items()}

    return run


_LOWERED: dict[str, ModuleOp] = {}


def lowered(name: str, stages: int = STAGES) -> ModuleOp:
    """The hinted example pipelined over ``stages`` and lowered (cached: clone to change)."""
    key = f"{name}/{stages}"
    if key not in _LOWERED:
        module = parse(_hinted(name))
        apply_pipeline(module, f"llc-pipeline{{num-stages={stages}}},llc-lower-to-simt")
        module.verify()
        _LOWERED[key] = module
    return _LOWERED[key]


def _lowered_with(stages: int, peel: bool) -> ModuleOp:
    """The hinted matmul pipelined over ``stages`` (peeled or masked epilogue) and lowered."""
    key = f"matmul/{stages}/{peel}"
    if key not in _LOWERED:
        module = parse(_hinted("matmul"))
        flag = "true" if peel else "false"
        apply_pipeline(
            module, f"llc-pipeline{{num-stages={stages} peel-epilogue={flag}}},llc-lower-to-simt"
        )
        module.verify()
        _LOWERED[key] = module
    return _LOWERED[key]


def _close(got: dict[str, np.ndarray], want: dict[str, np.ndarray], tol: float = 2e-5) -> None:
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=tol, atol=tol, err_msg=k)


@pytest.mark.parametrize(("name", "entry", "values", "trips"), CASES)
def test_pipelined_example_matches_the_tensor_level(
    name: str, entry: str, values: list[Any], trips: int
) -> None:
    want = run_tensor_level(parse(_hinted(name)), entry, values)
    module = lowered(name)
    ops = [o.name for o in module.walk()]
    assert ops.count("simt.cp_async") >= 2 * STAGES  # the prologue's and the loop's copies
    got = simt_runner(entry, values)(module)
    # f16 rounding of P in flash attention differs between float64 and the f32 mma
    _close(got, want, 1e-3 if name == "flash_attention" else 2e-5)
    # and bit for bit what the unpipelined lowering computes
    plain = simt_runner(entry, values)(lowered(name, 1))
    for k in plain:
        assert np.array_equal(got[k], plain[k]), k


@pytest.mark.parametrize(("name", "entry", "values", "trips"), CASES[:4])
def test_pipelined_example_at_the_tensor_level(
    name: str, entry: str, values: list[Any], trips: int
) -> None:
    """The pipelined kernel before lowering: the asynchronous ops' tensor-level semantics."""
    want = run_tensor_level(parse(_hinted(name)), entry, values)
    module = parse(_hinted(name))
    apply_pipeline(module, f"llc-pipeline{{num-stages={STAGES}}}")
    _close(run_tensor_level(module, entry, values), want)


@pytest.mark.parametrize("peel", [True, False], ids=["peeled", "masked"])
@pytest.mark.parametrize("stages", [3, 4])
def test_short_and_ragged_loops_match_the_tensor_level(stages: int, peel: bool) -> None:
    """Trip counts 0 to 3 (all below 4 stages, and 0..2 around 3), K a multiple of the tile
    or not (the K tail masked inside the last tile): the prologue's copies past the trip
    count are masked off and the peeled iterations that are not iterations do not run."""
    module = _lowered_with(stages, peel)
    ifs = sum(o.name == "scf.if" for o in module.walk())
    assert ifs >= (stages - 1 if peel else 0)
    for k in (0, 16, 32, 48, 80):  # trips 0, 1, 1, 2, 3
        values = _matmul_args(40, 64, k, False)
        want = run_tensor_level(parse(_hinted("matmul")), "matmul_kernel", values)
        _close(simt_runner("matmul_kernel", values)(module), want)


def test_a_peeled_iteration_past_the_trip_count_does_not_run() -> None:
    """Flash attention over one K block (one trip, two peeled iterations): the second peeled
    iteration would read a slot of zeros (its copy was masked off), and an online softmax
    step over zero scores is not a no-op: it must not run."""
    values = [*_flash_args(64)[:-1], 32]  # 64-row buffers (the Q block), 32 keys: one trip
    want = run_tensor_level(parse(_hinted("flash_attention")), "attention_fwd_kernel", values)
    _close(simt_runner("attention_fwd_kernel", values)(lowered("flash_attention")), want, 1e-3)


def test_a_wait_that_retires_too_little_is_a_tensor_level_race() -> None:
    module = parse(_hinted("matmul"))
    apply_pipeline(module, f"llc-pipeline{{num-stages={STAGES}}}")
    wait = next(o for o in module.walk() if o.name == "tl.async_wait")
    wait.properties["num"] = type(wait.properties["num"])(STAGES - 1, 32)  # off by one
    with pytest.raises(TLInterpretationError, match="race"):
        run_tensor_level(module, "matmul_kernel", CASES[1][2])


SYNC_KINDS = (simt.CpAsyncCommitGroupOp, simt.CpAsyncWaitGroupOp, gpu.BarrierOp)


def delete_each_sync(module: ModuleOp, run: Callable[[ModuleOp], dict]) -> list[tuple[str, str]]:
    """Delete each commit, wait and barrier alone (``test_barriers``' machinery with the
    ``cp.async`` ops added); (op name, how it was caught or "") for each."""
    from llc.testing.barrier_deletion import delete_each_barrier

    names = [o.name for o in module.walk() if isinstance(o, SYNC_KINDS)]
    deletions = delete_each_barrier(module, run, SYNC_KINDS)
    return [(names[d.index], d.caught) for d in deletions]


@pytest.mark.parametrize(
    ("name", "case"), [("matmul", 2), ("matmul_epilogue", 4), ("flash_attention", 7)]
)
def test_every_commit_wait_and_barrier_is_needed(
    name: str, case: int, request: pytest.FixtureRequest
) -> None:
    _, entry, values, _ = CASES[case]
    module = lowered(name)
    deletions = delete_each_sync(module, simt_runner(entry, values))
    kinds = {k: sum(1 for n, _ in deletions if n == k) for k in {n for n, _ in deletions}}
    assert kinds.get("simt.cp_async_commit_group", 0) == STAGES  # prologue 2 + loop 1
    # the loop's, and one before each of the stages - 1 peeled iterations (the last drains)
    assert kinds.get("simt.cp_async_wait_group", 0) == STAGES
    caught = sum(bool(c) for _, c in deletions)
    request.node.user_properties.append(("syncs_deleted", len(deletions)))
    request.node.user_properties.append(("syncs_caught", caught))
    print(f"{name}: {caught} of {len(deletions)} deletions caught", kinds)
    missed = [n for n, c in deletions if not c]
    assert not missed, f"{name}: deleting {missed} changes nothing"


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("name", ["matmul", "matmul_epilogue", "flash_attention"])
def test_pipelined_ptx_assembles(name: str, arch: str) -> None:
    """ptxas accepts the 3-stage kernels with empty output: 16-byte ``cp.async.cg`` with a
    src-size operand, one commit per stage, ``wait_group 1`` in the loop, then 1 and 0 before the
    two peeled iterations."""
    from llc.passes.targets.ptx import emit_ptx
    from llc.testing.ptxas import assemble, find_ptxas

    if find_ptxas() is None:
        pytest.skip("no ptxas (pip install -e '.[test]')")
    ptx = emit_ptx(lowered(name), arch)
    copies = re.findall(
        r"cp\.async\.(\w+)\.shared\.global \[[^]]+\], \[[^]]+\], (\d+), %r\d+;", ptx
    )
    assert copies and all(c == ("cg", "16") for c in copies), copies[:3]
    assert ptx.count("cp.async.commit_group;") == STAGES
    waits = [int(n) for n in re.findall(r"cp\.async\.wait_group (\d+);", ptx)]
    assert waits == [STAGES - 2, *range(STAGES - 2, -1, -1)]  # the loop's, the peeled ones
    assert assemble(ptx, arch) == ""


def test_the_barrier_after_a_wait_is_needed_even_after_another_barrier() -> None:
    """A ``cp.async`` lands at its wait, not where it was issued: a barrier between the issue
    and the wait does not show other threads' copies to a load after the wait, the barrier
    after the wait does (the barrier analysis treats the wait as a write of every buffer that
    is copied to, ordered against the accesses after it). The barrier between the issue and the
    wait orders nothing: the copy may land any time before the wait, so only the wait and a
    barrier after it order what follows."""
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IndexType, VectorType, f32, i32, i64
    from xdsl.ir import Block, Region

    from llc.passes.barriers import barrier_needed

    c0 = arith.ConstantOp.from_int_and_width(0, IndexType())
    src = arith.ConstantOp.from_int_and_width(0, i64)
    size = arith.ConstantOp.from_int_and_width(16, i32)
    mem = simt.SharedAllocOp(2048, 16)
    m = mem.results[0]
    first, second = gpu.BarrierOp(), gpu.BarrierOp()
    ops = [
        c0,
        src,
        size,
        mem,
        simt.CpAsyncOp(m, c0.results[0], src.results[0], size.results[0], 16),
    ]
    ops += [simt.CpAsyncCommitGroupOp(), first, simt.CpAsyncWaitGroupOp(0), second]
    ops += [simt.SharedLoadOp(m, c0.results[0], VectorType(f32, [4])), func.ReturnOp()]
    block = Block()
    block.add_ops(ops)
    fn = func.FuncOp("f", ([], []), Region(block))
    assert barrier_needed(fn, second)
    # Nothing between the issue and the landing needs ordering: a landing needs a barrier
    # after it, never one ahead of it (the copy's issue is ordered against earlier accesses).
    assert not barrier_needed(fn, first)


def test_a_nonzero_other_is_applied_after_the_local_load() -> None:
    """``cp.async`` fills masked elements with zeros; a load whose ``other`` is 1 gets it back
    by a select with the consumer iteration's own mask (the K tail of both operands is 1 here,
    so the product changes by the number of masked k)."""
    text = _hinted("matmul").replace(
        "0.000000e+00 : tensor<64x32xf16", "1.000000e+00 : tensor<64x32xf16"
    )
    text = text.replace("0.000000e+00 : tensor<32x64xf16", "1.000000e+00 : tensor<32x64xf16")
    values = _matmul_args(50, 48, 80, False)
    want = run_tensor_level(parse(text), "matmul_kernel", values)
    module = parse(text)
    apply_pipeline(module, f"llc-pipeline{{num-stages={STAGES}}}")
    names = [o.name for o in module.walk()]
    assert names.count("tl.async_copy_global_to_local") == 2 * STAGES
    assert names.count("tl.select") == 2 * STAGES  # the loop's and the peeled iterations'
    _close(run_tensor_level(module, "matmul_kernel", values), want)
    apply_pipeline(module, "llc-lower-to-simt")
    _close(simt_runner("matmul_kernel", values)(module), want)
    plain = run_tensor_level(parse(_hinted("matmul")), "matmul_kernel", values)
    assert not np.allclose(plain["arg2"], want["arg2"])  # `other` matters here


def test_reads_of_a_threads_own_copies_need_no_barrier() -> None:
    """With a non-zero ``other`` the operands are read back in the copies' own blocked layout
    (then selected and converted): each thread reads only bytes it copied itself, and copies
    into each ring always by the same thread. The lowering marks those reads and copies
    (``llc.own_copies``) and the barrier analysis drops the barriers only other threads' bytes
    would need: deleting any sync op left is still reported (without the marks, three barriers
    would be left that order nothing)."""
    text = _hinted("matmul").replace(
        "0.000000e+00 : tensor<64x32xf16", "1.000000e+00 : tensor<64x32xf16"
    )
    text = text.replace("0.000000e+00 : tensor<32x64xf16", "1.000000e+00 : tensor<32x64xf16")
    module = parse(text)
    apply_pipeline(module, f"llc-pipeline{{num-stages={STAGES}}},llc-lower-to-simt")
    marked = [o.name for o in module.walk() if "llc.own_copies" in o.attributes]
    assert "simt.shared_load" in marked and "simt.cp_async" in marked
    # K = 80: three iterations, every peeled one runs; K = 32: one, the last peeled iteration is
    # skipped, so the epilogue's scratch (over the rings) follows the last wait with no barrier
    # of the skipped branch between them
    runs = [simt_runner("matmul_kernel", _matmul_args(50, 48, k, False)) for k in (80, 32)]

    def run(m: ModuleOp) -> dict[str, np.ndarray]:
        return {f"{k}@{i}": v for i, r in enumerate(runs) for k, v in r(m).items()}

    missed = [n for n, c in delete_each_sync(module, run) if not c]
    assert not missed, missed


def test_llc_compile_pipelines_by_default_and_not_with_one_stage() -> None:
    """From layout-free input: the hinted matmul-epilogue's loop loads get 16-byte layouts (the
    axis analysis follows the pointers through the loop's back edge) and ``llc-compile``
    pipelines them on ``cuda:80``; ``num-stages=1`` leaves the loop synchronous. The pipelined
    kernel computes what the tensor level does."""
    text = (EXAMPLES / "ttir" / "matmul_epilogue.mlir").read_text()
    text = re.sub(r"(%(?:N|K)): i32", r"\1: i32 {tl.divisibility = 16 : i32}", text)
    on, off = parse(text), parse(text)
    apply_pipeline(on, "llc-compile")
    apply_pipeline(off, "llc-compile{num-stages=1}")
    copies = [o for o in on.walk() if isinstance(o, simt.CpAsyncOp)]
    assert len(copies) == 4 * STAGES and all(o.bytes.value.data == 16 for o in copies)
    assert not any(o.name.startswith("simt.cp_async") for o in off.walk())
    values = _matmul_args(50, 48, 112, True)
    want = run_tensor_level(parse(text), "matmul_kernel", values)
    _close(simt_runner("matmul_kernel", values)(on), want)


def test_a_wrong_ring_index_is_a_tensor_level_race() -> None:
    """matmul reads its tiles into registers, so its rings have ``stages - 1`` slots and each
    iteration refills the slot it has just read. A refill counter one slot ahead puts the
    loop's first copy into the slot whose copy (the next iteration's tile) is still in flight.
    A kernel whose slots a wgmma reads keeps ``stages`` slots (``test_hopper_backend``)."""
    from xdsl.dialects import arith, scf

    module = parse(_hinted("matmul"))
    apply_pipeline(module, f"llc-pipeline{{num-stages={STAGES}}}")
    rings = [o for o in module.walk() if o.name == "tl.local_alloc"]
    assert [o.results[0].type.get_shape()[0] for o in rings] == [STAGES - 1] * 2  # type: ignore[attr-defined]
    loop = next(o for o in module.walk() if isinstance(o, scf.ForOp))
    one = arith.ConstantOp.from_int_and_width(1, 32)
    loop.parent_block().insert_op_before(one, loop)  # type: ignore[union-attr]
    # the fill counter's start (then the read counter, then the induction value)
    loop.operands[len(loop.operands) - 3] = one.results[0]
    with pytest.raises(
        TLInterpretationError, match=r"a tl\.async_copy_global_to_local still writes"
    ):
        run_tensor_level(module, "matmul_kernel", CASES[1][2])


def test_two_copies_in_flight_into_one_buffer_are_a_tensor_level_race() -> None:
    module = parse(_hinted("matmul"))
    apply_pipeline(module, f"llc-pipeline{{num-stages={STAGES}}}")
    first = next(o for o in module.walk() if o.name == "tl.async_copy_global_to_local")
    first.parent_block().insert_op_after(first.clone(), first)  # type: ignore[union-attr]
    with pytest.raises(TLInterpretationError, match="starts a copy into shared memory"):
        run_tensor_level(module, "matmul_kernel", CASES[1][2])


def test_a_kernel_that_stages_its_tiles_reads_the_slots_in_its_own_shared_layout() -> None:
    """matmul-epilogue stores each tile with ``tl.local_alloc`` (``#shared``) and reads it
    into the operand layouts: the ring slot replaces that buffer (no second trip through
    shared memory), in the kernel's layout."""
    module = parse(_hinted("matmul_epilogue"))
    apply_pipeline(module, f"llc-pipeline{{num-stages={STAGES}}}")
    allocs = [o for o in module.walk() if o.name == "tl.local_alloc"]
    assert len(allocs) == 2 and all(not o.operands for o in allocs)
    loads = [o for o in module.walk() if o.name == "tl.local_load"]
    # the loop's two reads and those of the stages - 1 peeled iterations
    assert [o.operands[0].owner.name for o in loads] == ["tl.memdesc_index"] * 2 * STAGES
    shared = "#tl.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"
    assert all(str(o.operands[0].type).endswith(f", {shared}>") for o in loads)


def test_unaligned_rows_stay_synchronous() -> None:
    """Without the hints, rows of A and B may start anywhere: no copy of 4 bytes or more is
    possible and the loop is left alone."""
    module = parse((EXAMPLES / "matmul.mlir").read_text())
    apply_pipeline(module, f"llc-pipeline{{num-stages={STAGES}}}")
    assert not any(o.name.startswith("tl.async") for o in module.walk())


def test_a_mask_that_varies_along_the_row_makes_synchronous_copies() -> None:
    """A's K-tail bound unhinted (``M - k`` here): the mask may change at any element, so the
    lowering copies A two bytes at a time with ``ld.global`` + ``st.shared`` (no ``cp.async``
    moves 2 bytes), visible after the same wait and barrier; B still gets ``cp.async``."""
    text = _hinted("matmul").replace("%k_left = arith.subi %K, %k", "%k_left = arith.subi %M, %k")
    values = _matmul_args(50, 48, 80, False)
    want = run_tensor_level(parse(text), "matmul_kernel", values)
    module = parse(text)
    apply_pipeline(module, f"llc-pipeline{{num-stages={STAGES}}},llc-lower-to-simt")
    names = [o.name for o in module.walk()]
    assert names.count("simt.cp_async") == 2 * STAGES  # B only
    assert names.count("simt.shared_store") >= 16 * STAGES  # A, one f16 per store
    run = simt_runner("matmul_kernel", values)
    _close(run(module), want)
    missed = [n for n, c in delete_each_sync(module, run) if not c]
    assert not missed, f"deleting {missed} changes nothing"


@pytest.mark.parametrize("name", ["matmul", "matmul_epilogue", "flash_attention"])
def test_pipelined_ttgir_compiles_in_triton(name: str, tmp_path: Path) -> None:
    """``llc-pipeline``'s output exported with ``-t ttgir`` is Triton 3.9's own form (a ring
    of 3 slots typed with the slot's rank-2 shared layout, mutable slot views, transposed
    views): Triton parses, verifies and compiles it to PTX with the same copies, commits and
    waits (the loop's, then the peeled iterations')."""
    pytest.importorskip("triton", reason="Triton is not installed (pip install triton)")
    import os
    import subprocess
    import sys

    from llc.passes.targets.ttgir import module_to_ttgir

    module = parse(_hinted(name))
    apply_pipeline(module, f"llc-pipeline{{num-stages={STAGES}}}")
    path = tmp_path / f"{name}.ttgir"
    path.write_text(module_to_ttgir(module))
    script = (
        "import sys, triton\n"
        "from triton.backends.compiler import GPUTarget\n"
        "k = triton.compile(sys.argv[1], target=GPUTarget('cuda', 80, 32))\n"
        "sys.stdout.write(k.asm['ptx'])\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script, str(path)],
        capture_output=True,
        text=True,
        env=dict(os.environ, TRITON_DEFAULT_FP_FUSION="1"),
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    ptx = run.stdout
    assert ptx.count("cp.async.commit_group;") == STAGES
    waits = [int(n) for n in re.findall(r"cp\.async\.wait_group\s+(\d+);", ptx)]
    assert waits == [STAGES - 2, *range(STAGES - 2, -1, -1)]
    assert "ldmatrix" in ptx
