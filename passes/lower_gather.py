"""Lowering ``tl.gather`` to SIMT code: warp shuffles when the axis stays in a warp, else shared
memory (the plan and program come from :mod:`llc.gather`, xDSL-free).

:func:`gather_function` builds ``func.func @name(vector<R_src x T>, vector<R_dst x i32>) ->
vector<R_dst x T>``: the code one thread runs on its source registers and its indices, returning
its result registers; :func:`check_gather` runs it in the SIMT interpreter (PTX ``shfl.sync``
semantics, shared memory with race checks) and compares every register with
``numpy.take_along_axis``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp, StringAttr, VectorType
from xdsl.ir import Block, Region

from llc.gather import GatherPlan, gather_program, thread_elements
from llc.linear_layout import LinearLayout
from llc.passes.lower_conversions import materialize

__all__ = ["GatherCheck", "check_gather", "gather_function"]


def gather_function(
    name: str, plan: GatherPlan, src: LinearLayout, idx: LinearLayout
) -> func.FuncOp:
    """The SIMT function of one gather (elements travel as ``iN`` bit patterns)."""
    program = gather_program(plan, src, idx)
    elem = IntegerType(plan.bitwidth)
    in_type = VectorType(elem, [plan.src_registers])
    idx_type = VectorType(IntegerType(32), [plan.dst_registers])
    out_type = VectorType(elem, [plan.dst_registers])
    block = Block(arg_types=[in_type, idx_type])
    ops, out = materialize(program, elem, block.args[0], (block.args[1],))
    block.add_ops([*ops, func.ReturnOp(out)])
    function = func.FuncOp(name, ([in_type, idx_type], [out_type]), Region(block))
    function.attributes.update(
        {
            "llc.num_warps": IntegerAttr(plan.num_warps, 32),
            "llc.threads_per_warp": IntegerAttr(plan.threads_per_warp, 32),
            "llc.strategy": StringAttr(plan.strategy),
        }
    )
    return function


@dataclass(frozen=True)
class GatherCheck:
    """The outcome of :func:`check_gather`: ``ok``, the interpreter's instruction counts and
    wavefronts, and a message naming the first wrong register."""

    ok: bool
    instructions: dict[str, int]
    wavefronts: int
    message: str = ""


def check_gather(
    plan: GatherPlan,
    src: LinearLayout,
    idx: LinearLayout,
    src_values: np.ndarray,
    idx_values: np.ndarray,
) -> GatherCheck:
    """Lower ``plan``, run it in the SIMT interpreter on the threads' registers of
    ``src_values`` / ``idx_values`` (distributed by the layouts) and compare every result register
    with ``take_along_axis``."""
    from llc.dialects.simt_interpreter import make_simt_interpreter, raw_dtype

    function = gather_function("gather", plan, src, idx)
    module = ModuleOp([function])
    module.verify()
    s_elements = thread_elements(src, tuple(src_values.shape))
    d_elements = thread_elements(idx, tuple(idx_values.shape))
    dtype = raw_dtype(plan.bitwidth)
    threads = plan.num_warps * plan.threads_per_warp
    regs = np.ascontiguousarray(src_values.reshape(-1)[s_elements].reshape(threads, -1)).astype(
        dtype
    )
    my_idx = idx_values.reshape(-1)[d_elements].reshape(threads, -1).astype(np.int32)
    interp, functions = make_simt_interpreter(module, plan.num_warps, plan.threads_per_warp)
    (out,) = interp.call_op("gather", (regs, my_idx))
    expected_tensor = np.take_along_axis(src_values, idx_values, plan.axis)
    expected = expected_tensor.reshape(-1)[d_elements].reshape(threads, -1).astype(dtype)
    stats = functions.stats
    wrong = np.asarray(out) != expected
    if wrong.any():
        t, r = np.argwhere(wrong)[0]
        return GatherCheck(
            False,
            dict(stats.instructions),
            stats.wavefronts,
            f"thread {t} register {r} holds {int(out[t, r])}, expected {int(expected[t, r])}",
        )
    return GatherCheck(True, dict(stats.instructions), stats.wavefronts)
