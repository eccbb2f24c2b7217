"""Random pairs of distributed layouts for translation validation of the conversion lowering.

:func:`random_pair` draws, from one integer seed, a conversion ``src -> dst`` with its element
width: random bases (invertible matrices, broadcast lanes/warps/registers on either side, pairs
that stay within a warp or within a thread), and pairs of the layout families (blocked <->
blocked, transposes, mma v2/v3 <-> blocked, mma <-> dot_op of either operand, slices, 1D to 3D),
with 8/16/32/64-bit elements, 1 to 8 warps and 32 or 64 lanes. The ``mma_dot`` kind also draws
AMD matrix layouts: ``amd_mfma`` (64-lane waves) and ``amd_wmma`` (32 lanes), to and from blocked
layouts and their dot operands (``opIdx`` 0 and 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from llc.errors import LayoutError
from llc.layouts import AmdMfmaLayout, AmdWmmaLayout, BlockedLayout
from llc.layouts.nvidia import DotOperandLayout, NvidiaMmaLayout
from llc.layouts.slice import SliceLayout
from llc.linear_layout import LinearLayout

KINDS = ("random", "random_warp_local", "blocked", "transpose", "mma", "mma_dot", "slice", "3d")


def _split(value: int, dims_log2: Sequence[int]) -> list[int]:
    out = []
    for bits in dims_log2:
        out.append(value & ((1 << bits) - 1))
        value >>= bits
    return out


def _from_columns(
    regs: list[int], lanes: list[int], warps: list[int], dims_log2: Sequence[int]
) -> LinearLayout:
    def bases(values: list[int]) -> list[list[int]]:
        return [_split(v, dims_log2) for v in values]

    return LinearLayout.from_bases(
        [("register", bases(regs)), ("lane", bases(lanes)), ("warp", bases(warps))],
        [f"dim{i}" for i in range(len(dims_log2))],
        [1 << b for b in dims_log2],
    )


def _random_invertible(rng: np.random.Generator, n: int) -> list[int]:
    columns = [1 << i for i in range(n)]
    for _ in range(2 * n):
        if n < 2:
            break
        i, j = rng.choice(n, size=2, replace=False)
        columns = [c ^ ((c >> j & 1) << i) for c in columns]
    return [columns[k] for k in rng.permutation(n)]


def _random_layout(
    rng: np.random.Generator, dims_log2: Sequence[int], lane_bits: int, warp_bits: int
) -> tuple[list[int], list[int], list[int]]:
    """Register, lane and warp columns of a random surjective layout (with broadcast)."""
    n = sum(dims_log2)
    columns = _random_invertible(rng, n)
    hw = lane_bits + warp_bits
    zero_hw = max(0, hw - n) + int(rng.integers(0, 2)) * int(rng.integers(0, 3))
    zero_hw = min(zero_hw, hw)
    slots = [0] * hw
    live = sorted(rng.choice(hw, size=hw - zero_hw, replace=False).tolist()) if hw > zero_hw else []
    for slot, col in zip(live, columns, strict=False):
        slots[slot] = col
    regs = columns[len(live) :]
    # Duplicated registers: a zero or repeated register column now and then.
    if rng.random() < 0.3 and len(regs) < 7:
        dup = int(rng.integers(0, len(regs))) if regs and rng.random() < 0.5 else -1
        regs.insert(int(rng.integers(0, len(regs) + 1)), regs[dup] if dup >= 0 else 0)
    return regs, slots[:lane_bits], slots[lane_bits:]


def _random_pair(rng: np.random.Generator, warp_local: bool) -> tuple[LinearLayout, LinearLayout]:
    lane_bits = 5 if rng.random() < 0.8 else 6
    warp_bits = int(rng.integers(0, 4))
    rank = int(rng.integers(1, 4))
    n = int(rng.integers(max(1, lane_bits + warp_bits - 2), lane_bits + warp_bits + 5))
    cuts = sorted(rng.integers(0, n + 1, size=rank - 1).tolist())
    dims = [b - a for a, b in zip([0, *cuts], [*cuts, n], strict=True)]
    s_regs, s_lanes, s_warps = _random_layout(rng, dims, lane_bits, warp_bits)
    src = _from_columns(s_regs, s_lanes, s_warps, dims)
    if not warp_local:
        d_regs, d_lanes, d_warps = _random_layout(rng, dims, lane_bits, warp_bits)
        return src, _from_columns(d_regs, d_lanes, d_warps, dims)
    # Same warps; registers and lanes re-mixed inside each warp's share of the tensor.
    inside = [c for c in [*s_regs, *s_lanes] if c]
    basis: list[int] = []
    for c in inside:
        reduced = c
        for b in sorted(basis, reverse=True):
            reduced = min(reduced, reduced ^ b)
        if reduced:
            basis.append(c)
    k = len(basis)
    mix = _random_invertible(rng, k)
    mixed = [0] * k
    for i, m in enumerate(mix):
        for j in range(k):
            if m >> j & 1:
                mixed[i] ^= basis[j]
    lanes = [0] * lane_bits
    live = sorted(rng.choice(lane_bits, size=min(lane_bits, k), replace=False).tolist())
    order = rng.permutation(k).tolist()
    for slot in live:
        lanes[slot] = mixed[order.pop()]
    regs = [mixed[i] for i in order]
    if rng.random() < 0.3:
        regs.insert(int(rng.integers(0, len(regs) + 1)), 0)
    if rng.random() < 0.2:  # a thread-local conversion: keep the lanes
        lanes = list(s_lanes)
        regs = [s_regs[i] for i in rng.permutation(len(s_regs))]
    return src, _from_columns(regs, lanes, list(s_warps), dims)


def _pow2_split(rng: np.random.Generator, total: int, rank: int) -> list[int]:
    out = [1] * rank
    for _ in range(total.bit_length() - 1):
        out[int(rng.integers(0, rank))] *= 2
    return out


def _random_blocked(
    rng: np.random.Generator, rank: int, lanes: int, warps: int, order: list[int] | None = None
) -> BlockedLayout:
    spt = [1 << int(rng.integers(0, 3)) for _ in range(rank)]
    tpw = _pow2_split(rng, lanes, rank)
    wpc = _pow2_split(rng, warps, rank)
    if order is None:
        order = [int(x) for x in rng.permutation(rank)]
    return BlockedLayout(spt, tpw, wpc, order)


def _shape(rng: np.random.Generator, rank: int, low: int, high: int) -> list[int]:
    return [1 << int(rng.integers(low, high)) for _ in range(rank)]


def _amd_pair(rng: np.random.Generator, record: list[Any]) -> tuple[LinearLayout, LinearLayout]:
    """An AMD matrix layout (mfma or wmma) or one of its dot operands, and a blocked layout or
    the other side of the mma -> dot_op pair."""
    warps = 1 << int(rng.integers(0, 3))
    wpc = _pow2_split(rng, warps, 2)
    transposed = bool(rng.integers(0, 2))
    if rng.random() < 0.6:
        m, n = (32, 32) if rng.random() < 0.5 else (16, 16)
        parent: AmdMfmaLayout | AmdWmmaLayout = AmdMfmaLayout(
            int(rng.choice([2, 3])), wpc, [m, n], transposed
        )
        lanes, k_width = 64, int(rng.choice([4, 8]))
    else:
        m = n = 16
        parent = AmdWmmaLayout(int(rng.choice([1, 2])), transposed, wpc)
        lanes, k_width = 32, int(rng.choice([8, 16]))
    shape = [m * wpc[0] << int(rng.integers(0, 2)), n * wpc[1] << int(rng.integers(0, 2))]
    op_idx = int(rng.integers(0, 2))
    dot = DotOperandLayout(op_idx, parent, k_width)
    roll = rng.random()
    if roll < 0.4:
        a, b = parent, dot
    elif roll < 0.7:
        a, b = parent, _random_blocked(rng, 2, lanes, warps)
    else:
        a, b = dot, _random_blocked(rng, 2, lanes, warps)
    if rng.random() < 0.5:
        a, b = b, a
    record[:] = [a, b]
    return a.to_linear_layout(shape), b.to_linear_layout(shape)


def _family_pair(
    rng: np.random.Generator,
    kind: str,
    extra: np.random.Generator | None = None,
    record: list[Any] | None = None,
) -> tuple[LinearLayout, LinearLayout]:
    """A pair of ``kind``; ``extra`` (a stream of its own, so that the other kinds' seeds keep
    their pairs) draws the ``mma_dot`` variants: AMD layouts and the dot operand's index."""
    extra = extra or np.random.default_rng(0)
    record = [] if record is None else record
    if kind == "mma_dot" and extra.random() < 0.4:
        return _amd_pair(extra, record)
    warps = 1 << int(rng.integers(0, 4))
    lanes = 32 if kind in ("mma", "mma_dot") or rng.random() < 0.8 else 64
    if kind == "blocked":
        shape = _shape(rng, 2, 2, 7)
        a, b = _random_blocked(rng, 2, lanes, warps), _random_blocked(rng, 2, lanes, warps)
    elif kind == "transpose":
        shape = _shape(rng, 2, 3, 7)
        a = _random_blocked(rng, 2, lanes, warps, [1, 0])
        b = BlockedLayout(
            list(reversed(a.size_per_thread)),
            list(reversed(a.threads_per_warp)),
            list(reversed(a.warps_per_cta)),
            [0, 1],
        )
    elif kind == "3d":
        shape = _shape(rng, 3, 1, 5)
        a, b = _random_blocked(rng, 3, lanes, warps), _random_blocked(rng, 3, lanes, warps)
    elif kind == "slice":
        dim = int(rng.integers(0, 2))
        parent = _random_blocked(rng, 2, lanes, warps)
        a = SliceLayout(dim, parent)
        b = (
            _random_blocked(rng, 1, lanes, warps)
            if rng.random() < 0.5
            else SliceLayout(1 - dim, _random_blocked(rng, 2, lanes, warps))
        )
        shape = _shape(rng, 1, 3, 10)
    else:
        wpc = _pow2_split(rng, warps, 2)
        if kind == "mma" and rng.random() < 0.5 and warps >= 4:
            n = 1 << int(rng.integers(3, 7))
            mma = NvidiaMmaLayout(3, 0, [warps, 1], [16, n, 16])
            shape = [16 * warps << int(rng.integers(0, 2)), n << int(rng.integers(0, 2))]
        else:
            mma = NvidiaMmaLayout(2, 0, wpc, [16, 8])
            shape = [16 * wpc[0] << int(rng.integers(0, 3)), 8 * wpc[1] << int(rng.integers(0, 3))]
        if kind == "mma":
            a, b = mma, _random_blocked(rng, 2, lanes, warps)
        else:
            k_width = int(rng.choice([1, 2, 4]))
            op_idx = int(extra.integers(0, 2))  # A (M x K) or B (K x N)
            a, b = mma, DotOperandLayout(op_idx, mma, k_width)
            if op_idx == 0:
                shape = [shape[0], max(shape[1], 32 * k_width)]
            else:
                shape = [max(shape[0], 32 * k_width), shape[1]]
        if rng.random() < 0.5:
            a, b = b, a
    record[:] = [a, b]
    return a.to_linear_layout(shape), b.to_linear_layout(shape)


def random_pair(
    seed: int, families: list[Any] | None = None
) -> tuple[LinearLayout, LinearLayout, int, str]:
    """``(src, dst, bitwidth, kind)`` for ``seed`` (deterministic); a ``families`` list receives
    the two layouts (``BlockedLayout``, ``DotOperandLayout``, ...) of a family pair.

    >>> src, dst, bits, kind = random_pair(3)
    >>> src.out_dims == dst.out_dims, bits in (8, 16, 32, 64)
    (True, True)
    """
    rng = np.random.default_rng(seed)
    extra = np.random.default_rng([seed, 19])
    kind = KINDS[seed % len(KINDS)]
    bitwidth = int(rng.choice([8, 16, 32, 64]))
    for _ in range(50):
        try:
            if kind.startswith("random"):
                src, dst = _random_pair(rng, kind == "random_warp_local")
            else:
                src, dst = _family_pair(rng, kind, extra, families)
        except (LayoutError, ValueError):
            continue
        if src.total_out_size <= 1 << 14:
            return src, dst, bitwidth, kind
    raise AssertionError(f"seed {seed}: no valid pair of kind {kind}")
