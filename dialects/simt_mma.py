"""SIMT-interpreter semantics of ``simt.mma_m16n8k32`` (``mma.sync.m16n8k32.s32.s8.s8.s32``),
with the fragment layout the PTX ISA gives ("Matrix Fragments for mma.m16n8k32", ``.s8``).

>>> ra, ca, rb, cb, rc, cc = mma_k32_fragment_coords()
>>> [(int(ra[5, i]), int(ca[5, i])) for i in (0, 3, 4, 8, 15)]
[(1, 4), (1, 7), (9, 4), (1, 20), (9, 23)]
>>> [(int(rb[5, i]), int(cb[5, i])) for i in (0, 3, 4, 7)]
[(4, 1), (7, 1), (20, 1), (23, 1)]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from xdsl.interpreter import PythonValues

from llc.dialects import simt
from llc.dialects.simt_interpreter import SimtError

if TYPE_CHECKING:
    from llc.dialects.simt_kernel_interpreter import KernelFunctions

__all__ = ["mma_k32_fragment_coords", "run_mma_k32"]


def mma_k32_fragment_coords() -> tuple[np.ndarray, ...]:
    """(row, col) of every (lane, register) of the m16n8k32 8-bit fragments: ``(32, 16)`` for A
    (16x32), ``(32, 8)`` for B (32x8), ``(32, 4)`` for C/D (16x8, as m16n8k16's), with
    ``groupID = lane >> 2`` and ``threadID_in_group = lane % 4``: A's ``a_i`` sits at row
    ``groupID + 8`` for ``i`` in 4..7 and 12..15 (else ``groupID``), column ``4 tig + (i & 3)``
    (+16 from ``i = 8``); B's ``b_i`` at row ``4 tig + (i & 3)`` (+16 from ``i = 4``), column
    ``groupID``."""
    from llc.dialects.simt_kernel_interpreter import mma_fragment_coords

    lane = np.arange(32)[:, None]
    group, tig = lane >> 2, lane % 4
    i = np.arange(16)[None, :]
    ra = group + 8 * ((i // 4) % 2)
    ca = tig * 4 + (i & 3) + 16 * (i >= 8)
    j = np.arange(8)[None, :]
    rb = tig * 4 + (j & 3) + 16 * (j >= 4)
    cb = np.broadcast_to(group, (32, 8))
    *_, rc, cc = mma_fragment_coords()
    return ra, ca, rb, np.array(cb), rc, cc


def run_mma_k32(k: KernelFunctions, op: simt.MmaK32Op, args: PythonValues) -> PythonValues:
    """Each warp's ``D = A B + C`` (16x32 by 32x8, signed bytes, 32-bit wrap-around sums)."""
    a, b, c = (
        np.asarray(x).view(t) for x, t in zip(args, (np.int8, np.int8, np.int32), strict=True)
    )
    if k.threads_per_warp != 32:
        raise SimtError(op, "mma.sync needs warps of 32 lanes")
    warps = k.num_warps
    ra, ca, rb, cb, rc, cc = mma_k32_fragment_coords()
    A = np.zeros((warps, 16, 32), np.int64)
    B = np.zeros((warps, 32, 8), np.int64)
    C = np.zeros((warps, 16, 8), np.int64)
    A[:, ra, ca] = a.reshape(warps, 32, 16)
    B[:, rb, cb] = b.reshape(warps, 32, 8)
    C[:, rc, cc] = c.reshape(warps, 32, 4)
    out = (A @ B + C)[:, rc, cc].reshape(k.threads, 4).astype(np.int32)
    k.stats.count("mma.sync.m16n8k32")
    return (out,)
