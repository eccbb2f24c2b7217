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
``cp.async.commit_group`` and ``cp.async.wait_group``; and how each operand tile of one K step
is read from its slot (``ldmatrix`` or ``ld.shared``, per thread) with the shared wavefronts per
warp that llc's bank model (``llc.swizzle.warp_wavefronts``) gives, for llc's ring layouts and
for the swizzled layouts of Triton's TTGIR.

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
        "ldmatrix (static)": len(re.findall(r"\bldmatrix", ptx)),
    }


def read_cost(mem_type: object, tensor_type: object) -> tuple[str, int, int, int]:
    """How llc reads a ``tl.local_load`` of ``mem_type`` into ``tensor_type`` (4 warps): the
    instruction (``ldmatrix.x4[.trans]`` or the widest ``ld.shared``), instructions per thread,
    shared wavefronts per warp and their ideal (llc's bank model, ``llc.swizzle``)."""
    from xdsl.dialects import func

    from llc.passes.lower_ldmatrix import ldmatrix_read, plain_read_cost
    from llc.passes.simt_lowering import FunctionLowering, Laid, tensor_layout, thread_coords

    lowering = FunctionLowering(func.FuncOp("f", ([], [])), num_warps=4, lanes=32)
    ll = tensor_layout(tensor_type)
    mem = _Value(mem_type)
    reg, thread = lowering.shared_offsets(mem, Laid(mem, thread_coords(ll, THREADS), ll))
    ideal = len(reg) * 2 * 32 // 128
    plan = ldmatrix_read(reg, thread, 32)
    plain_wf, plain_n = plain_read_cost(reg, thread, 32, 2)
    if plan is not None and plan.wavefronts <= plain_wf and plan.instructions < plain_n:
        kind = f"ldmatrix.x{plan.count}" + (".trans" if plan.trans else "")
        return kind, plan.instructions, plan.wavefronts, ideal
    return "ld.shared", plain_n, plain_wf, ideal


class _Value:
    """A stand-in SSA value of a given type (``shared_offsets`` reads only ``.type``)."""

    def __init__(self, typ: object) -> None:
        self.type = typ


def _reads(loads: list[tuple[object, object]]) -> str:
    """The read-cost cells of a kernel's operand reads (A, then B)."""
    cells = []
    for mem_type, tensor_type in loads:
        kind, n, wf, ideal = read_cost(mem_type, tensor_type)
        cells.append(f"{kind} x{n}: {wf} wf (ideal {ideal})")
    return "; ".join(cells)


def llc_reads(module: object) -> str:
    """The operand reads of llc's pipelined loop (its ``tl.local_load`` ops)."""
    from xdsl.dialects import scf

    loop = next(o for o in module.walk() if isinstance(o, scf.ForOp))  # type: ignore[attr-defined]
    loads = [o for o in loop.body.walk() if o.name == "tl.local_load"]
    return _reads([(o.operands[0].type, o.results[0].type) for o in loads])


def triton_reads(ttgir: str) -> str:
    """Triton's operand reads of one K step: its slot layouts (``#shared`` of its TTGIR, the
    same dot-operand layouts as llc's example) through llc's read planner, whole tiles (Triton
    reads each tile in two k16 halves with the same rows, so the same wavefronts)."""
    from xdsl.dialects.builtin import TensorType, f16

    from llc.dialects import tl
    from llc.testing.semantics import parse

    layouts = dict(re.findall(r"^(#shared\d*) = (#ttg\.swizzled_shared<[^>]*>)", ttgir, re.M))
    pairs = re.findall(r"ttg\.local_load .*?!ttg\.memdesc<\w+, (#shared\d*),.*opIdx = (\d)", ttgir)
    which = {int(i): layouts[name].replace("#ttg.", "#tl.") for name, i in pairs}
    text = (ROOT / "examples" / "matmul.mlir").read_text()
    module = parse(text)
    dots = {}
    for o in module.walk():
        for r in o.results:
            enc = getattr(r.type, "encoding", None)
            if getattr(enc, "kind", "") == "dot_op" and isinstance(r.type, TensorType):
                dots[0 if "opIdx = 0" in str(enc) else 1] = r.type
    loads = []
    for idx in (0, 1):
        shared = parse(
            f"#s = {which[idx]}\nmodule {{ func.func @f(%m: !tl.memdesc<1x1xf16, #s>) {{ "
            "func.return } }"
        )
        fn = next(o for o in shared.walk() if o.name == "func.func")
        enc = fn.body.block.args[0].type.encoding
        shape = list(dots[idx].get_shape())
        loads.append((tl.MemDescType(f16, shape, enc), dots[idx]))
    return _reads(loads)


def llc_ptx() -> tuple[str, int, str]:
    from llc.passes.targets.ptx import emit_ptx
    from llc.testing.semantics import apply_pipeline, parse

    text = (ROOT / "examples" / "matmul.mlir").read_text()
    hint = ": i32 {tl.divisibility = 16 : i32}"
    module = parse(text.replace("%N: i32", "%N" + hint).replace("%K: i32", "%K" + hint))
    apply_pipeline(module, f"llc-pipeline{{num-stages={STAGES}}}")
    reads = llc_reads(module)
    apply_pipeline(module, "llc-lower-to-simt")
    ptx = emit_ptx(module, "sm_80")
    declared = re.findall(r"\.shared \.align \d+ \.b8 \w+\[(\d+)\];", ptx)
    return ptx, sum(int(n) for n in declared), reads


def triton_ptx() -> tuple[str, int, str]:
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
    return kernel.asm["ptx"], int(kernel.metadata.shared), triton_reads(kernel.asm["ttgir"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="write both PTX files here")
    args = parser.parse_args(argv)
    rows = {}
    for name, make in (("llc", llc_ptx), ("triton 3.9", triton_ptx)):
        ptx, shared, reads = make()
        rows[name] = counts(ptx, shared)
        rows[name]["operand reads per K step (A; B), per warp"] = reads
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
