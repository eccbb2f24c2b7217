"""Render SVG/HTML to PNG in headless Chromium, as a person would see them (issue 13).

Tests call :func:`require_chromium` first: it skips with the reason when no browser or no Pillow
is installed (``.ci/run`` installs Debian's ``chromium`` with apt-get when it can).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

_NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome")


def find_chromium() -> str | None:
    """The browser to use: ``$LLC_CHROMIUM`` or the first of the usual names on PATH."""
    explicit = os.environ.get("LLC_CHROMIUM")
    if explicit:
        return explicit
    for name in _NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def require_chromium() -> str:
    """The browser, or skip the test saying what is missing."""
    browser = find_chromium()
    if browser is None:
        pytest.skip(
            "headless Chromium is not installed (apt-get install chromium; or set LLC_CHROMIUM): "
            "pictures are not rendered to PNG"
        )
    pytest.importorskip("PIL", reason="Pillow (pip install -e '.[test]') reads the PNGs back")
    return browser


def svg_size(svg: str) -> tuple[int, int]:
    """The ``width``/``height`` of an SVG document's root element."""
    match = re.search(r'<svg[^>]* width="(\d+)" height="(\d+)"', svg)
    assert match, "not an llc SVG"
    return int(match.group(1)), int(match.group(2))


def screenshot(source: Path, png: Path, width: int, height: int, query: str = "") -> Path:
    """Render ``source`` (SVG or HTML) at ``width x height`` CSS pixels into ``png``."""
    browser = require_chromium()
    command = [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        "--default-background-color=ffffffff",
        f"--screenshot={png}",
        f"--window-size={width},{height}",
        source.resolve().as_uri() + query,
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    assert png.exists(), f"chromium wrote no PNG: {result.stderr[-2000:]}"
    return png
