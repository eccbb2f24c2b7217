"""SIMT-interpreter semantics of ``simt.atomic`` (PTX ``atom.global``), as the PTX ISA states it.

The active threads of one ``simt.atomic`` are serialized in increasing thread index: each reads
its element, gets that old value, and writes the update before the next thread reads -- so
threads that meet at one address see each other's updates, as atomics on the GPU do (in some
order; this one is a valid one). ``atom.add.f32`` flushes subnormal inputs and results to
sign-preserving zero (PTX ISA); ``.f64`` and ``.noftz.f16`` do not. ``cas`` compares bits.

>>> import numpy as np
>>> apply_atomic("add", np.int32(2**31 - 1), np.int32(1), None)
np.int32(-2147483648)
>>> minus1, five = np.int32(-1), np.int32(5)
>>> apply_atomic("umax", minus1, five, None), apply_atomic("max", minus1, five, None)
(np.int32(-1), np.int32(5))
>>> float(apply_atomic("fadd", np.float32(1e-39), np.float32(0.0), None))
0.0
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float64Type, IntegerType
from xdsl.interpreter import PythonValues
from xdsl.ir import Attribute

from llc.dialects import simt
from llc.dialects.simt_interpreter import SimtError
from llc.errors import LayoutError

if TYPE_CHECKING:
    from llc.dialects.simt_kernel_interpreter import KernelFunctions

__all__ = ["apply_atomic", "ptx_atomic_suffix", "run_atomic"]

_FLOATS = (Float16Type, BFloat16Type, Float32Type, Float64Type)


def ptx_atomic_suffix(kind: str, typ: Attribute) -> str:
    """``op.type`` of PTX ``atom`` for a ``simt.atomic`` of ``kind`` on elements of ``typ`` (a
    :class:`~llc.errors.LayoutError` where PTX has no such atomic).

    >>> ptx_atomic_suffix("cas", Float32Type()), ptx_atomic_suffix("min", IntegerType(64))
    ('cas.b32', 'min.s64')
    >>> ptx_atomic_suffix("max", Float32Type())
    Traceback (most recent call last):
    ...
    llc.errors.LayoutError: atomic max on f32: PTX atom has no such form
    """
    bits = simt.bit_width(typ)
    is_float = isinstance(typ, _FLOATS)
    fail = LayoutError(f"atomic {kind} on {typ}: PTX atom has no such form")
    if isinstance(typ, IntegerType) and typ.width.data == 1:
        raise fail
    if kind == "cas":
        if bits not in (16, 32, 64):
            raise fail
        return f"cas.b{bits}"
    if bits not in (32, 64) and not (kind == "fadd" and bits == 16):
        raise fail
    if kind == "fadd":
        if not is_float:
            raise fail
        return (
            f"add.noftz.{'bf16' if isinstance(typ, BFloat16Type) else 'f16'}"
            if bits == 16
            else (f"add.f{bits}")
        )
    if is_float and kind != "exch":
        raise fail
    if kind == "add":
        return f"add.u{bits}"
    if kind in ("max", "min"):
        return f"{kind}.s{bits}"
    if kind in ("umax", "umin"):
        return f"{kind[1:]}.u{bits}"
    return f"{kind}.b{bits}"  # and, or, xor, exch


def _ftz32(x: Any) -> Any:
    tiny = np.finfo(np.float32).tiny
    return np.float32(np.copysign(0.0, x)) if 0 < abs(x) < tiny else x


def apply_atomic(kind: str, old: Any, value: Any, cmp: Any) -> Any:
    """The new value of an element holding ``old`` after a ``kind`` atomic with operand
    ``value`` (and ``cmp`` for ``cas``), in ``old``'s numpy type (see the module docstring)."""
    dt = np.asarray(old).dtype
    unsigned = np.dtype(f"u{dt.itemsize}")
    with np.errstate(all="ignore"):
        if kind in ("add", "fadd"):
            if dt == np.float32:
                return _ftz32(np.float32(_ftz32(old) + _ftz32(np.float32(value))))
            return (np.asarray(old) + np.asarray(value, dt)).astype(dt)[()]
        if kind in ("max", "min"):
            return (max if kind == "max" else min)(old, dt.type(value))
        if kind in ("umax", "umin"):
            u_old, u_val = np.asarray(old).view(unsigned), np.asarray(value, dt).view(unsigned)
            pick = max if kind == "umax" else min
            return np.asarray(pick(u_old[()], u_val[()]), unsigned).view(dt)[()]
        bits_old = np.asarray(old).view(unsigned)
        bits_val = np.asarray(value, dt).view(unsigned)
        if kind == "and":
            out = bits_old & bits_val
        elif kind == "or":
            out = bits_old | bits_val
        elif kind == "xor":
            out = bits_old ^ bits_val
        elif kind == "exch":
            out = bits_val
        elif kind == "cas":
            out = bits_val if bits_old == np.asarray(cmp, dt).view(unsigned) else bits_old
        else:
            raise ValueError(f"unknown atomic {kind}")
        return np.asarray(out, unsigned).view(dt)[()]


def run_atomic(k: KernelFunctions, op: simt.AtomicOp, args: PythonValues) -> PythonValues:
    """Run ``op`` for every active thread of the CTA, serialized by thread index (see the module
    docstring); the old values, 0 where the mask is false."""
    from llc.dialects.simt_kernel_interpreter import lane_array, numpy_dtype_of, typed_value

    addr, value, mask, *rest = args
    t = op.value.type
    dt = numpy_dtype_of(t)
    itemsize = simt.bit_width(t) // 8
    kind = op.kind.data
    groups, _ = k._access(op, addr, mask, itemsize, itemsize)
    values = lane_array(typed_value(value, t), k.threads).astype(dt)
    cmps = lane_array(typed_value(rest[0], t), k.threads).astype(dt) if rest else None
    old = np.zeros(k.threads, dt)
    order = []
    for index, (buf, threads, elem) in zip(k._last_buffers, groups, strict=True):
        if buf.data.dtype.itemsize != dt.itemsize or k.memory.mirrors.get(index):
            raise SimtError(op, f"buffer '{buf.name}' holds {buf.data.dtype}, updated as {t}")
        view = buf.data.reshape(-1).view(dt)
        order += [(int(th), index, view, int(e)) for th, e in zip(threads, elem, strict=True)]
    order.sort(key=lambda x: x[0])
    for th, index, view, e in order:
        old[th] = view[e]
        view[e] = apply_atomic(kind, view[e], values[th], None if cmps is None else cmps[th])
        k.memory.write_through(index, np.array([e]))
    k.stats.count(f"atom.{kind}", len(order))
    return (old,)
