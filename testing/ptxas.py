"""``ptxas`` from the ``nvidia-cuda-nvcc`` wheel (test extra): assemble PTX, report diagnostics.

>>> find_ptxas() is None or find_ptxas().endswith("ptxas")
True
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from functools import cache

__all__ = ["assemble", "find_ptxas"]


@cache
def find_ptxas() -> str | None:
    """The ``ptxas`` of the ``nvidia-cuda-nvcc`` wheel (``nvidia/cu13/bin``), else the one on
    ``PATH``, else ``None``."""
    try:
        import nvidia  # type: ignore[import-not-found]

        for root in nvidia.__path__:
            for sub in ("cu13", "cuda_nvcc", "cu12"):
                candidate = os.path.join(root, sub, "bin", "ptxas")
                if os.access(candidate, os.X_OK):
                    return candidate
    except ImportError:
        pass
    return shutil.which("ptxas")


def assemble(ptx: str, arch: str) -> str:
    """Run ``ptxas -arch=ARCH`` on ``ptx``; its diagnostics ('' when clean). Only ptxas's default
    warnings: register spills (``--warn-on-spills``) are a performance figure, not a defect.

    Raises ``RuntimeError`` with the diagnostics when ptxas fails, ``FileNotFoundError`` when
    there is no ptxas.
    """
    ptxas = find_ptxas()
    if ptxas is None:
        raise FileNotFoundError("ptxas not found: pip install -e '.[test]' (nvidia-cuda-nvcc)")
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "k.ptx")
        with open(source, "w") as f:
            f.write(ptx)
        done = subprocess.run(
            [ptxas, f"-arch={arch}", source, "-o", os.path.join(tmp, "k.o")],
            capture_output=True,
            text=True,
            check=False,
        )
    text = (done.stdout + done.stderr).strip()
    if done.returncode:
        raise RuntimeError(f"ptxas -arch={arch} failed:\n{text}")
    return text
