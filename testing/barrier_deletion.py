"""Every barrier earns its place: delete each ``gpu.barrier`` of a lowered kernel, one at a time,
and see whether the SIMT interpreter notices.

A deletion is *caught* when the interpreter reports a race (or another :class:`SimtError`, e.g. an
uninitialized read) or when some output differs from the run with every barrier. A barrier
whose deletion nobody catches ordered nothing the run could see: the lowering should not have
emitted it (:mod:`llc.passes.barriers` removes such barriers statically).

The lowered generated kernels are cached per process (:func:`lowered_generated_kernel`), so the
tests that lower them share one compilation.

>>> from llc.testing.kernel_gen import generate_kernel
>>> kernel = generate_kernel(0)
>>> module = lowered_generated_kernel(0)
>>> all(d.caught for d in delete_each_barrier(module, run_generated(kernel.entry)))
True
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import gpu
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from llc.dialects.simt_interpreter import SimtError

__all__ = [
    "SYNC_OPS",
    "Deletion",
    "delete_each_barrier",
    "delete_each_sync",
    "delete_each_sync_on_either",
    "lowered_generated_kernel",
    "run_generated",
]

Runner = Callable[[ModuleOp], dict[str, np.ndarray]]
"""Runs a lowered module on fixed inputs; returns its outputs by name."""


@dataclass(frozen=True)
class Deletion:
    """The fate of one deleted barrier: ``index`` among the module's barriers in program order,
    ``after``: the op before it (where it sits), and ``caught``: the interpreter's message,
    ``"outputs changed: NAME"``, or ``""`` when the deletion went unnoticed."""

    index: int
    after: str
    caught: str


@functools.cache
def lowered_generated_kernel(seed: int) -> ModuleOp:
    """The ``llc-compile`` output of :func:`llc.testing.kernel_gen.generate_kernel`'s layout-free
    kernel ``seed`` (cached: one compilation per process; clone it before changing it)."""
    from llc.testing.kernel_gen import generate_kernel
    from llc.testing.semantics import apply_pipeline, parse

    module = parse(generate_kernel(seed).layout_free)
    apply_pipeline(module, "llc-compile")
    module.verify()
    return module


def run_generated(entry: str) -> Runner:
    """A runner for a generated kernel: :func:`llc.testing.semantics.run_module` on seed 0.

    >>> callable(run_generated("kernel"))
    True
    """
    from llc.testing.semantics import run_module

    return lambda module: run_module(module, entry=entry, seed=0)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def delete_each_barrier(
    module: ModuleOp, run: Runner, kinds: tuple[type[Operation], ...] = (gpu.BarrierOp,)
) -> list[Deletion]:
    """For each barrier of the lowered ``module`` (left as it was): delete it alone, run, and
    record whether the run raised a :class:`SimtError` or changed an output (see
    :class:`Deletion`). ``kinds`` widens what counts as a barrier (``test_pipeline`` adds
    ``simt.cp_async_commit_group`` and ``simt.cp_async_wait_group``), in program order."""
    return delete_each_sync(module, run, tuple(kind.name for kind in kinds))


SYNC_OPS = (
    "gpu.barrier",
    "simt.fence_async_shared",
    "simt.wgmma_fence",
    "simt.wgmma_commit_group",
    "simt.wgmma_wait_group",
)
"""The synchronization ops of lowered code: barriers and the wgmma pipeline's fences, commits
and waits (a deleted wait hands its operands, still in flight, to its users)."""


def delete_each_sync(
    module: ModuleOp, run: Runner, kinds: tuple[str, ...] = SYNC_OPS
) -> list[Deletion]:
    """:func:`delete_each_barrier` for every op named in ``kinds`` (program order), one at a
    time; a deleted op's results are replaced by its operands (``simt.wgmma_wait_group``
    returns the accumulators it waited for). ``Deletion.after`` starts with the op's name.

    >>> deletions = delete_each_sync(lowered_generated_kernel(0), run_generated("kernel"))
    >>> all(d.caught and d.after.startswith("gpu.barrier ") for d in deletions)
    True
    """
    reference = run(module)
    out = []
    ops = [op for op in module.walk() if op.name in kinds]
    for index, op in enumerate(ops):
        before = op.prev_op
        after = f"{op.name} after {before.name if before is not None else 'the block start'}"
        block, successor = op.parent_block(), op.next_op
        assert block is not None and successor is not None  # never a terminator
        moved = [
            (result, [(use.operation, use.index) for use in result.uses]) for result in op.results
        ]
        for result, operand in zip(op.results, op.operands, strict=True):
            result.replace_all_uses_with(operand)
        op.detach()  # and back in its place afterwards: cheaper than a copy of the module
        try:
            outputs = run(module)
        except SimtError as err:
            out.append(Deletion(index, after, f"{type(err).__name__} at {err.op.name}: {err}"))
            continue
        finally:
            block.insert_op_before(op, successor)
            for result, uses in moved:
                for user, position in uses:
                    user.operands[position] = result
        changed = [k for k in reference if k not in outputs or not _same(reference[k], outputs[k])]
        out.append(Deletion(index, after, f"outputs changed: {changed[0]}" if changed else ""))
    return out


def delete_each_sync_on_either(
    module: ModuleOp, runs: tuple[Runner, Runner], kinds: tuple[str, ...] = SYNC_OPS
) -> tuple[list[Deletion], list[Deletion]]:
    """:func:`delete_each_sync` with the first runner, then again with the second for the kinds
    of op that run missed (another trip count reaches other paths): the first run's deletions,
    and the deletions with ``caught`` from either run (``index`` and ``after`` as for the first).
    Cheaper than two full sweeps when the first catches most.

    >>> run = run_generated("kernel")
    >>> first, both = delete_each_sync_on_either(lowered_generated_kernel(0), (run, run))
    >>> first == both and all(d.caught for d in both)
    True
    """
    first = delete_each_sync(module, runs[0], kinds)
    again = tuple(
        k for k in kinds if any(not d.caught and d.after.startswith(k + " ") for d in first)
    )
    if not again:
        return first, list(first)
    second = iter(delete_each_sync(module, runs[1], again))
    both = []
    for d in first:
        if d.after.split(" ")[0] in again:
            e = next(second)
            d = Deletion(d.index, d.after, d.caught or e.caught)
        both.append(d)
    return first, both
