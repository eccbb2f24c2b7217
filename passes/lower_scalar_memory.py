"""Lowering a scalar ``tl.load`` / ``tl.store`` (one pointer, no tensor) to SIMT code.

A scalar load (a CSR row's bounds, a cross-entropy target, a scale) is one ``simt.global_load``
of a one-element vector that every thread makes at the same address (the same value in every
thread, as Triton's uniform scalar); its ``mask``/``other`` are scalars too. A scalar store is
made by thread 0 alone: every thread holds the same value, and one write is the program's.

>>> _SCALAR_LOAD.split(":")[0]
'scalar tl.load'
"""

from __future__ import annotations

from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, IntegerType, VectorType, i1
from xdsl.ir import Attribute, Operation, SSAValue

from llc.dialects import simt, tl
from llc.passes.simt_lowering import FunctionLowering

__all__ = ["lower_scalar_load", "lower_scalar_store"]

_SCALAR_LOAD = "scalar tl.load: one address for every thread"


def _vector_of(lowering: FunctionLowering, value: SSAValue, element: Attribute) -> SSAValue:
    return lowering.emit(vector.BroadcastOp(value, VectorType(element, [1]))).results[0]


def _zero(element: Attribute) -> Attribute:
    if isinstance(element, IntegerType):
        return IntegerAttr(0, element)
    return FloatAttr(0.0, element)  # type: ignore[arg-type]


def lower_scalar_load(lowering: FunctionLowering, op: Operation) -> None:
    """``%v = tl.load %p[, %mask[, %other]] : !tl.ptr<T>``: one one-element global load."""
    assert isinstance(op, tl.LoadOp)
    element = op.result.type
    mask = lowering.get(op.mask) if op.mask is not None else lowering.const_scalar(i1, 1)
    if op.other is not None:
        other = _vector_of(lowering, lowering.get(op.other), element)
    else:
        zero = lowering.emit(arith.ConstantOp(_zero(element))).results[0]  # type: ignore[arg-type]
        other = _vector_of(lowering, zero, element)
    loaded = lowering.emit(simt.GlobalLoadOp(lowering.get(op.ptr), mask, other)).results[0]
    lowering.vals[op.result] = lowering.extract(loaded, 0)


def lower_scalar_store(lowering: FunctionLowering, op: Operation) -> None:
    """``tl.store %p, %v[, %mask] : !tl.ptr<T>``: thread 0 stores."""
    assert isinstance(op, tl.StoreOp)
    assert lowering.tid is not None
    first = lowering.emit(arith.CmpiOp(lowering.tid, lowering.const_index(0), "eq")).results[0]
    if op.mask is not None:
        first = lowering.emit(arith.AndIOp(lowering.get(op.mask), first)).results[0]
    value = _vector_of(lowering, lowering.get(op.value), op.value.type)
    lowering.emit(simt.GlobalStoreOp(value, lowering.get(op.ptr), first))
