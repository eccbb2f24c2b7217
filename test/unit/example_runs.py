"""Running an example (``test/lit/run/Inputs/check_example.py``'s kernels and arguments) for
the deletion tests: its case, and a runner that executes the first program of its grid on
fresh buffers, lowered (the SIMT kernel interpreter) or not (the tensor-level interpreter)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

ROOT = Path(__file__).resolve().parents[2]


def example_case(name: str, tmp: Path) -> tuple[Any, str]:
    """The example's arguments (written under ``tmp``) and its entry point."""
    sys.path.insert(0, str(ROOT / "test" / "lit" / "run" / "Inputs"))
    try:
        import check_example
    finally:
        sys.path.pop(0)
    return check_example.KERNELS[name](str(tmp)), check_example.ENTRIES[name]


def example_runner(case: Any, entry: str) -> Any:
    """Runs the first program of ``case``'s grid on its arguments (fresh buffers every run),
    lowered or not; returns the pointer arguments' buffers."""
    from llc.dialects.simt_kernel_interpreter import GlobalMemory, make_kernel_interpreter
    from llc.dialects.tl_interpreter import Pointer
    from llc.testing.semantics import make_interpreter, set_grid
    from llc.tools.run import bind_argument, make_context, parse_grid

    ctx = make_context()
    grid = parse_grid(case.grid)

    def run(module: ModuleOp) -> dict[str, np.ndarray]:
        fn = next(
            o for o in module.walk() if isinstance(o, func.FuncOp) and o.sym_name.data == entry
        )
        params = fn.function_type.inputs.data
        bound = [
            bind_argument(text, typ, f"arg{i}", ctx)
            for i, (text, typ) in enumerate(zip(case.args, params, strict=True))
        ]
        if "llc.num_warps" in fn.attributes:
            warps = fn.attributes["llc.num_warps"].value.data  # type: ignore[attr-defined]
            lanes = fn.attributes["llc.threads_per_warp"].value.data  # type: ignore[attr-defined]
            interp, kernel = make_kernel_interpreter(module, warps, lanes, GlobalMemory())
            kernel.num_programs = grid
            kernel.program_id = (0, 0, 0)
        else:
            interp = make_interpreter(module)
            set_grid(interp, (0, 0, 0), grid)
        interp.call_op(entry, tuple(b.value for b in bound))
        return {
            b.name: np.array(b.value.buffer.data) for b in bound if isinstance(b.value, Pointer)
        }

    return run
