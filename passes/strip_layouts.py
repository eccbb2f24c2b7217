"""``llc-strip-layouts``: remove every layout, giving layout-free (TTIR-like) IR.

Layouts say where values live, never what they are, so a kernel computes the same values with
and without them. This pass produces the input that layout assignment starts from, and lets a
test check that a layout pipeline never changed a value (strip, run both, compare)::

    llc-opt kernel.mlir -p llc-strip-layouts

What it does:

* every ``tensor<..., #layout>`` becomes ``tensor<...>``, wherever the type occurs (op results,
  block arguments, function signatures, types inside attributes such as a ``dense<...>``
  constant's);
* a ``tl.convert_layout`` whose source and result types are then equal disappears (its
  result is replaced by its source), since it changed nothing but the layout;
* every ``!tl.memdesc<..., #shared>`` becomes ``!tl.memdesc<...>``: a shared layout is a
  layout too, and layout assignment picks it again. The ``tl.local_alloc`` / ``local_load`` /
  ``local_store`` ops stay: staging through shared memory is part of the kernel's algorithm
  (Triton's TTIR has no shared memory at all; the closest llc can give is shared memory
  without a layout).

Other ops and attributes are untouched, including the module's ``"tl.num-warps"`` /
``"tl.threads-per-warp"`` (layout assignment needs them) and dead ops (no DCE).

>>> from xdsl.context import Context
>>> from llc.dialects.diagnostics import parse_module
>>> from llc.dialects.tl import TL
>>> from xdsl.dialects.builtin import Builtin
>>> from xdsl.dialects.test import Test
>>> ctx = Context()
>>> for dialect in (Builtin, Test, TL):
...     ctx.load_dialect(dialect)
>>> module = parse_module(ctx, '''
... %x = "test.op"() : () -> tensor<64xf32, #tl.blocked<{sizePerThread = [1],
...     threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>>
... %y = tl.convert_layout %x : tensor<64xf32, #tl.blocked<{sizePerThread = [1],
...     threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>> -> tensor<64xf32,
...     #tl.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>
... "test.op"(%y) : (tensor<64xf32, #tl.blocked<{sizePerThread = [2], threadsPerWarp = [32],
...     warpsPerCTA = [1], order = [0]}>>) -> ()
... ''')
>>> StripLayoutsPass().apply(ctx, module)
>>> print(module)
builtin.module {
  %x = "test.op"() : () -> tensor<64xf32>
  "test.op"(%x) : (tensor<64xf32>) -> ()
}
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, NoneAttr, TensorType
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    TypeConversionPattern,
    attr_type_rewrite_pattern,
    op_type_rewrite_pattern,
)

from llc.dialects.tl import ConvertLayoutOp, MemDescType

__all__ = [
    "RemoveIdentityConvert",
    "StripLayoutsPass",
    "StripMemDescLayout",
    "StripTensorLayout",
]


@dataclass
class StripTensorLayout(TypeConversionPattern):
    """``tensor<S x T, #layout>`` -> ``tensor<S x T>``, in every type of the IR.

    >>> from xdsl.dialects.builtin import f32
    >>> StripTensorLayout().convert_type(TensorType(f32, [4]))  # already layout-free: no change
    """

    recursive: bool = True  # also types nested in function types and attributes

    @attr_type_rewrite_pattern
    def convert_type(self, typ: TensorType) -> Attribute | None:
        if isinstance(typ.encoding, NoneAttr):
            return None
        return TensorType(typ.element_type, typ.get_shape())


@dataclass
class StripMemDescLayout(TypeConversionPattern):
    """``!tl.memdesc<S x T, #shared>`` -> ``!tl.memdesc<S x T>``, in every type of the IR.

    >>> from xdsl.dialects.builtin import f16
    >>> StripMemDescLayout().convert_type(MemDescType(f16, [8]))  # already layout-free
    """

    recursive: bool = True

    @attr_type_rewrite_pattern
    def convert_type(self, typ: MemDescType) -> Attribute | None:
        if isinstance(typ.encoding, NoneAttr):
            return None
        return MemDescType(typ.element_type, typ.get_shape())


class RemoveIdentityConvert(RewritePattern):
    """``%y = tl.convert_layout %x : T -> T`` ==> uses of ``%y`` use ``%x``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConvertLayoutOp, rewriter: PatternRewriter) -> None:
        if op.src.type == op.result.type:
            rewriter.replace(op, [], [op.src])


@dataclass(frozen=True)
class StripLayoutsPass(ModulePass):
    """Remove every tensor and shared-memory layout, and the conversions that become no-ops.

    See the module documentation for exactly what changes.
    """

    name = "llc-strip-layouts"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = GreedyRewritePatternApplier(
            [StripTensorLayout(), StripMemDescLayout(), RemoveIdentityConvert()],
            dce_enabled=False,  # strip layouts only: dead code is not this pass's business
        )
        PatternRewriteWalker(patterns).rewrite_module(op)
