"""pytest collects the doctests of llc, dialects, passes and tools, each module under its
package name (conftest.py), so no module is imported twice under a path-derived name."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_doctests_of_every_folder_are_collected_under_package_names() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-o",
            "addopts=",
            "-p",
            "no:cacheprovider",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    names = set(re.findall(r"<DoctestItem ([\w.]+)>", proc.stdout))
    for expected in (
        "llc.linear_layout",
        "llc.layouts.blocked",
        "llc.dialects.tl",
        "llc.dialects.diagnostics",
        "llc.dialects.universe",
        "llc.passes.strip_layouts",
        "llc.tools.layout",
        "llc.tools.diagnostics",
    ):
        assert any(name == expected or name.startswith(expected + ".") for name in names), expected
    # A path-derived name (dialects.tl, tools.run, ...) would mean a second copy of the module.
    assert not [n for n in names if n.split(".")[0] in {"dialects", "passes", "tools"}]
