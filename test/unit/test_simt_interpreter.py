"""The SIMT interpreter on hand-written programs: PTX shfl.sync semantics (modes, widths via the
c operand, lanes outside the segment), shared-memory races and wavefront counts."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, gpu, vector

from llc.dialects.diagnostics import parse_module
from llc.dialects.simt import SIMT
from llc.dialects.simt_interpreter import SimtError, SimtRaceError, make_simt_interpreter


def _run(body: str, args: list[np.ndarray], warps: int = 1, lanes: int = 32, ret: str = ""):
    ctx = Context()
    for d in (builtin.Builtin, func.Func, arith.Arith, gpu.GPU, vector.Vector, SIMT):
        ctx.load_dialect(d)
    params = ", ".join(f"%a{i}: vector<1xi32>" for i in range(len(args)))
    text = f"func.func @f({params}) -> {ret or 'vector<1xi32>'} {{\n{body}\n}}"
    module = parse_module(ctx, text, "<test>")
    module.verify()
    interp, functions = make_simt_interpreter(module, warps, lanes)
    (out,) = interp.call_op("f", tuple(args))
    return out[:, 0], functions.stats


def _lanes(n: int = 32) -> np.ndarray:
    return np.arange(n, dtype=np.uint32)[:, None] + 100


def _shuffle(mode: str, b: int, width: int, lanes: int = 32) -> np.ndarray:
    # CUDA's __shfl_*_sync(width) passes c = ((warp - width) << 8) | clamp, clamp 0 for up.
    clamp = 0 if mode == "up" else lanes - 1
    c = ((lanes - width) << 8) | clamp
    body = f"""
      %b = arith.constant {b} : index
      %r = simt.shuffle "{mode}" %a0, %b c = {c} mask = -1 : vector<1xi32>
      func.return %r : vector<1xi32>"""
    out, stats = _run(body, [_lanes(lanes)], lanes=lanes)
    assert stats.instructions == {"shfl": 1}
    return out.astype(np.int64) - 100


def _cuda_reference(mode: str, b: int, width: int, lanes: int = 32) -> np.ndarray:
    """CUDA's documented results: sub-segments of `width` lanes, out-of-range keeps own value."""
    lane = np.arange(lanes)
    base = lane - lane % width
    if mode == "idx":
        return base + b % width
    if mode == "bfly":
        j = lane ^ b
        return np.where(j < base + width, j, lane)
    if mode == "up":
        return np.where(lane - b >= base, lane - b, lane)
    return np.where(lane + b < base + width, lane + b, lane)


@pytest.mark.parametrize("mode", ["idx", "bfly", "up", "down"])
@pytest.mark.parametrize("width", [32, 16, 8, 1])
@pytest.mark.parametrize("b", [0, 1, 3, 5, 17])
def test_shuffle_follows_ptx_with_segments(mode: str, width: int, b: int) -> None:
    np.testing.assert_array_equal(_shuffle(mode, b, width), _cuda_reference(mode, b, width))


def test_shuffle_on_64_lanes() -> None:
    np.testing.assert_array_equal(_shuffle("bfly", 33, 64, 64), np.arange(64) ^ 33)
    np.testing.assert_array_equal(_shuffle("down", 40, 64, 64), _cuda_reference("down", 40, 64, 64))


def test_shuffle_outside_the_member_mask_is_an_error() -> None:
    body = """
      %b = arith.constant 1 : index
      %r = simt.shuffle "bfly" %a0, %b c = 31 mask = 65535 : vector<1xi32>
      func.return %r : vector<1xi32>"""
    with pytest.raises(SimtError, match="member mask"):
        _run(body, [_lanes()])


_STORE_LOAD = """
  %s = simt.shared_alloc : !simt.smem<256, align 16>
  %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c4 = arith.constant 4 : index
  %c2 = arith.constant 2 : index
  %mine = arith.muli %t, %c4 : index
  simt.shared_store %a0, %s[%mine] : vector<1xi32>, !simt.smem<256, align 16>
  BARRIER
  %other = arith.xori %mine, %c4 : index
  %r = simt.shared_load %s[%other] : !simt.smem<256, align 16> -> vector<1xi32>
  func.return %r : vector<1xi32>"""


def test_barrier_orders_stores_before_loads_of_other_threads() -> None:
    out, stats = _run(_STORE_LOAD.replace("BARRIER", '"gpu.barrier"() : () -> ()'), [_lanes()])
    np.testing.assert_array_equal(out, (np.arange(32) ^ 1) + 100)
    assert stats.instructions["bar.sync"] == 1
    # 32 distinct words in 32 banks: one wavefront each way, the ideal.
    assert (stats.wavefronts, stats.ideal_wavefronts) == (2, 2)


def test_missing_barrier_is_a_race_naming_the_op() -> None:
    with pytest.raises(
        SimtRaceError, match="race: thread 0 reads byte 4, written by thread 1"
    ) as e:
        _run(_STORE_LOAD.replace("BARRIER", ""), [_lanes()])
    assert e.value.op.name == "simt.shared_load"


def test_misaligned_and_unwritten_accesses_are_errors() -> None:
    with_barrier = _STORE_LOAD.replace("BARRIER", '"gpu.barrier"() : () -> ()')
    misaligned = with_barrier.replace("arith.xori %mine, %c4", "arith.xori %mine, %c2")
    with pytest.raises(SimtError, match="not aligned to 4 bytes"):
        _run(misaligned, [_lanes()])
    unwritten = with_barrier.replace("arith.xori %mine, %c4", "arith.xori %mine, %far").replace(
        "%c2 = arith.constant 2 : index", "%far = arith.constant 128 : index"
    )
    with pytest.raises(SimtRaceError, match="which no thread has written"):
        _run(unwritten, [_lanes()])


def test_overwriting_what_another_thread_read_needs_a_barrier() -> None:
    body = _STORE_LOAD.replace("BARRIER", '"gpu.barrier"() : () -> ()').replace(
        "  func.return %r",
        "  simt.shared_store %a0, %s[%mine] : vector<1xi32>, !simt.smem<256, align 16>\n"
        "  func.return %r",
    )
    with pytest.raises(SimtRaceError, match="read since the last barrier"):
        _run(body, [_lanes()])


def test_bank_conflicts_are_counted_per_distinct_word() -> None:
    # Lanes at a stride of 128 bytes: all in bank 0 -> 32 wavefronts; ideal ceil(128/128) = 1.
    body = """
      %s = simt.shared_alloc : !simt.smem<4096, align 16>
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c128 = arith.constant 128 : index
      %addr = arith.muli %t, %c128 : index
      simt.shared_store %a0, %s[%addr] : vector<1xi32>, !simt.smem<4096, align 16>
      func.return %a0 : vector<1xi32>"""
    _, stats = _run(body, [_lanes()])
    assert (stats.wavefronts, stats.ideal_wavefronts) == (32, 1)


def _matrix_program(count: int, st_trans: bool, ld_trans: bool, barrier: bool = True) -> str:
    n = 2 * count
    st = " trans" if st_trans else ""
    ld = " trans" if ld_trans else ""
    sync = '"gpu.barrier"() : () -> ()' if barrier else ""
    return f"""
func.func @f(%v: vector<{n}xf16>) -> vector<{n}xf16> {{
  %s = simt.shared_alloc : !simt.smem<512, align 16>
  %t = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %c16 = arith.constant 16 : index
  %row = arith.muli %t, %c16 : index
  simt.stmatrix %v, %s[%row] x {count}{st} : vector<{n}xf16>, !simt.smem<512, align 16>
  {sync}
  %r = simt.ldmatrix %s[%row] x {count}{ld} : !simt.smem<512, align 16> -> vector<{n}xf16>
  func.return %r : vector<{n}xf16>
}}"""


def _run_matrix(text: str, values: np.ndarray):
    ctx = Context()
    for d in (builtin.Builtin, func.Func, arith.Arith, gpu.GPU, vector.Vector, SIMT):
        ctx.load_dialect(d)
    module = parse_module(ctx, text, "<test>")
    module.verify()
    interp, functions = make_simt_interpreter(module, 1, 32)
    (out,) = interp.call_op("f", (values,))
    return out, functions.stats


@pytest.mark.parametrize("count", [1, 2, 4])
def test_ldmatrix_and_stmatrix_follow_the_ptx_fragment_layout(count: int) -> None:
    values = np.arange(32 * 2 * count, dtype=np.uint16).reshape(32, 2 * count)
    # stmatrix then ldmatrix with the same addresses and the same .trans: the identity.
    for trans in (False, True):
        out, stats = _run_matrix(_matrix_program(count, trans, trans), values)
        np.testing.assert_array_equal(out, values)
        assert stats.instructions == {"alu": 1, "stmatrix": 1, "bar.sync": 1, "ldmatrix": 1}
        assert (stats.wavefronts, stats.ideal_wavefronts) == (2 * count, 2 * count)
    # Plain stmatrix, transposed ldmatrix: each 8x8 matrix comes back transposed. Lane t holds
    # elements (t//4, 2(t%4)) and (t//4, 2(t%4)+1) of matrix i in registers 2i, 2i+1.
    matrices = np.zeros((count, 8, 8), dtype=np.uint16)
    for lane in range(32):
        for i in range(count):
            for pair in range(2):
                matrices[i, lane // 4, 2 * (lane % 4) + pair] = values[lane, 2 * i + pair]
    expected = np.zeros_like(values)
    for lane in range(32):
        for i in range(count):
            for pair in range(2):
                expected[lane, 2 * i + pair] = matrices[i, 2 * (lane % 4) + pair, lane // 4]
    out, _ = _run_matrix(_matrix_program(count, False, True), values)
    np.testing.assert_array_equal(out, expected)


def test_ldmatrix_after_stmatrix_of_another_warp_needs_a_barrier() -> None:
    text = _matrix_program(4, False, False, barrier=False).replace(
        "%row = arith.muli %t, %c16 : index",
        "%c512 = arith.constant 511 : index\n  %w = arith.muli %t, %c16 : index\n"
        "  %row = arith.andi %w, %c512 : index",
    )
    ctx = Context()
    for d in (builtin.Builtin, func.Func, arith.Arith, gpu.GPU, vector.Vector, SIMT):
        ctx.load_dialect(d)
    module = parse_module(ctx, text, "<test>")
    interp, _ = make_simt_interpreter(module, 2, 32)
    with pytest.raises(SimtRaceError, match="race: warp"):
        interp.call_op("f", (np.zeros((64, 8), dtype=np.uint16),))


# ------------------------------------------------------------------ one buffer per alloc, as in PTX
def _kernel(body: str, params: str = "%a0: vector<1xi32>"):
    """A module with ``@f(params)`` (no results) and the kernel interpreter (scf, program ids)."""
    from xdsl.dialects import scf

    from llc.dialects.simt_kernel_interpreter import GlobalMemory, make_kernel_interpreter

    ctx = Context()
    for d in (builtin.Builtin, func.Func, arith.Arith, gpu.GPU, vector.Vector, scf.Scf, SIMT):
        ctx.load_dialect(d)
    text = f"func.func @f({params}) {{\n{body}\n  func.return\n}}"
    module = parse_module(ctx, text, "<test>")
    module.verify()
    return make_kernel_interpreter(module, 1, 32, GlobalMemory())


_EXCHANGE = """
    %s = simt.shared_alloc : !simt.smem<128, align 16>
    simt.shared_store %a0, %s[%mine] : vector<1xi32>, !simt.smem<128, align 16>
    "gpu.barrier"() : () -> ()
    %r = simt.shared_load %s[%other] : !simt.smem<128, align 16> -> vector<1xi32>
    TRAILING"""

_THREAD = """
  %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %mine = arith.muli %t, %c4 : index
  %other = arith.xori %mine, %c4 : index"""

_BARRIER = '"gpu.barrier"() : () -> ()'


def _for_loop(trailing: str) -> str:
    return f"""{_THREAD}
  scf.for %i = %c0 to %c2 step %c1 {{{_EXCHANGE.replace("TRAILING", trailing)}
  }}"""


def _while_loop(trailing: str) -> str:
    return f"""{_THREAD}
  %n = scf.while (%i = %c0) : (index) -> index {{
    %go = arith.cmpi slt, %i, %c2 : index
    scf.condition(%go) %i : index
  }} do {{
  ^bb0(%j: index):{_EXCHANGE.replace("TRAILING", trailing)}
    %next = arith.addi %j, %c1 : index
    scf.yield %next : index
  }}"""


@pytest.mark.parametrize("loop", [_for_loop, _while_loop], ids=["scf.for", "scf.while"])
def test_the_next_iteration_reuses_the_buffer_of_an_alloc_in_the_loop(loop) -> None:
    """The alloc inside the loop is one static buffer (as the PTX makes it): the second
    iteration's store overwrites what another thread read in the first one, a race unless a
    barrier ends the iteration."""
    interp, _ = _kernel(loop(_BARRIER))
    interp.call_op("f", (_lanes(),))
    interp, _ = _kernel(loop(""))
    with pytest.raises(SimtRaceError, match="writes byte 0, which thread 1 read") as e:
        interp.call_op("f", (_lanes(),))
    assert e.value.op.name == "simt.shared_store"


def test_a_store_in_an_scf_if_races_with_an_earlier_read() -> None:
    body = f"""{_THREAD}{_EXCHANGE.replace("TRAILING", "")}
  %yes = arith.constant true
  scf.if %yes {{
    simt.shared_store %a0, %s[%mine] : vector<1xi32>, !simt.smem<128, align 16>
  }}"""
    interp, _ = _kernel(body)
    with pytest.raises(SimtRaceError, match="read since the last barrier"):
        interp.call_op("f", (_lanes(),))
    interp, _ = _kernel(body.replace("  %yes", f"  {_BARRIER}\n  %yes"))
    interp.call_op("f", (_lanes(),))


def test_shared_memory_persists_within_a_cta_and_starts_uninitialized_in_the_next() -> None:
    """``%w`` says whether the program stores; the load of a byte stored by an earlier run of
    the same CTA is fine (the buffer persists), the same load in a new CTA reads garbage."""
    body = f"""{_THREAD}
  %s = simt.shared_alloc : !simt.smem<128, align 16>
  scf.if %w {{
    simt.shared_store %a0, %s[%mine] : vector<1xi32>, !simt.smem<128, align 16>
  }}
  {_BARRIER}
  %r = simt.shared_load %s[%other] : !simt.smem<128, align 16> -> vector<1xi32>"""
    interp, kernel = _kernel(body, "%a0: vector<1xi32>, %w: i1")
    interp.call_op("f", (_lanes(), np.True_))
    interp.call_op("f", (_lanes(), np.False_))  # the same CTA: the bytes are still there
    kernel.program_id = (1, 0, 0)  # another CTA
    with pytest.raises(SimtRaceError, match="uninitialized read: thread 0 reads byte 4") as e:
        interp.call_op("f", (_lanes(), np.False_))
    assert e.value.op.name == "simt.shared_load"


def test_a_register_move_of_raw_bits_and_numbers_keeps_the_bits() -> None:
    """``vector.shuffle`` of a shuffled f64 (two 32-bit shuffles: raw bits, as data movement
    leaves them) and a computed one (numbers, in the kernel interpreter): every element keeps its
    value (a scan combines shuffled totals with computed prefixes; numpy's concatenation would
    convert the uint64 bits to floats)."""
    from llc.dialects.simt_kernel_interpreter import GlobalMemory, make_kernel_interpreter

    text = """
    builtin.module {
      func.func @f(%x: vector<1xf64>) -> vector<2xf64> {
        %c = arith.constant 1 : index
        %w = vector.bitcast %x : vector<1xf64> to vector<2xi32>
        %lo = vector.shuffle %w, %w [0] : vector<2xi32>, vector<2xi32>
        %hi = vector.shuffle %w, %w [1] : vector<2xi32>, vector<2xi32>
        %slo = simt.shuffle "bfly" %lo, %c c = 31 mask = -1 : vector<1xi32>
        %shi = simt.shuffle "bfly" %hi, %c c = 31 mask = -1 : vector<1xi32>
        %sw = vector.shuffle %slo, %shi [0, 1] : vector<1xi32>, vector<1xi32>
        %s = vector.bitcast %sw : vector<2xi32> to vector<1xf64>
        %y = arith.addf %x, %x : vector<1xf64>
        %r = vector.shuffle %s, %y [0, 1] : vector<1xf64>, vector<1xf64>
        func.return %r : vector<2xf64>
      }
    }
    """
    ctx = Context()
    for dialect in (builtin.Builtin, func.Func, arith.Arith, vector.Vector, gpu.GPU, SIMT):
        ctx.load_dialect(dialect)
    module = parse_module(ctx, text)
    interp, _ = make_kernel_interpreter(module, 1, 32, GlobalMemory())
    x = np.arange(32, dtype=np.float64)[:, None] + 0.5
    (out,) = interp.call_op("f", (x,))
    values = np.asarray(out).view(np.float64) if np.asarray(out).dtype.kind == "u" else out
    assert np.array_equal(values[:, 0], (np.arange(32) ^ 1) + 0.5)
    assert np.array_equal(values[:, 1], 2 * x[:, 0])
