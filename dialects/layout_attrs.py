"""Layout attributes of the ``tl`` dialect: one xDSL attribute per layout family.

Each attribute wraps one immutable family object of :mod:`llc.layouts` (``attr.layout``) and
spells its body exactly as Triton's TTGIR does, so a layout pasted from a Triton dump only needs
its ``#ttg.`` prefix changed to ``#tl.``::

    #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1],
                 order = [1, 0]}>
    #tl.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>

The body is a dictionary ``{key = value, ...}`` whose values are integers, ``true``/``false``,
(nested) integer lists, or a layout attribute (inline or an alias such as ``#mma``) for
``parent``. Parsing hands the dictionary to :func:`llc.layouts.from_triton_params`; every
:class:`~llc.errors.LayoutError` it raises becomes a located parse error pointing at the entry
the message names (or at the whole body), so ``llc-opt`` reports
``file:line:col: error: blocked: order [1, 1] is not a permutation of [0, 1]``.

>>> from xdsl.context import Context
>>> from xdsl.parser import Parser
>>> ctx = Context()
>>> for attr_cls in LAYOUT_ATTRIBUTES:
...     ctx.load_attr_or_type(attr_cls)
>>> text = "#tl.slice<{dim = 1, parent = #tl.blocked<{sizePerThread = [1, 1], "
>>> text += "threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>"
>>> attr = Parser(ctx, text).parse_attribute()
>>> attr.layout.kind, attr.layout.parent.kind
('slice', 'blocked')
>>> str(attr) == text
True
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from xdsl.ir import Attribute, Data
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from llc.dialects.xdsl_private import peek_token, resume_from
from llc.errors import LayoutError

if TYPE_CHECKING:
    from llc.linear_layout import LinearLayout

__all__ = [
    "LAYOUT_ATTRIBUTES",
    "AMDMfmaEncodingAttr",
    "AMDRotatingSharedEncodingAttr",
    "AMDWmmaEncodingAttr",
    "BlockedEncodingAttr",
    "DistributedEncodingAttr",
    "DotOperandEncodingAttr",
    "LayoutEncodingAttr",
    "LinearEncodingAttr",
    "NVMMASharedEncodingAttr",
    "NvidiaMmaEncodingAttr",
    "PaddedSharedEncodingAttr",
    "PartitionedSharedEncodingAttr",
    "SharedEncodingAttr",
    "SharedLinearEncodingAttr",
    "SliceEncodingAttr",
    "SwizzledSharedEncodingAttr",
    "attr_class_for_kind",
    "last_token_end",
    "layout_attr_for",
    "tensor_layout_error",
]


def _is_layout(value: object) -> bool:
    """Whether ``value`` is a layout family object (duck-typed on the contract API).

    >>> _is_layout(3), _is_layout([1, 2])
    (False, False)
    """
    return hasattr(value, "kind") and hasattr(value, "triton_params")


class LayoutEncodingAttr(Data[Any]):
    """Base of every ``#tl.<family>`` attribute; ``data`` is the family object.

    Subclasses only set ``name``, ``kind`` (the Triton mnemonic, also ``layout.kind``) and
    ``alias_prefix`` (the name :class:`llc.dialects.printer.LLCPrinter` gives its alias).

    >>> from llc.layouts import from_triton_params
    >>> blocked = from_triton_params("blocked", {"sizePerThread": [1], "threadsPerWarp": [32],
    ...                                          "warpsPerCTA": [4], "order": [0]})
    >>> str(BlockedEncodingAttr(blocked))
    '#tl.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>'
    """

    kind: ClassVar[str]
    """Triton mnemonic of the family (``layout.kind``), e.g. ``"blocked"``."""
    alias_prefix: ClassVar[str]
    """Alias name used when printing (``#blocked``, ``#mma``, ``#shared``, ...), as TTGIR does."""

    @property
    def layout(self) -> Any:
        """The wrapped family object (e.g. a ``BlockedLayout``)."""
        return self.data

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        """The layout as a :class:`llc.LinearLayout` for a tensor of ``shape``.

        Raises :class:`~llc.errors.LayoutError` for shapes the family does not accept.
        """
        return self.data.to_linear_layout(tuple(shape))

    def nested_attributes(self) -> Iterator[LayoutEncodingAttr]:
        """Attributes of the nested layouts (``parent``), outermost first.

        The alias printer defines these before the attribute that uses them.
        """
        for value in self.data.triton_params().values():
            if _is_layout(value):
                yield layout_attr_for(value)

    def verify(self) -> None:
        # Runs on every construction (each parsed type): keep it to one attribute lookup.
        if getattr(self.data, "kind", None) != self.kind:
            raise VerifyException(
                f"{self.name} wraps a '{self.kind}' layout, got {type(self.data).__name__} "
                f"(kind {getattr(self.data, 'kind', None)!r})"
            )

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> Any:
        return _parse_layout_body(parser, cls.kind, cls.name)

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string("<{")
        for i, (key, value) in enumerate(self.data.triton_params().items()):
            if i:
                printer.print_string(", ")
            printer.print_string(key)
            printer.print_string(" = ")
            _print_value(printer, value)
        printer.print_string("}>")


class DistributedEncodingAttr(LayoutEncodingAttr):
    """A layout of a tensor held in registers (in-dims ``register, lane, warp, block``)."""


class SharedEncodingAttr(LayoutEncodingAttr):
    """A layout of a tensor in shared memory (in-dims ``offset, block``)."""


@irdl_attr_definition
class BlockedEncodingAttr(DistributedEncodingAttr):
    """``#tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1],
    order = [1, 0]}>`` (Triton ``#ttg.blocked``)."""

    name = "tl.blocked"
    kind = "blocked"
    alias_prefix = "blocked"


@irdl_attr_definition
class SliceEncodingAttr(DistributedEncodingAttr):
    """``#tl.slice<{dim = 1, parent = #blocked}>`` (Triton ``#ttg.slice``)."""

    name = "tl.slice"
    kind = "slice"
    alias_prefix = "slice"


@irdl_attr_definition
class NvidiaMmaEncodingAttr(DistributedEncodingAttr):
    """``#tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2],
    instrShape = [16, 8]}>`` (Triton ``#ttg.nvidia_mma``)."""

    name = "tl.nvidia_mma"
    kind = "nvidia_mma"
    alias_prefix = "mma"


@irdl_attr_definition
class DotOperandEncodingAttr(DistributedEncodingAttr):
    """``#tl.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>`` (Triton ``#ttg.dot_op``)."""

    name = "tl.dot_op"
    kind = "dot_op"
    alias_prefix = "dot_op"


@irdl_attr_definition
class AMDMfmaEncodingAttr(DistributedEncodingAttr):
    """``#tl.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32],
    isTransposed = true}>`` (Triton ``#ttg.amd_mfma``)."""

    name = "tl.amd_mfma"
    kind = "amd_mfma"
    alias_prefix = "mma"


@irdl_attr_definition
class AMDWmmaEncodingAttr(DistributedEncodingAttr):
    """``#tl.amd_wmma<{version = 2, isTranspose = false, warpsPerCTA = [2, 2]}>``
    (Triton ``#ttg.amd_wmma``; keys as :meth:`AmdWmmaLayout.triton_params` spells them)."""

    name = "tl.amd_wmma"
    kind = "amd_wmma"
    alias_prefix = "mma"


@irdl_attr_definition
class LinearEncodingAttr(DistributedEncodingAttr):
    """``#tl.linear<{register = [[0, 1]], lane = [[1, 0], ...], warp = [], block = []}>``
    (Triton ``#ttg.linear``; bases listed as ``[dim0, dim1, ...]``)."""

    name = "tl.linear"
    kind = "linear"
    alias_prefix = "linear"


@irdl_attr_definition
class SwizzledSharedEncodingAttr(SharedEncodingAttr):
    """``#tl.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>``
    (Triton ``#ttg.swizzled_shared``)."""

    name = "tl.swizzled_shared"
    kind = "swizzled_shared"
    alias_prefix = "shared"


@irdl_attr_definition
class NVMMASharedEncodingAttr(SharedEncodingAttr):
    """``#tl.nvmma_shared<{swizzlingByteWidth = 128, transposed = false,
    elementBitWidth = 16}>`` (Triton ``#ttg.nvmma_shared``)."""

    name = "tl.nvmma_shared"
    kind = "nvmma_shared"
    alias_prefix = "shared"


@irdl_attr_definition
class SharedLinearEncodingAttr(SharedEncodingAttr):
    """``#tl.shared_linear<{offset = [[0, 1], [1, 0]], block = []}>``
    (Triton ``#ttg.shared_linear``)."""

    name = "tl.shared_linear"
    kind = "shared_linear"
    alias_prefix = "shared"


@irdl_attr_definition
class PaddedSharedEncodingAttr(SharedEncodingAttr):
    """``#tl.padded_shared<[128:+8] {order = [1, 0], shape = [16, 128]}>`` or
    ``#tl.padded_shared<[4:+4] {offset = [[1, 0], [2, 0]], block = []}>`` (Triton
    ``#ttg.padded_shared``): ``interval:+padding`` pairs, then the linear component
    (:class:`llc.layouts.PaddedSharedLayout`)."""

    name = "tl.padded_shared"
    kind = "padded_shared"
    alias_prefix = "shared"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> Any:
        from llc.layouts import from_triton_params

        start = parser.pos
        content = parser.lexer.input.content
        match = _PADDING_RE.match(content, start)
        if match is None:
            parser.raise_error(
                "padded_shared: expected <[interval:+padding, ...] {...}>", start, start + 1
            )
        pairs = re.findall(r"(\d+)\s*:\s*\+\s*(\d+)", match.group(1))
        if not pairs or len(pairs) != match.group(1).count(":"):
            parser.raise_error(
                "padded_shared: expected interval:+padding pairs such as [128:+8]",
                start,
                match.end(),
            )
        resume_from(parser, match.end())
        params, spans = _parse_dictionary(parser, cls.kind)
        end = parser.pos + 1
        parser.parse_punctuation(">", " to close #tl.padded_shared")
        params = {
            "intervals": [int(i) for i, _ in pairs],
            "paddings": [int(p) for _, p in pairs],
        } | params
        try:
            return from_triton_params(cls.kind, params)
        except (ValueError, TypeError) as err:
            message = str(err)
            entry = _entry_named_in(message, spans)
            if entry is not None:
                parser.raise_error(
                    message, entry[0], last_token_end(_AtPosition(parser, entry[1]), entry[0])
                )
            parser.raise_error(message, start, end)

    def print_parameter(self, printer: Printer) -> None:
        params = self.data.triton_params()
        pairs = zip(params.pop("intervals"), params.pop("paddings"), strict=True)
        printer.print_string("<[" + ", ".join(f"{i}:+{p}" for i, p in pairs) + "] {")
        for i, (key, value) in enumerate(params.items()):
            printer.print_string(f"{', ' if i else ''}{key} = ")
            _print_value(printer, value)
        printer.print_string("}>")


@irdl_attr_definition
class AMDRotatingSharedEncodingAttr(SharedEncodingAttr):
    """``#tl.amd_rotating_shared<{vec = 4, perPhase = 1, maxPhase = 16, order = [1, 0]}>``
    (Triton ``#ttg.amd_rotating_shared``: a swizzled layout whose phase rotates per block of
    rows, :class:`llc.layouts.AmdRotatingSharedLayout`)."""

    name = "tl.amd_rotating_shared"
    kind = "amd_rotating_shared"
    alias_prefix = "shared"


@irdl_attr_definition
class PartitionedSharedEncodingAttr(SharedEncodingAttr):
    """``#tl.partitioned_shared<{numPartitions = 2, numGroups = 2, partitionDim = 0,
    partitionLayout = #shared}>`` (Triton ``#ttg.partitioned_shared``: a buffer cut into
    pieces spread over shared-memory partitions, :class:`llc.layouts.PartitionedSharedLayout`;
    it has no linear layout in llc)."""

    name = "tl.partitioned_shared"
    kind = "partitioned_shared"
    alias_prefix = "shared"


_PADDING_RE = re.compile(r"<\s*\[([^\]]*)\]\s*")


LAYOUT_ATTRIBUTES: list[type[LayoutEncodingAttr]] = [
    BlockedEncodingAttr,
    SliceEncodingAttr,
    NvidiaMmaEncodingAttr,
    DotOperandEncodingAttr,
    AMDMfmaEncodingAttr,
    AMDWmmaEncodingAttr,
    LinearEncodingAttr,
    SwizzledSharedEncodingAttr,
    NVMMASharedEncodingAttr,
    SharedLinearEncodingAttr,
    PaddedSharedEncodingAttr,
    AMDRotatingSharedEncodingAttr,
    PartitionedSharedEncodingAttr,
]
"""Every layout attribute class, in the order of the contract (register them in the dialect)."""

_ATTR_BY_KIND: dict[str, type[LayoutEncodingAttr]] = {c.kind: c for c in LAYOUT_ATTRIBUTES}


def attr_class_for_kind(kind: str) -> type[LayoutEncodingAttr]:
    """The attribute class of a Triton family mnemonic.

    >>> attr_class_for_kind("nvidia_mma").name
    'tl.nvidia_mma'
    """
    try:
        return _ATTR_BY_KIND[kind]
    except KeyError:
        known = ", ".join(_ATTR_BY_KIND)
        raise LayoutError(f"unknown layout kind '{kind}' (expected one of {known})") from None


def layout_attr_for(layout: Any) -> LayoutEncodingAttr:
    """Wrap a family object of :mod:`llc.layouts` in its ``#tl.<kind>`` attribute.

    >>> from llc.layouts import from_triton_params
    >>> mma = from_triton_params("nvidia_mma", {"versionMajor": 2, "versionMinor": 0,
    ...                                         "warpsPerCTA": [2, 2], "instrShape": [16, 8]})
    >>> layout_attr_for(mma).name
    'tl.nvidia_mma'
    """
    if isinstance(layout, LayoutEncodingAttr):
        return layout
    kind = getattr(layout, "kind", None)
    if not isinstance(kind, str):
        raise LayoutError(f"layout_attr_for: {layout!r} is not a layout family object")
    return attr_class_for_kind(kind)(layout)


def tensor_layout_error(type_: Attribute) -> str | None:
    """Why a tensor type does not fit its ``#tl`` register layout (rank mismatch), or None.

    Triton checks this when a ``tensor<...>`` type is built (``verifyEncoding``); llc's parser
    (:class:`llc.dialects.diagnostics.LLCParser`) reports it as a located parse error, and op
    verifiers can call it for types built by passes.

    >>> from xdsl.dialects.builtin import TensorType, f32
    >>> from llc.layouts import from_triton_params
    >>> b = from_triton_params("blocked", {"sizePerThread": [1, 1], "threadsPerWarp": [4, 8],
    ...                                    "warpsPerCTA": [4, 1], "order": [1, 0]})
    >>> tensor_layout_error(TensorType(f32, [32], BlockedEncodingAttr(b)))
    'blocked: tensor<32xf32> has rank 1, but the layout has rank 2'
    >>> tensor_layout_error(TensorType(f32, [32, 32], BlockedEncodingAttr(b))) is None
    True
    """
    encoding = getattr(type_, "encoding", None)
    if not isinstance(encoding, DistributedEncodingAttr):
        return None
    shape = type_.get_shape()  # type: ignore[attr-defined]
    rank = encoding.data.rank
    if len(shape) == rank:
        return None
    dims = "".join(f"{d}x" if d >= 0 else "?x" for d in shape)
    element = type_.element_type  # type: ignore[attr-defined]
    return (
        f"{encoding.kind}: tensor<{dims}{element}> has rank {len(shape)}, but the layout has "
        f"rank {rank}"
    )


# ---------------------------------------------------------------------------------------------
# Printing


def _print_value(printer: Printer, value: object) -> None:
    """Print one parameter value in Triton's spelling (``[1, 4]``, ``true``, ``#mma``)."""
    if isinstance(value, bool):
        printer.print_string("true" if value else "false")
    elif isinstance(value, int):
        printer.print_string(str(value))
    elif isinstance(value, list | tuple):
        printer.print_string("[")
        for i, item in enumerate(value):
            if i:
                printer.print_string(", ")
            _print_value(printer, item)
        printer.print_string("]")
    elif isinstance(value, Mapping):
        printer.print_string("{")
        for i, (key, item) in enumerate(value.items()):
            if i:
                printer.print_string(", ")
            printer.print_string(f"{key} = ")
            _print_value(printer, item)
        printer.print_string("}")
    elif isinstance(value, str):
        printer.print_string_literal(value)
    elif isinstance(value, Attribute):
        printer.print_attribute(value)
    elif _is_layout(value):
        # Through print_attribute so that an alias printer can print `#mma` here.
        printer.print_attribute(layout_attr_for(value))
    elif hasattr(value, "__index__"):  # numpy integers
        printer.print_string(str(int(value)))  # type: ignore[call-overload]
    else:
        raise TypeError(f"cannot print layout parameter value {value!r}")


print_layout_value = _print_value
"""Print one layout parameter value in Triton's spelling (public name for the TTGIR printer)."""


# ---------------------------------------------------------------------------------------------
# Parsing

_IDENT_CHARS = r"A-Za-z0-9_"


def _entry_named_in(message: str, entries: Mapping[str, tuple[int, int]]) -> tuple[int, int] | None:
    """The span of the parsed entry whose key the message mentions first, if any.

    >>> _entry_named_in("blocked: order [1, 1] is bad", {"order": (5, 20), "sizePerThread": (0, 4)})
    (5, 20)
    >>> _entry_named_in("blocked: CTAOrder [0] is bad", {"order": (5, 20)}) is None
    True
    """
    best: tuple[int, tuple[int, int]] | None = None
    for key, span in entries.items():
        match = re.search(rf"(?<![{_IDENT_CHARS}]){re.escape(key)}(?![{_IDENT_CHARS}])", message)
        if match is not None and (best is None or match.start() < best[0]):
            best = (match.start(), span)
    return None if best is None else best[1]


class _AtPosition:
    """A stand-in for a parser whose next token starts at ``pos`` (for :func:`last_token_end`)."""

    def __init__(self, parser: AttrParser, pos: int) -> None:
        self.lexer = parser.lexer
        self.pos = pos


def last_token_end(parser: AttrParser | _AtPosition, start: int) -> int:
    """End position of the last token consumed since ``start`` (``parser.pos`` is the start of
    the next token, after any whitespace and comments). Re-lexes the range: error paths only.

    >>> from xdsl.context import Context
    >>> from xdsl.parser import Parser
    >>> p = Parser(Context(), "[1, 2] // note\\n  x")
    >>> p.parse_comma_separated_list(p.Delimiter.SQUARE, p.parse_integer)
    [1, 2]
    >>> p.pos, last_token_end(p, 0)
    (17, 6)
    """
    lexer = MLIRLexer(parser.lexer.input)
    lexer.pos = start
    end = start
    limit = parser.pos
    while True:
        token = lexer.lex()
        if token.kind == MLIRTokenKind.EOF or token.span.start >= limit:
            return end
        end = token.span.end


def _parse_value(parser: AttrParser, kind: str, key: str) -> object:
    """One dictionary value: integer, ``true``/``false``, ``[...]``, ``{...}``, a string or a
    layout attribute (inline ``#tl.<kind><{...}>`` or an alias like ``#mma``)."""
    token = peek_token(parser)
    if token.kind == MLIRTokenKind.L_SQUARE:
        return parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: _parse_value(parser, kind, key)
        )
    if token.kind == MLIRTokenKind.L_BRACE:
        return _parse_dictionary(parser, kind)[0]
    if token.kind == MLIRTokenKind.HASH_IDENT:
        start = parser.pos
        name = token.text
        content = parser.lexer.input.content
        if (
            "." not in name
            and name not in parser.attribute_aliases
            and content[token.span.end : token.span.end + 1] != "<"
        ):
            # xDSL would point after the name; point at it and say what to do.
            parser.raise_error(
                f"{kind}: undefined alias '{name}' for '{key}' (define it before its first "
                f"use: {name} = #tl.<kind><{{...}}>)",
                token.span.start,
                token.span.end,
            )
        attr = parser.parse_attribute()
        if not isinstance(attr, LayoutEncodingAttr):
            parser.raise_error(
                f"{kind}: '{key}' must be a layout attribute (#tl.<kind><{{...}}> or an alias "
                f"of one), got {attr}",
                start,
                last_token_end(parser, start),
            )
        return attr.layout
    if (boolean := parser.parse_optional_boolean()) is not None:
        return boolean
    if (integer := parser.parse_optional_integer(allow_boolean=False)) is not None:
        return integer
    if (string := parser.parse_optional_str_literal()) is not None:
        return string
    parser.raise_error(
        f"{kind}: expected a value for '{key}': an integer, true/false, a [list] or a layout "
        "attribute"
    )


def _parse_dictionary(
    parser: AttrParser, kind: str
) -> tuple[dict[str, object], dict[str, tuple[int, int]]]:
    """``{key = value, ...}`` -> (values, key -> (entry start, start of the next token)).

    The exact end of an entry (:func:`last_token_end`) is only computed for an error.
    """
    parser.parse_punctuation(
        "{", f" to open the {kind} parameters (Triton: <{{key = value, ...}}>)"
    )
    values: dict[str, object] = {}
    spans: dict[str, tuple[int, int]] = {}
    if parser.parse_optional_punctuation("}") is not None:
        return values, spans
    while True:
        key_start = parser.pos
        key = parser.parse_optional_identifier_or_str_literal()
        if key is None:
            parser.raise_error(f"{kind}: expected a parameter name")
        if key in values:
            parser.raise_error(
                f"{kind}: duplicate parameter '{key}'", key_start, last_token_end(parser, key_start)
            )
        parser.parse_punctuation("=", f" after {kind} parameter '{key}'")
        values[key] = _parse_value(parser, kind, key)
        spans[key] = (key_start, parser.pos)
        if parser.parse_optional_punctuation(",") is None:
            break
    parser.parse_punctuation("}", f" or ',' after {kind} parameter '{key}'")
    return values, spans


_BODY_CACHE: dict[tuple[str, str], Any] = {}
"""(kind, exact body text) -> family object, for bodies without nested attributes."""
_BODY_CACHE_LIMIT = 4096
BODY_CACHE_ENABLED = True
"""Switch for the parse cache of layout bodies (the benchmark turns it off to compare)."""


def _cached_body(parser: AttrParser, kind: str) -> tuple[str | None, Any]:
    """Fast path for a body seen before: returns (body text or None, family object or None).

    Tokenising a layout body costs ~10x more than finding its end in the raw text, and real
    modules repeat a handful of layouts in every type. Only self-contained bodies (no ``#``,
    so no alias whose meaning could differ, no nested dictionary) are cached; the family
    objects are immutable, so sharing them is safe.
    """
    content = parser.lexer.input.content
    start = parser.pos
    if not BODY_CACHE_ENABLED or not content.startswith("<{", start):
        return None, None
    close = content.find("}>", start)
    if close < 0:
        return None, None
    body = content[start : close + 2]
    if "#" in body or body.count("{") != 1 or '"' in body:
        return None, None
    layout = _BODY_CACHE.get((kind, body))
    if layout is not None:
        resume_from(parser, close + 2)
    return body, layout


def _parse_layout_body(parser: AttrParser, kind: str, attr_name: str) -> Any:
    """Parse ``<{...}>`` and build the family object; errors are located in the body."""
    from llc.layouts import from_triton_params

    body, cached = _cached_body(parser, kind)
    if cached is not None:
        return cached
    body_start = parser.pos
    parser.parse_punctuation("<", f" after #{attr_name} (Triton spelling: <{{key = value, ...}}>)")
    params, spans = _parse_dictionary(parser, kind)
    # Triton prints a shared_linear's alignment after the dictionary
    # (`#ttg.shared_linear<{offset = ...}, alignment = 16>`); llc's own spelling has it inside.
    while kind == "shared_linear" and parser.parse_optional_punctuation(",") is not None:
        key = parser.parse_identifier(" (Triton spelling: <{...}, alignment = N>)")
        if key != "alignment" or key in params:
            parser.raise_error(f"shared_linear: unexpected '{key}' after the dictionary")
        parser.parse_punctuation("=")
        params[key] = parser.parse_integer()
    body_end = parser.pos + 1  # the `>` ends the body
    parser.parse_punctuation(">", f" to close #{attr_name}")
    try:
        layout = from_triton_params(kind, params)
    except (ValueError, TypeError) as err:  # LayoutError is a ValueError
        message = str(err)
        if (entry := _entry_named_in(message, spans)) is not None:
            start = entry[0]
            end = last_token_end(_AtPosition(parser, entry[1]), start)
        else:
            start, end = body_start, body_end
        parser.raise_error(message, start, end)
    # The raw scan and the token parse must agree on where the body ends (`} >` does not).
    if body is not None and body_end == body_start + len(body):
        if len(_BODY_CACHE) >= _BODY_CACHE_LIMIT:
            _BODY_CACHE.clear()
        _BODY_CACHE[(kind, body)] = layout
    return layout
