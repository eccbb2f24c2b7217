"""Error reporting shared by llc's command-line tools.

Every CLI runs its work through :func:`run_cli`, which turns xDSL's ``ParseError``,
``VerifyException``/``DiagnosticException``/``PassFailedException``, llc's ``LayoutError`` and
ordinary I/O or usage errors into MLIR-style diagnostics on stderr and exit code 1, never a
Python traceback (set ``LLC_TRACEBACK=1`` to get one while debugging)::

    kernel.mlir:3:42: error: blocked: order [1, 1] is not a permutation of [0, 1]
      %0 = "test.op"() : () -> tensor<32xf32, #tl.blocked<{..., order = [1, 1]}>>
                                                                ^~~~~~~~~~~~~~

Locating errors (the parser that records ``loc("file":line:col)``, :func:`locate_exception`,
:func:`error_at`) is not CLI work: it lives in :mod:`llc.dialects.diagnostics`, which passes
import. How to use both from a tool::

    def main() -> None:
        run_cli("llc-run", lambda: _main(sys.argv[1:]))

    def _main(argv):
        text, name = read_input(path)
        module = parse_module(ctx, text, name)        # ParseError -> located by run_cli
        try:
            module.verify()
        except Exception as err:                        # needs the module to find the op
            raise locate_exception(err, module) from err
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from typing import IO, Any, TypeVar

from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError

from llc.dialects.diagnostics import (
    LocatedError,
    format_diagnostic,
    locate_exception,
    register_source,
)
from llc.errors import LayoutError

__all__ = ["STDIN_NAME", "atomic_write", "read_input", "run_cli"]

_T = TypeVar("_T")

STDIN_NAME = "<stdin>"
"""File name used in diagnostics for input read from standard input (as MLIR does)."""


def read_input(path: str | None) -> tuple[str, str]:
    """Read a tool's input: ``None`` or ``"-"`` is stdin. Returns ``(text, name)`` and
    registers the text for diagnostics. Raises :class:`LocatedError` if it cannot be read."""
    if path is None or path == "-":
        text, name = sys.stdin.read(), STDIN_NAME
    else:
        try:
            with open(path, encoding="utf-8") as file:
                text = file.read()
        except OSError as err:
            raise LocatedError(f"cannot read '{path}': {err.strerror or err}") from err
        except UnicodeDecodeError as err:
            raise LocatedError(f"cannot read '{path}': not UTF-8 text ({err.reason})") from err
        name = path
    register_source(name, text)
    return text, name


@contextlib.contextmanager
def atomic_write(path: str, binary: bool = False) -> Iterator[IO[Any]]:
    """Write ``path`` all at once or not at all: the text goes to a temporary file beside it,
    renamed over ``path`` only when the ``with`` block succeeds. A failing tool leaves an
    existing file as it was and creates no empty one. The file keeps an existing file's
    permissions; a device or pipe (``-o /dev/stdout``) is written directly.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "out.mlir")
    >>> with atomic_write(path) as out:
    ...     _ = out.write("kept")
    >>> try:
    ...     with atomic_write(path) as out:
    ...         _ = out.write("half")
    ...         raise ValueError("the pass failed")
    ... except ValueError:
    ...     pass
    >>> open(path).read(), os.listdir(os.path.dirname(path))
    ('kept', ['out.mlir'])
    """
    target = os.path.realpath(path)  # through a symlink, as open() would write
    mode = "wb" if binary else "w"
    encoding = None if binary else "utf-8"
    try:
        existing: os.stat_result | None = os.stat(target)
    except OSError:
        existing = None
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        with open(target, mode, encoding=encoding) as file:
            yield file
        return
    directory = os.path.dirname(target)
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", dir=directory)
    except OSError as err:  # name the file asked for, not the temporary one
        raise OSError(err.errno, err.strerror, path) from None
    try:
        with os.fdopen(fd, mode, encoding=encoding) as file:
            yield file
        if existing is not None:
            os.chmod(temp, stat.S_IMODE(existing.st_mode))
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temp, 0o666 & ~umask)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


# ---------------------------------------------------------------------------------------------
# Running a CLI


def _report(prog: str, err: BaseException) -> str:
    if isinstance(err, ArgSpecParseError):
        # Pass-pipeline syntax errors already quote the spec with a caret.
        return format_diagnostic(str(err), prog=prog)
    if isinstance(err, ParseError | LocatedError | DiagnosticException | LayoutError):
        return locate_exception(err).render(prog)
    if isinstance(err, OSError):
        where = f" '{err.filename}'" if err.filename else ""
        return format_diagnostic(f"cannot access{where}: {err.strerror or err}", prog=prog)
    if isinstance(err, ValueError | KeyError | TypeError | NotImplementedError):
        # xDSL reports usage errors (unknown pass, bad pass option) as ValueError.
        message = str(err).strip() or type(err).__name__
        if not isinstance(err, ValueError):
            message = f"{type(err).__name__}: {message}"
        return format_diagnostic(message, prog=prog)
    return format_diagnostic(
        f"internal error: {type(err).__name__}: {err} (set LLC_TRACEBACK=1 for a traceback)",
        prog=prog,
    )


def run_cli(prog: str, fn: Callable[[], _T]) -> _T:
    """Run a tool's body; print any error as a diagnostic on stderr and exit with status 1.

    ``SystemExit`` (argparse, ``--version``) passes through; Ctrl-C exits 130; a closed
    stdout pipe exits quietly.

    >>> run_cli("demo", lambda: 42)
    42
    """
    try:
        return fn()
    except SystemExit:
        raise
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        # `llc-opt big.mlir | head`: stop quietly, as other Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(1)
    except (Exception, ArgSpecParseError) as err:
        if os.environ.get("LLC_TRACEBACK"):
            raise
        sys.stdout.flush()
        print(_report(prog, err), file=sys.stderr)
        sys.exit(1)
