"""Layout assignment: the analysis behind ``llc-assign-anchors`` and ``llc-propagate-layouts``.

Structured as Triton's RemoveLayoutConversions, as one :class:`LayoutAnalysis` object with
stages that run in order and can each be dumped (``debug=true`` on the passes prints them):

1. ``collect``: tensor values, grouped into *classes* of values that control flow ties to one
   layout (:func:`llc.dialects.layout_rules.tied_values`);
2. ``anchors``: layouts chosen by heuristics: coalesced blocked layouts for expensive loads and
   stores (:mod:`llc.passes.coalesce`), mma / mfma / FMA layouts for dots, and layouts the user
   wrote (partially laid-out IR) or that function signatures carry;
3. ``propagate``: forward propagation of the anchors' layouts through the rules of
   :mod:`llc.dialects.layout_rules`; a class may receive several candidate layouts;
4. ``resolve``: one layout per class, the candidate with the lowest total conversion cost
   (:mod:`llc.passes.layout_cost`); ties go to the coalesced (blocked) candidate;
5. ``fill``: classes no anchor reached take their users' layouts (backward), else their
   operands' (forward), else the default blocked layout of their shape;
6. ``rewrite``: every tensor is retyped and ``tl.convert_layout`` ops connect the mismatches
   (:func:`materialize`).

Only ``anchors`` is run by ``llc-assign-anchors`` (every other tensor gets the default blocked
layout); ``llc-propagate-layouts`` runs all stages.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    TensorType,
    i32,
)
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from llc.dialects.diagnostics import error_at
from llc.dialects.layout_attrs import (
    AMDMfmaEncodingAttr,
    BlockedEncodingAttr,
    NvidiaMmaEncodingAttr,
    SwizzledSharedEncodingAttr,
)
from llc.dialects.layout_rules import (
    ANY,
    is_tensor,
    rule_for,
    tensor_operands,
    tensor_results,
    tied_values,
)
from llc.dialects.tl import (
    NUM_WARPS_ATTR,
    TARGET_ATTR,
    THREADS_PER_WARP_ATTR,
    ConvertLayoutOp,
    MemDescType,
    PointerType,
    element_type_of,
    encoding_of,
    shape_of,
)
from llc.errors import LayoutError
from llc.layouts import BlockedLayout
from llc.layouts.amd import AmdMfmaLayout
from llc.layouts.nvidia import NvidiaMmaLayout
from llc.layouts.shared import SwizzledSharedLayout
from llc.lowering import compute_capability_of
from llc.passes.axis_info import AxisAnalysis
from llc.passes.hopper_dots import (
    hopper_dot_for,
    promote_fp8_dot_operands,
    rewrite_hopper_dots,
)
from llc.passes.layout_cost import conversion_cost
from llc.targets import capability_target, check_target

__all__ = [
    "Hardware",
    "LayoutAnalysis",
    "default_blocked",
    "element_bits",
    "insert_conversion",
    "materialize",
    "short_layout",
    "value_name",
]

DEFAULT_NUM_WARPS = 4
DEFAULT_THREADS_PER_WARP = 32
DEFAULT_TARGET = "cuda:90"
MAX_CANDIDATES = 4
"""Candidate layouts kept per class during propagation (bounds the work on huge modules)."""


# ---------------------------------------------------------------------------------- hardware
@dataclass(frozen=True)
class Hardware:
    """Warps, threads per warp and target of a module (pass options override the module's).

    >>> Hardware(4, 32, "cuda:90").vendor, Hardware(4, 64, "hip:gfx942").arch
    ('cuda', 'gfx942')
    """

    num_warps: int
    threads_per_warp: int
    target: str

    @property
    def vendor(self) -> str:
        return self.target.partition(":")[0]

    @property
    def arch(self) -> str:
        # cuda and cuda:0 (no capability, as in Triton's lit inputs) are chosen for as cuda:90;
        # the module keeps the target as written.
        return capability_target(self.target).partition(":")[2]

    @property
    def cuda_capability(self) -> int | None:
        if self.vendor != "cuda":
            return None
        try:
            return int(self.arch.removesuffix("a"))  # cuda:90a is sm_90a
        except ValueError:
            return None

    @staticmethod
    def of(
        module: ModuleOp, num_warps: int = 0, threads_per_warp: int = 0, target: str = ""
    ) -> Hardware:
        """The module's hardware attributes, with non-empty options taking precedence."""

        def attr_int(name: str) -> int | None:
            attr = module.attributes.get(name)
            return attr.value.data if isinstance(attr, IntegerAttr) else None

        tgt = target or (
            module.attributes[TARGET_ATTR].data
            if isinstance(module.attributes.get(TARGET_ATTR), StringAttr)
            else DEFAULT_TARGET
        )
        try:
            check_target(tgt)
        except LayoutError as err:
            raise error_at(module, str(err)) from None
        default_threads = 64 if tgt.startswith("hip:gfx9") else DEFAULT_THREADS_PER_WARP
        warps = num_warps or attr_int(NUM_WARPS_ATTR) or DEFAULT_NUM_WARPS
        module_target = module.attributes.get(TARGET_ATTR)
        retargeted = bool(target) and not (
            isinstance(module_target, StringAttr) and module_target.data == target
        )
        # A new target brings its own wave size unless the option says otherwise.
        module_threads = None if retargeted else attr_int(THREADS_PER_WARP_ATTR)
        threads = threads_per_warp or module_threads or default_threads
        for name, value in (("num-warps", warps), ("threads-per-warp", threads)):
            if value <= 0 or value & (value - 1):
                raise error_at(module, f"{name} must be a positive power of two, got {value}")
        return Hardware(warps, threads, tgt)

    def write_to(self, module: ModuleOp) -> None:
        """Record the configuration as the module's attributes (the verifier checks layouts
        against them)."""
        module.attributes[NUM_WARPS_ATTR] = IntegerAttr(self.num_warps, i32)
        module.attributes[THREADS_PER_WARP_ATTR] = IntegerAttr(self.threads_per_warp, i32)
        module.attributes[TARGET_ATTR] = StringAttr(self.target)


def element_bits(typ: Attribute) -> int:
    """Bit width of a tensor's element type (pointers: 64).

    >>> from xdsl.dialects.builtin import TensorType, f16
    >>> element_bits(TensorType(f16, [4]))
    16
    """
    element = element_type_of(typ)
    if isinstance(element, PointerType):
        return 64
    width = getattr(element, "bitwidth", None)
    if isinstance(width, int):
        return max(width, 1)
    return {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}.get(str(element), 32)


def default_blocked(
    shape: tuple[int, ...],
    num_warps: int,
    threads_per_warp: int,
    size_per_thread: tuple[int, ...] | None = None,
    order: tuple[int, ...] | None = None,
) -> BlockedEncodingAttr:
    """Triton's ``getDefaultBlockedEncoding`` / ``BlockedEncodingAttr::get``: lanes and warps
    spread along ``order`` (fastest dim first), as far as the shape allows.

    >>> default_blocked((4, 256), 4, 32, (1, 4), (1, 0)).layout.triton_params()
    {'sizePerThread': [1, 4], 'threadsPerWarp': [1, 32], 'warpsPerCTA': [2, 2], 'order': [1, 0]}
    >>> default_blocked((64, 64), 4, 32).layout.triton_params()
    {'sizePerThread': [1, 1], 'threadsPerWarp': [1, 32], 'warpsPerCTA': [2, 2], 'order': [1, 0]}
    """
    rank = len(shape)
    spt = list(size_per_thread or (1,) * rank)
    order = tuple(order or tuple(reversed(range(rank))))
    tpw = [1] * rank
    wpc = [1] * rank
    remaining_lanes, remaining_warps = threads_per_warp, num_warps
    remaining_threads = num_warps * threads_per_warp
    prev_lanes = prev_warps = 1
    for d in order[:-1]:
        threads_here = max(1, min(remaining_threads, max(1, shape[d] // spt[d])))
        tpw[d] = max(1, min(threads_here, remaining_lanes))
        wpc[d] = max(1, min(threads_here // tpw[d], remaining_warps))
        remaining_warps //= wpc[d]
        remaining_lanes //= tpw[d]
        remaining_threads //= tpw[d] * wpc[d]
        prev_lanes *= tpw[d]
        prev_warps *= wpc[d]
    last = order[-1]
    tpw[last] = threads_per_warp // prev_lanes
    wpc[last] = num_warps // prev_warps
    return BlockedEncodingAttr(BlockedLayout(spt, tpw, wpc, list(order)))


def warp_local_gather_layout(
    src_shape: tuple[int, ...],
    idx_shape: tuple[int, ...],
    axis: int,
    num_warps: int,
    threads_per_warp: int,
) -> BlockedEncodingAttr | None:
    """A blocked layout for both operands of ``tl.gather`` that keeps the gather ``axis`` inside
    each warp (Triton's OptimizeGatherLayouts), or ``None`` when the other dims cannot take the
    warps (fewer elements than warps) or a shape is not a power of two.

    Lanes go along the axis first (up to its size), the remaining lanes and all warps along the
    other dims, so no warp bit of the layout maps to the axis and a gather needs only shuffles.

    >>> warp_local_gather_layout((32, 64), (32, 16), 1, 4, 32).layout.triton_params()
    {'sizePerThread': [1, 1], 'threadsPerWarp': [2, 16], 'warpsPerCTA': [4, 1], 'order': [1, 0]}
    >>> warp_local_gather_layout((256,), (256,), 0, 4, 32) is None
    True
    """
    rank = len(src_shape)
    shapes = (src_shape, idx_shape)
    if any(s & (s - 1) or s < 1 for shape in shapes for s in shape) or not 0 <= axis < rank:
        return None
    others = [d for d in range(rank) if d != axis]
    if not others or math.prod(src_shape[d] for d in others) < num_warps:
        return None
    lanes_on_axis = min(threads_per_warp, min(src_shape[axis], idx_shape[axis]))
    tpw = [1] * rank
    wpc = [1] * rank
    tpw[axis] = lanes_on_axis
    lanes, warps = threads_per_warp // lanes_on_axis, num_warps
    for d in reversed(others):  # the fastest non-axis dim first
        room = src_shape[d]
        tpw[d] = min(lanes, room) if d != others[0] else lanes
        room = max(1, room // tpw[d])
        wpc[d] = min(warps, room) if d != others[0] else warps
        lanes //= tpw[d]
        warps //= wpc[d]
    order = [axis, *reversed(others)]
    return BlockedEncodingAttr(BlockedLayout([1] * rank, tpw, wpc, order))


# ---------------------------------------------------------------------------------- classes
class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[SSAValue, SSAValue] = {}

    def add(self, v: SSAValue) -> None:
        self.parent.setdefault(v, v)

    def find(self, v: SSAValue) -> SSAValue:
        root = v
        while self.parent[root] is not root:
            root = self.parent[root]
        while self.parent[v] is not root:
            self.parent[v], v = root, self.parent[v]
        return root

    def union(self, a: SSAValue, b: SSAValue) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra is not rb:
            self.parent[rb] = ra


def functions_of(module: ModuleOp) -> list[FuncOp]:
    """The functions of ``module``, those of nested modules too (a file of several modules,
    which Triton's parser wraps in one), in program order.

    >>> functions_of(ModuleOp([]))
    []
    """
    return [f for f in module.walk() if isinstance(f, FuncOp)]


def walk_ops(root: Operation) -> Iterator[Operation]:
    """Every op nested in ``root`` in program (pre-)order, ``root`` excluded."""
    for region in root.regions:
        for block in region.blocks:
            for op in block.ops:
                yield op
                yield from walk_ops(op)


def _values_of(op: Operation) -> Iterator[SSAValue]:
    yield from op.results
    for region in op.regions:
        for block in region.blocks:
            yield from block.args


STORE_LIKE = ("tl.store", "tl.async_copy_global_to_local")
"""Ops whose pointers, mask and value (``other``) are laid out together and coalesced like a
store's: the copies of an imported pipelined TTGIR read global memory the way ``tl.load`` does,
but their result is a shared buffer, so nothing downstream asks for a register layout."""


def is_expensive_memory_op(op: Operation, hw: Hardware) -> bool:
    """Triton's ``isExpensiveLoadOrStore``: a tensor of at least one element per thread."""
    if op.name not in ("tl.load", *STORE_LIKE):
        return False
    ptr = op.operands[0]
    if not isinstance(ptr.type, TensorType):
        return False
    n = 1
    for s in shape_of(ptr.type):
        n *= s
    return n >= hw.num_warps * hw.threads_per_warp


# ---------------------------------------------------------------------------------- analysis
@dataclass
class LayoutAnalysis:
    """Layout assignment of one module; see the module docstring for the stages."""

    module: ModuleOp
    hw: Hardware
    mma_version: int = 0
    """0: from the target; 2 / 3: NVIDIA mma version; 1: FMA (no tensor cores)."""
    keep_existing: bool = True
    """Keep the layouts already in the IR as pinned anchors (partially laid-out input)."""

    ops: list[Operation] = field(default_factory=list)
    classes: _UnionFind = field(default_factory=_UnionFind)
    fixed: dict[SSAValue, Attribute] = field(default_factory=dict)
    """Class root -> its anchor layout."""
    sink_layouts: dict[Operation, Attribute] = field(default_factory=dict)
    """Store op -> the layout all its operands must have."""
    candidates: dict[SSAValue, list[Attribute]] = field(default_factory=dict)
    chosen: dict[SSAValue, Attribute] = field(default_factory=dict)
    members: dict[SSAValue, list[SSAValue]] = field(default_factory=dict)
    log: list[str] = field(default_factory=list)
    store_layouts: dict[Operation, Attribute] = field(default_factory=dict)
    anchor_options: dict[SSAValue, list[tuple[SSAValue, Attribute]]] = field(default_factory=dict)
    """Class root -> the anchors (value, layout) in it."""
    decisions: list[tuple[list[tuple[float, Attribute]], Attribute]] = field(default_factory=list)
    """Every cost decision of ``anchors`` and ``resolve``: (cost of each option, the choice)."""
    value_layouts: dict[SSAValue, Attribute] = field(default_factory=dict)
    coalesced_roots: set[SSAValue] = field(default_factory=set)
    """Classes anchored by a coalesced load (free to take an equivalent layout)."""
    """Anchors that keep their own layout, different from their class's."""
    """Layouts of stores recorded before the conversions feeding them were dropped."""

    @property
    def capability(self) -> int:
        """The target's compute capability, which prices conversions (ldmatrix from sm_75,
        stmatrix from sm_90, neither off CUDA)."""
        return compute_capability_of(self.hw.target)

    # ------------------------------------------------------------------ stage 1: collect
    def collect(self) -> None:
        self.ops = list(walk_ops(self.module))
        for func in functions_of(self.module):
            if isinstance(func, FuncOp):
                for arg in func.body.block.args if func.body.blocks else []:
                    if is_tensor(arg):
                        self.classes.add(arg)
        for op in self.ops:
            for v in _values_of(op):
                if is_tensor(v):
                    self.classes.add(v)
            for group in tied_values(op):
                for v in group:
                    self.classes.add(v)
                for v in group[1:]:
                    self.classes.union(group[0], v)
        members: dict[SSAValue, list[SSAValue]] = defaultdict(list)
        for v in self.classes.parent:
            members[self.classes.find(v)].append(v)
        self.members = dict(members)

    def cls(self, v: SSAValue) -> SSAValue:
        return self.classes.find(v)

    def layout_of_class(self, root: SSAValue) -> Attribute | None:
        if root in self.fixed:
            return self.fixed[root]
        if root in self.chosen:
            return self.chosen[root]
        cands = self.candidates.get(root)
        return cands[0] if cands and len(cands) == 1 else None

    def layout(self, v: SSAValue) -> Attribute | None:
        if v not in self.classes.parent:  # a scalar (a scalar load's or store's value)
            return None
        return self.layout_of_class(self.cls(v))

    def _pin(self, v: SSAValue, enc: Attribute, why: str) -> None:
        root = self.cls(v)
        options = self.anchor_options.setdefault(root, [])
        if not options:
            self.fixed[root] = enc
        options.append((v, enc))
        self.log.append(f"anchor {_name(v)}: {why}")

    def _resolve_anchor_conflicts(self) -> None:
        """Control flow may tie anchors that disagree (the loads of two ``scf.if`` branches):
        the class takes the option with the lowest total cost; the other anchors keep their
        own layout and are converted where they join the class."""
        for root, options in self.anchor_options.items():
            distinct = list(dict.fromkeys(enc for _, enc in options))
            if len(distinct) < 2:
                continue
            costs = []
            for enc in distinct:
                cost = self._class_cost(root, enc)
                for v, own in options:
                    if own != enc:
                        cost += conversion_cost(
                            own, enc, shape_of(v.type), element_bits(v.type), self.capability
                        )
                costs.append((cost, enc))
            best = min(costs, key=lambda t: (t[0], not _coalesced(t[1])))[1]
            self.decisions.append((costs, best))
            self.fixed[root] = best
            for v, own in options:
                if own != best:
                    self.value_layouts[v] = own
            self.log.append(
                f"anchor conflict {', '.join(_name(v) for v, _ in options)}: "
                + ", ".join(f"{_short(e)} cost {c:g}" for c, e in costs)
                + f" -> {_short(best)}"
            )

    # ------------------------------------------------------------------ stage 2: anchors
    def anchors(self) -> None:
        from llc.passes.coalesce import coalesced_layout

        axis = AxisAnalysis()
        if self.keep_existing:
            for func in functions_of(self.module):
                if isinstance(func, FuncOp) and func.body.blocks:
                    for arg in func.body.block.args:
                        if is_tensor(arg) and (enc := encoding_of(arg.type)) is not None:
                            self._pin(arg, enc, "function argument")
        for op in self.ops:
            if self.keep_existing:
                for v in _values_of(op):
                    if is_tensor(v) and (enc := encoding_of(v.type)) is not None:
                        anchor = op.name in ("tl.dot", "tl.warp_group_dot") or (
                            op.name == "tl.load" and is_expensive_memory_op(op, self.hw)
                        )
                        if anchor or self.partial:
                            self._pin(v, enc, "existing layout" if anchor else "user layout")
                            if anchor and op.name == "tl.load" and not self.partial:
                                self.coalesced_roots.add(self.cls(v))
                enc = None
                if op.name in STORE_LIKE:
                    enc = self.store_layouts.get(op) or encoding_of(op.operands[0].type)
                if enc is not None and (self.partial or is_expensive_memory_op(op, self.hw)):
                    self.sink_layouts[op] = enc
                    continue
            # A scalar load (a pointer, not a tensor of pointers) has no layout: no class.
            already = (
                op.name == "tl.load"
                and is_tensor(op.results[0])
                and any(
                    v is op.results[0]
                    for v, _ in self.anchor_options.get(self.cls(op.results[0]), [])
                )
            )
            if already:
                continue
            if op.name in ("tl.load", *STORE_LIKE) and is_expensive_memory_op(op, self.hw):
                enc = coalesced_layout(op, axis, self.hw)
                if op.name == "tl.load":
                    self._pin(op.results[0], enc, "coalesced load")
                    self.coalesced_roots.add(self.cls(op.results[0]))
                else:
                    self.sink_layouts[op] = enc
                    self.log.append(f"anchor {op.name} @{_name(op.operands[0])}: coalesced store")
            elif op.name == "tl.dot" and self.cls(op.results[0]) not in self.fixed:
                self._pin(op.results[0], self.dot_layout(op), "dot")
            elif op.name == "tl.gather" and self.cls(op.results[0]) not in self.fixed:
                enc = warp_local_gather_layout(
                    shape_of(op.operands[0].type),
                    shape_of(op.operands[1].type),
                    op.axis.value.data,  # type: ignore[attr-defined]
                    self.hw.num_warps,
                    self.hw.threads_per_warp,
                )
                if (
                    enc is not None
                    and encoding_of(op.results[0].type) in (None, enc)
                    and not self._gather_already_warp_local(op)
                ):
                    # Triton's OptimizeGatherLayouts: source and indices in one blocked layout
                    # with the gather axis inside each warp, so the gather lowers to shuffles.
                    self.sink_layouts[op] = enc
                    self._pin(op.results[0], enc, "warp-local gather")
        self._resolve_anchor_conflicts()

    def _gather_already_warp_local(self, op: Operation) -> bool:
        """Whether the layouts the anchors gave a gather's operands already keep its axis in
        each warp (then no conversion is worth adding)."""
        from llc.gather import plan_gather

        lls = []
        for v in op.operands[:2]:
            enc = self.layout(v)
            shape = shape_of(v.type)
            if enc is None or not hasattr(enc, "to_linear_layout"):
                return False
            try:
                lls.append(enc.to_linear_layout(list(shape)))
            except LayoutError:
                return False
        try:
            plan = plan_gather(lls[0], lls[1], op.axis.value.data, 32)  # type: ignore[attr-defined]
        except LayoutError:
            return False
        return plan.strategy == "shuffle"

    @property
    def partial(self) -> bool:
        """Whether the input mixes laid-out and layout-free tensors (user layouts are pinned)."""
        cached = getattr(self, "_partial", None)
        if cached is None:
            encoded = [encoding_of(v.type) is not None for v in self.classes.parent]
            cached = any(encoded) and not all(encoded)
            self._partial = cached
        return cached

    def dot_layout(self, op: Operation) -> Attribute:
        """AccelerateMatmul: the accumulator layout of a dot for the target."""
        shape = shape_of(op.results[0].type)
        m, n = shape[-2], shape[-1]
        warps = self.hw.num_warps
        version = self.mma_version
        cap = self.hw.cuda_capability
        if version == 0:
            if cap is not None and cap >= 75 and self.hw.threads_per_warp == 32:
                # Hopper's first choice is wgmma (Blackwell's tcgen05 is not modelled: v2).
                version = 3 if 90 <= cap < 100 else 2
            elif (
                self.hw.vendor == "hip"
                and self.hw.arch in _MFMA_VERSIONS
                and self.hw.threads_per_warp == 64
            ):
                version = -1  # mfma
            else:
                version = 1
        if version == 3:
            if cap is None or cap < 90:
                raise error_at(
                    op, f"mma version 3 (wgmma) needs cuda:90 or newer, not '{self.hw.target}'"
                )
            # Triton's getMMAVersionSafe: v3 where the dot fits wgmma, else v2 (materialize
            # stages the operands of a v3 dot in shared memory: llc.passes.hopper_dots).
            hopper = hopper_dot_for(op, warps)
            if hopper is not None:
                return NvidiaMmaEncodingAttr(hopper.mma)
            version = 2
        if version == 2 and not (_mixed_dot_fits_mma(op) and _f32_dot_fits_mma(op)):
            version = 1
        if version == 2 and len(shape) == 2 and m % 16 == 0 and n % 8 == 0:
            chained = self._chained_dot_warps(op)
            if chained is None:
                tile = _warps_per_tile(m, n, warps, 16, 8)
            elif chained:
                tile = list(chained)
            else:
                tile = [warps, 1] if m >= n else [1, warps]
            return NvidiaMmaEncodingAttr(NvidiaMmaLayout(2, 0, tile, [16, 8]))
        if version == 2 and len(shape) == 3 and m % 16 == 0 and n % 8 == 0:
            # A batched dot (Triton 3.9's rank-3 warpsPerTileV2): warps go to the batch first,
            # one batch per warp up to the warps there are, the rest tile each M x N matrix.
            batch = min(shape[0], warps)
            tile = _warps_per_tile(m, n, warps // batch, 16, 8)
            return NvidiaMmaEncodingAttr(NvidiaMmaLayout(2, 0, [batch, *tile], [1, 16, 8]))
        if version == -1 and len(shape) == 2:
            instr = 32 if m % 32 == 0 and n % 32 == 0 else 16
            if m % instr == 0 and n % instr == 0:
                k = 8 if instr == 32 else 16
                return AMDMfmaEncodingAttr(
                    AmdMfmaLayout(
                        _MFMA_VERSIONS[self.hw.arch],
                        _warps_per_tile(m, n, warps, instr, instr),
                        [instr, instr, k],
                        True,
                    )
                )
        # FMA: Triton's TritonDotPattern gives each thread a 2x2 (4x4) block of the result
        # when it holds at least 4 (16) elements, so each operand value read serves 2 (4) FMAs.
        spt = [1] * len(shape)
        per_thread = math.prod(shape) // (warps * self.hw.threads_per_warp)
        for size, needed in ((2, 4), (4, 16)):
            if per_thread >= needed:
                spt[-1] = spt[-2] = size
        return default_blocked(shape, warps, self.hw.threads_per_warp, tuple(spt))

    def _chained_dot_warps(self, op: Operation) -> tuple[int, ...] | None:
        """Triton's chained-dot rule of ``warpsPerTileV2``: ``None`` when no other rank-2 dot is
        in ``op``'s slice (the values it depends on and the values depending on it, within its
        region); else the warps of such a dot already laid out as ``#mma``, or ``()`` when none
        is yet. A dot feeding (or fed by) another dot puts all warps along its longer dim, so
        that the row reductions between the two (attention's softmax) stay inside each warp."""
        region = op.parent_region()
        seen: set[Operation] = {op}
        stack = [op]
        while stack:
            cur = stack.pop()
            neighbours = [o.owner for o in cur.operands if isinstance(o.owner, Operation)]
            neighbours += [use.operation for r in cur.results for use in r.uses]
            for nxt in neighbours:
                if nxt in seen or nxt.parent_region() is not region:
                    continue
                if nxt.name == "tl.convert_layout":
                    continue
                seen.add(nxt)
                stack.append(nxt)
        found_warps: tuple[int, ...] | None = None
        for other in seen:
            if other is op or other.name != "tl.dot":
                continue
            if len(shape_of(other.results[0].type)) != 2:
                continue
            enc = self.layout(other.results[0])
            if isinstance(enc, NvidiaMmaEncodingAttr):
                return tuple(enc.layout.warps_per_cta)
            found_warps = ()
        return found_warps

    # ------------------------------------------------------------------ stage 3: propagate
    def propagate(self) -> None:
        queue: list[SSAValue] = []
        for root, enc in self.fixed.items():
            self.candidates[root] = [enc]
            queue.append(root)
        while queue:
            root = queue.pop()
            encs = list(self.candidates.get(root, []))
            for v in self.members.get(root, [root]):
                for use in list(v.uses):
                    user = use.operation
                    rule = rule_for(user)
                    if (
                        rule is None
                        or rule.kind in ("sink", "source")
                        or (user.name == "tl.dot" and use.index != 2)
                    ):
                        continue
                    for enc in encs:
                        results = rule.forward(user, use.index, enc)
                        if results is None:
                            continue
                        for r_idx, r_enc in zip(tensor_results(user), results, strict=False):
                            target = self.cls(user.results[r_idx])
                            if target in self.fixed:
                                continue
                            known = self.candidates.setdefault(target, [])
                            if r_enc not in known and len(known) < MAX_CANDIDATES:
                                known.append(r_enc)
                                queue.append(target)

    # ------------------------------------------------------------------ stage 4: resolve
    def resolve(self) -> None:
        for op in self.ops:
            for v in _values_of(op):
                if not is_tensor(v):
                    continue
                root = self.cls(v)
                if root in self.fixed or root in self.chosen:
                    continue
                cands = self.candidates.get(root)
                if not cands:
                    continue
                if len(cands) == 1:
                    self.chosen[root] = cands[0]
                    continue
                costs = [(self._class_cost(root, c), i, c) for i, c in enumerate(cands)]
                best = min(costs, key=lambda t: (t[0], not _coalesced(t[2]), t[1]))
                self.decisions.append(([(cost, c) for cost, _, c in costs], best[2]))
                self.chosen[root] = best[2]
                self.log.append(
                    f"resolve {_name(v)}: "
                    + ", ".join(f"{_short(c)} cost {cost:g}" for cost, _, c in costs)
                    + f" -> {_short(best[2])}"
                )

    def _class_cost(self, root: SSAValue, enc: Attribute) -> float:
        total = 0.0
        for v in self.members.get(root, [root]):
            shape, bits = shape_of(v.type), element_bits(v.type)
            owner = v.owner
            if isinstance(owner, Operation) and (rule := rule_for(owner)) is not None:
                idx = tensor_results(owner)
                encs = [
                    enc if owner.results[i] is v else self.layout(owner.results[i]) for i in idx
                ]
                required = rule.backward(owner, encs) if all(e is not None for e in encs) else None
                for pos, o_idx in enumerate(tensor_operands(owner)):
                    operand = owner.operands[o_idx]
                    have = self.layout(operand)
                    if have is None:
                        continue
                    if required is None:
                        # The op cannot produce enc: it runs in the operand's layout and its
                        # result is converted.
                        derived = rule.forward(owner, o_idx, have)
                        if derived:
                            total += conversion_cost(derived[0], enc, shape, bits, self.capability)
                    elif required[pos] is not ANY:
                        total += conversion_cost(
                            have,
                            required[pos],
                            shape_of(operand.type),
                            element_bits(operand.type),
                            self.capability,
                        )
            for use in v.uses:
                user = use.operation
                want = self._requirement(user, use.index)
                if want is not None and want is not ANY:
                    total += conversion_cost(enc, want, shape, bits, self.capability)
        return total

    def _requirement(self, user: Operation, index: int) -> Attribute | None:
        """The layout ``user`` needs on operand ``index``, if already determined."""
        if user in self.sink_layouts:
            return self.sink_layouts[user]
        rule = rule_for(user)
        if rule is None or not tensor_results(user):
            return None
        encs = [self.layout(user.results[i]) for i in tensor_results(user)]
        if any(e is None for e in encs):
            return None
        required = rule.backward(user, encs)  # type: ignore[arg-type]
        if required is None:
            return None
        positions = tensor_operands(user)
        return required[positions.index(index)] if index in positions else None

    # ------------------------------------------------------------------ stage 5: fill
    def fill(self) -> None:
        for op in self.ops:
            # A cheap store (no anchor) stores its value in the value's own layout.
            if op.name == "tl.store" and op not in self.sink_layouts:
                enc = self.layout(op.operands[1])
                if enc is not None:
                    self.sink_layouts[op] = enc
        for _ in range(2):
            for op in reversed(self.ops):
                self._fill_backward(op)
        # Forward from operands with layouts; free ops (splat, range, constants) wait for their
        # users, so they never impose the default layout on a computed value.
        for op in self.ops:
            rule = rule_for(op)
            if rule is not None and rule.kind == "free":
                continue
            for v in _values_of(op):
                if is_tensor(v) and self.layout(v) is None:
                    enc = self._forward(v)
                    if enc is not None:
                        self.chosen[self.cls(v)] = enc
                        for user_op in (u.operation for u in v.uses):
                            self._fill_backward(user_op)
        for op in reversed(self.ops):
            self._fill_backward(op)
        for op in self.ops:
            for v in _values_of(op):
                if is_tensor(v) and self.layout(v) is None:
                    self.chosen[self.cls(v)] = self._forward(v) or self.default_layout(v)
        for func in functions_of(self.module):
            if isinstance(func, FuncOp) and func.body.blocks:
                for arg in func.body.block.args:
                    if is_tensor(arg) and self.layout(arg) is None:
                        self.chosen[self.cls(arg)] = self.default_layout(arg)

    def _fill_backward(self, op: Operation) -> None:
        operands = tensor_operands(op)
        if not operands:
            return
        if op in self.sink_layouts:
            required: list[Attribute] | None = [self.sink_layouts[op]] * len(operands)
        else:
            rule = rule_for(op)
            results = tensor_results(op)
            if rule is None or not results:
                return
            encs = [self.layout(op.results[i]) for i in results]
            if any(e is None for e in encs):
                return
            required = rule.backward(op, encs)  # type: ignore[arg-type]
        if required is None:
            return
        for o_idx, enc in zip(operands, required, strict=False):
            if enc is ANY:
                continue
            operand = op.operands[o_idx]
            root = self.cls(operand)
            current = self.layout_of_class(root)
            if current is None:
                self.chosen[root] = enc
            elif (
                root in self.coalesced_roots
                and current != enc
                and same_linear_layout(current, enc, shape_of(operand.type))
            ):
                # A coalesced anchor may take any layout with the same linear layout (the same
                # threads access the same elements): pick the one its user needs.
                self.fixed[root] = enc
                self.log.append(f"anchor {_name(operand)}: same linear layout as its use")

    def _forward(self, v: SSAValue) -> Attribute | None:
        owner = v.owner
        if isinstance(owner, Operation) and (rule := rule_for(owner)) is not None:
            for o_idx in tensor_operands(owner):
                enc = self.layout(owner.operands[o_idx])
                if enc is None:
                    continue
                results = rule.forward(owner, o_idx, enc)
                if results is not None:
                    for r_idx, r_enc in zip(tensor_results(owner), results, strict=False):
                        if owner.results[r_idx] is v:
                            return r_enc
        return None

    def default_layout(self, v: SSAValue) -> Attribute:
        """The default blocked layout of ``v``'s shape for the module's hardware."""
        return default_blocked(shape_of(v.type), self.hw.num_warps, self.hw.threads_per_warp)

    # ------------------------------------------------------------------ driving
    def run(self, stages: Iterable[str]) -> None:
        """Run the named stages (``collect`` is implied)."""
        self.collect()
        for stage in stages:
            getattr(self, stage)()

    def assignment(self) -> dict[SSAValue, Attribute]:
        """Every tensor value's layout (defaults where the stages left none)."""
        out: dict[SSAValue, Attribute] = {}
        for v in self.classes.parent:
            out[v] = self.value_layouts.get(v) or self.layout(v) or self.default_layout(v)
        return out

    def dump(self, stage: str) -> str:
        """A readable table of the analysis after ``stage`` (for ``debug=true``)."""
        lines = [f"// -----// llc layout analysis: after {stage} //----- //"]
        lines += [f"//   {line}" for line in self.log]
        self.log.clear()
        if stage in ("propagate", "resolve", "fill"):
            for root, members in self.members.items():
                enc = self.fixed.get(root) or self.chosen.get(root)
                cands = self.candidates.get(root, [])
                tag = (
                    "anchor"
                    if root in self.fixed
                    else "chosen"
                    if root in self.chosen
                    else "candidates"
                )
                shown = (
                    _short(enc) if enc is not None else " | ".join(_short(c) for c in cands) or "-"
                )
                lines.append(f"//   {', '.join(_name(m) for m in members)}: {tag} {shown}")
        return "\n".join(lines)


def _mixed_dot_fits_mma(op: Operation) -> bool:
    """Whether a mixed-precision dot (an integer and a float operand) can run on mma v2
    exactly: the integer operand is converted to the float type, which must be one mma.sync
    takes (f16/bf16) or widens to f16 exactly (8-bit floats). f32 (tf32 mma rounds) and f64
    operands keep FMA. Dots of one element type are not concerned."""
    types = [element_type_of(v.type) for v in op.operands[:2]]
    ints = [isinstance(t, IntegerType) for t in types]
    if ints[0] == ints[1]:
        return True
    float_type = types[1] if ints[0] else types[0]
    return element_bits(TensorType(float_type, [1])) <= 16


def _f32_dot_fits_mma(op: Operation) -> bool:
    """Triton's ``supportMMA`` for f32 operands: mma.sync reads them as tf32, so only a dot that
    asks for tf32 (or tf32x3) may use it; ``input_precision="ieee"`` keeps FMA."""
    from llc.passes.hopper_dots import input_precision

    types = [str(element_type_of(v.type)) for v in op.operands[:2]]
    if types != ["f32", "f32"]:
        return True
    return input_precision(op) in ("tf32", "tf32x3")


_MFMA_VERSIONS = {"gfx908": 1, "gfx90a": 2, "gfx940": 3, "gfx941": 3, "gfx942": 3, "gfx950": 4}


def _warps_per_tile(m: int, n: int, num_warps: int, tile_m: int, tile_n: int) -> list[int]:
    """Triton's ``warpsPerTileV2``: grow the warp grid along the dim with more tiles left."""
    ret = [1, 1]
    while ret[0] * ret[1] < num_warps:
        if m // tile_m // ret[0] >= n // (tile_n * ret[1]):
            if ret[0] < max(1, m // tile_m):
                ret[0] *= 2
            else:
                ret[1] *= 2
        else:
            ret[1] *= 2
    return ret


def same_linear_layout(a: Attribute, b: Attribute, shape: tuple[int, ...]) -> bool:
    """Whether two layout attributes map hardware indices to the same elements of ``shape``.

    >>> from llc.layouts import BlockedLayout
    >>> from llc.dialects.layout_attrs import BlockedEncodingAttr
    >>> rows = BlockedEncodingAttr(BlockedLayout([1, 1], [1, 32], [1, 4], [1, 0]))
    >>> other = BlockedEncodingAttr(BlockedLayout([1, 1], [1, 32], [1, 4], [0, 1]))
    >>> down = BlockedEncodingAttr(BlockedLayout([1, 1], [32, 1], [4, 1], [0, 1]))
    >>> same_linear_layout(rows, other, (1, 128)), same_linear_layout(rows, down, (1, 128))
    (True, False)
    """
    from llc.layouts.common import padded_shape

    try:
        padded = padded_shape(shape)
        return a.to_linear_layout(padded) == b.to_linear_layout(padded)  # type: ignore[attr-defined]
    except (LayoutError, ValueError, AttributeError):
        return False


def _coalesced(enc: Attribute) -> bool:
    layout = getattr(enc, "layout", None)
    while getattr(layout, "kind", None) == "slice":
        layout = layout.parent  # type: ignore[union-attr]
    return getattr(layout, "kind", None) == "blocked"


def _name(v: SSAValue) -> str:
    if v.name_hint:
        return f"%{v.name_hint}"
    if isinstance(v, BlockArgument):
        return f"<arg {v.index}>"
    return f"<{v.owner.name} result>"  # type: ignore[union-attr]


def _short(enc: Attribute | None) -> str:
    if enc is None:
        return "-"
    text = str(enc)
    return text if len(text) < 160 else text[:157] + "..."


def value_name(v: SSAValue) -> str:
    """How the debug dumps name a value: ``%hint``, ``<arg N>`` or ``<op result>``."""
    return _name(v)


def short_layout(enc: Attribute | None) -> str:
    """A layout as the debug dumps print it (cut at 160 characters).

    >>> short_layout(None)
    '-'
    """
    return _short(enc)


# ---------------------------------------------------------------------------------- rewrite
def shared_layout_for(typ: MemDescType) -> Attribute:
    """A swizzled shared layout for a memdesc without one: 128-bit vectors along the last dim,
    XOR-swizzled so that eight consecutive rows hit different banks (Triton's operand default).
    """
    shape = shape_of(typ)
    bits = element_bits(typ)
    vec = max(1, 128 // max(bits, 8))
    row_bytes = shape[-1] * max(bits, 8) // 8
    per_phase = max(1, 128 // max(row_bytes, 1))
    max_phase = max(1, 8 // per_phase)
    order = list(reversed(range(len(shape))))
    return SwizzledSharedEncodingAttr(
        SwizzledSharedLayout(min(vec, shape[-1]), per_phase, max_phase, order)
    )


def materialize(
    module: ModuleOp,
    layouts: dict[SSAValue, Attribute],
    sink_layouts: dict[Operation, Attribute],
    hw: Hardware,
) -> int:
    """Retype every tensor to ``layouts`` and insert the conversions that connect them.

    Each op gets the operand layouts its rule requires for its result layouts; where the rule
    says *cannot* (e.g. a reduction whose chosen result is not a slice), the result takes the
    layout the rule derives from the operand and a conversion follows it. Conversions are
    inserted right after the converted value's definition and shared by all its uses.
    Returns the number of conversions inserted.
    """
    ops = list(walk_ops(module))
    # 1. retype (collect first: retyping replaces value objects)
    plan: list[tuple[SSAValue, Attribute]] = []
    for v, enc in layouts.items():
        if isinstance(v.type, TensorType) and encoding_of(v.type) != enc:
            plan.append((v, TensorType(v.type.element_type, v.type.get_shape(), enc)))
    for op in ops:
        for v in _values_of(op):
            if isinstance(v.type, MemDescType) and encoding_of(v.type) is None:
                t = v.type
                plan.append(
                    (v, MemDescType(t.element_type, list(t.get_shape()), shared_layout_for(t)))
                )
    for v, new_type in plan:
        retype(v, new_type)
    # 2. connect
    converter = _Converter()
    for op in ops:
        _legalize(op, converter, sink_layouts, hw)
    for func in functions_of(module):
        _fix_signature(func)
    rewrite_hopper_dots(module)
    promote_fp8_dot_operands(module, compute_capability_of(hw.target))
    return converter.count


def typed_properties(op: Operation, result_type: Attribute) -> dict[str, Attribute]:
    """``op``'s properties, with a dense constant's value retyped to ``result_type`` (an
    ``arith.constant`` prints its type from its value)."""
    properties = dict(op.properties)
    value = properties.get("value")
    if isinstance(value, DenseIntOrFPElementsAttr) and op.name == "arith.constant":
        properties["value"] = DenseIntOrFPElementsAttr(result_type, value.data)
    return properties


def retype(value: SSAValue, new_type: Attribute) -> SSAValue:
    """Give ``value`` a new type in place (uses follow); keeps dense constants consistent."""
    owner = value.owner
    if isinstance(owner, Operation) and owner.name == "arith.constant":
        owner.properties.update(typed_properties(owner, new_type))
    return Rewriter.replace_value_with_new_type(value, new_type)


class _Converter:
    def __init__(self) -> None:
        self.cache: dict[tuple[SSAValue, Attribute], SSAValue] = {}
        self.count = 0

    def convert(self, value: SSAValue, enc: Attribute) -> SSAValue:
        if encoding_of(value.type) == enc:
            return value
        key = (value, enc)
        if key in self.cache:
            return self.cache[key]
        converted = insert_conversion(value, enc)
        self.cache[key] = converted
        self.count += 1
        return converted


def insert_conversion(value: SSAValue, enc: Attribute, before: Operation | None = None) -> SSAValue:
    """A new ``tl.convert_layout`` of ``value`` to layout ``enc``: right after the op defining
    ``value`` (at the start of its block for a block argument), or before ``before``."""
    t = value.type
    assert isinstance(t, TensorType)
    cvt = ConvertLayoutOp(value, TensorType(t.element_type, t.get_shape(), enc))
    owner = value.owner
    if before is not None:
        Rewriter.insert_op(cvt, InsertPoint.before(before))
    elif isinstance(owner, Block):
        Rewriter.insert_op(cvt, InsertPoint.at_start(owner))
    else:
        Rewriter.insert_op(cvt, InsertPoint.after(owner))
    return cvt.result


def _tied_requirements(op: Operation) -> list[tuple[int, Attribute | None]]:
    """(operand index, required encoding) for the operands of scf terminators / loops."""
    out: list[tuple[int, Attribute | None]] = []
    parent = op.parent_op()
    if op.name == "scf.yield" and parent is not None:
        if parent.name in ("scf.for", "scf.if"):
            for i in range(len(op.operands)):
                out.append((i, encoding_of(parent.results[i].type)))
        elif parent.name == "scf.while":
            before = parent.regions[0].block
            for i in range(len(op.operands)):
                out.append((i, encoding_of(before.args[i].type)))
    elif op.name == "scf.condition" and parent is not None:
        after = parent.regions[1].block
        for i in range(1, len(op.operands)):
            out.append((i, encoding_of(after.args[i - 1].type)))
    elif op.name == "scf.for":
        body = op.regions[0].block
        for i in range(3, len(op.operands)):
            out.append((i, encoding_of(body.args[i - 2].type)))
    elif op.name == "scf.while":
        before = op.regions[0].block
        for i in range(len(op.operands)):
            out.append((i, encoding_of(before.args[i].type)))
    elif isinstance(op, ReturnOp) and isinstance(parent, FuncOp):
        outputs = parent.function_type.outputs.data
        for i in range(len(op.operands)):
            if i < len(outputs):
                out.append((i, encoding_of(outputs[i])))
    return out


def _legalize(
    op: Operation, converter: _Converter, sinks: dict[Operation, Attribute], hw: Hardware
) -> None:
    tied = _tied_requirements(op)
    if tied:
        for i, enc in tied:
            if enc is not None and is_tensor(op.operands[i]):
                op.operands[i] = converter.convert(op.operands[i], enc)
        return
    operands = tensor_operands(op)
    if not operands:
        return
    if op in sinks:
        for i in operands:
            op.operands[i] = converter.convert(op.operands[i], sinks[op])
        return
    rule = rule_for(op)
    results = tensor_results(op)
    if rule is None:
        return
    if not results:
        if rule.kind == "sink" and op.name in STORE_LIKE:  # a store no anchor laid out
            enc = encoding_of(op.operands[0].type)
            for i in operands:
                op.operands[i] = converter.convert(op.operands[i], enc)  # type: ignore[arg-type]
        return
    encs = [encoding_of(op.results[i].type) for i in results]
    required = rule.backward(op, encs) if all(e is not None for e in encs) else None  # type: ignore[arg-type]
    if required is None:
        # The chosen result layout cannot be produced: run the op in its operand's layout and
        # convert the result.
        first = op.operands[operands[0]]
        derived = rule.forward(op, operands[0], encoding_of(first.type))  # type: ignore[arg-type]
        if derived is None:
            operand_enc = default_blocked(shape_of(first.type), hw.num_warps, hw.threads_per_warp)
            if op.name == "tl.expand_dims":
                return
            op.operands[operands[0]] = converter.convert(first, operand_enc)
            derived = rule.forward(op, operands[0], operand_enc) or [
                default_blocked(shape_of(op.results[i].type), hw.num_warps, hw.threads_per_warp)
                for i in results
            ]
        for r_idx, new_enc in zip(results, derived, strict=False):
            old = op.results[r_idx]
            old_enc = encoding_of(old.type)
            if new_enc == old_enc:
                continue
            t = old.type
            new = retype(old, TensorType(t.element_type, t.get_shape(), new_enc))  # type: ignore[attr-defined]
            uses = list(new.uses)
            back = converter.convert(new, old_enc)  # type: ignore[arg-type]
            for use in uses:
                use.operation.operands[use.index] = back
        encs = [encoding_of(op.results[i].type) for i in results]
        required = rule.backward(op, encs)  # type: ignore[arg-type]
        if required is None:
            return
    for i, enc in zip(operands, required, strict=False):
        if enc is not ANY:
            op.operands[i] = converter.convert(op.operands[i], enc)


def _fix_signature(func: FuncOp) -> None:
    if not func.body.blocks:
        return
    from xdsl.dialects.builtin import FunctionType

    inputs = [a.type for a in func.body.block.args]
    outputs = list(func.function_type.outputs.data)
    for op in func.body.walk():
        if isinstance(op, ReturnOp):
            outputs = [v.type for v in op.operands]
            break
    func.function_type = FunctionType.from_lists(inputs, outputs)
