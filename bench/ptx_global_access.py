"""Benchmark: global loads/stores of llc's conversion kernels (issue 12).

For each conversion of ``bench/conversions.py``'s suite, the kernel of
``llc-layout SRC --to DST --emit ptx`` (sm_90) is emitted and its global accesses are counted by
bits per thread per access (``ld.global.128`` = one ``.v4.b32``). The kernels have no loops:
static counts are per-thread counts. ``--json FILE`` also writes the counts; ``--before FILE``
adds the counts of an earlier run as a "before" column; ``--triton PYTHON`` (a Python with
Triton 3.9) adds Triton's counts for the same kernel with ``tt.divisibility = 16`` on both
pointers, as Triton's launcher specialises 16-byte aligned pointer arguments.

    python bench/ptx_global_access.py [--json now.json] [--before then.json] [--triton PYTHON]
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
_ACCESS = re.compile(r"\b(ld|st)\.global(?:\.[A-Za-z0-9_:]+?)*?(\.v[248])?\.[bsuf](8|16|32|64)\b")
_TRITON = """
import json, os, re, sys, tempfile, warnings
warnings.simplefilter("ignore")
import triton
from triton.backends.compiler import GPUTarget
access = re.compile(sys.argv[1])
out = []
with tempfile.TemporaryDirectory() as tmp:
    for i, text in enumerate(json.load(sys.stdin)):
        path = os.path.join(tmp, f"k{i}.ttgir")
        with open(path, "w") as f:
            f.write(text)
        ptx = triton.compile(path, target=GPUTarget("cuda", 90, 32)).asm["ptx"]
        out.append(access.findall(ptx))
json.dump(out, sys.stdout)
"""


def global_counts(ptx: str) -> dict[str, int]:
    """Global accesses of ``ptx`` by direction and bits per access.

    >>> global_counts("ld.global.v4.b32 {%r1, %r2, %r3, %r4}, [%rd1]; st.global.b16 [%rd2], %h1;")
    {'ld.global.128': 1, 'st.global.16': 1}
    """
    return _tally(_ACCESS.findall(ptx))


def _tally(found: list[tuple[str, str, str]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for op, vec, bits in found:
        key = f"{op}.global.{int(bits) * (int(vec[2:]) if vec else 1)}"
        counts[key] = counts.get(key, 0) + 1
    return counts


def _triton_counts(python: str, texts: list[str]) -> list[dict[str, int]]:
    import subprocess

    done = subprocess.run(
        [python, "-c", _TRITON, _ACCESS.pattern],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"triton failed: {done.stderr.strip().splitlines()[-1:]}")
    return [_tally([tuple(x) for x in found]) for found in json.loads(done.stdout)]


def _cell(counts: dict[str, int]) -> str:
    parts = [f"{k.replace('.global', '')}={v}" for k, v in sorted(counts.items())]
    return f"{sum(counts.values())}: " + " ".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", metavar="FILE", help="write the counts to FILE")
    parser.add_argument("--before", metavar="FILE", help="counts of an earlier run (--json)")
    parser.add_argument("--triton", metavar="PYTHON", help="a Python with triton: its counts")
    args = parser.parse_args()
    from llc.passes.conversion_kernel import conversion_kernel_text, conversion_ptx

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
    suite = conversions._suite()
    triton = None
    if args.triton:
        texts = [
            conversion_kernel_text(s, d, shape, t, s.num_warps, dialect="triton")
            for _, s, d, shape, t in suite
        ]
        triton = _triton_counts(args.triton, texts)
        head.append("Triton 3.9 (tt.divisibility = 16)")
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" for _ in head) + "|")
    rows, totals = [], [0, 0, 0]
    for i, (name, src, dst, shape, dtype) in enumerate(suite):
        counts = global_counts(conversion_ptx(src, dst, shape, dtype, src.num_warps, "sm_90"))
        rows.append(counts)
        row = [name, "x".join(map(str, shape)), dtype]
        if before:
            row.append(_cell(before[i]))
            totals[0] += sum(before[i].values())
        row.append(_cell(counts))
        totals[1] += sum(counts.values())
        if triton:
            row.append(_cell(triton[i]))
            totals[2] += sum(triton[i].values())
        print("| " + " | ".join(row) + " |")
    print()
    summary = f"total global accesses per thread: llc {totals[1]}"
    if before:
        summary += f" (before: {totals[0]})"
    if triton:
        summary += f", Triton {totals[2]}"
    print(summary)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
