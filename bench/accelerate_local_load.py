"""What Triton 3.9's AccelerateMatmul picks on sm_90 for a dot whose operands are staged
through shared memory (``ttg.local_alloc`` + ``ttg.local_load``), as llc's
``examples/matmul_epilogue.mlir`` stages them, against the same dot fed by loads.

The kernel is ``bench/dump_triton.py``'s ``matmul_epilogue`` (C = relu(A @ B + bias)), written
in Triton's language; its TTIR fixture (``examples/triton/matmul_epilogue.sm90.ttir``) goes
through Triton's own ``convert-triton-to-tritongpu`` for ``cuda:90`` (4 warps), then:

* **loads**: as is (the Triton-language kernel: the operands come straight from ``tt.load``);
* **local_load**: each ``tt.dot`` operand stored with ``ttg.local_alloc`` and read back with
  ``ttg.local_load`` (the shape of llc's example; Triton's language cannot write it, Triton's
  own pipeliner creates it after AccelerateMatmul);

and Triton's ``tritongpu-accelerate-matmul`` runs on each; a third kernel, whose operands are
both computed in registers (``exp`` of the loaded tiles), goes through ``triton.compile``. Prints
each dot op and its accumulator's encoding.

    python bench/accelerate_local_load.py
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _staged(ttgir: str) -> str:
    """``ttgir`` with every ``tt.dot`` operand staged through shared memory: the conversion
    of the loaded tile into the operand layout becomes ``ttg.local_alloc`` of the tile and
    ``ttg.local_load`` into that layout."""
    shared = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"
    convert = re.compile(
        r"^(\s*)(%\S+) = ttg\.convert_layout (%\S+) : (tensor<([\dx]+)x(\w+), #\w+>) -> "
        r"(tensor<.*#ttg\.dot_op<.*>>)( loc\(.*\))?$"
    )
    out, staged = [], 0
    for line in ttgir.splitlines():
        m = convert.match(line)
        if m is None:
            out.append(line)
            continue
        pad, res, src, src_t, shape, elem, dst_t, loc = m.groups()
        mem = f"!ttg.memdesc<{shape}x{elem}, {shared}, #smem>"
        out.append(f"{pad}{res}_smem = ttg.local_alloc {src} : ({src_t}) -> {mem}")
        out.append(f"{pad}{res} = ttg.local_load {res}_smem : {mem} -> {dst_t}{loc or ''}")
        staged += 1
    assert staged == 2, f"staged {staged} operands"
    text = "\n".join(out)
    return text.replace("module attributes", "#smem = #ttg.shared_memory\nmodule attributes", 1)


def accelerate(ttgir: str) -> str:
    """The dot lines after Triton's AccelerateMatmul for sm_90."""
    from triton._C.libtriton import ir, passes

    ctx = ir.context()
    ir.load_dialects(ctx)
    from triton._C.libtriton import nvidia

    nvidia.load_dialects(ctx)
    path = Path("/tmp") / "accelerate_local_load.ttgir"
    path.write_text(ttgir)
    module = ir.parse_mlir_module(str(path), ctx)
    pm = ir.pass_manager(ctx)
    passes.ttgpuir.add_accelerate_matmul(pm)
    pm.run(module, "accelerate")
    return str(module)


def to_ttgir(ttir: str) -> str:
    """Triton's convert-triton-to-tritongpu for cuda:90, 4 warps, 32 lanes, 1 CTA."""
    from triton._C.libtriton import ir, passes

    ctx = ir.context()
    ir.load_dialects(ctx)
    path = Path("/tmp") / "accelerate_local_load.ttir"
    path.write_text(ttir)
    module = ir.parse_mlir_module(str(path), ctx)
    pm = ir.pass_manager(ctx)
    passes.ttir.add_convert_to_ttgpuir(pm, "cuda:90", 4, 32, 1)
    pm.run(module, "convert")
    return str(module)


def dots(ttgir: str) -> list[str]:
    """Each dot op's name, and the mma encoding its result takes."""
    mmas = dict(re.findall(r"^(#\w+) = (#ttg\.nvidia_mma<[^>]*>)", ttgir, re.M))
    found = []
    for m in re.finditer(r"= (tt\.dot|ttng\.warp_group_dot) .*-> tensor<[^,]*, (#\w+)>", ttgir):
        found.append(f"{m.group(1)} -> {mmas.get(m.group(2), m.group(2))}")
    return found


def computed_operands() -> str:
    """Triton's final TTGIR (sm_90) of a dot whose two operands are computed in registers
    (``exp`` of loaded tiles: llc's ``both_in_registers`` lit case, in Triton's language)."""
    import triton
    import triton.language as tl
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    @triton.jit
    def both_in_registers(pa, pb, pc):  # type: ignore[no-untyped-def]
        i = tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :]
        a = tl.exp(tl.load(pa + i).to(tl.float32)).to(tl.float16)
        b = tl.exp(tl.load(pb + i).to(tl.float32)).to(tl.float16)
        tl.store(pc + i, tl.dot(a, b))

    signature = {"pa": "*fp16", "pb": "*fp16", "pc": "*fp32"}
    source = ASTSource(fn=both_in_registers, signature=signature, constexprs={})
    options = {"num_warps": 4, "num_stages": 1}
    return triton.compile(source, target=GPUTarget("cuda", 90, 32), options=options).asm["ttgir"]


def main() -> int:
    ttir = (ROOT / "examples" / "triton" / "matmul_epilogue.sm90.ttir").read_text()
    base = to_ttgir(ttir)
    for name, text in (("loads", base), ("local_load", _staged(base))):
        print(f"{name}: {'; '.join(dots(accelerate(text)))}")
    print(f"computed (exp of loads, triton.compile): {'; '.join(dots(computed_operands()))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
