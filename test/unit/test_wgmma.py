"""wgmma: descriptors read off shared layouts, the SIMT interpreter's ``simt.wgmma`` against
numpy on random tiles, the async-proxy checks, and PTX accepted by ptxas for sm_90a."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest

from llc.dialects import simt
from llc.dialects.simt_interpreter import SimtError, SimtRaceError, make_simt_interpreter
from llc.errors import LayoutError
from llc.layouts.shared import NvmmaSharedLayout
from llc.linear_layout import LinearLayout
from llc.testing.wgmma_tiles import TYPES, TileSpec, build_tile, draw_spec, run_tile
from llc.wgmma import (
    WgmmaDescriptor,
    descriptor_addresses,
    instruction_k,
    operand_descriptor,
)

TILES_PER_SEED = 25
SEEDS = range(8)  # 200 random tiles in all


# ------------------------------------------------------------------------ descriptors


def test_descriptor_encoding_fields() -> None:
    d = WgmmaDescriptor(start=0x1230, lbo=0x40, sbo=0x400, swizzle=64)
    value = d.encode()
    assert value & 0x3FFF == 0x123
    assert (value >> 16) & 0x3FFF == 0x4
    assert (value >> 32) & 0x3FFF == 0x40
    assert value >> 62 == 2  # 64B
    assert [WgmmaDescriptor(0, 0, 0, w).encode() >> 62 for w in (0, 128, 64, 32)] == [0, 1, 2, 3]
    with pytest.raises(LayoutError, match="multiple of 16"):
        WgmmaDescriptor(8, 0, 0, 0).encode()
    with pytest.raises(LayoutError, match="base offset"):
        WgmmaDescriptor.decode(1 << 49)


@pytest.mark.parametrize(
    ("swizzle", "trans", "bits", "operand", "shape", "k_major", "lbo", "sbo"),
    [
        # K-major: SBO steps 8 rows (8 swizzle rows); LBO unused (16)
        (128, False, 16, "a", (64, 64), True, 16, 1024),
        (64, False, 16, "a", (128, 32), True, 16, 512),
        (32, False, 8, "a", (64, 32), True, 16, 256),
        (128, True, 32, "b", (32, 64), True, 16, 1024),
        # M/N-major: LBO steps a swizzle row along M/N, SBO 8 K rows
        (128, True, 16, "a", (128, 16), False, 16 * 128, 1024),
        (64, False, 16, "b", (16, 64), False, 16 * 64, 512),
        (32, False, 16, "b", (16, 64), False, 16 * 32, 256),
    ],
)
def test_descriptor_read_off_nvmma(swizzle, trans, bits, operand, shape, k_major, lbo, sbo):
    op = operand_descriptor(NvmmaSharedLayout(swizzle, trans, bits), shape, bits, operand)
    assert op.k_major is k_major
    assert op.descriptor == WgmmaDescriptor(0, lbo, sbo, swizzle)


def test_descriptor_addresses_inverts_every_nvmma_layout() -> None:
    """Every swizzle, both majornesses, every element width: the descriptor addresses each
    element of each instruction tile where the layout's inverse puts it."""
    checked = 0
    for swizzle, trans, dtype in itertools.product((32, 64, 128), (False, True), TYPES):
        bits = TYPES[dtype][1]
        for operand, shape in (("a", (128, 128)), ("b", (128, 128))):
            k_major = (not trans) if operand == "a" else trans
            layout = NvmmaSharedLayout(swizzle, trans, bits)
            if not k_major and bits != 16:
                with pytest.raises(LayoutError, match="K-major only"):
                    operand_descriptor(layout, shape, bits, operand)
                continue
            op = operand_descriptor(layout, shape, bits, operand, base=2048)
            inverse = layout.to_linear_layout(list(shape)).invert()
            kk = instruction_k(bits)
            mn_tile = 64 if operand == "a" else shape[1]
            mn = np.arange(mn_tile)[:, None]
            k = np.arange(kk)[None, :]
            for mn0, k0 in ((0, 0), (0, kk), (mn_tile % shape[0 if operand == "a" else 1], 0)):
                got = descriptor_addresses(op.at(mn0, k0), mn, k, bits, k_major)
                rows, cols = (mn0 + mn, k0 + k) if operand == "a" else (k0 + k, mn0 + mn)
                images = inverse.apply_all()
                flat = np.broadcast_to(rows + shape[0] * cols, got.shape)
                want = 2048 + images["offset"][flat] * (bits // 8)
                assert (got == want).all(), (swizzle, trans, dtype, operand, mn0, k0)
                checked += 1
    assert checked >= 60


def test_refuses_layouts_no_descriptor_expresses() -> None:
    # swizzle 0 nvmma rows are the whole tile wide: not 16-byte core matrices
    with pytest.raises(LayoutError, match=r"element \(mn=1, k=0\) is at byte 128"):
        operand_descriptor(NvmmaSharedLayout(0, False, 16), (64, 64), 16, "a")
    # neither dim contiguous: offset 1 moves both dims
    moves = [[1, 1], [1, 0], [0, 2], [0, 4], [0, 8], [0, 16], [2, 0], [4, 0], [8, 0], [16, 0]]
    both = LinearLayout.from_bases([("offset", [*moves, [32, 0]])], ["dim0", "dim1"])
    with pytest.raises(LayoutError, match="contiguous neither along K nor along M"):
        operand_descriptor(both, (64, 32), 16, "a")
    # a swizzle whose period the base address breaks
    with pytest.raises(LayoutError, match="not aligned to the 1024-byte swizzle period"):
        operand_descriptor(NvmmaSharedLayout(128, False, 16), (64, 64), 16, "a", base=512)
    # an M-major 8-bit operand (wgmma transposes only 16-bit types)
    with pytest.raises(LayoutError, match="K-major only"):
        operand_descriptor(NvmmaSharedLayout(128, True, 8), (128, 128), 8, "a")
    # M not a multiple of 64
    with pytest.raises(LayoutError, match="not a multiple of 64"):
        operand_descriptor(NvmmaSharedLayout(128, False, 16), (32, 64), 16, "a")


# ------------------------------------------------------------------------ translation validation


def test_random_specs_cover_every_case() -> None:
    seen = set()
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        for _ in range(TILES_PER_SEED):
            s = draw_spec(rng)
            seen.add(("b", s.b_swizzle, s.b_trans, TYPES[s.dtype][1] == 16))
            seen.add(("a", "regs" if s.a_regs else s.a_swizzle, s.a_trans))
            seen.add(("type", s.dtype))
            seen.add(("n", s.n & (s.n - 1) == 0))
    for w in (0, 32, 64, 128):
        assert ("b", w, True, True) in seen and ("b", w, False, True) in seen
        assert ("a", w, False) in seen and ("a", w, True) in seen
    assert ("a", "regs", False) in seen
    assert {("type", t) for t in TYPES} <= seen
    assert ("n", True) in seen and ("n", False) in seen


@pytest.mark.parametrize("seed", SEEDS)
def test_wgmma_random_tiles_match_numpy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(TILES_PER_SEED):
        spec = draw_spec(rng)
        got, want = run_tile(spec, rng)
        assert got.dtype == want.dtype, spec
        bad = np.argwhere(got != want)
        assert not bad.size, f"{spec}: thread/register {bad[0].tolist()} of {bad.shape[0]} wrong"


def test_two_warpgroups_each_multiply_their_rows() -> None:
    spec = TileSpec("f16", 32, False, 128, False, 64, True)
    tile = build_tile(spec, np.random.default_rng(5))
    # 8 warps: the second warpgroup stores nothing, so give it the same stores and operands
    interp, _ = make_simt_interpreter(tile.module, 8, 32)
    args = tuple(np.concatenate([x, x]) if isinstance(x, np.ndarray) else x for x in tile.args)
    (out,) = interp.call_op("tile", args)
    got1, got2 = np.asarray(out)[:128], np.asarray(out)[128:]
    np.testing.assert_array_equal(got1, got2)


# ------------------------------------------------------------------------ async proxy errors

BASE = TileSpec("bf16", 24, False, 64, True, 32, False)


@pytest.mark.parametrize(
    ("plant", "error", "match"),
    [
        ("no_fence", SimtRaceError, "no simt.fence_async_shared after the write"),
        ("no_barrier", SimtRaceError, "no barrier between the fence and the wgmma"),
        ("no_wgmma_fence", SimtRaceError, "after the last simt.wgmma_fence"),
        ("no_commit", SimtError, "func.return reads the accumulator of a simt.wgmma before"),
        ("no_wait", SimtRaceError, "overwritten while a simt.wgmma still reads it"),
        ("overwrite_in_flight", SimtRaceError, "overwritten while a simt.wgmma still reads it"),
    ],
)
def test_missing_synchronisation_is_reported(plant: str, error: type, match: str) -> None:
    rng = np.random.default_rng(1)
    assert (lambda g: (g[0] == g[1]).all())(run_tile(BASE, np.random.default_rng(1)))
    tile = build_tile(replace(BASE, plant=plant), rng)
    interp, _ = make_simt_interpreter(tile.module, 4, 32)
    with pytest.raises(error, match=match) as info:
        interp.call_op("tile", tile.args)
    assert info.value.op.name in ("simt.wgmma", "func.return", "simt.shared_store")


def test_wait_without_store_reports_early_accumulator_read() -> None:
    """Without the wait (and nothing else wrong), returning the accumulator is the error."""
    tile = build_tile(replace(BASE, plant="no_wait"), np.random.default_rng(4))
    fn = tile.module.body.block.first_op
    store = [op for op in fn.walk() if isinstance(op, simt.SharedStoreOp)][-1]
    store.detach()
    store.erase()
    interp, _ = make_simt_interpreter(tile.module, 4, 32)
    with pytest.raises(SimtError, match=r"func\.return reads the accumulator") as info:
        interp.call_op("tile", tile.args)
    assert info.value.op.name == "func.return"


def test_wait_with_pending_group_keeps_accumulator_in_flight() -> None:
    from xdsl.dialects import func

    from llc.dialects import simt

    tile = build_tile(BASE, np.random.default_rng(2))
    fn = tile.module.body.block.first_op
    assert isinstance(fn, func.FuncOp)
    wait = next(op for op in fn.walk() if isinstance(op, simt.WgmmaWaitGroupOp))
    wait.properties["pending"] = simt.IntegerAttr(1, 32)
    interp, _ = make_simt_interpreter(tile.module, 4, 32)
    with pytest.raises(SimtError, match=r"before a simt\.wgmma_wait_group retires its group"):
        interp.call_op("tile", tile.args)


@pytest.mark.parametrize("dtype", ["f16", "e4m3", "i8"])
def test_swapped_descriptor_strides_are_caught(dtype: str) -> None:
    """A descriptor with LBO and SBO swapped reads the wrong elements: the tile no longer
    matches numpy (or reads outside what was stored)."""
    spec = TileSpec(dtype, 64, True, 0, False, 0, True, plant="swap_b_strides")
    tile = build_tile(spec, np.random.default_rng(3))
    assert tile.b_operand.descriptor.lbo != tile.b_operand.descriptor.sbo
    try:
        got, want = run_tile(spec, np.random.default_rng(3))
    except SimtError:
        return
    assert (got != want).any()


# ------------------------------------------------------------------------ PTX for sm_90a

_MLIR_TYPE = {"f16": "f16", "bf16": "bf16", "tf32": "f32", "e4m3": "f8E4M3FN", "e5m2": "f8E5M2"}


def _ptx_kernel(spec: TileSpec) -> str:
    """A kernel: store the operands' shared image, fence, barrier, two chained wgmma ops with
    descriptors read off the layouts, commit, wait, store one accumulator register."""
    tile = build_tile(spec, np.random.default_rng(0))
    typ = _MLIR_TYPE.get(spec.dtype, "i8")
    bits = TYPES[spec.dtype][1]
    acc = "i32" if spec.dtype == "i8" else "f32"
    n = spec.n
    size = 128 * 16 * len(tile.args[:-1:2])
    smem = f"!simt.smem<{size}, align 1024>"
    k = instruction_k(bits)
    lines = [
        '%tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index',
        "%c16 = arith.constant 16 : index",
        "%addr = arith.muli %tid, %c16 : index",
        f"%s = simt.shared_alloc : {smem}",
        f"%v = arith.constant dense<1> : vector<{128 // bits}xi{bits}>",
        f"%vt = vector.bitcast %v : vector<{128 // bits}xi{bits}> to vector<{128 // bits}x{typ}>",
        f"simt.shared_store %vt, %s[%addr] : vector<{128 // bits}x{typ}>, {smem}",
        "simt.fence_async_shared",
        '"gpu.barrier"() : () -> ()',
        f"%acc0 = arith.constant dense<0> : vector<{n // 2}xi32>",
        f"%acc = vector.bitcast %acc0 : vector<{n // 2}xi32> to vector<{n // 2}x{acc}>",
        f"%ar = arith.constant dense<1> : vector<{128 // bits}xi{bits}>",
        f"%art = vector.bitcast %ar : vector<{128 // bits}xi{bits}> to vector<{128 // bits}x{typ}>",
        "simt.wgmma_fence",
    ]
    prev = "%acc"
    acc_vec = f"vector<{n // 2}x{acc}>"
    for step in range(2):
        b = tile.b_operand.at(0, step * k if step * k < tile.b.shape[0] else 0).encode()
        lines.append(f"%db{step} = arith.constant {b - (1 << 64) if b >= 1 << 63 else b} : i64")
        if spec.a_regs:
            a_val, a_type = "%art", f"vector<{128 // bits}x{typ}>"
        else:
            assert tile.a_operand is not None
            a = tile.a_operand.at(0, step * k if step * k < tile.a.shape[1] else 0).encode()
            lines.append(f"%da{step} = arith.constant {a - (1 << 64) if a >= 1 << 63 else a} : i64")
            a_val, a_type = f"%da{step}", "i64"
        trans = (" trans_a" if spec.a_trans else "") + ("" if spec.b_trans else " trans_b")
        lines.append(
            f"%d{step} = simt.wgmma {a_val}, %db{step}, {prev}, %s n = {n} a = {typ} b = {typ}"
            f"{trans} : {a_type}, vector<{n // 2}x{acc}>, {smem}"
        )
        prev = f"%d{step}"
    lines += [
        "simt.wgmma_commit_group",
        f"%r = simt.wgmma_wait_group 0 ({prev}) : ({acc_vec}) -> {acc_vec}",
        f"%x = vector.extract %r[0] : {acc} from vector<{n // 2}x{acc}>",
        f"%xv = vector.broadcast %x : {acc} to vector<1x{acc}>",
        f"%base = simt.ptr_to_int %p : !tl.ptr<{acc}>",
        "%true = arith.constant true",
        f"simt.global_store %xv, %base, %true : vector<1x{acc}>",
        "func.return",
    ]
    body = "\n    ".join(lines)
    return (
        'builtin.module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, '
        'tl.target = "cuda:90"} {\n'
        f"  func.func @k(%p: !tl.ptr<{acc}>) {{\n    {body}\n  }}\n}}\n"
    )


@pytest.mark.parametrize(
    "spec",
    [
        TileSpec("f16", 256, False, 128, False, 128, True),
        TileSpec("f16", 24, True, 0, False, 32, False),
        TileSpec("bf16", 64, False, 64, True, 0, False),
        TileSpec("tf32", 8, False, 32, False, 64, True),
        TileSpec("tf32", 16, True, 0, False, 128, True),
        TileSpec("bf16", 248, True, 0, False, 64, True),
        TileSpec("e4m3", 128, True, 0, False, 128, True),
        TileSpec("e5m2", 40, False, 0, False, 32, True),
        TileSpec("i8", 96, False, 128, False, 64, True),
    ],
    ids=lambda s: f"{s.dtype}-n{s.n}-{'regs' if s.a_regs else 'smem'}",
)
def test_wgmma_ptx_assembles_for_sm90a(spec: TileSpec) -> None:
    from llc.passes.targets.ptx import emit_ptx
    from llc.testing.ptxas import assemble, find_ptxas
    from llc.testing.semantics import parse

    if find_ptxas() is None:
        pytest.skip("no ptxas (pip install -e '.[test]')")
    module = parse(_ptx_kernel(spec))
    ptx = emit_ptx(module)
    assert ".target sm_90a" in ptx
    assert ptx.count("wgmma.mma_async") == 2
    assert assemble(ptx, "sm_90a") == ""
