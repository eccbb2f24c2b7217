"""llc's conversion removal against Triton's on laid-out TTGIR cases (``bench/cases/*.ttgir``).

Each case is a small TTGIR module written for this bench (not taken from Triton's tests), one per
file, whose header names its category and records what Triton 3.9 leaves::

    // category: loop-args
    // A loop-carried accumulator converted for its store after the loop.
    // triton: conversions=1 cost=64.0

Each case goes two ways:

* **triton**: Triton 3.9's ``remove-layout-conversions`` then ``cse`` (its Python bindings, on
  the module as Triton parses it);
* **llc**: the case imported by :func:`llc.dialects.ttgir.parse_triton_module`, the llc pipeline
  (:data:`LLC_PIPELINE`, ``llc-remove-conversions,cse``: the pass that keeps every layout the
  input holds and removes conversions around them, as Triton's pass does on laid-out input),
  exported as TTGIR (``-t ttgir``); Triton parses and verifies the export, so llc's output is
  valid TTGIR.

Both results are measured by one function, :func:`module_cost`, on their TTGIR text: every
``ttg.convert_layout`` that changes the layout, and every register tensor staged through shared
memory (a ``ttg.local_alloc`` of a tensor read back by a ``ttg.local_load`` in another layout:
what llc writes for a conversion into a dot operand), priced by ``llc.cost.conversion_cost``
(through :func:`llc.passes.layout_cost.conversion_cost`, for the module's target) and weighted
by the trip counts of the loops around it: constant bounds give the trip count, other loops
(``scf.while`` included) count :data:`DEFAULT_TRIP_COUNT` times. The verdict is on the
whole-kernel figure: those conversions plus every global load and store at its access cost
(vector width, 32-byte sectors, loop weight; :func:`llc.passes.layout_report.layout_report`, what
``llc-opt --layout-report`` prints and the layout solver minimizes). A layout that leaves a
conversion to make a load or store cheaper is judged by what it saves in total.

    python bench/vs_triton_cases.py                   # the markdown table on stdout
    python bench/vs_triton_cases.py --check           # exit 1 if llc is above Triton on a case
    python bench/vs_triton_cases.py --record          # rewrite the "// triton:" lines, and
                                                      # keep Triton's outputs in cases/triton/
    python bench/vs_triton_cases.py --keep DIR        # keep both outputs of every case in DIR
    python bench/vs_triton_cases.py -k while          # only cases whose name contains "while"

A case llc cannot read (an op or spelling its importer rejects) shows ``-`` in llc's columns
and the error; ``--check`` fails on it too.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

CASES_DIR = Path(__file__).resolve().parent / "cases"
LLC_PIPELINE = "llc-optimize-layouts"
DEFAULT_TRIP_COUNT = 8
"""Iterations assumed for a loop whose trip count is not constant (``scf.while``, dynamic
``scf.for`` bounds)."""

_HEADER = re.compile(r"^//\s*(category|triton):\s*(.*)$")
_TRITON_FIGURES = re.compile(r"conversions=(\d+)\s+cost=([0-9.]+)")
_ALIAS = re.compile(r"^(#[\w$.-]+)\s*=\s*(.*)$")
_ALIAS_USE = re.compile(r"#([A-Za-z_][\w$-]*)(?![\w$.<-])")
_CONSTANT = re.compile(r"^\s*(%[\w$.-]+)\s*=\s*arith\.constant\s+(-?\d+)\s*:\s*(?:i\d+|index)\b")
_FOR = re.compile(r"\bscf\.for\s+%[\w$.-]+\s*=\s*(\S+)\s+to\s+(\S+)\s+step\s+(\S+)")
_CONVERT = re.compile(r"ttg\.convert_layout\s+%[\w$.#-]+\s*:\s*(.+?)\s*->\s*(.+)$")
_ALLOC = re.compile(r"^\s*(%[\w$.-]+)\s*=\s*ttg\.local_alloc\s+%[\w$.#-]+\s*:\s*\((.+?)\)\s*->")
_LOAD = re.compile(r"ttg\.local_load\s+(%[\w$.#-]+)(?:\s+token\s+\S+)?\s*:\s*.+?\s*->\s*(.+)$")
_ACCESS = re.compile(r"\btt\.(load|store)\s+%.*:\s*(tensor<.+>)\s*$")
_LOC = re.compile(r"\s*loc\((?:[^()]|\([^()]*\))*\)\s*$")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


@dataclass(frozen=True)
class Case:
    """One case file."""

    name: str
    path: Path
    category: str
    text: str
    triton_conversions: int | None
    """What Triton 3.9 leaves (the ``// triton:`` header), ``None`` before ``--record``."""
    triton_cost: float | None


@dataclass(frozen=True)
class Conversion:
    """One layout change left in a module."""

    line: int
    src: str
    """The source tensor type, aliases expanded."""
    dst: str
    weight: float
    """Product of the trip counts of the enclosing loops."""
    cost: float
    """``conversion_cost`` times ``weight``."""


def load_cases(directory: Path = CASES_DIR) -> list[Case]:
    """Every ``*.ttgir`` case of ``directory``, by file name.

    >>> cases = load_cases()
    >>> len(cases) >= 60 and all(case.category for case in cases)
    True
    """
    cases = []
    for path in sorted(directory.glob("*.ttgir")):
        text = path.read_text()
        header: dict[str, str] = {}
        for line in text.splitlines():
            if not line.startswith("//"):
                break
            if match := _HEADER.match(line):
                header[match[1]] = match[2].strip()
        figures = _TRITON_FIGURES.search(header.get("triton", ""))
        cases.append(
            Case(
                name=path.stem,
                path=path,
                category=header.get("category", ""),
                text=text,
                triton_conversions=int(figures[1]) if figures else None,
                triton_cost=float(figures[2]) if figures else None,
            )
        )
    return cases


def _expand_aliases(text: str, aliases: dict[str, str]) -> str:
    for _ in range(8):  # aliases refer to aliases (a slice's parent, a dot_op's mma)
        expanded = _ALIAS_USE.sub(lambda m: aliases.get("#" + m[1], m[0]), text)
        if expanded == text:
            break
        text = expanded
    return text


def _trip_count(match: re.Match[str], constants: dict[str, int]) -> float:
    lower, upper, step = (constants.get(match[i].rstrip(",")) for i in (1, 2, 3))
    if lower is None or upper is None or not step:
        return float(DEFAULT_TRIP_COUNT)
    return float(max(0, math.ceil((upper - lower) / step)))


@cache
def _parse_tensor_type(text: str) -> Any:
    from xdsl.parser import Parser

    from llc.dialects.ttgir import TritonContext

    return Parser(TritonContext(), text).parse_type()


def _price(src: str, dst: str, capability: int) -> float:
    from llc.dialects.tl import encoding_of, shape_of
    from llc.passes.layout_assignment import element_bits
    from llc.passes.layout_cost import conversion_cost

    src_type, dst_type = _parse_tensor_type(src), _parse_tensor_type(dst)
    src_enc, dst_enc = encoding_of(src_type), encoding_of(dst_type)
    if src_enc is None or dst_enc is None:
        return 0.0
    return conversion_cost(src_enc, dst_enc, shape_of(src_type), element_bits(src_type), capability)


def conversions_of(text: str) -> list[Conversion]:
    r"""The layout changes left in a TTGIR module's text, priced and weighted by loop trips.

    The text is read line by line, as Triton and ``-t ttgir`` print it (one op per line), so it
    works on modules llc cannot import: Triton's outputs of every case are measured the same way.

    >>> blocked = "#ttg.blocked<{sizePerThread = [%d], threadsPerWarp = [32], warpsPerCTA = [4], "
    >>> aliases = f"#a = {blocked % 1}order = [0]}}>\n#b = {blocked % 4}order = [0]}}>\n"
    >>> module = aliases + '''
    ... module attributes {ttg.target = "cuda:80"} {
    ...   tt.func @f(%x: tensor<512xf32, #a>) {
    ...     %c0 = arith.constant 0 : i32
    ...     %c4 = arith.constant 4 : i32
    ...     %c1 = arith.constant 1 : i32
    ...     %y = ttg.convert_layout %x : tensor<512xf32, #a> -> tensor<512xf32, #b>
    ...     scf.for %i = %c0 to %c4 step %c1 : i32 {
    ...       %z = ttg.convert_layout %x : tensor<512xf32, #a> -> tensor<512xf32, #b>
    ...     }
    ...     tt.return
    ...   }
    ... }'''
    >>> outside, inside = conversions_of(module)
    >>> inside.weight, inside.cost == 4 * outside.cost > 0
    (4.0, True)
    """
    aliases: dict[str, str] = {}
    target = re.search(r'ttg\.target\s*=\s*"cuda:(\d+)"', text)
    capability = int(target[1]) if target else 90
    constants: dict[str, int] = {}
    weights: list[float] = []
    staged: dict[str, str] = {}
    found: list[Conversion] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw.lstrip().startswith("//"):
            continue
        line = _LOC.sub("", raw)
        if alias := _ALIAS.match(line):
            if not alias[2].startswith("loc("):
                aliases[alias[1]] = alias[2].strip()
            continue
        if "tt.func" in line:
            constants = {}
        if const := _CONSTANT.match(line):
            constants[const[1]] = int(const[2])
        weight = math.prod(weights)
        pair: tuple[str, str] | None = None
        if convert := _CONVERT.search(line):
            pair = (convert[1], convert[2])
        elif alloc := _ALLOC.match(line):
            staged[alloc[1]] = alloc[2]
        elif (load := _LOAD.search(line)) and load[1] in staged:
            pair = (staged[load[1]], load[2])
        if pair is not None:
            src, dst = (_expand_aliases(t.strip(), aliases) for t in pair)
            if src != dst:
                price = _price(src, dst, capability)
                found.append(Conversion(number, src, dst, weight, price * weight))
        bare = _STRING.sub('""', line)
        net = bare.count("{") - bare.count("}")
        for _ in range(-net):
            if weights:
                weights.pop()
        for _ in range(net):
            loop = _FOR.search(bare)
            if loop:
                weights.append(_trip_count(loop, constants))
            elif "scf.while" in bare:
                weights.append(float(DEFAULT_TRIP_COUNT))
            else:
                weights.append(1.0)
    return found


def access_layouts(text: str) -> Counter[tuple[str, tuple[int, ...], str]]:
    """The global tensor loads and stores of a TTGIR module's text: (``load``/``store``, shape,
    linear layout of the pointer tensor), counted. Two modules whose accesses agree touch memory
    the same way, whatever their layouts are called.

    >>> blocked = "#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], "
    >>> module = f"#a = {blocked}order = [0]}}>" + '''
    ... module {
    ...   tt.func @f(%p: tensor<512x!tt.ptr<f32>, #a>) {
    ...     %v = tt.load %p : tensor<512x!tt.ptr<f32>, #a>
    ...     tt.return
    ...   }
    ... }'''
    >>> [(kind, shape) for kind, shape, _ in access_layouts(module)]
    [('load', (512,))]
    """
    from llc.dialects.tl import encoding_of, shape_of
    from llc.layouts.common import padded_shape

    aliases: dict[str, str] = {}
    found: Counter[tuple[str, tuple[int, ...], str]] = Counter()
    for raw in text.splitlines():
        line = _LOC.sub("", raw)
        if alias := _ALIAS.match(line):
            aliases[alias[1]] = alias[2].strip()
        elif access := _ACCESS.search(line):
            typ = _parse_tensor_type(_expand_aliases(access[2], aliases))
            shape = tuple(shape_of(typ))
            linear = encoding_of(typ).to_linear_layout(padded_shape(shape))  # type: ignore[union-attr]
            found[(access[1], shape, str(linear))] += 1
    return found


def access_cost(text: str) -> float:
    """The loop-weighted cost of a TTGIR module's global loads and stores and of its reductions
    (the accesses and reductions of :func:`llc.passes.layout_report.layout_report`).

    >>> access_cost('module { tt.func @f() { tt.return } }')
    0.0
    """
    from llc.dialects.ttgir import parse_triton_module
    from llc.passes.layout_report import layout_report

    module = parse_triton_module(text, "cost.ttgir")
    reports = layout_report(module)
    return round(float(sum(r.access_total + r.reduction_total for r in reports)), 1)


def module_cost(text: str) -> tuple[int, float, float]:
    """(layout changes left, their loop-weighted modeled cost, the whole-kernel figure: that cost
    plus :func:`access_cost`) of a TTGIR module's text.

    >>> module_cost('module { tt.func @f() { tt.return } }')
    (0, 0.0, 0.0)
    """
    conversions = conversions_of(text)
    cost = round(float(sum(c.cost for c in conversions)), 1)
    return len(conversions), cost, round(cost + access_cost(text), 1)


@cache
def _llc_context() -> Any:
    from llc.tools.opt import LLCOptMain

    return LLCOptMain(["-"]).ctx


class LLCFailure(Exception):
    """llc could not read a case (``stage`` "read"), its pipeline failed ("pass"), or the export
    failed ("export")."""

    def __init__(self, stage: str, message: str) -> None:
        super().__init__(f"{stage}: {message}")
        self.stage = stage


def _first_line(error: BaseException) -> str:
    """A located parse error's location and message; otherwise its first line."""
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    if not lines:
        return type(error).__name__
    message = lines[-1] if re.match(r"^\S+:\d+:\d+$", lines[0]) else lines[0]
    if message is not lines[0]:
        message = f"{lines[0]}: {message}"
    return message.split(" (supported:")[0][:200]


def run_llc(case: Case, pipeline: str = LLC_PIPELINE) -> str:
    """llc's pipeline on a case: the exported TTGIR text. Raises :class:`LLCFailure`.

    >>> case = next(c for c in load_cases() if c.name.startswith("basic_elementwise"))
    >>> module_cost(run_llc(case))[0] <= case.triton_conversions
    True
    """
    from xdsl.passes import PassPipeline

    from llc.dialects.ttgir import parse_triton_module
    from llc.passes.targets.ttgir import module_to_ttgir
    from llc.tools.opt import available_passes

    try:
        module = parse_triton_module(case.text, case.path.name)
        module.verify()
    except Exception as error:
        raise LLCFailure("read", _first_line(error)) from error
    try:
        PassPipeline.parse_spec(available_passes(), pipeline).apply(_llc_context(), module)
        module.verify()
    except Exception as error:
        raise LLCFailure("pass", f"{type(error).__name__}: {_first_line(error)}") from error
    try:
        return module_to_ttgir(module)
    except Exception as error:
        raise LLCFailure("export", _first_line(error)) from error


def _triton_context() -> Any:
    from triton._C.libtriton import ir, nvidia

    context = ir.context()
    ir.load_dialects(context)
    nvidia.load_dialects(context)
    return context


def _triton_parse(text: str, context: Any) -> Any:
    from triton._C.libtriton import ir

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "case.ttgir"
        path.write_text(text)
        module = ir.parse_mlir_module(str(path), context)
    module.context = context
    return module


def run_triton(case: Case) -> str:
    """Triton 3.9's ``remove-layout-conversions`` + ``cse`` on a case: the TTGIR text."""
    from triton._C.libtriton import ir, passes

    context = _triton_context()
    module = _triton_parse(case.text, context)
    manager = ir.pass_manager(context)
    passes.ttgpuir.add_remove_layout_conversions(manager)
    passes.common.add_cse(manager)
    manager.run(module, "remove-layout-conversions")
    return module.str_nodebug() if hasattr(module, "str_nodebug") else str(module)


def triton_verifies(text: str) -> str | None:
    """``None`` when Triton parses and verifies ``text``, else its first diagnostic."""
    with tempfile.TemporaryFile(mode="w+") as log:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(log.fileno(), 2)  # MLIR prints its diagnostics on the C++ side's stderr
        try:
            module = _triton_parse(text, _triton_context())
            complaint = None if module.verify() else "the verifier rejects the module"
        except Exception as error:
            complaint = str(error).strip().splitlines()[0]
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        log.seek(0)
        diagnostics = [line for line in log.read().splitlines() if "error:" in line]
    if complaint is None:
        return None
    return (diagnostics[0].split("error:", 1)[1].strip() if diagnostics else complaint)[:200]


@dataclass
class Row:
    """One case's figures."""

    case: Case
    triton: tuple[int, float, float]
    llc: tuple[int, float, float] | None
    """``None`` when llc failed on the case (:attr:`note` says where)."""
    note: str = ""
    invalid: bool = False
    """Triton rejects llc's output."""
    triton_text: str = ""
    moved_accesses: int = 0
    """llc's global loads/stores whose layout none of Triton's has (priced in the total)."""

    @property
    def above(self) -> bool:
        """llc fails, writes invalid TTGIR, or its whole-kernel figure is above Triton's."""
        if self.llc is None or self.invalid:
            return True
        return self.llc[2] > self.triton[2] + 1e-6

    @property
    def below(self) -> bool:
        """llc's whole-kernel figure is below Triton's, or equal with fewer conversions."""
        if self.above or self.llc is None:
            return False
        return self.llc[2] < self.triton[2] - 1e-6 or self.llc[0] < self.triton[0]

    @property
    def verdict(self) -> str:
        if self.llc is None:
            return "llc fails"
        if self.invalid:
            return "**invalid TTGIR**"
        return "**above**" if self.above else "below" if self.below else ""


def measure(case: Case, keep: Path | None = None, pipeline: str = LLC_PIPELINE) -> Row:
    """Both ways through one case."""
    triton_text = run_triton(case)
    triton = module_cost(triton_text)
    if keep is not None:
        (keep / f"{case.name}.triton.ttgir").write_text(triton_text)
    try:
        llc_text = run_llc(case, pipeline)
    except LLCFailure as failure:
        return Row(case, triton, None, str(failure), triton_text=triton_text)
    if keep is not None:
        (keep / f"{case.name}.llc.ttgir").write_text(llc_text)
    complaint = triton_verifies(llc_text)
    notes = [f"Triton: {complaint}"] if complaint else []
    moved = sum((access_layouts(llc_text) - access_layouts(triton_text)).values())
    if moved:
        notes.append(f"{moved} memory access(es) in a layout Triton's output does not use")
    row = Row(
        case,
        triton,
        module_cost(llc_text),
        "; ".join(notes),
        invalid=complaint is not None,
        triton_text=triton_text,
    )
    row.moved_accesses = moved
    return row


def triton_output_path(case: Case) -> Path:
    """Where ``--record`` keeps Triton's output for a case (``bench/cases/triton/NAME.ttgir``)."""
    return case.path.parent / "triton" / case.path.name


def record(case: Case, figures: tuple[int, float], triton_text: str) -> None:
    """Write Triton's figures into the case's ``// triton:`` header line and keep Triton's output
    beside it, so that a test without Triton can price it with the cost model of the day."""
    line = f"// triton: conversions={figures[0]} cost={figures[1]}"
    lines = case.text.splitlines()
    for index, old in enumerate(lines):
        if not old.startswith("//"):
            lines.insert(index, line)
            break
        if old.startswith("// triton:"):
            lines[index] = line
            break
    case.path.write_text("\n".join(lines) + "\n")
    stored = triton_output_path(case)
    stored.parent.mkdir(exist_ok=True)
    stored.write_text(triton_text)


def table(rows: Sequence[Row]) -> str:
    """The markdown table, one row per case and a total line."""
    out = [
        "| case | category | conversions Triton | conversions llc | conversion cost Triton "
        "| conversion cost llc | total Triton | total llc | |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        llc_n = str(row.llc[0]) if row.llc else "-"
        llc_c = f"{row.llc[1]:.1f}" if row.llc else "-"
        llc_t = f"{row.llc[2]:.1f}" if row.llc else "-"
        note = f"{row.verdict} {row.note}".strip().replace("|", "\\|")
        out.append(
            f"| {row.case.name} | {row.case.category} | {row.triton[0]} | {llc_n} "
            f"| {row.triton[1]:.1f} | {llc_c} | {row.triton[2]:.1f} | {llc_t} | {note} |"
        )
    read = [row for row in rows if row.llc is not None and not row.invalid]
    out.append(
        f"| **total ({len(read)}/{len(rows)} where llc gives valid TTGIR)** | | "
        f"{sum(r.triton[0] for r in read)} | {sum(r.llc[0] for r in read if r.llc)} "
        f"| {sum(r.triton[1] for r in read):.1f} | {sum(r.llc[1] for r in read if r.llc):.1f} "
        f"| {sum(r.triton[2] for r in read):.1f} | {sum(r.llc[2] for r in read if r.llc):.1f} "
        f"| all cases, Triton: {sum(r.triton[0] for r in rows)} conversions, "
        f"{sum(r.triton[1] for r in rows):.1f} conversion cost |"
    )
    above = sum(1 for r in read if r.above)
    below = sum(1 for r in read if r.below)
    failed = sum(1 for r in rows if r.llc is None)
    invalid = sum(1 for r in rows if r.invalid)
    out.append("")
    out.append(
        f"{len(rows)} cases: llc fails on {failed}, writes TTGIR that Triton rejects on {invalid}; "
        f"on the other {len(read)} its whole-kernel figure is above Triton's on {above}, "
        f"below on {below}, equal on {len(read) - above - below}."
    )
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if llc is above Triton")
    parser.add_argument("--record", action="store_true", help="write Triton's figures to headers")
    parser.add_argument("--keep", type=Path, help="keep every output in this folder")
    parser.add_argument("-k", dest="filter", default="", help="only cases whose name has this")
    parser.add_argument("--pipeline", default=LLC_PIPELINE, help="llc's pass pipeline")
    args = parser.parse_args(argv)
    try:
        import triton  # noqa: F401
    except ImportError:
        print("vs_triton_cases: needs Triton 3.9 (pip install triton==3.9.0)", file=sys.stderr)
        return 1
    from xdsl.passes import PassPipeline

    from llc.tools.opt import available_passes

    try:
        PassPipeline.parse_spec(available_passes(), args.pipeline)
    except ValueError as error:
        print(f"vs_triton_cases: --pipeline {args.pipeline!r}: {error}", file=sys.stderr)
        return 1
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
    rows = []
    for case in load_cases():
        if args.filter not in case.name:
            continue
        try:
            row = measure(case, args.keep, args.pipeline)
        except RuntimeError as error:  # Triton cannot parse the case itself
            print(f"vs_triton_cases: {case.path}: Triton: {error}", file=sys.stderr)
            return 1
        if args.record:
            record(case, row.triton, row.triton_text)
        rows.append(row)
    print(f"llc pipeline: {args.pipeline}\n")
    print(table(rows))
    if args.check and any(row.above for row in rows):
        bad = ", ".join(row.case.name for row in rows if row.above)
        print(f"llc is above Triton (or cannot read) on: {bad}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
