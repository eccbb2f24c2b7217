"""Pictures of layouts (issue 13): the four views of every family, checked as data and, in
headless Chromium, as pixels."""

from __future__ import annotations

import itertools
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from chromium import require_chromium, screenshot, svg_size

from llc.linear_layout import LinearLayout
from llc.pictures import (
    Panel,
    conversion_panels,
    layout_views,
    render_html,
    render_svg,
    warp_colour,
)
from llc.swizzle import count_wavefronts
from llc.tools.layout import build, parse_layout_text

BLOCKED = (
    "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
    "order = [1, 0]}>"
)
MMA2 = (
    "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], "
    "instrShape = [16, 8]}>"
)
# family -> (layout, shape, conversion partner); shared families are stored into from BLOCKED.
FAMILIES = {
    # each distributed family on the smallest tensor its warps cover once (Chromium's time grows
    # with the cells drawn)
    "blocked": (BLOCKED, (32, 16), "transposed"),
    "mma_v2": (MMA2, (32, 16), "transposed"),
    "mma_v3": (
        "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], "
        "instrShape = [16, 16, 16]}>",
        (64, 16),
        "transposed",
    ),
    "dot_op": (f"#ttg.dot_op<{{opIdx = 0, parent = {MMA2}, kWidth = 2}}>", (32, 16), "transposed"),
    "mfma": (
        # 16x16 instructions put four warps on a 32x32 tensor: a quarter of the cells that
        # 32x32 instructions need, for the same checks
        "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16], "
        "isTransposed = true}>",
        (32, 32),
        "transposed",
    ),
    "slice": (f"#ttg.slice<{{dim = 1, parent = {BLOCKED}}}>", (64,), "1d"),
    "nvmma_shared": (
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>",
        (16, 64),
        BLOCKED,
    ),
    "swizzled_shared": (
        "#ttg.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
        (32, 32),
        BLOCKED,
    ),
}


def _partner(kind: str, lanes: int, rank: int) -> str:
    if kind == "1d":
        return (
            f"#ttg.blocked<{{sizePerThread = [1], threadsPerWarp = [{lanes}], "
            "warpsPerCTA = [4], order = [0]}>"
        )
    tpw = [lanes // 8, 8] if lanes == 64 else [4, 8]
    return (
        f"#ttg.blocked<{{sizePerThread = [4, 1], threadsPerWarp = {tpw}, warpsPerCTA = [1, 4], "
        "order = [0, 1]}>"
    )


def family_views(name: str) -> tuple[LinearLayout, dict[str, list[Panel]]]:
    """The layout of a family and its four views."""
    text, shape, partner = FAMILIES[name]
    built = build(parse_layout_text(text), shape, None, None)
    if built.hardware is not None:
        lanes = built.hardware.threads_per_warp
        other = build(parse_layout_text(_partner(partner, lanes, len(shape))), shape, None, lanes)
        return built.ll, layout_views(built.ll, 16, other.ll)
    bitwidth = built.loaded.layout.__dict__.get("element_bit_width", 16)
    views = layout_views(built.ll, bitwidth)
    store = build(parse_layout_text(partner), shape, None, None)
    views["conversion"] = conversion_panels(store.ll, built.ll, bitwidth)
    return built.ll, views


def expected_tensor_fills(ll: LinearLayout, rows: int, cols: int) -> list[str]:
    """The tensor view's colours, found element by element with ``LinearLayout.apply`` (not
    the vectorized code the pictures use): the first holder's warp and lane."""
    fills = [None] * (rows * cols)
    names = ll.get_out_dim_names()
    if ll.has_in_dim("lane"):
        sizes = {d: ll.get_in_dim_size(d) for d in ("block", "warp", "lane", "register")}
        for b, w, ln, r in itertools.product(*(range(sizes[d]) for d in sizes)):
            out = ll.apply({"register": r, "lane": ln, "warp": w, "block": b})
            flat = 0
            for name in names:
                flat = flat * ll.get_out_dim_size(name) + out[name]
            if fills[flat] is None:
                fills[flat] = warp_colour(w, ln, sizes["lane"])
    else:
        for offset in range(ll.get_in_dim_size("offset")):
            out = ll.apply({"offset": offset, "block": 0})
            flat = 0
            for name in names:
                flat = flat * ll.get_out_dim_size(name) + out[name]
            fills[flat] = offset
    return fills  # type: ignore[return-value]


@pytest.mark.parametrize("name", list(FAMILIES))
def test_four_views_of_each_family(name: str) -> None:
    ll, views = family_views(name)
    assert list(views) == ["tensor", "hardware", "memory", "conversion"]
    tensor = views["tensor"][0]
    size = ll.total_out_size
    assert tensor.rows * tensor.cols == size
    expected = expected_tensor_fills(ll, tensor.rows, tensor.cols)
    got = [f for row in tensor.fills for f in row]
    if ll.has_in_dim("lane"):
        assert got == expected
        hw_cells = sum(p.rows * p.cols for p in views["hardware"])
        assert hw_cells == ll.get_in_dim_size("register") * ll.get_in_dim_size("lane") * (
            ll.get_in_dim_size("warp")
        )
    else:
        labels = [int(lab.split("\n")[0]) for row in tensor.labels for lab in row]
        assert labels == expected  # each element labelled with its offset
    memory = views["memory"]
    assert all(p.cols in (32, 64, 128) for p in memory)
    assert any(p.marks for p in views["conversion"]), "no access overlay in the conversion view"


def test_broadcast_cells_are_marked() -> None:
    _, views = family_views("slice")
    tensor = views["tensor"][0]
    # slicing away dim 1 of a [1,4]x[8,4] blocked layout: the 4 lanes along dim 1 hold copies
    # (the registers along it are dropped, as Triton's slice layout drops them)
    assert {kind for *_, kind in tensor.marks} == {"broadcast"}
    assert len(tensor.marks) == 64
    assert "×4" in tensor.labels[0][0]


def test_store_conflicts_are_counted() -> None:
    # A column of 32 f32 elements in an unswizzled row-major 32x32 buffer: every lane hits bank 0.
    column = LinearLayout.from_bases(
        [
            ("register", [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]),
            ("lane", [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]),
            ("warp", []),
            ("block", []),
        ],
        ["dim0", "dim1"],
    )
    shared = LinearLayout.from_bases(
        [
            (
                "offset",
                [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0], [4, 0], [8, 0], [16, 0]],
            )
        ],
        ["dim0", "dim1"],
    )
    panels = conversion_panels(
        column,
        shared.concat_ins(
            LinearLayout.from_bases(
                [("block", [])], ["dim0", "dim1"], [32, 32], require_surjective=False
            )
        ),
        32,
    )
    memory = panels[-1]
    # 128-bit stores (4 registers along dim1), phases of 8 lanes, 8 rows in banks 0-3 each:
    # 8 wavefronts a phase, as llc.swizzle's brute-force counter says.
    counted = count_wavefronts(column, shared, 4, 32)
    assert counted.per_instruction == 32
    assert "(32 lanes x 4): 32 wavefronts (ideal 4)" in " ".join(memory.notes)
    assert {kind for *_, kind in memory.marks} == {"conflict"}
    assert len(memory.marks) == 32 * 4


def test_html_stands_alone() -> None:
    _, views = family_views("blocked")
    page = render_html(views, "blocked")
    assert re.findall(r'(?:src|href)="', page) == []
    assert "http" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert page.count("<button") == 4
    # every cell carries its full coordinates for hover (status line and native tooltip)
    assert page.count("data-info=") == page.count("<title>") - 1


# ------------------------------------------------------------------------------ in Chromium
def _pixels(png: Path) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(png).convert("RGB")).astype(int)


def _hex_rgb(colour: str) -> np.ndarray:
    return np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)])


def _cell_pixel(image: np.ndarray, panel: Panel, x: int, y: int, r: int, k: int) -> np.ndarray:
    c = panel.cell
    # the bottom-right corner, 3 px in: clear of the cell's label (4 px from its sides), of a
    # thread's label (upper half, or centred when cells carry no label), of boundary lines (a
    # warp boundary darkens 2 px into the cell) and of the broadcast mark (top-left corner)
    return image[y + r * c + c - 3, x + k * c + c - 3]


@pytest.mark.parametrize("name", list(FAMILIES))
def test_views_render_in_chromium(name: str, tmp_path: Path) -> None:
    require_chromium()
    ll, views = family_views(name)
    placed: list = []
    svg = render_svg(views, name, placed)
    path = tmp_path / f"{name}.svg"
    path.write_text(svg)
    png = screenshot(path, tmp_path / f"{name}.png", *svg_size(svg))
    image = _pixels(png)
    assert image.shape[:2] == svg_size(svg)[::-1]
    drawn = {view for view, *_ in placed}
    assert drawn == {"tensor", "hardware", "memory", "conversion"}
    for view, panel, x, y in placed:
        # cells outlined by an access overlay are checked below, by their outline
        outlined = {(r, k) for r, k, kind in panel.marks if kind != "broadcast"}
        cells = [
            (r, k) for r in range(panel.rows) for k in range(panel.cols) if (r, k) not in outlined
        ]
        seen = np.array([_cell_pixel(image, panel, x, y, r, k) for r, k in cells])
        want = np.array([_hex_rgb(panel.fills[r][k]) for r, k in cells])
        matching = int((np.abs(seen - want).max(axis=1) <= 8).sum())
        assert matching == len(cells) == panel.rows * panel.cols - len(outlined), (
            view,
            panel.title,
            matching,
        )
    tensor, tx, ty = next((p, x, y) for v, p, x, y in placed if v == "tensor")
    if ll.has_in_dim("lane"):
        # the colours on screen are those of the warps (and lanes) that hold the elements,
        # found element by element with LinearLayout.apply
        on_screen = {
            "#" + "".join(f"{v:02x}" for v in _cell_pixel(image, tensor, tx, ty, r, k))
            for r in range(tensor.rows)
            for k in range(tensor.cols)
        }
        expected = set(expected_tensor_fills(ll, tensor.rows, tensor.cols))
        near = {
            e
            for e in expected
            if any(np.abs(_hex_rgb(e) - _hex_rgb(o)).max() <= 8 for o in on_screen)
        }
        assert near == expected and len(on_screen) <= len(expected) * 4
    for view, panel, x, y in placed:
        c = panel.cell
        for r, k, kind in panel.marks:
            if kind == "broadcast":
                pixel = image[y + r * c + 1, x + k * c + 1]
                assert pixel.max() < 60, (view, r, k, pixel)
            else:
                pixel = image[y + r * c + c // 2, x + k * c + 1]
                red, green = pixel[0] > 150 > pixel[1], pixel[1] > 120 > pixel[0]
                assert red if kind == "conflict" else green, (view, kind, pixel)


def test_html_toggle_shows_one_view(tmp_path: Path) -> None:
    browser = require_chromium()
    # The toggle is the page's script, the same for every family: the smallest page (64
    # elements, 0.3 MB) keeps Chromium's five loads cheap; each family's views are checked
    # pixel by pixel above (mma_v2's page, 3 MB, took 16 s of CPU here).
    _, views = family_views("slice")
    page = tmp_path / "slice.html"
    page.write_text(render_html(views, "slice"))
    for shown in ("tensor", "hardware", "memory", "conversion"):
        dom = subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--dump-dom",
                page.resolve().as_uri() + f"?view={shown}",
            ],
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        ).stdout
        visible = re.findall(r'<div class="view" id="view-(\w+)" style="display: block;">', dom)
        hidden = re.findall(r'<div class="view" id="view-(\w+)" style="display: none;">', dom)
        assert visible == [shown] and len(hidden) == 3, (shown, visible, hidden)
    png = screenshot(page, tmp_path / "slice.png", 1300, 900, "?view=tensor")
    image = _pixels(png)
    # the page paints the view's colours: at least half the area of the tensor view's cells
    # of warp 0's lane 0 (which view shows is the DOM's check above)
    tensor = views["tensor"][0]
    cells = sum(fill == warp_colour(0, 0, 32) for row in tensor.fills for fill in row)
    lane0 = _hex_rgb(warp_colour(0, 0, 32))
    assert (
        cells and int((np.abs(image - lane0).max(axis=2) <= 8).sum()) > cells * tensor.cell**2 // 2
    )
