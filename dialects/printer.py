"""An xDSL printer that prints layout attributes once, as MLIR-style aliases.

xDSL 0.74 parses ``#blocked = #tl.blocked<{...}>`` alias definitions but never prints them, so
every tensor type would repeat its whole layout. :class:`LLCPrinter` collects the aliasable
attributes of the printed operation first, prints one definition per distinct attribute at the
top (parents before the attributes that use them), then uses the alias everywhere::

    #blocked = #tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], ...}>
    #mma = #tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, ...}>
    #dot_op = #tl.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
    builtin.module {
      %0 = "test.op"() : () -> tensor<32x32xf32, #blocked>
      ...

Names follow TTGIR: ``#blocked``, ``#blocked1``, ...; ``#mma`` for every MMA family,
``#shared`` for every shared family, ``#dot_op``, ``#slice``, ``#linear``. An attribute class is
aliased when it has a class attribute ``alias_prefix`` (all of :mod:`llc.dialects.layout_attrs`
do; other dialects may opt in the same way). The output re-parses to an equal module.

>>> from xdsl.context import Context
>>> from xdsl.dialects.builtin import Builtin
>>> from xdsl.dialects.test import Test
>>> from xdsl.parser import Parser
>>> from llc.dialects.layout_attrs import LAYOUT_ATTRIBUTES
>>> ctx = Context()
>>> ctx.load_dialect(Builtin); ctx.load_dialect(Test)
>>> for attr_cls in LAYOUT_ATTRIBUTES:
...     ctx.load_attr_or_type(attr_cls)
>>> src = '''%0 = "test.op"() : () -> tensor<32xf32, #tl.blocked<{sizePerThread = [1],
...   threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>'''
>>> print(module_to_string(Parser(ctx, src).parse_module()), end="")
#blocked = #tl.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
builtin.module {
  %0 = "test.op"() : () -> tensor<32xf32, #blocked>
}
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from io import StringIO

from xdsl.ir import Attribute, Data, Operation, ParametrizedAttribute
from xdsl.printer import Printer

__all__ = ["LLCPrinter", "alias_prefix_of", "module_to_string"]


def alias_prefix_of(attr: Attribute) -> str | None:
    """The alias name stem of an attribute (``"blocked"``), or None if it is not aliased.

    >>> from xdsl.dialects.builtin import i32
    >>> alias_prefix_of(i32) is None
    True
    """
    return getattr(type(attr), "alias_prefix", None)


def _sub_attributes(attr: Attribute) -> Iterator[Attribute]:
    """The attributes directly nested in ``attr`` (type parameters, array/dict elements,
    the parent of a layout)."""
    nested = getattr(attr, "nested_attributes", None)
    if nested is not None:
        yield from nested()
        return
    if isinstance(attr, ParametrizedAttribute):
        for param in attr.parameters:
            if isinstance(param, Attribute):
                yield param
    elif isinstance(attr, Data):
        data = attr.data
        if isinstance(data, tuple | list):
            values = data
        elif isinstance(data, dict) or (hasattr(data, "values") and hasattr(data, "keys")):
            values = data.values()
        else:
            return
        for value in values:
            if isinstance(value, Attribute):
                yield value


@dataclass(eq=False, repr=False)
class LLCPrinter(Printer):
    """A :class:`xdsl.printer.Printer` that prints aliasable attributes as MLIR aliases.

    The first ``print_op`` call (normally on the module) collects every attribute whose class
    has an ``alias_prefix`` from types, properties and attributes of all nested operations and
    block arguments, prints the alias definitions, then the operation. Everything else is
    inherited, so the generic format (``print_generic_format=True``) and debug info work as
    usual. With ``print_aliases=False`` it prints exactly like xDSL's printer.
    """

    print_aliases: bool = field(default=True, kw_only=True)
    alias_prefix: Callable[[Attribute], str | None] = field(default=alias_prefix_of, kw_only=True)
    _aliases: dict[Attribute, str] = field(default_factory=dict, init=False)
    _aliases_by_id: dict[int, str] = field(default_factory=dict, init=False)
    _aliases_printed: bool = field(default=False, init=False)

    # -- collection --------------------------------------------------------------------------

    def _collect(self, root: Operation) -> list[Attribute]:
        """Aliasable attributes in first-use order, each after the aliasable ones it nests."""
        order: list[Attribute] = []
        seen_ids: set[int] = set()
        seen: set[Attribute] = set()
        # Parsed modules share one object per alias but repeat equal objects when the input
        # was inline, so look up by identity first and fall back to structural equality.
        keep_alive: list[Attribute] = []

        def visit(attr: Attribute) -> None:
            if id(attr) in seen_ids:
                return
            seen_ids.add(id(attr))
            keep_alive.append(attr)
            if attr in seen:
                return
            seen.add(attr)
            for sub in _sub_attributes(attr):
                visit(sub)
            if self.alias_prefix(attr) is not None:
                order.append(attr)

        for op in root.walk():
            for attr in op.properties.values():
                visit(attr)
            for attr in op.attributes.values():
                visit(attr)
            for result in op.results:
                visit(result.type)
            for region in op.regions:
                for block in region.blocks:
                    for arg in block.args:
                        visit(arg.type)
        return order

    def _assign_names(self, attrs: list[Attribute]) -> None:
        counters: dict[str, int] = {}
        for attr in attrs:
            prefix = self.alias_prefix(attr)
            assert prefix is not None
            count = counters.get(prefix, 0)
            counters[prefix] = count + 1
            self._aliases[attr] = f"#{prefix}{count if count else ''}"

    # -- printing ----------------------------------------------------------------------------

    def print_alias_definitions(self, root: Operation) -> None:
        """Collect the aliases of ``root`` and print their definitions, one per line."""
        self._aliases_printed = True
        attrs = self._collect(root)
        self._assign_names(attrs)
        for attr in attrs:
            name = self._aliases[attr]
            self.print_string(f"{name} = ")
            # The definition itself is printed in full; nested parents use their aliases.
            super().print_attribute(attr)
            self.print_string("\n", indent=0)
            self._aliases_by_id[id(attr)] = name

    def print_attribute(self, attribute: Attribute) -> None:
        if self._aliases and self.alias_prefix(attribute) is not None:
            name = self._aliases_by_id.get(id(attribute)) or self._aliases.get(attribute)
            if name is not None:
                self.print_string(name)
                return
        super().print_attribute(attribute)

    def print_op(self, op: Operation) -> None:
        if self.print_aliases and not self._aliases_printed:
            self.print_alias_definitions(op)
        super().print_op(op)


def module_to_string(
    op: Operation,
    *,
    aliases: bool = True,
    generic: bool = False,
    debuginfo: bool = False,
) -> str:
    """Print ``op`` (usually a module) with layout aliases; ends with a newline.

    >>> from xdsl.dialects.builtin import ModuleOp
    >>> module_to_string(ModuleOp([]))
    'builtin.module {\\n}\\n'
    """
    stream = StringIO()
    printer = LLCPrinter(
        stream=stream,
        print_generic_format=generic,
        print_debuginfo=debuginfo,
        print_aliases=aliases,
    )
    printer.print_op(op)
    stream.write("\n")
    return stream.getvalue()
