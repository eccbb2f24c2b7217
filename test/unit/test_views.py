"""Unit tests of llc.views (Triton's layout dump formats) and of llc-layout's helpers.

The expected strings of the Triton formats are those of Triton's DumpLayoutTest
(unittest/Dialect/TritonGPU/DumpLayoutTest.cpp) for the same layouts, written here as the linear
layouts Triton builds for them.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from llc.errors import LayoutError
from llc.linear_layout import LinearLayout
from llc.views import (
    coordinate_view,
    distributed_view,
    matrix_view,
    offset_view,
    render_grid,
    shared_element_view,
    shared_view,
)


def _ll(bases: list[tuple[str, list[list[int]]]], outs: list[str]) -> LinearLayout:
    return LinearLayout.from_bases(bases, outs)


# A 4x4 blocked layout: sizePerThread [1, 2], threadsPerWarp [4, 2], one warp, order [1, 0].
BLOCKED_4X4 = _ll(
    [("register", [[0, 1]]), ("lane", [[0, 2], [1, 0], [2, 0]]), ("warp", []), ("block", [])],
    ["dim0", "dim1"],
)

# Triton's SimpleBlocked: blocked<{sizePerThread = [1], threadsPerWarp = [8], warpsPerCTA = [4],
# order = [0]}> on tensor<4xi32>: lanes 4-7 and all other warps broadcast.
SIMPLE_BLOCKED = _ll(
    [("register", []), ("lane", [[1], [2], [0]]), ("warp", [[0], [0]]), ("block", [])], ["dim0"]
)

# Triton's NDTensor: blocked<{sizePerThread = [2, 1, 4], threadsPerWarp = [2, 2, 2],
# warpsPerCTA = [1, 2, 1], order = [2, 1, 0]}> on tensor<8x2x16xi32>.
ND_TENSOR = _ll(
    [
        ("register", [[0, 0, 1], [0, 0, 2], [1, 0, 0], [0, 0, 8], [4, 0, 0]]),
        ("lane", [[0, 0, 4], [0, 1, 0], [2, 0, 0]]),
        ("warp", [[0, 0, 0]]),
        ("block", []),
    ],
    ["dim0", "dim1", "dim2"],
)


def test_blocked_4x4_tensor_view() -> None:
    assert distributed_view(BLOCKED_4X4) == (
        "[[T0:0, T0:1, T1:0, T1:1]\n"
        "[ T2:0, T2:1, T3:0, T3:1]\n"
        "[ T4:0, T4:1, T5:0, T5:1]\n"
        "[ T6:0, T6:1, T7:0, T7:1]]\n"
    )


def test_blocked_4x4_hardware_view() -> None:
    assert distributed_view(BLOCKED_4X4, use_hw_view=True) == (
        "Warp0:\n"
        "(0,0), (0,2), (1,0), (1,2), (2,0), (2,2), (3,0), (3,2)\n"
        "(0,1), (0,3), (1,1), (1,3), (2,1), (2,3), (3,1), (3,3)\n"
    )


def test_linear_layout_methods_use_views() -> None:
    assert BLOCKED_4X4.get_distributed_view() == distributed_view(BLOCKED_4X4)
    assert BLOCKED_4X4.get_distributed_view(True) == distributed_view(BLOCKED_4X4, True)
    shared = LinearLayout.identity_1d(4, "offset", "dim0")
    assert shared.get_shared_view(True) == shared_view(shared, True)


def test_triton_simple_blocked() -> None:
    assert distributed_view(SIMPLE_BLOCKED) == (
        "[ T0:0| T4:0| T8:0|T12:0|T16:0|T20:0|T24:0|T28:0,  T1:0| T5:0| T9:0|T13:0|T17:0|"
        "T21:0|T25:0|T29:0,  T2:0| T6:0|T10:0|T14:0|T18:0|T22:0|T26:0|T30:0,  T3:0| T7:0|"
        "T11:0|T15:0|T19:0|T23:0|T27:0|T31:0]\n"
    )
    warp = "(0), (1), (2), (3), (0), (1), (2), (3)\n"
    assert distributed_view(SIMPLE_BLOCKED, use_hw_view=True) == "".join(
        f"Warp{w}:\n{warp}" for w in range(4)
    )


def test_triton_nd_tensor() -> None:
    lines = distributed_view(ND_TENSOR).splitlines()
    assert len(lines) == 16
    assert lines[0].startswith("[[[  T0:0|  T8:0,   T0:1|  T8:1,   T0:2|  T8:2,   T0:3|  T8:3,")
    assert lines[0].endswith("  T1:10| T9:10,  T1:11| T9:11]")
    assert lines[1].startswith("[    T2:0| T10:0,")
    assert lines[1].endswith("]]")
    assert lines[2].startswith("[[   T0:4|  T8:4,")
    assert lines[-1].endswith("  T7:30|T15:30,  T7:31|T15:31]]]")
    hw = distributed_view(ND_TENSOR, use_hw_view=True).splitlines()
    assert hw[0] == "Warp0:"
    assert hw[1] == "(0,0, 0), (0,0, 4), (0,1, 0), (0,1, 4), (2,0, 0), (2,0, 4), (2,1, 0), (2,1, 4)"
    assert hw[9] == "(0,0, 8), (0,0,12), (0,1, 8), (0,1,12), (2,0, 8), (2,0,12), (2,1, 8), (2,1,12)"
    assert hw[33] == "Warp1:"
    assert hw[1:33] == hw[34:66]  # the second warp is a broadcast copy


def test_triton_simple_1d_shared() -> None:
    shared = LinearLayout.identity_1d(32, "offset", "dim0")
    expected = "[" + ",".join(f"({i:2d})" for i in range(32)) + "]\n"
    assert shared_view(shared) == expected


def test_triton_larger_2d_shared() -> None:
    # swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 8, order = [1, 0]}> on 8x32 (tensor view)
    swizzled = _ll(
        [("offset", [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 8], [4, 16]])],
        ["dim0", "dim1"],
    )
    lines = shared_view(swizzled).splitlines()
    assert lines[0].startswith("[[(0: 0),(0: 1),(0: 2)")
    assert (
        lines[2]
        == "[ "
        + ",".join(
            f"(2:{c:2d})" for c in [*range(8, 16), *range(8), *range(24, 32), *range(16, 24)]
        )
        + "]"
    )
    assert lines[-1].endswith("(7: 6),(7: 7)]]")
    # vec = 2, perPhase = 1, maxPhase = 32 (hardware view)
    hw_layout = _ll(
        [("offset", [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 2], [2, 4], [4, 8]])],
        ["dim0", "dim1"],
    )
    hw = shared_view(hw_layout, use_hw_view=True).splitlines()
    assert hw[:3] == ["Block: 0:", "Offset: 0 -> (0, 0)", "Offset: 1 -> (0, 1)"]
    assert hw[33:37] == [
        "Offset: 32 -> (1, 2)",
        "Offset: 33 -> (1, 3)",
        "Offset: 34 -> (1, 0)",
        "Offset: 35 -> (1, 1)",
    ]
    assert hw[-1] == "Offset: 255 -> (7,17)"


def test_multiple_blocks_prefix() -> None:
    ll = _ll([("lane", [[1]]), ("block", [[2]])], ["dim0"])
    assert distributed_view(ll) == "[B0:T0:0, B0:T1:0, B1:T0:0, B1:T1:0]\n"
    assert distributed_view(ll, use_hw_view=True) == (
        "Block0:\nWarp0:\n(0), (1)\nBlock1:\nWarp0:\n(2), (3)\n"
    )


def test_in_dim_order_is_irrelevant() -> None:
    permuted = BLOCKED_4X4.transpose_ins(["block", "lane", "warp", "register"])
    assert distributed_view(permuted) == distributed_view(BLOCKED_4X4)


def test_padded_shape_crops_and_marks() -> None:
    ll = _ll([("register", [[4]]), ("lane", [[1], [2]])], ["dim0"])
    assert distributed_view(ll, shape=[6]) == "[T0:0, T1:0, T2:0, T3:0, T0:1, T1:1]\n"
    assert distributed_view(ll, use_hw_view=True, shape=[6]) == (
        "Warp0:\n(0), (1), (2), (3)\n(4), (5), (6)*, (7)*\n"
    )


def test_distributed_view_rejects_other_in_dims() -> None:
    with pytest.raises(LayoutError, match="in-dims must be among"):
        distributed_view(LinearLayout.identity_1d(4, "offset", "dim0"))


def test_shared_element_view_is_transpose_of_shared_view() -> None:
    swizzle = _ll([("offset", [[0, 1], [0, 2], [1, 2]])], ["dim0", "dim1"])
    assert shared_element_view(swizzle) == "[[0, 1, 2, 3]\n[ 6, 7, 4, 5]]\n"
    assert shared_view(swizzle) == "[[(0:0),(0:1),(0:2),(0:3)]\n[ (1:2),(1:3),(1:0),(1:1)]]\n"


def test_coordinate_and_offset_views() -> None:
    # XLA {1,0:T(2,2)} on 4x4: dim0 is the row.
    tiled = _ll([("dim0", [[2], [8]]), ("dim1", [[1], [4]])], ["offset"])
    assert coordinate_view(tiled) == (
        "[[ 0,  1,  4,  5]\n[  2,  3,  6,  7]\n[  8,  9, 12, 13]\n[ 10, 11, 14, 15]]\n"
    )
    assert coordinate_view(tiled, shape=[3, 2]) == "[[ 0,  1]\n[  2,  3]\n[  8,  9]]\n"
    listing = offset_view(tiled).splitlines()
    assert listing[:5] == [
        "Offset: 0 -> (0,0)",
        "Offset: 1 -> (0,1)",
        "Offset: 2 -> (1,0)",
        "Offset: 3 -> (1,1)",
        "Offset: 4 -> (0,2)",
    ]


def test_matrix_view_labels() -> None:
    text = matrix_view(BLOCKED_4X4)
    assert text == (
        "        register | lane\n"
        "        0        | 0 1 2\n"
        "dim0[0] 0        | 0 1 0\n"
        "dim0[1] 0        | 0 0 1\n"
        "dim1[0] 1        | 0 0 0\n"
        "dim1[1] 0        | 1 0 0\n"
    )
    assert np.array_equal(
        np.array(
            [[int(v) for v in line[8:].replace("|", "").split()] for line in text.splitlines()[2:]]
        ),
        BLOCKED_4X4.matrix(),
    )


def test_render_grid_3d() -> None:
    assert render_grid([str(i) for i in range(8)], [2, 2, 2], ",") == (
        "[[[0,1]\n[  2,3]]\n[[ 4,5]\n[  6,7]]]\n"
    )


def test_vectorized_views_scale() -> None:
    # 64x64 with 4 warps: 4096 elements; must not be per-element slow.
    lanes = [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]]
    ll = _ll(
        [
            ("register", [[0, 1], [0, 2], [0, 32], [16, 0], [32, 0]]),
            ("lane", lanes),
            ("warp", [[4, 0], [8, 0]]),
            ("block", []),
        ],
        ["dim0", "dim1"],
    )
    assert distributed_view(ll).count("T") == 64 * 64
    assert distributed_view(ll, use_hw_view=True).count("(") == 64 * 64


# ------------------------------------------------------------------------------ llc-layout
def test_parse_shape() -> None:
    from llc.tools.layout import parse_shape

    assert parse_shape("32x16") == (32, 16)
    with pytest.raises(Exception, match="not a shape"):
        parse_shape("32xq")


def test_layout_json() -> None:
    from llc.tools.layout import layout_json

    assert json.dumps(layout_json(BLOCKED_4X4)) == (
        '{"in_dims": {"register": [[0, 1]], "lane": [[0, 2], [1, 0], [2, 0]], "warp": [], '
        '"block": []}, "out_dims": {"dim0": 4, "dim1": 4}}'
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["#ttg.foo<{a = 1}>", "--shape", "4x4"],
        [
            "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], "
            "order = [0]}>",
            "--shape",
            "4x4",
        ],
        ["@/nonexistent/layout.ttgir"],
        ["(4,3):(1,4)"],
        ["(4,2):(2,1)", "--view", "nope"],
    ],
)
def test_llc_layout_errors_exit_1(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from llc.tools.layout import main

    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "error: " in err and "Traceback" not in err


def test_llc_layout_json_main(capsys: pytest.CaptureFixture[str]) -> None:
    from llc.tools.layout import main

    main(["(4,2):(2,1)", "--json"])
    assert json.loads(capsys.readouterr().out) == {
        "in_dims": {"dim0": [[2], [4]], "dim1": [[1]]},
        "out_dims": {"offset": 8},
    }
