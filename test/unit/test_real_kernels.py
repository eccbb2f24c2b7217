"""Real Triton kernels we did not write (issue 18, session 3): never worse than Triton 3.9.

Every kernel of ``bench/dump_triton.py``'s session-3 set has Triton 3.9's TTIR and TTGIR in
``examples/triton``. Each TTIR goes through ``llc-optimize-layouts`` (the warps and target
Triton compiled it with); the result must leave at most as many ``convert_layout`` ops as the
Triton TTGIR next to it and a whole-kernel figure (``--layout-report``'s total) at most Triton's
(read from that TTGIR at test time). No Triton needed: ``bench/vs_triton_ptx.py`` compares the
PTX when it is installed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from llc.dialects.layout_attrs import BlockedEncodingAttr, LinearEncodingAttr
from llc.dialects.layout_rules import LAYOUT_RULES, blocked_equivalent, reshape_encoding
from llc.dialects.ttgir import HardwareDefaults, parse_triton_module
from llc.layouts import BlockedLayout
from llc.layouts.linear import DistributedLinearLayout
from llc.passes.layout_passes import OptimizeLayoutsPass, count_conversions, module_figure
from llc.tools.run import make_context

FIXTURES = Path(__file__).resolve().parents[2] / "examples" / "triton"
KERNELS = (
    "flip_scan",
    "rotary",
    "permute_tiles",
    "argmin_cols",
    "welford_rows",
    "scatter_atomics",
    "matmul_nt",
    "bmm",
    "matmul_i8",
    "matmul_gelu",
    "online_softmax",
    "layer_norm_bwd",
    "asm_math",
    "segment_sum",
    "unrolled_stencil",
    "descriptor_matmul",
    "gather_cols",
)
TRITON_UNREADABLE = {"descriptor_matmul.sm90"}
"""Triton TTGIR llc does not read (already lowered to TMA ops): only the conversions compare."""


def _warps(ttgir: str) -> int:
    return int(ttgir.split('"ttg.num-warps" = ', 1)[1].split(" ", 1)[0])


@pytest.mark.parametrize("stem", [f"{k}.sm{a}" for k in KERNELS for a in (80, 90)])
def test_llc_is_never_worse_than_triton(stem: str) -> None:
    triton_text = (FIXTURES / f"{stem}.ttgir").read_text()
    arch = stem.rsplit(".sm", 1)[1]
    module = parse_triton_module(
        (FIXTURES / f"{stem}.ttir").read_text(),
        f"{stem}.ttir",
        HardwareDefaults(_warps(triton_text), 32, f"cuda:{arch}"),
    )
    OptimizeLayoutsPass().apply(make_context(), module)
    module.verify()
    ours, conversions = module_figure(module)
    assert conversions == count_conversions(module)
    assert conversions <= triton_text.count("ttg.convert_layout ")
    if stem in TRITON_UNREADABLE:
        return
    theirs, _ = module_figure(parse_triton_module(triton_text, f"{stem}.ttgir"))
    assert ours <= theirs


def test_a_broadcast_keeps_a_linear_layout() -> None:
    """Triton's LinearEncodingAttr stands for its bases at every shape, so broadcasting a
    tensor in one keeps it (a rule answering None would force a conversion each way)."""
    linear = LinearEncodingAttr(DistributedLinearLayout([[1, 0]], [[0, 1]], [], []))
    rule = LAYOUT_RULES["tl.broadcast"]
    assert rule.forward(None, 0, linear) == [linear]  # type: ignore[arg-type]
    assert rule.backward(None, [linear]) == [linear]  # type: ignore[arg-type]


def test_a_reshape_states_its_layout_as_blocked_when_one_maps_alike() -> None:
    rows = BlockedEncodingAttr(BlockedLayout([1, 2], [1, 32], [2, 2], [1, 0]))
    split = reshape_encoding(rows, (64, 128), (64, 64, 2))
    assert isinstance(split, BlockedEncodingAttr)
    assert split.layout.size_per_thread == (1, 1, 2)
    # ... and as #tl.linear when none does (lanes of one dim on both sides of another's).
    mixed = DistributedLinearLayout([], [[0, 1], [1, 0], [0, 2]], [], []).linear_layout()
    assert blocked_equivalent(mixed) is None
    for layout in (
        BlockedLayout([1, 1], [1, 32], [2, 2], [1, 0]),
        BlockedLayout([2, 4], [8, 4], [1, 4], [0, 1]),
        BlockedLayout([1, 1, 1], [1, 1, 32], [1, 2, 2], [2, 1, 0]),
    ):
        for shape in ([64, 64], [16, 16], [4, 256]) if len(layout.order) == 2 else ([2, 8, 64],):
            found = blocked_equivalent(layout.to_linear_layout(shape))
            assert found is not None
            assert found.layout.to_linear_layout(shape) == layout.to_linear_layout(shape)
