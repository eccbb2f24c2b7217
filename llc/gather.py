"""Planning ``tl.gather`` from layouts: warp shuffles when the gather axis stays in a warp.

``out[..., i, ...] = src[..., idx[..., i, ...], ...]`` along ``axis``. The result has the index
tensor's layout. Each thread knows, for each of its result registers, the coordinate it produces
and the index value it holds; replacing the axis coordinate by that index gives the source
coordinate, and the *inverse* of the source layout gives the source (register, lane, warp).

* **shuffle** (Triton's warp-local gather): when no warp bit of the source layout maps to the
  axis and, for every result element, the source element is held by the same warp (the index
  layout agrees), a thread computes the source lane and register as
  ``P(c ^ W_src(warp))`` (``P`` a right inverse of the source's register x lane part) and the
  value moves with ``shfl.sync.idx``: for each result register ``r`` and each source register
  ``s`` it may need (decided at compile time by enumerating the layouts), one shuffle of register
  ``s`` from the computed lane, then a select on the computed register.
* **shared**: otherwise every thread stores its source registers to a row-major buffer, a barrier,
  and every thread loads its result elements at the indexed address (data-dependent wavefronts).

:func:`plan_gather` decides; :func:`execute_gather` runs the plan on numpy data with a per-lane
model of ``shfl.sync.idx`` (receiver lane ``l`` reads the sender's register) or of shared memory
(counting wavefronts with :func:`llc.swizzle.warp_wavefronts`), so a plan is checked against
``numpy.take_along_axis``.

>>> from llc.layouts import BlockedLayout
>>> src = BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0]).to_linear_layout((32, 16))
>>> plan = plan_gather(src, src, axis=1, dtype="f32")
>>> plan.strategy, plan.shuffles, plan.shared_bytes_alternative
('shuffle', 16, 2048)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from llc.cost import dtype_bitwidth
from llc.errors import LayoutError
from llc.f2 import matrix_vector_product
from llc.linear_layout import LinearLayout
from llc.lowering import SimtProgram
from llc.swizzle import warp_wavefronts

__all__ = [
    "GatherPlan",
    "GatherRun",
    "execute_gather",
    "gather_program",
    "plan_gather",
    "thread_elements",
]


@dataclass(frozen=True)
class GatherPlan:
    """How one ``tl.gather`` moves data, with the counts of both strategies.

    ``strategy`` is ``"shuffle"`` or ``"shared"``; ``reason`` says why. ``candidates[r]`` lists the
    source registers result register ``r`` may read (the shuffle rounds); ``shuffles`` counts
    ``shfl.sync.idx`` per thread (64-bit elements take two), ``selects`` the selects.
    ``store_wavefronts`` is the exact per-CTA wavefront count of the shared strategy's stores,
    ``load_instructions`` its loads per thread (their wavefronts depend on the indices: between
    one and 32 per warp instruction; :func:`execute_gather` counts them).
    """

    strategy: str
    reason: str
    axis: int
    bitwidth: int
    num_warps: int
    threads_per_warp: int
    src_registers: int
    dst_registers: int
    candidates: tuple[tuple[int, ...], ...]
    shared_bytes_alternative: int
    store_instructions: int
    store_wavefronts: int
    load_instructions: int

    @property
    def shuffles(self) -> int:
        """``shfl.sync.idx`` per thread of the shuffle strategy (0 for the shared one)."""
        if self.strategy != "shuffle":
            return 0
        words = 2 if self.bitwidth == 64 else 1
        return words * sum(len(c) for c in self.candidates)

    @property
    def selects(self) -> int:
        """Selects per thread of the shuffle strategy: one per extra candidate."""
        if self.strategy != "shuffle":
            return 0
        return sum(len(c) - 1 for c in self.candidates)

    def report(self) -> str:
        """A few lines for tools: the strategy, shuffles against shared wavefronts."""
        lines = [f"gather along dim{self.axis}: {self.strategy} ({self.reason})"]
        if self.strategy == "shuffle":
            lines.append(
                f"  per thread: {self.shuffles} shfl.sync.idx, {self.selects} selects, "
                "no shared memory"
            )
        lines.append(
            f"  shared memory{' (rejected)' if self.strategy == 'shuffle' else ''}: "
            f"{self.shared_bytes_alternative} bytes, {self.store_instructions} st.shared + "
            f"{self.load_instructions} ld.shared per thread, 1 barrier, "
            f"{self.store_wavefronts} store wavefronts per CTA, loads 1..32 wavefronts per warp "
            "instruction (data dependent)"
        )
        return "\n".join(lines)


class _Hardware:
    """A distributed layout as per-thread tables: the tensor element (row-major flat index) of
    every (warp, lane, register), and a linear right inverse of its register x lane part."""

    def __init__(self, ll: LinearLayout, shape: tuple[int, ...]) -> None:
        for name in ("register", "lane", "warp"):
            if not ll.has_in_dim(name):
                raise LayoutError(f"gather: the layout has no '{name}' in-dim")
        if ll.has_in_dim("block") and ll.get_in_dim_size("block") != 1:
            raise LayoutError("gather: layouts spanning several CTAs are not supported")
        outs = ll.get_out_dim_names()
        if tuple(ll.get_out_dim_size(o) for o in outs) != shape:
            raise LayoutError(
                f"gather: the layout's shape {[ll.get_out_dim_size(o) for o in outs]} differs "
                f"from the tensor's {list(shape)}"
            )
        self.ll = ll
        self.shape = shape
        self.bits = [s.bit_length() - 1 for s in shape]
        self.reg_bits = ll.get_in_dim_size_log2("register")
        self.lane_bits = ll.get_in_dim_size_log2("lane")
        self.warp_bits = ll.get_in_dim_size_log2("warp")

        def flat(vector: tuple[int, ...]) -> int:
            value = 0
            for coord, bits in zip(vector, self.bits, strict=True):
                value = (value << bits) | coord
            return value

        self.reg = [flat(ll.basis("register", i)) for i in range(self.reg_bits)]
        self.lane = [flat(ll.basis("lane", i)) for i in range(self.lane_bits)]
        self.warp = [flat(ll.basis("warp", i)) for i in range(self.warp_bits)]
        self.total_bits = sum(self.bits)
        # element[w, l, r]
        self.element = (
            _span_table(self.warp)[:, None, None]
            ^ _span_table(self.lane)[None, :, None]
            ^ _span_table(self.reg)[None, None, :]
        )
        # Right inverse of the register x lane part, linear on all coordinates: extend the image
        # by unit vectors; `outside[c]` marks coordinates not in the image.
        pivots: dict[int, tuple[int, int, int]] = {}
        for i, value in enumerate(self.reg + self.lane):
            _insert3(value, 1 << i, 0, pivots)
        for bit in range(self.total_bits):
            # One flag bit per extension vector: a sum of two of them is still outside.
            _insert3(1 << bit, 0, 1 << bit, pivots)
        solution, outside = [], []
        for bit in range(self.total_bits):
            combo, ext = _solve3(1 << bit, pivots)
            solution.append(combo)
            outside.append(ext)
        self.inverse = _span_table(solution)  # flat coord -> reg | lane << reg_bits
        self.outside = _span_table(outside) != 0

    def axis_mask(self, axis: int) -> int:
        low = sum(self.bits[axis + 1 :])
        return ((1 << self.bits[axis]) - 1) << low

    def axis_shift(self, axis: int) -> int:
        return sum(self.bits[axis + 1 :])


def thread_elements(ll: LinearLayout, shape: tuple[int, ...]) -> np.ndarray:
    """``[warp, lane, register]`` -> the row-major flat index of the element the layout puts there.

    >>> from llc.layouts import BlockedLayout
    >>> ll = BlockedLayout([1, 2], [4, 8], [1, 1], [1, 0]).to_linear_layout((4, 16))
    >>> thread_elements(ll, (4, 16))[0, 1].tolist()
    [2, 3]
    """
    return _Hardware(ll, tuple(shape)).element


def _span_table(columns: list[int]) -> np.ndarray:
    """``table[x] = XOR of columns[i] for the set bits i of x``, for every x."""
    table = np.zeros(1, dtype=np.int64)
    for column in columns:
        table = np.concatenate([table, table ^ column])
    return table


def _insert3(value: int, combo: int, ext: int, pivots: dict[int, tuple[int, int, int]]) -> None:
    while value:
        top = value.bit_length() - 1
        if top not in pivots:
            pivots[top] = (value, combo, ext)
            return
        pv, pc, pe = pivots[top]
        value, combo, ext = value ^ pv, combo ^ pc, ext ^ pe


def _solve3(value: int, pivots: dict[int, tuple[int, int, int]]) -> tuple[int, int]:
    combo = ext = 0
    while value:
        pv, pc, pe = pivots[value.bit_length() - 1]
        value, combo, ext = value ^ pv, combo ^ pc, ext ^ pe
    return combo, ext


def plan_gather(
    src: LinearLayout, idx: LinearLayout, axis: int, dtype: str | int = "f32"
) -> GatherPlan:
    """Decide how ``gather(src, idx, axis)`` moves data (the result takes ``idx``'s layout).

    The shapes are the layouts' out-dim sizes (powers of two); they must agree off the axis.
    Raises :class:`LayoutError` naming the parameter otherwise.

    A source whose warps split the gather axis forces shared memory:

    >>> from llc.layouts import BlockedLayout
    >>> src = BlockedLayout([1, 4], [8, 4], [1, 4], [1, 0]).to_linear_layout((32, 64))
    >>> plan = plan_gather(src, src, axis=1, dtype="f16")
    >>> plan.strategy, plan.reason
    ('shared', 'warp bits of the source map to the gather axis')
    """
    return _plan_gather(src, idx, axis, dtype_bitwidth(dtype))


@functools.lru_cache(maxsize=512)
def _plan_gather(src: LinearLayout, idx: LinearLayout, axis: int, bitwidth: int) -> GatherPlan:
    src_shape = tuple(src.get_out_dim_size(o) for o in src.get_out_dim_names())
    idx_shape = tuple(idx.get_out_dim_size(o) for o in idx.get_out_dim_names())
    if len(src_shape) != len(idx_shape):
        raise LayoutError(
            f"gather: src rank {len(src_shape)} differs from idx rank {len(idx_shape)}"
        )
    if not 0 <= axis < len(src_shape):
        raise LayoutError(f"gather: axis {axis} is out of range for rank {len(src_shape)}")
    if any(s != i for d, (s, i) in enumerate(zip(src_shape, idx_shape, strict=True)) if d != axis):
        raise LayoutError(
            f"gather: src {list(src_shape)} and idx {list(idx_shape)} differ off the axis"
        )
    s = _Hardware(src, src_shape)
    d = _Hardware(idx, idx_shape)
    if (s.lane_bits, s.warp_bits) != (d.lane_bits, d.warp_bits):
        raise LayoutError(
            f"gather: src has {1 << s.lane_bits} lanes x {1 << s.warp_bits} warps, idx "
            f"{1 << d.lane_bits} x {1 << d.warp_bits}"
        )
    source = _source_coordinates(s, d, axis)  # [W, L, R_dst, A]: every source each may need
    store_addr = s.element * (bitwidth // 8)  # [W, L, R_src]
    access = bitwidth // 8
    store_wavefronts = int(
        sum(warp_wavefronts(store_addr[w].T, access)[0].sum() for w in range(1 << s.warp_bits))
    )
    common = dict(
        axis=axis,
        bitwidth=bitwidth,
        num_warps=1 << s.warp_bits,
        threads_per_warp=1 << s.lane_bits,
        src_registers=1 << s.reg_bits,
        dst_registers=1 << d.reg_bits,
        shared_bytes_alternative=int(np.prod(src_shape)) * access,
        store_instructions=1 << s.reg_bits,
        store_wavefronts=store_wavefronts,
        load_instructions=1 << d.reg_bits,
    )
    axis_mask = s.axis_mask(axis)
    if any(w & axis_mask for w in s.warp):
        return GatherPlan(
            "shared", "warp bits of the source map to the gather axis", candidates=(), **common
        )
    warp_part = _span_table(s.warp)[:, None, None, None]
    local = source ^ warp_part
    if s.outside[local].any():
        return GatherPlan(
            "shared",
            "the index layout places results in warps that do not hold the sources",
            candidates=(),
            **common,
        )
    regs = s.inverse[local] & ((1 << s.reg_bits) - 1)  # [W, L, R_dst, A]
    candidates = tuple(
        tuple(int(x) for x in np.unique(regs[:, :, r, :])) for r in range(1 << d.reg_bits)
    )
    return GatherPlan(
        "shuffle", "the gather axis stays within each warp", candidates=candidates, **common
    )


def _source_coordinates(s: _Hardware, d: _Hardware, axis: int) -> np.ndarray:
    """``[W, L, R_dst, A]``: the flat source coordinate for every result register and every
    possible index value ``a`` along the axis."""
    values = np.arange(s.shape[axis], dtype=np.int64) << s.axis_shift(axis)
    return _source_base(s, d, axis)[..., None] | values


def _source_base(s: _Hardware, d: _Hardware, axis: int) -> np.ndarray:
    """``[W, L, R_dst]``: the flat source coordinate of every result register with index 0
    along the axis (the other index values set the axis bits, which this leaves clear)."""
    shift_d, shift_s = d.axis_shift(axis), s.axis_shift(axis)
    off_axis = d.element & ~d.axis_mask(axis)
    # Off-axis dims: re-pack from the index tensor's bit positions into the source's.
    low_d = off_axis & ((1 << shift_d) - 1)
    high_d = off_axis >> (shift_d + d.bits[axis])
    return low_d | (high_d << (shift_s + s.bits[axis]))


@dataclass(frozen=True)
class GatherRun:
    """What :func:`execute_gather` produced: the result tensor and the measured counts."""

    result: np.ndarray
    shuffles: int
    selects: int
    load_wavefronts: int
    store_wavefronts: int


def execute_gather(
    plan: GatherPlan,
    src: LinearLayout,
    idx: LinearLayout,
    src_values: np.ndarray,
    idx_values: np.ndarray,
) -> GatherRun:
    """Run ``plan`` thread by thread on numpy data (per-lane model of ``shfl.sync.idx``).

    Values enter and leave through the layouts (thread ``(w, l)`` register ``r`` holds the
    element the layout assigns), so a wrong plan gives a wrong tensor. Indices out of range are
    a :class:`LayoutError`.

    >>> from llc.layouts import BlockedLayout
    >>> src = BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0]).to_linear_layout((32, 16))
    >>> plan = plan_gather(src, src, 1, "f32")
    >>> x = np.arange(512.0).reshape(32, 16); i = (np.arange(512).reshape(32, 16) * 7) % 16
    >>> run = execute_gather(plan, src, src, x, i)
    >>> bool((run.result == np.take_along_axis(x, i, 1)).all()), run.shuffles
    (True, 16)
    """
    s = _Hardware(src, tuple(src_values.shape))
    d = _Hardware(idx, tuple(idx_values.shape))
    axis = plan.axis
    if idx_values.size and (idx_values.min() < 0 or idx_values.max() >= src_values.shape[axis]):
        raise LayoutError(
            f"gather: an index is out of range [0, {src_values.shape[axis]}) along dim{axis}"
        )
    src_flat = src_values.reshape(-1)
    src_regs = src_flat[s.element]  # [W, L, R_src]: what each thread holds
    my_idx = idx_values.reshape(-1)[d.element].astype(np.int64)  # [W, L, R_dst]
    shift_s = s.axis_shift(axis)
    coords = _source_base(s, d, axis) | (my_idx << shift_s)
    warps = 1 << s.warp_bits
    if plan.strategy == "shuffle":
        local = coords ^ _span_table(s.warp)[:, None, None]
        hw = s.inverse[local]
        src_reg = hw & ((1 << s.reg_bits) - 1)
        src_lane = hw >> s.reg_bits
        out = np.zeros(my_idx.shape, dtype=src_values.dtype)
        written = np.zeros(my_idx.shape, dtype=bool)
        shuffles = selects = 0
        warp_ids = np.arange(warps)[:, None]
        for r, regs in enumerate(plan.candidates):
            for k, reg in enumerate(regs):
                # shfl.sync.idx: every lane offers its register `reg`, lane l reads lane src_lane.
                received = src_regs[warp_ids, src_lane[:, :, r], reg]
                take = src_reg[:, :, r] == reg
                out[:, :, r] = np.where(take, received, out[:, :, r])
                written[:, :, r] |= take
                shuffles += 2 if plan.bitwidth == 64 else 1
                selects += 1 if k else 0
        if not written.all():
            raise LayoutError("gather: the shuffle plan left result registers unwritten")
        load_wavefronts = store_wavefronts = 0
    else:
        access = plan.bitwidth // 8
        # st.shared of every source register at its row-major address, barrier, indexed loads.
        smem = np.zeros(src_flat.shape, dtype=src_values.dtype)
        stored = np.zeros(src_flat.shape, dtype=bool)
        smem[s.element] = src_regs
        stored[s.element] = True
        if not stored[coords].all():  # pragma: no cover - a surjective source fills it
            raise LayoutError("gather: a load reads shared memory no thread stored")
        out = smem[coords]
        shuffles = selects = 0
        store_wavefronts = plan.store_wavefronts
        load_wavefronts = int(
            sum(
                warp_wavefronts((coords[w] * access).T, access, load=True)[0].sum()
                for w in range(warps)
            )
        )
    result = np.zeros(idx_values.size, dtype=src_values.dtype)
    # Every (w, l, r) writes its element; broadcast copies must agree.
    flat_out = d.element.reshape(-1)
    result[flat_out] = out.reshape(-1)
    if not (result[flat_out] == out.reshape(-1)).all():  # pragma: no cover - plan invariant
        raise LayoutError("gather: copies of one result element disagree")
    return GatherRun(
        result.reshape(idx_values.shape), shuffles, selects, load_wavefronts, store_wavefronts
    )


def gather_program(plan: GatherPlan, src: LinearLayout, idx: LinearLayout) -> SimtProgram:
    """The per-thread SIMT program of ``plan``: value 0 is the thread's source registers
    (``vector<R_src x T>``), :attr:`SimtProgram.arguments` ``[0]`` its indices
    (``vector<R_dst x i32>``, in the index layout), the output its result registers.

    Shuffle strategy: for each result register, the source ``(register, lane)`` is the inverse
    layout applied to the coordinate, an F2-linear function of the thread id bits and of the
    index bits (each a precomputed column), then one ``shfl.sync.idx`` per candidate source
    register and a select on the computed register. Shared strategy: every thread stores its
    registers at their row-major offsets, a barrier, and loads at the indexed offsets.

    >>> from llc.layouts import BlockedLayout
    >>> src = BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0]).to_linear_layout((32, 16))
    >>> gather_program(plan_gather(src, src, 1, "f32"), src, src).counts()["shfl"]
    16
    """
    s_shape = tuple(src.get_out_dim_size(o) for o in src.get_out_dim_names())
    d_shape = tuple(idx.get_out_dim_size(o) for o in idx.get_out_dim_names())
    s, d = _Hardware(src, s_shape), _Hardware(idx, d_shape)
    axis = plan.axis
    program = SimtProgram(plan.src_registers, plan.bitwidth)
    indices = program.argument(plan.dst_registers, "i32")
    shift_s = s.axis_shift(axis)

    def repack(flat_dst: int) -> int:
        """An index-tensor coordinate without its axis part, re-packed at the source's offsets."""
        shift_d = d.axis_shift(axis)
        low = flat_dst & ((1 << shift_d) - 1)
        high = flat_dst >> (shift_d + d.bits[axis])
        return low | (high << (shift_s + s.bits[axis]))

    thread_cols = [repack(v) for v in d.lane + d.warp]  # coordinate part from thread id bits
    lanes = 1 << s.lane_bits
    outputs = []
    if plan.strategy == "shuffle":
        warp_cols = [0] * s.lane_bits + s.warp
        inverse = [int(s.inverse[c ^ w]) for c, w in zip(thread_cols, warp_cols, strict=True)]
        axis_cols = [int(s.inverse[1 << (shift_s + j)]) for j in range(s.bits[axis])]
        thread_part = program.linear(inverse)
        for r in range(plan.dst_registers):
            reg_coord = matrix_vector_product(d.reg, r)
            i_value = program.to_index(program.vperm(indices, indices, [r]))
            hw = program.binary("xori", thread_part, program.linear(axis_cols, i_value))
            hw = program.xor_const(hw, int(s.inverse[repack(reg_coord)]))
            src_lane = program.binary("shrui", hw, program.const(s.reg_bits))
            src_reg = program.binary("andi", hw, program.const((1 << s.reg_bits) - 1))
            out = None
            for reg in plan.candidates[r]:
                value = program.vperm(0, 0, [reg])
                got = program.shuffle("idx", value, src_lane, lanes - 1)
                if out is None:
                    out = got
                else:
                    cond = program.cmpne(program.xor_const(src_reg, reg))
                    out = program.select(cond, out, got)
            assert out is not None
            outputs.append(out)
    else:
        item = plan.bitwidth // 8
        log_item = item.bit_length() - 1
        smem = program.alloc(plan.shared_bytes_alternative, item)
        src_thread = program.linear(s.lane + s.warp)
        for reg in range(plan.src_registers):
            coord = matrix_vector_product(s.reg, reg)
            addr = program.xor_const(src_thread, coord)
            if log_item:
                addr = program.binary("shli", addr, program.const(log_item))
            program.store(smem, addr, program.vperm(0, 0, [reg]))
        program.barrier()
        dst_thread = program.linear(thread_cols)
        for r in range(plan.dst_registers):
            reg_coord = matrix_vector_product(d.reg, r)
            i_value = program.to_index(program.vperm(indices, indices, [r]))
            offset = program.binary("shli", i_value, program.const(shift_s)) if shift_s else i_value
            coord = program.xor_const(program.binary("xori", dst_thread, offset), repack(reg_coord))
            addr = program.binary("shli", coord, program.const(log_item)) if log_item else coord
            outputs.append(program.load(smem, addr, 1))
    program.output = program.concat(outputs)
    return program
