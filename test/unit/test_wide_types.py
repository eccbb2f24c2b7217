"""64-bit and bf16 kernels end to end: softmax, layer norm, a row sum and a transpose in f64, i64
and bf16 compile with ``llc-compile``, run under ``llc-run`` in the SIMT interpreter bit for bit
like the tensor level, and assemble with ptxas.

64-bit values cross lanes as two ``shfl.sync.b32`` (their halves) and warps through the shared
exchange; bf16 buffers hold 16-bit raw words in the SIMT interpreter (float32 values rounded to
bf16 at the tensor level), and 16-bit values travel two to a shuffle.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from llc.testing.ptxas import assemble, find_ptxas
from llc.testing.semantics import apply_pipeline, parse

ROOT = Path(__file__).resolve().parents[2]
INPUTS = ROOT / "test" / "lit" / "lower" / "Inputs"
TTIR = ROOT / "examples" / "ttir"


@dataclass(frozen=True)
class _Case:
    text: str
    entry: str
    args: list[str]  # llc-run --args, with {x}, {w}, {b} for the inputs written as .npy
    grid: str
    inputs: dict[str, tuple[tuple[int, ...], str]]  # name -> (shape, dtype of the values)


def _typed(path: Path, dtype: str) -> str:
    """The example at ``path`` in ``dtype`` (its f32 replaced)."""
    text = path.read_text()
    if dtype == "i64":
        text = text.replace("arith.addf", "arith.addi")
    return text.replace("f32", dtype)


def _case(kernel: str, dtype: str) -> _Case:
    out = "f64" if dtype == "i64" else dtype  # i64 softmax and layer norm compute in f64
    if kernel == "softmax":
        path = INPUTS / "softmax_i64.mlir" if dtype == "i64" else TTIR / "softmax.mlir"
        text = path.read_text() if dtype == "i64" else _typed(path, dtype)
        m, n = 6, 200
        args = [f"zeros:{m}x{n}x{out}", "{x}", str(n), str(n), str(m), str(n)]
        return _Case(text, "softmax_kernel", args, "2", {"x": ((m, n), dtype)})
    if kernel == "layernorm":
        path = INPUTS / "layernorm_i64.mlir" if dtype == "i64" else TTIR / "layernorm.mlir"
        text = path.read_text() if dtype == "i64" else _typed(path, dtype)
        m, n = 10, 100
        args = ["{x}", f"zeros:{m}x{n}x{out}", "{w}", "{b}", f"zeros:{m}x{out}"]
        args += [f"zeros:{m}x{out}", str(m), str(n), "1e-5"]
        inputs = {"x": ((m, n), dtype), "w": ((n,), out), "b": ((n,), out)}
        return _Case(text, "layernorm_kernel", args, "2", inputs)
    if kernel == "rowsum":
        m, n = 20, 104
        args = ["{x}", f"zeros:{m}x{dtype}", str(m), str(n)]
        text = _typed(INPUTS / "rowsum.mlir", dtype)
        return _Case(text, "rowsum_kernel", args, "2", {"x": ((m, n), dtype)})
    m, n = 40, 50
    args = ["{x}", f"zeros:{n}x{m}x{dtype}", str(m), str(n)]
    text = _typed(TTIR / "transpose.mlir", dtype)
    return _Case(text, "transpose_kernel", args, "2,2", {"x": ((m, n), dtype)})


def _values(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    if dtype == "i64":
        return rng.integers(-1000, 1000, shape).astype(np.int64)
    x = rng.standard_normal(shape) * 3
    if dtype == "bf16":  # float32 values, rounded to bf16 (nearest even) by both interpreters
        return x.astype(np.float32)
    return x.astype(np.float64)


def _llc_run(path: Path, case: _Case, args: list[str], out: Path) -> None:
    from llc.tools.cli import run_arg_parser
    from llc.tools.run import run

    argv = [str(path), "--entry", case.entry, "--grid", case.grid, "--out", str(out)]
    assert run(run_arg_parser().parse_args([*argv, "--args", *args])) == 0


KERNELS = ("softmax", "layernorm", "rowsum", "transpose")
DTYPES = ("f64", "i64", "bf16")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kernel", KERNELS)
def test_wide_kernel_compiles_runs_and_assembles(kernel: str, dtype: str, tmp_path: Path) -> None:
    case = _case(kernel, dtype)
    module = parse(case.text)
    apply_pipeline(module, "llc-compile")
    lowered = str(module)
    assert "tensor<" not in lowered
    if dtype in ("f64", "i64") and kernel != "transpose":
        # every 64-bit value crosses lanes as its two 32-bit halves
        shuffles = re.findall(r"simt\.shuffle .*: (vector<\S+>)", lowered)
        assert shuffles and set(shuffles) == {"vector<1xi32>"}, set(shuffles)
    if dtype == "bf16" and kernel == "rowsum":
        # two rows per thread at the lane steps: their 16-bit sums travel in one 32-bit shuffle
        shuffles = re.findall(r"simt\.shuffle .*: (vector<\S+>)", lowered)
        assert shuffles and set(shuffles) == {"vector<2xbf16>"}, set(shuffles)
    rng = np.random.default_rng(7)
    args = list(case.args)
    for name, (shape, dtype_of) in case.inputs.items():
        np.save(tmp_path / f"{name}.npy", _values(rng, shape, dtype_of))
        args = [a.replace(f"{{{name}}}", str(tmp_path / f"{name}.npy")) for a in args]
    (tmp_path / "k.mlir").write_text(case.text)
    (tmp_path / "k.simt.mlir").write_text(lowered)
    _llc_run(tmp_path / "k.mlir", case, args, tmp_path / "tensor")
    _llc_run(tmp_path / "k.simt.mlir", case, args, tmp_path / "simt")
    names = sorted(p.name for p in (tmp_path / "tensor").iterdir())
    assert names
    for name in names:
        want = np.load(tmp_path / "tensor" / name)
        got = np.load(tmp_path / "simt" / name)
        assert want.dtype == got.dtype and want.shape == got.shape
        assert want.tobytes() == got.tobytes(), f"{name} differs"
    if find_ptxas() is None:
        pytest.skip("no ptxas (pip install -e '.[test]')")
    from llc.passes.targets.ptx import emit_ptx

    ptx = emit_ptx(module)
    assert assemble(ptx, "sm_90") == ""
    if dtype in ("f64", "i64") and kernel != "transpose":
        # the PTX moves the halves: only 32-bit shuffles, and pairs of them rebuilt into 64 bits
        assert re.search(r"shfl\.sync\.bfly\.b32", ptx)
        assert not re.search(r"shfl\.sync\.\w+\.b64", ptx)
        assert re.search(r"mov\.b64 %\w+, \{%r\d+, %r\d+\};", ptx)


def test_invalid_lowering_is_reported_at_the_tensor_op(monkeypatch: pytest.MonkeyPatch) -> None:
    """A shuffle emitter that moves a whole f64 vector in one shfl.sync (the old reduction
    lowering) builds an invalid simt.shuffle: llc-compile names the tl.reduce, at its line."""
    from llc.dialects.diagnostics import locate_exception
    from llc.lowering import SimtProgram

    def one_shuffle(self: SimtProgram, mode: str, value: int, b: int, c: int) -> int:
        typ = self.type_of(value)
        return self._emit("shfl", typ, (value, b), mode=mode, c=c, mask=-1)

    monkeypatch.setattr(SimtProgram, "shuffle", one_shuffle)
    from llc.dialects.diagnostics import parse_module
    from llc.tools.run import make_context

    module = parse_module(make_context(), _typed(INPUTS / "rowsum.mlir", "f64"), "rowsum.mlir")
    with pytest.raises(Exception) as info:
        apply_pipeline(module, "llc-compile")
    located = locate_exception(info.value, module)
    text = located.render()
    assert "'tl.reduce' op cannot lower to SIMT code" in text, text
    assert "invalid 'simt.shuffle': shfl.sync moves 32 bits per lane" in text
    line = next(
        i
        for i, ln in enumerate((INPUTS / "rowsum.mlir").read_text().splitlines(), 1)
        if "tl.reduce" in ln
    )
    assert located.location is not None and located.location.line == line


def test_llc_run_reads_raw_bf16_words(tmp_path: Path) -> None:
    """numpy has no bf16: a uint16 .npy for a bf16 buffer holds its raw words (float32 .npy
    files are rounded to bf16, to nearest even)."""
    from xdsl.dialects.builtin import bf16

    from llc.dialects import tl
    from llc.tools.run import bind_argument, make_context

    np.save(tmp_path / "raw.npy", np.array([0x3F80, 0xC000, 0x3F81], np.uint16))
    np.save(tmp_path / "f32.npy", np.array([1.0, -2.0, 1.0068359375], np.float32))
    ptr = tl.PointerType(bf16)
    for name in ("raw", "f32"):
        bound = bind_argument(str(tmp_path / f"{name}.npy"), ptr, "x", make_context())
        assert bound.value.buffer.data.tolist() == [1.0, -2.0, 1.0078125], name
