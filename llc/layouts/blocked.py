"""``#ttg.blocked``: each thread owns a ``sizePerThread`` block, tiled over lanes, warps, CTAs.

The CTA layout is ``identity(register, sizePerThread) * identity(lane, threadsPerWarp) *
identity(warp, warpsPerCTA)``, every factor laid out minor-to-major along ``order``; the common
tail then repeats it over larger shapes (extra high register bases) and broadcasts it over
smaller ones (zero lane/warp bases).

>>> L = BlockedLayout([1], [4], [4], [0]).to_linear_layout([128])
>>> L.bases[0]
('register', [[16], [32], [64]])
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from llc.errors import LayoutError
from llc.layouts.common import (
    CTALayout,
    DistributedLayout,
    check_permutation,
    check_pow2_list,
    combine_cta_cga_with_shape,
    cta_params,
    format_list,
    identity_standard_nd,
    normalize_cta,
    normalize_int_tuple,
)
from llc.linear_layout import LinearLayout

__all__ = ["BlockedLayout"]


@dataclass(frozen=True)
class BlockedLayout(DistributedLayout):
    """Triton's ``BlockedEncodingAttr``.

    >>> b = BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
    >>> b.triton_params()
    {'sizePerThread': [1, 4], 'threadsPerWarp': [8, 4], 'warpsPerCTA': [4, 1], 'order': [1, 0]}
    >>> b.threads_per_warp_total, b.num_warps
    (32, 4)
    """

    size_per_thread: tuple[int, ...]
    threads_per_warp: tuple[int, ...]
    warps_per_cta: tuple[int, ...]
    order: tuple[int, ...]
    cta_layout: CTALayout | None = None

    kind = "blocked"

    def __post_init__(self) -> None:
        fam = self.kind
        spt = normalize_int_tuple(fam, "sizePerThread", self.size_per_thread)
        tpw = normalize_int_tuple(fam, "threadsPerWarp", self.threads_per_warp)
        wpc = normalize_int_tuple(fam, "warpsPerCTA", self.warps_per_cta)
        order = normalize_int_tuple(fam, "order", self.order)
        object.__setattr__(self, "size_per_thread", spt)
        object.__setattr__(self, "threads_per_warp", tpw)
        object.__setattr__(self, "warps_per_cta", wpc)
        object.__setattr__(self, "order", order)
        rank = len(spt)
        for param, values in (("threadsPerWarp", tpw), ("warpsPerCTA", wpc), ("order", order)):
            if len(values) != rank:
                raise LayoutError(
                    f"{fam}: {param} {format_list(values)} has rank {len(values)}, but "
                    f"sizePerThread {format_list(spt)} has rank {rank}"
                )
        if rank == 0:
            raise LayoutError(f"{fam}: sizePerThread must not be empty")
        check_pow2_list(fam, "sizePerThread", spt)
        check_pow2_list(fam, "threadsPerWarp", tpw)
        check_pow2_list(fam, "warpsPerCTA", wpc)
        check_permutation(fam, "order", order, rank)
        object.__setattr__(self, "cta_layout", normalize_cta(fam, self.cta_layout, rank))

    @property
    def rank(self) -> int:
        """Number of dims.

        >>> BlockedLayout([1, 1, 1], [1, 1, 32], [1, 1, 4], [2, 1, 0]).rank
        3
        """
        return len(self.order)

    @property
    def cga(self) -> CTALayout:
        """The CGA layout, defaulted.

        >>> BlockedLayout([1], [32], [4], [0]).cga
        CTALayout(ctas_per_cga=(1,), cta_split_num=(1,), cta_order=(0,))
        """
        return self.cta_layout or CTALayout.default(self.rank)

    @property
    def threads_per_warp_total(self) -> int:
        """Product of ``threadsPerWarp``.

        >>> BlockedLayout([1, 1], [16, 4], [1, 1], [1, 0]).threads_per_warp_total
        64
        """
        return prod(self.threads_per_warp)

    @property
    def num_warps(self) -> int:
        """Product of ``warpsPerCTA``.

        >>> BlockedLayout([1, 1], [8, 4], [2, 2], [1, 0]).num_warps
        4
        """
        return prod(self.warps_per_cta)

    def _warps_desc(self) -> str:
        return f"warpsPerCTA {format_list(self.warps_per_cta)} multiplies to {self.num_warps} warps"

    def _threads_desc(self) -> str:
        return (
            f"threadsPerWarp {format_list(self.threads_per_warp)} multiplies to "
            f"{self.threads_per_warp_total} threads"
        )

    def cta_tile(self) -> LinearLayout:
        """The one-CTA layout before tiling to a shape.

        >>> BlockedLayout([2], [4], [2], [0]).cta_tile().bases
        [('register', [[1]]), ('lane', [[2], [4]]), ('warp', [[8]])]
        """
        return (
            identity_standard_nd("register", self.size_per_thread, self.order)
            * identity_standard_nd("lane", self.threads_per_warp, self.order)
            * identity_standard_nd("warp", self.warps_per_cta, self.order)
        )

    def _build(self, shape: tuple[int, ...]) -> LinearLayout:
        # Triton 3.9 (PR #11541) drops the registers of a tile larger than the shape instead of
        # keeping them as zero (duplicate) registers; lanes and warps still broadcast.
        tile = combine_cta_cga_with_shape(
            self.cta_tile(), self.cga, shape, broadcast_registers=False
        )
        return self._finish(tile)

    def triton_params(self) -> dict[str, object]:
        """Triton's parameters (CTA ones only when not the default).

        >>> b = BlockedLayout([1], [32], [4], [0], CTALayout([2], [2], [0]))
        >>> b.triton_params()["CTAsPerCGA"]
        [2]
        """
        return {
            "sizePerThread": list(self.size_per_thread),
            "threadsPerWarp": list(self.threads_per_warp),
            "warpsPerCTA": list(self.warps_per_cta),
            "order": list(self.order),
            **cta_params(self.cta_layout),
        }

    def rep_order(self) -> list[int]:
        """Order in which repetitions are laid out (the ``order``).

        >>> BlockedLayout([1, 1], [8, 4], [1, 1], [0, 1]).rep_order()
        [0, 1]
        """
        return list(self.order)
