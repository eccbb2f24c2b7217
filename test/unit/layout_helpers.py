"""Helpers of the layout-pass tests."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from llc.passes.strip_layouts import StripLayoutsPass


def strip_layouts(module: ModuleOp) -> ModuleOp:
    """The layout-free form of ``module`` (``llc-strip-layouts``), in place."""
    StripLayoutsPass().apply(Context(), module)
    module.verify()
    return module
