"""Random wgmma tiles for translation validation: operands stored through a shared layout,
one ``simt.wgmma`` chain per tile, and numpy's matmul as the reference.

A :class:`TileSpec` names the element type, N, where A comes from, and each shared operand's
layout (an ``nvmma_shared`` layout, or a core-matrix "interleave" layout for swizzle 0).
:func:`build_tile` turns it into a SIMT kernel: every thread stores 16-byte chunks of the
operands' shared image, ``simt.fence_async_shared``, ``gpu.barrier``, ``simt.wgmma_fence``,
one ``simt.wgmma`` per K step (descriptors advanced along K), commit and wait.
:func:`run_tile` runs it on one warpgroup and returns the accumulator and the reference.

The expected accumulator is placed with the PTX ISA's m64nNk fragment formula, and A's registers
too: independent of the linear layouts the interpreter uses.

>>> spec = TileSpec("f16", n=16, a_regs=False, a_swizzle=128, a_trans=False,
...                 b_swizzle=32, b_trans=True)
>>> got, want = run_tile(spec, np.random.default_rng(0))
>>> bool((got == want).all())
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from xdsl.builder import Builder, InsertPoint
from xdsl.dialects import arith, func, gpu
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    VectorType,
    f32,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Region

from llc.dialects import simt
from llc.layouts.shared import NvmmaSharedLayout
from llc.linear_layout import LinearLayout
from llc.wgmma import SharedOperand, WgmmaDescriptor, instruction_k, operand_descriptor

__all__ = ["TYPES", "TileSpec", "build_tile", "draw_spec", "interleaved_layout", "run_tile"]

TYPES: dict[str, tuple[Attribute, int]] = {
    "f16": (Float16Type(), 16),
    "bf16": (BFloat16Type(), 16),
    "tf32": (Float32Type(), 32),
    "e4m3": (Float8E4M3FNType(), 8),
    "e5m2": (Float8E5M2Type(), 8),
    "i8": (IntegerType(8), 8),
}
"""Element type names -> (xDSL type, bits)."""


@dataclass(frozen=True)
class TileSpec:
    """One wgmma tile: ``m64nN`` of ``dtype``; A from registers or shared (swizzle bytes,
    ``trans`` = M-major), B from shared (``trans`` = K-major, i.e. transposed ``[K, N]``).
    ``plant`` breaks one thing: ``"no_fence"``, ``"no_barrier"``, ``"no_wgmma_fence"``,
    ``"no_commit"``, ``"no_wait"`` (and a store over the operands before the missing wait),
    ``"overwrite_in_flight"`` (that store before the wait), ``"swap_b_strides"``."""

    dtype: str
    n: int
    a_regs: bool
    a_swizzle: int
    a_trans: bool
    b_swizzle: int
    b_trans: bool
    plant: str = ""


def interleaved_layout(
    mn: int, k: int, element_bits: int, k_major: bool, operand: str, rng: np.random.Generator
) -> LinearLayout:
    """A swizzle-0 core-matrix layout (8 rows of 16 contiguous bytes per core matrix), the
    remaining K and M/N bits in a random order (so LBO and SBO vary).

    >>> L = interleaved_layout(64, 16, 16, True, "a", np.random.default_rng(1))
    >>> L.get_out_dim_size("dim0"), L.get_out_dim_size("dim1")
    (64, 16)
    """
    per16 = 128 // element_bits
    kinst = instruction_k(element_bits)
    # a core matrix: 16 bytes along the major dim, 8 along the other
    fast, slow = ("k", "mn") if k_major else ("mn", "k")
    bits: list[tuple[str, int]] = [(fast, 1 << i) for i in range(per16.bit_length() - 1)]
    bits += [(slow, 1 << i) for i in range(3)]

    def run(name: str, lo: int, hi: int) -> list[tuple[str, int]]:
        out, v = [], lo
        while v < hi:
            out.append((name, v))
            v *= 2
        return out

    # the LBO step (K within one instruction), the SBO run (M/N), the K of later instructions:
    # each a consecutive run, in a random order
    blocks = [
        run("k", per16 if k_major else 8, kinst),
        run("mn", 8 if k_major else per16, mn),
        run("k", kinst, k),
    ]
    for i in rng.permutation(3):
        bits += blocks[i]

    def basis(name: str, value: int) -> list[int]:
        mn_v, k_v = (value, 0) if name == "mn" else (0, value)
        return [mn_v, k_v] if operand == "a" else [k_v, mn_v]

    return LinearLayout.from_bases(
        [("offset", [basis(name, value) for name, value in bits])], ["dim0", "dim1"]
    )


def _layout(
    swizzle: int, trans: bool, bits: int, shape: tuple[int, int], operand: str, rng: Any
) -> Any:
    k_major = (not trans) if operand == "a" else trans
    if swizzle == 0:
        mn, k = (shape[0], shape[1]) if operand == "a" else (shape[1], shape[0])
        return interleaved_layout(mn, k, bits, k_major, operand, rng)
    return NvmmaSharedLayout(swizzle, trans, bits).to_linear_layout(list(shape))


def draw_spec(rng: np.random.Generator, dtypes: tuple[str, ...] = tuple(TYPES)) -> TileSpec:
    """A random tile: N a multiple of 8 in 8..256, every swizzle mode, both majornesses where
    the type allows (f16/bf16), A from registers or shared.

    >>> draw_spec(np.random.default_rng(3)).dtype in TYPES
    True
    """
    weights = np.array([3.0 if TYPES[t][1] == 16 else 1.5 for t in dtypes])
    dtype = str(rng.choice(dtypes, p=weights / weights.sum()))
    bits = TYPES[dtype][1]
    a_regs = rng.integers(3) == 0
    a_trans = bool(rng.integers(2)) and bits == 16 and not a_regs
    b_trans = bool(rng.integers(2)) if bits == 16 else True
    a_swizzle = int(rng.choice([0, 32, 64, 128]))
    b_swizzle = int(rng.choice([0, 32, 64, 128]))
    n = 8 * int(rng.integers(1, 33))
    if not b_trans and b_swizzle:
        # an N-major swizzled B needs a whole swizzle row along N
        n = max(n, 8 * b_swizzle // bits)
    return TileSpec(dtype, n, a_regs, a_swizzle, a_trans, b_swizzle, b_trans)


def _values(dtype: str, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Exactly representable values whose products sum exactly in f32 (or i32)."""
    if dtype == "i8":
        return rng.integers(-128, 128, size=shape).astype(np.float64)
    return rng.integers(-8, 9, size=shape) / 4.0


def _raw(values: np.ndarray, dtype: str) -> np.ndarray:
    """Raw bits (uint) of ``values`` in ``dtype``."""
    if dtype == "f16":
        return values.astype(np.float16).view(np.uint16)
    if dtype == "bf16":
        return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    if dtype == "tf32":
        return values.astype(np.float32).view(np.uint32)
    if dtype in ("e4m3", "e5m2"):
        from llc.mxfp import encode

        return encode(values.astype(np.float32), "e4m3fn" if dtype == "e4m3" else dtype).astype(
            np.uint8
        )
    return values.astype(np.int8).view(np.uint8)


@dataclass
class Tile:
    """A built tile: the module, its kernel's arguments, and the operands it multiplies."""

    module: ModuleOp
    args: tuple[Any, ...]
    a: np.ndarray
    b: np.ndarray
    c: np.ndarray
    a_operand: SharedOperand | None
    b_operand: SharedOperand


def _k_tile(spec: TileSpec, bits: int) -> int:
    k = instruction_k(bits)
    e = bits // 8
    if not spec.a_regs and not spec.a_trans:
        k = max(k, spec.a_swizzle // e)
    if spec.b_trans:
        k = max(k, spec.b_swizzle // e)
    if (spec.a_trans and spec.a_swizzle == 0) or (not spec.b_trans and spec.b_swizzle == 0):
        k = max(k, 16)  # an M/N-major core matrix holds 8 K rows; take two
    return k


def build_tile(spec: TileSpec, rng: np.random.Generator) -> Tile:
    """The SIMT kernel of ``spec`` on one warpgroup, and its operands."""
    typ, bits = TYPES[spec.dtype]
    e = bits // 8
    kinst = instruction_k(bits)
    ktile = _k_tile(spec, bits)
    n = spec.n
    npad = 1 << (n - 1).bit_length()  # linear layouts cover powers of two; wgmma reads n
    a = _values(spec.dtype, (64, ktile), rng)
    b = _values(spec.dtype, (ktile, npad), rng)
    c = _values("i8" if spec.dtype == "i8" else "f16", (64, n), rng)
    image: list[tuple[int, np.ndarray]] = []
    offset = 0
    a_op = None
    if not spec.a_regs:
        la = _layout(spec.a_swizzle, spec.a_trans, bits, (64, ktile), "a", rng)
        a_op = operand_descriptor(la, (64, ktile), bits, "a", base=0)
        image.append((0, _image(la, _raw(a, spec.dtype))))
        offset = -(-64 * ktile * e // 1024) * 1024
    lb = _layout(spec.b_swizzle, spec.b_trans, bits, (ktile, npad), "b", rng)
    b_op = operand_descriptor(lb, (ktile, npad), bits, "b", base=offset, n=n)
    image.append((offset, _image(lb, _raw(b, spec.dtype))))
    total = offset + ktile * npad * e
    chunk = 128 * 16
    size = -(-total // chunk) * chunk
    buffer = np.zeros(size, dtype=np.uint8)
    for start, data in image:
        buffer[start : start + data.size] = data
    stores = buffer.reshape(size // chunk, 128, 16 // e * e).view(
        {1: np.uint8, 2: np.uint16, 4: np.uint32}[e]
    )

    acc_type = VectorType(i32 if spec.dtype == "i8" else f32, [n // 2])
    store_type = VectorType(typ, [16 // e])
    a_reg_type = VectorType(typ, [4 * 32 // bits])
    arg_types: list[Attribute] = []
    for _ in range(stores.shape[0]):
        arg_types += [store_type, IndexType()]
    arg_types.append(acc_type)
    steps = ktile // kinst
    if spec.a_regs:
        arg_types += [a_reg_type] * steps
    block = Block(arg_types=arg_types)
    b_ = Builder(InsertPoint.at_end(block))
    smem_type = simt.SharedMemoryType(size, 1024)
    smem = b_.insert(simt.SharedAllocOp(size, 1024)).result
    args: list[Any] = []
    tid = np.arange(128)
    for j in range(stores.shape[0]):
        value, addr = block.args[2 * j], block.args[2 * j + 1]
        b_.insert(simt.SharedStoreOp(value, smem, addr))
        args += [stores[j], (j * 128 + tid) * 16]
    if spec.plant != "no_fence":
        b_.insert(simt.FenceAsyncSharedOp())
    if spec.plant != "no_barrier":
        b_.insert(gpu.BarrierOp())
    acc_arg = block.args[2 * stores.shape[0]]
    c_regs = _acc_registers(c, n)
    args.append(c_regs.astype(np.int32 if spec.dtype == "i8" else np.float32))
    if spec.plant != "no_wgmma_fence":
        b_.insert(simt.WgmmaFenceOp())
    acc = acc_arg
    b_desc_fields = b_op
    for step in range(steps):
        k0 = step * kinst
        bd = b_desc_fields.at(0, k0)
        if spec.plant == "swap_b_strides":
            bd = replace(bd, lbo=bd.sbo, sbo=bd.lbo)
        b_val = _desc_constant(b_, bd)
        if spec.a_regs:
            a_val = block.args[2 * stores.shape[0] + 1 + step]
            args.append(_a_registers(a[:, k0 : k0 + kinst], spec.dtype))
        else:
            assert a_op is not None
            a_val = _desc_constant(b_, a_op.at(0, k0))
        acc = b_.insert(
            simt.WgmmaOp(
                a_val,
                b_val,
                acc,
                smem,
                n,
                typ,
                typ,
                trans_a=spec.a_trans,
                trans_b=not b_op.k_major,
            )
        ).result
    if spec.plant != "no_commit":
        b_.insert(simt.WgmmaCommitGroupOp())
    if spec.plant in ("no_wait", "overwrite_in_flight"):
        # a barrier, then a store over the operands while the wgmma may still read them
        b_.insert(gpu.BarrierOp())
        b_.insert(simt.SharedStoreOp(block.args[0], smem, block.args[1]))
    if spec.plant != "no_wait":
        acc = b_.insert(simt.WgmmaWaitGroupOp(0, [acc])).results[0]
    b_.insert(func.ReturnOp(acc))
    del smem_type
    fn = func.FuncOp("tile", (arg_types, [acc_type]), Region(block))
    return Tile(ModuleOp([fn]), tuple(args), a, b[:, :n], c, a_op, b_op)


def _desc_constant(b_: Builder, desc: WgmmaDescriptor) -> Any:
    value = desc.encode()
    signed = value - (1 << 64) if value >= 1 << 63 else value
    return b_.insert(arith.ConstantOp(IntegerAttr(signed, i64))).result


def _image(layout: LinearLayout, raw: np.ndarray) -> np.ndarray:
    """The layout's bytes: offset ``o`` holds element ``layout(o)``."""
    images = layout.apply_all()
    elements = raw[images["dim0"], images["dim1"]]
    return np.ascontiguousarray(elements).view(np.uint8)


def _acc_registers(c: np.ndarray, n: int) -> np.ndarray:
    """``(128, n/2)``: the m64nN accumulator fragment of the PTX ISA (warp ``w`` holds rows
    ``16w..16w+15``; register ``i`` of lane ``l`` is row ``l/4 + 8 (i/2 % 2)``, column
    ``2 (l % 4) + i % 2 + 8 (i / 4)``)."""
    t = np.arange(128)[:, None]
    i = np.arange(n // 2)[None, :]
    lane = t % 32
    rows = 16 * (t // 32) + lane // 4 + 8 * ((i // 2) % 2)
    cols = 2 * (lane % 4) + i % 2 + 8 * (i // 4)
    return c[rows, cols]


def _a_registers(a: np.ndarray, dtype: str) -> np.ndarray:
    """A's fragment ``(128, R)`` (raw bits) by the PTX ISA: 4 registers of 32 bits, each
    ``kw = 32 / width`` consecutive K elements; register ``j`` of lane ``l`` holds row
    ``l/4 + 8 (j % 2)``, K ``kw (l % 4) + 4 kw (j / 2)``."""
    bits = TYPES[dtype][1]
    kw = 32 // bits
    t = np.arange(128)[:, None]
    r = np.arange(4 * kw)[None, :]
    j, el = r // kw, r % kw
    lane = t % 32
    rows = 16 * (t // 32) + lane // 4 + 8 * (j % 2)
    ks = kw * (lane % 4) + el + 4 * kw * (j // 2)
    return _raw(a[rows, ks], dtype)


def run_tile(spec: TileSpec, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Run the tile on one warpgroup: (accumulator registers, expected registers)."""
    from llc.dialects.simt_interpreter import make_simt_interpreter

    tile = build_tile(spec, rng)
    interp, _ = make_simt_interpreter(tile.module, 4, 32)
    (out,) = interp.call_op("tile", tile.args)
    want = tile.a.astype(np.float64) @ tile.b.astype(np.float64) + tile.c
    dtype = np.int32 if spec.dtype == "i8" else np.float32
    return np.asarray(out), _acc_registers(want, spec.n).astype(dtype)
