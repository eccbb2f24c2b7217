"""The lit tests' tool server (:mod:`llc.testing.toolserver`): a command run through it behaves
as the installed tool run as a fresh process (output, errors, exit status, stdin, working
directory, environment), and without a server the stand-in runs the installed tool."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from llc.testing import toolserver

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = os.path.dirname(sys.executable)
BAD_LAYOUT = ROOT / "test" / "lit" / "tools" / "Inputs" / "bad-layout.mlir"
VECTOR_ADD = ROOT / "examples" / "vector_add.mlir"


@pytest.fixture(scope="module")
def server() -> Iterator[toolserver.Server]:
    # Warmed, as under lit: the children start from the server's imports.
    with toolserver.running(VENV_BIN) as running:
        yield running


def _run(
    command: list[str],
    env: dict[str, str],
    stdin: str | None = None,
    cwd: Path | str | None = None,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def _served(server: toolserver.Server, **extra: str) -> dict[str, str]:
    path = os.pathsep.join([server.bin_dir, VENV_BIN, os.environ.get("PATH", "")])
    return {**os.environ, "PATH": path, toolserver.ENV_SOCKET: server.socket_path, **extra}


def _fresh() -> dict[str, str]:
    env = {**os.environ, "PATH": os.pathsep.join([VENV_BIN, os.environ.get("PATH", "")])}
    env.pop(toolserver.ENV_SOCKET, None)
    return env


def _same(served: subprocess.CompletedProcess[str], fresh: subprocess.CompletedProcess[str]):
    assert (served.returncode, served.stdout, served.stderr) == (
        fresh.returncode,
        fresh.stdout,
        fresh.stderr,
    )


@pytest.mark.parametrize(
    "args",
    [
        ["llc-opt", str(VECTOR_ADD)],
        ["llc-opt", str(BAD_LAYOUT)],  # a located error on stderr, exit status 1
        ["llc-layout", "Swizzle<3,4,3>"],
        ["llc-run", "--bogus"],  # a usage error: argparse's SystemExit
    ],
    ids=["output", "error", "layout", "usage"],
)
def test_served_command_matches_fresh_process(server: toolserver.Server, args: list[str]) -> None:
    served = _run([os.path.join(server.bin_dir, args[0]), *args[1:]], _served(server))
    _same(served, _run(args, _fresh()))
    assert served.stdout or served.stderr


def test_stdin_cwd_and_environment_reach_the_tool(
    server: toolserver.Server, tmp_path: Path
) -> None:
    (tmp_path / "k.mlir").write_text(VECTOR_ADD.read_text())
    tool = os.path.join(server.bin_dir, "llc-opt")
    # A relative path resolves against the command's directory, not the server's.
    relative = _run([tool, "k.mlir"], _served(server), cwd=tmp_path)
    assert relative.returncode == 0 and "func.func @add_kernel" in relative.stdout
    piped = _run([tool, "-"], _served(server), stdin=VECTOR_ADD.read_text())
    assert piped.stdout == relative.stdout
    # LLC_TRACEBACK (read at run time) is the command's own environment.
    traced = _run([tool, str(BAD_LAYOUT)], _served(server, LLC_TRACEBACK="1"))
    assert traced.returncode == 1 and "Traceback" in traced.stderr
    plain = _run([tool, str(BAD_LAYOUT)], _served(server))
    assert "Traceback" not in plain.stderr


def test_commands_run_in_the_server_not_as_fresh_processes(tmp_path: Path) -> None:
    # The stand-ins' fallback is a fake tool here: the real output proves the server ran it.
    fake = tmp_path / "fake-bin"
    fake.mkdir()
    (fake / "llc-layout").write_text("#!/bin/sh\necho fallback\nexit 42\n")
    (fake / "llc-layout").chmod(0o755)
    with toolserver.running(str(fake), warm=False) as server:
        stand_in = os.path.join(server.bin_dir, "llc-layout")
        served = _run([stand_in, "Swizzle<3,4,3>"], _served(server))
        assert served.returncode == 0 and "fallback" not in served.stdout
        # No server named, or none listening: the installed tool runs.
        fallback = _run([stand_in, "Swizzle<3,4,3>"], _fresh())
        assert (fallback.returncode, fallback.stdout) == (42, "fallback\n")
        gone = {**_served(server), toolserver.ENV_SOCKET: str(tmp_path / "no-socket")}
        stopped = _run([stand_in, "x"], gone)
        assert (stopped.returncode, stopped.stdout) == (42, "fallback\n")


def test_uncaught_exception_exits_1_with_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(toolserver.TOOLS, "boom", "llc.errors:no_such_function")
    assert toolserver._run("boom") == 1
    assert "AttributeError" in capsys.readouterr().err
    monkeypatch.setitem(toolserver.TOOLS, "exits", "sys:exit")
    monkeypatch.setattr(sys, "exit", lambda: sys.modules["builtins"].exit("a message"))
    assert toolserver._run("exits") == 1
    assert capsys.readouterr().err == "a message\n"


def test_every_console_script_of_llc_is_served() -> None:
    import tomllib

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    for name, entry in scripts.items():
        assert toolserver.TOOLS[name] == entry
