"""``tl.atomic_rmw`` / ``tl.atomic_cas`` lowered by llc-compile (``simt.atomic``, PTX ``atom``):
the SIMT interpreter's atomics are atomic across threads, the lowered kernels give the tensor
level's buffers, and ptxas takes the PTX (llc.passes.lower_atomics)."""

from __future__ import annotations

import numpy as np
import pytest

from llc.dialects.tl_interpreter import Buffer, Pointer
from llc.testing.semantics import apply_pipeline, call_kernel, parse

TENSOR_KERNEL = """
module attributes {{"tl.num-warps" = {warps} : i32, "tl.threads-per-warp" = 32 : i32,
                   "tl.target" = "cuda:80"}} {{
  func.func @k(%m_ptr: !tl.ptr<{t}>, %v_ptr: !tl.ptr<{t}>, %o_ptr: !tl.ptr<{t}>, %n: i32) {{
    %r = tl.make_range {{end = {size} : i32, start = 0 : i32}} : tensor<{size}xi32>
    %wrap = arith.constant dense<{wrap}> : tensor<{size}xi32>
    %i = arith.remsi %r, %wrap : tensor<{size}xi32>
    %mb = tl.splat %m_ptr : !tl.ptr<{t}> -> tensor<{size}x!tl.ptr<{t}>>
    %mp = tl.addptr %mb, %i : tensor<{size}x!tl.ptr<{t}>>, tensor<{size}xi32>
    %vb = tl.splat %v_ptr : !tl.ptr<{t}> -> tensor<{size}x!tl.ptr<{t}>>
    %vp = tl.addptr %vb, %r : tensor<{size}x!tl.ptr<{t}>>, tensor<{size}xi32>
    %v = tl.load %vp : tensor<{size}x!tl.ptr<{t}>>
    %ns = tl.splat %n : i32 -> tensor<{size}xi32>
    %mask = tl.cmpi slt, %r, %ns : tensor<{size}xi32>
    {atomic}
    %ob = tl.splat %o_ptr : !tl.ptr<{t}> -> tensor<{size}x!tl.ptr<{t}>>
    %op = tl.addptr %ob, %r : tensor<{size}x!tl.ptr<{t}>>, tensor<{size}xi32>
    tl.store %op, %old : tensor<{size}x!tl.ptr<{t}>>
    func.return
  }}
}}
"""
RMW = (
    "%old = tl.atomic_rmw {kind}, acq_rel, gpu, %mp, %v, %mask : (tensor<{size}x!tl.ptr<{t}>>, "
    "tensor<{size}x{t}>, tensor<{size}xi1>) -> tensor<{size}x{t}>"
)
CAS = (
    "%old = tl.atomic_cas acq_rel, gpu, %mp, %v, %v : (tensor<{size}x!tl.ptr<{t}>>, "
    "tensor<{size}x{t}>, tensor<{size}x{t}>) -> tensor<{size}x{t}>"
)


def _kernel(kind: str, t: str, size: int, wrap: int, warps: int = 2) -> str:
    atomic = (CAS if kind == "cas" else RMW).format(kind=kind, size=size, t=t)
    return TENSOR_KERNEL.format(warps=warps, t=t, size=size, wrap=wrap, atomic=atomic)


def _run(module, arrays: list[np.ndarray], n: int, lowered: bool) -> list[np.ndarray]:
    bufs = [Buffer(f"b{i}", a.copy()) for i, a in enumerate(arrays)]
    call_kernel(module, "k", (*(Pointer(b, 0) for b in bufs), np.int32(n)))
    return [b.data for b in bufs]


def _both(text: str, arrays: list[np.ndarray], n: int) -> tuple[list, list]:
    lowered = apply_pipeline(parse(text), "llc-compile")
    assert "simt.atomic" in str(lowered)
    return _run(parse(text), arrays, n, False), _run(lowered, arrays, n, True)


def _data(t: str, size: int, wrap: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    dt = {"i32": np.int32, "f32": np.float32, "i64": np.int64}[t]
    if t == "f32":  # eighths: every order of the sums rounds alike
        return [(rng.integers(-64, 64, n) / 8).astype(dt) for n in (wrap, size, size)]
    return [rng.integers(-1000, 1000, n).astype(dt) for n in (wrap, size, size)]


@pytest.mark.parametrize(
    "kind, t",
    [
        tuple(case.split(":"))
        for case in [
            "add:i32",
            "fadd:f32",
            "max:i32",
            "min:i64",
            "umax:i32",
            "umin:i32",
            "and:i32",
            "or:i64",
            "xor:i32",
            "exch:f32",
            "cas:i32",
        ]
    ],
)
def test_each_atomic_gives_the_tensor_levels_buffers(kind: str, t: str) -> None:
    """256 elements (4 registers per thread) on distinct addresses, a quarter masked off: memory
    and the old values are the tensor level's bit for bit (0 where masked off)."""
    arrays = _data(t, 256, 256, seed=len(kind))
    if kind == "cas":  # half the elements match
        arrays[1][::2] = arrays[0][::2]
    expected, got = _both(_kernel(kind, t, 256, 256), arrays, 192)
    for e, g in zip(expected, got, strict=True):
        assert np.array_equal(e.view(f"u{e.itemsize}"), g.view(f"u{g.itemsize}"))


@pytest.mark.parametrize("kind", ["add", "max", "xor", "fadd"])
def test_colliding_atomics_give_the_tensor_levels_memory(kind: str) -> None:
    """256 elements on 8 addresses (every thread meets 31 others at each): the final memory is
    the tensor level's (these kinds commute; fadd's operands are eighths)."""
    t = "f32" if kind == "fadd" else "i32"
    arrays = _data(t, 256, 8, seed=3)
    expected, got = _both(_kernel(kind, t, 256, 8), arrays, 250)
    assert np.array_equal(expected[0], got[0])


def _serialization(init: int, ops: list[tuple[int, int]], step) -> list[int] | None:
    """An order of ``ops`` (value, old) in which each old value is what the previous updates
    left, from ``init`` (depth-first; None when there is none)."""

    def search(cur: int, left: tuple[int, ...]) -> list[int] | None:
        if not left:
            return []
        for k, i in enumerate(left):
            value, old = ops[i]
            if old == cur:
                rest = search(step(cur, value), left[:k] + left[k + 1 :])
                if rest is not None:
                    return [i, *rest]
        return None

    return search(init, tuple(range(len(ops))))


@pytest.mark.parametrize("kind", ["add", "exch", "cas"])
def test_old_values_are_a_serialization(kind: str) -> None:
    """64 threads (2 warps) x 4 registers hit 4 addresses: per address, the old values the
    threads got chain into one serial order of the updates, which ends at the final memory
    (a non-atomic read-then-write gives every thread the same old value and loses updates)."""
    size, wrap, n = 256, 4, 256
    rng = np.random.default_rng(7)
    init = np.array([5, 0, 100, 7], np.int32)
    if kind == "cas":  # compare with the address's initial value: exactly one wins
        values = np.arange(1, size + 1, dtype=np.int32)
        cmp = init[np.arange(size) % wrap]
        text = _kernel("cas", "i32", size, wrap).replace("%mp, %v, %v", "%mp, %c, %v")
        text = text.replace(
            "%old = tl.atomic_cas",
            "%cb = tl.splat %o_ptr : !tl.ptr<i32> -> tensor<256x!tl.ptr<i32>>\n"
            "    %cp = tl.addptr %cb, %r : tensor<256x!tl.ptr<i32>>, tensor<256xi32>\n"
            "    %c = tl.load %cp : tensor<256x!tl.ptr<i32>>\n    %old = tl.atomic_cas",
        )
        arrays = [init, values, cmp.astype(np.int32)]
    else:
        values = rng.integers(1, 1 << 20, size).astype(np.int32)  # distinct, positive
        text = _kernel(kind, "i32", size, wrap)
        arrays = [init, values, np.zeros(size, np.int32)]
    lowered = apply_pipeline(parse(text), "llc-compile")
    memory, _, old = _run(lowered, arrays, n, True)
    for a in range(wrap):
        mine = np.flatnonzero(np.arange(size) % wrap == a)
        if kind == "cas":
            winners = mine[old[mine] == init[a]]
            assert winners.size == 1  # one thread saw the initial value and swapped
            assert (old[mine] == np.where(mine == winners[0], init[a], values[winners[0]])).all()
            assert memory[a] == values[winners[0]]
            continue
        ops = [(int(values[i]), int(old[i])) for i in mine]
        fn = (lambda cur, v: cur + v) if kind == "add" else (lambda cur, v: v)
        order = _serialization(int(init[a]), ops, fn)
        assert order is not None
        final = int(init[a])
        for i in order:
            final = fn(final, ops[i][0])
        assert memory[a] == final


@pytest.mark.parametrize("t", ["i32", "i64"])
def test_a_broadcast_layout_updates_once_and_every_copy_gets_the_old_value(t: str) -> None:
    """16 elements in a warp of 32 lanes: lanes 16-31 hold copies; each element is added once
    and both copies get its old value (the shfl.sync of the lowering; i64 as two halves)."""
    text = _kernel("add", t, 16, 16, warps=1)
    lowered = apply_pipeline(parse(text), "llc-compile")
    assert "simt.shuffle" in str(lowered)
    arrays = _data(t, 16, 16, seed=11)
    expected = _run(parse(text), arrays, 12, False)
    got = _run(lowered, arrays, 12, True)
    for e, g in zip(expected, got, strict=True):
        assert np.array_equal(e, g)
    assert np.array_equal(got[0][:12], arrays[0][:12] + arrays[1][:12])


TICKET_KERNEL = """
module attributes {"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32,
                   "tl.target" = "cuda:80"} {
  func.func @k(%counter: !tl.ptr<i32>, %x_ptr: !tl.ptr<f32>, %o_ptr: !tl.ptr<f32>, %n: i32) {
    %one = arith.constant 1 : i32
    %pid = tl.get_program_id x : i32
    %ticket = tl.atomic_rmw add, acq_rel, gpu, %counter, %one : (!tl.ptr<i32>, i32) -> i32
    %r = tl.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %xb = tl.splat %x_ptr : !tl.ptr<f32> -> tensor<128x!tl.ptr<f32>>
    %xp = tl.addptr %xb, %r : tensor<128x!tl.ptr<f32>>, tensor<128xi32>
    %x = tl.load %xp : tensor<128x!tl.ptr<f32>>
    %c128 = arith.constant 128 : i32
    %row = arith.muli %ticket, %c128 : i32
    %orow = tl.addptr %o_ptr, %row : !tl.ptr<f32>, i32
    %ob = tl.splat %orow : !tl.ptr<f32> -> tensor<128x!tl.ptr<f32>>
    %op = tl.addptr %ob, %r : tensor<128x!tl.ptr<f32>>, tensor<128xi32>
    tl.store %op, %x : tensor<128x!tl.ptr<f32>>
    func.return
  }
}
"""


def test_a_scalar_atomic_gives_every_thread_thread_zeros_old_value() -> None:
    """A ticket counter (scalar ``atomic_add``, one update per program, its old value used by
    all 128 threads): three programs write rows 5, 6 and 7, as at the tensor level."""
    lowered = apply_pipeline(parse(TICKET_KERNEL), "llc-compile")
    assert "simt.shared_load" in str(lowered)
    x = np.arange(128, dtype=np.float32) + 0.5
    results = []
    for module in (parse(TICKET_KERNEL), lowered):
        bufs = [Buffer("c", np.array([5], np.int32)), Buffer("x", x.copy())]
        bufs.append(Buffer("o", np.zeros(8 * 128, np.float32)))
        args = (*(Pointer(b, 0) for b in bufs), np.int32(0))
        for p in range(3):
            call_kernel(module, "k", args, (p, 0, 0), (3, 1, 1))
        results.append([b.data for b in bufs])
    for e, g in zip(*results, strict=True):
        assert np.array_equal(e, g)
    assert results[1][0][0] == 8
    assert np.array_equal(results[1][2].reshape(8, 128)[5:], np.tile(x, (3, 1)))


def test_the_ptx_of_every_atomic_assembles() -> None:
    """One kernel per element type with each kind (and a scalar cas): ptxas takes the PTX for
    sm_80 and sm_90a without a word."""
    from llc.passes.targets.ptx import emit_ptx
    from llc.testing.ptxas import assemble, find_ptxas

    if find_ptxas() is None:
        pytest.skip("no ptxas (pip install -e '.[test]')")
    kinds = {
        "i32": ["add", "max", "min", "umax", "umin", "and", "or", "xor", "exch", "cas"],
        "i64": ["add", "max", "umin", "xor", "exch", "cas"],
        "f32": ["fadd", "exch", "cas"],
        "f64": ["fadd"],
        "f16": ["fadd"],
    }
    for t, names in kinds.items():
        ops = "\n    ".join(
            (CAS if k == "cas" else RMW).format(kind=k, size=64, t=t).replace("%old", f"%o{i}")
            for i, k in enumerate(names)
        )
        text = TENSOR_KERNEL.format(warps=2, t=t, size=64, wrap=64, atomic=ops)
        text = text.replace("tl.store %op, %old", "tl.store %op, %o0")
        lowered = apply_pipeline(parse(text), "llc-compile")
        for arch in ("sm_80", "sm_90a"):
            ptx = emit_ptx(lowered, arch)
            assert ptx.count(" atom.acq_rel.gpu.global.") == len(names)  # one per thread
            assert assemble(ptx, arch) == ""
    lowered = apply_pipeline(parse(TICKET_KERNEL), "llc-compile")
    for arch in ("sm_80", "sm_90a"):
        assert assemble(emit_ptx(lowered, arch), arch) == ""


HISTOGRAM_KERNEL = """
module attributes {{"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32,
                   "tl.target" = "cuda:80"}} {{
  func.func @k(%x_ptr: !tl.ptr<i32>, %h_ptr: !tl.ptr<i32>) {{
    %r = tl.make_range {{end = {n} : i32, start = 0 : i32}} : tensor<{n}xi32>
    %xb = tl.splat %x_ptr : !tl.ptr<i32> -> tensor<{n}x!tl.ptr<i32>>
    %xp = tl.addptr %xb, %r : tensor<{n}x!tl.ptr<i32>>, tensor<{n}xi32>
    %x = tl.load %xp : tensor<{n}x!tl.ptr<i32>>
    %h = tl.histogram %x : tensor<{n}xi32> -> tensor<{b}xi32>
    %rb = tl.make_range {{end = {b} : i32, start = 0 : i32}} : tensor<{b}xi32>
    %hb = tl.splat %h_ptr : !tl.ptr<i32> -> tensor<{b}x!tl.ptr<i32>>
    %hp = tl.addptr %hb, %rb : tensor<{b}x!tl.ptr<i32>>, tensor<{b}xi32>
    tl.store %hp, %h : tensor<{b}x!tl.ptr<i32>>
    func.return
  }}
}}
"""


@pytest.mark.parametrize("n, bins", [(32, 16), (512, 64)])
def test_a_histogram_counts_each_element_once(n: int, bins: int) -> None:
    """32 values on 128 threads (each element held by 4 threads) and 512 values: the counts
    summed over the CTA are the tensor level's (values outside the bins count nowhere)."""
    text = HISTOGRAM_KERNEL.format(n=n, b=bins)
    lowered = apply_pipeline(parse(text), "llc-compile")
    x = np.random.default_rng(n).integers(-3, bins + 3, n).astype(np.int32)
    outs = []
    for module in (parse(text), lowered):
        bufs = [Buffer("x", x.copy()), Buffer("h", np.zeros(bins, np.int32))]
        call_kernel(module, "k", [Pointer(b, 0) for b in bufs])
        outs.append(bufs[1].data)
    assert np.array_equal(outs[0], np.bincount(x[(x >= 0) & (x < bins)], minlength=bins))
    assert np.array_equal(outs[1], outs[0])
