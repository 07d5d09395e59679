"""The two-player Free City variant: one test per rule of docs/rules.md §10, with concrete
numbers. Every scripted turn runs on both engines (the `engine` fixture: the reference, and the
kernels' step API through tests/kernelturn.py); the option lists and scoring checks are the
reference's (the kernels' games are checked against it move by move in test_kernels.py).

Seats: the players are seats 0 and 1, the Free City (FC) seat 2 of a 3-city ring, so the FC's
left neighbour is seat 0 and its right neighbour seat 1. Hands are [seat 0, seat 1, the FC's
pile]; the controller's script holds its own move, then the FC's.
"""

import copy

import pytest

from wsim import codes, movelog
from wsim.kernels.deal import deal
from wsim.movelog import DISCARD_BUILD, MOVE, SEVENTH, LogError
from wsim.reference.engine import Game, RandomPolicy, free_city_moves, legal_moves, play
from wsim.reference.replay import replay
from wsim.run.verify import check_complete_game

import enginekit
from enginekit import (ACTION, card, cards, city_names, coins, discard_names, names, new_game, script, set_discard,
                       set_hands, setup)

FC = codes.FC_SEAT


@pytest.fixture(params=["reference", "kernel"])
def engine(request, monkeypatch):
    """A scripted turn runs on both engines: the reference, and the kernels' step API."""
    monkeypatch.setattr(enginekit, "ENGINE", request.param)
    return request.param


def fc_actions(g, hand, name) -> list:
    """Action names the FC may take with one card of a hand, in canonical order."""
    cid = card(g.t, name, g.age)
    return [movelog.ACTIONS[m.action] for m in free_city_moves(g.pos, cards(g.t, hand, g.age), g.age, g.turn)
            if m.card == cid]


class RecordingPolicy(RandomPolicy):
    """The random policy, noting (age, turn, seat argument) of every move it is asked for."""

    def __init__(self, seed, game, seat):
        super().__init__(seed, game, seat)
        self.asked = []

    def choose(self, game, seat, moves, seventh):
        self.asked.append((game.age, game.turn, seat))
        return super().choose(game, seat, moves, seventh)


def _random_game(tables, seed, game, policy=RandomPolicy, promo=True):
    boards, sides, hands = deal(tables, codes.FC_CITIES, seed, game, promo_in_pool=promo)
    g = Game(tables, boards, sides, hands, [policy(seed, game, s) for s in range(2)], free_city=True)
    final = g.play()
    doc = movelog.to_json(tables, seed, game, boards.tolist(), sides.tolist(), hands.tolist(), g.events, final,
                          free_city=True)
    return g, doc


# ---------------------------------------------------------------------------------------------
# Control: seat 0 on turn 1 of Ages I and III, seat 1 on turn 1 of Age II, alternating

def test_controller_decides_for_the_free_city_on_each_turn(tables):
    g, doc = _random_game(tables, 3, 4, RecordingPolicy)
    fc_asks = [[(a, t) for a, t, s in p.asked if s == FC] for p in g.policies]
    assert fc_asks[0] == [(1, 1), (1, 3), (1, 5), (2, 2), (2, 4), (2, 6), (3, 1), (3, 3), (3, 5)]
    assert fc_asks[1] == [(1, 2), (1, 4), (1, 6), (2, 1), (2, 3), (2, 5), (3, 2), (3, 4), (3, 6)]
    # each player is asked its own move on every turn, and the log names who decided for the FC
    assert [len([1 for _, _, s in p.asked if s == seat]) for seat, p in enumerate(g.policies)] == [18, 18]
    by = [(e["age"], e["turn"], e["by"]) for e in doc["events"] if e["seat"] == FC and e["kind"] == "move"]
    assert by == [(a, t, codes.fc_controller(a, t)) for a in (1, 2, 3) for t in range(1, 7)]
    assert all("by" not in e for e in doc["events"] if e["seat"] != FC)


def test_controller_draws_the_pile_card_and_chooses_the_fc_move_from_the_rest(tables, engine):
    g = new_game(tables, ["giza:A", "babylon:A", "ephesus:A"], age=1, turn=1, free_city=True)
    set_hands(g, [["Altar", "Theater", "Baths"], ["Tavern", "Stockade"], ["Lumber Yard", "Clay Pool"]])
    ctrl = script(g, 0, ("Altar", "build"), ("Lumber Yard", "build"))
    script(g, 1, ("Tavern", "build"))
    g.play_turn()
    assert ctrl.asked == [0, FC] and g.policies[1].asked == [1]
    own_moves, fc_moves = (moves for _, moves in ctrl.seen)
    assert sorted(set(names(tables, [m.card for m in own_moves]))) == ["Altar", "Baths", "Lumber Yard", "Theater"]
    assert [(tables.card_names[m.card], movelog.ACTIONS[m.action], m.options) for m in fc_moves] == [
        ("Theater", "build", ((0, 0),)),
        ("Baths", "build", ((2, 0),)),  # 1 stone from Giza, the FC's left neighbour
        ("Lumber Yard", "build", ((0, 0),)),
    ]
    assert city_names(g, 0) == ["Altar"] and city_names(g, 1) == ["Tavern"] and city_names(g, FC) == ["Lumber Yard"]
    assert coins(g) == [3, 8, 3]
    assert [e[3] for e in g.events] == [0, 1, FC]


# ---------------------------------------------------------------------------------------------
# What the Free City may do with a card

def test_free_city_must_build_a_chain_free_card(tables):
    g = new_game(tables, ["giza:A", "babylon:A", "ephesus:A"], age=2, turn=1, free_city=True)
    setup(g, FC, cards=["Altar", "Quarry"])  # Quarry's 2 stone pay Ephesus A stage 1
    hand = ["Temple", "Walls", "Library"]
    assert fc_actions(g, hand, "Temple") == ["build"]  # Altar chains to Temple: no stage, no discard
    assert [movelog.ACTIONS[m.action] for m in legal_moves(g.pos, FC, cards(tables, hand, 2), 2, g.turn)
            if m.card == card(tables, "Temple")] == ["build", "stage", "discard"]  # what a player could do
    assert fc_actions(g, hand, "Walls") == ["build", "stage"]  # 3rd stone bought from Giza: no discard
    assert fc_actions(g, hand, "Library") == ["stage"]  # nobody sells loom


@pytest.mark.parametrize("fc_coins, expected, options", [
    (0, ["discard"], ((0, 0),)),  # neither Library (loom) nor stage 1 (2 stone to buy) is possible
    (4, ["stage"], ((2, 2),)),  # a stone from each neighbour: the stage is legal, no discard
])
def test_free_city_discards_only_when_it_can_neither_build_nor_stage(tables, fc_coins, expected, options):
    g = new_game(tables, ["giza:A", "babylon:A", "ephesus:A"], age=2, turn=1, free_city=True)
    setup(g, 1, cards=["Stone Pit"])
    setup(g, FC, coins=fc_coins)
    assert fc_actions(g, ["Library"], "Library") == expected
    assert free_city_moves(g.pos, cards(tables, ["Library"], 2), 2, g.turn)[0].options == options


def test_free_city_pays_its_purchases_from_its_own_coins(tables, engine):
    g = new_game(tables, ["giza:A", "babylon:A", "ephesus:A"], age=1, turn=1, free_city=True)
    setup(g, 0, coins=0)
    setup(g, 1, cards=["Stone Pit"])
    set_hands(g, [["Altar"], ["Tavern"], ["Baths"]])
    moves = free_city_moves(g.pos, cards(tables, ["Baths"]), 1, g.turn)
    assert moves[0].options == ((0, 2), (2, 0))  # a stone from either neighbour
    script(g, 0, ("Altar", "build"), ("Baths", "build", (2, 0)))  # not the default purchase
    script(g, 1, ("Tavern", "discard"))
    g.play_turn()
    # the controller (0 coins) pays nothing; the FC pays 2 to its left neighbour, seat 0
    assert coins(g) == [2, 6, 1]
    assert city_names(g, FC) == ["Baths"]
    fc_event = [e for e in g.events if e[3] == FC]
    assert fc_event == [(MOVE, 1, 1, FC, card(tables, "Baths"), ACTION["build"], 2, 0, -1)]


def test_free_city_discard_build_is_picked_by_the_controller(tables, engine):
    g = new_game(tables, ["giza:A", "babylon:A", "halicarnassus:A"], age=2, turn=1, free_city=True)
    setup(g, FC, cards=["Ore Vein", "Foundry"], stages=1)  # 3 ore: Halicarnassus A stage 2
    set_discard(g, ["Tavern", "Altar"])
    set_hands(g, [["Walls"], ["Temple", "Library"], ["School"]])
    ctrl = script(g, 1, ("Temple", "discard"), ("Library", "stage"), picks=["Altar"])
    script(g, 0, ("Walls", "discard"))
    g.play_turn()
    assert g.policies[0].log == [] and ctrl.log == [(FC, "discard_build")]
    assert [sorted(o) for o in ctrl.offered] == [["Altar", "Tavern", "Temple", "Walls"]]
    assert city_names(g, FC) == ["Ore Vein", "Foundry", "Altar"]
    assert [e for e in g.events if e[0] == DISCARD_BUILD] == [(DISCARD_BUILD, 2, 1, FC, card(tables, "Altar"),
                                                               0, 0, 0, -1)]


# ---------------------------------------------------------------------------------------------
# Hands: the players swap; turn 6 discards the pile's last card; no 7th card for the FC

@pytest.mark.parametrize("age, received", [
    (1, [["Pawnshop", "Stockade"], ["Baths", "Lumber Yard"]]),  # seat 0 controls
    (2, [["Stockade", "Lumber Yard"], ["Theater", "Baths"]]),  # seat 1 controls
    (3, [["Pawnshop", "Stockade"], ["Baths", "Lumber Yard"]]),
])
def test_players_swap_hands_after_each_turn(tables, age, received, engine):
    g = new_game(tables, ["giza:A", "babylon:A", "ephesus:A"], age=age, turn=1, free_city=True)
    ctrl = codes.fc_controller(age, 1)
    hands = [["Altar", "Theater", "Baths"], ["Tavern", "Pawnshop", "Stockade"]]
    set_hands(g, hands + [["Lumber Yard", "Ore Vein"]])
    # the controller's own card and the FC's (its second card) leave its hand; the drawn card stays
    script(g, ctrl, (hands[ctrl][0], "discard"), (hands[ctrl][1], "build"))
    script(g, 1 - ctrl, (hands[1 - ctrl][0], "discard"))
    g.play_turn()
    assert [names(tables, h) for h in g.hands] == received + [["Ore Vein"]]
    assert city_names(g, FC) == [hands[ctrl][1]]


def test_turn_6_discards_the_last_pile_card_and_the_leftovers(tables, engine):
    g = new_game(tables, ["giza:A", "babylon:A", "ephesus:A"], age=1, turn=6, free_city=True)
    assert codes.fc_controller(1, 6) == 1
    set_hands(g, [["Altar", "Theater"], ["Tavern", "Baths"], ["Lumber Yard", "Ore Vein"]])
    script(g, 0, ("Altar", "build"))
    script(g, 1, ("Tavern", "build"), ("Lumber Yard", "build"))  # Baths stays in seat 1's hand
    g.play_turn()
    assert discard_names(g) == ["Baths", "Ore Vein", "Theater"]  # no coins for them
    assert coins(g) == [3, 8, 3]
    assert g.hands == [[], [], []]


def test_free_city_never_plays_a_7th_card_a_babylon_b_player_plays_the_one_left(tables, engine):
    g = new_game(tables, ["babylon:B", "babylon:B", "babylon:B"], age=1, turn=6, free_city=True)
    for seat in range(3):
        setup(g, seat, stages=2)
    set_hands(g, [["Altar", "Theater"], ["Tavern", "Baths"], ["Lumber Yard", "Ore Vein"]])
    script(g, 0, ("Altar", "build"), ("Theater", "build"))  # its 7th card
    script(g, 1, ("Tavern", "build"), ("Baths", "discard"), ("Lumber Yard", "build"))  # own, FC, 7th
    g.play_turn()
    offered = [[names(tables, {m.card for m in moves}) for s7, moves in p.seen if s7] for p in g.policies]
    assert offered == [[["Theater"]], [["Lumber Yard"]]]  # each player's one card left
    assert [(e[3], tables.card_names[e[4]]) for e in g.events if e[0] == SEVENTH] == [(0, "Theater"),
                                                                                   (1, "Lumber Yard")]
    assert [p.asked for p in g.policies] == [[0, 0], [1, FC, 1]]
    assert city_names(g, 0) == ["Altar", "Theater"] and city_names(g, 1) == ["Tavern", "Lumber Yard"]
    assert city_names(g, FC) == [] and discard_names(g) == ["Baths", "Ore Vein"]  # the pile's last card
    assert coins(g) == [3, 8, 6]


# ---------------------------------------------------------------------------------------------
# Scoring: the FC is scored in full but never ranks or wins

def test_shared_victory_between_the_two_players(tables):
    g = new_game(tables, ["giza:A", "babylon:A", "ephesus:A"], free_city=True)
    setup(g, 0, coins=7, cards=["Altar"])  # 2 treasury + 2 civilian
    setup(g, 1, coins=7, cards=["Theater"])
    setup(g, FC, coins=7, cards=["Baths"])  # 2 + 3: more points, ranks against nobody
    final = g.final()
    assert [p["total"] for p in final["players"]] == [4, 4, 5]
    assert [p["rank"] for p in final["players"]] == [1, 1, None]
    assert final["winners"] == [0, 1]
    assert [p.get("free_city") for p in final["players"]] == [None, None, True]


def test_free_city_with_the_most_points_does_not_win(tables):
    g = new_game(tables, ["giza:A", "babylon:A", "ephesus:A"], free_city=True)
    setup(g, 0, coins=4)
    setup(g, 1, coins=3, tokens=[1])  # 1 + 1 points
    setup(g, FC, coins=30, tokens=[5, 5])
    final = g.final()
    assert [p["total"] for p in final["players"]] == [1, 2, 20]
    assert [p["rank"] for p in final["players"]] == [2, 1, None]
    assert final["winners"] == [1]


# ---------------------------------------------------------------------------------------------
# Whole games

def test_random_two_player_games_are_complete_and_replay(tables):
    for game in range(6):
        g, doc = _random_game(tables, 21, game, promo=game % 2 == 0)
        check_complete_game(g, game)
        assert doc["players"] == 2 and len(doc["setup"]["boards"]) == 3
        assert [len(h) for h in doc["setup"]["hands"][0]] == [7, 7, 7]
        assert sum(1 for e in g.events if e[0] == MOVE and e[3] == FC) == 18
        assert all(e[3] != FC for e in g.events if e[0] == SEVENTH)
        assert replay(tables, doc) == doc["final"]
        assert doc["final"]["players"][FC]["rank"] is None and FC not in doc["final"]["winners"]
    assert play(21, 5, 2, tables, promo_in_pool=False) == doc


def test_replay_rejects_a_wrong_free_city_controller(tables):
    _, doc = _random_game(tables, 21, 1)
    bad = copy.deepcopy(doc)
    ev = next(e for e in bad["events"] if "by" in e)
    ev["by"] = 1 - ev["by"]
    with pytest.raises(LogError, match="controls the Free City"):
        replay(tables, bad)
    bad = copy.deepcopy(doc)  # the FC may not discard a card it can build or stage
    ev = next(e for e in bad["events"] if "by" in e and e["action"] != "discard")
    ev.update(action="discard", left=0, right=0)
    with pytest.raises(ValueError, match="not a legal move"):
        replay(tables, bad)
