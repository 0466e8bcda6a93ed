"""Replication statistics: mean and Student-t confidence interval over independent runs."""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache

__all__ = ["CONFIDENCE", "MeanCI", "ci_half_width", "mean_ci", "t_quantile"]

CONFIDENCE = 0.90


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz's method)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 1000):
        m2 = 2 * m
        for num in (
            m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0)),
        ):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-16:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b), 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


@lru_cache(maxsize=256)
def t_quantile(p: float, df: int) -> float:
    """The Student-t quantile t such that P(T <= t) = p, for 0.5 <= p < 1 and df >= 1.

    For t >= 0, P(T > t) = I_x(df/2, 1/2) / 2 with x = df / (df + t^2), which falls as x
    falls: bisect for x, then t = sqrt(df (1 - x) / x). When x > 1/2 (large df) the bisection
    runs on y = 1 - x with I_x(a, b) = 1 - I_y(b, a), so that t keeps its relative precision.
    Computed here rather than taken from scipy, so that a command line that prints one table
    does not import scipy.stats (0.9 s); tests/test_stats.py checks it against scipy.
    """
    if not (0.5 <= p < 1.0) or df < 1:
        raise ValueError(f"t_quantile needs 0.5 <= p < 1 and df >= 1, not p={p}, df={df}")
    a, target = df / 2.0, 2.0 * (1.0 - p)
    on_y = _betainc(a, 0.5, 0.5) < target

    def too_small(v: float) -> bool:
        # Whether the bisected variable is below the solution.
        if on_y:
            return _betainc(0.5, a, v) < 1.0 - target
        return _betainc(a, 0.5, v) < target

    lo, hi = 0.0, 0.5
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if too_small(mid):
            lo = mid
        else:
            hi = mid
    v = 0.5 * (lo + hi)
    return math.sqrt(df * v / (1.0 - v)) if on_y else math.sqrt(df * (1.0 - v) / v)


class MeanCI:
    """Mean and Student-t interval of a stream of values, in memory that does not grow with
    their number: the sum and the sum of squares are kept exactly (as integers), so the
    result does not depend on the order of the values, and identical values give a spread of
    exactly 0. NaN and infinite values are left out (they do not count towards ``n``).

    ``result()`` is what :func:`mean_ci` returns for the same values: the mean is the exactly
    rounded sum divided by n (``math.fsum(x) / n``); the standard deviation is computed from
    the exact sum of squared deviations from the exact mean.
    """

    __slots__ = ("_s1", "_s2", "_shift", "n")

    def __init__(self) -> None:
        self.n = 0
        # The sums are of v * 2**_shift and v**2 * 2**(2 * _shift), integers: a finite double
        # is M * 2**(e - 53) with an integer M, and _shift grows (the sums shifted with it)
        # whenever a value needs more binary places than those seen before.
        self._s1 = 0
        self._s2 = 0
        self._shift = 0

    def add(self, v: float) -> None:
        if not math.isfinite(v):
            return
        self.n += 1
        if v == 0.0:
            return
        m, e = math.frexp(v)
        mant = int(m * 9007199254740992.0)  # m * 2**53, exact
        k = e - 53 + self._shift
        if k < 0:
            self._s1 <<= -k
            self._s2 <<= -2 * k
            self._shift -= k
            k = 0
        self._s1 += mant << k
        self._s2 += (mant * mant) << (2 * k)

    def add_zeros(self, count: int) -> None:
        """``count`` values of 0 (a drop reason absent from runs seen before it appeared)."""
        self.n += count

    def mean_sd(self) -> tuple[float, float]:
        """Mean and sample standard deviation (ddof=1; NaN for one value, both NaN for none)."""
        n = self.n
        if n == 0:
            return math.nan, math.nan
        try:
            mean = (self._s1 / (1 << self._shift)) / n
        except OverflowError:  # a sum beyond the largest double: the exact mean, rounded
            mean = self._s1 / (n << self._shift)
        if n < 2:
            return mean, math.nan
        # n * sum((v - mu)^2) = n * S2 - S1^2, exactly, in units of 2**(-2 * _shift).
        dev = n * self._s2 - self._s1 * self._s1
        try:
            return mean, math.sqrt(dev / (n * (n - 1) << (2 * self._shift)))
        except OverflowError:
            return mean, math.inf

    def result(self, confidence: float = CONFIDENCE) -> tuple[float, float, int]:
        """``(mean, ci_half_width, n)`` as :func:`mean_ci` gives them."""
        mean, sd = self.mean_sd()
        n = self.n
        if n < 2:
            return mean, math.nan, n
        t = t_quantile((1.0 + confidence) / 2.0, n - 1)
        return mean, t * sd / math.sqrt(n), n


def ci_half_width(values: Iterable[float], confidence: float = CONFIDENCE) -> float:
    """Half-width of the two-sided Student-t confidence interval of the mean.

    ``t.ppf((1 + confidence) / 2, n - 1) * s / sqrt(n)`` with ``s`` the sample standard
    deviation (ddof=1). For the default 90 % interval that is ``t.ppf(0.95, n - 1)``.
    NaN when fewer than two values are given (no estimate of the spread), or when a value is
    not finite (:func:`mean_ci` leaves those out instead).
    """
    acc = MeanCI()
    for v in values:
        v = float(v)
        if not math.isfinite(v):
            return math.nan
        acc.add(v)
    return acc.result(confidence)[1]


def mean_ci(values: Iterable[float], confidence: float = CONFIDENCE) -> tuple[float, float, int]:
    """``(mean, ci_half_width, n)`` over the finite values (NaN values are left out).

    A run whose metric is undefined (e.g. the delay of a flow that delivered nothing) is NaN;
    it does not count towards ``n``. No finite value gives ``(nan, nan, 0)``. Computed with
    :class:`MeanCI`, exactly as the running summaries of ``radiotcp run`` are.
    """
    acc = MeanCI()
    for v in values:
        acc.add(float(v))
    return acc.result(confidence)
