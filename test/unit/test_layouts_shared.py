"""Exact semantics of the shared-memory layouts (swizzled_shared, nvmma_shared, shared_linear).

Expected bases come from seed 003 and from Triton's
``unittest/Dialect/TritonGPU/LinearLayoutConversionsTest.cpp`` (each case is named after the
``TEST_F`` it comes from); properties are checked with hypothesis.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llc.errors import LayoutError
from llc.layouts import (
    CTALayout,
    NvmmaSharedLayout,
    SharedLinearLayout,
    SwizzledSharedLayout,
    from_triton_params,
)
from llc.layouts.common import standard_out_dim_names
from llc.linear_layout import LinearLayout


def shared(vec, per_phase, max_phase, cpg, split, order, cta_order):
    """Triton's test helper ``shared(vec, perPhase, maxPhase, cpg, cSplit, ord, cOrd)``."""
    return SwizzledSharedLayout(vec, per_phase, max_phase, order, CTALayout(cpg, split, cta_order))


def nvmma(swizzle, transposed, width, rank=2, fp4_padded=False):
    """Triton's ``nvmmaShared`` with a one-CTA CGA of the given rank (CTAOrder reversed)."""
    return NvmmaSharedLayout(swizzle, transposed, width, fp4_padded, CTALayout.default(rank))


def sll(rank, offset, block=(), sizes=None):
    return LinearLayout.from_bases(
        [("offset", offset), ("block", block)], standard_out_dim_names(rank), sizes
    )


def offsets_table(layout: LinearLayout, shape) -> np.ndarray:
    """``table[index] = offset`` storing that tensor element (the seed's printed tables)."""
    table = np.full(shape, -1, dtype=int)
    for offset in range(layout.get_in_dim_size("offset")):
        out = layout.apply({"offset": offset, "block": 0})
        index = tuple(out[f"dim{i}"] for i in range(len(shape)))
        assert table[index] == -1, "two offsets hold the same element"
        table[index] = offset
    return table


# ---------------------------------------------------------------------------- seed 003


def test_seed003_swizzled_vec1_perphase2_maxphase2():
    # Seed 003 "Shared Layouts", first table (8 rows of 4: shape [8, 4]).
    L = SwizzledSharedLayout(1, 2, 2, [1, 0]).to_linear_layout([8, 4])
    assert offsets_table(L, (8, 4)).tolist() == [
        [0, 1, 2, 3],
        [4, 5, 6, 7],
        [9, 8, 11, 10],
        [13, 12, 15, 14],
        [16, 17, 18, 19],
        [20, 21, 22, 23],
        [25, 24, 27, 26],
        [29, 28, 31, 30],
    ]


def test_seed003_swizzled_vec2_perphase1_maxphase4():
    # Seed 003 "Shared Layouts", second table (shape [4, 8]).
    L = SwizzledSharedLayout(2, 1, 4, [1, 0]).to_linear_layout([4, 8])
    assert offsets_table(L, (4, 8)).tolist() == [
        [0, 1, 2, 3, 4, 5, 6, 7],
        [10, 11, 8, 9, 14, 15, 12, 13],
        [20, 21, 22, 23, 16, 17, 18, 19],
        [30, 31, 28, 29, 26, 27, 24, 25],
    ]


def test_seed003_swizzle_formula():
    # Seed 003: k = i*N + j % vec + ((i / perPhase) % maxPhase XOR j / vec) * vec.
    for vec, per_phase, max_phase, shape in [
        (1, 2, 2, (8, 4)),
        (2, 1, 4, (4, 8)),
        (4, 2, 4, (32, 64)),
    ]:
        table = offsets_table(
            SwizzledSharedLayout(vec, per_phase, max_phase, [1, 0]).to_linear_layout(shape), shape
        )
        n = shape[1]
        for i in range(shape[0]):
            phase = (i // per_phase) % max_phase
            for j in range(n):
                assert table[i, j] == i * n + j % vec + ((phase ^ (j // vec)) * vec) % n


# ---------------------------------------------------------------------------- Triton cases

CASES = [
    (
        "SharedSimple1D",
        shared(1, 1, 1, [1], [1], [0], [0]),
        [1024],
        LinearLayout.identity_1d(1024, "offset", "dim0")
        * LinearLayout.identity_1d(1, "block", "dim0"),
    ),
    (
        "SharedSimple2D",
        shared(1, 1, 1, [1, 1], [1, 1], [1, 0], [1, 0]),
        [128, 128],
        (
            LinearLayout.identity_1d(128, "offset", "dim1")
            * LinearLayout.identity_1d(128, "offset", "dim0")
            * LinearLayout.identity_1d(1, "block", "dim0")
        ).transpose_outs(["dim0", "dim1"]),
    ),
    (
        "SharedSimple2D_Order01",
        shared(1, 1, 1, [1, 1], [1, 1], [0, 1], [1, 0]),
        [128, 128],
        LinearLayout.identity_1d(128, "offset", "dim0")
        * LinearLayout.identity_1d(128, "offset", "dim1")
        * LinearLayout.identity_1d(1, "block", "dim0"),
    ),
    (
        "SharedSwizzled2D_MaxPhaseOnly",
        shared(1, 1, 4, [1, 1], [1, 1], [1, 0], [1, 0]),
        [32, 32],
        sll(2, [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 1], [2, 2], [4, 0], [8, 0], [16, 0]]),
    ),
    (
        "SharedSwizzled2D_PerPhaseMaxPhase",
        shared(1, 2, 4, [1, 1], [1, 1], [1, 0], [1, 0]),
        [32, 32],
        sll(2, [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 1], [4, 2], [8, 0], [16, 0]]),
    ),
    (
        "SharedSwizzled2D_Vec",
        shared(2, 1, 4, [1, 1], [1, 1], [1, 0], [1, 0]),
        [4, 8],
        sll(2, [[0, 1], [0, 2], [0, 4], [1, 2], [2, 4]]),
    ),
    (
        "SharedSwizzled2D_PerPhaseMaxPhaseVec",
        shared(2, 2, 4, [1, 1], [1, 1], [1, 0], [1, 0]),
        [32, 32],
        sll(2, [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 2], [4, 4], [8, 0], [16, 0]]),
    ),
    (
        "SharedSwizzled4D",
        shared(2, 2, 4, [1] * 4, [1] * 4, [3, 2, 1, 0], [3, 2, 1, 0]),
        [2, 4, 32, 32],
        sll(
            4,
            [
                [0, 0, 0, 1],
                [0, 0, 0, 2],
                [0, 0, 0, 4],
                [0, 0, 0, 8],
                [0, 0, 0, 16],
                [0, 0, 1, 0],
                [0, 0, 2, 2],
                [0, 0, 4, 4],
                [0, 0, 8, 0],
                [0, 0, 16, 0],
                [0, 1, 0, 0],
                [0, 2, 0, 0],
                [1, 0, 0, 0],
            ],
        ),
    ),
    (
        "SharedSwizzled2D_Order01",
        shared(1, 1, 4, [1, 1], [1, 1], [0, 1], [0, 1]),
        [4, 8],
        sll(2, [[1, 0], [2, 0], [1, 1], [2, 2], [0, 4]]),
    ),
    (
        "Shared1DSwizzle",
        shared(2, 2, 4, [1, 1], [1, 1], [1, 0], [1, 0]),
        [64, 1],
        LinearLayout.identity_1d(64, "offset", "dim0")
        * LinearLayout.identity_1d(1, "offset", "dim1")
        * LinearLayout.identity_1d(1, "block", "dim0"),
    ),
    (
        "LeadingOffset_8x16_4_2",
        nvmma(32, False, 16),
        [8, 16],
        sll(2, [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 8]]),
    ),
    (
        "LeadingOffset_128x16_4_2",
        nvmma(32, False, 16),
        [128, 16],
        sll(
            2,
            [
                [0, 1],
                [0, 2],
                [0, 4],
                [0, 8],
                [1, 0],
                [2, 0],
                [4, 8],
                [8, 0],
                [16, 0],
                [32, 0],
                [64, 0],
            ],
        ),
    ),
    (
        "LeadingOffset_8x32_2_4",
        nvmma(64, False, 16),
        [8, 32],
        sll(2, [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 8], [4, 16]]),
    ),
    (
        "LeadingOffset_8x64_1_8",
        nvmma(128, False, 16),
        [8, 64],
        sll(2, [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32]]),
    ),
    (
        "LeadingOffset_8x64_1_8_32b",
        nvmma(128, False, 32),
        [8, 64],
        sll(
            2,
            [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 4], [2, 8], [4, 16], [0, 32]],
            sizes=[8, 64],
        ),
    ),
    (
        "LeadingOffset_128x128_1_8_128b_transposed",
        nvmma(128, True, 32),
        [128, 128],
        sll(
            2,
            [
                [1, 0],
                [2, 0],
                [4, 0],
                [8, 0],
                [16, 0],
                [4, 1],
                [8, 2],
                [16, 4],
                [0, 8],
                [0, 16],
                [0, 32],
                [0, 64],
                [32, 0],
                [64, 0],
            ],
        ),
    ),
    (
        "LeadingOffset_32x4x64_1_8_32b",
        nvmma(64, False, 32, rank=3),
        [32, 4, 64],
        sll(
            3,
            [
                [0, 0, 1],
                [0, 0, 2],
                [0, 0, 4],
                [0, 0, 8],
                [0, 1, 0],
                [0, 2, 4],
                [1, 0, 8],
                [2, 0, 0],
                [4, 0, 0],
                [8, 0, 0],
                [16, 0, 0],
                [0, 0, 16],
                [0, 0, 32],
            ],
        ),
    ),
    (
        "LeadingOffset_64x4x32_1_8_32b_transposed",
        nvmma(64, True, 32, rank=3),
        [64, 4, 32],
        sll(
            3,
            [
                [1, 0, 0],
                [2, 0, 0],
                [4, 0, 0],
                [8, 0, 0],
                [0, 0, 4],
                [4, 0, 8],
                [8, 0, 16],
                [0, 1, 0],
                [0, 2, 0],
                [0, 0, 1],
                [0, 0, 2],
                [16, 0, 0],
                [32, 0, 0],
            ],
        ),
    ),
    (
        "MMAv5Fp4Padded",
        nvmma(128, False, 8, fp4_padded=True),
        [32, 64],
        sll(
            2,
            [
                [0, 1],
                [0, 2],
                [0, 4],
                [0, 0],  # offset 8 maps to the same indices as offset 0
                [0, 8],
                [0, 16],
                [0, 32],
                [1, 8],
                [2, 16],
                [4, 32],
                [8, 0],
                [16, 0],
            ],
        ),
    ),
]


@pytest.mark.parametrize(
    ("layout", "shape", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_triton_expected_bases(layout, shape, expected):
    got = layout.to_linear_layout(shape)
    assert got == expected, f"\n{got}\n!=\n{expected}"


@pytest.mark.parametrize(
    ("width", "expected"),
    [
        # LeadingOffset_NPOT_48byte_8bit: 32 columns, vec 16, (perPhase, maxPhase) = (4, 2)
        (8, [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0], [4, 16]]),
        # LeadingOffset_NPOT_48byte_16bit
        (16, [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 8]]),
    ],
)
def test_core_matrix(width, expected):
    core = NvmmaSharedLayout(32, False, width).core_matrix()
    assert core == LinearLayout.from_bases([("offset", expected)], ["dim0", "dim1"])


def test_nvmma_without_swizzle_is_row_major():
    for shape in ([64, 32], [512, 64], [2, 8, 16]):
        L = NvmmaSharedLayout(0, False, 16).to_linear_layout(shape)
        assert offsets_table(L, shape).ravel().tolist() == list(range(int(np.prod(shape))))


def test_swizzled_shared_with_cta_split():
    # Two CTAs split dim0: each holds a swizzled 16x8 half; the block bit is the top of dim0.
    layout = SwizzledSharedLayout(2, 1, 4, [1, 0], CTALayout([2, 1], [2, 1], [1, 0]))
    L = layout.to_linear_layout([32, 8])
    per_cta = SwizzledSharedLayout(2, 1, 4, [1, 0]).to_linear_layout([16, 8])
    assert dict(L.bases)["offset"] == dict(per_cta.bases)["offset"]
    assert dict(L.bases)["block"] == [[16, 0]]
    # Broadcast CTAs (CTAsPerCGA > CTASplitNum) get zero block bases.
    L2 = SwizzledSharedLayout(1, 1, 1, [0], CTALayout([4], [2], [0])).to_linear_layout([64])
    assert dict(L2.bases)["block"] == [[32], [0]]


# ---------------------------------------------------------------------------- shared_linear


def test_shared_linear_is_its_bases():
    offset = [[0, 1], [0, 2], [1, 2], [2, 0]]
    S = SharedLinearLayout(offset, alignment=128)
    assert S.to_linear_layout([4, 4]) == sll(2, offset)
    assert S.triton_params() == {"offset": offset, "alignment": 128}
    assert from_triton_params("shared_linear", S.triton_params()) == S
    with pytest.raises(LayoutError, match=r"bases describe shape \[4, 4\]"):
        S.to_linear_layout([8, 4])


def test_shared_linear_from_nvmma():
    L = NvmmaSharedLayout(128, False, 16).to_linear_layout([64, 64])
    S = SharedLinearLayout.from_linear_layout(L, alignment=1024)
    assert S.to_linear_layout([64, 64]) == L


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: SwizzledSharedLayout(3, 1, 1, [1, 0]), "vec 3 must be a power of two"),
        (lambda: SwizzledSharedLayout(1, 1, 1, [1, 1]), r"order \[1, 1\] is not a permutation"),
        (lambda: SwizzledSharedLayout(1, 1, 1, [1, 0], CTALayout([1], [1], [0])), "rank"),
        (
            lambda: SwizzledSharedLayout(1, 1, 1, [1, 0], CTALayout([1, 2], [1, 4], [1, 0])),
            "CTASplitNum",
        ),
        (lambda: NvmmaSharedLayout(96, False, 16), "swizzlingByteWidth 96"),
        (lambda: NvmmaSharedLayout(128, False, 12), "elementBitWidth 12"),
        (lambda: NvmmaSharedLayout(128, 0, 16), "transposed must be a bool"),
        (
            lambda: NvmmaSharedLayout(128, False, 16).to_linear_layout([64, 32]),
            "too small for swizzlingByteWidth 128",
        ),
        (lambda: NvmmaSharedLayout(128, False, 16).to_linear_layout([4, 64]), "too small"),
        (lambda: NvmmaSharedLayout(128, False, 16).to_linear_layout([64]), "rank >= 2"),
        (lambda: nvmma(128, False, 16, rank=3).to_linear_layout([64, 64]), "rank 3"),
        (lambda: SharedLinearLayout([[0, 1], [0, 1]]), "bijective"),
        (lambda: SharedLinearLayout([[0, 2]]), "invalid bases"),
        (lambda: SharedLinearLayout([[1, 0], [2]]), "offset basis 1"),
        (lambda: SharedLinearLayout([[1]], alignment=3), "alignment 3"),
        (
            lambda: SwizzledSharedLayout(1, 1, 1, [1, 0]).to_linear_layout([12, 8]),
            "dim 0 of size 12",
        ),
    ],
)
def test_validation_errors_name_the_parameter(build, message):
    with pytest.raises(LayoutError, match=message):
        build()


def test_from_triton_params_shared():
    s = from_triton_params(
        "swizzled_shared",
        {
            "vec": 8,
            "perPhase": 1,
            "maxPhase": 8,
            "order": [1, 0],
            "CTAsPerCGA": [2, 1],
            "CTASplitNum": [2, 1],
            "CTAOrder": [1, 0],
        },
    )
    assert s == SwizzledSharedLayout(8, 1, 8, [1, 0], CTALayout([2, 1], [2, 1], [1, 0]))
    n = from_triton_params(
        "nvmma_shared", {"swizzlingByteWidth": 64, "transposed": True, "elementBitWidth": 16}
    )
    assert n == NvmmaSharedLayout(64, True, 16)
    with pytest.raises(LayoutError, match="missing parameter elementBitWidth"):
        from_triton_params("nvmma_shared", {"swizzlingByteWidth": 64})


# ---------------------------------------------------------------------------- hypothesis

pow2 = st.sampled_from([1, 2, 4, 8])


@st.composite
def swizzled_cases(draw):
    rank = draw(st.integers(1, 4))
    order = draw(st.permutations(range(rank)))
    cta = None
    if draw(st.booleans()):
        split = draw(st.lists(st.sampled_from([1, 2]), min_size=rank, max_size=rank))
        cta = CTALayout(split, split, draw(st.permutations(range(rank))))
    layout = SwizzledSharedLayout(draw(pow2), draw(pow2), draw(pow2), order, cta)
    shape = [draw(st.sampled_from([2, 4, 8, 16, 32, 64])) for _ in range(rank)]
    return layout, shape


@st.composite
def nvmma_cases(draw):
    swizzle = draw(st.sampled_from([0, 32, 64, 128]))
    width = draw(st.sampled_from([8, 16, 32]))
    transposed = draw(st.booleans())
    rank = draw(st.integers(2, 3))
    contig_min = max(1, 8 * swizzle // width)
    shape = [draw(st.sampled_from([8, 16, 32, 64, 128, 512])) for _ in range(rank)]
    contig = 0 if transposed else rank - 1
    shape[contig] = max(shape[contig], contig_min)
    if transposed:
        # The collapsed non-contiguous extent must hold the 8-row core matrix.
        shape[-1] = max(shape[-1], 8)
    cta = CTALayout.default(rank) if draw(st.booleans()) else None
    return NvmmaSharedLayout(swizzle, transposed, width, False, cta), shape


@settings(max_examples=150, deadline=None)
@given(case=swizzled_cases())
def test_every_swizzled_layout_is_invertible(case):
    layout, shape = case
    L = layout.to_linear_layout(shape)
    assert L.get_in_dim_names() == ["offset", "block"]
    assert L.out_dims == [(f"dim{i}", s) for i, s in enumerate(shape)]
    assert L.is_invertible()


@settings(max_examples=150, deadline=None)
@given(case=nvmma_cases())
def test_every_nvmma_layout_is_invertible(case):
    layout, shape = case
    L = layout.to_linear_layout(shape)
    assert L.out_dims == [(f"dim{i}", s) for i, s in enumerate(shape)]
    assert L.is_invertible()


@settings(max_examples=40, deadline=None)
@given(rows=st.sampled_from([8, 16, 32, 64, 128, 256, 512]))
def test_nvmma_128b_16bit_is_swizzled_8_1_8(rows):
    # NVMMA 128-byte swizzle of 16-bit elements = vec 8 (16 bytes), perPhase 1, maxPhase 8,
    # whenever a row is exactly one 128-byte swizzle line (64 elements).
    nv = NvmmaSharedLayout(128, False, 16).to_linear_layout([rows, 64])
    sw = SwizzledSharedLayout(8, 1, 8, [1, 0]).to_linear_layout([rows, 64])
    assert nv == sw


@pytest.mark.parametrize("shape", [[64, 64], [128, 64]])
def test_nvmma_128b_16bit_equals_swizzled_on_task_shapes(shape):
    assert NvmmaSharedLayout(128, False, 16).to_linear_layout(shape) == SwizzledSharedLayout(
        8, 1, 8, [1, 0]
    ).to_linear_layout(shape)


@settings(max_examples=100, deadline=None)
@given(case=swizzled_cases() | nvmma_cases())
def test_from_triton_params_roundtrips(case):
    layout, _ = case
    again = from_triton_params(layout.kind, layout.triton_params())
    assert again == layout and hash(again) == hash(layout)


@settings(max_examples=60, deadline=None)
@given(case=swizzled_cases() | nvmma_cases())
def test_shared_linear_wraps_any_shared_layout(case):
    layout, shape = case
    L = layout.to_linear_layout(shape)
    S = SharedLinearLayout.from_linear_layout(L)
    assert S.to_linear_layout(shape) == L
    assert from_triton_params("shared_linear", S.triton_params()) == S


@pytest.mark.parametrize("shape", [[64, 64], [64, 128]])
def test_transposed_nvmma_128b_16bit_is_column_major_swizzle(shape):
    # Transposed: dim0 is contiguous, so it matches the swizzle with order [0, 1].
    assert NvmmaSharedLayout(128, True, 16).to_linear_layout(shape) == SwizzledSharedLayout(
        8, 1, 8, [0, 1]
    ).to_linear_layout(shape)


# ---------------------------------------------------------------------------- issue 7 regressions
# Unswizzled NVMMA (swizzlingByteWidth = 0) is plain strides over the TMA block: the contiguous
# dim first (the last dim, or dim0 when ``transposed``), then the others from the last down;
# ensureLayoutNotSmallerThan adds the bases past the TMA block (each dim at most 256) after.


def test_unswizzled_transposed_nvmma_runs_along_dim0_first():
    # 16x16 f32, transposed: offsets 1, 2, 4, 8 step dim0, then 16 .. 128 step dim1.
    layout = nvmma(0, True, 32).to_linear_layout([16, 16])
    expected = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2], [0, 4], [0, 8]]
    assert layout == sll(2, expected)
    # Not transposed: dim1 first.
    plain = [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 0], [8, 0]]
    assert nvmma(0, False, 32).to_linear_layout([16, 16]) == sll(2, plain)


def test_unswizzled_transposed_nvmma_non_square_and_past_the_tma_block():
    # [4, 8] f16 transposed: dim0 (4) first, then dim1 (8).
    layout = nvmma(0, True, 16).to_linear_layout([4, 8])
    assert layout == sll(2, [[1, 0], [2, 0], [0, 1], [0, 2], [0, 4]])
    # [512, 4] f16 transposed: the TMA block is [256, 4]; within it dim0 1..128 then dim1 1, 2;
    # the second block along dim0 (256) comes last.
    layout = nvmma(0, True, 16).to_linear_layout([512, 4])
    dim0 = [[1 << i, 0] for i in range(8)]
    assert layout == sll(2, [*dim0, [0, 1], [0, 2], [256, 0]])


def test_unswizzled_transposed_nvmma_rank3():
    # [2, 4, 8] transposed: dim0 first, then dim2, then dim1 (the order of the swizzled
    # transposed path). Triton 3.9 gives a non-injective layout here (zero offset bases), which
    # llc does not copy: a shared layout must give every element its own offset.
    layout = nvmma(0, True, 16, rank=3).to_linear_layout([2, 4, 8])
    expected = [[1, 0, 0], [0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 1, 0], [0, 2, 0]]
    assert layout == sll(3, expected)
