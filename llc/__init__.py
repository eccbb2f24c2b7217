"""llc: a linear-layout compiler.

The layout core is independent of xDSL: :class:`LinearLayout` (the F2 algebra) and the layout
families of :mod:`llc.layouts`. The xDSL dialects, passes and tools live in :mod:`llc.dialects`,
:mod:`llc.passes` and :mod:`llc.tools`.

>>> from llc import BlockedLayout, LinearLayout
>>> LinearLayout.identity_1d(4, "register", "dim0").apply({"register": 3})
{'dim0': 3}
>>> BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0]).to_linear_layout([32, 32]).in_dims
{'register': 8, 'lane': 32, 'warp': 4, 'block': 1}
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from llc.errors import LayoutError, LayoutParseError, NotLinearError
    from llc.layouts import (
        AmdMfmaLayout,
        AmdWmmaLayout,
        BlockedLayout,
        CTALayout,
        CuteLayout,
        CuteSwizzle,
        DistributedLinearLayout,
        DotOperandLayout,
        NvidiaMmaLayout,
        NvmmaSharedLayout,
        SharedLinearLayout,
        SliceLayout,
        SwizzledSharedLayout,
        XlaTiledLayout,
        from_triton_params,
        padded_shape,
        valid_mask,
    )
    from llc.linear_layout import LinearLayout

__all__ = [
    "AmdMfmaLayout",
    "AmdWmmaLayout",
    "BlockedLayout",
    "CTALayout",
    "CuteLayout",
    "CuteSwizzle",
    "DistributedLinearLayout",
    "DotOperandLayout",
    "LayoutError",
    "LayoutParseError",
    "LinearLayout",
    "NotLinearError",
    "NvidiaMmaLayout",
    "NvmmaSharedLayout",
    "SharedLinearLayout",
    "SliceLayout",
    "SwizzledSharedLayout",
    "XlaTiledLayout",
    "from_triton_params",
    "padded_shape",
    "valid_mask",
]

_ERRORS = ("LayoutError", "LayoutParseError", "NotLinearError")


def __getattr__(name: str) -> Any:
    # The names above are imported on first use: ``import llc.tools.cli`` (every command-line
    # tool) must not pay for numpy and the layout families before it has parsed its arguments.
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name == "LinearLayout":
        module = "llc.linear_layout"
    elif name in _ERRORS:
        module = "llc.errors"
    else:
        module = "llc.layouts"
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
