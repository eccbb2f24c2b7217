"""Random layout-heavy kernels: each verifies, runs, and computes the same in both its forms.

``LLC_RANDOM_KERNELS`` (default 200) sets how many kernels the default run checks; every one is
parsed and verified in its laid-out and layout-free forms, every layout is checked to build a
linear layout for its tensor's shape, and both forms run under the reference interpreter on the
same random inputs with bit-identical results (dots and reductions are deterministic in the
interpreter, so no tolerance is needed between these two forms).
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from xdsl.dialects.builtin import TensorType

from llc.dialects import tl
from llc.testing.kernel_gen import (
    BUFFER_ELEMENTS,
    DTYPES,
    TARGETS,
    KernelConfig,
    draw_config,
    generate_kernel,
    generate_large_module,
)
from llc.testing.semantics import (
    SemanticsMismatch,
    check_pipeline,
    check_same_semantics,
    parse,
    run_module,
)

NUM_KERNELS = int(os.environ.get("LLC_RANDOM_KERNELS", "200"))


def _tensor_types(module):
    for op in module.walk():
        values = [*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)]
        for v in values:
            if isinstance(v.type, TensorType):
                yield v.type


# one xdist group per seed, with the other tests of generated kernel ``seed``: they parse its text
# once (llc.testing.semantics.parse keeps it)
@pytest.mark.parametrize(
    "seed",
    [pytest.param(s, marks=pytest.mark.xdist_group(f"kernel{s}")) for s in range(NUM_KERNELS)],
)
def test_random_kernel_same_in_both_forms(seed: int) -> None:
    kernel = generate_kernel(seed)
    laid_out, layout_free = parse(kernel.laid_out), parse(kernel.layout_free)
    for typ in _tensor_types(laid_out):
        encoding = tl.encoding_of(typ)
        assert encoding is not None, f"seed {seed}: {typ} has no layout"
        encoding.to_linear_layout(typ.get_shape())  # raises for a layout that does not fit
    assert all(tl.encoding_of(t) is None for t in _tensor_types(layout_free))
    assert "tl.convert_layout" not in kernel.layout_free
    report = check_same_semantics(
        laid_out,
        layout_free,
        entry=kernel.entry,
        grid=kernel.grid,
        buffer_elements=kernel.buffer_elements,
        verify=False,  # both were verified by parse above
    )
    assert report.exact, "every kernel stores at least one output"


def test_generator_is_seeded_and_varied() -> None:
    assert generate_kernel(11).laid_out == generate_kernel(11).laid_out
    assert generate_kernel(11).laid_out != generate_kernel(12).laid_out
    texts = [generate_kernel(s).laid_out for s in range(60)]
    for needle in (
        "tl.reduce %",
        "arith.cmpf ogt",  # a two-operand (argmax) reduction
        "{axis = 0 : i32}",
        "{axis = 1 : i32}",
        "{axis = 2 : i32}",
        "tl.broadcast",
        "tl.trans",
        "tl.reshape",
        "tl.dot",
        "scf.for",
        "scf.if",
        "tl.select",
        "#tl.nvidia_mma",
        "#tl.dot_op",
        "#tl.slice",
        "tl.convert_layout",
    ):
        assert any(needle in t for t in texts), f"no kernel of 60 has {needle}"


def test_generator_draws_every_dtype_cta_target_and_grid() -> None:
    """Over 200 seeds the kernels compute in every element type, on 1 to 8 warps of 32 and 64
    lanes, for every target, and some run on grids of several programs, each program on its own
    part of the buffers."""
    configs = [draw_config(s) for s in range(200)]
    assert {c.dtype for c in configs} == set(DTYPES)
    assert {c.num_warps for c in configs} == {1, 2, 4, 8}
    assert {c.threads_per_warp for c in configs} == {32, 64}
    assert {c.target for c in configs} == set(TARGETS)
    assert {c.grid for c in configs} >= {(1,), (2,), (2, 2)}
    for c in configs:  # AMD wavefronts have 64 lanes, NVIDIA warps 32
        assert (c.threads_per_warp == 64) == c.target.startswith("hip")
    seed = next(s for s, c in enumerate(configs) if c.programs > 1 and c.dtype == "i64")
    kernel = generate_kernel(seed)
    assert kernel.config == configs[seed]
    assert "!tl.ptr<i64>" in kernel.layout_free and "tl.get_program_id x" in kernel.layout_free
    assert kernel.buffer_elements > generate_kernel(seed, config=KernelConfig()).buffer_elements
    attrs = f'"tl.num-warps" = {kernel.config.num_warps} : i32'
    assert attrs in kernel.layout_free and kernel.config.target in kernel.layout_free
    # the programs write disjoint parts: every element of a grid's output is written once
    outputs = run_module(
        kernel.layout_free,
        entry=kernel.entry,
        grid=kernel.grid,
        buffer_elements=kernel.buffer_elements,
    )
    single = run_module(
        kernel.layout_free, entry=kernel.entry, buffer_elements=kernel.buffer_elements
    )
    n = BUFFER_ELEMENTS  # program 0 writes what a single program writes, program 1 the next part
    assert np.array_equal(outputs["%out0"][:n], single["%out0"][:n], equal_nan=True)
    assert not np.array_equal(outputs["%out0"][n : 2 * n], single["%out0"][n : 2 * n])


def test_loops_carry_tensors_and_load_inside() -> None:
    loops = [k for k in (generate_kernel(s) for s in range(60)) if "scf.for" in k.laid_out]
    assert loops
    for kernel in loops[:5]:
        body = kernel.laid_out.split("scf.for", 1)[1].split("scf.yield", 1)[0]
        assert "iter_args(" in kernel.laid_out and "tl.load" in body


def test_harness_detects_a_changed_value() -> None:
    # A kernel whose first output no dot or reduce feeds: it must be bit-identical.
    kernel = next(
        k
        for k in (generate_kernel(s, config=KernelConfig()) for s in range(50))
        if "%out0" in check_same_semantics(k.layout_free, k.layout_free, entry=k.entry).exact
    )
    lines = kernel.layout_free.splitlines()
    store = next(i for i, line in enumerate(lines) if "tl.store" in line)
    value = lines[store].split(",")[1].split(":")[0].strip()
    value_type = lines[store].split(" : ")[1].replace("!tl.ptr<f32>", "f32")
    lines[store : store + 1] = [
        f"    %negated = arith.negf {value} : {value_type}",
        lines[store].replace(f", {value}", ", %negated"),
    ]
    with pytest.raises(SemanticsMismatch, match=r"%out0 .* is not bit-identical"):
        check_same_semantics(kernel.layout_free, "\n".join(lines), entry=kernel.entry)


def test_reduce_outputs_get_the_tolerance_and_others_do_not() -> None:
    text = """
    module attributes {"tl.num-warps" = 4 : i32} {
      func.func @k(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
        %s = tl.reduce %x {axis = 1 : i32} : tensor<4x8xf32> -> tensor<4xf32> {
        ^bb0(%a: f32, %b: f32):
          %c = arith.addf %a, %b : f32
          tl.reduce.return %c : f32
        }
        %z = arith.addf %x, %y : tensor<4x8xf32>
        func.return %s, %z : tensor<4xf32>, tensor<4x8xf32>
      }
    }
    """
    # A reassociated sum (x0 + x1 + ... in another order) stays within the tolerance.
    reordered = text.replace("%c = arith.addf %a, %b", "%c = arith.addf %b, %a")
    report = check_same_semantics(text, reordered)
    assert any(n.startswith("result #0") for n in report.tolerant)
    assert any(n.startswith("result #1") for n in report.exact)
    # An elementwise result must be bit-identical: x + y vs y + x + 0 * y is, x * 1.0000001 not.
    scaled = text.replace(
        "%z = arith.addf %x, %y : tensor<4x8xf32>",
        "%w = arith.addf %x, %y : tensor<4x8xf32>\n"
        "        %e = arith.constant dense<1.0000001> : tensor<4x8xf32>\n"
        "        %z = arith.mulf %w, %e : tensor<4x8xf32>",
    )
    with pytest.raises(SemanticsMismatch, match="result #1"):
        check_same_semantics(text, scaled)
    # ... and a reduce result beyond the tolerance is reported too.
    off = text.replace("tl.reduce.return %c : f32", "tl.reduce.return %a : f32")
    with pytest.raises(SemanticsMismatch, match="beyond rtol"):
        check_same_semantics(text, off)


def test_run_module_binds_buffers_and_seeds() -> None:
    kernel = generate_kernel(5)
    first = run_module(kernel.laid_out, entry=kernel.entry, seed=3)
    again = run_module(kernel.layout_free, entry=kernel.entry, seed=3)
    other = run_module(kernel.laid_out, entry=kernel.entry, seed=4)
    assert first.keys() == again.keys() and "%in0" in first and "%out0" in first
    assert all(np.array_equal(first[k], again[k], equal_nan=True) for k in first)
    assert not np.array_equal(first["%in0"], other["%in0"])


@pytest.mark.parametrize("seed", range(0, 400, 16))
def test_canonicalize_keeps_semantics_and_folds(seed: int) -> None:
    kernel = generate_kernel(seed)
    out = check_pipeline(kernel.laid_out, "canonicalize", entry=kernel.entry)
    module = parse(out)
    folded_sources = (tl.ConvertLayoutOp, tl.ConstantOp, tl.SplatOp, tl.MakeRangeOp)
    for op in module.walk():
        if isinstance(op, tl.ConvertLayoutOp):
            assert op.src.type != op.result.type
            assert not isinstance(op.src.owner, folded_sources), f"seed {seed}: {op}"
    assert out.count("tl.convert_layout") <= kernel.laid_out.count("tl.convert_layout")


def test_check_pipeline_runs_any_registered_pipeline() -> None:
    kernel = generate_kernel(9)
    out = check_pipeline(kernel.layout_free, "canonicalize,dce", entry=kernel.entry)
    assert "#tl." not in out
    with pytest.raises(ValueError, match="no-such-pass"):
        check_pipeline(kernel.layout_free, "no-such-pass", entry=kernel.entry)


def test_check_pipeline_runs_the_input_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    """check_pipeline compares against the input before the pass (it keeps a copy, the pass
    rewrites the module in place): a pass that drops a store is caught."""
    import llc.testing.semantics as semantics

    def drop_a_store(module, pipeline):
        next(op for op in module.walk() if op.name == "tl.store").detach()
        return module

    monkeypatch.setattr(semantics, "apply_pipeline", drop_a_store)
    kernel = generate_kernel(9)
    with pytest.raises(SemanticsMismatch, match=r"^%out\d \(seed 0\)"):
        check_pipeline(kernel.layout_free, "canonicalize", entry=kernel.entry)


@pytest.mark.parametrize("size", [1000])
def test_large_modules(size: int) -> None:
    text = generate_large_module(size, seed=1)
    module = parse(text)
    ops = sum(1 for op in module.walk()) - 1  # without the module itself
    assert size <= ops < size * 1.2
    assert "#tl." not in text
    laid = parse(generate_large_module(size, seed=1, layouts=True))
    assert sum(1 for op in laid.walk() if isinstance(op, tl.ConvertLayoutOp)) > 0
