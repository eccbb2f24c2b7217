"""Tests for llc.layouts.xla: XLA tiled layouts, their linear index and linear layouts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llc.errors import LayoutError, LayoutParseError, NotLinearError
from llc.layouts.xla import COMBINE, XlaTiledLayout, parse_shape_with_layout
from llc.linear_layout import LinearLayout

# ---------------------------------------- oracle


def oracle_offsets(layout: XlaTiledLayout, dims: tuple[int, ...]) -> np.ndarray:
    """XLA's "tiling as pad-reshape-transpose", done with numpy on an array of element ids.

    Independent of the module's index arithmetic: the array of logical element ids is
    permuted into physical order, then every tile pads, reshapes and transposes it; the
    position of an id in the final flattened buffer is that element's offset.
    """
    ids = np.arange(int(np.prod(dims)), dtype=np.int64).reshape(dims)
    arr = np.transpose(ids, tuple(reversed(layout.minor_to_major)))
    for tile in layout.tiles:
        base = arr.ndim - len(tile)
        entries = list(tile)
        j = 0
        while j < len(entries):
            if entries[j] == COMBINE:
                p = base + j
                shape = arr.shape
                arr = arr.reshape((*shape[:p], shape[p] * shape[p + 1], *shape[p + 2 :]))
                del entries[j]
            else:
                j += 1
        pads = [(0, 0)] * base + [
            (0, -(-d // t) * t - d) for d, t in zip(arr.shape[base:], entries, strict=True)
        ]
        arr = np.pad(arr, pads, constant_values=-1)
        split: list[int] = list(arr.shape[:base])
        for d, t in zip(arr.shape[base:], entries, strict=True):
            split += [d // t, t]
        arr = arr.reshape(split)
        k = len(entries)
        perm = (
            list(range(base))
            + [base + 2 * i for i in range(k)]
            + [base + 2 * i + 1 for i in range(k)]
        )
        arr = np.transpose(arr, perm)
    flat = arr.reshape(-1)
    offsets = np.full(ids.size, -1, dtype=np.int64)
    where = np.nonzero(flat >= 0)[0]
    offsets[flat[where]] = where
    return offsets.reshape(dims)


# ---------------------------------------- seed examples


def test_seed_figure1_element_2_3_is_17() -> None:
    layout = XlaTiledLayout.parse("{1,0:T(2,2)}")
    assert layout.linear_index((2, 3), (3, 5)) == 17


def test_seed_figure1_full_table_with_padding() -> None:
    # F32[3,5]{1,0:T(2,2)}: tile index bounds (2,3), tile (2,2) -> 24 elements, 9 of them padding.
    dims, layout = parse_shape_with_layout("F32[3,5]{1,0:T(2,2)}")
    expected = [
        [0, 1, 4, 5, 8],
        [2, 3, 6, 7, 10],
        [12, 13, 16, 17, 20],
    ]
    assert layout.linear_indices(dims).tolist() == expected
    assert [[layout.linear_index((i, j), dims) for j in range(5)] for i in range(3)] == expected
    assert layout.tiled_shape(dims) == (2, 3, 2, 2)
    assert layout.physical_size(dims) == 24
    assert oracle_offsets(layout, dims).tolist() == expected


def test_seed_bf16_alternative_packing_8x8_element_6_5_is_51() -> None:
    layout = XlaTiledLayout.parse("{1,0:T(2,4)(2,1,1,1)}")
    assert layout.linear_index((6, 5), (8, 8)) == 51
    assert layout.tiled_shape((8, 8)) == (2, 2, 2, 4, 2, 1, 1, 1)
    assert oracle_offsets(layout, (8, 8))[6, 5] == 51


def test_seed_bf16_alternative_packing_32x256_shape() -> None:
    # "(4,2,8,128) is tiled by (2,1,1,1) into (2,2,8,128,2,1,1,1)".
    layout = XlaTiledLayout.parse("{1,0:T(8,128)(2,1,1,1)}")
    assert layout.tiled_shape((32, 256)) == (2, 2, 8, 128, 2, 1, 1, 1)
    # Same position in vertically paired 8x128 tiles -> one 32-bit word (adjacent offsets).
    for row, col in [(0, 0), (3, 77), (17, 200)]:
        top = layout.linear_index((row % 8 + 16 * (row // 16), col), (32, 256))
        bottom = layout.linear_index((row % 8 + 16 * (row // 16) + 8, col), (32, 256))
        assert bottom == top + 1 and top % 2 == 0


def test_seed_figure2_bf16_packing_4x8() -> None:
    layout = XlaTiledLayout.parse("{1,0:T(2,4)(2,1)}")
    table = layout.linear_indices((4, 8))
    assert table.tolist() == [
        [0, 2, 4, 6, 8, 10, 12, 14],
        [1, 3, 5, 7, 9, 11, 13, 15],
        [16, 18, 20, 22, 24, 26, 28, 30],
        [17, 19, 21, 23, 25, 27, 29, 31],
    ]
    # One element from an even row and one from the odd row below share a 32-bit word.
    assert np.all(table[1::2] == table[0::2] + 1)


def test_seed_combining_dimensions() -> None:
    # F32[2,7,8,11,10] with T(*,*,2,*,3) is F32[112,110] tiled by (2,3).
    layout = XlaTiledLayout.parse("{4,3,2,1,0:T(*,*,2,*,3)}")
    combined = XlaTiledLayout.parse("{1,0:T(2,3)}")
    dims = (2, 7, 8, 11, 10)
    assert layout.tiled_shape(dims) == (56, 37, 2, 3)
    assert layout.physical_size(dims) == combined.physical_size((112, 110))
    rng = np.random.default_rng(0)
    for _ in range(200):
        e = tuple(int(rng.integers(d)) for d in dims)
        row = (e[0] * 7 + e[1]) * 8 + e[2]
        col = e[3] * 10 + e[4]
        assert layout.linear_index(e, dims) == combined.linear_index((row, col), (112, 110))
    assert np.array_equal(layout.linear_indices(dims), oracle_offsets(layout, dims))


def test_untiled_layouts_are_row_and_column_major() -> None:
    assert XlaTiledLayout.parse("{1,0}").linear_index((2, 3), (3, 5)) == 2 * 5 + 3
    assert XlaTiledLayout.parse("{0,1}").linear_index((2, 3), (3, 5)) == 3 * 3 + 2
    assert XlaTiledLayout.parse("{}").linear_index((), ()) == 0
    assert XlaTiledLayout.parse("{}").physical_size(()) == 1


def test_minor_to_major_permutes_before_tiling() -> None:
    # {0,1:T(2,2)}: physical shape is (5,3) (dim 1 major), tiled like the transposed array.
    layout = XlaTiledLayout.parse("{0,1:T(2,2)}")
    row_major = XlaTiledLayout.parse("{1,0:T(2,2)}")
    for i in range(3):
        for j in range(5):
            assert layout.linear_index((i, j), (3, 5)) == row_major.linear_index((j, i), (5, 3))


def test_tile_shorter_than_rank_leaves_major_dims() -> None:
    layout = XlaTiledLayout.parse("{2,1,0:T(2,2)}")
    assert layout.tiled_shape((3, 3, 5)) == (3, 2, 3, 2, 2)
    assert layout.linear_index((1, 2, 3), (3, 3, 5)) == 24 + 17


# ---------------------------------------- text form

ROUND_TRIP = [
    "{}",
    "{0}",
    "{1,0}",
    "{0,1}",
    "{1,0:T(2,2)}",
    "{1,0:T(8,128)(2,1)}",
    "{1,0:T(8,128)(4,1)}",
    "{1,0:T(32,128)(32,1)}",
    "{1,0:T(2,4)(2,1,1,1)}",
    "{4,3,2,1,0:T(*,*,2,*,3)}",
    "{3,2,1,0:T(*,*,42,123)}",
    "{2,1,0:T(2,*,128)}",
    "{0,2,1:T(4,128)}",
]


@pytest.mark.parametrize("text", ROUND_TRIP)
def test_parse_print_round_trip(text: str) -> None:
    layout = XlaTiledLayout.parse(text)
    assert str(layout) == text
    assert XlaTiledLayout.parse(str(layout)) == layout
    assert hash(XlaTiledLayout.parse(text)) == hash(layout)


def test_parse_tolerates_whitespace_and_normalises_star() -> None:
    layout = XlaTiledLayout.parse(" { 1 , 0 : T( 8 , 128 ) ( 2 , 1 ) } ")
    assert layout == XlaTiledLayout((1, 0), ((8, 128), (2, 1)))
    assert XlaTiledLayout((1, 0), (("*", 4),)).tiles == ((COMBINE, 4),)


@pytest.mark.parametrize(
    ("text", "dims", "layout"),
    [
        ("f32[3,5]{1,0:T(2,2)}", (3, 5), "{1,0:T(2,2)}"),
        ("F32[3,5]{1,0:T(2,2)}", (3, 5), "{1,0:T(2,2)}"),
        ("bf16[2,3,1004]{2,1,0:T(2,*,128)}", (2, 3, 1004), "{2,1,0:T(2,*,128)}"),
        ("pred[8,8,8]{0,2,1}", (8, 8, 8), "{0,2,1}"),
        ("s8[4]", (4,), "{0}"),
        ("[4, 6]", (4, 6), "{1,0}"),
        ("f32[]", (), "{}"),
    ],
)
def test_parse_shape_with_layout(text: str, dims: tuple[int, ...], layout: str) -> None:
    got_dims, got_layout = parse_shape_with_layout(text)
    assert got_dims == dims
    assert str(got_layout) == layout


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("1,0", "expected '{'"),
        ("{1,0", "expected '}'"),
        ("{1,0:T(2,2)", "expected '}'"),
        ("{1,0:T}", "expected '(' after 'T'"),
        ("{1,0:E(32)}", "unsupported layout attribute 'E(32)'"),
        ("{1,0:T(2,2)S(1)}", "unsupported layout attribute 'S(1)'"),
        ("{1,0:T(a,2)}", "expected an integer"),
        ("{1,0} x", "trailing text"),
        ("{1,1}", "not a permutation"),
        ("{0,2}", "not a permutation"),
        ("{1,0:T(0,2)}", "entries must be >= 1"),
        ("{1,0:T(2,*)}", "ends in '*'"),
        ("{1,0:T(2,2,2)}", "has 3 dims but the shape it tiles has rank 2"),
        ("{1,0:T()}", "tile 0 is empty"),
    ],
)
def test_parse_errors(text: str, fragment: str) -> None:
    with pytest.raises(LayoutParseError, match=None) as info:
        XlaTiledLayout.parse(text)
    assert fragment in str(info.value)


def test_shape_parse_errors() -> None:
    with pytest.raises(LayoutParseError, match="rank 2 but the shape has rank 3"):
        parse_shape_with_layout("f32[1,2,3]{1,0}")
    with pytest.raises(LayoutParseError, match="expected '\\['"):
        parse_shape_with_layout("f32{1,0}")


def test_constructor_errors() -> None:
    with pytest.raises(LayoutError, match="minor_to_major"):
        XlaTiledLayout((0, 0))
    with pytest.raises(LayoutError, match="tile entry"):
        XlaTiledLayout((1, 0), ((2.5, 2),))  # type: ignore[arg-type]
    # A later tile may be longer than the logical rank (it sees tile-index dims), not the tiled one.
    XlaTiledLayout((1, 0), ((2, 4), (2, 1, 1, 1)))
    with pytest.raises(
        LayoutError, match=r"tile 1 .* has 5 dims but the shape it tiles has rank 4"
    ):
        XlaTiledLayout((1, 0), ((2, 4), (2, 1, 1, 1, 1)))


def test_index_errors() -> None:
    layout = XlaTiledLayout.parse("{1,0:T(2,2)}")
    with pytest.raises(LayoutError, match="out of bounds in dim 1"):
        layout.linear_index((0, 5), (3, 5))
    with pytest.raises(LayoutError, match="out of bounds in dim 0"):
        layout.linear_index((-1, 0), (3, 5))
    with pytest.raises(LayoutError, match="has rank 3 but layout"):
        layout.linear_index((0, 0, 0), (3, 5, 1))
    with pytest.raises(LayoutError, match="has 1 entries"):
        layout.linear_index((0,), (3, 5))
    with pytest.raises(LayoutError, match="must be >= 1"):
        layout.physical_size((0, 5))


# ---------------------------------------- linear layouts


def ll_table(ll: LinearLayout, dims: tuple[int, ...]) -> np.ndarray:
    """``apply_all`` reshaped to ``dims`` (in-dim dim0 is the fastest bit field there)."""
    flat = ll.apply_all()["offset"]
    return flat.reshape(tuple(reversed(dims))).transpose(tuple(reversed(range(len(dims)))))


def test_to_linear_layout_tiled_4x4() -> None:
    layout = XlaTiledLayout.parse("{1,0:T(2,2)}")
    ll = layout.to_linear_layout((4, 4))
    assert ll.get_in_dim_names() == ["dim0", "dim1"]
    assert ll.out_dims == [("offset", 16)]
    assert ll.bases == [("dim0", [[2], [8]]), ("dim1", [[1], [4]])]
    assert ll.is_invertible()
    assert np.array_equal(ll_table(ll, (4, 4)), layout.linear_indices((4, 4)))


def test_to_linear_layout_bf16_packing() -> None:
    layout = XlaTiledLayout.parse("{1,0:T(8,128)(2,1)}")
    ll = layout.to_linear_layout((16, 256))
    assert ll.basis("dim0", 0) == (1,)  # BF16 packing: row parity is the lowest offset bit
    assert np.array_equal(ll_table(ll, (16, 256)), layout.linear_indices((16, 256)))
    seed = XlaTiledLayout.parse("{1,0:T(2,4)(2,1,1,1)}").to_linear_layout((8, 8))
    assert seed.apply({"dim0": 6, "dim1": 5}) == {"offset": 51}


def test_to_linear_layout_with_padding_is_injective_not_surjective() -> None:
    layout = XlaTiledLayout.parse("{1,0:T(4,4)}")
    ll = layout.to_linear_layout((2, 2))
    assert ll.out_dims == [("offset", 16)]
    assert ll.is_injective() and not ll.is_surjective()
    assert ll.bases == [("dim0", [[4]]), ("dim1", [[1]])]


def test_to_linear_layout_column_major_and_combine() -> None:
    ll = XlaTiledLayout.parse("{0,1}").to_linear_layout((2, 4))
    assert ll.bases == [("dim0", [[1]]), ("dim1", [[2], [4]])]
    layout = XlaTiledLayout.parse("{3,2,1,0:T(*,*,4,2)}")
    dims = (2, 2, 4, 4)
    assert np.array_equal(
        ll_table(layout.to_linear_layout(dims), dims), layout.linear_indices(dims)
    )


def test_to_linear_layout_rejects_non_power_of_two_dims() -> None:
    layout = XlaTiledLayout.parse("{1,0:T(2,2)}")
    with pytest.raises(LayoutError, match="dim 1 of shape \\[4,6\\] has size 6"):
        layout.to_linear_layout((4, 6))


def test_to_linear_layout_rejects_padding_that_breaks_linearity() -> None:
    # Rows padded to 6 elements: (1, 2) is at 8 but the XOR of its bit images is 6 ^ 2 = 4.
    layout = XlaTiledLayout.parse("{1,0:T(1,6)}")
    with pytest.raises(NotLinearError, match="extent 6, not a power of two") as info:
        layout.to_linear_layout((2, 4))
    assert "element [1, 2] is at offset 8 but the XOR of its basis images is 4" in str(info.value)


def test_to_linear_layout_accepts_non_power_of_two_tile_that_stays_linear() -> None:
    # The padding sits after the only dim: offsets 0..3 of a 6-element buffer.
    ll = XlaTiledLayout.parse("{0:T(6)}").to_linear_layout((4,))
    assert ll.bases == [("dim0", [[1], [2]])]
    assert ll.out_dims == [("offset", 8)]


# ---------------------------------------- properties


@st.composite
def tiled_layouts(draw: st.DrawFn, pow2: bool) -> tuple[XlaTiledLayout, tuple[int, ...]]:
    rank = draw(st.integers(1, 3))
    if pow2:
        dims = tuple(draw(st.sampled_from([1, 2, 4, 8])) for _ in range(rank))
        entry = st.sampled_from([1, 2, 4, 8])
    else:
        dims = tuple(draw(st.integers(1, 7)) for _ in range(rank))
        entry = st.integers(1, 5)
    mtm = tuple(draw(st.permutations(range(rank))))
    tiles = []
    cur = rank
    for _ in range(draw(st.integers(0, 2))):
        k = draw(st.integers(1, cur))
        tile = [draw(st.one_of(entry, st.just(COMBINE))) for _ in range(k - 1)]
        tile.append(draw(entry))
        stars = tile.count(COMBINE)
        tiles.append(tuple(tile))
        cur = (cur - stars) + (k - stars)
    return XlaTiledLayout(mtm, tuple(tiles)), dims


@settings(max_examples=150, deadline=None)
@given(tiled_layouts(pow2=True))
def test_formula_equals_linear_layout_for_power_of_two(case: tuple[XlaTiledLayout, tuple]) -> None:
    layout, dims = case
    ll = layout.to_linear_layout(dims)
    table = layout.linear_indices(dims)
    assert np.array_equal(ll_table(ll, dims), table)
    assert ll.is_injective()
    assert ll.get_out_dim_size("offset") == layout.physical_size(dims)
    for index in [tuple(d - 1 for d in dims), tuple(d // 2 for d in dims)]:
        expected = layout.linear_index(index, dims)
        assert ll.apply({f"dim{i}": e for i, e in enumerate(index)}) == {"offset": expected}


@settings(max_examples=150, deadline=None)
@given(tiled_layouts(pow2=False))
def test_formula_matches_pad_reshape_transpose(case: tuple[XlaTiledLayout, tuple]) -> None:
    layout, dims = case
    table = layout.linear_indices(dims)
    assert np.array_equal(table, oracle_offsets(layout, dims))
    # Injective into the padded buffer.
    assert len(np.unique(table)) == table.size
    assert table.min(initial=0) >= 0 and table.max(initial=0) < layout.physical_size(dims)
    assert XlaTiledLayout.parse(str(layout)) == layout
