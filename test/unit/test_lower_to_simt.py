"""Whole-kernel lowering: random kernels through llc-compile run by the SIMT interpreter with the
tensor-level results; lowering and interpreter errors are located.

``LLC_LOWERED_KERNELS`` (default 100) sets how many generated kernels the default run lowers.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from llc.passes.compile import lowerable_mma_version
from llc.testing.barrier_deletion import lowered_generated_kernel
from llc.testing.kernel_gen import generate_kernel
from llc.testing.semantics import check_same_semantics, parse

NUM_KERNELS = int(os.environ.get("LLC_LOWERED_KERNELS", "100"))
ROOT = Path(__file__).resolve().parents[2]


# One xdist group per seed (pyproject's --dist loadgroup): test_barriers.py's deletion test of the
# same kernel runs on the same worker and finds its compilation cached.
@pytest.mark.parametrize(
    "seed",
    [pytest.param(s, marks=pytest.mark.xdist_group(f"kernel{s}")) for s in range(NUM_KERNELS)],
)
def test_random_kernel_lowered_runs_like_tensor_level(seed: int) -> None:
    """Layout-free kernel -> llc-compile -> SIMT interpreter == tensor-level interpreter (bit
    for bit, except the outputs a dot feeds, which may reassociate)."""
    kernel = generate_kernel(seed)
    # the compilation test_barriers.py's deletion test reuses (cached per process)
    lowered = str(lowered_generated_kernel(seed))
    check_same_semantics(
        kernel.layout_free,
        lowered,
        entry=kernel.entry,
        grid=kernel.grid,
        buffer_elements=kernel.buffer_elements,
    )
    assert "tensor<" not in lowered
    assert "gpu.thread_id" in lowered


def _compile(text: str) -> str:
    module = parse(text)
    from llc.testing.semantics import apply_pipeline

    apply_pipeline(module, "llc-compile")
    return str(module)


VECTOR_ADD = (ROOT / "examples" / "ttir" / "vector_add.mlir").read_text()


def _run(tmp_path: Path, text: str, *args: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "k.mlir"
    path.write_text(text)
    cmd = [sys.executable, "-m", "llc.tools.run", str(path), *args]
    return subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=tmp_path)


def test_vector_add_stats_and_buffers(tmp_path: Path) -> None:
    lowered = _compile(VECTOR_ADD)
    x = np.arange(4096, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", 2 * x)
    proc = _run(
        tmp_path,
        lowered,
        "--grid", "4", "--stats", "--out", "out",
        "--args", "x.npy", "y.npy", "zeros:4096xf32", "4096",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert np.array_equal(np.load(tmp_path / "out" / "out_ptr.npy"), 3 * x)
    # 1024 elements per program, 4 per access: 2 loads of x, 2 of y, 2 stores per thread
    assert "ld.global.b128 4" in proc.stdout and "st.global.b128 2" in proc.stdout
    # 3 buffers x 16 KiB: every sector once
    assert "global memory: 1536 sectors of 32 bytes (minimum 1536 for 49152 bytes)" in proc.stdout


def test_out_of_bounds_access_is_located(tmp_path: Path) -> None:
    """The mask says 4096 elements, the buffer has 1000: the lowered load reports it."""
    lowered = _compile(VECTOR_ADD)
    proc = _run(
        tmp_path, lowered, "--args", "zeros:1000xf32", "zeros:1000xf32", "zeros:1000xf32", "4096"
    )
    assert proc.returncode == 1
    assert "k.mlir:" in proc.stderr and "simt.global_load" in proc.stderr
    assert "out-of-bounds access" in proc.stderr and "Traceback" not in proc.stderr


def test_misaligned_vector_access_is_located(tmp_path: Path) -> None:
    """A pointer 4 bytes off its 16-byte alignment breaks the 128-bit accesses."""
    lowered = _compile(VECTOR_ADD)
    # shift every access by one element: the buffer pointer itself is misaligned
    lines = lowered.splitlines()
    at = next(i for i, line in enumerate(lines) if "simt.ptr_to_int %x_ptr" in line)
    name = lines[at].split("=")[0].strip()
    lines.insert(at + 1, "    %c4_shift = arith.constant 4 : i64")
    lines.insert(at + 2, f"    %x_shifted = arith.addi {name}, %c4_shift : i64")
    body = "\n".join(lines[at + 3 :])
    body = body.replace(f"{name} ", "%x_shifted ").replace(f"{name},", "%x_shifted,")
    text = "\n".join(lines[: at + 3]) + "\n" + body
    proc = _run(
        tmp_path, text, "--args", "zeros:1024xf32", "zeros:1024xf32", "zeros:1024xf32", "1024"
    )
    assert proc.returncode == 1, proc.stdout
    assert "misaligned 128-bit access" in proc.stderr and "simt.global_load" in proc.stderr


def test_compile_picks_lowerable_mma_versions() -> None:
    assert lowerable_mma_version("cuda:90", 32, 3) == (3, "")  # wgmma: no fallback, no remark
    assert lowerable_mma_version("cuda:90", 32, 0) == (0, "")
    assert lowerable_mma_version("cuda:80", 32, 3)[0] == 2
    version, remark = lowerable_mma_version("hip:gfx942", 64, 0)
    assert version == 1 and "mfma" in remark
    assert lowerable_mma_version("cuda:80", 32, 0) == (0, "")


def test_unsupported_op_is_a_located_error(tmp_path: Path) -> None:
    text = """module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32} {
  func.func @k(%p: !tl.ptr<f32>) {
    %r = tl.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %base = tl.splat %p : !tl.ptr<f32> -> tensor<128x!tl.ptr<f32>>
    %ptrs = tl.addptr %base, %r : tensor<128x!tl.ptr<f32>>, tensor<128xi32>
    %x = tl.load %ptrs : tensor<128x!tl.ptr<f32>>
    %m = tensor.empty() : tensor<128xf32>
    tl.store %ptrs, %m : tensor<128x!tl.ptr<f32>>
    func.return
  }
}
"""
    path = tmp_path / "k.mlir"
    path.write_text(text)
    cmd = [sys.executable, "-m", "llc.tools.opt", str(path), "-p", "llc-compile"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    assert "k.mlir:7:" in proc.stderr and "has no SIMT lowering" in proc.stderr


def test_missing_barrier_is_a_located_race(tmp_path: Path) -> None:
    """Softmax's cross-warp reduction without its barrier: the shared load races."""
    lowered = _compile((ROOT / "examples" / "ttir" / "softmax.mlir").read_text())
    lines = lowered.splitlines()
    store = next(i for i, line in enumerate(lines) if "simt.shared_store" in line)
    barrier = next(i for i in range(store, len(lines)) if "gpu.barrier" in lines[i])
    del lines[barrier]
    x = np.random.default_rng(0).standard_normal((8, 200)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    proc = _run(
        tmp_path, "\n".join(lines), "--grid", "2",
        "--args", "zeros:8x200xf32", "x.npy", "200", "200", "8", "200",
    )  # fmt: skip
    assert proc.returncode == 1
    assert "simt.shared_load" in proc.stderr and "race" in proc.stderr
    assert "k.mlir:" in proc.stderr and "Traceback" not in proc.stderr


def test_a_triton_reduce_region_with_comparisons_lowers() -> None:
    """Triton's argmax (examples/triton/argmax_rows): its combine region compares with
    ``arith.cmpf``, which the importer reads as ``tl.cmpf``. The region runs on register
    vectors through the one region vectorizer ``tl.map_elementwise`` bodies also use (the
    reduce had its own, which built an invalid ``tl.cmpf`` on vectors)."""
    from llc.dialects.ttgir import HardwareDefaults, parse_triton_module
    from llc.testing.semantics import apply_pipeline

    path = Path(__file__).resolve().parents[2] / "examples" / "triton" / "argmax_rows.sm80.ttir"
    text = path.read_text()
    defaults = HardwareDefaults(target="cuda:80")
    before = parse_triton_module(text, str(path), defaults)
    after = parse_triton_module(text, str(path), defaults)
    apply_pipeline(after, "llc-compile")
    assert "simt.compare" in str(after)
    report = check_same_semantics(before, after, entry="argmax_rows")
    assert report.compared == 3
