"""``llc-opt``: parse, verify, transform and print ``tl`` IR (an ``xdsl-opt`` for llc).

::

    llc-opt kernel.mlir                      # verify and pretty-print with layout aliases
    llc-opt - < kernel.mlir                  # read stdin
    llc-opt kernel.mlir -p 'some-pass{opt=1}' -o out.mlir
    llc-opt kernel.mlir --print-op-generic   # generic op form (aliases still printed)
    llc-opt kernel.mlir --no-aliases         # repeat every layout inline, as xdsl-opt does
    llc-opt bad.mlir --split-input-file --parsing-diagnostics --verify-diagnostics  # lit tests

All of xdsl-opt's flags are inherited. Every dialect xDSL knows is registered, plus ``tl`` and
llc's passes and targets (:mod:`llc.dialects.universe`). Input is MLIR text whatever its extension
(``.mlir``, ``.ttgir``, ...). Errors are printed as ``file:line:col: error: message`` with the
source line and a caret, exit status 1 (:mod:`llc.dialects.diagnostics`); with
``--parsing-diagnostics`` / ``--verify-diagnostics`` they are printed on stdout in xdsl-opt's
format and the next ``// -----`` chunk is processed, exit status 0.

The hardware configuration is a module attribute, spelled as TTGIR does (names in
:mod:`llc.dialects.tl`: ``NUM_WARPS_ATTR``, ``THREADS_PER_WARP_ATTR``, ``TARGET_ATTR``)::

    module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32,
                       "tl.target" = "cuda:90"} { ... }
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from io import StringIO
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.arg_spec import parse_spec
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from llc.dialects.diagnostics import locate_exception, parse_module
from llc.dialects.printer import LLCPrinter
from llc.dialects.tl import verify_module
from llc.dialects.universe import LLC_UNIVERSE
from llc.errors import LayoutError
from llc.tools.diagnostics import read_input, run_cli

__all__ = [
    "LLCOptMain",
    "main",
    "split_input",
]

SPLIT_MARKER = "// -----"


def _llc_version() -> str:
    try:
        return version("llc")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "dev"


def split_input(text: str, split: bool) -> list[tuple[str, int]]:
    """Chunks of ``text`` with the number of lines before each (``--split-input-file``).

    >>> split_input("a\\n// -----\\nb\\n", True)
    [('a\\n', 0), ('\\nb\\n', 1)]
    >>> split_input("a\\n", False)
    [('a\\n', 0)]
    """
    if not split:
        return [(text, 0)]
    chunks: list[tuple[str, int]] = []
    offset = 0
    for chunk in text.split(SPLIT_MARKER):
        chunks.append((chunk, offset))
        offset += chunk.count("\n")
    return chunks


class LLCOptMain(xDSLOptMain):
    """xdsl-opt with llc's dialect, passes, targets, alias printing and located errors."""

    version_format = f"llc-opt {_llc_version()} (xdsl {{xdsl_version}})"

    def __init__(self, args: Sequence[str] | None = None) -> None:
        super().__init__(
            description="llc modular optimizer: parse, verify, transform and print tl IR",
            args=args,
        )

    # -- registration ------------------------------------------------------------------------

    def register_all_dialects(self) -> None:
        super().register_all_dialects()  # xDSL's and every xdsl.universe plugin (llc's too)
        for name, factory in LLC_UNIVERSE.all_dialects.items():
            # Present already when the package's entry point is installed.
            if name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in LLC_UNIVERSE.all_passes.items():
            self.available_passes.setdefault(name, factory)

    def register_all_targets(self) -> None:
        super().register_all_targets()
        for name, factory in LLC_UNIVERSE.all_targets.items():
            self.available_targets.setdefault(name, factory)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--no-aliases",
            default=False,
            action="store_true",
            help="Print every layout inline instead of as #blocked/#mma/... aliases",
        )

    # -- pipeline ----------------------------------------------------------------------------

    def setup_pipeline(self) -> None:
        """As xdsl-opt's, plus :func:`llc.dialects.tl.verify_module` (hardware config and
        elementwise shapes) wherever the module is verified, and alias printing for
        ``--print-between-passes``."""
        start = time.perf_counter()

        def callback(
            previous_pass: ModulePass | None, module: ModuleOp, next_pass: ModulePass | None
        ) -> None:
            nonlocal start
            if self.args.time_passes and previous_pass is not None:
                print(f"Pass {previous_pass.name} took {time.perf_counter() - start} seconds")
            if not self.args.disable_verify:
                module.verify()
                # Layouts vs "tl.num-warps"/"tl.threads-per-warp", also where no tl op checks
                # them (function arguments, arith ops).
                verify_module(module)
            if previous_pass and next_pass and self.args.print_between_passes:
                print(f"IR after {previous_pass.name}:")
                print(self._print_module(module))
                print("\n\n")
            if self.args.time_passes and next_pass is not None:
                start = time.perf_counter()

        self.pipeline = PassPipeline.parse_spec(self.available_passes, self.args.passes, callback)

    # -- input / output ----------------------------------------------------------------------

    def _print_module(self, module: ModuleOp, generic: bool | None = None) -> str:
        stream = StringIO()
        printer = LLCPrinter(
            stream=stream,
            print_generic_format=self.args.print_op_generic if generic is None else generic,
            print_properties_as_attributes=self.args.print_no_properties,
            print_debuginfo=self.args.print_debuginfo,
            print_aliases=not self.args.no_aliases,
        )
        printer.print_op(module)
        printer.print_metadata(self.ctx.loaded_dialects)
        return stream.getvalue()

    def output_resulting_program(self, prog: ModuleOp) -> str:
        spec = parse_spec(self.args.target)
        if spec.name != "mlir" or spec.parameters or self.args.syntax_highlight:
            return super().output_resulting_program(prog)
        return self._print_module(prog) + "\n\n"

    def _parse(self, text: str, name: str, line_offset: int) -> ModuleOp:
        return parse_module(
            self.ctx,
            text,
            name,
            line_offset=line_offset,
            allow_implicit_module=not self.args.no_implicit_module,
        )

    def run(self) -> None:
        """Process each input chunk; errors become located diagnostics (see module doc)."""
        if self.args.frontend not in (None, "mlir"):
            super().run()
            return
        text, name = read_input(self.args.input_file)
        output: IO[str] = self.prepare_output()
        try:
            for i, (chunk, offset) in enumerate(split_input(text, self.args.split_input_file)):
                if i > 0:
                    output.write(SPLIT_MARKER + "\n")
                module: ModuleOp | None = None
                try:
                    module = self._parse(chunk, name, offset)
                    self.apply_passes(module)
                    output.write(self.output_resulting_program(module))
                    output.flush()
                except ParseError as err:
                    if not self.args.parsing_diagnostics:
                        raise
                    print(err)
                except (DiagnosticException, LayoutError) as err:
                    if not self.args.verify_diagnostics:
                        raise locate_exception(err, module) from err
                    print(err)
                    for note in getattr(err, "__notes__", ()):
                        print(note)
        finally:
            if output is not sys.stdout:
                output.close()


def main(argv: Sequence[str] | None = None) -> None:
    """Console entry point of ``llc-opt``."""
    run_cli("llc-opt", lambda: LLCOptMain(argv).run())


if __name__ == "__main__":
    main()
