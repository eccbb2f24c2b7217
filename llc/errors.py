"""The one error family of llc.

Every invalid layout, parameter or IR construct raises a subclass of :class:`LayoutError`
(itself a ``ValueError``), so callers can catch one type. The command-line tools turn these,
and xDSL's own diagnostics, into one-line messages with exit code 1.

>>> try:
...     raise LayoutError("blocked: order [1, 1] is not a permutation of [0, 1]")
... except ValueError as err:
...     print(err)
blocked: order [1, 1] is not a permutation of [0, 1]
"""

from __future__ import annotations


class LayoutError(ValueError):
    """A layout, or an operation on layouts, is invalid.

    The message names the offending parameter, in-dim or basis, for example
    ``"from_bases: basis 2 of in-dim 'lane' has 3 entries, expected 2 (one per out-dim)"``.
    """


class LayoutParseError(LayoutError):
    """Text that should describe a layout (Triton, XLA or CuTe notation) could not be parsed."""


class NotLinearError(LayoutError):
    """A layout (for example a CuTe ``shape:stride`` map) is not linear over F2."""
