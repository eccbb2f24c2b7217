"""Run the examples of ``docs/reference.md`` and record what they cover.

``docs/reference.md`` gives one example per op, pass, pass option and tool option; pytest runs
it as a doctest. The examples call a :class:`DocExamples` object, which runs each one
in-process (no subprocess: the whole reference runs in seconds) and remembers what it
exercised, so the last doctests can list every op, pass, pass option and tool option that has
*no* example (that list must be empty):

* :meth:`DocExamples.ir` parses and verifies an IR snippet exactly as ``llc-run`` does, runs it
  in llc's reference interpreter (``tl`` IR) or in the SIMT interpreter (lowered IR, one warp
  of ``lanes`` threads) and prints every value the snippet defines;
* :meth:`DocExamples.llc_opt`, :meth:`DocExamples.llc_run` and :meth:`DocExamples.llc_layout`
  run a command line of the tool (its console-script entry point) and print what it prints, on
  stdout and stderr, and its exit status when it is not 0.

>>> doc = DocExamples()
>>> doc.ir('''
...   %r = tl.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
... ''')
%r = [0, 1, 2, 3]
>>> doc.llc_opt("-", "-p", "llc-strip-layouts", stdin="func.func @f() { func.return }")
builtin.module {
  func.func @f() {
    func.return
  }
}
>>> "tl.make_range" in doc.ops, "llc-strip-layouts" in doc.passes
(True, True)
"""

from __future__ import annotations

import contextlib
import inspect
import io
import re
import shlex
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import VectorType
from xdsl.dialects.func import FuncOp
from xdsl.interpreter import Interpreter
from xdsl.ir import Operation, SSAValue

__all__ = ["DocExamples", "pass_options", "tool_options"]

_TOOLS = ("llc-opt", "llc-run", "llc-layout")


def tool_options(tool: str) -> list[str]:
    """The options of ``tool`` (its first spelling each; ``-h`` left out), from its parser.

    >>> tool_options("llc-run")[:3]
    ['--entry', '--args', '--grid']
    """
    from llc.tools import cli

    parser = {
        "llc-opt": cli.opt_arg_parser,
        "llc-run": cli.run_arg_parser,
        "llc-layout": cli.layout_arg_parser,
    }[tool]()
    return [
        a.option_strings[0]
        for a in parser._actions
        if a.option_strings and a.option_strings[0] not in ("-h", "--help")
    ]


def pass_options(name: str) -> list[str]:
    """The options of pass ``name`` (as spelled in ``-p 'name{option=value}'``).

    >>> pass_options("llc-lower-conversions")
    ['scratch-limit']
    """
    from dataclasses import fields

    from llc.dialects.universe import LLC_UNIVERSE

    pass_class = LLC_UNIVERSE.all_passes[name]()
    return [f.name.replace("_", "-") for f in fields(pass_class) if f.name != "name"]


class _Recorder(Interpreter.Listener):
    """Keeps the values of the ops directly in the example function's body, in order."""

    def __init__(self, body: Sequence[Operation]) -> None:
        self.body = set(body)
        self.values: list[tuple[SSAValue, Any]] = []

    def did_interpret_op(self, op: Operation, results: Sequence[Any]) -> None:
        if op in self.body:
            self.values.extend(zip(op.results, results, strict=True))


def _format(value: Any, typ: Any) -> str:
    """One line for small values (``[[0, 1], [2, 3]]``); ``""`` for pointers and buffers,
    whose addresses say nothing to a reader (the loads and stores show the data)."""
    array = np.asarray(value)
    if array.dtype == object:
        return ""
    if isinstance(typ, VectorType) and array.dtype.kind == "u" and array.ndim:
        from llc.dialects.tl_interpreter import numpy_dtype

        # the SIMT conversion ops keep raw bits: show the numbers they encode
        wanted = np.dtype(numpy_dtype(typ.element_type))
        if wanted.itemsize == array.dtype.itemsize:
            array = array.view(wanted)
    text = repr(array.tolist())
    return text if len(text) <= 110 else "\n" + str(array)


@dataclass
class DocExamples:
    """Runs documentation examples and records the ops, passes and options they use."""

    attributes: set[str] = field(default_factory=set)
    """Every attribute or type name :meth:`attribute` parsed."""
    ops: set[str] = field(default_factory=set)
    """Every op name in a snippet that :meth:`ir` parsed, verified and ran."""
    passes: set[str] = field(default_factory=set)
    """Every ``llc-opt -p`` pass and ``pass{option}`` that ran without error."""
    options: dict[str, set[str]] = field(default_factory=lambda: {t: set() for t in _TOOLS})
    """The options given to each tool in an example."""

    # ---------------------------------------------------------------------------- IR
    def attribute(self, text: str, aliases: dict[str, str] | None = None) -> None:
        """Parse a ``#tl.`` attribute or ``!tl.`` type as IR spells it (``aliases``: alias name
        -> text, written out first) and print its name.

        >>> DocExamples().attribute("#tl.slice<{dim = 0, parent = #b}>",
        ...     {"#b": "#tl.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], "
        ...            "warpsPerCTA = [4, 1], order = [1, 0]}>"})
        tl.slice
        """
        from xdsl.parser import Parser

        from llc.tools.run import make_context

        for alias, expansion in (aliases or {}).items():
            text = re.sub(rf"{re.escape(alias)}\b", expansion, text)
        parser = Parser(make_context(), text)
        parsed = parser.parse_type() if text.startswith("!") else parser.parse_attribute()
        self.attributes.add(parsed.name)
        print(parsed.name)

    def ir(
        self,
        text: str,
        args: Sequence[str] = (),
        lanes: int | None = None,
        show_lanes: int | None = None,
        warps: int = 1,
    ) -> None:
        """Parse, verify and run an IR snippet; print each value its body defines.

        ``text`` is a function (``func.func ...``, whose parameters ``args`` binds with
        ``llc-run``'s ``--args`` syntax) or the body of one that takes nothing. With ``lanes``,
        the snippet is SIMT code run by ``warps`` warps of ``lanes`` threads (``show_lanes``:
        print only the first so many). Pointer parameters' buffers are printed after the run.
        """
        from llc.dialects import tl
        from llc.dialects.diagnostics import parse_module
        from llc.dialects.tl_interpreter import Pointer, make_interpreter, set_grid
        from llc.tools.run import bind_argument, make_context

        if "func.func" not in text:
            text = f"func.func @example() {{\n{text.strip()}\n  func.return\n}}"
        if lanes is not None and "llc.num_warps" not in text:
            # the attributes go between the signature (results included) and the body
            cta = f"llc.num_warps = {warps} : i32, llc.threads_per_warp = {lanes} : i32"
            text = re.sub(
                r"^(\s*func\.func @.*?)\s*\{\s*$",
                rf"\1 attributes {{{cta}}} {{",
                text,
                count=1,
                flags=re.M,
            )
        ctx = make_context()
        module = parse_module(ctx, text, "<example>")
        module.verify()
        tl.verify_module(module)
        func = next(op for op in module.walk() if isinstance(op, FuncOp))
        bound = [
            bind_argument(arg, typ, f"arg{i}", ctx)
            for i, (arg, typ) in enumerate(zip(args, func.function_type.inputs.data, strict=True))
        ]
        body = list(func.body.block.ops)
        recorder = _Recorder(body)
        if lanes is None:
            interpreter = make_interpreter(module)
            interpreter.listeners = (*interpreter.listeners, recorder)
            set_grid(interpreter, (0, 0, 0), (1, 1, 1))
        else:
            from llc.dialects.simt_kernel_interpreter import GlobalMemory, make_kernel_interpreter

            interpreter, _ = make_kernel_interpreter(
                module, warps, lanes, GlobalMemory(), listeners=(recorder,)
            )
        interpreter.call_op(func.sym_name.data, tuple(b.value for b in bound))
        for value, result in recorder.values:
            if isinstance(value.owner, arith.ConstantOp):
                continue  # the snippet shows them
            if show_lanes is not None and np.ndim(result):
                result = np.asarray(result)[:show_lanes]
            shown = _format(result, value.type)
            if shown:
                sep = "" if shown.startswith("\n") else " "
                print(f"%{value.name_hint or '?'} ={sep}{shown}")
        for arg, b in zip(func.body.block.args, bound, strict=True):
            if isinstance(b.value, Pointer):
                print(f"buffer %{arg.name_hint} = {b.value.buffer.array()}")
        self.ops.update(op.name for op in module.walk())

    # ---------------------------------------------------------------------------- tools
    def llc_opt(
        self, *argv: str, stdin: str | None = None, grep: str | None = None, head: int = 0
    ) -> None:
        """Run ``llc-opt ARGV`` (``-`` reads ``stdin``); print its output (only the lines
        matching ``grep``, a regular expression, if given; the first ``head`` lines and ``...``
        if given) and a non-zero exit status."""
        from llc.tools.cli import opt_main

        if self._run_tool("llc-opt", opt_main, argv, stdin, grep, head) == 0:
            self.passes.update(_pipeline_entries(argv))

    def llc_run(
        self, *argv: str, stdin: str | None = None, grep: str | None = None, head: int = 0
    ) -> None:
        """Run ``llc-run ARGV`` like :meth:`llc_opt`.

        >>> DocExamples().llc_run("-", stdin="func.func @f() -> i32 { "
        ...     "%c = arith.constant 7 : i32 func.return %c : i32 }")
        @f result #0 : i32 =
        7
        """
        from llc.tools.cli import run_main

        self._run_tool("llc-run", run_main, argv, stdin, grep, head)

    def llc_layout(
        self, *argv: str, stdin: str | None = None, grep: str | None = None, head: int = 0
    ) -> None:
        """Run ``llc-layout ARGV`` like :meth:`llc_opt`.

        A bad layout is an error (exit status 1):

        >>> DocExamples().llc_layout("#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], "
        ...     "warpsPerCTA = [4], order = [1]}>", "--shape", "128")
        <layout>:1:78: error: blocked: order [1] is not a permutation of [0]
        [exit status 1]
        """
        from llc.tools.cli import layout_main

        self._run_tool("llc-layout", layout_main, argv, stdin, grep, head)

    def _run_tool(
        self,
        tool: str,
        main: Callable[[list[str]], None],
        argv: Sequence[str],
        stdin: str | None,
        grep: str | None,
        head: int,
    ) -> int:
        self.options[tool].update(a.split("=", 1)[0] for a in argv if a.startswith("-"))
        out = io.StringIO()
        status = 0
        old_stdin = sys.stdin
        try:
            sys.stdin = io.StringIO(stdin or "")
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                try:
                    main(list(argv))
                except SystemExit as exit:
                    status = exit.code if isinstance(exit.code, int) else 1
        finally:
            sys.stdin = old_stdin
        lines = out.getvalue().splitlines()
        if grep is not None:
            lines = [line for line in lines if re.search(grep, line)]
        while lines and not lines[-1].strip():
            lines.pop()
        if head and len(lines) > head:
            lines = [*lines[:head], "..."]
        for line in lines:
            # tabs (PTX) as spaces, as doctest reads them; escapes (--syntax-highlight) as text
            print(line.rstrip().expandtabs().replace("\x1b", "\\x1b"))
        if status:
            print(f"[exit status {status}]")
        return status

    # ---------------------------------------------------------------------------- coverage
    def missing_attributes(self, names: Iterable[str]) -> list[str]:
        """The attribute and type ``names`` no :meth:`attribute` example parsed.

        >>> DocExamples().missing_attributes(["tl.ptr"])
        ['tl.ptr']
        """
        return [n for n in names if n not in self.attributes]

    def missing_ops(self, names: Iterable[str]) -> list[str]:
        """The op ``names`` no :meth:`ir` example used.

        >>> doc = DocExamples()
        >>> doc.ir("%r = tl.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32>")
        %r = [0, 1]
        >>> doc.missing_ops(["tl.make_range", "tl.splat"])
        ['tl.splat']
        """
        return [n for n in names if n not in self.ops]

    def missing_passes(self, names: Iterable[str]) -> list[str]:
        """Passes among ``names`` that no ``llc-opt`` example ran, and their options
        (``pass{option}``) that none gave. An option that several passes inherit from one
        class (the layout passes' ``num-warps``) needs one example, on any of them.

        >>> DocExamples().missing_passes(["llc-lower-conversions"])
        ['llc-lower-conversions', 'llc-lower-conversions{scratch-limit}']
        """
        owners = {name: _option_owners(name) for name in names}
        covered = {
            owner
            for name, by_option in owners.items()
            for option, owner in by_option.items()
            if f"{name}{{{option}}}" in self.passes
        }
        missing = []
        for name, by_option in owners.items():
            if name not in self.passes:
                missing.append(name)
            missing += [f"{name}{{{o}}}" for o, owner in by_option.items() if owner not in covered]
        return missing

    def missing_options(self, tool: str) -> list[str]:
        """The options of ``tool`` that no example gave it.

        >>> doc = DocExamples()
        >>> doc.llc_run("--version")  # doctest: +ELLIPSIS
        llc-run ...
        >>> missing = doc.missing_options("llc-run")
        >>> "--version" in missing, "--grid" in missing
        (False, True)
        """
        used = self.options[tool]
        return [o for o in tool_options(tool) if o not in used]


def _option_owners(name: str) -> dict[str, tuple[str, str]]:
    """Option of pass ``name`` -> (the class that declares it, the option)."""
    from llc.dialects.universe import LLC_UNIVERSE

    pass_class = LLC_UNIVERSE.all_passes[name]()
    owners = {}
    for option in pass_options(name):
        field_name = option.replace("-", "_")
        owner = next(c for c in pass_class.__mro__ if field_name in inspect.get_annotations(c))
        owners[option] = (owner.__qualname__, option)
    return owners


def _pipeline_entries(argv: Sequence[str]) -> set[str]:
    """``{"p", "p{opt}"}`` for every pass ``p`` and option ``opt`` of ``-p``/``--passes``."""
    found: set[str] = set()
    for i, arg in enumerate(argv):
        if arg in ("-p", "--passes") and i + 1 < len(argv):
            spec = argv[i + 1]
        elif arg.startswith("--passes="):
            spec = arg.split("=", 1)[1]
        else:
            continue
        for name, options in re.findall(r"([\w-]+)(?:\{([^}]*)\})?", spec):
            found.add(name)
            for option in shlex.split(options.replace(",", " ")):
                found.add(f"{name}{{{option.split('=', 1)[0]}}}")
    return found
