"""Hopper dots: which ``tl.dot`` gets mma v3 (``wgmma``), its layouts, and the rewrite into
``tl.local_alloc`` + ``tl.warp_group_dot`` + ``tl.warp_group_dot_wait``.

The choices follow Triton's AccelerateMatmul on ``cuda:90`` so that ``-t ttgir`` gives Triton
the dot it would build itself:

* **which dots** (:func:`supports_mma_v3`): rank 2, ``M % 64 == 0``, ``N % 8 == 0``, warps a
  multiple of 4, ``K`` at least one instruction (``256 / element bits``), both operands of one
  element type among f16, bf16, tf32 (``f32`` with ``inputPrecision = tf32``), i8, f8E5M2,
  f8E4M3FN; an 8-bit float dot accumulating in f32 needs ``maxNumImpreciseAcc >= 32``. Any
  other dot falls back to Triton's next choice (mma v2, then FMA). Where the operands come
  from does not matter to the choice: Triton 3.9's AccelerateMatmul gives v3 to a dot whose
  operands are both read back from shared memory (``local_load``) or computed
  (``bench/accelerate_local_load.py``); older Triton kept such a dot on v2.
* **the accumulator** (:func:`mma_v3_instr_shape`, :func:`warps_per_tile_v3`): instruction
  ``[16, N, 256 / bits]`` with the largest N of wgmma's list that divides the tile and fits the
  warps left after M; warps ``[4, 1]`` grown along M while the tile has rows left, then along N;
  a dot whose result feeds another dot (attention) puts all warps along M.
* **the operands** (:func:`nvmma_shared_for`): B always, and A when it comes from a load, are
  staged through ``#tl.nvmma_shared`` buffers; the swizzle is the widest of 128/64/32 bytes that
  divides the contiguous row (0 with fewer than 8 rows), ``transposed`` when dim 0 is the
  contiguous one (the operand's register order; only f16/bf16 may be transposed, other types
  are laid out K-contiguous). An A computed in registers stays there as ``#tl.dot_op`` of the v3
  accumulator (``kWidth = 32 / bits``).

:func:`hopper_dot` makes the choice from plain facts (doctested); :func:`hopper_dot_for` reads
the facts off a ``tl.dot``; :func:`rewrite_hopper_dots` turns every ``tl.dot`` whose accumulator
the layout assignment gave a v3 layout into Triton's form.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import BoolAttr, IntegerAttr, IntegerType, StringAttr, i32
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from llc.dialects.layout_attrs import DotOperandEncodingAttr, NVMMASharedEncodingAttr
from llc.dialects.tl import (
    FenceAsyncSharedOp,
    LocalAllocOp,
    MemDescType,
    WarpGroupDotOp,
    WarpGroupDotWaitOp,
    element_type_of,
    encoding_of,
    shape_of,
)
from llc.errors import LayoutError
from llc.layouts.nvidia import NvidiaMmaLayout
from llc.layouts.shared import NvmmaSharedLayout

__all__ = [
    "HopperDot",
    "comes_from_load",
    "feeds_another_dot",
    "hopper_dot",
    "hopper_dot_for",
    "input_precision",
    "mma_v3_instr_shape",
    "nvmma_shared_for",
    "promote_fp8_dot_operands",
    "rewrite_hopper_dots",
    "supports_mma_v3",
    "warps_per_tile_v3",
]

_FP8 = frozenset({"f8E5M2", "f8E4M3FN"})
"""The 8-bit floats wgmma takes natively."""
_FP8_ANY = _FP8 | {"f8E5M2FNUZ", "f8E4M3FNUZ"}
"""8-bit floats any mma accepts (promoted to f16 where not native)."""
_V3_TYPES = _FP8 | {"i8", "f16", "bf16", "f32"}
_WIDE_N = tuple(range(256, 7, -8))
"""wgmma's N for 16-bit and 32-bit floats and fp8, largest first."""
_INT8_N = (224, 208, 192, 176, 160, 144, 128, 112, 96, 80, 64, 48, 32, 24, 16, 8)
"""wgmma's N for i8 (Triton's list, largest first)."""
_PRECISIONS = {"tf32": 0, "tf32x3": 1, "ieee": 2, "bf16x3": 3, "bf16x6": 4, "bf16x9": 5}
"""Triton's ``InputPrecision`` enum, as ``ttng.warp_group_dot`` spells it (an ``i32``)."""
DOT_LIKE = frozenset({"tl.dot", "tl.warp_group_dot", "tl.dot_scaled"})


def _bits(element: str) -> int:
    if element.startswith(("f8", "i8")):
        return 8
    if element in ("f16", "bf16", "i16"):
        return 16
    if element in ("f64", "i64"):
        return 64
    return 32


def nvmma_shared_for(
    shape: tuple[int, ...], order: tuple[int, ...], element_bits: int
) -> NvmmaSharedLayout:
    """Triton's ``NVMMASharedEncodingAttr::get``: the shared layout wgmma reads an operand from.

    ``order`` lists the dims fastest first (the operand's register order). The swizzle is the
    widest of 128/64/32 bytes that divides the contiguous dim's bytes (0 when none does, or when
    the other dims hold fewer than 8 rows); ``transposed`` when dim 0 is the contiguous one.

    >>> a = nvmma_shared_for((64, 32), (1, 0), 16)  # 32 f16 = 64 bytes per row
    >>> (a.swizzling_byte_width, a.transposed)
    (64, False)
    >>> k = nvmma_shared_for((64, 64), (0, 1), 16)  # K-major B: dim 0 contiguous
    >>> (k.swizzling_byte_width, k.transposed)
    (128, True)
    >>> nvmma_shared_for((4, 64), (1, 0), 16).swizzling_byte_width  # 4 rows: no swizzle
    0
    """
    contiguous_bytes = shape[order[0]] * element_bits // 8
    swizzle = 0
    for width in (128, 64, 32):
        if contiguous_bytes >= width and contiguous_bytes % width == 0:
            swizzle = width
            break
    rows = 1
    for d in order[1:]:
        rows *= shape[d]
    if len(shape) < 2 or rows < 8:
        swizzle = 0
    return NvmmaSharedLayout(swizzle, order[0] == 0, element_bits)


def mma_v3_instr_shape(m: int, n: int, element: str, num_warps: int) -> tuple[int, int, int]:
    """Triton's ``mmaVersionToInstrShape`` for v3: ``[16, N, 256 / bits]``, N the largest of
    wgmma's sizes that divides the tile's N and is at most what each warp group along N covers.

    >>> mma_v3_instr_shape(64, 64, "f16", 4), mma_v3_instr_shape(128, 256, "f16", 8)
    ((16, 64, 16), (16, 256, 16))
    >>> mma_v3_instr_shape(64, 256, "i8", 4), mma_v3_instr_shape(64, 128, "f32", 8)
    ((16, 128, 32), (16, 64, 8))
    """
    k = 256 // _bits(element)
    m_warps = max(m // 16, 1)
    n_warps = max(num_warps // m_warps, 1)
    max_n = max(n // n_warps, 8)
    for size in _INT8_N if element == "i8" else _WIDE_N:
        if n % size == 0 and size <= max_n:
            return (16, size, k)
    raise LayoutError(f"no wgmma instruction for a {m}x{n} {element} tile")


def warps_per_tile_v3(m: int, num_warps: int, chained: bool) -> tuple[int, int]:
    """Triton's ``warpsPerTileV3``: warp groups of ``[4, 1]`` doubled along M while the tile has
    rows left for them, then along N; all warps along M when the result feeds another dot.

    >>> warps_per_tile_v3(64, 8, False), warps_per_tile_v3(128, 8, False)
    ((4, 2), (8, 1))
    >>> warps_per_tile_v3(64, 8, True)
    (8, 1)
    """
    if chained:
        return (num_warps, 1)
    warps = [4, 1]
    while warps[0] * warps[1] < num_warps:
        if m > 16 * warps[0]:
            warps[0] *= 2
        else:
            warps[1] *= 2
    return (warps[0], warps[1])


def supports_mma_v3(
    shape: tuple[int, ...],
    k: int,
    a_element: str,
    b_element: str,
    result_element: str,
    num_warps: int,
    precision: str = "tf32",
    max_num_imprecise_acc: int = 0,
) -> bool:
    """Triton's ``supportMMA(dot, 3)``: whether a dot of result ``shape`` (``[M, N]``), depth
    ``k`` and these element types can run on wgmma (see the module docstring).

    >>> supports_mma_v3((64, 64), 32, "f16", "f16", "f32", 4)
    True
    >>> supports_mma_v3((32, 64), 32, "f16", "f16", "f32", 4)  # M below one warp group's 64
    False
    >>> supports_mma_v3((64, 64), 8, "f16", "f16", "f32", 4)  # K below one instruction's 16
    False
    >>> supports_mma_v3((64, 64), 32, "f32", "f32", "f32", 4, precision="ieee")
    False
    >>> supports_mma_v3((64, 64), 32, "i8", "f16", "f32", 4)  # mixed types
    False
    """
    if len(shape) != 2 or num_warps % 4:
        return False
    m, n = shape
    if m % 64 or n % 8 or k < 256 // _bits(a_element):
        return False
    if a_element != b_element or a_element not in _V3_TYPES:
        return False
    if a_element in _FP8 and result_element == "f32" and max_num_imprecise_acc < 32:
        return False
    if a_element == "f32":
        return precision == "tf32"
    return True


@dataclass(frozen=True)
class HopperDot:
    """The v3 form of one dot: its accumulator layout and where its operand A lives."""

    mma: NvidiaMmaLayout
    a_in_registers: bool
    """A stays in registers as ``#tl.dot_op`` of :attr:`mma` (else it is staged in shared)."""
    k_width: int
    """``kWidth`` of A's ``#tl.dot_op`` when it stays in registers."""
    transposable: bool
    """Whether the operands may keep their register order in shared memory (f16/bf16 only)."""


def hopper_dot(
    shape: tuple[int, ...],
    k: int,
    a_element: str,
    b_element: str,
    result_element: str,
    num_warps: int,
    *,
    a_from_load: bool = True,
    chained: bool = False,
    precision: str = "tf32",
    max_num_imprecise_acc: int = 0,
) -> HopperDot | None:
    """Triton's mma v3 choice for one dot, or ``None`` when Triton would not use v3 (then its
    next choice, mma v2 or FMA, applies).

    >>> d = hopper_dot((64, 64), 32, "f16", "f16", "f32", 4)
    >>> d.mma.warps_per_cta, d.mma.instr_shape, d.a_in_registers
    ((4, 1), (16, 64, 16), False)
    >>> hopper_dot((64, 64), 64, "f16", "f16", "f32", 4, a_from_load=False).k_width
    2
    >>> hopper_dot((16, 64), 64, "f16", "f16", "f32", 4) is None  # small M: mma v2
    True
    """
    if not supports_mma_v3(
        shape, k, a_element, b_element, result_element, num_warps, precision, max_num_imprecise_acc
    ):
        return None
    m, n = shape
    try:
        instr = mma_v3_instr_shape(m, n, a_element, num_warps)
        warps = warps_per_tile_v3(m, num_warps, chained)
        mma = NvidiaMmaLayout(3, 0, list(warps), list(instr))
    except LayoutError:
        return None  # an N llc's linear layouts cannot express (not a power of two)
    return HopperDot(
        mma, not a_from_load, max(1, 32 // _bits(a_element)), a_element in ("f16", "bf16")
    )


# ------------------------------------------------------------------------------ IR facts
def comes_from_load(value: SSAValue) -> bool:
    """Triton's ``comesFromLoadOrBlockArg``: ``value``, looking through conversions and
    transposes, is a load's result or a block argument."""
    while isinstance(value.owner, Operation) and value.owner.name in (
        "tl.convert_layout",
        "tl.trans",
    ):
        value = value.owner.operands[0]
    if isinstance(value, BlockArgument):
        return True
    return isinstance(value.owner, Operation) and value.owner.name in (
        "tl.load",
        "tl.descriptor_load",
        "tl.descriptor_gather",
    )


def feeds_another_dot(op: Operation) -> bool:
    """Whether a dot is in the forward slice of ``op``'s result (the users of its users...),
    as Triton's ``warpsPerTileV3`` looks for chained dots."""
    seen: set[Operation] = set()
    stack = [op]
    while stack:
        cur = stack.pop()
        for result in cur.results:
            for use in result.uses:
                user = use.operation
                if user in seen:
                    continue
                if user.name in DOT_LIKE:
                    return True
                seen.add(user)
                stack.append(user)
    return False


def input_precision(op: Operation) -> str:
    """A dot's ``inputPrecision`` by name (``ieee`` when absent, as Triton's TTIR omits it)."""
    attr = op.attributes.get("tt.inputPrecision")
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, IntegerAttr):
        names = {v: k for k, v in _PRECISIONS.items()}
        return names.get(attr.value.data, "ieee")
    # Triton's TTIR writes tf32 explicitly and omits the default, ieee.
    return "ieee"


def _imprecise(op: Operation) -> int:
    # TTIR writes it in the attribute dictionary; the "tt." spelling is the import's for the
    # options written after the operands.
    for key in ("maxNumImpreciseAcc", "tt.maxNumImpreciseAcc"):
        attr = op.attributes.get(key)
        if isinstance(attr, IntegerAttr):
            return attr.value.data
    return 0


def hopper_dot_for(op: Operation, num_warps: int) -> HopperDot | None:
    """:func:`hopper_dot` for a ``tl.dot`` of the IR."""
    a, b, c = (v.type for v in op.operands[:3])
    shape = shape_of(c)
    return hopper_dot(
        shape,
        shape_of(a)[-1],
        str(element_type_of(a)),
        str(element_type_of(b)),
        str(element_type_of(c)),
        num_warps,
        a_from_load=comes_from_load(op.operands[0]),
        chained=feeds_another_dot(op),
        precision=input_precision(op),
        max_num_imprecise_acc=_imprecise(op),
    )


# ------------------------------------------------------------------------------ rewrite
def _register_order(value: SSAValue) -> tuple[int, ...]:
    layout = getattr(encoding_of(value.type), "layout", None)
    order = getattr(layout, "order", None)
    rank = len(shape_of(value.type))
    if order is not None and len(order) == rank and getattr(layout, "kind", "") == "blocked":
        return tuple(order)
    return tuple(reversed(range(rank)))


def _stage(value: SSAValue, op_idx: int, transposable: bool) -> SSAValue:
    """``tl.local_alloc`` of ``value`` into the nvmma buffer wgmma reads operand ``op_idx``
    from, right after ``value``'s definition (as Triton places it, so a loop-invariant operand
    is staged once, outside the loop)."""
    source = value
    if isinstance(value.owner, Operation) and value.owner.name == "tl.convert_layout":
        source = value.owner.operands[0]
    shape = shape_of(source.type)
    element = element_type_of(source.type)
    order = _register_order(source)
    owner = source.owner
    if isinstance(owner, Operation) and owner.name == "tl.trans":
        # A transposed operand (``tl.dot(a, tl.trans(b))``) keeps the order of the value it
        # transposes, as Triton stages the source and reads a transposed view of its buffer
        # (OptimizeDotOperands' trans fusion): B stored N x K, K contiguous, is read K-major.
        perm = list(owner.permutation)  # type: ignore[attr-defined]
        transposed = owner.operands[0]
        if isinstance(transposed.owner, Operation) and transposed.owner.name == "tl.convert_layout":
            transposed = transposed.owner.operands[0]  # the anchors' layout, not a default's
        order = tuple(perm.index(d) for d in _register_order(transposed))
    if not transposable:
        order = (0, 1) if op_idx == 1 else (1, 0)  # K contiguous
    shared = NVMMASharedEncodingAttr(nvmma_shared_for(shape, order, _bits(str(element))))
    alloc = LocalAllocOp(MemDescType(element, list(shape), shared), source)
    owner = source.owner
    if isinstance(owner, Block):
        Rewriter.insert_op(alloc, InsertPoint.at_start(owner))
    else:
        Rewriter.insert_op(alloc, InsertPoint.after(owner))
    return alloc.result


def rewrite_hopper_dots(module: Operation) -> int:
    """Turn every ``tl.dot`` whose accumulator has an mma v3 layout into Triton's form:
    ``tl.local_alloc`` of B (and of A unless A is a ``#tl.dot_op`` register tensor),
    ``tl.fence_async_shared``, ``tl.warp_group_dot {isAsync = true}`` and
    ``tl.warp_group_dot_wait {pendings = 0}`` over the product and its buffers.
    Returns the number of dots rewritten.
    """
    dots = [
        op
        for op in module.walk()
        if op.name == "tl.dot" and getattr(encoding_of(op.results[0].type), "layout", None)
    ]
    count = 0
    for op in dots:
        layout = encoding_of(op.results[0].type).layout  # type: ignore[union-attr]
        if getattr(layout, "kind", None) != "nvidia_mma" or not layout.is_hopper:
            continue
        a, b, acc = op.operands[:3]
        element = str(element_type_of(a.type))
        transposable = element in ("f16", "bf16")
        if not isinstance(encoding_of(a.type), DotOperandEncodingAttr):
            a = _stage(a, 0, transposable)
        b = _stage(b, 1, transposable)
        Rewriter.insert_op(FenceAsyncSharedOp(), InsertPoint.before(op))
        product = WarpGroupDotOp(a, b, acc)
        product.attributes["inputPrecision"] = IntegerAttr(
            _PRECISIONS.get(input_precision(op), 2), i32
        )
        if (imprecise := _imprecise(op)) != 0:
            product.attributes["maxNumImpreciseAcc"] = IntegerAttr(imprecise, i32)
        product.attributes["isAsync"] = BoolAttr(True, IntegerType(1))
        waited = [product.result] + [v for v in (a, b) if isinstance(v.type, MemDescType)]
        wait = WarpGroupDotWaitOp(waited, 0)
        Rewriter.insert_op([product, wait], InsertPoint.before(op))
        product.result.name_hint = op.results[0].name_hint
        op.results[0].replace_all_uses_with(wait.outputs[0])
        Rewriter.erase_op(op)
        count += 1
    return count


def promote_fp8_dot_operands(module: Operation, capability: int) -> int:
    """Triton's ``decomposeMixedModeDotOp`` for mma v2: below sm_89 (and on sm_90's v2
    fallbacks) ``mma.sync`` has no fp8 form, so a dot of two fp8 operands (e5m2 or e4m3fn) with
    an mma v2 accumulator reads them widened to f16 by ``tl.fp_to_fp`` in their ``dot_op``
    layouts. Returns the number of dots promoted.

    >>> from xdsl.dialects.builtin import ModuleOp
    >>> promote_fp8_dot_operands(ModuleOp([]), 80)
    0
    """
    from xdsl.dialects.builtin import Float16Type, TensorType

    from llc.dialects.tl import FpToFpOp

    count = 0
    for op in list(module.walk()):
        if op.name != "tl.dot" or capability == 89:
            continue
        layout = getattr(encoding_of(op.results[0].type), "layout", None)
        if getattr(layout, "kind", None) != "nvidia_mma" or layout.is_hopper:
            continue
        types = [str(element_type_of(v.type)) for v in op.operands[:2]]
        if types[0] not in _FP8 or types[1] not in _FP8:
            continue
        for i in (0, 1):
            value = op.operands[i]
            t = value.type
            assert isinstance(t, TensorType)
            wide = FpToFpOp(value, TensorType(Float16Type(), t.get_shape(), t.encoding))
            Rewriter.insert_op(wide, InsertPoint.before(op))
            op.operands[i] = wide.result
        count += 1
    return count
