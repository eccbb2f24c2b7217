"""``#ttg.linear``: a distributed layout given directly by its ``register/lane/warp/block`` bases.

Each basis is a list with one entry per tensor dim (``[dim0, dim1, ...]``) and moves along at
most one dim. On another shape the layout is repeated (extra register bases) or shrunk
(register bases that fall outside are dropped, lane/warp/block ones zeroed), in the order of
the dims the registers walk first.

>>> L = DistributedLinearLayout([[0, 1]], [[1, 0], [2, 0]], [], [])
>>> L.to_linear_layout([4, 4]).bases[0]
('register', [[0, 1], [0, 2]])
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from llc.errors import LayoutError
from llc.layouts.common import (
    DISTRIBUTED_IN_DIMS,
    DistributedLayout,
    ensure_layout_not_larger_than,
    ensure_layout_not_smaller_than,
    standard_out_dim_names,
)
from llc.linear_layout import LinearLayout

__all__ = ["DistributedLinearLayout", "normalize_bases"]

Bases = tuple[tuple[int, ...], ...]


def normalize_bases(family: str, param: str, value: Any) -> Bases:
    """Turn a list of basis lists into a tuple of int tuples, naming ``param`` on errors.

    >>> normalize_bases("linear", "lane", [[1, 0], [0, 1]])
    ((1, 0), (0, 1))
    """
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise LayoutError(
            f"{family}: {param} must be a list of bases (lists of integers), got {value!r}"
        )
    result = []
    for i, basis in enumerate(value):
        if isinstance(basis, str | bytes) or not isinstance(basis, Iterable):
            raise LayoutError(
                f"{family}: {param} basis {i} must be a list of integers, got {basis!r}"
            )
        entries = tuple(basis)
        for v in entries:
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise LayoutError(
                    f"{family}: {param} basis {i} {list(entries)} must contain non-negative "
                    "integers"
                )
        result.append(tuple(int(v) for v in entries))
    return tuple(result)


def bases_rank(family: str, named: list[tuple[str, Bases]]) -> int:
    """The common width of all bases (the tensor rank), checked.

    >>> bases_rank("linear", [("register", ((0, 1),)), ("lane", ((1, 0), (2, 0)))])
    2
    """
    rank = None
    first = ""
    for name, bases in named:
        for i, basis in enumerate(bases):
            if rank is None:
                rank, first = len(basis), name
            elif len(basis) != rank:
                raise LayoutError(
                    f"{family}: {name} basis {i} {list(basis)} has {len(basis)} entries, but the "
                    f"{first} bases have {rank} (one per tensor dim)"
                )
    if rank is None or rank == 0:
        raise LayoutError(f"{family}: cannot infer the rank: every basis list is empty")
    return rank


@dataclass(frozen=True)
class DistributedLinearLayout(DistributedLayout):
    """Triton's ``LinearEncodingAttr``.

    >>> L = DistributedLinearLayout([], [[1], [2], [4], [8], [16]], [[32]], [])
    >>> L.rank, L.threads_per_warp_total, L.num_warps
    (1, 32, 2)
    """

    register: Bases
    lane: Bases
    warp: Bases
    block: Bases

    kind = "linear"

    def __post_init__(self) -> None:
        named = []
        for name in DISTRIBUTED_IN_DIMS:
            bases = normalize_bases(self.kind, name, getattr(self, name))
            object.__setattr__(self, name, bases)
            named.append((name, bases))
        rank = bases_rank(self.kind, named)
        for name, bases in named:
            for i, basis in enumerate(bases):
                if sum(1 for v in basis if v) > 1:
                    raise LayoutError(
                        f"linear: {name} basis {i} {list(basis)} moves in more than one dim; a "
                        "distributed layout's bases move in at most one"
                    )
        try:
            LinearLayout.from_bases(named, standard_out_dim_names(rank))
        except LayoutError as err:
            raise LayoutError(f"linear: invalid bases: {err}") from None

    @classmethod
    def from_linear_layout(cls, layout: LinearLayout) -> DistributedLinearLayout:
        """Wrap a LinearLayout with in-dims among ``register, lane, warp, block``.

        >>> L = LinearLayout.identity_1d(4, "lane", "dim0")
        >>> DistributedLinearLayout.from_linear_layout(L).lane
        ((1,), (2,))
        """
        extra = set(layout.get_in_dim_names()) - set(DISTRIBUTED_IN_DIMS)
        if extra:
            raise LayoutError(f"linear: unexpected in-dims {sorted(extra)}")
        if layout.get_out_dim_names() != standard_out_dim_names(layout.num_out_dims):
            raise LayoutError(
                f"linear: out-dims must be dim0, dim1, ..., got {layout.get_out_dim_names()}"
            )
        bases = dict(layout.bases)
        return cls(*(tuple(map(tuple, bases.get(n, []))) for n in DISTRIBUTED_IN_DIMS))

    @property
    def rank(self) -> int:
        """Width of the bases.

        >>> DistributedLinearLayout([[0, 1]], [], [], []).rank
        2
        """
        for name in DISTRIBUTED_IN_DIMS:
            bases = getattr(self, name)
            if bases:
                return len(bases[0])
        raise AssertionError("unreachable: validated in __post_init__")

    @property
    def threads_per_warp_total(self) -> int:
        """``2 ** len(lane)``.

        >>> DistributedLinearLayout([], [[1], [2]], [], []).threads_per_warp_total
        4
        """
        return 1 << len(self.lane)

    @property
    def num_warps(self) -> int:
        """``2 ** len(warp)``.

        >>> DistributedLinearLayout([[1]], [], [[2], [4]], []).num_warps
        4
        """
        return 1 << len(self.warp)

    def _warps_desc(self) -> str:
        return f"{len(self.warp)} warp bases make {self.num_warps} warps"

    def _threads_desc(self) -> str:
        return f"{len(self.lane)} lane bases make {self.threads_per_warp_total} threads per warp"

    def linear_layout(self) -> LinearLayout:
        """The bases as a LinearLayout (out sizes inferred).

        >>> DistributedLinearLayout([[1]], [], [], []).linear_layout().out_dims
        [('dim0', 2)]
        """
        named = [(n, [list(b) for b in getattr(self, n)]) for n in DISTRIBUTED_IN_DIMS]
        return LinearLayout.from_bases(named, standard_out_dim_names(self.rank))

    def order(self) -> list[int]:
        """Dims in the order the register bases first move along them, then the rest, major last.

        >>> DistributedLinearLayout([[1, 0]], [[0, 1]], [], []).order()
        [0, 1]
        """
        order: list[int] = []
        for basis in self.register:
            nonzero = [i for i, v in enumerate(basis) if v]
            if nonzero and nonzero[0] not in order:
                order.append(nonzero[0])
        for d in range(self.rank - 1, -1, -1):
            if d not in order:
                order.append(d)
        return order

    def _build(self, shape: tuple[int, ...]) -> LinearLayout:
        layout = self.linear_layout()
        names = standard_out_dim_names(self.rank)
        permuted = [names[d] for d in self.order()]
        named_shape = dict(zip(names, shape, strict=True))
        layout = layout.transpose_outs(permuted)
        layout = ensure_layout_not_smaller_than(layout, named_shape)
        # Registers past the shape are dropped rather than kept as duplicates.
        layout = ensure_layout_not_larger_than(layout, named_shape, broadcast_registers=False)
        return self._finish(layout.transpose_outs(names))

    def triton_params(self) -> dict[str, object]:
        """``{"register": [...], "lane": [...], "warp": [...], "block": [...]}``.

        >>> DistributedLinearLayout([[1]], [], [], []).triton_params()
        {'register': [[1]], 'lane': [], 'warp': [], 'block': []}
        """
        return {n: [list(b) for b in getattr(self, n)] for n in DISTRIBUTED_IN_DIMS}
