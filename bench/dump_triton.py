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
from triton.language.extra.cuda import libdevice

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


# ---------------------------------------------------------------------------------------------
# Issue 18, session 3 (engineer b): real kernels beyond the fixtures above (flip, scans along
# both axes, interleave/join/split/permute/reshape, argmin, Welford, masked atomics, transposed
# and batched and integer dots, online softmax, layer-norm backward, inline asm, libdevice,
# scalar loads in a data-dependent while loop, static_range, tensor descriptors).


@triton.jit
def flip_scan(x_ptr, s_ptr, p_ptr, BM: tl.constexpr, BN: tl.constexpr):
    """A reverse cumulative sum down the columns (flip, cumsum along axis 0, flip back) and a
    running product along the rows."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    offs = rm[:, None] * BN + rn[None, :]
    x = tl.load(x_ptr + offs)
    rev = tl.flip(tl.cumsum(tl.flip(x, 0), 0), 0)
    tl.store(s_ptr + offs, rev)
    tl.store(p_ptr + offs, tl.cumprod(x, 1))


@triton.jit
def rotary(x_ptr, cos_ptr, sin_ptr, o_ptr, stride, BM: tl.constexpr, D: tl.constexpr):
    """Rotary embedding on interleaved (even, odd) pairs: reshape + split, rotate, join +
    reshape back, and tl.interleave of the two halves."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rd = tl.arange(0, D)
    x = tl.load(x_ptr + rm[:, None] * stride + rd[None, :]).to(tl.float32)
    half = tl.arange(0, D // 2)
    c = tl.load(cos_ptr + rm[:, None] * (D // 2) + half[None, :])
    s = tl.load(sin_ptr + rm[:, None] * (D // 2) + half[None, :])
    x0, x1 = tl.split(tl.reshape(x, [BM, D // 2, 2]))
    y0 = x0 * c - x1 * s
    y1 = x0 * s + x1 * c
    y = tl.reshape(tl.join(y0, y1), [BM, D])
    z = tl.interleave(y0, y1)
    tl.store(o_ptr + rm[:, None] * stride + rd[None, :], (y + z).to(tl.float16))


@triton.jit
def permute_tiles(x_ptr, o_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    """A 3-D tile permuted (2, 0, 1) and its first two dimensions transposed with tl.trans."""
    ra = tl.arange(0, A)
    rb = tl.arange(0, B)
    rc = tl.arange(0, C)
    offs = ra[:, None, None] * (B * C) + rb[None, :, None] * C + rc[None, None, :]
    x = tl.load(x_ptr + offs)
    y = tl.permute(x, (2, 0, 1))  # [C, A, B]
    y = tl.trans(y, 1, 0, 2)  # [A, C, B]
    out = ra[:, None, None] * (C * B) + rc[None, :, None] * B + rb[None, None, :]
    tl.store(o_ptr + out, y)


@triton.jit
def argmin_cols(x_ptr, v_ptr, i_ptr, j_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
    """tl.argmin down the columns and tl.max(..., return_indices=True) along the rows."""
    rm = tl.arange(0, BM)
    rn = tl.program_id(0) * BN + tl.arange(0, BN)
    x = tl.load(x_ptr + rm[:, None] * stride + rn[None, :])
    tl.store(i_ptr + rn, tl.argmin(x, 0))
    v, j = tl.max(x, 1, return_indices=True)
    tl.store(v_ptr + rm, v)
    tl.store(j_ptr + rm, j)


@triton.jit
def _welford_combine(m1, s1, n1, m2, s2, n2):
    n = n1 + n2
    w2 = tl.where(n == 0, 0.0, n2 / n)
    d = m2 - m1
    return m1 + d * w2, s1 + s2 + d * d * n1 * w2, n


@triton.jit
def welford_rows(x_ptr, mean_ptr, var_ptr, n_cols, stride, BM: tl.constexpr, BN: tl.constexpr):
    """Welford's mean/variance: a loop of per-lane updates, then tl.reduce with three results
    and a custom combine function."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    mean = tl.zeros([BM, BN], dtype=tl.float32)
    m2 = tl.zeros([BM, BN], dtype=tl.float32)
    cnt = tl.zeros([BM, BN], dtype=tl.float32)
    for start in range(0, n_cols, BN):
        cols = start + tl.arange(0, BN)
        mask = cols[None, :] < n_cols
        x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=0.0)
        c1 = cnt + tl.where(mask, 1.0, 0.0)
        d = x - mean
        mean = tl.where(mask, mean + d / tl.maximum(c1, 1.0), mean)
        m2 = tl.where(mask, m2 + d * (x - mean), m2)
        cnt = c1
    m, s, n = tl.reduce((mean, m2, cnt), 1, _welford_combine)
    tl.store(mean_ptr + rows, m)
    tl.store(var_ptr + rows, s / n)


@triton.jit
def scatter_atomics(x_ptr, idx_ptr, sum_ptr, max_ptr, hist_ptr, n, BLOCK: tl.constexpr):
    """Masked scatter atomics (add, max) through loaded indices and a histogram of them."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    idx = tl.load(idx_ptr + offs, mask=mask, other=0) & 63
    tl.atomic_add(sum_ptr + idx, x, mask=mask)
    tl.atomic_max(max_ptr + idx, x.to(tl.int32, bitcast=True), mask=mask & (x > 0))
    h = tl.histogram(idx, 64)
    tl.atomic_add(hist_ptr + tl.arange(0, 64), h)


@triton.jit
def matmul_nt(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_bn,
    stride_cm,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    """C = A @ B^T with B stored [N, K] row-major (the linear layer's weight): tl.trans(b)."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rn[:, None] * stride_bn + rk[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), num_stages=3):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=rk[None, :] < K - k * BK, other=0.0)
        acc = tl.dot(a, tl.trans(b), acc)
        a_ptrs += BK
        b_ptrs += BK
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :]
    tl.store(c_ptrs, acc.to(tl.bfloat16), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def bmm(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    """A batched 3-D tl.dot: [B, M, K] x [B, K, N]."""
    rb = tl.arange(0, B)
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rb[:, None, None] * (M * K) + rm[None, :, None] * K + rk[None, None, :])
    b = tl.load(b_ptr + rb[:, None, None] * (K * N) + rk[None, :, None] * N + rn[None, None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + rb[:, None, None] * (M * N) + rm[None, :, None] * N + rn[None, None, :], c)


@triton.jit
def matmul_i8(
    a_ptr,
    b_ptr,
    scale_ptr,
    c_ptr,
    K,
    stride_am,
    stride_bk,
    stride_cm,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    """int8 x int8 -> int32 dot (out_dtype), dequantized by a per-column scale in the epilogue."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.int32)
    for _k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc, out_dtype=tl.int32)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    scale = tl.load(scale_ptr + rn)
    c = acc.to(tl.float32) * scale[None, :]
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], c.to(tl.float16))


@triton.jit
def matmul_gelu(
    a_ptr,
    b_ptr,
    bias_ptr,
    c_ptr,
    K,
    stride_am,
    stride_bk,
    stride_cm,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    """bf16 dot accumulating in f32 (out_dtype), bias per row, GELU through libdevice's erf,
    truncated to bf16."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _k in range(0, tl.cdiv(K, BK)):
        acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), out_dtype=tl.float32)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    acc = acc + tl.load(bias_ptr + rm)[:, None]
    y = 0.5 * acc * (1.0 + libdevice.erf(acc * 0.7071067811865476))
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], y.to(tl.bfloat16))


@triton.jit
def online_softmax(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    """Softmax of a long row in two passes: a running (max, sum) over column blocks, then the
    normalized write."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * stride + start + cols, mask=mask, other=float("-inf"))
        m_new = tl.maximum(m, x)
        s = s * tl.exp(m - m_new) + tl.where(mask, tl.exp(x - m_new), 0.0)
        m = m_new
    row_max = tl.max(m, 0)
    total = tl.sum(s * tl.exp(m - row_max), 0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * stride + start + cols, mask=mask, other=float("-inf"))
        tl.store(y_ptr + row * stride + start + cols, tl.exp(x - row_max) / total, mask=mask)


@triton.jit
def layer_norm_bwd(
    dy_ptr,
    x_ptr,
    w_ptr,
    mean_ptr,
    rstd_ptr,
    dx_ptr,
    dw_ptr,
    db_ptr,
    n,
    stride,
    BM: tl.constexpr,
    BLOCK: tl.constexpr,
):
    """Layer norm backward for BM rows: two row reductions for dx, column partial sums of dw
    and db added with masked atomics."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BLOCK)
    mask = cols[None, :] < n
    offs = rows[:, None] * stride + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    dy = tl.load(dy_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=cols < n, other=0.0)
    mean = tl.load(mean_ptr + rows)
    rstd = tl.load(rstd_ptr + rows)
    xhat = tl.where(mask, (x - mean[:, None]) * rstd[:, None], 0.0)
    wdy = tl.where(mask, w[None, :] * dy, 0.0)
    c1 = tl.sum(xhat * wdy, 1) / n
    c2 = tl.sum(wdy, 1) / n
    dx = (wdy - (xhat * c1[:, None] + c2[:, None])) * rstd[:, None]
    tl.store(dx_ptr + offs, dx.to(tl.float16), mask=mask)
    tl.atomic_add(dw_ptr + cols, tl.sum(dy * xhat, 0), mask=cols < n)
    tl.atomic_add(db_ptr + cols, tl.sum(dy, 0), mask=cols < n)


@triton.jit
def asm_math(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    """tl.inline_asm_elementwise (packed 4 x i8 -> f32 lanes not needed: a plain f32 op) next to
    libdevice math (rsqrt, tanh, fast exp2)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    a = tl.inline_asm_elementwise(
        "max.f32 $0, $1, 0f00000000;", "=r,r", [x], dtype=tl.float32, is_pure=True, pack=1
    )
    b = libdevice.tanh(x) + libdevice.rsqrt(tl.abs(x) + 1.0) + libdevice.exp2(x)
    tl.store(y_ptr + offs, a + b, mask=mask)


@triton.jit
def segment_sum(x_ptr, start_ptr, end_ptr, out_ptr, alpha_ptr, BLOCK: tl.constexpr):
    """A CSR row sum: the row's bounds and a scale are scalar loads, the while loop's trip count
    depends on them, and tl.where picks between scalars."""
    row = tl.program_id(0)
    start = tl.load(start_ptr + row)
    end = tl.load(end_ptr + row)
    alpha = tl.load(alpha_ptr)
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    i = start
    while i < end:
        mask = i + cols < end
        acc += tl.load(x_ptr + i + cols, mask=mask, other=0.0)
        i += BLOCK
    total = tl.sum(acc, 0)
    scale = tl.where(end > start, alpha, 0.0)
    tl.store(out_ptr + row, total * scale)


@triton.jit
def unrolled_stencil(x_ptr, y_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, R: tl.constexpr):
    """A 1-D horizontal stencil of radius R unrolled with tl.static_range over a 2-D tile."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for r in tl.static_range(-R, R + 1):
        w = 1.0 / (1 + r * r)
        acc += w * tl.load(x_ptr + rm[:, None] * stride + (rn[None, :] + R + r))
    tl.store(y_ptr + rm[:, None] * stride + rn[None, :], acc)


@triton.jit
def descriptor_matmul(
    a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
):
    """A matmul through tensor descriptors (TMA on sm_90)."""
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [N, 1], [BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [N, 1], [BM, BN])
    om = tl.program_id(0) * BM
    on = tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc = tl.dot(a_desc.load([om, k]), b_desc.load([k, on]), acc)
    c_desc.store([om, on], acc.to(tl.float16))


@triton.jit
def gather_cols(src_ptr, idx_ptr, out_ptr, BM: tl.constexpr, BN: tl.constexpr):
    """tl.gather down the columns of a 2-D tile (an embedding-style row pick per column)."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    offs = rm[:, None] * BN + rn[None, :]
    src = tl.load(src_ptr + offs)
    idx = tl.load(idx_ptr + offs) & (BM - 1)
    tl.store(out_ptr + offs, tl.gather(src, idx, 0))


@triton.jit
def _segmented_add(v1, f1, v2, f2):
    return tl.where(f2 != 0, v2, v1 + v2), f1 | f2


@triton.jit
def segmented_scan(x_ptr, flag_ptr, y_ptr, BM: tl.constexpr, BN: tl.constexpr):
    """A segmented prefix sum down the columns: tl.associative_scan over a (value, flag)
    tuple along axis 0."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    offs = rm[:, None] * BN + rn[None, :]
    x = tl.load(x_ptr + offs)
    f = tl.load(flag_ptr + offs)
    y, _ = tl.associative_scan((x, f), 0, _segmented_add)
    tl.store(y_ptr + offs, y)


@triton.jit
def softmax_2d(x_ptr, y_ptr, n_rows, n_cols, stride, BM: tl.constexpr, BN: tl.constexpr):
    """Softmax of BM rows at once, with keep_dims reductions and masks on both dims."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offs = rows[:, None] * stride + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=-float("inf")).to(tl.float32)
    z = x - tl.max(x, 1, keep_dims=True)
    num = tl.exp(z)
    y = num / tl.sum(num, 1, keep_dims=True)
    tl.store(y_ptr + offs, y.to(tl.float16), mask=mask)


@triton.jit
def grouped_matmul(
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
    GROUP: tl.constexpr,
):
    """The tutorial's L2-friendly matmul: tl.swizzle2d program ids, multiple_of/max_contiguous
    hints, cache modifiers, a masked K tail."""
    pid_m, pid_n = tl.swizzle2d(
        tl.program_id(0), tl.program_id(1), tl.cdiv(M, BM), tl.cdiv(N, BN), GROUP
    )
    rm = tl.max_contiguous(tl.multiple_of((pid_m * BM + tl.arange(0, BM)) % M, BM), BM)
    rn = tl.max_contiguous(tl.multiple_of((pid_n * BN + tl.arange(0, BN)) % N, BN), BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BK, other=0.0, cache_modifier=".cg")
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k * BK, other=0.0, eviction_policy="evict_last")
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    c = acc.to(tl.float16)
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def wide_index_act(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    """64-bit offsets, tl.clamp, tl.sigmoid, a masked load with other, int -> float casts."""
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.sigmoid(tl.clamp(x, -4.0, 4.0)) + (offs % 7).to(tl.float32)
    tl.store(y_ptr + offs, y, mask=mask)


@triton.jit
def attention_dq(
    q_ptr,
    k_ptr,
    v_ptr,
    do_ptr,
    dq_ptr,
    lse_ptr,
    stride,
    n_ctx,
    BM: tl.constexpr,
    BN: tl.constexpr,
    D: tl.constexpr,
):
    """Attention backward's dQ: P from Q K^T and the saved log-sum-exp, dP = dO V^T, then
    dQ += (P * (dP - delta)) K: three dots, two with a transposed operand."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + rm[:, None] * stride + rd[None, :])
    do = tl.load(do_ptr + rm[:, None] * stride + rd[None, :])
    lse = tl.load(lse_ptr + rm)
    delta = tl.sum(do.to(tl.float32) * do.to(tl.float32), 1)
    dq = tl.zeros([BM, D], dtype=tl.float32)
    for start in range(0, n_ctx, BN):
        k = tl.load(k_ptr + (start + rn)[:, None] * stride + rd[None, :])
        v = tl.load(v_ptr + (start + rn)[:, None] * stride + rd[None, :])
        p = tl.exp(tl.dot(q, tl.trans(k)) - lse[:, None])
        dp = tl.dot(do, tl.trans(v))
        ds = (p * (dp - delta[:, None])).to(tl.float16)
        dq = tl.dot(ds, k, dq)
    tl.store(dq_ptr + rm[:, None] * stride + rd[None, :], dq)


@triton.jit
def swiglu_matmul(
    a_ptr,
    w_ptr,
    o_ptr,
    K,
    stride_am,
    stride_wk,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    """A fused gate/up projection: one dot over interleaved (gate, up) weight columns, split
    with reshape + tl.split, SiLU(gate) * up."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    w_ptrs = w_ptr + rk[:, None] * stride_wk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(tl.load(a_ptrs), tl.load(w_ptrs), acc)
        a_ptrs += BK
        w_ptrs += BK * stride_wk
    gate, up = tl.split(tl.reshape(acc, [BM, BN // 2, 2]))
    out = gate * tl.sigmoid(gate) * up
    ro = tl.program_id(1) * (BN // 2) + tl.arange(0, BN // 2)
    tl.store(o_ptr + rm[:, None] * (stride_wk // 2) + ro[None, :], out.to(tl.float16))


@triton.jit
def dropout(x_ptr, y_ptr, n, p, seed, BLOCK: tl.constexpr):
    """Dropout with Philox random numbers (tl.rand) keyed by the element offsets."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed, offs) > p
    tl.store(y_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@triton.jit
def locked_accumulate(x_ptr, acc_ptr, lock_ptr, n_cols, BLOCK: tl.constexpr):
    """The layer-norm-backward tutorial's partial sums: a spin lock taken with tl.atomic_cas
    in a while loop, a read-modify-write of the shared row, tl.atomic_xchg to release."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    slot = row % 4
    lock = lock_ptr + slot
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    old = tl.load(acc_ptr + slot * n_cols + cols, mask=mask)
    tl.store(acc_ptr + slot * n_cols + cols, old + x, mask=mask)
    tl.atomic_xchg(lock, 0)


@triton.jit
def fp8_matmul_nt(
    a_ptr,
    b_ptr,
    c_ptr,
    K,
    stride_am,
    stride_bn,
    stride_cm,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    """fp8 (e5m2) A @ B^T with B stored N x K: the K-major operand wgmma needs for 8-bit types."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rn[:, None] * stride_bn + rk[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(tl.load(a_ptrs), tl.trans(tl.load(b_ptrs)), acc)
        a_ptrs += BK
        b_ptrs += BK
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.bfloat16))


@triton.jit
def tile_stats(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
    """Whole-tile reductions to scalars (axis=None): sum, max, and an argmax over the flattened
    tile."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    x = tl.load(x_ptr + rm[:, None] * stride + rn[None, :])
    tl.store(out_ptr, tl.sum(x))
    tl.store(out_ptr + 1, tl.max(x))
    flat = tl.reshape(x, [BM * BN])
    tl.store(out_ptr + 2, tl.argmax(flat, 0).to(tl.float32))


@triton.jit
def fma_dot(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """An exact f32 dot (input_precision="ieee"): no tensor cores, Triton's FMA path."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    c = tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], c)


@triton.jit
def reduce_3d(x_ptr, y_ptr, z_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    """Reductions of a 3-D tile along its middle and last dims, and a tl.cat of two results."""
    ra = tl.arange(0, A)
    rb = tl.arange(0, B)
    rc = tl.arange(0, C)
    x = tl.load(x_ptr + ra[:, None, None] * (B * C) + rb[None, :, None] * C + rc[None, None, :])
    s = tl.sum(x, 1)  # [A, C]
    m = tl.max(x, 2)  # [A, B]
    tl.store(y_ptr + ra[:, None] * C + rc[None, :], s)
    both = tl.cat(tl.reshape(m, [A * B]), tl.reshape(m * 2.0, [A * B]), can_reorder=True)
    tl.store(z_ptr + tl.arange(0, 2 * A * B), both)


@triton.jit
def persistent_matmul(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    NUM_SMS: tl.constexpr,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    """A persistent matmul: each program loops over output tiles (tl.range with a stride of the
    number of programs), an inner K loop per tile."""
    num_n = tl.cdiv(N, BN)
    num_tiles = tl.cdiv(M, BM) * num_n
    for tile in tl.range(tl.program_id(0), num_tiles, NUM_SMS):
        rm = (tile // num_n) * BM + tl.arange(0, BM)
        rn = (tile % num_n) * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
            b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
            acc = tl.dot(a, b, acc)
        mask = (rm[:, None] < M) & (rn[None, :] < N)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=mask)


@triton.jit
def f16_acc_dot(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """A dot accumulating in f16 (out_dtype=tl.float16) on a 32-row tile."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float16)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc, out_dtype=tl.float16)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


# ---------------------------------------------------------------------------------------------
# Issue 18, session 5 (engineer p): kernels of other kinds than those above (norms with their
# backward passes, split-K and int4 matmuls, transposed dot operands, reverse scans, 3-D tiles,
# tuple reductions, a while loop over tensors, causal attention, fp8 output).


@triton.jit
def rms_norm(
    x_ptr, w_ptr, y_ptr, rstd_ptr, n_rows, n_cols, stride, eps, BM: tl.constexpr, BN: tl.constexpr
):
    """RMSNorm forward over BM rows at once, f16 in and out, the row's rstd saved."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=0.0)
    x = x.to(tl.float32)
    rstd = tl.rsqrt(tl.sum(x * x, axis=1) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    y = x * rstd[:, None] * w[None, :]
    tl.store(y_ptr + rows[:, None] * stride + cols[None, :], y.to(tl.float16), mask=mask)
    tl.store(rstd_ptr + rows, rstd, mask=rows < n_rows)


@triton.jit
def rms_norm_bwd(
    dy_ptr,
    x_ptr,
    w_ptr,
    rstd_ptr,
    dx_ptr,
    dw_ptr,
    n_rows,
    n_cols,
    stride,
    BM: tl.constexpr,
    BN: tl.constexpr,
):
    """RMSNorm backward: dx per row, dw summed down the tile's rows then added atomically."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offs = rows[:, None] * stride + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    dy = tl.load(dy_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=cols < n_cols, other=0.0)
    rstd = tl.load(rstd_ptr + rows, mask=rows < n_rows, other=0.0)
    xhat = x * rstd[:, None]
    wdy = w[None, :] * dy
    c = tl.sum(xhat * wdy, axis=1) / n_cols
    dx = (wdy - xhat * c[:, None]) * rstd[:, None]
    tl.store(dx_ptr + offs, dx.to(tl.float16), mask=mask)
    tl.atomic_add(dw_ptr + cols, tl.sum(dy * xhat, axis=0), mask=cols < n_cols)


@triton.jit
def split_k_matmul(
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
    SPLIT_K: tl.constexpr,
):
    """Split-K: each program sums every SPLIT_K-th K block, then adds its tile atomically."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = pid_k * BK + tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK * SPLIT_K)):
        left = K - (k * SPLIT_K + pid_k) * BK
        a = tl.load(a_ptrs, mask=tl.arange(0, BK)[None, :] < left, other=0.0)
        b = tl.load(b_ptrs, mask=tl.arange(0, BK)[:, None] < left, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK * SPLIT_K
        b_ptrs += BK * SPLIT_K * stride_bk
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.atomic_add(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc, mask=mask)


@triton.jit
def int4_matmul(
    a_ptr,
    b_ptr,
    scale_ptr,
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
    """W4A16: B packs two 4-bit weights per byte along K (low nibble first); unpacked with
    shifts and masks, interleaved back along K, scaled per column, then a f16 dot."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    rkp = tl.arange(0, BK // 2)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rkp[:, None] * stride_bk + rn[None, :]
    scale = tl.load(scale_ptr + rn, mask=rn < N, other=0.0)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs)
        packed = tl.load(b_ptrs)
        lo = (packed & 0xF).to(tl.int8) - 8
        hi = ((packed >> 4) & 0xF).to(tl.int8) - 8
        w = tl.join(lo, hi).permute(0, 2, 1).reshape(BK, BN)
        b = w.to(tl.float16) * scale[None, :]
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += (BK // 2) * stride_bk
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :]
    tl.store(c_ptrs, acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def softmax_bwd(y_ptr, dy_ptr, dx_ptr, n_rows, n_cols, stride, BM: tl.constexpr, BN: tl.constexpr):
    """Softmax backward: dx = y * (dy - sum(y * dy)) row by row, f16 in, f32 math."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offs = rows[:, None] * stride + cols[None, :]
    y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    dy = tl.load(dy_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    dot = tl.sum(y * dy, axis=1, keep_dims=True)
    tl.store(dx_ptr + offs, (y * (dy - dot)).to(tl.float16), mask=mask)


@triton.jit
def log_softmax_nll(
    x_ptr,
    target_ptr,
    logp_ptr,
    loss_ptr,
    n_rows,
    n_cols,
    stride,
    BM: tl.constexpr,
    BN: tl.constexpr,
):
    """Log-softmax of BM rows, written out, and each row's NLL picked by its target with a
    compare against a broadcast column index (no gather)."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offs = rows[:, None] * stride + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=-float("inf")).to(tl.float32)
    z = x - tl.max(x, axis=1)[:, None]
    logp = z - tl.log(tl.sum(tl.exp(z), axis=1))[:, None]
    tl.store(logp_ptr + offs, logp, mask=mask)
    target = tl.load(target_ptr + rows, mask=rows < n_rows, other=0)
    picked = tl.sum(tl.where(cols[None, :] == target[:, None], logp, 0.0), axis=1)
    tl.store(loss_ptr + rows, -picked, mask=rows < n_rows)


@triton.jit
def reverse_cumsum(x_ptr, r_ptr, c_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
    """Suffix sums: tl.cumsum(reverse=True) along the rows and down the columns of one tile."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    offs = rm[:, None] * stride + rn[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(r_ptr + offs, tl.cumsum(x, axis=1, reverse=True))
    tl.store(c_ptr + offs, tl.cumsum(x, axis=0, reverse=True))


@triton.jit
def transpose_reduce(x_ptr, y_ptr, s_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
    """A tile written transposed after a column scale, and the transposed tile's row sums."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    x = tl.load(x_ptr + rm[:, None] * stride + rn[None, :])
    x = x * tl.max(tl.abs(x), axis=0)[None, :]
    t = tl.trans(x)
    tl.store(y_ptr + rn[:, None] * BM + tl.arange(0, BM)[None, :], t)
    tl.store(s_ptr + rn, tl.sum(t, axis=1))


@triton.jit
def causal_attention(
    q_ptr,
    k_ptr,
    v_ptr,
    o_ptr,
    lse_ptr,
    stride,
    sm_scale,
    BM: tl.constexpr,
    BN: tl.constexpr,
    D: tl.constexpr,
):
    """Flash attention forward with the causal mask applied inside the loop (exp2, log-sum-exp
    saved), K read through tl.trans of a row-major tile."""
    start_m = tl.program_id(0)
    rm = start_m * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + rm[:, None] * stride + rd[None, :])
    m_i = tl.full([BM], -float("inf"), tl.float32)
    l_i = tl.zeros([BM], dtype=tl.float32)
    acc = tl.zeros([BM, D], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in range(0, (start_m + 1) * BM, BN):
        cols = start_n + rn
        k = tl.load(k_ptr + cols[:, None] * stride + rd[None, :])
        qk = tl.dot(q, tl.trans(k)) * qk_scale
        qk = tl.where(rm[:, None] >= cols[None, :], qk, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + cols[:, None] * stride + rd[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    tl.store(lse_ptr + rm, m_i + tl.math.log2(l_i))
    tl.store(o_ptr + rm[:, None] * stride + rd[None, :], (acc / l_i[:, None]).to(tl.float16))


@triton.jit
def scaled_matmul_fp8_out(
    a_ptr,
    b_ptr,
    sa_ptr,
    sb_ptr,
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
    """f16 matmul, per-row and per-column scales in the epilogue, clamped and stored as e5m2."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = _matmul_tile(a_ptr, b_ptr, K, stride_am, stride_bk, rm, rn, BM, BN, BK)
    sa = tl.load(sa_ptr + rm, mask=rm < M, other=1.0)
    sb = tl.load(sb_ptr + rn, mask=rn < N, other=1.0)
    acc = tl.clamp(acc * sa[:, None] * sb[None, :], -57344.0, 57344.0)
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :]
    tl.store(c_ptrs, acc.to(tl.float8e5), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def group_norm(x_ptr, y_ptr, w_ptr, b_ptr, eps, C: tl.constexpr, HW: tl.constexpr, G: tl.constexpr):
    """Group norm of one sample: the [C, HW] tile reshaped to [G, C/G, HW], statistics over
    the two inner dims, per-channel affine."""
    n = tl.program_id(0)
    rc = tl.arange(0, C)
    rs = tl.arange(0, HW)
    offs = n * C * HW + rc[:, None] * HW + rs[None, :]
    x = tl.load(x_ptr + offs).to(tl.float32)
    g = tl.reshape(x, (G, C // G, HW))
    mean = tl.sum(tl.sum(g, axis=2), axis=1) / (C // G * HW)
    xc = g - mean[:, None, None]
    var = tl.sum(tl.sum(xc * xc, axis=2), axis=1) / (C // G * HW)
    xn = tl.reshape(xc * tl.rsqrt(var + eps)[:, None, None], (C, HW))
    w = tl.load(w_ptr + rc)
    b = tl.load(b_ptr + rc)
    tl.store(y_ptr + offs, (xn * w[:, None] + b[:, None]).to(tl.float16))


@triton.jit
def embedding_layer_norm(
    ids_ptr, emb_ptr, pos_ptr, w_ptr, y_ptr, n_tokens, D: tl.constexpr, BM: tl.constexpr
):
    """Token embeddings gathered by loaded ids (pointer arithmetic), plus positions, then
    layer norm per token."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, D)
    ids = tl.load(ids_ptr + rows, mask=rows < n_tokens, other=0).to(tl.int64)
    x = tl.load(emb_ptr + ids[:, None] * D + cols[None, :]).to(tl.float32)
    x += tl.load(pos_ptr + (rows % 512)[:, None] * D + cols[None, :]).to(tl.float32)
    mean = tl.sum(x, axis=1) / D
    xc = x - mean[:, None]
    rstd = tl.rsqrt(tl.sum(xc * xc, axis=1) / D + 1e-5)
    w = tl.load(w_ptr + cols)
    y = xc * rstd[:, None] * w[None, :]
    tl.store(
        y_ptr + rows[:, None] * D + cols[None, :], y.to(tl.float16), mask=rows[:, None] < n_tokens
    )


@triton.jit
def argmax_keepdims(x_ptr, y_ptr, i_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
    """tl.argmax down the columns with keep_dims, used as a [1, BN] row against the tile: a
    one-hot of each column's maximum."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    x = tl.load(x_ptr + rm[:, None] * stride + rn[None, :])
    i = tl.argmax(x, axis=0, keep_dims=True)
    one_hot = tl.where(rm[:, None] == i, 1.0, 0.0)
    tl.store(y_ptr + rm[:, None] * stride + rn[None, :], one_hot)
    tl.store(i_ptr + rn[None, :], i)


@triton.jit
def bucketize(x_ptr, bounds_ptr, counts_ptr, out_ptr, n, BLOCK: tl.constexpr, NB: tl.constexpr):
    """Histogram-like binning: each value against every boundary (1-D vectors broadcast to
    2-D), the bin counted by a sum of compares, clipped by a tl.where chain, then counted with
    atomics."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    bounds = tl.load(bounds_ptr + tl.arange(0, NB))
    b = tl.sum((x[:, None] >= bounds[None, :]).to(tl.int32), axis=1)
    b = tl.where(x != x, 0, tl.where(b > NB - 1, NB - 1, tl.where(b < 1, 0, b)))
    tl.store(out_ptr + offs, b, mask=offs < n)
    tl.atomic_add(counts_ptr + b, 1, mask=offs < n)


@triton.jit
def tile_3d_permute(x_ptr, y_ptr, s_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    """A 2-D tile reshaped to 3-D, permuted (2, 0, 1), summed over its new middle dim, and the
    permuted tile flattened and stored."""
    ra = tl.arange(0, A * B)
    rc = tl.arange(0, C)
    x = tl.load(x_ptr + ra[:, None] * C + rc[None, :])
    t = tl.permute(tl.reshape(x, (A, B, C)), (2, 0, 1))
    s = tl.sum(t, axis=1)
    tl.store(s_ptr + tl.arange(0, C)[:, None] * B + tl.arange(0, B)[None, :], s)
    flat = tl.reshape(t, (C, A * B))
    tl.store(y_ptr + rc[:, None] * (A * B) + ra[None, :], flat)


@triton.jit
def complex_mul(x_ptr, y_ptr, o_ptr, BM: tl.constexpr, BN: tl.constexpr):
    """Interleaved complex numbers: tl.split of (re, im) pairs, a product, tl.join back."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, 2 * BN)
    offs = rm[:, None] * (2 * BN) + rn[None, :]
    xr, xi = tl.split(tl.reshape(tl.load(x_ptr + offs), (BM, BN, 2)))
    yr, yi = tl.split(tl.reshape(tl.load(y_ptr + offs), (BM, BN, 2)))
    out = tl.join(xr * yr - xi * yi, xr * yi + xi * yr)
    tl.store(o_ptr + offs, tl.reshape(out, (BM, 2 * BN)))


@triton.jit
def dot_trans_a(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """A^T @ B with A stored K-major ([K, M] row-major): the transposed operand of a weight
    gradient."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + (k + rk)[:, None] * BM + rm[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(tl.trans(a), b, acc)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


@triton.jit
def _minmax_combine(lo1, hi1, n1, lo2, hi2, n2):
    return tl.minimum(lo1, lo2), tl.maximum(hi1, hi2), n1 + n2


@triton.jit
def minmax_count(x_ptr, lo_ptr, hi_ptr, n_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
    """A three-result tl.reduce with a custom combine down the columns: the minimum, the
    maximum and the count of finite values."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    x = tl.load(x_ptr + rm[:, None] * stride + rn[None, :])
    finite = tl.abs(x) < float("inf")
    lo, hi, cnt = tl.reduce(
        (
            tl.where(finite, x, float("inf")),
            tl.where(finite, x, -float("inf")),
            finite.to(tl.int32),
        ),
        0,
        _minmax_combine,
    )
    tl.store(lo_ptr + rn, lo)
    tl.store(hi_ptr + rn, hi)
    tl.store(n_ptr + rn, cnt)


@triton.jit
def bisect_rows(x_ptr, t_ptr, y_ptr, iters, BM: tl.constexpr, BN: tl.constexpr):
    """Bisection for each row's threshold with a while loop carrying 1-D bounds: find tau with
    sum(max(x - tau, 0)) = t (the sparsemax projection's root), then apply it to the tile."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    x = tl.load(x_ptr + rm[:, None] * BN + rn[None, :])
    t = tl.load(t_ptr + rm)
    lo = tl.min(x, axis=1) - t
    hi = tl.max(x, axis=1)
    i = 0
    while i < iters:
        mid = (lo + hi) * 0.5
        s = tl.sum(tl.maximum(x - mid[:, None], 0.0), axis=1)
        lo = tl.where(s > t, mid, lo)
        hi = tl.where(s > t, hi, mid)
        i += 1
    tau = (lo + hi) * 0.5
    tl.store(y_ptr + rm[:, None] * BN + rn[None, :], tl.maximum(x - tau[:, None], 0.0))


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


def _sig(**kinds: str) -> dict[str, str]:
    return kinds


_MM_INTS = {"K": "i32", "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"}

KERNELS.update(
    {
        "flip_scan": (
            flip_scan,
            _sig(x_ptr="*fp32", s_ptr="*fp32", p_ptr="*fp32"),
            {"BM": 64, "BN": 64},
            4,
        ),
        "rotary": (
            rotary,
            _sig(x_ptr="*fp16", cos_ptr="*fp32", sin_ptr="*fp32", o_ptr="*fp16", stride="i32"),
            {"BM": 64, "D": 128},
            4,
        ),
        "permute_tiles": (
            permute_tiles,
            _sig(x_ptr="*fp32", o_ptr="*fp32"),
            {"A": 8, "B": 16, "C": 32},
            4,
        ),
        "argmin_cols": (
            argmin_cols,
            _sig(x_ptr="*fp32", v_ptr="*fp32", i_ptr="*i32", j_ptr="*i32", stride="i32"),
            {"BM": 128, "BN": 64},
            8,
        ),
        "welford_rows": (
            welford_rows,
            _sig(x_ptr="*fp32", mean_ptr="*fp32", var_ptr="*fp32", n_cols="i32", stride="i32"),
            {"BM": 16, "BN": 128},
            4,
        ),
        "scatter_atomics": (
            scatter_atomics,
            _sig(
                x_ptr="*fp32",
                idx_ptr="*i32",
                sum_ptr="*fp32",
                max_ptr="*i32",
                hist_ptr="*i32",
                n="i32",
            ),
            {"BLOCK": 1024},
            4,
        ),
        "matmul_nt": (
            matmul_nt,
            _sig(
                a_ptr="*bf16",
                b_ptr="*bf16",
                c_ptr="*bf16",
                M="i32",
                N="i32",
                K="i32",
                stride_am="i32",
                stride_bn="i32",
                stride_cm="i32",
            ),
            {"BM": 128, "BN": 128, "BK": 64},
            8,
        ),
        "bmm": (
            bmm,
            _sig(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp32"),
            {"B": 2, "M": 64, "N": 64, "K": 32},
            4,
        ),
        "matmul_i8": (
            matmul_i8,
            _sig(a_ptr="*i8", b_ptr="*i8", scale_ptr="*fp32", c_ptr="*fp16", **_MM_INTS),
            {"BM": 128, "BN": 128, "BK": 64},
            8,
        ),
        "matmul_gelu": (
            matmul_gelu,
            _sig(a_ptr="*bf16", b_ptr="*bf16", bias_ptr="*fp32", c_ptr="*bf16", **_MM_INTS),
            {"BM": 64, "BN": 128, "BK": 32},
            4,
        ),
        "online_softmax": (
            online_softmax,
            _sig(x_ptr="*fp32", y_ptr="*fp32", n_cols="i32", stride="i32"),
            {"BLOCK": 2048},
            8,
        ),
        "layer_norm_bwd": (
            layer_norm_bwd,
            _sig(
                dy_ptr="*fp16",
                x_ptr="*fp16",
                w_ptr="*fp32",
                mean_ptr="*fp32",
                rstd_ptr="*fp32",
                dx_ptr="*fp16",
                dw_ptr="*fp32",
                db_ptr="*fp32",
                n="i32",
                stride="i32",
            ),
            {"BM": 4, "BLOCK": 1024},
            8,
        ),
        "asm_math": (
            asm_math,
            _sig(x_ptr="*fp32", y_ptr="*fp32", n="i32"),
            {"BLOCK": 1024},
            4,
        ),
        "segment_sum": (
            segment_sum,
            _sig(
                x_ptr="*fp32", start_ptr="*i32", end_ptr="*i32", out_ptr="*fp32", alpha_ptr="*fp32"
            ),
            {"BLOCK": 256},
            4,
        ),
        "unrolled_stencil": (
            unrolled_stencil,
            _sig(x_ptr="*fp32", y_ptr="*fp32", stride="i32"),
            {"BM": 64, "BN": 64, "R": 2},
            4,
        ),
        "descriptor_matmul": (
            descriptor_matmul,
            _sig(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp16", M="i32", N="i32", K="i32"),
            {"BM": 128, "BN": 128, "BK": 64},
            8,
        ),
        "gather_cols": (
            gather_cols,
            _sig(src_ptr="*fp32", idx_ptr="*i32", out_ptr="*fp32"),
            {"BM": 64, "BN": 32},
            4,
        ),
    }
)
KERNELS.update(
    {
        "segmented_scan": (
            segmented_scan,
            _sig(x_ptr="*fp32", flag_ptr="*i32", y_ptr="*fp32"),
            {"BM": 128, "BN": 32},
            8,
        ),
        "softmax_2d": (
            softmax_2d,
            _sig(x_ptr="*fp16", y_ptr="*fp16", n_rows="i32", n_cols="i32", stride="i32"),
            {"BM": 8, "BN": 256},
            4,
        ),
        "grouped_matmul": (
            grouped_matmul,
            _sig(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp16", M="i32", N="i32", **_MM_INTS),
            {"BM": 128, "BN": 128, "BK": 64, "GROUP": 8},
            8,
        ),
        "wide_index_act": (
            wide_index_act,
            _sig(x_ptr="*fp32", y_ptr="*fp32", n="i64"),
            {"BLOCK": 2048},
            8,
        ),
        "attention_dq": (
            attention_dq,
            _sig(
                q_ptr="*fp16",
                k_ptr="*fp16",
                v_ptr="*fp16",
                do_ptr="*fp16",
                dq_ptr="*fp32",
                lse_ptr="*fp32",
                stride="i32",
                n_ctx="i32",
            ),
            {"BM": 64, "BN": 64, "D": 64},
            4,
        ),
    }
)
KERNELS.update(
    {
        "swiglu_matmul": (
            swiglu_matmul,
            _sig(
                a_ptr="*fp16",
                w_ptr="*fp16",
                o_ptr="*fp16",
                K="i32",
                stride_am="i32",
                stride_wk="i32",
            ),
            {"BM": 64, "BN": 128, "BK": 32},
            4,
        ),
        "dropout": (
            dropout,
            _sig(x_ptr="*fp32", y_ptr="*fp32", n="i32", p="fp32", seed="i32"),
            {"BLOCK": 1024},
            4,
        ),
        "locked_accumulate": (
            locked_accumulate,
            _sig(x_ptr="*fp32", acc_ptr="*fp32", lock_ptr="*i32", n_cols="i32"),
            {"BLOCK": 512},
            4,
        ),
        "fp8_matmul_nt": (
            fp8_matmul_nt,
            _sig(
                a_ptr="*fp8e5",
                b_ptr="*fp8e5",
                c_ptr="*bf16",
                K="i32",
                stride_am="i32",
                stride_bn="i32",
                stride_cm="i32",
            ),
            {"BM": 128, "BN": 128, "BK": 64},
            8,
        ),
        "tile_stats": (
            tile_stats,
            _sig(x_ptr="*fp32", out_ptr="*fp32", stride="i32"),
            {"BM": 32, "BN": 64},
            4,
        ),
    }
)
KERNELS.update(
    {
        "fma_dot": (
            fma_dot,
            _sig(a_ptr="*fp32", b_ptr="*fp32", c_ptr="*fp32"),
            {"BM": 32, "BN": 32, "BK": 32},
            4,
        ),
        "reduce_3d": (
            reduce_3d,
            _sig(x_ptr="*fp32", y_ptr="*fp32", z_ptr="*fp32"),
            {"A": 4, "B": 64, "C": 32},
            4,
        ),
        "persistent_matmul": (
            persistent_matmul,
            _sig(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp16", M="i32", N="i32", K="i32"),
            {"NUM_SMS": 132, "BM": 128, "BN": 128, "BK": 64},
            8,
        ),
        "f16_acc_dot": (
            f16_acc_dot,
            _sig(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp16", K="i32"),
            {"BM": 32, "BN": 64, "BK": 32},
            4,
        ),
    }
)
KERNELS.update(
    {
        "rms_norm": (
            rms_norm,
            _sig(
                x_ptr="*fp16",
                w_ptr="*fp16",
                y_ptr="*fp16",
                rstd_ptr="*fp32",
                n_rows="i32",
                n_cols="i32",
                stride="i32",
                eps="fp32",
            ),
            {"BM": 4, "BN": 1024},
            4,
        ),
        "rms_norm_bwd": (
            rms_norm_bwd,
            _sig(
                dy_ptr="*fp16",
                x_ptr="*fp16",
                w_ptr="*fp32",
                rstd_ptr="*fp32",
                dx_ptr="*fp16",
                dw_ptr="*fp32",
                n_rows="i32",
                n_cols="i32",
                stride="i32",
            ),
            {"BM": 8, "BN": 512},
            8,
        ),
        "split_k_matmul": (
            split_k_matmul,
            _sig(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp32", M="i32", N="i32", **_MM_INTS),
            {"BM": 64, "BN": 64, "BK": 32, "SPLIT_K": 4},
            4,
        ),
        "int4_matmul": (
            int4_matmul,
            _sig(
                a_ptr="*fp16",
                b_ptr="*u8",
                scale_ptr="*fp16",
                c_ptr="*fp16",
                M="i32",
                N="i32",
                **_MM_INTS,
            ),
            {"BM": 64, "BN": 64, "BK": 64},
            4,
        ),
        "softmax_bwd": (
            softmax_bwd,
            _sig(
                y_ptr="*fp16",
                dy_ptr="*fp16",
                dx_ptr="*fp16",
                n_rows="i32",
                n_cols="i32",
                stride="i32",
            ),
            {"BM": 4, "BN": 512},
            4,
        ),
        "log_softmax_nll": (
            log_softmax_nll,
            _sig(
                x_ptr="*bf16",
                target_ptr="*i64",
                logp_ptr="*fp32",
                loss_ptr="*fp32",
                n_rows="i32",
                n_cols="i32",
                stride="i32",
            ),
            {"BM": 2, "BN": 1024},
            8,
        ),
        "reverse_cumsum": (
            reverse_cumsum,
            _sig(x_ptr="*fp32", r_ptr="*fp32", c_ptr="*fp32", stride="i32"),
            {"BM": 32, "BN": 64},
            4,
        ),
        "transpose_reduce": (
            transpose_reduce,
            _sig(x_ptr="*fp32", y_ptr="*fp32", s_ptr="*fp32", stride="i32"),
            {"BM": 64, "BN": 32},
            4,
        ),
        "causal_attention": (
            causal_attention,
            _sig(
                q_ptr="*fp16",
                k_ptr="*fp16",
                v_ptr="*fp16",
                o_ptr="*fp16",
                lse_ptr="*fp32",
                stride="i32",
                sm_scale="fp32",
            ),
            {"BM": 64, "BN": 32, "D": 64},
            4,
        ),
        "scaled_matmul_fp8_out": (
            scaled_matmul_fp8_out,
            _sig(
                a_ptr="*fp16",
                b_ptr="*fp16",
                sa_ptr="*fp32",
                sb_ptr="*fp32",
                c_ptr="*fp8e5",
                M="i32",
                N="i32",
                **_MM_INTS,
            ),
            {"BM": 128, "BN": 64, "BK": 32},
            4,
        ),
        "group_norm": (
            group_norm,
            _sig(x_ptr="*fp16", y_ptr="*fp16", w_ptr="*fp32", b_ptr="*fp32", eps="fp32"),
            {"C": 32, "HW": 64, "G": 4},
            4,
        ),
        "embedding_layer_norm": (
            embedding_layer_norm,
            _sig(
                ids_ptr="*i32",
                emb_ptr="*fp16",
                pos_ptr="*fp16",
                w_ptr="*fp32",
                y_ptr="*fp16",
                n_tokens="i32",
            ),
            {"D": 256, "BM": 8},
            4,
        ),
        "argmax_keepdims": (
            argmax_keepdims,
            _sig(x_ptr="*fp32", y_ptr="*fp32", i_ptr="*i32", stride="i32"),
            {"BM": 64, "BN": 32},
            4,
        ),
        "bucketize": (
            bucketize,
            _sig(x_ptr="*fp32", bounds_ptr="*fp32", counts_ptr="*i32", out_ptr="*i32", n="i32"),
            {"BLOCK": 256, "NB": 16},
            4,
        ),
        "tile_3d_permute": (
            tile_3d_permute,
            _sig(x_ptr="*fp32", y_ptr="*fp32", s_ptr="*fp32"),
            {"A": 4, "B": 16, "C": 32},
            4,
        ),
        "complex_mul": (
            complex_mul,
            _sig(x_ptr="*fp32", y_ptr="*fp32", o_ptr="*fp32"),
            {"BM": 32, "BN": 32},
            4,
        ),
        "dot_trans_a": (
            dot_trans_a,
            _sig(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp32", K="i32"),
            {"BM": 64, "BN": 64, "BK": 32},
            4,
        ),
        "minmax_count": (
            minmax_count,
            _sig(x_ptr="*fp32", lo_ptr="*fp32", hi_ptr="*fp32", n_ptr="*i32", stride="i32"),
            {"BM": 64, "BN": 64},
            4,
        ),
        "bisect_rows": (
            bisect_rows,
            _sig(x_ptr="*fp32", t_ptr="*fp32", y_ptr="*fp32", iters="i32"),
            {"BM": 16, "BN": 128},
            4,
        ),
    }
)

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
