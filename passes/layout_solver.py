"""Layout assignment as one exact optimization per function (the ``solve`` stage).

The staged analysis of :mod:`llc.passes.layout_assignment` decides class by class. This module
states the whole function's choice as one model and solves it exactly with an integer program
(HiGHS, :mod:`highspy`); the staged result is its warm start and upper bound.

**Nodes.** Tensor values that must share one layout form a node: the block argument and the
result of an ``scf.for`` iteration (and of an ``scf.while`` after-region), and the tensor
results of one op (a reduction with several results). A ``tl.store`` is a node too: the layout
it accesses memory in. Values that control flow only *connects* (a loop's init and yielded
values, the values an ``scf.if`` yields) are separate nodes joined by a conversion where they
disagree, as :func:`llc.passes.layout_assignment.materialize` joins them.

**Tied model.** In a function with more than :data:`TIE_ABOVE_VALUES` tensor values, an
elementwise op's (layout-transparent rule) operands and result that the staged analysis laid out
alike are one node too (:func:`_tie_elementwise`): conversions then sit only where the staged
assignment has them or at structural ops, loads, stores and control flow, the staged assignment
stays a candidate (the optimum is never above it), and the model shrinks by the length of the
elementwise chains, so its nodes get up to :data:`MAX_TIED_CANDIDATES` candidates. Triton's
``tl.sort`` of a 4x128 tile (a bitonic network: 424 nodes with 4 candidates each, which HiGHS
does not prove in under a minute) has 95 nodes of 6 candidates; its optimum is below Triton's
figure (the other sorts and ``tl.topk`` are proven in 0.6 to 1.3 s; this one's last MIP needs
6 to 8 s, and within the budget the solver keeps an assignment 0.2 % above it). Smaller
functions keep the full model (the oracle tests).

**Candidates** of a node (at most :data:`MAX_SOLVER_CANDIDATES`, :data:`MAX_TIED_CANDIDATES` in
the tied model, first come first kept): the
staged layout, its anchors (coalesced access, the dot's mma layout, gather's warp-local layout),
layouts the user wrote, the staged propagation's candidates, then what reaches it by forward and
backward transfer through each op's rule (:func:`llc.dialects.layout_rules.rule_for`) from its
neighbours' candidates (two rounds; a store takes its value's before its pointers'), then the
default blocked layout, then, where room is left, the ``#linear`` layouts with idle lanes that
a broadcast passes on to a value where every thread could hold its own elements
(:func:`_duplicating`: they never push out an anchor's layout or one reached from it). Layouts
mapping alike are one candidate (:func:`_redundant`). A
candidate must build a linear layout for the node's shape; ``dot_op`` layouts come only from
the staged result, the user, or backward through a cast (the narrow value converted before it
is widened, as Triton does). Dot results, layouts of ops without a rule, function arguments
that carry a layout and, in partially laid-out input, the user's layouts are pinned.

**Cost** (issue cycles per warp, :mod:`llc.passes.layout_cost`), each term times the weight of
the block it runs in (:func:`block_weight`: the product of the enclosing loops' trip counts,
from constant bounds, else :data:`DEFAULT_TRIP_COUNT`):

* every load and store pays :func:`llc.passes.layout_cost.access_cost` in its layout (vector
  width, 32-byte sectors);
* every op's rule says, for each choice of its result layout, which layout each operand must
  have (``backward``); a value pays one conversion per distinct layout its users demand, as the
  rewrite shares a conversion between uses, priced by ``conversion_cost`` (shape, element type,
  compute capability), or, when cheaper, the recomputation of its producer slice in that layout
  (:func:`rematerialization`: constants, ranges, splats, index arithmetic and elementwise chains
  with no tensor input from a load) at ``remat_cost`` per op; a gather the anchors laid out is
  priced with its operands in that layout, as the rewrite converts them (its rule depends on
  them);
* a result layout the op cannot produce (kept only when the staged analysis chose it) costs, as
  the rewrite does it, a conversion of the result from the layout the op derives.

**ILP.** Binary ``x[n, i]`` (node ``n`` takes candidate ``i``), ``sum_i x[n, i] = 1``. A term on
two nodes gets ``y[a, i, b, j] >= 0`` with the local-polytope constraints ``sum_j y = x[a, i]``,
``sum_i y = x[b, j]`` (exact for binary ``x``: ``y`` is then the product). A value's shared
conversion to ``L`` is ``w[v, i, L] >= sum of the y by which one node demands L``, one row per
demanding node (one ``w`` per value, source choice and target; the demands of one node are one
expression, as its candidates exclude each other), so several users demanding the same layout
pay once. The objective
of the optimum equals the model's cost of its assignment (:meth:`LayoutModel.evaluate`), which
:func:`brute_force_minimum` checks by enumeration on small functions.

**Lazy prices.** A conversion not priced yet counts at its lower bound
(:func:`~llc.passes.layout_cost.conversion_lower_bound`); each round prices exactly the
conversions the optimum uses, until it uses only exact prices. An exact price is shared by every
value of the function with the same (layouts, shape, element type), never taken from another
function (the rounds, and so the optimum kept among equal ones, do not depend on what the process
compiled before). Where the LP relaxation is fractional, the conversions are all priced before
the first MIP when few are left (:data:`PRICE_ALL_GROUPS`), else the relaxation is solved again,
pricing what each of its fractional optima uses, until it uses only exact prices (the MIP then
starts with the prices that matter); each later MIP round starts from the last round's optimum.

**Budget.** Past ``budget`` seconds of the compiling process' CPU time (building plus solving;
CPU time, so that a loaded machine does not change the result) the function keeps the cheapest
assignment priced exactly so far (:attr:`SolveResult.proven` false): a lazy round's optimum or
the branch and bound's incumbent (which starts from the best assignment known, the staged one
first) when cheaper than the staged assignment, else the staged one; the pass prints a
``remark:`` saying which. HiGHS's own time limit is wall-clock (with slack); the CPU budget
stops its branch and bound from its interrupt callback. The budget covers pricing too (planning
a conversion of a large tile takes up to a second or more): :meth:`LayoutModel.price` plans no
new conversion past the deadline, so the staged assignment's exact price, the prices before the
first MIP and those of each round's optimum all stop there (status :data:`PRICING_STATUS`), and
a function overruns its budget by one conversion's planning at most.

>>> MAX_SOLVER_CANDIDATES, DEFAULT_TRIP_COUNT
(4, 8)
"""

from __future__ import annotations

import contextlib
import itertools
import math
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import IntegerAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from llc.dialects.layout_attrs import SliceEncodingAttr
from llc.dialects.layout_rules import (
    ANY,
    gather_backward,
    is_tensor,
    rule_for,
    tensor_operands,
    tensor_results,
)
from llc.dialects.tl import encoding_of, shape_of
from llc.errors import LayoutError
from llc.layouts.common import padded_shape
from llc.passes.layout_assignment import LayoutAnalysis, default_blocked, element_bits, walk_ops
from llc.passes.layout_cost import (
    access_cost,
    conversion_cost,
    conversion_lower_bound,
    folded_reduction,
    remat_cost,
)

__all__ = [
    "DEFAULT_BUDGET_S",
    "DEFAULT_TRIP_COUNT",
    "ENUMERATION_CAP",
    "MAX_SOLVER_CANDIDATES",
    "MAX_TIED_CANDIDATES",
    "TIE_ABOVE_VALUES",
    "LayoutModel",
    "ModelReduction",
    "SolveResult",
    "block_weight",
    "brute_force_minimum",
    "build_model",
    "exact_minimum",
    "reduce_model",
    "solve_function",
    "trip_count",
]

MAX_SOLVER_CANDIDATES = 4
"""Candidates per node (bounds the model: at most 16 pair variables per pair of nodes)."""
MAX_TIED_CANDIDATES = 6
"""Candidates per node of the tied model: its nodes are few, and a tied node pools the seeds of
all its values (four leave Triton's ``tl.topk`` at figure 1131, six at 753)."""
DEFAULT_TRIP_COUNT = 8
"""Iterations assumed for a loop whose bounds are not constants (``scf.while``, dynamic
``scf.for``)."""
DEFAULT_BUDGET_S = 2.0
TIE_ABOVE_VALUES = 192
"""Functions with more tensor values than this get the tied model (see the module docstring:
values an elementwise op connects, laid out alike by the staged analysis, form one node)."""
"""Seconds per function for building and solving the model before the staged fallback."""
ENUMERATION_CAP = 1 << 16
"""The most assignments :func:`brute_force_minimum` enumerates per independent component."""
MAX_REMAT_OPS = 16
"""The largest producer slice :func:`rematerialization` prices."""

PRICE_ALL_GROUPS = 256
"""Where the LP relaxation is fractional and at most this many distinct conversions are
unpriced, all are priced exactly before the first MIP (one MIP instead of one per round)."""

CONVERSION_OP_COST = 1e-3
"""Added to every conversion's price: one the cost model prices 0 (a register renaming) still
adds an op, so of two assignments of equal cost the one with fewer conversions wins."""
CHANGE_COST = 1e-6
"""Added per node that leaves its staged layout: among equal optima the staged one is kept."""

_INF = float("inf")

_clock = time.process_time
"""The budget's clock (the process' CPU time; tests inject their own)."""

PRICING_STATUS = "time limit reached while pricing conversions"
""":attr:`SolveResult.status` of a solve whose budget ran out while it priced conversions."""


class _BudgetSpent(Exception):
    """Raised by :meth:`LayoutModel.price` asked for a conversion it never priced, past
    :attr:`LayoutModel.deadline`: the solve keeps what it priced so far."""


_KNOWN_CONVERSIONS: dict[tuple, float] = {}
"""Conversions already priced exactly (by any function): a model takes their price at once
instead of a lower bound, which saves the ILP rounds that would price them again."""


# ---------------------------------------------------------------------------------- weights
def _constant_int(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, Operation) and owner.name == "arith.constant":
        attr = owner.properties.get("value")  # an IntegerAttr of 0 is falsy: no `or`
        if attr is None:
            attr = owner.attributes.get("value")
        if isinstance(attr, IntegerAttr):
            return attr.value.data
    return None


def trip_count(loop: Operation) -> int:
    """Iterations of an ``scf.for`` with constant bounds (at least 1), else
    :data:`DEFAULT_TRIP_COUNT` (``scf.while`` included).

    >>> from xdsl.dialects.builtin import ModuleOp
    >>> trip_count(ModuleOp([]))
    8
    """
    if loop.name == "scf.for" and len(loop.operands) >= 3:
        lb, ub, step = (_constant_int(v) for v in loop.operands[:3])
        if lb is not None and ub is not None and step is not None and step > 0:
            return max(1, -(-(ub - lb) // step))
    return DEFAULT_TRIP_COUNT


def block_weight(block: Block | None) -> float:
    """How often ``block`` runs per kernel launch: the product of the trip counts of the loops
    around it (an ``scf.if`` branch counts as running).

    >>> block_weight(None)
    1.0
    """
    weight = 1.0
    op = block.parent_op() if block is not None else None
    while op is not None:
        if op.name in ("scf.for", "scf.while"):
            weight *= trip_count(op)
        op = op.parent_op()
    return weight


def value_weight(v: SSAValue) -> float:
    """The weight of the block where a conversion of ``v`` goes (right after its definition)."""
    owner = v.owner
    if isinstance(owner, Block):
        return block_weight(owner)
    return block_weight(owner.parent_block())  # type: ignore[union-attr]


# ---------------------------------------------------------------------------------- model
@dataclass
class Demand:
    """``value`` must be available in ``targets[j]`` when node ``key`` takes its candidate
    ``j`` (``key`` ``None``: always ``targets[0]``); a ``None`` target demands nothing."""

    value: SSAValue
    key: int | None
    targets: list[Attribute | None]
    target_ids: list[int] = field(default_factory=list)
    """``targets`` as :attr:`LayoutModel.layouts` indices (-1: none)."""


@dataclass
class LayoutModel:
    """The assignment problem of one function (see the module docstring).

    ``candidates[n]``: the layouts node ``n`` may take (index 0: the staged choice);
    ``unary[n][i]``: the access cost of node ``n`` in candidate ``i``; ``pairs[(a, b)]``: a
    cost table over two nodes' choices (``a < b``); ``demands[v]``: the layouts ``v``'s users
    need; ``constant``: cost no choice changes.
    """

    capability: int
    candidates: list[list[Attribute]] = field(default_factory=list)
    node_values: list[list[SSAValue]] = field(default_factory=list)
    node_of: dict[SSAValue, int] = field(default_factory=dict)
    store_node: dict[Operation, int] = field(default_factory=dict)
    pinned: list[bool] = field(default_factory=list)
    unary: list[list[float]] = field(default_factory=list)
    pairs: dict[tuple[int, int], np.ndarray] = field(default_factory=dict)
    demands: dict[SSAValue, list[Demand]] = field(default_factory=dict)
    weight: dict[SSAValue, float] = field(default_factory=dict)
    constant: float = 0.0
    layouts: list[Attribute] = field(default_factory=list)
    """Every layout of the model once (candidates and demanded layouts, by equality)."""
    layout_id: dict[Attribute, int] = field(default_factory=dict)
    cand_ids: list[list[int]] = field(default_factory=list)
    values: list[SSAValue] = field(default_factory=list)
    value_id: dict[SSAValue, int] = field(default_factory=dict)
    _price: dict[tuple[int, int, int], float] = field(default_factory=dict)
    _lower: dict[tuple[int, int, int], float] = field(default_factory=dict)
    _remat: dict[tuple[SSAValue, Attribute], float] = field(default_factory=dict)
    _converts: dict[tuple[int, int, tuple[tuple[int, ...], int]], float] = field(
        default_factory=dict
    )
    """Conversions this model priced exactly, by (source, target, (shape, bits)): shared by
    every value of that shape and element type."""
    _sigs: dict[int, tuple[tuple[int, ...], int]] = field(default_factory=dict)
    _bounds: dict[tuple[int, int, tuple[tuple[int, ...], int]], float] = field(default_factory=dict)
    _fresh: list[tuple[int, int, int]] = field(default_factory=list)
    """Keys of :attr:`_price` added since the ILP last read the prices."""
    _fresh_converts: list[tuple[int, int, tuple[tuple[int, ...], int]]] = field(
        default_factory=list
    )
    """Keys of :attr:`_converts` added since the ILP last read the prices."""
    tied: int = 0
    """Ties :func:`_tie_elementwise` made (0: the full model)."""
    gather_operands: dict[Operation, Attribute] = field(default_factory=dict)
    """The gathers the anchors laid out (warp-local), with the layout the rewrite converts both
    their operands to: what their rule sees when the rewrite recomputes one in another layout
    (:func:`rematerialization`), which the IR the model is built on does not carry yet."""
    options: dict[int, tuple] = field(default_factory=dict)
    """Option nodes (candidates ``[None, layout]``; 1: on) of :mod:`llc.passes.loop_copies`: a
    loop value carried a second time, or a loop body op recomputed, in that layout."""
    implies: list[tuple[int, int]] = field(default_factory=list)
    """``(a, b)``: option node ``a`` on requires option node ``b`` on."""
    recomputed: dict[tuple[SSAValue, int], int] = field(default_factory=dict)
    """``(value, layout index)`` -> the option node that, on, gives ``value`` in that layout
    with no conversion (its users' demands of that layout cost nothing more)."""
    recomputed_of: dict[SSAValue, list[int]] = field(default_factory=dict)
    deadline: float = _INF
    """The budget's clock (:data:`_clock`) past which :meth:`price` plans no new conversion
    (it raises :class:`_BudgetSpent`): a solve then overruns its budget by one conversion's
    planning at most, not by all of them (set by the solve, reset when it returns)."""

    def intern(self, enc: Attribute) -> int:
        """The index of ``enc`` in :attr:`layouts` (added if new)."""
        index = self.layout_id.get(enc)
        if index is None:
            index = len(self.layouts)
            self.layouts.append(enc)
            self.layout_id[enc] = index
        return index

    def finalize(self) -> None:
        """Index layouts and values (the costs are looked up by index, not by hashing IR)."""
        self.cand_ids = [[self.intern(e) for e in c] for c in self.candidates]
        for v, demands in self.demands.items():
            self.value_id[v] = len(self.values)
            self.values.append(v)
            for d in demands:
                d.target_ids = [-1 if t is None else self.intern(t) for t in d.targets]

    # -------------------------------------------------------------- costs
    def provision(self, v: SSAValue, have: Attribute, want: Attribute, exact: bool = True) -> float:
        """Unweighted cost of making ``v`` (in ``have``) available in ``want``: a conversion, or
        the recomputation of its producer slice when cheaper (see :meth:`price`)."""
        if have == want:
            return 0.0
        if v not in self.value_id:
            self.value_id[v] = len(self.values)
            self.values.append(v)
        return self.price(self.value_id[v], self.intern(have), self.intern(want), exact)

    def price(self, vi: int, hi: int, wi: int, exact: bool = True) -> float:
        """:meth:`provision` by indices. With ``exact`` false, a conversion not priced yet
        counts at its :func:`~llc.passes.layout_cost.conversion_lower_bound`."""
        if hi == wi:
            return 0.0
        key = (vi, hi, wi)
        cached = self._price.get(key)
        if cached is not None:
            return cached
        sig = self._signature(vi)
        convert = self._converts.get((hi, wi, sig))
        if not exact and convert is None:
            bound = self._lower.get(key)
            if bound is not None:
                return bound
        v, have, want = self.values[vi], self.layouts[hi], self.layouts[wi]
        remat = rematerialization(v, want, self._remat, self.gather_operands)
        if remat == 0:  # a free recomputation needs no conversion priced
            self._price[key] = 0.0
            self._fresh.append(key)
            return 0.0
        shape, bits = sig
        if convert is not None:
            # This function priced the same conversion (layouts, shape, element type) for
            # another value: its price is known here whatever the process compiled before.
            self._price[key] = cached = min(remat, convert)
            self._fresh.append(key)
            return cached
        if not exact:
            # The lower bound even where an earlier function priced the pair exactly: the lazy
            # rounds, and so the optimum picked among equal-cost ones, must not depend on what
            # the process compiled before.
            group = (hi, wi, sig)
            bound = self._bounds.get(group)
            if bound is None:
                bound = conversion_lower_bound(have, want, shape, bits) + CONVERSION_OP_COST
                self._bounds[group] = bound
            self._lower[key] = min(remat, bound)
            return self._lower[key]
        known_key = (have, want, shape, bits, self.capability)
        convert = _KNOWN_CONVERSIONS.get(known_key)
        if convert is None:
            if _clock() > self.deadline:
                raise _BudgetSpent
            convert = conversion_cost(have, want, shape, bits, self.capability)
            convert += CONVERSION_OP_COST
            if len(_KNOWN_CONVERSIONS) >= 1 << 16:
                _KNOWN_CONVERSIONS.clear()
            _KNOWN_CONVERSIONS[known_key] = convert
        self._converts[(hi, wi, sig)] = convert
        self._fresh_converts.append((hi, wi, sig))
        cached = min(remat, convert)
        self._price[key] = cached
        self._fresh.append(key)
        return cached

    def _signature(self, vi: int) -> tuple[tuple[int, ...], int]:
        """``values[vi]``'s (shape, element bits): what a conversion's price depends on besides
        the two layouts."""
        sig = self._sigs.get(vi)
        if sig is None:
            t = self.values[vi].type
            sig = self._sigs[vi] = (shape_of(t), element_bits(t))
        return sig

    def is_priced(self, vi: int, hi: int, wi: int) -> bool:
        """Whether :meth:`price` knows the exact figure."""
        return hi == wi or (vi, hi, wi) in self._price

    def targets(self, v: SSAValue, hi: int, choice: Sequence[int]) -> set[int]:
        """The layouts (indices) other than ``hi`` that ``v``'s users demand under ``choice``."""
        wanted: set[int] = set()
        for d in self.demands.get(v, []):
            t = d.target_ids[0] if d.key is None else d.target_ids[choice[d.key]]
            if t >= 0 and t != hi:
                wanted.add(t)
        return wanted

    def value_cost(self, v: SSAValue, choice: Sequence[int], exact: bool = True) -> float:
        """Weighted cost of the distinct layouts ``v``'s users demand under ``choice``."""
        node = self.node_of[v]
        hi = self.cand_ids[node][choice[node]]
        vi = self.value_id[v]
        wanted = self.targets(v, hi, choice)
        if v in self.recomputed_of:
            wanted = {t for t in wanted if not _served(self, v, t, choice)}
        return self.weight[v] * sum(self.price(vi, hi, t, exact) for t in wanted)

    def evaluate(self, choice: Sequence[int]) -> float:
        """The model's cost of an assignment (candidate index per node).

        >>> LayoutModel(80, candidates=[[None]], unary=[[3.0]], constant=1.0).evaluate([0])
        4.0
        """
        if self.implies and not _options_closed(self, choice):
            return _INF
        total = self.constant
        for n, costs in enumerate(self.unary):
            total += costs[choice[n]]
        for (a, b), table in self.pairs.items():
            total += float(table[choice[a], choice[b]])
        for v in self.demands:
            total += self.value_cost(v, choice)
        return total

    def add_pair(self, a: int, b: int, i: int, j: int, cost: float) -> None:
        """Add ``cost`` when node ``a`` takes ``i`` and node ``b`` takes ``j``."""
        if cost == 0:
            return
        if a == b:
            if i == j:
                self.unary[a][i] += cost
            return
        if a > b:
            a, b, i, j = b, a, j, i
        table = self.pairs.get((a, b))
        if table is None:
            table = np.zeros((len(self.candidates[a]), len(self.candidates[b])))
            self.pairs[(a, b)] = table
        table[i, j] += cost

    def lower_bound(self) -> float:
        """A bound no assignment goes below: each node's cheapest access, each pair term's
        cheapest entry, no conversion.

        >>> LayoutModel(80, candidates=[[1, 2]], unary=[[3.0, 2.0]]).lower_bound()
        2.0
        """
        total = self.constant + sum(min(costs) for costs in self.unary)
        return total + sum(float(table.min()) for table in self.pairs.values())

    def staged_choice(self) -> list[int]:
        """The staged analysis' assignment (every node's candidate 0)."""
        return [0] * len(self.candidates)


def _served(model: LayoutModel, v: SSAValue, t: int, choice: Sequence[int]) -> bool:
    """Whether an option that ``choice`` turns on gives ``v`` in layout ``t``."""
    n = model.recomputed.get((v, t))
    return n is not None and choice[n] == 1


def _options_closed(model: LayoutModel, choice: Sequence[int]) -> bool:
    """Whether every option ``choice`` turns on has the options it requires on."""
    return all(choice[a] != 1 or choice[b] == 1 for a, b in model.implies)


def rematerialization(
    v: SSAValue,
    want: Attribute,
    memo: dict[tuple[SSAValue, Attribute], float],
    gather_operands: Mapping[Operation, Attribute] | None = None,
) -> float:
    """Unweighted cost of recomputing ``v`` in ``want`` from scalars alone: the slice of its
    producers is made of rematerializable ops with a rule (constants, ranges, splats, index
    arithmetic, elementwise chains) and reaches no tensor it cannot recompute (a load, a block
    argument). ``inf`` otherwise, or past :data:`MAX_REMAT_OPS` ops.

    The rules see the layouts of the IR, as the rewrite does after retyping; the model, built
    before the rewrite, passes ``gather_operands`` (:attr:`LayoutModel.gather_operands`): the
    layout a gather's operands will have, on which its rule depends (a gather that stays
    inside warps only moves to indices' layouts that keep it there)."""
    key = (v, want)
    if key in memo:
        return memo[key]
    memo[key] = _INF  # cycles and re-entry
    result = _remat(v, want, memo, [0], gather_operands or {})
    memo[key] = result
    return result


def _remat(
    v: SSAValue,
    want: Attribute,
    memo: dict[tuple[SSAValue, Attribute], float],
    count: list[int],
    gather_operands: Mapping[Operation, Attribute],
) -> float:
    owner = v.owner
    if not isinstance(owner, Operation):
        return _INF
    rule = rule_for(owner)
    if (
        rule is None
        or not rule.rematerializable
        or rule.kind not in ("free", "transparent", "structural")
        or owner.regions
        or len(tensor_results(owner)) != 1
    ):
        return _INF
    count[0] += 1
    if count[0] > MAX_REMAT_OPS:
        return _INF
    if owner in gather_operands:
        required = gather_backward(owner, [want], [gather_operands[owner]] * 2)
    else:
        required = rule.backward(owner, [want])
    if required is None:
        return _INF
    total = remat_cost(owner.name, shape_of(v.type), element_bits(v.type))
    for i, enc in zip(tensor_operands(owner), required, strict=False):
        if enc is ANY:
            continue
        operand = owner.operands[i]
        key = (operand, enc)
        if key not in memo:
            memo[key] = _INF
            memo[key] = _remat(operand, enc, memo, count, gather_operands)
        total += memo[key]
        if total == _INF:
            return _INF
    return total


# ---------------------------------------------------------------------------------- building
class _Ties:
    def __init__(self) -> None:
        self.parent: dict[SSAValue, SSAValue] = {}

    def find(self, v: SSAValue) -> SSAValue:
        self.parent.setdefault(v, v)
        while self.parent[v] is not v:
            self.parent[v] = self.parent[self.parent[v]]
            v = self.parent[v]
        return v

    def union(self, a: SSAValue, b: SSAValue) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra is not rb:
            self.parent[rb] = ra


def _function_values(func: FuncOp, ops: list[Operation]) -> Iterator[SSAValue]:
    if func.body.blocks:
        yield from func.body.block.args
    for op in ops:
        yield from op.results
        for region in op.regions:
            for block in region.blocks:
                yield from block.args


def _linear(enc: Attribute, shape: tuple[int, ...], cache: dict) -> object | None:
    """``enc``'s linear layout for ``shape`` (``None``: it has none)."""
    key = (enc, shape)
    if key not in cache:
        try:
            cache[key] = enc.to_linear_layout(padded_shape(shape))  # type: ignore[attr-defined]
        except (LayoutError, ValueError, AttributeError, TypeError):
            cache[key] = None
    return cache[key]


def _redundant(enc: Attribute, kept: list[Attribute], shape: tuple[int, ...], cache: dict) -> bool:
    """Whether ``enc`` is invalid for ``shape`` or maps the same elements as a kept candidate of
    its own kind (the rules treat the two alike, and converting between them is free). One
    exception: a reduction's operand and an ``expand_dims``' result take a slice's parent, and
    a slice of a ``#linear`` parent with idle lanes (a row layout broadcast along the rows,
    :func:`_duplicating`) maps like the slice of the row layout itself; the latter is kept
    too, else the 2-D values around it lose their own layout."""
    ll = _linear(enc, shape, cache)
    if ll is None:
        return True
    return any(
        type(k) is type(enc)
        and _linear(k, shape, cache) == ll
        and not (_idle_parent(k) and not _idle_parent(enc))
        for k in kept
    )


def _idle_parent(enc: Attribute) -> bool:
    """Whether ``enc`` is a slice of a ``#linear`` layout with an idle lane or warp."""
    if not isinstance(enc, SliceEncodingAttr):
        return False
    parent = enc.layout.parent  # type: ignore[attr-defined]
    if getattr(parent, "kind", None) != "linear":
        return False
    return _idle_threads(parent.linear_layout())


def _duplicating(enc: Attribute, shape: tuple[int, ...], cache: dict) -> bool:
    """Whether ``enc`` is a ``#linear`` layout that keeps a lane or warp idle (a zero basis:
    several threads hold one element) on a ``shape`` with an element for every thread.

    A broadcast passes such a layout on from its narrow operand (a ``#linear`` attribute
    stands for its bases at every shape): on the wide value each thread computes copies of
    what its neighbours hold. It stays a candidate, after every other one
    (:func:`build_model`), so that it never takes the slot of an anchor's layout or of one
    that reaches the node from an anchor. Other families are not counted: a slice (a
    reduction's result) and a dot operand duplicate by construction, and the sorts' small
    blocked tiles need theirs.

    A 128x1 column held by 4 lanes of 8 and 4 warps, 8 registers each (one element per
    thread is possible there, and on its 128x64 broadcast too; not on 64x1):

    >>> from llc.dialects.layout_rules import _linear_attr
    >>> from llc.linear_layout import LinearLayout
    >>> column = _linear_attr(LinearLayout.from_bases(
    ...     [("register", [[16, 0], [32, 0], [64, 0]]),
    ...      ("lane", [[0, 0], [0, 0], [0, 0], [1, 0], [2, 0]]),
    ...      ("warp", [[4, 0], [8, 0]]), ("block", [])],
    ...     ["dim0", "dim1"], [128, 1], require_surjective=False))
    >>> _duplicating(column, (128, 64), {}), _duplicating(column, (64, 1), {})
    (True, False)
    >>> _duplicating(default_blocked((128, 64), 4, 32), (128, 64), {})
    False
    """
    if getattr(getattr(enc, "layout", None), "kind", None) != "linear":
        return False
    ll = _linear(enc, shape, cache)
    if ll is None:
        return False
    threads = ll.get_in_dim_size("lane") * ll.get_in_dim_size("warp")  # type: ignore[attr-defined]
    return math.prod(shape) >= threads and _idle_threads(ll)


def _idle_threads(ll: object) -> bool:
    """Whether the linear layout ``ll`` maps some lane or warp bit to nothing."""
    return any(
        not any(ll.basis(dim, i))  # type: ignore[attr-defined]
        for dim in ("lane", "warp")
        for i in range(ll.get_in_dim_size_log2(dim))  # type: ignore[attr-defined]
    )


def _widened(v: SSAValue) -> bool:
    """Whether ``v`` is made by a single-operand layout-transparent op (a cast): a dot operand
    layout offered to it may move on to the narrower value it widens."""
    owner = v.owner
    if not isinstance(owner, Operation) or (rule := rule_for(owner)) is None:
        return False
    return rule.kind == "transparent" and len(tensor_operands(owner)) == 1


def _is_dot_operand(enc: Attribute) -> bool:
    return getattr(getattr(enc, "layout", None), "kind", None) == "dot_op"


def _connections(op: Operation) -> list[tuple[SSAValue, SSAValue]]:
    """(value, carrier) pairs that control flow connects by a conversion: the value is
    converted to the carrier's layout (the rewrite's ``_tied_requirements``)."""
    out: list[tuple[SSAValue, SSAValue]] = []
    if op.name == "scf.for":
        body = op.regions[0].block
        yielded = body.last_op.operands if body.last_op is not None else []
        for i, result in enumerate(op.results):
            out.append((op.operands[3 + i], result))
            if i < len(yielded):
                out.append((yielded[i], result))
    elif op.name == "scf.if":
        for i, result in enumerate(op.results):
            for region in op.regions:
                if region.blocks and region.block.last_op is not None:
                    out.append((region.block.last_op.operands[i], result))
    elif op.name == "scf.while":
        before, after = op.regions[0].block, op.regions[1].block
        after_yield = after.last_op.operands if after.last_op is not None else []
        for i, init in enumerate(op.operands):
            out.append((init, before.args[i]))
            if i < len(after_yield):
                out.append((after_yield[i], before.args[i]))
        condition = before.last_op
        cond_args = condition.operands[1:] if condition is not None else []
        for i, result in enumerate(op.results):
            if i < len(cond_args):
                out.append((cond_args[i], result))
    return [(v, c) for v, c in out if is_tensor(v) and is_tensor(c)]


def build_model(
    analysis: LayoutAnalysis,
    func: FuncOp,
    staged: dict[SSAValue, Attribute],
    staged_sinks: dict[Operation, Attribute],
    tie_above: int | None = TIE_ABOVE_VALUES,
    loop_copies: bool = True,
) -> LayoutModel:
    """The model of ``func`` after the staged analysis (``staged``: every tensor value's
    layout; ``staged_sinks``: every store's). With more than ``tie_above`` tensor values
    (``None``: never) the model is tied (:func:`_tie_elementwise`). With ``loop_copies``, loop
    values may be carried a second time in another layout
    (:func:`llc.passes.loop_copies.add_loop_copies`)."""
    from llc.passes.axis_info import AxisAnalysis
    from llc.passes.coalesce import coalesced_layout

    model = LayoutModel(analysis.capability)
    ops = list(walk_ops(func))
    model.gather_operands = {
        op: enc for op, enc in analysis.sink_layouts.items() if op.name == "tl.gather"
    }
    ties = _Ties()
    for v in _function_values(func, ops):
        if is_tensor(v):
            ties.find(v)
    for op in ops:
        if op.name == "scf.for":
            body = op.regions[0].block
            for i, result in enumerate(op.results):
                if is_tensor(result):
                    ties.union(result, body.args[i + 1])
        elif op.name == "scf.while":
            after = op.regions[1].block
            for i, result in enumerate(op.results):
                if is_tensor(result) and i < len(after.args):
                    ties.union(result, after.args[i])
        elif rule_for(op) is not None:
            results = [op.results[i] for i in tensor_results(op)]
            for r in results[1:]:
                ties.union(results[0], r)
    if tie_above is not None and len(ties.parent) > tie_above:
        model.tied = _tie_elementwise(ops, ties, staged)
    limit = MAX_TIED_CANDIDATES if model.tied else MAX_SOLVER_CANDIDATES
    roots: dict[SSAValue, int] = {}
    for v in ties.parent:
        root = ties.find(v)
        if root not in roots:
            roots[root] = len(model.node_values)
            model.node_values.append([])
        n = roots[root]
        model.node_values[n].append(v)
        model.node_of[v] = n
    num_values = len(model.node_values)
    stores = [
        op for op in ops if op.name == "tl.store" and op.operands and is_tensor(op.operands[0])
    ]
    for op in stores:
        model.store_node[op] = len(model.node_values)
        model.node_values.append([])

    # ---- seeds
    valid_cache: dict = {}
    cands: list[list[Attribute]] = []
    spare: list[list[Attribute]] = [[] for _ in model.node_values]
    pinned: list[bool] = []
    shapes: list[tuple[int, ...]] = []
    hw = analysis.hw
    axis = AxisAnalysis()
    for n in range(num_values):
        values = model.node_values[n]
        v0 = values[0]
        shape = shape_of(v0.type)
        shapes.append(shape)
        first = staged[v0]
        seeds: list[Attribute] = [first]
        pin = False
        for v in values:
            owner = v.owner
            existing = encoding_of(v.type)
            if isinstance(owner, Operation):
                if (
                    owner.name == "tl.dot"
                    or (owner.name == "tl.gather" and owner in analysis.sink_layouts)
                    or (
                        rule_for(owner) is None
                        and owner.name not in ("scf.for", "scf.if", "scf.while")
                    )
                ):
                    pin = True
            elif (
                isinstance(v, BlockArgument)
                and func.body.blocks
                and v.owner is func.body.block
                and existing is not None
                and analysis.keep_existing
            ):
                pin = True  # a function argument's layout is its caller's
            if existing is not None and analysis.keep_existing and analysis.partial:
                pin = True
            root = analysis.cls(v)
            if root in analysis.fixed:
                seeds.append(analysis.fixed[root])
            seeds += [enc for _, enc in analysis.anchor_options.get(root, [])]
            if existing is not None:
                seeds.append(existing)
            if isinstance(owner, Operation) and owner.name == "tl.load":
                seeds.append(coalesced_layout(owner, axis, hw))
        # The staged choice and the anchors' layouts come first; what the staged propagation
        # merely tried comes after them, a duplicating layout after every other candidate.
        anchored = len(seeds)
        for v in values:
            seeds += analysis.candidates.get(analysis.cls(v), [])
        keep: list[Attribute] = []
        for k, enc in enumerate(seeds):
            if enc in keep or len(keep) >= limit:
                continue
            if keep and (_is_dot_operand(enc) or _redundant(enc, keep, shape, valid_cache)):
                continue
            if k >= anchored and _duplicating(enc, shape, valid_cache):
                spare[len(cands)].append(enc)  # after the others (see _duplicating)
                continue
            keep.append(enc)
        cands.append(keep[:1] if pin else keep)
        pinned.append(pin)
    for op in stores:
        shape = shape_of(op.operands[0].type)
        shapes.append(shape)
        seeds = [staged_sinks[op], coalesced_layout(op, axis, hw)]
        cands.append(list(dict.fromkeys(seeds)))
        pinned.append(False)

    # What each op's rule requires of its operands for a result layout: asked again by the
    # transfer, the pruning and the costs (the IR does not change while the model is built).
    required_of: dict[tuple[Operation, Attribute], list[Attribute] | None] = {}

    def backward(rule: object, op: Operation, enc: Attribute, results: int) -> list | None:
        key = (op, enc)
        if key not in required_of:
            required_of[key] = backward_layouts(rule, op, [enc] * results)
        return required_of[key]

    # The layouts a laid-out function's signature gives its returned values: the rewrite
    # converts a returned value into its result type, so that layout is a candidate and a demand.
    returned = [(v, e) for v, e in _returned_layouts(func, ops) if v in model.node_of]
    for v, enc in returned:
        n = model.node_of[v]
        if pinned[n] or enc in cands[n] or _redundant(enc, cands[n], shapes[n], valid_cache):
            continue
        cands[n].insert(1, enc)  # after the staged choice, before what transfer offers
        del cands[n][limit:]

    # ---- transfer: forward and backward through the rules, two rounds
    def offer(n: int, enc: Attribute | None, dot_operand: bool = False) -> None:
        if (
            enc is None
            or enc is ANY
            or pinned[n]
            or enc in cands[n]
            or len(cands[n]) >= limit
            or (_is_dot_operand(enc) and not dot_operand)
            or _redundant(enc, cands[n], shapes[n], valid_cache)
        ):
            return
        if _duplicating(enc, shapes[n], valid_cache):
            if enc not in spare[n]:
                spare[n].append(enc)
            return
        cands[n].append(enc)

    for _ in range(2):
        for op in ops:
            for v, carrier in _connections(op):
                a, b = model.node_of[v], model.node_of[carrier]
                for enc in list(cands[a]):
                    offer(b, enc)
                for enc in list(cands[b]):
                    offer(a, enc)
            if op in model.store_node:
                s = model.store_node[op]
                # The stored value's layouts first: its producer's anchors (a dot's layout)
                # matter more than the pointers', which index arithmetic rebuilds anywhere.
                for i in sorted(tensor_operands(op), key=lambda i: i != 1):
                    for enc in list(cands[model.node_of[op.operands[i]]]):
                        offer(s, enc)
                continue
            rule = rule_for(op)
            results = tensor_results(op)
            if rule is None or not results or rule.kind in ("sink", "source"):
                continue
            r = model.node_of[op.results[results[0]]]
            for i in tensor_operands(op):
                if op.name == "tl.dot" and i != 2:
                    continue
                for enc in list(cands[model.node_of[op.operands[i]]]):
                    out = _forward(rule, op, i, enc)
                    if out:
                        offer(r, out[0])
        for op in reversed(ops):
            if op in model.store_node:
                s = model.store_node[op]
                for i in tensor_operands(op):
                    for enc in cands[s]:
                        offer(model.node_of[op.operands[i]], enc)
                continue
            rule = rule_for(op)
            results = tensor_results(op)
            if rule is None or not results:
                continue
            r = model.node_of[op.results[results[0]]]
            # A dot operand layout may move above a cast (Triton converts the narrow value
            # before widening it: an i8 or f8 operand moves half the bytes of its f16 copy),
            # and above the load that made it, onto its pointers: else loop-carried pointers
            # keep another layout and each iteration converts them (free, but an op).
            cast = (rule.kind == "transparent" and len(tensor_operands(op)) == 1) or (
                op.name == "tl.load"
            )
            for enc in list(cands[r]):
                required = backward(rule, op, enc, len(results))
                if required is None:
                    continue
                for i, req in zip(tensor_operands(op), required, strict=False):
                    v = op.operands[i]
                    offer(model.node_of[v], req, dot_operand=cast or _widened(v))

    for n in range(num_values):  # the default last, where the bound leaves room
        offer(n, default_blocked(shapes[n], hw.num_warps, hw.threads_per_warp))
    for n in range(len(cands)):
        for enc in spare[n]:  # then the duplicating layouts, which nothing else transferred
            if len(cands[n]) < limit and not _redundant(enc, cands[n], shapes[n], valid_cache):
                cands[n].append(enc)

    # ---- prune what the producer cannot produce (the staged choice stays)
    for op in ops:
        rule = rule_for(op)
        results = tensor_results(op)
        if rule is None or not results or not tensor_operands(op):
            continue
        r = model.node_of[op.results[results[0]]]
        cands[r] = [cands[r][0]] + [
            e for e in cands[r][1:] if backward(rule, op, e, len(results)) is not None
        ]
    model.candidates = cands
    model.pinned = pinned
    model.unary = [[0.0] + [CHANGE_COST] * (len(c) - 1) for c in cands]
    for v in ties.parent:
        model.weight[v] = value_weight(v)

    # ---- costs
    def demand(v: SSAValue, key: int | None, targets: list[Attribute | None]) -> None:
        if all(t is None or t is ANY for t in targets):
            return
        clean = [None if t is ANY else t for t in targets]
        model.demands.setdefault(v, []).append(Demand(v, key, clean))

    for v, enc in returned:
        demand(v, None, [enc])
    for op in ops:
        for v, carrier in _connections(op):
            c = model.node_of[carrier]
            demand(v, c, list(cands[c]))
        if op.name in ("tl.load", "tl.store") and is_tensor(op.operands[0]):
            ptr = op.operands[0]
            info = axis.info(ptr)
            data = op.operands[1] if op.name == "tl.store" else op.results[0]
            bits = element_bits(data.type)
            n = model.store_node[op] if op.name == "tl.store" else model.node_of[op.results[0]]
            w = block_weight(op.parent_block())
            for i, enc in enumerate(cands[n]):
                model.unary[n][i] += (
                    w
                    * access_cost(
                        enc, shape_of(ptr.type), bits, info.contiguity, info.divisibility
                    ).total
                )
        if op.name == "tl.reduce":
            _price_reduction(op, model, cands, block_weight(op.parent_block()))
        if op in model.store_node:
            s = model.store_node[op]
            for i in tensor_operands(op):
                demand(op.operands[i], s, list(cands[s]))
            continue
        if op.name == "tl.gather" and op in analysis.sink_layouts:
            for i in tensor_operands(op):
                demand(op.operands[i], None, [analysis.sink_layouts[op]])
            continue
        rule = rule_for(op)
        results = tensor_results(op)
        operands = tensor_operands(op)
        if rule is None or not results or not operands:
            continue
        r = model.node_of[op.results[results[0]]]
        per_operand: list[list[Attribute | None]] = [[] for _ in operands]
        for j, lr in enumerate(cands[r]):
            required = backward(rule, op, lr, len(results))
            if required is None:
                required = _fallback(op, rule, j, lr, model, cands, staged, hw)
            for k in range(len(operands)):
                per_operand[k].append(required[k] if required and k < len(required) else None)
        for k, i in enumerate(operands):
            demand(op.operands[i], r, per_operand[k])
    model.finalize()
    if loop_copies:
        from llc.passes.loop_copies import add_loop_copies

        add_loop_copies(model, ops)
    return model


def _tie_elementwise(
    ops: Sequence[Operation], ties: _Ties, staged: Mapping[SSAValue, Attribute]
) -> int:
    """Tie each elementwise op's (layout-transparent rule: the operands take the result's
    layout) tensor operands to its result where the staged analysis laid them out alike; how
    many ties joined two nodes.

    The tied model only leaves out a conversion between an elementwise op and its operand, which
    the staged assignment does not use there: it keeps the staged assignment (so its optimum is
    never above it) and every conversion at a structural op (reshape, reduction, broadcast,
    join), a load, a store, a loop or a branch. A large function's model shrinks by the length of
    its elementwise chains (Triton's ``tl.sort`` of a 4x128 tile: 424 nodes to 94), the size
    the ILP proves within its budget.

    >>> _tie_elementwise([], _Ties(), {})
    0
    """
    joined = 0
    for op in ops:
        rule = rule_for(op)
        if rule is None or rule.kind != "transparent" or op.name == "tl.load":
            continue
        results = [op.results[i] for i in tensor_results(op)]
        if not results:
            continue
        result = results[0]
        for i in tensor_operands(op):
            operand = op.operands[i]
            if (
                shape_of(operand.type) == shape_of(result.type)
                and staged.get(operand) == staged.get(result)
                and ties.find(operand) is not ties.find(result)
            ):
                ties.union(result, operand)
                joined += 1
    return joined


def _returned_layouts(func: FuncOp, ops: list[Operation]) -> list[tuple[SSAValue, Attribute]]:
    """``(value, layout)`` for each tensor a return of ``func`` gives back in a result type
    that has a layout (laid-out input: the signature is kept)."""
    outputs = func.function_type.outputs.data
    out: list[tuple[SSAValue, Attribute]] = []
    for op in ops:
        if op.name != "func.return" or op.parent_op() is not func:
            continue
        for v, t in zip(op.operands, outputs, strict=False):
            enc = encoding_of(t)
            if enc is not None and is_tensor(v):
                out.append((v, enc))
    return out


_RULE_ERRORS = (LayoutError, ValueError, AttributeError, TypeError, IndexError)


def _forward(rule: object, op: Operation, index: int, enc: Attribute) -> list[Attribute] | None:
    """``rule.forward``, ``None`` where the layout algebra rejects the layout."""
    try:
        return rule.forward(op, index, enc)  # type: ignore[attr-defined]
    except _RULE_ERRORS:
        return None


def _price_reduction(
    op: Operation, model: LayoutModel, cands: list[list[Attribute]], weight: float
) -> None:
    """Add a ``tl.reduce``'s own cost (:func:`llc.cost.reduction_cost`: shuffles per lane bit
    and a shared-memory exchange when warps split the axis) to the node whose layout it runs
    in: the layout its result's candidate requires of the operands, or, for a reduction to a
    scalar, its operand's."""
    from llc.cost import reduction_cost

    axis = op.axis.value.data  # type: ignore[attr-defined]
    operands = [op.operands[i] for i in tensor_operands(op)]
    results = tensor_results(op)
    rule = rule_for(op)

    def cost(layouts: Sequence[Attribute | None]) -> float:
        if folded_reduction(op, [None if e is ANY else e for e in layouts]):
            return 0.0
        total = 0.0
        for v, enc in zip(operands, layouts, strict=False):
            if enc is None or enc is ANY:
                continue
            with contextlib.suppress(LayoutError, AttributeError):
                total += reduction_cost(enc, shape_of(v.type), axis, element_bits(v.type))
        return weight * total

    if results and rule is not None and op.results[results[0]] in model.node_of:
        r = model.node_of[op.results[results[0]]]
        for j, lr in enumerate(cands[r]):
            required = backward_layouts(rule, op, [lr] * len(results))
            if required is not None:
                model.unary[r][j] += cost(required)
    elif operands and operands[0] in model.node_of:
        n = model.node_of[operands[0]]
        for j, enc in enumerate(cands[n]):
            model.unary[n][j] += cost([enc] * len(operands))


def backward_layouts(rule: object, op: Operation, encs: list[Attribute]) -> list[Attribute] | None:
    """``rule.backward``: the operand layouts that give ``op`` the result layouts ``encs``;
    ``None`` where the layout algebra rejects them.

    >>> from xdsl.dialects.arith import AddfOp
    >>> from xdsl.dialects.builtin import TensorType, f32
    >>> from xdsl.utils.test_value import create_ssa_value
    >>> from llc.dialects.layout_attrs import BlockedEncodingAttr
    >>> from llc.dialects.layout_rules import rule_for
    >>> from llc.layouts import BlockedLayout
    >>> x = create_ssa_value(TensorType(f32, [64]))
    >>> add = AddfOp(x, x)
    >>> enc = BlockedEncodingAttr(BlockedLayout([1], [32], [4], [0]))
    >>> backward_layouts(rule_for(add), add, [enc]) == [enc, enc]
    True
    """
    try:
        return rule.backward(op, encs)  # type: ignore[attr-defined]
    except _RULE_ERRORS:
        return None


def _fallback(
    op: Operation,
    rule: object,
    j: int,
    lr: Attribute,
    model: LayoutModel,
    cands: list[list[Attribute]],
    staged: dict[SSAValue, Attribute],
    hw: object,
) -> list[Attribute] | None:
    """A result layout ``op`` cannot produce: it runs in the layout its first operand derives
    and its result is converted (the rewrite's ``_legalize``). Adds that conversion as a pair
    term with the first operand's node; returns the operand layouts the derived layout needs
    (from the first operand's staged layout)."""
    first_idx = tensor_operands(op)[0]
    first = op.operands[first_idx]
    f = model.node_of[first]
    r = model.node_of[op.results[tensor_results(op)[0]]]
    result = op.results[tensor_results(op)[0]]
    w = model.weight.get(result) or value_weight(result)
    shape, bits = shape_of(result.type), element_bits(result.type)

    def derive(enc: Attribute) -> tuple[Attribute | None, float]:
        out = _forward(rule, op, first_idx, enc)
        if out:
            return out[0], 0.0
        default = default_blocked(shape_of(first.type), hw.num_warps, hw.threads_per_warp)  # type: ignore[attr-defined]
        out = _forward(rule, op, first_idx, default)
        extra = conversion_cost(
            enc, default, shape_of(first.type), element_bits(first.type), model.capability
        )
        return (out[0] if out else None), extra

    for i, lf in enumerate(cands[f]):
        derived, extra = derive(lf)
        cost = extra
        if derived is not None:
            cost += conversion_cost(derived, lr, shape, bits, model.capability)
        model.add_pair(f, r, i, j, w * cost)
    derived, _ = derive(staged[first])
    if derived is None:
        return None
    return backward_layouts(rule, op, [derived] * len(tensor_results(op)))


# ---------------------------------------------------------------------------------- the ILP
@dataclass
class SolveResult:
    """The optimum of a model (``choice``: candidate index per node) or why there is none."""

    choice: list[int] | None
    objective: float
    status: str
    seconds: float
    rounds: int = 0
    """ILP solves until every conversion of the optimum was priced exactly."""
    proven: bool = True
    """Whether ``choice`` is the proven optimum; ``False``: the best assignment found when the
    budget ran out (an ILP round's optimum under lower-bound prices, or HiGHS's incumbent),
    priced exactly in ``objective``."""


class _Ilp:
    def __init__(self, model: LayoutModel) -> None:
        self.model = model
        self.costs: list[float] = []
        self.lower: list[float] = []
        self.upper: list[float] = []
        self.integer: list[bool] = []
        self.rows: list[tuple[list[int], list[float], float, float]] = []
        self.constant = model.constant
        self.priced: list[tuple[int, int, int, float, tuple[float, list[int]]]] = []
        self.base_costs: list[float] = []
        self.base_constant = 0.0
        self._h = None
        self._integer = False
        self._incumbent: list[float] | None = None
        self.start: Sequence[int] | None = None
        self.deadline = _INF
        """The process CPU time past which the branch and bound stops."""
        """An assignment the first branch and bound starts from (the best one known)."""
        self._entries: tuple | None = None
        self._prices: np.ndarray | None = None
        self._key_index: dict[tuple[int, int, int], int] = {}
        self._groups: dict[tuple, list[int]] = {}
        self.x: list[list[int] | None] = []
        self.y: dict[tuple[int, int], np.ndarray] = {}
        for cands in model.candidates:
            if len(cands) == 1:
                self.x.append(None)
                continue
            cols = [self.col(0.0, True) for _ in cands]
            self.x.append(cols)
            self.rows.append((cols, [1.0] * len(cols), 1.0, 1.0))

    def col(self, cost: float, integer: bool = False) -> int:
        self.costs.append(cost)
        self.lower.append(0.0)
        self.upper.append(1.0)
        self.integer.append(integer)
        return len(self.costs) - 1

    def indicator(self, a: int, i: int, b: int | None, j: int) -> tuple[float, list[int]]:
        """A linear expression equal to ``[node a takes i and node b takes j]``: (constant,
        columns)."""
        xa = self.x[a]
        if b is None or b == a:
            if b == a and i != j:
                return 0.0, []
            return (1.0, []) if xa is None else (0.0, [xa[i]])
        xb = self.x[b]
        if xa is None and xb is None:
            return 1.0, []
        if xa is None:
            return 0.0, [xb[j]]  # type: ignore[index]
        if xb is None:
            return 0.0, [xa[i]]
        key, (p, q) = ((a, b), (i, j)) if a < b else ((b, a), (j, i))
        table = self.y.get(key)
        if table is None:
            lo, hi = key
            na, nb = len(self.model.candidates[lo]), len(self.model.candidates[hi])
            table = np.array([[self.col(0.0) for _ in range(nb)] for _ in range(na)], dtype=int)
            self.y[key] = table
            xl, xh = self.x[lo], self.x[hi]
            for r in range(na):
                self.rows.append(([*table[r].tolist(), xl[r]], [1.0] * nb + [-1.0], 0.0, 0.0))  # type: ignore[index]
            for c in range(nb):
                self.rows.append(([*table[:, c].tolist(), xh[c]], [1.0] * na + [-1.0], 0.0, 0.0))  # type: ignore[index]
        return 0.0, [int(table[p, q])]

    def add_cost(self, expr: tuple[float, list[int]], cost: float) -> None:
        const, cols = expr
        self.constant += const * cost
        for c in cols:
            self.costs[c] += cost

    def build(self) -> None:
        m = self.model
        for n, costs in enumerate(m.unary):
            for i, c in enumerate(costs):
                if c:
                    self.add_cost(self.indicator(n, i, None, 0), c)
        for (a, b), table in m.pairs.items():
            for i, j in zip(*np.nonzero(table), strict=True):
                self.add_cost(self.indicator(a, int(i), b, int(j)), float(table[i, j]))
        for v, demands in m.demands.items():
            s = m.node_of[v]
            vi = m.value_id[v]
            weight = m.weight[v]
            for i, hi in enumerate(m.cand_ids[s]):
                # target -> demanding node -> the indicator that it asks for it: the demands
                # of one node are one expression (its candidates exclude each other, so the
                # union of their columns is exact; one row per demand would let the relaxation
                # pay the largest instead of their sum)
                by_node: dict[int, dict[int, tuple[float, set[int]]]] = {}
                for d in demands:
                    if d.key is None:
                        t = d.target_ids[0]
                        if t >= 0 and t != hi:
                            const, cols = self.indicator(s, i, None, 0)
                            by_node.setdefault(t, {})[-1] = (const, set(cols))
                        continue
                    for j, t in enumerate(d.target_ids):
                        if t < 0 or t == hi:
                            continue
                        const, cols = self.indicator(s, i, d.key, j)
                        old_const, old_cols = by_node.setdefault(t, {}).get(d.key, (0.0, set()))
                        by_node[t][d.key] = (max(old_const, const), old_cols | set(cols))
                by_target = {
                    t: [(const, sorted(cols)) for const, cols in nodes.values()]
                    for t, nodes in by_node.items()
                }
                for t, exprs in by_target.items():
                    if m.is_priced(vi, hi, t) and m.price(vi, hi, t) == 0:
                        continue
                    if (v, t) in m.recomputed:
                        self._served_demand(vi, hi, t, weight, exprs, m.recomputed[(v, t)])
                        continue
                    if any(const >= 1 for const, _ in exprs):
                        self.priced.append((vi, hi, t, weight, self.indicator(s, i, None, 0)))
                        continue
                    if len(exprs) == 1:
                        self.priced.append((vi, hi, t, weight, exprs[0]))
                        continue
                    w = self.col(0.0)
                    for _, cols in exprs:
                        self.rows.append(([w, *cols], [1.0] + [-1.0] * len(cols), 0.0, _INF))
                    self.priced.append((vi, hi, t, weight, (0.0, [w])))
        for a, b in m.implies:  # an option on needs the options it reads on
            xa, xb = self.x[a], self.x[b]
            assert xa is not None and xb is not None
            self.rows.append(([xb[1], xa[1]], [1.0, -1.0], 0.0, _INF))
        self.base_costs = list(self.costs)
        self.base_constant = self.constant

    def _served_demand(
        self,
        vi: int,
        hi: int,
        t: int,
        weight: float,
        exprs: list[tuple[float, list[int]]],
        option: int,
    ) -> None:
        """A demand of layout ``t`` that option node ``option`` can serve instead of a
        conversion: the conversion column ``w`` is needed where a demand is and the option
        is off (``w + x[option, on] >= demand``)."""
        xo = self.x[option]
        assert xo is not None
        w = self.col(0.0)
        for const, cols in exprs:
            self.rows.append(([w, xo[1], *cols], [1.0, 1.0] + [-1.0] * len(cols), const, _INF))
        self.priced.append((vi, hi, t, weight, (0.0, [w])))

    def reprice(self) -> None:
        """The objective with the current prices (exact where known, else lower bounds)."""
        m = self.model
        if self._entries is None:
            keys: dict[tuple[int, int, int], int] = {}
            key_idx, col_idx, coef = [], [], []
            const_key, const_coef = [], []
            for vi, hi, t, weight, (const, cols) in self.priced:
                k = keys.setdefault((vi, hi, t), len(keys))
                if const:
                    const_key.append(k)
                    const_coef.append(const * weight)
                for c in cols:
                    key_idx.append(k)
                    col_idx.append(c)
                    coef.append(weight)
            self._entries = (
                list(keys),
                np.array(key_idx, dtype=np.int64),
                np.array(col_idx, dtype=np.int64),
                np.array(coef, dtype=float),
                np.array(const_key, dtype=np.int64),
                np.array(const_coef, dtype=float),
            )
        keys_list, key_idx, col_idx, coef, const_key, const_coef = self._entries
        if self._prices is None:
            m._fresh.clear()
            m._fresh_converts.clear()
            self._prices = np.array([m.price(vi, hi, t, exact=False) for vi, hi, t in keys_list])
            self._key_index = {key: k for k, key in enumerate(keys_list)}
            for k, (vi, hi, t) in enumerate(keys_list):
                self._groups.setdefault((hi, t, m._signature(vi)), []).append(k)
        else:
            # Only the prices learnt since the last round change (most keys keep their lower
            # bound): a conversion priced for one value is known for every value of its group.
            prices = self._prices
            for group in m._fresh_converts:
                for k in self._groups.get(group, ()):
                    prices[k] = m.price(*keys_list[k], exact=False)
            m._fresh_converts.clear()
            for key in m._fresh:
                k = self._key_index.get(key)
                if k is not None:
                    prices[k] = m._price[key]
            m._fresh.clear()
        prices = self._prices
        costs = np.array(self.base_costs, dtype=float)
        if len(col_idx):
            np.add.at(costs, col_idx, coef * prices[key_idx])
        self.costs = costs.tolist()
        self.constant = self.base_constant + float(np.dot(const_coef, prices[const_key]))

    def price_all(self, limit: int) -> bool:
        """Before the first MIP, price exactly every conversion of the model when at most
        ``limit`` (layouts, shape, bits) groups are unpriced: a MIP round costs far more than an
        LP round, and with every price exact the first MIP is the last. Whether a price
        changed (decided by the function alone, so the rounds do not depend on what the
        process compiled before)."""
        m = self.model
        assert self._entries is not None
        keys = self._entries[0]
        groups = {(hi, t, m._signature(vi)) for vi, hi, t in keys if not m.is_priced(vi, hi, t)}
        if not groups or len({g for g in groups if g not in m._converts}) > limit:
            return False
        for vi, hi, t in keys:
            m.price(vi, hi, t)
        self.reprice()
        return True

    def _highs(self, time_limit: float):  # type: ignore[no-untyped-def]
        """A HiGHS instance holding the LP relaxation (built on the first solve)."""
        import highspy

        # The core object: highspy.Highs() prints a banner on stdout and sets up callbacks.
        core = getattr(highspy, "_core", None)
        h = core._Highs() if core is not None and hasattr(core, "_Highs") else highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("mip_rel_gap", 0.0)
        h.setOptionValue("mip_abs_gap", 1e-7)
        h.setOptionValue("threads", 1)
        h.setOptionValue("presolve", "off")
        if self.model.options:
            # Loop options (llc.passes.loop_copies) leave the relaxation fractional, and
            # HiGHS's root then fills its cut pool (thousands of cuts for a 100-node model):
            # a small pool halves the solve of such models (measured in RESULTS).
            h.setOptionValue("mip_pool_soft_limit", 100)
        # HiGHS's own time limit is wall-clock (given slack below, so that a loaded machine
        # does not change the result); the budget is CPU time, enforced by interrupting the
        # branch and bound from its callback (it keeps its incumbent).
        with contextlib.suppress(AttributeError, TypeError):
            h.setCallback(self._interrupt, None)
            h.startCallback(highspy.cb.HighsCallbackType.kCallbackMipInterrupt)
        starts, index, value = [0], [], []
        for cols, coefs, _, _ in self.rows:
            index += cols
            value += coefs
            starts.append(len(index))
        lp = highspy.HighsLp()
        ncol = len(self.costs)
        lp.num_col_ = ncol
        lp.num_row_ = len(self.rows)
        lp.col_cost_ = np.array(self.costs)
        lp.col_lower_ = np.array(self.lower)
        lp.col_upper_ = np.array(self.upper)
        lp.row_lower_ = np.array([r[2] for r in self.rows])
        lp.row_upper_ = np.array([r[3] if r[3] != _INF else highspy.kHighsInf for r in self.rows])
        lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
        lp.a_matrix_.start_ = np.array(starts, dtype=np.int32)
        lp.a_matrix_.index_ = np.array(index, dtype=np.int32)
        lp.a_matrix_.value_ = np.array(value, dtype=float)
        lp.a_matrix_.num_col_ = ncol
        lp.a_matrix_.num_row_ = len(self.rows)
        h.passModel(lp)
        return h

    def _interrupt(self, kind: int, message: str, out: object, inp: object, data: object) -> None:
        """HiGHS's MIP callback: stop the branch and bound past :attr:`deadline` (CPU time)."""
        if _clock() > self.deadline:
            with contextlib.suppress(AttributeError):  # a HiGHS without the field: no interrupt
                inp.user_interrupt = True  # type: ignore[attr-defined]

    def solve(self, time_limit: float) -> SolveResult:
        import highspy

        start = _clock()
        self.deadline = start + time_limit
        m = self.model
        if not self.costs:
            return SolveResult([0] * len(m.candidates), self.constant, "optimal", 0.0)
        ncol = len(self.costs)
        if self._h is None:
            self._h = self._highs(time_limit)
        else:  # a later round: new prices, the simplex restarts from the last basis
            self._h.changeColsCost(
                ncol, np.arange(ncol, dtype=np.int32), np.array(self.costs, dtype=float)
            )
        h = self._h
        h.setOptionValue("time_limit", 4 * max(1e-6, time_limit) + 1.0)  # wall clock: slack
        if self._integer and self._incumbent is not None:
            # The last round's optimum is feasible (only prices changed): the branch and bound
            # starts with it as its incumbent.
            sol = highspy.HighsSolution()
            sol.col_value = self._incumbent
            sol.value_valid = True
            h.setSolution(sol)
        elif self._integer:
            self._set_start(h)
        # The LP relaxation first: on tree-like functions the local polytope is integral and
        # the simplex answers in a few milliseconds; the MIP (presolve, cuts, branching) only
        # runs when some x is fractional.
        h.run()
        status = h.getModelStatus()
        values = h.getSolution().col_value if status == highspy.HighsModelStatus.kOptimal else []

        def fractional(vals: Sequence[float]) -> bool:
            return any(1e-6 < vals[c] < 1 - 1e-6 for cols in self.x if cols for c in cols)

        to_mip = not self._integer and (not values or fractional(values))
        if to_mip and self.price_all(PRICE_ALL_GROUPS):
            h.changeColsCost(
                ncol, np.arange(ncol, dtype=np.int32), np.array(self.costs, dtype=float)
            )
        elif to_mip:
            # Too many conversions to price them all: price exactly those the fractional
            # relaxation uses, however little, and solve the relaxation again (milliseconds)
            # until it uses only exact prices. The MIP then starts with the prices that matter
            # and needs one or two rounds instead of one per conversion its successive optima
            # try (Triton's tl.sort of a 1x256 f16 row: 6 MIP rounds, 3.5 s, before; 1.3 s now).
            while (
                values
                and _clock() - start < time_limit
                and fractional(values)
                and self._price_used(values)
            ):
                h.changeColsCost(
                    ncol, np.arange(ncol, dtype=np.int32), np.array(self.costs, dtype=float)
                )
                h.run()
                status = h.getModelStatus()
                optimal = status == highspy.HighsModelStatus.kOptimal
                values = h.getSolution().col_value if optimal else []
            to_mip = not values or fractional(values)
        if to_mip:
            self._integer = True
            integer = [c for c in range(ncol) if self.integer[c]]
            h.changeColsIntegrality(
                len(integer),
                np.array(integer, dtype=np.int32),
                np.array([highspy.HighsVarType.kInteger] * len(integer)),
            )
            self._set_start(h)
            # HiGHS counts wall-clock time: give it slack, the budget is checked in CPU time
            left = max(1e-6, time_limit - (_clock() - start))
            h.setOptionValue("time_limit", 4 * left + 1.0)
            # No presolve: on these small models it costs more than it saves, and each round
            # would redo it.
            h.run()
            status = h.getModelStatus()
            values = h.getSolution().col_value
        if self._integer and status == highspy.HighsModelStatus.kOptimal:
            self._incumbent = list(values)
        if status != highspy.HighsModelStatus.kOptimal:
            seconds = _clock() - start
            found = None
            if self._integer and h.getInfo().primal_solution_status == 2:  # feasible
                # Past the time limit the branch and bound still holds its best assignment.
                found = self._choice(h.getSolution().col_value)
            return SolveResult(found, _INF, h.modelStatusToString(status), seconds, proven=False)
        objective = h.getInfo().objective_function_value + self.constant
        choice = self._choice(values)
        return SolveResult(choice, objective, "optimal", _clock() - start)

    def _price_used(self, values: Sequence[float]) -> bool:
        """Price exactly the conversions a (fractional) solution pays for at a lower bound and
        update the objective; whether there was any. Each round prices a few dozen of the
        model's thousands of conversions (the exact price takes milliseconds: the planner)."""
        m = self.model
        used = {
            (vi, hi, t)
            for vi, hi, t, _, (const, cols) in self.priced
            if (const or any(values[c] > 1e-7 for c in cols)) and not m.is_priced(vi, hi, t)
        }
        for key in sorted(used):
            m.price(*key)
        if used:
            self.reprice()
        return bool(used)

    def _choice(self, values: Sequence[float]) -> list[int]:
        """The assignment of a solution's ``x`` columns."""
        choice = []
        for cols in self.x:
            if cols is None:
                choice.append(0)
            else:
                choice.append(max(range(len(cols)), key=lambda i, c=cols: values[c[i]]))
        return choice

    def _set_start(self, h) -> None:  # type: ignore[no-untyped-def]
        """Hand HiGHS :attr:`start` (its ``x`` columns; HiGHS completes the rest) as the first
        incumbent: the branch and bound prunes against it from its first node, and past the
        time limit its best assignment is never worse than it."""
        if self.start is None:
            return
        index, value = [], []
        for cols, c in zip(self.x, self.start, strict=True):
            if cols is not None:
                for i, col in enumerate(cols):
                    index.append(col)
                    value.append(1.0 if i == c else 0.0)
        if index:
            h.setSolution(len(index), np.array(index, dtype=np.int32), np.array(value))


# ---------------------------------------------------------------------------------- reduction
@dataclass
class ModelReduction:
    """What :func:`reduce_model` left of a model, and how to choose the nodes it eliminated.

    ``model``: the nodes ``kept`` (renumbered in that order) with what was folded into their
    access costs and pair tables; ``steps``: per eliminated node, in elimination order, its
    neighbours (none, one or two original nodes) and its cost table over its own candidate and
    theirs (the node takes the cheapest candidate given its neighbours' choice).
    """

    model: LayoutModel
    kept: list[int]
    steps: list[tuple[int, tuple[int, ...], np.ndarray]]
    size: int

    def expand(self, choice: Sequence[int]) -> list[int]:
        """The original model's assignment of the reduced one's ``choice`` (each eliminated
        node, last eliminated first, takes its cheapest candidate given its neighbours').

        >>> m = LayoutModel(80, candidates=[[1, 2], [3, 4]], unary=[[0.0, 0.0], [1.0, 0.0]])
        >>> m.add_pair(0, 1, 0, 1, 5.0)
        >>> m.finalize()
        >>> r = reduce_model(m)
        >>> r.kept, r.expand([])
        ([], [1, 1])
        """
        full = [0] * self.size
        for k, c in zip(self.kept, choice, strict=True):
            full[k] = c
        for n, neighbours, table in reversed(self.steps):
            cut = table[(slice(None), *(full[b] for b in neighbours))]
            full[n] = int(np.argmin(cut))
        return full


def _value_terms(
    model: LayoutModel,
) -> tuple[dict[int, list[SSAValue]], dict[tuple[int, int], list[SSAValue]], set[int]]:
    """Split the conversion terms by the nodes they depend on: a value whose users' demands
    depend on its own node alone (``unary``), on one other node too (``pairwise``, keyed by
    the ordered pair), or on more (their nodes, which no reduction eliminates: a shared
    conversion is a term over all of them)."""
    unary: dict[int, list[SSAValue]] = {}
    pairwise: dict[tuple[int, int], list[SSAValue]] = {}
    hyper: set[int] = set()
    for v, demands in model.demands.items():
        s = model.node_of[v]
        keys = {d.key for d in demands if d.key is not None and d.key != s}
        if not keys:
            unary.setdefault(s, []).append(v)
        elif len(keys) == 1:
            (b,) = keys
            pairwise.setdefault((min(s, b), max(s, b)), []).append(v)
        else:
            hyper |= keys | {s}
    return unary, pairwise, hyper


def _value_table(model: LayoutModel, v: SSAValue, other: int | None) -> np.ndarray:
    """The weighted conversion cost of ``v`` over (its node's candidate, ``other``'s
    candidate), or over its node's alone (``other`` ``None``): every distinct layout its
    users demand, at the price known now (exact where priced, else its lower bound)."""
    m = model
    s = m.node_of[v]
    vi = m.value_id[v]
    demands = m.demands[v]
    na = len(m.cand_ids[s])
    nb = 1 if other is None else len(m.cand_ids[other])
    table = np.zeros((na, nb))
    for i, hi in enumerate(m.cand_ids[s]):
        fixed: set[int] = set()
        for d in demands:
            if d.key is None:
                fixed.add(d.target_ids[0])
            elif d.key == s:
                fixed.add(d.target_ids[i])
        for j in range(nb):
            wanted = set(fixed)
            if other is not None:
                wanted.update(d.target_ids[j] for d in demands if d.key == other)
            wanted.discard(hi)
            wanted.discard(-1)
            table[i, j] = m.weight[v] * sum(m.price(vi, hi, t, exact=False) for t in wanted)
    return table


def reduce_model(model: LayoutModel) -> ModelReduction:
    """Eliminate the nodes whose cost terms link them to at most two other nodes (the PBQP
    reductions R0, RI and RII), exactly: the reduced model's minimum equals ``model``'s under
    the prices known now, and :meth:`ModelReduction.expand` turns its optimum into one of
    ``model``.

    A node ``n`` with access costs ``u`` is eliminated when every term on it is over ``n``
    alone or ``n`` and one other node (not a conversion several nodes' users share):

    * no neighbour (R0): ``min_i u[i]`` joins the constant;
    * one neighbour ``a`` (RI): ``a`` takes ``min_i (u[i] + T[i, j])`` as access cost of its
      candidate ``j``;
    * two neighbours ``a``, ``b`` (RII): the pair ``(a, b)`` takes the table
      ``min_i (u[i] + Ta[i, j] + Tb[i, k])``: the minimum over the eliminated node, for
      each choice of both (the sum of its two tables without the minimum is not the same
      function).

    Eliminating one node can bring its neighbours down to two, so the reductions repeat
    (Triton's ``tl.sort`` of a 4x128 tile: 65 of its 95 nodes, every reduction and
    ``expand_dims`` of the network). Nodes of a shared conversion term stay.

    A chain ``0 - 1 - 2`` where equal neighbours cost 3 and ``b`` costs more than ``a``:

    >>> m = LayoutModel(80, candidates=[["a", "b"]] * 3, unary=[[0, 1.5], [0, 2.0], [0, 1.5]])
    >>> for a, b in ((0, 1), (1, 2)):
    ...     for i in range(2):
    ...         m.add_pair(a, b, i, i, 3.0)
    >>> m.finalize()
    >>> r = reduce_model(m)
    >>> r.kept, r.model.constant, r.expand([])
    ([], 2.0, [0, 1, 0])
    >>> m.evaluate([0, 1, 0])
    2.0
    """
    m = model
    size = len(m.candidates)
    unary_terms, pair_terms, hyper = _value_terms(m)
    static_unary = [np.array(u, dtype=float) for u in m.unary]
    static_pairs: dict[tuple[int, int], np.ndarray] = {
        key: np.array(t, dtype=float) for key, t in m.pairs.items()
    }
    neighbours: list[set[int]] = [set() for _ in range(size)]
    for a, b in itertools.chain(static_pairs, pair_terms):
        neighbours[a].add(b)
        neighbours[b].add(a)
    constant = m.constant
    alive = [True] * size
    steps: list[tuple[int, tuple[int, ...], np.ndarray]] = []

    def edge_table(n: int, a: int) -> np.ndarray:
        """Every term over ``n`` and ``a``, as a table ``[n's candidate, a's candidate]``."""
        key = (min(n, a), max(n, a))
        table = static_pairs.pop(key, None)
        if table is None:
            table = np.zeros((len(m.candidates[key[0]]), len(m.candidates[key[1]])))
        for v in pair_terms.pop(key, []):
            t = _value_table(m, v, a if m.node_of[v] == n else n)
            table = table + (t if m.node_of[v] == key[0] else t.T)
        return table if n == key[0] else table.T

    queue = [n for n in range(size) if n not in hyper and len(neighbours[n]) <= 2]
    while queue:
        n = queue.pop()
        if not alive[n] or len(neighbours[n]) > 2:
            continue
        u = static_unary[n]
        for v in unary_terms.pop(n, []):
            u = u + _value_table(m, v, None)[:, 0]
        around = tuple(sorted(neighbours[n]))
        tables = [edge_table(n, a) for a in around]
        if not around:
            table = u
            constant += float(u.min())
        elif len(around) == 1:
            (a,) = around
            table = u[:, None] + tables[0]
            static_unary[a] = static_unary[a] + table.min(axis=0)
        else:
            a, b = around
            table = u[:, None, None] + tables[0][:, :, None] + tables[1][:, None, :]
            folded = table.min(axis=0)
            key = (a, b)
            static_pairs[key] = static_pairs[key] + folded if key in static_pairs else folded
            neighbours[a].add(b)
            neighbours[b].add(a)
        alive[n] = False
        steps.append((n, around, table))
        for a in around:
            neighbours[a].discard(n)
            if a not in hyper and len(neighbours[a]) <= 2:
                queue.append(a)
        neighbours[n].clear()

    kept = [n for n in range(size) if alive[n]]
    index = {n: k for k, n in enumerate(kept)}
    reduced = LayoutModel(
        m.capability,
        candidates=[m.candidates[n] for n in kept],
        node_values=[m.node_values[n] if n < len(m.node_values) else [] for n in kept],
        pinned=[n < len(m.pinned) and m.pinned[n] for n in kept],
        unary=[static_unary[n].tolist() for n in kept],
        weight=m.weight,
        constant=constant,
        layouts=m.layouts,
        layout_id=m.layout_id,
        cand_ids=[m.cand_ids[n] for n in kept],
        values=m.values,
        value_id=m.value_id,
        _price=m._price,
        _lower=m._lower,
        _remat=m._remat,
        _converts=m._converts,
        _sigs=m._sigs,
        _bounds=m._bounds,
        _fresh=m._fresh,
        _fresh_converts=m._fresh_converts,
        tied=m.tied,
        gather_operands=m.gather_operands,
    )
    for (a, b), table in static_pairs.items():
        reduced.pairs[(index[a], index[b])] = table
    for v, demands in m.demands.items():
        s = m.node_of[v]
        if not alive[s] or any(d.key is not None and not alive[d.key] for d in demands):
            continue  # folded into a table
        reduced.node_of[v] = index[s]
        reduced.demands[v] = [
            Demand(d.value, None if d.key is None else index[d.key], d.targets, d.target_ids)
            for d in demands
        ]
    return ModelReduction(reduced, kept, steps, size)


def solve_model(
    model: LayoutModel, time_limit: float = DEFAULT_BUDGET_S, reduce: bool = False
) -> SolveResult:
    """The exact optimum of ``model`` within ``time_limit`` seconds of CPU time: the ILP of
    the model that :func:`reduce_model` leaves (``reduce``; else of ``model`` itself), its
    eliminated nodes chosen back (see :func:`_solve_lazy` for the lazy prices and the budget).

    The reduction's tables hold the prices known when it is made (exact where priced, else
    lower bounds), so its optimum is a lower bound of the model's; the assignment it expands
    to is priced exactly, and while that is above the bound the reduction is made again with
    what was learnt (each round prices at least one conversion more, as a lazy round does).

    >>> m = LayoutModel(80, candidates=[[1, 2], [3]], unary=[[5.0, 2.0], [0.0]])
    >>> m.finalize()
    >>> r = solve_model(m)
    >>> r.choice, r.objective, r.proven
    ([1, 0], 2.0, True)
    """
    if not reduce or model.options:
        # The reductions know nothing of the loop options' implication rows (``implies``): a
        # model with options is solved whole.
        return _solve_lazy(model, time_limit)
    start = _clock()
    outer = model.deadline
    model.deadline = min(outer, start + time_limit)
    try:
        return _solve_reduced(model, time_limit, start)
    except _BudgetSpent:
        return SolveResult(None, _INF, PRICING_STATUS, _clock() - start, proven=False)
    finally:
        model.deadline = outer


def _solve_reduced(model: LayoutModel, time_limit: float, start: float) -> SolveResult:
    """:func:`solve_model` with ``reduce`` (past the deadline, pricing raises
    :class:`_BudgetSpent` here; the reduced rounds' own pricing is bounded by
    :func:`_solve_lazy`)."""
    staged = model.staged_choice()
    best, best_cost = staged, model.evaluate(staged)
    rounds = 0
    while True:
        left = time_limit - (_clock() - start)
        if left <= 0:
            result = SolveResult(None, _INF, "time limit reached", 0.0, proven=False)
        else:
            reduction = reduce_model(model)
            warm = None if best is staged else [best[n] for n in reduction.kept]
            result = _solve_lazy(reduction.model, left, warm)
            rounds += result.rounds
        seconds = _clock() - start
        if result.choice is None:
            found = None if best is staged else best
            cost = _INF if found is None else best_cost
            return SolveResult(found, cost, result.status, seconds, rounds, proven=False)
        choice = reduction.expand(result.choice)
        exact = model.evaluate(choice)
        if exact < best_cost:
            best, best_cost = choice, exact
        if not result.proven:
            found = None if best is staged else best
            cost = _INF if found is None else best_cost
            return SolveResult(found, cost, result.status, seconds, rounds, proven=False)
        if exact <= result.objective + 1e-6 * max(1.0, abs(exact)):
            return SolveResult(choice, exact, "optimal", seconds, rounds)


def _solve_lazy(
    model: LayoutModel, time_limit: float = DEFAULT_BUDGET_S, warm: Sequence[int] | None = None
) -> SolveResult:
    """The exact optimum of ``model`` within ``time_limit`` seconds of CPU time (its ILP).

    Conversions are priced lazily: the ILP first counts each one not priced yet at its lower
    bound; the conversions its optimum uses are then priced exactly and the ILP is solved again,
    until its optimum uses only exact prices. That optimum is the model's: every other
    assignment costs at least its lower-bound objective, which is not below it.

    Past the time limit the result is not ``proven``: ``choice`` is the cheapest assignment
    priced exactly so far (the staged one, a round's optimum, HiGHS's incumbent), ``None``
    when none beats the staged assignment. ``warm``: an assignment to start from when it is
    cheaper than the staged one (the best one an earlier round found).
    """
    start = _clock()
    outer = model.deadline
    model.deadline = min(outer, start + time_limit)
    staged = model.staged_choice()
    best: list[int] | None = None  # the staged assignment is unpriced until evaluated
    best_cost = _INF
    rounds = 0

    def unproven(status: str) -> SolveResult:
        seconds = _clock() - start
        if best is None or best is staged:
            return SolveResult(None, _INF, status, seconds, rounds, proven=False)
        return SolveResult(best, best_cost, status, seconds, rounds, proven=False)

    try:
        best, best_cost = staged, model.evaluate(staged)  # the warm start is priced exactly
        if warm is not None and (cost := model.evaluate(warm)) < best_cost:
            best, best_cost = list(warm), cost
        ilp = _Ilp(model)
        ilp.build()
        while True:
            rounds += 1
            ilp.reprice()
            left = time_limit - (_clock() - start)
            if left <= 0:
                return unproven("time limit reached")
            ilp.start = best
            result = ilp.solve(left)
            if result.choice is None:
                return unproven(result.status)
            exact = model.evaluate(result.choice)
            if not result.proven:
                if exact < best_cost:
                    best, best_cost = result.choice, exact
                return unproven(result.status)
            if exact <= result.objective + 1e-6 * max(1.0, abs(exact)):
                result.objective = exact
                result.rounds = rounds
                result.seconds = _clock() - start
                return result
            if exact < best_cost:
                best, best_cost = result.choice, exact
    except _BudgetSpent:
        # Past the deadline a conversion was about to be planned (before or between ILP
        # rounds, or while pricing a round's optimum): the best assignment priced exactly so
        # far stands, the one being priced is dropped.
        return unproven(PRICING_STATUS)
    finally:
        model.deadline = outer


def solve_function(
    analysis: LayoutAnalysis,
    func: FuncOp,
    staged: dict[SSAValue, Attribute],
    staged_sinks: dict[Operation, Attribute],
    budget: float = DEFAULT_BUDGET_S,
    tie_above: int | None = TIE_ABOVE_VALUES,
) -> tuple[LayoutModel | None, SolveResult]:
    """Build and solve ``func``'s model within ``budget`` seconds (``tie_above``: see
    :func:`build_model`)."""
    start = _clock()
    model = build_model(analysis, func, staged, staged_sinks, tie_above)
    model.deadline = start + budget
    try:
        # The staged assignment is priced under the budget too (its conversions are planned
        # exactly): past the deadline the function keeps it unpriced.
        staged = model.staged_choice()
        staged_cost = model.evaluate(staged)
    except _BudgetSpent:
        model.deadline = _INF
        return model, SolveResult(None, _INF, PRICING_STATUS, _clock() - start, proven=False)
    if staged_cost <= model.lower_bound() + 1e-9 * max(1.0, staged_cost):
        # Nothing can beat it (no conversion, every access at its cheapest): no ILP needed.
        model.deadline = _INF
        return model, SolveResult(staged, staged_cost, "optimal", _clock() - start)
    left = budget - (_clock() - start)
    if left <= 0:
        model.deadline = _INF
        return model, SolveResult(None, _INF, "time limit reached", _clock() - start, proven=False)
    try:
        result = solve_model(model, left)
    finally:
        model.deadline = _INF
    result.seconds = _clock() - start
    return model, result


# ---------------------------------------------------------------------------------- oracle
def brute_force_minimum(model: LayoutModel, cap: int = ENUMERATION_CAP) -> float | None:
    """The true minimum of ``model`` by enumerating every assignment of each independent
    component (nodes linked by a cost term), or ``None`` when a component has more than
    ``cap`` assignments.

    Prices are lazy as in :func:`solve_model`, but checked independently: a component's
    enumeration is repeated, pricing exactly the conversions of its best assignment, until that
    assignment's exact cost is its enumerated cost.

    >>> m = LayoutModel(80, candidates=[[1, 2], [3]], unary=[[5.0, 2.0], [0.0]])
    >>> m.finalize()
    >>> brute_force_minimum(m)
    2.0
    """
    n = len(model.candidates)
    free = [i for i in range(n) if len(model.candidates[i]) > 1]
    parent = list(range(n))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    def link(nodes: Sequence[int]) -> None:
        multi = [x for x in nodes if len(model.candidates[x]) > 1]
        for other in multi[1:]:
            parent[find(other)] = find(multi[0])

    terms: list[tuple[list[int], object]] = []
    for (a, b), table in model.pairs.items():
        link((a, b))
        terms.append(([a, b], ("pair", (a, b, table))))
    for v, demands in model.demands.items():
        nodes = [model.node_of[v]] + [d.key for d in demands if d.key is not None]
        nodes += model.recomputed_of.get(v, [])
        link(nodes)
        terms.append((list(dict.fromkeys(nodes)), ("value", v)))
    for a, b in model.implies:
        link((a, b))
        terms.append(([a, b], ("implies", (a, b))))
    components: dict[int, list[int]] = {}
    for i in free:
        components.setdefault(find(i), []).append(i)
    for members in components.values():
        if math.prod(len(model.candidates[i]) for i in members) > cap:
            return None
    total = model.constant
    base = [0] * n
    for i in range(n):
        if len(model.candidates[i]) == 1:
            total += model.unary[i][0]
    by_component: dict[int | None, list[object]] = {}
    for nodes, term in terms:
        multi = [x for x in nodes if len(model.candidates[x]) > 1]
        by_component.setdefault(find(multi[0]) if multi else None, []).append(term)
    for term in by_component.get(None, []):
        total += _term_value(model, term, base, True)
    for root, members in components.items():
        comp_terms = by_component.get(root, [])
        while True:
            best, best_combo = _INF, None
            choice = list(base)
            for combo in itertools.product(*(range(len(model.candidates[i])) for i in members)):
                for i, c in zip(members, combo, strict=True):
                    choice[i] = c
                cost = sum(model.unary[i][choice[i]] for i in members)
                for term in comp_terms:
                    cost += _term_value(model, term, choice, False)
                    if cost >= best:
                        break
                if cost < best:
                    best, best_combo = cost, combo
            assert best_combo is not None
            for i, c in zip(members, best_combo, strict=True):
                choice[i] = c
            exact = sum(model.unary[i][choice[i]] for i in members) + sum(
                _term_value(model, term, choice, True) for term in comp_terms
            )
            if exact <= best + 1e-6 * max(1.0, abs(exact)):
                total += exact
                break
    return total


def exact_minimum(model: LayoutModel, cap: int = ENUMERATION_CAP) -> float | None:
    """The true minimum of ``model`` by exhaustive enumeration organised as variable
    elimination (bucket elimination): nodes are eliminated one at a time, each by enumerating
    every combination of its candidates with those of its neighbours and keeping the cheapest
    per neighbour combination. ``None`` when a combination table would exceed ``cap`` entries.

    Independent of the ILP (no linearization, no solver); prices are lazy as in
    :func:`brute_force_minimum`.

    >>> m = LayoutModel(80, candidates=[[1, 2], [3, 4]], unary=[[5.0, 2.0], [0.0, 1.0]])
    >>> m.pairs[(0, 1)] = np.array([[0.0, 0.0], [4.0, 0.0]])
    >>> m.finalize()
    >>> exact_minimum(m)
    3.0
    """
    n = len(model.candidates)
    size = [len(c) for c in model.candidates]
    while True:
        factors: list[tuple[tuple[int, ...], np.ndarray]] = []
        constant = model.constant
        base = [0] * n
        for i in range(n):
            if size[i] > 1:
                factors.append(((i,), np.array(model.unary[i], dtype=float)))
            else:
                constant += model.unary[i][0]
        for (a, b), table in model.pairs.items():
            if size[a] > 1 and size[b] > 1:
                factors.append(((a, b), np.asarray(table, dtype=float)))
            elif size[a] > 1:
                factors.append(((a,), np.asarray(table[:, 0], dtype=float)))
            elif size[b] > 1:
                factors.append(((b,), np.asarray(table[0, :], dtype=float)))
            else:
                constant += float(table[0, 0])
        for a, b in model.implies:  # an option on without what it reads: impossible
            factors.append(((a, b), np.array([[0.0, 0.0], [_INF, 0.0]])))
        for v, demands in model.demands.items():
            nodes = [model.node_of[v]] + [d.key for d in demands if d.key is not None]
            nodes += model.recomputed_of.get(v, [])
            axes = tuple(dict.fromkeys(x for x in nodes if size[x] > 1))
            if math.prod(size[x] for x in axes) > cap:
                return None
            table = np.zeros([size[x] for x in axes])
            choice = list(base)
            for combo in itertools.product(*(range(size[x]) for x in axes)):
                for x, c in zip(axes, combo, strict=True):
                    choice[x] = c
                table[combo] = model.value_cost(v, choice, exact=False)
            if axes:
                factors.append((axes, table))
            else:
                constant += float(table)
        best, choice = _eliminate(factors, size, cap)
        if best is None:
            return None
        exact = model.evaluate(choice)
        if exact <= best + constant + 1e-6 * max(1.0, abs(exact)):
            return exact


def _scope(factors: list[tuple[tuple[int, ...], np.ndarray]], x: int) -> set[int]:
    return {y for axes, _ in factors if x in axes for y in axes}


def _eliminate(
    factors: list[tuple[tuple[int, ...], np.ndarray]], size: list[int], cap: int
) -> tuple[float | None, list[int]]:
    """Minimize a sum of table factors by variable elimination; the minimum and an argmin."""
    remaining = {x for axes, _ in factors for x in axes}
    eliminated: list[tuple[int, tuple[int, ...], np.ndarray]] = []
    constant = 0.0
    while remaining:
        scopes = {x: _scope(factors, x) for x in remaining}
        var = min(remaining, key=lambda x: math.prod(size[y] for y in scopes[x]))
        union = tuple(sorted(scopes[var]))
        if math.prod(size[y] for y in union) > cap:
            return None, []
        combined = np.zeros([size[y] for y in union])
        keep = []
        for axes, table in factors:
            if var not in axes:
                keep.append((axes, table))
                continue
            order = sorted(range(len(axes)), key=lambda k: union.index(axes[k]))
            t = np.transpose(table, order)
            shape = [size[y] if y in axes else 1 for y in union]
            combined = combined + t.reshape(shape)
        pos = union.index(var)
        rest = tuple(y for y in union if y != var)
        eliminated.append((var, rest, np.argmin(combined, axis=pos)))
        reduced = np.min(combined, axis=pos)
        if rest:
            keep.append((rest, reduced))
        else:
            constant += float(reduced)
        factors = keep
        remaining.discard(var)
    choice = [0] * len(size)
    for var, rest, argmin in reversed(eliminated):
        choice[var] = int(argmin[tuple(choice[y] for y in rest)]) if rest else int(argmin)
    return constant, choice


def _term_value(model: LayoutModel, term: object, choice: Sequence[int], exact: bool) -> float:
    kind, payload = term  # type: ignore[misc]
    if kind == "implies":
        a, b = payload
        return _INF if choice[a] == 1 and choice[b] != 1 else 0.0
    if kind == "pair":
        a, b, table = payload
        return float(table[choice[a], choice[b]])
    return model.value_cost(payload, choice, exact)


def assignment_of(model: LayoutModel, choice: Sequence[int]) -> tuple[dict, dict]:
    """(value -> layout, store -> layout) of a choice."""
    layouts: dict[SSAValue, Attribute] = {}
    for n, values in enumerate(model.node_values):
        for v in values:
            layouts[v] = model.candidates[n][choice[n]]
    sinks = {op: model.candidates[n][choice[n]] for op, n in model.store_node.items()}
    return layouts, sinks


def staged_cost(model: LayoutModel) -> float:
    """The model's cost of the staged analysis' assignment."""
    return model.evaluate(model.staged_choice())
