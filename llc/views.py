"""Text views of a :class:`~llc.linear_layout.LinearLayout`.

Two views follow Triton's ``getDistributedLayoutStr`` / ``getSharedLayoutStr``
(``lib/Dialect/TritonGPU/IR/Dialect.cpp``) character for character, so
``LinearLayout.get_distributed_view`` and ``get_shared_view`` print what Triton's Python binding
and ``triton-tensor-layout`` print:

* :func:`distributed_view`: the *tensor view* shows, for every tensor element, the hardware
  places holding it as ``T<thread>:<register>`` (the thread id is ``lane + warp * warp_size``;
  ``B<block>:`` is prefixed when there are several CTAs; copies of a broadcast element are joined
  by ``|``); the *hardware view* (``use_hw_view=True``) lists, warp by warp and register by
  register, the element each lane holds.
* :func:`shared_view`: the *tensor view* lays the shared-memory offsets out in the tensor's
  shape and shows the element stored at each offset as ``(row:col)``; the hardware view lists
  ``Offset: k -> (row,col)`` per block.

The other views are llc's own: :func:`shared_element_view` (for every tensor element, the offset
holding it), :func:`coordinate_view` and :func:`offset_view` (layouts from tensor coordinates to
memory offsets, as XLA and CuTe layouts are) and :func:`matrix_view` (the F2 matrix with labelled
rows and columns).

Everything is computed with :meth:`LinearLayout.apply_all` (one vectorized evaluation), never with
per-element ``apply``. A blocked layout with 2 elements per thread over a 4x4 tensor:

>>> from llc.linear_layout import LinearLayout
>>> ll = LinearLayout.from_bases(
...     [("register", [[0, 1]]), ("lane", [[0, 2], [1, 0], [2, 0]]), ("warp", []), ("block", [])],
...     ["dim0", "dim1"])
>>> print(distributed_view(ll), end="")
[[T0:0, T0:1, T1:0, T1:1]
[ T2:0, T2:1, T3:0, T3:1]
[ T4:0, T4:1, T5:0, T5:1]
[ T6:0, T6:1, T7:0, T7:1]]
>>> print(distributed_view(ll, use_hw_view=True), end="")
Warp0:
(0,0), (0,2), (1,0), (1,2), (2,0), (2,2), (3,0), (3,2)
(0,1), (0,3), (1,1), (1,3), (2,1), (2,3), (3,1), (3,3)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from llc.errors import LayoutError

if TYPE_CHECKING:
    # Types only: llc.linear_layout imports this module for its view methods, so the
    # dependency runs linear_layout -> views at import time and never back.
    from llc.linear_layout import LinearLayout

__all__ = [
    "DISTRIBUTED_IN_DIMS",
    "SHARED_IN_DIMS",
    "coordinate_view",
    "distributed_view",
    "matrix_view",
    "offset_view",
    "render_grid",
    "shared_element_view",
    "shared_view",
]

DISTRIBUTED_IN_DIMS = ("register", "lane", "warp", "block")
"""In-dims of a distributed layout, fastest first (the order of Triton's loops, innermost first)."""

SHARED_IN_DIMS = ("offset", "block")
"""In-dims of a shared-memory layout, fastest first."""


# ------------------------------------------------------------------------------------ helpers
def _pad_width(value: int, maximum: int) -> int:
    """Triton's ``numCharacterPadding``: spaces that make ``value`` as wide as ``maximum``.

    >>> _pad_width(3, 32), _pad_width(12, 32), _pad_width(0, 1)
    (1, 0, 0)
    """
    return len(str(maximum)) - len(str(value))


def _padded_strings(maximum: int) -> list[str]:
    """Triton's ``paddedString(v, maximum)`` for every ``v`` in ``[0, maximum)``.

    >>> _padded_strings(12)[3], _padded_strings(12)[11]
    (' 3', '11')
    """
    width = len(str(maximum))
    return [str(v).rjust(width) for v in range(max(maximum, 1))]


def _dims_in_order(layout: LinearLayout, wanted: Sequence[str], what: str) -> LinearLayout:
    """``layout`` with its in-dims reordered to ``wanted`` (missing ones added with size 1).

    Triton's views address the hardware by these names; a layout with any other in-dim is not a
    layout of that kind.
    """
    names = layout.get_in_dim_names()
    extra = [n for n in names if n not in wanted]
    if extra:
        raise LayoutError(
            f"{what} view: in-dims must be among {list(wanted)}, but the layout has {extra}"
        )
    if layout.num_out_dims == 0:
        raise LayoutError(f"{what} view: the layout has no out-dims (no tensor to show)")
    missing = [n for n in wanted if n not in names]
    if missing:
        # Size-1 in-dims, built through the layout's own class (see the import note above).
        out_names = layout.get_out_dim_names()
        filler = type(layout).from_bases(
            [(n, []) for n in missing], out_names, [1] * len(out_names), require_surjective=False
        )
        layout = layout * filler
    return layout.transpose_ins(list(wanted))


def _linearize(outs: dict[str, np.ndarray], shape: Sequence[int]) -> np.ndarray:
    """Row-major index of every output (last out-dim fastest), as Triton linearizes."""
    linear = np.zeros_like(next(iter(outs.values())))
    for values, size in zip(outs.values(), shape, strict=True):
        linear = linear * size + values
    return linear


def _group_labels(linear: np.ndarray, labels: Sequence[str], size: int, sep: str) -> list[str]:
    """For every linear element, the labels of the inputs mapping to it (input order), joined."""
    order = np.argsort(linear, kind="stable")
    counts = np.bincount(linear, minlength=size)
    cells: list[str] = []
    pos = 0
    for count in counts.tolist():
        cells.append(sep.join(labels[k] for k in order[pos : pos + count].tolist()))
        pos += count
    return cells


def render_grid(cells: Sequence[str], shape: Sequence[int], separator: str = ", ") -> str:
    """Lay ``cells`` (row-major over ``shape``) out as Triton prints a tensor: nested brackets,
    one innermost row per line, each line indented by the brackets it does not open.

    >>> print(render_grid(["a", "b", "c", "d"], [2, 2]), end="")
    [[a, b]
    [ c, d]]
    >>> print(render_grid(["x", "y", "z"], [3], ","), end="")
    [x,y,z]
    """
    shape = [int(s) for s in shape]
    rank = len(shape)
    total = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if len(cells) != total:
        raise LayoutError(f"render_grid: {len(cells)} cells for shape {shape}")
    if rank == 0:
        return f"{cells[0]}\n"
    # opens[i]: how many trailing indices of element i are 0, i.e. how many brackets open there.
    index = np.arange(total + 1, dtype=np.int64)
    opens = np.zeros(total + 1, dtype=np.int64)
    period = 1
    for size in reversed(shape):
        period *= size
        opens += (index % period) == 0
    opens_list = opens.tolist()
    last = shape[-1]
    pieces: list[str] = []
    new_line = True
    for i, cell in enumerate(cells):
        opened = opens_list[i]
        pieces.append("[" * opened)
        if new_line:
            pieces.append(" " * (rank - opened))
            new_line = False
        pieces.append(cell)
        pieces.append("]" * opens_list[i + 1])
        if (i + 1) % last == 0:
            pieces.append("\n")
            new_line = True
        else:
            pieces.append(separator)
    return "".join(pieces)


def _crop(cells: list[str], full: Sequence[int], shape: Sequence[int] | None) -> list[str]:
    """Keep the cells of the real tensor ``shape`` out of the padded ``full`` shape."""
    if shape is None or list(shape) == list(full):
        return cells
    if len(shape) != len(full) or any(s > f or s < 1 for s, f in zip(shape, full, strict=True)):
        raise LayoutError(f"views: shape {list(shape)} does not fit in the layout's {list(full)}")
    grid = np.array(cells, dtype=object).reshape(tuple(full))
    return list(grid[tuple(slice(0, s) for s in shape)].ravel())


def _coordinate_strings(
    outs: dict[str, np.ndarray],
    sizes: Sequence[int],
    joiner: str,
    shape: Sequence[int] | None = None,
) -> list[str]:
    """``(a,b)``-style coordinate labels with Triton's padding; ``*`` marks padding elements."""
    columns = [
        np.array(_padded_strings(size), dtype=object)[values]
        for values, size in zip(outs.values(), sizes, strict=True)
    ]
    labels = ["(" + joiner.join(parts) + ")" for parts in zip(*columns, strict=True)]
    if shape is not None and list(shape) != list(sizes):
        outside = np.zeros(len(labels), dtype=bool)
        for values, size in zip(outs.values(), shape, strict=True):
            outside |= values >= size
        for k in np.flatnonzero(outside).tolist():
            labels[k] += "*"
    return labels


# ------------------------------------------------------------------------------ Triton views
def distributed_view(
    layout: LinearLayout, use_hw_view: bool = False, shape: Sequence[int] | None = None
) -> str:
    """Triton's ``getDistributedLayoutStr``: which threads hold each element, or (hardware
    view) which element each register of each thread holds.

    ``layout`` has in-dims among ``register, lane, warp, block`` (missing ones count as size 1)
    and the tensor dims as out-dims. ``shape`` (llc's addition) is the real tensor shape when the
    layout was built for a padded one: the tensor view then shows only the real elements and the
    hardware view marks coordinates of padding elements with ``*``.

    Two warps of four lanes, each lane holding one element of an 8-element tensor:

    >>> from llc.linear_layout import LinearLayout

    >>> ll = LinearLayout.from_bases([("lane", [[1], [2]]), ("warp", [[4]])], ["dim0"])
    >>> print(distributed_view(ll), end="")
    [T0:0, T1:0, T2:0, T3:0, T4:0, T5:0, T6:0, T7:0]
    >>> print(distributed_view(ll, use_hw_view=True), end="")
    Warp0:
    (0), (1), (2), (3)
    Warp1:
    (4), (5), (6), (7)
    """
    ll = _dims_in_order(layout, DISTRIBUTED_IN_DIMS, "distributed")
    sizes = [s for _, s in ll.out_dims]
    num_regs, num_lanes, num_warps, num_blocks = (
        ll.get_in_dim_size(d) for d in DISTRIBUTED_IN_DIMS
    )
    outs = ll.apply_all()
    if not use_hw_view:
        total = ll.total_out_size
        num_threads = num_warps * num_lanes
        reg_labels = [f"{' ' * _pad_width(r, num_regs)}" for r in range(num_regs)]
        labels: list[str] = []
        multi_block = num_blocks > 1
        for block in range(num_blocks):
            block_pad = _pad_width(block, num_blocks)
            prefix = f"B{block}:" if multi_block else ""
            for thread in range(num_threads):
                thread_pad = " " * (block_pad + _pad_width(thread, num_threads))
                head = f"{prefix}T{thread}:"
                labels.extend(f"{thread_pad}{reg_labels[r]}{head}{r}" for r in range(num_regs))
        cells = _group_labels(_linearize(outs, sizes), labels, total, "|")
        cells = _crop(cells, sizes, shape)
        return render_grid(cells, list(shape) if shape is not None else sizes, ", ")
    coords = _coordinate_strings(outs, sizes, ",", shape)
    lines: list[str] = []
    per_warp = num_lanes * num_regs
    for block in range(num_blocks):
        if num_blocks > 1:
            lines.append(f"Block{block}:")
        for warp in range(num_warps):
            lines.append(f"Warp{warp}:")
            base = (block * num_warps + warp) * per_warp
            for reg in range(num_regs):
                lines.append(
                    ", ".join(coords[base + lane * num_regs + reg] for lane in range(num_lanes))
                )
    return "\n".join(lines) + "\n"


def shared_view(
    layout: LinearLayout, use_hw_view: bool = False, shape: Sequence[int] | None = None
) -> str:
    """Triton's ``getSharedLayoutStr``: the element stored at each shared-memory offset.

    The tensor view lays the offsets (block by block) out in the tensor's shape, each showing
    ``(row:col)`` of the element stored there; the hardware view lists
    ``Offset: k -> (row,col)``. ``layout`` has in-dims among ``offset, block``. ``shape`` (llc's
    addition) is the real tensor shape of a padded layout: the hardware view then marks padding
    elements with ``*``.

    A 2x4 tile whose second row is stored with its halves swapped (an XOR swizzle):

    >>> from llc.linear_layout import LinearLayout

    >>> ll = LinearLayout.from_bases([("offset", [[0, 1], [0, 2], [1, 2]])], ["dim0", "dim1"])
    >>> print(shared_view(ll), end="")
    [[(0:0),(0:1),(0:2),(0:3)]
    [ (1:2),(1:3),(1:0),(1:1)]]
    >>> print(shared_view(ll, use_hw_view=True).splitlines()[:3])
    ['Block: 0:', 'Offset: 0 -> (0,0)', 'Offset: 1 -> (0,1)']
    """
    ll = _dims_in_order(layout, SHARED_IN_DIMS, "shared")
    sizes = [s for _, s in ll.out_dims]
    num_offsets = ll.get_in_dim_size("offset")
    num_blocks = ll.get_in_dim_size("block")
    outs = ll.apply_all()
    if use_hw_view:
        coords = _coordinate_strings(outs, sizes, ",", shape)
        lines: list[str] = []
        for block in range(num_blocks):
            lines.append(f"Block: {block}:")
            base = block * num_offsets
            lines.extend(f"Offset: {o} -> {coords[base + o]}" for o in range(num_offsets))
        return "\n".join(lines) + "\n"
    cells = _coordinate_strings(outs, sizes, ":")
    grid_shape = sizes
    if len(cells) != ll.total_out_size:
        # Triton assumes one offset per element; otherwise lay memory out in rows of the
        # tensor's innermost size.
        row = min(sizes[-1], len(cells))
        grid_shape = [len(cells) // row, row]
    return render_grid(cells, grid_shape, ",")


# -------------------------------------------------------------------------------- llc views
def shared_element_view(layout: LinearLayout, shape: Sequence[int] | None = None) -> str:
    """For every tensor element, the shared-memory offset(s) holding it (``B<block>:`` prefixed
    when there are several blocks; several copies joined by ``|``).

    This is the transpose of :func:`shared_view`'s tensor view, and the natural picture of a
    swizzle: row ``r`` shows where its elements went. ``shape``: the real shape of a padded
    layout (only its elements are shown).

    >>> from llc.linear_layout import LinearLayout

    >>> ll = LinearLayout.from_bases([("offset", [[0, 1], [0, 2], [1, 2]])], ["dim0", "dim1"])
    >>> print(shared_element_view(ll), end="")
    [[0, 1, 2, 3]
    [ 6, 7, 4, 5]]
    """
    ll = _dims_in_order(layout, SHARED_IN_DIMS, "shared")
    sizes = [s for _, s in ll.out_dims]
    num_offsets = ll.get_in_dim_size("offset")
    num_blocks = ll.get_in_dim_size("block")
    offsets = _padded_strings(num_offsets)
    if num_blocks > 1:
        blocks = _padded_strings(num_blocks)
        labels = [
            f"B{blocks[b]}:{offsets[o]}" for b in range(num_blocks) for o in range(num_offsets)
        ]
    else:
        labels = offsets
    cells = _group_labels(_linearize(ll.apply_all(), sizes), labels, ll.total_out_size, "|")
    cells = _crop(cells, sizes, shape)
    width = max(len(c) for c in cells)
    return render_grid(
        [c.rjust(width) for c in cells], sizes if shape is None else list(shape), ", "
    )


def _in_grid(layout: LinearLayout) -> tuple[list[int], LinearLayout]:
    """The in-dim sizes in order and the layout with in-dims reversed (so that the first in-dim
    is the slowest: rows of the printed grid)."""
    names = layout.get_in_dim_names()
    if not names:
        raise LayoutError("coordinate view: the layout has no in-dims")
    return [layout.get_in_dim_size(n) for n in names], layout.transpose_ins(names[::-1])


def coordinate_view(layout: LinearLayout, shape: Sequence[int] | None = None) -> str:
    """For a layout from tensor coordinates to memory (XLA, CuTe: in-dims ``dim0, dim1, ...``,
    out-dim ``offset``), the offset of every element, in a grid whose rows run over the first
    in-dim. ``shape``: the real shape of a padded layout (only its elements are shown).

    >>> from llc.linear_layout import LinearLayout

    >>> ll = LinearLayout.from_bases([("dim0", [[2], [4]]), ("dim1", [[1]])], ["offset"])
    >>> print(coordinate_view(ll), end="")
    [[0, 1]
    [ 2, 3]
    [ 4, 5]
    [ 6, 7]]
    """
    sizes, reversed_ll = _in_grid(layout)
    outs = reversed_ll.apply_all()
    if len(outs) == 1:
        (values,) = outs.values()
        width = len(str(int(values.max()) if values.size else 0))
        cells = [str(v).rjust(width) for v in values.tolist()]
    else:
        cells = _coordinate_strings(outs, [s for _, s in layout.out_dims], ",")
    cells = _crop(cells, sizes, shape)
    return render_grid(cells, sizes if shape is None else list(shape), ", ")


def offset_view(layout: LinearLayout, shape: Sequence[int] | None = None) -> str:
    """The inverse listing of :func:`coordinate_view`: for every memory offset, the element
    stored there (``-`` where no element is, e.g. tile padding; copies joined by ``|``).
    ``shape``: the real shape of a padded layout; padding elements are marked with ``*``.

    >>> from llc.linear_layout import LinearLayout

    >>> ll = LinearLayout.from_bases([("dim0", [[2]]), ("dim1", [[1]])], ["offset"], [8],
    ...                              require_surjective=False)
    >>> print(offset_view(ll), end="")
    Offset: 0 -> (0,0)
    Offset: 1 -> (0,1)
    Offset: 2 -> (1,0)
    Offset: 3 -> (1,1)
    Offset: 4 -> -
    Offset: 5 -> -
    Offset: 6 -> -
    Offset: 7 -> -
    """
    sizes, reversed_ll = _in_grid(layout)
    outs = reversed_ll.apply_all()
    # Coordinates of each flattened input (first in-dim slowest, as in coordinate_view).
    grid = np.indices(sizes, dtype=np.int64).reshape(len(sizes), -1)
    coords = _coordinate_strings({f"d{i}": grid[i] for i in range(len(sizes))}, sizes, ",", shape)
    out_sizes = [s for _, s in layout.out_dims]
    total = int(np.prod(out_sizes, dtype=np.int64))
    cells = _group_labels(_linearize(outs, out_sizes), coords, total, "|")
    if len(out_sizes) == 1:
        keys = [str(k) for k in range(total)]
    else:
        keys = ["(" + ",".join(str(v) for v in idx) + ")" for idx in np.ndindex(*out_sizes)]
    return "".join(f"Offset: {k} -> {c or '-'}\n" for k, c in zip(keys, cells, strict=True))


def matrix_view(layout: LinearLayout) -> str:
    """The F2 matrix of the layout: one row per output bit (``dim1[0]`` is bit 0 of ``dim1``),
    one column per input bit, grouped by in-dim (``register`` then ``0 1`` below it reads
    ``register[0] register[1]``). Size-1 dims have no bits and are left out.

    >>> from llc.linear_layout import LinearLayout

    >>> ll = LinearLayout.from_bases([("register", [[0, 1]]), ("lane", [[1, 0], [0, 2]])],
    ...                              ["dim0", "dim1"])
    >>> print(matrix_view(ll), end="")
            register | lane
            0        | 0 1
    dim0[0] 0        | 1 0
    dim1[0] 1        | 0 0
    dim1[1] 0        | 0 1
    """
    matrix = layout.matrix()
    groups = [(n, layout.get_in_dim_size_log2(n)) for n in layout.get_in_dim_names()]
    groups = [(n, bits) for n, bits in groups if bits]
    rows = [
        f"{name}[{bit}]" for name, size in layout.out_dims for bit in range(size.bit_length() - 1)
    ]
    if not rows or not groups:
        return f"(empty matrix: {len(rows)} output bits x {sum(b for _, b in groups)} input bits)\n"
    label_width = max(len(r) for r in rows)
    col_width = max(len(str(bits - 1)) for _, bits in groups)
    widths = [max(len(name), bits * (col_width + 1) - 1) for name, bits in groups]

    def line(label: str, parts: list[str]) -> str:
        return (label.ljust(label_width) + " " + " | ".join(parts)).rstrip() + "\n"

    header_names = [name.ljust(w) for (name, _), w in zip(groups, widths, strict=True)]
    header_bits = [
        " ".join(str(b).rjust(col_width) for b in range(bits)).ljust(w)
        for (_, bits), w in zip(groups, widths, strict=True)
    ]
    text = line("", header_names) + line("", header_bits)
    for r, label in enumerate(rows):
        parts = []
        col = 0
        for (_, bits), w in zip(groups, widths, strict=True):
            values = matrix[r, col : col + bits].tolist()
            parts.append(" ".join(str(v).rjust(col_width) for v in values).ljust(w))
            col += bits
        text += line(label, parts)
    return text
