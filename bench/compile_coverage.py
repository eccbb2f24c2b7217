"""Which real kernels of ``examples/triton`` ``llc-compile`` lowers to SIMT code (sm_80 layouts),
and, for the others, the op it stops at (session 4's coverage table in ``bench/RESULTS.md``).

    python bench/compile_coverage.py [STEM ...]

Each fixture's TTIR goes through ``llc-optimize-layouts`` (as ``test/unit/test_real_kernels.py``
does) and then ``llc-compile``; ``runs`` marks the ones that test runs against the tensor level.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "unit"))

from test_real_kernels import LOWERED_RUNS, REAL_KERNELS, _optimized  # noqa: E402

from llc.passes.compile import CompilePass  # noqa: E402
from llc.tools.run import make_context  # noqa: E402


def main(stems: list[str]) -> None:
    """Print one line per kernel: ``<stem> OK [runs]`` or ``<stem> FAIL <first line>``."""
    lowered = 0
    names = stems or [*REAL_KERNELS, "extra_ops"]
    for k in names:
        stem = f"{k}.sm80"
        try:
            module = _optimized(stem).clone()
            CompilePass().apply(make_context(), module)
            lowered += 1
            print(stem, "OK", "runs" if k in LOWERED_RUNS else "")
        except Exception as err:  # the op it stops at, one line
            print(stem, "FAIL", str(err).splitlines()[0][:150])
    print(f"{lowered} of {len(names)} lower; {len(LOWERED_RUNS)} run in test_real_kernels.py")


if __name__ == "__main__":
    main(sys.argv[1:])
