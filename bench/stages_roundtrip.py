"""Round trip of Triton 3.9's final, software-pipelined TTGIR through llc.

For every kernel of ``bench/dump_triton.py`` at sm_80 and sm_90 compiled with ``num_stages=3``
(Triton's default: async copies, tokens, ``ttg.memdesc_subslice``), run
``llc-opt DUMP -t ttgir`` and ``llc-opt DUMP -p llc-remove-conversions -t ttgir`` and re-parse
each output with Triton's own parser (``ir.parse_mlir_module``, which verifies). Prints one
line per dump and the counts; exits 1 when any step fails.

    python bench/stages_roundtrip.py [--out DIR] [--kernel NAME]...
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import dump_triton
from triton._C.libtriton import ir

PIPELINES = (("-t", "ttgir"), ("-p", "llc-remove-conversions", "-t", "ttgir"))


def triton_parses(path: Path) -> str | None:
    """``None`` when Triton 3.9 parses (and verifies) ``path``, else its complaint."""
    context = ir.context()
    ir.load_dialects(context)
    try:
        ir.parse_mlir_module(str(path), context)
    except Exception as err:
        return str(err).strip().splitlines()[0][:160] if str(err).strip() else "parse failed"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(tempfile.mkdtemp(prefix="stages_")))
    parser.add_argument("--kernel", action="append", choices=sorted(dump_triton.KERNELS))
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    counts = {"dumps": 0, "pipelined": 0, **{" ".join(p): 0 for p in PIPELINES}}
    failed = 0
    for name in args.kernel or sorted(dump_triton.KERNELS):
        for arch in (80, 90):
            dump = args.out / f"{name}.sm{arch}.ttgir"
            dump.write_text(dump_triton.compile_kernel(name, arch, num_stages=3).asm["ttgir"])
            counts["dumps"] += 1
            counts["pipelined"] += "async_copy_global_to_local" in dump.read_text()
            for pipeline in PIPELINES:
                out = dump.with_suffix(f".{len(pipeline)}.out.ttgir")
                run = subprocess.run(
                    ["llc-opt", str(dump), *pipeline, "-o", str(out)],
                    capture_output=True,
                    text=True,
                    check=False,
                )
                why = (run.stderr.strip().splitlines() or ["?"])[0] if run.returncode else None
                why = why or triton_parses(out)
                counts[" ".join(pipeline)] += why is None
                failed += why is not None
                print(f"{name} sm{arch} {' '.join(pipeline)}: {'ok' if why is None else why}")
    print(counts)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
