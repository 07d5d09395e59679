"""Where a game's time goes: the deal alone and the loop floor (kernels/profile.loop_floor)
against the real game, and each component of the instrumented twin of the game loop."""

from __future__ import annotations

import time

import numpy as np

from wsim.bench.profiling import profile_run
from wsim.kernels.game import new_scratch
from wsim.kernels.layout import RES_COUNT, kernel_tables
from wsim.kernels.profile import COMPONENTS, loop_floor
from wsim.kernels.schema import MAX_CITY, MAX_NAMES, MAX_SEATS
from wsim.run.runner import Runner
from wsim.run.settings import Settings, cities_of


def floor_split(t, players: int, games: int, full_rate: float) -> dict:
    """Microseconds per game of the deal alone, of the loop floor, and of the real game (played
    at full_rate games/s)."""
    ent, board, n_cards = kernel_tables(t)
    scratch = (new_scratch()[0], np.zeros((3, MAX_SEATS, 7), np.int16), np.zeros((MAX_SEATS, 7), np.int32),
               np.zeros((MAX_SEATS, 7), np.int32), np.zeros((MAX_SEATS, MAX_NAMES), np.int8))
    out = {}
    for name, with_play in (("deal", False), ("loop_floor", True)):
        loop_floor(ent, board, n_cards, players, 16, with_play, *scratch)  # compile or load outside the timing
        start = time.perf_counter()
        loop_floor(ent, board, n_cards, players, games, with_play, *scratch)
        out[f"{name}_us"] = round((time.perf_counter() - start) / games * 1e6, 2)
    out["game_us"] = round(1e6 / full_rate, 2)
    out["game_over_floor"] = round(out["game_us"] / out["loop_floor_us"], 1)
    return out


def components(t, players: int, policy: str, games: int) -> dict:
    """Microseconds per game in each component (kernels/profile.py), one thread, and their total."""
    runner = Runner(t, Settings(players=players, policies=(policy,) * players))
    res = np.zeros((cities_of(players), RES_COUNT), np.int16)
    cards = np.zeros((cities_of(players), MAX_CITY), np.int16)
    acc = np.zeros(len(COMPONENTS) + 1, np.uint64)

    def run(n_games: int) -> float:
        start = time.perf_counter()
        profile_run(runner, n_games, res, cards, acc)
        return time.perf_counter() - start

    run(16)  # compile or load outside the timing
    seconds = run(games)
    us_per_cycle = seconds / float(acc[len(COMPONENTS)]) * 1e6
    out = {name: round(float(acc[i]) * us_per_cycle / games, 2) for i, name in enumerate(COMPONENTS)}
    out["total"] = round(float(acc[len(COMPONENTS)]) * us_per_cycle / games, 2)
    return out
