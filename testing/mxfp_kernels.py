"""Layout-free ``tl.dot_scaled`` kernels for tests: one program loads A, its scales, B, its
scales (row-major buffers), computes ``dot_scaled`` with a zero accumulator and stores the f32
result.

>>> text = dot_scaled_kernel("e2m1", "bf16", 16, 16, 32)
>>> "tl.dot_scaled" in text and "tensor<16x16xi8>" in text and "tensor<32x16xbf16>" in text
True
"""

from __future__ import annotations

__all__ = ["dot_scaled_kernel", "operand_shape", "values_t"]

_STORAGE = {"e2m1": "i8", "e4m3": "i8", "e5m2": "i8", "bf16": "f32", "fp16": "f16"}
"""The buffer element type of each operand format: bf16 operands are stored as f32 (llc-run has
no bf16 buffers) and rounded to bf16 in the kernel."""


def operand_shape(fmt: str, side: str, m: int, n: int, k: int) -> tuple[int, int]:
    """The stored shape of operand ``side`` (``a``: M x K, ``b``: K x N; e2m1 packs K in two).

    >>> operand_shape("e2m1", "b", 16, 8, 64)
    (32, 8)
    """
    kk = k // 2 if fmt == "e2m1" else k
    return (m, kk) if side == "a" else (kk, n)


def values_t(shape: tuple[int, int], elem: str) -> str:
    """``tensor<RxCxELEM>``.

    >>> values_t((2, 3), "f32")
    'tensor<2x3xf32>'
    """
    return f"tensor<{shape[0]}x{shape[1]}x{elem}>"


def _load(lines: list[str], name: str, ptr: str, shape: tuple[int, int], elem: str) -> str:
    rows, cols = shape
    t = f"tensor<{rows}x{cols}xi32>"
    lines += [
        f"    %{name}_r = tl.make_range {{end = {rows} : i32, start = 0 : i32}} : "
        f"tensor<{rows}xi32>",
        f"    %{name}_r2 = tl.expand_dims %{name}_r {{axis = 1 : i32}} : tensor<{rows}xi32> -> "
        f"tensor<{rows}x1xi32>",
        f"    %{name}_rb = tl.broadcast %{name}_r2 : tensor<{rows}x1xi32> -> {t}",
        f"    %{name}_c = tl.make_range {{end = {cols} : i32, start = 0 : i32}} : "
        f"tensor<{cols}xi32>",
        f"    %{name}_c2 = tl.expand_dims %{name}_c {{axis = 0 : i32}} : tensor<{cols}xi32> -> "
        f"tensor<1x{cols}xi32>",
        f"    %{name}_cb = tl.broadcast %{name}_c2 : tensor<1x{cols}xi32> -> {t}",
        f"    %{name}_w = arith.constant dense<{cols}> : {t}",
        f"    %{name}_row = arith.muli %{name}_rb, %{name}_w : {t}",
        f"    %{name}_off = arith.addi %{name}_row, %{name}_cb : {t}",
        f"    %{name}_base = tl.splat %{ptr} : !tl.ptr<{elem}> -> "
        f"tensor<{rows}x{cols}x!tl.ptr<{elem}>>",
        f"    %{name}_ptrs = tl.addptr %{name}_base, %{name}_off : "
        f"tensor<{rows}x{cols}x!tl.ptr<{elem}>>, {t}",
    ]
    return f"%{name}_ptrs"


def dot_scaled_kernel(lhs: str, rhs: str, m: int, n: int, k: int, name: str = "mx") -> str:
    """The module text of ``@NAME(a, a_scale, b, b_scale, out)`` (buffers in that order)."""
    ea, eb = _STORAGE[lhs], _STORAGE[rhs]
    sa, sb = operand_shape(lhs, "a", m, n, k), operand_shape(rhs, "b", m, n, k)
    lines = [
        'module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, '
        '"tl.target" = "cuda:90"} {',
        f"  func.func @{name}(%a_ptr: !tl.ptr<{ea}>, %as_ptr: !tl.ptr<i8>, %b_ptr: !tl.ptr<{eb}>, "
        "%bs_ptr: !tl.ptr<i8>, %o_ptr: !tl.ptr<f32>) {",
    ]
    values = {}
    for key, ptr, shape, elem in (
        ("a", "a_ptr", sa, ea),
        ("as", "as_ptr", (m, k // 32), "i8"),
        ("b", "b_ptr", sb, eb),
        ("bs", "bs_ptr", (n, k // 32), "i8"),
        ("o", "o_ptr", (m, n), "f32"),
    ):
        ptrs = _load(lines, key, ptr, shape, elem)
        t = f"tensor<{shape[0]}x{shape[1]}x{elem}>"
        if key != "o":
            load = f"tl.load {ptrs} : tensor<{shape[0]}x{shape[1]}x!tl.ptr<{elem}>>"
            fmt = lhs if key == "a" else rhs if key == "b" else ""
            if fmt == "bf16":
                lines.append(f"    %{key}_f32 = {load}")
                t = f"tensor<{shape[0]}x{shape[1]}xbf16>"
                lines.append(
                    f"    %{key} = arith.truncf %{key}_f32 : {values_t(shape, 'f32')} to {t}"
                )
            else:
                lines.append(f"    %{key} = {load}")
        values[key] = (ptrs, t)
    o_t = f"tensor<{m}x{n}xf32>"
    types = ", ".join(values[x][1] for x in ("a", "as", "b", "bs"))
    lines += [
        f"    %zero = arith.constant dense<0.0> : {o_t}",
        f'    %d = tl.dot_scaled %a, %as, %b, %bs, %zero {{lhs = "{lhs}", rhs = "{rhs}"}} : '
        f"({types}, {o_t}) -> {o_t}",
        f"    tl.store {values['o'][0]}, %d : tensor<{m}x{n}x!tl.ptr<f32>>",
        "    func.return",
        "  }",
        "}",
    ]
    return "\n".join(lines) + "\n"
