"""Every barrier the lowering emits earns its place (issue 19).

For the nine examples and the generated kernels of ``test_lower_to_simt`` (the same
``LLC_LOWERED_KERNELS`` seeds, compiled once per process), each ``gpu.barrier`` of the
``llc-compile`` output is deleted alone; the SIMT interpreter must then report a race (or an
uninitialized read) or the outputs must change. The run records how many barriers it deleted and
how many were caught; ``test/unit/conftest.py`` prints the totals at the end of the run.

Also: :mod:`llc.passes.barriers` on small hand-built functions (which barrier orders what), and
the race across loop iterations that the per-iteration buffers of the old interpreter hid.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from example_runs import example_case, example_runner
from xdsl.dialects import arith, func, gpu, scf
from xdsl.dialects.builtin import IndexType, VectorType, f32
from xdsl.ir import Block, Operation, Region

from llc.dialects import simt
from llc.passes.barriers import barrier_needed, prune_barriers
from llc.testing.barrier_deletion import (
    Deletion,
    delete_each_barrier,
    lowered_generated_kernel,
    run_generated,
)
from llc.testing.kernel_gen import generate_kernel

ROOT = Path(__file__).resolve().parents[2]
NUM_KERNELS = int(os.environ.get("LLC_LOWERED_KERNELS", "100"))
EXAMPLES = sorted(p.stem for p in (ROOT / "examples").glob("*.mlir"))


def _record(request: pytest.FixtureRequest, name: str, deletions: list[Deletion]) -> None:
    caught = sum(bool(d.caught) for d in deletions)
    request.node.user_properties.append(("barriers_deleted", len(deletions)))
    request.node.user_properties.append(("barriers_caught", caught))
    missed = [d for d in deletions if not d.caught]
    assert not missed, (
        f"{name}: deleting barrier #{missed[0].index} (after {missed[0].after}) changes nothing: "
        f"the lowering should not emit it ({caught} of {len(deletions)} deletions caught)"
    )


# --------------------------------------------------------------------------------------
# The deletion test
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_barrier_of_an_example_is_needed(
    name: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    from llc.testing.semantics import apply_pipeline, parse

    module = parse((ROOT / "examples" / "ttir" / f"{name}.mlir").read_text())
    apply_pipeline(module, "llc-compile")
    case, entry = example_case(name, tmp_path)
    _record(request, name, delete_each_barrier(module, example_runner(case, entry)))


def test_every_barrier_of_a_gather_in_a_loop_is_needed(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """``test/lit/lower``'s 1-D gather in a two-round loop goes through shared memory: the
    barrier between its stores and loads, and the trailing one that keeps the next round's
    stores behind this round's loads."""
    from types import SimpleNamespace

    from llc.testing.semantics import apply_pipeline, parse

    path = ROOT / "test" / "lit" / "lower" / "Inputs" / "gather_1d.mlir"
    module = parse(path.read_text())
    apply_pipeline(module, "llc-compile")
    rng = np.random.default_rng(0)
    np.save(tmp_path / "x.npy", rng.standard_normal(256).astype(np.float32))
    np.save(tmp_path / "i.npy", rng.permutation(256).astype(np.int32))
    case = SimpleNamespace(
        args=[str(tmp_path / "x.npy"), str(tmp_path / "i.npy"), "zeros:256xf32"], grid="1"
    )
    deletions = delete_each_barrier(module, example_runner(case, "gather_1d"))
    assert len(deletions) == 2
    _record(request, "gather_1d", deletions)


def test_every_barrier_of_a_conversion_in_a_loop_is_needed(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """``test/lit/lower``'s conversion across warps in a two-round loop goes through shared
    memory: the barrier between its stores and loads, and the trailing one that keeps the next
    round's stores behind this round's loads (the generated kernels no longer all reach one)."""
    from types import SimpleNamespace

    from llc.testing.semantics import apply_pipeline, parse

    path = ROOT / "test" / "lit" / "lower" / "Inputs" / "convert_loop.mlir"
    module = parse(path.read_text())
    apply_pipeline(module, "llc-lower-to-simt")
    np.save(tmp_path / "x.npy", np.random.default_rng(1).standard_normal(512).astype(np.float32))
    case = SimpleNamespace(args=[str(tmp_path / "x.npy"), "zeros:512xf32"], grid="1")
    deletions = delete_each_barrier(module, example_runner(case, "convert_loop"))
    assert len(deletions) == 2
    _record(request, "convert_loop", deletions)


def test_every_barrier_of_a_scan_in_a_loop_is_needed(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """``test/lit/lower``'s cumulative sums in a two-round loop, then a reversed running maximum:
    each scan crosses the 4 warps through its shared buffer of warp totals. The barrier between
    the totals' stores and loads (in the loop and after it), and the loop's trailing one that keeps
    the next round's stores behind this round's loads."""
    from types import SimpleNamespace

    from llc.testing.semantics import apply_pipeline, parse

    path = ROOT / "test" / "lit" / "lower" / "Inputs" / "scan_loop.mlir"
    module = parse(path.read_text())
    apply_pipeline(module, "llc-compile")
    rng = np.random.default_rng(0)
    # small integers: the sums are exact in any order, so only a race can change them
    np.save(tmp_path / "x.npy", rng.integers(-3, 4, 512).astype(np.float32))
    case = SimpleNamespace(args=[str(tmp_path / "x.npy"), "zeros:512xf32"], grid="1")
    deletions = delete_each_barrier(module, example_runner(case, "scan_loop"))
    assert len(deletions) == 3
    _record(request, "scan_loop", deletions)


@pytest.mark.parametrize(
    "seed",
    [pytest.param(s, marks=pytest.mark.xdist_group(f"kernel{s}")) for s in range(NUM_KERNELS)],
)
def test_every_barrier_of_a_generated_kernel_is_needed(
    seed: int, request: pytest.FixtureRequest
) -> None:
    module = lowered_generated_kernel(seed)
    if not any(isinstance(o, gpu.BarrierOp) for o in module.walk()):
        request.node.user_properties.append(("barriers_deleted", 0))
        return
    entry = generate_kernel(seed).entry
    _record(request, f"kernel {seed}", delete_each_barrier(module, run_generated(entry)))


def test_the_examples_have_barriers_to_delete() -> None:
    """The deletion test is not vacuous: the examples' cross-warp reductions, conversions and
    shared-memory operands keep barriers."""
    from llc.testing.semantics import apply_pipeline, parse

    count = 0
    for name in ("softmax", "matmul", "colsum"):
        module = parse((ROOT / "examples" / "ttir" / f"{name}.mlir").read_text())
        apply_pipeline(module, "llc-compile")
        count += sum(isinstance(o, gpu.BarrierOp) for o in module.walk())
    assert count >= 6


# --------------------------------------------------------------------------------------
# llc.passes.barriers on hand-built functions
# --------------------------------------------------------------------------------------

V = VectorType(f32, [1])


class _Builder:
    """Straight-line SIMT code: ``st(m)`` stores to buffer ``m``, ``ld(m)`` loads, ``bar()``."""

    def __init__(self, buffers: int) -> None:
        self.c0 = arith.ConstantOp.from_int_and_width(0, IndexType())
        self.allocs = [simt.SharedAllocOp(64, 16) for _ in range(buffers)]
        self.ops: list[Operation] = [self.c0, *self.allocs]
        self.barriers: list[gpu.BarrierOp] = []

    def st(self, m: int, into: list[Operation] | None = None) -> None:
        (into if into is not None else self.ops).append(
            simt.SharedStoreOp(self.f, self.allocs[m].results[0], self.c0.results[0])
        )

    def ld(self, m: int, into: list[Operation] | None = None) -> None:
        (into if into is not None else self.ops).append(
            simt.SharedLoadOp(self.allocs[m].results[0], self.c0.results[0], V)
        )

    def bar(self, into: list[Operation] | None = None) -> gpu.BarrierOp:
        b = gpu.BarrierOp()
        self.barriers.append(b)
        (into if into is not None else self.ops).append(b)
        return b

    def loop(self, body: list[Operation]) -> None:
        lb = arith.ConstantOp.from_int_and_width(0, IndexType())
        ub = arith.ConstantOp.from_int_and_width(2, IndexType())
        block = Block(arg_types=[IndexType()])
        block.add_ops([*body, scf.YieldOp()])
        self.ops += [lb, ub, scf.ForOp(lb, ub, ub, [], Region(block))]

    def function(self) -> func.FuncOp:
        block = Block(arg_types=[V])
        self.f = block.args[0]
        return func.FuncOp("f", ([V], []), Region(block))


def _function(build: Any) -> tuple[func.FuncOp, list[gpu.BarrierOp]]:
    b = _Builder(2)
    fn = b.function()
    build(b)
    fn.body.block.add_ops([*b.ops, func.ReturnOp()])
    fn.verify()
    return fn, b.barriers


def _needed(fn: func.FuncOp, barriers: list[gpu.BarrierOp]) -> list[bool]:
    return [barrier_needed(fn, x) for x in barriers]


def test_exchange_outside_a_loop_needs_only_its_middle_barrier() -> None:
    def build(b: _Builder) -> None:
        b.bar()  # before the first store of a fresh buffer: orders nothing
        b.st(0)
        b.bar()
        b.ld(0)
        b.bar()  # trailing: nothing touches the buffer afterwards

    fn, barriers = _function(build)
    assert _needed(fn, barriers) == [False, True, False]
    assert prune_barriers(fn) == 2


def test_exchange_in_a_loop_keeps_its_trailing_barrier() -> None:
    """The next iteration's store to the same (static) buffer must wait for this one's loads."""

    def build(b: _Builder) -> None:
        body: list[Operation] = []
        b.st(0, body)
        b.bar(body)
        b.ld(0, body)
        b.bar(body)
        b.loop(body)

    fn, barriers = _function(build)
    assert _needed(fn, barriers) == [True, True]


def test_two_exchanges_in_a_loop_share_the_wrap_around_barrier() -> None:
    """Each exchange's middle barrier keeps the other exchange's loads before its next stores
    (the second's in this iteration, the first's in the next): neither trailing barrier is
    needed."""

    def build(b: _Builder) -> None:
        body: list[Operation] = []
        for m in (0, 1):
            b.st(m, body)
            b.bar(body)
            b.ld(m, body)
            b.bar(body)
        b.loop(body)

    fn, barriers = _function(build)
    assert prune_barriers(fn) == 2
    left = [x for x in barriers if x.parent is not None]
    assert left == [barriers[0], barriers[2]]


def test_redundant_neighbours_do_not_both_go() -> None:
    def build(b: _Builder) -> None:
        b.st(0)
        b.bar()
        b.bar()
        b.ld(0)

    fn, barriers = _function(build)
    assert _needed(fn, barriers) == [False, False]  # each alone is redundant...
    assert prune_barriers(fn) == 1  # ...but one must stay
    assert sum(isinstance(o, gpu.BarrierOp) for o in fn.walk()) == 1


def test_reads_only_need_no_barrier() -> None:
    def build(b: _Builder) -> None:
        b.ld(0)
        b.bar()
        b.ld(0)
        b.st(1)
        b.bar()
        b.ld(0)

    fn, barriers = _function(build)
    assert _needed(fn, barriers) == [False, False]


def test_a_race_across_iterations_is_a_located_llc_run_error(tmp_path: Path) -> None:
    """Without the gather's trailing barrier, ``llc-run`` reports the second iteration's store
    at its ``file:line:col``, in one line and without a traceback."""
    import subprocess

    from llc.testing.semantics import apply_pipeline, parse

    module = parse((ROOT / "test" / "lit" / "lower" / "Inputs" / "gather_1d.mlir").read_text())
    apply_pipeline(module, "llc-compile")
    lines = str(module).splitlines()
    last = max(i for i, line in enumerate(lines) if "gpu.barrier" in line)
    del lines[last]
    store = next(i for i, line in enumerate(lines) if "simt.shared_store" in line)
    (tmp_path / "k.mlir").write_text("\n".join(lines))
    np.save(tmp_path / "x.npy", np.zeros(256, np.float32))
    np.save(tmp_path / "i.npy", np.arange(256, dtype=np.int32)[::-1].copy())
    cmd = [sys.executable, "-m", "llc.tools.run", "k.mlir", "--args", "x.npy", "i.npy"]
    proc = subprocess.run(
        [*cmd, "zeros:256xf32"], capture_output=True, text=True, check=False, cwd=tmp_path
    )
    assert proc.returncode == 1
    assert f"k.mlir:{store + 1}:" in proc.stderr, proc.stderr
    assert "simt.shared_store" in proc.stderr and "race" in proc.stderr
    assert "Traceback" not in proc.stderr
