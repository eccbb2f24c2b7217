"""Shared-memory planning for a layout conversion: the swizzled layout, vectors and wavefronts.

A conversion ``SRC -> DST`` between distributed layouts that crosses warps goes through shared
memory: every thread stores its source registers, a barrier, every thread loads its destination
registers. :func:`plan_swizzle` chooses the shared layout (offset -> tensor element) as Triton's
"optimal swizzling" does (Triton PR #6982, lib/Tools/GenericSwizzling.cpp; seed 001, "Avoid Bank
Conflicts"): the offset bits are ``vector | bank | segment | rep`` (``rep``: the rounds):

* **vector**: tensor directions that are registers in *both* layouts, capped at 128 bits, so
  that both sides move whole vectors (``st.shared.v4`` / ``ld.shared.v4``). Right after them
  come, when that is cheaper, further registers of one side (that side moves wider vectors) or,
  for elements narrower than 32 bits, registers filling the rest of a 4-byte word;
* **segment**: the directions that select the 128-byte row. Directions that neither side's
  lanes (of one access phase) span are free of conflicts; then ``a ^ b`` of a store lane ``a``
  and a load lane ``b``; only when no such direction is left does a lane direction become a
  segment bit, costing conflicts on that side (chosen greedily, one at a time, by exact count);
* **bank**: the rest, the position inside a 128-byte row. Bank and segment directions are taken
  from a complement of the vector that holds the lanes and warps of both sides where it can, so
  that no lane or warp moves a thread's vector off its alignment; where one still does, that
  side's vector narrows;
* **rep**: directions that are registers on both sides and not in the vector, moved to the top
  and converted in rounds (Triton's ``buildReps``), so the scratch buffer holds one round: by
  default as many as leave at least one 128-byte row per round, more when ``scratch_limit``
  asks for it (then common registers also leave the vector). No lane or warp of either side
  reaches a round bit (with non-unit bases a round may be any direction outside both sides'
  thread spans). The plan may still exceed the limit when the layouts leave too few such
  directions; :func:`llc.lowering.plan_conversion` then raises.

The variants (which side widens, word filling, complement order, narrower vectors) are compared
by their exact wavefront and instruction counts and the cheapest is kept. The choice is greedy,
not proven minimal: on layouts whose bases are unit vectors (every layout family) the tests
find no bank conflict on any pair without broadcast, and the plan never beats the ideal; on
arbitrary ``#ttg.linear`` bases it can miss a conflict-free plan. ``ldmatrix``/``stmatrix`` tiles
and AMD's LDS phases are not modelled (issue 10 adds them with the lowering).

Hardware model (NVIDIA, as issue 10 states it; CUDA C++ Programming Guide, "Shared Memory" in
the compute-capability appendix): shared memory has 32 banks of 4 bytes; byte address ``a`` is in
bank ``(a // 4) % 32``. A warp instruction is served in *phases* of
``128 // max(4, access bytes per lane)`` consecutive lanes (all 32 lanes for 32-bit or narrower
accesses, half-warps for 64-bit, quarter-warps for 128-bit). Within a phase, lanes touching the
same 4-byte word share it (broadcast, also for stores of equal values); ``k`` distinct words in
one bank cost ``k`` wavefronts, so a phase costs the largest number of distinct words any bank
holds. An instruction costs the sum over its phases. Its *ideal* is, per phase,
``max(1, ceil(distinct bytes / 128))``. One refinement, measured: a 64- or 128-bit *load* whose
lanes ``2k`` and ``2k+1`` read the same address is served as 16 requests, phases then holding
twice as many lanes (stores and other repeats are not merged). On an H100 (sm_90) Nsight
Compute's wavefront counters agree with this model on all 59 warp accesses tried:
``bench/smem_wavefronts_gpu.py`` and bench/RESULTS.md.

Because every address here is linear (XOR) in the lane, warp and register bits, every warp
instruction of one side costs the same; :func:`plan_swizzle` reports that count from ranks over
F2, and :func:`count_wavefronts` counts it by brute force from the addresses (the tests check
that both agree).

>>> from llc.layouts import BlockedLayout
>>> row = BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0]).to_linear_layout([64, 64])
>>> col = BlockedLayout([4, 1], [4, 8], [1, 4], [0, 1]).to_linear_layout([64, 64])
>>> plan = plan_swizzle(row, col, 32)       # an f32 transpose
>>> plan.store_vector, plan.load_vector      # 128-bit stores and loads
(4, 4)
>>> plan.store_wavefronts, plan.store_ideal, plan.load_wavefronts, plan.load_ideal
(4, 4, 4, 4)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from llc.conversion import in_dim_columns as _columns
from llc.errors import LayoutError
from llc.f2 import matrix_vector_product
from llc.linear_layout import LinearLayout

__all__ = [
    "BANKS",
    "BANK_BYTES",
    "DEFAULT_SCRATCH_LIMIT",
    "MAX_VECTOR_BITS",
    "ROW_BYTES",
    "AccessCount",
    "SwizzlePlan",
    "clear_plan_cache",
    "count_wavefronts",
    "lanes_per_phase",
    "plan_swizzle",
    "warp_wavefronts",
]

BANKS = 32
"""Shared-memory banks."""
BANK_BYTES = 4
"""Width of one bank (one word)."""
ROW_BYTES = BANKS * BANK_BYTES
"""Bytes one wavefront can serve: one word in every bank."""
MAX_VECTOR_BITS = 128
"""Widest shared-memory access of one lane (``ld.shared.v4.b32``)."""
DEFAULT_SCRATCH_LIMIT = 64 * 1024
"""The largest scratch buffer a conversion may use (issue 10); rounds are taken anyway (as many
as the layouts allow), this bound only asks for more of them."""

_SUPPORTED_BITWIDTHS = (8, 16, 32, 64)


def lanes_per_phase(access_bytes: int, threads_per_warp: int = 32) -> int:
    """How many consecutive lanes one phase of a warp instruction serves.

    >>> [lanes_per_phase(b) for b in (1, 2, 4, 8, 16)]
    [32, 32, 32, 16, 8]
    """
    return max(1, min(threads_per_warp, ROW_BYTES // max(BANK_BYTES, access_bytes)))


# ------------------------------------------------------------------------------ brute force
@dataclass(frozen=True)
class AccessCount:
    """Wavefronts of every warp instruction of one side of a shared-memory round trip.

    ``wavefronts[c, w, i]`` and ``ideal[c, w, i]`` are the counts of instruction ``i`` of warp
    ``w`` in CTA ``c``.
    """

    wavefronts: np.ndarray
    ideal: np.ndarray

    @property
    def total(self) -> int:
        """Wavefronts of all instructions of all warps."""
        return int(self.wavefronts.sum())

    @property
    def ideal_total(self) -> int:
        """The ideal of all instructions of all warps."""
        return int(self.ideal.sum())

    @property
    def per_instruction(self) -> int:
        """The most wavefronts any one warp instruction takes."""
        return int(self.wavefronts.max(initial=0))


def count_wavefronts(
    layout: LinearLayout,
    shared: LinearLayout,
    vector: int,
    bitwidth: int,
    scratch_elements: int | None = None,
    *,
    store: bool = False,
) -> AccessCount:
    """Count the wavefronts of the warp instructions that store (or load) a distributed layout.

    ``layout`` maps ``(register, lane, warp, block)`` to the tensor; ``shared`` maps ``offset``
    (in elements) to the tensor, bijectively. Instruction ``i`` of a thread moves its registers
    ``i*vector .. i*vector+vector-1``, which must sit at consecutive offsets starting at a multiple
    of ``vector`` (a :class:`LayoutError` says which do not). The physical address of an offset is
    ``offset % scratch_elements`` (a conversion in rounds reuses its buffer). ``store`` says
    whether the access is a store (loads merge lane pairs, see the module docstring). Counting
    follows the hardware model of the module docstring, on all addresses at once with numpy.

    >>> lanes = LinearLayout.from_bases([("register", []), ("lane", [[1], [2]])], ["dim0"])
    >>> strided = LinearLayout.from_bases([("offset", [[2], [1]])], ["dim0"])
    >>> count_wavefronts(lanes, strided, 1, 32).per_instruction   # 4 lanes, 4 banks
    1
    >>> big = LinearLayout.from_bases([("register", []), ("lane", [[32], [64]])], ["dim0"],
    ...                               [128], require_surjective=False)
    >>> ident = LinearLayout.identity_1d(128, "offset", "dim0")
    >>> count_wavefronts(big, ident, 1, 32).per_instruction        # 4 lanes, all in bank 0
    4
    """
    if bitwidth not in _SUPPORTED_BITWIDTHS:
        raise LayoutError(f"element bit width {bitwidth} is not one of {_SUPPORTED_BITWIDTHS}")
    if vector < 1 or vector & (vector - 1):
        raise LayoutError(f"vector width {vector} is not a power of two")
    if sorted(shared.get_out_dim_names()) == sorted(layout.get_out_dim_names()):
        shared = shared.transpose_outs(layout.get_out_dim_names())
    if shared.get_in_dim_names() != ["offset"] or shared.out_dims != layout.out_dims:
        raise LayoutError(
            "count_wavefronts: the shared layout must map 'offset' onto the distributed "
            f"layout's tensor {layout.out_dims}, got {shared.in_dims} -> {shared.out_dims}"
        )
    size = shared.total_in_size
    targets = shared.apply_all_packed()
    inverse = np.full(size, -1, dtype=np.int64)
    inverse[targets] = np.arange(size, dtype=np.int64)
    if (inverse < 0).any():
        raise LayoutError("count_wavefronts: the shared layout is not a bijection on the tensor")
    dims = [layout.get_in_dim_size(d) if layout.has_in_dim(d) else 1 for d in _HW_DIMS]
    regs, lanes, warps, blocks = dims
    if regs % vector:
        raise LayoutError(f"{regs} registers do not split into vectors of {vector}")
    offsets = inverse[layout.apply_all_packed()].reshape(
        blocks, warps, lanes, regs // vector, vector
    )
    base = offsets[..., 0]
    if (base % vector).any() or not (offsets == base[..., None] + np.arange(vector)).all():
        raise LayoutError(
            f"count_wavefronts: the registers of a thread do not form aligned vectors of {vector} "
            "consecutive offsets"
        )
    if scratch_elements is not None:
        base = base % scratch_elements
    element_bytes = bitwidth // 8
    access = vector * element_bytes
    # One row of byte addresses per (block, warp, instruction), one column per lane.
    addr = (base * element_bytes).transpose(0, 1, 3, 2).reshape(-1, lanes)
    wavefronts, ideal = warp_wavefronts(addr, access, load=not store)
    shape = (blocks, warps, regs // vector)
    return AccessCount(wavefronts.reshape(shape), ideal.reshape(shape))


def warp_wavefronts(
    addresses: np.ndarray, access_bytes: int, *, load: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Wavefronts and their ideal for warp instructions on shared memory: llc's one bank model.

    ``addresses[i, lane]`` is the byte address that lane ``lane`` of warp instruction ``i``
    accesses (``access_bytes`` each). The warp is served in phases of :func:`lanes_per_phase`
    lanes; in a phase, ``k`` distinct 4-byte words in one of the 32 banks cost ``k`` wavefronts,
    and the ideal is ``max(1, ceil(distinct bytes / 128))``; an instruction sums its phases.
    ``load`` marks a plain ``ld.shared``: a 64- or 128-bit load whose lanes ``2k`` and ``2k+1``
    read one address is served as half as many lanes (measured on an H100, bench/RESULTS.md);
    stores and ``ldmatrix``/``stmatrix`` rows are never merged. The planner, the cost model,
    the gather plans and the SIMT interpreter all count with this function.

    64-lane (AMD) warps use the same model: 32 banks of 4 bytes, phases of at most 32 lanes
    (so a 32-bit access takes two phases). That is an approximation of CDNA's LDS, not a
    measurement.

    >>> lanes = np.arange(32) * 4
    >>> warp_wavefronts(np.stack([lanes, lanes * 32]), 4)
    (array([ 1, 32]), array([1, 1]))
    >>> warp_wavefronts((np.arange(32) * 16)[None], 16)   # 128-bit: 4 quarter-warp phases
    (array([4]), array([4]))
    >>> pairs = (np.arange(32) // 2 * 16)[None]           # lanes 2k, 2k+1 read one address
    >>> warp_wavefronts(pairs, 16), warp_wavefronts(pairs, 16, load=True)
    ((array([4]), array([4])), (array([2]), array([2])))
    """
    addresses = np.asarray(addresses, dtype=np.int64)
    wavefronts, ideal = _count_phases(addresses, access_bytes)
    lanes = addresses.shape[1]
    if load and access_bytes > BANK_BYTES and lanes > 1 and lanes % 2 == 0:
        paired = (addresses[:, 0::2] == addresses[:, 1::2]).all(axis=1)
        if paired.any():
            merged_wavefronts, merged_ideal = _count_phases(addresses[:, 0::2], access_bytes)
            wavefronts = np.where(paired, merged_wavefronts, wavefronts)
            ideal = np.where(paired, merged_ideal, ideal)
    return wavefronts, ideal


def _count_phases(addr: np.ndarray, access: int) -> tuple[np.ndarray, np.ndarray]:
    """Wavefronts and ideal of each row of lane byte addresses (``access`` bytes per lane)."""
    rows, lanes = addr.shape
    per_phase = lanes_per_phase(access, lanes)
    phases = max(1, lanes // per_phase)
    groups = rows * phases
    addr = addr.reshape(groups, -1)
    words_per_lane = max(1, access // BANK_BYTES)
    words = ((addr // BANK_BYTES)[..., None] + np.arange(words_per_lane)).reshape(groups, -1)
    # Distinct words and addresses of each phase group: a sort along the (short) rows and a
    # neighbour comparison, not np.unique over the whole array (several times slower; this runs
    # for every trial column of the layout passes).
    words = np.sort(words, axis=1)
    new_word = np.ones(words.shape, dtype=bool)
    np.not_equal(words[:, 1:], words[:, :-1], out=new_word[:, 1:])
    group_ids = np.arange(groups, dtype=np.int64)[:, None]
    per_bank = np.bincount(
        (group_ids * BANKS + words % BANKS)[new_word], minlength=groups * BANKS
    ).reshape(groups, BANKS)
    wavefronts = per_bank.max(axis=1)
    addr = np.sort(addr, axis=1)
    distinct = 1 + np.count_nonzero(addr[:, 1:] != addr[:, :-1], axis=1)
    ideal = np.maximum(1, -(-(distinct * access) // ROW_BYTES))
    return wavefronts.reshape(rows, phases).sum(axis=1), ideal.reshape(rows, phases).sum(axis=1)


# ------------------------------------------------------------------------------ F2 helpers
_HW_DIMS = ("register", "lane", "warp", "block")


class _Span:
    """An F2 span built one vector at a time (incremental Gaussian elimination on ints).

    ``solve`` gives a vector's combination of the vectors added so far (bit ``i``: the ``i``-th
    added), or None outside the span.
    """

    __slots__ = ("_count", "_rows", "rank")

    def __init__(self, vectors: Sequence[int] = ()) -> None:
        self._rows: dict[int, tuple[int, int]] = {}
        self._count = 0
        self.rank = 0
        for v in vectors:
            self.add(v)

    def _reduce(self, v: int) -> tuple[int, int]:
        rows = self._rows
        combination = 0
        while v:
            row = rows.get(v.bit_length())
            if row is None:
                break
            v ^= row[0]
            combination ^= row[1]
        return v, combination

    def add(self, v: int) -> bool:
        """Add ``v``; whether it was independent."""
        index = self._count
        self._count += 1
        residual, combination = self._reduce(v)
        if not residual:
            return False
        self._rows[residual.bit_length()] = (residual, combination ^ (1 << index))
        self.rank += 1
        return True

    def contains(self, v: int) -> bool:
        return not self._reduce(v)[0]

    def solve(self, v: int) -> int | None:
        residual, combination = self._reduce(v)
        return None if residual else combination


def _independent(vectors: Sequence[int], start: Sequence[int] = ()) -> list[int]:
    """The vectors (in order) that are independent of ``start`` and of those taken before."""
    span = _Span(start)
    return [v for v in vectors if v and span.add(v)]


def _rank(vectors: Sequence[int]) -> int:
    """The dimension of the span of ``vectors``."""
    rows: dict[int, int] = {}
    for v in vectors:
        while v:
            lead = v.bit_length()
            row = rows.get(lead)
            if row is None:
                rows[lead] = v
                break
            v ^= row
    return len(rows)


def _intersection(first: Sequence[int], second: Sequence[int], bits: int) -> list[int]:
    """A basis of ``span(first) ∩ span(second)`` (Zassenhaus), lowest leading bit first."""
    rows = [(v << bits) | v for v in first] + [v << bits for v in second]
    echelon: dict[int, int] = {}
    for row in rows:
        while row:
            lead = row.bit_length() - 1
            if lead not in echelon:
                echelon[lead] = row
                break
            row ^= echelon[lead]
    # Rows whose upper half reduced to zero hold the intersection in their lower half; reduce
    # them fully among themselves for a canonical answer.
    low = sorted(r for lead, r in echelon.items() if lead < bits)
    reduced: list[int] = []
    for v in low:
        for r in reduced:
            if v >> (r.bit_length() - 1) & 1:
                v ^= r
        if v:
            reduced = [r ^ v if r >> (v.bit_length() - 1) & 1 else r for r in reduced]
            reduced.append(v)
    return sorted(reduced, key=lambda v: (v & -v, v))


def _unflatten(value: int, out_dims: Sequence[tuple[str, int]]) -> list[int]:
    coords = []
    for _, size in out_dims:
        bits = size.bit_length() - 1
        coords.append(value & (size - 1))
        value >>= bits
    return coords


def _with_registers(layout: LinearLayout, registers: Sequence[int]) -> LinearLayout:
    """``layout`` with its register bases replaced by the flat tensor vectors ``registers``."""
    outs = layout.out_dims
    bases = []
    for name in layout.get_in_dim_names():
        if name == "register":
            bases.append((name, [_unflatten(v, outs) for v in registers]))
        else:
            bases.append((name, [_unflatten(v, outs) for v in _columns(layout, name)]))
    return LinearLayout.from_bases(
        bases, [n for n, _ in outs], [s for _, s in outs], require_surjective=False
    )


# The F2 helpers llc.lowering shares (its ldmatrix/stmatrix shared layouts).
F2Span = _Span
"""An F2 span of bit-packed vectors, built incrementally (``add``, ``contains``, ``solve``)."""
independent_vectors = _independent
intersection = _intersection
rank = _rank
unflatten = _unflatten
with_registers = _with_registers


# ------------------------------------------------------------------------------ the plan
@dataclass(frozen=True)
class SwizzlePlan:
    """How a conversion goes through shared memory; see :func:`plan_swizzle`.

    ``shared`` maps ``offset`` (in elements, ``bitwidth`` bits each) to the tensor; its offset
    bits are ``vector_bits`` vector (registers of both sides), ``bank_bits`` bank (including
    any further registers of one side that widen its vector, and the rest of a 4-byte word),
    then ``segment_bits`` segment bits whose
    top ``rep_bits`` are rounds (the scratch buffer holds ``2^(all - rep_bits)`` elements and is
    reused by each of the ``rounds``). ``store_layout`` is the source layout with duplicated
    registers dropped and its registers renumbered (an in-thread permutation, free) so that
    instruction ``i`` stores registers ``i*store_vector ..``; ``load_layout`` likewise for the
    destination (duplicated destination registers are loaded once and copied). Wavefronts and
    ideals are per warp instruction; instructions are per thread, over all rounds.
    """

    src: LinearLayout
    dst: LinearLayout
    bitwidth: int
    shared: LinearLayout
    vector_bits: int
    bank_bits: int
    segment_bits: int
    rep_bits: int
    store_layout: LinearLayout
    load_layout: LinearLayout
    store_vector: int
    load_vector: int
    store_wavefronts: int
    load_wavefronts: int
    store_ideal: int
    load_ideal: int
    store_instructions: int
    load_instructions: int

    @property
    def element_bytes(self) -> int:
        """Bytes per element (``bitwidth // 8``)."""
        return self.bitwidth // 8

    @property
    def rounds(self) -> int:
        """How many store/barrier/load rounds the conversion runs in."""
        return 1 << self.rep_bits

    @property
    def scratch_elements(self) -> int:
        """Elements of the scratch buffer (one round)."""
        return self.shared.total_in_size >> self.rep_bits

    @property
    def scratch_bytes(self) -> int:
        """Bytes of the scratch buffer (one round)."""
        return self.scratch_elements * self.element_bytes

    @property
    def barriers(self) -> int:
        """Barriers: one between the stores and loads of each round, one between rounds."""
        return 2 * self.rounds - 1

    @property
    def store_map(self) -> LinearLayout:
        """Source hardware index -> shared offset (``SHARED⁻¹∘store_layout``)."""
        return self.store_layout.invert_and_compose(self.shared)

    @property
    def load_map(self) -> LinearLayout:
        """Destination hardware index -> shared offset (``SHARED⁻¹∘load_layout``)."""
        return self.load_layout.invert_and_compose(self.shared)

    @property
    def store_conflicts(self) -> int:
        """Extra wavefronts per warp store instruction over the ideal."""
        return self.store_wavefronts - self.store_ideal

    @property
    def load_conflicts(self) -> int:
        """Extra wavefronts per warp load instruction over the ideal."""
        return self.load_wavefronts - self.load_ideal

    def warp_instructions(self) -> tuple[int, int]:
        """Warp store and load instructions of the whole CTA (per-thread count times warps)."""
        warps = self.src.get_in_dim_size("warp") if self.src.has_in_dim("warp") else 1
        return self.store_instructions * warps, self.load_instructions * warps


def plan_swizzle(
    src: LinearLayout,
    dst: LinearLayout,
    bitwidth: int,
    scratch_limit: int = DEFAULT_SCRATCH_LIMIT,
) -> SwizzlePlan:
    """Plan the shared-memory round trip of a conversion ``src -> dst`` (cached).

    ``src`` and ``dst`` map ``(register, lane, warp[, block])`` onto the same tensor dims, with
    one CTA (a ``block`` dim of size 1 or none) and the same lanes per warp; ``bitwidth`` is the
    element width in bits (8, 16, 32 or 64; widen sub-byte types and pointers first).

    >>> row = LinearLayout.from_bases(
    ...     [("register", [[0, 1], [0, 2]]), ("lane", [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]]),
    ...      ("warp", [[8, 0]])], ["dim0", "dim1"])
    >>> col = LinearLayout.from_bases(
    ...     [("register", [[1, 0], [2, 0]]), ("lane", [[4, 0], [8, 0], [0, 1], [0, 2], [0, 4]]),
    ...      ("warp", [[0, 8]])], ["dim0", "dim1"])
    >>> plan = plan_swizzle(row, col, 16)      # f16, no register direction in common
    >>> plan.vector_bits, plan.store_vector, plan.load_vector   # the source's 4 stay together
    (0, 4, 1)
    >>> (plan.store_wavefronts, plan.store_ideal), (plan.load_wavefronts, plan.load_ideal)
    ((2, 2), (1, 1))
    >>> plan.store_instructions, plan.load_instructions
    (1, 4)
    """
    return _plan(src, dst, int(bitwidth), int(scratch_limit))


def clear_plan_cache() -> None:
    """Forget the cached :func:`plan_swizzle` plans (for cold benchmarks).

    >>> clear_plan_cache()
    """
    _plan.cache_clear()


@functools.lru_cache(maxsize=4096)
def _plan(src: LinearLayout, dst: LinearLayout, bitwidth: int, scratch_limit: int) -> SwizzlePlan:
    _check_pair(src, dst, bitwidth)
    max_vec = int(math.log2(MAX_VECTOR_BITS)) - (bitwidth.bit_length() - 1)
    best: _Draft | None = None
    # Filling the rest of a 4-byte word with one side's registers can starve the other side's
    # vector, so narrow elements also try leaving the word to the bank bits. One side may have
    # more contiguous registers than the two share: place them right after the common vector
    # so that side moves wider vectors (Triton's getVbasis picks a side too).
    for fill in (True, False) if bitwidth < 32 else (True,):
        base = _build(src, dst, bitwidth, scratch_limit, False, None, fill=fill)
        options = [base]
        for extend, side in (("src", base.store), ("dst", base.load)):
            if side.k < max_vec and len(side.registers) > side.k:
                options.append(_build(src, dst, bitwidth, scratch_limit, False, None, extend, fill))
        for option in options:
            if best is None or option.cost() < best.cost():
                best = option
    assert best is not None
    if not best.conflicts() and not best.over_limit:
        return best.finish(src, dst, bitwidth)
    # A lane or warp direction that touches the vector bits shrinks that side's vector, and the
    # segment was chosen for the wider one. Retry with the sides' final vectors, and with the
    # destination's lanes and warps first in the complement; keep the cheapest plan (within
    # the scratch limit where one is: a vector of common registers gives way to rounds).
    candidates = [best]
    for dst_first in (False, True):
        first = _build(src, dst, bitwidth, scratch_limit, dst_first, None)
        candidates += [first, _build(src, dst, bitwidth, scratch_limit, dst_first, first.ks)]
        # Narrower but conflict-free accesses can beat wide conflicting ones.
        candidates.append(_build(src, dst, bitwidth, scratch_limit, dst_first, (0, 0)))
        if best.over_limit:  # no vector at all: every common register is free for rounds
            candidates.append(
                _build(src, dst, bitwidth, scratch_limit, dst_first, (0, 0), fill=False)
            )
    return min(candidates, key=_Draft.cost).finish(src, dst, bitwidth)


class _Side(NamedTuple):
    """One side of a draft plan: its vector (log2), register directions, counts."""

    k: int
    registers: list[int]
    wavefronts: int
    ideal: int
    instructions: int


class _Draft(NamedTuple):
    """A candidate plan before its linear layouts are built."""

    columns: list[int]
    vector_bits: int
    bank_bits: int
    segment_bits: int
    rep_bits: int
    store: _Side
    load: _Side
    scratch_bytes: int
    over_limit: bool

    @property
    def ks(self) -> tuple[int, int]:
        return self.store.k, self.load.k

    def conflicts(self) -> bool:
        return self.store.wavefronts > self.store.ideal or self.load.wavefronts > self.load.ideal

    def cost(self) -> tuple[bool, int, int, int]:
        """Over the scratch limit, then wavefronts of all of a warp's stores and loads, then
        its instructions, then the scratch bytes."""
        store, load = self.store, self.load
        wavefronts = store.instructions * store.wavefronts + load.instructions * load.wavefronts
        instructions = store.instructions + load.instructions
        return self.over_limit, wavefronts, instructions, self.scratch_bytes

    def finish(self, src: LinearLayout, dst: LinearLayout, bitwidth: int) -> SwizzlePlan:
        outs = src.out_dims
        shared = LinearLayout.from_bases(
            [("offset", [_unflatten(v, outs) for v in self.columns])],
            [name for name, _ in outs],
            [size for _, size in outs],
        )
        store, load = self.store, self.load
        return SwizzlePlan(
            src=src,
            dst=dst,
            bitwidth=bitwidth,
            shared=shared,
            vector_bits=self.vector_bits,
            bank_bits=self.bank_bits,
            segment_bits=self.segment_bits,
            rep_bits=self.rep_bits,
            store_layout=_with_registers(src, store.registers),
            load_layout=_with_registers(dst, load.registers),
            store_vector=1 << store.k,
            load_vector=1 << load.k,
            store_wavefronts=store.wavefronts,
            load_wavefronts=load.wavefronts,
            store_ideal=store.ideal,
            load_ideal=load.ideal,
            store_instructions=store.instructions,
            load_instructions=load.instructions,
        )


def _build(
    src: LinearLayout,
    dst: LinearLayout,
    bitwidth: int,
    scratch_limit: int,
    dst_first: bool,
    vector_hint: tuple[int, int] | None,
    extend: str | None = None,
    fill: bool = True,
) -> _Draft:
    n = src.total_out_size_log2
    log_bw = bitwidth.bit_length() - 1
    max_vec = int(math.log2(MAX_VECTOR_BITS)) - log_bw
    sub_word = max(0, 5 - log_bw)  # offset bits inside one 4-byte word
    row_bits = 10 - log_bw  # offset bits inside one 128-byte row

    regs_a = _independent(_columns(src, "register"))
    regs_b = _independent(_columns(dst, "register"))
    common = _intersection(regs_a, regs_b, n)
    # Rounds need common register directions of their own: when the buffer is too large, keep
    # as many out of the vector as the rounds need (a smaller buffer beats a wider vector).
    too_large = max(0, (bitwidth // 8 << n) - 1).bit_length() - max(1, scratch_limit).bit_length()
    reserved = (
        min(len(common), max(0, too_large + 1)) if (bitwidth // 8 << n) > scratch_limit else 0
    )
    positions = common[: min(max_vec, len(common) - reserved) if vector_hint != (0, 0) else 0]
    vector_bits = len(positions)
    # Fill the rest of a 4-byte word with one side's registers, so that side at least moves
    # whole words (Triton's getVbasis does the same).
    for side in (regs_a, regs_b) if fill else ():
        for v in _independent(side, positions):
            if len(positions) >= min(sub_word, n):
                break
            positions.append(v)

    if extend is not None:
        # That side's further registers follow the shared vector (the other side's vector
        # stops where they start).
        own = regs_a if extend == "src" else regs_b
        positions += _independent(own, positions)[: max(0, max_vec - len(positions))]

    def leading(regs: Sequence[int], cols: Sequence[int]) -> int:
        basis = _Span(list(regs))
        k = 0
        while k < min(len(cols), max_vec) and basis.contains(cols[k]):
            k += 1
        return k

    def phase_lanes(layout: LinearLayout, k: int, load: bool) -> list[int]:
        lanes = _columns(layout, "lane")
        access = (1 << k) * bitwidth // 8
        if load and access > BANK_BYTES and lanes and not lanes[0]:
            lanes = lanes[1:]  # lane pairs read one address (see count_wavefronts)
        per_phase = lanes_per_phase(access, 1 << len(lanes))
        return lanes[: per_phase.bit_length() - 1]

    k_a = leading(regs_a, positions)
    k_b = leading(regs_b, positions)
    if vector_hint is not None:
        k_a, k_b = min(k_a, vector_hint[0]), min(k_b, vector_hint[1])
    lanes_a = phase_lanes(src, k_a, False)
    lanes_b = phase_lanes(dst, k_b, True)
    sub = positions[:sub_word]

    # Rounds (Triton's buildReps): directions that are registers on both sides and not in the
    # vector become the top offset bits, converted one round at a time, so the scratch buffer
    # holds only what one round moves. By default as many as leave one 128-byte row per round
    # (Triton takes them from the segment bits); more when the limit asks for it. No lane or
    # warp may reach a round bit (else a thread would take part in several rounds of one
    # instruction): rounds are independent of both sides' threads and the vector (with
    # non-unit bases a round may be a direction outside both sides' thread spans that is no
    # single common register; those come after the common registers).
    element_bytes = bitwidth // 8
    threads = [c for layout in (src, dst) for d in ("lane", "warp") for c in _columns(layout, d)]
    units = [1 << i for i in range(n - 1, -1, -1)]
    rep_pool = _independent([*reversed(common), *units], [*positions, *threads])
    wanted = min(len(rep_pool), max(0, n - row_bits))
    while wanted < len(rep_pool) and (element_bytes << (n - wanted)) > scratch_limit:
        wanted += 1
    reps = rep_pool[:wanted]

    # A complement of the vector and round directions that holds as many lane and warp
    # directions of both sides as it can: segment and bank directions are taken inside it, so
    # those lanes and warps never touch the vector bits of an offset (each thread's vectors stay
    # aligned) nor a round bit.
    sides = [[*_columns(src, "lane"), *_columns(src, "warp")]]
    sides.append([*_columns(dst, "lane"), *_columns(dst, "warp")])
    hardware = sides[1] + sides[0] if dst_first else sides[0] + sides[1]
    complement = _independent([*hardware, *(1 << i for i in range(n))], [*positions, *reps])
    coder = _Span([*positions, *reps, *complement])
    shift = len(positions) + len(reps)

    def project(c: int) -> int:
        return matrix_vector_product(complement, (coder.solve(c) or 0) >> shift)

    lanes_a_nz = [v for v in lanes_a if v]
    lanes_b_nz = [v for v in lanes_b if v]
    raw = [1 << i for i in range(n)] + [a ^ b for a in lanes_a_nz for b in lanes_b_nz]
    raw += complement + lanes_a_nz + lanes_b_nz
    pool = list(dict.fromkeys(c for c in map(project, raw) if c))
    side_a = [*lanes_a, *positions[:k_a], *sub]
    side_b = [*lanes_b, *positions[:k_b], *sub]

    # Segment directions, greedily: a candidate costs one doubling of the conflicts on a side
    # exactly when it lies in (that side's phase lanes + its vector + sub-word + segment so
    # far).
    segment: list[int] = []
    taken = _Span([*positions, *reps])
    span_a = _Span(side_a)
    span_b = _Span(side_b)
    for _ in range(max(0, n - wanted - max(row_bits, len(positions)))):
        best: tuple[int, int, int] | None = None
        for index, c in enumerate(pool):
            if taken.contains(c):
                continue
            score = int(span_a.contains(c)) + int(span_b.contains(c))
            key = (score, index, c)
            if best is None or key < best:
                best = key
            if score == 0:
                break
        assert best is not None  # unit vectors always complete the basis
        segment.append(best[2])
        taken.add(best[2])
        span_a.add(best[2])
        span_b.add(best[2])
    bank = _independent(complement, [*positions, *segment, *reps])
    columns = [*positions, *bank, *segment, *reps]
    offsets = _Span(columns)  # solve() gives a tensor direction's offset bits
    rep_mask = ((1 << wanted) - 1) << (n - wanted)
    assert not any((offsets.solve(c) or 0) & rep_mask for c in threads)
    segment = [*segment, *reps]
    sub_mask = (1 << min(sub_word, n)) - 1
    segment_mask = ((1 << n) - 1) & ~((1 << max(row_bits, 0)) - 1) if n > row_bits else 0

    def side(layout: LinearLayout, regs: list[int], load: bool) -> _Side:
        # The widest vector: leading offset bits that are this side's registers and that no
        # lane or warp touches (else a thread's vector would be misaligned or permuted).
        k = leading(regs, columns)
        lanes = _columns(layout, "lane")
        touching = 0
        for v in [*lanes, *_columns(layout, "warp")]:
            touching |= offsets.solve(v) or 0
        if touching:
            k = min(k, (touching & -touching).bit_length() - 1)
        low = (1 << k) - 1
        rest = []
        for v in _independent(regs, columns[:k]):
            bits = (offsets.solve(v) or 0) & low
            rest.append(v ^ matrix_vector_product(columns, bits))
        registers = [*columns[:k], *rest]
        access = (1 << k) * element_bytes
        if (
            load
            and access > BANK_BYTES
            and lanes
            and not (offsets.solve(lanes[0]) or 0) & ~rep_mask
        ):
            lanes = lanes[1:]  # lane pairs read one address: half as many requests
        per_phase = lanes_per_phase(access, 1 << len(lanes))
        phases = max(1, (1 << len(lanes)) // per_phase)
        # What one phase touches, in offset coordinates. Its intersection with a coordinate
        # subspace (a mask of offset bits) has dimension rank(all) - rank(outside the mask).
        touched = [offsets.solve(v) or 0 for v in lanes[: per_phase.bit_length() - 1]]
        touched += [1 << i for i in range(k)]
        outside_same_bank = ~(sub_mask | segment_mask)
        outside_same_word = ~(sub_mask | rep_mask)
        conflict = _rank([v & outside_same_word for v in touched]) - _rank(
            [v & outside_same_bank for v in touched]
        )
        distinct = _rank([v & ~rep_mask for v in touched])
        ideal = max(1, -(-(element_bytes << distinct) // ROW_BYTES))
        instructions = 1 << (len(registers) - k)
        return _Side(k, registers, phases << conflict, phases * ideal, instructions)

    return _Draft(
        columns,
        vector_bits,
        len(positions) - vector_bits + len(bank),
        len(segment),
        len(reps),
        side(src, regs_a, False),
        side(dst, regs_b, True),
        element_bytes << (n - len(reps)),
        (element_bytes << (n - len(reps))) > scratch_limit,
    )


def _check_pair(src: LinearLayout, dst: LinearLayout, bitwidth: int) -> None:
    if bitwidth not in _SUPPORTED_BITWIDTHS:
        raise LayoutError(
            f"element bit width {bitwidth} is not one of {_SUPPORTED_BITWIDTHS} (widen sub-byte "
            "elements to 8 bits and pointers to 64 bits first)"
        )
    if src.out_dims != dst.out_dims:
        raise LayoutError(
            f"the layouts cover different tensors: {src.out_dims} (source) and {dst.out_dims} "
            "(destination)"
        )
    for name, layout in (("source", src), ("destination", dst)):
        extra = [d for d in layout.get_in_dim_names() if d not in _HW_DIMS]
        if extra or not layout.has_in_dim("lane") or not layout.has_in_dim("register"):
            raise LayoutError(
                f"the {name} layout is not distributed: its in-dims are "
                f"{layout.get_in_dim_names()} (expected register, lane, warp, block)"
            )
        if layout.has_in_dim("block") and layout.get_in_dim_size("block") > 1:
            raise LayoutError(
                f"the {name} layout spans {layout.get_in_dim_size('block')} CTAs; a shared-memory "
                "plan is per CTA (cross-CTA conversions need distributed shared memory)"
            )
        if not layout.is_surjective():
            raise LayoutError(f"the {name} layout does not cover the whole tensor")
    if src.get_in_dim_size("lane") != dst.get_in_dim_size("lane"):
        raise LayoutError(
            f"the layouts use different warp sizes: {src.get_in_dim_size('lane')} (source) and "
            f"{dst.get_in_dim_size('lane')} (destination)"
        )
