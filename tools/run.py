"""``llc-run``: run a function of a tl module on numpy data with the reference interpreter.

::

    llc-run examples/vector_add.mlir --entry add_kernel --grid 8 \\
        --args x.npy y.npy zeros:1024xf32 1000 --out results/ --print-buffers

Each ``--args`` entry binds one function parameter, in order:

* ``PATH.npy``: a numpy file (its dtype must match the parameter's element type; a bf16 buffer
  takes float32 values, rounded to nearest even, or ``uint16`` raw bf16 words);
* a literal: ``1.5``, ``7``, ``-3``, ``true``, ``nan``, ``[[1, 2], [3, 4]]`` (converted to the
  parameter's type; a scalar fills a whole tensor);
* ``dense<...> : tensor<...>``: an MLIR dense attribute;
* ``zeros:SHAPExTYPE`` (``zeros:128xf32``, ``zeros:4x8xi32``): a zero-filled array.

A ``!tl.ptr<T>`` parameter gets a fresh global-memory buffer holding the array (flattened);
the kernel reads and writes it through pointers. After the run ``--print-buffers`` prints every
buffer, ``--out DIR`` writes each as ``DIR/<param>.npy`` (``<param>`` is the SSA name of the
parameter, e.g. ``out`` for ``%out``), and ``--save`` writes each back to the ``.npy`` file it
came from (buffers made from literals or ``zeros:`` go to ``./<param>.npy``). Results of the
function are printed. ``--grid X[,Y[,Z]]`` runs one program per grid point (``x`` fastest),
as a GPU launch would, one after another.

Errors (parse, verification, bad arguments, out-of-bounds accesses) are reported as
``file:line:col: error: ...`` with exit status 1.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.dialects.builtin import BFloat16Type, DenseIntOrFPElementsAttr, ModuleOp, TensorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError

from llc.dialects import tl
from llc.dialects.diagnostics import (
    LocatedError,
    OpDiagnostic,
    locate_exception,
    op_location,
    parse_module,
)
from llc.dialects.tl_interpreter import (
    Buffer,
    OpTracker,
    Pointer,
    PointerTensor,
    SharedMemory,
    make_interpreter,
    numpy_dtype,
    set_grid,
    to_value,
)
from llc.errors import LayoutError
from llc.tools.diagnostics import atomic_write, read_input

__all__ = ["BoundArgument", "bind_argument", "main", "make_context", "parse_grid", "run"]


def make_context() -> Context:
    """A context with every xDSL dialect (loaded lazily) and the tl dialect.

    >>> "tl" in make_context().registered_dialect_names
    True
    """
    ctx = Context()
    for name, factory in get_all_dialects().items():
        if name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, factory)
    if "tl" not in ctx.registered_dialect_names:
        ctx.register_dialect("tl", lambda: tl.TL)
    if "simt" not in ctx.registered_dialect_names:
        from llc.dialects.universe import get_simt_dialect

        ctx.register_dialect("simt", get_simt_dialect)
    return ctx


# --------------------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------------------


@dataclass
class BoundArgument:
    """One parameter's value, and where its buffer (if any) came from."""

    name: str
    value: Any
    source: str | None = None
    """The ``.npy`` path the value was read from, if any."""


def _param_name(func: FuncOp, index: int) -> str:
    hint = func.body.blocks.first.args[index].name_hint if func.body.blocks else None
    return hint or f"arg{index}"


def _parse_literal(text: str, ctx: Context) -> tuple[np.ndarray, bool]:
    """(array, from_text_literal). Raises ValueError with a reason."""
    stripped = text.strip()
    if stripped.startswith("dense<"):
        try:
            attr = Parser(ctx, stripped).parse_attribute()
        except ParseError as err:
            raise ValueError(f"invalid dense attribute: {err.msg}") from None
        if not isinstance(attr, DenseIntOrFPElementsAttr):
            raise ValueError(f"expected a dense attribute, got {attr}")
        values = np.asarray(attr.get_values()).reshape(attr.get_shape())
        return values.astype(numpy_dtype(attr.get_element_type())), False
    lowered = stripped.lower()
    if lowered in ("true", "false"):
        return np.asarray(lowered == "true"), True
    if lowered in ("nan", "inf", "+inf", "-inf"):
        return np.asarray(float(lowered)), True
    try:
        value = ast.literal_eval(stripped)
    except (ValueError, SyntaxError):
        raise ValueError(
            "expected a .npy file, a number, a [list], true/false, dense<...> : tensor<...> "
            "or zeros:SHAPExTYPE"
        ) from None
    if not isinstance(value, int | float | bool | list | tuple):
        raise ValueError(f"unsupported literal {stripped!r}")
    try:
        return np.asarray(value), True
    except ValueError as err:  # ragged lists
        raise ValueError(f"not a rectangular array: {err}") from None


MAX_ARRAY_ELEMENTS = 1 << 28
"""The largest array ``zeros:`` makes: 2^28 elements (1 GiB of f32), far beyond what the
reference interpreter runs in reasonable time, and below what exhausts a small machine."""


def _parse_zeros(spec: str, ctx: Context) -> np.ndarray:
    """A zero array of ``SHAPExTYPE``, refused past :data:`MAX_ARRAY_ELEMENTS`.

    >>> _parse_zeros("2x3xi32", make_context()).shape
    (2, 3)
    >>> _parse_zeros("99999999999xf32", make_context())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: zeros:99999999999xf32 is too large: 99999999999 elements; the limit is 2^28 ...
    """
    try:
        typ = Parser(ctx, f"tensor<{spec}>").parse_type()
    except ParseError as err:
        raise ValueError(f"zeros:{spec}: expected SHAPExTYPE such as 128xf32 ({err.msg})") from None
    assert isinstance(typ, TensorType)
    count = 1
    for dim in typ.get_shape():
        count *= dim
    if count > MAX_ARRAY_ELEMENTS:
        raise ValueError(
            f"zeros:{spec} is too large: {count} elements; the limit is 2^28 = "
            f"{MAX_ARRAY_ELEMENTS} elements per array"
        )
    return np.zeros(typ.get_shape(), numpy_dtype(typ.element_type))


def _zeros_element_type(spec: str, ctx: Context) -> Attribute:
    typ = Parser(ctx, f"tensor<{spec}>").parse_type()  # _parse_zeros checked the syntax
    assert isinstance(typ, TensorType)
    return typ.element_type


def _check_element_type(text: str, given: Attribute, param: Attribute) -> None:
    """An argument that spells its element type (``zeros:5xi32``) must spell the parameter's:
    converting i32 zeros for a ``!tl.ptr<f32>`` would hide a mistake in the command line.

    >>> from xdsl.dialects.builtin import f32, i32
    >>> _check_element_type("zeros:5xi32", i32, tl.PointerType(f32))
    Traceback (most recent call last):
    ...
    ValueError: zeros:5xi32 holds i32 but the parameter is !tl.ptr<f32> (f32 elements)
    """
    if isinstance(param, tl.PointerType):
        wanted = param.pointee
    elif isinstance(param, TensorType):
        wanted = param.element_type
    else:
        wanted = param
    if given != wanted:
        raise ValueError(f"{text} holds {given} but the parameter is {param} ({wanted} elements)")


def bind_argument(text: str, typ: Attribute, name: str, ctx: Context) -> BoundArgument:
    """Turn one ``--args`` entry into the interpreter value for a parameter of type ``typ``.

    Raises ``ValueError`` with a message naming what is wrong.

    >>> from xdsl.dialects.builtin import f32
    >>> bind_argument("1.5", f32, "x", make_context()).value
    np.float32(1.5)
    >>> b = bind_argument("zeros:4xf32", tl.PointerType(f32), "out", make_context()).value
    >>> (b.buffer.name, b.buffer.size, b.offset)
    ('out', 4, 0)
    """
    source: str | None = None
    strict = False  # values from .npy files must already have the right dtype
    if text.endswith(".npy"):
        try:
            array = np.load(text, allow_pickle=False)
        except OSError as err:
            raise ValueError(f"cannot read '{text}': {err.strerror or err}") from None
        except ValueError as err:
            raise ValueError(f"'{text}' is not a numpy array file: {err}") from None
        source, strict = text, True
    elif text.startswith("zeros:"):
        array = _parse_zeros(text[len("zeros:") :], ctx)
        _check_element_type(text, _zeros_element_type(text[len("zeros:") :], ctx), typ)
    else:
        array, _ = _parse_literal(text, ctx)

    if isinstance(typ, tl.PointerType):
        dtype = numpy_dtype(typ.pointee)
        if strict and array.dtype == np.uint16 and isinstance(typ.pointee, BFloat16Type):
            from llc.dialects.simt_kernel_interpreter import bf16_values

            array = bf16_values(array)  # numpy has no bf16: a uint16 file holds its raw words
        if strict and array.dtype != dtype:
            raise ValueError(
                f"'{text}' holds {array.dtype} but the parameter is {typ} ({dtype}); "
                f"save it as {dtype}"
            )
        data = np.asarray(to_value(array.reshape(-1), TensorType(typ.pointee, [array.size])))
        return BoundArgument(name, Pointer(Buffer(name, data, tuple(array.shape)), 0), source)
    if isinstance(typ, TensorType):
        dtype = numpy_dtype(typ.element_type)
        shape = typ.get_shape()
        if strict and array.dtype != dtype:
            raise ValueError(f"'{text}' holds {array.dtype} but the parameter is {typ} ({dtype})")
        if array.shape != shape and array.ndim != 0:
            raise ValueError(f"shape {list(array.shape)} does not match the parameter type {typ}")
        return BoundArgument(name, np.array(to_value(array, typ)), source)
    if isinstance(typ, tl.MemDescType):
        raise ValueError(f"parameters of type {typ} cannot be passed from the command line")
    if array.ndim != 0:
        raise ValueError(f"the parameter is a scalar {typ}, got an array of shape {array.shape}")
    dtype = numpy_dtype(typ)
    if strict and array.dtype != dtype:
        raise ValueError(f"'{text}' holds {array.dtype} but the parameter is {typ}")
    if np.issubdtype(dtype, np.integer) and np.issubdtype(array.dtype, np.floating):
        raise ValueError(f"the parameter is {typ}, got the non-integer {array[()]}")
    return BoundArgument(name, to_value(array, typ), source)


def parse_grid(text: str) -> tuple[int, int, int]:
    """``"4"`` -> (4, 1, 1), ``"4,2"`` -> (4, 2, 1).

    >>> parse_grid("8,2")
    (8, 2, 1)
    """
    try:
        dims = [int(x) for x in text.replace("x", ",").split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"--grid: expected X[,Y[,Z]] positive integers, got '{text}'") from None
    if not 1 <= len(dims) <= 3 or any(d <= 0 for d in dims):
        raise ValueError(f"--grid: expected X[,Y[,Z]] positive integers, got '{text}'")
    return (*dims, *([1] * (3 - len(dims))))  # type: ignore[return-value]


# --------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------


def _format_value(value: Any) -> str:
    if isinstance(value, Pointer):
        return f"pointer to element {value.offset} of buffer '{value.buffer.name}'"
    if isinstance(value, PointerTensor):
        return f"pointers into buffer '{value.buffer.name}' at offsets\n{value.offsets}"
    if isinstance(value, SharedMemory):
        return f"shared memory\n{value.data}"
    return str(np.asarray(value)) if np.ndim(value) else repr(np.asarray(value)[()].item())


def _plain_type(typ: Attribute) -> Attribute:
    """The type without its layout: values do not depend on it, and layouts are long."""
    if isinstance(typ, TensorType):
        return TensorType(typ.element_type, typ.get_shape())
    return typ


def _buffers(bound: Sequence[BoundArgument]) -> list[tuple[BoundArgument, Buffer]]:
    return [(b, b.value.buffer) for b in bound if isinstance(b.value, Pointer)]


def _save(path: str, array: np.ndarray) -> None:
    try:
        with atomic_write(path, binary=True) as file:
            np.save(file, array)
    except OSError as err:
        raise LocatedError(f"cannot write '{path}': {err.strerror or err}") from None


# --------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------


def _entry_function(module: ModuleOp, entry: str | None) -> FuncOp:
    funcs = [op for op in module.walk() if isinstance(op, FuncOp) and op.body.blocks]
    if entry is None:
        if len(funcs) != 1:
            names = ", ".join(f"@{f.sym_name.data}" for f in funcs) or "none"
            raise LocatedError(f"--entry is required: the module defines {names}")
        return funcs[0]
    for f in funcs:
        if f.sym_name.data == entry:
            return f
    names = ", ".join(f"@{f.sym_name.data}" for f in funcs) or "none"
    raise LocatedError(f"--entry: no function @{entry} with a body (defined: {names})")


def _runtime_error(
    err: Exception, tracker: OpTracker, module: ModuleOp, pid: tuple[int, ...] | None
) -> LocatedError:
    """Locate an error raised while interpreting: at its op, else at the op being run."""
    op = err.op if isinstance(err, OpDiagnostic) else tracker.current
    message = str(err).strip() or type(err).__name__
    if not isinstance(err, DiagnosticException):
        message = f"{type(err).__name__}: {message}"
    if pid is not None:
        message += f" (program id {list(pid)})"
    if op is None:
        return LocatedError(message)
    if not message.startswith(f"{op.name}:"):  # the tl ops name themselves already
        message = f"'{op.name}' op {message}"
    return LocatedError(message, op_location(op))


def run(args: argparse.Namespace) -> int:
    """Run ``llc-run`` on arguments parsed by :func:`llc.tools.cli.run_arg_parser`."""
    ctx = make_context()
    text, name = read_input(args.input_file)
    from llc.dialects.ttgir import is_triton_file, parse_triton_module

    if is_triton_file(name, text):  # TTIR/TTGIR, as llc-opt reads it
        module = parse_triton_module(text, name)
    else:
        module = parse_module(ctx, text, name)
    try:
        module.verify()
        tl.verify_module(module)
    except (DiagnosticException, LayoutError) as err:
        raise locate_exception(err, module) from err

    func = _entry_function(module, args.entry)
    if "llc.src" in func.attributes:
        return _run_lowered_conversion(module, func, args)
    params = func.function_type.inputs.data
    symbol = f"@{func.sym_name.data}"
    if len(args.args) != len(params):
        wanted = ", ".join(str(p) for p in params)
        raise LocatedError(
            f"{symbol} takes {len(params)} argument(s) ({wanted}), got {len(args.args)} in --args",
            op_location(func),
        )
    try:
        grid = parse_grid(args.grid)
    except ValueError as err:
        raise LocatedError(str(err)) from None
    bound: list[BoundArgument] = []
    for i, (arg_text, typ) in enumerate(zip(args.args, params, strict=True)):
        pname = _param_name(func, i)
        try:
            bound.append(bind_argument(arg_text, typ, pname, ctx))
        except ValueError as err:
            raise LocatedError(f"--args #{i} (%{pname}: {typ}): {err}") from None

    if "llc.num_warps" in func.attributes:  # the lowering vectorized on the hints
        _check_divisibility(func, bound)
    tracker = OpTracker()
    values = tuple(b.value for b in bound)
    gpu = getattr(args, "gpu", False)
    for flag, wanted in (("--gpu", gpu), ("--stats", getattr(args, "stats", False))):
        if wanted and "llc.num_warps" not in func.attributes:
            does = "runs" if flag == "--gpu" else "counts the instructions of"
            raise LocatedError(
                f"{flag} {does} lowered kernels: {symbol} is not lowered (run llc-opt -p "
                "llc-compile)",
                op_location(func),
            )
    initial = [
        np.array(b.value.buffer.data) if isinstance(b.value, Pointer) else b.value for b in bound
    ]
    programs = [(x, y, z) for z in range(grid[2]) for y in range(grid[1]) for x in range(grid[0])]
    kernel = None
    if "llc.num_warps" in func.attributes:  # lowered by llc-lower-to-simt: the SIMT interpreter
        from llc.dialects.simt_kernel_interpreter import GlobalMemory, make_kernel_interpreter

        warps = func.attributes["llc.num_warps"].value.data  # type: ignore[attr-defined]
        lanes = func.attributes["llc.threads_per_warp"].value.data  # type: ignore[attr-defined]
        interpreter, kernel = make_kernel_interpreter(
            module, warps, lanes, GlobalMemory(), listeners=(tracker,)
        )
        kernel.num_programs = grid
    else:
        interpreter = make_interpreter(module, tracker=tracker)
    printing = np.printoptions(threshold=sys.maxsize) if args.full else np.printoptions()
    with printing:
        for pid in programs:
            if kernel is not None:
                kernel.program_id = pid
            else:
                set_grid(interpreter, pid, grid)
            try:
                results = interpreter.call_op(func.sym_name.data, values)
            except Exception as err:
                located = _runtime_error(err, tracker, module, pid if len(programs) > 1 else None)
                raise located from err
            for i, value in enumerate(results):
                where = f" of program {list(pid)}" if len(programs) > 1 else ""
                rtype = _plain_type(func.function_type.outputs.data[i])
                print(f"{symbol} result #{i}{where} : {rtype} =\n{_format_value(value)}")

        if gpu:
            _compare_on_gpu(module, func, bound, initial, grid)
        if kernel is not None and getattr(args, "stats", False):
            print(kernel_stats_text(kernel, func, len(programs)))
        if args.print_buffers:
            for b, buf in _buffers(bound):
                shape = "x".join(str(d) for d in buf.shape) or "scalar"
                print(f"buffer %{b.name} ({shape}, {buf.data.dtype}) =\n{buf.array()}")
    if args.out:
        try:
            os.makedirs(args.out, exist_ok=True)
        except OSError as err:
            raise LocatedError(f"cannot create '{args.out}': {err.strerror or err}") from None
        for b, buf in _buffers(bound):
            _save(os.path.join(args.out, f"{b.name}.npy"), buf.array())
    if args.save:
        for b, buf in _buffers(bound):
            _save(b.source or f"{b.name}.npy", buf.array())
    return 0


def _check_divisibility(func: FuncOp, bound: Sequence[BoundArgument]) -> None:
    """An integer argument of a lowered kernel must honour its ``tl.divisibility`` hint: the
    lowering vectorized on it, as Triton's launcher specialises on it (the tensor-level
    interpreter ignores hints)."""
    arg_attrs = func.arg_attrs
    if arg_attrs is None:
        return
    for i, attrs in enumerate(arg_attrs.data):
        hint = attrs.data.get("tl.divisibility") or attrs.data.get("tt.divisibility")
        value = bound[i].value
        if hint is None or not isinstance(value, np.integer | int):
            continue
        d = hint.value.data  # type: ignore[attr-defined]
        if int(value) % d:
            raise LocatedError(
                f"--args #{i} (%{bound[i].name}) = {int(value)} is not a multiple of its "
                f"tl.divisibility hint {d}",
                op_location(func),
            )


GPU_RTOL = 1e-3
GPU_ATOL = 1e-4
"""How close ``llc-run --gpu`` requires the GPU's float buffers to the interpreter's."""


def _compare_on_gpu(
    module: ModuleOp,
    func: FuncOp,
    bound: Sequence[BoundArgument],
    initial: Sequence[Any],
    grid: tuple[int, int, int],
) -> None:
    """Run the kernel's PTX on the GPU from the same initial buffers and compare every buffer
    with what the interpreter left in it (bit for bit)."""
    from llc.passes.targets.ptx import emit_ptx, shared_bytes
    from llc.tools.gpu_run import GpuError, gpu_name, launch

    warps = func.attributes["llc.num_warps"].value.data  # type: ignore[attr-defined]
    lanes = func.attributes["llc.threads_per_warp"].value.data  # type: ignore[attr-defined]
    ptx = emit_ptx(module)
    name = func.sym_name.data
    try:
        run = launch(
            ptx,
            name,
            [np.array(v) if isinstance(v, np.ndarray) else v for v in initial],
            grid=grid,
            block=(warps * lanes, 1, 1),
            shared_bytes=shared_bytes(ptx, name),
        )
        device = gpu_name()
    except ImportError:
        raise LocatedError("--gpu needs cuda-python: pip install -e '.[gpu]'") from None
    except GpuError as err:
        raise LocatedError(f"--gpu: {err}") from None
    mismatched, worst, exact = [], 0.0, True
    for b, got in zip(bound, run.outputs, strict=True):
        if not isinstance(b.value, Pointer):
            continue
        want = b.value.buffer.data
        got = np.ascontiguousarray(got, dtype=want.dtype).reshape(want.shape)
        if want.tobytes() == got.tobytes():
            continue
        exact = False
        if np.issubdtype(want.dtype, np.floating):
            # GPU float arithmetic (ex2.approx, mma accumulation order) is not bit-identical
            # to numpy's; within GPU_RTOL/GPU_ATOL it agrees.
            w64, g64 = want.astype(np.float64), got.astype(np.float64)
            finite = np.isfinite(w64) & np.isfinite(g64)
            if np.allclose(g64, w64, rtol=GPU_RTOL, atol=GPU_ATOL, equal_nan=True):
                worst = max(worst, float(np.max(np.abs(g64 - w64)[finite], initial=0.0)))
                continue
        differ = int(np.sum(want.view(np.uint8) != got.view(np.uint8)))
        mismatched.append(f"%{b.name} ({differ} bytes differ)")
    if mismatched:
        raise LocatedError(
            f"--gpu: {device}: the GPU's buffers differ from the interpreter's: "
            + ", ".join(mismatched),
            op_location(func),
        )
    buffers = sum(isinstance(b.value, Pointer) for b in bound)
    agreement = "bit-identical to" if exact else f"within max |diff| {worst:.3g} of"
    print(
        f"gpu: {device}: {buffers} buffer(s) {agreement} the interpreter's; "
        f"kernel {run.milliseconds * 1000:.1f} us (CUDA events, mean of 20 launches)"
    )


def kernel_stats_text(kernel: Any, func: FuncOp, programs: int) -> str:
    """What ``--stats`` prints for a lowered kernel (totals over all programs; instructions per
    thread and program)."""
    from llc.passes.lower_to_simt import registers_per_thread

    stats = kernel.stats
    per = {k: n / programs for k, n in sorted(stats.instructions.items())}
    counts = ", ".join(f"{k} {n:g}" for k, n in per.items()) or "none"
    lines = [
        f"@{func.sym_name.data}: {programs} program(s) of {kernel.num_warps} warps x "
        f"{kernel.threads_per_warp} threads",
        f"instructions per thread: {counts}",
        f"shared memory: {stats.warp_accesses} warp accesses, {stats.wavefronts} wavefronts "
        f"(ideal {stats.ideal_wavefronts})",
        f"global memory: {kernel.sectors} sectors of 32 bytes (minimum {kernel.min_sectors} "
        f"for {kernel.global_bytes} bytes)",
        f"registers per thread: {registers_per_thread(func)} (32-bit, peak live)",
    ]
    return "\n".join(lines)


def _run_lowered_conversion(module: ModuleOp, func: FuncOp, args: argparse.Namespace) -> int:
    """A function of llc-lower-conversions: run it in the SIMT interpreter on distinct values,
    check every register and print the figures."""
    from llc.dialects.simt_interpreter import SimtError
    from llc.passes.lower_conversions import run_lowered_conversion

    if args.args:
        raise LocatedError(
            f"@{func.sym_name.data} is a lowered conversion: llc-run feeds it distinct values "
            "itself and checks the result (drop --args)",
            op_location(func),
        )
    try:
        check = run_lowered_conversion(module, func)
    except SimtError as err:
        message = str(err.args[0]) if err.args else str(err)
        raise LocatedError(f"{err.op.name}: {message}", op_location(err.op)) from err
    except LayoutError as err:
        raise LocatedError(str(err), op_location(func)) from err
    stats = check.stats
    attrs = func.attributes
    warps = attrs["llc.num_warps"].value.data  # type: ignore[attr-defined]
    lanes = attrs["llc.threads_per_warp"].value.data  # type: ignore[attr-defined]
    strategy = attrs["llc.strategy"].data if "llc.strategy" in attrs else "?"  # type: ignore[attr-defined]
    counts = ", ".join(f"{k} {n}" for k, n in sorted(stats.instructions.items())) or "none"
    print(f"@{func.sym_name.data}: {strategy}, {warps} warps x {lanes} threads")
    print(f"instructions per thread: {counts}")
    print(
        f"shared memory: {stats.warp_accesses} warp instructions, {stats.wavefronts} wavefronts "
        f"(ideal {stats.ideal_wavefronts})"
    )
    if not check.ok:
        raise LocatedError(f"wrong result: {check.message}", op_location(func))
    runs = "1 run" if check.passes == 1 else f"{check.passes} runs over the index bits"
    print(f"verified: every register of every thread holds its destination element ({runs})")
    return 0


def main(argv: Sequence[str] | None = None) -> None:
    """Console entry point of ``llc-run`` (:func:`llc.tools.cli.run_main`)."""
    from llc.tools.cli import run_main

    run_main(argv)


if __name__ == "__main__":
    main()
