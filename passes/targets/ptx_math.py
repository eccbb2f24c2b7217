"""Software f64 math for ``-t ptx``: PTX has ``sqrt.rn.f64``/``div.rn.f64``/``fma.rn.f64`` but no
f64 ``ex2``/``lg2``/``sin``/``cos``/``tanh``, so these are range reduction + polynomial sequences.

Every sequence is a list of :class:`Instr` over symbolic registers (``x`` the operand, ``d`` the
result; ``f*`` f64, ``i*`` s32, ``p*`` predicates), written once in :data:`F64_SEQUENCES`. The same
list is rendered to PTX (:func:`render`, by :mod:`llc.passes.targets.ptx`) and evaluated by an
exact Python model of those PTX instructions (:func:`evaluate`: IEEE round-to-nearest, ``fma``
rounded once), which is how the tests measure the emitted code's accuracy without a GPU.

Reductions: ``exp``/``exp2``/``expm1`` split ``x = k ln2 + r`` (|r| <= ln2/2, Cody-Waite with a
two-part ln2) and scale by 2^k in two steps (one rounding, also for subnormal results); ``log``
splits ``x = 2^e m`` (sqrt(1/2) <= m < sqrt(2)) and sums ``log1p(f) = f - s (f - R)`` with ``s =
f/(2+f)``, ``R`` the atanh series in ``s^2``; ``sin``/``cos`` reduce by pi/2 in three parts (a few
ulp for |x| < 1e5: there is no Payne-Hanek reduction for huge arguments); ``tanh`` is ``e/(e+2)``
with ``e = expm1(2|x|)``. The polynomials are Taylor series (coefficients exact rationals rounded
once), long enough that their truncation error is below 2^-60 relative on the reduced interval.

>>> import math
>>> abs(evaluate("math.exp", 1.0) - math.e) <= math.ulp(math.e)
True
>>> render("math.sqrt", "%fd1", ["%fd0"], lambda kind: "%t")
['sqrt.rn.f64 %fd1, %fd0;']
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import cache

__all__ = ["F64_SEQUENCES", "Instr", "erfc_scaled", "evaluate", "render"]


@dataclass(frozen=True)
class Instr:
    """One PTX instruction of a sequence: ``op`` (a key of :data:`_PTX`), destination, sources
    (register names or numbers)."""

    op: str
    dest: str
    srcs: tuple[str | float | int, ...]


# -- constants (computed, not copied: ln2 from Decimal, pi from its digits) ------------------


def _constants() -> dict[str, Decimal]:
    with localcontext() as ctx:  # 60 digits, without touching the caller's decimal context
        ctx.prec = 60
        pi = Decimal("3.14159265358979323846264338327950288419716939937510582097494459230781")
        ln2, ln10 = Decimal(2).ln(), Decimal(10).ln()
        return {
            "ln2": ln2, "log2e": 1 / ln2, "log10e": 1 / ln10, "log10_2": ln2 / ln10,
            "pio2": pi / 2, "pio4": pi / 4, "two_over_pi": 2 / pi, "two_thirds": Decimal(2) / 3,
        }  # fmt: skip


_C = _constants()
_LN2 = _C["ln2"]


def _split(value: Decimal, parts: int, zero_bits: int = 0) -> list[float]:
    """``value`` as a sum of doubles; with ``zero_bits``, the first keeps only 53 - zero_bits
    significant bits (so small integer multiples of it are exact)."""
    out, rest = [], value
    with localcontext() as ctx:
        ctx.prec = 60
        for i in range(parts):
            head = float(rest)
            if i == 0 and zero_bits:
                m, e = math.frexp(head)
                head = math.ldexp(math.floor(m * 2 ** (53 - zero_bits)), e - (53 - zero_bits))
            out.append(head)
            rest -= Decimal(head)
    return out


LN2_HI, LN2_LO = _split(_LN2, 2, zero_bits=21)
LOG2E = float(_C["log2e"])
LOG10E = float(_C["log10e"])
PIO2_1, PIO2_2, PIO2_3 = _split(_C["pio2"], 3)
PIO4_HI, PIO4_LO = _split(_C["pio4"], 2)
PI_HI, PI_LO = _split(_C["pio2"] * 2, 2)
TWO_THIRDS = _split(_C["two_thirds"], 2)
TWO_OVER_PI = float(_C["two_over_pi"])


def _coefficients(terms: list[Fraction]) -> list[float]:
    return [float(t) for t in terms]


# Taylor coefficients, highest degree first (Horner order)
_EXP_TAIL = _coefficients([Fraction(1, math.factorial(n)) for n in range(14, 1, -1)])
"""exp(r) = 1 + r + r^2 (1/2 + r/6 + ... + r^12/14!)."""
_ATANH = _coefficients([Fraction(2, 2 * n + 1) for n in range(11, 0, -1)])
"""2 atanh(s)/s - 2 = z (2/3 + 2z/5 + ...), z = s^2."""
_SIN = _coefficients([Fraction((-1) ** n, math.factorial(2 * n + 1)) for n in range(8, 0, -1)])
"""sin(r) = r + r^3 (-1/3! + r^2/5! - ...)."""
_ATAN = _coefficients([Fraction((-1) ** n, 2 * n + 1) for n in range(24, 0, -1)])
"""atan(t) = t + t^3 (-1/3 + t^2/5 - ...), |t| <= tan(pi/8)."""
_COS = _coefficients([Fraction((-1) ** n, math.factorial(2 * n)) for n in range(9, 1, -1)])
"""cos(r) = 1 - r^2/2 + r^4 (1/4! - r^2/6! + ...)."""


# -- the sequences ----------------------------------------------------------------------------


class _Seq:
    """A sequence under construction (fresh symbolic registers, ``emit`` returns the dest)."""

    def __init__(self) -> None:
        self.code: list[Instr] = []
        self.n = 0

    def __call__(self, op: str, *srcs: str | float | int, dest: str = "") -> str:
        if not dest:
            self.n += 1
            dest = f"{_PTX[op][1]}{self.n}"
        self.code.append(Instr(op, dest, srcs))
        return dest

    def horner(self, z: str, coefficients: list[float]) -> str:
        acc = self("mov", coefficients[0])
        for c in coefficients[1:]:
            acc = self("fma", acc, z, c)
        return acc


def _exp_core(
    s: _Seq, x: str, scale: float, minus_one: bool, halve: bool = False, low: str = ""
) -> str:
    """exp(x) reduced as k = rint(x log2e), r = x - k ln2 (scale 1), or exp2(x) with k = rint(x),
    r = (x - k) ln2 (scale 0); ``minus_one``: expm1; ``low``: a tiny addend of x (the low part
    of a double-double exponent). x must be clamped (|x| <= 750) by the caller."""
    if scale:
        kf = s("rni", s("mul", x, LOG2E))
        nk = s("neg", kf)
        r = s("fma", nk, LN2_LO, s("fma", nk, LN2_HI, x))
        r = s("add", r, low) if low else r
    else:
        kf = s("rni", x)
        r = s("mul", s("sub", x, kf), float(_LN2))
    k = s("cvt_s32", kf)
    if halve:  # e^x / 2 without overflowing first (sinh/cosh past 709)
        k = s("sub_s32", k, 1)
    # q = expm1(r) = r + r^2 * P(r)
    q = s("fma", s("mul", r, r), s.horner(r, _EXP_TAIL), r)
    k2 = s("shr_s32", k, 1)
    k1 = s("sub_s32", k, k2)
    two_k1 = s("pow2", k1)
    two_k2 = s("pow2", k2)
    if not minus_one:
        p = s("add", q, 1.0)
        return s("mul", s("mul", p, two_k1), two_k2)
    # expm1 (x <= 709 so 2^k is finite): 2^k q + (2^k - 1), rounded once
    two_k = s("mul", two_k1, two_k2)
    return s("fma", two_k, q, s("sub", two_k, 1.0))


def _nan_through(s: _Seq, x: str, y: str) -> str:
    """y, or x where x is NaN (min/max clamps drop NaNs)."""
    nan = s("setp_nan", x, x)
    return s("selp", x, y, nan)


def _tiny_is_x(s: _Seq, y: str, threshold: float) -> str:
    """x where |x| < threshold (the function rounds to x there; keeps -0.0's sign)."""
    return s("selp", "x", y, s("setp_lt", s("abs", "x"), threshold))


def _exp(kind: str) -> Callable[[_Seq], str]:
    def build(s: _Seq) -> str:
        if kind == "exp2":
            xc = s("min", s("max", "x", -1080.0), 1030.0)
            return _nan_through(s, "x", _exp_core(s, xc, 0.0, False))
        xc = s("min", s("max", "x", -750.0), 710.0)
        if kind == "exp":
            return _nan_through(s, "x", _exp_core(s, xc, 1.0, False))
        small = _exp_core(s, s("min", s("max", "x", -60.0), 709.0), 1.0, True)
        big = _exp_core(s, xc, 1.0, False)
        above = s("setp_gt", "x", 709.0)
        y = _nan_through(s, "x", s("selp", big, small, above))
        return _tiny_is_x(s, y, 2.0**-54)

    return build


def _log_of(s: _Seq, x: str, scale: float = 0.0, per_octave: float = 0.0) -> str:
    """log(x) (scale 0), or log_b(x) with ``scale`` = log_b(e), ``per_octave`` = log_b(2); every
    x, special values included."""
    # subnormals: scale by 2^54 first
    tiny = s("setp_lt", x, 2.2250738585072014e-308)
    xs = s("selp", s("mul", x, 18014398509481984.0), x, tiny)
    bias = s("selp_s32", 1023 + 54, 1023, tiny)
    hi = s("hi", xs)
    e = s("sub_s32", s("shr_s32", hi, 20), bias)
    mhi = s("or_b32", s("and_b32", hi, 0x000FFFFF), 0x3FF00000)
    m = s("with_hi", xs, mhi)
    big = s("setp_gt", m, 1.4142135623730951)
    m = s("selp", s("mul", m, 0.5), m, big)
    e = s("add_s32", e, s("selp_s32", 1, 0, big))
    ef = s("cvt_f64", e)
    f = s("sub", m, 1.0)
    sv = s("div", f, s("add", f, 2.0))
    z = s("mul", sv, sv)
    r = s("mul", z, s.horner(z, _ATANH))
    # log1p(f) = f - s (f - R); log(x) = e ln2_hi + (log1p(f) + e ln2_lo)
    lp = s("sub", f, s("mul", sv, s("sub", f, r)))
    if scale:  # log2 / log10: e log_b(2) + log1p(f) log_b(e)
        y = s("fma", ef, per_octave, s("mul", lp, scale))
    else:
        y = s("fma", ef, LN2_HI, s("fma", ef, LN2_LO, lp))
    # x < 0 or NaN: NaN; 0: -inf; +inf: +inf
    y = s("selp", float("-inf"), y, s("setp_eq", x, 0.0))
    y = s("selp", float("inf"), y, s("setp_eq", x, float("inf")))
    y = s("selp", float("nan"), y, s("setp_lt", x, 0.0))
    return s("selp", x, y, s("setp_nan", x, x))


def _log(scale: float, per_octave: float) -> Callable[[_Seq], str]:
    return lambda s: _log_of(s, "x", scale, per_octave)


def _log1p_of(s: _Seq, x: str) -> str:
    """log1p(x) = log(u) + (x - (u - 1)) / u with u = 1 + x rounded (the quotient puts back what
    the rounding of u lost; u = 1 leaves x itself)."""
    u = s("add", x, 1.0)
    lost = s("sub", x, s("sub", u, 1.0))
    y = s("add", _log_of(s, u), s("div", lost, u))
    y = s("selp", u, y, s("setp_eq", u, float("inf")))  # x = +inf (lost is NaN there)
    y = s("selp", float("-inf"), y, s("setp_eq", u, 0.0))  # x = -1 (0/0 there)
    return s("selp", x, y, s("setp_eq", u, 1.0))


def _atan_of(s: _Seq, x: str) -> str:
    """atan(x): |x| > 1 -> pi/2 - atan(1/|x|); then t > tan(pi/8) -> pi/4 + atan((t-1)/(t+1));
    a Taylor series on |t| <= tan(pi/8)."""
    a = s("abs", x)
    inverted = s("setp_gt", a, 1.0)
    t = s("selp", s("div", 1.0, a), a, inverted)
    shifted = s("setp_gt", t, 0.41421356237309503)
    t = s("selp", s("div", s("sub", t, 1.0), s("add", t, 1.0)), t, shifted)
    z = s("mul", t, t)
    p = s("fma", s("mul", z, t), s.horner(z, _ATAN), t)
    p = s("selp", s("add", PIO4_HI, s("add", p, PIO4_LO)), p, shifted)
    p = s("selp", s("add", s("sub", PIO2_1, p), PIO2_2), p, inverted)
    return s("selp", x, s("copysign", x, p), s("setp_nan", x, x))


def _unary(core: Callable[[_Seq, str], str]) -> Callable[[_Seq], str]:
    return lambda s: core(s, "x")


def _asin(s: _Seq) -> str:
    # asin x = atan(x / sqrt((1 - x)(1 + x))); 1 - x is exact where it matters (x near 1)
    root = s("sqrt", s("mul", s("sub", 1.0, "x"), s("add", "x", 1.0)))
    y = _atan_of(s, s("div", "x", root))
    return _tiny_is_x(s, y, 2.0**-27)


def _acos(s: _Seq) -> str:
    # acos x = 2 atan(sqrt((1 - x) / (1 + x)))
    q = s("div", s("sub", 1.0, "x"), s("add", "x", 1.0))
    y = s("mul", _atan_of(s, s("sqrt", q)), 2.0)
    return _nan_through(s, "x", y)


def _asinh(s: _Seq) -> str:
    # asinh a = log1p(a + a^2 / (1 + sqrt(1 + a^2))); past 2^28, log(a) + ln2
    a = s("abs", "x")
    a2 = s("mul", a, a)
    small = _log1p_of(s, s("add", a, s("div", a2, s("add", s("sqrt", s("add", a2, 1.0)), 1.0))))
    large = s("add", _log_of(s, a), float(_LN2))
    y = s("selp", large, small, s("setp_gt", a, 268435456.0))
    return _nan_through(s, "x", s("copysign", "x", y))


def _acosh(s: _Seq) -> str:
    # acosh x = log1p(t + sqrt(2t + t^2)), t = x - 1; past 2^28, log(x) + ln2
    t = s("sub", "x", 1.0)
    small = _log1p_of(s, s("add", t, s("sqrt", s("fma", t, t, s("add", t, t)))))
    large = s("add", _log_of(s, "x"), float(_LN2))
    y = s("selp", large, small, s("setp_gt", "x", 268435456.0))
    return s("selp", float("nan"), y, s("setp_lt", "x", 1.0))


def _atanh(s: _Seq) -> str:
    # atanh a = log1p(2a / (1 - a)) / 2
    a = s("abs", "x")
    y = s("mul", _log1p_of(s, s("div", s("add", a, a), s("sub", 1.0, a))), 0.5)
    y = s("selp", float("nan"), y, s("setp_gt", a, 1.0))
    y = _nan_through(s, "x", s("copysign", "x", y))
    return _tiny_is_x(s, y, 2.0**-27)


def _reduce_pio2(s: _Seq) -> tuple[str, str, str]:
    """(sin r, cos r, quadrant k mod 4) with x = k pi/2 + r, |r| <= pi/4."""
    kf = s("rni", s("mul", "x", TWO_OVER_PI))
    nk = s("neg", kf)
    r = s("fma", nk, PIO2_3, s("fma", nk, PIO2_2, s("fma", nk, PIO2_1, "x")))
    z = s("mul", r, r)
    sin_r = s("fma", s("mul", z, r), s.horner(z, _SIN), r)
    cos_r = s("fma", z, s("fma", z, s.horner(z, _COS), -0.5), 1.0)
    return sin_r, cos_r, s("and_b32", s("cvt_s32", kf), 3)


def _sincos(kind: str) -> Callable[[_Seq], str]:
    def build(s: _Seq) -> str:
        sin_r, cos_r, quadrant = _reduce_pio2(s)
        odd = s("setp_ne_s32", s("and_b32", quadrant, 1), 0)
        if kind == "tan":  # odd quadrants: -cos/sin
            y = s("div", s("selp", s("neg", cos_r), sin_r, odd), s("selp", sin_r, cos_r, odd))
        else:
            if kind == "cos":
                quadrant = s("and_b32", s("add_s32", quadrant, 1), 3)
                odd = s("setp_ne_s32", s("and_b32", quadrant, 1), 0)
            # quadrant 0: sin, 1: cos, 2: -sin, 3: -cos
            y = s("selp", cos_r, sin_r, odd)
            flip = s("setp_ne_s32", s("and_b32", quadrant, 2), 0)
            y = s("selp", s("neg", y), y, flip)
        inf = s("setp_eq", s("abs", "x"), float("inf"))
        y = s("selp", float("nan"), y, inf)
        return y if kind == "cos" else _tiny_is_x(s, y, 2.0**-27)

    return build


def _hyperbolic(kind: str) -> Callable[[_Seq], str]:
    """sinh = (E + E/(E+1))/2 with E = expm1(|x|) (no cancellation near 0), cosh = (e + 1/e)/2;
    past |x| = 709 both are e^(|x|-ln2) = e^|x| / 2 computed without overflowing early."""

    def build(s: _Seq) -> str:
        a = s("abs", "x")
        if kind == "sinh":
            e = _exp_core(s, s("min", a, 709.0), 1.0, True)
            y = s("mul", s("add", e, s("div", e, s("add", e, 1.0))), 0.5)
        else:
            e = _exp_core(s, s("min", a, 709.0), 1.0, False)
            y = s("mul", s("add", e, s("div", 1.0, e)), 0.5)
        big = _exp_core(s, s("min", a, 711.0), 1.0, False, halve=True)
        y = s("selp", big, y, s("setp_gt", a, 709.0))
        y = s("copysign", "x", y) if kind == "sinh" else y
        y = _nan_through(s, "x", y)
        return _tiny_is_x(s, y, 2.0**-27) if kind == "sinh" else y

    return build


def _round_half_away(s: _Seq) -> str:
    r = s("rzi", "x")
    up = s("add", r, s("copysign", "x", 1.0))
    return s("selp", up, r, s("setp_ge", s("abs", s("sub", "x", r)), 0.5))


def _tanh(s: _Seq) -> str:
    a = s("min", s("abs", "x"), 22.0)
    e = _exp_core(s, s("add", a, a), 1.0, True)
    t = s("div", e, s("add", e, 2.0))
    return _nan_through(s, "x", s("copysign", "x", t))


def _cbrt(s: _Seq) -> str:
    # y0 from the exponent bits divided by 3 (about 7% off), then Newton y <- y - (y - a/y^2)/3
    # four times (quadratic: 7% -> 5e-3 -> 3e-5 -> 6e-10 -> 4e-19); subnormals scaled by 2^54
    a = s("abs", "x")
    tiny = s("setp_lt", a, 2.2250738585072014e-308)
    a = s("selp", s("mul", a, 18014398509481984.0), a, tiny)
    y = s("from_hi", s("add_s32", s("div_u32", s("hi", a), 3), 715128832))
    for _ in range(4):
        y = s("fma", s("sub", s("div", a, s("mul", y, y)), y), 1.0 / 3.0, y)
    y = s("selp", s("mul", y, 2.0**-18), y, tiny)
    y = s("copysign", "x", y)
    special = s("setp_eq", s("mul", "x", 0.0), 0.0)  # false for 0 * inf and NaN
    y = s("selp", y, "x", special)
    return s("selp", "x", y, s("setp_eq", "x", 0.0))


def _atan2(s: _Seq) -> str:
    # atan2(x, y) (MLIR's operand order: x over y): atan(|x|/|y|), from pi when y's sign is
    # negative (-0 included), with x's sign; 0/0 -> 0 and inf/inf -> 1 before the atan
    ax, ay = s("abs", "x"), s("abs", "y")
    r = s("div", ax, ay)
    r = s("selp", 0.0, r, s("setp_eq", ax, 0.0))
    r = s("selp", 1.0, r, s("setp_nan", r, r))  # only inf/inf is left (NaN inputs: below)
    a = _atan_of(s, r)
    from_pi = s("setp_lt", s("copysign", "y", 1.0), 0.0)
    a = s("selp", s("add", s("sub", PI_HI, a), PI_LO), a, from_pi)
    a = s("selp", PIO2_1, a, s("setp_eq", r, float("inf")))  # pi/2 on both sides, rounded once
    y = s("copysign", "x", a)
    return s("selp", float("nan"), y, s("setp_nan", "x", "y"))


def erfc_scaled(x: Decimal) -> Decimal:
    """erfc(x) e^(x^2) to ~70 digits: erf from its series of positive terms, sum_n (2x^2)^n x /
    (2n+1)!!, which has no cancellation (the reference erf's Chebyshev fit interpolates).

    >>> round(float(erfc_scaled(Decimal(1))), 12)
    0.427583576156
    """
    with localcontext() as ctx:
        ctx.prec = 80
        z, term, total, n = x * x, x, Decimal(0), 0
        while term > total * Decimal(10) ** -70 or not total:
            total += term
            n += 1
            term = term * 2 * z / (2 * n + 1)
        root_pi = (_C["pio2"] * 2).sqrt()
        return (1 - 2 / root_pi * total / z.exp()) * z.exp()


def _decimal_cos(a: Decimal) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = 60
        total, term, n = Decimal(0), Decimal(1), 0
        while abs(term) > Decimal(10) ** -58:
            total += term
            n += 2
            term = -term * a * a / (n * (n - 1))
        return total


@cache
def _chebyshev(lo: int, hi: int, degree: int) -> list[float]:
    """Chebyshev coefficients of erfc(x) e^(x^2) interpolated on [lo, hi] (exact nodes; the
    coefficients past ``degree`` are below 1e-18)."""
    with localcontext() as ctx:
        ctx.prec = 60
        count, pi = degree + 1, _C["pio2"] * 2
        nodes = [_decimal_cos(pi * (i + Decimal("0.5")) / count) for i in range(count)]
        values = [erfc_scaled((hi - lo) * t / 2 + Decimal(hi + lo) / 2) for t in nodes]
        out = []
        for j in range(count):
            total = sum(
                v * _decimal_cos(pi * j * (i + Decimal("0.5")) / count)
                for i, v in enumerate(values)
            )
            out.append(total * 2 / count / (2 if j == 0 else 1))
        return [float(c) for c in out]


def _erf(s: _Seq) -> str:
    # |x| < 1: x (2/sqrt(pi)) sum_n (-1)^n x^2n / (n! (2n+1)); 1 <= |x|: 1 - e^(-x^2) g(|x|), g =
    # erfc(x) e^(x^2) by a Chebyshev interpolant on [1, 6] (erf rounds to 1 past 6), e^(-x^2)
    # with x^2 = hi + lo exactly (lo by fma)
    root_pi = float((_C["pio2"] * 2).sqrt())
    a = s("abs", "x")
    z = s("mul", "x", "x")
    taylor = _coefficients(
        [Fraction((-1) ** n, math.factorial(n) * (2 * n + 1)) for n in range(21, 0, -1)]
    )
    taylor = [c * 2 / root_pi for c in taylor]
    small = s("fma", s("mul", "x", z), s.horner(z, taylor), s("mul", "x", 2 / root_pi))
    ac = s("min", a, 6.0)
    coefficients = _chebyshev(1, 6, 30)
    t = s("mul", s("sub", s("add", ac, ac), 7.0), 0.2)
    t2 = s("add", t, t)
    b1, b2 = s("mov", coefficients[-1]), None
    for c in reversed(coefficients[1:-1]):
        b1, b2 = s("fma", t2, b1, c if b2 is None else s("sub", c, b2)), b1
    assert b2 is not None
    g = s("fma", t, b1, s("sub", coefficients[0], b2))
    hi = s("mul", ac, ac)
    lo = s("fma", ac, ac, s("neg", hi))
    e = _exp_core(s, s("neg", hi), 1.0, False)
    e = s("fma", s("neg", e), lo, e)
    large = s("copysign", "x", s("sub", 1.0, s("mul", e, g)))
    y = s("selp", small, large, s("setp_lt", a, 1.0))
    y = s("selp", "x", y, s("setp_eq", "x", 0.0))  # keeps -0.0
    return _nan_through(s, "x", y)


def _two_sum(s: _Seq, a: str, b: str) -> tuple[str, str]:
    """a + b = hi + lo exactly (Knuth's TwoSum)."""
    hi = s("add", a, b)
    bb = s("sub", hi, a)
    lo = s("add", s("sub", a, s("sub", hi, bb)), s("sub", b, bb))
    return hi, lo


def _log_double(s: _Seq, x: str) -> tuple[str, str]:
    """log(x) = hi + lo to about 2^-68 relative, for positive normal or subnormal finite x:
    as log, with s = f/(2+f) and 2s carried in double-double (the series tail needs less)."""
    tiny = s("setp_lt", x, 2.2250738585072014e-308)
    xs = s("selp", s("mul", x, 18014398509481984.0), x, tiny)
    hi = s("hi", xs)
    e = s("sub_s32", s("shr_s32", hi, 20), s("selp_s32", 1023 + 54, 1023, tiny))
    m = s("with_hi", xs, s("or_b32", s("and_b32", hi, 0x000FFFFF), 0x3FF00000))
    big = s("setp_gt", m, 1.4142135623730951)
    m = s("selp", s("mul", m, 0.5), m, big)
    ef = s("cvt_f64", s("add_s32", e, s("selp_s32", 1, 0, big)))
    f = s("sub", m, 1.0)
    uh = s("add", f, 2.0)
    ul = s("add", s("sub", 2.0, uh), f)  # 2 + f = uh + ul exactly
    sh = s("div", f, uh)
    rest = s("sub", s("fma", s("neg", sh), uh, f), s("mul", sh, ul))
    sl = s("div", rest, uh)  # s = sh + sl
    # 2 atanh(s) = 2s + (2/3) s^3 + s^5 (2/5 + ...): 2s and (2/3) s^3 in double-double
    zh = s("mul", sh, sh)
    zl = s("fma", sh, sh, s("neg", zh))
    cube = s("mul", zh, sh)
    cube_lo = s("fma", zh, sh, s("neg", cube))
    cube_lo = s("fma", zl, sh, s("fma", s("mul", zh, 3.0), sl, cube_lo))
    t3 = s("mul", cube, TWO_THIRDS[0])
    t3_lo = s("fma", cube, TWO_THIRDS[0], s("neg", t3))
    t3_lo = s("fma", cube_lo, TWO_THIRDS[0], s("fma", cube, TWO_THIRDS[1], t3_lo))
    rest = s("mul", s("mul", cube, zh), s.horner(zh, _ATANH[:-1]))
    h1, l1 = _two_sum(s, s("mul", ef, LN2_HI), s("add", sh, sh))
    h2, l2 = _two_sum(s, h1, t3)
    small = s("add", s("add", l1, l2), s("add", s("add", sl, sl), t3_lo))
    small = s("add", small, s("fma", ef, LN2_LO, rest))
    top = s("add", h2, small)
    return top, s("sub", small, s("sub", top, h2))


def _pow(s: _Seq) -> str:
    # |x|^y = exp(y log|x|) with log|x| and y log|x| in double-double; then C's special cases
    ax = s("abs", "x")
    lh, ll = _log_double(s, ax)
    ph = s("mul", "y", lh)
    pl = s("fma", "y", ll, s("fma", "y", lh, s("neg", ph)))
    clamped = s("min", s("max", ph, -750.0), 710.0)
    pl = s("min", s("max", pl, -1.0), 1.0)  # only matters unclamped, where |pl| < 2^-40
    r = _exp_core(s, clamped, 1.0, False, low=pl)
    y_neg, y_pos = s("setp_lt", "y", 0.0), s("setp_gt", "y", 0.0)
    # a zero or infinite base: 0 or inf by the sign of y (and of the base's log)
    r = s("selp", s("selp", float("inf"), 0.0, y_neg), r, s("setp_eq", ax, 0.0))
    r = s("selp", s("selp", 0.0, float("inf"), y_neg), r, s("setp_eq", ax, float("inf")))
    # an infinite exponent: 0 or inf by |x| against 1
    grows = s("setp_eq_pred", s("setp_gt", ax, 1.0), y_pos)
    y_inf = s("setp_eq", s("abs", "y"), float("inf"))
    r = s("selp", s("selp", float("inf"), 0.0, grows), r, y_inf)
    # a negative base: NaN for a finite non-integer y, the sign of x for an odd integer y
    integral = s("setp_eq", s("rni", "y"), "y")
    half = s("mul", "y", 0.5)
    odd = s("and_pred", integral, s("setp_ne", s("rni", half), half))
    negative = s("setp_lt", s("copysign", "x", 1.0), 0.0)
    r = s("selp", s("neg", r), r, s("and_pred", negative, odd))
    finite_negative = s("and_pred", s("setp_lt", "x", 0.0), s("setp_gt", "x", float("-inf")))
    bad = s("and_pred", finite_negative, s("not_pred", integral))
    r = s("selp", float("nan"), r, bad)
    r = s("selp", float("nan"), r, s("setp_nan", "x", "y"))
    # 1 whatever the other operand: y = 0, x = 1, x = -1 with an infinite y
    one = s("or_pred", s("setp_eq", "y", 0.0), s("setp_eq", "x", 1.0))
    one = s("or_pred", one, s("and_pred", s("setp_eq", "x", -1.0), y_inf))
    return s("selp", 1.0, r, one)


def _single(op: str, *extra: float) -> Callable[[_Seq], str]:
    return lambda s: s(op, "x", *extra)


_BUILDERS: dict[str, Callable[[_Seq], str]] = {
    "math.exp": _exp("exp"),
    "math.exp2": _exp("exp2"),
    "math.expm1": _exp("expm1"),
    "math.log": _log(0.0, 0.0),
    "math.log2": _log(LOG2E, 1.0),
    "math.log10": _log(LOG10E, float(_C["log10_2"])),
    "math.log1p": _unary(_log1p_of),
    "math.atan": _unary(_atan_of),
    "math.asin": _asin,
    "math.acos": _acos,
    "math.asinh": _asinh,
    "math.acosh": _acosh,
    "math.atanh": _atanh,
    "math.cbrt": _cbrt,
    "math.erf": _erf,
    "math.powf": _pow,
    "math.atan2": _atan2,
    "math.sqrt": _single("sqrt"),
    "math.rsqrt": lambda s: s("div", 1.0, s("sqrt", "x")),
    "math.sin": _sincos("sin"),
    "math.cos": _sincos("cos"),
    "math.tan": _sincos("tan"),
    "math.sinh": _hyperbolic("sinh"),
    "math.cosh": _hyperbolic("cosh"),
    "math.round": _round_half_away,
    "math.tanh": _tanh,
    "math.absf": _single("abs"),
    "arith.negf": _single("neg"),
    "math.floor": _single("rmi"),
    "math.ceil": _single("rpi"),
    "math.trunc": _single("rzi"),
    "math.roundeven": _single("rni"),
}


def _build(name: str) -> list[Instr]:
    s = _Seq()
    result = _BUILDERS[name](s)
    # the last instruction writes the result register ``d``
    last = s.code[-1]
    assert last.dest == result
    s.code[-1] = Instr(last.op, "d", last.srcs)
    return s.code


# -- PTX spelling and the exact model of each instruction --------------------------------------


def _bits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def _double(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits & 0xFFFFFFFFFFFFFFFF))[0]


def _s32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def _fma(a: float, b: float, c: float) -> float:
    if all(math.isfinite(v) for v in (a, b, c)):
        exact = Fraction(a) * Fraction(b) + Fraction(c)
        if exact == 0:  # a * b == -c exactly: the float sum has IEEE's sign of zero
            return a * b + c
        try:
            return float(exact)  # int / int is correctly rounded
        except OverflowError:
            return math.inf if exact > 0 else -math.inf
    return a * b + c


def _integral(fn: Callable[[float], int]) -> Callable[[float], float]:
    """A rounding to an integral value (its result keeps the operand's sign, also for zero)."""
    return lambda x: math.copysign(float(fn(x)), x) if math.isfinite(x) else x


def _cvt_s32(x: float) -> int:
    if math.isnan(x):
        return 0
    return int(max(-(2**31), min(2**31 - 1, x)))


def _min(a: float, b: float) -> float:
    return b if math.isnan(a) else a if math.isnan(b) else min(a, b)


def _max(a: float, b: float) -> float:
    return b if math.isnan(a) else a if math.isnan(b) else max(a, b)


def _ieee(fn: Callable[..., float]) -> Callable[..., float]:
    import numpy as np

    def run(*args: float) -> float:
        with np.errstate(all="ignore"):
            return float(fn(*(np.float64(a) for a in args)))

    return run


_PTX: dict[str, tuple[str, str, Callable[..., object]]] = {
    # op -> (PTX template with {d} and {0}, {1}, ...; destination register class; model)
    "mov": ("mov.f64 {d}, {0};", "f", lambda a: a),
    "add": ("add.rn.f64 {d}, {0}, {1};", "f", _ieee(lambda a, b: a + b)),
    "sub": ("sub.rn.f64 {d}, {0}, {1};", "f", _ieee(lambda a, b: a - b)),
    "mul": ("mul.rn.f64 {d}, {0}, {1};", "f", _ieee(lambda a, b: a * b)),
    "div": ("div.rn.f64 {d}, {0}, {1};", "f", _ieee(lambda a, b: a / b)),
    "fma": ("fma.rn.f64 {d}, {0}, {1}, {2};", "f", _fma),
    "sqrt": ("sqrt.rn.f64 {d}, {0};", "f", lambda a: math.sqrt(a) if a >= 0 else math.nan),
    "neg": ("neg.f64 {d}, {0};", "f", lambda a: -a),
    "abs": ("abs.f64 {d}, {0};", "f", abs),
    "min": ("min.f64 {d}, {0}, {1};", "f", _min),
    "max": ("max.f64 {d}, {0}, {1};", "f", _max),
    "copysign": ("copysign.f64 {d}, {0}, {1};", "f", lambda a, b: math.copysign(b, a)),
    "rni": ("cvt.rni.f64.f64 {d}, {0};", "f", _integral(round)),  # round(): half to even
    "rmi": ("cvt.rmi.f64.f64 {d}, {0};", "f", _integral(math.floor)),
    "rpi": ("cvt.rpi.f64.f64 {d}, {0};", "f", _integral(math.ceil)),
    "rzi": ("cvt.rzi.f64.f64 {d}, {0};", "f", _integral(math.trunc)),
    "selp": ("selp.f64 {d}, {0}, {1}, {2};", "f", lambda a, b, p: a if p else b),
    "cvt_f64": ("cvt.rn.f64.s32 {d}, {0};", "f", float),
    "pow2": ("shl.b32 {t}, {0}, 20;\tadd.s32 {t}, {t}, 1072693248;\tmov.b64 {d}, {{0, {t}}};", "f",
             lambda k: _double((k + 1023) << 52)),
    "with_hi": ("mov.b64 {{{t}, {u}}}, {0};\tmov.b64 {d}, {{{t}, {1}}};", "f",
                lambda x, hi: _double((_bits(x) & 0xFFFFFFFF) | ((hi & 0xFFFFFFFF) << 32))),
    "hi": ("mov.b64 {{{t}, {d}}}, {0};", "i", lambda x: _s32(_bits(x) >> 32)),
    "from_hi": ("mov.b64 {d}, {{0, {0}}};", "f", lambda hi: _double((hi & 0xFFFFFFFF) << 32)),
    "div_u32": ("div.u32 {d}, {0}, {1};", "i", lambda a, b: _s32((a & 0xFFFFFFFF) // b)),
    "cvt_s32": ("cvt.rzi.s32.f64 {d}, {0};", "i", _cvt_s32),
    "add_s32": ("add.s32 {d}, {0}, {1};", "i", lambda a, b: _s32(a + b)),
    "sub_s32": ("sub.s32 {d}, {0}, {1};", "i", lambda a, b: _s32(a - b)),
    "shr_s32": ("shr.s32 {d}, {0}, {1};", "i", lambda a, b: a >> b),
    "and_b32": ("and.b32 {d}, {0}, {1};", "i", lambda a, b: _s32(a & b)),
    "or_b32": ("or.b32 {d}, {0}, {1};", "i", lambda a, b: _s32(a | b)),
    "selp_s32": ("selp.s32 {d}, {0}, {1}, {2};", "i", lambda a, b, p: a if p else b),
    "setp_lt": ("setp.lt.f64 {d}, {0}, {1};", "p", lambda a, b: a < b),
    "setp_gt": ("setp.gt.f64 {d}, {0}, {1};", "p", lambda a, b: a > b),
    "setp_ge": ("setp.ge.f64 {d}, {0}, {1};", "p", lambda a, b: a >= b),
    "setp_eq": ("setp.eq.f64 {d}, {0}, {1};", "p", lambda a, b: a == b),
    "setp_nan": ("setp.nan.f64 {d}, {0}, {1};", "p", lambda a, b: math.isnan(a) or math.isnan(b)),
    "setp_ne": ("setp.ne.f64 {d}, {0}, {1};", "p", lambda a, b: a != b and not (a != a or b != b)),
    "setp_eq_pred": ("xor.pred {d}, {0}, {1};\tnot.pred {d}, {d};", "p", lambda a, b: a == b),
    "and_pred": ("and.pred {d}, {0}, {1};", "p", lambda a, b: a and b),
    "or_pred": ("or.pred {d}, {0}, {1};", "p", lambda a, b: a or b),
    "not_pred": ("not.pred {d}, {0};", "p", lambda a: not a),
    "setp_ne_s32": ("setp.ne.s32 {d}, {0}, {1};", "p", lambda a, b: a != b),
}  # fmt: skip
"""Each instruction's PTX (``{t}``/``{u}``: b32 scratch registers) and its exact model."""

_CLASSES = {"f": (".f64", "%fd"), "i": (".b32", "%r"), "p": (".pred", "%p")}


class _Sequences(Mapping[str, list[Instr]]):
    """Op name -> its sequence, built on first use (erf's coefficients take a moment)."""

    def __getitem__(self, name: str) -> list[Instr]:
        return _built(name)

    def __iter__(self) -> Iterator[str]:
        return iter(_BUILDERS)

    def __len__(self) -> int:
        return len(_BUILDERS)


@cache
def _built(name: str) -> list[Instr]:
    if name not in _BUILDERS:
        raise KeyError(name)
    return _build(name)


F64_SEQUENCES: Mapping[str, list[Instr]] = _Sequences()
"""The f64 sequence of each math op (``-t ptx`` emits exactly these instructions)."""


def _literal(value: float | int) -> str:
    """A float is an f64 immediate (``0d`` + its bits), an int a decimal one."""
    if isinstance(value, float):
        return "0d" + struct.pack(">d", value).hex().upper()
    return str(value)


def render(name: str, dest: str, operands: Sequence[str], new: Callable[[str], str]) -> list[str]:
    """The PTX lines of ``name``'s f64 sequence writing ``dest`` from ``operands`` (``x``, then
    ``y`` for a binary op); ``new(kind)`` gives a fresh register of a PTX kind (``.f64``,
    ``.b32``, ``.pred``)."""
    regs = {"d": dest, **dict(zip(("x", "y"), operands, strict=False))}
    lines = []
    for ins in F64_SEQUENCES[name]:
        template, cls, _ = _PTX[ins.op]
        if ins.dest not in regs:
            regs[ins.dest] = new(_CLASSES[cls][0])
        args = [regs[a] if isinstance(a, str) else _literal(a) for a in ins.srcs]
        scratch = {"t": new(".b32") if "{t}" in template else "", "u": ""}
        if "{u}" in template:
            scratch["u"] = new(".b32")
        text = template.format(*args, d=regs[ins.dest], **scratch)
        lines += text.split("\t")
    return lines


def evaluate(name: str, *operands: float) -> float:
    """``name``'s f64 sequence on ``operands``, instruction by instruction (the exact model)."""
    env: dict[str, object] = {k: float(v) for k, v in zip(("x", "y"), operands, strict=False)}
    for ins in F64_SEQUENCES[name]:
        args = [env[a] if isinstance(a, str) else a for a in ins.srcs]
        env[ins.dest] = _PTX[ins.op][2](*args)
    result = env["d"]
    assert isinstance(result, float)
    return result
