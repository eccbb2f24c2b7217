"""``llc-layout``: inspect a layout, or what converting between two layouts needs.

::

    llc-layout '#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4],
                warpsPerCTA = [4, 1], order = [1, 0]}>' --shape 32x32
    llc-layout @examples/layouts/blocked.ttgir --shape 32x32 --view tensor
    llc-layout '{1,0:T(8,128)(2,1)}' --shape 16x256          # XLA tiled layout
    llc-layout 'f32[8,8]{1,0:T(2,2)}'                        # XLA, shape from the text
    llc-layout 'Swizzle<3,4,3> o (8,64):(64,1)'              # CuTe
    llc-layout SRC --to DST --shape 64x64                    # layout conversion analysis
    llc-layout SRC --shape 16x16 --json                      # bases as JSON

``LAYOUT`` is one of

* a Triton layout exactly as a TTGIR dump prints it (``#ttg.blocked<{...}>``,
  ``#ttg.nvidia_mma<{...}>``, ``#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<...>,
  kWidth = 2}>``, ``#ttg.swizzled_shared<{...}>``, ``#ttg.linear<{...}>``, ...), with the old
  ``#triton_gpu.`` prefix or llc's ``#tl.``; alias lines pasted from a dump
  (``#mma = #ttg.nvidia_mma<...>`` then ``#ttg.dot_op<{..., parent = #mma}>``) are understood,
  and when the text is only alias lines the last alias is shown;
* an XLA layout ``{1,0:T(8,128)(2,1)}`` or shape with layout ``f32[3,5]{1,0:T(2,2)}``;
* a CuTe layout ``(4,2):(2,1)``, swizzle ``Swizzle<3,4,3>`` or ``Swizzle<3,4,3> o (8,64):(64,1)``;
* ``@FILE`` to read any of these from a file, ``-`` from stdin.

Triton layouts are parsed by xDSL's attribute parser with llc's ``tl`` dialect (the prefix is
rewritten to ``#tl.``), so syntax and parameter errors carry the line and column of the original
text. Every error is one line on stderr and exit status 1.

Output: the linear layout (its bases), the F2 matrix, the hardware view and the tensor view
(:mod:`llc.views`); views of more than ``--max-elements`` entries are replaced by a note. With
``--to DST`` it prints the conversion map ``DST⁻¹∘SRC`` (source hardware index -> destination
hardware index), the lowering map ``SRC⁻¹∘DST`` (Triton's
``dstLayout.invertAndCompose(srcLayout)``), the lowering map's quotient by the in-dims it leaves
in place (Triton's ``minimalCvtLayout``), and which hardware level the data must cross.

>>> main(["#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [4], warpsPerCTA = [1], "
...       "order = [0]}>", "--shape", "8", "--threads-per-warp", "4", "--view", "tensor"])
tensor view: the threads holding each element as T<thread>:<register> (thread = lane + warp * 4)
[T0:0, T1:0, T2:0, T3:0, T0:1, T1:1, T2:1, T3:1]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from llc.conversion import analyze_conversion
from llc.dialects.diagnostics import LocatedError
from llc.dialects.xdsl_private import at_end_of_input, parse_alias_definition
from llc.errors import LayoutError
from llc.layouts.cute import CuteSwizzle
from llc.linear_layout import LinearLayout
from llc.tools.cli import (
    DEFAULT_MAX_ELEMENTS,
    DEFAULT_PICTURE_ELEMENTS,
    PICTURE_ELEMENTS_LIMIT,
)
from llc.views import (
    coordinate_view,
    distributed_view,
    matrix_view,
    offset_view,
    shared_element_view,
    shared_view,
)

__all__ = [
    "BuiltLayout",
    "LoadedLayout",
    "build",
    "layout_json",
    "load_layout",
    "main",
    "parse_layout_text",
    "parse_shape",
    "run",
]

PROG = "llc-layout"

# Prefixes of Triton's TritonGPU dialect (current and pre-3.2) and llc's own.
_PREFIX_RE = re.compile(r"#(?:ttg|triton_gpu|tl)\.")
_ALIAS_DEF_RE = re.compile(r"#[A-Za-z_][\w$.\-]*\s*=")
# Memory-space aliases of a TTGIR dump (``#smem = #ttg.shared_memory``): not layouts.
_MEMORY_SPACE_ALIAS_RE = re.compile(
    r"^[ \t]*#[A-Za-z_][\w$.\-]*[ \t]*=[ \t]*#(?:ttg|triton_gpu|ttng|tl)\."
    r"(?:shared_memory|tensor_memory)[ \t]*$",
    re.MULTILINE,
)


# ------------------------------------------------------------------------------ input text
_stdin_text: str | None = None


def _read_arg(arg: str, name: str) -> tuple[str, str]:
    """The text of a LAYOUT argument and the name used in diagnostics."""
    if arg == "-":
        # Read once: llc-layout looks at the text twice (is it a whole dump? then the layout).
        global _stdin_text
        if _stdin_text is None:
            _stdin_text = sys.stdin.read()
        return _stdin_text, "<stdin>"
    if arg.startswith("@"):
        path = arg[1:]
        if not path:
            raise LocatedError("'@' must be followed by a file name (e.g. @layout.ttgir)")
        try:
            with open(path, encoding="utf-8") as file:
                return file.read(), path
        except OSError as err:
            raise LocatedError(f"cannot read layout file '{path}': {err.strerror or err}") from None
        except UnicodeDecodeError as err:
            raise LocatedError(
                f"cannot read layout file '{path}': not UTF-8 ({err.reason})"
            ) from None
    return arg, name


def parse_shape(text: str) -> tuple[int, ...]:
    """``"32x32"`` (or ``"32,32"``) -> ``(32, 32)``.

    >>> parse_shape("16x8x4"), parse_shape("64")
    ((16, 8, 4), (64,))
    """
    parts = re.split(r"[x,×]", text.strip()) if text.strip() else []
    if not parts or not all(re.fullmatch(r"\d+", p.strip()) for p in parts):
        raise LocatedError(f"--shape '{text}' is not a shape like 32x32 (positive integers)")
    dims = tuple(int(p) for p in parts)
    if any(d < 1 for d in dims):
        raise LocatedError(f"--shape '{text}' has a zero dim; every dim must be at least 1")
    return dims


def _fmt_shape(shape: Sequence[int]) -> str:
    return "x".join(str(s) for s in shape)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


# ------------------------------------------------------------------------------ parsing
@dataclass
class LoadedLayout:
    """A parsed LAYOUT argument.

    ``syntax`` is ``"triton"``, ``"xla"`` or ``"cute"``; ``layout`` the family object
    (:mod:`llc.layouts`, ``XlaTiledLayout``, ``CuteLayout``, ...); ``text`` its canonical
    spelling; ``dims`` the shape the text itself implies (XLA ``f32[3,5]``), if any.

    >>> loaded = parse_layout_text("#ttg.nvmma_shared<{swizzlingByteWidth = 128, "
    ...                            "transposed = false, elementBitWidth = 16}>")
    >>> loaded.syntax, loaded.kind, loaded.is_distributed, loaded.is_shared
    ('triton', 'nvmma_shared', False, True)
    """

    syntax: str
    layout: Any
    text: str
    dims: tuple[int, ...] | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def kind(self) -> str:
        """The Triton mnemonic, or ``xla`` / ``cute``."""
        if self.syntax == "triton":
            return str(getattr(self.layout, "kind", self.syntax))
        return self.syntax

    @property
    def is_distributed(self) -> bool:
        """A register layout (in-dims ``register, lane, warp, block``)."""
        return self.syntax == "triton" and hasattr(self.layout, "check_hardware")

    @property
    def is_shared(self) -> bool:
        """A shared-memory layout (in-dims ``offset, block``)."""
        return self.syntax == "triton" and not self.is_distributed


def _location(original: str, pos: int, name: str) -> Any:
    from xdsl.utils.lexer import Location

    pos = max(0, min(pos, len(original)))
    line = original.count("\n", 0, pos) + 1
    col = pos - (original.rfind("\n", 0, pos) + 1) + 1
    return Location(name, line, col)


def _rewrite_prefixes(text: str) -> tuple[str, list[tuple[int, int]]]:
    """Rewrite ``#ttg.``/``#triton_gpu.`` to ``#tl.``; return the new text and, per rewrite,
    ``(position in the new text, characters removed so far)`` to map positions back."""
    pieces: list[str] = []
    shifts: list[tuple[int, int]] = []
    last = removed = 0
    for match in _PREFIX_RE.finditer(text):
        pieces.append(text[last : match.start()])
        pieces.append("#tl.")
        removed += len(match.group()) - len("#tl.")
        shifts.append((match.start() - removed + len(match.group()), removed))
        last = match.end()
    pieces.append(text[last:])
    return "".join(pieces), shifts


def _original_pos(pos: int, shifts: list[tuple[int, int]]) -> int:
    removed = 0
    for new_pos, total in shifts:
        if pos >= new_pos:
            removed = total
    return pos + removed


def _parse_triton(text: str, name: str, collect: dict[str, Any] | None = None) -> LoadedLayout:
    from xdsl.context import Context
    from xdsl.parser import Parser
    from xdsl.utils.exceptions import ParseError

    from llc.dialects.layout_attrs import LAYOUT_ATTRIBUTES, LayoutEncodingAttr

    # Blank out memory-space aliases; same length, so error positions stay right.
    text = _MEMORY_SPACE_ALIAS_RE.sub(lambda m: " " * len(m.group()), text)
    rewritten, shifts = _rewrite_prefixes(text)
    known = {cls.kind for cls in LAYOUT_ATTRIBUTES}
    for match in re.finditer(r"#tl\.([A-Za-z_][\w.]*)", rewritten):
        if match.group(1) not in known:
            raise LocatedError(
                f"unknown layout family '{match.group(1)}' (llc knows {', '.join(sorted(known))})",
                _location(text, _original_pos(match.start(1), shifts), name),
            )
    ctx = Context()
    for attr_cls in LAYOUT_ATTRIBUTES:
        ctx.load_attr_or_type(attr_cls)
    parser = Parser(ctx, rewritten, name)
    try:
        last_alias: Any = None
        attr: Any = None
        while not at_end_of_input(parser):
            start = parser.pos
            if _ALIAS_DEF_RE.match(rewritten, start):
                alias = rewritten[start : rewritten.index("=", start)].strip()
                parse_alias_definition(parser)
                last_alias = parser.attribute_aliases[alias]
                if not isinstance(last_alias, LayoutEncodingAttr):
                    parser.raise_error(f"alias '{alias}' is not a layout attribute", start)
                if collect is not None:
                    collect[alias] = last_alias
                continue
            if attr is not None:
                parser.raise_error("unexpected text after the layout (give one layout)")
            attr = parser.parse_attribute()
            if not isinstance(attr, LayoutEncodingAttr):
                parser.raise_error(
                    f"'{attr}' is not a layout attribute (#ttg.blocked<{{...}}>, ...)", start
                )
    except ParseError as err:
        raise LocatedError(
            err.msg, _location(text, _original_pos(err.span.start, shifts), name)
        ) from None
    attr = attr if attr is not None else last_alias
    if attr is None:
        raise LocatedError(f"{name}: no layout given")
    return LoadedLayout("triton", attr.layout, str(attr))


def _parse_xla(text: str, name: str) -> LoadedLayout:
    from llc.layouts.xla import XlaTiledLayout, parse_shape_with_layout

    stripped = text.strip()
    try:
        if stripped.startswith("{"):
            layout = XlaTiledLayout.parse(stripped)
            return LoadedLayout("xla", layout, str(layout))
        dims, layout = parse_shape_with_layout(stripped)
    except LayoutError as err:
        raise LocatedError(f"{name}: {err}") from None
    return LoadedLayout("xla", layout, f"[{','.join(map(str, dims))}]{layout}", dims)


def _parse_cute(text: str, name: str) -> LoadedLayout:
    from llc.layouts.cute import parse_cute

    try:
        layout = parse_cute(text.strip())
    except LayoutError as err:
        raise LocatedError(f"{name}: {err}") from None
    return LoadedLayout("cute", layout, str(layout))


def parse_layout_text(text: str, name: str = "<layout>") -> LoadedLayout:
    """Recognize the notation of ``text`` (Triton/llc attribute, XLA or CuTe) and parse it.

    >>> parse_layout_text("#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, "
    ...                   "order = [1, 0]}>").kind
    'swizzled_shared'
    >>> parse_layout_text("f32[4,8]{1,0:T(2,2)}").dims
    (4, 8)
    >>> parse_layout_text("(4,2):(2,1)").text
    '(4,2):(2,1)'
    """
    body = "\n".join(line for line in text.splitlines() if not line.strip().startswith("//"))
    stripped = body.strip()
    if not stripped:
        raise LocatedError(f"{name}: empty layout text")
    if stripped.startswith("#"):
        return _parse_triton(text, name)
    if stripped.startswith(("{", "[")) or re.match(r"[A-Za-z]\w*\[", stripped):
        return _parse_xla(stripped, name)
    if stripped.startswith(("(", "_", "Swizzle", "Sw<")) or stripped[0].isdigit():
        return _parse_cute(stripped, name)
    raise LocatedError(
        f"{name}: cannot tell the layout notation of '{stripped[:40]}': expected a Triton "
        "attribute (#ttg.blocked<{...}>), an XLA layout ({1,0:T(8,128)}) or a CuTe layout "
        "((4,2):(2,1), Swizzle<3,4,3>)"
    )


def load_layout(arg: str, name: str = "<layout>", alias: str | None = None) -> LoadedLayout:
    """Read (``@file``, ``-``) and parse a LAYOUT argument; from a whole TTGIR dump, the
    layout alias ``alias`` (``#blocked1`` or ``blocked1``).

    >>> load_layout("Swizzle<3,4,3>").text
    'Swizzle<3,4,3>'
    """
    text, source = _read_arg(arg, name)
    if alias is not None or is_ttgir_dump(text):
        aliases = dump_aliases(text, source)
        if alias is None:
            raise LocatedError(f"{source}: a TTGIR dump needs --alias NAME")
        key = alias if alias.startswith("#") else f"#{alias}"
        if key not in aliases:
            found = ", ".join(aliases) or "none"
            raise LocatedError(
                f"--alias {alias}: no such layout alias in {source} (found: {found})"
            )
        attr = aliases[key]
        return LoadedLayout("triton", attr.layout, str(attr))
    return parse_layout_text(text, source)


_DUMP_RE = re.compile(r"^[ \t]*(?:builtin\.)?module\b|^[ \t]*tt\.func\b", re.MULTILINE)
_LAYOUT_ALIAS_LINE_RE = re.compile(
    r"^[ \t]*#[A-Za-z_][\w$.\-]*[ \t]*=[ \t]*#(?:ttg|triton_gpu|tl)\."
    r"(?!shared_memory\b|tensor_memory\b)"
)


def is_ttgir_dump(text: str) -> bool:
    """Whether ``text`` is a whole module (a TTGIR dump) rather than layout text.

    >>> is_ttgir_dump("#b = #ttg.blocked<{...}>\\nmodule {\\n}"), is_ttgir_dump("#ttg.linear<{}>")
    (True, False)
    """
    return _DUMP_RE.search(text) is not None


def dump_aliases(text: str, name: str = "<layout>") -> dict[str, Any]:
    """The layout aliases defined by a TTGIR dump, in order: ``{"#blocked": attr, ...}``.

    Only the top-level layout alias lines are read (``#loc`` lines, memory spaces and the module
    body are skipped; they stay in place as blanks so that errors keep their line and column).
    """
    kept = [
        line if _LAYOUT_ALIAS_LINE_RE.match(line) else " " * len(line) for line in text.split("\n")
    ]
    aliases: dict[str, Any] = {}
    if any(line.strip() for line in kept):
        _parse_triton("\n".join(kept), name, collect=aliases)
    return aliases


def list_aliases(text: str, name: str) -> str:
    """What ``llc-layout DUMP`` prints without ``--alias``: one line per layout alias."""
    aliases = dump_aliases(text, name)
    if not aliases:
        return f"{name}: no layout aliases\n"
    lines = [f"{name}: {len(aliases)} layout aliases (pick one with --alias NAME):"]
    lines += [f"{alias} = {str(attr).replace('#tl.', '#ttg.')}" for alias, attr in aliases.items()]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------ to LinearLayout
def _root_kind(layout: Any) -> str:
    while hasattr(layout, "parent"):
        layout = layout.parent
    return str(getattr(layout, "kind", ""))


@dataclass
class _Hardware:
    """The machine a distributed layout is checked against (warps per CTA, lanes per warp)."""

    num_warps: int
    threads_per_warp: int


def _default_threads(loaded: LoadedLayout) -> int:
    # AMD CDNA (mfma) runs 64-wide wavefronts; everything else defaults to NVIDIA's 32.
    return 64 if _root_kind(loaded.layout) == "amd_mfma" else 32


def _check_pow2_arg(value: int | None, flag: str) -> None:
    if value is not None and (value < 1 or value & (value - 1)):
        raise LocatedError(f"{flag} {value} is not a power of two")


def _own_shape(loaded: LoadedLayout) -> tuple[int, ...] | None:
    """The shape a layout given by its bases (``#ttg.linear``) covers; ``None`` for others."""
    if loaded.syntax == "triton" and hasattr(loaded.layout, "linear_layout"):
        return tuple(s for _, s in loaded.layout.linear_layout().out_dims)
    return None


def _triton_shape(loaded: LoadedLayout, shape: tuple[int, ...] | None) -> tuple[int, ...]:
    layout = loaded.layout
    if shape is None:
        # Layouts given by their bases define their own shape.
        own = _own_shape(loaded)
        if own is not None:
            return own
        raise LocatedError(f"{loaded.kind}: --shape is required (e.g. --shape 32x32)")
    if layout.rank != len(shape):
        raise LocatedError(
            f"{loaded.kind}: the layout has rank {layout.rank}, but --shape {_fmt_shape(shape)} "
            f"has rank {len(shape)}"
        )
    return shape


def _padded(shape: tuple[int, ...], what: str, notes: list[str]) -> tuple[int, ...]:
    from llc.layouts import padded_shape

    padded = padded_shape(shape)
    if padded != tuple(shape):
        notes.append(
            f"note: {what} {_fmt_shape(shape)} is not a power of two in every dim; it is laid "
            f"out as the padded shape {_fmt_shape(padded)} (elements past {_fmt_shape(shape)} "
            "are padding, masked off)"
        )
    return padded


MAX_TENSOR_ELEMENTS = 1 << 20
"""The largest tensor llc-layout lays out: Triton's own limit on a tensor's elements
(``TRITON_MAX_TENSOR_NUMEL``, 2^20)."""


def _check_size(shape: Sequence[int], padded: Sequence[int]) -> None:
    """Reject shapes beyond :data:`MAX_TENSOR_ELEMENTS` before any layout is built.

    >>> _check_size((1000, 1000), (1024, 1024))
    >>> try:
    ...     _check_size((2048, 1024), (2048, 1024))
    ... except LocatedError as err:
    ...     print(err.message)  # doctest: +ELLIPSIS
    the shape 2048x1024 is too large: 2097152 elements (2^21); the limit is 2^20 = 1048576 ...
    """
    total = 1
    for dim in padded:
        total *= dim
    if total > MAX_TENSOR_ELEMENTS:
        padding = "" if tuple(shape) == tuple(padded) else f", padded to {_fmt_shape(padded)}"
        raise LocatedError(
            f"the shape {_fmt_shape(shape)} is too large: {total} elements "
            f"(2^{total.bit_length() - 1}{padding}); the limit is 2^20 = {MAX_TENSOR_ELEMENTS} "
            "elements per tensor (Triton's TRITON_MAX_TENSOR_NUMEL)"
        )


@dataclass
class BuiltLayout:
    """A layout resolved to a :class:`LinearLayout` on a concrete shape (see :func:`build`)."""

    loaded: LoadedLayout
    ll: LinearLayout
    shape: tuple[int, ...]  # the real shape (tensor dims; for XLA/CuTe the coordinate dims)
    padded: tuple[int, ...]
    hardware: _Hardware | None
    notes: list[str]


def build(
    loaded: LoadedLayout,
    shape: tuple[int, ...] | None,
    num_warps: int | None,
    threads_per_warp: int | None,
    *,
    num_warps_source: str = "--num-warps",
    threads_source: str = "--threads-per-warp",
) -> BuiltLayout:
    """Check the layout against the shape and hardware and build its LinearLayout.

    Shapes that are not powers of two are padded (with a note); ``None`` hardware values take
    the layout's own warp count and 32 lanes (64 for AMD mfma). The ``*_source`` strings name
    where given hardware values came from, for error messages.

    >>> loaded = parse_layout_text("#ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], "
    ...                            "warpsPerCTA = [2], order = [0]}>")
    >>> built = build(loaded, (100,), None, None)
    >>> built.padded, built.ll.in_dims
    ((128,), {'register': 2, 'lane': 32, 'warp': 2, 'block': 1})
    >>> built.notes[0][:36]
    'note: --shape 100 is not a power of '
    """
    notes = list(loaded.notes)
    if loaded.syntax == "triton":
        real = _triton_shape(loaded, shape)
        padded = _padded(real, "--shape", notes)
        hardware = None
        _check_size(real, padded)
        if loaded.is_distributed:
            threads = threads_per_warp or _default_threads(loaded)
            if threads_per_warp is None:
                threads_source = "the default threads per warp (no --threads-per-warp)"
            warps = num_warps or loaded.layout.num_warps
            loaded.layout.check_hardware(
                warps, threads, num_warps_source=num_warps_source, threads_source=threads_source
            )
            hardware = _Hardware(warps, threads)
        return BuiltLayout(
            loaded, loaded.layout.to_linear_layout(padded), real, padded, hardware, notes
        )
    if loaded.syntax == "xla":
        dims = loaded.dims
        if dims is not None and shape is not None and tuple(shape) != dims:
            raise LocatedError(
                f"xla: the layout's shape {_fmt_shape(dims)} differs from --shape "
                f"{_fmt_shape(shape)}"
            )
        real = dims or shape
        if real is None:
            raise LocatedError(
                "xla: --shape is required (or write the shape: f32[16,256]{1,0:...})"
            )
        if len(real) != loaded.layout.rank:
            raise LocatedError(
                f"xla: the layout {loaded.layout} has rank {loaded.layout.rank}, but the shape "
                f"{_fmt_shape(real)} has rank {len(real)}"
            )
        padded = _padded(real, "shape", notes)
        _check_size(real, padded)
        if padded != real:
            notes.append("note: XLA offsets shown are those of the padded array")
        return BuiltLayout(
            loaded, loaded.layout.to_linear_layout(padded), real, padded, None, notes
        )
    # CuTe: the layout defines its own domain; a swizzle alone takes its size from --shape.
    layout = loaded.layout
    if isinstance(layout, CuteSwizzle):
        size = None
        if shape is not None:
            if len(shape) != 1:
                raise LocatedError(
                    "cute: a swizzle acts on 1-D offsets; --shape must be one size, got "
                    + _fmt_shape(shape)
                )
            size = _padded(shape, "--shape", notes)[0]
            _check_size(shape, (size,))
        ll = layout.to_linear_layout(size)
    else:
        ll = layout.to_linear_layout()
    dims = tuple(ll.get_in_dim_size(n) for n in ll.get_in_dim_names())
    if shape is not None and type(layout).__name__ != "CuteSwizzle" and tuple(shape) != dims:
        raise LocatedError(
            f"cute: the layout {layout} has shape {_fmt_shape(dims)}, but --shape is "
            f"{_fmt_shape(shape)}"
        )
    return BuiltLayout(loaded, ll, dims, dims, None, notes)


# ------------------------------------------------------------------------------ output
def layout_json(ll: LinearLayout) -> dict[str, Any]:
    """``{"in_dims": {name: bases}, "out_dims": {name: size}}`` (bases as ``[dim0, ...]``).

    >>> layout_json(LinearLayout.identity_1d(4, "lane", "dim0"))
    {'in_dims': {'lane': [[1], [2]]}, 'out_dims': {'dim0': 4}}
    """
    return {
        "in_dims": {name: vectors for name, vectors in ll.bases},
        "out_dims": dict(ll.out_dims),
    }


def _linear_attr(ll: LinearLayout, kind: str) -> str:
    def fmt(vectors: list[list[int]]) -> str:
        return "[" + ", ".join("[" + ", ".join(map(str, v)) + "]" for v in vectors) + "]"

    body = ", ".join(f"{name} = {fmt(vectors)}" for name, vectors in ll.bases)
    return f"#ttg.{kind}<{{{body}}}>"


def _bases_section(built: BuiltLayout) -> str:
    text = f"linear layout:\n{built.ll}\n"
    if built.loaded.is_distributed:
        text += f"as #ttg.linear: {_linear_attr(built.ll, 'linear')}\n"
    return text


def _describe(built: BuiltLayout) -> str:
    loaded = built.loaded
    lines = [f"layout: {loaded.text}"]
    ll = built.ll
    if loaded.is_distributed and built.hardware is not None:
        hw = built.hardware
        regs = ll.get_in_dim_size("register")
        blocks = ll.get_in_dim_size("block")
        lines.append(
            f"shape: {_fmt_shape(built.padded)}; {_count(hw.num_warps, 'warp')} x "
            f"{hw.threads_per_warp} threads, {_count(blocks, 'CTA')}, "
            f"{_count(regs, 'register')} per thread"
        )
    elif loaded.is_shared:
        blocks = ll.get_in_dim_size("block")
        lines.append(
            f"shape: {_fmt_shape(built.padded)}; {ll.get_in_dim_size('offset')} offsets per CTA, "
            f"{_count(blocks, 'CTA')}"
        )
        layout = loaded.layout
        if hasattr(layout, "padded_offset"):  # #ttg.padded_shared: not linear
            pairs = ", ".join(
                f"{p} after every {i}"
                for i, p in zip(layout.intervals, layout.paddings, strict=True)
            )
            offsets = ll.get_in_dim_size("offset")
            allocated = layout.padded_offset(offsets - 1) + 1
            lines.append(
                f"padding: {pairs} elements; {allocated} elements allocated per CTA; the "
                "offsets below are before padding (offset o is stored at o + padding(o), the "
                "last one at "
                f"{allocated - 1})"
            )
    else:
        outs = ", ".join(f"{n} (size {s})" for n, s in ll.out_dims)
        lines.append(f"shape: {_fmt_shape(built.padded)} -> {outs}")
    return "\n".join(lines) + "\n"


def _capped(title: str, count: int, limit: int, render: Any) -> str:
    from llc.tools.cli import MAX_ELEMENTS_LIMIT

    if count > limit:
        hint = (
            f"pass --max-elements {count} to print it"
            if count <= MAX_ELEMENTS_LIMIT
            else f"too large to print: --max-elements is at most {MAX_ELEMENTS_LIMIT}"
        )
        return f"{title}\n(omitted: {count} entries > --max-elements {limit}; {hint})\n"
    return f"{title}\n{render()}"


def _views(built: BuiltLayout, which: str, limit: int) -> list[str]:
    ll = built.ll
    loaded = built.loaded
    out: list[str] = []
    show = (lambda v: True) if which == "all" else (lambda v: v == which)
    if show("bases"):
        out.append(_bases_section(built))
    if show("matrix"):
        if loaded.is_distributed:
            axes = "rows: tensor index bits, columns: hardware index bits"
        elif loaded.is_shared:
            axes = "rows: tensor index bits, columns: shared-memory offset and block bits"
        else:
            axes = "rows: memory offset bits, columns: tensor index bits"
        out.append(f"F2 matrix ({axes}):\n" + matrix_view(ll))
    shape = built.shape if built.shape != built.padded else None
    if loaded.is_distributed:
        assert built.hardware is not None
        threads = built.hardware.threads_per_warp
        if show("hw"):
            title = (
                "hardware view: the element each lane holds (one line per register, "
                "one entry per lane)"
            )
            if shape is not None:
                title += "; * marks padding elements"
            out.append(
                _capped(
                    title,
                    ll.total_in_size,
                    limit,
                    lambda: distributed_view(ll, use_hw_view=True, shape=shape),
                )
            )
        if show("tensor"):
            blocks = "B<block>:" if ll.get_in_dim_size("block") > 1 else ""
            title = (
                f"tensor view: the threads holding each element as {blocks}T<thread>:<register> "
                f"(thread = lane + warp * {threads})"
            )
            out.append(
                _capped(
                    title,
                    ll.total_out_size,
                    limit,
                    lambda: distributed_view(ll, use_hw_view=False, shape=shape),
                )
            )
    elif loaded.is_shared:
        if show("hw"):
            out.append(
                _capped(
                    "hardware view: the element stored at each shared-memory offset",
                    ll.total_in_size,
                    limit,
                    lambda: shared_view(ll, use_hw_view=True, shape=shape),
                )
            )
        if show("tensor"):
            out.append(
                _capped(
                    "tensor view: the shared-memory offset holding each element",
                    ll.total_out_size,
                    limit,
                    lambda: shared_element_view(ll, shape),
                )
            )
    else:
        if show("hw"):
            out.append(
                _capped(
                    "memory view: the element stored at each offset",
                    ll.total_out_size,
                    limit,
                    lambda: offset_view(ll, shape),
                )
            )
        if show("tensor"):
            out.append(
                _capped(
                    "tensor view: the offset of each element (rows: dim0)",
                    ll.total_in_size,
                    limit,
                    lambda: coordinate_view(ll, shape),
                )
            )
    return out


# ------------------------------------------------------------------------------ conversions
def _build_role(
    role: str,
    loaded: LoadedLayout,
    shape: tuple[int, ...],
    warps: int,
    threads: int,
    warps_source: str,
    threads_source: str,
) -> BuiltLayout:
    """:func:`build` for one side of ``--to`` (``role``: ``LAYOUT`` or ``DST (--to)``); its
    errors say which of the two layouts they are about."""
    try:
        return build(
            loaded,
            shape,
            warps,
            threads,
            num_warps_source=warps_source,
            threads_source=threads_source,
        )
    except LocatedError as err:
        err.message = f"{role}: {err.message}"
        raise
    except LayoutError as err:
        raise LocatedError(f"{role}: {err}") from None


def _shared_destination(
    args: argparse.Namespace,
    shape: tuple[int, ...] | None,
    src_loaded: LoadedLayout,
    dst_loaded: LoadedLayout,
) -> tuple[BuiltLayout, BuiltLayout]:
    """The pair of a picture of a distributed layout stored into a shared layout."""
    if not src_loaded.is_distributed:
        raise LocatedError(
            f"LAYOUT is {src_loaded.kind}; a store into --to needs a register layout"
        )
    if shape is None:
        raise LocatedError("--to with a shared layout needs --shape (e.g. --shape 32x32)")
    src = _build_role(
        "LAYOUT",
        src_loaded,
        shape,
        args.num_warps,
        args.threads_per_warp,
        "--num-warps",
        "--threads-per-warp",
    )
    dst = _build_role("DST (--to)", dst_loaded, shape, None, None, "--num-warps", "")
    return src, dst


def _conversion(args: argparse.Namespace, shape: tuple[int, ...] | None) -> tuple[str, bool]:
    """What ``--to`` prints, and whether it succeeded (a failed proof exits 1)."""
    src_loaded = load_layout(args.layout, "<layout>", args.alias)
    dst_loaded = load_layout(args.to, "<to>")
    if dst_loaded.is_shared and _wants_pictures(args) and not args.prove:
        src, dst = _shared_destination(args, shape, src_loaded, dst_loaded)
        return _pictures(args, src, dst), True
    for flag, loaded in (("LAYOUT", src_loaded), ("--to", dst_loaded)):
        if not loaded.is_distributed:
            what = "a shared-memory layout" if loaded.is_shared else f"an {loaded.kind} layout"
            if loaded.syntax == "cute":
                what = "a CuTe layout"
            raise LocatedError(
                f"{flag} is {what} ({loaded.kind}); --to converts between distributed "
                "(register) layouts"
            )
    if shape is None:
        # Two layouts given by their bases (#ttg.linear) define the shape, as one does alone.
        src_shape, dst_shape = _own_shape(src_loaded), _own_shape(dst_loaded)
        if src_shape is None or dst_shape is None:
            raise LocatedError(
                "--to needs --shape (e.g. --shape 32x32), unless both layouts are #ttg.linear"
            )
        if src_shape != dst_shape:
            raise LocatedError(
                f"the layouts cover different shapes: {_fmt_shape(src_shape)} (LAYOUT) and "
                f"{_fmt_shape(dst_shape)} (--to); give --shape"
            )
        shape = src_shape
    threads = args.threads_per_warp or _default_threads(src_loaded)
    threads_source = (
        "--threads-per-warp"
        if args.threads_per_warp
        else "the default threads per warp (no --threads-per-warp)"
    )
    warps = args.num_warps
    warps_source = "--num-warps"
    if warps is None:
        warps, warps_source = src_loaded.layout.num_warps, "LAYOUT's warp count"
        if dst_loaded.layout.num_warps != warps:
            raise LocatedError(
                f"the layouts use different numbers of warps: {warps} (LAYOUT) and "
                f"{dst_loaded.layout.num_warps} (--to)"
            )
    src = _build_role("LAYOUT", src_loaded, shape, warps, threads, warps_source, threads_source)
    dst = _build_role("DST (--to)", dst_loaded, shape, warps, threads, warps_source, threads_source)
    if getattr(args, "emit", None) == "ptx":
        from llc.passes.conversion_kernel import conversion_ptx

        ptx = conversion_ptx(
            src_loaded.text, dst_loaded.text, list(src.padded), args.dtype, warps, args.arch
        )
        return ptx, True
    if args.prove:
        return _prove_conversion(src, dst, args.dtype)
    if _wants_pictures(args):
        return _pictures(args, src, dst), True
    report = analyze_conversion(src.ll, dst.ll)
    lowered = _lowering(src.ll, dst.ll, getattr(args, "dtype", "f32"), getattr(args, "arch", None))
    if args.json:
        fields = {
            "conversion": layout_json(report.forward),
            "lowering": layout_json(report.conversion),
            "minimal": layout_json(report.minimal),
            "data_movement": report.level or "none",
        }
        if lowered is not None:
            plan, check = lowered
            fields.update(plan.as_dict())
            fields["verified"] = check.ok
        return json.dumps(fields) + "\n", True
    lines = [
        f"source:      {src_loaded.text}",
        f"destination: {dst_loaded.text}",
        f"shape: {_fmt_shape(src.padded)}; {_count(warps, 'warp')} x {threads} threads",
        *src.notes,
        "",
        "conversion map DST⁻¹∘SRC = src.invert_and_compose(dst): maps each source hardware "
        "index (register, lane, warp, block) to the destination hardware index that receives "
        "its element:",
        str(report.forward),
        "",
        "lowering map SRC⁻¹∘DST = dst.invert_and_compose(src) (Triton's minimalCvtLayout): maps "
        "each destination hardware index to the source hardware index holding its element:",
        str(report.conversion),
        "",
    ]
    if report.removed:
        lines.append(
            "minimal conversion (the map is the identity on "
            + ", ".join(report.removed)
            + ": quotiented away):"
        )
    else:
        lines.append("minimal conversion (no in-dim can be quotiented away):")
    lines.append(str(report.minimal) if report.minimal.num_in_dims else "(empty: the identity)")
    lines.append("")
    lines.append(f"data movement: {report.movement}")
    lines.extend(_cost_lines(src.ll, dst.ll, src.padded, args.dtype))
    lines.extend(_plan_lines(lowered, args.dtype))
    return "\n".join(lines) + "\n", True


def _lowering(src: LinearLayout, dst: LinearLayout, dtype: str, arch: str | None) -> Any:
    """llc-lower-conversions' plan for ``arch`` (``--arch``, ``sm_90`` when not given), lowered
    and just run in the SIMT interpreter; None for layouts it does not lower (several CTAs)."""
    from llc.lowering import compute_capability_of
    from llc.passes.lower_conversions import lower_and_verify

    capability = compute_capability_of("cuda:" + arch.removeprefix("sm_") if arch else None)
    try:
        return lower_and_verify(src, dst, dtype, compute_capability=capability)
    except LayoutError:
        return None


def _plan_lines(lowered: Any, dtype: str) -> list[str]:
    if lowered is None:
        return ["", "lowering plan: none (llc-lower-conversions handles one CTA)"]
    plan, check = lowered
    counts = ", ".join(f"{kind} {n}" for kind, n in plan.instructions.items()) or "none"
    verdict = "every register matched" if check.ok else f"MISMATCH: {check.message}"
    return [
        "",
        f"lowering plan (llc-lower-conversions, --dtype {dtype}): {plan.strategy}",
        f"  instructions per thread: {counts}",
        f"  shared memory: {plan.shared_bytes} bytes, {plan.wavefronts} wavefronts per warp "
        f"(ideal {plan.ideal_wavefronts})",
        f"  verified in the SIMT interpreter: {verdict}",
    ]


def _cost_lines(
    src: LinearLayout, dst: LinearLayout, shape: tuple[int, ...], dtype: str
) -> list[str]:
    """The cost model's estimate and, for a shared-memory round trip, the swizzle plan."""
    from llc.cost import conversion_cost

    try:
        cost = conversion_cost(src, dst, shape, dtype)
    except LayoutError as err:
        raise LocatedError(f"--dtype {dtype}: {err}") from None
    counts = ", ".join(f"{kind} {n}" for kind, n in cost.instructions) or "none"
    lines = [
        "",
        f"cost (llc.cost, --dtype {dtype}, issue cycles per warp): {cost.total:g} "
        f"({cost.strategy})",
        f"  instructions per thread: {counts}",
    ]
    if cost.strategy in ("shared", "distributed_shared"):
        lines.append(
            f"  shared memory: {cost.shared_bytes} bytes, {_count(cost.barriers, 'barrier')}, "
            f"{cost.wavefronts} wavefronts per warp (ideal {cost.ideal_wavefronts})"
        )
    plan = cost.plan
    if plan is None:
        return lines
    matrix = any(k in cost.instruction_counts for k in ("ldmatrix", "stmatrix"))
    if cost.strategy != "shared":
        title = "swizzle plan (rejected: costlier)"
    elif matrix:
        title = "swizzle plan (plain ld/st.shared; the lowering uses ldmatrix/stmatrix instead)"
    else:
        title = "swizzle plan"
    lines += [
        f"{title} (llc.swizzle): offset bits {plan.vector_bits} vector, {plan.bank_bits} bank, "
        f"{plan.segment_bits} segment ({plan.rep_bits} of them rounds: "
        f"{_count(plan.rounds, 'round')} of {plan.scratch_bytes} bytes)",
    ]
    for what, vector, wavefronts, ideal, count in (
        (
            "store",
            plan.store_vector,
            plan.store_wavefronts,
            plan.store_ideal,
            plan.store_instructions,
        ),
        ("load", plan.load_vector, plan.load_wavefronts, plan.load_ideal, plan.load_instructions),
    ):
        lines.append(
            f"  {what}: {count} x {vector * plan.bitwidth}-bit per thread, {wavefronts} "
            f"wavefronts per warp instruction (ideal {ideal})"
        )
    lines.append("  shared layout (offset in elements -> tensor):")
    lines.append(str(plan.shared))
    return lines


def _vectorize_text(built: BuiltLayout, args: argparse.Namespace) -> str:
    """The ``--vectorize`` report (:mod:`llc.vectorize` decides, this only prints)."""
    from llc.vectorize import largest_vectorization

    ll = built.ll
    if not ll.has_in_dim("register"):
        raise LocatedError("--vectorize needs a distributed layout (one with registers)")
    contig = getattr(args, "contig_dim", None)
    rank = ll.num_out_dims
    if contig is not None and not 0 <= contig < rank:
        raise LocatedError(f"--contig-dim {contig} is out of range for a rank-{rank} layout")
    dim = None if contig is None else ll.get_out_dim_names()[contig]
    try:
        v = largest_vectorization(ll, args.dtype, dim)
    except LayoutError as err:
        raise LocatedError(f"--dtype {args.dtype}: {err}") from None
    if args.json:
        doc = {
            "contig_dim": v.contig_dim,
            "bitwidth": v.bitwidth,
            "registers": v.registers,
            "distinct_registers": v.distinct_registers,
            "identity_run": v.identity_run,
            "run": v.run,
            "permutation": list(v.permutation),
            "register_bases": [list(b) for b in layout_json(v.layout)["in_dims"]["register"]],
            "vector": v.vector,
            "width_bits": v.width_bits,
            "identity_width_bits": v.identity_width_bits,
            "accesses": v.accesses,
        }
        return json.dumps(doc) + "\n"
    reg_bases = layout_json(v.layout)["in_dims"]["register"]
    identity = v.permutation == tuple(range(len(v.permutation)))
    perm = (
        "identity (registers already in the best order)" if identity else str(list(v.permutation))
    )
    return (
        "\n".join(
            [
                f"vectorization along {v.contig_dim} ({args.dtype}, {v.bitwidth}-bit elements, "
                f"{v.distinct_registers} distinct of {v.registers} registers per thread):",
                f"  contiguous run in register order: {_count(v.identity_run, 'element')} -> "
                f"{v.identity_width_bits}-bit accesses",
                f"  largest contiguous run: {_count(v.run, 'element')}",
                f"  register permutation (new -> old register): {perm}",
                f"  permuted register bases: {reg_bases}",
                f"  access width: {v.width_bits} bits ({v.vector} x {args.dtype}), "
                f"{v.accesses} {'access' if v.accesses == 1 else 'accesses'} per thread",
            ]
        )
        + "\n"
    )


def _gather_text(args: argparse.Namespace, shape: tuple[int, ...] | None) -> str:
    """The ``--gather`` report (:mod:`llc.gather` decides, this only prints)."""
    from llc.gather import plan_gather

    src = build(
        load_layout(args.layout, alias=args.alias), shape, args.num_warps, args.threads_per_warp
    )
    index_shape = parse_shape(args.index_shape) if args.index_shape is not None else shape
    idx = build(
        load_layout(args.gather, "<gather>"), index_shape, args.num_warps, args.threads_per_warp
    )
    if not src.ll.has_in_dim("register") or not idx.ll.has_in_dim("register"):
        raise LocatedError("--gather needs distributed layouts for the source and the indices")
    try:
        plan = plan_gather(src.ll, idx.ll, args.axis, args.dtype)
    except LayoutError as err:
        raise LocatedError(f"--gather: {err}") from None
    notes = "".join(f"{n}\n" for n in [*src.notes, *idx.notes])
    return notes + plan.report() + "\n"


# ------------------------------------------------------------------------------ pictures
def _wants_pictures(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "svg", None) or getattr(args, "html", None))


def _bitwidth(built: BuiltLayout, dtype: str) -> int:
    """The element width of a memory view: the layout's own (nvmma_shared), else --dtype."""
    from llc.cost import dtype_bitwidth

    own = getattr(built.loaded.layout, "element_bit_width", None)
    if own:
        return int(own)
    try:
        return dtype_bitwidth(dtype)
    except LayoutError as err:
        raise LocatedError(f"--dtype {dtype}: {err}") from None


def _check_picture_size(args: argparse.Namespace, shape: Sequence[int]) -> None:
    """Refuse a picture of more elements than ``--max-elements`` (default
    :data:`~llc.tools.cli.DEFAULT_PICTURE_ELEMENTS`, at most
    :data:`~llc.tools.cli.PICTURE_ELEMENTS_LIMIT`): the SVG grows by up to 1 kB per element and
    view."""
    count = 1
    for dim in shape:
        count *= dim
    flag = "--svg" if getattr(args, "svg", None) else "--html"
    what = f"a {_fmt_shape(shape)} tensor has {count} elements"
    if count > PICTURE_ELEMENTS_LIMIT:
        raise LocatedError(
            f"{flag}: {what}; pictures draw at most {PICTURE_ELEMENTS_LIMIT} (128x128; up to "
            "1 kB of SVG per element and view); draw a smaller --shape"
        )
    limit = args.max_elements or DEFAULT_PICTURE_ELEMENTS
    if count > limit:
        given = f"--max-elements {limit}" if args.max_elements else f"the default {limit}"
        raise LocatedError(
            f"{flag}: {what}, more than {given} (up to 1 kB of SVG per element and view); "
            f"pass --max-elements {count} to draw it"
        )


def _pictures(args: argparse.Namespace, built: BuiltLayout, dst: BuiltLayout | None) -> str:
    """Write --svg/--html of ``built`` (and the conversion to ``dst``); returns what to print."""
    from llc.pictures import layout_views, render_html, render_svg
    from llc.tools.diagnostics import atomic_write

    if not (built.loaded.is_distributed or built.loaded.is_shared):
        raise LocatedError(
            "--svg/--html draw Triton layouts (distributed or shared); LAYOUT is "
            + built.loaded.kind
        )
    _check_picture_size(args, built.padded)
    bitwidth = _bitwidth(dst if dst is not None and dst.loaded.is_shared else built, args.dtype)
    try:
        views = layout_views(built.ll, bitwidth, dst.ll if dst is not None else None)
    except LayoutError as err:
        raise LocatedError(str(err)) from None
    title = built.loaded.text + (f"  ->  {dst.loaded.text}" if dst is not None else "")
    title += f"   shape {_fmt_shape(built.padded)}"
    written = []
    for path, text in ((args.svg, render_svg(views, title)), (args.html, None)):
        if not path:
            continue
        if text is None:
            text = render_html(views, title)
        try:
            with atomic_write(path) as file:
                file.write(text)
        except OSError as err:
            raise LocatedError(f"cannot write '{path}': {err.strerror or err}") from None
        written.append(path)
    names = ", ".join(views)
    return "".join(f"wrote {path} ({names} views)\n" for path in written)


# ------------------------------------------------------------------------------ proofs
def _prove_conversion(src: BuiltLayout, dst: BuiltLayout, dtype: str) -> tuple[str, bool]:
    from llc.cost import dtype_bitwidth
    from llc.isl import prove_conversion

    try:
        proof = prove_conversion(src.ll, dst.ll, dtype_bitwidth(dtype))
    except LayoutError as err:
        raise LocatedError(str(err)) from None
    return proof.report() + "\n", proof.holds


def _prove_layout(args: argparse.Namespace, built: BuiltLayout) -> tuple[str, bool]:
    from llc.isl import prove_equal, prove_properties

    if args.equals is not None:
        other_loaded = load_layout(args.equals, "<equals>")
        other = build(other_loaded, built.shape, args.num_warps, args.threads_per_warp)
        proof = prove_equal(built.ll, other.ll)
    else:
        proof = prove_properties(built.ll)
    return proof.report() + "\n", proof.holds


# ------------------------------------------------------------------------------ CLI
def _check_dtype(dtype: str) -> None:
    """Refuse a ``--dtype`` that is no element type (``f17``, ``i3``) before any work, as
    every report prices or emits code for it."""
    from llc.cost import dtype_bitwidth

    try:
        dtype_bitwidth(dtype)
    except LayoutError as err:
        raise LocatedError(f"--dtype {dtype}: {err}") from None


def run(args: argparse.Namespace) -> None:
    """Run ``llc-layout`` on arguments parsed by :func:`llc.tools.cli.layout_arg_parser`."""
    _check_pow2_arg(args.threads_per_warp, "--threads-per-warp")
    _check_dtype(args.dtype)
    if args.num_warps is not None and args.num_warps < 1:
        raise LocatedError(f"--num-warps {args.num_warps} must be positive")
    shape = parse_shape(args.shape) if args.shape is not None else None
    if args.alias is None:
        text, source = _read_arg(args.layout, "<layout>")
        if is_ttgir_dump(text):
            sys.stdout.write(list_aliases(text, source))
            return
    if getattr(args, "emit", None) and args.to is None:
        raise LocatedError(f"--emit {args.emit} needs --to DST (it emits a conversion kernel)")
    if args.to is not None:
        text, ok = _conversion(args, shape)
        sys.stdout.write(text)
        if not ok:
            sys.exit(1)
        return
    if getattr(args, "gather", None) is not None:
        sys.stdout.write(_gather_text(args, shape))
        return
    built = build(
        load_layout(args.layout, alias=args.alias), shape, args.num_warps, args.threads_per_warp
    )
    if args.equals is not None or args.prove:
        text, holds = _prove_layout(args, built)
        sys.stdout.write(text)
        if not holds:
            sys.exit(1)
        return
    if _wants_pictures(args):
        sys.stdout.write(_pictures(args, built, None))
        return
    if getattr(args, "vectorize", False):
        sys.stdout.write("".join(f"{n}\n" for n in built.notes) + _vectorize_text(built, args))
        return
    if args.json:
        # stdout stays exactly the JSON document.
        for note in built.notes:
            print(f"{PROG}: {note}", file=sys.stderr)
        sys.stdout.write(json.dumps(layout_json(built.ll)) + "\n")
        return
    notes = "".join(f"{note}\n" for note in built.notes)
    sections = _views(built, args.view, args.max_elements or DEFAULT_MAX_ELEMENTS)
    if args.view == "all":
        sys.stdout.write(_describe(built) + notes + "\n" + "\n".join(sections))
    else:
        sys.stdout.write(notes + "".join(sections))


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``llc-layout`` console script (:func:`llc.tools.cli.layout_main`)."""
    from llc.tools.cli import layout_main

    layout_main(argv)


if __name__ == "__main__":  # pragma: no cover
    main()
