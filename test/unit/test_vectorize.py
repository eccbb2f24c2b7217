"""Generalized vectorization (llc.vectorize): checked against a brute force over register maps."""

from __future__ import annotations

import itertools
import random

import pytest

from llc.errors import LayoutError
from llc.layouts import BlockedLayout
from llc.linear_layout import LinearLayout
from llc.vectorize import largest_vectorization


def _run_by_evaluation(ll: LinearLayout, order: list[int]) -> int:
    """Largest 2^k such that, with registers renamed by ``order`` (new -> old), every aligned
    group of 2^k registers of every thread holds 2^k consecutive, aligned elements of the last dim
    (same coordinates in the other dims). Evaluates the layout point by point."""
    names = ll.get_in_dim_names()
    hw = [n for n in names if n != "register"]
    sizes = [ll.get_in_dim_size(n) for n in hw]
    nreg = ll.get_in_dim_size("register")
    contig = ll.get_out_dim_names()[-1]
    best = 1
    size = 2
    while size <= min(nreg, ll.get_out_dim_size(contig)):
        ok = True
        for point in itertools.product(*(range(s) for s in sizes)):
            base = dict(zip(hw, point, strict=True))
            for start in range(0, nreg, size):
                first = ll.apply({**base, "register": order[start]})
                if first[contig] % size:
                    ok = False
                for i in range(size):
                    got = ll.apply({**base, "register": order[start + i]})
                    want = dict(first)
                    want[contig] = first[contig] + i
                    if got != want:
                        ok = False
        if not ok:
            break
        best = size
        size *= 2
    return best


def _invertible_maps(bits: int) -> list[list[int]]:
    """Every invertible F2 matrix on ``bits`` bits, as the images of the unit vectors."""
    maps = []
    for columns in itertools.product(range(1, 1 << bits), repeat=bits):
        span = {0}
        for c in columns:
            span |= {s ^ c for s in span}
        if len(span) == 1 << bits:
            maps.append(list(columns))
    return maps


def _order(columns: list[int], bits: int) -> list[int]:
    out = []
    for new in range(1 << bits):
        old = 0
        for j in range(bits):
            if new >> j & 1:
                old ^= columns[j]
        out.append(old)
    return out


def _random_layout(rng: random.Random) -> LinearLayout:
    shape = (rng.choice([1, 2, 4]), rng.choice([2, 4, 8]))

    def vec() -> list[int]:
        return [rng.randrange(shape[0]), rng.randrange(shape[1])]

    units = [[0, 1 << i] for i in range(shape[1].bit_length() - 1)]
    reg = []
    for _ in range(3):
        reg.append(rng.choice(units) if units and rng.random() < 0.6 else vec())
    lanes = [vec() for _ in range(rng.randrange(3))]
    return LinearLayout.from_bases(
        [("register", reg), ("lane", lanes)],
        ["dim0", "dim1"],
        list(shape),
        require_surjective=False,
    )


MAPS3 = _invertible_maps(3)


@pytest.mark.parametrize("seed", range(60))
def test_brute_force_finds_no_longer_run(seed: int) -> None:
    """Over all 168 register permutations that are linear (every one Triton's ColumnAction or a
    change of register basis can give), none beats the run found; the permuted layout has it."""
    ll = _random_layout(random.Random(seed))
    v = largest_vectorization(ll, "f16")
    best = max(_run_by_evaluation(ll, _order(m, 3)) for m in MAPS3)
    assert v.run == best
    assert _run_by_evaluation(ll, list(v.permutation)) == v.run
    assert _run_by_evaluation(ll, list(range(8))) == v.identity_run
    assert sorted(v.permutation) == list(range(8))
    for new, old in enumerate(v.permutation):
        for lane in range(ll.get_in_dim_size("lane")):
            assert v.layout.apply({"register": new, "lane": lane}) == ll.apply(
                {"register": old, "lane": lane}
            )


def test_width_is_capped_at_128_bits() -> None:
    blocked = BlockedLayout([1, 16], [32, 1], [1, 1], [1, 0]).to_linear_layout((32, 16))
    v = largest_vectorization(blocked, "f32")
    assert (v.run, v.vector, v.width_bits, v.accesses) == (16, 4, 128, 4)
    assert largest_vectorization(blocked, "i8").width_bits == 128


def test_lane_bits_in_the_run_block_it() -> None:
    """A lane basis on the low contiguous bit leaves each thread's vector unaligned: run 1."""
    ll = LinearLayout.from_bases(
        [("register", [[0, 2]]), ("lane", [[0, 1]])], ["dim0", "dim1"], [1, 4]
    )
    assert largest_vectorization(ll).run == 1


def test_errors_name_the_parameter() -> None:
    shared = LinearLayout.identity_1d(8, "offset", "dim0")
    with pytest.raises(LayoutError, match="no 'register' in-dim"):
        largest_vectorization(shared)
    blocked = BlockedLayout([2], [32], [1], [0]).to_linear_layout((64,))
    with pytest.raises(LayoutError, match="contig_dim 'dim3'"):
        largest_vectorization(blocked, "f16", "dim3")
    with pytest.raises(LayoutError, match="dtype 'q7'"):
        largest_vectorization(blocked, "q7")
