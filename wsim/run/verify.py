"""Kernels against the reference engine, game by game (used by the test suite and `make verify`).

For every game: the kernels play it with logging on; the reference engine replays the log
(every move legal, every payment one of the listed options and affordable, every military
result, final score and behaviour counter (codes.COUNTERS) equal). For the random policy the reference also plays the game itself
from the same (seed, game) and must produce the very same log, and its own game is checked for
the invariants of a complete game (18 moves per seat, coins never negative, every card of the
three 7N-card decks in a city, under a stage or in the discard pile).
"""

from __future__ import annotations

import time

from wsim import codes, movelog, tables as tables_mod
from wsim.kernels.deal import deal
from wsim.reference.engine import Game, RandomPolicy
from wsim.reference.replay import replay
from wsim.run.runner import Runner, game_log
from wsim.run.settings import Settings, apply_policy_params


class VerificationError(AssertionError):
    """The kernels and the reference engine disagree (or a game breaks an invariant)."""


def check_complete_game(g: Game, game: int):
    """The invariants of a complete game (VerificationError naming the first one broken): 18
    moves per seat (the Free City's included), every card of the three 7N-card decks (N cities)
    in a city, under a stage or in the discard pile, coins never negative, one building per
    name, and a 7th card only for a player with the power (Babylon B, or Manneken Pis copying
    it; never the Free City)."""
    t, n = g.t, g.n
    for seat in range(n):
        moves = sum(1 for ev in g.events if ev[0] == movelog.MOVE and ev[3] == seat)
        if moves != 18:
            raise VerificationError(f"game {game}: seat {seat} made {moves} moves, not 18")
    placed = sum(len(c.cards) + c.stages for c in g.pos.cities) + len(g.discard)
    if placed != 21 * n:
        raise VerificationError(f"game {game}: {placed} cards accounted for, not {21 * n}")
    if any(c.coins < 0 for c in g.pos.cities):
        raise VerificationError(f"game {game}: negative coins")
    if any(len({t.card_name_id[x] for x in c.cards}) != len(c.cards) for c in g.pos.cities):
        raise VerificationError(f"game {game}: a city holds two buildings of one name")
    for ev in g.events:
        if ev[0] == movelog.SEVENTH and (ev[3] >= g.players or not g.pos.has_power(ev[3], codes.POW_SEVENTH)):
            raise VerificationError(f"game {game}: seat {ev[3]} played a 7th card without the power")


def _reference_game(t, seed: int, game: int, players: int) -> dict:
    """The reference's own random game, checked for the invariants of a complete game
    (players 2: the Free City variant)."""
    free_city = players == codes.FC_PLAYERS
    boards, sides, hands = deal(t, codes.FC_CITIES if free_city else players, seed, game,
                                promo_in_pool=bool(t.board_promo.any()))
    g = Game(t, boards, sides, hands, [RandomPolicy(seed, game, s) for s in range(players)], free_city=free_city)
    final = g.play()
    check_complete_game(g, game)
    return movelog.to_json(t, seed, game, boards.tolist(), sides.tolist(), hands.tolist(), g.events, final,
                           free_city=free_city)


def verify_games(players: int, policy: str, first: int, count: int, seed: int = 17, data=None) -> dict:
    """Verify games first .. first + count - 1 of a run with every seat on `policy` (or
    "rollout-learned": rollout over the learned base, its truncated playouts) and Manneken Pis
    in the pool when the data file has it; returns {"games", "events", "promo_games", "seconds"}
    (events: the log events the reference replayed). `data`: the data file (tables.load's)."""
    start = time.perf_counter()
    t = tables_mod.load(data)
    name, specs = ("rollout", ["rollout.base=learned"]) if policy == "rollout-learned" else (policy, [])
    params = apply_policy_params(specs, (name,) * players, (name,) * players)[0]
    runner = Runner(t, Settings(players=players, seed=seed, policies=(name,) * players, params=params,
                                manneken_pis=bool(t.board_promo.any())))
    chunk = runner.play(first, count, log=True)
    promo_games = 0
    events = 0
    for i in range(count):
        game = first + i
        doc = game_log(runner, game)
        batch_events = [movelog.event_to_json(t, ev, runner.settings.free_city)
                        for ev in chunk.log[i, :chunk.n_log[i]].tolist()]
        if doc["events"] != batch_events:
            raise VerificationError(f"game {game}: the batch run and a single replay differ")
        try:
            final = replay(t, doc)
        except ValueError as e:
            raise VerificationError(f"{players} players, {policy}, game {game}: {e}") from None
        if final != doc["final"]:
            raise VerificationError(f"game {game}: final scores differ")
        if policy == "random" and _reference_game(t, seed, game, players) != doc:
            raise VerificationError(f"{players} players, game {game}: the reference plays another game")
        promo_games += "manneken_pis" in doc["setup"]["boards"]
        events += len(doc["events"])
    return {"games": count, "events": events, "promo_games": promo_games, "seconds": time.perf_counter() - start}
