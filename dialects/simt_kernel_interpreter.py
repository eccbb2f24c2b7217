"""The SIMT interpreter for whole lowered kernels (issue 11).

Extends :class:`llc.dialects.simt_interpreter.SimtFunctions` (one CTA, every SSA value holds all
threads at once) with what kernels need beyond conversions:

* arith/math/``simt.cast`` on register vectors: a ``vector<R x T>`` value is an array
  ``(threads, R)`` of ``T``'s numpy type (the conversion ops keep raw bits; they are viewed back
  as ``T`` on use), a per-thread scalar an array ``(threads,)``, a uniform scalar a numpy scalar;
* global memory: every ``!tl.ptr`` buffer sits at its own base address (buffer ``k`` at
  ``(k + 1) << 40``); ``simt.global_load`` / ``simt.global_store`` check alignment to the access
  size and bounds for every active thread, and count 32-byte sectors per warp access;
* ``simt.mma_m16n8k16`` with the PTX ISA's fragment layout;
* 8-bit floats (``f8E4M3FN``, ``f8E5M2``) as bytes: registers hold their codes (``uint8``), so
  data movement (shuffles, shared memory, 1-byte global accesses) moves bytes; arithmetic and
  casts decode them exactly (:mod:`llc.mxfp`) and round results back to nearest-even. A kernel
  reaches the caller's f8 buffer (float32 values rounded to the format, as at the tensor level)
  through a byte copy that every store writes through;
* ``bf16`` buffers as 16-bit raw words, as in the PTX: a kernel reaches the caller's bf16 buffer
  (float32 values rounded to bf16, as at the tensor level) through a ``uint16`` copy that every
  store writes through; registers hold bf16 values in float32, arithmetic computes in float32 and
  rounds each result to nearest even, as the PTX does (``cvt.rn.bf16.f32``);
* ``tl.get_program_id`` / ``tl.get_num_programs`` (one CTA per program id: setting
  :attr:`KernelFunctions.program_id` starts a CTA with uninitialized shared memory), ``scf`` with
  uniform conditions and bounds (checked).

>>> KERNEL_BUFFER_SHIFT
40
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import arith, scf, vector
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float8E4M3FNType,
    Float8E5M2Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    VectorType,
)
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    impl_terminator,
    register_impls,
)
from xdsl.interpreters.scf import ScfFunctions
from xdsl.ir import Attribute, Operation

from llc.dialects import simt, tl
from llc.dialects.simt_interpreter import (
    CpAsyncTracker,
    SimtError,
    SimtFunctions,
    WgmmaTracker,
)
from llc.dialects.tl_interpreter import ELEMENTWISE_FUNCTIONS, Buffer, Pointer, numpy_dtype
from llc.dialects.xdsl_private import diagnostics_pass_through, import_submodule

FuncFunctions = import_submodule("xdsl.interpreters.func").FuncFunctions

__all__ = [
    "KERNEL_BUFFER_SHIFT",
    "GlobalMemory",
    "KernelFunctions",
    "bf16_bits",
    "bf16_values",
    "make_kernel_interpreter",
    "memory_format",
]

KERNEL_BUFFER_SHIFT = 40


def _scalar_type(typ: Attribute) -> Attribute:
    return typ.element_type if isinstance(typ, VectorType) else typ


def f8_format(typ: Attribute) -> str | None:
    """The :mod:`llc.mxfp` format name of an 8-bit float (scalar or vector) type, else None.

    >>> from xdsl.dialects.builtin import Float8E5M2Type, f16
    >>> f8_format(VectorType(Float8E5M2Type(), [2])), f8_format(f16)
    ('e5m2', None)
    """
    t = _scalar_type(typ)
    if isinstance(t, Float8E4M3FNType):
        return "e4m3fn"
    if isinstance(t, Float8E5M2Type):
        return "e5m2"
    return None


def memory_format(typ: Attribute) -> str | None:
    """How global memory holds elements of ``typ`` when their registers do not: ``"bf16"``
    (16-bit raw words) or an 8-bit float format (bytes); ``None`` for every other type.

    >>> from xdsl.dialects.builtin import bf16, f32
    >>> memory_format(bf16), memory_format(Float8E4M3FNType()), memory_format(f32)
    ('bf16', 'e4m3fn', None)
    """
    if isinstance(_scalar_type(typ), BFloat16Type):
        return "bf16"
    return f8_format(typ)


def bf16_bits(values: Any) -> np.ndarray:
    """The raw 16 bits (``uint16``) of values rounded to bf16 (nearest, ties to even).

    >>> bf16_bits(np.array([1.0, -2.0, 1.01171875, 1.0068359375], np.float32)).tolist()
    [16256, 49152, 16258, 16257]
    """
    from llc.dialects.tl_interpreter import round_bf16

    rounded = round_bf16(np.asarray(values, dtype=np.float32))
    return (np.ascontiguousarray(rounded).view(np.uint32) >> 16).astype(np.uint16)


def bf16_values(bits: Any) -> np.ndarray:
    """The float32 values of raw bf16 words (the inverse of :func:`bf16_bits`).

    >>> bf16_values(np.array([16256, 49152], np.uint16)).tolist()
    [1.0, -2.0]
    """
    return (np.asarray(bits).astype(np.uint32) << 16).view(np.float32)


def _encode(values: np.ndarray, fmt: str) -> np.ndarray:
    """A :func:`memory_format` copy of float values: bf16 words or f8 codes."""
    from llc.mxfp import encode

    if fmt == "bf16":
        return bf16_bits(values)
    return encode(values.astype(np.float64), fmt).astype(np.uint8)


def _decode(raw: np.ndarray, fmt: str) -> np.ndarray:
    """Float values (float64 for f8, float32 for bf16) of a :func:`memory_format` copy."""
    from llc.mxfp import decode

    return bf16_values(raw) if fmt == "bf16" else decode(raw, fmt)


def numpy_dtype_of(typ: Attribute) -> np.dtype:
    """The numpy dtype of a register of ``typ`` (a scalar or the element of a vector); 8-bit
    floats sit in registers as their codes.

    >>> from xdsl.dialects.builtin import Float8E4M3FNType, VectorType, f16
    >>> numpy_dtype_of(VectorType(f16, [2])), numpy_dtype_of(Float8E4M3FNType())
    (dtype('float16'), dtype('uint8'))
    """
    if f8_format(typ) is not None:
        return np.dtype(np.uint8)
    return numpy_dtype(_scalar_type(typ))


def _f8_codes(value: Any, fmt: str) -> np.ndarray:
    """Codes of 8-bit float register values: bytes (``uint8``) stay, numbers (integers too)
    are rounded through float32, as the tensor-level interpreter does."""
    from llc.mxfp import encode

    arr = np.asarray(value)
    if arr.dtype == np.uint8:
        return arr
    with np.errstate(all="ignore"):
        return encode(arr.astype(np.float32), fmt).astype(np.uint8)


def _raw(value: Any, typ: Attribute) -> Any:
    """``value`` as it sits in registers: 8-bit float codes as bytes, other types as numbers."""
    fmt = f8_format(typ)
    return typed_value(value, typ) if fmt is None else _f8_codes(value, fmt)


def typed_value(value: Any, typ: Attribute) -> Any:
    """``value`` as numbers of ``typ`` (raw bits from data movement are viewed back; 8-bit float
    codes are decoded to float32).

    >>> from xdsl.dialects.builtin import f32
    >>> typed_value(np.array([0x3F800000], np.uint32), f32)
    array([1.], dtype=float32)
    """
    if isinstance(value, Pointer | Buffer):
        return value
    arr = np.asarray(value)
    fmt = f8_format(typ)
    if fmt is not None:
        from llc.mxfp import decode

        if arr.dtype == np.uint8:
            return decode(arr, fmt).astype(np.float32)
        return arr
    dt = numpy_dtype_of(typ)
    if arr.dtype == dt:
        return value
    if arr.dtype.kind == "u" and arr.dtype.itemsize == dt.itemsize and dt != np.bool_:
        return arr.view(dt)
    if isinstance(_scalar_type(typ), BFloat16Type) and arr.dtype == np.uint16:
        return (arr.astype(np.uint32) << 16).view(np.float32)
    return arr


def _as_result(value: Any, typ: Attribute) -> Any:
    fmt = f8_format(typ)
    if fmt is not None:
        codes = _f8_codes(value, fmt)
        return codes if codes.ndim else codes[()]
    dt = numpy_dtype_of(typ)
    arr = np.asarray(value)
    with np.errstate(all="ignore"):
        if arr.dtype != dt:
            if dt == np.bool_:
                arr = arr != 0
            elif np.issubdtype(dt, np.integer) and np.issubdtype(arr.dtype, np.integer):
                arr = arr.astype(np.int64).astype(dt)
            else:
                arr = arr.astype(dt)
    if isinstance(_scalar_type(typ), BFloat16Type):
        from llc.dialects.tl_interpreter import round_bf16

        arr = round_bf16(arr)
    if isinstance(_scalar_type(typ), IndexType) and arr.ndim == 0:
        return int(arr)
    return arr if arr.ndim else arr[()]


@dataclass
class GlobalMemory:
    """The buffers a kernel reaches through pointers, each at its own base address."""

    buffers: list[Buffer] = field(default_factory=list)
    mirrors: dict[int, tuple[Buffer, str]] = field(default_factory=dict)
    """Index in :attr:`buffers` of a raw copy of a bf16 (16-bit words) or 8-bit float (bytes)
    buffer -> (the caller's float32 buffer, its :func:`memory_format`); stores write through to
    the caller's buffer."""

    def base(self, buffer: Buffer, fmt: str | None = None) -> int:
        """The byte address of ``buffer``'s element 0 (for a :func:`memory_format` ``fmt``, of
        its raw copy).

        >>> memory = GlobalMemory()
        >>> b = Buffer("x", np.array([1.0, -0.5], np.float32))
        >>> memory.base(b, "e4m3fn") == memory.base(b, "e4m3fn") == 1 << KERNEL_BUFFER_SHIFT
        True
        >>> memory.buffers[0].data.tolist()
        [56, 176]
        >>> memory.base(Buffer("y", np.array([1.0], np.float32)), "bf16") >> KERNEL_BUFFER_SHIFT
        2
        >>> memory.buffers[1].data.dtype
        dtype('uint16')
        """
        for k, b in enumerate(self.buffers):
            if b is buffer or (k in self.mirrors and self.mirrors[k][0] is buffer):
                return (k + 1) << KERNEL_BUFFER_SHIFT
        raw_type = np.uint16 if fmt == "bf16" else np.uint8
        if fmt is not None and buffer.data.dtype != raw_type:
            self.mirrors[len(self.buffers)] = (buffer, fmt)
            buffer = Buffer(buffer.name, _encode(buffer.data, fmt), buffer.shape)
        self.buffers.append(buffer)
        return len(self.buffers) << KERNEL_BUFFER_SHIFT

    def write_through(self, index: int, elements: np.ndarray) -> None:
        """After a store to buffer ``index``: update the caller's buffer it mirrors."""
        if index in self.mirrors:
            original, fmt = self.mirrors[index]
            raw = self.buffers[index].data[elements]
            original.data[elements] = _decode(raw, fmt).astype(original.data.dtype)


def lane_array(x: Any, threads: int) -> np.ndarray:
    """``x`` as one value per thread: a uniform scalar is broadcast (read-only view).

    >>> lane_array(7, 3).tolist(), lane_array([1, 2, 3], 3).tolist()
    ([7, 7, 7], [1, 2, 3])
    """
    return np.broadcast_to(np.asarray(x), (threads,))


@register_impls
class KernelFunctions(SimtFunctions):
    """:class:`SimtFunctions` plus the ops of lowered kernels (see the module docstring)."""

    def __init__(self, num_warps: int, threads_per_warp: int, memory: GlobalMemory) -> None:
        super().__init__(num_warps, threads_per_warp)
        self.memory = memory
        self._program_id = (0, 0, 0)
        self.num_programs = (1, 1, 1)
        self.sectors = 0
        self.min_sectors = 0
        self.global_bytes = 0

    @property
    def program_id(self) -> tuple[int, int, int]:
        """The program (CTA) that runs next; setting it starts a new CTA, whose shared memory
        is uninitialized (:meth:`SimtFunctions.new_cta`)."""
        return self._program_id

    @program_id.setter
    def program_id(self, pid: tuple[int, int, int]) -> None:
        self._program_id = pid
        self.new_cta()

    # ------------------------------------------------------------------ constants, program id
    @impl(arith.ConstantOp)
    def run_constant(self, interp: Interpreter, op: arith.ConstantOp, args: PythonValues):
        attr, typ = op.value, op.result.type
        if isinstance(attr, DenseIntOrFPElementsAttr):
            values = np.asarray(attr.get_values()).reshape(attr.get_shape())
            if isinstance(typ, VectorType):
                values = np.broadcast_to(values, (self.threads, *values.shape))
            return (_as_result(values, typ),)
        if isinstance(attr, FloatAttr | IntegerAttr):
            return (_as_result(attr.value.data, typ),)
        raise SimtError(op, f"unsupported constant {attr}")

    @impl(tl.GetProgramIdOp)
    def run_pid(self, interp: Interpreter, op: tl.GetProgramIdOp, args: PythonValues):
        return (np.int32(self.program_id[op.axis.value.data]),)

    @impl(tl.GetNumProgramsOp)
    def run_nprog(self, interp: Interpreter, op: tl.GetNumProgramsOp, args: PythonValues):
        return (np.int32(self.num_programs[op.axis.value.data]),)

    # ------------------------------------------------------------------ register vectors
    @impl(vector.BroadcastOp)
    def run_broadcast(self, interp: Interpreter, op: vector.BroadcastOp, args: PythonValues):
        typ = op.vector.type
        assert isinstance(typ, VectorType)
        n = typ.get_shape()[0]
        x = args[0]
        if isinstance(x, Pointer):
            raise SimtError(op, "broadcast a pointer's address (simt.ptr_to_int) instead")
        arr = np.asarray(x)
        out = np.repeat(arr[:, None], n, 1) if arr.ndim == 1 else np.full((self.threads, n), arr)
        return (_as_result(out, typ),)

    @impl(vector.ExtractOp)
    def run_extract(self, interp: Interpreter, op: vector.ExtractOp, args: PythonValues):
        (pos,) = op.static_position.get_values()
        return (np.asarray(args[0])[:, pos],)

    @impl(simt.CastOp)
    def run_cast(self, interp: Interpreter, op: simt.CastOp, args: PythonValues):
        src_t, dst_t = op.value.type, op.result.type
        x = typed_value(args[0], src_t)
        kind = op.kind.data
        self.stats.count(f"cast.{kind}", src_t.get_shape()[0])  # type: ignore[union-attr]
        with np.errstate(all="ignore"):
            if kind == "bitcast" and isinstance(_scalar_type(dst_t), BFloat16Type):
                # bf16 lives in float32: its 16 bits are the high half of a float32.
                raw = np.ascontiguousarray(x).view(np.uint16).astype(np.uint32) << 16
                out = raw.view(np.float32)
            elif kind == "bitcast" and isinstance(_scalar_type(src_t), BFloat16Type):
                raw = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32) >> 16
                out = raw.astype(np.uint16).view(numpy_dtype_of(dst_t))
            elif kind == "bitcast":
                out = np.ascontiguousarray(_raw(args[0], src_t)).view(numpy_dtype_of(dst_t))
            elif kind in ("extui", "uitofp"):
                bits = numpy_dtype_of(src_t).itemsize * 8
                u = x.astype(np.int64) & ((1 << bits) - 1) if x.dtype != np.bool_ else x
                out = u.astype(np.float64) if kind == "uitofp" else u
            elif kind == "trunci" and numpy_dtype_of(dst_t) == np.bool_:
                out = (x.astype(np.int64) & 1).astype(bool)  # the low bit, as PTX's and.b32 1
            elif kind in ("fptosi", "fptoui"):
                out = np.trunc(x.astype(np.float64))
                out = np.nan_to_num(out).astype(np.int64)
            else:
                out = x
        return (_as_result(out, dst_t),)

    @impl(simt.AssertOp)
    def run_simt_assert(self, interp: Interpreter, op: simt.AssertOp, args: PythonValues):
        from llc.dialects.simt_debug import run_assert

        run_assert(self.threads, op, args[0])
        return ()

    @impl(simt.PrintOp)
    def run_simt_print(self, interp: Interpreter, op: simt.PrintOp, args: PythonValues):
        from llc.dialects.simt_debug import run_print

        run_print(interp, self.threads, op, args[0] if args else None)
        return ()

    @impl(simt.SelectOp)
    def run_simt_select(self, interp: Interpreter, op: simt.SelectOp, args: PythonValues):
        c, a, b = args
        t = op.result.type
        self.stats.count("select", t.get_shape()[0])  # type: ignore[attr-defined]
        return (np.where(np.asarray(c, dtype=bool), typed_value(a, t), typed_value(b, t)),)

    @impl(simt.CompareOp)
    def run_compare(self, interp: Interpreter, op: simt.CompareOp, args: PythonValues):
        from llc.dialects.tl_interpreter import compare_floats, compare_integers

        t = op.lhs.type
        a, b = (typed_value(x, t) for x in args)
        pred = op.predicate.data
        self.stats.count("compare", t.get_shape()[0])  # type: ignore[attr-defined]
        if isinstance(_scalar_type(t), AnyFloat):
            return (np.asarray(compare_floats(pred, a, b)),)
        return (np.asarray(compare_integers(pred, a, b, numpy_dtype_of(t))),)

    # ------------------------------------------------------------------ global memory
    @impl(simt.PtrToIntOp)
    def run_ptr_to_int(self, interp: Interpreter, op: simt.PtrToIntOp, args: PythonValues):
        (p,) = args
        if not isinstance(p, Pointer):
            raise SimtError(op, "operand is not a pointer")
        fmt = memory_format(op.ptr.type.pointee)  # type: ignore[attr-defined]
        base = self.memory.base(p.buffer, fmt)
        size = {None: p.buffer.data.dtype.itemsize, "bf16": 2}.get(fmt, 1)
        return (np.int64(base + int(p.offset) * size),)

    def _access(
        self, op: Operation, addr: Any, mask: Any, nbytes: int, itemsize: int
    ) -> tuple[list[tuple[Buffer, np.ndarray, np.ndarray]], np.ndarray]:
        """Per buffer: (buffer, active thread ids, element index of register 0)."""
        self._last_buffers: list[int] = []
        addr = lane_array(addr, self.threads).astype(np.int64)
        active = lane_array(mask, self.threads).astype(bool)
        if (addr[active] % nbytes).any():
            t = int(np.flatnonzero(active & (addr % nbytes != 0))[0])
            raise SimtError(
                op,
                f"misaligned {nbytes * 8}-bit access: thread {t} address "
                f"{_fmt(int(addr[t]))} is not a multiple of {nbytes}",
            )
        self._count_sectors(addr, active, nbytes)
        out = []
        which = addr >> KERNEL_BUFFER_SHIFT
        for k in np.unique(which[active]):
            if not 1 <= k <= len(self.memory.buffers):
                t = int(np.flatnonzero(active & (which == k))[0])
                raise SimtError(
                    op, f"thread {t} accesses address {_fmt(int(addr[t]))}, outside every buffer"
                )
            buf = self.memory.buffers[int(k) - 1]
            threads = np.flatnonzero(active & (which == k))
            offset = addr[threads] - (int(k) << KERNEL_BUFFER_SHIFT)
            if buf.data.dtype.itemsize != itemsize:
                raise SimtError(
                    op, f"buffer '{buf.name}' holds {buf.data.dtype}, accessed as {itemsize}-byte"
                )
            elem = offset // itemsize
            n = nbytes // itemsize
            bad = (elem < 0) | (elem + n > buf.data.size)
            if bad.any():
                t = int(threads[np.flatnonzero(bad)[0]])
                e = int(elem[np.flatnonzero(bad)[0]])
                raise SimtError(
                    op,
                    f"out-of-bounds access: thread {t} reads/writes elements {e}..{e + n - 1} of "
                    f"buffer '{buf.name}' ({buf.data.size} elements)",
                )
            out.append((buf, threads, elem))
            self._last_buffers.append(int(k) - 1)
        return out, active

    def _count_sectors(self, addr: np.ndarray, active: np.ndarray, nbytes: int) -> None:
        for w in range(self.num_warps):
            sl = slice(w * self.threads_per_warp, (w + 1) * self.threads_per_warp)
            a = addr[sl][active[sl]]
            if not a.size:
                continue
            first = a // 32
            last = (a + nbytes - 1) // 32
            sectors = np.unique(np.concatenate([first, last]))
            self.sectors += int(sectors.size)
            self.global_bytes += int(np.unique(a).size) * nbytes
            self.min_sectors += -(-int(np.unique(a).size) * nbytes // 32)

    @impl(simt.GlobalLoadOp)
    def run_global_load(self, interp: Interpreter, op: simt.GlobalLoadOp, args: PythonValues):
        addr, mask, other = args
        typ = op.result.type
        assert isinstance(typ, VectorType)
        n = typ.get_shape()[0]
        dt = numpy_dtype_of(typ)
        itemsize = simt.bit_width(typ.element_type) // 8
        out = np.array(np.broadcast_to(_raw(other, typ), (self.threads, n)), dtype=dt)
        groups, _ = self._access(op, addr, mask, n * itemsize, itemsize)
        for buf, threads, elem in groups:
            got = buf.data[elem[:, None] + np.arange(n)]
            out[threads] = bf16_values(got) if got.dtype == np.uint16 and dt != got.dtype else got
        self.stats.count(f"ld.global.b{n * itemsize * 8}")
        return (out,)

    @impl(simt.GlobalStoreOp)
    def run_global_store(self, interp: Interpreter, op: simt.GlobalStoreOp, args: PythonValues):
        value, addr, mask = args
        typ = op.value.type
        assert isinstance(typ, VectorType)
        n = typ.get_shape()[0]
        itemsize = simt.bit_width(typ.element_type) // 8
        value = np.asarray(_raw(value, typ))
        groups, _ = self._access(op, addr, mask, n * itemsize, itemsize)
        for index, (buf, threads, elem) in zip(self._last_buffers, groups, strict=True):
            idx = elem[:, None] + np.arange(n)
            vals = value[threads]
            if buf.data.dtype == np.uint16 and vals.dtype != np.uint16:
                vals = bf16_bits(vals)  # a bf16 buffer holds raw words
            vals = vals.astype(buf.data.dtype)
            flat, inverse = np.unique(idx.ravel(), return_inverse=True)
            if flat.size != idx.size:  # several threads store one element: they must agree
                seen = np.zeros(flat.size, dtype=vals.dtype)
                seen[inverse] = vals.ravel()
                if not np.array_equal(seen[inverse], vals.ravel(), equal_nan=True):
                    raise SimtError(op, "two threads store different values to one element")
            buf.data[idx] = vals
            self.memory.write_through(index, idx.ravel())
        self.stats.count(f"st.global.b{n * itemsize * 8}")
        return ()

    @impl(simt.AtomicOp)
    def run_atomic(self, interp: Interpreter, op: simt.AtomicOp, args: PythonValues):
        from llc.dialects.simt_atomics import run_atomic

        return run_atomic(self, op, args)

    @impl(simt.MmaK32Op)
    def run_mma_k32(self, interp: Interpreter, op: simt.MmaK32Op, args: PythonValues):
        from llc.dialects.simt_mma import run_mma_k32

        return run_mma_k32(self, op, args)

    @impl(simt.InlineAsmOp)
    def run_inline_asm(self, interp: Interpreter, op: simt.InlineAsmOp, args: PythonValues):
        from llc.dialects.inline_ptx import asm_elementwise

        types = [v.type for v in (*op.args, *op.outs)]
        values = [
            np.broadcast_to(np.asarray(typed_value(a, t)), (self.threads, t.get_shape()[0]))  # type: ignore[attr-defined]
            for a, t in zip(args, types, strict=False)
        ]
        try:
            outs = asm_elementwise(
                op.asm_string.data,
                op.constraints.data,
                values,
                [numpy_dtype_of(t) for t in types],
                op.pack.value.data,
            )
        except ValueError as err:
            raise SimtError(op, str(err)) from None
        self.stats.count("inline_asm")
        return tuple(outs)

    # ------------------------------------------------------------------ mma.sync m16n8k16
    @impl(simt.CpAsyncOp)
    def run_cp_async(self, interp: Interpreter, op: simt.CpAsyncOp, args: PythonValues):
        mem, addr, src, size = args
        nbytes = op.bytes.value.data
        idx = self._bytes(op, mem, addr, nbytes, load=False)
        size = lane_array(size, self.threads).astype(np.int64)
        if ((size < 0) | (size > nbytes)).any():
            t = int(np.flatnonzero((size < 0) | (size > nbytes))[0])
            raise SimtError(op, f"thread {t}: src-size {int(size[t])} is not in [0, {nbytes}]")
        src = lane_array(src, self.threads).astype(np.int64)
        active = size > 0
        if (src[active] % nbytes).any():
            t = int(np.flatnonzero(active & (src % nbytes != 0))[0])
            raise SimtError(
                op, f"thread {t}: source {_fmt(int(src[t]))} is not aligned to {nbytes} bytes"
            )
        self._count_sectors(src, active, nbytes)
        data = np.zeros((self.threads, nbytes), dtype=np.uint8)
        which = src >> KERNEL_BUFFER_SHIFT
        for k in np.unique(which[active]):
            threads = np.flatnonzero(active & (which == k))
            if not 1 <= k <= len(self.memory.buffers):
                t = int(threads[0])
                raise SimtError(
                    op, f"thread {t} copies from {_fmt(int(src[t]))}, outside every buffer"
                )
            buf = self.memory.buffers[int(k) - 1]
            raw = buf.data.reshape(-1).view(np.uint8)
            off = src[threads] - (int(k) << KERNEL_BUFFER_SHIFT)
            bad = (off < 0) | (off + size[threads] > raw.size)
            if bad.any():
                t = int(threads[np.flatnonzero(bad)[0]])
                raise SimtError(
                    op,
                    f"out-of-bounds copy: thread {t} reads {int(size[t])} bytes at byte "
                    f"{int(src[t]) - (int(k) << KERNEL_BUFFER_SHIFT)} of buffer '{buf.name}' "
                    f"({raw.size} bytes)",
                )
            within = np.arange(nbytes)[None, :] < size[threads][:, None]
            pos = np.where(within, off[:, None] + np.arange(nbytes), 0)
            data[threads] = np.where(within, raw[pos], 0)
        self.start_cp_async(op, mem, idx, data)
        return ()

    @impl(simt.MmaOp)
    def run_mma(self, interp: Interpreter, op: simt.MmaOp, args: PythonValues):
        a, b, c = (
            np.asarray(typed_value(x, t))
            for x, t in zip(args, (o.type for o in op.operands), strict=True)
        )
        lanes = self.threads_per_warp
        if lanes != 32:
            raise SimtError(op, "mma.sync needs warps of 32 lanes")
        acc_type = numpy_dtype_of(op.c.type)  # f32, or f16 for .f16.f16.f16.f16 (rounded once)
        out = np.empty((self.threads, 4), dtype=acc_type)
        ra, ca, rb, cb, rc, cc = mma_fragment_coords()
        for w in range(self.num_warps):
            sl = slice(w * 32, (w + 1) * 32)
            A = np.zeros((16, 16))
            B = np.zeros((16, 8))
            C = np.zeros((16, 8))
            A[ra, ca] = a[sl].astype(np.float64)
            B[rb, cb] = b[sl].astype(np.float64)
            C[rc, cc] = c[sl].astype(np.float64)
            D = (A @ B + C).astype(acc_type)
            out[sl] = D[rc, cc]
        self.stats.count("mma.sync.m16n8k16")
        return (out,)


def mma_fragment_coords() -> tuple[np.ndarray, ...]:
    """(row, col) of every (lane, register) of the m16n8k16 fragments, as the PTX ISA gives them
    for ``.f16``/``.bf16`` A and B and ``.f32`` C/D: arrays ``(32, 8)`` for A, ``(32, 4)`` for B
    and C (``groupID = lane >> 2``, ``threadID_in_group = lane % 4``).

    >>> ra, ca, rb, cb, rc, cc = mma_fragment_coords()
    >>> [(int(ra[5, i]), int(ca[5, i])) for i in range(8)]
    [(1, 2), (1, 3), (9, 2), (9, 3), (1, 10), (1, 11), (9, 10), (9, 11)]
    >>> [(int(rc[5, i]), int(cc[5, i])) for i in range(4)]
    [(1, 2), (1, 3), (9, 2), (9, 3)]
    >>> [(int(rb[5, i]), int(cb[5, i])) for i in range(4)]
    [(2, 1), (3, 1), (10, 1), (11, 1)]
    """
    lane = np.arange(32)[:, None]
    group, tig = lane >> 2, lane % 4
    i = np.arange(8)[None, :]
    ra = group + 8 * ((i % 4) >= 2)
    ca = tig * 2 + (i & 1) + 8 * (i >= 4)
    j = np.arange(4)[None, :]
    rb = tig * 2 + (j & 1) + 8 * (j >= 2)
    cb = np.broadcast_to(group, (32, 4))
    rc = group + 8 * (j >= 2)
    cc = tig * 2 + (j & 1)
    return ra, ca, rb, np.array(cb), rc, cc


def _fmt(addr: int) -> str:
    k = addr >> KERNEL_BUFFER_SHIFT
    return f"buffer#{k}+{addr - (k << KERNEL_BUFFER_SHIFT)}"


def _elementwise(op_type: type[Operation], fn: Any) -> Any:
    def run(self: KernelFunctions, interp: Interpreter, op: Operation, args: PythonValues):
        typed = [typed_value(a, o.type) for a, o in zip(args, op.operands, strict=True)]
        if isinstance(op, arith.SelectOp):
            c, x, y = typed
            c = np.asarray(c)
            if c.ndim == 1 and np.ndim(x) == 2:
                c = c[:, None]
            raw = np.where(c, x, y)
        else:
            with np.errstate(all="ignore"):
                raw = fn(op, *typed)
        rtype = op.results[0].type
        width = rtype.get_shape()[0] if isinstance(rtype, VectorType) else 1
        self.stats.count(op.name.split(".", 1)[1], width)
        return (_as_result(raw, rtype),)

    run.__name__ = f"run_{op_type.name.replace('.', '_')}"
    return impl(op_type)(run)


for _cls, _fn in ELEMENTWISE_FUNCTIONS.items():
    # tl.mulhiui is the one tl op that stays itself on register vectors (PTX mul.hi).
    if (_cls.name.startswith(("arith.", "math.")) or _cls is tl.MulhiUIOp) and (
        _cls is not arith.ConstantOp
    ):
        setattr(KernelFunctions, f"run_{_cls.name.replace('.', '_')}", _elementwise(_cls, _fn))
KernelFunctions = register_impls(KernelFunctions)  # type: ignore[misc]


@register_impls
class UniformScfFunctions(ScfFunctions):
    """``scf`` whose conditions and bounds are the same in every thread (checked)."""

    @impl(scf.IfOp)
    def run_if(self, interp: Interpreter, op: scf.IfOp, args: PythonValues):
        cond = np.asarray(args[0])
        if cond.ndim and not (cond == cond.flat[0]).all():
            raise SimtError(op, "the condition differs between threads (divergent scf.if)")
        region = op.true_region if bool(cond.flat[0]) else op.false_region
        if not region.blocks:
            return ()
        return interp.run_ssacfg_region(region, (), "scf.if")

    @impl(scf.ForOp)
    def run_for(self, interp: Interpreter, op: scf.ForOp, args: PythonValues):
        for bound, name in zip(args[:3], ("lower bound", "upper bound", "step"), strict=True):
            b = np.asarray(bound)
            if b.ndim and not (b == b.flat[0]).all():
                raise SimtError(op, f"the {name} differs between threads (divergent scf.for)")
        lb, ub, step = (int(np.asarray(b).flat[0]) for b in args[:3])
        loop_args = tuple(args[3:])
        for i in range(lb, ub, step):
            loop_args = interp.run_ssacfg_region(op.body, (i, *loop_args), "scf.for")
        return loop_args

    @impl(scf.WhileOp)
    def run_while(self, interp: Interpreter, op: scf.WhileOp, args: PythonValues):
        loop_args = tuple(args)
        while True:
            cond, *forwarded = interp.run_ssacfg_region(op.before_region, loop_args, "scf.while")
            c = np.asarray(cond)
            if c.ndim and not (c == c.flat[0]).all():
                raise SimtError(op, "the condition differs between threads (divergent scf.while)")
            if not bool(c.flat[0]):
                return tuple(forwarded)
            loop_args = interp.run_ssacfg_region(op.after_region, tuple(forwarded), "scf.while")

    @impl_terminator(scf.YieldOp)
    def run_yield(self, interp: Interpreter, op: scf.YieldOp, args: PythonValues):
        from xdsl.interpreter import ReturnedValues

        return ReturnedValues(args), ()


_ = (AnyFloat, IntegerType, InterpreterFunctions)


def make_kernel_interpreter(
    module: ModuleOp,
    num_warps: int,
    threads_per_warp: int,
    memory: GlobalMemory,
    listeners: tuple[Any, ...] = (),
) -> tuple[Interpreter, KernelFunctions]:
    """An interpreter running lowered kernels of ``module`` for one CTA."""
    functions = KernelFunctions(num_warps, threads_per_warp, memory)
    # the wgmma tracker reports reads of accumulators still in flight
    interp = Interpreter(
        module, listeners=(*listeners, WgmmaTracker(functions), CpAsyncTracker(functions))
    )
    diagnostics_pass_through(interp)
    interp.register_implementations(functions)
    interp.register_implementations(UniformScfFunctions())
    interp.register_implementations(FuncFunctions())
    return interp, functions
