"""AMD matrix-core layouts: ``#ttg.amd_mfma`` (CDNA, 64-lane waves) and ``#ttg.amd_wmma`` (RDNA).

MFMA (seed 003): for a 32x32 output each of the 64 lanes holds 16 elements; 4 consecutive rows
in registers, then a gap of 4 rows that the upper 32 lanes fill. With bases written as
``(N, M)`` (fastest out-dim first, before the reordering to ``dim0, dim1``) the tile is
``register [[0,1],[0,2],[0,8],[0,16]]`` and ``lane [[1,0],[2,0],[4,0],[8,0],[16,0],[0,4]]``;
the 16x16 tile is ``register [[0,1],[0,2]]``, ``lane [[1,0],[2,0],[4,0],[8,0],[0,4],[0,8]]``.
``isTransposed`` swaps the roles of M and N inside the tile. Tiles are then repeated
``tilesPerWarp`` times and spread over warps N-contiguously across the whole tensor.

WMMA: 32-lane waves, a 16x16 tile. Version 1 holds every other row per lane and duplicates the
two half-waves; versions 2 and 3 hold 8 consecutive rows, the upper half-wave rows 8..15.

>>> tile = AmdMfmaLayout(3, [1, 1], [32, 32], False).instruction_tile()
>>> dict(tile.bases)["register"], dict(tile.bases)["lane"][4:]
([[0, 1], [0, 2], [0, 8], [0, 16]], [[16, 0], [0, 4]])
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from llc.errors import LayoutError
from llc.layouts.common import (
    CTALayout,
    DistributedLayout,
    broadcasted_dot_operand_layout,
    check_bool,
    check_int,
    check_pow2_list,
    combine_cta_cga_with_shape,
    cta_params,
    format_list,
    get_matrix_order,
    get_order_for_dot_operand,
    identity_1d,
    identity_standard_nd,
    is_pow2,
    normalize_cta,
    normalize_int_tuple,
    standard_out_dim_names,
)
from llc.linear_layout import LinearLayout

__all__ = [
    "AmdMfmaLayout",
    "AmdWmmaLayout",
    "mfma_dot_to_linear_layout",
    "wmma_dot_to_linear_layout",
]

MFMA_WARP_SIZE = 64
WMMA_WARP_SIZE = 32
MFMA_VALID_MN = ((32, 32), (16, 16), (64, 4), (4, 64))
WMMA_DEFAULT_INSTR_SHAPE = (16, 16, 16)
WMMA_VALID_INSTR_SHAPES = {
    1: ((16, 16, 16),),
    2: ((16, 16, 16), (16, 16, 32)),
    3: ((16, 16, 4), (16, 16, 32), (16, 16, 64), (16, 16, 128)),
}


def _check_mma_warps(family: str, warps: tuple[int, ...]) -> None:
    if len(warps) not in (2, 3):
        raise LayoutError(f"{family}: warpsPerCTA {format_list(warps)} must have rank 2 or 3")
    check_pow2_list(family, "warpsPerCTA", warps)


@dataclass(frozen=True)
class AmdMfmaLayout(DistributedLayout):
    """Triton's ``AMDMfmaEncodingAttr`` (64-lane waves).

    ``instr_shape`` is ``[M, N]`` or ``[M, N, K]``; ``(M, N)`` is one of 32x32, 16x16, 64x4
    (which must be transposed) or 4x64. ``element_bit_width`` (Triton's ``elementBitWidth``,
    32 or 64) is an llc extension field: with 64 a lane holds one element per row group.

    >>> m = AmdMfmaLayout(3, [2, 4], [32, 32, 8], True)
    >>> m.threads_per_warp_total, m.num_warps, m.triton_params()["isTransposed"]
    (64, 8, True)
    """

    version: int
    warps_per_cta: tuple[int, ...]
    instr_shape: tuple[int, ...]
    is_transposed: bool
    tiles_per_warp: tuple[int, ...] | None = None
    cta_layout: CTALayout | None = None
    element_bit_width: int = 32

    kind = "amd_mfma"

    def __post_init__(self) -> None:
        fam = self.kind
        version = check_int(fam, "version", self.version)
        if not 0 <= version <= 4:
            raise LayoutError(f"{fam}: version {version} must be in the [0, 4] range")
        object.__setattr__(self, "version", version)
        warps = normalize_int_tuple(fam, "warpsPerCTA", self.warps_per_cta)
        object.__setattr__(self, "warps_per_cta", warps)
        _check_mma_warps(fam, warps)
        instr = normalize_int_tuple(fam, "instrShape", self.instr_shape)
        object.__setattr__(self, "instr_shape", instr)
        if len(instr) not in (2, 3):
            raise LayoutError(f"{fam}: instrShape {format_list(instr)} must be [M, N] or [M, N, K]")
        if (instr[0], instr[1]) not in MFMA_VALID_MN:
            raise LayoutError(
                f"{fam}: instrShape {format_list(instr)} is unsupported; (M, N) must be one of "
                "(32, 32), (16, 16), (64, 4), (4, 64)"
            )
        if len(instr) == 3 and not is_pow2(instr[2]):
            raise LayoutError(
                f"{fam}: instrShape {format_list(instr)} has K={instr[2]}, not a power of two"
            )
        transposed = check_bool(fam, "isTransposed", self.is_transposed)
        object.__setattr__(self, "is_transposed", transposed)
        if (instr[0], instr[1]) == (64, 4) and not transposed:
            raise LayoutError(
                f"{fam}: instrShape {format_list(instr)} (64x4) requires isTransposed = true"
            )
        if self.tiles_per_warp is not None:
            tpw = normalize_int_tuple(fam, "tilesPerWarp", self.tiles_per_warp)
            if len(tpw) != len(warps):
                raise LayoutError(
                    f"{fam}: tilesPerWarp {format_list(tpw)} has rank {len(tpw)}, but warpsPerCTA "
                    f"{format_list(warps)} has rank {len(warps)}"
                )
            check_pow2_list(fam, "tilesPerWarp", tpw)
            object.__setattr__(self, "tiles_per_warp", None if all(t == 1 for t in tpw) else tpw)
        ebw = check_int(fam, "elementBitWidth", self.element_bit_width)
        if ebw not in (32, 64):
            raise LayoutError(f"{fam}: elementBitWidth {ebw} must be 32 or 64")
        object.__setattr__(self, "element_bit_width", ebw)
        object.__setattr__(self, "cta_layout", normalize_cta(fam, self.cta_layout, len(warps)))

    @property
    def rank(self) -> int:
        """2, or 3 with a leading batch dim.

        >>> AmdMfmaLayout(3, [1, 2, 2], [16, 16], False).rank
        3
        """
        return len(self.warps_per_cta)

    @property
    def cga(self) -> CTALayout:
        """The CGA layout, defaulted.

        >>> AmdMfmaLayout(3, [2, 2], [16, 16], False).cga.cta_order
        (1, 0)
        """
        return self.cta_layout or CTALayout.default(self.rank)

    @property
    def tiles(self) -> tuple[int, ...]:
        """``tilesPerWarp`` with its all-ones default.

        >>> AmdMfmaLayout(3, [2, 2], [16, 16], False).tiles
        (1, 1)
        """
        return self.tiles_per_warp or (1,) * self.rank

    @property
    def threads_per_warp_total(self) -> int:
        """Always 64.

        >>> AmdMfmaLayout(3, [2, 2], [16, 16], False).threads_per_warp_total
        64
        """
        return MFMA_WARP_SIZE

    @property
    def num_warps(self) -> int:
        """Product of ``warpsPerCTA``.

        >>> AmdMfmaLayout(3, [2, 4], [16, 16], False).num_warps
        8
        """
        return prod(self.warps_per_cta)

    def _warps_desc(self) -> str:
        return f"warpsPerCTA {format_list(self.warps_per_cta)} multiplies to {self.num_warps} warps"

    def _threads_desc(self) -> str:
        return "MFMA layouts assume 64 threads per warp (wave64)"

    def instruction_tile(self) -> LinearLayout:
        """One MFMA output tile, out-dims ``(N, M)`` (the fastest first) as in seed 003.

        >>> AmdMfmaLayout(3, [1, 1], [16, 16], False).instruction_tile().bases
        [('register', [[0, 1], [0, 2]]), ('lane', [[1, 0], [2, 0], [4, 0], [8, 0], [0, 4], [0, 8]])]
        """
        names = standard_out_dim_names(self.rank)
        order = get_matrix_order(self.rank, True)
        dim_m, dim_n = names[order[1]], names[order[0]]
        m, n = self.instr_shape[0], self.instr_shape[1]
        height = 1 if self.element_bit_width == 64 else 4
        tiles = (m * n) // (MFMA_WARP_SIZE * height)
        # Transposing swaps which of M/N the registers and the first lanes walk along.
        regs_dim, lane_first, first_size, lane_second = (
            (dim_n, dim_m, m, dim_n) if self.is_transposed else (dim_m, dim_n, n, dim_m)
        )
        tile = LinearLayout.identity_1d(height, "register", regs_dim) * (
            LinearLayout.identity_1d(first_size, "lane", lane_first)
            * LinearLayout.identity_1d(MFMA_WARP_SIZE // first_size, "lane", lane_second)
        )
        tile = tile * identity_1d(tiles, "register", regs_dim)
        return tile.transpose_outs([dim_n, dim_m])

    def _build(self, shape: tuple[int, ...]) -> LinearLayout:
        rank = self.rank
        names = standard_out_dim_names(rank)
        order = get_matrix_order(rank, True)
        dim_m, dim_n = names[order[1]], names[order[0]]
        m_idx, n_idx = rank - 2, rank - 1
        n = self.instr_shape[1]
        tiles, warps = self.tiles, self.warps_per_cta
        tile = self.instruction_tile()
        # Tiles are N-contiguous over the whole tensor (not per CTA tile), then M: that is the
        # order the dot lowering walks them in.
        tile = tile * LinearLayout.identity_1d(tiles[n_idx], "register", dim_n)
        tile = tile * LinearLayout.identity_1d(warps[n_idx], "warp", dim_n)
        tile = tile * identity_1d(
            shape[n_idx] // (n * warps[n_idx] * tiles[n_idx]), "register", dim_n
        )
        tile = tile * LinearLayout.identity_1d(tiles[m_idx], "register", dim_m)
        tile = tile * LinearLayout.identity_1d(warps[m_idx], "warp", dim_m)
        if rank == 3:
            batch = names[order[2]]
            tile = tile * LinearLayout.identity_1d(1, "register", batch)
            tile = tile * LinearLayout.identity_1d(1, "lane", batch)
            tile = tile * LinearLayout.identity_1d(warps[0], "warp", batch)
        return self._finish(combine_cta_cga_with_shape(tile, self.cga, shape))

    def triton_params(self) -> dict[str, object]:
        """Triton's parameters; ``tilesPerWarp``/``elementBitWidth`` only when not the default.

        >>> params = AmdMfmaLayout(3, [2, 2], [32, 32, 8], False, [2, 2]).triton_params()
        >>> list(params), params["tilesPerWarp"]
        (['version', 'warpsPerCTA', 'instrShape', 'isTransposed', 'tilesPerWarp'], [2, 2])
        """
        params: dict[str, object] = {
            "version": self.version,
            "warpsPerCTA": list(self.warps_per_cta),
            "instrShape": list(self.instr_shape),
            "isTransposed": self.is_transposed,
            **cta_params(self.cta_layout),
        }
        if self.tiles_per_warp is not None:
            params["tilesPerWarp"] = list(self.tiles_per_warp)
        if self.element_bit_width != 32:
            params["elementBitWidth"] = self.element_bit_width
        return params


def mfma_dot_to_linear_layout(
    mfma: AmdMfmaLayout, op_idx: int, k_width: int, shape: tuple[int, ...]
) -> LinearLayout:
    """Layout of an MFMA dot operand: ``kWidth`` registers along K, lanes non-K then K.

    >>> L = mfma_dot_to_linear_layout(AmdMfmaLayout(3, [1, 1], [32, 32], False), 0, 8, (32, 16))
    >>> L.bases[0]
    ('register', [[0, 1], [0, 2], [0, 4]])
    """
    rank = len(shape)
    names = standard_out_dim_names(rank)
    non_k_idx = rank - 2 if op_idx == 0 else rank - 1
    k_idx = rank - 1 if op_idx == 0 else rank - 2
    m, n = mfma.instr_shape[0], mfma.instr_shape[1]
    non_k = m if op_idx == 0 else n
    order = get_order_for_dot_operand(op_idx, rank, True)
    dim_k, dim_non_k = names[order[0]], names[order[1]]
    tile = LinearLayout.identity_1d(k_width, "register", dim_k) * (
        LinearLayout.identity_1d(non_k, "lane", dim_non_k)
        * LinearLayout.identity_1d(MFMA_WARP_SIZE // non_k, "lane", dim_k)
    )
    k_tile = MFMA_WARP_SIZE // non_k * k_width
    # The 64x64 operand of 4x64/64x4 MFMAs repeats the lane pattern 16 times along K.
    if (m, n, op_idx) in ((64, 4, 0), (4, 64, 1)):
        tile = tile * LinearLayout.identity_1d(16, "register", dim_k)
        k_tile *= 16
    if shape[k_idx] > k_tile:
        tile = tile * LinearLayout.identity_1d(shape[k_idx] // k_tile, "register", dim_k)
    tile = tile * LinearLayout.identity_1d(mfma.tiles[non_k_idx], "register", dim_non_k)
    tile = tile.transpose_outs([dim_k, dim_non_k])
    if rank == 3:
        tile = tile * LinearLayout.identity_1d(1, "register", names[order[2]])
        tile = tile * LinearLayout.identity_1d(1, "lane", names[order[2]])
    warps = identity_standard_nd("warp", mfma.warps_per_cta, get_matrix_order(rank, True))
    # For B the tile's out-dims are [K=dim0, dim1] but the warps' are [dim1, dim0]. Triton's
    # product keeps the inner (tile) order when the orders disagree; llc's product rejects
    # conflicting orders, so the warps are put in the tile's order explicitly.
    warps = warps.transpose_outs(tile.get_out_dim_names())
    return combine_cta_cga_with_shape(tile * warps, mfma.cga, shape)


@dataclass(frozen=True)
class AmdWmmaLayout(DistributedLayout):
    """Triton's ``AMDWmmaEncodingAttr`` (32-lane waves), versions 1, 2 and 3.

    >>> w = AmdWmmaLayout(2, False, [2, 4])
    >>> w.instr, w.threads_per_warp_total, w.triton_params()
    ((16, 16, 16), 32, {'version': 2, 'isTranspose': False, 'warpsPerCTA': [2, 4]})
    """

    version: int
    is_transposed: bool
    warps_per_cta: tuple[int, ...] | None
    instr_shape: tuple[int, ...] | None = None
    cta_layout: CTALayout | None = None
    cta_bases: tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]] | None = None
    """Triton 3.9's ``ctaLayout = {register = R, warp = W}``: how instruction tiles repeat
    over a thread's registers and over the warps, each basis in tiles (``[0, 1]``: the next
    tile along dim 1). ``None`` for the older ``warpsPerCTA`` grid (give ``warps_per_cta`` as
    ``None`` with it: the grid is derived)."""

    kind = "amd_wmma"

    def __post_init__(self) -> None:
        fam = self.kind
        if self.cta_bases is not None:
            regs, warps_b = (
                tuple(normalize_int_tuple(fam, f"ctaLayout {n}", b) for b in group)
                for n, group in zip(("register", "warp"), self.cta_bases, strict=True)
            )
            ranks = {len(b) for b in (*regs, *warps_b)}
            rank = len(self.warps_per_cta) if self.warps_per_cta is not None else None
            if rank is None:
                rank = ranks.pop() if len(ranks) == 1 else (2 if not ranks else -1)
            if rank not in (2, 3) or any(r != rank for r in ranks):
                raise LayoutError(f"{fam}: ctaLayout bases must all have rank 2 or 3")
            for b in (*regs, *warps_b):
                if sum(1 for v in b if v) > 1 or any(v and not is_pow2(v) for v in b):
                    raise LayoutError(
                        f"{fam}: ctaLayout basis {format_list(b)} must move by a power of two "
                        "in at most one dim"
                    )
            object.__setattr__(self, "cta_bases", (regs, warps_b))
            grid = [1] * rank
            for b in warps_b:
                for d, v in enumerate(b):
                    if v:
                        grid[d] *= 2
            if len(warps_b) != sum(grid[d].bit_length() - 1 for d in range(rank)):
                grid[rank - 2] <<= len(warps_b) - sum(g.bit_length() - 1 for g in grid)
            object.__setattr__(self, "warps_per_cta", tuple(grid))
        version = check_int(fam, "version", self.version)
        if version not in WMMA_VALID_INSTR_SHAPES:
            raise LayoutError(f"{fam}: version {version} must be in the [1, 3] range")
        object.__setattr__(self, "version", version)
        object.__setattr__(
            self, "is_transposed", check_bool(fam, "isTranspose", self.is_transposed)
        )
        warps = normalize_int_tuple(fam, "warpsPerCTA", self.warps_per_cta)
        object.__setattr__(self, "warps_per_cta", warps)
        _check_mma_warps(fam, warps)
        instr = WMMA_DEFAULT_INSTR_SHAPE
        if self.instr_shape is not None:
            instr = normalize_int_tuple(fam, "instrShape", self.instr_shape)
        if instr not in WMMA_VALID_INSTR_SHAPES[version]:
            raise LayoutError(
                f"{fam}: instrShape {format_list(instr)} is invalid for WMMA version "
                f"{version}; valid: "
                + ", ".join(format_list(s) for s in WMMA_VALID_INSTR_SHAPES[version])
            )
        object.__setattr__(
            self, "instr_shape", None if instr == WMMA_DEFAULT_INSTR_SHAPE else instr
        )
        object.__setattr__(self, "cta_layout", normalize_cta(fam, self.cta_layout, len(warps)))

    @property
    def instr(self) -> tuple[int, ...]:
        """``instrShape`` with its ``[16, 16, 16]`` default.

        >>> AmdWmmaLayout(3, False, [1, 1], [16, 16, 32]).instr
        (16, 16, 32)
        """
        return self.instr_shape or WMMA_DEFAULT_INSTR_SHAPE

    @property
    def rank(self) -> int:
        """2, or 3 with a leading batch dim.

        >>> AmdWmmaLayout(1, False, [2, 2]).rank
        2
        """
        return len(self.warps_per_cta)

    @property
    def cga(self) -> CTALayout:
        """The CGA layout, defaulted.

        >>> AmdWmmaLayout(1, False, [2, 2]).cga.ctas_per_cga
        (1, 1)
        """
        return self.cta_layout or CTALayout.default(self.rank)

    @property
    def threads_per_warp_total(self) -> int:
        """Always 32.

        >>> AmdWmmaLayout(1, False, [2, 2]).threads_per_warp_total
        32
        """
        return WMMA_WARP_SIZE

    @property
    def num_warps(self) -> int:
        """Product of ``warpsPerCTA``.

        >>> AmdWmmaLayout(1, False, [2, 2]).num_warps
        4
        """
        return prod(self.warps_per_cta)

    def _warps_desc(self) -> str:
        return f"warpsPerCTA {format_list(self.warps_per_cta)} multiplies to {self.num_warps} warps"

    def _threads_desc(self) -> str:
        return "WMMA layouts assume 32 threads per warp (wave32)"

    def _build(self, shape: tuple[int, ...]) -> LinearLayout:
        rank = self.rank
        names = standard_out_dim_names(rank)
        m_idx, n_idx = rank - 2, rank - 1
        m, n = self.instr[0], self.instr[1]
        for idx, size, param in ((m_idx, m, "M"), (n_idx, n, "N")):
            if shape[idx] != 1 and shape[idx] < size:
                raise LayoutError(
                    f"amd_wmma: shape {format_list(shape)} is unsupported: dim {idx} ({param}) "
                    f"must be 1 or at least instrShape's {size}"
                )
        thread_order = get_matrix_order(rank, not self.is_transposed)
        tile_outs = [names[thread_order[0]], names[thread_order[1]]]
        if self.version == 1:
            regs, lanes = [[0, 2], [0, 4], [0, 8]], [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1]]
        else:
            regs, lanes = [[0, 1], [0, 2], [0, 4]], [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8]]
        tile = LinearLayout.from_bases([("register", regs), ("lane", lanes)], tile_outs)
        if rank == 3:
            tile = tile * LinearLayout.identity_1d(1, "register", names[0])
            tile = tile * LinearLayout.identity_1d(1, "lane", names[0])
        row_major = get_matrix_order(rank, True)
        rep_names = [names[d] for d in row_major]
        cta = tile.transpose_outs(rep_names) * self._tiles().transpose_outs(rep_names)
        return self._finish(combine_cta_cga_with_shape(cta, self.cga, shape))

    def _tiles(self) -> LinearLayout:
        """In-dims ``register, warp`` -> instruction tiles (the product with the tile scales
        each basis by the tile's extent)."""
        names = standard_out_dim_names(self.rank)
        if self.cta_bases is None:
            return identity_standard_nd(
                "warp", self.warps_per_cta, get_matrix_order(self.rank, True)
            )
        regs, warps = self.cta_bases
        sizes = [max([b[d] for b in (*regs, *warps)] + [0]) * 2 or 1 for d in range(self.rank)]
        return LinearLayout.from_bases(
            [("register", [list(b) for b in regs]), ("warp", [list(b) for b in warps])],
            names,
            sizes,
            require_surjective=False,
        )

    def triton39_cta_layout(self) -> dict[str, object]:
        """``ctaLayout`` as Triton 3.9 writes it (``register`` left out when empty).

        >>> AmdWmmaLayout(2, False, [2, 2]).triton39_cta_layout()
        {'warp': [[0, 1], [1, 0]]}
        """
        if self.cta_bases is not None:
            regs, warps = ([list(b) for b in group] for group in self.cta_bases)
        else:
            grid = self._tiles().transpose_outs(standard_out_dim_names(self.rank))
            regs, warps = [], [list(b) for b in dict(grid.bases)["warp"]]
        return ({"register": regs} if regs else {}) | {"warp": warps}

    def triton_params(self) -> dict[str, object]:
        """Triton's parameters; ``instrShape`` only when not ``[16, 16, 16]``; ``ctaLayout``
        when the layout was given so, else ``warpsPerCTA``.

        >>> AmdWmmaLayout(3, True, [2, 2], [16, 16, 32]).triton_params()["instrShape"]
        [16, 16, 32]
        >>> AmdWmmaLayout(2, False, None, cta_bases=((), ((1, 0),))).triton_params()
        {'version': 2, 'isTranspose': False, 'ctaLayout': {'warp': [[1, 0]]}}
        """
        params: dict[str, object] = {"version": self.version, "isTranspose": self.is_transposed}
        if self.cta_bases is None:
            params["warpsPerCTA"] = list(self.warps_per_cta)  # type: ignore[arg-type]
        else:
            params["ctaLayout"] = self.triton39_cta_layout()
        params.update(cta_params(self.cta_layout))
        if self.instr_shape is not None:
            params["instrShape"] = list(self.instr_shape)
        return params


def wmma_dot_to_linear_layout(
    wmma: AmdWmmaLayout, op_idx: int, k_width: int, shape: tuple[int, ...]
) -> LinearLayout:
    """Layout of a WMMA dot operand: ``kWidth`` registers along K, 16 lanes along M/N.

    The other half-wave repeats the same K values (version 1) or takes the next ones.

    >>> L = wmma_dot_to_linear_layout(AmdWmmaLayout(1, False, [1, 1]), 0, 16, (16, 16))
    >>> L.bases[1]
    ('lane', [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0]])
    """
    rank = len(shape)
    names = standard_out_dim_names(rank)
    order = get_order_for_dot_operand(op_idx, rank, True)
    dim_k, dim_non_k = names[order[0]], names[order[1]]
    k_dim = wmma.instr[2]
    non_k = wmma.instr[0] if op_idx == 0 else wmma.instr[1]
    depth = WMMA_WARP_SIZE // non_k
    tile = LinearLayout.identity_1d(k_width, "register", dim_k) * LinearLayout.identity_1d(
        non_k, "lane", dim_non_k
    )
    if wmma.version == 1:
        tile = tile * LinearLayout.zeros_1d(depth, "lane", dim_k)
    else:
        tile = tile * LinearLayout.identity_1d(depth, "lane", dim_k)
    tile = tile * identity_1d(k_dim // (depth * k_width), "register", dim_k)
    if rank == 3:
        tile = tile * LinearLayout.identity_1d(1, "register", names[order[2]])
        tile = tile * LinearLayout.identity_1d(1, "lane", names[order[2]])
    k_idx = rank - 1 if op_idx == 0 else rank - 2
    if wmma.cta_bases is not None:
        grid = AmdWmmaLayout(wmma.version, wmma.is_transposed, wmma.warps_per_cta, wmma.instr)
        if wmma.triton39_cta_layout() != grid.triton39_cta_layout():
            raise LayoutError(
                "amd_wmma: llc lays out a dot operand of a WMMA layout only when its ctaLayout "
                f"is a plain warp grid (warpsPerCTA), not {wmma.triton39_cta_layout()}"
            )
    warps = broadcasted_dot_operand_layout(
        wmma.warps_per_cta, get_matrix_order(rank, True), k_idx, "warp"
    )
    rep_names = [names[d] for d in order]
    cta = tile.transpose_outs(rep_names) * warps.transpose_outs(rep_names)
    return combine_cta_cga_with_shape(cta, wmma.cga, shape)
