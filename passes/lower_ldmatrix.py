"""``tl.local_load`` through ``ldmatrix``: reading a shared tile into registers, 8x8 matrices at a
time, where the register layout and the buffer's shared layout allow it.

``ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16`` gives each lane two 16-bit elements
of each of ``count`` 8x8 matrices whose rows (16 contiguous bytes each) lanes ``8i .. 8i+7``
address. With a buffer's shared layout as a map from each register and thread bit of the
result layout to an element offset (:meth:`FunctionLowering.shared_offsets`; linear over F2,
the swizzle included), the instruction fits when:

* **plain**: one register bit (the pair's second element) and lane bits 0, 1 land on offsets
  1, 2, 4 (one 16-byte row, in the instruction's order); lane bits 2..4 pick the 8 rows;
* **.trans**: lane bits 2..4 land on offsets 1, 2, 4 (the row is a column of the registers'
  matrix); one register bit and lane bits 0, 1 pick the rows;

and every other register, lane and warp bit keeps rows 16-byte aligned (offsets that are
multiples of 8). Up to two more register bits index the matrices of one instruction (``x4``);
the remaining register bits count instructions. Registers are renumbered for the instruction
and put back in the layout's order with one ``vector.shuffle`` (free: register renaming).

The lowering takes ``ldmatrix`` only where it costs no more shared wavefronts per warp than the
widest plain ``ld.shared`` (``llc.swizzle.warp_wavefronts``, the bank model of the planner and
the interpreter), and fewer instructions; ``ldmatrix`` needs sm_75
(:data:`llc.lowering.LDMATRIX_MIN_CAPABILITY`). The ring slots of ``llc-pipeline`` are read this
way into mma v2 operands (A without, B with ``.trans`` for row-major tiles), as Triton does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import TensorType, VectorType

from llc.dialects import simt
from llc.f2 import matrix_vector_product
from llc.lowering import LDMATRIX_MIN_CAPABILITY
from llc.passes.simt_lowering import (
    Laid,
    register_vector_type,
    tensor_layout,
    thread_coords,
    widest_run,
)
from llc.swizzle import warp_wavefronts

__all__ = ["MatrixRead", "ldmatrix_read", "lower_local_load_ldmatrix", "plain_read_cost"]


@dataclass(frozen=True)
class MatrixRead:
    """An ``ldmatrix`` plan: ``order[b]`` is the layout's register bit that the instruction's
    register bit ``b`` is (bit 0: the pair's second element, bits 1.. the matrix index, then the
    instructions); ``count`` matrices per instruction; ``trans``; ``rows``: the element offset
    each address-giving lane bit (0..4) adds; ``wavefronts`` per warp for the whole tile.

    >>> MatrixRead((0, 1, 2, 3), 4, False, (16, 32, 64, 128, 8), 16).instructions
    2
    """

    order: tuple[int, ...]
    count: int
    trans: bool
    rows: tuple[int, ...]
    wavefronts: int

    @property
    def instructions(self) -> int:
        """``ldmatrix`` instructions per thread: the registers over two per matrix."""
        return (1 << len(self.order)) // (2 * self.count)


def _columns(reg: list[int]) -> list[int]:
    """The offset of each register bit (``reg`` is linear: ``reg[r]`` XORs its bits' columns)."""
    return [reg[1 << b] for b in range((len(reg) - 1).bit_length())]


def ldmatrix_read(reg: list[int], thread: list[int], lanes: int) -> MatrixRead | None:
    """The ``ldmatrix`` that reads registers at element offsets ``reg[r] ^ thread part`` (16-bit
    elements; ``thread``: the offset of each lane bit, then each warp bit), or ``None``.

    The mma v2 A operand (kWidth 2) in a row-major 16x16 tile: register 0 is the next k, lanes
    0, 1 step k by 2, lanes 2..4 step m; registers 1 and 2 step m by 8 and k by 8:

    >>> a = ldmatrix_read([0, 1, 128, 129, 8, 9, 136, 137], [2, 4, 16, 32, 64], 32)
    >>> a.count, a.trans, a.order, a.rows
    (4, False, (0, 1, 2), (16, 32, 64, 128, 8))

    The B operand read from a row-major (n contiguous) tile needs ``.trans``; one whose lanes
    are not whole rows fits neither:

    >>> ldmatrix_read([0, 16, 128, 144], [32, 64, 1, 2, 4], 32).trans
    True
    >>> ldmatrix_read([0, 1, 2, 3], [4, 8, 16, 32, 64], 32) is None
    True
    """
    if lanes != 32 or len(thread) < 5 or len(reg) < 2 or len(reg) & (len(reg) - 1):
        return None
    cols = _columns(reg)
    if not all(cols):
        return None  # a broadcast register: the instruction would fetch it twice
    lane, warp = thread[:5], thread[5:]
    aligned = all(c % 8 == 0 for c in warp)
    best: MatrixRead | None = None
    for trans in (False, True):
        if trans:
            if lane[2:5] != [1, 2, 4] or not all(c % 8 == 0 for c in lane[:2]):
                continue
            pair = next((b for b, c in enumerate(cols) if c % 8 == 0), None)
        else:
            if lane[:2] != [2, 4] or not all(c % 8 == 0 for c in lane[2:5]):
                continue
            pair = next((b for b, c in enumerate(cols) if c == 1), None)
        if pair is None or not aligned:
            continue
        rest = [b for b in range(len(cols)) if b != pair]
        if any(cols[b] % 8 for b in rest):
            continue
        c = min(2, len(rest))
        order = (pair, *rest)
        row_cols = [cols[pair], lane[0], lane[1]] if trans else lane[2:5]
        matrix_cols = [cols[b] for b in rest[:c]] + [0] * (2 - c)
        rows = (*row_cols, *matrix_cols)
        wf = _matrix_wavefronts(rows, [cols[b] for b in rest[c:]], 1 << c)
        plan = MatrixRead(order, 1 << c, trans, tuple(rows), wf)
        if best is None or plan.wavefronts < best.wavefronts:
            best = plan
    return best


def _matrix_wavefronts(rows: tuple[int, ...] | list[int], steps: list[int], count: int) -> int:
    """Wavefronts per warp of the ``ldmatrix`` instructions: each matrix's 8 row addresses are
    one phase (as the SIMT interpreter counts them)."""
    lanes = np.arange(8 * count, dtype=np.int64)
    base = np.zeros_like(lanes)
    for bit, col in enumerate(rows):
        base ^= ((lanes >> bit) & 1) * col
    total = 0
    for i in range(1 << len(steps)):
        addr = (base ^ matrix_vector_product(list(steps), i)) * 2
        wf, _ = warp_wavefronts(addr.reshape(-1, 8), 16)
        total += int(wf.sum())
    return total


def plain_read_cost(reg: list[int], thread: list[int], lanes: int, item: int) -> tuple[int, int]:
    """Wavefronts per warp and instructions per thread of the widest plain ``ld.shared`` read
    (as :meth:`FunctionLowering.shared_access` emits it).

    Unswizzled 32-byte rows put rows ``m`` and ``m + 4`` in the same banks: both reads of
    the doctest tile of :func:`ldmatrix_read` take two wavefronts per 128 bytes:

    >>> reg, thread = [0, 1, 128, 129, 8, 9, 136, 137], [2, 4, 16, 32, 64]
    >>> plain_read_cost(reg, thread, 32, 2), ldmatrix_read(reg, thread, 32).wavefronts
    ((8, 4), 8)
    """
    width = widest_run(reg, thread, max(1, 16 // item))
    lane_ids = np.arange(lanes, dtype=np.int64)
    base = np.zeros_like(lane_ids)
    for bit, col in enumerate(thread[: (lanes - 1).bit_length()]):
        base ^= ((lane_ids >> bit) & 1) * col
    addr = np.stack([(base ^ reg[b]) * item for b in range(0, len(reg), width)])
    wf, _ = warp_wavefronts(addr, width * item, load=True)
    return int(wf.sum()), len(reg) // width


def lower_local_load_ldmatrix(lowering: Any, op: Any) -> bool:
    """Lower ``tl.local_load`` ``op`` with ``ldmatrix`` when it fits and pays (see the module
    docstring); ``False`` (nothing emitted) otherwise."""
    if lowering.compute_capability < LDMATRIX_MIN_CAPABILITY:
        return False
    res = op.results[0]
    rt = res.type
    assert isinstance(rt, TensorType)
    vt = register_vector_type(rt)
    if simt.bit_width(vt.element_type) != 16:
        return False
    mem = op.operands[0]
    ll = tensor_layout(rt)
    target = Laid(lowering.get(mem), thread_coords(ll, lowering.threads), ll)
    reg, thread = lowering.shared_offsets(mem, target)
    plan = ldmatrix_read(reg, thread, lowering.lanes)
    if plan is None:
        return False
    plain_wf, plain_n = plain_read_cost(reg, thread, lowering.lanes, 2)
    if plan.wavefronts > plain_wf or plan.instructions >= plain_n:
        return False
    # address-giving thread: lane bits -> rows and matrices of the instruction, warps as laid
    tpart = lowering.thread_linear([*plan.rows, *thread[5:]])
    smem = lowering.get(mem)
    per = 2 * plan.count
    parts = []
    for i in range(plan.instructions):
        # the instruction's first register, in the layout's numbering
        first = matrix_vector_product([1 << b for b in plan.order], i * per)
        addr = lowering.shared_address(mem, tpart, reg[first], 2)
        rtype = VectorType(vt.element_type, [per])
        parts.append(
            lowering.emit(simt.LdMatrixOp(smem, addr, plan.count, plan.trans, rtype)).results[0]
        )
    loaded = lowering.concat(parts)
    # register r of the layout is instruction register pos(r): the bits of r in plan order
    mask = [
        sum(((r >> src) & 1) << dst for dst, src in enumerate(plan.order)) for r in range(len(reg))
    ]
    lowering.set_tensor(res, lowering.shuffle(loaded, loaded, mask), ll)
    return True
