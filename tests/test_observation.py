"""kernels/observe.py: one seat's view as a vector. Every entry is the view's (checked against
KernelGame.view and held at every decision of games at 2-7 players), nothing hidden moves it
(a re-deal of what the seat cannot see and every other seat's choices and streams changed),
and what the seat does see does move it."""

import numpy as np
import pytest

from test_step_api import _another_world
from wsim import codes
from wsim.kernels import observe
from wsim.kernels.layout import F_BOARD, F_COINS, F_OWNED, F_PROD
from wsim.kernels.step import decider
from wsim.run.stepgame import CITY_FIELDS, KernelGame

pytestmark = pytest.mark.slow  # compiles the encoder


def _encoded(g, who, s, olay):
    out = np.zeros(olay[observe.O_LENGTH], np.float32)
    observe.encode(g.ent, g.state[0], np.int64(who), np.int64(s), olay, out)
    return out


def _positions(tables, players_list, games, policy="random"):
    """(game, seat, kind) at every decision of the games, each applied after the caller's look."""
    for players in players_list:
        for game in range(games):
            g = KernelGame(tables, players, seed=31, game=game, policy=policy, promo=True)
            for pending in g.rounds():
                for seat, kind in pending:
                    yield g, seat, kind
                    options = g.legal(seat, kind)
                    g.apply(seat, kind, options, g.decide(seat, kind, options))


def test_the_names_cover_the_vector(tables):
    olay = observe.tables_layout(tables)
    names = observe.names(tables)
    assert len(names) == olay[observe.O_LENGTH] == len(set(names))
    assert names[olay[observe.O_CITY] + olay[observe.O_CITY_SIZE] + 1] == "city1:coins"


def test_every_entry_is_the_seats_view(tables):
    olay = observe.tables_layout(tables)
    names = observe.names(tables)
    name_id = tables.card_name_id
    checked = 0
    for g, seat, kind in _positions(tables, (2, 3, 5, 7), 2):
        who = decider(g.gs, seat)
        v = g.view(who)
        vec = dict(zip(names, _encoded(g, who, seat, olay).tolist()))
        age, turn = v["header"][2], v["header"][3]
        assert vec[f"age={age}"] == 1 and vec[f"turn={turn}"] == 1
        assert vec[f"players={g.players}"] == 1
        assert vec[f"acting=city{(seat - who) % g.n}"] == 1
        assert [vec[f"pile:age{a}"] for a in (1, 2, 3)] == v["pile_by_age"]
        assert vec["fc_pile"] == v["fc_pile"]
        hand = np.zeros(olay[observe.O_N_NAMES])
        np.add.at(hand, name_id[v["hand"]], 1)
        assert [vec[n] for n in names if n.startswith("hand:")] == hand.tolist()
        seen = {int(name_id[c]) for h in v["held"] for c in h}
        held = [vec[n] for n in names if n.startswith("held:")]
        assert [i for i, x in enumerate(held) if x] == sorted(seen)
        for k in range(g.n):
            city = dict(zip(CITY_FIELDS, v["cities"][(who + k) % g.n]))
            assert vec[f"city{k}:present"] == 1 and vec[f"city{k}:coins"] == city[F_COINS]
            assert vec[f"city{k}:board={tables.board_ids[city[F_BOARD]]}"] == 1
            assert [vec[f"city{k}:prod:{r}"] for r in codes.RESOURCES] == [city[F_PROD + r] for r in range(codes.N_RES)]
            owned = [vec[n] for n in names if n.startswith(f"city{k}:built:")]
            assert owned == [city[F_OWNED + i] for i in range(len(owned))]
        for k in range(g.n, codes.MAX_PLAYERS):
            assert vec[f"city{k}:present"] == 0
        checked += 1
    assert checked > 300


def test_nothing_hidden_moves_it_and_what_is_seen_does(tables):
    olay = observe.tables_layout(tables)
    rng = np.random.default_rng(5)
    moved = 0
    for g, seat, kind in _positions(tables, (2, 3, 4, 7), 2, policy="greedy"):
        if g.age == 1 and g.turn == 1:
            continue  # nothing hidden has happened yet in this age that a re-deal could move
        who = decider(g.gs, seat)
        before = _encoded(g, who, seat, olay)
        other = g.clone()
        _another_world(other, who, rng)
        assert np.array_equal(_encoded(other, who, seat, olay), before), (g.players, g.age, g.turn, seat)
        seen = g.clone()
        seen.seat[(who + 1) % g.n, F_COINS] += 1  # the left neighbour's coins, which every seat sees
        moved += not np.array_equal(_encoded(seen, who, seat, olay), before)
    assert moved > 100
