"""Every example ``examples/NAME.mlir`` has a layout-free form ``examples/ttir/NAME.mlir``.

The layout-free form (tensor types without encoding, no ``tl.convert_layout``: the TTIR-like input
of layout assignment) must be exactly what ``llc-strip-layouts`` makes of the laid-out kernel, so
the two can never drift apart; the lit tests in ``test/lit/run`` run both against numpy.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from llc.dialects import tl
from llc.testing.semantics import apply_pipeline, parse

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NAMES = sorted(p.stem for p in EXAMPLES.glob("*.mlir"))


def test_every_example_has_a_layout_free_form() -> None:
    assert {"transpose", "colsum", "matmul", "flash_attention"} <= set(NAMES)
    assert sorted(p.stem for p in (EXAMPLES / "ttir").glob("*.mlir")) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_layout_free_form_is_the_stripped_example(name: str) -> None:
    laid_out = parse((EXAMPLES / f"{name}.mlir").read_text())
    free_text = (EXAMPLES / "ttir" / f"{name}.mlir").read_text()
    assert "#tl." not in free_text and "tl.convert_layout" not in free_text
    assert str(apply_pipeline(laid_out, "llc-strip-layouts")) == str(parse(free_text))


@pytest.mark.parametrize("name", NAMES)
def test_laid_out_example_has_a_layout_on_every_tensor(name: str) -> None:
    module = parse((EXAMPLES / f"{name}.mlir").read_text())
    for op in module.walk():
        for value in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)):
            if tl.shape_of(value.type) and not isinstance(value.type, tl.MemDescType):
                encoding = tl.encoding_of(value.type)
                assert encoding is not None, f"{name}: {op.name} result has no layout"
                encoding.to_linear_layout(list(tl.shape_of(value.type)))
