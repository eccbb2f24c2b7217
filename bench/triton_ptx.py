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


def ptx_counts(ptx: str) -> dict[str, int]:
    """Static counts of the instructions that move data between threads in ``ptx``: ``shfl``,
    ``bar.sync``, ``ldmatrix``/``stmatrix``, and ``ld.shared``/``st.shared`` both in total and by
    bits per thread (``st.shared.128`` is a ``.v4.b32``/``.v2.b64`` store).

    >>> ptx_counts("st.shared.v4.b32 [%r1], {%r2, %r3, %r4, %r5};")["st.shared.128"]
    1
    """
    counts = {kind: len(re.findall(pattern, ptx)) for kind, pattern in KINDS.items()}
    for op, vec, bits in _SHARED_ACCESS.findall(ptx):
        width = int(bits) * (int(vec[2:]) if vec else 1)
        key = f"{op}.shared.{width}"
        counts[key] = counts.get(key, 0) + 1
    return counts


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
            entry: dict[str, object] = {"name": job["name"]}
            try:
                kernel = triton.compile(path, target=GPUTarget("cuda", 90, 32))
                ptx = kernel.asm["ptx"]
                entry["shared"] = int(kernel.metadata.shared)
                entry.update(ptx_counts(ptx))
            except Exception as err:
                entry["error"] = f"{type(err).__name__}: {str(err).splitlines()[0][:120]}"
            results.append(entry)
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
