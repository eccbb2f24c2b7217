"""Lowering ``tl.atomic_rmw`` / ``tl.atomic_cas`` to SIMT code: one ``simt.atomic`` (PTX
``atom``) per element a thread owns.

A **tensor** atomic updates every element once: register ``r`` of thread ``t`` holding element
``L(r, t)`` issues one ``simt.atomic`` at its address, under the element's mask, unless the
layout broadcasts that element to it (a register bit or thread bit whose basis is zero): only the
copy with those bits clear updates memory, as ``tl.store`` stores once. The old values then go
back to the copies that did not update: a register copy reads its twin's result, a lane copy
reads it with ``shfl.sync.idx`` from the lane with the broadcast bits clear (64-bit values
as two halves). (A layout that
broadcasts over warps and uses the old values is a located error: that exchange would need shared
memory.)

A **scalar** atomic (one pointer: a spin lock's ``atomic_cas``, its ``atomic_xchg`` release) is
made by thread 0 alone; when its old value is used every thread needs it, so thread 0 writes it
to a shared word (every other thread writes its 0 to the next word), a barrier, every thread
reads the first word, a barrier (the next execution's write waits for these reads; the barrier
pass drops it when nothing follows) -- Triton's scheme.

PTX has ``atom`` on 32- and 64-bit integers and floats (``.add.f32``/``.f64``, and
``.add.noftz.f16``; ``.bf16`` from sm_90), and ``cas`` on 16 bits too: other element types are a
located error, as is ``max``/``min`` on floats (Triton's front end rewrites those into integer
atomics).

>>> from xdsl.dialects.builtin import Float16Type, IntegerType
>>> ptx_atomic_suffix("umax", IntegerType(32)), ptx_atomic_suffix("fadd", Float16Type())
('max.u32', 'add.noftz.f16')
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects import arith, gpu, vector
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    TensorType,
    VectorType,
)
from xdsl.ir import Operation, SSAValue

from llc.dialects import simt, tl
from llc.dialects.simt_atomics import ptx_atomic_suffix
from llc.errors import LayoutError
from llc.lowering import SimtProgram
from llc.passes.simt_lowering import FunctionLowering, register_vector_type

__all__ = ["broadcast_bits", "lower_atomic"]

_FLOATS = (Float16Type, BFloat16Type, Float32Type, Float64Type)


def broadcast_bits(ll: Any) -> tuple[int, int]:
    """(register bits, thread bits) along which ``ll`` repeats elements: bit ``b`` is set where
    that input bit's basis is zero (threads: lanes then warps).

    >>> from llc.layouts import BlockedLayout
    >>> broadcast_bits(BlockedLayout([1], [32], [4], [0]).to_linear_layout([64]))
    (0, 64)
    """
    dup_regs = 0
    for pos in range(ll.get_in_dim_size_log2("register")):
        if not any(int(x) for x in ll.basis("register", pos)):
            dup_regs |= 1 << pos
    dup_threads, bit = 0, 0
    for in_dim in ("lane", "warp"):
        if not ll.has_in_dim(in_dim):
            continue
        for pos in range(ll.get_in_dim_size_log2(in_dim)):
            if not any(int(x) for x in ll.basis(in_dim, pos)):
                dup_threads |= 1 << bit
            bit += 1
    return dup_regs, dup_threads


def _kind(op: Operation) -> str:
    return "cas" if isinstance(op, tl.AtomicCASOp) else op.atomic_rmw_op.data  # type: ignore[attr-defined]


def _atomic(
    lowering: FunctionLowering,
    op: Operation,
    addr: SSAValue,
    value: SSAValue,
    mask: SSAValue,
    cmp: SSAValue | None,
) -> SSAValue:
    sem, scope = op.sem.data, op.scope.data  # type: ignore[attr-defined]
    new = simt.AtomicOp(_kind(op), addr, value, mask, cmp, sem, scope)
    return lowering.emit(new).results[0]


def lower_atomic(lowering: FunctionLowering, op: Operation) -> None:
    """``tl.atomic_rmw`` / ``tl.atomic_cas`` (see the module docstring)."""
    assert isinstance(op, tl.AtomicRMWOp | tl.AtomicCASOp)
    elem = tl.element_type_of(op.val.type)
    ptx_atomic_suffix(_kind(op), elem)  # the located error before any code
    if not isinstance(op.ptr.type, TensorType):
        _lower_scalar(lowering, op)
        return
    _lower_tensor(lowering, op)


def _thread_zero(lowering: FunctionLowering) -> SSAValue:
    assert lowering.tid is not None
    zero = lowering.const_index(0)
    return lowering.emit(arith.CmpiOp(lowering.tid, zero, "eq")).results[0]


def _lower_scalar(lowering: FunctionLowering, op: Operation) -> None:
    first = _thread_zero(lowering)
    mask_v = getattr(op, "mask", None)
    if mask_v is not None:
        mask = lowering.get(mask_v)
        if isinstance(mask.type, VectorType):  # a one-element tensor mask of a scalar pointer
            mask = lowering.extract(mask, 0)
        first = lowering.emit(arith.AndIOp(mask, first)).results[0]
    cmp = lowering.get(op.cmp) if isinstance(op, tl.AtomicCASOp) else None
    old = _atomic(lowering, op, lowering.get(op.ptr), lowering.get(op.val), first, cmp)
    if not op.result.uses:
        lowering.vals[op.result] = old
        return
    # thread 0's old value to every thread, through a shared word (module docstring)
    elem = op.result.type
    one = VectorType(elem, [1])
    item = max(4, simt.bit_width(elem) // 8)
    alloc = lowering.emit(simt.SharedAllocOp(2 * item, item))
    lowering.scratch.add(alloc)
    smem = alloc.results[0]
    c0, c1 = lowering.const_index(0), lowering.const_index(item)
    offset = lowering.emit(arith.SelectOp(first, c0, c1)).results[0]
    boxed = lowering.emit(vector.BroadcastOp(old, one)).results[0]
    lowering.emit(gpu.BarrierOp())
    lowering.emit(simt.SharedStoreOp(boxed, smem, offset))
    lowering.emit(gpu.BarrierOp())
    loaded = lowering.emit(simt.SharedLoadOp(smem, lowering.const_index(0), one)).results[0]
    lowering.emit(gpu.BarrierOp())
    lowering.vals[op.result] = lowering.extract(loaded, 0)


def _lower_tensor(lowering: FunctionLowering, op: Operation) -> None:
    laid = lowering.laid[op.ptr]
    ll = laid.ll
    rt = op.result.type
    assert isinstance(rt, TensorType)
    regs = register_vector_type(rt).get_shape()[0]
    for operand in (op.val, getattr(op, "cmp", None), getattr(op, "mask", None)):
        if operand is not None and not (lowering.laid[operand].coords == laid.coords).all():
            raise LayoutError("the atomic's operands are in different layouts")
    dup_regs, dup_threads = broadcast_bits(ll)
    lane_bits = lowering.lanes.bit_length() - 1
    used = bool(op.result.uses)
    if used and dup_threads >> lane_bits:
        raise LayoutError(
            "the old values of an atomic whose layout repeats elements across warps are used "
            "(that exchange would need shared memory)"
        )
    thread_ok = None
    if dup_threads:
        assert lowering.tid is not None
        x = lowering.emit(arith.AndIOp(lowering.tid, lowering.const_index(dup_threads))).results[0]
        thread_ok = lowering.emit(arith.CmpiOp(x, lowering.const_index(0), "eq")).results[0]
    addrs, vals = lowering.get(op.ptr), lowering.get(op.val)
    cmps = lowering.get(op.cmp) if isinstance(op, tl.AtomicCASOp) else None
    mask_v = getattr(op, "mask", None)
    olds: dict[int, SSAValue] = {}
    for r in range(regs):
        if r & dup_regs:
            continue
        m = lowering.group_mask(mask_v, r, thread_ok)
        a, v = lowering.extract(addrs, r), lowering.extract(vals, r)
        c = lowering.extract(cmps, r) if cmps is not None else None
        olds[r] = _atomic(lowering, op, a, v, m, c)
    elem = register_vector_type(rt).element_type
    one = VectorType(elem, [1])
    parts = [
        lowering.emit(vector.BroadcastOp(olds[r & ~dup_regs], one)).results[0] for r in range(regs)
    ]
    result = lowering.concat(parts)
    if used and dup_threads:
        # lane copies read the old values of the lane with the broadcast bits clear
        keep = (lowering.lanes - 1) & ~dup_threads

        def build(bitwidth: int) -> SimtProgram:
            p = SimtProgram(regs, bitwidth)
            lane = p.binary("andi", p.special("lane_id"), p.const(keep))
            p.output = p.shuffle("idx", 0, lane, lowering.lanes - 1)
            return p

        result = lowering.run_program(build, result)
    lowering.set_tensor(op.result, result)
