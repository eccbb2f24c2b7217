"""Triton's GPU layout families, each convertible to a :class:`~llc.linear_layout.LinearLayout`.

Distributed (register) layouts map ``(register, lane, warp, block)`` to a tensor index
``(dim0, ...)``: :class:`BlockedLayout`, :class:`SliceLayout`, :class:`NvidiaMmaLayout`,
:class:`DotOperandLayout`, :class:`AmdMfmaLayout`, :class:`AmdWmmaLayout`,
:class:`DistributedLinearLayout`. Shared-memory layouts map ``(offset, block)``:
:class:`SwizzledSharedLayout`, :class:`NvmmaSharedLayout`, :class:`SharedLinearLayout`.
:func:`from_triton_params` builds any of them from Triton's camelCase parameters.

Shapes must be powers of two; for other shapes lay out :func:`padded_shape` and mask the
padding with :func:`valid_mask` (see :mod:`llc.layouts.common`).

>>> b = from_triton_params("blocked", {"sizePerThread": [1, 4], "threadsPerWarp": [8, 4],
...                                    "warpsPerCTA": [4, 1], "order": [1, 0]})
>>> b.to_linear_layout([32, 16]).bases[0]
('register', [[0, 1], [0, 2]])
>>> from_triton_params(b.kind, b.triton_params()) == b
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from llc.errors import LayoutError
from llc.layouts.amd import AmdMfmaLayout, AmdWmmaLayout
from llc.layouts.blocked import BlockedLayout
from llc.layouts.common import (
    CTALayout,
    DistributedLayout,
    Layout,
    SharedLayout,
    clear_linear_layout_cache,
    combine_cta_cga_with_shape,
    ensure_layout_not_larger_than,
    ensure_layout_not_smaller_than,
    identity_standard_nd,
    linear_layout_cache_info,
    make_cga_layout,
    padded_shape,
    valid_mask,
)
from llc.layouts.cute import CuteLayout, CuteSwizzle
from llc.layouts.linear import DistributedLinearLayout
from llc.layouts.nvidia import DotOperandLayout, NvidiaMmaLayout
from llc.layouts.shared import (
    AmdRotatingSharedLayout,
    NvmmaSharedLayout,
    PaddedSharedLayout,
    PartitionedSharedLayout,
    SharedLinearLayout,
    SwizzledSharedLayout,
)
from llc.layouts.slice import SliceLayout
from llc.layouts.xla import XlaTiledLayout

__all__ = [
    "LAYOUT_KINDS",
    "AmdMfmaLayout",
    "AmdRotatingSharedLayout",
    "AmdWmmaLayout",
    "BlockedLayout",
    "CTALayout",
    "CuteLayout",
    "CuteSwizzle",
    "DistributedLayout",
    "DistributedLinearLayout",
    "DotOperandLayout",
    "Layout",
    "NvidiaMmaLayout",
    "NvmmaSharedLayout",
    "PaddedSharedLayout",
    "PartitionedSharedLayout",
    "SharedLayout",
    "SharedLinearLayout",
    "SliceLayout",
    "SwizzledSharedLayout",
    "XlaTiledLayout",
    "clear_linear_layout_cache",
    "combine_cta_cga_with_shape",
    "ensure_layout_not_larger_than",
    "ensure_layout_not_smaller_than",
    "from_triton_params",
    "identity_standard_nd",
    "linear_layout_cache_info",
    "make_cga_layout",
    "padded_shape",
    "valid_mask",
]

_MISSING = object()


class _Params:
    """Consumes a Triton parameter dict, naming the parameter in every error."""

    def __init__(self, kind: str, params: Mapping[str, Any]) -> None:
        if not isinstance(params, Mapping):
            raise LayoutError(f"{kind}: parameters must be a mapping, got {params!r}")
        self.kind = kind
        self.left = dict(params)

    def take(self, *names: str, default: Any = _MISSING) -> Any:
        found = [n for n in names if n in self.left]
        if len(found) > 1:
            raise LayoutError(f"{self.kind}: give only one of {', '.join(found)}")
        if found:
            return self.left.pop(found[0])
        if default is _MISSING:
            raise LayoutError(f"{self.kind}: missing parameter {names[0]}")
        return default

    def cta(self, rank: int | None = None) -> CTALayout | None:
        names = ("CTAsPerCGA", "CTASplitNum", "CTAOrder")
        present = [n for n in names if n in self.left]
        if "CGALayout" in self.left:  # Triton 3.9's spelling: the block bases
            if present:
                raise LayoutError(f"{self.kind}: give either CGALayout or {', '.join(present)}")
            bases = self.left.pop("CGALayout")
            if not bases and rank is None:
                return None
            return CTALayout.from_bases(bases, rank)
        if not present:
            return None
        if len(present) != len(names):
            missing = [n for n in names if n not in self.left]
            raise LayoutError(
                f"{self.kind}: CTAsPerCGA, CTASplitNum and CTAOrder must all be present or all "
                f"be absent (missing {', '.join(missing)})"
            )
        return CTALayout(*(self.left.pop(n) for n in names))

    def done(self) -> None:
        if self.left:
            raise LayoutError(f"{self.kind}: unknown parameter {sorted(self.left)[0]}")


def _blocked(p: _Params) -> Layout:
    spt = p.take("sizePerThread")
    tpw = p.take("threadsPerWarp")
    wpc = p.take("warpsPerCTA")
    order = p.take("order")
    return BlockedLayout(spt, tpw, wpc, order, p.cta())


def _slice(p: _Params) -> Layout:
    return SliceLayout(p.take("dim"), p.take("parent"))


def _nvidia_mma(p: _Params) -> Layout:
    major = p.take("versionMajor")
    minor = p.take("versionMinor", default=0)
    wpc = p.take("warpsPerCTA")
    instr = p.take("instrShape")
    return NvidiaMmaLayout(major, minor, wpc, instr, p.cta())


def _dot_op(p: _Params) -> Layout:
    return DotOperandLayout(p.take("opIdx"), p.take("parent"), p.take("kWidth", default=0))


def _amd_mfma(p: _Params) -> Layout:
    version = p.take("version", "versionMajor")
    minor = p.take("versionMinor", default=0)
    if minor != 0:
        raise LayoutError(f"amd_mfma: versionMinor {minor!r} must be 0")
    if "instrShape" in p.left:
        if "MDim" in p.left or "NDim" in p.left:
            raise LayoutError("amd_mfma: give either instrShape or MDim/NDim")
        instr = p.take("instrShape")
    else:
        instr = [p.take("MDim"), p.take("NDim")]
    wpc = p.take("warpsPerCTA")
    transposed = p.take("isTransposed")
    tiles = p.take("tilesPerWarp", default=None)
    width = p.take("elementBitWidth", default=32)
    return AmdMfmaLayout(version, wpc, instr, transposed, tiles, p.cta(), width)


def _amd_wmma(p: _Params) -> Layout:
    version = p.take("version")
    transposed = p.take("isTranspose", "isTransposed", default=False)
    cta_bases = None
    if "ctaLayout" in p.left:  # Triton 3.9: the tiles' register and warp bases
        if "warpsPerCTA" in p.left:
            raise LayoutError("amd_wmma: give either warpsPerCTA or ctaLayout")
        tiles = p.take("ctaLayout")
        if not isinstance(tiles, dict) or set(tiles) - {"register", "warp"}:
            raise LayoutError(
                f"amd_wmma: ctaLayout must be {{register = [...], warp = [...]}}, got {tiles!r}"
            )
        cta_bases = (tiles.get("register", []), tiles.get("warp", []))
        wpc = None
    else:
        wpc = p.take("warpsPerCTA")
    instr = p.take("instrShape", default=None)
    return AmdWmmaLayout(version, transposed, wpc, instr, p.cta(), cta_bases)


def _linear(p: _Params) -> Layout:
    return DistributedLinearLayout(*(p.take(n) for n in ("register", "lane", "warp", "block")))


def _swizzled_shared(p: _Params) -> Layout:
    vec = p.take("vec")
    per_phase = p.take("perPhase")
    max_phase = p.take("maxPhase")
    order = p.take("order")
    return SwizzledSharedLayout(vec, per_phase, max_phase, order, p.cta())


def _amd_rotating_shared(p: _Params) -> Layout:
    vec = p.take("vec")
    per_phase = p.take("perPhase")
    max_phase = p.take("maxPhase")
    order = p.take("order")
    return AmdRotatingSharedLayout(vec, per_phase, max_phase, order, p.cta())


def _nvmma_shared(p: _Params) -> Layout:
    swizzle = p.take("swizzlingByteWidth")
    transposed = p.take("transposed", default=False)
    width = p.take("elementBitWidth")
    fp4 = p.take("fp4Padded", default=False)
    cta = p.cta()
    # Triton 3.9 spells a default CGA of another rank as ``rank = 3``.
    rank = p.take("rank", default=None)
    if rank is not None and cta is None:
        cta = CTALayout.default(rank)
    return NvmmaSharedLayout(swizzle, transposed, width, fp4, cta)


def _shared_linear(p: _Params) -> Layout:
    offset = p.take("offset")
    block = p.take("block", default=())
    alignment = p.take("alignment", default=None)
    return SharedLinearLayout(offset, block, alignment)


def _padded_shared(p: _Params) -> Layout:
    intervals = p.take("intervals")
    paddings = p.take("paddings")
    if "order" in p.left or "shape" in p.left:
        return PaddedSharedLayout(intervals, paddings, order=p.take("order"), shape=p.take("shape"))
    return PaddedSharedLayout(intervals, paddings, p.take("offset"), p.take("block", default=()))


def _partitioned_shared(p: _Params) -> Layout:
    return PartitionedSharedLayout(
        p.take("numPartitions"),
        p.take("numGroups"),
        p.take("partitionDim"),
        p.take("partitionLayout"),
    )


_BUILDERS: dict[str, Callable[[_Params], Layout]] = {
    "blocked": _blocked,
    "slice": _slice,
    "nvidia_mma": _nvidia_mma,
    "dot_op": _dot_op,
    "amd_mfma": _amd_mfma,
    "amd_wmma": _amd_wmma,
    "linear": _linear,
    "swizzled_shared": _swizzled_shared,
    "nvmma_shared": _nvmma_shared,
    "shared_linear": _shared_linear,
    "padded_shared": _padded_shared,
    "amd_rotating_shared": _amd_rotating_shared,
    "partitioned_shared": _partitioned_shared,
}

#: Triton mnemonic -> layout class.
LAYOUT_KINDS: dict[str, type[Layout]] = {
    "blocked": BlockedLayout,
    "slice": SliceLayout,
    "nvidia_mma": NvidiaMmaLayout,
    "dot_op": DotOperandLayout,
    "amd_mfma": AmdMfmaLayout,
    "amd_wmma": AmdWmmaLayout,
    "linear": DistributedLinearLayout,
    "swizzled_shared": SwizzledSharedLayout,
    "nvmma_shared": NvmmaSharedLayout,
    "shared_linear": SharedLinearLayout,
    "padded_shared": PaddedSharedLayout,
    "amd_rotating_shared": AmdRotatingSharedLayout,
    "partitioned_shared": PartitionedSharedLayout,
}


def from_triton_params(kind: str, params: Mapping[str, Any]) -> Layout:
    """Build a layout from its Triton mnemonic and camelCase parameters.

    Values are ints, bools, lists of ints, layout objects (``parent``) and, for ``linear`` and
    ``shared_linear``, lists of bases. Older spellings are accepted: ``amd_mfma`` takes
    ``versionMajor`` (with ``versionMinor = 0``) for ``version`` and ``MDim``/``NDim`` for
    ``instrShape``; ``amd_wmma`` takes ``isTransposed`` for ``isTranspose``.

    >>> from_triton_params("amd_mfma", {"versionMajor": 3, "versionMinor": 0,
    ...     "warpsPerCTA": [2, 2], "MDim": 32, "NDim": 32, "isTransposed": True}).instr_shape
    (32, 32)
    >>> from_triton_params("blocked", {"order": [0]})
    Traceback (most recent call last):
    ...
    llc.errors.LayoutError: blocked: missing parameter sizePerThread
    """
    builder = _BUILDERS.get(kind)
    if builder is None:
        raise LayoutError(f"unknown layout kind {kind!r}; expected one of {', '.join(_BUILDERS)}")
    p = _Params(kind, params)
    layout = builder(p)
    p.done()
    return layout
