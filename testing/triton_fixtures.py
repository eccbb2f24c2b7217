"""Triton's fixtures (``examples/triton``) as the tests read them, without Triton installed."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from xdsl.dialects.builtin import ModuleOp

FIXTURES = Path(__file__).resolve().parent.parent / "examples" / "triton"
"""Where ``bench/dump_triton.py`` writes its TTIR/TTGIR dumps."""

_SIGNATURE = re.compile(r"tt\.func public @\w+\((.*?)\)(?: attributes \{[^}]*\})? \{", re.S)
_PARAM = re.compile(r"(%\w+: (?:!tt\.ptr<\w+>|i32)) loc\(")


def hinted(ttir: str) -> str:
    """The TTIR with ``tt.divisibility = 16`` on every pointer and i32 parameter (what Triton's
    launcher specializes for aligned tensors and strides): the fixtures were dumped without it,
    and without it Triton's pipeliner has no 16-byte copies to make.

    >>> hinted("tt.func public @k(%p: !tt.ptr<f16> loc(#a), %n: i32 loc(#b)) {")
    'tt.func public @k(%p: !tt.ptr<f16> {tt.divisibility = 16 : i32} loc(#a), %n: i32 \
{tt.divisibility = 16 : i32} loc(#b)) {'
    """
    found = _SIGNATURE.search(ttir)
    if found is None:
        raise ValueError("no tt.func public signature in the TTIR")
    params = _PARAM.sub(r"\1 {tt.divisibility = 16 : i32} loc(", found.group(1))
    return ttir[: found.start(1)] + params + ttir[found.end(1) :]


def run_matmul_epilogue(module: ModuleOp, m: int, n: int, k: int) -> np.ndarray:
    """Program (1, 0) of a 2x2 grid of Triton's ``matmul_epilogue`` fixture kernel (``C = leaky
    ReLU(A @ B + bias)`` stored as f16) on random ``m x k`` and ``k x n`` operands (seed 7): the
    tensor level when ``module`` is not lowered, the SIMT interpreter (4 warps of 32) when it
    is. Returns ``C`` as float32.

    >>> from llc.dialects.ttgir import HardwareDefaults, parse_triton_module
    >>> ttir = (FIXTURES / "matmul_epilogue.sm90.ttir").read_text()
    >>> module = parse_triton_module(ttir, "k", HardwareDefaults(4, 32, "cuda:90"))
    >>> c = run_matmul_epilogue(module, 128, 128, 32).reshape(128, 128)
    >>> bool(c[64:, :64].all()), bool(c[:64].any()), bool(c[64:, 64:].any())  # rows 64.., cols ..63
    (True, False, False)
    """
    from xdsl.dialects import func

    from llc.dialects.tl_interpreter import Buffer, Pointer
    from llc.testing.semantics import call_kernel

    rng = np.random.default_rng(7)
    inputs = {
        "a": rng.standard_normal(m * k).astype(np.float16),
        "b": rng.standard_normal(k * n).astype(np.float16),
        "bias": rng.standard_normal(n).astype(np.float32),
        "c": np.zeros(m * n, np.float16),
    }
    buffers = {name: Buffer(name, data) for name, data in inputs.items()}
    args: list[object] = [Pointer(buffers[x], 0) for x in ("a", "b", "bias", "c")]
    args += [np.int32(v) for v in (m, n, k, k, n, n)]
    entry = next(o for o in module.walk() if isinstance(o, func.FuncOp))
    call_kernel(module, entry.sym_name.data, args, (1, 0, 0), (2, 2, 1))
    return buffers["c"].array().astype(np.float32)
