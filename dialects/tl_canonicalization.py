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
  layout;
* :class:`FoldConvertedLocalLoad`: a converted ``tl.local_load`` is the load made in the target
  layout (shared memory can be read into any register layout);
* :class:`FoldConvertedReshape`: a converted ``tl.reshape`` that may reorder its elements
  (``allow_reorder``, not ``efficient_layout``) is the reshape made in the target layout;
* :class:`FoldConvertedHistogram`: a converted ``tl.histogram`` is the histogram made in the
  target layout (its bins do not depend on the result layout);
* :class:`FoldConversionIntoLayoutFreeUse`: a conversion whose value goes to shared memory
  (``tl.local_alloc``, ``tl.local_store``), to a TMA store (``tl.descriptor_store``), to
  ``tl.print`` / ``tl.assert`` is skipped: these read every element whatever its layout;
* :class:`FoldNoOpConversionIntoView`: a view (``tl.reshape``, ``tl.trans``, ...) reads the
  source of a conversion between two spellings of one linear layout;
* :class:`FoldNoOpConversionOfBroadcast`: such a conversion of a ``tl.broadcast`` is the
  broadcast made in the target layout.

These are the folds of Triton's ``ConvertLayoutOp`` canonicalizer (TritonGPU ``Ops.cpp``).

The folds recreate the producer next to the conversion and leave the original producer alone:
it may have other users, and the canonicalizer's dead-code elimination removes it when it has
none (every tl op that is free of side effects is ``Pure``).

>>> [type(p).__name__ for p in CONVERT_LAYOUT_PATTERNS]  # doctest: +NORMALIZE_WHITESPACE
['FoldIdentityConversion', 'FoldConversionChain', 'FoldConvertedConstant',
 'FoldConvertedSplat', 'FoldConvertedRange', 'FoldConvertedLocalLoad', 'FoldConvertedReshape',
 'FoldConvertedHistogram', 'FoldConversionIntoLayoutFreeUse', 'FoldNoOpConversionIntoView',
 'FoldNoOpConversionOfBroadcast']
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import VerifyException

from llc.dialects import tl

__all__ = [
    "CONVERT_LAYOUT_PATTERNS",
    "FoldConversionChain",
    "FoldConversionIntoLayoutFreeUse",
    "FoldConvertedConstant",
    "FoldConvertedHistogram",
    "FoldConvertedLocalLoad",
    "FoldConvertedRange",
    "FoldConvertedReshape",
    "FoldConvertedSplat",
    "FoldIdentityConversion",
    "FoldNoOpConversionIntoView",
    "FoldNoOpConversionOfBroadcast",
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


class FoldConvertedLocalLoad(RewritePattern):
    """``cvt(tl.local_load %m)`` is ``tl.local_load %m`` into the target layout.

    The new load is placed where the old one was (a store to ``%m`` may sit between the load
    and the conversion); the old load goes when the conversion was its only user.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tl.ConvertLayoutOp, rewriter: PatternRewriter, /) -> None:
        load = op.src.owner
        if not isinstance(load, tl.LocalLoadOp):
            return
        new = tl.LocalLoadOp(load.src, op.result.type)  # type: ignore[arg-type]
        new.attributes |= load.attributes
        rewriter.insert(new, InsertPoint.before(load))
        rewriter.replace(op, [], [new.result])
        if not load.result.uses:
            rewriter.erase(load)


class FoldConvertedReshape(RewritePattern):
    """``cvt(tl.reshape %x allow_reorder)`` is the reshape made in the target layout (unless the
    reshape is ``efficient_layout``: then its layout was chosen on purpose)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tl.ConvertLayoutOp, rewriter: PatternRewriter, /) -> None:
        reshape = op.src.owner
        if not isinstance(reshape, tl.ReshapeOp):
            return
        flags = reshape.flags
        if "allow_reorder" not in flags or "efficient_layout" in flags:
            return
        new = tl.ReshapeOp(reshape.src, op.result.type, flags)  # type: ignore[arg-type]
        new.attributes |= reshape.attributes
        rewriter.replace(op, new)


class FoldConvertedHistogram(RewritePattern):
    """``cvt(tl.histogram %x)`` is the histogram made in the target layout."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tl.ConvertLayoutOp, rewriter: PatternRewriter, /) -> None:
        hist = op.src.owner
        if not isinstance(hist, tl.HistogramOp):
            return
        new = tl.HistogramOp.create(
            operands=list(hist.operands),
            result_types=[op.result.type],
            properties=dict(hist.properties),
            attributes=dict(hist.attributes),
        )
        rewriter.replace(op, new)


class FoldConversionIntoLayoutFreeUse(RewritePattern):
    """``use(cvt(x))`` is ``use(x)`` when ``use`` reads every element whatever the layout:
    ``tl.local_alloc`` / ``tl.local_store`` (the shared layout decides where values go),
    ``tl.descriptor_store``, ``tl.print``, ``tl.assert``. (Triton also skips one into a gather's
    source; llc keeps it: that layout decides whether the gather stays inside warps.) The
    conversion goes when no other user is left."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tl.ConvertLayoutOp, rewriter: PatternRewriter, /) -> None:
        changed = False
        for use in list(op.result.uses):
            if _takes_any_layout(use.operation, use.index):
                use.operation.operands[use.index] = op.src
                rewriter.notify_op_modified(use.operation)
                changed = True
        if changed and not op.result.uses:
            rewriter.erase(op)


def _takes_any_layout(user: Operation, index: int) -> bool:
    if isinstance(user, tl.LocalAllocOp | tl.LocalStoreOp):
        return index == 0
    if isinstance(user, tl.DescriptorStoreOp):
        return index == len(user.operands) - 1
    # Not a gather's source: its layout decides whether the gather stays inside warps
    # (shuffles) or goes through shared memory.
    return isinstance(user, tl.PrintOp | tl.AssertOp)


class FoldNoOpConversionIntoView(RewritePattern):
    """``view(cvt(x : A -> B))`` is ``view(x)`` when ``A`` and ``B`` are the same linear layout
    (nothing moves) and ``view`` (``tl.reshape``, ``tl.trans``, ``tl.split``, ``tl.fp4_to_fp``,
    ``tl.join`` with both operands so converted, ``tl.broadcast``: two layouts that agree on its
    operand, attention's row statistics in a v3 layout broadcast into another) checks layouts
    as linear layouts only. Exports then show the view reading ``x`` directly, as Triton writes
    it."""

    VIEWS = ("tl.reshape", "tl.trans", "tl.split", "tl.fp4_to_fp", "tl.join", "tl.broadcast")

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tl.ConvertLayoutOp, rewriter: PatternRewriter, /) -> None:
        if not _no_op(op):
            return
        changed = False
        for use in list(op.result.uses):
            view = use.operation
            if view.name not in self.VIEWS:
                continue
            sources = [
                v.owner.src if isinstance(v.owner, tl.ConvertLayoutOp) and _no_op(v.owner) else None
                for v in view.operands
            ]
            if any(s is None for s in sources) or len({s.type for s in sources}) != 1:  # type: ignore[union-attr]
                continue  # join's operands must keep one type
            for i, src in enumerate(sources):
                view.operands[i] = src  # type: ignore[assignment]
            rewriter.notify_op_modified(view)
            changed = True
        if changed and not op.result.uses:
            rewriter.erase(op)


class FoldNoOpConversionOfBroadcast(RewritePattern):
    """``cvt(tl.broadcast %x : A -> A') : A' -> B`` is ``tl.broadcast %x : A -> B`` when ``A'``
    and ``B`` are the same linear layout and ``B`` places the operand as ``A`` does (the
    broadcast's own check): attention's row statistics broadcast in one v3 layout and handed to
    an accumulator in another, where Triton broadcasts across the two."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tl.ConvertLayoutOp, rewriter: PatternRewriter, /) -> None:
        broadcast = op.src.owner
        if not isinstance(broadcast, tl.BroadcastOp) or not _no_op(op):
            return
        new = tl.BroadcastOp(broadcast.src, op.result.type)  # type: ignore[arg-type]
        try:
            new.verify_tl()
        except VerifyException:  # the operand is placed differently: the conversion stays
            return
        new.attributes |= broadcast.attributes
        rewriter.replace(op, new)


def _no_op(cvt: tl.ConvertLayoutOp) -> bool:
    from llc.passes.layout_assignment import same_linear_layout

    src, dst = tl.encoding_of(cvt.src.type), tl.encoding_of(cvt.result.type)
    return (
        src is not None
        and dst is not None
        and same_linear_layout(src, dst, tl.shape_of(cvt.src.type))
    )


CONVERT_LAYOUT_PATTERNS: tuple[RewritePattern, ...] = (
    FoldIdentityConversion(),
    FoldConversionChain(),
    FoldConvertedConstant(),
    FoldConvertedSplat(),
    FoldConvertedRange(),
    FoldConvertedLocalLoad(),
    FoldConvertedReshape(),
    FoldConvertedHistogram(),
    FoldConversionIntoLayoutFreeUse(),
    FoldNoOpConversionIntoView(),
    FoldNoOpConversionOfBroadcast(),
)
"""Every fold of ``tl.convert_layout``, in the order the canonicalizer tries them."""
