"""Same-semantics checks: run two ``tl`` modules on the same random inputs and compare.

Layouts never change values, so a layout pass must leave every output of a kernel unchanged.
:func:`check_same_semantics` runs a function of two modules (before and after a rewrite) in-process
under llc's reference interpreter (the one behind ``llc-run``) on the same seeded random inputs,
and compares every buffer and every result:

* **bit-identical** (the raw bytes) for outputs that no ``tl.dot``, ``tl.reduce`` or ``tl.scan``
  feeds;
* within ``rtol``/``atol`` (``numpy.allclose``; defaults :data:`REASSOCIATION_RTOL`,
  :data:`REASSOCIATION_ATOL`) for outputs that a ``tl.dot``, ``tl.reduce`` or ``tl.scan`` feeds,
  in either module: those may be computed in another order after a rewrite (float
  reassociation).

:func:`check_pipeline` parses a module, runs an xDSL pass pipeline on it (any pass of xDSL or of an
installed ``xdsl.universe`` plugin such as llc's, e.g. ``"llc-optimize-layouts"`` or
``"canonicalize"``), verifies the result and checks it against the input.

Parameters are bound from the function signature: a ``!tl.ptr<T>`` parameter gets a fresh buffer
of ``buffer_elements`` random elements (a tensor of pointers: a fresh buffer and pointers to its
consecutive elements, in row-major order), a scalar a random number (``i32``: in ``[-8, 8)``), a
tensor a random tensor of its type. Floats are standard normal. Kernels from
:mod:`llc.testing.kernel_gen` run with the default ``buffer_elements``.

>>> from llc.testing.kernel_gen import generate_kernel
>>> k = generate_kernel(1)
>>> report = check_same_semantics(k.laid_out, k.layout_free, entry=k.entry)
>>> report.compared > 0
True
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.dialects.builtin import IntegerType, ModuleOp, TensorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import PassPipeline
from xdsl.universe import Universe

from llc.dialects import tl
from llc.dialects.diagnostics import TypeCachingParser
from llc.dialects.tl_interpreter import (
    Buffer,
    Pointer,
    PointerTensor,
    make_interpreter,
    numpy_dtype,
    set_grid,
    to_value,
)
from llc.testing.kernel_gen import BUFFER_ELEMENTS

__all__ = [
    "REASSOCIATION_ATOL",
    "REASSOCIATION_RTOL",
    "SemanticsMismatch",
    "SemanticsReport",
    "apply_pipeline",
    "call_kernel",
    "check_pipeline",
    "check_pipeline_module",
    "check_same_semantics",
    "parse",
    "run_module",
]

REASSOCIATION_RTOL = 1e-4
"""Relative tolerance for outputs fed by ``tl.dot`` / ``tl.reduce`` (float reassociation)."""
REASSOCIATION_ATOL = 1e-5
"""Absolute tolerance for outputs fed by ``tl.dot`` / ``tl.reduce``."""


class SemanticsMismatch(AssertionError):
    """Two modules computed different outputs (the message names the output and the element)."""


@dataclass
class SemanticsReport:
    """What :func:`check_same_semantics` compared."""

    compared: int = 0
    """Outputs (buffers and results) compared, over all trials."""
    exact: list[str] = field(default_factory=list)
    """Outputs required to be bit-identical."""
    tolerant: list[str] = field(default_factory=list)
    """Outputs compared within the reassociation tolerance."""


# --------------------------------------------------------------------------------------
# Parsing, passes, running
# --------------------------------------------------------------------------------------


@cache
def _multiverse() -> Universe:
    return Universe.get_multiverse()


def _context() -> Context:
    ctx = Context()
    for name, factory in {**get_all_dialects(), **_multiverse().all_dialects}.items():
        if name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, factory)
    if "tl" not in ctx.registered_dialect_names:
        ctx.register_dialect("tl", lambda: tl.TL)
    return ctx


_PARSED: OrderedDict[str, ModuleOp] = OrderedDict()
"""Recently parsed texts and their verified modules (:func:`parse` hands out clones)."""
PARSED_KEPT = 32
"""How many parsed texts :func:`parse` keeps. The generated-kernel tests of one seed (lowering,
barriers, generator forms, layout passes) run on one worker one after another (their
``xdist_group``) and parse the same text: a clone costs a twentieth of a parse."""


def parse(text: str | ModuleOp, *, keep: bool = True) -> ModuleOp:
    """Parse and verify a module (``module.verify()`` and ``tl.verify_module``).

    A text parsed lately gives a clone of its module (``keep=False``: a text that will not come
    again, not kept). The caller owns the module it gets and may change it.

    >>> from llc.testing.kernel_gen import generate_kernel
    >>> text = generate_kernel(2).layout_free
    >>> a, b = parse(text), parse(text)
    >>> a is not b and str(a) == str(b)
    True
    """
    if isinstance(text, ModuleOp):
        module = text
    else:
        kept = _PARSED.get(text)
        if kept is not None:
            _PARSED.move_to_end(text)
            return kept.clone()
        module = TypeCachingParser(_context(), text).parse_module()
    module.verify()
    tl.verify_module(module)
    if keep and not isinstance(text, ModuleOp):
        _PARSED[text] = module.clone()
        if len(_PARSED) > PARSED_KEPT:
            _PARSED.popitem(last=False)
    return module


def apply_pipeline(module: ModuleOp, pipeline: str) -> ModuleOp:
    """Run the xDSL pass pipeline ``pipeline`` (``-p`` spelling) on ``module`` in place."""
    from xdsl.transforms import get_all_passes

    passes = {**get_all_passes(), **_multiverse().all_passes}
    PassPipeline.parse_spec(passes, pipeline).apply(_context(), module)
    return module


def _entry(module: ModuleOp, entry: str | None) -> FuncOp:
    funcs = [op for op in module.walk() if isinstance(op, FuncOp) and op.body.blocks]
    for f in funcs:
        if entry is None or f.sym_name.data == entry:
            if entry is None and len(funcs) != 1:
                break
            return f
    names = ", ".join(f"@{f.sym_name.data}" for f in funcs)
    raise ValueError(f"no function @{entry} to run (the module defines {names})")


def _random_argument(
    rng: np.random.Generator, typ: Any, name: str, buffer_elements: int
) -> tuple[Any, Buffer | None]:
    if isinstance(typ, tl.PointerType):
        data = _random_array(rng, typ.pointee, (buffer_elements,))
        buffer = Buffer(name, data)
        return Pointer(buffer, 0), buffer
    if isinstance(typ, TensorType) and isinstance(typ.element_type, tl.PointerType):
        shape = typ.get_shape()
        count = int(np.prod(shape))
        data = _random_array(rng, typ.element_type.pointee, (max(buffer_elements, count),))
        buffer = Buffer(name, data)
        return PointerTensor(buffer, np.arange(count, dtype=np.int64).reshape(shape)), buffer
    if isinstance(typ, TensorType):
        return np.array(to_value(_random_array(rng, typ.element_type, typ.get_shape()), typ)), None
    return to_value(_random_array(rng, typ, ())[()], typ), None


def _random_array(rng: np.random.Generator, element: Any, shape: Sequence[int]) -> np.ndarray:
    dtype = numpy_dtype(element)
    if isinstance(element, IntegerType) and element.width.data == 1:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-8, 8, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def run_module(
    module: str | ModuleOp,
    *,
    entry: str | None = None,
    seed: int = 0,
    buffer_elements: int = BUFFER_ELEMENTS,
    grid: Sequence[int] = (1,),
) -> dict[str, np.ndarray]:
    """Run ``@entry`` on seeded random inputs; return every buffer and result by name.

    Buffers are named by their parameter (``"%out0"``), results ``"result #i"``. Text is parsed and
    verified; a ``ModuleOp`` is run as it is.
    """
    if isinstance(module, str):
        module = parse(module)
    func = _entry(module, entry)
    rng = np.random.default_rng(seed)
    args: list[Any] = []
    buffers: dict[str, Buffer] = {}
    for i, (arg, typ) in enumerate(
        zip(func.body.block.args, func.function_type.inputs.data, strict=True)
    ):
        name = f"%{arg.name_hint or f'arg{i}'}"
        value, buffer = _random_argument(rng, typ, name, buffer_elements)
        args.append(value)
        if buffer is not None:
            buffers[name] = buffer
    dims = (*grid, 1, 1, 1)[:3]
    run_program = _program_runner(module, func, dims)
    outputs: dict[str, np.ndarray] = {}
    for z in range(dims[2]):
        for y in range(dims[1]):
            for x in range(dims[0]):
                results = run_program((x, y, z), args)
                for i, value in enumerate(results):
                    outputs[f"result #{i} of program {[x, y, z]}"] = np.asarray(value)
    outputs.update({name: buffer.array() for name, buffer in buffers.items()})
    return outputs


def call_kernel(
    module: ModuleOp,
    entry: str,
    args: Sequence[Any],
    program: Sequence[int] = (0, 0, 0),
    grid: Sequence[int] = (1, 1, 1),
) -> tuple[Any, ...]:
    """Call ``@entry`` of ``module`` once, as program ``program`` of ``grid``, on ``args``.

    A function that ``llc-lower-to-simt`` lowered (it carries ``llc.num_warps``) runs in the SIMT
    kernel interpreter with its own warp and lane counts; anything else at the tensor level. So a
    test compares the two levels on the same buffers with one call each.

    >>> from llc.dialects.tl_interpreter import Buffer, Pointer
    >>> text = '''
    ... func.func @k(%p: !tl.ptr<i32>) {
    ...   %r = tl.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    ...   %s = tl.splat %p : !tl.ptr<i32> -> tensor<64x!tl.ptr<i32>>
    ...   %q = tl.addptr %s, %r : tensor<64x!tl.ptr<i32>>, tensor<64xi32>
    ...   tl.store %q, %r : tensor<64x!tl.ptr<i32>>
    ...   func.return
    ... }'''
    >>> out = [Buffer("o", np.zeros(64, np.int32)) for _ in range(2)]
    >>> _ = call_kernel(parse(text), "k", [Pointer(out[0], 0)])
    >>> _ = call_kernel(apply_pipeline(parse(text), "llc-compile"), "k", [Pointer(out[1], 0)])
    >>> out[0].data[:4].tolist(), bool((out[1].data == out[0].data).all())
    ([0, 1, 2, 3], True)
    """
    dims = (*grid, 1, 1, 1)[:3]
    return _program_runner(module, _entry(module, entry), dims)(tuple(program), args)


def _program_runner(
    module: ModuleOp, func: FuncOp, dims: tuple[int, ...]
) -> Callable[[tuple[int, ...], Sequence[Any]], tuple[Any, ...]]:
    """One interpreter for ``module`` and a call of ``func`` as a given program of ``dims``: the
    SIMT kernel interpreter where ``llc-lower-to-simt`` lowered ``func`` (it carries
    ``llc.num_warps``), else the tensor-level one."""
    if "llc.num_warps" not in func.attributes:
        interpreter = make_interpreter(module)

        def run_tensor_level(program: tuple[int, ...], args: Sequence[Any]) -> tuple[Any, ...]:
            set_grid(interpreter, program, dims)
            return interpreter.call_op(func.sym_name.data, tuple(args))

        return run_tensor_level
    from llc.dialects.simt_kernel_interpreter import GlobalMemory, make_kernel_interpreter

    simt_interpreter, kernel = make_kernel_interpreter(
        module,
        func.attributes["llc.num_warps"].value.data,  # type: ignore[attr-defined]
        func.attributes["llc.threads_per_warp"].value.data,  # type: ignore[attr-defined]
        GlobalMemory(),
    )
    kernel.num_programs = dims

    def run_lowered(program: tuple[int, ...], args: Sequence[Any]) -> tuple[Any, ...]:
        kernel.program_id = program
        return simt_interpreter.call_op(func.sym_name.data, tuple(args))

    return run_lowered


# --------------------------------------------------------------------------------------
# Which outputs may reassociate
# --------------------------------------------------------------------------------------


def _reassociating_outputs(func: FuncOp) -> set[str]:
    """Outputs (buffer parameter names, ``"result #i"``) that a dot, reduce or scan may feed.

    A backward slice from each store and return over operands, through region block arguments
    to their parent op's operands and through region results to the yielded values. It
    over-approximates: extra outputs only get the tolerance instead of bit-identity.
    """
    memo: dict[SSAValue, bool] = {}

    def fed(value: SSAValue) -> bool:
        if value in memo:
            return memo[value]
        memo[value] = False  # cycles through loops: decided by the other paths
        result = False
        if isinstance(value, OpResult):
            op = value.op
            reassociates = isinstance(op, tl.DotOp | tl.ReduceOp | tl.ScanOp)
            result = reassociates or any(fed(v) for v in _inputs(op))
        elif isinstance(value, BlockArgument):
            parent = value.block.parent_op()
            if parent is not None and not isinstance(parent, FuncOp):
                result = any(fed(v) for v in _inputs(parent))
        memo[value] = result
        return result

    outputs: set[str] = set()
    for op in func.walk():
        if isinstance(op, tl.StoreOp) and fed(op.value):
            outputs.update(_pointer_params(op.ptr))
        if op.name == "func.return":
            outputs.update(f"result #{i}" for i, v in enumerate(op.operands) if fed(v))
    return outputs


def _inputs(op: Operation) -> list[SSAValue]:
    """Operands of ``op`` and the values yielded inside its regions."""
    values = list(op.operands)
    for region in op.regions:
        for block in region.blocks:
            if block.last_op is not None and block.last_op.name in (
                "scf.yield",
                "tl.reduce.return",
            ):
                values.extend(block.last_op.operands)
    return values


def _pointer_params(value: SSAValue) -> set[str]:
    seen: set[SSAValue] = set()
    names: set[str] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        if isinstance(v, OpResult):
            stack.extend(_inputs(v.op))
        elif isinstance(v, BlockArgument):
            parent = v.block.parent_op()
            if isinstance(parent, FuncOp):
                if isinstance(v.type, tl.PointerType):
                    names.add(f"%{v.name_hint or f'arg{v.index}'}")
            elif parent is not None:
                stack.extend(_inputs(parent))
    return names


# --------------------------------------------------------------------------------------
# The checks
# --------------------------------------------------------------------------------------


def check_same_semantics(
    before: str | ModuleOp,
    after: str | ModuleOp,
    *,
    entry: str | None = None,
    seeds: Sequence[int] = (0,),
    buffer_elements: int = BUFFER_ELEMENTS,
    grid: Sequence[int] = (1,),
    rtol: float = REASSOCIATION_RTOL,
    atol: float = REASSOCIATION_ATOL,
    verify: bool = True,
) -> SemanticsReport:
    """Run ``@entry`` of both modules on the same random inputs (one run per seed); compare.

    Text is parsed and verified; a module is verified again unless ``verify=False`` (a module
    the caller has just parsed with :func:`parse`).

    Raises :class:`SemanticsMismatch` naming the first output that differs (and where), or
    ``ValueError`` when the two modules do not have the same outputs.
    """

    def checked(module: str | ModuleOp) -> ModuleOp:
        return module if isinstance(module, ModuleOp) and not verify else parse(module)

    return _compare_runs(
        checked(before), checked(after), entry, seeds, buffer_elements, grid, rtol, atol
    )


def _compare_runs(
    before_module: ModuleOp,
    after_module: ModuleOp,
    entry: str | None = None,
    seeds: Sequence[int] = (0,),
    buffer_elements: int = BUFFER_ELEMENTS,
    grid: Sequence[int] = (1,),
    rtol: float = REASSOCIATION_RTOL,
    atol: float = REASSOCIATION_ATOL,
) -> SemanticsReport:
    """:func:`check_same_semantics` on two modules already verified."""
    tolerant = set()
    for module in (before_module, after_module):
        tolerant |= _reassociating_outputs(_entry(module, entry))
    report = SemanticsReport()
    for seed in seeds:
        kwargs = {"entry": entry, "seed": seed, "buffer_elements": buffer_elements, "grid": grid}
        expected = run_module(before_module, **kwargs)  # type: ignore[arg-type]
        actual = run_module(after_module, **kwargs)  # type: ignore[arg-type]
        if expected.keys() != actual.keys():
            raise ValueError(
                f"the modules have different outputs: {sorted(expected)} vs {sorted(actual)}"
            )
        for name, want in expected.items():
            got = actual[name]
            base = name.split(" of program")[0]
            if base in tolerant:
                _compare_close(name, want, got, rtol, atol, seed)
                report.tolerant.append(name)
            else:
                _compare_exact(name, want, got, seed)
                report.exact.append(name)
            report.compared += 1
    return report


def _compare_exact(name: str, want: np.ndarray, got: np.ndarray, seed: int) -> None:
    if want.shape != got.shape or want.dtype != got.dtype:
        raise SemanticsMismatch(
            f"{name} (seed {seed}): {got.dtype}{list(got.shape)} instead of "
            f"{want.dtype}{list(want.shape)}"
        )
    if want.tobytes() != got.tobytes():
        flat_w, flat_g = want.reshape(-1), got.reshape(-1)
        differ = flat_w.view(np.uint8).reshape(flat_w.size, -1) != flat_g.view(np.uint8).reshape(
            flat_g.size, -1
        )
        index = int(np.argmax(differ.any(axis=1)))
        where = np.unravel_index(index, want.shape) if want.ndim else ()
        raise SemanticsMismatch(
            f"{name} (seed {seed}) is not bit-identical: element {list(map(int, where))} is "
            f"{flat_g[index]!r} instead of {flat_w[index]!r}"
        )


def _compare_close(
    name: str, want: np.ndarray, got: np.ndarray, rtol: float, atol: float, seed: int
) -> None:
    if want.shape != got.shape:
        raise SemanticsMismatch(f"{name} (seed {seed}): shape {got.shape} instead of {want.shape}")
    w, g = want.astype(np.float64), got.astype(np.float64)
    close = np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
    if not close.all():
        where = np.unravel_index(int(np.argmin(close)), want.shape) if want.ndim else ()
        raise SemanticsMismatch(
            f"{name} (seed {seed}) differs beyond rtol={rtol}, atol={atol}: element "
            f"{list(map(int, where))} is {g[where]!r} instead of {w[where]!r}"
        )


def check_pipeline(
    module_text: str,
    pipeline: str = "llc-optimize-layouts",
    **kwargs: Any,
) -> str:
    """Run ``pipeline`` on ``module_text``, verify, check the semantics; return the new text.

    ``kwargs`` go to :func:`check_same_semantics` (``entry``, ``seeds``, ...).

    >>> from llc.testing.kernel_gen import generate_kernel
    >>> kernel = generate_kernel(4)
    >>> out = check_pipeline(kernel.laid_out, "canonicalize", entry=kernel.entry)
    >>> kernel.laid_out.count("tl.convert_layout"), out.count("tl.convert_layout")
    (6, 1)
    """
    return str(_checked_pipeline(module_text, pipeline, **kwargs)[0])


def check_pipeline_module(
    module_text: str,
    pipeline: str = "llc-optimize-layouts",
    **kwargs: Any,
) -> ModuleOp:
    """:func:`check_pipeline`, returning the result re-parsed and verified (what
    ``parse(check_pipeline(...))`` gives, without parsing the text a fourth time).

    >>> from llc.testing.kernel_gen import generate_kernel
    >>> kernel = generate_kernel(4)
    >>> module = check_pipeline_module(kernel.laid_out, "canonicalize", entry=kernel.entry)
    >>> sum(op.name == "tl.convert_layout" for op in module.walk())
    1
    """
    return _checked_pipeline(module_text, pipeline, **kwargs)[1]


def _checked_pipeline(module_text: str, pipeline: str, **kwargs: Any) -> tuple[ModuleOp, ModuleOp]:
    """The module after ``pipeline`` and its printed form re-parsed, semantics checked."""
    module = parse(module_text)
    # The input as it was, for the semantics check: a clone costs a twentieth of a second parse.
    before = module.clone()
    apply_pipeline(module, pipeline)
    # what a user would get from llc-opt: print, re-parse, verify
    after = parse(str(module), keep=False)
    # ``before`` is a clone of a verified module and ``after`` was verified by ``parse``.
    _compare_runs(before, after, **kwargs)
    return module, after
