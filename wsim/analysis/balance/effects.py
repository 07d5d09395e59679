"""Card effects on winning, and paired comparisons of two datasets of the same games.

A card's effect is an average marginal effect (AME): a logistic regression of `win` on `built`
plus indicators of wonder×side, seat and policy is fitted as a binomial GLM on the aggregated
cells (the same likelihood as the regression on the individual seats), then each seat's predicted
win probability with the card built is compared with the one without it, and the changes are
averaged over all seats.

Its CI comes from a grouped (delete-a-group) jackknife over blocks of games, not from the
delta method alone: the seats of one game are not independent (one of them wins), and the
delta-method se, which treats them as independent, comes out too small for a card that several
seats of a game build or forgo. The delta-method se is kept as `se_delta` for comparison.

Two datasets of the same deals (a baseline and an edited card file) are compared with the same
jackknife: each game block is left out of both datasets at once and the difference of effects
refitted, which keeps the pairing. The CI two independent runs would give uses the two
datasets' own jackknife variances, added. Paired win rates use the per-game differences directly.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as sps
from statsmodels.genmod.families import Binomial
from statsmodels.genmod.generalized_linear_model import GLM
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import confint_proportions_2indep
from statsmodels.tools.sm_exceptions import PerfectSeparationWarning

from wsim.analysis.significance import t_test_p
from wsim.analysis.stats import Z95

# Below ~100 seats on either side the standard error of a win rate is 4 points or more
# (sqrt(.25 * .75 / 100)), as large as the effects worth reporting: rare cards would top the
# ranking by noise, and the normal approximation behind the CI is poor.
MIN_SEATS = 100
# Fewer wins (or losses) than this among the builders leaves the logistic fit near separation.
MIN_OUTCOMES = 10
# Paired win differences below this many seats get no interval (nor p-value): a normal interval
# of a handful of seats reaches past ±1, and rows that cannot be estimated stay out of a family.
MIN_PAIRED = 30
# A Hessian whose reciprocal condition number is below this is treated as singular: besides
# exact collinearity it catches (quasi-)separation, where IRLS drives a coefficient towards
# infinity and the curvature along it vanishes (~1e-8 against the thousands of real seats).
MIN_RCOND = 1e-10

FACTORS = ["wonder_side", "seat", "policy"]
EFFECT_COLUMNS = ["players", "card", "seats", "seats_built", "build_rate", "win_rate_built",
                  "win_rate_not_built", "effect", "ci_low", "ci_high", "se", "se_delta", "p_value"]
PAIRED_COLUMNS = ["players", "card", "baseline", "value", "diff", "ci_low", "ci_high",
                  "ci_low_independent", "ci_high_independent", "se", "p_value"]
BUILT = 1  # column of `built` in the design matrix (after the intercept)


@dataclass(frozen=True)
class _Design:
    """The cells of one (players, card): covariates once per cell, counts per game block."""

    exog: np.ndarray    # (cells, params): intercept, built, then the factor indicators
    groups: np.ndarray  # (blocks,) the block labels
    seats: np.ndarray   # (blocks, cells)
    wins: np.ndarray    # (blocks, cells)

    def totals(self, leave_out: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Seats and wins per cell summed over the blocks, without block `leave_out`."""
        keep = self.groups != leave_out if leave_out is not None else slice(None)
        return self.seats[keep].sum(axis=0), self.wins[keep].sum(axis=0)


@dataclass
class _Effect:
    """A fitted AME with its delta-method standard error, the coefficients behind it, and
    (once computed) its leave-one-block-out values by block label."""

    effect: float
    se_delta: float
    params: np.ndarray
    left_out: dict | None = None


def _coded(cells: pd.DataFrame) -> dict[str, np.ndarray]:
    """The cell table as integer arrays, factors coded once for the whole table (so that each
    (players, card) design is built by integer arithmetic, not by pandas per pair)."""
    wonder_side = cells["wonder"].astype(str) + "/" + cells["side"].astype(str)
    cols = {name: pd.factorize(values, sort=True)[0] for name, values in
            [("wonder_side", wonder_side), ("seat", cells["seat"]), ("policy", cells["policy"])]}
    for name in ["built", "group", "seats", "wins"]:
        cols[name] = cells[name].to_numpy(dtype=np.int64)
    return cols


def _indicators(codes: np.ndarray) -> np.ndarray:
    """Treatment-coded indicators of a factor (first level dropped); none if it is constant,
    since a single level is already the intercept."""
    return (codes[:, None] == np.unique(codes)[None, 1:]).astype(float)


def _independent(exog: np.ndarray) -> np.ndarray:
    """The columns of exog that are not combinations of earlier ones (intercept and `built`
    first). A wsim dataset fixes each seat's policy, and `--wonders fixed:` each seat's wonder,
    so those indicators repeat the seat's: adjusting for one adjusts for the other, and keeping
    both would make every fit singular."""
    kept = [0, BUILT]
    rank = np.linalg.matrix_rank(exog[:, kept])
    for j in range(BUILT + 1, exog.shape[1]):
        if np.linalg.matrix_rank(exog[:, kept + [j]]) > rank:
            kept.append(j)
            rank += 1
    return exog[:, kept]


def _design(cols: dict[str, np.ndarray], rows: np.ndarray) -> _Design:
    """Collapse one (players, card)'s cell rows into unique covariate cells × game blocks."""
    col = {name: values[rows] for name, values in cols.items()}
    key = col["built"]
    for name in FACTORS:  # mixed radix: one integer per combination of the cell keys
        key = key * (cols[name].max() + 1) + col[name]
    _, first, cell = np.unique(key, return_index=True, return_inverse=True)
    groups, group = np.unique(col["group"], return_inverse=True)
    exog = _independent(np.column_stack([np.ones(len(first)), col["built"][first].astype(float)]
                                        + [_indicators(col[name][first]) for name in FACTORS]))
    shape = (len(groups), len(first))
    flat = group * shape[1] + cell
    seats = np.bincount(flat, weights=col["seats"], minlength=shape[0] * shape[1])
    wins = np.bincount(flat, weights=col["wins"], minlength=shape[0] * shape[1])
    return _Design(exog, groups, seats.reshape(shape), wins.reshape(shape))


def _sigmoid(eta: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-eta))


def _fit(exog: np.ndarray, seats: np.ndarray, wins: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Binomial GLM of wins out of seats per cell → (params, covariance), or None when the
    fit does not converge, detects separation or has a singular Hessian."""
    used = seats > 0  # a cell without seats carries no likelihood
    exog, seats, wins = exog[used], seats[used], wins[used]
    model = GLM(np.column_stack([wins, seats - wins]), exog, family=Binomial())
    # IRLS reports non-convergence in `converged`, not by a warning; separation it only warns
    # about, so that warning is turned into the failure it is here
    with warnings.catch_warnings():
        # failures are judged below (convergence, conditioning); statsmodels' other warnings
        # would only reach the user's terminal
        warnings.simplefilter("ignore")
        warnings.simplefilter("error", PerfectSeparationWarning)
        try:
            result = model.fit()
        except (PerfectSeparationWarning, np.linalg.LinAlgError):
            return None
    if not result.converged:
        return None
    p = _sigmoid(exog @ result.params)
    hessian = exog.T @ (exog * (seats * p * (1 - p))[:, None])
    if 1.0 / np.linalg.cond(hessian) < MIN_RCOND:
        return None
    return result.params, result.cov_params()


def _ame(exog: np.ndarray, seats: np.ndarray, params: np.ndarray) -> tuple[float, np.ndarray]:
    """The AME of `built` over the cells weighted by seats, and its gradient in params."""
    x1, x0 = exog.copy(), exog.copy()
    x1[:, BUILT], x0[:, BUILT] = 1.0, 0.0
    p1, p0 = _sigmoid(x1 @ params), _sigmoid(x0 @ params)
    w = seats / seats.sum()
    grad = x1.T @ (w * p1 * (1 - p1)) - x0.T @ (w * p0 * (1 - p0))
    return float(w @ (p1 - p0)), grad


def _effect(design: _Design) -> _Effect | None:
    """The full-data AME of one (players, card) with its delta-method se."""
    seats, wins = design.totals()
    fit = _fit(design.exog, seats, wins)
    if fit is None:
        return None
    params, cov = fit
    effect, grad = _ame(design.exog, seats, params)
    return _Effect(effect, math.sqrt(max(float(grad @ cov @ grad), 0.0)), params)


def _jackknife(design: _Design, full: _Effect, groups: np.ndarray) -> dict:
    """The AME refitted without each game block in turn (block label → value; NaN where a
    refit fails). Kept on `full` so that a paired comparison reuses the refits."""
    if full.left_out is None:
        full.left_out = {int(g): _left_out_effect(design, full, g) for g in groups}
    return full.left_out


def _jackknife_se(values: np.ndarray) -> float:
    """The delete-a-group jackknife se of leave-one-out estimates (NaN if any is NaN)."""
    n = len(values)
    return math.sqrt((n - 1) / n * float(np.sum((values - values.mean()) ** 2)))


def _t95(blocks: int) -> float:
    return float(sps.t.ppf(0.975, blocks - 1)) if blocks >= 2 else math.nan


def _counts(design: _Design) -> dict:
    """Seats and wins split by whether the card was built."""
    seats, wins = design.totals()
    built = design.exog[:, BUILT] == 1
    return {"seats": int(seats.sum()), "seats_built": int(seats[built].sum()),
            "wins_built": int(wins[built].sum()), "wins_not_built": int(wins[~built].sum())}


def _estimable(c: dict, min_seats: int) -> bool:
    """Enough builders and non-builders, and enough wins and losses among the builders."""
    not_built = c["seats"] - c["seats_built"]
    losses_built = c["seats_built"] - c["wins_built"]
    return (c["seats_built"] >= min_seats and not_built >= min_seats
            and c["wins_built"] >= MIN_OUTCOMES and losses_built >= MIN_OUTCOMES)


def _rate(wins: int, seats: int) -> float:
    return wins / seats if seats else math.nan


def _designs(cells: pd.DataFrame) -> dict:
    """(players, card) → its design, for every pair of a cell table."""
    cols = _coded(cells)
    pairs = cells.groupby(["players", "card"], sort=True).indices
    return {key: _design(cols, rows) for key, rows in pairs.items()}


def card_effects(cells: pd.DataFrame, min_seats: int = MIN_SEATS, fitted: dict | None = None) -> pd.DataFrame:
    """One row per (players, card) of a cell table: seats, build rate, raw win rates with and
    without the card, and the adjusted effect (AME in probability units) with its 95% CI
    (jackknife over game blocks, t with G−1 df), its se and the delta-method se. The effect is
    NaN for rare cards (see `MIN_SEATS`) and failed fits. `fitted`: the `fit_cells` of these
    cells, when already made."""
    fitted = fitted if fitted is not None else fit_cells(cells, min_seats)
    groups = np.unique(cells["group"])
    rows = []
    for (players, card), (design, fit) in sorted(fitted.items()):
        c = _counts(design)
        effect = se = se_delta = math.nan
        if fit is not None:
            effect, se_delta = fit.effect, fit.se_delta
            se = _jackknife_se(np.array(list(_jackknife(design, fit, groups).values())))
        not_built = c["seats"] - c["seats_built"]
        rows.append({
            "players": players, "card": card, "seats": c["seats"],
            "seats_built": c["seats_built"], "build_rate": c["seats_built"] / c["seats"],
            "win_rate_built": _rate(c["wins_built"], c["seats_built"]),
            "win_rate_not_built": _rate(c["wins_not_built"], not_built),
            "effect": effect, "ci_low": effect - _t95(len(groups)) * se,
            "ci_high": effect + _t95(len(groups)) * se, "se": se, "se_delta": se_delta,
            "p_value": t_test_p(effect, se, len(groups) - 1),
        })
    return pd.DataFrame(rows, columns=EFFECT_COLUMNS)


def fit_cells(cells: pd.DataFrame, min_seats: int = MIN_SEATS) -> dict:
    """(players, card) → (design, full-data fit or None) for every pair of a cell table; pass
    it to `card_effects` and `paired_effects` so that the fits are made once."""
    return {key: (design, _effect(design) if _estimable(_counts(design), min_seats) else None)
            for key, design in _designs(cells).items()}


def _left_out_effect(design: _Design, full: _Effect, group: int) -> float:
    """The AME without one game block, its coefficients one Newton step from the full fit.

    The full fit's score is zero, so a step on the data without block g is a solve with that
    data's information matrix; with a twentieth of the games left out it lands within a small
    fraction of the jackknife's spread of a full refit (tested), at the cost of one solve
    instead of a GLM fit per block."""
    seats, wins = design.totals(leave_out=group)
    exog = design.exog
    p = _sigmoid(exog @ full.params)
    score = exog.T @ (wins - seats * p)
    information = exog.T @ (exog * (seats * p * (1 - p))[:, None])
    try:
        params = full.params + np.linalg.solve(information, score)
    except np.linalg.LinAlgError:
        return math.nan
    used = seats > 0
    return _ame(exog[used], seats[used], params)[0]


def _paired_row(base: tuple | None, edited: tuple | None, groups: np.ndarray) -> dict:
    """Baseline, value, their difference, its paired and independent-runs CIs, and the p-value
    of the paired test."""
    b = base[1] if base else None
    e = edited[1] if edited else None
    row = dict.fromkeys(PAIRED_COLUMNS[2:], math.nan)
    row["baseline"] = b.effect if b else math.nan
    row["value"] = e.effect if e else math.nan
    if b and e:
        diff = e.effect - b.effect
        loo_b = np.array([_jackknife(*base, groups)[int(g)] for g in groups])
        loo_e = np.array([_jackknife(*edited, groups)[int(g)] for g in groups])
        # NaN (a failed refit) propagates to a NaN CI, as it should
        se = _jackknife_se(loo_e - loo_b)
        half = _t95(len(groups)) * se
        half_indep = _t95(len(groups)) * math.hypot(_jackknife_se(loo_b), _jackknife_se(loo_e))
        row.update(diff=diff, ci_low=diff - half, ci_high=diff + half,
                   ci_low_independent=diff - half_indep, ci_high_independent=diff + half_indep, se=se,
                   p_value=t_test_p(diff, se, len(groups) - 1))
    return row


def paired_effects(base: pd.DataFrame, edited: pd.DataFrame, min_seats: int = MIN_SEATS,
                   fitted: tuple | None = None) -> pd.DataFrame:
    """Compare card effects between two cell tables of the same games (same game blocks):
    one row per (players, card) in either, with the baseline and edited effects, their
    difference, its paired 95% CI (grouped jackknife over game blocks, t with G−1 df) and the
    CI two independent runs would give (the two jackknife variances added). Below 2 game blocks
    (a dataset of one game) there is no CI, as in `card_effects`. `fitted`: the (base, edited)
    `fit_cells`, when already made."""
    groups = np.union1d(base["group"].unique(), edited["group"].unique())
    fits_base, fits_edited = fitted if fitted is not None else (fit_cells(base, min_seats),
                                                                fit_cells(edited, min_seats))
    rows = []
    for players, card in sorted(fits_base.keys() | fits_edited.keys()):
        row = _paired_row(fits_base.get((players, card)), fits_edited.get((players, card)), groups)
        rows.append({"players": players, "card": card, **row})
    return pd.DataFrame(rows, columns=PAIRED_COLUMNS)


def paired_mean_ci(n: int, sum_d: float, sum_d2: float) -> tuple[float, float, float, float]:
    """Mean of n paired win differences (each −1, 0 or 1) from Σd and Σd², with its
    normal-approximation 95% CI (sample sd, n − 1) and the p-value of McNemar's exact test
    against 0 (the exact test on the discordant pairs, which the normal one approximates and
    which stays valid on few of them). Below MIN_PAIRED differences there is no CI and no p:
    the normal interval of a handful of seats can reach past ±1."""
    if n < MIN_PAIRED:
        return (sum_d / n if n else math.nan), math.nan, math.nan, math.nan
    mean = sum_d / n
    # rounding can push a zero variance slightly negative
    se = math.sqrt(max((sum_d2 - sum_d * mean) / (n - 1), 0.0) / n)
    return mean, mean - Z95 * se, mean + Z95 * se, mcnemar_p(sum_d, sum_d2)


def mcnemar_p(sum_d: float, sum_d2: float) -> float:
    """McNemar's exact two-sided p (statsmodels' `mcnemar`) of paired win differences d in
    {−1, 0, 1}: Σd² pairs are discordant, (Σd² + Σd) / 2 of them in favour of the first."""
    discordant = int(round(sum_d2))
    wins_first = int(round((sum_d2 + sum_d) / 2))
    return float(mcnemar([[0, wins_first], [discordant - wins_first, 0]], exact=True).pvalue)


def independent_diff_ci(p0: float, n0: int, p1: float, n1: int) -> tuple[float, float]:
    """95% CI of p1 − p0 for two proportions from independent samples: the normal (Wald)
    interval of statsmodels' `confint_proportions_2indep`."""
    low, high = confint_proportions_2indep(p1 * n1, n1, p0 * n0, n0, method="wald", compare="diff")
    return float(low), float(high)
