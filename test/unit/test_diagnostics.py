"""Located errors (llc.dialects.diagnostics) and the module boundaries of issue 7:
the core imports no xDSL, private xDSL APIs appear only in dialects/xdsl_private.py, errors
carry their op in a constructor field."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func, FuncOp
from xdsl.dialects.test import Test
from xdsl.utils.exceptions import ParseError, PassFailedException, VerifyException

from llc.dialects.diagnostics import (
    OpDiagnostic,
    OpVerifyException,
    error_at,
    locate_exception,
    parse_module,
    register_source,
)
from llc.dialects.tl import TL, verify_module
from llc.dialects.tl_interpreter import TLInterpretationError

ROOT = Path(__file__).resolve().parents[2]


def _context() -> Context:
    ctx = Context()
    for dialect in (Builtin, Func, Test, TL):
        ctx.load_dialect(dialect)
    return ctx


def test_error_at_reports_the_op_position_with_its_source_line() -> None:
    text = 'builtin.module {\n  %0 = "test.op"() : () -> i32\n}\n'
    register_source("pass.mlir", text)  # as the tools' read_input does: quote the line
    module = parse_module(_context(), text, "pass.mlir")
    op = module.body.block.first_op
    assert op is not None
    err = error_at(op, "cannot lower this")
    assert isinstance(err, PassFailedException) and err.op is op
    assert locate_exception(err, module).render() == (
        "pass.mlir:2:3: error: 'test.op' op cannot lower this\n"
        '  %0 = "test.op"() : () -> i32\n'
        "  ^"
    )


def test_module_verifier_error_names_the_offending_op() -> None:
    text = (
        'module attributes {"tl.num-warps" = 4 : i32} {\n'
        "  func.func @f(%x: tensor<64xf32, #tl.blocked<{sizePerThread = [1], "
        "threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>>) {\n"
        "    func.return\n"
        "  }\n"
        "}\n"
    )
    module = parse_module(_context(), text, "hw.mlir")
    with pytest.raises(OpVerifyException) as info:
        verify_module(module)
    err = info.value
    assert isinstance(err, VerifyException) and isinstance(err.op, FuncOp)
    assert locate_exception(err, module).render().startswith("hw.mlir:2:3: error: func.func:")


def test_interpreter_errors_carry_their_op() -> None:
    op = ModuleOp([])
    err = TLInterpretationError(op, "out of bounds")
    assert isinstance(err, OpDiagnostic) and err.op is op and err.detail == "out of bounds"
    assert str(err) == "builtin.module: out of bounds"


def _python_files(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py"))


def test_the_core_imports_no_xdsl() -> None:
    offenders = []
    for path in _python_files("llc"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [
                f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] == "xdsl"
            ]
    assert offenders == []


def test_private_xdsl_apis_only_in_xdsl_private() -> None:
    private = re.compile(r"\._current_token\b|\._resume_from\b|\._parse_alias_def\b")
    users = {
        str(path.relative_to(ROOT))
        for path in _python_files("llc", "dialects", "passes", "tools", "bench", "test")
        if private.search(path.read_text()) and path.name != "test_diagnostics.py"
    }
    assert users == {"dialects/xdsl_private.py"}


def test_no_error_is_patched_with_an_op() -> None:
    patched = re.compile(r"\berr\w*\.op\s*=[^=]")
    assert [
        str(path.relative_to(ROOT))
        for path in _python_files("llc", "dialects", "passes", "tools")
        if patched.search(path.read_text())
    ] == []


def test_a_truncated_file_says_so_at_its_last_code() -> None:
    """Cut an example at every line end and inside tokens: every parse error has a message
    (xDSL's own at the end of input was ' in block definition') and a caret on code, never past
    the last comment; a cut at a line end is an unexpected end of input."""
    text = (ROOT / "examples" / "softmax.mlir").read_text()
    start = text.index("module attributes")
    line_ends = [i + 1 for i in range(start, len(text) - 3) if text[i] == "\n"]
    from llc.tools.run import make_context

    ctx = make_context()
    for cut in sorted({*line_ends, *range(start + 40, len(text) - 3, 97)}):
        with pytest.raises(ParseError) as caught:
            parse_module(ctx, text[:cut], "cut.mlir")
        located = locate_exception(caught.value)
        assert located.message.strip() and not located.message.startswith(" in "), cut
        assert not (located.source_line or "").lstrip().startswith("//"), located.render()
        if cut in line_ends:
            assert located.message.startswith("unexpected end of input"), located.render()
            assert "'{' not closed" in located.message
