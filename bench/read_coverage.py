"""How much of Triton's own IR llc reads: Triton's lit inputs, chunk by chunk.

Give it Triton's lit test files (or folders of them; the repository holds none of Triton's
test text)::

    python bench/read_coverage.py DIR_OR_FILE... [--cache FILE] [--json OUT]
        [--remove-conversions] [--show-failures]

Each file is split on ``// -----`` as ``triton-opt -split-input-file`` does, and its ``CHECK``
and ``RUN`` lines are dropped. A chunk counts when Triton 3.9 itself parses it
(``ir.parse_mlir_module`` in a context with Triton's, NVIDIA's and AMD's dialects loaded); for
each such chunk:

* **reads**: llc imports it (``llc.dialects.ttgir.parse_triton_module``, what ``llc-opt`` does
  for a Triton file) and the module verifies (``verify`` and ``tl.verify_module``, as
  ``llc-opt`` checks it);
* **round-trips**: ``-t ttgir`` prints it (``module_to_ttgir``) and Triton 3.9 parses that text;
* **rc** (with ``--remove-conversions``): ``llc-remove-conversions`` runs on it, the result
  verifies, and Triton parses its ``-t ttgir`` text.

The table gives these counts per file, then each distinct reason llc failed (the first line of
its error, numbers and names of values blanked so that one cause counts once) with how many
chunks it stopped. An error that is not one of llc's located errors (a Python exception from
inside llc) is listed as ``CRASH``: reading must never end in a traceback.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

_DIRECTIVE = re.compile(r"^\s*//\s*(?:CHECK|RUN|COM|[A-Z][A-Z0-9_-]*:)")
_SPLIT = re.compile(r"^// -----.*$", re.MULTILINE)


def split_chunks(text: str) -> list[str]:
    """The chunks of a ``-split-input-file`` test without its FileCheck and RUN lines; chunks
    holding no IR are left out.

    >>> split_chunks("// RUN: x\\n// CHECK: y\\ntt.func @f() {\\n  tt.return\\n}\\n// -----\\n\\n")
    ['tt.func @f() {\\n  tt.return\\n}\\n']
    """
    chunks = []
    for chunk in _SPLIT.split(text):
        kept = "".join(line for line in chunk.splitlines(True) if not _DIRECTIVE.match(line))
        if any(line.strip() and not line.strip().startswith("//") for line in kept.splitlines()):
            chunks.append(kept.lstrip("\n"))
    return chunks


_RENAMES = (
    ("#triton_gpu.shared<", "#ttg.swizzled_shared<"),
    ("!tt.memdesc<", "!ttg.memdesc<"),
    ("triton_nvidia_gpu.global_scratch_alloc", "ttg.global_scratch_alloc"),
    ("triton_nvidia_gpu.", "ttng."),
    ("triton_gpu.", "ttg."),
    ("tt.experimental_descriptor_", "tt.descriptor_"),
    ("unpacked = true>", "colStride = 1>"),
    ("unpacked = false>", "colStride = 1>"),
)


def modernize(text: str) -> str:
    """Older Triton's spellings as Triton 3.9 writes them (``--modernize``): the
    ``triton_gpu`` dialect became ``ttg``, ``!tt.memdesc`` became ``!ttg.memdesc`` and
    ``#triton_gpu.shared`` became ``#ttg.swizzled_shared``, ``tt.experimental_descriptor_load``
    (store, gather, scatter) became ``tt.descriptor_load`` and ``!tt.tensordesc<tensor<8x32xi8>>``
    became ``!tt.tensordesc<8x32xi8>``, and a CGA's ``CTAsPerCGA``/``CTASplitNum``/``CTAOrder``
    triple became its ``CGALayout`` bases. Whatever else changed since, Triton
    3.9's parser decides: a chunk it rejects is not counted.

    >>> modernize('%0 = triton_gpu.local_alloc : () -> !tt.memdesc<4xf32, #triton_gpu.shared<{')
    '%0 = ttg.local_alloc : () -> !ttg.memdesc<4xf32, #ttg.swizzled_shared<{'
    """
    for old, new in _RENAMES:
        text = text.replace(old, new)
    text = _CTA_TRIPLE.sub(_cga_bases, text)
    text = re.sub(r"(!tt\.tensordesc|, )<tensor<([^<>]*)>>", r"\1<\2>", text)
    return _OLD_CAST.sub(r"\1 \2 ->", text)


_OLD_CAST = re.compile(
    r"(tt\.(?:splat|broadcast|int_to_ptr|ptr_to_int|bitcast) %[\w#]+ :) \(([^()]+)\) ->"
)
"""Older Triton's ``tt.splat %x : (f32) -> tensor<...>``: 3.9 writes ``: f32 -> tensor<...>``."""


_CTA_TRIPLE = re.compile(
    r",\s*CTAsPerCGA = (\[[\d, ]*\]),\s*CTASplitNum = (\[[\d, ]*\]),\s*CTAOrder = (\[[\d, ]*\])"
)


def _cga_bases(match: re.Match[str]) -> str:
    """The ``CTAsPerCGA``/``CTASplitNum``/``CTAOrder`` triple as Triton 3.9's ``CGALayout``
    bases (nothing for one CTA)."""
    from llc.layouts import CTALayout

    cta = CTALayout(*(json.loads(match.group(i)) for i in (1, 2, 3)))
    return "" if cta.num_ctas == 1 else f", CGALayout = {cta.to_bases()}"


def reason_of(message: str) -> str:
    """The first line of an error with its file position, numbers and value names blanked,
    so that one cause counts once.

    >>> reason_of("k.mlir#3:12:5: error: llc cannot import the Triton op 'ttg.foo' (supported")
    "llc cannot import the Triton op 'ttg.foo'"
    >>> reason_of("k:1:3\\n  tt.foo\\n  ^^^^^^\\n  no op 'tt.foo'\\n")
    "no op 'tt.foo'"
    >>> reason_of("Expected 2 operands, got %arg3 of type tensor<64x32xf16>")
    'Expected N operands, got %V of type tensor<NxNxf16>'
    """
    lines = message.strip().splitlines() or [message]
    line = lines[0]
    for i, text in enumerate(lines[:-1]):  # xDSL: position, source line, caret, message
        if text.strip() and set(text.strip()) <= set("^~"):
            line = lines[i + 1].strip()
            break
    line = re.sub(r"^.*?:\d+:\d+: (?:error: )?", "", line)
    if "cannot import the Triton op" in line:
        return line.split(" (supported")[0]
    line = re.sub(r"%[\w#]+", "%V", line)
    line = re.sub(r"(?<!\w)\d+\b", "N", line)
    return re.sub(r"\b(?:\d+x)+", lambda m: "Nx" * m.group(0).count("x"), line)[:160]


class _TritonWorker:
    """Triton's parser in a child process: some invalid inputs abort Triton's process (an
    MLIR assertion), which must not end the measurement. A crash is a "no" and the next
    question starts a fresh child."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[str] | None = None

    def parses(self, text: str) -> bool:
        with tempfile.NamedTemporaryFile("w", suffix=".ttgir", delete=False) as f:
            f.write(text)
            path = f.name
        try:
            if self._proc is None or self._proc.poll() is not None:
                self._proc = subprocess.Popen(
                    [sys.executable, os.path.abspath(__file__), "--triton-worker"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    text=True,
                )
            assert self._proc.stdin is not None and self._proc.stdout is not None
            self._proc.stdin.write(path + "\n")
            self._proc.stdin.flush()
            answer = self._proc.stdout.readline().strip()
            if not answer:  # the child died on this input
                self._proc.wait()
                self._proc = None
            return answer == "1"
        except BrokenPipeError:
            self._proc = None
            return False
        finally:
            Path(path).unlink()


def _serve_triton() -> int:
    """The child of :class:`_TritonWorker`: one path a line in, ``1`` or ``0`` out."""
    from triton._C.libtriton import amd, ir, nvidia

    context = ir.context()
    ir.load_dialects(context)
    nvidia.load_dialects(context)
    amd.load_dialects(context)
    for line in sys.stdin:
        try:
            ir.parse_mlir_module(line.strip(), context)
            ok = True
        except Exception:
            ok = False
        print("1" if ok else "0", flush=True)
    return 0


_WORKER = _TritonWorker()


def triton_parses(text: str) -> bool:
    """Whether Triton 3.9's parser (``ir.parse_mlir_module``, with Triton's, NVIDIA's and AMD's
    dialects loaded) accepts ``text``."""
    return _WORKER.parses(text)


@dataclass
class Chunk:
    """One chunk and how far llc got with it."""

    file: str
    index: int
    names: str
    read: bool = False
    round_trip: bool = False
    rc: bool | None = None
    error: str = ""
    crash: bool = False


@dataclass
class FileRow:
    """Counts for one test file."""

    file: str
    chunks: int = 0
    triton: int = 0
    read: int = 0
    round_trip: int = 0
    rc: int = 0
    failures: list[Chunk] = field(default_factory=list)


def _llc_error(err: BaseException) -> tuple[str, bool]:
    """The message of ``err`` and whether it is a crash (not one of llc's located errors)."""
    from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException

    from llc.errors import LayoutError

    message = str(err) or repr(err)
    located = isinstance(err, ParseError | VerifyException | LayoutError | DiagnosticException)
    return (message if located else f"CRASH {type(err).__name__}: {message}"), not located


def run_chunk(chunk: Chunk, text: str, remove_conversions: bool, round_trip: bool = True) -> None:
    """Read ``text`` with llc, print it back as TTGIR (``round_trip``: and ask Triton to parse
    it) and (optionally) run ``llc-remove-conversions`` on it, recording the first failure in
    ``chunk``."""
    from xdsl.context import Context

    from llc.dialects.tl import verify_module
    from llc.dialects.ttgir import parse_triton_module
    from llc.passes.layout_passes import RemoveConversionsPass
    from llc.passes.targets.ttgir import module_to_ttgir

    stage = "read"
    try:
        module = parse_triton_module(text, f"{chunk.file}#{chunk.index}")
        module.verify()
        verify_module(module)  # the module-wide checks llc-opt makes (hardware, target)
        chunk.read = True
        stage = "-t ttgir"
        out = module_to_ttgir(module)
        if not round_trip:
            return
        if not triton_parses(out):
            chunk.error = "-t ttgir: Triton 3.9 does not parse llc's output"
            return
        chunk.round_trip = True
        if remove_conversions:
            chunk.rc = False
            stage = "llc-remove-conversions"
            RemoveConversionsPass().apply(Context(), module)
            module.verify()
            if not triton_parses(module_to_ttgir(module)):
                chunk.error = "llc-remove-conversions: Triton does not parse the output"
                return
            chunk.rc = True
    except Exception as err:  # every failure is counted; the table says which
        message, chunk.crash = _llc_error(err)
        chunk.error = message if stage == "read" else f"{stage}: {message}"


_NAME = re.compile(r"tt\.func\s+(?:public\s+|private\s+)?@([\w$.]+)")


def measure(
    files: list[Path],
    cache: Path | None = None,
    remove_conversions: bool = False,
    upgrade: bool = False,
    round_trip: bool = True,
) -> list[FileRow]:
    """One row per file. ``cache``: a JSON file keeping Triton's verdicts by chunk hash;
    ``upgrade``: read each file through :func:`modernize` first; ``round_trip=False`` reads
    and prints only (no Triton parse of llc's output: the ``round_trip`` column stays 0)."""
    known: dict[str, bool] = json.loads(cache.read_text()) if cache and cache.exists() else {}
    rows = []
    for path in files:
        row = FileRow(path.name)
        source = path.read_text()
        for i, text in enumerate(split_chunks(modernize(source) if upgrade else source)):
            row.chunks += 1
            key = hashlib.sha1(text.encode()).hexdigest()
            if key not in known:
                known[key] = triton_parses(text)
            if not known[key]:
                continue
            row.triton += 1
            chunk = Chunk(path.name, i, ",".join(_NAME.findall(text))[:80] or f"chunk{i}")
            run_chunk(chunk, text, remove_conversions, round_trip)
            row.read += chunk.read
            row.round_trip += chunk.round_trip
            row.rc += bool(chunk.rc)
            if chunk.error:
                row.failures.append(chunk)
        rows.append(row)
    if cache:
        cache.write_text(json.dumps(known))
    return rows


def _files(paths: list[Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        out.extend(sorted(p.glob("*.mlir")) if p.is_dir() else [p])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", type=Path, nargs="+", help="Triton lit files or folders")
    parser.add_argument("--cache", type=Path, help="JSON file caching Triton's verdicts")
    parser.add_argument("--json", type=Path, help="also write every failure as JSON")
    parser.add_argument(
        "--remove-conversions", action="store_true", help="also run llc-remove-conversions"
    )
    parser.add_argument(
        "--modernize", action="store_true", help="rename older Triton's dialect prefixes first"
    )
    parser.add_argument("--show-failures", action="store_true", help="list every failing chunk")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows = measure(_files(args.paths), args.cache, args.remove_conversions, args.modernize)
    rc = " rc |" if args.remove_conversions else ""
    print(f"| file | chunks | Triton parses | llc reads | llc round-trips |{rc}")
    print("|---|---|---|---|---|" + ("---|" if rc else ""))
    total = FileRow("**total**")
    for row in rows:
        extra = f" {row.rc} |" if rc else ""
        print(
            f"| {row.file} | {row.chunks} | {row.triton} | {row.read} | {row.round_trip} |{extra}"
        )
        for name in ("chunks", "triton", "read", "round_trip", "rc"):
            setattr(total, name, getattr(total, name) + getattr(row, name))
        total.failures += row.failures
    extra = f" **{total.rc}** |" if rc else ""
    print(
        f"| **total** | {total.chunks} | {total.triton} | **{total.read}** | "
        f"**{total.round_trip}** |{extra}"
    )
    reasons = Counter(reason_of(c.error) for c in total.failures)
    print(f"\n{len(reasons)} distinct failure reasons (chunks stopped):")
    for reason, n in reasons.most_common():
        print(f"- {n}: {reason}")
    if args.show_failures:
        for c in total.failures:
            print(f"{c.file}#{c.index} {c.names}: {reason_of(c.error)}")
    print(f"\n{time.perf_counter() - start:.1f} s")
    if args.json:
        args.json.write_text(json.dumps([asdict(c) for c in total.failures], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(_serve_triton() if sys.argv[1:] == ["--triton-worker"] else main())
