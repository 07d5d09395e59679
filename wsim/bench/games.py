"""Kernel games a second: a runner's games after a warm-up, the best of equal runs of the same
games (no Parquet)."""

from __future__ import annotations

import time

from wsim.kernels.policy import POLICY_NAMES
from wsim.run.runner import Runner, set_threads
from wsim.run.settings import Settings

# the games family's policies, timed cell by cell; rollout and learned have lines of their own
SELF_PLAY = tuple(n for n in POLICY_NAMES if n not in ("rollout", "learned"))
RUNS_PER_CELL = 3  # a cell's games are played as this many equal runs of the same games


def games_per_second(t, players: int, policy: str, threads: int, games: int) -> float:
    """Games a second: the best of RUNS_PER_CELL runs of games / RUNS_PER_CELL games each (the
    same games), after a warm-up. The best run is the one least disturbed by the rest of the
    machine, so that a cell says what the code costs rather than what the hour did."""
    set_threads(threads)
    runner = Runner(t, Settings(players=players, policies=(policy,) * players))
    runner.play(0, 64)  # warm-up: compile or load the kernels outside the timing
    return best_rate(runner, 0, max(1, games // RUNS_PER_CELL), RUNS_PER_CELL)


def best_rate(runner: Runner, first: int, games: int, runs: int) -> float:
    """The best games/s of `runs` plays of games first..first + games - 1 (the same each time)."""
    best = 0.0
    for _ in range(runs):
        start = time.perf_counter()
        runner.play(first, games)
        best = max(best, games / (time.perf_counter() - start))
    return best
