"""Plant the review's wrong decisions one at a time and see which default tests catch them.

    python bench/mutants.py [--only NAME ...] [--list]

Each mutant is a textual edit of one source file (it must match exactly once). For each, the
script copies the repository (without ``.git``, ``.venv`` and caches) into a scratch directory
``TMP/llc`` and applies the edit there, then runs the mutant's relevant test files with
``PYTHONPATH=TMP/llc``, its ``llc/`` folder linked to the subpackages' folders (so ``import
llc`` is the scratch copy, ahead of the editable install; checked), one ``pytest -x`` per
file (``lit -q`` for a ``test/lit`` folder). A file *catches* the mutant when it fails; the
table gives the first failing test of each catching file, and the time. The mutants:

* every barrier the lowering emits, dropped at its source (``local_store``'s leading and
  trailing barriers, the cross-warp exchange's middle and trailing ones, the trailing barriers
  of conversions and gathers, a conversion round's barrier, the barrier between rounds, the
  gather program's barrier), the barrier analysis saying that no barrier is ever needed, or
  that every barrier is (no pruning), and the interpreter's old fresh buffer per execution of
  an alloc;
* a flipped shuffle lane mask (conversion shuffles, reduction butterflies);
* the most expensive conversion candidate (``llc.lowering`` ranks candidates by cost:
  ``min`` -> ``max``);
* the most expensive layout candidate (``passes/layout_assignment.py``'s resolve:
  ``min`` -> ``max``).

A mutant's test files run in the order given, cheapest catcher first, up to the first that
catches it (``--every``: all of them; "tests run" lists them all).

Prints a Markdown table (mutant, tests run, caught by, time) and exits 1 if a mutant survives.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LOWER = "test/unit/test_lower_to_simt.py"
BARRIERS = "test/unit/test_barriers.py"
CONVERSIONS = "test/unit/test_lower_conversions.py"
GATHER = "test/unit/test_gather_plan.py"
LAYOUT = "test/unit/test_layout_passes.py"
INTERPRETER = "test/unit/test_simt_interpreter.py"


@dataclass(frozen=True)
class Mutant:
    """One wrong decision: replace ``old`` (exactly one occurrence) by ``new`` in ``path``."""

    name: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]


_EXCHANGE_STORE = "list(range(c, c + per))))\n    p.barrier()"
_EXCHANGE_END = """    p.barrier()
    p.output = p.concat(parts)"""

MUTANTS = [
    Mutant(
        "drop local_store's leading barrier",
        "passes/lower_to_simt.py",
        "    lowering.emit(gpu.BarrierOp())  # earlier readers of the buffer are done\n",
        "",
        (BARRIERS, LOWER),
    ),
    Mutant(
        "drop local_store's trailing barrier",
        "passes/lower_to_simt.py",
        "laid.value)\n    lowering.emit(gpu.BarrierOp())",
        "laid.value)",
        (BARRIERS, LOWER),
    ),
    Mutant(
        "drop the exchange's middle barrier",
        "llc/lowering.py",
        _EXCHANGE_STORE,
        _EXCHANGE_STORE.rsplit("\n", 1)[0],
        (BARRIERS, LOWER),
    ),
    Mutant(
        "drop the exchange's trailing barrier",
        "llc/lowering.py",
        _EXCHANGE_END,
        "    p.output = p.concat(parts)",
        (BARRIERS, LOWER),
    ),
    Mutant(
        "drop a conversion's trailing barrier",
        "passes/lower_to_simt.py",
        '    if strategies[-1] == "shared":\n        # the buffer\'s next use',
        "    if False:\n        # the buffer's next use",
        (BARRIERS, LOWER),
    ),
    Mutant(
        "drop a gather's trailing barrier",
        "passes/lower_to_simt.py",
        '    if plans[0].strategy == "shared":  # as in convert',
        "    if False:  # as in convert",
        (BARRIERS, LOWER),
    ),
    Mutant(
        "drop a conversion round's barrier",
        "llc/lowering.py",
        '            addresses["st"].append(s_base ^ const)\n        p.barrier()',
        '            addresses["st"].append(s_base ^ const)',
        (CONVERSIONS, BARRIERS),
    ),
    Mutant(
        "drop the barrier between rounds",
        "llc/lowering.py",
        "        if rnd:\n            p.barrier()\n",
        "",
        (CONVERSIONS, BARRIERS),
    ),
    Mutant(
        "drop the gather program's barrier",
        "llc/gather.py",
        "        program.barrier()\n",
        "",
        (GATHER, BARRIERS),
    ),
    Mutant(
        "barrier analysis: never needed",
        "passes/barriers.py",
        "    return any(_conflict(a, b) for a in before for b in after)",
        "    return False",
        (BARRIERS, LOWER),
    ),
    Mutant(
        "barrier analysis: always needed (no pruning)",
        "passes/barriers.py",
        "    return any(_conflict(a, b) for a in before for b in after)",
        "    return True",
        (BARRIERS,),
    ),
    Mutant(
        "interpreter: a fresh buffer per alloc execution",
        "dialects/simt_interpreter.py",
        "        mem = self.shared.get(op)\n",
        "        mem = None\n",
        (INTERPRETER, BARRIERS),
    ),
    Mutant(
        "flip a conversion shuffle's lane mask",
        "llc/lowering.py",
        "        b = p.const(lane_offset) if xor_mode else",
        "        b = p.const(lane_offset ^ 1) if xor_mode else",
        (CONVERSIONS,),
    ),
    Mutant(
        "flip a reduction butterfly's lane mask",
        "passes/lower_to_simt.py",
        'p.shuffle("bfly", 0, p.const(lane_mask), lowering.lanes - 1)',
        'p.shuffle("bfly", 0, p.const(lane_mask ^ 1), lowering.lanes - 1)',
        (LOWER, BARRIERS),
    ),
    Mutant(
        "most expensive conversion strategy",
        "llc/lowering.py",
        "    chosen = min(candidates, key=_plan_rank)",
        "    chosen = max(candidates, key=_plan_rank)",
        (CONVERSIONS,),
    ),
    Mutant(
        "most expensive layout candidate",
        "passes/layout_assignment.py",
        "best = min(costs, key=lambda t: (t[0], not _coalesced(t[2]), t[1]))",
        "best = max(costs, key=lambda t: (t[0], not _coalesced(t[2]), t[1]))",
        (
            "test/unit/test_layout_solver.py",
            LAYOUT,
            "test/unit/test_layout_passes_generated.py",
            "test/unit/test_examples.py",
            "test/lit/transforms",
            "test/lit/triton",
            "test/lit/layout",
        ),
    ),
]


def _copy(dst: Path) -> Path:
    """Copy the repository to ``dst`` and make the copy's ``llc/`` folder the whole package:
    ``pyproject.toml``'s ``package-dir`` puts ``llc.dialects`` in ``dialects/`` (and so on),
    so ``llc/dialects`` becomes a link to ``../dialects``. Whichever way ``import llc`` finds the
    copy (``PYTHONPATH``, or pytest putting the root on ``sys.path``), its subpackages are the
    copy's too, never the editable install's. Returns the folder for ``PYTHONPATH``."""
    import tomllib

    ignore = shutil.ignore_patterns(
        ".git", ".venv", "__pycache__", ".pytest_cache", ".ruff_cache", "*.egg-info", ".lit_*"
    )
    shutil.copytree(ROOT, dst, ignore=ignore, symlinks=True)
    with open(dst / "pyproject.toml", "rb") as file:
        package_dir = tomllib.load(file)["tool"]["setuptools"]["package-dir"]
    top = dst / package_dir["llc"]
    for name, folder in package_dir.items():
        link = top / "/".join(name.split(".")[1:])
        if name != "llc" and not link.exists():
            link.symlink_to(dst / folder)
    return top.parent


def _apply(tree: Path, mutant: Mutant) -> str | None:
    """Edit the scratch copy; the reason it cannot be applied, else None."""
    path = tree / mutant.path
    text = path.read_text()
    count = text.count(mutant.old)
    if count != 1:
        return f"the edit matches {count} times in {mutant.path}"
    path.write_text(text.replace(mutant.old, mutant.new))
    return None


def _run_file(tree: Path, path: Path, test: str) -> tuple[bool, str, float]:
    """(caught, first failing test or '', seconds) of ``pytest -x`` on one file."""
    env = {**os.environ, "PYTHONPATH": str(path)}
    env.pop("PYTEST_ADDOPTS", None)
    start = time.perf_counter()
    if test.startswith("test/lit/"):
        lit = shutil.which("lit", path=os.path.dirname(sys.executable)) or "lit"
        proc = subprocess.run(
            [lit, "-q", test], cwd=tree, env=env, capture_output=True, text=True, check=False
        )
        seconds = time.perf_counter() - start
        failed = re.findall(r"^\s+llc :: (\S+)", proc.stdout, re.MULTILINE)
        if proc.returncode == 0:
            return False, "", seconds
        return (
            True,
            f"{test.rstrip('/')}/{failed[0]}" if failed else f"exit {proc.returncode}",
            seconds,
        )
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", test],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - start
    if proc.returncode == 0:
        return False, "", seconds
    failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", proc.stdout, re.MULTILINE)
    return True, failed[0] if failed else f"exit {proc.returncode}", seconds


def run_mutant(mutant: Mutant, every: bool = False) -> tuple[list[str], float, str]:
    """(catching tests, seconds, note) of one mutant in a fresh scratch copy: its test files in
    order until one catches it (``every``: all of them)."""
    with tempfile.TemporaryDirectory(prefix="llc-mutant-") as tmp:
        tree = Path(tmp) / "llc"
        path = _copy(tree)
        problem = _apply(tree, mutant)
        if problem:
            return [], 0.0, problem
        env = {**os.environ, "PYTHONPATH": str(path)}
        where = subprocess.run(
            [sys.executable, "-c", "import llc; print(llc.__file__)"],
            env=env,
            capture_output=True,
            text=True,
            check=False,
            cwd=tmp,
        ).stdout.strip()
        if not where.startswith(str(tree)):
            return [], 0.0, f"import llc reaches {where}, not the scratch copy"
        caught, total = [], 0.0
        for test in mutant.tests:
            hit, first, seconds = _run_file(tree, path, test)
            total += seconds
            if hit:
                caught.append(first)
                if not every:
                    break
        return caught, total, ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", help="run only mutants whose name contains these")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument(
        "--every",
        action="store_true",
        help="run every test file of a mutant, not only up to the first that catches it",
    )
    args = parser.parse_args(argv)
    mutants = [m for m in MUTANTS if not args.only or any(word in m.name for word in args.only)]
    if args.list:
        for m in mutants:
            print(f"{m.name}: {m.path}")
        return 0
    print("| mutant | tests run | caught by | time (s) |")
    print("|---|---|---|---:|")
    survivors = 0
    for m in mutants:
        caught, seconds, note = run_mutant(m, args.every)
        files = ", ".join(Path(t).name for t in m.tests)
        verdict = note or ("<br>".join(f"`{c}`" for c in caught) if caught else "**not caught**")
        survivors += not caught
        print(f"| {m.name} | {files} | {verdict} | {seconds:.0f} |", flush=True)
    print(f"\n{len(mutants) - survivors} of {len(mutants)} mutants caught")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
