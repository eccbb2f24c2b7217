"""``llc-decompose-dot-scaled``: ``tl.dot_scaled`` as unpack + scale + an ordinary ``tl.dot``.

As Triton's DecomposeScaledBlocked, on layout-free IR (``llc-compile`` runs it first), each MX
operand becomes a tensor of its values in the dot's compute type:

* **elements**: e2m1 bytes unpack with ``tl.fp4_to_fp`` (a layout change, lowered in
  registers); e4m3 / e5m2 codes decode with integer ops (``(mag << (23 - M)) + ((127 - bias)
  << 23)`` as f32 bits for normal codes, ``mag * 2^(1 - bias - M)`` for subnormal ones, NaN and
  infinities by the OCP rules, the sign by a negation); bf16 / fp16 operands are widened to f32;
* **scales**: each e8m0 code ``s`` becomes the f32 ``2^(s - 127)`` by its bits (``s << 23``;
  ``s = 0`` is the subnormal ``0x00400000``; ``s = 255`` is NaN, as OCP MX says), is repeated
  over its 32 elements along K (``expand_dims``, ``broadcast``, ``reshape``; B's scales are
  ``N x K/32``, transposed first) and multiplies the elements (exact: a power of two);
* **dot**: the scaled operands are rounded to the compute type, f16 when an operand is fp16,
  else bf16 (every e2m1, e4m3, e5m2 and bf16 value times a scale is exact in bf16 unless it
  leaves bf16's range), and an ordinary ``tl.dot`` accumulates in f32 (``mma.sync`` after
  ``llc-compile``).

The result equals the OCP reference (``llc.mxfp``, the tensor-level semantics of
``tl.dot_scaled``) up to the f32 accumulation order, and exactly where an operand value is NaN.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    IntegerAttr,
    ModuleOp,
    TensorType,
    bf16,
    f16,
    f32,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from llc.dialects import tl
from llc.dialects.diagnostics import error_at

__all__ = ["DecomposeDotScaledPass", "decompose_dot_scaled"]

#: format -> (exponent bits, mantissa bits, bias) of the f8 element formats.
_F8 = {"e4m3": (4, 3, 7), "e5m2": (5, 2, 15)}


class _Builder:
    """Inserts ops before one ``tl.dot_scaled``."""

    def __init__(self, anchor: Operation) -> None:
        self.anchor = anchor

    def add(self, op: Operation) -> SSAValue:
        Rewriter.insert_op(op, InsertPoint.before(self.anchor))
        return op.results[0]

    def const(self, shape: tuple[int, ...], elem: Attribute, value: float | int) -> SSAValue:
        typ = TensorType(elem, list(shape))
        return self.add(arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(typ, [value])))

    def ints(self, op: type[Operation], a: SSAValue, value: int) -> SSAValue:
        shape = tl.shape_of(a.type)
        return self.add(op(a, self.const(shape, i32, value)))  # type: ignore[call-arg]

    def cmp(self, predicate: str, a: SSAValue, value: int) -> SSAValue:
        return self.add(tl.CmpiOp(predicate, a, self.const(tl.shape_of(a.type), i32, value)))

    def cast(self, op: type[Operation], a: SSAValue, elem: Attribute) -> SSAValue:
        typ = TensorType(elem, list(tl.shape_of(a.type)))
        return self.add(op(a, typ))  # type: ignore[call-arg]

    def select(self, cond: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.add(tl.SelectOp(cond, a, b))


def _decode_f8(b: _Builder, codes: SSAValue, fmt: str) -> SSAValue:
    """f32 values of the i8 codes of an OCP f8 format."""
    ebits, mbits, bias = _F8[fmt]
    shape = tl.shape_of(codes.type)
    c = b.cast(tl.ExtUIOp, codes, i32)
    mag = b.ints(arith.AndIOp, c, (1 << (ebits + mbits)) - 1)
    exp = b.ints(arith.ShRUIOp, mag, mbits)
    normal_bits = b.ints(arith.AddiOp, b.ints(arith.ShLIOp, mag, 23 - mbits), (127 - bias) << 23)
    normal = b.cast(tl.BitcastOp, normal_bits, f32)
    sub = b.add(
        arith.MulfOp(b.cast(tl.UIToFPOp, mag, f32), b.const(shape, f32, 2.0 ** (1 - bias - mbits)))
    )
    value = b.select(b.cmp("eq", exp, 0), sub, normal)
    if fmt == "e4m3":  # S.1111.111 is NaN, no infinities
        # NaN by its bits: a NaN float constant prints as a hex blob of every element
        nan = b.cast(tl.BitcastOp, b.const(shape, i32, 0x7FC00000), f32)
        value = b.select(b.cmp("eq", mag, 0x7F), nan, value)
    else:  # IEEE-like: all-ones exponent is inf (mantissa 0) or NaN
        man = b.ints(arith.AndIOp, mag, (1 << mbits) - 1)
        special = b.cast(
            tl.BitcastOp,
            b.ints(arith.OrIOp, b.ints(arith.ShLIOp, man, 23 - mbits), 0x7F800000),
            f32,
        )
        value = b.select(b.cmp("eq", exp, (1 << ebits) - 1), special, value)
    negative = b.cmp("ne", b.ints(arith.AndIOp, c, 0x80), 0)
    return b.select(negative, b.add(arith.NegfOp(value)), value)


def _scales(b: _Builder, scale: SSAValue, side: str, k: int) -> SSAValue:
    """The f32 factors ``2^(s - 127)`` of every element of the ``side`` operand (``M x K`` for A,
    ``K x N`` for B); each scale covers ``K / groups`` consecutive elements along K (32 or 16)."""
    shape = tl.shape_of(scale.type)
    s = b.cast(tl.ExtUIOp, scale, i32)
    bits = b.ints(arith.ShLIOp, s, 23)
    bits = b.select(b.cmp("eq", s, 0), b.const(shape, i32, 0x00400000), bits)
    bits = b.select(b.cmp("eq", s, 255), b.const(shape, i32, 0x7FC00000), bits)
    factor = b.cast(tl.BitcastOp, bits, f32)
    rows, groups = shape
    group = k // groups  # 32 (OCP MX) or 16 elements along K share a scale
    if side == "b":
        factor = b.add(tl.TransOp(factor, [1, 0], TensorType(f32, [groups, rows])))
        wide = b.add(tl.ExpandDimsOp(factor, 1, TensorType(f32, [groups, 1, rows])))
        wide = b.add(tl.BroadcastOp(wide, TensorType(f32, [groups, group, rows])))
        return b.add(tl.ReshapeOp(wide, TensorType(f32, [k, rows])))
    wide = b.add(tl.ExpandDimsOp(factor, 2, TensorType(f32, [rows, groups, 1])))
    wide = b.add(tl.BroadcastOp(wide, TensorType(f32, [rows, groups, group])))
    return b.add(tl.ReshapeOp(wide, TensorType(f32, [rows, k])))


def _operand(b: _Builder, op: tl.DotScaledOp, side: str, compute: Attribute) -> SSAValue:
    value = op.a if side == "a" else op.b
    scale = op.a_scale if side == "a" else op.b_scale
    fmt = (op.lhs if side == "a" else op.rhs).data
    k = op.k_of(side)
    axis = 1 if side == "a" else 0
    shape = list(tl.shape_of(value.type))
    if fmt == "e2m1":
        shape[axis] = k
        unpack = tl.Fp4ToFpOp.create(
            operands=[value],
            result_types=[TensorType(f32, shape)],
            properties={"axis": IntegerAttr(axis, i32)},
        )
        elements = b.add(unpack)
    elif fmt in _F8:
        elements = _decode_f8(b, value, fmt)
    else:
        elem = tl.element_type_of(value.type)
        elements = value if elem == f32 else b.cast(arith.ExtFOp, value, f32)
    if scale is None:  # an operand without scales
        scaled = elements
    else:
        scaled = b.add(arith.MulfOp(elements, _scales(b, scale, side, k)))
    return b.cast(arith.TruncFOp, scaled, compute)


def decompose_dot_scaled(op: tl.DotScaledOp) -> None:
    """Replace ``op`` (layout-free) by its decomposition; see the module docstring.

    >>> from xdsl.dialects.builtin import DenseArrayBase, IntegerType, StringAttr, i32
    >>> from xdsl.ir import Block
    >>> i8 = IntegerType(8)
    >>> types = [TensorType(i8, [16, 16]), TensorType(i8, [16, 1]), TensorType(i8, [32, 16]),
    ...          TensorType(i8, [16, 1]), TensorType(f32, [16, 16])]
    >>> block = Block(arg_types=types)
    >>> dot = tl.DotScaledOp.create(operands=list(block.args), result_types=[types[4]],
    ...     properties={"lhs": StringAttr("e2m1"), "rhs": StringAttr("e4m3"),
    ...                 "operandSegmentSizes": DenseArrayBase.from_list(i32, [1, 1, 1, 1, 1])})
    >>> block.add_op(dot)
    >>> decompose_dot_scaled(dot)
    >>> [o.name for o in block.ops if o.name.startswith("tl.")][-1]
    'tl.dot'
    """
    for value in (*op.operands, op.result):
        if tl.encoding_of(value.type) is not None:
            raise error_at(op, "llc-decompose-dot-scaled runs before layout assignment")
    fmts = (op.lhs.data, op.rhs.data)
    compute: Attribute = f16 if "fp16" in fmts else bf16
    b = _Builder(op)
    a = _operand(b, op, "a", compute)
    bb = _operand(b, op, "b", compute)
    acc = op.acc
    out_elem = tl.element_type_of(op.result.type)
    if not isinstance(out_elem, Float32Type):
        acc = b.cast(arith.ExtFOp, acc, f32)
    result = b.add(tl.DotOp(a, bb, acc))
    if not isinstance(out_elem, Float32Type):
        if not isinstance(out_elem, Float16Type | BFloat16Type):
            raise error_at(op, f"a {out_elem} result is not supported (f32, f16 or bf16)")
        result = b.cast(arith.TruncFOp, result, out_elem)
    op.result.replace_all_uses_with(result)
    Rewriter.erase_op(op)


@dataclass(frozen=True)
class DecomposeDotScaledPass(ModulePass):
    """``-p llc-decompose-dot-scaled``."""

    name = "llc-decompose-dot-scaled"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for dot in [o for o in op.walk() if isinstance(o, tl.DotScaledOp)]:
            decompose_dot_scaled(dot)
