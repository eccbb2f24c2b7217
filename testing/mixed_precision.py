"""Mixed-precision ``tl.dot`` cases (seed 001, case 1): integer x float operands.

Each case is one kernel ``d = dot(a, b, c)`` with an integer operand and a float operand, each in
its own ``#tl.dot_op`` layout with its own ``kWidth`` (``32 / bits``: the elements of one 32-bit
register, at least 1), run in the reference interpreter on random data and compared with numpy:
the integer operand converted (rounded) to the float operand's type, products accumulated in
float64, the result rounded to the accumulator type (f64 for f64 operands, else f32).

>>> case = Case("i8", "f16", "a", (16, 16, 16), 1)
>>> run_case(case).passed
True
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

from llc.linear_layout import LinearLayout

__all__ = [
    "FLOATS",
    "INTS",
    "Case",
    "CaseResult",
    "LoweredResult",
    "cases",
    "kernel_text",
    "layouts_of",
    "module_text",
    "operand_data",
    "run_case",
    "run_lowered",
]

INTS = ("i8", "i16", "i32", "i64")
FLOATS = ("f8", "f16", "f32", "f64")
_MLIR = {"f8": "f8E4M3FN", "f8e5m2": "f8E5M2"}
SHAPES = ((16, 16, 16), (32, 16, 32), (64, 32, 16))
WARPS = (1, 2, 4)


@dataclass(frozen=True)
class Case:
    """An integer x float dot: which side holds the integer, the (M, N, K) shape, warps."""

    int_type: str
    float_type: str
    int_side: str
    shape: tuple[int, int, int]
    warps: int

    @property
    def a_type(self) -> str:
        return self.int_type if self.int_side == "a" else self.float_type

    @property
    def b_type(self) -> str:
        return self.float_type if self.int_side == "a" else self.int_type

    @property
    def acc_type(self) -> str:
        return "f64" if self.float_type == "f64" else "f32"


@dataclass(frozen=True)
class CaseResult:
    """Whether the interpreter matched numpy, and the largest deviation."""

    case: Case
    passed: bool
    max_error: float


def cases() -> list[Case]:
    """Every pair of the seed's table x both operand sides x shapes x warp counts."""
    return [
        Case(i, f, side, shape, warps)
        for i, f, side, shape, warps in product(INTS, FLOATS, ("a", "b"), SHAPES, WARPS)
        if shape[0] >= 16 * warps
    ]


def _bits(t: str) -> int:
    return int(t[1:])


def k_width(t: str) -> int:
    """The dot-operand kWidth of an element type: one 32-bit register's worth, at least 1."""
    return max(1, 32 // _bits(t))


def module_text(case: Case, k_widths: tuple[int, int] | None = None) -> str:
    """The laid-out kernel of ``case``: each operand's kWidth its own (:func:`k_width`) unless
    ``k_widths`` gives both.

    >>> text = module_text(Case("i8", "f16", "a", (16, 16, 16), 1))
    >>> [f"opIdx = {i}, parent = #mma, kWidth = {k}" in text for i, k in ((0, 4), (1, 2))]
    [True, True]
    """
    m, n, k = case.shape
    kw_a, kw_b = k_widths or (k_width(case.a_type), k_width(case.b_type))
    ta, tb, tc = (_MLIR.get(t, t) for t in (case.a_type, case.b_type, case.acc_type))
    mma = (
        f"#tl.nvidia_mma<{{versionMajor = 2, versionMinor = 0, warpsPerCTA = [{case.warps}, 1], "
        "instrShape = [16, 8]}>"
    )
    return f"""
#mma = {mma}
#a = #tl.dot_op<{{opIdx = 0, parent = #mma, kWidth = {kw_a}}}>
#b = #tl.dot_op<{{opIdx = 1, parent = #mma, kWidth = {kw_b}}}>
module attributes {{"tl.num-warps" = {case.warps} : i32}} {{
  func.func @k(%a: tensor<{m}x{k}x{ta}, #a>, %b: tensor<{k}x{n}x{tb}, #b>,
               %c: tensor<{m}x{n}x{tc}, #mma>) -> tensor<{m}x{n}x{tc}, #mma> {{
    %d = tl.dot %a, %b, %c : tensor<{m}x{k}x{ta}, #a> * tensor<{k}x{n}x{tb}, #b>
         -> tensor<{m}x{n}x{tc}, #mma>
    func.return %d : tensor<{m}x{n}x{tc}, #mma>
  }}
}}
"""


def _round(values: np.ndarray, t: str) -> np.ndarray:
    """numpy's own rounding to a float type (f8 through llc.mxfp's RNE codec)."""
    if t == "f8":
        from llc.mxfp import quantize

        return quantize(values, "e4m3fn")
    return values.astype({"f16": np.float16, "f32": np.float32, "f64": np.float64}[t]).astype(
        np.float64
    )


def run_case(case: Case, seed: int = 0) -> CaseResult:
    """Run one case in the interpreter and compare with the numpy reference."""
    from llc.testing.semantics import make_interpreter, parse

    rng = np.random.default_rng(seed)
    m, n, k = case.shape
    lo, hi = (-8, 8) if case.float_type == "f8" else (-100, 100)

    def operand(t: str, shape: tuple[int, int]) -> np.ndarray:
        if t.startswith("i"):
            return rng.integers(lo, hi, size=shape).astype(f"int{_bits(t)}")
        return _round(rng.standard_normal(shape) * 4, t)

    a = operand(case.a_type, (m, k))
    b = operand(case.b_type, (k, n))
    c = _round(rng.standard_normal((m, n)), case.acc_type)
    module = parse(module_text(case))
    interpreter = make_interpreter(module)
    (got,) = interpreter.call_op("k", (a, b, c))
    ref_a = _round(a.astype(np.float64), case.float_type) if case.int_side == "a" else a
    ref_b = _round(b.astype(np.float64), case.float_type) if case.int_side == "b" else b
    want = _round(np.asarray(ref_a, np.float64) @ np.asarray(ref_b, np.float64) + c, case.acc_type)
    got = np.asarray(got, np.float64)
    error = float(np.max(np.abs(got - want) / np.maximum(1.0, np.abs(want))))
    tolerance = 1e-12 if case.acc_type == "f64" else 1e-6
    return CaseResult(case, bool(error <= tolerance and got.shape == want.shape), error)


def layouts_of(
    case: Case, k_widths: tuple[int, int] | None = None
) -> tuple[LinearLayout, LinearLayout]:
    """The linear layouts of the two operands (each with its own kWidth unless ``k_widths``)."""
    from llc.layouts import DotOperandLayout, NvidiaMmaLayout

    m, n, k = case.shape
    kw_a, kw_b = k_widths or (k_width(case.a_type), k_width(case.b_type))
    parent = NvidiaMmaLayout(2, 0, (case.warps, 1), (16, 8))
    a = DotOperandLayout(0, parent, kw_a).to_linear_layout((m, k))
    b = DotOperandLayout(1, parent, kw_b).to_linear_layout((k, n))
    return a, b


def kernel_text(
    int_type: str,
    float_type: str,
    target: str = "cuda:70",
    int_side: str = "a",
    shape: tuple[int, int, int] = (16, 16, 16),
    warps: int = 1,
) -> str:
    """A layout-free kernel ``c = a @ b`` (``shape`` = (M, N, K), row-major buffers, ``warps``
    warps) with an integer ``a`` and a float ``b`` (``int_side="b"``: the other way round), for
    ``llc-compile`` (``cuda:70`` lowers the dot with FMAs, ``cuda:80`` with mma.sync where the
    float type is f16 or 8-bit). ``float_type`` may also be ``f8e5m2``.

    >>> "tl.dot %a, %b, %acc : tensor<16x16xf16> * tensor<16x16xi8>" in kernel_text(
    ...     "i8", "f16", int_side="b")
    True
    """
    ft = _MLIR.get(float_type, float_type)
    acc = "f64" if float_type == "f64" else "f32"
    a_type, b_type = (int_type, ft) if int_side == "a" else (ft, int_type)
    m, n, k = shape
    lines = [
        f'module attributes {{"tl.num-warps" = {warps} : i32, "tl.threads-per-warp" = 32 : i32, '
        f'"tl.target" = "{target}"}} {{',
        f"  func.func @k(%a_ptr: !tl.ptr<{a_type}>, %b_ptr: !tl.ptr<{b_type}>, "
        f"%c_ptr: !tl.ptr<{acc}>) {{",
    ]
    for size in sorted({m, n, k}):
        lines.append(
            f"    %r{size} = tl.make_range {{end = {size} : i32, start = 0 : i32}} : "
            f"tensor<{size}xi32>"
        )

    def offsets(name: str, rows: int, cols: int) -> None:
        """``%off_{name}``: row * cols + col over a rows x cols tensor."""
        t = f"tensor<{rows}x{cols}xi32>"
        lines.extend(
            [
                f"    %{name}_r = tl.expand_dims %r{rows} {{axis = 1 : i32}} : tensor<{rows}xi32> "
                f"-> tensor<{rows}x1xi32>",
                f"    %{name}_rb = tl.broadcast %{name}_r : tensor<{rows}x1xi32> -> {t}",
                f"    %{name}_c = tl.expand_dims %r{cols} {{axis = 0 : i32}} : tensor<{cols}xi32> "
                f"-> tensor<1x{cols}xi32>",
                f"    %{name}_cb = tl.broadcast %{name}_c : tensor<1x{cols}xi32> -> {t}",
                f"    %{name}_n = arith.constant {cols} : i32",
                f"    %{name}_s = tl.splat %{name}_n : i32 -> {t}",
                f"    %{name}_ro = arith.muli %{name}_rb, %{name}_s : {t}",
                f"    %off_{name} = arith.addi %{name}_ro, %{name}_cb : {t}",
            ]
        )

    for name, elem, (rows, cols) in (("a", a_type, (m, k)), ("b", b_type, (k, n))):
        offsets(name, rows, cols)
        ptr = f"tensor<{rows}x{cols}x!tl.ptr<{elem}>>"
        lines += [
            f"    %{name}b = tl.splat %{name}_ptr : !tl.ptr<{elem}> -> {ptr}",
            f"    %{name}p = tl.addptr %{name}b, %off_{name} : {ptr}, tensor<{rows}x{cols}xi32>",
            f"    %{name} = tl.load %{name}p : {ptr}",
        ]
    offsets("c", m, n)
    cptr = f"tensor<{m}x{n}x!tl.ptr<{acc}>>"
    lines += [
        f"    %z = arith.constant 0.0 : {acc}",
        f"    %acc = tl.splat %z : {acc} -> tensor<{m}x{n}x{acc}>",
        f"    %d = tl.dot %a, %b, %acc : tensor<{m}x{k}x{a_type}> * tensor<{k}x{n}x{b_type}> -> "
        f"tensor<{m}x{n}x{acc}>",
        f"    %cb = tl.splat %c_ptr : !tl.ptr<{acc}> -> {cptr}",
        f"    %cp = tl.addptr %cb, %off_c : {cptr}, tensor<{m}x{n}xi32>",
        f"    tl.store %cp, %d : {cptr}",
        "    func.return",
        "  }",
        "}",
    ]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class LoweredResult:
    """One pair compiled by ``llc-compile`` and run at both levels (see :func:`run_lowered`)."""

    int_type: str
    float_type: str
    target: str
    int_side: str
    path: str
    """``"mma"`` (mma.sync m16n8k16 on f16) or ``"FMA"``."""
    k_widths: tuple[int, ...]
    """The kWidth of each dot_op operand layout the layout passes chose (empty on FMA)."""
    exact: bool
    """The tensor-level result equals the numpy reference (int operand rounded to the float
    type, exact products and sums)."""
    bit_identical: bool
    """The SIMT kernel interpreter gives the tensor-level result bit for bit."""
    ptx: dict[str, bool | None]
    """Per PTX target: whether ptxas assembled it without output (None: ptxas missing)."""

    @property
    def passed(self) -> bool:
        return self.exact and self.bit_identical and all(v is not False for v in self.ptx.values())


def operand_data(rng: np.random.Generator, t: str, float_type: str, count: int = 256) -> np.ndarray:
    """``count`` values of type ``t`` for a pair with ``float_type`` whose products and sums of
    up to 64 terms are exact in f32, while the integer operand's conversion still rounds
    (integers past f16's 2048 or e4m3's 16, below e4m3's overflow).

    >>> x = operand_data(np.random.default_rng(0), "i16", "f16")
    >>> bool((x.astype(np.float16).astype(np.int64) != x).any())
    True
    """
    if t.startswith("i"):
        bound = 300 if float_type == "f8" else 3000
        info = np.iinfo(f"int{_bits(t)}")
        values = rng.integers(max(-bound, info.min), min(bound, info.max), count)
        return values.astype(f"int{_bits(t)}")
    dtype = {"f16": np.float16, "f32": np.float32, "f64": np.float64}.get(t, np.float32)
    return (rng.integers(-8, 8, count) / 2).astype(dtype)  # halves: exact in every float type


def run_lowered(
    int_type: str,
    float_type: str,
    target: str = "cuda:80",
    int_side: str = "a",
    seed: int = 7,
    archs: tuple[str, ...] = ("sm_80", "sm_90"),
    shape: tuple[int, int, int] = (16, 16, 16),
    warps: int = 1,
) -> LoweredResult:
    """Compile :func:`kernel_text` with ``llc-compile`` for ``target``, run it in the tensor-level
    and the SIMT kernel interpreters on the same data, and assemble its PTX for ``archs``.

    >>> r = run_lowered("i8", "f8", archs=())
    >>> r.path, r.k_widths, r.exact, r.bit_identical
    ('mma', (4, 4), True, True)
    """
    from llc.dialects.simt_kernel_interpreter import GlobalMemory, make_kernel_interpreter
    from llc.dialects.tl_interpreter import Buffer, Pointer
    from llc.passes.targets.ptx import emit_ptx
    from llc.testing.ptxas import assemble, find_ptxas
    from llc.testing.semantics import apply_pipeline, make_interpreter, parse

    text = kernel_text(int_type, float_type, target, int_side, shape, warps)
    m, n, k = shape
    from llc.dialects import tl

    laid = apply_pipeline(parse(text), "llc-optimize-layouts")
    dot = next(op for op in laid.walk() if isinstance(op, tl.DotOp))
    k_widths = tuple(
        int(getattr(getattr(v.type, "encoding", None), "layout", None).k_width)  # type: ignore[union-attr]
        for v in (dot.a, dot.b)
        if hasattr(getattr(getattr(v.type, "encoding", None), "layout", None), "k_width")
    )
    lowered = apply_pipeline(parse(text), "llc-compile")
    path = "mma" if "simt.mma_m16n8k16" in str(lowered) else "FMA"
    rng = np.random.default_rng(seed)
    a_type, b_type = (int_type, float_type) if int_side == "a" else (float_type, int_type)
    a = operand_data(rng, a_type, float_type, m * k)
    b = operand_data(rng, b_type, float_type, k * n)
    acc = np.float64 if float_type == "f64" else np.float32
    outs = []
    for module in (parse(text), lowered):
        bufs = [Buffer(nm, x) for nm, x in (("a", a), ("b", b), ("c", np.zeros(m * n, acc)))]
        ptrs = tuple(Pointer(x, 0) for x in bufs)
        if module is lowered:
            interp, _ = make_kernel_interpreter(module, warps, 32, GlobalMemory())
            interp.call_op("k", ptrs)
        else:
            make_interpreter(module).call_op("k", ptrs)
        outs.append(bufs[2].data.copy())
    real = "f8" if float_type.startswith("f8") else float_type
    fmt = "e5m2" if float_type == "f8e5m2" else "e4m3fn"

    def rounded(x: np.ndarray) -> np.ndarray:
        x = x.astype(np.float64)
        if real == "f8":
            from llc.mxfp import quantize

            return quantize(x.astype(np.float32), fmt)
        return x.astype({"f16": np.float16, "f32": np.float32, "f64": np.float64}[real]).astype(
            np.float64
        )

    want = rounded(a).reshape(m, k) @ rounded(b).reshape(k, n)
    have_ptxas = find_ptxas() is not None
    ptx = {
        arch: (assemble(emit_ptx(lowered, arch), arch) == "") if have_ptxas else None
        for arch in archs
    }
    return LoweredResult(
        int_type,
        float_type,
        target,
        int_side,
        path,
        k_widths if path == "mma" else (),
        bool(np.array_equal(outs[0].reshape(m, n), want)),
        bool(np.array_equal(outs[0], outs[1])),
        ptx,
    )
