"""llc-optimize-layouts on random layout-heavy kernels (branch d's generator and harness).

Each generated kernel (elementwise chains, reductions on any axis, broadcasts back, transposes,
reshapes, dots, scf.for with loop-carried tensors, scf.if) goes through the pipeline from its
layout-free form; every fourth also from its hand-laid-out form. The harness runs both modules
under the reference interpreter on the same random inputs: outputs must be bit-identical except
where a dot or reduction feeds them (float reassociation, ``llc.testing.semantics`` tolerance).
"""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import TensorType

from llc.dialects.tl import encoding_of
from llc.passes.layout_assignment import walk_ops
from llc.testing.kernel_gen import generate_kernel
from llc.testing.semantics import check_pipeline, check_pipeline_module

SEEDS = range(200)


# one xdist group per seed, with the other tests of generated kernel ``seed``: they parse its text
# once (llc.testing.semantics.parse keeps it)
@pytest.mark.parametrize(
    "seed", [pytest.param(s, marks=pytest.mark.xdist_group(f"kernel{s}")) for s in SEEDS]
)
def test_generated_kernel_keeps_semantics(seed: int) -> None:
    kernel = generate_kernel(seed)
    out = check_pipeline_module(kernel.layout_free, "llc-optimize-layouts", entry=kernel.entry)
    for op in walk_ops(out):
        for value in op.results:
            if isinstance(value.type, TensorType):
                assert encoding_of(value.type) is not None, f"{op.name} result has no layout"
    if seed % 4 == 0:
        check_pipeline(kernel.laid_out, "llc-optimize-layouts", entry=kernel.entry)


def test_loop_values_carried_twice_keep_semantics() -> None:
    """A generated loop whose chain reads two loop arguments and is needed in two layouts: the
    solver carries both a second time (the loop gains iteration arguments), and the rewritten
    kernel computes what the input does (``llc.passes.loop_copies``)."""
    from llc.testing.kernel_gen import generate_loop_kernel

    kernel = generate_loop_kernel(5, 2)
    out = check_pipeline_module(kernel.layout_free, "llc-optimize-layouts", entry=kernel.entry)
    [loop] = [op for op in walk_ops(out) if op.name == "scf.for"]
    assert len(loop.results) == 4  # two carried values, each carried twice
