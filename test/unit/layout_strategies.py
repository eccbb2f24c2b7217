"""Random distributed layouts for property tests (conversion analysis, swizzling, cost model).

A layout is drawn from a numpy seed so that hypothesis shrinks an integer, not a matrix.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from llc.linear_layout import LinearLayout


def _split(value: int, dims_log2: Sequence[int]) -> list[int]:
    """A flat tensor-bit vector (dim0 in the low bits) as per-dim coordinates."""
    out = []
    for bits in dims_log2:
        out.append(value & ((1 << bits) - 1))
        value >>= bits
    return out


def random_distributed(
    seed: int,
    dims_log2: Sequence[int],
    lane_bits: int = 5,
    warp_bits: int = 2,
    broadcast: int = 0,
    unit_only: bool = True,
) -> LinearLayout:
    """A random surjective ``(register, lane, warp, block) -> (dim0, ...)`` layout.

    The tensor has ``2^dims_log2[i]`` elements along ``dim i``. ``broadcast`` lane/warp bases are
    zero (those threads hold duplicates); the rest are the columns of an invertible matrix, unit
    vectors in a random order when ``unit_only`` (as every family layout), otherwise a random
    invertible matrix (as ``#ttg.linear`` allows). Registers get what lanes and warps leave.
    """
    rng = np.random.default_rng(seed)
    n = sum(dims_log2)
    broadcast = min(broadcast, lane_bits + warp_bits)
    reg_bits = n + broadcast - lane_bits - warp_bits
    if reg_bits < 0:
        raise ValueError("the tensor is too small for the lanes and warps")
    columns = [1 << i for i in range(n)]
    if not unit_only:
        # Random row operations keep the matrix invertible.
        for _ in range(3 * n):
            i, j = rng.choice(n, size=2, replace=False) if n > 1 else (0, 0)
            if i != j:
                columns = [c ^ ((c >> j & 1) << i) for c in columns]
    order = rng.permutation(n)
    columns = [columns[k] for k in order]
    hw_slots = lane_bits + warp_bits
    zero_slots = set(rng.choice(hw_slots, size=broadcast, replace=False).tolist())
    lane_warp: list[int] = []
    taken = 0
    for slot in range(hw_slots):
        if slot in zero_slots:
            lane_warp.append(0)
        else:
            lane_warp.append(columns[reg_bits + taken])
            taken += 1
    regs = columns[:reg_bits]

    def bases(values: list[int]) -> list[list[int]]:
        return [_split(v, dims_log2) for v in values]

    return LinearLayout.from_bases(
        [
            ("register", bases(regs)),
            ("lane", bases(lane_warp[:lane_bits])),
            ("warp", bases(lane_warp[lane_bits:])),
            ("block", []),
        ],
        [f"dim{i}" for i in range(len(dims_log2))],
        [1 << b for b in dims_log2],
    )
