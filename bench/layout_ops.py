"""Micro-benchmark of the ``LinearLayout`` core, warm and cold, against Triton's binding.

Issue 7 asks for the speed a compiler sees when it meets many *different* layouts, so every
operation is timed twice:

* **warm**: the same layout objects over and over, so llc's per-layout caches (packed columns,
  echelon form, pseudoinverse) and its ``invert_and_compose`` memo are used;
* **cold**: every call gets fresh, equal layout objects (``pickle`` round trip: bases only, no
  cached data) and all of llc's result caches are cleared (``LinearLayout.clear_caches`` and
  the family ``to_linear_layout`` cache), so nothing computed before is reused.

Triton's C++ ``LinearLayout`` (``triton._C.libtriton.linear_layout``, the optional ``bench``
extra) keeps no such caches, so one Triton figure serves as the peer for both columns; the
ratio columns are llc / Triton measured in the same process, interleaved with llc's runs.

The operations run on the pair of issue 7: a 4-warp 128x128 blocked layout
(sizePerThread [1, 8], threadsPerWarp [4, 8], warpsPerCTA [4, 1], order [1, 0]) and an mma v2
accumulator (warpsPerCTA [2, 2], instrShape [16, 8]) on the same shape. A second table times
an uncached ``to_linear_layout`` of every layout family (the goal is under 100 µs).

Each figure is the best of ``--repeat`` runs (default 5) of the mean time of one call, in
*process CPU time* (``time.process_time``): the benchmark machines are shared, and CPU time
does not count the time another process holds the core, which wall-clock time does.

Run it from the repository root::

    python bench/layout_ops.py            # about a minute
    python bench/layout_ops.py --quick    # fewer calls per run (noisier)
"""

from __future__ import annotations

import argparse
import datetime
import functools
import os
import pickle
import platform
import sys
import time
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from llc.layouts import (
    AmdMfmaLayout,
    AmdWmmaLayout,
    BlockedLayout,
    DotOperandLayout,
    Layout,
    NvidiaMmaLayout,
    NvmmaSharedLayout,
    SliceLayout,
    SwizzledSharedLayout,
    clear_linear_layout_cache,
)
from llc.linear_layout import LinearLayout

SHAPE = [128, 128]
BLOCKED = BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
MMA_V2 = NvidiaMmaLayout(2, 0, [2, 2], [16, 8])

FAMILIES: list[tuple[str, Layout, list[int]]] = [
    ("blocked", BLOCKED, SHAPE),
    ("nvidia_mma v2", MMA_V2, SHAPE),
    ("nvidia_mma v3", NvidiaMmaLayout(3, 0, [4, 1], [16, 128, 16]), [128, 128]),
    ("dot_op (mma v2 parent, A)", DotOperandLayout(0, MMA_V2, 2), SHAPE),
    ("amd_mfma", AmdMfmaLayout(3, [2, 2], [32, 32, 8], True), SHAPE),
    ("amd_wmma", AmdWmmaLayout(2, False, [2, 2]), SHAPE),
    ("slice (dim 1 of blocked)", SliceLayout(1, BLOCKED), [128]),
    ("swizzled_shared", SwizzledSharedLayout(8, 1, 8, [1, 0]), SHAPE),
    ("nvmma_shared (128B, f16)", NvmmaSharedLayout(128, False, 16), SHAPE),
]


# ---------------------------------------------------------------------------------- timing
def best_of(func: Callable[[], Any], number: int, repeat: int) -> float:
    """Best over ``repeat`` runs of the mean CPU seconds of one call."""
    timer = timeit.Timer(func, timer=time.process_time)
    return min(timer.repeat(repeat=repeat, number=number)) / number


def interleaved(samplers: list[Callable[[], float]], repeat: int) -> list[float]:
    """The best of ``repeat`` samples of each sampler, taken round-robin."""
    best = [float("inf")] * len(samplers)
    for _ in range(repeat):
        for i, sample in enumerate(samplers):
            best[i] = min(best[i], sample())
    return best


def best_of_fresh(
    make: Callable[[], tuple[Any, ...]], func: Callable[..., Any], number: int, repeat: int
) -> float:
    """Like :func:`best_of`, but every call gets its own fresh arguments from ``make()``
    (built before the clock starts) and runs with llc's caches cleared."""
    best = float("inf")
    for _ in range(repeat):
        args = [make() for _ in range(number)]
        start = time.process_time()
        for arg in args:
            clear_llc_caches()
            func(*arg)
        best = min(best, (time.process_time() - start) / number)
    return best - _fresh_loop_overhead(number)


@functools.cache
def _fresh_loop_overhead(number: int, repeat: int = 9) -> float:
    """What the loop of :func:`best_of_fresh` costs by itself (clearing the caches included):
    subtracted, so that a cold figure is the operation alone."""
    best = float("inf")
    for _ in range(repeat):
        args = [() for _ in range(number)]
        start = time.process_time()
        for arg in args:
            clear_llc_caches()
            _nothing(*arg)
        best = min(best, (time.process_time() - start) / number)
    return best


def _nothing(*args: Any) -> None:
    return None


def clear_llc_caches() -> None:
    """Forget every memoised result: ``invert_and_compose`` and ``to_linear_layout``."""
    LinearLayout.clear_caches()
    clear_linear_layout_cache()


def fresh(layout: LinearLayout) -> LinearLayout:
    """An equal layout without any cached derived data (packed columns, echelon form, ...)."""
    return pickle.loads(pickle.dumps(layout))


def triton_module() -> Any:
    """Triton's ``linear_layout`` binding module, or None when triton is not importable."""
    try:
        from triton._C.libtriton import linear_layout  # type: ignore[import-not-found]
    except Exception:  # any import failure means "not usable"
        return None
    return linear_layout


def to_triton(tll: Any, layout: LinearLayout) -> Any:
    """The same layout as a Triton ``LinearLayout``."""
    return tll.LinearLayout.from_bases(
        layout.bases,
        layout.get_out_dim_names(),
        [size for _, size in layout.out_dims],
        require_surjective=False,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls per run (noisier)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (best is kept)")
    args = parser.parse_args()
    scale = 1 if args.quick else 4
    repeat = args.repeat

    print(f"date:     {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}")
    print(f"platform: {platform.platform()}")
    print(f"python:   {platform.python_implementation()} {platform.python_version()}")
    print(f"cpus:     {os.cpu_count()}  ({platform.processor() or platform.machine()})")
    tll = triton_module()
    print(
        "triton:   not installed (pip install '.[bench]' to compare)"
        if tll is None
        else f"triton:   {__import__('triton').__version__} (triton._C.libtriton.linear_layout)"
    )
    print(f"timing:   best of {repeat} runs, mean process CPU time per call, in µs")
    print()

    blk = BLOCKED.to_linear_layout(SHAPE)
    mma = MMA_V2.to_linear_layout(SHAPE)
    bases = blk.bases
    out_names = blk.get_out_dim_names()
    out_sizes = [size for _, size in blk.out_dims]
    point = {name: (size - 1) // 3 for name, size in blk.in_dims.items()}
    tile = LinearLayout.identity_1d(2, "register", "dim1")
    inv_mma = mma.pseudoinvert()

    t_blk = to_triton(tll, blk) if tll else None
    t_mma = to_triton(tll, mma) if tll else None
    t_tile = to_triton(tll, tile) if tll else None
    t_inv = to_triton(tll, inv_mma) if tll else None

    # (op, warm call, cold (make, func), triton call, triton on fresh objects, calls per run)
    Op = tuple[str, Callable[[], Any], Any, Callable[[], Any] | None, Any, int]
    ops: list[Op] = [
        (
            "from_bases",
            lambda: LinearLayout.from_bases(bases, out_names, out_sizes),
            (lambda: (), lambda: LinearLayout.from_bases(bases, out_names, out_sizes)),
            (lambda: tll.LinearLayout.from_bases(bases, out_names, out_sizes)) if tll else None,
            (lambda: (), lambda: tll.LinearLayout.from_bases(bases, out_names, out_sizes)),
            2000,
        ),
        (
            "apply",
            lambda: blk.apply(point),
            (lambda: (fresh(blk),), lambda a: a.apply(point)),
            (lambda: t_blk.apply(point)) if tll else None,
            (lambda: (to_triton(tll, blk),), lambda a: a.apply(point)),
            5000,
        ),
        (
            "product (blocked * 2x register tile)",
            lambda: blk * tile,
            (lambda: (fresh(blk), fresh(tile)), lambda a, b: a * b),
            (lambda: t_blk * t_tile) if tll else None,
            (lambda: (to_triton(tll, blk), to_triton(tll, tile)), lambda a, b: a * b),
            2000,
        ),
        (
            "compose (blocked, mma⁻¹)",
            lambda: blk.compose(inv_mma),
            (lambda: (fresh(blk), fresh(inv_mma)), LinearLayout.compose),
            (lambda: t_blk.compose(t_inv)) if tll else None,
            (lambda: (to_triton(tll, blk), to_triton(tll, inv_mma)), lambda a, b: a.compose(b)),
            1000,
        ),
        (
            "invert_and_compose (blocked, mma)",
            lambda: blk.invert_and_compose(mma),
            (lambda: (fresh(blk), fresh(mma)), LinearLayout.invert_and_compose),
            (lambda: t_blk.invert_and_compose(t_mma)) if tll else None,
            (
                lambda: (to_triton(tll, blk), to_triton(tll, mma)),
                lambda a, b: a.invert_and_compose(b),
            ),
            500,
        ),
        (
            "pseudoinvert (mma)",
            lambda: mma.pseudoinvert(),
            (lambda: (fresh(mma),), LinearLayout.pseudoinvert),
            (lambda: t_mma.pseudoinvert()) if tll else None,
            (lambda: (to_triton(tll, mma),), lambda a: a.pseudoinvert()),
            500,
        ),
        (
            "get_free_variable_masks (blocked)",
            lambda: blk.get_free_variable_masks(),
            (lambda: (fresh(blk),), LinearLayout.get_free_variable_masks),
            None,
            None,
            1000,
        ),
    ]

    print("4-warp 128x128 blocked -> mma v2 (issue 7's pair)")
    head = f"{'op':35} {'llc warm':>8} {'llc cold':>8}"
    if tll is not None:
        head += f" {'tri':>7} {'tri cold':>8} {'warm/tri':>8} {'cold/tri':>8} {'cold/tri cold':>13}"
    print(head)
    print("-" * len(head))
    for name, warm, (make, func), theirs, theirs_fresh, number in ops:
        number = max(50, number * scale // 4)
        samplers = [
            lambda: best_of(warm, number, 1),  # noqa: B023
            lambda: best_of_fresh(make, func, number, 1),  # noqa: B023
        ]
        if tll is not None and theirs is not None:
            samplers.append(lambda: best_of(theirs, number, 1))  # noqa: B023
            samplers.append(lambda: best_of_fresh(*theirs_fresh, number, 1))  # noqa: B023
        # Round-robin, so that a burst of load on the shared machine hits both sides alike.
        t_warm, t_cold, *t_triton = interleaved(samplers, repeat)
        line = f"{name:35} {t_warm * 1e6:8.2f} {t_cold * 1e6:8.2f}"
        if tll is not None:
            if theirs is None:
                line += f" {'n/a':>7}"
            else:
                t_theirs, t_fresh = t_triton
                line += (
                    f" {t_theirs * 1e6:7.2f} {t_fresh * 1e6:8.2f} {t_warm / t_theirs:8.2f}"
                    f" {t_cold / t_theirs:8.2f} {t_cold / t_fresh:13.2f}"
                )
        print(line)

    print()
    print("to_linear_layout, uncached (cache cleared before every call); goal < 100 µs")
    head = f"{'family':30} {'shape':>10} {'cold µs':>9} {'warm µs':>9}"
    print(head)
    print("-" * len(head))
    number = 50 * scale
    for name, layout, shape in FAMILIES:

        def cold(layout: Layout = layout, shape: list[int] = shape) -> None:
            clear_linear_layout_cache()
            layout.to_linear_layout(shape)

        def warm(layout: Layout = layout, shape: list[int] = shape) -> None:
            layout.to_linear_layout(shape)

        t_cold, t_warm = interleaved(
            [
                lambda: best_of(cold, number, 1),
                lambda: best_of(warm, number * 10, 1),
            ],
            repeat,
        )
        shape_text = "x".join(map(str, shape))
        print(f"{name:30} {shape_text:>10} {t_cold * 1e6:9.1f} {t_warm * 1e6:9.2f}")


if __name__ == "__main__":
    main()
