"""The README's examples are executable documentation: its Python tour runs, its IR parses."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(), flags=re.DOTALL)


def test_python_tour_runs_and_gives_the_commented_answers() -> None:
    tour = _blocks("python")[0]
    namespace: dict[str, object] = {}
    exec(compile(tour, str(README), "exec"), namespace)
    layout = namespace["L"]
    assert layout.apply({"t": 1, "w": 3}) == {"x": 1, "y": 2}  # type: ignore[attr-defined]
    mod4 = namespace["mod4"]
    assert [mod4.apply({"i": x})["o"] for x in range(8)] == [0, 1, 2, 3, 0, 1, 2, 3]  # type: ignore[attr-defined]
    src, dst, conversion = namespace["src"], namespace["dst"], namespace["conversion"]
    for point in ({"register": 5, "lane": 17, "warp": 3, "block": 0},):
        assert src.apply(conversion.apply(point)) == dst.apply(point)  # type: ignore[attr-defined]


@pytest.mark.skipif(shutil.which("llc-opt") is None, reason="llc-opt is not installed")
def test_ir_example_parses_and_verifies() -> None:
    (ir,) = _blocks("mlir")
    result = subprocess.run(["llc-opt", "-"], input=ir, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert "#dot_a" in ir and "tl.convert_layout" in result.stdout


@pytest.mark.skipif(shutil.which("llc-run") is None, reason="llc-run is not installed")
def test_softmax_example_is_self_contained(tmp_path: Path) -> None:
    """The llc-run example makes its own input and runs as written, in an empty folder."""
    text = README.read_text()
    (block,) = re.findall(r"<!-- softmax-example -->\n```sh\n(.*?)```", text, flags=re.DOTALL)
    script = block.replace("examples/", f"{README.parent / 'examples'}/")
    result = subprocess.run(
        ["bash", "-e", "-c", script], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    deviation = float(result.stdout.strip().splitlines()[-1])
    assert deviation < 1e-5  # every row of the softmax sums to 1
    assert (tmp_path / "results" / "out_ptr.npy").exists()


def test_testing_example_runs() -> None:
    """The ``llc.testing`` example: a kernel in both forms, the same values, canonicalize folds."""
    block = _blocks("python")[1]
    namespace: dict[str, object] = {}
    exec(compile(block, str(README), "exec"), namespace)
    kernel = namespace["k"]
    assert namespace["report"].exact  # type: ignore[attr-defined]
    folded = namespace["folded"]
    assert folded.count("tl.convert_layout") < kernel.laid_out.count("tl.convert_layout")  # type: ignore[attr-defined]
    assert namespace["text"].count("func.func") > 10  # type: ignore[attr-defined]
