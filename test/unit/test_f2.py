"""Tests of :mod:`llc.f2`: the echelon basis over F2 on Python ints.

The oracle is a brute-force span (all XOR combinations) for small inputs and a numpy Gaussian
elimination for larger ones.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import reduce
from operator import xor

import pytest
from f2_oracle import gf2_rank
from hypothesis import given, settings
from hypothesis import strategies as st

from llc.f2 import EchelonBasis, matrix_rank, transpose_bits

PROPS = settings(max_examples=300, deadline=None)


def span(columns: Sequence[int]) -> dict[int, int]:
    """Every vector in the span -> the smallest (as an int) subset of columns reaching it."""
    result: dict[int, int] = {}
    for subset in range(1 << len(columns)):
        vector = reduce(xor, (c for k, c in enumerate(columns) if subset >> k & 1), 0)
        result.setdefault(vector, subset)
    return result


def combine(columns: Sequence[int], subset: int) -> int:
    return reduce(xor, (c for k, c in enumerate(columns) if subset >> k & 1), 0)


def column_lists(max_len: int, bits: int) -> st.SearchStrategy[list[int]]:
    element = st.one_of(
        st.just(0), st.integers(0, bits - 1).map(lambda k: 1 << k), st.integers(0, (1 << bits) - 1)
    )
    return st.lists(element, max_size=max_len)


class TestExamples:
    def test_module_example(self) -> None:
        basis = EchelonBasis([0b011, 0b101, 0b110])
        assert (basis.rank, basis.pivots, basis.free_columns) == (2, (0, 1), (2,))
        assert basis.solve(0b110) == 0b011  # columns 0 and 1
        assert basis.solve(0b100) is None
        assert basis.num_columns == 3

    def test_empty_and_zero_columns(self) -> None:
        empty = EchelonBasis()
        assert (empty.rank, empty.pivots, empty.free_columns) == (0, (), ())
        assert empty.solve(0) == 0 and empty.solve(1) is None
        zeros = EchelonBasis([0, 0])
        assert zeros.free_columns == (0, 1) and zeros.rank == 0

    def test_first_independent_columns_are_the_pivots(self) -> None:
        # Triton reads pivots off the RREF as the lowest column of each row: the earliest
        # independent columns, so duplicates and combinations come out free.
        basis = EchelonBasis([1, 2, 1, 3, 4, 0, 6])
        assert basis.pivots == (0, 1, 4)
        assert basis.free_columns == (2, 3, 5, 6)

    def test_reduce(self) -> None:
        basis = EchelonBasis([0b01, 0b10])
        assert basis.reduce(0b111) == (0b100, 0b11)
        assert basis.reduce(0) == (0, 0)
        assert basis.contains(0b11) and not basis.contains(0b100)

    def test_wide_vectors(self) -> None:
        columns = [1 << 100, (1 << 100) | (1 << 70), 1 << 70, 3 << 140]
        basis = EchelonBasis(columns)
        assert basis.pivots == (0, 1, 3) and basis.free_columns == (2,)
        assert basis.solve(1 << 70) == 0b11
        assert basis.solve(1 << 141) is None

    def test_generators_are_accepted(self) -> None:
        assert EchelonBasis(c for c in [1, 2, 3]).rank == 2

    def test_negative_vectors_are_rejected(self) -> None:
        with pytest.raises(ValueError, match=">= 0"):
            EchelonBasis([1, -2])
        with pytest.raises(ValueError, match="negative"):
            EchelonBasis([1]).reduce(-1)

    def test_matrix_rank_and_transpose(self) -> None:
        assert matrix_rank([0b101, 0b011, 0b110]) == 2
        assert transpose_bits([0b01, 0b11], 2) == [0b11, 0b10]
        assert transpose_bits([], 3) == [0, 0, 0]


@PROPS
@given(column_lists(10, 8))
def test_rank_pivots_and_free_columns_by_brute_force(columns: list[int]) -> None:
    basis = EchelonBasis(columns)
    assert basis.rank == len(set(span(columns))).bit_length() - 1 == gf2_rank(columns)
    for k in range(len(columns)):
        independent = columns[k] not in span(columns[:k])
        assert (k in basis.pivots) == independent
        assert (k in basis.free_columns) == (not independent)
    assert sorted(basis.pivots + basis.free_columns) == list(range(len(columns)))


@PROPS
@given(column_lists(10, 8), st.integers(0, 255))
def test_solve_and_reduce_by_brute_force(columns: list[int], vector: int) -> None:
    basis = EchelonBasis(columns)
    reachable = span(columns)
    solution = basis.solve(vector)
    residual, combination = basis.reduce(vector)
    if vector in reachable:
        assert solution is not None and residual == 0
        assert combine(columns, solution) == vector
        # Only pivot columns: the unique solution with free variables 0.
        assert all(k in basis.pivots for k in range(len(columns)) if solution >> k & 1)
        assert basis.contains(vector)
    else:
        assert solution is None and residual != 0 and not basis.contains(vector)
    assert residual ^ combine(columns, combination) == vector
    assert all(k in basis.pivots for k in range(len(columns)) if combination >> k & 1)


@PROPS
@given(column_lists(24, 24))
def test_rank_matches_numpy_for_larger_matrices(columns: list[int]) -> None:
    basis = EchelonBasis(columns)
    assert basis.rank == gf2_rank(columns) == matrix_rank(columns)
    prefix_ranks = [gf2_rank(columns[:k]) for k in range(len(columns) + 1)]
    assert basis.pivots == tuple(
        k for k in range(len(columns)) if prefix_ranks[k + 1] > prefix_ranks[k]
    )
    for k in basis.free_columns:
        solution = basis.solve(columns[k])
        assert solution is not None and solution < (1 << k)  # earlier pivots only
        assert combine(columns, solution) == columns[k]


@settings(max_examples=100, deadline=None)
@given(column_lists(12, 90))
def test_no_width_limit(columns: list[int]) -> None:
    basis = EchelonBasis(columns)
    assert basis.rank == gf2_rank(columns)
    for k in basis.pivots:
        assert basis.solve(columns[k]) == 1 << k


@PROPS
@given(column_lists(12, 12), st.integers(1, 14))
def test_transpose_bits_round_trip(columns: list[int], extra: int) -> None:
    rows = max((c.bit_length() for c in columns), default=0) + extra
    transposed = transpose_bits(columns, rows)
    assert len(transposed) == rows
    for r, c in itertools.product(range(rows), range(len(columns))):
        assert (transposed[r] >> c & 1) == (columns[c] >> r & 1)
    assert transpose_bits(transposed, len(columns)) == columns
    assert matrix_rank(transposed) == matrix_rank(columns)  # row rank == column rank
