"""llc's layouts inside Triton: every ``@triton.jit`` kernel compiled while this is on gets llc's
layout assignment, and the rest of Triton's pipeline as before.

    import llc.triton
    llc.triton.enable()              # every kernel compiled afterwards
    with llc.triton.layouts(): ...   # only inside the block
    llc.triton.disable()

``LLC_TRITON=1`` does the same without code changes: ``import llc.triton`` checks it, and
``python -m llc.triton install`` writes a ``.pth`` file into the environment's site-packages
that imports ``llc.triton`` at interpreter start-up when the variable is set (the import itself is
cheap: Triton and xDSL are imported only when Triton is, through a one-shot import hook).

How it works. Triton's extension point ``triton.knobs.runtime.add_stages_inspection_hook`` is
called by the NVIDIA backend's ``add_stages`` with ``(backend, stages, options, language,
capability)`` (Triton 3.6 and 3.9) and, in 3.9, without arguments for a cache key. The hook
replaces the ``ttgir`` stage of Triton kernels:

1. Triton's TTIR is imported into llc (:func:`llc.dialects.ttgir.parse_triton_module`) and
   ``llc-optimize-layouts`` assigns every layout for the kernel's ``num_warps``, 32 threads per
   warp and ``cuda:<capability>``; the result is exported as TTGIR
   (:func:`llc.passes.targets.ttgir.module_to_ttgir`) and parsed back into Triton's context.
2. The installed Triton's own ``make_ttgir`` runs on it, minus its layout-assignment phase:
   the function is re-executed with its ``passes``/``nvidia``/``ir`` globals wrapped
   (:class:`PassFilter`), so the pass list is the installed Triton's, not a copy of one version's.
   The layout phase is everything up to the ``remove-layout-conversions`` that follows
   ``accelerate-matmul``; in it the passes of :data:`LAYOUT_PASSES` are skipped and the others
   (``f32-dot-tc``, checks) still run. Everything after it runs: software pipelining, prefetch,
   dot-operand optimization, the later ``remove-layout-conversions`` (it cleans up what the
   pipeliner and the shared-memory staging add), data-duplication reduction, instruction
   reordering, fences, ...
3. If llc cannot take a kernel (an op it does not import, a layout it cannot build, a solver
   past its budget, Triton rejecting the TTGIR, ...), the stage falls back to Triton's own
   ``make_ttgir`` for that kernel and warns once (:class:`LLCTritonWarning`) with the kernel's
   name and the reason. A program never breaks because llc is on.

Only NVIDIA backends and Triton (not Gluon) kernels are touched; the AMD backend keeps Triton's
layouts (one warning says what is missing), and so do kernels with ``num_ctas > 1``.

``LLC_TRITON_REPORT=path.jsonl`` appends one JSON line per kernel compiled through the hook
(:func:`report_line`): conversions and their modeled cost (:func:`llc.cost.conversion_cost`) in
the final TTGIR of the llc path and of Triton's own ``make_ttgir`` (run once more on the same
TTIR for the comparison), and the time of each ``ttgir`` stage. Kernels found in Triton's cache are
not compiled and get no line (``TRITON_ALWAYS_COMPILE=1`` recompiles them).

The cache: on Triton 3.9 the hook's key (llc's version and a digest of its layout code) is part
of every kernel's cache key, so kernels compiled with and without llc never mix. Triton 3.6 does
not ask the hook for a key; there :func:`enable` points ``knobs.cache.dir`` at a sub-folder of its
own (restored by :func:`disable`), and kernels already compiled in the process keep their code.

This module imports only the standard library at module level (the core ``llc`` package is
xDSL-free); xDSL, llc's dialects and Triton are imported inside the functions that need them.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import json
import os
import re
import sys
import tempfile
import threading
import time
import types
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "ENV_ENABLE",
    "ENV_REPORT",
    "LAYOUT_PASSES",
    "LLCTritonWarning",
    "PassFilter",
    "describe_failure",
    "disable",
    "enable",
    "enabled",
    "layouts",
    "report_line",
    "ttgir_conversions",
]

ENV_ENABLE = "LLC_TRITON"
"""``LLC_TRITON=1`` turns the integration on without code changes (any value but ``0`` and
the empty string)."""

ENV_REPORT = "LLC_TRITON_REPORT"
"""``LLC_TRITON_REPORT=path.jsonl``: one JSON line per kernel compiled through the hook."""

LAYOUT_PASSES = frozenset(
    {
        "add_convert_to_ttgpuir",  # default blocked layouts on every tensor
        "add_coalesce",  # load/store layouts
        "add_plan_cta",  # CTA layouts (Triton 3.6)
        "add_assign_cga_layouts",  # CTA layouts (Triton 3.9)
        "add_optimize_cta_locality",  # CTA layouts (Triton 3.9)
        "add_remove_layout_conversions",  # propagation, rematerialization
        "add_optimize_thread_locality",  # reduction layouts
        "add_accelerate_matmul",  # mma layouts and dot operands
    }
)
"""The passes of Triton's layout-assignment phase that llc replaces (by their ``passes.*``
function name). Passes of that phase not listed here still run."""

_PHASE_END = ("add_accelerate_matmul", "add_remove_layout_conversions")
_PHASE_NOT_FOUND = (
    "the installed Triton's make_ttgir has no remove-layout-conversions after "
    "accelerate-matmul, so llc cannot tell where its layout phase ends"
)


class LLCTritonWarning(UserWarning):
    """A kernel keeps Triton's own layouts (the message names the kernel and the reason)."""


@dataclass
class PassFilter:
    """Decides, pass by pass, what of Triton's ``make_ttgir`` runs after llc's layouts.

    Every ``add_*`` call of ``make_ttgir`` asks :meth:`admit`. In the layout phase (up to the
    ``remove-layout-conversions`` after ``accelerate-matmul``) the passes of
    :data:`LAYOUT_PASSES` are refused; after it, everything runs.

    >>> f = PassFilter()
    >>> calls = ["add_convert_to_ttgpuir", "add_coalesce", "add_f32_dot_tc",
    ...          "add_remove_layout_conversions", "add_accelerate_matmul",
    ...          "add_remove_layout_conversions", "add_optimize_dot_operands", "add_pipeline",
    ...          "add_remove_layout_conversions", "add_reduce_data_duplication"]
    >>> [name for name in calls if f.admit(name)]  # doctest: +NORMALIZE_WHITESPACE
    ['add_f32_dot_tc', 'add_optimize_dot_operands', 'add_pipeline',
     'add_remove_layout_conversions', 'add_reduce_data_duplication']
    >>> f.phase_found
    True
    """

    ran: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    _seen_matmul: bool = False
    phase_found: bool = False

    def admit(self, name: str) -> bool:
        """Whether the pass ``name`` (``add_coalesce``, ...) runs; records the decision."""
        if self.phase_found or name not in LAYOUT_PASSES:
            self.ran.append(name)
            return True
        self.skipped.append(name)
        if name == _PHASE_END[0]:
            self._seen_matmul = True
        elif name == _PHASE_END[1] and self._seen_matmul:
            self.phase_found = True
        return False


class _PassAdder:
    """A ``passes.<group>.add_*`` function that asks the filter first."""

    def __init__(self, real: Callable[..., Any], name: str, decisions: PassFilter) -> None:
        self._real, self._name, self._decisions = real, name, decisions

    def __call__(self, pm: Any, *args: Any, **kwargs: Any) -> Any:
        if self._decisions.admit(self._name):
            return self._real(getattr(pm, "real", pm), *args, **kwargs)
        return None


class _Namespace:
    """``passes``/``nvidia`` with every ``add_*`` function behind the filter."""

    def __init__(self, real: Any, decisions: PassFilter) -> None:
        self._real, self._decisions = real, decisions

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._real, name)
        if name.startswith("add_") and callable(value):
            return _PassAdder(value, name, self._decisions)
        if isinstance(value, types.ModuleType):
            return _Namespace(value, self._decisions)
        return value


class _PassManager:
    """Triton's pass manager; ``run`` refuses to run when the layout phase was not found."""

    def __init__(self, real: Any, decisions: PassFilter) -> None:
        self.real, self._decisions = real, decisions

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def run(self, *args: Any, **kwargs: Any) -> Any:
        if not self._decisions.phase_found:
            raise RuntimeError(_PHASE_NOT_FOUND)
        return self.real.run(*args, **kwargs)


class _IR:
    """``ir`` whose ``pass_manager`` is wrapped (to check the phase before running)."""

    def __init__(self, real: Any, decisions: PassFilter) -> None:
        self._real, self._decisions = real, decisions

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._real, name)
        if name == "pass_manager":
            return lambda *a, **k: _PassManager(value(*a, **k), self._decisions)
        return value


def after_layouts(backend: Any, decisions: PassFilter) -> Callable[..., Any]:
    """The backend's ``make_ttgir`` without its layout phase: the same code, run with its
    ``passes``, ``nvidia`` and ``ir`` globals behind ``decisions``. Called like ``make_ttgir``
    (``(mod, metadata, options, capability)``)."""
    raw = inspect.getattr_static(type(backend), "make_ttgir")
    is_static = isinstance(raw, staticmethod)
    fn = raw.__func__ if isinstance(raw, staticmethod | classmethod) else raw
    names = set(fn.__code__.co_names)
    if "passes" not in names or "ir" not in names:
        raise RuntimeError("the installed Triton's make_ttgir does not add passes by name")
    scope = dict(fn.__globals__)
    scope["passes"] = _Namespace(scope["passes"], decisions)
    if "nvidia" in scope:
        scope["nvidia"] = _Namespace(scope["nvidia"], decisions)
    scope["ir"] = _IR(scope["ir"], decisions)
    copy = types.FunctionType(fn.__code__, scope, fn.__name__, fn.__defaults__, fn.__closure__)
    if is_static:
        return copy
    return types.MethodType(copy, type(backend) if isinstance(raw, classmethod) else backend)


# --------------------------------------------------------------------------- conversions, report

_ALIAS_LINE_RE = re.compile(r"^(#[\w.$-]+) = (#.*)$", re.MULTILINE)
_CONVERT_LINE_RE = re.compile(r"ttg\.convert_layout %[\w#.$-]+ : (tensor<.*)$", re.MULTILINE)
_ALIAS_NAME_RE = re.compile(r"#[A-Za-z_][\w$.-]*")
_TENSOR_RE = re.compile(r"tensor<([0-9x]+)x([a-z]+[0-9]*), (#.*)>")


def _tensor(text: str) -> tuple[list[int], str, str, int]:
    """``tensor<64x64xf16, #enc>...`` -> (shape, dtype, encoding text, end), brackets balanced."""
    depth, end = 0, len(text)
    for index, char in enumerate(text):
        depth += (char == "<") - (char == ">")
        if depth == 0 and char == ">":
            end = index + 1
            break
    match = _TENSOR_RE.fullmatch(text[:end])
    if match is None:
        raise ValueError(f"cannot read the tensor type {text[:end]!r}")
    return [int(d) for d in match.group(1).split("x")], match.group(2), match.group(3), end


def _convert_types(text: str) -> tuple[tuple[list[int], str, str], str]:
    """The source (shape, dtype, encoding) and the destination encoding of a conversion's
    ``tensor<...> -> tensor<...>``."""
    shape, dtype, src, end = _tensor(text)
    rest = text[end:]
    if not rest.startswith(" -> "):
        raise ValueError(f"cannot read the conversion type {text!r}")
    return (shape, dtype, src), _tensor(rest[4:])[2]


def ttgir_conversions(ttgir: str, capability: int = 90) -> tuple[int, float]:
    """``ttg.convert_layout`` ops of a TTGIR module text and their summed modeled cost
    (:func:`llc.cost.conversion_cost`, issue cycles per warp; an op inside a loop counts
    once). Reads only the layout alias lines and the conversion lines (encodings by alias or
    inline), so any TTGIR works, also one with ops llc does not import (the pipeliner's).

    >>> blocked = "#ttg.blocked<{{sizePerThread = [{}], threadsPerWarp = [32], warpsPerCTA = [4], "
    >>> blocked += "order = [0]}}>"
    >>> text = f'''#a = {blocked.format(1)}
    ... #b = {blocked.format(4)}
    ... module {{
    ...   %1 = ttg.convert_layout %0 : tensor<512xf32, #a> -> tensor<512xf32, #b> loc(#loc3)
    ... }}'''
    >>> count, cost = ttgir_conversions(text)
    >>> count, cost > 0
    (1, True)
    """
    from llc.cost import conversion_cost
    from llc.dialects import tl
    from llc.tools.layout import dump_aliases

    converts = [_convert_types(text) for text in _CONVERT_LINE_RE.findall(ttgir)]
    if not converts:
        return 0, 0.0
    lines = [m.group(0) for m in _ALIAS_LINE_RE.finditer(ttgir)]
    names: list[tuple[str, str]] = []
    for index, ((_, _, src), dst) in enumerate(converts):
        pair = []
        for side, encoding in (("src", src), ("dst", dst)):
            if _ALIAS_NAME_RE.fullmatch(encoding):
                pair.append(encoding)
            else:  # an inline encoding (``#ttg.dot_op<{..., parent = #mma}>``) becomes an alias
                pair.append(f"#llc_cvt_{side}{index}")
                lines.append(f"{pair[-1]} = {encoding}")
        names.append((pair[0], pair[1]))
    aliases = dump_aliases("\n".join(lines), "<ttgir>")
    total = 0.0
    for ((shape, dtype, _), _), (src_name, dst_name) in zip(converts, names, strict=True):
        padded = [1 << max(0, (d - 1).bit_length()) for d in shape]
        src_layout = tl.layout_of(aliases[src_name])
        dst_layout = tl.layout_of(aliases[dst_name])
        total += conversion_cost(src_layout, dst_layout, padded, dtype, capability).total
    return len(converts), total


def report_line(
    kernel: str,
    capability: int,
    options: Any,
    llc: dict[str, Any] | None,
    triton_side: dict[str, Any],
    fallback: str | None,
) -> dict[str, Any]:
    """One line of the ``LLC_TRITON_REPORT`` file (a JSON object).

    >>> from types import SimpleNamespace
    >>> line = report_line("add", 90, SimpleNamespace(num_warps=4, num_stages=3), None,
    ...                    {"conversions": 0, "cost": 0.0, "ttgir_s": 0.1}, "no layouts")
    >>> line["kernel"], line["target"], line["fallback"], line["llc"]
    ('add', 'cuda:90', 'no layouts', None)
    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        triton_version = version("triton")
    except PackageNotFoundError:
        triton_version = "not installed"
    return {
        "kernel": kernel,
        "target": f"cuda:{capability}",
        "num_warps": getattr(options, "num_warps", None),
        "num_stages": getattr(options, "num_stages", None),
        "triton_version": triton_version,
        "fallback": fallback,
        "llc": llc,
        "triton": triton_side,
    }


# --------------------------------------------------------------------------------- the ttgir stage

_PUBLIC_FUNC_RE = re.compile(r"tt\.func\s+public\s+@([\w$.]+)")
_FUNC_NAME_RE = re.compile(r"tt\.func\s+(?:public\s+|private\s+)?@([\w$.]+)")
_warned: set[str] = set()
_lock = threading.Lock()


def _kernel_name(ttir: str) -> str:
    r"""The kernel's name: the public ``tt.func`` (helpers Triton did not inline are private).

    >>> _kernel_name("tt.func private @helper() {}\ntt.func public @kernel() {}")
    'kernel'
    """
    match = _PUBLIC_FUNC_RE.search(ttir) or _FUNC_NAME_RE.search(ttir)
    return match.group(1) if match else "<kernel>"


def describe_failure(err: BaseException) -> str:
    """One line saying why llc gave up: the location and message of a located error (xDSL's
    ``file:line:col`` / source line / carets / message, or llc's ``file:line:col: error: ...``),
    else the first line; without the list of supported ops.

    >>> text = "k.ttir:3:10\\n  %y = tt.foo %x\\n       ^^^^^^\\n"
    >>> text += "  llc cannot import 'tt.foo' (supported: ...)"
    >>> describe_failure(ValueError(text))
    "ValueError: k.ttir:3:10: llc cannot import 'tt.foo'"
    """
    text = str(err).strip() or type(err).__name__
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    line = lines[0]
    if "error:" not in line and _LOCATION_RE.fullmatch(line) and len(lines) > 1:
        message = next(x for x in reversed(lines) if x.strip("^~ "))
        line = f"{line}: {message}"
    line = re.sub(r" \(supported: .*\)$", "", line)
    return f"{type(err).__name__}: {line}"[:300]


_LOCATION_RE = re.compile(r"\S+:\d+:\d+")


def _warn_once(key: str, message: str) -> None:
    with _lock:
        if key in _warned:
            return
        _warned.add(key)
    warnings.warn(message, LLCTritonWarning, stacklevel=3)


def _parse_back(text: str, context: Any, name: str) -> Any:
    from triton._C.libtriton import ir

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_text(text)
        module = ir.parse_mlir_module(str(path), context)
    module.context = context  # the module keeps its context alive, as triton.compile does
    return module


@dataclass
class _LLCResult:
    module: Any
    exported_conversions: int
    layout_s: float
    decisions: PassFilter


def _llc_ttgir(
    src: Any, ttir: str, name: str, metadata: dict, backend: Any, options: Any, capability: int
) -> _LLCResult:
    """llc's layouts, then the rest of Triton's ``make_ttgir``; raises when llc cannot."""
    num_ctas = getattr(options, "num_ctas", 1)
    if num_ctas != 1:
        raise RuntimeError(f"num_ctas = {num_ctas}: llc lays out one CTA per program")
    start = time.perf_counter()
    from llc.dialects import tl
    from llc.dialects.ttgir import HardwareDefaults, TritonContext, parse_triton_module
    from llc.passes.layout_passes import OptimizeLayoutsPass
    from llc.passes.targets.ttgir import module_to_ttgir

    target = f"cuda:{capability}"
    lanes = 32  # Triton's make_ttgir gives every NVIDIA kernel 32 threads per warp
    defaults = HardwareDefaults(options.num_warps, lanes, target)
    module = parse_triton_module(ttir, f"{name}.ttir", defaults)
    OptimizeLayoutsPass(num_warps=options.num_warps, threads_per_warp=lanes, target=target).apply(
        TritonContext(), module
    )
    exported = sum(isinstance(op, tl.ConvertLayoutOp) for op in module.walk())
    laid_out = _parse_back(module_to_ttgir(module), src.context, f"{name}.llc.ttgir")
    layout_s = time.perf_counter() - start
    decisions = PassFilter()
    result = after_layouts(backend, decisions)(laid_out, metadata, options, capability)
    return _LLCResult(result, exported, layout_s, decisions)


def _triton_reference(
    ttir: str, context: Any, original: Callable[..., Any], metadata: dict
) -> dict[str, Any]:
    """Triton's own ``ttgir`` stage on a fresh copy of the TTIR, for the report."""
    copy = _parse_back(ttir, context, "triton.ttir")
    start = time.perf_counter()
    result = original(copy, dict(metadata))
    seconds = time.perf_counter() - start
    return {"text": str(result), "ttgir_s": seconds}


def _ttgir_stage(
    src: Any,
    metadata: dict,
    original: Callable[..., Any],
    backend: Any,
    options: Any,
    capability: int,
) -> Any:
    ttir = str(src)
    name = _kernel_name(ttir)
    report_path = os.environ.get(ENV_REPORT)
    start = time.perf_counter()
    fallback: str | None = None
    llc_result: _LLCResult | None = None
    try:
        llc_result = _llc_ttgir(src, ttir, name, metadata, backend, options, capability)
        result = llc_result.module
    except Exception as err:  # a program never breaks because llc is on
        fallback = describe_failure(err)
        _warn_once(name, f"llc.triton: kernel '{name}' keeps Triton's layouts: {fallback}")
        start = time.perf_counter()
        result = original(src, metadata)
    stage_s = time.perf_counter() - start
    if report_path:
        _append_report(
            report_path, name, capability, options, result, stage_s, llc_result, fallback,
            ttir, src.context, original, metadata,
        )  # fmt: skip
    return result


def _append_report(
    path: str,
    name: str,
    capability: int,
    options: Any,
    result: Any,
    stage_s: float,
    llc_result: _LLCResult | None,
    fallback: str | None,
    ttir: str,
    context: Any,
    original: Callable[..., Any],
    metadata: dict,
) -> None:
    try:
        if llc_result is None:
            reference = {"text": str(result), "ttgir_s": stage_s}
            llc = None
        else:
            reference = _triton_reference(ttir, context, original, metadata)
            count, cost = ttgir_conversions(str(result), capability)
            llc = {
                "conversions": count,
                "cost": cost,
                "exported_conversions": llc_result.exported_conversions,
                "layout_s": llc_result.layout_s,
                "ttgir_s": stage_s,
                "skipped_passes": llc_result.decisions.skipped,
            }
        count, cost = ttgir_conversions(reference["text"], capability)
        triton_side = {"conversions": count, "cost": cost, "ttgir_s": reference["ttgir_s"]}
        text = json.dumps(report_line(name, capability, options, llc, triton_side, fallback))
    except Exception as err:  # the report never breaks a compile either
        text = json.dumps(
            {"kernel": name, "report_error": describe_failure(err), "fallback": fallback}
        )
    with _lock, open(path, "a") as file:
        file.write(text + "\n")


# -------------------------------------------------------------------------------------- the hook


def _is_triton_language(language: Any) -> bool:
    return getattr(language, "name", str(language)).upper().endswith("TRITON")


def _install_stage(
    backend: Any, stages: dict, options: Any, language: Any, capability: Any
) -> None:
    target = getattr(backend, "target", None)
    kind = getattr(target, "backend", None)
    if kind != "cuda":
        _warn_once(
            f"backend:{kind}",
            f"llc.triton: the {kind} backend keeps Triton's layouts. llc assigns AMD layouts "
            "(amd_mfma on gfx908/90a/942/950) but does not import AMD's TTIR extensions (the "
            "amdgpu ops and their buffer/async loads), its -t ttgir export has no amdgpu ops, "
            "and the AMD make_ttgir's layout phase (coalesce, accelerate-matmul with mfma/wmma "
            "choices, the LDS-staging passes) is not split yet",
        )
        return
    if not _is_triton_language(language) or "ttgir" not in stages:
        return  # Gluon kernels carry their own layouts
    original = stages["ttgir"]

    def ttgir(src: Any, metadata: dict) -> Any:
        return _ttgir_stage(src, metadata, original, backend, options, capability)

    stages["ttgir"] = ttgir


@dataclass
class _State:
    enabled: bool = False
    previous: Any = None
    hook: Any = None
    cache_dir: tuple[str | None, str | None] | None = None
    key: tuple[str, str] | None = None


_state = _State()


def _digest() -> str:
    """llc's version and a digest of the code that decides layouts (cached)."""
    if _state.key is None:
        import llc
        import llc.dialects
        import llc.passes

        sha = hashlib.sha256(b"llc.triton/1")
        for package in (llc, llc.dialects, llc.passes):
            folder = Path(package.__file__).parent
            for path in sorted(folder.rglob("*.py")):
                sha.update(path.name.encode())
                sha.update(path.read_bytes())
        digest = sha.hexdigest()
        _state.key = (f"-llc-{digest[:16]}", digest)
    return _state.key[1]


def _hook(*args: Any) -> Any:
    previous = _state.previous
    if not args:  # Triton 3.9 asks for a cache key: (key, hash)
        digest = _digest()
        assert _state.key is not None
        if previous is None:
            return _state.key
        key, hashed = previous()
        return key + _state.key[0], hashlib.sha256(f"{hashed}{digest}".encode()).hexdigest()
    if previous is not None:
        previous(*args)
    _install_stage(*args)
    return None


def _hook_keys_the_cache() -> bool:
    """Whether the installed Triton asks the hook for a cache key (3.9 does, 3.6 does not)."""
    from triton.compiler import compiler

    return "add_stages_inspection_hook()" in inspect.getsource(compiler.compile)


def enabled() -> bool:
    """Whether llc's layouts are on (:func:`enable`).

    >>> isinstance(enabled(), bool)
    True
    """
    return _state.enabled


def enable() -> None:
    """Give every Triton kernel compiled from now on llc's layouts (see the module doc).
    Idempotent; keeps and chains a hook installed before.

    >>> import pytest; _ = pytest.importorskip("triton")
    >>> enable(); enabled()
    True
    >>> disable(); enabled()
    False
    """
    if _state.enabled:
        return
    from triton import knobs

    _state.previous = knobs.runtime.add_stages_inspection_hook
    knobs.runtime.add_stages_inspection_hook = _hook
    _state.hook = knobs.runtime.add_stages_inspection_hook
    if not _hook_keys_the_cache():
        # Setting the knob also sets TRITON_CACHE_DIR; disable() puts back both.
        explicit = knobs.cache.__dict__.get("dir")
        _state.cache_dir = (explicit, os.environ.get("TRITON_CACHE_DIR"))
        knobs.cache.dir = str(Path(knobs.cache.dir) / f"llc-{_digest()[:16]}")
    _state.enabled = True


def disable() -> None:
    """Back to Triton's own layouts for kernels compiled from now on; restores the hook that
    was there before :func:`enable` (unless someone replaced llc's since).

    >>> disable(); enabled()
    False
    """
    if not _state.enabled:
        return
    from triton import knobs

    if knobs.runtime.add_stages_inspection_hook is _state.hook:
        knobs.runtime.add_stages_inspection_hook = _state.previous
    if _state.cache_dir is not None:
        explicit, variable = _state.cache_dir
        del knobs.cache.dir
        if explicit is not None:
            knobs.cache.dir = explicit
        if variable is None:
            os.environ.pop("TRITON_CACHE_DIR", None)
        else:
            os.environ["TRITON_CACHE_DIR"] = variable
        _state.cache_dir = None
    _state.previous = _state.hook = None
    _state.enabled = False


@contextlib.contextmanager
def layouts() -> Iterator[None]:
    """llc's layouts for the kernels compiled inside the block; the state before is restored.

    >>> import pytest; _ = pytest.importorskip("triton")
    >>> with layouts():
    ...     enabled()
    True
    >>> enabled()
    False
    """
    was = _state.enabled
    enable()
    try:
        yield
    finally:
        if not was:
            disable()


# ---------------------------------------------------------------------------- LLC_TRITON=1, .pth


class _EnableAfterTritonImport(importlib.abc.MetaPathFinder):
    """Calls :func:`enable` right after ``import triton`` finishes (one-shot)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: Any = None) -> Any:
        if fullname != "triton":
            return None
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        real = spec.loader

        class Loader(importlib.abc.Loader):
            def create_module(self, spec: Any) -> Any:
                return real.create_module(spec)

            def exec_module(self, module: Any) -> None:
                real.exec_module(module)
                _enable_from_environment()

        spec.loader = Loader()
        return spec


def _enable_from_environment() -> None:
    try:
        enable()
    except Exception as err:  # start-up must never fail because of llc
        warnings.warn(
            f"llc.triton: {ENV_ENABLE}=1 but: {describe_failure(err)}", LLCTritonWarning, 2
        )


def environment_requests() -> bool:
    """Whether ``LLC_TRITON`` asks for llc's layouts (set, and not ``0``).

    >>> os.environ.pop(ENV_ENABLE, None) and None
    >>> environment_requests()
    False
    """
    return os.environ.get(ENV_ENABLE, "0").strip() not in ("", "0")


def _check_environment() -> None:
    if not environment_requests() or _state.enabled:
        return
    if "triton" in sys.modules:
        _enable_from_environment()
    elif not any(isinstance(f, _EnableAfterTritonImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _EnableAfterTritonImport())


PTH_NAME = "llc_triton.pth"
PTH_LINE = (
    "import os; os.environ.get('LLC_TRITON', '0').strip() not in ('', '0') "
    "and __import__('llc.triton')\n"
)
"""The line of the ``.pth`` file: Python's ``site`` runs it at start-up; it imports this module
(stdlib only, cheap) when ``LLC_TRITON`` is set, whose import-time check does the rest."""


def install_pth(site_dir: str | None = None) -> Path:
    """Write :data:`PTH_NAME` into ``site_dir`` (default: this environment's site-packages)."""
    import sysconfig

    path = Path(site_dir or sysconfig.get_paths()["purelib"]) / PTH_NAME
    path.write_text(PTH_LINE)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m llc.triton install [DIR] | uninstall [DIR] | status``."""
    import sysconfig

    args = list(sys.argv[1:] if argv is None else argv)
    command = args[0] if args else "status"
    site_dir = args[1] if len(args) > 1 else sysconfig.get_paths()["purelib"]
    path = Path(site_dir) / PTH_NAME
    if command == "install":
        print(f"wrote {install_pth(site_dir)}: LLC_TRITON=1 now turns llc's layouts on")
    elif command == "uninstall":
        path.unlink(missing_ok=True)
        print(f"removed {path}")
    elif command == "status":
        print(f"{path}: {'installed' if path.exists() else 'not installed'}")
        print(f"{ENV_ENABLE}={os.environ.get(ENV_ENABLE, '')!r}; enabled here: {enabled()}")
    else:
        print("usage: python -m llc.triton install|uninstall|status [SITE_DIR]", file=sys.stderr)
        return 1
    return 0


_check_environment()

if __name__ == "__main__":
    sys.exit(main())
