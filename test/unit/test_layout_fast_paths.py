"""The fast paths of the core and of the families give exactly what the general paths give.

Issue 7 (section 3) made the cold paths cheaper: constructions written down directly instead
of products of 1-D identities, a validating ``from_bases`` fast path, ``apply`` without packed
columns, ``reshape_*`` on packed columns and a slice without a composed transform. Each test
below compares a fast path with the slow construction it replaces, on random parameters.
"""

from __future__ import annotations

import itertools
import pickle
import random

import pytest

from llc.errors import LayoutError
from llc.layouts import (
    AmdMfmaLayout,
    BlockedLayout,
    CTALayout,
    DotOperandLayout,
    NvidiaMmaLayout,
    SliceLayout,
    identity_standard_nd,
    make_cga_layout,
)
from llc.layouts.common import broadcasted_dot_operand_layout, standard_out_dim_names
from llc.linear_layout import LinearLayout


def same(a: LinearLayout, b: LinearLayout) -> bool:
    """Structurally equal, and equal through the public views too."""
    return (
        a == b
        and hash(a) == hash(b)
        and a.bases == b.bases
        and a.out_dims == b.out_dims
        and a.columns() == b.columns()
    )


def products_nd(
    in_dim: str, shape: list[int], order: list[int], zero_dim: int = -1
) -> LinearLayout:
    names = standard_out_dim_names(len(shape))
    result = LinearLayout.empty()
    for d in order:
        make = LinearLayout.zeros_1d if d == zero_dim else LinearLayout.identity_1d
        result = result * make(shape[d], in_dim, names[d])
    return result


def random_params(rng: random.Random) -> tuple[list[int], list[int]]:
    rank = rng.randint(1, 4)
    order = list(range(rank))
    rng.shuffle(order)
    return [1 << rng.randint(0, 4) for _ in range(rank)], order


@pytest.mark.parametrize("seed", range(4))
def test_direct_family_pieces_match_products(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(100):
        shape, order = random_params(rng)
        assert same(identity_standard_nd("lane", shape, order), products_nd("lane", shape, order))
        k = rng.randrange(len(shape))
        assert same(
            broadcasted_dot_operand_layout(shape, order, k, "warp"),
            products_nd("warp", shape, order, zero_dim=k),
        )
        split = [1 << rng.randint(0, 2) for _ in shape]
        cta = CTALayout([s << rng.randint(0, 2) for s in split], split, order)
        names = standard_out_dim_names(len(shape))
        cga = LinearLayout.empty()
        for dim in cta.cta_order:
            s, c = cta.cta_split_num[dim], cta.ctas_per_cga[dim]
            cga = cga * LinearLayout.identity_1d(s, "block", names[dim])
            cga = cga * LinearLayout.zeros_1d(c // s, "block", names[dim])
        assert same(make_cga_layout(cta), cga.transpose_outs(names))
        spt, tpw, wpc = ([1 << rng.randint(0, 3) for _ in shape] for _ in range(3))
        tile = (
            products_nd("register", spt, order)
            * products_nd("lane", tpw, order)
            * products_nd("warp", wpc, order)
        )
        assert same(BlockedLayout(spt, tpw, wpc, order).cta_tile(), tile)


def test_identity_standard_nd_general_path_still_raises() -> None:
    with pytest.raises(LayoutError, match="power of two"):
        identity_standard_nd("lane", [3, 4], [1, 0])


def slice_by_composition(layout: SliceLayout, shape: tuple[int, ...]) -> LinearLayout:
    """The slice as the composition with a dropping transform (the general construction)."""
    parent = layout.parent.to_linear_layout(layout.parent_shape(shape))
    names = standard_out_dim_names(len(shape) + 1)
    transform = LinearLayout.empty()
    for idx, out in enumerate(parent.get_out_dim_names()):
        size = parent.get_out_dim_size(out)
        if idx == layout.dim:
            transform = transform * LinearLayout.zeros_1d(size, out, names[0])
        else:
            target = names[idx - (0 if idx < layout.dim else 1)]
            transform = transform * LinearLayout.identity_1d(size, out, target)
    sliced = parent.compose(transform).remove_zero_bases_along_dim("register")
    return layout._finish(sliced)


@pytest.mark.parametrize(
    "parent",
    [
        BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]),
        BlockedLayout([2, 1, 2], [2, 4, 4], [1, 2, 2], [0, 2, 1]),
        NvidiaMmaLayout(2, 0, [2, 2], [16, 8]),
        AmdMfmaLayout(3, [2, 2], [32, 32, 8], True),
        DotOperandLayout(1, NvidiaMmaLayout(2, 0, [2, 2], [16, 8]), 2),
    ],
)
def test_slice_without_transform_matches_composition(parent: object) -> None:
    for dim in range(parent.rank):  # type: ignore[attr-defined]
        layout = SliceLayout(dim, parent)  # type: ignore[arg-type]
        for shape in itertools.product([1, 4, 32, 256], repeat=layout.rank):
            assert same(layout.to_linear_layout(shape), slice_by_composition(layout, shape))


def random_bases(rng: random.Random, out_sizes: list[int]) -> list[tuple[str, list[list[int]]]]:
    return [
        (name, [[rng.randrange(size) for size in out_sizes] for _ in range(rng.randint(0, 4))])
        for name in ("register", "lane", "warp")[: rng.randint(0, 3)]
    ]


@pytest.mark.parametrize("seed", range(4))
def test_from_bases_fast_path_matches_the_validating_constructor(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(200):
        out_sizes = [1 << rng.randint(0, 5) for _ in range(rng.randint(0, 3))]
        names = [f"dim{i}" for i in range(len(out_sizes))]
        bases = random_bases(rng, out_sizes)
        for sizes in (out_sizes, None):
            try:
                fast = LinearLayout.from_bases(bases, names, sizes, require_surjective=False)
            except LayoutError:
                fast = None
            pairs = names if sizes is None else list(zip(names, sizes, strict=True))
            slow = LinearLayout(bases, pairs, require_surjective=False)
            assert fast is not None and same(fast, slow)
            # The surjectivity check: the fast one must agree with the rank.
            surjective = slow.rank == slow.total_out_size_log2
            if surjective:
                assert same(LinearLayout.from_bases(bases, names, sizes), slow)
            else:
                with pytest.raises(LayoutError, match="not surjective"):
                    LinearLayout.from_bases(bases, names, sizes)


@pytest.mark.parametrize(
    ("bases", "message"),
    [
        ([("i", [[1.0]])], "integers"),
        ([("i", [[1, 0]])], "entries"),
        ([("i", [[-1]])], "negative"),
        ([("i", [[4]])], "out of range"),
        ([("i", [[1]]), ("i", [[2]])], "twice"),
        ([("i", 5)], "lists of integers"),
    ],
)
def test_from_bases_errors_still_name_the_problem(bases: object, message: str) -> None:
    with pytest.raises(LayoutError, match=message):
        LinearLayout.from_bases(bases, ["o"], [4], require_surjective=False)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(3))
def test_apply_without_packed_columns_matches_packed(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(100):
        out_sizes = [1 << rng.randint(1, 5), 1 << rng.randint(1, 5)]
        layout = LinearLayout.from_bases(
            random_bases(rng, out_sizes), ["dim0", "dim1"], out_sizes, require_surjective=False
        )
        point = {name: rng.randrange(size) for name, size in layout.in_dims.items()}
        unpacked = pickle.loads(pickle.dumps(layout))  # bases only, columns not packed
        assert unpacked._columns is None
        assert unpacked.apply(point) == layout.apply(point)


def test_reshape_on_packed_columns_keeps_every_value() -> None:
    layout = LinearLayout.from_bases(
        [("register", [[1, 2], [0, 1]]), ("lane", [[2, 0], [1, 3]])],
        ["a", "b"],
        require_surjective=False,
    )
    outs = layout.reshape_outs([("x", 2), ("y", 8)])
    ins = layout.reshape_ins([("p", 8), ("q", 2)])
    for r, lane in itertools.product(range(4), range(4)):
        flat_in = r | lane << 2
        value = layout.apply({"register": r, "lane": lane})
        flat_out = value["a"] | value["b"] << 2
        assert outs.apply({"register": r, "lane": lane}) == {"x": flat_out & 1, "y": flat_out >> 1}
        assert ins.apply({"p": flat_in & 7, "q": flat_in >> 3}) == value
