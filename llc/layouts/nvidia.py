"""NVIDIA tensor-core layouts (``#ttg.nvidia_mma``) and the dot operands of every mma parent.

An MMA accumulator tile (``mma.sync`` m16n8 on Ampere, a ``wgmma`` m16nN slice on Hopper) gives
each lane 2 consecutive columns, 4 lanes cover 8 columns, 8 lanes cover 8 rows, and the 16 rows
are two register repetitions. Ampere tiles warps row-major (N fastest), Hopper column-major.

Dot operands (``#ttg.dot_op``): for an ``nvidia_mma`` parent the A tile is ``16 x 8*kWidth`` and
the B tile (Ampere only) ``8*kWidth x 8``, with ``kWidth`` consecutive K elements per lane and
warps broadcast along K; for a ``blocked`` parent (FMA dot) each thread holds the whole K
extent; AMD parents are handled in :mod:`llc.layouts.amd`.

>>> NvidiaMmaLayout(2, 0, [1, 1], [16, 8]).to_linear_layout([16, 16]).bases[0]
('register', [[0, 1], [8, 0], [0, 8]])
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from llc.errors import LayoutError
from llc.layouts.amd import (
    AmdMfmaLayout,
    AmdWmmaLayout,
    mfma_dot_to_linear_layout,
    wmma_dot_to_linear_layout,
)
from llc.layouts.blocked import BlockedLayout
from llc.layouts.common import (
    CTALayout,
    DistributedLayout,
    LayoutOnParent,
    broadcasted_dot_operand_layout,
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

__all__ = ["DotOperandLayout", "NvidiaMmaLayout", "nvidia_mma_tile"]

NVIDIA_WARP_SIZE = 32


def nvidia_mma_tile(
    tile_shape: tuple[int, ...], k_width: int, order: list[int], rep_order: list[int]
) -> LinearLayout:
    """The register/lane tile shared by mma accumulators and their dot operands.

    Inner dim (``order[0]``): ``kWidth`` registers, then 4 lanes; outer dim: 8 lanes, then
    ``m/8`` registers; then ``n/(4*kWidth)`` more registers along the inner dim.

    >>> nvidia_mma_tile((16, 8), 2, [1, 0], [1, 0]).transpose_outs(["dim0", "dim1"]).bases
    [('register', [[0, 1], [8, 0]]), ('lane', [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]])]
    """
    rank = len(rep_order)
    names = standard_out_dim_names(rank)
    # A rank-`rank` empty layout whose out-dims are already in repetition order.
    tile = identity_standard_nd("register", [1] * rank, rep_order)
    inner, outer = order[0], order[1]
    m, n = tile_shape[outer], tile_shape[inner]
    if m % 8 or n % (4 * k_width):
        raise LayoutError(
            f"nvidia mma tile {format_list(tile_shape)} does not fit kWidth {k_width}"
        )
    return (
        tile
        * LinearLayout.identity_1d(k_width, "register", names[inner])
        * LinearLayout.identity_1d(4, "lane", names[inner])
        * LinearLayout.identity_1d(8, "lane", names[outer])
        * LinearLayout.identity_1d(m // 8, "register", names[outer])
        * identity_1d(n // (k_width * 4), "register", names[inner])
    )


@dataclass(frozen=True)
class NvidiaMmaLayout(DistributedLayout):
    """Triton's ``NvidiaMmaEncodingAttr``: version 2 (Ampere/Turing) or 3 (Hopper).

    ``instr_shape`` is ``[16, 8]`` (``[1, 16, 8]`` with a batch dim) for version 2 and
    ``[16, N, K]`` or ``[16, N]`` for version 3 (rank 2 only: Triton 3.9 rejects a Hopper
    ``warpsPerCTA`` of rank 3 on a 2-D tensor and aborts on a 3-D one, and so does llc, with a
    message).

    >>> m = NvidiaMmaLayout(3, 0, [4, 1], [16, 64, 16])
    >>> m.is_hopper, m.num_warps, m.threads_per_warp_total
    (True, 4, 32)
    """

    version_major: int
    version_minor: int
    warps_per_cta: tuple[int, ...]
    instr_shape: tuple[int, ...]
    cta_layout: CTALayout | None = None

    kind = "nvidia_mma"

    def __post_init__(self) -> None:
        fam = self.kind
        major = check_int(fam, "versionMajor", self.version_major)
        minor = check_int(fam, "versionMinor", self.version_minor)
        object.__setattr__(self, "version_major", major)
        object.__setattr__(self, "version_minor", minor)
        if major not in (2, 3):
            raise LayoutError(
                f"{fam}: versionMajor {major} is unsupported (2 = Ampere/Turing, 3 = Hopper; "
                "Volta's version 1 has no linear layout)"
            )
        if minor < 0:
            raise LayoutError(f"{fam}: versionMinor {minor} must not be negative")
        warps = normalize_int_tuple(fam, "warpsPerCTA", self.warps_per_cta)
        instr = normalize_int_tuple(fam, "instrShape", self.instr_shape)
        object.__setattr__(self, "warps_per_cta", warps)
        object.__setattr__(self, "instr_shape", instr)
        check_pow2_list(fam, "warpsPerCTA", warps)
        if major == 2:
            if len(warps) not in (2, 3):
                raise LayoutError(f"{fam}: warpsPerCTA {format_list(warps)} must have rank 2 or 3")
            expected = (1,) * (len(warps) - 2) + (16, 8)
            # Triton also reads (and lays out) a 16x16 tile: two n8 instructions per tile.
            wide = (1,) * (len(warps) - 2) + (16, 16)
            if instr not in (expected, wide):
                raise LayoutError(
                    f"{fam}: instrShape {format_list(instr)} is unsupported for versionMajor 2 "
                    f"with warpsPerCTA of rank {len(warps)}; expected {format_list(expected)} "
                    f"(or {format_list(wide)})"
                )
        else:
            if len(warps) != 2:
                raise LayoutError(
                    f"{fam}: warpsPerCTA {format_list(warps)} must have rank 2 for Hopper"
                )
            # Triton 3.9 reads only M and N of a Hopper instrShape (the register tile), so it
            # accepts [16, N] as well as [16, N, K]; so does llc, keeping the spelling.
            if (
                len(instr) not in (2, 3)
                or instr[0] != 16
                or instr[1] % 8
                or not 8 <= instr[1] <= 256
            ):
                raise LayoutError(
                    f"{fam}: instrShape {format_list(instr)} is unsupported for versionMajor "
                    "3; expected "
                    "[16, N, K] or [16, N] with N a multiple of 8 in [8, 256]"
                )
            if not all(is_pow2(v) for v in instr[1:]):
                raise LayoutError(
                    f"{fam}: instrShape {format_list(instr)} must have power-of-two N and K "
                    "for a linear "
                    "layout"
                )
        object.__setattr__(self, "cta_layout", normalize_cta(fam, self.cta_layout, len(warps)))

    @property
    def is_ampere(self) -> bool:
        """Version 2 (``mma.sync``).

        >>> NvidiaMmaLayout(2, 1, [2, 2], [16, 8]).is_ampere
        True
        """
        return self.version_major == 2

    @property
    def is_hopper(self) -> bool:
        """Version 3 (``wgmma``).

        >>> NvidiaMmaLayout(2, 0, [2, 2], [16, 8]).is_hopper
        False
        """
        return self.version_major == 3

    @property
    def rank(self) -> int:
        """Rank of ``warpsPerCTA``.

        >>> NvidiaMmaLayout(2, 0, [2, 2, 1], [1, 16, 8]).rank
        3
        """
        return len(self.warps_per_cta)

    @property
    def cga(self) -> CTALayout:
        """The CGA layout, defaulted.

        >>> NvidiaMmaLayout(2, 0, [2, 2], [16, 8]).cga.cta_split_num
        (1, 1)
        """
        return self.cta_layout or CTALayout.default(self.rank)

    @property
    def threads_per_warp_total(self) -> int:
        """Always 32.

        >>> NvidiaMmaLayout(2, 0, [2, 2], [16, 8]).threads_per_warp_total
        32
        """
        return NVIDIA_WARP_SIZE

    @property
    def num_warps(self) -> int:
        """Product of ``warpsPerCTA``.

        >>> NvidiaMmaLayout(2, 0, [2, 2], [16, 8]).num_warps
        4
        """
        return prod(self.warps_per_cta)

    def _warps_desc(self) -> str:
        return f"warpsPerCTA {format_list(self.warps_per_cta)} multiplies to {self.num_warps} warps"

    def _threads_desc(self) -> str:
        return "NVIDIA mma layouts assume 32 threads per warp"

    def warp_order(self) -> list[int]:
        """Row-major warps on Ampere, column-major on Hopper (fixed by ``wgmma``).

        >>> NvidiaMmaLayout(3, 0, [4, 1], [16, 8, 16]).warp_order()
        [0, 1]
        """
        return get_matrix_order(self.rank, not self.is_hopper)

    def _build(self, shape: tuple[int, ...]) -> LinearLayout:
        tile_shape = self.instr_shape if self.is_ampere else self.instr_shape[:2]
        row_major = get_matrix_order(self.rank, True)
        tile = nvidia_mma_tile(tile_shape, 2, row_major, row_major)
        warps = identity_standard_nd("warp", self.warps_per_cta, self.warp_order())
        tile = tile * warps.transpose_outs(tile.get_out_dim_names())
        return self._finish(combine_cta_cga_with_shape(tile, self.cga, shape))

    def triton_params(self) -> dict[str, object]:
        """Triton's parameters, in its printing order.

        >>> NvidiaMmaLayout(2, 0, [4, 1], [16, 8]).triton_params()
        {'versionMajor': 2, 'versionMinor': 0, 'warpsPerCTA': [4, 1], 'instrShape': [16, 8]}
        """
        return {
            "versionMajor": self.version_major,
            "versionMinor": self.version_minor,
            "warpsPerCTA": list(self.warps_per_cta),
            **cta_params(self.cta_layout),
            "instrShape": list(self.instr_shape),
        }


_DOT_PARENTS = (NvidiaMmaLayout, BlockedLayout, AmdMfmaLayout, AmdWmmaLayout)


@dataclass(frozen=True)
class DotOperandLayout(LayoutOnParent):
    """Triton's ``DotOperandEncodingAttr``: operand ``opIdx`` (0 = A, 1 = B) of a dot.

    >>> d = DotOperandLayout(0, NvidiaMmaLayout(2, 0, [1, 1], [16, 8]), 8)
    >>> d.to_linear_layout([16, 64]).bases[0]
    ('register', [[0, 1], [0, 2], [0, 4], [8, 0], [0, 32]])
    """

    op_idx: int
    parent: DistributedLayout
    k_width: int = 0

    kind = "dot_op"

    def __post_init__(self) -> None:
        fam = self.kind
        op_idx = check_int(fam, "opIdx", self.op_idx)
        k_width = check_int(fam, "kWidth", self.k_width)
        object.__setattr__(self, "op_idx", op_idx)
        object.__setattr__(self, "k_width", k_width)
        if op_idx not in (0, 1):
            raise LayoutError(f"{fam}: opIdx {op_idx} must be 0 or 1")
        parent = self.parent
        if not isinstance(parent, _DOT_PARENTS):
            raise LayoutError(
                f"{fam}: parent must be nvidia_mma, blocked, amd_mfma or amd_wmma, got "
                f"{getattr(parent, 'kind', type(parent).__name__)}"
            )
        if k_width < 0 or (k_width and not is_pow2(k_width)):
            raise LayoutError(f"{fam}: kWidth {k_width} must be 0 or a power of two")
        if isinstance(parent, NvidiaMmaLayout):
            if k_width == 0:
                raise LayoutError(f"{fam}: kWidth is mandatory (non-zero) for an nvidia_mma parent")
            if parent.is_hopper and op_idx != 0:
                raise LayoutError(
                    f"{fam}: opIdx must be 0 for a Hopper nvidia_mma parent (wgmma reads B from "
                    "shared memory)"
                )
        elif isinstance(parent, BlockedLayout):
            if k_width != 0:
                raise LayoutError(f"{fam}: kWidth {k_width} is not supported for a blocked parent")
        elif isinstance(parent, AmdMfmaLayout):
            if k_width == 0:
                raise LayoutError(f"{fam}: kWidth is mandatory (non-zero) for an amd_mfma parent")
        else:
            # Triton 3.9's verifier: v1 8/16, v2 4/8/16, v3 any non-zero kWidth (a power of two
            # that divides the instruction's K, as the layout needs).
            k_instr = parent.instr[2]
            v3 = tuple(w for w in (1, 2, 4, 8, 16, 32, 64) if w <= k_instr)
            valid = {1: (8, 16), 2: (4, 8, 16), 3: v3}[parent.version]
            if k_width not in valid:
                raise LayoutError(
                    f"{fam}: kWidth {k_width} must be one of {list(valid)} for WMMA version "
                    f"{parent.version}"
                )
        if parent.rank not in (2, 3):
            raise LayoutError(f"{fam}: parent {parent.kind} has rank {parent.rank}, need 2 or 3")

    @property
    def rank(self) -> int:
        """The parent's rank.

        >>> DotOperandLayout(1, BlockedLayout([1, 1], [8, 4], [1, 1], [1, 0])).rank
        2
        """
        return self.parent.rank

    @property
    def k_dim(self) -> int:
        """Index of the K dim (last for A, second to last for B).

        >>> DotOperandLayout(1, NvidiaMmaLayout(2, 0, [1, 1], [16, 8]), 2).k_dim
        0
        """
        return self.rank - 1 if self.op_idx == 0 else self.rank - 2

    @property
    def cga(self) -> CTALayout:
        """The parent's CGA with ``CTASplitNum`` forced to 1 along K (K is never split).

        >>> p = BlockedLayout([1, 1], [8, 4], [1, 1], [1, 0], CTALayout([2, 2], [2, 2], [1, 0]))
        >>> DotOperandLayout(0, p).cga.cta_split_num
        (2, 1)
        """
        parent_cga = self.parent.cga  # type: ignore[attr-defined]
        split = list(parent_cga.cta_split_num)
        split[self.k_dim] = 1
        return parent_cga.with_split(split)

    def _build(self, shape: tuple[int, ...]) -> LinearLayout:
        parent = self.parent
        if isinstance(parent, NvidiaMmaLayout):
            layout = self._nvidia(parent, shape)
        elif isinstance(parent, BlockedLayout):
            layout = self._fma(parent, shape)
        elif isinstance(parent, AmdMfmaLayout):
            layout = mfma_dot_to_linear_layout(parent, self.op_idx, self.k_width, shape)
        else:
            layout = wmma_dot_to_linear_layout(parent, self.op_idx, self.k_width, shape)  # type: ignore[arg-type]
        return self._finish(layout)

    def _nvidia(self, mma: NvidiaMmaLayout, shape: tuple[int, ...]) -> LinearLayout:
        rank = self.rank
        tile_shape = [1] * rank
        if self.op_idx == 0:
            tile_shape[-2], tile_shape[-1] = 16, 8 * self.k_width
        else:
            tile_shape[-2], tile_shape[-1] = 8 * self.k_width, 8
        order = get_order_for_dot_operand(self.op_idx, rank, True)
        tile = nvidia_mma_tile(tuple(tile_shape), self.k_width, order, order)
        warps = broadcasted_dot_operand_layout(
            mma.warps_per_cta, mma.warp_order(), self.k_dim, "warp"
        )
        tile = tile * warps.transpose_outs(tile.get_out_dim_names())
        return combine_cta_cga_with_shape(tile, self.cga, shape)

    def _fma(self, blocked: BlockedLayout, shape: tuple[int, ...]) -> LinearLayout:
        rank = self.rank
        names = standard_out_dim_names(rank)
        order = list(blocked.order)
        thread_size = list(blocked.size_per_thread)
        # Each thread walks the whole K extent in registers; lanes and warps broadcast along K.
        thread_size[self.k_dim] = shape[self.k_dim]
        rep_names = [names[d] for d in blocked.rep_order()]
        regs = identity_standard_nd("register", thread_size, order)
        lanes = broadcasted_dot_operand_layout(blocked.threads_per_warp, order, self.k_dim, "lane")
        warps = broadcasted_dot_operand_layout(blocked.warps_per_cta, order, self.k_dim, "warp")
        tile = (
            regs.transpose_outs(rep_names)
            * lanes.transpose_outs(rep_names)
            * warps.transpose_outs(rep_names)
        )
        return combine_cta_cga_with_shape(tile, self.cga, shape)

    def triton_params(self) -> dict[str, object]:
        """``{"opIdx", "parent", "kWidth"}`` (``kWidth`` omitted when 0, as Triton prints it).

        >>> d = DotOperandLayout(1, BlockedLayout([1, 1], [8, 4], [1, 1], [1, 0]))
        >>> list(d.triton_params()), d.triton_params()["parent"] is d.parent
        (['opIdx', 'parent'], True)
        """
        params: dict[str, object] = {"opIdx": self.op_idx, "parent": self.parent}
        if self.k_width:
            params["kWidth"] = self.k_width
        return params
