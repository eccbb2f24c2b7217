"""A brute-force F2 rank for tests, independent of :mod:`llc.f2` (numpy Gaussian elimination)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def gf2_rank(columns: Sequence[int]) -> int:
    """Rank over F2 of the matrix whose columns are the bit-packed ints ``columns``.

    >>> gf2_rank([0b101, 0b011, 0b110])
    2
    """
    if not columns:
        return 0
    width = max(max(columns).bit_length(), 1)
    m = np.array([[(c >> r) & 1 for c in columns] for r in range(width)], dtype=bool)
    rank = 0
    for col in range(m.shape[1]):
        pivot = next((r for r in range(rank, m.shape[0]) if m[r, col]), None)
        if pivot is None:
            continue
        m[[rank, pivot]] = m[[pivot, rank]]
        below = m[:, col].copy()
        below[rank] = False
        m[below] ^= m[rank]
        rank += 1
    return rank
