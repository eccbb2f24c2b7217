"""Micro-benchmark of the ``LinearLayout`` core on realistic layouts.

Times ``from_bases``, ``apply``, ``apply_all``, ``*``, ``compose``, ``invert_and_compose`` and
``get_free_variable_masks`` on

* a 128x128 blocked layout over 8 warps (sizePerThread [4, 4], threadsPerWarp [4, 8],
  warpsPerCTA [4, 2], order [1, 0]),
* a 64x256 Hopper mma accumulator (``NvidiaMmaLayout(3, 0, [4, 1], [16, 256, 16])``),
* a 64x64 f16 shared layout with a 128-byte swizzle (vec 8, perPhase 1, maxPhase 8),
* a random 24-bit layout,

and ``apply_all`` on a 16-bit layout. Each figure is the median over repeats of the mean time
of one call (``timeit``). Rows marked "fresh layouts" time every call on new, equal layouts
with llc's memo cleared, so nothing llc caches per layout (packed columns, echelon form) or
memoises (``invert_and_compose``) is reused; the "memoised" row is a repeated call. When
Triton is installed (the optional ``bench`` extra), the same operations on
``triton._C.libtriton.linear_layout.LinearLayout`` are timed too (it has no
``get_free_variable_masks``/``apply_all`` binding: "n/a").

Run it from the repository root::

    python bench/layout_ops.py            # full run (about half a minute)
    python bench/layout_ops.py --quick    # fewer repeats

The layout families from :mod:`llc.layouts` are used when they exist; otherwise the layouts are
built by hand with the same products of ``identity_1d`` as Triton's ``identityStandardND``.
"""

from __future__ import annotations

import argparse
import datetime
import os
import pickle
import platform
import random
import statistics
import sys
import time
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from llc.linear_layout import LinearLayout

Bases = list[tuple[str, list[list[int]]]]


# ---------------------------------------------------------------------------------- layouts
def identity_standard_nd(in_dim: str, shape: list[int], order: list[int]) -> LinearLayout:
    """Triton's ``identityStandardND``: identity onto ``dim0..`` laid out minor-to-major."""
    result = LinearLayout.empty()
    for dim in order:
        result = result * LinearLayout.identity_1d(shape[dim], in_dim, f"dim{dim}")
    return result


def blocked_128x128() -> tuple[LinearLayout, str]:
    """sizePerThread [4, 4], threadsPerWarp [4, 8], warpsPerCTA [4, 2], order [1, 0]."""
    args = ([4, 4], [4, 8], [4, 2], [1, 0])
    try:
        from llc.layouts.blocked import BlockedLayout

        return BlockedLayout(*args).to_linear_layout([128, 128]), "llc.layouts.BlockedLayout"
    except ImportError:
        pass
    spt, tpw, wpc, order = args
    cta = (
        identity_standard_nd("register", spt, order)
        * identity_standard_nd("lane", tpw, order)
        * identity_standard_nd("warp", wpc, order)
    )
    # One CTA covers 16*4 x 4*8*2 = 64 x 64: repeat it with register bases, minor dim first.
    tiled = cta * LinearLayout.identity_1d(2, "register", "dim1")
    tiled = tiled * LinearLayout.identity_1d(2, "register", "dim0")
    return tiled.transpose_outs(["dim0", "dim1"]), "hand-built (identityStandardND products)"


def blocked(shape: list[int], spt: list[int], tpw: list[int], wpc: list[int]) -> LinearLayout:
    """A blocked layout (order [1, 0]) that exactly covers ``shape``."""
    order = [1, 0]
    layout = (
        identity_standard_nd("register", spt, order)
        * identity_standard_nd("lane", tpw, order)
        * identity_standard_nd("warp", wpc, order)
    )
    for dim in order:
        have = layout.get_out_dim_size(f"dim{dim}")
        if have < shape[dim]:
            layout = layout * LinearLayout.identity_1d(shape[dim] // have, "register", f"dim{dim}")
    return layout.transpose_outs(["dim0", "dim1"])


def hopper_mma_64x256() -> tuple[LinearLayout, str]:
    """The accumulator of a 64x256 wgmma: 4 warps along M, instrShape [16, 256, 16]."""
    try:
        from llc.layouts import NvidiaMmaLayout  # type: ignore[attr-defined]

        layout = NvidiaMmaLayout(3, 0, [4, 1], [16, 256, 16]).to_linear_layout([64, 256])
        return layout, "llc.layouts.NvidiaMmaLayout"
    except ImportError:
        pass
    # Per warp: 2 registers along N, 4 lanes along N, 8 lanes along M, 2 register rows (M 8..15)
    # and 32 register column groups along N; warps stacked along M.
    bases: Bases = [
        ("register", [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [0, 128]]),
        ("lane", [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]),
        ("warp", [[16, 0], [32, 0]]),
        ("block", []),
    ]
    return LinearLayout.from_bases(bases, ["dim0", "dim1"]), "hand-built (Hopper mma tile)"


def swizzled_shared(rows: int, cols: int, vec: int, per_phase: int, max_phase: int) -> LinearLayout:
    """Triton's swizzled shared layout, order [1, 0]: offset -> (row, col)."""
    offset = [[0, 1 << i] for i in range(cols.bit_length() - 1)]
    for i in range(rows.bit_length() - 1):
        row = 1 << i
        offset.append([row, (vec * ((row // per_phase) % max_phase)) % cols])
    return LinearLayout.from_bases([("offset", offset)], ["dim0", "dim1"])


def shared_128b_64x64() -> tuple[LinearLayout, str]:
    """64x64 f16 with a 128-byte swizzle: vec 8, perPhase 1, maxPhase 8."""
    try:
        from llc.layouts import SwizzledSharedLayout  # type: ignore[attr-defined]

        layout = SwizzledSharedLayout(8, 1, 8, [1, 0]).to_linear_layout([64, 64])
        return layout, "llc.layouts.SwizzledSharedLayout"
    except ImportError:
        return swizzled_shared(64, 64, 8, 1, 8), "hand-built (swizzled shared)"


def random_layout(
    rng: random.Random, in_bits: dict[str, int], out_bits: dict[str, int]
) -> LinearLayout:
    """A random surjective layout (resampled until its rank is full)."""
    total_out = sum(out_bits.values())
    while True:
        bases: Bases = [
            (name, [[rng.getrandbits(b) for b in out_bits.values()] for _ in range(n)])
            for name, n in in_bits.items()
        ]
        layout = LinearLayout.from_bases(
            bases, list(out_bits), [1 << b for b in out_bits.values()], require_surjective=False
        )
        if layout.rank == total_out:
            return layout


# ---------------------------------------------------------------------------------- timing
def time_op(func: Callable[[], Any], repeats: int, budget_s: float) -> float:
    """Median (over ``repeats``) of the mean seconds per call."""
    timer = timeit.Timer(func)
    number, elapsed = 1, 0.0
    # Pick a loop count so one repeat takes about budget_s / repeats.
    while True:
        elapsed = timer.timeit(number)
        if elapsed >= budget_s / repeats / 4 or number >= 1 << 20:
            break
        number *= 4
    per_repeat = max(1, int(number * (budget_s / repeats) / max(elapsed, 1e-9)))
    samples = timer.repeat(repeat=repeats, number=per_repeat)
    return statistics.median(s / per_repeat for s in samples)


def time_fresh(setup: Callable[[], tuple[Any, ...]], func: Callable[..., Any], calls: int) -> float:
    """Median seconds of ``func(*setup())`` with a new ``setup()`` (fresh objects) per call."""
    samples = []
    for _ in range(calls):
        args = setup()
        start = time.perf_counter()
        func(*args)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


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


def clear_llc_caches() -> None:
    """Forget memoised ``invert_and_compose`` results (llc versions that have the memo)."""
    cache = getattr(LinearLayout, "clear_caches", None)
    if cache is not None:
        cache()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (noisier)")
    args = parser.parse_args()
    repeats, budget = (5, 0.1) if args.quick else (15, 0.6)

    print(f"date:     {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}")
    print(f"platform: {platform.platform()}")
    print(f"python:   {platform.python_implementation()} {platform.python_version()}")
    print(f"cpus:     {os.cpu_count()}  ({platform.processor() or platform.machine()})")

    rng = random.Random(0)
    blk, blk_src = blocked_128x128()
    mma, mma_src = hopper_mma_64x256()
    smem, smem_src = shared_128b_64x64()
    blk_64x256 = blocked([64, 256], [1, 8], [4, 8], [4, 1])
    blk_64x64 = blocked([64, 64], [1, 8], [8, 4], [4, 1])
    smem_128 = swizzled_shared(128, 128, 8, 1, 8)
    rand24 = random_layout(
        rng, {"register": 8, "lane": 5, "warp": 3, "block": 8}, {"dim0": 12, "dim1": 12}
    )
    rand24_b = random_layout(
        rng, {"register": 6, "lane": 5, "warp": 5, "block": 8}, {"dim0": 12, "dim1": 12}
    )
    rand16 = random_layout(rng, {"register": 6, "lane": 5, "warp": 5}, {"dim0": 8, "dim1": 8})
    print(f"layouts:  blocked 128x128 from {blk_src}; mma 64x256 from {mma_src};")
    print(f"          shared 64x64 from {smem_src}")

    def tile(layout: LinearLayout) -> LinearLayout:
        # Repeat the layout twice along its last out-dim with one more bit of its first in-dim
        # (what Triton's ensureLayoutNotSmallerThan does): a shared in-dim and out-dim.
        return LinearLayout.identity_1d(
            2, layout.get_in_dim_names()[0], layout.get_out_dim_names()[-1]
        )

    cases: list[tuple[str, LinearLayout, LinearLayout]] = [
        # (name, layout, partner for compose/invert_and_compose)
        ("blocked 128x128 -> swizzled smem", blk, smem_128),
        ("mma 64x256 -> blocked", mma, blk_64x256),
        ("blocked 64x64 -> 128B-swizzled smem", blk_64x64, smem),
        ("random 24-bit", rand24, rand24_b),
    ]

    tll = triton_module()
    rows: list[tuple[str, str, float, float | None]] = []
    calls = 100 if args.quick else 400

    def record(
        case: str, op: str, ours: Callable[[], Any], theirs: Callable[[], Any] | None
    ) -> None:
        t_ours = time_op(ours, repeats, budget)
        t_theirs = time_op(theirs, repeats, budget) if theirs is not None else None
        rows.append((case, op, t_ours, t_theirs))

    def record_fresh(
        case: str,
        op: str,
        ours: Callable[..., Any],
        layouts: tuple[LinearLayout, ...],
        theirs: Callable[[], Any] | None,
    ) -> None:
        # llc caches derived data per layout and memoises invert_and_compose: start from
        # fresh, equal layouts with the memo cleared, so nothing computed before is reused.
        def setup() -> tuple[Any, ...]:
            clear_llc_caches()
            return tuple(fresh(layout) for layout in layouts)

        t_ours = time_fresh(setup, ours, calls)
        t_theirs = time_op(theirs, repeats, budget) if theirs is not None else None
        rows.append((case, op, t_ours, t_theirs))

    for case, layout, partner in cases:
        bases = layout.bases
        out_names = layout.get_out_dim_names()
        out_sizes = [s for _, s in layout.out_dims]
        point = {name: (size - 1) // 3 for name, size in layout.in_dims.items()}
        tiled = tile(layout)
        # The partner maps the same tensor elsewhere: composing with its inverse turns this
        # layout's hardware index into the partner's.
        inv_partner = partner.pseudoinvert()
        t_layout = to_triton(tll, layout) if tll else None
        t_partner = to_triton(tll, partner) if tll else None
        t_tiled = to_triton(tll, tiled) if tll else None
        t_inv = to_triton(tll, inv_partner) if tll else None

        record(
            case,
            "from_bases",
            lambda: LinearLayout.from_bases(bases, out_names, out_sizes),  # noqa: B023
            (lambda: tll.LinearLayout.from_bases(bases, out_names, out_sizes))  # noqa: B023
            if tll
            else None,
        )
        record(
            case,
            "apply",
            lambda: layout.apply(point),  # noqa: B023
            (lambda: t_layout.apply(point)) if tll else None,  # noqa: B023
        )
        record(
            case,
            "product (x2 tile)",
            lambda: layout * tiled,  # noqa: B023
            (lambda: t_layout * t_tiled) if tll else None,  # noqa: B023
        )
        record_fresh(
            case,
            "compose (fresh layouts)",
            LinearLayout.compose,
            (layout, inv_partner),
            (lambda: t_layout.compose(t_inv)) if tll else None,  # noqa: B023
        )
        record_fresh(
            case,
            "invert_and_compose (fresh layouts)",
            LinearLayout.invert_and_compose,
            (layout, partner),
            (lambda: t_layout.invert_and_compose(t_partner)) if tll else None,  # noqa: B023
        )
        if hasattr(LinearLayout, "clear_caches"):
            layout.invert_and_compose(partner)
            record(
                case,
                "invert_and_compose (memoised)",
                lambda: layout.invert_and_compose(partner),  # noqa: B023
                None,
            )
        record_fresh(
            case,
            "get_free_variable_masks (fresh layout)",
            LinearLayout.get_free_variable_masks,
            (layout,),
            None,
        )

    parts = [
        identity_standard_nd("register", [4, 4], [1, 0]),
        identity_standard_nd("lane", [4, 8], [1, 0]),
        identity_standard_nd("warp", [4, 2], [1, 0]),
    ]
    t_parts = [to_triton(tll, p) for p in parts] if tll else None
    record(
        "blocked 128x128 (identityStandardND)",
        "product (register * lane * warp)",
        lambda: parts[0] * parts[1] * parts[2],
        (lambda: t_parts[0] * t_parts[1] * t_parts[2]) if t_parts else None,
    )
    record("random 16-bit", "apply_all (65536 points)", rand16.apply_all, None)

    print()
    triton_note = (
        "triton: not installed (pip install '.[bench]' to compare)"
        if tll is None
        else f"triton: {__import__('triton').__version__} (triton._C.libtriton.linear_layout)"
    )
    print(triton_note)
    print()
    head = f"{'layout':36} {'op':38} {'llc us':>10}"
    if tll is not None:
        head += f" {'triton us':>10} {'llc/triton':>10}"
    print(head)
    print("-" * len(head))
    for case, op, ours, theirs in rows:
        line = f"{case:36} {op:38} {ours * 1e6:10.1f}"
        if tll is not None:
            if theirs is None:
                line += f" {'n/a':>10} {'':>10}"
            else:
                line += f" {theirs * 1e6:10.1f} {ours / theirs:10.2f}"
        print(line)


if __name__ == "__main__":
    main()
