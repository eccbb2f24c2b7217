"""Time ``llc.isl.prove_conversion`` on the conversion suite of ``bench/cost_model.py``.

    python bench/prove_conversions.py [--repeat N] [--dtype f16]

Prints, per conversion, the strategy llc-lower-conversions chose, whether ISL proved the plan,
and the best wall time of one proof (relations built and decided from scratch each time).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cost_model import SUITE

from llc.cost import dtype_bitwidth
from llc.isl import prove_conversion
from llc.lowering import plan_conversion


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dtype", default="f16")
    args = parser.parse_args()
    bits = dtype_bitwidth(args.dtype)
    print(f"{'conversion':40s} {'shape':>9s} {'strategy':9s} {'proved':6s} {'best s':>7s}")
    total = 0.0
    for name, src_family, dst_family, shape in SUITE:
        src = src_family.to_linear_layout(shape)
        dst = dst_family.to_linear_layout(shape)
        strategy = plan_conversion(src, dst, bits).strategy
        best = float("inf")
        for _ in range(args.repeat):
            start = time.perf_counter()
            proof = prove_conversion(src, dst, bits)
            best = min(best, time.perf_counter() - start)
        total += best
        dims = "x".join(map(str, shape))
        print(f"{name:40s} {dims:>9s} {strategy:9s} {proof.holds!s:6s} {best:7.3f}")
    print(f"total (best of each): {total:.2f} s")


if __name__ == "__main__":
    main()
