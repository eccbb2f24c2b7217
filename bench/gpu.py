"""GPU benchmark at real sizes: Triton alone, Triton with llc's layouts, llc's own back end.

    python bench/gpu.py                       # on a GPU: check, time, print the table
    python bench/gpu.py --json out.json       # also the figures as JSON
    python bench/gpu.py --dry-run [--arch 90] # no GPU: compile everything, ptxas llc's PTX
    python bench/gpu.py --only matmul         # some cases only (substring of the case name)

Each case runs three ways on the same inputs:

1. **triton**: Triton alone (``kernel[grid](...)``);
2. **triton+llc**: the same kernel compiled inside ``llc.triton.layouts()`` (llc assigns the
   layouts, Triton's pipeline does the rest; a kernel llc cannot take keeps Triton's layouts and
   the row says why);
3. **llc**: llc's own back end from the same TTIR (what way 1 compiled):
   ``llc-compile`` and ``-t ptx``, loaded and launched through ``cuda-bindings`` on the same
   device buffers.

Every output is checked against PyTorch on the device. Times are CUDA-event medians of
``--runs`` (default 20) launches after ``--warmup`` (default 3). Memory-bound kernels report
GB/s (bytes each kernel must move) and the fraction of a device-to-device copy of the same
bytes (``torch`` ``copy_``, the roofline); matmul and attention report TFLOP/s. Ratios are to
way 1. A separate JIT function object per way keeps Triton's in-memory caches apart on every
Triton version (3.6 does not key its caches on the hook).

``--dry-run`` needs no GPU: for each case it compiles the kernel with Triton (``GPUTarget``),
alone and with ``llc.triton``, then llc's PTX from the same TTIR, and assembles that PTX with
``ptxas`` (:mod:`llc.testing.ptxas`). The TTIR comes from ``ASTSource`` with the launcher's
specialisation (16-byte aligned pointers, integers divisible by 16), as a launch would.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import platform
import statistics
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

import triton
import triton.language as tl

ROOT = Path(__file__).resolve().parent.parent

# ----------------------------------------------------------------------------------- kernels


@triton.jit
def vector_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def softmax(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    y = num / tl.sum(num, axis=0)
    tl.store(out_ptr + row * stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def layer_norm(x_ptr, y_ptr, w_ptr, b_ptr, stride, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / n
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask).to(tl.float32)
    y = xc * rstd * w + b
    tl.store(y_ptr + row * stride + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def transpose(in_ptr, out_ptr, stride_in, stride_out, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    x = tl.load(in_ptr + rm[:, None] * stride_in + rn[None, :])
    tl.store(out_ptr + rn[:, None] * stride_out + rm[None, :], tl.trans(x))


@triton.jit
def matmul(
    a_ptr,
    b_ptr,
    c_ptr,
    K,
    stride_am,
    stride_bk,
    stride_cm,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float16))


@triton.jit
def flash_attention(
    q_ptr, k_ptr, v_ptr, o_ptr, n_ctx, qk_scale, BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr
):
    # q, k, v, o: [batch * heads, n_ctx, D] contiguous; qk_scale = sm_scale * log2(e).
    head = tl.program_id(1).to(tl.int64) * n_ctx * D
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + head + rm[:, None] * D + rd[None, :])
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM], dtype=tl.float32)
    acc = tl.zeros([BM, D], dtype=tl.float32)
    for start_n in range(0, n_ctx, BN):
        k = tl.load(k_ptr + head + (start_n + rn)[None, :] * D + rd[:, None])
        qk = tl.dot(q, k) * qk_scale
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + head + (start_n + rn)[:, None] * D + rd[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(o_ptr + head + rm[:, None] * D + rd[None, :], acc.to(tl.float16))


@triton.jit
def row_gather(src_ptr, idx_ptr, out_ptr, BLOCK: tl.constexpr):
    # out[r, j] = src[r, idx[r, j]] for rows of BLOCK elements, in registers (tl.gather).
    row = tl.program_id(0).to(tl.int64) * BLOCK
    cols = tl.arange(0, BLOCK)
    src = tl.load(src_ptr + row + cols)
    idx = tl.load(idx_ptr + row + cols)
    tl.store(out_ptr + row + cols, tl.gather(src, idx, 0))


@triton.jit
def cumsum_normalize(x_ptr, out_ptr, BLOCK: tl.constexpr):
    # A reduction with a scan: out[r] = cumsum(x[r]) / sum(x[r]).
    row = tl.program_id(0).to(tl.int64) * BLOCK
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row + cols)
    total = tl.sum(x, axis=0)
    tl.store(out_ptr + row + cols, tl.cumsum(x, axis=0) / total)


# ------------------------------------------------------------------------------------- cases


@dataclass
class Inputs:
    """A case's device tensors, scalar arguments (in kernel order), grid and reference."""

    args: list[Any]
    grid: tuple[int, ...]
    output: int  # index in args of the output tensor
    expected: Callable[[], Any]
    rtol: float
    atol: float


@dataclass
class Case:
    """One benchmark row group: a kernel at one size and element type."""

    name: str
    kernel: Any
    constexprs: dict[str, int]
    num_warps: int
    num_stages: int | None  # None: Triton's default
    signature: dict[str, str]  # for the dry run (ASTSource)
    make: Callable[[Any], Inputs]  # torch -> Inputs
    bytes_moved: int = 0  # what a memory-bound kernel must read and write (0: compute-bound)
    flops: int = 0

    @property
    def copy_bytes(self) -> int:
        """The device-to-device copy of the roofline: it reads and writes ``bytes_moved``."""
        return self.bytes_moved // 2


def _vector_add() -> Case:
    n = 1 << 28

    def make(torch: Any) -> Inputs:
        x = torch.rand(n, device="cuda")
        y = torch.rand(n, device="cuda")
        out = torch.empty_like(x)
        return Inputs([x, y, out, n], (n // 1024,), 2, lambda: x + y, 0, 0)

    sig = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}
    return Case(
        "vector_add 2^28 f32",
        vector_add,
        {"BLOCK": 1024},
        4,
        None,
        sig,
        make,
        bytes_moved=3 * 4 * n,
    )


def _rows(kind: str, dtype: str) -> Case:
    m = n = 8192
    size = 2 if dtype == "f16" else 4

    def make(torch: Any) -> Inputs:
        t = torch.float16 if dtype == "f16" else torch.float32
        x = torch.randn(m, n, device="cuda", dtype=t)
        y = torch.empty_like(x)
        tol = (2e-3, 2e-3) if dtype == "f16" else (1e-5, 1e-6)
        if kind == "softmax":
            return Inputs(
                [y, x, n, n], (m,), 0, lambda: torch.softmax(x.float(), dim=1).to(t), *tol
            )
        w = torch.rand(n, device="cuda", dtype=t)
        b = torch.rand(n, device="cuda", dtype=t)

        def expected() -> Any:
            ref = torch.nn.functional.layer_norm(x.float(), (n,), w.float(), b.float(), 1e-5)
            return ref.to(t)

        tol = (1e-2, 1e-2) if dtype == "f16" else (1e-4, 1e-4)
        return Inputs([x, y, w, b, n, n, 1e-5], (m,), 1, expected, *tol)

    ptr = "*fp16" if dtype == "f16" else "*fp32"
    if kind == "softmax":
        sig = {"out_ptr": ptr, "in_ptr": ptr, "stride": "i32", "n_cols": "i32"}
        kernel = softmax
    else:
        sig = {
            "x_ptr": ptr,
            "y_ptr": ptr,
            "w_ptr": ptr,
            "b_ptr": ptr,
            "stride": "i32",
            "n": "i32",
            "eps": "fp32",
        }
        kernel = layer_norm
    return Case(
        f"{kind} 8192x8192 {dtype}",
        kernel,
        {"BLOCK": n},
        16,
        None,
        sig,
        make,
        bytes_moved=2 * size * m * n,
    )


def _transpose() -> Case:
    n = 8192

    def make(torch: Any) -> Inputs:
        x = torch.randn(n, n, device="cuda")
        y = torch.empty_like(x)
        return Inputs([x, y, n, n], (n // 64, n // 64), 1, lambda: x.t().contiguous(), 0, 0)

    sig = {"in_ptr": "*fp32", "out_ptr": "*fp32", "stride_in": "i32", "stride_out": "i32"}
    return Case(
        "transpose 8192^2 f32",
        transpose,
        {"BM": 64, "BN": 64},
        4,
        None,
        sig,
        make,
        bytes_moved=2 * 4 * n * n,
    )


def _matmul() -> Case:
    m = n = k = 4096

    def make(torch: Any) -> Inputs:
        a = torch.randn(m, k, device="cuda", dtype=torch.float16) / 16
        b = torch.randn(k, n, device="cuda", dtype=torch.float16) / 16
        c = torch.empty(m, n, device="cuda", dtype=torch.float16)
        return Inputs([a, b, c, k, k, n, n], (m // 128, n // 128), 2, lambda: a @ b, 1e-2, 1e-2)

    sig = {
        "a_ptr": "*fp16",
        "b_ptr": "*fp16",
        "c_ptr": "*fp16",
        "K": "i32",
        "stride_am": "i32",
        "stride_bk": "i32",
        "stride_cm": "i32",
    }
    consts = {"BM": 128, "BN": 128, "BK": 64}
    return Case(
        "matmul 4096^3 f16->f32 acc", matmul, consts, 8, None, sig, make, flops=2 * m * n * k
    )


def _attention() -> Case:
    batch, heads, n_ctx, d = 4, 16, 4096, 64

    def make(torch: Any) -> Inputs:
        shape = (batch, heads, n_ctx, d)
        q, k, v = (torch.randn(shape, device="cuda", dtype=torch.float16) for _ in range(3))
        o = torch.empty_like(q)
        scale = d**-0.5

        def expected() -> Any:
            return torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=scale)

        args = [q, k, v, o, n_ctx, scale * 1.4426950408889634]
        return Inputs(args, (n_ctx // 128, batch * heads), 3, expected, 1e-2, 1e-2)

    sig = {
        "q_ptr": "*fp16",
        "k_ptr": "*fp16",
        "v_ptr": "*fp16",
        "o_ptr": "*fp16",
        "n_ctx": "i32",
        "qk_scale": "fp32",
    }
    return Case(
        "flash_attention fwd B4 H16 N4096 D64 f16",
        flash_attention,
        {"BM": 128, "BN": 64, "D": d},
        8,
        None,
        sig,
        make,
        flops=4 * batch * heads * n_ctx * n_ctx * d,
    )


def _gather() -> Case:
    rows, block = 1 << 15, 1024

    def make(torch: Any) -> Inputs:
        src = torch.randn(rows, block, device="cuda")
        idx = torch.randint(0, block, (rows, block), device="cuda", dtype=torch.int32)
        out = torch.empty_like(src)
        return Inputs([src, idx, out], (rows,), 2, lambda: torch.gather(src, 1, idx.long()), 0, 0)

    sig = {"src_ptr": "*fp32", "idx_ptr": "*i32", "out_ptr": "*fp32"}
    return Case(
        "gather rows 32768x1024 f32",
        row_gather,
        {"BLOCK": block},
        4,
        None,
        sig,
        make,
        bytes_moved=3 * 4 * rows * block,
    )


def _scan() -> Case:
    rows, block = 16384, 4096

    def make(torch: Any) -> Inputs:
        x = torch.rand(rows, block, device="cuda")
        out = torch.empty_like(x)
        return Inputs(
            [x, out], (rows,), 1, lambda: x.cumsum(1) / x.sum(1, keepdim=True), 1e-3, 1e-4
        )

    sig = {"x_ptr": "*fp32", "out_ptr": "*fp32"}
    return Case(
        "cumsum/sum 16384x4096 f32",
        cumsum_normalize,
        {"BLOCK": block},
        8,
        None,
        sig,
        make,
        bytes_moved=2 * 4 * rows * block,
    )


def cases() -> list[Case]:
    """Every case of the benchmark, in table order."""
    return [
        _vector_add(),
        _rows("softmax", "f16"),
        _rows("softmax", "f32"),
        _rows("layer_norm", "f16"),
        _rows("layer_norm", "f32"),
        _transpose(),
        _matmul(),
        _attention(),
        _gather(),
        _scan(),
    ]


# ------------------------------------------------------------------------------ llc's back end


def llc_ptx(ttir: str, name: str, num_warps: int, arch: int) -> tuple[str, str, float]:
    """llc's own back end from Triton's TTIR: (PTX, entry name, seconds). ``llc-compile``
    (decompose, ``llc-optimize-layouts``, lower to SIMT) then ``-t ptx``."""
    from llc.dialects.ttgir import HardwareDefaults, TritonContext, parse_triton_module
    from llc.passes.compile import CompilePass
    from llc.passes.targets.ptx import emit_ptx

    start = time.perf_counter()
    module = parse_triton_module(
        ttir, f"{name}.ttir", HardwareDefaults(num_warps, 32, f"cuda:{arch}")
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        CompilePass().apply(TritonContext(), module)
    ptx = emit_ptx(module, f"sm_{arch}")
    entry = next(
        line.split()[-1].rstrip("(")
        for line in ptx.splitlines()
        if line.startswith(".visible .entry")
    )
    return ptx, entry, time.perf_counter() - start


def ttir_argument_types(ttir: str) -> list[str]:
    """The kernel's parameter types in TTIR order (``!tt.ptr<f32>``, ``i32``, ``f32``)."""
    import re

    header = re.search(r"tt\.func public @\w+\((.*?)\) attributes", ttir, re.S)
    if header is None:
        raise ValueError("no public tt.func in the TTIR")
    return re.findall(r"%\w+: (!tt\.ptr<\w+>|i1|i32|i64|f32|f64)", header.group(1))


class LlcKernel:
    """llc's PTX loaded with the CUDA driver (``cuda-bindings``) and launched on torch tensors
    on torch's current stream."""

    def __init__(self, ptx: str, entry: str, num_warps: int) -> None:
        from cuda.bindings import driver

        from llc.passes.targets.ptx import shared_bytes
        from llc.tools.gpu_run import gpu_available

        if not gpu_available():  # also makes the primary context (torch's) current
            raise RuntimeError("no CUDA device through cuda-bindings")
        self.driver = driver
        self.module = self._check(driver.cuModuleLoadData(ptx.encode() + b"\0"), "load PTX")
        self.function = self._check(
            driver.cuModuleGetFunction(self.module, entry.encode()), "get function"
        )
        self.block = 32 * num_warps
        self.shared = shared_bytes(ptx, entry)
        if self.shared > 48 * 1024:
            attribute = driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
            self._check(driver.cuFuncSetAttribute(self.function, attribute, self.shared), "smem")

    def _check(self, result: Any, what: str) -> Any:
        err, *rest = result if isinstance(result, tuple) else (result,)
        if err != self.driver.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"cuda-bindings: {what}: {err}")
        return rest[0] if len(rest) == 1 else (tuple(rest) or None)

    def launcher(
        self, torch: Any, args: list[Any], types: list[str], grid: tuple[int, ...]
    ) -> Callable[[], None]:
        """A function launching the kernel on ``args`` (parameter buffers bound once)."""
        holders, params = pack_parameters(args, types)
        grid3 = (*grid, 1, 1)[:3]
        stream = torch.cuda.current_stream().cuda_stream

        def launch() -> None:
            result = self.driver.cuLaunchKernel(
                self.function, *grid3, self.block, 1, 1, self.shared, stream,
                params.ctypes.data, 0,
            )  # fmt: skip
            self._check(result, "launch")
            _ = holders  # the parameter buffers live as long as the launcher

        return launch


_SCALARS = {"i32": "int32", "i64": "int64", "f32": "float32", "f64": "float64", "i1": "int8"}


def pack_parameters(args: list[Any], types: list[str]) -> tuple[list[Any], Any]:
    """``cuLaunchKernel``'s parameter array for ``args`` (tensors by ``data_ptr()``, scalars by
    value in the TTIR parameter ``types``): (the value buffers, the array of their addresses).
    Raises when a tensor meets a scalar parameter or the counts differ."""
    import numpy as np

    if len(types) != len(args):
        raise RuntimeError(f"the TTIR has {len(types)} parameters, the case passes {len(args)}")
    holders = []
    for index, (value, typ) in enumerate(zip(args, types, strict=True)):
        is_tensor = hasattr(value, "data_ptr")
        if is_tensor != typ.startswith("!tt.ptr"):
            raise RuntimeError(f"argument {index}: {type(value).__name__} for a {typ} parameter")
        if is_tensor:
            holders.append(np.array([value.data_ptr()], dtype=np.uint64))
        else:
            holders.append(np.array([value], dtype=_SCALARS[typ]))
    return holders, np.array([h.ctypes.data for h in holders], dtype=np.uint64)


class FakeTorch:
    """Just enough of ``torch`` for a case's ``make`` without a GPU (the dry run checks the
    arguments a case passes against the kernel's TTIR parameters)."""

    float16 = float32 = int32 = None

    class Tensor:
        def data_ptr(self) -> int:
            return 1 << 20

        def __truediv__(self, other: Any) -> FakeTorch.Tensor:
            return self

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: FakeTorch.Tensor()


# ------------------------------------------------------------------------------- measurement


def median_ms(torch: Any, launch: Callable[[], Any], warmup: int, runs: int) -> float:
    """CUDA-event median of ``runs`` launches after ``warmup``, in milliseconds."""
    for _ in range(warmup):
        launch()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        launch()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


@contextlib.contextmanager
def captured_report() -> Iterator[Path]:
    """``LLC_TRITON_REPORT`` pointed at a fresh file for the block; its lines are appended to
    the report the caller asked for, if any."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "report.jsonl"
        old = os.environ.get("LLC_TRITON_REPORT")
        os.environ["LLC_TRITON_REPORT"] = str(path)
        try:
            yield path
        finally:
            if old is None:
                os.environ.pop("LLC_TRITON_REPORT", None)
            else:
                os.environ["LLC_TRITON_REPORT"] = old
                if path.exists():
                    with open(old, "a") as file:
                        file.write(path.read_text())


def _last_report(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    lines = path.read_text().splitlines()
    return json.loads(lines[-1]) if lines else None


def _layouts_note(report: dict[str, Any] | None) -> str:
    if report is None:
        return "no report line (cache hit?)"
    if report.get("fallback"):
        return f"FALLBACK to Triton's layouts: {report['fallback']}"
    llc, tri = report["llc"], report["triton"]
    return (
        f"llc layouts: cvt {llc['conversions']} (cost {llc['cost']:g}) vs Triton's "
        f"{tri['conversions']} ({tri['cost']:g})"
    )


def _check_output(torch: Any, inputs: Inputs) -> tuple[bool, float]:
    out = inputs.args[inputs.output]
    ref = inputs.expected()
    err = (out.float() - ref.float()).abs().max().item()
    ok = bool(torch.allclose(out.float(), ref.float(), rtol=inputs.rtol, atol=inputs.atol))
    return ok, err


def _jit_copy(case: Case) -> Any:
    """A fresh JIT function of the case's kernel (its own in-memory cache)."""
    return triton.jit(case.kernel.fn)


def run_case(torch: Any, case: Case, args: argparse.Namespace) -> list[dict[str, Any]]:
    import llc.triton

    rows: list[dict[str, Any]] = []
    torch.manual_seed(0)
    inputs = case.make(torch)
    options = {"num_warps": case.num_warps} | (
        {"num_stages": case.num_stages} if case.num_stages is not None else {}
    )
    scale = case.bytes_moved or case.flops

    def row(way: str, ms: float | None, ok: bool | None, err: float | None, note: str) -> None:
        figure = None
        if ms is not None and scale:
            figure = scale / (ms * 1e-3) / (1e9 if case.bytes_moved else 1e12)
        rows.append(
            dict(
                case=case.name,
                way=way,
                ms=ms,
                ok=ok,
                max_err=err,
                figure=figure,
                unit="GB/s" if case.bytes_moved else "TFLOP/s",
                note=note,
            )
        )

    # 1. Triton alone.
    plain = _jit_copy(case)
    compiled: Any = None

    def triton_launch(kernel: Any) -> Callable[[], Any]:
        def launch() -> Any:
            return kernel[inputs.grid](*inputs.args, **case.constexprs, **options)

        return launch

    try:
        compiled = triton_launch(plain)()
        torch.cuda.synchronize()
        ok, err = _check_output(torch, inputs)
        ms = median_ms(torch, triton_launch(plain), args.warmup, args.runs)
        row("triton", ms, ok, err, "")
    except Exception as exc:
        row("triton", None, None, None, f"FAILED: {type(exc).__name__}: {exc}"[:300])
    # 2. Triton with llc's layouts (every launch inside the context: 3.9 keys its caches on it).
    with_llc = _jit_copy(case)
    inputs.args[inputs.output].zero_()
    try:
        with captured_report() as report, llc.triton.layouts():
            launch = triton_launch(with_llc)
            launch()
            torch.cuda.synchronize()
            ok, err = _check_output(torch, inputs)
            ms = median_ms(torch, launch, args.warmup, args.runs)
            note = _layouts_note(_last_report(report))
        row("triton+llc", ms, ok, err, note)
    except Exception as exc:
        row("triton+llc", None, None, None, f"FAILED: {type(exc).__name__}: {exc}"[:300])
    # 3. llc's own back end from way 1's TTIR.
    inputs.args[inputs.output].zero_()
    try:
        if compiled is None:
            raise RuntimeError("no TTIR: Triton alone failed")
        ttir = compiled.asm["ttir"]
        ptx, entry, seconds = llc_ptx(ttir, case.kernel.fn.__name__, case.num_warps, args.arch)
        kernel = LlcKernel(ptx, entry, case.num_warps)
        launch = kernel.launcher(torch, inputs.args, ttir_argument_types(ttir), inputs.grid)
        launch()
        torch.cuda.synchronize()
        ok, err = _check_output(torch, inputs)
        ms = median_ms(torch, launch, args.warmup, args.runs)
        row("llc", ms, ok, err, f"llc-compile+ptx {seconds:.1f}s, smem {kernel.shared} B")
    except Exception as exc:
        row("llc", None, None, None, f"FAILED: {llc.triton.describe_failure(exc)}")
    # The roofline: a device-to-device copy of the same bytes.
    if case.copy_bytes:
        src = torch.empty(case.copy_bytes // 4, device="cuda", dtype=torch.float32)
        dst = torch.empty_like(src)
        ms = median_ms(torch, lambda: dst.copy_(src), args.warmup, args.runs)
        rows.append(
            dict(
                case=case.name,
                way="copy",
                ms=ms,
                ok=True,
                max_err=0.0,
                figure=2 * case.copy_bytes / (ms * 1e-3) / 1e9,
                unit="GB/s",
                note=f"D2D copy of {case.copy_bytes >> 20} MiB",
            )
        )

    torch.cuda.empty_cache()
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    """Markdown: one row per case and way, ratio to Triton alone and to the copy roofline."""
    lines = [
        "| case | way | correct (max err) | median ms | figure | x Triton | x copy | note |",
        "|---|---|---|---|---|---|---|---|",
    ]
    base = {r["case"]: r for r in rows if r["way"] == "triton"}
    copy = {r["case"]: r for r in rows if r["way"] == "copy"}
    for r in rows:
        fig = f"{r['figure']:.1f} {r['unit']}" if r["figure"] is not None else "-"
        ratio = roof = "-"
        b = base.get(r["case"])
        if r["ms"] and b and b["ms"] and r["way"] != "copy":
            ratio = f"{b['ms'] / r['ms']:.2f}"
        c = copy.get(r["case"])
        if r["ms"] and c and r["way"] != "copy":
            roof = f"{(r['figure'] or 0) / c['figure']:.2f}"
        ok = "-" if r["ok"] is None else ("yes" if r["ok"] else "**NO**")
        if r["max_err"] is not None:
            ok += f" ({r['max_err']:.1e})"
        ms = f"{r['ms']:.3f}" if r["ms"] is not None else "-"
        lines.append(
            f"| {r['case']} | {r['way']} | {ok} | {ms} | {fig} | {ratio} | {roof} | "
            f"{r['note'].replace('|', '/')} |"
        )
    return "\n".join(lines)


# ----------------------------------------------------------------------------------- dry run


def dry_run_case(case: Case, arch: int) -> dict[str, Any]:
    """Compile one case three ways without a GPU; llc's PTX through ptxas."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    import llc.triton
    from llc.testing.ptxas import assemble

    attrs = {}
    for i, typ in enumerate(case.signature.values()):
        if typ.startswith("*") or typ in ("i32", "i64"):  # the launcher's specialisation
            attrs[(i,)] = [["tt.divisibility", 16]]
    signature = dict(case.signature) | dict.fromkeys(case.constexprs, "constexpr")
    options = {"num_warps": case.num_warps} | (
        {"num_stages": case.num_stages} if case.num_stages is not None else {}
    )
    target = GPUTarget("cuda", arch, 32)

    def compile_() -> Any:
        source = ASTSource(case.kernel, signature, constexprs=case.constexprs, attrs=attrs)
        return triton.compile(source, target=target, options=options)

    result: dict[str, Any] = {"case": case.name}
    start = time.perf_counter()
    plain = compile_()
    result["triton_s"] = time.perf_counter() - start
    with captured_report() as report, llc.triton.layouts(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        with_llc = compile_()
        result["triton_llc_s"] = time.perf_counter() - start
        result["layouts"] = _layouts_note(_last_report(report))
    result["llc_in_ttgir"] = ".llc.ttgir" in with_llc.asm["ttgir"]
    try:
        ptx, _, seconds = llc_ptx(plain.asm["ttir"], case.kernel.fn.__name__, case.num_warps, arch)
        result["llc_s"] = seconds
        assemble(ptx, f"sm_{arch}a" if arch >= 90 else f"sm_{arch}")
        types = ttir_argument_types(plain.asm["ttir"])
        inputs = case.make(FakeTorch())
        pack_parameters(inputs.args, types)  # the arguments fit the kernel's parameters
        result["llc_ptx"] = f"ptxas ok ({len(ptx.splitlines())} lines, {len(types)} params)"
    except Exception as exc:
        result["llc_ptx"] = f"FAILED: {llc.triton.describe_failure(exc)}"
    return result


def dry_run(selected: list[Case], arch: int) -> int:
    print(
        f"dry run: triton {triton.__version__}, sm_{arch}, {platform.platform()}, "
        f"python {platform.python_version()}, {datetime.datetime.now(datetime.UTC):%Y-%m-%d}"
    )
    print(
        "\n| case | Triton compile s | Triton+llc compile s | Triton+llc layouts | "
        "llc-compile s | llc PTX |"
    )
    print("|---|---|---|---|---|---|")
    failures = 0
    for case in selected:
        try:
            r = dry_run_case(case, arch)
        except Exception as exc:
            failures += 1
            print(f"| {case.name} | FAILED: {type(exc).__name__}: {exc} | | | | |", flush=True)
            traceback.print_exc()
            continue
        if not r["llc_in_ttgir"] and "FALLBACK" not in r["layouts"]:
            failures += 1
        if not r["llc_ptx"].startswith("ptxas ok"):  # llc's own back end is one of the three ways
            failures += 1
        llc_s = f"{r['llc_s']:.1f}" if "llc_s" in r else "-"
        print(
            f"| {r['case']} | {r['triton_s']:.1f} | {r['triton_llc_s']:.1f} | "
            f"{r['layouts']} | {llc_s} | {r['llc_ptx']} |",
            flush=True,
        )
    return 1 if failures else 0


# -------------------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="no GPU: compile and ptxas only")
    parser.add_argument("--arch", type=int, default=None, help="SM (default: the GPU's, or 90)")
    parser.add_argument("--runs", type=int, default=20, help="timed launches (median)")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--only", action="append", help="cases whose name contains this")
    parser.add_argument("--json", type=Path, help="write the rows as JSON here")
    args = parser.parse_args(argv)
    selected = [c for c in cases() if not args.only or any(o in c.name for o in args.only)]
    # Compile every time: compile times are measured, and the llc report needs a compile.
    os.environ["TRITON_ALWAYS_COMPILE"] = "1"
    if args.dry_run:
        return dry_run(selected, args.arch or 90)
    try:
        import torch
    except ImportError:
        print(
            "bench/gpu.py: PyTorch is not installed (it checks every output on the GPU): use "
            "--dry-run without a GPU",
            file=sys.stderr,
        )
        return 1
    if not torch.cuda.is_available():
        print("no GPU: use --dry-run", file=sys.stderr)
        return 1
    major, minor = torch.cuda.get_device_capability()
    args.arch = args.arch or 10 * major + minor
    args.runs = max(args.runs, 20)
    print(
        f"{torch.cuda.get_device_name()}; triton {triton.__version__}; torch "
        f"{torch.__version__}; python {platform.python_version()}; "
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; median of {args.runs} "
        f"after {args.warmup} warm-up",
        flush=True,
    )
    rows: list[dict[str, Any]] = []
    for case in selected:
        print(f"... {case.name}", file=sys.stderr, flush=True)
        rows += run_case(torch, case, args)
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1))
    print(table(rows))
    bad = [r for r in rows if r["ok"] is False]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
