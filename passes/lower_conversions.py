"""``llc-lower-conversions``: every ``tl.convert_layout`` becomes a SIMT function.

For each ``tl.convert_layout`` the pass asks :func:`llc.lowering.plan_conversion` for the
cheapest lowering (decided from the two linear layouts only: register renaming, warp shuffles or a
swizzled shared-memory round trip) and adds to the module a ``func.func`` that runs it in one
thread::

    func.func @cvt0(%in: vector<16xf32>) -> vector<16xf32> attributes {
        llc.src = tensor<64x64xf32, #blocked>, llc.dst = tensor<64x64xf32, #blocked1>,
        llc.num_warps = 4, llc.threads_per_warp = 32, llc.strategy = "shared"} { ... }

Its argument holds the thread's source registers (``vector<R x T>``, the source layout's register
order), its result the destination registers. The convert op stays (the tensor program keeps its
meaning) and names its lowering: ``{llc.lowered = @cvt0}``; whole-kernel lowering (issue 11)
inlines the body with :func:`materialize`. ``llc-run --entry cvt0`` runs the function in the SIMT
interpreter and checks every register.

Options: ``scratch-limit`` (bytes, default 65536): the largest scratch buffer of one conversion.
Round trips always run in as many rounds as the layouts allow (:mod:`llc.lowering`, "Scratch and
rounds"); a conversion that cannot fit the limit even then is an error at the op.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xdsl.context import Context
from xdsl.dialects import arith, func, gpu, vector
from xdsl.dialects.builtin import (
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    VectorType,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from llc.dialects import simt
from llc.dialects.diagnostics import error_at
from llc.dialects.tl import ConvertLayoutOp
from llc.errors import LayoutError
from llc.lowering import (
    DEFAULT_COMPUTE_CAPABILITY,
    LoweringPlan,
    SimtProgram,
    compute_capability_of,
    plan_conversion,
)
from llc.swizzle import DEFAULT_SCRATCH_LIMIT

if TYPE_CHECKING:
    from llc.dialects.simt_interpreter import ConversionCheck
    from llc.linear_layout import LinearLayout

__all__ = [
    "LowerConversionsPass",
    "LowerConvertLayout",
    "conversion_function",
    "element_type_for",
    "layouts_of",
    "lower_and_verify",
    "materialize",
    "run_lowered_conversion",
]


def element_type_for(typ: Attribute, bitwidth: int) -> Attribute:
    """The register element type: the tensor's, or ``iN`` when it is narrower than a byte or a
    pointer (``bitwidth`` is what the lowering moves)."""
    width = getattr(typ, "bitwidth", None)
    if isinstance(width, int) and width == bitwidth:
        return typ
    return IntegerType(bitwidth)


def materialize(
    program: SimtProgram,
    element_type: Attribute,
    source: SSAValue,
    arguments: tuple[SSAValue, ...] = (),
) -> tuple[list[Operation], SSAValue]:
    """The ops of ``program`` (value 0 is ``source``, its further inputs ``arguments``) and the
    SSA value of its output."""
    values: dict[int, SSAValue] = {
        0: source,
        **dict(zip(program.arguments, arguments, strict=True)),
    }
    ops: list[Operation] = []
    index = IndexType()

    def vec(t: tuple[object, ...]) -> VectorType:
        elem = {"T": element_type, "i32": IntegerType(32), "b16": IntegerType(16)}[str(t[2])]
        return VectorType(elem, [int(t[1])])  # type: ignore[arg-type]

    for ins in program.instrs:
        a = [values[x] for x in ins.args]
        op: Operation
        if ins.op == "const":
            op = arith.ConstantOp(IntegerAttr(ins.attr("value"), index))
        elif ins.op == "thread_id":
            op = gpu.ThreadIdOp(gpu.DimensionAttr(gpu.DimensionEnum.X))
        elif ins.op == "lane_id":
            op = gpu.LaneIdOp()
        elif ins.op == "andi":
            op = arith.AndIOp(a[0], a[1])
        elif ins.op == "xori":
            op = arith.XOrIOp(a[0], a[1])
        elif ins.op == "subi":
            op = arith.SubiOp(a[0], a[1])
        elif ins.op == "shrui":
            op = arith.ShRUIOp(a[0], a[1])
        elif ins.op == "shli":
            op = arith.ShLIOp(a[0], a[1])
        elif ins.op == "muli":
            op = arith.MuliOp(a[0], a[1])
        elif ins.op == "cmpne":
            op = arith.CmpiOp(a[0], a[1], "ne")
        elif ins.op == "select":
            op = arith.SelectOp(a[0], a[1], a[2])
        elif ins.op == "vperm":
            assert ins.type is not None
            op = vector.ShuffleOp(
                a[0],
                a[1],
                DenseArrayBase.from_list(i64, list(ins.attr("mask"))),
                result_type=vec(ins.type),
            )
        elif ins.op == "bitcast":
            assert ins.type is not None
            op = vector.BitcastOp(a[0], vec(ins.type))
        elif ins.op == "shfl":
            op = simt.ShuffleOp(ins.attr("mode"), a[0], a[1], ins.attr("c"), ins.attr("mask"))
        elif ins.op == "alloc":
            op = simt.SharedAllocOp(ins.attr("size"), ins.attr("alignment"))
        elif ins.op == "st":
            op = simt.SharedStoreOp(a[2], a[0], a[1])
        elif ins.op == "ld":
            assert ins.type is not None
            op = simt.SharedLoadOp(a[0], a[1], vec(ins.type))
        elif ins.op == "ldm":
            assert ins.type is not None
            op = simt.LdMatrixOp(a[0], a[1], ins.attr("count"), ins.attr("trans"), vec(ins.type))
        elif ins.op == "stm":
            op = simt.StMatrixOp(a[2], a[0], a[1], ins.attr("count"), ins.attr("trans"))
        elif ins.op == "barrier":
            op = gpu.BarrierOp()
        elif ins.op == "to_index":
            extract = vector.ExtractOp(a[0], [0], IntegerType(32))
            ops.append(extract)
            op = arith.IndexCastOp(extract.results[0], index)
        else:  # pragma: no cover - the planner emits only the ops above
            raise LayoutError(f"unknown SIMT program op {ins.op}")
        ops.append(op)
        if ins.result is not None:
            values[ins.result] = op.results[0]
    return ops, values[program.output]


def layouts_of(src: TensorType, dst: TensorType):
    """The linear layouts of a conversion's source and result types (shape padded to powers of
    two), or a :class:`LayoutError`."""
    shape = [1 << (int(s) - 1).bit_length() for s in src.get_shape()]
    encodings = (src.encoding, dst.encoding)
    if not all(hasattr(e, "to_linear_layout") for e in encodings):
        raise LayoutError("both sides of the conversion need a distributed layout")
    return (
        encodings[0].to_linear_layout(shape),  # type: ignore[union-attr]
        encodings[1].to_linear_layout(shape),  # type: ignore[union-attr]
    )


def conversion_function(
    name: str,
    src_type: TensorType,
    dst_type: TensorType,
    plan: LoweringPlan,
) -> func.FuncOp:
    """A ``func.func @name(vector<R_src x T>) -> vector<R_dst x T>`` running ``plan``."""
    elem = element_type_for(src_type.element_type, plan.bitwidth)
    in_type = VectorType(elem, [plan.src_registers])
    out_type = VectorType(elem, [plan.dst_registers])
    block = Block(arg_types=[in_type])
    ops, out = materialize(plan.program, elem, block.args[0])
    block.add_ops([*ops, func.ReturnOp(out)])
    f = func.FuncOp(name, ([in_type], [out_type]), Region(block))
    f.attributes.update(
        {
            "llc.src": src_type,
            "llc.dst": dst_type,
            "llc.num_warps": IntegerAttr(plan.num_warps, 32),
            "llc.threads_per_warp": IntegerAttr(plan.threads_per_warp, 32),
            "llc.strategy": StringAttr(plan.strategy),
        }
    )
    return f


def module_capability(module: ModuleOp) -> int:
    """The compute capability of ``module``'s ``tl.target`` (:func:`compute_capability_of`;
    ``cuda:90`` when it has none): whether a plan may use ``ldmatrix``/``stmatrix``."""
    target = module.attributes.get("tl.target")
    return compute_capability_of(target.data if isinstance(target, StringAttr) else None)


def _bitwidth(typ: Attribute) -> int:
    from llc.cost import dtype_bitwidth

    return dtype_bitwidth(str(typ))


@dataclass
class LowerConvertLayout(RewritePattern):
    """One ``tl.convert_layout``: plan it, append its SIMT function to ``module``, name it."""

    module: ModuleOp
    scratch_limit: int
    taken: set[str] = field(default_factory=set)
    compute_capability: int = DEFAULT_COMPUTE_CAPABILITY

    @op_type_rewrite_pattern
    def match_and_rewrite(self, cvt: ConvertLayoutOp, rewriter: PatternRewriter) -> None:
        if "llc.lowered" in cvt.attributes:
            return
        src_type, dst_type = cvt.src.type, cvt.result.type
        assert isinstance(src_type, TensorType) and isinstance(dst_type, TensorType)
        try:
            src_ll, dst_ll = layouts_of(src_type, dst_type)
            plan = plan_conversion(
                src_ll,
                dst_ll,
                _bitwidth(src_type.element_type),
                self.scratch_limit,
                compute_capability=self.compute_capability,
            )
        except LayoutError as err:
            raise error_at(cvt, f"cannot lower this conversion: {err}") from None
        counter = 0
        while f"cvt{counter}" in self.taken:
            counter += 1
        name = f"cvt{counter}"
        self.taken.add(name)
        function = conversion_function(name, src_type, dst_type, plan)
        rewriter.insert(function, InsertPoint.at_end(self.module.body.block))
        cvt.attributes["llc.lowered"] = SymbolRefAttr(name)
        rewriter.notify_op_modified(cvt)


@dataclass(frozen=True)
class LowerConversionsPass(ModulePass):
    """``-p 'llc-lower-conversions{scratch-limit=65536}'``."""

    name = "llc-lower-conversions"
    scratch_limit: int = DEFAULT_SCRATCH_LIMIT

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        taken = {
            o.sym_name.data
            for o in op.walk()
            if isinstance(getattr(o, "sym_name", None), StringAttr)
        }
        pattern = LowerConvertLayout(op, self.scratch_limit, taken, module_capability(op))
        PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(op)


def run_lowered_conversion(module: ModuleOp, function: func.FuncOp):
    """Run a function made by this pass in the SIMT interpreter on distinct values and check
    every register (:func:`llc.dialects.simt_interpreter.check_conversion`).

    Reads the layouts from its ``llc.src`` / ``llc.dst`` attributes; a :class:`LayoutError` says
    what is missing.
    """
    from llc.dialects.simt_interpreter import check_conversion

    src_type = function.attributes.get("llc.src")
    dst_type = function.attributes.get("llc.dst")
    if not isinstance(src_type, TensorType) or not isinstance(dst_type, TensorType):
        raise LayoutError(
            f"@{function.sym_name.data} is not a lowered conversion (it needs llc.src and "
            "llc.dst tensor type attributes)"
        )
    src_ll, dst_ll = layouts_of(src_type, dst_type)
    return check_conversion(module, function, src_ll, dst_ll, _bitwidth(src_type.element_type))


def lower_and_verify(
    src_ll: LinearLayout,
    dst_ll: LinearLayout,
    dtype: str,
    scratch_limit: int = DEFAULT_SCRATCH_LIMIT,
    compute_capability: int = DEFAULT_COMPUTE_CAPABILITY,
) -> tuple[LoweringPlan, ConversionCheck]:
    """Plan ``src_ll -> dst_ll`` for elements of ``dtype`` (``"f16"``, ``"i8"``, ...) on a target of
    ``compute_capability`` (90: sm_90), lower it to a SIMT function and run it: ``(plan, check)``
    (:class:`llc.lowering.LoweringPlan`, :class:`llc.dialects.simt_interpreter.ConversionCheck`).
    Layout problems raise :class:`LayoutError`."""
    from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float64Type

    from llc.cost import dtype_bitwidth
    from llc.dialects.simt_interpreter import check_conversion

    bitwidth = dtype_bitwidth(dtype)
    floats = {"f16": Float16Type(), "bf16": BFloat16Type(), "f32": Float32Type()}
    floats["f64"] = Float64Type()
    elem = floats.get(dtype.strip(), IntegerType(bitwidth))
    plan = plan_conversion(
        src_ll, dst_ll, bitwidth, scratch_limit, compute_capability=compute_capability
    )
    shape = [size for _, size in src_ll.out_dims]
    tensor = TensorType(elem, shape)
    function = conversion_function("cvt", tensor, tensor, plan)
    module = ModuleOp([function])
    return plan, check_conversion(module, function, src_ll, dst_ll, bitwidth)
