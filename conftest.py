"""Collect the doctests of every module of the ``llc`` package under its installed name.

``pyproject.toml`` maps ``llc.dialects``, ``llc.passes`` and ``llc.tools`` to the top-level
folders ``dialects/``, ``passes/`` and ``tools/``. pytest's own ``--doctest-modules`` imports a
file by its path (``dialects/tl.py`` as ``dialects.tl``), which would load a second copy of each
module beside ``llc.dialects.tl``: two ``TL`` dialects, two ``LayoutError``-raising attribute
classes, ``isinstance`` checks that fail across the copies. So this plugin collects the doctests
itself (``--doctest-modules`` stays off) and imports each file by its package name, read from
``package-dir`` in ``pyproject.toml``.
"""

from __future__ import annotations

import gc
import importlib
import tomllib
from pathlib import Path
from types import ModuleType

import pytest
from _pytest.doctest import DoctestModule

_ROOT = Path(__file__).resolve().parent


def _package_dirs() -> dict[Path, str]:
    """Folder -> package name, from ``[tool.setuptools] package-dir``."""
    with open(_ROOT / "pyproject.toml", "rb") as file:
        package_dir = tomllib.load(file)["tool"]["setuptools"]["package-dir"]
    return {(_ROOT / folder).resolve(): name for name, folder in package_dir.items()}


_PACKAGE_DIRS = _package_dirs()


def module_name(path: Path) -> str | None:
    """The import name of ``path`` (``dialects/tl.py`` -> ``llc.dialects.tl``), or ``None``
    outside the package."""
    package = _PACKAGE_DIRS.get(path.parent.resolve())
    if package is None:
        return None
    return package if path.name == "__init__.py" else f"{package}.{path.stem}"


class PackageDoctestModule(DoctestModule):
    """pytest's doctest collector, importing the module by its package name."""

    def _getobj(self) -> ModuleType:
        name = module_name(self.path)
        assert name is not None  # only created for files inside the package
        return importlib.import_module(name)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix != ".py" or module_name(file_path) is None:
        return None
    return PackageDoctestModule.from_parent(parent, path=file_path)


GC_THRESHOLD = (50_000, 20, 100)
"""The cyclic collector's thresholds in a test process (CPython's default: 700, 10, 10).

The tests build and drop millions of small xDSL objects (ops, attributes, uses) that reference
counting frees; at the default the collector ran every 700 net allocations and walked the whole
heap (every cached module and layout) thousands of times per file: 5 to 18 % of a test file's
CPU (``test_lower_conversions``' random pairs: 5.5 s of 29 s; with these thresholds and the
freeze below, 1.8 s of 23 s; ``test_barriers``: 1.6 s of 22.9 s, then 0.5 s of 21.1 s)."""


def pytest_configure(config: pytest.Config) -> None:
    gc.set_threshold(*GC_THRESHOLD)


def pytest_collection_finish(session: pytest.Session) -> None:
    # What the collection imported (xDSL, numpy, llc's modules and tables) lives to the end of
    # the process: out of every later collection's walk.
    gc.collect()
    gc.freeze()


def pytest_unconfigure(config: pytest.Config) -> None:
    # Back to the collector for the interpreter's exit: frozen objects are never freed, and
    # nanobind (Triton's bindings) reports those of its types as leaked.
    gc.unfreeze()
