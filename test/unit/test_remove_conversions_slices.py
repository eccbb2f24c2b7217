"""The backward slice of ``llc-remove-conversions`` on the patterns of Triton's regression file
(issue 18): one value in two layouts, a never-copied op moved with its slice (``packed_element``
respected), a load tried as a leaf, the functions of nested modules."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.context import Context

from llc.dialects.tl import ConvertLayoutOp, encoding_of, shape_of
from llc.dialects.ttgir import parse_triton_module
from llc.passes.layout_assignment import element_bits, functions_of, walk_ops
from llc.passes.layout_cost import conversion_cost, remat_cost
from llc.passes.layout_passes import (
    PropagateLayoutsPass,
    RemoveConversionsPass,
    count_conversions,
)
from llc.passes.remove_conversions import (
    _conversion_cost_of,
    _may_move,
    _slice,
    backward_slice,
)

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "bench" / "cases"
INPUTS = ROOT / "test" / "lit" / "transforms" / "Inputs"

# One 4x1 value broadcast two ways: straight, and transposed; the two 512-element results meet
# in one layout, so the slice of the final conversion needs the 4x1 value in two layouts.
TWO_LAYOUTS = (INPUTS / "rc-two-layouts.ttgir").read_text()


def _conversion(module: object) -> ConvertLayoutOp:
    return next(op for op in walk_ops(module) if isinstance(op, ConvertLayoutOp))  # type: ignore[arg-type]


def test_one_value_in_two_layouts() -> None:
    """The 4x1 value (an argument's expand_dims) is recomputed in one layout and converted to
    the other (the argument is converted for the recomputation): two small conversions, far
    cheaper than converting the 512-element sum, which the rewrite removes."""
    module = parse_triton_module(TWO_LAYOUTS, "two.ttgir")
    cvt = _conversion(module)
    plan = backward_slice(cvt.src, encoding_of(cvt.result.type), cvt)
    assert plan is not None
    both = [v for v, _ in plan.leaves if v in plan.needed]
    assert len(both) == 1 and both[0].owner.name == "tl.expand_dims"  # type: ignore[union-attr]
    assert plan.new_conversions == 2
    assert plan.better_than(_conversion_cost_of(cvt))
    RemoveConversionsPass(solver="staged").apply(Context(), module)
    left = [op for op in walk_ops(module) if isinstance(op, ConvertLayoutOp)]
    assert left and all(shape_of(op.src.type) in ((4,), (4, 1)) for op in left)


INLINE_ASM = (INPUTS / "rc-inline-asm-packs.ttgir").read_text()


def test_inline_asm_moves_only_to_whole_packs() -> None:
    """Inline assembly may move with its slice (nothing else reads it), but with
    ``packed_element = 4`` only to a layout giving each thread a multiple of 4 elements: 8 per
    thread yes, 2 per thread (its current layout at this shape) no."""
    module = parse_triton_module(INLINE_ASM, "asm.ttgir")
    cvt = _conversion(module)
    asm = cvt.src.owner
    wide, narrow = encoding_of(cvt.result.type), encoding_of(cvt.src.type)
    assert _may_move(asm, wide, {cvt})  # type: ignore[arg-type]
    assert not _may_move(asm, narrow, {cvt})  # type: ignore[arg-type]
    assert not _may_move(asm, wide, set())  # type: ignore[arg-type]  # a reader outside


def test_load_tried_as_a_leaf() -> None:
    """A dot operand widened from a load: relaying the load out (its pointers converted) costs
    more than converting the loaded value, and backward_slice returns the cheaper plan."""
    module = parse_triton_module((CASES / "dot_operand_load_leaf.ttgir").read_text(), "c")
    cvt = _conversion(module)
    enc = encoding_of(cvt.result.type)
    entered = _slice(cvt.src, enc, cvt, 64, frozenset(), True)
    stopped = _slice(cvt.src, enc, cvt, 64, frozenset(), False)
    assert entered is not None and stopped is not None
    assert any(op.name == "tl.load" for op in entered.order)
    assert stopped.cost < entered.cost
    chosen = backward_slice(cvt.src, enc, cvt)
    assert chosen is not None and chosen.cost == stopped.cost


def test_nested_module_functions_are_laid_out() -> None:
    """A file of two modules: the second module's function is seen by the layout analysis
    (its signature pinned) and solved; its loop-carried cycle moves as a whole."""
    text = (ROOT / "test" / "lit" / "transforms" / "rc-triton-regressions.ttgir").read_text()
    chunk = next(c for c in text.split("// -----") if "@nested_cycle" in c)
    module = parse_triton_module(chunk, "nested.ttgir")
    assert [f.sym_name.data for f in functions_of(module)] == ["first", "nested_cycle"]
    RemoveConversionsPass().apply(Context(), module)
    module.verify()
    assert count_conversions(module) == 0


def test_a_value_kept_for_its_leaf_is_charged_as_a_copy() -> None:
    """A 4x128 product read straight and transposed: the slice needs it in two layouts, neither
    its own. It is recomputed in one, and the original stays for the other's conversion, so the
    recomputation is a copy: the plan charges its remat cost on top of the leaves' conversions."""
    text = (INPUTS / "rc-kept-copy.ttgir").read_text()
    module = parse_triton_module(text, "kept.ttgir")
    cvt = _conversion(module)
    plan = backward_slice(cvt.src, encoding_of(cvt.result.type), cvt)
    assert plan is not None
    kept = [v for v, _ in plan.leaves if v in plan.needed]
    assert [v.owner.name for v in kept] == ["arith.muli"]  # type: ignore[union-attr]
    leaves = sum(
        conversion_cost(encoding_of(v.type), e, shape_of(v.type), element_bits(v.type), 80)
        for v, e in plan.leaves
    )
    copy = remat_cost("arith.muli", (4, 128), 32)
    assert copy > 0
    assert plan.cost == leaves + copy


def test_the_solver_sees_nested_modules(capsys: pytest.CaptureFixture[str]) -> None:
    """llc-propagate-layouts' solve stage lays out the function of the second module (its
    debug table lists it with its nodes)."""
    text = (ROOT / "test" / "lit" / "transforms" / "rc-triton-regressions.ttgir").read_text()
    chunk = next(c for c in text.split("// -----") if "@nested_cycle" in c)
    module = parse_triton_module(chunk, "nested.ttgir")
    PropagateLayoutsPass(solver="ilp", debug=True).apply(Context(), module)
    solve = capsys.readouterr().err.split("after solve")[1]
    assert "@first:" in solve and "@nested_cycle:" in solve
