"""Tests for llc.layouts.cute: CuTe layouts, swizzles, swizzled layouts and linear layouts."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llc.errors import LayoutError, LayoutParseError, NotLinearError
from llc.layouts.cute import (
    CuteComposedLayout,
    CuteLayout,
    CuteSwizzle,
    parse_cute,
)
from llc.linear_layout import LinearLayout

# ---------------------------------------- text form

ROUND_TRIP = [
    "8:1",
    "(8):(1)",
    "(4,2):(2,1)",
    "(4,2):(1,4)",
    "((2,2),4):((1,4),2)",
    "((2,4),(3,5)):((1,10),(2,40))",
    "(8,64):(64,1)",
    "(4,1):(1,0)",
    "():()",
    "Swizzle<3,4,3>",
    "Swizzle<1,2,1>",
    "Swizzle<2,0,-2>",
    "Swizzle<0,0,0>",
    "Swizzle<3,4,3> o (8,64):(64,1)",
    "Swizzle<2,1,2> o 32 o 8:1",
]


@pytest.mark.parametrize("text", ROUND_TRIP)
def test_parse_print_round_trip(text: str) -> None:
    obj = parse_cute(text)
    assert str(obj) == text
    assert parse_cute(str(obj)) == obj
    assert hash(parse_cute(text)) == hash(obj)


@pytest.mark.parametrize(
    ("text", "printed"),
    [
        ("( 4 , 2 ) : ( 2 , 1 )", "(4,2):(2,1)"),
        ("(_4,_2):(_2,_1)", "(4,2):(2,1)"),
        ("(4,2)", "(4,2):(1,4)"),
        ("((2,2),4)", "((2,2),4):((1,2),4)"),
        ("16", "16:1"),
        ("Sw<3,4,3>", "Swizzle<3,4,3>"),
        ("Swizzle<3,4,3> o _0 o (_8,_64):(_64,_1)", "Swizzle<3,4,3> o (8,64):(64,1)"),
        ("Sw<1,2,1>o(4,4):(4,1)", "Swizzle<1,2,1> o (4,4):(4,1)"),
    ],
)
def test_parse_normalises(text: str, printed: str) -> None:
    assert str(parse_cute(text)) == printed


def test_typed_parsers() -> None:
    assert CuteLayout.parse("(4,2):(2,1)") == CuteLayout((4, 2), (2, 1))
    assert CuteSwizzle.parse("Swizzle<3,4,3>") == CuteSwizzle(3, 4, 3)
    composed = CuteComposedLayout.parse("Swizzle<3,4,3> o (8,64):(64,1)")
    assert composed == CuteComposedLayout(CuteSwizzle(3, 4, 3), CuteLayout((8, 64), (64, 1)))
    with pytest.raises(LayoutParseError, match="not a layout"):
        CuteLayout.parse("Swizzle<3,4,3>")
    with pytest.raises(LayoutParseError, match="not a swizzle"):
        CuteSwizzle.parse("8:1")
    with pytest.raises(LayoutParseError, match="not a swizzled layout"):
        CuteComposedLayout.parse("8:1")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty text"),
        ("(4,2):", "expected an integer"),
        ("(4,2:(2,1)", "expected ',' or ')'"),
        ("(4,2):(2,1) x", "unexpected trailing text"),
        ("(4,2):(2,1))", "unexpected trailing text"),
        ("(4,2):(2,1,3)", "not congruent"),
        ("((2,2),4):(1,4,2)", "not congruent"),
        ("(4,0):(1,4)", "extent 0 < 1"),
        ("(4,2):(-1,4)", "negative entry -1"),
        ("Swizzle<3,4>", "expected ','"),
        ("Swizzle<3,4,2>", "|S| >= B"),
        ("Swizzle<-1,4,2>", "B >= 0 and M >= 0"),
        ("Layout<1>", "expected a layout"),
        ("4:1 o Swizzle<1,1,1>", "unexpected trailing text"),
        ("(4;2)", "unexpected character ';'"),
    ],
)
def test_parse_errors(text: str, fragment: str) -> None:
    with pytest.raises(LayoutParseError) as info:
        parse_cute(text)
    assert fragment in str(info.value)


def test_constructor_validation() -> None:
    assert CuteLayout([4, [2, 2]], [1, [4, 8]]).shape == (4, (2, 2))
    with pytest.raises(LayoutError, match="not an integer"):
        CuteLayout((4, 2.0), (1, 4))  # type: ignore[arg-type]
    with pytest.raises(LayoutError, match="not an integer"):
        CuteSwizzle(1, 2, "1")  # type: ignore[arg-type]
    with pytest.raises(LayoutError, match="offset"):
        CuteComposedLayout(CuteSwizzle(1, 2, 1), CuteLayout(8, 1), -1)
    with pytest.raises(LayoutError, match="not a Swizzle"):
        CuteComposedLayout(CuteLayout(8, 1), CuteLayout(8, 1))  # type: ignore[arg-type]


# ---------------------------------------- evaluation


def test_row_major_4x2() -> None:
    layout = CuteLayout.parse("(4,2):(2,1)")
    assert [layout(i) for i in range(8)] == [0, 2, 4, 6, 1, 3, 5, 7]
    assert [[layout(i, j) for j in range(2)] for i in range(4)] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert layout.size() == 8 and layout.cosize() == 8 and layout.rank == 2


def test_hierarchical_coordinates_agree() -> None:
    # Integral, 2-D natural-by-top-mode and fully natural 3-D coordinates give the same offset.
    layout = CuteLayout.parse("((2,2),4):((1,4),2)")
    for i in range(16):
        m0, m1 = i % 4, i // 4
        assert layout(i) == layout(m0, m1) == layout(((m0 % 2, m0 // 2), m1))
    assert layout(5) == layout((1, 1)) == layout(((1, 0), 1)) == 3
    assert layout.size() == 16 and layout.cosize() == 12
    assert layout.leaves() == ((2, 1), (2, 4), (4, 2))
    assert [str(m) for m in layout.modes()] == ["(2,2):(1,4)", "4:2"]
    assert np.array_equal(layout.offsets(), [layout(i) for i in range(16)])


def test_broadcast_and_default_strides() -> None:
    layout = CuteLayout.parse("(4,2):(0,1)")
    assert [layout(i) for i in range(8)] == [0, 0, 0, 0, 1, 1, 1, 1]
    assert layout.cosize() == 2
    assert CuteLayout((2, (3, 2))).stride == (1, (2, 6))
    assert CuteLayout.parse("():()")(0) == 0


def test_coordinate_errors() -> None:
    layout = CuteLayout.parse("((2,2),4):((1,4),2)")
    with pytest.raises(LayoutError, match="coordinate 16 is out of range"):
        layout(16)
    with pytest.raises(LayoutError, match="coordinate -1 is out of range"):
        layout(-1)
    with pytest.raises(LayoutError, match="coordinate 2 is out of range for shape 2"):
        layout(((2, 0), 0))
    with pytest.raises(LayoutError, match="not compatible with shape"):
        layout((1, 2, 3))
    with pytest.raises(LayoutError, match="not compatible with shape 4"):
        layout((0, (1, 1)))


# ---------------------------------------- swizzles


def test_seed_swizzle_1_2_1_table() -> None:
    # Seed 004, Figure 2: 16 elements, the two least significant bits unchanged, shift 1;
    # bit 3 is XORed into bit 2: x -> x ^ ((x & 0b1000) >> 1).
    swizzle = CuteSwizzle.parse("Swizzle<1,2,1>")
    table = [swizzle(x) for x in range(16)]
    assert table == [0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15, 8, 9, 10, 11]
    assert table == [x ^ ((x & 0b1000) >> 1) for x in range(16)]
    assert swizzle.size() == swizzle.cosize() == 16
    assert all(swizzle(x) & 0b11 == x & 0b11 for x in range(16))
    assert swizzle.yyy_mask == 0b1000 and swizzle.zzz_mask == 0b0100


def test_swizzle_matches_brief_formula_for_positive_shift() -> None:
    for b, m, s in [(3, 4, 3), (2, 4, 3), (2, 0, 4), (1, 0, 1)]:
        swizzle = CuteSwizzle(b, m, s)
        mask = ((1 << b) - 1) << (m + s)
        assert all(swizzle(x) == x ^ ((x & mask) >> s) for x in range(swizzle.size()))


def test_negative_shift_moves_low_bits_up() -> None:
    swizzle = CuteSwizzle(2, 1, -3)  # bits 1-2 XOR into bits 4-5
    assert swizzle.yyy_mask == 0b000110 and swizzle.zzz_mask == 0b110000
    assert swizzle(0b000010) == 0b010010
    assert swizzle(0b010000) == 0b010000


def test_swizzle_vectorised_call() -> None:
    swizzle = CuteSwizzle(3, 4, 3)
    x = np.arange(swizzle.size())
    assert swizzle(x).tolist() == [swizzle(int(v)) for v in x]


swizzles = st.builds(
    lambda b, m, extra, neg: CuteSwizzle(b, m, -(b + extra) if neg else b + extra),
    st.integers(0, 3),
    st.integers(0, 3),
    st.integers(0, 2),
    st.booleans(),
)


@settings(max_examples=100, deadline=None)
@given(swizzles)
def test_swizzle_is_an_involution_and_invertible(swizzle: CuteSwizzle) -> None:
    xs = np.arange(swizzle.size())
    assert np.array_equal(swizzle(swizzle(xs)), xs)
    assert sorted(swizzle(xs).tolist()) == xs.tolist()
    ll = swizzle.to_linear_layout()
    assert ll.get_in_dim_names() == ["offset"] and ll.out_dims == [("offset", swizzle.size())]
    assert np.array_equal(ll.apply_all()["offset"], swizzle(xs))
    assert ll.is_invertible()
    assert ll.invert() == ll
    assert ll.compose(ll) == LinearLayout.identity_1d(swizzle.size(), "offset", "offset")


def test_swizzle_linear_layout_can_be_widened() -> None:
    ll = CuteSwizzle(1, 2, 1).to_linear_layout(64)
    assert ll.out_dims == [("offset", 64)]
    assert ll.apply({"offset": 40})["offset"] == 44
    with pytest.raises(LayoutError, match="not a power of two"):
        CuteSwizzle(1, 2, 1).to_linear_layout(24)


# ---------------------------------------- to_linear_layout


def test_to_linear_layout_examples() -> None:
    ll = CuteLayout.parse("(4,2):(2,1)").to_linear_layout()
    assert ll.bases == [("dim0", [[2], [4]]), ("dim1", [[1]])]
    assert ll.out_dims == [("offset", 8)]
    assert ll.is_invertible()
    ll = CuteLayout.parse("8:1").to_linear_layout()
    assert ll == LinearLayout.identity_1d(8, "dim0", "offset")
    ll = CuteLayout.parse("((2,2),4):((1,8),2)").to_linear_layout()
    assert ll.bases == [("dim0", [[1], [8]]), ("dim1", [[2], [4]])]
    ll = CuteLayout.parse("(4,2):(0,4)").to_linear_layout()
    assert ll.bases == [("dim0", [[0], [0]]), ("dim1", [[4]])]
    assert ll.out_dims == [("offset", 8)] and not ll.is_surjective()
    assert CuteLayout.parse("(1,4):(7,1)").to_linear_layout().bases == [
        ("dim0", []),
        ("dim1", [[1], [2]]),
    ]


def test_strides_with_disjoint_bits_are_linear() -> None:
    # CuTe adds, a LinearLayout XORs: they agree whenever the bit images never overlap.
    ll = CuteLayout.parse("(2,2):(1,6)").to_linear_layout()
    assert ll.bases == [("dim0", [[1]]), ("dim1", [[6]])]
    assert ll.apply_all()["offset"].tolist() == [0, 1, 6, 7]
    ll = CuteLayout.parse("4:5").to_linear_layout()
    assert ll.apply_all()["offset"].tolist() == [0, 5, 10, 15]
    assert (
        str(CuteLayout.from_linear_layout(CuteLayout.parse("(2,2):(1,6)").to_linear_layout()))
        == "(2,2):(1,6)"
    )


def test_to_linear_layout_duplicate_images_raise() -> None:
    with pytest.raises(NotLinearError) as info:
        CuteLayout.parse("(2,2):(1,1)").to_linear_layout()
    assert str(info.value) == (
        "cute: layout (2,2):(1,1) is not F2-linear: bit 0 of mode 1 (shape 2, stride 1) "
        "(offset 1) and bit 0 of mode 0 (shape 2, stride 1) (offset 1) share offset bit 0, so "
        "coordinate 3 maps to 2 but the XOR of its basis images is 0 (strides must be 0 or "
        "powers of two that do not collide)"
    )
    with pytest.raises(NotLinearError, match="mode 1 \\(shape 4, stride 2\\)"):
        CuteLayout.parse("((2,2),4):((1,4),2)").to_linear_layout()


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("(3,2):(1,4)", "mode 0 (shape 3, stride 1) has extent 3, which is not a power of two"),
        (
            "(4,2):(1,3)",
            "bit 0 of mode 1 (shape 2, stride 3) (offset 3) and bit 0 of mode 0 (shape 4, "
            "stride 1) (offset 1) share offset bit 0, so coordinate 5 maps to 4 but the XOR of "
            "its basis images is 2",
        ),
        (
            "(4):(3)",
            "mode 0 (shape 4, stride 3) has stride 3, whose doublings 3 (bit 0) and 6 (bit 1) "
            "share offset bit 1, so coordinate 3 maps to 9 but the XOR of its basis images is 5",
        ),
        ("((2,6),2):((1,2),16)", "mode 0.1 (shape 6, stride 2) has extent 6"),
        ("12:1", "mode 0 (shape 12, stride 1) has extent 12"),
    ],
)
def test_to_linear_layout_rejects(text: str, fragment: str) -> None:
    with pytest.raises(NotLinearError) as info:
        CuteLayout.parse(text).to_linear_layout()
    assert fragment in str(info.value)


def test_composed_to_linear_layout() -> None:
    composed = CuteComposedLayout.parse("Swizzle<3,4,3> o (8,64):(64,1)")
    ll = composed.to_linear_layout()
    assert ll.bases == [("dim0", [[64], [144], [288]]), ("dim1", [[1], [2], [4], [8], [16], [32]])]
    assert ll.is_invertible()
    assert np.array_equal(ll.apply_all()["offset"], composed.offsets())
    assert composed.size() == 512 and composed.cosize() == 512
    with pytest.raises(NotLinearError, match="affine"):
        CuteComposedLayout.parse("Swizzle<3,4,3> o 8 o (8,64):(64,1)").to_linear_layout()


def test_composed_evaluation_and_offset() -> None:
    composed = CuteComposedLayout.parse("Swizzle<1,2,1> o 4 o 8:1")
    assert [composed(i) for i in range(8)] == [CuteSwizzle(1, 2, 1)(i + 4) for i in range(8)]
    assert composed.offsets().tolist() == [composed(i) for i in range(8)]


# ---------------------------------------- from_linear_layout


def test_from_linear_layout_examples() -> None:
    for text in ["(4,2):(2,1)", "8:1", "((2,2),4):((1,8),2)", "(8,64):(64,1)", "(4,2):(0,4)"]:
        layout = CuteLayout.parse(text)
        back = CuteLayout.from_linear_layout(layout.to_linear_layout())
        assert str(back) == text
    # A non-contiguous single mode stays one top-level mode so the in-dims round-trip.
    ll = LinearLayout.from_bases([("dim0", [[1], [4], [2]])], ["offset"])
    layout = CuteLayout.from_linear_layout(ll)
    assert str(layout) == "((2,2,2)):((1,4,2))"
    assert layout.to_linear_layout() == ll


def test_from_linear_layout_multiple_out_dims_flatten() -> None:
    ll = LinearLayout.from_bases([("offset", [[0, 1], [1, 0], [2, 0], [0, 2]])], ["dim1", "dim0"])
    layout = CuteLayout.from_linear_layout(ll)
    assert str(layout) == "((2,4,2)):((4,1,8))"


def test_from_linear_layout_errors() -> None:
    xor = LinearLayout.from_bases([("dim0", [[1], [2], [6]])], ["offset"])
    with pytest.raises(NotLinearError) as info:
        CuteLayout.from_linear_layout(xor)
    assert str(info.value) == (
        "cute: basis 2 of in-dim 'dim0' maps to offset 6 (0b110), sharing offset bit 1 with "
        "basis 1 of in-dim 'dim0' (offset 2); CuTe adds strides, so setting both gives 8 where "
        "the linear layout XORs to 4. XOR-combined bases need a swizzle: try "
        "CuteComposedLayout.from_linear_layout"
    )
    dup = LinearLayout.from_bases(
        [("dim0", [[1]]), ("dim1", [[1]])], ["offset"], require_surjective=False
    )
    with pytest.raises(NotLinearError, match="offset 1 \\(a power of two\\), sharing offset bit 0"):
        CuteLayout.from_linear_layout(dup)


def test_composed_from_linear_layout_finds_swizzle() -> None:
    target = CuteComposedLayout.parse("Swizzle<1,2,1> o (4,4):(4,1)")
    found = CuteComposedLayout.from_linear_layout(target.to_linear_layout())
    assert found == target
    # Bit 9 is never set by (8,64):(64,1), so the smallest equivalent swizzle is <2,4,3>.
    big = CuteComposedLayout.parse("Swizzle<3,4,3> o (8,64):(64,1)")
    found = CuteComposedLayout.from_linear_layout(big.to_linear_layout())
    assert str(found) == "Swizzle<2,4,3> o (8,64):(64,1)"
    assert np.array_equal(found.offsets(), big.offsets())
    plain = CuteComposedLayout.from_linear_layout(
        CuteLayout.parse("(4,2):(2,1)").to_linear_layout()
    )
    assert str(plain) == "Swizzle<0,0,0> o (4,2):(2,1)"


def test_composed_from_linear_layout_failure() -> None:
    # offset bit 0 = x0 ^ x1 ^ x2 needs two XORed source bits: no single swizzle does that here.
    ll = LinearLayout.from_bases([("dim0", [[1], [3], [5]])], ["offset"])
    with pytest.raises(NotLinearError, match="no Swizzle<B,M,S>"):
        CuteComposedLayout.from_linear_layout(ll)


# ---------------------------------------- properties


@st.composite
def linear_cute_layouts(draw: st.DrawFn) -> CuteLayout:
    """Random hierarchical layouts that are F2-linear by construction (with broadcasts)."""
    num_modes = draw(st.integers(1, 3))
    structure = [draw(st.integers(0, 3)) for _ in range(num_modes)]  # 0: leaf, n: n sub-leaves
    leaves = [draw(st.integers(0, 3)) for _ in range(sum(max(n, 1) for n in structure))]
    order = draw(st.permutations(range(len(leaves))))
    strides = [0] * len(leaves)
    pos = 0
    for leaf in order:
        if draw(st.booleans()) and draw(st.booleans()):
            strides[leaf] = 0  # broadcast
            continue
        pos += draw(st.integers(0, 1))
        strides[leaf] = 1 << pos
        pos += leaves[leaf]
    shape: list = []
    stride: list = []
    k = 0
    for n in structure:
        if n == 0:
            shape.append(1 << leaves[k])
            stride.append(strides[k])
            k += 1
        else:
            shape.append(tuple(1 << e for e in leaves[k : k + n]))
            stride.append(tuple(strides[k : k + n]))
            k += n
    if num_modes == 1 and draw(st.booleans()):
        return CuteLayout(shape[0], stride[0])
    return CuteLayout(tuple(shape), tuple(stride))


@settings(max_examples=150, deadline=None)
@given(linear_cute_layouts())
def test_to_linear_layout_agrees_with_evaluation(layout: CuteLayout) -> None:
    ll = layout.to_linear_layout()
    assert ll.get_in_dim_names() == [f"dim{m}" for m in range(layout.rank)]
    assert ll.total_in_size == layout.size()
    # apply_all enumerates with dim0 fastest, which is exactly CuTe's integral coordinate.
    assert np.array_equal(ll.apply_all()["offset"], layout.offsets())
    assert ll.get_out_dim_size("offset") >= layout.cosize()
    i = layout.size() - 1
    assert ll.flatten_ins().apply({ll.flatten_ins().get_in_dim_names()[0]: i}) == {
        "offset": layout(i)
    }


@settings(max_examples=150, deadline=None)
@given(linear_cute_layouts())
def test_from_linear_layout_round_trips(layout: CuteLayout) -> None:
    ll = layout.to_linear_layout()
    back = CuteLayout.from_linear_layout(ll)
    assert np.array_equal(back.offsets(), layout.offsets())
    assert back.to_linear_layout() == ll
    assert str(CuteLayout.from_linear_layout(back.to_linear_layout())) == str(back)


@settings(max_examples=100, deadline=None)
@given(linear_cute_layouts(), swizzles)
def test_composed_layouts_agree_and_round_trip(layout: CuteLayout, swizzle: CuteSwizzle) -> None:
    composed = CuteComposedLayout(swizzle, layout)
    ll = composed.to_linear_layout()
    assert np.array_equal(ll.apply_all()["offset"], composed.offsets())
    found = CuteComposedLayout.from_linear_layout(ll)
    assert np.array_equal(found.offsets(), composed.offsets())


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from([1, 2, 4, 8]), st.integers(0, 9)), min_size=1, max_size=4)
)
def test_linearity_check_is_exact(modes: list[tuple[int, int]]) -> None:
    """to_linear_layout succeeds exactly when XOR of the bit images reproduces the map."""
    layout = CuteLayout(tuple(s for s, _ in modes), tuple(d for _, d in modes))
    # XOR of the images of the integral-coordinate bits, for every coordinate.
    bit_images = [layout(1 << b) for b in range(layout.size().bit_length() - 1)]
    xor = [0] * layout.size()
    for i in range(layout.size()):
        for b, image in enumerate(bit_images):
            if (i >> b) & 1:
                xor[i] ^= image
    is_linear = xor == layout.offsets().tolist()
    try:
        ll = layout.to_linear_layout()
    except NotLinearError:
        assert not is_linear
    else:
        assert is_linear
        assert ll.apply_all()["offset"].tolist() == xor


def test_linearity_check_exhaustive_small() -> None:
    """Every 2-mode layout with extents <= 4 and strides <= 8: raise iff not linear."""
    count_linear = 0
    for s0, s1, d0, d1 in product([1, 2, 4], [1, 2, 4], range(9), range(9)):
        layout = CuteLayout((s0, s1), (d0, d1))
        bit_images = [layout(1 << b) for b in range(layout.size().bit_length() - 1)]
        expected = []
        for i in range(layout.size()):
            value = 0
            for b, image in enumerate(bit_images):
                if (i >> b) & 1:
                    value ^= image
            expected.append(value)
        linear = expected == layout.offsets().tolist()
        try:
            layout.to_linear_layout()
            assert linear, str(layout)
            count_linear += 1
        except NotLinearError:
            assert not linear, str(layout)
    assert count_linear > 50


def test_equal_layouts_hash_equal() -> None:
    a = CuteLayout.parse("((2,2),4):((1,4),2)")
    b = CuteLayout(((2, 2), 4), ((1, 4), 2))
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
