"""Known-answer tests of wsim.analysis.balance.effects: card effects (AME) planted in synthetic seats
from a logistic model, their paired comparison between two datasets, and paired win rates."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from wsim.analysis.balance.effects import (
    EFFECT_COLUMNS,
    card_effects,
    independent_diff_ci,
    paired_effects,
    paired_mean_ci,
)
from wsim.analysis.balance import effects
from wsim.analysis.stats import Z95

PLAYERS = 4
WONDERS = np.array(["giza", "giza", "rhodes", "rhodes"])
SIDES = np.array(["A", "B", "A", "B"])
# wonder/side 0 both wins more and builds the card more: a planted confounder
WONDER_LOGIT = np.array([0.8, 0.0, -0.2, 0.1])
BUILD_PROB = np.array([0.7, 0.3, 0.3, 0.3])
SEAT_LOGIT = np.array([0.0, 0.1, -0.1, 0.2])
INTERCEPT = -1.0
KEYS = ["players", "card", "built", "wonder", "side", "seat", "policy", "group"]


def sigmoid(eta):
    return 1.0 / (1.0 + np.exp(-eta))


def seats(rng, games: int) -> pd.DataFrame:
    """Synthetic (game, seat) rows: a random wonder/side per seat and the covariates' logit."""
    n = games * PLAYERS
    ws = rng.integers(0, len(WONDERS), n)
    seat = np.arange(n) % PLAYERS
    return pd.DataFrame({"game": np.arange(n) // PLAYERS, "ws": ws, "seat": seat,
                         "eta": INTERCEPT + WONDER_LOGIT[ws] + SEAT_LOGIT[seat]})


def built_by_wonder(rng, rows: pd.DataFrame) -> np.ndarray:
    return rng.random(len(rows)) < BUILD_PROB[rows["ws"]]


def to_cells(rows: pd.DataFrame, built: dict, win: np.ndarray, groups: int = 10) -> pd.DataFrame:
    """Aggregate seat rows into the cell table, one block of rows per card (name → built)."""
    frames = [pd.DataFrame({
        "players": PLAYERS, "card": card, "built": b.astype(int),
        "wonder": WONDERS[rows["ws"]], "side": SIDES[rows["ws"]], "seat": rows["seat"],
        "policy": "heuristic", "group": rows["game"] % groups, "win": win,
    }) for card, b in built.items()]
    return (pd.concat(frames).groupby(KEYS, as_index=False)
            .agg(seats=("win", "size"), wins=("win", "sum")))


def planted(rng, games: int, beta_built: float):
    """Seat rows, the card's built flags, wins from the logistic model, and the true AME of
    the sampled covariates: mean over seats of σ(η + β) − σ(η)."""
    rows = seats(rng, games)
    built = built_by_wonder(rng, rows)
    win = rng.random(len(rows)) < sigmoid(rows["eta"] + beta_built * built)
    true_ame = float(np.mean(sigmoid(rows["eta"] + beta_built) - sigmoid(rows["eta"])))
    return rows, built, win, true_ame


def effect_row(cells: pd.DataFrame, **kwargs) -> pd.Series:
    out = card_effects(cells, **kwargs)
    assert len(out) == 1
    return out.iloc[0]


def test_planted_effect_is_recovered_and_the_raw_difference_is_confounded():
    rows, built, win, true_ame = planted(np.random.default_rng(1), 10_000, 0.5)
    assert 0.07 < true_ame < 0.13
    r = effect_row(to_cells(rows, {"Altar": built}, win))
    assert r["ci_low"] < true_ame < r["ci_high"]
    assert r["ci_low"] > 0
    raw = r["win_rate_built"] - r["win_rate_not_built"]
    assert abs(raw - true_ame) > 4 * r["se"]
    assert abs(raw - true_ame) > 3 * abs(r["effect"] - true_ame)


def test_no_effect_ci_covers_zero_at_about_the_nominal_rate():
    rng = np.random.default_rng(2)
    covered = []
    for _ in range(200):
        rows, built, win, _ = planted(rng, 750, 0.0)
        r = effect_row(to_cells(rows, {"Altar": built}, win))
        covered.append(r["ci_low"] <= 0 <= r["ci_high"])
    assert 0.90 <= np.mean(covered) <= 0.99


def test_delta_method_se_matches_statsmodels_margeff_on_individual_rows():
    rows, built, win, _ = planted(np.random.default_rng(3), 2_000, 0.4)
    r = effect_row(to_cells(rows, {"Altar": built}, win))
    exog = pd.concat([
        pd.Series(1.0, index=rows.index, name="const"),
        pd.Series(built.astype(float), index=rows.index, name="built"),
        pd.get_dummies(rows["ws"], prefix="ws", drop_first=True, dtype=float),
        pd.get_dummies(rows["seat"], prefix="seat", drop_first=True, dtype=float),
    ], axis=1)
    logit = sm.Logit(win.astype(float), exog).fit(disp=0)
    margeff = logit.get_margeff(at="overall", method="dydx", dummy=True)
    i = list(exog.columns).index("built") - 1  # margeff leaves out the constant
    assert r["effect"] == pytest.approx(margeff.margeff[i], rel=1e-4)
    assert r["se_delta"] == pytest.approx(margeff.margeff_se[i], rel=1e-4)
    # the jackknife se behind the CI estimates the same quantity (these seats are independent)
    assert r["se"] == pytest.approx(r["se_delta"], rel=0.35)


def test_rare_card_reports_rates_but_no_effect():
    rng = np.random.default_rng(4)
    rows = seats(rng, 1_000)
    win = rng.random(len(rows)) < sigmoid(rows["eta"])
    rare = rng.random(len(rows)) < 0.015
    common = built_by_wonder(rng, rows)
    out = card_effects(to_cells(rows, {"Zeus": rare, "Altar": common}, win))
    assert list(out.columns) == EFFECT_COLUMNS
    assert list(out["card"]) == ["Altar", "Zeus"]
    r = out.set_index("card").loc["Zeus"]
    assert 0 < r["seats_built"] < 100
    assert r["seats"] == len(rows)
    assert math.isnan(r["effect"]) and math.isnan(r["ci_low"]) and math.isnan(r["se"])
    assert r["build_rate"] == pytest.approx(rare.mean())
    assert r["win_rate_built"] == pytest.approx(win[rare].mean())
    assert r["win_rate_not_built"] == pytest.approx(win[~rare].mean())
    assert not math.isnan(out.set_index("card").loc["Altar", "effect"])


@pytest.mark.filterwarnings("error")  # statsmodels' warnings must be handled, not leaked
def test_perfect_separation_gives_nan_without_exception():
    rng = np.random.default_rng(5)
    rows = seats(rng, 2_000)
    built = built_by_wonder(rng, rows)
    win = rng.random(len(rows)) < sigmoid(rows["eta"])
    every_builder_wins = effect_row(to_cells(rows, {"Altar": built}, win | built))
    assert math.isnan(every_builder_wins["effect"])
    assert every_builder_wins["win_rate_built"] == 1.0
    # separation by a covariate passes the sample-size guards: the fit itself must fail
    one_wonder_always_wins = win | (rows["ws"] == 1).to_numpy()
    r = effect_row(to_cells(rows, {"Altar": built}, one_wonder_always_wins))
    assert math.isnan(r["effect"]) and math.isnan(r["se"])


def test_paired_mean_ci_covers_the_mean_at_the_nominal_rate():
    mu, n = 0.02, 10_000
    d = np.random.default_rng(6).normal(mu, 0.3, size=(500, n))
    covered = [lo <= mu <= hi for _, lo, hi, _ in
               (paired_mean_ci(n, s, s2) for s, s2 in zip(d.sum(axis=1), (d * d).sum(axis=1)))]
    assert 0.93 <= np.mean(covered) <= 0.97


def test_paired_mean_ci_small_example_by_hand():
    # 40 seats: 12 won only in the edited games, 4 only in the baseline, 24 alike: mean 0.2,
    # sample variance (16 − 8²/40) / 39 = 14.4 / 39, se² = that / 40
    mean, lo, hi, p = paired_mean_ci(40, 8.0, 16.0)
    assert mean == 0.2
    se = math.sqrt(14.4 / 39 / 40)
    assert lo == pytest.approx(0.2 - Z95 * se, abs=1e-12) and hi == pytest.approx(0.2 + Z95 * se, abs=1e-12)
    # McNemar's exact test on the 16 discordant pairs, 12 against 4: two-sided p = 0.0768
    # (the normal interval excludes 0, the exact test does not: few discordant pairs)
    assert p == pytest.approx(0.076812, abs=1e-6)
    assert lo > 0
    # below MIN_PAIRED seats: the mean only (2 seats both won only in the edited games: no "CI [1, 1], p 0")
    assert paired_mean_ci(2, 2.0, 2.0)[0] == 1.0
    assert all(math.isnan(x) for x in paired_mean_ci(2, 2.0, 2.0)[1:])
    assert all(math.isnan(x) for x in paired_mean_ci(0, 0.0, 0.0))


def test_independent_diff_ci_by_hand():
    # 0.3·0.7/1000 + 0.35·0.65/2000 = 0.00021 + 0.00011375
    lo, hi = independent_diff_ci(0.30, 1000, 0.35, 2000)
    half = Z95 * math.sqrt(0.00032375)
    assert lo == pytest.approx(0.05 - half, abs=1e-12)
    assert hi == pytest.approx(0.05 + half, abs=1e-12)


def pair(seed: int, beta_edited: float, same_draws: bool, groups: int = 20):
    """Cell tables of the same games twice: the same deals and builds, card Altar's built
    coefficient 0.3 → beta_edited, Zeus without effect; the edited outcomes reuse the base
    uniforms (win = u < p, as replaying the same games would) or draw fresh ones."""
    rng = np.random.default_rng(seed)
    rows = seats(rng, 5_000)
    built = {"Altar": built_by_wonder(rng, rows), "Zeus": rng.random(len(rows)) < 0.4}
    u = rng.random(len(rows))
    u_edited = u if same_draws else rng.random(len(rows))
    base = to_cells(rows, built, u < sigmoid(rows["eta"] + 0.3 * built["Altar"]), groups)
    edited = to_cells(rows, built, u_edited < sigmoid(rows["eta"] + beta_edited * built["Altar"]),
                      groups)
    return base, edited


def test_paired_effects_of_identical_datasets_are_exactly_zero():
    base, _ = pair(7, 0.3, same_draws=True)
    out = paired_effects(base, base.copy())
    assert list(out["card"]) == ["Altar", "Zeus"]
    assert (out["diff"] == 0).all()
    assert (out["ci_low"] == 0).all() and (out["ci_high"] == 0).all()


def test_paired_ci_detects_an_edit_and_is_narrower_than_independent_runs():
    out = paired_effects(*pair(8, 0.7, same_draws=True)).set_index("card")
    altar = out.loc["Altar"]
    assert altar["diff"] == pytest.approx(altar["value"] - altar["baseline"])
    assert altar["ci_low"] > 0
    paired_width = altar["ci_high"] - altar["ci_low"]
    independent_width = altar["ci_high_independent"] - altar["ci_low_independent"]
    assert paired_width < 0.75 * independent_width


def test_paired_ci_of_an_unchanged_card_in_a_noisy_pair_covers_zero():
    out = paired_effects(*pair(9, 0.3, same_draws=False)).set_index("card")
    for card in ["Altar", "Zeus"]:
        r = out.loc[card]
        assert r["ci_low"] < 0 < r["ci_high"]
        # independent outcomes: the jackknife should find about the independent-runs width
        ratio = (r["ci_high"] - r["ci_low"]) / (r["ci_high_independent"] - r["ci_low_independent"])
        assert 0.6 < ratio < 1.6


def test_paired_effects_card_in_one_dataset_only_and_too_few_blocks():
    base, edited = pair(10, 0.3, same_draws=True)
    out = paired_effects(base[base["card"] == "Altar"], edited).set_index("card")
    assert math.isnan(out.loc["Zeus", "baseline"]) and not math.isnan(out.loc["Zeus", "value"])
    assert math.isnan(out.loc["Zeus", "diff"]) and math.isnan(out.loc["Zeus", "ci_low"])
    one_block = paired_effects(base.assign(group=0), edited.assign(group=0)).set_index("card")
    assert not math.isnan(one_block.loc["Altar", "diff"])  # an estimate, but no CI from one block
    assert one_block[["ci_low", "ci_high", "ci_low_independent", "ci_high_independent"]].isna().all().all()


def test_one_step_jackknife_is_close_to_full_refits():
    """Each leave-one-block-out effect, one Newton step from the full fit, against a full
    statsmodels refit without that block: within 5% of the jackknife's spread."""
    rows, built, win, _ = planted(np.random.default_rng(5), 4_000, 0.4)
    cells = to_cells(rows, {"Altar": built}, win, groups=10)
    ((design, fit),) = effects.fit_cells(cells).values()
    one_step = effects._jackknife(design, fit, np.arange(10))
    refits = []
    for g in range(10):
        seats, wins = design.totals(leave_out=g)
        params, _ = effects._fit(design.exog, seats, wins)
        refits.append(effects._ame(design.exog[seats > 0], seats[seats > 0], params)[0])
    refits = np.array(refits)
    spread = refits.std()
    assert spread > 0
    assert np.abs(np.array([one_step[g] for g in range(10)]) - refits).max() < 0.05 * spread


def test_wilson_bounds_are_exact_at_none_and_all():
    from wsim.analysis.stats import wilson_interval

    for n in range(1, 3000):
        assert wilson_interval(0, n)[0] == 0.0 and wilson_interval(n, n)[1] == 1.0
    from statsmodels.stats.proportion import proportion_confint

    for k, n in ((3, 10), (1, 400), (250, 251)):
        assert wilson_interval(k, n) == pytest.approx(proportion_confint(k, n, method="wilson"), abs=1e-9)
