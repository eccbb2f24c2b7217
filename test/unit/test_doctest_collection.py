"""pytest collects the doctests of llc, dialects, passes and tools, each module under its
package name (conftest.py), so no module is imported twice under a path-derived name."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from _pytest.doctest import DoctestItem

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("llc", "dialects", "passes", "tools", "testing")


def _collected_doctest_names(session: pytest.Session) -> set[str]:
    """The doctest items' names of this run when it collected the whole suite (the README's
    test command, on every xdist worker: each collects everything), else those of a separate
    ``pytest --collect-only`` of the package folders."""
    names = {item.name for item in session.items if isinstance(item, DoctestItem)}
    if any(name.startswith("llc.tools.") for name in names):
        return names
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
            *FOLDERS,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return set(re.findall(r"<DoctestItem ([\w.]+)>", proc.stdout))


def test_doctests_of_every_folder_are_collected_under_package_names(
    request: pytest.FixtureRequest,
) -> None:
    names = _collected_doctest_names(request.session)
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
