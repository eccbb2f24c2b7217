"""``tl.convert_layout`` folds under ``canonicalize``; the memory effects that let ``dce`` work."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.traits import MemoryEffect, Pure

from llc.dialects import tl
from llc.testing.semantics import apply_pipeline, check_pipeline, parse

LIT_FILE = Path(__file__).resolve().parents[1] / "lit" / "transforms" / "canonicalize.mlir"

NOT_PURE = {
    "tl.load": "MemoryReadEffect",
    "tl.store": "MemoryWriteEffect",
    "tl.reduce": "RecursiveMemoryEffect",
    "tl.local_alloc": "MemoryAllocEffect",
    "tl.local_load": "MemoryReadEffect",
    "tl.local_store": "MemoryWriteEffect",
    "tl.local_dealloc": "MemoryFreeEffect",
    # Ops imported from Triton (dialects/ttgir.py)
    "tl.warp_group_dot": "MemoryReadEffect",
    "tl.warp_group_dot_wait": "MemoryReadEffect",
    "tl.fence_async_shared": "MemoryWriteEffect",
    "tl.atomic_rmw": "MemoryReadEffect,MemoryWriteEffect",
    "tl.atomic_cas": "MemoryReadEffect,MemoryWriteEffect",
    "tl.print": "MemoryWriteEffect",
    "tl.assert": "MemoryWriteEffect",
    "tl.scan": "RecursiveMemoryEffect",
    "tl.map_elementwise": "RecursiveMemoryEffect",  # its body decides
    "tl.elementwise_inline_asm": "PureIfMarked",
    "tl.extern_elementwise": "PureIfMarked",
    "tl.descriptor_load": "MemoryReadEffect",
    "tl.descriptor_store": "MemoryWriteEffect",
    "tl.descriptor_gather": "MemoryReadEffect",
    "tl.descriptor_scatter": "MemoryWriteEffect",
    "tl.opaque": "",  # an op llc does not model: no declared effect, so xDSL assumes any
    # Asynchronous copies (tokens or not): never removed as dead, never reordered
    "tl.async_copy_global_to_local": "MemoryWriteEffect,MemoryReadEffect",
    "tl.async_commit_group": "MemoryWriteEffect",
    "tl.async_wait": "MemoryWriteEffect",
    # Warp specialization: what its default region and partitions do
    "tl.warp_specialize": "RecursiveMemoryEffect",
}


@pytest.mark.parametrize("op", tl.TL_OPS, ids=lambda op: op.name)
def test_every_tl_op_declares_its_memory_effects(op: type) -> None:
    effects = [type(t).__name__ for t in op.get_traits_of_type(MemoryEffect)]
    assert effects == [e for e in NOT_PURE.get(op.name, Pure.__name__).split(",") if e]


def test_dce_removes_dead_side_effect_free_ops_only() -> None:
    module = parse(
        """
        module attributes {"tl.num-warps" = 4 : i32} {
          func.func @f(%p: tensor<64x!tl.ptr<f32>>, %s: f32) {
            %x = tl.load %p : tensor<64x!tl.ptr<f32>>
            %r = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
            %f = tl.sitofp %r : tensor<64xi32> to tensor<64xf32>
            %c = tl.constant 1.0 : tensor<64xf32>
            %sp = tl.splat %s : f32 -> tensor<64xf32>
            %m = tl.cmpf olt, %f, %c : tensor<64xf32>
            %sel = tl.select %m, %sp, %x : tensor<64xi1>, tensor<64xf32>
            %e = tl.expand_dims %sel {axis = 0 : i32} : tensor<64xf32> -> tensor<1x64xf32>
            %b = tl.broadcast %e : tensor<1x64xf32> -> tensor<8x64xf32>
            %t = tl.trans %b {order = array<i32: 1, 0>} : tensor<8x64xf32> -> tensor<64x8xf32>
            %h = arith.truncf %t : tensor<64x8xf32> to tensor<64x8xf16>
            %h2 = tl.reshape %h : tensor<64x8xf16> -> tensor<8x64xf16>
            %z = tl.constant 0.0 : tensor<64x64xf32>
            %d = tl.dot %h, %h2, %z : tensor<64x8xf16> * tensor<8x64xf16> -> tensor<64x64xf32>
            %red = tl.reduce %d {axis = 0 : i32} : tensor<64x64xf32> -> tensor<64xf32> {
            ^bb0(%a: f32, %a2: f32):
              %s2 = arith.addf %a, %a2 : f32
              tl.reduce.return %s2 : f32
            }
            %pid = tl.get_program_id x : i32
            tl.store %p, %sp : tensor<64x!tl.ptr<f32>>
            func.return
          }
        }
        """
    )
    apply_pipeline(module, "dce")
    assert [op.name for op in module.walk()][2:] == ["tl.splat", "tl.store", "func.return"]


def _lit_functions() -> list[tuple[str, str]]:
    chunks = LIT_FILE.read_text().split("// -----")
    return [
        (chunk, line.split("@")[1].split("(")[0])
        for chunk in chunks
        for line in chunk.splitlines()
        if line.strip().startswith("func.func @")
    ]


@pytest.mark.parametrize("chunk, entry", _lit_functions(), ids=lambda x: x if "{" not in x else "")
def test_folds_keep_values(chunk: str, entry: str) -> None:
    """Each function of the lit test computes the same after ``canonicalize`` (random inputs)."""
    out = check_pipeline(chunk, "canonicalize", entry=entry, seeds=(0, 1))
    func = out.split(f"@{entry}(")[1].split("func.func @")[0]
    assert func.count("tl.convert_layout") <= 1
