"""How a seat played (docs/interfaces.md §2, dataset schema version 3): `discards`, `chained`,
`coins_paid` and `coins_received`, counted by the kernels (F_* / RES_* fields) and by the
reference engine (City's fields), compared in every kernel-vs-reference game (the move log's
final entries hold them).

- hand-made turns with the numbers each counter must give, on both engines;
- the counters recounted from the move log alone (an independent count) in kernel games of every
  player count and policy;
- a log whose counters differ from the reference's replay is refused;
- sanity over 200 four-player heuristic games.
"""

import copy

import numpy as np
import pytest

from wsim import codes
from wsim.movelog import ACT_BUILD, ACT_DISCARD, DISCARD_BUILD, MOVE, SEVENTH
from wsim.reference.engine import play
from wsim.reference.replay import ReplayError, replay
from wsim.run.runner import COUNTER_FIELDS, Runner
from wsim.run.settings import Settings

import enginekit
from enginekit import city_names, coins, new_game, options, script, set_discard, set_hands, setup


@pytest.fixture(params=["reference", "kernel"])
def engine(request, monkeypatch):
    """Every scripted turn runs on both engines: the reference, and the kernels' step API."""
    monkeypatch.setattr(enginekit, "ENGINE", request.param)
    return request.param


def counters(g) -> dict:
    """{counter: [value of each seat]} of a game's cities."""
    return {name: [getattr(c, name) for c in g.pos.cities] for name in codes.COUNTERS}


@pytest.mark.parametrize("purchase, received", [((2, 0), [0, 2, 2]), ((0, 2), [0, 0, 4])])
def test_coins_paid_and_received_count_cards_and_stages(tables, engine, purchase, received):
    """Seat 0 buys Stockade's wood from its left (seat 1) or right (seat 2) neighbour; seat 1
    (Olympia A) buys its stage 1's wood from its left neighbour (seat 2's Lumber Yard); seat 2
    builds for nothing."""
    g = new_game(tables, ["giza:A", "olympia:A", "babylon:A"], age=1, turn=1)
    setup(g, 2, cards=["Lumber Yard"])
    set_hands(g, [["Stockade"], ["Altar"], ["Theater"]])
    assert options(g, 1, "Altar", "stage") == [(2, 0)]
    script(g, 0, ("Stockade", "build", purchase))
    script(g, 1, ("Altar", "stage", (2, 0)))
    script(g, 2, ("Theater", "build"))
    g.play_turn()
    assert counters(g) == {"discards": [0, 0, 0], "chained": [0, 0, 0], "coins_paid": [2, 2, 0],
                           "coins_received": received}


def test_chained_counts_a_build_made_free_by_a_chain_and_not_a_discard_build(tables, engine):
    """Age II: seat 1 owns Altar and builds Temple through its chain (counted); seat 0
    (Halicarnassus B, stage 1) owns Baths and takes Aqueduct, which Baths chains to, from the
    pile by its discard build (not counted); seat 2 discards (counted as a discard)."""
    g = new_game(tables, ["halicarnassus:B", "rhodes:A", "giza:A"], age=2, turn=2)
    setup(g, 0, cards=["Foundry", "Baths"])  # Foundry: ore 2 for stage 1
    setup(g, 1, cards=["Altar"], coins=0)
    set_discard(g, ["Aqueduct"])
    set_hands(g, [["Temple"], ["Temple"], ["Theater"]])
    assert options(g, 1, "Temple") == [(0, 0)]  # free through the chain, even with 0 coins
    script(g, 0, ("Temple", "stage"), picks=["Aqueduct"])
    script(g, 1, ("Temple", "build"))
    script(g, 2, ("Theater", "discard"))
    g.play_turn()
    assert city_names(g, 0) == ["Foundry", "Baths", "Aqueduct"] and city_names(g, 1) == ["Altar", "Temple"]
    assert counters(g) == {"discards": [0, 0, 1], "chained": [0, 1, 0], "coins_paid": [0, 0, 0],
                           "coins_received": [0, 0, 0]}


def test_chained_does_not_count_a_card_with_no_cost_nor_a_paid_build(tables, engine):
    g = new_game(tables, ["olympia:A", "giza:A", "rhodes:A"], age=2, turn=1)
    setup(g, 0, cards=["Baths"], coins=0)
    setup(g, 2, cards=["Altar"])
    set_hands(g, [["Aqueduct"], ["Sawmill"], ["Temple"]])
    script(g, 0, ("Aqueduct", "build"))  # 3 stone, free through Baths
    script(g, 1, ("Sawmill", "build"))  # 1 coin to the bank
    script(g, 2, ("Temple", "build"))  # through Altar
    g.play_turn()
    assert counters(g)["chained"] == [1, 0, 1] and coins(g) == [0, 2, 3]


@pytest.mark.parametrize("seventh, discards", [(("Stockade", "discard"), [2, 0, 0]), (None, [1, 0, 0])])
def test_discards_count_the_7th_card_and_not_the_leftovers(tables, engine, seventh, discards):
    """Babylon B on turn 6: its move discards Altar, its 7th card is discarded too (or declined:
    then it goes face down with the leftovers, not counted)."""
    g = new_game(tables, ["babylon:B", "olympia:A", "giza:A"], age=1, turn=6)
    setup(g, 0, coins=0, stages=2)
    set_hands(g, [["Altar", "Stockade"], ["Theater", "Pawnshop"], ["Lumber Yard", "Baths"]])
    script(g, 0, ("Altar", "discard"), *([seventh] if seventh else []))
    script(g, 1, ("Theater", "build"))
    script(g, 2, ("Lumber Yard", "build"))
    g.play_turn()
    assert counters(g)["discards"] == discards
    assert coins(g)[0] == 3 * discards[0]


def test_the_free_city_counts_its_own_purchase(tables, engine):
    """Two players, Age I turn 1: seat 0 controls the Free City (seat 2), which builds the pile
    card drawn, Stockade, buying its wood from seat 0 (its left neighbour); seat 1 discards."""
    g = new_game(tables, ["giza:A", "babylon:A", "rhodes:A"], age=1, turn=1, free_city=True)
    setup(g, 0, cards=["Lumber Yard"])
    set_hands(g, [["Altar", "Baths"], ["Theater"], ["Stockade", "Tavern"]])
    script(g, 0, ("Altar", "build"), ("Stockade", "build", (2, 0)))  # its own move, then the Free City's
    script(g, 1, ("Theater", "discard"))
    g.play_turn()
    assert counters(g) == {"discards": [0, 1, 0], "chained": [0, 0, 0], "coins_paid": [0, 0, 2],
                           "coins_received": [2, 0, 0]}


def test_the_free_city_counts_its_chained_build(tables, engine):
    """Age II turn 1: seat 1 controls the Free City, which owns Altar and must build the Temple
    it draws through that chain; seat 1 discards its own card."""
    g = new_game(tables, ["giza:A", "babylon:A", "ephesus:A"], age=2, turn=1, free_city=True)
    setup(g, 2, cards=["Altar"])
    set_hands(g, [["Sawmill"], ["Library"], ["Temple", "Walls"]])
    script(g, 0, ("Sawmill", "build"))
    script(g, 1, ("Library", "discard"), ("Temple", "build"))
    g.play_turn()
    assert city_names(g, 2) == ["Altar", "Temple"]
    assert counters(g) == {"discards": [0, 1, 0], "chained": [0, 0, 1], "coins_paid": [0, 0, 0],
                           "coins_received": [0, 0, 0]}


# -- the counters recounted from the move log -------------------------------------------------------

def counted_from_log(tables, events, cities: int) -> np.ndarray:
    """[seat, counter] recounted from a game's log events alone (codes.COUNTERS' order): an
    independent count of the rules docs/interfaces.md §2 states."""
    out = np.zeros((cities, len(codes.COUNTERS)), np.int64)
    owned = [set() for _ in range(cities)]
    cost = [bool(tables.ent_coin_cost[c] or np.any(tables.ent_cost[c])) for c in range(tables.n_cards)]
    for kind, _, _, s, card, action, left, right, _ in events:
        if kind in (MOVE, SEVENTH):
            out[s, 0] += action == ACT_DISCARD
            if action == ACT_BUILD and cost[card] and owned[s] & set(tables.chain_sources(card)):
                out[s, 1] += 1
            out[s, 2] += left + right
            out[(s + 1) % cities, 3] += left
            out[(s - 1) % cities, 3] += right
        if (kind in (MOVE, SEVENTH) and action in (ACT_BUILD, codes.ACT_BUILD_FREE)) or (
                kind == DISCARD_BUILD and card >= 0):
            owned[s].add(int(tables.card_name_id[card]))
    return out


@pytest.mark.parametrize("players, policy", [(2, "random"), (3, "greedy"), (4, "heuristic"), (5, "random"),
                                             (7, "heuristic"), (2, "heuristic")])
def test_kernel_counters_equal_the_log_recount(tables, players, policy):
    settings = Settings(players=players, seed=11, policies=(policy,) * players, manneken_pis=True)
    chunk = Runner(tables, settings).play(0, 25, log=True)
    fields = [field for _, field in COUNTER_FIELDS]
    for g in range(25):
        events = chunk.log[g, :chunk.n_log[g]].tolist()
        assert (chunk.res[g][:, fields] == counted_from_log(tables, events, settings.cities)).all(), g


def test_a_log_whose_counters_differ_is_refused(tables):
    doc = play(0, 1, 4, tables)
    assert replay(tables, doc) == doc["final"]
    for name in codes.COUNTERS:
        bad = copy.deepcopy(doc)
        bad["final"]["players"][1][name] += 1
        with pytest.raises(ReplayError, match="final scores differ"):
            replay(tables, bad)


def test_heuristic_games_counters_are_sane(tables):
    """200 four-player heuristic games: every counter >= 0, each game's coins paid equal its coins
    received, and each counter nonzero somewhere."""
    settings = Settings(players=4, seed=0, policies=("heuristic",) * 4)
    res = Runner(tables, settings).play(0, 200).res
    values = {name: res[:, :, field].astype(np.int64) for name, field in COUNTER_FIELDS}
    for name, v in values.items():
        assert v.min() >= 0 and v.max() > 0, name
    assert (values["coins_paid"].sum(axis=1) == values["coins_received"].sum(axis=1)).all()
