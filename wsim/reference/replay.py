"""Replay a move log with the reference engine and check all of it.

The logged choices are fed to the engine as a policy; the engine refuses any illegal move or
purchase (RULES.md sections 2-4 and 12), and the replay then demands that the events the engine
records (military results included) and the final breakdown equal the log's, value for value.
"""

from __future__ import annotations

import numpy as np

from wsim import movelog
from wsim.kernels.deal import deal
from wsim.movelog import DISCARD_BUILD, MILITARY, MOVE, SEVENTH
from wsim.reference.engine import Choice, Game, IllegalMove
from wsim.tables import Tables


class ReplayError(ValueError):
    """A logged game that the reference rules do not reproduce."""


class LoggedPolicy:
    """Plays back one seat's logged choices, in order."""

    def __init__(self, seat: int, events: list):
        self.seat = seat
        self.queue = {}
        for ev in events:
            if ev[3] == seat and ev[0] != MILITARY:
                self.queue.setdefault((ev[0], ev[1], ev[2]), []).append(ev)

    def _next(self, kind: int, game: Game):
        items = self.queue.get((kind, game.age, game.turn))
        return items.pop(0) if items else None

    def choose(self, game: Game, seat: int, moves: list, seventh: bool):
        ev = self._next(SEVENTH if seventh else MOVE, game)
        if ev is None:
            if seventh:
                return None  # a 7th card may be declined
            raise IllegalMove(f"age {game.age} turn {game.turn} seat {seat}: no move in the log")
        _, _, _, _, card, action, left, right, extra = ev
        for m in moves:
            if m.card == card and m.action == action:
                return Choice(m, (left, right), extra)
        raise IllegalMove(f"age {game.age} turn {game.turn} seat {seat}: "
                          f"{game.t.card_names[card]} / {movelog.ACTIONS[action]} is not a legal move")

    def discard_build(self, game: Game, seat: int, cards: list):
        ev = self._next(DISCARD_BUILD, game)
        if ev is None:
            raise IllegalMove(f"age {game.age} turn {game.turn} seat {seat}: discard build missing from the log")
        return None if ev[4] < 0 else ev[4]

    def leftover(self) -> list:
        return [ev for items in self.queue.values() for ev in items]


def replay_events(tables: Tables, boards, sides, hands, events) -> tuple:
    """Replay integer events on a setup; returns (engine events, final breakdown).

    Raises ReplayError on the first difference from the log.
    """
    events = [tuple(int(x) for x in ev) for ev in events]
    policies = [LoggedPolicy(s, events) for s in range(len(boards))]
    game = Game(tables, boards, sides, hands, policies)
    try:
        final = game.play()
    except IllegalMove as e:
        raise ReplayError(str(e)) from None
    for p in policies:
        if p.leftover():
            raise ReplayError(f"seat {p.seat}: logged choices the game never asked for: {p.leftover()[:3]}")
    if game.events != events:
        for i, (mine, theirs) in enumerate(zip(game.events, events)):
            if mine != theirs:
                raise ReplayError(f"event {i} differs: replay {mine}, log {theirs}")
        raise ReplayError(f"the log has {len(events)} events, the replay {len(game.events)}")
    return game.events, final


def replay(tables: Tables, doc: dict, check_deal: bool = True) -> dict:
    """Replay a JSON move log; returns the recomputed final breakdown (equal to the log's).

    check_deal also demands that the hands are the shared deal of the log's (seed, game).
    """
    boards, sides, hands = movelog.setup_from_json(tables, doc)
    if check_deal:
        dealt = deal(tables, len(boards), doc["seed"], doc["game"])[2]
        if not np.array_equal(dealt, np.array(hands)):
            raise ReplayError(f"the hands are not the deal of seed {doc['seed']} game {doc['game']}")
    _, final = replay_events(tables, boards, sides, hands, movelog.events_from_json(tables, doc))
    if final != doc.get("final"):
        raise ReplayError(f"final scores differ: replay {final}, log {doc.get('final')}")
    return final
