"""XLA tiled layouts: ``minor_to_major`` plus a sequence of tiles, as in ``f32[3,5]{1,0:T(2,2)}``.

XLA describes a physical format by a dimension order and zero or more tiles
(see XLA's ``tiled_layout.md``). The logical array is first permuted into physical
order (most major first), then each tile in turn splits the trailing dims it covers
into a tile-index part and a within-tile part and moves all within-tile dims to the
minor end; the final shape is linearised row-major. A tile entry ``*`` (stored as
:data:`COMBINE`, ``-1``) merges that dim into the next more minor one before tiling.

The element ``(2, 3)`` of ``f32[3,5]{1,0:T(2,2)}`` is at offset 17 (the XLA document's worked
example), and the padded buffer holds 24 elements:

>>> layout = XlaTiledLayout.parse("{1,0:T(2,2)}")
>>> layout.linear_index((2, 3), (3, 5)), layout.physical_size((3, 5))
(17, 24)
>>> str(XlaTiledLayout.parse("{ 1, 0 : T(8,128) (2,1) }"))
'{1,0:T(8,128)(2,1)}'
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from llc.errors import LayoutError, LayoutParseError, NotLinearError

__all__ = ["COMBINE", "XlaTiledLayout", "parse_shape_with_layout"]

#: Tile entry meaning "combine this dim with the next more minor dim" (printed ``*``).
COMBINE = -1

# Exhaustive linearity checks (only needed when a tile is not a power of two) stop here.
_MAX_EXHAUSTIVE_CHECK = 1 << 22


def _is_pow2(n: int) -> bool:
    return n >= 1 and n & (n - 1) == 0


def _fmt_tile(tile: Sequence[int]) -> str:
    return "(" + ",".join("*" if t == COMBINE else str(t) for t in tile) + ")"


def _fmt_dims(dims: Sequence[int]) -> str:
    return "[" + ",".join(str(d) for d in dims) + "]"


def _row_major(idx: Sequence[Any], shape: Sequence[int]) -> Any:
    """Row-major linear index; works on ints and on numpy arrays alike."""
    linear: Any = 0
    for e, d in zip(idx, shape, strict=True):
        linear = linear * d + e
    return linear


@dataclass(frozen=True)
class _Stage:
    """The shape after one tile (for diagnostics): which tile produced it, and the shape."""

    tile_no: int
    shape: tuple[int, ...]


@dataclass(frozen=True)
class XlaTiledLayout:
    """An XLA dense layout: ``minor_to_major`` and tiles (``COMBINE``/``-1`` for ``*``).

    ``minor_to_major[0]`` is the most minor logical dim, as in XLA. Tiles apply in order;
    each refers to a suffix of the dims of the shape produced so far, so a later tile can
    rearrange within-tile data (``(8,128)(2,1)``) or, when longer, tile-index dims too
    (``(2,4)(2,1,1,1)``).

    >>> XlaTiledLayout((1, 0), ((2, 4), (2, 1, 1, 1))).linear_index((6, 5), (8, 8))
    51
    >>> XlaTiledLayout((0, 1, 2, 3, 4), (("*", "*", 2, "*", 3),)).tiles
    ((-1, -1, 2, -1, 3),)
    """

    minor_to_major: tuple[int, ...]
    tiles: tuple[tuple[int, ...], ...] = ()

    def __post_init__(self) -> None:
        mtm = tuple(int(d) for d in self.minor_to_major)
        if sorted(mtm) != list(range(len(mtm))):
            raise LayoutError(
                f"xla: minor_to_major {list(mtm)} is not a permutation of {list(range(len(mtm)))}"
            )
        tiles: list[tuple[int, ...]] = []
        for tile in self.tiles:
            entries: list[int] = []
            for t in tile:
                if t == "*":
                    entries.append(COMBINE)
                elif isinstance(t, bool) or not isinstance(t, int | np.integer):
                    raise LayoutError(f"xla: tile entry {t!r} is neither a positive int nor '*'")
                elif t == COMBINE or t >= 1:
                    entries.append(int(t))
                else:
                    raise LayoutError(
                        f"xla: tile {_fmt_tile(tile)} has entry {t}; entries must be >= 1 or '*'"
                    )
            tiles.append(tuple(entries))
        object.__setattr__(self, "minor_to_major", mtm)
        object.__setattr__(self, "tiles", tuple(tiles))
        self._check_tile_ranks()

    def _check_tile_ranks(self) -> None:
        rank = len(self.minor_to_major)
        for no, tile in enumerate(self.tiles):
            if not tile:
                raise LayoutError(f"xla: tile {no} is empty")
            if len(tile) > rank:
                raise LayoutError(
                    f"xla: tile {no} {_fmt_tile(tile)} has {len(tile)} dims but the shape it "
                    f"tiles has rank {rank}"
                )
            if tile[-1] == COMBINE:
                raise LayoutError(
                    f"xla: tile {no} {_fmt_tile(tile)} ends in '*', but the most minor dim has "
                    "no more minor dim to combine with"
                )
            stars = tile.count(COMBINE)
            rank = (rank - stars) + (len(tile) - stars)

    # ----------------------------------------------------------------------------- text form
    @classmethod
    def parse(cls, text: str) -> XlaTiledLayout:
        """Parse XLA's layout notation ``{minor_to_major[:T(tile)(tile)...]}``.

        >>> XlaTiledLayout.parse("{4,3,2,1,0:T(*,*,2,*,3)}").tiles
        ((-1, -1, 2, -1, 3),)
        >>> XlaTiledLayout.parse("{}").minor_to_major
        ()
        """
        return _LayoutParser(text).parse_whole_layout()

    def __str__(self) -> str:
        body = ",".join(str(d) for d in self.minor_to_major)
        if self.tiles:
            body += ":T" + "".join(_fmt_tile(t) for t in self.tiles)
        return "{" + body + "}"

    @classmethod
    def row_major(cls, rank: int) -> XlaTiledLayout:
        """The untiled descending layout of a given rank (XLA's default).

        >>> str(XlaTiledLayout.row_major(3))
        '{2,1,0}'
        """
        return cls(tuple(range(rank - 1, -1, -1)))

    @property
    def rank(self) -> int:
        """Logical rank (``len(minor_to_major)``).

        >>> XlaTiledLayout.parse("{0,1:T(2,2)}").rank
        2
        """
        return len(self.minor_to_major)

    # ----------------------------------------------------------------------------- evaluation
    def _check_dims(self, dims: Iterable[int]) -> tuple[int, ...]:
        dims_t = tuple(int(d) for d in dims)
        if len(dims_t) != self.rank:
            raise LayoutError(
                f"xla: shape {_fmt_dims(dims_t)} has rank {len(dims_t)} but layout {self} has "
                f"rank {self.rank}"
            )
        for i, d in enumerate(dims_t):
            if d < 1:
                raise LayoutError(f"xla: dim {i} of shape {_fmt_dims(dims_t)} is {d}, must be >= 1")
        return dims_t

    def _physical_order(self) -> tuple[int, ...]:
        return tuple(reversed(self.minor_to_major))

    def _tile(
        self, idx: Sequence[Any], dims: Sequence[int]
    ) -> tuple[list[Any], list[int], list[_Stage]]:
        """Run the tiles on a logical index (ints or numpy arrays); return final index/shape."""
        order = self._physical_order()
        cur_idx: list[Any] = [idx[d] for d in order]
        shape: list[int] = [dims[d] for d in order]
        stages = [_Stage(-1, tuple(shape))]
        for no, tile in enumerate(self.tiles):
            base = len(shape) - len(tile)
            entries = list(tile)
            j = 0
            while j < len(entries):
                if entries[j] != COMBINE:
                    j += 1
                    continue
                # Combining dim p into p+1 is exactly row-major linearisation of the pair.
                p = base + j
                cur_idx[p + 1] = cur_idx[p] * shape[p + 1] + cur_idx[p + 1]
                shape[p + 1] = shape[p] * shape[p + 1]
                del cur_idx[p], shape[p], entries[j]
            tiled = shape[base:]
            counts = [-(-d // t) for d, t in zip(tiled, entries, strict=True)]
            outer = [e // t for e, t in zip(cur_idx[base:], entries, strict=True)]
            inner = [e % t for e, t in zip(cur_idx[base:], entries, strict=True)]
            cur_idx = cur_idx[:base] + outer + inner
            shape = shape[:base] + counts + entries
            stages.append(_Stage(no, tuple(shape)))
        return cur_idx, shape, stages

    def tiled_shape(self, dims: Iterable[int]) -> tuple[int, ...]:
        """The final physical shape (major to minor) after all tiles, padding included.

        >>> XlaTiledLayout.parse("{1,0:T(2,4)(2,1,1,1)}").tiled_shape((8, 8))
        (2, 2, 2, 4, 2, 1, 1, 1)
        """
        dims_t = self._check_dims(dims)
        _, shape, _ = self._tile([0] * self.rank, dims_t)
        return tuple(shape)

    def physical_size(self, dims: Iterable[int]) -> int:
        """Number of elements of the padded physical buffer.

        >>> XlaTiledLayout.parse("{1,0:T(8,128)}").physical_size((3, 5))
        1024
        """
        return int(np.prod(self.tiled_shape(dims), dtype=object))

    def linear_index(self, index: Iterable[int], dims: Iterable[int]) -> int:
        """XLA's ``linear_index_with_tile``: the buffer offset of a logical element.

        ``index`` and ``dims`` are in logical dim order (dim 0 first, as XLA writes shapes).

        >>> XlaTiledLayout.parse("{1,0:T(2,2)}").linear_index((2, 3), (3, 5))
        17
        >>> XlaTiledLayout.parse("{0,1}").linear_index((2, 3), (3, 5))
        11
        """
        dims_t = self._check_dims(dims)
        idx = tuple(int(e) for e in index)
        if len(idx) != len(dims_t):
            raise LayoutError(
                f"xla: index {list(idx)} has {len(idx)} entries for shape {_fmt_dims(dims_t)}"
            )
        for i, (e, d) in enumerate(zip(idx, dims_t, strict=True)):
            if not 0 <= e < d:
                raise LayoutError(
                    f"xla: index {list(idx)} is out of bounds in dim {i} of shape "
                    f"{_fmt_dims(dims_t)}"
                )
        final_idx, shape, _ = self._tile(idx, dims_t)
        return int(_row_major(final_idx, shape))

    def linear_indices(self, dims: Iterable[int]) -> np.ndarray:
        """The offset of every logical element, as an int64 array of shape ``dims``.

        >>> XlaTiledLayout.parse("{1,0:T(2,2)}").linear_indices((3, 5)).tolist()[2]
        [12, 13, 16, 17, 20]
        """
        dims_t = self._check_dims(dims)
        grid = np.indices(dims_t, dtype=np.int64)
        final_idx, shape, _ = self._tile(list(grid), dims_t)
        return np.asarray(_row_major(final_idx, shape), dtype=np.int64) + np.zeros(
            dims_t, dtype=np.int64
        )

    # ----------------------------------------------------------------------------- linear layout
    def to_linear_layout(self, dims: Iterable[int]) -> Any:
        """The layout as a :class:`~llc.linear_layout.LinearLayout` ``dim0.. -> offset``.

        In-dims are the logical dims ``dim0..dim{r-1}`` (``dim0`` the most major in XLA's
        notation; listed in that order), the one out-dim is ``offset``, sized to the padded
        buffer rounded up to a power of two (the layout is injective but not surjective when
        tiles pad). Every dim must be a power of two; with power-of-two tiles the map is then
        always F2-linear, and other tiles are checked exhaustively.

        >>> ll = XlaTiledLayout.parse("{1,0:T(2,2)}").to_linear_layout((4, 4))
        >>> ll.apply({"dim0": 2, "dim1": 3})
        {'offset': 13}
        """
        return _to_linear_layout_cached(self, self._check_dims(dims))

    def _to_linear_layout(self, dims_t: tuple[int, ...]) -> Any:
        from llc.linear_layout import LinearLayout

        for i, d in enumerate(dims_t):
            if not _is_pow2(d):
                raise LayoutError(
                    f"xla: dim {i} of shape {_fmt_dims(dims_t)} has size {d}, which is not a "
                    "power of two; a linear layout needs power-of-two dims (pad the shape)"
                )
        bases: list[tuple[str, list[list[int]]]] = []
        for d, n in enumerate(dims_t):
            images = []
            for bit in range(n.bit_length() - 1):
                unit = [0] * self.rank
                unit[d] = 1 << bit
                images.append([self.linear_index(unit, dims_t)])
            bases.append((f"dim{d}", images))
        self._check_linear(dims_t, bases)
        size = self.physical_size(dims_t)
        out_size = 1 << (size - 1).bit_length()
        return LinearLayout.from_bases(
            bases, ["offset"], out_dim_sizes=[out_size], require_surjective=False
        )

    def _check_linear(
        self, dims: tuple[int, ...], bases: list[tuple[str, list[list[int]]]]
    ) -> None:
        _, _, stages = self._tile([0] * self.rank, dims)
        bad = next(
            ((st, ext) for st in stages for ext in st.shape if not _is_pow2(ext)),
            None,
        )
        if bad is None:
            # Every floor/mod/linearisation is by a power of two: pure bit-field moves.
            return
        stage, extent = bad
        where = (
            f"tile {stage.tile_no} {_fmt_tile(self.tiles[stage.tile_no])} gives tiled shape "
            f"{_fmt_dims(stage.shape)} with extent {extent}, not a power of two"
        )
        total = int(np.prod(dims, dtype=object))
        if total > _MAX_EXHAUSTIVE_CHECK:
            raise NotLinearError(
                f"xla: layout {self} on shape {_fmt_dims(dims)}: {where}; the map is too large "
                f"({total} elements) to check for linearity exhaustively"
            )
        actual = self.linear_indices(dims)
        grid = np.indices(dims, dtype=np.int64)
        xor = np.zeros(dims, dtype=np.int64)
        for d, (_, images) in enumerate(bases):
            for bit, (img,) in enumerate(images):
                xor ^= np.where((grid[d] >> bit) & 1 == 1, img, 0)
        mismatch = np.argwhere(actual != xor)
        if mismatch.size:
            first = tuple(int(v) for v in mismatch[0])
            raise NotLinearError(
                f"xla: layout {self} on shape {_fmt_dims(dims)} is not F2-linear: {where} "
                f"(padding); element {list(first)} is at offset {int(actual[first])} but the XOR "
                f"of its basis images is {int(xor[first])}"
            )


@functools.lru_cache(maxsize=1024)
def _to_linear_layout_cached(layout: XlaTiledLayout, dims: tuple[int, ...]) -> Any:
    # LinearLayouts are immutable, so callers may share one.
    return layout._to_linear_layout(dims)


# --------------------------------------------------------------------------------- parsing
class _LayoutParser:
    """A small cursor parser for ``{...}`` layouts and ``type[dims]{...}`` shapes."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def error(self, what: str) -> LayoutParseError:
        return LayoutParseError(f"xla: cannot parse {self.text!r} at column {self.pos}: {what}")

    def skip_ws(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        self.skip_ws()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, ch: str) -> None:
        if self.peek() != ch:
            found = repr(self.peek()) if self.peek() else "end of text"
            raise self.error(f"expected {ch!r}, found {found}")
        self.pos += 1

    def integer(self) -> int:
        self.skip_ws()
        m = re.compile(r"\d+").match(self.text, self.pos)
        if not m:
            raise self.error("expected an integer")
        self.pos = m.end()
        return int(m.group())

    def int_list(self, close: str, allow_star: bool = False) -> list[int]:
        values: list[int] = []
        if self.peek() == close:
            return values
        while True:
            if allow_star and self.peek() == "*":
                self.pos += 1
                values.append(COMBINE)
            else:
                values.append(self.integer())
            if self.peek() == ",":
                self.pos += 1
                continue
            return values

    def layout(self) -> XlaTiledLayout:
        self.expect("{")
        mtm = self.int_list("}")
        tiles: list[tuple[int, ...]] = []
        if self.peek() == ":":
            self.pos += 1
            while self.peek() not in ("}", ""):
                if self.peek() != "T":
                    m = re.compile(r"[A-Za-z]+(\([^)]*\))?").match(self.text, self.pos)
                    item = m.group() if m else self.peek()
                    raise self.error(
                        f"unsupported layout attribute {item!r}; llc models only tiles T(...)"
                    )
                self.pos += 1
                if self.peek() != "(":
                    raise self.error("expected '(' after 'T'")
                while self.peek() == "(":
                    self.pos += 1
                    tiles.append(tuple(self.int_list(")", allow_star=True)))
                    self.expect(")")
        self.expect("}")
        try:
            return XlaTiledLayout(tuple(mtm), tuple(tiles))
        except LayoutParseError:
            raise
        except LayoutError as err:
            raise LayoutParseError(f"{err} (in {self.text!r})") from err

    def end(self) -> None:
        if self.peek():
            raise self.error(f"unexpected trailing text {self.text[self.pos :]!r}")

    def parse_whole_layout(self) -> XlaTiledLayout:
        layout = self.layout()
        self.end()
        return layout

    def shape_with_layout(self) -> tuple[tuple[int, ...], XlaTiledLayout]:
        self.skip_ws()
        m = re.compile(r"[A-Za-z][A-Za-z0-9]*").match(self.text, self.pos)
        if m:
            self.pos = m.end()
        self.expect("[")
        dims = tuple(self.int_list("]"))
        self.expect("]")
        if self.peek() == "{":
            layout = self.layout()
            if layout.rank != len(dims):
                raise LayoutParseError(
                    f"xla: {self.text!r}: layout {layout} has rank {layout.rank} but the shape "
                    f"has rank {len(dims)}"
                )
        else:
            layout = XlaTiledLayout.row_major(len(dims))
        self.end()
        return dims, layout


def parse_shape_with_layout(text: str) -> tuple[tuple[int, ...], XlaTiledLayout]:
    """Parse ``f32[3,5]{1,0:T(2,2)}`` into ``(dims, layout)``; the element type is optional.

    Without a ``{...}`` part the layout is XLA's default descending one.

    >>> dims, layout = parse_shape_with_layout("F32[3,5]{1,0:T(2,2)}")
    >>> dims, str(layout)
    ((3, 5), '{1,0:T(2,2)}')
    >>> str(parse_shape_with_layout("bf16[2,3,4]")[1])
    '{2,1,0}'
    """
    return _LayoutParser(text).shape_with_layout()
