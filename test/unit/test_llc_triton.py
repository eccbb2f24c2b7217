"""``llc.triton``: llc's layouts inside Triton through ``add_stages_inspection_hook``.

Runs Triton's CPU wheel (``triton.compile`` with a ``GPUTarget``, no GPU); skipped, with the
reason, without Triton. Each kernel is small so that a compile takes well under a second.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

triton = pytest.importorskip(
    "triton", reason="Triton is not installed (the optional 'bench' extra)"
)
tl = pytest.importorskip("triton.language")

from triton._C.libtriton import ir, passes  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.backends.nvidia.compiler import CUDABackend  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

import llc.triton as llc_triton  # noqa: E402
from llc.dialects import ttgir  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask))


@triton.jit
def transpose_kernel(x_ptr, y_ptr, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    x = tl.load(x_ptr + rm[:, None] * BN + rn[None, :])
    tl.store(y_ptr + rn[:, None] * BM + rm[None, :], tl.trans(x))


@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


@triton.jit
def inline_asm_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.inline_asm_elementwise(
        "neg.f32 $0, $1;", "=r,r", [x], dtype=tl.float32, is_pure=True, pack=1
    )
    tl.store(y_ptr + offs, y)


KERNELS: dict[str, tuple[Any, dict[str, str], dict[str, int]]] = {
    "add_kernel": (
        add_kernel,
        {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
        {"BLOCK": 256},
    ),
    "transpose_kernel": (
        transpose_kernel,
        {"x_ptr": "*fp32", "y_ptr": "*fp32"},
        {"BM": 32, "BN": 32},
    ),
    "dot_kernel": (
        dot_kernel,
        {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "K": "i32"},
        {"BM": 32, "BN": 32, "BK": 32},
    ),
    "inline_asm_kernel": (inline_asm_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32"}, {"BLOCK": 128}),
}
# A 64x64 tile: Triton 3.9 takes Hopper's warp_group_dot on sm_90, llc (for now) mma v2, so the
# report's two sides differ.
KERNELS["dot64_kernel"] = (dot_kernel, KERNELS["dot_kernel"][1], {"BM": 64, "BN": 64, "BK": 32})


def fn_name(name: str) -> str:
    return KERNELS[name][0].fn.__name__


def compile_kernel(name: str, arch: int = 80, **options: Any) -> Any:
    """``triton.compile`` a kernel of :data:`KERNELS` for ``sm_<arch>``, pointers 16-byte aligned
    (as Triton's launcher specialises them), one stage unless ``num_stages`` says otherwise."""
    fn, signature, constexprs = KERNELS[name]
    attrs = {
        (i,): [["tt.divisibility", 16]] for i, t in enumerate(signature.values()) if t[0] == "*"
    }
    source = ASTSource(
        fn=fn,
        signature=dict(signature) | dict.fromkeys(constexprs, "constexpr"),
        constexprs=constexprs,
        attrs=attrs,
    )
    options = {"num_warps": 4, "num_stages": 1} | options
    return triton.compile(source, target=GPUTarget("cuda", arch, 32), options=options)


@pytest.fixture(autouse=True)
def fresh_triton(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    """Every test compiles (no cache hit), starts with llc off and no warning given yet."""
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TRITON_ALWAYS_COMPILE", "1")
    monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", "1")
    monkeypatch.delenv(llc_triton.ENV_REPORT, raising=False)
    llc_triton.disable()
    llc_triton._warned.clear()
    yield
    llc_triton.disable()
    triton.knobs.runtime.add_stages_inspection_hook = None


def llc_own_ttgir(ttir: str, arch: int, num_warps: int) -> str:
    """What llc's pipeline alone makes of a TTIR (the layouts the hook must hand to Triton)."""
    from llc.dialects.ttgir import HardwareDefaults, TritonContext, parse_triton_module
    from llc.passes.layout_passes import OptimizeLayoutsPass
    from llc.passes.targets.ttgir import module_to_ttgir

    module = parse_triton_module(ttir, "k.ttir", HardwareDefaults(num_warps, 32, f"cuda:{arch}"))
    OptimizeLayoutsPass().apply(TritonContext(), module)
    return module_to_ttgir(module)


_DISTRIBUTED = re.compile(r"^#\w+ = (#ttg\.(?:blocked|nvidia_mma|linear)<.*>)$", re.M)


def distributed_layouts(ttgir: str) -> set[str]:
    return set(_DISTRIBUTED.findall(ttgir))


def read_report(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# ------------------------------------------------------------------------------------- tests


@pytest.mark.parametrize(
    ("name", "arch", "warps"),
    [
        ("add_kernel", 80, 4),
        ("transpose_kernel", 90, 4),
        ("dot_kernel", 80, 4),
        ("dot_kernel", 90, 8),
        ("dot64_kernel", 90, 4),
    ],
)
def test_each_kernel_compiles_with_llcs_layouts_and_is_reported(
    name: str, arch: int, warps: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = tmp_path / "report.jsonl"
    monkeypatch.setenv(llc_triton.ENV_REPORT, str(report))
    ttir = compile_kernel(name, arch, num_warps=warps).asm["ttir"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", llc_triton.LLCTritonWarning)  # no fallback
        llc_triton.enable()
        compiled = compile_kernel(name, arch, num_warps=warps)
    ttgir = compiled.asm["ttgir"]
    own = llc_own_ttgir(ttir, arch, warps)
    # Triton continued from llc's TTGIR: the module was parsed from llc's text, and carries
    # llc's distributed layouts and warp count.
    assert f'{fn_name(name)}.llc.ttgir"' in ttgir
    assert distributed_layouts(own) and distributed_layouts(own) <= distributed_layouts(ttgir)
    assert f'"ttg.num-warps" = {warps}' in ttgir
    (line,) = read_report(report)
    assert (
        line["kernel"] == fn_name(name)
        and line["target"] == f"cuda:{arch}"
        and line["fallback"] is None
    )
    assert line["num_warps"] == warps
    assert line["llc"]["exported_conversions"] == own.count("ttg.convert_layout")
    assert (line["llc"]["conversions"], line["llc"]["cost"]) == llc_triton.ttgir_conversions(
        ttgir, arch
    )
    assert line["llc"]["skipped_passes"][0] == "add_convert_to_ttgpuir"
    assert set(line["llc"]["skipped_passes"]) <= llc_triton.LAYOUT_PASSES
    for side in ("llc", "triton"):
        assert line[side]["ttgir_s"] > 0 and line[side]["cost"] >= 0
    # Triton's own make_ttgir ran on the same TTIR for the comparison, and left what a plain
    # compile leaves.
    llc_triton.disable()
    plain = compile_kernel(name, arch, num_warps=warps).asm["ttgir"]
    assert (line["triton"]["conversions"], line["triton"]["cost"]) == llc_triton.ttgir_conversions(
        plain, arch
    )


def test_the_passes_after_the_layout_phase_run_on_llcs_layouts() -> None:
    """Software pipelining (num_stages=3: async copies into shared memory), the dot-operand
    staging and the late remove-layout-conversions all run after llc's layouts."""
    llc_triton.enable()
    ttgir = compile_kernel("dot_kernel", 80, num_stages=3).asm["ttgir"]
    assert "dot_kernel.llc.ttgir" in ttgir
    assert "ttg.async_copy_global_to_local" in ttgir and "ttg.local_load" in ttgir

    backend = triton.compiler.compiler.make_backend(GPUTarget("cuda", 80, 32))
    decisions = llc_triton.PassFilter()
    make = llc_triton.after_layouts(backend, decisions)
    options = backend.parse_options({"num_warps": 4})
    ttir = compile_kernel("dot_kernel", 80).asm["ttir"]
    context = triton._C.libtriton.ir.context()
    triton._C.libtriton.ir.load_dialects(context)
    backend.load_dialects(context)
    own = llc_own_ttgir(ttir, 80, 4)
    module = llc_triton._parse_back(own, context, "k.ttgir")
    make(module, {}, options, 80)
    assert decisions.phase_found
    # The installed Triton's list, not a copy: every pass it adds either ran or was skipped,
    # only layout passes were skipped, and the one after the phase still runs.
    assert set(decisions.skipped) <= llc_triton.LAYOUT_PASSES
    for name in ("add_pipeline", "add_optimize_dot_operands", "add_reduce_data_duplication"):
        assert name in decisions.ran
    assert "add_remove_layout_conversions" in decisions.ran
    assert "add_accelerate_matmul" not in decisions.ran
    assert "add_coalesce" not in decisions.ran


def test_fallback_names_the_kernel_and_the_reason_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = compile_kernel("inline_asm_kernel").asm["ttgir"]
    # llc reads inline asm; the test makes its importer forget the op, as an op it does not
    # read (a newer Triton's) would be.
    monkeypatch.delitem(ttgir.OP_NAMES, "tt.elementwise_inline_asm")
    report = tmp_path / "report.jsonl"
    monkeypatch.setenv(llc_triton.ENV_REPORT, str(report))
    llc_triton.enable()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = compile_kernel("inline_asm_kernel").asm["ttgir"]
        compile_kernel("inline_asm_kernel")
    messages = [str(w.message) for w in caught if w.category is llc_triton.LLCTritonWarning]
    assert len(messages) == 1, messages
    assert "kernel 'inline_asm_kernel'" in messages[0]
    assert "tt.elementwise_inline_asm" in messages[0]
    assert first == plain  # Triton's own layouts, the program runs as without llc
    lines = read_report(report)
    assert len(lines) == 2 and "tt.elementwise_inline_asm" in lines[0]["fallback"]
    assert lines[0]["llc"] is None


def test_disable_and_the_context_manager_restore_triton() -> None:
    plain = compile_kernel("transpose_kernel").asm["ttgir"]
    calls: list[int] = []

    def user_hook(*args: Any) -> Any:
        calls.append(len(args))
        return ("-user", "user") if not args else None

    triton.knobs.runtime.add_stages_inspection_hook = user_hook
    with llc_triton.layouts():
        assert llc_triton.enabled()
        inside = compile_kernel("transpose_kernel").asm["ttgir"]
        key, _ = triton.knobs.runtime.add_stages_inspection_hook()
        assert key.startswith("-user-llc-")
    assert not llc_triton.enabled()
    assert triton.knobs.runtime.add_stages_inspection_hook is user_hook
    assert 5 in calls  # the user's hook still saw the stages
    assert "transpose_kernel.llc.ttgir" in inside
    after = compile_kernel("transpose_kernel").asm["ttgir"]
    assert after == plain and "llc.ttgir" not in after
    llc_triton.enable()
    llc_triton.disable()
    assert compile_kernel("transpose_kernel").asm["ttgir"] == plain


def test_cache_key_separates_llc_from_triton(monkeypatch: pytest.MonkeyPatch) -> None:
    """With Triton's cache on, a kernel compiled with llc is never served without it (and the
    other way round): the hook's key is part of the cache key."""
    monkeypatch.delenv("TRITON_ALWAYS_COMPILE")
    plain = compile_kernel("transpose_kernel").asm["ttgir"]
    llc_triton.enable()
    key, digest = triton.knobs.runtime.add_stages_inspection_hook()
    assert (key, len(digest)) == (f"-llc-{digest[:16]}", 64)
    assert "transpose_kernel.llc.ttgir" in compile_kernel("transpose_kernel").asm["ttgir"]
    llc_triton.disable()
    assert compile_kernel("transpose_kernel").asm["ttgir"] == plain


def test_other_backends_keep_tritons_stages() -> None:
    class Target:
        backend = "hip"

    class Backend:
        target = Target()

    stages = {"ttgir": print}
    with pytest.warns(llc_triton.LLCTritonWarning, match="hip backend keeps Triton's layouts"):
        llc_triton._install_stage(Backend(), stages, None, "TRITON", None)
    assert stages == {"ttgir": print}


def test_several_ctas_fall_back() -> None:
    llc_triton.enable()
    with pytest.warns(llc_triton.LLCTritonWarning, match="num_ctas = 2"):
        ttgir = compile_kernel("add_kernel", 90, num_ctas=2).asm["ttgir"]
    assert "llc.ttgir" not in ttgir


def _python(code: str, env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout.strip()


def test_llc_triton_variable_enables_without_code_changes(tmp_path: Path) -> None:
    """``LLC_TRITON=1``: through the ``.pth`` file (what ``python -m llc.triton install`` writes;
    ``site.addsitedir`` processes it exactly as start-up processes site-packages) the program
    itself never imports llc; Triton is not imported before the program imports it."""
    pth = llc_triton.install_pth(str(tmp_path))
    assert pth.read_text() == llc_triton.PTH_LINE
    program = (
        f"import site, sys; site.addsitedir({str(tmp_path)!r}); "
        "before = 'triton' in sys.modules; "
        "import triton; hook = triton.knobs.runtime.add_stages_inspection_hook; "
        "print(before, getattr(hook, '__module__', None))"
    )
    assert _python(program, {"LLC_TRITON": "1"}) == "False llc.triton"
    assert _python(program, {"LLC_TRITON": "0"}) == "False None"
    # The import-time check alone, Triton imported first or last.
    late = "import llc.triton, triton; print(llc.triton.enabled())"
    early = "import triton, llc.triton; print(llc.triton.enabled())"
    assert _python(late, {"LLC_TRITON": "1"}) == "True"
    assert _python(early, {"LLC_TRITON": "1"}) == "True"
    assert _python(early, {"LLC_TRITON": ""}) == "False"


def test_readme_example_compiles_with_llcs_layouts(tmp_path: Path) -> None:
    """The README's example kernel (its launch needs a GPU): compiled with the hook on."""
    text = (ROOT / "README.md").read_text()
    block = text.split("### Using llc from Triton", 1)[1].split("```py\n", 1)[1].split("```")[0]
    code = [line for line in block.splitlines() if line.strip()]
    assert "llc.triton.enable()" in block and len(code) < 10  # the issue: under ten lines
    kernel = block[block.index("@triton.jit") :].split("\n\n")[0]
    (tmp_path / "readme_kernel.py").write_text(
        "import triton\nimport triton.language as tl\n\n" + kernel + "\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        import readme_kernel  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(tmp_path))
    fn = next(v for v in vars(readme_kernel).values() if isinstance(v, triton.JITFunction))
    llc_triton.enable()
    signature = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    source = ASTSource(fn=fn, signature=signature, constexprs={"BLOCK": 1024})
    ttgir = triton.compile(source, target=GPUTarget("cuda", 90, 32)).asm["ttgir"]
    assert f"{fn.__name__}.llc.ttgir" in ttgir


def test_pth_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = str(tmp_path)
    assert llc_triton.main(["install", site]) == 0
    assert (tmp_path / llc_triton.PTH_NAME).read_text() == llc_triton.PTH_LINE
    assert llc_triton.main(["status", site]) == 0
    assert "installed" in capsys.readouterr().out
    assert llc_triton.main(["uninstall", site]) == 0
    assert not (tmp_path / llc_triton.PTH_NAME).exists()
    assert llc_triton.main(["frobnicate"]) == 1


def test_a_make_ttgir_without_the_layout_phase_is_refused() -> None:
    """A Triton whose make_ttgir has no remove-layout-conversions after accelerate-matmul:
    nothing runs (the caller falls back to Triton's own stage)."""

    class Backend(CUDABackend):
        @staticmethod
        def make_ttgir(mod: Any, metadata: dict, opt: Any, capability: int) -> Any:
            pm = ir.pass_manager(mod.context)
            passes.ttgpuir.add_coalesce(pm)
            passes.ttgpuir.add_reorder_instructions(pm)
            pm.run(mod, "make_ttgir")
            return mod

    decisions = llc_triton.PassFilter()
    make = llc_triton.after_layouts(Backend(GPUTarget("cuda", 80, 32)), decisions)
    with pytest.raises(RuntimeError, match="cannot tell where its layout phase ends"):
        make(SimpleNamespace(context=ir.context()), {}, None, 80)
    assert decisions.skipped == ["add_coalesce"]
    assert decisions.ran == ["add_reorder_instructions"]
