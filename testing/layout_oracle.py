"""The layout solver against its oracle: per function of a module, the model, the ILP's optimum
and the staged analysis' cost (the tests of :mod:`llc.passes.layout_solver`).

>>> from llc.testing.kernel_gen import generate_kernel
>>> [case] = solve_cases(generate_kernel(3, steps=2).layout_free)
>>> case.optimum <= case.staged + 1e-9
True
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.func import FuncOp

from llc.dialects.diagnostics import parse_module
from llc.dialects.layout_rules import is_tensor
from llc.passes.layout_assignment import LayoutAnalysis, walk_ops
from llc.passes.layout_passes import PropagateLayoutsPass
from llc.passes.layout_solver import LayoutModel, SolveResult, solve_function

__all__ = ["SolverCase", "solve_cases", "staged_analysis"]


@dataclass
class SolverCase:
    """One function: its model, the ILP's result, and the model's cost of the ILP's assignment
    (``optimum``) and of the staged one (``staged``)."""

    name: str
    model: LayoutModel
    result: SolveResult
    optimum: float
    staged: float


def staged_analysis(text: str) -> LayoutAnalysis:
    """Parse ``text`` and run the staged analysis as ``llc-propagate-layouts`` does."""
    from llc.tools.run import make_context

    module = parse_module(make_context(), text, "<kernel>")
    return PropagateLayoutsPass().analyse(module, ["anchors", "propagate", "resolve", "fill"])


def solve_cases(text: str, budget: float = 30.0) -> list[SolverCase]:
    """Every function of ``text`` through the staged analysis and the solver."""
    analysis = staged_analysis(text)
    layouts = analysis.assignment()
    cases = []
    for func in analysis.module.ops:
        if not isinstance(func, FuncOp) or not func.body.blocks:
            continue
        sinks = {
            op: analysis.sink_layouts.get(op) or layouts[op.operands[0]]
            for op in walk_ops(func)
            if op.name == "tl.store" and is_tensor(op.operands[0])
        }
        model, result = solve_function(analysis, func, layouts, sinks, budget)
        assert model is not None and result.choice is not None, result.status
        cases.append(
            SolverCase(
                func.sym_name.data,
                model,
                result,
                model.evaluate(result.choice),
                model.evaluate(model.staged_choice()),
            )
        )
    return cases
