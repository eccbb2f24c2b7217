"""Static PTX counts of a 3-stage pipelined matmul: llc's ``cp.async`` ring vs Triton 3.9's.

The kernel: C = A @ B in 64x64 tiles, K in steps of 32, f16 operands, 4 warps, sm_80,
``num_stages = 3``, row strides known divisible by 16 (Triton specializes them; llc reads
``{tl.divisibility = 16 : i32}``).

* **llc**: ``examples/matmul.mlir`` with ``%N``/``%K`` hinted, ``llc-pipeline{num-stages=3}``,
  ``llc-lower-to-simt``, ``-t 'ptx{arch=sm_80}'``;
* **triton**: ``bench/dump_triton.py``'s tutorial matmul, ``triton.compile`` for
  ``GPUTarget("cuda", 80, 32)`` with ``num_stages=3`` (no GPU needed).

Counted per thread on the PTX text: ``cp.async`` instructions by size (static, whole kernel and
in the loop body), the bytes one stage copies, the bytes in flight (``num_stages - 1`` stages,
whole CTA), the shared memory the kernel declares (Triton: its metadata), ``bar.sync``,
``cp.async.commit_group`` and ``cp.async.wait_group``.

    python bench/pipeline_ptx.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAGES = 3
THREADS = 128


def _loop_body(ptx: str) -> str:
    """The text between the loop's label and its backward branch (the first loop that copies)."""
    lines = ptx.splitlines()
    labels = {}
    for i, ln in enumerate(lines):
        m = re.match(r"^\s*(\$?\w+):\s*(//.*)?$", ln)
        if m:
            labels[m.group(1)] = i
    for i, ln in enumerate(lines):
        m = re.search(r"bra(?:\.uni)?\s+(\$?\w+);", ln)
        if m and m.group(1) in labels and labels[m.group(1)] < i:
            body = "\n".join(lines[labels[m.group(1)] : i + 1])
            if "cp.async" in body:
                return body
    return ""


_COPY = re.compile(
    r"cp\.async\.(?:ca|cg)\.shared\.global(?:\.L2::\w+)?\s*\[[^]]*\],\s*\[[^]]*\],\s*(0x[0-9a-f]+|\d+)"
)


def _copies(text: str) -> list[int]:
    """The byte count of every ``cp.async`` (decimal or hex)."""
    return [int(n, 0) for n in _COPY.findall(text)]


def counts(ptx: str, shared: int) -> dict[str, object]:
    """The figures of one kernel's PTX (``shared``: its shared-memory bytes)."""
    copies = _copies(ptx)
    body = _loop_body(ptx)
    in_loop = _copies(body)
    per_stage = sum(in_loop)
    return {
        "cp.async (static)": f"{len(copies)} x {sorted({int(n) for n in copies})} B",
        "cp.async in the loop": f"{len(in_loop)} x {sorted(set(in_loop))} B",
        "bytes per stage / thread": per_stage,
        "bytes in flight / CTA": per_stage * (STAGES - 1) * THREADS,
        "shared bytes": shared,
        "bar.sync (static)": len(re.findall(r"\bbar\.sync\b|\bbarrier\.sync\b", ptx)),
        "bar.sync in the loop": len(re.findall(r"\bbar\.sync\b|\bbarrier\.sync\b", body)),
        "ld.shared / ldmatrix in the loop": "{} / {}".format(
            len(re.findall(r"\bld\.shared", body)), len(re.findall(r"\bldmatrix", body))
        ),
        "commit_group": ptx.count("cp.async.commit_group"),
        "wait_group (static)": ", ".join(re.findall(r"cp\.async\.wait_group\s+(\d+)", ptx)),
    }


def llc_ptx() -> tuple[str, int]:
    from llc.passes.targets.ptx import emit_ptx
    from llc.testing.semantics import apply_pipeline, parse

    text = (ROOT / "examples" / "matmul.mlir").read_text()
    hint = ": i32 {tl.divisibility = 16 : i32}"
    module = parse(text.replace("%N: i32", "%N" + hint).replace("%K: i32", "%K" + hint))
    apply_pipeline(module, f"llc-pipeline{{num-stages={STAGES}}},llc-lower-to-simt")
    ptx = emit_ptx(module, "sm_80")
    declared = re.findall(r"\.shared \.align \d+ \.b8 \w+\[(\d+)\];", ptx)
    return ptx, sum(int(n) for n in declared)


def triton_ptx() -> tuple[str, int]:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    sys.path.insert(0, str(ROOT / "bench"))
    from dump_triton import KERNELS

    fn, signature, _, _ = KERNELS["matmul"]
    consts = {"BM": 64, "BN": 64, "BK": 32}
    full = dict(signature) | dict.fromkeys(consts, "constexpr")
    names = list(full)
    aligned = ["a_ptr", "b_ptr", "c_ptr", "K", "stride_am", "stride_bk", "stride_cm"]
    attrs = {(names.index(n),): [["tt.divisibility", 16]] for n in aligned}
    source = ASTSource(fn=fn, signature=full, constexprs=consts, attrs=attrs)
    options = {"num_warps": 4, "num_stages": STAGES}
    kernel = triton.compile(source, target=GPUTarget("cuda", 80, 32), options=options)
    return kernel.asm["ptx"], int(kernel.metadata.shared)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="write both PTX files here")
    args = parser.parse_args(argv)
    rows = {}
    for name, make in (("llc", llc_ptx), ("triton 3.9", triton_ptx)):
        ptx, shared = make()
        rows[name] = counts(ptx, shared)
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            (args.keep / f"matmul_{name.split()[0]}.sm80.ptx").write_text(ptx)
    keys = list(next(iter(rows.values())))
    print("| | " + " | ".join(rows) + " |")
    print("|---|" + "---|" * len(rows))
    for k in keys:
        print(f"| {k} | " + " | ".join(str(r[k]) for r in rows.values()) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
