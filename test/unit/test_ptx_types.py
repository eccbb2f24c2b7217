"""-t ptx over every type of issue 12 (i1/i8/i16/i32/i64, f16/bf16/f32/f64): a hand-written
lowered kernel per type moves values through a global load, arithmetic, compares, selects, casts
to every other type, a shuffle, shared memory and a global store; floats also through every math
op. ptxas assembles each for sm_80 and sm_90 with no output."""

from __future__ import annotations

import re

import pytest

from llc.passes.targets.ptx_math import F64_SEQUENCES
from llc.testing.ptxas import assemble, find_ptxas

TYPES = ["i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"]
BITS = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64}
BITS |= {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}
MATH = sorted({*F64_SEQUENCES, "math.exp", "math.exp2", "math.log", "math.log2", "math.tanh"})

needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="ptxas not installed")


def _is_float(t: str) -> bool:
    return t[0] in "fb"


def _cast_kinds(t: str, u: str) -> list[str]:
    if _is_float(t) and _is_float(u):
        kinds = ["extf" if BITS[u] > BITS[t] else "truncf"]
    elif _is_float(t):
        kinds = ["fptosi", "fptoui"] if u != "i1" else []
    elif _is_float(u):
        kinds = ["sitofp", "uitofp"]
    else:
        kinds = ["extsi", "extui"] if BITS[u] > BITS[t] else ["trunci"]
    if BITS[u] == BITS[t] > 1 and _is_float(t) != _is_float(u):
        kinds.append("bitcast")
    return kinds


def _kernel(t: str) -> str:
    """The kernel of type ``t``: one 32-bit word per register vector (an i1 takes a byte in
    shuffles and memory, so four of them)."""
    n = 4 if t == "i1" else max(1, 32 // BITS[t])
    v = f"vector<{n}x{t}>"
    zero = "0.0" if _is_float(t) else "false" if t == "i1" else "0"
    mem_t = "i8" if t == "i1" else t  # i1 buffers are bytes (Triton's convention)
    mem_v = f"vector<{n}x{mem_t}>"
    smem = "!simt.smem<256, align 16>"
    lines = [
        f"  func.func @k_{t}(%p: !tl.ptr<{mem_t}>, %s: {t}) attributes "
        "{llc.num_warps = 1 : i32, llc.threads_per_warp = 32 : i32} {",
        f"    %a = simt.ptr_to_int %p : !tl.ptr<{mem_t}>",
        "    %m = arith.constant true",
        f"    %z = arith.constant dense<{zero}> : {v}",
        f"    %sv = vector.broadcast %s : {t} to {v}",
    ]
    if t == "i1":
        lines.append(f"    %z8 = arith.constant dense<0> : {mem_v}")
        lines.append(f"    %x8 = simt.global_load %a, %m, %z8 : {mem_v}")
        lines.append(f'    %x = simt.cast "trunci" %x8 : {mem_v} to {v}')
    else:
        lines.append(f"    %x = simt.global_load %a, %m, %z : {v}")
    if _is_float(t):
        ops = ["addf", "subf", "mulf", "divf", "maxnumf", "minnumf", "maximumf", "minimumf"]
        preds = ["olt", "oge", "une", "ord", "ueq", "uno", "ugt"]
        scalar = [f"    %ss = arith.addf %s, %s : {t}", f"    %sc = arith.cmpf olt, %ss, %s : {t}"]
    elif t == "i1":
        ops, preds = ["andi", "ori", "xori"], ["eq", "ne", "slt", "ugt"]
        scalar = [f"    %ss = arith.xori %s, %s : {t}", f"    %sc = arith.cmpi slt, %ss, %s : {t}"]
    else:
        ops = ["addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "maxsi", "minui"]
        ops += ["floordivsi", "ceildivsi", "ceildivui"]
        ops += ["andi", "ori", "xori", "shli", "shrsi", "shrui"]
        preds = ["slt", "ule", "ne", "sge", "ugt", "eq"]
        scalar = [f"    %ss = arith.addi %s, %s : {t}", f"    %sc = arith.cmpi slt, %ss, %s : {t}"]
    cur = "%x"
    for i, name in enumerate(ops):
        lines.append(f"    %o{i} = arith.{name} {cur}, %sv : {v}")
        cur = f"%o{i}"
    lines += scalar
    if t not in ("i1",) and not _is_float(t):
        lines.append(f"    %abs = math.absi {cur} : {v}")
        cur = "%abs"
    lines.append(f"    %ssel = arith.select %sc, %s, %ss : {t}")
    if _is_float(t):
        lines.append(f"    %fma = math.fma {cur}, %x, %sv : {v}")
        lines.append(f"    %cs = math.copysign %fma, %x : {v}")
        cur = "%cs"
        for i, name in enumerate(MATH):
            operands = f"{cur}, %x" if name in ("math.atan2", "math.powf") else cur
            lines.append(f"    %math{i} = {name} {operands} : {v}")
            cur = f"%math{i}"
    for i, pred in enumerate(preds):
        lines.append(f'    %c{i} = simt.compare "{pred}" {cur}, %x : {v} -> vector<{n}xi1>')
        lines.append(f"    %sel{i} = simt.select %c{i}, {cur}, %x : vector<{n}xi1>, {v}")
        cur = f"%sel{i}"
    for u in TYPES:
        for kind in _cast_kinds(t, u) if u != t else []:
            lines.append(f'    %to_{u}_{kind} = simt.cast "{kind}" {cur} : {v} to vector<{n}x{u}>')
    lines.append("    %lane = arith.constant 1 : index")
    if BITS[t] == 64:  # shfl moves 32 bits: a 64-bit value goes as its two words
        lines += [
            f"    %w = vector.bitcast {cur} : {v} to vector<2xi32>",
            "    %w0 = vector.shuffle %w, %w [0] : vector<2xi32>, vector<2xi32>",
            "    %w1 = vector.shuffle %w, %w [1] : vector<2xi32>, vector<2xi32>",
            '    %h0 = simt.shuffle "idx" %w0, %lane c = 31 mask = -1 : vector<1xi32>',
            '    %h1 = simt.shuffle "idx" %w1, %lane c = 31 mask = -1 : vector<1xi32>',
            "    %hw = vector.shuffle %h0, %h1 [0, 1] : vector<1xi32>, vector<1xi32>",
            f"    %sh = vector.bitcast %hw : vector<2xi32> to {v}",
        ]
    else:
        lines.append(f'    %sh = simt.shuffle "bfly" {cur}, %lane c = 31 mask = -1 : {v}')
    lines += [
        f"    %smem = simt.shared_alloc : {smem}",
        "    %off = arith.constant 16 : index",
        f"    simt.shared_store %sh, %smem[%off] : {v}, {smem}",
        '    "gpu.barrier"() : () -> ()',
        f"    %back = simt.shared_load %smem[%off] : {smem} -> {v}",
        f"    %one = vector.shuffle %back, %back [0] : {v}, {v}",
        f"    simt.shared_store %one, %smem[%off] : vector<1x{t}>, {smem}",
    ]
    if t == "i1":
        lines.append(f'    %out = simt.cast "extui" %back : {v} to {mem_v}')
        lines.append(f"    simt.global_store %out, %a, %m : {mem_v}")
    else:
        lines.append(f"    simt.global_store %back, %a, %m : {v}")
        lines.append(f"    simt.global_store %one, %a, %m : vector<1x{t}>")
    lines += ["    func.return", "  }"]
    return "\n".join(line for line in lines if line)


def _module(t: str) -> str:
    head = (
        'builtin.module attributes {"tl.num-warps" = 1 : i32, "tl.threads-per-warp" = 32 : i32, '
        'tl.target = "cuda:90"} {\n'
    )
    return head + _kernel(t) + "\n}\n"


def _emit(t: str, arch: str) -> str:
    from llc.dialects.diagnostics import parse_module
    from llc.passes.conversion_kernel import _context
    from llc.passes.targets.ptx import emit_ptx

    module = parse_module(_context(), _module(t), f"<{t} kernel>")
    module.verify()
    return emit_ptx(module, arch)


@needs_ptxas
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("t", TYPES)
def test_every_type_assembles(t: str, arch: str) -> None:
    ptx = _emit(t, arch)
    for needed in (
        "ld.global",
        "st.global",
        "shfl.sync.",
        "st.shared",
        "ld.shared",
        "setp.",
        "selp.",
    ):
        assert needed in ptx, needed
    assert len(re.findall(r"\bcvt\.", ptx)) >= len(TYPES) - 2
    assert assemble(ptx, arch) == ""


def test_f64_math_is_the_software_sequence() -> None:
    # f64 math emits ptx_math's instructions: no approximate f32 instruction on an f64 value
    ptx = _emit("f64", "sm_90")
    assert ".approx" not in ptx
    assert "fma.rn.f64" in ptx and "cvt.rni.f64.f64" in ptx and "div.rn.f64" in ptx
