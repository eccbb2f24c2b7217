"""Start-up of the command-line tools: what ``--help`` and usage errors import.

Timing is measured by ``bench/startup.py``; these tests pin the property that makes start-up
fast, in a fresh interpreter each: the tools' ``--help``, ``--version`` and usage errors load
neither numpy nor xDSL, and the reference interpreter does not load all of xDSL's interpreters.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("numpy", "xdsl")


def _modules_after(code: str) -> tuple[list[str], str]:
    """The heavy top-level modules loaded after running ``code`` in a fresh interpreter."""
    probe = (
        f"{code}\nimport sys\n"
        "import json\n"
        "print('MODULES', json.dumps(sorted({m.split('.')[0] for m in sys.modules} & set(%r))))"
        % (HEAVY,)
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=False
    )
    line = next(x for x in done.stdout.splitlines() if x.startswith("MODULES "))
    return json.loads(line.removeprefix("MODULES ")), done.stderr


@pytest.mark.parametrize(
    ("entry", "argv"),
    [
        ("layout_main", ["--help"]),
        ("opt_main", ["--help"]),
        ("run_main", ["--help"]),
        ("layout_main", ["--version"]),
        ("opt_main", ["--version"]),
        ("run_main", []),  # usage error: input_file is required
        ("opt_main", ["x.mlir", "--bogus-flag"]),
        ("layout_main", ["Swizzle<3,4,3>", "--max-elements", "0"]),
    ],
)
def test_help_version_and_usage_errors_load_no_numpy_or_xdsl(entry: str, argv: list[str]) -> None:
    code = (
        f"from llc.tools.cli import {entry}\n"
        f"try:\n    {entry}({argv!r})\nexcept SystemExit as exit:\n"
        "    print('EXIT', exit.code)"
    )
    modules, _ = _modules_after(code)
    assert modules == []


def test_usage_errors_exit_1_with_a_help_hint() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from llc.tools.cli import run_main; run_main([])"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr == (
        "llc-run: error: the following arguments are required: input_file (see 'llc-run --help')\n"
    )


def test_package_and_universe_import_lazily() -> None:
    modules, _ = _modules_after(
        "import llc, llc.dialects.universe as u\nassert 'llc-strip-layouts' in u.PASSES"
    )
    assert modules == []
    modules, _ = _modules_after("from llc import LinearLayout")
    assert modules == ["numpy"]


def test_universe_is_built_on_first_use() -> None:
    from llc.dialects import universe

    assert "tl" in universe.LLC_UNIVERSE.all_dialects
    assert set(universe.LLC_UNIVERSE.all_passes) == set(universe.PASSES)


def test_reference_interpreter_loads_only_the_xdsl_interpreters_it_uses() -> None:
    code = (
        "import json, sys\nimport llc.tools.run\n"
        "print('LOADED', json.dumps(sorted(m for m in sys.modules "
        "if m.startswith('xdsl.interpreters'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    line = next(x for x in done.stdout.splitlines() if x.startswith("LOADED "))
    loaded = json.loads(line.removeprefix("LOADED "))
    assert "xdsl.interpreters.func" in loaded and "xdsl.interpreters.scf" in loaded
    assert "xdsl.interpreters.riscv" not in loaded
    assert "xdsl.interpreters" not in loaded  # the package __init__ imports every interpreter
