"""Compile an example's layout-free form with llc-compile and check the SIMT run against the
tensor-level run.

    python check_lowered.py KERNEL LAYOUT_FREE.mlir WORKDIR

Writes the lowered module to ``WORKDIR/KERNEL.simt.mlir`` (for FileCheck), runs the layout-free
tensor IR and the lowered IR under ``llc-run`` on the same seeded inputs (the cases of
``check_example.py``) and requires bit-identical buffers, except for kernels with a ``tl.dot``,
whose float sums the lowering reassociates (documented in the README): those must agree to the
case's tolerance. Prints ``KERNEL: lowered OK ...`` and the ``--stats`` of the lowered run.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import check_example as ex

REASSOCIATES = {"matmul_epilogue", "attention", "matmul", "flash_attention"}
"""Kernels whose dot lowering sums in another order than the tensor-level interpreter."""


def _run(kernel: str, path: str, case: ex.Case, out: str, extra: list[str]) -> str:
    cmd = ["llc-run", path, "--entry", ex.ENTRIES[kernel]]
    cmd += ["--grid", case.grid, "--out", out, *extra, "--args", *case.args]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{kernel}: llc-run {path} failed ({proc.returncode}):\n{proc.stderr}")
    return proc.stdout


def main() -> None:
    kernel, path, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    lowered = os.path.join(work, f"{kernel}.simt.mlir")
    cmd = ["llc-opt", path, "-p", "llc-compile", "-o", lowered]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{kernel}: llc-compile failed ({proc.returncode}):\n{proc.stderr}")
    case = ex.KERNELS[kernel](work)
    _run(kernel, path, case, os.path.join(work, "tensor"), [])
    stats = _run(kernel, lowered, case, os.path.join(work, "simt"), ["--stats"])
    worst = 0.0
    for name in case.expected:
        ref = np.load(os.path.join(work, "tensor", f"{name}.npy"))
        got = np.load(os.path.join(work, "simt", f"{name}.npy"))
        if kernel in REASSOCIATES:
            if not np.allclose(got, ref, rtol=case.rtol, atol=case.atol):
                raise SystemExit(f"{kernel}: {name} of the lowered kernel differs beyond tolerance")
            worst = max(worst, float(np.max(np.abs(got.astype(np.float64) - ref))))
        elif not np.array_equal(got, ref, equal_nan=True):
            bad = np.argwhere(got != ref)[0]
            raise SystemExit(
                f"{kernel}: {name} of the lowered kernel differs at {tuple(bad)}: "
                f"{got[tuple(bad)]} vs {ref[tuple(bad)]}"
            )
    how = f"within {worst:.2g} (dot reassociates)" if kernel in REASSOCIATES else "bit-identical"
    print(f"{kernel}: lowered OK, {how}")
    print(stats)


if __name__ == "__main__":
    main()
