"""llc against Triton 3.9 on Triton's own regression cases for RemoveLayoutConversions.

Give it the path of ``test/TritonGPU/combine.mlir`` from a Triton checkout (the repository holds
none of Triton's test text)::

    python bench/triton_regressions.py PATH/combine.mlir [--show NAME] [--json OUT]
        [--triton-cache FILE]

The file is split on ``// -----`` as ``triton-opt -split-input-file`` does. A *case* is a chunk
that Triton 3.9 parses (``ir.parse_mlir_module``) and that has laid-out tensors (``#ttg.``
layouts). Each case goes two ways:

* **triton**: Triton's ``remove-layout-conversions`` then ``cse`` (``passes.ttgpuir``,
  ``passes.common``, ``ir.pass_manager``), as the test's RUN line does;
* **llc**: ``llc-opt CASE -p llc-remove-conversions,cse -t ttgir`` (in process: the importer,
  the pass, CSE as Triton's side has it, the TTGIR printer).

The table gives, per case, whether llc reads it (else the first line of its error), the
``convert_layout`` ops each leaves and the whole-kernel figure of each output under llc's cost
model (``vs_triton_cases.module_cost``: weighted conversions, staged dot operands, accesses); the
totals compare them on the cases both read. ``--triton-cache FILE`` keeps Triton's outputs
between runs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
_CVT = re.compile(r"\bttg\.convert_layout\b")
_NAME = re.compile(r"tt\.func\s+(?:public\s+|private\s+)?@([\w$.]+)")


@dataclass
class Case:
    """One chunk of the test file and what each compiler left of it."""

    index: int
    names: str
    triton_cvt: int | None = None
    llc_cvt: int | None = None
    llc_error: str = ""
    input_cvt: int = 0
    triton_figure: float | None = None
    llc_figure: float | None = None
    """Whole-kernel figures of both outputs (:func:`vs_triton_cases.module_cost`: weighted
    conversions, staged dot operands and global accesses under llc's cost model)."""


def split_cases(text: str) -> list[str]:
    """The chunks of a ``-split-input-file`` test (the RUN line's comment chunk included).

    >>> split_cases("a\\n// -----\\nb\\n")
    ['a\\n', '\\nb\\n']
    """
    return re.split(r"^// -----.*$", text, flags=re.MULTILINE)


def count_conversions(ttgir: str) -> int:
    """``ttg.convert_layout`` ops in TTGIR text (comments ignored).

    >>> count_conversions("%1 = ttg.convert_layout %0 : a -> b\\n// ttg.convert_layout")
    1
    """
    return sum(len(_CVT.findall(line.split("//")[0])) for line in ttgir.splitlines())


def run_triton(text: str) -> str | None:
    """Triton's remove-layout-conversions + cse on ``text``; ``None`` if Triton cannot parse it."""
    from triton._C.libtriton import ir, passes

    with tempfile.NamedTemporaryFile("w", suffix=".ttgir", delete=False) as f:
        f.write(text)
        path = f.name
    context = ir.context()
    ir.load_dialects(context)
    try:
        from triton._C.libtriton import nvidia
        from triton.backends.nvidia.compiler import CUDABackend  # noqa: F401

        nvidia.load_dialects(context)
    except Exception:
        pass
    try:
        module = ir.parse_mlir_module(path, context)
    except Exception:
        return None
    finally:
        Path(path).unlink()
    module.context = context
    pm = ir.pass_manager(context)
    passes.ttgpuir.add_remove_layout_conversions(pm)
    passes.common.add_cse(pm)
    pm.run(module, "remove-layout-conversions")
    return str(module)


def run_triton_isolated(text: str) -> str | None:
    """:func:`run_triton` in a child process: Triton 3.9 aborts on an assertion on some of its
    own lit inputs (``dot-operands.mlir``), which would end the whole run. ``None`` when Triton
    cannot parse the chunk or dies on it (the chunk is then not a case)."""
    import subprocess

    child = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--triton-one"],
        input=text,
        capture_output=True,
        text=True,
        check=False,
    )
    if child.returncode != 0:
        if child.returncode != 3:
            last = (child.stderr.strip().splitlines() or ["?"])[-1]
            print(f"triton_regressions: Triton died on a chunk: {last[:160]}", file=sys.stderr)
        return None
    return child.stdout


def run_llc(text: str, name: str) -> str:
    """``llc-opt -p llc-remove-conversions,cse -t ttgir`` on ``text`` (raises on any error): the
    pass, then common-subexpression elimination as Triton's side gets (two loads of one pointer
    become one on both sides)."""
    from xdsl.context import Context
    from xdsl.transforms.common_subexpression_elimination import (
        CommonSubexpressionElimination,
    )

    from llc.dialects.ttgir import parse_triton_module
    from llc.passes.layout_passes import RemoveConversionsPass
    from llc.passes.targets.ttgir import module_to_ttgir

    module = parse_triton_module(text, name)
    module.verify()
    RemoveConversionsPass().apply(Context(), module)
    CommonSubexpressionElimination().apply(Context(), module)
    module.verify()  # a rewrite that breaks the IR counts as a failure, not as a result
    return module_to_ttgir(module)


def _figure(ttgir: str) -> float | None:
    from vs_triton_cases import module_cost

    try:
        return module_cost(ttgir)[2]
    except Exception:  # a type the text pricer does not read: no figure, the count stands
        return None


def measure(path: Path, cache: Path | None = None) -> list[Case]:
    """Every laid-out case of the file that Triton parses, run both ways. ``cache``: a JSON
    file keeping Triton's outputs by chunk text (Triton's answer does not change between runs)."""
    known: dict[str, str | None] = json.loads(cache.read_text()) if cache and cache.exists() else {}
    cases = []
    for i, chunk in enumerate(split_cases(path.read_text())):
        if "#ttg." not in chunk and "ttg.convert_layout" not in chunk:
            continue
        if chunk not in known:
            known[chunk] = run_triton_isolated(chunk)
        triton = known[chunk]
        if triton is None:
            continue
        case = Case(i, ",".join(_NAME.findall(chunk)) or f"chunk{i}")
        case.input_cvt = count_conversions(chunk)
        case.triton_cvt = count_conversions(triton)
        case.triton_figure = _figure(triton)
        try:
            out = run_llc(chunk, f"{path.name}#{i}")
            case.llc_cvt = count_conversions(out)
            case.llc_figure = _figure(out)
        except Exception as err:
            case.llc_error = str(err).strip().splitlines()[0][:120] if str(err) else repr(err)
        cases.append(case)
    if cache:
        cache.write_text(json.dumps(known))
    return cases


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:g}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "test_file", type=Path, nargs="?", help="Triton's test/TritonGPU/combine.mlir"
    )
    parser.add_argument("--json", type=Path, help="also write the cases as JSON")
    parser.add_argument("--show", help="print llc's and Triton's output for this function")
    parser.add_argument("--triton-cache", type=Path, help="JSON file caching Triton's outputs")
    parser.add_argument("--triton-one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.triton_one:  # the child of run_triton_isolated: one chunk on stdin
        out = run_triton(sys.stdin.read())
        if out is None:
            return 3
        sys.stdout.write(out)
        return 0
    if args.test_file is None:
        parser.error("the test file is required")
    if args.show:
        for chunk in split_cases(args.test_file.read_text()):
            if f"@{args.show}(" in chunk:
                print(run_triton(chunk))
                print(run_llc(chunk, args.show))
        return 0
    start = time.perf_counter()
    cases = measure(args.test_file, args.triton_cache)
    columns = "input cvt | triton cvt | llc cvt | triton figure | llc figure | llc error"
    print(f"| # | functions | {columns} |")
    print("|---|---|---|---|---|---|---|---|")
    for c in cases:
        llc = "-" if c.llc_cvt is None else str(c.llc_cvt)
        print(
            f"| {c.index} | {c.names[:60]} | {c.input_cvt} | {c.triton_cvt} | {llc} | "
            f"{_num(c.triton_figure)} | {_num(c.llc_figure)} | {c.llc_error} |"
        )
    read = [c for c in cases if c.llc_cvt is not None]
    assert all(c.triton_cvt is not None for c in read)
    llc_total = sum(c.llc_cvt for c in read)  # type: ignore[misc]
    triton_total = sum(c.triton_cvt for c in read)  # type: ignore[misc]
    fewer = sum(1 for c in read if c.llc_cvt < c.triton_cvt)  # type: ignore[operator]
    same = sum(1 for c in read if c.llc_cvt == c.triton_cvt)
    more = len(read) - fewer - same
    priced = [c for c in read if c.llc_figure is not None and c.triton_figure is not None]
    worse = [c.index for c in priced if c.llc_figure > c.triton_figure + 1e-6]  # type: ignore[operator]
    print(
        f"\nllc reads {len(read)} of {len(cases)} cases; on those it leaves {llc_total} "
        f"conversions where Triton leaves {triton_total} (fewer on {fewer}, the same on {same}, "
        f"more on {more}); figure: llc "
        f"{sum(c.llc_figure for c in priced):.1f}, Triton "  # type: ignore[misc]
        f"{sum(c.triton_figure for c in priced):.1f} on the {len(priced)} priced cases, "  # type: ignore[misc]
        f"llc above Triton on {len(worse)} {worse}; {time.perf_counter() - start:.1f} s"
    )
    if args.json:
        args.json.write_text(json.dumps([asdict(c) for c in cases], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
