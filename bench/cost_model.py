"""Benchmark of the cost model (:func:`llc.cost.conversion_cost`), cold and warm.

The layout passes call ``conversion_cost`` thousands of times per kernel, mostly on pairs they
have seen before. This times, on a fixed suite of realistic conversions (blocked transposes,
blocked <-> mma v2/v3, blocked -> dot_op, slices, warp-local shuffles; f16 and f32):

* **cold, from families**: every cache cleared (costs, conversion analyses, swizzle plans, the
  families' linear layouts and LinearLayout's memo), so each call also builds both linear layouts;
* **cold, from linear layouts**: the same with freshly built (equal, uncached) LinearLayouts
  passed in, i.e. the analysis and the swizzle planning alone;
* **warm**: a repeated call with the same arguments (a cache hit).

It also prints the cost of each conversion (strategy, wavefronts and ideal, total cycles).
Run from the repository root::

    python bench/cost_model.py            # full run
    python bench/cost_model.py --quick    # fewer repeats
"""

from __future__ import annotations

import argparse
import datetime
import platform
import statistics
import sys
import time
import timeit
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from llc.cost import clear_caches, conversion_cost
from llc.layouts import (
    BlockedLayout,
    DotOperandLayout,
    NvidiaMmaLayout,
    SliceLayout,
    clear_linear_layout_cache,
)
from llc.linear_layout import LinearLayout

ROW4 = BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
COL4 = BlockedLayout([4, 1], [4, 8], [1, 4], [0, 1])
ROW8 = BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
COL8 = BlockedLayout([8, 1], [8, 4], [1, 4], [0, 1])
WIDE = BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0])
LANES = BlockedLayout([4, 1], [2, 16], [4, 1], [1, 0])  # the warps of ROW4, lanes differ
MMA2 = NvidiaMmaLayout(2, 0, [2, 2], [16, 8])
MMA2_W4 = NvidiaMmaLayout(2, 0, [4, 1], [16, 8])
MMA3 = NvidiaMmaLayout(3, 0, [4, 1], [16, 128, 16])

SUITE: list[tuple[str, Any, Any, list[int]]] = [
    ("blocked -> transposed blocked", ROW4, COL4, [64, 64]),
    ("blocked v8 -> transposed v8", ROW8, COL8, [128, 128]),
    ("blocked -> blocked (wider)", ROW4, ROW8, [64, 64]),
    ("blocked -> mma v2", ROW4, MMA2, [64, 64]),
    ("mma v2 -> blocked (epilogue)", MMA2, ROW8, [128, 128]),
    ("mma v3 -> blocked (epilogue)", MMA3, ROW8, [128, 128]),
    ("blocked -> dot_op a (kWidth 2)", ROW8, DotOperandLayout(0, MMA2, 2), [128, 64]),
    ("blocked -> dot_op b (kWidth 2)", ROW8, DotOperandLayout(1, MMA2, 2), [64, 128]),
    ("mma v2 -> dot_op a", MMA2, DotOperandLayout(0, MMA2, 2), [64, 64]),
    ("slice(1) -> blocked 1D", SliceLayout(1, ROW4), BlockedLayout([1], [32], [4], [0]), [128]),
    ("blocked row -> 1 row per warp", ROW4, WIDE, [64, 64]),
    ("warp-local: lanes <-> registers", ROW4, LANES, [128, 64]),
    ("warp-local: mma v2 -> dot_op a", MMA2_W4, DotOperandLayout(0, MMA2_W4, 2), [64, 64]),
    ("identity", ROW4, ROW4, [64, 64]),
]
DTYPES = ("f16", "f32")


def _fresh(layout: Any, shape: list[int]) -> LinearLayout:
    ll = layout.to_linear_layout(shape)
    return LinearLayout.from_bases(ll.bases, ll.get_out_dim_names(), [s for _, s in ll.out_dims])


def _clear_all() -> None:
    clear_caches()
    clear_linear_layout_cache()
    LinearLayout.clear_caches()


def _time_cold_family(src: Any, dst: Any, shape: list[int], dtype: str, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        _clear_all()
        start = time.perf_counter()
        conversion_cost(src, dst, shape, dtype)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _time_cold_linear(src: Any, dst: Any, shape: list[int], dtype: str, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        _clear_all()
        a, b = _fresh(src, shape), _fresh(dst, shape)
        start = time.perf_counter()
        conversion_cost(a, b, shape, dtype)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _time_warm(src: Any, dst: Any, shape: list[int], dtype: str, number: int) -> float:
    conversion_cost(src, dst, shape, dtype)
    timer = timeit.Timer(lambda: conversion_cost(src, dst, shape, dtype))
    return min(timer.repeat(repeat=3, number=number)) / number


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args()
    repeat, number = (3, 2000) if args.quick else (7, 20000)
    print(
        f"# {datetime.date.today()} {platform.machine()} {platform.processor() or ''} "
        f"Python {platform.python_version()}; cold: median of {repeat}, warm: best of 3 x {number}"
    )
    header = (
        f"| {'conversion':40} | {'dtype':5} | {'strategy':8} | {'wavefronts':>10} | "
        f"{'ideal':>5} | {'total cyc':>9} | {'cold fam us':>11} | {'cold LL us':>10} | "
        f"{'warm us':>7} |"
    )
    print(header)
    print("|" + "|".join("-" * (len(c)) for c in header.split("|")[1:-1]) + "|")
    cold_family: list[float] = []
    cold_linear: list[float] = []
    warm: list[float] = []
    for name, src, dst, shape in SUITE:
        for dtype in DTYPES:
            cost = conversion_cost(src, dst, shape, dtype)
            cf = _time_cold_family(src, dst, shape, dtype, repeat)
            cl = _time_cold_linear(src, dst, shape, dtype, repeat)
            w = _time_warm(src, dst, shape, dtype, number)
            cold_family.append(cf)
            cold_linear.append(cl)
            warm.append(w)
            label = f"{name} {'x'.join(map(str, shape))}"
            print(
                f"| {label:40} | {dtype:5} | {cost.strategy:8} | {cost.wavefronts:>10} | "
                f"{cost.ideal_wavefronts:>5} | {cost.total:>9.0f} | {cf * 1e6:>11.0f} | "
                f"{cl * 1e6:>10.0f} | {w * 1e6:>7.2f} |"
            )
    print()
    for label, values in (
        ("cold, from families", cold_family),
        ("cold, from linear layouts", cold_linear),
        ("warm (cache hit)", warm),
    ):
        print(
            f"{label:27}: median {statistics.median(values) * 1e6:8.1f} us, "
            f"max {max(values) * 1e6:8.1f} us over {len(values)} conversions"
        )


if __name__ == "__main__":
    main()
