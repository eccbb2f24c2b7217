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
  out-of-bounds addresses are errors.
* Every warp instruction on shared memory is counted in wavefronts
  (:func:`llc.lowering.warp_wavefronts`) and its ideal; :class:`SimtStats` gathers instruction
  counts by kind (per thread), wavefronts and ideal wavefronts (summed over all warps).
"""

from __future__ import annotations

from dataclasses import dataclass, field
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
from llc.lowering import COUNTED_KINDS, warp_wavefronts

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

    def new_cta(self) -> None:
        """Start another CTA: its shared memory is uninitialized again (the statistics go on).

        >>> functions = SimtFunctions(1, 32)
        >>> functions.shared[None] = None  # type: ignore[index]
        >>> functions.new_cta()
        >>> functions.shared
        {}
        """
        self.shared = {}

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
        a, b = args
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
            )
            self.shared[op] = mem
        return (mem,)

    def _bytes(self, op: Operation, mem: _SharedMemory, addr: Any, nbytes: int) -> np.ndarray:
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
        self._count_wavefronts(addr, nbytes)
        return addr[:, None] + np.arange(nbytes)

    def _count_wavefronts(self, addr: np.ndarray, nbytes: int) -> None:
        per_warp = addr.reshape(self.num_warps, self.threads_per_warp)
        wf, ideal = warp_wavefronts(per_warp, nbytes)
        self.stats.wavefronts += int(wf.sum())
        self.stats.ideal_wavefronts += int(ideal.sum())
        self.stats.warp_accesses += self.num_warps

    @impl(simt.SharedStoreOp)
    def run_store(self, interp: Interpreter, op: simt.SharedStoreOp, args: PythonValues):
        value, mem, addr = args
        raw = element_bits(value, op.value.type).view(np.uint8).reshape(self.threads, -1)
        idx = self._bytes(op, mem, addr, raw.shape[1])
        tids = np.broadcast_to(self.tid[:, None], idx.shape)
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
        mem.writer[idx] = tids
        mem.write_epoch[idx] = now
        self.stats.count("st.shared")
        return ()

    @impl(simt.SharedLoadOp)
    def run_load(self, interp: Interpreter, op: simt.SharedLoadOp, args: PythonValues):
        mem, addr = args
        typ = op.result.type
        assert isinstance(typ, VectorType)
        bits = simt.bit_width(typ.element_type)
        nbytes = simt.bit_width(typ) // 8
        idx = self._bytes(op, mem, addr, nbytes)
        tids = np.broadcast_to(self.tid[:, None], idx.shape)
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
        never = mem.writer[flat] < 0
        if never.any():
            w, k = np.argwhere(never)[0]
            raise SimtRaceError(
                op,
                f"uninitialized read: warp {w} reads byte {int(flat[w, k])}, which no thread has "
                "written",
            )
        warp_of = (mem.writer[flat] // self.threads_per_warp) != np.arange(self.num_warps)[:, None]
        racy = (mem.write_epoch[flat] == self.epoch) & warp_of
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
        read_by_other = (mem.read_epoch[flat] == self.epoch) & (mem.reader[flat] != -1)
        if read_by_other.any():
            w, k = np.argwhere(read_by_other)[0]
            raise SimtRaceError(
                op, f"race: warp {w} writes byte {int(flat[w, k])}, read since the last barrier"
            )
        rows, cols = self._lane_positions(count, op.trans is not None)
        elements = element_bits(value, op.value.type).view(np.uint16)
        elements = elements.reshape(self.num_warps, 32, count, 2)
        matrices = np.zeros((self.num_warps, count, 8, 8), dtype=np.uint16)
        for_warp = elements.transpose(0, 2, 1, 3)  # (warps, count, 32, 2)
        matrices[:, :, rows, cols] = for_warp
        mem.data[idx] = matrices.view(np.uint8).reshape(idx.shape)
        # The writer of each row's bytes: the lane holding its first element pair.
        owner = np.zeros((8, 8), dtype=np.int64)
        owner[rows, cols] = np.arange(32)[:, None]
        writer = (
            np.arange(self.num_warps)[:, None, None, None] * self.threads_per_warp
            + owner.repeat(2, axis=1)[None, None]
        )
        mem.writer[idx] = np.broadcast_to(writer, idx.shape)
        mem.write_epoch[flat] = self.epoch
        self.stats.count("stmatrix")
        return ()


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
    interp = Interpreter(module)
    diagnostics_pass_through(interp)
    functions = SimtFunctions(num_warps, threads_per_warp)
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
