"""Pictures of layouts: SVG and stand-alone HTML drawn from a :class:`LinearLayout`.

Four views, each a list of :class:`Panel` (a grid of coloured, labelled cells):

* **tensor view** (:func:`tensor_panel`): the tensor as a grid (rows: every dim but the last,
  columns: the last dim). For a distributed layout each cell says which register ``r``, lane
  ``l`` and warp ``w`` hold it; its colour is the warp's hue, shaded by the lane; a cell held by
  several threads (broadcast) carries a black corner mark and ``×k``. Thin lines separate
  threads, thick lines warps, so the per-thread register groups stay visible when cells are too
  small for text (128x128). For a shared layout each cell gives its offset and bank, coloured by
  bank.
* **hardware view** (:func:`hardware_panel`): each warp as lanes (rows) x registers (columns),
  each cell labelled with the tensor coordinates it holds and coloured by them (hue by column,
  shade by row); for a shared layout, the offsets in the tensor's shape showing the element
  stored at each (Triton's shared "tensor view").
* **memory view** (:func:`memory_panel`): shared memory as rows of 32 four-byte banks (128
  bytes a row), each cell an element labelled with its tensor coordinates. With an access
  pattern (a distributed layout stored or loaded with vectors of ``vector`` elements), the cells
  that warp 0's first instruction touches are outlined, red where their bank holds several
  words of one phase (a bank conflict), green otherwise.
* **conversion view** (:func:`conversion_panels`): the source and destination layouts side by
  side, the strategy llc-lower-conversions chose, and the swizzled shared layout with the store
  and load accesses overlaid.

Everything is computed with :meth:`LinearLayout.apply_all` and numpy; only the final SVG text
is written cell by cell. :func:`render_svg` stacks views into one SVG; :func:`render_html`
writes one offline HTML page (no external resources) with a button per view and a status line
that shows the full coordinates of the cell under the pointer.

>>> from llc.layouts import BlockedLayout
>>> ll = BlockedLayout([1, 2], [4, 8], [2, 1], [1, 0]).to_linear_layout([8, 16])
>>> panel = tensor_panel(ll)
>>> panel.rows, panel.cols, panel.labels[0][:2], panel.spans[0]
(8, 16, ['r0', 'r1'], (0, 0, 1, 'l0 w0'))
>>> panel.infos[5][3]
'tensor (5, 3): register 1, lane 9, warp 1, block 0'
>>> svg = render_svg({"tensor": [panel]})
>>> svg.count('class="cell"')
128
"""

from __future__ import annotations

import colorsys
import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from llc.errors import LayoutError
from llc.linear_layout import LinearLayout

__all__ = [
    "HW_DIMS",
    "Panel",
    "conversion_panels",
    "hardware_panel",
    "layout_views",
    "memory_panel",
    "render_html",
    "render_svg",
    "tensor_panel",
    "warp_colour",
]

HW_DIMS = ("register", "lane", "warp", "block")
"""In-dims of a distributed layout, fastest first."""

BANKS = 32
ROW_BYTES = 128
MAX_PICTURE = 1100  # the longer side of a grid, in pixels, before cells shrink
MIN_CELL = 6
MAX_CELL = 44
FONT = "DejaVu Sans Mono, monospace"


# ------------------------------------------------------------------------------ colours
def _hex(rgb: tuple[float, float, float]) -> str:
    return "#" + "".join(f"{round(c * 255):02x}" for c in rgb)


def warp_colour(warp: int, lane: int, lanes: int) -> str:
    """The tensor view's colour of a cell held by ``lane`` of ``warp``: the warp's hue (the
    golden angle apart, so neighbours differ), lighter for low lanes.

    >>> warp_colour(0, 0, 32), warp_colour(1, 0, 32), warp_colour(0, 31, 32)
    ('#f9b4b4', '#b4f9c8', '#ec1313')
    """
    hue = (warp * 0.381966) % 1.0
    shade = lane / max(1, lanes - 1)
    return _hex(colorsys.hls_to_rgb(hue, 0.84 - 0.34 * shade, 0.85))


def _position_colour(row: np.ndarray, col: np.ndarray, rows: int, cols: int) -> list[str]:
    """Colours of tensor positions: hue by column, lightness by row."""
    hue = 0.8 * col / max(1, cols - 1)
    light = 0.82 - 0.32 * row / max(1, rows - 1)
    return [
        _hex(colorsys.hls_to_rgb(float(h), float(v), 0.7)) for h, v in zip(hue, light, strict=True)
    ]


def _bank_colour(bank: int) -> str:
    return _hex(colorsys.hls_to_rgb((bank * 0.381966) % 1.0, 0.78, 0.6))


# ------------------------------------------------------------------------------ panels
@dataclass
class Panel:
    """A titled grid of ``rows x cols`` cells: ``fills``/``labels``/``infos`` row by row.

    ``marks`` holds ``(row, col, kind)`` for cells drawn with an overlay: ``"broadcast"`` (a
    corner mark), ``"ok"`` / ``"conflict"`` (a green or red outline). ``lines`` are boundary
    segments ``(x0, y0, x1, y1, width)`` in cell units; ``notes`` are text lines under the
    title; ``row_names``/``col_names`` label the axes; ``spans`` ``(row, first, last, text)``
    label a run of cells of one row once (a thread's registers), above the cells' own labels.
    """

    title: str
    rows: int
    cols: int
    fills: list[list[str]]
    labels: list[list[str]]
    infos: list[list[str]]
    notes: list[str] = field(default_factory=list)
    marks: list[tuple[int, int, str]] = field(default_factory=list)
    lines: list[tuple[int, int, int, int, float]] = field(default_factory=list)
    col_names: list[str] = field(default_factory=list)
    row_names: list[str] = field(default_factory=list)
    spans: list[tuple[int, int, int, str]] = field(default_factory=list)

    @property
    def cell(self) -> int:
        """Cell size in pixels: as large as fits :data:`MAX_PICTURE`, within bounds."""
        side = MAX_PICTURE // max(self.rows, self.cols, 1)
        return max(MIN_CELL, min(MAX_CELL, side))


def _grid_shape(layout: LinearLayout) -> tuple[int, int, list[str]]:
    sizes = [s for _, s in layout.out_dims]
    if not sizes:
        raise LayoutError("pictures: the layout has no tensor dims")
    if len(sizes) == 1:
        cols = min(sizes[0], 64)
        return sizes[0] // cols, cols, [n for n, _ in layout.out_dims]
    return int(np.prod(sizes[:-1])), sizes[-1], [n for n, _ in layout.out_dims]


def _tensor_index(layout: LinearLayout, outs: Mapping[str, np.ndarray]) -> np.ndarray:
    """Row-major flat tensor index (the last dim fastest) of every input."""
    flat = np.zeros_like(next(iter(outs.values())), dtype=np.int64)
    for name, size in layout.out_dims:
        flat = flat * size + outs[name].astype(np.int64)
    return flat


def _coords(layout: LinearLayout, flat: np.ndarray) -> list[np.ndarray]:
    coords = []
    for _, size in reversed(layout.out_dims):
        coords.append(flat % size)
        flat = flat // size
    return coords[::-1]


def _coord_text(coords: Sequence[np.ndarray], i: int, sep: str = ", ") -> str:
    return "(" + sep.join(str(int(c[i])) for c in coords) + ")"


def _hw_sizes(layout: LinearLayout) -> list[int]:
    return [layout.get_in_dim_size(d) if layout.has_in_dim(d) else 1 for d in HW_DIMS]


def _is_distributed(layout: LinearLayout) -> bool:
    return set(layout.get_in_dim_names()) <= set(HW_DIMS) and layout.has_in_dim("lane")


def _boundaries(owner: np.ndarray, width: float) -> list[tuple[int, int, int, int, float]]:
    """Segments between horizontally or vertically adjacent cells of different owners."""
    lines: list[tuple[int, int, int, int, float]] = []
    for r, c in zip(*np.nonzero(owner[:, 1:] != owner[:, :-1]), strict=True):
        lines.append((int(c) + 1, int(r), int(c) + 1, int(r) + 1, width))
    for r, c in zip(*np.nonzero(owner[1:, :] != owner[:-1, :]), strict=True):
        lines.append((int(c), int(r) + 1, int(c) + 1, int(r) + 1, width))
    return lines


def tensor_panel(layout: LinearLayout, title: str = "tensor view") -> Panel:
    """The tensor view of a distributed or shared layout (see the module docstring).

    >>> ll = LinearLayout.from_bases(
    ...     [("register", [[0, 0]]), ("lane", [[0, 1], [1, 0]]), ("warp", []), ("block", [])],
    ...     ["dim0", "dim1"])
    >>> p = tensor_panel(ll)                    # every element held by 2 registers
    >>> p.labels[1][0], sorted({kind for *_, kind in p.marks})
    ('r0 ×2', ['broadcast'])
    """
    rows, cols, _ = _grid_shape(layout)
    outs = layout.apply_all()
    flat = _tensor_index(layout, outs)
    size = rows * cols
    count = np.bincount(flat, minlength=size)
    order = np.argsort(flat, kind="stable")
    first = np.full(size, -1, dtype=np.int64)
    # The first holder of each element is its smallest hardware index (block, warp, lane, reg).
    first[flat[order][::-1]] = order[::-1]
    coords = _coords(layout, np.arange(size, dtype=np.int64))
    fills: list[str] = []
    labels: list[str] = []
    infos: list[str] = []
    marks: list[tuple[int, int, str]] = []
    notes: list[str] = []
    lines: list[tuple[int, int, int, int, float]] = []
    spans: list[tuple[int, int, int, str]] = []
    if _is_distributed(layout):
        regs, lanes, warps, _ = _hw_sizes(layout)
        reg = first % regs
        lane = (first // regs) % lanes
        warp = (first // (regs * lanes)) % warps
        block = first // (regs * lanes * warps)
        thread = np.where(first >= 0, first // regs, -1)
        palette = {(w, ln): warp_colour(w, ln, lanes) for w in range(warps) for ln in range(lanes)}
        for i in range(size):
            if first[i] < 0:
                fills.append("#ffffff")
                labels.append("")
                infos.append(f"tensor {_coord_text(coords, i)}: held by no thread")
                continue
            r, ln, w, b = int(reg[i]), int(lane[i]), int(warp[i]), int(block[i])
            fills.append(palette[(w, ln)])
            extra = f" ×{int(count[i])}" if count[i] > 1 else ""
            labels.append(f"r{r}{extra}")
            info = f"tensor {_coord_text(coords, i)}: register {r}, lane {ln}, warp {w}, block {b}"
            if count[i] > 1:
                info += f" (and {int(count[i]) - 1} more copies: broadcast)"
                marks.append((i // cols, i % cols, "broadcast"))
            infos.append(info)
        owner = thread.reshape(rows, cols)
        lines = _boundaries(owner, 0.6) + _boundaries(owner // lanes, 2.5)
        spans = _runs(owner, lambda t: f"l{t % lanes} w{(t // lanes) % warps}")
        notes.append(
            f"{regs} registers x {lanes} lanes x {warps} warps; colour: warp, shade: lane; "
            "label: lane, warp (once per run of a thread's cells) / register"
        )
        if (count > 1).any():
            notes.append(f"{int((count > 1).sum())} broadcast elements (corner mark, ×copies)")
    else:
        offset = first  # in-dims offset (fastest) then block: the flat input is the offset
        bits = 32
        for i in range(size):
            o = int(offset[i])
            bank = (o * bits // 32) % BANKS
            fills.append(_bank_colour(bank) if o >= 0 else "#ffffff")
            labels.append(f"{o}\nb{bank}" if o >= 0 else "")
            infos.append(f"tensor {_coord_text(coords, i)}: offset {o} (bank {bank} for 32-bit)")
        notes.append("label: shared offset / bank (32-bit elements); colour: bank")
    return Panel(
        title,
        rows,
        cols,
        _rows(fills, cols),
        _rows(labels, cols),
        _rows(infos, cols),
        notes,
        marks,
        lines,
        spans=spans,
    )


def _runs(owner: np.ndarray, name: object) -> list[tuple[int, int, int, str]]:
    """Runs of equal owners along each row: ``(row, first, last, name(owner))``."""
    spans = []
    for r in range(owner.shape[0]):
        row = owner[r]
        starts = np.flatnonzero(np.r_[True, row[1:] != row[:-1]])
        ends = np.r_[starts[1:], row.size] - 1
        for a, b in zip(starts, ends, strict=True):
            if row[a] >= 0:
                spans.append((r, int(a), int(b), name(int(row[a]))))  # type: ignore[operator]
    return spans


def _rows(values: list[str], cols: int) -> list[list[str]]:
    return [values[i : i + cols] for i in range(0, len(values), cols)]


def hardware_panel(layout: LinearLayout, title: str = "hardware view") -> list[Panel]:
    """The hardware view: one panel per warp (and block), lanes x registers, for a distributed
    layout; for a shared layout one panel of offsets in the tensor's shape.

    >>> ll = LinearLayout.from_bases(
    ...     [("register", [[0, 1]]), ("lane", [[0, 2], [1, 0]]), ("warp", [[2, 0]]),
    ...      ("block", [])], ["dim0", "dim1"])
    >>> panels = hardware_panel(ll)
    >>> [(p.title, p.rows, p.cols) for p in panels]
    [('hardware view: warp 0', 4, 2), ('hardware view: warp 1', 4, 2)]
    >>> panels[1].labels[3]
    ['(3,2)', '(3,3)']
    """
    outs = layout.apply_all()
    flat = _tensor_index(layout, outs)
    coords = _coords(layout, flat)
    grid_rows, grid_cols, _ = _grid_shape(layout)
    fills = _position_colour(flat // grid_cols, flat % grid_cols, grid_rows, grid_cols)
    if not _is_distributed(layout):
        rows, cols = grid_rows, grid_cols
        labels = [_coord_text(coords, i) for i in range(flat.size)]
        infos = [f"offset {i}: tensor {labels[i]}" for i in range(flat.size)]
        note = "offsets laid out in the tensor's shape; label: the element stored at the offset"
        return [
            Panel(
                title,
                rows,
                cols,
                _rows(fills[: rows * cols], cols),
                _rows(labels[: rows * cols], cols),
                _rows(infos[: rows * cols], cols),
                [note],
            )
        ]
    regs, lanes, warps, blocks = _hw_sizes(layout)
    panels = []
    for b in range(blocks):
        for w in range(warps):
            start = (b * warps + w) * lanes * regs
            f, lab, inf = [], [], []
            for ln in range(lanes):
                for r in range(regs):
                    i = start + ln * regs + r
                    text = _coord_text(coords, i)
                    f.append(fills[i])
                    lab.append(_coord_text(coords, i, ","))
                    inf.append(f"register {r}, lane {ln}, warp {w}, block {b}: tensor {text}")
            name = f"{title}: warp {w}" + (f", block {b}" if blocks > 1 else "")
            notes = ["rows: lanes, columns: registers", "colour: tensor position (hue: column)"]
            panels.append(
                Panel(
                    name,
                    lanes,
                    regs,
                    _rows(f, regs),
                    _rows(lab, regs),
                    _rows(inf, regs),
                    notes,
                    col_names=[f"r{r}" for r in range(regs)],
                    row_names=[f"l{ln}" for ln in range(lanes)],
                )
            )
    return panels


def _access_offsets(
    access: LinearLayout, shared: LinearLayout, vector: int
) -> tuple[np.ndarray, np.ndarray]:
    """Offsets of warp 0's first instruction (lanes x vector) and of every instruction."""
    s_out = shared.apply_all()
    s_flat = _tensor_index(shared, s_out)
    inverse = np.full(int(s_flat.max()) + 1, -1, dtype=np.int64)
    inverse[s_flat] = np.arange(s_flat.size)
    a_flat = _tensor_index(access, access.apply_all())
    regs, lanes, _, _ = _hw_sizes(access)
    offsets = inverse[a_flat].reshape(-1, lanes, regs)
    return offsets[0, :, :vector], offsets


def memory_panel(
    shared: LinearLayout,
    bitwidth: int,
    access: LinearLayout | None = None,
    vector: int = 1,
    title: str = "memory view",
    what: str = "access",
) -> Panel:
    """Shared memory as rows of 32 banks; with ``access`` the first warp instruction overlaid.

    >>> shared = LinearLayout.identity_1d(64, "offset", "dim0")
    >>> lanes = LinearLayout.from_bases([("register", []), ("lane", [[2], [4], [8], [16], [32]])],
    ...                                 ["dim0"], [64], require_surjective=False)
    >>> p = memory_panel(shared, 32, lanes)           # stride-2 lanes: 2 words in each bank
    >>> p.rows, p.cols, p.notes[1]
    (2, 32, 'access: first instruction of warp 0 (32 lanes x 1): 2 wavefronts (ideal 1)')
    >>> sorted({kind for *_, kind in p.marks})
    ['conflict']
    """
    if shared.get_in_dim_names()[0] != "offset":
        raise LayoutError("memory view: the layout must map 'offset' to the tensor")
    per_row = ROW_BYTES * 8 // bitwidth
    size = shared.get_in_dim_size("offset")
    cols = min(per_row, size)
    rows = size // cols
    outs = shared.apply_all()
    flat = _tensor_index(shared, outs)[:size]
    coords = _coords(shared, flat)
    grid_rows, grid_cols, _ = _grid_shape(shared)
    fills = _position_colour(flat // grid_cols, flat % grid_cols, grid_rows, grid_cols)
    labels = [_coord_text(coords, i, ",") for i in range(size)]
    infos = [
        f"offset {i} (bank {(i * bitwidth // 32) % BANKS}): tensor {_coord_text(coords, i)}"
        for i in range(size)
    ]
    notes = [f"{bitwidth}-bit elements, {cols} per 128-byte row of 32 banks; label: tensor element"]
    marks: list[tuple[int, int, str]] = []
    if access is not None:
        first, _ = _access_offsets(access, shared, vector)
        access_bytes = vector * bitwidth // 8
        per_phase = max(1, min(first.shape[0], ROW_BYTES // max(4, access_bytes)))
        element_bytes = bitwidth / 8
        wavefronts = ideal = 0
        for start in range(0, first.shape[0], per_phase):
            phase = first[start : start + per_phase].reshape(-1)
            words = np.unique((phase * element_bytes // 4).astype(np.int64))
            banks = words % BANKS
            per_bank = np.bincount(banks, minlength=BANKS)
            wavefronts += int(per_bank.max())
            ideal += max(1, -(-len(np.unique(phase)) * int(element_bytes) // ROW_BYTES))
            for o in np.unique(phase):
                bank = int(o * element_bytes // 4) % BANKS
                kind = "conflict" if per_bank[bank] > 1 else "ok"
                marks.append((int(o) // cols, int(o) % cols, kind))
        notes.append(
            f"{what}: first instruction of warp 0 ({first.shape[0]} lanes x {vector}): "
            f"{wavefronts} wavefronts (ideal {ideal})"
        )
        if wavefronts > ideal:
            notes.append("red outline: a bank holding several words of one phase (conflict)")
        else:
            notes.append("green outline: conflict-free")
    bank_names = [
        f"b{(c * bitwidth // 32) % BANKS}" if (c * bitwidth) % 32 == 0 else "" for c in range(cols)
    ]
    return Panel(
        title,
        rows,
        cols,
        _rows(fills, cols),
        _rows(labels, cols),
        _rows(infos, cols),
        notes,
        marks,
        col_names=bank_names,
    )


def _store_vector(access: LinearLayout, shared: LinearLayout, bitwidth: int) -> int:
    """The widest aligned vector (at most 128 bits) in which ``access`` can move its registers."""
    from llc.swizzle import count_wavefronts

    vector = max(1, 128 // bitwidth)
    while vector > 1:
        try:
            count_wavefronts(access, shared, vector, bitwidth)
            return vector
        except LayoutError:
            vector //= 2
    return 1


def conversion_panels(src: LinearLayout, dst: LinearLayout, bitwidth: int = 32) -> list[Panel]:
    """The conversion view of ``src -> dst``: both layouts, the plan, the shared layout with
    the store and load accesses. ``dst`` may be a shared layout: then the view shows ``src``
    stored into it, with its conflicts.

    >>> from llc.layouts import BlockedLayout
    >>> row = BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0]).to_linear_layout([32, 32])
    >>> col = BlockedLayout([4, 1], [4, 8], [1, 4], [0, 1]).to_linear_layout([32, 32])
    >>> panels = conversion_panels(row, col)
    >>> [p.title for p in panels]
    ['source', 'destination', 'shared memory: store side', 'shared memory: load side']
    >>> panels[0].notes[0]
    'strategy: shared (llc-lower-conversions, 32-bit elements)'
    """
    if not _is_distributed(src):
        raise LayoutError("conversion view: the source must be a distributed layout")
    if not _is_distributed(dst):
        shared = dst.sublayout(["offset"], dst.get_out_dim_names())
        vector = _store_vector(src, shared, bitwidth)
        head = tensor_panel(src, "source")
        head.notes.insert(0, f"store into the shared layout, {vector} elements per instruction")
        return [
            head,
            tensor_panel(dst, "destination (shared)"),
            memory_panel(shared, bitwidth, src, vector, "shared memory: store side", "store"),
        ]
    from llc.lowering import plan_conversion

    plan = plan_conversion(src, dst, bitwidth)
    head = tensor_panel(src, "source")
    counts = ", ".join(f"{k} {n}" for k, n in plan.instructions.items()) or "none"
    head.notes[:0] = [
        f"strategy: {plan.strategy} (llc-lower-conversions, {bitwidth}-bit elements)",
        f"instructions per thread: {counts}",
    ]
    panels = [head, tensor_panel(dst, "destination")]
    if plan.strategy == "shared":
        from llc.swizzle import plan_swizzle

        swizzle = plan_swizzle(src, dst, bitwidth)
        head.notes.insert(
            2,
            f"shared memory: {plan.shared_bytes} bytes, {plan.wavefronts} wavefronts per warp "
            f"(ideal {plan.ideal_wavefronts})",
        )
        panels.append(
            memory_panel(
                swizzle.shared,
                bitwidth,
                swizzle.store_layout,
                swizzle.store_vector,
                "shared memory: store side",
                "store",
            )
        )
        panels.append(
            memory_panel(
                swizzle.shared,
                bitwidth,
                swizzle.load_layout,
                swizzle.load_vector,
                "shared memory: load side",
                "load",
            )
        )
    return panels


def layout_views(
    layout: LinearLayout, bitwidth: int = 32, dst: LinearLayout | None = None
) -> dict[str, list[Panel]]:
    """Every view that applies: ``tensor``, ``hardware``, ``memory`` (shared layouts, or the
    swizzled layout a conversion chose) and ``conversion`` (with ``dst``).

    >>> ll = LinearLayout.from_bases([("register", [[1]]), ("lane", [[2], [4]])], ["dim0"])
    >>> list(layout_views(ll))
    ['tensor', 'hardware']
    """
    views: dict[str, list[Panel]] = {
        "tensor": [tensor_panel(layout)],
        "hardware": hardware_panel(layout),
    }
    if not _is_distributed(layout):
        shared = layout.sublayout(["offset"], layout.get_out_dim_names())
        views["memory"] = [memory_panel(shared, bitwidth)]
    if dst is not None:
        conversion = conversion_panels(layout, dst, bitwidth)
        memory = [p for p in conversion if p.title.startswith("shared memory")]
        if memory and "memory" not in views:
            views["memory"] = memory
        views["conversion"] = conversion
    return views


# ------------------------------------------------------------------------------ SVG
_TITLE_H = 22
_NOTE_H = 15
_AXIS = 28
_GAP = 24


def _panel_size(panel: Panel) -> tuple[int, int]:
    c = panel.cell
    height = _TITLE_H + _NOTE_H * len(panel.notes) + _AXIS + panel.rows * c
    return _AXIS + panel.cols * c + 8, height + 8


def _text_colour(fill: str) -> str:
    r, g, b = (int(fill[i : i + 2], 16) for i in (1, 3, 5))
    return "#000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#fff"


def _grid_origin(panel: Panel, x0: int, y0: int) -> tuple[int, int]:
    """Pixel position of the top-left cell of a panel drawn at ``(x0, y0)``."""
    return x0 + _AXIS, y0 + _TITLE_H + _NOTE_H * len(panel.notes) + _AXIS


def _panel_svg(panel: Panel, x0: int, y0: int, view: str) -> list[str]:
    c = panel.cell
    out = [f'<g class="panel" data-view="{view}">']
    out.append(
        f'<text x="{x0}" y="{y0 + 16}" font-size="15" font-weight="bold" '
        f'font-family="{FONT}">{html.escape(panel.title)}</text>'
    )
    y = y0 + _TITLE_H
    for note in panel.notes:
        out.append(
            f'<text x="{x0}" y="{y + 11}" font-size="12" font-family="{FONT}">'
            f"{html.escape(note)}</text>"
        )
        y += _NOTE_H
    gx, gy = _grid_origin(panel, x0, y0)
    axis_font = max(6, min(11, c - 2))
    step = 1 << (max(1, -(-axis_font * 3 // c)) - 1).bit_length()
    names = panel.col_names or [str(i) for i in range(panel.cols)]
    for i in range(0, panel.cols, step):
        if names[i]:
            out.append(
                f'<text x="{gx + i * c + c / 2:.1f}" y="{gy - 4}" font-size="{axis_font}" '
                f'text-anchor="middle" font-family="{FONT}">{names[i]}</text>'
            )
    rnames = panel.row_names or [str(i) for i in range(panel.rows)]
    rstep = 1 << (max(1, -(-axis_font * 3 // (2 * c))) - 1).bit_length()
    for i in range(0, panel.rows, rstep):
        out.append(
            f'<text x="{gx - 3}" y="{gy + i * c + c / 2 + axis_font / 3:.1f}" '
            f'font-size="{axis_font}" text-anchor="end" font-family="{FONT}">{rnames[i]}</text>'
        )
    longest = max((len(p) for row in panel.labels for t in row for p in t.split("\n")), default=1)
    most = max((t.count("\n") + 1 for row in panel.labels for t in row), default=1)
    lines_in_cell = most + (1 if panel.spans else 0)
    # 4 px clear on each side of a label (tests read the cell's colour there)
    font = min(11.0, (c - 8) / (0.62 * max(1, longest)), (c - 2) / (1.15 * lines_in_cell))
    show_text = font >= 5.5
    for r in range(panel.rows):
        for k in range(panel.cols):
            fill = panel.fills[r][k]
            x, yy = gx + k * c, gy + r * c
            info = html.escape(panel.infos[r][k], quote=True)
            out.append(
                f'<rect class="cell" x="{x}" y="{yy}" width="{c}" height="{c}" fill="{fill}" '
                f'stroke="#ffffff" stroke-width="{0.5 if c >= 10 else 0}" data-info="{info}">'
                f"<title>{info}</title></rect>"
            )
            if show_text and panel.labels[r][k]:
                parts = panel.labels[r][k].split("\n")
                colour = _text_colour(fill)
                shift = 0.5 if panel.spans else 0.0
                for j, part in enumerate(parts):
                    ty = yy + c / 2 + (j + shift - (len(parts) - 1) / 2) * (font + 1) + font / 3
                    out.append(
                        f'<text x="{x + c / 2:.1f}" y="{ty:.1f}" font-size="{font:.1f}" '
                        f'text-anchor="middle" fill="{colour}" font-family="{FONT}" '
                        f'pointer-events="none">{html.escape(part)}</text>'
                    )
    for r, a, b, text in panel.spans:
        width = (b - a + 1) * c
        size = min(11.0, (width - 8) / (0.62 * max(1, len(text))), (c - 2) / 2.3)
        if size < 5.5:
            continue
        x, yy = gx + a * c + width / 2, gy + r * c + (c / 2 if show_text else c / 2 + size / 2)
        colour = _text_colour(panel.fills[r][a])
        ty = yy - (size / 2 if show_text else 0) - 1 + size / 3
        out.append(
            f'<text x="{x:.1f}" y="{ty:.1f}" font-size="{size:.1f}" font-weight="bold" '
            f'text-anchor="middle" fill="{colour}" font-family="{FONT}" '
            f'pointer-events="none">{html.escape(text)}</text>'
        )
    if panel.lines:
        for width in sorted({w for *_, w in panel.lines}):
            d = " ".join(
                f"M{gx + a * c} {gy + b * c}L{gx + e * c} {gy + f * c}"
                for a, b, e, f, w in panel.lines
                if w == width
            )
            out.append(
                f'<path d="{d}" stroke="#000" stroke-width="{width}" fill="none" '
                'pointer-events="none"/>'
            )
    for r, k, kind in panel.marks:
        x, yy = gx + k * c, gy + r * c
        if kind == "broadcast":
            m = max(3, c // 3)
            out.append(
                f'<path class="broadcast" d="M{x} {yy}h{m}L{x} {yy + m}z" fill="#000" '
                'pointer-events="none"/>'
            )
        else:
            colour = "#e00000" if kind == "conflict" else "#00a000"
            width = max(1.5, c / 8)
            out.append(
                f'<rect class="{kind}" x="{x + width / 2:.1f}" y="{yy + width / 2:.1f}" '
                f'width="{c - width:.1f}" height="{c - width:.1f}" fill="none" '
                f'stroke="{colour}" stroke-width="{width:.1f}" pointer-events="none"/>'
            )
    out.append("</g>")
    return out


def _layout_panels(
    panels: Sequence[Panel], y0: int, view: str, placed: list[tuple[str, Panel, int, int]]
) -> tuple[list[str], int, int]:
    """Panels placed left to right, wrapping at about 1400 px; returns (svg, width, height)
    and appends ``(view, panel, grid x, grid y)`` to ``placed``."""
    parts: list[str] = []
    x, y, row_h, width = 0, y0, 0, 0
    for panel in panels:
        w, h = _panel_size(panel)
        if x and x + w > 1400:
            x, y, row_h = 0, y + row_h + _GAP, 0
        parts += _panel_svg(panel, x + 4, y, view)
        placed.append((view, panel, *_grid_origin(panel, x + 4, y)))
        x += w + _GAP
        row_h = max(row_h, h)
        width = max(width, x)
    return parts, width, y + row_h - y0


def render_svg(
    views: Mapping[str, Sequence[Panel]],
    title: str = "",
    placed: list[tuple[str, Panel, int, int]] | None = None,
) -> str:
    """One SVG with the given views stacked top to bottom, each under its name. ``placed``, if
    given, receives ``(view, panel, x, y)``: where each panel's first cell is drawn (cells are
    ``panel.cell`` pixels square), so tests can read the picture's pixels back.

    >>> ll = LinearLayout.from_bases([("register", [[1]]), ("lane", [[2], [4]])], ["dim0"])
    >>> placed = []
    >>> svg = render_svg(layout_views(ll), placed=placed)
    >>> [(view, panel.title, x, y, panel.cell) for view, panel, x, y in placed]
    [('tensor', 'tensor view', 32, 69, 44), ('hardware', 'hardware view: warp 0', 32, 225, 44)]
    """
    placed = [] if placed is None else placed
    body: list[str] = []
    y, width = 4, 200
    if title:
        body.append(
            f'<text x="4" y="{y + 16}" font-size="16" font-family="{FONT}">'
            f"{html.escape(title)}</text>"
        )
        y += 26
    for name, panels in views.items():
        if len(views) == 1 or panels[0].title.startswith(name):
            parts, w, h = _layout_panels(panels, y, name, placed)
            body += parts
            y += h + _GAP
            width = max(width, w)
            continue
        body.append(
            f'<text x="4" y="{y + 18}" font-size="18" font-weight="bold" font-family="{FONT}" '
            f'fill="#333">{html.escape(name)} view</text>'
        )
        y += 26
        parts, w, h = _layout_panels(panels, y, name, placed)
        body += parts
        y += h + _GAP
        width = max(width, w)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width + 8}" height="{y}" '
        f'viewBox="0 0 {width + 8} {y}">'
        f'<rect width="100%" height="100%" fill="#ffffff"/>' + "".join(body) + "</svg>\n"
    )


_HTML_SCRIPT = """
const views = document.querySelectorAll('.view');
const buttons = document.querySelectorAll('button[data-view]');
function show(name) {
  views.forEach(v => v.style.display = v.id === 'view-' + name ? 'block' : 'none');
  buttons.forEach(b => b.classList.toggle('on', b.dataset.view === name));
}
buttons.forEach(b => b.addEventListener('click', () => show(b.dataset.view)));
const status = document.getElementById('status');
document.addEventListener('mouseover', e => {
  const info = e.target.getAttribute && e.target.getAttribute('data-info');
  if (info) status.textContent = info;
});
const start = new URLSearchParams(location.search).get('view') || location.hash.slice(1);
show(start && document.getElementById('view-' + start) ? start : buttons[0].dataset.view);
"""


def render_html(views: Mapping[str, Sequence[Panel]], title: str = "llc layout") -> str:
    """A stand-alone HTML page: one button per view (``?view=NAME`` or ``#NAME`` opens one),
    and a status line showing the full coordinates of the cell under the pointer.

    >>> ll = LinearLayout.from_bases([("register", [[1]]), ("lane", [[2], [4]])], ["dim0"])
    >>> page = render_html(layout_views(ll))
    >>> page.count("<button"), "http" in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    (2, False)
    """
    buttons = "".join(
        f'<button data-view="{html.escape(n)}">{html.escape(n)} view</button>' for n in views
    )
    sections = "".join(
        f'<div class="view" id="view-{html.escape(n)}">{render_svg({n: p})}</div>'
        for n, p in views.items()
    )
    return (
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>"
        "body{font-family:sans-serif;margin:8px}button{margin-right:4px;padding:4px 10px}"
        "button.on{background:#333;color:#fff}#status{font-family:monospace;min-height:1.4em;"
        "padding:4px 0}</style></head><body>"
        f"<div><b>{html.escape(title)}</b></div><div>{buttons}</div>"
        '<div id="status">hover over a cell to see its coordinates</div>'
        f"{sections}<script>{_HTML_SCRIPT}</script></body></html>\n"
    )
