"""``LinearLayout``: a linear map over F2 between named, power-of-two sized index spaces.

A layout maps *input dims* (hardware: ``register``, ``lane``, ``warp``, ``block``; or ``offset``
for shared memory) to *output dims* (tensor coordinates ``dim0``, ``dim1``, ...). It is stored as
*bases*: for every input dim ``d`` and bit ``i``, the image of ``d = 2^i`` (all other inputs 0).
Any other input is the XOR of the images of its set bits (seed 003)::

    L(t=0,w=1) = (0,1)   L(t=0,w=2) = (0,2)   L(t=1,w=0) = (1,1)   L(t=2,w=0) = (2,2)
    L(t=1,w=3) = L(1,0) ^ L(0,1) ^ L(0,2) = (1,1) ^ (0,1) ^ (0,2) = (1,2)

>>> L = LinearLayout.from_bases([("t", [[1, 1], [2, 2]]), ("w", [[0, 1], [0, 2]])], ["x", "y"])
>>> L.apply({"t": 1, "w": 3})
{'x': 1, 'y': 2}

The API is a superset of the Python binding of Triton's ``LinearLayout`` with the same names,
arguments and answers (checked against triton 3.9, including which preimage
:meth:`LinearLayout.invert_and_compose` picks), plus the rest of Triton's C++ algebra (reshape,
quotient, division, ...). Where Triton would abort, llc raises :class:`~llc.errors.LayoutError`;
a few things Triton rejects are accepted: ``from_bases`` without sizes and with
``require_surjective=False`` infers the sizes, and ``invert_and_compose`` takes an outer layout
with larger out-dims. ``str()`` is Triton's ``toString`` without its leading newline. Nothing is
capped at 64 bits (Python ints).

Dim order is minor-to-major: the first input dim holds the least significant bits when all inputs
are flattened into one bit vector, and likewise for outputs.

Layouts are immutable values: hashable, ``==`` compares structurally (dims, their order, sizes and
bases). Derived data (packed columns, echelon form, pseudoinverse) is computed once per layout,
and ``invert_and_compose`` results are memoised (:meth:`LinearLayout.clear_caches`).
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from llc.errors import LayoutError
from llc.f2 import EchelonBasis
from llc.views import distributed_view, shared_view

__all__ = ["LinearLayout"]

Basis = tuple[int, ...]
BasesArg = Mapping[str, Sequence[Sequence[int]]] | Iterable[tuple[str, Sequence[Sequence[int]]]]


_INTEGER_TYPES = (int, np.integer)


def _log2_exact(value: int, what: str) -> int:
    if not isinstance(value, _INTEGER_TYPES) or isinstance(value, bool) or value < 1:
        raise LayoutError(f"{what} must be a positive power of two, got {value!r}")
    value = int(value)
    if value & (value - 1):
        raise LayoutError(f"{what} must be a power of two, got {value}")
    return value.bit_length() - 1


def _supremum(first: tuple[str, ...], second: tuple[str, ...], what: str) -> tuple[str, ...]:
    """Shortest tuple holding both name tuples as subsequences (their orders must agree).

    >>> _supremum(("a", "c"), ("b", "c"), "in")
    ('a', 'b', 'c')
    """
    if first == second or not second:
        return first
    if not first:
        return second
    in_first, in_second = set(first), set(second)
    # Usually the lists are disjoint or one already holds the other (a tile adds bases to
    # existing dims).
    if in_first.isdisjoint(in_second):
        return first + second
    if in_second <= in_first:
        positions = list(map(first.index, second))
        if positions == sorted(positions):
            return first
    elif in_first <= in_second:
        positions = list(map(second.index, first))
        if positions == sorted(positions):
            return second
    result: list[str] = []
    i = j = 0
    while i < len(first) or j < len(second):
        if i < len(first) and j < len(second) and first[i] == second[j]:
            result.append(first[i])
            i += 1
            j += 1
        elif i < len(first) and first[i] not in in_second:
            result.append(first[i])
            i += 1
        elif j < len(second) and second[j] not in in_first:
            result.append(second[j])
            j += 1
        else:
            raise LayoutError(
                f"product: the {what} dims {list(first)} and {list(second)} appear in "
                "incompatible orders, so no common order exists"
            )
    return tuple(result)


class LinearLayout:
    """A linear map over F2 from named input dims to named output dims.

    Build one with :meth:`from_bases`, :meth:`identity_1d`, :meth:`zeros_1d`,
    :meth:`strided_1d` or :meth:`empty`, and combine layouts with ``*`` (product),
    :meth:`compose` and :meth:`invert_and_compose`.

    >>> L = LinearLayout.identity_1d(4, "register", "dim0") * LinearLayout.identity_1d(
    ...     8, "lane", "dim0")
    >>> L.apply({"register": 3, "lane": 1})
    {'dim0': 7}
    >>> L.out_dim_sizes
    {'dim0': 32}
    """

    __slots__ = (
        "_bases_v",
        "_columns",
        "_echelon",
        "_hash",
        "_in_logs",
        "_in_names",
        "_out_names",
        "_out_offsets",
        "_out_sizes",
        "_pseudoinverse",
    )

    _in_names: tuple[str, ...]
    _in_logs: tuple[int, ...]
    _bases_v: tuple[tuple[Basis, ...], ...] | None
    _out_names: tuple[str, ...]
    _out_sizes: tuple[int, ...]

    # ------------------------------------------------------------------ construction
    def __init__(
        self,
        bases: BasesArg,
        out_dims: Sequence[str] | Sequence[tuple[str, int]] | Mapping[str, int],
        require_surjective: bool = True,
    ) -> None:
        """Create a layout from bases and either out-dim names (sizes inferred) or (name, size).

        Seed 003's example infers sizes 8 and 4; three bases cannot cover 32 outputs, so it is
        not surjective and needs ``require_surjective=False``:

        >>> L = LinearLayout({"in1": [[1, 0], [5, 1], [2, 2]]}, ["out1", "out2"],
        ...                  require_surjective=False)
        >>> L.out_dim_sizes
        {'out1': 8, 'out2': 4}
        """
        items = list(bases.items()) if isinstance(bases, Mapping) else list(bases)
        if isinstance(out_dims, Mapping):
            out_pairs: list[tuple[str, int]] | None = [(str(k), v) for k, v in out_dims.items()]
        elif all(type(d) is str for d in out_dims) or all(isinstance(d, str) for d in out_dims):
            out_pairs = None
        else:
            out_pairs = [(str(n), s) for n, s in out_dims]  # type: ignore[misc]
        out_names = [p[0] for p in out_pairs] if out_pairs is not None else list(out_dims)  # type: ignore[arg-type]
        num_out = len(out_names)
        if len(set(out_names)) != num_out:
            raise LayoutError(f"duplicate out-dim names in {out_names}")
        in_names: list[str] = []
        all_bases: list[tuple[Basis, ...]] = []
        for item in items:
            if (type(item) is not tuple and not isinstance(item, tuple | list)) or len(item) != 2:
                raise LayoutError(f"bases must be (in_dim, [basis, ...]) pairs, got {item!r}")
            name, vectors = item
            if type(name) is not str:
                name = str(name)
            if name in in_names:
                raise LayoutError(f"in-dim '{name}' is given twice")
            try:
                converted = tuple(map(tuple, vectors))
            except TypeError:
                raise LayoutError(
                    f"the bases of in-dim '{name}' must be lists of integers, got {vectors!r}"
                ) from None
            # All lengths right is the common case: one set() in C instead of a Python loop.
            if converted and set(map(len, converted)) != {num_out}:
                i = next(i for i, b in enumerate(converted) if len(b) != num_out)
                raise LayoutError(
                    f"basis {i} of in-dim '{name}' has {len(converted[i])} entries, expected "
                    f"{num_out} (one per out-dim {out_names})"
                )
            in_names.append(name)
            all_bases.append(converted)
        flat = list(itertools.chain.from_iterable(all_bases))
        if flat and num_out and not set(map(type, itertools.chain.from_iterable(flat))) <= {int}:
            # Not all plain ints: convert numpy integers, reject floats and the like.
            all_bases = [self._to_ints(n, v) for n, v in zip(in_names, all_bases, strict=True)]
            flat = list(itertools.chain.from_iterable(all_bases))
        # Range checks run per out-dim over all bases at once (min/max in C), and only search
        # for the offending basis when one fails.
        if flat and num_out:
            per_out = list(zip(*flat, strict=False))  # lengths were checked above
            lows = list(map(min, per_out))
            highs = list(map(max, per_out))
        else:
            per_out = []
            lows = highs = [0] * num_out
        if min(lows, default=0) < 0:
            self._raise_bad_basis(in_names, all_bases, out_names, lambda j, v: v < 0, None)
        if out_pairs is None:
            sizes = [1 << high.bit_length() for high in highs]
        else:
            sizes = []
            for name, size in out_pairs:
                if type(size) is not int or size < 1 or size & (size - 1):
                    _log2_exact(size, f"size of out-dim '{name}'")
                sizes.append(int(size))
            if any(high >= size for high, size in zip(highs, sizes, strict=True)):
                self._raise_bad_basis(
                    in_names, all_bases, out_names, lambda j, v: v >= sizes[j], sizes
                )
        self._init_raw(tuple(in_names), tuple(all_bases), tuple(out_names), tuple(sizes))
        # Pack the columns now, from the per-out-dim value lists the range check built.
        if per_out:
            offset = 0
            packed: list[int] | tuple[int, ...] = per_out[0]
            for values, size in zip(per_out[1:], sizes, strict=False):
                offset += size.bit_length() - 1
                if offset:
                    packed = [c | (v << offset) for c, v in zip(packed, values, strict=True)]
                else:
                    packed = [c | v for c, v in zip(packed, values, strict=True)]
            self._columns = tuple(packed)
        else:
            self._columns = (0,) * len(flat)
        if require_surjective and not self._is_surjective_fast():
            raise LayoutError(
                f"layout is not surjective: its image has rank {self.rank} but the out-dims "
                f"{self.out_dims} need {self.total_out_size_log2} bits; pass "
                "require_surjective=False to allow this"
            )

    @staticmethod
    def _to_ints(name: str, vectors: tuple[tuple[Any, ...], ...]) -> tuple[Basis, ...]:
        try:
            # operator.index accepts Python and numpy integers but rejects floats.
            return tuple(tuple(map(operator.index, vector)) for vector in vectors)
        except TypeError:
            raise LayoutError(
                f"the bases of in-dim '{name}' must be lists of integers, got "
                f"{[list(v) for v in vectors]!r}"
            ) from None

    @staticmethod
    def _raise_bad_basis(
        in_names: Sequence[str],
        all_bases: Sequence[Sequence[Basis]],
        out_names: Sequence[str],
        bad: Any,
        sizes: Sequence[int] | None,
    ) -> None:
        for in_name, vectors in zip(in_names, all_bases, strict=True):
            for i, basis in enumerate(vectors):
                for j, value in enumerate(basis):
                    if not bad(j, value):
                        continue
                    if sizes is None:
                        raise LayoutError(
                            f"basis {i} of in-dim '{in_name}' is negative ({value}) in out-dim "
                            f"'{out_names[j]}'"
                        )
                    raise LayoutError(
                        f"basis {i} of in-dim '{in_name}' is {value} in out-dim "
                        f"'{out_names[j]}', out of range for its size {sizes[j]}"
                    )

    def _init_raw(
        self,
        in_names: tuple[str, ...],
        bases: tuple[tuple[Basis, ...], ...],
        out_names: tuple[str, ...],
        out_sizes: tuple[int, ...],
    ) -> None:
        self._in_names = in_names
        self._in_logs = tuple(map(len, bases))
        self._bases_v = bases
        self._out_names = out_names
        self._out_sizes = out_sizes
        self._out_offsets: tuple[int, ...] | None = None
        self._columns: tuple[int, ...] | None = None
        self._echelon: EchelonBasis | None = None
        self._hash: int | None = None
        self._pseudoinverse: LinearLayout | None = None

    @classmethod
    def _raw(
        cls,
        in_names: Sequence[str],
        bases: Sequence[Sequence[Basis]],
        out_names: Sequence[str],
        out_sizes: Sequence[int],
    ) -> LinearLayout:
        """Build without validation: for internal results that are valid by construction."""
        layout = cls.__new__(cls)
        layout._init_raw(
            tuple(in_names),
            tuple(tuple(b) for b in bases),
            tuple(out_names),
            tuple(out_sizes),
        )
        return layout

    @classmethod
    def _new(
        cls,
        in_names: tuple[str, ...],
        bases: tuple[tuple[Basis, ...], ...],
        out_names: tuple[str, ...],
        out_sizes: tuple[int, ...],
    ) -> LinearLayout:
        """:meth:`_raw` for arguments that are already tuples of tuples (no copies, no checks).

        The internal results (products, transposes, ...) are valid by construction, so only
        :meth:`from_bases` and ``__init__`` pay for validation.
        """
        layout = cls.__new__(cls)
        layout._in_names = in_names
        layout._in_logs = tuple(map(len, bases))
        layout._bases_v = bases
        layout._out_names = out_names
        layout._out_sizes = out_sizes
        layout._out_offsets = None
        layout._columns = None
        layout._echelon = None
        layout._hash = None
        layout._pseudoinverse = None
        return layout

    @property
    def _bases(self) -> tuple[tuple[Basis, ...], ...]:
        """The bases as tuples; layouts built from packed columns unpack them on first use."""
        bases = self._bases_v
        if bases is None:
            bases = self._bases_v = _unpack_columns(
                self._columns or (), self._in_logs, self._offsets(), self._out_sizes
            )
        return bases

    def _is_surjective_fast(self) -> bool:
        """:meth:`is_surjective`, without an echelon form when the columns are triangular."""
        bits = self.total_out_size_log2
        if self._echelon is None and _leading_bits(bits) <= set(
            map(int.bit_length, self.columns())
        ):
            return True
        return self.rank == bits  # builds (and keeps) the echelon form

    @classmethod
    def from_bases(
        cls,
        bases: BasesArg,
        out_dim_names: Sequence[str],
        out_dim_sizes: Sequence[int] | None = None,
        require_surjective: bool = True,
    ) -> LinearLayout:
        """Create a layout from its bases, as Triton's Python binding does.

        Without ``out_dim_sizes`` each out-dim's size is the smallest power of two above every
        basis value in it.

        >>> L = LinearLayout.from_bases([("in1", [[1], [4]])], ["out1"], [32],
        ...                             require_surjective=False)
        >>> L.out_dims, L.is_surjective()
        ([('out1', 32)], False)
        """
        fast = _from_bases_fast(cls, bases, out_dim_names, out_dim_sizes, require_surjective)
        if fast is not None:
            return fast
        if out_dim_sizes is None:
            return cls(bases, list(out_dim_names), require_surjective)
        if len(out_dim_sizes) != len(out_dim_names):
            raise LayoutError(
                f"from_bases: {len(out_dim_names)} out-dim names but {len(out_dim_sizes)} sizes"
            )
        return cls(bases, list(zip(out_dim_names, out_dim_sizes, strict=True)), require_surjective)

    @classmethod
    def empty(cls) -> LinearLayout:
        """The layout with no dims: the identity of the product.

        >>> (LinearLayout.empty() * LinearLayout.identity_1d(4, "i", "o")) == \\
        ...     LinearLayout.identity_1d(4, "i", "o")
        True
        """
        return cls._raw((), (), (), ())

    @classmethod
    def identity_1d(cls, size: int, in_dim: str, out_dim: str) -> LinearLayout:
        """``L(x) = x`` for ``x`` in ``[0, size)``.

        >>> LinearLayout.identity_1d(8, "i", "o").bases
        [('i', [[1], [2], [4]])]
        """
        if type(size) is int and size > 0 and not size & (size - 1):
            log = size.bit_length() - 1  # the usual, valid call: skip the checks below
        elif size == 0:
            return cls.empty()
        else:
            log = _log2_exact(size, f"identity_1d size for '{in_dim}'")
        return cls._new((in_dim,), (_unit_bases_1d(log),), (out_dim,), (int(size),))

    @classmethod
    def zeros_1d(cls, size: int, in_dim: str, out_dim: str, out_dim_size: int = 1) -> LinearLayout:
        """``L(x) = 0`` for ``x`` in ``[0, size)`` (a broadcast).

        >>> LinearLayout.zeros_1d(4, "i", "o").bases
        [('i', [[0], [0]])]
        """
        if size == 0:
            return cls.empty()
        log = _log2_exact(size, f"zeros_1d size for '{in_dim}'")
        _log2_exact(out_dim_size, f"zeros_1d out_dim_size for '{out_dim}'")
        return cls._new((in_dim,), (((0,),) * log,), (out_dim,), (int(out_dim_size),))

    @classmethod
    def strided_1d(cls, size: int, stride: int, in_dim: str, out_dim: str) -> LinearLayout:
        """``L(x) = stride * x``; the out-dim has size ``stride * size``.

        >>> L = LinearLayout.strided_1d(4, 2, "i", "o")
        >>> L.bases, L.out_dims
        ([('i', [[2], [4]])], [('o', 8)])
        """
        if size == 0:
            return cls.empty()
        log = _log2_exact(size, f"strided_1d size for '{in_dim}'")
        _log2_exact(stride, f"strided_1d stride for '{in_dim}'")
        return cls._raw(
            (in_dim,), (tuple((stride << i,) for i in range(log)),), (out_dim,), (stride * size,)
        )

    # ------------------------------------------------------------------ queries
    @property
    def bases(self) -> list[tuple[str, list[list[int]]]]:
        """``[(in_dim, [[v_out0, v_out1, ...], ...]), ...]`` as Triton's binding returns it.

        >>> LinearLayout.identity_1d(2, "i", "o").bases
        [('i', [[1]])]
        """
        return [
            (name, [list(b) for b in vectors])
            for name, vectors in zip(self._in_names, self._bases, strict=True)
        ]

    @property
    def out_dims(self) -> list[tuple[str, int]]:
        """``[(out_dim, size), ...]``.

        >>> LinearLayout.identity_1d(4, "i", "o").out_dims
        [('o', 4)]
        """
        return list(zip(self._out_names, self._out_sizes, strict=True))

    @property
    def in_dims(self) -> dict[str, int]:
        """In-dim sizes in order.

        >>> LinearLayout.identity_1d(4, "i", "o").in_dims
        {'i': 4}
        """
        return {name: 1 << len(v) for name, v in zip(self._in_names, self._bases, strict=True)}

    @property
    def out_dim_sizes(self) -> dict[str, int]:
        """Out-dim sizes in order.

        >>> LinearLayout.zeros_1d(4, "i", "o", 8).out_dim_sizes
        {'o': 8}
        """
        return dict(zip(self._out_names, self._out_sizes, strict=True))

    def get_in_dim_names(self) -> list[str]:
        """In-dim names in order (minor first).

        >>> L = LinearLayout.identity_1d(2, "a", "o") * LinearLayout.identity_1d(2, "b", "o")
        >>> L.get_in_dim_names()
        ['a', 'b']
        """
        return list(self._in_names)

    def get_out_dim_names(self) -> list[str]:
        """Out-dim names in order (minor first).

        >>> LinearLayout.identity_1d(2, "i", "o").get_out_dim_names()
        ['o']
        """
        return list(self._out_names)

    @property
    def num_in_dims(self) -> int:
        """Number of input dims.

        >>> LinearLayout.empty().num_in_dims
        0
        """
        return len(self._in_names)

    @property
    def num_out_dims(self) -> int:
        """Number of output dims.

        >>> LinearLayout.identity_1d(2, "i", "o").num_out_dims
        1
        """
        return len(self._out_names)

    def has_in_dim(self, name: str) -> bool:
        """Whether ``name`` is an input dim.

        >>> LinearLayout.identity_1d(2, "i", "o").has_in_dim("i")
        True
        """
        return name in self._in_names

    def has_out_dim(self, name: str) -> bool:
        """Whether ``name`` is an output dim.

        >>> LinearLayout.identity_1d(2, "i", "o").has_out_dim("i")
        False
        """
        return name in self._out_names

    def _in_index(self, name: str) -> int:
        try:
            return self._in_names.index(name)
        except ValueError:
            raise LayoutError(
                f"unknown in-dim '{name}'; the in-dims are {list(self._in_names)}"
            ) from None

    def _out_index(self, name: str) -> int:
        try:
            return self._out_names.index(name)
        except ValueError:
            raise LayoutError(
                f"unknown out-dim '{name}'; the out-dims are {list(self._out_names)}"
            ) from None

    def get_in_dim_size(self, name: str) -> int:
        """Size of one input dim.

        >>> LinearLayout.identity_1d(8, "i", "o").get_in_dim_size("i")
        8
        """
        return 1 << len(self._bases[self._in_index(name)])

    def get_in_dim_size_log2(self, name: str) -> int:
        """log2 of the size of one input dim.

        >>> LinearLayout.identity_1d(8, "i", "o").get_in_dim_size_log2("i")
        3
        """
        return len(self._bases[self._in_index(name)])

    def get_out_dim_size(self, name: str) -> int:
        """Size of one output dim.

        >>> LinearLayout.identity_1d(8, "i", "o").get_out_dim_size("o")
        8
        """
        return self._out_sizes[self._out_index(name)]

    def get_out_dim_size_log2(self, name: str) -> int:
        """log2 of the size of one output dim.

        >>> LinearLayout.identity_1d(8, "i", "o").get_out_dim_size_log2("o")
        3
        """
        return self._out_sizes[self._out_index(name)].bit_length() - 1

    @property
    def total_in_size_log2(self) -> int:
        """Number of input bits over all in-dims.

        >>> LinearLayout.identity_1d(8, "i", "o").total_in_size_log2
        3
        """
        return sum(len(v) for v in self._bases)

    @property
    def total_in_size(self) -> int:
        """Number of inputs (product of in-dim sizes)."""
        return 1 << self.total_in_size_log2

    @property
    def total_out_size_log2(self) -> int:
        """Number of output bits over all out-dims."""
        return sum(s.bit_length() - 1 for s in self._out_sizes)

    @property
    def total_out_size(self) -> int:
        """Number of outputs (product of out-dim sizes)."""
        return 1 << self.total_out_size_log2

    def basis(self, in_dim: str, pos: int) -> tuple[int, ...]:
        """The image of ``in_dim = 2^pos``, one value per out-dim.

        >>> LinearLayout.identity_1d(8, "i", "o").basis("i", 2)
        (4,)
        """
        vectors = self._bases[self._in_index(in_dim)]
        if not 0 <= pos < len(vectors):
            raise LayoutError(f"in-dim '{in_dim}' has {len(vectors)} bases; no basis {pos}")
        return vectors[pos]

    def get_basis(self, in_dim: str, pos: int, out_dim: str | None = None) -> Any:
        """Triton's ``getBasis``: the whole basis, or its value in one out-dim.

        >>> LinearLayout.identity_1d(8, "i", "o").get_basis("i", 1, "o")
        2
        """
        vector = self.basis(in_dim, pos)
        return vector if out_dim is None else vector[self._out_index(out_dim)]

    # ------------------------------------------------------------------ packed form and rank
    def _offsets(self) -> tuple[int, ...]:
        if self._out_offsets is None:
            offsets, total = [], 0
            for size in self._out_sizes:
                offsets.append(total)
                total += size.bit_length() - 1
            self._out_offsets = tuple(offsets)
        return self._out_offsets

    def columns(self) -> tuple[int, ...]:
        """The matrix columns, one bit-packed int per input bit (out-dim 0 in the low bits).

        >>> LinearLayout.from_bases([("i", [[1, 0], [0, 1]])], ["a", "b"]).columns()
        (1, 2)
        """
        if self._columns is None:
            self._columns = _pack_columns(self._bases, self._offsets())
        return self._columns

    def _in_starts(self) -> list[int]:
        """Index of each in-dim's first column in :meth:`columns`."""
        starts, total = [], 0
        for vectors in self._bases:
            starts.append(total)
            total += len(vectors)
        return starts

    def _echelon_basis(self) -> EchelonBasis:
        if self._echelon is None:
            self._echelon = EchelonBasis(self.columns())
        return self._echelon

    @property
    def rank(self) -> int:
        """Rank of the F2 matrix.

        >>> LinearLayout.zeros_1d(4, "i", "o").rank
        0
        """
        return self._echelon_basis().rank

    def is_surjective(self) -> bool:
        """Every output is reached.

        >>> LinearLayout.strided_1d(4, 2, "i", "o").is_surjective()
        False
        """
        return self._is_surjective_fast()

    def is_injective(self) -> bool:
        """No two inputs map to the same output (no broadcast).

        >>> LinearLayout.zeros_1d(2, "i", "o").is_injective()
        False
        """
        return self.rank == self.total_in_size_log2

    def is_invertible(self) -> bool:
        """Bijective: surjective and as many inputs as outputs.

        >>> LinearLayout.identity_1d(4, "i", "o").is_invertible()
        True
        """
        return self.is_surjective() and self.total_in_size_log2 == self.total_out_size_log2

    def matrix(self) -> np.ndarray:
        """The F2 matrix as a ``uint8`` array: rows are output bits, columns input bits.

        Rows run over out-dims in order, least significant bit first; columns likewise over in-dims.

        >>> LinearLayout.from_bases([("i", [[1, 1], [0, 1]])], ["a", "b"]).matrix()
        array([[1, 0],
               [1, 1]], dtype=uint8)
        """
        num_rows = self.total_out_size_log2
        cols = self.columns()
        if num_rows <= 63:
            packed = np.array(cols, dtype=np.uint64).reshape(1, len(cols))
            shifts = np.arange(num_rows, dtype=np.uint64).reshape(num_rows, 1)
            return ((packed >> shifts) & np.uint64(1)).astype(np.uint8)
        # Wider than a machine word: go through Python ints.
        out = np.zeros((num_rows, len(cols)), dtype=np.uint8)
        for c, column in enumerate(cols):
            for r in range(num_rows):
                out[r, c] = (column >> r) & 1
        return out

    def get_matrix_view(self) -> list[list[int]]:
        """The matrix of :meth:`matrix` as nested lists (Triton binding name).

        >>> LinearLayout.identity_1d(2, "i", "o").get_matrix_view()
        [[1]]
        """
        return self.matrix().astype(int).tolist()

    # ------------------------------------------------------------------ evaluation
    def apply(self, inputs: Mapping[str, int] | Iterable[tuple[str, int]]) -> dict[str, int]:
        """Evaluate the layout on one input.

        Every in-dim must be given, in any order; each value must be in range.

        >>> L = LinearLayout.from_bases([("i", [[1, 1], [0, 2], [1, 0]])], ["a", "b"])
        >>> L.apply({"i": 3})
        {'a': 1, 'b': 3}
        """
        given = (
            inputs
            if type(inputs) is dict
            else dict(inputs.items() if isinstance(inputs, Mapping) else inputs)
        )
        names = self._in_names
        if len(given) != len(names):
            self._raise_apply_dims(given)
        cols = self._columns
        if cols is None:
            if len(self._out_names) == 2:
                # Not packed yet (a fresh result of a product, a transpose, ...): packing
                # every column would cost more than this one evaluation, so read the bases.
                return self._apply_unpacked(given)
            cols = self.columns()
        packed = 0
        col = 0
        try:
            for name, log in zip(names, self._in_logs, strict=False):
                value = given[name]
                if type(value) is not int:
                    value = self._apply_value(name, value)
                if value >> log or value < 0:
                    raise LayoutError(
                        f"apply: value {value} of in-dim '{name}' is out of range [0, {1 << log})"
                    )
                # Visit only the set bits of the input.
                while value:
                    low = value & -value
                    packed ^= cols[col + low.bit_length() - 1]
                    value ^= low
                col += log
        except KeyError:
            self._raise_apply_dims(given)
        out_names = self._out_names
        if len(out_names) == 1:
            return {out_names[0]: packed}
        if len(out_names) == 2:
            # The last out-dim needs no mask: packed values never exceed the total size.
            first = self._out_sizes[0]
            return {
                out_names[0]: packed & (first - 1),
                out_names[1]: packed >> (first.bit_length() - 1),
            }
        return {
            name: (packed >> offset) & (size - 1)
            for name, offset, size in zip(out_names, self._offsets(), self._out_sizes, strict=True)
        }

    def _apply_unpacked(self, given: Mapping[str, Any]) -> dict[str, int]:
        """:meth:`apply` from the bases of a layout with two out-dims, without packed columns."""
        first = second = 0
        try:
            for name, vectors in zip(self._in_names, self._bases, strict=True):
                value = given[name]
                if type(value) is not int:
                    value = self._apply_value(name, value)
                if value >> len(vectors) or value < 0:
                    raise LayoutError(
                        f"apply: value {value} of in-dim '{name}' is out of range "
                        f"[0, {1 << len(vectors)})"
                    )
                while value:
                    low = value & -value
                    x, y = vectors[low.bit_length() - 1]
                    first ^= x
                    second ^= y
                    value ^= low
        except KeyError:
            self._raise_apply_dims(given)
        return {self._out_names[0]: first, self._out_names[1]: second}

    def _raise_apply_dims(self, given: Mapping[Any, Any]) -> None:
        raise LayoutError(
            f"apply: expected values for in-dims {list(self._in_names)}, got "
            f"{sorted(map(str, given))}"
        )

    @staticmethod
    def _apply_value(name: str, value: Any) -> int:
        try:
            return operator.index(value)
        except TypeError:
            raise LayoutError(
                f"apply: the value of in-dim '{name}' must be an integer, got {value!r}"
            ) from None

    def apply_all_packed(self) -> np.ndarray:
        """Evaluate every input at once as one ``int64`` per input: the out-dims packed into one
        index (out-dim 0 in the low bits, as :meth:`columns`), entry ``k`` for flattened input
        ``k``. For a tensor layout this is each hardware index's flat element (dim0 fastest).

        >>> L = LinearLayout.from_bases([("i", [[1, 1], [0, 2]])], ["a", "b"],
        ...                             require_surjective=False)
        >>> L.apply_all_packed().tolist()  # a + 2 * b of apply_all's [0,1,0,1], [0,1,2,3]
        [0, 3, 4, 7]
        """
        if self.total_out_size_log2 > 62:
            raise LayoutError(
                f"apply_all_packed: {self.total_out_size_log2} output bits do not fit an int64"
            )
        return self._packed_images()

    def _packed_images(self) -> np.ndarray:
        # Doubling: the entries with input bit i set are those without it, xor column i.
        cols = self.columns()
        packed = np.empty(1 << len(cols), dtype=np.int64)
        packed[0] = 0
        for i, column in enumerate(cols):
            half = 1 << i
            np.bitwise_xor(packed[:half], column, out=packed[half : 2 * half])
        return packed

    def apply_all(self) -> dict[str, np.ndarray]:
        """Evaluate every input at once; one ``int64`` array per out-dim.

        Entry ``k`` belongs to the flattened input ``k`` (first in-dim in the low bits).

        >>> L = LinearLayout.from_bases([("i", [[1, 1], [0, 2]])], ["a", "b"],
        ...                             require_surjective=False)
        >>> {k: v.tolist() for k, v in L.apply_all().items()}
        {'a': [0, 1, 0, 1], 'b': [0, 1, 2, 3]}
        """
        cols = self.columns()
        count = 1 << len(cols)
        if self.total_out_size_log2 <= 62:
            # All outputs fit in one int64: split the packed outputs per out-dim.
            packed = self._packed_images()
            # Fresh arrays cost page faults, so allocate only one per out-dim: the most
            # significant out-dim reuses the packed array in place.
            result: dict[str, np.ndarray] = {}
            last = len(self._out_names) - 1
            for j, (name, offset, size) in enumerate(
                zip(self._out_names, self._offsets(), self._out_sizes, strict=True)
            ):
                if j == last:
                    if offset:
                        packed >>= offset
                    result[name] = packed
                else:
                    values = packed >> offset if offset else packed & (size - 1)
                    if offset:
                        values &= size - 1
                    result[name] = values
            return result
        result = {}
        vectors = [b for vs in self._bases for b in vs]
        for j, (name, size) in enumerate(zip(self._out_names, self._out_sizes, strict=True)):
            dtype: Any = np.int64 if size <= (1 << 62) else object
            values = np.zeros(count, dtype=dtype)
            for i, basis in enumerate(vectors):
                half = 1 << i
                values[half : 2 * half] = values[:half] ^ basis[j]
            result[name] = values
        return result

    # ------------------------------------------------------------------ dunder
    def _key(self) -> tuple[Any, ...]:
        return (self._in_names, self._bases, self._out_names, self._out_sizes)

    def _packed_key(self) -> tuple[Any, ...]:
        # The packed columns determine the bases once the dims and sizes are fixed, and they
        # are cheaper to compare and hash than nested tuples (and never need unpacking).
        columns = self._columns if self._columns is not None else self.columns()
        return (self._in_names, self._in_logs, self._out_names, self._out_sizes, columns)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LinearLayout):
            return NotImplemented
        return self is other or self._packed_key() == other._packed_key()

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(self._packed_key())
        return self._hash

    def __copy__(self) -> LinearLayout:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> LinearLayout:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (LinearLayout._raw, self._key())

    def __repr__(self) -> str:
        return (
            f"LinearLayout.from_bases({self.bases!r}, {list(self._out_names)!r}, "
            f"{list(self._out_sizes)!r}, require_surjective=False)"
        )

    def __str__(self) -> str:
        """Triton's ``toString`` without its leading newline.

        >>> print(LinearLayout.identity_1d(4, "register", "dim0"))
         - register=1 -> (1)
           register=2 -> (2)
        where out dims are: [dim0 (size 4)]
        >>> print(LinearLayout.empty())
        (empty layout)
        """
        outs = ", ".join(
            f"{n} (size {s})" for n, s in zip(self._out_names, self._out_sizes, strict=True)
        )
        if not self._in_names:
            if not self._out_names:
                return "(empty layout)"
            return f"(empty layout with out-dims [{outs}])"
        lines: list[str] = []
        for name, vectors in zip(self._in_names, self._bases, strict=True):
            if not vectors:
                lines.append(f" - {name} is a size 1 dimension")
                continue
            for i, basis in enumerate(vectors):
                image = "(" + ", ".join(map(str, basis)) + ")"
                lines.append(f"{' - ' if i == 0 else '   '}{name}={1 << i} -> {image}")
        lines.append(f"where out dims are: [{outs}]")
        return "\n".join(lines)

    def __mul__(self, outer: LinearLayout) -> LinearLayout:
        """The product ("tiling"): ``self`` is the inner, faster-varying layout.

        Dims of both are merged by name. A shared in-dim takes ``self``'s bases first and then
        ``outer``'s; a shared out-dim gets ``outer``'s values shifted above ``self``'s size.
        Seed 003: ``x / 4`` and ``x % 4`` for ``x`` in ``[0, 8)``:

        >>> div4 = LinearLayout.zeros_1d(4, "i", "o") * LinearLayout.identity_1d(2, "i", "o")
        >>> [div4.apply({"i": x})["o"] for x in range(8)]
        [0, 0, 0, 0, 1, 1, 1, 1]
        >>> mod4 = LinearLayout.identity_1d(4, "i", "o") * LinearLayout.zeros_1d(2, "i", "o")
        >>> [mod4.apply({"i": x})["o"] for x in range(8)]
        [0, 1, 2, 3, 0, 1, 2, 3]
        """
        if not isinstance(outer, LinearLayout):
            return NotImplemented
        a_in, b_in = self._in_names, outer._in_names
        a_out, b_out = self._out_names, outer._out_names
        a_sizes, b_sizes = self._out_sizes, outer._out_sizes
        if len(b_in) == 1 and len(b_out) == 1 and a_out:
            # Tiling by a 1-D layout (identity_1d, zeros_1d, ...), the families' usual step.
            return self._mul_1d(b_in[0], b_out[0], b_sizes[0], outer._bases[0])
        if a_out == b_out:
            # The same out-dims (the usual tiling): outer values move above inner's sizes.
            out_names = a_out
            out_sizes = tuple(map(operator.mul, a_sizes, b_sizes))
            inner_convert = _same
            shifts = [size.bit_length() - 1 for size in a_sizes]
            outer_convert = _basis_converter(b_out, out_names, shifts if any(shifts) else None)
        else:
            out_names = (
                b_out if not a_out else a_out if not b_out else _supremum(a_out, b_out, "out")
            )
            inner_size = dict(zip(a_out, a_sizes, strict=True))
            outer_size = dict(zip(b_out, b_sizes, strict=True))
            out_sizes = tuple(inner_size.get(n, 1) * outer_size.get(n, 1) for n in out_names)
            inner_convert = _basis_converter(a_out, out_names, None)
            shifts = [inner_size.get(n, 1).bit_length() - 1 for n in out_names]
            outer_convert = _basis_converter(b_out, out_names, shifts if any(shifts) else None)
        a_bases, b_bases = self._bases, outer._bases
        if a_in == b_in:
            new = tuple(map(operator.add, map(inner_convert, a_bases), map(outer_convert, b_bases)))
            return LinearLayout._new(a_in, new, out_names, out_sizes)
        in_names = b_in if not a_in else a_in if not b_in else _supremum(a_in, b_in, "in")
        if len(in_names) == len(a_in) + len(b_in):
            # Disjoint in-dims: the supremum lists inner's, then outer's.
            new = tuple(map(inner_convert, a_bases)) + tuple(map(outer_convert, b_bases))
            return LinearLayout._new(in_names, new, out_names, out_sizes)
        inner_index = {n: k for k, n in enumerate(a_in)}
        outer_index = {n: k for k, n in enumerate(b_in)}
        new_bases: list[tuple[Basis, ...]] = []
        for name in in_names:
            k = inner_index.get(name)
            inner_part = inner_convert(a_bases[k]) if k is not None else ()
            k = outer_index.get(name)
            if k is not None and b_bases[k]:
                new_bases.append(inner_part + outer_convert(b_bases[k]))
            else:
                new_bases.append(inner_part)
        return LinearLayout._new(in_names, tuple(new_bases), out_names, out_sizes)

    def _mul_1d(
        self, in_name: str, out_name: str, out_size: int, vectors: tuple[Basis, ...]
    ) -> LinearLayout:
        """``self * L`` for a ``L`` with one in-dim and one out-dim (bases ``vectors``)."""
        out_names = self._out_names
        bases = self._bases
        width = len(out_names)
        if out_name in out_names:
            j = out_names.index(out_name)
            sizes = list(self._out_sizes)
            shift = sizes[j].bit_length() - 1
            sizes[j] *= out_size
            out_sizes = tuple(sizes)
            head, tail = (0,) * j, (0,) * (width - j - 1)
            added = tuple((*head, v[0] << shift, *tail) for v in vectors)
        else:
            out_names = (*out_names, out_name)
            out_sizes = (*self._out_sizes, out_size)
            bases = tuple(tuple((*b, 0) for b in vs) for vs in bases)
            head = (0,) * width
            added = tuple(head + v for v in vectors)
        in_names = self._in_names
        if in_name in in_names:
            k = in_names.index(in_name)
            if added:
                bases = (*bases[:k], bases[k] + added, *bases[k + 1 :])
        else:
            in_names = (*in_names, in_name)
            bases = (*bases, added)
        return LinearLayout._new(in_names, bases, out_names, out_sizes)

    # ------------------------------------------------------------------ reordering and reshaping
    def transpose_ins(self, names: Sequence[str]) -> LinearLayout:
        """Reorder the in-dims (``names`` must be a permutation of them).

        >>> L = LinearLayout.identity_1d(2, "a", "o") * LinearLayout.identity_1d(2, "b", "o")
        >>> L.transpose_ins(["b", "a"]).get_in_dim_names()
        ['b', 'a']
        """
        names = list(names)
        if sorted(names) != sorted(self._in_names):
            raise LayoutError(
                f"transpose_ins: {names} is not a permutation of the in-dims {list(self._in_names)}"
            )
        return LinearLayout._raw(
            names,
            [self._bases[self._in_names.index(n)] for n in names],
            self._out_names,
            self._out_sizes,
        )

    def transpose_outs(self, names: Sequence[str]) -> LinearLayout:
        """Reorder the out-dims (``names`` must be a permutation of them).

        >>> L = LinearLayout.from_bases([("i", [[1, 0], [0, 1]])], ["a", "b"])
        >>> L.transpose_outs(["b", "a"]).bases
        [('i', [[0, 1], [1, 0]])]
        """
        names = list(names)
        if sorted(names) != sorted(self._out_names):
            raise LayoutError(
                f"transpose_outs: {names} is not a permutation of the out-dims "
                f"{list(self._out_names)}"
            )
        if tuple(names) == self._out_names:
            return self
        perm = [self._out_names.index(n) for n in names]
        if len(perm) == 1:
            return self
        pick = operator.itemgetter(*perm)
        return LinearLayout._new(
            self._in_names,
            tuple(tuple(map(pick, vectors)) for vectors in self._bases),
            tuple(names),
            pick(self._out_sizes),
        )

    @staticmethod
    def _dims_arg(dims: Sequence[tuple[str, int]] | Mapping[str, int]) -> list[tuple[str, int]]:
        return list(dims.items()) if isinstance(dims, Mapping) else [(n, s) for n, s in dims]

    @staticmethod
    def _check_unique_dims(operation: str, kind: str, dims: list[tuple[str, int]]) -> None:
        """A repeated name would make a layout whose coordinates no input can spell."""
        seen: set[str] = set()
        for name, _ in dims:
            if name in seen:
                raise LayoutError(
                    f"{operation}: {kind} '{name}' is given twice; names must be unique"
                )
            seen.add(name)

    def reshape_ins(
        self, new_in_dims: Sequence[tuple[str, int]] | Mapping[str, int]
    ) -> LinearLayout:
        """Flatten all input bits (in dim order) and re-split them into ``new_in_dims``.

        >>> L = LinearLayout.identity_1d(4, "a", "o") * LinearLayout.identity_1d(2, "b", "o")
        >>> L.reshape_ins([("x", 2), ("y", 4)]).bases
        [('x', [[1]]), ('y', [[2], [4]])]
        >>> LinearLayout.identity_1d(8, "i", "o").reshape_ins([("a", 2), ("a", 4)])
        Traceback (most recent call last):
        ...
        llc.errors.LayoutError: reshape_ins: in-dim 'a' is given twice; names must be unique
        """
        dims = self._dims_arg(new_in_dims)
        self._check_unique_dims("reshape_ins", "in-dim", dims)
        logs = [_log2_exact(s, f"reshape_ins size of '{n}'") for n, s in dims]
        if sum(logs) != self.total_in_size_log2:
            raise LayoutError(
                f"reshape_ins: new in-dims {dims} have {1 << sum(logs)} elements, the layout has "
                f"{self.total_in_size}"
            )
        # The flattened input bits, and so the packed columns, stay exactly as they are.
        return LinearLayout._from_columns(
            [n for n, _ in dims], logs, self.columns(), self._out_names, self._out_sizes
        )

    def reshape_outs(
        self, new_out_dims: Sequence[tuple[str, int]] | Mapping[str, int]
    ) -> LinearLayout:
        """Flatten the output coordinates (first out-dim minor) and re-split into ``new_out_dims``.

        >>> L = LinearLayout.identity_1d(8, "i", "o")
        >>> L.reshape_outs([("a", 2), ("b", 4)]).bases
        [('i', [[1, 0], [0, 1], [0, 2]])]
        >>> L.reshape_outs([("a", 2), ("a", 4)])
        Traceback (most recent call last):
        ...
        llc.errors.LayoutError: reshape_outs: out-dim 'a' is given twice; names must be unique
        """
        dims = self._dims_arg(new_out_dims)
        self._check_unique_dims("reshape_outs", "out-dim", dims)
        logs = [_log2_exact(s, f"reshape_outs size of '{n}'") for n, s in dims]
        if sum(logs) != self.total_out_size_log2:
            raise LayoutError(
                f"reshape_outs: new out-dims {dims} have {1 << sum(logs)} elements, the layout "
                f"has {self.total_out_size}"
            )
        # Outputs flatten with the first out-dim minor, exactly as columns are packed: the
        # packed columns are the same, only re-split.
        return LinearLayout._from_columns(
            self._in_names,
            self._in_logs,
            self.columns(),
            [n for n, _ in dims],
            [int(s) for _, s in dims],
        )

    def flatten_ins(self) -> LinearLayout:
        """Merge all in-dims into one, named after the first.

        >>> L = LinearLayout.identity_1d(2, "a", "o") * LinearLayout.identity_1d(2, "b", "o")
        >>> L.flatten_ins().in_dims
        {'a': 4}
        """
        if not self._in_names:
            return self
        return self.reshape_ins([(self._in_names[0], self.total_in_size)])

    def flatten_outs(self) -> LinearLayout:
        """Merge all out-dims into one, named after the first.

        >>> L = LinearLayout.from_bases([("i", [[1, 0], [0, 1]])], ["a", "b"])
        >>> L.flatten_outs().bases
        [('i', [[1], [2]])]
        """
        if not self._out_names:
            return self
        return self.reshape_outs([(self._out_names[0], self.total_out_size)])

    # ------------------------------------------------------------------ sub-layouts and dims
    def sublayout(
        self, in_dims: Iterable[str] | str, out_dims: Iterable[str] | str
    ) -> LinearLayout:
        """Restrict to some in-dims and out-dims (kept in this layout's order, sizes unchanged).

        >>> L = LinearLayout.from_bases([("i", [[1, 1]]), ("j", [[0, 1]])], ["a", "b"])
        >>> L.sublayout(["i"], ["b"]).bases
        [('i', [[1]])]
        """
        ins = {in_dims} if isinstance(in_dims, str) else set(in_dims)
        outs = {out_dims} if isinstance(out_dims, str) else set(out_dims)
        for name in ins:
            self._in_index(name)
        for name in outs:
            self._out_index(name)
        keep_out = [j for j, n in enumerate(self._out_names) if n in outs]
        names, bases = [], []
        for name, vectors in zip(self._in_names, self._bases, strict=True):
            if name in ins:
                names.append(name)
                bases.append(tuple(tuple(b[j] for j in keep_out) for b in vectors))
        return LinearLayout._raw(
            names,
            bases,
            [self._out_names[j] for j in keep_out],
            [self._out_sizes[j] for j in keep_out],
        )

    def sublayout_is_zero(
        self, in_dims: Iterable[str] | str, out_dims: Iterable[str] | str
    ) -> bool:
        """Whether the given in-dims contribute nothing to the given out-dims.

        >>> L = LinearLayout.from_bases([("i", [[1, 0]]), ("j", [[0, 1]])], ["a", "b"])
        >>> L.sublayout_is_zero("i", "b"), L.sublayout_is_zero("j", "b")
        (True, False)
        """
        return all(
            v == 0
            for vectors in self.sublayout(in_dims, out_dims)._bases
            for b in vectors
            for v in b
        )

    def concat_ins(self, other: LinearLayout) -> LinearLayout:
        """Put the in-dims of two layouts with the same out-dims side by side.

        >>> a = LinearLayout.from_bases([("i", [[1]])], ["o"], [4], require_surjective=False)
        >>> b = LinearLayout.from_bases([("j", [[2]])], ["o"], [4], require_surjective=False)
        >>> a.concat_ins(b).bases
        [('i', [[1]]), ('j', [[2]])]
        """
        if self.out_dims != other.out_dims:
            raise LayoutError(f"concat_ins: out-dims differ: {self.out_dims} vs {other.out_dims}")
        if common := set(self._in_names) & set(other._in_names):
            raise LayoutError(f"concat_ins: in-dims {sorted(common)} are in both layouts")
        return LinearLayout._raw(
            self._in_names + other._in_names,
            self._bases + other._bases,
            self._out_names,
            self._out_sizes,
        )

    def concat_outs(self, other: LinearLayout) -> LinearLayout:
        """Put the out-dims of two layouts with the same in-dims side by side.

        >>> a = LinearLayout.identity_1d(2, "i", "x")
        >>> a.concat_outs(LinearLayout.identity_1d(2, "i", "y")).bases
        [('i', [[1, 1]])]
        """
        if self.in_dims != other.in_dims or self._in_names != other._in_names:
            raise LayoutError(f"concat_outs: in-dims differ: {self.in_dims} vs {other.in_dims}")
        if common := set(self._out_names) & set(other._out_names):
            raise LayoutError(f"concat_outs: out-dims {sorted(common)} are in both layouts")
        return LinearLayout._raw(
            self._in_names,
            [
                tuple(a + b for a, b in zip(va, vb, strict=True))
                for va, vb in zip(self._bases, other._bases, strict=True)
            ],
            self._out_names + other._out_names,
            self._out_sizes + other._out_sizes,
        )

    def resize_in_dim(self, in_dim: str, new_size: int) -> LinearLayout:
        """Resize ``in_dim`` as Triton 3.9's ``resizeInDim``.

        Shrinking drops the most significant bases; growing appends zero bases, so the new
        inputs are broadcast copies.

        >>> LinearLayout.identity_1d(8, "i", "o").resize_in_dim("i", 2).bases
        [('i', [[1]])]
        >>> LinearLayout.identity_1d(2, "i", "o").resize_in_dim("i", 4).bases
        [('i', [[1], [0]])]
        """
        index = self._in_index(in_dim)
        log = _log2_exact(new_size, f"resize_in_dim size of '{in_dim}'")
        bases = list(self._bases)
        zero = (0,) * len(self._out_names)
        bases[index] = bases[index][:log] + (zero,) * (log - len(bases[index]))
        return LinearLayout._raw(self._in_names, bases, self._out_names, self._out_sizes)

    def resize_out_dim(self, out_dim: str, new_size: int) -> LinearLayout:
        """Shrink ``out_dim``; basis values that no longer fit become 0 (as Triton).

        >>> LinearLayout.identity_1d(8, "i", "o").resize_out_dim("o", 4).bases
        [('i', [[1], [2], [0]])]
        """
        j = self._out_index(out_dim)
        _log2_exact(new_size, f"resize_out_dim size of '{out_dim}'")
        if new_size > self._out_sizes[j]:
            raise LayoutError(
                f"resize_out_dim: new size {new_size} of '{out_dim}' exceeds its size "
                f"{self._out_sizes[j]}"
            )
        bases = [
            tuple(tuple(0 if k == j and v >= new_size else v for k, v in enumerate(b)) for b in vs)
            for vs in self._bases
        ]
        sizes = list(self._out_sizes)
        sizes[j] = new_size
        return LinearLayout._raw(self._in_names, bases, self._out_names, sizes)

    def rename_in_dim(self, old: str, new: str) -> LinearLayout:
        """Rename one in-dim.

        >>> LinearLayout.identity_1d(2, "i", "o").rename_in_dim("i", "lane").get_in_dim_names()
        ['lane']
        """
        index = self._in_index(old)
        if new != old and new in self._in_names:
            raise LayoutError(f"rename_in_dim: in-dim '{new}' already exists")
        names = list(self._in_names)
        names[index] = new
        return LinearLayout._raw(names, self._bases, self._out_names, self._out_sizes)

    def rename_out_dim(self, old: str, new: str) -> LinearLayout:
        """Rename one out-dim.

        >>> LinearLayout.identity_1d(2, "i", "o").rename_out_dim("o", "dim0").get_out_dim_names()
        ['dim0']
        """
        index = self._out_index(old)
        if new != old and new in self._out_names:
            raise LayoutError(f"rename_out_dim: out-dim '{new}' already exists")
        names = list(self._out_names)
        names[index] = new
        return LinearLayout._raw(self._in_names, self._bases, names, self._out_sizes)

    def remove_zero_bases_along_dim(self, in_dim: str) -> LinearLayout:
        """Drop the all-zero bases of one in-dim (undo a broadcast along it).

        >>> L = LinearLayout.from_bases([("r", [[1], [0], [2]])], ["o"])
        >>> L.remove_zero_bases_along_dim("r").bases
        [('r', [[1], [2]])]
        """
        index = self._in_index(in_dim)
        bases = list(self._bases)
        bases[index] = tuple(b for b in bases[index] if any(b))
        return LinearLayout._raw(self._in_names, bases, self._out_names, self._out_sizes)

    # ------------------------------------------------------------------ structure queries
    def get_free_variable_masks(self) -> dict[str, int]:
        """Per in-dim, the bit mask of inputs that do not change the output given lower ones.

        An input bit is free when its column is a combination of earlier columns (in-dims in
        order, low bits first): flipping it selects a duplicate of data held elsewhere.

        >>> L = LinearLayout.from_bases(
        ...     [("register", [[1], [2]]), ("lane", [[1], [0], [4]])], ["o"])
        >>> L.get_free_variable_masks()
        {'register': 0, 'lane': 3}
        """
        free = set(self._echelon_basis().free_columns)
        masks: dict[str, int] = {}
        col = 0
        for name, vectors in zip(self._in_names, self._bases, strict=True):
            mask = 0
            for i in range(len(vectors)):
                if col + i in free:
                    mask |= 1 << i
            masks[name] = mask
            col += len(vectors)
        return masks

    def get_num_consecutive_in_out(self) -> int:
        """Largest ``V`` such that ``V`` consecutive values of the first in-dim, starting at any
        multiple of ``V``, land on ``V`` consecutive values of the first out-dim (for vectorizing).

        >>> L = LinearLayout.from_bases([("register", [[1], [2], [8]]), ("lane", [[4]])], ["o"])
        >>> L.get_num_consecutive_in_out()
        4
        """
        if not self._in_names or not self._out_names:
            return 1
        first = self._bases[0]
        consecutive = 0
        while consecutive < len(first):
            b = first[consecutive]
            if b[0] != (1 << consecutive) or any(b[1:]):
                break
            consecutive += 1
        other_bits = 0
        for index, vectors in enumerate(self._bases):
            start = consecutive if index == 0 else 0
            for b in vectors[start:]:
                other_bits |= b[0]
        if other_bits:
            consecutive = min(consecutive, (other_bits & -other_bits).bit_length() - 1)
        return 1 << consecutive

    def _diagonal_identity_index(self, dim: str) -> int | None:
        """The out-dim index of ``dim`` if in-dim ``dim`` maps onto out-dim ``dim`` as the
        identity (same size, basis ``i`` has value ``2^i`` there), else None."""
        if dim not in self._in_names or dim not in self._out_names:
            return None
        j = self._out_names.index(dim)
        vectors = self._bases[self._in_names.index(dim)]
        if (1 << len(vectors)) != self._out_sizes[j]:
            return None
        if any(b[j] != (1 << i) for i, b in enumerate(vectors)):
            return None
        return j

    def _square_identity_on(self, dim: str) -> bool:
        j = self._diagonal_identity_index(dim)
        if j is None:
            return False
        vectors = self._bases[self._in_names.index(dim)]
        return all(v == 0 for b in vectors for k, v in enumerate(b) if k != j)

    def is_identity_on_out_dim(self, dim: str) -> bool:
        """Whether out-dim ``dim`` equals in-dim ``dim`` (Triton's ``isIdentityOnOutDim``).

        Other in-dims must not reach out-dim ``dim``, but in-dim ``dim`` may reach other out-dims.

        >>> L = LinearLayout.from_bases([("offset", [[1, 0]]), ("block", [[1, 1]])],
        ...                             ["offset", "block"])
        >>> L.is_identity_on_out_dim("block"), L.is_identity_on_out_dim("offset")
        (True, False)
        """
        j = self._diagonal_identity_index(dim)
        if j is None:
            return False
        return all(
            b[j] == 0
            for name, others in zip(self._in_names, self._bases, strict=True)
            if name != dim
            for b in others
        )

    def is_trivial_over(self, dims: Iterable[str] | str) -> bool:
        """Whether the layout is the identity on ``dims`` and keeps them apart from other dims.

        ``dims`` names dims that are both in-dims and out-dims (e.g. in a conversion map).

        >>> L = LinearLayout.identity_1d(4, "register", "register") * LinearLayout.identity_1d(
        ...     2, "lane", "lane")
        >>> L.is_trivial_over(["lane"])
        True
        """
        names = [dims] if isinstance(dims, str) else list(dims)
        if not all(self._square_identity_on(d) for d in names):
            return False
        other_ins = [n for n in self._in_names if n not in names]
        other_outs = [n for n in self._out_names if n not in names]
        return self.sublayout_is_zero(other_ins, names) and self.sublayout_is_zero(
            names, other_outs
        )

    def quotient(self, dims: Iterable[str] | str) -> LinearLayout | None:
        """Drop ``dims`` when the layout is trivial over them, else None.

        >>> L = LinearLayout.identity_1d(4, "register", "register") * LinearLayout.identity_1d(
        ...     2, "lane", "lane")
        >>> L.quotient(["lane"]).get_in_dim_names()
        ['register']
        """
        names = [dims] if isinstance(dims, str) else list(dims)
        if not self.is_trivial_over(names):
            return None
        return self.sublayout(
            [n for n in self._in_names if n not in names],
            [n for n in self._out_names if n not in names],
        )

    def equal_ignoring_out_dim_sizes(self, other: LinearLayout) -> bool:
        """``==`` except that out-dim sizes may differ.

        >>> a = LinearLayout.from_bases([("i", [[1]])], ["o"], [2])
        >>> b = LinearLayout.from_bases([("i", [[1]])], ["o"], [4], require_surjective=False)
        >>> a == b, a.equal_ignoring_out_dim_sizes(b)
        (False, True)
        """
        return (
            self._in_names == other._in_names
            and self._bases == other._bases
            and self._out_names == other._out_names
        )

    # ------------------------------------------------------------------ composition and inverses
    def compose(self, outer: LinearLayout) -> LinearLayout:
        """``outer ∘ self``: apply ``self``, then ``outer``.

        ``self``'s out-dims must be ``outer``'s in-dims (any order), each no larger.

        >>> reg_to_off = LinearLayout.identity_1d(4, "register", "offset")
        >>> off_to_t = LinearLayout.from_bases([("offset", [[2], [1]])], ["dim0"])
        >>> reg_to_off.compose(off_to_t).bases
        [('register', [[2], [1]])]
        """
        if set(self._out_names) != set(outer._in_names) or len(self._out_names) != len(
            outer._in_names
        ):
            raise LayoutError(
                f"compose: the out-dims {list(self._out_names)} must be the in-dims of the outer "
                f"layout {list(outer._in_names)}"
            )
        outer_cols = outer.columns()
        outer_names = outer._in_names
        outer_logs = outer._in_logs
        # images[p]: outer's image of this layout's output bit p (out-dims packed in order).
        if self._out_names == outer_names and all(
            (size.bit_length() - 1) == log
            for size, log in zip(self._out_sizes, outer_logs, strict=True)
        ):
            # The usual case: the same dims in the same order and sizes, so output bit p of
            # this layout is input bit p of the outer one.
            images: Sequence[int] = outer_cols
        else:
            starts = dict(zip(outer_names, self._starts_of(outer_logs), strict=True))
            images = []
            for name, size in zip(self._out_names, self._out_sizes, strict=True):
                log = size.bit_length() - 1
                outer_log = outer_logs[outer_names.index(name)]
                if log > outer_log:
                    raise LayoutError(
                        f"compose: out-dim '{name}' has size {size} but the outer layout's "
                        f"in-dim '{name}' has only size {1 << outer_log}"
                    )
                start = starts[name]
                images.extend(outer_cols[start : start + log])
        new_columns = _f2_map(self.columns(), images)
        return LinearLayout._from_columns(
            self._in_names, self._in_logs, new_columns, outer._out_names, outer._out_sizes
        )

    @staticmethod
    def _starts_of(logs: Sequence[int]) -> list[int]:
        starts, total = [], 0
        for log in logs:
            starts.append(total)
            total += log
        return starts

    @classmethod
    def _from_columns(
        cls,
        in_names: Sequence[str],
        in_logs: Sequence[int],
        columns: Sequence[int],
        out_names: Sequence[str],
        out_sizes: Sequence[int],
    ) -> LinearLayout:
        """Build from packed columns (valid by construction); the bases are unpacked lazily."""
        layout = cls.__new__(cls)
        layout._in_names = tuple(in_names)
        layout._in_logs = tuple(in_logs)
        layout._bases_v = None
        layout._out_names = tuple(out_names)
        layout._out_sizes = tuple(out_sizes)
        layout._out_offsets = None
        layout._columns = tuple(columns)
        layout._echelon = None
        layout._hash = None
        layout._pseudoinverse = None
        return layout

    def invert_and_compose(self, outer: LinearLayout) -> LinearLayout:
        """``C`` with ``self(x) == outer(C(x))`` for every ``x``: ``outer⁻¹ ∘ self``.

        This maps ``self``'s hardware index to ``outer``'s, e.g. a register layout to the shared
        memory offset that holds the same element. ``outer`` must cover the image of ``self``
        (the out-dims are the same, in any order, and ``outer``'s are at least as large).

        Which preimage is chosen follows Triton 3.9 exactly:

        * an in-dim of both layouts with the same sublayout is mapped by the identity when, in
          both layouts, the output bits it reaches are reached by no other in-dim (so broadcast
          registers, lanes or warps stay in place instead of collapsing onto index 0);
        * everything else is the solution of ``outer · C = self`` over F2 with the free
          variables set to 0: where ``outer`` is not injective, the lowest index holding the
          element is chosen.

        Results are memoised (layouts are immutable); :meth:`clear_caches` empties the cache.

        >>> regs = LinearLayout.from_bases([("register", [[1], [2]])], ["dim0"])
        >>> smem = LinearLayout.from_bases([("offset", [[2], [1]])], ["dim0"])
        >>> regs.invert_and_compose(smem).bases
        [('register', [[2], [1]])]
        """
        if not isinstance(outer, LinearLayout):
            raise LayoutError(f"invert_and_compose: expected a LinearLayout, got {outer!r}")
        return _invert_and_compose_cached(self, outer)

    def _invert_and_compose(self, outer: LinearLayout) -> LinearLayout:
        if set(self._out_names) != set(outer._out_names) or len(self._out_names) != len(
            outer._out_names
        ):
            raise LayoutError(
                f"invert_and_compose: out-dims differ: {list(self._out_names)} vs "
                f"{list(outer._out_names)}"
            )
        # Work in outer's packing of the output bits: bit_map[p] is the position in outer's
        # packing of this layout's output bit p.
        outer_offsets = dict(zip(outer._out_names, outer._offsets(), strict=True))
        outer_sizes = dict(zip(outer._out_names, outer._out_sizes, strict=True))
        bit_map: list[int] = []
        same_packing = True
        position = 0
        for name, size in zip(self._out_names, self._out_sizes, strict=True):
            if outer_sizes[name] < size:
                raise LayoutError(
                    f"invert_and_compose: out-dim '{name}' has size {size} but the outer "
                    f"layout's is only {outer_sizes[name]}"
                )
            offset = outer_offsets[name]
            same_packing = same_packing and offset == position
            log = size.bit_length() - 1
            bit_map.extend(range(offset, offset + log))
            position += log
        columns = self.columns()
        if not same_packing:
            columns = tuple(_f2_map(columns, [1 << position for position in bit_map]))
        outer_cols = outer.columns()
        self_starts = self._in_starts()
        outer_starts = outer._in_starts()
        self_logs = [len(v) for v in self._bases]
        outer_logs = [len(v) for v in outer._bases]

        def supports(cols: Sequence[int], starts: list[int], logs: list[int]) -> list[int]:
            result = []
            for start, log in zip(starts, logs, strict=True):
                acc = 0
                for column in cols[start : start + log]:
                    acc |= column
                result.append(acc)
            return result

        # The identity heuristic: the same sublayout in both, and block-diagonal in both.
        identity: set[str] = set()
        candidates = []
        for i, name in enumerate(self._in_names):
            if name not in outer._in_names:
                continue
            k = outer._in_names.index(name)
            si, sk = self_starts[i], outer_starts[k]
            if self_logs[i] == outer_logs[k] and (
                columns[si : si + self_logs[i]] == outer_cols[sk : sk + outer_logs[k]]
            ):
                candidates.append((name, i, k))
        if candidates:
            self_sup = supports(columns, self_starts, self_logs)
            outer_sup = supports(outer_cols, outer_starts, outer_logs)
            for name, i, k in candidates:
                others_self = others_outer = 0
                for j, sup in enumerate(self_sup):
                    if j != i:
                        others_self |= sup
                for j, sup in enumerate(outer_sup):
                    if j != k:
                        others_outer |= sup
                if not (self_sup[i] & others_self) and not (outer_sup[k] & others_outer):
                    identity.add(name)
        # Solve outer_rest · X = self's columns; the echelon form of all of outer is cached.
        if identity:
            rest = [k for k, n in enumerate(outer._in_names) if n not in identity]
            echelon = EchelonBasis(
                c
                for k in rest
                for c in outer_cols[outer_starts[k] : outer_starts[k] + outer_logs[k]]
            )
        else:
            rest = list(range(len(outer._in_names)))
            echelon = outer._echelon_basis()
        # Solutions index outer_rest's columns; move each rest in-dim's bits to its position in
        # outer's flattened input (identity in-dims keep their own position).
        moves: list[tuple[int, int, int]] = []  # (start in the solution, width, target start)
        position = 0
        for k in rest:
            moves.append((position, outer_logs[k], outer_starts[k]))
            position += outer_logs[k]
        contiguous = not identity
        outer_in_index = {n: k for k, n in enumerate(outer._in_names)}
        new_columns: list[int] = []
        for i, name in enumerate(self._in_names):
            start = self_starts[i]
            if name in identity:
                target = outer_starts[outer_in_index[name]]
                new_columns.extend(1 << (target + bit) for bit in range(self_logs[i]))
                continue
            for column in columns[start : start + self_logs[i]]:
                solution = echelon.solve(column)
                if solution is None:
                    raise LayoutError(
                        "invert_and_compose: the outer layout does not cover the image of this "
                        f"layout: basis {len(new_columns) - start} of in-dim '{name}' "
                        f"({list(self._bases[i][len(new_columns) - start])} in out-dims "
                        f"{list(self._out_names)}) is not reached by the outer layout"
                    )
                if contiguous:
                    new_columns.append(solution)
                    continue
                moved = 0
                for offset, width, target in moves:
                    moved |= ((solution >> offset) & ((1 << width) - 1)) << target
                new_columns.append(moved)
        return LinearLayout._from_columns(
            self._in_names,
            self_logs,
            new_columns,
            outer._in_names,
            [1 << log for log in outer_logs],
        )

    def pseudoinvert(self) -> LinearLayout:
        """A right inverse ``P`` (``self(P(y)) == y``) of a surjective layout.

        As Triton: ``identity(out-dims).invert_and_compose(self)``, so among all right inverses
        it picks the one with the smallest inputs. Computed once per layout.

        >>> L = LinearLayout.from_bases([("i", [[1], [1], [2]])], ["o"])
        >>> P = L.pseudoinvert()
        >>> [L.apply(P.apply({"o": y}))["o"] for y in range(4)]
        [0, 1, 2, 3]
        """
        if self._pseudoinverse is not None:
            return self._pseudoinverse
        if not self.is_surjective():
            raise LayoutError(
                f"pseudoinvert: the layout is not surjective (rank {self.rank}, "
                f"{self.total_out_size_log2} output bits)"
            )
        identity = LinearLayout._raw(
            self._out_names,
            [
                tuple(
                    tuple((1 << i) if k == j else 0 for k in range(len(self._out_names)))
                    for i in range(size.bit_length() - 1)
                )
                for j, size in enumerate(self._out_sizes)
            ],
            self._out_names,
            self._out_sizes,
        )
        self._pseudoinverse = identity._invert_and_compose(self)
        return self._pseudoinverse

    def invert(self) -> LinearLayout:
        """The inverse of an invertible layout.

        >>> L = LinearLayout.from_bases([("i", [[1], [3]])], ["o"])  # x -> x ^ (x>>1 & 1) * 2
        >>> L.invert().bases
        [('o', [[1], [3]])]
        """
        if not self.is_invertible():
            raise LayoutError(
                f"invert: the layout is not invertible: {self.total_in_size_log2} input bits, "
                f"{self.total_out_size_log2} output bits, rank {self.rank}"
            )
        return self.pseudoinvert()

    @staticmethod
    def clear_caches() -> None:
        """Empty the memo of :meth:`invert_and_compose` (per-layout caches stay).

        >>> LinearLayout.clear_caches()
        """
        _invert_and_compose_cached.cache_clear()

    # ------------------------------------------------------------------ division
    def divide_left(self, divisor: LinearLayout) -> LinearLayout | None:
        """``C`` with ``self == divisor * C``, or None. ``C`` has the same dims as ``self``.

        >>> a = LinearLayout.identity_1d(4, "i", "o")
        >>> b = LinearLayout.identity_1d(8, "i", "o")
        >>> (a * b).divide_left(a) == b
        True
        """
        return _divide(self, divisor, left=True)

    def divide_right(self, divisor: LinearLayout) -> LinearLayout | None:
        """``C`` with ``self == C * divisor``, or None. ``C`` has the same dims as ``self``.

        >>> a = LinearLayout.identity_1d(4, "i", "o")
        >>> b = LinearLayout.zeros_1d(2, "i", "o")
        >>> (a * b).divide_right(b) == a
        True
        """
        return _divide(self, divisor, left=False)

    # ------------------------------------------------------------------ views
    def get_distributed_view(self, use_hw_view: bool = False) -> str:
        """A text table of a distributed layout (see :mod:`llc.views`).

        >>> L = LinearLayout.from_bases([("lane", [[1], [2]])], ["dim0"])
        >>> print(L.get_distributed_view(), end="")
        [T0:0, T1:0, T2:0, T3:0]
        """
        return distributed_view(self, use_hw_view=use_hw_view)

    def get_shared_view(self, use_hw_view: bool = False) -> str:
        """A text table of a shared-memory layout (see :mod:`llc.views`).

        >>> L = LinearLayout.from_bases([("offset", [[0, 1], [1, 0]])], ["dim0", "dim1"])
        >>> print(L.get_shared_view(use_hw_view=True), end="")
        Block: 0:
        Offset: 0 -> (0,0)
        Offset: 1 -> (0,1)
        Offset: 2 -> (1,0)
        Offset: 3 -> (1,1)
        """
        return shared_view(self, use_hw_view=use_hw_view)


def _f2_map(columns: Sequence[int], images: Sequence[int]) -> list[int]:
    """Apply a linear map given by the images of the unit vectors: for every column, the XOR of
    ``images[p]`` over its set bits ``p``.

    >>> _f2_map([0b011, 0b100], [1, 2, 4])
    [3, 4]
    """
    # Dense maps (random layouts) go through numpy when everything fits in a machine word;
    # sparse ones (the usual permutation-like layouts) are cheaper bit by bit.
    if (
        len(columns) > 8
        and 0 < len(images) <= 63
        and sum(map(int.bit_count, columns)) > 6 * len(columns)
        and max(images, default=0).bit_length() <= 63
    ):
        packed = np.array(columns, dtype=np.uint64).reshape(-1, 1)
        bits = (packed >> np.arange(len(images), dtype=np.uint64)) & np.uint64(1)
        chosen = np.where(bits.astype(bool), np.array(images, dtype=np.uint64), np.uint64(0))
        return np.bitwise_xor.reduce(chosen, axis=1).tolist()
    result = []
    for column in columns:
        if not column & (column - 1):
            # Zero or a single bit: most columns of real layouts.
            result.append(images[column.bit_length() - 1] if column else 0)
            continue
        acc = 0
        while column:
            low = column & -column
            acc ^= images[low.bit_length() - 1]
            column ^= low
        result.append(acc)
    return result


def _from_bases_fast(
    cls: type[LinearLayout],
    bases: Any,
    out_dim_names: Sequence[str],
    out_dim_sizes: Sequence[int] | None,
    require_surjective: bool,
) -> LinearLayout | None:
    """``from_bases`` for well-formed input: every check runs as a few C-level calls over all
    bases at once. Returns None on anything unusual (bad input included), and the caller then
    goes through ``__init__``, which finds the problem and names it."""
    if type(bases) is dict:
        bases = bases.items()
    elif type(bases) is not list and type(bases) is not tuple:
        return None
    out_names = tuple(out_dim_names)
    num_out = len(out_names)
    if set(map(type, out_names)) - {str} or len(set(out_names)) != num_out:
        return None
    in_names: list[str] = []
    all_bases: list[tuple[Basis, ...]] = []
    try:
        for name, vectors in bases:
            in_names.append(name)
            all_bases.append(tuple(map(tuple, vectors)))
    except (TypeError, ValueError):
        return None
    if set(map(type, in_names)) - {str} or len(set(in_names)) != len(in_names):
        return None
    flat = list(itertools.chain.from_iterable(all_bases))
    if flat:
        if set(map(len, flat)) != {num_out} or (
            num_out and set(map(type, itertools.chain.from_iterable(flat))) != {int}
        ):
            return None
        # The OR of an out-dim's values is below a power of two iff every value is, and
        # negative iff one is: one C-level pass per out-dim checks both.
        ors = [functools.reduce(operator.or_, values, 0) for values in zip(*flat, strict=False)]
    else:
        ors = []
    if out_dim_sizes is None:
        sizes = tuple(1 << value.bit_length() for value in ors) or (1,) * num_out
    else:
        sizes = tuple(out_dim_sizes)
        if len(sizes) != num_out or set(map(type, sizes)) - {int}:
            return None
    if ors and (min(ors) < 0 or any(map(operator.ge, ors, sizes))):
        return None
    offsets, total = [], 0
    for size in sizes:
        if size < 1 or size & (size - 1):
            return None
        offsets.append(total)
        total += size.bit_length() - 1
    layout = cls._new(tuple(in_names), tuple(all_bases), out_names, sizes)
    layout._out_offsets = tuple(offsets)
    columns = layout._columns = _pack_columns(layout._bases_v, offsets)  # type: ignore[arg-type]
    if require_surjective and not _spans_all_bits(columns, total):
        return None
    return layout


@functools.cache
def _unit_bases_1d(log: int) -> tuple[Basis, ...]:
    """``((1,), (2,), (4,), ...)``: the bases of every 1-D identity of size ``2^log``."""
    return tuple((1 << i,) for i in range(log))


def _spans_all_bits(columns: Sequence[int], bits: int) -> bool:
    """Whether ``columns`` span all ``bits`` output bits.

    Sufficient first check: if every bit position is the leading bit of some column, those
    columns are triangular, hence independent. That holds for identity-like and swizzled
    layouts alike and costs one C-level pass; only otherwise is an echelon form built.

    >>> _spans_all_bits([0b01, 0b11], 2), _spans_all_bits([0b11, 0b11], 2)
    (True, False)
    """
    return _leading_bits(bits) <= set(map(int.bit_length, columns)) or (
        EchelonBasis(columns).rank == bits
    )


@functools.cache
def _leading_bits(bits: int) -> frozenset[int]:
    return frozenset(range(1, bits + 1))


def _pack_columns(bases: tuple[tuple[Basis, ...], ...], offsets: Sequence[int]) -> tuple[int, ...]:
    """One bit-packed int per basis, out-dim ``k`` shifted to ``offsets[k]``.

    A comprehension that unpacks each basis is the cheapest form for the usual one to four
    out-dims (about twice as fast as packing column by column with ``zip``/``map``).

    >>> _pack_columns((((1, 0), (0, 1)), ((1, 1),)), (0, 1))
    (1, 2, 3)
    """
    width = len(offsets)
    if width == 2:
        s1 = offsets[1]
        return tuple([x | y << s1 for vectors in bases for x, y in vectors])
    if width == 1:
        return tuple([x for vectors in bases for (x,) in vectors])
    if width == 3:
        s1, s2 = offsets[1], offsets[2]
        return tuple([x | y << s1 | z << s2 for vectors in bases for x, y, z in vectors])
    if width == 4:
        s1, s2, s3 = offsets[1], offsets[2], offsets[3]
        return tuple(
            [x | y << s1 | z << s2 | w << s3 for vectors in bases for x, y, z, w in vectors]
        )
    flat = list(itertools.chain.from_iterable(bases))
    if not width:
        return (0,) * len(flat)
    packed = []
    for basis in flat:
        column = 0
        for value, offset in zip(basis, offsets, strict=True):
            column |= value << offset
        packed.append(column)
    return tuple(packed)


def _unpack_columns(
    columns: Sequence[int],
    in_logs: Sequence[int],
    offsets: Sequence[int],
    out_sizes: Sequence[int],
) -> tuple[tuple[Basis, ...], ...]:
    """Split packed columns back into per-in-dim tuples of bases.

    >>> _unpack_columns([1, 6], [1, 1], [0, 1], [2, 4])
    (((1, 0),), ((0, 3),))
    """
    if len(offsets) == 1:
        flat: list[tuple[int, ...]] = [(c,) for c in columns]
    elif not offsets:
        flat = [()] * len(columns)
    else:
        # One list per out-dim, then zip them into bases (the zip builds tuples in C).
        per_out = [
            [(c >> offset) & (size - 1) for c in columns]
            for offset, size in zip(offsets, out_sizes, strict=True)
        ]
        flat = list(zip(*per_out, strict=True))
    bases, pos = [], 0
    for log in in_logs:
        bases.append(tuple(flat[pos : pos + log]))
        pos += log
    return tuple(bases)


def _basis_converter(
    names: tuple[str, ...], new_names: tuple[str, ...], shifts: Sequence[int] | None
) -> Any:
    """A function re-expressing a tuple of bases over ``names`` as bases over ``new_names`` (a
    superset), shifting component ``k`` left by ``shifts[k]`` (indexed like ``new_names``) and
    putting 0 in the new components.

    >>> _basis_converter(("b",), ("a", "b"), None)(((1,), (2,)))
    ((0, 1), (0, 2))
    """
    if shifts is None:
        if names == new_names:
            return _same
        # Most products put the out-dims of one factor in a contiguous run of the result.
        width = len(names)
        for first in range(len(new_names) - width + 1):
            if tuple(new_names[first : first + width]) == tuple(names):
                head = (0,) * first
                tail = (0,) * (len(new_names) - first - width)
                if not tail:
                    return lambda vectors: tuple(head + b for b in vectors)
                if not head:
                    return lambda vectors: tuple(b + tail for b in vectors)
                return lambda vectors: tuple(head + b + tail for b in vectors)
    # Component k of a new basis is old component index[k], or the 0 appended at the end.
    index = [names.index(n) if n in names else len(names) for n in new_names]
    if len(new_names) == 1:
        (k,) = index
        shift = shifts[0] if shifts else 0
        return lambda vectors: tuple((((*b, 0))[k] << shift,) for b in vectors)
    if shifts is None:
        pick = operator.itemgetter(*index)
        return lambda vectors: tuple(pick((*b, 0)) for b in vectors)
    if index == list(range(len(names))):
        return lambda vectors: tuple(tuple(map(operator.lshift, b, shifts)) for b in vectors)
    pick = operator.itemgetter(*index)
    return lambda vectors: tuple(
        tuple(map(operator.lshift, pick((*b, 0)), shifts)) for b in vectors
    )


def _same(vectors: tuple[Basis, ...]) -> tuple[Basis, ...]:
    return vectors


@functools.lru_cache(maxsize=1024)
def _invert_and_compose_cached(inner: LinearLayout, outer: LinearLayout) -> LinearLayout:
    # Layouts are immutable and hashable, and conversions between the same pair of layouts
    # are requested over and over (Triton keeps such a cache too).
    return inner._invert_and_compose(outer)


def _divide(a: LinearLayout, b: LinearLayout, left: bool) -> LinearLayout | None:
    """Solve ``a == b * c`` (left) or ``a == c * b`` (right) for ``c`` with ``a``'s dims."""
    if not set(b._in_names) <= set(a._in_names) or not set(b._out_names) <= set(a._out_names):
        return None
    b_in = b.in_dims
    b_out = b.out_dim_sizes
    c_out_sizes = []
    for name, size in zip(a._out_names, a._out_sizes, strict=True):
        if size % b_out.get(name, 1):
            return None
        c_out_sizes.append(size // b_out.get(name, 1))
    c_bases: list[tuple[Basis, ...]] = []
    for name, vectors in zip(a._in_names, a._bases, strict=True):
        nb = b_in.get(name, 1).bit_length() - 1
        if nb > len(vectors):
            return None
        b_vectors = b._bases[b._in_names.index(name)] if name in b_in else ()
        if left:
            b_part, c_part = vectors[:nb], vectors[nb:]
        else:
            c_part, b_part = vectors[: len(vectors) - nb], vectors[len(vectors) - nb :]
        for got, want in zip(b_part, b_vectors, strict=True):
            for out_name, value, c_size in zip(a._out_names, got, c_out_sizes, strict=True):
                expected = want[b._out_names.index(out_name)] if out_name in b_out else 0
                # Left: b is inner (low bits); right: b is outer (values shifted by c's size).
                if left and value != expected:
                    return None
                if not left and value != expected * c_size:
                    return None
        converted = []
        for vector in c_part:
            new = []
            for out_name, value, c_size in zip(a._out_names, vector, c_out_sizes, strict=True):
                b_size = b_out.get(out_name, 1)
                if left:
                    if value % b_size:
                        return None
                    new.append(value // b_size)
                else:
                    if value >= c_size:
                        return None
                    new.append(value)
            converted.append(tuple(new))
        c_bases.append(tuple(converted))
    c = LinearLayout._raw(a._in_names, c_bases, a._out_names, c_out_sizes)
    try:
        product = b * c if left else c * b
    except LayoutError:
        # b's dims come in an order that no product with c can reproduce.
        return None
    return c if product == a else None
