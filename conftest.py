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
