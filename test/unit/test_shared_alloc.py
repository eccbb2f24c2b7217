"""Shared-memory allocation (:mod:`llc.passes.shared_alloc`, issue 21): live intervals, offsets,
reuse barriers, the one arena in the PTX and in the SIMT interpreter.

* offsets: buffers whose intervals meet never share a byte, ones that do not meet may, every
  offset keeps its buffer's alignment (a drawn sweep and hand-picked cases);
* intervals: a buffer used inside a loop lives through the loop, a conversion's scratch only
  around its op, accesses in both branches of an ``scf.if`` lift to the ``scf.if``, a use the
  analysis does not know keeps the buffer for the whole function;
* the reuse barrier: on the matmul-epilogue example compiled for ``cuda:90``, the barrier
  between the operand buffers' last reads and the epilogue conversion's scratch (placed over
  them) is needed only because they share bytes, the barrier analysis sees it, and deleting it
  is a race the SIMT interpreter reports (the pipelined kernels' reuse barriers are among
  those ``test_pipeline``'s and ``test_hopper_backend``'s deletion tests delete);
* the PTX declares one arena (Triton's hinted matmul at sm_90, 3 stages: 24 KiB, Triton's).
"""

from __future__ import annotations

import functools
import random
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import arith, func, gpu, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, VectorType, f32, i1
from xdsl.ir import Block, Operation, Region

from llc.dialects import simt
from llc.dialects.simt_interpreter import SimtRaceError
from llc.passes.barriers import barrier_needed
from llc.passes.shared_alloc import Buffer, allocate_shared, assign_offsets, live_intervals

sys.path.insert(0, str(Path(__file__).resolve().parent))


# --------------------------------------------------------------------------------------
# Offsets
# --------------------------------------------------------------------------------------


def _check_placement(buffers: list[Buffer], offsets: list[int]) -> None:
    for i, (a, oa) in enumerate(zip(buffers, offsets, strict=True)):
        assert oa % a.align == 0, f"buffer {i} at {oa} is not {a.align}-aligned"
        for j in range(i):
            b, ob = buffers[j], offsets[j]
            if a.meets(b):
                assert oa + a.size <= ob or ob + b.size <= oa, f"live buffers {j}, {i} overlap"


def test_offsets_overlap_only_when_intervals_are_disjoint() -> None:
    rng = random.Random(21)
    shared = 0
    for _ in range(300):
        buffers = []
        for _ in range(rng.randint(1, 7)):
            start = rng.randint(0, 30)
            buffers.append(
                Buffer(
                    16 * rng.randint(1, 64),
                    rng.choice([16, 128, 512, 1024]),
                    start,
                    start + rng.randint(0, 10),
                )
            )
        offsets = assign_offsets(buffers)
        _check_placement(buffers, offsets)
        total = max(o + b.size for o, b in zip(offsets, buffers, strict=True))
        shared += total < sum(b.size for b in buffers)
    assert shared > 100  # reuse happens: most drawn sets need less than their sum


def test_dead_buffers_share_and_alignment_holds() -> None:
    # the rings (live through the loop, ops 2-9), then the epilogue's scratch (ops 11-14)
    ring_a, ring_b = Buffer(12288, 512, 2, 9), Buffer(12288, 1024, 2, 9)
    scratch = Buffer(8192, 16, 11, 14)
    assert assign_offsets([ring_a, ring_b, scratch]) == [0, 12288, 0]
    # a 16-byte aligned buffer first at 0 pushes a 1024-aligned one live with it to 1024
    assert assign_offsets([Buffer(2048, 16, 0, 5), Buffer(1024, 1024, 0, 5)]) == [0, 2048]
    assert assign_offsets([Buffer(100, 16, 0, 5), Buffer(1024, 1024, 0, 5)]) == [1024, 0]
    assert assign_offsets([Buffer(1024, 1024, 0, 5), Buffer(100, 1024, 1, 2)]) == [0, 1024]


def test_allocate_shared_keeps_each_buffers_alignment() -> None:
    """A swizzled operand (1024-byte period) live with a 2064-byte buffer goes to 3072, not
    2064: the swizzle xors absolute address bits."""
    c0 = arith.ConstantOp.from_int_and_width(0, _IDX)
    plain, swizzled = simt.SharedAllocOp(2064, 16), simt.SharedAllocOp(1024, 1024)
    block = Block()
    block.add_ops([c0, plain, swizzled, _load(plain, c0), _load(swizzled, c0), _load(plain, c0)])
    block.add_op(func.ReturnOp())
    fn = func.FuncOp("k", ([], []), Region(block))
    assert allocate_shared(fn) == 4096
    assert [plain.byte_range, swizzled.byte_range] == [(0, 2064), (3072, 4096)]
    swizzled.verify()


# --------------------------------------------------------------------------------------
# Live intervals on hand-built functions
# --------------------------------------------------------------------------------------

_IDX = IndexType()
_V = VectorType(f32, [1])


def _store(mem: Operation, addr: Operation, value: Operation) -> Operation:
    return simt.SharedStoreOp(value.results[0], mem.results[0], addr.results[0])


def _load(mem: Operation, addr: Operation) -> Operation:
    return simt.SharedLoadOp(mem.results[0], addr.results[0], _V)


def _loop_function() -> tuple[func.FuncOp, dict[str, Operation]]:
    """ring (written before the loop, read in it), two scratch buffers (each stored then loaded
    in the loop body, one after the other), after (used after the loop)."""
    c0 = arith.ConstantOp.from_int_and_width(0, _IDX)
    c1 = arith.ConstantOp.from_int_and_width(1, _IDX)
    c4 = arith.ConstantOp.from_int_and_width(4, _IDX)
    ring, first, second, after = (simt.SharedAllocOp(n, 16) for n in (4096, 1024, 512, 4096))
    vec = simt.SharedLoadOp(ring.results[0], c0.results[0], _V)  # a vector value to store
    body = Block(arg_types=[_IDX])
    body.add_ops(
        [
            _load(ring, c0),
            _store(first, c0, vec),
            gpu.BarrierOp(),
            _load(first, c0),
            gpu.BarrierOp(),
            _store(second, c0, vec),
            gpu.BarrierOp(),
            _load(second, c0),
            scf.YieldOp(),
        ]
    )
    loop = scf.ForOp(c0.results[0], c4.results[0], c1.results[0], [], Region(body))
    block = Block()
    before = [c0, c1, c4, ring, first, second, after, vec, _store(ring, c0, vec)]
    block.add_ops([*before, loop, _store(after, c0, vec), _load(after, c0), func.ReturnOp()])
    fn = func.FuncOp("k", ([], []), Region(block))
    return fn, {"ring": ring, "first": first, "second": second, "after": after, "loop": loop}


def test_a_loop_keeps_carried_buffers_and_scratch_lives_at_its_op() -> None:
    fn, ops = _loop_function()
    ring, first, second, loop = ops["ring"], ops["first"], ops["second"], ops["loop"]
    numbers = {op: n for n, op in enumerate(o for o in fn.walk() if o is not fn)}
    body = list(loop.regions[0].block.ops)
    got = live_intervals(fn, {first, second})
    # the ring from its first access before the loop to the loop's end; each scratch from its
    # store to its load, inside the body
    assert got[ring] == (numbers[loop] - 2, numbers[body[-1]])
    assert got[first] == (numbers[body[1]], numbers[body[3]])
    assert got[second] == (numbers[body[5]], numbers[body[7]])
    # not known as scratch: it may carry data round the back edge, so it lives through the loop
    assert live_intervals(fn)[first] == (numbers[loop], numbers[body[-1]])
    size = allocate_shared(fn, {first, second})
    offset = {k: o.offset.value.data for k, o in ops.items() if isinstance(o, simt.SharedAllocOp)}
    # the two scratch buffers share bytes beside the ring; the buffer after the loop reuses the
    # ring's
    assert offset == {"ring": 0, "first": 4096, "second": 4096, "after": 0}
    assert size == 4096 + 1024
    # the second scratch reuses the first's bytes after the barrier already between them; the
    # first reuses the second's round the back edge: a barrier before it
    assert [o.name for o in body[:2]] == ["simt.shared_load", "simt.shared_store"]
    assert [o.name for o in loop.regions[0].block.ops][1] == "gpu.barrier"


def test_both_branches_of_an_if_lift_to_the_if_and_unknown_uses_keep_the_function() -> None:
    c0 = arith.ConstantOp.from_int_and_width(0, _IDX)
    cond = arith.ConstantOp(IntegerAttr(1, i1))
    mem, other = simt.SharedAllocOp(64, 16), simt.SharedAllocOp(64, 16)
    then, orelse = Block(), Block()
    then.add_ops([_load(mem, c0), scf.YieldOp()])
    orelse.add_ops([_load(mem, c0), scf.YieldOp()])
    branch = scf.IfOp(cond.results[0], [], Region(then), Region(orelse))
    call = func.CallOp("g", [other.results[0]], [])
    block = Block()
    block.add_ops([c0, cond, mem, other, branch, call, func.ReturnOp()])
    fn = func.FuncOp("k", ([], []), Region(block))
    got = live_intervals(fn)
    numbers = {op: n for n, op in enumerate(o for o in fn.walk() if o is not fn)}
    assert got[mem] == (numbers[branch], numbers[branch] + 4)  # the if and its four ops
    assert got[other] == (0, len(numbers) - 1)


# --------------------------------------------------------------------------------------
# The reuse barrier on the matmul example (cuda:90)
# --------------------------------------------------------------------------------------


def _reuse_barriers(fn: func.FuncOp) -> list[gpu.BarrierOp]:
    """The barriers needed only because two buffers share bytes: needed with the offsets, not
    with each buffer on its own."""
    allocs = [o for o in fn.walk() if isinstance(o, simt.SharedAllocOp)]
    barriers = [o for o in fn.walk() if isinstance(o, gpu.BarrierOp)]
    with_offsets = {b: barrier_needed(fn, b) for b in barriers}
    saved = [a.offset for a in allocs]
    for a in allocs:
        a.offset = None
    try:
        alone = {b: barrier_needed(fn, b) for b in barriers}
    finally:
        for a, o in zip(allocs, saved, strict=True):
            a.offset = o
    return [b for b in barriers if with_offsets[b] and not alone[b]]


def test_deleting_the_reuse_barrier_is_a_race() -> None:
    """Triton's matmul-epilogue on cuda:90, pipelined: the epilogue's conversion scratch lies
    over the dead operand rings; a barrier that is needed only because they share bytes (the
    barrier analysis sees it with the offsets, not without) is there, and deleting it is a
    race the interpreter reports."""
    compiled, run = _pipelined_epilogue()
    fn = next(o for o in compiled.walk() if isinstance(o, func.FuncOp))
    ranges = sorted(o.byte_range for o in fn.walk() if isinstance(o, simt.SharedAllocOp))  # type: ignore[type-var]
    assert ranges[0][0] == ranges[1][0] == 0  # two buffers over the same bytes
    reuse = _reuse_barriers(fn)
    assert reuse
    run(compiled)  # with every barrier: no race
    for barrier in reuse:
        block, after = barrier.parent_block(), barrier.next_op
        assert block is not None and after is not None
        barrier.detach()
        try:
            with pytest.raises(SimtRaceError, match="race"):
                run(compiled)
        finally:
            block.insert_op_before(barrier, after)


TRITON_3_STAGE_SHARED = {
    "matmul": 24576,
    "flash_attention": 57344,
    "matmul_i8_f16": 16384,
    "matmul_fp8": 32768,
}
"""``metadata.shared`` of Triton 3.9's kernels of ``bench/dump_triton.py``'s fixtures at sm_90,
``num_stages = 3``, pointers and strides hinted divisible by 16 (``bench/hopper_ptx.py``)."""
_HOPPER: dict[str, object] = {}


def _hopper_fixture(name: str) -> object:
    """The fixture's hinted TTIR through ``llc-compile`` for sm_90 (cached)."""
    if name not in _HOPPER:
        from llc.dialects.ttgir import HardwareDefaults, parse_triton_module
        from llc.testing.semantics import apply_pipeline
        from llc.testing.triton_fixtures import FIXTURES, hinted

        ttir = hinted((FIXTURES / f"{name}.sm90.ttir").read_text())
        defaults = HardwareDefaults(4, 32, "cuda:90")  # every kernel of the table: 4 warps
        module = parse_triton_module(ttir, f"{name}.sm90.ttir", defaults)
        apply_pipeline(module, "llc-compile")
        _HOPPER[name] = module
    return _HOPPER[name]


@pytest.mark.parametrize("name", list(TRITON_3_STAGE_SHARED))
def test_hopper_kernels_need_no_more_shared_memory_than_triton(name: str) -> None:
    """The arena of each kernel is at most Triton's 3-stage figure: the epilogue's scratch over
    the dead rings (matmul, flash attention), i8's A in a ring of 2 slots beside B's 3 (i8 x
    f16: Triton's 16384), and fp8's B (stored transposed, K-major, for wgmma: one-byte runs no
    ``cp.async`` moves) left out of the pipeline, staged once per iteration as Triton does. ptxas
    assembles each for sm_90a with no output."""
    from llc.passes.shared_alloc import arena_bytes

    module = _hopper_fixture(name)
    fn = next(o for o in module.walk() if isinstance(o, func.FuncOp))  # type: ignore[attr-defined]
    assert arena_bytes(fn) <= TRITON_3_STAGE_SHARED[name]
    rings = [
        o.result.type.size.data  # type: ignore[attr-defined]
        for o in fn.walk()
        if isinstance(o, simt.SharedAllocOp)
        and any(u.operation.name == "simt.cp_async" for u in o.result.uses)
    ]
    assert rings, "the operands are pipelined"
    from llc.passes.targets.ptx import emit_ptx
    from llc.testing.ptxas import assemble, find_ptxas

    ptx = emit_ptx(module)  # type: ignore[arg-type]
    if find_ptxas() is not None:  # no C7515: no register the wgmma pipeline owns is moved
        assert assemble(ptx, "sm_90a") == "", name


def test_peeled_products_stay_in_flight_unless_their_iteration_stages_an_operand() -> None:
    """The pipelined matmul's peeled iterations leave their products in flight: one
    ``simt.wgmma_wait_group`` in the loop and one after them. fp8's B is staged by each
    iteration (a buffer of its own, not a ring slot): there each peeled iteration waits, so the
    next one's staging buffer reuses the same bytes (one 8 KiB buffer, not one per peel)."""
    waits = {
        name: sum(isinstance(o, simt.WgmmaWaitGroupOp) for o in _hopper_fixture(name).walk())  # type: ignore[attr-defined]
        for name in ("matmul", "matmul_fp8")
    }
    assert waits == {"matmul": 2, "matmul_fp8": 3}
    staged = [
        o.byte_range
        for o in _hopper_fixture("matmul_fp8").walk()  # type: ignore[attr-defined]
        if isinstance(o, simt.SharedAllocOp)
        and any(u.operation.name == "simt.shared_store" for u in o.result.uses)
    ]
    assert len(staged) == 3 and len(set(staged)) == 1, staged


def test_the_ptx_declares_one_arena() -> None:
    from llc.passes.targets.ptx import emit_ptx

    ptx = emit_ptx(_hopper_fixture("matmul"))  # type: ignore[arg-type]
    # two rings of 3 slots (12 KiB each), the epilogue's 8 KiB scratch over the first
    assert ptx.count(".shared .align") == 1
    assert "\t.shared .align 1024 .b8 __llc_smem[24576];" in ptx
    assert "__llc_smem+12288;" in ptx


def test_the_interpreter_runs_placed_buffers_in_one_arena() -> None:
    """Two buffers over the same bytes: a load through one sees a store through the other, and
    without a barrier between them it is a race."""
    from llc.dialects.simt_interpreter import make_simt_interpreter

    c0 = arith.ConstantOp.from_int_and_width(0, _IDX)
    a, b = simt.SharedAllocOp(64, 16, offset=0), simt.SharedAllocOp(64, 16, offset=0)
    tid = gpu.ThreadIdOp(gpu.DimensionAttr(gpu.DimensionEnum.X))
    four = arith.ConstantOp.from_int_and_width(4, _IDX)
    addr = arith.MuliOp(tid.results[0], four.results[0])

    def build(barrier: bool) -> func.FuncOp:
        block = Block(arg_types=[_V])
        store = simt.SharedStoreOp(block.args[0], a.results[0], addr.results[0])
        flipped = arith.XOrIOp(addr.results[0], four.results[0])
        load = simt.SharedLoadOp(b.results[0], flipped.results[0], _V)
        ops = [c0, a, b, tid, four, addr, store, flipped, load, func.ReturnOp(load.results[0])]
        if barrier:
            ops.insert(7, gpu.BarrierOp())
        for o in ops:
            if o.parent is not None:
                o.detach()
        block.add_ops(ops)
        return func.FuncOp("f", ([_V], [_V]), Region(block))

    from xdsl.dialects.builtin import ModuleOp

    values = np.arange(2, dtype=np.float32).view(np.uint32)[:, None] + 0
    fn = build(barrier=True)
    interp, _ = make_simt_interpreter(ModuleOp([fn]), 1, 2)
    (out,) = interp.call_op("f", (values,))
    assert out[:, 0].tolist() == values[::-1, 0].tolist()  # b's bytes are a's
    fn.detach()
    fn = build(barrier=False)
    interp, _ = make_simt_interpreter(ModuleOp([fn]), 1, 2)
    with pytest.raises(SimtRaceError, match="race"):
        interp.call_op("f", (values,))


EPILOGUE_SHAPE = (128, 128, 144)
"""m, n, k of the pipelined matmul-epilogue runs: 5 K steps (a masked tail), 3 in the loop, 2
peeled."""

ONE_TRIP_K = 32
"""A second K for the deletion test: one K step, so the loop runs none and only the first
peeled iteration runs (the paths where its wgmma group is the last one in flight)."""


def _epilogue_module() -> ModuleOp:
    """Triton's matmul-epilogue TTIR, pointers and strides hinted divisible by 16 (as Triton's
    launcher specializes them), read for cuda:90."""
    from llc.dialects.ttgir import HardwareDefaults, parse_triton_module
    from llc.testing.triton_fixtures import FIXTURES, hinted

    ttir = hinted((FIXTURES / "matmul_epilogue.sm90.ttir").read_text())
    return parse_triton_module(ttir, "matmul_epilogue", HardwareDefaults(4, 32, "cuda:90"))


def _run_epilogue(mod: ModuleOp, k: int = EPILOGUE_SHAPE[2]) -> dict[str, np.ndarray]:
    """Program (1, 0) of the :data:`EPILOGUE_SHAPE` problem (K = ``k``), at the tensor level or
    lowered."""
    from llc.testing.triton_fixtures import run_matmul_epilogue

    return {"c": run_matmul_epilogue(mod, *EPILOGUE_SHAPE[:2], k)}


@functools.cache
def _pipelined_epilogue() -> tuple[ModuleOp, Callable[[ModuleOp], dict[str, np.ndarray]]]:
    """:func:`_epilogue_module` through ``llc-compile`` (3-stage ``cp.async`` rings that wgmma
    reads through descriptors, the epilogue's scratch over the dead rings), and its runner
    (cached: the tests that delete ops put them back)."""
    from llc.testing.semantics import apply_pipeline

    compiled = _epilogue_module()
    apply_pipeline(compiled, "llc-compile")
    return compiled, _run_epilogue


def _ring_allocs(fn: func.FuncOp) -> list:
    """The results of the ``simt.shared_alloc`` ops that ``simt.cp_async`` copies fill."""
    return [
        o.result
        for o in fn.walk()
        if isinstance(o, simt.SharedAllocOp)
        and any(u.operation.name == "simt.cp_async" for u in o.result.uses)
    ]


def test_pipelined_wgmma_kernel_runs_like_the_tensor_level_and_needs_every_sync() -> None:
    """The pipelined matmul-epilogue (:func:`_pipelined_epilogue`) gives the tensor level's
    buffers, and deleting any barrier, ``fence.proxy.async``, wgmma fence/commit/wait or
    ``cp.async`` commit/wait, one at a time, is reported or changes the output."""
    from llc.testing.barrier_deletion import SYNC_OPS, delete_each_sync_on_either

    compiled, run = _pipelined_epilogue()
    names = [o.name for o in compiled.walk()]
    # the loop and its two peeled iterations: one wgmma pair each
    assert names.count("simt.cp_async") >= 6 and names.count("simt.wgmma") == 6
    fn = next(o for o in compiled.walk() if isinstance(o, func.FuncOp))
    allocs = sorted(o.byte_range for o in fn.walk() if isinstance(o, simt.SharedAllocOp))  # type: ignore[type-var]
    assert allocs[0][0] == allocs[1][0] == 0  # the epilogue's scratch over the first ring
    want, got = run(_epilogue_module()), run(compiled)
    assert np.count_nonzero(want["c"]) > 4000
    np.testing.assert_allclose(got["c"], want["c"], rtol=2e-3, atol=2e-3)
    kinds = (*SYNC_OPS, "simt.cp_async_commit_group", "simt.cp_async_wait_group")
    # Every sync op orders something on some path. The peeled iterations leave their products
    # in flight and one wgmma wait after them retires all: at 5 K steps (both peeled
    # iterations run) only the first one's commit may go (the second's commit would close its
    # group too); with one K step (ONE_TRIP_K: the second does not run) that commit is needed.
    # A commit deferred past the scf.if makes ptxas inject a warpgroup.arrive (C7519).
    one_trip = _run_epilogue(_epilogue_module(), ONE_TRIP_K)["c"]
    np.testing.assert_allclose(
        _run_epilogue(compiled, ONE_TRIP_K)["c"], one_trip, rtol=2e-3, atol=2e-3
    )
    long, both = delete_each_sync_on_either(
        compiled, (run, lambda m: _run_epilogue(m, ONE_TRIP_K)), kinds
    )
    syncs = [o for o in compiled.walk() if o.name in kinds]
    first_peeled = next(o for o in fn.body.block.ops if isinstance(o, scf.IfOp))
    only_long = [
        f"#{d.index} {d.after}"
        for d in long
        if not d.caught and syncs[d.index].parent_op() is not first_peeled
    ]
    assert not only_long, f"at K = {EPILOGUE_SHAPE[2]} deleting {only_long} changes nothing"
    missed = [d.after for d in both if not d.caught]
    assert not missed, f"deleting {missed} changes nothing"
    leaves = [syncs[d.index].name for d in long if not d.caught]
    assert leaves == ["simt.wgmma_commit_group"], leaves
    from llc.passes.shared_alloc import _wgmma_readers

    waits = [o for o in compiled.walk() if isinstance(o, simt.WgmmaWaitGroupOp)]
    assert len(waits) == 2  # the loop's and one after the peeled iterations
    rings = {a.owner for a in _ring_allocs(fn)}
    assert set(_wgmma_readers(waits[-1]) or []) == rings, "the last wait retires both rings' reads"


def _run_i8(module: ModuleOp, k: int) -> dict[str, np.ndarray]:
    """Program (0, 0) of the ``matmul_i8_f16`` fixture on a 64 x 64 x ``k`` problem (i8 A in
    [-8, 8), f16 B, seed 3): the tensor level when ``module`` is not lowered, else the SIMT
    interpreter."""
    from llc.dialects.tl_interpreter import Buffer, Pointer
    from llc.testing.semantics import call_kernel

    rng = np.random.default_rng(3)
    data = {
        "a": rng.integers(-8, 8, 64 * k).astype(np.int8),
        "b": rng.standard_normal(k * 64).astype(np.float16),
        "c": np.zeros(64 * 64, np.float16),
    }
    buffers = {name: Buffer(name, d) for name, d in data.items()}
    args: list[object] = [Pointer(buffers[x], 0) for x in ("a", "b", "c")]
    args += [np.int32(v) for v in (64, 64, k, k, 64, 64)]
    entry = next(o for o in module.walk() if isinstance(o, func.FuncOp))
    call_kernel(module, entry.sym_name.data, args)
    return {"c": buffers["c"].array().astype(np.float32)}


def test_a_ring_read_into_registers_beside_a_wgmma_ring_needs_every_sync() -> None:
    """``matmul_i8_f16`` on cuda:90: A (i8, widened in registers) and B (read by wgmma) are
    both pipelined, as Triton 3.9 does: A's ring has ``num_stages - 1`` slots refilled after
    the reads, B's ``num_stages`` (each with its own slot counters; Triton's 16384 bytes in
    all), and the refill sits behind the wgmma's async-proxy fence, so that fence's barrier
    orders the reads too (Triton's 2 barriers per iteration). It runs like the tensor level at
    5 K steps and at one, and deleting any sync op is reported on one of the two."""
    from llc.testing.barrier_deletion import SYNC_OPS, delete_each_sync_on_either

    module = _hopper_fixture("matmul_i8_f16")
    fn = next(o for o in module.walk() if isinstance(o, func.FuncOp))  # type: ignore[attr-defined]
    rings = sorted(a.type.size.data for a in _ring_allocs(fn))  # type: ignore[attr-defined]
    assert rings == [4096, 12288]  # A: 2 x 64 x 32 i8; B: 3 x 32 x 64 f16
    loop = next(o for o in fn.walk() if isinstance(o, scf.ForOp))
    assert sum(isinstance(o, gpu.BarrierOp) for o in loop.body.block.ops) == 2
    from llc.dialects.ttgir import HardwareDefaults, parse_triton_module
    from llc.testing.triton_fixtures import FIXTURES, hinted

    ttir = hinted((FIXTURES / "matmul_i8_f16.sm90.ttir").read_text())
    source = parse_triton_module(ttir, "i8", HardwareDefaults(4, 32, "cuda:90"))
    for k in (144, 32):
        np.testing.assert_allclose(
            _run_i8(module, k)["c"],
            _run_i8(source, k)["c"],
            rtol=2e-3,
            atol=2e-2,  # type: ignore[arg-type]
        )
    kinds = (*SYNC_OPS, "simt.cp_async_commit_group", "simt.cp_async_wait_group")
    runs = (lambda m: _run_i8(m, 144), lambda m: _run_i8(m, 32))
    _, both = delete_each_sync_on_either(module, runs, kinds)  # type: ignore[arg-type]
    missed = [d.after for d in both if not d.caught]
    assert not missed, f"deleting {missed} changes nothing"
