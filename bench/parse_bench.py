"""Parse / verify / print cost of ``tl`` IR, layouts inline in every type vs. aliases.

Generates one ``func.func`` with N elementwise ``arith`` ops (default 5,000) on
``tensor<64x64xf32, LAYOUT>`` values, cycling through six layouts (blocked x2, nvidia_mma,
dot_op of that mma, linear, and a slice of the first blocked on ``tensor<64xf32>``), in a
module for 4 warps of 32 threads, in two spellings of the same module:

* ``inline``: every type repeats ``#tl.<kind><{...}>`` (what xdsl-opt prints);
* ``aliases``: ``#blocked = #tl.blocked<{...}>`` once at the top, ``#blocked`` in types
  (what llc-opt prints).

and times, best of ``--repeat`` runs: parsing with xDSL's ``Parser`` and with llc's
``LLCParser`` (records file:line:col on each op), ``module.verify()``, printing with xDSL's
``Printer`` (inline layouts) and with ``LLCPrinter`` (aliases). ``--cli`` also times ``llc-opt``
end to end in a subprocess. One extra row parses the inline text with llc's layout-body parse
cache turned off (``layout_attrs.BODY_CACHE_ENABLED``), i.e. tokenising every layout.

    python bench/parse_bench.py                 # 5,000 ops, best of 3
    python bench/parse_bench.py --ops 20000 --repeat 5 --cli
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from io import StringIO

from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.parser import Parser
from xdsl.printer import Printer

from llc.dialects import layout_attrs
from llc.dialects.diagnostics import LLCParser
from llc.dialects.printer import LLCPrinter
from llc.dialects.universe import get_tl_dialect

MMA = (
    "#tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], "
    "instrShape = [16, 8]}>"
)
BLOCKED = (
    "#tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
    "order = [1, 0]}>"
)
LAYOUTS: list[tuple[str, str]] = [
    ("blocked", BLOCKED),
    (
        "blocked1",
        "#tl.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], "
        "order = [0, 1]}>",
    ),
    ("mma", MMA),
    ("dot_op", f"#tl.dot_op<{{opIdx = 0, parent = {MMA}, kWidth = 2}}>"),
    (
        "linear",
        "#tl.linear<{register = [[0, 1], [0, 2]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], "
        "[16, 0]], warp = [[0, 4], [0, 8]], block = []}>",
    ),
    ("slice", f"#tl.slice<{{dim = 1, parent = {BLOCKED}}}>"),
]
SHAPES = {"slice": "64"}
"""Tensor shape per layout (default ``64x64``)."""


def generate(num_ops: int, aliases: bool) -> str:
    """The benchmark module as text (``aliases`` picks the spelling of the layouts)."""
    if aliases:
        header = "".join(f"#{name} = {text}\n" for name, text in LAYOUTS)
        header = header.replace(f"parent = {MMA}", "parent = #mma")
        header = header.replace(f"parent = {BLOCKED}", "parent = #blocked")
        types = [f"tensor<{SHAPES.get(name, '64x64')}xf32, #{name}>" for name, _ in LAYOUTS]
    else:
        header = ""
        types = [f"tensor<{SHAPES.get(name, '64x64')}xf32, {text}>" for name, text in LAYOUTS]
    k = len(types)
    args = ", ".join(f"%a{j}: {types[j]}" for j in range(k))
    results = ", ".join(types)
    lines = [
        header
        + 'builtin.module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32,'
        + ' "tl.target" = "cuda:90"} {',
        f"  func.func @elementwise({args}) -> ({results}) {{",
    ]
    last = [f"%a{j}" for j in range(k)]
    for i in range(num_ops):
        j = i % k
        op = ("arith.addf", "arith.mulf", "arith.subf")[(i // k) % 3]
        lines.append(f"    %v{i} = {op} {last[j]}, %a{j} : {types[j]}")
        last[j] = f"%v{i}"
    lines.append(f"    func.return {', '.join(last)} : {results}")
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def make_context() -> Context:
    ctx = Context()
    for dialect in (Builtin, Func, Arith):
        ctx.load_dialect(dialect)
    ctx.load_dialect(get_tl_dialect())
    return ctx


def best_of(repeat: int, fn: Callable[[], object]) -> tuple[float, float]:
    """(min, median) wall seconds of ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def print_with(printer_cls: type[Printer], module: ModuleOp, **kwargs: object) -> str:
    stream = StringIO()
    printer_cls(stream=stream, **kwargs).print_op(module)  # type: ignore[arg-type]
    return stream.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--ops", type=int, default=5000, help="number of elementwise ops")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement (best is shown)")
    ap.add_argument("--cli", action="store_true", help="also time llc-opt end to end")
    args = ap.parse_args()

    ctx = make_context()
    texts = {"inline": generate(args.ops, False), "aliases": generate(args.ops, True)}
    modules = {
        name: LLCParser(make_context(), text, "bench.mlir").parse_module()
        for name, text in texts.items()
    }
    # Both spellings must denote the same IR.
    inline_text = print_with(Printer, modules["inline"])
    if inline_text != print_with(Printer, modules["aliases"]):
        sys.exit("bench: inline and alias modules differ")
    alias_text = print_with(LLCPrinter, modules["inline"])
    reparsed = Parser(make_context(), alias_text).parse_module()
    if not reparsed.is_structurally_equivalent(modules["inline"]):
        sys.exit("bench: alias-printed module does not re-parse to an equal module")

    rows: list[tuple[str, str, float, float]] = []
    for name, text in texts.items():
        rows.append(
            (
                name,
                "parse (xDSL Parser)",
                *best_of(args.repeat, lambda t=text: Parser(ctx, t).parse_module()),
            )
        )
        rows.append(
            (
                name,
                "parse (LLCParser)",
                *best_of(args.repeat, lambda t=text: LLCParser(ctx, t, "b.mlir").parse_module()),
            )
        )
    # The same inline text without llc's layout-body parse cache (every body tokenised).
    layout_attrs.BODY_CACHE_ENABLED = False
    try:
        rows.append(
            (
                "inline",
                "parse (LLCParser, no body cache)",
                *best_of(
                    args.repeat,
                    lambda: LLCParser(ctx, texts["inline"], "b.mlir").parse_module(),
                ),
            )
        )
    finally:
        layout_attrs.BODY_CACHE_ENABLED = True
    module = modules["inline"]
    rows.append(("-", "verify", *best_of(args.repeat, module.verify)))
    rows.append(
        (
            "inline",
            "print (xDSL Printer)",
            *best_of(args.repeat, lambda: print_with(Printer, module)),
        )
    )
    rows.append(
        (
            "aliases",
            "print (LLCPrinter)",
            *best_of(args.repeat, lambda: print_with(LLCPrinter, module)),
        )
    )
    rows.append(
        (
            "aliases",
            "print (LLCPrinter, aliased input)",
            *best_of(args.repeat, lambda: print_with(LLCPrinter, modules["aliases"])),
        )
    )

    if args.cli:
        with tempfile.TemporaryDirectory() as tmp:
            for name, text in texts.items():
                path = os.path.join(tmp, f"{name}.mlir")
                with open(path, "w") as f:
                    f.write(text)
                cmd = ["llc-opt", path, "-o", os.devnull]
                if name == "inline":
                    cmd.append("--no-aliases")
                rows.append(
                    (
                        name,
                        "llc-opt end to end",
                        *best_of(args.repeat, lambda c=cmd: subprocess.run(c, check=True)),
                    )
                )

    print(
        f"{args.ops} elementwise ops, {len(LAYOUTS)} layouts, "
        f"text: inline {len(texts['inline']) / 1e6:.2f} MB, "
        f"aliases {len(texts['aliases']) / 1e6:.2f} MB; "
        f"best (median) of {args.repeat}; Python {sys.version.split()[0]}"
    )
    print(f"| {'layouts':<8} | {'step':<34} | {'best s':>7} | {'median s':>8} | {'us/op':>6} |")
    print(f"|{'-' * 10}|{'-' * 36}|{'-' * 9}|{'-' * 10}|{'-' * 8}|")
    for layouts, step, best, median in rows:
        per_op = best / args.ops * 1e6
        print(f"| {layouts:<8} | {step:<34} | {best:7.3f} | {median:8.3f} | {per_op:6.1f} |")


if __name__ == "__main__":
    main()
