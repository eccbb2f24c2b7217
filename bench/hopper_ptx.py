"""Static PTX of llc's own Hopper back end against Triton 3.9's, for the same kernels at sm_90.

For the dot kernels of ``bench/dump_triton.py`` (fixtures in ``examples/triton/``):

* **llc**: the fixture's TTIR through ``llc-compile`` (layouts, mma v3 on ``tl.warp_group_dot``,
  wgmma lowering) and llc's PTX emitter (``-t ptx``), which ptxas (when found) assembles for
  ``sm_90a``: the "ptxas" column is its output, "clean" when empty;
* **Triton**: Triton's own TTGIR fixture through ``triton.compile`` (CPU wheel, no GPU).

Columns, all static (a loop body counts once) and per kernel: ``wgmma.mma_async`` instructions
(and ``mma.sync``), shared memory in bytes (llc: its buffers, static or dynamic; Triton:
``metadata.shared``), ``bar.sync``/``barrier.sync`` instructions, in all and in the pipelined
loop (the loop whose body waits for ``cp.async`` groups: what every K step executes), and the
bytes per CTA of the ``cp.async`` copies (``Σ size x threads``; the prologue issues
``num_stages - 1`` tiles ahead, so this is what the pipeline keeps in flight plus the loop's
own copy). llc peels the last ``num_stages - 1`` iterations, so its static wgmma and barrier
counts hold the loop body three times at 3 stages; the loop column compares like with like.

    python bench/hopper_ptx.py [--kernel NAME ...] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dump_triton import DEFAULT_OUT, KERNELS

from llc.testing.triton_fixtures import hinted

DOT_KERNELS = (
    "matmul",
    "matmul_epilogue",
    "flash_attention",
    "flash_attention_w8",
    "matmul_i8_f16",
    "matmul_tf32",
    "matmul_fp8",
)
_CP_ASYNC = re.compile(
    r"\bcp\.async\.c[ag]\.shared\.global(?:\.[\w:]+)*\s+\[[^\]]*\],\s*\[[^\]]*\],\s*(0x[0-9a-f]+|\d+)"
)
_BARRIER = re.compile(r"\b(?:bar|barrier)\.sync\b")


def static_counts(ptx: str, threads: int) -> dict[str, int]:
    """wgmma, mma.sync, barriers and cp.async bytes per CTA of a PTX text (static counts).

    >>> static_counts("cp.async.cg.shared.global [%r1], [%rd2], 16;\\nbar.sync 0;", 128)
    {'wgmma': 0, 'mma': 0, 'barriers': 1, 'loop_barriers': 0, 'cp_async_bytes': 2048}
    """
    return {
        "wgmma": ptx.count("wgmma.mma_async"),
        "mma": ptx.count("mma.sync.aligned"),
        "barriers": len(_BARRIER.findall(ptx)),
        "loop_barriers": len(_BARRIER.findall(pipelined_loop(ptx))),
        "cp_async_bytes": sum(int(n, 0) for n in _CP_ASYNC.findall(ptx)) * threads,
    }


def pipelined_loop(ptx: str) -> str:
    r"""The text of the first loop (a label and the last branch back to it) whose body waits for
    ``cp.async`` groups; empty when there is none.

    >>> pipelined_loop("$L1:\ncp.async.wait_group 1;\nbar.sync 0;\n@%p bra $L1;\nret;")
    '$L1:\ncp.async.wait_group 1;\nbar.sync 0;\n@%p bra $L1;'
    """
    lines = ptx.splitlines()
    for i, line in enumerate(lines):
        label = re.match(r"\s*(\$\w+):", line)
        if label is None:
            continue
        back = re.compile(r"\bbra(?:\.uni)?\s+" + re.escape(label.group(1)) + r"\s*;")
        ends = [j for j in range(i + 1, len(lines)) if back.search(lines[j])]
        if ends and any("cp.async.wait_group" in x for x in lines[i : ends[-1]]):
            return "\n".join(lines[i : ends[-1] + 1])
    return ""


def llc_figures(name: str, warps: int, keep: Path | None, hints: bool) -> dict[str, Any]:
    """The fixture's TTIR (with :func:`hinted`'s hints) through ``llc-compile`` and llc's PTX
    emitter."""
    from llc.dialects.ttgir import HardwareDefaults, parse_triton_module
    from llc.passes.compile import CompilePass
    from llc.passes.targets.ptx import emit_ptx, shared_bytes
    from llc.testing.ptxas import assemble, find_ptxas
    from llc.tools.opt import LLCOptMain

    ttir = (DEFAULT_OUT / f"{name}.sm90.ttir").read_text()
    if hints:
        ttir = hinted(ttir)
    module = parse_triton_module(ttir, f"{name}.sm90.ttir", HardwareDefaults(warps, 32, "cuda:90"))
    CompilePass().apply(LLCOptMain(["-"]).ctx, module)
    ptx = emit_ptx(module)
    if keep is not None:
        (keep / f"{name}.sm90.llc.ptx").write_text(ptx)
    entry = re.search(r"\.visible \.entry (\w+)\(", ptx)
    static = sum(int(n) for n in re.findall(r"\.shared \.align \d+ \.b8 \w+\[(\d+)\]", ptx))
    smem = static + (shared_bytes(ptx, entry.group(1)) if entry else 0)
    ptxas = "n/a"
    if find_ptxas() is not None:
        out = assemble(ptx, "sm_90a").strip()
        ptxas = "clean" if not out else out.splitlines()[0][:80]
    return {**static_counts(ptx, 32 * warps), "smem": smem, "ptxas": ptxas}


def triton_figures(name: str, warps: int, keep: Path | None, stages: int) -> dict[str, Any]:
    """Triton for sm_90: with ``stages`` 1, its own TTGIR fixture (dumped with one stage);
    else the :func:`hinted` TTIR compiled with ``num_stages = stages``."""
    import triton
    from triton.backends.compiler import GPUTarget

    with tempfile.TemporaryDirectory() as tmp:
        if stages == 1:
            path = (keep or Path(tmp)) / f"{name}.sm90.triton.ttgir"
            path.write_text((DEFAULT_OUT / f"{name}.sm90.ttgir").read_text())
            options = None
        else:
            path = (keep or Path(tmp)) / f"{name}.sm90.hinted.ttir"
            path.write_text(hinted((DEFAULT_OUT / f"{name}.sm90.ttir").read_text()))
            options = {"num_stages": stages, "num_warps": warps}
        compiled = triton.compile(str(path), target=GPUTarget("cuda", 90, 32), options=options)
        ptx = compiled.asm["ptx"]
    if keep is not None:
        (keep / f"{name}.sm90.triton{stages}.ptx").write_text(ptx)
    return {**static_counts(ptx, 32 * warps), "smem": int(compiled.metadata.shared)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernel", action="append", choices=DOT_KERNELS, help="only these")
    parser.add_argument("--keep", type=Path, help="keep every PTX in this folder")
    args = parser.parse_args(argv)
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
    import triton

    print(f"triton {triton.__version__}; {platform.platform()}; python {platform.python_version()}")
    print(f"date: {time.strftime('%Y-%m-%dT%H:%M:%S%z')}\n")
    print(
        "| kernel | warps | wgmma | mma.sync | shared B | barriers | barriers in the loop "
        "| cp.async B per CTA | llc ptxas sm_90a |"
    )
    print("|" + "---|" * 9)
    keys = ("wgmma", "mma", "smem", "barriers", "loop_barriers", "cp_async_bytes")
    for name in args.kernel or DOT_KERNELS:
        warps = KERNELS[name][3]
        try:
            ours = llc_figures(name, warps, args.keep, hints=True)
        except Exception as err:  # a kernel llc cannot compile is a row of the report
            first = next((line for line in str(err).splitlines() if line.strip()), repr(err))
            print(f"| {name} | {warps} | llc: {first.strip()[:120]} | | | | | | |")
            continue
        one = triton_figures(name, warps, args.keep, 1)
        three = triton_figures(name, warps, args.keep, 3)
        cells = [f"{ours[k]} / {one[k]} / {three[k]}" for k in keys]
        print(f"| {name} | {warps} | " + " | ".join(cells) + f" | {ours['ptxas']} |", flush=True)
    print()
    print("cells: llc / Triton 3.9 (its fixture TTGIR, 1 stage) / Triton 3.9 (num_stages=3)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
