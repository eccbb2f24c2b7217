"""Error reporting shared by llc's command-line tools.

Every CLI runs its work through :func:`run_cli`, which turns xDSL's ``ParseError``,
``VerifyException``/``DiagnosticException``/``PassFailedException``, llc's ``LayoutError`` and
ordinary I/O or usage errors into MLIR-style diagnostics on stderr and exit code 1, never a
Python traceback (set ``LLC_TRACEBACK=1`` to get one while debugging)::

    kernel.mlir:3:42: error: blocked: order [1, 1] is not a permutation of [0, 1]
      %0 = "test.op"() : () -> tensor<32xf32, #tl.blocked<{..., order = [1, 1]}>>
                                                                ^~~~~~~~~~~~~~

xDSL keeps no source positions on operations, so :class:`LLCParser` records
``loc("file":line:col)`` (a ``FileLineColLoc``, as MLIR does) on every operation it parses
that has no explicit ``loc(...)``; :func:`locate_exception` then finds the operation whose
verifier failed and reports its position (or that of its nearest located ancestor, for
operations created by passes).

How to use it from a tool::

    def main() -> None:
        run_cli("llc-run", lambda: _main(sys.argv[1:]))

    def _main(argv):
        text, name = read_input(path)
        module = parse_module(ctx, text, name)        # ParseError -> located by run_cli
        try:
            module.verify()
        except Exception as err:                        # needs the module to find the op
            raise locate_exception(err, module) from err

A pass that wants its failure located raises ``error_at(op, "message")``.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from xdsl.context import Context
from xdsl.dialects.builtin import (
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    IntAttr,
    ModuleOp,
    NameLoc,
    StringAttr,
    TensorType,
    UnknownLoc,
)
from xdsl.ir import Attribute, Operation, TypeAttribute
from xdsl.parser import Parser
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    ParseError,
    PassFailedException,
)
from xdsl.utils.lexer import Location
from xdsl.utils.mlir_lexer import MLIRTokenKind

from llc.dialects.layout_attrs import LAYOUT_ATTRIBUTES, last_token_end, tensor_layout_error
from llc.errors import LayoutError

__all__ = [
    "LLCParser",
    "LocatedError",
    "error_at",
    "find_failing_op",
    "format_diagnostic",
    "locate_exception",
    "op_location",
    "parse_module",
    "read_input",
    "register_source",
    "run_cli",
]

_T = TypeVar("_T")

STDIN_NAME = "<stdin>"
"""File name used in diagnostics for input read from standard input (as MLIR does)."""

_SOURCES: dict[str, str] = {}


def register_source(name: str, text: str) -> None:
    """Remember the text of input ``name`` so diagnostics can quote its lines.

    >>> register_source("demo.mlir", "a\\nbcd\\n")
    >>> _source_line("demo.mlir", 2)
    'bcd'
    """
    _SOURCES[name] = text


def _source_line(name: str, line: int) -> str | None:
    text = _SOURCES.get(name)
    if text is None:
        return None
    lines = text.split("\n")
    return lines[line - 1].rstrip("\r") if 0 < line <= len(lines) else None


def read_input(path: str | None) -> tuple[str, str]:
    """Read a tool's input: ``None`` or ``"-"`` is stdin. Returns ``(text, name)`` and
    registers the text for diagnostics. Raises :class:`LocatedError` if it cannot be read."""
    if path is None or path == "-":
        text, name = sys.stdin.read(), STDIN_NAME
    else:
        try:
            with open(path, encoding="utf-8") as file:
                text = file.read()
        except OSError as err:
            raise LocatedError(f"cannot read '{path}': {err.strerror or err}") from err
        except UnicodeDecodeError as err:
            raise LocatedError(f"cannot read '{path}': not UTF-8 text ({err.reason})") from err
        name = path
    register_source(name, text)
    return text, name


# ---------------------------------------------------------------------------------------------
# Formatting


@dataclass(eq=False)
class LocatedError(Exception):
    """An error with an optional source location, rendered MLIR-style by :func:`run_cli`.

    >>> print(LocatedError("bad order", Location("k.mlir", 3, 5), length=3).render())
    k.mlir:3:5: error: bad order
    """

    message: str
    location: Location | None = None
    length: int = 1
    source_line: str | None = None

    def __str__(self) -> str:
        return self.render()

    def render(self, prog: str | None = None) -> str:
        """The diagnostic text (no trailing newline); ``prog`` prefixes unlocated errors."""
        return format_diagnostic(
            self.message,
            self.location,
            source_line=self.source_line,
            length=self.length,
            prog=prog,
        )


def format_diagnostic(
    message: str,
    location: Location | None = None,
    *,
    source_line: str | None = None,
    length: int = 1,
    severity: str = "error",
    prog: str | None = None,
) -> str:
    """``file:line:col: error: message`` plus the quoted source line and a caret.

    The source line is looked up among registered inputs when not given.

    >>> print(format_diagnostic("Expected ','", Location("x.mlir", 1, 9),
    ...                         source_line="%0 = tl.add %a %b", length=2))
    x.mlir:1:9: error: Expected ','
    %0 = tl.add %a %b
            ^~
    >>> format_diagnostic("Unrecognized passes: ['nope']", prog="llc-opt")
    "llc-opt: error: Unrecognized passes: ['nope']"
    """
    if location is None:
        head = f"{prog}: " if prog else ""
        return f"{head}{severity}: {message}"
    text = f"{location.file}:{location.line}:{location.col}: {severity}: {message}"
    if source_line is None:
        source_line = _source_line(location.file, location.line)
    if source_line is not None:
        col = max(location.col - 1, 0)
        width = max(1, min(length, len(source_line) - col))
        # Keep tabs so the caret lines up under tab-indented source.
        pad = "".join(c if c == "\t" else " " for c in source_line[:col])
        text += f"\n{source_line}\n{pad}^{'~' * (width - 1)}"
    return text


# ---------------------------------------------------------------------------------------------
# Locations of operations


def _location_of(loc: Attribute) -> Location | None:
    match loc:
        case FileLineColLoc():
            return Location(loc.filename.data, loc.line.data, loc.column.data)
        case NameLoc():
            return _location_of(loc.location)
        case CallSiteLoc():
            return _location_of(loc.callee) or _location_of(loc.caller)
        case FusedLoc():
            for sub in loc.locations:
                if (found := _location_of(sub)) is not None:
                    return found
            return None
        case _:
            return None


def op_location(op: Operation) -> Location | None:
    """The source position of ``op``, or of its nearest ancestor that has one.

    Operations built by passes carry ``loc(unknown)``; their enclosing operation is the best
    place to point at.
    """
    current: Operation | None = op
    while current is not None:
        if (found := _location_of(current.location)) is not None:
            return found
        current = current.parent_op()
    return None


def _verify_error(op: Operation) -> Exception | None:
    try:
        op.verify()
    except Exception as err:  # verifiers may raise LayoutError/ValueError, not only Verify*
        return err
    return None


def find_failing_op(root: Operation) -> tuple[Operation, Exception] | None:
    """The innermost operation under ``root`` whose verification fails, with its error.

    Descends into the first failing child until no child fails on its own: the remaining
    operation is the one whose own checks (operands, traits, ``verify_``) are violated.
    Only used on the error path: it verifies subtrees again (cost ~ size x depth).
    """
    err = _verify_error(root)
    if err is None:
        return None
    op = root
    while True:
        failing_child: tuple[Operation, Exception] | None = None
        for region in op.regions:
            for block in region.blocks:
                for child in block.ops:
                    if (child_err := _verify_error(child)) is not None:
                        failing_child = (child, child_err)
                        break
                if failing_child:
                    break
            if failing_child:
                break
        if failing_child is None:
            return op, err
        op, err = failing_child


def error_at(op: Operation, message: str) -> PassFailedException:
    """A ``PassFailedException`` that :func:`locate_exception` reports at ``op``'s position.

    >>> from xdsl.dialects.builtin import ModuleOp
    >>> error_at(ModuleOp([]), "cannot convert").op.name
    'builtin.module'
    """
    err = PassFailedException(message)
    err.op = op  # type: ignore[attr-defined]
    return err


def _message_of(err: BaseException) -> str:
    # VerifyExceptions carry the whole module (generic form) as a note; the one-line message
    # is enough once the location is known.
    return str(err).strip() or type(err).__name__


def _op_message(op: Operation, message: str) -> str:
    """MLIR's ``'tl.add' op <message>``, unless the message already names the op.

    >>> from xdsl.dialects.builtin import ModuleOp
    >>> _op_message(ModuleOp([]), "bad"), _op_message(ModuleOp([]), "builtin.module: bad")
    ("'builtin.module' op bad", 'builtin.module: bad')
    """
    if message.startswith((op.name + ":", f"'{op.name}'")):
        return message
    return f"'{op.name}' op {message}"


def locate_exception(err: BaseException, module: Operation | None = None) -> LocatedError:
    """Turn any error raised while parsing, verifying or transforming ``module`` into a
    :class:`LocatedError`.

    * ``ParseError``: the location of its span (split-input line offsets included);
    * an error carrying ``.op`` (see :func:`error_at`): that operation's location;
    * a verification failure (``VerifyException``, ``LayoutError`` from a verifier, ...): the
      innermost failing operation of ``module``, reported as ``'tl.add' op <message>``;
    * anything else: the message without a location.
    """
    if isinstance(err, LocatedError):
        return err
    if isinstance(err, ParseError):
        span = err.span
        start_line = span.input.get_start_of_line(span.start)
        line_end = span.input.get_end_of_line(start_line)
        raw_line = span.input.content[start_line:line_end]
        line = raw_line.decode("utf-8", "replace") if isinstance(raw_line, bytes) else raw_line
        length = max(1, min(span.end, line_end) - span.start)
        return LocatedError(err.msg, span.get_location(), length, line.rstrip("\r"))
    op = getattr(err, "op", None)
    if isinstance(op, Operation):
        return LocatedError(_op_message(op, _message_of(err)), op_location(op))
    if module is not None and isinstance(err, DiagnosticException | LayoutError):
        found = find_failing_op(module)
        if found is not None:
            failing, op_err = found
            return LocatedError(_op_message(failing, _message_of(op_err)), op_location(failing))
    return LocatedError(_message_of(err))


# ---------------------------------------------------------------------------------------------
# Parsing with locations


class LLCParser(Parser):
    """xDSL's ``Parser`` with two MLIR behaviours xDSL lacks:

    * every operation parsed without an explicit ``loc(...)`` gets
      ``op.location = loc("file":line:col)`` (its first token), so verifier errors can be
      located; ``line_offset`` shifts line numbers (chunks of ``--split-input-file``);
    * a ``tensor<...>`` type whose ``#tl`` layout has another rank is a parse error located on
      the type, as Triton's ``verifyEncoding`` does (see
      :func:`llc.dialects.layout_attrs.tensor_layout_error`).

    >>> from xdsl.dialects.test import Test
    >>> ctx = Context(); ctx.load_dialect(Test)
    >>> module = LLCParser(ctx, '\\n  %0 = "test.op"() : () -> i32', "a.mlir").parse_module()
    >>> op_location(module.body.block.first_op)
    Location(file='a.mlir', line=2, col=3)
    """

    def __init__(
        self, ctx: Context, input: str | bytes, name: str = "<unknown>", line_offset: int = 0
    ) -> None:
        super().__init__(ctx, input, name)
        self._file_attr = StringAttr(name)
        self._line_offset = line_offset
        # Operations are parsed in source order: count newlines incrementally.
        self._scan_pos = 0
        self._scan_line = 1

    def _location_at(self, pos: int) -> FileLineColLoc:
        content = self.lexer.input.content
        if pos < self._scan_pos:
            self._scan_pos, self._scan_line = 0, 1
        self._scan_line += content.count("\n", self._scan_pos, pos)
        self._scan_pos = pos
        col = pos - (content.rfind("\n", 0, pos) + 1) + 1
        return FileLineColLoc(
            self._file_attr, IntAttr(self._scan_line + self._line_offset), IntAttr(col)
        )

    def parse_operation(self) -> Operation:
        start = self.pos
        op = super().parse_operation()
        if isinstance(op.location, UnknownLoc):
            op.location = self._location_at(start)
        return op

    def parse_optional_type(self) -> TypeAttribute | None:
        start = self.pos
        type_ = super().parse_optional_type()
        if isinstance(type_, TensorType) and (error := tensor_layout_error(type_)) is not None:
            self.raise_error(error, start, last_token_end(self, start))
        return type_


_TRITON_PREFIX = re.compile(r"'ttg\.(\w+)' is not registered")
_LAYOUT_KINDS = frozenset(attr.kind for attr in LAYOUT_ATTRIBUTES)


def parse_module(
    ctx: Context,
    text: str,
    name: str = "<unknown>",
    *,
    line_offset: int = 0,
    allow_implicit_module: bool = True,
) -> ModuleOp:
    """Parse ``text`` with :class:`LLCParser`; a ``ParseError`` keeps ``line_offset``.

    >>> from xdsl.dialects.builtin import Builtin
    >>> ctx = Context(); ctx.load_dialect(Builtin)
    >>> try:
    ...     parse_module(ctx, "builtin.module {\\n  %0 = }", "m.mlir", line_offset=10)
    ... except ParseError as err:
    ...     print(locate_exception(err).render())
    m.mlir:12:8: error: operation name expected
      %0 = }
           ^
    """
    parser = LLCParser(ctx, text, name, line_offset)
    try:
        if allow_implicit_module and parser._current_token.kind == MLIRTokenKind.EOF:  # pyright: ignore[reportPrivateUsage]
            # Like mlir-opt: nothing but whitespace and comments is an empty module.
            return ModuleOp([])
        return parser.parse_module(allow_implicit_module)
    except ParseError as err:
        if line_offset:
            err.span = dataclasses.replace(err.span, line_offset=line_offset)
        if (match := _TRITON_PREFIX.fullmatch(err.msg)) and match.group(1) in _LAYOUT_KINDS:
            err.msg += f" (llc spells Triton's #ttg.{match.group(1)} as #tl.{match.group(1)})"
        raise


# ---------------------------------------------------------------------------------------------
# Running a CLI


def _report(prog: str, err: BaseException) -> str:
    if isinstance(err, ArgSpecParseError):
        # Pass-pipeline syntax errors already quote the spec with a caret.
        return format_diagnostic(str(err), prog=prog)
    if isinstance(err, ParseError | LocatedError | DiagnosticException | LayoutError):
        return locate_exception(err).render(prog)
    if isinstance(err, OSError):
        where = f" '{err.filename}'" if err.filename else ""
        return format_diagnostic(f"cannot access{where}: {err.strerror or err}", prog=prog)
    if isinstance(err, ValueError | KeyError | TypeError | NotImplementedError):
        # xDSL reports usage errors (unknown pass, bad pass option) as ValueError.
        message = str(err).strip() or type(err).__name__
        if not isinstance(err, ValueError):
            message = f"{type(err).__name__}: {message}"
        return format_diagnostic(message, prog=prog)
    return format_diagnostic(
        f"internal error: {type(err).__name__}: {err} (set LLC_TRACEBACK=1 for a traceback)",
        prog=prog,
    )


def run_cli(prog: str, fn: Callable[[], _T]) -> _T:
    """Run a tool's body; print any error as a diagnostic on stderr and exit with status 1.

    ``SystemExit`` (argparse, ``--version``) passes through; Ctrl-C exits 130; a closed
    stdout pipe exits quietly.

    >>> run_cli("demo", lambda: 42)
    42
    """
    try:
        return fn()
    except SystemExit:
        raise
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        # `llc-opt big.mlir | head`: stop quietly, as other Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(1)
    except (Exception, ArgSpecParseError) as err:
        if os.environ.get("LLC_TRACEBACK"):
            raise
        sys.stdout.flush()
        print(_report(prog, err), file=sys.stderr)
        sys.exit(1)
