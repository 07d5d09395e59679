"""The yardsticks, which no change of the kernels moves: the plain-Python reference engine's
games/s, and the trading solver's calls/s on fixed random positions (kernels/profile.trade_calls).
They say how fast the machine is this hour."""

from __future__ import annotations

import time

import numpy as np

from wsim.kernels.layout import (E_COST_PK, E_COUNT, F_CHOICE, F_COUNT, F_NCHOICE, F_NSELL_CHOICE, F_PK_LP,
                                 F_PK_PROD, F_PK_REACH, F_PK_RP, F_PK_SELL, F_PK_SELL_CAP, F_SELL_CH)
from wsim.kernels.profile import trade_calls
from wsim.kernels.schema import MAX_OPTIONS, pack_halves

UNIT_MASKS = np.array([0b0101, 0b1010, 0b0011, 0b1100, 0b1111, 0b1110000], np.int64)  # choice units drawn from


def reference_games_per_second(t, players: int, games: int) -> float:
    """Games a second of the reference engine (random policy), one after the other."""
    from wsim.reference.engine import play

    start = time.perf_counter()
    for g in range(games):
        play(0, g, players, t)
    return games / (time.perf_counter() - start)


def trade_positions(positions: int) -> tuple:
    """(costs, seat rows) of random positions shaped like the game's (costs of 1-5 units, a few
    sources per city), laid out as the game kernels keep them (layout.E_* and F_*): position i's
    city at seat row 3i, its neighbours at 3i+1 and 3i+2. Seeded: the same positions every time."""
    rng = np.random.default_rng(0)
    cost = np.zeros((positions, 7), np.int64)
    for i in range(positions):
        for _ in range(rng.integers(1, 6)):
            cost[i, rng.integers(0, 7)] += 1
    costs = np.zeros((positions, E_COUNT), np.int32)
    costs[:, E_COST_PK], costs[:, E_COST_PK + 1] = pack_halves(cost)
    seat = np.zeros((3 * positions, F_COUNT), np.int32)

    def put(row, col, counts):
        seat[row, col], seat[row, col + 1] = pack_halves(np.asarray(counts, np.int64))

    def units_of(row, choice_col, n_col, count):
        units = UNIT_MASKS[rng.integers(0, count, rng.integers(0, 3 if choice_col == F_CHOICE else 2))]
        seat[row, n_col] = len(units)
        seat[row, choice_col:choice_col + len(units)] = units
        return np.array([sum((int(u) >> r) & 1 for u in units) for r in range(7)])  # units per resource

    for i in range(positions):
        own = 3 * i
        put(own, F_PK_PROD, rng.integers(0, 2, 7))
        put(own, F_PK_LP, rng.choice([1, 2], 7))
        put(own, F_PK_RP, rng.choice([1, 2], 7))
        put(own, F_PK_REACH, units_of(own, F_CHOICE, F_NCHOICE, len(UNIT_MASKS)))
        for row in (own + 1, own + 2):
            fixed = rng.integers(0, 3, 7)
            put(row, F_PK_SELL, fixed)
            put(row, F_PK_SELL_CAP, fixed + units_of(row, F_SELL_CH, F_NSELL_CHOICE, 4))
    return costs, seat


def trade_calls_per_second(positions: int = 10_000, repeats: int = 20) -> float:
    """The trading solver's calls a second over trade_positions, each city's row read in place."""
    costs, seat = trade_positions(positions)
    out = np.zeros((MAX_OPTIONS, 2), np.int32)
    trade_calls(costs, seat, out, 1)  # compile or load outside the timing
    start = time.perf_counter()
    trade_calls(costs, seat, out, repeats)
    return positions * repeats / (time.perf_counter() - start)
