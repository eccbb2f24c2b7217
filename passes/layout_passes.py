"""The layout assignment passes: ``llc-assign-anchors``, ``llc-propagate-layouts``,
``llc-remove-conversions`` and their pipeline ``llc-optimize-layouts``.

Options (``-p 'llc-optimize-layouts{num-warps=8 target="cuda:80" debug=true}'``):

* ``num-warps``, ``threads-per-warp``, ``target``: override the module's ``tl.num-warps``,
  ``tl.threads-per-warp`` and ``tl.target`` (defaults 4, 32 and ``cuda:90``); the passes write
  the values they used back to the module;
* ``mma-version``: 0 (from the target: wgmma on ``cuda:90``), 1 (FMA, no tensor cores),
  2 (NVIDIA mma v2), 3 (Hopper's wgmma where the dot fits it, else v2; an error before
  ``cuda:90``);
* ``max-slice``: the largest producer slice ``llc-remove-conversions`` recomputes;
* ``solver``: ``ilp`` (default) solves each function's assignment exactly
  (:mod:`llc.passes.layout_solver`), warm-started by the staged analysis; ``staged`` keeps the
  staged analysis alone; for ``llc-remove-conversions``, ``ilp`` also tries the solver on fully
  laid-out input (:class:`RemoveConversionsPass`), ``staged`` keeps its greedy rewrites alone;
* ``solver-budget``: seconds per function for the ILP (default 2); past it the function keeps
  the best assignment found (the staged one unless a cheaper one was priced) and a ``remark:``
  says which;
* ``solver-tie-above`` (``llc-propagate-layouts``): functions with more tensor values than this
  (default :data:`~llc.passes.layout_solver.TIE_ABOVE_VALUES`; -1: never) get the solver's tied
  model (elementwise chains the staged analysis lays out alike form one node);
* ``debug``: print each analysis stage to stderr (the ILP's as stage ``solve``).
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import VerifyException

from llc.dialects.diagnostics import error_at
from llc.dialects.layout_rules import is_tensor
from llc.dialects.tl import ConvertLayoutOp, encoding_of
from llc.errors import LayoutError
from llc.passes.layout_assignment import (
    Hardware,
    LayoutAnalysis,
    materialize,
    short_layout,
    value_name,
    walk_ops,
)
from llc.passes.loop_copies import realise_loop_copies
from llc.passes.remove_conversions import (
    erase_dead_ops,
    fold_conversions,
    rematerialize_from_scalars,
    remove_conversions,
    stage_dot_operands,
)
from llc.passes.warp_partitions import by_warp_scope_pass
from llc.targets import check_pass_options

__all__ = [
    "AssignAnchorsPass",
    "OptimizeLayoutsPass",
    "PropagateLayoutsPass",
    "RemoveConversionsPass",
    "count_conversions",
    "module_figure",
]


def count_conversions(module: ModuleOp) -> int:
    """The number of ``tl.convert_layout`` ops that change the layout."""
    return sum(
        1
        for op in walk_ops(module)
        if isinstance(op, ConvertLayoutOp) and op.src.type != op.result.type
    )


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector during a pass.

    A pass allocates many small objects; each full collection scans the whole heap, which holds
    the module being compiled, so with the collector on the time per op grows with module size
    (2x per op from 5k to 20k ops in ``bench/layout_passes.py``). Paused, it stays flat.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _emit(debug: bool, text: str) -> None:
    if debug:
        print(text, file=sys.stderr)


def _drop_conversions(module: ModuleOp) -> None:
    """Forget the conversions of fully laid-out IR: the analysis re-decides every layout."""
    for op in list(walk_ops(module)):
        if isinstance(op, ConvertLayoutOp):
            op.result.replace_all_uses_with(op.src)
            op.detach()
            op.erase(safe_erase=False)


def _fully_laid_out(module: ModuleOp) -> bool:
    from xdsl.dialects.builtin import TensorType

    for op in walk_ops(module):
        for v in op.results:
            if isinstance(v.type, TensorType) and encoding_of(v.type) is None:
                return False
    return True


def _has_tensors(module: ModuleOp) -> bool:
    """Whether any value of ``module`` is a ranked tensor (something to lay out)."""
    from xdsl.dialects.builtin import TensorType

    for op in walk_ops(module):
        values = [*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)]
        if any(isinstance(v.type, TensorType) for v in values):
            return True
    return False


@dataclass(frozen=True)
class _LayoutPass(ModulePass):
    num_warps: int = 0
    threads_per_warp: int = 0
    target: str = ""
    mma_version: int = 0
    debug: bool = False

    def __post_init__(self) -> None:
        # Options are checked when the pipeline is parsed, before any IR is read.
        check_pass_options(self.name, self.target, self.mma_version)

    def hardware(self, op: ModuleOp) -> Hardware:
        hw = Hardware.of(op, self.num_warps, self.threads_per_warp, self.target)
        hw.write_to(op)
        return hw

    def analyse(self, op: ModuleOp, stages: list[str]) -> LayoutAnalysis:
        hw = self.hardware(op)
        store_layouts = {}
        if _fully_laid_out(op) and "propagate" in stages:
            # A store's layout is that of its operands, which conversions may feed.
            for store in walk_ops(op):
                if store.name == "tl.store" and (enc := encoding_of(store.operands[0].type)):
                    store_layouts[store] = enc
            _drop_conversions(op)
        analysis = LayoutAnalysis(op, hw, mma_version=self.mma_version)
        analysis.store_layouts = store_layouts
        analysis.collect()
        for stage in stages:
            getattr(analysis, stage)()
            _emit(self.debug, analysis.dump(stage))
        return analysis


@dataclass(frozen=True)
class AssignAnchorsPass(_LayoutPass):
    """Anchors get their layouts (coalesced loads/stores, mma dots); every other tensor the
    default blocked layout of its shape; conversions connect the mismatches."""

    name = "llc-assign-anchors"

    @by_warp_scope_pass
    def apply(self, ctx: Context, op: ModuleOp) -> None:
        with gc_paused():
            analysis = self.analyse(op, ["anchors"])
            layouts = {}
            for v in analysis.classes.parent:
                root = analysis.cls(v)
                layouts[v] = (
                    analysis.value_layouts.get(v)
                    or analysis.fixed.get(root)
                    or encoding_of(v.type)
                    or analysis.default_layout(v)
                )
            materialize(op, layouts, analysis.sink_layouts, analysis.hw)
            fold_conversions(op)


SOLVERS = ("ilp", "staged")


def solve_layouts(
    module: ModuleOp,
    analysis: LayoutAnalysis,
    budget: float,
    debug: bool = False,
    tie_above: int | None = None,
    loop_copies: list | None = None,
) -> tuple[dict[SSAValue, Attribute], dict[Operation, Attribute], bool]:
    """The ``solve`` stage: each function's assignment by :mod:`llc.passes.layout_solver`,
    starting from the staged analysis' (kept, with a remark, past ``budget`` seconds).
    Returns the layouts, the stores' layouts, and whether some function was solved; the loop
    values the solver carries a second time (:class:`llc.passes.loop_copies.LoopCopyPlan`,
    one per solved function that has some) go to ``loop_copies``."""
    from llc.passes.layout_solver import TIE_ABOVE_VALUES, assignment_of, solve_function
    from llc.passes.loop_copies import active_loop_copies

    if tie_above is None:
        tie_above = TIE_ABOVE_VALUES

    layouts = analysis.assignment()
    sinks = dict(analysis.sink_layouts)
    lines = ["// -----// llc layout analysis: after solve //----- //"]
    solved = False
    for func in module.walk():  # the functions of nested modules too
        if not isinstance(func, FuncOp) or not func.body.blocks:
            continue
        staged_sinks = {}
        for store in walk_ops(func):
            if store.name == "tl.store" and is_tensor(store.operands[0]):
                staged_sinks[store] = sinks.get(store) or layouts[store.operands[0]]
        model, result = solve_function(
            analysis, func, layouts, staged_sinks, budget, tie_above if tie_above >= 0 else None
        )
        name = func.sym_name.data
        if result.choice is not None and model is not None and not result.proven:
            print(
                f"remark: llc-propagate-layouts: @{name}: the layout solver did not finish "
                f"within its budget of {budget:g} s ({result.status}); keeping its best "
                f"assignment found (cost {result.objective:g}, staged "
                f"{model.evaluate(model.staged_choice()):g})",
                file=sys.stderr,
            )
        if result.choice is None or model is None:
            print(
                f"remark: llc-propagate-layouts: @{name}: the layout solver did not finish "
                f"within its budget of {budget:g} s ({result.status}); keeping the staged "
                "assignment",
                file=sys.stderr,
            )
            lines.append(f"//   @{name}: {result.status}; staged assignment kept")
            continue
        staged_cost = model.evaluate(model.staged_choice())
        chosen_cost = model.evaluate(result.choice)
        free = sum(1 for c in model.candidates if len(c) > 1)
        tied = f", {model.tied} elementwise ties" if model.tied else ""
        lines.append(
            f"//   @{name}: {len(model.candidates)} nodes ({free} with a choice{tied}), "
            f"staged cost {staged_cost:g}, optimum {chosen_cost:g} "
            f"({result.seconds * 1e3:.1f} ms)"
        )
        if chosen_cost > staged_cost:  # cannot happen for an optimum; never make it worse
            continue
        for n, c in enumerate(result.choice):
            if c and model.node_values[n]:
                members = ", ".join(value_name(v) for v in model.node_values[n])
                lines.append(f"//   {members}: {short_layout(model.candidates[n][c])}")
        solved = True
        plan = active_loop_copies(model, result.choice)
        if plan:
            lines.append(
                f"//   @{name}: {len(plan.copies)} loop values carried a second time, "
                f"{len(plan.ops)} ops recomputed in the loops"
            )
            if loop_copies is not None:
                loop_copies.append(plan)
        new_layouts, new_sinks = assignment_of(model, result.choice)
        layouts.update(new_layouts)
        sinks.update(new_sinks)
    _emit(debug, "\n".join(lines))
    return layouts, sinks, solved


@dataclass(frozen=True)
class PropagateLayoutsPass(_LayoutPass):
    """Forward propagation from the anchors, cost-based conflict resolution, fill, then (with
    ``solver=ilp``) the exact optimum of each function, and the rewrite."""

    name = "llc-propagate-layouts"
    solver: str = "ilp"
    solver_budget: float = 2.0
    solver_tie_above: int | None = None

    @by_warp_scope_pass
    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.solver not in SOLVERS:
            raise error_at(
                op, f"solver={self.solver}: unknown layout solver (expected ilp or staged)"
            )
        with gc_paused():
            analysis = self.analyse(op, ["anchors", "propagate", "resolve", "fill"])
            solved = False
            copies: list = []
            if self.solver == "ilp":
                layouts, sinks, solved = solve_layouts(
                    op, analysis, self.solver_budget, self.debug, self.solver_tie_above, copies
                )
            else:
                layouts, sinks = analysis.assignment(), analysis.sink_layouts
            materialize(op, layouts, sinks, analysis.hw)
            fold_conversions(op)
            for plan in copies:  # the loop values the solver carries twice, as it chose
                realise_loop_copies(plan)
            if solved:  # the recomputations the solver chose over conversions
                log: list[str] = []
                rematerialize_from_scalars(op, log=log)
                _emit(self.debug and bool(log), "\n".join(f"// {line}" for line in log))
            _emit(self.debug, f"// llc-propagate-layouts: {count_conversions(op)} conversions")


def module_figure(module: ModuleOp) -> tuple[float, int]:
    """What llc-remove-conversions minimizes when it chooses between rewrites: the whole-kernel
    figure of :func:`llc.passes.layout_report.layout_report` (weighted conversions, accesses
    and reductions), then the number of conversions left.

    >>> module_figure(ModuleOp([]))
    (0.0, 0)
    """
    from llc.passes.layout_report import layout_report

    total = sum(r.total for r in layout_report(module))
    return round(float(total), 6), count_conversions(module)


def _function_figures(module: ModuleOp) -> list[tuple[FuncOp, tuple[float, int]]]:
    """Each function of ``module`` with a body (nested modules' too, in walk order) and its
    :func:`module_figure`: the figure of its report, then its conversions.

    >>> _function_figures(ModuleOp([]))
    []
    """
    from llc.passes.layout_report import layout_report

    funcs = [f for f in module.walk() if isinstance(f, FuncOp) and f.body.blocks]
    reports = layout_report(module)
    assert len(reports) == len(funcs)
    return [
        (f, (round(float(r.total), 6), count_conversions(f)))  # type: ignore[arg-type]
        for f, r in zip(funcs, reports, strict=True)
    ]


def _dot_layouts(module: ModuleOp) -> list[Attribute | None]:
    """The result layouts of the dots, in program order: the anchors Triton's pass keeps."""
    return [
        encoding_of(o.results[0].type)
        for o in walk_ops(module)
        if o.name in _DOTS and o.results and is_tensor(o.results[0])
    ]


_DOTS = ("tl.dot", "tl.dot_scaled", "tl.warp_group_dot")


def _signatures(module: ModuleOp) -> list[Attribute]:
    return [f.function_type for f in walk_ops(module) if isinstance(f, FuncOp)]


@dataclass(frozen=True)
class RemoveConversionsPass(_LayoutPass):
    """Backward rematerialization, hoisting, loop-carried conversions, dot operand staging.

    The greedy rewrites (:func:`llc.passes.remove_conversions.remove_conversions`) keep the
    layouts they find. With ``solver=ilp`` (the default) on fully laid-out input, the pass also
    re-decides every layout with the whole-function solver (``llc-propagate-layouts``, the
    input's layouts among the candidates) followed by the same greedy rewrites, and keeps that
    result, function by function, where its dots keep their layouts, the signatures are
    unchanged and the function's figure (:func:`module_figure`) is lower. Whatever it does, no
    function's figure is above the input's: a rewrite that would raise it is dropped for that
    function (so a run after the solver cannot undo its optimum).
    """

    name = "llc-remove-conversions"
    max_slice: int = 64
    solver: str = "ilp"
    solver_budget: float = 2.0
    duplicate_loops: bool = True
    """Whether the greedy rewrites carry loop values a second time
    (:func:`~llc.passes.remove_conversions.duplicate_loop_argument`): off after the
    whole-function solver, which weighs that option itself."""

    @by_warp_scope_pass
    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.solver not in SOLVERS:
            raise error_at(
                op, f"solver={self.solver}: unknown layout solver (expected ilp or staged)"
            )
        if not _has_tensors(op):
            return  # nothing to lay out: passes through as it is, whatever its target
        with gc_paused():
            self.hardware(op)
            log: list[str] = []
            laid_out = _fully_laid_out(op)
            given = op.clone()
            # Per function: a module's functions are laid out independently, so each keeps
            # whichever of its input, the greedy rewrites and the solver's rewrite has the
            # lowest figure.
            if remove_conversions(op, self.max_slice, log, self.duplicate_loops):
                for mine, before in zip(
                    _function_figures(op), _function_figures(given), strict=True
                ):
                    if mine[1] > before[1]:
                        log.append(
                            f"greedy rewrites dropped: figure {mine[1][0]:g} > {before[1][0]:g} "
                            f"(@{mine[0].sym_name.data})"
                        )
                        Rewriter.replace_op(mine[0], before[0].clone(), [])
            if self.solver == "ilp" and laid_out:
                solved = self._solved(ctx, given)
                if solved is not None:
                    for mine, theirs in zip(
                        _function_figures(op), _function_figures(solved), strict=True
                    ):
                        if theirs[1] < mine[1]:
                            log.append(
                                f"whole-function solver kept: figure {theirs[1][0]:g} "
                                f"< {mine[1][0]:g} ({theirs[1][1]} conversions, "
                                f"@{mine[0].sym_name.data})"
                            )
                            Rewriter.replace_op(mine[0], theirs[0].clone(), [])
            stage_dot_operands(op)
            fold_conversions(op)
            erase_dead_ops(op)
            _emit(self.debug, "\n".join(f"// {line}" for line in log))

    def _solved(self, ctx: Context, op: ModuleOp) -> ModuleOp | None:
        """A copy of ``op`` re-laid out by the whole-function solver then the greedy rewrites,
        or ``None`` when that changes what Triton's pass keeps (a dot's layout, a signature)."""
        solved = op.clone()
        try:
            PropagateLayoutsPass(
                num_warps=self.num_warps,
                threads_per_warp=self.threads_per_warp,
                target=self.target,
                mma_version=self.mma_version,
                solver="ilp",
                solver_budget=self.solver_budget,
            ).apply(ctx, solved)
            if _dot_layouts(solved) != _dot_layouts(op) or _signatures(solved) != _signatures(op):
                return None
            # The solver weighed carrying loop values twice: the greedy copy does not redo it.
            remove_conversions(solved, self.max_slice, duplicate=False)
            solved.verify()
        except (LayoutError, VerifyException):
            return None  # an assignment the rewrite cannot state keeps the greedy result
        return solved


@dataclass(frozen=True)
class OptimizeLayoutsPass(_LayoutPass):
    """``llc-assign-anchors``, ``llc-propagate-layouts``, ``llc-remove-conversions``, then
    canonicalization (which applies ``tl.convert_layout``'s folds), CSE and dead-code
    elimination."""

    name = "llc-optimize-layouts"
    max_slice: int = 64
    solver: str = "ilp"
    solver_budget: float = 2.0

    @by_warp_scope_pass
    def apply(self, ctx: Context, op: ModuleOp) -> None:
        with gc_paused():
            from xdsl.transforms.canonicalize import CanonicalizePass
            from xdsl.transforms.common_subexpression_elimination import (
                CommonSubexpressionElimination,
            )
            from xdsl.transforms.dead_code_elimination import DeadCodeElimination

            options = dict(
                num_warps=self.num_warps,
                threads_per_warp=self.threads_per_warp,
                target=self.target,
                mma_version=self.mma_version,
                debug=self.debug,
            )
            AssignAnchorsPass(**options).apply(ctx, op)
            PropagateLayoutsPass(
                **options, solver=self.solver, solver_budget=self.solver_budget
            ).apply(ctx, op)
            # The solver ran in llc-propagate-layouts already; the greedy rewrites after it
            # keep its optimum (the pass drops any rewrite that would raise the figure).
            RemoveConversionsPass(
                **options,
                max_slice=self.max_slice,
                solver="staged",
                duplicate_loops=self.solver != "ilp",
            ).apply(ctx, op)
            CanonicalizePass().apply(ctx, op)
            CommonSubexpressionElimination().apply(ctx, op)
            DeadCodeElimination().apply(ctx, op)
