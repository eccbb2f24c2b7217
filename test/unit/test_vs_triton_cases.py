"""llc against Triton 3.9 on the laid-out TTGIR cases of ``bench/cases`` (the bench
``bench/vs_triton_cases.py``).

Each case's header records what Triton's ``remove-layout-conversions`` + ``cse`` leaves
(``// triton: conversions=N cost=C``), and ``bench/cases/triton/`` keeps Triton's output; both are
written by ``python bench/vs_triton_cases.py --record``. Here llc runs alone (no Triton needed):
the case must import and verify, llc's pipeline must run, its TTGIR export must import again, and
the conversions it leaves, measured by the bench's own :func:`module_cost`, must be at or below
Triton's on both figures. Triton's figures are those of its kept output priced with today's cost
model (a change to ``llc.cost`` moves both sides alike); the header must agree on the count. With
Triton installed, Triton must also accept the export.

Cases llc cannot handle yet are strict ``xfail``s with the reason: when a fix lands they XPASS and
fail, so the mark must be removed.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from llc.dialects.ttgir import parse_triton_module

ROOT = Path(__file__).resolve().parents[2]


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "bench_vs_triton_cases", ROOT / "bench/vs_triton_cases.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


bench = _bench()
CASES = bench.load_cases()

try:
    import triton  # noqa: F401

    HAVE_TRITON = True
except ImportError:
    HAVE_TRITON = False

_READ = "llc cannot import "
_STORE_FOLLOWS_VALUE = (
    "a store whose pointers are a function argument takes its value's layout and llc converts "
    "the 64-bit pointer tensor, where converting the (narrower) value is cheaper"
)
_WGMMA = (
    "ttng.warp_group_dot is no anchor of llc-optimize-layouts: its mma v3 accumulator and result "
    "are re-assigned to two different blocked layouts, which the op's verifier rejects"
)
XFAIL: dict[str, str] = {
    # Import (helper B's work).
    "extern_elementwise_backward": _READ + "tt.extern_elementwise",
    "fp4_to_fp_forward": _READ + "ttg.fp4_to_fp",
    "inline_asm_forward": _READ + "tt.elementwise_inline_asm",
    "local_load_memdesc_trans": _READ + "ttg.memdesc_trans",
    "reshape_allow_reorder": _READ + "tt.reshape ... allow_reorder",
    "scan_backward": _READ + "tt.scan / tt.scan.return",
    "scan_cheap_input": _READ + "tt.scan / tt.scan.return",
    "spelling_cmpi_string_predicate": _READ + 'arith.cmpi "sgt" (string predicate)',
    "spelling_if_result_no_parens": _READ + "scf.if %c -> tensor<...> (no parentheses)",
    "tensordesc_load_convert": _READ + "!tt.tensordesc / tt.descriptor_load",
    # The pipeline fails.
    "basic_scalar_load": "llc-optimize-layouts: KeyError on the scalar result of a scalar tt.load",
    "basic_mma_v3_wgmma": _WGMMA,
    "basic_mma_v3_epilogue_trunc": _WGMMA,
    "wgmma_wait_loop": _WGMMA,
    "wgmma_wait_bias": "llc-optimize-layouts: warp_group_dot_wait's results keep their type while "
    "its operands are retyped (no transfer rule through the wait)",
    "wgmma_wait_epilogue": "llc-optimize-layouts: warp_group_dot_wait's results keep their type "
    "while its operands are retyped (no transfer rule through the wait)",
    "wgmma_wait_two_values": "llc-optimize-layouts: warp_group_dot_wait's results keep their type "
    "while its operands are retyped (no transfer rule through the wait)",
    # Above Triton.
    "basic_hoist_above_ext": "llc converts after the widening extf (f32, 60) instead of the f16 "
    "load result (56): remove-conversions charges the recomputed extf (56 + 4 ties with 60)",
    "basic_mma_v2_store_in_mma": "the reduction runs on the mma accumulator and "
    + _STORE_FOLLOWS_VALUE,
    "reduce_argmax_loaded": "two-result reduce: " + _STORE_FOLLOWS_VALUE,
    "reduce_argmax_backward": "two-result reduce: the reduce keeps its input's layout and both "
    "results convert from a slice that costs more to leave (270 vs 150)",
    "reshape_forward": "2 conversions (cost 6) vs 1 (cost 43): "
    + _STORE_FOLLOWS_VALUE
    + ", and a free pointer conversion blocked -> linear is left as an op",
    "reshape_convert_before": "a conversion between two layouts with the same linear layout "
    "(blocked -> linear, free) is left as an op instead of retyping the value",
    "local_load_two_users": "no fold of a convert of a local_load into a second local_load in the "
    "destination layout (llc converts dot_op -> blocked in registers)",
    "loop_arg_round_trip": "resolution does not weight costs by loop trip count: llc converts the "
    "loaded tile inside the loop (8 x 222) instead of the carried value around it (440)",
    "while_two_tensors": "scf.while: both conversions stay in the body (no loop-carried layout "
    "change for scf.while, no trip-count weighting)",
}
TRITON_REJECTS: dict[str, str] = {
    "split_forward": "tt.split's results get the stores' layout, not the one split infers from "
    "its operand (no transfer rule check for split)",
    "split_backward": "tt.split's operand gets a layout with 1 element per thread along the split "
    "dim, which Triton's split rejects",
    "join_backward": "tt.join's result gets a layout Triton's join cannot infer from its operands",
    "join_split_roundtrip": "join/split retyped to layouts Triton's verifier rejects",
}
REQUIRED_CATEGORIES = {
    "print-assert", "while", "remat-if", "remat-loop", "loop-args", "reduce-multi", "reshape",
    "join-split", "gather", "local-load", "wgmma-wait", "conflict", "basic-elementwise",
    "basic-broadcast", "basic-trans", "basic-dot", "basic-store", "basic-scalar", "basic-mma",
    "transparent-ops",
}  # fmt: skip


def _param(case: object) -> object:
    name = case.name  # type: ignore[attr-defined]
    marks = []
    if name in XFAIL:
        marks.append(pytest.mark.xfail(reason=XFAIL[name], strict=True))
    elif name in TRITON_REJECTS and HAVE_TRITON:
        marks.append(pytest.mark.xfail(reason=TRITON_REJECTS[name], strict=True))
    return pytest.param(case, id=name, marks=marks)


def test_cases_cover_every_category_and_record_triton() -> None:
    assert len(CASES) >= 60
    assert {case.category for case in CASES} >= REQUIRED_CATEGORIES
    assert all(case.triton_conversions is not None for case in CASES), "run --record"
    assert all(bench.triton_output_path(case).is_file() for case in CASES), "run --record"
    assert set(XFAIL) | set(TRITON_REJECTS) <= {case.name for case in CASES}


@pytest.mark.parametrize("case", [_param(case) for case in CASES])
def test_llc_at_or_below_triton(case: object) -> None:
    text = bench.run_llc(case)
    parse_triton_module(text, f"{case.name}.llc.ttgir").verify()  # type: ignore[attr-defined]
    count, cost = bench.module_cost(text)
    triton = bench.module_cost(bench.triton_output_path(case).read_text())
    assert triton[0] == case.triton_conversions, "stale header: run --record"  # type: ignore[attr-defined]
    assert count <= triton[0] and cost <= triton[1] + 1e-6, f"llc {(count, cost)} > Triton {triton}"
    if HAVE_TRITON:
        assert bench.triton_verifies(text) is None


_TWO_LAYOUTS = """
#a = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], \
order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], \
instrShape = [16, 8]}>
#d = #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#s = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {ttg.target = "cuda:80"} {
  tt.func @f(%x: tensor<64x32xf16, #a>) {
    %m = ttg.local_alloc %x : (tensor<64x32xf16, #a>) -> !ttg.memdesc<64x32xf16, #s, #smem>
    %y = ttg.local_load %m : !ttg.memdesc<64x32xf16, #s, #smem> -> tensor<64x32xf16, #d>
    %z = ttg.local_load %m : !ttg.memdesc<64x32xf16, #s, #smem> -> tensor<64x32xf16, #a>
    %w = ttg.convert_layout %x : tensor<64x32xf16, #a> -> tensor<64x32xf16, #a>
    tt.return
  }
}
"""


def test_module_cost_counts_a_register_tile_staged_through_shared_memory() -> None:
    # What llc writes for a conversion into a dot operand is a conversion too; reading the tile
    # back in its own layout, or converting to the same type, is not.
    (staged,) = bench.conversions_of(_TWO_LAYOUTS)
    assert "dot_op" in staged.dst and staged.cost > 0


def test_row_is_above_on_cost_alone_and_on_invalid_output() -> None:
    case = CASES[0]
    assert bench.Row(case, (1, 50.0), (1, 60.0)).above
    assert bench.Row(case, (1, 50.0), (2, 10.0)).above
    assert not bench.Row(case, (1, 50.0), (1, 50.0)).above
    assert bench.Row(case, (1, 50.0), (0, 0.0)).below
    assert bench.Row(case, (1, 50.0), (0, 0.0), invalid=True).above
    assert bench.Row(case, (1, 50.0), None).above


_LOOPS = """
#a = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], \
order = [0]}>
#b = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], \
order = [0]}>
module attributes {ttg.target = "cuda:80"} {
  tt.func @f(%x: tensor<512xf32, #a>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c2 = arith.constant 2 : i32
    %c10 = arith.constant 10 : i32
    %y = ttg.convert_layout %x : tensor<512xf32, #a> -> tensor<512xf32, #b>
    scf.for %i = %c0 to %c10 step %c2 : i32 {
      %z = ttg.convert_layout %x : tensor<512xf32, #a> -> tensor<512xf32, #b>
      scf.for %j = %c0 to %n step %c2 : i32 {
        %p = "tt.reduce"(%x) <{axis = 0 : i32}> ({
        ^bb0(%u: f32, %v: f32):
          %s = arith.addf %u, %v : f32
          tt.reduce.return %s : f32
        }) : (tensor<512xf32, #a>) -> f32
        %w = ttg.convert_layout %x : tensor<512xf32, #a> -> tensor<512xf32, #b>
      }
    }
    %after = ttg.convert_layout %x : tensor<512xf32, #a> -> tensor<512xf32, #b>
    tt.return
  }
}
"""


def test_module_cost_weights_conversions_by_loop_trip_counts() -> None:
    # Constant bounds give the trip count (0 to 10 step 2: 5), a dynamic bound the default; a
    # region that is not a loop (the reduce's combiner) and the loop's end restore the weight.
    weights = [c.weight for c in bench.conversions_of(_LOOPS)]
    assert weights == [1.0, 5.0, 5.0 * bench.DEFAULT_TRIP_COUNT, 1.0]
    costs = [c.cost for c in bench.conversions_of(_LOOPS)]
    assert costs[1] == 5 * costs[0] > 0


def test_bench_docstring_examples() -> None:
    # bench/ is not a package, so the doctest collector does not see the bench's examples.
    import doctest

    failures, tried = doctest.testmod(bench, optionflags=doctest.ELLIPSIS)
    assert tried >= 5 and failures == 0
