"""Mixed-precision dot pass counts (seed 001, case 1), lowered and interpreted, with load widths.

Per int x float pair of the seed's table:

* tensor level: every case of :func:`llc.testing.mixed_precision.cases` (both operand sides x 3
  shapes x 1-4 warps, each operand in its own ``#tl.dot_op`` layout with its own kWidth) in the
  reference interpreter against numpy;
* lowered: :func:`llc.testing.mixed_precision.run_lowered` (``llc-compile`` of a layout-free
  kernel, then the SIMT kernel interpreter against the tensor level bit for bit, and the tensor
  level against numpy exactly) for sm_70 (FMA) and sm_80 (mma where exact), the integer on A or
  B, (M, N, K) / warps 16x16x16 / 1, 32x64x32 / 2, 64x32x64 / 4: 12 runs;
* the sm_80 path with the kWidths the layout passes chose, and whether ptxas assembles the sm_80
  kernel's PTX for sm_80 and for sm_90 with empty output;
* each operand's widest load along K in its own dot_op layout (``llc.vectorize``: register
  order -> best register permutation) on a 64x32x64 tile with 4 warps, and for the mma pairs in
  the layouts sm_80 uses (both operands at the narrower type's kWidth).

    python bench/mixed_precision.py
"""

from __future__ import annotations

import collections
import time

from llc.testing.mixed_precision import (
    FLOATS,
    INTS,
    Case,
    cases,
    k_width,
    layouts_of,
    run_case,
    run_lowered,
)
from llc.vectorize import largest_vectorization

TARGETS = ("cuda:70", "cuda:80")
SIDES = ("a", "b")
KERNELS = (((16, 16, 16), 1), ((32, 64, 32), 2), ((64, 32, 64), 4))


def main() -> None:
    start = time.perf_counter()
    passed: dict[tuple[str, str], int] = collections.Counter()
    total: dict[tuple[str, str], int] = collections.Counter()
    for case in cases():
        key = (case.int_type, case.float_type)
        total[key] += 1
        passed[key] += run_case(case).passed
    tensor_seconds = time.perf_counter() - start
    start = time.perf_counter()
    lowered_passed: dict[tuple[str, str], int] = collections.Counter()
    lowered_total: dict[tuple[str, str], int] = collections.Counter()
    sm80: dict[tuple[str, str], object] = {}
    for i in INTS:
        for f in FLOATS:
            for target in TARGETS:
                for side in SIDES:
                    for shape, warps in KERNELS:
                        first = target == "cuda:80" and side == "a" and warps == 1
                        archs = ("sm_80", "sm_90") if first else ()
                        r = run_lowered(i, f, target, side, 7, archs, shape, warps)
                        lowered_total[(i, f)] += 1
                        lowered_passed[(i, f)] += r.passed
                        if first:
                            sm80[(i, f)] = r
    lowered_seconds = time.perf_counter() - start
    print(
        "| pair (int/float) | tensor level | lowered (SIMT) | sm_80 path (kWidth) | "
        "PTX sm_80/sm_90 | own kWidth int/float | int load (bits) | float load (bits) | "
        "loads at the shared kWidth int/float (bits) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")

    def yes(v: object) -> str:
        return {True: "yes", False: "NO", None: "no ptxas"}[v]  # type: ignore[index]

    for i in INTS:
        for f in FLOATS:
            a, b = layouts_of(Case(i, f, "a", (64, 32, 64), 4))
            va = largest_vectorization(a, int(i[1:]), "dim1")
            vb = largest_vectorization(b, 8 if f == "f8" else int(f[1:]), "dim0")
            r = sm80[(i, f)]
            path = r.path + (f" ({r.k_widths[0]}/{r.k_widths[1]})" if r.k_widths else "")  # type: ignore[attr-defined]
            shared = "-"
            if r.k_widths:  # type: ignore[attr-defined]
                sa, sb = layouts_of(Case(i, f, "a", (64, 32, 64), 4), r.k_widths)  # type: ignore[attr-defined]
                wa = largest_vectorization(sa, int(i[1:]), "dim1").width_bits
                wb = largest_vectorization(sb, 8 if f == "f8" else int(f[1:]), "dim0").width_bits
                shared = f"{wa}/{wb}"
            ptx = "/".join(yes(r.ptx[arch]) for arch in ("sm_80", "sm_90"))  # type: ignore[attr-defined]
            print(
                f"| {i}/{f} | {passed[(i, f)]}/{total[(i, f)]} | "
                f"{lowered_passed[(i, f)]}/{lowered_total[(i, f)]} | {path} | {ptx} | "
                f"{k_width(i)}/{k_width(f)} | {va.identity_width_bits} -> {va.width_bits} | "
                f"{vb.identity_width_bits} -> {vb.width_bits} | {shared} |"
            )
    print(
        f"\ntensor level {sum(passed.values())}/{sum(total.values())} cases in "
        f"{tensor_seconds:.1f} s; lowered {sum(lowered_passed.values())}/"
        f"{sum(lowered_total.values())} runs in {lowered_seconds:.1f} s"
    )


if __name__ == "__main__":
    main()
