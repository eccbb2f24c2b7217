"""The only module of llc that uses private xDSL APIs (pinned: xDSL 0.74.x).

xDSL's parser exposes no public way to look at the next token without consuming it, to jump
to a position of the input, or to parse one ``#alias = ...`` definition on its own. llc needs
all three (layout bodies, hex constants, the bare layout files of ``llc-layout``), so every
such use goes through a function here: an xDSL upgrade that renames them touches this file
only. Each function says which private member it relies on.

>>> from xdsl.context import Context
>>> from xdsl.parser import Parser
>>> parser = Parser(Context(), "0x1F")
>>> peek_token(parser).text, at_end_of_input(parser)
('0x1F', False)
"""

from __future__ import annotations

from xdsl.parser import AttrParser, Parser
from xdsl.utils.mlir_lexer import MLIRToken, MLIRTokenKind

__all__ = ["at_end_of_input", "parse_alias_definition", "peek_token", "resume_from"]


def peek_token(parser: AttrParser) -> MLIRToken:
    """The next token of ``parser``, not consumed (``AttrParser._current_token``).

    >>> from xdsl.context import Context
    >>> from xdsl.parser import Parser
    >>> parser = Parser(Context(), "[1]")
    >>> peek_token(parser).kind.name, parser.pos
    ('L_SQUARE', 0)
    """
    return parser._current_token  # pyright: ignore[reportPrivateUsage]


def at_end_of_input(parser: AttrParser) -> bool:
    """Whether only whitespace and comments are left (``_current_token`` is ``EOF``).

    >>> from xdsl.context import Context
    >>> from xdsl.parser import Parser
    >>> at_end_of_input(Parser(Context(), "  // a comment\\n"))
    True
    """
    return peek_token(parser).kind == MLIRTokenKind.EOF


def resume_from(parser: AttrParser, pos: int) -> None:
    """Skip the input up to ``pos`` and lex the next token from there
    (``AttrParser._resume_from``). ``pos`` must be a token boundary.

    >>> from xdsl.context import Context
    >>> from xdsl.parser import Parser
    >>> parser = Parser(Context(), "skipped 7")
    >>> resume_from(parser, 8)
    >>> parser.parse_integer()
    7
    """
    parser._resume_from(pos)  # pyright: ignore[reportPrivateUsage]


def parse_alias_definition(parser: Parser) -> None:
    """Parse one ``#name = <attribute>`` definition into ``parser.attribute_aliases``
    (``Parser._parse_alias_def``).

    >>> from xdsl.context import Context
    >>> from xdsl.parser import Parser
    >>> parser = Parser(Context(), "#one = 1 : i32")
    >>> parse_alias_definition(parser)
    >>> parser.attribute_aliases["#one"]
    IntegerAttr(value=IntAttr(data=1), type=IntegerType(32))
    """
    parser._parse_alias_def()  # pyright: ignore[reportPrivateUsage]
