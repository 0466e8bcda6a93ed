"""Replication statistics: mean and Student-t confidence interval over independent runs."""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache

__all__ = ["CONFIDENCE", "ci_half_width", "mean_ci", "t_quantile"]

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


def _finite(values: Iterable[float]) -> list[float]:
    return [float(v) for v in values if math.isfinite(v)]


def _mean_sd(x: list[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (ddof=1; NaN for one value) in two passes with
    exactly rounded sums (math.fsum): identical values give a deviation of exactly 0, and
    no numpy is needed (`radiotcp run` does not import it)."""
    n = len(x)
    m = math.fsum(x) / n
    if n < 2:
        return m, math.nan
    return m, math.sqrt(math.fsum((v - m) ** 2 for v in x) / (n - 1))


def ci_half_width(values: Iterable[float], confidence: float = CONFIDENCE) -> float:
    """Half-width of the two-sided Student-t confidence interval of the mean.

    ``t.ppf((1 + confidence) / 2, n - 1) * s / sqrt(n)`` with ``s`` the sample standard
    deviation (ddof=1). For the default 90 % interval that is ``t.ppf(0.95, n - 1)``.
    NaN when fewer than two values are given (no estimate of the spread).
    """
    x = [float(v) for v in values]
    n = len(x)
    if n < 2:
        return math.nan
    _, s = _mean_sd(x)
    t = t_quantile((1.0 + confidence) / 2.0, n - 1)
    return t * s / math.sqrt(n)


def mean_ci(values: Iterable[float], confidence: float = CONFIDENCE) -> tuple[float, float, int]:
    """``(mean, ci_half_width, n)`` over the finite values (NaN values are left out).

    A run whose metric is undefined (e.g. the delay of a flow that delivered nothing) is NaN;
    it does not count towards ``n``. No finite value gives ``(nan, nan, 0)``.
    """
    x = _finite(values)
    n = len(x)
    if n == 0:
        return math.nan, math.nan, 0
    # One pass of sums for both (`ci_half_width` would compute the deviation again).
    m, s = _mean_sd(x)
    if n < 2:
        return m, math.nan, n
    return m, t_quantile((1.0 + confidence) / 2.0, n - 1) * s / math.sqrt(n), n
