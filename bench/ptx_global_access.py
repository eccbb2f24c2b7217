"""Benchmark: global loads/stores of llc's conversion kernels (issue 12).

For each conversion of ``bench/conversions.py``'s suite, the kernel of
``llc-layout SRC --to DST --emit ptx`` (sm_90) is emitted and its global accesses are counted by
bits per thread per access (``ld.global.128`` = one ``.v4.b32``). The kernels have no loops:
static counts are per-thread counts. ``--json FILE`` also writes the counts; ``--before FILE``
adds the counts of an earlier run as a "before" column.

    python bench/ptx_global_access.py [--json now.json] [--before then.json]
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import platform
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_ACCESS = re.compile(r"\b(ld|st)\.global(\.v[24])?\.b(8|16|32|64)\b")


def global_counts(ptx: str) -> dict[str, int]:
    """Global accesses of ``ptx`` by direction and bits per access.

    >>> global_counts("ld.global.v4.b32 {%r1, %r2, %r3, %r4}, [%rd1]; st.global.b16 [%rd2], %h1;")
    {'ld.global.128': 1, 'st.global.16': 1}
    """
    counts: dict[str, int] = {}
    for op, vec, bits in _ACCESS.findall(ptx):
        key = f"{op}.global.{int(bits) * (int(vec[2:]) if vec else 1)}"
        counts[key] = counts.get(key, 0) + 1
    return counts


def _cell(counts: dict[str, int]) -> str:
    parts = [f"{k.replace('.global', '')}={v}" for k, v in sorted(counts.items())]
    return f"{sum(counts.values())}: " + " ".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", metavar="FILE", help="write the counts to FILE")
    parser.add_argument("--before", metavar="FILE", help="counts of an earlier run (--json)")
    args = parser.parse_args()
    from llc.passes.conversion_kernel import conversion_ptx

    spec = importlib.util.spec_from_file_location("bench_conversions", f"{HERE}/conversions.py")
    assert spec is not None and spec.loader is not None
    conversions = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conversions)
    before = None
    if args.before:
        with open(args.before) as f:
            before = json.load(f)
    stamp = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    print(f"date: {stamp}; platform: {platform.platform()}; python {platform.python_version()}")
    head = ["conversion", "shape", "dtype"]
    head += ["before: accesses", "after: accesses"] if before else ["global accesses"]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" for _ in head) + "|")
    rows, totals = [], [0, 0]
    for i, (name, src, dst, shape, dtype) in enumerate(conversions._suite()):
        counts = global_counts(conversion_ptx(src, dst, shape, dtype, src.num_warps, "sm_90"))
        rows.append(counts)
        row = [name, "x".join(map(str, shape)), dtype]
        if before:
            row.append(_cell(before[i]))
            totals[0] += sum(before[i].values())
        row.append(_cell(counts))
        totals[1] += sum(counts.values())
        print("| " + " | ".join(row) + " |")
    print()
    if before:
        print(f"total global accesses per thread: before {totals[0]}, after {totals[1]}")
    else:
        print(f"total global accesses per thread: {totals[1]}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
