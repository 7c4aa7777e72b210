"""The leaderboard's statistics against independent values: Wilson intervals and the two-proportion z-test
against scipy, unbiased pass@k against the Codex paper's estimator 1 - C(n-c, k) / C(n, k) in exact
fractions, McNemar on hand-computed tables (and scipy's exact binomial test)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from livetab.metrics import mcnemar_test, pass_at_k, two_proportion_z_test, wilson_interval
from livetab_reporter.stats import wilson_arrays
from scipy import stats

CASES = [(0, 1), (1, 1), (0, 10), (3, 10), (8, 10), (10, 10), (17, 40), (499, 1000), (1, 300), (299, 300)]


@pytest.mark.parametrize(("x", "n"), CASES)
def test_wilson_interval_matches_scipy(x: int, n: int) -> None:
    ci = stats.binomtest(x, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert wilson_interval(x, n) == pytest.approx((ci.low, ci.high), abs=1e-12)
    lo, hi = wilson_arrays(np.asarray([x]), np.asarray([n]))
    assert (lo[0], hi[0]) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_wilson_arrays_of_nothing_is_the_whole_unit_interval() -> None:
    lo, hi = wilson_arrays(np.asarray([0, 2]), np.asarray([0, 4]))
    assert (lo[0], hi[0]) == (0.0, 1.0) and 0 < lo[1] < 0.5 < hi[1] < 1


@pytest.mark.parametrize(("x1", "n1", "x2", "n2"), [(45, 100, 30, 100), (7, 20, 12, 25), (480, 1000, 520, 1000),
                                                    (3, 50, 0, 40), (60, 60, 1, 10)])
def test_two_proportion_z_test_matches_scipy(x1: int, n1: int, x2: int, n2: int) -> None:
    # the pooled z-test is the chi-square test of the 2x2 table without continuity correction: z^2 = chi2
    chi2, p, _, _ = stats.chi2_contingency([[x1, n1 - x1], [x2, n2 - x2]], correction=False)
    got = two_proportion_z_test(x1, n1, x2, n2)
    assert got.z ** 2 == pytest.approx(chi2, rel=1e-9)
    assert got.p_value == pytest.approx(p, rel=1e-9)
    assert math.copysign(1, got.z) == math.copysign(1, x1 / n1 - x2 / n2)


def codex_pass_at_k(n: int, c: int, k: int) -> Fraction:
    """Chen et al. (2021), eq. 1 for one problem: 1 - C(n - c, k) / C(n, k) (C(m, k) = 0 when m < k)."""
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


@pytest.mark.parametrize("n", [1, 2, 5, 10, 20])
def test_unbiased_pass_at_k_is_the_codex_estimator(n: int) -> None:
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == pytest.approx(float(codex_pass_at_k(n, c, k)), abs=1e-12), (n, c, k)


def test_pass_at_k_hand_values() -> None:
    # n = 4, c = 1: pass@1 = 1/4, pass@2 = 1 - C(3,2)/C(4,2) = 1 - 3/6, pass@4 = 1
    assert (pass_at_k(4, 1, 1), pass_at_k(4, 1, 2), pass_at_k(4, 1, 4)) == pytest.approx((0.25, 0.5, 1.0))


# (b, c) = (only the first right, only the second right); p-values computed by hand:
# exact: 2 * sum_{i <= min(b, c)} C(b + c, i) / 2^(b + c); chi-square: (|b - c| - 1)^2 / (b + c), where the
# correction never takes |b - c| below 0 (b = c gives 0, not 1 / (b + c))
HAND = [
    (0, 5, 2 * 1 / 32, 16 / 5),  # 2 * C(5,0)/32; (5-1)^2/5
    (1, 6, 2 * (1 + 7) / 128, 16 / 7),  # 2 * (C(7,0) + C(7,1))/128; (5-1)^2/7
    (3, 3, 1.0, 0.0),  # min(1, 2 * P(X <= 3)) with X ~ B(6, 1/2): P = 42/64 > 1/2
    (2, 10, 2 * (1 + 12 + 66) / 4096, 49 / 12),  # 2 * (C(12,0)+C(12,1)+C(12,2))/4096; 7^2/12
]


@pytest.mark.parametrize(("b", "c", "p_exact", "chi2"), HAND)
def test_mcnemar_on_hand_computed_tables(b: int, c: int, p_exact: float, chi2: float) -> None:
    t = mcnemar_test(b, c)
    assert (t.b, t.c) == (b, c)
    assert t.p_exact == pytest.approx(p_exact, rel=1e-12)
    assert t.chi2 == pytest.approx(chi2, rel=1e-12)
    assert t.p_chi2 == pytest.approx(stats.chi2.sf(chi2, df=1), rel=1e-9)
    assert t.p_exact == pytest.approx(stats.binomtest(b, b + c, 0.5).pvalue, rel=1e-9)


def test_mcnemar_large_counts_and_no_discordance() -> None:
    t = mcnemar_test(600, 700)  # the exact test over 1,300 discordant pairs takes the log-gamma path
    assert t.p_exact == pytest.approx(stats.binomtest(600, 1300, 0.5).pvalue, rel=1e-6)
    assert mcnemar_test(0, 0).p_exact == 1.0 and mcnemar_test(0, 0).p_chi2 == 1.0
    with pytest.raises(ValueError):
        mcnemar_test(-1, 2)
