"""A population held against people at one player count: every table `wsim people` shows, as rows.

`compare(population, people, players, name)` reads two Aggregates (wsim.people.aggregate) and
returns a Comparison: the board table of first-place shares and the same of last places (each
board's two shares with their 95% intervals, the difference with its interval, a two-sided z-test
and Benjamini–Hochberg q-values over the boards of the table), the score level, the points by
category, the behaviour and the winners' profile (play rows), the per-board breakdown, and the
distance (wsim.people.distance).

Which games: the whole comparison uses the board view of `distance.board_view` — side B on the
tables whose every board is on side B when both sources have enough seats there, else every
table, either side — so that every number of one comparison stands on the same tables. When no
board view exists (too few seats), every table, either side, is shown and the distance is None.

Rows are dicts whose keys are their CSV's columns (ROW_COLUMNS); a value that cannot be estimated,
or a quantity one source does not have (a dataset of schema 1 or 2 has no `discards`), is None.
Base install only (numpy and math).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from wsim.analysis.stats import Z95
from wsim.people.aggregate import ANY, BEHAVIOUR, CATEGORIES, GAME_QUANTITIES, LARGEST, Aggregate, Moments
from wsim.people.distance import Distance, board_view, distance

BOARD_COLUMNS = ("population", "players", "tables", "side", "wonder", "rate", "ci_low", "ci_high", "seats",
                 "people_rate", "people_ci_low", "people_ci_high", "people_seats", "diff", "diff_ci_low",
                 "diff_ci_high", "p_value", "q_value")
_MEASURE = ("mean", "ci_low", "ci_high", "n", "people_mean", "people_ci_low", "people_ci_high", "people_n", "diff")
PLAY_COLUMNS = ("population", "players", "section", "quantity", *_MEASURE)
BREAKDOWN_COLUMNS = ("population", "players", "wonder", "side", "quantity", *_MEASURE)
DISTANCE_COLUMNS = ("population", "players", "tables", "side", "boards", "chi2", "df", "p_value", "spearman", "games",
                    "people_games")

# play.csv's sections: (section, where the moments are, quantities)
SECTIONS = (("score", "games", GAME_QUANTITIES),
            ("points", "seats", (*CATEGORIES, "vp_total")),
            ("behaviour", "seats", BEHAVIOUR),
            ("winners", "winners", ("has_guild", "science_20", *LARGEST)))
# the per-board "why": what a board's seats build and score
BREAKDOWN = ("stages", "vp_science", "vp_wonder", "vp_total", "discards", "coins_paid")


@dataclass
class Comparison:
    """One population against people at one player count (the module's docstring)."""

    population: str
    players: int
    tables: str  # the games every table stands on: "all_b" or "all"
    side: str  # "B" (all-B tables) or ANY
    distance: Distance | None
    boards: list = field(default_factory=list)  # BOARD_COLUMNS rows: first-place shares
    lasts: list = field(default_factory=list)  # BOARD_COLUMNS rows: last-place shares
    play: list = field(default_factory=list)  # PLAY_COLUMNS rows
    breakdown: list = field(default_factory=list)  # BREAKDOWN_COLUMNS rows
    games: int = 0
    people_games: int = 0

    def distance_row(self) -> dict:
        """The row of distance.csv (the statistics None when there is no board table to compare)."""
        d = self.distance
        return {"population": self.population, "players": self.players, "tables": self.tables, "side": self.side,
                "boards": " ".join(d.boards) if d else None, "chi2": d.chi2 if d else None,
                "df": d.df if d else None, "p_value": d.p_value if d else None, "spearman": _finite(d.spearman) if d
                else None, "games": self.games, "people_games": self.people_games}


def compare(population: Aggregate, people: Aggregate, players: int, name: str) -> Comparison:
    """`population` (named `name`) against `people` at `players` players."""
    view = board_view(population, people, players)
    tables, side = view[:2] if view is not None else ("all", ANY)
    out = Comparison(name, players, tables, side, distance(population, people, players),
                     games=population.n_games(players, tables), people_games=people.n_games(players, tables))
    boards = sorted(set(population.boards(players, tables, side)) | set(people.boards(players, tables, side)))
    for quantity, rows in (("first", out.boards), ("last", out.lasts)):
        for wonder in boards:
            a = population.seat(players, tables, wonder, side, quantity)
            b = people.seat(players, tables, wonder, side, quantity)
            rows.append({"population": name, "players": players, "tables": tables, "side": side, "wonder": wonder,
                         **_board_cells(a, b)})
        for row, q in zip(rows, bh([r["p_value"] for r in rows])):
            row["q_value"] = _finite(q)
    for section, where, quantities in SECTIONS:
        for quantity in quantities:
            a, b = (_moments(agg, where, players, tables, quantity) for agg in (population, people))
            if a is not None or b is not None:  # a statistic neither source has is no row
                out.play.append({"population": name, "players": players, "section": section, "quantity": quantity,
                                 **_measure(a, b)})
    for wonder in boards:
        for quantity in BREAKDOWN:
            a = population.seat(players, tables, wonder, side, quantity)
            b = people.seat(players, tables, wonder, side, quantity)
            if a is not None or b is not None:
                out.breakdown.append({"population": name, "players": players, "wonder": wonder, "side": side,
                                      "quantity": quantity, **_measure(a, b)})
    return out


def _moments(agg: Aggregate, where: str, players: int, tables: str, quantity: str) -> Moments | None:
    if where == "games":
        return agg.game(players, tables, quantity)
    if where == "winners":
        return agg.winner(players, tables, quantity)
    # every seat of the tables: on all-B tables side B and either side are the same seats
    return agg.seat(players, tables, ANY, ANY, quantity)


def _finite(x) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def _estimate(m: Moments | None) -> tuple:
    """(mean, ci_low, ci_high, n) of one source's moments, Nones where it has none."""
    if m is None or m.n == 0:
        return None, None, None, None
    low, high = m.ci
    n = int(round(m.n)) if abs(m.n - round(m.n)) < 1e-9 else m.n  # winners' weights count games
    return _finite(m.mean), _finite(low), _finite(high), n


def _measure(a: Moments | None, b: Moments | None) -> dict:
    mean, low, high, n = _estimate(a)
    p_mean, p_low, p_high, p_n = _estimate(b)
    diff = None if mean is None or p_mean is None else mean - p_mean
    return {"mean": mean, "ci_low": low, "ci_high": high, "n": n, "people_mean": p_mean, "people_ci_low": p_low,
            "people_ci_high": p_high, "people_n": p_n, "diff": diff}


def _board_cells(a: Moments | None, b: Moments | None) -> dict:
    """A board's two shares, their difference (population − people) with its 95% interval, and
    the two-sided z-test of no difference (the two samples independent: other games)."""
    rate, low, high, seats = _estimate(a)
    p_rate, p_low, p_high, p_seats = _estimate(b)
    diff = d_low = d_high = p = None
    if rate is not None and p_rate is not None:
        diff = rate - p_rate
        se = math.sqrt(a.se ** 2 + b.se ** 2) if a.n >= 2 and b.n >= 2 else math.nan
        if math.isfinite(se) and se > 0:
            d_low, d_high = diff - Z95 * se, diff + Z95 * se
            p = math.erfc(abs(diff) / se / math.sqrt(2))
        elif se == 0:  # two constant samples: equal or surely different
            d_low = d_high = diff
            p = 1.0 if diff == 0 else 0.0
    return {"rate": rate, "ci_low": low, "ci_high": high, "seats": seats, "people_rate": p_rate,
            "people_ci_low": p_low, "people_ci_high": p_high, "people_seats": p_seats, "diff": diff,
            "diff_ci_low": d_low, "diff_ci_high": d_high, "p_value": p, "q_value": None}


def bh(p_values) -> list:
    """Benjamini–Hochberg q-values of `p_values` (None or nan: not tested, its q-value nan): each
    p·m/rank, made monotone from the largest p down, at most 1; m counts the tested values only."""
    p = np.array([math.nan if v is None else v for v in p_values], dtype=float)
    q = np.full(len(p), math.nan)
    tested = np.flatnonzero(np.isfinite(p))
    if len(tested):
        order = tested[np.argsort(p[tested], kind="stable")]
        m = len(order)
        scaled = p[order] * m / np.arange(1, m + 1)
        q[order] = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    return q.tolist()
