"""What Triton 3.9's own lit inputs taught the importer (issue 18, item 4): ops read opaquely,
the generic op form, and ``-t ttgir`` output that Triton's parser reads back.

The Triton checks skip without Triton (CI does not install it); ``bench/read_coverage.py``
measures the same on Triton's lit files.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from xdsl.dialects.builtin import TensorType
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import ParseError

from llc.dialects import tl
from llc.dialects.layout_attrs import BlockedEncodingAttr
from llc.dialects.ttgir import parse_triton_module
from llc.layouts import BlockedLayout
from llc.passes.targets.ttgir import module_to_ttgir

LIT = Path(__file__).resolve().parents[1] / "lit" / "triton"
INPUTS = ("opaque.ttgir", "generic-form.ttgir", "lit-inputs.ttgir", "tmem.ttgir", "tma.ttgir")

needs_triton = pytest.mark.skipif(
    importlib.util.find_spec("triton") is None,
    reason="Triton is not installed (pip install triton==3.9.0)",
)

HEADER = (
    "#b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], "
    'order = [0]}>\nmodule attributes {"ttg.num-warps" = 4 : i32} {\n'
)


def _triton_reads(text: str, tmp_path: Path) -> None:
    from triton._C.libtriton import ir, nvidia

    context = ir.context()
    ir.load_dialects(context)
    nvidia.load_dialects(context)
    path = tmp_path / "k.ttgir"
    path.write_text(text)
    ir.parse_mlir_module(str(path), context)  # raises on what Triton rejects


@needs_triton
@pytest.mark.parametrize("name", INPUTS)
def test_triton_reads_llcs_ttgir_of_each_lit_input(name: str, tmp_path: Path) -> None:
    source = (LIT / name).read_text()
    _triton_reads(source, tmp_path) if name != "opaque.ttgir" else None  # has a future op
    out = module_to_ttgir(parse_triton_module(source, name))
    if name == "opaque.ttgir":  # drop the function with the op from a newer Triton
        out = out[: out.index("  tt.func public @future")] + "}\n"
    _triton_reads(out, tmp_path)


def test_an_opaque_op_keeps_its_text_values_and_results() -> None:
    module = parse_triton_module(
        HEADER + "  tt.func @f(%x: tensor<128xf32, #b>) -> tensor<128xf32, #b> {\n"
        "    %y, %z = ttg.two_results %x, 3 : tensor<128xf32, #b> -> (tensor<128xf32, #b>, i32)\n"
        "    tt.return %y : tensor<128xf32, #b>\n  }\n}\n"
    )
    module.verify()
    op = next(o for o in module.walk() if isinstance(o, tl.OpaqueOp))
    assert op.op_name.data == "ttg.two_results"
    assert [str(r.type) for r in op.results][1] == "i32"
    assert op.template.data == " {o0}, 3 : tensor<128xf32, {a0}> -> (tensor<128xf32, {a1}>, i32)"
    assert "%y, %z = ttg.two_results %x, 3 : tensor<128xf32, #blocked>" in module_to_ttgir(module)


def test_an_opaque_op_whose_layouts_change_fails_verification() -> None:
    module = parse_triton_module(
        HEADER + "  tt.func @f(%x: tensor<128xf32, #b>) {\n"
        "    ttg.sink_op %x : tensor<128xf32, #b>\n    tt.return\n  }\n}\n"
    )
    op = next(o for o in module.walk() if isinstance(o, tl.OpaqueOp))
    wide = BlockedEncodingAttr(BlockedLayout([4], [32], [4], [0]))  # another layout, same shape
    Rewriter.replace_value_with_new_type(
        op.operands[0], TensorType(op.operands[0].type.element_type, [128], wide)
    )
    with pytest.raises(Exception, match="cannot change the layouts of an op it does not model"):
        module.verify()


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("    %y = ttg.uses_later %z : i32 -> i32\n    %z = arith.constant 1 : i32\n", "defined"),
        ("    ttg.with_region {\n    }\n", "an op with regions is not read"),
        ("    %y = ttg.no_signature %x\n", "no ': types'"),
    ],
)
def test_what_cannot_be_read_opaquely_is_a_located_error(body: str, why: str) -> None:
    text = HEADER + "  tt.func @f(%x: i32) {\n" + body + "    tt.return\n  }\n}\n"
    with pytest.raises(ParseError, match=why) as info:
        parse_triton_module(text, "k.ttgir")
    assert "k.ttgir:4:" in str(info.value)


@pytest.mark.parametrize(
    ("memdesc", "why"),
    [
        ("!ttg.memdesc<4xf32, #s, #ttng.tensor_memory>", "tensor-memory buffers with a"),
        (
            "!ttg.memdesc<4xf32, #ttg.future_shared<{vec = 1}>, #smem>",
            "whose encoding is #ttg.future_shared",
        ),
    ],
)
def test_a_buffer_llc_cannot_place_is_a_located_error(memdesc: str, why: str) -> None:
    text = (
        "#s = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>\n"
        "#smem = #ttg.shared_memory\nmodule {\n"
        f"  tt.func @f(%m: {memdesc}) {{\n    tt.return\n  }}\n}}\n"
    )
    with pytest.raises(ParseError, match=why) as info:
        parse_triton_module(text, "k.ttgir")
    assert "k.ttgir:4:" in str(info.value)


def test_a_module_with_tensor_memory_and_no_target_is_blackwell() -> None:
    text = (
        "#t = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>\nmodule {\n"
        "  tt.func @f(%m: !ttg.memdesc<128x128xf32, #t, #ttng.tensor_memory>) {\n"
        "    tt.return\n  }\n}\n"
    )
    assert parse_triton_module(text).attributes[tl.TARGET_ATTR].data == "cuda:100"


def test_laying_out_ttir_around_an_opaque_op_is_refused_on_export() -> None:
    """In TTIR the op's tensors have no layouts yet; once llc lays them out, the op's text
    would name the old types: ``-t ttgir`` refuses (Triton's plugin then keeps Triton's
    layouts, ``test_llc_triton.py``)."""
    from xdsl.context import Context

    from llc.passes.layout_passes import OptimizeLayoutsPass

    module = parse_triton_module(
        "module {\n  tt.func @f(%p: !tt.ptr<f32>) {\n"
        "    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>\n"
        "    %q = tt.splat %p : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>\n"
        "    %a = tt.addptr %q, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>\n"
        "    %x = tt.load %a : tensor<128x!tt.ptr<f32>>\n"
        "    %y = tt.future_op %x : tensor<128xf32> -> tensor<128xf32>\n"
        "    tt.store %a, %y : tensor<128x!tt.ptr<f32>>\n    tt.return\n  }\n}\n",
        "k.ttir",
    )
    module_to_ttgir(module)  # as read: fine
    OptimizeLayoutsPass().apply(Context(), module)
    with pytest.raises(Exception, match=r"tt\.future_op was read with types") as info:
        module_to_ttgir(module)
    assert "cannot change the layouts of an op it does not model" in str(info.value)
