"""Carrying a loop value a second time, in another layout: an option of the layout solver.

A loop-carried value (an ``scf.for`` iteration argument, or an ``scf.while`` value that the
``before`` region forwards unchanged to the ``do`` region) whose chain is needed in two
layouts inside the loop either pays a conversion on every iteration, or is carried twice: a
second loop argument in the other layout, its init value provided once before the loop, its
yielded value recomputed in that layout on every iteration, and the chain that reads it
recomputed in that layout too. Triton does this greedily, one argument at a time
(``rematerialize_loop_arg``); here it is a set of 0/1 options of the whole-function model
(:func:`add_loop_copies`), which the ILP and the oracle weigh with everything else, so a chain
that reads two loop arguments (``%a + %b``) gets both arguments carried twice and the sum
recomputed once.

**Options** (binary nodes of :class:`~llc.passes.layout_solver.LayoutModel`, candidate 1 = on):

* ``copy(slot, L)``: the loop value carried a second time in ``L``. Costs the provision of the
  init value in ``L`` (conversion, or its recomputation when cheaper) at the weight of the block
  around the loop, a pair term with the init value's node. Requires its yielded value in ``L``:
  the argument itself (nothing), another copy, or a recompute option.
* ``op(op, L)``: an op of a loop body (rematerializable rule: elementwise, index arithmetic,
  broadcasts) recomputed in ``L``: ``remat_cost`` at the block's weight (times the trip counts),
  plus the recomputation of operands made from scalars alone. Requires each tensor operand in
  the layout the op's rule asks of it: a copy of a loop value, another recompute option of the
  same loop, or a scalar slice (priced in). Anything else (a load, a value defined above the
  loop) makes the option impossible.

A value's users demanding layout ``L`` are served for free when the option that recomputes it
in ``L`` is on (:attr:`~llc.passes.layout_solver.LayoutModel.recomputed`); an option requires
the options of its operands (:attr:`~llc.passes.layout_solver.LayoutModel.implies`). Shared
sub-chains are one option, so their cost is paid once. Only options whose requirements close
with at least one copy are kept (a chain from scalars alone is priced by
:func:`~llc.passes.layout_solver.rematerialization` already), at most
:data:`MAX_LOOP_OPTIONS` per function.

:func:`realise_loop_copies` then rewrites exactly the options the solver turned on: no
separate decision.

>>> MAX_LOOP_OPTIONS
32
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import scf
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from llc.dialects.layout_rules import ANY, is_tensor, rule_for, tensor_operands, tensor_results
from llc.dialects.tl import ConvertLayoutOp, encoding_of, shape_of
from llc.passes.layout_assignment import element_bits, insert_conversion, retype
from llc.passes.layout_cost import remat_cost

__all__ = [
    "MAX_LOOP_OPTIONS",
    "LoopCopyPlan",
    "Slot",
    "active_loop_copies",
    "add_loop_copies",
    "loop_slots",
    "realise_loop_copies",
]

MAX_LOOP_OPTIONS = 32
"""The most options (copies and recomputed ops) one function's model gets."""


@dataclass(frozen=True, eq=False)
class Slot:
    """A loop value that can be carried a second time.

    ``block``: the region block whose argument ``arg_index`` carries it (the ``scf.for`` body,
    the ``scf.while`` ``do`` region); ``init_index``: the loop operand that starts it;
    ``yield_index``: the operand of ``block``'s terminator that carries it on;
    ``result_index``: the loop result it ends in; ``before_index``: for ``scf.while``, the
    ``before`` argument that ``scf.condition`` forwards (``None`` for ``scf.for``)."""

    loop: Operation
    block: Block
    arg_index: int
    init_index: int
    yield_index: int
    result_index: int
    before_index: int | None = None

    @property
    def arg(self) -> BlockArgument:
        return self.block.args[self.arg_index]

    @property
    def result(self) -> SSAValue:
        return self.loop.results[self.result_index]

    @property
    def init(self) -> SSAValue:
        return self.loop.operands[self.init_index]

    @property
    def yielded(self) -> SSAValue:
        last = self.block.last_op
        assert last is not None
        return last.operands[self.yield_index]


def loop_slots(ops: Sequence[Operation]) -> list[Slot]:
    """The loop values of ``ops`` that can be carried twice: every tensor iteration argument of
    an ``scf.for``, and every tensor ``do`` argument of an ``scf.while`` that ``scf.condition``
    forwards from a ``before`` argument it alone reads.

    >>> loop_slots([])
    []
    """
    slots: list[Slot] = []
    for op in ops:
        if op.name == "scf.for":
            body = op.regions[0].block
            for k in range(len(op.results)):
                if is_tensor(body.args[k + 1]) and body.last_op is not None:
                    slots.append(Slot(op, body, k + 1, 3 + k, k, k))
        elif op.name == "scf.while":
            before, after = op.regions[0].block, op.regions[1].block
            condition, yield_op = before.last_op, after.last_op
            if condition is None or yield_op is None:
                continue
            for j, arg in enumerate(after.args):
                if j + 1 >= len(condition.operands) or not is_tensor(arg):
                    continue
                fwd = condition.operands[1 + j]
                if (
                    isinstance(fwd, BlockArgument)
                    and fwd.owner is before
                    and [u.operation for u in fwd.uses] == [condition]
                    and fwd.index < len(yield_op.operands)
                ):
                    i = fwd.index
                    slots.append(Slot(op, after, j, i, i, j, before_index=i))
    return slots


def _recomputable(op: Operation) -> bool:
    rule = rule_for(op)
    return (
        rule is not None
        and rule.rematerializable
        and rule.kind in ("free", "transparent", "structural")
        and not op.regions
        and len(tensor_results(op)) == 1
        and len(op.results) == 1
        and bool(tensor_operands(op))
    )


def _backward(op: Operation, enc: Attribute) -> list | None:
    from llc.passes.layout_solver import backward_layouts as backward

    return backward(rule_for(op), op, [enc] * len(tensor_results(op)))


def _strip(v: SSAValue) -> SSAValue:
    """``v`` with the layout conversions the rewrite inserted looked through."""
    while isinstance(v.owner, ConvertLayoutOp):
        v = v.owner.src
    return v


Item = tuple
"""``("copy", slot, layout)`` or ``("op", op, layout)``."""


class _Finder:
    """Which options exist for a function (the requirement graph, before it is pruned)."""

    def __init__(self, ops: Sequence[Operation], gather_operands: dict) -> None:
        self.slots = loop_slots(ops)
        self.slot_of_arg = {s.arg: s for s in self.slots}
        self.slot_of_result = {s.result: s for s in self.slots}
        self.loop_blocks = {s.block for s in self.slots}
        self.gathers = gather_operands
        self.requires: dict[Item, list[Item]] = {}
        self.cost: dict[Item, float] = {}
        self.bad: set[Item] = set()
        self.memo: dict = {}

    def item_for(self, v: SSAValue, enc: Attribute) -> Item | None:
        slot = self.slot_of_arg.get(v) or self.slot_of_result.get(v)
        if slot is not None:
            return ("copy", slot, enc)
        owner = v.owner
        if (
            isinstance(owner, Operation)
            and owner.parent_block() in self.loop_blocks
            and owner not in self.gathers
            and _recomputable(owner)
        ):
            return ("op", owner, enc)
        return None

    def explore(self, root: Item) -> None:
        from llc.passes.layout_solver import block_weight, rematerialization

        work = [root]
        while work:
            item = work.pop()
            if item in self.requires or item in self.bad:
                continue
            if len(self.requires) + len(self.bad) >= 4 * MAX_LOOP_OPTIONS:
                self.bad.add(item)
                continue
            reqs: list[Item] = []
            cost = 0.0
            if item[0] == "copy":
                slot, enc = item[1], item[2]
                yielded = slot.yielded
                if yielded is not slot.arg:
                    sub = self.item_for(yielded, enc)
                    if sub is None or (sub[0] == "copy" and sub[1].loop is not slot.loop):
                        self.bad.add(item)
                        continue
                    reqs.append(sub)
            else:
                op, enc = item[1], item[2]
                required = _backward(op, enc)
                if required is None:
                    self.bad.add(item)
                    continue
                weight = block_weight(op.parent_block())
                cost = remat_cost(
                    op.name, shape_of(op.results[0].type), element_bits(op.results[0].type)
                )
                ok = True
                for i, req in zip(tensor_operands(op), required, strict=False):
                    if req is ANY or req is None:
                        continue
                    operand = op.operands[i]
                    sub = self.item_for(operand, req)
                    if sub is not None and not (
                        sub[0] == "copy" and sub[1].loop is not op.parent_block().parent_op()
                    ):
                        reqs.append(sub)
                        continue
                    scalar = rematerialization(operand, req, self.memo, self.gathers)
                    if scalar == float("inf"):
                        ok = False
                        break
                    cost += scalar
                if not ok:
                    self.bad.add(item)
                    continue
                cost *= weight
            self.requires[item] = reqs
            self.cost[item] = cost
            work += reqs

    def prune(self) -> None:
        """Drop the options whose requirements cannot be met, then those whose closure holds
        no copy (recomputed from scalars alone: priced by the model already)."""
        changed = True
        while changed:
            changed = False
            for item, reqs in list(self.requires.items()):
                if any(r in self.bad or r not in self.requires for r in reqs):
                    del self.requires[item]
                    self.bad.add(item)
                    changed = True
        copies = {i for i in self.requires if i[0] == "copy"}
        reaches = set(copies)
        changed = True
        while changed:
            changed = False
            for item, reqs in self.requires.items():
                if item not in reaches and any(r in reaches for r in reqs):
                    reaches.add(item)
                    changed = True
        keep = set(reaches)  # and what they require (a sub-chain from scalars alone)
        work = list(reaches)
        while work:
            for r in self.requires[work.pop()]:
                if r not in keep:
                    keep.add(r)
                    work.append(r)
        for item in list(self.requires):
            if item not in keep:
                del self.requires[item]


@dataclass
class LoopCopyPlan:
    """The options the solver turned on in one function: the copies and recomputed ops, and
    the (value position, layout) demands they serve. A position is ``("result", op, index)``
    or ``("arg", block, index)``: the rewrite retypes values, so they are found again there."""

    copies: list[tuple[Slot, Attribute]] = field(default_factory=list)
    ops: list[tuple[Operation, Attribute]] = field(default_factory=list)
    served: list[tuple[tuple, Attribute, Item]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.copies or self.ops)


def _position(v: SSAValue) -> tuple:
    if isinstance(v, BlockArgument):
        return ("arg", v.owner, v.index)
    return ("result", v.owner, v.index)  # type: ignore[attr-defined]


def _value_at(position: tuple) -> SSAValue:
    kind, owner, index = position
    return owner.args[index] if kind == "arg" else owner.results[index]


def add_loop_copies(model: object, ops: Sequence[Operation]) -> int:
    """Add the loop options of a function (``ops``) to its finalized ``model`` (see the module
    docstring); how many option nodes were added.

    >>> from llc.passes.layout_solver import LayoutModel
    >>> add_loop_copies(LayoutModel(80), [])
    0
    """
    from llc.passes.layout_solver import CHANGE_COST

    m = model
    finder = _Finder(ops, m.gather_operands)  # type: ignore[attr-defined]
    if not finder.slots:
        return 0
    served: list[tuple[SSAValue, Attribute, Item]] = []
    for v, demands in m.demands.items():  # type: ignore[attr-defined]
        targets = {t for d in demands for t in d.targets if t is not None}
        for t in targets:
            item = finder.item_for(v, t)
            if item is None:
                continue
            finder.explore(item)
            served.append((v, t, item))
    finder.prune()
    served = [s for s in served if s[2] in finder.requires]
    order = _within_limit(served, finder, m)
    node: dict[Item, int] = {}
    for item in order:
        n = len(m.candidates)  # type: ignore[attr-defined]
        node[item] = n
        enc = item[2]
        m.candidates.append([None, enc])  # type: ignore[attr-defined]
        m.cand_ids.append([-1, m.intern(enc)])  # type: ignore[attr-defined]
        m.node_values.append([])  # type: ignore[attr-defined]
        m.pinned.append(False)  # type: ignore[attr-defined]
        m.unary.append([0.0, finder.cost[item] + CHANGE_COST])  # type: ignore[attr-defined]
        m.options[n] = item  # type: ignore[attr-defined]
    for item in order:
        for r in finder.requires[item]:
            if r != item:
                m.implies.append((node[item], node[r]))  # type: ignore[attr-defined]
        if item[0] == "copy":
            _demand_init(m, item[1].init, node[item], item[2])
    for v, t, item in served:
        if item not in node:
            continue
        m.recomputed[(v, m.intern(t))] = node[item]  # type: ignore[attr-defined]
        m.recomputed_of.setdefault(v, []).append(node[item])  # type: ignore[attr-defined]
    return len(order)


def _demand_init(model: object, init: SSAValue, option: int, enc: Attribute) -> None:
    """A copy on needs its init value in ``enc``: a demand keyed on the copy's node, priced as
    every demand is (lazily, a conversion or a recomputation, shared with the init's other
    users asking for ``enc``, at the weight where the init is defined)."""
    from llc.passes.layout_solver import Demand

    m = model
    if init not in m.node_of:  # type: ignore[attr-defined]
        return
    if init not in m.value_id:  # type: ignore[attr-defined]
        m.value_id[init] = len(m.values)  # type: ignore[attr-defined]
        m.values.append(init)  # type: ignore[attr-defined]
    demand = Demand(init, option, [None, enc], [-1, m.intern(enc)])  # type: ignore[attr-defined]
    m.demands.setdefault(init, []).append(demand)  # type: ignore[attr-defined]


def _closure(item: Item, finder: _Finder) -> list[Item]:
    """``item`` and every option it requires, ``item`` first."""
    out: list[Item] = []
    seen: set[Item] = set()
    work = [item]
    while work:
        x = work.pop(0)
        if x not in seen:
            seen.add(x)
            out.append(x)
            work += finder.requires[x]
    return out


def _within_limit(served: list, finder: _Finder, model: object) -> list[Item]:
    """The options to add: the closures of the served demands, at most
    :data:`MAX_LOOP_OPTIONS` in all. A demand its value cannot meet by taking the layout
    itself (a layout outside its node's candidates: a dot operand) comes first, then the
    longer chains (a chain's last op serves the demand that matters; its intermediate values
    are demanded too, in their consumers' candidate layouts), each whole or not at all."""
    m = model
    closures = {item: _closure(item, finder) for _, _, item in served}

    def rank(s: tuple) -> tuple[bool, int]:
        v, t, item = s
        own = m.candidates[m.node_of[v]]  # type: ignore[attr-defined]
        return (t in own, -len(closures[item]))

    order: list[Item] = []
    taken: set[Item] = set()
    for _, _, item in sorted(served, key=rank):
        extra = [x for x in closures[item] if x not in taken]
        if len(taken) + len(extra) <= MAX_LOOP_OPTIONS:
            order += extra
            taken.update(extra)
    return order


def active_loop_copies(model: object, choice: Sequence[int]) -> LoopCopyPlan:
    """The options ``choice`` turns on, by position (for :func:`realise_loop_copies`).

    >>> from llc.passes.layout_solver import LayoutModel
    >>> bool(active_loop_copies(LayoutModel(80), []))
    False
    """
    plan = LoopCopyPlan()
    m = model
    for n, item in m.options.items():  # type: ignore[attr-defined]
        if choice[n] != 1:
            continue
        if item[0] == "copy":
            plan.copies.append((item[1], item[2]))
        else:
            plan.ops.append((item[1], item[2]))
    for (v, t), n in m.recomputed.items():  # type: ignore[attr-defined]
        if choice[n] == 1:
            plan.served.append((_position(v), m.layouts[t], m.options[n]))  # type: ignore[attr-defined]
    return plan


def realise_loop_copies(plan: LoopCopyPlan) -> int:
    """Rewrite what ``plan`` says after the layouts are materialized: each copy becomes a new
    loop argument (its init converted before the loop, recomputed there when cheaper by the
    later ``rematerialize_from_scalars``), each recomputed op a clone in its layout, and the
    conversions the options serve are replaced. Returns the conversions replaced.

    >>> realise_loop_copies(LoopCopyPlan())
    0
    """
    if not plan:
        return 0
    values: dict[Item, SSAValue] = {}
    slot_items: dict[tuple, Item] = {}
    # 1. the new loop arguments
    for slot, enc in plan.copies:
        t = slot.arg.type
        assert isinstance(t, TensorType)
        new_type = TensorType(t.element_type, t.get_shape(), enc)
        new = slot.block.insert_arg(new_type, len(slot.block.args))
        if slot.before_index is not None:
            before = slot.loop.regions[0].block
            before.insert_arg(new_type, len(before.args))
        values[("copy", slot, enc)] = new
        slot_items[("arg", slot.block, slot.arg_index, enc)] = ("copy", slot, enc)
        slot_items[("result", slot.loop, slot.result_index, enc)] = ("copy", slot, enc)
    op_items = {(op, enc) for op, enc in plan.ops}

    def lookup(v: SSAValue, enc: Attribute) -> SSAValue:
        v = _strip(v)
        if encoding_of(v.type) == enc:
            return v
        if isinstance(v, BlockArgument):
            key = slot_items.get(("arg", v.owner, v.index, enc))
            if key is not None:
                return values[key]
        elif isinstance(v.owner, Operation):
            if (v.owner, enc) in op_items:
                return values[("op", v.owner, enc)]
            key = slot_items.get(("result", v.owner, v.index, enc))  # type: ignore[attr-defined]
            if key is not None:
                return values[key]
        raise KeyError((v, enc))

    # 2. the recomputed ops, producers first (a chain lives in one block, in program order)
    pending = list(plan.ops)
    order = {o: i for i, o in enumerate({op: None for op, _ in pending})}
    blocks = {op.parent_block() for op, _ in pending}
    for block in blocks:
        if block is None:
            continue
        for index, o in enumerate(block.ops):
            order[o] = index
    for op, enc in sorted(pending, key=lambda p: order[p[0]]):
        required = _backward(op, enc)
        assert required is not None
        clone = op.clone()
        Rewriter.insert_op(clone, InsertPoint.after(op))
        for i, req in zip(tensor_operands(op), required, strict=False):
            if req is ANY or req is None:
                continue
            operand = op.operands[i]
            try:
                clone.operands[i] = lookup(operand, req)
            except KeyError:  # a scalar slice: converted here, recomputed by the later remat
                clone.operands[i] = insert_conversion(_strip(operand), req, before=clone)
        r = clone.results[0]
        t = r.type
        assert isinstance(t, TensorType)
        values[("op", op, enc)] = retype(r, TensorType(t.element_type, t.get_shape(), enc))
    # 3. the conversions the options serve (a loop result's wait for the loop's rebuild)
    replaced = 0
    results: list[tuple[tuple, Attribute, Item]] = []
    for position, enc, item in plan.served:
        if position[0] == "result" and position[1].name in ("scf.for", "scf.while"):
            results.append((position, enc, item))
            continue
        replaced += _serve_conversions(_value_at(position), enc, values[item])
    # 4. the loops: yields, inits, results
    by_loop: dict[Operation, list[tuple[Slot, Attribute]]] = {}
    for slot, enc in plan.copies:
        by_loop.setdefault(slot.loop, []).append((slot, enc))
    for loop, copies in by_loop.items():
        yield_op = copies[0][0].block.last_op
        assert yield_op is not None
        yield_op.operands = [
            *yield_op.operands,
            *(lookup(slot.yielded, enc) for slot, enc in copies),
        ]
        inits = []
        for slot, enc in copies:
            init = _strip(slot.init)
            inits.append(init if encoding_of(init.type) == enc else insert_conversion(init, enc))
        served_results = [(_value_at(p), enc, item) for p, enc, item in results if p[1] is loop]
        if loop.name == "scf.for":
            new_loop: Operation = scf.ForOp(
                loop.operands[0],
                loop.operands[1],
                loop.operands[2],
                [*loop.operands[3:], *inits],
                loop.detach_region(0),
            )
        else:
            condition = loop.regions[0].block.last_op
            assert condition is not None
            before = loop.regions[0].block
            first = len(before.args) - len(copies)
            condition.operands = [*condition.operands, *before.args[first:]]
            types = [r.type for r in loop.results] + [
                values[("copy", s, e)].type for s, e in copies
            ]
            new_loop = scf.WhileOp(
                [*loop.operands, *inits], types, loop.detach_region(0), loop.detach_region(0)
            )
        Rewriter.insert_op(new_loop, InsertPoint.before(loop))
        extra = {
            ("copy", s, e): new_loop.results[len(loop.results) + k]
            for k, (s, e) in enumerate(copies)
        }
        for v, enc, item in served_results:
            replaced += _serve_conversions(v, enc, extra[item])
        for old, new in zip(loop.results, new_loop.results, strict=False):
            new.name_hint = old.name_hint
            old.replace_all_uses_with(new)
        Rewriter.erase_op(loop)
    return replaced


def _serve_conversions(value: SSAValue, enc: Attribute, served: SSAValue) -> int:
    """Replace each conversion of ``value`` into ``enc`` by ``served`` (the copy or recompute
    that gives ``value`` in ``enc``); how many were erased."""
    erased = 0
    for use in list(value.uses):
        cvt = use.operation
        if isinstance(cvt, ConvertLayoutOp) and encoding_of(cvt.result.type) == enc:
            cvt.result.replace_all_uses_with(served)
            Rewriter.erase_op(cvt)
            erased += 1
    return erased
