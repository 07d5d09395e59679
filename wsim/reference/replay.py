"""Replay a move log with the reference engine and check all of it.

The logged choices are fed to the engine as a policy; the engine refuses any illegal move or
purchase (docs/rules.md §2–§4 and §12), and the replay then demands that the events the engine
records (military results included) and the final breakdown equal the log's, value for value.
"""

from __future__ import annotations

import numpy as np

from wsim import codes, movelog
from wsim.errors import WsimError
from wsim.kernels.deal import deal
from wsim.movelog import DISCARD_BUILD, MILITARY, MOVE, SEVENTH
from wsim.reference.engine import Choice, Game, IllegalMove
from wsim.tables import Tables


class ReplayError(WsimError):
    """A logged game that the reference rules do not reproduce."""


def logged_choices(events: list) -> dict:
    """The logged choices by (seat, kind, age, turn), each list in log order."""
    queue = {}
    for ev in events:
        if ev[0] != MILITARY:
            queue.setdefault((ev[3], ev[0], ev[1], ev[2]), []).append(ev)
    return queue


class LoggedPolicy:
    """Plays back a player's logged choices, in order, from a queue of `logged_choices`.

    The queue may be shared by the players' policies: a choice is looked up under the seat it is
    for, so the Free City's choices (asked of the controlling player with seat 2) come from the
    Free City's events.
    """

    def __init__(self, seat: int, queue: dict):
        self.seat = seat
        self.queue = queue

    def _next(self, seat: int, kind: int, game: Game):
        items = self.queue.get((seat, kind, game.age, game.turn))
        return items.pop(0) if items else None

    def choose(self, game: Game, seat: int, moves: list, seventh: bool):
        ev = self._next(seat, SEVENTH if seventh else MOVE, game)
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
        ev = self._next(seat, DISCARD_BUILD, game)
        if ev is None:
            raise IllegalMove(f"age {game.age} turn {game.turn} seat {seat}: discard build missing from the log")
        return None if ev[4] < 0 else ev[4]



def replay_events(tables: Tables, boards, sides, hands, events, free_city: bool = False, game_class=Game) -> tuple:
    """Replay integer events on a setup; returns (engine events, final breakdown).

    free_city: a 2-player game (three boards, the third the Free City's). game_class: Game, or
    a callable taking Game's arguments that returns one (a subclass that records as it plays).
    Raises ReplayError on the first difference from the log.
    """
    events = [tuple(int(x) for x in ev) for ev in events]
    queue = logged_choices(events)
    players = codes.FC_PLAYERS if free_city else len(boards)
    policies = [LoggedPolicy(s, queue) for s in range(players)]
    game = game_class(tables, boards, sides, hands, policies, free_city=free_city)
    try:
        final = game.play()
    except IllegalMove as e:
        raise ReplayError(str(e)) from None
    leftover = [ev for items in queue.values() for ev in items]
    if leftover:
        raise ReplayError(f"seat {leftover[0][3]}: logged choices the game never asked for: {leftover[:3]}")
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
    free_city = movelog.is_free_city(doc)
    if free_city and len(boards) != codes.FC_CITIES:
        raise ReplayError(f"a 2-player log needs {codes.FC_CITIES} boards (the third the Free City's), "
                          f"it has {len(boards)}")
    if check_deal:
        dealt = deal(tables, len(boards), doc["seed"], doc["game"])[2]
        if not np.array_equal(dealt, np.array(hands)):
            raise ReplayError(f"the hands are not the deal of seed {doc['seed']} game {doc['game']}")
    _, final = replay_events(tables, boards, sides, hands, movelog.events_from_json(tables, doc),
                             free_city=free_city)
    if final != doc.get("final"):
        raise ReplayError(f"final scores differ: replay {final}, log {doc.get('final')}")
    return final
