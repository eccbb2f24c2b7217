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
        ("layout_main", ["L", "--to", "D", "--gather", "I"]),  # conflicting flags
        ("opt_main", ["x.mlir", "--gpu-target", "banana"]),  # a value outside the known set
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


def _conflicting_pairs() -> list[tuple[str, str]]:
    from llc.tools.cli import LAYOUT_CONFLICTS

    return [(flag, other) for flag, others in LAYOUT_CONFLICTS for other in others]


def _flag_args(flag: str) -> list[str]:
    switches = ("--vectorize", "--prove", "--json")
    values = {"--emit": "ptx", "--svg": "x.svg", "--html": "x.html"}
    return [flag] if flag in switches else [flag, values.get(flag, "#L")]


def test_the_issues_conflicts_are_in_the_table() -> None:
    """--to beside --gather, --equals or --vectorize used to ignore the second flag."""
    pairs = set(_conflicting_pairs())
    assert {("--to", "--gather"), ("--to", "--equals"), ("--to", "--vectorize")} <= pairs


@pytest.mark.parametrize(("flag", "other"), _conflicting_pairs())
def test_llc_layout_refuses_each_conflicting_pair(flag: str, other: str) -> None:
    from llc.tools.cli import layout_arg_parser, layout_conflict

    argv = ["#L", *_flag_args(flag), *_flag_args(other)]
    if flag == "--emit":
        argv += ["--to", "#D"]  # --emit needs --to, which goes with --emit's partners
    message = layout_conflict(layout_arg_parser().parse_args(argv))
    assert message == f"{flag} and {other} cannot be combined: each picks its own report"


@pytest.mark.parametrize(
    "argv",
    [
        ["--to", "#D", "--prove"],
        ["--to", "#D", "--svg", "x.svg"],
        ["--to", "#D", "--json"],
        ["--to", "#D", "--emit", "ptx"],
        ["--equals", "#B", "--prove"],
        ["--vectorize", "--json"],
        ["--svg", "x.svg", "--html", "x.html"],
    ],
)
def test_llc_layout_allows_flags_that_work_together(argv: list[str]) -> None:
    from llc.tools.cli import layout_arg_parser, layout_conflict

    assert layout_conflict(layout_arg_parser().parse_args(["#L", *argv])) is None
