"""llc-remove-conversions chooses by the whole-kernel figure (``--layout-report``'s total).

* After the whole-function solver (``llc-optimize-layouts``), the greedy rewrites never raise the
  figure the solver minimized.
* On Triton's own laid-out TTGIR (the fixtures of ``examples/triton``), the pass's result is never
  above its input nor above what the greedy rewrites alone reach, and never leaves more
  conversions than its input.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from layout_helpers import strip_layouts
from xdsl.context import Context

from llc.dialects.diagnostics import parse_module
from llc.dialects.ttgir import parse_triton_module
from llc.passes.layout_passes import (
    AssignAnchorsPass,
    PropagateLayoutsPass,
    RemoveConversionsPass,
    count_conversions,
    module_figure,
)
from llc.tools.run import make_context

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", ["softmax", "matmul_epilogue", "attention"])
def test_greedy_after_the_solver_keeps_its_optimum(name: str) -> None:
    ctx = make_context()
    module = parse_module(ctx, (ROOT / "examples" / f"{name}.mlir").read_text(), name)
    module = strip_layouts(module)
    AssignAnchorsPass().apply(ctx, module)
    PropagateLayoutsPass(solver="ilp").apply(ctx, module)
    solved = module_figure(module)
    RemoveConversionsPass(solver="staged").apply(ctx, module)  # as llc-optimize-layouts runs it
    module.verify()
    assert module_figure(module)[0] <= solved[0]


@pytest.mark.parametrize("name", ["softmax.sm80", "transpose.sm80", "argmax_rows.sm90"])
def test_on_triton_ttgir_the_pass_never_loses(name: str) -> None:
    text = (ROOT / "examples" / "triton" / f"{name}.ttgir").read_text()
    given = parse_triton_module(text, name)
    greedy = parse_triton_module(text, name)
    chosen = parse_triton_module(text, name)
    RemoveConversionsPass(solver="staged").apply(Context(), greedy)
    RemoveConversionsPass().apply(Context(), chosen)
    chosen.verify()
    assert module_figure(chosen)[0] <= module_figure(greedy)[0]
    assert module_figure(chosen)[0] <= module_figure(given)[0]
    assert count_conversions(chosen) <= count_conversions(given)
