"""llc's own Hopper back end (issue 21): ``llc-compile`` on ``cuda:90`` lowers mma v3 dots to
wgmma, and the result is checked by execution, by ptxas and by deleting its synchronization.

* the matmul, matmul-epilogue and flash-attention examples, retargeted to ``cuda:90``, give the
  SIMT interpreter the buffers the tensor-level interpreter gives (first program of the
  example's grid, on ``check_example.py``'s inputs);
* dots of other shapes, warps and types (several instruction tiles per warpgroup, warpgroups
  split along M or N, bf16, i8, tf32, e4m3) run like the tensor level;
* ptxas (when installed) assembles every emitted kernel for ``sm_90a`` with no output;
* each wgmma fence, commit, wait, ``fence.proxy.async`` and barrier deleted alone is reported by
  the interpreter (race, async-proxy error, accumulator read before its wait) or changes the
  outputs; ``test/unit/conftest.py`` prints the counts;
* the mma v3 accumulator's epilogue conversion to a blocked layout uses ``stmatrix``.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest
from example_runs import example_case, example_runner
from xdsl.dialects.builtin import ModuleOp

from llc.testing.barrier_deletion import (
    SYNC_OPS,
    Deletion,
    delete_each_sync,
    delete_each_sync_on_either,
)
from llc.testing.semantics import apply_pipeline, check_same_semantics, parse

ROOT = Path(__file__).resolve().parents[2]
HOPPER_EXAMPLES = ("matmul", "matmul_epilogue", "flash_attention")


def _hopper_text(name: str) -> str:
    text = (ROOT / "examples" / "ttir" / f"{name}.mlir").read_text()
    return text.replace('"tl.target" = "cuda:80"', '"tl.target" = "cuda:90"')


_COMPILED: dict[str, ModuleOp] = {}


def _compiled(name: str) -> ModuleOp:
    """The example on cuda:90 through llc-compile (once per process; left unchanged by users)."""
    if name not in _COMPILED:
        module = parse(_hopper_text(name))
        apply_pipeline(module, "llc-compile")
        _COMPILED[name] = module
    return _COMPILED[name]


# --------------------------------------------------------------------------------------
# The examples on cuda:90
# --------------------------------------------------------------------------------------

# wgmma ops per kernel (static): matmul's K step of 32 is two k16 wgmma on its one 64x64 tile;
# flash attention's q @ k^T (K = 64) four, p @ v (K = 32, A in registers) two. matmul_epilogue's
# operands come through tl.local_load: Triton 3.9 still gives the dot mma v3, with A read into
# registers and B staged again through an nvmma buffer (bench/accelerate_local_load.py), and so
# does llc.
WGMMA = {"matmul": 2, "matmul_epilogue": 2, "flash_attention": 6 * 3}
"""(flash attention is pipelined over 3 stages: its loop body, then two peeled iterations)"""


@pytest.mark.parametrize("name", HOPPER_EXAMPLES)
def test_example_on_cuda90_runs_like_the_tensor_level(name: str, tmp_path: Path) -> None:
    module = _compiled(name)
    text = str(module)
    assert text.count("simt.wgmma ") == WGMMA[name]
    if WGMMA[name]:
        assert "simt.mma_m16n8k16" not in text  # no mma v2 fallback
    case, entry = example_case(name, tmp_path)
    run = example_runner(case, entry)
    want = run(parse(_hopper_text(name)))
    got = run(module)
    assert want.keys() == got.keys()
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-4, atol=1e-4, err_msg=key)


def test_flash_attention_reads_p_from_registers() -> None:
    """``p @ v``: A (the softmax numerators) stays in registers as the accumulator's dot
    operand; B (v) and both operands of ``q @ k^T`` come from descriptors."""
    text = str(_compiled("flash_attention"))
    wgmma = [line for line in text.splitlines() if "simt.wgmma " in line]
    from_registers = [line for line in wgmma if ": vector<8xf16>, vector<" in line]
    # the loop's and the two peeled iterations' (3 stages)
    assert len(from_registers) == 2 * 3 and all("a_smem" not in line for line in from_registers)
    assert sum("a_smem" in line for line in wgmma) == 4 * 3


# --------------------------------------------------------------------------------------
# Dots of other shapes, warps and types
# --------------------------------------------------------------------------------------


def dot_kernel(m: int, n: int, k: int, warps: int, elem: str = "f16", out: str = "f32") -> str:
    """``C = A @ B`` (row-major, one program) on cuda:90; ``out`` f16 truncates the f32 sums,
    i8 operands accumulate in i32, f32 operands multiply in tf32, fp8 ones with
    ``maxNumImpreciseAcc = 32``."""
    acc = "i32" if elem == "i8" else "f32"
    out = "i32" if elem == "i8" else out

    def t(shape: tuple[int, ...], e: str) -> str:
        return f"tensor<{'x'.join(map(str, shape))}x{e}>"

    lines = [
        f'module attributes {{"tl.num-warps" = {warps} : i32, "tl.threads-per-warp" = 32 : i32, '
        '"tl.target" = "cuda:90"} {',
        f"  func.func @dot(%a_ptr: !tl.ptr<{elem}>, %b_ptr: !tl.ptr<{elem}>, "
        f"%c_ptr: !tl.ptr<{out}>) {{",
    ]
    for x, (r, c), e in (("a", (m, k), elem), ("b", (k, n), elem), ("c", (m, n), out)):
        i2 = t((r, c), "i32")
        p = f"!tl.ptr<{e}>"
        lines += [
            f"    %{x}_r = tl.make_range {{end = {r} : i32, start = 0 : i32}} : tensor<{r}xi32>",
            f"    %{x}_c = tl.make_range {{end = {c} : i32, start = 0 : i32}} : tensor<{c}xi32>",
            f"    %{x}_r2 = tl.expand_dims %{x}_r {{axis = 1 : i32}} : tensor<{r}xi32> -> "
            f"{t((r, 1), 'i32')}",
            f"    %{x}_c2 = tl.expand_dims %{x}_c {{axis = 0 : i32}} : tensor<{c}xi32> -> "
            f"{t((1, c), 'i32')}",
            f"    %{x}_rb = tl.broadcast %{x}_r2 : {t((r, 1), 'i32')} -> {i2}",
            f"    %{x}_cb = tl.broadcast %{x}_c2 : {t((1, c), 'i32')} -> {i2}",
            f"    %{x}_ld = arith.constant {c} : i32",
            f"    %{x}_s = tl.splat %{x}_ld : i32 -> {i2}",
            f"    %{x}_ro = arith.muli %{x}_rb, %{x}_s : {i2}",
            f"    %{x}_off = arith.addi %{x}_ro, %{x}_cb : {i2}",
            f"    %{x}_base = tl.splat %{x}_ptr : {p} -> tensor<{r}x{c}x{p}>",
            f"    %{x}_p = tl.addptr %{x}_base, %{x}_off : tensor<{r}x{c}x{p}>, {i2}",
        ]
        if x != "c":
            lines.append(f"    %{x} = tl.load %{x}_p : tensor<{r}x{c}x{p}>")
    zero = "0" if acc == "i32" else "0.0"
    precision = ' {tt.inputPrecision = "tf32"}' if elem == "f32" else ""
    if elem.startswith("f8"):  # Triton takes wgmma for fp8 only with this (as the fixtures have)
        precision = " {maxNumImpreciseAcc = 32 : i32}"
    lines += [
        f"    %z = tl.constant {zero} : {t((m, n), acc)}",
        f"    %d = tl.dot %a, %b, %z{precision} : {t((m, k), elem)} * {t((k, n), elem)} -> "
        f"{t((m, n), acc)}",
    ]
    result = "%d"
    if out != acc:
        lines.append(f"    %h = arith.truncf %d : {t((m, n), acc)} to {t((m, n), out)}")
        result = "%h"
    lines += [f"    tl.store %c_p, {result} : tensor<{m}x{n}x!tl.ptr<{out}>>", "    func.return"]
    return "\n".join([*lines, "  }", "}"])


# (M, N, K, warps, element, output): wgmma count, instruction N
DOTS = {
    "8 warps split N": ((64, 64, 32, 8, "f16", "f32"), 2, 32),
    "two M tiles": ((128, 64, 32, 4, "f16", "f32"), 4, 64),
    "two N tiles of 256": ((64, 512, 16, 4, "f16", "f32"), 2, 256),
    "f16 epilogue": ((64, 256, 16, 4, "f16", "f16"), 1, 256),
    "8 warps split M, dynamic shared": ((128, 256, 128, 8, "f16", "f16"), 8, 256),
    "bf16": ((64, 64, 32, 4, "bf16", "f32"), 2, 64),
    "i8": ((64, 64, 32, 4, "i8", "i32"), 1, 64),
    "tf32": ((64, 64, 32, 4, "f32", "f32"), 4, 64),
    "e4m3": ((64, 64, 64, 4, "f8E4M3FN", "f32"), 2, 64),
}
_DOT_MODULES: dict[str, ModuleOp] = {}


def _dot_module(key: str) -> ModuleOp:
    if key not in _DOT_MODULES:
        module = parse(dot_kernel(*DOTS[key][0]))
        apply_pipeline(module, "llc-compile")
        _DOT_MODULES[key] = module
    return _DOT_MODULES[key]


@pytest.mark.parametrize("key", list(DOTS))
def test_dot_runs_like_the_tensor_level(key: str) -> None:
    """Instruction tiles (``64 x instrShape[1]``; several per warpgroup when the tile is wider
    or taller), per-warpgroup descriptor offsets along M or N, and the element types."""
    (m, n, k, warps, elem, out), count, n_inst = DOTS[key]
    module = _dot_module(key)
    text = str(module)
    assert re.findall(r"simt\.wgmma .* n = (\d+)", text) == [str(n_inst)] * count
    # tf32: wgmma keeps 10 mantissa bits of each f32 operand, the tensor level all of them; an
    # f16 result may round the other way after the sums reassociate
    rtol = 1e-2 if elem == "f32" else 2e-3 if out == "f16" else 1e-4
    check_same_semantics(
        dot_kernel(m, n, k, warps, elem, out),
        module,
        entry="dot",
        buffer_elements=max(m * k, k * n, m * n),
        rtol=rtol,
        atol=rtol,
    )


# --------------------------------------------------------------------------------------
# ptxas
# --------------------------------------------------------------------------------------


OVER_BUDGET = "two N tiles of 256"
"""256 accumulator registers per thread: more than the 255 a thread has, so ptxas spills and
serializes the wgmma pipeline and says so (C7511). Triton 3.9's kernel of that tile (``tl.dot``
64x512x16, 4 warps, ``instrShape = [16, 256, 16]``, two m64n256k16) gets the same warning from
ptxas (bench/RESULTS.md, issue 21 session 3): llc-compile remarks on it instead, at the dot, and
the 8-warp kernel it suggests assembles silently (:func:`test_over_budget_tile_is_remarked`)."""


def _all_modules() -> list[tuple[str, ModuleOp]]:
    dots = [(k, _dot_module(k)) for k in DOTS if k != OVER_BUDGET]
    return [(n, _compiled(n)) for n in HOPPER_EXAMPLES] + dots


def test_ptxas_accepts_every_kernel_for_sm90a() -> None:
    from llc.passes.targets.ptx import emit_ptx
    from llc.testing.ptxas import assemble, find_ptxas

    wgmma = 0
    for name, module in _all_modules():
        ptx = emit_ptx(module)
        wgmma += ptx.count("wgmma.mma_async")
        if "wgmma" in ptx:
            assert ".target sm_90a" in ptx, name
        if "dynamic" in name:  # 96 KiB live at once: dynamic shared memory, aligned for the swizzle
            assert ".extern .shared .align 1024 .b8" in ptx
        if find_ptxas() is not None:
            assert assemble(ptx, "sm_90a") == "", name
    dots = sum(count for key, (_, count, _) in DOTS.items() if key != OVER_BUDGET)
    assert wgmma == sum(WGMMA.values()) + dots
    if find_ptxas() is None:
        pytest.skip("ptxas not found (pip install nvidia-cuda-nvcc): PTX emitted, not assembled")


def test_over_budget_tile_is_remarked(capsys: pytest.CaptureFixture[str]) -> None:
    """The 64x512 f32 accumulator on 4 warps: llc-compile says, at the dot, that it needs 256
    registers per thread and suggests 8 warps; with 8 warps there is no remark and ptxas
    assembles the kernel with no output."""
    from llc.dialects.diagnostics import parse_module
    from llc.passes.targets.ptx import emit_ptx
    from llc.testing.ptxas import assemble, find_ptxas
    from llc.testing.semantics import _context

    (m, n, k, warps, elem, out), _, _ = DOTS[OVER_BUDGET]
    module = parse_module(_context(), dot_kernel(m, n, k, warps, elem, out), "dot.mlir")
    apply_pipeline(module, "llc-compile")
    _DOT_MODULES.setdefault(OVER_BUDGET, module)
    err = capsys.readouterr().err
    assert re.search(
        r"remark: llc-compile: dot\.mlir:\d+:\d+: the 64x512 accumulator needs 256 registers per "
        r"thread with 4 warps, .* use 8 warps \(num_warps=8\)",
        err,
    ), err
    wide = parse(dot_kernel(m, n, k, 8, elem, out))
    apply_pipeline(wide, "llc-compile")
    assert "remark" not in capsys.readouterr().err
    ptx = emit_ptx(wide)
    assert ptx.count("wgmma.mma_async") == 1  # m64n256k16, each warpgroup on its half of N
    if find_ptxas() is None:
        pytest.skip("ptxas not found (pip install nvidia-cuda-nvcc): PTX emitted, not assembled")
    assert assemble(ptx, "sm_90a") == ""


# --------------------------------------------------------------------------------------
# Every synchronization op is needed
# --------------------------------------------------------------------------------------


def _record(request: pytest.FixtureRequest, name: str, deletions: list[Deletion]) -> None:
    for kind in SYNC_OPS:
        mine = [d for d in deletions if d.after.startswith(kind + " ")]
        request.node.user_properties.append((f"sync_deleted {kind}", len(mine)))
        request.node.user_properties.append(
            (f"sync_caught {kind}", sum(bool(d.caught) for d in mine))
        )
    missed = [d for d in deletions if not d.caught]
    assert not missed, (
        f"{name}: deleting {missed[0].after} (#{missed[0].index}) changes nothing: the lowering "
        "should not emit it"
    )


@pytest.mark.parametrize("name", ["matmul", "flash_attention"])
def test_every_sync_op_of_an_example_is_needed(
    name: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    module = _compiled(name)
    case, entry = example_case(name, tmp_path)
    run = example_runner(case, entry)
    if name == "flash_attention":
        # Also one key block (one trip: the pipelined loop runs none, the first peeled
        # iteration is the first to issue a wgmma): a deletion counts if either run reports it.
        short = example_runner(dataclasses.replace(case, args=[*case.args[:-1], "32"]), entry)
        long = run

        def run(m: ModuleOp) -> dict[str, np.ndarray]:
            return long(m) | {f"{k} (one trip)": v for k, v in short(m).items()}

    deletions = delete_each_sync(module, run)
    kinds = {d.after.split(" ")[0] for d in deletions}
    assert kinds == set(SYNC_OPS)  # each kind is there to delete
    _record(request, name, deletions)


@pytest.mark.parametrize("name", ["matmul", "matmul_epilogue"])
def test_every_sync_op_of_a_pipelined_example_is_needed(
    name: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The example with N and K hinted divisible by 16 (as Triton's launcher specializes them)
    is pipelined over 3 stages on cuda:90: ``cp.async`` rings that wgmma reads. It runs like
    the tensor level at K = 144 (the loop runs 3 iterations, then the 2 peeled ones) and at
    K = 32 (only the first peeled iteration runs), and deleting any fence, commit, wait or
    barrier, ``cp.async`` commits and waits included, is reported on one of the two; ptxas
    assembles it for sm_90a with no output.
    matmul's peeled products stay in flight (one wgmma wait after them: 2 in all);
    matmul_epilogue's restages B in each iteration, so each peeled iteration waits (3)."""
    text = re.sub(r"(%(?:N|K)): i32", r"\1: i32 {tl.divisibility = 16 : i32}", _hopper_text(name))
    module = parse(text)
    apply_pipeline(module, "llc-compile")
    names = [o.name for o in module.walk()]
    assert names.count("simt.wgmma") == 6 and names.count("simt.cp_async_commit_group") == 3
    assert names.count("simt.wgmma_wait_group") == {"matmul": 2, "matmul_epilogue": 3}[name]
    from llc.passes.targets.ptx import emit_ptx
    from llc.testing.ptxas import assemble, find_ptxas

    if find_ptxas() is not None:  # the products in flight keep their registers: no C7515
        assert assemble(emit_ptx(module), "sm_90a") == ""
    case, entry = example_case(name, tmp_path)
    runs = []
    for k in (144, 32):
        rng = np.random.default_rng(k)
        a, b = (rng.standard_normal(s).astype(np.float16) for s in ((64, k), (k, 64)))
        np.save(tmp_path / f"a{k}.npy", a)
        np.save(tmp_path / f"b{k}.npy", b)
        args = [str(tmp_path / f"a{k}.npy"), str(tmp_path / f"b{k}.npy"), *case.args[2:-3]]
        args = [*args[:-1], "zeros:64x64xf32", "64", "64", str(k)]
        runs.append(example_runner(dataclasses.replace(case, args=args, grid="1,1"), entry))
    for run in runs:
        want, got = run(parse(text)), run(module)
        for key in want:
            np.testing.assert_allclose(got[key], want[key], rtol=1e-4, atol=1e-4, err_msg=key)
    kinds = (*SYNC_OPS, "simt.cp_async_commit_group", "simt.cp_async_wait_group")
    long, both = delete_each_sync_on_either(module, (runs[0], runs[1]), kinds)
    # at K = 144 only matmul's first peeled commit may go: the second's would close its group
    # too; it matters when only the first peeled iteration runs
    missed = [d.after.split(" ")[0] for d in long if not d.caught]
    assert missed == {"matmul": ["simt.wgmma_commit_group"], "matmul_epilogue": []}[name]
    _record(request, name, both)


@pytest.mark.parametrize("key", ["two M tiles", "8 warps split N"])
def test_every_sync_op_of_a_dot_is_needed(key: str, request: pytest.FixtureRequest) -> None:
    from llc.testing.semantics import run_module

    module = _dot_module(key)
    (m, n, k, *_), _, _ = DOTS[key]

    def run(mod: ModuleOp) -> dict[str, np.ndarray]:
        return run_module(mod, entry="dot", buffer_elements=max(m * k, k * n, m * n))

    _record(request, key, delete_each_sync(module, run))


# --------------------------------------------------------------------------------------
# The epilogue: mma v3 accumulator -> blocked through stmatrix
# --------------------------------------------------------------------------------------


def test_v3_epilogue_conversion_plans_stmatrix() -> None:
    """The conversion planner treats the v3 accumulator as any linear layout: to Triton's
    epilogue layout (8 f16 per thread along a row) it stores with ``stmatrix`` on sm_90 and
    cannot on sm_80."""
    from llc.layouts import BlockedLayout
    from llc.layouts.nvidia import NvidiaMmaLayout
    from llc.lowering import plan_conversion

    for warps, shape, instr in (([4, 1], [64, 64], 64), ([8, 1], [128, 256], 256)):
        src = NvidiaMmaLayout(3, 0, warps, [16, instr, 16]).to_linear_layout(shape)
        dst = BlockedLayout([1, 8], [4, 8], [warps[0], 1], [1, 0]).to_linear_layout(shape)
        plan = plan_conversion(src, dst, 16, compute_capability=90)
        assert plan.instructions.get("stmatrix", 0) > 0, plan.instructions
        assert "stmatrix" not in plan_conversion(src, dst, 16, compute_capability=80).instructions


def test_v3_epilogue_lowers_to_stmatrix() -> None:
    """End to end: the f16 result of a 64x256 wgmma dot leaves its accumulator layout through
    ``stmatrix`` (and runs like the tensor level: ``test_dot_runs_like_the_tensor_level``)."""
    text = str(_dot_module("f16 epilogue"))
    assert text.count("simt.stmatrix") > 0
    assert text.index("simt.wgmma_wait_group") < text.index("simt.stmatrix")


# --------------------------------------------------------------------------------------
# What the lowering refuses
# --------------------------------------------------------------------------------------


def test_an_accumulator_that_is_not_wgmma_tiles_is_refused() -> None:
    """An mma v2 accumulator whose warps split N ([2, 2]) is no m64nN wgmma fragment (with
    warps [4, 1] it would be one: the same linear map as mma v3's)."""
    from llc.errors import LayoutError
    from llc.layouts.nvidia import NvidiaMmaLayout
    from llc.passes.lower_wgmma import plan_accumulator

    images = NvidiaMmaLayout(2, 0, [2, 2], [16, 8]).to_linear_layout([64, 64]).apply_all()
    coords = np.stack([images["dim0"], images["dim1"]], -1).reshape(128, -1, 2)
    with pytest.raises(LayoutError, match="m64n64 tile at"):
        plan_accumulator(coords, (64, 64), 64)


def test_a_wait_that_leaves_products_in_flight_is_a_located_error() -> None:
    from llc.passes.layout_passes import OptimizeLayoutsPass
    from llc.passes.lower_to_simt import LowerToSimtPass
    from llc.tools.opt import LLCOptMain

    ctx = LLCOptMain(["-"]).ctx
    module = parse(dot_kernel(64, 64, 32, 4))
    OptimizeLayoutsPass().apply(ctx, module)
    text = str(module).replace("pendings = 0", "pendings = 1")
    with pytest.raises(Exception, match="pendings = 1") as err:
        LowerToSimtPass().apply(ctx, parse(text))
    assert err.value.op.name == "tl.warp_group_dot_wait"


def test_a_product_read_before_its_wait_is_a_located_error() -> None:
    from llc.passes.layout_passes import OptimizeLayoutsPass
    from llc.passes.lower_to_simt import LowerToSimtPass
    from llc.tools.opt import LLCOptMain

    ctx = LLCOptMain(["-"]).ctx
    module = parse(dot_kernel(64, 64, 32, 4))
    OptimizeLayoutsPass().apply(ctx, module)
    wait = next(op for op in module.walk() if op.name == "tl.warp_group_dot_wait")
    wait.results[0].replace_all_uses_with(wait.operands[0])  # the store reads the product
    with pytest.raises(Exception, match=r"before a tl\.warp_group_dot_wait") as err:
        LowerToSimtPass().apply(ctx, parse(str(module)))
    assert err.value.op.name == "tl.warp_group_dot"


def test_a_buffer_no_descriptor_expresses_is_a_located_error() -> None:
    """B in a swizzled (not nvmma) layout that xors single elements: no wgmma descriptor
    addresses it; the error names the first misplaced element, at the tl.warp_group_dot."""
    from llc.passes.layout_passes import OptimizeLayoutsPass
    from llc.passes.lower_to_simt import LowerToSimtPass
    from llc.tools.opt import LLCOptMain

    ctx = LLCOptMain(["-"]).ctx
    module = parse(dot_kernel(64, 64, 32, 4))
    OptimizeLayoutsPass().apply(ctx, module)
    text = str(module)
    nvmma = re.search(r"!tl\.memdesc<32x64xf16, #tl\.nvmma_shared<[^>]*>>", text)
    assert nvmma is not None
    swizzled = "#tl.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 8, order = [1, 0]}>"
    text = text.replace(nvmma.group(0), f"!tl.memdesc<32x64xf16, {swizzled}>")
    with pytest.raises(Exception, match="no descriptor addresses operand b") as err:
        LowerToSimtPass().apply(ctx, parse(text))
    assert err.value.op.name == "tl.warp_group_dot" and "element (mn=" in str(err.value)


# --------------------------------------------------------------------------------------
# Triton's matmul-epilogue kernel (its TTIR fixture): wgmma, bias, leaky ReLU, f16 store
# --------------------------------------------------------------------------------------


def test_triton_matmul_epilogue_fixture_runs_like_the_tensor_level() -> None:
    """``examples/triton/matmul_epilogue.sm90.ttir`` (Triton's own TTIR of a 64x64x32 matmul
    with a bias and leaky-ReLU epilogue stored as f16) through ``llc-compile``: both operands
    come straight from loads, so the dot is mma v3 (two k16 wgmma per K step), and program
    (1, 0) of a 128x128x80 problem (K's tail masked; the kernel masks M and N on the store only)
    gives the tensor level's buffers."""
    from llc.dialects.ttgir import HardwareDefaults, parse_triton_module
    from llc.testing.triton_fixtures import run_matmul_epilogue

    ttir = (ROOT / "examples" / "triton" / "matmul_epilogue.sm90.ttir").read_text()

    def module() -> ModuleOp:
        return parse_triton_module(ttir, "matmul_epilogue", HardwareDefaults(4, 32, "cuda:90"))

    compiled = module()
    apply_pipeline(compiled, "llc-compile")
    assert str(compiled).count("simt.wgmma ") == 2

    def run(mod: ModuleOp) -> np.ndarray:
        return run_matmul_epilogue(mod, 128, 128, 80)

    want, got = run(module()), run(compiled)
    assert np.count_nonzero(want) > 4000  # program (1, 0): rows 64..127, columns 0..63
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3)
