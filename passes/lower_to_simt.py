"""``llc-lower-to-simt``: every tensor op becomes per-thread SIMT code.

After the pass no tensor-typed value is left: a tensor of layout ``L`` is, in each thread, one
``vector<R x T>`` of its registers in ``L``'s register order (pointers: ``i64`` byte addresses,
masks ``i1``). Everything is derived from the linear layouts:

* **indices** (``make_range``): register ``r`` of thread ``t`` holds ``L(r, t)``, which is
  ``L(r, 0) xor L(0, t)``; the register part is a constant vector, the thread part bit fields of
  ``gpu.thread_id`` (``applyLinearLayout``);
* **shape ops** (``expand_dims``, ``broadcast``, ``reshape``, ``trans``) and ``convert_layout``
  between layouts that keep every element in its thread: a register renaming
  (``vector.shuffle``), found by matching coordinates; other conversions go through
  :func:`llc.lowering.plan_conversion` (shuffles / shared memory, ``llc-lower-conversions``);
* **elementwise** ``arith``/``math``/``tl`` compares, selects and casts: one op on the vector;
* **global memory**: one ``simt.global_load`` / ``simt.global_store`` per group of ``V``
  registers, ``V`` the registers the layout makes contiguous along the pointer's contiguous dim,
  capped by the axis analysis (contiguity, byte divisibility, mask constancy) and 128 bits;
  broadcast registers and threads store once;
* **reduce**: along each bit of the axis, lowest first (the order of the tensor-level tree, so
  results are bit-identical): a register bit combines two halves of the vector, a lane bit an
  xor ``simt.shuffle``, a warp bit a shared-memory exchange; free bits are never combined;
* **dot**: FMA (one ``math.fma`` per k on the accumulator registers) when each thread holds the
  rows of A and columns of B its accumulator needs; ``#tl.nvidia_mma`` v2 with 16-bit inputs
  through ``simt.mma_m16n8k16``; other layouts are a located error;
* ``scf.for`` / ``scf.if`` / ``scf.while`` carry the per-thread vectors.

Module attributes ``tl.num-warps`` / ``tl.threads-per-warp`` give the CTA.
"""

from __future__ import annotations

import math as pymath
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, func, gpu, math, scf, vector
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float16Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
    VectorType,
    i1,
    i8,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import IsTerminator

from llc.dialects import simt, tl
from llc.dialects.diagnostics import error_at
from llc.errors import LayoutError
from llc.f2 import bit_fields
from llc.lowering import SimtProgram
from llc.passes import lower_async_copy
from llc.passes.barriers import prune_barriers

__all__ = ["LowerToSimtPass", "lower_module", "register_vector_type"]

_COMMUTATIVE = {
    "arith.addf",
    "arith.addi",
    "arith.mulf",
    "arith.muli",
    "arith.maxnumf",
    "arith.minnumf",
    "arith.maximumf",
    "arith.minimumf",
    "arith.maxsi",
    "arith.minsi",
    "arith.maxui",
    "arith.minui",
    "arith.andi",
    "arith.ori",
    "arith.xori",
}

_TL_CASTS = {
    "tl.extsi": "extsi",
    "tl.extui": "extui",
    "tl.trunci": "trunci",
    "tl.sitofp": "sitofp",
    "tl.uitofp": "uitofp",
    "tl.fptosi": "fptosi",
    "tl.fptoui": "fptoui",
    "arith.extsi": "extsi",
    "arith.extui": "extui",
    "arith.trunci": "trunci",
    "arith.sitofp": "sitofp",
    "arith.uitofp": "uitofp",
    "arith.fptosi": "fptosi",
    "arith.fptoui": "fptoui",
    "arith.bitcast": "bitcast",
    "tl.bitcast": "bitcast",
}


def _pow2_floor(x: int) -> int:
    return 1 << (max(1, int(x)).bit_length() - 1)


def _scalar_of(typ: Attribute) -> Attribute:
    """The per-register element type: pointers become ``i64`` addresses."""
    elem = tl.element_type_of(typ)
    return i64 if isinstance(elem, tl.PointerType) else elem


def _layout(typ: TensorType) -> Any:
    shape = [1 << (int(s) - 1).bit_length() for s in typ.get_shape()]
    enc = typ.encoding
    if not hasattr(enc, "to_linear_layout"):
        raise LayoutError(f"{typ} has no distributed layout (run llc-optimize-layouts first)")
    return enc.to_linear_layout(shape)  # type: ignore[union-attr]


def register_vector_type(typ: TensorType) -> VectorType:
    """The per-thread type of a tensor: ``vector<R x T>``, ``R`` its layout's registers.

    >>> from llc.dialects.layout_attrs import BlockedEncodingAttr
    >>> from llc.layouts import BlockedLayout
    >>> from xdsl.dialects.builtin import f32
    >>> blocked = BlockedEncodingAttr(BlockedLayout([4], [32], [4], [0]))
    >>> print(register_vector_type(TensorType(f32, [1024], blocked)))
    vector<8xf32>
    """
    ll = _layout(typ)
    return VectorType(_scalar_of(typ), [ll.get_in_dim_size("register")])


@dataclass
class _Laid:
    """A lowered tensor: its register vector and the coordinates of every (thread, register)."""

    value: SSAValue
    coords: np.ndarray  # (threads, R, rank)
    ll: Any


def _coords(ll: Any, threads: int) -> np.ndarray:
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


def _keys(coords: np.ndarray, sizes: list[int]) -> np.ndarray:
    key = np.zeros(coords.shape[:-1], dtype=np.int64)
    for d, size in enumerate(sizes):
        key = key * max(size, 1) + coords[..., d]
    return key


def _renaming(src: np.ndarray, dst: np.ndarray, sizes: list[int]) -> list[int] | None:
    """The source register each destination register copies, if that is the same register in
    every thread and every element stays in its thread; else ``None``."""
    ks, kd = _keys(src, sizes), _keys(dst, sizes)
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


def _is_f8(t: Attribute) -> bool:
    return simt.bit_width(t) == 8 and not isinstance(t, IntegerType)


def mma_k_order(a_coords: np.ndarray, ra: np.ndarray, ca: np.ndarray, kdim: int) -> np.ndarray:
    """The K order of an m16n8k16 dot: ``k_of[p]`` is the K index fed at fragment position ``p``
    (``p`` counts K steps of 16 one after the other).

    Any one permutation of K applied to both operands leaves the sum unchanged, so the mma may
    read K in the order the operand layout holds it: thread ``t`` (group 0 of warp 0) takes its
    own A elements of its first row, in increasing K, for the positions its fragments need, in
    increasing order. For ``kWidth = 2`` this is the identity; for ``kWidth = 4`` (8-bit
    operands) thread ``t`` holds ``k = 4t .. 4t+3`` and feeds them at ``2t, 2t+1, 2t+8, 2t+9``
    (Triton's order). The caller checks that both operands hold every element so addressed; B
    passes only if its layout has the same K order, i.e. the same kWidth.

    >>> from llc.dialects.simt_kernel_interpreter import mma_fragment_coords
    >>> ra, ca, *_ = mma_fragment_coords()
    >>> k = np.arange(16)
    >>> a2 = np.stack([np.zeros((32, 4)), 2 * (np.arange(32) % 4)[:, None] + [0, 1, 8, 9]], -1)
    >>> mma_k_order(a2.astype(int), ra, ca, 16).tolist() == k.tolist()
    True
    >>> a4 = np.stack([np.zeros((32, 4)), 4 * (np.arange(32) % 4)[:, None] + [0, 1, 2, 3]], -1)
    >>> mma_k_order(a4.astype(int), ra, ca, 16).tolist()
    [0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15]
    """
    k_of = np.arange(kdim)
    row = a_coords[0, 0, 0]
    positions = np.arange(0, kdim, 16)[:, None, None] + ca[None, :4, :]  # (steps, tig, 8)
    order = np.full(kdim, -1)
    for tig in range(4):
        held = np.unique(a_coords[tig][a_coords[tig][:, 0] == row][:, 1])
        wanted = np.unique(positions[:, tig][:, ra[tig] == ra[tig, 0]])
        if held.size != wanted.size:
            return k_of
        order[wanted] = held
    if sorted(order.tolist()) != k_of.tolist():
        return k_of
    return order


class _FunctionLowering:
    def __init__(
        self, fn: func.FuncOp, num_warps: int, lanes: int, compute_capability: int = 90
    ) -> None:
        from llc.passes.axis_info import AxisAnalysis

        self.fn = fn
        # Gates ldmatrix/stmatrix in the conversion plans (the module's tl.target).
        self.compute_capability = compute_capability
        self.num_warps = num_warps
        self.lanes = lanes
        self.threads = num_warps * lanes
        self.vals: dict[SSAValue, SSAValue] = {}
        self.laid: dict[SSAValue, _Laid] = {}
        self.axis = AxisAnalysis()
        self.block: Block = Block()
        self.tid: SSAValue | None = None
        self.cache: dict[tuple[Any, ...], SSAValue] = {}
        # byte base of a shared-memory view (a slot of a multi-buffered allocation) in its buffer
        self.smem_base: dict[SSAValue, SSAValue] = {}

    # ------------------------------------------------------------------ emission helpers
    def emit(self, op: Operation) -> Operation:
        self.block.add_op(op)
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

    def shuffle(self, a: SSAValue, b: SSAValue, mask: list[int]) -> SSAValue:
        ta = a.type
        assert isinstance(ta, VectorType)
        if a is b and mask == list(range(ta.get_shape()[0])):
            return a
        rt = VectorType(ta.element_type, [len(mask)])
        return self.emit(
            vector.ShuffleOp(a, b, DenseArrayBase.from_list(i64, mask), result_type=rt)
        ).results[0]

    def concat(self, parts: list[SSAValue]) -> SSAValue:
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

    # ------------------------------------------------------------------ driver
    def run(self) -> None:
        old = self.fn.body.block
        new = Block(arg_types=[a.type for a in old.args])
        self.block = new
        self.tid = self.emit(gpu.ThreadIdOp(gpu.DimensionAttr(gpu.DimensionEnum.X))).results[0]
        for a, b in zip(old.args, new.args, strict=True):
            b.name_hint = a.name_hint
            if isinstance(a.type, tl.PointerType):
                self.vals[a] = self.emit(simt.PtrToIntOp(b)).results[0]
            else:
                self.vals[a] = b
        self.lower_ops(list(old.ops))
        self.fn.body.detach_block(old)
        self.fn.body.add_block(new)
        old.erase(safe_erase=False)

    def lower_ops(self, ops: list[Operation]) -> None:
        for op in ops:
            last = self.block.last_op
            try:
                self.lower_op(op)
                self._verify_emitted(last)
            except LayoutError as err:
                raise error_at(op, f"cannot lower to SIMT code: {err}") from None

    def _verify_emitted(self, last: Operation | None) -> None:
        """Verify the ops emitted after ``last`` (their nested ops were verified as they were
        emitted; terminators once their parent exists), so that invalid IR is reported at the
        tensor op whose lowering built it, not by a verifier after the pass."""
        o = self.block.first_op if last is None else last.next_op
        while o is not None:
            if not o.has_trait(IsTerminator):
                try:
                    o.verify(verify_nested_ops=False)
                except Exception as err:  # verifiers raise VerifyException, ValueError, ...
                    text = str(err).strip().splitlines()
                    raise LayoutError(
                        f"the lowering built an invalid '{o.name}': {text[0] if text else err}"
                    ) from None
            o = o.next_op

    def get(self, v: SSAValue) -> SSAValue:
        return self.vals[v]

    def set_tensor(self, old: SSAValue, new: SSAValue, ll: Any = None) -> None:
        self.vals[old] = new
        typ = old.type
        if isinstance(typ, TensorType):
            ll = ll if ll is not None else _layout(typ)
            self.laid[old] = _Laid(new, _coords(ll, self.threads), ll)

    def vtype(self, typ: Attribute) -> Attribute:
        if isinstance(typ, TensorType):
            return register_vector_type(typ)
        if isinstance(typ, tl.PointerType):
            return i64
        return typ

    # ------------------------------------------------------------------ per op
    def lower_op(self, op: Operation) -> None:
        name = op.name
        tensor_io = any(isinstance(v.type, TensorType) for v in (*op.operands, *op.results))
        if name == "func.return":
            self.emit(func.ReturnOp(*[self.get(v) for v in op.operands]))
        elif name == "tl.make_range":
            self.make_range(op)  # type: ignore[arg-type]
        elif name == "tl.splat":
            typ = self.vtype(op.results[0].type)
            assert isinstance(typ, VectorType)
            src = self.get(op.operands[0])
            self.set_tensor(op.results[0], self.emit(vector.BroadcastOp(src, typ)).results[0])
        elif name in ("tl.constant", "arith.constant") and tensor_io:
            self.constant(op)
        elif name in ("tl.expand_dims", "tl.broadcast", "tl.reshape", "tl.trans"):
            self.shape_op(op)
        elif name == "tl.convert_layout":
            self.convert(op)
        elif name == "tl.addptr":
            self.addptr(op)
        elif name == "tl.load":
            self.load(op)  # type: ignore[arg-type]
        elif name == "tl.store":
            self.store(op)  # type: ignore[arg-type]
        elif name == "tl.reduce":
            self.reduce(op)  # type: ignore[arg-type]
        elif name == "tl.dot":
            self.dot(op)  # type: ignore[arg-type]
        elif name == "tl.gather":
            self.gather(op)  # type: ignore[arg-type]
        elif name == "tl.fp4_to_fp":
            self.fp4_to_fp(op)  # type: ignore[arg-type]
        elif name == "tl.local_alloc":
            self.local_alloc(op)
        elif name == "tl.local_store":
            self.local_store(op.operands[0], op.operands[1])
        elif name == "tl.local_load":
            self.local_load(op)
        elif name == "tl.local_dealloc":
            pass
        elif name == "tl.memdesc_index":
            lower_async_copy.lower_memdesc_index(self, op)
        elif name == "tl.async_copy_global_to_local":
            lower_async_copy.lower_async_copy_global_to_local(self, op)  # type: ignore[arg-type]
        elif name == "tl.async_commit_group":
            lower_async_copy.lower_async_commit_group(self, op)
        elif name == "tl.async_wait":
            lower_async_copy.lower_async_wait(self, op)  # type: ignore[arg-type]
        elif name == "scf.for":
            self.scf_for(op)  # type: ignore[arg-type]
        elif name == "scf.if":
            self.scf_if(op)  # type: ignore[arg-type]
        elif name == "scf.while":
            self.scf_while(op)  # type: ignore[arg-type]
        elif name == "scf.condition":
            cond, *rest = (self.get(v) for v in op.operands)
            self.emit(scf.ConditionOp(cond, *rest))
        elif name == "scf.yield":
            self.emit(scf.YieldOp(*[self.get(v) for v in op.operands]))
        elif name in _TL_CASTS and (tensor_io or name.startswith("tl.")):
            self.cast(op, _TL_CASTS[name])
        elif name in ("tl.cmpi", "tl.cmpf"):
            a, b = (self.get(v) for v in op.operands)
            pred = op.predicate.data  # type: ignore[attr-defined]
            self.set_result(op, self.emit(simt.CompareOp(pred, a, b)).results[0])
        elif name == "tl.select":
            c, a, b = (self.get(v) for v in op.operands)
            sel = (
                simt.SelectOp(c, a, b)
                if isinstance(c.type, VectorType)
                else arith.SelectOp(c, a, b)
            )
            self.set_result(op, self.emit(sel).results[0])
        elif name == "arith.select" and isinstance(self.vtype(op.operands[0].type), VectorType):
            c, a, b = (self.get(v) for v in op.operands)
            self.set_result(op, self.emit(simt.SelectOp(c, a, b)).results[0])
        elif name.startswith(("arith.", "math.")) or name in (
            "tl.get_program_id",
            "tl.get_num_programs",
        ):
            self.generic(op)
        else:
            raise LayoutError(f"'{name}' has no SIMT lowering")

    def set_result(self, op: Operation, res: SSAValue) -> None:
        if isinstance(op.results[0].type, TensorType):
            self.set_tensor(op.results[0], res)
        else:
            self.vals[op.results[0]] = res

    def generic(self, op: Operation) -> None:
        """An elementwise op (or a scalar op) on the lowered operands."""
        if op.regions:
            raise LayoutError(f"'{op.name}' with regions has no SIMT lowering")
        operands = [self.get(v) for v in op.operands]
        new = type(op).create(
            operands=operands,
            result_types=[self.vtype(r.type) for r in op.results],
            properties=dict(op.properties),
            attributes=dict(op.attributes),
        )
        self.emit(new)
        for old, res in zip(op.results, new.results, strict=True):
            if isinstance(old.type, TensorType):
                self.set_tensor(old, res)
            else:
                self.vals[old] = res

    def cast(self, op: Operation, kind: str) -> None:
        src = self.get(op.operands[0])
        rt = self.vtype(op.results[0].type)
        if not isinstance(rt, VectorType):  # a scalar cast stays an arith op
            cls = {
                "extsi": arith.ExtSIOp,
                "extui": arith.ExtUIOp,
                "trunci": arith.TruncIOp,
                "sitofp": arith.SIToFPOp,
                "uitofp": arith.UIToFPOp,
                "fptosi": arith.FPToSIOp,
                "fptoui": arith.FPToUIOp,
                "bitcast": arith.BitcastOp,
            }[kind]
            self.vals[op.results[0]] = self.emit(cls(src, rt)).results[0]
            return
        self.set_tensor(op.results[0], self.emit(simt.CastOp(kind, src, rt)).results[0])

    def make_range(self, op: tl.MakeRangeOp) -> None:
        typ = op.result.type
        ll = _layout(typ)
        vt = register_vector_type(typ)
        regs = ll.get_in_dim_size("register")
        coords = _coords(ll, self.threads)
        start = op.start.value.data
        reg_part = [int(c) + start for c in coords[0, :, 0] ^ coords[0, 0, 0]]
        columns = self.thread_columns(ll, 0)
        thread = self.thread_linear(columns)
        value = self.const_vec(vt, reg_part)
        if thread is not None:
            t32 = self.emit(arith.IndexCastOp(thread, i32)).results[0]
            tv = self.emit(vector.BroadcastOp(t32, vt)).results[0]
            if start:
                base = self.const_vec(vt, [int(c) for c in coords[0, :, 0]])
                x = self.emit(arith.XOrIOp(tv, base)).results[0]
                value = self.emit(arith.AddiOp(x, self.const_vec(vt, [start] * regs))).results[0]
            else:
                value = self.emit(arith.XOrIOp(tv, value)).results[0]
        self.set_tensor(op.result, value, ll)

    def thread_columns(self, ll: Any, dim: int) -> list[int]:
        """The basis of every thread bit (lanes, then warps) on output ``dim``."""
        cols = []
        for in_dim in ("lane", "warp"):
            if not ll.has_in_dim(in_dim):
                continue
            for pos in range(ll.get_in_dim_size_log2(in_dim)):
                cols.append(int(ll.basis(in_dim, pos)[dim]))
        return cols

    def constant(self, op: Operation) -> None:
        typ = op.results[0].type
        assert isinstance(typ, TensorType)
        vt = register_vector_type(typ)
        attr = op.properties.get("value")
        if attr is None:  # not `or`: an IntegerAttr of 0 is falsy
            attr = op.attributes.get("value")
        if isinstance(attr, DenseIntOrFPElementsAttr):
            values = np.asarray(attr.get_values())
            flat = values.reshape(-1)
            nan_ok = flat.dtype.kind == "f"  # a NaN splat is uniform too
            if values.size == 1 or np.array_equal(flat, np.full_like(flat, flat[0]), nan_ok):
                scalar = values.flat[0]
            else:
                raise LayoutError("a non-uniform tensor constant has no SIMT lowering")
        elif isinstance(attr, FloatAttr | IntegerAttr):
            scalar = attr.value.data
        else:
            raise LayoutError(f"unsupported constant {attr}")
        n = vt.get_shape()[0]
        val = scalar.item() if hasattr(scalar, "item") else scalar
        self.set_tensor(op.results[0], self.const_vec(vt, [val] * n))

    # ------------------------------------------------------------------ register renamings
    def remap(self, src: _Laid, dst_coords: np.ndarray, sizes: list[int], dst_ll: Any) -> SSAValue:
        mask = _renaming(src.coords, dst_coords, sizes)
        if mask is None:
            raise LayoutError("this shape op moves data between threads")
        return self.shuffle(src.value, src.value, mask)

    def shape_op(self, op: Operation) -> None:
        src_v, res = op.operands[0], op.results[0]
        src = self.laid[src_v]
        st, rt = src_v.type, res.type
        assert isinstance(st, TensorType) and isinstance(rt, TensorType)
        dst_ll = _layout(rt)
        dst = _coords(dst_ll, self.threads)
        sshape = [1 << (int(s) - 1).bit_length() for s in st.get_shape()]
        rshape = [1 << (int(s) - 1).bit_length() for s in rt.get_shape()]
        if op.name == "tl.expand_dims":
            axis = op.axis.value.data  # type: ignore[attr-defined]
            need = np.delete(dst, axis, axis=-1)
        elif op.name == "tl.broadcast":
            need = dst.copy()
            for d, s in enumerate(sshape):
                if s == 1:
                    need[..., d] = 0
        elif op.name == "tl.trans":
            order = list(op.order.get_values())  # type: ignore[attr-defined]
            need = np.empty_like(dst)
            for i, o in enumerate(order):
                need[..., o] = dst[..., i]
        else:  # reshape: row-major flat index
            flat = np.zeros(dst.shape[:-1], dtype=np.int64)
            for d, s in enumerate(rshape):
                flat = flat * s + dst[..., d]
            need = np.empty((*dst.shape[:-1], len(sshape)), dtype=np.int64)
            for d in range(len(sshape) - 1, -1, -1):
                need[..., d] = flat % sshape[d]
                flat //= sshape[d]
        value = self.remap(src, need, sshape, dst_ll)
        self.set_tensor(res, value, dst_ll)

    def convert(self, op: Operation) -> None:
        src_v, res = op.operands[0], op.results[0]
        src = self.laid[src_v]
        rt = res.type
        assert isinstance(rt, TensorType)
        dst_ll = _layout(rt)
        dst = _coords(dst_ll, self.threads)
        sizes = [1 << (int(s) - 1).bit_length() for s in rt.get_shape()]
        mask = _renaming(src.coords, dst, sizes)
        if mask is not None:
            self.set_tensor(res, self.shuffle(src.value, src.value, mask), dst_ll)
            return
        from llc.lowering import plan_conversion

        strategies: list[str] = []

        def build(bitwidth: int) -> SimtProgram:
            cc = self.compute_capability
            plan = plan_conversion(src.ll, dst_ll, bitwidth, compute_capability=cc)
            strategies.append(plan.strategy)
            return plan.program

        out = self.run_program(build, src.value)
        if strategies[-1] == "shared":
            # the buffer's next use (the next iteration) waits for these loads;
            # prune_barriers drops this barrier where no next use follows
            self.emit(gpu.BarrierOp())
        self.set_tensor(res, out, dst_ll)

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
        other types the program cannot name (pointers' ``i64`` addresses aside) as ``iN``."""
        from llc.cost import dtype_bitwidth
        from llc.passes.lower_conversions import element_type_for, materialize

        vt = value.type
        assert isinstance(vt, VectorType)
        elem = vt.element_type
        is_mask = elem == i1
        if is_mask:
            value = self._widen_mask(value)
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
            out = self._narrow_mask(out)
        return out

    def _widen_mask(self, value: SSAValue) -> SSAValue:
        """An ``i1`` register vector as ``i8`` 0/1 bytes (shuffles and shared memory move bytes)."""
        n = value.type.get_shape()[0]  # type: ignore[attr-defined]
        return self.emit(simt.CastOp("extui", value, VectorType(i8, [n]))).results[0]

    def _narrow_mask(self, value: SSAValue) -> SSAValue:
        """The ``i8`` 0/1 bytes of :meth:`_widen_mask` back to ``i1``."""
        n = value.type.get_shape()[0]  # type: ignore[attr-defined]
        return self.emit(simt.CastOp("trunci", value, VectorType(i1, [n]))).results[0]

    # ------------------------------------------------------------------ gather
    def gather(self, op: tl.GatherOp) -> None:
        """``tl.gather`` by the plan of :func:`llc.gather.plan_gather`: ``shfl.sync.idx`` rounds
        when the axis stays in a warp, else a shared-memory buffer of the source (its own
        allocation, so it never aliases another shared use; a trailing barrier keeps a next
        iteration's stores behind this one's loads, where :func:`prune_barriers` finds one)."""
        from llc.gather import GatherPlan, gather_program, plan_gather

        src, idx = self.laid[op.src], self.laid[op.indices]
        rt = op.result.type
        assert isinstance(rt, TensorType)
        for value in (op.src, op.indices):
            if any(s & (s - 1) for s in tl.shape_of(value.type)):
                raise LayoutError("gather needs power-of-two shapes")
        axis = op.axis.value.data
        indices = idx.value
        it = indices.type
        assert isinstance(it, VectorType)
        i_elem = it.element_type
        assert isinstance(i_elem, IntegerType)
        i32_vec = VectorType(i32, [it.get_shape()[0]])
        if i_elem.width.data > 32:
            indices = self.emit(simt.CastOp("trunci", indices, i32_vec)).results[0]
        elif i_elem.width.data < 32:
            indices = self.emit(simt.CastOp("extsi", indices, i32_vec)).results[0]
        plans: list[GatherPlan] = []

        def build(bitwidth: int) -> SimtProgram:
            plans.append(plan_gather(src.ll, idx.ll, axis, bitwidth))
            return gather_program(plans[0], src.ll, idx.ll)

        out = self.run_program(build, src.value, (indices,))
        if plans[0].strategy == "shared":  # as in convert: prune_barriers drops it when not needed
            self.emit(gpu.BarrierOp())
        self.set_tensor(op.result, out, _layout(rt))

    # ------------------------------------------------------------------ MXFP
    def fp4_to_fp(self, op: tl.Fp4ToFpOp) -> None:
        """``tl.fp4_to_fp`` in registers: byte ``r`` becomes registers ``2r`` (low nibble) and
        ``2r + 1`` (high nibble), the unpacked layout's lowest register bit (the verifier holds
        the result to :func:`llc.mxfp.unpacked_layout`), then each e2m1 code becomes the result
        type's bits: ``s.ee.m`` with ``ee > 0`` is ``(ee.m << (M - 1)) + ((bias - 1) << M)``,
        ``0.1`` is ``(bias - 1) << M`` (0.5), ``0.0`` is 0, the sign goes to the top bit."""
        rt = op.result.type
        assert isinstance(rt, TensorType)
        out_t = register_vector_type(rt)
        elem = out_t.element_type
        fmt = {32: (23, 127), 16: (7, 127) if "bf16" in str(elem) else (10, 15)}
        width = simt.bit_width(elem)
        if width not in fmt:
            raise LayoutError(f"fp4_to_fp to {elem} (f32, f16 or bf16 only)")
        mant, bias = fmt[width]
        packed = self.get(op.src)
        n = packed.type.get_shape()[0]  # type: ignore[attr-defined]
        if out_t.get_shape()[0] != 2 * n:
            raise LayoutError("the result layout is not the unpacked layout of the operand's")
        words = VectorType(i32, [n])
        x = self.emit(simt.CastOp("extui", packed, words)).results[0]
        lo = self.emit(arith.AndIOp(x, self.const_vec(words, [15] * n))).results[0]
        hi = self.emit(arith.ShRUIOp(x, self.const_vec(words, [4] * n))).results[0]
        codes = self.shuffle(lo, hi, [k for r in range(n) for k in (r, n + r)])
        m = 2 * n
        wide = VectorType(i32, [m])

        def splat(v: int) -> SSAValue:
            return self.const_vec(wide, [v] * m)

        mag = self.emit(arith.AndIOp(codes, splat(7))).results[0]
        half = (bias - 1) << mant
        shifted = self.emit(arith.ShLIOp(mag, splat(mant - 1))).results[0]
        normal = self.emit(arith.AddiOp(shifted, splat(half))).results[0]
        small = self.emit(arith.MuliOp(mag, splat(half))).results[0]
        is_small = self.emit(simt.CompareOp("ult", mag, splat(2))).results[0]
        bits = self.emit(simt.SelectOp(is_small, small, normal)).results[0]
        sign = self.emit(arith.AndIOp(codes, splat(8))).results[0]
        sign = self.emit(arith.ShLIOp(sign, splat(width - 4))).results[0]
        bits = self.emit(arith.OrIOp(bits, sign)).results[0]
        if width != 32:
            bits = self.emit(simt.CastOp("trunci", bits, VectorType(IntegerType(width), [m])))
            bits = bits.results[0]
        value = self.emit(simt.CastOp("bitcast", bits, out_t)).results[0]
        self.set_tensor(op.result, value)

    # ------------------------------------------------------------------ pointers and memory
    def addptr(self, op: Operation) -> None:
        ptr, off = (self.get(v) for v in op.operands)
        elem = tl.element_type_of(op.results[0].type)
        assert isinstance(elem, tl.PointerType)
        size = max(1, simt.bit_width(elem.pointee) // 8) if hasattr(elem, "pointee") else 4
        rt = self.vtype(op.results[0].type)
        if isinstance(rt, VectorType):
            n = rt.get_shape()[0]
            ot = off.type
            assert isinstance(ot, VectorType)
            if ot.element_type != i64:
                off = self.emit(simt.CastOp("extsi", off, VectorType(i64, [n]))).results[0]
            if size != 1:
                off = self.emit(arith.MuliOp(off, self.const_vec(rt, [size] * n))).results[0]
            res = self.emit(arith.AddiOp(ptr, off)).results[0]
            self.set_tensor(op.results[0], res)
        else:
            if off.type != i64:
                off = self.emit(arith.ExtSIOp(off, i64)).results[0]
            if size != 1:
                off = self.emit(arith.MuliOp(off, self.const_scalar(i64, size))).results[0]
            self.vals[op.results[0]] = self.emit(arith.AddiOp(ptr, off)).results[0]

    def _mask_constancy(self, v: SSAValue, dim: int) -> int:
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
            a, b = (self._mask_constancy(x, dim) for x in owner.operands)
            return max(base, min(a, b))
        if name == "tl.broadcast":
            src = owner.operands[0]
            if (tl.shape_of(src.type) or (1,))[dim] == 1:
                return shape[dim]
            return max(base, self._mask_constancy(src, dim))
        if name == "tl.expand_dims":
            axis = owner.axis.value.data  # type: ignore[attr-defined]
            if dim == axis:
                return 1 if shape[dim] > 1 else shape[dim]
            return max(base, self._mask_constancy(owner.operands[0], dim - (dim > axis)))
        if name == "tl.convert_layout":
            return max(base, self._mask_constancy(owner.operands[0], dim))
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

    def _access_plan(self, ptr: SSAValue, mask: SSAValue | None, itemsize: int) -> int:
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
            width = min(width, _pow2_floor(self._mask_constancy(mask, dim)))
        return max(1, width)

    def _group_mask(self, mask: SSAValue | None, base: int, thread_ok: SSAValue | None) -> SSAValue:
        m = self.extract(self.get(mask), base) if mask is not None else None
        if thread_ok is not None:
            m = thread_ok if m is None else self.emit(arith.AndIOp(m, thread_ok)).results[0]
        return m if m is not None else self.const_scalar(i1, 1)

    def load(self, op: tl.LoadOp) -> None:
        rt = op.result.type
        assert isinstance(rt, TensorType)
        vt = register_vector_type(rt)
        elem = vt.element_type
        itemsize = simt.bit_width(elem) // 8
        regs = vt.get_shape()[0]
        width = self._access_plan(op.ptr, op.mask, itemsize)
        addrs = self.get(op.ptr)
        other = self.get(op.other) if op.other is not None else None
        gt = VectorType(elem, [width])
        parts = []
        for base in range(0, regs, width):
            a = self.extract(addrs, base)
            m = self._group_mask(op.mask, base, None)
            if other is not None:
                o = self.shuffle(other, other, list(range(base, base + width)))
            else:
                zero = 0.0 if not isinstance(elem, IntegerType) else 0
                o = self.const_vec(gt, [zero] * width)
            parts.append(self.emit(simt.GlobalLoadOp(a, m, o)).results[0])
        self.set_tensor(op.result, self.concat(parts))

    def store(self, op: tl.StoreOp) -> None:
        laid = self.laid[op.ptr]
        vt = self.get(op.value).type
        assert isinstance(vt, VectorType)
        elem = vt.element_type
        itemsize = simt.bit_width(elem) // 8
        regs = vt.get_shape()[0]
        width = self._access_plan(op.ptr, op.mask, itemsize)
        ll = laid.ll
        # Broadcast register bits: store the copy with those bits clear; broadcast thread
        # bits: only threads with them clear store.
        dup_regs = 0
        for pos in range(ll.get_in_dim_size_log2("register")):
            if not any(int(x) for x in ll.basis("register", pos)):
                dup_regs |= 1 << pos
        dup_threads = 0
        bit = 0
        for in_dim in ("lane", "warp"):
            if not ll.has_in_dim(in_dim):
                continue
            for pos in range(ll.get_in_dim_size_log2(in_dim)):
                if not any(int(x) for x in ll.basis(in_dim, pos)):
                    dup_threads |= 1 << bit
                bit += 1
        thread_ok = None
        if dup_threads:
            assert self.tid is not None
            x = self.emit(arith.AndIOp(self.tid, self.const_index(dup_threads))).results[0]
            thread_ok = self.emit(arith.CmpiOp(x, self.const_index(0), "eq")).results[0]
        addrs = self.get(op.ptr)
        value = self.get(op.value)
        for base in range(0, regs, width):
            if base & dup_regs:
                continue
            a = self.extract(addrs, base)
            m = self._group_mask(op.mask, base, thread_ok)
            v = self.shuffle(value, value, list(range(base, base + width)))
            self.emit(simt.GlobalStoreOp(v, a, m))

    # ------------------------------------------------------------------ shared memory
    def _shared_offsets(self, mem: SSAValue, laid: _Laid) -> tuple[list[int], list[int]]:
        """Element offset in the shared buffer of every register (thread 0) and of every thread
        bit: ``offset(t, r) = reg[r] xor XOR_b bit_b(t) * thread[b]`` (the shared layout's
        inverse after the distributed one, linear over F2; checked)."""
        mt = mem.type
        assert isinstance(mt, tl.MemDescType)
        shape = [1 << (int(x) - 1).bit_length() for x in mt.get_shape()]
        sll = mt.encoding.to_linear_layout(shape)  # type: ignore[union-attr]
        outs = sll.apply_all()
        scoords = np.stack([np.asarray(outs[n]).astype(np.int64) for n, _ in sll.out_dims], -1)
        keys = _keys(scoords, shape)
        table = np.full(int(np.prod(shape)), -1, dtype=np.int64)
        table[keys] = np.arange(keys.size)
        off = table[_keys(laid.coords, shape)]  # (threads, R)
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

    def _shared_access(
        self, mem: SSAValue, laid: _Laid, elem: Attribute, store: SSAValue | None
    ) -> list[SSAValue]:
        """Store ``store`` (the registers of ``laid``) to, or load ``laid``'s registers from,
        the shared buffer ``mem``, as wide as consecutive offsets allow (128 bits at most)."""
        item = simt.bit_width(elem) // 8
        reg, thread = self._shared_offsets(mem, laid)
        regs = len(reg)
        width = 1
        while (
            width < regs
            and width * 2 * item <= 16
            and all(
                reg[b + i] == reg[b] + i
                for b in range(0, regs, width * 2)
                for i in range(width * 2)
            )
            and all(reg[b] % (width * 2) == 0 for b in range(0, regs, width * 2))
            and all(c % (width * 2) == 0 for c in thread)
        ):
            width *= 2
        tpart = self.thread_linear(thread)
        smem = self.get(mem)
        parts = []
        for base in range(0, regs, width):
            off = tpart
            if reg[base]:
                c = self.const_index(reg[base])
                off = c if off is None else self.emit(arith.XOrIOp(off, c)).results[0]
            if off is None:
                off = self.const_index(0)
            addr = self.emit(arith.MuliOp(off, self.const_index(item))).results[0]
            if mem in self.smem_base:
                addr = self.emit(arith.AddiOp(addr, self.smem_base[mem])).results[0]
            if store is not None:
                v = self.shuffle(store, store, list(range(base, base + width)))
                self.emit(simt.SharedStoreOp(v, smem, addr))
            else:
                vt = VectorType(elem, [width])
                parts.append(self.emit(simt.SharedLoadOp(smem, addr, vt)).results[0])
        return parts

    def local_alloc(self, op: Operation) -> None:
        mt = op.results[0].type
        assert isinstance(mt, tl.MemDescType)
        elem = mt.element_type
        item = simt.bit_width(elem) // 8
        count = int(np.prod([1 << (int(x) - 1).bit_length() for x in mt.get_shape()]))
        if any(u.operation.name == "tl.memdesc_index" for u in op.results[0].uses):
            # a ring of buffers: exactly as many as the leading dim says
            count = int(mt.get_shape()[0]) * lower_async_copy.slot_bytes(mt) // item
        smem = self.emit(simt.SharedAllocOp(max(16, count * item), 16)).results[0]
        self.vals[op.results[0]] = smem
        if op.operands:
            self.local_store(op.operands[0], op.results[0])

    def local_store(self, src: SSAValue, mem: SSAValue) -> None:
        laid = self.laid[src]
        elem = laid.value.type.element_type  # type: ignore[attr-defined]
        self.emit(gpu.BarrierOp())  # earlier readers of the buffer are done
        self._shared_access(mem, laid, elem, laid.value)
        self.emit(gpu.BarrierOp())

    def local_load(self, op: Operation) -> None:
        res = op.results[0]
        rt = res.type
        assert isinstance(rt, TensorType)
        ll = _layout(rt)
        vt = register_vector_type(rt)
        target = _Laid(self.get(op.operands[0]), _coords(ll, self.threads), ll)
        parts = self._shared_access(op.operands[0], target, vt.element_type, None)
        self.set_tensor(res, self.concat(parts), ll)

    # ------------------------------------------------------------------ reduce
    def _combine(self, op: tl.ReduceOp, lhs: list[SSAValue], rhs: list[SSAValue]) -> list[SSAValue]:
        block = op.combine.block
        width = lhs[0].type.get_shape()[0]  # type: ignore[attr-defined]
        local: dict[SSAValue, SSAValue] = dict(zip(block.args, [*lhs, *rhs], strict=True))
        for inner in block.ops:
            if inner.name == "tl.reduce.return":
                return [local[v] for v in inner.operands]
            if inner.name == "arith.constant":
                vt = VectorType(inner.results[0].type, [width])
                attr = inner.value  # type: ignore[attr-defined]
                local[inner.results[0]] = self.const_vec(vt, [attr.value.data] * width)
                continue
            if inner.regions:
                raise LayoutError(f"'{inner.name}' in a reduce region has no SIMT lowering")
            operands = [local[v] for v in inner.operands]
            if inner.name in ("arith.cmpf", "arith.cmpi"):
                table = tl.CMPF_PREDICATES if inner.name == "arith.cmpf" else tl.CMPI_PREDICATES
                pred = table[inner.predicate.value.data]  # type: ignore[attr-defined]
                cmp = self.emit(simt.CompareOp(pred, operands[0], operands[1]))
                local[inner.results[0]] = cmp.results[0]
                continue
            if inner.name == "arith.select":
                sel = self.emit(simt.SelectOp(*operands))
                local[inner.results[0]] = sel.results[0]
                continue
            rts = [VectorType(r.type, [width]) for r in inner.results]
            new = type(inner).create(
                operands=operands,
                result_types=rts,
                properties=dict(inner.properties),
                attributes=dict(inner.attributes),
            )
            self.emit(new)
            local.update(zip(inner.results, new.results, strict=True))
        raise LayoutError("reduce region without tl.reduce.return")

    def _ordered_combine(
        self, op: tl.ReduceOp, own: list[SSAValue], other: list[SSAValue], thread_bit: int
    ) -> list[SSAValue]:
        """combine(lower, upper), the thread whose ``thread_bit`` is set holding the upper
        element; commutative single-op regions skip the selects."""
        body = [o.name for o in op.combine.block.ops]
        if len(body) == 2 and body[0] in _COMMUTATIVE:
            return self._combine(op, own, other)
        assert self.tid is not None
        bit = self.emit(arith.AndIOp(self.tid, self.const_index(1 << thread_bit))).results[0]
        upper = self.emit(arith.CmpiOp(bit, self.const_index(0), "ne")).results[0]
        lo = [
            self.emit(arith.SelectOp(upper, b, a)).results[0]
            for a, b in zip(own, other, strict=True)
        ]
        hi = [
            self.emit(arith.SelectOp(upper, a, b)).results[0]
            for a, b in zip(own, other, strict=True)
        ]
        return self._combine(op, lo, hi)

    def reduce(self, op: tl.ReduceOp) -> None:
        axis = op.axis.value.data
        srcs = [self.laid[v] for v in op.srcs]
        ll = srcs[0].ll
        st = op.srcs[0].type
        assert isinstance(st, TensorType)
        rank = len(st.get_shape())
        size = 1 << (int(st.get_shape()[axis]) - 1).bit_length()
        values = [s.value for s in srcs]
        regs = list(range(ll.get_in_dim_size("register")))
        lane_bits = ll.get_in_dim_size_log2("lane")
        for k in range(size.bit_length() - 1):
            want = [0] * rank
            want[axis] = 1 << k
            where = None
            for in_dim in ("register", "lane", "warp"):
                if not ll.has_in_dim(in_dim):
                    continue
                for pos in range(ll.get_in_dim_size_log2(in_dim)):
                    basis = [int(x) for x in ll.basis(in_dim, pos)]
                    if basis == want:
                        where = (in_dim, pos)
                        break
                    if basis[axis] & (1 << k):
                        raise LayoutError(
                            f"the layout mixes bit {k} of the reduced dim with other dims "
                            f"({in_dim} {pos} -> {basis})"
                        )
                if where:
                    break
            if where is None:
                raise LayoutError(f"no hardware bit holds bit {k} of the reduced dim")
            in_dim, pos = where
            if in_dim == "register":
                lo = [i for i, r in enumerate(regs) if not (r >> pos) & 1]
                hi = [regs.index(regs[i] | (1 << pos)) for i in lo]
                a = [self.shuffle(v, v, lo) for v in values]
                b = [self.shuffle(v, v, hi) for v in values]
                values = self._combine(op, a, b)
                regs = [regs[i] for i in lo]
            else:
                tbit = pos if in_dim == "lane" else lane_bits + pos
                if in_dim == "lane":
                    other = [self._xor_shuffle(v, 1 << pos) for v in values]
                else:
                    other = [self._warp_exchange(v, 1 << tbit) for v in values]
                values = self._ordered_combine(op, values, other, tbit)
        coords = np.delete(srcs[0].coords[:, regs, :], axis, axis=-1)
        for res, v in zip(op.results, values, strict=True):
            rt = res.type
            if isinstance(rt, TensorType):
                dst_ll = _layout(rt)
                dst = _coords(dst_ll, self.threads)
                sizes = [1 << (int(s) - 1).bit_length() for s in rt.get_shape()]
                mask = _renaming(coords, dst, sizes)
                if mask is None:
                    raise LayoutError("the reduced values do not sit where the slice layout says")
                self.set_tensor(res, self.shuffle(v, v, mask), dst_ll)
            else:
                self.vals[res] = self.extract(v, 0)

    def _xor_shuffle(self, v: SSAValue, lane_mask: int) -> SSAValue:
        """The registers of lane ``lane ^ lane_mask``: ``shfl.sync.bfly`` by the one shuffle
        emitter (:meth:`llc.lowering.SimtProgram.shuffle`: narrow elements packed into 32-bit
        words, 64-bit ones as two halves)."""
        n = v.type.get_shape()[0]  # type: ignore[attr-defined]

        def build(bitwidth: int) -> SimtProgram:
            p = SimtProgram(n, bitwidth)
            p.output = p.shuffle("bfly", 0, p.const(lane_mask), self.lanes - 1)
            return p

        return self.run_program(build, v)

    def _warp_exchange(self, v: SSAValue, thread_mask: int) -> SSAValue:
        """The registers of thread ``tid ^ thread_mask`` (another warp) via shared memory
        (:func:`llc.lowering.exchange_program`)."""
        from llc.lowering import exchange_program

        n = v.type.get_shape()[0]  # type: ignore[attr-defined]
        return self.run_program(
            lambda bits: exchange_program(n, bits, self.threads, thread_mask), v
        )

    # ------------------------------------------------------------------ dot
    def dot(self, op: tl.DotOp) -> None:
        from llc.dialects.layout_attrs import AMDMfmaEncodingAttr, NvidiaMmaEncodingAttr

        rt = op.result.type
        assert isinstance(rt, TensorType)
        enc = rt.encoding
        if isinstance(enc, NvidiaMmaEncodingAttr):
            self.dot_mma(op)
            return
        if isinstance(enc, AMDMfmaEncodingAttr):
            raise LayoutError("mfma dot layouts have no SIMT lowering (llc-compile picks FMA)")
        acc = self.laid[op.acc]
        a, b = self.laid[op.a], self.laid[op.b]
        at = op.a.type
        assert isinstance(at, TensorType)
        kdim = int(at.get_shape()[1])
        rt_ll = _layout(rt)
        dst = _coords(rt_ll, self.threads)
        R = dst.shape[1]
        acc_v = self.remap(acc, dst, [int(s) for s in rt.get_shape()], rt_ll)
        ashape = [int(s) for s in at.get_shape()]
        bshape = [int(s) for s in op.b.type.get_shape()]  # type: ignore[attr-defined]
        elem = register_vector_type(rt).element_type
        vt = VectorType(elem, [R])
        for k in range(kdim):
            need_a = np.stack([dst[..., 0], np.full_like(dst[..., 0], k)], axis=-1)
            need_b = np.stack([np.full_like(dst[..., 1], k), dst[..., 1]], axis=-1)
            ma = _renaming(a.coords, need_a, ashape)
            mb = _renaming(b.coords, need_b, bshape)
            if ma is None or mb is None:
                raise LayoutError(
                    "an FMA dot needs each thread to hold its rows of A and columns of B"
                )
            av = self.shuffle(a.value, a.value, ma)
            bv = self.shuffle(b.value, b.value, mb)
            # Mixed precision: the integer operand becomes the float operand's type first.
            a_elem = av.type.element_type  # type: ignore[attr-defined]
            b_elem = bv.type.element_type  # type: ignore[attr-defined]
            f_elem = b_elem if isinstance(a_elem, IntegerType) else a_elem
            av, bv = self._as_float(av, f_elem), self._as_float(bv, f_elem)
            if av.type.element_type != elem:  # type: ignore[attr-defined]
                av = self.emit(simt.CastOp("extf", av, vt)).results[0]
                bv = self.emit(simt.CastOp("extf", bv, vt)).results[0]
            acc_v = self.emit(math.FmaOp(av, bv, acc_v)).results[0]
        self.set_tensor(op.result, acc_v, rt_ll)

    def _as_float(self, value: SSAValue, elem: Attribute) -> SSAValue:
        """``value`` unchanged if it is a float vector, else ``sitofp`` to ``vector<n x elem>``."""
        vt = value.type
        assert isinstance(vt, VectorType)
        if not isinstance(vt.element_type, IntegerType):
            return value
        target = VectorType(elem, list(vt.get_shape()))
        return self.emit(simt.CastOp("sitofp", value, target)).results[0]

    def _mma_operand(self, value: SSAValue, f_elem: Attribute, mma_elem: Attribute) -> SSAValue:
        """An mma fragment: integers converted to the dot's float type, then 8-bit floats
        widened (exactly) to the mma's f16."""
        value = self._as_float(value, f_elem)
        vt = value.type
        assert isinstance(vt, VectorType)
        if vt.element_type == mma_elem:
            return value
        target = VectorType(mma_elem, list(vt.get_shape()))
        return self.emit(simt.CastOp("extf", value, target)).results[0]

    def dot_mma(self, op: tl.DotOp) -> None:
        """``mma.sync.m16n8k16``: every 16x8 accumulator tile a warp owns, K in steps of 16.

        The fragments are gathered from the operands' registers by coordinates (the PTX fragment
        layout of :func:`llc.dialects.simt_kernel_interpreter.mma_fragment_coords`); a layout
        whose registers do not sit where the fragments need them is an error."""
        from llc.dialects.simt_kernel_interpreter import mma_fragment_coords

        rt = op.result.type
        at, bt = op.a.type, op.b.type
        assert isinstance(rt, TensorType) and isinstance(at, TensorType)
        assert isinstance(bt, TensorType)
        enc = rt.encoding
        if getattr(enc.layout, "version_major", 2) != 2:  # type: ignore[union-attr]
            raise LayoutError("only mma v2 lowers to SIMT code (llc-compile picks it)")
        a_elem = register_vector_type(at).element_type
        b_elem = register_vector_type(bt).element_type
        # Mixed precision: the integer operand is converted to the float one's type in registers,
        # after its fragment is gathered from its own dot-operand layout; 8-bit floats are then
        # widened to f16 (exact), so the mma runs on f16.
        f_elem = b_elem if isinstance(a_elem, IntegerType) else a_elem
        mma_elem = Float16Type() if _is_f8(f_elem) else f_elem
        if (
            self.lanes != 32
            or isinstance(f_elem, IntegerType)
            or simt.bit_width(mma_elem) != 16
            or (_is_f8(a_elem) and _is_f8(b_elem) and a_elem != b_elem)
        ):
            raise LayoutError("mma.sync m16n8k16 takes f16/bf16 operands in warps of 32 lanes")
        if simt.bit_width(register_vector_type(rt).element_type) != 32:
            raise LayoutError("mma.sync m16n8k16 accumulates in f32 here")
        acc = self.laid[op.acc]
        a, b = self.laid[op.a], self.laid[op.b]
        rt_ll = _layout(rt)
        dst = _coords(rt_ll, self.threads)
        shape = [int(x) for x in rt.get_shape()]
        acc_v = self.remap(acc, dst, shape, rt_ll)
        kdim = int(at.get_shape()[1])
        if kdim % 16:
            raise LayoutError(f"K = {kdim} is not a multiple of 16")
        ra, ca, rb, cb, rc, cc = mma_fragment_coords()
        lane = np.arange(self.threads) % 32
        R = dst.shape[1]
        tile = (dst[..., 0] // 16) * (shape[1] // 8) + dst[..., 1] // 8  # (threads, R)
        within = (dst[..., 0] % 16, dst[..., 1] % 8)
        # register r of thread t holds c_j of its tile: the j whose PTX coordinate it is
        j_of = np.full((self.threads, R), -1)
        for j in range(4):
            hit = (rc[lane, j][:, None] == within[0]) & (cc[lane, j][:, None] == within[1])
            j_of[hit] = j
        if (j_of < 0).any():
            raise LayoutError("the accumulator layout is not the mma m16n8 fragment layout")
        groups: list[list[int]] = []
        seen: dict[int, int] = {}
        for r in range(R):
            t0 = int(tile[0, r])
            if t0 not in seen:
                seen[t0] = len(groups)
                groups.append([-1] * 4)
            groups[seen[t0]][int(j_of[0, r])] = r
        for g in groups:
            if -1 in g or not all(
                (tile[:, x] == tile[:, g[0]]).all() and (j_of[:, x] == j).all()
                for j, x in enumerate(g)
            ):
                raise LayoutError("accumulator registers do not form whole mma tiles per thread")
        ashape = [int(x) for x in at.get_shape()]
        bshape = [int(x) for x in bt.get_shape()]
        k_of = mma_k_order(a.coords, ra, ca, kdim)
        outs = []
        for g in groups:
            m0 = (dst[:, g[0], 0] // 16 * 16)[:, None]
            n0 = (dst[:, g[0], 1] // 8 * 8)[:, None]
            frag = self.shuffle(acc_v, acc_v, g)
            for k0 in range(0, kdim, 16):
                need_a = np.stack([m0 + ra[lane], k_of[k0 + ca[lane]]], -1)
                need_b = np.stack([k_of[k0 + rb[lane]], n0 + cb[lane]], -1)
                ma = _renaming(a.coords, need_a, ashape)
                mb = _renaming(b.coords, need_b, bshape)
                if ma is None or mb is None:
                    raise LayoutError(
                        "the dot operands' registers are not the mma fragments (one mma needs "
                        "both operands in the same K order: dot_op layouts of equal kWidth)"
                    )
                av = self._mma_operand(self.shuffle(a.value, a.value, ma), f_elem, mma_elem)
                bv = self._mma_operand(self.shuffle(b.value, b.value, mb), f_elem, mma_elem)
                frag = self.emit(simt.MmaOp(av, bv, frag)).results[0]
            outs.append(frag)
        order = [r for g in groups for r in g]
        joined = self.concat(outs)
        inverse = [order.index(r) for r in range(R)]
        self.set_tensor(op.result, self.shuffle(joined, joined, inverse), rt_ll)

    # ------------------------------------------------------------------ control flow
    def scf_for(self, op: scf.ForOp) -> None:
        lb, ub, step = (self.get(v) for v in (op.lb, op.ub, op.step))
        inits = [self.get(v) for v in op.iter_args]
        body = op.body.block
        new_body = Block(arg_types=[self.vtype(a.type) for a in body.args])
        outer = self.block
        self.block = new_body
        for old_arg, new_arg in zip(body.args, new_body.args, strict=True):
            if isinstance(old_arg.type, TensorType):
                self.set_tensor(old_arg, new_arg)
            else:
                self.vals[old_arg] = new_arg
        self.lower_ops(list(body.ops))
        self.block = outer
        new = self.emit(scf.ForOp(lb, ub, step, inits, Region(new_body)))
        for old, res in zip(op.results, new.results, strict=True):
            if isinstance(old.type, TensorType):
                self.set_tensor(old, res)
            else:
                self.vals[old] = res

    def _lower_block(self, block: Block) -> Block:
        new = Block(arg_types=[self.vtype(a.type) for a in block.args])
        outer = self.block
        self.block = new
        for old_arg, new_arg in zip(block.args, new.args, strict=True):
            if isinstance(old_arg.type, TensorType):
                self.set_tensor(old_arg, new_arg)
            else:
                self.vals[old_arg] = new_arg
        self.lower_ops(list(block.ops))
        self.block = outer
        return new

    def scf_while(self, op: scf.WhileOp) -> None:
        inits = [self.get(v) for v in op.arguments]
        before = self._lower_block(op.before_region.block)
        after = self._lower_block(op.after_region.block)
        rts = [self.vtype(r.type) for r in op.results]
        new = self.emit(scf.WhileOp(inits, rts, Region(before), Region(after)))
        for old, res in zip(op.results, new.results, strict=True):
            if isinstance(old.type, TensorType):
                self.set_tensor(old, res)
            else:
                self.vals[old] = res

    def scf_if(self, op: scf.IfOp) -> None:
        cond = self.get(op.cond)
        outer = self.block
        regions = []
        for region in (op.true_region, op.false_region):
            if not region.blocks:
                regions.append(Region())
                continue
            blk = Block()
            self.block = blk
            self.lower_ops(list(region.block.ops))
            regions.append(Region(blk))
        self.block = outer
        rts = [self.vtype(r.type) for r in op.results]
        new = self.emit(scf.IfOp(cond, rts, regions[0], regions[1]))
        for old, res in zip(op.results, new.results, strict=True):
            if isinstance(old.type, TensorType):
                self.set_tensor(old, res)
            else:
                self.vals[old] = res


def lower_module(module: ModuleOp) -> None:
    """Lower every function of ``module`` that uses tensors (in place), for the target of its
    ``tl.target`` (``cuda:90`` when it has none)."""
    from llc.passes.lower_conversions import module_capability

    capability = module_capability(module)
    attrs = module.attributes
    warps = attrs.get("tl.num-warps")
    lanes = attrs.get("tl.threads-per-warp")
    num_warps = warps.value.data if isinstance(warps, IntegerAttr) else 4
    tpw = lanes.value.data if isinstance(lanes, IntegerAttr) else 32
    for fn in [o for o in module.body.block.ops if isinstance(o, func.FuncOp)]:
        if "llc.src" in fn.attributes or not fn.body.blocks:
            continue
        _FunctionLowering(fn, num_warps, tpw, capability).run()
        prune_barriers(fn)
        fn.attributes["llc.num_warps"] = IntegerAttr(num_warps, 32)
        fn.attributes["llc.threads_per_warp"] = IntegerAttr(tpw, 32)


@dataclass(frozen=True)
class LowerToSimtPass(ModulePass):
    """``-p llc-lower-to-simt``."""

    name = "llc-lower-to-simt"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from llc.passes.compile import check_lowerable

        check_lowerable(op)  # element types and signatures no layout can lower
        lower_module(op)


def registers_per_thread(fn: func.FuncOp) -> int:
    """Peak 32-bit registers live at once in ``fn`` (straight-line liveness over its ops in
    order; a value lives from its definition to its last use, values used inside a loop body live
    through the loop).

    >>> registers_per_thread(func.FuncOp("f", ([], [])))
    0
    """
    order: dict[Operation, int] = {}
    ops = list(fn.walk())
    for i, o in enumerate(ops):
        order[o] = i
    last: dict[SSAValue, int] = {}
    words: dict[SSAValue, int] = {}
    start: dict[SSAValue, int] = {}
    for i, o in enumerate(ops):
        for r in o.results:
            t = r.type
            if isinstance(t, VectorType | IntegerType | IndexType) or hasattr(t, "bitwidth"):
                try:
                    bits = simt.bit_width(t)
                except Exception:
                    continue
                words[r] = max(1, -(-bits // 32))
                start[r] = i
        for v in o.operands:
            user = o
            # a use inside a loop of a value defined outside it keeps it live through the loop
            definer = v.owner if isinstance(v.owner, Operation) else v.owner.parent_op()  # type: ignore[union-attr]
            parent = user.parent_op()
            while parent is not None and parent is not fn:
                if isinstance(parent, scf.ForOp) and not (
                    definer is not None and parent.is_ancestor(definer)
                ):
                    user = parent
                parent = parent.parent_op()
            end = order[user] + (len(list(user.walk())) if user is not o else 0)
            last[v] = max(last.get(v, 0), end)
    live = np.zeros(len(ops) + 1, dtype=np.int64)
    for v, w in words.items():
        live[start[v] : last.get(v, start[v]) + 1] += w
    return int(live.max(initial=0))
