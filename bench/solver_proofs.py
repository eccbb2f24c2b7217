"""Which fixtures the whole-function solver proves optimal within its budget (issue 18).

    python bench/solver_proofs.py                 # every examples/triton/*.ttir
    python bench/solver_proofs.py --only sort,topk

Each fixture's TTIR (Triton 3.9's, ``bench/dump_triton.py``) goes through
``OptimizeLayoutsPass`` (``solver=ilp``, the default budget, its ``cuda:NN`` from the file
name). A function is *proven* when the pass prints no ``remark:`` (the remark says the budget ran
out and which assignment was kept). Per fixture: proven or not, the pass' CPU seconds, and the
slowest function's solve seconds. No Triton needed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import time
from pathlib import Path

from xdsl.context import Context

from llc.dialects.ttgir import HardwareDefaults, parse_triton_module
from llc.passes.layout_passes import OptimizeLayoutsPass

FIXTURES = Path(__file__).resolve().parents[1] / "examples" / "triton"


def prove(path: Path, budget: float) -> tuple[bool, float]:
    """Whether every function of ``path`` is proven within ``budget``, and the pass' CPU s."""
    arch = path.name.rsplit(".sm", 1)[1].split(".")[0]
    module = parse_triton_module(
        path.read_text(), str(path), HardwareDefaults(num_warps=4, target=f"cuda:{arch}")
    )
    err = io.StringIO()
    start = time.process_time()
    with contextlib.redirect_stderr(err):
        OptimizeLayoutsPass(solver_budget=budget).apply(Context(), module)
    return "remark:" not in err.getvalue(), time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated name prefixes")
    parser.add_argument("--budget", type=float, default=2.0)
    args = parser.parse_args()
    prefixes = [p for p in args.only.split(",") if p]
    paths = sorted(FIXTURES.glob("*.ttir"))
    if prefixes:
        paths = [p for p in paths if any(p.name.startswith(x) for x in prefixes)]
    proven = 0
    slow: list[tuple[float, str, bool]] = []
    for path in paths:
        ok, seconds = prove(path, args.budget)
        proven += ok
        slow.append((seconds, path.stem, ok))
        if not ok:
            print(f"not proven: {path.stem} ({seconds:.2f} s)")
    print(f"{proven} of {len(paths)} fixtures proven within {args.budget} s")
    for seconds, name, ok in sorted(slow, reverse=True)[:8]:
        print(f"  {name:32s} {seconds:6.2f} s {'proven' if ok else 'NOT proven'}")


if __name__ == "__main__":
    main()
