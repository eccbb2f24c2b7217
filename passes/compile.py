"""``llc-compile``: the whole pipeline, ``llc-decompose-dot-scaled``, ``llc-optimize-layouts``, then
``llc-lower-to-simt``, verifying the IR after each: an error names the op that could not be
lowered, at its source position.

Where the layout assignment would pick an accumulator layout the SIMT lowering cannot lower
(mma v3, mfma), ``llc-compile`` has it pick the one it can (mma v2 on NVIDIA targets, FMA
elsewhere) and says so in a remark on standard error.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

__all__ = ["CompilePass", "lowerable_mma_version", "verify_after"]


def lowerable_mma_version(target: str, threads_per_warp: int, requested: int) -> tuple[int, str]:
    """The mma version the SIMT lowering can handle, and a remark when it differs from what the
    assignment would pick.

    >>> lowerable_mma_version("cuda:90", 32, 3)[0]
    2
    >>> lowerable_mma_version("hip:gfx942", 64, 0)
    (1, 'the target would get mfma dot layouts, which the SIMT lowering cannot lower; using FMA')
    """
    vendor = target.split(":", 1)[0] if target else ""
    if requested == 3:
        return 2, "mma v3 cannot be lowered to SIMT code; using mma v2 (mma.sync m16n8k16)"
    if requested == -1 or (requested == 0 and vendor == "hip" and threads_per_warp == 64):
        return 1, (
            "the target would get mfma dot layouts, which the SIMT lowering cannot lower; using FMA"
        )
    return requested, ""


@dataclass(frozen=True)
class CompilePass(ModulePass):
    """``-p 'llc-compile{mma-version=0}'``."""

    name = "llc-compile"
    mma_version: int = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from xdsl.dialects.builtin import IntegerAttr, StringAttr

        from llc.passes.decompose_dot_scaled import DecomposeDotScaledPass
        from llc.passes.layout_passes import OptimizeLayoutsPass
        from llc.passes.lower_to_simt import LowerToSimtPass

        target = op.attributes.get("tl.target")
        lanes = op.attributes.get("tl.threads-per-warp")
        version, remark = lowerable_mma_version(
            target.data if isinstance(target, StringAttr) else "",
            lanes.value.data if isinstance(lanes, IntegerAttr) else 32,
            self.mma_version,
        )
        if remark:
            print(f"remark: llc-compile: {remark}", file=sys.stderr)
        for stage in (
            DecomposeDotScaledPass(),
            OptimizeLayoutsPass(mma_version=version),
            LowerToSimtPass(),
        ):
            stage.apply(ctx, op)
            verify_after(stage.name, op)


def verify_after(stage: str, module: ModuleOp) -> None:
    """Verify ``module`` after the pass ``stage``: invalid IR is an error at the innermost op
    that fails (located at it, or at its nearest ancestor with a source position), naming the
    pass that built it.

    >>> from xdsl.dialects import func
    >>> from xdsl.dialects.builtin import IndexType, VectorType, f64
    >>> from xdsl.ir import Block, Region
    >>> from llc.dialects import simt
    >>> types = [VectorType(f64, [1]), IndexType()]
    >>> block = Block(arg_types=types)
    >>> block.add_ops([simt.ShuffleOp("bfly", *block.args, 31), func.ReturnOp()])
    >>> module = ModuleOp([func.FuncOp("f", (types, []), Region(block))])
    >>> try:
    ...     verify_after("llc-lower-to-simt", module)
    ... except Exception as err:
    ...     print(err.op.name, "|", str(err).split(" per lane, ")[1])
    simt.shuffle | vector<1xf64> has 64 (invalid IR after llc-lower-to-simt)
    """
    from llc.dialects.diagnostics import error_at, find_failing_op

    found = find_failing_op(module)
    if found is None:
        return
    failing, err = found
    lines = str(err).strip().splitlines()
    message = lines[0] if lines else type(err).__name__
    raise error_at(failing, f"{message} (invalid IR after {stage})")
