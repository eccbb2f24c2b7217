"""Stand-alone conversion kernels: load a tensor in one layout, convert it, store it.

:func:`conversion_kernel_text` writes the kernel as ``tl`` IR (or as Triton TTGIR, for comparing
with Triton's PTX): one function ``@kernel(%in, %out)`` over two row-major contiguous tensors of
the given shape. The offsets are computed in each layout (``make_range`` in nested slices,
``expand_dims``, ``broadcast``), so the kernel holds exactly one ``convert_layout``.
:func:`conversion_kernel` parses it and runs ``llc-lower-to-simt`` on it: the result runs in the
SIMT interpreter and goes to ``-t ptx``. Run on any input, the kernel writes an output equal to
it (one CTA of ``num_warps`` warps).
"""

from __future__ import annotations

from typing import Any

__all__ = ["conversion_kernel", "conversion_kernel_text"]

_SPELLING = {
    # dialect -> (op prefix, layout prefix, pointer type, func op, return op, attribute prefix)
    "tl": ("tl", "#tl.", "!tl.ptr", "func.func", "func.return", "tl"),
    "triton": ("tt", "#ttg.", "!tt.ptr", "tt.func public", "tt.return", "ttg"),
}


def conversion_kernel_text(
    src: Any,
    dst: Any,
    shape: list[int],
    dtype: str,
    num_warps: int,
    *,
    dialect: str = "tl",
    target: str = "cuda:90",
    pointer_divisibility: int | None = 16,
) -> str:
    """The kernel loading ``shape`` in ``src``, converting to ``dst`` and storing, as text.

    ``src``/``dst`` are layout families (:mod:`llc.layouts`) or their ``#tl.`` attributes.
    ``pointer_divisibility`` is the ``divisibility`` hint on both pointer parameters (``None``: no
    hint, as a plain Triton kernel without launch specialisation).

    >>> from llc.layouts import BlockedLayout
    >>> a = BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
    >>> b = BlockedLayout([4, 1], [4, 8], [1, 4], [0, 1])
    >>> text = conversion_kernel_text(a, b, [32, 32], "f32", 4)
    >>> text.count("tl.convert_layout"), "@kernel(%in: !tl.ptr<f32> {tl.divisibility" in text
    (1, True)
    """
    from llc.dialects.layout_attrs import layout_attr_for

    ops, lay, ptr, func_op, ret, attrs = _SPELLING[dialect]

    def spell(layout: Any) -> str:
        text = str(layout if isinstance(layout, str) else layout_attr_for(layout))
        for prefix in ("#tl.", "#ttg.", "#triton_gpu."):
            text = text.replace(prefix, lay)
        return text

    enc = {"src": spell(src), "dst": spell(dst)}
    rank = len(shape)
    full = "x".join(map(str, shape))
    lines: list[str] = []
    counter = [0]

    def fresh() -> str:
        counter[0] += 1
        return f"%v{counter[0]}"

    def offsets(which: str) -> str:
        layout = enc[which]
        total: str | None = None
        stride = 1
        for d in reversed(range(rank)):
            removed = [k for k in reversed(range(rank)) if k != d]
            chain = [layout]
            for k in removed:
                chain.append(f"{lay}slice<{{dim = {k}, parent = {chain[-1]}}}>")
            value = fresh()
            lines.append(
                f"    {value} = {ops}.make_range {{end = {shape[d]} : i32, start = 0 : i32}} : "
                f"tensor<{shape[d]}xi32, {chain[-1]}>"
            )
            dims = [shape[d]]
            positions = [d]
            for level, k in enumerate(reversed(removed)):
                before = chain[len(chain) - 1 - level]
                after = chain[len(chain) - 2 - level]
                positions = sorted([*positions, k])
                new_dims = [shape[p] if p == d else 1 for p in positions]
                expanded = fresh()
                lines.append(
                    f"    {expanded} = {ops}.expand_dims {value} "
                    f"{{axis = {positions.index(k)} : i32}} : "
                    f"tensor<{'x'.join(map(str, dims))}xi32, {before}> -> "
                    f"tensor<{'x'.join(map(str, new_dims))}xi32, {after}>"
                )
                value, dims = expanded, new_dims
            if rank > 1:
                shaped = "x".join(map(str, dims))
                const, scaled, wide = fresh(), fresh(), fresh()
                lines.append(
                    f"    {const} = arith.constant dense<{stride}> : tensor<{shaped}xi32, {layout}>"
                )
                lines.append(
                    f"    {scaled} = arith.muli {value}, {const} : tensor<{shaped}xi32, {layout}>"
                )
                lines.append(
                    f"    {wide} = {ops}.broadcast {scaled} : tensor<{shaped}xi32, {layout}> -> "
                    f"tensor<{full}xi32, {layout}>"
                )
                value = wide
            if total is None:
                total = value
            else:
                summed = fresh()
                lines.append(
                    f"    {summed} = arith.addi {total}, {value} : tensor<{full}xi32, {layout}>"
                )
                total = summed
            stride *= shape[d]
        assert total is not None
        return total

    src_off = offsets("src")
    dst_off = offsets("dst")
    s, d = enc["src"], enc["dst"]
    ps, pd = f"tensor<{full}x{ptr}<{dtype}>, {s}>", f"tensor<{full}x{ptr}<{dtype}>, {d}>"
    cvt = "ttg.convert_layout" if dialect == "triton" else "tl.convert_layout"
    lines += [
        f"    %p = {ops}.splat %in : {ptr}<{dtype}> -> {ps}",
        f"    %ptrs = {ops}.addptr %p, {src_off} : {ps}, tensor<{full}xi32, {s}>",
        f"    %x = {ops}.load %ptrs : {ps}",
        f"    %y = {cvt} %x : tensor<{full}x{dtype}, {s}> -> tensor<{full}x{dtype}, {d}>",
        f"    %q = {ops}.splat %out : {ptr}<{dtype}> -> {pd}",
        f"    %qptrs = {ops}.addptr %q, {dst_off} : {pd}, tensor<{full}xi32, {d}>",
        f"    {ops}.store %qptrs, %y : {pd}",
        f"    {ret}",
    ]
    ctas = f'"{attrs}.num-ctas" = 1 : i32, ' if dialect == "triton" else ""
    hint = (
        ""
        if pointer_divisibility is None
        else (f" {{{ops}.divisibility = {pointer_divisibility} : i32}}")
    )
    head = (
        f'module attributes {{"{attrs}.num-warps" = {num_warps} : i32, {ctas}'
        f'"{attrs}.threads-per-warp" = 32 : i32, {attrs}.target = "{target}"}} {{\n'
        f"  {func_op} @kernel(%in: {ptr}<{dtype}>{hint}, %out: {ptr}<{dtype}>{hint}) {{\n"
    )
    return head + "\n".join(lines) + "\n  }\n}\n"


def _context() -> Any:
    from xdsl.context import Context
    from xdsl.dialects import get_all_dialects

    from llc.dialects.universe import get_simt_dialect, get_tl_dialect

    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    ctx.register_dialect("tl", get_tl_dialect)
    ctx.register_dialect("simt", get_simt_dialect)
    return ctx


def conversion_kernel(
    src: Any, dst: Any, shape: list[int], dtype: str, num_warps: int, target: str = "cuda:90"
) -> Any:
    """The conversion kernel lowered by ``llc-lower-to-simt`` (a ``builtin.module``)."""
    from llc.dialects.diagnostics import parse_module
    from llc.passes.lower_to_simt import LowerToSimtPass

    ctx = _context()
    text = conversion_kernel_text(src, dst, shape, dtype, num_warps, target=target)
    module = parse_module(ctx, text, "<conversion kernel>")
    module.verify()
    LowerToSimtPass().apply(ctx, module)
    module.verify()
    return module


def run_conversion_kernel(module: Any, data: Any) -> Any:
    """Run the lowered conversion kernel in the SIMT interpreter on ``data`` (a numpy array of
    the kernel's shape and dtype); the output buffer, in ``data``'s shape."""
    import numpy as np
    from xdsl.dialects import func

    from llc.dialects.simt_kernel_interpreter import GlobalMemory, make_kernel_interpreter
    from llc.dialects.tl_interpreter import Buffer, Pointer

    kernel_fn = next(op for op in module.body.block.ops if isinstance(op, func.FuncOp))
    warps = kernel_fn.attributes["llc.num_warps"].value.data
    lanes = kernel_fn.attributes["llc.threads_per_warp"].value.data
    interpreter, kernel = make_kernel_interpreter(module, warps, lanes, GlobalMemory())
    kernel.num_programs = (1, 1, 1)
    kernel.program_id = (0, 0, 0)
    src = Buffer("in", np.asarray(data))
    dst = Buffer("out", np.zeros_like(np.asarray(data)))
    interpreter.call_op(kernel_fn.sym_name.data, (Pointer(src, 0), Pointer(dst, 0)))
    return dst.array()


def conversion_ptx(
    src: Any, dst: Any, shape: list[int], dtype: str, num_warps: int, arch: str = "sm_90"
) -> str:
    """The PTX of the conversion kernel (``llc-layout SRC --to DST --emit ptx``)."""
    from llc.passes.targets.ptx import emit_ptx

    target = "cuda:" + arch.removeprefix("sm_").rstrip("a")
    return emit_ptx(conversion_kernel(src, dst, shape, dtype, num_warps, target), arch)
