"""Lowering a layout conversion to per-thread SIMT code, decided from the linear layouts alone.

:func:`plan_conversion` turns a conversion ``src -> dst`` between two distributed layouts of one
CTA into a :class:`SimtProgram`: a straight-line program that every thread runs, taking its source
registers (``vector<R_src x T>``, in the source layout's register order) and producing its
destination registers. The program is xDSL-free: ``llc/`` is numpy-only by design, so the
planners (conversions here, gathers in :mod:`llc.gather`, the cross-warp exchanges of reductions),
the cost model (:mod:`llc.cost`, which reads its instruction counts, so the figures reported are
those of the code that runs) and ``llc-layout`` use programs without building IR. Exactly one
function turns a program into SIMT dialect ops (``simt``, ``gpu``, ``arith``, ``vector``):
:func:`llc.passes.lower_conversions.materialize`, used by ``llc-lower-conversions``, by the gather
functions and by the whole-kernel lowering (``FunctionLowering.run_program``).

Strategies, cheapest first (chosen by cost, never by layout family):

* ``none`` / ``registers``: every destination register is a source register of the same thread
  (a register renaming; lane-dependent renamings use selects);
* ``shuffle``: data stays inside each warp. With ``C`` the lowering map (destination
  ``(register r, thread t)`` -> source ``(register H t ^ k r, lane S t ^ g r)``, warps fixed), the
  destination fetches in rounds ``ρ`` the register ``ρ ^ Q t``; a receiver-side register
  permutation by ``Q`` (chosen among candidates, e.g. so that the lane map becomes the identity
  and ``shfl.bfly`` suffices) undoes that. Senders pre-permute their registers by lane bits
  (``Y[j] = X[j ^ M L]``, Triton's "select the source registers by lane bits before shuffling"),
  so one shuffle moves one register of every lane. When several receivers read the same sender
  but need different registers, the sender sends each in its own round and the receiver selects
  (``Δ``); rounds with the same (lane offset, register) are shared (broadcast destinations read
  once); 8- and 16-bit values that travel together (along tensor directions that are
  registers of both layouts) share one 32-bit word for the whole program (:func:`_packed_plan`),
  so that every shuffle and select moves a word;
* ``shared``: a round trip through the swizzled shared layout of :func:`llc.swizzle.plan_swizzle`
  (vectorized stores and loads, duplicated source registers stored once, duplicated destination
  registers loaded once and copied), or with ``ldmatrix``/``stmatrix`` on one side (a broadcast
  matrix side gives its copies repeated row addresses).

Scratch and rounds. Every round trip (plain or matrix) runs in as many rounds as it can, as
Triton does (``buildReps``): the directions that are registers on both sides and that the vector
or the matrix tile does not need become rounds, so the scratch buffer holds one round (at least
one 128-byte row of it, more rounds only when the limit asks for them). Each round stores, waits
at a barrier, loads, and waits again before the next round reuses the buffer: ``2 * rounds - 1``
barriers. The reason is that scratch is the scarce resource: it competes with the pipelining
buffers of the kernel and with occupancy, while a barrier in a straight-line conversion costs a
few tens of cycles. ``scratch_limit`` is a hard bound: a conversion whose buffer cannot fit it
even in the most rounds is a :class:`LayoutError`, never a larger buffer. Round trips of one
conversion (plain, ``ldmatrix``, ``stmatrix``, ``.trans``) are ranked by wavefronts, then bank
conflicts (extra wavefronts), then shared-memory instructions, then scratch bytes, then the cycle
cost (which counts the barriers): the smaller buffer wins among equally wide accesses, never by
turning wide accesses into narrow ones. Wavefronts come first, not conflicts: a trip that reads
a broadcast (sliced) destination once per distinct register has more data to move, without a
conflict, than one that loads each distinct element once. The winner is then compared with
shuffles by cycle cost; between programs of equal cost, the one that moves less data (shared
wavefronts plus shuffles) wins.

>>> from llc.layouts import BlockedLayout
>>> src = BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0]).to_linear_layout([32, 32])
>>> dst = BlockedLayout([4, 1], [4, 8], [1, 4], [0, 1]).to_linear_layout([32, 32])
>>> plan = plan_conversion(src, dst, 32)
>>> plan.strategy, plan.instructions["st.shared"], plan.instructions["ld.shared"]
('shared', 2, 8)
>>> plan_conversion(src, src, 32).strategy
'none'
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from llc.conversion import in_dim_columns
from llc.errors import LayoutError
from llc.f2 import EchelonBasis, bit_fields, matrix_vector_product
from llc.linear_layout import LinearLayout
from llc.swizzle import (
    DEFAULT_SCRATCH_LIMIT,
    F2Span,
    independent_vectors,
    intersection,
    plan_swizzle,
    rank,
    unflatten,
    warp_wavefronts,
    with_registers,
)

__all__ = [
    "COUNTED_KINDS",
    "DEFAULT_COMPUTE_CAPABILITY",
    "LDMATRIX_MIN_CAPABILITY",
    "STMATRIX_MIN_CAPABILITY",
    "Instr",
    "LoweringPlan",
    "SimtProgram",
    "compute_capability_of",
    "exchange_program",
    "plan_conversion",
]

DEFAULT_COMPUTE_CAPABILITY = 90
"""The target a plan assumes when none is given: ``cuda:90`` (sm_90), the default ``tl.target`` of
the layout passes and ``llc-layout --arch``."""

LDMATRIX_MIN_CAPABILITY = 75
"""``ldmatrix`` needs sm_75 or higher (PTX ISA, "Warp Level Matrix Load Instruction: ldmatrix")."""

STMATRIX_MIN_CAPABILITY = 90
"""``stmatrix`` needs sm_90 or higher (PTX ISA 7.8, "Warp Level Matrix Store Instruction")."""


def compute_capability_of(target: str | None) -> int:
    """The compute capability of a ``tl.target`` string: ``"cuda:80"`` -> 80; no target ->
    :data:`DEFAULT_COMPUTE_CAPABILITY`; a target that is not CUDA (``"hip:gfx942"``) -> 0, which
    rules out ``ldmatrix`` and ``stmatrix``.

    A CUDA target without a capability (``cuda``, ``cuda:0``, as Triton's lit inputs write it)
    is :data:`llc.targets.UNSPECIFIED_CUDA_CAPABILITY`.

    >>> [compute_capability_of(t) for t in ("cuda:80", "cuda:90a", None, "hip:gfx942", "cuda")]
    [80, 90, 90, 0, 90]
    """
    from llc.targets import capability_target

    if target is None or target == "":
        return DEFAULT_COMPUTE_CAPABILITY
    target = capability_target(target)
    vendor, _, arch = target.partition(":")
    digits = arch.rstrip("a")
    if vendor != "cuda" or not digits.isdigit():
        return 0
    return int(digits)


FULL_MASK = -1
"""``shfl.sync`` member mask: every lane of the warp."""

COUNTED_KINDS: dict[str, str] = {
    "andi": "alu",
    "xori": "alu",
    "shrui": "alu",
    "shli": "alu",
    "muli": "alu",
    "cmpne": "alu",
    "select": "select",
    "shfl": "shfl",
    "st": "st.shared",
    "ld": "ld.shared",
    "ldm": "ldmatrix",
    "stm": "stmatrix",
    "barrier": "bar.sync",
}
"""Program op -> instruction kind. Register renamings (``vperm``, ``bitcast``), constants, special
registers (``thread_id``, ``lane_id``) and the allocation issue no instruction; ``select`` counts
once per element it selects (one ``selp`` each)."""

# Issue cycles per warp of each kind, as llc.cost counts them.
_CYCLES = {
    "alu": 1.0,
    "select": 1.0,
    "shfl": 2.0,
    "st.shared": 1.0,
    "ld.shared": 1.0,
    "ldmatrix": 1.0,
    "stmatrix": 1.0,
}
_WAVEFRONT_CYCLES = 2.0
_BARRIER_CYCLES = 32.0
_TRIP_COST_FLOOR = _BARRIER_CYCLES
"""No shared-memory round trip costs less: each has a barrier between its stores and loads."""


# ------------------------------------------------------------------------------ the program
@dataclass(frozen=True)
class Instr:
    """One per-thread instruction: ``result = op(args) {attrs}``.

    Types are ``("index",)``, ``("i1",)`` or ``("vec", n, elem)`` with ``elem`` ``"T"`` (the
    conversion's element type), ``"i32"`` or ``"b16"`` (``ldmatrix`` pairs of 32-bit ``T``);
    ``("smem", bytes)`` for the allocation.
    """

    op: str
    result: int | None
    type: tuple[Any, ...] | None
    args: tuple[int, ...] = ()
    attrs: tuple[tuple[str, Any], ...] = ()

    def attr(self, name: str) -> Any:
        """The attribute ``name``.

        >>> Instr("const", 1, ("index",), (), (("value", 3),)).attr("value")
        3
        """
        return dict(self.attrs)[name]


@dataclass
class SimtProgram:
    """A straight-line per-thread program; value 0 is the input ``vector<in_registers x T>``.

    >>> p = SimtProgram(4, 32)
    >>> out = p.vperm(0, 0, [3, 2, 1, 0])
    >>> p.output = out
    >>> p.counts()
    {}
    """

    in_registers: int
    bitwidth: int
    instrs: list[Instr] = field(default_factory=list)
    output: int = 0
    _next: int = 1
    _types: dict[int, tuple[Any, ...]] = field(default_factory=dict)
    _consts: dict[int, int] = field(default_factory=dict)
    _specials: dict[str, int] = field(default_factory=dict)
    _arguments: list[int] = field(default_factory=list)

    @property
    def arguments(self) -> list[int]:
        """The values of the inputs after value 0 (see :meth:`argument`)."""
        return list(self._arguments)

    def __post_init__(self) -> None:
        self._types[0] = ("vec", self.in_registers, "T")

    def type_of(self, value: int) -> tuple[Any, ...]:
        """The type of ``value``."""
        return self._types[value]

    def _emit(
        self, op: str, type_: tuple[Any, ...] | None, args: Sequence[int] = (), **attrs: Any
    ) -> int:
        result = None
        if type_ is not None:
            result = self._next
            self._next += 1
            self._types[result] = type_
        sorted_attrs = tuple(sorted(attrs.items())) if attrs else ()
        self.instrs.append(Instr(op, result, type_, tuple(args), sorted_attrs))
        return -1 if result is None else result

    # scalars
    def const(self, value: int) -> int:
        """An ``index`` constant (emitted once per value)."""
        if value not in self._consts:
            self._consts[value] = self._emit("const", ("index",), value=int(value))
        return self._consts[value]

    def special(self, which: str) -> int:
        """``thread_id`` (lane bits low, warp bits above them) or ``lane_id``."""
        if which not in self._specials:
            self._specials[which] = self._emit(which, ("index",))
        return self._specials[which]

    def binary(self, op: str, a: int, b: int) -> int:
        """``andi``, ``xori``, ``subi``, ``shrui``, ``shli`` or ``muli`` on ``index`` values."""
        return self._emit(op, ("index",), (a, b))

    def cmpne(self, a: int) -> int:
        """``a != 0`` as ``i1``."""
        return self._emit("cmpne", ("i1",), (a, self.const(0)))

    def select(self, cond: int, a: int, b: int) -> int:
        """``cond ? a : b`` (vectors select element-wise on one per-thread condition)."""
        return self._emit("select", self.type_of(a), (cond, a, b))

    def vperm(self, a: int, b: int, mask: Sequence[int]) -> int:
        """A register renaming: element ``i`` is ``concat(a, b)[mask[i]]`` (``vector.shuffle``)."""
        _, n, elem = self.type_of(a)
        # The length first: a one-element pick from a wide vector must not build its range.
        if a == b and len(mask) == n and list(mask) == list(range(n)):
            return a  # the identity renaming
        return self._emit("vperm", ("vec", len(mask), elem), (a, b), mask=tuple(mask))

    def bitcast(self, a: int, n: int, elem: str) -> int:
        """Reinterpret the bits of ``a`` as ``vector<n x elem>``."""
        return self._emit("bitcast", ("vec", n, elem), (a,))

    def bits_of(self, value: int) -> int:
        """The bits of one element of the vector ``value``.

        >>> p = SimtProgram(4, 64)
        >>> p.bits_of(0), p.bits_of(p.bitcast(0, 8, "i32"))
        (64, 32)
        """
        elem = self.type_of(value)[2]
        return {"T": self.bitwidth, "i32": 32, "b16": 16}[elem]

    def shfl(self, mode: str, value: int, b: int, c: int) -> int:
        """One ``shfl.sync.<mode>.b32`` of ``value`` (32 bits or less) with lane operand ``b``;
        :meth:`shuffle` moves a vector of any width."""
        bits = self.type_of(value)[1] * self.bits_of(value)
        if bits > 32:
            raise LayoutError(f"shfl.sync moves 32 bits per lane, not {bits}")
        return self._emit("shfl", self.type_of(value), (value, b), mode=mode, c=c, mask=FULL_MASK)

    def shuffle(self, mode: str, value: int, b: int, c: int) -> int:
        """The one shuffle emitter: every element of the vector ``value`` read from the lane
        that ``shfl.sync.<mode>`` with operand ``b`` and clamp/segment ``c`` names, in as few
        32-bit shuffles as its bits need. Elements of 8 or 16 bits travel packed, ``32 // bits``
        to a shuffle (the packing is a register move); a 32-bit element takes one shuffle; a
        64-bit element two, its halves (``i1`` masks travel as bytes: the SIMT lowering widens
        them to ``i8`` first).

        >>> p = SimtProgram(4, 16)
        >>> p.output = p.shuffle("bfly", 0, p.const(1), 31)
        >>> p.counts()["shfl"], p.type_of(p.output)
        (2, ('vec', 4, 'T'))
        >>> p = SimtProgram(2, 64)
        >>> p.output = p.shuffle("idx", 0, p.const(3), 31)
        >>> p.counts()["shfl"], [i.type for i in p.instrs if i.op == "shfl"][0]
        (4, ('vec', 1, 'i32'))
        """
        _, n, elem = self.type_of(value)
        bits = self.bits_of(value)
        if bits == 64:
            words = self.bitcast(value, 2 * n, "i32")
            moved = self.shuffle(mode, words, b, c)
            return self.bitcast(moved, n, elem)
        per_word = max(1, 32 // bits)
        if n <= per_word:
            return self.shfl(mode, value, b, c)
        parts = [
            self.shfl(mode, self.vperm(value, value, list(range(i, min(n, i + per_word)))), b, c)
            for i in range(0, n, per_word)
        ]
        return self.concat(parts)

    def argument(self, n: int, elem: str) -> int:
        """A further input ``vector<n x elem>`` (after value 0), e.g. a gather's indices; the
        materializer binds it to the next function argument."""
        value = self._next
        self._next += 1
        self._types[value] = ("vec", n, elem)
        self._arguments.append(value)
        return value

    def to_index(self, value: int) -> int:
        """The one ``i32`` of a ``vector<1xi32>`` as an ``index`` (``vector.extract`` and
        ``arith.index_cast``: a register read, no counted instruction)."""
        return self._emit("to_index", ("index",), (value,))

    # shared memory
    def alloc(self, size: int, alignment: int) -> int:
        """The scratch buffer: ``size`` bytes aligned to ``alignment``."""
        return self._emit("alloc", ("smem", size), size=size, alignment=alignment)

    def store(self, smem: int, addr: int, value: int) -> None:
        """Store ``value`` at byte address ``addr`` of ``smem``."""
        self._emit("st", None, (smem, addr, value))

    def load(self, smem: int, addr: int, n: int) -> int:
        """Load ``vector<n x T>`` from byte address ``addr`` of ``smem``."""
        return self._emit("ld", ("vec", n, "T"), (smem, addr))

    def ldmatrix(self, smem: int, addr: int, count: int, trans: bool) -> int:
        """``ldmatrix.x{count}[.trans]`` (rows at ``addr``): two b16 of each matrix, as
        ``vector<2*count x T>`` for 16-bit ``T``, ``vector<count x T>`` for 32-bit ``T``."""
        if self.bitwidth == 16:
            return self._emit(
                "ldm", ("vec", 2 * count, "T"), (smem, addr), count=count, trans=trans
            )
        pairs = self._emit("ldm", ("vec", 2 * count, "b16"), (smem, addr), count=count, trans=trans)
        return self.bitcast(pairs, count, "T")

    def stmatrix(self, smem: int, addr: int, value: int, count: int, trans: bool) -> None:
        """``stmatrix.x{count}[.trans]`` of ``value`` (the layout of :meth:`ldmatrix`)."""
        if self.bitwidth != 16:
            value = self.bitcast(value, 2 * count, "b16")
        self._emit("stm", None, (smem, addr, value), count=count, trans=trans)

    def barrier(self) -> None:
        """A CTA barrier."""
        self._emit("barrier", None)

    # helpers
    def linear(self, columns: Sequence[int], of: int | None = None) -> int:
        """``XOR_b bit_b(x) * columns[b]``: an F2-linear function of the value ``of`` (default:
        the thread id)."""
        t = self.special("thread_id") if of is None else of
        acc: int | None = None
        for term in bit_fields(columns):
            x = t if term.bit == 0 else self.binary("shrui", t, self.const(term.bit))
            x = self.binary("andi", x, self.const((1 << term.width) - 1))
            if term.shift is None:
                x = self.binary("muli", x, self.const(term.factor))
            elif term.shift:
                x = self.binary("shli", x, self.const(term.shift))
            acc = x if acc is None else self.binary("xori", acc, x)
        return self.const(0) if acc is None else acc

    def xor_const(self, a: int, value: int) -> int:
        """``a ^ value`` (no instruction when ``value`` is 0)."""
        return a if not value else self.binary("xori", a, self.const(value))

    def thread_bit(self, bit: int) -> int:
        """``bit`` of the thread id as ``i1`` (computed once per bit)."""
        key = f"bit{bit}"
        if key not in self._specials:
            t = self.special("thread_id")
            x = t if bit == 0 else self.binary("shrui", t, self.const(bit))
            self._specials[key] = self.cmpne(self.binary("andi", x, self.const(1)))
        return self._specials[key]

    def permute_by_thread(self, vec: int, bit: int, mask: int) -> int:
        """``V[j] = V[j ^ mask]`` in threads whose id has bit ``bit`` set."""
        cond = self.thread_bit(bit)
        n = self.type_of(vec)[1]
        swapped = self.vperm(vec, vec, [j ^ mask for j in range(n)])
        return self.select(cond, swapped, vec)

    def concat(self, values: Sequence[int]) -> int:
        """One vector of all ``values`` (vectors of the same element type), in order."""
        parts = list(values)
        while len(parts) > 1:
            merged = []
            for i in range(0, len(parts) - 1, 2):
                a, b = parts[i], parts[i + 1]
                n = self.type_of(a)[1] + self.type_of(b)[1]
                merged.append(self.vperm(a, b, list(range(n))))
            if len(parts) % 2:
                merged.append(parts[-1])
            parts = merged
        return parts[0]

    def counts(self) -> dict[str, int]:
        """Instructions per thread by kind (see :data:`COUNTED_KINDS`)."""
        out: dict[str, int] = {}
        for ins in self.instrs:
            kind = COUNTED_KINDS.get(ins.op)
            if kind is None:
                continue
            n = ins.type[1] if ins.op == "select" and ins.type and ins.type[0] == "vec" else 1
            out[kind] = out.get(kind, 0) + n
        return dict(sorted(out.items()))


def exchange_program(registers: int, bitwidth: int, threads: int, thread_mask: int) -> SimtProgram:
    """The shared-memory exchange between warps: thread ``t`` receives the ``registers``
    registers (``bitwidth`` bits each) of thread ``t ^ thread_mask``. Every thread stores its
    registers, a barrier, every thread loads its peer's, and a barrier before the buffer is used
    again; accesses are 16 bytes wide at most, chunk-major (chunk ``c`` of thread ``t`` at byte
    ``(c * threads + t) * chunk``) so that a warp's access is one contiguous run: no bank
    conflict. A cross-warp step of a reduction runs it.

    >>> p = exchange_program(2, 64, 128, 32)    # two f64 registers per thread, 4 warps
    >>> p.counts()["st.shared"], p.counts()["ld.shared"], p.counts()["bar.sync"]
    (1, 1, 2)
    >>> [i.attr("size") for i in p.instrs if i.op == "alloc"]
    [2048]
    """
    item = max(1, bitwidth // 8)
    row = registers * item
    chunk = min(row, 16)
    per = chunk // item
    p = SimtProgram(registers, bitwidth)
    smem = p.alloc(row * threads, 16)
    # chunk << b for each thread bit: the thread's byte offset in chunk 0 (F2-linear, so the
    # peer's offset is one xor away, and chunk c lies above every thread's offset)
    mine = p.linear([chunk << b for b in range((threads - 1).bit_length())])
    peer = p.xor_const(mine, thread_mask * chunk)
    for c in range(0, registers, per):
        addr = p.xor_const(mine, c // per * threads * chunk)
        p.store(smem, addr, p.vperm(0, 0, list(range(c, c + per))))
    p.barrier()
    parts = [
        p.load(smem, p.xor_const(peer, c // per * threads * chunk), per)
        for c in range(0, registers, per)
    ]
    p.barrier()
    p.output = p.concat(parts)
    return p


# ------------------------------------------------------------------------------ wavefronts
# ------------------------------------------------------------------------------ the plan
@dataclass(frozen=True)
class LoweringPlan:
    """The lowered conversion: strategy, program and figures (per thread / per warp).

    ``instructions`` counts per-thread instructions by kind; ``wavefronts`` and
    ``ideal_wavefronts`` are shared-memory wavefronts per warp (summed over its instructions);
    ``shared_bytes`` is the scratch buffer; ``rounds`` the store/load rounds.
    """

    strategy: str
    program: SimtProgram
    bitwidth: int
    src_registers: int
    dst_registers: int
    num_warps: int
    threads_per_warp: int
    instructions: dict[str, int]
    shared_bytes: int = 0
    wavefronts: int = 0
    ideal_wavefronts: int = 0
    rounds: int = 0
    cost: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        """Issue 10's plan object.

        >>> ll = LinearLayout.from_bases([("register", [[1]]), ("lane", [[2]])], ["dim0"])
        >>> plan_conversion(ll, ll, 32).as_dict()["strategy"]
        'none'
        """
        return {
            "strategy": self.strategy,
            "instructions": dict(self.instructions),
            "shared_bytes": self.shared_bytes,
            "wavefronts": self.wavefronts,
            "ideal_wavefronts": self.ideal_wavefronts,
        }


def plan_conversion(
    src: LinearLayout,
    dst: LinearLayout,
    bitwidth: int,
    scratch_limit: int = DEFAULT_SCRATCH_LIMIT,
    force: str | None = None,
    compute_capability: int = DEFAULT_COMPUTE_CAPABILITY,
) -> LoweringPlan:
    """Lower ``src -> dst`` (one CTA, element width ``bitwidth``) to the cheapest program.

    ``compute_capability`` (80 for sm_80, :func:`compute_capability_of` a ``tl.target``) gates the
    matrix instructions: ``ldmatrix`` only from :data:`LDMATRIX_MIN_CAPABILITY` (75), ``stmatrix``
    only from :data:`STMATRIX_MIN_CAPABILITY` (90).

    ``scratch_limit`` bounds the shared-memory buffer (a round trip runs in as many rounds as
    the layouts allow; see "Scratch and rounds" above); a conversion that cannot fit it and
    cannot use shuffles raises :class:`LayoutError`.

    ``force`` (``"shuffle"`` or ``"shared"``: the round trip with plain ``ld``/``st.shared``
    vectors, no ``ldmatrix``/``stmatrix``) skips the cost comparison, for tests; a forced
    shuffle lowering of a conversion that crosses warps raises :class:`LayoutError`. Cached.

    >>> regs = LinearLayout.from_bases([("register", [[1], [2]]), ("lane", [[4]])], ["dim0"])
    >>> swap = LinearLayout.from_bases([("register", [[2], [1]]), ("lane", [[4]])], ["dim0"])
    >>> plan_conversion(regs, swap, 32).strategy
    'registers'
    """
    return _plan(src, dst, int(bitwidth), int(scratch_limit), force, int(compute_capability))


@functools.lru_cache(maxsize=2048)
def _plan(
    src: LinearLayout,
    dst: LinearLayout,
    bitwidth: int,
    scratch_limit: int,
    force: str | None,
    compute_capability: int,
) -> LoweringPlan:
    _check(src, dst, bitwidth)
    candidates: list[LoweringPlan] = []
    if force != "shared":
        warp_local = _warp_local_plan(src, dst, bitwidth)
        if warp_local is None and force == "shuffle":
            raise LayoutError("the conversion moves data across warps: it cannot use shuffles")
        if warp_local is not None:
            candidates.append(warp_local)
    # Every shared-memory round trip waits at a CTA barrier (``_round_trip``): a warp-local
    # program cheaper than that barrier alone already wins, and planning the trips (swizzle
    # search, matrix tiles) is most of the planner's time when the solver prices conversions.
    settled = candidates and (
        candidates[0].strategy in ("none", "registers")
        or (force is None and candidates[0].cost < _TRIP_COST_FLOOR)
    )
    if force != "shuffle" and not settled:
        trips: list[LoweringPlan] = []
        too_large: LayoutError | None = None
        try:
            trips.append(_shared_plan(src, dst, bitwidth, scratch_limit))
        except LayoutError as error:  # the scratch limit; a matrix trip may still fit
            too_large = error
        sides = [
            side
            for side, least in (("ld", LDMATRIX_MIN_CAPABILITY), ("st", STMATRIX_MIN_CAPABILITY))
            if compute_capability >= least
        ]
        for side in sides if force is None else ():
            for trans in (False, True):
                trip = _matrix_trip(src, dst, bitwidth, scratch_limit, side, trans)
                if trip is not None:
                    trips.append(_round_trip(src, dst, bitwidth, trip))
        if not trips and (force == "shared" or not candidates):
            assert too_large is not None
            if sides and force is None:
                raise LayoutError(f"{too_large}; no ldmatrix/stmatrix round trip fits either")
            raise too_large
        if trips:
            candidates.append(min(trips, key=_trip_rank))
    chosen = min(candidates, key=_plan_rank)
    assert chosen.shared_bytes <= scratch_limit, "the scratch limit is a hard bound"
    return chosen


def _plan_rank(plan: LoweringPlan) -> tuple[float, int]:
    """How programs of one conversion compare: the cycle cost, then the data they move (shared
    wavefronts per warp plus shuffles per thread) between programs of equal cost."""
    return plan.cost, plan.wavefronts + plan.instructions.get("shfl", 0)


def _shuffle_rank(plan: LoweringPlan) -> tuple[float, float]:
    """How warp-local programs of one conversion compare: the cycle cost with each shuffle
    charged one wavefront more, then the cycle cost. A shuffle goes through the shared-memory
    crossbar as a shared access does, so trading it for selects (which never leave the thread)
    pays even where the issue cycles alone come out a cycle apart: a 32-element f16 vector
    going to a layout that repeats it over lanes takes 2 shuffles and 4 selects of words, as
    Triton does, not 4 shuffles. Against shared memory the plain cycle cost decides
    (:func:`_plan_rank`)."""
    shuffles = plan.instructions.get("shfl", 0)
    return plan.cost + _WAVEFRONT_CYCLES * shuffles, plan.cost


def _trip_rank(plan: LoweringPlan) -> tuple[int, int, int, int, float]:
    """How shared-memory round trips of one conversion compare: fewest wavefronts, then fewest
    bank conflicts (extra wavefronts), then fewest shared-memory instructions, then the smallest
    scratch buffer, then the cycle cost (see the module docstring, "Scratch and rounds")."""
    accesses = sum(plan.instructions.get(k, 0) for k in _SHARED_KINDS)
    conflicts = plan.wavefronts - plan.ideal_wavefronts
    return plan.wavefronts, conflicts, accesses, plan.shared_bytes, plan.cost


_SHARED_KINDS = ("st.shared", "ld.shared", "ldmatrix", "stmatrix")


def _dims(layout: LinearLayout, dim: str) -> list[int]:
    return in_dim_columns(layout, dim)


def _check(src: LinearLayout, dst: LinearLayout, bitwidth: int) -> None:
    if bitwidth not in (8, 16, 32, 64):
        raise LayoutError(f"element bit width {bitwidth} is not 8, 16, 32 or 64")
    if src.out_dims != dst.out_dims:
        raise LayoutError(
            f"the layouts cover different tensors: {src.out_dims} (source) and "
            f"{dst.out_dims} (destination)"
        )
    for role, ll in (("source", src), ("destination", dst)):
        if not ll.has_in_dim("register") or not ll.has_in_dim("lane"):
            raise LayoutError(f"the {role} layout is not distributed ({ll.get_in_dim_names()})")
        if ll.has_in_dim("block") and ll.get_in_dim_size("block") > 1:
            raise LayoutError(
                f"the {role} layout spans {ll.get_in_dim_size('block')} CTAs; the lowering "
                "handles one CTA"
            )
    for dim in ("lane", "warp"):
        a = src.get_in_dim_size(dim) if src.has_in_dim(dim) else 1
        b = dst.get_in_dim_size(dim) if dst.has_in_dim(dim) else 1
        if a != b:
            raise LayoutError(f"the layouts use different {dim} counts: {a} and {b}")


def _cost(counts: dict[str, int], wavefronts: int = 0, barriers: int = 0) -> float:
    issue = sum(_CYCLES.get(k, 0.0) * n for k, n in counts.items())
    return issue + wavefronts * _WAVEFRONT_CYCLES + barriers * _BARRIER_CYCLES


# ------------------------------------------------------------------------------ within a warp
@dataclass
class _WarpMap:
    """The lowering map within a warp, over thread bits t (lane bits, then warp bits)."""

    n_src_regs: int
    n_dst_regs: int
    n_lanes: int
    S: list[int]  # t bit -> source lane
    H: list[int]  # t bit -> source register
    g: list[int]  # destination register bit -> source lane
    k: list[int]  # destination register bit -> source register


def _warp_map(src: LinearLayout, dst: LinearLayout) -> _WarpMap | None:
    return _warp_map_of(_Columns.of(src), _Columns.of(dst))


@dataclass(frozen=True)
class _Columns:
    """A distributed layout as its bit-packed tensor columns per hardware dim (a layout of
    packed words is one of these whose columns are taken modulo the packing directions)."""

    registers: tuple[int, ...]
    lanes: tuple[int, ...]
    warps: tuple[int, ...]

    @staticmethod
    def of(layout: LinearLayout) -> _Columns:
        return _Columns(
            tuple(_dims(layout, "register")),
            tuple(_dims(layout, "lane")),
            tuple(_dims(layout, "warp")),
        )


def _warp_map_of(src: _Columns, dst: _Columns) -> _WarpMap | None:
    src_regs, src_lanes = src.registers, src.lanes
    solver = EchelonBasis([*src_regs, *src_lanes])
    nr = len(src_regs)
    reg_mask = (1 << nr) - 1

    def split(vector: int) -> tuple[int, int] | None:
        sol = solver.solve(vector)
        return None if sol is None else (sol & reg_mask, sol >> nr)

    g: list[int] = []
    k: list[int] = []
    for col in dst.registers:
        sol = split(col)
        if sol is None:
            return None
        k.append(sol[0])
        g.append(sol[1])
    S: list[int] = []
    H: list[int] = []
    for col in dst.lanes:
        sol = split(col)
        if sol is None:
            return None
        H.append(sol[0])
        S.append(sol[1])
    for a, b in zip(dst.warps, src.warps, strict=True):
        sol = split(a ^ b)
        if sol is None:
            return None
        H.append(sol[0])
        S.append(sol[1])
    return _WarpMap(nr, len(k), len(src_lanes), S, H, g, k)


def _prefer_own_lane(
    src_regs: Sequence[int],
    src_lanes: Sequence[int],
    S: list[int],
    H: list[int],
    g: list[int],
    k: list[int],
) -> None:
    """Where the source holds an element in several lanes (a broadcast: source (register, lane)
    combinations that reach no tensor direction), take it from the receiving thread's own lane.

    The solution of each map column is unique only up to that kernel: a destination thread bit
    ``b`` may read source lane ``S[b]`` or ``S[b] ^ x`` for any lane part ``x`` of a kernel
    vector, with the register changed by the vector's register part. Choosing the thread's own
    lane (``S[b] = 1 << b`` for a lane bit, ``0`` for a warp bit) and no lane offset for a
    destination register (``g[r] = 0``) turns shuffles into register moves: a 128x1 tensor whose
    lanes along dim1 all hold the same rows needs no shuffle at all. In place.
    """
    nr = len(src_regs)
    reg_mask = (1 << nr) - 1
    combined = [*src_regs, *src_lanes]
    kernel = _kernel(combined)
    lane_parts = [v >> nr for v in kernel]
    solver = EchelonBasis(lane_parts)
    if not solver.rank:
        return

    def move(lane_delta: int) -> int | None:
        """The register part that goes with changing the source lane by ``lane_delta``."""
        combination = solver.solve(lane_delta)
        if combination is None:
            return None
        return matrix_vector_product([v & reg_mask for v in kernel], combination)

    n_lanes = len(src_lanes)
    for b in range(len(S)):
        target = (1 << b) if b < n_lanes else 0
        reg = move(S[b] ^ target)
        if reg is not None:
            S[b], H[b] = target, H[b] ^ reg
    for r in range(len(g)):
        reg = move(g[r])
        if reg is not None:
            g[r], k[r] = 0, k[r] ^ reg


def _generalized_inverse(S: Sequence[int], n_lanes: int) -> list[int]:
    """P with S P S = S: lane unit vector -> thread vector (a preimage on the image of S)."""
    basis = EchelonBasis(S)
    chosen = [S[p] for p in basis.pivots]
    lifts = [1 << p for p in basis.pivots]
    for j in range(n_lanes):
        if not EchelonBasis(chosen).contains(1 << j):
            chosen.append(1 << j)
    solver = EchelonBasis(chosen)
    low = (1 << len(lifts)) - 1
    return [matrix_vector_product(lifts, (solver.solve(1 << j) or 0) & low) for j in range(n_lanes)]


def _q_candidates(wm: _WarpMap) -> list[list[int]]:
    n_t = len(wm.S)
    zero = [0] * n_t
    out = [zero]
    g_solver = EchelonBasis(wm.g)
    # Make the lane map the identity (shfl.bfly) where destination registers allow it.
    ident = []
    for b in range(n_t):
        target = (1 << b) if b < wm.n_lanes else 0
        sol = g_solver.solve(wm.S[b] ^ target)
        if sol is None:
            ident = []
            break
        ident.append(sol)
    if ident and any(ident):
        out.append(ident)
    # Make receivers that share a sender fetch different registers in one round.
    kernel = _kernel(wm.S)
    q = list(zero)
    used = EchelonBasis([s for s in wm.S if s])
    used_list = [s for s in wm.S if s]
    for kv in kernel:
        if not matrix_vector_product(wm.H, kv):
            continue
        for rbit, gcol in enumerate(wm.g):
            if gcol and not used.contains(gcol):
                q[kv.bit_length() - 1] = 1 << rbit
                used_list.append(gcol)
                used = EchelonBasis(used_list)
                break
    if any(q) and q not in out:
        out.append(q)
    return out


def _kernel(columns: Sequence[int]) -> list[int]:
    """A basis of {x : XOR of columns selected by x == 0}, distinct leading bits."""
    basis = EchelonBasis(columns)
    out = []
    for f in basis.free_columns:
        combo = basis.solve(columns[f]) or 0
        out.append(combo | (1 << f))
    return out


def _warp_local_plan(src: LinearLayout, dst: LinearLayout, bitwidth: int) -> LoweringPlan | None:
    best: LoweringPlan | None = None
    for wm, q in _shuffle_maps(_Columns.of(src), _Columns.of(dst)):
        plan = _shuffle_program(wm, q, bitwidth)
        if best is None or _shuffle_rank(plan) < _shuffle_rank(best):
            best = plan
    if best is not None and best.strategy == "shuffle" and bitwidth < 32:
        packed = _packed_plan(src, dst, bitwidth)
        if packed is not None and _shuffle_rank(packed) < _shuffle_rank(best):
            best = packed
    return best


def _shuffle_maps(src: _Columns, dst: _Columns) -> list[tuple[_WarpMap, list[int]]]:
    """The warp maps a shuffle program may implement, each with its receiver permutations ``Q``.

    The map is unique only up to the source's copies (a broadcast source holds an element in
    several lanes): the solved map, the one that reads the own lane, and the one that spreads
    receivers over copies are all tried, the cheapest program wins. None where data crosses
    warps.
    """
    wm = _warp_map_of(src, dst)
    if wm is None:
        return []
    own = _WarpMap(wm.n_src_regs, wm.n_dst_regs, wm.n_lanes, *map(list, (wm.S, wm.H, wm.g, wm.k)))
    _prefer_own_lane(src.registers, src.lanes, own.S, own.H, own.g, own.k)
    variants = [wm]
    for variant in (own, _spread_over_copies(src, wm)):
        if variant is not None and variant not in variants:
            variants.append(variant)
    return [(variant, q) for variant in variants for q in _q_candidates(variant)]


_PACK_CHOICES = 4
"""How many of the directions that both layouts keep in registers are tried as packing
directions (each choice of ``32 / bits`` of them is one candidate)."""


def _packed_plan(src: LinearLayout, dst: LinearLayout, bitwidth: int) -> LoweringPlan | None:
    """The warp-local program on packed words: 8- and 16-bit values that travel together, from
    one source thread to one destination thread, share a 32-bit word for the whole program, so
    that every shuffle and every select moves a word (Triton packs the same way), or None where
    no pair of values travels together.

    Values travel together along the tensor directions that are register directions of both
    layouts (``span(src registers) ∩ span(dst registers)``): along such a direction ``w``, the
    values ``x`` and ``x ^ w`` sit in one source thread and in one destination thread. Choosing
    ``log2(32 / bits)`` of them (the *packing* directions ``W``) makes each word hold the values
    ``x ^ W j``; the conversion of words is the conversion of the layouts taken modulo ``W``,
    planned by the ordinary shuffle planner on ``i32`` (or ``b16`` for two bytes). Modulo ``W`` a
    source word may be the destination's word with its values in another order (the source's
    columns differ from the destination's by a packing direction): that order is a linear
    function of the destination register (a renaming) and thread (a select per value), undone
    after the shuffles.

    A dot operand with ``kWidth`` 1 read from an Ampere accumulator, 16x64 i8: 16 shuffles of
    values one by one, or 8 of words.

    >>> from llc.layouts.nvidia import DotOperandLayout, NvidiaMmaLayout
    >>> mma = NvidiaMmaLayout(2, 0, [4, 1], [16, 8])
    >>> src = mma.to_linear_layout([16, 64])
    >>> dst = DotOperandLayout(0, mma, 1).to_linear_layout([16, 64])
    >>> _packed_plan(src, dst, 8).instructions["shfl"]
    8
    """
    per = 32 // bitwidth
    s_cols, d_cols = _Columns.of(src), _Columns.of(dst)
    common = intersection(s_cols.registers, d_cols.registers, src.total_out_size_log2)
    count = min(per.bit_length() - 1, len(common))
    best: LoweringPlan | None = None
    if not count:
        return None
    for pack in itertools.combinations(common[:_PACK_CHOICES], count):
        plan = _packed_program(src, dst, bitwidth, list(pack))
        if plan is not None and (best is None or _shuffle_rank(plan) < _shuffle_rank(best)):
            best = plan
    return best


def _packed_program(
    src: LinearLayout, dst: LinearLayout, bitwidth: int, pack: list[int]
) -> LoweringPlan | None:
    """:func:`_packed_plan` for the packing directions ``pack`` (the cheapest word program)."""
    packing = EchelonBasis(pack)
    per = 1 << len(pack)
    word_bits = bitwidth * per
    elem = "i32" if word_bits == 32 else "b16"
    s, d = _Columns.of(src), _Columns.of(dst)
    s_rest = independent_vectors(list(s.registers), pack)
    d_rest = independent_vectors(list(d.registers), pack)

    def modulo(columns: Sequence[int]) -> tuple[int, ...]:
        return tuple(packing.reduce(v)[0] for v in columns)

    words_src = _Columns(modulo(s_rest), modulo(s.lanes), modulo(s.warps))
    words_dst = _Columns(modulo(d_rest), modulo(d.lanes), modulo(d.warps))
    n_lanes = len(s.lanes)
    R_src, R_dst = 1 << len(s.registers), 1 << len(d.registers)
    src_index = _register_index(src)
    in_mask = [
        src_index[matrix_vector_product(s_rest, r) ^ matrix_vector_product(pack, j)]
        for r in range(1 << len(s_rest))
        for j in range(per)
    ]
    n_out = (1 << len(d_rest)) * per
    position = {
        matrix_vector_product(d_rest, i // per) ^ matrix_vector_product(pack, i % per): i
        for i in range(n_out)
    }
    out_mask = [position[matrix_vector_product(list(d.registers), r)] for r in range(R_dst)]

    def order(target: int, registers: int, lanes: int) -> int:
        """The packing coordinates by which the source's word differs from the destination's."""
        got = matrix_vector_product(s_rest, registers) ^ matrix_vector_product(list(s.lanes), lanes)
        residual, combination = packing.reduce(target ^ got)
        assert not residual, "the word map is the value map modulo the packing directions"
        return combination

    best: LoweringPlan | None = None
    for wm, q in _shuffle_maps(words_src, words_dst):
        p = SimtProgram(R_src, bitwidth)
        words = p.bitcast(p.vperm(0, 0, in_mask), len(in_mask) // per, elem)
        moved = _shuffle_body(p, words, wm, q, word_bits)
        if not p.counts().get("shfl"):
            continue
        by_register = [order(d_rest[r], wm.k[r], wm.g[r]) for r in range(len(d_rest))]
        by_thread = [
            order(
                d.lanes[b] if b < n_lanes else d.warps[b - n_lanes] ^ s.warps[b - n_lanes],
                wm.H[b],
                wm.S[b],
            )
            for b in range(len(wm.S))
        ]
        values = p.bitcast(moved, n_out, "T")
        mask = [
            i ^ matrix_vector_product(by_register, i // per) if by_register else i
            for i in range(n_out)
        ]
        values = p.vperm(values, values, mask)
        for b, c in enumerate(by_thread):
            if c:
                values = p.permute_by_thread(values, b, c)
        p.output = p.vperm(values, values, out_mask)
        counts = p.counts()
        plan = LoweringPlan(
            "shuffle",
            p,
            bitwidth,
            R_src,
            R_dst,
            1 << (len(wm.S) - n_lanes),
            1 << n_lanes,
            counts,
            cost=_cost(counts),
        )
        if best is None or _shuffle_rank(plan) < _shuffle_rank(best):
            best = plan
    return best


def _spread_over_copies(src: _Columns, wm: _WarpMap) -> _WarpMap | None:
    """The map with receivers that share a sender but need different registers of it moved to
    other copies of that sender (source lanes that hold the same elements), or None where there
    is nothing to move.

    Two receivers reading one sender lane but different registers cost a shuffle each and a
    select (``Δ`` in the module docstring). Where the source is broadcast over a lane bit, the
    receivers can read different copies instead: the receiver bit then selects the copy, and
    each copy pre-permutes its registers by that lane bit, so one shuffle serves both (Triton
    gets the same from its choice of senders). A 1x128 f32 Hopper accumulator to an Ampere
    operand goes from 64 shuffles and 64 selects to 32 shuffles.
    """
    nr = len(src.registers)
    kernel = [v for v in _kernel([*src.registers, *src.lanes]) if v >> nr]
    if not kernel:
        return None
    lane_parts = [v >> nr for v in kernel]
    reg_parts = [v & ((1 << nr) - 1) for v in kernel]
    copies_basis = EchelonBasis(lane_parts)
    # First every receiver bit reads the copy with the fewest lane bits (copies are equal), so
    # receivers that may share a sender do; then each receiver bit that must not share (it
    # needs another register) gets a copy direction of its own.
    S, H = list(wm.S), list(wm.H)
    for b, lane in enumerate(S):
        residual, combination = copies_basis.reduce(lane)
        S[b] = residual
        H[b] ^= matrix_vector_product(reg_parts, combination)
    changed = S != wm.S
    for _ in range(len(S)):
        used = EchelonBasis([v for v in S if v])
        clash = next((kv for kv in _kernel(S) if matrix_vector_product(H, kv)), None)
        if clash is None:
            break
        free = next((i for i, c in enumerate(lane_parts) if not used.contains(c)), None)
        if free is None:
            break
        b = clash.bit_length() - 1  # a receiver bit whose sender the lower bits already give
        S[b] ^= lane_parts[free]
        H[b] ^= reg_parts[free]
        changed = True
    return _WarpMap(wm.n_src_regs, wm.n_dst_regs, wm.n_lanes, S, H, wm.g, wm.k) if changed else None


def _shuffle_program(wm: _WarpMap, Q: list[int], bitwidth: int) -> LoweringPlan:
    n_t = len(wm.S)
    R_src = 1 << wm.n_src_regs
    R_dst = 1 << wm.n_dst_regs
    p = SimtProgram(R_src, bitwidth)
    p.output = _shuffle_body(p, 0, wm, Q, bitwidth)
    counts = p.counts()
    strategy = "shuffle" if counts.get("shfl") else "registers"
    if not counts:
        # Nothing but renaming: every destination register is source register k ρ.
        p = SimtProgram(R_src, bitwidth)
        mask = [matrix_vector_product(wm.k, rho) for rho in range(R_dst)]
        if mask == list(range(R_src)):
            strategy = "none"
        else:
            p.output = p.vperm(0, 0, mask)
    return LoweringPlan(
        strategy,
        p,
        bitwidth,
        R_src,
        R_dst,
        1 << (n_t - wm.n_lanes),
        1 << wm.n_lanes,
        counts,
        cost=_cost(counts),
    )


def _shuffle_body(p: SimtProgram, x: int, wm: _WarpMap, Q: list[int], bits: int) -> int:
    """Emit into ``p`` the shuffles, selects and renamings that take the registers ``x`` (one
    per source register of ``wm``, ``bits`` wide) to the destination's; returns the result."""
    n_t = len(wm.S)
    lane_mask = (1 << wm.n_lanes) - 1
    # Fetch register ρ ^ Q t in round ρ: the map seen by the rounds.
    S2 = [wm.S[b] ^ matrix_vector_product(wm.g, Q[b]) for b in range(n_t)]
    H2 = [wm.H[b] ^ matrix_vector_product(wm.k, Q[b]) for b in range(n_t)]
    P = _generalized_inverse(S2, wm.n_lanes)
    M = [
        matrix_vector_product(H2, P[j]) for j in range(wm.n_lanes)
    ]  # sender lane bit -> register xor
    delta = []
    for b in range(n_t):
        delta.append(H2[b] ^ matrix_vector_product(H2, matrix_vector_product(P, S2[b])))
    d_basis_solver = EchelonBasis(delta)
    D = [delta[p] for p in d_basis_solver.pivots]
    d_solver = EchelonBasis(D)
    # phi[i][b]: coordinate i of delta[b] in the basis D.
    phi = [[((d_solver.solve(delta[b]) or 0) >> i) & 1 for b in range(n_t)] for i in range(len(D))]
    xor_mode = all(S2[b] == ((1 << b) if b < wm.n_lanes else 0) for b in range(n_t))

    R_src = p.type_of(x)[1]
    R_dst = 1 << wm.n_dst_regs
    base = None if xor_mode else p.linear(S2)
    conds = [p.thread_bit(col.index(1)) if sum(col) == 1 else p.cmpne(p.linear(col)) for col in phi]
    c_operand = lane_mask  # clamp = last lane, no segments: the whole warp
    # The (lane offset, sender register) each destination register ρ needs, per coordinate a
    # of Δ t.
    wanted: list[list[tuple[int, int]]] = []
    for rho in range(R_dst):
        g_rho = matrix_vector_product(wm.g, rho)
        base_reg = matrix_vector_product(M, g_rho) ^ matrix_vector_product(wm.k, rho)
        wanted.append([(g_rho, base_reg ^ matrix_vector_product(D, a)) for a in range(1 << len(D))])
    # One shuffle per lane offset and 32-bit word: narrow elements with the same lane offset
    # travel packed (the packing is a register move); 64-bit elements take two shuffles.
    # (Ordered sets: a wide source, thousands of registers per offset, made the list
    # membership test quadratic.)
    ordered: dict[int, dict[int, None]] = {}
    for keys in wanted:
        for lane_offset, reg in keys:
            ordered.setdefault(lane_offset, {})[reg] = None
    by_offset = {offset: list(regs) for offset, regs in ordered.items()}
    # Senders pre-permute only the registers they send (and those the permutation moves into
    # them): a select per register and lane bit, not per source register.
    sent = {reg for regs in by_offset.values() for reg in regs}
    for m in M:
        if m:
            sent |= {reg ^ m for reg in sent}
    order = sorted(sent)
    at = {reg: i for i, reg in enumerate(order)}
    Y = x if len(order) == R_src else p.vperm(x, x, order)
    for j in range(wm.n_lanes):
        if M[j]:
            cond = p.thread_bit(j)
            swapped = p.vperm(Y, Y, [at[reg ^ M[j]] for reg in order])
            Y = p.select(cond, swapped, Y)
    per_word = max(1, 32 // bits)
    fetched: dict[tuple[int, int], int] = {}
    mode = "bfly" if xor_mode else "idx"
    for lane_offset, regs in by_offset.items():
        if xor_mode and lane_offset == 0:
            for reg in regs:
                fetched[(0, reg)] = p.vperm(Y, Y, [at[reg]])
            continue
        b = p.const(lane_offset) if xor_mode else p.xor_const(base, lane_offset)
        for start in range(0, len(regs), per_word):
            group = regs[start : start + per_word]
            value = p.shuffle(mode, p.vperm(Y, Y, [at[reg] for reg in group]), b, c_operand)
            for position, reg in enumerate(group):
                fetched[(lane_offset, reg)] = (
                    value if len(group) == 1 else p.vperm(value, value, [position])
                )

    Z: list[int] = []
    for keys in wanted:
        options = [fetched[key] for key in keys]
        for i in range(len(D)):  # a multiplexer on the coordinates of Δ t, lowest first
            options = [
                p.select(conds[i], options[2 * j + 1], options[2 * j])
                for j in range(len(options) // 2)
            ]
        Z.append(options[0])
    unique = list(dict.fromkeys(Z))
    gathered = p.concat(unique)
    index = {v: i for i, v in enumerate(unique)}
    out = gathered
    mask = [index[z] for z in Z]
    if mask != list(range(len(unique))) or len(unique) != R_dst:
        out = p.vperm(gathered, gathered, mask)
    for b in range(n_t):
        if Q[b]:
            out = p.permute_by_thread(out, b, Q[b])
    return out


# ------------------------------------------------------------------------------ shared memory
def _register_index(layout: LinearLayout) -> dict[int, int]:
    """Tensor image of each register index -> the first register index holding it."""
    cols = _dims(layout, "register")
    out: dict[int, int] = {}
    for r in range(1 << len(cols)):
        out.setdefault(matrix_vector_product(cols, r), r)
    return out


def _shared_plan(
    src: LinearLayout, dst: LinearLayout, bitwidth: int, scratch_limit: int
) -> LoweringPlan:
    plan = plan_swizzle(src, dst, bitwidth, scratch_limit)
    if plan.scratch_bytes > scratch_limit:
        rounds = f"{plan.rounds} round{'s' if plan.rounds > 1 else ''}"
        raise LayoutError(
            f"the ld/st.shared round trip needs {plan.scratch_bytes} bytes of scratch even in "
            f"{rounds} (rounds need register directions common to both layouts), more than the "
            f"scratch limit of {scratch_limit} bytes"
        )
    return _round_trip(
        src,
        dst,
        bitwidth,
        _Trip(
            plan.store_layout,
            plan.load_layout,
            plan.store_map,
            plan.load_map,
            plan.store_vector,
            plan.load_vector,
            plan.scratch_elements.bit_length() - 1,
            plan.rep_bits,
        ),
    )


@dataclass(frozen=True)
class _MatrixTile:
    """``ldmatrix`` (``side == "ld"``) or ``stmatrix`` (``"st"``) ``.x{count}[.trans]``."""

    side: str
    count: int
    trans: bool
    element_bits: int = 16

    @property
    def registers(self) -> int:
        """Elements each thread moves: two b16 of each matrix."""
        return self.count * 32 // self.element_bits


@dataclass(frozen=True)
class _Trip:
    """A shared-memory round trip: each side's layout (registers renumbered so that instruction
    ``i`` moves registers ``i*vector ..``), its map to the shared offset, its vector, the scratch
    offset bits and the round bits; ``matrix``: the side that uses ``ldmatrix``/``stmatrix``."""

    store_layout: LinearLayout
    load_layout: LinearLayout
    store_map: LinearLayout
    load_map: LinearLayout
    store_vector: int
    load_vector: int
    scratch_bits: int
    rep_bits: int
    matrix: _MatrixTile | None = None


def _matrix_row_columns(m: LinearLayout, tile: _MatrixTile) -> list[int]:
    """Thread bit -> shared offset of the row that lane gives to ``ldmatrix``/``stmatrix``.

    Lane ``8i + j`` gives row ``j`` of matrix ``i``: without ``.trans`` row ``j`` is held by
    lanes ``4j ..`` (lane bits 2..4 of the fragment), with ``.trans`` by register bit 0 and lane
    bits 0, 1; matrix ``i`` is register bits ``1 ..``. Lanes past ``8 * count`` are ignored.
    """
    regs, lanes = _dims(m, "register"), _dims(m, "lane")
    rows = [regs[0], lanes[0], lanes[1]] if tile.trans else lanes[2:5]
    first = 1 if tile.element_bits == 16 else 0  # a 32-bit element is a whole b16 pair
    matrices = regs[first : first + tile.count.bit_length() - 1]
    matrices += [0] * (2 - len(matrices))
    return [*rows, *matrices, *_dims(m, "warp")]


def _fits_matrix(m: LinearLayout, tile: _MatrixTile) -> bool:
    """Whether the map ``m`` (hardware index -> 16-bit shared offset) is the instruction tile of
    ``tile`` composed with row addresses: its fragment columns land on the offset bits of one
    16-byte row in the instruction's order, every other column keeps rows 16-byte aligned.

    >>> ident = LinearLayout.from_bases(
    ...     [("register", [[1], [8]]), ("lane", [[2], [4], [16], [32], [64]])], ["offset"]
    ... )
    >>> plain, trans = _MatrixTile("ld", 2, False), _MatrixTile("ld", 2, True)
    >>> _fits_matrix(ident, plain), _fits_matrix(ident, trans)
    (True, False)
    """
    return _fits_columns(_dims(m, "register"), _dims(m, "lane"), _dims(m, "warp"), tile)


def _fits_columns(
    regs: Sequence[int], lanes: Sequence[int], warps: Sequence[int], tile: _MatrixTile
) -> bool:
    if len(lanes) != 5 or len(regs) < tile.count.bit_length() - 1 + (tile.element_bits == 16):
        return False
    if tile.element_bits == 32:  # b16 pairs: one 32-bit element per lane and matrix, no .trans
        fragment, others = lanes[0:2], [*regs, *lanes[2:5]]
    elif tile.trans:
        fragment, others = lanes[2:5], [*regs, lanes[0], lanes[1]]
    else:
        fragment, others = [regs[0], lanes[0], lanes[1]], [*regs[1:], *lanes[2:5]]
    row = len(fragment)  # offset bits of one 16-byte row
    if fragment != [1 << i for i in range(row)]:
        return False
    return all(c & ((1 << row) - 1) == 0 for c in [*others, *warps])


def _plain_side(
    layout: LinearLayout, columns: Sequence[int], bitwidth: int
) -> tuple[list[int], int]:
    """The registers (vector first) and vector (log2) of a plain ld/st side of a shared layout
    with offset columns ``columns``, as :func:`llc.swizzle.plan_swizzle` derives them."""
    regs = independent_vectors(in_dim_columns(layout, "register"))
    offsets = F2Span(list(columns))
    reg_span = F2Span(regs)
    k = 0
    max_k = 7 - (bitwidth.bit_length() - 1)  # 128-bit accesses
    while k < min(len(columns), max_k) and reg_span.contains(columns[k]):
        k += 1
    touching = 0
    for v in [*in_dim_columns(layout, "lane"), *in_dim_columns(layout, "warp")]:
        touching |= offsets.solve(v) or 0
    if touching:
        k = min(k, (touching & -touching).bit_length() - 1)
    low = (1 << k) - 1
    rest = [
        v ^ matrix_vector_product(columns, (offsets.solve(v) or 0) & low)
        for v in independent_vectors(regs, list(columns[:k]))
    ]
    return [*columns[:k], *rest], k


def _shared_layout(src: LinearLayout, columns: Sequence[int]) -> LinearLayout:
    outs = src.out_dims
    return LinearLayout.from_bases(
        [("offset", [unflatten(v, outs) for v in columns])],
        [name for name, _ in outs],
        [size for _, size in outs],
    )


def _matrix_trip(
    src: LinearLayout, dst: LinearLayout, bitwidth: int, scratch_limit: int, side: str, trans: bool
) -> _Trip | None:
    """A round trip whose ``side`` uses ``ldmatrix``/``stmatrix``, or None where it cannot.

    The shared layout puts the tile's fragment columns (two b16 of four lanes: one 16-byte row)
    on offset bits 0..2 and the tile's row directions on bits 3..5 (the 8 rows of a matrix fill
    the 32 banks), then the matrix and other hardware directions of that side and the rest; the
    columns above the row bits are swizzled (XORed with row directions) greedily for the other
    side's fewest wavefronts (Triton's ``optimalSwizzlingTile``). Register directions common to
    both sides that the tile does not use are the top offset bits and run in rounds (as
    :func:`llc.swizzle.plan_swizzle`'s, Triton's ``buildReps`` keeping the tile's matrix bits);
    None where even then the buffer exceeds ``scratch_limit``.
    """
    if bitwidth not in (16, 32) or (bitwidth == 32 and trans):
        return None
    eb = bitwidth // 8
    matrix_side, other = (dst, src) if side == "ld" else (src, dst)
    n = src.total_out_size_log2
    if matrix_side.get_in_dim_size("lane") != 32:
        return None
    # A broadcast matrix side (zero columns: Triton keeps the duplicates) moves each register
    # once, and its duplicated lanes give the same row address (a row read or written twice
    # holds the same values, and costs no wavefront: it is the same row).
    s_regs = [v for v in in_dim_columns(matrix_side, "register") if v]
    s_lanes = in_dim_columns(matrix_side, "lane")
    s_warps = in_dim_columns(matrix_side, "warp") if matrix_side.has_in_dim("warp") else []
    distinct = [*s_regs, *(v for v in s_lanes if v)]
    if (bitwidth == 16 and not s_regs) or rank(distinct) != len(distinct):
        return None  # the matrix side holds an element in two places that are not copies
    first = 1 if bitwidth == 16 else 0  # 16-bit: register 0 is the second b16 of a pair
    c = min(2, len(s_regs) - first)
    tile = _MatrixTile(side, 1 << c, trans, bitwidth)
    # The matrix index takes registers the other side does not also hold as registers where it
    # can: those common directions are left for the rounds (a smaller buffer). Renumbering the
    # matrix side's registers is free.
    common = intersection(s_regs, in_dim_columns(other, "register"), n)
    in_common = F2Span(common)
    tail = s_regs[first:]
    index = [v for v in tail if not in_common.contains(v)][:c]
    index += [v for v in tail if v not in index][: c - len(index)]
    s_regs = [*s_regs[:first], *index, *(v for v in tail if v not in index)]
    matrix_side = with_registers(matrix_side, s_regs)
    if bitwidth == 32:
        fragment, rows = s_lanes[0:2], s_lanes[2:5]
    elif trans:
        fragment, rows = s_lanes[2:5], [s_regs[0], s_lanes[0], s_lanes[1]]
    else:
        fragment, rows = [s_regs[0], s_lanes[0], s_lanes[1]], s_lanes[2:5]
    if not all(fragment):
        return None  # a row of the instruction would hold one value twice
    rows = [v for v in rows if v]
    placed = [*fragment, *rows, *s_regs[first : first + c]]
    # As the plain trip's rounds: at least one 128-byte row per round unless the limit asks
    # for more rounds.
    o_threads = [*in_dim_columns(other, "lane"), *in_dim_columns(other, "warp")]
    movable = independent_vectors(common[::-1], [*placed, *s_warps, *o_threads])
    count = min(len(movable), max(0, n - (7 - (eb.bit_length() - 1))))
    while count < len(movable) and (eb << (n - count)) > scratch_limit:
        count += 1
    if (eb << (n - count)) > scratch_limit:
        return None
    reps = movable[:count]
    own = independent_vectors([*s_regs[first + c :], *s_warps], [*placed, *reps])
    o_lanes = [*in_dim_columns(other, "lane"), *in_dim_columns(other, "warp")]
    swizzled = independent_vectors([*o_lanes, *(1 << i for i in range(n))], [*placed, *own, *reps])
    columns = [*placed, *own, *swizzled, *reps]
    warps = src.get_in_dim_size("warp") if src.has_in_dim("warp") else 1

    lanes = other.get_in_dim_size("lane")

    def other_wavefronts(cols: Sequence[int]) -> tuple[int, int] | None:
        """The other side's wavefronts per warp and their ideal, None where the matrix side
        does not fit (integer work only: this runs for every trial column)."""
        offsets = F2Span(list(cols))

        def solve(vs: Sequence[int]) -> list[int]:
            return [offsets.solve(v) or 0 for v in vs]

        if not _fits_columns(solve(s_regs), solve(s_lanes), solve(s_warps), tile):
            return None
        o_regs, k = _plain_side(other, cols, bitwidth)
        addr = _addresses(solve(o_regs), solve(o_threads), 1 << k, eb, lanes * warps)
        wf, ideal = warp_wavefronts(addr.reshape(-1, lanes), eb << k, load=side == "st")
        return int(wf.sum()), int(ideal.sum())

    first = other_wavefronts(columns)
    if first is None:
        return None
    best_wf, ideal = first
    # A column above the row bits may take a row direction (its offset stays row aligned); the
    # ones that are the other side's lane directions decide most of its bank conflicts.
    # Those first, the others while conflicts remain.
    o_lane_set = {v for v in in_dim_columns(other, "lane") if v}
    above = range(len(fragment) + len(rows), len(columns) - len(reps))
    ordered = [p for p in above if columns[p] in o_lane_set]
    ordered += [p for p in above if columns[p] not in o_lane_set]
    for position in ordered:
        base = columns[position]
        for mix in range(1, 1 << len(rows)):
            if best_wf <= ideal:
                break
            trial = list(columns)
            trial[position] = base ^ matrix_vector_product(rows, mix)
            got = other_wavefronts(trial)
            if got is not None and got[0] < best_wf:
                best_wf, columns = got[0], trial
    shared = _shared_layout(src, columns)
    o_regs, k = _plain_side(other, columns, bitwidth)
    o_layout = with_registers(other, o_regs)
    o_map = o_layout.invert_and_compose(shared)
    s_map = matrix_side.invert_and_compose(shared)
    assert _fits_matrix(s_map, tile)
    rep_mask = ((1 << len(reps)) - 1) << (n - len(reps))
    if any(c & rep_mask for m in (o_map, s_map) for d in ("lane", "warp") for c in _dims(m, d)):
        return None  # a thread direction reaches a round bit (only with non-unit bases)
    vec = tile.registers
    bits, rounds = n - len(reps), len(reps)
    if side == "ld":
        return _Trip(o_layout, matrix_side, o_map, s_map, 1 << k, vec, bits, rounds, tile)
    return _Trip(matrix_side, o_layout, s_map, o_map, vec, 1 << k, bits, rounds, tile)


def _addresses(
    regs: Sequence[int], threads: Sequence[int], vec: int, eb: int, count: int
) -> np.ndarray:
    """Byte addresses ``(instructions, count threads)`` of a plain side moving ``vec`` registers
    per instruction, from the offsets of its register and thread (lane, warp) bits."""
    t_ids = np.arange(count, dtype=np.int64)
    base = np.zeros_like(t_ids)
    for bit, col in enumerate(threads):
        base ^= ((t_ids >> bit) & 1) * (col * eb)
    consts = [matrix_vector_product(regs, i) * eb for i in range(0, 1 << len(regs), vec)]
    return np.stack([base ^ c for c in consts])


def _round_trip(src: LinearLayout, dst: LinearLayout, bitwidth: int, trip: _Trip) -> LoweringPlan:
    scratch_bits = trip.scratch_bits
    maps = (trip.store_map, trip.load_map)
    eb = bitwidth // 8
    scratch_bytes = eb << scratch_bits
    low = (1 << scratch_bits) - 1
    R_src = src.get_in_dim_size("register")
    R_dst = dst.get_in_dim_size("register")
    lanes = src.get_in_dim_size("lane")
    warps = src.get_in_dim_size("warp") if src.has_in_dim("warp") else 1
    p = SimtProgram(R_src, bitwidth)
    smem = p.alloc(scratch_bytes, 16)
    tile = trip.matrix

    src_index = _register_index(src)
    store_regs = _dims(trip.store_layout, "register")
    xs_mask = [src_index[matrix_vector_product(store_regs, j)] for j in range(1 << len(store_regs))]
    Xs = p.vperm(0, 0, xs_mask)

    t_ids = np.arange(lanes * warps, dtype=np.int64)

    def side(m: LinearLayout, kind: str) -> tuple[list[int], list[tuple[int, int]], np.ndarray]:
        if tile is not None and tile.side == kind:
            thread_cols = _matrix_row_columns(m, tile)
        else:
            thread_cols = [*_dims(m, "lane"), *_dims(m, "warp")]
        reg_cols = _dims(m, "register")
        byte_cols = [(c & low) * eb for c in thread_cols]
        base_np = np.zeros_like(t_ids)
        for bit, col in enumerate(byte_cols):
            base_np ^= ((t_ids >> bit) & 1) * col
        return (
            byte_cols,
            [(r, matrix_vector_product(reg_cols, r)) for r in range(1 << len(reg_cols))],
            base_np,
        )

    s_cols, s_regs, s_base = side(maps[0], "st")
    l_cols, l_regs, l_base = side(maps[1], "ld")
    v_s, v_l = trip.store_vector, trip.load_vector
    stores = [(s_regs[i][1] >> scratch_bits, i) for i in range(0, len(s_regs), v_s)]
    loads = [(l_regs[i][1] >> scratch_bits, i) for i in range(0, len(l_regs), v_l)]
    rounds = 1 << trip.rep_bits
    s_addr = l_addr = None
    loaded: dict[int, int] = {}
    addresses: dict[str, list[np.ndarray]] = {"st": [], "ld": []}
    for rnd in range(rounds):
        if rnd:
            p.barrier()
        for r, i in stores:
            if r != rnd:
                continue
            if s_addr is None:
                s_addr = p.linear(s_cols)
            const = (s_regs[i][1] & low) * eb
            value = p.vperm(Xs, Xs, list(range(i, i + v_s)))
            address = p.xor_const(s_addr, const)
            if tile is not None and tile.side == "st":
                p.stmatrix(smem, address, value, tile.count, tile.trans)
            else:
                p.store(smem, address, value)
            addresses["st"].append(s_base ^ const)
        p.barrier()
        for r, i in loads:
            if r != rnd:
                continue
            if l_addr is None:
                l_addr = p.linear(l_cols)
            const = (l_regs[i][1] & low) * eb
            address = p.xor_const(l_addr, const)
            if tile is not None and tile.side == "ld":
                loaded[i] = p.ldmatrix(smem, address, tile.count, tile.trans)
            else:
                loaded[i] = p.load(smem, address, v_l)
            addresses["ld"].append(l_base ^ const)
    ordered = [loaded[i] for i in sorted(loaded)]
    lv = p.concat(ordered)
    load_index = _register_index(trip.load_layout)
    dst_cols = _dims(dst, "register")
    out_mask = [load_index[matrix_vector_product(dst_cols, r)] for r in range(R_dst)]
    n_loaded = len(ordered) * v_l
    p.output = lv if out_mask == list(range(n_loaded)) else p.vperm(lv, lv, out_mask)

    wavefronts = ideal = 0
    for kind, vec in (("st", v_s), ("ld", v_l)):
        if not addresses[kind]:
            continue
        per_thread = np.stack(addresses[kind])  # (instructions, threads)
        per_warp = per_thread.reshape(len(per_thread) * warps, lanes)
        if tile is not None and tile.side == kind:
            # One phase per 8x8 matrix: its 8 row addresses, 16 bytes each.
            rows = per_warp[:, : 8 * tile.count].reshape(-1, 8)
            wf, idl = warp_wavefronts(rows, 16)
        else:
            wf, idl = warp_wavefronts(per_warp, vec * eb, load=kind == "ld")
        wavefronts += int(wf.sum())
        ideal += int(idl.sum())
    counts = p.counts()
    wavefronts //= warps
    ideal //= warps
    return LoweringPlan(
        "shared",
        p,
        bitwidth,
        R_src,
        R_dst,
        warps,
        lanes,
        counts,
        shared_bytes=scratch_bytes,
        wavefronts=wavefronts,
        ideal_wavefronts=ideal,
        rounds=rounds,
        cost=_cost(counts, wavefronts, counts.get("bar.sync", 0)),
    )
