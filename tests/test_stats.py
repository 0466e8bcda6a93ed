import math
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats as sps

from radiotcp.stats import ci_half_width, mean_ci, t_quantile


@pytest.mark.parametrize(
    "sample",
    [
        [1.0, 2.0, 3.0, 4.0, 5.0],
        [364.8, 359.1, 371.2],
        [0.1, 0.1, 0.2, 0.4, 0.4, 0.9, 1.3],
        list(np.linspace(-5, 17, 30)),
    ],
)
def test_half_width_matches_scipy_t_interval(sample):
    lo, hi = sps.t.interval(0.90, len(sample) - 1, loc=np.mean(sample), scale=sps.sem(sample))
    assert ci_half_width(sample) == pytest.approx((hi - lo) / 2, rel=1e-12)
    m, h, n = mean_ci(sample)
    assert m == pytest.approx(float(np.mean(sample)), rel=1e-12)
    assert h == pytest.approx((hi - lo) / 2, rel=1e-12)
    assert n == len(sample)


def test_hand_computed_two_values():
    # [2, 4]: mean 3, s = sqrt(2), n = 2, so the half-width is t_{0.95,1} * sqrt(2)/sqrt(2)
    # = t_{0.95,1} = 6.313751514675...
    m, h, n = mean_ci([2.0, 4.0])
    assert (m, n) == (3.0, 2)
    assert h == pytest.approx(6.313751514675043, rel=1e-12)


def test_hand_computed_five_values():
    # [1..5]: s = sqrt(2.5); t_{0.95,4} = 2.131846786326649; h = t * s / sqrt(5)
    expected = 2.131846786326649 * math.sqrt(2.5) / math.sqrt(5)
    assert ci_half_width([1, 2, 3, 4, 5]) == pytest.approx(expected, rel=1e-12)
    assert expected == pytest.approx(1.5074, abs=1e-4)


def test_single_value_has_nan_half_width():
    m, h, n = mean_ci([7.5])
    assert m == 7.5
    assert math.isnan(h)
    assert n == 1


def test_identical_values_have_zero_half_width():
    assert ci_half_width([3.0, 3.0, 3.0]) == 0.0
    # Values a binary fraction cannot hold exactly: still exactly 0, not a rounding residue
    # (numpy's one-pass mean left 2e-14 on 20 identical runs).
    for v, n in [(297.9, 20), (0.1, 7), (1e-300, 3), (364.81234567, 1000)]:
        m, h, k = mean_ci([v] * n)
        assert (m, h, k) == (v, 0.0, n)


def test_nan_values_are_left_out():
    m, h, n = mean_ci([1.0, float("nan"), 3.0])
    assert n == 2
    assert m == 2.0
    assert h == pytest.approx(ci_half_width([1.0, 3.0]))
    m0, h0, n0 = mean_ci([float("nan")])
    assert n0 == 0 and math.isnan(m0) and math.isnan(h0)


@pytest.mark.parametrize("p", [0.5, 0.6, 0.75, 0.9, 0.95, 0.975, 0.995, 0.9995])
def test_t_quantile_matches_scipy(p):
    for df in [*range(1, 60), 100, 200, 500, 1000, 10_000, 1_000_000]:
        expected = sps.t.ppf(p, df)
        got = t_quantile(p, df)
        if expected == 0.0:
            assert got == pytest.approx(0.0, abs=1e-12)
        else:
            assert got == pytest.approx(expected, rel=1e-8), (p, df)
    with pytest.raises(ValueError):
        t_quantile(0.4, 3)
    with pytest.raises(ValueError):
        t_quantile(0.95, 0)


def test_the_cli_imports_no_heavy_library():
    """`radiotcp --help`, `validate` and `run` start without scipy, matplotlib or dask: they
    are imported by the commands that need them (plots, sweeps on a cluster). Importing the
    package and the command loads neither numpy nor pydantic either (the commands do)."""
    heavy = ("scipy", "matplotlib", "dask", "distributed", "pandas", "numpy", "pydantic")
    code = (
        "import sys, radiotcp.cli, radiotcp; "
        f"print(','.join(m for m in {heavy!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_running_mean_ci_is_exact_and_independent_of_the_order():
    """MeanCI keeps exact sums: the mean is math.fsum's divided by n, the interval does not
    depend on the order of the values, and extreme magnitudes neither overflow nor lose the
    small values."""
    import random

    from radiotcp.stats import MeanCI

    rng = random.Random(5)
    x = [rng.gauss(300.0, 20.0) for _ in range(500)] + [1e-200, 3e5, -7.25]
    results = []
    for _ in range(3):
        rng.shuffle(x)
        acc = MeanCI()
        for v in x:
            acc.add(v)
        results.append(acc.result())
    assert results[0] == results[1] == results[2]
    m, h, n = results[0]
    assert m == math.fsum(x) / len(x) and n == len(x)
    assert h == pytest.approx(ci_half_width(sorted(x)), rel=1e-15)
    assert h == pytest.approx(sps.t.ppf(0.95, n - 1) * np.std(x, ddof=1) / math.sqrt(n), rel=1e-10)
    assert mean_ci([1e308, 1e308]) == (1e308, 0.0, 2)
    m, h, n = mean_ci([math.nan, math.inf, 2.0])
    assert (m, n) == (2.0, 1) and math.isnan(h)
