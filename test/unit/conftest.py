"""Hypothesis property tests: a quick default run, the full random sweeps behind ``--sweeps``.

Each property test states the example count of a thorough sweep (``@settings(max_examples=300)``).
A plain ``pytest`` runs a quarter of it, at least :data:`QUICK_MIN_EXAMPLES` (every property
still runs on fresh random inputs each time, so the default run stays meaningful and keeps the
README's test command well under ten minutes on a two-core machine); ``pytest --sweeps`` runs the
stated counts::

    pytest                    # quick: a quarter of each sweep
    pytest --sweeps           # the full sweeps (several times longer)
"""

from __future__ import annotations

import pytest
from hypothesis import settings

QUICK_FRACTION = 4
QUICK_MIN_EXAMPLES = 25


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--sweeps",
        action="store_true",
        default=False,
        help="run the hypothesis property tests with their full example counts "
        f"(default: 1/{QUICK_FRACTION} of them, at least {QUICK_MIN_EXAMPLES})",
    )


def quick_examples(full: int) -> int:
    """The example count of the default run for a sweep of ``full`` examples.

    >>> quick_examples(300), quick_examples(60), quick_examples(10)
    (75, 25, 10)
    """
    return min(full, max(QUICK_MIN_EXAMPLES, full // QUICK_FRACTION))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--sweeps"):
        return
    for item in items:
        test = getattr(item, "obj", None)
        if test is None or not hasattr(test, "hypothesis"):  # not an @given test
            continue
        # Where @settings/@given keep a test's settings (hypothesis 6); `given` reads it when
        # the test runs. Replacing it is the one way to lower an explicit max_examples.
        current = getattr(test, "_hypothesis_internal_use_settings", None) or settings()
        test._hypothesis_internal_use_settings = settings(
            current, max_examples=quick_examples(current.max_examples)
        )


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The barrier-deletion test's totals (``test_barriers.py``), in every run that has it: the
    tests record them as user properties, which pytest-xdist carries to this process too."""
    totals = {"barriers_deleted": 0, "barriers_caught": 0, "syncs_deleted": 0, "syncs_caught": 0}
    seen: set[str] = set()
    for reports in terminalreporter.stats.values():
        for report in reports:
            for key, value in getattr(report, "user_properties", ()):
                if key in totals and getattr(report, "when", "call") == "call":
                    totals[key] += int(value)
                    seen.add(key.split("_")[0])
    if "barriers" in seen:
        terminalreporter.write_line(
            f"barrier deletion: {totals['barriers_deleted']} barriers deleted one at a time, "
            f"{totals['barriers_caught']} caught (a race reported or the outputs changed)"
        )
    if "syncs" in seen:  # test_pipeline.py: cp.async commits and waits, and barriers
        terminalreporter.write_line(
            f"cp.async commit/wait/barrier deletion: {totals['syncs_deleted']} deleted one at a "
            f"time, {totals['syncs_caught']} caught (a race reported or the outputs changed)"
        )
    _sync_summary(terminalreporter)


def _sync_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The wgmma synchronization-deletion totals (``test_hopper_backend.py``), per op kind."""
    counts: dict[str, list[int]] = {}
    for reports in terminalreporter.stats.values():
        for report in reports:
            for key, value in getattr(report, "user_properties", ()):
                if not key.startswith("sync_") or getattr(report, "when", "call") != "call":
                    continue
                what, kind = key.split(" ", 1)
                pair = counts.setdefault(kind, [0, 0])
                pair[what == "sync_caught"] += int(value)
    if counts:
        parts = ", ".join(f"{kind} {c}/{d}" for kind, (d, c) in counts.items())
        terminalreporter.write_line(
            f"wgmma sync deletion (caught/deleted, one at a time, Hopper kernels): {parts}"
        )
