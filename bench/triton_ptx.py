"""Compile one-op TTGIR kernels with Triton (CPU-only is enough) and count what their PTX does.

Run by ``bench/conversions.py --triton PYTHON`` in a Python that has ``triton`` installed (it
needs nothing from llc): reads a JSON list of ``{"name", "ttgir"}`` on stdin and prints a JSON
list of ``{"name", "shared", "shfl", "st.shared", "ld.shared", "bar.sync", "ldmatrix",
"stmatrix", "error"}``. Counts are static PTX instruction counts (the kernels have no loops, so
they are per-thread dynamic counts too).
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import warnings

KINDS = {
    "shfl": r"\bshfl\.sync",
    "st.shared": r"\bst\.shared",
    "ld.shared": r"\bld\.shared",
    "bar.sync": r"\bbar\.sync|\bbarrier\.sync",
    "ldmatrix": r"\bldmatrix",
    "stmatrix": r"\bstmatrix",
}


_SHARED_ACCESS = re.compile(r"\b(ld|st)\.shared((?:\.v[248])?)\.[a-z]*?(8|16|32|64)\b")
_MATRIX = re.compile(r"\b(ldmatrix|stmatrix)\.sync\.aligned(?:\.m\d+n\d+)?\.x([124])")
_SHUFFLE = re.compile(r"\bshfl\.sync\.\w+\.b(32|64)\b")


def ptx_counts(ptx: str) -> dict[str, int]:
    """Static counts of the instructions that move data between threads in ``ptx``: ``shfl``,
    ``bar.sync``, ``ldmatrix``/``stmatrix``, and ``ld.shared``/``st.shared`` both in total and by
    bits per thread (``st.shared.128`` is a ``.v4.b32``/``.v2.b64`` store).

    Also by bits per thread: ``ldmatrix``/``stmatrix`` (``.x4`` = four 8x8 16-bit matrices, 128
    bits per thread) and ``shfl`` (``shfl.32``).

    >>> ptx_counts("st.shared.v4.b32 [%r1], {%r2, %r3, %r4, %r5};")["st.shared.128"]
    1
    >>> ptx_counts("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];")
    ... # doctest: +ELLIPSIS
    {..., 'ldmatrix': 1, ...'ldmatrix.128': 1}
    """
    counts = {kind: len(re.findall(pattern, ptx)) for kind, pattern in KINDS.items()}
    for op, vec, bits in _SHARED_ACCESS.findall(ptx):
        width = int(bits) * (int(vec[2:]) if vec else 1)
        key = f"{op}.shared.{width}"
        counts[key] = counts.get(key, 0) + 1
    for op, matrices in _MATRIX.findall(ptx):
        key = f"{op}.{32 * int(matrices)}"
        counts[key] = counts.get(key, 0) + 1
    for bits in _SHUFFLE.findall(ptx):
        counts[f"shfl.{bits}"] = counts.get(f"shfl.{bits}", 0) + 1
    return counts


def moved_bytes(counts: dict[str, int]) -> dict[str, int]:
    """Bytes per thread that :func:`ptx_counts`' instructions move (static counts): through
    shared memory (``ld``/``st.shared``, ``ldmatrix``/``stmatrix``) and through shuffles.

    >>> moved_bytes({"st.shared.128": 2, "ldmatrix.128": 1, "shfl.32": 3})
    {'shared': 48, 'shuffle': 12}
    """
    shared = shuffle = 0
    for key, n in counts.items():
        kind, _, bits = key.rpartition(".")
        if not bits.isdigit():
            continue
        if kind in ("ld.shared", "st.shared", "ldmatrix", "stmatrix"):
            shared += n * int(bits) // 8
        elif kind == "shfl":
            shuffle += n * int(bits) // 8
    return {"shared": shared, "shuffle": shuffle}


def shared_wavefronts(counts: dict[str, int]) -> int:
    """Shared-memory wavefronts per warp of a kernel with ``counts`` (:func:`ptx_counts`),
    estimated from the access widths alone: a ``w``-bit ``ld``/``st.shared`` takes
    ``max(1, w / 32)`` wavefronts (32 lanes of ``w`` bits are ``w / 32`` rows of 128 bytes, one
    per phase), an ``ldmatrix``/``stmatrix`` ``.xN`` (``32 N`` bits per lane) takes ``N`` (one
    128-byte 8x8 b16 matrix each). That is the count without bank conflicts and without credit
    for broadcast lanes: the rule llc's planner applies to its own accesses when they are
    conflict-free, so equal programs get equal figures; a kernel with conflicts costs more.

    >>> shared_wavefronts({"st.shared.16": 1, "ld.shared.128": 8, "ldmatrix.128": 2})
    41
    """
    total = 0
    for key, n in counts.items():
        kind, _, bits = key.rpartition(".")
        if bits.isdigit() and kind in ("ld.shared", "st.shared", "ldmatrix", "stmatrix"):
            total += n * max(1, int(bits) // 32)
    return total


def main() -> None:
    warnings.simplefilter("ignore")
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    import triton
    from triton.backends.compiler import GPUTarget

    jobs = json.load(sys.stdin)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, job in enumerate(jobs):
            path = os.path.join(tmp, f"k{i}.ttgir")
            with open(path, "w") as f:
                f.write(job["ttgir"])
            results.append(_compile_isolated(job["name"], path, triton, GPUTarget))
    json.dump(results, sys.stdout)


def _compile_isolated(name: str, path: str, triton, target) -> dict[str, object]:
    """Compile one kernel in a forked child: Triton asserts (aborts the process) on some layouts
    it does not support, and one such kernel must not take the others' figures with it."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compile, report, exit without cleanup
        os.close(read)
        entry: dict[str, object] = {"name": name}
        try:
            with open(os.devnull, "w") as null:
                os.dup2(null.fileno(), 2)
            kernel = triton.compile(path, target=target("cuda", 90, 32))
            entry["shared"] = int(kernel.metadata.shared)
            entry.update(ptx_counts(kernel.asm["ptx"]))
        except Exception as err:
            entry["error"] = f"{type(err).__name__}: {str(err).splitlines()[0][:120]}"
        with os.fdopen(write, "w") as out:
            json.dump(entry, out)
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        text = pipe.read()
    _, status = os.waitpid(pid, 0)
    if not text:
        return {"name": name, "error": f"Triton crashed (wait status {status})"}
    return json.loads(text)


if __name__ == "__main__":
    main()
