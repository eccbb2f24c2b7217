"""Shared machinery of the layout families: the CGA (``CTALayout``) and the common tail.

Every Triton layout family is turned into a :class:`~llc.linear_layout.LinearLayout` in two
steps. First a *CTA layout* is built for one block (in-dims ``register, lane, warp`` for
distributed layouts, ``offset`` for shared ones); then :func:`combine_cta_cga_with_shape`
tiles it over the tensor shape (extra high ``register``/``offset`` bases, minor out-dim
first), broadcasts it where it is larger than the shape (zero bases; registers may be dropped
instead), and multiplies it by the CGA layout (in-dim ``block``) built from the
``CTAsPerCGA / CTASplitNum / CTAOrder`` triple.

Shapes must be powers of two. The padding convention for other shapes: a tensor of shape
``s`` is laid out as the tensor of shape :func:`padded_shape` ``(s)`` (every dim rounded up to
the next power of two), and :func:`valid_mask` ``(s)`` tells which elements of the padded
tensor are real (``True``) and which are padding (``False``), exactly like Triton's masked
loads of a power-of-two block.

>>> padded_shape([3, 8])
(4, 8)
>>> valid_mask([3, 2]).astype(int).tolist()
[[1, 1], [1, 1], [1, 1], [0, 0]]
>>> make_cga_layout(CTALayout((4,), (2,), (0,))).bases
[('block', [[1], [0]])]
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from math import prod
from typing import Any, ClassVar

import numpy as np

from llc.errors import LayoutError
from llc.linear_layout import LinearLayout

__all__ = [
    "CTALayout",
    "DistributedLayout",
    "Layout",
    "LayoutOnParent",
    "SharedLayout",
    "clear_linear_layout_cache",
    "combine_cta_cga_with_shape",
    "ensure_layout_not_larger_than",
    "ensure_layout_not_smaller_than",
    "format_list",
    "get_matrix_order",
    "get_order_for_dot_operand",
    "identity_standard_nd",
    "is_pow2",
    "linear_layout_cache_info",
    "make_cga_layout",
    "padded_shape",
    "standard_out_dim_names",
    "valid_mask",
]

DISTRIBUTED_IN_DIMS = ("register", "lane", "warp", "block")
SHARED_IN_DIMS = ("offset", "block")


# ---------------------------------------------------------------------------- small helpers
def is_pow2(value: int) -> bool:
    """Whether ``value`` is a positive power of two.

    >>> [is_pow2(v) for v in (0, 1, 6, 8)]
    [False, True, False, True]
    """
    return isinstance(value, int) and value > 0 and value & (value - 1) == 0


def format_list(values: Iterable[Any]) -> str:
    """``values`` as Triton prints an integer array in messages: ``[a, b, ...]``.

    >>> format_list((4, 1)), format_list(range(0))
    ('[4, 1]', '[]')
    """
    return "[" + ", ".join(str(v) for v in values) + "]"


def normalize_int_tuple(family: str, param: str, value: Any) -> tuple[int, ...]:
    """Turn a list of ints into a tuple, raising :class:`LayoutError` naming ``param``.

    >>> normalize_int_tuple("blocked", "order", [1, 0])
    (1, 0)
    """
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise LayoutError(f"{family}: {param} must be a list of integers, got {value!r}")
    items = tuple(value)
    for v in items:
        if isinstance(v, bool) or not isinstance(v, int | np.integer):
            raise LayoutError(f"{family}: {param} must be a list of integers, got {value!r}")
    return tuple(int(v) for v in items)


def check_int(family: str, param: str, value: Any) -> int:
    """Check that ``value`` is a (non-bool) integer.

    >>> check_int("slice", "dim", 1)
    1
    """
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise LayoutError(f"{family}: {param} must be an integer, got {value!r}")
    return int(value)


def check_bool(family: str, param: str, value: Any) -> bool:
    """Check that ``value`` is a bool.

    >>> check_bool("nvmma_shared", "transposed", False)
    False
    """
    if not isinstance(value, bool | np.bool_):
        raise LayoutError(f"{family}: {param} must be a bool, got {value!r}")
    return bool(value)


def check_pow2_list(family: str, param: str, values: Sequence[int]) -> None:
    """Every entry must be a positive power of two.

    >>> check_pow2_list("blocked", "sizePerThread", (1, 3))
    Traceback (most recent call last):
    ...
    llc.errors.LayoutError: blocked: sizePerThread [1, 3] must contain only powers of two (got 3)
    """
    for v in values:
        if not is_pow2(v):
            raise LayoutError(
                f"{family}: {param} {format_list(values)} must contain only powers of two (got {v})"
            )


def check_permutation(family: str, param: str, order: Sequence[int], rank: int) -> None:
    """``order`` must be a permutation of ``0..rank-1``.

    >>> check_permutation("blocked", "order", (1, 1), 2)
    Traceback (most recent call last):
    ...
    llc.errors.LayoutError: blocked: order [1, 1] is not a permutation of [0, 1]
    """
    if sorted(order) != list(range(rank)):
        raise LayoutError(
            f"{family}: {param} {format_list(order)} is not a permutation of "
            f"{format_list(range(rank))}"
        )


def standard_out_dim_names(rank: int) -> list[str]:
    """``["dim0", ..., "dim{rank-1}"]``.

    >>> standard_out_dim_names(3)
    ['dim0', 'dim1', 'dim2']
    """
    return [f"dim{i}" for i in range(rank)]


def get_matrix_order(rank: int, row_major: bool) -> list[int]:
    """Minor-to-major order of a batch of ``[.., m, n]`` matrices (Triton's ``getMatrixOrder``).

    >>> get_matrix_order(3, True), get_matrix_order(3, False)
    ([2, 1, 0], [1, 2, 0])
    """
    order = list(range(rank - 1, -1, -1))
    if rank >= 2 and not row_major:
        order[0], order[1] = order[1], order[0]
    return order


def get_order_for_dot_operand(op_idx: int, rank: int, k_contig: bool) -> list[int]:
    """Order of a dot operand: K fastest when ``k_contig`` (A is ``[.., m, k]``, B ``[.., k, n]``).

    >>> get_order_for_dot_operand(0, 2, True), get_order_for_dot_operand(1, 2, True)
    ([1, 0], [0, 1])
    """
    return get_matrix_order(rank, bool(op_idx) != k_contig)


def identity_1d(size: int, in_dim: str, out_dim: str) -> LinearLayout:
    """``identity_1d`` where a size below 1 (an integer quotient that rounded to 0) is empty.

    >>> identity_1d(0, "register", "dim0") == LinearLayout.empty()
    True
    """
    if size < 1:
        return LinearLayout.empty()
    return LinearLayout.identity_1d(size, in_dim, out_dim)


def identity_standard_nd(in_dim: str, shape: Sequence[int], order: Sequence[int]) -> LinearLayout:
    """Identity from ``in_dim`` onto ``dim0..``, the dims laid out minor-to-major along ``order``.

    The out-dims come in ``order`` (not transposed to ``dim0, dim1, ...``).

    >>> L = identity_standard_nd("register", [2, 4], [1, 0])
    >>> L.get_out_dim_names(), L.bases
    (['dim1', 'dim0'], [('register', [[1, 0], [2, 0], [0, 1]])])
    """
    if len(shape) != len(order):
        raise LayoutError(
            f"identity_standard_nd: shape {format_list(shape)} and order {format_list(order)} "
            "differ in rank"
        )
    direct = _identity_standard_nd_direct(in_dim, shape, order)
    if direct is not None:
        return direct
    # Unusual arguments (a size that is not a power of two, a repeated dim): the product of
    # 1-D identities, which raises the right error.
    names = standard_out_dim_names(len(shape))
    result = LinearLayout.empty()
    for dim in order:
        result = result * LinearLayout.identity_1d(shape[dim], in_dim, names[dim])
    return result


def _identity_standard_nd_direct(
    in_dim: str, shape: Sequence[int], order: Sequence[int]
) -> LinearLayout | None:
    """The bases of :func:`identity_standard_nd` written down at once (it is built for every
    layout, so the products of 1-D identities were a large part of a cold ``to_linear_layout``).
    None when the arguments need the general path."""
    rank = len(order)
    if not rank or sorted(order) != list(range(rank)):
        return None
    sizes = tuple(int(shape[d]) for d in order)
    if any(size < 1 or size & (size - 1) for size in sizes):
        return None
    bases: list[tuple[int, ...]] = []
    for j, size in enumerate(sizes):
        for i in range(size.bit_length() - 1):
            basis = [0] * rank
            basis[j] = 1 << i
            bases.append(tuple(basis))
    names = tuple(f"dim{d}" for d in order)
    # Valid by construction, so the core's trusted constructor skips from_bases's checks.
    return LinearLayout._new((in_dim,), (tuple(bases),), names, sizes)


def broadcasted_dot_operand_layout(
    shape: Sequence[int], order: Sequence[int], k_dim: int, in_dim: str
) -> LinearLayout:
    """Lanes/warps of a dot operand: identity along M/N, zeros (broadcast) along K.

    >>> L = broadcasted_dot_operand_layout([2, 2], [1, 0], 1, "warp")
    >>> L.get_out_dim_names(), L.bases
    (['dim1', 'dim0'], [('warp', [[0, 0], [0, 1]])])
    """
    rank = len(order)
    if rank and sorted(order) == list(range(rank)) and all(is_pow2(int(s)) for s in shape):
        # The product below, written down directly (it is built for every dot operand).
        bases: list[tuple[int, ...]] = []
        for j, d in enumerate(order):
            for i in range(int(shape[d]).bit_length() - 1):
                basis = [0] * rank
                if d != k_dim:
                    basis[j] = 1 << i
                bases.append(tuple(basis))
        sizes = tuple(int(shape[d]) if d != k_dim else 1 for d in order)
        return LinearLayout._new((in_dim,), (tuple(bases),), tuple(f"dim{d}" for d in order), sizes)
    names = standard_out_dim_names(len(shape))
    result = LinearLayout.empty()
    for d in order:
        if d == k_dim:
            result = result * LinearLayout.zeros_1d(shape[d], in_dim, names[d])
        else:
            result = result * LinearLayout.identity_1d(shape[d], in_dim, names[d])
    return result


def transpose_bases(layout: LinearLayout, order: Sequence[int]) -> LinearLayout:
    """Permute the components of every basis (new component ``i`` = old component ``order[i]``).

    Out-dim names stay ``dim0..``, sizes are re-inferred (Triton's ``transposeLinearLayout``).

    >>> L = LinearLayout.from_bases([("offset", [[0, 1], [2, 0], [1, 0]])], ["dim0", "dim1"])
    >>> transpose_bases(L, [1, 0]).bases
    [('offset', [[1, 0], [0, 2], [0, 1]])]
    """
    bases = [(name, [[b[i] for i in order] for b in vectors]) for name, vectors in layout.bases]
    return LinearLayout.from_bases(bases, layout.get_out_dim_names())


def reshape_layout(layout: LinearLayout, shape: Sequence[int]) -> LinearLayout:
    """Reshape the out-dims to ``dim0..`` of ``shape`` (row-major, i.e. last dim minor).

    >>> L = LinearLayout.identity_1d(8, "offset", "dim0")
    >>> reshape_layout(L, [2, 4]).bases
    [('offset', [[0, 1], [0, 2], [1, 0]])]
    """
    src = list(reversed(layout.get_out_dim_names()))
    names = standard_out_dim_names(len(shape))
    new = list(reversed(list(zip(names, shape, strict=True))))
    return layout.transpose_outs(src).reshape_outs(new).transpose_outs(names)


# ---------------------------------------------------------------------------- CGA layout
@dataclass(frozen=True)
class CTALayout:
    """How the CTAs of a CGA split the tensor (Triton's ``CTALayoutAttr``, a *CGA* layout).

    ``ctas_per_cga[d]`` CTAs along dim ``d`` share ``cta_split_num[d]`` distinct pieces of the
    tensor (the rest are broadcast copies); ``cta_order`` is minor-to-major.

    >>> CTALayout([2, 2], [2, 1], [1, 0]).cta_split_num
    (2, 1)
    """

    ctas_per_cga: tuple[int, ...]
    cta_split_num: tuple[int, ...]
    cta_order: tuple[int, ...]
    block_bases: tuple[tuple[int, ...], ...] | None = field(default=None, repr=False)
    """The CGA as Triton 3.9 writes it (``CGALayout = [[0, 1], [0, 0]]``: block bit ``i`` ->
    tensor block): set by :meth:`from_bases`, which derives the triple from it; ``None`` for a
    CGA given by the triple."""

    @classmethod
    def from_bases(cls, bases: Any, rank: int | None = None) -> CTALayout:
        """The CGA of Triton 3.9's ``CGALayout`` entry: one basis per block bit, each moving in
        at most one dim by a power of two (a zero basis: that block bit holds a copy). The
        triple is derived as Triton's ``CGAEncodingAttr`` derives it (a zero basis counts for
        the dim of the basis before it, or dim 0); :func:`make_cga_layout` uses the bases.

        >>> c = CTALayout.from_bases([[0, 1], [0, 0]])
        >>> c.ctas_per_cga, c.cta_split_num, c.num_ctas, c.triton_params()
        ((1, 4), (1, 2), 4, {'CGALayout': [[0, 1], [0, 0]]})
        >>> CTALayout.from_bases([[1, 1]])
        Traceback (most recent call last):
        ...
        llc.errors.LayoutError: CGALayout: basis [1, 1] moves in more than one dim
        """
        fam = "CGALayout"
        if not isinstance(bases, Sequence) or isinstance(bases, str):
            raise LayoutError(f"{fam}: expected a list of bases, got {bases!r}")
        rows = [normalize_int_tuple(fam, "basis", b) for b in bases]
        if rank is None:
            if not rows:
                raise LayoutError(f"{fam}: an empty list has no rank; leave CGALayout out")
            rank = len(rows[0])
        split = [1] * rank
        per_cga = [1] * rank
        seen: list[set[int]] = [set() for _ in range(rank)]
        first: list[int] = []
        last = 0
        for row in rows:
            if len(row) != rank:
                raise LayoutError(
                    f"{fam}: basis {format_list(row)} does not have the layout's rank {rank}"
                )
            moves = [d for d, v in enumerate(row) if v]
            if len(moves) > 1:
                raise LayoutError(f"{fam}: basis {format_list(row)} moves in more than one dim")
            if moves:
                d = moves[0]
                if not is_pow2(row[d]) or row[d] in seen[d]:
                    raise LayoutError(
                        f"{fam}: basis {format_list(row)}: the bases along dim {d} must be "
                        "distinct powers of two"
                    )
                seen[d].add(row[d])
                split[d] *= 2
                last = d
                if d not in first:
                    first.append(d)
            per_cga[last] *= 2
        for d in range(rank):
            if seen[d] and max(seen[d]) != split[d] // 2:
                raise LayoutError(
                    f"{fam}: the bases along dim {d} ({format_list(sorted(seen[d]))}) must be "
                    "1, 2, 4, ... (every block of the tensor held by some CTA)"
                )
        order = first + [d for d in range(rank - 1, -1, -1) if d not in first]
        return cls(tuple(per_cga), tuple(split), tuple(order), tuple(rows))

    def __post_init__(self) -> None:
        fam = "CTALayout"
        cpg = normalize_int_tuple(fam, "CTAsPerCGA", self.ctas_per_cga)
        split = normalize_int_tuple(fam, "CTASplitNum", self.cta_split_num)
        order = normalize_int_tuple(fam, "CTAOrder", self.cta_order)
        object.__setattr__(self, "ctas_per_cga", cpg)
        object.__setattr__(self, "cta_split_num", split)
        object.__setattr__(self, "cta_order", order)
        if not (len(cpg) == len(split) == len(order)):
            raise LayoutError(
                f"{fam}: CTAsPerCGA {format_list(cpg)}, CTASplitNum {format_list(split)} and "
                f"CTAOrder {format_list(order)} must have the same rank"
            )
        check_permutation(fam, "CTAOrder", order, len(order))
        check_pow2_list(fam, "CTAsPerCGA", cpg)
        check_pow2_list(fam, "CTASplitNum", split)
        for d, (c, s) in enumerate(zip(cpg, split, strict=True)):
            if c % s:
                raise LayoutError(
                    f"{fam}: CTASplitNum {format_list(split)} does not divide CTAsPerCGA "
                    f"{format_list(cpg)} "
                    f"in dim {d}"
                )

    @classmethod
    def default(cls, rank: int) -> CTALayout:
        """One CTA: all ones, ``CTAOrder = [rank-1, ..., 0]`` (Triton's ``getDefault``).

        >>> CTALayout.default(2)
        CTALayout(ctas_per_cga=(1, 1), cta_split_num=(1, 1), cta_order=(1, 0))
        """
        return _default_cta_layout(cls, rank)

    @property
    def rank(self) -> int:
        """Number of tensor dims.

        >>> CTALayout.default(3).rank
        3
        """
        return len(self.cta_order)

    @property
    def num_ctas(self) -> int:
        """Product of ``CTAsPerCGA``.

        >>> CTALayout([2, 2], [2, 2], [1, 0]).num_ctas
        4
        """
        return prod(self.ctas_per_cga)

    def is_default(self) -> bool:
        """Whether this is :meth:`default` of its rank (printed by Triton only otherwise).

        >>> CTALayout.default(2).is_default(), CTALayout([1, 1], [1, 1], [0, 1]).is_default()
        (True, False)
        """
        if self.block_bases is not None:
            return not self.block_bases
        return self == CTALayout.default(self.rank)

    def to_bases(self) -> list[list[int]]:
        """The CGA as Triton 3.9's ``CGALayout`` bases, whichever way it was given.

        >>> CTALayout([2, 2], [2, 1], [1, 0]).to_bases()
        [[0, 0], [1, 0]]
        """
        return [list(b) for b in make_cga_layout(self).bases[0][1]]

    def triton_params(self) -> dict[str, object]:
        """``{"CTAsPerCGA": [...], "CTASplitNum": [...], "CTAOrder": [...]}``.

        >>> CTALayout([2], [1], [0]).triton_params()
        {'CTAsPerCGA': [2], 'CTASplitNum': [1], 'CTAOrder': [0]}
        """
        if self.block_bases is not None:
            return {"CGALayout": [list(b) for b in self.block_bases]}
        return {
            "CTAsPerCGA": list(self.ctas_per_cga),
            "CTASplitNum": list(self.cta_split_num),
            "CTAOrder": list(self.cta_order),
        }

    def with_split(self, split: Sequence[int]) -> CTALayout:
        """Same CGA with another ``CTASplitNum`` (used to stop a dot operand splitting K).

        >>> CTALayout([2, 2], [2, 2], [1, 0]).with_split([2, 1]).cta_split_num
        (2, 1)
        >>> CTALayout.from_bases([[1, 0], [0, 1]]).with_split([2, 1]).block_bases
        ((1, 0), (0, 0))
        """
        if self.block_bases is not None:
            # A block bit that moved past the new split holds a copy instead.
            rows = tuple(
                tuple(0 if v and v >= split[d] else v for d, v in enumerate(row))
                for row in self.block_bases
            )
            return CTALayout.from_bases(rows, self.rank)
        return CTALayout(self.ctas_per_cga, tuple(split), self.cta_order)


@functools.lru_cache(maxsize=16)
def _default_cta_layout(cls: type[CTALayout], rank: int) -> CTALayout:
    # Every layout without a CGA asks for this on each conversion; it is an immutable value.
    return cls((1,) * rank, (1,) * rank, tuple(range(rank - 1, -1, -1)))


def make_cga_layout(cta: CTALayout) -> LinearLayout:
    """Block id -> tensor block: per dim in ``CTAOrder``, ``x % CTASplitNum`` (``makeCgaLayout``).

    >>> make_cga_layout(CTALayout([2, 2], [2, 1], [1, 0])).bases
    [('block', [[0, 0], [1, 0]])]
    """
    if not cta.rank:
        return LinearLayout.empty()
    names = standard_out_dim_names(cta.rank)
    if cta.block_bases is not None:
        return LinearLayout._new(("block",), (cta.block_bases,), tuple(names), cta.cta_split_num)
    # Written down directly (as the product of 1-D identities and zeros per dim in CTAOrder
    # would give): CTALayout has checked that every entry is a power of two.
    bases: list[tuple[int, ...]] = []
    for dim in cta.cta_order:
        split = cta.cta_split_num[dim]
        for i in range(split.bit_length() - 1):
            basis = [0] * cta.rank
            basis[dim] = 1 << i
            bases.append(tuple(basis))
        zeros = (cta.ctas_per_cga[dim] // split).bit_length() - 1
        bases.extend([(0,) * cta.rank] * zeros)
    return LinearLayout._new(("block",), (tuple(bases),), tuple(names), cta.cta_split_num)


def ensure_layout_not_larger_than(
    layout: LinearLayout, shape: Mapping[str, int], broadcast_registers: bool = True
) -> LinearLayout:
    """Shrink every out-dim to ``shape`` by zeroing its largest bases (a broadcast).

    With ``broadcast_registers=False`` register bases are dropped instead of zeroed.

    >>> L = LinearLayout.from_bases([("register", [[8], [4], [1]]), ("lane", [[2], [16]])], ["o"])
    >>> ensure_layout_not_larger_than(L, {"o": 8}).bases
    [('register', [[0], [4], [1]]), ('lane', [[2], [0]])]
    """
    out_names = layout.get_out_dim_names()
    if set(shape) != set(out_names):
        raise LayoutError(
            f"ensure_layout_not_larger_than: shape dims {sorted(shape)} are not the out-dims "
            f"{out_names}"
        )
    if (
        all(size <= int(shape[out]) for out, size in layout.out_dim_sizes.items())
        and layout.is_surjective()
    ):
        # Nothing to shrink: rebuilding from the same bases would give this very layout.
        return layout
    in_names = layout.get_in_dim_names()
    bases = {name: [list(b) for b in vectors] for name, vectors in layout.bases}
    dropped: set[int] = set()
    for j, out in enumerate(out_names):
        actual = layout.get_out_dim_size(out)
        desired = int(shape[out])
        if actual <= desired:
            continue
        if actual % desired:
            raise LayoutError(
                f"ensure_layout_not_larger_than: {out} size {actual} is not a multiple of {desired}"
            )
        candidates = [
            (name, i, bases[name][i][j])
            for name in in_names
            for i in range(len(bases[name]))
            if bases[name][i][j] != 0
        ]
        # From the largest basis to the smallest; a stable sort keeps in-dim order on ties.
        candidates.sort(key=lambda c: -c[2])
        for name, i, _ in candidates:
            if actual <= desired:
                break
            if not broadcast_registers and name == "register":
                dropped.add(i)
            else:
                bases[name][i][j] = 0
            actual >>= 1
    if dropped:
        bases["register"] = [b for i, b in enumerate(bases["register"]) if i not in dropped]
    return LinearLayout.from_bases([(n, bases[n]) for n in in_names], out_names)


def ensure_layout_not_smaller_than(layout: LinearLayout, shape: Mapping[str, int]) -> LinearLayout:
    """Grow every out-dim to ``shape`` by repeating: extra bases of the first in-dim.

    The first in-dim is ``register`` (distributed) or ``offset`` (shared); out-dims are handled
    in the layout's out-dim order, so the most minor one gets the lowest new bases.

    >>> L = LinearLayout.identity_1d(2, "register", "dim1") * LinearLayout.identity_1d(
    ...     2, "lane", "dim0")
    >>> ensure_layout_not_smaller_than(L, {"dim0": 4, "dim1": 4}).bases
    [('register', [[1, 0], [2, 0], [0, 2]]), ('lane', [[0, 1]])]
    """
    out_names = layout.get_out_dim_names()
    if set(shape) != set(out_names):
        raise LayoutError(
            f"ensure_layout_not_smaller_than: shape dims {sorted(shape)} are not the out-dims "
            f"{out_names}"
        )
    if not out_names:
        return layout
    k_dim = layout.get_in_dim_names()[0]
    result = layout
    for out in out_names:
        actual = layout.get_out_dim_size(out)
        desired = int(shape[out])
        if actual < desired:
            result = result * LinearLayout.identity_1d(desired // actual, k_dim, out)
    return result


def combine_cta_cga_with_shape(
    cta_layout: LinearLayout,
    cga: CTALayout,
    shape: Sequence[int],
    broadcast_registers: bool = True,
) -> LinearLayout:
    """Tile/broadcast a one-CTA layout to ``shape`` and multiply by the CGA layout.

    The CTA layout's out-dim order decides which dim is repeated first; the result has out-dims
    ``dim0..`` in standard order, each of exactly the size in ``shape``. Where the CTA tile is
    larger than the shape, lane/warp/offset bases become zero (a broadcast); register bases do
    too unless ``broadcast_registers`` is false, in which case they are dropped, largest first,
    so that no thread holds one element in two registers (Triton 3.9 does this for
    ``#ttg.blocked`` only; its MMA, dot-operand, MFMA and WMMA layouts keep zero registers).

    >>> cta = identity_standard_nd("register", [1], [0]) * identity_standard_nd("lane", [4], [0])
    >>> combine_cta_cga_with_shape(cta, CTALayout([2], [2], [0]), [16]).bases
    [('register', [[4]]), ('lane', [[1], [2]]), ('block', [[8]])]
    >>> cta = identity_standard_nd("register", [4], [0]) * identity_standard_nd("lane", [2], [0])
    >>> combine_cta_cga_with_shape(cta, CTALayout.default(1), [2]).bases
    [('register', [[1], [0]]), ('lane', [[0]]), ('block', [])]
    >>> combine_cta_cga_with_shape(cta, CTALayout.default(1), [2], broadcast_registers=False).bases
    [('register', [[1]]), ('lane', [[0]]), ('block', [])]
    """
    rank = len(shape)
    if cta_layout.num_out_dims != rank or cga.rank != rank:
        raise LayoutError(
            f"combine_cta_cga_with_shape: shape {format_list(shape)} has rank {rank}, the CTA "
            f"layout {cta_layout.num_out_dims} and the CGA layout {cga.rank}"
        )
    names = standard_out_dim_names(rank)
    labeled = dict(zip(names, (int(s) for s in shape), strict=True))
    cga_ll = ensure_layout_not_larger_than(make_cga_layout(cga), labeled).transpose_outs(
        cta_layout.get_out_dim_names()
    )
    cta_shape = {
        d: max(1, labeled[d] // cga_ll.get_out_dim_size(d)) for d in cta_layout.get_out_dim_names()
    }
    cta_ll = ensure_layout_not_smaller_than(cta_layout, cta_shape)
    cta_ll = ensure_layout_not_larger_than(cta_ll, cta_shape, broadcast_registers)
    return (cta_ll * cga_ll).transpose_outs(names)


def canonicalize_in_dims(layout: LinearLayout, names: Sequence[str]) -> LinearLayout:
    """Make the in-dims exactly ``names`` in that order, adding missing ones with size 1.

    >>> L = LinearLayout.identity_1d(2, "lane", "dim0")
    >>> canonicalize_in_dims(L, ["register", "lane"]).bases
    [('register', []), ('lane', [[1]])]
    """
    if layout.get_in_dim_names() == list(names):
        return layout
    extra = [n for n in layout.get_in_dim_names() if n not in names]
    if extra:
        raise LayoutError(f"unexpected in-dims {extra}; expected {list(names)}")
    out_names = layout.get_out_dim_names()
    present = dict(layout.bases)
    bases = [(n, [list(b) for b in present.get(n, [])]) for n in names]
    return LinearLayout.from_bases(
        bases, out_names, [layout.get_out_dim_size(n) for n in out_names], require_surjective=False
    )


# ---------------------------------------------------------------------------- shapes
def padded_shape(shape: Sequence[int]) -> tuple[int, ...]:
    """Round every dim up to the next power of two (the padding convention).

    >>> padded_shape([33, 48, 1])
    (64, 64, 1)
    """
    result = []
    for i, s in enumerate(shape):
        if isinstance(s, bool) or not isinstance(s, int | np.integer) or s < 1:
            raise LayoutError(
                f"shape {list(shape)}: dim {i} has size {s!r}, expected a positive integer"
            )
        result.append(1 << (int(s) - 1).bit_length())
    return tuple(result)


def valid_mask(shape: Sequence[int]) -> np.ndarray:
    """Boolean mask over :func:`padded_shape` ``(shape)``: ``True`` for the real elements.

    >>> valid_mask([3]).tolist()
    [True, True, True, False]
    """
    padded = padded_shape(shape)
    mask = np.zeros(padded, dtype=bool)
    mask[tuple(slice(0, int(s)) for s in shape)] = True
    return mask


def _check_shape(layout: Layout, shape: Any) -> tuple[int, ...]:
    try:
        dims = tuple(shape)
    except TypeError:
        raise LayoutError(
            f"{layout.kind}: shape must be a list of integers, got {shape!r}"
        ) from None
    result = []
    for i, s in enumerate(dims):
        if isinstance(s, bool) or not isinstance(s, int | np.integer) or s < 1:
            raise LayoutError(
                f"{layout.kind}: shape {list(dims)} has dim {i} of size {s!r}, expected a positive "
                "integer"
            )
        if not is_pow2(int(s)):
            raise LayoutError(
                f"{layout.kind}: shape {format_list(dims)} has dim {i} of size {s}, which is "
                "not a power of two; lay out padded_shape(shape) = "
                f"{format_list(padded_shape(dims))} and mask with valid_mask(shape)"
            )
        result.append(int(s))
    layout._check_rank(tuple(result))
    return tuple(result)


@functools.lru_cache(maxsize=8192)
def _cached_linear_layout(layout: Layout, shape: tuple[int, ...]) -> LinearLayout:
    return layout._build(shape)


def linear_layout_cache_info() -> Any:
    """Hit/miss statistics of the ``(layout, shape) -> LinearLayout`` cache.

    >>> linear_layout_cache_info().maxsize
    8192
    """
    return _cached_linear_layout.cache_info()


def clear_linear_layout_cache() -> None:
    """Empty the ``(layout, shape) -> LinearLayout`` cache.

    >>> clear_linear_layout_cache(); linear_layout_cache_info().currsize
    0
    """
    _cached_linear_layout.cache_clear()


# ---------------------------------------------------------------------------- base classes
class Layout:
    """Base of every layout family (frozen dataclasses: hashable, ``==`` structural).

    >>> from llc.layouts import BlockedLayout
    >>> isinstance(BlockedLayout([1], [32], [4], [0]), Layout)
    True
    """

    kind: ClassVar[str] = ""
    IN_DIMS: ClassVar[tuple[str, ...]] = ()

    @property
    def rank(self) -> int:
        """Number of tensor dims the layout describes."""
        raise NotImplementedError

    def _check_rank(self, shape: tuple[int, ...]) -> None:
        if len(shape) != self.rank:
            raise LayoutError(
                f"{self.kind}: shape {format_list(shape)} has rank {len(shape)}, but the "
                f"layout has rank {self.rank}"
            )

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        """The layout as a :class:`LinearLayout` on ``shape`` (powers of two; cached).

        >>> from llc.layouts import BlockedLayout
        >>> BlockedLayout([1], [4], [4], [0]).to_linear_layout([16]).bases
        [('register', []), ('lane', [[1], [2]]), ('warp', [[4], [8]]), ('block', [])]
        """
        return _cached_linear_layout(self, _check_shape(self, shape))

    def _build(self, shape: tuple[int, ...]) -> LinearLayout:
        raise NotImplementedError

    def _finish(self, layout: LinearLayout) -> LinearLayout:
        return canonicalize_in_dims(layout, self.IN_DIMS)

    def triton_params(self) -> dict[str, object]:
        """The parameters in Triton's camelCase spelling and order."""
        raise NotImplementedError


class DistributedLayout(Layout):
    """A register layout: in-dims ``register, lane, warp, block``.

    >>> from llc.layouts import BlockedLayout
    >>> BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0]).num_warps
    4
    """

    IN_DIMS: ClassVar[tuple[str, ...]] = DISTRIBUTED_IN_DIMS

    @property
    def threads_per_warp_total(self) -> int:
        """The warp size the layout assumes."""
        raise NotImplementedError

    @property
    def num_warps(self) -> int:
        """The number of warps per CTA the layout assumes."""
        raise NotImplementedError

    def _warps_desc(self) -> str:
        return f"the layout uses {self.num_warps} warps"

    def _threads_desc(self) -> str:
        return f"the layout assumes {self.threads_per_warp_total} threads per warp"

    def check_hardware(
        self,
        num_warps: int,
        threads_per_warp: int,
        *,
        num_warps_source: str = "num_warps",
        threads_source: str = "threads_per_warp",
    ) -> None:
        """Raise :class:`LayoutError` unless the layout fits ``num_warps`` x ``threads_per_warp``.

        ``num_warps_source`` / ``threads_source`` say where the caller's values came from (a
        flag, a module attribute, a default); the message names them.

        >>> from llc.layouts import BlockedLayout
        >>> try:
        ...     BlockedLayout([1, 1], [8, 4], [4, 2], [1, 0]).check_hardware(
        ...         4, 32, num_warps_source='"tl.num-warps"')
        ... except LayoutError as err:
        ...     print(err)
        blocked: warpsPerCTA [4, 2] multiplies to 8 warps, but "tl.num-warps" is 4
        """
        if self.num_warps != num_warps:
            raise LayoutError(
                f"{self.kind}: {self._warps_desc()}, but {num_warps_source} is {num_warps}"
            )
        if self.threads_per_warp_total != threads_per_warp:
            raise LayoutError(
                f"{self.kind}: {self._threads_desc()}, but {threads_source} is {threads_per_warp}"
            )


class LayoutOnParent(DistributedLayout):
    """A distributed layout defined on a ``parent`` one (``slice``, ``dot_op``): it runs on the
    parent's threads and warps, and a CTA that does not fit is reported as the parent's.

    >>> from llc.layouts import BlockedLayout, SliceLayout
    >>> s = SliceLayout(0, BlockedLayout([1, 1], [8, 8], [2, 1], [1, 0]))
    >>> s.threads_per_warp_total, s.num_warps
    (64, 2)
    >>> try:
    ...     s.check_hardware(4, 64)
    ... except LayoutError as err:
    ...     print(err)
    slice: parent blocked: warpsPerCTA [2, 1] multiplies to 2 warps, but num_warps is 4
    >>> from llc.layouts import AmdMfmaLayout, DotOperandLayout, NvidiaMmaLayout
    >>> DotOperandLayout(0, AmdMfmaLayout(3, [1, 1], [16, 16], False), 4).threads_per_warp_total
    64
    >>> a = DotOperandLayout(0, NvidiaMmaLayout(2, 0, [2, 2], [16, 8]), 2)
    >>> a.num_warps, a.check_hardware(4, 32)
    (4, None)
    """

    parent: DistributedLayout  # a dataclass field of each subclass

    @property
    def threads_per_warp_total(self) -> int:
        """The parent's warp size."""
        return self.parent.threads_per_warp_total

    @property
    def num_warps(self) -> int:
        """The parent's number of warps."""
        return self.parent.num_warps

    def check_hardware(
        self,
        num_warps: int,
        threads_per_warp: int,
        *,
        num_warps_source: str = "num_warps",
        threads_source: str = "threads_per_warp",
    ) -> None:
        """Check the parent, naming it in the message."""
        try:
            self.parent.check_hardware(
                num_warps,
                threads_per_warp,
                num_warps_source=num_warps_source,
                threads_source=threads_source,
            )
        except LayoutError as err:
            raise LayoutError(f"{self.kind}: parent {err}") from None


class SharedLayout(Layout):
    """A shared-memory layout: in-dims ``offset, block``.

    >>> from llc.layouts import SwizzledSharedLayout
    >>> SwizzledSharedLayout(1, 1, 1, [1, 0]).to_linear_layout([2, 2]).get_in_dim_names()
    ['offset', 'block']
    """

    IN_DIMS: ClassVar[tuple[str, ...]] = SHARED_IN_DIMS


def normalize_cta(family: str, cta: Any, rank: int | None) -> CTALayout | None:
    """Validate an optional :class:`CTALayout`; the default one of the rank becomes ``None``.

    >>> normalize_cta("blocked", CTALayout.default(2), 2) is None
    True
    """
    if cta is None:
        return None
    if not isinstance(cta, CTALayout):
        raise LayoutError(f"{family}: cta_layout must be a CTALayout or None, got {cta!r}")
    if rank is not None and cta.rank != rank:
        raise LayoutError(
            f"{family}: CTAsPerCGA/CTASplitNum/CTAOrder have rank {cta.rank}, but the layout has "
            f"rank {rank}"
        )
    return None if cta.is_default() else cta


def cta_params(cta: CTALayout | None) -> dict[str, object]:
    """The CTA parameters to print: none for the default CGA.

    >>> cta_params(None)
    {}
    """
    return {} if cta is None else cta.triton_params()
