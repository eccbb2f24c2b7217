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
  address (``st.shared``/``ld.shared`` with ``.v2``/``.v4``);
* ``simt.ldmatrix`` / ``simt.stmatrix``: PTX ``ldmatrix``/``stmatrix`` ``.m8n8.x1/.x2/.x4`` with
  ``.trans``, 16-bit elements (the lowering does not emit them yet).

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
    UnitAttr,
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
    opt_prop_def,
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
    "LdMatrixOp",
    "SharedAllocOp",
    "SharedLoadOp",
    "SharedMemoryType",
    "SharedStoreOp",
    "ShuffleOp",
    "StMatrixOp",
    "bit_width",
    "wgmma_sources",
]

SHUFFLE_MODES = ("idx", "bfly", "up", "down")
"""``shfl.sync`` modes (``bfly`` is the xor mode)."""


def bit_width(typ: Attribute) -> int:
    """Bits a scalar or vector type occupies in memory and in shuffles: index counts as 64, and
    an ``i1`` as 8 (a mask element takes a byte, as in PTX, which has no 1-bit storage).

    >>> from xdsl.dialects.builtin import f16, i1
    >>> bit_width(VectorType(f16, [4])), bit_width(VectorType(i1, [4]))
    (64, 32)
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
    return 8 if width == 1 else width


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


def _check_width(space: str, value_type: Attribute) -> int:
    """The bits one thread's access to ``space`` memory moves; 8 to 128, a power of two."""
    bits = bit_width(value_type)
    if bits not in (8, 16, 32, 64, 128):
        raise VerifyException(
            f"a {space} access moves 8, 16, 32, 64 or 128 bits per thread, {value_type} has {bits}"
        )
    return bits


def _check_access(op: IRDLOperation, value_type: Attribute, smem: Attribute) -> None:
    bits = _check_width("shared-memory", value_type)
    assert isinstance(smem, SharedMemoryType)
    if bits // 8 > smem.size.data:
        raise VerifyException(f"{value_type} does not fit in {smem}")


@irdl_op_definition
class SharedAllocOp(IRDLOperation):
    """``%s = simt.shared_alloc : !simt.smem<4096, align 16>``: the CTA's scratch buffer.

    ``offset 8192`` (set by :func:`llc.passes.shared_alloc.allocate_shared`) places it in the
    CTA's one shared arena, where buffers whose lifetimes do not meet share bytes; without it
    the buffer is a shared array of its own. The offset is a multiple of the alignment.

    >>> SharedAllocOp(4096, 1024, offset=8192).offset.value.data
    8192
    """

    name = "simt.shared_alloc"
    result = result_def(SharedMemoryType)
    offset = opt_prop_def(IntegerAttr[I64])
    assembly_format = "attr-dict `:` type($result) (`offset` $offset^)?"

    def __init__(self, size: int, alignment: int, offset: int | None = None):
        super().__init__(
            result_types=[SharedMemoryType(size, alignment)],
            properties={} if offset is None else {"offset": IntegerAttr(offset, 64)},
        )

    @property
    def byte_range(self) -> tuple[int, int] | None:
        """``[offset, offset + size)`` in the arena, or ``None`` when the buffer has no offset.

        >>> SharedAllocOp(64, 16, offset=128).byte_range, SharedAllocOp(64, 16).byte_range
        ((128, 192), None)
        """
        if self.offset is None:
            return None
        start = self.offset.value.data
        size = self.result.type.size.data  # type: ignore[attr-defined]
        return start, start + size

    def verify_(self) -> None:
        if self.offset is None:
            return
        t = self.result.type
        assert isinstance(t, SharedMemoryType)
        start = self.offset.value.data
        if start < 0 or start % t.alignment.data:
            raise VerifyException(
                f"simt.shared_alloc: offset {start} is not a multiple of the alignment "
                f"{t.alignment.data}"
            )


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


def _check_matrix(op: IRDLOperation, count: int, value_type: Attribute) -> None:
    if count not in (1, 2, 4):
        raise VerifyException(f"{op.name}: count {count} must be 1, 2 or 4 (.x1, .x2, .x4)")
    assert isinstance(value_type, VectorType)
    if bit_width(value_type.element_type) != 16 or value_type.get_shape() != (2 * count,):
        raise VerifyException(
            f"{op.name}.x{count} moves vector<{2 * count}x16-bit> per thread (two b16 elements "
            f"of each 8x8 matrix), got {value_type}"
        )


@irdl_op_definition
class LdMatrixOp(IRDLOperation):
    """``%v = simt.ldmatrix %s[%row] x4 trans : !simt.smem<...> -> vector<8xf16>``.

    PTX ``ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16``: lanes ``8i .. 8i+7`` give the
    byte addresses of the 8 rows (16 bytes each) of matrix ``i``; lane ``t`` receives elements
    ``2(t%4), 2(t%4)+1`` of row ``t/4`` of each matrix (with ``trans``: rows ``2(t%4)``,
    ``2(t%4)+1`` of column ``t/4``), matrix by matrix.
    """

    name = "simt.ldmatrix"
    smem = operand_def(SharedMemoryType)
    addr = operand_def(IndexType)
    count = prop_def(IntegerAttr[I32])
    trans = opt_prop_def(UnitAttr)
    result = result_def(VectorType)
    assembly_format = (
        "$smem `[` $addr `]` `x` $count (`trans` $trans^)? attr-dict `:` type($smem) `->` "
        "type($result)"
    )

    def __init__(
        self, smem: SSAValue, addr: SSAValue, count: int, trans: bool, result_type: VectorType
    ):
        props: dict[str, Attribute] = {"count": IntegerAttr(count, 32)}
        if trans:
            props["trans"] = UnitAttr()
        super().__init__(operands=[smem, addr], result_types=[result_type], properties=props)

    def verify_(self) -> None:
        _check_matrix(self, self.count.value.data, self.result.type)


@irdl_op_definition
class StMatrixOp(IRDLOperation):
    """``simt.stmatrix %v, %s[%row] x4 trans : vector<8xf16>, !simt.smem<...>``: PTX ``stmatrix``,
    the inverse of :class:`LdMatrixOp` (same lane-to-element and address conventions)."""

    name = "simt.stmatrix"
    value = operand_def(VectorType)
    smem = operand_def(SharedMemoryType)
    addr = operand_def(IndexType)
    count = prop_def(IntegerAttr[I32])
    trans = opt_prop_def(UnitAttr)
    assembly_format = (
        "$value `,` $smem `[` $addr `]` `x` $count (`trans` $trans^)? attr-dict `:` "
        "type($value) `,` type($smem)"
    )

    def __init__(self, value: SSAValue, smem: SSAValue, addr: SSAValue, count: int, trans: bool):
        props: dict[str, Attribute] = {"count": IntegerAttr(count, 32)}
        if trans:
            props["trans"] = UnitAttr()
        super().__init__(operands=[value, smem, addr], properties=props)

    def verify_(self) -> None:
        _check_matrix(self, self.count.value.data, self.value.type)


SIMT = Dialect(
    "simt",
    [ShuffleOp, SharedAllocOp, SharedStoreOp, SharedLoadOp, LdMatrixOp, StMatrixOp],
    [SharedMemoryType],
)


# ============================================================================================
# Whole-kernel lowering (issue 11): global memory, casts on register vectors, mma.sync.
# Kept apart from the conversion ops above so that the two lines of work merge cleanly.
# ============================================================================================

from xdsl.dialects.builtin import I1  # noqa: E402

CAST_KINDS = (
    "extsi",
    "extui",
    "trunci",
    "sitofp",
    "uitofp",
    "fptosi",
    "fptoui",
    "extf",
    "truncf",
    "bitcast",
)
"""What ``simt.cast`` does to each register (the arith casts, which xDSL's arith only accepts
on scalars)."""


@irdl_op_definition
class PtrToIntOp(IRDLOperation):
    """``%a = simt.ptr_to_int %p : !tl.ptr<f32>``: the byte address a scalar pointer holds
    (``i64``); per-thread pointers are ``i64`` addresses from here on."""

    name = "simt.ptr_to_int"
    ptr = operand_def()
    result = result_def(I64)
    assembly_format = "$ptr attr-dict `:` type($ptr)"

    def __init__(self, ptr: SSAValue):
        from xdsl.dialects.builtin import i64

        super().__init__(operands=[ptr], result_types=[i64])


@irdl_op_definition
class CastOp(IRDLOperation):
    """``%r = simt.cast "extsi" %x : vector<4xi32> to vector<4xi64>``: an arith cast on every
    register (``extsi``, ``extui``, ``trunci``, ``sitofp``, ``uitofp``, ``fptosi``, ``fptoui``,
    ``extf``, ``truncf``, ``bitcast``)."""

    name = "simt.cast"
    kind = prop_def(StringAttr)
    value = operand_def(VectorType)
    result = result_def(VectorType)
    traits = traits_def(Pure())
    assembly_format = "$kind $value attr-dict `:` type($value) `to` type($result)"

    def __init__(self, kind: str, value: SSAValue, result_type: VectorType):
        super().__init__(
            operands=[value], result_types=[result_type], properties={"kind": StringAttr(kind)}
        )

    def verify_(self) -> None:
        if self.kind.data not in CAST_KINDS:
            raise VerifyException(f"cast kind '{self.kind.data}' is not one of {CAST_KINDS}")
        src, dst = self.value.type, self.result.type
        assert isinstance(src, VectorType) and isinstance(dst, VectorType)
        if src.get_shape() != dst.get_shape():
            raise VerifyException(f"cast changes the register count: {src} to {dst}")


@irdl_op_definition
class GlobalLoadOp(IRDLOperation):
    """``%v = simt.global_load %addr, %mask, %other : vector<4xf32>``: ``ld.global.v4.b32``.

    ``%addr`` (``i64``) is the thread's byte address of register 0; the access moves the whole
    vector (at most 128 bits) from consecutive addresses and must be aligned to its size.
    A thread whose ``%mask`` is false reads nothing and gets ``%other``.
    """

    name = "simt.global_load"
    V: ClassVar = VarConstraint("V", base(VectorType))
    addr = operand_def(I64)
    mask = operand_def(I1)
    other = operand_def(V)
    result = result_def(V)
    assembly_format = "$addr `,` $mask `,` $other attr-dict `:` type($result)"

    def __init__(self, addr: SSAValue, mask: SSAValue, other: SSAValue):
        super().__init__(operands=[addr, mask, other], result_types=[other.type])

    def verify_(self) -> None:
        _check_width("global", self.result.type)


@irdl_op_definition
class GlobalStoreOp(IRDLOperation):
    """``simt.global_store %v, %addr, %mask : vector<4xf32>``: ``st.global.v4.b32``; threads
    whose ``%mask`` is false store nothing."""

    name = "simt.global_store"
    value = operand_def(VectorType)
    addr = operand_def(I64)
    mask = operand_def(I1)
    assembly_format = "$value `,` $addr `,` $mask attr-dict `:` type($value)"

    def __init__(self, value: SSAValue, addr: SSAValue, mask: SSAValue):
        super().__init__(operands=[value, addr, mask])

    def verify_(self) -> None:
        _check_width("global", self.value.type)


@irdl_op_definition
class MmaOp(IRDLOperation):
    """``%d = simt.mma_m16n8k16 %a, %b, %c : vector<8xf16>, vector<4xf16>, vector<4xf32>``:
    ``mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32``; with ``c`` of
    ``vector<4xf16>`` (and f16 ``a``/``b``), ``...f16.f16.f16.f16``: the result rounded to f16.

    Each lane holds its PTX fragments: ``a`` 8 halves (a0..a7), ``b`` 4 halves (b0..b3), ``c`` and
    the result 4 floats (c0..c3), in the register order of the PTX ISA's figures.
    """

    name = "simt.mma_m16n8k16"
    C: ClassVar = VarConstraint("C", base(VectorType))
    a = operand_def(VectorType)
    b = operand_def(VectorType)
    c = operand_def(C)
    result = result_def(C)
    assembly_format = "$a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `,` type($c)"

    def __init__(self, a: SSAValue, b: SSAValue, c: SSAValue):
        super().__init__(operands=[a, b, c], result_types=[c.type])

    def verify_(self) -> None:
        shapes = [t.get_shape() for t in (self.a.type, self.b.type, self.c.type)]  # type: ignore[union-attr]
        if shapes != [(8,), (4,), (4,)]:
            raise VerifyException(
                f"m16n8k16 fragments are vector<8>, vector<4>, vector<4>, got {shapes}"
            )


SIMT_KERNEL_OPS = [PtrToIntOp, CastOp, GlobalLoadOp, GlobalStoreOp, MmaOp]


@irdl_op_definition
class CompareOp(IRDLOperation):
    """``%m = simt.compare "slt" %a, %b : vector<8xi32> -> vector<8xi1>``: ``arith.cmpi`` /
    ``arith.cmpf`` (by the operand type; predicates as in ``tl.cmpi``/``tl.cmpf``) on every
    register, which xDSL's arith only accepts on scalars."""

    name = "simt.compare"
    T: ClassVar = VarConstraint("T", base(VectorType))
    predicate = prop_def(StringAttr)
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(VectorType)
    traits = traits_def(Pure())
    assembly_format = "$predicate $lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)"

    def __init__(self, predicate: str, lhs: SSAValue, rhs: SSAValue):
        from xdsl.dialects.builtin import i1

        shape = lhs.type.get_shape()  # type: ignore[attr-defined]
        super().__init__(
            operands=[lhs, rhs],
            result_types=[VectorType(i1, shape)],
            properties={"predicate": StringAttr(predicate)},
        )


SIMT_KERNEL_OPS.append(CompareOp)


@irdl_op_definition
class SelectOp(IRDLOperation):
    """``%r = simt.select %c, %a, %b : vector<8xi1>, vector<8xf32>``: ``arith.select`` with one
    condition per register (xDSL's ``arith.select`` takes a scalar condition only)."""

    name = "simt.select"
    T: ClassVar = VarConstraint("T", base(VectorType))
    cond = operand_def(VectorType)
    true_value = operand_def(T)
    false_value = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = (
        "$cond `,` $true_value `,` $false_value attr-dict `:` type($cond) `,` type($result)"
    )

    def __init__(self, cond: SSAValue, a: SSAValue, b: SSAValue):
        super().__init__(operands=[cond, a, b], result_types=[a.type])


SIMT_KERNEL_OPS.append(SelectOp)


_CONVERSION_SIMT = SIMT
SIMT = Dialect(
    "simt",
    [*_CONVERSION_SIMT.operations, *SIMT_KERNEL_OPS],
    [*_CONVERSION_SIMT.attributes],
)


# ============================================================================================
# Hopper warpgroup MMA (issue 21): wgmma.mma_async reading shared memory through descriptors.
# Kept apart from the sections above so that the lines of work merge cleanly.
# ============================================================================================

from xdsl.dialects.builtin import (  # noqa: E402
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    IntegerType,
)
from xdsl.dialects.builtin import TypeAttribute as _TypeAttr  # noqa: E402
from xdsl.irdl import AnyAttr, opt_operand_def, var_operand_def, var_result_def  # noqa: E402

WGMMA_WARPS = 4
"""Warps of one warpgroup: a ``simt.wgmma`` is issued by each group of 4 consecutive warps."""


def wgmma_ab_name(typ: Attribute) -> str | None:
    """The PTX name of a wgmma A/B element type (``f16``, ``bf16``, ``tf32`` for f32, ``e4m3``,
    ``e5m2``, ``s8``/``u8`` for signless/unsigned i8), else None.

    >>> from xdsl.dialects.builtin import bf16, f32, i8
    >>> wgmma_ab_name(bf16), wgmma_ab_name(f32), wgmma_ab_name(i8)
    ('bf16', 'tf32', 's8')
    """
    from xdsl.dialects.builtin import BFloat16Type

    if isinstance(typ, Float16Type):
        return "f16"
    if isinstance(typ, BFloat16Type):
        return "bf16"
    if isinstance(typ, Float32Type):
        return "tf32"
    if isinstance(typ, Float8E4M3FNType):
        return "e4m3"
    if isinstance(typ, Float8E5M2Type):
        return "e5m2"
    if isinstance(typ, IntegerType) and typ.width.data == 8:
        from xdsl.dialects.builtin import Signedness

        return "u8" if typ.signedness.data == Signedness.UNSIGNED else "s8"
    return None


@irdl_op_definition
class WgmmaOp(IRDLOperation):
    """``%d = simt.wgmma %a, %b, %c, %s n = 64 a = f16 b = f16 : i64, vector<32xf32>, !simt.smem<>``
    is ``wgmma.mma_async.sync.aligned.m64nNkK``, issued by each warpgroup (4 warps).

    ``%a`` is A's descriptor (``i64``) or A's registers (the mma v3 dot-operand fragment,
    ``vector<4 * 32 / width x T>``); ``%b`` B's descriptor; ``%c`` the accumulator registers
    (``vector<N/2 x f32>``, ``i32`` for 8-bit integers) in the mma v3 accumulator layout.
    Descriptors address ``%s`` (start addresses relative to the buffer; see :mod:`llc.wgmma`);
    with ``a_smem %sa`` after the types, A's descriptor addresses ``%sa`` instead (A and B staged
    in buffers of their own, as ``tl.local_alloc`` lowers them).
    K is 32 bytes of elements (16 for f16/bf16, 8 for tf32, 32 for f8/i8). ``trans_a`` /
    ``trans_b``: the shared operand is M/N-major (f16/bf16 only). The result is asynchronous: it
    may feed the accumulator of further ``simt.wgmma`` ops, and anything else reads it only
    after a ``simt.wgmma_wait_group`` retires its group.
    """

    name = "simt.wgmma"
    C: ClassVar = VarConstraint("C", base(VectorType))
    a = operand_def()
    b = operand_def(I64)
    c = operand_def(C)
    smem = operand_def(SharedMemoryType)
    a_smem = opt_operand_def(SharedMemoryType)
    n = prop_def(IntegerAttr[I32])
    a_type = prop_def(_TypeAttr)
    b_type = prop_def(_TypeAttr)
    trans_a = opt_prop_def(UnitAttr)
    trans_b = opt_prop_def(UnitAttr)
    result = result_def(C)
    assembly_format = (
        "$a `,` $b `,` $c `,` $smem `n` `=` $n `a` `=` $a_type `b` `=` $b_type "
        "(`trans_a` $trans_a^)? (`trans_b` $trans_b^)? attr-dict `:` type($a) `,` type($c) `,` "
        "type($smem) (`a_smem` $a_smem^ `:` type($a_smem))?"
    )

    def __init__(
        self,
        a: SSAValue,
        b: SSAValue,
        c: SSAValue,
        smem: SSAValue,
        n: int,
        a_type: Attribute,
        b_type: Attribute,
        trans_a: bool = False,
        trans_b: bool = False,
        a_smem: SSAValue | None = None,
    ):
        props: dict[str, Attribute] = {
            "n": IntegerAttr(n, 32),
            "a_type": a_type,
            "b_type": b_type,
        }
        if trans_a:
            props["trans_a"] = UnitAttr()
        if trans_b:
            props["trans_b"] = UnitAttr()
        super().__init__(
            operands=[a, b, c, smem, [a_smem] if a_smem is not None else []],
            result_types=[c.type],
            properties=props,
        )

    @property
    def a_buffer(self) -> SSAValue:
        """The buffer A's descriptor addresses: ``a_smem`` when given, else ``smem``."""
        return self.a_smem if self.a_smem is not None else self.smem

    @property
    def k(self) -> int:
        """K of the instruction: 32 bytes of A's elements."""
        return 256 // bit_width(self.a_type)

    @property
    def a_in_registers(self) -> bool:
        """Whether A comes from registers (else from shared memory through a descriptor)."""
        return isinstance(self.a.type, VectorType)

    def verify_(self) -> None:
        names = [wgmma_ab_name(t) for t in (self.a_type, self.b_type)]
        if None in names:
            raise VerifyException(
                f"simt.wgmma: A/B types {self.a_type}, {self.b_type} are not f16, bf16, "
                "f32 (tf32), f8E4M3FN, f8E5M2 or i8"
            )
        a_name, b_name = names
        families = [
            "float16" if x in ("f16", "bf16") else "f8" if x in ("e4m3", "e5m2") else x
            for x in names
        ]
        if families[0] != families[1] or (families[0] == "float16" and a_name != b_name):
            raise VerifyException(f"simt.wgmma: A is {a_name} and B is {b_name}")
        n = self.n.value.data
        if n % 8 or not 8 <= n <= 256:
            raise VerifyException(f"simt.wgmma: n {n} must be a multiple of 8 in 8..256")
        c = self.c.type
        assert isinstance(c, VectorType)
        integer = a_name in ("s8", "u8")
        want_acc = "i32" if integer else "f32"
        acc = c.element_type
        ok_acc = (
            isinstance(acc, IntegerType) and acc.width.data == 32
            if integer
            else isinstance(acc, Float32Type)
        )
        if not ok_acc or c.get_shape() != (n // 2,):
            raise VerifyException(
                f"simt.wgmma: the m64n{n} accumulator is vector<{n // 2}x{want_acc}>, got {c}"
            )
        if (self.trans_a is not None or self.trans_b is not None) and families[0] != "float16":
            raise VerifyException(
                f"simt.wgmma: only f16/bf16 operands can be M/N-major (trans), not {a_name}"
            )
        if self.a_in_registers:
            at = self.a.type
            assert isinstance(at, VectorType)
            count = 4 * 32 // bit_width(self.a_type)
            if at.get_shape() != (count,) or at.element_type != self.a_type:
                raise VerifyException(
                    f"simt.wgmma: A in registers is vector<{count}x{self.a_type}>, got {at}"
                )
            if self.trans_a is not None:
                raise VerifyException("simt.wgmma: A in registers cannot be transposed")
            if self.a_smem is not None:
                raise VerifyException("simt.wgmma: A in registers has no buffer (a_smem)")
        elif self.a.type != IntegerType(64):
            raise VerifyException(
                f"simt.wgmma: A is a descriptor (i64) or registers (vector), got {self.a.type}"
            )


@irdl_op_definition
class WgmmaFenceOp(IRDLOperation):
    """``simt.wgmma_fence``: ``wgmma.fence.sync.aligned``; orders the warpgroup's register
    accesses (A fragments, accumulators) before the ``simt.wgmma`` ops that follow."""

    name = "simt.wgmma_fence"
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__()


@irdl_op_definition
class FenceAsyncSharedOp(IRDLOperation):
    """``simt.fence_async_shared``: ``fence.proxy.async.shared::cta``; makes this thread's
    earlier shared-memory writes visible to the async proxy (what ``simt.wgmma`` reads through).
    Other threads' writes also need a barrier after their fence."""

    name = "simt.fence_async_shared"
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__()


@irdl_op_definition
class WgmmaCommitGroupOp(IRDLOperation):
    """``simt.wgmma_commit_group``: ``wgmma.commit_group.sync.aligned``; the ``simt.wgmma`` ops
    issued since the last commit form one group."""

    name = "simt.wgmma_commit_group"
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__()


@irdl_op_definition
class WgmmaWaitGroupOp(IRDLOperation):
    """``%r = simt.wgmma_wait_group 0 (%d) : (vector<32xf32>) -> vector<32xf32>``:
    ``wgmma.wait_group.sync.aligned 0``; waits until at most ``pending`` committed groups are in
    flight and returns its operands (accumulators), readable from here on when their group is
    retired."""

    name = "simt.wgmma_wait_group"
    pending = prop_def(IntegerAttr[I32])
    values = var_operand_def()
    results_ = var_result_def()
    assembly_format = "$pending `(` $values `)` attr-dict `:` functional-type($values, $results_)"

    def __init__(self, pending: int, values: Sequence[SSAValue]):
        super().__init__(
            operands=[list(values)],
            result_types=[[v.type for v in values]],
            properties={"pending": IntegerAttr(pending, 32)},
        )

    def verify_(self) -> None:
        if self.pending.value.data < 0:
            raise VerifyException(f"simt.wgmma_wait_group: pending {self.pending.value.data} < 0")
        ins = [v.type for v in self.values]
        outs = [r.type for r in self.results_]
        if ins != outs:
            raise VerifyException(
                f"simt.wgmma_wait_group returns its operands' types {ins}, got {outs}"
            )


def wgmma_sources(value: SSAValue) -> list[WgmmaOp]:
    """The ``simt.wgmma`` ops whose accumulator ``value`` may hold still in flight: the chain
    of wgmma behind it (each one's accumulator operand), followed through ``scf.if`` results
    into what each branch yields. A ``simt.wgmma_wait_group`` result is retired: no source.

    >>> from xdsl.dialects.test import TestOp
    >>> from xdsl.dialects.builtin import VectorType, f32
    >>> wgmma_sources(TestOp(result_types=[VectorType(f32, [32])]).results[0])
    []
    """
    from xdsl.dialects import scf
    from xdsl.ir import Operation

    found: list[WgmmaOp] = []
    seen: set[SSAValue] = set()
    todo = [value]
    while todo:
        v = todo.pop()
        if v in seen:
            continue
        seen.add(v)
        owner = v.owner
        if isinstance(owner, WgmmaOp):
            found.append(owner)
            todo.append(owner.c)
        elif isinstance(owner, scf.IfOp):
            index = list(owner.results).index(v)
            for region in owner.regions:
                last = region.blocks[0].last_op if region.blocks else None
                if isinstance(last, Operation) and last.name == "scf.yield":
                    todo.append(last.operands[index])
    return found


@irdl_op_definition
class CpAsyncOp(IRDLOperation):
    """``simt.cp_async %s[%addr], %src, %size {bytes = 16} : !simt.smem<...>``: PTX
    ``cp.async.cg.shared.global [addr], [src], 16, size`` (``.ca`` for 4 or 8 bytes).

    Each thread starts copying ``bytes`` (4, 8 or 16) from the global byte address ``%src``
    (``i64``, aligned to ``bytes``) to its shared byte address ``%addr``; only the first ``%size``
    bytes (``i32``, 0 to ``bytes``) are read, the rest are zero-filled (``%size`` 0: a masked-off
    copy that reads nothing and writes zeros). The copy joins the thread's open group and lands
    at the ``simt.cp_async_wait_group`` that retires that group.
    """

    name = "simt.cp_async"
    smem = operand_def(SharedMemoryType)
    addr = operand_def(IndexType)
    src = operand_def(I64)
    size = operand_def(I32)
    bytes = prop_def(IntegerAttr[I32])
    assembly_format = (
        "$smem `[` $addr `]` `,` $src `,` $size `bytes` $bytes attr-dict `:` type($smem)"
    )

    def __init__(self, smem: SSAValue, addr: SSAValue, src: SSAValue, size: SSAValue, nbytes: int):
        super().__init__(
            operands=[smem, addr, src, size], properties={"bytes": IntegerAttr(nbytes, 32)}
        )

    def verify_(self) -> None:
        n = self.bytes.value.data
        if n not in (4, 8, 16):
            raise VerifyException(f"simt.cp_async copies 4, 8 or 16 bytes, not {n}")
        smem = self.smem.type
        assert isinstance(smem, SharedMemoryType)
        if n > smem.size.data:
            raise VerifyException(f"simt.cp_async: {n} bytes do not fit in {smem}")


@irdl_op_definition
class CpAsyncCommitGroupOp(IRDLOperation):
    """``simt.cp_async_commit_group``: ``cp.async.commit_group``; the thread's copies started
    since its last commit form one group."""

    name = "simt.cp_async_commit_group"
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__()


@irdl_op_definition
class CpAsyncWaitGroupOp(IRDLOperation):
    """``simt.cp_async_wait_group 1``: ``cp.async.wait_group 1``; waits until at most
    ``pending`` of the thread's most recent groups are in flight: the copies of the older groups
    have landed and the thread sees them (other threads after a barrier)."""

    name = "simt.cp_async_wait_group"
    pending = prop_def(IntegerAttr[I32])
    assembly_format = "$pending attr-dict"

    def __init__(self, pending: int) -> None:
        super().__init__(properties={"pending": IntegerAttr(pending, 32)})

    def verify_(self) -> None:
        if self.pending.value.data < 0:
            raise VerifyException(
                f"simt.cp_async_wait_group: pending {self.pending.value.data} < 0"
            )


CP_ASYNC_OPS = [CpAsyncOp, CpAsyncCommitGroupOp, CpAsyncWaitGroupOp]
"""Ampere's asynchronous global-to-shared copies (``llc.passes.lower_async_copy`` emits them)."""

WGMMA_OPS = [WgmmaOp, WgmmaFenceOp, FenceAsyncSharedOp, WgmmaCommitGroupOp, WgmmaWaitGroupOp]


# ============================================================================================
# Atomics (llc.passes.lower_atomics): one PTX ``atom`` per thread and register.
# ============================================================================================

ATOMIC_KINDS = ("add", "fadd", "max", "min", "umax", "umin", "and", "or", "xor", "exch", "cas")
"""``simt.atomic`` operations: ``tl.atomic_rmw``'s kinds and ``cas``."""
ATOMIC_SEMANTICS = ("relaxed", "acquire", "release", "acq_rel")
ATOMIC_SCOPES = ("gpu", "cta", "sys")


@irdl_op_definition
class AtomicOp(IRDLOperation):
    """``%old = simt.atomic "add" "acq_rel" "gpu" %addr, %v, %mask : i32``: PTX
    ``@mask atom.acq_rel.gpu.global.add.u32 old, [addr], v`` (``cas``: ``..., %v, %mask cmp %c``
    is ``atom.cas.b32 old, [addr], c, v``).

    Each thread whose ``%mask`` is true updates the element at its global byte address ``%addr``
    (``i64``, aligned to the element) atomically and gets the element's old value; a thread
    whose mask is false touches nothing and gets 0. Threads that reach one address are
    serialized in some order (the SIMT interpreter: increasing thread index). ``max``/``min``
    compare signed, ``umax``/``umin`` unsigned; ``fadd`` adds floats; ``exch`` swaps.

    >>> from xdsl.dialects.builtin import i32, i64, i1
    >>> from xdsl.dialects.test import TestOp
    >>> vals = TestOp(result_types=[i64, i32, i1]).results
    >>> AtomicOp("add", *vals).result.type
    IntegerType(32)
    """

    name = "simt.atomic"
    T: ClassVar = VarConstraint("T", AnyAttr())
    kind = prop_def(StringAttr)
    sem = prop_def(StringAttr)
    scope = prop_def(StringAttr)
    addr = operand_def(I64)
    value = operand_def(T)
    mask = operand_def(I1)
    cmp = opt_operand_def(T)
    result = result_def(T)
    assembly_format = (
        "$kind $sem $scope $addr `,` $value `,` $mask (`cmp` $cmp^)? attr-dict `:` type($value)"
    )

    def __init__(
        self,
        kind: str,
        addr: SSAValue,
        value: SSAValue,
        mask: SSAValue,
        cmp: SSAValue | None = None,
        sem: str = "acq_rel",
        scope: str = "gpu",
    ):
        super().__init__(
            operands=[addr, value, mask, [] if cmp is None else [cmp]],
            result_types=[value.type],
            properties={
                "kind": StringAttr(kind),
                "sem": StringAttr(sem),
                "scope": StringAttr(scope),
            },
        )

    def verify_(self) -> None:
        kind = self.kind.data
        if kind not in ATOMIC_KINDS:
            raise VerifyException(f"simt.atomic: '{kind}' is not one of {', '.join(ATOMIC_KINDS)}")
        if (kind == "cas") != (self.cmp is not None):
            raise VerifyException("simt.atomic: cas, and only cas, takes a cmp operand")
        if self.sem.data not in ATOMIC_SEMANTICS or self.scope.data not in ATOMIC_SCOPES:
            raise VerifyException(
                f"simt.atomic: bad memory semantic/scope {self.sem.data}/{self.scope.data}"
            )
        if isinstance(self.value.type, VectorType):
            raise VerifyException("simt.atomic updates one element per thread (no vectors)")
        bit_width(self.value.type)


@irdl_op_definition
class MmaK32Op(IRDLOperation):
    """``%d = simt.mma_m16n8k32 %a, %b, %c : vector<16xi8>, vector<8xi8>, vector<4xi32>``:
    ``mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32`` (products and sums modulo 2^32).

    Each lane holds its PTX fragments: ``a`` 16 bytes (a0..a15), ``b`` 8 bytes (b0..b7), ``c``
    and the result 4 words (c0..c3), in the PTX ISA's order
    (:func:`llc.dialects.simt_mma.mma_k32_fragment_coords`).
    """

    name = "simt.mma_m16n8k32"
    C: ClassVar = VarConstraint("C", base(VectorType))
    a = operand_def(VectorType)
    b = operand_def(VectorType)
    c = operand_def(C)
    result = result_def(C)
    assembly_format = "$a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `,` type($c)"

    def __init__(self, a: SSAValue, b: SSAValue, c: SSAValue):
        super().__init__(operands=[a, b, c], result_types=[c.type])

    def verify_(self) -> None:
        types = [self.a.type, self.b.type, self.c.type]
        shapes = [t.get_shape() for t in types]  # type: ignore[union-attr]
        elems = [str(t.element_type) for t in types]  # type: ignore[union-attr]
        if shapes != [(16,), (8,), (4,)] or elems != ["i8", "i8", "i32"]:
            raise VerifyException(
                "m16n8k32 fragments are vector<16xi8>, vector<8xi8>, vector<4xi32>, got "
                f"{', '.join(str(t) for t in types)}"
            )


@irdl_op_definition
class InlineAsmOp(IRDLOperation):
    """``%r = simt.inline_asm "max.f32 $0, $1, 0f00000000;" "=r,r" pack 1 %x :
    (vector<4xf32>) -> vector<4xf32>``: the PTX of ``tl.elementwise_inline_asm`` run once per
    group of ``pack`` consecutive registers; ``$i`` names the outputs then the inputs, each one
    register of its constraint (``h`` 16, ``r``/``f`` 32, ``l``/``d`` 64 bits) holding the group's
    elements, the first in the low bits (:mod:`llc.dialects.inline_ptx` runs it)."""

    name = "simt.inline_asm"
    args = var_operand_def(VectorType)
    outs = var_result_def(VectorType)
    asm_string = prop_def(StringAttr)
    constraints = prop_def(StringAttr)
    pack = prop_def(IntegerAttr[I32])
    assembly_format = (
        "$asm_string $constraints `pack` $pack $args attr-dict `:` functional-type($args, $outs)"
    )

    def __init__(
        self,
        asm: str,
        constraints: str,
        pack: int,
        args: Sequence[SSAValue],
        result_types: Sequence[Attribute],
    ):
        super().__init__(
            operands=[list(args)],
            result_types=[list(result_types)],
            properties={
                "asm_string": StringAttr(asm),
                "constraints": StringAttr(constraints),
                "pack": IntegerAttr(pack, 32),
            },
        )

    def verify_(self) -> None:
        from llc.dialects.inline_ptx import InlinePtxError, parse_constraints

        try:
            outs, ins = parse_constraints(self.constraints.data)
        except InlinePtxError as err:
            raise VerifyException(f"simt.inline_asm: {err}") from None
        if (len(outs), len(ins)) != (len(self.outs), len(self.args)):
            raise VerifyException(
                f"simt.inline_asm: constraints '{self.constraints.data}' name {len(outs)} "
                f"outputs and {len(ins)} inputs, the op has {len(self.outs)} and {len(self.args)}"
            )
        counts = {t.get_shape()[0] for t in (*self.args.types, *self.outs.types)}  # type: ignore[union-attr]
        pack = self.pack.value.data
        if len(counts) != 1 or pack < 1 or next(iter(counts)) % pack:
            raise VerifyException(
                f"simt.inline_asm: registers {sorted(counts)} are not one count divisible by "
                f"pack {pack}"
            )


SIMT = Dialect(
    "simt",
    [*SIMT.operations, *WGMMA_OPS, *CP_ASYNC_OPS, AtomicOp, MmaK32Op, InlineAsmOp],
    [*SIMT.attributes],
)


# ============================================================================================
# Device assert and print (session 4, engineer g): ``tl.assert`` / ``tl.print`` per register.
# ============================================================================================

from typing import Any  # noqa: E402

from xdsl.dialects.builtin import DenseArrayBase, i64  # noqa: E402
from xdsl.ir import Operation  # noqa: E402


def element_keys(op: Operation, threads: int) -> Any:
    """``keys[t, r]``: the row-major index, in the op's ``shape``, of the element register ``r``
    of thread ``t`` holds: ``register_keys[r]`` xor the ``thread_keys`` of ``t``'s set bits
    (the layout is linear over F2 and the shape's sizes are powers of two).

    >>> from xdsl.dialects.builtin import VectorType, i1
    >>> from xdsl.utils.test_value import create_ssa_value
    >>> op = AssertOp(create_ssa_value(VectorType(i1, [2])), "m", [8], [0, 1], [2, 4])
    >>> element_keys(op, 4).tolist()
    [[0, 1], [2, 3], [4, 5], [6, 7]]
    """
    import numpy as np

    regs = np.asarray(op.register_keys.get_values(), dtype=np.int64)  # type: ignore[attr-defined]
    bases = np.asarray(op.thread_keys.get_values(), dtype=np.int64)  # type: ignore[attr-defined]
    tid = np.arange(threads)
    part = np.zeros(threads, dtype=np.int64)
    for b, key in enumerate(bases):
        part ^= np.where((tid >> b) & 1, key, 0)
    return part[:, None] ^ regs[None, :]


def _keys_properties(shape: Sequence[int], regs: Sequence[int], bits: Sequence[int]) -> dict:
    return {
        "shape": DenseArrayBase.from_list(i64, list(shape)),
        "register_keys": DenseArrayBase.from_list(i64, list(regs)),
        "thread_keys": DenseArrayBase.from_list(i64, list(bits)),
    }


@irdl_op_definition
class AssertOp(IRDLOperation):
    """``"simt.assert"(%c) <{message = "m", shape = array<i64: 128>, register_keys =
    array<i64: 0, 1>, thread_keys = array<i64: 2, 4, ...>}> : (vector<2xi1>) -> ()`` (generic
    form): the kernel stops where a register of
    ``%c`` is false (PTX: a call of ``__assertfail``). The keys name each register's element of
    the asserted tensor of ``shape`` (:func:`element_keys`), for the error; a scalar ``i1`` has
    ``shape = []`` and one key 0."""

    name = "simt.assert"
    condition = operand_def()
    message = prop_def(StringAttr)
    shape = prop_def(DenseArrayBase)
    register_keys = prop_def(DenseArrayBase)
    thread_keys = prop_def(DenseArrayBase)

    def __init__(
        self,
        condition: SSAValue,
        message: str,
        shape: Sequence[int],
        register_keys: Sequence[int],
        thread_keys: Sequence[int],
    ):
        props = _keys_properties(shape, register_keys, thread_keys)
        super().__init__(operands=[condition], properties={"message": StringAttr(message), **props})

    def verify_(self) -> None:
        t = self.condition.type
        count = t.get_shape()[0] if isinstance(t, VectorType) else 1
        if len(self.register_keys.get_values()) != count:
            raise VerifyException(f"simt.assert: {count} registers need as many register_keys")


@irdl_op_definition
class PrintOp(IRDLOperation):
    """``"simt.print"(%x) <{prefix = " x: ", shape = ..., register_keys = ..., thread_keys =
    ...}> : (vector<4xf32>) -> ()``: ``tl.print`` of one tensor (or scalar): the prefix and
    every element, each once, in row-major order (PTX: one ``vprintf`` per register, as Triton
    prints); the keys as in :class:`AssertOp`. ``hex`` and ``isSigned`` (attributes) are
    ``tl.print``'s."""

    name = "simt.print"
    value = opt_operand_def()
    prefix = prop_def(StringAttr)
    shape = prop_def(DenseArrayBase)
    register_keys = prop_def(DenseArrayBase)
    thread_keys = prop_def(DenseArrayBase)

    def __init__(
        self,
        prefix: str,
        value: SSAValue | None,
        shape: Sequence[int],
        register_keys: Sequence[int],
        thread_keys: Sequence[int],
    ):
        props = _keys_properties(shape, register_keys, thread_keys)
        super().__init__(
            operands=[[] if value is None else [value]],
            properties={"prefix": StringAttr(prefix), **props},
        )


SIMT = Dialect("simt", [*SIMT.operations, AssertOp, PrintOp], [*SIMT.attributes])
