"""llc's one shared-memory bank model (:func:`llc.swizzle.warp_wavefronts`) against an H100.

``bench/h100_smem_wavefronts.csv`` holds 59 warp instructions measured with Nsight Compute on an
H100 (issue 10; ``bench/smem_wavefronts_gpu.py`` made them). The planner, the cost model, the
gather plans and the SIMT interpreter all count wavefronts with the function checked here, so
this test pins every one of them to the hardware.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from llc.swizzle import count_wavefronts, warp_wavefronts

MEASURED = Path(__file__).resolve().parents[2] / "bench" / "h100_smem_wavefronts.csv"


def _measurements() -> list[tuple[str, int]]:
    lines = [line for line in MEASURED.read_text().splitlines() if not line.startswith("#")]
    return [(row["spec"], int(row["measured"])) for row in csv.DictReader(lines)]


def _lane_addresses(vectors: list[int]) -> np.ndarray:
    lanes = np.arange(32)
    addresses = np.zeros(32, dtype=np.int64)
    for bit, v in enumerate(vectors):
        addresses ^= np.where(lanes >> bit & 1, v, 0)
    return addresses


def test_model_matches_every_h100_measurement() -> None:
    rows = _measurements()
    assert len(rows) == 59
    wrong = []
    for spec, measured in rows:
        access, store, *vectors = (int(x) for x in spec.split(","))
        wavefronts, ideal = warp_wavefronts(_lane_addresses(vectors)[None], access, load=not store)
        if int(wavefronts[0]) != measured or int(ideal[0]) > measured:
            wrong.append((spec, int(wavefronts[0]), measured))
    assert not wrong, f"model != H100 on {len(wrong)} accesses: {wrong}"


@pytest.mark.parametrize("access", [8, 16])
def test_paired_lanes_merge_for_loads_only(access: int) -> None:
    # Lanes 2k and 2k+1 read one address: a load is served as 16 lanes, a store is not.
    pairs = (np.arange(32) // 2 * access)[None]
    full = 32 * access // 128
    assert tuple(int(a[0]) for a in warp_wavefronts(pairs, access)) == (full, full)
    assert tuple(int(a[0]) for a in warp_wavefronts(pairs, access, load=True)) == (
        full // 2,
        full // 2,
    )


def test_count_wavefronts_uses_the_same_model() -> None:
    from llc.linear_layout import LinearLayout

    # 16 distinct 16-byte vectors, each read by a lane pair: the brute-force counter of the
    # swizzle planner agrees with warp_wavefronts on loads and stores.
    layout = LinearLayout.from_bases(
        [("register", [[1], [2]]), ("lane", [[0], [4], [8], [16], [32]]), ("warp", [])],
        ["dim0"],
    )
    shared = LinearLayout.identity_1d(64, "offset", "dim0")
    load = count_wavefronts(layout, shared, 4, 32, store=False)
    store = count_wavefronts(layout, shared, 4, 32, store=True)
    assert (load.per_instruction, int(load.ideal.max())) == (2, 2)
    assert (store.per_instruction, int(store.ideal.max())) == (4, 4)


def test_64_lane_warps_take_two_phases_of_32() -> None:
    # The documented approximation for AMD's 64-lane warps: 32 banks, phases of 32 lanes.
    lanes = (np.arange(64) * 4)[None]
    assert tuple(int(a[0]) for a in warp_wavefronts(lanes, 4)) == (2, 2)
