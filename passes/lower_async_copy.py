"""The SIMT lowering of asynchronous copies (``llc-pipeline``'s ops) to Ampere's ``cp.async``.

* ``tl.memdesc_index %ring[%i]``: the ring's ``simt.shared_alloc`` and the slot's byte base
  ``%i * slot bytes``, which every shared access of the slot adds (``lowering.smem_base``);
  ``tl.memdesc_trans`` of a slot: the same bytes and base, read through the view's layout;
* ``tl.async_copy_global_to_local %ptrs, %slot mask %m``: per thread, one ``simt.cp_async`` per
  group of registers that are contiguous both in global memory (as ``tl.load`` vectorizes:
  layout, axis analysis, mask constancy) and in the slot's shared layout: 16 bytes
  (``cp.async.cg``) where the alignment allows, else 8 or 4 (``cp.async.ca``); the mask becomes
  the src-size (0: nothing is read, zeros land). A group narrower than 4 bytes (no ``cp.async``
  moves it) is a synchronous ``ld.global`` + ``st.shared`` instead, visible after the same
  wait and barrier; in a loop, a ``gpu.barrier`` ahead of the copies keeps earlier reads of
  the slot (a refill right after this iteration's ``tl.local_load``) before them;
* ``tl.async_commit_group``: ``simt.cp_async_commit_group``;
* ``tl.async_wait {num = N}``: ``simt.cp_async_wait_group N`` and a ``gpu.barrier``: the wait
  makes a thread's own copies visible to it, the barrier every other thread's (and keeps the
  reads of the slot the next copies overwrite ahead of them); ``prune_barriers`` drops it where
  nothing needs it.

Each function takes the lowering state of :mod:`llc.passes.lower_to_simt` and the tensor op.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects import arith, gpu
from xdsl.dialects.builtin import IndexType, IntegerType, UnitAttr, VectorType, i32
from xdsl.ir import Attribute, Operation, SSAValue

from llc.dialects import simt, tl
from llc.passes.barriers import OWN_COPIES
from llc.passes.simt_lowering import widest_run

__all__ = [
    "lower_async_commit_group",
    "lower_async_copy_global_to_local",
    "lower_async_wait",
    "lower_memdesc_index",
    "lower_memdesc_trans",
    "mark_own_copies",
    "reads_own_copies",
    "single_layout_ring",
    "slot_bytes",
]


def slot_bytes(mem_type: tl.MemDescType) -> int:
    """Bytes of one buffer of a multi-buffered allocation (its trailing dims, rounded up to
    powers of two as the lowering lays out every buffer).

    >>> from xdsl.dialects.builtin import f16
    >>> slot_bytes(tl.MemDescType(f16, [3, 64, 32]))
    4096
    """
    count = int(np.prod([1 << (int(x) - 1).bit_length() for x in mem_type.get_shape()[1:]]))
    return count * simt.bit_width(mem_type.element_type) // 8


def lower_memdesc_index(lowering: Any, op: Operation) -> None:
    """A slot of a ring: the ring's buffer, and the slot's byte base in ``lowering.smem_base``."""
    src, index = op.operands
    mt = src.type
    assert isinstance(mt, tl.MemDescType)
    smem = lowering.get(src)
    i = lowering.get(index)
    if i.type != IndexType():
        i = lowering.emit(arith.IndexCastOp(i, IndexType())).results[0]
    base = lowering.emit(arith.MuliOp(i, lowering.const_index(slot_bytes(mt)))).results[0]
    outer = lowering.smem_base.get(src)
    if outer is not None:
        base = lowering.emit(arith.AddiOp(outer, base)).results[0]
    lowering.vals[op.results[0]] = smem
    lowering.smem_base[op.results[0]] = base


def _in_loop(op: Operation) -> bool:
    """Whether ``op`` runs inside an ``scf.for`` or ``scf.while``."""
    parent = op.parent_op()
    while parent is not None:
        if parent.name in ("scf.for", "scf.while"):
            return True
        parent = parent.parent_op()
    return False


def lower_memdesc_trans(lowering: Any, op: Operation) -> None:
    """A transposed view of a buffer (or of a ring's slot): the same bytes and slot base; its
    memdesc type's shared layout says where each element of the view is."""
    src = op.operands[0]
    lowering.vals[op.results[0]] = lowering.get(src)
    if src in lowering.smem_base:
        lowering.smem_base[op.results[0]] = lowering.smem_base[src]


def mark_own_copies(load: Operation, parts: list[Any]) -> None:
    """Mark the ``simt.shared_load`` results ``parts`` of ``tl.local_load`` ``load`` with
    :data:`llc.passes.barriers.OWN_COPIES` when :func:`reads_own_copies` (no barrier needs to
    show other threads' copies to them: there are none)."""
    if reads_own_copies(load):
        for part in parts:
            part.owner.attributes[OWN_COPIES] = UnitAttr()


def single_layout_ring(copy: Operation) -> bool:
    """Whether every ``tl.async_copy_global_to_local`` into the ring that ``copy`` fills copies
    from pointers in ``copy``'s layout, into slots of one type (so each byte is always copied by
    the same thread); the slots' other uses only read them.

    >>> from pathlib import Path
    >>> from llc.testing.semantics import apply_pipeline, parse
    >>> text = (Path(__file__).resolve().parents[1] / "examples" / "matmul.mlir").read_text()
    >>> hint = ": i32 {tl.divisibility = 16 : i32}"
    >>> module = parse(text.replace("%N: i32", "%N" + hint).replace("%K: i32", "%K" + hint))
    >>> _ = apply_pipeline(module, "llc-pipeline{num-stages=3}")
    >>> {single_layout_ring(o) for o in module.walk() if o.name.startswith("tl.async_copy")}
    {True}
    """
    slot = copy.operands[1]
    index = slot.owner
    if not isinstance(index, Operation) or index.name != "tl.memdesc_index":
        return False
    return _fills_in_layout(index.operands[0], slot.type, copy.operands[0].type.encoding)


def _fills_in_layout(ring: SSAValue, slot_type: Attribute, layout: Attribute | None) -> bool:
    """Every use of ``ring`` is a slot of ``slot_type`` that only copies from pointers in
    ``layout`` fill and only reads (``tl.local_load``, transposed views read) use."""
    for use in ring.uses:
        slot = use.operation
        if slot.name != "tl.memdesc_index" or slot.results[0].type != slot_type:
            return False
        for user in slot.results[0].uses:
            writer = user.operation
            if writer.name == "tl.async_copy_global_to_local":
                if getattr(writer.operands[0].type, "encoding", None) != layout:
                    return False
            elif writer.name == "tl.memdesc_trans":
                if any(u.operation.name != "tl.local_load" for u in writer.results[0].uses):
                    return False  # a view written through, or one we do not follow
            elif writer.name != "tl.local_load":
                return False  # another writer
    return True


def reads_own_copies(load: Operation) -> bool:
    """Whether every thread of ``tl.local_load`` ``load`` reads exactly the elements it copied:
    its buffer is a slot of a ring that only ``tl.async_copy_global_to_local`` ops fill, each
    from pointers laid out like the load's result, into slots of the same type (other uses of
    the slots only read them).

    The pipelined matmul reads its slots into the dot-operand layouts, not the copies' blocked
    ones:

    >>> from pathlib import Path
    >>> from llc.testing.semantics import apply_pipeline, parse
    >>> text = (Path(__file__).resolve().parents[1] / "examples" / "matmul.mlir").read_text()
    >>> hint = ": i32 {tl.divisibility = 16 : i32}"
    >>> module = parse(text.replace("%N: i32", "%N" + hint).replace("%K: i32", "%K" + hint))
    >>> _ = apply_pipeline(module, "llc-pipeline{num-stages=3}")
    >>> {reads_own_copies(o) for o in module.walk() if o.name == "tl.local_load"}
    {False}
    """
    mem = load.operands[0]
    index = mem.owner
    if not isinstance(index, Operation) or index.name != "tl.memdesc_index":
        return False
    layout = getattr(load.results[0].type, "encoding", None)
    return _fills_in_layout(index.operands[0], mem.type, layout)


def lower_async_copy_global_to_local(lowering: Any, op: tl.AsyncCopyGlobalToLocalOp) -> None:
    """``cp.async`` copies of ``op``'s tile into its slot (see the module docstring)."""
    # (the lowering state analysed every loop's carried values before moving loop bodies)
    laid = lowering.laid[op.ptr]
    pt = op.ptr.type
    elem = tl.element_type_of(pt)
    assert isinstance(elem, tl.PointerType)
    item = max(1, simt.bit_width(elem.pointee) // 8)
    reg, thread = lowering.shared_offsets(op.dst, laid)
    global_width = lowering.access_plan(op.ptr, op.mask, item)
    width = widest_run(reg, thread, min(global_width, max(1, 16 // item)))
    nbytes = width * item
    tpart = lowering.thread_linear(thread)
    smem = lowering.get(op.dst)
    addrs = lowering.get(op.ptr)
    if _in_loop(op):
        # earlier readers of the slot are done (a refill right after this iteration's reads);
        # prune_barriers drops it where the wait's barrier already orders them. Before the loop
        # a copy fills a slot nothing has read (reused bytes: the shared allocation's barrier)
        lowering.emit(gpu.BarrierOp())
    # broadcast registers copy once (the copy with those bits clear)
    ll = laid.ll
    dup_regs = 0
    for pos in range(ll.get_in_dim_size_log2("register")):
        if not any(int(x) for x in ll.basis("register", pos)):
            dup_regs |= 1 << pos
    one_layout = single_layout_ring(op)  # for the barrier analysis (llc.passes.barriers)
    full = lowering.const_scalar(i32, nbytes)
    zero = lowering.const_scalar(i32, 0)
    for b in range(0, len(reg), width):
        if b & dup_regs:
            continue
        addr = lowering.shared_address(op.dst, tpart, reg[b], item)
        src = lowering.extract(addrs, b)
        mask = lowering.group_mask(op.mask, b, None)
        if nbytes >= 4:
            size = lowering.emit(arith.SelectOp(mask, full, zero)).results[0]
            issued = lowering.emit(simt.CpAsyncOp(smem, addr, src, size, nbytes))
            if one_layout:
                issued.attributes[OWN_COPIES] = UnitAttr()
            continue
        # no cp.async moves fewer than 4 bytes: a synchronous copy
        vt = VectorType(elem.pointee, [width])
        zeros = 0.0 if not isinstance(elem.pointee, IntegerType) else 0
        other = lowering.const_vec(vt, [zeros] * width)
        value = lowering.emit(simt.GlobalLoadOp(src, mask, other)).results[0]
        lowering.emit(simt.SharedStoreOp(value, smem, addr))


def lower_async_commit_group(lowering: Any, op: Operation) -> None:
    """``cp.async.commit_group``."""
    lowering.emit(simt.CpAsyncCommitGroupOp())


def lower_async_wait(lowering: Any, op: tl.AsyncWaitOp) -> None:
    """``cp.async.wait_group N`` and the barrier that shows every thread's copies to all."""
    lowering.emit(simt.CpAsyncWaitGroupOp(op.num.value.data))
    lowering.emit(gpu.BarrierOp())
