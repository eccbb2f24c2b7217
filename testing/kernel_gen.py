"""Random layout-heavy ``tl`` kernels, in laid-out and layout-free form, for tests and benchmarks.

:func:`generate_kernel` builds one random kernel from a seed and prints it twice from the same
random program: once with a random valid layout on every tensor and ``tl.convert_layout`` wherever
an op needs its operands in another layout (as a hand-written or badly optimized TTGIR would have
them), and once layout-free (tensor types without encoding and no conversions, like Triton's
TTIR). Both forms compute exactly the same values, so each is the other's oracle, and a layout
pass must keep either one's results.

Each seed draws a :class:`KernelConfig` (:func:`draw_config`, from a stream of its own): the
element type ``T`` the kernel computes in (one of :data:`DTYPES`: f32 half the time, else f64,
f16, bf16, i64, i16, i8 or i1), 1 to 8 warps, the target (:data:`TARGETS`; ``hip:gfx942`` has
64-lane waves) and the grid (one program, or 2 or 2x2 in a quarter of the kernels).

A kernel is one ``func.func`` whose parameters are input buffers (``!tl.ptr<T>``), output
buffers, a scalar ``%scale : T`` and a scalar ``%flag : i32`` (the condition of its ``scf.if``).
Every buffer holds at least :data:`BUFFER_ELEMENTS` elements per program: each program works on
its own part (offset ``program * BUFFER_ELEMENTS``); loads and stores address row-major tensors of
at most :data:`MAX_ELEMENTS` elements from the start of that part (loops shift their loads by at
most :data:`MAX_TRIP_COUNT` elements). The body draws from (integer kernels use the integer
ops: ``addi``/``subi``/``muli``/``maxsi``, ``math.absi``, ``cmpi``; ``i1`` ones
``andi``/``ori``/``xori``; dots only in float kernels):

* loads through pointer tensors built from ``make_range`` / ``expand_dims`` / ``broadcast`` /
  ``splat`` / ``addptr`` in nested slice layouts, and stores of results;
* elementwise chains (``arith``/``math``, ``tl.cmpf`` + ``tl.select``, constants and splats);
* ``tl.reduce`` (sum or max) on any axis, and broadcasting the result back
  (``expand_dims`` + ``broadcast``) to combine it with its operand; two-operand reductions
  (argmax: the max and its index, built with ``make_range`` in the operand's layout);
* ``tl.gather`` along any axis with computed in-range indices (in 40% of the kernels, last
  before the stores);
* ``tl.trans`` (any permutation), ``tl.reshape``, ``tl.dot`` (``f16`` operands in ``dot_op``
  layouts of an ``nvidia_mma`` or blocked parent);
* ``scf.for`` with loop-carried tensors (values and pointer tensors, loads inside the loop) and
  ``scf.if`` whose branches compute in different layouts.

Layouts are drawn from random blocked layouts (any ``sizePerThread``, any split of the
configuration's lanes and warps over the dims, any order), ``nvidia_mma`` v2 (NVIDIA targets),
slices of those and ``dot_op``; every one is checked to build a linear layout for its shape.

>>> k = generate_kernel(7)
>>> k.laid_out.count("tl.convert_layout") > 0, "#tl." in k.layout_free
(True, False)
>>> generate_kernel(7).laid_out == k.laid_out  # seeded: the same seed gives the same kernel
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from math import prod

from llc.layouts import (
    BlockedLayout,
    DistributedLayout,
    DotOperandLayout,
    NvidiaMmaLayout,
    SliceLayout,
)

__all__ = [
    "BUFFER_ELEMENTS",
    "DTYPES",
    "MAX_ELEMENTS",
    "MAX_TRIP_COUNT",
    "TARGETS",
    "GeneratedKernel",
    "KernelConfig",
    "draw_config",
    "generate_kernel",
    "generate_large_module",
    "generate_loop_kernel",
]

NUM_WARPS = 4
THREADS_PER_WARP = 32
MAX_ELEMENTS = 1024
"""The most elements any generated tensor has."""
MAX_TRIP_COUNT = 3
"""The most iterations of a generated ``scf.for``; loads inside shift by the iteration index."""
BUFFER_ELEMENTS = MAX_ELEMENTS + MAX_TRIP_COUNT
"""Elements every buffer parameter of a generated kernel must hold."""


Shape = tuple[int, ...]

DTYPES = ("f32", "f64", "f16", "bf16", "i64", "i16", "i8", "i1")
"""The element types a generated kernel computes in (one per kernel)."""
TARGETS = ("cuda:80", "cuda:90", "hip:gfx942")


@dataclass(frozen=True)
class KernelConfig:
    """What a generated kernel runs on: its element type, CTA, target and grid.

    The default is the original generator's: f32, 4 warps of 32 lanes, ``cuda:80``, one
    program. :func:`draw_config` draws one per seed.

    >>> KernelConfig().module_attrs()
    '"tl.num-warps" = 4 : i32, "tl.threads-per-warp" = 32 : i32, "tl.target" = "cuda:80"'
    >>> KernelConfig("i8", 8, 64, "hip:gfx942", (2,)).programs, KernelConfig().is_float
    (2, True)
    """

    dtype: str = "f32"
    num_warps: int = NUM_WARPS
    threads_per_warp: int = THREADS_PER_WARP
    target: str = "cuda:80"
    grid: tuple[int, ...] = (1,)

    @property
    def programs(self) -> int:
        """Programs in the grid."""
        return prod(self.grid)

    @property
    def is_float(self) -> bool:
        """Whether the kernel computes in a float type."""
        return self.dtype.startswith(("f", "bf"))

    @property
    def has_mma(self) -> bool:
        """Whether ``nvidia_mma`` layouts may be drawn (NVIDIA targets, warps of 32 lanes)."""
        return self.target.startswith("cuda") and self.threads_per_warp == 32

    def module_attrs(self) -> str:
        """The module's ``tl.*`` attributes."""
        return (
            f'"tl.num-warps" = {self.num_warps} : i32, '
            f'"tl.threads-per-warp" = {self.threads_per_warp} : i32, '
            f'"tl.target" = "{self.target}"'
        )


def draw_config(seed: int) -> KernelConfig:
    """The configuration of the kernel of ``seed``, drawn from its own stream: an element type
    of :data:`DTYPES` (f32 half the time), 1 to 8 warps, the target (``hip:gfx942`` with
    64-lane wavefronts), and a grid of one program, two, or 2x2 (one in four kernels has
    several).

    >>> draw_config(5) == draw_config(5)
    True
    >>> len({draw_config(s).dtype for s in range(200)}) == len(DTYPES)
    True
    """
    rng = random.Random(f"config{seed}")
    dtype = "f32" if rng.random() < 0.5 else rng.choice(DTYPES[1:])
    target = rng.choice(TARGETS)
    lanes = 64 if target.startswith("hip") else 32
    warps = rng.choice((1, 2, 4, 4, 8))
    roll = rng.random()
    grid = (1,) if roll < 0.75 else (2,) if roll < 0.92 else (2, 2)
    return KernelConfig(dtype, warps, lanes, target, grid)


@dataclass(frozen=True)
class GeneratedKernel:
    """One random kernel: the same program with random layouts and without any layout."""

    seed: int
    entry: str
    laid_out: str
    """The module with a layout on every tensor and ``tl.convert_layout`` where needed."""
    layout_free: str
    """The same module with encoding-less tensor types and no conversions."""
    num_ops: int
    """Operations in the laid-out function body (conversions and terminators included)."""
    num_conversions: int
    config: KernelConfig = field(default_factory=lambda: KernelConfig())
    """Element type, CTA, target and grid."""

    @property
    def grid(self) -> tuple[int, ...]:
        """The programs to run (each works on its own :data:`BUFFER_ELEMENTS` of a buffer)."""
        return self.config.grid

    @property
    def buffer_elements(self) -> int:
        """Elements every buffer parameter must hold for the whole grid."""
        return BUFFER_ELEMENTS * self.config.programs


# --------------------------------------------------------------------------------------
# Random layouts
# --------------------------------------------------------------------------------------


def _split_pow2(rng: random.Random, total: int, rank: int) -> list[int]:
    """A random factorization of the power of two ``total`` into ``rank`` powers of two."""
    parts = [1] * rank
    for _ in range(total.bit_length() - 1):
        parts[rng.randrange(rank)] *= 2
    return parts


def _random_blocked(
    rng: random.Random, rank: int, warps: int = NUM_WARPS, lanes: int = THREADS_PER_WARP
) -> BlockedLayout:
    order = list(range(rank))
    rng.shuffle(order)
    return BlockedLayout(
        size_per_thread=[rng.choice((1, 1, 2, 4)) for _ in range(rank)],
        threads_per_warp=_split_pow2(rng, lanes, rank),
        warps_per_cta=_split_pow2(rng, warps, rank),
        order=order,
    )


def _random_mma(rng: random.Random, warps: int = NUM_WARPS) -> NvidiaMmaLayout:
    splits = [[1 << i, warps >> i] for i in range(warps.bit_length())]
    return NvidiaMmaLayout(
        version_major=2, version_minor=0, warps_per_cta=rng.choice(splits), instr_shape=[16, 8]
    )


def _random_layout(
    rng: random.Random, shape: Shape, config: KernelConfig | None = None
) -> DistributedLayout:
    """A random distributed layout for ``shape`` in the CTA of ``config`` (blocked, mma where
    the warps have 32 lanes, or a slice of one)."""
    config = config or KernelConfig()
    warps, lanes = config.num_warps, config.threads_per_warp
    mma = config.has_mma
    rank = len(shape)
    while True:
        roll = rng.random()
        if rank == 2 and roll < 0.25 and mma:
            layout: DistributedLayout = _random_mma(rng, warps)
        elif rank < 3 and roll > 0.7:
            dim = rng.randrange(rank + 1)
            parent = _random_mma(rng, warps) if rank == 1 and rng.random() < 0.3 and mma else None
            layout = SliceLayout(
                dim=dim, parent=parent or _random_blocked(rng, rank + 1, warps, lanes)
            )
        else:
            layout = _random_blocked(rng, rank, warps, lanes)
        if _fits(layout, shape):
            return layout


@cache
def _fits(layout: DistributedLayout, shape: Shape) -> bool:
    try:
        layout.to_linear_layout(list(shape))
    except ValueError:
        return False
    return True


def _permuted_blocked(layout: BlockedLayout, perm: tuple[int, ...]) -> BlockedLayout:
    """The layout of ``tl.trans`` with order ``perm`` applied to a tensor in ``layout``."""
    inverse = [perm.index(d) for d in range(len(perm))]
    return BlockedLayout(
        size_per_thread=[layout.size_per_thread[p] for p in perm],
        threads_per_warp=[layout.threads_per_warp[p] for p in perm],
        warps_per_cta=[layout.warps_per_cta[p] for p in perm],
        order=[inverse[o] for o in layout.order],
    )


@cache
def _render(layout: DistributedLayout) -> str:
    from llc.dialects.layout_attrs import layout_attr_for

    return str(layout_attr_for(layout))


# --------------------------------------------------------------------------------------
# The builder: one random program, printed with and without layouts
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Value:
    """An SSA value of the program: its name in the laid-out form, shape, element, layout."""

    name: str
    shape: Shape
    elem: str
    layout: DistributedLayout | None  # None: scalar


TypeFn = Callable[[Shape, str, DistributedLayout | None], str]


@dataclass
class _Builder:
    """Draws one random program and prints it twice, line by line: laid out and layout-free.

    Every choice (layouts included) is drawn in both cases, so both forms are the same program.
    ``emit`` prints an op whose operands are never conversion results; ``op`` an op whose
    operands may be (the layout-free form names the converted value instead); ``convert`` prints
    a ``tl.convert_layout`` in the laid-out form only. ``pool`` holds the live tensors of the
    element type that later steps draw from (restored when a region closes).
    """

    rng: random.Random
    prefix: str = ""
    laid_out: list[str] = field(default_factory=list)
    layout_free: list[str] = field(default_factory=list)
    aliases: dict[DistributedLayout, str] = field(default_factory=dict)
    counter: int = 0
    depth: int = 2
    num_ops: int = 0
    num_layout_free_ops: int = 0
    num_conversions: int = 0
    pool: list[_Value] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    const_cache: dict[tuple[str, str], str] = field(default_factory=dict)
    layout_free_names: dict[str, str] = field(default_factory=dict)
    """Conversion result -> the value it converts (what the layout-free form uses instead)."""
    gather_rng: random.Random | None = None
    """Draws the optional ``tl.gather`` step (its own stream: the other steps of a seed's kernel
    stay what they were before gathers were added); ``None``: no gathers."""
    config: KernelConfig = field(default_factory=lambda: KernelConfig())
    loop_chain_args: int = 0
    """Loop-carried tensors of the :meth:`carried_chain` loop a kernel starts with (0: none)."""
    program_offset: str | None = None
    """The element offset of this program's part of every buffer (grids of several programs)."""

    @property
    def dt(self) -> str:
        """The element type the kernel computes in."""
        return self.config.dtype

    @property
    def ptr(self) -> str:
        return f"!tl.ptr<{self.dt}>"

    def ops(
        self, floats: tuple[str, ...], ints: tuple[str, ...], bools: tuple[str, ...]
    ) -> tuple[str, ...]:
        """The op names of the kernel's element type: float, integer or ``i1``."""
        if self.config.is_float:
            return floats
        return bools if self.dt == "i1" else ints

    def constant_text(self, value: float) -> str:
        """``value`` as a constant of the element type (integers rounded, ``i1`` its low bit)."""
        if self.config.is_float:
            return f"{value:e}"
        if self.dt == "i1":
            return str(int(value) & 1)
        return str(int(value))

    # -- printing ---------------------------------------------------------------------

    def fresh(self, hint: str) -> str:
        self.counter += 1
        return f"%{self.prefix}{hint}{self.counter}"

    def alias(self, layout: DistributedLayout) -> str:
        if layout not in self.aliases:
            self.aliases[layout] = f"#L{len(self.aliases)}"
        return self.aliases[layout]

    def laid_type(self, shape: Shape, elem: str, layout: DistributedLayout | None) -> str:
        if layout is None:
            return elem
        return f"tensor<{'x'.join(map(str, shape))}x{elem}, {self.alias(layout)}>"

    @staticmethod
    def free_type(shape: Shape, elem: str, layout: DistributedLayout | None) -> str:
        if layout is None:
            return elem
        return f"tensor<{'x'.join(map(str, shape))}x{elem}>"

    def emit(self, line: Callable[[TypeFn], str], *, laid_out_only: bool = False) -> None:
        pad = "  " * self.depth
        self.laid_out.append(pad + line(self.laid_type))
        if not laid_out_only:
            self.layout_free.append(pad + line(self.free_type))
            self.num_layout_free_ops += 1
        self.num_ops += 1

    def emit_raw(self, text: str) -> None:
        """A line that is not an op (region closers), printed in both forms."""
        pad = "  " * self.depth
        self.laid_out.append(pad + text)
        self.layout_free.append(pad + text)

    @contextmanager
    def region(self) -> Iterator[None]:
        saved_pool, saved_consts = list(self.pool), dict(self.const_cache)
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            self.pool, self.const_cache = saved_pool, saved_consts

    # -- values -----------------------------------------------------------------------

    def scalar_const(self, value: int, typ: str = "i32") -> str:
        key = (str(value), typ)
        if key not in self.const_cache:
            name = self.fresh("c")
            self.emit(lambda T: f"{name} = arith.constant {value} : {typ}")
            self.const_cache[key] = name
        return self.const_cache[key]

    def convert(self, v: _Value, layout: DistributedLayout) -> _Value:
        """``v`` in ``layout``: a ``tl.convert_layout`` in the laid-out form, nothing otherwise."""
        if v.layout == layout:
            return v
        name = self.fresh("cvt")
        new = _Value(name, v.shape, v.elem, layout)
        self.emit(
            lambda T: (
                f"{name} = tl.convert_layout {v.name} : {T(v.shape, v.elem, v.layout)} -> "
                f"{T(v.shape, v.elem, layout)}"
            ),
            laid_out_only=True,
        )
        self.num_conversions += 1
        # Layout-free, the converted value is the value itself.
        self.layout_free_names[name] = self.layout_free_names.get(v.name, v.name)
        return new

    def op(self, build: Callable[[TypeFn, Callable[[str], str]], str]) -> None:
        """Emit an op whose operand names may be conversions (renamed in the layout-free form)."""
        pad = "  " * self.depth
        self.laid_out.append(pad + build(self.laid_type, lambda n: n))
        self.layout_free.append(
            pad + build(self.free_type, lambda n: self.layout_free_names.get(n, n))
        )
        self.num_ops += 1
        self.num_layout_free_ops += 1

    def maybe_convert(self, v: _Value, p: float = 0.5) -> _Value:
        if self.rng.random() < p:
            return self.convert(v, _random_layout(self.rng, v.shape, self.config))
        return v

    def new_layout(self, shape: Shape) -> DistributedLayout:
        return _random_layout(self.rng, shape, self.config)

    def blocked(self, rank: int) -> BlockedLayout:
        return _random_blocked(self.rng, rank, self.config.num_warps, self.config.threads_per_warp)

    # -- pointers, loads and stores ----------------------------------------------------

    def offsets(self, shape: Shape, layout: DistributedLayout) -> _Value:
        """Row-major element offsets of a tensor of ``shape``, built in ``layout``."""
        rank = len(shape)
        total: _Value | None = None
        strides = [prod(shape[d + 1 :]) for d in range(rank)]
        for d in range(rank):
            index = self.index_along(shape, layout, d)
            if strides[d] != 1:
                stride = self.splat_i32(strides[d], shape, layout)
                name = self.fresh("off")
                a, b = index, stride
                self.op(
                    lambda T, N, a=a, b=b, name=name: (
                        f"{name} = arith.muli {N(a.name)}, {N(b.name)} : {T(shape, 'i32', layout)}"
                    )
                )
                index = _Value(name, shape, "i32", layout)
            if total is None:
                total = index
            else:
                name = self.fresh("off")
                a, b = total, index
                self.op(
                    lambda T, N, a=a, b=b, name=name: (
                        f"{name} = arith.addi {N(a.name)}, {N(b.name)} : {T(shape, 'i32', layout)}"
                    )
                )
                total = _Value(name, shape, "i32", layout)
        assert total is not None
        return total

    def splat_i32(self, value: int, shape: Shape, layout: DistributedLayout) -> _Value:
        name = self.fresh("k")
        if self.rng.random() < 0.5:
            self.emit(lambda T: f"{name} = tl.constant {value} : {T(shape, 'i32', layout)}")
        else:
            scalar = self.scalar_const(value)
            self.emit(lambda T: f"{name} = tl.splat {scalar} : i32 -> {T(shape, 'i32', layout)}")
        return _Value(name, shape, "i32", layout)

    def index_along(self, shape: Shape, layout: DistributedLayout, d: int) -> _Value:
        """``i_d`` broadcast over ``shape``: a make_range expanded through nested slices."""
        rank = len(shape)
        inserts = [a for a in range(rank) if a != d]
        chain: list[DistributedLayout] = [layout] * (len(inserts) + 1)
        present = set(range(rank))
        for i in reversed(range(len(inserts))):
            a = inserts[i]
            chain[i] = SliceLayout(dim=sorted(present).index(a), parent=chain[i + 1])
            present.remove(a)
        name = self.fresh("r")
        cur_shape: Shape = (shape[d],)
        first = chain[0]
        self.emit(
            lambda T: (
                f"{name} = tl.make_range {{end = {shape[d]} : i32, start = 0 : i32}} : "
                f"{T(cur_shape, 'i32', first)}"
            )
        )
        cur = _Value(name, cur_shape, "i32", first)
        axes = [d]
        for i, a in enumerate(inserts):
            pos = sorted([*axes, a]).index(a)
            axes = sorted([*axes, a])
            new_shape = tuple(shape[x] if x in axes and x == d else 1 for x in axes)
            name = self.fresh("e")
            src, dst = cur, chain[i + 1]
            self.emit(
                lambda T, src=src, dst=dst, name=name, pos=pos, new_shape=new_shape: (
                    f"{name} = "
                    f"tl.expand_dims {src.name} {{axis = {pos} : i32}} : "
                    f"{T(src.shape, 'i32', src.layout)} -> {T(new_shape, 'i32', dst)}"
                )
            )
            cur = _Value(name, new_shape, "i32", dst)
        if cur.shape != shape:
            name = self.fresh("b")
            src = cur
            self.emit(
                lambda T: (
                    f"{name} = tl.broadcast {src.name} : {T(src.shape, 'i32', layout)} -> "
                    f"{T(shape, 'i32', layout)}"
                )
            )
            cur = _Value(name, shape, "i32", layout)
        return cur

    def pointers(self, base: str, shape: Shape, layout: DistributedLayout) -> _Value:
        if self.program_offset is not None:  # this program's part of the buffer
            shifted = self.fresh("pb")
            off = self.program_offset
            self.emit(lambda T: f"{shifted} = tl.addptr {base}, {off} : {self.ptr}, i32")
            base = shifted
        offsets = self.offsets(shape, layout)
        splat = self.fresh("base")
        self.emit(
            lambda T: f"{splat} = tl.splat {base} : {self.ptr} -> {T(shape, self.ptr, layout)}"
        )
        name = self.fresh("ptrs")
        self.op(
            lambda T, N: (
                f"{name} = tl.addptr {splat}, {N(offsets.name)} : "
                f"{T(shape, self.ptr, layout)}, {T(shape, 'i32', layout)}"
            )
        )
        return _Value(name, shape, self.ptr, layout)

    def load(self, ptrs: _Value) -> _Value:
        name = self.fresh("x")
        self.op(
            lambda T, N: (
                f"{name} = tl.load {N(ptrs.name)} : {T(ptrs.shape, ptrs.elem, ptrs.layout)}"
            )
        )
        value = _Value(name, ptrs.shape, self.dt, ptrs.layout)
        self.pool.append(value)
        return value

    def fresh_load(self, shape: Shape | None = None) -> _Value:
        shape = shape or self.random_shape()
        base = f"%in{len(self.inputs)}"
        self.inputs.append(base)
        return self.load(self.pointers(base, shape, self.new_layout(shape)))

    def store(self, v: _Value) -> None:
        base = f"%out{len(self.outputs)}"
        self.outputs.append(base)
        layout = v.layout if self.rng.random() < 0.4 else self.new_layout(v.shape)
        assert layout is not None
        ptrs = self.pointers(base, v.shape, layout)
        v = self.convert(v, layout)
        self.op(lambda T, N: f"tl.store {ptrs.name}, {N(v.name)} : {T(v.shape, self.ptr, layout)}")

    # -- shapes -----------------------------------------------------------------------

    def random_shape(self) -> Shape:
        while True:
            rank = self.rng.choice((1, 2, 2, 2, 3))
            shape = tuple(self.rng.choice((2, 4, 8, 16, 32)) for _ in range(rank))
            if prod(shape) <= MAX_ELEMENTS and prod(shape) >= 8:
                return shape

    def pick(self, pred: Callable[[_Value], bool] = lambda v: True) -> _Value | None:
        choices = [v for v in self.pool if pred(v)]
        if not choices:
            return None
        # Prefer recent values, so chains form.
        return choices[-1 - min(int(self.rng.expovariate(0.7)), len(choices) - 1)]

    def operand(self, pred: Callable[[_Value], bool] = lambda v: True) -> _Value:
        v = self.pick(pred)
        return v if v is not None else self.fresh_load()

    # -- compute ----------------------------------------------------------------------

    def unary(self, v: _Value) -> _Value:
        op = self.rng.choice(("arith.negf", "math.tanh", "math.absf", "math.exp"))
        v = self.maybe_convert(v, 0.3)
        name = self.fresh("u")
        if not self.config.is_float:  # integers: absolute value, or x op x
            op = {"math.absf": "math.absi", "math.tanh": "math.absi"}.get(op, op)
            if self.dt == "i1":
                op = "arith.xori"
            elif op != "math.absi":
                op = "arith.muli" if op == "math.exp" else "arith.subi"
        if op in ("arith.xori", "arith.muli", "arith.subi"):
            if op == "arith.xori":  # i1: not x
                one = self.fresh("t")
                self.emit(lambda T: f"{one} = tl.constant 1 : {T(v.shape, 'i1', v.layout)}")
                rhs = one
            else:
                rhs = None
            self.op(
                lambda T, N: (
                    f"{name} = {op} {N(v.name)}, {rhs or N(v.name)} : "
                    f"{T(v.shape, self.dt, v.layout)}"
                )
            )
        elif op == "math.exp":  # keep values finite: exp of tanh
            inner = self.fresh("u")
            self.op(
                lambda T, N: f"{inner} = math.tanh {N(v.name)} : {T(v.shape, self.dt, v.layout)}"
            )
            self.emit(lambda T: f"{name} = math.exp {inner} : {T(v.shape, self.dt, v.layout)}")
        else:
            self.op(lambda T, N: f"{name} = {op} {N(v.name)} : {T(v.shape, self.dt, v.layout)}")
        out = _Value(name, v.shape, self.dt, v.layout)
        self.pool.append(out)
        return out

    def binary(self, a: _Value, b: _Value, op: str | None = None) -> _Value:
        """``op(a, b)`` in one of the operands' layouts or a fresh one."""
        op = op or self.rng.choice(
            self.ops(
                ("arith.addf", "arith.subf", "arith.mulf", "arith.maxnumf"),
                ("arith.addi", "arith.subi", "arith.muli", "arith.maxsi"),
                ("arith.ori", "arith.xori", "arith.andi", "arith.ori"),
            )
        )
        roll = self.rng.random()
        assert a.layout is not None and b.layout is not None
        layout = a.layout if roll < 0.4 else b.layout if roll < 0.8 else self.new_layout(a.shape)
        a, b = self.convert(a, layout), self.convert(b, layout)
        name = self.fresh("v")
        self.op(
            lambda T, N: f"{name} = {op} {N(a.name)}, {N(b.name)} : {T(a.shape, self.dt, layout)}"
        )
        out = _Value(name, a.shape, self.dt, layout)
        self.pool.append(out)
        return out

    def same_shape_partner(self, v: _Value) -> _Value:
        other = self.pick(lambda w: w.shape == v.shape and w.name != v.name)
        if other is not None and self.rng.random() < 0.7:
            return other
        roll = self.rng.random()
        layout = self.new_layout(v.shape)
        name = self.fresh("s")
        if roll < 0.35:
            value = self.rng.choice(("0.5", "2.000000e+00", "-1.250000e+00"))
            if not self.config.is_float:
                value = {"0.5": "1", "2.000000e+00": "2", "-1.250000e+00": "-3"}[value]
                value = str(int(value) & 1) if self.dt == "i1" else value
            self.emit(lambda T: f"{name} = tl.constant {value} : {T(v.shape, self.dt, layout)}")
        elif roll < 0.5:
            dense = self.constant_text(0.75 if self.config.is_float else 3)
            self.emit(
                lambda T: f"{name} = arith.constant dense<{dense}> : {T(v.shape, self.dt, layout)}"
            )
        elif roll < 0.75:
            self.emit(
                lambda T: f"{name} = tl.splat %scale : {self.dt} -> {T(v.shape, self.dt, layout)}"
            )
        else:
            return self.fresh_load(v.shape)
        return _Value(name, v.shape, self.dt, layout)

    def select(self, a: _Value) -> _Value:
        b = self.same_shape_partner(a)
        assert a.layout is not None
        layout = a.layout if self.rng.random() < 0.5 else self.new_layout(a.shape)
        a, b = self.convert(a, layout), self.convert(b, layout)
        cond, name = self.fresh("m"), self.fresh("sel")
        self.op(
            lambda T, N: (
                f"{cond} = tl.{'cmpf olt' if self.config.is_float else 'cmpi slt'}, "
                f"{N(a.name)}, {N(b.name)} : {T(a.shape, self.dt, layout)}"
            )
        )
        self.op(
            lambda T, N: (
                f"{name} = tl.select {cond}, {N(b.name)}, {N(a.name)} : "
                f"{T(a.shape, 'i1', layout)}, {T(a.shape, self.dt, layout)}"
            )
        )
        out = _Value(name, a.shape, self.dt, layout)
        self.pool.append(out)
        return out

    def reduce(self, v: _Value, *, back: bool) -> _Value:
        """Reduce ``v`` along a random axis; with ``back``, broadcast it back and combine."""
        axis = self.rng.randrange(len(v.shape))
        v = self.maybe_convert(v, 0.3)
        assert v.layout is not None
        out_shape = v.shape[:axis] + v.shape[axis + 1 :]
        out_layout = SliceLayout(dim=axis, parent=v.layout)
        combiner = self.rng.choice(
            self.ops(
                ("arith.addf", "arith.maxnumf"),
                ("arith.addi", "arith.maxsi"),
                ("arith.ori", "arith.andi"),
            )
        )
        name, lhs, rhs, res = (self.fresh(h) for h in ("red", "l", "r", "c"))
        self.op(
            lambda T, N: (
                f"{name} = tl.reduce {N(v.name)} {{axis = {axis} : i32}} : "
                f"{T(v.shape, self.dt, v.layout)} -> {T(out_shape, self.dt, out_layout)} {{"
            )
        )
        self.depth += 1
        self.emit_raw(f"^bb0({lhs}: {self.dt}, {rhs}: {self.dt}):")
        self.emit(lambda T: f"{res} = {combiner} {lhs}, {rhs} : {self.dt}")
        self.emit(lambda T: f"tl.reduce.return {res} : {self.dt}")
        self.depth -= 1
        self.emit_raw("}")
        reduced = _Value(name, out_shape, self.dt, out_layout)
        self.pool.append(reduced)
        if not back:
            return reduced
        parent = v.layout if self.rng.random() < 0.5 else self.new_layout(v.shape)
        src = self.convert(reduced, SliceLayout(dim=axis, parent=parent))
        expanded_shape = (*v.shape[:axis], 1, *v.shape[axis + 1 :])
        exp, bro = self.fresh("x"), self.fresh("bc")
        self.op(
            lambda T, N: (
                f"{exp} = tl.expand_dims {N(src.name)} {{axis = {axis} : i32}} : "
                f"{T(out_shape, self.dt, src.layout)} -> {T(expanded_shape, self.dt, parent)}"
            )
        )
        self.emit(
            lambda T: (
                f"{bro} = tl.broadcast {exp} : {T(expanded_shape, self.dt, parent)} -> "
                f"{T(v.shape, self.dt, parent)}"
            )
        )
        back_value = _Value(bro, v.shape, self.dt, parent)
        if not self.config.is_float:  # integers: combine with the difference (i1: xor)
            return self.binary(v, back_value, "arith.xori" if self.dt == "i1" else "arith.subi")
        op = "arith.subf" if combiner == "arith.maxnumf" else "arith.divf"
        if op == "arith.divf":  # divide by a sum of squares + 1: never zero
            sq = self.binary(back_value, back_value, "arith.mulf")
            one = self.fresh("one")
            self.emit(
                lambda T: f"{one} = tl.constant 1.000000e+00 : {T(v.shape, self.dt, sq.layout)}"
            )
            back_value = self.binary(sq, _Value(one, v.shape, self.dt, sq.layout), "arith.addf")
        return self.binary(v, back_value, op)

    def argmax(self, v: _Value) -> None:
        """A two-operand ``tl.reduce``: the max along an axis and its first index (argmax)."""
        axis = self.rng.randrange(len(v.shape))
        v = self.maybe_convert(v, 0.3)
        assert v.layout is not None
        index = self.index_along(v.shape, v.layout, axis)
        out_shape = v.shape[:axis] + v.shape[axis + 1 :]
        out_layout = SliceLayout(dim=axis, parent=v.layout)
        top, arg = self.fresh("max"), self.fresh("arg")
        va, ia, vb, ib = (self.fresh(h) for h in ("va", "ia", "vb", "ib"))
        gt, eq, lt, tie, keep, vr, ir = (
            self.fresh(h) for h in ("gt", "eq", "lt", "tie", "keep", "v", "i")
        )
        self.op(
            lambda T, N: (
                f"{top}, {arg} = tl.reduce {N(v.name)}, {index.name} "
                f"{{axis = {axis} : i32}} : {T(v.shape, self.dt, v.layout)}, "
                f"{T(v.shape, 'i32', v.layout)} -> {T(out_shape, self.dt, out_layout)}, "
                f"{T(out_shape, 'i32', out_layout)} {{"
            )
        )
        self.depth += 1
        dt = self.dt
        self.emit_raw(f"^bb0({va}: {dt}, {ia}: i32, {vb}: {dt}, {ib}: i32):")
        # Larger value wins, the smaller index on ties: a total order, so any tree gives the same.
        gt_p, eq_p = ("cmpf ogt", "cmpf oeq") if self.config.is_float else ("cmpi sgt", "cmpi eq")
        self.emit(lambda T: f"{gt} = arith.{gt_p}, {va}, {vb} : {dt}")
        self.emit(lambda T: f"{eq} = arith.{eq_p}, {va}, {vb} : {dt}")
        self.emit(lambda T: f"{lt} = arith.cmpi slt, {ia}, {ib} : i32")
        self.emit(lambda T: f"{tie} = arith.andi {eq}, {lt} : i1")
        self.emit(lambda T: f"{keep} = arith.ori {gt}, {tie} : i1")
        self.emit(lambda T: f"{vr} = arith.select {keep}, {va}, {vb} : {dt}")
        self.emit(lambda T: f"{ir} = arith.select {keep}, {ia}, {ib} : i32")
        self.emit(lambda T: f"tl.reduce.return {vr}, {ir} : {dt}, i32")
        self.depth -= 1
        self.emit_raw("}")
        as_float = self.fresh("argf")
        cast = "sitofp" if self.config.is_float else "extsi" if dt == "i64" else "trunci"
        self.emit(
            lambda T: (
                f"{as_float} = tl.{cast} {arg} : {T(out_shape, 'i32', out_layout)} to "
                f"{T(out_shape, self.dt, out_layout)}"
            )
        )
        self.pool.append(_Value(top, out_shape, self.dt, out_layout))
        self.pool.append(_Value(as_float, out_shape, self.dt, out_layout))

    def gather(self) -> None:
        """``tl.gather`` of a pooled tensor along a random axis, with in-range indices computed
        in the kernel (``(m * i_axis + c * i_other + k) & (size - 1)``) in a random layout; the
        indices may have another extent along the axis. All its choices come from
        ``gather_rng``."""
        assert self.gather_rng is not None
        main, self.rng = self.rng, self.gather_rng
        try:
            src = self.operand()
            axis = self.rng.randrange(len(src.shape))
            size = src.shape[axis]
            for _ in range(8):
                extent = self.rng.choice((2, 4, 8, 16, 32))
                shape = (*src.shape[:axis], extent, *src.shape[axis + 1 :])
                if prod(shape) <= MAX_ELEMENTS:
                    break
            else:
                shape = src.shape
            layout = self.new_layout(shape)
            index = self.index_along(shape, layout, axis)
            terms = [(index, self.rng.choice((1, 3, 5, 7)))]
            if len(shape) > 1:
                other = self.rng.choice([d for d in range(len(shape)) if d != axis])
                terms.append((self.index_along(shape, layout, other), self.rng.randrange(4)))
            acc: _Value | None = None
            for value, factor in terms:
                scaled = self.fresh("gi")
                k = self.splat_i32(factor, shape, layout)
                self.emit(
                    lambda T, v=value, k=k, n=scaled: (
                        f"{n} = arith.muli {v.name}, {k.name} : {T(shape, 'i32', layout)}"
                    )
                )
                term = _Value(scaled, shape, "i32", layout)
                if acc is not None:
                    summed = self.fresh("gi")
                    self.emit(
                        lambda T, a=acc, b=term, n=summed: (
                            f"{n} = arith.addi {a.name}, {b.name} : {T(shape, 'i32', layout)}"
                        )
                    )
                    term = _Value(summed, shape, "i32", layout)
                acc = term
            assert acc is not None
            shift = self.splat_i32(self.rng.randrange(size), shape, layout)
            mask = self.splat_i32(size - 1, shape, layout)
            moved, idx = self.fresh("gi"), self.fresh("gidx")
            self.emit(
                lambda T: (
                    f"{moved} = arith.addi {acc.name}, {shift.name} : {T(shape, 'i32', layout)}"
                )
            )
            self.emit(
                lambda T: f"{idx} = arith.andi {moved}, {mask.name} : {T(shape, 'i32', layout)}"
            )
            src = self.maybe_convert(src, 0.3)
            name = self.fresh("g")
            self.op(
                lambda T, N: (
                    f"{name} = tl.gather {N(src.name)}[{idx}] {{axis = {axis} : i32}} : "
                    f"({T(src.shape, self.dt, src.layout)}, {T(shape, 'i32', layout)}) -> "
                    f"{T(shape, self.dt, layout)}"
                )
            )
            self.pool.append(_Value(name, shape, self.dt, layout))
        finally:
            self.rng = main

    def trans(self, v: _Value) -> _Value:
        perm = list(range(len(v.shape)))
        while perm == sorted(perm):
            self.rng.shuffle(perm)
        blocked = v.layout if isinstance(v.layout, BlockedLayout) else None
        if blocked is None or self.rng.random() < 0.3:
            blocked = self.blocked(len(v.shape))
        v = self.convert(v, blocked)
        out_layout = _permuted_blocked(blocked, tuple(perm))
        out_shape = tuple(v.shape[p] for p in perm)
        name = self.fresh("t")
        order = ", ".join(map(str, perm))
        self.op(
            lambda T, N: (
                f"{name} = tl.trans {N(v.name)} {{order = array<i32: {order}>}} : "
                f"{T(v.shape, self.dt, blocked)} -> {T(out_shape, self.dt, out_layout)}"
            )
        )
        out = _Value(name, out_shape, self.dt, out_layout)
        self.pool.append(out)
        return out

    def reshape(self, v: _Value) -> _Value:
        n = prod(v.shape)
        while True:
            rank = self.rng.choice((1, 2, 3))
            dims = [1] * rank
            for _ in range(n.bit_length() - 1):
                dims[self.rng.randrange(rank)] *= 2
            shape = tuple(dims)
            if shape != v.shape and max(shape) <= 64:
                break
        layout = self.new_layout(shape)
        name = self.fresh("rs")
        self.op(
            lambda T, N: (
                f"{name} = tl.reshape {N(v.name)} : {T(v.shape, self.dt, v.layout)} -> "
                f"{T(shape, self.dt, layout)}"
            )
        )
        out = _Value(name, shape, self.dt, layout)
        self.pool.append(out)
        return out

    def dot(self) -> _Value:
        def dims_ok(v: _Value) -> bool:
            return len(v.shape) == 2 and all(d in (16, 32) for d in v.shape)

        a = self.operand(dims_ok) if self.pick(dims_ok) else self.fresh_load(self.dot_shape())
        m, k = a.shape
        n = self.rng.choice((16, 32))
        b = self.pick(lambda v: v.shape == (k, n)) or self.fresh_load((k, n))
        mma = self.rng.random() < 0.7 and self.config.has_mma
        parent: DistributedLayout = (
            _random_mma(self.rng, self.config.num_warps) if mma else self.blocked(2)
        )
        k_width = 2 if isinstance(parent, NvidiaMmaLayout) else 0
        # operands: 16-bit floats as they are, others rounded (integers converted) to f16
        op_t = self.dt if self.dt in ("f16", "bf16") else "f16"
        to_half = (
            "arith.truncf"
            if self.config.is_float
            else "tl.uitofp"
            if self.dt == "i1"
            else "tl.sitofp"
        )
        operands = []
        for idx, v in enumerate((a, b)):
            if op_t == self.dt:
                half = v
            else:
                name = self.fresh("h")
                self.op(
                    lambda T, N, v=v, name=name: (
                        f"{name} = {to_half} {N(v.name)} : "
                        f"{T(v.shape, self.dt, v.layout)} to {T(v.shape, 'f16', v.layout)}"
                    )
                )
                half = _Value(name, v.shape, "f16", v.layout)
            operands.append(
                self.convert(half, DotOperandLayout(op_idx=idx, parent=parent, k_width=k_width))
            )
        acc = self.pick(lambda v: v.shape == (m, n))
        if acc is None or self.rng.random() < 0.4 or self.dt != "f32":
            name = self.fresh("z")
            self.emit(lambda T: f"{name} = tl.constant 0.000000e+00 : {T((m, n), 'f32', parent)}")
            acc = _Value(name, (m, n), "f32", parent)
        acc = self.convert(acc, parent)
        qa, qb = operands
        name = self.fresh("d")
        self.op(
            lambda T, N: (
                f"{name} = tl.dot {N(qa.name)}, {N(qb.name)}, {N(acc.name)} : "
                f"{T(qa.shape, op_t, qa.layout)} * {T(qb.shape, op_t, qb.layout)} -> "
                f"{T((m, n), 'f32', parent)}"
            )
        )
        if self.dt != "f32":  # the f32 sums in the kernel's type
            casts = {"f64": "arith.extf", "f16": "arith.truncf", "bf16": "arith.truncf"}
            cast = casts.get(self.dt, "tl.fptosi")
            back = self.fresh("dc")
            self.emit(
                lambda T: (
                    f"{back} = {cast} {name} : {T((m, n), 'f32', parent)} to "
                    f"{T((m, n), self.dt, parent)}"
                )
            )
            name = back
        out = _Value(name, (m, n), self.dt, parent)
        self.pool.append(out)
        return out

    def dot_shape(self) -> Shape:
        return (self.rng.choice((16, 32)), self.rng.choice((16, 32)))

    # -- control flow -----------------------------------------------------------------

    def loop(self) -> None:
        """An ``scf.for`` carrying 1-2 tensors (and maybe a pointer tensor) with a load inside."""
        trips = self.rng.randint(1, MAX_TRIP_COUNT)
        c0, c1, cn = self.scalar_const(0), self.scalar_const(1), self.scalar_const(trips)
        carried = [self.operand()]
        if self.rng.random() < 0.4:
            carried.append(self.operand(lambda v: v.name != carried[0].name))
        carried = [self.maybe_convert(v, 0.3) for v in carried]
        shape = carried[0].shape
        base = f"%in{len(self.inputs)}"
        self.inputs.append(base)
        ptrs = self.pointers(base, shape, self.new_layout(shape))
        carry_ptr = self.rng.random() < 0.5
        if carry_ptr:
            carried.append(ptrs)
        iv = self.fresh("i")
        args = [self.fresh("acc") for _ in carried]
        results = [self.fresh("res") for _ in carried]
        pairs = list(zip(args, carried, strict=True))
        self.op(
            lambda T, N: (
                f"{', '.join(results)} = scf.for {iv} = {c0} to {cn} step {c1} "
                f"iter_args({', '.join(f'{a} = {N(v.name)}' for a, v in pairs)})"
                f" -> ({', '.join(T(v.shape, v.elem, v.layout) for v in carried)}) : i32 {{"
            )
        )
        with self.region():
            inner = [
                _Value(a, v.shape, v.elem, v.layout) for a, v in zip(args, carried, strict=True)
            ]
            self.pool = [v for v in self.pool if v.elem == self.dt]
            if carry_ptr:
                cur_ptrs = inner[-1]
            else:
                off = self.fresh("ivs")
                cur_ptrs = _Value(self.fresh("p"), shape, ptrs.elem, ptrs.layout)
                self.emit(
                    lambda T: f"{off} = tl.splat {iv} : i32 -> {T(shape, 'i32', ptrs.layout)}"
                )
                self.emit(
                    lambda T: (
                        f"{cur_ptrs.name} = tl.addptr {ptrs.name}, {off} : "
                        f"{T(shape, ptrs.elem, ptrs.layout)}, {T(shape, 'i32', ptrs.layout)}"
                    )
                )
            loaded = self.load(cur_ptrs)
            self.pool.extend(v for v in inner if v.elem == self.dt)
            value = self.binary(inner[0], loaded)
            for _ in range(self.rng.randint(0, 3)):
                value = self.body_step(value)
            yields = [self.convert(value, carried[0].layout)]  # type: ignore[arg-type]
            if len(carried) > 1 and carried[1].elem == self.dt:
                second = self.binary(
                    inner[1],
                    self.maybe_convert(value, 0.5) if value.shape == inner[1].shape else inner[1],
                )
                yields.append(self.convert(second, carried[1].layout))  # type: ignore[arg-type]
            if carry_ptr:
                one = self.fresh("one")
                nxt = self.fresh("pn")
                self.emit(lambda T: f"{one} = tl.constant 1 : {T(shape, 'i32', ptrs.layout)}")
                self.emit(
                    lambda T: (
                        f"{nxt} = tl.addptr {cur_ptrs.name}, {one} : "
                        f"{T(shape, ptrs.elem, ptrs.layout)}, {T(shape, 'i32', ptrs.layout)}"
                    )
                )
                yields.append(_Value(nxt, shape, ptrs.elem, ptrs.layout))
            self.op(
                lambda T, N: (
                    f"scf.yield {', '.join(N(y.name) for y in yields)} : "
                    f"{', '.join(T(y.shape, y.elem, y.layout) for y in yields)}"
                )
            )
        self.emit_raw("}")
        for r, v in zip(results, carried, strict=True):
            if v.elem == self.dt:
                self.pool.append(_Value(r, v.shape, v.elem, v.layout))

    def carried_chain(self, args: int) -> None:
        """An ``scf.for`` carrying ``args`` (1 or 2) 2-D tensors whose body computes a chain
        from the carried values alone (no load), stores it and stores its transpose: the chain
        is needed in two layouts on every iteration, so the solver weighs carrying the loop
        values a second time (:mod:`llc.passes.loop_copies`) against a conversion per
        iteration and against uncoalesced stores."""
        shape = (self.rng.choice((8, 16)), self.rng.choice((8, 16)))
        inits = [self.fresh_load(shape)]
        if args == 2:  # computed from the first: one load's pointers fewer to lay out
            inits.append(self.unary(inits[0]))
        trips = self.rng.choice((1, 2, 3, 8, 16))
        c0, c1, cn = self.scalar_const(0), self.scalar_const(1), self.scalar_const(trips)
        tshape = (shape[1], shape[0])
        pointers = []
        for s in (shape, tshape):
            base = f"%out{len(self.outputs)}"
            self.outputs.append(base)
            pointers.append(self.pointers(base, s, self.new_layout(s)))
        iv = self.fresh("i")
        accs = [self.fresh("acc") for _ in inits]
        results = [self.fresh("res") for _ in inits]
        pairs = list(zip(accs, inits, strict=True))
        self.op(
            lambda T, N: (
                f"{', '.join(results)} = scf.for {iv} = {c0} to {cn} step {c1} "
                f"iter_args({', '.join(f'{a} = {N(v.name)}' for a, v in pairs)})"
                f" -> ({', '.join(T(v.shape, v.elem, v.layout) for v in inits)}) : i32 {{"
            )
        )
        with self.region():
            inner = [_Value(a, v.shape, v.elem, v.layout) for a, v in zip(accs, inits, strict=True)]
            self.pool = list(inner)
            value = self.binary(inner[0], inner[1]) if args == 2 else self.unary(inner[0])
            for _ in range(self.rng.randint(0, 1)):
                value = self.unary(value)
            for ptrs, v in ((pointers[0], value), (pointers[1], self.trans(value))):
                w = self.convert(v, ptrs.layout)  # type: ignore[arg-type]
                self.op(
                    lambda T, N, p=ptrs, w=w: (
                        f"tl.store {p.name}, {N(w.name)} : {T(w.shape, self.ptr, p.layout)}"
                    )
                )
            yields = [self.convert(value, inits[0].layout)]  # type: ignore[arg-type]
            if args == 2:
                second = self.unary(inner[1]) if self.rng.random() < 0.5 else inner[1]
                yields.append(self.convert(second, inits[1].layout))  # type: ignore[arg-type]
            self.op(
                lambda T, N: (
                    f"scf.yield {', '.join(N(y.name) for y in yields)} : "
                    f"{', '.join(T(y.shape, y.elem, y.layout) for y in yields)}"
                )
            )
        self.emit_raw("}")
        for r, v in zip(results, inits, strict=True):
            self.pool.append(_Value(r, v.shape, v.elem, v.layout))

    def body_step(self, v: _Value) -> _Value:
        """One step of a loop or branch body that transforms ``v`` (same shape)."""
        roll = self.rng.random()
        if roll < 0.35:
            return self.unary(v)
        if roll < 0.7:
            return self.binary(v, self.same_shape_partner(v))
        if roll < 0.85 and len(v.shape) >= 2:
            return self.reduce(v, back=True)
        return self.select(v)

    def branch(self) -> None:
        """An ``scf.if`` on ``%flag < 0`` whose branches compute in different layouts."""
        v = self.operand()
        c0 = self.scalar_const(0)
        cond = self.fresh("cond")
        self.emit(lambda T: f"{cond} = arith.cmpi slt, %flag, {c0} : i32")
        out_layout = self.new_layout(v.shape)
        result = self.fresh("if")
        self.emit(lambda T: f"{result} = scf.if {cond} -> ({T(v.shape, self.dt, out_layout)}) {{")
        for i in range(2):
            if i == 1:
                self.emit_raw("} else {")
            with self.region():
                w = self.convert(v, self.new_layout(v.shape))
                for _ in range(self.rng.randint(1, 2)):
                    w = self.body_step(w)
                w = self.convert(w, out_layout)
                self.op(
                    lambda T, N, w=w: f"scf.yield {N(w.name)} : {T(w.shape, self.dt, w.layout)}"
                )
        self.emit_raw("}")
        self.pool.append(_Value(result, v.shape, self.dt, out_layout))

    # -- the kernel -------------------------------------------------------------------

    def step(self) -> None:
        kinds = (
            ("unary", 3), ("binary", 4), ("select", 1), ("reduce", 2), ("reduce_back", 2),
            ("trans", 2), ("reshape", 1), ("dot", 2), ("loop", 2), ("branch", 2), ("load", 1),
            ("convert", 2), ("argmax", 1),
        )  # fmt: skip
        kind = self.rng.choices([k for k, _ in kinds], weights=[w for _, w in kinds])[0]
        if kind == "unary":
            self.unary(self.operand())
        elif kind == "binary":
            v = self.operand()
            self.binary(v, self.same_shape_partner(v))
        elif kind == "select":
            self.select(self.operand())
        elif kind in ("reduce", "reduce_back"):
            v = self.operand(lambda v: len(v.shape) >= 2)
            if len(v.shape) >= 2:
                self.reduce(v, back=kind == "reduce_back")
        elif kind == "argmax":
            v = self.operand(lambda v: len(v.shape) >= 2)
            if len(v.shape) >= 2:
                self.argmax(v)
        elif kind == "trans":
            v = self.operand(lambda v: len(v.shape) >= 2)
            if len(v.shape) >= 2:
                self.trans(v)
        elif kind == "reshape":
            self.reshape(self.operand())
        elif kind == "dot" and self.config.is_float:
            self.dot()
        elif kind == "dot":  # integer dots would overflow their type: a product instead
            v = self.operand()
            self.binary(v, self.same_shape_partner(v))
        elif kind == "loop":
            self.loop()
        elif kind == "branch":
            self.branch()
        elif kind == "load":
            self.fresh_load()
        else:  # a conversion (or a chain of two) for its own sake
            v = self.operand()
            w = self.convert(v, self.new_layout(v.shape))
            if self.rng.random() < 0.3:
                w = self.convert(w, self.new_layout(v.shape))
            self.pool.append(w)

    def function(self, name: str, steps: int) -> tuple[list[str], list[str]]:
        """Emit one kernel; return its (laid-out, layout-free) lines."""
        self.laid_out, self.layout_free = [], []
        self.pool, self.inputs, self.outputs, self.const_cache = [], [], [], {}
        self.program_offset = None
        if self.config.programs > 1:  # each program reads and writes its own part of a buffer
            pid = self.fresh("pid")
            self.emit(lambda T: f"{pid} = tl.get_program_id x : i32")
            if len(self.config.grid) > 1:
                pid_y, row, linear = self.fresh("pid"), self.fresh("pid"), self.fresh("pid")
                width = self.scalar_const(self.config.grid[0])
                self.emit(lambda T: f"{pid_y} = tl.get_program_id y : i32")
                self.emit(lambda T: f"{row} = arith.muli {pid_y}, {width} : i32")
                self.emit(lambda T: f"{linear} = arith.addi {pid}, {row} : i32")
                pid = linear
            offset = self.fresh("poff")
            size = self.scalar_const(BUFFER_ELEMENTS)
            self.emit(lambda T: f"{offset} = arith.muli {pid}, {size} : i32")
            self.program_offset = offset
        self.fresh_load()
        if self.loop_chain_args:
            self.carried_chain(self.loop_chain_args)
        for _ in range(steps):
            self.step()
        if self.gather_rng is not None and self.gather_rng.random() < 0.4:
            self.gather()
        stored = {self.pool[-1].name: self.pool[-1]}
        for _ in range(self.rng.randint(0, 2)):
            v = self.pick()
            if v is not None:
                stored.setdefault(v.name, v)
        for v in stored.values():
            self.store(v)
        self.emit(lambda T: "func.return")
        params = [f"{p}: {self.ptr}" for p in (*self.inputs, *self.outputs)]
        params += [f"%scale: {self.dt}", "%flag: i32"]
        head = f"  func.func @{name}({', '.join(params)}) {{"
        return [head, *self.laid_out, "  }"], [head, *self.layout_free, "  }"]


def _module(
    aliases: dict[DistributedLayout, str], body: list[str], config: KernelConfig | None = None
) -> str:
    lines = [f"{alias} = {_render(layout)}" for layout, alias in aliases.items()]
    lines.append(f"module attributes {{{(config or KernelConfig()).module_attrs()}}} {{")
    lines.extend(body)
    lines.append("}")
    return "\n".join(lines) + "\n"


def generate_kernel(
    seed: int, *, steps: int | None = None, config: KernelConfig | None = None
) -> GeneratedKernel:
    """The random kernel of ``seed`` (``steps`` top-level steps, default 4 to 9), in both forms,
    for ``config`` (default: :func:`draw_config` of the seed).

    >>> k = generate_kernel(3, steps=2)
    >>> k.entry, k.num_ops > 10
    ('kernel', True)
    >>> k = generate_kernel(3, steps=2, config=KernelConfig("f64", 2, 32, "cuda:90", (2,)))
    >>> "!tl.ptr<f64>" in k.layout_free, "tl.get_program_id" in k.layout_free, k.buffer_elements
    (True, True, 2054)
    """
    rng = random.Random(seed)
    config = config or draw_config(seed)
    builder = _Builder(rng, gather_rng=random.Random(f"gather{seed}"), config=config)
    laid, free = builder.function("kernel", steps if steps is not None else rng.randint(4, 9))
    return GeneratedKernel(
        seed=seed,
        entry="kernel",
        laid_out=_module(builder.aliases, laid, config),
        layout_free=_module({}, free, config),
        num_ops=builder.num_ops,
        num_conversions=builder.num_conversions,
        config=config,
    )


def generate_loop_kernel(seed: int, args: int) -> GeneratedKernel:
    """A kernel of the default configuration that starts with a loop whose body computes a chain
    from ``args`` (1 or 2) loop-carried tensors alone and needs it in two layouts
    (:meth:`_Builder.carried_chain`): the solver's option of carrying
    loop values a second time.

    >>> k = generate_loop_kernel(1, 2)
    >>> "scf.for" in k.layout_free and "tl.trans" in k.layout_free
    True
    """
    rng = random.Random(f"loop{args}-{seed}")
    config = KernelConfig()
    builder = _Builder(rng, config=config, loop_chain_args=args)
    laid, free = builder.function("kernel", 0)
    return GeneratedKernel(
        seed=seed,
        entry="kernel",
        laid_out=_module(builder.aliases, laid, config),
        layout_free=_module({}, free, config),
        num_ops=builder.num_ops,
        num_conversions=builder.num_conversions,
        config=config,
    )


def generate_large_module(num_ops: int, *, seed: int = 0, layouts: bool = False) -> str:
    """A module of at least ``num_ops`` operations (``func.func`` and the ops in their bodies,
    nested ones included): random kernels ``@kernel0``, ``@kernel1``, ...

    For pass-scaling benchmarks (1k, 5k, 20k ops): the per-op cost of a pass must not grow with
    the module. Layout-free by default (the input of ``llc-optimize-layouts``); ``layouts=True``
    gives the laid-out form. Deterministic in ``seed``.

    >>> text = generate_large_module(300)
    >>> text.count("func.func @kernel") >= 2
    True
    """
    rng = random.Random(seed)
    builder = _Builder(rng)
    body: list[str] = []
    index = 0
    while index + (builder.num_ops if layouts else builder.num_layout_free_ops) < num_ops:
        builder.prefix = f"k{index}_"
        laid, free = builder.function(f"kernel{index}", rng.randint(6, 10))
        body.extend(laid if layouts else free)
        index += 1
    return _module(builder.aliases if layouts else {}, body)
