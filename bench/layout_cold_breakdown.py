"""Where the cold time of ``from_bases``, ``apply`` and ``compose`` goes (issue 7, section 3).

Each step is timed alone on issue 7's pair (4-warp 128x128 blocked, mma v2 accumulator): best
of 7 runs of 2,000 calls, process CPU time, minus the cost of the timing loop itself. "Fresh"
objects are pickle round trips (bases only, nothing cached), as in ``bench/layout_ops.py``.
Triton's rows need the optional ``bench`` extra.

    python bench/layout_cold_breakdown.py
"""

from __future__ import annotations

import functools
import itertools
import operator
import pickle
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from llc.layouts import BlockedLayout, NvidiaMmaLayout
from llc.linear_layout import LinearLayout

SHAPE = [128, 128]


def fresh(layout: LinearLayout) -> LinearLayout:
    return pickle.loads(pickle.dumps(layout))


def per_call(
    func: Callable[..., Any], make: Callable[[], tuple[Any, ...]], number: int = 2000
) -> float:
    """Best of 7 runs of the mean CPU µs of ``func(*make())`` (arguments built off the clock)."""
    best = float("inf")
    for _ in range(7):
        args = [make() for _ in range(number)]
        start = time.process_time()
        for arg in args:
            func(*arg)
        best = min(best, (time.process_time() - start) / number)
    return best * 1e6


def main() -> None:
    blk = BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]).to_linear_layout(SHAPE)
    mma = NvidiaMmaLayout(2, 0, [2, 2], [16, 8]).to_linear_layout(SHAPE)
    inv = mma.pseudoinvert()
    loop = per_call(lambda *a: None, lambda: (blk,))
    try:
        from triton._C.libtriton import linear_layout as tll  # type: ignore[import-not-found]
    except Exception:
        tll = None

    def row(name: str, micros: float) -> None:
        print(f"{name:50} {micros - loop:7.2f}")

    print("compose, cold (µs)")
    row(
        "  compose(fresh blocked, fresh mma⁻¹)",
        per_call(LinearLayout.compose, lambda: (fresh(blk), fresh(inv))),
    )
    row(
        "  pack the columns of a fresh blocked (2 out-dims)",
        per_call(LinearLayout.columns, lambda: (fresh(blk),)),
    )
    row(
        "  pack the columns of a fresh mma⁻¹ (4 out-dims)",
        per_call(LinearLayout.columns, lambda: (fresh(inv),)),
    )
    row("  compose with both already packed", per_call(LinearLayout.compose, lambda: (blk, inv)))
    print("apply, cold (µs)")
    point = {name: (size - 1) // 3 for name, size in blk.in_dims.items()}
    row(
        "  apply on a fresh blocked (bases, no columns)",
        per_call(lambda a: a.apply(point), lambda: (fresh(blk),)),
    )
    row(
        "  apply on a blocked with packed columns",
        per_call(lambda a: a.apply(point), lambda: (blk,)),
    )
    if tll is not None:
        t_blk = tll.LinearLayout.from_bases(blk.bases, ["dim0", "dim1"], [128, 128])
        row("  Triton apply (same object)", per_call(lambda a: a.apply(point), lambda: (t_blk,)))
    print("from_bases (µs)")
    bases, names, sizes = blk.bases, ["dim0", "dim1"], [128, 128]
    chain = itertools.chain.from_iterable
    row("  from_bases", per_call(lambda: LinearLayout.from_bases(bases, names, sizes), tuple))
    if tll is not None:
        row(
            "  Triton from_bases",
            per_call(lambda: tll.LinearLayout.from_bases(bases, names, sizes), tuple),
        )
    copied = [tuple(map(tuple, vectors)) for _, vectors in bases]
    flat = list(chain(copied))
    row(
        "  step: copy the lists into tuples",
        per_call(lambda: [tuple(map(tuple, v)) for _, v in bases], tuple),
    )
    row(
        "  step: check lengths and element types",
        per_call(lambda: (set(map(len, flat)), set(map(type, chain(flat)))), tuple),
    )
    row(
        "  step: range check (one OR per out-dim)",
        per_call(
            lambda: [functools.reduce(operator.or_, v, 0) for v in zip(*flat, strict=False)], tuple
        ),
    )
    packed = blk.columns()
    row(
        "  step: pack the columns",
        per_call(lambda: tuple([x | y << 7 for v in copied for x, y in v]), tuple),
    )
    row(
        "  step: surjectivity (every leading bit present)",
        per_call(lambda: frozenset(range(1, 15)) <= set(map(int.bit_length, packed)), tuple),
    )


if __name__ == "__main__":
    main()
