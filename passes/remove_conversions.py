"""Backward rematerialization, hoisting and loop-carried conversions (``llc-remove-conversions``).

For each ``tl.convert_layout`` to layout ``B``, :func:`backward_slice` walks the producers of the
converted value and asks each op's rule (:mod:`llc.dialects.layout_rules`) which operand
layouts would make it produce ``B``. The walk stops at *leaves*: values already in ``B`` (or
whose conversion to ``B`` exists), and values it cannot or may not recompute (block
arguments, dots, loads with other users, side effects), which get a conversion of their own.
The slice is recomputed in ``B`` when::

    sum(remat_cost of slice ops that keep other users) + sum(conversion_cost of leaves)
        < conversion_cost of the conversion

It never duplicates a load, a dot or an op with side effects, and gives up on slices of more
than ``max_slice`` ops. Because a leaf conversion of a narrower or smaller value usually costs
less (``conversion_cost``'s instructions and wavefronts scale with bytes; its barriers follow the
rounds of the round trip), this also *hoists* conversions above widening casts, ``broadcast`` and
``expand_dims``.

Loop-carried values: a conversion of an ``scf.for`` iteration argument inside the loop moves
out of the loop (:func:`move_out_of_loop`) when the loop body can produce the yielded value in
the converted layout at a lower cost than converting on every iteration.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from llc.dialects.layout_rules import ANY, rule_for, tensor_operands, tensor_results
from llc.dialects.tl import (
    ConvertLayoutOp,
    LocalAllocOp,
    LocalLoadOp,
    MemDescType,
    encoding_of,
    hardware_config,
    shape_of,
)
from llc.errors import LayoutError
from llc.passes.layout_assignment import (
    element_bits,
    insert_conversion,
    retype,
    same_linear_layout,
    shared_layout_for,
    typed_properties,
    walk_ops,
)
from llc.passes.layout_cost import (
    capability_of,
    conversion_cost,
    folded_reduction,
    is_staged,
    remat_cost,
)

__all__ = [
    "RematPlan",
    "backward_slice",
    "duplicate_loop_argument",
    "erase_dead_ops",
    "fold_conversions",
    "move_out_of_loop",
    "move_out_of_while",
    "push_into_if",
    "rematerialize_from_scalars",
    "remove_conversions",
    "sink_conversion",
    "stage_dot_operands",
]


@dataclass
class RematPlan:
    """A producer slice to recompute in another layout."""

    needed: dict[SSAValue, Attribute] = field(default_factory=dict)
    order: list[Operation] = field(default_factory=list)
    """Slice ops, producers first."""
    leaves: dict[tuple[SSAValue, Attribute], None] = field(default_factory=dict)
    """(value, layout) pairs converted at the slice's boundary, in order: one value may be a
    leaf in several layouts, and a leaf in one layout while recomputed in another (a value
    the slice needs in two layouts, as a small ``1x2x1`` value broadcast two ways is)."""
    operand_layouts: dict[Operation, dict[int, Attribute]] = field(default_factory=dict)
    """Per slice op, the layout each of its recomputed tensor operands is read in."""
    cost: float = 0.0
    new_conversions: int = 0
    """Leaves that need a conversion not already in the IR."""

    def better_than(self, conversion: float) -> bool:
        """Whether recomputing beats keeping a conversion of cost ``conversion``: cheaper, or
        as cheap as a free conversion (the same linear layout) while adding no conversion op.

        >>> RematPlan(cost=0.0).better_than(0.0), RematPlan(cost=2.0).better_than(0.0)
        (True, False)
        >>> RematPlan(cost=0.0, new_conversions=1).better_than(0.0)
        False
        """
        if self.cost < conversion:
            return True
        return conversion == 0 and self.cost == 0 and self.new_conversions == 0


def _existing_conversion(
    value: SSAValue, enc: Attribute, exclude: Operation | None = None
) -> SSAValue | None:
    if encoding_of(value.type) == enc:
        return value
    owner = value.owner
    if isinstance(owner, ConvertLayoutOp) and encoding_of(owner.src.type) == enc:
        return owner.src
    for use in value.uses:
        user = use.operation
        if user is exclude:
            continue
        if (
            isinstance(user, ConvertLayoutOp)
            and encoding_of(user.result.type) == enc
            and _dominates_all(user, value)
        ):
            return user.result
    return None


def _dominates_all(cvt: Operation, value: SSAValue) -> bool:
    """Whether ``cvt`` serves every use of ``value``: it sits right after the definition (as
    llc inserts conversions), or at the start of the block of a block argument, behind other
    conversions only."""
    owner = value.owner
    if isinstance(owner, Block):
        if cvt.parent_block() is not owner:
            return False
        prev = cvt.prev_op
        while prev is not None:  # only conversions may precede it
            if not isinstance(prev, ConvertLayoutOp):
                return False
            prev = prev.prev_op
        return True
    prev = cvt.prev_op
    while isinstance(prev, ConvertLayoutOp) and prev is not owner:
        prev = prev.prev_op
    return prev is owner


def backward_slice(
    value: SSAValue,
    enc: Attribute,
    root: Operation,
    max_slice: int = 64,
    also_roots: frozenset[Operation] = frozenset(),
) -> RematPlan | None:
    """The plan that produces ``value`` in ``enc`` (for the conversion ``root``), or ``None``.

    ``also_roots``: other users that will read the recomputed value (the other yields of an
    ``scf.if`` when the conversion moves into it), so their uses do not count as outside ones.

    A load the slice may read in the new layout is also tried as a leaf (its value converted
    after it, Triton's conversion hoisted to the load): relaying a load out converts its
    pointers and may cost accesses, converting the loaded value may be cheaper. The cheaper
    plan wins; at equal cost, the one with fewer new conversions.
    """
    plan = _slice(value, enc, root, max_slice, also_roots, True)
    if plan is None or not any(op.name == "tl.load" for op in plan.order):
        return plan
    stopped = _slice(value, enc, root, max_slice, also_roots, False)
    if stopped is not None and (stopped.cost, stopped.new_conversions) < (
        plan.cost,
        plan.new_conversions,
    ):
        return stopped
    return plan


def _slice(
    value: SSAValue,
    enc: Attribute,
    root: Operation,
    max_slice: int,
    also_roots: frozenset[Operation],
    enter_loads: bool,
) -> RematPlan | None:
    """:func:`backward_slice`'s walk; ``enter_loads``: whether a load may be relaid out."""
    plan = RematPlan()
    # (value, layout, expanded, consumer): consumer is the slice op that reads the value.
    stack: list[tuple[SSAValue, Attribute, bool, Operation | None]] = [(value, enc, False, None)]
    visiting: set[Operation] = set()
    while stack:
        v, e, expanded, consumer = stack.pop()
        owner = v.owner
        if expanded:
            assert isinstance(owner, Operation)
            if owner not in plan.order:
                plan.order.append(owner)
            continue
        if (v in plan.needed and plan.needed[v] == e) or (v, e) in plan.leaves:
            continue
        if v in plan.needed or any(leaf is v for leaf, _ in plan.leaves):
            # One value needed in two layouts (Triton's rematerialization maps each (value,
            # layout) pair on its own): the first is recomputed, any other is converted from
            # the original, which stays. Converting a small value (before its broadcasts)
            # there is usually the cheapest point of the slice.
            plan.leaves[(v, _view_layout(consumer, v, e))] = None
            continue
        if _existing_conversion(v, e, root) is not None:
            plan.leaves[(v, e)] = None
            continue
        if _may_relayout_if(owner, v, visiting | {root}):
            # The scf.if is relaid out in place (not copied): each branch yields the value in
            # the new layout, recomputed there or converted at its own leaves.
            assert isinstance(owner, Operation)
            if owner in visiting:
                return None
            visiting.add(owner)
            plan.needed[v] = e
            stack.append((v, e, True, consumer))
            for region in owner.regions:
                y = region.block.last_op
                assert y is not None
                plan.operand_layouts.setdefault(y, {})[v.index] = e  # type: ignore[attr-defined]
                stack.append((y.operands[v.index], e, False, y))  # type: ignore[attr-defined]
            continue
        rule = rule_for(owner) if isinstance(owner, Operation) else None
        operands = tensor_operands(owner) if isinstance(owner, Operation) else []
        required = None
        encs: list[Attribute] = []
        if (
            rule is not None
            and isinstance(owner, Operation)
            and rule.kind not in ("sink", "source", "anchor", "memory")
            and (
                rule.rematerializable
                or (enter_loads and _may_relayout_load(owner, e))
                or _may_move(owner, e, visiting | {root})
            )
        ):
            encs = _result_layouts(owner, v, e, plan)
            required = rule.backward(owner, encs)
        if required is None or not isinstance(owner, Operation):
            # A view (reshape, join, ...) reads a value whose layout is already the one it
            # needs, written differently: it takes it as it is, nothing to convert.
            plan.leaves[(v, _view_layout(consumer, v, e))] = None
            continue
        if owner in visiting:
            return None
        visiting.add(owner)
        for r, r_enc in zip(tensor_results(owner), encs, strict=True):
            if r_enc != encoding_of(owner.results[r].type) or owner.results[r] is v:
                plan.needed[owner.results[r]] = r_enc
        if len(plan.needed) > max_slice:
            return None
        stack.append((v, e, True, consumer))
        for i, r in zip(operands, required, strict=False):
            if r is not ANY:
                plan.operand_layouts.setdefault(owner, {})[i] = r
                stack.append((owner.operands[i], r, False, owner))
    # costs
    in_slice = set(plan.order)
    if not _moves_stay_in_slice(plan, root, also_roots):
        return None
    # A value that is also a leaf keeps its original op (the leaf converts it): the copy
    # in the slice is a duplicate, as one with users outside the slice is.
    kept = {v for v, _ in plan.leaves if v in plan.needed}
    for op in plan.order:
        if op.name == "tl.load":  # a load read in another layout: its access cost changes
            plan.cost += _access_delta(op, plan.needed[op.results[0]])
        elif op.name == "tl.reduce":  # so does a reduction's: shuffles, or adds in registers
            copied = any(
                r in kept
                or any(
                    u.operation is not root
                    and u.operation not in in_slice
                    and u.operation not in also_roots
                    for u in r.uses
                )
                for r in op.results
            )
            plan.cost += _reduction_delta(op, plan.operand_layouts.get(op, {}), copied)
        for r in tensor_results(op):
            result = op.results[r]
            if result not in plan.needed:
                continue
            outside = result in kept or any(
                u.operation is not root
                and u.operation not in in_slice
                and u.operation not in also_roots
                for u in result.uses
            )
            if not outside:
                continue
            rule = rule_for(op)
            if rule is None or not rule.rematerializable:
                return None  # would duplicate a load
            if _same_linear_layout(encoding_of(result.type), plan.needed[result], result.type):
                # The copy computes the same registers from the same inputs as the original:
                # identical code, which the backend's CSE merges.
                continue
            plan.cost += remat_cost(op.name, shape_of(result.type), element_bits(result.type))
            break
    for v, e in plan.leaves:
        if _existing_conversion(v, e, root) is None:
            plan.new_conversions += 1
            plan.cost += conversion_cost(
                encoding_of(v.type), e, shape_of(v.type), element_bits(v.type), capability_of(root)
            )
    return plan


_VIEWS = ("tl.reshape", "tl.join", "tl.split", "tl.trans", "tl.fp4_to_fp")
"""Ops whose verifiers compare layouts as linear layouts (or not at all), so an operand may be
given in any attribute with the right linear layout."""


def _may_relayout_if(owner: object, v: SSAValue, readers: set[Operation]) -> bool:
    """Whether the ``scf.if`` producing ``v`` may yield it in another layout in place: only
    slice ops (``readers``) read it, and both branches yield it.

    >>> _may_relayout_if(None, None, set())  # type: ignore[arg-type]
    False
    """
    if not isinstance(owner, Operation) or owner.name != "scf.if":
        return False
    if len(owner.regions) != 2 or any(not r.blocks for r in owner.regions):
        return False
    return bool(v.uses) and all(u.operation in readers for u in v.uses)


def _moves_stay_in_slice(
    plan: RematPlan, root: Operation, also_roots: frozenset[Operation]
) -> bool:
    """Whether every slice op that reads a relaid-out ``scf.if`` (directly or through other
    slice ops) is replaced, not copied: a copy keeps its original, which would read the if's
    result in its new layout. Returns ``True`` when no ``scf.if`` is relaid out."""
    in_slice = set(plan.order)
    kept = {v for v, _ in plan.leaves}  # an original that a leaf's conversion keeps alive
    frontier = [op for op in plan.order if op.name == "scf.if"]
    seen: set[Operation] = set()
    while frontier:
        op = frontier.pop()
        for result in op.results:
            if op.name != "scf.if" and result in kept:
                return False
            for use in result.uses:
                user = use.operation
                if user is root or user in also_roots:
                    continue
                if user not in in_slice:
                    return False  # read outside the slice: the original stays
                if user not in seen:
                    seen.add(user)
                    frontier.append(user)
    return True


def _view_layout(consumer: Operation | None, v: SSAValue, e: Attribute) -> Attribute:
    """The layout a leaf ``v`` is read in by ``consumer`` that asks for ``e``: its own when
    ``consumer`` is a view that takes it as it is (:func:`_view_takes`), else ``e``."""
    return encoding_of(v.type) if _view_takes(consumer, v, e) else e  # type: ignore[return-value]


def _view_takes(consumer: Operation | None, v: SSAValue, e: Attribute) -> bool:
    return (
        consumer is not None
        and consumer.name in _VIEWS
        and _same_linear_layout(encoding_of(v.type), e, v.type)
    )


def _result_layouts(
    owner: Operation, v: SSAValue, e: Attribute, plan: RematPlan
) -> list[Attribute]:
    """The layouts of ``owner``'s tensor results when ``v`` must be in ``e``: the other results
    keep theirs unless nothing reads them (then they follow, e.g. a reduce's unused results),
    the slice already needs them in some layout, or every reader is a slice op that asked for
    them in one layout already (the two results of an ``elementwise_inline_asm`` that a
    ``join`` reads)."""
    encs: list[Attribute] = []
    for r in tensor_results(owner):
        result = owner.results[r]
        asked = {plan.operand_layouts.get(u.operation, {}).get(u.index, None) for u in result.uses}
        if result is v or not result.uses:
            encs.append(e)
        elif result in plan.needed:
            encs.append(plan.needed[result])
        elif len(asked) == 1 and None not in asked:
            encs.append(asked.pop())  # type: ignore[arg-type]
        else:
            encs.append(encoding_of(result.type))  # type: ignore[arg-type]
    return encs


def _same_linear_layout(a: Attribute | None, b: Attribute, typ: Attribute) -> bool:
    if a is None:
        return False
    return a == b or same_linear_layout(a, b, shape_of(typ))


def _may_relayout_load(op: Operation, enc: Attribute) -> bool:
    """A load may change layout (not be duplicated) only if nothing else reads it, and, when
    it is expensive (a coalesced anchor, Triton's ``canBeRemat``), only to a layout that
    touches no more memory segments (:func:`llc.passes.coalesce.memory_transactions`); what the
    new layout costs to access is charged to the plan (:func:`_access_delta`)."""
    uses = [u for r in op.results for u in r.uses]
    if len(uses) != 1 or op.name != "tl.load":
        return False
    hardware = hardware_config(op) or (4, 32)
    ptr = op.operands[0]
    shape = shape_of(ptr.type)
    elements = 1
    for s in shape:
        elements *= s
    if elements < hardware[0] * hardware[1]:
        return True
    from llc.passes.axis_info import AxisAnalysis
    from llc.passes.coalesce import memory_transactions

    info = AxisAnalysis().info(ptr)
    contiguous = max(range(len(shape)), key=lambda d: (info.contiguity[d], d))
    element_bytes = max(1, element_bits(op.results[0].type) // 8)
    current = encoding_of(op.results[0].type)
    try:
        return memory_transactions(enc, shape, contiguous, element_bytes) <= memory_transactions(
            current, shape, contiguous, element_bytes
        )
    except (ValueError, AttributeError):
        return False


def _may_move(op: Operation, enc: Attribute, readers: set[Operation]) -> bool:
    """An elementwise op that is never copied (inline assembly, an external call: its cost is
    unknown) may still *move* to another layout when only ``readers`` (the slice's ops and its
    root) read its results, all of them: the original dies, nothing is computed twice (as Triton
    rematerializes ``elementwise_inline_asm`` between a load and a dot operand). With
    ``packed_element`` the layout must give each thread a multiple of that many elements.

    >>> _may_move.__name__
    '_may_move'
    """
    rule = rule_for(op)
    if rule is None or rule.kind != "transparent" or op.name == "tl.load":
        return False  # a load moves by its own rule (_may_relayout_load)
    if not all(u.operation in readers for r in op.results for u in r.uses):
        return False
    packed = op.properties.get("packed_element")
    if packed is not None and packed.value.data > 1:  # type: ignore[attr-defined]
        try:
            ll = enc.to_linear_layout(list(shape_of(op.results[0].type)))  # type: ignore[attr-defined]
        except (LayoutError, AttributeError):
            return False
        return ll.get_in_dim_size("register") % packed.value.data == 0  # type: ignore[attr-defined]
    return True


def _access_delta(op: Operation, enc: Attribute) -> float:
    """What reading ``op`` (a ``tl.load``) in ``enc`` costs more than in its current layout
    (:func:`llc.passes.layout_cost.access_cost`: vector width and sectors, as
    ``--layout-report`` and the layout solver charge a load); never negative.

    >>> _access_delta.__name__
    '_access_delta'
    """
    from llc.passes.axis_info import AxisAnalysis
    from llc.passes.layout_cost import access_cost

    ptr = op.operands[0]
    current = encoding_of(op.results[0].type)
    if current is None or current == enc:
        return 0.0
    info = AxisAnalysis().info(ptr)
    shape, bits = shape_of(ptr.type), element_bits(op.results[0].type)
    try:
        new = access_cost(enc, shape, bits, info.contiguity, info.divisibility).total
        old = access_cost(current, shape, bits, info.contiguity, info.divisibility).total
    except (ValueError, AttributeError):
        return float("inf")
    return max(0.0, new - old)


def _reduction_delta(op: Operation, layouts: dict[int, Attribute], copied: bool = False) -> float:
    """What ``op`` (a ``tl.reduce``) costs more with its tensor operands in ``layouts`` (by
    operand index; the others as they are) than as it is, under the figure's reduction price
    (:func:`llc.cost.reduction_cost`, as ``--layout-report`` and the solver charge it); never
    negative; ``copied``: the original stays too, so the copy pays its whole price. A slice
    that relays a reduction out pays for it as it pays for a load's access.

    >>> _reduction_delta.__name__
    '_reduction_delta'
    """
    from llc.cost import reduction_cost

    axis = op.axis.value.data  # type: ignore[attr-defined]
    old = new = 0.0
    for i in tensor_operands(op):
        v = op.operands[i]
        current = encoding_of(v.type)
        want = layouts.get(i, current)
        try:
            old += reduction_cost(current, shape_of(v.type), axis, element_bits(v.type))
            new += reduction_cost(want, shape_of(v.type), axis, element_bits(v.type))
        except (LayoutError, ValueError, AttributeError):
            return float("inf")
    operands = [op.operands[i] for i in tensor_operands(op)]
    if folded_reduction(op, [encoding_of(v.type) for v in operands]):
        old = 0.0
    if folded_reduction(
        op, [layouts.get(i, encoding_of(op.operands[i].type)) for i in tensor_operands(op)]
    ):
        new = 0.0
    return new if copied else max(0.0, new - old)


def apply_plan(plan: RematPlan, value: SSAValue) -> SSAValue:
    """Recompute the slice of ``plan``; returns ``value`` in the plan's layout."""
    # Each value by layout: a value may be recomputed in one layout and converted to others.
    mapping: dict[SSAValue, list[tuple[Attribute, SSAValue]]] = {}

    def lookup(o: SSAValue, want: Attribute | None) -> SSAValue:
        found = mapping.get(o, [])
        for enc, new in found:
            if enc == want:
                return new
        for enc, new in found:  # a view reading the value as it is (_view_takes)
            if want is None or _same_linear_layout(enc, want, o.type):
                return new
        return o

    for v, e in plan.leaves:
        existing = _existing_conversion(v, e)
        if existing is None:
            existing = insert_conversion(v, e)
        mapping.setdefault(v, []).append((e, existing))
    for op in plan.order:
        if op.name == "scf.if":  # relaid out in place (_may_relayout_if)
            for result in op.results:
                if result in plan.needed:
                    k = result.index
                    for region in op.regions:
                        y = region.block.last_op
                        assert y is not None
                        y.operands[k] = lookup(y.operands[k], plan.needed[result])
                    t = result.type
                    assert isinstance(t, TensorType)
                    new = retype(
                        result, TensorType(t.element_type, t.get_shape(), plan.needed[result])
                    )
                    mapping.setdefault(result, []).insert(0, (plan.needed[result], new))
            continue
        results = [r for r in tensor_results(op) if op.results[r] in plan.needed]
        wanted = plan.operand_layouts.get(op, {})
        operands = [lookup(o, wanted.get(i)) for i, o in enumerate(op.operands)]
        result_types = list(op.result_types)
        for r in results:
            t = op.results[r].type
            assert isinstance(t, TensorType)
            result_types[r] = TensorType(t.element_type, t.get_shape(), plan.needed[op.results[r]])
        clone = op.create(
            operands=operands,
            result_types=result_types,
            properties=typed_properties(op, result_types[results[0]]),
            attributes=dict(op.attributes),
            regions=[r.clone() for r in op.regions],
        )
        Rewriter.insert_op(clone, InsertPoint.after(op))
        for old, new in zip(op.results, clone.results, strict=True):
            new.name_hint = old.name_hint
        for r in results:
            mapping.setdefault(op.results[r], []).insert(
                0, (plan.needed[op.results[r]], clone.results[r])
            )
    return lookup(value, plan.needed.get(value))


def _replace_by_plan(cvt: ConvertLayoutOp, plan: RematPlan) -> None:
    """Replace the conversion ``cvt`` by its source recomputed in the destination layout, as
    ``plan`` (:func:`backward_slice`) says."""
    cvt.result.replace_all_uses_with(apply_plan(plan, cvt.src))
    Rewriter.erase_op(cvt)


def _conversion_cost_of(cvt: ConvertLayoutOp) -> float:
    t = cvt.src.type
    return conversion_cost(
        encoding_of(t),
        encoding_of(cvt.result.type),
        shape_of(t),
        element_bits(t),
        capability_of(cvt),
    )


def remove_conversions(
    module: ModuleOp, max_slice: int = 64, log: list[str] | None = None, duplicate: bool = True
) -> int:
    """Rematerialize, hoist and move conversions out of loops until nothing improves.
    ``duplicate``: also carry loop values a second time (:func:`duplicate_loop_argument`), the
    staged path's greedy choice; the whole-function solver weighs that option itself
    (:mod:`llc.passes.loop_copies`), so after it this is off.

    Returns the number of conversions removed or replaced by cheaper ones.
    """
    improved = 0
    for _ in range(8):
        changed = False
        for op in list(walk_ops(module)):
            if not isinstance(op, ConvertLayoutOp) or op.parent is None:
                continue
            if encoding_of(op.src.type) == encoding_of(op.result.type):
                continue
            if (
                fold_into_sinks(op, log)
                or move_out_of_loop(op, max_slice, log)
                or move_out_of_while(op, max_slice, log)
                or push_into_if(op, max_slice, log)
            ):
                improved += 1
                changed = True
                continue
            enc = encoding_of(op.result.type)
            assert enc is not None
            plan = backward_slice(op.src, enc, op, max_slice)
            before = _conversion_cost_of(op)
            good = plan is not None and bool(plan.order) and plan.better_than(before)
            # Moving the conversion down (Triton's forward propagation) when that is cheaper
            # than recomputing its producers in the target layout.
            if not good and duplicate and duplicate_loop_argument(op, max_slice, log):
                improved += 1
                changed = True
                continue
            if sink_conversion(op, log, plan.cost if good else None):  # type: ignore[union-attr]
                improved += 1
                changed = True
                continue
            if not good:
                if log is not None and plan is not None and plan.order:
                    log.append(f"keep {_label(op)}: remat {plan.cost:g} >= conversion {before:g}")
                continue
            if log is not None:
                log.append(
                    f"remat {_label(op)}: {len(plan.order)} ops, {len(plan.leaves)} leaves, "
                    f"cost {plan.cost:g} <= {before:g}"
                )
            _replace_by_plan(op, plan)
            improved += 1
            changed = True
        fold_conversions(module)
        erase_dead_ops(module)
        if not changed:
            break
    return improved


def rematerialize_from_scalars(
    module: ModuleOp, max_slice: int = 64, log: list[str] | None = None
) -> int:
    """Recompute, instead of converting, every converted value whose producer slice starts
    from scalars alone (ranges, splats, constants, index arithmetic) when that is cheaper: what
    the layout solver priced (:func:`llc.passes.layout_solver.rematerialization`). Returns how
    many conversions went."""
    from llc.passes.layout_solver import rematerialization

    memo: dict = {}
    removed = 0
    for op in list(walk_ops(module)):
        if not isinstance(op, ConvertLayoutOp) or op.parent is None:
            continue
        enc = encoding_of(op.result.type)
        if enc is None or enc == encoding_of(op.src.type):
            continue
        if rematerialization(op.src, enc, memo) == float("inf"):
            continue
        plan = backward_slice(op.src, enc, op, max_slice)
        before = _conversion_cost_of(op)
        if plan is None or not plan.order or not plan.better_than(before):
            continue
        if log is not None:
            log.append(
                f"remat {_label(op)}: {len(plan.order)} ops from scalars, cost {plan.cost:g} "
                f"<= {before:g}"
            )
        _replace_by_plan(op, plan)
        removed += 1
    if removed:
        fold_conversions(module)
        erase_dead_ops(module)
    return removed


def _label(op: Operation) -> str:
    hint = op.results[0].name_hint or (op.operands[0].name_hint and f"{op.operands[0].name_hint}")
    return f"cvt %{hint}" if hint else "cvt"


def move_out_of_loop(cvt: ConvertLayoutOp, max_slice: int, log: list[str] | None) -> bool:
    """Carry an ``scf.for`` iteration argument in the layout its in-loop conversion targets.

    Applies when the argument's only in-loop user besides the yield is ``cvt`` and the yielded
    value can be produced in the new layout (a backward slice with the argument available in
    it) for less than the conversion. The init value is converted once before the loop and
    the loop result once after it.
    """
    arg = cvt.src
    if not isinstance(arg, BlockArgument):
        return False
    block = arg.owner
    loop = block.parent_op() if isinstance(block, Block) else None
    if loop is None or loop.name != "scf.for" or arg.index == 0:
        return False
    k = arg.index - 1
    yield_op = block.last_op
    assert yield_op is not None
    users = {u.operation for u in arg.uses}
    new_enc = encoding_of(cvt.result.type)
    old_enc = encoding_of(arg.type)
    yielded = yield_op.operands[k]
    if not _worth_carrying(cvt, arg, yielded, yield_op, users, max_slice):
        return False
    t = arg.type
    assert isinstance(t, TensorType)
    if log is not None:
        log.append(
            f"loop-carried: iteration argument #{k} of scf.for now carried in the converted layout"
        )
    new_type = TensorType(t.element_type, t.get_shape(), new_enc)
    new_arg = retype(arg, new_type)
    cvt.result.replace_all_uses_with(new_arg)
    Rewriter.erase_op(cvt)
    init = loop.operands[3 + k]
    loop.operands[3 + k] = _insert_conversion_before(init, new_enc, loop)  # type: ignore[arg-type]
    _carry(loop.results[k], new_type, old_enc, yield_op, k, arg, new_arg, max_slice)  # type: ignore[arg-type]
    return True


def _worth_carrying(
    cvt: ConvertLayoutOp,
    arg: SSAValue,
    yielded: SSAValue,
    yield_op: Operation,
    users: set[Operation],
    max_slice: int,
) -> bool:
    """Whether carrying a loop value ``arg`` in ``cvt``'s layout is cheaper than converting it
    each iteration: the yielded value can be recomputed in that layout, the argument's other
    users follow it, and the recomputation costs less than ``cvt`` (the argument itself comes
    in the new layout, so its own leaf is free)."""
    new_enc = encoding_of(cvt.result.type)
    plan = backward_slice(yielded, new_enc, yield_op, max_slice)  # type: ignore[arg-type]
    if plan is None:
        return False
    if not _users_follow_the_argument(users - {cvt, yield_op}, plan, yield_op):
        return False
    t = arg.type
    assert isinstance(t, TensorType)
    if (arg, new_enc) in plan.leaves:
        old_enc = encoding_of(t)
        plan.cost -= conversion_cost(
            old_enc, new_enc, shape_of(t), element_bits(t), capability_of(cvt)
        )
    return plan.cost < _conversion_cost_of(cvt)


def _carry(
    result: SSAValue,
    new_type: TensorType,
    old_enc: Attribute,
    yield_op: Operation,
    index: int,
    arg: SSAValue,
    new_arg: SSAValue,
    max_slice: int,
) -> None:
    """Finish carrying a loop value in ``new_type``'s layout: the loop result takes it (its
    users get a conversion back), and the yielded value (operand ``index`` of ``yield_op``) is
    recomputed in it, or converted where it cannot be; the old-layout chain that read the
    argument is erased once dead."""
    new_enc = new_type.encoding
    new_result = retype(result, new_type)
    uses = list(new_result.uses)
    if uses:
        back = insert_conversion(new_result, old_enc)
        for use in uses:
            use.operation.operands[use.index] = back
    yielded = yield_op.operands[index]
    if yielded is arg or yielded is new_arg:
        yield_op.operands[index] = new_arg
        return
    plan = backward_slice(yielded, new_enc, yield_op, max_slice)
    if plan is None:
        yield_op.operands[index] = _insert_conversion_before(yielded, new_enc, yield_op)
        return
    yield_op.operands[index] = apply_plan(plan, yielded)
    for op in reversed(plan.order):
        if op.parent is not None and not any(r.uses for r in op.results):
            Rewriter.erase_op(op)


def duplicate_loop_argument(
    cvt: ConvertLayoutOp, max_slice: int, log: list[str] | None = None
) -> bool:
    """Carry an ``scf.for`` iteration argument a second time, in ``cvt``'s layout, when the
    value ``cvt`` converts is computed in the loop from that argument.

    Triton's rematerialization of a loop argument. ``cvt`` either sits in the loop body and
    converts a value computed there from an iteration argument ``a`` on every iteration, or
    sits after the loop and converts the loop's result of ``a``. Where ``a``'s chain must keep
    its layout (other readers in the loop, or its result read in it: else carrying ``a`` in the
    new layout alone, :func:`move_out_of_loop`, is cheaper), the loop gets a second argument
    ``a'`` in the new layout (its init built or converted once before the loop), the yielded
    value is recomputed from ``a'`` in that layout, ``cvt`` reads the copy, and the loop's
    results converted to the new layout read the new result. Weighed with block weights
    (:func:`llc.passes.layout_solver.block_weight`): the copied ops on every iteration plus the
    init against the conversions saved (inside the loop: on every iteration).

    >>> from xdsl.dialects.builtin import TensorType, f32
    >>> from xdsl.ir import Block
    >>> from llc.dialects.layout_attrs import BlockedEncodingAttr
    >>> from llc.layouts import BlockedLayout
    >>> enc = BlockedEncodingAttr(BlockedLayout([1], [32], [1], [0]))
    >>> a = Block(arg_types=[TensorType(f32, [32], enc)]).args[0]
    >>> duplicate_loop_argument(ConvertLayoutOp(a, a.type), 8)  # not of a loop
    False
    """
    from llc.passes.layout_solver import block_weight

    new_enc = encoding_of(cvt.result.type)
    src = cvt.src
    owner = src.owner
    after_loop = isinstance(owner, Operation) and owner.name == "scf.for"
    if after_loop:  # the loop's result k
        loop = owner
        block = loop.regions[0].block  # type: ignore[union-attr]
        arg = block.args[src.index + 1]  # type: ignore[attr-defined]
    else:
        block = cvt.parent_block()
        loop = block.parent_op() if block is not None else None
        if block is None or loop is None or loop.name != "scf.for":
            return False
        plan = backward_slice(src, new_enc, cvt, max_slice)  # type: ignore[arg-type]
        if plan is None or not plan.order:
            return False
        args = [v for v, e in plan.leaves if isinstance(v, BlockArgument) and v.owner is block]
        if len(args) != 1 or args[0].index == 0 or len(plan.leaves) != 1:
            return False  # one iteration argument, the slice's only leaf
        arg = args[0]
    k = arg.index - 1
    yield_op = block.last_op
    assert yield_op is not None and new_enc is not None
    yielded = yield_op.operands[k]
    t = arg.type
    assert isinstance(t, TensorType)
    if yielded is arg or encoding_of(t) == new_enc or _existing_conversion(arg, new_enc, cvt):
        return False
    # Price the slices with the new argument standing in for ``arg`` in the new layout (a
    # conversion at the top of the body, which the slices then reuse as a free leaf).
    stand_in = insert_conversion(arg, new_enc)
    keep = False
    try:
        plan = None if after_loop else backward_slice(src, new_enc, cvt, max_slice)
        yplan = None if yielded is src else backward_slice(yielded, new_enc, yield_op, max_slice)
        if (plan is None and not after_loop) or (yplan is None and yielded is not src):
            return False
        plans = [p for p in (plan, yplan) if p is not None]
        if any(v is not arg for p in plans for v, _ in p.leaves):
            return False  # another value converted on every iteration: no better than cvt
        chain = [o for p in plans for o in p.order]
        if not _needed_twice(arg, k, cvt, [*chain, stand_in.owner]):  # type: ignore[list-item]
            return False  # carrying it once in the new layout (move_out_of_loop) is cheaper
        inner, outer = block_weight(block), block_weight(loop.parent_block())
        saved = [
            u.operation
            for u in loop.results[k].uses
            if isinstance(u.operation, ConvertLayoutOp)
            and encoding_of(u.operation.result.type) == new_enc
        ]
        init = loop.operands[3 + k]
        init_cost = _init_cost(init, new_enc, loop, max_slice)
        # Every slice op is a copy: the original chain still feeds ``arg``'s own yield.
        after = inner * sum(
            remat_cost(o.name, shape_of(r.type), element_bits(r.type))
            for o in dict.fromkeys(chain)
            for r in o.results[:1]
            if isinstance(r.type, TensorType)
        )
        after += init_cost * outer
        before = sum(_conversion_cost_of(c) * outer for c in saved)  # type: ignore[arg-type]
        if not after_loop:
            before += _conversion_cost_of(cvt) * inner
        if after >= before:
            if log is not None:
                log.append(f"keep {_label(cvt)}: second loop argument {after:g} >= {before:g}")
            return False
        keep = True
    finally:
        if not keep:
            Rewriter.erase_op(stand_in.owner)  # type: ignore[arg-type]
    if log is not None:
        log.append(
            f"loop argument #{k} of scf.for carried a second time in {_label(cvt)}'s layout: "
            f"{after:g} < {before:g}"
        )
    value = None
    if plan is not None:
        value = apply_plan(plan, src)
        cvt.result.replace_all_uses_with(value)
        Rewriter.erase_op(cvt)
    again = value if yplan is None else apply_plan(yplan, yielded)
    assert again is not None
    new_arg = block.insert_arg(TensorType(t.element_type, t.get_shape(), new_enc), len(block.args))
    stand_in.replace_all_uses_with(new_arg)
    Rewriter.erase_op(stand_in.owner)  # type: ignore[arg-type]
    yield_op.operands = [*yield_op.operands, again]
    inits = [*loop.operands[3:], _insert_conversion_before(init, new_enc, loop)]
    new_loop = scf.ForOp(
        loop.operands[0], loop.operands[1], loop.operands[2], inits, loop.detach_region(0)
    )
    Rewriter.insert_op(new_loop, InsertPoint.before(loop))
    for old, new in zip(loop.results, new_loop.results, strict=False):
        new.name_hint = old.name_hint
        old.replace_all_uses_with(new)
    for c in saved:
        c.result.replace_all_uses_with(new_loop.results[-1])  # type: ignore[attr-defined]
        Rewriter.erase_op(c)
    Rewriter.erase_op(loop)
    return True


def _init_cost(init: SSAValue, enc: Attribute, loop: Operation, max_slice: int) -> float:
    """What a loop's ``init`` value costs in layout ``enc`` before the loop: nothing when it is
    in it, its producers recomputed (a constant: nothing) or a conversion, the cheaper."""
    t = init.type
    assert isinstance(t, TensorType)
    if encoding_of(t) == enc:
        return 0.0
    cost = conversion_cost(encoding_of(t), enc, shape_of(t), element_bits(t), capability_of(loop))
    plan = backward_slice(init, enc, loop, max_slice)
    return cost if plan is None or not plan.order else min(cost, plan.cost)


def _needed_twice(arg: BlockArgument, k: int, cvt: Operation, ops: list[Operation]) -> bool:
    """Whether the loop still needs ``arg``'s chain in its own layout once ``cvt`` reads a copy:
    a value of the chain (``arg``, the ops of the slices ``ops``) has a reader outside the
    chain other than ``cvt`` and its own yield operand ``k``, or the loop result ``k`` a reader
    other than a conversion to ``cvt``'s layout. Otherwise carrying the argument in the new
    layout alone does the job with no copy."""
    chain = set(ops)  # the slices' ops and the stand-in conversion
    loop = arg.owner.parent_op()  # type: ignore[union-attr]
    assert loop is not None
    yield_op = arg.owner.last_op  # type: ignore[union-attr]
    derived: list[SSAValue] = [arg]  # the chain's values computed from ``arg``
    for o in ops:
        if not isinstance(o, ConvertLayoutOp) and any(x in derived for x in o.operands):
            derived += o.results
    for v in derived:
        for use in v.uses:
            user = use.operation
            if user in chain or user is cvt or (user is yield_op and use.index == k):
                continue
            return True
    new_enc = encoding_of(cvt.results[0].type)
    return any(
        not (
            isinstance(u.operation, ConvertLayoutOp)
            and encoding_of(u.operation.result.type) == new_enc
        )
        for u in loop.results[k].uses
    )


def move_out_of_while(cvt: ConvertLayoutOp, max_slice: int, log: list[str] | None) -> bool:
    """Carry a value of an ``scf.while`` in the layout its in-loop conversion targets.

    Applies to an argument of the ``do`` region that the ``before`` region passes through
    unchanged (``scf.condition`` forwards a ``before`` argument whose only user it is): the
    ``before`` argument, the ``do`` argument and the loop result change layout together, the
    init value is converted once before the loop, the yielded value is recomputed in the new
    layout (when that costs less than the conversion on every iteration), and the result is
    converted back once after the loop for users that need the old layout.
    """
    arg = cvt.src
    if not isinstance(arg, BlockArgument) or not isinstance(arg.owner, Block):
        return False
    after = arg.owner
    loop = after.parent_op()
    if loop is None or loop.name != "scf.while" or after is not loop.regions[1].block:
        return False
    before = loop.regions[0].block
    condition, yield_op = before.last_op, after.last_op
    assert condition is not None and yield_op is not None
    j = arg.index
    forwarded = condition.operands[1 + j]
    if not isinstance(forwarded, BlockArgument) or forwarded.owner is not before:
        return False
    if [u.operation for u in forwarded.uses] != [condition]:
        return False
    i = forwarded.index
    new_enc = encoding_of(cvt.result.type)
    old_enc = encoding_of(arg.type)
    yielded = yield_op.operands[i]
    users = {u.operation for u in arg.uses}
    if not _worth_carrying(cvt, arg, yielded, yield_op, users, max_slice):
        return False
    t = arg.type
    assert isinstance(t, TensorType)
    if log is not None:
        log.append(f"loop-carried: value #{j} of scf.while now carried in the converted layout")
    new_type = TensorType(t.element_type, t.get_shape(), new_enc)
    retype(forwarded, new_type)
    new_arg = retype(arg, new_type)
    cvt.result.replace_all_uses_with(new_arg)
    Rewriter.erase_op(cvt)
    loop.operands[i] = _insert_conversion_before(loop.operands[i], new_enc, loop)  # type: ignore[arg-type]
    _carry(loop.results[j], new_type, old_enc, yield_op, i, arg, new_arg, max_slice)  # type: ignore[arg-type]
    return True


def push_into_if(cvt: ConvertLayoutOp, max_slice: int, log: list[str] | None) -> bool:
    """``cvt(scf.if result)`` becomes an ``scf.if`` that yields the converted layout: each
    branch produces its value in that layout (recomputed, or converted in the branch), when
    that costs less than the conversion after the ``if``. Applies when the conversion is the
    result's only user."""
    result = cvt.src
    loop = result.owner
    if not isinstance(loop, Operation) or loop.name != "scf.if":
        return False
    if [u.operation for u in result.uses] != [cvt]:
        return False
    k = result.index  # type: ignore[attr-defined]
    enc = encoding_of(cvt.result.type)
    yields = [r.block.last_op for r in loop.regions if r.blocks and r.block.last_op is not None]
    if len(yields) != 2:
        return False
    roots = frozenset(yields)
    plans: list[RematPlan | None] = []
    cost = 0.0
    capability = capability_of(cvt)
    for y in yields:
        value = y.operands[k]
        plan = backward_slice(value, enc, y, max_slice, roots)  # type: ignore[arg-type]
        if plan is not None and plan.order:
            cost += plan.cost
        else:
            plan = None
            t = value.type
            cost += conversion_cost(encoding_of(t), enc, shape_of(t), element_bits(t), capability)
        plans.append(plan)
    if cost >= _conversion_cost_of(cvt):
        return False
    if log is not None:
        log.append(f"into scf.if: {_label(cvt)} ({cost:g} < {_conversion_cost_of(cvt):g})")
    done: dict[SSAValue, SSAValue] = {}
    for y, plan in zip(yields, plans, strict=True):
        value = y.operands[k]
        if value in done:
            y.operands[k] = done[value]
        elif plan is not None:
            y.operands[k] = done[value] = apply_plan(plan, value)
        else:
            y.operands[k] = _insert_conversion_before(value, enc, y)  # type: ignore[arg-type]
    new_result = retype(result, cvt.result.type)
    cvt.result.replace_all_uses_with(new_result)
    Rewriter.erase_op(cvt)
    return True


def _users_follow_the_argument(
    others: set[Operation], plan: RematPlan, yield_op: Operation
) -> bool:
    """Whether the other in-loop users of an iteration argument can follow it into a new
    layout: ops that only feed the yielded value (the plan recomputes them in the new layout)
    and ops that take any layout (``tl.print``, ``tl.assert``, stores to shared memory: Triton
    lets a loop-carried value in any layout reach them)."""
    in_slice = set(plan.order)
    for op in others:
        rule = rule_for(op)
        if rule is not None and rule.kind == "sink":
            required = rule.backward(op, [])
            if required is not None and all(r is ANY for r in required):
                continue
        if op in in_slice and all(
            u.operation in in_slice or u.operation is yield_op for r in op.results for u in r.uses
        ):
            continue
        return False
    return True


def sink_conversion(
    cvt: ConvertLayoutOp, log: list[str] | None = None, best: float | None = None
) -> bool:
    """Push ``cvt(x : A -> B)`` below its only user when the user can run in ``A`` and
    converting what it produces back to its current layout costs less (Triton's forward
    propagation): a reduction's smaller result, a scalar (nothing to convert), an op whose
    other operands exist in ``A`` already (and, with ``best``, for less than that: the cost of
    the best other way to remove the conversion). Returns whether it moved."""
    uses = list(cvt.result.uses)
    if len(uses) != 1:
        return False
    user, index = uses[0].operation, uses[0].index
    rule = rule_for(user)
    if (
        rule is None
        or rule.kind in ("sink", "source", "anchor", "memory")
        or isinstance(user, ConvertLayoutOp)
        or user.parent_block() is not cvt.parent_block()
    ):
        return False
    src_enc = encoding_of(cvt.src.type)
    if src_enc is None or (user.name == "tl.load" and not _may_relayout_load(user, src_enc)):
        return False  # a load moves only to a layout that reads memory as well
    new_encs = rule.forward(user, index, src_enc)
    if new_encs is None:
        return False
    results = tensor_results(user)
    required = rule.backward(user, list(new_encs)) if results else None
    if not results and user.name == "tl.reduce":
        required = [src_enc for _ in tensor_operands(user)]  # to scalars: one operand layout
    operands: dict[int, SSAValue] = {index: cvt.src}
    rebuilt: set[int] = set()
    extra_cost = 0.0
    capability = capability_of(cvt)
    for pos, i in enumerate(tensor_operands(user)):
        if i == index:
            if (
                required is not None
                and required[pos] not in (ANY, src_enc)
                and not _view_takes(user, cvt.src, required[pos])
                and not (user.name in _VIEWS and len(tensor_operands(user)) == 1)
            ):
                # A one-operand view (split, reshape, trans) runs on whatever layout its
                # forward rule accepted: its result is derived from that operand layout.
                return False
            continue
        want = required[pos] if required is not None else None
        value = user.operands[i]
        if want is None:
            return False
        if want is ANY or encoding_of(value.type) == want:
            continue
        existing = _existing_conversion(value, want)
        if existing is not None:
            operands[i] = existing
            continue
        owner = value.owner
        owner_rule = rule_for(owner) if isinstance(owner, Operation) else None
        if owner_rule is None or owner_rule.kind != "free":
            t = value.type
            extra_cost += conversion_cost(
                encoding_of(t), want, shape_of(t), element_bits(t), capability
            )
        else:
            rebuilt.add(i)  # a constant: the next round builds it in the new layout
        operands[i] = None  # type: ignore[assignment]  # converted below
    # What the move costs: the other operands' conversions, and per result either one
    # conversion back to its current layout or, for uses that are conversions already, the
    # difference between converting from the new layout and from the old one (the chains fold).
    after = extra_cost
    new_backs = 0
    for r, enc in zip(results, new_encs, strict=False):
        res = user.results[r]
        t = res.type
        old_enc = encoding_of(t)
        if enc == old_enc:
            continue
        shape, bits = shape_of(t), element_bits(t)
        back = False
        for u in res.uses:
            target = (
                encoding_of(u.operation.results[0].type)
                if isinstance(u.operation, ConvertLayoutOp)
                else None
            )
            if target is None:
                # A user that takes any layout (a store to shared memory, print) reads the
                # new layout directly: the back conversion folds into it.
                back = back or not _takes_any(u.operation, u.index)
                continue
            after -= conversion_cost(old_enc, target, shape, bits, capability)
            if target != enc:
                after += conversion_cost(enc, target, shape, bits, capability)
        if back:
            after += conversion_cost(enc, old_enc, shape, bits, capability)
            new_backs += 1
    before = _conversion_cost_of(cvt)
    limit = before if best is None else min(best, before)
    # Equal cost still pays when the move inserts no conversion: the op count drops by one
    # (a free register reordering in front of a split or a reshape that can read its source).
    # A free op's (constant's) conversion is no new op: it is rebuilt in place (a tie-break
    # among equal figures towards fewer conversions, as a two-result reduction whose constant
    # operand has to follow the converted one).
    new_ops = sum(1 for i, v in operands.items() if v is None and i not in rebuilt) + new_backs
    if after > limit or (after == limit and (after != before or new_ops > 0)):
        return False
    new_operands = []
    for i, value in enumerate(user.operands):
        if i in operands and operands[i] is not None:
            new_operands.append(operands[i])
        elif i in operands:
            pos = tensor_operands(user).index(i)
            new_operands.append(insert_conversion(value, required[pos], before=user))  # type: ignore[index]
        else:
            new_operands.append(value)
    result_types = list(user.result_types)
    for r, enc in zip(results, new_encs, strict=False):
        t = result_types[r]
        assert isinstance(t, TensorType)
        result_types[r] = TensorType(t.element_type, t.get_shape(), enc)
    clone = user.create(
        operands=new_operands,
        result_types=result_types,
        properties=typed_properties(user, result_types[results[0]])
        if results
        else dict(user.properties),
        attributes=dict(user.attributes),
        regions=[r.clone() for r in user.regions],
    )
    Rewriter.insert_op(clone, InsertPoint.after(user))
    for old, new in zip(user.results, clone.results, strict=True):
        new.name_hint = old.name_hint
        if new.type != old.type and old.uses:
            back = insert_conversion(new, encoding_of(old.type))  # type: ignore[arg-type]
            old.replace_all_uses_with(back)
        else:
            old.replace_all_uses_with(new)
    Rewriter.erase_op(user)
    if not cvt.result.uses:
        Rewriter.erase_op(cvt)
    if log is not None:
        relation = "<" if after < before else "= (one conversion fewer)"
        log.append(f"sink {_label(cvt)} below {user.name}: {after:g} {relation} {before:g}")
    return True


def fold_into_sinks(cvt: ConvertLayoutOp, log: list[str] | None = None) -> bool:
    """Drop ``cvt(x : A -> B)`` when every reader takes any layout (a ``local_alloc`` or
    ``local_store`` writing shared memory, a print) and writing ``x`` in ``A`` costs no more than
    in ``B``: a buffer written from registers and read back by ``local_load`` moves its data
    from the written layout to the loaded one, priced as that conversion (as ``--layout-report``
    prices the pair), so ``A`` is taken where it is no farther from the readers' layouts than
    ``B``. Triton's pass lets such a writer take the layout it is given the same way;
    rebuilding ``x`` in ``B`` instead (a constant costs nothing) would leave the conversion in
    the pair. Returns whether it dropped the conversion.

    >>> fold_into_sinks.__name__
    'fold_into_sinks'
    """
    from llc.passes.layout_solver import block_weight

    uses = list(cvt.result.uses)
    if not uses or any(not _takes_any(u.operation, u.index) for u in uses):
        return False
    src, dst = encoding_of(cvt.src.type), encoding_of(cvt.result.type)
    if src is None or dst is None:
        return False
    t = cvt.src.type
    shape, bits, capability = shape_of(t), element_bits(t), capability_of(cvt)

    def staged(enc: Attribute) -> float:
        total = 0.0
        for u in uses:
            op = u.operation
            buffer = op.results[0] if op.name == "tl.local_alloc" and op.results else None
            if op.name == "tl.local_store" and len(op.operands) > 1:
                buffer = op.operands[1]
            for r in buffer.uses if buffer is not None else []:
                reader = r.operation
                if reader.name == "tl.local_load" and reader.results:
                    loaded = encoding_of(reader.results[0].type)
                    if loaded is not None and shape_of(reader.results[0].type) == shape:
                        total += block_weight(reader.parent_block()) * conversion_cost(
                            enc, loaded, shape, bits, capability
                        )
        return total

    kept, moved = staged(src), staged(dst)
    if kept > moved:
        return False
    cvt.result.replace_all_uses_with(cvt.src)
    Rewriter.erase_op(cvt)
    if log is not None:
        log.append(f"fold {_label(cvt)} into its writers: staged {kept:g} <= {moved:g}")
    return True


def _takes_any(op: Operation, index: int) -> bool:
    """Whether operand ``index`` of ``op`` accepts every layout (its rule answers ANY)."""
    rule = rule_for(op)
    if rule is None or rule.kind != "sink":
        return False
    required = rule.backward(op, [])
    positions = tensor_operands(op)
    return required is not None and index in positions and required[positions.index(index)] is ANY


def _insert_conversion_before(value: SSAValue, enc: Attribute, op: Operation) -> SSAValue:
    if encoding_of(value.type) == enc:
        return value
    return insert_conversion(value, enc, before=op)


def fold_conversions(module: ModuleOp) -> None:
    """Apply ``tl.convert_layout``'s canonicalization patterns (no-op conversions, chains,
    converted constants, splats and ranges; :mod:`llc.dialects.tl_canonicalization`)."""
    from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker

    from llc.dialects.tl import ConvertLayoutCanonicalization

    patterns = ConvertLayoutCanonicalization.get_canonicalization_patterns()
    PatternRewriteWalker(GreedyRewritePatternApplier(list(patterns))).rewrite_module(module)


def erase_dead_ops(module: ModuleOp) -> None:
    """Erase side-effect-free ops (and loads, whose read has no effect) whose results are
    unused, until none is left: the originals a rematerialization replaced; and ``scf.for`` /
    ``scf.if`` ops whose results are unused and whose bodies write nothing (a kernel's dead
    loop, which Triton's pass erases too)."""
    from xdsl.traits import MemoryEffectKind, get_effects, is_side_effect_free

    def harmless(o: Operation) -> bool:
        # Reads and allocations only (loads, a buffer filled and read, arithmetic, yields).
        if o.regions:
            return o.name in ("scf.for", "scf.if", "tl.reduce")  # their ops are walked too
        if o.name in ("scf.yield", "tl.reduce.return", "tl.load"):
            return True
        effects = get_effects(o)
        return effects is not None and all(
            e.kind in (MemoryEffectKind.READ, MemoryEffectKind.ALLOC) for e in effects
        )

    def only_reads(op: Operation) -> bool:
        # A loop or branch none of whose ops writes memory is dead when its results are, as
        # MLIR's RecursiveMemoryEffects make Triton's pass see it.
        return all(harmless(o) for region in op.regions for o in region.walk())

    changed = True
    while changed:
        changed = False
        for op in reversed(list(walk_ops(module))):
            if op.parent is None or any(r.uses for r in op.results):
                continue
            if op.regions and op.name != "tl.reduce":
                dead = op.name in ("scf.for", "scf.if") and only_reads(op)
            else:
                dead = bool(op.results) and (is_side_effect_free(op) or op.name == "tl.load")
            if dead:
                Rewriter.erase_op(op)
                changed = True


def stage_dot_operands(module: ModuleOp) -> int:
    """Route conversions into dot-operand layouts from non-mma layouts through shared memory.

    Triton's ReduceDataDuplication: ``cvt(x : #blocked -> #dot_op)`` becomes ``local_alloc`` +
    ``local_load`` (a swizzled shared layout), so the operand is read from shared memory once
    instead of being shuffled with duplication. Conversions from the dot's own mma parent (the
    chained ``mma -> dot_op`` of attention), or from any mma v3 accumulator, stay register
    conversions. Returns how many were
    staged.
    """
    staged = 0
    for op in list(walk_ops(module)):
        if not isinstance(op, ConvertLayoutOp) or op.parent is None:
            continue
        # The cost model prices exactly these conversions as staged (one predicate for both). A
        # v3 accumulator feeding wgmma's register A (another v3 parent: attention with two tile
        # widths) stays a register conversion, as in Triton's ReduceDataDuplication.
        if not is_staged(encoding_of(op.src.type), encoding_of(op.result.type)):
            continue
        t = op.src.type
        assert isinstance(t, TensorType)
        mem_type = MemDescType(t.element_type, list(t.get_shape()), None)
        mem_type = MemDescType(t.element_type, list(t.get_shape()), shared_layout_for(mem_type))
        alloc = LocalAllocOp(mem_type, op.src)
        load = LocalLoadOp(alloc.result, op.result.type)  # type: ignore[arg-type]
        Rewriter.replace_op(op, [alloc, load], [load.result])
        staged += 1
    return staged
