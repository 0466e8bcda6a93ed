"""Replication statistics: mean and Student-t confidence interval over independent runs."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
from scipy import stats as _sps

__all__ = ["CONFIDENCE", "ci_half_width", "mean_ci"]

CONFIDENCE = 0.90


def ci_half_width(values: Iterable[float], confidence: float = CONFIDENCE) -> float:
    """Half-width of the two-sided Student-t confidence interval of the mean.

    ``t.ppf((1 + confidence) / 2, n - 1) * s / sqrt(n)`` with ``s`` the sample standard
    deviation (ddof=1). For the default 90 % interval that is ``t.ppf(0.95, n - 1)``.
    NaN when fewer than two values are given (no estimate of the spread).
    """
    x = np.asarray(list(values), dtype=np.float64)
    n = x.size
    if n < 2:
        return math.nan
    s = float(np.std(x, ddof=1))
    t = float(_sps.t.ppf((1.0 + confidence) / 2.0, n - 1))
    return t * s / math.sqrt(n)


def mean_ci(values: Iterable[float], confidence: float = CONFIDENCE) -> tuple[float, float, int]:
    """``(mean, ci_half_width, n)`` over the finite values (NaN values are left out).

    A run whose metric is undefined (e.g. the delay of a flow that delivered nothing) is NaN;
    it does not count towards ``n``. No finite value gives ``(nan, nan, 0)``.
    """
    x = np.asarray(list(values), dtype=np.float64)
    x = x[np.isfinite(x)]
    n = int(x.size)
    if n == 0:
        return math.nan, math.nan, 0
    return float(np.mean(x)), ci_half_width(x, confidence), n
