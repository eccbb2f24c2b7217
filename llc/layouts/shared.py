"""Shared-memory layouts: ``#ttg.swizzled_shared``, ``#ttg.nvmma_shared``, ``#ttg.shared_linear``.

They map a shared-memory ``offset`` (and ``block``) to a tensor index. A swizzled layout
(seed 003) stores row ``i`` with its ``vec``-element groups XOR-ed by the phase
``(i / perPhase) % maxPhase``: offset bit ``log2(N) + j`` (row ``2^j``) maps to
``(2^j, vec * ((2^j / perPhase) % maxPhase) % N)``, column bits map to themselves, and dims past
``order[1]`` are stacked on top in ``order``. ``vec=1, perPhase=2, maxPhase=2`` on an 8x4
tensor stores rows 2, 3, 6, 7 with neighbouring columns swapped:

>>> L = SwizzledSharedLayout(1, 2, 2, [1, 0]).to_linear_layout([8, 4])
>>> [L.apply({"offset": o, "block": 0}) for o in (8, 9)]
[{'dim0': 2, 'dim1': 1}, {'dim0': 2, 'dim1': 0}]

The NVMMA layout is the tensor-core/TMA format: an 8-row core matrix ``swizzlingByteWidth``
bytes wide (16 bytes when 0), swizzled in 16-byte units with ``(perPhase, maxPhase)`` =
(4, 2), (2, 4), (1, 8) for 32, 64, 128 bytes, tiled over the TMA block and then the tensor.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import prod
from typing import Any

from llc.errors import LayoutError
from llc.layouts.common import (
    SHARED_IN_DIMS,
    CTALayout,
    SharedLayout,
    check_bool,
    check_int,
    check_permutation,
    combine_cta_cga_with_shape,
    cta_params,
    ensure_layout_not_smaller_than,
    format_list,
    identity_standard_nd,
    is_pow2,
    normalize_cta,
    normalize_int_tuple,
    reshape_layout,
    standard_out_dim_names,
    transpose_bases,
)
from llc.layouts.linear import Bases, bases_rank, normalize_bases
from llc.linear_layout import LinearLayout

__all__ = [
    "AmdRotatingSharedLayout",
    "NvmmaSharedLayout",
    "PaddedSharedLayout",
    "PartitionedSharedLayout",
    "SharedLinearLayout",
    "SwizzledSharedLayout",
]


def shape_per_cta(cga: CTALayout, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The part of ``shape`` one CTA holds (``shape / CTASplitNum``, at least 1).

    >>> shape_per_cta(CTALayout([2, 1], [2, 1], [1, 0]), (64, 32))
    (32, 32)
    """
    return tuple(s // min(s, k) for s, k in zip(shape, cga.cta_split_num, strict=True))


@dataclass(frozen=True)
class SwizzledSharedLayout(SharedLayout):
    """Triton's ``SwizzledSharedEncodingAttr``.

    >>> SwizzledSharedLayout(2, 1, 4, [1, 0]).to_linear_layout([4, 8]).bases[0]
    ('offset', [[0, 1], [0, 2], [0, 4], [1, 2], [2, 4]])
    """

    vec: int
    per_phase: int
    max_phase: int
    order: tuple[int, ...]
    cta_layout: CTALayout | None = None

    kind = "swizzled_shared"

    def __post_init__(self) -> None:
        fam = self.kind
        for attr, param in (("vec", "vec"), ("per_phase", "perPhase"), ("max_phase", "maxPhase")):
            value = check_int(fam, param, getattr(self, attr))
            if not is_pow2(value):
                raise LayoutError(f"{fam}: {param} {value} must be a power of two")
            object.__setattr__(self, attr, value)
        order = normalize_int_tuple(fam, "order", self.order)
        object.__setattr__(self, "order", order)
        if not order:
            raise LayoutError(f"{fam}: order must not be empty")
        check_permutation(fam, "order", order, len(order))
        object.__setattr__(self, "cta_layout", normalize_cta(fam, self.cta_layout, len(order)))

    @property
    def rank(self) -> int:
        """Length of ``order``.

        >>> SwizzledSharedLayout(1, 1, 1, [2, 1, 0]).rank
        3
        """
        return len(self.order)

    @property
    def cga(self) -> CTALayout:
        """The CGA layout, defaulted.

        >>> SwizzledSharedLayout(1, 1, 1, [0]).cga.ctas_per_cga
        (1,)
        """
        return self.cta_layout or CTALayout.default(self.rank)

    def _build(self, shape: tuple[int, ...]) -> LinearLayout:
        names = standard_out_dim_names(self.rank)
        per_cta = shape_per_cta(self.cga, shape)
        if self.rank == 1:
            tile = LinearLayout.identity_1d(per_cta[0], "offset", "dim0")
            return self._finish(combine_cta_cga_with_shape(tile, self.cga, shape))
        col_dim, row_dim = self.order[0], self.order[1]
        num_cols, num_rows = per_cta[col_dim], per_cta[row_dim]
        bases: list[list[int]] = []
        col = 1
        while col < num_cols:
            bases.append([0, col])
            col *= 2
        row = 1
        while row < num_rows:
            bases.append([row, (self.vec * self._phase(row)) % num_cols])
            row *= 2
        tile = LinearLayout.from_bases([("offset", bases)], [names[row_dim], names[col_dim]])
        for dim in self.order[2:]:
            tile = tile * LinearLayout.identity_1d(per_cta[dim], "offset", names[dim])
        return self._finish(combine_cta_cga_with_shape(tile, self.cga, shape))

    def _phase(self, row: int) -> int:
        """The phase of row ``row``: its ``vec``-groups are XOR-ed by it."""
        return (row // self.per_phase) % self.max_phase

    def triton_params(self) -> dict[str, object]:
        """``vec, perPhase, maxPhase, order`` (+ CTA parameters when not the default).

        >>> SwizzledSharedLayout(8, 1, 8, [1, 0]).triton_params()
        {'vec': 8, 'perPhase': 1, 'maxPhase': 8, 'order': [1, 0]}
        """
        return {
            "vec": self.vec,
            "perPhase": self.per_phase,
            "maxPhase": self.max_phase,
            "order": list(self.order),
            **cta_params(self.cta_layout),
        }


@dataclass(frozen=True)
class AmdRotatingSharedLayout(SwizzledSharedLayout):
    """Triton's ``AMDRotatingSharedEncodingAttr`` (``#ttg.amd_rotating_shared``): a swizzled
    layout whose phase also rotates from one block of ``maxPhase * perPhase`` rows to the
    next (phase XOR ``(row / perPhase / maxPhase) % maxPhase``), so that rows a phase period
    apart do not share banks.

    >>> AmdRotatingSharedLayout(1, 1, 2, [1, 0]).to_linear_layout([4, 2]).bases[0]
    ('offset', [[0, 1], [1, 1], [2, 1]])
    >>> SwizzledSharedLayout(1, 1, 2, [1, 0]).to_linear_layout([4, 2]).bases[0]
    ('offset', [[0, 1], [1, 1], [2, 0]])
    """

    kind = "amd_rotating_shared"

    def _phase(self, row: int) -> int:
        phase = (row // self.per_phase) % self.max_phase
        block = row // self.max_phase // self.per_phase % self.max_phase
        return phase ^ block


NVMMA_SWIZZLES = (0, 32, 64, 128)


@dataclass(frozen=True)
class NvmmaSharedLayout(SharedLayout):
    """Triton's ``NVMMASharedEncodingAttr`` (the layout TMA and ``wgmma``/``tcgen05`` read).

    Without ``cta_layout`` the layout accepts any rank (its nominal ``rank`` is 2, the rank of
    Triton's default CGA for this attribute); with one, the shape must have its rank.

    >>> n = NvmmaSharedLayout(128, False, 16)
    >>> (n.vec, n.per_phase, n.max_phase)
    (8, 1, 8)
    >>> n.to_linear_layout([8, 64]).bases[0][1][6:]
    [[1, 8], [2, 16], [4, 32]]
    """

    swizzling_byte_width: int
    transposed: bool
    element_bit_width: int
    fp4_padded: bool = False
    cta_layout: CTALayout | None = None

    kind = "nvmma_shared"

    def __post_init__(self) -> None:
        fam = self.kind
        swizzle = check_int(fam, "swizzlingByteWidth", self.swizzling_byte_width)
        if swizzle not in NVMMA_SWIZZLES:
            raise LayoutError(f"{fam}: swizzlingByteWidth {swizzle} must be 0, 32, 64 or 128")
        object.__setattr__(self, "swizzling_byte_width", swizzle)
        object.__setattr__(self, "transposed", check_bool(fam, "transposed", self.transposed))
        width = check_int(fam, "elementBitWidth", self.element_bit_width)
        if not is_pow2(width) or not 4 <= width <= 64:
            raise LayoutError(f"{fam}: elementBitWidth {width} must be a power of two in [4, 64]")
        object.__setattr__(self, "element_bit_width", width)
        object.__setattr__(self, "fp4_padded", check_bool(fam, "fp4Padded", self.fp4_padded))
        cta = self.cta_layout
        if cta is not None and not isinstance(cta, CTALayout):
            raise LayoutError(f"{fam}: cta_layout must be a CTALayout or None, got {cta!r}")
        # Triton prints (and so distinguishes) any CGA but the default rank-2 one here, so a
        # rank-3 default CGA is kept: it fixes the rank.
        if cta is not None and cta == CTALayout.default(2):
            object.__setattr__(self, "cta_layout", None)

    @property
    def rank(self) -> int:
        """The CGA's rank when given, else 2.

        >>> NvmmaSharedLayout(0, False, 16).rank
        2
        """
        return self.cta_layout.rank if self.cta_layout is not None else 2

    def _check_rank(self, shape: tuple[int, ...]) -> None:
        if self.cta_layout is not None and len(shape) != self.cta_layout.rank:
            raise LayoutError(
                f"{self.kind}: shape {format_list(shape)} has rank {len(shape)}, but "
                f"CTAsPerCGA/CTASplitNum/CTAOrder have rank {self.cta_layout.rank}"
            )
        if not shape:
            raise LayoutError(f"{self.kind}: shape must not be empty")

    @property
    def vec(self) -> int:
        """Elements per 16-byte swizzle unit (1 without swizzling).

        >>> NvmmaSharedLayout(64, False, 32).vec
        4
        """
        return 1 if self.swizzling_byte_width == 0 else 128 // self.element_bit_width

    @property
    def per_phase(self) -> int:
        """Rows per phase: ``128 / swizzlingByteWidth``.

        >>> NvmmaSharedLayout(32, False, 16).per_phase
        4
        """
        return 1 if self.swizzling_byte_width == 0 else 128 // self.swizzling_byte_width

    @property
    def max_phase(self) -> int:
        """Number of phases: ``swizzlingByteWidth / 16``.

        >>> NvmmaSharedLayout(32, False, 16).max_phase
        2
        """
        return 1 if self.swizzling_byte_width == 0 else self.swizzling_byte_width // 16

    def core_matrix(self) -> LinearLayout:
        """The 8-row swizzled core matrix (``dim0`` = rows, ``dim1`` = contiguous columns).

        >>> NvmmaSharedLayout(32, False, 16).core_matrix().bases
        [('offset', [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 8]])]
        """
        tile_cols = 8 * max(16, self.swizzling_byte_width) // self.element_bit_width
        bases: list[list[int]] = []
        col = 1
        while col < tile_cols:
            # fp4Padded: each 16 offsets hold 8 real and 8 padding columns; the padding maps
            # onto the real ones so that inverting picks the real offsets.
            bases.append([0, col // 16 * 8 + col % 8 if self.fp4_padded else col])
            col *= 2
        row = 1
        while row < 8:
            swizzled = self.vec * ((row // self.per_phase) % self.max_phase)
            if self.fp4_padded:
                swizzled = swizzled // 16 * 8 + swizzled % 8
            bases.append([row, swizzled])
            row *= 2
        return LinearLayout.from_bases([("offset", bases)], ["dim0", "dim1"])

    def tma_block_shape(self, per_cta: tuple[int, ...]) -> tuple[int, ...]:
        """The TMA box: every dim at most 256, the contiguous one exactly the swizzle width.

        >>> NvmmaSharedLayout(64, False, 32).tma_block_shape((32, 4, 64))
        (32, 4, 16)
        """
        block = list(per_cta)
        contig = 0 if self.transposed else len(block) - 1
        if self.fp4_padded:
            block[contig] *= 2
        block = [min(s, 256) for s in block]
        if self.swizzling_byte_width:
            width = 8 * self.swizzling_byte_width // self.element_bit_width
            if block[contig] < width:
                raise LayoutError(
                    f"{self.kind}: shape per CTA {format_list(per_cta)} is too small for "
                    f"swizzlingByteWidth {self.swizzling_byte_width}: the contiguous dim {contig} "
                    f"needs at least {width // (2 if self.fp4_padded else 1)} elements"
                )
            block[contig] = width
        if self.fp4_padded:
            block[contig] //= 2
        return tuple(block)

    def _build(self, shape: tuple[int, ...]) -> LinearLayout:
        rank = len(shape)
        cga = self.cta_layout or CTALayout.default(rank)
        names = standard_out_dim_names(rank)
        per_cta = shape_per_cta(cga, shape)
        tma = self.tma_block_shape(per_cta)
        if self.swizzling_byte_width == 0:
            # Plain strides: the contiguous dim (dim0 when transposed, else the last) first,
            # then the others from the last dim down, as the swizzled path orders them.
            minor_to_major = list(range(rank - 1, -1, -1))
            if self.transposed:
                minor_to_major = [0, *minor_to_major[:-1]]
            layout = LinearLayout.empty()
            for i in minor_to_major:
                layout = layout * LinearLayout.identity_1d(tma[i], "offset", names[i])
            layout = ensure_layout_not_smaller_than(layout, dict(zip(names, per_cta, strict=True)))
            return self._finish(combine_cta_cga_with_shape(layout, cga, shape))
        if rank < 2:
            raise LayoutError(
                f"{self.kind}: a swizzled NVMMA layout needs rank >= 2, got shape "
                f"{format_list(shape)}"
            )
        collapsed = [prod(tma[:-1]), tma[-1]]
        if self.transposed:
            collapsed.reverse()
        tile = self.core_matrix()
        rows, cols = tile.get_out_dim_size("dim0"), tile.get_out_dim_size("dim1")
        packing = 2 if self.fp4_padded else 1
        if collapsed[1] * packing < cols or collapsed[0] < rows:
            raise LayoutError(
                f"{self.kind}: shape {format_list(shape)} is too small for the "
                f"{rows}x{cols // packing} core matrix of swizzlingByteWidth "
                f"{self.swizzling_byte_width} with elementBitWidth {self.element_bit_width}"
            )
        layout = ensure_layout_not_smaller_than(tile, {"dim0": collapsed[0], "dim1": collapsed[1]})
        target = list(tma)
        if self.transposed:
            # The transposed layout is built with the contiguous dim last, then rotated back.
            target = target[1:] + target[:1]
        layout = reshape_layout(layout, target)
        if self.transposed:
            layout = transpose_bases(layout, [rank - 1, *range(rank - 1)])
        layout = ensure_layout_not_smaller_than(layout, dict(zip(names, per_cta, strict=True)))
        return self._finish(combine_cta_cga_with_shape(layout, cga, shape))

    def triton_params(self) -> dict[str, object]:
        """Triton's parameters; ``fp4Padded`` only when true.

        >>> NvmmaSharedLayout(128, True, 16).triton_params()
        {'swizzlingByteWidth': 128, 'transposed': True, 'elementBitWidth': 16}
        """
        params: dict[str, object] = {
            "swizzlingByteWidth": self.swizzling_byte_width,
            "transposed": self.transposed,
            "elementBitWidth": self.element_bit_width,
        }
        if self.fp4_padded:
            params["fp4Padded"] = True
        cta = self.cta_layout
        if cta is not None and cta == CTALayout.default(cta.rank):
            params["rank"] = cta.rank  # Triton 3.9's spelling of a default CGA of that rank
        else:
            params.update(cta_params(cta))
        return params


@dataclass(frozen=True)
class SharedLinearLayout(SharedLayout):
    """Triton's ``SharedLinearEncodingAttr``: ``offset``/``block`` bases given directly.

    The layout must be surjective and, once its zero bases are removed, bijective. It is
    defined for its own shape only (no broadcasting or tiling).

    >>> S = SharedLinearLayout([[0, 1], [1, 0]], alignment=16)
    >>> S.to_linear_layout([2, 2]).bases
    [('offset', [[0, 1], [1, 0]]), ('block', [])]
    """

    offset: Bases
    block: Bases = ()
    alignment: int | None = None

    kind = "shared_linear"

    def __post_init__(self) -> None:
        fam = self.kind
        named = []
        for name in SHARED_IN_DIMS:
            bases = normalize_bases(fam, name, getattr(self, name))
            object.__setattr__(self, name, bases)
            named.append((name, bases))
        rank = bases_rank(fam, named)
        if self.alignment is not None:
            alignment = check_int(fam, "alignment", self.alignment)
            if not is_pow2(alignment):
                raise LayoutError(f"{fam}: alignment {alignment} must be a positive power of two")
            object.__setattr__(self, "alignment", alignment)
        try:
            layout = LinearLayout.from_bases(named, standard_out_dim_names(rank))
        except LayoutError as err:
            raise LayoutError(f"{fam}: invalid bases: {err}") from None
        stripped = layout.remove_zero_bases_along_dim("offset").remove_zero_bases_along_dim("block")
        if not stripped.is_invertible():
            raise LayoutError(
                f"{fam}: after removing its zero bases the layout must be bijective (offsets "
                "must not alias)"
            )

    @classmethod
    def from_linear_layout(
        cls, layout: LinearLayout, alignment: int | None = None
    ) -> SharedLinearLayout:
        """Wrap a LinearLayout with in-dims among ``offset, block``.

        >>> L = LinearLayout.identity_1d(4, "offset", "dim0")
        >>> SharedLinearLayout.from_linear_layout(L).offset
        ((1,), (2,))
        """
        extra = set(layout.get_in_dim_names()) - set(SHARED_IN_DIMS)
        if extra:
            raise LayoutError(f"shared_linear: unexpected in-dims {sorted(extra)}")
        bases = dict(layout.bases)
        return cls(
            tuple(map(tuple, bases.get("offset", []))),
            tuple(map(tuple, bases.get("block", []))),
            alignment,
        )

    @property
    def rank(self) -> int:
        """Width of the bases.

        >>> SharedLinearLayout([[1, 0, 0]]).rank
        3
        """
        return len((self.offset or self.block)[0])

    def linear_layout(self) -> LinearLayout:
        """The bases as a LinearLayout (out sizes inferred).

        >>> SharedLinearLayout([[1], [2]]).linear_layout().out_dims
        [('dim0', 4)]
        """
        named = [(n, [list(b) for b in getattr(self, n)]) for n in SHARED_IN_DIMS]
        return LinearLayout.from_bases(named, standard_out_dim_names(self.rank))

    def _build(self, shape: tuple[int, ...]) -> LinearLayout:
        layout = self.linear_layout()
        sizes = tuple(layout.get_out_dim_size(n) for n in layout.get_out_dim_names())
        if sizes != shape:
            raise LayoutError(
                f"{self.kind}: the bases describe shape {format_list(sizes)}, but the tensor "
                f"has shape {format_list(shape)} (shared linear layouts are not broadcast or tiled)"
            )
        return self._finish(layout)

    def triton_params(self) -> dict[str, object]:
        """``offset``, ``block`` (only when non-empty) and ``alignment`` (when set).

        >>> SharedLinearLayout([[1]], alignment=16).triton_params()
        {'offset': [[1]], 'alignment': 16}
        """
        params: dict[str, Any] = {"offset": [list(b) for b in self.offset]}
        if self.block:
            params["block"] = [list(b) for b in self.block]
        if self.alignment is not None:
            params["alignment"] = self.alignment
        return params


@dataclass(frozen=True)
class PaddedSharedLayout(SharedLayout):
    """Triton's ``#ttg.padded_shared<[128:+8] {order = [1, 0], shape = [16, 128]}>`` (AMD's
    bank-conflict padding): a linear component, offset -> tensor index (given by its bases,
    ``{offset = [...], block = [...]}``, or as the identity over ``shape`` in ``order``), and
    ``paddings[i]`` unused elements inserted after every ``intervals[i]`` elements. The
    physical offset of linear offset ``o`` is ``o + sum_i (o >> log2 interval_i) << log2
    padding_i``: not linear over F2, so :meth:`to_linear_layout` is the linear component (the
    offsets before padding, Triton keeps it as the attribute's linear component) and
    :meth:`padded_offset` adds the padding.

    >>> P = PaddedSharedLayout([128], [8], order=[1, 0], shape=[16, 128])
    >>> P.to_linear_layout([16, 128]).bases[0][1][7]
    [1, 0]
    >>> P.padded_offset(127), P.padded_offset(128), P.allocation_elements([16, 128])
    (127, 136, 2168)
    >>> P.triton_params()
    {'intervals': [128], 'paddings': [8], 'order': [1, 0], 'shape': [16, 128]}
    """

    intervals: tuple[int, ...]
    paddings: tuple[int, ...]
    offset: Bases = ()
    block: Bases = ()
    order: tuple[int, ...] | None = None
    shape: tuple[int, ...] | None = None

    kind = "padded_shared"

    def __post_init__(self) -> None:
        fam = self.kind
        intervals = normalize_int_tuple(fam, "interval", self.intervals)
        paddings = normalize_int_tuple(fam, "padding", self.paddings)
        if not intervals or len(intervals) != len(paddings):
            raise LayoutError(f"{fam}: give one padding per interval ([interval:+padding, ...])")
        for name, values in (("interval", intervals), ("padding", paddings)):
            for v in values:
                if not is_pow2(v):
                    raise LayoutError(f"{fam}: {name} {v} must be a positive power of two")
        if len(set(intervals)) != len(intervals):
            raise LayoutError(f"{fam}: intervals {format_list(intervals)} must be distinct")
        object.__setattr__(self, "intervals", intervals)
        object.__setattr__(self, "paddings", paddings)
        if self.order is not None or self.shape is not None:
            if self.order is None or self.shape is None or self.offset or self.block:
                raise LayoutError(
                    f"{fam}: give the linear component either as order and shape or as offset "
                    "(and block) bases"
                )
            order = normalize_int_tuple(fam, "order", self.order)
            shape = normalize_int_tuple(fam, "shape", self.shape)
            check_permutation(fam, "order", order, len(shape))
            for s in shape:
                if not is_pow2(s):
                    raise LayoutError(f"{fam}: shape {format_list(shape)} must be powers of two")
            object.__setattr__(self, "order", order)
            object.__setattr__(self, "shape", shape)
            ll = identity_standard_nd("offset", shape, order).transpose_outs(
                standard_out_dim_names(len(shape))
            )
            object.__setattr__(self, "offset", tuple(tuple(b) for b in ll.bases[0][1]))
            object.__setattr__(self, "block", ())
        # The linear component obeys shared_linear's rules (bijective once zero bases go).
        linear = SharedLinearLayout(self.offset, self.block)
        object.__setattr__(self, "offset", linear.offset)
        object.__setattr__(self, "block", linear.block)

    @property
    def rank(self) -> int:
        """Width of the bases.

        >>> PaddedSharedLayout([4], [4], [[1, 0], [0, 1]]).rank
        2
        """
        return len((self.offset or self.block)[0])

    def padded_offset(self, offset: int) -> int:
        """The physical offset (in elements) of linear ``offset``.

        >>> PaddedSharedLayout([4, 8], [1, 2], [[1], [2], [4], [8]]).padded_offset(9)
        13
        """
        extra = 0
        for interval, padding in zip(self.intervals, self.paddings, strict=True):
            extra += (offset >> (interval.bit_length() - 1)) << (padding.bit_length() - 1)
        return offset + extra

    def allocation_elements(self, shape: Sequence[int]) -> int:
        """Elements one CTA allocates for a buffer of ``shape``, padding included (none after
        the last element).

        >>> P = PaddedSharedLayout([4], [4], [[1, 0], [2, 0], [0, 1], [0, 2]])
        >>> P.allocation_elements([4, 4])
        28
        """
        return self.padded_offset(prod(shape) - 1) + 1

    def _build(self, shape: tuple[int, ...]) -> LinearLayout:
        linear = SharedLinearLayout(self.offset, self.block).linear_layout()
        sizes = tuple(linear.get_out_dim_size(n) for n in linear.get_out_dim_names())
        if sizes != shape:
            raise LayoutError(
                f"{self.kind}: the linear component describes shape {format_list(sizes)}, but "
                f"the tensor has shape {format_list(shape)}"
            )
        return self._finish(linear)

    def triton_params(self) -> dict[str, object]:
        """``intervals``, ``paddings``, then ``order`` and ``shape`` or ``offset`` and
        ``block``, as the layout was given (Triton's attribute prints the pairs before the
        dictionary: :class:`~llc.dialects.layout_attrs.PaddedSharedEncodingAttr`).

        >>> PaddedSharedLayout([4], [4], [[1]]).triton_params()
        {'intervals': [4], 'paddings': [4], 'offset': [[1]], 'block': []}
        """
        params: dict[str, object] = {
            "intervals": list(self.intervals),
            "paddings": list(self.paddings),
        }
        if self.order is not None and self.shape is not None:
            return params | {"order": list(self.order), "shape": list(self.shape)}
        return params | {
            "offset": [list(b) for b in self.offset],
            "block": [list(b) for b in self.block],
        }


@dataclass(frozen=True)
class PartitionedSharedLayout(SharedLayout):
    """Triton's ``#ttg.partitioned_shared<{numPartitions = 2, numGroups = 2, partitionDim = 0,
    partitionLayout = #shared}>`` (AMD gfx1250): the tensor is cut along ``partitionDim`` into
    ``numPartitions * numGroups`` pieces, each laid out by ``partitionLayout``, and the pieces
    are spread over ``numPartitions`` buffers that the allocator places in different physical
    shared-memory partitions (so that accesses to neighbouring pieces do not conflict).

    One linear map from an offset to the tensor does not describe buffers at unrelated
    addresses, so llc reads, checks and prints this layout and keeps it on the buffers, but
    :meth:`to_linear_layout` (what a conversion through the buffer would need) is a
    :class:`~llc.errors.LayoutError`.

    >>> inner = SwizzledSharedLayout(2, 2, 4, [1, 0])
    >>> P = PartitionedSharedLayout(2, 4, 0, inner)
    >>> P.rank, P.triton_params()["numGroups"]
    (2, 4)
    >>> PartitionedSharedLayout(3, 1, 0, inner)
    Traceback (most recent call last):
    ...
    llc.errors.LayoutError: partitioned_shared: numPartitions 3 must be a positive power of two
    >>> from llc.layouts.blocked import BlockedLayout
    >>> for bad in (BlockedLayout([1], [32], [4], [0]), P):  # not a shared layout, nested
    ...     try:
    ...         PartitionedSharedLayout(2, 1, 0, bad)
    ...     except LayoutError as err:
    ...         print(str(err).split(", got ")[1])
    'blocked'
    'partitioned_shared'
    >>> PartitionedSharedLayout(2, 1, 2, inner)
    Traceback (most recent call last):
    ...
    llc.errors.LayoutError: partitioned_shared: partitionDim 2 is not a dim of the rank-2 layout
    """

    num_partitions: int
    num_groups: int
    partition_dim: int
    partition_layout: SharedLayout

    kind = "partitioned_shared"

    def __post_init__(self) -> None:
        fam = self.kind
        for name, value in (("numPartitions", self.num_partitions), ("numGroups", self.num_groups)):
            if not is_pow2(check_int(fam, name, value)):
                raise LayoutError(f"{fam}: {name} {value} must be a positive power of two")
        inner = self.partition_layout
        if not isinstance(inner, SharedLayout) or isinstance(inner, PartitionedSharedLayout):
            raise LayoutError(
                f"{fam}: partitionLayout must be a shared layout that is not partitioned, "
                f"got {getattr(inner, 'kind', inner)!r}"
            )
        dim = check_int(fam, "partitionDim", self.partition_dim)
        if not 0 <= dim < inner.rank:
            raise LayoutError(
                f"{fam}: partitionDim {dim} is not a dim of the rank-{inner.rank} layout"
            )

    @property
    def rank(self) -> int:
        return self.partition_layout.rank

    def _check_rank(self, shape: tuple[int, ...]) -> None:
        self.partition_layout._check_rank(shape)

    def _build(self, shape: tuple[int, ...]) -> LinearLayout:
        raise LayoutError(
            f"{self.kind}: llc does not model the placement of a partitioned buffer's pieces "
            "(no linear layout for it)"
        )

    def triton_params(self) -> dict[str, object]:
        return {
            "numPartitions": self.num_partitions,
            "numGroups": self.num_groups,
            "partitionDim": self.partition_dim,
            "partitionLayout": self.partition_layout,
        }
