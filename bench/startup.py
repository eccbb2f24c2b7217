"""Start-up time of llc's command-line tools (``--help``, ``--version`` and small real runs).

Each command runs ``--repeat`` times as a fresh process (what a shell or a lit test pays); the
table gives the best and the median wall time. ``python -c pass`` is the floor: the interpreter's
own start-up, which no change to llc can remove. The tools are run from the ``bin/`` folder of
the running interpreter (the virtual environment llc is installed in).

    python bench/startup.py                  # best and median of 10 runs per command
    python bench/startup.py --repeat 20
    python bench/startup.py --importtime     # also the slowest imports of each --help
    python bench/startup.py --bin OLD/.venv/bin --bin .venv/bin   # two installs, interleaved

With several ``--bin`` folders (virtual environments of two checkouts, say before and after a
change) each command runs in each of them in turn, so the machine's load affects both alike.

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


def _resolve(argv: list[str], bin_dir: str) -> list[str]:
    if argv[0] == sys.executable:
        return [os.path.join(bin_dir, "python"), *argv[1:]]
    tool = os.path.join(bin_dir, argv[0])
    return [tool, *argv[1:]] if os.path.exists(tool) else argv


def _time(commands: list[list[str]], repeat: int) -> list[tuple[float, float, int]]:
    """Best and median wall time and exit status of each command, run in turn ``repeat`` times."""
    times: list[list[float]] = [[] for _ in commands]
    codes = [0] * len(commands)
    for _ in range(repeat):
        for i, argv in enumerate(commands):
            start = time.perf_counter()
            done = subprocess.run(argv, cwd=ROOT, capture_output=True, check=False)
            times[i].append(time.perf_counter() - start)
            codes[i] = done.returncode
    return [(min(t), statistics.median(t), c) for t, c in zip(times, codes, strict=True)]


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
    parser.add_argument(
        "--bin",
        action="append",
        help="folder holding python and the tools (repeatable; default: this interpreter's)",
    )
    args = parser.parse_args()
    bins = [os.path.abspath(b) for b in args.bin] if args.bin else [BIN]

    print(f"date:     {datetime.datetime.now(datetime.UTC).isoformat(timespec='seconds')}")
    print(f"platform: {platform.platform()}")
    print(f"python:   {platform.python_implementation()} {platform.python_version()}")
    print(f"cpus:     {os.cpu_count()}  ({platform.machine()})")
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    if load is not None:
        print(f"load:     {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1/5/15 min)")
    print(f"runs:     {args.repeat} per command, wall time of a fresh process")
    for i, bin_dir in enumerate(bins):
        print(f"bin #{i}:   {bin_dir}")
    print()
    header = "".join(
        f" {f'best #{i}':>8} {f'median #{i}':>10} {'exit':>4}" for i in range(len(bins))
    )
    print(f"{'command':<48}{header}")
    print("-" * (48 + 24 * len(bins)))
    for label, argv in COMMANDS:
        results = _time([_resolve(argv, b) for b in bins], args.repeat)
        row = "".join(f" {best:8.3f} {median:10.3f} {code:4d}" for best, median, code in results)
        print(f"{label:<48}{row}")
        if args.importtime and label.endswith("--help"):
            print("\n".join(_slowest_imports(_resolve(argv, bins[-1]))))


if __name__ == "__main__":
    main()
