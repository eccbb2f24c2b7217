"""``tl.local_load`` through ``ldmatrix`` (issue 21): which reads take it, with or without
``.trans``, and that they read the right elements.

Each kernel loads a 16-bit tile from global memory, stores it to shared memory in a swizzled
layout (``tl.local_alloc``), reads it back into an mma operand layout (``tl.local_load``) and
stores that to global memory: the SIMT interpreter (which executes ``ldmatrix`` row addresses,
``.trans`` and the 16-byte alignment) must give back the input, bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func

from llc.dialects.simt_kernel_interpreter import GlobalMemory, make_kernel_interpreter
from llc.dialects.tl_interpreter import Buffer, Pointer
from llc.testing.semantics import apply_pipeline, parse

MMA = (
    "#tl.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], "
    "instrShape = [16, 8]}>"
)
BLOCKED = (
    "#tl.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
    "order = [1, 0]}>"
)


def _kernel(
    shape: tuple[int, int], layout: str, shared: str, target: str, elem: str = "f16"
) -> str:
    """The round-trip kernel: ``out = local_load(local_alloc(load(in)))`` with ``layout`` as the
    local_load's result layout and ``shared`` as the buffer's."""
    m, n = shape
    t = f"tensor<{m}x{n}"
    body = []
    for x, enc in (("b", "#blk"), ("d", "#dst")):
        rows = f"tensor<{m}xi32, #tl.slice<{{dim = 1, parent = {enc}}}>>"
        cols = f"tensor<{n}xi32, #tl.slice<{{dim = 0, parent = {enc}}}>>"
        i32t = f"{t}xi32, {enc}>"
        body += [
            f"%r{x} = tl.make_range {{end = {m} : i32, start = 0 : i32}} : {rows}",
            f"%c{x} = tl.make_range {{end = {n} : i32, start = 0 : i32}} : {cols}",
            f"%r2{x} = tl.expand_dims %r{x} {{axis = 1 : i32}} : {rows} -> "
            f"tensor<{m}x1xi32, {enc}>",
            f"%c2{x} = tl.expand_dims %c{x} {{axis = 0 : i32}} : {cols} -> "
            f"tensor<1x{n}xi32, {enc}>",
            f"%rb{x} = tl.broadcast %r2{x} : tensor<{m}x1xi32, {enc}> -> {i32t}",
            f"%cb{x} = tl.broadcast %c2{x} : tensor<1x{n}xi32, {enc}> -> {i32t}",
            f"%w{x} = tl.splat %c{n}_i32 : i32 -> {i32t}",
            f"%ro{x} = arith.muli %rb{x}, %w{x} : {i32t}",
            f"%o{x} = arith.addi %ro{x}, %cb{x} : {i32t}",
        ]
    mem = f"!tl.memdesc<{m}x{n}x{elem}, #shared>"
    body += [
        f"%pin = tl.splat %in : !tl.ptr<{elem}> -> {t}x!tl.ptr<{elem}>, #blk>",
        f"%pi = tl.addptr %pin, %ob : {t}x!tl.ptr<{elem}>, #blk>, {t}xi32, #blk>",
        f"%x = tl.load %pi : {t}x!tl.ptr<{elem}>, #blk>",
        f"%s = tl.local_alloc %x : ({t}x{elem}, #blk>) -> {mem}",
        f"%y = tl.local_load %s : {mem} -> {t}x{elem}, #dst>",
        f"%pout = tl.splat %out : !tl.ptr<{elem}> -> {t}x!tl.ptr<{elem}>, #dst>",
        f"%po = tl.addptr %pout, %od : {t}x!tl.ptr<{elem}>, #dst>, {t}xi32, #dst>",
        f"tl.store %po, %y : {t}x!tl.ptr<{elem}>, #dst>",
        "func.return",
    ]
    lines = "\n    ".join(body)
    attrs = f'"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "{target}"'
    return f"""#blk = {BLOCKED}
#mma = {MMA}
#dst = {layout}
#shared = {shared}
module attributes {{{attrs}}} {{
  func.func @k(%in: !tl.ptr<{elem}>, %out: !tl.ptr<{elem}>) {{
    %c{n}_i32 = arith.constant {n} : i32
    {lines}
  }}
}}
"""


def _shared(vec: int, per_phase: int, max_phase: int, order: str) -> str:
    return (
        f"#tl.swizzled_shared<{{vec = {vec}, perPhase = {per_phase}, maxPhase = {max_phase}, "
        f"order = [{order}]}}>"
    )


def _dot(op_idx: int, k_width: int = 2) -> str:
    return f"#tl.dot_op<{{opIdx = {op_idx}, parent = #mma, kWidth = {k_width}}}>"


def _run(
    text: str, shape: tuple[int, int], elem: str = "f16"
) -> tuple[list[tuple[int, bool]], int]:
    """Lower and run the kernel; assert the output is the input; the ``ldmatrix`` ops (count,
    trans) and the number of ``simt.shared_load``."""
    module = parse(text)
    apply_pipeline(module, "llc-lower-to-simt")
    module.verify()
    dtype = np.float16 if elem == "f16" else np.uint16
    x = np.random.default_rng(0).integers(0, 60000, size=shape).astype(np.uint16).view(dtype)
    a, b = Buffer("in", x.reshape(-1).copy(), shape), Buffer("out", np.zeros(x.size, dtype), shape)
    interp, kernel = make_kernel_interpreter(module, 4, 32, GlobalMemory())
    kernel.num_programs, kernel.program_id = (1, 1, 1), (0, 0, 0)
    interp.call_op("k", (Pointer(a, 0), Pointer(b, 0)))
    assert np.array_equal(b.data.view(np.uint16), x.reshape(-1).view(np.uint16))
    names = list(next(o for o in module.walk() if isinstance(o, func.FuncOp)).walk())
    matrices = [
        (o.count.value.data, o.trans is not None) for o in names if o.name == "simt.ldmatrix"
    ]
    return matrices, sum(o.name == "simt.shared_load" for o in names)


# (name, shape, result layout, shared layout, expected ldmatrix ops)
CASES = [
    # A row-major (k contiguous): plain ldmatrix, as Triton's A from a K-major tile
    ("a_k_major", (64, 32), _dot(0), _shared(8, 2, 4, "1, 0"), [(4, False)] * 4),
    # B row-major (n contiguous): the rows of the matrices are n, the registers step k: .trans
    ("b_n_major", (32, 64), _dot(1), _shared(8, 1, 8, "1, 0"), [(4, True)] * 4),
    # the transposed cases: A m-major needs .trans, B k-major does not
    ("a_m_major", (64, 32), _dot(0), _shared(8, 1, 8, "0, 1"), [(4, True)] * 4),
    ("b_k_major", (32, 64), _dot(1), _shared(8, 2, 4, "0, 1"), [(4, False)] * 4),
    # no swizzle: still ldmatrix (no more wavefronts than 32-bit loads), bank conflicts and all
    ("a_unswizzled", (64, 32), _dot(0), _shared(1, 1, 1, "1, 0"), [(4, False)] * 4),
    # kWidth 4: a thread's k run is 4 long, not the instruction's pair: plain loads
    ("a_kwidth4", (64, 32), _dot(0, 4), _shared(8, 2, 4, "1, 0"), []),
    # a blocked result: 128-bit ld.shared already moves 8 elements, ldmatrix would not pay
    (
        "blocked",
        (64, 32),
        BLOCKED,
        _shared(8, 2, 4, "1, 0"),
        [],
    ),
]


@pytest.mark.parametrize(("name", "shape", "layout", "shared", "want"), CASES)
def test_local_load_reads_the_tile_with_the_expected_ldmatrix(
    name: str, shape: tuple[int, int], layout: str, shared: str, want: list[tuple[int, bool]]
) -> None:
    got, plain = _run(_kernel(shape, layout, shared, "cuda:80"), shape)
    assert got == want, name
    if want:
        assert plain == 0, name  # every register came through ldmatrix


def test_bf16_uses_ldmatrix_too() -> None:
    shape = (32, 64)
    got, _ = _run(
        _kernel(shape, _dot(1), _shared(8, 1, 8, "1, 0"), "cuda:80", "bf16"), shape, "bf16"
    )
    assert got == [(4, True)] * 4


def test_no_ldmatrix_below_sm75() -> None:
    shape = (64, 32)
    got, plain = _run(_kernel(shape, _dot(0), _shared(8, 2, 4, "1, 0"), "cuda:70"), shape)
    assert got == [] and plain > 0


def test_a_swizzled_ring_slot_is_read_without_bank_conflicts() -> None:
    """Triton's operand swizzle (``vec 8``, one phase per 128-byte row) makes every
    ``ldmatrix`` phase (8 rows of 16 bytes) hit distinct banks: the tile's ideal."""
    from llc.passes.lower_ldmatrix import ldmatrix_read, plain_read_cost
    from llc.passes.simt_lowering import FunctionLowering, Laid, tensor_layout, thread_coords

    for name, shape, layout, shared, _ in CASES[:4]:
        module = parse(_kernel(shape, layout, shared, "cuda:80"))
        load = next(o for o in module.walk() if o.name == "tl.local_load")
        lowering = FunctionLowering(func.FuncOp("f", ([], [])), num_warps=4, lanes=32)
        ll = tensor_layout(load.results[0].type)
        target = Laid(load.operands[0], thread_coords(ll, 128), ll)
        reg, thread = lowering.shared_offsets(load.operands[0], target)
        plan = ldmatrix_read(reg, thread, 32)
        assert plan is not None, name
        ideal = len(reg) * 2 * 32 // 128
        assert plan.wavefronts == ideal, name
        assert plain_read_cost(reg, thread, 32, 2)[0] >= ideal


def test_a_ring_slot_read_by_ldmatrix_before_its_wait_is_a_race() -> None:
    """The pipelined matmul reads its ring slots with ``ldmatrix``; without the loop's
    ``cp.async.wait_group`` the first read meets bytes a copy still writes (the interpreter's
    ``ldmatrix`` checks the copies in flight, as ``ld.shared`` does)."""
    from test_pipeline import CASES as RUNS
    from test_pipeline import lowered, simt_runner

    from llc.dialects import simt
    from llc.dialects.simt_interpreter import SimtRaceError

    module = lowered("matmul").clone()
    assert any(o.name == "simt.ldmatrix" for o in module.walk())
    wait = next(o for o in module.walk() if isinstance(o, simt.CpAsyncWaitGroupOp))
    wait.detach()
    wait.erase()
    _, entry, values, _ = RUNS[2]
    with pytest.raises(SimtRaceError, match=r"simt\.cp_async still writes"):
        simt_runner(entry, values)(module)
