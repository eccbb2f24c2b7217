"""The ``tl`` dialect: llc's tensor-level IR (the counterpart of Triton's TTGIR).

Every llc pass rewrites this IR, and users read and write it in ``.mlir`` files. A module
carries the hardware configuration as attributes, exactly like TTGIR::

    module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32,
                       "tl.target" = "cuda:90"} {
      func.func @add(%x: !tl.ptr<f32>, %y: !tl.ptr<f32>, %n: i32) {
        %pid = tl.get_program_id x : i32
        %r = tl.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
        ...
      }
    }

What comes from where:

* functions, calls and returns: xDSL's ``func`` dialect (``func.func``/``func.call``/
  ``func.return``);
* structured control flow: xDSL's ``scf`` (``scf.for``/``scf.if``/``scf.yield``);
* elementwise arithmetic: xDSL's ``arith`` and ``math`` ops where they accept tensors with
  encodings (``arith.addf/subf/mulf/divf/maxnumf/...``, ``arith.addi/muli/...``,
  ``arith.extf/truncf``, ``math.exp/rsqrt/...``, ``arith.constant``). xDSL 0.74 types the
  result of ``arith.cmpf/cmpi`` as a scalar ``i1``, ``arith.select`` only takes a scalar
  condition and the integer casts only take scalars, so those have ``tl`` versions:
  ``tl.cmpf``, ``tl.cmpi``, ``tl.select``, ``tl.sitofp``, ``tl.uitofp``, ``tl.fptosi``,
  ``tl.fptoui``, ``tl.extsi``, ``tl.extui``, ``tl.trunci``;
* everything else (tensor creation and shape ops, pointers, loads and stores, reductions,
  dot, layout conversion, shared memory) is defined here.

The layout attributes (``#tl.blocked<...>``, ``#tl.slice<...>``, ...) live in
``llc.dialects.layout_attrs``; ``TL`` registers them together with the ops and types below.

>>> from xdsl.dialects.builtin import Float32Type
>>> print(PointerType(Float32Type()))
!tl.ptr<f32>
"""

from __future__ import annotations

import functools
import math as pymath
import re
from collections.abc import Iterator, Sequence
from collections.abc import Set as AbstractSet
from typing import ClassVar

from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    FunctionType,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    ShapedType,
    StringAttr,
    TensorType,
    UnitAttr,
    VectorType,
    i32,
    i64,
)
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    opt_result_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.pattern_rewriter import RewritePattern
from xdsl.printer import Printer
from xdsl.traits import (
    EffectInstance,
    HasCanonicalizationPatternsTrait,
    HasParent,
    IsTerminator,
    MemoryAllocEffect,
    MemoryEffect,
    MemoryEffectKind,
    MemoryFreeEffect,
    MemoryReadEffect,
    MemoryWriteEffect,
    Pure,
    RecursiveMemoryEffect,
)
from xdsl.utils.exceptions import VerifyException

from llc.dialects.diagnostics import OpVerifyException
from llc.dialects.layout_attrs import LAYOUT_ATTRIBUTES
from llc.dialects.xdsl_private import peek_token

# --------------------------------------------------------------------------------------
# Hardware configuration (module attributes, as in TTGIR)
# --------------------------------------------------------------------------------------

NUM_WARPS_ATTR = "tl.num-warps"
"""Module attribute: warps per CTA (``"tl.num-warps" = 4 : i32``)."""
THREADS_PER_WARP_ATTR = "tl.threads-per-warp"
"""Module attribute: threads per warp (``"tl.threads-per-warp" = 32 : i32``)."""
TARGET_ATTR = "tl.target"
"""Module attribute: the target (``"tl.target" = "cuda:90"``)."""


_WELL_FORMED_TARGET = re.compile(r"cuda(?::\d+a?)?|(?:hip:)?gfx[0-9a-f]+")
"""A target as Triton writes it, known to llc or not (``cuda:0``, a bare ``cuda``, ``hip:gfx940``,
``gfx950``)."""


def hardware_config(op: Operation) -> tuple[int, int] | None:
    """``(num_warps, threads_per_warp)`` of the closest ancestor carrying ``"tl.num-warps"``.

    Returns ``None`` when no ancestor has the attribute (IR before hardware is assigned);
    ``"tl.threads-per-warp"`` defaults to 32 like in Triton. Raises ``VerifyException`` when
    the attributes are malformed.

    >>> from xdsl.dialects.builtin import ModuleOp, IntegerAttr, i32
    >>> hardware_config(ModuleOp([], {"tl.num-warps": IntegerAttr(8, i32)}))
    (8, 32)
    """
    current: Operation | None = op
    while current is not None:
        parent = current.parent_op()
        if isinstance(parent, WarpSpecializeOp):
            region = current.parent_region()
            warps = parent.partition_warps(region) if region is not None else None
            if warps is not None:  # a partition runs on its own warps
                outer = hardware_config(parent)
                return warps, (outer[1] if outer is not None else 32)
        if NUM_WARPS_ATTR in current.attributes:
            num_warps = _positive_int_attr(current, NUM_WARPS_ATTR)
            threads = 32
            if THREADS_PER_WARP_ATTR in current.attributes:
                threads = _positive_int_attr(current, THREADS_PER_WARP_ATTR)
            target = current.attributes.get(TARGET_ATTR)
            if target is not None and not isinstance(target, StringAttr):
                raise VerifyException(
                    f'module attribute "{TARGET_ATTR}" must be a string like "cuda:90", '
                    f"got {target}"
                )
            if target is not None and not _WELL_FORMED_TARGET.fullmatch(target.data):
                # Any target Triton writes reads (its lit inputs say "cuda:0"); the passes that
                # choose layouts or emit code for it check that llc knows it (Hardware.of).
                from llc.errors import LayoutError
                from llc.targets import check_target

                try:
                    check_target(target.data)
                except LayoutError as err:
                    raise VerifyException(f'module attribute "{TARGET_ATTR}": {err}') from None
            return num_warps, threads
        current = current.parent_op()
    return None


def _positive_int_attr(op: Operation, name: str) -> int:
    """The value of a hardware attribute: a positive power of two, as Triton requires of
    ``num_warps`` and of the warp size."""
    attr = op.attributes[name]
    if not isinstance(attr, IntegerAttr) or attr.value.data <= 0:
        raise VerifyException(
            f'module attribute "{name}" must be a positive integer (e.g. 4 : i32), got {attr}'
        )
    value = attr.value.data
    if value & (value - 1):
        raise VerifyException(f'module attribute "{name}" must be a power of two, got {value}')
    return value


def threads_per_warp_source(op: Operation) -> str:
    """How a message names the threads per warp that apply to ``op``: the module attribute,
    or the default when the module does not set it.

    >>> from xdsl.dialects.builtin import ModuleOp, IntegerAttr, i32
    >>> threads_per_warp_source(ModuleOp([], {"tl.num-warps": IntegerAttr(8, i32)}))
    'the default "tl.threads-per-warp" (not set by the module)'
    """
    current: Operation | None = op
    while current is not None:
        parent = current.parent_op()
        if isinstance(parent, WarpSpecializeOp):
            region = current.parent_region()
            warps = parent.partition_warps(region) if region is not None else None
            if warps is not None:  # a partition runs on its own warps
                outer = hardware_config(parent)
                return warps, (outer[1] if outer is not None else 32)
        if NUM_WARPS_ATTR in current.attributes:
            if THREADS_PER_WARP_ATTR in current.attributes:
                return f'"{THREADS_PER_WARP_ATTR}"'
            break
        current = current.parent_op()
    return f'the default "{THREADS_PER_WARP_ATTR}" (not set by the module)'


# --------------------------------------------------------------------------------------
# Small type helpers (used by the verifiers, the interpreter and passes)
# --------------------------------------------------------------------------------------


def shape_of(typ: Attribute) -> tuple[int, ...]:
    """The shape of a tensor or memdesc type, ``()`` for a scalar.

    >>> from xdsl.dialects.builtin import TensorType, f32
    >>> shape_of(TensorType(f32, [4, 8])), shape_of(f32)
    ((4, 8), ())
    """
    if isinstance(typ, ShapedType):
        return tuple(typ.get_shape())
    return ()


def element_type_of(typ: Attribute) -> Attribute:
    """The element type of a tensor or memdesc type, the type itself for a scalar.

    >>> from xdsl.dialects.builtin import TensorType, f32
    >>> print(element_type_of(TensorType(f32, [4])))
    f32
    """
    if isinstance(typ, TensorType | MemDescType):
        return typ.element_type
    return typ


def encoding_of(typ: Attribute) -> Attribute | None:
    """The layout encoding of a tensor/memdesc type; ``None`` for scalars and plain tensors.

    >>> from xdsl.dialects.builtin import TensorType, f32
    >>> encoding_of(TensorType(f32, [4])) is None
    True
    """
    if isinstance(typ, TensorType | MemDescType):
        enc = typ.encoding
        return None if isinstance(enc, NoneAttr) else enc
    return None


def layout_of(encoding: Attribute | None) -> object | None:
    """The llc.layouts family object wrapped by a layout attribute (``attr.layout``), if any."""
    return getattr(encoding, "layout", None) if encoding is not None else None


def with_element_type(typ: Attribute, element: Attribute) -> Attribute:
    """``typ`` with its element type replaced (same shape and encoding); scalars become ``element``.

    >>> from xdsl.dialects.builtin import TensorType, f32, i1
    >>> print(with_element_type(TensorType(f32, [4]), i1))
    tensor<4xi1>
    """
    if isinstance(typ, TensorType):
        return TensorType(element, typ.get_shape(), typ.encoding)
    return element


def _kind(encoding: Attribute | None) -> str | None:
    layout = layout_of(encoding)
    return getattr(layout, "kind", None)


def _fmt(attr: Attribute | None) -> str:
    return "no encoding" if attr is None else str(attr)


def _fmt_layout(layout: object) -> str:
    """Print a family object as its attribute (``#tl.blocked<{...}>``) when possible."""
    try:
        from llc.dialects.layout_attrs import layout_attr_for

        return str(layout_attr_for(layout))
    except (ImportError, ValueError):
        return repr(layout)


# --------------------------------------------------------------------------------------
# Types
# --------------------------------------------------------------------------------------


@irdl_attr_definition
class PointerType(ParametrizedAttribute, TypeAttribute):
    """A pointer to global memory: ``!tl.ptr<f32>`` (Triton's ``!tt.ptr<f32>``).

    Tensors of pointers are ordinary tensors: ``tensor<128x!tl.ptr<f32>, #blocked>``.

    >>> from xdsl.dialects.builtin import f16
    >>> print(PointerType(f16))
    !tl.ptr<f16>
    """

    name = "tl.ptr"
    pointee: Attribute

    def __init__(self, pointee: Attribute):
        super().__init__(pointee)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (parser.parse_type(),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.pointee)

    def verify(self) -> None:
        if not isinstance(self.pointee, IntegerType | AnyFloat):
            raise VerifyException(
                f"!tl.ptr: the pointee must be an integer or float type, got {self.pointee}"
            )


class _BlockParameters:
    """The parameters and syntax ``<64x32xf16[, #layout]>`` that ``!tl.memdesc`` and
    ``!tl.tensordesc`` share: a shape, an element type and an optional encoding (``NoneAttr``
    when absent)."""

    def __init__(
        self, element_type: Attribute, shape: Sequence[int], encoding: Attribute | None = None
    ):
        super().__init__(  # type: ignore[call-arg]
            ArrayAttr(IntAttr(d) for d in shape),
            element_type,
            NoneAttr() if encoding is None else encoding,
        )

    def get_shape(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape.data)  # type: ignore[attr-defined]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            dims, element = parser.parse_ranked_shape()
            encoding: Attribute = NoneAttr()
            if parser.parse_optional_punctuation(",") is not None:
                encoding = parser.parse_attribute()
        return (ArrayAttr(IntAttr(d) for d in dims), element, encoding)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string("".join(f"{d}x" for d in self.get_shape()))
            printer.print_attribute(self.element_type)  # type: ignore[attr-defined]
            if not isinstance(self.encoding, NoneAttr):  # type: ignore[attr-defined]
                printer.print_string(", ")
                printer.print_attribute(self.encoding)  # type: ignore[attr-defined]


@irdl_attr_definition
class MemDescType(_BlockParameters, ParametrizedAttribute, TypeAttribute, ShapedType):
    """A shared-memory buffer: ``!tl.memdesc<64x64xf16, #shared>`` (Triton's ``!ttg.memdesc``).

    The encoding is a shared layout attribute (``#tl.swizzled_shared``, ``#tl.nvmma_shared``,
    ``#tl.shared_linear``); it may be omitted before layouts are assigned.

    >>> from xdsl.dialects.builtin import f16
    >>> print(MemDescType(f16, [64, 64]))
    !tl.memdesc<64x64xf16>
    """

    name = "tl.memdesc"
    shape: ArrayAttr[IntAttr]
    element_type: Attribute
    encoding: Attribute
    alloc_shape: ArrayAttr[IntAttr]

    def __init__(
        self,
        element_type: Attribute,
        shape: Sequence[int],
        encoding: Attribute | None = None,
        alloc_shape: Sequence[int] = (),
    ):
        ParametrizedAttribute.__init__(
            self,
            ArrayAttr(IntAttr(d) for d in shape),
            element_type,
            NoneAttr() if encoding is None else encoding,
            ArrayAttr(IntAttr(d) for d in alloc_shape),
        )

    def get_alloc_shape(self) -> tuple[int, ...]:
        """The shape of the allocation this buffer is a view of (``tl.memdesc_subslice``'s
        results: Triton's trailing ``64x32``); the buffer's own shape when it is not a view.

        >>> from xdsl.dialects.builtin import f32
        >>> MemDescType(f32, [64, 8], None, [64, 32]).get_alloc_shape()
        (64, 32)
        >>> MemDescType(f32, [64, 8]).get_alloc_shape()
        (64, 8)
        """
        return tuple(d.data for d in self.alloc_shape.data) or self.get_shape()

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            dims, element = parser.parse_ranked_shape()
            encoding: Attribute = NoneAttr()
            alloc: list[int] = []
            while parser.parse_optional_punctuation(",") is not None:
                if peek_token(parser).text[:1].isdigit():
                    alloc = parser.parse_dimension_list()
                else:
                    encoding = parser.parse_attribute()
        return (
            ArrayAttr(IntAttr(d) for d in dims),
            element,
            encoding,
            ArrayAttr(IntAttr(d) for d in alloc),
        )

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string("".join(f"{d}x" for d in self.get_shape()))
            printer.print_attribute(self.element_type)
            if not isinstance(self.encoding, NoneAttr):
                printer.print_string(", ")
                printer.print_attribute(self.encoding)
            if self.alloc_shape.data:
                printer.print_string(", " + "x".join(str(d.data) for d in self.alloc_shape.data))

    def get_num_dims(self) -> int:
        return len(self.shape.data)

    def get_element_type(self) -> Attribute:
        return self.element_type

    def verify(self) -> None:
        if any(d <= 0 for d in self.get_shape()):
            raise VerifyException(
                f"!tl.memdesc: dimensions must be positive, got {list(self.get_shape())}"
            )
        alloc, shape = self.get_alloc_shape(), self.get_shape()
        # Triton 3.9 also writes the allocation a view was indexed out of (a 64x16 buffer of
        # a 2x64x16 one): its leading dims are the buffers, its trailing ones hold the view.
        if len(alloc) < len(shape) or any(
            d > a for d, a in zip(shape, alloc[len(alloc) - len(shape) :], strict=True)
        ):
            raise VerifyException(
                f"!tl.memdesc: the allocation shape {list(alloc)} must have at least the rank "
                f"of the shape {list(shape)} and contain it in its trailing dims"
            )
        kind = _kind(self.encoding)
        if kind is not None and hasattr(layout_of(self.encoding), "check_hardware"):
            raise VerifyException(
                f"!tl.memdesc: the encoding must be a shared layout, got the distributed "
                f"layout {self.encoding}"
            )


@irdl_attr_definition
class AsyncTokenType(ParametrizedAttribute, TypeAttribute):
    """The completion of asynchronous copies: ``!tl.async_token`` (Triton's
    ``!ttg.async.token``). Triton threads one through its copies, commits, waits and
    ``local_load``s (and through ``scf.for``); llc's own pipeliner orders the ops instead, so
    every token is optional.

    >>> print(AsyncTokenType())
    !tl.async_token
    """

    name = "tl.async_token"


# --------------------------------------------------------------------------------------
# Verification shared by every tl op: encodings agree with the tensor and the hardware
# --------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def _hardware_error(
    layout: object, num_warps: int, threads_per_warp: int, threads_source: str
) -> str | None:
    try:
        layout.check_hardware(  # type: ignore[attr-defined]
            num_warps,
            threads_per_warp,
            num_warps_source=f'"{NUM_WARPS_ATTR}"',
            threads_source=threads_source,
        )
    except ValueError as err:
        return str(err)
    return None


def check_type_encoding(
    typ: Attribute,
    hardware: tuple[int, int] | None,
    where: str,
    threads_source: str = f'"{THREADS_PER_WARP_ATTR}"',
) -> None:
    """Check the encoding of ``typ``: rank matches the shape, distributed layouts fit ``hardware``.

    ``where`` names the value in the message (``"tl.load: result"``); ``threads_source`` names
    where ``hardware``'s threads per warp come from (:func:`threads_per_warp_source`). Raises
    ``VerifyException``.
    """
    enc = encoding_of(typ)
    layout = layout_of(enc)
    if layout is None:
        return
    rank = getattr(layout, "rank", None)
    distributed = hasattr(layout, "check_hardware")
    if distributed and rank is not None and rank != len(shape_of(typ)):
        raise VerifyException(
            f"{where} has type {typ} whose rank {len(shape_of(typ))} differs from the rank "
            f"{rank} of its layout"
        )
    if distributed and hardware is not None:
        err = _hardware_error(layout, *hardware, threads_source)
        if err is not None:
            raise VerifyException(f"{where}: layout does not fit the module: {err}")


def _op_types(op: Operation, skip_unchecked_args: bool = False) -> Iterator[tuple[str, Attribute]]:
    for i, v in enumerate(op.operands):
        yield f"operand #{i}", v.type
    for i, r in enumerate(op.results):
        yield f"result #{i}", r.type
    for region in op.regions:
        for block in region.blocks:
            for i, a in enumerate(block.args):
                # Triton checks a layout against the warps only on the operands and results of
                # its tt/ttg/ttng ops, never on a block argument as such: an argument that only
                # ops of other dialects llc does not model read (an amdg.concat of 2-warp tiles
                # in a 4-warp module, in Triton's lit tests) is not checked either.
                if (
                    skip_unchecked_args
                    and a.uses
                    and all(not getattr(use.operation, "checks_hardware", True) for use in a.uses)
                ):
                    continue
                yield f"block argument #{i}", a.type


def verify_hardware(root: Operation) -> None:
    """Check every value type under ``root`` (all dialects) against its module's hardware config.

    The ``tl`` ops run this check on their own operands and results when they verify; call
    this on a whole module to cover values that only ``arith``/``math``/``scf``/``func`` ops
    touch (function arguments, for instance). Raises ``VerifyException`` naming the op
    (an :class:`~llc.dialects.diagnostics.OpVerifyException` whose ``op`` is the op).
    """
    for op in root.walk():
        if not getattr(op, "checks_hardware", True):
            continue
        try:
            hardware = hardware_config(op)
            source = threads_per_warp_source(op) if hardware is not None else ""
            for what, typ in _op_types(op, skip_unchecked_args=True):
                check_type_encoding(typ, hardware, f"{op.name}: {what}", source)
        except VerifyException as err:
            raise OpVerifyException(op, str(err)) from err


class TLOperation(IRDLOperation):
    """Base of the tl ops: the op's own checks (``verify_tl``), then encodings vs hardware."""

    @property
    def checks_hardware(self) -> bool:
        """Whether the layouts of the op's values must fit the module's warps and lanes
        (Triton checks them on the ops of its core dialects; :class:`OpaqueOp` of another
        dialect, ``amdg.concat`` for one, is not checked, as in Triton)."""
        return True

    def verify_(self) -> None:
        self.verify_tl()
        if not self.checks_hardware:
            return
        hardware = hardware_config(self)
        source = threads_per_warp_source(self) if hardware is not None else ""
        for what, typ in _op_types(self):
            check_type_encoding(typ, hardware, f"{self.name}: {what}", source)

    def verify_tl(self) -> None:
        """Op-specific checks; raise ``VerifyException`` with a message naming the op."""

    def fail(self, message: str) -> VerifyException:
        """A ``VerifyException`` whose message starts with the op name."""
        return VerifyException(f"{self.name}: {message}")


def _same_shape_and_encoding(op: Operation, values: Sequence[tuple[str, Attribute]]) -> None:
    """Elementwise rule: all the named types have the same shape and encoding."""

    def fail(message: str) -> VerifyException:
        return VerifyException(f"{op.name}: {message}")

    (first_name, first), *rest = values
    for name, typ in rest:
        if shape_of(typ) != shape_of(first):
            raise fail(
                f"{name} shape {list(shape_of(typ))} differs from {first_name} shape "
                f"{list(shape_of(first))}"
            )
        if isinstance(typ, TensorType) != isinstance(first, TensorType):
            raise fail(f"{name} and {first_name} must both be tensors or both scalars")
        if encoding_of(typ) != encoding_of(first):
            raise fail(
                f"{name} encoding {_fmt(encoding_of(typ))} differs from {first_name} encoding "
                f"{_fmt(encoding_of(first))}"
            )


def _is_int(t: Attribute) -> bool:
    return isinstance(t, IntegerType)


def _is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def _is_fp8(t: Attribute) -> bool:
    return _is_float(t) and getattr(t, "bitwidth", None) == 8


def _is_ptr(t: Attribute) -> bool:
    return isinstance(t, PointerType)


# --------------------------------------------------------------------------------------
# Tensor creation and shape ops
# --------------------------------------------------------------------------------------


@irdl_op_definition
class ConstantOp(TLOperation):
    """A constant tensor (or scalar), splat or dense.

    Splat: ``%c = tl.constant 0.000000e+00 : tensor<128xf32, #blocked>`` (also ``1``, ``true``).
    Dense: ``%c = tl.constant dense<[0, 1, 2, 3]> : tensor<4xi32, #blocked>``.
    The dense payload is stored without encoding, so layout passes only retype the result.
    """

    name = "tl.constant"
    value = prop_def(Attribute)
    result = result_def()
    traits = traits_def(Pure())

    def __init__(self, value: float | int | bool | Attribute, result_type: Attribute):
        element = element_type_of(result_type)
        if not isinstance(value, Attribute):
            if isinstance(element, AnyFloat):
                value = FloatAttr(float(value), element)
            elif isinstance(element, IntegerType | IndexType):
                value = IntegerAttr(int(value), element)
            else:
                raise VerifyException(f"tl.constant: cannot build a {element} constant")
        elif isinstance(value, DenseIntOrFPElementsAttr):
            value = _strip_dense_encoding(value)
        super().__init__(properties={"value": value}, result_types=[result_type])

    @property
    def is_splat(self) -> bool:
        """True for the scalar-value form (or a dense attribute whose elements are all equal)."""
        return not isinstance(self.value, DenseIntOrFPElementsAttr) or self.value.is_splat()

    def verify_tl(self) -> None:
        typ = self.result.type
        element = element_type_of(typ)
        if not isinstance(element, IntegerType | IndexType | AnyFloat):
            raise self.fail(f"result element type must be an integer or float, got {element}")
        value = self.value
        if isinstance(value, DenseIntOrFPElementsAttr):
            if not isinstance(typ, TensorType):
                raise self.fail(f"a dense value needs a tensor result, got {typ}")
            if value.get_shape() != typ.get_shape() or value.get_element_type() != element:
                raise self.fail(
                    f"dense value of type {value.type} does not match the result type {typ}"
                )
        elif isinstance(value, FloatAttr | IntegerAttr):
            if value.type != element:
                raise self.fail(
                    f"value type {value.type} differs from the result element type {element}"
                )
        else:
            raise self.fail(f"value must be a number or a dense attribute, got {value}")

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        literal = _parse_optional_scalar_literal(parser)
        if literal is None:
            # `dense<...> : type`: the builtin parser reads the payload and its type.
            dense = parser.parse_attribute()
            if not isinstance(dense, DenseIntOrFPElementsAttr):
                parser.raise_error(
                    f"tl.constant: expected a number, true, false, inf, nan or dense<...>, "
                    f"got {dense}"
                )
            op = cls(dense, dense.type)
        else:
            number, is_hex = literal
            parser.parse_punctuation(":")
            typ = parser.parse_type()
            element = element_type_of(typ)
            if isinstance(element, AnyFloat):
                if is_hex:  # MLIR spelling of a float by its bits, e.g. 0xFF800000
                    raw = int(number).to_bytes(element.compile_time_size, "little")
                    number = next(element.iter_unpack(raw))
                value: Attribute = FloatAttr(float(number), element)
            elif isinstance(element, IntegerType | IndexType):
                if isinstance(number, float):
                    parser.raise_error(f"tl.constant: {number} is not an integer for {element}")
                value = IntegerAttr(int(number), element)
            else:
                parser.raise_error(f"tl.constant: unsupported element type {element}")
            op = cls(value, typ)
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        value = self.value
        if isinstance(value, DenseIntOrFPElementsAttr):
            value.print_without_type(printer)
        elif isinstance(value, FloatAttr):
            number = value.value.data
            if pymath.isinf(number):
                printer.print_string("inf" if number > 0 else "-inf")
            else:
                printer.print_float(number, value.type)
        elif isinstance(value, IntegerAttr):
            printer.print_int(value.value.data, value.type)
        else:  # pragma: no cover - rejected by the verifier
            printer.print_attribute(value)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)
        printer.print_op_attributes(self.attributes)


def _strip_dense_encoding(value: DenseIntOrFPElementsAttr) -> DenseIntOrFPElementsAttr:
    typ = value.type
    if isinstance(typ, TensorType) and not isinstance(typ.encoding, NoneAttr):
        return DenseIntOrFPElementsAttr(TensorType(typ.element_type, typ.get_shape()), value.data)
    return value


def _parse_optional_scalar_literal(parser: Parser) -> tuple[float | int, bool] | None:
    """(number, written in hex) for ``1``, ``-2.5``, ``true``, ``inf``, ``-inf``, ``nan``,
    ``0x7FC00000``; ``None`` if the next token starts none of these."""
    if parser.parse_optional_keyword("true") is not None:
        return 1, False
    if parser.parse_optional_keyword("false") is not None:
        return 0, False
    if parser.parse_optional_keyword("inf") is not None:
        return pymath.inf, False
    if parser.parse_optional_keyword("nan") is not None:
        return pymath.nan, False
    if parser.parse_optional_punctuation("-") is not None:
        if parser.parse_optional_keyword("inf") is not None:
            return -pymath.inf, False
        number = parser.parse_optional_number()
        if number is None:
            parser.raise_error("tl.constant: expected a number or inf after '-'")
        return -number, False
    is_hex = peek_token(parser).text[:2] in ("0x", "0X")
    number = parser.parse_optional_number()
    return None if number is None else (number, is_hex)


@irdl_op_definition
class MakeRangeOp(TLOperation):
    """``%r = tl.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>``.

    The 1-D tensor ``[start, start + 1, ..., end - 1]`` of ``i32``.
    """

    name = "tl.make_range"
    start = prop_def(IntegerAttr)
    end = prop_def(IntegerAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, start: int, end: int, result_type: TensorType):
        super().__init__(
            properties={"start": IntegerAttr(start, i32), "end": IntegerAttr(end, i32)},
            result_types=[result_type],
        )

    def verify_tl(self) -> None:
        start, end = self.start.value.data, self.end.value.data
        if end <= start:
            raise self.fail(f"end ({end}) must be greater than start ({start})")
        typ = self.result.type
        if typ.element_type != i32:
            raise self.fail(f"result element type must be i32, got {typ.element_type}")
        if typ.get_shape() != (end - start,):
            raise self.fail(
                f"result shape {list(typ.get_shape())} must be [{end - start}] (end - start)"
            )


@irdl_op_definition
class SplatOp(TLOperation):
    """``%t = tl.splat %x : f32 -> tensor<128xf32, #blocked>``: every element equals ``%x``
    (a scalar, or a rank-0 tensor ``tensor<f32>`` as Triton also splats)."""

    name = "tl.splat"
    src = operand_def()
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"

    def __init__(self, src: SSAValue | Operation, result_type: TensorType):
        super().__init__(operands=[src], result_types=[result_type])

    def verify_tl(self) -> None:
        src = self.src.type
        if isinstance(src, TensorType) and src.get_shape():
            raise self.fail(f"operand must be a scalar or a rank-0 tensor, got {src}")
        if isinstance(src, TensorType):
            src = src.element_type
        if self.result.type.element_type != src:
            raise self.fail(
                f"result element type {self.result.type.element_type} differs from the "
                f"operand type {src}"
            )


@irdl_op_definition
class BroadcastOp(TLOperation):
    """``%b = tl.broadcast %x : tensor<1x64xf32, #b> -> tensor<32x64xf32, #b>``.

    Dimensions of size 1 are repeated; the rank, element type and encoding stay the same.
    """

    name = "tl.broadcast"
    src = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"

    def __init__(self, src: SSAValue | Operation, result_type: TensorType):
        super().__init__(operands=[src], result_types=[result_type])

    def verify_tl(self) -> None:
        src, res = self.src.type, self.result.type
        if src.element_type != res.element_type:
            raise self.fail(
                f"element type {res.element_type} differs from the operand's {src.element_type}"
            )
        s, r = src.get_shape(), res.get_shape()
        if len(s) != len(r):
            raise self.fail(f"operand rank {len(s)} differs from result rank {len(r)}")
        for i, (a, b) in enumerate(zip(s, r, strict=True)):
            if a != b and a != 1:
                raise self.fail(
                    f"dimension {i} of size {a} cannot be broadcast to {b} (only size-1 "
                    f"dimensions broadcast)"
                )
        if encoding_of(src) != encoding_of(res) and not _same_layout_on(
            s, encoding_of(src), encoding_of(res)
        ):
            raise self.fail(
                f"result encoding {_fmt(encoding_of(res))} differs from the operand encoding "
                f"{_fmt(encoding_of(src))}"
            )


def _same_layout_on(shape: Sequence[int], a: Attribute | None, b: Attribute | None) -> bool:
    """Whether two encodings place a ``shape`` tensor identically (equal linear layouts), as
    Triton accepts for ``tt.broadcast``: ``sizePerThread = [4, 1]`` and ``[1, 1]`` agree on a
    ``1x64`` operand, whose dim 0 has a single element. Registers that repeat an element (zero
    bases: an mma v3 tile 32 or 64 wide on a ``64x1`` operand) do not count, as Triton drops
    register bases beyond the shape."""
    if a is None or b is None or not hasattr(a, "to_linear_layout"):
        return False
    padded = [1 << max(0, (d - 1).bit_length()) for d in shape]
    try:
        la = a.to_linear_layout(padded)  # type: ignore[attr-defined]
        lb = b.to_linear_layout(padded)  # type: ignore[union-attr]
    except (ValueError, TypeError):
        return False
    if la == lb:
        return True
    return la.remove_zero_bases_along_dim("register") == lb.remove_zero_bases_along_dim("register")


@irdl_op_definition
class ExpandDimsOp(TLOperation):
    """Insert a size-1 dimension at ``axis``; the inverse of reducing along ``axis``.

    ``%e = tl.expand_dims %x {axis = 1 : i32} : tensor<64xf32, #tl.slice<{dim = 1, parent =
    #blocked}>> -> tensor<64x1xf32, #blocked>``: the operand's slice layout must have
    ``dim == axis`` and the result's encoding is the slice's parent.
    """

    name = "tl.expand_dims"
    src = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"

    def __init__(self, src: SSAValue | Operation, axis: int, result_type: TensorType):
        super().__init__(
            operands=[src], result_types=[result_type], properties={"axis": IntegerAttr(axis, i32)}
        )

    def verify_tl(self) -> None:
        src, res = self.src.type, self.result.type
        axis = self.axis.value.data
        s = list(src.get_shape())
        if not 0 <= axis <= len(s):
            raise self.fail(f"axis {axis} is out of range for an operand of rank {len(s)}")
        expected = [*s[:axis], 1, *s[axis:]]
        if list(res.get_shape()) != expected:
            raise self.fail(f"result shape {list(res.get_shape())} must be {expected}")
        if src.element_type != res.element_type:
            raise self.fail("result element type differs from the operand's")
        src_enc, res_enc = encoding_of(src), encoding_of(res)
        if src_enc is None and res_enc is None:
            return
        src_layout, res_layout = layout_of(src_enc), layout_of(res_enc)
        if src_layout is None or res_layout is None:
            if src_enc is None or res_enc is None:
                raise self.fail("operand and result must both have encodings or neither")
            return
        if getattr(src_layout, "kind", None) != "slice":
            raise self.fail(
                f"operand encoding must be #tl.slice<{{dim = {axis}, ...}}>, got {src_enc}"
            )
        if src_layout.dim != axis:  # type: ignore[attr-defined]
            raise self.fail(
                f"operand slice dim {src_layout.dim} must equal axis {axis}"  # type: ignore[attr-defined]
            )
        if src_layout.parent != res_layout:  # type: ignore[attr-defined]
            raise self.fail(
                f"result encoding {res_enc} must be the parent of the operand's slice encoding"
            )


@irdl_op_definition
class ReshapeOp(TLOperation):
    """``%r = tl.reshape %x : tensor<32x32xf32, #a> -> tensor<1024xf32, #b>`` (row-major order)."""

    name = "tl.reshape"
    src = operand_def(TensorType)
    result = result_def(TensorType)
    allow_reorder = opt_prop_def(UnitAttr)
    """Triton's ``allow_reorder``: the compiler may permute the result's elements. llc keeps the
    row-major order (a valid choice), so values never depend on it."""
    efficient_layout = opt_prop_def(UnitAttr)
    """Triton's ``efficient_layout``: the result layout was chosen on purpose (by the front end
    or a pass); layout propagation leaves it alone (:mod:`llc.dialects.layout_rules`)."""
    require_sliced = opt_prop_def(UnitAttr)
    """Newer Triton's ``require_sliced``: a reshape that only adds a unit dimension to a slice."""
    traits = traits_def(Pure())

    FLAGS: ClassVar[tuple[str, ...]] = ("allow_reorder", "efficient_layout", "require_sliced")

    def __init__(
        self, src: SSAValue | Operation, result_type: TensorType, flags: Sequence[str] = ()
    ):
        super().__init__(
            operands=[src],
            result_types=[result_type],
            properties={f: UnitAttr() for f in flags},
        )

    @property
    def flags(self) -> tuple[str, ...]:
        """The flags set on this reshape, in Triton's printing order."""
        return tuple(f for f in self.FLAGS if f in self.properties)

    @classmethod
    def parse(cls, parser: Parser) -> ReshapeOp:
        src = parser.parse_unresolved_operand()
        flags: list[str] = []
        while (
            flag := next((f for f in cls.FLAGS if parser.parse_optional_keyword(f)), None)
        ) is not None:
            flags.append(flag)  # Triton prints them in a fixed order; any order is read
        attrs = parser.parse_optional_attr_dict()
        for f in cls.FLAGS:
            if attrs.pop(f, None) is not None and f not in flags:
                flags.append(f)
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        op = cls(parser.resolve_operand(src, src_type), result_type, flags)  # type: ignore[arg-type]
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        for f in self.flags:
            printer.print_string(f" {f}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def verify_tl(self) -> None:
        src, res = self.src.type, self.result.type
        if src.element_count() != res.element_count():
            raise self.fail(
                f"operand has {src.element_count()} elements but the result has "
                f"{res.element_count()}"
            )
        if src.element_type != res.element_type:
            raise self.fail("result element type differs from the operand's")


@irdl_op_definition
class TransOp(TLOperation):
    """Permute the dimensions of a tensor.

    ``%t = tl.trans %x {order = array<i32: 1, 0>} : tensor<32x64xf16, #a> -> tensor<64x32xf16,
    #b>``: result dimension ``i`` is operand dimension ``order[i]`` (like ``numpy.transpose``).
    """

    name = "tl.trans"
    src = operand_def(TensorType)
    result = result_def(TensorType)
    order = prop_def(DenseArrayBase)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"

    def __init__(self, src: SSAValue | Operation, order: Sequence[int], result_type: TensorType):
        super().__init__(
            operands=[src],
            result_types=[result_type],
            properties={"order": DenseArrayBase.from_list(i32, order)},
        )

    @property
    def permutation(self) -> tuple[int, ...]:
        """The ``order`` property as ints."""
        return tuple(int(v) for v in self.order.get_values())

    def verify_tl(self) -> None:
        src, res = self.src.type, self.result.type
        order = self.permutation
        rank = src.get_num_dims()
        if sorted(order) != list(range(rank)):
            raise self.fail(f"order {list(order)} is not a permutation of 0..{rank - 1}")
        expected = [src.get_shape()[i] for i in order]
        if list(res.get_shape()) != expected:
            raise self.fail(f"result shape {list(res.get_shape())} must be {expected}")
        if src.element_type != res.element_type:
            raise self.fail("result element type differs from the operand's")
        self._verify_encoding(src, res, order)

    def _verify_encoding(self, src: TensorType, res: TensorType, order: Sequence[int]) -> None:
        """The result layout must be the operand layout with its tensor dimensions permuted."""
        src_enc, res_enc = encoding_of(src), encoding_of(res)
        if (src_enc is None) != (res_enc is None):
            raise self.fail("operand and result must both have encodings or neither")
        if not (hasattr(src_enc, "to_linear_layout") and hasattr(res_enc, "to_linear_layout")):
            return
        try:
            src_ll = src_enc.to_linear_layout(src.get_shape())  # type: ignore[union-attr]
            res_ll = res_enc.to_linear_layout(res.get_shape())  # type: ignore[union-attr]
        except ValueError:  # shapes the family cannot lay out are reported elsewhere
            return
        permuted = [(name, [tuple(v[i] for i in order) for v in vs]) for name, vs in src_ll.bases]
        actual = [(name, [tuple(v) for v in vs]) for name, vs in res_ll.bases]
        if permuted != actual:
            raise self.fail(
                f"result encoding {res_enc} is not the operand encoding with its dimensions "
                f"permuted by order {list(order)} (as linear layouts they differ)"
            )


# --------------------------------------------------------------------------------------
# Elementwise ops that xDSL's arith does not accept on tensors
# --------------------------------------------------------------------------------------

CMPF_PREDICATES = (
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
    "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true",
)  # fmt: skip
"""``tl.cmpf`` predicates, as in ``arith.cmpf`` (``o`` = ordered, ``u`` = unordered)."""
CMPI_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
"""``tl.cmpi`` predicates, as in ``arith.cmpi``."""


class _CompareOp(TLOperation):
    PREDICATES: ClassVar[tuple[str, ...]] = ()
    T: ClassVar = VarConstraint("T", AnyAttr())
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def()
    predicate = prop_def(StringAttr)
    traits = traits_def(Pure())

    def __init__(self, predicate: str, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        lhs = SSAValue.get(lhs)
        super().__init__(
            operands=[lhs, rhs],
            result_types=[with_element_type(lhs.type, IntegerType(1))],
            properties={"predicate": StringAttr(predicate)},
        )

    def _element_ok(self, element: Attribute) -> bool:
        raise NotImplementedError

    def verify_tl(self) -> None:
        if self.predicate.data not in self.PREDICATES:
            raise self.fail(
                f"unknown predicate '{self.predicate.data}' (expected one of "
                f"{', '.join(self.PREDICATES)})"
            )
        element = element_type_of(self.lhs.type)
        if not self._element_ok(element):
            raise self.fail(f"cannot compare values of element type {element}")
        expected = with_element_type(self.lhs.type, IntegerType(1))
        if self.result.type != expected:
            raise self.fail(f"result type must be {expected}, got {self.result.type}")

    @classmethod
    def parse(cls, parser: Parser) -> _CompareOp:
        # MLIR also accepts the predicate as a string (``arith.cmpi "sgt", ...``).
        predicate = parser.parse_optional_str_literal() or parser.parse_identifier()
        parser.parse_punctuation(",")
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        typ = parser.parse_type()
        op = cls(predicate, parser.resolve_operand(lhs, typ), parser.resolve_operand(rhs, typ))
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.predicate.data}, ")
        printer.print_operand(self.lhs)
        printer.print_string(", ")
        printer.print_operand(self.rhs)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.lhs.type)


@irdl_op_definition
class CmpfOp(_CompareOp):
    """``%m = tl.cmpf olt, %a, %b : tensor<128xf32, #b>`` gives ``tensor<128xi1, #b>``."""

    name = "tl.cmpf"
    PREDICATES: ClassVar[tuple[str, ...]] = CMPF_PREDICATES

    def _element_ok(self, element: Attribute) -> bool:
        return _is_float(element)


@irdl_op_definition
class CmpiOp(_CompareOp):
    """``%m = tl.cmpi slt, %a, %b : tensor<128xi32, #b>`` gives ``tensor<128xi1, #b>``."""

    name = "tl.cmpi"
    PREDICATES: ClassVar[tuple[str, ...]] = CMPI_PREDICATES

    def _element_ok(self, element: Attribute) -> bool:
        return _is_int(element) or isinstance(element, IndexType)


@irdl_op_definition
class SelectOp(TLOperation):
    """``%r = tl.select %c, %a, %b : tensor<128xi1, #b>, tensor<128xf32, #b>``.

    Elementwise ``c ? a : b``; the condition is an ``i1`` tensor of the same shape and encoding
    (or a scalar ``i1`` that picks a whole value).
    """

    name = "tl.select"
    T: ClassVar = VarConstraint("T", AnyAttr())
    cond = operand_def()
    true_value = operand_def(T)
    false_value = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = (
        "$cond `,` $true_value `,` $false_value attr-dict `:` type($cond) `,` type($result)"
    )

    def __init__(
        self,
        cond: SSAValue | Operation,
        true_value: SSAValue | Operation,
        false_value: SSAValue | Operation,
    ):
        true_value = SSAValue.get(true_value)
        super().__init__(operands=[cond, true_value, false_value], result_types=[true_value.type])

    def verify_tl(self) -> None:
        cond = self.cond.type
        if element_type_of(cond) != IntegerType(1):
            raise self.fail(f"condition must be i1 or a tensor of i1, got {cond}")
        if isinstance(cond, TensorType):
            _same_shape_and_encoding(self, [("condition", cond), ("result", self.result.type)])


class _CastOp(TLOperation):
    src = operand_def()
    result = result_def()
    traits = traits_def(Pure())
    assembly_format = "$src attr-dict `:` type($src) `to` type($result)"

    def __init__(self, src: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[src], result_types=[result_type])

    def _check(self, src: Attribute, dst: Attribute) -> str | None:
        raise NotImplementedError

    def verify_tl(self) -> None:
        _same_shape_and_encoding(self, [("operand", self.src.type), ("result", self.result.type)])
        problem = self._check(element_type_of(self.src.type), element_type_of(self.result.type))
        if problem is not None:
            raise self.fail(problem)


def _width(t: Attribute) -> int:
    return t.width.data if isinstance(t, IntegerType) else t.bitwidth  # type: ignore[attr-defined]


class _IntFloatCastOp(_CastOp):
    """A cast between integer and float element types; ``TO_FLOAT`` says which way."""

    TO_FLOAT: ClassVar[bool] = True

    def _check(self, src: Attribute, dst: Attribute) -> str | None:
        if self.TO_FLOAT and not (_is_int(src) and _is_float(dst)):
            return f"converts an integer to a float, got {src} to {dst}"
        if not self.TO_FLOAT and not (_is_float(src) and _is_int(dst)):
            return f"converts a float to an integer, got {src} to {dst}"
        return None


@irdl_op_definition
class SIToFPOp(_IntFloatCastOp):
    """``%f = tl.sitofp %i : tensor<4xi32, #b> to tensor<4xf32, #b>`` (signed int to float)."""

    name = "tl.sitofp"


@irdl_op_definition
class UIToFPOp(_IntFloatCastOp):
    """``%f = tl.uitofp %i : tensor<4xi32, #b> to tensor<4xf32, #b>`` (unsigned int to float)."""

    name = "tl.uitofp"


@irdl_op_definition
class FPToSIOp(_IntFloatCastOp):
    """``%i = tl.fptosi %f : tensor<4xf32, #b> to tensor<4xi32, #b>`` (rounds toward zero)."""

    name = "tl.fptosi"
    TO_FLOAT: ClassVar[bool] = False


@irdl_op_definition
class FPToUIOp(_IntFloatCastOp):
    """``%i = tl.fptoui %f : tensor<4xf32, #b> to tensor<4xi32, #b>`` (rounds toward zero)."""

    name = "tl.fptoui"
    TO_FLOAT: ClassVar[bool] = False


class _IntResizeOp(_CastOp):
    WIDER: ClassVar[bool] = True

    def _check(self, src: Attribute, dst: Attribute) -> str | None:
        if not (_is_int(src) and _is_int(dst)):
            return f"converts between integer types, got {src} to {dst}"
        if self.WIDER and _width(dst) <= _width(src):
            return f"result type {dst} must be wider than {src}"
        if not self.WIDER and _width(dst) >= _width(src):
            return f"result type {dst} must be narrower than {src}"
        return None


@irdl_op_definition
class ExtSIOp(_IntResizeOp):
    """``%w = tl.extsi %x : tensor<4xi32, #b> to tensor<4xi64, #b>`` (sign extension)."""

    name = "tl.extsi"


@irdl_op_definition
class ExtUIOp(_IntResizeOp):
    """``%w = tl.extui %m : tensor<4xi1, #b> to tensor<4xi32, #b>`` (zero extension)."""

    name = "tl.extui"


@irdl_op_definition
class TruncIOp(_IntResizeOp):
    """``%n = tl.trunci %x : tensor<4xi64, #b> to tensor<4xi32, #b>`` (keeps the low bits)."""

    name = "tl.trunci"
    WIDER: ClassVar[bool] = False


# --------------------------------------------------------------------------------------
# Pointers, loads and stores
# --------------------------------------------------------------------------------------


@irdl_op_definition
class AddPtrOp(TLOperation):
    """``%p = tl.addptr %ptrs, %offs : tensor<128x!tl.ptr<f32>, #b>, tensor<128xi32, #b>``.

    Advances each pointer by a number of *elements* (not bytes), like Triton's ``tt.addptr``.
    """

    name = "tl.addptr"
    T: ClassVar = VarConstraint("T", AnyAttr())
    ptr = operand_def(T)
    offset = operand_def()
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$ptr `,` $offset attr-dict `:` type($result) `,` type($offset)"

    def __init__(self, ptr: SSAValue | Operation, offset: SSAValue | Operation):
        ptr = SSAValue.get(ptr)
        super().__init__(operands=[ptr, offset], result_types=[ptr.type])

    def verify_tl(self) -> None:
        if not _is_ptr(element_type_of(self.ptr.type)):
            raise self.fail(
                f"first operand must be a pointer or tensor of pointers, got {self.ptr.type}"
            )
        if not _is_int(element_type_of(self.offset.type)):
            raise self.fail(
                f"offset must be an integer or tensor of integers, got {self.offset.type}"
            )
        _same_shape_and_encoding(self, [("pointer", self.ptr.type), ("offset", self.offset.type)])


def _pointee_type(op: TLOperation, ptr_type: Attribute) -> Attribute:
    element = element_type_of(ptr_type)
    if not isinstance(element, PointerType):
        raise op.fail(f"expected a pointer or tensor of pointers, got {ptr_type}")
    return with_element_type(ptr_type, element.pointee)


@irdl_op_definition
class LoadOp(TLOperation):
    """``%x = tl.load %ptrs, %mask, %other : tensor<128x!tl.ptr<f32>, #b>``.

    Reads one element per pointer. Lanes whose ``%mask`` (``i1``, same shape) is false are not
    read and take ``%other`` (0 if omitted). The result type is the pointee type with the
    pointer tensor's shape and encoding. ``%mask`` and ``%other`` are optional.
    """

    name = "tl.load"
    ptr = operand_def()
    mask = opt_operand_def()
    other = opt_operand_def()
    result = result_def()
    traits = traits_def(MemoryReadEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        ptr: SSAValue | Operation,
        mask: SSAValue | Operation | None = None,
        other: SSAValue | Operation | None = None,
        result_type: Attribute | None = None,
    ):
        ptr = SSAValue.get(ptr)
        if result_type is None:
            element = element_type_of(ptr.type)
            pointee = element.pointee if isinstance(element, PointerType) else element
            result_type = with_element_type(ptr.type, pointee)
        super().__init__(
            operands=[ptr, [] if mask is None else [mask], [] if other is None else [other]],
            result_types=[result_type],
        )

    def verify_tl(self) -> None:
        expected = _pointee_type(self, self.ptr.type)
        if self.result.type != expected:
            raise self.fail(f"result type must be {expected}, got {self.result.type}")
        if self.other is not None and self.mask is None:
            raise self.fail("'other' requires a mask")
        if self.mask is not None:
            if element_type_of(self.mask.type) != IntegerType(1):
                raise self.fail(f"mask must be i1 or a tensor of i1, got {self.mask.type}")
            _same_shape_and_encoding(self, [("pointer", self.ptr.type), ("mask", self.mask.type)])
        if self.other is not None and self.other.type != expected:
            raise self.fail(f"'other' must have the result type {expected}, got {self.other.type}")

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        ptr = parser.parse_unresolved_operand()
        extra: list[UnresolvedOperand] = []
        while len(extra) < 2 and parser.parse_optional_punctuation(",") is not None:
            extra.append(parser.parse_unresolved_operand())
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ptr_type = parser.parse_type()
        element = element_type_of(ptr_type)
        if not isinstance(element, PointerType):
            parser.raise_error(f"tl.load: expected a pointer type, got {ptr_type}")
        result_type = with_element_type(ptr_type, element.pointee)
        mask = other = None
        if extra:
            mask = parser.resolve_operand(extra[0], with_element_type(ptr_type, IntegerType(1)))
        if len(extra) > 1:
            other = parser.resolve_operand(extra[1], result_type)
        op = cls(parser.resolve_operand(ptr, ptr_type), mask, other, result_type)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(
            [v for v in (self.ptr, self.mask, self.other) if v is not None], printer.print_operand
        )
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.ptr.type)


@irdl_op_definition
class StoreOp(TLOperation):
    """``tl.store %ptrs, %values, %mask : tensor<128x!tl.ptr<f32>, #b>`` (``%mask`` optional).

    Writes one element per pointer; lanes whose mask is false are not written.
    """

    name = "tl.store"
    ptr = operand_def()
    value = operand_def()
    mask = opt_operand_def()
    traits = traits_def(MemoryWriteEffect())

    def __init__(
        self,
        ptr: SSAValue | Operation,
        value: SSAValue | Operation,
        mask: SSAValue | Operation | None = None,
    ):
        super().__init__(operands=[ptr, value, [] if mask is None else [mask]])

    def verify_tl(self) -> None:
        expected = _pointee_type(self, self.ptr.type)
        if self.value.type != expected:
            raise self.fail(f"value must have type {expected}, got {self.value.type}")
        if self.mask is not None:
            if element_type_of(self.mask.type) != IntegerType(1):
                raise self.fail(f"mask must be i1 or a tensor of i1, got {self.mask.type}")
            _same_shape_and_encoding(self, [("pointer", self.ptr.type), ("mask", self.mask.type)])

    @classmethod
    def parse(cls, parser: Parser) -> StoreOp:
        ptr = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        value = parser.parse_unresolved_operand()
        mask = None
        if parser.parse_optional_punctuation(",") is not None:
            mask = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ptr_type = parser.parse_type()
        element = element_type_of(ptr_type)
        if not isinstance(element, PointerType):
            parser.raise_error(f"tl.store: expected a pointer type, got {ptr_type}")
        op = cls(
            parser.resolve_operand(ptr, ptr_type),
            parser.resolve_operand(value, with_element_type(ptr_type, element.pointee)),
            None
            if mask is None
            else parser.resolve_operand(mask, with_element_type(ptr_type, IntegerType(1))),
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(
            [v for v in (self.ptr, self.value, self.mask) if v is not None], printer.print_operand
        )
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.ptr.type)


# --------------------------------------------------------------------------------------
# Reductions, dot, layout conversion, program ids
# --------------------------------------------------------------------------------------


@irdl_op_definition
class ReduceOp(TLOperation):
    """Reduce tensors along ``axis`` with a combining region.

    ::

        %m = tl.reduce %x {axis = 1 : i32} : tensor<32x64xf32, #b> -> tensor<32xf32, #s> {
        ^bb0(%a: f32, %c: f32):
          %r = arith.maxnumf %a, %c : f32
          tl.reduce.return %r : f32
        }

    With ``n`` operands the region takes ``2n`` scalars (the ``n`` accumulated values, then
    the ``n`` new ones) and returns ``n``. The result drops ``axis`` from the shape and has
    encoding ``#tl.slice<{dim = axis, parent = <operand encoding>}>``; reducing a 1-D tensor
    gives scalars. The combining function must be associative and commutative: the order in
    which elements are combined is unspecified.
    """

    name = "tl.reduce"
    srcs = var_operand_def(TensorType)
    results_ = var_result_def()
    axis = prop_def(IntegerAttr)
    combine = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$srcs attr-dict `:` type($srcs) `->` type($results_) $combine"

    def __init__(
        self,
        srcs: Sequence[SSAValue | Operation],
        axis: int,
        result_types: Sequence[Attribute],
        combine: Region,
    ):
        super().__init__(
            operands=[srcs],
            result_types=[result_types],
            properties={"axis": IntegerAttr(axis, i32)},
            regions=[combine],
        )

    def verify_tl(self) -> None:
        srcs = [s.type for s in self.srcs]
        if not srcs:
            raise self.fail("needs at least one operand")
        if len(self.results_) != len(srcs):
            raise self.fail(f"has {len(srcs)} operands but {len(self.results_)} results")
        first = srcs[0]
        _same_shape_and_encoding(self, [(f"operand #{i}", t) for i, t in enumerate(srcs)])
        shape = list(first.get_shape())
        axis = self.axis.value.data
        if not 0 <= axis < len(shape):
            raise self.fail(f"axis {axis} is out of range for operands of rank {len(shape)}")
        out_shape = shape[:axis] + shape[axis + 1 :]
        enc = encoding_of(first)
        for i, (src, res) in enumerate(zip(srcs, self.results_, strict=True)):
            rt = res.type
            if not out_shape:
                if rt != src.element_type:
                    raise self.fail(
                        f"reducing a 1-D tensor gives a scalar: result #{i} must be "
                        f"{src.element_type}, got {rt}"
                    )
                continue
            if not isinstance(rt, TensorType) or list(rt.get_shape()) != out_shape:
                raise self.fail(
                    f"result #{i} must be a tensor of shape {out_shape} (axis {axis} dropped), "
                    f"got {rt}"
                )
            if rt.element_type != src.element_type:
                raise self.fail(
                    f"result #{i} element type {rt.element_type} differs from the operand's "
                    f"{src.element_type}"
                )
            self._verify_result_encoding(i, enc, encoding_of(rt), axis)
        self._verify_region([t.element_type for t in srcs])

    def _verify_result_encoding(
        self, i: int, enc: Attribute | None, res_enc: Attribute | None, axis: int
    ) -> None:
        expected = f"#tl.slice<{{dim = {axis}, parent = {_fmt(enc)}}}>"
        if enc is None:
            if res_enc is not None:
                raise self.fail(f"result #{i} has encoding {res_enc} but the operands have none")
            return
        if res_enc is None:
            raise self.fail(f"result #{i} encoding must be {expected}, got no encoding")
        layout, res_layout = layout_of(enc), layout_of(res_enc)
        if layout is None or res_layout is None:
            return
        expected = f"#tl.slice<{{dim = {axis}, parent = <operand encoding>}}>"
        if getattr(res_layout, "kind", None) != "slice":
            raise self.fail(f"result #{i} encoding must be {expected}, got {res_enc}")
        if res_layout.dim != axis:  # type: ignore[attr-defined]
            raise self.fail(
                f"result #{i} encoding must be {expected}, got a slice with dim = {res_layout.dim}"  # type: ignore[attr-defined]
            )
        if res_layout.parent != layout:  # type: ignore[attr-defined]
            raise self.fail(
                f"result #{i} encoding must be {expected}, got a slice whose parent "
                f"{_fmt_layout(res_layout.parent)} differs from the operand encoding "  # type: ignore[attr-defined]
                f"{_fmt(enc)}"
            )

    def _verify_region(self, elements: list[Attribute]) -> None:
        block = self.combine.block
        arg_types = [a.type for a in block.args]
        if arg_types != elements + elements:
            want = ", ".join(str(t) for t in elements + elements)
            got = ", ".join(str(t) for t in arg_types)
            raise self.fail(f"combining region must take ({want}), got ({got})")
        last = block.last_op
        if not isinstance(last, ReduceReturnOp):
            raise self.fail("combining region must end with tl.reduce.return")
        if [v.type for v in last.values] != elements:
            want = ", ".join(str(t) for t in elements)
            got = ", ".join(str(v.type) for v in last.values)
            raise self.fail(f"combining region must return ({want}), got ({got})")


@irdl_op_definition
class ReduceReturnOp(TLOperation):
    """``tl.reduce.return %r : f32``: the combined value(s) of a ``tl.reduce`` region."""

    name = "tl.reduce.return"
    values = var_operand_def()
    traits = traits_def(IsTerminator(), HasParent(ReduceOp), Pure())
    assembly_format = "$values attr-dict `:` type($values)"

    def __init__(self, *values: SSAValue | Operation):
        super().__init__(operands=[list(values)])


@irdl_op_definition
class DotOp(TLOperation):
    """Matrix product with accumulator: ``d = a @ b + acc``.

    ``%d = tl.dot %a, %b, %acc : tensor<MxKxf16, #A> * tensor<KxNxf16, #B> -> tensor<MxNxf32,
    #C>``. Products are accumulated in the result element type. ``#A`` and ``#B`` are
    ``#tl.dot_op<{opIdx = 0/1, parent = #C, ...}>`` (or all three encodings are absent before
    layouts are assigned); an optional leading batch dimension is allowed.
    """

    name = "tl.dot"
    T: ClassVar = VarConstraint("T", AnyAttr())
    a = operand_def(TensorType)
    b = operand_def(TensorType)
    acc = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$a `,` $b `,` $acc attr-dict `:` type($a) `*` type($b) `->` type($result)"

    def __init__(self, a: SSAValue | Operation, b: SSAValue | Operation, acc: SSAValue | Operation):
        acc = SSAValue.get(acc)
        super().__init__(operands=[a, b, acc], result_types=[acc.type])

    def verify_tl(self) -> None:
        a, b, c = self.a.type, self.b.type, self.result.type
        if not (
            a.get_num_dims() == b.get_num_dims() == c.get_num_dims() and a.get_num_dims() in (2, 3)
        ):
            raise self.fail(
                f"operands must all be rank 2 (or 3 with a batch dimension), got ranks "
                f"{a.get_num_dims()}, {b.get_num_dims()}, {c.get_num_dims()}"
            )
        *ba, m, k = a.get_shape()
        *bb, k2, n = b.get_shape()
        *bc, m2, n2 = c.get_shape()
        if k != k2:
            raise self.fail(f"K mismatch: a is {m}x{k} but b is {k2}x{n}")
        if (m2, n2) != (m, n):
            raise self.fail(f"result must be {m}x{n} (a is {m}x{k}, b is {k2}x{n}), got {m2}x{n2}")
        if ba != bb or ba != bc:
            raise self.fail(f"batch dimensions differ: {ba}, {bb}, {bc}")
        if a.element_type != b.element_type and not (
            # Two fp8 formats (e4m3 x e5m2): Triton's tt.dot takes them, and the mma
            # instructions of sm_89+ multiply them directly.
            _is_fp8(a.element_type) and _is_fp8(b.element_type)
        ):
            # Mixed precision (seed 001, case 1): an integer operand with a float operand; the
            # integer one is converted to the float type in registers after its load.
            kinds = sorted((_is_int(a.element_type), _is_int(b.element_type)))
            if kinds != [False, True] or not (
                _is_float(a.element_type) or _is_float(b.element_type)
            ):
                raise self.fail(
                    f"a and b element types differ: {a.element_type} vs {b.element_type} "
                    "(mixed precision needs one integer and one float operand)"
                )
            if not _is_float(c.element_type):
                raise self.fail(
                    f"a mixed-precision dot ({a.element_type} x {b.element_type}) accumulates "
                    f"in a float type, got {c.element_type}"
                )
        encs = [encoding_of(t) for t in (a, b, c)]
        if all(e is None for e in encs):
            return
        if any(e is None for e in encs):
            raise self.fail("operands and result must all have encodings or none")
        res_layout = layout_of(encs[2])
        for idx, (name, enc) in enumerate((("a", encs[0]), ("b", encs[1]))):
            layout = layout_of(enc)
            if layout is None or res_layout is None:
                continue
            expected = f"#tl.dot_op<{{opIdx = {idx}, parent = <result encoding>, ...}}>"
            if getattr(layout, "kind", None) != "dot_op":
                raise self.fail(f"operand {name} encoding must be {expected}, got {enc}")
            if layout.op_idx != idx:  # type: ignore[attr-defined]
                raise self.fail(
                    f"operand {name} encoding must be {expected}, got opIdx = {layout.op_idx}"  # type: ignore[attr-defined]
                )
            if layout.parent != res_layout:  # type: ignore[attr-defined]
                raise self.fail(
                    f"operand {name} encoding must be {expected}, got a dot_op whose parent "
                    f"{_fmt_layout(layout.parent)} differs from the result encoding "  # type: ignore[attr-defined]
                    f"{encs[2]}"
                )


class ConvertLayoutCanonicalization(HasCanonicalizationPatternsTrait):
    """The folds of ``tl.convert_layout`` (:mod:`llc.dialects.tl_canonicalization`)."""

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        from llc.dialects.tl_canonicalization import CONVERT_LAYOUT_PATTERNS

        return CONVERT_LAYOUT_PATTERNS


@irdl_op_definition
class ConvertLayoutOp(TLOperation):
    """``%y = tl.convert_layout %x : tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #mma>``.

    Changes only the encoding: shape and element type stay the same, and so do the values.
    ``canonicalize`` folds identity conversions, chains and conversions of constants, splats
    and ranges (:mod:`llc.dialects.tl_canonicalization`).
    """

    name = "tl.convert_layout"
    src = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), ConvertLayoutCanonicalization())
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"

    def __init__(self, src: SSAValue | Operation, result_type: TensorType):
        super().__init__(operands=[src], result_types=[result_type])

    def verify_tl(self) -> None:
        src, res = self.src.type, self.result.type
        if src.get_shape() != res.get_shape():
            raise self.fail(
                f"shape must not change: {list(src.get_shape())} vs {list(res.get_shape())}"
            )
        if src.element_type != res.element_type:
            raise self.fail(
                f"element type must not change: {src.element_type} vs {res.element_type}"
            )


_AXES = ("x", "y", "z")


class _ProgramAxisOp(TLOperation):
    axis = prop_def(IntegerAttr)
    result = result_def()
    traits = traits_def(Pure())

    def __init__(self, axis: int | str = 0):
        if isinstance(axis, str):
            axis = _AXES.index(axis)
        super().__init__(properties={"axis": IntegerAttr(axis, i32)}, result_types=[i32])

    def verify_tl(self) -> None:
        if self.axis.value.data not in (0, 1, 2):
            raise self.fail(f"axis must be 0, 1 or 2 (x, y, z), got {self.axis.value.data}")
        if self.result.type != i32:
            raise self.fail(f"result must be i32, got {self.result.type}")

    @classmethod
    def parse(cls, parser: Parser) -> _ProgramAxisOp:
        axis = parser.parse_identifier()
        if axis not in _AXES:
            parser.raise_error(f"{cls.name}: axis must be x, y or z, got '{axis}'")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        parser.parse_type()
        op = cls(axis)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        axis = self.axis.value.data
        printer.print_string(f" {_AXES[axis] if 0 <= axis < 3 else axis}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class GetProgramIdOp(_ProgramAxisOp):
    """``%pid = tl.get_program_id x : i32``: this program's index along the grid axis x/y/z."""

    name = "tl.get_program_id"


@irdl_op_definition
class GetNumProgramsOp(_ProgramAxisOp):
    """``%n = tl.get_num_programs x : i32``: the grid size along axis x/y/z."""

    name = "tl.get_num_programs"


# --------------------------------------------------------------------------------------
# Shared memory
# --------------------------------------------------------------------------------------


def _check_tensor_memdesc(op: TLOperation, tensor: Attribute, mem: Attribute) -> None:
    if not isinstance(mem, MemDescType):
        raise op.fail(f"expected a !tl.memdesc, got {mem}")
    if shape_of(tensor) != shape_of(mem) or element_type_of(tensor) != element_type_of(mem):
        raise op.fail(f"tensor {tensor} and memory {mem} differ in shape or element type")


@irdl_op_definition
class LocalAllocOp(TLOperation):
    """Allocate shared memory, optionally initialised from a tensor.

    ``%m = tl.local_alloc %x : (tensor<64x64xf16, #b>) -> !tl.memdesc<64x64xf16, #shared>``
    or ``%m = tl.local_alloc : () -> !tl.memdesc<64x64xf16, #shared>`` (contents undefined).
    """

    name = "tl.local_alloc"
    src = opt_operand_def(TensorType)
    result = result_def(MemDescType)
    traits = traits_def(MemoryAllocEffect())
    assembly_format = "($src^)? attr-dict `:` functional-type($src, $result)"

    def __init__(self, result_type: MemDescType, src: SSAValue | Operation | None = None):
        super().__init__(operands=[[] if src is None else [src]], result_types=[result_type])

    def verify_tl(self) -> None:
        if self.src is not None:
            _check_tensor_memdesc(self, self.src.type, self.result.type)


@irdl_op_definition
class LocalLoadOp(TLOperation):
    """``%x = tl.local_load %m : !tl.memdesc<64x64xf16, #shared> -> tensor<64x64xf16, #b>``."""

    name = "tl.local_load"
    src = operand_def(MemDescType)
    token = opt_operand_def(AsyncTokenType)
    result = result_def(TensorType)
    traits = traits_def(MemoryReadEffect())

    def __init__(
        self,
        src: SSAValue | Operation,
        result_type: TensorType,
        token: SSAValue | Operation | None = None,
    ):
        super().__init__(
            operands=[src, [] if token is None else [token]], result_types=[result_type]
        )

    @classmethod
    def parse(cls, parser: Parser) -> LocalLoadOp:
        """``%x = tl.local_load %m [token %t] : !tl.memdesc<...> -> tensor<...>``: the token
        (Triton's) names the ``tl.async_wait`` after which ``%m`` holds its copies."""
        src = parser.parse_unresolved_operand()
        token = None
        if parser.parse_optional_keyword("token") is not None:
            token = parser.parse_operand(AsyncTokenType())
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        op = cls(parser.resolve_operand(src, src_type), result_type, token)  # type: ignore[arg-type]
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        if self.token is not None:
            printer.print_string(" token ")
            printer.print_operand(self.token)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def verify_tl(self) -> None:
        _check_tensor_memdesc(self, self.result.type, self.src.type)


@irdl_op_definition
class LocalStoreOp(TLOperation):
    """``tl.local_store %x, %m : tensor<64x64xf16, #b> -> !tl.memdesc<64x64xf16, #shared>``."""

    name = "tl.local_store"
    src = operand_def(TensorType)
    dst = operand_def(MemDescType)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$src `,` $dst attr-dict `:` type($src) `->` type($dst)"

    def __init__(self, src: SSAValue | Operation, dst: SSAValue | Operation):
        super().__init__(operands=[src, dst])

    def verify_tl(self) -> None:
        _check_tensor_memdesc(self, self.src.type, self.dst.type)


@irdl_op_definition
class LocalDeallocOp(TLOperation):
    """``tl.local_dealloc %m : !tl.memdesc<64x64xf16, #shared>``: release shared memory."""

    name = "tl.local_dealloc"
    src = operand_def(MemDescType)
    traits = traits_def(MemoryFreeEffect())
    assembly_format = "$src attr-dict `:` type($src)"

    def __init__(self, src: SSAValue | Operation):
        super().__init__(operands=[src])


# --------------------------------------------------------------------------------------
# Ops real Triton kernels use beyond the tutorials: atomics, cat/join/split, casts,
# histogram, gather, device print and assert (spelled as Triton 3.9 prints them)
# --------------------------------------------------------------------------------------

ATOMIC_RMW_KINDS = ("and", "or", "xor", "add", "fadd", "max", "min", "umax", "umin", "exch")
"""``tl.atomic_rmw`` operations (Triton's ``RMWOp``)."""
MEM_SEMANTICS = ("relaxed", "acquire", "release", "acq_rel")
"""Memory orderings of the atomics (Triton's ``MemSemantic``)."""
MEM_SCOPES = ("gpu", "cta", "sys")
"""Scopes of the atomics (Triton's ``MemSyncScope``)."""


def _check_keyword(op: TLOperation, what: str, value: str, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise op.fail(f"unknown {what} '{value}' (expected one of {', '.join(allowed)})")


def _check_pointer_value(op: TLOperation, ptr: Attribute, value: Attribute, what: str) -> None:
    pointer = element_type_of(ptr)
    if not isinstance(pointer, PointerType):
        raise op.fail(f"ptr must be a pointer or a tensor of pointers, got {ptr}")
    if pointer.pointee != element_type_of(value):
        raise op.fail(f"{what} type {value} does not match the pointee {pointer.pointee}")
    if shape_of(ptr) != shape_of(value) or encoding_of(ptr) != encoding_of(value):
        raise op.fail(f"{what} type {value} does not match the shape and layout of ptr {ptr}")


def _parse_keywords(parser: Parser, count: int) -> list[str]:
    words = []
    for _ in range(count):
        words.append(parser.parse_identifier())
        parser.parse_punctuation(",")
    return words


def _parse_functional_operands(
    parser: Parser, operands: Sequence[UnresolvedOperand]
) -> tuple[list[SSAValue], Attribute]:
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
    parser.parse_punctuation("->")
    result = parser.parse_type()
    if len(types) != len(operands):
        parser.raise_error(f"expected {len(operands)} operand types, got {len(types)}")
    values = [parser.resolve_operand(o, t) for o, t in zip(operands, types, strict=True)]
    return values, result


def _print_functional(printer: Printer, op: Operation) -> None:
    printer.print_string(" : (")
    printer.print_list([v.type for v in op.operands], printer.print_attribute)
    printer.print_string(") -> ")
    printer.print_attribute(op.results[0].type)


@irdl_op_definition
class AtomicRMWOp(TLOperation):
    """Atomic read-modify-write; returns the old values.

    ``%old = tl.atomic_rmw fadd, acq_rel, gpu, %ptr, %val, %mask : (tensor<128x!tl.ptr<f32>>,
    tensor<128xf32>, tensor<128xi1>) -> tensor<128xf32>``. Kinds: :data:`ATOMIC_RMW_KINDS`
    (``max``/``min`` signed, ``umax``/``umin`` unsigned, ``fadd`` for floats, ``exch`` swaps:
    Triton's spelling for ``tl.atomic_xchg``).
    Masked-off elements are not touched and return an undefined value (0 in the interpreter).
    """

    name = "tl.atomic_rmw"
    ptr = operand_def()
    val = operand_def()
    mask = opt_operand_def()
    result = result_def()
    atomic_rmw_op = prop_def(StringAttr)
    sem = prop_def(StringAttr)
    scope = prop_def(StringAttr)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(
        self,
        kind: str,
        ptr: SSAValue | Operation,
        val: SSAValue | Operation,
        mask: SSAValue | Operation | None = None,
        sem: str = "acq_rel",
        scope: str = "gpu",
    ):
        val = SSAValue.get(val)
        super().__init__(
            operands=[ptr, val, [] if mask is None else [mask]],
            result_types=[val.type],
            properties={
                "atomic_rmw_op": StringAttr(kind),
                "sem": StringAttr(sem),
                "scope": StringAttr(scope),
            },
        )

    def verify_tl(self) -> None:
        kind = self.atomic_rmw_op.data
        _check_keyword(self, "operation", kind, ATOMIC_RMW_KINDS)
        _check_keyword(self, "memory semantic", self.sem.data, MEM_SEMANTICS)
        _check_keyword(self, "scope", self.scope.data, MEM_SCOPES)
        _check_pointer_value(self, self.ptr.type, self.val.type, "value")
        element = element_type_of(self.val.type)
        if kind == "fadd" and not _is_float(element):
            raise self.fail(f"fadd needs a float value, got {element}")
        if kind in ("and", "or", "xor", "umax", "umin") and not _is_int(element):
            raise self.fail(f"{kind} needs an integer value, got {element}")
        if self.result.type != self.val.type:
            raise self.fail(f"result type must be {self.val.type}, got {self.result.type}")
        if self.mask is not None:
            _same_shape_and_encoding(self, [("ptr", self.ptr.type), ("mask", self.mask.type)])

    @classmethod
    def parse(cls, parser: Parser) -> AtomicRMWOp:
        kind, sem, scope = _parse_keywords(parser, 3)
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict()
        if len(operands) not in (2, 3):
            parser.raise_error(
                f"tl.atomic_rmw takes ptr, value and an optional mask, got {len(operands)} operands"
            )
        values, _ = _parse_functional_operands(parser, operands)
        op = cls(kind, values[0], values[1], values[2] if len(values) == 3 else None, sem, scope)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.atomic_rmw_op.data}, {self.sem.data}, {self.scope.data}, ")
        printer.print_list(self.operands, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        _print_functional(printer, self)


@irdl_op_definition
class AtomicCASOp(TLOperation):
    """Atomic compare-and-swap: where ``*ptr == cmp`` store ``val``; returns the old values.

    ``%old = tl.atomic_cas acq_rel, gpu, %ptr, %cmp, %val : (tensor<128x!tl.ptr<i32>>,
    tensor<128xi32>, tensor<128xi32>) -> tensor<128xi32>``.
    """

    name = "tl.atomic_cas"
    ptr = operand_def()
    cmp = operand_def()
    val = operand_def()
    result = result_def()
    sem = prop_def(StringAttr)
    scope = prop_def(StringAttr)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(
        self,
        ptr: SSAValue | Operation,
        cmp: SSAValue | Operation,
        val: SSAValue | Operation,
        sem: str = "acq_rel",
        scope: str = "gpu",
    ):
        val = SSAValue.get(val)
        super().__init__(
            operands=[ptr, cmp, val],
            result_types=[val.type],
            properties={"sem": StringAttr(sem), "scope": StringAttr(scope)},
        )

    def verify_tl(self) -> None:
        _check_keyword(self, "memory semantic", self.sem.data, MEM_SEMANTICS)
        _check_keyword(self, "scope", self.scope.data, MEM_SCOPES)
        _check_pointer_value(self, self.ptr.type, self.val.type, "value")
        if self.cmp.type != self.val.type:
            raise self.fail(f"cmp type {self.cmp.type} differs from value type {self.val.type}")
        if self.result.type != self.val.type:
            raise self.fail(f"result type must be {self.val.type}, got {self.result.type}")

    @classmethod
    def parse(cls, parser: Parser) -> AtomicCASOp:
        sem, scope = _parse_keywords(parser, 2)
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict()
        if len(operands) != 3:
            parser.raise_error(f"tl.atomic_cas takes ptr, cmp and value, got {len(operands)}")
        values, _ = _parse_functional_operands(parser, operands)
        op = cls(*values, sem=sem, scope=scope)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.sem.data}, {self.scope.data}, ")
        printer.print_list(self.operands, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        _print_functional(printer, self)


@irdl_op_definition
class CatOp(TLOperation):
    """Concatenate two tensors along dim 0.

    ``%c = tl.cat %a, %b : tensor<128xf32, #b> -> tensor<256xf32, #b1>``. Triton lets the
    compiler reorder the elements of the result (``can_reorder``); llc's reference semantics is
    the plain concatenation, a valid choice of order.
    """

    name = "tl.cat"
    T: ClassVar = VarConstraint("T", AnyAttr())
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)"

    def verify_tl(self) -> None:
        src, dst = shape_of(self.lhs.type), shape_of(self.result.type)
        if not src or dst != (2 * src[0], *src[1:]):
            raise self.fail(
                f"result shape must be {[2 * src[0], *src[1:]] if src else '?'}, got {list(dst)}"
            )
        if element_type_of(self.result.type) != element_type_of(self.lhs.type):
            raise self.fail("result element type differs from the operands'")


@irdl_op_definition
class JoinOp(TLOperation):
    """Stack two tensors along a new minor dimension of size 2.

    ``%j = tl.join %a, %b : tensor<128xf32> -> tensor<128x2xf32>`` (``j[..., 0] = a``,
    ``j[..., 1] = b``).
    """

    name = "tl.join"
    T: ClassVar = VarConstraint("T", AnyAttr())
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)"

    def verify_tl(self) -> None:
        expected = (*shape_of(self.lhs.type), 2)
        if shape_of(self.result.type) != expected:
            raise self.fail(
                f"result shape must be {list(expected)}, got {list(shape_of(self.result.type))}"
            )
        if element_type_of(self.result.type) != element_type_of(self.lhs.type):
            raise self.fail("result element type differs from the operands'")


@irdl_op_definition
class SplitOp(TLOperation):
    """Split a tensor whose minor dimension has size 2 into its two halves (inverse of join).

    ``%a, %b = tl.split %j : tensor<128x2xf32> -> tensor<128xf32>``.
    """

    name = "tl.split"
    src = operand_def(TensorType)
    out_lhs = result_def()
    out_rhs = result_def()
    traits = traits_def(Pure())

    def __init__(self, src: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[src], result_types=[result_type, result_type])

    def verify_tl(self) -> None:
        shape = shape_of(self.src.type)
        if not shape or shape[-1] != 2:
            raise self.fail(f"the minor dimension must have size 2, got shape {list(shape)}")
        for result in (self.out_lhs, self.out_rhs):
            if shape_of(result.type) != shape[:-1]:
                raise self.fail(
                    f"results must have shape {list(shape[:-1])}, got {list(shape_of(result.type))}"
                )
            if element_type_of(result.type) != element_type_of(self.src.type):
                raise self.fail("result element type differs from the operand's")
        if self.out_lhs.type != self.out_rhs.type:
            raise self.fail("both results must have the same type")

    @classmethod
    def parse(cls, parser: Parser) -> SplitOp:
        src = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        op = cls(parser.resolve_operand(src, src_type), result_type)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.out_lhs.type)


def _bit_width(typ: Attribute) -> int | None:
    if isinstance(typ, PointerType):
        return 64
    if isinstance(typ, IntegerType):
        return typ.width.data
    if isinstance(typ, AnyFloat):
        return typ.bitwidth
    return None


@irdl_op_definition
class BitcastOp(TLOperation):
    """Reinterpret the bits of each element as another type of the same width (or a pointer
    as a pointer to another type).

    ``%i = tl.bitcast %x : tensor<128xf32> -> tensor<128xi32>``.
    """

    name = "tl.bitcast"
    src = operand_def()
    result = result_def()
    traits = traits_def(Pure())
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"

    def __init__(self, src: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[src], result_types=[result_type])

    def verify_tl(self) -> None:
        src, dst = self.src.type, self.result.type
        if shape_of(src) != shape_of(dst) or encoding_of(src) != encoding_of(dst):
            raise self.fail(f"{src} and {dst} differ in shape or layout")
        a, b = element_type_of(src), element_type_of(dst)
        if isinstance(a, PointerType) != isinstance(b, PointerType):
            raise self.fail(f"cannot bitcast between a pointer and a non-pointer ({a} -> {b})")
        if _bit_width(a) is None or _bit_width(a) != _bit_width(b):
            raise self.fail(f"element types {a} and {b} have different bit widths")


FP_ROUNDINGS = ("rtne", "rtz")
"""Rounding modes of ``tl.fp_to_fp`` (Triton's ``RoundingMode``)."""


@irdl_op_definition
class FpToFpOp(TLOperation):
    """Convert between float types; narrowing needs a rounding mode.

    ``%h = tl.fp_to_fp %x, rounding = rtne : tensor<128xf32> -> tensor<128xf16>``.
    """

    name = "tl.fp_to_fp"
    src = operand_def()
    result = result_def()
    rounding = opt_prop_def(StringAttr)
    traits = traits_def(Pure())

    def __init__(
        self, src: SSAValue | Operation, result_type: Attribute, rounding: str | None = None
    ):
        super().__init__(
            operands=[src],
            result_types=[result_type],
            properties={} if rounding is None else {"rounding": StringAttr(rounding)},
        )

    def verify_tl(self) -> None:
        src, dst = self.src.type, self.result.type
        _same_shape_and_encoding(self, [("operand", src), ("result", dst)])
        a, b = element_type_of(src), element_type_of(dst)
        if not (_is_float(a) and _is_float(b)):
            raise self.fail(f"operand and result must be floats, got {a} -> {b}")
        if self.rounding is not None:
            _check_keyword(self, "rounding mode", self.rounding.data, FP_ROUNDINGS)
        elif b.bitwidth < a.bitwidth:
            raise self.fail(f"narrowing {a} -> {b} needs a rounding mode (rounding = rtne)")

    @classmethod
    def parse(cls, parser: Parser) -> FpToFpOp:
        src = parser.parse_unresolved_operand()
        rounding = None
        if parser.parse_optional_punctuation(",") is not None:
            parser.parse_keyword("rounding")
            parser.parse_punctuation("=")
            rounding = parser.parse_identifier()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        op = cls(parser.resolve_operand(src, src_type), result_type, rounding)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        if self.rounding is not None:
            printer.print_string(f", rounding = {self.rounding.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class HistogramOp(TLOperation):
    """Count the values of an integer tensor into ``N`` bins: ``out[b] = #{i : src[i] == b}``.

    ``%h = tl.histogram %x : tensor<128xi32> -> tensor<8xi32>``. Values outside ``[0, N)``
    are not counted.
    """

    name = "tl.histogram"
    src = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"

    def verify_tl(self) -> None:
        if len(shape_of(self.src.type)) != 1 or len(shape_of(self.result.type)) != 1:
            raise self.fail("operand and result must be 1-D tensors")
        for what, typ in (("operand", self.src.type), ("result", self.result.type)):
            if not _is_int(element_type_of(typ)):
                raise self.fail(f"{what} must have an integer element type, got {typ}")


@irdl_op_definition
class GatherOp(TLOperation):
    """``out[..., i_axis, ...] = src[..., idx[..., i_axis, ...], ...]`` along ``axis``.

    ``%g = tl.gather %src[%idx] {axis = 0 : i32} : (tensor<128xf32>, tensor<64xi32>) ->
    tensor<64xf32>``; the result has the shape of the indices.
    """

    name = "tl.gather"
    src = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$src `[` $indices `]` attr-dict `:` functional-type(operands, results)"

    def verify_tl(self) -> None:
        src, idx = shape_of(self.src.type), shape_of(self.indices.type)
        axis = self.axis.value.data
        if len(src) != len(idx) or not 0 <= axis < len(src):
            raise self.fail(f"axis {axis} and ranks of src {list(src)} / indices {list(idx)}")
        if any(s != i for d, (s, i) in enumerate(zip(src, idx, strict=True)) if d != axis):
            raise self.fail(f"src {list(src)} and indices {list(idx)} differ off the axis")
        if shape_of(self.result.type) != idx:
            raise self.fail(f"result must have the indices' shape {list(idx)}")
        if not _is_int(element_type_of(self.indices.type)):
            raise self.fail("indices must be integers")
        if element_type_of(self.result.type) != element_type_of(self.src.type):
            raise self.fail("result element type differs from src")
        idx_enc, res_enc = encoding_of(self.indices.type), encoding_of(self.result.type)
        if idx_enc is not None and res_enc is not None and idx_enc != res_enc:
            # Each thread produces the results of the indices it holds (Triton's rule).
            raise self.fail("result encoding must be the indices' encoding")


@irdl_op_definition
class Fp4ToFpOp(TLOperation):
    """Unpack fp4 (e2m1) values stored two per byte along ``axis``: ``tl.fp4_to_fp %x {axis = 1
    : i32} : (tensor<16x32xi8, #L>) -> tensor<16x64xbf16, #U>``. Byte ``j`` holds elements ``2j``
    (low nibble) and ``2j + 1`` (high nibble); the result doubles the axis. With layouts, ``#U``
    must be the unpacked layout of ``#L`` (:func:`llc.mxfp.unpacked_layout`: each thread's byte
    becomes two consecutive elements of that thread).
    """

    name = "tl.fp4_to_fp"
    src = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> Fp4ToFpOp:
        # llc prints ``: (T) -> U``; Triton's ttg.fp4_to_fp writes ``: T -> U``. Both read.
        src = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        paren = parser.parse_optional_punctuation("(") is not None
        src_type = parser.parse_type()
        if paren:
            parser.parse_punctuation(")")
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        if "axis" not in attrs:
            parser.raise_error("fp4_to_fp needs an axis attribute")
        op = cls(
            operands=[parser.resolve_operand(src, src_type)],
            result_types=[result_type],
            properties={"axis": attrs.pop("axis")},
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        printer.print_op_attributes({"axis": self.axis} | dict(self.attributes))
        printer.print_string(" : (")
        printer.print_attribute(self.src.type)
        printer.print_string(") -> ")
        printer.print_attribute(self.result.type)

    def verify_tl(self) -> None:
        src, dst = shape_of(self.src.type), shape_of(self.result.type)
        axis = self.axis.value.data
        if element_type_of(self.src.type) != IntegerType(8):
            raise self.fail(
                f"operand must be i8 (two e2m1 per byte), got {element_type_of(self.src.type)}"
            )
        if not _is_float(element_type_of(self.result.type)):
            raise self.fail(f"result must be a float type, got {element_type_of(self.result.type)}")
        if len(src) != len(dst) or not 0 <= axis < len(src):
            raise self.fail(f"axis {axis} and ranks of operand {list(src)} / result {list(dst)}")
        want = [2 * n if d == axis else n for d, n in enumerate(src)]
        if list(dst) != want:
            raise self.fail(f"result shape must be {want} (axis {axis} doubled), got {list(dst)}")
        src_enc, dst_enc = encoding_of(self.src.type), encoding_of(self.result.type)
        if (src_enc is None) != (dst_enc is None):
            raise self.fail("operand and result must both have encodings or neither")
        src_layout, dst_layout = layout_of(src_enc), layout_of(dst_enc)
        if src_layout is None or dst_layout is None:
            return
        from llc.errors import LayoutError
        from llc.mxfp import unpacked_layout

        try:
            expected = unpacked_layout(src_layout.to_linear_layout(src), axis)  # type: ignore[attr-defined]
            got = dst_layout.to_linear_layout(dst)  # type: ignore[attr-defined]
        except LayoutError as err:
            raise self.fail(f"cannot build the layouts: {err}") from None
        if got != expected:
            raise self.fail(
                "result encoding must be the unpacked layout of the operand's (each byte's two "
                f"values in the same thread, consecutive along axis {axis}); expected register "
                f"bases {expected.bases[0][1]}, lane bases {expected.bases[1][1]}"
            )


DOT_SCALED_FORMATS = ("e2m1", "e4m3", "e5m2", "bf16", "fp16")


@irdl_op_definition
class DotScaledOp(TLOperation):
    """Matrix product of MX (microscaled) operands: ``d = (a * 2^as) @ (b * 2^bs) + acc``.

    ``tl.dot_scaled %a, %as, %b, %bs, %acc {lhs = "e2m1", rhs = "e2m1"} : (tensor<MxK/2xi8>,
    tensor<MxK/32xi8>, tensor<K/2xNxi8>, tensor<NxK/32xi8>, tensor<MxNxf32>) -> tensor<MxNxf32>``.
    e2m1 operands are packed two per byte along K (A: dim 1, B: dim 0); e4m3/e5m2 operands are
    one code per i8; bf16/fp16 operands are plain floats. Scales are e8m0 codes (as i8), one per
    32 elements along K: A's are ``M x K/32``, B's ``N x K/32`` (Triton's layout of them).
    A scale may be absent, written ``none`` (``tl.dot_scaled %a, none, %b, %bs, %acc``, Triton's
    ``tt.dot_scaled %a, %b scale %bs, ...``): that operand is taken unscaled.
    """

    name = "tl.dot_scaled"
    a = operand_def(TensorType)
    a_scale = opt_operand_def(TensorType)
    b = operand_def(TensorType)
    b_scale = opt_operand_def(TensorType)
    acc = operand_def(TensorType)
    result = result_def(TensorType)
    lhs = prop_def(StringAttr)
    rhs = prop_def(StringAttr)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))

    @classmethod
    def parse(cls, parser: Parser) -> DotScaledOp:
        # ``%a, %as, %b, %bs, %acc``; an absent scale (Triton's ``tt.dot_scaled %a, %b scale
        # %bs, ...``: that operand is not scaled) is written ``none``.
        slots: list[UnresolvedOperand | None] = []
        for i in range(5):
            if i:
                parser.parse_punctuation(",")
            if i in (1, 3) and parser.parse_optional_keyword("none") is not None:
                slots.append(None)
            else:
                slots.append(parser.parse_unresolved_operand())
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        signature = parser.parse_function_type()
        present = [s for s in slots if s is not None]
        if len(signature.inputs.data) != len(present) or len(signature.outputs.data) != 1:
            parser.raise_error(
                f"tl.dot_scaled: expected {len(present)} operand types and one result type",
                pos,
                parser.pos,
            )
        types = iter(signature.inputs.data)
        values = [None if s is None else parser.resolve_operand(s, next(types)) for s in slots]
        props = {k: attrs.pop(k) for k in ("lhs", "rhs") if k in attrs}
        op = cls(
            operands=[[v] if v is not None else [] for v in values],
            result_types=[signature.outputs.data[0]],
            properties=props,
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        slots = (self.a, self.a_scale, self.b, self.b_scale, self.acc)
        for i, value in enumerate(slots):
            if i:
                printer.print_string(", ")
            if value is None:
                printer.print_string("none")
            else:
                printer.print_operand(value)
        printer.print_op_attributes({"lhs": self.lhs, "rhs": self.rhs} | dict(self.attributes))
        printer.print_string(" : ")
        printer.print_operation_type(self)

    def k_of(self, which: str) -> int:
        """The K extent of operand ``a`` or ``b`` in elements (packed fp4 counts twice)."""
        shape = shape_of((self.a if which == "a" else self.b).type)
        fmt = (self.lhs if which == "a" else self.rhs).data
        k = shape[1] if which == "a" else shape[0]
        return 2 * k if fmt == "e2m1" else k

    def verify_tl(self) -> None:
        for side, fmt_attr, value in (("lhs", self.lhs, self.a), ("rhs", self.rhs, self.b)):
            fmt = fmt_attr.data
            if fmt not in DOT_SCALED_FORMATS:
                raise self.fail(f"{side} format '{fmt}' is not one of {list(DOT_SCALED_FORMATS)}")
            elem = element_type_of(value.type)
            # Triton types fp8 operands as floats (f8E4M3FN, f8E5M2); llc also takes i8 codes.
            fp8 = {"e4m3": "f8E4M3FN", "e5m2": "f8E5M2"}.get(fmt)
            if fmt in ("e2m1", "e4m3", "e5m2") and elem != IntegerType(8) and str(elem) != fp8:
                want = "i8 storage" + (f" or {fp8}" if fp8 else "")
                raise self.fail(f"{side} format {fmt} needs {want}, got {elem}")
            if fmt in ("bf16", "fp16") and not _is_float(elem):
                raise self.fail(f"{side} format {fmt} needs a float operand, got {elem}")
        a, b = shape_of(self.a.type), shape_of(self.b.type)
        out = shape_of(self.result.type)
        if len(a) != 2 or len(b) != 2 or len(out) != 2:
            raise self.fail("operands and result must be rank 2")
        ka, kb = self.k_of("a"), self.k_of("b")
        if ka != kb:
            raise self.fail(f"K mismatch: a has K = {ka}, b has K = {kb} (e2m1 counts 2 per byte)")
        if ka % 16:
            raise self.fail(f"K = {ka} must be a multiple of 16 (one scale per 16 or 32 elements)")
        m, n = a[0], b[1]
        if out != (m, n) or shape_of(self.acc.type) != out:
            raise self.fail(f"result and accumulator must be {m}x{n}, got {list(out)}")
        if not _is_float(element_type_of(self.result.type)):
            raise self.fail("result must be a float type")
        for name, value, rows in (("a_scale", self.a_scale, m), ("b_scale", self.b_scale, n)):
            if value is None:
                continue  # that operand is not scaled (a scale of 1)
            if element_type_of(value.type) != IntegerType(8):
                raise self.fail(
                    f"{name} must be i8 (e8m0 codes), got {element_type_of(value.type)}"
                )
            # One scale per 32 elements along K (OCP MX), or per 16 (the nvfp4-style groups
            # Triton 3.9 reads for sm_120, e.g. a 128x32 e4m3 operand with 128x2 scales).
            allowed = [(rows, ka // g) for g in (32, 16) if ka % g == 0]
            if shape_of(value.type) not in allowed:
                shapes = " or ".join(f"{r}x{c}" for r, c in allowed)
                raise self.fail(
                    f"{name} must be {shapes} (one scale per 32 or 16 along K), got "
                    f"{list(shape_of(value.type))}"
                )


@irdl_op_definition
class PrintOp(TLOperation):
    """Device print: ``tl.print " x: " {hex = false, isSigned = array<i32: 0>} : %x :
    tensor<128xf32>`` prints the prefix and every element of each argument."""

    name = "tl.print"
    args = var_operand_def()
    prefix = prop_def(StringAttr)
    traits = traits_def(MemoryWriteEffect())

    def __init__(self, prefix: str, args: Sequence[SSAValue | Operation] = ()):
        super().__init__(operands=[list(args)], properties={"prefix": StringAttr(prefix)})

    @classmethod
    def parse(cls, parser: Parser) -> PrintOp:
        prefix = parser.parse_str_literal()
        attrs = parser.parse_optional_attr_dict()
        values: list[SSAValue] = []
        if parser.parse_optional_punctuation(":") is not None:
            operands = parser.parse_comma_separated_list(
                parser.Delimiter.NONE, parser.parse_unresolved_operand
            )
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            if len(types) != len(operands):
                parser.raise_error(f"expected {len(operands)} types, got {len(types)}")
            values = [parser.resolve_operand(o, t) for o, t in zip(operands, types, strict=True)]
        op = cls(prefix, values)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.prefix.data)
        printer.print_op_attributes(self.attributes)
        if self.args:
            printer.print_string(" : ")
            printer.print_list(self.args, printer.print_operand)
            printer.print_string(" : ")
            printer.print_list([a.type for a in self.args], printer.print_attribute)


@irdl_op_definition
class AssertOp(TLOperation):
    """Device assert: ``tl.assert %c, "message" : tensor<128xi1>`` fails (the kernel stops)
    where an element of ``%c`` is false."""

    name = "tl.assert"
    condition = operand_def()
    message = prop_def(StringAttr)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$condition `,` $message attr-dict `:` type($condition)"

    def __init__(self, condition: SSAValue | Operation, message: str):
        super().__init__(operands=[condition], properties={"message": StringAttr(message)})

    def verify_tl(self) -> None:
        if element_type_of(self.condition.type) != IntegerType(1):
            raise self.fail(f"condition must be i1 or a tensor of i1, got {self.condition.type}")


@irdl_op_definition
class MemDescIndexOp(TLOperation):
    """One buffer of a multi-buffered allocation (Triton 3.9's ``ttg.memdesc_index``, which
    replaced ``ttg.memdesc_subview``): ``%b = tl.memdesc_index %m[%i] :
    !tl.memdesc<2x64x64xf16, #s> -> !tl.memdesc<64x64xf16, #s>`` is buffer ``%i`` (an ``i32``)
    along the leading dimension; it aliases ``%m``.
    """

    name = "tl.memdesc_index"
    src = operand_def(MemDescType)
    index = operand_def(i32)
    result = result_def(MemDescType)
    traits = traits_def(Pure())
    assembly_format = "$src `[` $index `]` attr-dict `:` type($src) `->` type($result)"

    def verify_tl(self) -> None:
        src, dst = self.src.type, self.result.type
        if src.get_shape()[1:] != dst.get_shape() or src.element_type != dst.element_type:
            raise self.fail(f"result {dst} must be one leading slice of {src}")


@irdl_op_definition
class MemDescSubsliceOp(TLOperation):
    """A view of a shared buffer at static offsets (Triton 3.9's ``ttg.memdesc_subslice``):
    ``%v = tl.memdesc_subslice %m[0, 8] : !tl.memdesc<64x32xf32, #s> ->
    !tl.memdesc<64x8xf32, #s, 64x32>`` is the ``64x8`` block of ``%m`` starting at row 0,
    column 8. It aliases ``%m``; its elements sit where ``%m``'s shared layout puts the
    coordinates ``offsets + (i, j)``, so the view keeps ``%m``'s encoding and its type records
    the allocation's shape (``64x32``).
    """

    name = "tl.memdesc_subslice"
    src = operand_def(MemDescType)
    offsets = prop_def(ArrayAttr[IntAttr])
    result = result_def(MemDescType)
    traits = traits_def(Pure())

    def __init__(
        self, src: SSAValue | Operation, offsets: Sequence[int], result_type: MemDescType
    ) -> None:
        super().__init__(
            operands=[src],
            properties={"offsets": ArrayAttr(IntAttr(o) for o in offsets)},
            result_types=[result_type],
        )

    def get_offsets(self) -> tuple[int, ...]:
        """The static offsets, one per dimension."""
        return tuple(o.data for o in self.offsets.data)

    @classmethod
    def parse(cls, parser: Parser) -> MemDescSubsliceOp:
        src = parser.parse_unresolved_operand()
        offsets = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        if not isinstance(result_type, MemDescType):
            parser.raise_error(f"{cls.name}: the result must be a !tl.memdesc, got {result_type}")
        op = cls(parser.resolve_operand(src, src_type), offsets, result_type)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        printer.print_string("[" + ", ".join(str(o) for o in self.get_offsets()) + "]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def verify_tl(self) -> None:
        src, dst = self.src.type, self.result.type
        assert isinstance(src, MemDescType) and isinstance(dst, MemDescType)
        offsets, shape, full = self.get_offsets(), dst.get_shape(), src.get_shape()
        if len(offsets) != len(full) or len(shape) != len(full):
            raise self.fail(f"offsets {list(offsets)} and result {dst} must have the rank of {src}")
        if src.element_type != dst.element_type or src.encoding != dst.encoding:
            raise self.fail(f"result {dst} must keep the element type and encoding of {src}")
        if any(o < 0 or o + d > f for o, d, f in zip(offsets, shape, full, strict=True)):
            raise self.fail(
                f"the {'x'.join(map(str, shape))} view at offsets {list(offsets)} leaves "
                f"the {'x'.join(map(str, full))} buffer"
            )
        if dst.get_alloc_shape() != src.get_alloc_shape():
            raise self.fail(
                f"result {dst} must record the allocation shape "
                f"{'x'.join(map(str, src.get_alloc_shape()))} of {src}"
            )


# --------------------------------------------------------------------------------------
# Asynchronous copies (Triton's ttg.async_copy_global_to_local / async_commit_group /
# async_wait). Triton threads !ttg.async.token values through them; llc's own pipeliner makes
# them without tokens (the order of the ops carries the dependence), so tokens are optional.
# --------------------------------------------------------------------------------------


@irdl_op_definition
class AsyncCopyGlobalToLocalOp(TLOperation):
    """Start copying the elements ``%ptrs`` point to into the shared buffer ``%dst``:
    ``tl.async_copy_global_to_local %ptrs, %dst mask %m other %o : tensor<64x32x!tl.ptr<f16>,
    #b> -> !tl.memdesc<64x32xf16, #s>``.

    Elements whose mask is false are not read and land as ``other`` (``0`` when omitted, what
    ``cp.async``'s src-size 0 writes). The copy joins the open group; it lands in ``%dst`` at the
    ``tl.async_wait`` that retires that group, and reading the buffer before is a race.
    """

    name = "tl.async_copy_global_to_local"
    ptr = operand_def(TensorType)
    dst = operand_def(MemDescType)
    mask = opt_operand_def(TensorType)
    other = opt_operand_def(TensorType)
    token = opt_result_def(AsyncTokenType)
    traits = traits_def(MemoryWriteEffect(), MemoryReadEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        ptr: SSAValue | Operation,
        dst: SSAValue | Operation,
        mask: SSAValue | Operation | None = None,
        other: SSAValue | Operation | None = None,
        *,
        with_token: bool = False,
    ):
        super().__init__(
            operands=[ptr, dst, [] if mask is None else [mask], [] if other is None else [other]],
            result_types=[[AsyncTokenType()] if with_token else []],
        )

    def verify_tl(self) -> None:
        expected = _pointee_type(self, self.ptr.type)
        _check_tensor_memdesc(self, expected, self.dst.type)
        if self.other is not None and self.mask is None:
            raise self.fail("'other' requires a mask")
        if self.mask is not None:
            if element_type_of(self.mask.type) != IntegerType(1):
                raise self.fail(f"mask must be a tensor of i1, got {self.mask.type}")
            _same_shape_and_encoding(self, [("pointer", self.ptr.type), ("mask", self.mask.type)])
        if self.other is not None and self.other.type != expected:
            raise self.fail(f"'other' must have the type {expected}, got {self.other.type}")

    @classmethod
    def parse(cls, parser: Parser) -> AsyncCopyGlobalToLocalOp:
        with_token = binds_result(parser, "async_copy_global_to_local")
        ptr = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        dst = parser.parse_unresolved_operand()
        mask = other = None
        if parser.parse_optional_keyword("mask") is not None:
            mask = parser.parse_unresolved_operand()
        if parser.parse_optional_keyword("other") is not None:
            other = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ptr_type = parser.parse_type()
        parser.parse_punctuation("->")
        dst_type = _parse_memdesc_type(parser)
        element = element_type_of(ptr_type)
        if not isinstance(element, PointerType):
            parser.raise_error(f"{cls.name}: expected a pointer tensor, got {ptr_type}")
        op = cls(
            parser.resolve_operand(ptr, ptr_type),
            parser.resolve_operand(dst, dst_type),
            None
            if mask is None
            else parser.resolve_operand(mask, with_element_type(ptr_type, IntegerType(1))),
            None
            if other is None
            else parser.resolve_operand(other, with_element_type(ptr_type, element.pointee)),
            with_token=with_token,
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.ptr, self.dst], printer.print_operand)
        if self.mask is not None:
            printer.print_string(" mask ")
            printer.print_operand(self.mask)
        if self.other is not None:
            printer.print_string(" other ")
            printer.print_operand(self.other)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.ptr.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.dst.type)


def binds_result(parser: Parser, op_suffix: str) -> bool:
    """Whether the op being parsed (its name, ending in ``op_suffix``, just read) has a result
    bound (``%t = ...``): the asynchronous-copy ops return a token exactly when one is bound,
    as Triton's always do and llc's own pipeliner's never do. (xDSL hands a custom parser no
    count of the bound results, so the text before the op name answers.)

    >>> from llc.dialects.diagnostics import parse_module
    >>> from xdsl.context import Context
    >>> ctx = Context()
    >>> ctx.load_dialect(TL)
    >>> text = "%t = tl.async_wait {num = 0 : i32}\\ntl.async_wait {num = 1 : i32}"
    >>> block = parse_module(ctx, text)
    >>> [len(op.results) for op in block.ops]
    [1, 0]
    """
    text = parser.lexer.input.content
    start = text.rfind(op_suffix, 0, parser.pos)
    if start < 0:
        return False
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start].rstrip()
    while before and (before[-1].isalnum() or before[-1] in '._"'):
        before = before[:-1]
    return before.rstrip().endswith("=")


def _parse_memdesc_type(parser: Parser) -> Attribute:
    """A ``!tl.memdesc`` type, also in the short form ``<64x32xf16, #s>`` that Triton prints
    for a result whose type is known to be a memdesc (``ttg.async_copy_global_to_local``);
    the short form is read by the context's ``ttg.memdesc`` type when it has one (TTGIR)."""
    if peek_token(parser).text != "<":
        return parser.parse_type()
    typ = parser.ctx.get_optional_type("ttg.memdesc") or MemDescType
    return typ.new(typ.parse_parameters(parser))


def _parse_tokens(parser: Parser) -> list[SSAValue]:
    return parser.parse_comma_separated_list(
        parser.Delimiter.NONE, lambda: parser.parse_operand(AsyncTokenType())
    )


def _token_results(with_token: bool) -> list[list[Attribute]]:
    return [[AsyncTokenType()] if with_token else []]


@irdl_op_definition
class AsyncCommitGroupOp(TLOperation):
    """``tl.async_commit_group``: the copies started since the last commit form one group.

    Triton's form ``%g = tl.async_commit_group tokens %t1, %t2`` names the copies' tokens
    and returns the group's token (both optional here)."""

    name = "tl.async_commit_group"
    tokens = var_operand_def(AsyncTokenType)
    token = opt_result_def(AsyncTokenType)
    traits = traits_def(MemoryWriteEffect())

    def __init__(
        self, tokens: Sequence[SSAValue | Operation] = (), *, with_token: bool = False
    ) -> None:
        super().__init__(operands=[list(tokens)], result_types=_token_results(with_token))

    @classmethod
    def parse(cls, parser: Parser) -> AsyncCommitGroupOp:
        with_token = binds_result(parser, "async_commit_group")
        tokens = _parse_tokens(parser) if parser.parse_optional_keyword("tokens") else []
        op = cls(tokens, with_token=with_token)
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        if self.tokens:
            printer.print_string(" tokens ")
            printer.print_list(self.tokens, printer.print_operand)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class AsyncWaitOp(TLOperation):
    """``tl.async_wait {num = 1 : i32}``: wait until at most ``num`` of the most recently
    committed groups are still in flight; the copies of every older group have landed (for
    every thread: the lowering adds the barrier that makes other threads' copies visible).

    Triton's form ``%w = tl.async_wait %g1, %g2 {num = 1 : i32}`` names group tokens and
    returns a token that ``tl.local_load`` takes (both optional here)."""

    name = "tl.async_wait"
    tokens = var_operand_def(AsyncTokenType)
    num = prop_def(IntegerAttr[IntegerType], prop_name="num")
    token = opt_result_def(AsyncTokenType)
    traits = traits_def(MemoryWriteEffect())

    def __init__(
        self, num: int, tokens: Sequence[SSAValue | Operation] = (), *, with_token: bool = False
    ) -> None:
        super().__init__(
            operands=[list(tokens)],
            properties={"num": IntegerAttr(num, i32)},
            result_types=_token_results(with_token),
        )

    @classmethod
    def parse(cls, parser: Parser) -> AsyncWaitOp:
        with_token = binds_result(parser, "async_wait")
        tokens = _parse_tokens(parser) if peek_token(parser).text.startswith("%") else []
        attrs = dict(parser.parse_optional_attr_dict())
        num = attrs.pop("num", None)
        if not isinstance(num, IntegerAttr):
            parser.raise_error("tl.async_wait needs {num = N : i32}")
        op = cls(num.value.data, tokens, with_token=with_token)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        if self.tokens:
            printer.print_string(" ")
            printer.print_list(self.tokens, printer.print_operand)
        printer.print_op_attributes({"num": self.num} | dict(self.attributes))

    def verify_tl(self) -> None:
        if self.num.value.data < 0:
            raise self.fail(f"num must be at least 0, got {self.num.value.data}")


ASYNC_COPY_OPS = (AsyncCopyGlobalToLocalOp, AsyncCommitGroupOp, AsyncWaitOp)
"""The asynchronous-copy ops (``llc-pipeline`` makes them, ``llc-lower-to-simt`` lowers them
to ``cp.async``)."""


# --------------------------------------------------------------------------------------
# Hopper warp-group MMA (Triton's ttng.warp_group_dot / _wait, ttng.fence_async_shared)
# --------------------------------------------------------------------------------------


@irdl_op_definition
class WarpGroupDotOp(TLOperation):
    """Hopper's asynchronous warp-group matrix product ``d = a @ b + acc`` (``wgmma``).

    ``%d = tl.warp_group_dot %a, %b, %acc {isAsync = true} : !tl.memdesc<64x32xf16, #s> *
    !tl.memdesc<32x64xf16, #s1> -> tensor<64x64xf32, #mma>``. ``a`` is a shared buffer or a
    tensor in a ``#tl.dot_op`` layout, ``b`` a shared buffer. Triton's options
    (``inputPrecision``, ``maxNumImpreciseAcc``, ``isAsync``) are kept as attributes. The value
    is defined once the matching :class:`WarpGroupDotWaitOp` returns it; the interpreter computes
    it eagerly. An optional fourth operand ``%useC`` (``i1``, Triton 3.9's ``useC``) says
    whether ``acc`` is added: false computes ``a @ b`` alone.
    """

    name = "tl.warp_group_dot"
    T: ClassVar = VarConstraint("T", AnyAttr())
    a = operand_def()
    b = operand_def()
    acc = operand_def(T)
    use_c = opt_operand_def(IntegerType(1))
    result = result_def(T)
    traits = traits_def(MemoryReadEffect())
    assembly_format = (
        "$a `,` $b `,` $acc (`,` $use_c^)? attr-dict `:` type($a) `*` type($b) `->` type($result)"
    )

    def __init__(
        self,
        a: SSAValue | Operation,
        b: SSAValue | Operation,
        acc: SSAValue | Operation,
        use_c: SSAValue | Operation | None = None,
    ):
        acc = SSAValue.get(acc)
        super().__init__(
            operands=[a, b, acc, [] if use_c is None else [use_c]], result_types=[acc.type]
        )

    def verify_tl(self) -> None:
        for what, typ in (("a", self.a.type), ("b", self.b.type)):
            if not isinstance(typ, TensorType | MemDescType):
                raise self.fail(f"operand {what} must be a tensor or a !tl.memdesc, got {typ}")
        if not isinstance(self.b.type, MemDescType):
            raise self.fail(f"operand b must be a !tl.memdesc, got {self.b.type}")
        (m, k), (k2, n) = shape_of(self.a.type), shape_of(self.b.type)
        if k != k2 or shape_of(self.result.type) != (m, n):
            raise self.fail(
                f"shapes do not multiply: {m}x{k} * {k2}x{n} -> "
                f"{'x'.join(map(str, shape_of(self.result.type)))}"
            )
        a_elem, b_elem = element_type_of(self.a.type), element_type_of(self.b.type)
        # Triton's verifier takes two float types of one width (wgmma's e4m3 x e5m2; its lit
        # tests also write bf16 x f16); the wgmma lowering says which pairs it emits.
        if a_elem != b_elem and not (
            isinstance(a_elem, AnyFloat)
            and isinstance(b_elem, AnyFloat)
            and a_elem.bitwidth == b_elem.bitwidth
        ):
            raise self.fail(f"a and b element types differ: {a_elem} vs {b_elem}")


@irdl_op_definition
class WarpGroupDotWaitOp(TLOperation):
    """Wait for asynchronous warp-group products: returns its operands, which are then ready.

    ``%r:2 = tl.warp_group_dot_wait %d, %a {pendings = 0 : i32} : tensor<64x64xf32, #mma>,
    !tl.memdesc<64x32xf16, #s>`` (``pendings``: how many products may still be in flight).
    """

    name = "tl.warp_group_dot_wait"
    inputs = var_operand_def()
    outputs = var_result_def()
    traits = traits_def(MemoryReadEffect())

    def __init__(self, inputs: Sequence[SSAValue | Operation], pendings: int = 0):
        values = [SSAValue.get(v) for v in inputs]
        super().__init__(
            operands=[values],
            result_types=[[v.type for v in values]],
            attributes={"pendings": IntegerAttr(pendings, i32)},
        )

    def verify_tl(self) -> None:
        if [v.type for v in self.inputs] != [r.type for r in self.outputs]:
            raise self.fail("results must have the types of the operands")

    @classmethod
    def parse(cls, parser: Parser) -> WarpGroupDotWaitOp:
        unresolved = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        if len(types) != len(unresolved):
            parser.raise_error(f"expected {len(unresolved)} types, got {len(types)}")
        op = cls([parser.resolve_operand(u, t) for u, t in zip(unresolved, types, strict=True)])
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.inputs, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list([v.type for v in self.inputs], printer.print_attribute)


@irdl_op_definition
class FenceAsyncSharedOp(TLOperation):
    """Order earlier shared-memory writes before later asynchronous (``wgmma``/TMA) reads.

    ``tl.fence_async_shared {bCluster = false}``; nothing to compute in the interpreter.
    """

    name = "tl.fence_async_shared"
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__(attributes={"bCluster": BoolAttr(False, IntegerType(1))})


# --------------------------------------------------------------------------------------
# Scans, opaque elementwise calls, shared-memory views and tensor descriptors (Triton 3.9)
# --------------------------------------------------------------------------------------


def _verify_combine_region(op: TLOperation, region: Region, elements: list[Attribute]) -> None:
    """A combining region takes ``2n`` scalars (accumulated, then new) and returns ``n``."""
    block = region.block
    if [a.type for a in block.args] != elements + elements:
        want = ", ".join(str(t) for t in elements + elements)
        got = ", ".join(str(a.type) for a in block.args)
        raise op.fail(f"combining region must take ({want}), got ({got})")
    last = block.last_op
    if last is None or last.name != f"{op.name}.return":
        raise op.fail(f"combining region must end with {op.name}.return")
    if [v.type for v in last.operands] != elements:
        want = ", ".join(str(t) for t in elements)
        got = ", ".join(str(v.type) for v in last.operands)
        raise op.fail(f"combining region must return ({want}), got ({got})")


@irdl_op_definition
class ScanOp(TLOperation):
    """Inclusive scan along ``axis`` with a combining region (Triton's ``tt.scan``).

    ::

        %s = tl.scan %x {axis = 0 : i32, reverse = false} : tensor<128xi32, #b> ->
            tensor<128xi32, #b> {
        ^bb0(%acc: i32, %v: i32):
          %r = arith.addi %acc, %v : i32
          tl.scan.return %r : i32
        }

    Element ``i`` of each result combines elements ``0..i`` along the axis (``i..end`` when
    ``reverse``), left to right. The results have the operands' shapes and encodings.
    """

    name = "tl.scan"
    srcs = var_operand_def(TensorType)
    results_ = var_result_def(TensorType)
    axis = prop_def(IntegerAttr)
    reverse = prop_def(IntegerAttr)
    combine = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$srcs attr-dict `:` type($srcs) `->` type($results_) $combine"

    def verify_tl(self) -> None:
        srcs = [s.type for s in self.srcs]
        if not srcs or len(srcs) != len(self.results_):
            raise self.fail(f"needs as many results as operands (>= 1), got {len(srcs)}")
        _same_shape_and_encoding(
            self,
            [(f"operand #{i}", t) for i, t in enumerate(srcs)]
            + [(f"result #{i}", r.type) for i, r in enumerate(self.results_)],
        )
        axis = self.axis.value.data
        if not 0 <= axis < len(shape_of(srcs[0])):
            raise self.fail(f"axis {axis} is out of range for rank {len(shape_of(srcs[0]))}")
        for i, (s, r) in enumerate(zip(srcs, self.results_, strict=True)):
            if element_type_of(s) != element_type_of(r.type):
                raise self.fail(f"result #{i} element type differs from operand #{i}'s")
        _verify_combine_region(self, self.combine, [element_type_of(t) for t in srcs])


@irdl_op_definition
class ScanReturnOp(TLOperation):
    """``tl.scan.return %r : i32``: the combined value(s) of a ``tl.scan`` region."""

    name = "tl.scan.return"
    values = var_operand_def()
    traits = traits_def(IsTerminator(), HasParent(ScanOp), Pure())
    assembly_format = "$values attr-dict `:` type($values)"

    def __init__(self, *values: SSAValue | Operation):
        super().__init__(operands=[list(values)])


class PureIfMarked(MemoryEffect):
    """Memory effects of ops whose ``pure`` property says whether they have any (inline asm,
    library calls): none when ``pure = true``, reads and writes otherwise."""

    @classmethod
    def get_effects(cls, op: Operation) -> AbstractSet[EffectInstance]:
        pure = op.properties.get("pure")
        if isinstance(pure, IntegerAttr) and pure.value.data:
            return set()
        return {EffectInstance(MemoryEffectKind.READ), EffectInstance(MemoryEffectKind.WRITE)}


def _same_elementwise_layout(op: TLOperation, values: Sequence[SSAValue]) -> None:
    tensors = [(f"value #{i}", v.type) for i, v in enumerate(values)]
    if tensors and any(isinstance(t, TensorType) for _, t in tensors):
        shapes = {shape_of(t) for _, t in tensors}
        encodings = {encoding_of(t) for _, t in tensors}
        if len(shapes) != 1:
            raise op.fail(f"operands and results must have one shape, got {sorted(shapes)}")
        if len(encodings) != 1:
            raise op.fail("operands and results must have one encoding (it is elementwise)")


@irdl_op_definition
class ElementwiseInlineAsmOp(TLOperation):
    """Elementwise inline PTX (Triton's ``tt.elementwise_inline_asm``).

    ``%r = tl.elementwise_inline_asm "cvt.rn.f16.f32 $0, $1;" {constraints = "=h,r",
    packed_element = 1 : i32, pure = true} %x : tensor<128xf32, #b> -> tensor<128xf16, #b>``:
    the assembly runs on ``packed_element`` elements at a time; every operand and result has
    one shape and encoding. llc carries it through (layouts propagate through it as through any
    elementwise op) but cannot interpret it.
    """

    name = "tl.elementwise_inline_asm"
    args = var_operand_def()
    results_ = var_result_def()
    asm_string = prop_def(StringAttr)
    constraints = prop_def(StringAttr)
    pure = prop_def(IntegerAttr)
    packed_element = prop_def(IntegerAttr)
    traits = traits_def(PureIfMarked())

    PROPS: ClassVar[tuple[str, ...]] = ("constraints", "packed_element", "pure")

    def verify_tl(self) -> None:
        if self.packed_element.value.data < 1:
            raise self.fail(f"packed_element must be >= 1, got {self.packed_element.value.data}")
        if not self.results_:
            raise self.fail("needs at least one result")
        _same_elementwise_layout(self, [*self.args, *self.results_])

    @classmethod
    def parse(cls, parser: Parser) -> ElementwiseInlineAsmOp:
        asm = parser.parse_str_literal()
        attrs = parser.parse_optional_attr_dict()
        values: list[SSAValue] = []
        if parser.parse_optional_punctuation("->") is None:
            operands = parser.parse_comma_separated_list(
                parser.Delimiter.NONE, parser.parse_unresolved_operand
            )
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            if len(types) != len(operands):
                parser.raise_error(f"expected {len(operands)} operand types, got {len(types)}")
            values = [parser.resolve_operand(o, t) for o, t in zip(operands, types, strict=True)]
            parser.parse_punctuation("->")
        result_types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        props: dict[str, Attribute] = {"asm_string": StringAttr(asm)}
        for name in cls.PROPS:
            if name not in attrs:
                parser.raise_error(f"tt.elementwise_inline_asm needs the attribute {name}")
            props[name] = attrs.pop(name)
        op = cls(operands=[values], result_types=[result_types], properties=props)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.asm_string.data)
        printer.print_op_attributes(
            {n: self.properties[n] for n in self.PROPS} | dict(self.attributes)
        )
        if self.args:
            printer.print_string(" ")
            printer.print_list(self.args, printer.print_operand)
            printer.print_string(" : ")
            printer.print_list([a.type for a in self.args], printer.print_attribute)
        printer.print_string(" -> ")
        printer.print_list([r.type for r in self.results_], printer.print_attribute)


@irdl_op_definition
class ExternElementwiseOp(TLOperation):
    """A call of an external elementwise function (Triton's ``tt.extern_elementwise``).

    ``%r = tl.extern_elementwise %x {libname = "libdevice", libpath = "...", pure = true,
    symbol = "__nv_exp2f"} : (tensor<128xf32, #b>) -> tensor<128xf32, #b>``: one shape and
    encoding for all operands and the result. Not interpretable by llc (the library is not
    llc's).
    """

    name = "tl.extern_elementwise"
    srcs = var_operand_def()
    result = result_def()
    libname = prop_def(StringAttr)
    libpath = prop_def(StringAttr)
    symbol = prop_def(StringAttr)
    pure = prop_def(IntegerAttr)
    traits = traits_def(PureIfMarked())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$srcs attr-dict `:` functional-type($srcs, $result)"

    def verify_tl(self) -> None:
        _same_elementwise_layout(self, [*self.srcs, self.result])


@irdl_op_definition
class MapElementwiseOp(TLOperation):
    """A scalar function applied element by element (Triton's ``tt.map_elementwise``, from
    ``tl.map_elementwise``); Triton prints and reads it in the generic form::

        %r = "tl.map_elementwise"(%x, %y) <{pack = 1 : i32}> ({
        ^bb0(%a: f32, %b: f32):
          %s = arith.subf %a, %b : f32
          tl.map_elementwise.return %s : f32
        }) : (tensor<128xf32, #b>, tensor<128xf32, #b>) -> tensor<128xf32, #b>

    The body takes ``pack`` scalars of each operand and returns ``pack`` of each result; it may
    use scalars defined above. Operands and results share one shape and encoding.
    """

    name = "tl.map_elementwise"
    srcs = var_operand_def(TensorType)
    results_ = var_result_def(TensorType)
    pack = prop_def(IntegerAttr)
    body = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())

    @property
    def pack_size(self) -> int:
        """Elements per call of the body."""
        return self.pack.value.data

    def verify_tl(self) -> None:
        _same_elementwise_layout(self, [*self.srcs, *self.results_])
        pack = self.pack_size
        if pack < 1:
            raise self.fail(f"pack must be at least 1, got {pack}")
        want = [element_type_of(s.type) for s in self.srcs for _ in range(pack)]
        got = [a.type for a in self.body.block.args]
        if got != want:
            raise self.fail(f"the body must take {pack} scalar(s) of each operand, got {got}")


@irdl_op_definition
class MapElementwiseReturnOp(TLOperation):
    """``tl.map_elementwise.return %r : f32``: the values of one call of the body."""

    name = "tl.map_elementwise.return"
    values = var_operand_def()
    traits = traits_def(IsTerminator(), HasParent(MapElementwiseOp), Pure())
    assembly_format = "$values attr-dict `:` type($values)"


@irdl_op_definition
class MemDescTransOp(TLOperation):
    """A transposed view of a shared-memory buffer (Triton's ``ttg.memdesc_trans``).

    ``%t = tl.memdesc_trans %m {order = array<i32: 1, 0>} : !tl.memdesc<32x64xf16, #s> ->
    !tl.memdesc<64x32xf16, #s1>``: dimension ``i`` of the view is dimension ``order[i]`` of the
    buffer; nothing moves.
    """

    name = "tl.memdesc_trans"
    src = operand_def(MemDescType)
    result = result_def(MemDescType)
    order = prop_def(DenseArrayBase)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"

    @property
    def permutation(self) -> tuple[int, ...]:
        """The ``order`` property as ints."""
        return tuple(int(v) for v in self.order.get_values())

    def verify_tl(self) -> None:
        src, res = self.src.type, self.result.type
        order = self.permutation
        if sorted(order) != list(range(src.get_num_dims())):
            raise self.fail(f"order {list(order)} is not a permutation of the buffer's dims")
        want = [src.get_shape()[i] for i in order]
        if list(res.get_shape()) != want or src.element_type != res.element_type:
            raise self.fail(f"result must be a {want} buffer of {src.element_type}")


@irdl_attr_definition
class TensorDescType(_BlockParameters, ParametrizedAttribute, TypeAttribute):
    """A TMA tensor descriptor: ``!tl.tensordesc<128x64xf16>`` (Triton's ``!tt.tensordesc``),
    the block it loads and stores, with an optional shared layout.

    >>> from xdsl.dialects.builtin import f16
    >>> print(TensorDescType(f16, [64, 32]))
    !tl.tensordesc<64x32xf16>
    """

    name = "tl.tensordesc"
    shape: ArrayAttr[IntAttr]
    element_type: Attribute
    encoding: Attribute


def _check_descriptor_block(op: TLOperation, desc: Attribute, tensor: Attribute) -> None:
    assert isinstance(desc, TensorDescType)
    block, shape = tuple(desc.get_shape()), shape_of(tensor)
    # Triton's TMA ops may drop the block's leading unit dims (a 1x256x32 block is a 256x32
    # tensor): the box is the same, only the tensor's rank differs.
    dropped = len(block) - len(shape)
    if block[dropped:] != shape or dropped < 0 or any(d != 1 for d in block[:dropped]):
        raise op.fail(f"tensor shape {list(shape)} differs from the descriptor block")
    want, got = desc.element_type, element_type_of(tensor)
    # Triton types integer blocks signed (si8) and their tensors signless (i8).
    if isinstance(want, IntegerType) and isinstance(got, IntegerType):
        if want.width != got.width:
            raise op.fail(f"element type {got} differs from the descriptor's {want}")
    elif want != got:
        raise op.fail(f"element type {got} differs from the descriptor's {want}")


@irdl_op_definition
class DescriptorLoadOp(TLOperation):
    """Load a block through a tensor descriptor (TMA): ``%x = tl.descriptor_load %d[%i, %j] :
    !tl.tensordesc<128x64xf16> -> tensor<128x64xf16, #b>`` (the block at those coordinates)."""

    name = "tl.descriptor_load"
    desc = operand_def(TensorDescType)
    indices = var_operand_def(i32)
    result = result_def(TensorType)
    traits = traits_def(MemoryReadEffect())
    assembly_format = "$desc `[` $indices `]` attr-dict `:` type($desc) `->` type($result)"

    def verify_tl(self) -> None:
        _check_descriptor_block(self, self.desc.type, self.result.type)
        if len(self.indices) != len(self.desc.type.get_shape()):  # type: ignore[attr-defined]
            raise self.fail(f"needs {len(self.desc.type.get_shape())} coordinates")  # type: ignore[attr-defined]


@irdl_op_definition
class DescriptorStoreOp(TLOperation):
    """Store a block through a tensor descriptor: ``tl.descriptor_store %d[%i, %j], %x :
    !tl.tensordesc<128x64xf16>, tensor<128x64xf16, #b>``."""

    name = "tl.descriptor_store"
    desc = operand_def(TensorDescType)
    indices = var_operand_def(i32)
    src = operand_def(TensorType)
    traits = traits_def(MemoryWriteEffect())
    irdl_options = (AttrSizedOperandSegments(),)
    assembly_format = "$desc `[` $indices `]` `,` $src attr-dict `:` type($desc) `,` type($src)"

    def verify_tl(self) -> None:
        _check_descriptor_block(self, self.desc.type, self.src.type)
        if len(self.indices) != len(self.desc.type.get_shape()):  # type: ignore[attr-defined]
            raise self.fail(f"needs {len(self.desc.type.get_shape())} coordinates")  # type: ignore[attr-defined]


def _parse_short_type(parser: Parser, kind: type[ParametrizedAttribute]) -> Attribute:
    """A type of a known kind in full (``!tl.ptr<f16>``) or in MLIR's short form, its
    parameters alone (``<f16>``), as Triton prints a type its op constrains."""
    if peek_token(parser).text == "<":
        return kind.new(kind.parse_parameters(parser))  # type: ignore[attr-defined]
    typ = parser.parse_type()
    if not isinstance(typ, kind):
        parser.raise_error(f"expected a {kind.name} type, got {typ}")  # type: ignore[attr-defined]
    return typ


@irdl_op_definition
class MakeTensorDescriptorOp(TLOperation):
    """A TMA tensor descriptor over a global tensor: ``%d = tl.make_tensor_descriptor %base,
    [%rows, %cols], [%stride, %one] : !tl.ptr<f16>, !tl.tensordesc<128x64xf16>`` (Triton's
    ``tt.make_tensor_descriptor``: shape in i32, strides in i64, the block in the type).

    >>> from xdsl.dialects.builtin import f16
    >>> from xdsl.utils.test_value import create_ssa_value
    >>> base = create_ssa_value(PointerType(f16))
    >>> n, s = create_ssa_value(i32), create_ssa_value(i64)
    >>> op = MakeTensorDescriptorOp(base, [n, n], [s, s], TensorDescType(f16, [128, 64]))
    >>> op.verify_tl(); len(op.shape), len(op.strides)
    (2, 2)
    """

    name = "tl.make_tensor_descriptor"
    base = operand_def(PointerType)
    shape = var_operand_def(i32)
    strides = var_operand_def(i64)
    result = result_def(TensorDescType)
    # A value, like Triton's op: the descriptor is written to memory only by the TMA lowering.
    traits = traits_def(Pure())
    irdl_options = (AttrSizedOperandSegments(),)

    def __init__(
        self,
        base: SSAValue | Operation,
        shape: Sequence[SSAValue | Operation],
        strides: Sequence[SSAValue | Operation],
        result_type: Attribute,
    ):
        super().__init__(operands=[base, shape, strides], result_types=[result_type])

    def verify_tl(self) -> None:
        desc = self.result.type
        assert isinstance(desc, TensorDescType)
        rank = len(desc.get_shape())
        if len(self.shape) != rank or len(self.strides) != rank:
            raise self.fail(f"needs {rank} sizes and {rank} strides for a rank-{rank} block")
        pointee = self.base.type.pointee  # type: ignore[attr-defined]
        element = desc.element_type
        if isinstance(pointee, IntegerType) and isinstance(element, IntegerType):
            if pointee.width != element.width:
                raise self.fail(f"block element type {element} differs from {pointee}")
        elif pointee != element:
            raise self.fail(f"block element type {element} differs from {pointee}")

    @classmethod
    def parse(cls, parser: Parser) -> MakeTensorDescriptorOp:
        base = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        shape = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, parser.parse_unresolved_operand
        )
        parser.parse_punctuation(",")
        strides = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        base_type = _parse_short_type(parser, PointerType)
        parser.parse_punctuation(",")
        desc_type = _parse_short_type(parser, TensorDescType)
        op = cls(
            parser.resolve_operand(base, base_type),
            [parser.resolve_operand(v, i32) for v in shape],
            [parser.resolve_operand(v, i64) for v in strides],
            desc_type,
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.base)
        for values in (self.shape, self.strides):
            printer.print_string(", [")
            printer.print_list(values, printer.print_operand)
            printer.print_string("]")
        printer.print_op_attributes(self.attributes, reserved_attr_names=("operandSegmentSizes",))
        printer.print_string(" : ")
        printer.print_attribute(self.base.type)
        printer.print_string(", ")
        printer.print_attribute(self.result.type)


# --------------------------------------------------------------------------------------
# Elementwise ops Triton's front end writes that arith/math have no exact twin of
# --------------------------------------------------------------------------------------

CLAMP_NAN_MODES = ("none", "all")
"""``propagateNan`` of ``tl.clampf``: ``all`` returns NaN where ``x`` is NaN, ``none`` clamps it."""


def _check_float_operands(op: TLOperation, values: Sequence[SSAValue]) -> None:
    _same_elementwise_layout(op, values)
    for v in values:
        if not _is_float(element_type_of(v.type)):
            raise op.fail(f"expects floats, got {element_type_of(v.type)}")


@irdl_op_definition
class ClampFOp(TLOperation):
    """``min(max(x, lo), hi)`` elementwise (Triton's ``tt.clampf``, from ``tl.clamp``).

    ``%r = tl.clampf %x, %lo, %hi, propagateNan = all : tensor<128xf32, #b>``. With ``all`` a NaN
    ``x`` gives NaN (IEEE ``maximum``/``minimum``); with ``none`` it gives ``lo`` (``maxnum``).
    The bounds must not be NaN (Triton leaves that undefined).

    >>> from xdsl.dialects.builtin import f32
    >>> from xdsl.utils.test_value import create_ssa_value
    >>> x = create_ssa_value(f32)
    >>> ClampFOp(x, x, x, "none").propagate_nan
    'none'
    """

    name = "tl.clampf"
    T: ClassVar = VarConstraint("T", AnyAttr())
    x = operand_def(T)
    min = operand_def(T)
    max = operand_def(T)
    result = result_def(T)
    propagateNan = prop_def(StringAttr)
    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        lo: SSAValue | Operation,
        hi: SSAValue | Operation,
        propagate_nan: str = "none",
    ):
        x = SSAValue.get(x)
        super().__init__(
            operands=[x, lo, hi],
            result_types=[x.type],
            properties={"propagateNan": StringAttr(propagate_nan)},
        )

    @property
    def propagate_nan(self) -> str:
        """``"all"`` or ``"none"``."""
        return self.propagateNan.data

    def verify_tl(self) -> None:
        _check_float_operands(self, [self.x, self.min, self.max, self.result])
        _check_keyword(self, "propagateNan", self.propagate_nan, CLAMP_NAN_MODES)

    @classmethod
    def parse(cls, parser: Parser) -> ClampFOp:
        x = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        lo = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        hi = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        parser.parse_keyword("propagateNan")
        parser.parse_punctuation("=")
        mode = parser.parse_identifier()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        typ = parser.parse_type()
        x_v, lo_v, hi_v = parser.resolve_operands([x, lo, hi], [typ] * 3, parser.pos)
        op = cls(x_v, lo_v, hi_v, mode)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.x, self.min, self.max], printer.print_operand)
        printer.print_string(f", propagateNan = {self.propagate_nan}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class MulhiUIOp(TLOperation):
    """The high half of the unsigned product (Triton's ``tt.mulhiui``, from ``tl.umulhi`` and
    the Philox generator behind ``tl.rand``).

    ``%h = tl.mulhiui %a, %b : tensor<128xi32, #b>``: ``(a * b) >> 32`` for ``i32`` (``>> 64``
    for ``i64``), the operands read as unsigned.

    >>> from xdsl.dialects.builtin import i32
    >>> from xdsl.utils.test_value import create_ssa_value
    >>> MulhiUIOp(create_ssa_value(i32), create_ssa_value(i32)).result.type
    IntegerType(32)
    """

    name = "tl.mulhiui"
    T: ClassVar = VarConstraint("T", AnyAttr())
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($result)"

    def __init__(self, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        lhs = SSAValue.get(lhs)
        super().__init__(operands=[lhs, rhs], result_types=[lhs.type])

    def verify_tl(self) -> None:
        _same_elementwise_layout(self, [self.lhs, self.rhs, self.result])
        # Per register (after llc-lower-to-simt) the operands are vectors.
        typ = self.result.type
        elem = typ.element_type if isinstance(typ, VectorType) else element_type_of(typ)
        if not (isinstance(elem, IntegerType) and elem.width.data in (32, 64)):
            raise self.fail(f"expects i32 or i64, got {elem}")


@irdl_op_definition
class PreciseSqrtOp(TLOperation):
    """Square root rounded to nearest (Triton's ``tt.precise_sqrt``, from ``tl.sqrt_rn``; plain
    ``math.sqrt`` may be approximate in Triton).

    ``%r = tl.precise_sqrt %x : tensor<128xf32, #b>``.

    >>> from xdsl.dialects.builtin import f32
    >>> from xdsl.utils.test_value import create_ssa_value
    >>> PreciseSqrtOp(create_ssa_value(f32)).result.type
    Float32Type()
    """

    name = "tl.precise_sqrt"
    T: ClassVar = VarConstraint("T", AnyAttr())
    x = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$x attr-dict `:` type($result)"

    def __init__(self, x: SSAValue | Operation):
        x = SSAValue.get(x)
        super().__init__(operands=[x], result_types=[x.type])

    def verify_tl(self) -> None:
        _check_float_operands(self, [self.x, self.result])


@irdl_op_definition
class PreciseDivFOp(TLOperation):
    """Division rounded to nearest (Triton's ``tt.precise_divf``, from ``tl.div_rn``).

    ``%r = tl.precise_divf %a, %b : tensor<128xf32, #b>``.

    >>> from xdsl.dialects.builtin import f32
    >>> from xdsl.utils.test_value import create_ssa_value
    >>> PreciseDivFOp(create_ssa_value(f32), create_ssa_value(f32)).result.type
    Float32Type()
    """

    name = "tl.precise_divf"
    T: ClassVar = VarConstraint("T", AnyAttr())
    x = operand_def(T)
    y = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$x `,` $y attr-dict `:` type($result)"

    def __init__(self, x: SSAValue | Operation, y: SSAValue | Operation):
        x = SSAValue.get(x)
        super().__init__(operands=[x, y], result_types=[x.type])

    def verify_tl(self) -> None:
        _check_float_operands(self, [self.x, self.y, self.result])


# --------------------------------------------------------------------------------------
# Classification helpers for passes
# --------------------------------------------------------------------------------------

# -- Issue 18, item 4: more of what Triton 3.9 writes (its lit inputs) ---------------------


class _PointerIntCastOp(TLOperation):
    """A pointer <-> ``i64`` cast, element by element (one shape and layout both sides)."""

    src = operand_def()
    result = result_def()
    traits = traits_def(Pure())
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"
    POINTER_SIDE: ClassVar[str]

    def __init__(self, src: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[src], result_types=[result_type])

    def verify_tl(self) -> None:
        src, dst = self.src.type, self.result.type
        _same_shape_and_encoding(self, [("source", src), ("result", dst)])
        ptr, other = (src, dst) if self.POINTER_SIDE == "source" else (dst, src)
        if not isinstance(element_type_of(ptr), PointerType):
            raise self.fail(f"{self.POINTER_SIDE} elements must be pointers, got {ptr}")
        if element_type_of(other) != IntegerType(64):
            raise self.fail(f"the integer side must hold i64, got {other}")


@irdl_op_definition
class IntToPtrOp(_PointerIntCastOp):
    """``%p = tl.int_to_ptr %i : tensor<16xi64> -> tensor<16x!tl.ptr<f32>>`` (Triton's
    ``tt.int_to_ptr``): each address as a pointer; elementwise."""

    name = "tl.int_to_ptr"
    POINTER_SIDE: ClassVar[str] = "result"


@irdl_op_definition
class PtrToIntOp(_PointerIntCastOp):
    """``%i = tl.ptr_to_int %p : tensor<16x!tl.ptr<f32>> -> tensor<16xi64>`` (Triton's
    ``tt.ptr_to_int``): each pointer's address; elementwise."""

    name = "tl.ptr_to_int"
    POINTER_SIDE: ClassVar[str] = "source"


@irdl_op_definition
class MemDescReinterpretOp(TLOperation):
    """The same shared bytes seen with another shape, element type or layout (Triton's
    ``ttg.memdesc_reinterpret``): ``%v = tl.memdesc_reinterpret %m : !tl.memdesc<32x2xi32, #s>
    -> !tl.memdesc<32x2xi16, #s1>``. Nothing moves; the result aliases ``%m``. Triton checks
    that the view fits the allocation; llc reads it as a view and keeps it as written.
    """

    name = "tl.memdesc_reinterpret"
    src = operand_def(MemDescType)
    result = result_def(MemDescType)
    traits = traits_def(Pure())
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"


@irdl_op_definition
class MemDescReshapeOp(TLOperation):
    """A reshaped view of a shared buffer (Triton's ``ttg.memdesc_reshape``): same elements,
    same count, another shape (and the layout that describes the same bytes)."""

    name = "tl.memdesc_reshape"
    src = operand_def(MemDescType)
    result = result_def(MemDescType)
    traits = traits_def(Pure())
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"

    def verify_tl(self) -> None:
        src, dst = self.src.type, self.result.type
        if src.element_type != dst.element_type or pymath.prod(src.get_shape()) != pymath.prod(
            dst.get_shape()
        ):
            raise self.fail(f"{dst} must hold the elements of {src} in another shape")


def _check_gather_block(op: TLOperation, desc: Attribute, offsets: Attribute, block: Attribute):
    assert isinstance(desc, TensorDescType)
    rows = shape_of(offsets)
    if len(rows) != 1 or element_type_of(offsets) != i32:
        raise op.fail(f"the row offsets must be a 1-d i32 tensor, got {offsets}")
    want = (rows[0], desc.get_shape()[-1])
    if shape_of(block) != want:
        raise op.fail(f"the block must be {want[0]}x{want[1]} (one row per offset), got {block}")
    if element_type_of(block) != desc.element_type:
        raise op.fail(f"element type {element_type_of(block)} differs from the descriptor's")


@irdl_op_definition
class DescriptorGatherOp(TLOperation):
    """Gather rows through a TMA descriptor (Triton's ``tt.descriptor_gather``):
    ``%x = tl.descriptor_gather %d[%rows, %col] : (!tl.tensordesc<1x128xbf16>,
    tensor<32xi32, #b>, i32) -> tensor<32x128xbf16, #b1>``: row ``rows[i]`` from column
    ``%col`` on into row ``i``. The rows land in shared memory first, so the result's register
    layout is free and the offsets are read whatever their layout."""

    name = "tl.descriptor_gather"
    desc = operand_def(TensorDescType)
    x_offsets = operand_def(TensorType)
    y_offset = operand_def(i32)
    result = result_def(TensorType)
    traits = traits_def(MemoryReadEffect())
    assembly_format = (
        "$desc `[` $x_offsets `,` $y_offset `]` attr-dict `:` functional-type(operands, results)"
    )

    def verify_tl(self) -> None:
        _check_gather_block(self, self.desc.type, self.x_offsets.type, self.result.type)


@irdl_op_definition
class DescriptorScatterOp(TLOperation):
    """Scatter rows through a TMA descriptor (Triton's ``tt.descriptor_scatter``), the inverse
    of :class:`DescriptorGatherOp`: ``tl.descriptor_scatter %d[%rows, %col], %x : ...``."""

    name = "tl.descriptor_scatter"
    desc = operand_def(TensorDescType)
    x_offsets = operand_def(TensorType)
    y_offset = operand_def(i32)
    src = operand_def(TensorType)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = (
        "$desc `[` $x_offsets `,` $y_offset `]` `,` $src attr-dict `:` type($desc) `,` "
        "type($x_offsets) `,` type($y_offset) `,` type($src)"
    )

    def verify_tl(self) -> None:
        _check_gather_block(self, self.desc.type, self.x_offsets.type, self.src.type)


@irdl_attr_definition
class OpaqueAttr(ParametrizedAttribute):
    """An attribute of Triton's dialects that llc does not model, kept as its text:
    ``#tl.opaque_attr<"ttng.tensor_memory_encoding", "<blockM = 128, blockN = 128>">`` is
    Triton's ``#ttng.tensor_memory_encoding<blockM = 128, blockN = 128>``. A
    ``!tl.memdesc`` whose encoding is a tensor-memory one lives in tensor memory
    (:attr:`in_tensor_memory`); ``-t ttgir`` writes the attribute back as it was.

    >>> a = OpaqueAttr("ttng.tensor_memory_encoding", "<blockM = 128>")
    >>> a.in_tensor_memory, a.text
    (True, '#ttng.tensor_memory_encoding<blockM = 128>')
    """

    name = "tl.opaque_attr"
    attr_name: StringAttr
    body: StringAttr

    def __init__(self, attr_name: str, body: str):
        super().__init__(StringAttr(attr_name), StringAttr(body))

    @property
    def text(self) -> str:
        """Triton's spelling of the attribute."""
        return f"#{self.attr_name.data}{self.body.data}"

    @property
    def in_tensor_memory(self) -> bool:
        """Whether this is the encoding of a buffer in Blackwell's tensor memory."""
        return self.attr_name.data.startswith("ttng.tensor_memory")


@irdl_attr_definition
class OpaqueType(ParametrizedAttribute, TypeAttribute):
    """A type of Triton's dialects that llc does not model, kept as its text:
    ``!nvws.aref<[!ttg.memdesc<1x64x16xf16, #shared, #smem>]>`` is ``type_name`` ``nvws.aref``
    and ``template`` ``<[{a0}]>`` with the memdesc in ``refs`` (the attributes and types its text
    names, so that ``-t ttgir`` prints them with its own aliases); ``mutable_refs`` are the
    indices of the buffer types its text calls ``mutable``. Only opaque ops take or make it.

    >>> t = OpaqueType("nvws.token", "", [])
    >>> t.type_name.data, t.template.data
    ('nvws.token', '')
    """

    name = "tl.opaque_type"
    type_name: StringAttr
    template: StringAttr
    refs: ArrayAttr
    mutable_refs: ArrayAttr

    def __init__(
        self, type_name: str, template: str, refs: Sequence[Attribute], mutable: Sequence[int] = ()
    ):
        super().__init__(
            StringAttr(type_name),
            StringAttr(template),
            ArrayAttr(refs),
            ArrayAttr(IntAttr(i) for i in mutable),
        )


@irdl_op_definition
class OpaqueOp(TLOperation):
    """A Triton op llc does not model, read as it was written (``llc.dialects.ttgir`` reads
    any region-free op of Triton's dialects so): ``op_name`` is Triton's name, ``template`` the
    op's text after its name with ``{o<i>}`` for operand ``i`` and ``{a<i>}`` for ``refs[i]``
    (each attribute or type the text names, so that ``-t ttgir`` prints them with its own
    aliases). Its values keep the layouts they have: the layout passes find no transfer rule
    for it, so it pins them, and the interpreter and the lowering stop on it with a located
    error.

    >>> op = OpaqueOp("ttng.inval_barrier", " {o0} : {a0}", [], [], [])
    >>> op.op_name.data, op.template.data
    ('ttng.inval_barrier', ' {o0} : {a0}')
    """

    name = "tl.opaque"
    operands_ = var_operand_def()
    results_ = var_result_def()
    op_name = prop_def(StringAttr)
    template = prop_def(StringAttr)
    refs = prop_def(ArrayAttr)
    signature = prop_def(FunctionType)
    """The operand and result types it was read with: its text names them, so they must not
    change (:meth:`verify_tl`)."""
    mutable_refs = prop_def(ArrayAttr)
    """Indices into ``refs`` of the buffer types its text calls ``mutable``."""

    def __init__(
        self,
        op_name: str,
        template: str,
        operands: Sequence[SSAValue],
        result_types: Sequence[Attribute],
        refs: Sequence[Attribute],
        mutable_refs: Sequence[int] = (),
    ):
        super().__init__(
            operands=[list(operands)],
            result_types=[list(result_types)],
            properties={
                "op_name": StringAttr(op_name),
                "template": StringAttr(template),
                "refs": ArrayAttr(list(refs)),
                "signature": FunctionType.from_lists(
                    [SSAValue.get(v).type for v in operands], list(result_types)
                ),
                "mutable_refs": ArrayAttr([IntAttr(i) for i in mutable_refs]),
            },
        )

    @property
    def checks_hardware(self) -> bool:
        # Triton verifies the layouts of the ops of tt, ttg and ttng against the warps; the
        # AMD, NVWS and LLVM-family ops do not carry that check (an amdg.concat of 2-warp tiles
        # in a 4-warp module parses in Triton 3.9).
        return self.op_name.data.split(".", 1)[0] in ("tt", "ttg", "ttng")

    def verify_tl(self) -> None:
        # A pass that relaid out this op's values would leave its text naming the old
        # layouts: Triton's op would then read values in layouts it was not written for.
        now = FunctionType.from_lists(
            [v.type for v in self.operands], [r.type for r in self.results]
        )
        if now != self.signature:
            raise self.fail(
                f"{self.op_name.data} was read with types {self.signature}, now has {now}: "
                "llc cannot change the layouts of an op it does not model"
            )


@irdl_op_definition
class ApproxDivFOp(TLOperation):
    """Fast approximate division (Triton 3.9's ``tt.approx_divf``, ``div.full.f32``):
    ``%r = tl.approx_divf %a, %b : tensor<128xf32, #b>``; elementwise like
    :class:`PreciseDivFOp`."""

    name = "tl.approx_divf"
    T: ClassVar = VarConstraint("T", AnyAttr())
    x = operand_def(T)
    y = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$x `,` $y attr-dict `:` type($result)"

    def verify_tl(self) -> None:
        _check_float_operands(self, [self.x, self.y, self.result])


@irdl_op_definition
class WarpSpecializeOp(TLOperation):
    """Warp specialization (Triton's ``ttg.warp_specialize``): the ``default`` region runs on
    the function's warps and yields the results; each ``partitionN`` region runs at the same
    time on its own ``num_warps(n)`` extra warps, takes the explicit captures (the operands) as
    block arguments and sees nothing else from outside (isolated from above). Tensors inside a
    partition are laid out for that partition's warp count (:func:`hardware_config`)::

        %r = tl.warp_specialize(%a) attributes {warpGroupStartIds = array<i32: 4>}
        default {
          tl.warp_yield %b : i64
        }
        partition0(%x: i32) num_warps(4) {
          tl.warp_return
        } : (i32) -> i64

    The layout passes leave partitions alone (their values keep the layouts they have) and
    treat the op as a barrier; llc's interpreter and SIMT lowering do not run it.
    """

    name = "tl.warp_specialize"
    captures = var_operand_def()
    outputs = var_result_def()
    default = region_def("single_block")
    partition_regions = var_region_def("single_block")
    partition_num_warps = prop_def(DenseArrayBase)
    # It does what its regions do (a region free of effects leaves nothing to keep).
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(
        self,
        captures: Sequence[SSAValue],
        result_types: Sequence[Attribute],
        default: Region,
        partitions: Sequence[Region],
        num_warps: Sequence[int],
    ):
        super().__init__(
            operands=[list(captures)],
            result_types=[list(result_types)],
            regions=[default, list(partitions)],
            properties={"partition_num_warps": DenseArrayBase.from_list(i32, list(num_warps))},
        )

    @property
    def num_warps(self) -> list[int]:
        """The warp count of each partition."""
        return [int(v) for v in self.partition_num_warps.get_values()]

    def partition_warps(self, region: Region) -> int | None:
        """The warp count of ``region`` when it is one of the partitions, else ``None``."""
        for r, n in zip(self.partition_regions, self.num_warps, strict=True):
            if r is region:
                return n
        return None

    def verify_tl(self) -> None:
        warps = self.num_warps
        if len(warps) != len(self.partition_regions):
            raise self.fail(
                f"{len(self.partition_regions)} partitions but {len(warps)} warp counts"
            )
        for i, n in enumerate(warps):
            if n <= 0 or n & (n - 1):
                raise self.fail(f"partition{i}: num_warps({n}) must be a power of two")
        yield_op = self.default.block.last_op
        if not isinstance(yield_op, WarpYieldOp):
            raise self.fail("the default region must end with tl.warp_yield")
        got = [v.type for v in yield_op.values]
        want = [r.type for r in self.results]
        if got != want:
            raise self.fail(f"the default region yields {got}, the op returns {want}")
        captures = [v.type for v in self.captures]
        for i, region in enumerate(self.partition_regions):
            block = region.block
            if [a.type for a in block.args] != captures:
                raise self.fail(
                    f"partition{i} takes {[a.type for a in block.args]}, the captures are "
                    f"{captures}"
                )
            if not isinstance(block.last_op, WarpReturnOp):
                raise self.fail(f"partition{i} must end with tl.warp_return")
            for op in region.walk():
                for operand in op.operands:
                    owner = operand.owner
                    where = owner.parent_region() if isinstance(owner, Operation) else None
                    if isinstance(owner, Block):
                        where = owner.parent
                    while where is not None and where is not region:
                        parent = where.parent_op()
                        where = parent.parent_region() if parent is not None else None
                    if where is None:
                        raise self.fail(
                            f"partition{i} uses a value defined outside it ({op.name}); "
                            "partitions see only their arguments"
                        )

    @classmethod
    def parse(cls, parser: Parser) -> WarpSpecializeOp:
        captures = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict_with_keyword()
        parser.parse_keyword("default")
        default = parser.parse_region()
        partitions: list[Region] = []
        warps: list[int] = []
        while (word := parser.parse_optional_identifier()) is not None:
            if word != f"partition{len(partitions)}":
                parser.raise_error(f"expected partition{len(partitions)} or ':', got '{word}'")
            args = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=True)
            )
            parser.parse_keyword("num_warps")
            parser.parse_punctuation("(")
            warps.append(parser.parse_integer(allow_boolean=False, allow_negative=False))
            parser.parse_punctuation(")")
            partitions.append(parser.parse_region(args))
        parser.parse_punctuation(":")
        pos = parser.pos
        signature = parser.parse_function_type()
        if len(signature.inputs.data) != len(captures):
            parser.raise_error(
                f"tl.warp_specialize: {len(captures)} captures but "
                f"{len(signature.inputs.data)} types",
                pos,
                parser.pos,
            )
        values = [
            parser.resolve_operand(v, t)
            for v, t in zip(captures, signature.inputs.data, strict=True)
        ]
        op = cls(values, signature.outputs.data, default, partitions, warps)
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_list(self.captures, printer.print_operand)
        printer.print_string(")")
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        printer._print_new_line()
        printer.print_string("default ")
        printer.print_region(self.default)
        for i, (region, n) in enumerate(zip(self.partition_regions, self.num_warps, strict=True)):
            printer._print_new_line()
            printer.print_string(f"partition{i}(")
            printer.print_list(region.block.args, printer.print_block_argument)
            printer.print_string(f") num_warps({n}) ")
            printer.print_region(region, print_entry_block_args=False)
        printer.print_string(" : ")
        printer.print_operation_type(self)


@irdl_op_definition
class WarpYieldOp(TLOperation):
    """Ends the default region of :class:`WarpSpecializeOp`: its operands are the op's results
    (Triton's ``ttg.warp_yield %x : i64``)."""

    name = "tl.warp_yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator(), HasParent(WarpSpecializeOp), Pure())
    assembly_format = "attr-dict ($values^ `:` type($values))?"


@irdl_op_definition
class WarpReturnOp(TLOperation):
    """Ends a partition of :class:`WarpSpecializeOp` (Triton's ``ttg.warp_return``)."""

    name = "tl.warp_return"
    traits = traits_def(IsTerminator(), HasParent(WarpSpecializeOp), Pure())
    assembly_format = "attr-dict"


ISSUE18_OPS: tuple[type[IRDLOperation], ...] = (
    IntToPtrOp,
    PtrToIntOp,
    MemDescReinterpretOp,
    MemDescReshapeOp,
    DescriptorGatherOp,
    DescriptorScatterOp,
    OpaqueOp,
    ApproxDivFOp,
    WarpSpecializeOp,
    WarpYieldOp,
    WarpReturnOp,
)
"""Ops read from Triton's lit inputs (issue 18, item 4)."""


ELEMENTWISE_OP_NAMES: frozenset[str] = frozenset(
    {
        "tl.cmpf", "tl.cmpi", "tl.select", "tl.sitofp", "tl.uitofp", "tl.fptosi",
        "tl.fptoui", "tl.extsi", "tl.extui", "tl.trunci",
        "arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.negf",
        "arith.maxnumf", "arith.minnumf", "arith.maximumf", "arith.minimumf",
        "arith.addi", "arith.subi", "arith.muli", "arith.divsi", "arith.divui",
        "arith.remsi", "arith.remui", "arith.ceildivsi", "arith.floordivsi",
        "arith.andi", "arith.ori", "arith.xori", "arith.shli", "arith.shrsi", "arith.shrui",
        "arith.maxsi", "arith.minsi", "arith.maxui", "arith.minui",
        "arith.extf", "arith.truncf", "arith.bitcast",
        "math.exp", "math.exp2", "math.log", "math.log2", "math.sqrt", "math.rsqrt",
        "math.tanh", "math.absf", "math.absi", "math.sin", "math.cos", "math.erf",
        "math.floor", "math.ceil", "math.fma", "math.powf", "math.copysign",
        "tl.clampf", "tl.mulhiui", "tl.precise_sqrt", "tl.precise_divf",
        "tl.int_to_ptr", "tl.ptr_to_int", "tl.approx_divf",
    }
)  # fmt: skip
"""Ops (tl, arith, math) that apply a scalar function lane by lane: every tensor operand and
result has the same shape and encoding, so a layout propagates through them unchanged."""


def is_elementwise(op: Operation) -> bool:
    """True if ``op`` is elementwise (see ``ELEMENTWISE_OP_NAMES``) and works on tensors.

    >>> from xdsl.dialects.builtin import ModuleOp
    >>> is_elementwise(ModuleOp([]))
    False
    """
    return op.name in ELEMENTWISE_OP_NAMES and any(
        isinstance(r.type, TensorType) for r in op.results
    )


def verify_elementwise(root: Operation) -> None:
    """Check that the arith/math elementwise ops under ``root`` keep shape and encoding.

    xDSL verifies these ops only partially: it accepts, e.g., ``arith.extf`` from
    ``tensor<4xf16, #a>`` to ``tensor<8xf32, #b>``. Every tensor operand and result of an op in
    ``ELEMENTWISE_OP_NAMES`` must have the same shape and encoding. Raises ``VerifyException``
    (an :class:`~llc.dialects.diagnostics.OpVerifyException` whose ``op`` is the op).
    """
    for op in root.walk():
        if op.name not in ELEMENTWISE_OP_NAMES or isinstance(op, TLOperation):
            continue  # the tl ops check themselves
        named = [(f"operand #{i}", v.type) for i, v in enumerate(op.operands)]
        named += [(f"result #{i}", r.type) for i, r in enumerate(op.results)]
        if not any(isinstance(t, TensorType) for _, t in named):
            continue
        try:
            _same_shape_and_encoding(op, named)
        except VerifyException as err:
            raise OpVerifyException(op, str(err)) from err


def verify_module(root: Operation) -> None:
    """The checks no single op can make, over all dialects: run after ``root.verify()``.

    :func:`verify_hardware` (every layout fits the module's ``"tl.num-warps"`` /
    ``"tl.threads-per-warp"``, including values only arith/math/scf/func ops touch) and
    :func:`verify_elementwise`. ``llc-run`` calls it; tools that verify IR should too.

    >>> from xdsl.dialects.builtin import ModuleOp
    >>> verify_module(ModuleOp([]))
    """
    verify_hardware(root)
    verify_elementwise(root)


TL_OPS: tuple[type[IRDLOperation], ...] = (
    ConstantOp,
    MakeRangeOp,
    SplatOp,
    BroadcastOp,
    ExpandDimsOp,
    ReshapeOp,
    TransOp,
    CmpfOp,
    CmpiOp,
    SelectOp,
    SIToFPOp,
    UIToFPOp,
    FPToSIOp,
    FPToUIOp,
    ExtSIOp,
    ExtUIOp,
    TruncIOp,
    AddPtrOp,
    LoadOp,
    StoreOp,
    ReduceOp,
    ReduceReturnOp,
    DotOp,
    ConvertLayoutOp,
    GetProgramIdOp,
    GetNumProgramsOp,
    LocalAllocOp,
    LocalLoadOp,
    LocalStoreOp,
    LocalDeallocOp,
    WarpGroupDotOp,
    WarpGroupDotWaitOp,
    FenceAsyncSharedOp,
    MemDescIndexOp,
    MemDescSubsliceOp,
    AtomicRMWOp,
    AtomicCASOp,
    CatOp,
    JoinOp,
    SplitOp,
    BitcastOp,
    FpToFpOp,
    HistogramOp,
    GatherOp,
    Fp4ToFpOp,
    DotScaledOp,
    PrintOp,
    AssertOp,
    ScanOp,
    ScanReturnOp,
    ElementwiseInlineAsmOp,
    ExternElementwiseOp,
    MemDescTransOp,
    MakeTensorDescriptorOp,
    DescriptorLoadOp,
    DescriptorStoreOp,
    ClampFOp,
    MulhiUIOp,
    PreciseSqrtOp,
    PreciseDivFOp,
    MapElementwiseOp,
    MapElementwiseReturnOp,
    *ASYNC_COPY_OPS,
    *ISSUE18_OPS,
)
"""Every op of the tl dialect."""

TL_TYPES: tuple[type[ParametrizedAttribute], ...] = (
    OpaqueAttr,
    OpaqueType,
    PointerType,
    MemDescType,
    TensorDescType,
    AsyncTokenType,
)
"""The types of the tl dialect (the layout attributes are in ``LAYOUT_ATTRIBUTES``)."""

TL = Dialect("tl", list(TL_OPS), [*LAYOUT_ATTRIBUTES, *TL_TYPES])
"""The tl dialect: ops, types and layout attributes."""
