"""CuTe layouts (``shape:stride``), swizzles (``Swizzle<B,M,S>``) and swizzled layouts.

A :class:`CuteLayout` maps a coordinate to an offset by the inner product of its natural
(hierarchical) coordinate with the strides; an integer coordinate is first split
colexicographically (the leftmost mode varies fastest). A :class:`CuteSwizzle` XORs ``B``
bits taken ``M + S`` bits up into the bits ``S`` lower, and a :class:`CuteComposedLayout`
applies a swizzle after a layout. All three convert to
:class:`~llc.linear_layout.LinearLayout` when F2-linear, and back.

>>> layout = CuteLayout.parse("((2,2),4):((1,4),2)")
>>> [layout(i) for i in range(8)]
[0, 1, 4, 5, 2, 3, 6, 7]
>>> layout((1, 0), 3), layout.size(), layout.cosize()
(7, 16, 12)
>>> swizzle = CuteSwizzle.parse("Swizzle<1,2,1>")
>>> [swizzle(x) for x in range(16)]
[0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15, 8, 9, 10, 11]
>>> str(CuteComposedLayout.parse("Sw<3,4,3> o _0 o (_8,_64):(_64,_1)"))
'Swizzle<3,4,3> o (8,64):(64,1)'
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import product as cartesian
from typing import Any, TypeAlias

import numpy as np

from llc.errors import LayoutError, LayoutParseError, NotLinearError

__all__ = [
    "CuteComposedLayout",
    "CuteLayout",
    "CuteSwizzle",
    "IntTuple",
    "parse_cute",
]

IntTuple: TypeAlias = "int | tuple[IntTuple, ...]"


# --------------------------------------------------------------------------------- int tuples
def _normalize(value: Any, what: str) -> IntTuple:
    """Lists become tuples, numpy ints become ints; anything else is rejected."""
    if isinstance(value, list | tuple):
        return tuple(_normalize(v, what) for v in value)
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise LayoutError(f"cute: {what} entry {value!r} is not an integer")
    return int(value)


def _fmt(t: IntTuple) -> str:
    if isinstance(t, tuple):
        return "(" + ",".join(_fmt(v) for v in t) + ")"
    return str(t)


def _product(t: IntTuple) -> int:
    if isinstance(t, tuple):
        result = 1
        for v in t:
            result *= _product(v)
        return result
    return t


def _congruent(a: IntTuple, b: IntTuple) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_congruent(x, y) for x, y in zip(a, b, strict=True))
    return not isinstance(a, tuple) and not isinstance(b, tuple)


def _leaves(shape: IntTuple, stride: IntTuple, path: tuple[int, ...]) -> Iterator[_Leaf]:
    """The flat modes in colexicographic order (first leaf fastest), with their mode path."""
    if isinstance(shape, tuple):
        assert isinstance(stride, tuple)  # congruence was checked at construction
        for i, (s, d) in enumerate(zip(shape, stride, strict=True)):
            yield from _leaves(s, d, (*path, i))
    else:
        assert isinstance(stride, int)
        yield _Leaf(path, shape, stride)


def _compact_colex(shape: IntTuple, start: int = 1) -> tuple[IntTuple, int]:
    """Compact column-major strides congruent to ``shape`` (CuTe's default, LayoutLeft)."""
    if isinstance(shape, tuple):
        strides = []
        for s in shape:
            d, start = _compact_colex(s, start)
            strides.append(d)
        return tuple(strides), start
    return start, start * shape


def _bits(n: int) -> list[int]:
    """Positions of the set bits of ``n >= 0``."""
    return [b for b in range(n.bit_length()) if (n >> b) & 1]


def _is_pow2(n: int) -> bool:
    return n >= 1 and n & (n - 1) == 0


def _log2(n: int) -> int:
    return n.bit_length() - 1


@dataclass(frozen=True)
class _Leaf:
    path: tuple[int, ...]
    extent: int
    stride: int

    def describe(self) -> str:
        where = ".".join(str(p) for p in self.path) if self.path else "0"
        return f"mode {where} (shape {self.extent}, stride {self.stride})"


# --------------------------------------------------------------------------------- layouts
@dataclass(frozen=True)
class CuteLayout:
    """A CuTe ``shape:stride`` layout; shape and stride are congruent nested int tuples.

    ``stride=None`` gives CuTe's compact column-major strides. Shapes must be >= 1 and
    strides >= 0 (llc does not model negative strides).

    >>> CuteLayout((4, 2))
    CuteLayout(shape=(4, 2), stride=(1, 4))
    >>> str(CuteLayout(8, 1)), CuteLayout(8, 1)(5)
    ('8:1', 5)
    """

    shape: IntTuple
    stride: IntTuple | None = None

    def __post_init__(self) -> None:
        shape = _normalize(self.shape, "shape")
        stride = (
            _compact_colex(shape)[0] if self.stride is None else _normalize(self.stride, "stride")
        )
        if not _congruent(shape, stride):
            raise LayoutError(
                f"cute: stride {_fmt(stride)} is not congruent to shape {_fmt(shape)} "
                "(they must have the same nesting)"
            )
        for leaf in _leaves(shape, stride, ()):
            if leaf.extent < 1:
                raise LayoutError(f"cute: shape {_fmt(shape)} has extent {leaf.extent} < 1")
            if leaf.stride < 0:
                raise LayoutError(
                    f"cute: stride {_fmt(stride)} has negative entry {leaf.stride}; llc supports "
                    "non-negative strides only"
                )
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "stride", stride)

    # ----------------------------------------------------------------------------- text form
    @classmethod
    def parse(cls, text: str) -> CuteLayout:
        """Parse ``shape:stride`` (``_`` prefixes of static ints allowed; no stride = compact).

        >>> CuteLayout.parse("((2,2),4):((1,4),2)").shape
        ((2, 2), 4)
        >>> str(CuteLayout.parse("(_4, _2)"))
        '(4,2):(1,4)'
        """
        result = parse_cute(text)
        if not isinstance(result, CuteLayout):
            raise LayoutParseError(f"cute: {text!r} is a {type(result).__name__}, not a layout")
        return result

    def __str__(self) -> str:
        assert self.stride is not None
        return f"{_fmt(self.shape)}:{_fmt(self.stride)}"

    # ----------------------------------------------------------------------------- queries
    @property
    def rank(self) -> int:
        """Number of top-level modes (an integer shape has one).

        >>> CuteLayout.parse("((2,2),4):((1,4),2)").rank, CuteLayout.parse("8:1").rank
        (2, 1)
        """
        return len(self.shape) if isinstance(self.shape, tuple) else 1

    def modes(self) -> tuple[CuteLayout, ...]:
        """The top-level modes as layouts.

        >>> [str(m) for m in CuteLayout.parse("((2,2),4):((1,4),2)").modes()]
        ['(2,2):(1,4)', '4:2']
        """
        if isinstance(self.shape, tuple):
            assert isinstance(self.stride, tuple)
            return tuple(CuteLayout(s, d) for s, d in zip(self.shape, self.stride, strict=True))
        return (self,)

    def leaves(self) -> tuple[tuple[int, int], ...]:
        """The flattened ``(extent, stride)`` modes, fastest first.

        >>> CuteLayout.parse("((2,2),4):((1,4),2)").leaves()
        ((2, 1), (2, 4), (4, 2))
        """
        assert self.stride is not None
        return tuple((lf.extent, lf.stride) for lf in _leaves(self.shape, self.stride, ()))

    def size(self) -> int:
        """Size of the domain (product of the shape).

        >>> CuteLayout.parse("(4,2):(2,1)").size()
        8
        """
        return _product(self.shape)

    def cosize(self) -> int:
        """Size of the codomain: one past the largest offset, ``layout(size - 1) + 1``.

        >>> CuteLayout.parse("(4,2):(2,1)").cosize(), CuteLayout.parse("4:0").cosize()
        (8, 1)
        """
        return self(self.size() - 1) + 1

    # ----------------------------------------------------------------------------- evaluation
    def __call__(self, *coord: IntTuple) -> int:
        """The offset of an integral (colexicographic) or natural/hierarchical coordinate.

        ``layout(i, j)`` is ``layout((i, j))``.

        >>> layout = CuteLayout.parse("(4,2):(2,1)")
        >>> [layout(i) for i in range(8)], layout(3, 1)
        ([0, 2, 4, 6, 1, 3, 5, 7], 7)
        """
        crd: IntTuple = coord[0] if len(coord) == 1 else tuple(coord)
        crd = _normalize(crd, "coordinate")
        assert self.stride is not None
        return _crd2idx(crd, self.shape, self.stride, self)

    def offsets(self) -> np.ndarray:
        """``[layout(i) for i in range(size)]`` as an int64 array (vectorised).

        >>> CuteLayout.parse("(2,3):(3,1)").offsets().tolist()
        [0, 3, 1, 4, 2, 5]
        """
        index = np.arange(self.size(), dtype=np.int64)
        return _eval_leaves(index, self.leaves())

    # ----------------------------------------------------------------------------- linear layouts
    def _basis_images(self) -> list[list[int]]:
        """Per top-level mode, the offset of each coordinate bit; raises if not F2-linear.

        CuTe adds the strides of a coordinate's set bits where a LinearLayout XORs them, and
        ``a + b == a ^ b`` exactly when ``a & b == 0``; since any set of coordinate bits can
        be set at once, the map is F2-linear iff every extent is a power of two and the bit
        images have pairwise disjoint binary supports (0 and powers of two are the usual case).
        """
        assert self.stride is not None
        images: list[list[int]] = []
        # offset bit -> (leaf, bit within the leaf, integral-coordinate bit, image)
        owner: dict[int, tuple[_Leaf, int, int, int]] = {}
        integral_bit = 0
        for m, mode in enumerate(self.modes()):
            assert mode.stride is not None
            mode_images: list[int] = []
            path = (m,) if isinstance(self.shape, tuple) else ()
            for leaf in _leaves(mode.shape, mode.stride, path):
                if not _is_pow2(leaf.extent):
                    raise NotLinearError(
                        f"cute: layout {self} is not F2-linear: {leaf.describe()} has extent "
                        f"{leaf.extent}, which is not a power of two"
                    )
                for bit in range(_log2(leaf.extent)):
                    image = leaf.stride << bit
                    clash = next((b for b in _bits(image) if b in owner), None)
                    if clash is not None:
                        other, other_bit, other_integral, other_image = owner[clash]
                        coord = (1 << other_integral) | (1 << integral_bit)
                        if other is leaf:
                            why = f"{leaf.describe()} has stride {leaf.stride}, whose doublings"
                            why += f" {other_image} (bit {other_bit}) and {image} (bit {bit})"
                        else:
                            why = (
                                f"bit {bit} of {leaf.describe()} (offset {image}) and bit "
                                f"{other_bit} of {other.describe()} (offset {other_image})"
                            )
                        raise NotLinearError(
                            f"cute: layout {self} is not F2-linear: {why} share offset bit "
                            f"{clash}, so coordinate {coord} maps to {image + other_image} but "
                            f"the XOR of its basis images is {image ^ other_image} (strides must "
                            "be 0 or powers of two that do not collide)"
                        )
                    for b in _bits(image):
                        owner[b] = (leaf, bit, integral_bit, image)
                    mode_images.append(image)
                    integral_bit += 1
            images.append(mode_images)
        return images

    def to_linear_layout(self) -> Any:
        """The layout as a LinearLayout ``dim0.. -> offset``, one in-dim per top-level mode.

        In-dim ``dim{m}`` is the integral coordinate of top-level mode ``m``; in-dims are
        listed fastest first, so ``flatten_ins()`` gives CuTe's integral coordinate. The
        ``offset`` out-dim is the smallest power of two holding every offset. The check is
        exact: :class:`NotLinearError` unless every extent is a power of two and the offsets
        of the coordinate bits have pairwise disjoint binary supports (so CuTe's sum equals
        the XOR). With the usual strides, 0 or powers of two, that means no two coordinate
        bits land on the same offset bit; ``(2,2):(1,6)`` is linear too, ``(4):(3)`` is not.

        >>> ll = CuteLayout.parse("((2,2),4):((1,8),2)").to_linear_layout()
        >>> ll.apply({"dim0": 3, "dim1": 1})
        {'offset': 11}
        """
        return _layout_to_ll_cached(self)

    def _to_linear_layout(self) -> Any:
        from llc.linear_layout import LinearLayout

        images = self._basis_images()
        out_bits = max((img.bit_length() for mode in images for img in mode), default=0)
        bases = [(f"dim{m}", [[img] for img in mode]) for m, mode in enumerate(images)]
        return LinearLayout.from_bases(
            bases, ["offset"], out_dim_sizes=[1 << out_bits], require_surjective=False
        )

    @classmethod
    def from_linear_layout(cls, ll: Any) -> CuteLayout:
        """Express a permutation/broadcast LinearLayout as ``shape:stride``.

        Each in-dim becomes a top-level mode (in order; a single in-dim gives a rank-1
        layout). Runs of basis images that double become one extent with one stride. The
        basis images (out-dims flattened, first fastest) must have pairwise disjoint binary
        supports (typically: 0 or distinct powers of two), since CuTe adds strides where a
        LinearLayout XORs; otherwise :class:`NotLinearError`. In-dim names are not kept:
        ``to_linear_layout`` names them ``dim0..`` again.

        >>> from llc.linear_layout import LinearLayout
        >>> ll = LinearLayout.from_bases([("dim0", [[1], [4]]), ("dim1", [[2], [8]])], ["offset"])
        >>> str(CuteLayout.from_linear_layout(ll))
        '((2,2),(2,2)):((1,4),(2,8))'
        """
        return cls._from_images(_flat_bases(ll))

    @classmethod
    def _from_images(cls, per_dim: list[tuple[str, list[int]]]) -> CuteLayout:
        owner: dict[int, tuple[str, int, int]] = {}  # offset bit -> (in-dim, basis, image)
        for name, images in per_dim:
            for bit, image in enumerate(images):
                clash = next((b for b in _bits(image) if b in owner), None)
                if clash is not None:
                    other, other_bit, other_image = owner[clash]
                    kind = "a power of two" if _is_pow2(image) else f"{image:#b}"
                    raise NotLinearError(
                        f"cute: basis {bit} of in-dim '{name}' maps to offset {image} "
                        f"({kind}), sharing offset bit {clash} with basis {other_bit} of in-dim "
                        f"'{other}' (offset {other_image}); CuTe adds strides, so setting both "
                        f"gives {image + other_image} where the linear layout XORs to "
                        f"{image ^ other_image}. XOR-combined bases need a swizzle: try "
                        "CuteComposedLayout.from_linear_layout"
                    )
                for b in _bits(image):
                    owner[b] = (name, bit, image)
        modes = [_mode_from_images(images) for _, images in per_dim]
        if len(modes) == 1:
            shape, stride = modes[0]
            if isinstance(shape, tuple):
                # Keep one top-level mode so the in-dims round-trip.
                return cls((shape,), (stride,))
            return cls(shape, stride)
        return cls(tuple(s for s, _ in modes), tuple(d for _, d in modes))


@functools.lru_cache(maxsize=1024)
def _layout_to_ll_cached(layout: CuteLayout) -> Any:
    # LinearLayouts are immutable, so callers may share one.
    return layout._to_linear_layout()


def _crd2idx(crd: IntTuple, shape: IntTuple, stride: IntTuple, layout: CuteLayout) -> int:
    if isinstance(crd, tuple):
        if not isinstance(shape, tuple) or len(crd) != len(shape):
            raise LayoutError(
                f"cute: coordinate {_fmt(crd)} is not compatible with shape {_fmt(shape)} of "
                f"layout {layout}"
            )
        assert isinstance(stride, tuple)
        return sum(_crd2idx(c, s, d, layout) for c, s, d in zip(crd, shape, stride, strict=True))
    size = _product(shape)
    if not 0 <= crd < size:
        raise LayoutError(
            f"cute: coordinate {crd} is out of range for shape {_fmt(shape)} (size {size}) of "
            f"layout {layout}"
        )
    if isinstance(shape, tuple):
        assert isinstance(stride, tuple)
        result = 0
        for s, d in zip(shape, stride, strict=True):
            n = _product(s)
            result += _crd2idx(crd % n, s, d, layout)
            crd //= n
        return result
    assert isinstance(stride, int)
    return crd * stride


def _eval_leaves(index: np.ndarray, leaves: Sequence[tuple[int, int]]) -> np.ndarray:
    result = np.zeros_like(index)
    for extent, stride in leaves:
        result += (index % extent) * stride
        index = index // extent
    return result


def _flat_bases(ll: Any) -> list[tuple[str, list[int]]]:
    """Each in-dim's basis images as single integers (out-dims flattened, first fastest)."""
    out_sizes = [size for _, size in ll.out_dims]
    result: list[tuple[str, list[int]]] = []
    for name, vectors in ll.bases:
        images = []
        for vector in vectors:
            value, scale = 0, 1
            for v, size in zip(vector, out_sizes, strict=True):
                value += v * scale
                scale *= size
            images.append(value)
        result.append((name, images))
    return result


def _disjoint_supports(images: Iterable[int]) -> bool:
    seen = 0
    for image in images:
        if image & seen:
            return False
        seen |= image
    return True


def _mode_from_images(images: Sequence[int]) -> tuple[IntTuple, IntTuple]:
    """Group doubling runs of basis images into (extent, stride) leaves of one mode."""
    runs: list[list[int]] = []
    for image in images:
        if runs and (
            (image == 0 and runs[-1][1] == 0)
            or (image != 0 and image == runs[-1][1] << runs[-1][0])
        ):
            runs[-1][0] += 1
        else:
            runs.append([1, image])
    if not runs:
        return 1, 0
    if len(runs) == 1:
        return 1 << runs[0][0], runs[0][1]
    return tuple(1 << n for n, _ in runs), tuple(d for _, d in runs)


# --------------------------------------------------------------------------------- swizzles
@dataclass(frozen=True)
class CuteSwizzle:
    """CuTe's ``Swizzle<B,M,S>``: XOR ``B`` bits at ``M + max(S,0)`` into the bits ``S`` lower.

    ``x -> x ^ ((x & yyy_mask) >> S)`` (a left shift when ``S < 0``); the ``M`` lowest bits
    never change. CuTe requires ``|S| >= B`` so the two bit ranges are disjoint, which
    makes every swizzle an involution.

    >>> sw = CuteSwizzle(3, 4, 3)
    >>> bin(sw.yyy_mask), bin(sw.zzz_mask), sw.size()
    ('0b1110000000', '0b1110000', 1024)
    >>> sw(0b0010000000), sw(sw(0b0010000000)) == 0b0010000000
    (144, True)
    """

    bits: int
    base: int
    shift: int

    def __post_init__(self) -> None:
        for name, value in (("B", self.bits), ("M", self.base), ("S", self.shift)):
            if isinstance(value, bool) or not isinstance(value, int | np.integer):
                raise LayoutError(f"cute: Swizzle {name} = {value!r} is not an integer")
        if self.bits < 0 or self.base < 0:
            raise LayoutError(
                f"cute: Swizzle<{self.bits},{self.base},{self.shift}> needs B >= 0 and M >= 0"
            )
        if abs(self.shift) < self.bits:
            raise LayoutError(
                f"cute: Swizzle<{self.bits},{self.base},{self.shift}> needs |S| >= B so the "
                "source and target bit ranges do not overlap"
            )
        for name in ("bits", "base", "shift"):
            object.__setattr__(self, name, int(getattr(self, name)))

    @classmethod
    def parse(cls, text: str) -> CuteSwizzle:
        """Parse ``Swizzle<B,M,S>`` (or CuTe's printed ``Sw<B,M,S>``).

        >>> CuteSwizzle.parse("Swizzle<3, 4, 3>")
        CuteSwizzle(bits=3, base=4, shift=3)
        """
        result = parse_cute(text)
        if not isinstance(result, CuteSwizzle):
            raise LayoutParseError(f"cute: {text!r} is a {type(result).__name__}, not a swizzle")
        return result

    def __str__(self) -> str:
        return f"Swizzle<{self.bits},{self.base},{self.shift}>"

    @property
    def yyy_mask(self) -> int:
        """The source bits (``B`` bits at ``M + max(S, 0)``).

        >>> bin(CuteSwizzle(2, 1, -3).yyy_mask)
        '0b110'
        """
        return ((1 << self.bits) - 1) << (self.base + max(0, self.shift))

    @property
    def zzz_mask(self) -> int:
        """The target bits (``B`` bits at ``M - min(S, 0)``).

        >>> bin(CuteSwizzle(2, 1, -3).zzz_mask)
        '0b110000'
        """
        return ((1 << self.bits) - 1) << (self.base - min(0, self.shift))

    @property
    def num_bits(self) -> int:
        """Bits the swizzle reads or writes: ``B + M + |S|``.

        >>> CuteSwizzle(3, 4, 3).num_bits
        10
        """
        return self.bits + self.base + abs(self.shift)

    def size(self) -> int:
        """Size of the domain the swizzle permutes, ``2**(B + M + |S|)``.

        >>> CuteSwizzle(1, 2, 1).size()
        16
        """
        return 1 << self.num_bits

    def cosize(self) -> int:
        """Same as :meth:`size`: a swizzle is a bijection of ``[0, size)``.

        >>> CuteSwizzle(2, 0, -2).cosize()
        16
        """
        return self.size()

    def __call__(self, offset: Any) -> Any:
        """Swizzle an offset (an int or an integer numpy array)."""
        moved = offset & self.yyy_mask
        moved = moved >> self.shift if self.shift >= 0 else moved << -self.shift
        return offset ^ moved

    def to_linear_layout(self, size: int | None = None) -> Any:
        """The swizzle as an invertible LinearLayout ``offset -> offset``.

        It covers ``max(size, self.size())`` offsets (``size`` a power of two); bits above
        the swizzle pass through unchanged.

        >>> ll = CuteSwizzle(1, 2, 1).to_linear_layout()
        >>> [ll.apply({"offset": x})["offset"] for x in (4, 8, 12)]
        [4, 12, 8]
        """
        from llc.linear_layout import LinearLayout

        if size is not None and not _is_pow2(size):
            raise LayoutError(f"cute: {self}.to_linear_layout size {size} is not a power of two")
        n = max(self.num_bits, _log2(size) if size else 0)
        bases = [("offset", [[self(1 << i)] for i in range(n)])]
        return LinearLayout.from_bases(bases, ["offset"], out_dim_sizes=[1 << n])


@dataclass(frozen=True)
class CuteComposedLayout:
    """``swizzle o offset o layout``: ``c -> swizzle(offset + layout(c))`` (CuTe's ComposedLayout).

    >>> sl = CuteComposedLayout.parse("Swizzle<1,2,1> o (4,4):(4,1)")
    >>> [sl(i, 2) for i in range(4)]
    [2, 6, 14, 10]
    """

    swizzle: CuteSwizzle
    layout: CuteLayout
    offset: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.swizzle, CuteSwizzle):
            raise LayoutError(f"cute: composed layout swizzle {self.swizzle!r} is not a Swizzle")
        if not isinstance(self.layout, CuteLayout):
            raise LayoutError(f"cute: composed layout inner {self.layout!r} is not a CuteLayout")
        if isinstance(self.offset, bool) or not isinstance(self.offset, int) or self.offset < 0:
            raise LayoutError(f"cute: composed layout offset {self.offset!r} must be an int >= 0")

    @classmethod
    def parse(cls, text: str) -> CuteComposedLayout:
        """Parse ``Swizzle<B,M,S> o [offset o] shape:stride``.

        >>> CuteComposedLayout.parse("Swizzle<3,4,3> o (8,64):(64,1)").layout.shape
        (8, 64)
        """
        result = parse_cute(text)
        if not isinstance(result, CuteComposedLayout):
            raise LayoutParseError(
                f"cute: {text!r} is a {type(result).__name__}, not a swizzled layout"
            )
        return result

    def __str__(self) -> str:
        middle = f" o {self.offset}" if self.offset else ""
        return f"{self.swizzle}{middle} o {self.layout}"

    def size(self) -> int:
        """Size of the domain (the inner layout's size).

        >>> CuteComposedLayout.parse("Swizzle<3,4,3> o (8,64):(64,1)").size()
        512
        """
        return self.layout.size()

    def cosize(self) -> int:
        """One past the largest offset produced.

        >>> CuteComposedLayout.parse("Swizzle<1,2,1> o 8:2").cosize()
        15
        """
        return int(self.offsets().max()) + 1

    def __call__(self, *coord: IntTuple) -> int:
        """``swizzle(offset + layout(coord))``.

        >>> CuteComposedLayout.parse("Swizzle<1,2,1> o 4 o 8:1")(4)
        12
        """
        return int(self.swizzle(self.offset + self.layout(*coord)))

    def offsets(self) -> np.ndarray:
        """Every offset in integral-coordinate order, as an int64 array.

        >>> CuteComposedLayout.parse("Swizzle<1,0,1> o 4:1").offsets().tolist()
        [0, 1, 3, 2]
        """
        return np.asarray(self.swizzle(self.layout.offsets() + self.offset), dtype=np.int64)

    def to_linear_layout(self) -> Any:
        """The swizzled layout as a LinearLayout ``dim0.. -> offset`` (see CuteLayout's).

        The swizzle is linear, so this is the swizzle applied to every basis image; the
        ``offset`` size is the smallest power of two holding every swizzled offset.

        >>> ll = CuteComposedLayout.parse("Swizzle<1,2,1> o (4,4):(4,1)").to_linear_layout()
        >>> ll.apply({"dim0": 3, "dim1": 2})["offset"]
        10
        """
        from llc.linear_layout import LinearLayout

        if self.offset:
            raise NotLinearError(
                f"cute: {self} is affine, not F2-linear: offset {self.offset} is not 0"
            )
        images = [[self.swizzle(img) for img in mode] for mode in self.layout._basis_images()]
        out_bits = max((img.bit_length() for mode in images for img in mode), default=0)
        bases = [(f"dim{m}", [[img] for img in mode]) for m, mode in enumerate(images)]
        return LinearLayout.from_bases(
            bases, ["offset"], out_dim_sizes=[1 << out_bits], require_surjective=False
        )

    @classmethod
    def from_linear_layout(cls, ll: Any) -> CuteComposedLayout:
        """Find ``Swizzle<B,M,S> o shape:stride`` equal to a LinearLayout.

        Tries swizzles in order of ``B``, then ``M``, then ``|S|`` (positive first), starting
        with the identity ``Swizzle<0,0,0>``, and returns the first fit: since a swizzle is
        an involution, ``swizzle o L`` must be a ``shape:stride`` layout (see
        :meth:`CuteLayout.from_linear_layout`). The swizzle found may be smaller than the one a
        layout was built with when the layout never sets the extra bits. Raises
        :class:`NotLinearError` if none fits.

        >>> target = CuteComposedLayout.parse("Swizzle<1,2,1> o (4,4):(4,1)")
        >>> str(CuteComposedLayout.from_linear_layout(target.to_linear_layout()))
        'Swizzle<1,2,1> o (4,4):(4,1)'
        """
        per_dim = _flat_bases(ll)
        out_bits = max((img.bit_length() for _, imgs in per_dim for img in imgs), default=0)
        for swizzle in _swizzle_candidates(out_bits):
            if _disjoint_supports(swizzle(img) for _, imgs in per_dim for img in imgs):
                unswizzled = [(name, [swizzle(img) for img in imgs]) for name, imgs in per_dim]
                return cls(swizzle, CuteLayout._from_images(unswizzled))
        raise NotLinearError(
            "cute: no Swizzle<B,M,S> o shape:stride equals this linear layout: after every "
            f"swizzle on its {out_bits} offset bits some basis image is still not a distinct "
            "power of two"
        )


def _swizzle_candidates(out_bits: int) -> Iterator[CuteSwizzle]:
    yield CuteSwizzle(0, 0, 0)
    for bits, base, mag in cartesian(range(1, out_bits + 1), range(out_bits), range(out_bits)):
        if mag < bits or bits + base + mag > out_bits:
            continue
        yield CuteSwizzle(bits, base, mag)
        yield CuteSwizzle(bits, base, -mag)


# --------------------------------------------------------------------------------- parsing
_TOKEN = re.compile(r"\s*(?:(?P<int>-?_?\d+)|(?P<word>[A-Za-z]+)|(?P<punct>[():,<>]))")


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            m = _TOKEN.match(text, pos)
            if not m:
                raise LayoutParseError(
                    f"cute: cannot parse {text!r}: unexpected character {text[pos:].strip()[0]!r} "
                    f"at column {pos + len(text[pos:]) - len(text[pos:].lstrip())}"
                )
            kind = m.lastgroup or ""
            self.tokens.append((kind, m.group(kind), m.start(kind)))
            pos = m.end()
        self.i = 0

    def error(self, what: str) -> LayoutParseError:
        if self.i < len(self.tokens):
            where = f"at column {self.tokens[self.i][2]} ({self.tokens[self.i][1]!r})"
        else:
            where = "at end of text"
        return LayoutParseError(f"cute: cannot parse {self.text!r} {where}: {what}")

    def peek(self) -> tuple[str, str]:
        if self.i < len(self.tokens):
            kind, value, _ = self.tokens[self.i]
            return kind, value
        return "", ""

    def take(self, value: str) -> None:
        if self.peek()[1] != value:
            raise self.error(f"expected {value!r}")
        self.i += 1

    def integer(self) -> int:
        kind, value = self.peek()
        if kind != "int":
            raise self.error("expected an integer")
        self.i += 1
        return int(value.replace("_", ""))

    def int_tuple(self) -> IntTuple:
        if self.peek()[1] == "(":
            self.i += 1
            items: list[IntTuple] = []
            while self.peek()[1] != ")":
                items.append(self.int_tuple())
                if self.peek()[1] == ",":
                    self.i += 1
                elif self.peek()[1] != ")":
                    raise self.error("expected ',' or ')'")
            self.i += 1
            return tuple(items)
        return self.integer()

    def layout(self) -> CuteLayout:
        shape = self.int_tuple()
        stride: IntTuple | None = None
        if self.peek()[1] == ":":
            self.i += 1
            stride = self.int_tuple()
        try:
            return CuteLayout(shape, stride)
        except LayoutError as err:
            raise LayoutParseError(f"{err} (in {self.text!r})") from err

    def swizzle(self) -> CuteSwizzle:
        self.i += 1  # the 'Swizzle' / 'Sw' word
        self.take("<")
        b = self.integer()
        self.take(",")
        m = self.integer()
        self.take(",")
        s = self.integer()
        self.take(">")
        try:
            return CuteSwizzle(b, m, s)
        except LayoutError as err:
            raise LayoutParseError(f"{err} (in {self.text!r})") from err

    def parse(self) -> CuteLayout | CuteSwizzle | CuteComposedLayout:
        result: CuteLayout | CuteSwizzle | CuteComposedLayout
        kind, value = self.peek()
        if kind == "word" and value in ("Swizzle", "Sw"):
            swizzle = self.swizzle()
            if self.peek() == ("word", "o"):
                self.i += 1
                offset = 0
                following = self.tokens[self.i + 1][1] if self.i + 1 < len(self.tokens) else ""
                if self.peek()[0] == "int" and following == "o":
                    offset = self.integer()
                    self.i += 1
                result = CuteComposedLayout(swizzle, self.layout(), offset)
            else:
                result = swizzle
        elif kind == "word":
            raise self.error("expected a layout, 'Swizzle<B,M,S>' or 'Swizzle<B,M,S> o layout'")
        elif not kind:
            raise self.error("empty text")
        else:
            result = self.layout()
        if self.i != len(self.tokens):
            raise self.error("unexpected trailing text")
        return result


def parse_cute(text: str) -> CuteLayout | CuteSwizzle | CuteComposedLayout:
    """Parse any CuTe notation llc models: a layout, a swizzle or a swizzled layout.

    >>> [type(parse_cute(t)).__name__ for t in ("8:1", "Swizzle<2,3,3>", "Sw<2,3,3> o 8:1")]
    ['CuteLayout', 'CuteSwizzle', 'CuteComposedLayout']
    """
    return _Parser(text).parse()
