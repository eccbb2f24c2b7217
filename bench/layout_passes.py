"""Benchmark of layout assignment (issue 8): per example kernel, and scaling with module size.

    python bench/layout_passes.py            # both tables
    python bench/layout_passes.py --sizes 1000,5000,20000

Table 1, per example (``examples/ttir/<name>.mlir``, the layout-free form): conversions in the
hand-written kernel (``examples/<name>.mlir``) and left by ``llc-optimize-layouts``, their total
cost under ``llc.cost`` (cycles per warp), and the pipeline's time (median of 5 runs).

Table 2: the pipeline on generated layout-free modules of about 1k, 5k and 20k ops
(``llc.testing.kernel_gen.generate_large_module``): seconds, microseconds per op and seconds per
pass (``rest`` = canonicalize, CSE, DCE). Flat microseconds per op means no quadratic behaviour.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from llc.dialects.diagnostics import parse_module
from llc.dialects.tl import ConvertLayoutOp, encoding_of, shape_of
from llc.passes.layout_assignment import element_bits, walk_ops
from llc.passes.layout_cost import conversion_cost
from llc.passes.layout_passes import OptimizeLayoutsPass
from llc.testing.kernel_gen import generate_large_module
from llc.tools.run import make_context

ROOT = Path(__file__).resolve().parents[1]
KERNELS = (
    "vector_add", "softmax", "layernorm", "colsum", "transpose",
    "matmul_epilogue", "matmul", "attention", "flash_attention",
)  # fmt: skip


def _conversions(module: ModuleOp) -> tuple[int, float]:
    count, total = 0, 0.0
    for op in walk_ops(module):
        if isinstance(op, ConvertLayoutOp) and op.src.type != op.result.type:
            t = op.src.type
            count += 1
            total += conversion_cost(
                encoding_of(t), encoding_of(op.result.type), shape_of(t), element_bits(t)
            )
    return count, total


def _parse(text: str, name: str) -> tuple[Context, ModuleOp]:
    ctx = make_context()
    return ctx, parse_module(ctx, text, name)


def per_kernel(repeats: int = 5) -> None:
    print(f"{'kernel':<16} {'before':>6} {'cost':>9} {'after':>6} {'cost':>9} {'pass ms':>8}")
    for name in KERNELS:
        hand_text = (ROOT / "examples" / f"{name}.mlir").read_text()
        free_text = (ROOT / "examples" / "ttir" / f"{name}.mlir").read_text()
        before, before_cost = _conversions(_parse(hand_text, name)[1])
        times = []
        for _ in range(repeats):
            ctx, module = _parse(free_text, name)
            start = time.perf_counter()
            OptimizeLayoutsPass().apply(ctx, module)
            times.append(time.perf_counter() - start)
        after, after_cost = _conversions(module)
        ms = statistics.median(times) * 1e3
        print(
            f"{name:<16} {before:>6} {before_cost:>9.0f} {after:>6} {after_cost:>9.0f} {ms:>8.1f}"
        )


def scaling(sizes: list[int], solver: str = "ilp") -> None:
    from xdsl.transforms.canonicalize import CanonicalizePass
    from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
    from xdsl.transforms.dead_code_elimination import DeadCodeElimination

    from llc.passes.layout_passes import (
        AssignAnchorsPass,
        PropagateLayoutsPass,
        RemoveConversionsPass,
        gc_paused,
    )

    stages = (
        AssignAnchorsPass(),
        PropagateLayoutsPass(solver=solver),
        RemoveConversionsPass(solver="staged"),  # as llc-optimize-layouts runs it
        CanonicalizePass(),
        CommonSubexpressionElimination(),
        DeadCodeElimination(),
    )
    print(
        f"{'ops':>7} {'seconds':>8} {'us/op':>7} {'cpu s':>7} {'cpu us/op':>9} {'cvts':>5}  "
        "assign propagate remove  rest"
    )
    for size in sizes:
        ctx, module = _parse(generate_large_module(size, seed=1), f"gen{size}")
        ops = sum(1 for _ in walk_ops(module))
        times = []
        cpu = time.process_time()  # CPU time: what a loaded machine does not inflate
        with gc_paused():  # as OptimizeLayoutsPass runs them
            for stage in stages:
                start = time.perf_counter()
                stage.apply(ctx, module)
                times.append(time.perf_counter() - start)
        cpu = time.process_time() - cpu
        total = sum(times)
        split = f"{times[0]:>7.2f} {times[1]:>9.2f} {times[2]:>6.2f} {sum(times[3:]):>5.2f}"
        cvts = _conversions(module)[0]
        print(
            f"{ops:>7} {total:>8.2f} {total / ops * 1e6:>7.0f} {cpu:>7.2f} {cpu / ops * 1e6:>9.0f} "
            f"{cvts:>5}  {split}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,5000,20000")
    parser.add_argument("--skip-kernels", action="store_true")
    parser.add_argument(
        "--solver", default="ilp", choices=("ilp", "staged"), help="llc-propagate-layouts' solver"
    )
    args = parser.parse_args()
    print(f"date:     {datetime.now(UTC).isoformat(timespec='seconds')}")
    print(f"platform: {platform.platform()}")
    print(f"python:   {platform.python_implementation()} {platform.python_version()}")
    sys.setrecursionlimit(10000)
    if not args.skip_kernels:
        per_kernel()
        print()
    print(f"solver:   {args.solver}")
    scaling([int(s) for s in args.sizes.split(",") if s], args.solver)


if __name__ == "__main__":
    main()
