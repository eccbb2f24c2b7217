"""Proofs with ISL (issue 13): llc.isl checked against llc's own F2 algebra."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pytest

pytest.importorskip("islpy", reason="islpy is not installed (pip install -e '.[isl]')")

from conversion_pairs import random_pair

from llc.isl import (
    cute_relation,
    prove_conversion,
    prove_equal,
    prove_properties,
    relation,
    swizzle_relation,
    xla_relation,
)
from llc.layouts.cute import CuteComposedLayout, CuteLayout, CuteSwizzle
from llc.layouts.xla import XlaTiledLayout
from llc.linear_layout import LinearLayout
from llc.swizzle import plan_swizzle

IN_DIMS = ("register", "lane", "warp")


def random_layout(rng: np.random.Generator, max_bits: int = 12) -> LinearLayout:
    """A random layout of at most ``max_bits`` input bits onto a 2-D tensor."""
    total = int(rng.integers(1, max_bits + 1))
    cuts = sorted(rng.integers(0, total + 1, size=2))
    counts = [cuts[0], cuts[1] - cuts[0], total - cuts[1]]
    out_bits = int(rng.integers(1, max_bits + 1))
    rows = int(rng.integers(0, out_bits + 1))
    cols = out_bits - rows
    bases = []
    for name, count in zip(IN_DIMS, counts, strict=True):
        vectors = [
            [int(rng.integers(0, 1 << rows)), int(rng.integers(0, 1 << cols))] for _ in range(count)
        ]
        bases.append((name, vectors))
    return LinearLayout.from_bases(
        bases, ["dim0", "dim1"], [1 << rows, 1 << cols], require_surjective=False
    )


def _values(text: str) -> dict[str, int]:
    return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", text)}


@pytest.mark.parametrize("seed", range(40))
def test_equal_agrees_with_the_algebra(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = random_layout(rng)
    same = LinearLayout.from_bases(
        a.bases, a.get_out_dim_names(), [s for _, s in a.out_dims], require_surjective=False
    )
    assert prove_equal(a, same).holds
    # change one basis vector: the maps differ, and the counterexample must show it
    name = next((n for n in IN_DIMS if a.get_in_dim_size(n) > 1), None)
    if name is None:
        return
    bases = dict(a.bases)
    pos = int(rng.integers(0, len(bases[name])))
    old = bases[name][pos]
    bases[name] = [
        *bases[name][:pos],
        [
            old[0] ^ 1 if a.get_out_dim_size("dim0") > 1 else old[0],
            old[1] ^ (1 if a.get_out_dim_size("dim0") == 1 else 0),
        ],
        *bases[name][pos + 1 :],
    ]
    b = LinearLayout.from_bases(
        list(bases.items()),
        a.get_out_dim_names(),
        [s for _, s in a.out_dims],
        require_surjective=False,
    )
    proof = prove_equal(a, b)
    assert proof.holds == (a == b) is False
    line = proof.details[0]
    index_text, rest = line.removeprefix("counterexample: ").split(" -> ")
    index = _values(index_text)
    left, right = rest.split("; B: ")
    assert a.apply(index) == _values(left.removeprefix("LAYOUT: "))
    assert b.apply(index) == _values(right)
    assert a.apply(index) != b.apply(index)


@pytest.mark.parametrize("seed", range(40))
def test_properties_agree_with_the_algebra(seed: int) -> None:
    layout = random_layout(np.random.default_rng(1000 + seed))
    proof = prove_properties(layout)
    assert proof.holds, proof.report()
    assert ("injective: yes" in proof.details) == layout.is_injective()
    assert ("surjective: yes" in proof.details) == layout.is_surjective()
    if not layout.is_injective():
        first, second = re.match(
            r"injective: no: (.*) and (.*) both map to", proof.details[0]
        ).groups()
        assert first != second
        assert layout.apply(_values(first)) == layout.apply(_values(second))


def test_relation_matches_apply_all() -> None:
    layout = random_layout(np.random.default_rng(7), 8)
    rel = relation(layout)
    outs = layout.apply_all()
    # every point of the relation, enumerated by ISL, is what llc's vectorized evaluation gives
    points = []
    rel.wrap().foreach_point(lambda p: points.append(p))
    assert len(points) == layout.total_in_size
    sizes = [layout.get_in_dim_size(n) for n in layout.get_in_dim_names()]
    for p in points:
        import islpy as isl

        coords = [p.get_coordinate_val(isl.dim_type.set, i).to_python() for i in range(5)]
        flat = coords[0] + sizes[0] * (coords[1] + sizes[1] * coords[2])
        assert [int(outs["dim0"][flat]), int(outs["dim1"][flat])] == coords[3:]


@pytest.mark.parametrize(
    "text",
    ["(4,2):(2,1)", "((2,2),4):((1,8),2)", "(8,(2,4)):(8,(1,64))", "(2,2):(1,6)", "16:1"],
)
def test_cute_relation_equals_its_linear_layout(text: str) -> None:
    layout = CuteLayout.parse(text)
    ll = layout.to_linear_layout()
    assert relation(ll, in_name="coord", out_name="memory").is_equal(cute_relation(layout))


def test_cute_relation_of_a_non_linear_layout() -> None:
    # (3):(5) is not F2-linear, but ISL states it exactly
    rel = cute_relation(CuteLayout.parse("3:5"))
    points = []
    rel.range().foreach_point(lambda p: points.append(p))
    assert len(points) == 3


@pytest.mark.parametrize("text", ["Swizzle<3,4,3> o (8,64):(64,1)", "Swizzle<2,0,3> o (8,8):(8,1)"])
def test_composed_relation_equals_its_linear_layout(text: str) -> None:
    layout = CuteComposedLayout.parse(text)
    ll = layout.to_linear_layout()
    assert relation(ll, in_name="coord", out_name="memory").is_equal(cute_relation(layout))


@pytest.mark.parametrize("bms", [(3, 4, 3), (1, 2, 1), (2, 3, 4)])
def test_swizzle_relation_equals_its_linear_layout(bms: tuple[int, int, int]) -> None:
    swizzle = CuteSwizzle(*bms)
    ll = swizzle.to_linear_layout()
    assert relation(ll, in_name="memory", out_name="memory").is_equal(swizzle_relation(swizzle))
    assert swizzle_relation(swizzle).is_bijective()


@pytest.mark.parametrize(
    ("text", "dims"),
    [("{1,0:T(2,2)}", (4, 4)), ("{0,1:T(8,128)}", (16, 256)), ("{1,0:T(8,128)(2,1)}", (16, 256))],
)
def test_xla_relation_equals_its_linear_layout(text: str, dims: tuple[int, int]) -> None:
    layout = XlaTiledLayout.parse(text)
    ll = layout.to_linear_layout(dims)
    assert relation(ll, in_name="coord", out_name="memory").is_equal(xla_relation(layout, dims))


def test_xla_relation_of_a_padded_shape() -> None:
    # f32[3,5]{1,0:T(2,2)}: the XLA document's element (2,3) at offset 17; injective, 15 elements
    rel = xla_relation(XlaTiledLayout.parse("{1,0:T(2,2)}"), (3, 5))
    assert rel.is_injective()
    points = []
    rel.range().foreach_point(lambda p: points.append(p))
    assert len(points) == 15


@pytest.mark.parametrize("seed", range(30))
def test_conversion_plans_are_proved(seed: int) -> None:
    src, dst, bitwidth, kind = random_pair(seed)
    if src.get_in_dim_size("block") > 1 if src.has_in_dim("block") else False:
        pytest.skip("llc-lower-conversions plans one CTA")
    proof = prove_conversion(src, dst, bitwidth)
    assert proof.holds, (kind, proof.report())


@dataclass(frozen=True)
class _BrokenPlan:
    """A plan whose store addresses are wrong: two lane columns of ``store_map`` swapped."""

    store_layout: LinearLayout
    load_layout: LinearLayout
    store_map: LinearLayout
    load_map: LinearLayout
    vector_bits: int = 0
    bank_bits: int = 0
    segment_bits: int = 0
    store_vector: int = 1
    load_vector: int = 1


def test_a_wrong_plan_is_disproved_with_a_counterexample() -> None:
    from llc.layouts import BlockedLayout

    row = BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0]).to_linear_layout([32, 32])
    col = BlockedLayout([4, 1], [4, 8], [1, 4], [0, 1]).to_linear_layout([32, 32])
    plan = plan_swizzle(row, col, 32)
    store_map = plan.store_map
    bases = dict(store_map.bases)
    bases["lane"] = [bases["lane"][1], bases["lane"][0], *bases["lane"][2:]]
    broken_map = LinearLayout.from_bases(
        list(bases.items()), ["offset"], [store_map.get_out_dim_size("offset")]
    )
    broken = _BrokenPlan(plan.store_layout, plan.load_layout, broken_map, plan.load_map)
    proof = prove_conversion(row, col, 32, plan=broken)
    assert not proof.holds
    line = next(d for d in proof.details if d.startswith("counterexample"))
    source, destination = re.match(
        r"counterexample: source (.*) holds .*; destination (.*) holds", line
    ).groups()
    src_index, dst_index = _values(source), _values(destination)
    # the two indices hold different elements, so moving one to the other is wrong
    assert row.apply(src_index) != col.apply(dst_index)
    assert prove_conversion(row, col, 32, plan=plan).holds
