"""The only module of llc that uses private xDSL APIs (pinned: xDSL 0.74.x).

xDSL's parser exposes no public way to look at the next token without consuming it, to jump
to a position of the input, or to parse one ``#alias = ...`` definition on its own. llc needs
all three (layout bodies, hex constants, the bare layout files of ``llc-layout``), so every
such use goes through a function here: an xDSL upgrade that renames them touches this file
only. Each function says which private member it relies on. :func:`import_submodule` relies on
the layout of xDSL's packages (which interpreter modules import what).

>>> from xdsl.context import Context
>>> from xdsl.parser import Parser
>>> parser = Parser(Context(), "0x1F")
>>> peek_token(parser).text, at_end_of_input(parser)
('0x1F', False)
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import sys
from types import ModuleType
from typing import Any

from xdsl.parser import AttrParser, Parser
from xdsl.utils.mlir_lexer import MLIRToken, MLIRTokenKind

__all__ = [
    "at_end_of_input",
    "diagnostics_pass_through",
    "dialect_stack",
    "import_submodule",
    "parse_alias_definition",
    "peek_token",
    "resume_from",
]


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


def dialect_stack(parser: AttrParser) -> tuple[str, ...]:
    """The dialects whose unprefixed names ``parser`` reads at this point, innermost last
    (``AttrParser._parser_state.dialect_stack``).

    >>> from xdsl.context import Context
    >>> from xdsl.parser import Parser
    >>> dialect_stack(Parser(Context(), ""))
    ('builtin',)
    """
    return tuple(parser._parser_state.dialect_stack)  # pyright: ignore[reportPrivateUsage]


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


def import_submodule(name: str) -> ModuleType:
    """Import the module ``name`` without running its package's ``__init__`` when that package
    is not imported yet.

    ``xdsl/interpreters/__init__.py`` imports every interpreter of xDSL (RISC-V, Snitch, PDL,
    linalg, ...), which takes longer than the rest of ``llc-run``'s start-up together; the
    reference interpreter needs only ``xdsl.interpreters.func`` and ``.scf``, which import
    nothing from their package. The module is registered under its own name, so a later
    ``import xdsl.interpreters`` reuses it (one copy of each class).

    >>> import_submodule("xdsl.interpreters.scf").ScfFunctions.__name__
    'ScfFunctions'
    """
    if name in sys.modules:
        return sys.modules[name]
    package = name.rpartition(".")[0]
    if package in sys.modules:
        return importlib.import_module(name)
    package_spec = importlib.util.find_spec(package)  # imports the grandparent, not `package`
    spec = None
    if package_spec is not None and package_spec.submodule_search_locations is not None:
        spec = importlib.machinery.PathFinder.find_spec(
            name, list(package_spec.submodule_search_locations)
        )
    if spec is None or spec.loader is None:
        return importlib.import_module(name)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def diagnostics_pass_through(interpreter: Any) -> None:
    """Let ``interpreter`` raise an :class:`llc.dialects.diagnostics.OpDiagnostic` from an op's
    implementation as it is. xDSL's dispatcher (``Interpreter._impls``, an
    ``_InterpreterFunctionImpls``, whose ``run`` and ``_impl_dict`` this relies on) catches every
    exception and adds the whole printed module as a note, once per enclosing region op: tens of
    milliseconds per error, which nobody reads since the diagnostic names its op. Other errors
    keep xDSL's note.

    >>> from xdsl.dialects.builtin import ModuleOp
    >>> from xdsl.interpreter import Interpreter
    >>> interpreter = Interpreter(ModuleOp([]))
    >>> diagnostics_pass_through(interpreter)
    >>> type(interpreter._impls).__name__
    '_DiagnosticsPassThrough'
    """
    from llc.dialects.diagnostics import OpDiagnostic

    impls = interpreter._impls
    base = type(impls)

    class _DiagnosticsPassThrough(base):  # type: ignore[misc, valid-type]
        def run(self, interp: Any, op: Any, args: tuple[Any, ...]) -> Any:
            entry = self._impl_dict.get(type(op))
            if entry is None:
                return super().run(interp, op, args)
            ft, impl = entry
            try:
                return impl(ft, interp, op, args)
            except OpDiagnostic:
                raise
            except Exception as e:
                op.emit_error("Error while interpreting op", e)

    impls.__class__ = _DiagnosticsPassThrough
