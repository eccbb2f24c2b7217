"""Every example compiled with ``llc-compile`` and run by the SIMT interpreter: per-thread
instructions by kind, shared-memory wavefronts against ideal, global sectors against the minimum,
registers, and the interpreter's wall time on the lowered kernel against the tensor-level run.

    python bench/lowered_kernels.py [--repeat N]

Inputs and grids are those of ``test/lit/run/Inputs/check_example.py``. Times are the best of
``--repeat`` in-process ``llc-run`` calls (parse, verify and run; no process start-up).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "lit" / "run" / "Inputs"))

import check_example as ex  # noqa: E402

from llc.tools.cli import run_arg_parser  # noqa: E402
from llc.tools.run import run  # noqa: E402

KERNELS = list(ex.KERNELS)


def _llc_run(path: str, kernel: str, case: ex.Case, extra: list[str]) -> tuple[float, str]:
    argv = [path, "--entry", ex.ENTRIES[kernel], "--grid", case.grid, *extra]
    args = run_arg_parser().parse_args([*argv, "--args", *case.args])
    out = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out):
        run(args)
    return time.perf_counter() - start, out.getvalue()


def _compile(src: str, dst: str) -> None:
    from llc.testing.semantics import apply_pipeline, parse

    module = parse(Path(src).read_text())
    apply_pipeline(module, "llc-compile")
    Path(dst).write_text(str(module))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    opts = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for kernel in KERNELS:
            src = str(ROOT / "examples" / "ttir" / f"{kernel}.mlir")
            low = os.path.join(work, f"{kernel}.simt.mlir")
            _compile(src, low)
            case = ex.KERNELS[kernel](work)
            t_tensor = min(_llc_run(src, kernel, case, [])[0] for _ in range(opts.repeat))
            runs = [_llc_run(low, kernel, case, ["--stats"]) for _ in range(opts.repeat)]
            t_simt = min(t for t, _ in runs)
            stats = runs[0][1]
            instr = re.search(r"instructions per thread: (.*)", stats).group(1)  # type: ignore[union-attr]
            kinds = dict(
                (k, float(n)) for k, n in (item.rsplit(" ", 1) for item in instr.split(", "))
            )
            wf = re.search(r"(\d+) wavefronts \(ideal (\d+)\)", stats)
            sec = re.search(r"(\d+) sectors of 32 bytes \(minimum (\d+)", stats)
            regs = re.search(r"registers per thread: (\d+)", stats)
            programs = re.search(r"(\d+) program\(s\)", stats)
            rows.append((kernel, kinds, wf, sec, regs, programs, t_tensor, t_simt))
    print(
        "| kernel | programs | instructions per thread (total; memory and shuffles) | "
        "shared wavefronts (ideal) | global sectors (minimum) | registers | "
        "tensor-level s | lowered s | lowered / tensor |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for kernel, kinds, wf, sec, regs, programs, t_tensor, t_simt in rows:
        total = sum(kinds.values())
        mem = ", ".join(
            f"{k} {n:g}"
            for k, n in kinds.items()
            if k.startswith(("ld.", "st.", "shfl", "mma", "bar"))
        )
        print(
            f"| {kernel} | {programs.group(1)} | {total:g}; {mem} | "
            f"{wf.group(1)} ({wf.group(2)}) | "
            f"{sec.group(1)} ({sec.group(2)}) | {regs.group(1)} | {t_tensor:.3f} | {t_simt:.3f} | "
            f"{t_simt / t_tensor:.1f}x |"
        )
    print()
    print("Instructions by kind per thread (all kinds):")
    print()
    for kernel, kinds, *_ in rows:
        print(f"- {kernel}: " + ", ".join(f"{k} {n:g}" for k, n in kinds.items()))


if __name__ == "__main__":
    main()
