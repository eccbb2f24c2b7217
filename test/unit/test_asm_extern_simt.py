"""``tl.elementwise_inline_asm`` and libdevice ``tl.extern_elementwise`` through llc-compile:
inline PTX run per group of ``pack`` registers (llc.passes.lower_inline_asm, the interpreters'
model of PTX in llc.dialects.inline_ptx), libdevice calls as math ops (llc.passes.lower_extern);
results against the tensor level and numpy, PTX through ptxas."""

from __future__ import annotations

import math

import numpy as np
import pytest

from llc.dialects.tl_interpreter import Buffer, Pointer
from llc.testing.semantics import apply_pipeline, call_kernel, parse

KERNEL = """
module attributes {{"tl.num-warps" = 1 : i32, "tl.threads-per-warp" = 32 : i32,
                   "tl.target" = "cuda:80"}} {{
  func.func @k(%x_ptr: !tl.ptr<{t}>, %y_ptr: !tl.ptr<{t}>, %o_ptr: !tl.ptr<{u}>,
               %p_ptr: !tl.ptr<{u}>) {{
    %r = tl.make_range {{end = 256 : i32, start = 0 : i32}} : tensor<256xi32>
    %xb = tl.splat %x_ptr : !tl.ptr<{t}> -> tensor<256x!tl.ptr<{t}>>
    %xp = tl.addptr %xb, %r : tensor<256x!tl.ptr<{t}>>, tensor<256xi32>
    %x = tl.load %xp : tensor<256x!tl.ptr<{t}>>
    %yb = tl.splat %y_ptr : !tl.ptr<{t}> -> tensor<256x!tl.ptr<{t}>>
    %yp = tl.addptr %yb, %r : tensor<256x!tl.ptr<{t}>>, tensor<256xi32>
    %y = tl.load %yp : tensor<256x!tl.ptr<{t}>>
    {body}
    %ob = tl.splat %o_ptr : !tl.ptr<{u}> -> tensor<256x!tl.ptr<{u}>>
    %op = tl.addptr %ob, %r : tensor<256x!tl.ptr<{u}>>, tensor<256xi32>
    tl.store %op, %o : tensor<256x!tl.ptr<{u}>>
    %pb = tl.splat %p_ptr : !tl.ptr<{u}> -> tensor<256x!tl.ptr<{u}>>
    %pp = tl.addptr %pb, %r : tensor<256x!tl.ptr<{u}>>, tensor<256xi32>
    tl.store %pp, %p : tensor<256x!tl.ptr<{u}>>
    func.return
  }}
}}
"""


def _run(text: str, arrays: list[np.ndarray], lowered: bool) -> list[np.ndarray]:
    module = apply_pipeline(parse(text), "llc-compile") if lowered else parse(text)
    bufs = [Buffer(f"b{i}", a.copy()) for i, a in enumerate(arrays)]
    call_kernel(module, "k", [Pointer(b, 0) for b in bufs])
    return [b.data for b in bufs[2:]]


def _asm(asm: str, constraints: str, pack: int, t: str, outs: int = 1) -> str:
    results = ", ".join([f"tensor<256x{t}>"] * outs)
    names = "%o, %p" if outs == 2 else "%o"
    line = (
        f'{names} = tl.elementwise_inline_asm "{asm}" {{constraints = "{constraints}", '
        f"packed_element = {pack} : i32, pure = true}} %x, %y : tensor<256x{t}>, "
        f"tensor<256x{t}> -> {results}"
    )
    if outs == 1:
        add = "arith.addf" if t.startswith(("f", "bf")) else "arith.addi"
        line += f"\n    %p = {add} %o, %o : tensor<256x{t}>"
    return line


def test_inline_asm_with_two_results_matches_the_tensor_level() -> None:
    """pack 1, two outputs ($0, $1) of two inputs ($2, $3): the lowered kernel and the tensor
    level run the same PTX model, bit for bit."""
    body = _asm("add.s32 $0, $2, $3;\\n\\tsub.s32 $1, $2, $3;", "=r,=r,r,r", 1, "i32", outs=2)
    text = KERNEL.format(t="i32", u="i32", body=body)
    rng = np.random.default_rng(1)
    arrays = [rng.integers(-(2**31), 2**31 - 1, 256).astype(np.int32) for _ in range(2)]
    arrays += [np.zeros(256, np.int32), np.zeros(256, np.int32)]
    expected, got = _run(text, arrays, False), _run(text, arrays, True)
    for e, g in zip(expected, got, strict=True):
        assert np.array_equal(e, g)
    with np.errstate(over="ignore"):
        assert np.array_equal(got[0], arrays[0] + arrays[1])
        assert np.array_equal(got[1], arrays[0] - arrays[1])


@pytest.mark.parametrize(
    "t, pack, asm, want",
    [
        # four bytes per 32-bit register: xor 0x80 flips each byte's sign bit
        ("i8", 4, "xor.b32 $0, $1, 0x80808080;", lambda x, y: x ^ np.int8(-128)),
        # two halves per word: clearing each half's sign bit is fabs
        ("f16", 2, "and.b32 $0, $1, 0x7FFF7FFF;", lambda x, y: np.abs(x)),
        # the low element of each group takes y's, the high keeps x's: packing order
        ("i16", 2, "and.b32 $0, $2, 0x0000FFFF;", lambda x, y: np.where(np.arange(256) % 2, 0, y)),
    ],
)
def test_packed_inline_asm_sees_consecutive_registers_low_element_first(t, pack, asm, want):
    """pack 2 and 4: one call per group of consecutive registers, the first element in the low
    bits of the ``r`` register (the tensor level cannot run these: its elements have no
    registers), against numpy; the PTX assembles for sm_80 and sm_90a."""
    from llc.passes.targets.ptx import emit_ptx
    from llc.testing.ptxas import assemble, find_ptxas

    text = KERNEL.format(t=t, u=t, body=_asm(asm, "=r,r,r", pack, t))
    rng = np.random.default_rng(2)
    dt = {"i8": np.int8, "f16": np.float16, "i16": np.int16}[t]
    if t == "f16":
        x, y = (rng.standard_normal(256).astype(dt) for _ in range(2))
    else:
        x, y = (rng.integers(-100, 100, 256).astype(dt) for _ in range(2))
    o, _ = _run(text, [x, y, np.zeros(256, dt), np.zeros(256, dt)], True)
    assert np.array_equal(o, want(x, y).astype(dt))
    if find_ptxas() is not None:
        lowered = apply_pipeline(parse(text), "llc-compile")
        for arch in ("sm_80", "sm_90a"):
            assert assemble(emit_ptx(lowered, arch), arch) == ""


EXTERN = {
    "__nv_expf": np.exp,
    "__nv_fast_expf": np.exp,
    "__nv_exp2f": np.exp2,
    "__nv_rsqrtf": lambda x: 1 / np.sqrt(x),
    "__nv_tanhf": np.tanh,
    "__nv_erff": np.vectorize(math.erf),
    "__nv_log1pf": np.log1p,
    "__nv_sinf": np.sin,
}


@pytest.mark.parametrize("symbol", sorted(EXTERN))
def test_a_libdevice_call_computes_its_function(symbol: str) -> None:
    """The lowered kernel gives the tensor level's results bit for bit, and both are the
    function the symbol names (numpy in f64, rounded to f32)."""
    body = (
        f'%o = tl.extern_elementwise %x {{libname = "", libpath = "", pure = true, '
        f'symbol = "{symbol}"}} : (tensor<256xf32>) -> tensor<256xf32>\n'
        "    %p = arith.addf %o, %y : tensor<256xf32>"
    )
    text = KERNEL.format(t="f32", u="f32", body=body)
    rng = np.random.default_rng(3)
    x = rng.uniform(0.1, 3.0, 256).astype(np.float32)
    arrays = [x, x, np.zeros(256, np.float32), np.zeros(256, np.float32)]
    expected, got = _run(text, arrays, False), _run(text, arrays, True)
    assert np.array_equal(expected[0], got[0])
    want = EXTERN[symbol](x.astype(np.float64)).astype(np.float32)
    np.testing.assert_allclose(got[0], want, rtol=1e-6)


def test_an_unknown_libdevice_call_is_a_located_error() -> None:
    body = (
        '%o = tl.extern_elementwise %x {libname = "", libpath = "", pure = true, '
        'symbol = "__nv_j0f"} : (tensor<256xf32>) -> tensor<256xf32>\n'
        "    %p = arith.addf %o, %y : tensor<256xf32>"
    )
    with pytest.raises(Exception, match="__nv_j0f") as info:
        apply_pipeline(parse(KERNEL.format(t="f32", u="f32", body=body)), "llc-compile")
    assert info.value.op.name == "tl.extern_elementwise"  # type: ignore[attr-defined]


def test_ptx_the_interpreters_do_not_model_is_a_clear_error() -> None:
    body = _asm("testp.finite.f32 $0, $1;", "=r,r,r", 1, "f32")
    text = KERNEL.format(t="f32", u="f32", body=body)
    with pytest.raises(Exception, match=r"testp\.finite\.f32 .* is not modelled"):
        _run(text, [np.ones(256, np.float32)] * 2 + [np.zeros(256, np.float32)] * 2, True)
