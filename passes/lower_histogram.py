"""Lowering ``tl.histogram`` to SIMT code: per-thread counts, summed over the CTA, then the
result's layout.

Each thread counts, for every bin ``b``, the elements it owns equal to ``b`` (a compare of each
register against the constant vector ``0 .. B-1``, one ``vector<B x i32>`` of counts; values
outside the bins match none). A copy of an element the layout broadcasts (a register or thread
bit whose basis is zero) is not counted, so each element counts once. The counts are then summed
over every thread bit -- ``shfl.sync.bfly`` across lanes, a shared-memory exchange across warps,
as a reduction does -- after which every thread holds every bin: a tensor of ``B`` in the layout
whose registers are the bins and whose threads all hold the same, converted to the result's
layout by the conversion planner (a register selection).

>>> all_bins_layout(8, 5).bases
[('register', [[1], [2], [4]]), ('lane', [[0], [0], [0], [0], [0]])]
"""

from __future__ import annotations

from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import TensorType, VectorType, i32

from llc.dialects import simt, tl
from llc.errors import LayoutError
from llc.linear_layout import LinearLayout
from llc.lowering import SimtProgram
from llc.passes.lower_atomics import broadcast_bits
from llc.passes.simt_lowering import FunctionLowering, tensor_layout

__all__ = ["all_bins_layout", "lower_histogram"]


def all_bins_layout(bins: int, lane_bits: int, warp_bits: int = 0) -> LinearLayout:
    """``bins`` elements in registers, the same in every thread."""
    bases = [("register", [[1 << k] for k in range(bins.bit_length() - 1)])]
    bases.append(("lane", [[0]] * lane_bits))
    if warp_bits:
        bases.append(("warp", [[0]] * warp_bits))
    return LinearLayout(bases, [("dim0", bins)], require_surjective=False)


def lower_histogram(lowering: FunctionLowering, op: tl.HistogramOp) -> None:
    """``tl.histogram`` (see the module docstring)."""
    from llc.lowering import plan_conversion
    from llc.passes.lower_to_simt import warp_exchange, xor_shuffle

    src = lowering.laid[op.src]
    rt = op.result.type
    assert isinstance(rt, TensorType)
    bins = int(tl.shape_of(rt)[0])
    if bins & (bins - 1):
        raise LayoutError(f"a histogram of {bins} bins (a power of two only)")
    value = src.value
    vt = value.type
    assert isinstance(vt, VectorType)
    if vt.element_type != i32:
        value = lowering.emit(
            simt.CastOp(
                "trunci" if simt.bit_width(vt.element_type) > 32 else "extsi",
                value,
                VectorType(i32, vt.get_shape()),
            )
        ).results[0]
    counts_t = VectorType(i32, [bins])
    ids = lowering.const_vec(counts_t, list(range(bins)))
    ones = lowering.const_vec(counts_t, [1] * bins)
    zeros = lowering.const_vec(counts_t, [0] * bins)
    dup_regs, dup_threads = broadcast_bits(src.ll)
    counts = zeros
    for r in range(vt.get_shape()[0]):
        if r & dup_regs:
            continue
        x = lowering.emit(vector.BroadcastOp(lowering.extract(value, r), counts_t)).results[0]
        hit = lowering.emit(simt.CompareOp("eq", x, ids)).results[0]
        one = lowering.emit(simt.SelectOp(hit, ones, zeros)).results[0]
        counts = lowering.emit(arith.AddiOp(counts, one)).results[0]
    if dup_threads:
        assert lowering.tid is not None
        mine = lowering.emit(arith.AndIOp(lowering.tid, lowering.const_index(dup_threads)))
        owner = lowering.emit(arith.CmpiOp(mine.results[0], lowering.const_index(0), "eq"))
        counts = lowering.emit(arith.SelectOp(owner.results[0], counts, zeros)).results[0]
    lane_bits = lowering.lanes.bit_length() - 1
    warp_bits = lowering.num_warps.bit_length() - 1
    for b in range(lane_bits):
        other = xor_shuffle(lowering, counts, 1 << b)
        counts = lowering.emit(arith.AddiOp(counts, other)).results[0]
    for b in range(warp_bits):
        other = warp_exchange(lowering, counts, 1 << (lane_bits + b))
        counts = lowering.emit(arith.AddiOp(counts, other)).results[0]
    src_ll = all_bins_layout(bins, lane_bits, warp_bits)
    dst_ll = tensor_layout(rt)

    def build(bitwidth: int) -> SimtProgram:
        cc = lowering.compute_capability
        return plan_conversion(src_ll, dst_ll, bitwidth, compute_capability=cc).program

    lowering.set_tensor(op.result, lowering.run_program(build, counts), dst_ll)
