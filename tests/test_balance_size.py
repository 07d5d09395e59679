"""How far from fair (wsim.analysis.balance.size, docs/analysis.md "How far from fair"): the VP
handicap against small hand-computed examples, the verdict's threshold logic on a constructed
table, the order of the rows, and each seat's margin against the kernels' own `win` column."""

import math

import numpy as np
import pandas as pd
import pyarrow.dataset as pads
import pytest

from clikit import run_cli
from wsim.analysis.balance import answers, read, size
from wsim.analysis.stats import wilson_interval
from wsim.tables import load

# ten seats of one side: margins -2 (one seat), -1 (two), 0 (three), 1 (two), 2 (two)
MARGINS, SEATS = [-2, -1, 0, 1, 2], [1, 2, 3, 2, 2]


def test_the_handicap_curve_by_hand():
    k, rate, low, high = size.handicap_curve(MARGINS, SEATS)
    assert list(k) == [-3, -2, -1, 0, 1, 2, 3]
    # seats with margin >= k, of 10: every one down to -2, then 9, 7, 4, 2, none
    assert list(rate) == [1.0, 1.0, 0.9, 0.7, 0.4, 0.2, 0.0]
    assert rate[3] == pytest.approx(7 / 10)  # no handicap: the win rate itself
    assert (low[3], high[3]) == pytest.approx(wilson_interval(7, 10)) and (low[3], high[3]) == pytest.approx(
        (0.3968, 0.8922), abs=1e-4)


def test_the_handicap_by_hand():
    # a fair share of 25%: 40% win with a 1-point handicap, 20% with 2, so linearly 1.75 points
    vp, low, high = size.fair_handicap(MARGINS, SEATS, 0.25)
    assert vp == pytest.approx(1.75)
    # ten seats: the Wilson interval of 0 wins of 10 reaches 27.8% > 25%, so no handicap is
    # surely enough (+inf); the low end: Wilson lows 39.7% at 0 points (7/10), 16.8% at 1 (4/10)
    assert high == math.inf
    assert low == pytest.approx((0.3967 - 0.25) / (0.3967 - 0.1682), abs=2e-3)
    # a hundred times the seats: Wilson bounds at 1 point (400/1000) 37.007-43.069%, at 2 points
    # (200/1000) 17.638-22.592%: the low end 1 + 12.007/19.370, the high end 1 + 18.069/20.477
    vp, low, high = size.fair_handicap(MARGINS, [100 * s for s in SEATS], 0.25)
    assert (vp, round(low, 3), round(high, 3)) == (pytest.approx(1.75), 1.620, 1.882)


def test_a_weak_side_needs_points_and_its_interval_matches_the_win_rates():
    """Below fair the handicap is negative (points to gain), and the VP interval excludes 0
    exactly when the Wilson interval of the win rate excludes the fair share."""
    vp, low, high = size.fair_handicap(MARGINS, [100 * s for s in SEATS], 0.8)
    assert vp == pytest.approx(-0.5) and low < vp < high < 0  # 70% win at 0 points, 90% with one more
    for fair in (0.60, 0.66, 0.70, 0.74, 0.80):
        _, low, high = size.fair_handicap(MARGINS, [100 * s for s in SEATS], fair)
        _, _, wlow, whigh = size.handicap_curve(MARGINS, [100 * s for s in SEATS])
        assert (low <= 0 <= high) == (wlow[3] <= fair <= whigh[3]), fair


def test_the_slope_of_a_point_by_hand():
    margins = pd.DataFrame({"players": [4] * 5 + [3] * 2, "margin": MARGINS + [0, 5], "seats": SEATS + [1, 3]})
    slopes = size.point_slopes(margins)
    # 4 players: 2 seats one point short and 3 with none to spare, of 10, halved; 3 players: 1 of 4
    assert slopes[4] == pytest.approx(0.25) and slopes[3] == pytest.approx(0.125)
    cards = pd.DataFrame({"players": [4, 3], "effect": [0.05, -0.02], "ci_low": [0.03, -0.04], "ci_high": [0.07, 0.0]})
    sized = size.card_sizes(cards, slopes)
    assert list(sized.effect_vp) == pytest.approx([0.2, -0.16])
    assert list(sized.effect_vp_ci_low) == pytest.approx([0.12, -0.32])
    assert list(sized.effect_vp_ci_high) == pytest.approx([0.28, 0.0])


def test_significant_and_large_is_a_finding_and_significant_but_small_is_fair_enough():
    threshold = 0.08 * 0.25  # the default at 4 players: 2 points of win share
    table = pd.DataFrame([
        ("far above", 1e-9, 0.050, 0.040, 0.060, size.TOO_STRONG),
        ("far below", 1e-9, -0.030, -0.040, -0.020, size.TOO_WEAK),
        ("at the threshold", 0.01, 0.020, 0.010, 0.030, size.TOO_STRONG),
        ("significant, small", 1e-6, 0.015, 0.010, 0.020, size.FAIR_ENOUGH),
        ("small below", 0.001, -0.0199, -0.030, -0.010, size.FAIR_ENOUGH),
        ("not significant, narrow", 0.4, 0.004, -0.010, 0.018, size.FAIR_ENOUGH),
        ("not significant, wide", 0.3, 0.004, -0.030, 0.038, size.NOT_RESOLVED),
        ("large but not significant", 0.06, 0.060, -0.001, 0.121, size.NOT_RESOLVED),
        ("no estimate", math.nan, math.nan, math.nan, math.nan, size.NOT_RESOLVED),
    ], columns=["name", "q_value", "diff", "low", "high", "expected"])
    out = size.with_verdicts(table, "diff", table.low, table.high, pd.Series([threshold] * len(table)))
    assert list(out.verdict) == list(table.expected), list(zip(out.name, out.verdict))
    assert list(out.threshold) == [threshold] * len(table)


def test_rows_are_sorted_by_their_distance_from_fair():
    table = pd.DataFrame({"key": list("abcdef"), "diff": [0.01, -0.09, math.nan, 0.05, -0.002, -0.05]})
    assert list(size.by_distance(table, "diff").key) == ["b", "d", "f", "a", "e", "c"]  # ties keep their order


def test_a_verdict_sentence_reads_size_interval_seats_and_players():
    row = pd.DataFrame([{"players": 4, "wonder": "rhodes", "side": "B", "seats": 3412, "win_rate": 0.311,
                         "ci_low": 0.296, "ci_high": 0.327, "fair_share": 0.25, "q_value": 2e-12,
                         "handicap": 3.21, "handicap_ci_low": 2.84, "handicap_ci_high": 3.63, "threshold": 0.02,
                         "verdict": size.TOO_STRONG, "diff": 0.061}])
    text, = answers.side_sentences(row, answers.population(["heuristic"] * 4))
    assert text == ("★ Rhodes B (4 players) is 6.1 points of win share <b>too strong</b> [4.6, 7.7] — about "
                    "3.2 VP [2.8, 3.6]; 3,412 seats (heuristic at every seat); q &lt; 0.001.".replace("&lt;", "<"))
    weak = row.assign(win_rate=0.2, ci_low=0.19, ci_high=0.21, diff=-0.05, handicap=-1.5, handicap_ci_low=-1.8,
                      handicap_ci_high=-1.2, verdict=size.TOO_WEAK, wonder="manneken_pis", side="A")
    assert answers.side_sentences(weak, "x")[0].startswith("★ Manneken Pis A (4 players) is 5.0 points of win "
                                                            "share <b>too weak</b> [4.0, 6.0] — about 1.5 VP [1.2, 1.8]")
    fair = row.assign(win_rate=0.255, ci_low=0.245, ci_high=0.265, diff=0.005, handicap=0.1, handicap_ci_low=-0.2,
                      handicap_ci_high=math.inf, verdict=size.FAIR_ENOUGH, q_value=0.327)
    assert answers.side_sentences(fair, "greedy, random")[0] == (
        "Rhodes B (4 players) is fair enough (within ±2.0): +0.5 points of win share [−0.5, +1.5] — about "
        "+0.1 VP [−0.2, +∞]; 3,412 seats (greedy, random); q = 0.327.")
    assert answers.population(["greedy", "greedy", "random"]) == "seats played by greedy, greedy, random"


@pytest.fixture(scope="module", params=[(3, "greedy"), (2, "random")])
def small(request, tmp_path_factory):
    players, policy = request.param
    out = tmp_path_factory.mktemp("margins") / "ds"
    result = run_cli("simulate", "--games", "1500", "--players", str(players), "--policy", policy, "--seed", "4",
                     "--threads", "1", "--out", str(out))
    assert result.exit_code == 0, result.output
    return out


def test_each_seats_margin_decides_its_win_as_the_kernels_do(small):
    """The margin computed seat by seat in pandas (the Free City left out) matches DuckDB's
    table, and a seat wins exactly when its margin is 0 or more: the tie rule (coins, then a
    shared victory) read as the kernels apply it."""
    rows = pads.dataset(small).to_table().to_pandas().astype({"wonder": str, "side": str})
    if "free_city" in rows:
        rows = rows[~rows.free_city]
    rows = rows.sort_values(["game", "seat"]).reset_index(drop=True)
    margins, ties = [], 0
    for points, coins in zip(*(np.split(rows[c].to_numpy(dtype=int), np.flatnonzero(np.diff(rows.game)) + 1)
                               for c in ("vp_total", "coins"))):
        for i in range(len(points)):
            others = np.arange(len(points)) != i
            best = points[others].max()
            most = coins[others & (points == best)].max()
            margins.append(points[i] - best - int(coins[i] < most))
            ties += points[i] == best
    rows = rows.assign(margin=margins)
    assert ties > 10  # the tie rule is exercised
    assert ((rows.margin >= 0) == rows.win).all()
    table = read.margin_table(read.connect(), read.open_dataset(small, load(None)))
    mine = rows.groupby(["players", "wonder", "side", "margin"]).agg(seats=("win", "size"), wins=("win", "sum"))
    theirs = table.set_index(["players", "wonder", "side", "margin"])[["seats", "wins"]]
    assert mine.index.equals(theirs.index)  # both in the order of (players, wonder, side, margin)
    assert np.array_equal(mine.to_numpy(dtype=float), theirs.to_numpy(dtype=float))
