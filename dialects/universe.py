"""llc's xDSL universe: the ``tl`` dialect, llc's passes and targets, all loaded lazily.

``pyproject.toml`` declares it as the ``xdsl.universe`` entry point ``llc``, so the stock
``xdsl-opt`` (and any xDSL-based tool) parses ``tl`` IR and runs llc's passes once the package is
installed; ``llc-opt`` registers the same objects directly.

To add a pass or target, add one line to :data:`PASSES` / :data:`TARGETS`
(``"name": "module:ClassName"``); nothing is imported until the name is used.

>>> from llc.dialects.universe import LLC_UNIVERSE
>>> sorted(LLC_UNIVERSE.all_dialects)
['simt', 'tl']
>>> LLC_UNIVERSE.all_dialects["tl"]().name
'tl'

:data:`LLC_UNIVERSE` (everything llc adds to xDSL, for ``xdsl-opt``'s plugin discovery and for
``llc-opt``) is built on first access, so reading :data:`PASSES` imports no xDSL.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xdsl.ir import Dialect
    from xdsl.universe import Universe

__all__ = ["LLC_UNIVERSE", "PASSES", "TARGETS", "get_simt_dialect", "get_tl_dialect"]

LLC_UNIVERSE: Universe  # built on first access, by __getattr__ below

PASSES: dict[str, str] = {
    "llc-assign-anchors": "llc.passes.layout_passes:AssignAnchorsPass",
    "llc-propagate-layouts": "llc.passes.layout_passes:PropagateLayoutsPass",
    "llc-remove-conversions": "llc.passes.layout_passes:RemoveConversionsPass",
    "llc-optimize-layouts": "llc.passes.layout_passes:OptimizeLayoutsPass",
    "llc-strip-layouts": "llc.passes.strip_layouts:StripLayoutsPass",
    "llc-lower-conversions": "llc.passes.lower_conversions:LowerConversionsPass",
    "llc-pipeline": "llc.passes.pipeline:PipelinePass",
    "llc-lower-to-simt": "llc.passes.lower_to_simt:LowerToSimtPass",
    "llc-compile": "llc.passes.compile:CompilePass",
    "llc-decompose-dot-scaled": "llc.passes.decompose_dot_scaled:DecomposeDotScaledPass",
}
"""Pass name (kebab-case, as used in ``-p``) -> ``"module:ModulePassClass"``."""

TARGETS: dict[str, str] = {
    "ttgir": "llc.passes.targets.ttgir:TTGIRTarget",
    "ptx": "llc.passes.targets.ptx:PtxTarget",
}
"""Target name (as used in ``-t``) -> ``"module:TargetClass"``."""


def _lazy(path: str) -> Callable[[], Any]:
    """A factory importing ``"module:attr"`` on first call.

    >>> _lazy("llc.errors:LayoutError")().__name__
    'LayoutError'
    """
    module_name, _, attr = path.partition(":")

    def load() -> Any:
        return getattr(importlib.import_module(module_name), attr)

    return load


def get_tl_dialect() -> Dialect:
    """The ``tl`` dialect (ops, types and layout attributes) of :mod:`llc.dialects.tl`."""
    from llc.dialects.tl import TL

    return TL


def get_simt_dialect() -> Dialect:
    """The ``simt`` dialect of lowered code (:mod:`llc.dialects.simt`)."""
    from llc.dialects.simt import SIMT

    return SIMT


def _make_universe() -> Universe:
    from xdsl.universe import Universe

    return Universe(
        all_dialects={"tl": get_tl_dialect, "simt": get_simt_dialect},
        all_passes={name: _lazy(path) for name, path in PASSES.items()},
        all_targets={name: _lazy(path) for name, path in TARGETS.items()},
    )


def __getattr__(name: str) -> Any:
    # ``LLC_UNIVERSE`` is built on first use: the tools read PASSES/TARGETS for ``--help``
    # without importing xDSL (a fifth of a second), and the entry point loads it by getattr.
    if name == "LLC_UNIVERSE":
        universe = _make_universe()
        globals()["LLC_UNIVERSE"] = universe
        return universe
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
