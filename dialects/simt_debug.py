"""``simt.assert`` and ``simt.print`` in the SIMT kernel interpreter
(:class:`llc.dialects.simt_kernel_interpreter.KernelFunctions` delegates here).

``simt.assert`` fails with a located :class:`~llc.dialects.simt_interpreter.SimtError` naming
the first failing element in row-major order (the one the tensor-level interpreter names), the
lowest thread holding it and its register. ``simt.print`` gathers the registers into the tensor
by the op's element keys and prints it as the tensor level does (``prefix`` then the array), so
a lowered kernel's output is the tensor program's, whatever the layout.

>>> registers_of(np.float32(2.5), 4).tolist()
[[2.5], [2.5], [2.5], [2.5]]
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, IntegerType, VectorType
from xdsl.interpreter import Interpreter

from llc.dialects import simt
from llc.dialects.simt_interpreter import SimtError

__all__ = ["registers_of", "run_assert", "run_print"]


def registers_of(value: Any, threads: int) -> np.ndarray:
    """A value as ``(threads, registers)``: a vector's array as it is, a scalar (uniform, or one
    per thread) as one register."""
    arr = np.asarray(value)
    if arr.ndim == 2:
        return arr
    return np.broadcast_to(arr.reshape(-1, 1), (threads, 1))


def run_assert(threads: int, op: simt.AssertOp, cond: Any) -> None:
    """Raise where a register of ``cond`` is false (see the module docstring)."""
    ok = registers_of(cond, threads).astype(bool)
    if ok.all():
        return
    keys = simt.element_keys(op, threads)
    first = int(keys[~ok].min())
    t, r = (int(i[0]) for i in np.nonzero(~ok & (keys == first)))
    shape = list(op.shape.get_values())
    where = f"element {[int(i) for i in np.unravel_index(first, shape)]}, " if shape else ""
    raise SimtError(
        op, f"assertion failed: {op.message.data} (first failing {where}thread {t}, register {r})"
    )


def run_print(interp: Interpreter, threads: int, op: simt.PrintOp, value: Any) -> None:
    """Print the prefix and the tensor (or scalar) ``value`` (see the module docstring)."""
    from llc.dialects.simt_kernel_interpreter import typed_value
    from llc.dialects.tl_interpreter import to_bits

    if op.value is None:
        print(op.prefix.data, file=interp.file)
        return
    typ = op.value.type
    regs = registers_of(typed_value(value, typ), threads)
    shape = list(op.shape.get_values())
    if shape:
        out = np.empty(int(np.prod(shape)), dtype=regs.dtype)
        out[simt.element_keys(op, threads).reshape(-1)] = regs.reshape(-1)
        shown: Any = out.reshape(shape)
    else:
        shown = regs[0, 0]
    if op.attributes.get("hex") == IntegerAttr(1, IntegerType(1)):
        element = typ.element_type if isinstance(typ, VectorType) else typ
        shown = np.vectorize(hex)(to_bits(op, shown, element))
    print(
        f"{op.prefix.data}{np.array2string(np.asarray(shown), threshold=1 << 20)}", file=interp.file
    )
