"""Start-up time of llc's command-line tools (``--help``, ``--version`` and small real runs).

Each command runs ``--repeat`` times as a fresh process (what a shell or a lit test pays); the
table gives the best and the median wall time. ``python -c pass`` is the floor: the interpreter's
own start-up, which no change to llc can remove. The tools are run from the ``bin/`` folder of
the running interpreter (the virtual environment llc is installed in).

    python bench/startup.py                  # best and median of 10 runs per command
    python bench/startup.py --repeat 20
    python bench/startup.py --importtime     # also the slowest imports of each --help

Target (issue 7): every tool's ``--help`` under 0.25 s.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.dirname(sys.executable)

BLOCKED = (
    "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
    "order = [1, 0]}>"
)

COMMANDS: list[tuple[str, list[str]]] = [
    ("python -c pass (floor)", [sys.executable, "-c", "pass"]),
    ("llc-layout --help", ["llc-layout", "--help"]),
    ("llc-opt --help", ["llc-opt", "--help"]),
    ("llc-run --help", ["llc-run", "--help"]),
    ("llc-layout --version", ["llc-layout", "--version"]),
    ("llc-opt --version", ["llc-opt", "--version"]),
    ("llc-run --version", ["llc-run", "--version"]),
    ("llc-layout (no arguments: usage error)", ["llc-layout"]),
    ("llc-layout 'Swizzle<3,4,3>' (CuTe)", ["llc-layout", "Swizzle<3,4,3>"]),
    (
        "llc-layout BLOCKED --shape 32x32 --view bases",
        ["llc-layout", BLOCKED, "--shape", "32x32", "--view", "bases"],
    ),
    ("llc-opt examples/vector_add.mlir", ["llc-opt", "examples/vector_add.mlir"]),
    (
        "llc-run examples/vector_add.mlir (5 elements)",
        [
            "llc-run",
            "examples/vector_add.mlir",
            "--entry",
            "add_kernel",
            "--args",
            "[1,2,3,4,5]",
            "[10,20,30,40,50]",
            "zeros:5xf32",
            "5",
        ],
    ),
]


def _resolve(argv: list[str]) -> list[str]:
    tool = os.path.join(BIN, argv[0])
    return [tool, *argv[1:]] if os.path.exists(tool) else argv


def _time(argv: list[str], repeat: int) -> tuple[float, float, int]:
    times: list[float] = []
    code = 0
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
        code = done.returncode
    return min(times), statistics.median(times), code


def _slowest_imports(argv: list[str], count: int = 8) -> list[str]:
    """The imports with the largest cumulative time under ``python -X importtime``."""
    # A console script is a Python file: run it under this interpreter with -X importtime.
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    rows = []
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = line.split("|")
            if cumulative.strip().isdigit():
                rows.append((int(cumulative), name.rstrip()))
    rows.sort(reverse=True)
    return [f"    {us / 1000:7.1f} ms {name}" for us, name in rows[:count]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--importtime", action="store_true")
    args = parser.parse_args()

    print(f"date:     {datetime.datetime.now(datetime.UTC).isoformat(timespec='seconds')}")
    print(f"platform: {platform.platform()}")
    print(f"python:   {platform.python_implementation()} {platform.python_version()}")
    print(f"cpus:     {os.cpu_count()}  ({platform.machine()})")
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    if load is not None:
        print(f"load:     {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1/5/15 min)")
    print(f"runs:     {args.repeat} per command, wall time of a fresh process")
    print()
    print(f"{'command':<48} {'best s':>7} {'median s':>9} {'exit':>5}")
    print("-" * 72)
    for label, argv in COMMANDS:
        best, median, code = _time(_resolve(argv), args.repeat)
        print(f"{label:<48} {best:7.3f} {median:9.3f} {code:5d}")
        if args.importtime and label.endswith("--help") and not label.startswith("python"):
            print("\n".join(_slowest_imports(_resolve(argv))))


if __name__ == "__main__":
    main()
