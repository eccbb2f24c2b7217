"""The costs the layout passes compare, from llc's cost model (:mod:`llc.cost`).

Two questions, in :mod:`llc.cost`'s unit (**issue cycles per warp**):

* :func:`conversion_cost`: converting a tensor between two layout attributes (0 for a register
  renaming, warp shuffles within a warp, a shared-memory round trip counted in wavefronts
  otherwise);
* :func:`remat_cost`: recomputing one op in another layout, from its kind and its per-thread
  element count (``inf`` for ops that must never be duplicated: loads, dots, reductions, ...).

The passes only rank alternatives with these numbers, so the unit cancels out.

>>> from llc.layouts import BlockedLayout
>>> from llc.dialects.layout_attrs import BlockedEncodingAttr
>>> a = BlockedEncodingAttr(BlockedLayout([1], [32], [4], [0]))
>>> b = BlockedEncodingAttr(BlockedLayout([4], [32], [4], [0]))
>>> conversion_cost(a, a, (512,), 32)
0.0
>>> conversion_cost(a, b, (1024,), 32) > conversion_cost(a, b, (512,), 32) > 0
True
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Attribute, Operation

from llc import cost as cost_model
from llc.dialects.tl import TARGET_ATTR
from llc.errors import LayoutError
from llc.f2 import EchelonBasis
from llc.layouts.common import padded_shape
from llc.linear_layout import LinearLayout
from llc.lowering import DEFAULT_COMPUTE_CAPABILITY, compute_capability_of

__all__ = [
    "SECTOR_BYTES",
    "SECTOR_CYCLES",
    "AccessCost",
    "access_cost",
    "capability_of",
    "conversion_cost",
    "conversion_lower_bound",
    "folded_reduction",
    "is_staged",
    "remat_cost",
    "staged_cost",
]

UNKNOWN_CONVERSION_CYCLES_PER_ELEMENT = 8.0
"""Fallback for layouts the model cannot analyse (e.g. a shape a family rejects)."""


STAGED_ADDRESS_CYCLES = 2 * cost_model.ALU_CYCLES
"""Address arithmetic per access of a staged operand (a swizzled offset: an xor and an add),
as the planned conversions count theirs (about two ``alu`` per shared access)."""

STAGED_BYTE_ADDRESS_CYCLES = 0.0
"""Address arithmetic per access of a staged 8-bit operand: none. A thread's byte accesses to
the fixed buffer are a loop-invariant base register plus an immediate offset (Triton's PTX:
``st.shared.b8 [%r16+4]``, ``ld.shared.b8 [%r22+416]``), so each issues alone."""

PACK_CYCLES_PER_BYTE = 2 * cost_model.ALU_CYCLES
"""Widening and permuting one 8-bit element into a wide shared-memory store (``cvt`` + ``prmt``)."""


def conversion_cost(
    src: Attribute,
    dst: Attribute,
    shape: Sequence[int],
    dtype_bits: int,
    compute_capability: int = DEFAULT_COMPUTE_CAPABILITY,
) -> float:
    """Cycles per warp to convert a ``shape`` tensor of ``dtype_bits``-bit elements ``src`` ->
    ``dst`` (layout attributes) on a target of ``compute_capability`` (:func:`capability_of`
    the module: ``ldmatrix`` from 75, ``stmatrix`` from 90, neither off CUDA)."""
    if src == dst:
        return 0.0
    if dtype_bits in (8, 16) and is_staged(src, dst):
        # Not planned freely: stage_dot_operands stores the source into the operand's swizzled
        # buffer and loads the operand from it (ldmatrix, or ld.shared as wide as the operand's
        # registers run along the buffer), whatever the planner would do. (32-bit operands
        # keep the planner's figure: it has matched Triton's PTX for them so far.)
        return staged_cost(src, dst, shape, dtype_bits, compute_capability)
    padded = padded_shape(shape)
    try:
        planned = cost_model.conversion_cost(
            src.layout,  # type: ignore[attr-defined]
            dst.layout,  # type: ignore[attr-defined]
            padded,
            max(1, dtype_bits),
            compute_capability,
        )
        return float(planned.total) + _packing_cycles(planned, src, padded, dtype_bits)
    except (LayoutError, ValueError, AttributeError):
        return UNKNOWN_CONVERSION_CYCLES_PER_ELEMENT * math.prod(padded)


def _packing_cycles(
    planned: cost_model.ConversionCost, src: Attribute, padded: tuple[int, ...], bits: int
) -> float:
    """ALU cycles per warp that packing 8-bit elements into the planned round trip's wide stores
    takes: each byte lives in its own register and is widened and permuted into the vector
    (``cvt`` + ``prmt``, as Triton's PTX does), one of the two saved per store. 16-bit pairs
    pack by register naming, and the planner's figure already counts its shuffles."""
    if bits != 8 or planned.strategy != "shared":
        return 0.0
    stores = planned.instruction_counts.get("st.shared", 0)
    elements = _distinct_registers(src, padded)
    if not stores or elements <= stores:
        return 0.0
    return float(PACK_CYCLES_PER_BYTE * elements - cost_model.ALU_CYCLES * stores)


@functools.lru_cache(maxsize=4096)
def _distinct_registers(layout: Attribute, padded: tuple[int, ...]) -> int:
    from llc.conversion import in_dim_columns

    columns = in_dim_columns(layout.to_linear_layout(padded), "register")  # type: ignore[attr-defined]
    return 1 << EchelonBasis([c for c in columns if c]).rank


def is_staged(src: Attribute, dst: Attribute) -> bool:
    """Whether a ``src -> dst`` conversion is routed through a shared buffer by
    ``stage_dot_operands`` (Triton's ReduceDataDuplication): ``dst`` is a dot operand and ``src``
    neither its mma parent nor a Hopper accumulator.

    >>> from llc.layouts import BlockedLayout, from_triton_params
    >>> from llc.dialects.layout_attrs import BlockedEncodingAttr, layout_attr_for
    >>> mma = from_triton_params("nvidia_mma", {"versionMajor": 2, "versionMinor": 0,
    ...     "warpsPerCTA": [2, 2], "instrShape": [16, 8]})
    >>> op = layout_attr_for(from_triton_params("dot_op", {"opIdx": 0, "parent": mma, "kWidth": 2}))
    >>> rows = BlockedEncodingAttr(BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]))
    >>> is_staged(rows, op), is_staged(layout_attr_for(mma), op), is_staged(op, rows)
    (True, False, False)
    """
    target = getattr(dst, "layout", None)
    if getattr(target, "kind", None) != "dot_op":
        return False
    source = getattr(src, "layout", None)
    if source == target.parent:  # type: ignore[union-attr]
        return False
    return not (getattr(source, "kind", None) == "nvidia_mma" and source.is_hopper)  # type: ignore[union-attr]


def staged_cost(
    src: Attribute,
    dst: Attribute,
    shape: Sequence[int],
    dtype_bits: int,
    compute_capability: int = DEFAULT_COMPUTE_CAPABILITY,
) -> float:
    """Cycles per warp of a conversion into a dot operand staged through shared memory (see
    :func:`is_staged`): each thread stores its ``src`` elements into the buffer that
    ``shared_layout_for`` gives the tensor (last dim contiguous, swizzled in vectors of
    ``vec``), as wide as its consecutive registers run along that dim, then loads the operand
    (``ldmatrix`` for 16-bit operands from sm_75, else as wide as the operand's registers run),
    one barrier between. Stores from a layout whose registers run along another dim are
    scalar: the price of staging a transposed tile, which a conversion before the transpose
    (into the layout the transpose maps onto the operand) avoids.

    >>> from llc.layouts import BlockedLayout, from_triton_params
    >>> from llc.dialects.layout_attrs import BlockedEncodingAttr, layout_attr_for
    >>> mma = from_triton_params("nvidia_mma", {"versionMajor": 2, "versionMinor": 0,
    ...     "warpsPerCTA": [2, 2], "instrShape": [16, 8]})
    >>> op = layout_attr_for(from_triton_params("dot_op", {"opIdx": 1, "parent": mma, "kWidth": 2}))
    >>> rows = BlockedEncodingAttr(BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]))
    >>> cols = BlockedEncodingAttr(BlockedLayout([8, 1], [8, 4], [1, 4], [0, 1]))
    >>> staged_cost(rows, op, (64, 64), 16, 80) < staged_cost(cols, op, (64, 64), 16, 80)
    True

    8-bit operands are priced so too (``conversion_cost``), each byte access issuing alone (a
    loop-invariant base plus an immediate: :data:`STAGED_BYTE_ADDRESS_CYCLES`):

    >>> b8 = from_triton_params("dot_op", {"opIdx": 1, "parent": mma, "kWidth": 4})
    >>> op8 = layout_attr_for(b8)
    >>> conversion_cost(rows, op8, (64, 64), 8, 80) == staged_cost(rows, op8, (64, 64), 8, 80)
    True
    """
    return _staged_cost(src, dst, padded_shape(shape), max(1, dtype_bits), compute_capability)


@functools.lru_cache(maxsize=4096)
def _staged_cost(
    src: Attribute, dst: Attribute, padded: tuple[int, ...], bits: int, capability: int
) -> float:
    from llc.conversion import in_dim_columns

    try:
        a = src.to_linear_layout(padded)  # type: ignore[attr-defined]
        b = dst.to_linear_layout(padded)  # type: ignore[attr-defined]
    except (LayoutError, ValueError, AttributeError):
        return UNKNOWN_CONVERSION_CYCLES_PER_ELEMENT * math.prod(padded)
    # The buffer's contiguous dim is the last one (shared_layout_for), in vectors of at most
    # 128 bits; a flattened column holds dim 0 in its lowest bits, so the last dim's unit step
    # is the product of the others.
    unit = math.prod(padded[:-1])
    vec = max(1, min(128 // max(bits, 8), padded[-1]))
    widest = max(1, 128 // bits)

    def run(layout: LinearLayout) -> tuple[int, int]:
        columns = in_dim_columns(layout, "register")
        distinct = 1 << EchelonBasis([c for c in columns if c]).rank
        length = 0
        for column in columns:
            if column != unit << length:
                break
            length += 1
        return distinct, min(1 << length, vec, widest)

    def accesses(elements: int, width: int) -> tuple[int, int]:
        count = max(1, elements // width)
        return count, count * max(1, width * bits // 32)

    stored, st_vec = run(a)
    loaded, ld_vec = run(b)
    if bits == 16 and capability >= 75:
        ld_vec = widest  # ldmatrix: four 8x8 matrices, 128 bits a thread, either order
    stores, st_waves = accesses(stored, st_vec)
    loads, ld_waves = accesses(loaded, ld_vec)
    address = STAGED_ADDRESS_CYCLES if bits > 8 else STAGED_BYTE_ADDRESS_CYCLES
    return float(
        (stores + loads) * (cost_model.SHARED_ISSUE_CYCLES + address)
        + (st_waves + ld_waves) * cost_model.WAVEFRONT_CYCLES
        + cost_model.BARRIER_CYCLES
    )


def conversion_lower_bound(
    src: Attribute, dst: Attribute, shape: Sequence[int], dtype_bits: int
) -> float:
    """A cheap lower bound of :func:`conversion_cost` from the hardware level the conversion
    must cross (:func:`llc.conversion.analyze_conversion`), without planning its code: 0 within
    a thread, one shuffle within a warp, and across warps a barrier plus the wavefronts that
    storing and loading the warp's share of the tensor's bytes take at least.

    >>> from llc.layouts import BlockedLayout
    >>> from llc.dialects.layout_attrs import BlockedEncodingAttr
    >>> rows = BlockedEncodingAttr(BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0]))
    >>> cols = BlockedEncodingAttr(BlockedLayout([4, 1], [4, 8], [1, 4], [0, 1]))
    >>> bound = conversion_lower_bound(rows, cols, (64, 64), 32)
    >>> 0 < bound <= conversion_cost(rows, cols, (64, 64), 32)
    True
    """
    if src == dst:
        return 0.0
    return _lower_bound(src, dst, tuple(shape), max(1, dtype_bits))


@functools.lru_cache(maxsize=16384)
def _lower_bound(src: Attribute, dst: Attribute, shape: tuple[int, ...], bits: int) -> float:
    padded = padded_shape(shape)
    pair = _linear_pair(src, dst, padded)
    if pair is None:
        return 0.0
    return linear_lower_bound(*pair, bits)


@functools.lru_cache(maxsize=8192)
def _linear_pair(
    src: Attribute, dst: Attribute, padded: tuple[int, ...]
) -> tuple[LinearLayout, LinearLayout, str | None] | None:
    """The two layouts' linear layouts and the level the conversion must cross (shared by the
    element types: the solver asks about one pair at several widths)."""
    from llc.conversion import required_level

    try:
        a = src.to_linear_layout(padded)  # type: ignore[attr-defined]
        b = dst.to_linear_layout(padded)  # type: ignore[attr-defined]
        return a, b, required_level(a, b)
    except (LayoutError, ValueError, AttributeError):
        return None


def linear_lower_bound(src: LinearLayout, dst: LinearLayout, level: str | None, bits: int) -> float:
    """:func:`conversion_lower_bound` of two linear layouts of one (padded) tensor whose
    conversion must cross ``level`` (:func:`llc.conversion.required_level`).

    Within a warp: the shuffles that deliver what some lane lacks (:func:`_lane_words`, 32 bits a
    shuffle) or, when cheaper, the barrier every shared-memory round trip waits at. Across warps:
    the barrier and the wavefronts that storing and loading a warp's share take at least.

    >>> regs = LinearLayout.from_bases([("register", [[1]]), ("lane", [[2], [4]])], ["dim0"])
    >>> swap = LinearLayout.from_bases([("register", [[2]]), ("lane", [[1], [4]])], ["dim0"])
    >>> linear_lower_bound(regs, swap, "lane", 32), linear_lower_bound(regs, regs, None, 32)
    (2.0, 0.0)
    """
    if level in (None, "register"):
        return 0.0
    if level == "lane":
        words = _lane_words(src, dst, max(1, bits))
        return min(cost_model.SHUFFLE_CYCLES * max(1, words), cost_model.BARRIER_CYCLES)
    if level == "warp":
        warps = max(1, src.in_dims.get("warp", 1))
        size = math.prod(src.out_dim_sizes.values())
        wavefronts = math.ceil(size * max(8, bits) // 8 / warps / 128)
        return cost_model.BARRIER_CYCLES + 2 * wavefronts * cost_model.WAVEFRONT_CYCLES
    return 0.0


def _lane_words(src: LinearLayout, dst: LinearLayout, bits: int) -> int:
    """32-bit words some lane must receive from other lanes in a ``src -> dst`` conversion
    within warps: the destination elements of a lane that its source registers do not hold.

    Lane ``l`` (of warp 0) holds ``src(l) + span(src registers)`` and needs
    ``dst(l) + span(dst registers)``; two cosets meet in a coset of the spans' intersection or
    not at all (when ``src(l) ^ dst(l)`` is outside the sum of the spans). Lane 0 and the lanes
    of the lane bases are checked; each shuffle moves one 32-bit word per lane.

    >>> regs = LinearLayout.from_bases([("register", [[1]]), ("lane", [[2], [4]])], ["dim0"])
    >>> swap = LinearLayout.from_bases([("register", [[2]]), ("lane", [[1], [4]])], ["dim0"])
    >>> _lane_words(regs, swap, 32), _lane_words(regs, regs, 32), _lane_words(regs, swap, 16)
    (1, 0, 1)
    """
    from llc.conversion import in_dim_columns

    src_regs, dst_regs = in_dim_columns(src, "register"), in_dim_columns(dst, "register")
    dst_rank = EchelonBasis(dst_regs).rank
    both = EchelonBasis([*dst_regs, *src_regs])
    common = dst_rank + EchelonBasis(src_regs).rank - both.rank
    needed = (1 << dst_rank) - (1 << common)
    for s, d in zip(in_dim_columns(src, "lane"), in_dim_columns(dst, "lane"), strict=False):
        if both.reduce(s ^ d)[0]:
            needed = 1 << dst_rank  # that lane holds none of what it needs
            break
    return -(-needed * bits // 32)


def capability_of(op: Operation) -> int:
    """The compute capability of the ``tl.target`` of the module holding ``op``
    (:func:`llc.lowering.compute_capability_of`: ``cuda:90`` when there is none).

    >>> from xdsl.dialects.builtin import ModuleOp, StringAttr
    >>> capability_of(ModuleOp([], {"tl.target": StringAttr("cuda:80")}))
    80
    """
    node: Operation | None = op
    while node is not None and not isinstance(node, ModuleOp):
        node = node.parent_op()
    target = node.attributes.get(TARGET_ATTR) if node is not None else None
    return compute_capability_of(target.data if isinstance(target, StringAttr) else None)


def remat_cost(
    op_name: str, shape: Sequence[int], dtype_bits: int, num_threads: int = 128
) -> float:
    """Cycles per warp to recompute an ``op_name`` op whose result is a ``shape`` tensor
    spread over ``num_threads`` threads.

    >>> remat_cost("math.exp", (128,), 32) > remat_cost("arith.addf", (128,), 32) > 0
    True
    >>> remat_cost("tl.make_range", (128,), 32) <= 1
    True
    """
    per_thread = max(1, math.prod(shape) // max(1, num_threads))
    try:
        return float(
            cost_model.rematerialization_cost(op_name, per_thread, max(1, dtype_bits)).total
        )
    except LayoutError:  # an op kind the model does not know: one ALU cycle per element
        return float(per_thread)


SECTOR_BYTES = 32
"""The unit a global access moves between L2 and the SM."""
SECTOR_CYCLES = 2.0
"""Cycles per 32-byte sector a warp's access touches (as :data:`llc.cost.WAVEFRONT_CYCLES`: the
load/store unit serves one sector per wavefront)."""


@dataclass(frozen=True)
class AccessCost:
    """One global load or store of a tensor in a layout, per warp.

    ``width_bits``: bits per thread per instruction (the vector); ``instructions``: access
    instructions per thread (each one warp instruction); ``sectors``: 32-byte sectors the warp's
    instructions touch, summed over them; ``total``: issue cycles per warp
    (``instructions + SECTOR_CYCLES * sectors``).
    """

    width_bits: int
    instructions: int
    sectors: int
    total: float


def access_cost(
    enc: Attribute,
    shape: Sequence[int],
    dtype_bits: int,
    contiguity: Sequence[int],
    divisibility_bytes: Sequence[int],
) -> AccessCost:
    """The cost of a global access of a ``shape`` tensor in ``enc`` whose addresses run
    ``contiguity[d]`` elements contiguously along ``d`` (row-major otherwise), aligned to
    ``divisibility_bytes`` (:mod:`llc.passes.axis_info`).

    The vector is the widest run of a thread's registers along the most contiguous dim
    (:func:`llc.vectorize.largest_vectorization`), capped by the contiguity, the alignment and
    128 bits; per access instruction the lanes' distinct sectors are counted. With no contiguous
    dim every element is its own sector.

    >>> from llc.layouts import BlockedLayout
    >>> from llc.dialects.layout_attrs import BlockedEncodingAttr
    >>> rows = BlockedEncodingAttr(BlockedLayout([1, 4], [2, 16], [4, 1], [1, 0]))
    >>> cols = BlockedEncodingAttr(BlockedLayout([4, 1], [16, 2], [1, 4], [0, 1]))
    >>> a = access_cost(rows, (64, 64), 32, (1, 64), (16, 16))
    >>> b = access_cost(cols, (64, 64), 32, (1, 64), (16, 16))
    >>> (a.width_bits, a.instructions, a.sectors), (b.width_bits, b.instructions, b.sectors)
    ((128, 8, 128), (32, 32, 512))
    >>> a.total < b.total
    True
    """
    return _access_cost(
        enc, tuple(shape), max(8, dtype_bits), tuple(contiguity), tuple(divisibility_bytes)
    )


@functools.lru_cache(maxsize=4096)
def _access_cost(
    enc: Attribute,
    shape: tuple[int, ...],
    bits: int,
    contiguity: tuple[int, ...],
    divisibility: tuple[int, ...],
) -> AccessCost:
    from llc.vectorize import MAX_ACCESS_BITS, largest_vectorization

    padded = padded_shape(shape)
    rank = len(shape)
    element_bytes = max(1, bits // 8)
    try:
        ll = enc.to_linear_layout(padded)  # type: ignore[attr-defined]
    except (LayoutError, ValueError, AttributeError):
        elements = math.prod(padded)
        return AccessCost(bits, elements, elements, float(elements * (1 + SECTOR_CYCLES)))
    contig = max(range(rank), key=lambda d: (contiguity[d], d))
    vec = 1
    if contiguity[contig] > 1:
        try:
            v = largest_vectorization(ll, bits, f"dim{contig}")
            ll, run = v.layout, v.vector
        except LayoutError:
            run = 1
        aligned = max(1, divisibility[contig] // element_bytes)
        cap = min(run, contiguity[contig], aligned, max(1, MAX_ACCESS_BITS // bits))
        while vec * 2 <= cap:
            vec *= 2
    sizes = ll.in_dims
    regs, lanes = sizes.get("register", 1), sizes.get("lane", 1)
    per_warp = regs * lanes
    coords = ll.apply_all()
    address = np.zeros(per_warp, dtype=np.int64)
    if contiguity[contig] > 1:
        stride = 1
        for d in [contig, *[d for d in reversed(range(rank)) if d != contig]]:
            address += coords[f"dim{d}"][:per_warp] * stride
            stride *= padded[d]
        sector = address * element_bytes // SECTOR_BYTES
    else:  # scattered: one sector per distinct element
        stride = 1
        for d in reversed(range(rank)):
            address += coords[f"dim{d}"][:per_warp] * stride
            stride *= padded[d]
        sector = address
    groups = sector.reshape(lanes, regs // vec, vec)[:, :, 0].T
    sectors = int(sum(len(np.unique(row)) for row in groups))
    instructions = regs // vec
    return AccessCost(vec * bits, instructions, sectors, instructions + SECTOR_CYCLES * sectors)


_PER_THREAD_OPS = frozenset(
    {"tl.splat", "tl.broadcast", "tl.expand_dims", "tl.reshape", "tl.trans"}
)
"""Shape ops that only move values between a thread's registers (a reshape that would need a
data exchange is a conversion of its own in the IR)."""
_KNOWN_CHAIN_LIMIT = 64
"""Ops looked at above a reduction's operand before giving up (the fold is for short chains of
constants and ranges; a longer chain is priced as any other reduction)."""


def _compile_time_kind(value: object) -> str | None:
    """``"uniform"`` when ``value`` is built from constants alone through elementwise and
    per-thread shape ops (every element the same known value, in any layout), ``"indexed"``
    when ranges or dense constants enter too (each element's value is known from its
    coordinates), ``None`` when anything else does (a load, an argument, a conversion, a
    reduction, ...)."""
    from xdsl.ir import OpResult

    from llc.dialects.tl import ELEMENTWISE_OP_NAMES

    kind = "uniform"
    stack, seen = [value], set()
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if len(seen) > _KNOWN_CHAIN_LIMIT or not isinstance(v, OpResult):
            return None
        op = v.op
        if op.name in ("tl.constant", "arith.constant"):
            # A dense payload with unequal elements is known per element, not everywhere.
            splat = getattr(getattr(op, "value", None), "is_splat", None)
            if callable(splat) and not splat():
                kind = "indexed"
            continue
        if op.name == "tl.make_range":
            kind = "indexed"
            continue
        if op.name not in ELEMENTWISE_OP_NAMES and op.name not in _PER_THREAD_OPS:
            return None
        stack.extend(op.operands)
    return kind


def folded_reduction(op: Operation, layouts: Sequence[Attribute | None]) -> bool:
    """True where the whole ``tl.reduce`` folds away at compile time, so it costs nothing: every
    operand (in ``layouts``, one per tensor operand) holds values each thread knows at compile
    time, and the reduced axis lies in each thread's registers (no lane or warp base touches
    it), so the combining is register arithmetic on constants that LLVM folds. Constants are
    known in any layout; a value built from ``make_range`` (or a dense constant) only where no
    lane or warp holds a different element (every base of lanes and warps is zero). Triton's
    output of such a reduction has no shuffle and no add; spread over lanes, the shuffles stay.

    A row sum of ones, with each thread's 8 columns in its registers, then with the columns
    spread over lanes:

    >>> from llc.dialects.ttgir import parse_triton_module
    >>> from llc.dialects.layout_attrs import BlockedEncodingAttr
    >>> from llc.layouts import BlockedLayout
    >>> rows = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], "
    >>> rows += "warpsPerCTA = [4, 1], order = [1, 0]}>"
    >>> module = parse_triton_module(f'''#r = {rows}
    ... module attributes {{"ttg.num-warps" = 4 : i32, ttg.target = "cuda:80"}} {{
    ...   tt.func @f() -> tensor<128xf32, #ttg.slice<{{dim = 1, parent = #r}}>> {{
    ...     %c = arith.constant dense<1.000000e+00> : tensor<128x8xf32, #r>
    ...     %s = "tt.reduce"(%c) <{{axis = 1 : i32}}> ({{
    ...     ^bb0(%a: f32, %b: f32):
    ...       %m = arith.addf %a, %b : f32
    ...       tt.reduce.return %m : f32
    ...     }}) : (tensor<128x8xf32, #r>) -> tensor<128xf32, #ttg.slice<{{dim = 1, parent = #r}}>>
    ...     tt.return %s : tensor<128xf32, #ttg.slice<{{dim = 1, parent = #r}}>>
    ...   }}
    ... }}''', "sum.ttgir")
    >>> reduce = next(op for op in module.walk() if op.name == "tl.reduce")
    >>> folded_reduction(reduce, [reduce.operands[0].type.encoding])
    True
    >>> lanes = BlockedEncodingAttr(BlockedLayout([1, 1], [4, 8], [4, 1], [1, 0]))
    >>> folded_reduction(reduce, [lanes])
    False
    """
    from llc.conversion import in_dim_columns
    from llc.dialects.layout_rules import is_tensor
    from llc.dialects.tl import shape_of

    if op.name != "tl.reduce" or not layouts:
        return False
    axis = op.axis.value.data  # type: ignore[attr-defined]
    operands = [v for v in op.operands if is_tensor(v)]
    if len(operands) != len(layouts):
        return False
    for v, enc in zip(operands, layouts, strict=True):
        kind = _compile_time_kind(v)
        if kind is None or enc is None or not hasattr(enc, "to_linear_layout"):
            return False
        shape = shape_of(v.type)
        try:
            ll = enc.to_linear_layout(list(padded_shape(shape)))
        except (LayoutError, ValueError):
            return False
        low = sum(size.bit_length() - 1 for _, size in ll.out_dims[:axis])
        mask = (ll.out_dims[axis][1] - 1) << low
        for dim in ("lane", "warp", "block"):
            columns = in_dim_columns(ll, dim) if ll.has_in_dim(dim) else []
            if any(c & mask for c in columns):
                return False  # the axis crosses threads: shuffles or shared memory stay
            if kind == "indexed" and any(columns):
                return False  # threads hold different elements: values depend on the thread
    return True
