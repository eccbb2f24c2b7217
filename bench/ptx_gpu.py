"""Benchmark: the PTX of llc's conversion kernels and example kernels, run on a GPU (issue 12).

    python bench/ptx_gpu.py               # conversions + examples, Markdown tables
    python bench/ptx_gpu.py --no-examples

Conversions (the suite of ``bench/conversions.py``): each stand-alone conversion kernel
(``llc-layout SRC --to DST --emit ptx``) runs on the GPU on random data (one CTA); the output
must equal the input bit for bit. Time: CUDA events, mean of 200 launches (so mostly launch
overhead for one CTA; the point is correctness on hardware and a stable relative figure).

Examples: every example is compiled with ``llc-compile`` and run by ``llc-run --gpu`` on the
seeded inputs of ``test/lit/run/Inputs/check_example.py``: the GPU's buffers are compared with
the SIMT interpreter's.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DTYPES = {"f32": np.float32, "f16": np.float16, "i8": np.int8}


def _load(path: str, name: str):  # a script module: no annotations
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def conversions() -> list[str]:
    from llc.passes.conversion_kernel import conversion_ptx
    from llc.passes.targets.ptx import shared_bytes
    from llc.tools.gpu_run import launch

    suite = _load(os.path.join(HERE, "conversions.py"), "bench_conversions")._suite()
    rows = [
        "| conversion | shape | dtype | warps | output = input | dyn. smem B | us per launch |",
        "|---|---|---|---|---|---|---|",
    ]
    rng = np.random.default_rng(7)
    for name, src, dst, shape, dtype in suite:
        warps = src.num_warps
        ptx = conversion_ptx(src, dst, shape, dtype, warps, "sm_90")
        bits = np.dtype(DTYPES[dtype]).itemsize * 8
        x = rng.integers(0, 1 << min(bits, 16), size=shape).astype(f"u{bits // 8}")
        x = x.view(DTYPES[dtype])
        out = np.zeros_like(x)
        smem = shared_bytes(ptx, "kernel")
        run = launch(
            ptx, "kernel", [x, out], block=(32 * warps, 1, 1), shared_bytes=smem, repeat=200
        )
        same = run.outputs[1].tobytes() == x.tobytes()
        rows.append(
            f"| {name} | {'x'.join(map(str, shape))} | {dtype} | {warps} | "
            f"{'yes' if same else 'NO'} | {smem} | {run.milliseconds * 1000:.2f} |"
        )
    return rows


def examples() -> list[str]:
    inputs = os.path.join(ROOT, "test", "lit", "run", "Inputs")
    sys.path.insert(0, inputs)
    ex = _load(os.path.join(inputs, "check_example.py"), "check_example")
    rows = ["| example | grid | llc-run --gpu |", "|---|---|---|"]
    for kernel in sorted(ex.KERNELS):
        source = os.path.join(ROOT, "examples", f"{kernel}.mlir")
        if not os.path.exists(source):
            continue
        with tempfile.TemporaryDirectory() as work:
            lowered = os.path.join(work, "k.mlir")
            subprocess.run(
                [sys.executable, "-m", "llc.tools.opt", source, "-p", "llc-compile", "-o", lowered],
                check=True,
                capture_output=True,
            )
            case = ex.KERNELS[kernel](work)
            cmd = [sys.executable, "-m", "llc.tools.run", lowered, "--entry", ex.ENTRIES[kernel]]
            cmd += ["--grid", case.grid, "--gpu", "--args", *case.args]
            done = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=work)
            text = done.stdout + done.stderr
            line = next((ln for ln in text.splitlines() if ln.startswith("gpu:")), None)
            result = line.removeprefix("gpu: ") if line else "FAILED: " + text.strip()[-300:]
            rows.append(f"| {kernel} | {case.grid} | {result.replace('|', '/')} |")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-examples", action="store_true")
    parser.add_argument("--no-conversions", action="store_true")
    args = parser.parse_args()
    from llc.tools.gpu_run import gpu_available, gpu_name

    if not gpu_available():
        print("no GPU (or no cuda-python): nothing to run", file=sys.stderr)
        return 1
    print(f"GPU: {gpu_name()}; date: {datetime.datetime.now(datetime.UTC).isoformat()}")
    if not args.no_conversions:
        print("\n".join(["", *conversions()]), flush=True)
    if not args.no_examples:
        print("\n".join(["", *examples()]), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
