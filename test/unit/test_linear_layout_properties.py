"""Property tests of :class:`llc.LinearLayout` over random layouts (hypothesis).

Layouts have up to 20 input bits over the in-dims ``register, lane, warp, block`` and up to
20 output bits over ``dim0, dim1, dim2``. Brute-force oracles use :meth:`apply_all` or an
independent numpy Gaussian elimination, never :mod:`llc.f2`.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

import numpy as np
import pytest
from f2_oracle import gf2_rank
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from llc import LayoutError, LinearLayout

IN_POOL = ("register", "lane", "warp", "block")
OUT_POOL = ("dim0", "dim1", "dim2")

PROPS = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
FEW = settings(PROPS, max_examples=120)


# ================================================================================ strategies
@st.composite
def dim_sizes(
    draw: st.DrawFn, pool: Sequence[str], max_bits: int, max_per_dim: int, min_dims: int = 0
) -> dict[str, int]:
    """An ordered sub-list of ``pool`` with a log2 size for each, at most ``max_bits`` in all."""
    names = [n for n in pool if draw(st.booleans())]
    while len(names) < min_dims:
        names = list(pool[: len(names) + 1])
    result, left = {}, max_bits
    for name in names:
        bits = draw(st.integers(0, min(max_per_dim, left)))
        result[name] = bits
        left -= bits
    return result


def values(bits: int) -> st.SearchStrategy[int]:
    """Basis values: random, but often 0 or a power of two as in real layouts."""
    if bits == 0:
        return st.just(0)
    return st.one_of(
        st.just(0),
        st.integers(0, bits - 1).map(lambda k: 1 << k),
        st.integers(0, (1 << bits) - 1),
    )


@st.composite
def bases_for(
    draw: st.DrawFn, in_bits: dict[str, int], out_bits: dict[str, int]
) -> list[tuple[str, list[list[int]]]]:
    return [
        (name, [[draw(values(b)) for b in out_bits.values()] for _ in range(count)])
        for name, count in in_bits.items()
    ]


def build(bases, out_bits: dict[str, int]) -> LinearLayout:
    return LinearLayout.from_bases(
        bases, list(out_bits), [1 << b for b in out_bits.values()], require_surjective=False
    )


@st.composite
def layouts(
    draw: st.DrawFn,
    max_in: int = 20,
    max_out: int = 20,
    in_bits: dict[str, int] | None = None,
    out_bits: dict[str, int] | None = None,
) -> LinearLayout:
    """Any layout (not necessarily surjective or injective)."""
    if out_bits is None:
        out_bits = draw(dim_sizes(OUT_POOL, max_out, 8))
    if in_bits is None:
        in_bits = draw(dim_sizes(IN_POOL, max_in, 7))
    return build(draw(bases_for(in_bits, out_bits)), out_bits)


@st.composite
def surjective_layouts(
    draw: st.DrawFn,
    out_bits: dict[str, int] | None = None,
    max_extra: int = 6,
    max_in: int = 20,
    in_pool: Sequence[str] = IN_POOL,
    square: bool = False,
) -> LinearLayout:
    """A surjective layout: one unit column per output bit, shuffled in among random columns
    (``square``: none, so the layout is invertible)."""
    if out_bits is None:
        out_bits = draw(dim_sizes(OUT_POOL, max_in if square else max_in - max_extra, 6))
    units = [
        [1 << k if j == i else 0 for j in range(len(out_bits))]
        for i, bits in enumerate(out_bits.values())
        for k in range(bits)
    ]
    extra = 0 if square else draw(st.integers(0, min(max_extra, max_in - len(units))))
    columns = units + [[draw(values(b)) for b in out_bits.values()] for _ in range(extra)]
    order = draw(st.permutations(range(len(columns))))
    columns = [columns[k] for k in order]
    if square and columns:
        # Mix the unit columns so the layout is not just a permutation: add earlier columns
        # to later ones (keeps full rank).
        for k in range(1, len(columns)):
            if draw(st.booleans()):
                src = draw(st.integers(0, k - 1))
                columns[k] = [a ^ b for a, b in zip(columns[k], columns[src], strict=True)]
    names = [n for n in in_pool if draw(st.booleans())] or [in_pool[0]]
    cuts = sorted(
        draw(
            st.lists(st.integers(0, len(columns)), min_size=len(names) - 1, max_size=len(names) - 1)
        )
    )
    bounds = [0, *cuts, len(columns)]
    bases = [(n, columns[bounds[i] : bounds[i + 1]]) for i, n in enumerate(names)]
    layout = build(bases, out_bits)
    assert layout.is_surjective()
    return layout


# ================================================================================== oracles
def pivot_columns(columns: Sequence[int]) -> set[int]:
    """Columns independent of the ones before them, from ranks of prefixes."""
    ranks = [gf2_rank(columns[:k]) for k in range(len(columns) + 1)]
    return {k for k in range(len(columns)) if ranks[k + 1] > ranks[k]}


def flat_columns(layout: LinearLayout) -> list[int]:
    """Each input bit's image as one int (out-dims packed minor first), via apply()."""
    flat = layout.flatten_outs() if layout.num_out_dims else layout
    out = flat.get_out_dim_names()
    result = []
    for name, size in layout.in_dims.items():
        for bit in range(size.bit_length() - 1):
            point = dict.fromkeys(layout.in_dims, 0)
            point[name] = 1 << bit
            result.append(flat.apply(point)[out[0]] if out else 0)
    return result


def inputs(layout: LinearLayout, rng: random.Random, count: int = 24) -> list[dict[str, int]]:
    """Random inputs plus every basis input."""
    points = [{n: rng.randrange(s) for n, s in layout.in_dims.items()} for _ in range(count)]
    for name, size in layout.in_dims.items():
        for bit in range(size.bit_length() - 1):
            point = dict.fromkeys(layout.in_dims, 0)
            point[name] = 1 << bit
            points.append(point)
    return points


def canonical(layout: LinearLayout) -> LinearLayout:
    """The same map with its dims in pool order (products only agree up to dim order)."""
    ins = sorted(layout.get_in_dim_names(), key=IN_POOL.index)
    outs = sorted(layout.get_out_dim_names(), key=OUT_POOL.index)
    return layout.transpose_ins(ins).transpose_outs(outs)


def identity_on(names_sizes: dict[str, int]) -> LinearLayout:
    result = LinearLayout.empty()
    for name, size in names_sizes.items():
        result = result * LinearLayout.identity_1d(size, name, name)
    return result


seeds = st.integers(0, 2**32 - 1)


# ================================================================================= algebra
@PROPS
@given(st.data())
def test_product_is_associative_with_shared_dims(data: st.DataObject) -> None:
    in_bits = data.draw(dim_sizes(IN_POOL, 6, 3, min_dims=1))
    out_bits = data.draw(dim_sizes(OUT_POOL, 6, 3, min_dims=1))
    a, b, c = (data.draw(layouts(in_bits=in_bits, out_bits=out_bits)) for _ in range(3))
    assert (a * b) * c == a * (b * c)


@PROPS
@given(layouts(max_in=7, max_out=7), layouts(max_in=7, max_out=7), layouts(max_in=6, max_out=6))
def test_product_is_associative_up_to_dim_order(
    a: LinearLayout, b: LinearLayout, c: LinearLayout
) -> None:
    # The supremum of dim orders depends on the grouping ([dim2] * [dim1] is [dim2, dim1],
    # which then clashes with [dim1, dim2]); compare wherever both groupings are defined.
    try:
        left, right = (a * b) * c, a * (b * c)
    except LayoutError:
        assume(False)
    assert canonical(left) == canonical(right)


@PROPS
@given(layouts(max_in=8, max_out=8), layouts(max_in=8, max_out=8), seeds)
def test_product_semantics(a: LinearLayout, b: LinearLayout, seed: int) -> None:
    # Shared in-dim: a's bits low, b's high. Shared out-dim: b's value sits above a's size.
    prod = a * b
    rng = random.Random(seed)
    for _ in range(16):
        x = {n: rng.randrange(s) for n, s in prod.in_dims.items()}
        xa = {n: x[n] % s for n, s in a.in_dims.items()}
        xb = {n: x[n] >> (a.in_dims.get(n, 1).bit_length() - 1) for n in b.in_dims}
        ya, yb = a.apply(xa), b.apply(xb)
        expected = {
            n: ya.get(n, 0) | (yb.get(n, 0) << (a.out_dim_sizes.get(n, 1).bit_length() - 1))
            for n in prod.get_out_dim_names()
        }
        assert prod.apply(x) == expected


@st.composite
def compose_chains(draw: st.DrawFn) -> tuple[LinearLayout, LinearLayout, LinearLayout]:
    mid_bits = draw(dim_sizes(("x0", "x1", "x2"), 10, 5))
    end_bits = draw(dim_sizes(("y0", "y1"), 10, 6))
    b_in = {n.replace("x", "dim"): v for n, v in mid_bits.items()}
    a = draw(layouts(in_bits=draw(dim_sizes(IN_POOL, 10, 5)), out_bits=b_in))
    b = build(draw(bases_for(b_in, mid_bits)), mid_bits)
    c = build(draw(bases_for(mid_bits, end_bits)), end_bits)
    return a, b, c


@PROPS
@given(compose_chains())
def test_compose_is_associative(chain: tuple[LinearLayout, LinearLayout, LinearLayout]) -> None:
    a, b, c = chain
    assert a.compose(b).compose(c) == a.compose(b.compose(c))


@PROPS
@given(compose_chains(), seeds)
def test_compose_applies_inner_then_outer(
    chain: tuple[LinearLayout, LinearLayout, LinearLayout], seed: int
) -> None:
    a, b, _ = chain
    ab = a.compose(b)
    assert ab.out_dims == b.out_dims
    for x in inputs(a, random.Random(seed), 8):
        assert ab.apply(x) == b.apply(a.apply(x))


@FEW
@given(seeds)
def test_dense_compose_matches_apply(seed: int) -> None:
    # Random dense matrices (the numpy path of compose) against composing apply().
    rng = random.Random(seed)
    in_bits = {"register": rng.randint(5, 10), "lane": rng.randint(4, 10)}
    mid = {"dim0": rng.randint(5, 12), "dim1": rng.randint(5, 12)}
    end = {"o": rng.randint(1, 60)}
    a = build([(n, [[rng.getrandbits(b) for b in mid.values()] for _ in range(k)])
               for n, k in in_bits.items()], mid)  # fmt: skip
    b = build([(n, [[rng.getrandbits(end["o"])] for _ in range(k)]) for n, k in mid.items()], end)
    ab = a.compose(b)
    for x in inputs(a, rng, 16):
        assert ab.apply(x) == b.apply(a.apply(x))


@PROPS
@given(layouts(), seeds)
def test_apply_is_linear(layout: LinearLayout, seed: int) -> None:
    rng = random.Random(seed)
    zero = dict.fromkeys(layout.in_dims, 0)
    assert set(layout.apply(zero).values()) <= {0}
    for _ in range(16):
        x = {n: rng.randrange(s) for n, s in layout.in_dims.items()}
        y = {n: rng.randrange(s) for n, s in layout.in_dims.items()}
        fx, fy = layout.apply(x), layout.apply(y)
        assert layout.apply({n: x[n] ^ y[n] for n in x}) == {o: fx[o] ^ fy[o] for o in fx}


# ================================================================================ inverses
@PROPS
@given(surjective_layouts(square=True), seeds)
def test_invert_undoes_an_invertible_layout(layout: LinearLayout, seed: int) -> None:
    assert layout.is_invertible()
    inverse = layout.invert()
    rng = random.Random(seed)
    for x in inputs(layout, rng, 16):
        assert inverse.apply(layout.apply(x)) == x
    for y in inputs(inverse, rng, 16):
        assert layout.apply(inverse.apply(y)) == y
    assert layout.compose(inverse) == identity_on(layout.in_dims)
    assert inverse.compose(layout) == identity_on(layout.out_dim_sizes)


@PROPS
@given(surjective_layouts(), seeds)
def test_pseudoinvert_is_a_right_inverse(layout: LinearLayout, seed: int) -> None:
    p = layout.pseudoinvert()
    assert p.compose(layout) == identity_on(layout.out_dim_sizes)
    for y in inputs(p, random.Random(seed), 16):
        assert layout.apply(p.apply(y)) == y
    # Among all right inverses, the smallest inputs: images are built from pivot columns only.
    pivots = pivot_columns(flat_columns(layout))
    for column in flat_columns(p):
        bits = {k for k in range(column.bit_length()) if column >> k & 1}
        assert bits <= pivots


@st.composite
def conversions(draw: st.DrawFn, equal_sizes: bool = False) -> tuple[LinearLayout, LinearLayout]:
    """(L, M): M surjective onto L's out-dims (maybe larger, maybe reordered), sharing in-dims.

    Three shapes: unrelated in-dims; an in-dim of L copied into M (same sublayout, usually
    overlapping other in-dims, so solved); or both built as products with a common factor
    in the high output bits (block-diagonal, so Triton's identity heuristic applies).
    """
    mode = draw(st.sampled_from(["random", "copied", "block"]))
    if mode == "block":
        low_bits = draw(dim_sizes(OUT_POOL, 8, 4, min_dims=1))
        shared_name = draw(st.sampled_from(IN_POOL))
        others = tuple(n for n in IN_POOL if n != shared_name)
        high_bits = {n: draw(st.integers(0, 2)) for n in low_bits}
        shared = draw(surjective_layouts(out_bits=high_bits, max_extra=2, in_pool=(shared_name,)))
        inner = draw(layouts(in_bits=draw(dim_sizes(others, 8, 4)), out_bits=low_bits))
        outer = draw(surjective_layouts(out_bits=low_bits, in_pool=others, max_extra=3))
        perm = draw(st.permutations(list(low_bits)))
        return inner * shared, (outer * shared).transpose_outs(perm)
    outer = draw(surjective_layouts(max_in=14, max_extra=4))
    out_bits = {n: s.bit_length() - 1 for n, s in outer.out_dims}
    smaller = {
        n: draw(st.integers(0, b)) if not equal_sizes and draw(st.booleans()) else b
        for n, b in out_bits.items()
    }
    inner = draw(layouts(in_bits=draw(dim_sizes(IN_POOL, 10, 4)), out_bits=smaller))
    if mode == "copied" and inner.num_in_dims:
        name = draw(st.sampled_from(inner.get_in_dim_names()))
        copy = inner.sublayout([name], inner.get_out_dim_names())
        # Re-express the copy over outer's out sizes, then add it as (or next to) outer's dim.
        copy = build(copy.bases, out_bits)
        rest = [(n, v) for n, v in outer.bases if n != name]
        outer = build([*rest, *copy.bases], out_bits)
        assume(outer.is_surjective())
    perm = draw(st.permutations(outer.get_out_dim_names()))
    return inner, outer.transpose_outs(perm)


def identity_dims(inner: LinearLayout, outer: LinearLayout) -> set[str]:
    """Triton 3.9's heuristic, recomputed from apply(): same sublayout, disjoint supports."""
    outer = outer.transpose_outs(inner.get_out_dim_names())
    wide = LinearLayout.from_bases(
        inner.bases,
        inner.get_out_dim_names(),
        [s for _, s in outer.out_dims],
        require_surjective=False,
    )

    def supports(layout: LinearLayout) -> dict[str, int]:
        cols = iter(flat_columns(layout))
        result = {}
        for name, size in layout.in_dims.items():
            acc = 0
            for _ in range(size.bit_length() - 1):
                acc |= next(cols)
            result[name] = acc
        return result

    s_in, s_out = supports(wide), supports(outer)
    result = set()
    for name in set(inner.in_dims) & set(outer.in_dims):
        if (
            wide.sublayout([name], wide.get_out_dim_names()).bases
            != outer.sublayout([name], outer.get_out_dim_names()).bases
        ):
            continue
        rest_in = 0
        for n, v in s_in.items():
            if n != name:
                rest_in |= v
        rest_out = 0
        for n, v in s_out.items():
            if n != name:
                rest_out |= v
        if not (s_in[name] & rest_in) and not (s_out[name] & rest_out):
            result.add(name)
    return result


@settings(PROPS, max_examples=300)
@given(conversions(), seeds)
def test_invert_and_compose_factors_through_outer(
    pair: tuple[LinearLayout, LinearLayout], seed: int
) -> None:
    inner, outer = pair
    c = inner.invert_and_compose(outer)
    assert c.get_in_dim_names() == inner.get_in_dim_names()
    assert c.out_dims == list(outer.in_dims.items())
    for x in inputs(inner, random.Random(seed), 16):
        assert outer.apply(c.apply(x)) == inner.apply(x)


@settings(PROPS, max_examples=300)
@given(conversions())
def test_invert_and_compose_picks_tritons_preimage(pair: tuple[LinearLayout, LinearLayout]) -> None:
    inner, outer = pair
    c = inner.invert_and_compose(outer)
    kept = identity_dims(inner, outer)
    # Identity dims map to themselves...
    for name in kept:
        size = inner.in_dims[name]
        expected = LinearLayout.identity_1d(size, name, name)
        assert c.sublayout([name], [name]).equal_ignoring_out_dim_sizes(expected)
        assert c.sublayout_is_zero([name], [n for n in c.get_out_dim_names() if n != name])
    # ...and everything else is the solution over outer's other in-dims using pivot columns
    # only (free variables 0).
    rest = [n for n in outer.get_in_dim_names() if n not in kept]
    outer_rest = outer.sublayout(rest, outer.get_out_dim_names())
    pivots = pivot_columns(flat_columns(outer_rest))
    solved = [n for n in inner.get_in_dim_names() if n not in kept]
    if not solved or not rest:
        return
    images = c.sublayout(solved, rest)
    for column in flat_columns(images):
        assert {k for k in range(column.bit_length()) if column >> k & 1} <= pivots
    assert c.sublayout_is_zero(solved, sorted(kept))


@FEW
@given(surjective_layouts(max_in=12), seeds)
def test_invert_and_compose_with_itself_is_identity_on_the_image(
    layout: LinearLayout, seed: int
) -> None:
    c = layout.invert_and_compose(layout)
    for x in inputs(layout, random.Random(seed), 8):
        assert layout.apply(c.apply(x)) == layout.apply(x)


@FEW
@given(layouts(max_in=10, max_out=10))
def test_invert_and_compose_rejects_an_outer_that_misses_the_image(layout: LinearLayout) -> None:
    assume(layout.rank > 0 and layout.num_out_dims)
    collapsed = LinearLayout.from_bases(
        [("offset", [[0] * layout.num_out_dims])],
        layout.get_out_dim_names(),
        [s for _, s in layout.out_dims],
        require_surjective=False,
    )
    try:
        layout.invert_and_compose(collapsed)
    except LayoutError as err:
        assert "does not cover the image" in str(err)
    else:
        raise AssertionError("expected a LayoutError")


# ============================================================================== reshaping
@st.composite
def splits(draw: st.DrawFn, total: int, prefix: str) -> list[tuple[str, int]]:
    count = draw(st.integers(1, 4))
    cuts = sorted(draw(st.lists(st.integers(0, total), min_size=count - 1, max_size=count - 1)))
    bounds = [0, *cuts, total]
    return [(f"{prefix}{i}", 1 << (bounds[i + 1] - bounds[i])) for i in range(count)]


@PROPS
@given(st.data())
def test_reshape_and_flatten_round_trip(data: st.DataObject) -> None:
    layout = data.draw(layouts(max_in=14, max_out=14))
    ins = data.draw(splits(layout.total_in_size_log2, "i"))
    outs = data.draw(splits(layout.total_out_size_log2, "o"))
    original_ins = list(layout.in_dims.items())
    assert layout.reshape_ins(ins).reshape_ins(original_ins) == layout
    assert layout.reshape_outs(outs).reshape_outs(layout.out_dims) == layout
    if layout.num_in_dims:
        assert layout.flatten_ins().reshape_ins(original_ins) == layout
    if layout.num_out_dims:
        assert layout.flatten_outs().reshape_outs(layout.out_dims) == layout
        # Same function on flattened indices: the first out-dim is the least significant.
        combined = np.zeros(layout.total_in_size, dtype=np.int64)
        for (_, size), vals in zip(
            reversed(layout.out_dims), reversed(list(layout.apply_all().values())), strict=True
        ):
            combined = combined * size + vals
        flat = layout.reshape_ins(ins).flatten_outs().apply_all()
        assert np.array_equal(next(iter(flat.values())), combined)
        assert np.array_equal(layout.apply_all_packed(), combined)


# ==================================================================== structure queries
@PROPS
@given(layouts(max_in=14, max_out=20))
def test_free_variable_masks_by_brute_force(layout: LinearLayout) -> None:
    # Input bit k (flattened) is free iff flipping it, given only lower bits, reaches no new
    # output: L(2^k) is already the image of some input below 2^k.
    masks = layout.get_free_variable_masks()
    outs = layout.flatten_outs().apply_all() if layout.num_out_dims else {}
    images = next(iter(outs.values())) if outs else np.zeros(layout.total_in_size, np.int64)
    k = 0
    for name, size in layout.in_dims.items():
        for bit in range(size.bit_length() - 1):
            free = bool(np.isin(images[1 << k], images[: 1 << k]))
            assert bool(masks[name] >> bit & 1) == free, (name, bit)
            k += 1
    assert list(masks) == layout.get_in_dim_names()
    assert (sum(bin(m).count("1") for m in masks.values()) == 0) == layout.is_injective()


@PROPS
@given(layouts(max_in=20, max_out=20))
def test_free_variable_masks_match_prefix_ranks(layout: LinearLayout) -> None:
    pivots = pivot_columns(flat_columns(layout))
    masks = layout.get_free_variable_masks()
    k = 0
    for name, size in layout.in_dims.items():
        for bit in range(size.bit_length() - 1):
            assert bool(masks[name] >> bit & 1) == (k not in pivots)
            k += 1
    assert layout.rank == len(pivots) == gf2_rank(flat_columns(layout))


@PROPS
@given(st.data())
def test_num_consecutive_in_out_by_brute_force(data: st.DataObject) -> None:
    layout = data.draw(layouts(max_in=12, max_out=12))
    if data.draw(st.booleans()) and layout.num_in_dims and layout.num_out_dims:
        # Give it a real identity prefix so the answer is often > 1.
        first_in, first_out = layout.get_in_dim_names()[0], layout.get_out_dim_names()[0]
        prefix = LinearLayout.identity_1d(1 << data.draw(st.integers(1, 3)), first_in, first_out)
        layout = prefix * layout
    got = layout.get_num_consecutive_in_out()
    if not layout.num_in_dims or not layout.num_out_dims:
        assert got == 1
        return
    outs = list(layout.apply_all().values())
    first_bits = next(iter(layout.in_dims.values())).bit_length() - 1
    best = 0
    for k in range(first_bits + 1):
        # L(a*2^k + v, ...) == L(a*2^k, ...) + (v, 0, ..., 0) for every v < 2^k.
        v = np.arange(1 << k)
        first = outs[0].reshape(-1, 1 << k)
        ok = np.array_equal(first, first[:, :1] + v)
        ok = ok and all(
            bool((o.reshape(-1, 1 << k) == o.reshape(-1, 1 << k)[:, :1]).all()) for o in outs[1:]
        )
        if not ok:
            break
        best = k
    assert got == 1 << best


@PROPS
@given(st.data())
def test_divide_undoes_product(data: st.DataObject) -> None:
    in_bits = data.draw(dim_sizes(IN_POOL, 8, 4, min_dims=1))
    out_bits = data.draw(dim_sizes(OUT_POOL, 8, 4, min_dims=1))
    a = data.draw(layouts(in_bits=in_bits, out_bits=out_bits))
    b = data.draw(
        layouts(
            in_bits={n: data.draw(st.integers(0, 3)) for n in in_bits},
            out_bits={n: data.draw(st.integers(0, 3)) for n in out_bits},
        )
    )
    assert (a * b).divide_left(a) == b
    assert (a * b).divide_right(b) == a


@PROPS
@given(layouts(), seeds)
def test_matrix_agrees_with_apply(layout: LinearLayout, seed: int) -> None:
    matrix = layout.matrix().astype(np.int64)
    assert matrix.shape == (layout.total_out_size_log2, layout.total_in_size_log2)
    assert layout.get_matrix_view() == matrix.tolist()
    rng = random.Random(seed)
    for x in inputs(layout, rng, 12):
        bits = []
        for name, size in layout.in_dims.items():
            bits += [x[name] >> k & 1 for k in range(size.bit_length() - 1)]
        out_bits = (
            matrix @ np.array(bits, dtype=np.int64) % 2
            if bits
            else np.zeros(matrix.shape[0], np.int64)
        )
        y = layout.apply(x)
        expected = []
        for name, size in layout.out_dims:
            expected += [y[name] >> k & 1 for k in range(size.bit_length() - 1)]
        assert out_bits.tolist() == expected


@PROPS
@given(layouts(max_in=16, max_out=20), seeds)
def test_apply_all_agrees_with_apply(layout: LinearLayout, seed: int) -> None:
    everything = layout.apply_all()
    assert list(everything) == layout.get_out_dim_names()
    total = layout.total_in_size
    rng = random.Random(seed)
    indices = range(total) if total <= 256 else [rng.randrange(total) for _ in range(64)]
    names = list(layout.in_dims.items())
    for index in indices:
        x, rest = {}, index
        for name, size in names:
            x[name], rest = rest % size, rest // size
        y = layout.apply(x)
        for out, arr in everything.items():
            assert arr.shape == (total,) and arr.dtype == np.int64
            assert arr[index] == y[out]


@FEW
@given(st.data())
def test_wide_layouts_have_no_64_bit_cap(data: st.DataObject) -> None:
    # 80 output bits in two out-dims of 40 bits: a random invertible map, then a random
    # non-surjective one with 100-bit out-dims.
    out_bits = {"dim0": 40, "dim1": 40}
    layout = data.draw(surjective_layouts(out_bits=out_bits, square=True, max_in=80))
    assert layout.total_out_size_log2 == 80 and layout.is_invertible()
    inverse = layout.invert()
    rng = random.Random(data.draw(seeds))
    for x in inputs(layout, rng, 8):
        assert inverse.apply(layout.apply(x)) == x
    wide = data.draw(layouts(in_bits={"register": 6}, out_bits={"dim0": 100, "dim1": 3}))
    everything = wide.apply_all()
    for index in range(wide.total_in_size):
        assert everything["dim0"][index] == wide.apply({"register": index})["dim0"]


@FEW
@given(layouts(max_in=12, max_out=12), st.data())
def test_sublayouts_and_transposes_preserve_bases(
    layout: LinearLayout, data: st.DataObject
) -> None:
    ins = data.draw(st.permutations(layout.get_in_dim_names()))
    outs = data.draw(st.permutations(layout.get_out_dim_names()))
    moved = layout.transpose_ins(ins).transpose_outs(outs)
    for x in inputs(layout, random.Random(0), 4):
        assert moved.apply(x) == layout.apply(x)
    keep_in = [n for n in ins if data.draw(st.booleans())]
    keep_out = [n for n in outs if data.draw(st.booleans())]
    sub = layout.sublayout(keep_in, keep_out)
    assert sub.get_in_dim_names() == [n for n in layout.get_in_dim_names() if n in keep_in]
    for x in inputs(sub, random.Random(1), 4):
        full = layout.apply({**dict.fromkeys(layout.in_dims, 0), **x})
        assert sub.apply(x) == {n: full[n] for n in sub.get_out_dim_names()}


@FEW
@given(layouts(max_in=10, max_out=10))
def test_equality_and_hash_are_structural(layout: LinearLayout) -> None:
    again = LinearLayout.from_bases(
        layout.bases,
        layout.get_out_dim_names(),
        [s for _, s in layout.out_dims],
        require_surjective=False,
    )
    assert again == layout and hash(again) == hash(layout)
    assert eval(repr(layout), {"LinearLayout": LinearLayout}) == layout
    if layout.num_out_dims:
        name = layout.get_out_dim_names()[0]
        bigger = layout.resize_out_dim(name, layout.get_out_dim_size(name))
        assert bigger == layout
    for a, b in itertools.pairwise([layout, again]):
        assert a.equal_ignoring_out_dim_sizes(b)


# ===================================================================== against triton itself
def _triton() -> object | None:
    try:
        from triton._C.libtriton import linear_layout  # type: ignore[import-not-found]
    except Exception:  # any import failure: triton (the optional bench extra) is not usable
        return None
    return linear_layout


def _to_triton(tll: object, layout: LinearLayout) -> object:
    return tll.LinearLayout.from_bases(  # type: ignore[attr-defined]
        layout.bases,
        layout.get_out_dim_names(),
        [s for _, s in layout.out_dims],
        require_surjective=False,
    )


def _same(ours: LinearLayout, theirs: object) -> bool:
    their_bases = [(n, [list(b) for b in v]) for n, v in theirs.bases]  # type: ignore[attr-defined]
    their_outs = [tuple(d) for d in theirs.out_dims]  # type: ignore[attr-defined]
    return ours.bases == their_bases and ours.out_dims == their_outs


@pytest.mark.skipif(_triton() is None, reason="triton is not installed (optional bench extra)")
@settings(PROPS, max_examples=300)
@given(conversions(equal_sizes=True), layouts(max_in=8, max_out=8))
def test_same_answers_as_triton(
    pair: tuple[LinearLayout, LinearLayout], other: LinearLayout
) -> None:
    # Only inputs Triton accepts (it aborts on the others): outer surjective with the same
    # out-dim sizes, products whose dim orders agree.
    tll = _triton()
    inner, outer = pair
    t_inner, t_outer = _to_triton(tll, inner), _to_triton(tll, outer)
    assert _same(inner.invert_and_compose(outer), t_inner.invert_and_compose(t_outer))
    assert _same(outer.pseudoinvert(), t_outer.pseudoinvert())
    assert _same(inner.compose(outer.pseudoinvert()), t_inner.compose(t_outer.pseudoinvert()))
    assert str(inner) == str(t_inner).lstrip("\n")
    assert inner.get_matrix_view() == t_inner.get_matrix_view()
    for name in ("is_surjective", "is_injective", "is_invertible"):
        assert getattr(inner, name)() == getattr(t_inner, name)()
    try:
        product = inner * other
    except LayoutError:
        return
    assert _same(product, t_inner * _to_triton(tll, other))
