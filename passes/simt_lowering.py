"""The machinery of ``llc-lower-to-simt``: the lowering state of one function, and the xDSL
rewrite pattern that runs one per-op lowering function.

A lowering of an op ``tl.foo`` is a function ``lower_foo(lowering, op) -> None`` that builds the
op's per-thread code with the :class:`FunctionLowering` helper API and records what the op's
results became:

* ``lowering.get(v)``: what the (already lowered) value ``v`` became: a ``vector<R x T>`` of the
  thread's registers for a tensor, an ``i64`` address for a pointer, the value for a scalar;
* ``lowering.laid[v]``: a lowered tensor's :class:`Laid` (its vector, linear layout, and the
  coordinates every thread's registers hold);
* ``lowering.emit(new_op)``: insert ``new_op`` (before the op being lowered);
* ``lowering.set_tensor(old, new[, ll])`` / ``lowering.set_result(op, new)``: record results;
* builders: ``vtype``, ``const_index``, ``const_vec``, ``const_scalar``, ``thread_linear``,
  ``thread_columns``, ``shuffle``, ``concat``, ``extract``, ``remap`` and ``run_program`` (emit a
  :class:`llc.lowering.SimtProgram`, the planner's shuffles and shared-memory exchanges);
* ``lowering.tid``, ``threads``, ``lanes``, ``num_warps``, ``compute_capability``, ``axis`` (the
  axis analysis of the tensor program).

:func:`pattern_for` makes such a function a :class:`LowerOp` rewrite pattern; the pass applies
its list of patterns, in order, with a :class:`~xdsl.pattern_rewriter.PatternRewriteWalker`
(:func:`lower_function`). This is a one-shot conversion with a value map, as MLIR's dialect
conversion: the walker visits the ops in program order (each op before the ops of its regions),
a pattern inserts the new ops before the op it lowers and records its results in the map, and
the old ops, whose tensor types the later patterns still read, are erased once every op is
lowered. Ops with regions of their own (``scf.for``, ``scf.if``, ``scf.while``) build the new op
with new blocks whose arguments have the lowered types (``vector<R x T>`` for a tensor: the
block-signature change), map the old block arguments to the new ones, and move the old body into
the new blocks (:meth:`FunctionLowering.lower_region`), where the walker then lowers it. Ops in
other regions (the combine region of ``tl.reduce``) are read by their op's lowering and never
visited on their own.

An op no pattern takes is the located error ``'<name>' has no SIMT lowering``
(:class:`NoLowering`, the last pattern); a :class:`~llc.errors.LayoutError` raised by a lowering
is reported at the op it lowers, as is an op it built that does not verify.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects import arith, gpu, vector
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
    VectorType,
    i1,
    i8,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator

from llc.dialects import simt, tl
from llc.dialects.diagnostics import error_at
from llc.errors import LayoutError
from llc.f2 import bit_fields
from llc.lowering import SimtProgram

__all__ = [
    "FunctionLowering",
    "Laid",
    "LowerOp",
    "Lowering",
    "NoLowering",
    "coordinate_keys",
    "lower_function",
    "pattern_for",
    "register_renaming",
    "register_vector_type",
    "tensor_layout",
    "thread_coords",
]


def tensor_layout(typ: TensorType) -> Any:
    """The linear layout of a distributed tensor type (shape rounded up to powers of two).

    >>> from llc.dialects.layout_attrs import BlockedEncodingAttr
    >>> from llc.layouts import BlockedLayout
    >>> from xdsl.dialects.builtin import f32
    >>> blocked = BlockedEncodingAttr(BlockedLayout([4], [32], [4], [0]))
    >>> tensor_layout(TensorType(f32, [1000], blocked)).get_in_dim_size("register")
    8
    """
    shape = [1 << (int(s) - 1).bit_length() for s in typ.get_shape()]
    enc = typ.encoding
    if not hasattr(enc, "to_linear_layout"):
        raise LayoutError(f"{typ} has no distributed layout (run llc-optimize-layouts first)")
    return enc.to_linear_layout(shape)  # type: ignore[union-attr]


def _scalar_of(typ: Attribute) -> Attribute:
    """The per-register element type: pointers become ``i64`` addresses."""
    elem = tl.element_type_of(typ)
    return i64 if isinstance(elem, tl.PointerType) else elem


def register_vector_type(typ: TensorType) -> VectorType:
    """The per-thread type of a tensor: ``vector<R x T>``, ``R`` its layout's registers.

    >>> from llc.dialects.layout_attrs import BlockedEncodingAttr
    >>> from llc.layouts import BlockedLayout
    >>> from xdsl.dialects.builtin import f32
    >>> blocked = BlockedEncodingAttr(BlockedLayout([4], [32], [4], [0]))
    >>> print(register_vector_type(TensorType(f32, [1024], blocked)))
    vector<8xf32>
    """
    ll = tensor_layout(typ)
    return VectorType(_scalar_of(typ), [ll.get_in_dim_size("register")])


def thread_coords(ll: Any, threads: int) -> np.ndarray:
    """``coords[t, r]``: the tensor coordinates register ``r`` of thread ``t`` holds.

    >>> from llc.layouts import BlockedLayout
    >>> thread_coords(BlockedLayout([2], [2], [1], [0]).to_linear_layout([4]), 2)[:, :, 0].tolist()
    [[0, 1], [2, 3]]
    """
    outs = ll.apply_all()
    arrays = [np.asarray(outs[name]).astype(np.int64) for name, _ in ll.out_dims]
    regs = ll.get_in_dim_size("register")
    stacked = np.stack(arrays, axis=-1)
    if stacked.shape[0] != threads * regs:
        raise LayoutError(
            f"the layout covers {stacked.shape[0] // regs} threads, the CTA has {threads} "
            "(several CTAs per program are not supported)"
        )
    return stacked.reshape(threads, regs, len(arrays))


def coordinate_keys(coords: np.ndarray, sizes: list[int]) -> np.ndarray:
    """Row-major keys of coordinates (last axis) in a tensor of shape ``sizes``.

    >>> coordinate_keys(np.array([[1, 2], [0, 3]]), [2, 4]).tolist()
    [6, 3]
    """
    key = np.zeros(coords.shape[:-1], dtype=np.int64)
    for d, size in enumerate(sizes):
        key = key * max(size, 1) + coords[..., d]
    return key


def register_renaming(src: np.ndarray, dst: np.ndarray, sizes: list[int]) -> list[int] | None:
    """The source register each destination register copies, if that is the same register in
    every thread and every element stays in its thread; else ``None``.

    >>> src = np.array([[[0], [1]], [[2], [3]]])  # 2 threads x 2 registers, 1-D
    >>> register_renaming(src, src[:, ::-1], [4])
    [1, 0]
    >>> register_renaming(src, src[::-1], [4]) is None  # elements change threads
    True
    """
    ks, kd = coordinate_keys(src, sizes), coordinate_keys(dst, sizes)
    threads = ks.shape[0]
    order = np.argsort(ks, axis=1, kind="stable")
    sorted_keys = np.take_along_axis(ks, order, axis=1)
    span = int(max(ks.max(initial=0), kd.max(initial=0))) + 1
    offs = (np.arange(threads, dtype=np.int64) * span)[:, None]
    flat = (sorted_keys + offs).ravel()
    pos = np.searchsorted(flat, (kd + offs).ravel()).reshape(kd.shape)
    pos = np.clip(pos, 0, flat.size - 1)
    if not (flat[pos] == (kd + offs)).all():
        return None
    idx = order.ravel()[pos]
    if not (idx == idx[0]).all():
        return None
    return [int(i) for i in idx[0]]


@dataclass
class Laid:
    """A lowered tensor: its register vector and the coordinates of every (thread, register)."""

    value: SSAValue
    coords: np.ndarray  # (threads, R, rank)
    ll: Any


class FunctionLowering:
    """The state of lowering one function: the value map, the layouts of lowered tensors, the
    insertion point, and the builders every per-op lowering uses (see the module docstring)."""

    def __init__(self, fn: Any, num_warps: int, lanes: int, compute_capability: int = 90) -> None:
        from llc.passes.axis_info import AxisAnalysis

        self.fn = fn
        # Gates ldmatrix/stmatrix in the conversion plans (the module's tl.target).
        self.compute_capability = compute_capability
        self.num_warps = num_warps
        self.lanes = lanes
        self.threads = num_warps * lanes
        self.vals: dict[SSAValue, SSAValue] = {}
        self.laid: dict[SSAValue, Laid] = {}
        self.axis = AxisAnalysis()
        self.block: Block = fn.body.block
        self.insertion: InsertPoint = InsertPoint.at_end(self.block)
        self.rewriter: PatternRewriter | None = None  # the walker's, while it lowers an op
        self.tid: SSAValue | None = None
        self.cache: dict[tuple[Any, ...], SSAValue] = {}
        # the conversion's bookkeeping (lower_function)
        self.original: set[Operation] = set(fn.walk())
        self.open_blocks: set[Block] = {fn.body.block}
        self.lowered: list[Operation] = []
        self.done: set[Operation] = set()
        self.current: Operation = fn
        self.emitted: list[Operation] = []
        self.region_ops: list[tuple[Operation, Operation]] = []
        self.failure: BaseException | None = None

    # ------------------------------------------------------------------ emission helpers
    def emit(self, op: Operation) -> Operation:
        """Insert ``op`` before the op being lowered."""
        self._insert(op)
        self.emitted.append(op)
        return op

    def const_index(self, v: int) -> SSAValue:
        key = ("idx", id(self.block), v)
        if key not in self.cache:
            self.cache[key] = self.emit(arith.ConstantOp(IntegerAttr(v, IndexType()))).results[0]
        return self.cache[key]

    def const_vec(self, typ: VectorType, values: list[Any]) -> SSAValue:
        key = ("vec", id(self.block), str(typ), tuple(values))
        if key not in self.cache:
            elem = typ.element_type
            if not isinstance(elem, IntegerType | IndexType):
                # A float splat is a scalar constant broadcast: xDSL reads a dense hex splat
                # (how -inf/nan print) back as the integer, not as the float's bits.
                if any(v != values[0] and v == v for v in values):
                    raise LayoutError("a non-uniform float constant vector")
                scalar = self.const_scalar(elem, float(values[0]))
                self.cache[key] = self.emit(vector.BroadcastOp(scalar, typ)).results[0]
                return self.cache[key]
            attr = DenseIntOrFPElementsAttr.from_list(typ, values)
            self.cache[key] = self.emit(arith.ConstantOp(attr)).results[0]
        return self.cache[key]

    def const_scalar(self, typ: Attribute, v: Any) -> SSAValue:
        key = ("s", id(self.block), str(typ), v)
        if key not in self.cache:
            attr = FloatAttr(v, typ) if not isinstance(typ, IntegerType) else IntegerAttr(v, typ)
            self.cache[key] = self.emit(arith.ConstantOp(attr)).results[0]  # type: ignore[arg-type]
        return self.cache[key]

    def thread_linear(self, columns: list[int]) -> SSAValue | None:
        """``XOR_b bit_b(thread_id) * columns[b]`` as ``index`` (``None`` when all are 0)."""
        key = ("lin", id(self.block), tuple(columns))
        if key in self.cache:
            return self.cache[key]
        assert self.tid is not None
        acc: SSAValue | None = None
        for term in bit_fields(columns):
            x = self.tid
            if term.bit:
                x = self.emit(arith.ShRUIOp(x, self.const_index(term.bit))).results[0]
            x = self.emit(arith.AndIOp(x, self.const_index((1 << term.width) - 1))).results[0]
            if term.shift is None:
                x = self.emit(arith.MuliOp(x, self.const_index(term.factor))).results[0]
            elif term.shift:
                x = self.emit(arith.ShLIOp(x, self.const_index(term.shift))).results[0]
            acc = x if acc is None else self.emit(arith.XOrIOp(acc, x)).results[0]
        if acc is not None:
            self.cache[key] = acc
        return acc

    def thread_columns(self, ll: Any, dim: int) -> list[int]:
        """The basis of every thread bit (lanes, then warps) on output ``dim``."""
        cols = []
        for in_dim in ("lane", "warp"):
            if not ll.has_in_dim(in_dim):
                continue
            for pos in range(ll.get_in_dim_size_log2(in_dim)):
                cols.append(int(ll.basis(in_dim, pos)[dim]))
        return cols

    def shuffle(self, a: SSAValue, b: SSAValue, mask: list[int]) -> SSAValue:
        """``vector.shuffle`` of ``a`` and ``b`` (``a`` itself for the identity of ``a``)."""
        ta = a.type
        assert isinstance(ta, VectorType)
        if a is b and mask == list(range(ta.get_shape()[0])):
            return a
        rt = VectorType(ta.element_type, [len(mask)])
        return self.emit(
            vector.ShuffleOp(a, b, DenseArrayBase.from_list(i64, mask), result_type=rt)
        ).results[0]

    def concat(self, parts: list[SSAValue]) -> SSAValue:
        """The vectors ``parts`` one after the other (a balanced tree of shuffles)."""
        while len(parts) > 1:
            merged = []
            for i in range(0, len(parts) - 1, 2):
                a, b = parts[i], parts[i + 1]
                n = a.type.get_shape()[0] + b.type.get_shape()[0]  # type: ignore[attr-defined]
                merged.append(self.shuffle(a, b, list(range(n))))
            if len(parts) % 2:
                merged.append(parts[-1])
            parts = merged
        return parts[0]

    def extract(self, v: SSAValue, pos: int) -> SSAValue:
        t = v.type
        assert isinstance(t, VectorType)
        return self.emit(vector.ExtractOp(v, [pos], t.element_type)).results[0]

    def remap(self, src: Laid, dst_coords: np.ndarray, sizes: list[int], dst_ll: Any) -> SSAValue:
        """``src``'s registers renamed to hold ``dst_coords`` (an error if elements move)."""
        mask = register_renaming(src.coords, dst_coords, sizes)
        if mask is None:
            raise LayoutError("this shape op moves data between threads")
        return self.shuffle(src.value, src.value, mask)

    # ------------------------------------------------------------------ the value map
    def get(self, v: SSAValue) -> SSAValue:
        """What the value ``v`` of the tensor program became."""
        return self.vals[v]

    def set_tensor(self, old: SSAValue, new: SSAValue, ll: Any = None) -> None:
        """Record that ``old`` became ``new`` (for a tensor, in layout ``ll``, by default the one
        of its type)."""
        self.vals[old] = new
        typ = old.type
        if isinstance(typ, TensorType):
            ll = ll if ll is not None else tensor_layout(typ)
            self.laid[old] = Laid(new, thread_coords(ll, self.threads), ll)

    def set_result(self, op: Operation, res: SSAValue) -> None:
        """Record that ``op``'s (first) result became ``res``."""
        self.set_results(op.results[:1], [res])

    def set_results(self, olds: Sequence[SSAValue], news: Sequence[SSAValue]) -> None:
        for old, new in zip(olds, news, strict=True):
            if isinstance(old.type, TensorType):
                self.set_tensor(old, new)
            else:
                self.vals[old] = new

    def vtype(self, typ: Attribute) -> Attribute:
        """The lowered type of a value of type ``typ``."""
        if isinstance(typ, TensorType):
            return register_vector_type(typ)
        if isinstance(typ, tl.PointerType):
            return i64
        return typ

    # ------------------------------------------------------------------ programs
    def run_program(
        self,
        build: Callable[[int], SimtProgram],
        value: SSAValue,
        arguments: tuple[SSAValue, ...] = (),
    ) -> SSAValue:
        """Emit the :class:`llc.lowering.SimtProgram` that ``build(bitwidth)`` makes (the one
        lowering library of shuffles and shared-memory exchanges, for conversions, gathers and
        reductions) on the register vector ``value``, and return its output.

        The program moves elements of ``bitwidth`` bits (:func:`llc.cost.dtype_bitwidth`): an
        ``i1`` mask travels as a 0/1 byte (``extui`` to ``i8``, ``trunci`` back), as in Triton;
        other types the program cannot name (pointers' ``i64`` addresses aside) as ``iN``. The
        ops come from :func:`llc.passes.lower_conversions.materialize`, the one materializer of
        programs."""
        from llc.cost import dtype_bitwidth
        from llc.passes.lower_conversions import element_type_for, materialize

        vt = value.type
        assert isinstance(vt, VectorType)
        elem = vt.element_type
        is_mask = elem == i1
        if is_mask:
            value = self.widen_mask(value)
            elem = i8
        bitwidth = dtype_bitwidth(str(elem))
        program = build(bitwidth)
        reg_t = element_type_for(elem, bitwidth)
        if reg_t != elem:
            n = vt.get_shape()[0]
            value = self.emit(simt.CastOp("bitcast", value, VectorType(reg_t, [n]))).results[0]
        ops, out = materialize(program, reg_t, value, arguments)
        for o in ops:
            if isinstance(o, gpu.ThreadIdOp):
                o.results[0].replace_all_uses_with(self.tid)  # type: ignore[arg-type]
                continue
            self.emit(o)
        if reg_t != elem:
            n = out.type.get_shape()[0]  # type: ignore[attr-defined]
            out = self.emit(simt.CastOp("bitcast", out, VectorType(elem, [n]))).results[0]
        if is_mask:
            out = self.narrow_mask(out)
        return out

    def widen_mask(self, value: SSAValue) -> SSAValue:
        """An ``i1`` register vector as ``i8`` 0/1 bytes (shuffles and shared memory move bytes)."""
        n = value.type.get_shape()[0]  # type: ignore[attr-defined]
        return self.emit(simt.CastOp("extui", value, VectorType(i8, [n]))).results[0]

    def narrow_mask(self, value: SSAValue) -> SSAValue:
        """The ``i8`` 0/1 bytes of :meth:`widen_mask` back to ``i1``."""
        n = value.type.get_shape()[0]  # type: ignore[attr-defined]
        return self.emit(simt.CastOp("trunci", value, VectorType(i1, [n]))).results[0]

    # ------------------------------------------------------------------ regions
    def lower_region(self, region: Region, new_op: Operation) -> Region:
        """The region of ``new_op`` (being built) for ``region`` of the op being lowered: one new
        block per block, its arguments of the lowered types and mapped from the old ones, and the
        old ops moved into it, where the walker lowers them in turn. An empty region stays
        empty. ``new_op`` is verified once its regions are lowered."""
        new = Region()
        for old_block in region.blocks:
            block = Block(arg_types=[self.vtype(a.type) for a in old_block.args])
            self.set_results(old_block.args, block.args)
            for o in list(old_block.ops):
                o.detach()
                block.add_op(o)
            self.open_blocks.add(block)
            new.add_block(block)
        return new

    def region_op(self, new_op: Operation) -> Operation:
        """Emit ``new_op``, built with :meth:`lower_region` (verified after the walk)."""
        self._insert(new_op)
        self.region_ops.append((new_op, self.current))
        return new_op

    def _insert(self, op: Operation) -> None:
        if self.rewriter is None:  # the prologue, before the walk
            Rewriter.insert_op(op, self.insertion)
        else:
            self.rewriter.insert(op, self.insertion)

    # ------------------------------------------------------------------ driving one op
    def takes(self, op: Operation) -> bool:
        """Whether ``op`` is an op of the tensor program the walker should lower now (not one
        the lowering built, nor one in a region its op's lowering reads, nor after a failure)."""
        return (
            self.failure is None
            and op in self.original
            and op.parent_block() in self.open_blocks
            and op not in self.done
        )

    def lower(self, op: Operation, fn: Lowering, rewriter: PatternRewriter) -> None:
        """Run ``fn(self, op)`` with the insertion point before ``op``; a failure is kept (and
        raised by :func:`lower_function`) at ``op``."""
        parent = op.parent_block()
        assert parent is not None
        self.block = parent
        self.insertion = InsertPoint.before(op)
        self.rewriter = rewriter
        self.current = op
        self.emitted = []
        try:
            fn(self, op)
            self._verify_emitted()
        except LayoutError as err:
            self.failure = error_at(op, f"cannot lower to SIMT code: {err}")
        except Exception as err:  # the walker would wrap it; keep it as it is
            self.failure = err
        self.lowered.append(op)
        self.done.add(op)
        rewriter.has_done_action = True  # a lowering that emits nothing still took the op

    def _verify_emitted(self) -> None:
        """Verify the ops just emitted (ops with regions after the walk, once their regions are
        lowered; terminators with their parent), so that invalid IR is reported at the tensor op
        whose lowering built it, not by a verifier after the pass."""
        for o in self.emitted:
            if o.has_trait(IsTerminator):
                continue
            _verify_one(o)


def _verify_one(o: Operation) -> None:
    try:
        o.verify(verify_nested_ops=False)
    except Exception as err:  # verifiers raise VerifyException, ValueError, ...
        text = str(err).strip().splitlines()
        raise LayoutError(
            f"the lowering built an invalid '{o.name}': {text[0] if text else err}"
        ) from None


Lowering = Callable[[FunctionLowering, Any], None]
"""A per-op lowering: ``lower_foo(lowering, op)`` emits ``op``'s code and records its results."""


@dataclass(eq=False)
class LowerOp(RewritePattern):
    """Lower the ops named ``names`` (or whose name starts with one of ``prefixes``), and for
    which ``when(lowering, op)`` holds, by ``lower(lowering, op)``.

    >>> pattern = pattern_for("tl.splat", lambda lowering, op: None)
    >>> pattern.matches("tl.splat"), pattern.matches("tl.load")
    (True, False)
    """

    lowering: FunctionLowering | None
    names: frozenset[str]
    lower: Lowering
    prefixes: tuple[str, ...] = ()
    when: Callable[[FunctionLowering, Operation], bool] | None = None

    def matches(self, name: str) -> bool:
        return name in self.names or (bool(self.prefixes) and name.startswith(self.prefixes))

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        state = self.lowering
        if state is None or not self.matches(op.name) or not state.takes(op):
            return
        if self.when is not None and not self.when(state, op):
            return
        state.lower(op, self.lower, rewriter)

    def bound(self, lowering: FunctionLowering) -> LowerOp:
        """This pattern for the function ``lowering`` lowers."""
        return LowerOp(lowering, self.names, self.lower, self.prefixes, self.when)


def pattern_for(
    names: str | Collection[str],
    lower: Lowering,
    *,
    prefixes: tuple[str, ...] = (),
    when: Callable[[FunctionLowering, Operation], bool] | None = None,
) -> LowerOp:
    """The rewrite pattern that lowers the ops ``names`` by ``lower(lowering, op)``: the one line
    that registers a per-op lowering in :data:`llc.passes.lower_to_simt.PATTERNS`, e.g.
    ``pattern_for("tl.scan", lower_scan)``.

    >>> pattern_for(("tl.load", "tl.store"), lambda lowering, op: None).names == {
    ...     "tl.load", "tl.store"}
    True
    """
    named = frozenset([names] if isinstance(names, str) else names)
    return LowerOp(None, named, lower, prefixes, when)


@dataclass(eq=False)
class NoLowering(RewritePattern):
    """The last pattern: an op of the tensor program no pattern took is a located error."""

    lowering: FunctionLowering

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if self.lowering.takes(op):
            self.lowering.lower(op, _no_lowering, rewriter)


def _no_lowering(lowering: FunctionLowering, op: Operation) -> None:
    raise LayoutError(f"'{op.name}' has no SIMT lowering")


def lower_function(lowering: FunctionLowering, patterns: Sequence[LowerOp]) -> None:
    """Lower ``lowering.fn`` in place with ``patterns`` (tried in order on each op).

    The prologue is ``gpu.thread_id`` (every lowering's thread index) and ``simt.ptr_to_int`` of
    each pointer argument; then one walk lowers every op, in program order; then the old ops go,
    users first, and the ops with regions are verified."""
    fn = lowering.fn
    block = fn.body.block
    lowering.insertion = InsertPoint.at_start(block)
    lowering.tid = lowering.emit(gpu.ThreadIdOp(gpu.DimensionAttr(gpu.DimensionEnum.X))).results[0]
    for arg in block.args:
        if isinstance(arg.type, tl.PointerType):
            lowering.vals[arg] = lowering.emit(simt.PtrToIntOp(arg)).results[0]
        else:
            lowering.vals[arg] = arg
    lowering.emitted = []
    bound: list[RewritePattern] = [p.bound(lowering) for p in patterns]
    walker = PatternRewriteWalker(
        GreedyRewritePatternApplier([*bound, NoLowering(lowering)], dce_enabled=False),
        apply_recursively=False,
    )
    walker.rewrite_region(fn.body)
    if lowering.failure is not None:
        raise lowering.failure
    for op in reversed(lowering.lowered):
        Rewriter.erase_op(op, safe_erase=False)
    for new_op, old_op in lowering.region_ops:
        try:
            _verify_one(new_op)
        except LayoutError as err:
            raise error_at(old_op, f"cannot lower to SIMT code: {err}") from None
