"""Read Triton's TTIR/TTGIR into llc's dialects.

Triton prints its IR with the ``tt``/``ttg`` dialects; llc's ``tl`` dialect spells the same ops
and layouts the same way inside the op (``tl.make_range {end = 1024 : i32, start = 0 : i32}``,
``#tl.blocked<{sizePerThread = ...}>``). Importing is therefore done while parsing: a
:class:`TritonContext` answers xDSL's parser with llc's op, attribute and type classes for Triton's
names (``tt.load`` -> ``tl.load``, ``tt.func`` -> ``func.func``, ``#ttg.blocked`` ->
``#tl.blocked``, ``!tt.ptr`` -> ``!tl.ptr``, tensor ``arith.cmpi`` -> ``tl.cmpi``, ...), and a few
shims parse the ops whose Triton syntax differs (``tt.dot``'s ``inputPrecision``, the memory space
of ``!ttg.memdesc``). The parsed module holds only llc's ops, so every pass and the interpreter
work on it. Module attributes are renamed (``"ttg.num-warps"`` -> ``"tl.num-warps"``); TTIR, which
has none, gets them from the caller (defaults: 4 warps, 32 threads per warp, ``cuda:90``).

An op outside :data:`OP_NAMES` is a parse error located on the op that names it.

>>> module = parse_triton_module('''
... module {
...   tt.func public @f(%p: !tt.ptr<f32>) {
...     %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
...     tt.return
...   }
... }''')
>>> print(module.body.block.first_op.body.block.first_op)
%r = tl.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
>>> module.attributes["tl.num-warps"]
IntegerAttr(value=IntAttr(data=4), type=IntegerType(32))
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, cf, func, gpu, llvm, math, scf, ub
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    Builtin,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    NoneAttr,
    StringAttr,
    TensorType,
    UnitAttr,
    i32,
)
from xdsl.ir import (
    Attribute,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    TypeAttribute,
)
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError

from llc.dialects import tl
from llc.dialects.diagnostics import parse_module
from llc.dialects.layout_attrs import LAYOUT_ATTRIBUTES, SharedEncodingAttr
from llc.dialects.xdsl_private import peek_token, resume_from

__all__ = [
    "ATTR_NAMES",
    "DEFAULT_NUM_WARPS",
    "DEFAULT_TARGET",
    "DEFAULT_THREADS_PER_WARP",
    "HINT_NAMES",
    "MODULE_ATTR_NAMES",
    "OP_NAMES",
    "TYPE_NAMES",
    "TritonContext",
    "is_triton_file",
    "parse_triton_module",
]

DEFAULT_NUM_WARPS = 4
DEFAULT_THREADS_PER_WARP = 32
DEFAULT_TARGET = "cuda:90"

_TT_TO_TL = (
    "get_program_id",
    "get_num_programs",
    "make_range",
    "splat",
    "broadcast",
    "expand_dims",
    "reshape",
    "trans",
    "addptr",
    "load",
    "store",
    "reduce",
    "reduce.return",
    "atomic_rmw",
    "atomic_cas",
    "cat",
    "join",
    "split",
    "bitcast",
    "fp_to_fp",
    "histogram",
    "gather",
    "print",
    "assert",
    "scan",
    "scan.return",
    "elementwise_inline_asm",
    "extern_elementwise",
    "make_tensor_descriptor",
    "descriptor_load",
    "descriptor_store",
    "clampf",
    "mulhiui",
    "precise_sqrt",
    "precise_divf",
    "map_elementwise",
    "map_elementwise.return",
    "int_to_ptr",
    "ptr_to_int",
    "descriptor_gather",
    "descriptor_scatter",
    "approx_divf",
)
_TTG_TO_TL = (
    "convert_layout",
    "local_alloc",
    "local_load",
    "local_store",
    "local_dealloc",
    "memdesc_index",
    "memdesc_subslice",
    "memdesc_trans",
    "async_copy_global_to_local",
    "async_commit_group",
    "async_wait",
    "fp4_to_fp",
    "memdesc_reinterpret",
    "memdesc_reshape",
    "warp_specialize",
    "warp_yield",
    "warp_return",
)
_TTNG_TO_TL = ("warp_group_dot", "warp_group_dot_wait", "fence_async_shared")
# arith ops whose xDSL versions take no tensors (scalar i1 results, scalar conditions, scalar
# casts): llc's tl versions take both.
_ARITH_TO_TL = (
    "cmpi",
    "cmpf",
    "select",
    "sitofp",
    "uitofp",
    "fptosi",
    "fptoui",
    "extsi",
    "extui",
    "trunci",
)

OP_NAMES: dict[str, str] = {
    "tt.func": "func.func",
    "tt.return": "func.return",
    "tt.call": "func.call",
    **{f"tt.{n}": f"tl.{n}" for n in _TT_TO_TL},
    **{f"ttg.{n}": f"tl.{n}" for n in _TTG_TO_TL},
    **{f"arith.{n}": f"tl.{n}" for n in _ARITH_TO_TL},
    **{f"ttng.{n}": f"tl.{n}" for n in _TTNG_TO_TL},
}
"""Triton op name -> llc op name (``tt.dot`` and ``tt.dot_scaled`` have shims:
:class:`_TritonDot`, :class:`_TritonDotScaled`)."""

ATTR_NAMES: dict[str, str] = {f"ttg.{attr.kind}": attr.name for attr in LAYOUT_ATTRIBUTES}
"""``#ttg.<kind>`` -> ``#tl.<kind>`` for every layout attribute llc knows."""

TYPE_NAMES: dict[str, str] = {
    "tt.ptr": "tl.ptr",
    "tt.tensordesc": "tl.tensordesc",
    "ttg.async.token": "tl.async_token",
}
"""Triton type name -> llc type name (``!ttg.memdesc`` has a shim: :class:`_TritonMemDesc`)."""

MODULE_ATTR_NAMES: dict[str, str] = {
    "ttg.num-warps": tl.NUM_WARPS_ATTR,
    "ttg.threads-per-warp": tl.THREADS_PER_WARP_ATTR,
    "ttg.target": tl.TARGET_ATTR,
}
"""TTGIR module attribute -> llc module attribute."""

HINT_NAMES: dict[str, str] = {"tt.divisibility": "tl.divisibility"}
"""Triton argument hint -> llc's spelling (``-t ttgir`` prints every ``tl.`` attribute as
``tt.`` again)."""

_DIALECT_PREFIXES = (
    "tt.",
    "ttg.",
    "ttng.",
    "amdgpu.",
    "amdg.",
    "nvws.",
    "nvg.",
    "proton.",
    "triton_gpu.",
)
_OPAQUE_PREFIXES = (
    "tt.",
    "ttg.",
    "ttng.",
    "amdgpu.",
    "amdg.",
    "nvws.",
    "nvg.",
    "proton.",
    "llvm.",
    "rocdl.",
    "nvvm.",
)
"""Dialects whose other (region-free) ops are read as :class:`~llc.dialects.tl.OpaqueOp`."""


@irdl_attr_definition
class _TritonMemDesc(ParametrizedAttribute, TypeAttribute):
    """Parses ``!ttg.memdesc<64x8xf16, #shared, #smem[, mutable][, 64x32]>`` into
    ``!tl.memdesc``.

    llc models one shared memory, so the memory space and mutability are dropped; the TTGIR
    printer puts them back (``#smem``, and ``mutable`` on buffers allocated without a value and
    their views). The trailing allocation shape of a view (``ttg.memdesc_subslice``) is kept.
    """

    name = "ttg.memdesc"

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            dims, element = parser.parse_ranked_shape()
            encoding: Attribute = NoneAttr()
            extra: list[Attribute | str] = []
            alloc: list[int] = []
            while parser.parse_optional_punctuation(",") is not None:
                if parser.parse_optional_keyword("mutable") is not None:
                    extra.append("mutable")
                    continue
                if peek_token(parser).text[:1].isdigit():
                    alloc = parser.parse_dimension_list()
                    continue
                at = parser.pos
                attr = parser.parse_attribute()
                if isinstance(attr, _SharedMemorySpace | _TensorMemorySpace):
                    in_tmem = isinstance(encoding, tl.OpaqueAttr) and encoding.in_tensor_memory
                    if in_tmem != isinstance(attr, _TensorMemorySpace):
                        parser.raise_error(
                            "llc reads shared-memory buffers with a shared layout and "
                            "tensor-memory buffers with a tensor-memory encoding",
                            at,
                            parser.pos,
                        )
                elif isinstance(encoding, tl.NoneAttr) and (
                    _is_shared_layout(attr)
                    or (isinstance(attr, tl.OpaqueAttr) and attr.in_tensor_memory)
                ):
                    encoding = attr
                else:
                    what = attr.text if isinstance(attr, tl.OpaqueAttr) else str(attr)
                    parser.raise_error(
                        f"llc cannot read a buffer whose encoding is {what}", at, parser.pos
                    )
        return (
            ArrayAttr(IntAttr(d) for d in dims),
            element,
            encoding,
            ArrayAttr(IntAttr(d) for d in alloc),
        )

    @classmethod
    def new(cls, params: Sequence[Attribute]) -> tl.MemDescType:  # type: ignore[override]
        return tl.MemDescType.new(tuple(params))


def _is_shared_layout(attr: Attribute) -> bool:
    return isinstance(attr, SharedEncodingAttr)


class _TritonDot:
    """Parses ``tt.dot %a, %b, %c[, inputPrecision = tf32][, maxNumImpreciseAcc = 0] : ...``
    into ``tl.dot``; the options are kept as attributes so that the TTGIR printer restores them."""

    @classmethod
    def dialect_name(cls) -> str:
        return "tt"

    @classmethod
    def parse(cls, parser: Parser) -> Operation:
        operands = [parser.parse_unresolved_operand()]
        options: dict[str, Attribute] = {}
        while parser.parse_optional_punctuation(",") is not None:
            name = parser.parse_optional_identifier()
            if name is None:
                operands.append(parser.parse_unresolved_operand())
                continue
            parser.parse_punctuation("=")
            if (word := parser.parse_optional_identifier()) is not None:
                options[name] = StringAttr(word)
            else:
                options[name] = IntegerAttr(parser.parse_integer(), i32)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        a_type = parser.parse_type()
        parser.parse_punctuation("*")
        b_type = parser.parse_type()
        parser.parse_punctuation("->")
        c_type = parser.parse_type()
        if len(operands) != 3:
            parser.raise_error(f"tt.dot takes 3 operands, got {len(operands)}")
        a, b, c = (
            parser.resolve_operand(o, t)
            for o, t in zip(operands, (a_type, b_type, c_type), strict=True)
        )
        op = tl.DotOp(a, b, c)
        op.attributes |= {f"tt.{k}": v for k, v in options.items()} | attrs
        return op


class _TritonConstant:
    """Parses ``arith.constant``, reading ``dense<0xFF800000> : tensor<...xf32>`` as the float
    with those bits (MLIR's spelling of -inf; xDSL 0.74 reads the hex as an integer value)."""

    @classmethod
    def dialect_name(cls) -> str:
        return "arith"

    @classmethod
    def parse(cls, parser: Parser) -> Operation:
        start = parser.pos
        if parser.parse_optional_keyword("dense") is not None:
            parser.parse_punctuation("<")
            token = peek_token(parser).text
            if token[:2] in ("0x", "0X"):
                bits = parser.parse_integer()
                parser.parse_punctuation(">")
                parser.parse_punctuation(":")
                typ = parser.parse_type()
                element = tl.element_type_of(typ)
                if isinstance(typ, TensorType) and isinstance(element, AnyFloat):
                    raw = bits.to_bytes(element.compile_time_size, "little")
                    value = next(element.iter_unpack(raw))
                    dense = DenseIntOrFPElementsAttr.from_list(typ, [value] * typ.element_count())
                    op = arith.ConstantOp(dense, typ)
                    op.attributes |= parser.parse_optional_attr_dict()
                    return op
            resume_from(parser, start)
        return arith.ConstantOp.parse(parser)


class _TritonSelect:
    """Parses ``arith.select``: with one type (a scalar ``i1`` condition) as xDSL's
    ``arith.select``, with two (``tensor<..xi1>, tensor<..>``) as ``tl.select``."""

    @classmethod
    def dialect_name(cls) -> str:
        return "arith"

    @classmethod
    def parse(cls, parser: Parser) -> Operation:
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        if len(operands) != 3 or len(types) not in (1, 2):
            parser.raise_error("arith.select takes %cond, %a, %b : [cond type,] type")
        cond_type = types[0] if len(types) == 2 else IntegerType(1)
        cond = parser.resolve_operand(operands[0], cond_type)
        a, b = (parser.resolve_operand(o, types[-1]) for o in operands[1:])
        op: Operation = tl.SelectOp(cond, a, b) if len(types) == 2 else arith.SelectOp(cond, a, b)
        op.attributes |= attrs
        return op

    @classmethod
    def create(cls, *, operands: Sequence[object] = (), **kwargs: object) -> Operation:
        """The generic form: ``tl.select`` for a tensor condition, else ``arith.select``."""
        tensor = bool(operands) and isinstance(operands[0].type, TensorType)  # type: ignore[attr-defined]
        op_type = tl.SelectOp if tensor else arith.SelectOp
        return op_type.create(operands=operands, **kwargs)  # type: ignore[arg-type]


class _TritonDotScaled:
    """Parses Triton's ``tt.dot_scaled %a scale %as, %b scale %bs, %c lhs = e4m3 rhs = e4m3
    {fastMath = false} : ta, tas * tb, tbs -> tc`` into ``tl.dot_scaled``; either ``scale``
    clause may be absent (``%b, %c lhs = e2m1 rhs = bf16 ... : ta, tas * tb -> tc``: that
    operand is not scaled). ``fastMath`` is kept as an attribute."""

    @classmethod
    def dialect_name(cls) -> str:
        return "tt"

    @classmethod
    def parse(cls, parser: Parser) -> Operation:
        def operand_and_scale() -> tuple[UnresolvedOperand, UnresolvedOperand | None]:
            value = parser.parse_unresolved_operand()
            if parser.parse_optional_keyword("scale") is None:
                return value, None
            return value, parser.parse_unresolved_operand()

        a, a_scale = operand_and_scale()
        parser.parse_punctuation(",")
        b, b_scale = operand_and_scale()
        parser.parse_punctuation(",")
        acc = parser.parse_unresolved_operand()
        formats = {}
        for side in ("lhs", "rhs"):
            parser.parse_keyword(side)
            parser.parse_punctuation("=")
            formats[side] = StringAttr(parser.parse_identifier())
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types: list[Attribute | None] = []
        for i, scale in enumerate((a_scale, b_scale)):
            if i:
                parser.parse_punctuation("*")
            types.append(parser.parse_type())
            if scale is not None:
                parser.parse_punctuation(",")
                types.append(parser.parse_type())
            else:
                types.append(None)
        parser.parse_punctuation("->")
        result = parser.parse_type()
        operands = [
            [] if o is None else [parser.resolve_operand(o, t)]  # type: ignore[arg-type]
            for o, t in zip((a, a_scale, b, b_scale, acc), (*types, result), strict=True)
        ]
        op = tl.DotScaledOp(operands=operands, result_types=[result], properties=formats)
        op.attributes |= attrs
        return op


def _parse_type_list(parser: Parser) -> list[Attribute]:
    """``(t1, t2)`` or a single type without parentheses (MLIR prints one result so)."""
    if peek_token(parser).text == "(":
        return parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
    return [parser.parse_type()]


class _TritonIf:
    """Parses ``scf.if``, also with one result type written without parentheses
    (``scf.if %c -> tensor<...> {``, which MLIR accepts and xDSL's parser rejects)."""

    @classmethod
    def dialect_name(cls) -> str:
        return "scf"

    @classmethod
    def parse(cls, parser: Parser) -> Operation:
        cond = parser.parse_operand(IntegerType(1))
        types = _parse_type_list(parser) if parser.parse_optional_punctuation("->") else []
        then_region = scf.IfOp.parse_region_with_yield(parser)
        else_region = (
            scf.IfOp.parse_region_with_yield(parser)
            if parser.parse_optional_keyword("else")
            else Region()
        )
        return scf.IfOp(cond, types, then_region, else_region, parser.parse_optional_attr_dict())


class _TritonFor:
    """Parses ``scf.for``, also with one iteration type written without parentheses
    (``iter_args(%k = %x) -> tensor<...> : i32 {``) and with ``unsigned`` bounds."""

    @classmethod
    def dialect_name(cls) -> str:
        return "scf"

    @classmethod
    def parse(cls, parser: Parser) -> Operation:
        # `scf.for unsigned %i = ...` compares the bounds unsigned: MLIR's `unsignedCmp`
        # (kept as that attribute, which MLIR's parser takes back).
        unsigned = parser.parse_optional_keyword("unsigned") is not None
        indvar = parser.parse_argument(expect_type=False)
        parser.parse_punctuation("=")
        bounds = [parser.parse_unresolved_operand()]
        for word in ("to", "step"):
            parser.parse_keyword(word)
            bounds.append(parser.parse_unresolved_operand())
        pos = parser.pos
        args: list[Parser.UnresolvedArgument] = []
        inits: list[UnresolvedOperand] = []
        types: list[Attribute] = []
        if parser.parse_optional_keyword("iter_args"):

            def assignment() -> tuple[Parser.UnresolvedArgument, UnresolvedOperand]:
                arg = parser.parse_argument(expect_type=False)
                parser.parse_punctuation("=")
                return arg, parser.parse_unresolved_operand()

            for arg, init in parser.parse_comma_separated_list(parser.Delimiter.PAREN, assignment):
                args.append(arg)
                inits.append(init)
            parser.parse_punctuation("->")
            types = _parse_type_list(parser)
        init_values = parser.resolve_operands(inits, types, pos)
        iv_type = parser.parse_type() if parser.parse_optional_punctuation(":") else IndexType()
        lb, ub, step = (parser.resolve_operand(b, iv_type) for b in bounds)
        body = parser.parse_region(
            (indvar.resolve(iv_type), *(a.resolve(t) for a, t in zip(args, types, strict=True)))
        )
        attrs = parser.parse_optional_attr_dict()
        op = scf.ForOp(lb, ub, step, init_values, body)
        op.attributes |= attrs
        if unsigned:
            op.attributes["unsignedCmp"] = UnitAttr()
        if not args and (body.block.last_op is None or body.block.last_op.name != "scf.yield"):
            body.block.add_op(scf.YieldOp())
        return op


class _TritonWhile:
    """Parses ``scf.while``, also with no loop-carried values (``scf.while : () -> () {``, as
    MLIR prints a spin lock's loop; xDSL's parser wants the parenthesized assignments)."""

    @classmethod
    def dialect_name(cls) -> str:
        return "scf"

    @classmethod
    def parse(cls, parser: Parser) -> Operation:
        if peek_token(parser).text == "(":
            return scf.WhileOp.parse(parser)
        parser.parse_punctuation(":")
        pos = parser.pos
        signature = parser.parse_function_type()
        if signature.inputs.data:
            parser.raise_error("scf.while without operands takes no arguments", pos, parser.pos)
        before = parser.parse_region(())
        parser.parse_characters("do")
        after = parser.parse_region()
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = scf.WhileOp((), signature.outputs.data, before, after)
        if attrs is not None:
            op.attributes |= attrs.data
        return op


def _compare_shim(op_type: type[tl._CompareOp]) -> type:
    """``arith.cmpi`` / ``arith.cmpf`` on any operands: the custom form goes to ``tl.cmpi`` /
    ``tl.cmpf``'s parser (keyword or string predicate); the generic form
    (``"arith.cmpi"(%a, %b) <{predicate = 2 : i64}>``) gives MLIR's predicate number, whose
    order is the order of :data:`llc.dialects.tl.CMPI_PREDICATES` / ``CMPF_PREDICATES``."""

    class _Compare:
        @classmethod
        def dialect_name(cls) -> str:
            return "arith"

        @classmethod
        def parse(cls, parser: Parser) -> Operation:
            return op_type.parse(parser)

        @classmethod
        def create(cls, *, properties: dict[str, Attribute] | None = None, **kwargs: object):  # type: ignore[no-untyped-def]
            props = dict(properties or {})
            predicate = props.get("predicate")
            if isinstance(predicate, IntegerAttr):
                names = op_type.PREDICATES
                index = predicate.value.data
                props["predicate"] = StringAttr(names[index] if 0 <= index < len(names) else "?")
            return op_type.create(properties=props, **kwargs)  # type: ignore[arg-type]

    return _Compare


_SSA_USE_RE = re.compile(r"%([\w$.\-]+)(?:#(\d+))?")
_REF_START_RE = re.compile(r"[#!][A-Za-z_]")
_REGION_START_RE = re.compile(r"(default|partition\d*)\b|\^|\{")
"""How a line after an op starts when the op goes on with regions (``ttg.warp_specialize``'s
``default {``, a block label, a brace)."""


_CONTINUED = (":", ",", "->", " to", "=")
"""How a line ends when the op goes on on the next one (its types after a colon)."""


def _op_text_end(content: str, start: int) -> int:
    """Where the text of a region-free op that starts at ``start`` ends: the end of its line,
    or of a later one when a line ends inside brackets or with ``:``/``,``/``->`` (MLIR lets
    an op's types run over several lines).

    >>> text = "ttng.op %a :\\n   !t<1>,\\n   i1\\ntt.return"
    >>> text[: _op_text_end(text, 0)].split()
    ['ttng.op', '%a', ':', '!t<1>,', 'i1']
    """
    end = start
    while True:
        line_end = content.find("\n", end)
        line_end = len(content) if line_end < 0 else line_end
        text = content[start:line_end]
        code = text.split("//")[0].rstrip() if '"' not in text else text.rstrip()
        depth = _depth(code)
        if line_end == len(content) or (depth <= 0 and not code.endswith(_CONTINUED)):
            return line_end
        if code.endswith("{"):
            return line_end  # a region follows: the caller says so
        end = line_end + 1


def _depth(text: str) -> int:
    """Brackets left open at the end of ``text`` (outside strings; ``->`` is no bracket)."""
    depth, quoted = 0, False
    for i, ch in enumerate(text):
        if quoted:
            quoted = ch != '"' or text[i - 1] == "\\"
        elif ch == '"':
            quoted = True
        elif ch in "([{<" and not (ch == "<" and text.startswith("<-", i)):
            depth += 1
        elif ch in ")]}>" and not (ch == ">" and text[i - 1 : i] == "-"):
            depth -= 1
    return depth


def _top_level(text: str, sep: str) -> list[int]:
    """Positions of ``sep`` in ``text`` outside brackets and strings.

    >>> _top_level("a, f(b, c), d", ",")
    [1, 10]
    """
    found, depth, quoted, i = [], 0, False, 0
    while i < len(text):
        ch = text[i]
        if quoted:
            quoted = ch != '"' or text[i - 1] == "\\"
        elif ch == '"':
            quoted = True
        elif ch in "([{<" and not (ch == "<" and text.startswith("<-", i)):
            depth += 1
        elif ch in ")]}>" and not (ch == ">" and text[i - 1 : i] == "-"):
            depth -= 1
        elif depth == 0 and text.startswith(sep, i):
            found.append(i)
        i += 1
    return found


def _closing(text: str) -> int:
    """The position of the bracket that closes one already open before ``text``.

    >>> _closing("a, (b), c) -> d")
    9
    """
    depth = 0
    for i, ch in enumerate(text):
        if ch in "([{<" and not text.startswith("<-", i):
            depth += 1
        elif ch in ")]}>" and text[i - 1 : i] != "-":
            depth -= 1
            if depth < 0:
                return i
    return len(text)


def _opaque(name: str) -> type:
    """Reads a region-free op of Triton's dialects that llc does not model into
    :class:`~llc.dialects.tl.OpaqueOp` (see there): its operands are the ``%`` values its text
    names, its result types the last ones of its signature (after ``->`` or ``to`` when there
    is one), every ``#attribute`` and ``!type`` it names is kept as an attribute. An op with
    regions, a value used before it is defined or a type that does not parse is a located
    error."""

    def fail(parser: Parser, why: str, start: int, end: int) -> None:
        parser.raise_error(f"llc cannot import the Triton op '{name}': {why}", start, end)

    class _Opaque:
        @classmethod
        def dialect_name(cls) -> str:
            return name.split(".")[0]

        @classmethod
        def parse(cls, parser: Parser) -> Operation:
            start = parser.lexer.input.content.rfind(name, 0, parser.pos)
            try:
                return cls._parse(parser)
            except ParseError:
                raise
            except Exception as err:  # never a traceback: say where and what
                fail(parser, f"its text does not read ({err})", start, start + len(name))
                raise  # unreachable: fail raises

        @classmethod
        def _parse(cls, parser: Parser) -> Operation:
            content = parser.lexer.input.content
            name_start = content.rfind(name, 0, parser.pos)
            body_start = name_start + len(name)
            line_end = _op_text_end(content, body_start)
            body = content[body_start:line_end]
            following = content[line_end:].lstrip("\n \t")
            if body.rstrip().endswith(("{", "(")) or _REGION_START_RE.match(following):
                fail(parser, _why_regions_are_not_read(name), name_start, body_start)
            prefix = content[content.rfind("\n", 0, name_start) + 1 : name_start]
            n_results = 0
            if "=" in prefix:
                for m in re.finditer(r"%[\w$.\-]+(?::(\d+))?", prefix):
                    n_results += int(m.group(1) or 1)
            pieces: list[str] = []
            operands: list[object] = []
            refs: list[Attribute] = []
            mutable: list[int] = []
            i = 0
            while i < len(body):
                ch = body[i]
                if ch == '"':
                    end = body.find('"', i + 1)
                    while end > 0 and body[end - 1] == "\\":
                        end = body.find('"', end + 1)
                    end = len(body) if end < 0 else end + 1
                    pieces.append(body[i:end].replace("{", "{{").replace("}", "}}"))
                    i = end
                elif ch == "%" and (m := _SSA_USE_RE.match(body, i)):
                    values = parser.ssa_values.get(m.group(1))
                    index = int(m.group(2) or 0)
                    if values is None or index >= len(values):
                        at = body_start + i
                        fail(parser, f"{m.group(0)} is not defined before it", at, at + len(m[0]))
                    pieces.append(f"{{o{len(operands)}}}")
                    operands.append(values[index])  # type: ignore[index]
                    i = m.end()
                elif _REF_START_RE.match(body, i):
                    at = body_start + i
                    resume_from(parser, at)
                    ref = parser.parse_attribute() if ch == "#" else parser.parse_type()
                    end = at + len(content[at : parser.pos].rstrip())
                    if isinstance(ref, tl.MemDescType) and ", mutable" in content[at:end]:
                        mutable.append(len(refs))
                    pieces.append(f"{{a{len(refs)}}}")
                    refs.append(ref)
                    i = end - body_start
                elif ch == "\n":  # an op written over several lines reads as one line
                    pieces.append(" ")
                    i += 1
                    while i < len(body) and body[i] in " \t":
                        i += 1
                else:
                    pieces.append({"{": "{{", "}": "}}"}.get(ch, ch))
                    i += 1
            result_types: list[Attribute] = []
            flat = body.replace("\n", " ")
            tokens = _implicit_tokens(name, n_results)
            if n_results - tokens:
                # The last top-level colon before whitespace (`%v : t` and `%v:\n t` alike).
                colons = [c for c in _top_level(flat, ":") if flat[c + 1 : c + 2] in (" ", "\t")]
                if not colons:
                    fail(parser, "no ': types' to read its results from", name_start, line_end)
                signature = colons[-1] + 2
                tail = flat[signature:]
                for sep in ("->", " to "):
                    if marks := _top_level(tail, sep):
                        signature += marks[-1] + len(sep)
                        break
                tail = flat[signature:]
                lead = len(tail) - len(tail.lstrip())
                if tail.strip().startswith("("):
                    signature += lead + 1
                    tail = flat[signature : signature + _closing(flat[signature:])]
                starts = [0] + [c + 1 for c in _top_level(tail, ",")]
                for start in starts[-(n_results - tokens) :]:
                    resume_from(parser, body_start + signature + start)
                    result_types.append(parser.parse_type())
                if len(result_types) != n_results - tokens:
                    fail(parser, f"expected {n_results} result types", name_start, line_end)
            result_types += [tl.AsyncTokenType()] * tokens
            resume_from(parser, line_end)
            template = "".join(pieces).rstrip()
            return tl.OpaqueOp(name, template, operands, result_types, refs, mutable)  # type: ignore[arg-type]

    return _Opaque


_TOKEN_RESULT_OPS: dict[str, int] = {
    "ttng.tmem_load": 1,
    "ttng.tmem_store": 0,
    "ttng.tc_gen5_mma": 0,
    "ttng.tc_gen5_mma_scaled": 0,
}
"""Ops whose custom syntax leaves out the type of a trailing ``!ttg.async.token`` result (the
token that orders tensor-memory accesses, ``%v, %tok = ttng.tmem_load %m[%dep] : ... ->
tensor<...>``): op -> how many results its signature does spell."""


def _implicit_tokens(name: str, n_results: int) -> int:
    """How many of ``n_results`` results of op ``name`` are tokens its text gives no type for.

    >>> _implicit_tokens("ttng.tmem_load", 2), _implicit_tokens("ttng.tmem_load", 1)
    (1, 0)
    >>> _implicit_tokens("ttng.tc_gen5_mma", 1), _implicit_tokens("ttng.wait_barrier", 0)
    (1, 0)
    """
    spelled = _TOKEN_RESULT_OPS.get(name)
    return 1 if spelled is not None and n_results == spelled + 1 else 0


def _unsupported(name: str) -> type:
    class _Unsupported:
        @classmethod
        def dialect_name(cls) -> str:
            return name.split(".")[0]

        @classmethod
        def parse(cls, parser: Parser) -> Operation:
            # The op name is already consumed: point the error at it.
            start = parser.lexer.input.content.rfind(name, 0, parser.pos)
            parser.raise_error(
                f"llc cannot import the Triton op '{name}' (supported: "
                f"{', '.join(sorted(n for n in OP_NAMES if not n.startswith('arith.')))}, "
                "tt.dot, and the arith, math and scf dialects)",
                start if start >= 0 else None,
                start + len(name) if start >= 0 else None,
            )

        @classmethod
        def create(cls, *args: object, **kwargs: object) -> Operation:
            raise ValueError(f"llc cannot import the Triton op '{name}'")

    return _Unsupported


class _GpuBarrier:
    """``gpu.barrier`` (xDSL's op has no custom syntax): MLIR writes it bare."""

    @classmethod
    def dialect_name(cls) -> str:
        return "gpu"

    @classmethod
    def parse(cls, parser: Parser) -> Operation:
        op = gpu.BarrierOp()
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    @classmethod
    def create(cls, **kwargs: object) -> Operation:
        return gpu.BarrierOp.create(**kwargs)  # type: ignore[arg-type]


_SHIMS: dict[str, type] = {
    "gpu.barrier": _GpuBarrier,
    "tt.dot": _TritonDot,
    "tt.dot_scaled": _TritonDotScaled,
    "arith.cmpi": _compare_shim(tl.CmpiOp),
    "arith.cmpf": _compare_shim(tl.CmpfOp),
    "scf.if": _TritonIf,
    "scf.for": _TritonFor,
    "scf.while": _TritonWhile,
    "arith.constant": _TritonConstant,
    "arith.select": _TritonSelect,
}


_SHIM_CREATES: dict[str, type[Operation]] = {
    "tt.dot": tl.DotOp,
    "tt.dot_scaled": tl.DotScaledOp,
    "scf.if": scf.IfOp,
    "scf.for": scf.ForOp,
    "arith.constant": arith.ConstantOp,
}
"""The op class a shim's generic form (``"tt.dot"(...)``) builds."""


def _generic_fallback(parse_cls: type, real: type[Operation]) -> type:
    """``parse_cls`` (an llc op or a shim) also reading Triton's *generic* form
    (``"tt.load"(%p) <{cache = 1 : i32, ...}> : (...) -> ...``), which MLIR prints for a module
    that fails to verify and ``--mlir-print-op-generic`` prints always: properties of Triton's
    op that llc's op does not define (``cache``, ``evict``, ``isVolatile``, ``boundaryCheck``,
    ``inputPrecision``, ...) are kept as attributes, as the custom form keeps them, and llc's
    own properties are taken from either dictionary."""

    class _Generic:
        @classmethod
        def dialect_name(cls) -> str:
            return parse_cls.dialect_name()  # type: ignore[attr-defined]

        @classmethod
        def parse(cls, parser: Parser) -> Operation:
            return parse_cls.parse(parser)  # type: ignore[attr-defined]

        @classmethod
        def create(
            cls,
            *,
            properties: dict[str, Attribute] | None = None,
            attributes: dict[str, Attribute] | None = None,
            **kwargs: object,
        ) -> Operation:
            props, attrs = dict(properties or {}), dict(attributes or {})
            known = set()
            if hasattr(real, "get_irdl_definition"):
                known = set(real.get_irdl_definition().properties)  # type: ignore[attr-defined]
            for name in [n for n in props if n not in known]:
                value = props.pop(name)
                if name != "operandSegmentSizes":  # llc's op counts its own operands
                    attrs[name] = value
            for name in [n for n in attrs if n in known and n not in props]:
                props[name] = attrs.pop(name)
            if "operandSegmentSizes" in known and "operandSegmentSizes" in (properties or {}):
                props["operandSegmentSizes"] = properties["operandSegmentSizes"]  # type: ignore[index]
            return real.create(properties=props, attributes=attrs, **kwargs)  # type: ignore[arg-type]

    return _Generic


_MLIR_EXTRA = (cf.Cf, gpu.GPU, ub.UB, llvm.LLVM)
"""MLIR dialects Triton's IR also holds: ``ub.poison`` (the pipeliner's undefined values),
``gpu.barrier``, ``cf.br``/``cf.cond_br`` (written back unchanged; the layout passes pin their
values), and the LLVM dialect's types (``!llvm.array<0 x i8>`` of ``llvm.mlir.global``; every
``llvm.*`` op is read as an opaque op)."""


class TritonContext(Context):
    """An xDSL context that resolves Triton's op, attribute and type names to llc's classes."""

    def __init__(self) -> None:
        super().__init__()
        for dialect in (Builtin, func.Func, arith.Arith, math.Math, scf.Scf, tl.TL, *_MLIR_EXTRA):
            self.load_dialect(dialect)
        self._triton_extra: list[Dialect] = []

    def get_optional_op(self, name: str, *, dialect_stack: Sequence[str] = ()):  # type: ignore[override]
        if name in _SHIMS:
            shim = _SHIMS[name]
            if hasattr(shim, "create") or name not in _SHIM_CREATES:
                return shim  # type: ignore[return-value]
            return _generic_fallback(shim, _SHIM_CREATES[name])  # type: ignore[return-value]
        mapped = OP_NAMES.get(name)
        if mapped is not None:
            op = super().get_optional_op(mapped)
            return None if op is None else _generic_fallback(op, op)  # type: ignore[return-value]
        if name.startswith(_OPAQUE_PREFIXES):
            return _opaque(name)  # type: ignore[return-value]
        if name.startswith(_DIALECT_PREFIXES) or name.startswith("tl."):
            return _unsupported(name)  # type: ignore[return-value]
        return super().get_optional_op(name, dialect_stack=dialect_stack)

    def get_optional_attr(self, name: str) -> type[Attribute] | None:
        if name == "ttg.shared_memory":
            return _SharedMemorySpace
        if name == "ttng.tensor_memory":
            return _TensorMemorySpace
        if name == "tt.cache_policy":
            return TritonCachePolicy
        found = super().get_optional_attr(ATTR_NAMES.get(name, name))
        if found is None and name.startswith(_OPAQUE_PREFIXES):
            return _opaque_attr(name)
        return found

    def get_optional_type(self, name: str) -> type[TypeAttribute] | None:
        if name == "ttg.memdesc":
            return _TritonMemDesc
        found = super().get_optional_type(TYPE_NAMES.get(name, name))
        if found is None and name.startswith(_OPAQUE_PREFIXES):
            return _opaque_type(name)  # type: ignore[return-value]
        return found


_OPAQUE_ATTR_SHIMS: dict[str, type] = {}


def _opaque_attr(name: str) -> type:
    """Reads ``#<name><...>``, an attribute of Triton's dialects llc does not model, into
    :class:`~llc.dialects.tl.OpaqueAttr` (its text kept). A body naming another attribute
    (``#alias``) is a located error: the name would not survive llc's printer."""
    if name in _OPAQUE_ATTR_SHIMS:
        return _OPAQUE_ATTR_SHIMS[name]

    class _Shim(ParametrizedAttribute):
        @classmethod
        def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
            content, start = parser.lexer.input.content, parser.pos
            if not content.startswith("<", start):
                return (StringAttr(""),)
            end = start + 1 + _closing(content[start + 1 :])
            body = content[start : end + 1]
            if "#" in body:
                parser.raise_error(
                    f"llc reads #{name} only without attributes inside it", start, end + 1
                )
            resume_from(parser, end + 1)
            return (StringAttr(body),)

        @classmethod
        def new(cls, params: Sequence[Attribute]) -> tl.OpaqueAttr:  # type: ignore[override]
            return tl.OpaqueAttr(name, params[0].data)  # type: ignore[attr-defined]

    _Shim.name = name  # type: ignore[misc]
    _OPAQUE_ATTR_SHIMS[name] = _Shim
    return _Shim


_OPAQUE_TYPE_SHIMS: dict[str, type] = {}


def _opaque_type(name: str) -> type:
    """Reads ``!<name><...>``, a type of Triton's dialects llc does not model (``!nvws.aref<[
    !ttg.memdesc<...>]>``, ``!nvws.token``), into :class:`~llc.dialects.tl.OpaqueType`: its
    text kept, every ``#attribute`` and ``!type`` it names read (so that aliases such as
    ``#shared`` are printed again by ``-t ttgir``)."""
    if name in _OPAQUE_TYPE_SHIMS:
        return _OPAQUE_TYPE_SHIMS[name]

    class _Shim(ParametrizedAttribute, TypeAttribute):
        @classmethod
        def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
            content, start = parser.lexer.input.content, parser.pos
            if not content.startswith("<", start):
                return (StringAttr(""), ArrayAttr([]), ArrayAttr([]))
            end = start + 1 + _closing(content[start + 1 :]) + 1
            pieces: list[str] = []
            refs: list[Attribute] = []
            mutable: list[int] = []
            i = start
            while i < end:
                if _REF_START_RE.match(content, i):
                    resume_from(parser, i)
                    ref = parser.parse_attribute() if content[i] == "#" else parser.parse_type()
                    ref_end = i + len(content[i : parser.pos].rstrip())
                    if isinstance(ref, tl.MemDescType) and ", mutable" in content[i:ref_end]:
                        mutable.append(len(refs))
                    pieces.append(f"{{a{len(refs)}}}")
                    refs.append(ref)
                    i = ref_end
                else:
                    pieces.append({"{": "{{", "}": "}}"}.get(content[i], content[i]))
                    i += 1
            resume_from(parser, end)
            return (
                StringAttr("".join(pieces)),
                ArrayAttr(refs),
                ArrayAttr(IntAttr(m) for m in mutable),
            )

        @classmethod
        def new(cls, params: Sequence[Attribute]) -> tl.OpaqueType:  # type: ignore[override]
            template, refs, mutable = params
            return tl.OpaqueType(
                name,
                template.data,  # type: ignore[attr-defined]
                refs.data,  # type: ignore[attr-defined]
                [m.data for m in mutable.data],  # type: ignore[attr-defined]
            )

    _Shim.name = name  # type: ignore[misc]
    _OPAQUE_TYPE_SHIMS[name] = _Shim
    return _Shim


@irdl_attr_definition
class _TensorMemorySpace(ParametrizedAttribute):
    """``#ttng.tensor_memory``: Blackwell's tensor memory, a memory space that
    :class:`_TritonMemDesc` reads from the buffer's encoding (an opaque tensor-memory one)."""

    name = "ttng.tensor_memory"


@irdl_attr_definition
class _SharedMemorySpace(ParametrizedAttribute):
    """``#ttg.shared_memory``: a memory space, dropped by :class:`_TritonMemDesc`."""

    name = "ttg.shared_memory"


@irdl_attr_definition
class TritonCachePolicy(ParametrizedAttribute):
    """``#tt.cache_policy<cache_modifier = cg, eviction_policy = evict_last>``: a load's or
    store's cache hints (``tl.load(..., cache_modifier=".cg")``), kept as written and printed
    back unchanged; the layouts, the interpreters and the SIMT lowering ignore them.

    >>> from xdsl.dialects.builtin import ArrayAttr, StringAttr
    >>> p = TritonCachePolicy(ArrayAttr([StringAttr("cache_modifier"), StringAttr("cg")]))
    >>> p.pairs
    [('cache_modifier', 'cg')]
    """

    name = "tt.cache_policy"
    entries: ArrayAttr[StringAttr]

    @property
    def pairs(self) -> list[tuple[str, str]]:
        """``(key, value)`` in order."""
        words = [e.data for e in self.entries.data]
        return list(zip(words[::2], words[1::2], strict=True))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        words: list[StringAttr] = []

        def entry() -> None:
            words.append(StringAttr(parser.parse_identifier()))
            parser.parse_punctuation("=")
            words.append(StringAttr(parser.parse_identifier()))

        parser.parse_comma_separated_list(parser.Delimiter.ANGLE, entry)
        return (ArrayAttr(words),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<" + ", ".join(f"{k} = {v}" for k, v in self.pairs) + ">")


_LOC_START_RE = re.compile(r"(?:^[ \t]*#loc[\w$.\-]*[ \t]*=[ \t]*)?\bloc\(", re.MULTILINE)


def blank_locations(text: str) -> str:
    """``text`` with every ``loc(...)`` and ``#loc = loc(...)`` definition replaced by spaces.

    Triton prints its location aliases after the module (forward references xDSL's parser
    rejects) and they point into the Python source; blanking them keeps every other character
    where it was, so llc's diagnostics name the line and column of the TTGIR file itself.

    >>> blank_locations('%0 = tt.foo loc(#loc1)\\n#loc1 = loc("a.py"(#loc))\\n')
    '%0 = tt.foo           \\n                         \\n'
    """
    out = list(text)
    for match in _LOC_START_RE.finditer(text):
        if match.start() < len(out) and out[match.start()] == "\0":
            continue
        depth, i, quoted = 1, match.end(), False
        while i < len(text) and depth:
            ch = text[i]
            if quoted:
                if ch == "\\":
                    i += 1
                elif ch == '"':
                    quoted = False
            elif ch == '"':
                quoted = True
            elif ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            i += 1
        for j in range(match.start(), i):
            if out[j] != "\n":
                out[j] = " "
    return "".join(out)


_TRITON_OP_RE = re.compile(r'^[ \t]*(?:%[^=\n]*=[ \t]*)?"?(?:tt|ttg|ttng)\.[a-z_]', re.MULTILINE)
TRITON_SUFFIXES = (".ttgir", ".ttir")
"""Files read as Triton IR whatever their contents."""


def is_triton_file(name: str, text: str) -> bool:
    """Whether ``llc-opt`` reads ``name`` as Triton IR: a ``.ttgir``/``.ttir`` file, or text
    with a ``tt``/``ttg``/``ttng`` op.

    >>> is_triton_file("k.mlir", "  tt.func @f() {"), is_triton_file("k.mlir", "func.func @f()")
    (True, False)
    >>> is_triton_file("k.ttir", "")
    True
    """
    return name.endswith(TRITON_SUFFIXES) or _TRITON_OP_RE.search(text) is not None


@dataclass(frozen=True)
class HardwareDefaults:
    """What a module without TTGIR's module attributes (TTIR) gets."""

    num_warps: int = DEFAULT_NUM_WARPS
    threads_per_warp: int = DEFAULT_THREADS_PER_WARP
    target: str = DEFAULT_TARGET


def parse_triton_module(
    text: str,
    name: str = "<unknown>",
    defaults: HardwareDefaults = HardwareDefaults(),
    *,
    line_offset: int = 0,
) -> ModuleOp:
    """Parse Triton TTIR/TTGIR text into a module of llc's dialects (see the module doc).

    Raises xDSL's ``ParseError`` (located) for bad input or an unsupported op.
    """
    module = parse_module(TritonContext(), blank_locations(text), name, line_offset=line_offset)
    rename_module_attributes(module, defaults)
    mark_unhinted_pointers(module)
    return module


def mark_unhinted_pointers(module: ModuleOp) -> None:
    """Give each pointer argument without a ``tt.divisibility`` hint an explicit hint of 1,
    and spell every argument hint llc's way (:data:`HINT_NAMES`: ``tl.divisibility``).

    Triton's axis analysis reads a missing hint as divisibility 1 (its launcher writes the hint
    into the TTIR when it specialises an aligned pointer); llc's assumes 16-byte aligned
    pointers. The explicit hint keeps Triton's meaning, so llc coalesces an imported kernel as
    Triton does (scalar accesses, where llc alone would pick 16-byte vectors).
    """
    for op in module.walk():
        if not isinstance(op, func.FuncOp) or not op.body.blocks:
            continue
        args = op.body.blocks.first.args  # type: ignore[union-attr]
        attrs = [dict(a.data) for a in op.arg_attrs.data] if op.arg_attrs else [{} for _ in args]
        changed = False
        for arg, arg_attrs in zip(args, attrs, strict=True):
            for triton_name, llc_name in HINT_NAMES.items():
                if triton_name in arg_attrs:
                    arg_attrs[llc_name] = arg_attrs.pop(triton_name)
                    changed = True
            if not isinstance(arg.type, tl.PointerType) or "tl.divisibility" in arg_attrs:
                continue
            arg_attrs["tl.divisibility"] = IntegerAttr(1, i32)
            changed = True
        if changed:
            op.arg_attrs = ArrayAttr([DictionaryAttr(a) for a in attrs])


def _uses_tensor_memory(module: ModuleOp) -> bool:
    """Whether a buffer of ``module`` lives in tensor memory (an opaque tensor-memory
    encoding)."""
    for op in module.walk():
        values = [*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)]
        for v in values:
            enc = getattr(v.type, "encoding", None)
            if isinstance(enc, tl.OpaqueAttr) and enc.in_tensor_memory:
                return True
    return False


def rename_module_attributes(module: ModuleOp, defaults: HardwareDefaults) -> None:
    """TTGIR's ``"ttg.num-warps"`` etc. become llc's names, on the module and on every module
    nested in it (a file holding several modules parses as one module around them, each with
    its own hardware); the outer module's missing ones take ``defaults``."""
    for nested in module.walk():
        if isinstance(nested, ModuleOp | func.FuncOp):  # a function may set its own warps
            attrs = nested.attributes
            for triton_name, llc_name in MODULE_ATTR_NAMES.items():
                if triton_name in attrs:
                    attrs[llc_name] = attrs.pop(triton_name)
    attrs = module.attributes
    attrs.setdefault(tl.NUM_WARPS_ATTR, IntegerAttr(defaults.num_warps, i32))
    attrs.setdefault(tl.THREADS_PER_WARP_ATTR, IntegerAttr(defaults.threads_per_warp, i32))
    target = defaults.target
    if tl.TARGET_ATTR not in attrs and target == DEFAULT_TARGET and _uses_tensor_memory(module):
        target = "cuda:100"  # tensor memory is Blackwell's: Triton rejects its ops below sm_100
    attrs.setdefault(tl.TARGET_ATTR, StringAttr(target))
    _ = TensorType


def _why_regions_are_not_read(name: str) -> str:
    """The located error for an op with regions of a dialect llc does not model.

    >>> print(_why_regions_are_not_read("nvws.warp_group"))  # doctest: +ELLIPSIS
    an op with regions is not read: nvws.warp_group's partitions run on their own num_warps ...
    >>> _why_regions_are_not_read("amdg.some_loop")
    'an op with regions is not read'
    """
    if name == "nvws.warp_group":
        # Each partition runs on its own num_warps (8 in a 4-warp module in Triton's tests):
        # the layouts of the ops inside must fit that count, which llc's hardware lookup knows
        # for ttg.warp_specialize partitions only, and the partitions read values defined above
        # them where ttg.warp_specialize passes explicit captures. Read as an opaque op with
        # regions, the layout passes would relay out the ops inside for the module's warps.
        return (
            "an op with regions is not read: nvws.warp_group's partitions run on their own "
            "num_warps and read values from above (ttg.warp_specialize takes explicit "
            "captures); lower it to ttg.warp_specialize first (Triton's nvws-lower-warp-group)"
        )
    return "an op with regions is not read"
