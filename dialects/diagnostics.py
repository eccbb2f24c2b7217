"""Located errors and location-recording parsing, for passes and library users.

xDSL keeps no source positions on operations, so :class:`LLCParser` records
``loc("file":line:col)`` (a ``FileLineColLoc``, as MLIR does) on every operation it parses
that has no explicit ``loc(...)``. An error about one operation carries that operation in its
``op`` field (:class:`OpDiagnostic`: :class:`OpVerifyException`, :class:`OpPassFailedException`),
so tools can point at its source position; :func:`locate_exception` turns any parse, verify or
pass error into a :class:`LocatedError` (``file:line:col: error: message``, source line, caret).

A pass reports a located failure with ``raise error_at(op, "message")``; a library user parses
with :func:`parse_module` and renders errors with ``locate_exception(err, module).render()``.
The command-line side (reading inputs, printing diagnostics, exit codes) is
:mod:`llc.tools.diagnostics`.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

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
    DiagnosticException,
    ParseError,
    PassFailedException,
    VerifyException,
)
from xdsl.utils.lexer import Location, Span

from llc.dialects.layout_attrs import LAYOUT_ATTRIBUTES, last_token_end, tensor_layout_error
from llc.dialects.xdsl_private import at_end_of_input, dialect_stack, resume_from
from llc.errors import LayoutError

__all__ = [
    "LLCParser",
    "LocatedError",
    "OpDiagnostic",
    "OpPassFailedException",
    "OpVerifyException",
    "TypeCachingParser",
    "error_at",
    "find_failing_op",
    "format_diagnostic",
    "locate_exception",
    "op_location",
    "parse_module",
    "register_source",
    "type_text_end",
]

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


# ---------------------------------------------------------------------------------------------
# Formatting


@dataclass(eq=False)
class LocatedError(Exception):
    """An error with an optional source location, rendered MLIR-style by
    :func:`llc.tools.diagnostics.run_cli`.

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


class OpDiagnostic(DiagnosticException):
    """An error about one operation: ``op`` says where tools report it.

    Raise one of the two concrete kinds below (they stay ``VerifyException`` /
    ``PassFailedException``, so xDSL's ``--verify-diagnostics`` treats them as usual), or derive
    a new error from this class (the interpreter's errors do).

    >>> from xdsl.dialects.builtin import ModuleOp
    >>> err = OpVerifyException(ModuleOp([]), "bad shape")
    >>> str(err), err.op.name, isinstance(err, VerifyException)
    ('bad shape', 'builtin.module', True)
    """

    op: Operation
    """The operation the error is about; its (or its nearest ancestor's) location is reported."""

    def __init__(self, op: Operation, message: str) -> None:
        super().__init__(message)
        self.op = op


class OpVerifyException(OpDiagnostic, VerifyException):
    """A verification failure of ``op`` found by a check that walks many ops (module-level
    verifiers), so that the report names ``op`` rather than the root."""


class OpPassFailedException(OpDiagnostic, PassFailedException):
    """A pass failure at ``op`` (see :func:`error_at`)."""


def error_at(op: Operation, message: str) -> OpPassFailedException:
    """The error a pass raises to fail at ``op``: reported at ``op``'s source position.

    >>> from xdsl.dialects.builtin import ModuleOp
    >>> err = error_at(ModuleOp([]), "cannot convert")
    >>> err.op.name, isinstance(err, PassFailedException)
    ('builtin.module', True)
    >>> print(locate_exception(err).render())
    error: 'builtin.module' op cannot convert
    """
    return OpPassFailedException(op, message)


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
    * an :class:`OpDiagnostic` (see :func:`error_at`): the location of its ``op``;
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
    if isinstance(err, OpDiagnostic):
        return LocatedError(_op_message(err.op, _message_of(err)), op_location(err.op))
    if module is not None and isinstance(err, DiagnosticException | LayoutError):
        found = find_failing_op(module)
        if found is not None:
            failing, op_err = found
            return LocatedError(_op_message(failing, _message_of(op_err)), op_location(failing))
    return LocatedError(_message_of(err))


# ---------------------------------------------------------------------------------------------
# Parsing with locations


_TYPE_WITH_BODY = re.compile(r"!?[A-Za-z_][\w.$]*<")
_ANGLES = re.compile(r'[<>"]')


def type_text_end(content: str, start: int) -> int | None:
    """The end of the type spelled ``name<...>`` (``tensor<...>``, ``vector<...>``,
    ``!tl.ptr<...>``) at ``start``, after its matching ``>``; ``None`` for any other text, or
    one with a string or an arrow inside (those are parsed as they come, never cached).

    >>> text = "%x : tensor<4x!tl.ptr<f32>, #L0>, i32"
    >>> end = type_text_end(text, 5); text[5:end]
    'tensor<4x!tl.ptr<f32>, #L0>'
    >>> type_text_end(text, 34) is None, type_text_end('!t.s<"a>">', 0) is None
    (True, True)
    """
    match = _TYPE_WITH_BODY.match(content, start)
    if match is None:
        return None
    depth = 0
    for angle in _ANGLES.finditer(content, match.end() - 1):
        char = angle.group()
        if char == "<":
            depth += 1
        elif char == '"' or content[angle.start() - 1] == "-":
            return None
        else:
            depth -= 1
            if depth == 0:
                return angle.end()
    return None


class TypeCachingParser(Parser):
    """xDSL's ``Parser``, parsing each spelling of a type with a body (``tensor<...>``,
    ``vector<...>``, ``!tl.ptr<...>``) once per input: a module spells the same few types on
    most of its ops, and xDSL's type parser (the shape, the element type, the encoding) was a
    quarter of the time to parse one. A type that repeats a spelling is the type parsed the
    first time (types are immutable); ``#alias`` names inside keep their one meaning per input.
    :meth:`parse_new_type` parses a spelling not seen before (a subclass checks it there once).

    >>> from xdsl.dialects.builtin import Builtin
    >>> ctx = Context(); ctx.load_dialect(Builtin)
    >>> parser = TypeCachingParser(ctx, "tensor<4x8xf32> tensor<4x8xf32> tensor<8xf32>")
    >>> a, b, c = (parser.parse_type() for _ in range(3))
    >>> a is b, a == c, str(c), parser.pos
    (True, False, 'tensor<8xf32>', 45)
    """

    def __init__(self, ctx: Context, input: str | bytes, name: str = "<unknown>") -> None:
        super().__init__(ctx, input, name)
        self._types: dict[tuple[tuple[str, ...], str], TypeAttribute] = {}

    def parse_optional_type(self) -> TypeAttribute | None:
        start = self.pos
        content = self.lexer.input.content
        end = type_text_end(content, start) if isinstance(content, str) else None
        if end is None:
            return self.parse_new_type()
        # An unprefixed dialect type reads differently inside another dialect's op.
        key = (dialect_stack(self), content[start:end])
        if (known := self._types.get(key)) is not None:
            resume_from(self, end)
            return known
        type_ = self.parse_new_type()
        # Cached only when the parse consumed exactly the spelling (nothing but blanks follow).
        if type_ is not None and self.pos >= end and not content[end : self.pos].strip():
            self._types[key] = type_
        return type_

    def parse_new_type(self) -> TypeAttribute | None:
        """xDSL's ``parse_optional_type``: a type whose spelling is not cached."""
        return super().parse_optional_type()


class LLCParser(TypeCachingParser):
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

    def parse_new_type(self) -> TypeAttribute | None:
        start = self.pos
        type_ = super().parse_new_type()
        if isinstance(type_, TensorType) and (error := tensor_layout_error(type_)) is not None:
            self.raise_error(error, start, last_token_end(self, start))
        return type_


def _at_end(span: Span[str] | Span[bytes]) -> bool:
    """Whether ``span`` is the end of the input (all that follows is blank, or the ``/`` of a
    comment cut short)."""
    rest = span.input.content[span.start :]
    return rest.strip() in ("", "/", b"", b"/")


def _code_outline(text: str) -> tuple[int, list[int]]:
    """The end of the last code (not comment, not blank) character of ``text``, and the
    positions of the ``{`` still open there (strings and ``//`` comments skipped).

    >>> _code_outline('a {\\n  "}" b // c {\\n')
    (11, [2])
    """
    last, opened, i, n = 0, [], 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == "{":
            opened.append(i)
        elif c == "}" and opened:
            opened.pop()
        if not c.isspace():
            last = min(i, n - 1) + 1
        i += 1
    return last, opened


def _explain_end_of_input(err: ParseError, text: str) -> None:
    """A parse error at the end of the input (a truncated file) says so, and points at the
    last code of the file rather than past its last comment, where xDSL's message may be empty
    (``' in block definition'``)."""
    stripped = text.rstrip()
    if stripped.endswith("/") and not stripped.endswith("//"):
        text = stripped[:-1]  # the first '/' of a comment cut short is no code
    end, opened = _code_outline(text)
    what = err.msg.strip()
    reason = f" ({what})" if what and not err.msg.startswith(" ") else ""
    message = f"unexpected end of input{reason}"
    if opened:
        line = text.count("\n", 0, opened[-1]) + 1
        missing = len(opened)
        message += (
            f": {missing} '{{' not closed, the last one on line {line}; is the file truncated?"
        )
    err.msg = message
    err.span = Span(max(end - 1, 0), max(end, 1), err.span.input)


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
        if allow_implicit_module and at_end_of_input(parser):
            # Like mlir-opt: nothing but whitespace and comments is an empty module.
            return ModuleOp([])
        return parser.parse_module(allow_implicit_module)
    except ParseError as err:
        if _at_end(err.span):
            _explain_end_of_input(err, text)
        elif err.msg == " in block definition":  # xDSL's message when no op or '}' follows
            err.msg = "expected an operation, a block label (^bb0:) or '}'"
        if line_offset:
            err.span = dataclasses.replace(err.span, line_offset=line_offset)
        if (match := _TRITON_PREFIX.fullmatch(err.msg)) and match.group(1) in _LAYOUT_KINDS:
            err.msg += f" (llc spells Triton's #ttg.{match.group(1)} as #tl.{match.group(1)})"
        raise
