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
  rows of A and columns of B its accumulator needs; ``#tl.nvidia_mma`` v2 through ``mma.sync``
  (:mod:`llc.passes.lower_mma`: 16-bit floats to f32 or f16, i8 to i32, batched); other layouts
  are a located error;
* **atomics**, **histogram**, **cat**, **inline asm**, **libdevice calls**, **float
  conversions** (``tl.fp_to_fp``), **device assert and print**: modules of their own
  (:mod:`llc.passes.lower_atomics`, ``lower_histogram``, ``lower_cat``, ``lower_inline_asm``,
  ``lower_extern``, ``lower_fp_to_fp``, ``lower_debug_ops``);
* ``scf.for`` / ``scf.if`` / ``scf.while`` carry the per-thread vectors.

Module attributes ``tl.num-warps`` / ``tl.threads-per-warp`` give the CTA.

Each op (or op family) has its own lowering function ``lower_<op>(lowering, op)`` written against
the helper API of :class:`llc.passes.simt_lowering.FunctionLowering`; :data:`PATTERNS` makes each a
rewrite pattern (:func:`llc.passes.simt_lowering.pattern_for`), in the order they are tried, and
:func:`llc.passes.simt_lowering.lower_function` applies them with xDSL's
``PatternRewriteWalker``. A new lowering, in its own module, is one line in :data:`PATTERNS`::

    pattern_for("tl.scan", lower_scan),
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, func, gpu, math, scf, vector
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
    VectorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass

from llc.dialects import simt, tl
from llc.errors import LayoutError
from llc.lowering import SimtProgram
from llc.passes import (
    lower_async_copy,
    lower_atomics,
    lower_cat,
    lower_debug_ops,
    lower_elementwise,
    lower_extern,
    lower_fp_to_fp,
    lower_histogram,
    lower_inline_asm,
    lower_join_split,
    lower_ldmatrix,
    lower_mma,
    lower_scalar_memory,
    lower_scan,
    lower_wgmma,
)
from llc.passes.barriers import prune_async_fences, prune_barriers
from llc.passes.shared_alloc import allocate_shared
from llc.passes.simt_lowering import (
    FunctionLowering,
    Laid,
    LowerOp,
    lower_function,
    pattern_for,
    register_renaming,
    register_vector_type,
    tensor_layout,
    thread_coords,
)

__all__ = ["PATTERNS", "LowerToSimtPass", "lower_module", "register_vector_type"]

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


# ---------------------------------------------------------------------- values and elementwise ops
def lower_return(lowering: FunctionLowering, op: Operation) -> None:
    """``func.return`` of the lowered values."""
    lowering.emit(func.ReturnOp(*[lowering.get(v) for v in op.operands]))


def lower_splat(lowering: FunctionLowering, op: Operation) -> None:
    """``tl.splat``: the scalar broadcast to every register."""
    typ = lowering.vtype(op.results[0].type)
    assert isinstance(typ, VectorType)
    src = lowering.get(op.operands[0])
    lowering.set_tensor(op.results[0], lowering.emit(vector.BroadcastOp(src, typ)).results[0])


def lower_make_range(lowering: FunctionLowering, op: tl.MakeRangeOp) -> None:
    """``tl.make_range``: register ``r`` of thread ``t`` holds ``L(r, 0) xor L(0, t)`` (+ start)."""
    typ = op.result.type
    ll = tensor_layout(typ)
    vt = register_vector_type(typ)
    regs = ll.get_in_dim_size("register")
    coords = thread_coords(ll, lowering.threads)
    start = op.start.value.data
    reg_part = [int(c) + start for c in coords[0, :, 0] ^ coords[0, 0, 0]]
    columns = lowering.thread_columns(ll, 0)
    thread = lowering.thread_linear(columns)
    value = lowering.const_vec(vt, reg_part)
    if thread is not None:
        t32 = lowering.emit(arith.IndexCastOp(thread, i32)).results[0]
        tv = lowering.emit(vector.BroadcastOp(t32, vt)).results[0]
        if start:
            base = lowering.const_vec(vt, [int(c) for c in coords[0, :, 0]])
            x = lowering.emit(arith.XOrIOp(tv, base)).results[0]
            value = lowering.emit(arith.AddiOp(x, lowering.const_vec(vt, [start] * regs))).results[
                0
            ]
        else:
            value = lowering.emit(arith.XOrIOp(tv, value)).results[0]
    lowering.set_tensor(op.result, value, ll)


def lower_constant(lowering: FunctionLowering, op: Operation) -> None:
    """A uniform tensor constant: a constant vector (non-uniform ones are an error)."""
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
    lowering.set_tensor(op.results[0], lowering.const_vec(vt, [val] * n))


def lower_generic(lowering: FunctionLowering, op: Operation) -> None:
    """An elementwise op (or a scalar op) on the lowered operands."""
    if op.regions:
        raise LayoutError(f"'{op.name}' with regions has no SIMT lowering")
    operands = [lowering.get(v) for v in op.operands]
    new = type(op).create(
        operands=operands,
        result_types=[lowering.vtype(r.type) for r in op.results],
        properties=dict(op.properties),
        attributes=dict(op.attributes),
    )
    lowering.emit(new)
    for old, res in zip(op.results, new.results, strict=True):
        if isinstance(old.type, TensorType):
            lowering.set_tensor(old, res)
        else:
            lowering.vals[old] = res


def cast_op(lowering: FunctionLowering, op: Operation, kind: str) -> None:
    """A cast of kind ``kind`` (``extsi``, ..., ``bitcast``): ``simt.cast`` on vectors, ``arith``
    on scalars."""
    src = lowering.get(op.operands[0])
    rt = lowering.vtype(op.results[0].type)
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
        lowering.vals[op.results[0]] = lowering.emit(cls(src, rt)).results[0]
        return
    lowering.set_tensor(op.results[0], lowering.emit(simt.CastOp(kind, src, rt)).results[0])


def lower_cast(lowering: FunctionLowering, op: Operation) -> None:
    """The casts of :data:`_TL_CASTS` (``tl.*`` always, ``arith.*`` on tensors)."""
    cast_op(lowering, op, _TL_CASTS[op.name])


def lower_compare(lowering: FunctionLowering, op: Operation) -> None:
    """``tl.cmpi`` / ``tl.cmpf``: ``simt.compare`` with the same predicate."""
    a, b = (lowering.get(v) for v in op.operands)
    pred = op.predicate.data  # type: ignore[attr-defined]
    if not isinstance(a.type, VectorType):  # scalars (a loop bound loaded by a scalar load)
        cls = arith.CmpiOp if op.name == "tl.cmpi" else arith.CmpfOp
        lowering.set_result(op, lowering.emit(cls(a, b, pred)).results[0])
        return
    lowering.set_result(op, lowering.emit(simt.CompareOp(pred, a, b)).results[0])


def lower_select(lowering: FunctionLowering, op: Operation) -> None:
    """``tl.select`` (a scalar condition stays ``arith.select``) and a vector ``arith.select``."""
    c, a, b = (lowering.get(v) for v in op.operands)
    sel = simt.SelectOp(c, a, b) if isinstance(c.type, VectorType) else arith.SelectOp(c, a, b)
    lowering.set_result(op, lowering.emit(sel).results[0])


def _tensor_io(lowering: FunctionLowering, op: Operation) -> bool:
    return any(isinstance(v.type, TensorType) for v in (*op.operands, *op.results))


def _lowered_cast(lowering: FunctionLowering, op: Operation) -> bool:
    return op.name.startswith("tl.") or _tensor_io(lowering, op)


def _vector_select(lowering: FunctionLowering, op: Operation) -> bool:
    return isinstance(lowering.vtype(op.operands[0].type), VectorType)


# ---------------------------------------------------------------------- shape ops and conversions
def lower_shape_op(lowering: FunctionLowering, op: Operation) -> None:
    """``expand_dims``, ``broadcast``, ``trans``, ``reshape``: a register renaming (the elements
    must stay in their threads)."""
    src_v, res = op.operands[0], op.results[0]
    src = lowering.laid[src_v]
    st, rt = src_v.type, res.type
    assert isinstance(st, TensorType) and isinstance(rt, TensorType)
    dst_ll = tensor_layout(rt)
    dst = thread_coords(dst_ll, lowering.threads)
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
    value = lowering.remap(src, need, sshape, dst_ll)
    lowering.set_tensor(res, value, dst_ll)


def lower_convert(lowering: FunctionLowering, op: Operation) -> None:
    """``tl.convert_layout``: a register renaming when elements stay in their threads, else the
    program of :func:`llc.lowering.plan_conversion` (shuffles or shared memory)."""
    src_v, res = op.operands[0], op.results[0]
    src = lowering.laid[src_v]
    rt = res.type
    assert isinstance(rt, TensorType)
    dst_ll = tensor_layout(rt)
    dst = thread_coords(dst_ll, lowering.threads)
    sizes = [1 << (int(s) - 1).bit_length() for s in rt.get_shape()]
    mask = register_renaming(src.coords, dst, sizes)
    if mask is not None:
        lowering.set_tensor(res, lowering.shuffle(src.value, src.value, mask), dst_ll)
        return
    from llc.lowering import plan_conversion

    strategies: list[str] = []

    def build(bitwidth: int) -> SimtProgram:
        cc = lowering.compute_capability
        plan = plan_conversion(src.ll, dst_ll, bitwidth, compute_capability=cc)
        strategies.append(plan.strategy)
        return plan.program

    out = lowering.run_program(build, src.value)
    if strategies[-1] == "shared":
        # the buffer's next use (the next iteration) waits for these loads;
        # prune_barriers drops this barrier where no next use follows
        lowering.emit(gpu.BarrierOp())
    lowering.set_tensor(res, out, dst_ll)


def lower_gather(lowering: FunctionLowering, op: tl.GatherOp) -> None:
    """``tl.gather`` by the plan of :func:`llc.gather.plan_gather`: ``shfl.sync.idx`` rounds
    when the axis stays in a warp, else a shared-memory buffer of the source (its own
    allocation, so it never aliases another shared use; a trailing barrier keeps a next
    iteration's stores behind this one's loads, where :func:`prune_barriers` finds one)."""
    from llc.gather import GatherPlan, gather_program, plan_gather

    src, idx = lowering.laid[op.src], lowering.laid[op.indices]
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
        indices = lowering.emit(simt.CastOp("trunci", indices, i32_vec)).results[0]
    elif i_elem.width.data < 32:
        indices = lowering.emit(simt.CastOp("extsi", indices, i32_vec)).results[0]
    plans: list[GatherPlan] = []

    def build(bitwidth: int) -> SimtProgram:
        plans.append(plan_gather(src.ll, idx.ll, axis, bitwidth))
        return gather_program(plans[0], src.ll, idx.ll)

    out = lowering.run_program(build, src.value, (indices,))
    if plans[0].strategy == "shared":  # as in convert: prune_barriers drops it when not needed
        lowering.emit(gpu.BarrierOp())
    lowering.set_tensor(op.result, out, tensor_layout(rt))


def lower_fp4_to_fp(lowering: FunctionLowering, op: tl.Fp4ToFpOp) -> None:
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
    packed = lowering.get(op.src)
    n = packed.type.get_shape()[0]  # type: ignore[attr-defined]
    if out_t.get_shape()[0] != 2 * n:
        raise LayoutError("the result layout is not the unpacked layout of the operand's")
    words = VectorType(i32, [n])
    x = lowering.emit(simt.CastOp("extui", packed, words)).results[0]
    lo = lowering.emit(arith.AndIOp(x, lowering.const_vec(words, [15] * n))).results[0]
    hi = lowering.emit(arith.ShRUIOp(x, lowering.const_vec(words, [4] * n))).results[0]
    codes = lowering.shuffle(lo, hi, [k for r in range(n) for k in (r, n + r)])
    m = 2 * n
    wide = VectorType(i32, [m])

    def splat(v: int) -> SSAValue:
        return lowering.const_vec(wide, [v] * m)

    mag = lowering.emit(arith.AndIOp(codes, splat(7))).results[0]
    half = (bias - 1) << mant
    shifted = lowering.emit(arith.ShLIOp(mag, splat(mant - 1))).results[0]
    normal = lowering.emit(arith.AddiOp(shifted, splat(half))).results[0]
    small = lowering.emit(arith.MuliOp(mag, splat(half))).results[0]
    is_small = lowering.emit(simt.CompareOp("ult", mag, splat(2))).results[0]
    bits = lowering.emit(simt.SelectOp(is_small, small, normal)).results[0]
    sign = lowering.emit(arith.AndIOp(codes, splat(8))).results[0]
    sign = lowering.emit(arith.ShLIOp(sign, splat(width - 4))).results[0]
    bits = lowering.emit(arith.OrIOp(bits, sign)).results[0]
    if width != 32:
        bits = lowering.emit(simt.CastOp("trunci", bits, VectorType(IntegerType(width), [m])))
        bits = bits.results[0]
    value = lowering.emit(simt.CastOp("bitcast", bits, out_t)).results[0]
    lowering.set_tensor(op.result, value)


# ---------------------------------------------------------------------- pointers and memory
def lower_addptr(lowering: FunctionLowering, op: Operation) -> None:
    """``tl.addptr``: byte addresses plus offsets times the pointee size."""
    ptr, off = (lowering.get(v) for v in op.operands)
    elem = tl.element_type_of(op.results[0].type)
    assert isinstance(elem, tl.PointerType)
    size = max(1, simt.bit_width(elem.pointee) // 8) if hasattr(elem, "pointee") else 4
    rt = lowering.vtype(op.results[0].type)
    if isinstance(rt, VectorType):
        n = rt.get_shape()[0]
        ot = off.type
        assert isinstance(ot, VectorType)
        if ot.element_type != i64:
            off = lowering.emit(simt.CastOp("extsi", off, VectorType(i64, [n]))).results[0]
        if size != 1:
            off = lowering.emit(arith.MuliOp(off, lowering.const_vec(rt, [size] * n))).results[0]
        res = lowering.emit(arith.AddiOp(ptr, off)).results[0]
        lowering.set_tensor(op.results[0], res)
    else:
        if off.type != i64:
            off = lowering.emit(arith.ExtSIOp(off, i64)).results[0]
        if size != 1:
            off = lowering.emit(arith.MuliOp(off, lowering.const_scalar(i64, size))).results[0]
        lowering.vals[op.results[0]] = lowering.emit(arith.AddiOp(ptr, off)).results[0]


def lower_load(lowering: FunctionLowering, op: tl.LoadOp) -> None:
    """``tl.load``: one ``simt.global_load`` per group of registers
    :meth:`~llc.passes.simt_lowering.FunctionLowering.access_plan` allows."""
    rt = op.result.type
    if not isinstance(rt, TensorType):
        lower_scalar_memory.lower_scalar_load(lowering, op)
        return
    vt = register_vector_type(rt)
    elem = vt.element_type
    itemsize = simt.bit_width(elem) // 8
    regs = vt.get_shape()[0]
    width = lowering.access_plan(op.ptr, op.mask, itemsize)
    addrs = lowering.get(op.ptr)
    other = lowering.get(op.other) if op.other is not None else None
    gt = VectorType(elem, [width])
    parts = []
    for base in range(0, regs, width):
        a = lowering.extract(addrs, base)
        m = lowering.group_mask(op.mask, base, None)
        if other is not None:
            o = lowering.shuffle(other, other, list(range(base, base + width)))
        else:
            zero = 0.0 if not isinstance(elem, IntegerType) else 0
            o = lowering.const_vec(gt, [zero] * width)
        parts.append(lowering.emit(simt.GlobalLoadOp(a, m, o)).results[0])
    lowering.set_tensor(op.result, lowering.concat(parts))


def lower_store(lowering: FunctionLowering, op: tl.StoreOp) -> None:
    """``tl.store``: one ``simt.global_store`` per group; broadcast registers and threads store
    once."""
    if not isinstance(op.ptr.type, TensorType):
        lower_scalar_memory.lower_scalar_store(lowering, op)
        return
    laid = lowering.laid[op.ptr]
    vt = lowering.get(op.value).type
    assert isinstance(vt, VectorType)
    elem = vt.element_type
    itemsize = simt.bit_width(elem) // 8
    regs = vt.get_shape()[0]
    width = lowering.access_plan(op.ptr, op.mask, itemsize)
    ll = laid.ll
    # Broadcast register bits: store the copy with those bits clear; broadcast thread
    # bits: only threads with them clear store.
    dup_regs, dup_threads = lower_atomics.broadcast_bits(ll)
    thread_ok = None
    if dup_threads:
        assert lowering.tid is not None
        x = lowering.emit(arith.AndIOp(lowering.tid, lowering.const_index(dup_threads))).results[0]
        thread_ok = lowering.emit(arith.CmpiOp(x, lowering.const_index(0), "eq")).results[0]
    addrs = lowering.get(op.ptr)
    value = lowering.get(op.value)
    for base in range(0, regs, width):
        if base & dup_regs:
            continue
        a = lowering.extract(addrs, base)
        m = lowering.group_mask(op.mask, base, thread_ok)
        v = lowering.shuffle(value, value, list(range(base, base + width)))
        lowering.emit(simt.GlobalStoreOp(v, a, m))


# ---------------------------------------------------------------------- shared memory
def lower_local_alloc(lowering: FunctionLowering, op: Operation) -> None:
    """``tl.local_alloc``: a ``simt.shared_alloc`` of the buffer (and the store of its value)."""
    mt = op.results[0].type
    assert isinstance(mt, tl.MemDescType)
    elem = mt.element_type
    item = simt.bit_width(elem) // 8
    count = int(np.prod([1 << (int(x) - 1).bit_length() for x in mt.get_shape()]))
    if any(u.operation.name == "tl.memdesc_index" for u in op.results[0].uses):
        # a ring of buffers: exactly as many as the leading dim says
        count = int(mt.get_shape()[0]) * lower_async_copy.slot_bytes(mt) // item
    align = lower_wgmma.shared_alignment(mt)  # a swizzle period for wgmma operands
    smem = lowering.emit(simt.SharedAllocOp(max(16, count * item), align)).results[0]
    lowering.vals[op.results[0]] = smem
    if op.operands:
        local_store(lowering, op.operands[0], op.results[0])


def local_store(lowering: FunctionLowering, src: SSAValue, mem: SSAValue) -> None:
    """Store the tensor ``src`` into the shared buffer ``mem``, between barriers."""
    laid = lowering.laid[src]
    elem = laid.value.type.element_type  # type: ignore[attr-defined]
    lowering.emit(gpu.BarrierOp())  # earlier readers of the buffer are done
    lowering.shared_access(mem, laid, elem, laid.value)
    lowering.emit(gpu.BarrierOp())


def lower_local_store(lowering: FunctionLowering, op: Operation) -> None:
    """``tl.local_store``: see :func:`local_store`."""
    local_store(lowering, op.operands[0], op.operands[1])


def lower_local_dealloc(lowering: FunctionLowering, op: Operation) -> None:
    """Nothing: a buffer lives as long as the kernel (``simt.shared_alloc`` is static)."""


def lower_local_load(lowering: FunctionLowering, op: Operation) -> None:
    """``tl.local_load``: the registers of the result layout, from the shared buffer (with
    ``ldmatrix`` where it fits and pays: :mod:`llc.passes.lower_ldmatrix`)."""
    if lower_ldmatrix.lower_local_load_ldmatrix(lowering, op):
        return
    res = op.results[0]
    rt = res.type
    assert isinstance(rt, TensorType)
    ll = tensor_layout(rt)
    vt = register_vector_type(rt)
    target = Laid(lowering.get(op.operands[0]), thread_coords(ll, lowering.threads), ll)
    parts = lowering.shared_access(op.operands[0], target, vt.element_type, None)
    lower_async_copy.mark_own_copies(op, parts)
    lowering.set_tensor(res, lowering.concat(parts), ll)


# ---------------------------------------------------------------------- reduce
def combine_region(
    lowering: FunctionLowering, op: tl.ReduceOp, lhs: list[SSAValue], rhs: list[SSAValue]
) -> list[SSAValue]:
    """The combine region of a ``tl.reduce`` or ``tl.scan`` on register vectors: ``lhs`` are
    the earlier values, ``rhs`` the later ones (the region need not commute)."""
    what = "reduce region" if isinstance(op, tl.ReduceOp) else "scan region"
    return lower_elementwise.vectorize_region(lowering, op.combine.block, [*lhs, *rhs], what)


def _ordered_combine(
    lowering, op: tl.ReduceOp, own: list[SSAValue], other: list[SSAValue], thread_bit: int
) -> list[SSAValue]:
    """combine(lower, upper), the thread whose ``thread_bit`` is set holding the upper
    element; commutative single-op regions skip the selects."""
    body = [o.name for o in op.combine.block.ops]
    if len(body) == 2 and body[0] in _COMMUTATIVE:
        return combine_region(lowering, op, own, other)
    assert lowering.tid is not None
    bit = lowering.emit(arith.AndIOp(lowering.tid, lowering.const_index(1 << thread_bit))).results[
        0
    ]
    upper = lowering.emit(arith.CmpiOp(bit, lowering.const_index(0), "ne")).results[0]
    lo = [
        lowering.emit(arith.SelectOp(upper, b, a)).results[0]
        for a, b in zip(own, other, strict=True)
    ]
    hi = [
        lowering.emit(arith.SelectOp(upper, a, b)).results[0]
        for a, b in zip(own, other, strict=True)
    ]
    return combine_region(lowering, op, lo, hi)


def lower_reduce(lowering: FunctionLowering, op: tl.ReduceOp) -> None:
    """``tl.reduce``: along each bit of the axis, lowest first: register bits combine halves of
    the vector, lane bits a butterfly shuffle, warp bits a shared-memory exchange."""
    axis = op.axis.value.data
    srcs = [lowering.laid[v] for v in op.srcs]
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
            a = [lowering.shuffle(v, v, lo) for v in values]
            b = [lowering.shuffle(v, v, hi) for v in values]
            values = combine_region(lowering, op, a, b)
            regs = [regs[i] for i in lo]
        else:
            tbit = pos if in_dim == "lane" else lane_bits + pos
            if in_dim == "lane":
                other = [xor_shuffle(lowering, v, 1 << pos) for v in values]
            else:
                other = [warp_exchange(lowering, v, 1 << tbit) for v in values]
            values = _ordered_combine(lowering, op, values, other, tbit)
    coords = np.delete(srcs[0].coords[:, regs, :], axis, axis=-1)
    for res, v in zip(op.results, values, strict=True):
        rt = res.type
        if isinstance(rt, TensorType):
            dst_ll = tensor_layout(rt)
            dst = thread_coords(dst_ll, lowering.threads)
            sizes = [1 << (int(s) - 1).bit_length() for s in rt.get_shape()]
            mask = register_renaming(coords, dst, sizes)
            if mask is None:
                raise LayoutError("the reduced values do not sit where the slice layout says")
            lowering.set_tensor(res, lowering.shuffle(v, v, mask), dst_ll)
        else:
            lowering.vals[res] = lowering.extract(v, 0)


def xor_shuffle(lowering: FunctionLowering, v: SSAValue, lane_mask: int) -> SSAValue:
    """The registers of lane ``lane ^ lane_mask``: ``shfl.sync.bfly`` by the one shuffle
    emitter (:meth:`llc.lowering.SimtProgram.shuffle`: narrow elements packed into 32-bit
    words, 64-bit ones as two halves)."""
    n = v.type.get_shape()[0]  # type: ignore[attr-defined]

    def build(bitwidth: int) -> SimtProgram:
        p = SimtProgram(n, bitwidth)
        p.output = p.shuffle("bfly", 0, p.const(lane_mask), lowering.lanes - 1)
        return p

    return lowering.run_program(build, v)


def warp_exchange(lowering: FunctionLowering, v: SSAValue, thread_mask: int) -> SSAValue:
    """The registers of thread ``tid ^ thread_mask`` (another warp) via shared memory
    (:func:`llc.lowering.exchange_program`)."""
    from llc.lowering import exchange_program

    n = v.type.get_shape()[0]  # type: ignore[attr-defined]
    return lowering.run_program(
        lambda bits: exchange_program(n, bits, lowering.threads, thread_mask), v
    )


# ---------------------------------------------------------------------- dot
def lower_dot(lowering: FunctionLowering, op: tl.DotOp) -> None:
    """``tl.dot``: ``mma.sync`` for ``#tl.nvidia_mma`` results (:func:`lower_dot_mma`), else
    one ``math.fma`` per k on the accumulator registers."""
    from llc.dialects.layout_attrs import AMDMfmaEncodingAttr, NvidiaMmaEncodingAttr

    rt = op.result.type
    assert isinstance(rt, TensorType)
    enc = rt.encoding
    if isinstance(enc, NvidiaMmaEncodingAttr):
        lower_dot_mma(lowering, op)
        return
    if isinstance(enc, AMDMfmaEncodingAttr):
        raise LayoutError("mfma dot layouts have no SIMT lowering (llc-compile picks FMA)")
    acc = lowering.laid[op.acc]
    a, b = lowering.laid[op.a], lowering.laid[op.b]
    at = op.a.type
    assert isinstance(at, TensorType)
    kdim = int(at.get_shape()[1])
    rt_ll = tensor_layout(rt)
    dst = thread_coords(rt_ll, lowering.threads)
    R = dst.shape[1]
    acc_v = lowering.remap(acc, dst, [int(s) for s in rt.get_shape()], rt_ll)
    ashape = [int(s) for s in at.get_shape()]
    bshape = [int(s) for s in op.b.type.get_shape()]  # type: ignore[attr-defined]
    elem = register_vector_type(rt).element_type
    vt = VectorType(elem, [R])
    for k in range(kdim):
        need_a = np.stack([dst[..., 0], np.full_like(dst[..., 0], k)], axis=-1)
        need_b = np.stack([np.full_like(dst[..., 1], k), dst[..., 1]], axis=-1)
        ma = register_renaming(a.coords, need_a, ashape)
        mb = register_renaming(b.coords, need_b, bshape)
        if ma is None or mb is None:
            raise LayoutError("an FMA dot needs each thread to hold its rows of A and columns of B")
        av = lowering.shuffle(a.value, a.value, ma)
        bv = lowering.shuffle(b.value, b.value, mb)
        # Mixed precision: the integer operand becomes the float operand's type first.
        a_elem = av.type.element_type  # type: ignore[attr-defined]
        b_elem = bv.type.element_type  # type: ignore[attr-defined]
        f_elem = b_elem if isinstance(a_elem, IntegerType) else a_elem
        av, bv = as_float(lowering, av, f_elem), as_float(lowering, bv, f_elem)
        if av.type.element_type != elem:  # type: ignore[attr-defined]
            av = lowering.emit(simt.CastOp("extf", av, vt)).results[0]
            bv = lowering.emit(simt.CastOp("extf", bv, vt)).results[0]
        acc_v = lowering.emit(math.FmaOp(av, bv, acc_v)).results[0]
    lowering.set_tensor(op.result, acc_v, rt_ll)


def as_float(lowering: FunctionLowering, value: SSAValue, elem: Attribute) -> SSAValue:
    """``value`` unchanged if it is a float vector, else ``sitofp`` to ``vector<n x elem>``."""
    vt = value.type
    assert isinstance(vt, VectorType)
    if not isinstance(vt.element_type, IntegerType):
        return value
    target = VectorType(elem, list(vt.get_shape()))
    return lowering.emit(simt.CastOp("sitofp", value, target)).results[0]


lower_dot_mma = lower_mma.lower_dot_mma  # mma.sync (llc.passes.lower_mma)


# ---------------------------------------------------------------------- control flow
def lower_scf_for(lowering: FunctionLowering, op: scf.ForOp) -> None:
    """``scf.for`` over the lowered iter args: the body block's arguments become vectors."""
    lb, ub, step = (lowering.get(v) for v in (op.lb, op.ub, op.step))
    inits = [lowering.get(v) for v in op.iter_args]
    new = scf.ForOp(lb, ub, step, inits, lowering.lower_region(op.body))
    lowering.region_op(new)
    lowering.set_results(op.results, new.results)


def lower_scf_while(lowering: FunctionLowering, op: scf.WhileOp) -> None:
    """``scf.while``: both regions' block arguments become the lowered types."""
    inits = [lowering.get(v) for v in op.arguments]
    before = lowering.lower_region(op.before_region)
    after = lowering.lower_region(op.after_region)
    rts = [lowering.vtype(r.type) for r in op.results]
    new = lowering.region_op(scf.WhileOp(inits, rts, before, after))
    lowering.set_results(op.results, new.results)


def lower_scf_if(lowering: FunctionLowering, op: scf.IfOp) -> None:
    """``scf.if`` with the lowered results (its regions have no arguments)."""
    cond = lowering.get(op.cond)
    then = lowering.lower_region(op.true_region)
    otherwise = lowering.lower_region(op.false_region)
    rts = [lowering.vtype(r.type) for r in op.results]
    new = lowering.region_op(scf.IfOp(cond, rts, then, otherwise))
    lowering.set_results(op.results, new.results)


def lower_condition(lowering: FunctionLowering, op: Operation) -> None:
    """``scf.condition`` of the lowered values."""
    cond, *rest = (lowering.get(v) for v in op.operands)
    lowering.emit(scf.ConditionOp(cond, *rest))


def lower_yield(lowering: FunctionLowering, op: Operation) -> None:
    """``scf.yield`` of the lowered values."""
    lowering.emit(scf.YieldOp(*[lowering.get(v) for v in op.operands]))


# ---------------------------------------------------------------------- the patterns
PATTERNS: tuple[LowerOp, ...] = (
    pattern_for("func.return", lower_return),
    pattern_for("tl.make_range", lower_make_range),
    pattern_for("tl.splat", lower_splat),
    pattern_for(("tl.constant", "arith.constant"), lower_constant, when=_tensor_io),
    pattern_for(("tl.expand_dims", "tl.broadcast", "tl.reshape", "tl.trans"), lower_shape_op),
    pattern_for("tl.convert_layout", lower_convert),
    pattern_for("tl.addptr", lower_addptr),
    pattern_for("tl.load", lower_load),
    pattern_for("tl.store", lower_store),
    pattern_for(("tl.atomic_rmw", "tl.atomic_cas"), lower_atomics.lower_atomic),
    pattern_for("tl.reduce", lower_reduce),
    pattern_for("tl.dot", lower_dot),
    pattern_for("tl.gather", lower_gather),
    pattern_for("tl.scan", lower_scan.lower_scan),
    pattern_for("tl.cat", lower_cat.lower_cat),
    pattern_for("tl.histogram", lower_histogram.lower_histogram),
    pattern_for("tl.join", lower_join_split.lower_join),
    pattern_for("tl.split", lower_join_split.lower_split),
    pattern_for("tl.fp4_to_fp", lower_fp4_to_fp),
    pattern_for("tl.fp_to_fp", lower_fp_to_fp.lower_fp_to_fp),
    pattern_for("tl.assert", lower_debug_ops.lower_assert),
    pattern_for("tl.print", lower_debug_ops.lower_print),
    pattern_for("tl.local_alloc", lower_local_alloc),
    pattern_for("tl.local_store", lower_local_store),
    pattern_for("tl.local_load", lower_local_load),
    pattern_for("tl.local_dealloc", lower_local_dealloc),
    pattern_for("tl.memdesc_index", lower_async_copy.lower_memdesc_index),
    pattern_for("tl.memdesc_trans", lower_async_copy.lower_memdesc_trans),
    pattern_for("tl.async_copy_global_to_local", lower_async_copy.lower_async_copy_global_to_local),
    pattern_for("tl.async_commit_group", lower_async_copy.lower_async_commit_group),
    pattern_for("tl.async_wait", lower_async_copy.lower_async_wait),
    pattern_for("tl.warp_group_dot", lower_wgmma.lower_warp_group_dot),
    pattern_for("tl.warp_group_dot_wait", lower_wgmma.lower_warp_group_dot_wait),
    pattern_for("tl.fence_async_shared", lower_wgmma.lower_fence_async_shared),
    pattern_for("scf.for", lower_scf_for),
    pattern_for("scf.if", lower_wgmma.lower_scf_if_products, when=lower_wgmma.if_carries_product),
    pattern_for("scf.if", lower_scf_if),
    pattern_for("scf.while", lower_scf_while),
    pattern_for("scf.condition", lower_condition),
    pattern_for("scf.yield", lower_wgmma.lower_yield_products, when=lower_wgmma.yields_products),
    pattern_for("scf.yield", lower_yield),
    pattern_for(_TL_CASTS, lower_cast, when=_lowered_cast),
    pattern_for(("tl.cmpi", "tl.cmpf"), lower_compare),
    pattern_for("tl.select", lower_select),
    pattern_for("arith.select", lower_select, when=_vector_select),
    pattern_for(tuple(lower_elementwise.VECTOR_TWINS), lower_elementwise.lower_elementwise_twin),
    pattern_for("tl.clampf", lower_elementwise.lower_clampf),
    pattern_for("tl.extern_elementwise", lower_extern.lower_extern_elementwise),
    pattern_for("tl.elementwise_inline_asm", lower_inline_asm.lower_inline_asm),
    pattern_for("tl.map_elementwise", lower_elementwise.lower_map_elementwise),
    pattern_for(
        ("tl.get_program_id", "tl.get_num_programs", "tl.mulhiui"),
        lower_generic,
        prefixes=("arith.", "math."),
    ),
)
"""The lowering of every op, tried in this order (the first that takes an op lowers it; an op
none takes is the error ``'<name>' has no SIMT lowering``). A new lowering is one line here:
``pattern_for("tl.scan", lower_scan)``."""


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
        lowering = FunctionLowering(fn, num_warps, tpw, capability)
        lower_function(lowering, PATTERNS)
        # one arena, dead buffers' bytes reused; its reuse barriers go where nothing else orders
        allocate_shared(fn, lowering.scratch)
        prune_async_fences(fn)  # before the barriers: a fence's barrier may go with it
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
