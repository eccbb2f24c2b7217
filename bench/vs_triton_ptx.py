"""Data moved through shared memory and shuffles: Triton's PTX for llc's layouts vs its own.

For every kernel of ``bench/dump_triton.py`` (the fixtures in ``examples/triton/``) at sm_80 and
sm_90 (needs the ``bench`` extra, Triton 3.9; no GPU):

* **triton**: Triton's own TTGIR (the fixture ``<kernel>.sm<NN>.ttgir``);
* **llc**: the fixture's TTIR through ``llc-optimize-layouts`` (``-t ttgir``), with the kernel's
  warps and target.

Both are compiled by ``triton.compile`` from the TTGIR stage on, and their PTX is counted by
``bench/triton_ptx.py``'s ``ptx_counts`` (the counter of ``bench/ptx_counts.py``):
``ld.shared``/``st.shared`` and ``ldmatrix``/``stmatrix`` by bits per thread, ``shfl`` by width.
The table gives, per thread and per static instruction (a loop body counts once), the bytes
moved through shared memory and through shuffles; ``wgmma`` reads its shared operands itself
and is not counted (llc and Triton now stage the same operands for it). Also per kernel: the
``ttg.convert_layout`` ops each TTGIR leaves, and the static shared-memory + shuffle wavefront
bound (:func:`wavefront_bound`); "llc <= Triton" needs both the bytes and the bound at most
Triton's. A kernel llc cannot read yet is listed with the reason.

    python bench/vs_triton_ptx.py [--kernel NAME ...] [--arch 80 --arch 90] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

import triton
from triton.backends.compiler import GPUTarget

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dump_triton import ARCHS, DEFAULT_OUT, KERNELS
from triton_ptx import moved_bytes, ptx_counts, shared_wavefronts

from llc.dialects.ttgir import HardwareDefaults, parse_triton_module
from llc.passes.targets.ttgir import module_to_ttgir

_ACCESS_KEYS = ("st.shared", "ld.shared", "ldmatrix", "stmatrix", "shfl")


def llc_ttgir(ttir: str, name: str, arch: int, num_warps: int) -> str:
    """The fixture's TTIR through ``llc-optimize-layouts``, exported as TTGIR."""
    from llc.passes.layout_passes import OptimizeLayoutsPass
    from llc.tools.opt import LLCOptMain

    module = parse_triton_module(ttir, name, HardwareDefaults(num_warps, 32, f"cuda:{arch}"))
    OptimizeLayoutsPass().apply(LLCOptMain(["-"]).ctx, module)
    return module_to_ttgir(module)


def compile_counts(ttgir: str, arch: int, stem: str, keep: Path | None) -> dict[str, Any]:
    """``triton.compile`` of a TTGIR text: its PTX's counts, moved bytes and shared bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        path = (keep or Path(tmp)) / f"{stem}.ttgir"
        path.write_text(ttgir)
        compiled = triton.compile(str(path), target=GPUTarget("cuda", arch, 32))
        ptx = compiled.asm["ptx"]
        if keep is not None:
            (keep / f"{stem}.ptx").write_text(ptx)
    counts = ptx_counts(ptx)
    return {
        "counts": counts,
        "bytes": moved_bytes(counts),
        "wavefronts": wavefront_bound(counts),
        "conversions": ttgir.count("ttg.convert_layout "),
        "smem": int(compiled.metadata.shared),
        "wgmma": ptx.count("wgmma.mma_async"),
        "mma": ptx.count("mma.sync.aligned"),
    }


def wavefront_bound(counts: dict[str, int]) -> int:
    """The static shared-memory + shuffle wavefront bound per warp: ``shared_wavefronts`` of
    ``bench/triton_ptx.py`` (each access by its width, no conflicts) plus one per ``shfl``.

    >>> wavefront_bound({"st.shared.128": 2, "ldmatrix.128": 1, "shfl": 3, "shfl.32": 3})
    15
    """
    return shared_wavefronts(counts) + counts.get("shfl", 0)


def _widths(counts: dict[str, int]) -> str:
    parts = []
    for kind in _ACCESS_KEYS:
        for key in sorted(k for k in counts if k.startswith(kind + ".") and k[-1].isdigit()):
            parts.append(f"{key}={counts[key]}")
    return " ".join(parts) or "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernel", action="append", choices=sorted(KERNELS), help="only these")
    parser.add_argument("--arch", action="append", type=int, choices=ARCHS, help="only these")
    parser.add_argument("--keep", type=Path, help="keep every TTGIR/PTX in this folder")
    args = parser.parse_args(argv)
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
    print(f"triton {triton.__version__}; {platform.platform()}; python {platform.python_version()}")
    print(f"date: {time.strftime('%Y-%m-%dT%H:%M:%S%z')}\n")
    print(
        "| kernel | sm | llc smem B | llc shfl B | Triton smem B | Triton shfl B | llc <= Triton "
        "| conversions llc / Triton | wavefronts llc / Triton "
        "| llc accesses | Triton accesses | mma.sync/wgmma (llc, Triton) |"
    )
    print("|" + "---|" * 12)
    totals = {"llc": [0, 0], "triton": [0, 0]}
    above: list[str] = []
    more_conversions: list[str] = []
    unread: list[str] = []
    uncompiled: list[str] = []
    for name in args.kernel or KERNELS:
        warps = KERNELS[name][3]
        for arch in args.arch or ARCHS:
            stem = f"{name}.sm{arch}"
            ttir = (DEFAULT_OUT / f"{stem}.ttir").read_text()
            try:
                ours = llc_ttgir(ttir, f"{stem}.ttir", arch, warps)
            except Exception as err:  # a kernel llc cannot read is a row of the report
                lines = [line.strip() for line in str(err).splitlines() if line.strip()]
                reason = next((line for line in lines if "cannot" in line), lines[-1])
                unread.append(f"{stem}: {lines[0]}: {reason.split(' (supported')[0]}")
                continue
            try:
                llc_result = compile_counts(ours, arch, f"{stem}.llc", args.keep)
            except Exception as err:  # Triton rejects llc's TTGIR: a row of the report
                lines = [line for line in str(err).splitlines() if "error" in line] or ["?"]
                uncompiled.append(f"{stem}: {lines[0].strip()[:140]}")
                continue
            results = {
                "llc": llc_result,
                "triton": compile_counts(
                    (DEFAULT_OUT / f"{stem}.ttgir").read_text(), arch, f"{stem}.triton", args.keep
                ),
            }
            for way, r in results.items():
                totals[way][0] += r["bytes"]["shared"]
                totals[way][1] += r["bytes"]["shuffle"]
            llc, tri = results["llc"]["bytes"], results["triton"]["bytes"]
            wf = (results["llc"]["wavefronts"], results["triton"]["wavefronts"])
            cv = (results["llc"]["conversions"], results["triton"]["conversions"])
            ok = llc["shared"] + llc["shuffle"] <= tri["shared"] + tri["shuffle"] and wf[0] <= wf[1]
            if not ok:
                above.append(stem)
            if cv[0] > cv[1]:
                more_conversions.append(stem)
            print(
                f"| {name} | {arch} | {llc['shared']} | {llc['shuffle']} | {tri['shared']} | "
                f"{tri['shuffle']} | {'yes' if ok else '**no**'} | {cv[0]} / {cv[1]} | "
                f"{wf[0]} / {wf[1]} | "
                f"{_widths(results['llc']['counts'])} | {_widths(results['triton']['counts'])} | "
                f"{results['llc']['mma']}/{results['llc']['wgmma']}, "
                f"{results['triton']['mma']}/{results['triton']['wgmma']} |",
                flush=True,
            )
    print()
    for way in ("llc", "triton"):
        smem, shfl = totals[way]
        print(f"{way} total: {smem} B through shared memory, {shfl} B through shuffles")
    print(f"kernels where llc moves more than Triton: {', '.join(above) or 'none'}")
    print(f"kernels where llc leaves more conversions: {', '.join(more_conversions) or 'none'}")
    for line in unread:
        print(f"not read by llc: {line}")
    for line in uncompiled:
        print(f"llc's TTGIR not compiled by Triton: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
