"""wgmma shared-memory matrix descriptors, read off an operand's shared linear layout.

A Hopper ``wgmma.mma_async`` reads its shared-memory operands (A optionally, B always) through a
64-bit *matrix descriptor* (PTX ISA, "Matrix Descriptor Format"): the start address, the
leading-dimension byte offset (LBO), the stride-dimension byte offset (SBO) and a swizzle mode
(none, 32, 64 or 128 bytes), each address and offset encoded as ``(bytes & 0x3FFFF) >> 4``.
The descriptor says where every element of the instruction's tile lives; the instruction's
``trans`` immediate says which dimension is contiguous (K-major or M/N-major).

Here ``mn`` is the operand's M (A) or N (B) index and ``k`` its K index; one instruction reads
``64 x K`` of A and ``K x N`` of B, ``K`` being 32 bytes of elements (16 for f16/bf16, 8 for
tf32, 32 for f8/i8). Byte address of ``(mn, k)``, before the swizzle (``e`` = element bytes,
``W`` = swizzle bytes):

* K-major, no swizzle: ``start + (mn % 8) * 16 + (mn // 8) * SBO + (k*e % 16) + (k*e // 16) * LBO``
  (8x16-byte core matrices, each contiguous);
* K-major, swizzle ``W``: ``start + (mn % 8) * W + (mn // 8) * SBO + k*e`` (rows of ``W`` bytes);
* M/N-major, no swizzle:
  ``start + (mn*e % 16) + (mn*e // 16) * SBO + (k % 8) * 16 + (k // 8) * LBO``;
* M/N-major, swizzle ``W``:
  ``start + (mn*e % W) + (mn*e // W) * LBO + (k % 8) * W + (k // 8) * SBO``.

The swizzle then xors address bits ``[4, 4+s)`` with bits ``[7, 7+s)`` (``s`` = 3, 2, 1 for 128,
64, 32 bytes), on the absolute address: a swizzled tile starts on a multiple of ``8 W`` bytes.
This is exactly the XOR an ``nvmma_shared`` layout applies (:class:`NvmmaSharedLayout`), so a
descriptor for it is read off the layout's linear map: :func:`operand_descriptor` takes the
fields from the map's basis images, then checks that :func:`descriptor_addresses` addresses every
element of every instruction tile where the layout puts it, and refuses (``LayoutError`` naming
the first misplaced element) a layout no descriptor expresses.

>>> from llc.layouts.shared import NvmmaSharedLayout
>>> op = operand_descriptor(NvmmaSharedLayout(128, False, 16), (64, 64), 16, "a")
>>> op.descriptor, op.k_major
(WgmmaDescriptor(start=0, lbo=16, sbo=1024, swizzle=128), True)
>>> op.at(0, 16).start  # the second k16 step starts 32 bytes into the swizzled row
32
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from llc.errors import LayoutError
from llc.linear_layout import LinearLayout

__all__ = [
    "SWIZZLE_MODES",
    "SharedOperand",
    "WgmmaDescriptor",
    "descriptor_addresses",
    "instruction_k",
    "operand_descriptor",
    "swizzle_period",
]

SWIZZLE_MODES = (0, 32, 64, 128)
"""Swizzle widths in bytes a descriptor can name (0 = none, PTX's "interleave")."""

_SWIZZLE_CODE = {0: 0, 128: 1, 64: 2, 32: 3}
_FIELD_LIMIT = 1 << 18  # addresses and offsets are encoded as 14 bits of bytes >> 4


def instruction_k(element_bits: int) -> int:
    """K of one ``wgmma`` for elements of this width: 32 bytes of K.

    >>> instruction_k(16), instruction_k(32), instruction_k(8)
    (16, 8, 32)
    """
    if element_bits not in (8, 16, 32):
        raise LayoutError(f"wgmma: {element_bits}-bit operands are not supported (8, 16 or 32)")
    return 256 // element_bits


def swizzle_period(swizzle: int) -> int:
    """Bytes after which a swizzle pattern repeats (a swizzled tile's start alignment).

    >>> [swizzle_period(w) for w in SWIZZLE_MODES]
    [16, 256, 512, 1024]
    """
    return 16 if swizzle == 0 else 8 * swizzle


@dataclass(frozen=True)
class WgmmaDescriptor:
    """The fields of a wgmma matrix descriptor, in bytes (``swizzle`` 0, 32, 64 or 128).

    >>> d = WgmmaDescriptor(start=2048, lbo=16, sbo=1024, swizzle=128)
    >>> hex(d.encode())
    '0x4000004000010080'
    >>> WgmmaDescriptor.decode(d.encode()) == d
    True
    """

    start: int
    lbo: int
    sbo: int
    swizzle: int

    def encode(self) -> int:
        """The 64-bit descriptor: start in bits 0-13, LBO 16-29, SBO 32-45, base offset 0 in
        49-51, swizzle mode in 62-63 (1 = 128B, 2 = 64B, 3 = 32B)."""
        for name in ("start", "lbo", "sbo"):
            value = getattr(self, name)
            if value % 16 or not 0 <= value < _FIELD_LIMIT:
                raise LayoutError(
                    f"wgmma descriptor: {name} {value} must be a multiple of 16 below "
                    f"{_FIELD_LIMIT}"
                )
        if self.swizzle not in _SWIZZLE_CODE:
            raise LayoutError(f"wgmma descriptor: swizzle {self.swizzle} is not 0, 32, 64 or 128")
        return (
            (self.start >> 4)
            | (self.lbo >> 4) << 16
            | (self.sbo >> 4) << 32
            | _SWIZZLE_CODE[self.swizzle] << 62
        )

    @staticmethod
    def decode(value: int) -> WgmmaDescriptor:
        """The fields of a 64-bit descriptor (the inverse of :meth:`encode`); a non-zero base
        offset (bits 49-51) is refused: llc aligns swizzled tiles to their period instead.

        >>> WgmmaDescriptor.decode(3 << 62 | 1 << 16)
        WgmmaDescriptor(start=0, lbo=16, sbo=0, swizzle=32)
        """
        value = int(value) & ((1 << 64) - 1)
        if (value >> 49) & 7:
            raise LayoutError(f"wgmma descriptor {value:#x}: a non-zero base offset is unsupported")
        swizzle = {code: w for w, code in _SWIZZLE_CODE.items()}[value >> 62]
        return WgmmaDescriptor(
            start=(value & 0x3FFF) << 4,
            lbo=((value >> 16) & 0x3FFF) << 4,
            sbo=((value >> 32) & 0x3FFF) << 4,
            swizzle=swizzle,
        )

    def advanced(self, nbytes: int) -> WgmmaDescriptor:
        """The same tiling ``nbytes`` further (the next instruction's sub-tile).

        >>> WgmmaDescriptor(0, 16, 1024, 128).advanced(32).start
        32
        """
        return replace(self, start=self.start + nbytes)


def descriptor_addresses(
    desc: WgmmaDescriptor, mn: Any, k: Any, element_bits: int, k_major: bool
) -> np.ndarray:
    """Byte addresses the descriptor gives elements ``(mn, k)`` (arrays broadcast together): the
    inverse of :func:`operand_descriptor`, and what the SIMT interpreter reads.

    >>> d = WgmmaDescriptor(start=0, lbo=128, sbo=256, swizzle=0)
    >>> descriptor_addresses(d, [0, 1, 8, 0], [0, 0, 0, 8], 16, True).tolist()
    [0, 16, 256, 128]
    >>> s = WgmmaDescriptor(start=0, lbo=16, sbo=1024, swizzle=128)
    >>> descriptor_addresses(s, [1, 1], [0, 8], 16, True).tolist()  # row 1: chunks xor 1
    [144, 128]
    """
    mn = np.asarray(mn, dtype=np.int64)
    k = np.asarray(k, dtype=np.int64)
    e = element_bits // 8
    w = desc.swizzle
    if k_major:
        kb = k * e
        if w == 0:
            addr = (mn % 8) * 16 + (mn // 8) * desc.sbo + kb % 16 + (kb // 16) * desc.lbo
        else:
            addr = (mn % 8) * w + (mn // 8) * desc.sbo + kb
    else:
        mb = mn * e
        if w == 0:
            addr = mb % 16 + (mb // 16) * desc.sbo + (k % 8) * 16 + (k // 8) * desc.lbo
        else:
            addr = mb % w + (mb // w) * desc.lbo + (k % 8) * w + (k // 8) * desc.sbo
    addr = desc.start + addr
    if w:
        mask = w // 16 - 1
        addr = addr ^ (((addr >> 7) & mask) << 4)
    return addr


@dataclass(frozen=True)
class SharedOperand:
    """A wgmma operand in shared memory: its descriptor for the instruction tile at ``(0, 0)``,
    whether it is K-major, and the byte offset of every element of the whole tile
    (``byte_offsets[mn, k]``, relative to ``base``)."""

    descriptor: WgmmaDescriptor
    k_major: bool
    element_bits: int
    base: int
    byte_offsets: np.ndarray

    def at(self, mn0: int, k0: int) -> WgmmaDescriptor:
        """The descriptor of the instruction tile whose first element is ``(mn0, k0)``.

        >>> from llc.layouts.shared import NvmmaSharedLayout
        >>> op = operand_descriptor(NvmmaSharedLayout(32, True, 16), (32, 64), 16, "b")
        >>> op.k_major, op.at(0, 16).start  # K-major rows of 32 bytes: the next K atom column
        (True, 2048)
        """
        return replace(self.descriptor, start=self.base + int(self.byte_offsets[mn0, k0]))


def _byte_offsets(layout: LinearLayout, shape: tuple[int, int], element_bits: int) -> np.ndarray:
    """``out[d0, d1]``: the byte offset the layout (``offset -> (dim0, dim1)``) gives element
    ``(d0, d1)``; refuses a layout that is not a bijection onto the tile."""
    if layout.get_in_dim_names()[:1] != ["offset"] or layout.get_out_dim_names()[:2] != [
        "dim0",
        "dim1",
    ]:
        raise LayoutError(
            f"wgmma: the operand layout must map 'offset' to (dim0, dim1), got "
            f"{layout.get_in_dim_names()} -> {layout.get_out_dim_names()}"
        )
    sizes = [layout.get_out_dim_size(n) for n in ("dim0", "dim1")]
    if tuple(sizes) != tuple(shape):
        raise LayoutError(f"wgmma: the layout covers {sizes}, the tile is {list(shape)}")
    images = layout.apply_all()
    d0, d1 = images["dim0"], images["dim1"]
    count = d0.size
    if layout.has_in_dim("block") and layout.get_in_dim_size("block") > 1:
        raise LayoutError("wgmma: the operand layout spans several CTAs")
    out = np.full(shape, -1, dtype=np.int64)
    out[d0[:count], d1[:count]] = np.arange(count) * (element_bits // 8)
    if count != shape[0] * shape[1] or (out < 0).any():
        raise LayoutError(
            "wgmma: the operand layout is not a bijection between offsets and the tile's "
            "elements (broadcast or padded layouts have no descriptor)"
        )
    return out


def operand_descriptor(
    layout: Any,
    shape: tuple[int, int] | list[int],
    element_bits: int,
    operand: str,
    base: int = 0,
    n: int | None = None,
) -> SharedOperand:
    """Read the descriptor of a wgmma operand off its shared layout.

    ``layout`` is an :class:`~llc.layouts.shared.NvmmaSharedLayout` (or any shared layout) or its
    linear layout ``offset -> (dim0, dim1)``; ``shape`` the tile, ``[M, K]`` for ``operand`` "a"
    (M a multiple of 64: one 64-row slab per warpgroup) and ``[K, N]`` for "b" (N in 8..256, a
    multiple of 8); ``base`` the tile's byte address in shared memory; ``n`` the instruction's N
    when it reads only the first columns of B (a tile padded to a power of two). Refuses, naming
    what does not fit, a layout with no descriptor: not contiguous along K or M/N, M/N-major for
    elements other than 16 bits (wgmma transposes only f16/bf16), strides or swizzle no
    descriptor has.

    >>> from llc.layouts.shared import NvmmaSharedLayout
    >>> operand_descriptor(NvmmaSharedLayout(64, False, 16), (16, 64), 16, "b").descriptor
    WgmmaDescriptor(start=0, lbo=1024, sbo=512, swizzle=64)
    >>> try:
    ...     operand_descriptor(NvmmaSharedLayout(64, False, 8), (32, 64), 8, "b")
    ... except LayoutError as err:
    ...     print(str(err)[:60])
    wgmma: operand b is N-major; wgmma reads 8-bit operands K-ma
    """
    if operand not in ("a", "b"):
        raise LayoutError(f"wgmma: operand must be 'a' or 'b', got {operand!r}")
    shape = (int(shape[0]), int(shape[1]))
    kinst = instruction_k(element_bits)
    e = element_bits // 8
    if isinstance(layout, LinearLayout):
        linear = layout
        nominal = None
    else:
        linear = layout.to_linear_layout(list(shape))
        nominal = getattr(layout, "swizzling_byte_width", None)
    offsets = _byte_offsets(linear, shape, element_bits)
    if operand == "b":
        offsets = offsets.T  # [mn, k]
    mn_size, k_size = offsets.shape
    mn_tile = 64 if operand == "a" else (mn_size if n is None else n)
    if operand == "a" and mn_size % 64:
        raise LayoutError(f"wgmma: operand a has {mn_size} rows, not a multiple of 64")
    if operand == "b" and (mn_tile % 8 or not 8 <= mn_tile <= min(256, mn_size)):
        raise LayoutError(
            f"wgmma: operand b has N = {mn_tile}, not a multiple of 8 in 8..256 within the "
            f"tile's {mn_size} columns"
        )
    if k_size % kinst:
        raise LayoutError(
            f"wgmma: K = {k_size} is not a multiple of {kinst} ({element_bits}-bit elements)"
        )
    mn_name = "M" if operand == "a" else "N"
    if offsets[0, 1] == e:
        k_major = True
    elif offsets[1, 0] == e:
        k_major = False
    else:
        raise LayoutError(
            f"wgmma: operand {operand} is contiguous neither along K nor along {mn_name}: "
            f"element (1, 0) is at byte {offsets[1, 0]}, (0, 1) at byte {offsets[0, 1]}"
        )
    if not k_major and element_bits != 16:
        raise LayoutError(
            f"wgmma: operand {operand} is {mn_name}-major; wgmma reads {element_bits}-bit "
            "operands K-major only (transpose the nvmma_shared layout)"
        )
    if nominal not in SWIZZLE_MODES:
        # the row pitch without the swizzle's xor names the mode to report a failure for
        pitch = int(offsets[1, 0] if k_major else offsets[0, 1]) & ~0x70
        nominal = pitch if pitch in SWIZZLE_MODES else 0
    order = [nominal] + [w for w in (128, 64, 32, 0) if w != nominal]
    mn = np.arange(mn_tile)[:, None]
    kk = np.arange(kinst)[None, :]
    first_failure = ""
    for w in order:
        desc = _read_fields(offsets, w, k_major, e, base)
        if desc is None:
            continue
        failure = _check(offsets, desc, mn, kk, element_bits, k_major, base, mn_tile, kinst)
        if not failure:
            return SharedOperand(desc, k_major, element_bits, base, offsets)
        first_failure = first_failure or failure
    major = "K" if k_major else mn_name
    raise LayoutError(
        f"wgmma: no descriptor addresses operand {operand} ({major}-major, {element_bits}-bit, "
        f"tile {list(shape)}): {first_failure or 'no swizzle mode fits its strides'}"
    )


def _read_fields(
    offsets: np.ndarray, w: int, k_major: bool, e: int, base: int
) -> WgmmaDescriptor | None:
    """The fields a descriptor of swizzle ``w`` must have for this map (its basis images), or
    None when the tile is too small to hold one swizzle row."""
    mn_size, k_size = offsets.shape

    def at(i: int, j: int) -> int:
        return int(offsets[i, j]) if i < mn_size and j < k_size else 0

    if k_major:
        if w == 0:
            lbo, sbo = at(0, 16 // e), at(8, 0)
        else:
            if k_size * e < w:
                return None
            lbo, sbo = 16, at(8, 0)
    else:
        if w == 0:
            lbo, sbo = at(0, 8), at(16 // e, 0)
        else:
            if mn_size * e < w:
                return None
            lbo, sbo = at(w // e, 0), at(0, 8)
    return WgmmaDescriptor(base + int(offsets[0, 0]), lbo, sbo, w)


def _check(
    offsets: np.ndarray,
    desc: WgmmaDescriptor,
    mn: np.ndarray,
    kk: np.ndarray,
    element_bits: int,
    k_major: bool,
    base: int,
    mn_tile: int,
    kinst: int,
) -> str:
    """'' when ``desc`` (advanced to each instruction tile) addresses every element where the
    layout puts it, else what is wrong with the first element it misplaces."""
    w = desc.swizzle
    if base % swizzle_period(w):
        return f"base address {base} is not aligned to the {swizzle_period(w)}-byte swizzle period"
    for field_name in ("lbo", "sbo"):
        value = getattr(desc, field_name)
        if value % 16 or not 0 <= value < _FIELD_LIMIT:
            return f"with swizzle {w}, {field_name.upper()} would be {value} bytes"
    mn_size, k_size = offsets.shape
    for mn0 in range(0, mn_size - mn_tile + 1, mn_tile):
        for k0 in range(0, k_size, kinst):
            start = base + int(offsets[mn0, k0])
            if start % 16:
                return f"with swizzle {w}, the tile at ({mn0}, {k0}) starts at byte {start}"
            got = descriptor_addresses(replace(desc, start=start), mn, kk, element_bits, k_major)
            want = base + offsets[mn0 : mn0 + mn_tile, k0 : k0 + kinst]
            bad = got != want
            if bad.any():
                i, j = (int(x) for x in np.argwhere(bad)[0])
                return (
                    f"with swizzle {w} (LBO {desc.lbo}, SBO {desc.sbo}), element "
                    f"(mn={mn0 + i}, k={k0 + j}) is at byte {int(want[i, j])} in the layout, the "
                    f"descriptor addresses byte {int(got[i, j])}"
                )
    return ""
