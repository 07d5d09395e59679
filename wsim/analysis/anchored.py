"""Verdicts anchored on skill (docs/survey.md, "Verdicts anchored on skill"): what a designer can
act on, per wonder side and per card.

A survey's older verdict is `robust` only when every population agrees, so its weakest players
veto every answer. Here the answer is the ANCHOR's — the strongest people-like population, by
default the last one listed — sized as `wsim balance` sizes it (size.verdict: too strong, too
weak, fair enough, not resolved), and then checked twice:
- stability: the anchor against the NEXT RUNG DOWN (the population listed just before it) on the
  games they share (survey's pairs): `stable` when their paired difference has q ≥ 0.05, `moves`
  when q < 0.05 ("" with no rung below, or too few shared seats for a test);
- people: `contradicted` when people's rate differs from the anchor's (playtest.compare, q <
  0.05), `confirmed` when people's data exist and do not, `no people data` otherwise (every
  card: people have no card effects).

The action, in this order: contradicted → "don't act" (the bots are not answering for people);
size not resolved, or moves → "not yet"; too strong or too weak → "act"; fair enough → "don't
act". games_needed (only "not yet" from an unresolved size): the games at which the anchor's
distance from fair would be significant with 80% power at its family's Bonferroni threshold
(verdicts.games_for_rate / games_for_estimate, as the survey's verdicts count them), or — for a
distance within the practical threshold — at which its 95% interval would fit inside the
threshold (fair enough), whichever comes first. A side that moves has no such count: more games
of the same two rungs do not make them agree.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from wsim.analysis.balance import answers, read, size
from wsim.analysis.balance.report import cards_table, sized_cards, sized_wonders
from wsim.analysis.significance import FINDING_Q
from wsim.analysis.stats import Z95
from wsim.analysis.verdicts import games_for_estimate, games_for_rate, games_text, normal_critical, t_critical

ACT, DONT_ACT, NOT_YET = "act", "don't act", "not yet"
ACTIONS = (ACT, NOT_YET, DONT_ACT)  # the order a page lists them in
STABLE, MOVES = "stable", "moves"
CONFIRMED, CONTRADICTED, NO_PEOPLE = "confirmed", "contradicted", "no people data"
DIRECTION = {size.TOO_STRONG: "too strong", size.TOO_WEAK: "too weak", size.FAIR_ENOUGH: "fair",
             size.NOT_RESOLVED: ""}

SIDE_COLUMNS = ("players", "wonder", "side", "anchor", "below", "win_rate", "ci_low", "ci_high", "fair_share", "diff",
                "vp", "vp_ci_low", "vp_ci_high", "q_value", "size_verdict", "pair_diff", "pair_ci_low",
                "pair_ci_high", "pair_q", "stability", "people_rate", "people_ci_low", "people_ci_high", "people_q",
                "people", "action", "direction", "games_needed", "why")
CARD_COLUMNS = ("players", "card", "anchor", "below", "effect", "ci_low", "ci_high", "vp", "q_value", "size_verdict",
                "pair_diff", "pair_ci_low", "pair_ci_high", "pair_q", "stability", "people", "action", "direction",
                "games_needed", "why")
_PAIR = ["pair_diff", "pair_ci_low", "pair_ci_high", "pair_q"]
_PEOPLE = ["people_rate", "people_ci_low", "people_ci_high", "people_q"]


def population_sizes(con, ds: read.Dataset, wonders: pd.DataFrame, effects: pd.DataFrame,
                     practical: float = size.PRACTICAL) -> tuple:
    """(sides, cards): one population's wonders_table and card effects sized exactly as `wsim
    balance` sizes its dataset (report.sized_wonders, sized_cards: VP from its margins, q-values
    in its own families, the practical threshold `practical` × the fair share)."""
    margins = read.margin_table(con, ds)
    sides = sized_wonders(wonders, margins, practical)
    fair = sides.groupby("players").fair_share.first()
    return sides, sized_cards(cards_table(effects), margins, fair, practical)


# ---------------------------------------------------------------------------------------------
# The rules, one row at a time

def stability(pair_q: float, below: str | None) -> str:
    """Does the next rung down give the same answer? Without a rung below, or without a test
    (too few shared seats), nothing is known: ""."""
    if below is None or math.isnan(pair_q):
        return ""
    return MOVES if pair_q < FINDING_Q else STABLE


def people_state(people_rate: float, people_q: float) -> str:
    """What people's own games say of the anchor's rate: a q-value only where both have seats."""
    if math.isnan(people_rate) or math.isnan(people_q):
        return NO_PEOPLE
    return CONTRADICTED if people_q < FINDING_Q else CONFIRMED


def action(size_verdict: str, stable: str, people: str) -> str:
    """The module's order: people first (a bot's answer people contradict is not the game's),
    then what is still open, then the size."""
    if people == CONTRADICTED:
        return DONT_ACT
    if size_verdict == size.NOT_RESOLVED or stable == MOVES:
        return NOT_YET
    return ACT if size_verdict in size.FINDINGS else DONT_ACT


def settle_games(diff: float, se: float, threshold: float, games: int, to_significance: float,
                 interval_critical: float) -> float:
    """Games that would settle an unresolved size verdict: `to_significance` (the games at which
    `diff` would be significant in its family), or for a distance within the threshold, fewer if
    its 95% interval (critical `interval_critical`) would sooner fit inside ±threshold; NaN for
    no estimate (nothing says how many)."""
    if math.isnan(diff):
        return math.nan
    if abs(diff) >= threshold:
        return to_significance
    return min(to_significance, games_for_estimate(threshold - abs(diff), se, games, interval_critical))


# ---------------------------------------------------------------------------------------------
# The phrases

def _points(x: float, signed: bool = True) -> str:
    """A share or an effect in percentage points, one decimal, a true minus."""
    return answers.number(100 * x, signed)


def _why_size(verdict: str, anchor: str) -> str:
    if verdict in size.FINDINGS:
        return f"{anchor} finds it {verdict}"
    if verdict == size.FAIR_ENOUGH:
        return f"{anchor} finds it fair enough"
    return f"{anchor} cannot tell it from fair yet"


def _why_stability(stable: str, anchor: str, below: str | None, pair_diff: float) -> str:
    if stable == STABLE:
        return f"{anchor} and {below} agree"
    if stable == MOVES:
        return f"{anchor} and {below} differ by {_points(pair_diff)} points"
    return "no rung below" if below is None else f"too few shared games to compare with {below}"


def _why_people(state: str, anchor: str, rate: float, people_rate: float) -> str:
    if state == CONFIRMED:
        return "people agree"
    if state == CONTRADICTED:
        return f"people differ (people win {_points(people_rate, False)}%, {anchor} {_points(rate, False)}%)"
    return NO_PEOPLE


def _why(r, anchor: str, below: str | None, rate: float, people_rate: float) -> str:
    """A short plain phrase: the anchor's answer; whether the rung below agrees; people."""
    if math.isnan(r.diff):
        first = f"no estimate from {anchor}"
    else:
        first = _why_size(r.verdict, anchor)
    return "; ".join((first, _why_stability(r.stability, anchor, below, r.pair_diff),
                      _why_people(r.people, anchor, rate, people_rate)))


# ---------------------------------------------------------------------------------------------
# The tables

def _pairs_of(pairs: pd.DataFrame, key: list, anchor: str, below: str | None) -> pd.DataFrame:
    """The anchor and the rung below compared, as anchor − below (pairs hold a − b in the
    populations' order): key + pair_diff, pair_ci_low, pair_ci_high, pair_q."""
    if below is None:
        return pd.DataFrame(columns=key + _PAIR)
    mine = pairs[((pairs.population_a == anchor) & (pairs.population_b == below))
                 | ((pairs.population_a == below) & (pairs.population_b == anchor))]
    sign = np.where(mine.population_a == anchor, 1.0, -1.0)

    def turned(column: str) -> np.ndarray:  # + 0.0: a difference of 0 turned is 0, not −0
        return mine[column].to_numpy(float) * sign + 0.0

    low, high = turned("ci_low"), turned("ci_high")
    return pd.DataFrame({**{k: mine[k].to_numpy() for k in key}, "pair_diff": turned("diff"),
                         "pair_ci_low": np.minimum(low, high), "pair_ci_high": np.maximum(low, high),
                         "pair_q": mine.q_value.to_numpy(float)})


def _people_of(people: pd.DataFrame | None, anchor: str) -> pd.DataFrame:
    """People's comparison with the anchor (playtest.compare's rows of the anchor), side by side."""
    key = ["players", "wonder", "side"]
    if people is None:
        return pd.DataFrame(columns=key + _PEOPLE)
    mine = people[people.population == anchor]
    return pd.DataFrame({**{k: mine[k].to_numpy() for k in key}, "people_rate": mine.people_rate.to_numpy(float),
                         "people_ci_low": mine.people_ci_low.to_numpy(float),
                         "people_ci_high": mine.people_ci_high.to_numpy(float),
                         "people_q": mine.q_value.to_numpy(float)})


def _anchor_rows(sized: pd.DataFrame, pairs: pd.DataFrame, key: list, anchor: str, below: str | None) -> pd.DataFrame:
    """The anchor's sized rows with the pair's columns and its stability."""
    rows = sized[sized.population == anchor].drop(columns=["population"]).reset_index(drop=True)
    rows = rows.merge(_pairs_of(pairs, key, anchor, below), on=key, how="left")
    rows[_PAIR] = rows[_PAIR].astype(float)
    return rows.assign(anchor=anchor, below=below or "",
                       stability=[stability(q, below) for q in rows.pair_q])


def _finish(rows: pd.DataFrame, needed: list, why: list, columns: tuple) -> pd.DataFrame:
    """The action, direction, games_needed (text, only for "not yet" from an unresolved size:
    more games do not settle a rung that moves) and why of every row."""
    act = [action(v, s, p) for v, s, p in zip(rows.verdict, rows.stability, rows.people)]
    games = [g if a == NOT_YET and v == size.NOT_RESOLVED else math.nan for a, v, g in zip(act, rows.verdict, needed)]
    out = rows.assign(size_verdict=rows.verdict, action=act, direction=rows.verdict.map(DIRECTION).fillna(""),
                      games_needed=[games_text(g) for g in games], why=why)
    return out.loc[:, list(columns)]


def anchored_sides(sized: pd.DataFrame, pairs: pd.DataFrame, people: pd.DataFrame | None, anchor: str,
                   below: str | None) -> pd.DataFrame:
    """The anchored verdict of every wonder side (SIDE_COLUMNS).

    sized: report.sized_wonders rows (population_sizes' sides) with `population` and `games`,
    the anchor's at least; pairs: survey's pairs (population_a, population_b, diff = a − b,
    ci_low, ci_high, q_value); people: playtest.compare's rows (None: no people data); anchor,
    below: population names (below None: no rung below)."""
    key = ["players", "wonder", "side"]
    rows = _anchor_rows(sized, pairs, key, anchor, below)
    rows = rows.merge(_people_of(people, anchor), on=key, how="left")
    rows[_PEOPLE] = rows[_PEOPLE].astype(float)
    rows = rows.assign(vp=rows.handicap, vp_ci_low=rows.handicap_ci_low, vp_ci_high=rows.handicap_ci_high,
                       people=[people_state(r, q) for r, q in zip(rows.people_rate, rows.people_q)])
    m = rows.groupby("players").q_value.count().to_dict()
    needed = [settle_games(r.diff, (r.ci_high - r.ci_low) / (2 * Z95), r.threshold, r.games,
                           games_for_rate(r.win_rate, r.fair_share, r.seats, r.games, normal_critical(m[r.players])),
                           Z95) for r in rows.itertuples()]
    why = [_why(r, anchor, below, r.win_rate, r.people_rate) for r in rows.itertuples()]
    return _finish(rows, needed, why, SIDE_COLUMNS)


def anchored_cards(sized: pd.DataFrame, pairs: pd.DataFrame, anchor: str, below: str | None) -> pd.DataFrame:
    """The anchored verdict of every card (CARD_COLUMNS): as anchored_sides, with
    report.sized_cards rows (population_sizes' cards, with `population` and `games`) and
    survey's card pairs; people have no card effects."""
    key = ["players", "card"]
    rows = _anchor_rows(sized, pairs, key, anchor, below)
    rows = rows.assign(diff=rows.effect, vp=rows.effect_vp, people=NO_PEOPLE)
    m = rows.groupby("players").q_value.count().to_dict()
    needed = []
    for r in rows.itertuples():
        df = read.jackknife_df(r.games)
        needed.append(settle_games(r.effect, r.se, r.threshold, r.games,
                                   games_for_estimate(r.effect, r.se, r.games, t_critical(m.get(r.players, 1), df)),
                                   t_critical(1, df)))
    why = [_why(r, anchor, below, math.nan, math.nan) for r in rows.itertuples()]
    return _finish(rows, needed, why, CARD_COLUMNS)


# ---------------------------------------------------------------------------------------------
# A line per row, for a page

def line(r, name: str, unit: str = "points of win share") -> str:
    """The anchored verdict of one row (a row of anchored_sides' or anchored_cards' itertuples)
    as a line a page opens with: "act: Rhodes B too strong by 6.2 points of win share (3.1 VP)"."""
    diff = r.diff if hasattr(r, "diff") else r.effect
    vp = "" if math.isnan(r.vp) else f" ({answers.number(abs(r.vp), False)} VP)"
    if r.action == ACT:
        return f"act: {name} {r.direction} by {_points(abs(diff), False)} {unit}{vp}"
    if r.action == DONT_ACT and r.people == CONTRADICTED:
        return f"don't act: {name}: {r.why}"
    if r.action == DONT_ACT:
        return f"don't act: {name} fair enough ({_points(diff)} {unit})"
    if r.games_needed:
        moves = f"; {r.anchor} and {r.below} differ by {_points(r.pair_diff)} points" if r.stability == MOVES else ""
        return (f"not yet: {name} {_points(diff)} {unit} (about {_games(r.games_needed)} games would settle it"
                f"{moves})")
    if r.stability == MOVES:
        return f"not yet: {name}: {r.why} (a stronger rung, not more games, would settle it)"
    return f"not yet: {name}: {r.why}"


def _games(text: str) -> str:
    return "∞" if text == "inf" else f"{int(text):,}"


def ordered(table: pd.DataFrame, value: str = "diff") -> pd.DataFrame:
    """act first, then not yet, then don't act; each farthest from fair first."""
    rank = table.action.map({a: i for i, a in enumerate(ACTIONS)})
    return table.assign(_r=rank, _d=-table[value].abs()).sort_values(
        ["_r", "_d"], kind="stable", na_position="last").drop(columns=["_r", "_d"])
