"""The ``simt`` dialect: what one CTA executes after layout conversions are lowered.

A tensor becomes, in each thread, one ``vector<R x T>`` holding its registers in the layout's
register order. Thread identity, index arithmetic, register moves and barriers use upstream
dialects (``gpu.thread_id``/``gpu.lane_id``/``gpu.subgroup_id``/``gpu.barrier``, ``arith``,
``vector.shuffle``/``vector.extract``/``vector.insert``/``vector.bitcast``, ``arith.select``);
``simt`` adds only what none of them models:

* ``simt.shuffle``: PTX ``shfl.sync`` (modes ``idx``, ``bfly`` (xor), ``up``, ``down``; the ``c``
  operand packing the clamp lane and segment mask; the member mask), on 32 bits or less;
* ``simt.shared_alloc``: the CTA's scratch buffer, ``!simt.smem<BYTES, align A>``;
* ``simt.shared_store`` / ``simt.shared_load``: 8 to 128 bits per thread at a per-thread byte
  address (``st.shared``/``ld.shared`` with ``.v2``/``.v4``).

::

    %s = simt.shared_alloc : !simt.smem<4096, align 16>
    simt.shared_store %v, %s[%addr] : vector<4xf32>, !simt.smem<4096, align 16>
    %w = simt.shared_load %s[%addr] : !simt.smem<4096, align 16> -> vector<4xf32>
    %x = simt.shuffle "bfly" %y, %lane c = 31 mask = -1 : vector<1xf32>
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I32,
    I64,
    IndexType,
    IntAttr,
    IntegerAttr,
    StringAttr,
    VectorType,
)
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

__all__ = [
    "SHUFFLE_MODES",
    "SIMT",
    "SharedAllocOp",
    "SharedLoadOp",
    "SharedMemoryType",
    "SharedStoreOp",
    "ShuffleOp",
    "bit_width",
]

SHUFFLE_MODES = ("idx", "bfly", "up", "down")
"""``shfl.sync`` modes (``bfly`` is the xor mode)."""


def bit_width(typ: Attribute) -> int:
    """Bits of a scalar or vector type (index counts as 64).

    >>> from xdsl.dialects.builtin import f16
    >>> bit_width(VectorType(f16, [4]))
    64
    """
    if isinstance(typ, VectorType):
        count = 1
        for d in typ.get_shape():
            count *= d
        return count * bit_width(typ.element_type)
    if isinstance(typ, IndexType):
        return 64
    width = getattr(typ, "bitwidth", None)
    if width is None:
        width = getattr(typ, "width", None)
        width = width.data if width is not None else None
    if not isinstance(width, int):
        raise VerifyException(f"{typ} has no bit width")
    return width


@irdl_attr_definition
class SharedMemoryType(ParametrizedAttribute, TypeAttribute):
    """``!simt.smem<4096, align 16>``: a shared-memory buffer of 4096 bytes, 16-byte aligned."""

    name = "simt.smem"
    size: IntAttr
    alignment: IntAttr

    def __init__(self, size: int, alignment: int):
        super().__init__(IntAttr(size), IntAttr(alignment))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            size = parser.parse_integer(allow_negative=False)
            parser.parse_punctuation(",")
            parser.parse_keyword("align")
            alignment = parser.parse_integer(allow_negative=False)
        return (IntAttr(size), IntAttr(alignment))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.size.data}, align {self.alignment.data}>")

    def verify(self) -> None:
        if self.size.data < 1:
            raise VerifyException(f"simt.smem: size {self.size.data} must be positive")
        a = self.alignment.data
        if a < 1 or a & (a - 1):
            raise VerifyException(f"simt.smem: alignment {a} must be a power of two")


@irdl_op_definition
class ShuffleOp(IRDLOperation):
    """``%r = simt.shuffle "bfly" %v, %b c = 31 mask = -1 : vector<1xf32>``: PTX ``shfl.sync``.

    Lane ``i`` reads ``%v`` of lane ``j`` computed from ``%b`` and ``c`` exactly as PTX does
    (``c`` packs the clamp value in bits 0-4 and the segment mask in bits 8-12; for warps of 64
    lanes bits 0-5 and 8-13); a lane whose ``j`` falls outside its segment or past the clamp
    reads its own value. Both lanes must be in ``mask``.
    """

    name = "simt.shuffle"
    T: ClassVar = VarConstraint("T", base(VectorType))
    mode = prop_def(StringAttr)
    value = operand_def(T)
    lane = operand_def(IndexType)
    c = prop_def(IntegerAttr[I32])
    mask = prop_def(IntegerAttr[I64])
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = (
        "$mode $value `,` $lane `c` `=` $c `mask` `=` $mask attr-dict `:` type($result)"
    )

    def __init__(self, mode: str, value: SSAValue, lane: SSAValue, c: int, mask: int = -1):
        super().__init__(
            operands=[value, lane],
            result_types=[value.type],
            properties={
                "mode": StringAttr(mode),
                "c": IntegerAttr(c, 32),
                "mask": IntegerAttr(mask, 64),
            },
        )

    def verify_(self) -> None:
        if self.mode.data not in SHUFFLE_MODES:
            raise VerifyException(
                f"shuffle mode '{self.mode.data}' is not one of {', '.join(SHUFFLE_MODES)}"
            )
        bits = bit_width(self.value.type)
        if bits > 32:
            raise VerifyException(f"shfl.sync moves 32 bits per lane, {self.value.type} has {bits}")


def _check_access(op: IRDLOperation, value_type: Attribute, smem: Attribute) -> None:
    bits = bit_width(value_type)
    if bits not in (8, 16, 32, 64, 128):
        raise VerifyException(
            f"a shared-memory access moves 8, 16, 32, 64 or 128 bits per thread, "
            f"{value_type} has {bits}"
        )
    assert isinstance(smem, SharedMemoryType)
    if bits // 8 > smem.size.data:
        raise VerifyException(f"{value_type} does not fit in {smem}")


@irdl_op_definition
class SharedAllocOp(IRDLOperation):
    """``%s = simt.shared_alloc : !simt.smem<4096, align 16>``: the CTA's scratch buffer."""

    name = "simt.shared_alloc"
    result = result_def(SharedMemoryType)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, size: int, alignment: int):
        super().__init__(result_types=[SharedMemoryType(size, alignment)])


@irdl_op_definition
class SharedStoreOp(IRDLOperation):
    """``simt.shared_store %v, %s[%addr] : vector<4xf32>, !simt.smem<...>`` (``st.shared.v4``).

    ``%addr`` is the thread's byte address; it must be a multiple of the access size.
    """

    name = "simt.shared_store"
    value = operand_def(VectorType)
    smem = operand_def(SharedMemoryType)
    addr = operand_def(IndexType)
    assembly_format = "$value `,` $smem `[` $addr `]` attr-dict `:` type($value) `,` type($smem)"

    def __init__(self, value: SSAValue, smem: SSAValue, addr: SSAValue):
        super().__init__(operands=[value, smem, addr])

    def verify_(self) -> None:
        _check_access(self, self.value.type, self.smem.type)


@irdl_op_definition
class SharedLoadOp(IRDLOperation):
    """``%v = simt.shared_load %s[%addr] : !simt.smem<...> -> vector<4xf32>`` (``ld.shared``)."""

    name = "simt.shared_load"
    smem = operand_def(SharedMemoryType)
    addr = operand_def(IndexType)
    result = result_def(VectorType)
    assembly_format = "$smem `[` $addr `]` attr-dict `:` type($smem) `->` type($result)"

    def __init__(self, smem: SSAValue, addr: SSAValue, result_type: VectorType):
        super().__init__(operands=[smem, addr], result_types=[result_type])

    def verify_(self) -> None:
        _check_access(self, self.result.type, self.smem.type)


SIMT = Dialect(
    "simt",
    [ShuffleOp, SharedAllocOp, SharedStoreOp, SharedLoadOp],
    [SharedMemoryType],
)
