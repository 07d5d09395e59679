"""Corrected significance (docs/interfaces.md §5 `q_value`): each row's p-value from the test its 95% CI
inverts, and Benjamini–Hochberg q-values within a family (one per table and player count); and
the Wilson interval of a win rate, statsmodels' (the analysis extra's; the base install's
commands keep wsim.analysis.stats.wilson_interval, held equal to it by the tests).

The tests, each the one its table's interval inverts:
- a win rate against the fair share: the score test, statsmodels' `proportions_ztest` with the
  variance under the null (the Wilson interval is its inversion);
- a card effect, or a paired difference of effects: t on the jackknife's standard error, with
  G − 1 degrees of freedom (G game blocks), as the CI;
- a paired difference of win rates: the normal test on the per-seat differences' standard error.
A row without an estimate has no p-value (NaN) and stays out of its family.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint, proportions_ztest

FINDING_Q = 0.05  # a row is a finding when its q-value is below this


def wilson_ci(successes: int, trials: int) -> tuple[float, float]:
    """The Wilson score 95% interval of successes / trials (statsmodels' `proportion_confint`);
    (0, 1) without trials. At no success (every one) the bound is exactly 0 (1): statsmodels
    leaves a rounding residue of about 1e-17 there, which a table would print as a number."""
    if trials == 0:
        return 0.0, 1.0
    low, high = proportion_confint(successes, trials, alpha=0.05, method="wilson")
    return (0.0 if successes == 0 else float(low)), (1.0 if successes == trials else float(high))


def score_test_p(wins: int, seats: int, fair: float) -> float:
    """Two-sided p of the score test of wins/seats against the proportion `fair` (the z test
    with the variance under the null)."""
    if seats == 0 or not 0 < fair < 1:
        return math.nan
    return float(proportions_ztest(wins, seats, value=fair, prop_var=fair)[1])


def t_test_p(estimate: float, se: float, df: int) -> float:
    """Two-sided p of estimate / se against 0 on a t with `df` degrees of freedom."""
    return _ratio_p(estimate, se, lambda t: 2 * sps.t.sf(t, df) if df >= 1 else math.nan)


def normal_test_p(estimate: float, se: float) -> float:
    """Two-sided p of estimate / se against 0 on the standard normal."""
    return _ratio_p(estimate, se, lambda z: 2 * sps.norm.sf(z))


def _ratio_p(estimate: float, se: float, tail) -> float:
    if math.isnan(estimate) or math.isnan(se):
        return math.nan
    if se == 0:  # no spread at all: exactly the null, or certainly not it
        return 1.0 if estimate == 0 else 0.0
    return float(tail(abs(estimate) / se))


def bh_q(p: pd.Series) -> pd.Series:
    """Benjamini–Hochberg q-values of one family of p-values; NaN rows stay NaN and out of it."""
    q = pd.Series(np.nan, index=p.index, dtype=float)
    known = p.notna()
    if known.any():
        q[known] = multipletests(p[known].to_numpy(dtype=float), method="fdr_bh")[1]
    return q


def q_values(table: pd.DataFrame, family: str = "players", p: str = "p_value") -> pd.Series:
    """The q-value of every row of `table`, each family (rows with the same `family` value)
    corrected on its own."""
    if not len(table):
        return pd.Series(dtype=float)
    return table.groupby(family, sort=False, group_keys=False)[p].apply(bh_q).reindex(table.index)
