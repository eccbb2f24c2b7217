"""A fork server for the command-line tools in the lit tests: import once, fork per command.

Each RUN line of ``test/lit`` starts ``llc-opt``, ``llc-layout``, ``llc-run`` or ``filecheck`` as
a new Python process, and each one spends most of its time importing (xDSL's dialect
definitions, numpy, llc's layouts: about 0.4 s of CPU for ``llc-opt`` on a small kernel, while
parsing and printing the kernel takes a tenth of that). The lit suite starts over a thousand of
them, so on a two-core machine that import alone was most of ``lit test/lit``'s two minutes.

This server imports every tool's modules once, then forks a child per command: the child takes
the command's standard streams (passed over a Unix socket), working directory, environment and
arguments, runs the tool's console-script entry point exactly as the installed script would, and
sends back its exit status. Each command thus starts from the same freshly imported state, never
from what an earlier command left behind. The commands themselves are the installed console
scripts' small stand-ins (:func:`write_clients`): a ``python -I -S`` script of a dozen lines that
connects, hands over its streams, and exits with the status it receives. When no server
answers, the stand-in runs the real installed tool instead, so a test never depends on the
server being up.

``test/lit/lit.cfg.py`` starts one server for the run (:func:`start`) and puts the stand-ins
first on ``PATH``; ``lit --param toolserver=0 test/lit`` runs every command as a fresh process
instead (as does a lit not run by the interpreter llc is installed in).

>>> sorted(TOOLS)
['filecheck', 'llc-layout', 'llc-opt', 'llc-run', 'xdsl-opt']
>>> exit_status(None), exit_status(3), exit_status(True)
(0, 3, 1)
"""

from __future__ import annotations

import ast
import atexit
import contextlib
import gc
import importlib
import os
import pkgutil
import random
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import NoReturn

__all__ = [
    "ENV_SOCKET",
    "TOOLS",
    "Server",
    "exit_status",
    "running",
    "serve",
    "start",
    "write_clients",
]

ENV_SOCKET = "LLC_TOOLSERVER"
"""The environment variable that gives the stand-ins the server's socket path."""

TOOLS: dict[str, str] = {
    "llc-opt": "llc.tools.cli:opt_main",
    "llc-layout": "llc.tools.cli:layout_main",
    "llc-run": "llc.tools.cli:run_main",
    "filecheck": "filecheck.main:main",
    "xdsl-opt": "xdsl.tools.xdsl_opt:main",
}
"""Command name -> ``module:function``, the console-script entry point it runs (as the
installed script in the virtualenv's ``bin/`` does)."""

WARM_PACKAGES: tuple[str, ...] = ("llc.dialects", "llc.passes", "llc.tools")
"""Every module of these is imported by the server before it answers: the tools import passes,
targets and lowerings when a command names them, and a child that imports one itself pays for it
on every command (a module missing here is slower, never wrong)."""

WARM_MODULES: tuple[str, ...] = (
    "numpy",
    "xdsl.dialects.arith",
    "xdsl.dialects.func",
    "xdsl.dialects.math",
    "xdsl.dialects.scf",
    "xdsl.tools.xdsl_opt",
    "filecheck.main",
)
"""Imported by the server before it answers, besides :data:`WARM_PACKAGES`."""


def warm_module_names() -> list[str]:
    """:data:`WARM_MODULES` and every module of :data:`WARM_PACKAGES`.

    >>> names = warm_module_names()
    >>> {"llc.passes.targets.ptx", "llc.passes.lower_atomics", "filecheck.main"} <= set(names)
    True
    """
    names = list(WARM_MODULES)
    for package in WARM_PACKAGES:
        path = importlib.import_module(package).__path__
        names += [info.name for info in pkgutil.walk_packages(path, package + ".")]
    return names


_ACK = b"+"  # the child has taken the command: the stand-in must not run it again itself


def exit_status(code: object) -> int:
    """The exit status of a process that ends with ``sys.exit(code)``, as CPython computes it
    (a message is printed to stderr by the caller and gives 1).

    >>> exit_status(None), exit_status(0), exit_status(2), exit_status("bad flag")
    (0, 0, 2, 1)
    """
    if code is None:
        return 0
    if isinstance(code, int) and not isinstance(code, bool):
        return code & 0xFF
    return 1


# -------------------------------------------------------------------------------- the server
def serve(socket_path: str, warm: bool = True) -> None:
    """Listen on ``socket_path`` and run each command in a forked child, until the process
    that started the server exits (or SIGTERM). Binds before importing the warm modules
    (:func:`warm_module_names`, none with ``warm`` false), so commands sent during the import
    wait in the socket's backlog rather than fall back."""
    parent = os.getppid()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_path)
    listener.listen(256)
    for name in warm_module_names() if warm else ():
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    # What the children inherit stays shared with the server: no collection walks (and so
    # copies) the imported modules' objects in every child.
    gc.collect()
    gc.freeze()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        while True:
            ready, _, _ = select.select([listener], [], [], 0.5)
            _reap()
            if not ready:
                if os.getppid() != parent:  # lit is gone (even killed): so is the server
                    return
                continue
            connection, _ = listener.accept()
            if os.fork() == 0:
                listener.close()
                _child(connection)
            connection.close()
    finally:
        with contextlib.suppress(OSError):
            os.unlink(socket_path)
        _reap(wait=True)


def _reap(wait: bool = False) -> None:
    """Collect finished children (waiting for all with ``wait``). Waited-for children count in
    the server's ``RUSAGE_CHILDREN``, and the server's in lit's: ``time lit`` sees all CPU."""
    while True:
        try:
            pid, _ = os.waitpid(-1, 0 if wait else os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _receive(connection: socket.socket) -> tuple[str, list[str], str, dict[str, str], list[int]]:
    """One command: its tool, argv, working directory, environment and standard streams."""
    head, fds, _, _ = socket.recv_fds(connection, 8, 3)
    size = int.from_bytes(head, "big")
    body = bytearray()
    while len(body) < size:
        chunk = connection.recv(size - len(body))
        if not chunk:
            raise EOFError("the command's stand-in hung up")
        body += chunk
    tool, argv, cwd, env = ast.literal_eval(body.decode())
    return tool, argv, cwd, env, fds


def _reopen_stdio() -> None:
    """Fresh ``sys.stdin/stdout/stderr`` on fds 0-2, buffered as CPython sets them up at start."""
    encoding, errors = sys.__stdout__.encoding, sys.__stdout__.errors  # type: ignore[union-attr]
    stdin = open(0, encoding=encoding, errors=errors, closefd=False)  # noqa: SIM115
    stdout = open(  # noqa: SIM115
        1,
        "w",
        buffering=1 if os.isatty(1) else -1,
        encoding=encoding,
        errors=errors,
        closefd=False,
    )
    stderr = open(  # noqa: SIM115
        2, "w", buffering=1, encoding=encoding, errors="backslashreplace", closefd=False
    )
    sys.stdin = sys.__stdin__ = stdin
    sys.stdout = sys.__stdout__ = stdout
    sys.stderr = sys.__stderr__ = stderr


def _entry_point(tool: str) -> Callable[[], object]:
    module, _, attr = TOOLS[tool].partition(":")
    return getattr(importlib.import_module(module), attr)


def _run(tool: str) -> int:
    """Run ``tool``'s entry point as its console script does (``sys.exit(main())``)."""
    try:
        code = _entry_point(tool)()
    except SystemExit as exit:
        code = exit.code
    except BaseException:
        sys.excepthook(*sys.exc_info())  # type: ignore[arg-type]
        return 1
    if code is not None and exit_status(code) == 1 and not isinstance(code, int):
        print(code, file=sys.stderr)
    return exit_status(code)


def _child(connection: socket.socket) -> NoReturn:
    status = 1
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        gc.unfreeze()
        tool, argv, cwd, env, fds = _receive(connection)
        connection.sendall(_ACK)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        sys.argv = argv
        sys.path[0] = os.path.dirname(sys.executable)  # as for the installed script
        _reopen_stdio()
        # A fresh process would draw fresh seeds; the fork copied the server's.
        random.seed()
        if "numpy" in sys.modules:
            sys.modules["numpy"].random.seed()
        status = _run(tool)
    except BaseException:
        with contextlib.suppress(BaseException):
            traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(BaseException):
                stream.flush()
        with contextlib.suppress(OSError):
            connection.sendall(str(status).encode())
        os._exit(status)


# ------------------------------------------------------------------------------- stand-ins
_CLIENT = """\
#!{python} -IS
# {tool} through llc's tool server (llc.testing.toolserver), else the installed {tool}.
import _socket, array, os, sys
def run():
    path = os.environ.get({env!r})
    if not path:
        return
    s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        s.connect(path)
        body = repr(({tool!r}, sys.argv, os.getcwd(), dict(os.environ))).encode()
        fds = array.array("i", [0, 1, 2])
        s.sendmsg([len(body).to_bytes(8, "big")], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
        s.sendall(body)
        reply = s.recv(1)
    except OSError:
        return
    if reply != {ack!r}:
        return
    status = b""
    while chunk := s.recv(16):
        status += chunk
    if not status:
        os.write(2, b"{tool}: the tool server's child died without an exit status\\n")
    os._exit(int(status) if status else 1)
run()
os.execv({real!r}, [sys.argv[0], *sys.argv[1:]])
"""


def write_clients(directory: str, real_bin: str, python: str = sys.executable) -> list[str]:
    """Write a stand-in for each tool of :data:`TOOLS` found in ``real_bin`` into
    ``directory``; returns their names.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     "llc-opt" in write_clients(tmp, os.path.dirname(sys.executable))
    True
    """
    written = []
    for tool in TOOLS:
        real = os.path.join(real_bin, tool)
        if not os.access(real, os.X_OK):
            continue
        path = os.path.join(directory, tool)
        with open(path, "w") as file:
            file.write(
                _CLIENT.format(python=python, tool=tool, env=ENV_SOCKET, ack=_ACK, real=real)
            )
        os.chmod(path, 0o755)
        written.append(tool)
    return written


@dataclass
class Server:
    """A running server: its socket, the folder of stand-ins to put first on ``PATH``."""

    socket_path: str
    bin_dir: str
    process: subprocess.Popen[bytes]
    directory: str

    def stop(self) -> None:
        """Terminate the server and remove its folder."""
        if self.process.poll() is None:
            self.process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(5)
        shutil.rmtree(self.directory, ignore_errors=True)


def start(real_bin: str | None = None, warm: bool = True) -> Server:
    """Start a server (``python -m llc.testing.toolserver SOCKET``) and write its stand-ins;
    stopped when this process exits. ``real_bin`` holds the installed tools (default: the
    running interpreter's ``bin/``); without ``warm`` each child imports what its tool needs."""
    real_bin = real_bin or os.path.dirname(sys.executable)
    directory = tempfile.mkdtemp(prefix="llc-toolserver-")
    bin_dir = os.path.join(directory, "bin")
    os.mkdir(bin_dir)
    write_clients(bin_dir, real_bin)
    socket_path = os.path.join(directory, "socket")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llc.testing.toolserver",
            socket_path,
            *([] if warm else ["--cold"]),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    server = Server(socket_path, bin_dir, process, directory)
    owner = os.getpid()
    atexit.register(lambda: os.getpid() == owner and server.stop())
    # Commands sent before the socket exists would run the installed tools: correct, slower.
    deadline = time.monotonic() + 10
    while not os.path.exists(socket_path) and time.monotonic() < deadline:
        if process.poll() is not None:
            break
        time.sleep(0.01)
    return server


@contextlib.contextmanager
def running(real_bin: str | None = None, warm: bool = True) -> Iterator[Server]:
    """A server for the ``with`` block (tests)."""
    server = start(real_bin, warm)
    try:
        yield server
    finally:
        server.stop()


if __name__ == "__main__":
    serve(sys.argv[1], "--cold" not in sys.argv[2:])
