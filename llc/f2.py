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
from typing import NamedTuple

__all__ = [
    "BitField",
    "EchelonBasis",
    "bit_fields",
    "matrix_rank",
    "matrix_vector_product",
    "transpose_bits",
]


class EchelonBasis:
    """An echelon form of a list of F2 column vectors, built in column order.

    Each column is either a *pivot* (independent of the columns before it) or *free* (a
    combination of earlier ones). Every stored row has a distinct leading (highest) bit and
    remembers which pivot columns XOR to it, so :meth:`solve` returns the unique solution that
    uses pivot columns only.

    >>> EchelonBasis([1, 2, 3]).solve(3)  # 3 = col0 ^ col1; col2 is free so it stays 0
    3
    """

    __slots__ = ("_rows", "_shift", "free_columns", "num_columns", "pivots")

    def __init__(self, columns: Iterable[int] = ()) -> None:
        cols = columns if type(columns) is tuple or type(columns) is list else list(columns)
        count = len(cols)
        if count and min(cols) < 0:
            raise ValueError(f"columns must be >= 0 (F2 vectors), got {min(cols)}")
        width = max(cols, default=0).bit_length()
        # A row is one int: the vector shifted above `count` bits, the combination of pivot
        # columns below. Reducing by a row's leading bit then updates both with a single xor,
        # and a vector is fully reduced once what is left is below `limit`. Rows are indexed
        # by the bit length of that int.
        rows: list[int] = [0] * (width + count + 1)
        limit = 1 << count
        pivots: list[int] = []
        free: list[int] = []
        for c, column in enumerate(cols):
            value = (column << count) | (1 << c)
            while value >= limit:
                length = value.bit_length()
                row = rows[length]
                if not row:
                    rows[length] = value
                    pivots.append(c)
                    break
                value ^= row
            else:
                free.append(c)
        self._rows = rows
        self._shift = count
        self.num_columns = count
        self.pivots: tuple[int, ...] = tuple(pivots)
        self.free_columns: tuple[int, ...] = tuple(free)

    @property
    def rank(self) -> int:
        """The number of independent columns.

        >>> EchelonBasis([0b01, 0b10, 0b11, 0]).rank
        2
        """
        return len(self.pivots)

    def reduce(self, vector: int) -> tuple[int, int]:
        """Reduce ``vector`` against the basis: returns ``(residual, combination)``.

        ``vector == residual ^ XOR(columns in combination)``, ``combination`` uses pivot
        columns only, and ``residual == 0`` iff ``vector`` is in the span.

        >>> EchelonBasis([0b01, 0b10]).reduce(0b111)
        (4, 3)
        """
        if vector < 0:
            raise ValueError(f"vector {vector} is negative; F2 vectors are >= 0")
        rows = self._rows
        shift = self._shift
        limit = 1 << shift
        size = len(rows)
        value = vector << shift
        residual = 0
        while value >= limit:
            length = value.bit_length()
            row = rows[length] if length < size else 0
            if row:
                value ^= row
            else:
                # Nothing in the basis has this leading bit: it stays in the residual.
                bit = 1 << (length - 1)
                residual |= bit
                value ^= bit
        return residual >> shift, value

    def solve(self, vector: int) -> int | None:
        """The ``x`` with ``A x = vector`` using pivot columns only, or None if there is none.

        >>> EchelonBasis([0b10, 0b01]).solve(0b10)
        1
        """
        if vector < 0:
            raise ValueError(f"vector {vector} is negative; F2 vectors are >= 0")
        rows = self._rows
        limit = 1 << self._shift
        size = len(rows)
        value = vector << self._shift
        while value >= limit:
            length = value.bit_length()
            if length >= size:
                return None
            row = rows[length]
            if not row:
                return None
            value ^= row
        return value

    def contains(self, vector: int) -> bool:
        """Whether ``vector`` lies in the span of the columns.

        >>> EchelonBasis([0b11]).contains(0b11), EchelonBasis([0b11]).contains(0b01)
        (True, False)
        """
        return self.solve(vector) is not None


def matrix_vector_product(columns: Sequence[int], vector: int) -> int:
    """``A x`` over F2: the XOR of the ``columns`` whose bit is set in ``vector`` (bits past the
    last column select nothing).

    >>> matrix_vector_product([0b001, 0b011, 0b100], 0b110)  # columns 1 and 2
    7
    """
    out = 0
    for column in columns:
        if not vector:
            break
        if vector & 1:
            out ^= column
        vector >>= 1
    return out


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


class BitField(NamedTuple):
    """One term of :func:`bit_fields`: ``((t >> bit) & (2**width - 1))``, then ``<< shift``
    when ``shift`` is not None, else ``* factor``."""

    bit: int
    width: int
    shift: int | None
    factor: int


def bit_fields(columns: Sequence[int]) -> list[BitField]:
    """The F2-linear function ``t -> XOR_b bit_b(t) * columns[b]`` as few integer terms, XORed.

    A run of input bits landing on consecutive output bits is one bit field (shift, mask, shift
    instead of that per bit); a column with several bits set is one bit times the column. Both
    code generators of thread-dependent addresses (``llc.lowering.SimtProgram.linear`` and
    ``llc-lower-to-simt``) emit these terms.

    >>> bit_fields([1, 2, 4, 0, 0b101])  # bits 0-2 -> out 0-2; bit 4 -> the column 0b101
    [BitField(bit=0, width=3, shift=0, factor=1), BitField(bit=4, width=1, shift=None, factor=5)]
    >>> bit_fields([0, 8, 16])  # bits 1-2 -> out bits 3-4
    [BitField(bit=1, width=2, shift=3, factor=1)]
    """
    fields: list[BitField] = []
    bit = 0
    while bit < len(columns):
        column = columns[bit]
        if not column:
            bit += 1
            continue
        width = 1
        power_of_two = column & (column - 1) == 0
        if power_of_two:
            while bit + width < len(columns) and columns[bit + width] == column << width:
                width += 1
            fields.append(BitField(bit, width, column.bit_length() - 1, 1))
        else:
            fields.append(BitField(bit, width, None, column))
        bit += width
    return fields
