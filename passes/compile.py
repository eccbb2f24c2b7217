"""``llc-compile``: the whole pipeline, ``llc-decompose-dot-scaled``, ``llc-optimize-layouts``, then
``llc-lower-to-simt``, verifying the IR after each: an error names the op that could not be
lowered, at its source position.

On ``cuda:90`` the layout assignment gives eligible dots mma v3 (``tl.warp_group_dot`` on
``nvmma_shared`` operands), which the SIMT lowering turns into wgmma
(:mod:`llc.passes.lower_wgmma`). Where it would pick an accumulator layout the SIMT lowering
cannot lower (mfma), or mma v3 is asked for a target without wgmma, ``llc-compile`` has it pick
the one it can (FMA, mma v2) and says so in a remark on standard error when the module has a
dot. Input whose dots already carry such a layout (an mfma kernel from
``llc-optimize-layouts{target="hip:gfx942"}``) has its layouts stripped first and re-assigned,
with a remark naming the dot.

What no layout choice can fix is refused up front by :func:`check_lowerable`, at the op: an
element type that is not one of :data:`llc.cost.DTYPES` (``i3``), and a function that takes or
returns a tensor (a kernel's parameters are pointers and scalars, as in Triton).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, VectorType
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass

__all__ = [
    "THREAD_REGISTERS",
    "CompilePass",
    "accumulator_remarks",
    "check_lowerable",
    "lowerable_mma_version",
    "unlowerable_dot",
    "verify_after",
]


def lowerable_mma_version(target: str, threads_per_warp: int, requested: int) -> tuple[int, str]:
    """The mma version the SIMT lowering can handle, and a remark when it differs from what the
    assignment would pick.

    >>> lowerable_mma_version("cuda:90", 32, 0), lowerable_mma_version("cuda:90", 32, 3)
    ((0, ''), (3, ''))
    >>> lowerable_mma_version("cuda:80", 32, 3)[0], lowerable_mma_version("cuda:80", 32, 0)[0]
    (2, 0)
    >>> lowerable_mma_version("hip:gfx942", 64, 0)
    (1, 'the target would get mfma dot layouts, which the SIMT lowering cannot lower; using FMA')
    """
    vendor, _, arch = target.partition(":") if target else ("", "", "")
    hopper = vendor == "cuda" and arch.isdigit() and 90 <= int(arch) < 100
    if requested == 3 and not (hopper and threads_per_warp == 32):
        return 2, f"mma v3 (wgmma) needs cuda:90 with warps of 32 lanes; using mma v2 on {target}"
    if requested == -1 or (requested == 0 and vendor == "hip" and threads_per_warp == 64):
        return 1, (
            "the target would get mfma dot layouts, which the SIMT lowering cannot lower; using FMA"
        )
    return requested, ""


def _scalar_element(typ: Attribute) -> Attribute:
    """The element type a value finally holds: through tensors, vectors and pointers."""
    from llc.dialects.tl import MemDescType, PointerType

    while True:
        if isinstance(typ, TensorType | VectorType | MemDescType):
            typ = typ.element_type
        elif isinstance(typ, PointerType):
            typ = typ.pointee
        else:
            return typ


def _type_error(typ: Attribute) -> str | None:
    from xdsl.dialects.builtin import IndexType, IntegerType

    from llc.cost import DTYPES

    element = _scalar_element(typ)
    if isinstance(element, IndexType):
        return None
    name = str(element)
    is_number = isinstance(element, IntegerType) or name.startswith(("f", "bf", "tf"))
    if is_number and name not in DTYPES:
        integers = ", ".join(t for t in DTYPES if t.startswith("i"))
        return (
            f"{name} elements cannot be lowered to SIMT code (in {typ}): integers are "
            f"{integers}; floats f16, bf16, f32, f64 and Triton's fp8 types"
        )
    return None


def check_lowerable(module: ModuleOp) -> None:
    """Refuse, at the op, what ``llc-lower-to-simt`` cannot lower whatever the layouts: an
    element type outside :data:`llc.cost.DTYPES` and tensor parameters or results of a
    function.

    >>> from xdsl.dialects.builtin import IntegerType, i32
    >>> kernel = func.FuncOp("k", ([TensorType(i32, [32])], []))
    >>> check_lowerable(ModuleOp([kernel]))
    Traceback (most recent call last):
    ...
    llc.dialects.diagnostics.OpPassFailedException: @k takes tensor<32xi32> as argument #0: \
a kernel's parameters are pointers and scalars (pass a !tl.ptr and tl.load it)
    >>> check_lowerable(ModuleOp([func.FuncOp("k", ([IntegerType(3)], []))]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llc.dialects.diagnostics.OpPassFailedException: i3 elements cannot be lowered to SIMT code ...
    """
    from llc.dialects.diagnostics import error_at

    for op in module.walk():
        if isinstance(op, func.FuncOp):
            _check_signature(op)
        if (message := _pipelined_triton_error(op)) is not None:
            raise error_at(op, message)
        for result in op.results:
            if (message := _type_error(result.type)) is not None:
                raise error_at(op, message)


def _pipelined_triton_error(op: Operation) -> str | None:
    """What of Triton's pipelined TTGIR ``op`` holds that the SIMT lowering does not take: a
    ``tl.memdesc_subslice`` view, an ``!tl.async_token`` (llc's own pipeliner makes neither).

    >>> from llc.dialects import tl
    >>> print(_pipelined_triton_error(tl.AsyncWaitOp(0, with_token=True)))
    async tokens (Triton's pipelined TTGIR) have no SIMT lowering: the \
tensor-level interpreter (llc-run) runs it; llc-compile pipelines the unpipelined kernel itself
    >>> _pipelined_triton_error(tl.AsyncWaitOp(0)) is None  # llc's own pipeliner's
    True
    >>> from xdsl.dialects.builtin import f32
    >>> from xdsl.ir import Block
    >>> buf = Block(arg_types=[tl.MemDescType(f32, [4, 8])]).args[0]
    >>> view = tl.MemDescSubsliceOp(buf, [0, 4], tl.MemDescType(f32, [4, 4], None, [4, 8]))
    >>> print(_pipelined_triton_error(view))  # doctest: +ELLIPSIS
    a view of a shared buffer at static offsets has no SIMT lowering: ...
    """
    from llc.dialects import tl

    what = None
    if isinstance(op, tl.MemDescSubsliceOp):
        what = "a view of a shared buffer at static offsets has no SIMT lowering"
    elif any(isinstance(v.type, tl.AsyncTokenType) for v in (*op.operands, *op.results)):
        what = "async tokens (Triton's pipelined TTGIR) have no SIMT lowering"
    if what is None:
        return None
    return (
        f"{what}: the tensor-level interpreter (llc-run) runs it; llc-compile pipelines the "
        "unpipelined kernel itself"
    )


def _check_signature(fn: func.FuncOp) -> None:
    from llc.dialects.diagnostics import error_at

    symbol = f"@{fn.sym_name.data}"
    kinds = (("takes", "argument", fn.function_type.inputs.data),)
    kinds += (("returns", "result", fn.function_type.outputs.data),)
    for verb, what, types in kinds:
        for i, typ in enumerate(types):
            if (message := _type_error(typ)) is not None:
                raise error_at(fn, message)
            if isinstance(typ, TensorType):
                plain = TensorType(typ.element_type, typ.get_shape())  # the layout is no matter
                hint = (
                    "pass a !tl.ptr and tl.load it"
                    if what == "argument"
                    else "tl.store it through a !tl.ptr parameter"
                )
                raise error_at(
                    fn,
                    f"{symbol} {verb} {plain} as {what} #{i}: a kernel's parameters are pointers "
                    f"and scalars ({hint})",
                )


def unlowerable_dot(module: ModuleOp) -> tuple[Operation, str] | None:
    """The first ``tl.dot`` whose accumulator layout the SIMT lowering cannot lower (mfma,
    wmma, mma v3), with that layout's name.

    >>> unlowerable_dot(ModuleOp([])) is None
    True
    """
    from llc.dialects import tl
    from llc.dialects.layout_attrs import (
        AMDMfmaEncodingAttr,
        AMDWmmaEncodingAttr,
        NvidiaMmaEncodingAttr,
    )

    for op in module.walk():
        if not isinstance(op, tl.DotOp) or not isinstance(op.result.type, TensorType):
            continue
        enc = op.result.type.encoding
        if isinstance(enc, AMDMfmaEncodingAttr):
            return op, "mfma"
        if isinstance(enc, AMDWmmaEncodingAttr):
            return op, "wmma"
        if isinstance(enc, NvidiaMmaEncodingAttr) and enc.layout.version_major == 3:
            return op, "mma v3"
    return None


def _where(op: Operation) -> str:
    from llc.dialects.diagnostics import op_location

    loc = op_location(op)
    return f"{loc.file}:{loc.line}:{loc.col}: " if loc is not None else ""


@dataclass(frozen=True)
class CompilePass(ModulePass):
    """``-p 'llc-compile{mma-version=0 num-stages=3}'``: ``num-stages`` pipelines the loads
    that feed dots (``llc-pipeline``) on ``cuda:80`` and newer; ``num-stages=1`` turns it off.

    >>> CompilePass().num_stages, CompilePass(num_stages=1).num_stages
    (3, 1)
    """

    name = "llc-compile"
    mma_version: int = 0
    num_stages: int = 3

    def __post_init__(self) -> None:
        from llc.passes.pipeline import PipelinePass
        from llc.targets import check_pass_options

        check_pass_options(self.name, mma_version=self.mma_version)
        PipelinePass(self.num_stages)  # checks the option

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from xdsl.dialects.builtin import IntegerAttr, StringAttr

        from llc.passes.decompose_dot_scaled import DecomposeDotScaledPass
        from llc.passes.layout_assignment import DEFAULT_TARGET
        from llc.passes.layout_passes import OptimizeLayoutsPass
        from llc.passes.lower_to_simt import LowerToSimtPass
        from llc.passes.pipeline import PipelinePass, module_stages
        from llc.passes.strip_layouts import StripLayoutsPass

        check_lowerable(op)
        if (found := unlowerable_dot(op)) is not None:
            dot, kind = found
            print(
                f"remark: llc-compile: {_where(dot)}the input's tl.dot has a layout ({kind}) "
                "that the SIMT lowering cannot lower; re-assigning every layout",
                file=sys.stderr,
            )
            StripLayoutsPass().apply(ctx, op)
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
        for stage in (
            DecomposeDotScaledPass(),
            OptimizeLayoutsPass(mma_version=version),
            PipelinePass(module_stages(op, self.num_stages)),
            LowerToSimtPass(),
        ):
            if isinstance(stage, PipelinePass):  # the layouts are chosen: the accumulators known
                for line in accumulator_remarks(op):
                    print(line, file=sys.stderr)
            stage.apply(ctx, op)
            verify_after(stage.name, op)


THREAD_REGISTERS = 255
"""32-bit registers one thread can address on sm_90."""


def accumulator_remarks(module: ModuleOp) -> list[str]:
    """A remark, at the dot, for every ``tl.warp_group_dot`` whose accumulator alone needs more
    32-bit registers per thread than a thread has (:data:`THREAD_REGISTERS`): ptxas then spills
    and serializes the wgmma pipeline (its C7511 "Potential Performance Loss"; Triton 3.9's kernel
    of the same tile gets it too). More warps split the tile.

    >>> accumulator_remarks(ModuleOp([]))
    []
    """
    from xdsl.dialects.builtin import IntegerAttr

    from llc.dialects.simt import bit_width
    from llc.dialects.tl import WarpGroupDotOp

    warps_attr = module.attributes.get("tl.num-warps")
    warps = warps_attr.value.data if isinstance(warps_attr, IntegerAttr) else 4
    out = []
    for dot in module.walk():
        if not isinstance(dot, WarpGroupDotOp):
            continue
        rt = dot.result.type
        assert isinstance(rt, TensorType)
        enc = rt.encoding
        if not hasattr(enc, "to_linear_layout"):
            continue
        shape = [1 << (int(x) - 1).bit_length() for x in rt.get_shape()]
        ll = enc.to_linear_layout(shape)  # type: ignore[union-attr]
        regs = ll.get_in_dim_size("register") * max(1, bit_width(rt.element_type) // 32)
        if regs <= THREAD_REGISTERS:
            continue
        more = warps * -(-regs // THREAD_REGISTERS)
        more = 1 << (more - 1).bit_length()
        out.append(
            f"remark: llc-compile: {_where(dot)}the {'x'.join(map(str, rt.get_shape()))} "
            f"accumulator needs {regs} registers per thread with {warps} warps, more than the "
            f"{THREAD_REGISTERS} a thread has: ptxas will spill it and serialize the wgmma "
            f"pipeline; use {more} warps (num_warps={more}) to split it"
        )
    return out


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
