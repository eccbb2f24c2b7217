"""Lowering ``tl.scan`` (Triton's ``tt.scan``) to SIMT code, for any distributed layout.

The scanned dim's bits are held by hardware bits of the layout: each bit ``k`` of the axis by
exactly one register, lane or warp bit whose basis is ``2^k`` along the axis and 0 elsewhere
(every family layout: blocked, slice, mma, dot operands; a ``#tl.linear`` whose bases mix the
axis with other dims is a located error). Bits whose basis is 0 hold copies (broadcast); they are
never combined, the copies compute the same values.

The axis bits are processed from the lowest up, in *runs* of consecutive bits held by the same
kind of hardware bit. After the bits below ``k`` each element holds ``P``, the inclusive scan of
its aligned block of ``2^k`` positions, and (where a higher run needs it) ``T``, the block's total,
one per register that differs only in those processed bits. A run of ``m`` bits joins ``2^m``
neighbouring blocks:

* **registers**: a sequential scan of the blocks' totals within the thread (``2^m - 1``
  combines), then each element is combined with the totals of the blocks before its own;
* **lanes**: a Hillis-Steele scan of the totals over the lanes of the run, ``m`` rounds of one
  shuffle (``shfl.sync.up`` by ``d`` lanes when the run's lane bits are consecutive and ascending,
  as in blocked layouts; otherwise ``shfl.sync.idx`` from the lane that holds position
  ``i - d``), a lane below the offset keeping its value; then one more shuffle by one position
  gives each lane the total of the blocks before it, and an ``idx`` shuffle from the run's last
  lane the run's total;
* **warps**: every thread stores its totals in one shared buffer (copies store the same value
  at the same address), a barrier, each thread loads the totals of the warps of its run and
  combines those before its own warp; a trailing barrier keeps a next use of the buffer (the
  next loop iteration) behind the loads, and :func:`llc.passes.barriers.prune_barriers` drops it
  where none follows.

When the first run is the lowest one (nothing processed yet) its scan is the result directly.
``reverse = true`` scans from the end: every position index is complemented (the shuffles go
down, the conditions flip), the region still gets (accumulated, new). Combines always take the
earlier value first, so the region need not be commutative (only associative, as in Triton).
Shuffles go through the one shuffle emitter :meth:`llc.lowering.SimtProgram.shuffle` (8- and
16-bit values packed, 64-bit as two words, ``i1`` as bytes).

>>> [_runs([("register", 0), ("register", 1), ("lane", 0), ("warp", 1)])[i][0] for i in range(3)]
['register', 'lane', 'warp']
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects import arith, gpu
from xdsl.dialects.builtin import IntegerType, TensorType, VectorType, i1, i8
from xdsl.ir import SSAValue

from llc.dialects import simt, tl
from llc.errors import LayoutError
from llc.lowering import SimtProgram

__all__ = ["axis_holders", "lower_scan"]

_KINDS = ("register", "lane", "warp")


def axis_holders(ll: Any, axis: int, bits: int) -> list[tuple[str, int]]:
    """The hardware bit ``(in_dim, position)`` that holds each bit of dim ``axis`` (``bits`` of
    them), lowest first; a :class:`LayoutError` when a basis mixes the axis with other dims,
    two bits hold one axis bit, or none holds one.

    >>> from llc.layouts import BlockedLayout
    >>> ll = BlockedLayout([2], [32], [4], [0]).to_linear_layout([256])
    >>> axis_holders(ll, 0, 8)  # doctest: +NORMALIZE_WHITESPACE
    [('register', 0), ('lane', 0), ('lane', 1), ('lane', 2), ('lane', 3), ('lane', 4),
     ('warp', 0), ('warp', 1)]
    """
    held: dict[int, tuple[str, int]] = {}
    for in_dim in _KINDS:
        if not ll.has_in_dim(in_dim):
            continue
        for pos in range(ll.get_in_dim_size_log2(in_dim)):
            basis = [int(x) for x in ll.basis(in_dim, pos)]
            along = basis[axis]
            if not along:
                continue
            if along & (along - 1) or any(x for d, x in enumerate(basis) if d != axis):
                raise LayoutError(
                    f"the layout mixes the scanned dim with other dims ({in_dim} {pos} -> {basis})"
                )
            k = along.bit_length() - 1
            if k in held:
                raise LayoutError(f"bit {k} of the scanned dim is held twice ({held[k]}, {in_dim})")
            held[k] = (in_dim, pos)
    missing = [k for k in range(bits) if k not in held]
    if missing:
        raise LayoutError(f"no hardware bit holds bit {missing[0]} of the scanned dim")
    return [held[k] for k in range(bits)]


def _runs(holders: list[tuple[str, int]]) -> list[tuple[str, list[int]]]:
    """Consecutive axis bits held by the same kind: ``(kind, positions)`` lowest first."""
    runs: list[tuple[str, list[int]]] = []
    for kind, pos in holders:
        if runs and runs[-1][0] == kind:
            runs[-1][1].append(pos)
        else:
            runs.append((kind, [pos]))
    return runs


class _Scan:
    """The state of one scan's lowering (see the module docstring): ``values`` (``P``, one
    register vector per operand), ``totals`` (``T``, over the registers ``t_regs``) and the
    register bits processed so far."""

    def __init__(self, lowering: Any, op: tl.ScanOp) -> None:
        self.low = lowering
        self.op = op
        self.reverse = bool(op.reverse.value.data)
        laid = [lowering.laid[v] for v in op.srcs]
        self.ll = laid[0].ll
        self.values: list[SSAValue] = [x.value for x in laid]
        self.registers = self.ll.get_in_dim_size("register")
        self.totals: list[SSAValue] = list(self.values)
        self.t_regs = list(range(self.registers))
        self.done_regs = 0
        self.fresh = True  # nothing processed: values == totals
        self.lane_bits = self.ll.get_in_dim_size_log2("lane")
        self.lanes = lowering.lanes

    # ------------------------------------------------------------------ helpers
    def take(self, vs: list[SSAValue], mask: list[int]) -> list[SSAValue]:
        return [self.low.shuffle(v, v, mask) for v in vs]

    def concat(self, parts: list[list[SSAValue]]) -> list[SSAValue]:
        return [self.low.concat([p[i] for p in parts]) for i in range(len(parts[0]))]

    def combine(self, earlier: list[SSAValue], later: list[SSAValue]) -> list[SSAValue]:
        from llc.passes.lower_to_simt import combine_region  # it registers this lowering

        return combine_region(self.low, self.op, earlier, later)  # type: ignore[arg-type]

    def select(self, cond: SSAValue, a: list[SSAValue], b: list[SSAValue]) -> list[SSAValue]:
        return [
            self.low.emit(arith.SelectOp(cond, x, y)).results[0] for x, y in zip(a, b, strict=True)
        ]

    def thread_test(self, mask: int, value: int, pred: str) -> SSAValue:
        """``(thread_id & mask) <pred> value`` (``eq`` / ``ne``) as ``i1``, once per block."""
        low = self.low
        assert low.tid is not None
        key = ("scan-test", id(low.block), mask, value, pred)
        if key not in low.cache:
            bits = low.cache.get(("scan-and", id(low.block), mask))
            if bits is None:
                bits = low.emit(arith.AndIOp(low.tid, low.const_index(mask))).results[0]
                low.cache[("scan-and", id(low.block), mask)] = bits
            cmp = arith.CmpiOp(bits, low.const_index(value), pred)
            low.cache[key] = low.emit(cmp).results[0]
        return low.cache[key]

    def t_index(self, reg: int, clear: int = 0) -> int:
        """The entry of ``T`` (after clearing the register bits ``clear``) for register ``reg``."""
        return self.t_regs.index(reg & ~self.done_regs & ~clear)

    def finish_run(self, totals: list[SSAValue] | None, t_regs: list[int] | None = None) -> None:
        if totals is not None:
            self.totals = totals
        if t_regs is not None:
            self.t_regs = t_regs
        self.fresh = False

    # ------------------------------------------------------------------ registers
    def registers_run(self, positions: list[int], more: bool) -> None:
        m = len(positions)
        full = (1 << m) - 1
        flip = full if self.reverse else 0

        def enc(i: int) -> int:
            i ^= flip
            return sum(((i >> j) & 1) << p for j, p in enumerate(positions))

        def index_of(reg: int) -> int:
            return sum(((reg >> p) & 1) << j for j, p in enumerate(positions)) ^ flip

        run = enc(full) | enc(0)
        bases = [r for r in self.t_regs if not r & run]
        blocks = [
            self.take(self.totals, [self.t_regs.index(b | enc(i)) for b in bases])
            for i in range(1 << m)
        ]
        scans = [blocks[0]]
        for block in blocks[1:]:
            scans.append(self.combine(scans[-1], block))
        n = len(bases)
        if self.fresh:  # the values are the totals: the scan is the result
            joined = self.concat(scans)
            mask = [index_of(r) * n + bases.index(r & ~run) for r in range(self.registers)]
            self.values = self.take(joined, mask)
        else:
            later = [r for r in range(self.registers) if index_of(r)]
            before = self.concat(scans[:-1])
            earlier = self.take(
                before,
                [(index_of(r) - 1) * n + bases.index(r & ~self.done_regs & ~run) for r in later],
            )
            mine = self.take(self.values, later)
            combined = self.combine(earlier, mine)
            position = {r: i for i, r in enumerate(later)}
            mask = [
                self.registers + position[r] if r in position else r for r in range(self.registers)
            ]
            self.values = [
                self.low.shuffle(v, c, mask) for v, c in zip(self.values, combined, strict=True)
            ]
        self.done_regs |= run
        self.finish_run(scans[-1] if more else None, bases)

    # ------------------------------------------------------------------ lanes
    def _lane_program(self, n: int, positions: list[int], source: str, d: int = 0) -> Any:
        """A builder of the program that reads ``T`` from the lane at run position ``i - d``
        (``source = "back"``) or from the run's last lane (``"last"``)."""
        m = len(positions)
        full = (1 << m) - 1
        run = sum(1 << p for p in positions)
        lanes = self.lanes
        ascending = positions == list(range(positions[0], positions[0] + m))
        reverse = self.reverse

        def build(bitwidth: int) -> SimtProgram:
            p = SimtProgram(n, bitwidth)
            if source == "back" and ascending:
                # the lanes of the run are consecutive: position i - d is d << p0 lanes below
                # (above when reversed); a lane with i < d reads itself, the caller keeps it
                mode, c = ("down", lanes - 1) if reverse else ("up", 0)
                p.output = p.shuffle(mode, 0, p.const(d << positions[0]), c)
                return p
            tid = p.special("thread_id")
            rest = p.binary("andi", tid, p.const((lanes - 1) & ~run))
            if source == "last":
                lane = p.xor_const(rest, 0 if reverse else run)
            else:
                cols = [0] * self.lane_bits
                for j, pos in enumerate(positions):
                    cols[pos] = 1 << j
                i = p.xor_const(p.linear(cols), full if reverse else 0)
                i = p.xor_const(p.binary("subi", i, p.const(d)), full if reverse else 0)
                lane = p.binary("xori", rest, p.linear([1 << pos for pos in positions], of=i))
            p.output = p.shuffle("idx", 0, lane, lanes - 1)
            return p

        return build

    def lane_fetch(
        self, vs: list[SSAValue], positions: list[int], source: str, d: int = 0
    ) -> list[SSAValue]:
        out = []
        for v in vs:
            n = v.type.get_shape()[0]  # type: ignore[attr-defined]
            out.append(self.low.run_program(self._lane_program(n, positions, source, d), v))
        return out

    def lanes_run(self, positions: list[int], more: bool) -> None:
        run = sum(1 << p for p in positions)
        scan = self.totals
        for s in range(len(positions)):
            upper = sum(1 << p for p in positions[s:])
            # position i (complemented when reversed) is at least d = 2^s
            has = self.thread_test(upper, upper if self.reverse else 0, "ne")
            back = self.lane_fetch(scan, positions, "back", 1 << s)
            scan = self.select(has, self.combine(back, scan), scan)
        if self.fresh:
            self.values = scan
        else:
            before = self.lane_fetch(scan, positions, "back", 1)
            before = self.take(before, [self.t_index(r) for r in range(self.registers)])
            has = self.thread_test(run, run if self.reverse else 0, "ne")
            self.values = self.select(has, self.combine(before, self.values), self.values)
        self.finish_run(self.lane_fetch(scan, positions, "last") if more else None)

    # ------------------------------------------------------------------ warps
    def warps_run(self, positions: list[int], first_bit: int, more: bool) -> None:
        """The run of axis bits ``first_bit ..`` held by warp bits ``positions``."""
        low = self.low
        m = len(positions)
        full = (1 << m) - 1
        flip = full if self.reverse else 0
        tbits = [self.lane_bits + p for p in positions]
        run = sum(1 << b for b in tbits)
        # Slot bits: every thread bit that tells totals apart (other dims, higher axis bits),
        # then the run's bits on top; copies and processed axis bits share a slot.
        slot_pos: dict[int, int] = {}
        bit = 0
        for in_dim in ("lane", "warp"):
            if not self.ll.has_in_dim(in_dim):
                continue
            for pos in range(self.ll.get_in_dim_size_log2(in_dim)):
                basis = [int(x) for x in self.ll.basis(in_dim, pos)]
                tb = bit + pos
                along = basis[self.op.axis.value.data]
                if tb not in tbits and any(basis) and (not along or along >> first_bit):
                    slot_pos[tb] = len(slot_pos)
            bit += self.ll.get_in_dim_size_log2(in_dim)
        key = len(slot_pos)
        for j, tb in enumerate(tbits):
            slot_pos[tb] = key + j
        slots = 1 << (key + m)
        thread_bits = (low.threads - 1).bit_length()
        need = list(range(1 << m)) if more else list(range((1 << m) - 1))
        # one buffer for every operand's totals, chunk-major per operand (16-byte accesses)
        layout = []
        size = 0
        stored = []
        for t in self.totals:
            vt = t.type
            assert isinstance(vt, VectorType)
            n = vt.get_shape()[0]
            if vt.element_type == i1:
                t = low.emit(simt.CastOp("extui", t, VectorType(i8, [n]))).results[0]
            item = max(1, simt.bit_width(t.type.element_type) // 8)  # type: ignore[attr-defined]
            chunk = min(n * item, 16)
            layout.append((size, chunk, chunk // item, n))
            stored.append(t)
            size += -(-slots * n * item // 16) * 16
        alloc = low.emit(simt.SharedAllocOp(size, 16))
        low.scratch.add(alloc)  # the exchange's own buffer: nothing in it outlives the scan
        smem = alloc.results[0]

        def address(base: int, chunk: int, c: int, run_part: int | None) -> SSAValue:
            cols = [
                (chunk << slot_pos[b])
                if b in slot_pos and (run_part is None or b not in tbits)
                else 0
                for b in range(thread_bits)
            ]
            lin = low.thread_linear(cols)
            offset = base + (c * slots + ((run_part or 0) << key)) * chunk
            if lin is None:
                return low.const_index(offset)
            if not offset:
                return lin
            return low.emit(arith.AddiOp(lin, low.const_index(offset))).results[0]

        for t, (base, chunk, per, n) in zip(stored, layout, strict=True):
            for c in range(n // per):
                part = low.shuffle(t, t, list(range(c * per, (c + 1) * per)))
                low.emit(simt.SharedStoreOp(part, smem, address(base, chunk, c, None)))
        low.emit(gpu.BarrierOp())
        loaded: list[list[SSAValue]] = []  # per position of the run, per operand
        for j in need:
            row = []
            for t, orig, (base, chunk, per, n) in zip(stored, self.totals, layout, strict=True):
                elem = t.type.element_type  # type: ignore[attr-defined]
                parts = [
                    low.emit(
                        simt.SharedLoadOp(
                            smem, address(base, chunk, c, j ^ flip), VectorType(elem, [per])
                        )
                    ).results[0]
                    for c in range(n // per)
                ]
                value = low.concat(parts)
                if orig.type.element_type == i1:  # type: ignore[attr-defined]
                    value = low.emit(simt.CastOp("trunci", value, VectorType(i1, [n]))).results[0]
                row.append(value)
            loaded.append(row)
        # the next use of the buffer (a next iteration) waits for these loads
        low.emit(gpu.BarrierOp())
        accs = [loaded[0]]
        for row in loaded[1:]:
            accs.append(self.combine(accs[-1], row))

        def tenc(j: int) -> int:
            j ^= flip
            return sum(((j >> i) & 1) << b for i, b in enumerate(tbits))

        before = accs[0]
        for j in range(2, 1 << m):
            before = self.select(self.thread_test(run, tenc(j), "eq"), accs[j - 1], before)
        before = self.take(before, [self.t_index(r) for r in range(self.registers)])
        has = self.thread_test(run, tenc(0), "ne")
        self.values = self.select(has, self.combine(before, self.values), self.values)
        self.finish_run(accs[-1] if more else None)


def lower_scan(lowering: Any, op: tl.ScanOp) -> None:
    """Lower ``tl.scan`` (see the module docstring) with the helpers of ``llc-lower-to-simt``'s
    lowering state (``laid``, ``emit``, ``shuffle``, ``concat``, ``const_index``,
    ``thread_linear``, ``run_program``, ``set_tensor``, ``tid``, ``cache``) and
    ``lower_to_simt.combine_region``, the region inliner reductions use; the results keep the
    operands' layout.

    >>> from llc.testing.semantics import apply_pipeline, parse
    >>> module = parse('''
    ... #b = #tl.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1],
    ...                   order = [0]}>
    ... module attributes {"tl.num-warps" = 1 : i32, "tl.threads-per-warp" = 32 : i32} {
    ...   func.func @f(%p: !tl.ptr<i32>) {
    ...     %r = tl.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #b>
    ...     %s = tl.scan %r {axis = 0 : i32, reverse = false} : tensor<32xi32, #b> ->
    ...         tensor<32xi32, #b> {
    ...     ^bb0(%a: i32, %c: i32):
    ...       %x = arith.addi %a, %c : i32
    ...       tl.scan.return %x : i32
    ...     }
    ...     %ps = tl.splat %p : !tl.ptr<i32> -> tensor<32x!tl.ptr<i32>, #b>
    ...     %pp = tl.addptr %ps, %r : tensor<32x!tl.ptr<i32>, #b>, tensor<32xi32, #b>
    ...     tl.store %pp, %s : tensor<32x!tl.ptr<i32>, #b>
    ...     func.return
    ...   }
    ... }''')
    >>> _ = apply_pipeline(module, "llc-lower-to-simt")
    >>> [o.mode.data for o in module.walk() if o.name == "simt.shuffle"]
    ['up', 'up', 'up', 'up', 'up']
    """
    st = op.srcs[0].type
    assert isinstance(st, TensorType)
    axis = op.axis.value.data
    size = int(st.get_shape()[axis])
    if size & (size - 1):
        raise LayoutError(f"a scan along a dim of {size} elements (powers of two only)")
    for v in op.srcs:
        elem = tl.element_type_of(v.type)
        if isinstance(elem, tl.PointerType) or not (
            isinstance(elem, IntegerType) or hasattr(elem, "bitwidth")
        ):
            raise LayoutError(f"a scan of {elem}")
    scan = _Scan(lowering, op)
    runs = _runs(axis_holders(scan.ll, axis, size.bit_length() - 1))
    first = 0
    for i, (kind, positions) in enumerate(runs):
        more = i + 1 < len(runs)
        if kind == "register":
            scan.registers_run(positions, more)
        elif kind == "lane":
            scan.lanes_run(positions, more)
        else:
            scan.warps_run(positions, first, more)
        first += len(positions)
    for res, value in zip(op.results, scan.values, strict=True):
        lowering.set_tensor(res, value, scan.ll)
