"""Regenerate the Triton fixtures of llc: TTIR and TTGIR dumps of Triton's tutorial kernels.

Needs the optional ``bench`` extra (``pip install -e '.[bench]'``, Triton 3.9). No GPU is needed:
``triton.compile`` runs the whole pipeline for a :class:`GPUTarget` given by hand.

    python bench/dump_triton.py            # examples/triton/<kernel>.sm<NN>.{ttir,ttgir}
    python bench/dump_triton.py --out DIR --ptx   # elsewhere, with the PTX

Every kernel is a plain version of the one in Triton's tutorials (vector add, fused softmax,
matmul, layer norm forward, flash attention forward) plus a tiled transpose and ``extra_ops`` (the
ops beyond the tutorials), at one fixed configuration. ``KERNELS`` maps a kernel name to
``(jit function, signature, constexprs, num_warps)`` so that ``bench/vs_triton.py`` compiles
the same kernels.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "examples" / "triton"
ARCHS = (80, 90)


@triton.jit
def vector_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@triton.jit
def softmax(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    out = num / tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_stride + cols, out, mask=mask)


@triton.jit
def matmul(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_bk,
    stride_cm,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    c = acc.to(tl.float16)
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :]
    tl.store(c_ptrs, c, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def layer_norm(x_ptr, y_ptr, w_ptr, b_ptr, stride, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / n
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    y = xc * rstd * w + b
    tl.store(y_ptr + row * stride + cols, y, mask=mask)


@triton.jit
def transpose(in_ptr, out_ptr, stride_in, stride_out, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    x = tl.load(in_ptr + rm[:, None] * stride_in + rn[None, :])
    tl.store(out_ptr + rn[:, None] * stride_out + rm[None, :], tl.trans(x))


@triton.jit
def flash_attention(
    q_ptr,
    k_ptr,
    v_ptr,
    o_ptr,
    stride,
    n_ctx,
    sm_scale,
    BM: tl.constexpr,
    BN: tl.constexpr,
    D: tl.constexpr,
):
    start_m = tl.program_id(0)
    rm = start_m * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + rm[:, None] * stride + rd[None, :])
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM], dtype=tl.float32)
    acc = tl.zeros([BM, D], dtype=tl.float32)
    for start_n in range(0, n_ctx, BN):
        k = tl.load(k_ptr + (start_n + rn)[None, :] * stride + rd[:, None])
        qk = tl.dot(q, k) * sm_scale
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + (start_n + rn)[:, None] * stride + rd[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(o_ptr + rm[:, None] * stride + rd[None, :], acc.to(tl.float16))


@triton.jit
def _max_by_branch(a, b):
    # An if/else on purpose (not a ternary): the reduce region must hold an scf.if.
    if a > b:  # noqa: SIM108
        r = a
    else:
        r = b
    return r


@triton.jit
def extra_ops(x_ptr, i_ptr, o_ptr, h_ptr, BLOCK: tl.constexpr):
    """Not a tutorial: the ops real kernels use beyond them (atomics, cat, bitcast, histogram,
    gather, fp8 casts, device print and assert, a reduce whose combine function branches)."""
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    idx = tl.load(i_ptr + offs) & (BLOCK - 1)
    tl.atomic_add(o_ptr + offs, x)
    tl.atomic_max(o_ptr + offs, x, mask=offs < 3)
    old = tl.atomic_cas(i_ptr + offs, idx, idx + 1)
    c = tl.cat(x, x, can_reorder=True)
    bits = x.to(tl.int32, bitcast=True)
    h = tl.histogram(idx, 8)
    g = tl.gather(x, idx, 0)
    back = x.to(tl.float8e5).to(tl.float32)
    tl.device_print("x", x)
    tl.device_assert(x == x, "nan")
    s = tl.reduce(x, 0, _max_by_branch)
    y = g + back + s + old.to(tl.float32) + bits.to(tl.float32)
    tl.store(o_ptr + offs, y)
    tl.store(h_ptr + tl.arange(0, 8), h)
    tl.store(o_ptr + tl.arange(0, 2 * BLOCK), c)


# ---------------------------------------------------------------------------------------------
# Issue 18's kernels: the shapes of real kernels beyond the tutorials (loops carrying tensors, a
# while loop, scalar loads, gather, scan, mixed precision, multi-result reductions, epilogues).


@triton.jit
def _matmul_tile(
    a_ptr,
    b_ptr,
    K,
    stride_am,
    stride_bk,
    rm,
    rn,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a.to(b.dtype), b, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    return acc


@triton.jit
def matmul_epilogue(
    a_ptr,
    b_ptr,
    bias_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_bk,
    stride_cm,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    """Matmul with a bias and leaky-ReLU epilogue, stored as f16."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = _matmul_tile(a_ptr, b_ptr, K, stride_am, stride_bk, rm, rn, BM, BN, BK)
    bias = tl.load(bias_ptr + rn, mask=rn < N, other=0.0)
    acc = acc + bias[None, :]
    acc = tl.where(acc > 0, acc, 0.01 * acc)
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :]
    tl.store(c_ptrs, acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def matmul_i8_f16(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_bk,
    stride_cm,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    """Mixed precision: i8 activations times f16 weights (A is widened in registers)."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = _matmul_tile(a_ptr, b_ptr, K, stride_am, stride_bk, rm, rn, BM, BN, BK)
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :]
    tl.store(c_ptrs, acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def matmul_tf32(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_bk,
    stride_cm,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    """An f32 matmul on tensor cores (tf32: operands K-contiguous in shared memory on sm_90)."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = _matmul_tile(a_ptr, b_ptr, K, stride_am, stride_bk, rm, rn, BM, BN, BK)
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :]
    tl.store(c_ptrs, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def matmul_fp8(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_bk,
    stride_cm,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    """An fp8 (e5m2) matmul accumulating in f32: wgmma natively on sm_90 (K = 32 per
    instruction, K-contiguous buffers), widened to f16 for mma v2 on sm_80."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = _matmul_tile(a_ptr, b_ptr, K, stride_am, stride_bk, rm, rn, BM, BN, BK)
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :]
    tl.store(c_ptrs, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def small_dot(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """A 16-row dot: too few rows for a warp group, so mma v2 even on sm_90."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], c)


@triton.jit
def row_stats(x_ptr, mean_ptr, max_ptr, n_cols, stride, BM: tl.constexpr, BN: tl.constexpr):
    """Loop-carried tensors: a 2-D running sum and a 1-D running max over column blocks."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    mx = tl.full([BM], float("-inf"), tl.float32)
    for start in range(0, n_cols, BN):
        cols = start + tl.arange(0, BN)
        mask = cols[None, :] < n_cols
        x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=0.0)
        acc += x
        mx = tl.maximum(mx, tl.max(tl.where(mask, x, float("-inf")), 1))
    tl.store(mean_ptr + rows, tl.sum(acc, 1) / n_cols)
    tl.store(max_ptr + rows, mx)


@triton.jit
def newton_sqrt(x_ptr, y_ptr, tol, BLOCK: tl.constexpr):
    """A while loop carrying a tensor: Newton iterations until the largest step is below tol."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs) + 1.0
    y = x
    err = tol + 1.0
    it = 0
    while (err > tol) & (it < 32):
        y_new = 0.5 * (y + x / y)
        err = tl.max(tl.abs(y_new - y), 0)
        y = y_new
        it += 1
    tl.store(y_ptr + offs, y)


@triton.jit
def cross_entropy(logits_ptr, target_ptr, loss_ptr, n_cols, stride, BLOCK: tl.constexpr):
    """Scalar loads: the row's i32 target index and the target logit."""
    row = tl.program_id(0)
    target = tl.load(target_ptr + row)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(logits_ptr + row * stride + cols, mask=mask, other=float("-inf")).to(tl.float32)
    m = tl.max(x, 0)
    lse = tl.log(tl.sum(tl.exp(x - m), 0)) + m
    picked = tl.sum(tl.where(cols == target, x, 0.0), 0)
    x_t = tl.load(logits_ptr + row * stride + target).to(tl.float32)
    tl.store(loss_ptr + row, lse - 0.5 * (picked + x_t))


@triton.jit
def gather_rows(src_ptr, idx_ptr, out_ptr, BM: tl.constexpr, BN: tl.constexpr):
    """tl.gather along the rows of a 2-D tile (a per-row permutation)."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    offs = rm[:, None] * BN + rn[None, :]
    src = tl.load(src_ptr + offs)
    idx = tl.load(idx_ptr + offs) & (BN - 1)
    tl.store(out_ptr + offs, tl.gather(src, idx, 1))


@triton.jit
def _mul(a, b):
    return a * b


@triton.jit
def scan_rows(x_ptr, sum_ptr, prod_ptr, BM: tl.constexpr, BN: tl.constexpr):
    """tl.cumsum and an associative_scan (running product) along the rows of a 2-D tile."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    offs = rm[:, None] * BN + rn[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(sum_ptr + offs, tl.cumsum(x, 1))
    tl.store(prod_ptr + offs, tl.associative_scan(x, 1, _mul))


@triton.jit
def _argmax_combine(v1, i1, v2, i2):
    take_first = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(take_first, v1, v2), tl.where(take_first, i1, i2)


@triton.jit
def argmax_rows(x_ptr, val_ptr, idx_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
    """A reduction with two results (value, index) through a tuple combine function."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :])
    idx = tl.broadcast_to(cols[None, :], [BM, BN])
    v, i = tl.reduce((x, idx), 1, _argmax_combine)
    tl.store(val_ptr + rows, v)
    tl.store(idx_ptr + rows, i)


@triton.jit
def sort_rows(x_ptr, y_ptr, BM: tl.constexpr, BN: tl.constexpr, DESCENDING: tl.constexpr):
    """``tl.sort`` along the rows of a 2-D tile (Triton's bitonic network: reshapes to a
    hypercube, xor-sums, joins and splits)."""
    offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    tl.store(y_ptr + offs, tl.sort(tl.load(x_ptr + offs), 1, DESCENDING))


@triton.jit
def sort_cols(x_ptr, y_ptr, BM: tl.constexpr, BN: tl.constexpr, DESCENDING: tl.constexpr):
    """A sort along axis 0 (``tl.sort`` sorts the last axis only: through two transposes)."""
    offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    x = tl.trans(tl.load(x_ptr + offs))
    tl.store(y_ptr + offs, tl.trans(tl.sort(x, 1, DESCENDING)))


@triton.jit
def topk_rows(x_ptr, y_ptr, BM: tl.constexpr, BN: tl.constexpr, K: tl.constexpr):
    """``tl.topk``: the K largest of each row, largest first (bitonic top-k: reductions of the
    hypercube between merges)."""
    rows = tl.arange(0, BM)[:, None]
    top = tl.topk(tl.load(x_ptr + rows * BN + tl.arange(0, BN)[None, :]), K, 1)
    tl.store(y_ptr + rows * K + tl.arange(0, K)[None, :], top)


KERNELS: dict[str, tuple[Any, dict[str, str], dict[str, int], int]] = {
    "vector_add": (
        vector_add,
        {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
        {"BLOCK": 1024},
        4,
    ),
    "softmax": (
        softmax,
        {
            "out_ptr": "*fp32",
            "in_ptr": "*fp32",
            "in_stride": "i32",
            "out_stride": "i32",
            "n_cols": "i32",
        },
        {"BLOCK": 1024},
        4,
    ),
    "matmul": (
        matmul,
        {
            "a_ptr": "*fp16",
            "b_ptr": "*fp16",
            "c_ptr": "*fp16",
            "M": "i32",
            "N": "i32",
            "K": "i32",
            "stride_am": "i32",
            "stride_bk": "i32",
            "stride_cm": "i32",
        },
        {"BM": 64, "BN": 64, "BK": 32},
        4,
    ),
    "layer_norm": (
        layer_norm,
        {
            "x_ptr": "*fp16",
            "y_ptr": "*fp32",
            "w_ptr": "*fp32",
            "b_ptr": "*fp32",
            "stride": "i32",
            "n": "i32",
            "eps": "fp32",
        },
        {"BLOCK": 512},
        4,
    ),
    "transpose": (
        transpose,
        {"in_ptr": "*fp32", "out_ptr": "*fp32", "stride_in": "i32", "stride_out": "i32"},
        {"BM": 64, "BN": 64},
        4,
    ),
    "flash_attention": (
        flash_attention,
        {
            "q_ptr": "*fp16",
            "k_ptr": "*fp16",
            "v_ptr": "*fp16",
            "o_ptr": "*fp16",
            "stride": "i32",
            "n_ctx": "i32",
            "sm_scale": "fp32",
        },
        {"BM": 64, "BN": 64, "D": 64},
        4,
    ),
    # 8 warps on a 64-row tile: the dot feeding another takes all warps along M ([8, 1]), the
    # last one splits them ([4, 2] on sm_90), so the chained-dot rule shows.
    "flash_attention_w8": (
        flash_attention,
        {
            "q_ptr": "*fp16",
            "k_ptr": "*fp16",
            "v_ptr": "*fp16",
            "o_ptr": "*fp16",
            "stride": "i32",
            "n_ctx": "i32",
            "sm_scale": "fp32",
        },
        {"BM": 64, "BN": 64, "D": 64},
        8,
    ),
    "extra_ops": (
        extra_ops,
        {"x_ptr": "*fp32", "i_ptr": "*i32", "o_ptr": "*fp32", "h_ptr": "*i32"},
        {"BLOCK": 128},
        4,
    ),
    "matmul_epilogue": (
        matmul_epilogue,
        {
            "a_ptr": "*fp16",
            "b_ptr": "*fp16",
            "bias_ptr": "*fp32",
            "c_ptr": "*fp16",
            "M": "i32",
            "N": "i32",
            "K": "i32",
            "stride_am": "i32",
            "stride_bk": "i32",
            "stride_cm": "i32",
        },
        {"BM": 64, "BN": 64, "BK": 32},
        4,
    ),
    "matmul_i8_f16": (
        matmul_i8_f16,
        {
            "a_ptr": "*i8",
            "b_ptr": "*fp16",
            "c_ptr": "*fp16",
            "M": "i32",
            "N": "i32",
            "K": "i32",
            "stride_am": "i32",
            "stride_bk": "i32",
            "stride_cm": "i32",
        },
        {"BM": 64, "BN": 64, "BK": 32},
        4,
    ),
    "matmul_tf32": (
        matmul_tf32,
        {
            "a_ptr": "*fp32",
            "b_ptr": "*fp32",
            "c_ptr": "*fp32",
            "M": "i32",
            "N": "i32",
            "K": "i32",
            "stride_am": "i32",
            "stride_bk": "i32",
            "stride_cm": "i32",
        },
        {"BM": 64, "BN": 64, "BK": 32},
        4,
    ),
    "matmul_fp8": (
        matmul_fp8,
        {
            "a_ptr": "*fp8e5",
            "b_ptr": "*fp8e5",
            "c_ptr": "*fp32",
            "M": "i32",
            "N": "i32",
            "K": "i32",
            "stride_am": "i32",
            "stride_bk": "i32",
            "stride_cm": "i32",
        },
        {"BM": 64, "BN": 128, "BK": 64},
        4,
    ),
    "small_dot": (
        small_dot,
        {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32"},
        {"BM": 16, "BN": 64, "BK": 64},
        4,
    ),
    "row_stats": (
        row_stats,
        {
            "x_ptr": "*fp32",
            "mean_ptr": "*fp32",
            "max_ptr": "*fp32",
            "n_cols": "i32",
            "stride": "i32",
        },
        {"BM": 32, "BN": 128},
        4,
    ),
    "newton_sqrt": (
        newton_sqrt,
        {"x_ptr": "*fp32", "y_ptr": "*fp32", "tol": "fp32"},
        {"BLOCK": 512},
        4,
    ),
    "cross_entropy": (
        cross_entropy,
        {
            "logits_ptr": "*fp16",
            "target_ptr": "*i32",
            "loss_ptr": "*fp32",
            "n_cols": "i32",
            "stride": "i32",
        },
        {"BLOCK": 1024},
        4,
    ),
    "gather_rows": (
        gather_rows,
        {"src_ptr": "*fp32", "idx_ptr": "*i32", "out_ptr": "*fp32"},
        {"BM": 32, "BN": 64},
        4,
    ),
    "scan_rows": (
        scan_rows,
        {"x_ptr": "*fp32", "sum_ptr": "*fp32", "prod_ptr": "*fp32"},
        {"BM": 32, "BN": 64},
        4,
    ),
    "argmax_rows": (
        argmax_rows,
        {"x_ptr": "*fp32", "val_ptr": "*fp32", "idx_ptr": "*i32", "stride": "i32"},
        {"BM": 32, "BN": 128},
        4,
    ),
    "sort_rows": (
        sort_rows,
        {"x_ptr": "*fp32", "y_ptr": "*fp32"},
        {"BM": 4, "BN": 128, "DESCENDING": 0},
        4,
    ),
    "sort_rows_desc_i32": (
        sort_rows,
        {"x_ptr": "*i32", "y_ptr": "*i32"},
        {"BM": 16, "BN": 64, "DESCENDING": 1},
        4,
    ),
    "sort_row_f16": (
        sort_rows,
        {"x_ptr": "*fp16", "y_ptr": "*fp16"},
        {"BM": 1, "BN": 256, "DESCENDING": 0},
        4,
    ),
    "sort_cols": (
        sort_cols,
        {"x_ptr": "*fp32", "y_ptr": "*fp32"},
        {"BM": 64, "BN": 8, "DESCENDING": 1},
        4,
    ),
    "topk_rows": (
        topk_rows,
        {"x_ptr": "*fp32", "y_ptr": "*fp32"},
        {"BM": 16, "BN": 128, "K": 8},
        4,
    ),
}

DEBUG_KERNELS = frozenset({"extra_ops"})
"""Compiled with ``debug=True``, so that Triton keeps ``tl.device_assert``."""


def compile_kernel(
    name: str,
    arch: int,
    constexprs: dict[str, int] | None = None,
    num_warps: int | None = None,
    num_stages: int = 1,
) -> Any:
    """``triton.compile`` one of :data:`KERNELS` for ``sm_<arch>`` (no GPU needed)."""
    fn, signature, default_constexprs, default_warps = KERNELS[name]
    consts = dict(default_constexprs if constexprs is None else constexprs)
    full_signature = dict(signature) | dict.fromkeys(consts, "constexpr")
    source = ASTSource(fn=fn, signature=full_signature, constexprs=consts)
    options = {
        "num_warps": num_warps or default_warps,
        "num_stages": num_stages,
        "debug": name in DEBUG_KERNELS,
    }
    return triton.compile(source, target=GPUTarget("cuda", arch, 32), options=options)


_LOC_LINE_RE = re.compile(r'loc\("[^"]*/([^"/]+)":')


def portable(text: str) -> str:
    """Make a dump independent of where this file lives: ``loc("/abs/dir/f.py":1:2)`` keeps
    only the file name."""
    return _LOC_LINE_RE.sub(r'loc("\1":', text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder")
    parser.add_argument("--ptx", action="store_true", help="also write the PTX")
    parser.add_argument("--kernel", action="append", choices=sorted(KERNELS), help="only these")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.kernel or KERNELS:
        for arch in ARCHS:
            compiled = compile_kernel(name, arch)
            for stage in ("ttir", "ttgir") + (("ptx",) if args.ptx else ()):
                path = args.out / f"{name}.sm{arch}.{stage}"
                path.write_text(portable(compiled.asm[stage]))
                print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    print(f"triton {triton.__version__}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
