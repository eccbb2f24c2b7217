"""``tl.assert`` and ``tl.print`` lowered to SIMT code (llc.passes.lower_debug_ops): the kernel
interpreter prints what the tensor-level interpreter prints, whatever the layout (registers
spread over threads and warps, broadcast copies), and an assert fails on the same element with
the thread and register that hold it; the PTX calls ``__assertfail`` / ``vprintf`` and ptxas
takes it for sm_80 and sm_90a."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

from llc.dialects.simt_interpreter import SimtError
from llc.dialects.simt_kernel_interpreter import GlobalMemory, make_kernel_interpreter
from llc.dialects.tl_interpreter import Buffer, Pointer, TLInterpretationError
from llc.testing.semantics import apply_pipeline, make_interpreter, parse, set_grid

KERNEL = """
#b = #tl.blocked<{{sizePerThread = [{spt}, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 2],
                  order = [{order}]}}>
#sr = #tl.slice<{{dim = 1, parent = #b}}>
#sc = #tl.slice<{{dim = 0, parent = #b}}>
module attributes {{"tl.num-warps" = 2 : i32, "tl.threads-per-warp" = 32 : i32,
                   "tl.target" = "cuda:80"}} {{
  func.func @k(%x_ptr: !tl.ptr<{t}>, %limit: {t}) {{
    %r = tl.make_range {{end = 16 : i32, start = 0 : i32}} : tensor<16xi32, #sr>
    %c = tl.make_range {{end = 8 : i32, start = 0 : i32}} : tensor<8xi32, #sc>
    %re = tl.expand_dims %r {{axis = 1 : i32}} : tensor<16xi32, #sr> -> tensor<16x1xi32, #b>
    %ce = tl.expand_dims %c {{axis = 0 : i32}} : tensor<8xi32, #sc> -> tensor<1x8xi32, #b>
    %eight = tl.constant 8 : tensor<16x1xi32, #b>
    %rs = arith.muli %re, %eight : tensor<16x1xi32, #b>
    %rb = tl.broadcast %rs : tensor<16x1xi32, #b> -> tensor<16x8xi32, #b>
    %cb = tl.broadcast %ce : tensor<1x8xi32, #b> -> tensor<16x8xi32, #b>
    %off = arith.addi %rb, %cb : tensor<16x8xi32, #b>
    %xb = tl.splat %x_ptr : !tl.ptr<{t}> -> tensor<16x8x!tl.ptr<{t}>, #b>
    %xp = tl.addptr %xb, %off : tensor<16x8x!tl.ptr<{t}>, #b>, tensor<16x8xi32, #b>
    %x = tl.load %xp : tensor<16x8x!tl.ptr<{t}>, #b>
    tl.print " x: " {{hex = {hex}, isSigned = array<i32: 1>}} : %x : tensor<16x8x{t}, #b>
    tl.print " limit: " {{hex = false, isSigned = array<i32: 1>}} : %limit : {t}
    %lim = tl.splat %limit : {t} -> tensor<16x8x{t}, #b>
    %ok = {cmp} {pred}, %x, %lim : tensor<16x8x{t}, #b>
    tl.assert %ok, "x below the limit" : tensor<16x8xi1, #b> loc("kernel.py":42:7)
    func.return
  }}
}}
"""


def _kernel(t: str = "f32", spt: int = 2, order: str = "1, 0", hex_: str = "false") -> str:
    is_float = t in ("f16", "bf16", "f32", "f64")
    cmp, pred = ("tl.cmpf", "olt") if is_float else ("tl.cmpi", "slt")
    return KERNEL.format(t=t, spt=spt, order=order, hex=hex_, cmp=cmp, pred=pred)


def _run(text: str, x: np.ndarray, limit: float, lowered: bool) -> str:
    module = apply_pipeline(parse(text), "llc-compile") if lowered else parse(text)
    out = io.StringIO()
    args = (Pointer(Buffer("x", x.copy()), 0), x.dtype.type(limit))
    if lowered:
        interp = make_kernel_interpreter(module, 2, 32, GlobalMemory())[0]
    else:
        interp = make_interpreter(module)
        set_grid(interp, (0, 0, 0), (1, 1, 1))
    interp.file = out
    interp.call_op("k", args)
    return out.getvalue()


@pytest.mark.parametrize(
    "t, spt, order, hex_",
    [
        ("f32", 2, "1, 0", "false"),
        ("f32", 4, "0, 1", "false"),  # column-major threads, two broadcast copies of rows
        ("i32", 1, "1, 0", "true"),  # hex bits
    ],
)
def test_print_shows_what_the_tensor_level_shows(t: str, spt: int, order: str, hex_: str):
    """The lowered kernel's output is the tensor level's, character for character: every
    element once, in row-major order, whichever thread and register holds it."""
    x = (np.arange(128) * 3 % 101 - 50).astype(np.float32 if t == "f32" else np.int32)
    text = _kernel(t, spt, order, hex_)
    want = _run(text, x, 1000, False)
    got = _run(text, x, 1000, True)
    assert got == want
    assert want.count(" x: ") == 1 and " limit: 1000" in want
    assert ("'0xffffffce'" in want) == (hex_ == "true")  # -50's bits


@pytest.mark.parametrize("spt, order", [(2, "1, 0"), (4, "0, 1")])
def test_assert_names_the_element_the_tensor_level_names(spt: int, order: str) -> None:
    """Elements 37 and 90 break the assert: both levels report element [4, 5] (row-major
    first); the lowered one adds the thread and register that hold it, which the layout
    decides, and the error is located at the ``tl.assert``."""
    x = np.zeros(128, np.float32)
    x[[90, 37]] = 7.0
    text = _kernel("f32", spt, order)
    with pytest.raises(
        TLInterpretationError, match=r"x below the limit \(first failing element \[4, 5\]\)"
    ):
        _run(text, x, 5.0, False)
    with pytest.raises(SimtError) as err:
        _run(text, x, 5.0, True)
    found = re.search(r"element \[4, 5\], thread (\d+), register (\d+)", str(err.value))
    assert found is not None, str(err.value)
    from llc.dialects.diagnostics import op_location

    loc = op_location(err.value.op)
    assert loc is not None and (loc.file, loc.line, loc.col) == ("kernel.py", 42, 7)
    # that thread and register do hold element (4, 5) in the layout
    from llc.dialects import simt

    module = apply_pipeline(parse(text), "llc-compile")
    (op,) = [o for o in module.walk() if isinstance(o, simt.AssertOp)]
    t, r = int(found.group(1)), int(found.group(2))
    assert simt.element_keys(op, 64)[t, r] == 4 * 8 + 5
    _run(text, x, 8.0, True)  # below the limit everywhere: no error


def test_debug_ops_ptx_assembles() -> None:
    """The assert is a branch around ``__assertfail``, the print ``vprintf`` per register;
    ptxas takes both for sm_80 and sm_90a without a word."""
    from llc.passes.targets.ptx import emit_ptx
    from llc.testing.ptxas import assemble, find_ptxas

    lowered = apply_pipeline(parse(_kernel()), "llc-compile")
    if find_ptxas() is not None:  # each printed type's conversion for vprintf
        for t, hex_ in (("bf16", "false"), ("f16", "false"), ("i8", "true"), ("i64", "false")):
            other = apply_pipeline(parse(_kernel(t, 2, "1, 0", hex_)), "llc-compile")
            assert assemble(emit_ptx(other, "sm_80"), "sm_80") == ""
    for arch in ("sm_80", "sm_90a"):
        ptx = emit_ptx(lowered, arch)
        assert "call.uni __assertfail" in ptx and "vprintf" in ptx
        # the call is skipped where every register holds (the conjunction, not its negation)
        guard = re.search(r"and\.pred (%p\d+), .*\n(?:.*\n)*?\t@(!?)(%p\d+) bra \$L_assert_ok", ptx)
        assert guard is not None and guard.group(2) == "" and guard.group(3) == guard.group(1)
        if find_ptxas() is not None:
            assert assemble(ptx, arch) == ""
