"""Compile a layout-free kernel with llc-compile and run both forms under llc-run on the same
seeded random inputs; every buffer must be bit-identical (NaN where NaN), or with ``--rtol R``
close: within ``R`` relative plus ``R * max |reference|`` absolute (a dot reassociates its
sums).

    python check_compiled.py FILE.mlir WORKDIR ENTRY [--rtol R] ARG...

ARG is what llc-run takes, plus ``randn:SHAPExTYPE`` (standard normal, cast to TYPE) and
``randint:LO:HI:SHAPExTYPE`` (integers in [LO, HI)), written as .npy files into WORKDIR. Prints
``ENTRY: lowered OK`` and the lowered run's ``--stats``; exits 1 with a message otherwise.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

_TYPES = {
    "f64": np.float64,
    "f32": np.float32,
    "f16": np.float16,
    "bf16": np.float32,  # llc-run's bf16 buffers hold float32 values (rounded to bf16 on use)
    "i64": np.int64,
    "i32": np.int32,
    "i16": np.int16,
    "i8": np.int8,
}


def _shape_type(spec: str) -> tuple[tuple[int, ...], type]:
    *dims, typ = spec.split("x")
    return tuple(int(d) for d in dims), _TYPES[typ]


def _arg(spec: str, work: str, n: int, rng: np.random.Generator) -> str:
    if spec.startswith("randn:"):
        shape, typ = _shape_type(spec[6:])
        value = rng.standard_normal(shape).astype(typ)
    elif spec.startswith("randint:"):
        lo, hi, rest = spec[8:].split(":")
        shape, typ = _shape_type(rest)
        value = rng.integers(int(lo), int(hi), shape).astype(typ)
    else:
        return spec
    path = os.path.join(work, f"arg{n}.npy")
    np.save(path, value)
    return path


def _run(path: str, entry: str, args: list[str], out: str, extra: list[str]) -> str:
    cmd = ["llc-run", path, "--entry", entry, "--out", out]
    proc = subprocess.run([*cmd, *extra, "--args", *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{entry}: llc-run {path} failed ({proc.returncode}):\n{proc.stderr}")
    return proc.stdout


def main() -> None:
    path, work, entry, *rest = sys.argv[1:]
    rtol = None
    if rest[:1] == ["--rtol"]:
        rtol, rest = float(rest[1]), rest[2:]
    os.makedirs(work, exist_ok=True)
    lowered = os.path.join(work, f"{entry}.simt.mlir")
    cmd = ["llc-opt", path, "-p", "llc-compile", "-o", lowered]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{entry}: llc-compile failed ({proc.returncode}):\n{proc.stderr}")
    rng = np.random.default_rng(2026)
    args = [_arg(spec, work, n, rng) for n, spec in enumerate(rest)]
    _run(path, entry, args, os.path.join(work, "tensor"), [])
    stats = _run(lowered, entry, args, os.path.join(work, "simt"), ["--stats"])
    names = sorted(os.listdir(os.path.join(work, "tensor")))
    if not names:
        raise SystemExit(f"{entry}: the kernel wrote no buffer")
    for name in names:
        ref = np.load(os.path.join(work, "tensor", name))
        got = np.load(os.path.join(work, "simt", name))
        floating = np.issubdtype(ref.dtype, np.floating)
        if rtol is not None and floating:
            finite = np.abs(ref[np.isfinite(ref)])
            atol = rtol * float(finite.max(initial=0.0))
            wrong = ~np.isclose(got, ref, rtol=rtol, atol=atol, equal_nan=True)
        elif floating:
            wrong = ~((got == ref) | (np.isnan(got) & np.isnan(ref)))
        else:
            wrong = got != ref
        if wrong.any():
            bad = tuple(int(i) for i in np.argwhere(wrong)[0])
            raise SystemExit(f"{entry}: {name} differs at {bad}: {got[bad]} vs {ref[bad]}")
    print(f"{entry}: lowered OK, {len(names)} buffers")
    print(stats)


if __name__ == "__main__":
    main()
