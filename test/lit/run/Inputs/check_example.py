"""Run one example kernel with llc-run on seeded random inputs and check it against numpy.

    python check_example.py KERNEL EXAMPLE.mlir WORKDIR [LAYOUT_FREE.mlir]

KERNEL is one of vector_add, softmax, matmul_epilogue, layernorm, attention, transpose, colsum,
matmul, flash_attention. The script

1. writes the inputs (numpy, fixed seed) as .npy files into WORKDIR,
2. runs ``llc-run`` and compares every output buffer with numpy (``allclose``),
3. strips every layout from the kernel (``llc-opt -p llc-strip-layouts``), runs it again and
   requires bit-identical outputs: layouts never change values;
4. with LAYOUT_FREE.mlir (the hand-written layout-free form, ``examples/ttir/KERNEL.mlir``), runs
   that too and requires bit-identical outputs.

It prints ``KERNEL: OK ...`` on success and exits 1 with a message otherwise.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass
class Case:
    """Inputs (name -> array or literal), the kernel arguments, the grid and the reference."""

    args: list[str]
    grid: str
    expected: dict[str, np.ndarray]
    rtol: float
    atol: float


def _rng() -> np.random.Generator:
    return np.random.default_rng(1234)


def vector_add(work: str) -> Case:
    r = _rng()
    n = 4000
    x = r.standard_normal(n).astype(np.float32)
    y = r.standard_normal(n).astype(np.float32)
    _save(work, x=x, y=y)
    return Case(
        [f"{work}/x.npy", f"{work}/y.npy", f"zeros:{n}xf32", str(n)],
        "4",
        {"out_ptr": x + y},
        0,
        0,
    )


def softmax(work: str) -> Case:
    r = _rng()
    m, n = 37, 200
    x = (r.standard_normal((m, n)) * 4).astype(np.float32)
    _save(work, x=x)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    ref = e / e.sum(axis=1, keepdims=True)
    args = [f"zeros:{m}x{n}xf32", f"{work}/x.npy", str(n), str(n), str(m), str(n)]
    return Case(args, str(-(-m // 4)), {"out_ptr": ref}, 1e-5, 1e-7)


def matmul_epilogue(work: str) -> Case:
    r = _rng()
    m, n, k = 100, 72, 80
    a = r.standard_normal((m, k)).astype(np.float16)
    b = r.standard_normal((k, n)).astype(np.float16)
    bias = r.standard_normal(n).astype(np.float32)
    _save(work, a=a, b=b, bias=bias)
    ref = np.maximum(a.astype(np.float64) @ b.astype(np.float64) + bias, 0)
    args = [f"{work}/a.npy", f"{work}/b.npy", f"{work}/bias.npy", f"zeros:{m}x{n}xf32"]
    args += [str(m), str(n), str(k)]
    return Case(args, f"{-(-m // 64)},{-(-n // 64)}", {"c_ptr": ref}, 1e-5, 1e-5)


def layernorm(work: str) -> Case:
    r = _rng()
    m, n, eps = 30, 100, 1e-5
    x = (r.standard_normal((m, n)) * 3 + 1).astype(np.float32)
    w = r.standard_normal(n).astype(np.float32)
    b = r.standard_normal(n).astype(np.float32)
    _save(work, x=x, w=w, b=b)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1)
    rstd = 1 / np.sqrt(x64.var(axis=1) + eps)
    y = (x64 - mean[:, None]) * rstd[:, None] * w + b
    args = [f"{work}/x.npy", f"zeros:{m}x{n}xf32", f"{work}/w.npy", f"{work}/b.npy"]
    args += [f"zeros:{m}xf32", f"zeros:{m}xf32", str(m), str(n), str(eps)]
    expected = {"y_ptr": y, "mean_ptr": mean, "rstd_ptr": rstd}
    return Case(args, str(-(-m // 8)), expected, 1e-5, 1e-5)


def attention(work: str) -> Case:
    r = _rng()
    q, k, v = (r.standard_normal((64, 64)).astype(np.float16) for _ in range(3))
    _save(work, q=q, k=k, v=v)
    scale = 0.125
    s = q.astype(np.float64) @ k.astype(np.float64).T * scale
    p = np.exp(s - s.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    # The kernel rounds P to f16 before the second dot, as a real kernel does.
    o = p.astype(np.float16).astype(np.float64) @ v.astype(np.float64)
    args = [f"{work}/q.npy", f"{work}/k.npy", f"{work}/v.npy", "zeros:64x64xf32", str(scale)]
    return Case(args, "1", {"o_ptr": o}, 1e-4, 1e-4)


def transpose(work: str) -> Case:
    r = _rng()
    m, n = 50, 70
    x = r.standard_normal((m, n)).astype(np.float32)
    _save(work, x=x)
    args = [f"{work}/x.npy", f"zeros:{n}x{m}xf32", str(m), str(n)]
    return Case(args, f"{-(-m // 32)},{-(-n // 32)}", {"y_ptr": x.T.copy()}, 0, 0)


def colsum(work: str) -> Case:
    r = _rng()
    m, n = 75, 100
    x = r.standard_normal((m, n)).astype(np.float32)
    _save(work, x=x)
    ref = x.astype(np.float64).sum(axis=0)
    args = [f"{work}/x.npy", f"zeros:{n}xf32", str(m), str(n)]
    return Case(args, str(-(-n // 64)), {"out_ptr": ref}, 1e-5, 1e-5)


def matmul(work: str) -> Case:
    r = _rng()
    m, n, k = 100, 72, 80
    a = r.standard_normal((m, k)).astype(np.float16)
    b = r.standard_normal((k, n)).astype(np.float16)
    _save(work, a=a, b=b)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    args = [f"{work}/a.npy", f"{work}/b.npy", f"zeros:{m}x{n}xf32", str(m), str(n), str(k)]
    return Case(args, f"{-(-m // 64)},{-(-n // 64)}", {"c_ptr": ref}, 1e-5, 1e-5)


def flash_attention(work: str) -> Case:
    r = _rng()
    n_ctx, scale = 128, 0.125
    q, k, v = (r.standard_normal((n_ctx, 64)).astype(np.float16) for _ in range(3))
    _save(work, q=q, k=k, v=v)
    s = q.astype(np.float64) @ k.astype(np.float64).T * scale
    p = np.exp(s - s.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    # The kernel rounds the unnormalized P of each key block to f16 before P V.
    args = [f"{work}/q.npy", f"{work}/k.npy", f"{work}/v.npy", f"zeros:{n_ctx}x64xf32"]
    args += [str(scale), str(n_ctx)]
    return Case(args, str(n_ctx // 64), {"o_ptr": p @ v.astype(np.float64)}, 1e-3, 1e-3)


KERNELS: dict[str, Callable[[str], Case]] = {
    "vector_add": vector_add,
    "softmax": softmax,
    "matmul_epilogue": matmul_epilogue,
    "layernorm": layernorm,
    "attention": attention,
    "transpose": transpose,
    "colsum": colsum,
    "matmul": matmul,
    "flash_attention": flash_attention,
}

ENTRIES = {
    "vector_add": "add_kernel",
    "softmax": "softmax_kernel",
    "matmul_epilogue": "matmul_kernel",
    "layernorm": "layernorm_kernel",
    "attention": "attention_kernel",
    "transpose": "transpose_kernel",
    "colsum": "colsum_kernel",
    "matmul": "matmul_kernel",
    "flash_attention": "attention_fwd_kernel",
}


def _save(work: str, **arrays: np.ndarray) -> None:
    for name, array in arrays.items():
        np.save(os.path.join(work, f"{name}.npy"), array)


def strip_layouts(kernel: str, path: str, out_path: str) -> None:
    """Write ``path`` through ``llc-opt -p llc-strip-layouts``; check no layout is left."""
    cmd = ["llc-opt", path, "-p", "llc-strip-layouts", "-o", out_path]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{kernel}: llc-strip-layouts failed ({proc.returncode}):\n{proc.stderr}")
    with open(out_path) as file:
        text = file.read()
    for left in ("#tl.", "tl.convert_layout"):
        if left in text:
            raise SystemExit(f"{kernel}: '{left}' left in {out_path} by llc-strip-layouts")


def run_llc(kernel: str, path: str, case: Case, out_dir: str) -> dict[str, np.ndarray]:
    cmd = ["llc-run", path, "--entry", ENTRIES[kernel]]
    cmd += ["--grid", case.grid, "--out", out_dir, "--args", *case.args]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{kernel}: llc-run failed ({proc.returncode}):\n{proc.stderr}")
    return {name: np.load(os.path.join(out_dir, f"{name}.npy")) for name in case.expected}


def main() -> None:
    kernel, path, work = sys.argv[1:4]
    layout_free = sys.argv[4] if len(sys.argv) > 4 else None
    os.makedirs(work, exist_ok=True)
    case = KERNELS[kernel](work)

    outputs = run_llc(kernel, path, case, os.path.join(work, "out"))
    worst = 0.0
    for name, ref in case.expected.items():
        got = outputs[name]
        if got.shape != ref.shape:
            raise SystemExit(f"{kernel}: {name} has shape {got.shape}, expected {ref.shape}")
        if not np.allclose(got, ref, rtol=case.rtol, atol=case.atol):
            bad = np.unravel_index(np.argmax(np.abs(got - ref)), ref.shape)
            raise SystemExit(
                f"{kernel}: {name} differs from numpy at {bad}: {got[bad]} vs {ref[bad]}"
            )
        worst = max(worst, float(np.max(np.abs(got - ref))))

    plain = os.path.join(work, f"{kernel}.no_layouts.mlir")
    strip_layouts(kernel, path, plain)
    plain_outputs = run_llc(kernel, plain, case, os.path.join(work, "out_no_layouts"))
    for name in case.expected:
        if not np.array_equal(outputs[name], plain_outputs[name], equal_nan=True):
            raise SystemExit(f"{kernel}: {name} changes when the layouts are removed")

    done = "identical without layouts"
    if layout_free is not None:
        with open(layout_free) as file:
            text = file.read()
        for left in ("#tl.", "tl.convert_layout"):
            if left in text:
                raise SystemExit(f"{kernel}: '{left}' in the layout-free form {layout_free}")
        free_outputs = run_llc(kernel, layout_free, case, os.path.join(work, "out_layout_free"))
        for name in case.expected:
            if not np.array_equal(outputs[name], free_outputs[name], equal_nan=True):
                raise SystemExit(f"{kernel}: {name} differs in the layout-free form {layout_free}")
        done += " and in the layout-free form"

    print(f"{kernel}: OK, max abs error {worst:.2e}, {done}")


if __name__ == "__main__":
    main()
