"""How far a population's board table is from people's at one player count: one documented distance.

The boards' first-place shares (a shared first counted 1/k) are compared board by board; the
distance is the Wald χ² over the boards both sides have, Σ (p − q)² / (se_p² + se_q²), with as
many degrees of freedom as boards (the boards are treated as independent samples: the shares of
one table sum to one, so the statistic is slightly conservative), its p-value, and the Spearman
rank correlation of the two orderings. Which tables: on side B, the games whose every board is on
side B when both sources have at least MIN_SEATS seats a board there (people chose their sides,
so a side's rate is clean only on such tables); otherwise each board over every game, either
side (the board was dealt at random on both sides, but the side mix differs).

Base install only (numpy and math): `wsim simulate`'s summary names its distance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from wsim.people.aggregate import ANY, Aggregate

MIN_SEATS = 30  # fewer seats on a board give no interval worth a test


@dataclass(frozen=True)
class Distance:
    """A population's distance to people at one player count."""

    players: int
    tables: str  # "all_b" (side B, all-B tables) or "all" (either side, every table)
    side: str  # "B" or ANY
    boards: tuple  # board ids compared, in id order
    chi2: float
    df: int
    p_value: float
    spearman: float
    population_games: int
    people_games: int

    def line(self) -> str:
        """One sentence: the distance, its p-value, the rank correlation and the counts behind them."""
        where = "side B, tables all on side B" if self.tables == "all_b" else "every table, either side"
        p = "p < 0.001" if self.p_value < 0.001 else f"p = {self.p_value:.3f}"
        return (f"{self.players} players ({where}; {self.population_games:,} games against people's "
                f"{self.people_games:,}): boards' Wald χ² {self.chi2:.1f} ({self.df} df, {p}; about {self.df} = "
                f"like people), rank correlation {self.spearman:+.2f}")


def chi2_sf(x: float, df: int) -> float:
    """P(χ²_df ≥ x) for a whole number of degrees of freedom (exact series; held to scipy's by a test)."""
    if x <= 0:
        return 1.0
    half = x / 2
    if df % 2 == 0:
        term, total = 1.0, 1.0
        for i in range(1, df // 2):
            term *= half / i
            total += term
        return min(1.0, math.exp(-half) * total)
    total = math.erfc(math.sqrt(half))
    term = math.sqrt(half) * math.exp(-half) / math.gamma(1.5)
    for i in range(1, (df + 1) // 2):
        total += term
        term *= half / (i + 0.5)
    return min(1.0, total)


def spearman(a, b) -> float:
    """The Spearman rank correlation of two equal-length sequences (average ranks for ties)."""
    ra, rb = _ranks(np.asarray(a, float)), _ranks(np.asarray(b, float))
    if ra.std() == 0 or rb.std() == 0:
        return math.nan
    return float(np.corrcoef(ra, rb)[0, 1])


def _ranks(v: np.ndarray) -> np.ndarray:
    order = np.argsort(v, kind="stable")
    ranks = np.empty(len(v))
    ranks[order] = np.arange(1, len(v) + 1)
    for value in np.unique(v):
        tied = v == value
        ranks[tied] = ranks[tied].mean()
    return ranks


def board_view(population: Aggregate, people: Aggregate, players: int) -> tuple:
    """(tables, side, boards) the comparison at `players` uses (the module's docstring), or None
    when the two share fewer than two boards with MIN_SEATS seats."""
    for tables, side in (("all_b", "B"), ("all", ANY)):
        boards = [w for w in people.boards(players, tables, side)
                  if _seats(people, players, tables, w, side) >= MIN_SEATS
                  and _seats(population, players, tables, w, side) >= MIN_SEATS]
        if len(boards) >= 2 and len(boards) == len(people.boards(players, tables, side)):
            return tables, side, tuple(boards)
    return None


def _seats(agg: Aggregate, players, tables, wonder, side) -> float:
    m = agg.seat(players, tables, wonder, side, "first")
    return 0.0 if m is None else m.n


def distance(population: Aggregate, people: Aggregate, players: int) -> Distance | None:
    """The distance of `population` to `people` at `players` (None: no comparable board table)."""
    view = board_view(population, people, players)
    if view is None:
        return None
    tables, side, boards = view
    ours = [population.seat(players, tables, w, side, "first") for w in boards]
    theirs = [people.seat(players, tables, w, side, "first") for w in boards]
    chi2 = sum((a.mean - b.mean) ** 2 / (a.se ** 2 + b.se ** 2) for a, b in zip(ours, theirs))
    return Distance(players=players, tables=tables, side=side, boards=boards, chi2=float(chi2), df=len(boards),
                    p_value=chi2_sf(chi2, len(boards)),
                    spearman=spearman([a.mean for a in ours], [b.mean for b in theirs]),
                    population_games=population.n_games(players, tables),
                    people_games=people.n_games(players, tables))
