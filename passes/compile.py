"""``llc-compile``: the whole pipeline, ``llc-decompose-dot-scaled``, ``llc-optimize-layouts``, then
``llc-lower-to-simt``.

Where the layout assignment would pick an accumulator layout the SIMT lowering cannot lower
(mma v3, which ``cuda:90`` gets by default, or mfma), ``llc-compile`` has it pick the one it can
(mma v2 on NVIDIA targets, FMA elsewhere) and says so in a remark on standard error when the
module has a dot.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

__all__ = ["CompilePass", "lowerable_mma_version"]


def lowerable_mma_version(target: str, threads_per_warp: int, requested: int) -> tuple[int, str]:
    """The mma version the SIMT lowering can handle, and a remark when it differs from what the
    assignment would pick.

    >>> lowerable_mma_version("cuda:90", 32, 3)[0]
    2
    >>> lowerable_mma_version("cuda:90", 32, 0)[0], lowerable_mma_version("cuda:80", 32, 0)[0]
    (2, 0)
    >>> lowerable_mma_version("hip:gfx942", 64, 0)
    (1, 'the target would get mfma dot layouts, which the SIMT lowering cannot lower; using FMA')
    """
    vendor, _, arch = target.partition(":") if target else ("", "", "")
    hopper = vendor == "cuda" and arch.isdigit() and 90 <= int(arch) < 100
    if requested == 3 or (requested == 0 and hopper and threads_per_warp == 32):
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
        from llc.passes.layout_assignment import DEFAULT_TARGET
        from llc.passes.layout_passes import OptimizeLayoutsPass
        from llc.passes.lower_to_simt import LowerToSimtPass

        target = op.attributes.get("tl.target")
        lanes = op.attributes.get("tl.threads-per-warp")
        version, remark = lowerable_mma_version(
            target.data if isinstance(target, StringAttr) else DEFAULT_TARGET,
            lanes.value.data if isinstance(lanes, IntegerAttr) else 32,
            self.mma_version,
        )
        # Only a module with a dot would see the difference.
        if remark and any(o.name == "tl.dot" for o in op.walk()):
            print(f"remark: llc-compile: {remark}", file=sys.stderr)
        DecomposeDotScaledPass().apply(ctx, op)
        OptimizeLayoutsPass(mma_version=version).apply(ctx, op)
        LowerToSimtPass().apply(ctx, op)
