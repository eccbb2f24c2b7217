"""The axis analysis' rule for ``arith.muli`` (Triton's): ``x * 1`` is ``x``, so a row offset
scaled by its unit stride keeps its contiguity and divisibility; any other factor ends the runs.
Widening casts (``extsi``/``extui``) keep runs and divisors."""

from __future__ import annotations

import pytest

from llc.dialects.diagnostics import parse_module
from llc.passes.axis_info import MAX_DIVISIBILITY, AxisAnalysis
from llc.passes.conversion_kernel import _context

KERNEL = """
module attributes {{"tl.num-warps" = 1 : i32, "tl.threads-per-warp" = 32 : i32}} {{
  func.func @k() {{
    %r = tl.make_range {{end = 64 : i32, start = 0 : i32}} : tensor<64xi32>
    %e = tl.expand_dims %r {{axis = 0 : i32}} : tensor<64xi32> -> tensor<1x64xi32>
    %c = arith.constant dense<{factor}> : tensor<1x64xi32>
    %m = arith.muli {order} : tensor<1x64xi32>
    func.return
  }}
}}
"""


@pytest.mark.parametrize("order", ["%e, %c", "%c, %e"])
def test_times_one_keeps_the_run(order: str) -> None:
    module = parse_module(_context(), KERNEL.format(factor=1, order=order), "<k>")
    product = next(op for op in module.walk() if op.name == "arith.muli")
    info = AxisAnalysis().info(product.results[0])
    assert info.contiguity == (1, 64)
    assert info.divisibility == (1, MAX_DIVISIBILITY)


def test_times_two_ends_the_run() -> None:
    module = parse_module(_context(), KERNEL.format(factor=2, order="%e, %c"), "<k>")
    product = next(op for op in module.walk() if op.name == "arith.muli")
    info = AxisAnalysis().info(product.results[0])
    assert info.contiguity == (1, 1)
    assert info.divisibility[1] == 2  # a run [0, 1, ...] times 2: only the factor is known


WIDENED = """
module attributes {"tl.num-warps" = 1 : i32, "tl.threads-per-warp" = 32 : i32} {
  func.func @k(%stride: i32 {tl.divisibility = 16 : i32}) {
    %s = arith.extsi %stride : i32 to i64
    %r = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %w = tl.extui %r : tensor<64xi32> to tensor<64xi64>
    func.return
  }
}
"""


def test_widening_keeps_runs_and_divisors() -> None:
    """A kernel's ``pid.to(tl.int64) * stride`` row offset keeps the stride's 16: without it
    llc's coalescing gave a row of f16 one element per thread (bench/gpu.py's layer norm)."""
    module = parse_module(_context(), WIDENED, "<k>")
    analysis = AxisAnalysis()
    ops = {op.name: op for op in module.walk()}
    assert analysis.info(ops["arith.extsi"].results[0]).divisibility == (16,)
    widened = analysis.info(ops["tl.extui"].results[0])
    assert widened.contiguity == (64,) and widened.divisibility == (MAX_DIVISIBILITY,)
