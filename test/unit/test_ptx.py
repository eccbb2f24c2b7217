"""The PTX emitter (``-t ptx``): every PTX module the tests emit is assembled by ptxas for its
target with no error and no warning; conversion kernels write their input back (SIMT
interpreter, and the GPU where there is one)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from llc.passes.conversion_kernel import (
    conversion_kernel,
    conversion_kernel_text,
    conversion_ptx,
    run_conversion_kernel,
)
from llc.passes.targets.ptx import emit_ptx, shared_bytes
from llc.testing.ptxas import assemble, find_ptxas

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = sorted(
    f[: -len(".mlir")] for f in os.listdir(os.path.join(ROOT, "examples")) if f.endswith(".mlir")
)
DTYPES = {"f32": np.float32, "f16": np.float16, "i8": np.int8, "i16": np.int16, "i64": np.int64}

needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="ptxas not installed")


def _gpu() -> bool:
    from llc.tools.gpu_run import gpu_available

    return gpu_available()


gpu = pytest.mark.gpu
_PY = (sys.executable, "-m")


def _suite() -> list:
    spec = importlib.util.spec_from_file_location(
        "bench_conversions", f"{ROOT}/bench/conversions.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module._suite()


SUITE = _suite()


def _compile(name: str, target: str = "", solver: str = ""):
    """``llc-compile`` of an example; with ``solver``, its layout step (mma v2, as llc-compile
    asks for) under that layout solver, then the SIMT lowering."""
    from xdsl.dialects.builtin import StringAttr

    from llc.dialects.diagnostics import parse_module
    from llc.passes.compile import CompilePass
    from llc.passes.conversion_kernel import _context
    from llc.passes.layout_passes import OptimizeLayoutsPass
    from llc.passes.lower_to_simt import LowerToSimtPass

    ctx = _context()
    path = os.path.join(ROOT, "examples", f"{name}.mlir")
    with open(path) as f:
        module = parse_module(ctx, f.read(), path)
    if target:
        module.attributes["tl.target"] = StringAttr(target)
    if solver:
        OptimizeLayoutsPass(mma_version=2, solver=solver).apply(ctx, module)
        LowerToSimtPass().apply(ctx, module)
    else:
        CompilePass().apply(ctx, module)
    return module


def _arch(ptx: str) -> str:
    found = re.search(r"^\.target (sm_\d+)", ptx, re.M)
    assert found
    return found.group(1)


@needs_ptxas
@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_assembles(name: str) -> None:
    module = _compile(name)
    ptx = emit_ptx(module)
    assert ptx.startswith(".version 8.0\n.target sm_")
    assert "\n.address_size 64\n" in ptx
    kernels = [op for op in module.body.block.ops if op.name == "func.func"]
    assert ptx.count(".visible .entry ") == len(kernels) >= 1
    assert assemble(ptx, _arch(ptx)) == ""


@needs_ptxas
def test_attention_uses_ldmatrix_on_sm80_and_stmatrix_only_on_sm90() -> None:
    # examples/attention.mlir targets cuda:80: stmatrix (sm_90+) must not appear, ptxas would
    # refuse it; ldmatrix (sm_75+) loads its dot operands. As cuda:90 it stores through stmatrix.
    # The staged assignment stages the operands through shared memory (the layout solver loads
    # them straight into their dot_op layouts instead, which moves nothing through shared memory).
    sm80 = emit_ptx(_compile("attention", solver="staged"))
    assert _arch(sm80) == "sm_80"
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {" in sm80 and "stmatrix" not in sm80
    module = _compile("attention", target="cuda:90", solver="staged")
    sm90 = emit_ptx(module)
    assert "stmatrix.sync.aligned.m8n8.x4.shared.b16 [" in sm90
    for ptx, arch in ((sm80, "sm_80"), (sm90, "sm_90")):
        # assemble raises on any error; the one warning left is attention's register spill.
        warnings = [w for w in assemble(ptx, arch).splitlines() if "spilled" not in w]
        assert warnings == []
    with pytest.raises(RuntimeError, match=r"stmatrix' requires \.target sm_90"):
        assemble(sm90.replace(".target sm_90", ".target sm_80"), "sm_80")


@needs_ptxas
def test_target_follows_module_and_option() -> None:
    module = _compile("vector_add")  # tl.target = "cuda:90"
    assert _arch(emit_ptx(module)) == "sm_90"
    ptx80 = emit_ptx(module, "sm_80")
    assert _arch(ptx80) == "sm_80"
    assert assemble(ptx80, "sm_80") == ""


def test_mma_barriers_and_vector_loads() -> None:
    ptx = emit_ptx(_compile("matmul"))
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in ptx
    assert "bar.sync 0;" in ptx
    # vector_add's lowering moves 4 floats per access, with its mask as predicate
    assert re.search(
        r"@%p\d+ ld\.global\.v4\.b32 \{%r\d+, %r\d+, %r\d+, %r\d+\}",
        emit_ptx(_compile("vector_add")),
    )


@needs_ptxas
@pytest.mark.parametrize("case", range(len(SUITE)), ids=[f"{s[0]} {s[4]}" for s in SUITE])
def test_conversion_suite_kernels(case: int) -> None:
    """The conversion suite (bench/conversions.py): the kernel copies its input in the SIMT
    interpreter and its PTX assembles cleanly."""
    _, src, dst, shape, dtype = SUITE[case]
    module = conversion_kernel(src, dst, shape, dtype, src.num_warps)
    rng = np.random.default_rng(case)
    x = rng.integers(-100, 100, size=shape).astype(DTYPES[dtype])
    assert np.array_equal(run_conversion_kernel(module, x), x)
    ptx = emit_ptx(module)
    assert ptx.count(".visible .entry kernel(") == 1
    assert re.search(r"\.param \.u64 kernel_param_0,\n\t\.param \.u64 kernel_param_1\n\)", ptx)
    assert assemble(ptx, "sm_90") == ""


def _validation_sample(count: int) -> list:
    """Pairs of the translation-validation suite that a kernel can take (32 lanes, layouts a
    ``#tl.linear`` can spell), every other kind represented."""
    sys.path.insert(0, os.path.dirname(__file__))
    from conversion_pairs import random_pair

    from llc.errors import LayoutError
    from llc.layouts.linear import DistributedLinearLayout

    picked = []
    seed = 0
    while len(picked) < count and seed < 2000:
        src, dst, bits, kind = random_pair(seed)
        seed += 1
        try:
            a = DistributedLinearLayout.from_linear_layout(src)
            b = DistributedLinearLayout.from_linear_layout(dst)
        except LayoutError:
            continue
        if a.threads_per_warp_total != 32 or src.total_out_size > 1 << 13:
            continue
        shape = [src.get_out_dim_size(d) for d in src.get_out_dim_names()]
        picked.append((seed - 1, a, b, bits, kind, shape))
    return picked


VALIDATION = _validation_sample(16)


@needs_ptxas
@pytest.mark.parametrize("pair", VALIDATION, ids=[f"seed{p[0]}-{p[4]}-{p[3]}b" for p in VALIDATION])
def test_translation_validation_sample(pair) -> None:
    seed, src, dst, bits, _, shape = pair
    dtype = {8: "i8", 16: "f16", 32: "f32", 64: "i64"}[bits]
    module = conversion_kernel(src, dst, shape, dtype, src.num_warps)
    rng = np.random.default_rng(seed)
    x = rng.integers(-100, 100, size=shape).astype(DTYPES[dtype])
    assert np.array_equal(run_conversion_kernel(module, x), x)
    assert assemble(emit_ptx(module), "sm_90") == ""


def test_not_lowered_is_a_located_error() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "llc.tools.opt", "examples/vector_add.mlir", "-t", "ptx"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert re.search(
        r"examples/vector_add\.mlir:15:5: error: 'tl\.make_range' op -t ptx: the first op left "
        r"that is not lowered",
        done.stderr,
    ), done.stderr


def test_llc_layout_emit_ptx() -> None:
    src = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>"  # noqa: E501
    dst = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>"  # noqa: E501
    cmd = [sys.executable, "-m", "llc.tools.layout", src, "--to", dst, "--shape", "32x32"]
    done = subprocess.run(
        [*cmd, "--dtype", "f16", "--emit", "ptx", "--arch", "sm_80"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert ".target sm_80" in done.stdout and done.stdout.count(".entry") == 1
    assert "st.shared" in done.stdout and "bar.sync 0;" in done.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "llc.tools.layout", src, "--emit", "ptx"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 1 and "--emit ptx needs --to DST" in bad.stderr


def test_large_scratch_uses_dynamic_shared_memory() -> None:
    _, src, dst, shape, dtype = next(s for s in SUITE if "16 per thread" in s[0])
    ptx = conversion_ptx(src, dst, shape, dtype, src.num_warps)
    assert shared_bytes(ptx, "kernel") == 65536
    assert ".extern .shared .align 16 .b8 __llc_dynamic_smem[];" in ptx


# -- on the GPU ------------------------------------------------------------------------------


@gpu
@pytest.mark.parametrize("case", [0, 1, 3, 5, 6, 22, 27, 31], ids=lambda c: SUITE[c][0])
def test_conversion_kernels_on_gpu(case: int) -> None:
    if not _gpu():
        pytest.skip("no GPU or no cuda-python")
    from llc.tools.gpu_run import launch

    _, src, dst, shape, dtype = SUITE[case]
    ptx = conversion_ptx(src, dst, shape, dtype, src.num_warps)
    x = np.random.default_rng(case).integers(-100, 100, size=shape).astype(DTYPES[dtype])
    run = launch(
        ptx,
        "kernel",
        [x, np.zeros_like(x)],
        block=(32 * src.num_warps, 1, 1),
        shared_bytes=shared_bytes(ptx, "kernel"),
        repeat=2,
    )
    assert run.outputs[1].tobytes() == x.tobytes()


@gpu
def test_llc_run_gpu_vector_add(tmp_path) -> None:
    if not _gpu():
        pytest.skip("no GPU or no cuda-python")
    lowered = tmp_path / "k.mlir"
    subprocess.run(
        [
            *_PY,
            "llc.tools.opt",
            "examples/vector_add.mlir",
            "-p",
            "llc-compile",
            "-o",
            str(lowered),
        ],
        cwd=ROOT,
        check=True,
    )
    rng = np.random.default_rng(0)
    for name in ("x", "y"):
        np.save(tmp_path / f"{name}.npy", rng.standard_normal(4096).astype(np.float32))
    inputs = [str(tmp_path / "x.npy"), str(tmp_path / "y.npy"), "zeros:4096xf32", "4096"]
    done = subprocess.run(
        [*_PY, "llc.tools.run", str(lowered), "--grid", "4", "--gpu", "--args", *inputs],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "bit-identical to the interpreter's" in done.stdout


def test_conversion_kernels_vectorize_global_accesses() -> None:
    # The kernel's pointers are 16-byte aligned (tl.divisibility = 16, Triton's tt.divisibility):
    # a thread's registers contiguous along the row load and store as one access, up to 128
    # bits; registers running down a column (order [0, 1]) stay one element per access.
    from llc.layouts import BlockedLayout

    rows = BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
    cols = BlockedLayout([4, 1], [4, 8], [1, 4], [0, 1])
    ptx = conversion_ptx(rows, cols, [64, 64], "f32", 4)
    assert re.findall(r"ld\.global\S*", ptx) == ["ld.global.v4.b32"] * 8
    assert re.findall(r"st\.global\S*", ptx) == ["st.global.b32"] * 32
    back = conversion_ptx(cols, rows, [64, 64], "f16", 4)
    assert re.findall(r"st\.global\S*", back) == ["st.global.v2.b32"] * 8
    assert "kernel(%in: !tl.ptr<f32> {tl.divisibility = 16 : i32}" in conversion_kernel_text(
        rows, cols, [64, 64], "f32", 4
    )
    # a hint of 4 bytes allows no wider access than one f32
    low = conversion_kernel_text(rows, cols, [64, 64], "f32", 4, pointer_divisibility=4)
    low_ptx = emit_ptx(_lowered(low))
    assert "ld.global.v4" not in low_ptx and "ld.global.b32" in low_ptx


def _lowered(text: str):
    from llc.dialects.diagnostics import parse_module
    from llc.passes.conversion_kernel import _context
    from llc.passes.lower_to_simt import LowerToSimtPass

    ctx = _context()
    module = parse_module(ctx, text, "<kernel>")
    LowerToSimtPass().apply(ctx, module)
    return module


@gpu
def test_llc_run_gpu_while_loop(tmp_path) -> None:
    # test/lit/targets/ptx-while.mlir's kernel (scf.while with swapped loop-carried tensors) on
    # the GPU: its buffers equal the SIMT interpreter's
    if not _gpu():
        pytest.skip("no GPU or no cuda-python")
    lowered = tmp_path / "k.mlir"
    source = "test/lit/targets/ptx-while.mlir"
    subprocess.run(
        [*_PY, "llc.tools.opt", source, "-p", "llc-compile", "-o", str(lowered)],
        cwd=ROOT,
        check=True,
    )
    args = ["--entry", "fib", "--gpu", "--args", "zeros:256xi32", "10"]
    done = subprocess.run(
        [*_PY, "llc.tools.run", str(lowered), *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert "bit-identical to the interpreter's" in done.stdout
