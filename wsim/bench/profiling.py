"""A run's games through the instrumented twin of the game loop (kernels/profile.py): the time
breakdown of `wsim bench` and the `profile` family of `wsim compile` play through this one call."""

from __future__ import annotations

import numpy as np

from wsim.kernels.game import new_run, new_scratch, new_state
from wsim.kernels.profile import profile_games
from wsim.kernels.schema import Log
from wsim.movelog import EVENT_COLUMNS
from wsim.run.runner import Runner


def profile_run(runner: Runner, games: int, res: np.ndarray, cards: np.ndarray, acc: np.ndarray):
    """Games 0..games-1 of the runner's settings (seed 0, no Manneken Pis) through the
    instrumented twin of the game loop, on one thread: the last game's results into res and
    cards, the cycles of each component into acc (kernels/profile.py)."""
    log = Log(np.zeros((0, 1, len(EVENT_COLUMNS)), np.int16), np.zeros(1, np.int32), 0)
    s = runner.settings
    run = new_run(s.players, 0, runner.n_cards, False, runner.board_spec, runner.side_spec, runner.policies,
                  runner.params)
    profile_games(runner.ent, runner.board, run[0], games, res, cards, acc, new_state()[0], new_scratch()[0],
                  log)


def warm(tables) -> None:
    """Load the `profile` family from the cache, or compile it (`wsim compile profile`): one
    three-player game through the instrumented loop."""
    from wsim.kernels.layout import MAX_CITY, RES_COUNT
    from wsim.kernels.profile import COMPONENTS
    from wsim.run.settings import Settings

    runner = Runner(tables, Settings(players=3, policies=("random",) * 3))
    profile_run(runner, 1, np.zeros((3, RES_COUNT), np.int16), np.zeros((3, MAX_CITY), np.int16),
                np.zeros(len(COMPONENTS) + 1, np.uint64))
