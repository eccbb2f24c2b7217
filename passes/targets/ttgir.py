"""Print llc's IR as Triton TTGIR (``llc-opt -t ttgir``), the inverse of :mod:`llc.dialects.ttgir`.

:class:`TTGIRPrinter` is llc's alias printer with Triton's names: ``tl.load`` prints as
``tt.load``, ``func.func`` as ``tt.func``, ``tl.cmpi`` as ``arith.cmpi``, ``#tl.blocked`` as
``#ttg.blocked``, ``!tl.ptr`` as ``!tt.ptr``, ``!tl.memdesc<...>`` as
``!ttg.memdesc<..., #smem[, mutable]>`` (``mutable`` for buffers allocated without a value), the
module attributes as ``"ttg.num-warps"`` etc. ``tl.dot`` gets Triton's ``inputPrecision``
clause back and ``tl.reduce`` is printed in the generic form that Triton's parser reads. Every
op name llc prints is in :data:`EXPORT_NAMES`; an op without a Triton counterpart is a located
error. The result parses with Triton 3.9's ``ir.parse_mlir_module`` and compiles with
``triton.compile`` (``test/unit/test_ttgir.py``).

>>> from llc.dialects.ttgir import parse_triton_module
>>> module = parse_triton_module('''
... module {
...   tt.func @f(%p: !tt.ptr<f32>) {
...     %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
...     tt.return
...   }
... }''')
>>> print(module_to_ttgir(module), end="")  # doctest: +ELLIPSIS
module attributes {"ttg.num-warps" = 4 : i32, ..., "ttg.num-ctas" = 1 : i32} {
  tt.func @f(%p: !tt.ptr<f32> {tt.divisibility = 1 : i32}) {
    %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    tt.return
  }
}
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from io import StringIO
from typing import IO

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    i32,
)
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.target import Target

from llc.dialects import tl
from llc.dialects.diagnostics import error_at
from llc.dialects.layout_attrs import LayoutEncodingAttr, print_layout_value
from llc.dialects.printer import LLCPrinter
from llc.dialects.ttgir import MODULE_ATTR_NAMES, OP_NAMES

__all__ = ["EXPORT_NAMES", "TTGIRPrinter", "TTGIRTarget", "module_to_ttgir", "triton39_params"]

EXPORT_NAMES: dict[str, str] = {llc: triton for triton, llc in OP_NAMES.items()} | {
    "tl.dot": "tt.dot",
    "tl.dot_scaled": "tt.dot_scaled",
    "tl.constant": "arith.constant",
}
"""llc op name -> Triton op name (ops of arith/math/scf keep their names)."""

_KEEP_PREFIXES = ("arith.", "math.", "scf.", "builtin.", "ub.", "gpu.", "cf.")
_TEMPLATE_RE = re.compile(r"(\{[oa]\d+\})")
_SMEM_ALIAS = "#smem"
_DOT_OPTIONS = ("inputPrecision", "maxNumImpreciseAcc")


@dataclass(eq=False, repr=False)
class TTGIRPrinter(LLCPrinter):
    """:class:`~llc.dialects.printer.LLCPrinter` printing Triton's names (see the module doc)."""

    _mutable: set[Attribute] = field(default_factory=set, init=False)
    _pending_name: tuple[str, str] | None = field(default=None, init=False)

    def print_alias_definitions(self, root: Operation) -> None:
        # Buffers allocated without a value are written later: Triton types them mutable,
        # and so are the buffers indexed out of them and their views.
        self._mutable = set()
        for op in root.walk():
            if (isinstance(op, tl.LocalAllocOp) and op.src is None) or (
                isinstance(
                    op,
                    tl.MemDescIndexOp
                    | tl.MemDescSubsliceOp
                    | tl.MemDescReinterpretOp
                    | tl.MemDescReshapeOp
                    | tl.MemDescTransOp,
                )
                and op.src.type in self._mutable
            ):
                self._mutable.add(op.result.type)
            elif isinstance(op, tl.OpaqueOp):  # as its text said
                self._mutable.update(op.refs.data[i.data] for i in op.mutable_refs.data)
                for ref in op.refs.data:  # and the buffers inside its types (!nvws.aref<[...]>)
                    if isinstance(ref, tl.OpaqueType):
                        inner = ref.refs.data
                        self._mutable.update(inner[i.data] for i in ref.mutable_refs.data)  # type: ignore[attr-defined]
            elif isinstance(op, tl.LocalStoreOp | tl.AsyncCopyGlobalToLocalOp):
                # Triton rejects a store into an immutable buffer (one allocated from a value
                # and written again later).
                self._mutable.add(op.dst.type)
        if any(isinstance(r.type, tl.MemDescType) for op in root.walk() for r in op.results) or any(
            isinstance(a.type, tl.MemDescType)
            for op in root.walk()
            for region in op.regions
            for block in region.blocks
            for a in block.args
        ):
            self.print_string(f"{_SMEM_ALIAS} = #ttg.shared_memory\n", indent=0)
        self._aliases_printed = True
        attrs = self._collect(root)
        self._assign_names(attrs)
        for attr in attrs:
            name = self._aliases[attr]
            self.print_string(f"{name} = ")
            self._print_layout(attr)
            self.print_string("\n", indent=0)
            self._aliases_by_id[id(attr)] = name

    # -- names -------------------------------------------------------------------------------

    def print_string(self, text: str, *, indent: int | None = None) -> None:
        if self._pending_name is not None:
            llc_name, triton_name = self._pending_name
            if text in (llc_name, f'"{llc_name}"'):
                self._pending_name = None
                text = text.replace(llc_name, triton_name)
        super().print_string(text, indent=indent)

    def print_op(self, op: Operation) -> None:
        if self.print_aliases and not self._aliases_printed:
            self.print_alias_definitions(op)
        if isinstance(op, tl.OpaqueOp):
            self._print_opaque(op)
            return
        name = triton_op_name(op)
        if isinstance(op, tl.DotOp):
            self._print_dot(op)
            return
        if isinstance(op, tl.DotScaledOp):
            self._print_dot_scaled(op)
            return
        if isinstance(op, tl.AsyncCopyGlobalToLocalOp):
            self._print_async_copy(op)
            return
        if isinstance(op, tl.ConstantOp) and not isinstance(op.value, DenseIntOrFPElementsAttr):
            # arith.constant spells a splat tensor dense<v> (tl.constant's bare scalar is llc's).
            self._print_results(op)
            self.print_string("arith.constant ")
            value = op.value.value.data  # type: ignore[attr-defined]
            typ = op.result.type
            if isinstance(typ, TensorType):
                self.print_attribute(DenseIntOrFPElementsAttr.from_list(typ, [value]))
            else:
                self.print_attribute(op.value)
            self.print_op_attributes(op.attributes)
            return
        if isinstance(op, tl.Fp4ToFpOp):
            self._print_results(op)
            self.print_string("ttg.fp4_to_fp ")
            self.print_operand(op.src)
            self.print_op_attributes({"axis": op.axis} | dict(op.attributes))
            self.print_string(" : ")
            self.print_attribute(op.src.type)
            self.print_string(" -> ")
            self.print_attribute(op.result.type)
            return
        self._pending_name = (op.name, name) if name != op.name else None
        # Triton prints (and parses) tt.reduce, tt.scan and tt.map_elementwise only in the
        # generic form; the ops of their regions are printed in their custom forms again (the
        # generic form of a tl op would show llc's properties, e.g. a string predicate).
        generic = isinstance(op, tl.ReduceOp | tl.ScanOp | tl.MapElementwiseOp)
        saved = self.print_generic_format
        self.print_generic_format = generic
        try:
            super().print_op(op)
        finally:
            self.print_generic_format = saved

    def _print_opaque(self, op: tl.OpaqueOp) -> None:
        """An op llc read as it was written: its text again, with the values' and layouts'
        names as this printer gives them. Its text names the types it was read with: if a pass
        changed them (laid out the tensors of a TTIR op llc does not model), the text would lie,
        so that is a located error."""
        try:
            op.verify_tl()
        except VerifyException as err:
            raise error_at(op, f"-t ttgir: {err}") from None
        self._print_results(op)
        self.print_string(op.op_name.data)
        refs = op.refs.data
        for piece in _TEMPLATE_RE.split(op.template.data):
            if piece.startswith("{o") and piece.endswith("}"):
                self.print_operand(op.operands[int(piece[2:-1])])
            elif piece.startswith("{a") and piece.endswith("}"):
                self.print_attribute(refs[int(piece[2:-1])])
            else:
                self.print_string(piece.replace("{{", "{").replace("}}", "}"))

    def _print_dot(self, op: tl.DotOp) -> None:
        self._print_results(op)
        self.print_string("tt.dot ")
        self.print_list(op.operands, self.print_operand)
        rest = dict(op.attributes)
        for option in _DOT_OPTIONS:
            value = rest.pop(f"tt.{option}", None)
            if isinstance(value, StringAttr):
                self.print_string(f", {option} = {value.data}")
            elif isinstance(value, IntegerAttr):
                self.print_string(f", {option} = {value.value.data}")
        self.print_op_attributes(rest)
        self.print_string(" : ")
        self.print_attribute(op.a.type)
        self.print_string(" * ")
        self.print_attribute(op.b.type)
        self.print_string(" -> ")
        self.print_attribute(op.result.type)

    def _print_async_copy(self, op: tl.AsyncCopyGlobalToLocalOp) -> None:
        # Triton prints the destination's type without its "!ttg.memdesc" prefix.
        self._print_results(op)
        self.print_string("ttg.async_copy_global_to_local ")
        self.print_list([op.ptr, op.dst], self.print_operand)
        for word, value in (("mask", op.mask), ("other", op.other)):
            if value is not None:
                self.print_string(f" {word} ")
                self.print_operand(value)
        self.print_op_attributes(op.attributes)
        self.print_string(" : ")
        self.print_attribute(op.ptr.type)
        self.print_string(" -> ")
        self.print_memdesc(op.dst.type, prefix="")

    def _print_dot_scaled(self, op: tl.DotScaledOp) -> None:
        self._print_results(op)
        self.print_string("tt.dot_scaled ")
        for value, scale in ((op.a, op.a_scale), (op.b, op.b_scale)):
            self.print_operand(value)
            if scale is not None:  # Triton writes no `scale` clause for an unscaled operand
                self.print_string(" scale ")
                self.print_operand(scale)
            self.print_string(", ")
        self.print_operand(op.acc)
        self.print_string(f" lhs = {op.lhs.data} rhs = {op.rhs.data}")
        self.print_op_attributes(op.attributes)
        self.print_string(" : ")
        for i, (value, scale) in enumerate(((op.a, op.a_scale), (op.b, op.b_scale))):
            if i:
                self.print_string(" * ")
            types = [value.type] + ([] if scale is None else [scale.type])
            self.print_list(types, self.print_attribute)
        self.print_string(" -> ")
        self.print_attribute(op.result.type)

    # -- attributes and types ----------------------------------------------------------------

    def print_attribute(self, attribute: Attribute) -> None:
        if isinstance(attribute, tl.PointerType):
            self.print_string("!tt.ptr<")
            self.print_attribute(attribute.pointee)
            self.print_string(">")
            return
        if isinstance(attribute, tl.TensorDescType):
            self.print_string("!tt.tensordesc")
            attribute.print_parameters(self)
            return
        if isinstance(attribute, tl.MemDescType):
            self.print_memdesc(attribute)
            return
        if isinstance(attribute, tl.OpaqueAttr):
            self.print_string(attribute.text)
            return
        if isinstance(attribute, tl.OpaqueType):
            self._print_opaque_type(attribute)
            return
        if isinstance(attribute, tl.AsyncTokenType):
            self.print_string("!ttg.async.token")
            return
        if isinstance(attribute, LayoutEncodingAttr):
            name = self._aliases_by_id.get(id(attribute)) or self._aliases.get(attribute)
            if name is not None:
                self.print_string(name)
            else:
                self._print_layout(attribute)
            return
        super().print_attribute(attribute)

    def _print_opaque_type(self, attribute: tl.OpaqueType) -> None:
        """A type llc read as it was written (``!nvws.aref<[!ttg.memdesc<...>]>``): its text
        again, the attributes and types it names as this printer names them (a buffer in it is
        ``mutable`` where the text said so: :meth:`print_alias_definitions`)."""
        self.print_string(f"!{attribute.type_name.data}")
        refs = attribute.refs.data
        for piece in _TEMPLATE_RE.split(attribute.template.data):
            if piece.startswith("{a") and piece.endswith("}"):
                self.print_attribute(refs[int(piece[2:-1])])
            else:
                self.print_string(piece.replace("{{", "{").replace("}}", "}"))

    def print_memdesc(self, attribute: tl.MemDescType, prefix: str = "!ttg.memdesc") -> None:
        """``!ttg.memdesc<64x8xf32, #shared, #smem[, mutable][, 64x32]>`` (the allocation
        shape of a view last, as Triton prints it)."""
        self.print_string(f"{prefix}<")
        for d in attribute.get_shape():
            self.print_string(f"{d}x")
        self.print_attribute(attribute.element_type)
        if not isinstance(attribute.encoding, tl.NoneAttr):
            self.print_string(", ")
            self.print_attribute(attribute.encoding)
        encoding = attribute.encoding
        in_tmem = isinstance(encoding, tl.OpaqueAttr) and encoding.in_tensor_memory
        self.print_string(", #ttng.tensor_memory" if in_tmem else f", {_SMEM_ALIAS}")
        if attribute in self._mutable:
            self.print_string(", mutable")
        if attribute.alloc_shape.data:
            self.print_string(", " + "x".join(map(str, attribute.get_alloc_shape())))
        self.print_string(">")

    def _print_layout(self, attribute: Attribute) -> None:
        assert isinstance(attribute, LayoutEncodingAttr)
        self.print_string(f"#ttg.{attribute.kind}")
        params = triton39_params(attribute.data)
        if attribute.kind == "padded_shared":
            attribute.print_parameter(self)
            return
        alignment = params.pop("alignment", None) if attribute.kind == "shared_linear" else None
        self.print_string("<{")
        for i, (key, value) in enumerate(params.items()):
            self.print_string(f"{', ' if i else ''}{key} = ")
            print_layout_value(self, value)
        # Triton's spelling of a shared_linear: the alignment follows the dictionary.
        self.print_string("}>" if alignment is None else f"}}, alignment = {alignment}>")


def triton39_params(layout: object) -> dict[str, object]:
    """``layout``'s parameters as Triton 3.9 reads them: a CGA given by the
    ``CTAsPerCGA``/``CTASplitNum``/``CTAOrder`` triple becomes its ``CGALayout`` bases (left
    out for one CTA), and an ``amd_wmma``'s ``warpsPerCTA`` becomes its ``ctaLayout`` (3.9
    reads neither older spelling).

    >>> from llc.layouts import BlockedLayout, CTALayout
    >>> b = BlockedLayout([1], [32], [4], [0], CTALayout([2], [2], [0]))
    >>> triton39_params(b)["CGALayout"]
    [[1]]
    """
    params = dict(layout.triton_params())  # type: ignore[attr-defined]
    if "CTAsPerCGA" in params:
        from llc.layouts import CTALayout

        cta = CTALayout(*(params.pop(k) for k in ("CTAsPerCGA", "CTASplitNum", "CTAOrder")))  # type: ignore[arg-type]
        if not cta.is_default() and cta.num_ctas > 1:
            params["CGALayout"] = cta.to_bases()
    if "warpsPerCTA" in params and hasattr(layout, "triton39_cta_layout"):
        del params["warpsPerCTA"]
        params = {**params, "ctaLayout": layout.triton39_cta_layout()}
    return params


def triton_op_name(op: Operation) -> str:
    """The Triton name of ``op``; raises a located error for an op Triton has no name for.

    >>> triton_op_name(tl.FenceAsyncSharedOp())
    'ttng.fence_async_shared'
    """
    if op.name in EXPORT_NAMES:
        return EXPORT_NAMES[op.name]
    if op.name.startswith(_KEEP_PREFIXES):
        return op.name
    raise error_at(op, f"-t ttgir: {op.name} has no Triton counterpart")


def to_triton_module(module: ModuleOp) -> ModuleOp:
    """A copy of ``module`` with TTGIR's module attributes (``"ttg.num-warps"``, ...,
    ``"ttg.num-ctas" = 1`` when absent)."""
    copy = module.clone()
    attrs = copy.attributes
    for triton_name, llc_name in MODULE_ATTR_NAMES.items():
        if llc_name in attrs:
            attrs[triton_name] = attrs.pop(llc_name)
    attrs.setdefault("ttg.num-ctas", IntegerAttr(1, i32))
    for op in [o for o in copy.walk() if isinstance(o, tl.ASYNC_COPY_OPS) and not o.results]:
        _add_token(op)
    for op in copy.walk():
        if isinstance(op, ModuleOp) and op is not copy:  # a nested module: its own hardware
            for triton_name, llc_name in MODULE_ATTR_NAMES.items():
                if llc_name in op.attributes:
                    op.attributes[triton_name] = op.attributes.pop(llc_name)
        elif op is not copy:
            _triton_spelling(op.attributes)
        if isinstance(op, func.FuncOp):
            _hint_pointers(op)
            for name in ("arg_attrs", "res_attrs"):
                dicts = getattr(op, name)
                if dicts is not None:
                    setattr(op, name, ArrayAttr([_triton_dict(d) for d in dicts.data]))
    return copy


def _add_token(op: Operation) -> None:
    """Give a copy, commit or wait of llc's own pipeliner (no tokens) the token result that
    Triton's op always has (and nothing uses): Triton's parser rejects the op without it."""
    replacement = op.clone()
    if isinstance(op, tl.AsyncCopyGlobalToLocalOp):
        replacement = tl.AsyncCopyGlobalToLocalOp(
            op.ptr, op.dst, op.mask, op.other, with_token=True
        )
    elif isinstance(op, tl.AsyncCommitGroupOp):
        replacement = tl.AsyncCommitGroupOp(op.tokens, with_token=True)
    elif isinstance(op, tl.AsyncWaitOp):
        replacement = tl.AsyncWaitOp(op.num.value.data, op.tokens, with_token=True)
    replacement.attributes |= op.attributes
    assert op.parent is not None
    op.parent.insert_op_before(replacement, op)
    op.parent.erase_op(op)


def _hint_pointers(fn: func.FuncOp) -> None:
    """Write llc's assumption about a pointer argument without a hint (16-byte aligned,
    :data:`~llc.passes.axis_info.DEFAULT_POINTER_ALIGNMENT`) as Triton's hint: Triton reads a
    missing hint as divisibility 1, and the kernel would lose its 128-bit accesses."""
    from llc.passes.axis_info import DEFAULT_POINTER_ALIGNMENT

    if not fn.body.blocks:
        return
    args = fn.body.blocks.first.args if fn.body.blocks else ()  # type: ignore[union-attr]
    attrs = [dict(a.data) for a in fn.arg_attrs.data] if fn.arg_attrs else [{} for _ in args]
    changed = False
    for arg, arg_attrs in zip(args, attrs, strict=True):
        hinted = "tl.divisibility" in arg_attrs or "tt.divisibility" in arg_attrs
        if isinstance(arg.type, tl.PointerType) and not hinted:
            arg_attrs["tl.divisibility"] = IntegerAttr(DEFAULT_POINTER_ALIGNMENT, i32)
            changed = True
    if changed:
        fn.arg_attrs = ArrayAttr([DictionaryAttr(a) for a in attrs])


def _triton_name(name: str) -> str:
    """``tl.divisibility`` -> ``tt.divisibility``: llc's ``tl.`` attributes are Triton's ``tt.``
    ones (the importer's :data:`~llc.dialects.ttgir.HINT_NAMES`, inverted).

    >>> _triton_name("tl.divisibility"), _triton_name("noinline")
    ('tt.divisibility', 'noinline')
    """
    for triton_name, llc_name in MODULE_ATTR_NAMES.items():
        if name == llc_name:  # a function's own "ttg.num-warps"
            return triton_name
    return "tt." + name[len("tl.") :] if name.startswith("tl.") else name


def _triton_spelling(attrs: dict[str, Attribute]) -> None:
    for name in [n for n in attrs if n.startswith("tl.")]:
        attrs[_triton_name(name)] = attrs.pop(name)


def _triton_dict(attrs: DictionaryAttr) -> DictionaryAttr:
    return DictionaryAttr({_triton_name(k): v for k, v in attrs.data.items()})


def module_to_ttgir(module: ModuleOp) -> str:
    """``module`` printed as TTGIR text (ends with a newline)."""
    stream = StringIO()
    printer = TTGIRPrinter(stream=stream)
    printer.print_op(to_triton_module(module))
    stream.write("\n")
    return stream.getvalue().replace("builtin.module", "module", 1)


@dataclass(frozen=True)
class TTGIRTarget(Target):
    """``llc-opt -t ttgir``: print the module as Triton TTGIR."""

    name = "ttgir"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(module_to_ttgir(module))
