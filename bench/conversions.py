"""Benchmark: llc's lowering of realistic layout conversions (issue 10).

For each conversion of a fixed suite (blocked -> transposed blocked, mma v2/v3 -> blocked
epilogues, blocked -> dot_op, mma -> dot_op, 1D slices, 3D, warp-local permutations; f16, f32, i8)
it plans the lowering, lowers it to a SIMT function, runs it in the SIMT interpreter on distinct
values, and prints the strategy, the instructions per thread by kind, the shared bytes, the
wavefronts per warp and their ideal, whether every register matched, and the planning time.

    python bench/conversions.py            # the table
    python bench/conversions.py --markdown # the same as a Markdown table (bench/RESULTS.md)
    python bench/conversions.py --triton /path/to/python-with-triton   # Triton's figures too
    python bench/conversions.py --sweep 320 --triton PYTHON   # issue 19's drawn sweep

``--sweep N`` draws N conversions over every pair of layout families, shapes and dtypes
(:func:`drawn_suite`) and compares llc's shared wavefronts per warp plus shuffles per thread with
those of Triton's PTX for the same kernel (wavefronts estimated from access widths,
``bench/triton_ptx.py``'s ``shared_wavefronts``), printing the rows where llc moves more and why.

With ``--triton`` each conversion is also written as a one-op TTGIR kernel (load in the source
layout, ``ttg.convert_layout``, store in the destination layout; addresses computed in each
layout so that the kernel holds exactly one conversion), compiled by Triton for sm90 on the CPU
(``bench/triton_ptx.py``), and its PTX counted: shared bytes, ``shfl.sync``, ``st.shared``,
``ld.shared``, barriers, ``ldmatrix``/``stmatrix``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import random
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from llc.errors import LayoutError
from llc.layouts import AmdMfmaLayout, AmdWmmaLayout, BlockedLayout, DistributedLinearLayout
from llc.layouts.nvidia import DotOperandLayout, NvidiaMmaLayout
from llc.layouts.slice import SliceLayout
from llc.lowering import _plan
from llc.passes.conversion_kernel import conversion_kernel_text
from llc.passes.lower_conversions import lower_and_verify


def print_table(head: Sequence[str], rows: Sequence[Sequence[str]], markdown: bool) -> None:
    """The rows under ``head``, as a markdown table or in aligned columns.

    >>> print_table(["a", "b"], [["10", "2"]], markdown=False)
    a   b
    10  2
    """
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join("---" for _ in head) + "|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
        return
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    for row in [head, *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))


def B(spt: list[int], tpw: list[int], wpc: list[int], order: list[int]) -> BlockedLayout:
    return BlockedLayout(spt, tpw, wpc, order)


def _suite() -> list[tuple[str, Any, Any, list[int], str]]:
    row4 = B([1, 4], [8, 4], [4, 1], [1, 0])
    col4 = B([4, 1], [4, 8], [1, 4], [0, 1])
    row8 = B([1, 8], [16, 2], [8, 1], [1, 0])
    col8 = B([8, 1], [2, 16], [1, 8], [0, 1])
    row16 = B([1, 16], [32, 1], [4, 1], [1, 0])
    col16 = B([16, 1], [1, 32], [1, 4], [0, 1])
    mma_41 = NvidiaMmaLayout(2, 0, [4, 1], [16, 8])
    mma_22 = NvidiaMmaLayout(2, 0, [2, 2], [16, 8])
    mma_81 = NvidiaMmaLayout(2, 0, [8, 1], [16, 8])
    mma3_128 = NvidiaMmaLayout(3, 0, [4, 1], [16, 128, 16])
    mma3_64 = NvidiaMmaLayout(3, 0, [4, 1], [16, 64, 16])
    mma3_8w = NvidiaMmaLayout(3, 0, [8, 1], [16, 128, 16])
    out_blocked = B([1, 8], [4, 8], [4, 1], [1, 0])
    out_blocked8 = B([1, 8], [4, 8], [8, 1], [1, 0])
    out_blocked4 = B([1, 4], [2, 16], [4, 1], [1, 0])
    load_a = B([1, 8], [8, 4], [4, 1], [1, 0])
    load_b = B([8, 1], [8, 4], [1, 4], [0, 1])
    par = B([1, 1], [4, 8], [4, 1], [1, 0])
    par_t = B([1, 1], [8, 4], [1, 4], [0, 1])
    b3 = B([1, 1, 4], [1, 4, 8], [4, 1, 1], [2, 1, 0])
    b3_t = B([1, 4, 1], [1, 8, 4], [1, 1, 4], [1, 2, 0])
    b3_batch = B([1, 1, 4], [2, 2, 8], [2, 2, 1], [2, 1, 0])
    lanes_r = B([1, 1], [4, 8], [1, 4], [1, 0])
    lanes_c = B([1, 1], [4, 8], [1, 4], [0, 1])
    dot_v3_k1 = DotOperandLayout(0, mma3_64, 1)
    return [
        ("blocked -> transposed", row4, col4, [64, 64], "f32"),
        ("blocked -> transposed", row4, col4, [64, 64], "f16"),
        ("blocked -> transposed", row4, col4, [128, 128], "f16"),
        ("blocked -> transposed", row4, col4, [64, 64], "i8"),
        ("blocked -> transposed (8 warps)", row8, col8, [128, 128], "f16"),
        ("blocked -> transposed (16 per thread)", row16, col16, [128, 128], "f32"),
        ("mma v2 [4,1] -> blocked", mma_41, out_blocked, [128, 128], "f32"),
        ("mma v2 [4,1] -> blocked", mma_41, out_blocked, [128, 128], "f16"),
        ("mma v2 [2,2] -> blocked", mma_22, out_blocked, [64, 64], "f32"),
        ("mma v2 [2,2] -> blocked", mma_22, out_blocked4, [64, 64], "f16"),
        ("mma v2 [8,1] -> blocked", mma_81, out_blocked8, [128, 64], "f32"),
        ("mma v2 [4,1] -> blocked", mma_41, out_blocked, [64, 64], "i8"),
        ("mma v3 n128 -> blocked", mma3_128, out_blocked, [128, 128], "f32"),
        ("mma v3 n128 -> blocked", mma3_128, out_blocked, [128, 128], "f16"),
        ("mma v3 n64 -> blocked", mma3_64, out_blocked, [64, 64], "f16"),
        ("mma v3 n128 (8 warps) -> blocked", mma3_8w, out_blocked8, [128, 128], "f16"),
        ("blocked -> dot_op A (kWidth 2)", load_a, DotOperandLayout(0, mma_41, 2), [64, 64], "f16"),
        ("blocked -> dot_op B (kWidth 2)", load_b, DotOperandLayout(1, mma_41, 2), [64, 64], "f16"),
        ("blocked -> dot_op A (kWidth 4)", load_a, DotOperandLayout(0, mma_41, 4), [64, 64], "i8"),
        ("blocked -> dot_op B (kWidth 4)", load_b, DotOperandLayout(1, mma_22, 4), [64, 64], "i8"),
        ("blocked -> dot_op A [2,2]", load_a, DotOperandLayout(0, mma_22, 2), [128, 64], "f16"),
        (
            "mma v2 -> dot_op A (attention P)",
            mma_41,
            DotOperandLayout(0, mma_41, 2),
            [64, 64],
            "f16",
        ),
        (
            "mma v2 -> dot_op A (f32 kWidth 1)",
            mma_41,
            DotOperandLayout(0, mma_41, 1),
            [64, 64],
            "f32",
        ),
        ("slice(1) -> 1D blocked", SliceLayout(1, par), B([1], [32], [4], [0]), [128], "f32"),
        ("slice(0) -> 1D blocked", SliceLayout(0, par), B([1], [32], [4], [0]), [64], "f32"),
        (
            "slice(1) -> slice(0) (row max -> col)",
            SliceLayout(1, par),
            SliceLayout(0, par),
            [64],
            "f32",
        ),
        (
            "slice(1) of mma -> 1D blocked",
            SliceLayout(1, mma_41),
            B([1], [32], [4], [0]),
            [128],
            "f32",
        ),
        (
            "slice(1) -> slice(1) of transposed",
            SliceLayout(1, par),
            SliceLayout(1, par_t),
            [64],
            "f16",
        ),
        ("3D blocked -> transposed", b3, b3_t, [4, 32, 32], "f16"),
        ("3D blocked -> transposed", b3, b3_t, [4, 32, 32], "f32"),
        ("3D batch blocked -> 3D", b3_batch, b3, [4, 32, 32], "f32"),
        ("lane permutation (warp-local)", lanes_r, lanes_c, [32, 32], "f16"),
        ("lane permutation (warp-local)", lanes_r, lanes_c, [32, 32], "f32"),
        # Issue 19's held-out examples: 16-bit values packed two to a shuffle (Triton: 16
        # shuffles), a small cross-warp tensor, a broadcast vector through ldmatrix.
        ("dot_op(mma v3, kWidth 1) -> mma v2", dot_v3_k1, mma_41, [64, 64], "f16"),
        ("mma v2 -> blocked (64x1)", mma_41, B([1, 1], [32, 1], [4, 1], [1, 0]), [64, 1], "f16"),
        (
            "slice(0) of mma -> slice(1) of mma",
            SliceLayout(0, mma_22),
            SliceLayout(1, mma_22),
            [32],
            "f16",
        ),
    ]


def _ttgir(src: Any, dst: Any, shape: list[int], dtype: str, warps: int) -> str:
    """A Triton kernel that loads in ``src``, converts once to ``dst`` and stores (no
    divisibility hints, as Triton compiles a kernel without launch specialisation)."""
    return conversion_kernel_text(
        src, dst, shape, dtype, warps, dialect="triton", pointer_divisibility=None
    )


def _triton_figures(python: str, jobs: list[dict[str, str]]) -> list[dict[str, Any]]:
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "triton_ptx.py")
    done = subprocess.run(
        [python, script], input=json.dumps(jobs), capture_output=True, text=True, check=False
    )
    if done.returncode:
        raise SystemExit(f"triton_ptx.py failed: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout)


def _measure(fn: Callable[[], Any], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        _plan.cache_clear()
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _triton_cell(fig: dict[str, Any]) -> str:
    if "error" in fig:
        return f"n/a ({fig['error'][:60]})"
    kinds = ("shfl", "st.shared", "ld.shared", "bar.sync", "stmatrix", "ldmatrix")
    counts = " ".join(f"{k}={fig[k]}" for k in kinds if fig.get(k))
    return f"smem {fig['shared']} B; {counts or 'no instructions'}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--triton", metavar="PYTHON", help="a Python with triton: add its figures")
    args = parser.parse_args(argv)
    rows = []
    failures = 0
    summary = {"llc": 0, "triton": 0, "above_triton": [], "above_ideal": []}
    jobs = []
    for i, (_, src, dst, shape, dtype) in enumerate(_suite()):
        warps = src.to_linear_layout(shape).get_in_dim_size("warp")
        jobs.append({"name": str(i), "ttgir": _ttgir(src, dst, shape, dtype, warps)})
    triton = _triton_figures(args.triton, jobs) if args.triton else None
    for i, (name, src, dst, shape, dtype) in enumerate(_suite()):
        src_ll, dst_ll = src.to_linear_layout(shape), dst.to_linear_layout(shape)
        warps = src_ll.get_in_dim_size("warp")
        plan, check = lower_and_verify(src_ll, dst_ll, dtype)
        seconds = _measure(lambda s=src_ll, d=dst_ll, t=dtype: lower_and_verify(s, d, t)[0])
        failures += not check.ok
        counts = " ".join(f"{k}={n}" for k, n in plan.instructions.items()) or "-"
        label = f"{name} {'x'.join(map(str, shape))} {dtype}"
        summary["llc"] += plan.shared_bytes
        if plan.wavefronts > plan.ideal_wavefronts:
            summary["above_ideal"].append(label)
        if triton and "error" not in triton[i]:
            summary["triton"] += int(triton[i]["shared"])
            if plan.shared_bytes > int(triton[i]["shared"]):
                summary["above_triton"].append(label)
        rows.append(
            (
                name,
                "x".join(map(str, shape)),
                dtype,
                str(warps),
                plan.strategy,
                counts,
                str(plan.shared_bytes),
                str(plan.wavefronts),
                str(plan.ideal_wavefronts),
                "yes" if check.ok else "NO",
                f"{seconds * 1e3:.1f}",
                *([_triton_cell(triton[i])] if triton else []),
            )
        )
    head = (
        "conversion",
        "shape",
        "dtype",
        "warps",
        "strategy",
        "instructions per thread",
        "smem B",
        "wavefronts",
        "ideal",
        "verified",
        "lower+run ms",
        *(["triton 3.9 (sm90 PTX)"] if triton else []),
    )
    stamp = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    print(f"date: {stamp}; platform: {platform.platform()}; python {platform.python_version()}")
    print_table(head, rows, args.markdown)
    print()
    print(f"llc shared bytes, total: {summary['llc']}")
    if triton:
        print(f"Triton shared bytes, total: {summary['triton']}")
        print(f"rows where llc needs more shared bytes than Triton: {summary['above_triton'] or 0}")
    print(f"rows where llc's wavefronts exceed the ideal: {summary['above_ideal'] or 0}")
    return 1 if failures else 0


# ------------------------------------------------------------------------------ the drawn sweep
FAMILIES = ("blocked", "slice", "mma2", "mma3", "dot0", "dot1", "dot0v3", "linear", "mfma", "wmma")
"""Layout families of the drawn sweep: ``mma2``/``mma3`` are ``nvidia_mma`` v2/v3, ``dot0`` and
``dot1`` are ``dot_op`` opIdx 0/1 of an mma v2 parent, ``dot0v3`` is opIdx 0 of an mma v3 parent
(Hopper's A in registers), ``linear`` is ``#ttg.linear``; ``mfma``/``wmma`` are AMD's (no Triton
figures: its NVIDIA backend cannot compile them)."""
AMD = ("mfma", "wmma")
_SHAPES = {
    1: [[8], [16], [32], [64], [128], [256], [1024]],
    2: [
        [64, 64],
        [128, 128],
        [32, 32],
        [16, 16],
        [64, 1],
        [1, 64],
        [128, 1],
        [1, 128],
        [2, 64],
        [64, 2],
        [16, 64],
        [64, 16],
        [128, 32],
        [32, 128],
        [8, 32],
        [256, 64],
    ],
    3: [[2, 32, 32], [4, 16, 16], [2, 16, 64], [8, 8, 8]],
}
_DTYPES = ("i8", "f16", "f16", "f32", "f32", "f64")


def _split(rng: Any, total: int, parts: int) -> list[int]:
    """``total`` (a power of two) as a product of ``parts`` random powers of two."""
    out = [1] * parts
    for _ in range(total.bit_length() - 1):
        out[rng.randrange(parts)] *= 2
    return out


def _random_blocked(rng: Any, rank: int, lanes: int, warps: int) -> BlockedLayout:
    spt = [rng.choice((1, 1, 2, 4, 8)) for _ in range(rank)]
    while math.prod(spt) > 16:
        spt[rng.randrange(rank)] = 1
    order = list(range(rank))
    rng.shuffle(order)
    return B(spt, _split(rng, lanes, rank), _split(rng, warps, rank), order)


def _draw_layout(rng: Any, family: str, shape: list[int], warps: int, lanes: int, bits: int) -> Any:
    """A random layout of ``family`` for a tensor of ``shape`` (LayoutError where the family has
    no such layout)."""
    rank = len(shape)
    if family == "blocked":
        return _random_blocked(rng, rank, lanes, warps)
    if family == "slice":
        parent_family = rng.choice(("blocked", "blocked", "mma2") if rank == 1 else ("blocked",))
        dim = rng.randrange(rank + 1)
        parent_shape = [*shape[:dim], 16, *shape[dim:]]
        parent = _draw_layout(rng, parent_family, parent_shape, warps, lanes, bits)
        return SliceLayout(dim, parent)
    if family == "linear":
        base = _random_blocked(rng, rank, lanes, warps).to_linear_layout(shape)
        bases = dict(base.bases)
        pool = [*bases["register"], *bases["lane"]]
        rng.shuffle(pool)
        split = len(bases["register"])
        return DistributedLinearLayout(pool[:split], pool[split:], bases["warp"], [])
    if rank != 2 and family not in ("mma2",):
        raise LayoutError(f"{family} is drawn for 2-D tensors")
    if family == "mma2":
        if rank == 3:
            return NvidiaMmaLayout(2, 0, [*_split(rng, warps, 2), 1], [1, 16, 8])
        return NvidiaMmaLayout(2, 0, _split(rng, warps, 2), [16, 8])
    if family == "mma3":
        return NvidiaMmaLayout(3, 0, [4, warps // 4], [16, rng.choice((8, 16, 32, 64, 128)), 16])
    if family in ("dot0", "dot1"):
        parent = NvidiaMmaLayout(2, 0, _split(rng, warps, 2), [16, 8])
        k_width = rng.choice((max(1, 32 // bits), max(1, 32 // bits), 1, 2, 4))
        return DotOperandLayout(int(family[-1]), parent, k_width)
    if family == "dot0v3":
        parent = NvidiaMmaLayout(3, 0, [4, warps // 4], [16, rng.choice((16, 32, 64)), 16])
        return DotOperandLayout(0, parent, rng.choice((max(1, 32 // bits), 1, 2)))
    if family == "mfma":
        instr = rng.choice(([32, 32, 8], [16, 16, 16]))
        return AmdMfmaLayout(3, _split(rng, warps, 2), instr, rng.choice((True, False)))
    if family == "wmma":
        return AmdWmmaLayout(2, rng.choice((True, False)), _split(rng, warps, 2))
    raise ValueError(family)


def drawn_suite(count: int = 300, seed: int = 19) -> list[tuple[str, Any, Any, list[int], str]]:
    """At least ``count`` conversions drawn (deterministically from ``seed``) over every ordered
    pair of :data:`FAMILIES` whose warps agree (mfma's 64-lane waves pair with 64-lane blocked,
    linear and mfma layouts), each pair in turn: a shape, a dtype, a warp count and one layout
    of each family, redrawn until both layouts exist and differ.

    >>> suite = drawn_suite(count=12)
    >>> len(suite), suite == drawn_suite(count=12)
    (12, True)
    """
    rng = random.Random(seed)
    pairs = [
        (a, b)
        for a in FAMILIES
        for b in FAMILIES
        if not ({a, b} & {"mfma"} and {a, b} & {"mma2", "mma3", "dot0", "dot1", "dot0v3", "wmma"})
    ]
    out: list[tuple[str, Any, Any, list[int], str]] = []
    turn = 0
    while len(out) < count:
        a, b = pairs[turn % len(pairs)]
        turn += 1
        for _ in range(200):
            ranks = [1, 2, 2, 2, 3]
            if {a, b} & {"mma3", "dot0", "dot1", "dot0v3", "mfma", "wmma"}:
                ranks = [2]
            elif "mma2" in (a, b):
                ranks = [2, 2, 3]
            rank = rng.choice(ranks)
            shape = list(rng.choice(_SHAPES[rank]))
            dtype = rng.choice(_DTYPES)
            bits = {"i8": 8, "f16": 16, "f32": 32, "f64": 64}[dtype]
            warps = rng.choice((4, 4, 8))
            lanes = 64 if "mfma" in (a, b) else 32
            try:
                src = _draw_layout(rng, a, shape, warps, lanes, bits)
                dst = _draw_layout(rng, b, shape, warps, lanes, bits)
                src_ll, dst_ll = src.to_linear_layout(shape), dst.to_linear_layout(shape)
            except LayoutError:
                continue
            if src_ll == dst_ll or src_ll.get_in_dim_size("warp") != dst_ll.get_in_dim_size("warp"):
                continue
            out.append((f"{a} -> {b}", src, dst, shape, dtype))
            break
    return out


def _triton_cost(fig: dict[str, Any]) -> tuple[int, int]:
    """Triton's shared wavefronts per warp (estimated from its PTX) and shuffles per thread."""
    return _ptx_module().shared_wavefronts(fig), int(fig.get("shfl", 0))


def _ptx_module() -> Any:
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "triton_ptx.py")
    spec = importlib.util.spec_from_file_location("bench_triton_ptx", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _why_above(plan: Any, fig: dict[str, Any]) -> str:
    """Which of llc's known gaps a row above Triton falls under."""
    shuffles = plan.instructions.get("shfl", 0)
    if plan.strategy == "shuffle" and plan.bitwidth < 32 and shuffles > int(fig.get("shfl", 0)):
        return "8/16-bit values not packed into 32-bit shuffles"
    if plan.strategy == "shuffle":
        return "more shuffles"
    if plan.wavefronts > plan.ideal_wavefronts:
        return "bank conflicts"
    return "more shared accesses"


def sweep(count: int, seed: int, triton_python: str | None, markdown: bool) -> int:
    """Run :func:`drawn_suite`: per conversion llc's plan (verified in the SIMT interpreter) and,
    with ``triton_python``, Triton 3.9's PTX for the same one-op kernel; print the table and the
    summary (rows above Triton and why). Exit status 1 when a kernel is wrong."""
    suite = drawn_suite(count, seed)
    jobs = []
    for i, (name, src, dst, shape, dtype) in enumerate(suite):
        if any(f in AMD for f in name.split(" -> ")):
            continue
        warps = src.to_linear_layout(shape).get_in_dim_size("warp")
        jobs.append({"name": str(i), "ttgir": _ttgir(src, dst, shape, dtype, warps)})
    triton = {f["name"]: f for f in _triton_figures(triton_python, jobs)} if triton_python else {}
    head = ["#", "families", "shape", "dtype", "llc", "llc wf", "llc shfl", "llc total"]
    if triton_python:
        head += ["Triton wf", "Triton shfl", "Triton total", "vs Triton"]
    rows = []
    failures = 0
    above: dict[str, list[str]] = {}
    totals = {"llc": 0, "triton": 0, "compared": 0, "equal": 0, "below": 0}
    for i, (name, src, dst, shape, dtype) in enumerate(suite):
        src_ll, dst_ll = src.to_linear_layout(shape), dst.to_linear_layout(shape)
        plan, check = lower_and_verify(src_ll, dst_ll, dtype)
        failures += not check.ok
        shuffles = plan.instructions.get("shfl", 0)
        ours = plan.wavefronts + shuffles
        label = "x".join(map(str, shape))
        row = [str(i), name, label, dtype, plan.strategy + ("" if check.ok else " WRONG")]
        row += [str(plan.wavefronts), str(shuffles), str(ours)]
        fig = triton.get(str(i))
        if triton_python:
            if fig is None:
                row += ["-", "-", "-", "AMD: not compared"]
            elif "error" in fig:
                row += ["-", "-", "-", f"n/a ({fig['error'][:50]})"]
            else:
                wf, shfl = _triton_cost(fig)
                theirs = wf + shfl
                totals["llc"] += ours
                totals["triton"] += theirs
                totals["compared"] += 1
                verdict = "equal"
                if ours > theirs:
                    reason = _why_above(plan, fig)
                    above.setdefault(reason, []).append(f"#{i} {name} {label} {dtype}")
                    verdict = f"ABOVE ({reason})"
                elif ours < theirs:
                    verdict = "below"
                    totals["below"] += 1
                else:
                    totals["equal"] += 1
                row += [str(wf), str(shfl), str(theirs), verdict]
        rows.append(row)
    stamp = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    print(f"date: {stamp}; platform: {platform.platform()}; python {platform.python_version()}")
    print(f"drawn sweep: {len(suite)} conversions, seed {seed}")
    print_table(head, rows, markdown)
    print()
    print(f"wrong kernels: {failures}")
    if triton_python:
        n_above = sum(len(v) for v in above.values())
        print(
            f"compared with Triton 3.9: {totals['compared']} conversions; llc below Triton on "
            f"{totals['below']}, equal on {totals['equal']}, above on {n_above}; shared wavefronts "
            f"+ shuffles in total: llc {totals['llc']}, Triton {totals['triton']}"
        )
        for reason, labels in sorted(above.items()):
            print(f"  above, {reason}: {len(labels)}: {', '.join(labels)}")
    return 1 if failures else 0


if __name__ == "__main__":
    if "--sweep" in sys.argv:
        cli = argparse.ArgumentParser(description="the drawn sweep of bench/conversions.py")
        cli.add_argument("--sweep", type=int, default=300, metavar="COUNT")
        cli.add_argument("--seed", type=int, default=19)
        cli.add_argument("--markdown", action="store_true")
        cli.add_argument("--triton", metavar="PYTHON")
        ns = cli.parse_args()
        sys.exit(sweep(ns.sweep, ns.seed, ns.triton, ns.markdown))
    sys.exit(main())
