"""How far from fair, in the sizes a designer reads (docs/analysis.md, "How far from fair"):
points of win share, victory points, and a verdict that needs both significance and size.

- Points of win share: a side's win rate less the fair share, in percentage points; its 95% CI
  is the Wilson interval's, shifted by the same fair share (the score test treats it as known).
- Victory points: the handicap that would bring the side to the fair share if the players
  played the same games. A seat of margin m (wsim.analysis.balance.read.margin_table: the
  points it could lose and still win) still wins under a handicap of k points exactly when
  m ≥ k, so the side's win rate under k is the share of its seats with m ≥ k, known for every
  whole k from the games themselves; between whole points it is read linearly. The handicap is
  where that curve meets the fair share (negative: points the side would need to gain). Its 95%
  CI inverts the same Wilson interval: the handicaps at which the curve's Wilson bounds meet the
  fair share. So the VP interval excludes 0 exactly when the win rate's interval excludes the
  fair share. A card's effect (probability points) becomes VP through the player count's slope
  of winning per point at no handicap: the share of all its seats whom one point more, or one
  less, would have turned (m = −1 or 0), halved.
- The verdict: "too strong" or "too weak" (a finding, ★) only when q < 0.05 and the distance
  from fair is at least the practical threshold, a fraction of the fair share (`--practical`,
  PRACTICAL by default: 2 points of win share at 4 players); closer than that, a significant row
  is "fair enough", and so is a row whose whole interval lies within the threshold; any other
  row is "not resolved".
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from wsim.analysis.significance import FINDING_Q, wilson_ci

PRACTICAL = 0.08  # the practical threshold's default, as a fraction of the fair share
TOO_STRONG, TOO_WEAK, FAIR_ENOUGH, NOT_RESOLVED = "too strong", "too weak", "fair enough", "not resolved"
FINDINGS = (TOO_STRONG, TOO_WEAK)


def handicap_curve(margins, seats) -> tuple:
    """The win rate under a handicap of k points, for every whole k from one below the smallest
    margin (every seat wins: rate 1) to one above the largest (none does: rate 0), with its
    Wilson 95% bounds: (k, rate, low, high) arrays. `margins`, `seats`: each margin and its count."""
    margins, seats = np.asarray(margins, dtype=np.int64), np.asarray(seats, dtype=np.int64)
    k = np.arange(margins.min() - 1, margins.max() + 2)
    count = np.zeros(len(k), dtype=np.int64)
    np.add.at(count, margins - k[0], seats)
    winning = count[::-1].cumsum()[::-1]  # seats with margin >= k
    n = int(seats.sum())
    bounds = np.array([wilson_ci(int(w), n) for w in winning])
    return k, winning / n, bounds[:, 0], bounds[:, 1]


def crossing(k, curve, level: float) -> float:
    """The handicap at which a falling curve, read linearly between whole points, meets `level`;
    +inf or −inf when it stays above or below it everywhere."""
    if curve[-1] >= level:
        return math.inf
    if curve[0] <= level:
        return -math.inf
    return float(np.interp(level, curve[::-1], k[::-1]))


def fair_handicap(margins, seats, fair: float) -> tuple:
    """(handicap, low, high): the points a side would need to lose to win its fair share, with the
    95% CI that inverts the Wilson interval (the module's docstring)."""
    if not np.asarray(seats).sum():
        return math.nan, math.nan, math.nan
    k, rate, low, high = handicap_curve(margins, seats)
    return crossing(k, rate, fair), crossing(k, low, fair), crossing(k, high, fair)


def side_sizes(wonders: pd.DataFrame, margins: pd.DataFrame) -> pd.DataFrame:
    """wonders.csv's rows with their size: `diff` (win rate less the fair share) and `handicap`,
    `handicap_ci_low`, `handicap_ci_high` (read.margin_table's counts, side by side)."""
    groups = dict(list(margins.groupby(["players", "wonder", "side"])))
    sizes = [fair_handicap(g.margin, g.seats, fair) if (g := groups.get((p, w, s))) is not None else (math.nan,) * 3
             for p, w, s, fair in zip(wonders.players, wonders.wonder, wonders.side, wonders.fair_share)]
    vp = pd.DataFrame(sizes, columns=["handicap", "handicap_ci_low", "handicap_ci_high"], index=wonders.index)
    return pd.concat([wonders.assign(diff=wonders.win_rate - wonders.fair_share), vp], axis=1)


def point_slopes(margins: pd.DataFrame) -> pd.Series:
    """Per player count, the change in a seat's chance of winning for one point: the share of its
    seats of margin −1 (one point short) or 0 (no point to spare), halved."""
    turned = margins[margins.margin.isin((-1, 0))].groupby("players").seats.sum()
    return (turned / margins.groupby("players").seats.sum()).fillna(0.0) / 2


def card_sizes(cards: pd.DataFrame, slopes: pd.Series) -> pd.DataFrame:
    """cards.csv's rows with their effect in victory points: `effect_vp`, `effect_vp_ci_low`,
    `effect_vp_ci_high` (the effect and its CI over the player count's slope, taken as known:
    it rests on every seat, the effect on a card's builders)."""
    slope = cards.players.map(slopes).replace(0.0, math.nan)
    return cards.assign(effect_vp=cards.effect / slope, effect_vp_ci_low=cards.ci_low / slope,
                        effect_vp_ci_high=cards.ci_high / slope)


def verdict(q: float, diff: float, low: float, high: float, threshold: float) -> str:
    """The verdict of one row: its q-value, its distance from fair (`diff`, with its CI) and the
    practical threshold, in the same units."""
    if math.isnan(diff):
        return NOT_RESOLVED
    if q < FINDING_Q:  # False for a NaN q (no estimate)
        if abs(diff) >= threshold:
            return TOO_STRONG if diff > 0 else TOO_WEAK
        return FAIR_ENOUGH
    return FAIR_ENOUGH if -threshold < low and high < threshold else NOT_RESOLVED


def with_verdicts(table: pd.DataFrame, diff: str, low, high, thresholds: pd.Series) -> pd.DataFrame:
    """`table` with `threshold` (per row) and `verdict`; `low`, `high`: the CI of `diff` (Series)."""
    rows = zip(table.q_value, table[diff], low, high, thresholds)
    return table.assign(threshold=thresholds.to_numpy(),
                        verdict=[verdict(*(float(x) for x in row)) for row in rows])


def by_distance(table: pd.DataFrame, diff: str) -> pd.DataFrame:
    """The rows, farthest from fair first (rows without an estimate last)."""
    return table.assign(_d=table[diff].abs()).sort_values("_d", ascending=False, na_position="last",
                                                          kind="stable").drop(columns="_d")
