"""Bit-packed linear algebra over F2.

A vector over F2 is a Python ``int`` whose bit ``k`` is coordinate ``k``; a matrix is a sequence of
such ints, one per *column*. Python ints have no width limit, so nothing here is capped at 64 bits
(Triton's matrices are one ``uint64`` per row).

The central object is :class:`EchelonBasis`: columns are inserted in order and each one is either a
*pivot* (independent of the columns before it) or *free* (a combination of earlier ones). Taking the
earliest independent columns as pivots is exactly what Triton gets from the reduced row-echelon form
with the pivot in each row's lowest column, so solving with "free variables set to 0" gives the same
answer as Triton's ``lstsq``.

>>> basis = EchelonBasis([0b011, 0b101, 0b110])  # third column = first ^ second
>>> basis.rank, basis.pivots, basis.free_columns
(2, (0, 1), (2,))
>>> basis.solve(0b110)  # x with A x = b, free variables 0: columns 0 and 1
3
>>> basis.solve(0b100) is None  # 0b100 is not in the column span
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["EchelonBasis", "matrix_rank", "transpose_bits"]


class EchelonBasis:
    """An incremental echelon form of a list of F2 column vectors.

    Each stored row is ``(vector, combination)``: ``vector`` has a distinct leading (highest) bit,
    and ``combination`` is the bit set of original *pivot* columns whose XOR equals ``vector``.

    >>> EchelonBasis([1, 2, 3]).solve(3)  # 3 = col0 ^ col1; col2 is free so it stays 0
    3
    """

    __slots__ = ("_rows", "free_columns", "num_columns", "pivots")

    def __init__(self, columns: Iterable[int] = ()) -> None:
        # Sorted by leading bit, highest first, so one pass reduces a vector fully.
        self._rows: dict[int, tuple[int, int]] = {}
        self.pivots: tuple[int, ...] = ()
        self.free_columns: tuple[int, ...] = ()
        self.num_columns = 0
        pivots: list[int] = []
        free: list[int] = []
        for column in columns:
            if self._insert(column, 1 << self.num_columns):
                pivots.append(self.num_columns)
            else:
                free.append(self.num_columns)
            self.num_columns += 1
        self.pivots = tuple(pivots)
        self.free_columns = tuple(free)

    def _insert(self, vector: int, combination: int) -> bool:
        rows = self._rows
        while vector:
            lead = vector.bit_length() - 1
            row = rows.get(lead)
            if row is None:
                rows[lead] = (vector, combination)
                return True
            vector ^= row[0]
            combination ^= row[1]
        return False

    @property
    def rank(self) -> int:
        """The number of independent columns.

        >>> EchelonBasis([0b01, 0b10, 0b11, 0]).rank
        2
        """
        return len(self._rows)

    def reduce(self, vector: int) -> tuple[int, int]:
        """Reduce ``vector`` against the basis: returns ``(residual, combination)``.

        ``vector == residual ^ XOR(columns in combination)``; ``residual == 0`` iff ``vector`` is in
        the span.

        >>> EchelonBasis([0b01, 0b10]).reduce(0b111)
        (4, 3)
        """
        rows = self._rows
        combination = 0
        residual = 0
        while vector:
            lead_bit = 1 << (vector.bit_length() - 1)
            row = rows.get(lead_bit.bit_length() - 1)
            if row is None:
                # Nothing in the basis has this leading bit: it stays in the residual.
                residual |= lead_bit
                vector ^= lead_bit
            else:
                vector ^= row[0]
                combination ^= row[1]
        return residual, combination

    def solve(self, vector: int) -> int | None:
        """The ``x`` with ``A x = vector`` using pivot columns only, or None if there is none.

        >>> EchelonBasis([0b10, 0b01]).solve(0b10)
        1
        """
        residual, combination = self.reduce(vector)
        return None if residual else combination

    def contains(self, vector: int) -> bool:
        """Whether ``vector`` lies in the span of the columns.

        >>> EchelonBasis([0b11]).contains(0b11), EchelonBasis([0b11]).contains(0b01)
        (True, False)
        """
        return self.reduce(vector)[0] == 0


def matrix_rank(columns: Sequence[int]) -> int:
    """Rank over F2 of the matrix whose columns are ``columns``.

    >>> matrix_rank([0b101, 0b011, 0b110])
    2
    """
    return EchelonBasis(columns).rank


def transpose_bits(columns: Sequence[int], num_rows: int) -> list[int]:
    """Turn a list of column vectors into a list of ``num_rows`` row vectors.

    >>> transpose_bits([0b01, 0b11], 2)  # columns (1,0) and (1,1) -> rows 0b11 and 0b10
    [3, 2]
    """
    rows = [0] * num_rows
    for c, column in enumerate(columns):
        while column:
            low = column & -column
            rows[low.bit_length() - 1] |= 1 << c
            column ^= low
    return rows
