"""``tl.scan`` lowered to SIMT code (``passes/lower_scan.py``) runs like the tensor level.

Each case is a kernel that loads a tensor in a layout, scans it along an axis and stores the
result(s) in the same layout; the lowered kernel runs in the SIMT interpreter (shuffles with
PTX semantics, shared memory with race checks) and must write the same bytes as the tensor-level
interpreter. Float inputs are small integers so that every order of the additions is exact: the
lowering reassociates (a tree across lanes and warps), a wrong order of operands or a wrong
partner still changes the bytes. Layouts: blocked (several orders), slices, mma v2, and random
unit-basis linear layouts with broadcast bits; axes, ``reverse``, element types from ``i1`` to
64-bit; ``cumsum``, ``cummax`` and a two-value, non-commutative "last maximum and its index"
scan.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from layout_strategies import random_distributed

from llc.dialects.tl_interpreter import Buffer, Pointer, make_interpreter, set_grid
from llc.errors import LayoutError
from llc.linear_layout import LinearLayout
from llc.testing.semantics import apply_pipeline, parse

NP = {
    "f32": np.float32,
    "f16": np.float16,
    "f64": np.float64,
    "i32": np.int32,
    "i64": np.int64,
    "i8": np.int8,
    "i16": np.int16,
    "i1": np.bool_,
}


def linear_attr(ll: LinearLayout) -> str:
    """``#tl.linear<{...}>`` of a linear layout."""

    def bases(in_dim: str) -> str:
        if not ll.has_in_dim(in_dim):
            return "[]"
        rows = [
            "[" + ", ".join(str(int(x)) for x in ll.basis(in_dim, p)) + "]"
            for p in range(ll.get_in_dim_size_log2(in_dim))
        ]
        return "[" + ", ".join(rows) + "]"

    parts = ", ".join(f"{d} = {bases(d)}" for d in ("register", "lane", "warp", "block"))
    return f"#tl.linear<{{{parts}}}>"


def _region(kind: str, dtype: str) -> tuple[str, str]:
    """(the scan's region body, the operand types of its block) for ``kind``."""
    is_float = dtype.startswith("f")
    if kind == "pair":  # the last maximum and its index: associative, not commutative
        cmp = "arith.cmpf oge" if is_float else "arith.cmpi sge"
        body = (
            f"      %ge = {cmp}, %b, %a : {dtype}\n"
            f"      %m = arith.select %ge, %b, %a : {dtype}\n"
            f"      %n = arith.select %ge, %j, %i : i32\n"
            f"      tl.scan.return %m, %n : {dtype}, i32\n"
        )
        return body, f"%a: {dtype}, %i: i32, %b: {dtype}, %j: i32"
    if dtype == "i1":
        op = {"cumsum": "arith.xori", "cummax": "arith.ori"}[kind]
    elif kind == "cumsum":
        op = "arith.addf" if is_float else "arith.addi"
    else:
        op = "arith.maximumf" if is_float else "arith.maxsi"
    body = f"      %c = {op} %a, %b : {dtype}\n      tl.scan.return %c : {dtype}\n"
    return body, f"%a: {dtype}, %b: {dtype}"


def scan_kernel(
    layout: str,
    shape: tuple[int, ...],
    axis: int,
    reverse: bool,
    dtype: str,
    kind: str,
    warps: int = 4,
    lanes: int = 32,
) -> str:
    """A kernel ``@scan(%x, %out[, %out2])``: ``out = scan(x)`` along ``axis`` in ``layout``
    (``pair`` also scans the element offsets and stores them to ``%out2``)."""
    t = "x".join(map(str, shape))

    def ty(elem: str) -> str:
        return f"tensor<{t}x{elem}, #L>"

    lines = []
    if len(shape) == 1:
        lines.append(
            f"    %offs = tl.make_range {{end = {shape[0]} : i32, start = 0 : i32}} : {ty('i32')}"
        )
    else:
        m, k = shape
        s1 = "#tl.slice<{dim = 1, parent = #L}>"
        s0 = "#tl.slice<{dim = 0, parent = #L}>"
        lines += [
            f"    %rr = tl.make_range {{end = {m} : i32, start = 0 : i32}} : tensor<{m}xi32, {s1}>",
            f"    %re = tl.expand_dims %rr {{axis = 1 : i32}} : tensor<{m}xi32, {s1}> -> "
            f"tensor<{m}x1xi32, #L>",
            f"    %rb = tl.broadcast %re : tensor<{m}x1xi32, #L> -> {ty('i32')}",
            f"    %kk = arith.constant dense<{k}> : {ty('i32')}",
            f"    %rows = arith.muli %rb, %kk : {ty('i32')}",
            f"    %cr = tl.make_range {{end = {k} : i32, start = 0 : i32}} : tensor<{k}xi32, {s0}>",
            f"    %ce = tl.expand_dims %cr {{axis = 0 : i32}} : tensor<{k}xi32, {s0}> -> "
            f"tensor<1x{k}xi32, #L>",
            f"    %cb = tl.broadcast %ce : tensor<1x{k}xi32, #L> -> {ty('i32')}",
            f"    %offs = arith.addi %rows, %cb : {ty('i32')}",
        ]
    ptr = f"tensor<{t}x!tl.ptr<{dtype}>, #L>"
    lines += [
        f"    %xs = tl.splat %x : !tl.ptr<{dtype}> -> {ptr}",
        f"    %xp = tl.addptr %xs, %offs : {ptr}, {ty('i32')}",
        f"    %v = tl.load %xp : {ptr}",
    ]
    body, args = _region(kind, dtype)
    rev = "true" if reverse else "false"
    if kind == "pair":
        lines.append(
            f"    %s:2 = tl.scan %v, %offs {{axis = {axis} : i32, reverse = {rev}}} : "
            f"{ty(dtype)}, {ty('i32')} -> {ty(dtype)}, {ty('i32')} {{\n"
            f"    ^bb0({args}):\n{body}    }}"
        )
        iptr = f"tensor<{t}x!tl.ptr<i32>, #L>"
        lines += [
            f"    %os = tl.splat %out : !tl.ptr<{dtype}> -> {ptr}",
            f"    %op = tl.addptr %os, %offs : {ptr}, {ty('i32')}",
            f"    tl.store %op, %s#0 : {ptr}",
            f"    %o2s = tl.splat %out2 : !tl.ptr<i32> -> {iptr}",
            f"    %o2p = tl.addptr %o2s, %offs : {iptr}, {ty('i32')}",
            f"    tl.store %o2p, %s#1 : {iptr}",
        ]
        params = f"%x: !tl.ptr<{dtype}>, %out: !tl.ptr<{dtype}>, %out2: !tl.ptr<i32>"
    else:
        lines.append(
            f"    %s = tl.scan %v {{axis = {axis} : i32, reverse = {rev}}} : {ty(dtype)} -> "
            f"{ty(dtype)} {{\n    ^bb0({args}):\n{body}    }}"
        )
        lines += [
            f"    %os = tl.splat %out : !tl.ptr<{dtype}> -> {ptr}",
            f"    %op = tl.addptr %os, %offs : {ptr}, {ty('i32')}",
            f"    tl.store %op, %s : {ptr}",
        ]
        params = f"%x: !tl.ptr<{dtype}>, %out: !tl.ptr<{dtype}>"
    body_text = "\n".join(lines)
    return (
        f"#L = {layout}\n"
        f'module attributes {{"tl.num-warps" = {warps} : i32, "tl.threads-per-warp" = {lanes} '
        f': i32, "tl.target" = "cuda:80"}} {{\n'
        f"  func.func @scan({params}) {{\n{body_text}\n    func.return\n  }}\n}}\n"
    )


def run_scan(module: Any, data: np.ndarray, kind: str, dtype: str) -> list[np.ndarray]:
    """Run ``@scan`` on ``data``: the tensor level, or the SIMT interpreter once lowered."""
    from xdsl.dialects.func import FuncOp

    fn = next(o for o in module.walk() if isinstance(o, FuncOp))
    bufs = [Buffer("%x", data), Buffer("%out", np.zeros_like(data))]
    if kind == "pair":
        bufs.append(Buffer("%out2", np.zeros(data.shape, np.int32)))
    args = tuple(Pointer(b, 0) for b in bufs)
    if "llc.num_warps" in fn.attributes:
        from llc.dialects.simt_kernel_interpreter import GlobalMemory, make_kernel_interpreter

        warps = fn.attributes["llc.num_warps"].value.data  # type: ignore[attr-defined]
        lanes = fn.attributes["llc.threads_per_warp"].value.data  # type: ignore[attr-defined]
        interp, kernel = make_kernel_interpreter(module, warps, lanes, GlobalMemory())
        kernel.num_programs = (1, 1, 1)
        kernel.program_id = (0, 0, 0)
    else:
        interp = make_interpreter(module)
        set_grid(interp, (0, 0, 0), (1, 1, 1))
    interp.call_op("scan", args)
    return [b.array() for b in bufs[1:]]


def lower(text: str) -> Any:
    """``llc-lower-to-simt`` on ``text`` (the lit tests cover printing the result)."""
    module = parse(text)
    apply_pipeline(module, "llc-lower-to-simt")
    return module


def inputs(rng: np.random.Generator, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    if dtype == "i1":
        return rng.random(shape) < 0.5
    # small integers: every order of the additions is exact, and maxima repeat (ties)
    return rng.integers(-3, 4, size=shape).astype(NP[dtype])


def check(text: str, dtype: str, kind: str, shape: tuple[int, ...], seed: int = 0) -> Any:
    """Lower ``text``, run both levels on the same data, compare bytes; the lowered module."""
    lowered = lower(text)
    data = inputs(np.random.default_rng(seed), dtype, shape)
    want = run_scan(parse(text), data, kind, dtype)
    got = run_scan(lowered, data, kind, dtype)
    for w, g in zip(want, got, strict=True):
        assert w.tobytes() == g.tobytes(), f"expected\n{w}\ngot\n{g}"
    return lowered


def numpy_scan(data: np.ndarray, axis: int, reverse: bool) -> np.ndarray:
    x = np.flip(data, axis) if reverse else data
    out = np.cumsum(x, axis=axis, dtype=data.dtype)
    return np.flip(out, axis) if reverse else out


# ------------------------------------------------------------------------------------- cases


def blocked(spt: list[int], tpw: list[int], wpc: list[int], order: list[int]) -> str:
    return (
        f"#tl.blocked<{{sizePerThread = {spt}, threadsPerWarp = {tpw}, warpsPerCTA = {wpc}, "
        f"order = {order}}}>"
    )


MMA = (
    "#tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], "
    "instrShape = [16, 8]}>"
)

FAMILY = [
    # registers, then lanes, then warps along the axis (Triton's common case)
    ("blocked-1d", blocked([4], [32], [4], [0]), (1024,), 0, False, "f32", "cumsum"),
    ("blocked-1d-rev", blocked([2], [32], [4], [0]), (512,), 0, True, "i32", "cumsum"),
    # the tensor is four CTA tiles long: register bits above the warp bits
    ("blocked-repeat", blocked([1], [32], [4], [0]), (512,), 0, False, "f16", "cumsum"),
    ("rows", blocked([1, 4], [4, 8], [4, 1], [1, 0]), (16, 64), 1, False, "f32", "cummax"),
    ("rows-rev", blocked([1, 4], [4, 8], [4, 1], [1, 0]), (16, 64), 1, True, "i64", "pair"),
    ("cols", blocked([1, 4], [4, 8], [4, 1], [1, 0]), (32, 32), 0, False, "f64", "cumsum"),
    ("cols-warps", blocked([2, 1], [8, 4], [2, 2], [0, 1]), (64, 16), 0, True, "i8", "cummax"),
    ("broadcast", blocked([1, 1], [8, 4], [4, 1], [1, 0]), (16, 2), 0, False, "i16", "cumsum"),
    ("mma-cols", MMA, (32, 32), 1, False, "f32", "pair"),
    ("mma-rows-rev", MMA, (64, 16), 0, True, "f16", "cumsum"),
    (
        "dot-op-k-rev",
        f"#tl.dot_op<{{opIdx = 1, parent = {MMA}, kWidth = 2}}>",
        (32, 32),
        0,
        True,
        "f32",
        "pair",
    ),
    ("mask-xor", blocked([2], [32], [4], [0]), (256,), 0, False, "i1", "cumsum"),
    ("mask-or-rev", blocked([1, 2], [8, 4], [1, 4], [0, 1]), (16, 32), 1, True, "i1", "cummax"),
]


@pytest.mark.parametrize(
    ("layout", "shape", "axis", "reverse", "dtype", "kind"),
    [c[1:] for c in FAMILY],
    ids=[c[0] for c in FAMILY],
)
def test_family_layouts(
    layout: str, shape: tuple[int, ...], axis: int, reverse: bool, dtype: str, kind: str
) -> None:
    check(scan_kernel(layout, shape, axis, reverse, dtype, kind), dtype, kind, shape)


def test_mfma_layout_on_64_lanes() -> None:
    """An AMD mfma accumulator (32x32, transposed) on warps of 64 lanes."""
    layout = (
        "#tl.amd_mfma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [2, 2], "
        "instrShape = [32, 32], isTransposed = true}>"
    )
    text = scan_kernel(layout, (64, 64), 1, False, "f32", "cumsum", 4, 64)
    check(text.replace('"cuda:80"', '"hip:gfx942"'), "f32", "cumsum", (64, 64))


def test_slice_layout() -> None:
    """A 1-D scan in a slice of a 2-D blocked layout: the sliced-away lanes hold copies."""
    parent = blocked([1, 2], [4, 8], [2, 2], [1, 0])
    layout = f"#tl.slice<{{dim = 0, parent = {parent}}}>"
    check(scan_kernel(layout, (64,), 0, False, "f32", "cumsum"), "f32", "cumsum", (64,))


DTYPES = ["f32", "f16", "i32", "i64", "f64", "i8", "i1"]
KINDS = ["cumsum", "cummax", "pair"]


@pytest.mark.parametrize("seed", [*range(16), 130])  # 130: f64 values moved and computed
def test_random_linear_layouts(seed: int) -> None:
    """Unit-basis linear layouts in a random bit order, some lanes/warps broadcast, 4 warps of
    32 lanes (every fourth seed 2 warps of 64 lanes), any axis, either direction."""
    rng = np.random.default_rng(seed)
    rank = 1 + seed % 2
    lane_bits, warp_bits = (6, 1) if seed % 4 == 3 else (5, 2)
    total = int(rng.integers(lane_bits + warp_bits, lane_bits + warp_bits + 3))
    if rank == 1:
        dims = [total]
    else:
        first = int(rng.integers(1, total))
        dims = [first, total - first]
    broadcast = int(rng.integers(0, 3))
    ll = random_distributed(seed, dims, lane_bits, warp_bits, broadcast=broadcast)
    shape = tuple(1 << d for d in dims)
    axis = int(rng.integers(0, rank))
    reverse = bool(rng.integers(0, 2))
    dtype = DTYPES[seed % len(DTYPES)]
    kind = KINDS[seed % len(KINDS)]
    text = scan_kernel(
        linear_attr(ll), shape, axis, reverse, dtype, kind, 1 << warp_bits, 1 << lane_bits
    )
    check(text, dtype, kind, shape, seed)


PTX_CASES = [
    c
    for c in FAMILY
    # shfl.up and one shared buffer; an i64 pair reversed (shfl.down on 32-bit halves); i8 values
    # packed into shuffles and shared bytes; i1 as bytes; mma f16
    if c[0] in ("blocked-1d", "rows-rev", "cols-warps", "mask-xor", "mma-rows-rev")
]


def test_ptx_assembles() -> None:
    """``-t ptx`` of scans over every width and both shuffle directions, plus a random layout
    whose lanes along the axis are out of order (``shfl.sync.idx`` with computed lanes),
    assembles with ptxas."""
    from llc.passes.targets.ptx import emit_ptx
    from llc.testing.ptxas import assemble, find_ptxas

    if find_ptxas() is None:
        pytest.skip("no ptxas (pip install -e '.[test]')")
    texts = [scan_kernel(*c[1:]) for c in PTX_CASES]
    ll = random_distributed(2, [9], 5, 2)
    texts.append(scan_kernel(linear_attr(ll), (512,), 0, True, "f32", "pair"))
    for text in texts:
        ptx = emit_ptx(lower(text))
        assert assemble(ptx, "sm_80") == ""
    assert len(texts) == 6
    assert "shfl.sync.up.b32" in emit_ptx(lower(texts[0]))
    assert "shfl.sync.down.b32" in emit_ptx(lower(texts[1]))
    assert "shfl.sync.idx.b32" in emit_ptx(lower(texts[-1]))


def test_float_scans_compare_to_a_tolerance() -> None:
    """On normal random floats the lowered sums reassociate: ``check_same_semantics`` (what
    ``llc-compile`` tests and the lit checks use) compares a scan's outputs to a tolerance, as it
    does a reduction's, and would report a mismatch at the first differing bit otherwise."""
    from llc.testing.semantics import check_same_semantics

    text = scan_kernel(FAMILY[0][1], (1024,), 0, False, "f32", "cumsum")
    lowered = lower(text)
    data = np.random.default_rng(0).standard_normal(1024).astype(np.float32)
    (want,) = run_scan(parse(text), data, "cumsum", "f32")
    (got,) = run_scan(lowered, data, "cumsum", "f32")
    assert want.tobytes() != got.tobytes()  # the orders differ
    report = check_same_semantics(text, lowered, entry="scan", buffer_elements=1024)
    assert "%out" in report.tolerant


def test_the_gpu_dry_run_fails_when_llc_cannot_compile_a_case(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``bench/gpu.py --dry-run`` exits 1 when llc's own PTX of a case fails (as the scan's did
    before it was lowered), 0 when every way compiles."""
    import importlib.util
    import sys
    from pathlib import Path

    pytest.importorskip("triton", reason="bench/gpu.py needs Triton (pip install triton)")
    path = Path(__file__).resolve().parents[2] / "bench" / "gpu.py"
    spec = importlib.util.spec_from_file_location("llc_bench_gpu", path)
    assert spec is not None and spec.loader is not None
    gpu = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "llc_bench_gpu", gpu)
    spec.loader.exec_module(gpu)
    row = {"case": "scan", "triton_s": 0.1, "triton_llc_s": 0.1, "layouts": "llc layouts: cvt 0"}
    row |= {"llc_in_ttgir": True, "llc_s": 0.1}
    case = gpu.cases()[-1]
    for llc_ptx, status in (("FAILED: no SIMT lowering", 1), ("ptxas ok (9 lines)", 0)):
        monkeypatch.setattr(gpu, "dry_run_case", lambda c, a, p=llc_ptx: row | {"llc_ptx": p})
        assert gpu.dry_run([case], 90) == status
    assert "no SIMT lowering" in capsys.readouterr().out


def test_the_tensor_level_is_numpy_cumsum() -> None:
    """The reference itself: the tensor level agrees with ``numpy.cumsum`` both ways."""
    layout = blocked([1, 4], [4, 8], [4, 1], [1, 0])
    data = inputs(np.random.default_rng(1), "i32", (16, 64))
    for reverse in (False, True):
        text = scan_kernel(layout, (16, 64), 1, reverse, "i32", "cumsum")
        (got,) = run_scan(parse(text), data, "cumsum", "i32")
        assert np.array_equal(got, numpy_scan(data, 1, reverse))


def test_axis_holders_finds_each_bit_once() -> None:
    from llc.passes.lower_scan import axis_holders

    ll = random_distributed(3, [3, 4], 5, 2)
    holders = axis_holders(ll, 1, 4)
    assert len(set(holders)) == 4
    for k, (in_dim, pos) in enumerate(holders):
        assert [int(x) for x in ll.basis(in_dim, pos)] == [0, 1 << k]
    with pytest.raises(LayoutError, match="no hardware bit holds bit 4"):
        axis_holders(ll, 1, 5)
    # (the tl dialect refuses such layouts; a LinearLayout may still have them)
    mixed = LinearLayout.from_bases(
        [("register", [[1, 1]]), ("lane", [[0, 1], [1, 0]])], ["dim0", "dim1"], [2, 2]
    )
    with pytest.raises(LayoutError, match="mixes the scanned dim with other dims"):
        axis_holders(mixed, 0, 1)
    twice = LinearLayout.from_bases([("register", [[1]]), ("lane", [[1], [0]])], ["dim0"], [2])
    with pytest.raises(LayoutError, match="held twice"):
        axis_holders(twice, 0, 1)
