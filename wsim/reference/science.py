"""Science sets at the final count, for the play tables of `wsim ladder` and `wsim survey`: how
many complete sets (compass, gear, tablet) a city scored, the seat's wildcards placed as its
science points place them (docs/rules.md §7), counted from what the results hold — the city's
buildings, its board and the stages it built — and held to the science points the engine gave.
"""

from __future__ import annotations

import numpy as np

from wsim import codes
from wsim.tables import Tables

MAX_EXTRA_WILDCARDS = 2  # symbols a city scores without owning them: a guild Olympia B copies, a stage Manneken Pis copies


def card_symbols(t: Tables) -> np.ndarray:
    """Each card's science symbol (codes.SCIENCE index, codes.SCI_ANY a wildcard), -1 none."""
    return np.asarray(t.ent_science[:t.n_cards], dtype=np.int64)


def stage_counts(t: Tables, boards: np.ndarray, sides: np.ndarray, stages: np.ndarray) -> tuple:
    """(counts[n, 3], wildcards[n]) of the symbols of the stages each city built (the first
    `stages` of its board's side)."""
    n = len(boards)
    counts, wild = np.zeros((n, 3), dtype=np.int64), np.zeros(n, dtype=np.int64)
    for b in range(t.n_boards):
        for s in (0, 1):
            for k in range(int(t.board_stages[b, s])):
                sym = int(t.ent_science[t.stage_entity(b, s, k)])
                if sym < 0:
                    continue
                built = (boards == b) & (sides == s) & (stages > k)
                if sym == codes.SCI_ANY:
                    wild += built
                else:
                    counts[:, sym] += built
    return counts, wild


def symbol_counts(symbols: np.ndarray, owner: np.ndarray, n: int) -> tuple:
    """(counts[n, 3], wildcards[n]) of the symbols `symbols` (one per building, -1 none) owned by
    the cities `owner` (the same length, 0..n-1)."""
    counts, wild = np.zeros((n, 3), dtype=np.int64), np.zeros(n, dtype=np.int64)
    plain = symbols >= 0
    plain &= symbols != codes.SCI_ANY
    np.add.at(counts, (owner[plain], symbols[plain]), 1)
    np.add.at(wild, owner[symbols == codes.SCI_ANY], 1)
    return counts, wild


def _best(counts: np.ndarray, wild: np.ndarray) -> tuple:
    """(points, sets) of the wildcards' best placement for every city: the most points, and
    among placements of as many points the most sets."""
    points = np.full(len(wild), -1, dtype=np.int64)
    sets = np.zeros(len(wild), dtype=np.int64)
    for w in np.unique(wild):
        rows = wild == w
        for a in range(w + 1):
            for b in range(w - a + 1):
                c = counts[rows] + np.array([a, b, w - a - b])
                low = c.min(axis=1)
                score = (c * c).sum(axis=1) + codes.SCIENCE_SET_POINTS * low
                better = (score > points[rows]) | ((score == points[rows]) & (low > sets[rows]))
                points[rows] = np.where(better, score, points[rows])
                sets[rows] = np.where(better, low, sets[rows])
    return points, sets


def science_sets(counts: np.ndarray, wild: np.ndarray, science: np.ndarray) -> np.ndarray:
    """The complete sets each city scored, from the symbols it owns (counts[n, 3] and wildcards)
    and the science points the engine gave it: a city whose points its own symbols cannot make
    scored a symbol it copied (a wildcard: the Scientists Guild through Olympia B, Babylon's
    stage through Manneken Pis), added until they do. ValueError when no such count agrees."""
    science = np.asarray(science, dtype=np.int64)
    wild = np.asarray(wild, dtype=np.int64).copy()
    points, sets = _best(counts, wild)
    for _ in range(MAX_EXTRA_WILDCARDS):
        off = points != science
        if not off.any():
            break
        wild[off] += 1
        points[off], sets[off] = _best(counts[off], wild[off])
    off = points != science
    if off.any():
        i = int(np.flatnonzero(off)[0])
        raise ValueError(f"science points {int(science[i])} of a city with symbols {counts[i].tolist()} and "
                         f"{int(wild[i])} wildcards: no placement scores them")
    return sets


def city_sets(t: Tables, symbols: np.ndarray, owner: np.ndarray, boards, sides, stages, points) -> np.ndarray:
    """The complete sets of n cities (n = len(boards)): from their buildings' symbols (`symbols`,
    card_symbols of each building, owned by city `owner`), the stages their boards and sides
    built, and the science points the engine gave them (science_sets)."""
    counts, wild = symbol_counts(symbols, owner, len(boards))
    staged, staged_wild = stage_counts(t, np.asarray(boards), np.asarray(sides), np.asarray(stages))
    return science_sets(counts + staged, wild + staged_wild, points)
