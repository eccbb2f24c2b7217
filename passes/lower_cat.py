"""Lowering ``tl.cat`` to SIMT code: the plain concatenation along dim 0 (llc's reference
semantics of Triton's reorderable cat), through the operands' own registers.

Both operands have one layout ``L`` (the op's type constraint). Their registers side by side --
``lhs``'s ``R`` then ``rhs``'s ``R`` -- hold the result's elements in the layout ``L'`` that is
``L`` plus one register bit, the top one, whose basis is ``n`` (the operands' dim 0) on dim 0:
register ``r + R b`` of thread ``t`` holds ``L(r, t) + (b n, 0, ...)``. The result is ``L'``
converted to the result's layout like any ``convert_layout``
(:func:`llc.lowering.plan_conversion`): a register renaming when the result's layout keeps
every element in its thread (Triton's choice of result layout makes it so), else shuffles or
shared memory.

>>> from llc.layouts import BlockedLayout
>>> ll = BlockedLayout([1], [32], [4], [0]).to_linear_layout([256])
>>> stacked_layout(ll, 256).bases[0]
('register', [[128], [256]])
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects import gpu
from xdsl.dialects.builtin import TensorType

from llc.dialects import tl
from llc.errors import LayoutError
from llc.linear_layout import LinearLayout
from llc.lowering import SimtProgram
from llc.passes.simt_lowering import FunctionLowering, tensor_layout

__all__ = ["lower_cat", "stacked_layout"]


def stacked_layout(ll: Any, n: int) -> LinearLayout:
    """``ll`` with one more register bit, the top one, stepping ``n`` along its first out-dim
    (which doubles): the layout of ``lhs``'s registers followed by ``rhs``'s."""
    bases = []
    for name, vectors in ll.bases:
        if name == "register":
            vectors = [*vectors, [n] + [0] * (len(ll.out_dims) - 1)]
        bases.append((name, vectors))
    if not any(name == "register" for name, _ in bases):
        bases.insert(0, ("register", [[n] + [0] * (len(ll.out_dims) - 1)]))
    outs = [(d, 2 * s if i == 0 else s) for i, (d, s) in enumerate(ll.out_dims)]
    return LinearLayout(bases, outs)


def lower_cat(lowering: FunctionLowering, op: tl.CatOp) -> None:
    """``tl.cat`` (see the module docstring)."""
    from llc.lowering import plan_conversion

    lhs, rhs = lowering.laid[op.lhs], lowering.laid[op.rhs]
    rt = op.result.type
    assert isinstance(rt, TensorType)
    n = int(tl.shape_of(op.lhs.type)[0])
    if n & (n - 1) or any(s & (s - 1) for s in tl.shape_of(rt)):
        raise LayoutError("cat needs power-of-two shapes")
    if lhs.ll != rhs.ll:
        raise LayoutError("the operands of cat are in different layouts")
    regs = lhs.coords.shape[1]
    both = lowering.shuffle(lhs.value, rhs.value, list(range(2 * regs)))
    dst_ll = tensor_layout(rt)
    src_ll = stacked_layout(lhs.ll, n)
    strategies: list[str] = []

    def build(bitwidth: int) -> SimtProgram:
        plan = plan_conversion(
            src_ll, dst_ll, bitwidth, compute_capability=lowering.compute_capability
        )
        strategies.append(plan.strategy)
        return plan.program

    out = lowering.run_program(build, both)
    if strategies[-1] == "shared":  # as in convert_layout: prune_barriers drops it if unneeded
        lowering.emit(gpu.BarrierOp())
    lowering.set_tensor(op.result, out, dst_ll)
