"""Generalized vectorization: the widest global/shared access a distributed layout allows.

A thread can move ``2^k`` elements with one vector instruction when ``2^k`` of its registers hold
elements that are contiguous and aligned along the tensor's contiguous dim. In register order
that is Triton's "contiguous elements" test (seed 001: the largest ``u`` with
``L_reg^{-1}(i) = i`` for ``i < u``). Seed 001's *generalized vectorization* goes further:
"permute register values to get a larger number of contiguous elements". Any invertible F2-linear
map on the register index bits is a permutation of a thread's registers, and it costs nothing
(registers are renamed at compile time), so the largest run is decided by the *span* of the
register bases, not by their order:

* ``2^k`` elements are reachable iff the unit offsets ``1, 2, .., 2^(k-1)`` of the contiguous dim
  all lie in the span of the register bases (restricted to that dim, zero in the others), and no
  lane/warp/block basis touches the low ``k`` bits of the contiguous dim (otherwise a thread's
  vector would not start at an aligned offset, or the run would be split across threads);
* the permutation puts those unit offsets first (bases ``j < k`` become ``[.., 2^j]``), then the
  remaining register directions, each reduced so that its low ``k`` contiguous bits are zero (so
  every group of ``2^k`` registers is one aligned vector); broadcast (zero) bases stay zero.

The access width is the run capped at 128 bits (``ld.global.v4.b32``), as Triton caps it.

>>> from llc.linear_layout import LinearLayout
>>> ll = LinearLayout.from_bases(
...     {"register": [[1, 0], [0, 1]], "lane": [[0, 2], [0, 4]], "warp": [], "block": []},
...     ["dim0", "dim1"])
>>> v = largest_vectorization(ll, "f16")
>>> v.identity_run, v.run, v.permutation, v.width_bits
(1, 2, (0, 2, 1, 3), 32)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from llc.cost import dtype_bitwidth
from llc.errors import LayoutError
from llc.linear_layout import LinearLayout

__all__ = ["MAX_ACCESS_BITS", "Vectorization", "largest_vectorization"]

#: The widest single access of one thread (``ld.global.v4.b32`` / ``ld.shared.v4.b32``).
MAX_ACCESS_BITS = 128

_HARDWARE_DIMS = ("lane", "warp", "block")


@dataclass(frozen=True)
class Vectorization:
    """How wide one thread's accesses of a distributed layout can be along ``contig_dim``.

    ``identity_run``: contiguous elements in the register order as given; ``run``: the largest
    run after the register permutation ``permutation`` (``permutation[new] = old`` register
    index); ``layout``: the layout with its registers permuted (``layout.apply(register=new)``
    equals the original at ``register=permutation[new]``); ``vector``: elements per access (the
    run capped at 128 bits); ``width_bits`` / ``identity_width_bits``: the access width with and
    without the permutation; ``accesses``: vector accesses per thread to cover its distinct
    registers.
    """

    contig_dim: str
    bitwidth: int
    registers: int
    distinct_registers: int
    identity_run: int
    run: int
    permutation: tuple[int, ...]
    layout: LinearLayout

    @property
    def vector(self) -> int:
        """Elements per access: the run, capped at 128 bits."""
        return min(self.run, max(1, MAX_ACCESS_BITS // self.bitwidth))

    @property
    def width_bits(self) -> int:
        """Bits per access with the permutation."""
        return self.vector * self.bitwidth

    @property
    def identity_width_bits(self) -> int:
        """Bits per access in the given register order."""
        return min(self.identity_run, max(1, MAX_ACCESS_BITS // self.bitwidth)) * self.bitwidth

    @property
    def accesses(self) -> int:
        """Vector accesses one thread issues to move its distinct registers."""
        return max(1, self.distinct_registers // self.vector)


def _reduce(value: int, combo: int, pivots: dict[int, tuple[int, int]]) -> tuple[int, int]:
    """Reduce ``value`` (tracking the register combination ``combo``) by an F2 echelon basis."""
    while value:
        top = value.bit_length() - 1
        if top not in pivots:
            break
        pivot_value, pivot_combo = pivots[top]
        value ^= pivot_value
        combo ^= pivot_combo
    return value, combo


def _insert(value: int, combo: int, pivots: dict[int, tuple[int, int]]) -> bool:
    value, combo = _reduce(value, combo, pivots)
    if value == 0:
        return False
    pivots[value.bit_length() - 1] = (value, combo)
    return True


def largest_vectorization(
    ll: LinearLayout, dtype: str | int = "f32", contig_dim: str | None = None
) -> Vectorization:
    """The widest access along ``contig_dim`` (default: the last out dim, as in row-major memory).

    Works on any layout with a ``register`` in-dim; lane/warp/block in-dims limit the run by
    alignment (see the module docstring). Raises :class:`LayoutError` naming the parameter for a
    layout without registers or an unknown dim.

    A blocked layout whose registers run along dim0 first (``order = [0, 1]``) has an identity
    run of 1 along dim1; swapping its two register bits doubles it:

    >>> from llc.layouts import BlockedLayout
    >>> blocked = BlockedLayout([2, 2], [4, 8], [1, 1], [0, 1]).to_linear_layout((8, 16))
    >>> v = largest_vectorization(blocked, "f32")
    >>> (v.identity_run, v.run, v.vector, v.width_bits, v.accesses)
    (1, 2, 2, 64, 2)
    >>> v.layout.bases[0]
    ('register', [[0, 1], [1, 0]])
    """
    return _largest_vectorization(ll, dtype_bitwidth(dtype), contig_dim)


@functools.lru_cache(maxsize=1024)
def _largest_vectorization(
    ll: LinearLayout, bitwidth: int, contig_dim: str | None
) -> Vectorization:
    if not ll.has_in_dim("register"):
        raise LayoutError(
            f"vectorize: the layout has no 'register' in-dim (in-dims {ll.get_in_dim_names()}); "
            "only distributed layouts are accessed by threads"
        )
    outs = ll.get_out_dim_names()
    if not outs:
        raise LayoutError("vectorize: the layout has no out dims")
    dim = outs[-1] if contig_dim is None else contig_dim
    if dim not in outs:
        raise LayoutError(f"vectorize: contig_dim '{dim}' is not an out dim of the layout {outs}")
    index = outs.index(dim)
    # Bit-pack each basis as one int: the contiguous dim in the low bits, the others above it,
    # so "zero in the other dims and equal to 2^j" is just "== 1 << j".
    shift = ll.get_out_dim_size_log2(dim)
    others = [i for i in range(len(outs)) if i != index]

    def pack(vector: tuple[int, ...]) -> int:
        packed, offset = vector[index], shift
        for i in others:
            packed |= vector[i] << offset
            offset += ll.get_out_dim_size_log2(outs[i])
        return packed

    regs = [pack(ll.basis("register", i)) for i in range(ll.get_in_dim_size_log2("register"))]
    hardware = [
        pack(ll.basis(name, i))
        for name in _HARDWARE_DIMS
        if ll.has_in_dim(name)
        for i in range(ll.get_in_dim_size_log2(name))
    ]
    hardware_low = 0
    for value in hardware:
        hardware_low |= value
    contig_size_log2 = shift

    # Identity run: leading register bases equal to the unit offsets, and everything else aligned.
    identity_k = 0
    while identity_k < min(len(regs), contig_size_log2):
        mask = (1 << (identity_k + 1)) - 1
        if regs[identity_k] != 1 << identity_k or hardware_low & mask:
            break
        if any(v & mask for v in regs[identity_k + 1 :]):
            break
        identity_k += 1

    # Permuted run: unit offsets in the span of the register bases.
    pivots: dict[int, tuple[int, int]] = {}
    for i, value in enumerate(regs):
        _insert(value, 1 << i, pivots)
    combos: list[int] = []
    k = 0
    while k < contig_size_log2 and not hardware_low & (1 << k):
        residual, combo = _reduce(1 << k, 0, pivots)
        if residual:
            break
        combos.append(combo)
        k += 1

    # Complete the change of register basis: original unit register bits, each made independent
    # of the chosen ones; a basis whose value has low contiguous bits gets them cleared by
    # adding the matching unit combinations (still the same span, now aligned).
    chosen: dict[int, int] = {}  # F2 elimination on the register-index combos
    new_combos: list[int] = []

    def take(combo: int) -> bool:
        reduced = combo
        while reduced:
            top = reduced.bit_length() - 1
            if top not in chosen:
                chosen[top] = reduced
                new_combos.append(combo)
                return True
            reduced ^= chosen[top]
        return False

    for combo in combos:
        take(combo)
    low_mask = (1 << k) - 1
    for i in range(len(regs)):
        combo = 1 << i
        low = regs[i] & low_mask
        for j in range(k):
            if low >> j & 1:
                combo ^= combos[j]
        take(combo)
    if len(new_combos) != len(regs):  # pragma: no cover - the unit bits always complete it
        raise LayoutError("vectorize: internal error: the register change of basis is singular")

    def old_index(new: int) -> int:
        old, bit = 0, 0
        while new:
            if new & 1:
                old ^= new_combos[bit]
            new >>= 1
            bit += 1
        return old

    permutation = tuple(old_index(r) for r in range(1 << len(regs)))
    bases = {
        name: [list(ll.basis(name, i)) for i in range(ll.get_in_dim_size_log2(name))]
        for name in ll.get_in_dim_names()
    }
    bases["register"] = [[ll.apply(_at(ll, combo))[o] for o in outs] for combo in new_combos]
    permuted = LinearLayout.from_bases(
        list(bases.items()),
        outs,
        [ll.get_out_dim_size(o) for o in outs],
        require_surjective=False,
    )
    distinct = 1 << _rank(regs)
    return Vectorization(
        dim, bitwidth, 1 << len(regs), distinct, 1 << identity_k, 1 << k, permutation, permuted
    )


def _at(ll: LinearLayout, register: int) -> dict[str, int]:
    return {n: (register if n == "register" else 0) for n in ll.get_in_dim_names()}


def _rank(values: list[int]) -> int:
    pivots: dict[int, tuple[int, int]] = {}
    return sum(_insert(v, 0, pivots) for v in values)
