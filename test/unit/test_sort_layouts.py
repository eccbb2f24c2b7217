"""Triton's ``tl.sort`` and ``tl.topk`` (bitonic networks: hundreds of reshapes, xor reductions,
broadcasts and selects) through llc's default layout pipeline, against Triton 3.9's own TTGIR of
the same kernel (``examples/triton/<kernel>.sm<NN>.{ttir,ttgir}``, dumped by
``bench/dump_triton.py``). No Triton needed.

The whole-function solver must finish within its default budget (no ``remark:``: these
functions get the tied model of :mod:`llc.passes.layout_solver`), and llc's figure (the
``--layout-report`` total) must be at most Triton's, priced by the same cost model. Triton's
conversion count is read from its dump at test time; where llc leaves more conversions on
purpose (:data:`MORE_CONVERSIONS`) they must pay for themselves: cost less than the reductions
they make cheaper.
"""

from __future__ import annotations

import contextlib
import functools
import io
from pathlib import Path

import pytest
from xdsl.context import Context

from llc.dialects.ttgir import HardwareDefaults, parse_triton_module
from llc.passes.layout_passes import OptimizeLayoutsPass
from llc.passes.layout_report import FunctionReport, layout_report

FIXTURES = Path(__file__).resolve().parents[2] / "examples" / "triton"

KERNELS = (
    "sort_rows.sm80",  # 4x128 f32, ascending
    "sort_rows_desc_i32.sm80",  # 16x64 i32, descending
    "sort_row_f16.sm80",  # 1x256 f16
    "sort_cols.sm80",  # 64x8 f32 along axis 0 (through two transposes), descending
    "topk_rows.sm80",  # the 8 largest of each row of a 16x128 f32 tile
)

MORE_CONVERSIONS = {
    # Triton's own assignment is among the solver's candidates and costs 858 under the model
    # (the optimum: 485): 7 of its 21 xor reductions split their axis across warps and go
    # through shared memory (92 each). llc converts the 64x8 tile into a layout where every
    # reduction stays within a warp and back (2 x 84). Triton 3.9's PTX agrees: 448 B through
    # shared memory and 288 B of shuffles for its layouts, 64 B and 240 B for llc's.
    "sort_cols.sm80": "2 conversions (168) save 590 of reductions: figure 432 against 854",
}
"""Where llc leaves more ``convert_layout`` ops than Triton on purpose, and why."""


def _by_kernel(kernels: object) -> list:
    """One xdist group per kernel: its tests share one compilation (``_llc`` is cached)."""
    return [pytest.param(k, marks=pytest.mark.xdist_group(f"sort-{k}")) for k in kernels]


def _convert_count(text: str) -> int:
    return sum(1 for line in text.splitlines() if "convert_layout" in line)


@functools.cache
def _llc(kernel: str, budget: float = 2.0) -> tuple[FunctionReport, int, str]:
    """llc's figure (the report), conversions and stderr for ``kernel``'s TTIR (default
    pipeline, the solver's default budget unless ``budget``)."""
    path = FIXTURES / f"{kernel}.ttir"
    arch = kernel.rsplit(".sm", 1)[1]
    module = parse_triton_module(
        path.read_text(), str(path), HardwareDefaults(num_warps=4, target=f"cuda:{arch}")
    )
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        OptimizeLayoutsPass(solver_budget=budget).apply(Context(), module)
    module.verify()
    [report] = layout_report(module)
    converts = sum(1 for op in module.walk() if op.name == "tl.convert_layout")
    return report, converts, err.getvalue()


@functools.cache
def _triton(kernel: str) -> tuple[FunctionReport, int]:
    """Triton's figure (its TTGIR priced by llc's cost model) and conversions."""
    path = FIXTURES / f"{kernel}.ttgir"
    text = path.read_text()
    [report] = layout_report(parse_triton_module(text, str(path)))
    return report, _convert_count(text)


@pytest.mark.parametrize("kernel", _by_kernel(k for k in KERNELS if k != "sort_rows.sm80"))
def test_sort_is_solved_within_the_default_budget(kernel: str) -> None:
    _, _, stderr = _llc(kernel)
    assert "remark:" not in stderr, stderr


@pytest.mark.parametrize("kernel", _by_kernel(KERNELS))
def test_sort_figure_is_at_most_tritons(kernel: str) -> None:
    report, _, _ = _llc(kernel)
    triton, _ = _triton(kernel)
    assert report.total <= triton.total + 1e-6, (report.total, triton.total)


@pytest.mark.parametrize("kernel", _by_kernel(KERNELS))
def test_sort_conversions_are_at_most_tritons_or_pay_for_themselves(kernel: str) -> None:
    """At most Triton's conversions, except where :data:`MORE_CONVERSIONS` says why: there the
    conversions cost less than what they save on the reductions (and the exception still
    holds: a kernel that no longer needs it leaves the list)."""
    report, converts, _ = _llc(kernel)
    triton, triton_converts = _triton(kernel)
    if kernel not in MORE_CONVERSIONS:
        assert converts <= triton_converts, (converts, triton_converts)
        return
    assert converts > triton_converts, (converts, triton_converts)
    saved = triton.reduction_total - report.reduction_total
    assert 0 < report.conversion_total < saved, (report.conversion_total, saved)


def _model(kernel: str, tie_above: int | None) -> object:
    """The solver's model of ``kernel`` (:func:`llc.passes.layout_solver.build_model` after the
    staged analysis)."""
    from xdsl.dialects.func import FuncOp

    from llc.dialects.layout_rules import is_tensor
    from llc.passes.layout_assignment import walk_ops
    from llc.passes.layout_passes import AssignAnchorsPass, PropagateLayoutsPass
    from llc.passes.layout_solver import build_model

    path = FIXTURES / f"{kernel}.ttir"
    module = parse_triton_module(path.read_text(), str(path), HardwareDefaults(num_warps=4))
    AssignAnchorsPass().apply(Context(), module)
    analysis = PropagateLayoutsPass().analyse(module, ["anchors", "propagate", "resolve", "fill"])
    layouts = analysis.assignment()
    [func] = [f for f in module.ops if isinstance(f, FuncOp)]
    sinks = {
        op: analysis.sink_layouts.get(op) or layouts[op.operands[0]]
        for op in walk_ops(func)
        if op.name == "tl.store" and is_tensor(op.operands[0])
    }
    return build_model(analysis, func, layouts, sinks, tie_above=tie_above)


def test_past_the_budget_the_best_assignment_found_is_kept() -> None:
    """The full model of the 16x128 top-k (no ties) is not proven within half a second: the
    solver keeps the cheapest assignment it priced exactly (a lazy round's optimum or HiGHS's
    incumbent), below the staged one, and says it is not proven."""
    from llc.passes.layout_solver import solve_model

    # The proof from a cold process takes about 1.5 s of CPU here, warm (the lowering plans of
    # its conversions cached) 0.65 s; half the warm proof's time, measured here, is past a few
    # lazy rounds that price an assignment exactly and short of the proof on any machine.
    solve_model(_model("topk_rows.sm80", None), 30.0)  # warms the caches
    warm = solve_model(_model("topk_rows.sm80", None), 30.0)
    assert warm.proven
    model = _model("topk_rows.sm80", None)
    result = solve_model(model, warm.seconds / 2)
    assert not result.proven and result.choice is not None, result.status
    staged = model.evaluate(model.staged_choice())
    assert result.objective == model.evaluate(result.choice) < staged, (result, staged)


def test_the_branch_and_bound_stops_at_the_budget() -> None:
    """The budget is CPU time and HiGHS's own limit is wall-clock (with slack, so that a loaded
    machine gives the same layouts): the solver interrupts the branch and bound from its
    callback. The tied model of the 4x128 sort (the one sort not proven within the default
    budget: ``test_sort_is_solved_within_the_default_budget`` leaves it out) reaches its MIP
    after about 0.9 s of lazy rounds and needs 5 to 9 s more to prove 560.508 (root bound
    559.0: the relaxation of the make_range's and the masks' shared conversions, a set cover,
    is weak); with a 2 s budget it stops at about 2.05 s, keeping the best assignment found
    (about 560.5, 0 conversions after the rewrite, below Triton's figure); without the
    interrupt it ran to 3.1 s (HiGHS's own wall-clock limit). The margin is wide because the
    machine may be loaded. When the sort is proven within the budget, this test fails: move it
    into ``test_sort_is_solved_within_the_default_budget``."""
    from llc.passes.layout_solver import TIE_ABOVE_VALUES, solve_model

    model = _model("sort_rows.sm80", TIE_ABOVE_VALUES)
    result = solve_model(model, 2.0)
    assert not result.proven and result.choice is not None, result.status
    assert result.seconds <= 2.0 + 0.6, result.seconds
    assert result.objective < model.evaluate(model.staged_choice())


@pytest.mark.parametrize("kernel", ["topk_rows.sm80", "sort_cols.sm80"])
def test_tied_model_is_not_above_the_full_one(kernel: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the full model is proven within the default budget too (``topk``, the column
    sort; given more here), the tied model's result is not above its figure: tied nodes keep
    enough candidates (with four, ``topk`` stays at 1131 where the full model reaches 934)."""
    import llc.passes.layout_solver as solver

    tied, _, _ = _llc(kernel)
    monkeypatch.setattr(solver, "TIE_ABOVE_VALUES", 1 << 30)
    full, _, stderr = _llc.__wrapped__(kernel, 30.0)  # proven, however loaded the machine
    assert "remark:" not in stderr, stderr
    assert tied.total <= full.total + 1e-6, (tied.total, full.total)
