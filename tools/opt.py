"""``llc-opt``: parse, verify, transform and print ``tl`` IR (an ``xdsl-opt`` for llc).

::

    llc-opt kernel.mlir                      # verify and pretty-print with layout aliases
    llc-opt - < kernel.mlir                  # read stdin
    llc-opt kernel.mlir -p 'some-pass{opt=1}' -o out.mlir
    llc-opt kernel.mlir --print-op-generic   # generic op form (aliases still printed)
    llc-opt kernel.mlir --no-aliases         # repeat every layout inline, as xdsl-opt does
    llc-opt bad.mlir --split-input-file --parsing-diagnostics --verify-diagnostics  # lit tests
    llc-opt kernel.mlir -p llc-optimize-layouts --layout-report   # conversions, accesses, total

All of xdsl-opt's flags are inherited. Every dialect xDSL knows is registered, plus ``tl`` and
llc's passes and targets (:mod:`llc.dialects.universe`). Input is llc's MLIR text, or Triton's
TTIR/TTGIR (``.ttgir``/``.ttir`` files, text with ``tt``/``ttg`` ops, or ``-f triton``), imported by
:mod:`llc.dialects.ttgir`; ``-t ttgir`` prints Triton's TTGIR back. Errors are printed as
``file:line:col: error: message`` with the source line and a caret, exit status 1
(:mod:`llc.dialects.diagnostics`); with ``--parsing-diagnostics`` / ``--verify-diagnostics``
they are printed on stdout in xdsl-opt's format and the next ``// -----`` chunk is processed,
exit status 0.

The hardware configuration is a module attribute, spelled as TTGIR does (names in
:mod:`llc.dialects.tl`: ``NUM_WARPS_ATTR``, ``THREADS_PER_WARP_ATTR``, ``TARGET_ATTR``)::

    module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32,
                       "tl.target" = "cuda:90"} { ... }
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from io import StringIO
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute
from xdsl.passes import ModulePass, PassPipeline
from xdsl.universe import Universe
from xdsl.utils.arg_spec import parse_spec
from xdsl.utils.diagnostic import Diagnostic
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from llc.dialects.diagnostics import locate_exception, parse_module
from llc.dialects.printer import LLCPrinter
from llc.dialects.tl import verify_module
from llc.errors import LayoutError
from llc.tools.cli import OPT_TARGETS, opt_arg_parser
from llc.tools.diagnostics import atomic_write, read_input

__all__ = [
    "LLCOptMain",
    "available_passes",
    "describe_unsupported_target",
    "main",
    "split_input",
]

SPLIT_MARKER = "// -----"


def available_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Every pass ``-p`` accepts: xDSL's, every ``xdsl.universe`` plugin's, and llc's.

    >>> passes = available_passes()
    >>> "canonicalize" in passes and "cse" in passes
    True
    """
    from llc.dialects.universe import LLC_UNIVERSE

    passes = dict(Universe.get_multiverse().all_passes)
    for name, factory in LLC_UNIVERSE.all_passes.items():
        passes.setdefault(name, factory)
    return passes


def describe_unsupported_target(name: str, supported: Sequence[str]) -> str:
    """The message for ``-t NAME`` when llc-opt cannot print ``tl`` IR with it.

    >>> describe_unsupported_target("riscv-asm", ["mlir"])
    "-t riscv-asm: xDSL's riscv-asm target cannot print tl IR (it expects its own dialects); \
llc-opt's targets: mlir"
    >>> describe_unsupported_target("bogus", ["mlir"])
    "-t bogus: unknown target; llc-opt's targets: mlir"
    """
    from xdsl.targets import get_all_targets

    listed = ", ".join(supported)
    if name in get_all_targets():
        return (
            f"-t {name}: xDSL's {name} target cannot print tl IR (it expects its own "
            f"dialects); llc-opt's targets: {listed}"
        )
    return f"-t {name}: unknown target; llc-opt's targets: {listed}"


def _skip_attribute_verification(self: Attribute) -> None:
    """``--disable-verify``: replaces ``Attribute.__post_init__``, as xdsl-opt does."""


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

    def __init__(
        self, args: Sequence[str] | None = None, *, parsed: argparse.Namespace | None = None
    ) -> None:
        """Parse ``args`` with :func:`llc.tools.cli.opt_arg_parser` (or take ``parsed``, already
        parsed by it) and set up the pipeline.

        xdsl-opt's own ``__init__`` is not called: it builds its argument parser from the whole
        pass and target registries, which ``llc-opt --help`` must not wait for.
        """
        self.available_frontends = {}
        self.available_passes = {}
        self.available_targets = {}
        self.ctx = Context()
        self.register_all_dialects()
        self.register_all_frontends()
        self.register_all_passes()
        self.register_all_targets()
        self.args = parsed if parsed is not None else opt_arg_parser().parse_args(args)
        target = parse_spec(self.args.target).name
        if target not in self.available_targets:
            raise ValueError(describe_unsupported_target(target, list(self.available_targets)))
        self.ctx.allow_unregistered = self.args.allow_unregistered_dialect
        if self.args.disable_verify:
            Attribute.__post_init__ = _skip_attribute_verification  # type: ignore[method-assign]
        if self.args.syntax_highlight:
            Diagnostic.colored = True
        self.setup_pipeline()

    # -- registration ------------------------------------------------------------------------

    def register_all_dialects(self) -> None:
        from llc.dialects.universe import LLC_UNIVERSE

        super().register_all_dialects()  # xDSL's and every xdsl.universe plugin (llc's too)
        for name, factory in LLC_UNIVERSE.all_dialects.items():
            # Present already when the package's entry point is installed.
            if name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        self.available_passes.update(available_passes())

    def register_all_targets(self) -> None:
        """Only targets that can print ``tl`` IR: MLIR text and llc's own (xDSL's assembly,
        LLVM, WGSL, ... targets expect their own dialects)."""
        from llc.dialects.universe import LLC_UNIVERSE

        multiverse = Universe.get_multiverse().all_targets
        for name in OPT_TARGETS:
            self.available_targets[name] = multiverse[name]
        self.available_targets.update(LLC_UNIVERSE.all_targets)

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

    def _is_triton_input(self, text: str, name: str) -> bool:
        if self.args.frontend is not None:
            return self.args.frontend == "triton"
        from llc.dialects.ttgir import is_triton_file

        return is_triton_file(name, text)

    def _parse(self, text: str, name: str, line_offset: int) -> ModuleOp:
        if self._is_triton_input(text, name):
            from llc.dialects.ttgir import HardwareDefaults, parse_triton_module

            defaults = HardwareDefaults(
                self.args.num_warps, self.args.threads_per_warp, self.args.gpu_target
            )
            return parse_triton_module(text, name, defaults, line_offset=line_offset)
        return parse_module(
            self.ctx,
            text,
            name,
            line_offset=line_offset,
            allow_implicit_module=not self.args.no_implicit_module,
        )

    def run(self) -> None:
        """Process each input chunk; errors become located diagnostics (see module doc)."""
        if self.args.frontend not in (None, "mlir", "triton"):
            super().run()
            return
        text, name = read_input(self.args.input_file)
        if self.args.output_file is None:
            self._process(text, name, sys.stdout)
            return
        # A failure leaves an existing output file as it was (no empty or half-written file).
        with atomic_write(self.args.output_file) as output:
            self._process(text, name, output)

    def _process(self, text: str, name: str, output: IO[str]) -> None:
        for i, (chunk, offset) in enumerate(split_input(text, self.args.split_input_file)):
            if i > 0:
                output.write(SPLIT_MARKER + "\n")
            module: ModuleOp | None = None
            try:
                module = self._parse(chunk, name, offset)
                self.apply_passes(module)
                if getattr(self.args, "layout_report", False):
                    from llc.passes.layout_report import format_report, layout_report

                    output.write(format_report(layout_report(module)))
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


def main(argv: Sequence[str] | None = None) -> None:
    """Console entry point of ``llc-opt`` (:func:`llc.tools.cli.opt_main`)."""
    from llc.tools.cli import opt_main

    opt_main(argv)


if __name__ == "__main__":
    main()
