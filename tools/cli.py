"""The command lines of ``llc-layout``, ``llc-opt`` and ``llc-run``, and their entry points.

This module imports nothing but the standard library, so ``--help``, ``--version`` and usage
errors answer without loading numpy or xDSL (start-up time: ``bench/startup.py``). The console
scripts call :func:`layout_main`, :func:`opt_main` and :func:`run_main`; each parses its
arguments here and only then imports the tool's module (:mod:`llc.tools.layout`,
:mod:`llc.tools.opt`, :mod:`llc.tools.run`) and runs it under
:func:`llc.tools.diagnostics.run_cli`.

The three tools share one convention for bad arguments: one line naming the problem and a hint
to ``--help`` on stderr, exit status 1 (the status of every other llc error)::

    $ llc-run
    llc-run: error: the following arguments are required: input_file (see 'llc-run --help')

>>> parser = layout_arg_parser()
>>> parser.parse_args(["#ttg.blocked<{...}>", "--shape", "4x4"]).shape
'4x4'
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

__all__ = [
    "DEFAULT_MAX_ELEMENTS",
    "DEFAULT_PICTURE_ELEMENTS",
    "LAYOUT_CONFLICTS",
    "MAX_ELEMENTS_LIMIT",
    "OPT_TARGETS",
    "PICTURE_ELEMENTS_LIMIT",
    "ArgumentParser",
    "layout_arg_parser",
    "layout_conflict",
    "layout_main",
    "opt_arg_parser",
    "opt_main",
    "run_arg_parser",
    "run_main",
    "tool_version",
]

DEFAULT_MAX_ELEMENTS = 4096
DEFAULT_PICTURE_ELEMENTS = 1024
"""The largest tensor ``--svg``/``--html`` draw without ``--max-elements``: 32x32, 0.5 MB of SVG
(3.6 MB with ``--to``'s four views). The SVG grows by 0.25 to 1 kB per element and view: a
1024x1024 picture was 569 MB, written in 30 s."""
PICTURE_ELEMENTS_LIMIT = 1 << 14
"""The largest tensor ``--svg``/``--html`` draw at all, even with ``--max-elements``: 128x128
(9 MB of SVG; 32 MB with ``--to``)."""
MAX_ELEMENTS_LIMIT = 1 << 20
"""The largest ``--max-elements`` llc-layout accepts: a view of 2^20 entries is already a
multi-megabyte text no terminal shows; beyond it the rendering would exhaust memory."""

VIEWS = ("all", "bases", "matrix", "hw", "tensor")

OPT_TARGETS = ("mlir",)
"""The ``-t`` targets of llc-opt besides llc's own (:data:`llc.dialects.universe.TARGETS`).
xDSL's other targets (``riscv-asm``, ``llvm``, ``wgsl``, ...) expect their own dialects and
cannot print ``tl`` IR; the generic form is ``-t mlir --print-op-generic``."""


def tool_version(prog: str, with_xdsl: bool = False) -> str:
    """``llc-opt 0.1.0 (xdsl 0.74.0)``: the installed versions (``dev`` from a bare tree).

    >>> tool_version("llc-layout").startswith("llc-layout ")
    True
    """
    from importlib.metadata import PackageNotFoundError, version

    def get(name: str) -> str:
        try:
            return version(name)
        except PackageNotFoundError:  # a source tree that was never installed
            return "dev"

    text = f"{prog} {get('llc')}"
    return f"{text} (xdsl {get('xdsl')})" if with_xdsl else text


class _VersionAction(argparse.Action):
    """``--version``, looking the version up only when asked (importlib.metadata is slow)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        self.with_xdsl = kwargs.pop("with_xdsl", False)
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> NoReturn:
        print(tool_version(parser.prog, self.with_xdsl))
        parser.exit()


class ArgumentParser(argparse.ArgumentParser):
    """argparse with llc's error convention: one line, a hint to ``--help``, exit status 1.

    >>> import contextlib, io
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     try:
    ...         ArgumentParser(prog="demo").parse_args(["--bogus"])
    ...     except SystemExit as exit:
    ...         print(exit.code)
    1
    >>> err.getvalue()
    "demo: error: unrecognized arguments: --bogus (see 'demo --help')\\n"
    """

    def error(self, message: str) -> NoReturn:
        self.exit(1, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _usage_error(prog: str, message: str) -> NoReturn:
    """Report a bad argument found after parsing, as :meth:`ArgumentParser.error` does."""
    print(f"{prog}: error: {message} (see '{prog} --help')", file=sys.stderr)
    sys.exit(1)


# ------------------------------------------------------------------------------ llc-layout
def layout_arg_parser() -> ArgumentParser:
    """The command line of ``llc-layout``."""
    parser = ArgumentParser(
        prog="llc-layout",
        description="Show a Triton, XLA or CuTe layout as a linear layout over F2, or what "
        "converting between two layouts needs.",
    )
    parser.add_argument(
        "layout",
        metavar="LAYOUT",
        help="#ttg.blocked<{...}> (as printed in a TTGIR dump; #tl./#triton_gpu. too), "
        "{1,0:T(8,128)}, f32[3,5]{1,0:T(2,2)}, (4,2):(2,1), Swizzle<3,4,3>; @FILE or - (stdin)",
    )
    parser.add_argument("--shape", help="tensor shape, e.g. 32x32 (padded to powers of two)")
    parser.add_argument("--num-warps", type=int, help="warps per CTA (default: the layout's)")
    parser.add_argument(
        "--threads-per-warp",
        type=int,
        help="lanes per warp (default 32; 64 for amd_mfma layouts)",
    )
    parser.add_argument("--view", choices=VIEWS, default="all", help="what to print (default all)")
    parser.add_argument(
        "--max-elements",
        type=int,
        help=f"largest hardware/tensor view printed (default {DEFAULT_MAX_ELEMENTS} entries, "
        f"at most {MAX_ELEMENTS_LIMIT}), and largest tensor --svg/--html draw (default "
        f"{DEFAULT_PICTURE_ELEMENTS} elements, at most {PICTURE_ELEMENTS_LIMIT})",
    )
    parser.add_argument("--json", action="store_true", help="print the bases as JSON")
    parser.add_argument(
        "--alias",
        metavar="NAME",
        help="LAYOUT is a whole TTGIR dump: use its layout alias NAME (#blocked1 or blocked1); "
        "without --alias the aliases are listed",
    )
    parser.add_argument("--to", metavar="DST", help="analyse the conversion LAYOUT -> DST")
    parser.add_argument(
        "--emit",
        choices=["ptx"],
        help="with --to: print a kernel (PTX) loading a row-major tensor in LAYOUT, converting "
        "it and storing it in DST (one CTA; params: input, output, both 16-byte aligned as "
        "Triton's tt.divisibility = 16: global accesses are vectorized up to 128 bits)",
    )
    parser.add_argument(
        "--arch",
        choices=["sm_80", "sm_90"],
        default="sm_90",
        help="the target of --emit ptx and of the --to lowering plan (ldmatrix needs sm_75+, "
        "stmatrix sm_90+; default sm_90)",
    )
    parser.add_argument(
        "--dtype",
        default="f32",
        help="element type of the --to cost estimate and of --vectorize (f16, bf16, f32, i8, ...; "
        "default f32)",
    )
    parser.add_argument(
        "--vectorize",
        action="store_true",
        help="print the widest per-thread access along the contiguous dim: the contiguous "
        "register run, the register permutation that makes it largest and the access width",
    )
    parser.add_argument(
        "--gather",
        metavar="IDX",
        help="plan tl.gather of a LAYOUT source by indices in layout IDX along --axis: shuffles "
        "when the axis stays within a warp, else shared memory",
    )
    parser.add_argument("--axis", type=int, default=0, help="the --gather axis (default 0)")
    parser.add_argument(
        "--index-shape", metavar="S", help="shape of the --gather indices (default: --shape)"
    )
    parser.add_argument(
        "--contig-dim",
        type=int,
        metavar="D",
        help="the contiguous (fastest-varying in memory) tensor dim for --vectorize "
        "(default: the last)",
    )
    parser.add_argument(
        "--svg", metavar="FILE", help="draw the tensor/hardware/memory/conversion views as SVG"
    )
    parser.add_argument(
        "--html",
        metavar="FILE",
        help="the same views as one offline HTML page (hover: coordinates; buttons: views)",
    )
    parser.add_argument(
        "--equals", metavar="B", help="prove with ISL that LAYOUT and B are the same map"
    )
    parser.add_argument(
        "--prove",
        action="store_true",
        help="prove with ISL: LAYOUT's injectivity/surjectivity, or with --to the lowering plan",
    )
    parser.add_argument("--version", action=_VersionAction)
    return parser


LAYOUT_CONFLICTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("--to", ("--gather", "--equals", "--vectorize")),
    ("--gather", ("--equals", "--prove", "--vectorize", "--svg", "--html", "--json")),
    ("--equals", ("--vectorize", "--svg", "--html", "--json")),
    ("--prove", ("--vectorize", "--svg", "--html", "--json")),
    ("--emit", ("--prove", "--svg", "--html", "--json")),
    ("--vectorize", ("--svg", "--html")),
    ("--svg", ("--json",)),
    ("--html", ("--json",)),
)
"""Flag -> the flags llc-layout cannot honour beside it (each would be silently ignored: one
report is printed per run, and ``--to``, ``--gather``, ``--equals`` and ``--vectorize`` each
pick a different one)."""


def layout_conflict(args: argparse.Namespace) -> str | None:
    """The message for the first pair of flags given together that llc-layout cannot combine.

    >>> parser = layout_arg_parser()
    >>> layout_conflict(parser.parse_args(["L", "--to", "D", "--gather", "I"]))
    '--to and --gather cannot be combined: each picks its own report'
    >>> layout_conflict(parser.parse_args(["L", "--to", "D", "--prove"])) is None
    True
    """

    def given(flag: str) -> bool:
        value = getattr(args, flag[2:].replace("-", "_"))
        return value not in (None, False)

    for flag, others in LAYOUT_CONFLICTS:
        for other in others:
            if given(flag) and given(other):
                return f"{flag} and {other} cannot be combined: each picks its own report"
    return None


def layout_main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``llc-layout`` console script."""
    args = layout_arg_parser().parse_args(sys.argv[1:] if argv is None else list(argv))
    if (conflict := layout_conflict(args)) is not None:
        _usage_error("llc-layout", conflict)
    if args.max_elements is not None and not 1 <= args.max_elements <= MAX_ELEMENTS_LIMIT:
        _usage_error(
            "llc-layout",
            f"--max-elements {args.max_elements} is out of range: it must be between 1 and "
            f"{MAX_ELEMENTS_LIMIT} (2^20)",
        )
    from llc.tools import layout

    _run_tool("llc-layout", lambda: layout.run(args))


# ------------------------------------------------------------------------------ llc-run
def run_arg_parser() -> ArgumentParser:
    """The command line of ``llc-run``.

    >>> run_arg_parser().parse_args(["k.mlir", "--args", "x.npy", "zeros:4xf32"]).args
    ['x.npy', 'zeros:4xf32']
    """
    parser = ArgumentParser(
        prog="llc-run",
        description="Run a function of a tl module on numpy data (reference interpreter).",
        epilog="ARG: PATH.npy | number | [list] | true/false | 'dense<...> : tensor<...>' | "
        "zeros:SHAPExTYPE (e.g. zeros:128xf32). Pointer parameters get a buffer.",
    )
    parser.add_argument("input_file", help="the .mlir file ('-' for stdin)")
    parser.add_argument("--entry", "-e", help="function to run (default: the only one)")
    parser.add_argument("--args", nargs="*", default=[], metavar="ARG", help="one per parameter")
    parser.add_argument("--grid", default="1", help="programs to run: X[,Y[,Z]] (default 1)")
    parser.add_argument("--out", metavar="DIR", help="write every buffer to DIR/<param>.npy")
    parser.add_argument(
        "--save",
        action="store_true",
        help="write every buffer back to its .npy file (others to ./<param>.npy)",
    )
    parser.add_argument("--print-buffers", action="store_true", help="print every buffer")
    parser.add_argument(
        "--gpu",
        action="store_true",
        help="lowered kernels: also run the PTX (-t ptx) on the GPU (cuda-python, extra 'gpu'), "
        "compare every buffer with the interpreter's and time the kernel with CUDA events",
    )
    parser.add_argument("--full", action="store_true", help="print arrays without eliding")
    parser.add_argument(
        "--stats",
        action="store_true",
        help="lowered kernels: print instructions by kind, shared wavefronts, global sectors",
    )
    parser.add_argument("--version", action=_VersionAction)
    return parser


def run_main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``llc-run`` console script."""
    args = run_arg_parser().parse_args(sys.argv[1:] if argv is None else list(argv))
    from llc.tools import run

    _run_tool("llc-run", lambda: run.run(args))


# ------------------------------------------------------------------------------ llc-opt
def _llc_names(kind: str) -> list[str]:
    from llc.dialects import universe

    return sorted(universe.PASSES if kind == "passes" else universe.TARGETS)


class _ListPassesAction(argparse.Action):
    """``--list-passes``: every pass name ``-p`` accepts (imports xDSL, so not in ``--help``)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help=kwargs.get("help"))

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> NoReturn:
        from llc.tools.opt import available_passes

        print("\n".join(sorted(available_passes())))
        parser.exit()


def _positive_int(text: str) -> int:
    """An argparse type: a power of two ``>= 1`` (warps and threads per warp)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 1 or value & (value - 1):
        raise argparse.ArgumentTypeError(f"must be a power of two, got {value}")
    return value


def _gpu_target(text: str) -> str:
    """An argparse type: a target of :func:`llc.targets.check_target` (``cuda:90``, ...)."""
    from llc.errors import LayoutError
    from llc.targets import check_target

    try:
        return check_target(text)
    except LayoutError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def opt_arg_parser() -> ArgumentParser:
    """The command line of ``llc-opt``: xdsl-opt's flags (xDSL 0.74), plus llc's.

    ``--help`` lists llc's own passes; ``--list-passes`` lists every pass, xDSL's too (they
    take xDSL's whole pass registry to enumerate, which ``--help`` must not wait for).

    >>> args = opt_arg_parser().parse_args(["k.mlir", "-p", "llc-strip-layouts", "--no-aliases"])
    >>> args.passes, args.target, args.no_aliases
    ('llc-strip-layouts', 'mlir', True)
    """
    llc_passes = ", ".join(_llc_names("passes")) or "none yet"
    targets = ", ".join([*OPT_TARGETS, *_llc_names("targets")])
    parser = ArgumentParser(
        prog="llc-opt",
        description="llc modular optimizer: parse, verify, transform and print tl IR",
    )
    parser.add_argument("input_file", nargs="?", help="path to input file ('-' or none: stdin)")
    parser.add_argument(
        "-f",
        "--frontend",
        choices=["mlir", "triton"],
        help="frontend for the input: mlir (llc's dialects) or triton (TTIR/TTGIR); default: "
        "triton for .ttgir/.ttir files and MLIR text with tt/ttg ops, else mlir",
    )
    parser.add_argument(
        "--num-warps",
        type=_positive_int,
        default=4,
        help='Triton input without "ttg.num-warps" (TTIR): warps per CTA (default 4)',
    )
    parser.add_argument(
        "--threads-per-warp",
        type=_positive_int,
        default=32,
        help='Triton input without "ttg.threads-per-warp": threads per warp (default 32)',
    )
    parser.add_argument(
        "--gpu-target",
        type=_gpu_target,
        default="cuda:90",
        help="Triton input without ttg.target: the GPU target (default cuda:90)",
    )
    parser.add_argument("--disable-verify", action="store_true")
    parser.add_argument(
        "--allow-unregistered-dialect",
        action="store_true",
        help="Allow the parsing of unregistered dialects.",
    )
    parser.add_argument(
        "--no-implicit-module",
        action="store_true",
        help="Disable implicit addition of a top-level module op during parsing.",
    )
    parser.add_argument(
        "-t",
        "--target",
        default="mlir",
        help=f"Target to use for output: {targets} (default mlir; the generic op form is "
        "--print-op-generic)",
    )
    parser.add_argument("-o", "--output-file", help="path to output file")
    parser.add_argument(
        "-p",
        "--passes",
        default="",
        help="Delimited list of passes, e.g. 'canonicalize,cse'. Available passes are: "
        f"{llc_passes} (llc's), and every xDSL pass (see --list-passes)",
    )
    parser.add_argument(
        "--list-passes", action=_ListPassesAction, help="print every available pass and exit"
    )
    parser.add_argument(
        "--print-between-passes", action="store_true", help="Print the IR between each pass"
    )
    parser.add_argument(
        "--time-passes", action="store_true", help="Print timing information for each pass"
    )
    parser.add_argument(
        "--verify-diagnostics",
        action="store_true",
        help="Print verification errors on stdout and go on with the next chunk (exit 0)",
    )
    parser.add_argument(
        "--parsing-diagnostics",
        action="store_true",
        help="Print parse errors (layout errors too) on stdout and go on (exit 0)",
    )
    parser.add_argument(
        "--split-input-file",
        action="store_true",
        help="Split the input file into pieces and process each chunk independently by "
        "using `// -----`",
    )
    parser.add_argument(
        "--print-op-generic", action="store_true", help="Print operations with the generic format"
    )
    parser.add_argument(
        "--print-no-properties",
        action="store_true",
        help="Print properties as if they were attributes for retrocompatibility.",
    )
    parser.add_argument(
        "--print-debuginfo",
        action="store_true",
        help="Print operations with debug info annotation, such as location.",
    )
    parser.add_argument(
        "--syntax-highlight",
        action="store_true",
        help="Enable printing with syntax highlighting on the terminal.",
    )
    parser.add_argument("-v", "--version", action=_VersionAction, with_xdsl=True)
    parser.add_argument(
        "--shrink",
        action="store_true",
        help="Return success on exit if ShrinkException was raised.",
    )
    parser.add_argument(
        "--layout-report",
        action="store_true",
        help="Before the IR, print per function the conversions left (cost, loop weight), the "
        "global accesses (width, sectors) and their weighted total under llc's cost model",
    )
    parser.add_argument(
        "--no-aliases",
        action="store_true",
        help="Print every layout inline instead of as #blocked/#mma/... aliases",
    )
    return parser


def opt_main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``llc-opt`` console script."""
    args = opt_arg_parser().parse_args(sys.argv[1:] if argv is None else list(argv))
    target = args.target.split("{", 1)[0].strip()
    supported = [*OPT_TARGETS, *_llc_names("targets")]
    if target not in supported:
        from llc.tools.opt import describe_unsupported_target

        _usage_error("llc-opt", describe_unsupported_target(target, supported))
    from llc.tools import opt

    _run_tool("llc-opt", lambda: opt.LLCOptMain(parsed=args).run())


def _run_tool(prog: str, body: Callable[[], object]) -> None:
    from llc.tools.diagnostics import run_cli

    run_cli(prog, body)
