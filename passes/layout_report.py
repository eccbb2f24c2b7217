"""The whole-kernel figure of a laid-out module (``llc-opt --layout-report``).

Per function, under llc's cost model (issue cycles per warp, :mod:`llc.passes.layout_cost`):

* every ``tl.convert_layout`` left that changes the layout: its cost (``conversion_cost`` for its
  shape, element type and the module's compute capability) and its loop weight (the product of
  the trip counts of the loops around it, :func:`llc.passes.layout_solver.block_weight`);
* every global load and store of a tensor: its vector width, instructions and 32-byte sectors
  (``access_cost`` in the layout of its pointer, with the pointer's axis info), and its weight;
* every ``tl.reduce``: its cost in its operand's layout (:func:`llc.cost.reduction_cost`:
  shuffles per lane bit of the axis, a shared-memory exchange when warps split it) and weight;
* the total: the sum of cost times weight, the figure the layout solver minimizes.

>>> from xdsl.dialects.builtin import ModuleOp
>>> format_report(layout_report(ModuleOp([])))
''
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation, SSAValue

from llc.dialects.layout_rules import is_tensor
from llc.dialects.tl import ConvertLayoutOp, encoding_of, shape_of
from llc.passes.layout_assignment import element_bits, walk_ops
from llc.passes.layout_cost import access_cost, capability_of, conversion_cost, folded_reduction
from llc.passes.layout_solver import block_weight

__all__ = [
    "AccessLine",
    "ConversionLine",
    "FunctionReport",
    "ReductionLine",
    "format_report",
    "layout_report",
]


@dataclass(frozen=True)
class ConversionLine:
    """One conversion left in a function."""

    value: str
    type: str
    src: str
    dst: str
    cost: float
    weight: float


@dataclass(frozen=True)
class AccessLine:
    """One global load or store."""

    op: str
    value: str
    type: str
    width_bits: int
    instructions: int
    sectors: int
    cost: float
    weight: float


@dataclass(frozen=True)
class ReductionLine:
    """One ``tl.reduce``: its operand, the layout it runs in and its cost per execution."""

    value: str
    type: str
    layout: str
    axis: int
    cost: float
    weight: float


@dataclass
class FunctionReport:
    """The figure of one function: its conversions, its accesses and their weighted total."""

    name: str
    conversions: list[ConversionLine] = field(default_factory=list)
    accesses: list[AccessLine] = field(default_factory=list)
    reductions: list[ReductionLine] = field(default_factory=list)

    @property
    def conversion_total(self) -> float:
        """Weighted cost of the conversions."""
        return sum(c.cost * c.weight for c in self.conversions)

    @property
    def access_total(self) -> float:
        """Weighted cost of the memory accesses."""
        return sum(a.cost * a.weight for a in self.accesses)

    @property
    def reduction_total(self) -> float:
        """Weighted cost of the reductions."""
        return sum(r.cost * r.weight for r in self.reductions)

    @property
    def total(self) -> float:
        """The whole function's figure.

        >>> FunctionReport("f", [ConversionLine("%x", "64xf32", "a", "b", 10.0, 8.0)]).total
        80.0
        """
        return self.conversion_total + self.access_total + self.reduction_total


def _label(v: SSAValue) -> str:
    return f"%{v.name_hint}" if v.name_hint else f"<{getattr(v.owner, 'name', 'arg')} result>"


def _kind(enc: Attribute | None) -> str:
    layout = getattr(enc, "layout", None)
    kind = getattr(layout, "kind", None)
    if kind == "slice":
        return f"slice<{layout.dim}, {_kind_of(layout.parent)}>"  # type: ignore[union-attr]
    if kind == "dot_op":
        return f"dot_op<{layout.op_idx}, {_kind_of(layout.parent)}>"  # type: ignore[union-attr]
    return str(kind) if kind else str(enc)


def _kind_of(layout: object) -> str:
    kind = getattr(layout, "kind", "?")
    if kind in ("blocked",):
        spt = getattr(layout, "size_per_thread", ())
        order = getattr(layout, "order", ())
        return f"blocked spt={list(spt)} order={list(order)}"
    return str(kind)


def _describe(enc: Attribute | None) -> str:
    layout = getattr(enc, "layout", None)
    if getattr(layout, "kind", None) == "blocked":
        return _kind_of(layout)
    return _kind(enc)


def _type(v: SSAValue) -> str:
    shape = "x".join(str(s) for s in shape_of(v.type))
    element = getattr(v.type, "element_type", "?")
    return f"{shape}x{element}"


def layout_report(module: ModuleOp) -> list[FunctionReport]:
    """The figure of every function of a laid-out ``module``."""
    from llc.passes.axis_info import AxisAnalysis

    reports: list[FunctionReport] = []
    axis = AxisAnalysis()
    for func in module.walk():  # nested modules' functions too
        if not isinstance(func, FuncOp) or not func.body.blocks:
            continue
        report = FunctionReport(func.sym_name.data)
        capability = capability_of(func)
        for op in walk_ops(func):
            if isinstance(op, ConvertLayoutOp):
                src, dst = encoding_of(op.src.type), encoding_of(op.result.type)
                if src is None or dst is None or src == dst:
                    continue
                cost = conversion_cost(
                    src, dst, shape_of(op.src.type), element_bits(op.src.type), capability
                )
                report.conversions.append(
                    ConversionLine(
                        _label(op.result),
                        _type(op.src),
                        _describe(src),
                        _describe(dst),
                        cost,
                        block_weight(op.parent_block()),
                    )
                )
            elif (line := _staged(op, capability)) is not None:
                report.conversions.append(line)
            elif op.name in ("tl.load", "tl.store") and is_tensor(op.operands[0]):
                report.accesses.append(_access(op, axis))
            elif op.name == "tl.reduce" and (line := _reduction(op)) is not None:
                report.reductions.append(line)
        reports.append(report)
    return reports


def _staged(op: Operation, capability: int) -> ConversionLine | None:
    """A ``tl.local_load`` of a buffer that a ``tl.local_alloc`` filled from registers (a dot
    operand staged through shared memory, Triton's ReduceDataDuplication): a conversion from
    the stored value's layout to the loaded one, priced as the ``convert_layout`` it replaces,
    so that staging leaves the figure as it was, and a kernel that stages an operand pays for
    it like one that converts or loads it in place."""
    if op.name != "tl.local_load":
        return None
    alloc = op.operands[0].owner
    if not isinstance(alloc, Operation) or alloc.name != "tl.local_alloc" or not alloc.operands:
        return None
    src_value = alloc.operands[0]
    src, dst = encoding_of(src_value.type), encoding_of(op.results[0].type)
    if not is_tensor(src_value) or src is None or dst is None or src == dst:
        return None
    return ConversionLine(
        _label(op.results[0]),
        _type(src_value),
        _describe(src),
        f"{_describe(dst)} (staged)",
        conversion_cost(
            src, dst, shape_of(src_value.type), element_bits(src_value.type), capability
        ),
        block_weight(op.parent_block()),
    )


def _access(op: Operation, axis: object) -> AccessLine:
    ptr = op.operands[0]
    data = op.results[0] if op.name == "tl.load" else op.operands[1]
    enc = encoding_of(ptr.type)
    info = axis.info(ptr)  # type: ignore[attr-defined]
    shape = shape_of(ptr.type)
    if enc is None:
        from llc.dialects.tl import hardware_config
        from llc.passes.layout_assignment import default_blocked

        warps, lanes = hardware_config(op) or (4, 32)
        enc = default_blocked(shape, warps, lanes)
    cost = access_cost(enc, shape, element_bits(data.type), info.contiguity, info.divisibility)
    return AccessLine(
        op.name.removeprefix("tl."),
        _label(data),
        _type(data),
        cost.width_bits,
        cost.instructions,
        cost.sectors,
        cost.total,
        block_weight(op.parent_block()),
    )


def _reduction(op: Operation) -> ReductionLine | None:
    from llc.cost import reduction_cost
    from llc.errors import LayoutError

    axis = op.axis.value.data  # type: ignore[attr-defined]
    cost = 0.0
    operands = [v for v in op.operands if is_tensor(v)]
    if not operands or encoding_of(operands[0].type) is None:
        return None
    for v in operands:
        try:
            cost += reduction_cost(
                encoding_of(v.type), shape_of(v.type), axis, element_bits(v.type)
            )
        except LayoutError:
            return None
    if folded_reduction(op, [encoding_of(v.type) for v in operands]):
        cost = 0.0  # constants reduced in registers: LLVM folds the whole reduction
    first = operands[0]
    return ReductionLine(
        _label(first),
        _type(first),
        _describe(encoding_of(first.type)),
        axis,
        cost,
        block_weight(op.parent_block()),
    )


def _num(x: float) -> str:
    return f"{x:g}"


def format_report(reports: list[FunctionReport]) -> str:
    """The report as ``//`` comment lines (the IR printed after it stays parseable)."""
    lines: list[str] = []
    for r in reports:
        lines.append(f"// layout report @{r.name}")
        for c in r.conversions:
            lines.append(
                f"//   convert {c.value} {c.type}: {c.src} -> {c.dst}: cost {_num(c.cost)} "
                f"x weight {_num(c.weight)} = {_num(c.cost * c.weight)}"
            )
        for a in r.accesses:
            lines.append(
                f"//   {a.op} {a.value} {a.type}: {a.width_bits} bits x {a.instructions}, "
                f"{a.sectors} sectors: cost {_num(a.cost)} x weight {_num(a.weight)} = "
                f"{_num(a.cost * a.weight)}"
            )
        for d in r.reductions:
            lines.append(
                f"//   reduce {d.value} {d.type} axis {d.axis}: {d.layout}: cost {_num(d.cost)} "
                f"x weight {_num(d.weight)} = {_num(d.cost * d.weight)}"
            )
        total = (
            f"//   total {_num(r.total)}: {len(r.conversions)} conversions "
            f"{_num(r.conversion_total)}, {len(r.accesses)} accesses {_num(r.access_total)}"
        )
        if r.reductions:
            total += f", {len(r.reductions)} reductions {_num(r.reduction_total)}"
        lines.append(total)
    return "\n".join(lines) + ("\n" if lines else "")
