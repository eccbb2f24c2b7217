"""MXFP emulation: fp8/fp4 codecs, the fp4 unpack layout, tl.fp4_to_fp and tl.dot_scaled
against an independent numpy reference of the OCP MX v1.0 format."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from llc.errors import LayoutError
from llc.layouts import BlockedLayout
from llc.linear_layout import LinearLayout
from llc.mxfp import (
    decode,
    encode,
    mx_dequantize,
    mx_quantize,
    pack_fp4,
    quantize,
    unpack_fp4,
    unpacked_layout,
)

# OCP MX v1.0, table of FP4 E2M1 values (sign bit 3), written out independently of llc.mxfp.
E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]


def _ref_e2m1(code: int) -> float:
    return (-1.0 if code & 8 else 1.0) * E2M1[code & 7]


def _ref_e8m0(code: int) -> float:
    return float("nan") if code == 255 else 2.0 ** (code - 127)


def test_codec_tables() -> None:
    assert [decode(np.array([c]), "e2m1")[0] for c in range(16)] == [
        _ref_e2m1(c) for c in range(16)
    ]
    e4m3 = decode(np.arange(256), "e4m3fn")
    assert np.nanmax(e4m3) == 448 and np.isnan(e4m3[0x7F]) and np.isnan(e4m3[0xFF])
    assert e4m3[1] == 2.0**-9 and np.isfinite(e4m3[0x7E])
    e5m2 = decode(np.arange(256), "e5m2")
    assert np.nanmax(e5m2[np.isfinite(e5m2)]) == 57344 and e5m2[0x7C] == np.inf


@pytest.mark.parametrize("fmt", ["e4m3fn", "e5m2", "e2m1"])
def test_round_to_nearest_even_by_brute_force(fmt: str) -> None:
    rng = np.random.default_rng(3)
    table = decode(np.arange(256 if fmt != "e2m1" else 16), fmt)
    finite = table[np.isfinite(table)]
    largest = finite.max()
    x = np.concatenate([rng.uniform(-largest, largest, 4000), (finite[:-1] + finite[1:]) / 2])
    got = quantize(x, fmt)
    for value, q in zip(x, got, strict=True):
        distances = np.abs(finite - value)
        best = finite[distances == distances.min()]
        if len(best) == 1:
            assert q == best[0]
        else:  # a tie: the even code
            codes = encode(best, fmt)
            assert q == best[codes % 2 == 0][0]


def test_pack_unpack_round_trip() -> None:
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 16, size=(4, 6, 8))
    for axis in range(3):
        if codes.shape[axis] % 2 == 0:
            packed = pack_fp4(codes, axis)
            assert packed.dtype == np.int8 and packed.shape[axis] == codes.shape[axis] // 2
            assert (unpack_fp4(packed, axis) == codes).all()


def _holder_table(ll: LinearLayout) -> dict[tuple[int, ...], set[tuple[int, int, int]]]:
    holders: dict[tuple[int, ...], set[tuple[int, int, int]]] = {}
    sizes = [ll.get_in_dim_size(n) for n in ("register", "lane", "warp")]
    for r, lane, w in itertools.product(*(range(s) for s in sizes)):
        out = ll.apply({"register": r, "lane": lane, "warp": w, "block": 0})
        holders.setdefault(tuple(out.values()), set()).add((r, lane, w))
    return holders


@pytest.mark.parametrize(
    "spt,tpw,wpc,order,shape,axis",
    [
        ([1, 4], [8, 4], [2, 2], [1, 0], (32, 32), 1),
        ([2, 2], [4, 8], [1, 4], [0, 1], (16, 64), 0),
        ([1, 1], [32, 1], [4, 1], [0, 1], (128, 8), 1),
    ],
)
def test_unpacked_layout_keeps_each_byte_in_its_thread(spt, tpw, wpc, order, shape, axis) -> None:
    """Element 2j+h of the unpacked tensor sits in the thread that holds byte j, register 2r+h."""
    packed = BlockedLayout(spt, tpw, wpc, order).to_linear_layout(shape)
    unpacked = unpacked_layout(packed, axis)
    assert unpacked.get_in_dim_size("register") == 2 * packed.get_in_dim_size("register")
    assert unpacked.get_out_dim_size(f"dim{axis}") == 2 * shape[axis]
    for r, lane, w in itertools.product(
        range(packed.get_in_dim_size("register")), range(32), range(4)
    ):
        byte = packed.apply({"register": r, "lane": lane, "warp": w, "block": 0})
        for h in (0, 1):
            elem = unpacked.apply({"register": 2 * r + h, "lane": lane, "warp": w, "block": 0})
            want = dict(byte)
            want[f"dim{axis}"] = 2 * byte[f"dim{axis}"] + h
            assert elem == want


def test_unpacked_layout_errors() -> None:
    packed = BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0]).to_linear_layout((32, 32))
    with pytest.raises(LayoutError, match="axis 2 is out of range"):
        unpacked_layout(packed, 2)


def _run(text: str, *args: np.ndarray) -> np.ndarray:
    from llc.testing.semantics import make_interpreter, parse

    module = parse(text)
    (out,) = make_interpreter(module).call_op("k", args)
    return np.asarray(out)


def test_fp4_to_fp_matches_the_reference() -> None:
    rng = np.random.default_rng(5)
    packed = rng.integers(-128, 128, size=(16, 32)).astype(np.int8)
    p = (
        "#tl.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], "
        "order = [1, 0]}>"
    )
    u = (
        "#tl.linear<{register = [[0, 1], [0, 2], [0, 4]], lane = [[0, 8], [0, 16], [1, 0], "
        "[2, 0], [4, 0]], warp = [[0, 32], [8, 0]], block = []}>"
    )
    src, dst = f"tensor<16x32xi8, {p}>", f"tensor<16x64xbf16, {u}>"
    text = f"""
func.func @k(%x: {src}) -> {dst} {{
  %y = tl.fp4_to_fp %x {{axis = 1 : i32}} : ({src}) -> {dst}
  func.return %y : {dst}
}}"""
    got = _run(text, packed)
    bytes_ = packed.astype(np.int64) & 255
    want = np.array(
        [
            [_ref_e2m1((bytes_[i, j // 2] >> (4 * (j % 2))) & 15) for j in range(64)]
            for i in range(16)
        ]
    )
    assert (got == want).all()


@pytest.mark.parametrize("seed", range(4))
def test_dot_scaled_matches_the_ocp_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)
    m, n, k = 16, 8, 64
    a = rng.standard_normal((m, k)) * rng.choice([0.01, 1, 100])
    b = rng.standard_normal((k, n)) * rng.choice([0.01, 1, 100])
    a_codes, a_scales = mx_quantize(a, 1)
    b_codes, b_scales = mx_quantize(b, 0)
    acc = rng.standard_normal((m, n)).astype(np.float32)
    ta, tas = f"tensor<{m}x{k // 2}xi8>", f"tensor<{m}x{k // 32}xi8>"
    tb, tbs = f"tensor<{k // 2}x{n}xi8>", f"tensor<{n}x{k // 32}xi8>"
    tc = f"tensor<{m}x{n}xf32>"
    text = f"""
func.func @k(%a: {ta}, %as: {tas}, %b: {tb}, %bs: {tbs}, %c: {tc}) -> {tc} {{
  %d = tl.dot_scaled %a, %as, %b, %bs, %c {{lhs = "e2m1", rhs = "e2m1"}}
       : ({ta}, {tas}, {tb}, {tbs}, {tc}) -> {tc}
  func.return %d : {tc}
}}"""
    got = _run(
        text,
        pack_fp4(a_codes, 1),
        a_scales.astype(np.uint8).view(np.int8),
        pack_fp4(b_codes, 0),
        b_scales.T.copy().astype(np.uint8).view(np.int8),
        acc,
    )
    # Independent OCP reference: element value x 2^(scale - 127), per 32 along K.
    a_ref = np.array(
        [
            [_ref_e2m1(a_codes[i, j]) * _ref_e8m0(a_scales[i, j // 32]) for j in range(k)]
            for i in range(m)
        ]
    )
    b_ref = np.array(
        [
            [_ref_e2m1(b_codes[j, i]) * _ref_e8m0(b_scales[j // 32, i]) for i in range(n)]
            for j in range(k)
        ]
    )
    want = (a_ref @ b_ref + acc).astype(np.float32)
    assert np.allclose(got, want, rtol=1e-6, atol=1e-6)
    assert np.allclose(mx_dequantize(a_codes, a_scales, 1), a_ref)
    # OCP's scale keeps |x| / scale < 8; rounding (half step <= 1) or saturation at 6 errs by
    # at most 2 x scale.
    assert np.all(np.abs(a - a_ref) <= 2 * np.repeat(2.0 ** (a_scales - 127.0), 32, axis=1))


def test_layout_rule_of_fp4_to_fp_round_trips() -> None:
    """Layout assignment: forward gives the verifier's unpacked layout, backward undoes it, and
    a result layout whose lowest register is not the nibble has no packed layout."""
    from pathlib import Path

    from llc.dialects.layout_rules import rule_for
    from llc.testing.semantics import parse

    text = (Path(__file__).parents[1] / "lit/ops/Inputs/mxfp.mlir").read_text()
    module = parse(text)
    op = next(o for o in module.walk() if o.name == "tl.fp4_to_fp")
    rule = rule_for(op)
    assert rule is not None
    src = op.operands[0].type.encoding
    (forward,) = rule.forward(op, 0, src)
    result = op.results[0].type.encoding
    assert forward.to_linear_layout([16, 64]) == result.to_linear_layout([16, 64])
    (backward,) = rule.backward(op, [forward])
    assert backward.to_linear_layout([16, 32]) == src.to_linear_layout([16, 32])
    # #p itself (4 per thread along dim1) is the unpacked layout of 2 bytes per thread.
    (packed,) = rule.backward(op, [src])
    (again,) = rule.forward(op, 0, packed)
    assert again.to_linear_layout([16, 64]) == src.to_linear_layout([16, 64])
    # Registers along dim0 first: no packed layout has them as nibbles.
    other = parse(
        "func.func @f(%x: tensor<16x64xf32, #tl.blocked<{sizePerThread = [2, 2], threadsPerWarp"
        " = [8, 4], warpsPerCTA = [2, 2], order = [0, 1]}>>) { func.return }"
    )
    arg = next(o for o in other.walk() if o.name == "func.func").args[0]
    assert rule.backward(op, [arg.type.encoding]) is None


@pytest.mark.parametrize("decomposed", [False, True])
def test_dot_scaled_with_one_scale_per_16_matches_numpy(decomposed: bool) -> None:
    """nvfp4-style groups (Triton 3.9 reads them for sm_120): a 16x32 e4m3 operand with 16x2
    scales applies each scale to 16 consecutive K elements, in the interpreter and after
    ``llc-decompose-dot-scaled``. Repeating each scale 32 times would misscale half of K."""
    from xdsl.context import Context

    from llc.mxfp import decode, decode_e8m0
    from llc.passes.decompose_dot_scaled import DecomposeDotScaledPass
    from llc.testing.semantics import make_interpreter, parse

    rng = np.random.default_rng(16)
    m, n, k = 16, 8, 32
    a = rng.integers(0, 0x7E, (m, k)).astype(np.int8)  # finite e4m3 codes, both signs below
    b = rng.integers(0, 0x7E, (k, n)).astype(np.int8)
    a_s = rng.integers(120, 135, (m, k // 16)).astype(np.uint8)
    b_s = rng.integers(120, 135, (n, k // 16)).astype(np.uint8)
    a[::3] |= -128
    acc = np.zeros((m, n), np.float32)
    ta, tas, tb, tbs = (
        f"tensor<{m}x{k}xi8>",
        f"tensor<{m}x2xi8>",
        f"tensor<{k}x{n}xi8>",
        f"tensor<{n}x2xi8>",
    )
    tc = f"tensor<{m}x{n}xf32>"
    text = f"""
func.func @k(%a: {ta}, %as: {tas}, %b: {tb}, %bs: {tbs}, %c: {tc}) -> {tc} {{
  %d = tl.dot_scaled %a, %as, %b, %bs, %c {{lhs = "e4m3", rhs = "e4m3"}}
       : ({ta}, {tas}, {tb}, {tbs}, {tc}) -> {tc}
  func.return %d : {tc}
}}"""
    module = parse(text)
    if decomposed:
        DecomposeDotScaledPass().apply(Context(), module)
        assert "tl.dot_scaled" not in str(module)
    args = (a, a_s.view(np.int8), b, b_s.view(np.int8), acc)
    (got,) = make_interpreter(module).call_op("k", args)
    a_ref = decode(a.astype(np.int64) & 255, "e4m3fn") * np.repeat(decode_e8m0(a_s), 16, axis=1)
    b_ref = decode(b.astype(np.int64) & 255, "e4m3fn") * np.repeat(decode_e8m0(b_s), 16, axis=1).T
    want = a_ref @ b_ref
    assert np.allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)
