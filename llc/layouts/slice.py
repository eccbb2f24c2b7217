"""``#ttg.slice``: a distributed layout with one dim of its parent squeezed away.

The parent is laid out on the shape with a 1 inserted at ``dim``; composing with the
projection that drops that dim gives the slice, and the register bases that became zero are
removed (zero lane/warp bases stay: those threads hold copies).

>>> from llc.layouts.blocked import BlockedLayout
>>> parent = BlockedLayout([1, 1], [4, 8], [1, 1], [1, 0])
>>> SliceLayout(0, parent).to_linear_layout([8]).bases[1]
('lane', [[1], [2], [4], [0], [0]])
"""

from __future__ import annotations

from dataclasses import dataclass

from llc.errors import LayoutError
from llc.layouts.common import (
    DistributedLayout,
    LayoutOnParent,
    check_int,
    standard_out_dim_names,
)
from llc.linear_layout import LinearLayout

__all__ = ["SliceLayout"]


@dataclass(frozen=True)
class SliceLayout(LayoutOnParent):
    """Triton's ``SliceEncodingAttr``.

    >>> from llc.layouts.blocked import BlockedLayout
    >>> s = SliceLayout(1, BlockedLayout([1, 1], [8, 4], [4, 1], [1, 0]))
    >>> s.rank, s.num_warps, list(s.triton_params())
    (1, 4, ['dim', 'parent'])
    """

    dim: int
    parent: DistributedLayout

    kind = "slice"

    def __post_init__(self) -> None:
        dim = check_int(self.kind, "dim", self.dim)
        object.__setattr__(self, "dim", dim)
        if not isinstance(self.parent, DistributedLayout):
            raise LayoutError(
                f"slice: parent must be a distributed layout, got {type(self.parent).__name__}"
            )
        rank = self.parent.rank
        if rank < 2:
            raise LayoutError(f"slice: parent {self.parent.kind} has rank {rank}, need at least 2")
        if not 0 <= dim < rank:
            raise LayoutError(f"slice: dim {dim} is out of range for the parent's rank {rank}")

    @property
    def rank(self) -> int:
        """The parent's rank minus one.

        >>> from llc.layouts.blocked import BlockedLayout
        >>> SliceLayout(0, BlockedLayout([1, 1], [8, 4], [1, 1], [1, 0])).rank
        1
        """
        return self.parent.rank - 1

    def parent_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        """``shape`` with a 1 inserted at ``dim``.

        >>> from llc.layouts.blocked import BlockedLayout
        >>> SliceLayout(1, BlockedLayout([1, 1], [8, 4], [1, 1], [1, 0])).parent_shape((16,))
        (16, 1)
        """
        return (*shape[: self.dim], 1, *shape[self.dim :])

    def _build(self, shape: tuple[int, ...]) -> LinearLayout:
        parent_ll = self.parent.to_linear_layout(self.parent_shape(shape))
        names = standard_out_dim_names(len(shape) + 1)
        if parent_ll.get_out_dim_names() == names:
            # Composing with the transform below keeps every out-dim but ``dim``, renamed to
            # ``dim0..``: take the sublayout and rename, without building the transform.
            kept = names[: self.dim] + names[self.dim + 1 :]
            sliced = parent_ll.sublayout(parent_ll.get_in_dim_names(), kept)
            for i, name in enumerate(kept):
                if name != names[i]:
                    sliced = sliced.rename_out_dim(name, names[i])
            return self._finish(sliced.remove_zero_bases_along_dim("register"))
        transform = LinearLayout.empty()
        for idx, out in enumerate(parent_ll.get_out_dim_names()):
            size = parent_ll.get_out_dim_size(out)
            if idx == self.dim:
                # All zeros: any out-dim name would give the same layout.
                transform = transform * LinearLayout.zeros_1d(size, out, names[0])
            else:
                target = names[idx - (0 if idx < self.dim else 1)]
                transform = transform * LinearLayout.identity_1d(size, out, target)
        sliced = parent_ll.compose(transform).remove_zero_bases_along_dim("register")
        return self._finish(sliced)

    def triton_params(self) -> dict[str, object]:
        """``{"dim": ..., "parent": <layout object>}``.

        >>> from llc.layouts.blocked import BlockedLayout
        >>> SliceLayout(0, BlockedLayout([1, 1], [8, 4], [1, 1], [1, 0])).triton_params()["dim"]
        0
        """
        return {"dim": self.dim, "parent": self.parent}
