"""Triton's fixtures (``examples/triton``) as the tests read them, without Triton installed."""

from __future__ import annotations

import re
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "examples" / "triton"
"""Where ``bench/dump_triton.py`` writes its TTIR/TTGIR dumps."""

_SIGNATURE = re.compile(r"tt\.func public @\w+\((.*?)\)(?: attributes \{[^}]*\})? \{", re.S)
_PARAM = re.compile(r"(%\w+: (?:!tt\.ptr<\w+>|i32)) loc\(")


def hinted(ttir: str) -> str:
    """The TTIR with ``tt.divisibility = 16`` on every pointer and i32 parameter (what Triton's
    launcher specializes for aligned tensors and strides): the fixtures were dumped without it,
    and without it Triton's pipeliner has no 16-byte copies to make.

    >>> hinted("tt.func public @k(%p: !tt.ptr<f16> loc(#a), %n: i32 loc(#b)) {")
    'tt.func public @k(%p: !tt.ptr<f16> {tt.divisibility = 16 : i32} loc(#a), %n: i32 \
{tt.divisibility = 16 : i32} loc(#b)) {'
    """
    found = _SIGNATURE.search(ttir)
    if found is None:
        raise ValueError("no tt.func public signature in the TTIR")
    params = _PARAM.sub(r"\1 {tt.divisibility = 16 : i32} loc(", found.group(1))
    return ttir[: found.start(1)] + params + ttir[found.end(1) :]
