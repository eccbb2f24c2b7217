"""Cost of llc's testing machinery: random kernels, the same-semantics check, large modules.

Times, on this machine:

* ``generate_kernel`` and ``check_same_semantics`` (laid-out vs layout-free: parse and verify
  both, run both under the reference interpreter, compare) per kernel, over ``--kernels`` seeds
  (default 200, what ``test/unit/test_kernel_gen.py`` checks per run);
* ``generate_large_module`` and parsing + verifying its result for 1k, 5k and 20k ops (the
  inputs of the pass-scaling benchmark), per op, so growth with size shows as a rising column.

    python bench/kernel_gen_bench.py
    python bench/kernel_gen_bench.py --kernels 50 --sizes 1000,5000
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from datetime import UTC, datetime

from llc.testing.kernel_gen import generate_kernel, generate_large_module
from llc.testing.semantics import check_same_semantics, parse


def _bench_kernels(count: int) -> None:
    generate = check = 0.0
    ops = conversions = 0
    for seed in range(count):
        start = time.perf_counter()
        kernel = generate_kernel(seed)
        middle = time.perf_counter()
        check_same_semantics(kernel.laid_out, kernel.layout_free, entry=kernel.entry)
        generate += middle - start
        check += time.perf_counter() - middle
        ops += kernel.num_ops
        conversions += kernel.num_conversions
    print(
        f"random kernels: {count}; on average {ops / count:.1f} ops and "
        f"{conversions / count:.1f} conversions (laid-out form)"
    )
    for what, total in (("generate_kernel", generate), ("check_same_semantics", check)):
        print(f"  {what:<22} {total:8.2f} s total {1e3 * total / count:8.2f} ms/kernel")


def _bench_large(sizes: list[int]) -> None:
    print(f"{'large module':>14} {'ops':>7} {'generate s':>11} {'parse+verify s':>15} {'us/op':>8}")
    for size in sizes:
        for layouts in (False, True):
            start = time.perf_counter()
            text = generate_large_module(size, layouts=layouts)
            middle = time.perf_counter()
            module = parse(text)
            parse_s = time.perf_counter() - middle
            ops = sum(1 for _ in module.walk()) - 1
            form = "laid-out" if layouts else "layout-free"
            print(
                f"{form:>14} {ops:>7} {middle - start:>11.2f} {parse_s:>15.2f} "
                f"{1e6 * parse_s / ops:>8.1f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=200)
    parser.add_argument("--sizes", default="1000,5000,20000")
    args = parser.parse_args()
    print(f"date:     {datetime.now(UTC).isoformat(timespec='seconds')}")
    print(f"platform: {platform.platform()}")
    print(f"python:   {platform.python_implementation()} {platform.python_version()}")
    print(f"cpus:     {os.cpu_count()}  ({platform.machine()})")
    print(f"load:     {os.getloadavg()[0]:.2f} (1-minute average at start)")
    sys.stdout.flush()
    _bench_kernels(args.kernels)
    _bench_large([int(s) for s in args.sizes.split(",")])


if __name__ == "__main__":
    main()
