"""The pattern machinery of ``llc-lower-to-simt`` (``passes/simt_lowering.py``): a per-op
lowering registered with one ``pattern_for`` line runs, the first pattern that takes an op
lowers it, an op no pattern takes and IR a lowering builds wrongly are errors at the op, and
loops' block arguments change type with everything in their bodies lowered."""

from __future__ import annotations

import pytest
from xdsl.dialects import func, scf, vector
from xdsl.dialects.builtin import Float32Type, IntegerAttr, ModuleOp, TensorType, VectorType
from xdsl.ir import Operation

from llc.dialects.diagnostics import OpDiagnostic
from llc.passes.lower_to_simt import PATTERNS
from llc.passes.simt_lowering import FunctionLowering, LowerOp, lower_function, pattern_for
from llc.testing.semantics import apply_pipeline, check_same_semantics, parse, run_module

HEADER = 'module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32} {'

ZEROS = f"""{HEADER}
  func.func @k(%p: !tl.ptr<f32>) {{
    %r = tl.make_range {{end = 128 : i32, start = 0 : i32}} : tensor<128xi32>
    %base = tl.splat %p : !tl.ptr<f32> -> tensor<128x!tl.ptr<f32>>
    %ptrs = tl.addptr %base, %r : tensor<128x!tl.ptr<f32>>, tensor<128xi32>
    %m = tensor.empty() : tensor<128xf32>
    tl.store %ptrs, %m : tensor<128x!tl.ptr<f32>>
    func.return
  }}
}}
"""

LOOP = f"""{HEADER}
  func.func @k(%p: !tl.ptr<f32>, %n: i32) {{
    %r = tl.make_range {{end = 128 : i32, start = 0 : i32}} : tensor<128xi32>
    %base = tl.splat %p : !tl.ptr<f32> -> tensor<128x!tl.ptr<f32>>
    %ptrs = tl.addptr %base, %r : tensor<128x!tl.ptr<f32>>, tensor<128xi32>
    %x = tl.load %ptrs : tensor<128x!tl.ptr<f32>>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %y = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<128xf32>) : i32 {{
      %two = arith.constant dense<2.0> : tensor<128xf32>
      %d = arith.mulf %acc, %two : tensor<128xf32>
      scf.yield %d : tensor<128xf32>
    }}
    tl.store %ptrs, %y : tensor<128x!tl.ptr<f32>>
    func.return
  }}
}}
"""


def laid_out(text: str) -> tuple[ModuleOp, func.FuncOp]:
    module = parse(text)
    apply_pipeline(module, "llc-optimize-layouts")
    fn = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    return module, fn


def lower(fn: func.FuncOp, patterns: tuple[LowerOp, ...]) -> None:
    lower_function(FunctionLowering(fn, 4, 32), patterns)
    fn.attributes["llc.num_warps"] = IntegerAttr(4, 32)  # what lower_module adds
    fn.attributes["llc.threads_per_warp"] = IntegerAttr(32, 32)


def lower_empty_as_ones(lowering: FunctionLowering, op: Operation) -> None:
    """A lowering written against the helper API only, as a module of its own would."""
    typ = lowering.vtype(op.results[0].type)
    assert isinstance(typ, VectorType)
    lowering.set_result(op, lowering.const_vec(typ, [1.0] * typ.get_shape()[0]))


def test_a_lowering_registered_with_one_line_runs() -> None:
    module, fn = laid_out(ZEROS)
    with pytest.raises(OpDiagnostic, match=r"'tensor\.empty' has no SIMT lowering"):
        lower(fn, PATTERNS)
    module, fn = laid_out(ZEROS)
    lower(fn, (*PATTERNS, pattern_for("tensor.empty", lower_empty_as_ones)))
    module.verify()
    assert not any(isinstance(v.type, TensorType) for op in fn.walk() for v in op.results)
    out = run_module(module, entry="k", buffer_elements=128)["%p"]
    assert (out == 1.0).all()


def test_the_first_pattern_that_takes_an_op_lowers_it() -> None:
    """Patterns are tried in order: a lowering listed before the built-in one replaces it."""
    text = ZEROS.replace("    %m = tensor.empty() : tensor<128xf32>\n", "").replace(
        "tl.store %ptrs, %m",
        "%m = tl.load %ptrs : tensor<128x!tl.ptr<f32>>\n    tl.store %ptrs, %m",
    )
    seen: list[str] = []

    def counting_load(lowering: FunctionLowering, op: Operation) -> None:
        seen.append("first")
        lower_load = next(p for p in PATTERNS if "tl.load" in p.names).lower
        lower_load(lowering, op)

    module, fn = laid_out(text)
    lower(fn, (pattern_for("tl.load", counting_load), *PATTERNS))
    assert seen == ["first"]
    module.verify()


def test_invalid_ir_from_a_lowering_is_reported_at_its_op() -> None:
    def wrong_splat(lowering: FunctionLowering, op: Operation) -> None:
        src = lowering.get(op.operands[0])
        # a broadcast of an i64 address to a vector of f32
        wrong = VectorType(Float32Type(), [lowering.vtype(op.results[0].type).get_shape()[0]])
        bad = vector.BroadcastOp.create(operands=[src], result_types=[wrong])
        lowering.set_result(op, lowering.emit(bad).results[0])

    _, fn = laid_out(ZEROS)
    with pytest.raises(OpDiagnostic) as caught:
        lower(fn, (pattern_for("tl.splat", wrong_splat), *PATTERNS))
    assert caught.value.op.name == "tl.splat"
    assert "the lowering built an invalid 'vector.broadcast'" in str(caught.value)


def test_a_loop_carrying_a_tensor_becomes_a_loop_carrying_its_registers() -> None:
    module, fn = laid_out(LOOP)
    lower(fn, PATTERNS)
    module.verify()
    (loop,) = [op for op in fn.walk() if isinstance(op, scf.ForOp)]
    (acc,) = loop.body.block.args[1:]
    assert isinstance(acc.type, VectorType) and isinstance(loop.results[0].type, VectorType)
    assert not any(isinstance(v.type, TensorType) for op in fn.walk() for v in op.results)
    check_same_semantics(LOOP, module, entry="k", buffer_elements=128)


def test_an_error_in_a_loop_body_is_at_the_op_in_the_body() -> None:
    text = LOOP.replace(
        "%d = arith.mulf %acc, %two : tensor<128xf32>",
        "%e = tensor.empty() : tensor<128xf32>\n      %d = arith.mulf %acc, %e : tensor<128xf32>",
    )
    _, fn = laid_out(text)
    with pytest.raises(OpDiagnostic, match="has no SIMT lowering") as caught:
        lower(fn, PATTERNS)
    assert caught.value.op.name == "tensor.empty"
