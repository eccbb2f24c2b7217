"""Axis analysis: contiguity, divisibility and constancy of integer and pointer tensors.

Triton's ``AxisInfo``, for the coalescing of loads and stores. For each dim ``d`` of a value:

* ``contiguity[d]``: the length of the runs of consecutive values (``x, x+1, ...``) along ``d``;
* ``divisibility[d]``: the largest power of two dividing the first value of each run (for a
  pointer, in **bytes**);
* ``constancy[d]``: the length of the runs of equal values along ``d``.

It follows ``make_range``, ``splat``, constants, ``addptr``, ``broadcast``, ``expand_dims``,
``arith.addi/subi/muli``, ``convert_layout`` and scalar ``arith`` integer ops. Function arguments
are read from their ``tl.divisibility`` (or Triton's ``tt.divisibility``) argument attribute;
without one, a pointer argument is assumed 16-byte aligned (Triton's launcher specialises
pointers that way) and an integer argument divisible by 1. Anything else is unknown:
contiguity 1, divisibility 1, constancy 1.

>>> info = AxisInfo((128,), (16,), (1,))
>>> info.contiguity
(128,)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects.builtin import IntegerAttr, TensorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from llc.dialects.tl import PointerType, element_type_of, shape_of

__all__ = ["MAX_DIVISIBILITY", "AxisAnalysis", "AxisInfo"]

MAX_DIVISIBILITY = 1 << 30
"""Divisibility of zero (and the cap for everything else)."""
DEFAULT_POINTER_ALIGNMENT = 16
"""Assumed byte alignment of a pointer argument without a divisibility hint."""


@dataclass(frozen=True)
class AxisInfo:
    """Per-dim contiguity, divisibility and constancy (see the module docstring)."""

    contiguity: tuple[int, ...]
    divisibility: tuple[int, ...]
    constancy: tuple[int, ...]

    @staticmethod
    def unknown(rank: int) -> AxisInfo:
        """Nothing known about a value of ``rank`` dims.

        >>> AxisInfo.unknown(2)
        AxisInfo(contiguity=(1, 1), divisibility=(1, 1), constancy=(1, 1))
        """
        return AxisInfo((1,) * rank, (1,) * rank, (1,) * rank)

    @staticmethod
    def scalar(divisibility: int) -> AxisInfo:
        """A scalar (rank 0 is represented with one dim of size 1)."""
        return AxisInfo((1,), (divisibility,), (1,))


def _pow2_divisor(value: int) -> int:
    """Largest power of two dividing ``value`` (capped; 0 is divisible by everything).

    >>> _pow2_divisor(48), _pow2_divisor(0)
    (16, 1073741824)
    """
    if value == 0:
        return MAX_DIVISIBILITY
    return min(value & -value, MAX_DIVISIBILITY)


def _element_bytes(value: SSAValue) -> int:
    element = element_type_of(value.type)
    if isinstance(element, PointerType):
        element = element.pointee
    width = getattr(element, "bitwidth", None)
    if not isinstance(width, int):
        width = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}.get(str(element), 32)
    return max(1, width // 8)


class AxisAnalysis:
    """Lazily computed, memoised :class:`AxisInfo` of SSA values.

    ``analysis.info(value)`` walks the producers of ``value`` once (results are cached).
    """

    def __init__(self) -> None:
        self._cache: dict[SSAValue, AxisInfo] = {}

    def info(self, value: SSAValue) -> AxisInfo:
        """The axis info of ``value`` (tensors: one entry per dim; scalars: one entry)."""
        cached = self._cache.get(value)
        if cached is not None:
            return cached
        # Iterative post-order over producers, so deep chains do not hit the recursion limit.
        stack = [value]
        while stack:
            top = stack[-1]
            if top in self._cache:
                stack.pop()
                continue
            owner = top.owner
            pending = []
            if isinstance(owner, Operation) and owner.name not in (
                "scf.for",
                "scf.if",
                "scf.while",
            ):
                pending = [v for v in owner.operands if v not in self._cache]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            self._cache[top] = self._compute(top)
        return self._cache[value]

    def _compute(self, value: SSAValue) -> AxisInfo:
        shape = shape_of(value.type) or (1,)
        rank = len(shape)
        if isinstance(value, BlockArgument):
            return self._argument(value, rank)
        op = value.owner
        assert isinstance(op, Operation)
        name = op.name
        if name == "tl.make_range":
            start = op.start.value.data  # type: ignore[attr-defined]
            n = shape[0]
            return AxisInfo((n,), (_pow2_divisor(start),), (1,))
        if name == "tl.splat":
            src = self.info(op.operands[0])
            return AxisInfo((1,) * rank, (src.divisibility[0],) * rank, tuple(shape))
        if name in ("tl.constant", "arith.constant"):
            v = _constant_int(op)
            div = _pow2_divisor(v) if v is not None else 1
            return AxisInfo((1,) * rank, (div,) * rank, tuple(shape))
        if name == "tl.convert_layout":
            return self.info(op.operands[0])
        if name == "tl.broadcast":
            src = self.info(op.operands[0])
            src_shape = shape_of(op.operands[0].type)
            contiguity, constancy = list(src.contiguity), list(src.constancy)
            for d, (s, r) in enumerate(zip(src_shape, shape, strict=True)):
                if s == 1 and r != 1:
                    contiguity[d], constancy[d] = 1, r
            return AxisInfo(tuple(contiguity), src.divisibility, tuple(constancy))
        if name == "tl.expand_dims":
            src = self.info(op.operands[0])
            axis = op.axis.value.data  # type: ignore[attr-defined]
            # Every element of the new dim must be divisible: a contiguous run [2^n, 2^n+1, ...]
            # only guarantees its first element, so it counts as 1 (Triton's rule).
            divisibility = 0
            for c, d in zip(src.contiguity, src.divisibility, strict=True):
                divisibility = math.gcd(divisibility, 1 if c > 1 else d)
            divisibility = divisibility or 1

            def insert(values: tuple[int, ...], v: int) -> tuple[int, ...]:
                return (*values[:axis], v, *values[axis:])

            return AxisInfo(
                insert(src.contiguity, 1),
                insert(src.divisibility, divisibility),
                insert(src.constancy, 1),
            )
        if name in ("tl.addptr", "arith.addi", "arith.subi"):
            lhs, rhs = self.info(op.operands[0]), self.info(op.operands[1])
            scale = _element_bytes(op.results[0]) if name == "tl.addptr" else 1
            rhs_div = tuple(min(d * scale, MAX_DIVISIBILITY) for d in rhs.divisibility)
            contiguity = tuple(
                max(math.gcd(lc, rk), math.gcd(rc, lk))
                for lc, rc, lk, rk in zip(
                    lhs.contiguity, rhs.contiguity, lhs.constancy, rhs.constancy, strict=True
                )
            )
            if name == "arith.subi":  # x - range decreases: only the lhs can bring runs
                contiguity = tuple(
                    math.gcd(lc, rk) for lc, rk in zip(lhs.contiguity, rhs.constancy, strict=True)
                )
            divisibility = tuple(
                math.gcd(a, b) for a, b in zip(lhs.divisibility, rhs_div, strict=True)
            )
            constancy = tuple(
                math.gcd(a, b) for a, b in zip(lhs.constancy, rhs.constancy, strict=True)
            )
            return AxisInfo(contiguity, divisibility, constancy)
        if name == "arith.muli":
            lhs, rhs = self.info(op.operands[0]), self.info(op.operands[1])
            # x * 1 is x (Triton's rule: a row offset scaled by its unit stride stays a run).
            lhs_one = _constant_operand(op.operands[0]) == 1
            rhs_one = _constant_operand(op.operands[1]) == 1
            if rhs_one or lhs_one:
                return lhs if rhs_one else rhs
            # A run [2^n, 2^n+1, ...] times anything is only divisible element by element.
            divisibility = tuple(
                min((1 if lc > 1 else a) * (1 if rc > 1 else b), MAX_DIVISIBILITY)
                for a, b, lc, rc in zip(
                    lhs.divisibility, rhs.divisibility, lhs.contiguity, rhs.contiguity, strict=True
                )
            )
            constancy = tuple(
                math.gcd(a, b) for a, b in zip(lhs.constancy, rhs.constancy, strict=True)
            )
            contiguity = tuple(1 for _ in shape)
            return AxisInfo(contiguity, divisibility, constancy)
        if name in ("arith.extsi", "arith.extui", "tl.extsi", "tl.extui"):
            # Widening keeps every value, so its runs and divisors (Triton's cast rule): a
            # row offset `pid.to(int64) * stride` keeps the stride's hint.
            return self.info(op.operands[0])
        if len(op.operands) >= 1 and op.name.startswith(("arith.", "tl.ext", "tl.trunc")):
            # Other integer ops: constant runs survive, nothing else is known.
            infos = [self.info(v) for v in op.operands]
            if all(len(i.constancy) == rank for i in infos):
                constancy = tuple(math.gcd(*(i.constancy[d] for i in infos)) for d in range(rank))
                return AxisInfo((1,) * rank, (1,) * rank, constancy)
        return AxisInfo.unknown(rank)

    def _argument(self, arg: BlockArgument, rank: int) -> AxisInfo:
        block = arg.owner
        parent = block.parent_op() if isinstance(block, Block) else None
        if isinstance(parent, FuncOp):
            hint = _arg_divisibility(parent, arg.index)
            if hint is None:
                hint = DEFAULT_POINTER_ALIGNMENT if isinstance(arg.type, PointerType) else 1
            if isinstance(arg.type, TensorType):
                return AxisInfo((1,) * rank, (hint,) * rank, (1,) * rank)
            return AxisInfo.scalar(hint)
        if parent is not None and parent.name == "scf.for":
            return self._loop_argument(parent, arg, rank)
        return AxisInfo.unknown(rank)

    def _loop_argument(self, loop: Operation, arg: BlockArgument, rank: int) -> AxisInfo:
        """An ``scf.for`` block argument: the induction value is divisible by ``gcd(lb, step)``;
        a carried value gets the fixed point over the back edge (Triton's): the join of the
        initial value's info and the yielded one's, iterated until it holds."""
        body = arg.owner
        assert isinstance(body, Block)
        if arg.index == 0:
            lb, step = self.info(loop.operands[0]), self.info(loop.operands[2])
            return AxisInfo.scalar(math.gcd(lb.divisibility[0], step.divisibility[0]))
        last = body.last_op
        assert last is not None
        init, nxt = loop.operands[2 + arg.index], last.operands[arg.index - 1]
        guess = self.info(init)
        for _ in range(4):
            before = set(self._cache)
            self._cache[arg] = guess
            after = self.info(nxt)
            new = AxisInfo(
                tuple(min(a, b) for a, b in zip(guess.contiguity, after.contiguity, strict=True)),
                tuple(
                    math.gcd(a, b)
                    for a, b in zip(guess.divisibility, after.divisibility, strict=True)
                ),
                tuple(min(a, b) for a, b in zip(guess.constancy, after.constancy, strict=True)),
            )
            for key in set(self._cache) - before:
                del self._cache[key]
            if new == guess:
                return guess
            guess = new
        return AxisInfo.unknown(rank)


def _constant_operand(value: SSAValue) -> int | None:
    """The integer every element of ``value`` equals, when a constant (or a splat or broadcast of
    one) defines it."""
    owner = value.owner
    while isinstance(owner, Operation) and owner.name in ("tl.splat", "tl.broadcast"):
        owner = owner.operands[0].owner
    if isinstance(owner, Operation) and owner.name in ("tl.constant", "arith.constant"):
        return _constant_int(owner)
    return None


def _constant_int(op: Operation) -> int | None:
    # not `or`: an IntegerAttr of 0 is falsy, and 0 is divisible by everything
    value = op.properties.get("value")
    if value is None:
        value = op.attributes.get("value")
    if isinstance(value, IntegerAttr):
        return value.value.data
    values = getattr(value, "get_values", None)
    if callable(values):
        try:
            items = list(values())
        except Exception:
            return None
        if items and all(isinstance(i, int) and i == items[0] for i in items):
            return items[0]
    return None


def _arg_divisibility(func: FuncOp, index: int) -> int | None:
    arg_attrs = func.arg_attrs
    if arg_attrs is None or index >= len(arg_attrs.data):
        return None
    attrs = arg_attrs.data[index].data
    for key in ("tl.divisibility", "tt.divisibility"):
        hint = attrs.get(key)
        if isinstance(hint, IntegerAttr):
            return hint.value.data
    return None
