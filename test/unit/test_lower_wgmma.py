"""passes/lower_wgmma.py: a warpgroup dot on hand-laid-out shared operands, run in the SIMT
kernel interpreter on 4 and 8 warps, against numpy."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.builder import Builder, InsertPoint
from xdsl.dialects import func, gpu
from xdsl.dialects.builtin import IndexType, ModuleOp, VectorType, f16, f32
from xdsl.ir import Block, Region

from llc.dialects import simt
from llc.dialects.simt_kernel_interpreter import GlobalMemory, make_kernel_interpreter
from llc.errors import LayoutError
from llc.layouts.shared import NvmmaSharedLayout
from llc.passes.lower_wgmma import SharedTile, emit_warpgroup_dot, plan_warpgroup_dot
from llc.testing.wgmma_tiles import _a_registers, _acc_registers, _image, _raw


def _run(num_warps: int, a_in_registers: bool, a_swizzle: int, b_swizzle: int, b_trans: bool):
    rng = np.random.default_rng(num_warps + a_swizzle + b_swizzle)
    m, k, n = 64 * (num_warps // 4), 64, 64
    a = rng.integers(-8, 9, size=(m, k)) / 4.0
    b = rng.integers(-8, 9, size=(k, n)) / 4.0
    a_tile = SharedTile(NvmmaSharedLayout(a_swizzle, False, 16), (m, k), 0)
    b_base = 0 if a_in_registers else m * k * 2
    b_tile = SharedTile(NvmmaSharedLayout(b_swizzle, b_trans, 16), (k, n), b_base)
    buffer = np.zeros(b_base + k * n * 2, dtype=np.uint8)
    if not a_in_registers:
        buffer[: m * k * 2] = _image(a_tile.layout.to_linear_layout([m, k]), _raw(a, "f16"))
    buffer[b_base:] = _image(b_tile.layout.to_linear_layout([k, n]), _raw(b, "f16"))
    threads = 32 * num_warps
    stores = buffer.view(np.uint16).reshape(-1, threads, 8)
    acc_type = VectorType(f32, [n // 2])
    types = [VectorType(f16, [8]), IndexType()] * stores.shape[0] + [acc_type]
    if a_in_registers:
        types.append(VectorType(f16, [8 * k // 16]))
    block = Block(arg_types=types)
    builder = Builder(InsertPoint.at_end(block))
    smem = builder.insert(simt.SharedAllocOp(buffer.size, 1024)).result
    args: list = []
    for j in range(stores.shape[0]):
        builder.insert(simt.SharedStoreOp(block.args[2 * j], smem, block.args[2 * j + 1]))
        args += [stores[j].view(np.float16), (j * threads + np.arange(threads)) * 16]
    builder.insert(simt.FenceAsyncSharedOp())
    builder.insert(gpu.BarrierOp())
    c = rng.integers(-4, 5, size=(m, n)).astype(np.float64)
    args.append(np.concatenate([_acc_registers(c[64 * g :], n) for g in range(m // 64)]))
    a_value = a_tile
    if a_in_registers:
        a_value = block.args[-1]
        # each K step's fragment (PTX ISA order), the steps one after another
        steps = [
            np.concatenate([_a_registers(a[64 * g :, 16 * s :], "f16") for g in range(m // 64)])
            for s in range(k // 16)
        ]
        args.append(np.concatenate(steps, axis=1).view(np.float16))
    acc = block.args[2 * stores.shape[0]]
    result = emit_warpgroup_dot(builder, smem, a_value, b_tile, acc, f16, num_warps)
    builder.insert(func.ReturnOp(result))
    fn = func.FuncOp("dot", (types, [acc_type]), Region(block))
    module = ModuleOp([fn])
    module.verify()
    interp, _ = make_kernel_interpreter(module, num_warps, 32, GlobalMemory())
    (out,) = interp.call_op("dot", tuple(args))
    want = a @ b + c
    expected = np.concatenate([_acc_registers(want[64 * g :], n) for g in range(m // 64)])
    return np.asarray(out, dtype=np.float32), expected.astype(np.float32), module


@pytest.mark.parametrize(
    ("num_warps", "a_regs", "a_swizzle", "b_swizzle", "b_trans"),
    [(4, False, 128, 128, True), (8, False, 128, 64, False), (8, False, 64, 32, True)],
)
def test_warpgroup_dot_from_shared(num_warps, a_regs, a_swizzle, b_swizzle, b_trans) -> None:
    got, want, module = _run(num_warps, a_regs, a_swizzle, b_swizzle, b_trans)
    np.testing.assert_array_equal(got, want)
    names = [op.name for op in module.walk()]
    assert names.count("simt.wgmma") == 4  # K = 64 in four k16 steps
    assert names.index("simt.wgmma_fence") < names.index("simt.wgmma")
    assert names.count("gpu.subgroup_id") == (num_warps > 4)


def test_warpgroup_dot_a_from_registers() -> None:
    got, want, module = _run(4, True, 128, 128, True)
    np.testing.assert_array_equal(got, want)
    assert [op.name for op in module.walk()].count("vector.shuffle") == 4


def test_warpgroup_dot_refuses_what_wgmma_cannot_do() -> None:
    a = SharedTile(NvmmaSharedLayout(128, False, 16), (64, 64), 0)
    b = SharedTile(NvmmaSharedLayout(128, True, 16), (64, 64), 8192)
    with pytest.raises(LayoutError, match="2 warpgroup"):
        plan_warpgroup_dot(a, b, 16, num_warps=8)
    with pytest.raises(LayoutError, match="whole warpgroups"):
        plan_warpgroup_dot(a, b, 16, num_warps=2)
    wide = SharedTile(NvmmaSharedLayout(128, True, 16), (64, 512), 8192)
    with pytest.raises(LayoutError, match="at most 256"):
        plan_warpgroup_dot(a, wide, 16, num_warps=4)
