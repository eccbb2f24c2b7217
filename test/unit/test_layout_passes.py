"""The layout passes on the example kernels: every tensor laid out, few conversions, same results.

Each example runs under the reference interpreter (``llc-run``) as written, and again after
``llc-optimize-layouts`` both from its hand-written layouts and from its layout-free form;
the output buffers must be bit-identical (the interpreter's dot and reduce do not depend on
layouts, so no reassociation tolerance is needed here).
"""

from __future__ import annotations

import importlib.util
import io
import sys
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pytest
from layout_helpers import strip_layouts
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType

from llc.dialects.diagnostics import parse_module
from llc.dialects.printer import LLCPrinter
from llc.dialects.tl import ConvertLayoutOp, encoding_of, verify_module
from llc.passes.layout_assignment import walk_ops
from llc.passes.layout_passes import (
    AssignAnchorsPass,
    OptimizeLayoutsPass,
    PropagateLayoutsPass,
    RemoveConversionsPass,
    count_conversions,
)
from llc.tools.cli import run_arg_parser
from llc.tools.run import make_context, run

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "check_example", ROOT / "test/lit/run/Inputs/check_example.py"
)
assert _spec is not None and _spec.loader is not None
check_example = importlib.util.module_from_spec(_spec)
sys.modules["check_example"] = check_example
_spec.loader.exec_module(check_example)

TRITON_CONVERSIONS = {
    "vector_add": 0,
    "softmax": 0,
    "layernorm": 0,
    "colsum": 0,
    "matmul_epilogue": 1,
    "matmul": 1,
    "transpose": 1,
    "attention": 2,
    "flash_attention": 2,
}
"""Conversions Triton 3.9 leaves on the same kind of kernel (issue 8: 0 on vector add, softmax
and layer norm, 1 on matmul and transpose, 2 on attention; a column sum is a reduction like
softmax's)."""


def _load(name: str) -> ModuleOp:
    path = ROOT / "examples" / f"{name}.mlir"
    return parse_module(make_context(), path.read_text(), str(path))


def _print(module: ModuleOp) -> str:
    out = io.StringIO()
    LLCPrinter(stream=out).print_op(module)
    return out.getvalue()


def _optimize(module: ModuleOp) -> ModuleOp:
    OptimizeLayoutsPass().apply(make_context(), module)
    module.verify()
    verify_module(module)
    return module


def _run_kernel(name: str, text: str, work: Path) -> dict[str, np.ndarray]:
    work.mkdir(parents=True, exist_ok=True)
    kernel = work / "kernel.mlir"
    kernel.write_text(text)
    case = check_example.KERNELS[name](str(work))
    out = work / "out"
    argv = [str(kernel), "--entry", check_example.ENTRIES[name], "--grid", case.grid]
    argv += ["--out", str(out), "--args", *case.args]
    with redirect_stdout(io.StringIO()):
        assert run(run_arg_parser().parse_args(argv)) == 0
    return {k: np.load(out / f"{k}.npy") for k in case.expected}


def _tensor_encodings(module: ModuleOp) -> list[object]:
    encodings = []
    for op in walk_ops(module):
        values = list(op.results) + [a for r in op.regions for b in r.blocks for a in b.args]
        encodings += [encoding_of(v.type) for v in values if isinstance(v.type, TensorType)]
    return encodings


def _load_ttir(name: str) -> ModuleOp:
    path = ROOT / "examples" / "ttir" / f"{name}.mlir"
    return parse_module(make_context(), path.read_text(), str(path))


@pytest.mark.parametrize("name", sorted(TRITON_CONVERSIONS))
def test_layout_free_example_gets_layouts_and_few_conversions(name: str) -> None:
    module = _optimize(_load_ttir(name))
    assert all(e is not None for e in _tensor_encodings(module))
    assert count_conversions(module) <= TRITON_CONVERSIONS[name]


@pytest.mark.parametrize("name", sorted(TRITON_CONVERSIONS))
def test_stripped_example_gets_layouts_and_few_conversions(name: str) -> None:
    module = _optimize(strip_layouts(_load(name)))
    assert all(e is not None for e in _tensor_encodings(module))
    assert count_conversions(module) <= TRITON_CONVERSIONS[name]


@pytest.mark.parametrize("name", sorted(TRITON_CONVERSIONS))
def test_optimize_keeps_results_bit_identical(name: str, tmp_path: Path) -> None:
    reference = _run_kernel(
        name, (ROOT / "examples" / f"{name}.mlir").read_text(), tmp_path / "ref"
    )
    from_stripped = _print(_optimize(strip_layouts(_load(name))))
    from_hand = _print(_optimize(_load(name)))
    from_ttir = _print(_optimize(_load_ttir(name)))
    assert "#tl." in from_stripped
    for label, text in (("stripped", from_stripped), ("hand", from_hand), ("ttir", from_ttir)):
        got = _run_kernel(name, text, tmp_path / label)
        for buffer, ref in reference.items():
            assert np.array_equal(got[buffer], ref, equal_nan=True), (label, buffer)


@pytest.mark.parametrize("name", ["matmul", "attention", "flash_attention"])
def test_hopper_dots_keep_results_bit_identical(name: str, tmp_path: Path) -> None:
    """On cuda:90 the dots become warp_group_dot on nvmma_shared buffers (Triton's form, see
    test_ttgir.py): same values, and no more conversions than Triton leaves."""
    reference = _run_kernel(
        name, (ROOT / "examples" / f"{name}.mlir").read_text(), tmp_path / "ref"
    )
    module = _load_ttir(name)
    OptimizeLayoutsPass(target="cuda:90").apply(make_context(), module)
    module.verify()
    verify_module(module)
    names = {op.name for op in walk_ops(module)}
    assert "tl.warp_group_dot" in names and "tl.dot" not in names
    if name != "flash_attention":
        # flash_attention's two tiles (64x32 scores, 64x64 output) get two v3 layouts; the
        # row statistics then cross between them (2 conversions more than Triton: RESULTS.md).
        assert count_conversions(module) <= TRITON_CONVERSIONS[name]
    got = _run_kernel(name, _print(module), tmp_path / "hopper")
    for buffer, ref in reference.items():
        assert np.array_equal(got[buffer], ref, equal_nan=True), buffer


def test_passes_in_sequence_equal_the_pipeline() -> None:
    ctx = make_context()
    staged = strip_layouts(_load("softmax"))
    for pass_ in (AssignAnchorsPass(), PropagateLayoutsPass(), RemoveConversionsPass()):
        pass_.apply(ctx, staged)
        staged.verify()
    assert count_conversions(staged) == 0


def test_assign_anchors_connects_mismatches_with_conversions() -> None:
    module = strip_layouts(_load("softmax"))
    AssignAnchorsPass().apply(make_context(), module)
    module.verify()
    verify_module(module)
    # The reductions' slices and the default layout of the 1-D ranges disagree: conversions.
    assert count_conversions(module) > 0
    assert all(e is not None for e in _tensor_encodings(module))


def test_options_override_module_attributes() -> None:
    module = strip_layouts(_load("vector_add"))
    OptimizeLayoutsPass(num_warps=8, threads_per_warp=32).apply(make_context(), module)
    module.verify()
    verify_module(module)
    assert module.attributes["tl.num-warps"].value.data == 8
    text = _print(module)
    assert "warpsPerCTA = [8]" in text


def test_fma_on_targets_without_tensor_cores() -> None:
    module = strip_layouts(_load("attention"))
    OptimizeLayoutsPass(target="cuda:70").apply(make_context(), module)
    module.verify()
    verify_module(module)
    text = _print(module)
    assert "nvidia_mma" not in text and "#tl.dot_op<{opIdx = 0, parent = #blocked" in text


def test_mfma_on_amd() -> None:
    module = strip_layouts(_load("attention"))
    OptimizeLayoutsPass(target="hip:gfx942").apply(make_context(), module)
    module.verify()
    verify_module(module)
    assert "amd_mfma" in _print(module)
    assert module.attributes["tl.threads-per-warp"].value.data == 64


def test_mma_version_3_is_refused_before_hopper_with_the_reason() -> None:
    module = strip_layouts(_load("attention"))
    with pytest.raises(Exception, match="needs cuda:90"):
        OptimizeLayoutsPass(mma_version=3, target="cuda:80").apply(make_context(), module)


def test_remove_conversions_never_duplicates_loads() -> None:
    module = _optimize(strip_layouts(_load("attention")))
    loads = [op for op in walk_ops(module) if op.name == "tl.load"]
    assert len(loads) == 3
    assert all(isinstance(op, ConvertLayoutOp) is False for op in loads)


def test_generated_conversions_have_no_noops() -> None:
    module = _optimize(strip_layouts(_load("matmul_epilogue")))
    for op in walk_ops(module):
        if isinstance(op, ConvertLayoutOp):
            assert op.src.type != op.result.type


def test_layout_passes_price_conversions_for_the_module_target() -> None:
    # ldmatrix exists from sm_75 and stmatrix from sm_90: the same conversion costs differently
    # per target, and the passes ask with the module's tl.target, not a fixed cuda:90.
    from llc.dialects.layout_attrs import BlockedEncodingAttr, NvidiaMmaEncodingAttr
    from llc.layouts import BlockedLayout, NvidiaMmaLayout
    from llc.passes.layout_assignment import Hardware, LayoutAnalysis
    from llc.passes.layout_cost import capability_of, conversion_cost

    mma = NvidiaMmaEncodingAttr(NvidiaMmaLayout(2, 0, [4, 1], [16, 8]))
    out = BlockedEncodingAttr(BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]))
    costs = {cc: conversion_cost(mma, out, (64, 64), 16, cc) for cc in (0, 80, 90)}
    assert len(set(costs.values())) == 3, costs
    assert conversion_cost(mma, out, (64, 64), 16) == costs[90]
    for target, capability in (("cuda:80", 80), ("cuda:90", 90), ("hip:gfx942", 0)):
        module = _load("matmul")
        module.attributes["tl.target"] = StringAttr(target)
        inner = next(op for op in module.walk() if op.name == "tl.dot")
        assert capability_of(inner) == capability
        analysis = LayoutAnalysis(module, Hardware(4, 32, target))
        assert analysis.capability == capability
