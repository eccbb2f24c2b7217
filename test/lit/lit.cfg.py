"""lit configuration of llc's FileCheck tests (run: `lit -v test/lit`).

Tools (`llc-opt`, `llc-run`, `xdsl-opt`, `filecheck`) are taken from the virtualenv that runs
lit, then from PATH, so `.venv/bin/lit -v test/lit` works without activating the venv.
"""

# ruff: noqa: F821  (`config` and `lit_config` are injected by lit)

import os
import shutil
import sys

import lit.formats

config.name = "llc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test", ".ttgir", ".ttir"]
config.excludes = ["Inputs", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
# Scratch files (%t) and lit's record of each test's time go under test/lit/Output, so the
# record that lit reads when there is none there yet is the committed test/lit/.lit_test_times.txt:
# lit starts the slowest tests first (its default order), and a fresh clone does not end on one
# long test with the other worker idle. Refresh it after adding a slow test:
# `cp test/lit/Output/.lit_test_times.txt test/lit/`.
config.test_exec_root = os.path.join(config.test_source_root, "Output")

# Put the interpreter's bin directory (the venv where llc is installed) first on PATH.
_venv_bin = os.path.dirname(sys.executable)
_path = os.pathsep.join([_venv_bin, os.environ.get("PATH", "")])
config.environment["PATH"] = _path
for _var in ("PYTHONPATH", "HOME", "LLC_TRACEBACK"):
    if _var in os.environ:
        config.environment[_var] = os.environ[_var]

for _tool in ("llc-opt", "xdsl-opt", "filecheck"):
    if shutil.which(_tool, path=_path) is None:
        lit_config.fatal(f"'{_tool}' not found on PATH ({_path}); run `pip install -e '.[test]'`")

# The tool server (llc.testing.toolserver): one process imports llc-opt, llc-layout, llc-run,
# filecheck and xdsl-opt once and forks a child per RUN line, instead of each command paying
# about 0.4 s of imports. `lit --param toolserver=0` runs every command as a fresh process.
if lit_config.params.get("toolserver", "1") != "0":
    try:
        from llc.testing import toolserver
    except ImportError:  # a lit outside llc's virtualenv: the installed tools, one by one
        toolserver = None
    if toolserver is not None:
        _server = toolserver.start(_venv_bin)
        _path = os.pathsep.join([_server.bin_dir, _path])
        config.environment["PATH"] = _path
        config.environment[toolserver.ENV_SOCKET] = _server.socket_path

# Round trips, as xDSL's XDSL_ROUNDTRIP / XDSL_GENERIC_ROUNDTRIP: print generic, re-parse and
# print pretty (checked with CHECK), or print pretty, re-parse and print generic (CHECK-GENERIC).
config.substitutions.append(
    (
        "LLC_ROUNDTRIP",
        "llc-opt %s --print-op-generic --split-input-file"
        " | llc-opt --split-input-file | filecheck %s",
    )
)
config.substitutions.append(
    (
        "LLC_GENERIC_ROUNDTRIP",
        "llc-opt %s --split-input-file | llc-opt --print-op-generic --split-input-file"
        " | filecheck %s --check-prefix=CHECK-GENERIC",
    )
)
# Error tests: diagnostics of every `// -----` chunk on stdout, exit status 0.
config.substitutions.append(
    (
        "LLC_DIAGNOSTICS",
        "llc-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | filecheck %s",
    )
)
# Tests written for LLVM's FileCheck run unchanged on the Python port.
config.substitutions.append(("FileCheck", "filecheck"))
