"""The SIMT interpreter: one CTA of ``num_warps x threads_per_warp`` threads, vectorized with numpy.

Every SSA value holds all threads at once: an ``index`` / ``i1`` value is an array of shape
``(threads,)`` (or a Python int when uniform), a ``vector<n x T>`` an array ``(threads, n)`` of
the elements' raw bits (``uint8`` .. ``uint64``; data movement never looks at the numbers). There
is no Python loop over threads or registers.

* ``gpu.thread_id x`` is ``warp * threads_per_warp + lane``; ``gpu.lane_id``, ``gpu.subgroup_id``
  split it; ``gpu.barrier`` ends a synchronization epoch.
* ``simt.shuffle`` follows PTX ``shfl.sync``: with ``c`` = clamp (bits 0-4, 0-5 for 64 lanes) and
  segment mask (bits 8-12 / 8-13), ``maxLane = (lane & seg) | (clamp & ~seg)``,
  ``minLane = lane & seg``; ``up``: ``j = lane - b``, valid if ``j >= maxLane``; ``down``:
  ``j = lane + b``, valid if ``j <= maxLane``; ``bfly``: ``j = lane ^ b``; ``idx``:
  ``j = minLane | (b & ~seg)``, valid if ``j <= maxLane``; an invalid ``j`` reads the lane's own
  value. A lane outside the member mask, or reading one, is an error (undefined in PTX).
* Shared memory is a byte array per ``simt.shared_alloc`` *op*, as in the PTX (one static
  ``.shared`` array per alloc): every execution of the alloc, in every iteration of ``scf.for`` /
  ``scf.while`` and in either branch of ``scf.if``, returns the same buffer, whose bytes and
  access history persist until the CTA ends (:meth:`SimtFunctions.new_cta`). A load of a byte no
  thread of the CTA has written (uninitialized: shared memory starts with garbage), or one
  written by another thread since the last barrier, and a store to a byte another thread read
  or wrote (with a different value) since the last barrier, raise :class:`SimtRaceError` naming
  the op; the epochs between barriers run on across loop iterations, so a missing barrier
  between one iteration's loads and the next one's stores is a race too. Misaligned or
  out-of-bounds addresses are errors. An alloc with an ``offset`` (placed by
  :func:`llc.passes.shared_alloc.allocate_shared`) is a window of its function's one arena, as
  in the PTX: buffers placed over the same bytes see each other's bytes and accesses, so a
  reuse no barrier orders is a race.
* Every warp instruction on shared memory is counted in wavefronts
  (:func:`llc.swizzle.warp_wavefronts`) and its ideal; :class:`SimtStats` gathers instruction
  counts by kind (per thread), wavefronts and ideal wavefronts (summed over all warps).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
from xdsl.dialects import arith, func, gpu, vector
from xdsl.dialects.builtin import BFloat16Type, IntegerAttr, ModuleOp, VectorType
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    register_impls,
)
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import InterpretationError

from llc.dialects import simt
from llc.dialects.diagnostics import OpDiagnostic
from llc.dialects.xdsl_private import diagnostics_pass_through, import_submodule
from llc.lowering import COUNTED_KINDS
from llc.swizzle import warp_wavefronts

FuncFunctions = import_submodule("xdsl.interpreters.func").FuncFunctions

__all__ = [
    "ConversionCheck",
    "SimtError",
    "SimtFunctions",
    "SimtRaceError",
    "SimtStats",
    "check_conversion",
    "make_simt_interpreter",
    "raw_dtype",
]

_UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def element_bits(value: Any, typ: Attribute) -> np.ndarray:
    """``value``'s elements as raw bits of ``typ``'s width: bf16 (held in float32 by the
    interpreters) is the high half of each float32; other types are viewed as they are.

    >>> from xdsl.dialects.builtin import bf16
    >>> element_bits(np.array([[1.0, -2.0]], dtype=np.float32), VectorType(bf16, [2])).tolist()
    [[16256, 49152]]
    """
    arr = np.ascontiguousarray(value)
    elem = typ.element_type if isinstance(typ, VectorType) else typ
    if isinstance(elem, BFloat16Type) and arr.dtype == np.float32:
        return (arr.view(np.uint32) >> 16).astype(np.uint16)
    return arr


def raw_dtype(bits: int) -> type[np.unsignedinteger[Any]]:
    """The numpy type holding the raw bits of one element.

    >>> raw_dtype(16).__name__
    'uint16'
    """
    if bits not in _UINT:
        raise ValueError(f"{bits}-bit elements are not supported (8, 16, 32 or 64)")
    return _UINT[bits]


class SimtError(OpDiagnostic, InterpretationError):
    """A SIMT program did something undefined (names the op)."""


class SimtRaceError(SimtError):
    """A shared-memory race: an access not ordered by a barrier."""


@dataclass
class SimtStats:
    """What a run did: instructions per thread by kind, shared-memory wavefronts (all warps)."""

    instructions: dict[str, int] = field(default_factory=dict)
    wavefronts: int = 0
    ideal_wavefronts: int = 0
    warp_accesses: int = 0

    def count(self, kind: str, n: int = 1) -> None:
        self.instructions[kind] = self.instructions.get(kind, 0) + n


@dataclass
class _SharedMemory:
    size: int
    data: np.ndarray
    writer: np.ndarray
    write_epoch: np.ndarray
    reader: np.ndarray
    read_epoch: np.ndarray
    fence_epoch: np.ndarray | None = None
    """Per byte: the barrier epoch of the ``simt.fence_async_shared`` after its last write
    (-1: written and not fenced since)."""
    pending: np.ndarray | None = None
    """Per byte: how many ``simt.cp_async`` copies in flight write it (``None``: none ever)."""
    base: int = 0
    """Where the buffer starts in its arena (its arrays are views of the arena's)."""
    arena: _SharedMemory | None = None
    """The CTA's arena when the alloc has an ``offset`` (:mod:`llc.passes.shared_alloc`)."""

    def record_write(self, idx: np.ndarray, data: np.ndarray, writers: np.ndarray, epoch: int):
        """Bytes ``idx`` now hold ``data``, written by threads ``writers`` in barrier epoch
        ``epoch`` and not fenced for the async proxy since (every generic-proxy write: a store,
        ``stmatrix``, a copy landing at its wait)."""
        self.data[idx] = data
        self.writer[idx] = writers
        self.write_epoch[idx] = epoch
        if self.fence_epoch is not None:
            self.fence_epoch[idx] = -1

    @property
    def root(self) -> _SharedMemory:
        """The memory the bytes live in: the arena, or the buffer itself."""
        return self.arena if self.arena is not None else self


@register_impls
class SimtFunctions(InterpreterFunctions):
    """Interpretation of ``simt`` and of the ``gpu``/``arith``/``vector`` ops lowered code uses."""

    def __init__(self, num_warps: int, threads_per_warp: int) -> None:
        self.num_warps = num_warps
        self.threads_per_warp = threads_per_warp
        self.threads = num_warps * threads_per_warp
        self.tid = np.arange(self.threads, dtype=np.int64)
        self.epoch = 0
        self.stats = SimtStats()
        self.shared: dict[Operation, _SharedMemory] = {}
        self._arenas: dict[Operation, _SharedMemory] = {}
        self.wgmma = WgmmaState()
        self._wgmma_reads: list[tuple[Any, np.ndarray]] = []
        self.cp_async = CpAsyncState()

    def new_cta(self) -> None:
        """Start another CTA: its shared memory is uninitialized again (the statistics go on).

        >>> functions = SimtFunctions(1, 32)
        >>> functions.shared[None] = None  # type: ignore[index]
        >>> functions.new_cta()
        >>> functions.shared
        {}
        """
        self.shared = {}
        self._arenas = {}
        self.cp_async = CpAsyncState()

    # --------------------------------------------------------------- thread identity, barrier
    @impl(gpu.ThreadIdOp)
    def run_thread_id(self, interp: Interpreter, op: gpu.ThreadIdOp, args: PythonValues):
        if op.dimension.data != gpu.DimensionEnum.X:
            return (np.zeros(self.threads, dtype=np.int64),)
        return (self.tid,)

    @impl(gpu.LaneIdOp)
    def run_lane_id(self, interp: Interpreter, op: gpu.LaneIdOp, args: PythonValues):
        return (self.tid % self.threads_per_warp,)

    @impl(gpu.SubgroupIdOp)
    def run_subgroup_id(self, interp: Interpreter, op: gpu.SubgroupIdOp, args: PythonValues):
        return (self.tid // self.threads_per_warp,)

    @impl(gpu.BarrierOp)
    def run_barrier(self, interp: Interpreter, op: gpu.BarrierOp, args: PythonValues):
        self.epoch += 1
        self.stats.count("bar.sync")
        return ()

    # --------------------------------------------------------------- arith on thread values
    @impl(arith.ConstantOp)
    def run_constant(self, interp: Interpreter, op: arith.ConstantOp, args: PythonValues):
        value = op.value
        if not isinstance(value, IntegerAttr):
            raise SimtError(op, "only integer/index constants are supported")
        return (int(value.value.data),)

    def _alu(self, op: Operation, result: Any) -> tuple[Any]:
        self.stats.count(COUNTED_KINDS[_ALU_NAMES[op.name]])
        return (result,)

    @impl(arith.AndIOp)
    def run_andi(self, interp: Interpreter, op: arith.AndIOp, args: PythonValues):
        return self._alu(op, np.bitwise_and(args[0], args[1]))

    @impl(arith.XOrIOp)
    def run_xori(self, interp: Interpreter, op: arith.XOrIOp, args: PythonValues):
        return self._alu(op, np.bitwise_xor(args[0], args[1]))

    @impl(arith.ShRUIOp)
    def run_shrui(self, interp: Interpreter, op: arith.ShRUIOp, args: PythonValues):
        return self._alu(op, np.right_shift(args[0], args[1]))

    @impl(arith.ShLIOp)
    def run_shli(self, interp: Interpreter, op: arith.ShLIOp, args: PythonValues):
        return self._alu(op, np.left_shift(args[0], args[1]))

    @impl(arith.MuliOp)
    def run_muli(self, interp: Interpreter, op: arith.MuliOp, args: PythonValues):
        return self._alu(op, np.multiply(args[0], args[1]))

    @impl(arith.CmpiOp)
    def run_cmpi(self, interp: Interpreter, op: arith.CmpiOp, args: PythonValues):
        predicate = op.predicate.value.data
        if predicate != 1:  # ne
            raise SimtError(op, "only 'ne' comparisons are supported")
        return self._alu(op, np.not_equal(args[0], args[1]))

    @impl(arith.SelectOp)
    def run_select(self, interp: Interpreter, op: arith.SelectOp, args: PythonValues):
        cond, a, b = args
        cond = np.asarray(cond)
        typ = op.result.type
        if isinstance(typ, VectorType):
            self.stats.count("select", typ.get_shape()[0])
            if cond.ndim:
                cond = cond[:, None]
        else:
            self.stats.count("select")
        return (np.where(cond, a, b),)

    @impl(vector.ExtractOp)
    def run_extract(self, interp: Interpreter, op: vector.ExtractOp, args: PythonValues):
        position = list(op.static_position.get_values())
        if len(position) != 1 or position[0] < 0:
            raise SimtError(op, "only a static extract of one element is supported")
        return (np.asarray(args[0])[:, position[0]],)

    @impl(arith.IndexCastOp)
    def run_index_cast(self, interp: Interpreter, op: arith.IndexCastOp, args: PythonValues):
        return (np.asarray(args[0]).astype(np.int64),)

    # --------------------------------------------------------------- register moves
    @impl(vector.ShuffleOp)
    def run_vperm(self, interp: Interpreter, op: vector.ShuffleOp, args: PythonValues):
        a, b = (np.asarray(x) for x in args)
        if a.dtype != b.dtype:
            # one operand came from data movement (raw bits), the other from arithmetic (numbers,
            # in the kernel interpreter): concatenating would convert the bits as numbers
            bits = simt.bit_width(op.v1.type.element_type)  # type: ignore[attr-defined]
            a, b = (
                element_bits(x, o.type).view(raw_dtype(bits)) for x, o in ((a, op.v1), (b, op.v2))
            )
        both = np.concatenate([a, b], axis=1)
        mask = list(op.mask.get_values())
        return (both[:, mask],)

    @impl(vector.BitcastOp)
    def run_bitcast(self, interp: Interpreter, op: vector.BitcastOp, args: PythonValues):
        (a,) = args
        typ = op.result.type
        assert isinstance(typ, VectorType)
        bits = simt.bit_width(typ.element_type)
        raw = element_bits(a, op.source.type)
        out = raw.view(raw_dtype(bits)).reshape(self.threads, -1)
        return (out,)

    # --------------------------------------------------------------- shuffles
    @impl(simt.ShuffleOp)
    def run_shuffle(self, interp: Interpreter, op: simt.ShuffleOp, args: PythonValues):
        value, b = args
        width = self.threads_per_warp
        bits = width.bit_length() - 1
        lane_bits = (1 << bits) - 1
        lane = self.tid % width
        c = op.c.value.data
        clamp = c & lane_bits
        seg = (c >> 8) & lane_bits
        b = np.broadcast_to(np.asarray(b, dtype=np.int64), lane.shape) & lane_bits  # bval
        max_lane = (lane & seg) | (clamp & ~seg)
        min_lane = lane & seg
        mode = op.mode.data
        if mode == "up":
            j = lane - b
            valid = j >= max_lane
        elif mode == "down":
            j = lane + b
            valid = j <= max_lane
        elif mode == "bfly":
            j = lane ^ b
            valid = j <= max_lane
        else:
            j = min_lane | (b & ~seg)
            valid = j <= max_lane
        j = np.where(valid, j, lane)
        member = op.mask.value.data & ((1 << width) - 1) if width < 64 else op.mask.value.data
        in_mask = ((member >> lane) & 1).astype(bool) if member != -1 else np.ones_like(valid)
        source_in_mask = in_mask[(self.tid - lane) + j] if member != -1 else in_mask
        if not in_mask.all() or not source_in_mask.all():
            raise SimtError(op, "shfl.sync with lanes outside the member mask is undefined")
        self.stats.count("shfl")
        return (value[(self.tid - lane) + j],)

    # --------------------------------------------------------------- shared memory
    @impl(simt.SharedAllocOp)
    def run_alloc(self, interp: Interpreter, op: simt.SharedAllocOp, args: PythonValues):
        mem = self.shared.get(op)
        if mem is None and op.byte_range is not None:
            mem = self._arena_view(op)
            self.shared[op] = mem
        if mem is None:
            typ = op.result.type
            assert isinstance(typ, simt.SharedMemoryType)
            size = typ.size.data
            mem = _SharedMemory(
                size,
                np.zeros(size, dtype=np.uint8),
                np.full(size, -1, dtype=np.int64),
                np.full(size, -1, dtype=np.int64),
                np.full(size, -1, dtype=np.int64),
                np.full(size, -1, dtype=np.int64),
                np.full(size, -1, dtype=np.int64),
            )
            self.shared[op] = mem
        return (mem,)

    def _arena_view(self, op: simt.SharedAllocOp) -> _SharedMemory:
        """The bytes of ``op`` in its function's arena: buffers the allocation placed over the
        same bytes are views of the same arrays, so a reuse that is not ordered by a barrier is
        a race, and a read of another buffer's leftover bytes reads what was left there."""
        from llc.passes.shared_alloc import arena_bytes

        fn = op.parent_op()
        while fn is not None and not isinstance(fn, func.FuncOp):
            fn = fn.parent_op()
        key = fn if fn is not None else op
        arena = self._arenas.get(key)
        if arena is None:
            size = arena_bytes(fn) if fn is not None else op.byte_range[1]  # type: ignore[index]
            arena = _SharedMemory(
                size,
                np.zeros(size, dtype=np.uint8),
                *(np.full(size, -1, dtype=np.int64) for _ in range(5)),
                pending=np.zeros(size, dtype=np.int64),
            )
            self._arenas[key] = arena
        lo, hi = op.byte_range  # type: ignore[misc]
        return _SharedMemory(
            hi - lo,
            arena.data[lo:hi],
            arena.writer[lo:hi],
            arena.write_epoch[lo:hi],
            arena.reader[lo:hi],
            arena.read_epoch[lo:hi],
            arena.fence_epoch[lo:hi],  # type: ignore[index]
            arena.pending[lo:hi],  # type: ignore[index]
            lo,
            arena,
        )

    def _bytes(
        self, op: Operation, mem: _SharedMemory, addr: Any, nbytes: int, *, load: bool
    ) -> np.ndarray:
        addr = np.broadcast_to(np.asarray(addr, dtype=np.int64), (self.threads,))
        if (addr % nbytes).any():
            t = int(np.flatnonzero(addr % nbytes)[0])
            raise SimtError(
                op, f"thread {t}: address {int(addr[t])} is not aligned to {nbytes} bytes"
            )
        if (addr < 0).any() or (addr + nbytes > mem.size).any():
            t = int(np.flatnonzero((addr < 0) | (addr + nbytes > mem.size))[0])
            raise SimtError(
                op, f"thread {t}: address {int(addr[t])} is outside the {mem.size}-byte buffer"
            )
        self._count_wavefronts(addr, nbytes, load)
        return addr[:, None] + np.arange(nbytes)

    def _count_wavefronts(self, addr: np.ndarray, nbytes: int, load: bool) -> None:
        per_warp = addr.reshape(self.num_warps, self.threads_per_warp)
        wf, ideal = warp_wavefronts(per_warp, nbytes, load=load)
        self.stats.wavefronts += int(wf.sum())
        self.stats.ideal_wavefronts += int(ideal.sum())
        self.stats.warp_accesses += self.num_warps

    @impl(simt.SharedStoreOp)
    def run_store(self, interp: Interpreter, op: simt.SharedStoreOp, args: PythonValues):
        value, mem, addr = args
        raw = element_bits(value, op.value.type).view(np.uint8).reshape(self.threads, -1)
        idx = self._bytes(op, mem, addr, raw.shape[1], load=False)
        tids = np.broadcast_to(self.tid[:, None], idx.shape)
        self._check_async_readers(op, mem, idx)
        self._check_cp_async_pending(op, mem, idx, "writes")
        now = self.epoch
        read_by_other = (mem.read_epoch[idx] == now) & (mem.reader[idx] != tids)
        if read_by_other.any():
            t, k = np.argwhere(read_by_other)[0]
            raise SimtRaceError(
                op,
                f"race: thread {t} writes byte {int(idx[t, k])}, which thread "
                f"{_who(mem.reader[idx[t, k]])} read since the last barrier",
            )
        written_by_other = (mem.write_epoch[idx] == now) & (mem.writer[idx] != tids)
        conflict = written_by_other & (mem.data[idx] != raw)
        mem.data[idx] = raw
        differing = mem.data[idx] != raw  # two threads of this store wrote different values
        if conflict.any() or differing.any():
            t, k = np.argwhere(conflict | differing)[0]
            raise SimtRaceError(
                op,
                f"race: thread {t} and another thread write different values to byte "
                f"{int(idx[t, k])} without a barrier between them",
            )
        mem.record_write(idx, raw, tids, now)
        self.stats.count("st.shared")
        return ()

    @impl(simt.SharedLoadOp)
    def run_load(self, interp: Interpreter, op: simt.SharedLoadOp, args: PythonValues):
        mem, addr = args
        typ = op.result.type
        assert isinstance(typ, VectorType)
        bits = simt.bit_width(typ.element_type)
        nbytes = simt.bit_width(typ) // 8
        idx = self._bytes(op, mem, addr, nbytes, load=True)
        tids = np.broadcast_to(self.tid[:, None], idx.shape)
        self._check_cp_async_pending(op, mem, idx, "reads")
        never = mem.writer[idx] < 0
        if never.any():
            t, k = np.argwhere(never)[0]
            raise SimtRaceError(
                op,
                f"uninitialized read: thread {t} reads byte {int(idx[t, k])}, which no thread "
                "has written",
            )
        now = self.epoch
        racy = (mem.write_epoch[idx] == now) & (mem.writer[idx] != tids)
        if racy.any():
            t, k = np.argwhere(racy)[0]
            raise SimtRaceError(
                op,
                f"race: thread {t} reads byte {int(idx[t, k])}, written by thread "
                f"{int(mem.writer[idx[t, k]])} since the last barrier",
            )
        flat_idx, flat_t = idx.ravel(), tids.ravel()
        fresh = mem.read_epoch[flat_idx] != now
        mem.reader[flat_idx[fresh]] = -1
        previous = mem.reader[flat_idx]
        other = (previous >= 0) & (previous != flat_t)
        mem.reader[flat_idx] = np.where(other | (previous == -2), -2, flat_t)
        mem.read_epoch[flat_idx] = now
        self.stats.count("ld.shared")
        out = mem.data[idx].copy().view(raw_dtype(bits)).reshape(self.threads, -1)
        return (out,)

    # ------------------------------------------------------------- ldmatrix / stmatrix
    def _matrix_rows(self, op: Operation, mem: _SharedMemory, addr: Any, count: int) -> np.ndarray:
        """Byte indices ``(warps, count, 8 rows, 16 bytes)`` of the rows lanes 0..8*count-1 give."""
        addr = np.broadcast_to(np.asarray(addr, dtype=np.int64), (self.threads,))
        rows = addr.reshape(self.num_warps, self.threads_per_warp)[:, : 8 * count]
        bad = (rows % 16 != 0) | (rows < 0) | (rows + 16 > mem.size)
        if bad.any():
            w, lane = np.argwhere(bad)[0]
            raise SimtError(
                op,
                f"warp {w} lane {lane}: row address {int(rows[w, lane])} is not a 16-byte aligned "
                f"row inside the {mem.size}-byte buffer",
            )
        wf, ideal = warp_wavefronts(rows.reshape(-1, 8), 16)
        self.stats.wavefronts += int(wf.sum())
        self.stats.ideal_wavefronts += int(ideal.sum())
        self.stats.warp_accesses += self.num_warps
        return rows.reshape(self.num_warps, count, 8, 1) + np.arange(16)

    def _lane_positions(self, count: int, trans: bool) -> tuple[np.ndarray, np.ndarray]:
        """Row and column (b16 element) of each (lane, matrix element pair) of an 8x8 matrix."""
        lane = np.arange(32)
        first = 2 * (lane % 4)
        if trans:
            rows = np.stack([first, first + 1], axis=1)
            cols = np.stack([lane // 4, lane // 4], axis=1)
        else:
            rows = np.stack([lane // 4, lane // 4], axis=1)
            cols = np.stack([first, first + 1], axis=1)
        return rows, cols

    def _check_warp(self, op: Operation) -> None:
        if self.threads_per_warp != 32:
            raise SimtError(op, f"{op.name} needs warps of 32 lanes, not {self.threads_per_warp}")

    @impl(simt.LdMatrixOp)
    def run_ldmatrix(self, interp: Interpreter, op: simt.LdMatrixOp, args: PythonValues):
        self._check_warp(op)
        mem, addr = args
        count = op.count.value.data
        idx = self._matrix_rows(op, mem, addr, count)  # (warps, count, 8, 16)
        flat = idx.reshape(self.num_warps, -1)
        if mem.pending is not None and (mem.pending[flat] > 0).any():
            w, k = np.argwhere(mem.pending[flat] > 0)[0]
            raise SimtRaceError(
                op,
                f"race: warp {w} reads byte {int(flat[w, k])}, which a simt.cp_async still "
                "writes (no simt.cp_async_wait_group has retired its group)",
            )
        never = mem.writer[flat] < 0
        if never.any():
            w, k = np.argwhere(never)[0]
            raise SimtRaceError(
                op,
                f"uninitialized read: warp {w} reads byte {int(flat[w, k])}, which no thread has "
                "written",
            )
        # A row goes to four lanes other than the one that wrote it: even inside one warp the
        # lanes are not ordered (independent thread scheduling) without a barrier.
        racy = mem.write_epoch[flat] == self.epoch
        if racy.any():
            w, k = np.argwhere(racy)[0]
            raise SimtRaceError(
                op,
                f"race: warp {w} reads byte {int(flat[w, k])}, written by thread "
                f"{int(mem.writer[flat[w, k]])} since the last barrier",
            )
        mem.read_epoch[flat] = self.epoch
        mem.reader[flat] = -2
        matrices = mem.data[idx].view(np.uint16).reshape(self.num_warps, count, 8, 8)
        rows, cols = self._lane_positions(count, op.trans is not None)
        # out[w, lane, matrix, pair] = matrices[w, matrix, rows[lane, pair], cols[lane, pair]]
        out = matrices[:, :, rows, cols]  # (warps, count, 32, 2)
        out = out.transpose(0, 2, 1, 3).reshape(self.threads, 2 * count)
        self.stats.count("ldmatrix")
        return (out.copy(),)

    @impl(simt.StMatrixOp)
    def run_stmatrix(self, interp: Interpreter, op: simt.StMatrixOp, args: PythonValues):
        self._check_warp(op)
        value, mem, addr = args
        count = op.count.value.data
        idx = self._matrix_rows(op, mem, addr, count)
        flat = idx.reshape(self.num_warps, -1)
        self._check_async_readers(op, mem, flat)
        read_by_other = (mem.read_epoch[flat] == self.epoch) & (mem.reader[flat] != -1)
        if read_by_other.any():
            w, k = np.argwhere(read_by_other)[0]
            raise SimtRaceError(
                op, f"race: warp {w} writes byte {int(flat[w, k])}, read since the last barrier"
            )
        self._check_cp_async_pending(op, mem, flat, "writes")
        rows, cols = self._lane_positions(count, op.trans is not None)
        elements = element_bits(value, op.value.type).view(np.uint16)
        elements = elements.reshape(self.num_warps, 32, count, 2)
        matrices = np.zeros((self.num_warps, count, 8, 8), dtype=np.uint16)
        for_warp = elements.transpose(0, 2, 1, 3)  # (warps, count, 32, 2)
        matrices[:, :, rows, cols] = for_warp
        data = matrices.view(np.uint8).reshape(idx.shape)
        # The writer of each row's bytes: the lane holding its first element pair.
        owner = np.zeros((8, 8), dtype=np.int64)
        owner[rows, cols] = np.arange(32)[:, None]
        writer = np.broadcast_to(
            np.arange(self.num_warps)[:, None, None, None] * self.threads_per_warp
            + owner.repeat(2, axis=1)[None, None],
            idx.shape,
        )
        # another thread's write of a different value since the last barrier (a copy landed by
        # another thread's wait, a buffer placed over the same bytes) races with this one
        clash = (mem.write_epoch[idx] == self.epoch) & (mem.writer[idx] != writer)
        clash &= mem.data[idx] != data
        if clash.any():
            at = tuple(np.argwhere(clash)[0])
            raise SimtRaceError(
                op,
                f"race: thread {int(writer[at])} writes byte {int(idx[at])}, which thread "
                f"{int(mem.writer[idx][at])} wrote with another value since the last barrier",
            )
        mem.record_write(idx, data, writer, self.epoch)
        self.stats.count("stmatrix")
        return ()

    # ------------------------------------------------------------- cp.async (Ampere, async)
    def _check_cp_async_pending(
        self, op: Operation, mem: _SharedMemory, idx: np.ndarray, verb: str
    ) -> None:
        """An access to bytes a ``simt.cp_async`` still writes (its group not retired by a
        ``simt.cp_async_wait_group``) is a race: the copy may land before or after it."""
        if mem.pending is None:
            return
        hit = mem.pending[idx] > 0
        if hit.any():
            t, k = np.argwhere(hit)[0]
            raise SimtRaceError(
                op,
                f"race: thread {t} {verb} byte {int(idx[t, k])}, which a simt.cp_async still "
                "writes (no simt.cp_async_wait_group has retired its group)",
            )

    def start_cp_async(
        self, op: Operation, mem: _SharedMemory, idx: np.ndarray, data: np.ndarray
    ) -> None:
        """Record the copies of one ``simt.cp_async`` (every thread: ``idx`` its shared bytes,
        ``data`` what lands there) in the open group, after the checks a store makes: another
        thread read those bytes since the last barrier, or a copy still in flight writes them."""
        if mem.pending is None:
            mem.pending = np.zeros(mem.size, dtype=np.int64)
        self._check_async_readers(op, mem, idx)
        self._check_cp_async_pending(op, mem, idx, "starts a copy to")
        tids = np.broadcast_to(self.tid[:, None], idx.shape)
        read_by_other = (mem.read_epoch[idx] == self.epoch) & (mem.reader[idx] != tids)
        if read_by_other.any():
            t, k = np.argwhere(read_by_other)[0]
            raise SimtRaceError(
                op,
                f"race: thread {t} starts a copy to byte {int(idx[t, k])}, which thread "
                f"{_who(mem.reader[idx[t, k]])} read since the last barrier",
            )
        np.add.at(mem.pending, idx.ravel(), 1)
        self.cp_async.open.append(_Copy(op, mem, idx, data))
        self.stats.count("cp.async")

    @impl(simt.CpAsyncCommitGroupOp)
    def run_cp_async_commit(
        self, interp: Interpreter, op: simt.CpAsyncCommitGroupOp, args: PythonValues
    ):
        state = self.cp_async
        state.groups.append(state.open)
        state.open = []
        self.stats.count("cp.async.commit_group")
        return ()

    @impl(simt.CpAsyncWaitGroupOp)
    def run_cp_async_wait(
        self, interp: Interpreter, op: simt.CpAsyncWaitGroupOp, args: PythonValues
    ):
        state = self.cp_async
        keep = op.pending.value.data
        retired = state.groups[: max(0, len(state.groups) - keep)]
        state.groups = state.groups[len(retired) :]
        for group in retired:
            for copy in group:
                mem, idx = copy.mem, copy.idx
                tids = np.broadcast_to(self.tid[:, None], idx.shape)
                mem.record_write(idx, copy.data, tids, self.epoch)
                np.subtract.at(mem.pending, idx.ravel(), 1)  # type: ignore[arg-type]
        self.stats.count("cp.async.wait_group")
        return ()

    # ------------------------------------------------------------- wgmma (Hopper, async)
    @impl(simt.FenceAsyncSharedOp)
    def run_fence_async(self, interp: Interpreter, op: simt.FenceAsyncSharedOp, args: PythonValues):
        for mem in self.shared.values():
            assert mem.fence_epoch is not None
            mem.fence_epoch[mem.fence_epoch < 0] = self.epoch
        self.stats.count("fence.proxy.async")
        return ()

    @impl(simt.WgmmaFenceOp)
    def run_wgmma_fence(self, interp: Interpreter, op: simt.WgmmaFenceOp, args: PythonValues):
        self.wgmma.fences += 1
        self.wgmma.window = True
        self.stats.count("wgmma.fence")
        return ()

    @impl(simt.WgmmaCommitGroupOp)
    def run_wgmma_commit(
        self, interp: Interpreter, op: simt.WgmmaCommitGroupOp, args: PythonValues
    ):
        state = self.wgmma
        for pending in state.open:
            pending.group = state.committed
        state.open = []
        state.committed += 1
        state.window = False
        self.stats.count("wgmma.commit_group")
        return ()

    @impl(simt.WgmmaWaitGroupOp)
    def run_wgmma_wait(self, interp: Interpreter, op: simt.WgmmaWaitGroupOp, args: PythonValues):
        retired_below = self.wgmma.committed - op.pending.value.data
        self.wgmma.in_flight = [x for x in self.wgmma.in_flight if not 0 <= x.group < retired_below]
        out = []
        for value in args:
            if isinstance(value, InFlight) and 0 <= value.group < retired_below:
                value = value.value
            out.append(value)
        self.stats.count("wgmma.wait_group")
        return tuple(out)

    @impl(simt.WgmmaOp)
    def run_wgmma(self, interp: Interpreter, op: simt.WgmmaOp, args: PythonValues):
        a, b, c, mem, *a_smem = args
        a_mem = a_smem[0] if a_smem else mem
        if self.threads_per_warp != 32 or self.num_warps % simt.WGMMA_WARPS:
            raise SimtError(
                op,
                f"wgmma runs on warpgroups of 4 warps of 32 lanes, not {self.num_warps} warps "
                f"of {self.threads_per_warp}",
            )
        self._check_wgmma_registers(op)
        if isinstance(a, InFlight):
            raise SimtError(op, "A's registers are a wgmma accumulator still in flight")
        acc = c.value if isinstance(c, InFlight) else c
        n, k = op.n.value.data, op.k
        integer = simt.wgmma_ab_name(op.a_type) in ("s8", "u8")
        acc = np.asarray(acc)
        if acc.dtype.kind == "u":
            acc = acc.view(np.int32 if integer else np.float32)
        rows, cols = _accumulator_coords(n)
        reads: list[tuple[Any, np.ndarray]] = []
        self._wgmma_reads = reads
        out = np.empty((self.threads, n // 2), dtype=np.int32 if integer else np.float32)
        for g in range(self.num_warps // simt.WGMMA_WARPS):
            sl = slice(128 * g, 128 * (g + 1))
            if op.a_in_registers:
                ar, ac = _a_fragment_coords(simt.bit_width(op.a_type))
                A = np.zeros((64, k), dtype=np.int64 if integer else np.float64)
                A[ar, ac] = _wgmma_values(_raw_bits(a, op.a.type)[sl], op.a_type)
            else:
                vals = self._wgmma_read(op, a_mem, a, g, 64, op.a_type, op.trans_a is None, "A")
                A = vals  # [m, k]
            B = self._wgmma_read(op, mem, b, g, n, op.b_type, op.trans_b is None, "B").T
            C = np.zeros((64, n), dtype=A.dtype)
            C[rows, cols] = acc[sl]
            D = A @ B + C
            out[sl] = D[rows, cols].astype(out.dtype)
        self.stats.count("wgmma")
        pending = InFlight(out, -1, op, reads)
        self.wgmma.open.append(pending)
        self.wgmma.in_flight.append(pending)
        return (pending,)

    def _check_async_readers(self, op: Operation, mem: _SharedMemory, idx: np.ndarray) -> None:
        """A write to bytes a wgmma still in flight reads (its group not retired by a
        ``simt.wgmma_wait_group``) is a race: the tensor cores may read the new value."""
        for pending in self.wgmma.in_flight:
            for buffer, flat in pending.reads:
                if buffer.root is not mem.root:  # the same arena: compare arena bytes
                    continue
                hit = np.isin(np.asarray(idx) + mem.base, np.asarray(flat) + buffer.base)
                if hit.any():
                    byte = int(np.asarray(idx)[hit][0])
                    raise SimtRaceError(
                        op,
                        f"race: byte {byte} is overwritten while a simt.wgmma still reads it "
                        "(wait for its group with simt.wgmma_wait_group first)",
                    )

    def _check_wgmma_registers(self, op: simt.WgmmaOp) -> None:
        """Registers a wgmma reads must be written before the last ``simt.wgmma_fence``, unless
        an earlier wgmma (or the wait that retired it) wrote them: PTX orders only accumulator
        chains between wgmma ops."""
        operands = [(op.c, "accumulator")]
        if op.a_in_registers:
            operands.append((op.a, "A fragment"))
        for value, what in operands:
            owner = value.owner
            if isinstance(owner, simt.WgmmaOp | simt.WgmmaWaitGroupOp):
                continue
            if self.wgmma.produced.get(value, 0) >= self.wgmma.fences:
                raise SimtRaceError(
                    op,
                    f"race: the {what} registers were written after the last simt.wgmma_fence "
                    "(wgmma.fence must order register writes before a wgmma reads them)",
                )
        # the PTX emitter copies such an accumulator into the wgmma's registers at the fence
        chain = isinstance(op.c.owner, simt.WgmmaOp | simt.WgmmaWaitGroupOp)
        if not (chain and op.c.has_one_use()) and not self.wgmma.window:
            raise SimtRaceError(
                op,
                "race: the accumulator is copied into the wgmma's registers with no "
                "simt.wgmma_fence since the last commit (it is not an in-place chain)",
            )

    def _wgmma_read(
        self,
        op: simt.WgmmaOp,
        mem: _SharedMemory,
        desc_value: Any,
        group: int,
        mn: int,
        typ: Attribute,
        k_major: bool,
        name: str,
    ) -> np.ndarray:
        """Values ``[mn, k]`` warpgroup ``group`` reads through its descriptor."""
        from llc.errors import LayoutError
        from llc.wgmma import WgmmaDescriptor, descriptor_addresses, swizzle_period

        values = np.broadcast_to(np.asarray(desc_value), (self.threads,))
        own = values[128 * group : 128 * (group + 1)]
        if (own != own[0]).any():
            raise SimtError(op, f"warpgroup {group}: {name}'s descriptor differs between threads")
        try:
            desc = WgmmaDescriptor.decode(int(own[0]))
        except LayoutError as err:
            raise SimtError(op, f"{name}: {err}") from None
        smem = (op.a_buffer if name == "A" else op.smem).type
        assert isinstance(smem, simt.SharedMemoryType)
        if desc.swizzle and smem.alignment.data < swizzle_period(desc.swizzle):
            raise SimtError(
                op,
                f"{name}'s {desc.swizzle}-byte swizzle repeats every "
                f"{swizzle_period(desc.swizzle)} bytes, the buffer is aligned to "
                f"{smem.alignment.data}",
            )
        bits = simt.bit_width(typ)
        e = bits // 8
        kk = 256 // bits
        addr = descriptor_addresses(
            desc, np.arange(mn)[:, None], np.arange(kk)[None, :], bits, k_major
        )
        if (addr < 0).any() or (addr + e > mem.size).any():
            bad = int(addr[(addr < 0) | (addr + e > mem.size)][0])
            raise SimtError(
                op,
                f"{name}'s descriptor {desc} reaches byte {bad}, outside the "
                f"{mem.size}-byte buffer",
            )
        idx = addr[..., None] + np.arange(e)
        flat = idx.ravel()
        assert mem.fence_epoch is not None
        never = mem.writer[flat] < 0
        if never.any():
            raise SimtRaceError(
                op, f"{name}: wgmma reads byte {int(flat[never][0])}, which no thread has written"
            )
        unfenced = mem.fence_epoch[flat] < 0
        if unfenced.any():
            byte = int(flat[unfenced][0])
            raise SimtRaceError(
                op,
                f"race: {name}: wgmma (async proxy) reads byte {byte}, written by thread "
                f"{int(mem.writer[byte])} with no simt.fence_async_shared after the write",
            )
        unordered = mem.fence_epoch[flat] >= self.epoch
        if unordered.any():
            byte = int(flat[unordered][0])
            raise SimtRaceError(
                op,
                f"race: {name}: wgmma reads byte {byte}, written by thread {int(mem.writer[byte])}"
                " and fenced, but with no barrier between the fence and the wgmma",
            )
        mem.read_epoch[flat] = self.epoch
        mem.reader[flat] = -2
        self._wgmma_reads.append((mem, flat))
        raw = mem.data[idx].view(raw_dtype(bits))[..., 0]
        return _wgmma_values(raw, typ)


def _who(reader: int) -> str:
    return "(several)" if reader == -2 else str(int(reader))


_ALU_NAMES = {
    "arith.andi": "andi",
    "arith.xori": "xori",
    "arith.shrui": "shrui",
    "arith.shli": "shli",
    "arith.muli": "muli",
    "arith.cmpi": "cmpne",
}


def make_simt_interpreter(
    module: ModuleOp, num_warps: int, threads_per_warp: int
) -> tuple[Interpreter, SimtFunctions]:
    """An interpreter for lowered SIMT functions of ``module`` and its functions (whose
    :attr:`SimtFunctions.stats` collect the figures)."""
    functions = SimtFunctions(num_warps, threads_per_warp)
    interp = Interpreter(module, listeners=(WgmmaTracker(functions), CpAsyncTracker(functions)))
    diagnostics_pass_through(interp)
    interp.register_implementations(functions)
    interp.register_implementations(FuncFunctions())
    return interp, functions


@dataclass
class ConversionCheck:
    """The outcome of :func:`check_conversion`: ``ok`` when every register of every thread held
    the element the destination layout says, over ``passes`` runs (narrow elements need several
    runs to tell every element apart); ``stats`` of the last run; ``message`` for a mismatch."""

    ok: bool
    stats: SimtStats
    passes: int
    message: str = ""


def _element_ids(layout: Any) -> np.ndarray:
    """Flat tensor index (dim0 fastest) of each (thread, register)."""
    registers = layout.get_in_dim_size("register")
    return layout.apply_all_packed().reshape(-1, registers)


def check_conversion(
    module: ModuleOp, function: func.FuncOp, src: Any, dst: Any, bitwidth: int
) -> ConversionCheck:
    """Run the lowered conversion ``function`` on distinct values and compare every register.

    ``src`` / ``dst`` are the linear layouts. Thread ``t``'s register ``r`` starts with (a slice
    of the bits of) the index of the element the source layout puts there; with elements too
    narrow to number the whole tensor, the run repeats on successive slices of the index bits.
    """
    warps = src.get_in_dim_size("warp") if src.has_in_dim("warp") else 1
    lanes = src.get_in_dim_size("lane")
    src_ids = _element_ids(src)
    dst_ids = _element_ids(dst)
    total_bits = max(1, (src.total_out_size - 1).bit_length())
    passes = -(-total_bits // bitwidth)
    dtype = raw_dtype(bitwidth)
    stats = SimtStats()
    for p in range(passes):
        shift = p * bitwidth
        mask = (1 << min(bitwidth, 62)) - 1  # element indices are far below 2^62
        values = ((src_ids >> shift) & mask).astype(dtype)
        interp, functions = make_simt_interpreter(module, warps, lanes)
        (out,) = interp.call_op(function.sym_name.data, (values,))
        stats = functions.stats
        expected = ((dst_ids >> shift) & mask).astype(dtype)
        if out.shape != expected.shape:
            return ConversionCheck(
                False, stats, passes, f"result shape {out.shape}, expected {expected.shape}"
            )
        wrong = out != expected
        if wrong.any():
            t, r = np.argwhere(wrong)[0]
            return ConversionCheck(
                False,
                stats,
                passes,
                f"thread {t} (warp {t // lanes}, lane {t % lanes}) register {r} holds "
                f"{int(out[t, r])}, expected {int(expected[t, r])} (bits {shift}.. of element "
                f"{int(dst_ids[t, r])})",
            )
    return ConversionCheck(True, stats, passes)


# ------------------------------------------------------------------ wgmma state and helpers


@dataclass
class InFlight:
    """Accumulator registers a ``simt.wgmma`` is still writing: ``group`` is the commit group
    (-1 before ``simt.wgmma_commit_group``); only a ``simt.wgmma_wait_group`` that retires the
    group hands out ``value``."""

    value: np.ndarray
    group: int
    op: Operation
    reads: list[tuple[Any, np.ndarray]] = field(default_factory=list)
    """(buffer, byte indices) the wgmma reads until its group retires."""


@dataclass
class _Copy:
    """One ``simt.cp_async`` in flight: its shared bytes per thread and what lands there."""

    op: Operation
    mem: Any
    idx: np.ndarray
    data: np.ndarray


@dataclass
class CpAsyncState:
    """The CTA's ``cp.async`` copies: not yet committed (``open``), then committed groups
    not yet retired, oldest first (every thread runs the same ops, so one list serves all)."""

    open: list[_Copy] = field(default_factory=list)
    groups: list[list[_Copy]] = field(default_factory=list)


class CpAsyncTracker(Interpreter.Listener):
    """Reports a kernel that returns with ``simt.cp_async`` copies still in flight (no
    ``simt.cp_async_wait_group 0`` after the last ones): they would land in shared memory the
    next CTA on the SM may already use."""

    def __init__(self, functions: SimtFunctions) -> None:
        self.functions = functions

    def will_interpret_op(self, op: Operation, args: PythonValues) -> None:
        if not isinstance(op, func.ReturnOp):
            return
        fn = op.parent_op()
        if not isinstance(fn, func.FuncOp) or "llc.num_warps" not in fn.attributes:
            return
        state = self.functions.cp_async
        left = len(state.open) + sum(len(g) for g in state.groups)
        if left:
            raise SimtError(
                op,
                f"the kernel returns with {left} simt.cp_async copies in flight "
                "(no simt.cp_async_wait_group 0 after them)",
            )

    def did_interpret_op(self, op: Operation, results: PythonValues) -> None:
        pass


@dataclass
class WgmmaState:
    """The warpgroup MMA pipeline: uncommitted wgmma results, groups committed so far,
    ``simt.wgmma_fence`` count, and the fence count when each SSA value was produced."""

    open: list[InFlight] = field(default_factory=list)
    in_flight: list[InFlight] = field(default_factory=list)
    committed: int = 0
    fences: int = 0
    produced: dict[Any, int] = field(default_factory=dict)
    window: bool = False
    """A ``simt.wgmma_fence`` since the last commit: the PTX emitter copies an accumulator that
    is not an in-place chain into the wgmma's own registers at that fence."""


_PASS_THROUGH = ("simt.wgmma", "simt.wgmma_wait_group", "scf.yield", "scf.for")


class WgmmaTracker(Interpreter.Listener):
    """Reports a read of an accumulator still in flight (any op but ``simt.wgmma``, the wait and
    loop-carried ``scf`` plumbing) and stamps each result with the ``simt.wgmma_fence`` count."""

    def __init__(self, functions: SimtFunctions) -> None:
        self.functions = functions

    def will_interpret_op(self, op: Operation, args: PythonValues) -> None:
        if op.name in _PASS_THROUGH:
            return
        for value in args:
            if isinstance(value, InFlight):
                raise SimtError(
                    op,
                    f"{op.name} reads the accumulator of a simt.wgmma before a "
                    "simt.wgmma_wait_group retires its group",
                )

    def did_interpret_op(self, op: Operation, results: PythonValues) -> None:
        fences = self.functions.wgmma.fences
        for result in op.results:
            self.functions.wgmma.produced[result] = fences


_MXFP = {"e4m3": "e4m3fn", "e5m2": "e5m2"}


@cache
def _accumulator_coords(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, col) ``(128, n/2)`` of each (thread of a warpgroup, register) of the m64nN
    accumulator: Triton's mma v3 layout ``NvidiaMmaLayout(3, 0, [4, 1], [16, n, 16])``. For N
    not a power of two, the first ``n/2`` registers of the next power of two's layout (its
    registers run along N in blocks of 8 columns)."""
    from llc.layouts.nvidia import NvidiaMmaLayout

    npad = 1 << (n - 1).bit_length()
    layout = NvidiaMmaLayout(3, 0, [4, 1], [16, npad, 16]).to_linear_layout([64, npad])
    images = layout.apply_all()
    rows = images["dim0"].reshape(128, npad // 2)[:, : n // 2]
    cols = images["dim1"].reshape(128, npad // 2)[:, : n // 2]
    if (cols >= n).any():
        raise AssertionError(f"the m64n{npad} accumulator layout does not start with m64n{n}'s")
    return rows, cols


@cache
def _a_fragment_coords(bits: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, k) ``(128, R)`` of each (thread, register) of A in registers: the mma v3 dot
    operand layout (``kWidth`` = 32 / width elements per 32-bit register)."""
    from llc.layouts.nvidia import DotOperandLayout, NvidiaMmaLayout

    k = 256 // bits
    parent = NvidiaMmaLayout(3, 0, [4, 1], [16, 64, k])
    layout = DotOperandLayout(0, parent, 32 // bits).to_linear_layout([64, k])
    images = layout.apply_all()
    return images["dim0"].reshape(128, -1), images["dim1"].reshape(128, -1)


def _raw_bits(value: Any, typ: Attribute) -> np.ndarray:
    """Register values (raw bits or numbers) as raw unsigned bits of the element width."""
    arr = element_bits(value, typ)
    bits = simt.bit_width(typ.element_type if isinstance(typ, VectorType) else typ)
    if arr.dtype.kind == "f" and arr.dtype.itemsize * 8 != bits:
        from xdsl.dialects.builtin import Float16Type

        if isinstance(typ.element_type, Float16Type):  # type: ignore[union-attr]
            arr = arr.astype(np.float16)
        else:  # 8-bit float numbers: encode them as the format's codes
            from llc.mxfp import encode

            name = simt.wgmma_ab_name(typ.element_type)  # type: ignore[union-attr]
            arr = encode(arr.astype(np.float32), _MXFP[name]).astype(np.uint8)
    if arr.dtype.kind != "u":
        arr = arr.view(raw_dtype(arr.dtype.itemsize * 8))
    return arr


def _wgmma_values(raw: np.ndarray, typ: Attribute) -> np.ndarray:
    """The numbers wgmma multiplies: float64 (tf32 keeps the top 19 bits of each f32, as the
    tensor cores do), int64 for 8-bit integers."""
    name = simt.wgmma_ab_name(typ)
    if name == "f16":
        return raw.view(np.float16).astype(np.float64)
    if name == "bf16":
        return (raw.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if name == "tf32":
        return (raw & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
    if name in ("e4m3", "e5m2"):
        from llc.mxfp import decode

        return decode(raw, _MXFP[name]).astype(np.float64)
    if name == "s8":
        return raw.view(np.int8).astype(np.int64)
    return raw.astype(np.int64)
