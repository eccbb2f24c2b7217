"""The cost model of layout assignment: converting a tensor, or recomputing an op, in a layout.

Units: **issue cycles per warp**, an estimate of how long one warp is busy with the work on an
NVIDIA GPU (sm80/sm90 class). It is a ranking device for the layout passes, not a prediction of
run time: only the order of costs matters, and that order follows the conversion ladder of seed
001 (registers < warp shuffles < shared memory < distributed shared memory); its instructions and
wavefronts grow with the bytes moved, its barriers with the rounds a round trip takes (issue 12:
as many as the layouts allow, for the smallest scratch, so a narrower type that can run in more
rounds may cost more barrier cycles). The constants (in cycles):

* an ALU instruction (select, address arithmetic, ``add``): :data:`ALU_CYCLES` = 1;
* a warp shuffle (``shfl.sync``, 32 bits per lane): :data:`SHUFFLE_CYCLES` = 2 (half-rate pipe);
* a shared-memory instruction: 1 to issue (:data:`SHARED_ISSUE_CYCLES`) plus
  :data:`WAVEFRONT_CYCLES` = 2 per wavefront (the SM's shared-memory pipe serves one wavefront a
  cycle for all four schedulers; counting 2 models the contention of the other warps);
* a CTA barrier, including the store -> load latency it exposes: :data:`BARRIER_CYCLES` = 32;
* a cluster barrier for distributed shared memory: :data:`CLUSTER_BARRIER_CYCLES` = 200;
* a special-function op (``exp``, ``log``, ``sqrt``, ...): :data:`SFU_CYCLES` = 4 (quarter rate);
  division and the like: :data:`DIVISION_CYCLES` = 8.

:func:`conversion_cost` classifies a conversion by :func:`llc.conversion.analyze_conversion`
(broadcast-aware, so a destination may read any source copy of an element) and, within a CTA,
reads its figures from the code ``llc-lower-conversions`` emits
(:func:`llc.lowering.plan_conversion`,
issue 10): the instructions per thread by kind (``alu`` index arithmetic, ``select``, ``shfl``,
``st.shared``, ``ld.shared``), the scratch bytes, the exact wavefronts of its shared-memory
instructions and the barriers:

* ``none`` / ``registers``: a no-op or a register renaming (selects when the renaming depends on
  the lane);
* ``shuffle``: the data stays within each warp and warp shuffles were cheaper than the
  shared-memory round trip (issue 10: by cost, not by rule);
* ``shared``: store, barrier, load through the swizzled layout of :func:`llc.swizzle.plan_swizzle`
  (or with ``ldmatrix``/``stmatrix``), in rounds (``2*rounds-1`` barriers);
* ``distributed_shared``: data crosses CTAs: a round trip through distributed shared memory at the
  ideal wavefronts and two cluster barriers (an estimate; no plan yet).

>>> from llc.layouts import BlockedLayout
>>> row = BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
>>> col = BlockedLayout([4, 1], [4, 8], [1, 4], [0, 1])
>>> cost = conversion_cost(row, col, [64, 64], "f32")
>>> cost.strategy, cost.wavefronts, cost.ideal_wavefronts, cost.barriers, cost.total
('shared', 64, 64, 1, 226.0)
>>> conversion_cost(row, row, [64, 64], "f32").total
0.0

Results are cached per argument tuple: layouts are hashable, and the passes call this thousands
of times (``bench/cost_model.py`` measures it).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from llc.conversion import analyze_conversion, clear_conversion_cache, in_dim_columns
from llc.errors import LayoutError
from llc.f2 import matrix_rank
from llc.linear_layout import LinearLayout
from llc.swizzle import ROW_BYTES, SwizzlePlan, clear_plan_cache, plan_swizzle

__all__ = [
    "ALU_CYCLES",
    "BARRIER_CYCLES",
    "CLUSTER_BARRIER_CYCLES",
    "DIVISION_CYCLES",
    "DTYPES",
    "SFU_CYCLES",
    "SHARED_ISSUE_CYCLES",
    "SHUFFLE_CYCLES",
    "WAVEFRONT_CYCLES",
    "ConversionCost",
    "RematerializationCost",
    "clear_caches",
    "conversion_cost",
    "dtype_bitwidth",
    "reduction_cost",
    "rematerialization_cost",
]

ALU_CYCLES = 1.0
SHUFFLE_CYCLES = 2.0
SHARED_ISSUE_CYCLES = 1.0
WAVEFRONT_CYCLES = 2.0
BARRIER_CYCLES = 32.0
CLUSTER_BARRIER_CYCLES = 200.0
SFU_CYCLES = 4.0
DIVISION_CYCLES = 8.0

_CYCLES_PER_INSTRUCTION = {
    "shfl": SHUFFLE_CYCLES,
    "select": ALU_CYCLES,
    "alu": ALU_CYCLES,
    "address": ALU_CYCLES,
    "st.shared": SHARED_ISSUE_CYCLES,
    "ld.shared": SHARED_ISSUE_CYCLES,
    "ldmatrix": SHARED_ISSUE_CYCLES,
    "stmatrix": SHARED_ISSUE_CYCLES,
    "st.shared::cluster": SHARED_ISSUE_CYCLES,
    "ld.shared::cluster": SHARED_ISSUE_CYCLES,
}


class _FamilyLayout(Protocol):
    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout: ...


LayoutLike = LinearLayout | _FamilyLayout


# ------------------------------------------------------------------------------ dtypes
DTYPES: tuple[str, ...] = (
    *(f"{sign}{bits}" for sign in ("i", "si", "ui") for bits in (1, 8, 16, 32, 64)),
    "f16",
    "bf16",
    "f32",
    "f64",
    "f8E4M3FN",
    "f8E5M2",
    "f8E4M3FNUZ",
    "f8E5M2FNUZ",
    "f8E4M3B11FNUZ",
)
"""The element types of Triton's tensors (MLIR spelling), which llc prices, lowers and emits:
``i1`` to ``i64`` (``i3`` is no Triton type), f16/bf16/f32/f64 and Triton's five fp8 types.
tf32 is a dot precision, not a storage type; fp4/e8m0 values travel packed in i8 (MXFP).
Pointers (``!tl.ptr<...>``) are 64-bit."""


def dtype_bitwidth(dtype: str | int) -> int:
    """The bits one element occupies in registers and shared memory (8, 16, 32 or 64).

    Accepts a bit width or an element type of :data:`DTYPES`; ``i1`` and sub-byte types are
    stored as bytes and pointers as 64 bits (as Triton's lowering widens them). Any other name
    (``f17``, ``i3``) is a :class:`~llc.errors.LayoutError` naming it.

    >>> [dtype_bitwidth(t) for t in ("f16", "bf16", "f32", "i1", "f8E4M3FN", "!tl.ptr<f32>", 64)]
    [16, 16, 32, 8, 8, 64, 64]
    >>> dtype_bitwidth("f17")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llc.errors.LayoutError: dtype 'f17' is not an element type llc knows: i1, i8, i16, i32, ...
    """
    return _dtype_bitwidth(dtype)


_DTYPE_BITS = re.compile(r"^(?:f|bf|i|si|ui|tf)(\d+)")


@functools.lru_cache(maxsize=256)
def _dtype_bitwidth(dtype: str | int) -> int:
    if isinstance(dtype, int) and not isinstance(dtype, bool):
        bits = dtype
    elif isinstance(dtype, str):
        text = dtype.strip()
        if "ptr" in text:
            return 64
        if text not in DTYPES:
            known = ", ".join(t for t in DTYPES if not t.startswith(("si", "ui")))
            raise LayoutError(
                f"dtype '{dtype}' is not an element type llc knows: {known} (si/ui too)"
            )
        match = _DTYPE_BITS.match(text)
        assert match is not None  # every name of DTYPES starts with its width
        bits = int(match.group(1))
    else:
        raise LayoutError(f"dtype {dtype!r} is not a bit width or an element type name")
    if bits < 1 or bits > 64:
        raise LayoutError(f"dtype {dtype!r}: {bits}-bit elements are not supported (1 to 64)")
    return max(8, 1 << (bits - 1).bit_length())


# ------------------------------------------------------------------------------ the result
@dataclass(frozen=True)
class ConversionCost:
    """The estimated cost of one layout conversion (see the module docstring for units).

    ``instructions`` counts per-thread instructions by kind (each is one warp instruction per
    warp), as sorted ``(kind, count)`` pairs; ``shared_bytes`` is the scratch buffer,
    ``wavefronts`` / ``ideal_wavefronts`` the shared-memory wavefronts per warp and their
    bank-conflict-free ideal, ``barriers`` the barriers, ``total`` the cost in issue cycles per
    warp, ``plan`` the shared-memory plan when one was made (also for a ``shuffle`` conversion,
    where it was the rejected alternative).

    >>> ConversionCost.zero("none").total
    0.0
    """

    strategy: str
    level: str | None
    instructions: tuple[tuple[str, int], ...] = ()
    shared_bytes: int = 0
    wavefronts: int = 0
    ideal_wavefronts: int = 0
    barriers: int = 0
    total: float = 0.0
    plan: SwizzlePlan | None = field(default=None, compare=False, repr=False)

    @classmethod
    def zero(cls, strategy: str, level: str | None = None) -> ConversionCost:
        """A conversion that needs no instruction (``none`` or ``registers``)."""
        return cls(strategy, level)

    @property
    def instruction_counts(self) -> dict[str, int]:
        """``instructions`` as a dict.

        >>> ConversionCost("shuffle", "lane", (("shfl", 8), ("select", 4))).instruction_counts
        {'shfl': 8, 'select': 4}
        """
        return dict(self.instructions)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (issue 10's plan fields plus the cost).

        >>> ConversionCost.zero("registers", "register").as_dict()["strategy"]
        'registers'
        """
        return {
            "strategy": self.strategy,
            "level": self.level,
            "instructions": self.instruction_counts,
            "shared_bytes": self.shared_bytes,
            "wavefronts": self.wavefronts,
            "ideal_wavefronts": self.ideal_wavefronts,
            "barriers": self.barriers,
            "total": self.total,
        }


def _total(instructions: Mapping[str, int], wavefronts: int, barriers: float) -> float:
    issue = sum(_CYCLES_PER_INSTRUCTION[k] * n for k, n in instructions.items())
    return float(issue + wavefronts * WAVEFRONT_CYCLES + barriers)


def _pairs(instructions: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted((k, n) for k, n in instructions.items() if n))


# ------------------------------------------------------------------------------ conversions
def conversion_cost(
    src: LayoutLike,
    dst: LayoutLike,
    shape: Sequence[int],
    dtype: str | int,
    compute_capability: int = 90,
) -> ConversionCost:
    """The cost of converting a ``shape`` tensor of ``dtype`` from layout ``src`` to ``dst``.

    ``src`` and ``dst`` are :class:`~llc.linear_layout.LinearLayout` s over the (power-of-two
    padded) ``shape`` with in-dims ``register, lane, warp[, block]``, or distributed layout
    families (:mod:`llc.layouts`), built on the padded shape. ``dtype`` is an element type name
    (``"f16"``, ``"i1"``, ...) or a bit width (:func:`dtype_bitwidth`). ``compute_capability``
    (e.g. 80 for ``cuda:80``, :func:`llc.lowering.compute_capability_of`) decides which
    instructions the plan may use: ``ldmatrix`` from 75, ``stmatrix`` from 90. Cached.

    >>> def ll(regs, lanes):
    ...     return LinearLayout.from_bases(
    ...         [("register", regs), ("lane", lanes), ("warp", [[128]])], ["dim0"])
    >>> src = ll([[1], [64]], [[2], [4], [8], [16], [32]])
    >>> lanes = ll([[1], [64]], [[4], [2], [8], [16], [32]])    # lanes 1 and 2 swap data
    >>> conversion_cost(src, lanes, [256], "f32").instruction_counts
    {'alu': 9, 'shfl': 4}
    >>> swap = ll([[32], [64]], [[1], [2], [4], [8], [16]])     # register 1 <-> lane 16
    >>> conversion_cost(src, swap, [256], "f32").instruction_counts  # shuffles before selects
    {'alu': 11, 'select': 8, 'shfl': 4}
    >>> [conversion_cost(src, swap, [256], t).total for t in ("f16", "f32", "f64")]
    [15.0, 27.0, 35.0]
    """
    key = (src, dst, shape if type(shape) is tuple else tuple(shape), dtype, compute_capability)
    cost = _MEMO.get(key)
    if cost is None:
        if len(_MEMO) >= _MEMO_LIMIT:
            _MEMO.clear()
        cost = _conversion_cost(
            src, dst, tuple(int(s) for s in shape), dtype_bitwidth(dtype), compute_capability
        )
        _MEMO[key] = cost
    return cost


# The arguments exactly as given -> cost: a hit costs one dict lookup, without normalising the
# shape and dtype first (the passes ask about the same pairs over and over).
_MEMO: dict[tuple[Any, ...], ConversionCost] = {}
_MEMO_LIMIT = 1 << 16


@functools.lru_cache(maxsize=16384)
def _conversion_cost(
    src: LayoutLike,
    dst: LayoutLike,
    shape: tuple[int, ...],
    bitwidth: int,
    compute_capability: int,
) -> ConversionCost:
    src_ll = _as_linear(src, shape, "source")
    dst_ll = _as_linear(dst, shape, "destination")
    if src_ll.out_dims != dst_ll.out_dims:
        raise LayoutError(
            f"conversion_cost: the layouts cover different tensors: {src_ll.out_dims} (source) "
            f"and {dst_ll.out_dims} (destination)"
        )
    report = analyze_conversion(src_ll, dst_ll)
    level = report.required
    if level is None:
        return ConversionCost.zero("none", None)
    if level == "block":
        return _distributed_shared_cost(src_ll, dst_ll, bitwidth)
    src_ll, dst_ll = _per_cta(src_ll, dst_ll)
    return _lowered_cost(src_ll, dst_ll, bitwidth, level, compute_capability)


def _lowered_cost(
    src: LinearLayout, dst: LinearLayout, bitwidth: int, level: str, compute_capability: int
) -> ConversionCost:
    """The figures of the code llc-lower-conversions emits (:func:`llc.lowering.plan_conversion`).

    The planner picks shuffles or shared memory by the same cycle counts as this module.
    """
    from llc.lowering import plan_conversion

    lowered = plan_conversion(src, dst, bitwidth, compute_capability=compute_capability)
    counts = dict(lowered.instructions)
    barriers = counts.pop("bar.sync", 0)
    plan = None
    if lowered.strategy == "shared" or level == "lane":
        try:
            plan = plan_swizzle(src, dst, bitwidth)
        except LayoutError:  # pragma: no cover - the lowering planned the same pair
            plan = None
    strategy = lowered.strategy
    if strategy == "none" and level == "register":
        strategy = "registers"
    return ConversionCost(
        strategy,
        level,
        _pairs(counts),
        lowered.shared_bytes,
        lowered.wavefronts,
        lowered.ideal_wavefronts,
        barriers,
        _total(counts, lowered.wavefronts, barriers * BARRIER_CYCLES),
        plan,
    )


def _as_linear(layout: LayoutLike, shape: tuple[int, ...], what: str) -> LinearLayout:
    if any(s < 1 for s in shape):
        raise LayoutError(f"conversion_cost: shape {list(shape)} has a dim below 1")
    padded = tuple(1 << (s - 1).bit_length() for s in shape)
    if isinstance(layout, LinearLayout):
        sizes = tuple(size for _, size in layout.out_dims)
        if sizes != padded:
            raise LayoutError(
                f"conversion_cost: the {what} layout covers {list(sizes)}, but the shape "
                f"{list(shape)} pads to {list(padded)}"
            )
        return layout
    if not hasattr(layout, "to_linear_layout"):
        raise LayoutError(f"conversion_cost: the {what} {layout!r} is not a layout")
    built = layout.to_linear_layout(list(padded))
    if not built.has_in_dim("lane"):
        raise LayoutError(
            f"conversion_cost: the {what} layout is not distributed (in-dims "
            f"{built.get_in_dim_names()})"
        )
    return built


def _per_cta(src: LinearLayout, dst: LinearLayout) -> tuple[LinearLayout, LinearLayout]:
    """The layouts of one CTA, when the data stays within each CTA but CTAs split the tensor.

    CTA 0 holds a subspace ``S`` of the tensor (the span of its register, lane and warp
    images; the same for both layouts when no data crosses CTAs). Its elements are renumbered
    ``0 .. |S|-1`` through the pivot bits of ``S``'s reduced echelon basis, a bijection, so the
    layouts become ``(register, lane, warp) -> dim0`` over one CTA's share. Bank conflicts depend
    only on which thread holds which element, so the plan is unchanged by the renumbering.
    """
    if all(not ll.has_in_dim("block") or ll.get_in_dim_size("block") == 1 for ll in (src, dst)):
        return src, dst
    hardware = ("register", "lane", "warp")
    rows: dict[int, int] = {}  # leading bit -> row of the reduced echelon basis of S
    for column in (c for d in hardware for c in in_dim_columns(src, d)):
        for lead, row in rows.items():
            if column >> lead & 1:
                column ^= row
        if column:
            lead = column.bit_length() - 1
            rows = {k: (r ^ column if r >> lead & 1 else r) for k, r in rows.items()}
            rows[lead] = column
    pivots = sorted(rows)

    def compress(value: int) -> list[int]:
        return [sum(((value >> p) & 1) << k for k, p in enumerate(pivots))]

    def rebuild(ll: LinearLayout) -> LinearLayout:
        bases = [(d, [compress(c) for c in in_dim_columns(ll, d)]) for d in hardware]
        return LinearLayout.from_bases(bases, ["dim0"], [1 << len(pivots)])

    try:
        return rebuild(src), rebuild(dst)
    except LayoutError:  # pragma: no cover - the level check guarantees the same subspace
        raise LayoutError(
            "conversion_cost: the CTAs of the two layouts hold different data"
        ) from None


def _distinct_registers(layout: LinearLayout) -> int:
    return 1 << matrix_rank([c for c in in_dim_columns(layout, "register") if c])


def _words(registers: int, bitwidth: int) -> int:
    """32-bit words that ``registers`` elements of ``bitwidth`` bits pack into."""
    return max(1, math.ceil(registers * bitwidth / 32))


def _distributed_shared_cost(src: LinearLayout, dst: LinearLayout, bitwidth: int) -> ConversionCost:
    # No plan across CTAs yet: 128-bit accesses at the ideal wavefronts, two cluster barriers.
    element_bytes = bitwidth // 8
    per_vector = max(1, 16 // element_bytes)
    stores = max(1, _distinct_registers(src) // per_vector)
    loads = max(1, _distinct_registers(dst) // per_vector)
    lanes = src.get_in_dim_size("lane")
    per_instruction = max(1, per_vector * element_bytes * lanes // ROW_BYTES)
    wavefronts = (stores + loads) * per_instruction
    instructions = {
        "st.shared::cluster": stores,
        "ld.shared::cluster": loads,
        "address": stores + loads,
    }
    blocks = src.get_in_dim_size("block") if src.has_in_dim("block") else 1
    scratch = (src.total_out_size // blocks) * element_bytes
    return ConversionCost(
        "distributed_shared",
        "block",
        _pairs(instructions),
        scratch,
        wavefronts,
        wavefronts,
        2,
        _total(instructions, wavefronts, 2 * CLUSTER_BARRIER_CYCLES),
    )


def clear_caches() -> None:
    """Forget every cached cost, conversion analysis and swizzle plan (for cold benchmarks).

    >>> clear_caches()
    """
    _MEMO.clear()
    _conversion_cost.cache_clear()
    _remat.cache_clear()
    _dtype_bitwidth.cache_clear()
    clear_conversion_cache()
    clear_plan_cache()


# ------------------------------------------------------------------------------ remat
@dataclass(frozen=True)
class RematerializationCost:
    """The cost of recomputing one op in another layout, in issue cycles per warp.

    ``total`` is ``math.inf`` for ops that must never be duplicated (loads, stores, dots,
    reductions, anything with side effects); ``rematerializable`` says so.

    >>> rematerialization_cost("tl.load", 8, "f32").rematerializable
    False
    """

    op_kind: str
    instructions: float
    total: float

    @property
    def rematerializable(self) -> bool:
        """Whether the op may be recomputed at all."""
        return math.isfinite(self.total)


_NEVER = frozenset(
    {
        "tl.load",
        "tl.store",
        "tl.dot",
        "tl.reduce",
        "tl.scan",
        "tl.atomic_rmw",
        "tl.atomic_cas",
        "tl.local_alloc",
        "tl.local_load",
        "tl.local_store",
        "tl.local_dealloc",
        "tl.convert_layout",
        "tl.get_program_id",
        "tl.get_num_programs",
    }
)
_FREE = frozenset(
    {
        "tl.splat",
        "tl.broadcast",
        "tl.expand_dims",
        "tl.reshape",
        "tl.trans",
        "tl.constant",
        "tl.bitcast",
        "arith.constant",
        "arith.bitcast",
    }
)
_SFU = frozenset(
    {
        "math.exp",
        "math.exp2",
        "math.log",
        "math.log2",
        "math.log1p",
        "math.expm1",
        "math.sin",
        "math.cos",
        "math.sqrt",
        "math.rsqrt",
    }
)
_SLOW = frozenset(
    {
        "arith.divf",
        "arith.remf",
        "arith.divsi",
        "arith.divui",
        "arith.remsi",
        "arith.remui",
        "arith.ceildivsi",
        "arith.floordivsi",
        "math.tanh",
        "math.erf",
        "math.powf",
        "math.atan",
        "math.atan2",
        "tl.precise_divf",
        "tl.precise_sqrt",
    }
)


def _cycles_per_element(op_kind: str) -> float:
    if op_kind in _NEVER:
        return math.inf
    if op_kind in _FREE:
        return 0.0
    if op_kind in _SFU:
        return SFU_CYCLES
    if op_kind in _SLOW:
        return DIVISION_CYCLES
    if op_kind.startswith(("arith.", "math.")) or op_kind in {
        "tl.make_range",
        "tl.addptr",
        "tl.select",
        "tl.cmpf",
        "tl.cmpi",
        "tl.sitofp",
        "tl.uitofp",
        "tl.fptosi",
        "tl.fptoui",
        "tl.extsi",
        "tl.extui",
        "tl.trunci",
        "tl.extf",
        "tl.truncf",
        "tl.fp_to_fp",
        "tl.int_to_ptr",
        "tl.ptr_to_int",
    }:
        return ALU_CYCLES
    if op_kind.startswith(("scf.", "cf.", "func.")):
        return math.inf
    raise LayoutError(
        f"rematerialization_cost: unknown op kind '{op_kind}' (give the op name, e.g. "
        "'arith.addf', 'math.exp', 'tl.make_range', 'tl.load')"
    )


def rematerialization_cost(
    op_kind: str, elements_per_thread: int, dtype: str | int
) -> RematerializationCost:
    """The cost of recomputing an op of kind ``op_kind`` (its name, e.g. ``"arith.addf"``) whose
    result holds ``elements_per_thread`` elements of ``dtype`` in each thread.

    Per element: layout-only ops (``splat``, ``broadcast``, ``expand_dims``, ``reshape``,
    ``trans``, constants, bitcasts) are free; ``arith``, casts, ``select``, ``cmp``, ``addptr``
    and ``make_range`` cost one ALU cycle; special functions :data:`SFU_CYCLES`; divisions,
    ``tanh``, ``erf``, ``pow`` :data:`DIVISION_CYCLES`. 16-bit and narrower elements go two to a
    packed instruction and 64-bit elements take two. Loads, stores, dots, reductions, layout
    conversions and control flow are never recomputed: their total is ``inf``. An unknown op
    kind raises :class:`~llc.errors.LayoutError`. Cached.

    >>> rematerialization_cost("arith.addf", 8, "f32").total
    8.0
    >>> rematerialization_cost("math.exp", 8, "f16").total
    16.0
    >>> rematerialization_cost("tl.broadcast", 64, "f32").total
    0.0
    >>> rematerialization_cost("tl.load", 8, "f32").total
    inf
    """
    if elements_per_thread < 0:
        raise LayoutError(
            f"rematerialization_cost: elements_per_thread {elements_per_thread} is negative"
        )
    return _remat(op_kind, int(elements_per_thread), dtype_bitwidth(dtype))


@functools.lru_cache(maxsize=4096)
def _remat(op_kind: str, elements: int, bitwidth: int) -> RematerializationCost:
    per_element = _cycles_per_element(op_kind)
    if not math.isfinite(per_element):
        return RematerializationCost(op_kind, math.inf, math.inf)
    instructions = elements * max(bitwidth, 16) / 32
    return RematerializationCost(op_kind, instructions, instructions * per_element)


def reduction_cost(layout: LayoutLike, shape: Sequence[int], axis: int, dtype: str | int) -> float:
    """Issue cycles per warp of reducing a tensor held in ``layout`` along ``axis``, as
    ``llc-lower-to-simt`` lowers ``tl.reduce``: the axis' register bits combine registers (ALU),
    each lane bit is a butterfly shuffle of every register left (two 32-bit shuffles for 64-bit
    elements; 8/16-bit values pack into words), and warp bits exchange the partial results
    through shared memory (a store, a barrier, one load per warp bit, a barrier). Broadcast
    bits (zero bases) are never combined. The layout solver adds this to a reduction's operand,
    so a layout whose warps split the reduced axis pays for the trip through shared memory.

    >>> from llc.layouts import BlockedLayout
    >>> rows = BlockedLayout([1, 4], [1, 32], [4, 1], [1, 0])   # a warp per row: shuffles
    >>> cols = BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0])   # warps split the row
    >>> reduction_cost(rows, (8, 128), 1, "f32") < reduction_cost(cols, (8, 128), 1, "f32")
    True
    >>> reduction_cost(rows, (8, 128), 1, "f32")
    36.0
    """
    bits = dtype_bitwidth(dtype)
    return _reduction_cost(_as_linear(layout, tuple(shape), "reduced"), axis, bits)


@functools.lru_cache(maxsize=4096)
def _reduction_cost(ll: LinearLayout, axis: int, bits: int) -> float:
    names = ll.get_out_dim_names()
    if not 0 <= axis < len(names):
        raise LayoutError(f"reduction_cost: axis {axis} is not a dim of {names}")
    low = sum(size.bit_length() - 1 for _, size in ll.out_dims[:axis])
    mask = (ll.out_dims[axis][1] - 1) << low

    def along(dim: str) -> tuple[int, int]:
        columns = in_dim_columns(ll, dim) if ll.has_in_dim(dim) else []
        return sum(1 for c in columns if c & mask), len(columns)

    reg_axis, reg_bits = along("register")
    lane_axis, _ = along("lane")
    warp_axis, _ = along("warp")
    registers = 1 << reg_bits
    left = registers >> reg_axis
    cycles = (registers - left) * ALU_CYCLES
    words = _words(left, bits) if bits < 32 else left * max(1, bits // 32)
    cycles += lane_axis * (words * SHUFFLE_CYCLES + left * ALU_CYCLES)
    if warp_axis:
        per_access = SHARED_ISSUE_CYCLES + WAVEFRONT_CYCLES
        cycles += 2 * BARRIER_CYCLES + words * per_access * (1 + warp_axis)
        cycles += warp_axis * left * ALU_CYCLES
    return float(cycles)
