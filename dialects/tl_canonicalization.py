"""Canonicalization patterns of ``tl.convert_layout``: the conversion folds.

``tl.convert_layout`` carries these through :class:`llc.dialects.tl.ConvertLayoutCanonicalization`
(an xDSL ``HasCanonicalizationPatternsTrait``), so xDSL's ``canonicalize`` pass (``llc-opt -p
canonicalize``, or the stock ``xdsl-opt`` with llc installed) and llc's own layout passes apply
them alike. A conversion never changes values, so each fold is exact:

* :class:`FoldIdentityConversion`: ``cvt(x : T -> T)`` is ``x``;
* :class:`FoldConversionChain`: ``cvt(cvt(x))`` is one conversion from ``x`` (or ``x`` itself
  when the chain comes back to ``x``'s layout);
* :class:`FoldConvertedConstant`: a converted ``tl.constant`` / ``arith.constant`` (splat or
  dense) is the constant built directly in the target layout;
* :class:`FoldConvertedSplat`: a converted ``tl.splat`` is the splat made in the target layout;
* :class:`FoldConvertedRange`: a converted ``tl.make_range`` is the range made in the target
  layout.

The folds recreate the producer next to the conversion and leave the original producer alone:
it may have other users, and the canonicalizer's dead-code elimination removes it when it has
none (every tl op that is free of side effects is ``Pure``).

>>> [type(p).__name__ for p in CONVERT_LAYOUT_PATTERNS]  # doctest: +NORMALIZE_WHITESPACE
['FoldIdentityConversion', 'FoldConversionChain', 'FoldConvertedConstant',
 'FoldConvertedSplat', 'FoldConvertedRange']
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from llc.dialects import tl

__all__ = [
    "CONVERT_LAYOUT_PATTERNS",
    "FoldConversionChain",
    "FoldConvertedConstant",
    "FoldConvertedRange",
    "FoldConvertedSplat",
    "FoldIdentityConversion",
]


class FoldIdentityConversion(RewritePattern):
    """``%y = tl.convert_layout %x : T -> T`` is ``%x``: nothing moves."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tl.ConvertLayoutOp, rewriter: PatternRewriter, /) -> None:
        if op.src.type == op.result.type:
            rewriter.replace(op, [], [op.src])


class FoldConversionChain(RewritePattern):
    """``cvt(cvt(x : A -> B) : B -> C)`` is ``cvt(x : A -> C)``, and ``x`` itself when ``A == C``.

    The intermediate layout ``B`` adds nothing: the values are the same in every layout. The
    inner conversion stays for its other users (if any).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tl.ConvertLayoutOp, rewriter: PatternRewriter, /) -> None:
        inner = op.src.owner
        if not isinstance(inner, tl.ConvertLayoutOp):
            return
        if inner.src.type == op.result.type:
            rewriter.replace(op, [], [inner.src])
        else:
            rewriter.replace(op, tl.ConvertLayoutOp(inner.src, op.result.type))


class FoldConvertedConstant(RewritePattern):
    """A converted constant is the same constant made in the target layout.

    Covers ``tl.constant`` (splat or dense: its payload is stored without encoding, so only the
    result type changes) and tensor ``arith.constant`` (whose dense payload carries the tensor
    type, so the payload is retyped too).
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tl.ConvertLayoutOp, rewriter: PatternRewriter, /) -> None:
        source = op.src.owner
        target = op.result.type
        if isinstance(source, tl.ConstantOp):
            rewriter.replace(op, tl.ConstantOp(source.value, target))
        elif isinstance(source, arith.ConstantOp) and isinstance(
            value := source.value, DenseIntOrFPElementsAttr
        ):
            retyped = DenseIntOrFPElementsAttr(target, value.data)
            rewriter.replace(op, arith.ConstantOp(retyped, target))


class FoldConvertedSplat(RewritePattern):
    """``cvt(tl.splat %s)`` is ``tl.splat %s`` in the target layout: every element is ``%s``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tl.ConvertLayoutOp, rewriter: PatternRewriter, /) -> None:
        source = op.src.owner
        if isinstance(source, tl.SplatOp):
            rewriter.replace(op, tl.SplatOp(source.src, op.result.type))


class FoldConvertedRange(RewritePattern):
    """``cvt(tl.make_range)`` is the same ``tl.make_range`` in the target layout."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tl.ConvertLayoutOp, rewriter: PatternRewriter, /) -> None:
        source = op.src.owner
        if isinstance(source, tl.MakeRangeOp):
            target = op.result.type
            assert isinstance(target, TensorType)
            start, end = source.start.value.data, source.end.value.data
            rewriter.replace(op, tl.MakeRangeOp(start, end, target))


CONVERT_LAYOUT_PATTERNS: tuple[RewritePattern, ...] = (
    FoldIdentityConversion(),
    FoldConversionChain(),
    FoldConvertedConstant(),
    FoldConvertedSplat(),
    FoldConvertedRange(),
)
"""Every fold of ``tl.convert_layout``, in the order the canonicalizer tries them."""
