"""Layouts as integer set relations in ISL (seed 004), and proofs about them.

:func:`relation` exports a :class:`~llc.linear_layout.LinearLayout` as an ISL map from its
in-dims to its out-dims, in the *quasi-affine* form: bit ``i`` of in-dim ``x`` is
``floor(x / 2^i) mod 2``, and bit ``k`` of an out-dim is the XOR of the in-bits whose basis
vectors have bit ``k`` set: ``(Σ floor(x / 2^i)) mod 2`` (the higher bits each floor carries are
even multiples and drop out). No existential variable per bit is introduced, which keeps
ISL's operations fast. :func:`cute_relation`, :func:`xla_relation` and :func:`swizzle_relation`
build the relations of CuTe layouts (``offset = Σ coordinate · stride`` with ``floor``/``mod``
for nested modes; composed layouts swizzle that sum bit by bit), XLA tiled layouts (XLA's
tiling formula, evaluated on ISL expressions) and CuTe swizzles.

With them llc proves, by ISL's exact set operations (not by sampling):

* :func:`prove_equal`: two layouts are the same map;
* :func:`prove_properties`: a layout is injective, surjective, bijective (and that llc's
  rank-based answers agree);
* :func:`prove_conversion`: a conversion's lowering plan is correct. For a shared-memory plan
  (:func:`llc.swizzle.plan_swizzle`) the *store relation* (source hardware index -> shared
  offset, from the plan's ``store_map``, through the in-thread register relabelling to
  ``store_layout``) composed with the inverse of the *load relation* (destination hardware
  index -> offset) equals ``DST⁻¹∘SRC`` on the indices that store; every tensor element is
  stored, every destination index loads, and no offset is loaded that was not stored. For the
  other strategies the conversion map llc's algebra computed (``src.invert_and_compose(dst)``)
  is proved to lie in ``DST⁻¹∘SRC`` on the whole source domain.

A failed proof carries a counterexample: a hardware index and the two elements.

islpy is an optional dependency (``pip install -e '.[isl]'``); without it these functions raise
:class:`~llc.errors.LayoutError` saying so.

>>> from llc.linear_layout import LinearLayout
>>> a = LinearLayout.from_bases([("register", [[1]]), ("lane", [[2], [4]])], ["dim0"])
>>> rel = relation(a)                         # { hw[register, lane] -> tensor[dim0] : ... }
>>> rel.is_bijective(), str(rel.domain())
(True, '{ hw[register, lane] : 0 <= register <= 1 and 0 <= lane <= 3 }')
>>> b = LinearLayout.from_bases([("register", [[1]]), ("lane", [[4], [2]])], ["dim0"])
>>> proof = prove_equal(a, b)
>>> proof.holds
False
>>> print(proof.details[0])
counterexample: register=0, lane=2 -> LAYOUT: dim0=4; B: dim0=2
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from llc.errors import LayoutError

if TYPE_CHECKING:
    from llc.linear_layout import LinearLayout

__all__ = [
    "Proof",
    "cute_relation",
    "prove_conversion",
    "prove_equal",
    "prove_properties",
    "relation",
    "swizzle_relation",
    "xla_relation",
]


def _isl() -> Any:
    try:
        import islpy
    except ImportError:
        raise LayoutError(
            "proofs need islpy, which is not installed: pip install -e '.[isl]'"
        ) from None
    return islpy


# ------------------------------------------------------------------------------ expressions
def _floor(var: str, i: int) -> str:
    return var if i == 0 else f"floor({var}/{1 << i})"


def _bit(var: str, i: int) -> str:
    return f"({_floor(var, i)} mod 2)"


def _xor_sum(terms: Sequence[str]) -> str:
    """The XOR of bits ``floor(x/2^i)``: since ``floor(x/2^i) ≡ bit i of x (mod 2)``, it is one
    ``mod 2`` of their sum, over divisions ISL shares between all output bits."""
    if not terms:
        return "0"
    return "((" + " + ".join(terms) + ") mod 2)"


def _linear_expressions(layout: LinearLayout, names: Sequence[str]) -> dict[str, str]:
    """Each out-dim of ``layout`` as a quasi-affine expression of the in-dim variables."""
    exprs = {}
    for out in layout.get_out_dim_names():
        bits = layout.get_out_dim_size_log2(out)
        parts = []
        for k in range(bits):
            terms = []
            for name in names:
                if not layout.has_in_dim(name):
                    continue
                for i in range(layout.get_in_dim_size_log2(name)):
                    if (layout.get_basis(name, i, out) >> k) & 1:
                        terms.append(_floor(name, i))
            term = _xor_sum(terms)
            if term != "0":
                parts.append(term if k == 0 else f"{1 << k}*{term}")
        exprs[out] = " + ".join(parts) or "0"
    return exprs


def _map_text(
    in_name: str,
    in_vars: Sequence[tuple[str, int]],
    out_name: str,
    outs: Sequence[tuple[str, str]],
) -> str:
    ins = ", ".join(v for v, _ in in_vars)
    # a name on both sides would state in = out: rename the output's
    taken = {v for v, _ in in_vars}
    outs = [(f"{v}_out" if v in taken else v, e) for v, e in outs]
    out_vars = ", ".join(v for v, _ in outs)
    bounds = [f"0 <= {v} < {size}" for v, size in in_vars]
    equations = [f"{v} = {e}" for v, e in outs]
    cond = " and ".join(bounds + equations)
    return f"{{ {in_name}[{ins}] -> {out_name}[{out_vars}] : {cond} }}"


def relation(
    layout: LinearLayout,
    in_dims: Sequence[str] | None = None,
    in_name: str = "hw",
    out_name: str = "tensor",
) -> Any:
    """``layout`` as an ISL map ``in_name[in-dims] -> out_name[out-dims]``.

    ``in_dims`` fixes the order of the input variables (dims the layout lacks have size 1), so
    that relations of two layouts live in one space.

    >>> from llc.linear_layout import LinearLayout
    >>> swap = LinearLayout.from_bases([("lane", [[0, 1], [1, 0]])], ["dim0", "dim1"])
    >>> rel = relation(swap)
    >>> print(rel.domain())
    { hw[lane] : 0 <= lane <= 3 }
    >>> rel.is_bijective()
    True
    >>> print(rel.intersect_domain(_isl().Set("{ hw[1] }")).range().sample_point())
    { tensor[0, 1] }
    """
    isl = _isl()
    names = list(layout.get_in_dim_names() if in_dims is None else in_dims)
    in_vars = [(n, layout.get_in_dim_size(n) if layout.has_in_dim(n) else 1) for n in names]
    exprs = _linear_expressions(layout, names)
    return isl.Map(_map_text(in_name, in_vars, out_name, list(exprs.items())))


class _Expr:
    """An ISL affine expression built by XLA's tiling code in place of an integer."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __add__(self, other: object) -> _Expr:
        return _Expr(f"({self.text} + {_text(other)})")

    __radd__ = __add__

    def __mul__(self, other: object) -> _Expr:
        if not isinstance(other, int):
            raise LayoutError("xla: a product of two coordinates is not quasi-affine")
        return _Expr(f"({other}*{self.text})")

    __rmul__ = __mul__

    def __floordiv__(self, other: int) -> _Expr:
        return _Expr(f"floor({self.text}/{other})")

    def __mod__(self, other: int) -> _Expr:
        return _Expr(f"({self.text} mod {other})")


def _text(value: object) -> str:
    return value.text if isinstance(value, _Expr) else str(int(value))  # type: ignore[call-overload]


def xla_relation(layout: Any, dims: Sequence[int]) -> Any:
    """An XLA tiled layout (:class:`~llc.layouts.xla.XlaTiledLayout`) on the shape ``dims`` as
    the ISL map ``coord[dim0, ..] -> memory[offset]``: XLA's tiling formula (dim permutation,
    then each tile's ``floor``/``mod`` split, then row-major linearisation) on ISL expressions.

    >>> from llc.layouts.xla import XlaTiledLayout
    >>> rel = xla_relation(XlaTiledLayout.parse("{1,0:T(2,2)}"), (3, 5))
    >>> print(rel.intersect_domain(_isl().Set("{ coord[2, 3] }")).range())
    { memory[offset = 17] }
    """
    isl = _isl()
    dims = tuple(int(d) for d in dims)
    names = [f"dim{i}" for i in range(len(dims))]
    final, shape, _ = layout._tile([_Expr(n) for n in names], dims)
    linear: object = 0
    for e, d in zip(final, shape, strict=True):
        linear = linear * d + e  # type: ignore[operator]
    return isl.Map(
        _map_text(
            "coord", list(zip(names, dims, strict=True)), "memory", [("offset", _text(linear))]
        )
    )


def _swizzle_expr(swizzle: Any, value: str) -> str:
    """``swizzle(value)`` bit by bit: the ``B`` target bits get the source bits XORed in."""
    lo = swizzle.base
    shift = swizzle.shift
    target = (
        range(lo, lo + swizzle.bits) if shift >= 0 else range(lo - shift, lo - shift + swizzle.bits)
    )
    parts = [value]
    for k in target:
        source = k + shift
        mine, other = _bit(f"({value})", k), _bit(f"({value})", source)
        parts.append(f"- {1 << k}*{mine} + {1 << k}*(({mine} + {other}) mod 2)")
    return " ".join(parts)


def swizzle_relation(swizzle: Any, size: int | None = None) -> Any:
    """A CuTe ``Swizzle<B,M,S>`` on ``max(size, its own size)`` offsets as the ISL map
    ``memory[offset] -> memory[offset']``.

    >>> from llc.layouts.cute import CuteSwizzle
    >>> rel = swizzle_relation(CuteSwizzle(1, 2, 1))
    >>> print(rel.intersect_domain(_isl().Set("{ memory[8] }")).range())
    { memory[offset2 = 12] }
    """
    isl = _isl()
    n = max(swizzle.size(), size or 1)
    return isl.Map(
        _map_text(
            "memory", [("offset", n)], "memory", [("offset2", _swizzle_expr(swizzle, "offset"))]
        )
    )


def _flat_modes(shape: Any, stride: Any) -> list[tuple[int, int]]:
    """The (extent, stride) leaves of a nested CuTe mode, first (fastest) leaf first."""
    if isinstance(shape, tuple):
        return [leaf for s, d in zip(shape, stride, strict=True) for leaf in _flat_modes(s, d)]
    return [(int(shape), int(stride))]


def cute_relation(layout: Any) -> Any:
    """A CuTe layout (``CuteLayout`` or ``CuteComposedLayout``) as the ISL map
    ``coord[dim0, ..] -> memory[offset]``, one variable per top-level mode (its integral
    coordinate): nested modes split it with ``floor``/``mod``, ``offset = Σ coordinate ·
    stride``, and a composed layout's swizzle acts on that sum bit by bit.

    >>> from llc.layouts.cute import CuteLayout
    >>> rel = cute_relation(CuteLayout.parse("((2,2),4):((1,8),2)"))
    >>> print(rel.intersect_domain(_isl().Set("{ coord[3, 1] }")).range())
    { memory[offset = 11] }
    """
    from llc.layouts.cute import CuteComposedLayout

    isl = _isl()
    composed = isinstance(layout, CuteComposedLayout)
    inner = layout.layout if composed else layout
    shape, stride = inner.shape, inner.stride
    modes = list(zip(shape, stride, strict=True)) if isinstance(shape, tuple) else [(shape, stride)]
    in_vars, terms = [], []
    for m, (s, d) in enumerate(modes):
        var = f"dim{m}"
        size, below = 1, 1
        for extent, leaf_stride in _flat_modes(s, d):
            size *= extent
            coord = f"(floor({var}/{below}) mod {extent})" if below > 1 else f"({var} mod {extent})"
            if leaf_stride:
                terms.append(f"{leaf_stride}*{coord}")
            below *= extent
        in_vars.append((var, size))
    total = " + ".join(terms) or "0"
    if composed:
        total = _swizzle_expr(layout.swizzle, f"{layout.offset} + {total}")
    return isl.Map(_map_text("coord", in_vars, "memory", [("offset", total)]))


# ------------------------------------------------------------------------------ proofs
# The proofs state their sets over one 0/1 variable per bit of each hardware index (register_0,
# lane_3, ...), each output bit in the quasi-affine form ``(sum of bits) mod 2``. Over the
# integer in-dims (floor(x/2^i) terms) ISL needed 54 s and 228 s for the first two conversions of
# bench/cost_model.py's suite; over bit variables, 0.3 s and 0.5 s.
@dataclass(frozen=True)
class Proof:
    """The outcome of a proof: the ``claim``, whether it ``holds``, ``details`` (facts proved,
    or a counterexample) and the ``seconds`` ISL took."""

    claim: str
    holds: bool
    details: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def report(self) -> str:
        """The text ``llc-layout`` prints.

        >>> print(Proof("A equals B", True, ["checked"], 0.0012).report())
        proved: A equals B (ISL, 1.2 ms)
          checked
        """
        verdict = "proved" if self.holds else "DISPROVED"
        lines = [f"{verdict}: {self.claim} (ISL, {self.seconds * 1e3:.1f} ms)"]
        lines += [f"  {d}" for d in self.details]
        return "\n".join(lines)


_HW = ("register", "lane", "warp", "block")


def _size(layout: LinearLayout, name: str) -> int:
    return layout.get_in_dim_size(name) if layout.has_in_dim(name) else 1


def _bits(sizes: Sequence[tuple[str, int]], suffix: str = "") -> list[tuple[str, str, int]]:
    """``(variable, dim, bit)`` for every bit of every dim."""
    return [
        (f"{name}{suffix}_{i}", name, i)
        for name, size in sizes
        for i in range(size.bit_length() - 1)
    ]


def _terms(layout: LinearLayout, names: Sequence[str], suffix: str = "") -> list[list[str]]:
    """For each out bit of ``layout``, the input bit variables whose XOR it is."""
    out = []
    for o in layout.get_out_dim_names():
        for k in range(layout.get_out_dim_size_log2(o)):
            out.append(
                [
                    f"{n}{suffix}_{i}"
                    for n in names
                    if layout.has_in_dim(n)
                    for i in range(layout.get_in_dim_size_log2(n))
                    if (layout.get_basis(n, i, o) >> k) & 1
                ]
            )
    return out


def _parity(terms: Sequence[str], value: int) -> str:
    return f"(({' + '.join(terms)}) mod 2) = {value}"


def _bit_set(
    variables: Sequence[str], even: Sequence[Sequence[str]], odd: Sequence[Sequence[str]]
) -> Any:
    """``{ bits : every sum in even is even, and some sum in odd is odd }`` (0/1 variables)."""
    isl = _isl()
    tuple_text = f"bits[{', '.join(variables)}]"
    box = " and ".join(f"0 <= {v} <= 1" for v in variables) or "true"
    conds = [_parity(t, 0) for t in even if t]
    result = isl.Set(f"{{ {tuple_text} : false }}")
    for terms in odd:
        if terms:
            text = " and ".join([box, *conds, _parity(terms, 1)])
            result = result.union(isl.Set(f"{{ {tuple_text} : {text} }}"))
    return result


def _decode(
    bits: Sequence[tuple[str, str, int]], values: Sequence[int], names: Sequence[str]
) -> list[int]:
    out = dict.fromkeys(names, 0)
    for (_, name, i), v in zip(bits, values, strict=True):
        out[name] |= v << i
    return [out[n] for n in names]


def _point(s: Any) -> list[int]:
    """The coordinates of the lexicographically smallest point of a non-empty set (so
    counterexamples are small and reproducible)."""
    isl = _isl()
    pt = s.lexmin().sample_point()
    return [
        pt.get_coordinate_val(isl.dim_type.set, i).to_python()
        for i in range(s.dim(isl.dim_type.set))
    ]


def _named(names: Sequence[str], values: Sequence[int] | None) -> str:
    if values is None:
        return "(no element)"
    return ", ".join(f"{n}={v}" for n, v in zip(names, values, strict=True))


def _apply(layout: LinearLayout, names: Sequence[str], index: Sequence[int]) -> list[int]:
    """The element of ``index`` (for the counterexample's text)."""
    given = {n: v for n, v in zip(names, index, strict=True) if layout.has_in_dim(n)}
    result = layout.apply(given)
    return [result[n] for n in layout.get_out_dim_names()]


def prove_equal(a: LinearLayout, b: LinearLayout) -> Proof:
    """Prove that ``a`` and ``b`` map every input to the same output (in-dims a layout lacks
    count as size 1; out-dims must have the same names).

    >>> from llc.linear_layout import LinearLayout
    >>> a = LinearLayout.from_bases([("lane", [[1], [2]])], ["dim0"])
    >>> prove_equal(a, LinearLayout.identity_1d(4, "lane", "dim0")).holds
    True
    """
    if sorted(a.get_out_dim_names()) != sorted(b.get_out_dim_names()):
        raise LayoutError(
            f"the layouts map to different dims: {a.get_out_dim_names()} and "
            f"{b.get_out_dim_names()}; they cannot be equal"
        )
    b = b.transpose_outs(a.get_out_dim_names())
    names = list(a.get_in_dim_names())
    names += [n for n in b.get_in_dim_names() if n not in names]
    start = time.perf_counter()
    outs = a.get_out_dim_names()
    size_text = " x ".join(f"{n} {_size(a, n)}" for n in names)
    different = [n for n in names if _size(a, n) != _size(b, n)]
    if different:
        n = different[0]
        return Proof(
            "LAYOUT equals B",
            False,
            [f"the domains differ: {n} has {_size(a, n)} values in LAYOUT, {_size(b, n)} in B"],
            time.perf_counter() - start,
        )
    bits = _bits([(n, _size(a, n)) for n in names])
    ta, tb = _terms(a, names), _terms(b, names)
    differ = _bit_set([v for v, *_ in bits], [], [x + y for x, y in zip(ta, tb, strict=True)])
    details = []
    equal = bool(differ.is_empty())
    if equal:
        details.append(f"no input of {size_text} maps differently")
    else:
        index = _decode(bits, _point(differ), names)
        details.append(
            f"counterexample: {_named(names, index)} -> LAYOUT: "
            f"{_named(outs, _apply(a, names, index))}; B: {_named(outs, _apply(b, names, index))}"
        )
    return Proof("LAYOUT equals B", equal, details, time.perf_counter() - start)


def _kernel(layout: LinearLayout, names: Sequence[str]) -> tuple[Any, list[tuple[str, str, int]]]:
    """``{ x != 0 : f(x) = 0 }`` over the bits of ``names``, and those bits."""
    bits = _bits([(n, _size(layout, n)) for n in names])
    variables = [v for v, *_ in bits]
    isl = _isl()
    even = [t for t in _terms(layout, names) if t]
    kernel = _bit_set(variables, [], [])
    for v in variables:
        box = " and ".join([*(f"0 <= {w} <= 1" for w in variables), f"{v} = 1"])
        text = " and ".join([box, *(_parity(t, 0) for t in even)])
        kernel = kernel.union(isl.Set(f"{{ bits[{', '.join(variables)}] : {text} }}"))
    return kernel, bits


def _transpose(layout: LinearLayout) -> LinearLayout:
    """The transposed F2 matrix as a layout from ``layout``'s out-dims to its in-dims."""
    from llc.linear_layout import LinearLayout

    ins = layout.get_in_dim_names()
    bases = []
    for out in layout.get_out_dim_names():
        vectors = []
        for k in range(layout.get_out_dim_size_log2(out)):
            vectors.append(
                [
                    sum(
                        ((layout.get_basis(n, i, out) >> k) & 1) << i
                        for i in range(layout.get_in_dim_size_log2(n))
                    )
                    for n in ins
                ]
            )
        bases.append((out, vectors))
    return LinearLayout.from_bases(
        bases, ins, [layout.get_in_dim_size(n) for n in ins], require_surjective=False
    )


def prove_properties(layout: LinearLayout) -> Proof:
    """Decide with ISL whether ``layout`` is injective, surjective and bijective, with a
    counterexample for each property that fails; the proof holds when ISL agrees with llc's
    rank-based :meth:`~LinearLayout.is_injective` / :meth:`~LinearLayout.is_surjective`.

    The map is linear over F2, so ``f(x) = f(y)`` with ``x != y`` exactly when ``f(x ^ y) = 0``:
    injectivity is the emptiness of the kernel. It is surjective exactly when the transposed
    matrix is injective; a nonzero functional ``y`` in that kernel vanishes on the image, so an
    element ``t`` with ``y·t = 1`` is the image of no input.

    >>> from llc.linear_layout import LinearLayout
    >>> bcast = LinearLayout.from_bases([("register", [[0]]), ("lane", [[1]])], ["dim0"], [4],
    ...                                 require_surjective=False)
    >>> proof = prove_properties(bcast)
    >>> proof.holds, proof.claim
    (True, "the layout is not injective and not surjective (ISL agrees with llc's algebra)")
    >>> print("\\n".join(proof.details))
    injective: no: register=0, lane=0 and register=1, lane=0 both map to dim0=0
    surjective: no: dim0=2 is the image of no input
    bijective: no
    """
    names = list(layout.get_in_dim_names())
    outs = layout.get_out_dim_names()
    start = time.perf_counter()
    kernel, bits = _kernel(layout, names)
    injective = bool(kernel.is_empty())
    cokernel, out_bits = _kernel(_transpose(layout), outs)
    surjective = bool(cokernel.is_empty())
    details = []
    if injective:
        details.append("injective: yes")
    else:
        delta = _decode(bits, _point(kernel), names)
        zero = [0] * len(names)
        details.append(
            f"injective: no: {_named(names, zero)} and {_named(names, delta)} both map to "
            f"{_named(outs, _apply(layout, names, zero))}"
        )
    if surjective:
        details.append("surjective: yes")
    else:
        functional = _decode(out_bits, _point(cokernel), outs)
        tensor_bits = _bits([(n, layout.get_out_dim_size(n)) for n in outs])
        odd = [[v for v, n, i in tensor_bits if (functional[outs.index(n)] >> i) & 1]]
        missing = _bit_set([v for v, *_ in tensor_bits], [], odd)
        element = _decode(tensor_bits, _point(missing), outs)
        details.append(f"surjective: no: {_named(outs, element)} is the image of no input")
    details.append(f"bijective: {'yes' if injective and surjective else 'no'}")
    agree = injective == layout.is_injective() and surjective == layout.is_surjective()
    if not agree:
        details.append(
            f"llc's algebra disagrees: is_injective {layout.is_injective()}, is_surjective "
            f"{layout.is_surjective()}"
        )
    found = f"{'' if injective else 'not '}injective and {'' if surjective else 'not '}surjective"
    claim = f"the layout is {found} (ISL agrees with llc's algebra)"
    if not agree:
        claim = f"ISL and llc's algebra agree (ISL finds the layout {found})"
    return Proof(claim, agree, details, time.perf_counter() - start)


def prove_conversion(
    src: LinearLayout, dst: LinearLayout, bitwidth: int = 32, plan: Any = None
) -> Proof:
    """Prove the lowering plan of ``src -> dst`` correct (see the module docstring).

    ``plan`` is a :class:`~llc.swizzle.SwizzlePlan` (or any object with its ``store_layout``,
    ``load_layout``, ``store_map``, ``load_map`` and figures) to check instead of the one llc
    chooses; tests pass broken plans to see the proof fail.

    >>> from llc.layouts import BlockedLayout
    >>> row = BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0]).to_linear_layout([32, 32])
    >>> col = BlockedLayout([4, 1], [4, 8], [1, 4], [0, 1]).to_linear_layout([32, 32])
    >>> proof = prove_conversion(row, col)
    >>> proof.holds, proof.claim
    (True, 'the shared-memory plan (store then load) equals DST⁻¹∘SRC')
    """
    from llc.lowering import plan_conversion
    from llc.swizzle import plan_swizzle

    for what, layout in (("LAYOUT", src), ("DST", dst)):
        if set(layout.get_in_dim_names()) - set(_HW):
            raise LayoutError(f"--prove: {what} is not a distributed layout")
    strategy = "shared" if plan is not None else plan_conversion(src, dst, bitwidth).strategy
    if strategy == "shared":
        if plan is None:
            plan = plan_swizzle(src, dst, bitwidth)
        return _prove_shared(src, dst, plan)
    return _prove_map(src, dst, strategy)


def _prove_map(src: LinearLayout, dst: LinearLayout, strategy: str) -> Proof:
    """llc's conversion map ``F`` (``src.invert_and_compose(dst)``) sends every source index
    ``h`` to a destination index holding the same element: ``{ h, h' : h' = F(h),
    SRC(h) != DST(h') }`` is empty."""
    from llc.conversion import analyze_conversion

    start = time.perf_counter()
    names = list(_HW)
    forward = analyze_conversion(src, dst).forward
    h = _bits([(n, _size(src, n)) for n in names])
    h2 = _bits([(n, _size(dst, n)) for n in names], "2")
    variables = [v for v, *_ in h] + [v for v, *_ in h2]
    # h' = F(h), bit by bit: (h'_bit + F's terms) even
    f_terms = []
    for out in forward.get_out_dim_names():
        for k in range(forward.get_out_dim_size_log2(out)):
            terms = [
                f"{n}_{i}"
                for n in names
                if forward.has_in_dim(n)
                for i in range(forward.get_in_dim_size_log2(n))
                if (forward.get_basis(n, i, out) >> k) & 1
            ]
            if k < _size(dst, out).bit_length() - 1:
                f_terms.append([f"{out}2_{k}", *terms])
    elements = [x + y for x, y in zip(_terms(src, names), _terms(dst, names, "2"), strict=True)]
    bad = _bit_set(variables, f_terms, elements)
    details = [f"strategy: {strategy}; llc's conversion map src.invert_and_compose(dst)"]
    holds = bool(bad.is_empty())
    if holds:
        details.append("sends every source hardware index to one that holds the same element")
    else:
        values = _point(bad)
        idx = _decode(h, values[: len(h)], names)
        out = _decode(h2, values[len(h) :], names)
        details.append(
            f"counterexample: source {_named(names, idx)} holds "
            f"{_named(src.get_out_dim_names(), _apply(src, names, idx))} but the map sends it to "
            f"destination {_named(names, out)}, which holds "
            f"{_named(dst.get_out_dim_names(), _apply(dst, names, out))}"
        )
    return Proof(
        "llc's conversion map lies in DST⁻¹∘SRC on every source index",
        holds,
        details,
        time.perf_counter() - start,
    )


def _prove_shared(src: LinearLayout, dst: LinearLayout, plan: Any) -> Proof:
    start = time.perf_counter()
    names = list(_HW)
    store_layout, load_layout = plan.store_layout, plan.load_layout
    store_map, load_map = plan.store_map, plan.load_map
    h = _bits([(n, _size(store_layout, n)) for n in names])
    h2 = _bits([(n, _size(load_layout, n)) for n in names], "2")
    variables = [v for v, *_ in h] + [v for v, *_ in h2]
    meet = [
        x + y for x, y in zip(_terms(store_map, names), _terms(load_map, names, "2"), strict=True)
    ]
    wrong = [
        x + y
        for x, y in zip(_terms(store_layout, names), _terms(load_layout, names, "2"), strict=True)
    ]
    # (1) a stored and a loaded index meeting at one offset hold the same element
    bad = _bit_set(variables, meet, wrong)
    details = [
        f"plan: {plan.vector_bits} vector, {plan.bank_bits} bank, {plan.segment_bits} segment "
        f"offset bits; store {plan.store_vector}, load {plan.load_vector} elements wide"
    ]
    holds = True
    if not bad.is_empty():
        holds = False
        values = _point(bad)
        idx = _decode(h, values[: len(h)], names)
        out = _decode(h2, values[len(h) :], names)
        offset = _apply(store_map, names, idx)[0]
        details.append(
            f"counterexample: source {_named(names, idx)} holds "
            f"{_named(src.get_out_dim_names(), _apply(store_layout, names, idx))}; destination "
            f"{_named(names, out)} holds "
            f"{_named(dst.get_out_dim_names(), _apply(load_layout, names, out))}; both use "
            f"offset {offset}"
        )
    else:
        details.append("every loaded offset holds the element the destination index needs")
    # (2) every offset a destination index loads was stored: a functional that vanishes on the
    # stored offsets vanishes on the loaded ones
    if holds:
        offsets = [("offset", store_map.get_out_dim_size("offset"))]
        y = _bits(offsets)
        cover = _bit_set(
            [v for v, *_ in y],
            _terms(_transpose(store_map), ["offset"]),
            _terms(_transpose(load_map), ["offset"]),
        )
        if not cover.is_empty():
            holds = False
            details.append("counterexample: a destination index loads an offset never stored")
    # (3) every tensor element is stored
    if holds:
        missing, _ = _kernel(_transpose(store_layout), store_layout.get_out_dim_names())
        if not missing.is_empty():
            holds = False
            details.append("counterexample: a tensor element is never stored")
    # (4) the plan's store/load layouts renumber SRC's/DST's registers within a thread
    for what, mine, theirs in (("store", store_layout, src), ("load", load_layout, dst)):
        if not _same_threads(mine, theirs):
            holds = False
            details.append(f"the plan's {what} layout is not a register renumbering of it")
    if holds:
        details.append(
            "every element is stored, every destination index loads a stored offset; the "
            "store/load layouts renumber registers within each thread"
        )
    return Proof(
        "the shared-memory plan (store then load) equals DST⁻¹∘SRC",
        holds,
        details,
        time.perf_counter() - start,
    )


def _same_threads(mine: LinearLayout, theirs: LinearLayout) -> bool:
    """Same lane/warp/block columns (proved equal with ISL) and the same span of register
    columns (so each thread holds the same elements)."""
    from llc.conversion import in_dim_columns

    for name in _HW[1:]:
        if _size(mine, name) != _size(theirs, name):
            return False
        if _size(mine, name) == 1:
            continue
        a = mine.sublayout([name], mine.get_out_dim_names())
        b = theirs.sublayout([name], theirs.get_out_dim_names())
        if not prove_equal(a, b).holds:
            return False

    def span(layout: LinearLayout) -> set[int]:
        out = {0}
        for column in in_dim_columns(layout, "register"):
            out |= {v ^ column for v in out}
        return out

    return span(mine) == span(theirs)
