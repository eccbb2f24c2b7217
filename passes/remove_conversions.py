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
from llc.passes.layout_assignment import (
    element_bits,
    insert_conversion,
    retype,
    same_linear_layout,
    shared_layout_for,
    typed_properties,
    walk_ops,
)
from llc.passes.layout_cost import capability_of, conversion_cost, remat_cost

__all__ = [
    "RematPlan",
    "backward_slice",
    "erase_dead_ops",
    "fold_conversions",
    "move_out_of_loop",
    "rematerialize_from_scalars",
    "remove_conversions",
    "stage_dot_operands",
]


@dataclass
class RematPlan:
    """A producer slice to recompute in another layout."""

    needed: dict[SSAValue, Attribute] = field(default_factory=dict)
    order: list[Operation] = field(default_factory=list)
    """Slice ops, producers first."""
    leaves: dict[SSAValue, Attribute] = field(default_factory=dict)
    """Values converted at the slice's boundary."""
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
    value: SSAValue, enc: Attribute, root: Operation, max_slice: int = 64
) -> RematPlan | None:
    """The plan that produces ``value`` in ``enc`` (for the conversion ``root``), or ``None``."""
    plan = RematPlan()
    stack: list[tuple[SSAValue, Attribute, bool]] = [(value, enc, False)]
    visiting: set[Operation] = set()
    while stack:
        v, e, expanded = stack.pop()
        owner = v.owner
        if expanded:
            assert isinstance(owner, Operation)
            if owner not in plan.order:
                plan.order.append(owner)
            continue
        if v in plan.needed:
            if plan.needed[v] != e:
                return None  # one value needed in two layouts: not a slice we can rewrite
            continue
        if v in plan.leaves:
            if plan.leaves[v] != e:
                return None
            continue
        if _existing_conversion(v, e, root) is not None:
            plan.leaves[v] = e
            continue
        rule = rule_for(owner) if isinstance(owner, Operation) else None
        operands = tensor_operands(owner) if isinstance(owner, Operation) else []
        required = None
        if (
            rule is not None
            and isinstance(owner, Operation)
            and rule.kind not in ("sink", "source", "anchor")
            and len(tensor_results(owner)) == 1
            and (rule.rematerializable or _may_relayout_load(owner, e))
        ):
            required = rule.backward(owner, [e])
        if required is None or not isinstance(owner, Operation):
            plan.leaves[v] = e
            continue
        if owner in visiting:
            return None
        visiting.add(owner)
        plan.needed[v] = e
        if len(plan.needed) > max_slice:
            return None
        stack.append((v, e, True))
        for i, r in zip(operands, required, strict=False):
            if r is not ANY:
                stack.append((owner.operands[i], r, False))
    # costs
    in_slice = set(plan.order)
    for op in plan.order:
        result = op.results[tensor_results(op)[0]]
        outside = any(u.operation is not root and u.operation not in in_slice for u in result.uses)
        if outside:
            rule = rule_for(op)
            if rule is None or not rule.rematerializable:
                return None  # would duplicate a load
            if _same_linear_layout(encoding_of(result.type), plan.needed[result], result.type):
                # The copy computes the same registers from the same inputs as the original:
                # identical code, which the backend's CSE merges.
                continue
            plan.cost += remat_cost(op.name, shape_of(result.type), element_bits(result.type))
    for v, e in plan.leaves.items():
        if _existing_conversion(v, e, root) is None:
            plan.new_conversions += 1
            plan.cost += conversion_cost(
                encoding_of(v.type), e, shape_of(v.type), element_bits(v.type), capability_of(root)
            )
    return plan


def _same_linear_layout(a: Attribute | None, b: Attribute, typ: Attribute) -> bool:
    if a is None:
        return False
    return a == b or same_linear_layout(a, b, shape_of(typ))


def _may_relayout_load(op: Operation, enc: Attribute) -> bool:
    """A load may change layout (not be duplicated) only if nothing else reads it, and, when
    it is expensive (a coalesced anchor, Triton's ``canBeRemat``), only to a layout that
    touches no more memory segments (:func:`llc.passes.coalesce.memory_transactions`)."""
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


def apply_plan(plan: RematPlan, value: SSAValue) -> SSAValue:
    """Recompute the slice of ``plan``; returns ``value`` in the plan's layout."""
    mapping: dict[SSAValue, SSAValue] = {}
    for v, e in plan.leaves.items():
        existing = _existing_conversion(v, e)
        if existing is None:
            existing = insert_conversion(v, e)
        mapping[v] = existing
    for op in plan.order:
        r_idx = tensor_results(op)[0]
        result = op.results[r_idx]
        enc = plan.needed[result]
        operands = [mapping.get(o, o) for o in op.operands]
        result_types = list(op.result_types)
        t = result.type
        assert isinstance(t, TensorType)
        result_types[r_idx] = TensorType(t.element_type, t.get_shape(), enc)
        clone = op.create(
            operands=operands,
            result_types=result_types,
            properties=typed_properties(op, result_types[r_idx]),
            attributes=dict(op.attributes),
            regions=[r.clone() for r in op.regions],
        )
        Rewriter.insert_op(clone, InsertPoint.after(op))
        for old, new in zip(op.results, clone.results, strict=True):
            if new.type == old.type:
                continue
            new.name_hint = old.name_hint
        clone.results[r_idx].name_hint = result.name_hint
        mapping[result] = clone.results[r_idx]
    return mapping[value]


def _conversion_cost_of(cvt: ConvertLayoutOp) -> float:
    t = cvt.src.type
    return conversion_cost(
        encoding_of(t),
        encoding_of(cvt.result.type),
        shape_of(t),
        element_bits(t),
        capability_of(cvt),
    )


def remove_conversions(module: ModuleOp, max_slice: int = 64, log: list[str] | None = None) -> int:
    """Rematerialize, hoist and move conversions out of loops until nothing improves.

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
            if move_out_of_loop(op, max_slice, log):
                improved += 1
                changed = True
                continue
            enc = encoding_of(op.result.type)
            assert enc is not None
            plan = backward_slice(op.src, enc, op, max_slice)
            if plan is None or not plan.order:
                continue
            before = _conversion_cost_of(op)
            if not plan.better_than(before):
                if log is not None:
                    log.append(f"keep {_label(op)}: remat {plan.cost:g} >= conversion {before:g}")
                continue
            if log is not None:
                log.append(
                    f"remat {_label(op)}: {len(plan.order)} ops, {len(plan.leaves)} leaves, "
                    f"cost {plan.cost:g} <= {before:g}"
                )
            new = apply_plan(plan, op.src)
            op.result.replace_all_uses_with(new)
            Rewriter.erase_op(op)
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
        new = apply_plan(plan, op.src)
        op.result.replace_all_uses_with(new)
        Rewriter.erase_op(op)
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
    if users - {cvt, yield_op}:
        return False
    new_enc = encoding_of(cvt.result.type)
    old_enc = encoding_of(arg.type)
    yielded = yield_op.operands[k]
    plan = backward_slice(yielded, new_enc, yield_op, max_slice)  # type: ignore[arg-type]
    if plan is None:
        return False
    # The argument itself will be available in the new layout: its leaf costs nothing.
    t = arg.type
    assert isinstance(t, TensorType)
    if arg in plan.leaves:
        plan.cost -= conversion_cost(
            old_enc, new_enc, shape_of(t), element_bits(t), capability_of(cvt)
        )
    if plan.cost >= _conversion_cost_of(cvt):
        return False
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
    result = loop.results[k]
    new_result = retype(result, new_type)
    uses = list(new_result.uses)
    if uses:
        back = insert_conversion(new_result, old_enc)  # type: ignore[arg-type]
        for use in uses:
            use.operation.operands[use.index] = back
    # The yielded value: recompute in the new layout (the old argument is now new_arg).
    if yielded is arg:
        yield_op.operands[k] = new_arg
    else:
        plan2 = backward_slice(yielded, new_enc, yield_op, max_slice)  # type: ignore[arg-type]
        if plan2 is None:
            yield_op.operands[k] = _insert_conversion_before(yielded, new_enc, yield_op)  # type: ignore[arg-type]
        else:
            yield_op.operands[k] = apply_plan(plan2, yielded)
    return True


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
    unused, until none is left: the originals a rematerialization replaced."""
    from xdsl.traits import is_side_effect_free

    changed = True
    while changed:
        changed = False
        for op in reversed(list(walk_ops(module))):
            if op.parent is None or (op.regions and op.name != "tl.reduce"):
                continue
            if any(r.uses for r in op.results) or not op.results:
                continue
            if is_side_effect_free(op) or op.name == "tl.load":
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
        dst = encoding_of(op.result.type)
        layout = getattr(dst, "layout", None)
        if getattr(layout, "kind", None) != "dot_op":
            continue
        src_layout = getattr(encoding_of(op.src.type), "layout", None)
        if src_layout == layout.parent:  # type: ignore[union-attr]
            continue
        if getattr(src_layout, "kind", None) == "nvidia_mma" and src_layout.is_hopper:  # type: ignore[union-attr]
            # A v3 accumulator feeding wgmma's register A (another v3 parent: attention with
            # two tile widths) stays a register conversion, as in Triton's ReduceDataDuplication.
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
