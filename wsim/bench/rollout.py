"""A rollout seat's speed: five players, one rollout seat (seat 0) and four heuristic ones, on one
thread; its games/s and the playouts it runs in them (their product is playouts/s).
`wsim bench --against REV` times both trees' rollout with their own `settings` and
`games_per_second` (its probe finds them here, or in a tree older than this package, in
wsim/bench.py)."""

from __future__ import annotations

from wsim.bench import playouts
from wsim.bench.games import best_rate
from wsim.run.runner import Runner, set_threads
from wsim.run.settings import Settings
from wsim.run.weights import default_params, rollout_row


def settings(playouts_a_move: int, base: str = "heuristic") -> Settings:
    """Five players: one rollout seat (seat 0) at `playouts_a_move` over `base`, four heuristic
    seats."""
    rows = [default_params("heuristic")] * 5
    rows[0] = rollout_row(playouts_a_move, base, default_params(base))
    return Settings(players=5, policies=("rollout",) + ("heuristic",) * 4, params=tuple(rows))


def games_per_second(t, playouts_a_move: int, games: int, runs: int = 1, base: str = "heuristic") -> float:
    """Games a second of `settings`, one thread: games 1..games of seed 0, the best of `runs`
    plays of them (the same games each time, so that playouts_per_game counts their playouts)."""
    set_threads(1)
    runner = Runner(t, settings(playouts_a_move, base))
    runner.play(0, 1)  # compile or load outside the timing
    return best_rate(runner, 1, games, runs)


def playouts_per_game(t, playouts_a_move: int, games: int) -> float:
    """Playouts the rollout seat runs in a game, mean over the games games_per_second times
    (playouts.py: stepped through the step API and checked against them)."""
    chosen = settings(playouts_a_move)
    timed = Runner(t, chosen).play(1, games)
    return playouts.playouts_per_game(t, chosen, 1, timed.res)
