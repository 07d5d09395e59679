"""The analysis commands' intervals and tests come from statsmodels (and scipy); the base
install's own Wilson interval (wsim.analysis.stats, for `ladder`, `learn` and the end-of-run
summary, which must not import statsmodels) equals statsmodels' to 1e-12."""

import math
import subprocess
import sys

import pytest
from scipy import stats as sps
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint, proportions_ztest

from wsim.analysis.balance.effects import independent_diff_ci, mcnemar_p, paired_mean_ci
from wsim.analysis.significance import score_test_p, wilson_ci
from wsim.analysis.stats import wilson_interval

COUNTS = [(k, n) for n in (1, 2, 3, 7, 10, 99, 1000, 12_345, 10**7) for k in sorted({0, 1, n // 3, n // 2, n - 1, n})
          if 0 <= k <= n]


@pytest.mark.parametrize("successes, trials", COUNTS)
def test_the_base_wilson_interval_equals_statsmodels(successes, trials):
    low, high = proportion_confint(successes, trials, alpha=0.05, method="wilson")
    assert wilson_interval(successes, trials) == pytest.approx((low, high), abs=1e-12)
    assert wilson_ci(successes, trials) == pytest.approx((low, high), abs=1e-15)


def test_wilson_by_hand_and_at_the_edges():
    # 30 of 100: centre (0.3 + z²/200) / (1 + z²/100), half z·sqrt(0.0021 + z²/40000) / (1 + z²/100)
    assert wilson_ci(30, 100) == pytest.approx((0.218949, 0.395849), abs=1e-6)  # 0.307399 ∓ 0.088450
    for n in (7, 9, 12, 1000):  # statsmodels leaves ~1e-17 at these ends
        assert wilson_ci(0, n)[0] == 0.0 and wilson_ci(n, n)[1] == 1.0
    assert wilson_ci(0, 0) == (0.0, 1.0) == wilson_interval(0, 0)


@pytest.mark.parametrize("wins, seats, fair", [(300, 1000, 0.25), (180, 1000, 0.25), (52, 100, 0.5), (3, 7, 1 / 3),
                                               (250, 1000, 0.25), (0, 40, 0.2), (5000, 20000, 1 / 7)])
def test_the_score_test_is_statsmodels_z_test_under_the_null(wins, seats, fair):
    expected = proportions_ztest(wins, seats, value=fair, prop_var=fair)[1]
    assert score_test_p(wins, seats, fair) == pytest.approx(expected, rel=1e-12, abs=1e-300)
    z = (wins / seats - fair) / math.sqrt(fair * (1 - fair) / seats)  # the score statistic by hand
    assert score_test_p(wins, seats, fair) == pytest.approx(2 * sps.norm.sf(abs(z)), rel=1e-9)


def test_the_score_test_by_number():
    assert score_test_p(300, 1000, 0.25) == pytest.approx(2.6073e-4, rel=1e-4)  # z = 3.6515
    assert score_test_p(250, 1000, 0.25) == 1.0
    assert math.isnan(score_test_p(0, 0, 0.25)) and math.isnan(score_test_p(3, 10, 1.0))


@pytest.mark.parametrize("first, second", [(7, 3), (3, 7), (0, 0), (5, 5), (1, 0), (12, 30), (400, 360), (0, 9)])
def test_mcnemar_is_statsmodels_exact_test(first, second):
    """Σd = first − second and Σd² = first + second over the discordant pairs (d = ±1)."""
    sum_d, sum_d2 = float(first - second), float(first + second)
    expected = mcnemar([[0, first], [second, 0]], exact=True).pvalue
    assert mcnemar_p(sum_d, sum_d2) == pytest.approx(expected, rel=1e-12)
    if first + second:  # the same p as the exact binomial test on the discordant pairs (scipy)
        assert mcnemar_p(sum_d, sum_d2) == pytest.approx(sps.binomtest(first, first + second, 0.5).pvalue, rel=1e-9)


def test_mcnemar_by_number():
    assert mcnemar_p(4.0, 10.0) == pytest.approx(0.34375)  # 7 against 3: 2 · (1 + 10 + 45 + 120) / 1024
    assert mcnemar_p(0.0, 0.0) == 1.0
    assert paired_mean_ci(40, 8.0, 16.0)[3] == pytest.approx(2 * sps.binom.cdf(4, 16, 0.5))  # 12 against 4


@pytest.mark.parametrize("p0, n0, p1, n1", [(0.30, 1000, 0.35, 2000), (0.5, 30, 0.4, 30), (0.25, 4000, 0.25, 4000)])
def test_the_independent_difference_is_statsmodels_wald_interval(p0, n0, p1, n1):
    expected = confint_proportions_2indep(p1 * n1, n1, p0 * n0, n0, method="wald", compare="diff")
    assert independent_diff_ci(p0, n0, p1, n1) == pytest.approx(expected, abs=1e-12)
    half = 1.959963984540054 * math.sqrt(p0 * (1 - p0) / n0 + p1 * (1 - p1) / n1)  # the former hand formula
    assert independent_diff_ci(p0, n0, p1, n1) == pytest.approx((p1 - p0 - half, p1 - p0 + half), abs=1e-12)


def test_the_base_install_commands_do_not_import_statsmodels():
    code = ("import sys; import wsim.agents.ladder, wsim.agents.learn, wsim.cli.render, wsim.analysis.stats; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'statsmodels', 'pandas'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
