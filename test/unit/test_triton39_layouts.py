"""Triton 3.9's newer layout spellings against Triton itself: the ``amd_wmma`` ``ctaLayout``
(accumulator and dot operands), the ``CGALayout`` bases of several CTAs, the triple and the warp
grid as ``-t ttgir`` writes them, and ``#ttg.padded_shared``'s offsets.

Triton's layouts come from its Gluon bindings (``GluonOpBuilder.get_*_layout`` and
``to_linear_layout``, the C++ ``toLinearLayout``); those checks skip without Triton. A few
hundred small layouts: well under a second."""

from __future__ import annotations

import importlib.util
import itertools
from typing import Any

import pytest

from llc.layouts import CTALayout, PaddedSharedLayout, from_triton_params

needs_triton = pytest.mark.skipif(
    importlib.util.find_spec("triton") is None,
    reason="Triton is not installed (pip install triton==3.9.0)",
)


@pytest.fixture(scope="module")
def builder() -> Any:
    from triton._C.libtriton import amd, gluon_ir, ir, nvidia

    context = ir.context()
    ir.load_dialects(context)
    nvidia.load_dialects(context)
    amd.load_dialects(context)
    return context, gluon_ir.GluonOpBuilder(context)


def _triton_bases(builder: Any, attr: Any, shape: list[int]) -> dict[str, list[list[int]]]:
    _, b = builder
    ll = b.to_linear_layout(attr, shape)
    if hasattr(ll, "reg_bases"):
        return {
            "register": ll.reg_bases,
            "lane": ll.lane_bases,
            "warp": ll.warp_bases,
            "block": ll.block_bases,
        }
    return {"offset": ll.offset_bases, "block": ll.block_bases}


def _llc_bases(layout: Any, shape: list[int]) -> dict[str, list[list[int]]]:
    return {k: [list(x) for x in v] for k, v in layout.to_linear_layout(shape).bases}


WMMA = [
    (version, instr, transposed, warp, reg)
    for (version, instr), transposed, (warp, reg) in itertools.product(
        [(1, [16, 16, 16]), (2, [16, 16, 16]), (3, [16, 16, 32])],
        [False, True],
        [
            ([[0, 1], [1, 0]], []),
            ([[1, 0], [2, 0]], [[0, 1]]),
            ([], []),
            ([[0, 2], [0, 1]], []),
            ([[0, 0], [1, 0]], []),
        ],
    )
]


@needs_triton
@pytest.mark.parametrize("shape", [[64, 64], [32, 128]])
def test_wmma_cta_layout_is_tritons(builder: Any, shape: list[int]) -> None:
    """Every ``ctaLayout`` (warps and register repeats in tiles, a broadcast warp too) gives
    Triton's layout."""
    _, b = builder
    for version, instr, transposed, warp, reg in WMMA:
        theirs = b.get_amd_wmma_layout(version, transposed, warp, reg, [], instr, 2)
        ours = from_triton_params(
            "amd_wmma",
            {
                "version": version,
                "isTranspose": transposed,
                "ctaLayout": {"register": reg, "warp": warp},
                "instrShape": instr,
            },
        )
        assert _llc_bases(ours, shape) == _triton_bases(builder, theirs, shape), (warp, reg)


@needs_triton
def test_wmma_dot_operands_are_tritons(builder: Any) -> None:
    """Dot operands of a WMMA layout given by ``ctaLayout``, with the kWidths Triton 3.9
    accepts (v3: any up to K, e.g. 4)."""
    _, b = builder
    cases = [
        (2, [16, 16, 16], (4, 8, 16)),
        (3, [16, 16, 32], (2, 4, 8, 16)),
        (3, [16, 16, 64], (8, 16)),
    ]
    for (version, instr, widths), transposed, warp in itertools.product(
        cases, [False, True], [[[0, 1], [1, 0]], [[1, 0]], []]
    ):
        parent = b.get_amd_wmma_layout(version, transposed, warp, [], [], instr, 2)
        ours_parent = from_triton_params(
            "amd_wmma",
            {
                "version": version,
                "isTranspose": transposed,
                "ctaLayout": {"warp": warp},
                "instrShape": instr,
            },
        )
        for op_idx, k_width in itertools.product((0, 1), widths):
            theirs = b.get_dot_operand_layout(op_idx, parent, k_width)
            ours = from_triton_params(
                "dot_op", {"opIdx": op_idx, "parent": ours_parent, "kWidth": k_width}
            )
            assert _llc_bases(ours, [64, 64]) == _triton_bases(builder, theirs, [64, 64])


@needs_triton
def test_a_warp_grid_is_written_as_the_cta_layout_triton_reads_the_same(builder: Any) -> None:
    """``-t ttgir`` writes ``warpsPerCTA`` as ``ctaLayout`` (3.9 reads no ``warpsPerCTA``):
    Triton's layout of what llc writes is llc's layout of what it read."""
    _, b = builder
    for version, warps in itertools.product((1, 2), ([2, 2], [4, 1], [1, 4], [2, 4])):
        grid = from_triton_params(
            "amd_wmma", {"version": version, "isTranspose": False, "warpsPerCTA": warps}
        )
        written = grid.triton39_cta_layout()
        theirs = b.get_amd_wmma_layout(version, False, written["warp"], [], [], [16, 16, 16], 2)
        assert _llc_bases(grid, [128, 128]) == _triton_bases(builder, theirs, [128, 128])


@needs_triton
def test_cga_bases_are_tritons(builder: Any) -> None:
    """``CGALayout`` bases on blocked and swizzled layouts (split, broadcast, in either order),
    and the older triple written as bases by ``-t ttgir``: Triton's layout each time."""
    _, b = builder
    for bases in ([[1, 0]], [[0, 1]], [[0, 0], [1, 0]], [[1, 0], [0, 0]], [[0, 1], [1, 0]]):
        theirs = b.get_blocked_layout([1, 1], [8, 4], [4, 1], [1, 0], bases)
        ours = from_triton_params(
            "blocked",
            {
                "sizePerThread": [1, 1],
                "threadsPerWarp": [8, 4],
                "warpsPerCTA": [4, 1],
                "order": [1, 0],
                "CGALayout": bases,
            },
        )
        assert _llc_bases(ours, [64, 64]) == _triton_bases(builder, theirs, [64, 64]), bases
        shared = b.get_swizzled_shared_layout(2, 1, 4, [1, 0], bases)
        ours_shared = from_triton_params(
            "swizzled_shared",
            {"vec": 2, "perPhase": 1, "maxPhase": 4, "order": [1, 0], "CGALayout": bases},
        )
        assert _llc_bases(ours_shared, [16, 32]) == _triton_bases(builder, shared, [16, 32])
    for triple in (([2, 2], [2, 1], [1, 0]), ([4, 1], [2, 1], [0, 1]), ([2, 2], [2, 2], [0, 1])):
        cta = CTALayout(*triple)
        theirs = b.get_blocked_layout([1, 1], [8, 4], [4, 1], [1, 0], cta.to_bases())
        ours = from_triton_params(
            "blocked",
            {
                "sizePerThread": [1, 1],
                "threadsPerWarp": [8, 4],
                "warpsPerCTA": [4, 1],
                "order": [1, 0],
                "CTAsPerCGA": triple[0],
                "CTASplitNum": triple[1],
                "CTAOrder": triple[2],
            },
        )
        assert _llc_bases(ours, [64, 64]) == _triton_bases(builder, theirs, [64, 64]), triple


def test_padded_offsets_hold_each_element_once_and_fill_the_allocation() -> None:
    """The padded offset of every element is distinct, skips exactly the padding after each
    interval and ends at the allocation's last element (a wrong formula moves one)."""
    for intervals, paddings in (([128], [8]), ([4, 8], [1, 2]), ([32], [32])):
        layout = PaddedSharedLayout(intervals, paddings, order=[1, 0], shape=[16, 64])
        physical = [layout.padded_offset(o) for o in range(16 * 64)]
        assert len(set(physical)) == len(physical)
        assert physical[-1] + 1 == layout.allocation_elements([16, 64])
        unused = set(range(physical[-1] + 1)) - set(physical)
        pad = sum(((16 * 64 - 1) // i) * p for i, p in zip(intervals, paddings, strict=True))
        assert len(unused) == pad
    layout = PaddedSharedLayout([128], [8], order=[1, 0], shape=[16, 64])
    assert [layout.padded_offset(o) for o in (127, 128, 256)] == [127, 136, 272]
