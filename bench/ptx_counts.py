"""Benchmark: PTX of llc's stand-alone conversion kernels against Triton's (issue 12).

For each conversion of ``bench/conversions.py``'s suite, the kernel of
``llc-layout SRC --to DST --emit ptx`` (load in SRC, convert, store in DST) is emitted for sm_90
and its static instruction counts are taken: ``shfl``, ``ld.shared``/``st.shared`` by bits per
thread (``st.shared.128`` = one ``.v4.b32``), ``bar.sync``, ``ldmatrix``/``stmatrix``; and its
shared bytes. With ``--triton PYTHON`` the same one-op kernel compiled by Triton 3.9 (CPU wheel,
``bench/triton_ptx.py``) is counted with the same function. The kernels have no loops: static
counts are the per-thread counts.

    python bench/ptx_counts.py [--triton /path/to/python-with-triton]
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import os
import platform
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _load(name: str):  # a bench script: loaded by path
    spec = importlib.util.spec_from_file_location(f"bench_{name}", os.path.join(HERE, f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ORDER = ("shfl", "bar.sync", "ldmatrix", "stmatrix")
ACCESSES = ("st.shared", "ld.shared", "ldmatrix", "stmatrix", "bar.sync")


def _cell(counts: dict, shared: int) -> str:
    parts = [f"{k}={counts[k]}" for k in ORDER if counts.get(k)]
    for key in sorted(k for k in counts if re.fullmatch(r"(st|ld)\.shared\.\d+", k)):
        parts.append(f"{key}={counts[key]}")
    return f"{shared} B; " + (" ".join(parts) or "none")


def _llc_shared(ptx: str) -> int:
    from llc.passes.targets.ptx import shared_bytes

    static = sum(int(n) for n in re.findall(r"\.shared \.align \d+ \.b8 \w+\[(\d+)\]", ptx))
    return static + shared_bytes(ptx, "kernel")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--triton", metavar="PYTHON", help="a Python with triton: its figures")
    args = parser.parse_args()
    from llc.passes.conversion_kernel import conversion_ptx

    conversions = _load("conversions")
    counter = _load("triton_ptx").ptx_counts
    suite = conversions._suite()
    triton = None
    if args.triton:
        jobs = [
            {"name": str(i), "ttgir": conversions._ttgir(s, d, shape, t, s.num_warps)}
            for i, (_, s, d, shape, t) in enumerate(suite)
        ]
        triton = conversions._triton_figures(args.triton, jobs)
    stamp = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    print(f"date: {stamp}; platform: {platform.platform()}; python {platform.python_version()}")
    head = ["conversion", "shape", "dtype", "llc PTX (smem; counts)"]
    if triton:
        head.append("Triton 3.9 PTX (smem; counts)")
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" for _ in head) + "|")
    totals = {"llc": [0, 0], "triton": [0, 0]}  # shared bytes, shared accesses + barriers
    above: list[str] = []
    for i, (name, src, dst, shape, dtype) in enumerate(suite):
        ptx = conversion_ptx(src, dst, shape, dtype, src.num_warps, "sm_90")
        counts = counter(ptx)
        shared = _llc_shared(ptx)
        row = [name, "x".join(map(str, shape)), dtype, _cell(counts, shared)]
        totals["llc"][0] += shared
        totals["llc"][1] += sum(counts.get(k, 0) for k in ACCESSES)
        if triton:
            fig = triton[i]
            if "error" in fig:
                row.append(f"n/a ({fig['error'][:60]})")
            else:
                row.append(_cell(fig, int(fig["shared"])))
                totals["triton"][0] += int(fig["shared"])
                totals["triton"][1] += sum(fig.get(k, 0) for k in ACCESSES)
                if shared > int(fig["shared"]):
                    above.append(f"{name} {row[1]} {dtype}")
        print("| " + " | ".join(row) + " |")
    print()
    for who in ("llc", "Triton") if triton else ("llc",):
        t = totals[who.lower()]
        print(
            f"{who} total: {t[0]} shared bytes, {t[1]} shared accesses (incl. ld/stmatrix)+barriers"
        )
    if triton:
        print(f"rows where llc's kernel has more shared bytes than Triton's: {above or 0}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
