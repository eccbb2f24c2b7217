"""Mixed-precision dot pass counts (seed 001, case 1) and each operand's load width.

Runs every case of :func:`llc.testing.mixed_precision.cases` (16 int x float pairs x both operand
sides x 3 shapes x 1-4 warps) in the reference interpreter against numpy and prints a markdown
table: passes per pair, each operand's kWidth, and the widest load along K of its own dot_op
layout (llc.vectorize: register run in the given order / after the best register permutation).

    python bench/mixed_precision.py
"""

from __future__ import annotations

import collections
import time

from llc.testing.mixed_precision import FLOATS, INTS, Case, cases, k_width, layouts_of, run_case
from llc.vectorize import largest_vectorization


def main() -> None:
    start = time.perf_counter()
    passed: dict[tuple[str, str], int] = collections.Counter()
    total: dict[tuple[str, str], int] = collections.Counter()
    for case in cases():
        key = (case.int_type, case.float_type)
        total[key] += 1
        passed[key] += run_case(case).passed
    seconds = time.perf_counter() - start
    print(
        "| pair (int/float) | llc passes | kWidth int/float | int operand load (bits) | "
        "float operand load (bits) |"
    )
    print("|---|---|---|---|---|")
    for i in INTS:
        for f in FLOATS:
            a, b = layouts_of(Case(i, f, "a", (64, 32, 64), 4))
            va = largest_vectorization(a, int(i[1:]), "dim1")
            fb = 8 if f == "f8" else int(f[1:])
            vb = largest_vectorization(b, fb, "dim0")
            print(
                f"| {i}/{f} | {passed[(i, f)]}/{total[(i, f)]} | {k_width(i)}/{k_width(f)} | "
                f"{va.identity_width_bits} -> {va.width_bits} | "
                f"{vb.identity_width_bits} -> {vb.width_bits} |"
            )
    print(f"\n{sum(passed.values())}/{sum(total.values())} cases in {seconds:.1f} s")


if __name__ == "__main__":
    main()
