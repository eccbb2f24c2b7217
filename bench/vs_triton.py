"""llc's layout pipeline against Triton's, on Triton's tutorial kernels (needs the ``bench`` extra).

For each kernel of ``bench/dump_triton.py`` and a few configurations, for sm_80 and sm_90:

1. Triton compiles the kernel; its TTIR goes two ways:
   * **triton**: Triton's own ``make_ttgir`` stage (convert-triton-to-tritongpu, coalesce,
     accelerate-matmul, remove-layout-conversions, ... as the nvidia backend runs them);
   * **llc**: llc imports the same TTIR (``llc.dialects.ttgir``), runs ``llc-optimize-layouts``
     and exports TTGIR (``-t ttgir``).
2. Compared: ``ttg.convert_layout`` ops left and their total cost under
   ``llc.cost.conversion_cost`` (issue cycles per warp, summed over the static ops; a
   conversion inside a loop counts once); the PTX Triton generates from each TTGIR
   (``triton.compile`` from the TTGIR stage on): ``ld.shared``/``st.shared`` by width,
   ``shfl.sync``, ``bar.sync``, ``ldmatrix``/``stmatrix``, shared-memory bytes; the time each
   layout pipeline takes (Triton's ``make_ttgir`` on a parsed module; llc's pass on an imported
   module; best of ``--repeat``).

    python bench/vs_triton.py                 # the table (markdown) on stdout
    python bench/vs_triton.py --keep DIR      # also keep every TTIR/TTGIR/PTX in DIR

Triton's TTGIR also stages dot operands through shared memory with ``ttg.local_alloc`` /
``ttg.local_load`` (not counted as conversions) where llc's TTGIR has a ``convert_layout`` to the
``dot_op`` layout; the PTX columns show what each costs after lowering.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

import triton
from triton._C.libtriton import ir
from triton.backends.compiler import GPUTarget
from triton.compiler.compiler import make_backend

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dump_triton import KERNELS, compile_kernel

from llc.cost import conversion_cost
from llc.dialects import tl
from llc.dialects.ttgir import HardwareDefaults, parse_triton_module
from llc.passes.targets.ttgir import module_to_ttgir

CONFIGS: list[tuple[str, dict[str, int], int]] = [
    ("vector_add", {"BLOCK": 1024}, 4),
    ("vector_add", {"BLOCK": 4096}, 8),
    ("softmax", {"BLOCK": 1024}, 4),
    ("softmax", {"BLOCK": 4096}, 8),
    ("matmul", {"BM": 64, "BN": 64, "BK": 32}, 4),
    ("matmul", {"BM": 128, "BN": 128, "BK": 64}, 8),
    ("layer_norm", {"BLOCK": 512}, 4),
    ("layer_norm", {"BLOCK": 2048}, 8),
    ("transpose", {"BM": 64, "BN": 64}, 4),
    ("transpose", {"BM": 32, "BN": 128}, 4),
    ("flash_attention", {"BM": 64, "BN": 64, "D": 64}, 4),
    ("flash_attention", {"BM": 128, "BN": 64, "D": 64}, 8),
]
ARCHS = (80, 90)

_PTX_PATTERNS = {
    "ld.global": re.compile(r"\bld\.global(?:\.[a-z_:]+)*?((?:\.v\d)?\.[bfsu]\d+)"),
    "st.global": re.compile(r"\bst\.global(?:\.[a-z_:]+)*?((?:\.v\d)?\.[bfsu]\d+)"),
    "ld.shared": re.compile(r"\bld\.shared(?:::cta)?((?:\.v\d)?\.[bfsu]\d+)"),
    "st.shared": re.compile(r"\bst\.shared(?:::cta)?((?:\.v\d)?\.[bfsu]\d+)"),
    "shfl": re.compile(r"\bshfl\.sync\b"),
    "bar.sync": re.compile(r"\b(?:bar\.sync|barrier\.sync)\b"),
    "ldmatrix": re.compile(r"\bldmatrix\b"),
    "mma.sync": re.compile(r"\bmma\.sync\b"),
    "wgmma": re.compile(r"\bwgmma\.mma_async\b"),
    "stmatrix": re.compile(r"\bstmatrix\b"),
}


@dataclass
class PathResult:
    """One way through the layout pipeline."""

    ttgir: str
    pipeline_s: float
    conversions: int
    cost: float
    ptx: dict[str, Any]


def _dtype(typ: Any) -> str:
    return str(tl.element_type_of(typ))


def conversions_and_cost(ttgir: str, name: str) -> tuple[int, float]:
    """``ttg.convert_layout`` ops of a TTGIR module and their summed llc cost."""
    module = parse_triton_module(ttgir, name)
    count, total = 0, 0.0
    for op in module.walk():
        if isinstance(op, tl.ConvertLayoutOp):
            count += 1
            src, dst = op.src.type, op.result.type
            shape = tl.shape_of(src)
            padded = [1 << max(0, (d - 1).bit_length()) for d in shape]
            src_layout = tl.layout_of(tl.encoding_of(src))
            dst_layout = tl.layout_of(tl.encoding_of(dst))
            total += conversion_cost(src_layout, dst_layout, padded, _dtype(src)).total
    return count, total


def ptx_counts(ptx: str, shared_bytes: int) -> dict[str, Any]:
    """Data-movement instruction counts of a PTX listing (``ld.shared`` by width, ...)."""
    counts: dict[str, Any] = {}
    for key, pattern in _PTX_PATTERNS.items():
        matches = pattern.findall(ptx)
        if key.startswith(("ld.", "st.")):
            counts[key] = dict(sorted(Counter(m.lstrip(".") for m in matches).items()))
        else:
            counts[key] = len(matches)
    counts["shared_bytes"] = shared_bytes
    return counts


def triton_layout_pipeline(ttir: str, arch: int, num_warps: int, repeat: int) -> tuple[str, float]:
    """Triton's ``make_ttgir`` stage on a parsed TTIR module: (TTGIR text, best time)."""
    backend = make_backend(GPUTarget("cuda", arch, 32))
    options = backend.parse_options({"num_warps": num_warps, "num_stages": 1})
    capability = backend._parse_arch(options.arch)  # what add_stages passes to make_ttgir
    best, text = float("inf"), ""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "k.ttir"
        path.write_text(ttir)
        for _ in range(repeat):
            context = ir.context()
            ir.load_dialects(context)
            backend.load_dialects(context)
            module = ir.parse_mlir_module(str(path), context)
            module.context = context  # as triton.compile does for IR files
            start = time.perf_counter()
            module = backend.make_ttgir(module, {}, options, capability)
            best = min(best, time.perf_counter() - start)
            text = str(module)
    return text, best


def llc_layout_pipeline(ttir: str, arch: int, num_warps: int, repeat: int) -> tuple[str, float]:
    """llc's ``llc-optimize-layouts`` on the imported TTIR: (TTGIR text, best time)."""
    from llc.passes.layout_passes import OptimizeLayoutsPass
    from llc.tools.opt import LLCOptMain

    ctx = LLCOptMain(["-"]).ctx
    defaults = HardwareDefaults(num_warps, 32, f"cuda:{arch}")
    best, text = float("inf"), ""
    for _ in range(repeat):
        module = parse_triton_module(ttir, "k.ttir", defaults)
        start = time.perf_counter()
        OptimizeLayoutsPass().apply(ctx, module)
        best = min(best, time.perf_counter() - start)
        text = module_to_ttgir(module)
    return text, best


def compile_ttgir(ttgir: str, arch: int, keep: Path | None, stem: str) -> dict[str, Any]:
    """PTX counts of ``triton.compile`` from the TTGIR stage on."""
    with tempfile.TemporaryDirectory() as tmp:
        path = (keep or Path(tmp)) / f"{stem}.ttgir"
        path.write_text(ttgir)
        compiled = triton.compile(str(path), target=GPUTarget("cuda", arch, 32))
        if keep is not None:
            (keep / f"{stem}.ptx").write_text(compiled.asm["ptx"])
        return ptx_counts(compiled.asm["ptx"], compiled.metadata.shared)


def run_config(
    kernel: str, consts: dict[str, int], warps: int, arch: int, repeat: int, keep: Path | None
) -> dict[str, PathResult]:
    compiled = compile_kernel(kernel, arch, consts, warps)
    ttir = compiled.asm["ttir"]
    stem = f"{kernel}_{'_'.join(str(v) for v in consts.values())}_w{warps}.sm{arch}"
    if keep is not None:
        (keep / f"{stem}.ttir").write_text(ttir)
    results = {}
    for way, pipeline in (("triton", triton_layout_pipeline), ("llc", llc_layout_pipeline)):
        ttgir, seconds = pipeline(ttir, arch, warps, repeat)
        count, cost = conversions_and_cost(ttgir, f"{stem}.{way}.ttgir")
        ptx = compile_ttgir(ttgir, arch, keep, f"{stem}.{way}")
        results[way] = PathResult(ttgir, seconds, count, cost, ptx)
    return results


def _fmt_widths(widths: dict[str, int]) -> str:
    return " ".join(f"{w}:{n}" for w, n in widths.items()) or "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="pipeline timings: best of N")
    parser.add_argument("--keep", type=Path, help="keep TTIR/TTGIR/PTX files in this folder")
    parser.add_argument("--kernel", action="append", help="only these kernels")
    args = parser.parse_args(argv)
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
    print(f"triton {triton.__version__}; {platform.platform()}; python {platform.python_version()}")
    print(f"date: {time.strftime('%Y-%m-%dT%H:%M:%S%z')}; cpus: {os.cpu_count()}\n")
    print(
        "| kernel | config | sm | way | cvt | cvt cost | ld.global | st.global | ld.shared | "
        "st.shared | shfl | bar | ldmatrix | stmatrix | mma.sync/wgmma | smem B | pipeline ms |"
    )
    print("|" + "---|" * 17)
    for kernel, consts, warps in CONFIGS:
        if args.kernel and kernel not in args.kernel:
            continue
        assert kernel in KERNELS
        config = ",".join(f"{k}={v}" for k, v in consts.items()) + f",w={warps}"
        for arch in ARCHS:
            results = run_config(kernel, consts, warps, arch, args.repeat, args.keep)
            for way, r in results.items():
                p = r.ptx
                print(
                    f"| {kernel} | {config} | {arch} | {way} | {r.conversions} | {r.cost:g} | "
                    f"{_fmt_widths(p['ld.global'])} | {_fmt_widths(p['st.global'])} | "
                    f"{_fmt_widths(p['ld.shared'])} | {_fmt_widths(p['st.shared'])} | "
                    f"{p['shfl']} | {p['bar.sync']} | {p['ldmatrix']} | {p['stmatrix']} | "
                    f"{p['mma.sync']}/{p['wgmma']} | "
                    f"{p['shared_bytes']} | {r.pipeline_s * 1e3:.1f} |",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
