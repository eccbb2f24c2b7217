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
* memory: ``access_plan`` (registers per global access, from the layout and the axis analysis),
  ``mask_constancy``, ``group_mask``, ``shared_offsets`` and ``shared_access`` (a tensor's
  registers to or from a shared buffer, as wide as its layout allows);
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

import math as pymath
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


def _pow2_floor(x: int) -> int:
    return 1 << (max(1, int(x)).bit_length() - 1)


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


def widest_run(reg: list[int], thread: list[int], widest: int) -> int:
    """Registers one shared access can move: consecutive shared offsets (``reg``, a register's
    part) aligned to the run in every register group and thread (``thread``: the threads'
    columns), at most ``widest`` (a power of two).

    >>> widest_run([0, 1, 2, 3], [4, 8], 4), widest_run([0, 1, 2, 3], [2], 4)
    (4, 2)
    """
    width = 1
    while width * 2 <= min(widest, len(reg)) and all(
        reg[b + i] == reg[b] + i for b in range(0, len(reg), width * 2) for i in range(width * 2)
    ):
        w = width * 2
        if any(reg[b] % w for b in range(0, len(reg), w)) or any(c % w for c in thread):
            break
        width = w
    return width


class FunctionLowering:
    """The state of lowering one function: the value map, the layouts of lowered tensors, the
    insertion point, and the builders every per-op lowering uses (see the module docstring).

    >>> from xdsl.dialects import func
    >>> from xdsl.dialects.builtin import f32
    >>> lowering = FunctionLowering(func.FuncOp("f", ([], [])), num_warps=4, lanes=32)
    >>> lowering.threads, str(lowering.vtype(tl.PointerType(f32))), str(lowering.vtype(f32))
    (128, 'i64', 'f32')
    """

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
        # A loop's carried values are analysed over its back edge (its yield); the lowering
        # moves loop bodies into new blocks, so they are analysed before it starts.
        for op in fn.walk():
            if op.name == "scf.for":
                for arg in op.regions[0].block.args:
                    self.axis.info(arg)
        self.block: Block = fn.body.block
        self.insertion: InsertPoint = InsertPoint.at_end(self.block)
        self.rewriter: PatternRewriter | None = None  # the walker's, while it lowers an op
        self.tid: SSAValue | None = None
        self.cache: dict[tuple[Any, ...], SSAValue] = {}
        # byte base of a shared-memory view (a slot of a multi-buffered allocation) in its buffer
        self.smem_base: dict[SSAValue, SSAValue] = {}
        # shared buffers one op uses alone (an exchange's scratch): see llc.passes.shared_alloc
        self.scratch: set[Operation] = set()
        # per ring (its alloc's value): the (register, thread) shared offsets of its copies, and
        # the shared loads that read back only bytes their own thread copied (no barrier needed
        # after the wait that lands them: llc.passes.barriers)
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

    # ------------------------------------------------------------------ memory accesses
    def mask_constancy(self, v: SSAValue, dim: int) -> int:
        """Runs of equal values along ``dim`` of an i1 mask (Triton's rules for compares,
        ``and``/``or``, ``broadcast`` and ``expand_dims``, on top of the axis analysis)."""
        owner = v.owner
        info = self.axis.info(v)
        base = info.constancy[dim] if dim < len(info.constancy) else 1
        shape = tl.shape_of(v.type) or (1,)
        if not isinstance(owner, Operation):
            return base
        name = owner.name
        if name in ("arith.andi", "arith.ori"):
            a, b = (self.mask_constancy(x, dim) for x in owner.operands)
            return max(base, min(a, b))
        if name == "tl.broadcast":
            src = owner.operands[0]
            if (tl.shape_of(src.type) or (1,))[dim] == 1:
                return shape[dim]
            return max(base, self.mask_constancy(src, dim))
        if name == "tl.expand_dims":
            axis = owner.axis.value.data  # type: ignore[attr-defined]
            if dim == axis:
                return 1 if shape[dim] > 1 else shape[dim]
            return max(base, self.mask_constancy(owner.operands[0], dim - (dim > axis)))
        if name == "tl.convert_layout":
            return max(base, self.mask_constancy(owner.operands[0], dim))
        if name in ("tl.cmpi", "arith.cmpi"):
            a, b = (self.axis.info(x) for x in owner.operands)
            full = shape[dim]
            if a.constancy[dim] >= full and b.constancy[dim] >= full:
                return full
            for x, y in ((a, b), (b, a)):
                if y.constancy[dim] >= full:
                    g = pymath.gcd(x.divisibility[dim], y.divisibility[dim])
                    return max(base, min(x.contiguity[dim], g))
            return max(base, min(a.constancy[dim], b.constancy[dim]))
        return base

    def access_plan(self, ptr: SSAValue, mask: SSAValue | None, itemsize: int) -> int:
        """Registers per access: contiguous in the layout and proven by the axis analysis."""
        laid = self.laid[ptr]
        info = self.axis.info(ptr)
        dim = (
            int(np.argmax(info.contiguity))
            if max(info.contiguity) > 1
            else len(info.contiguity) - 1
        )
        ll = laid.ll
        k = 0
        rank = laid.coords.shape[-1]
        while k < ll.get_in_dim_size_log2("register"):
            basis = [int(x) for x in ll.basis("register", k)]
            want = [0] * rank
            want[dim] = 1 << k
            if basis != want:
                break
            k += 1
        width = 1 << k
        width = min(width, _pow2_floor(info.contiguity[dim]))
        width = min(width, max(1, _pow2_floor(info.divisibility[dim]) // itemsize))
        width = min(width, max(1, 16 // itemsize))
        if mask is not None:
            width = min(width, _pow2_floor(self.mask_constancy(mask, dim)))
        return max(1, width)

    def group_mask(self, mask: SSAValue | None, base: int, thread_ok: SSAValue | None) -> SSAValue:
        """The ``i1`` predicate of the access at register ``base``: the mask's register there,
        and ``thread_ok`` (true when both are absent)."""
        m = self.extract(self.get(mask), base) if mask is not None else None
        if thread_ok is not None:
            m = thread_ok if m is None else self.emit(arith.AndIOp(m, thread_ok)).results[0]
        return m if m is not None else self.const_scalar(i1, 1)

    def shared_offsets(self, mem: SSAValue, laid: Laid) -> tuple[list[int], list[int]]:
        """Element offset in the shared buffer of every register (thread 0) and of every thread
        bit: ``offset(t, r) = reg[r] xor XOR_b bit_b(t) * thread[b]`` (the shared layout's
        inverse after the distributed one, linear over F2; checked)."""
        mt = mem.type
        assert isinstance(mt, tl.MemDescType)
        if hasattr(getattr(mt.encoding, "data", None), "padded_offset"):
            # Padding breaks the XOR decomposition below; read as written, never mislowered.
            raise LayoutError(
                "llc's SIMT lowering does not lower a #padded_shared buffer (its offsets are "
                "not linear over F2); use a swizzled or shared_linear layout"
            )
        shape = [1 << (int(x) - 1).bit_length() for x in mt.get_shape()]
        sll = mt.encoding.to_linear_layout(shape)  # type: ignore[union-attr]
        outs = sll.apply_all()
        scoords = np.stack([np.asarray(outs[n]).astype(np.int64) for n, _ in sll.out_dims], -1)
        keys = coordinate_keys(scoords, shape)
        table = np.full(int(np.prod(shape)), -1, dtype=np.int64)
        table[keys] = np.arange(keys.size)
        off = table[coordinate_keys(laid.coords, shape)]  # (threads, R)
        if (off < 0).any():
            raise LayoutError("the shared layout does not hold every element")
        reg = [int(x) for x in off[0]]
        bits = (self.threads - 1).bit_length()
        thread = [int(off[1 << b, 0] ^ off[0, 0]) for b in range(bits)]
        tids = np.arange(self.threads)
        tpart = np.zeros(self.threads, dtype=np.int64)
        for b, col in enumerate(thread):
            tpart ^= ((tids >> b) & 1) * col
        if not (off == (np.asarray(reg)[None, :] ^ tpart[:, None])).all():
            raise LayoutError("shared offsets are not linear in the thread and register bits")
        return reg, thread

    def shared_address(
        self, mem: SSAValue, tpart: SSAValue | None, reg_offset: int, item: int
    ) -> SSAValue:
        """The byte address in ``mem``'s buffer of the element at offset ``tpart ^ reg_offset``
        (``tpart``: the thread's part, :meth:`thread_linear` of the shared offsets' thread
        columns; ``reg_offset``: a register's part), plus the slot's base when ``mem`` is a slot
        of a ring (``smem_base``)."""
        off = tpart
        if reg_offset:
            c = self.const_index(reg_offset)
            off = c if off is None else self.emit(arith.XOrIOp(off, c)).results[0]
        if off is None:
            off = self.const_index(0)
        addr = self.emit(arith.MuliOp(off, self.const_index(item))).results[0]
        if mem in self.smem_base:
            addr = self.emit(arith.AddiOp(addr, self.smem_base[mem])).results[0]
        return addr

    def shared_access(
        self, mem: SSAValue, laid: Laid, elem: Attribute, store: SSAValue | None
    ) -> list[SSAValue]:
        """Store ``store`` (the registers of ``laid``) to, or load ``laid``'s registers from,
        the shared buffer ``mem``, as wide as consecutive offsets allow (128 bits at most)."""
        item = simt.bit_width(elem) // 8
        reg, thread = self.shared_offsets(mem, laid)
        width = widest_run(reg, thread, 16 // item)
        tpart = self.thread_linear(thread)
        smem = self.get(mem)
        parts = []
        for base in range(0, len(reg), width):
            addr = self.shared_address(mem, tpart, reg[base], item)
            if store is not None:
                v = self.shuffle(store, store, list(range(base, base + width)))
                self.emit(simt.SharedStoreOp(v, smem, addr))
            else:
                vt = VectorType(elem, [width])
                parts.append(self.emit(simt.SharedLoadOp(smem, addr, vt)).results[0])
        return parts

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
        # the program's buffer holds nothing between its executions: the allocation may reuse
        # its bytes outside it (llc.passes.shared_alloc)
        self.scratch.update(o for o in ops if isinstance(o, simt.SharedAllocOp))
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
    def lower_region(self, region: Region) -> Region:
        """The new region for ``region`` of the op being lowered: one new block per block, its
        arguments of the lowered types and mapped from the old ones, and the old ops moved into
        it, where the walker lowers them in turn. An empty region stays empty. Emit the new op
        with :meth:`region_op`."""
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

    >>> from xdsl.dialects import arith, func
    >>> from xdsl.dialects.builtin import i32
    >>> from llc.passes.lower_to_simt import PATTERNS
    >>> fn = func.FuncOp("f", ([i32], []))
    >>> x = fn.body.block.args[0]
    >>> fn.body.block.add_ops([arith.AddiOp(x, x), func.ReturnOp()])
    >>> lower_function(FunctionLowering(fn, 4, 32), PATTERNS)
    >>> [op.name for op in fn.body.block.ops]
    ['gpu.thread_id', 'arith.addi', 'func.return']
    >>> fn = func.FuncOp("g", ([i32], []))
    >>> y = fn.body.block.args[0]
    >>> fn.body.block.add_ops([arith.AddiOp(y, y), func.ReturnOp()])
    >>> try:  # with the pattern of func.return only
    ...     lower_function(FunctionLowering(fn, 4, 32), PATTERNS[:1])
    ... except Exception as err:
    ...     print(err.op.name, "-", err)
    arith.addi - cannot lower to SIMT code: 'arith.addi' has no SIMT lowering

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
