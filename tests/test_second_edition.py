"""The second edition (2020, docs/rules.md §13): its data file, its new rules on both engines,
its refusals, and kernel games the reference replays.

The rule tests build positions by hand (tests/enginekit.py) over the second edition's tables and
run on both engines: the reference, and the kernels' step API (tests/kernelturn.py). Seats: seat
s's left neighbour is s+1, its right neighbour s-1; with three players seat 0's left is seat 1
and its right seat 2. The second edition's boards produce: Rhodes ore, Alexandria glass, Ephesus
papyrus, Babylon wood, Olympia clay, Halicarnassus loom, Giza stone.
"""

import json
import shutil

import numpy as np
import pytest
import yaml

import enginekit
from clikit import last_error_line, run_cli
from enginekit import (ACTION, actions, city_names, coins, discard_names, find_move, names, new_game, options,
                       script, set_hands, setup)
from kernelturn import kernel_score_doc
from wsim import RULES_VERSION, codes, movelog, tables as tables_mod
from wsim.dataset.parts import read_metadata
from wsim.effects import COUNT_COMPLETE
from wsim.kernels.deal import deal
from wsim.kernels.schema import ENTITY
from wsim.movelog import MOVE, SEVENTH
from wsim.reference.engine import legal_moves
from wsim.reference.replay import replay
from wsim.reference.scoring import best_score
from wsim.run.model import FORMAT, Model, ModelError, feature_names, features_header, read_model
from wsim.run.runner import final_from_res
from wsim.run.stepgame import KernelGame
from wsim.run.verify import verify_games

FIRST = tables_mod.edition_path(1)
SECOND = tables_mod.edition_path(2)


@pytest.fixture(scope="module")
def t2():
    return tables_mod.load(SECOND)


@pytest.fixture(params=["reference", "kernel"])
def engine(request, monkeypatch):
    """A rule test that asks for it runs on both engines: the reference, and the kernels' step API."""
    monkeypatch.setattr(enginekit, "ENGINE", request.param)
    return request.param


def final_score(g, seat: int) -> dict:
    """The seat's final score by category, from the engine that plays the game."""
    if enginekit.ENGINE == "kernel":
        return kernel_score_doc(g.t, g.pos)["players"][seat]
    score = best_score(g.pos, seat)
    return {k: getattr(score, k) for k in codes.CATEGORIES}


# ---------------------------------------------------------------------------------------------
# 1. The data file (docs/rules.md §13, "What changed from the first edition")

def test_the_file_compiles_as_the_second_edition(t2):
    """`edition: 2` reaches the tables, which refuse two players and hold no promo board (the
    settings' 2-player and Manneken Pis refusals rest on these two facts)."""
    assert (t2.edition, t2.edition_name, t2.min_players, t2.source) == (2, "second edition (2020)", 3, "cards-2e.yaml")
    assert tables_mod.load(FIRST).edition == 1
    assert t2.board_ids == ("rhodes", "alexandria", "ephesus", "babylon", "olympia", "halicarnassus", "giza")
    assert not t2.board_promo.any()
    assert t2.n_cards == 80 and len(t2.names) == 77  # Loom, Glassworks, Press in Age I and II
    assert int(np.sum(t2.ent_kind[:t2.n_cards] == codes.PURPLE)) == 10


@pytest.mark.parametrize("players", range(3, 8))
def test_deck_sizes_are_7_cards_per_player_an_age(t2, players):
    """The decks keep their sizes (§1's table): 7 x players cards an age, Age III's non-guild
    cards plus players + 2 guilds."""
    sizes = [int(t2.card_copies[t2.card_age == age, players].sum()) for age in (1, 2, 3)]
    assert sizes[0] == sizes[1] == 7 * players
    assert sizes[2] + players + 2 == 7 * players


def test_copies_by_colour_at_7_players(t2):
    """§1's colour counts at 7 players, but Age III has blue 10 and yellow 10 (not 11 and 9):
    Town Hall loses its 5+ copy, Ludus (5+/7+) arrives with Castrum (4+/7+), Arsenal and Arena
    lose their 7+ copies, Circus its 5+."""
    def by_colour(age):
        rows = t2.card_age == age
        return {codes.COLORS[k]: int(t2.card_copies[rows & (t2.ent_kind[:t2.n_cards] == k), 7].sum())
                for k in range(codes.N_COLORS) if k != codes.PURPLE}
    assert by_colour(1) == {"brown": 14, "grey": 6, "blue": 8, "green": 6, "yellow": 9, "red": 6}
    assert by_colour(2) == {"brown": 8, "grey": 6, "blue": 8, "green": 8, "yellow": 10, "red": 9}
    assert by_colour(3) == {"brown": 0, "grey": 0, "blue": 10, "green": 10, "yellow": 10, "red": 10}


def _chain_links(t) -> set:
    return {(t.names[k], t.card_names[c]) for c in range(t.n_cards) for k in t.chain_sources(c)}


def test_25_chain_links_three_new_four_gone(t2):
    """Altar -> Pantheon, Theater -> Gardens and Well -> Statue replace Altar -> Temple, Temple ->
    Pantheon, Theater -> Statue and Statue -> Gardens (the Pawnshop, renamed Well, chained to
    nothing): 25 links, not 26."""
    first = _chain_links(tables_mod.load(FIRST))
    second = _chain_links(t2)
    assert (len(first), len(second)) == (26, 25)
    assert second - first == {("Altar", "Pantheon"), ("Theater", "Gardens"), ("Well", "Statue")}
    assert first - second == {("Altar", "Temple"), ("Temple", "Pantheon"), ("Theater", "Statue"),
                              ("Statue", "Gardens")}


_DERIVED = {"has_cost", "cost_pk", "prod_pk", "points_cap", "name_id", "chain", "chains_to"}
_FACTS = [i for name, width, _ in ENTITY.fields if name not in _DERIVED
          for i in range(ENTITY.offsets[name], ENTITY.offsets[name] + width)]


def _card_facts(t) -> dict:
    """(name, age) -> (the card's row less derived and id-valued fields, its chain sources by name)."""
    return {(t.card_names[c], int(t.card_age[c])): (tuple(t.ent[c, _FACTS].tolist()),
                                                     tuple(sorted(t.names[k] for k in t.chain_sources(c))))
            for c in range(t.n_cards)}


def test_exactly_the_17_card_changes_of_section_13(t2):
    """Every compiled fact of every card (colour, cost, copies, effects, chain sources) is the
    first edition's, but for the 17 cards §13 lists: 13 changed, 4 new (the Well replacing the
    Pawnshop, the Decorators Guild the Strategists Guild)."""
    first, second = _card_facts(tables_mod.load(FIRST)), _card_facts(t2)
    changed = {name for name, age in first.keys() & second.keys() if first[(name, age)] != second[(name, age)]}
    assert changed == {"Altar", "Theater", "Temple", "Statue", "Pantheon", "Gardens", "Town Hall", "Arena", "Circus",
                       "Arsenal", "Fortifications", "Builders Guild", "Spies Guild"}
    assert {name for name, _ in second.keys() - first.keys()} == {"Well", "Ludus", "Castrum", "Decorators Guild"}
    assert {name for name, _ in first.keys() - second.keys()} == {"Pawnshop", "Strategists Guild"}


def _cost(t, e) -> dict:
    out = {r: int(n) for r, n in zip(codes.RESOURCES, t.ent_cost[e]) if n}
    if t.ent_coin_cost[e]:
        out["coins"] = int(t.ent_coin_cost[e])
    return out


def _copies(t, c) -> list:
    """The player counts at which a card's copies join the deck ("3+", "5+": [3, 5])."""
    at = [0] + [int(t.card_copies[c, n]) for n in range(3, 8)]  # copies at 3..7 players
    return [n for n in range(3, 8) for _ in range(at[n - 2] - at[n - 3])]


@pytest.mark.parametrize("name, age, colour, cost, copies, points, shields, chain_from", [
    ("Well", 1, "blue", {}, [4, 7], 3, 0, []),
    ("Altar", 1, "blue", {}, [3, 5], 3, 0, []),
    ("Theater", 1, "blue", {}, [3, 6], 3, 0, []),
    ("Temple", 2, "blue", {"wood": 1, "clay": 1, "glass": 1}, [3, 6], 4, 0, []),
    ("Statue", 2, "blue", {"wood": 1, "ore": 2}, [3, 7], 4, 0, ["Well"]),
    ("Pantheon", 3, "blue", {"clay": 2, "ore": 1, "glass": 1, "loom": 1, "papyrus": 1}, [3, 6], 7, 0, ["Altar"]),
    ("Gardens", 3, "blue", {"wood": 1, "clay": 2}, [3, 4], 5, 0, ["Theater"]),
    ("Town Hall", 3, "blue", {"stone": 2, "ore": 1, "glass": 1}, [3, 6], 6, 0, []),
    ("Arena", 3, "yellow", {"stone": 2, "ore": 1}, [3, 5], 0, 0, ["Dispensary"]),
    ("Circus", 3, "red", {"stone": 3, "ore": 1}, [4, 6], 0, 3, ["Training Ground"]),
    ("Arsenal", 3, "red", {"wood": 2, "ore": 1, "loom": 1}, [3, 5], 0, 3, []),
    ("Fortifications", 3, "red", {"clay": 1, "ore": 3}, [3, 7], 0, 3, ["Walls"]),
    ("Castrum", 3, "red", {"wood": 1, "clay": 2, "papyrus": 1}, [4, 7], 0, 3, []),
    ("Ludus", 3, "yellow", {"stone": 1, "ore": 1}, [5, 7], 0, 0, []),
    ("Builders Guild", 3, "purple", {"stone": 3, "clay": 2, "glass": 1}, [], 0, 0, []),
    ("Spies Guild", 3, "purple", {"clay": 2, "glass": 1}, [], 0, 0, []),
    ("Decorators Guild", 3, "purple", {"stone": 1, "ore": 2, "loom": 1}, [], 0, 0, []),
])
def test_the_changed_cards_facts(t2, name, age, colour, cost, copies, points, shields, chain_from):
    """Each of the 17 cards as §13 states it (the Pawnshop's name still finds the Well)."""
    c = t2.card_id(name)
    assert (int(t2.card_age[c]), codes.COLORS[t2.ent_kind[c]]) == (age, colour)
    assert _cost(t2, c) == cost
    assert _copies(t2, c) == copies
    assert (int(t2.ent_points[c]), int(t2.ent_shields[c])) == (points, shields)
    assert sorted(t2.names[k] for k in t2.chain_sources(c)) == chain_from
    assert t2.card_id("Pawnshop") == t2.card_id("Well")


def test_ludus_and_decorators_guild_counts(t2):
    """Ludus: 3 coins per own red card when built, 1 point per own red card at the end; the
    Decorators Guild: 7 points for its owner's complete wonder (the new count target)."""
    red = 1 << codes.RED
    ludus = t2.card_id("Ludus")
    assert list(t2.ent_coins_per[ludus]) == [3, red, codes.SCOPE_SELF]
    assert list(t2.ent_points_per[ludus]) == [1, red, codes.SCOPE_SELF]
    assert list(t2.ent_points_per[t2.card_id("Decorators Guild")]) == [7, COUNT_COMPLETE, codes.SCOPE_SELF]


def _stages(t, wonder, side) -> list:
    """A side's stages as (cost, points, power name) tuples."""
    b = t.board_id(wonder)
    out = []
    for k in range(int(t.board_stages[b, "AB".index(side)])):
        e = t.stage_entity(b, "AB".index(side), k)
        out.append((_cost(t, e), int(t.ent_points[e]), codes.POWERS[t.ent_power[e]]))
    return out


def test_boards_resources_and_stages(t2):
    """The seven boards produce the seven resources once each (Babylon now wood, Olympia clay);
    Babylon Night has two stages, the 7th card its first; Olympia's three powers; Giza Night
    keeps its four stages, Rhodes Night its two."""
    assert {wid: codes.RESOURCES[t2.board_resource[t2.board_id(wid)]] for wid in t2.board_ids} == {
        "rhodes": "ore", "alexandria": "glass", "ephesus": "papyrus", "babylon": "wood", "olympia": "clay",
        "halicarnassus": "loom", "giza": "stone"}
    assert all(t2.board_coins == 3)
    assert _stages(t2, "babylon", "A") == [({"clay": 2}, 3, "none"), ({"ore": 2, "loom": 1}, 0, "none"),
                                           ({"wood": 4}, 7, "none")]
    assert _stages(t2, "babylon", "B") == [({"stone": 2}, 0, "play_seventh_card"), ({"clay": 3, "glass": 1}, 0, "none")]
    assert t2.ent_science[t2.stage_entity(t2.board_id("babylon"), 1, 1)] == codes.SCI_ANY
    assert _stages(t2, "olympia", "A") == [({"stone": 2}, 3, "none"), ({"wood": 2}, 0, "free_build_first_of_color"),
                                           ({"clay": 3}, 7, "none")]
    assert _stages(t2, "olympia", "B") == [({"ore": 2}, 2, "free_build_first_of_age"),
                                           ({"clay": 3}, 3, "free_build_last_of_age"),
                                           ({"glass": 1, "loom": 1, "papyrus": 1}, 5, "none")]
    assert [s[0] for s in _stages(t2, "alexandria", "A")] == [{"stone": 2}, {"ore": 2}, {"loom": 1, "papyrus": 1}]
    assert [s[0] for s in _stages(t2, "alexandria", "B")] == [{"clay": 2}, {"ore": 3}, {"wood": 4}]
    assert [s[0] for s in _stages(t2, "ephesus", "A")] == [{"clay": 2}, {"wood": 2}, {"ore": 2, "glass": 1}]
    assert [s[0] for s in _stages(t2, "ephesus", "B")] == [{"stone": 2}, {"wood": 2}, {"ore": 2, "loom": 1}]
    assert [s[0] for s in _stages(t2, "halicarnassus", "A")] == [{"ore": 2}, {"glass": 1, "papyrus": 1}, {"stone": 3}]
    assert [s[0] for s in _stages(t2, "halicarnassus", "B")] == [{"clay": 2}, {"glass": 1, "papyrus": 1}, {"wood": 3}]
    assert [s[0] for s in _stages(t2, "giza", "A")] == [{"wood": 2}, {"clay": 2, "loom": 1}, {"stone": 4}]
    assert _stages(t2, "giza", "B") == [({"wood": 2}, 3, "none"), ({"stone": 3}, 5, "none"), ({"clay": 3}, 5, "none"),
                                        ({"stone": 4, "papyrus": 1}, 7, "none")]
    assert _stages(t2, "rhodes", "B") == _stages(tables_mod.load(FIRST), "rhodes", "B")
    assert len(_stages(t2, "rhodes", "B")) == 2


# ---------------------------------------------------------------------------------------------
# 2. Olympia Day, stage 2: a building of a colour the city lacks is built for nothing

def test_olympia_day_builds_the_first_card_of_a_colour_free_not_the_second(t2, engine):
    """With the power, no blue card and 0 coins, the Palace (7 resources) is built for nothing:
    no purchase, no coins. A red card is not free (a Stockade is in the city); once the Palace
    is in, the Town Hall (blue) is not free either. A card free through Olympia alone is not
    `chained`."""
    g = new_game(t2, ["olympia:A", "giza:A", "rhodes:A"], age=3, turn=1)
    setup(g, 0, cards=["Lumber Yard", "Stone Pit", "Stockade"], stages=2, coins=0)
    set_hands(g, [["Palace", "Fortifications", "Town Hall"], ["Senate"], ["Gardens"]])
    assert actions(g, 0, "Palace") == ["build", "discard"]  # stage 3 (3 clay) unaffordable
    m = find_move(t2, enginekit.moves_for(g, 0), "Palace", "build")
    assert (m.coin_cost, m.options) == (0, ((0, 0),))
    assert actions(g, 0, "Fortifications") == ["discard"]  # red is in the city already
    script(g, 0, ("Palace", "build"))
    g.play_turn()  # the neighbours discard
    assert city_names(g, 0) == ["Lumber Yard", "Stone Pit", "Stockade", "Palace"]
    assert coins(g) == [0, 6, 6]
    assert g.pos.cities[0].chained == 0
    ev = [e for e in g.events if e[0] == MOVE and e[3] == 0]
    assert [(names(t2, [e[4]]), e[5], e[6], e[7]) for e in ev] == [(["Palace"], ACTION["build"], 0, 0)]
    g.turn = 2
    set_hands(g, [["Town Hall"], ["Lodge"], ["Study"]])
    assert actions(g, 0, "Town Hall") == ["discard"]  # the second blue card is paid for


def test_olympia_day_power_is_what_makes_it_free(t2, engine):
    """The same city without stage 2: the Palace cannot be built at all."""
    g = new_game(t2, ["olympia:A", "giza:A", "rhodes:A"], age=3, turn=1)
    setup(g, 0, cards=["Lumber Yard", "Stone Pit", "Stockade"], stages=1, coins=0)
    set_hands(g, [["Palace"], ["Senate"], ["Gardens"]])
    assert actions(g, 0, "Palace") == ["discard"]  # stage 2 (2 wood): one wood and 0 coins


def test_olympia_day_chain_free_cards_stay_free_and_chained_counts_only_chains(t2, engine):
    """Blue and green are in the city: the Aqueduct (chain from the Baths) is still free, the
    Laboratory (no chain owned, green present) is not; the Walls (first red) is free through the
    power. `chained` counts the Aqueduct, not the Walls."""
    g = new_game(t2, ["olympia:A", "giza:A", "ephesus:A"], age=2, turn=1)
    setup(g, 0, cards=["Baths", "Scriptorium"], stages=2, coins=0)
    set_hands(g, [["Aqueduct", "Walls", "Laboratory"], ["Temple"], ["School"]])
    assert actions(g, 0, "Aqueduct") == ["build", "discard"]
    assert actions(g, 0, "Walls") == ["build", "discard"]
    assert actions(g, 0, "Laboratory") == ["discard"]
    script(g, 0, ("Aqueduct", "build"))
    g.play_turn()
    assert g.pos.cities[0].chained == 1
    g.turn = 2
    set_hands(g, [["Walls", "Laboratory"], ["Temple"], ["School"]])
    script(g, 0, ("Walls", "build"))
    g.play_turn()
    city = g.pos.cities[0]
    assert city_names(g, 0) == ["Baths", "Scriptorium", "Aqueduct", "Walls"]
    assert (city.coins, city.chained) == (0, 1)


def test_olympia_day_never_makes_a_wonder_stage_free(t2, engine):
    """The Baths (blue, 1 stone, none in the city) builds for nothing, but the same card under
    stage 3 (3 clay: Olympia's, a Clay Pool's and one bought from the left) is paid in full."""
    g = new_game(t2, ["olympia:A", "giza:A", "rhodes:A"], age=1, turn=1)
    setup(g, 0, cards=["Clay Pool"], stages=2, coins=2)
    setup(g, 1, cards=["Clay Pool"])
    set_hands(g, [["Baths"], ["Altar"], ["Theater"]])
    assert actions(g, 0, "Baths") == ["build", "stage", "discard"]
    assert options(g, 0, "Baths") == [(0, 0)]
    assert options(g, 0, "Baths", "stage") == [(2, 0)]
    script(g, 0, ("Baths", "stage", (2, 0)))
    g.play_turn()
    assert g.pos.cities[0].stages == 3
    assert coins(g) == [0, 3 + 2 + 3, 6]


def test_olympia_day_works_from_the_turn_after_its_stage_and_a_tucked_card_is_no_colour(t2, engine):
    """On the turn stage 2 is built its power is not there yet: the Temple (no glass, 0 coins)
    can only go under the stage. Next turn the Statue (blue) is free: the Temple under the stage
    put no blue in the city."""
    g = new_game(t2, ["olympia:A", "giza:A", "ephesus:A"], age=2, turn=1)
    setup(g, 0, cards=["Sawmill"], stages=1, coins=0)  # 2 wood for stage 2
    set_hands(g, [["Temple", "Statue"], ["Library"], ["School"]])
    assert actions(g, 0, "Temple") == ["stage", "discard"]
    assert actions(g, 0, "Statue") == ["stage", "discard"]
    script(g, 0, ("Temple", "stage"))
    g.play_turn()
    assert g.pos.cities[0].stages == 2 and city_names(g, 0) == ["Sawmill"]
    g.turn = 2
    set_hands(g, [["Statue"], ["Library"], ["School"]])
    assert actions(g, 0, "Statue") == ["build", "discard"]
    assert options(g, 0, "Statue") == [(0, 0)]


# ---------------------------------------------------------------------------------------------
# 3. Olympia Night, stage 1: the card played on turn 1 of every later age is free

def test_olympia_night_turn1_card_of_a_later_age_is_free_turn2_not(t2, engine):
    """Stage 1 built in Age I (turn 6): Age II's turn-1 card, the Temple (no glass, 0 coins), is
    built for nothing; on turn 2 the Walls are not."""
    g = new_game(t2, ["olympia:B", "giza:A", "ephesus:A"], age=1, turn=6)
    setup(g, 0, cards=["Lumber Yard", "Ore Vein", "Forest Cave"], coins=0)  # 2 ore for stage 1
    set_hands(g, [["Altar", "Baths"], ["Theater", "Well"], ["Tavern", "Loom"]])
    script(g, 0, ("Altar", "stage"))
    g.play_turn()
    assert g.pos.cities[0].stages == 1
    g.age, g.turn = 2, 1
    set_hands(g, [["Temple", "Statue"], ["Library"], ["School"]])
    assert actions(g, 0, "Temple") == ["build", "discard"]
    assert options(g, 0, "Temple") == [(0, 0)]
    script(g, 0, ("Temple", "build"))
    g.play_turn()
    assert city_names(g, 0)[-1] == "Temple" and g.pos.cities[0].coins == 0
    g.turn = 2
    set_hands(g, [["Walls"], ["Library"], ["School"]])
    assert actions(g, 0, "Walls") == ["discard"]  # 3 stone, nobody sells it; stage 2 (3 clay) out of reach


@pytest.mark.parametrize("turn1, statue", [
    ("stage", ["discard"]),  # stage 2 built; stage 3 (glass, loom, papyrus) out of reach
    ("discard", ["stage", "discard"]),  # 3 coins, stage 2 still there to build
])
def test_olympia_night_turn1_stage_or_discard_forfeits_the_age(t2, engine, turn1, statue):
    """Putting the turn-1 card under a stage, or discarding it, uses up the age's free card:
    on turn 2 the Statue (wood + 2 ore, nobody sells either) is not free."""
    g = new_game(t2, ["olympia:B", "giza:A", "ephesus:A"], age=2, turn=1)
    setup(g, 0, cards=["Brickyard"], stages=1, coins=0)  # 3 clay for stage 2
    set_hands(g, [["Temple", "Statue"], ["Library"], ["School"]])
    assert actions(g, 0, "Temple") == ["build", "stage", "discard"]
    script(g, 0, ("Temple", turn1))
    g.play_turn()
    g.turn = 2
    set_hands(g, [["Statue"], ["Library"], ["School"]])
    assert actions(g, 0, "Statue") == statue


# ---------------------------------------------------------------------------------------------
# 4. Olympia Night, stage 2: the card played on turn 6 is free, never the 7th card

def test_olympia_night_turn6_card_is_free_when_the_stage_is_built_by_turn5(t2, engine):
    """Stage 2 built on turn 5 (3 clay): the turn-5 listing had no free Barracks; on turn 6 the
    Barracks (ore, none to hand, 0 coins) is built for nothing."""
    g = new_game(t2, ["olympia:B", "giza:A", "ephesus:A"], age=1, turn=5)
    setup(g, 0, cards=["Clay Pool", "Excavation"], stages=1, coins=0)
    set_hands(g, [["Altar", "Barracks"], ["Theater", "Well"], ["Tavern", "Loom"]])
    assert actions(g, 0, "Barracks") == ["stage", "discard"]
    script(g, 0, ("Altar", "stage"))
    g.play_turn()
    assert g.pos.cities[0].stages == 2
    g.turn = 6
    set_hands(g, [["Barracks", "Stockade"], ["Altar", "Well"], ["Theater", "Press"]])
    assert actions(g, 0, "Barracks") == ["build", "discard"]
    assert options(g, 0, "Barracks") == [(0, 0)]
    script(g, 0, ("Barracks", "build"))
    script(g, 1, ("Altar", "build"))
    script(g, 2, ("Theater", "build"))
    g.play_turn()
    assert city_names(g, 0) == ["Clay Pool", "Excavation", "Barracks"]
    assert coins(g) == [0, 6, 6]  # the neighbours discarded on turn 5
    # turn 5's discards (Theater, Tavern), turn 6's leftovers (no coins)
    assert discard_names(g) == ["Press", "Stockade", "Tavern", "Theater", "Well"]


@pytest.fixture(scope="module")
def t2_night_seventh():
    """The second edition with Olympia Night's stage 1 giving the 7th card (play_seventh_card)
    instead of its turn-1 free card: no real board pairs the 7th card with the turn-6 free card,
    so this one does, to show the 7th card is no turn's card."""
    with open(SECOND, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    olympia = next(w for w in doc["wonders"] if w["id"] == "olympia")
    olympia["sides"]["B"][0]["power"] = "play_seventh_card"
    return tables_mod.compile_text(yaml.safe_dump(doc, sort_keys=False), source="night-seventh.yaml")


def test_olympia_night_7th_card_is_not_the_turn6_card(t2_night_seventh, engine):
    """Turn 6: the Barracks is free (the turn's card); the 7th card, the Stockade (wood, nobody
    sells it to this city), is not: it can only be discarded."""
    t = t2_night_seventh
    g = new_game(t, ["olympia:B", "giza:A", "ephesus:A"], age=1, turn=6)
    setup(g, 0, stages=2, coins=0)
    set_hands(g, [["Barracks", "Stockade"], ["Altar", "Baths"], ["Theater", "Well"]])
    assert options(g, 0, "Barracks") == [(0, 0)] and options(g, 0, "Stockade") == [(0, 0)]
    script(g, 0, ("Barracks", "build"), ("Stockade", "discard"))
    g.play_turn()
    seen7 = [m for seventh, m in g.policies[0].seen if seventh]
    assert len(seen7) == 1
    assert find_move(t, seen7[0], "Stockade", "build") is None
    assert find_move(t, seen7[0], "Stockade", "discard") is not None
    assert city_names(g, 0) == ["Barracks"]
    assert g.pos.cities[0].coins == 3
    assert [e[0] for e in g.events if e[3] == 0] == [MOVE, SEVENTH]


def test_reference_legal_moves_give_no_turn6_free_card_to_a_7th_card(t2):
    """The reference's legal_moves take the turn; None (a 7th card) is no turn's card, neither
    turn 6's nor turn 1's."""
    g = new_game(t2, ["olympia:B", "giza:A", "ephesus:A"], age=1, turn=6)
    setup(g, 0, stages=3, coins=0)
    hand = [t2.card_id("Barracks")]
    builds = {turn: [m for m in legal_moves(g.pos, 0, hand, 1, turn) if m.action == ACTION["build"]]
              for turn in (1, 2, 6, None)}
    assert [len(builds[turn]) for turn in (1, 2, 6, None)] == [1, 0, 1, 0]


# ---------------------------------------------------------------------------------------------
# 5. Decorators Guild: 7 points for a complete wonder (its owner's), in the guild category

@pytest.mark.parametrize("board, stages, guild", [
    ("rhodes:B", 2, 7), ("rhodes:B", 1, 0),  # a 2-stage side
    ("giza:B", 4, 7), ("giza:B", 3, 0),  # Giza Night's 4 stages
    ("olympia:A", 3, 7), ("olympia:A", 2, 0),
])
def test_decorators_guild_scores_7_for_a_complete_wonder(t2, board, stages, guild):
    """Seat 0 holds the guild; seat 1's wonder is complete (no guild); seat 2 holds the guild with
    no stage while both its neighbours may be complete: only its owner's wonder counts. Both
    engines' final scores agree, category by category."""
    g = new_game(t2, [board, "alexandria:A", "halicarnassus:A"], age=3, turn=6)
    setup(g, 0, cards=["Decorators Guild"], stages=stages)
    setup(g, 1, stages=3)
    setup(g, 2, cards=["Decorators Guild"])
    reference = [best_score(g.pos, s) for s in range(3)]
    kernel = kernel_score_doc(t2, g.pos)["players"]
    assert [s.guild for s in reference] == [guild, 0, 0]
    assert [p["guild"] for p in kernel] == [guild, 0, 0]
    for s in range(3):
        assert {k: getattr(reference[s], k) for k in codes.CATEGORIES} == \
            {k: kernel[s][k] for k in codes.CATEGORIES}


def test_decorators_guild_counts_the_last_stage_built_on_the_last_turn(t2, engine):
    """Giza Night's stage 4 (4 stone + papyrus) built on Age III's turn 6 completes the wonder:
    7 guild points in the final score of the engine that played the turn."""
    g = new_game(t2, ["giza:B", "alexandria:A", "halicarnassus:A"], age=3, turn=6)
    setup(g, 0, cards=["Quarry", "Stone Pit", "Press", "Decorators Guild"], stages=3)
    set_hands(g, [["Senate", "Palace"], ["Gardens", "Study"], ["Lodge", "Arsenal"]])
    assert final_score(g, 0)["guild"] == 0
    script(g, 0, ("Senate", "stage"))
    g.play_turn()
    g.military()
    assert g.pos.cities[0].stages == 4
    after = final_score(g, 0)
    assert (after["guild"], after["wonder"]) == (7, 3 + 5 + 5 + 7)


# ---------------------------------------------------------------------------------------------
# 6. Babylon Night, stage 1: the 7th card, from the turn it is built (turn 6 included)

def test_babylon_night_stage1_built_on_turn6_plays_the_7th_card(t2, engine):
    """Stage 1 (2 stone: Stone Pit and Excavation) built with the Altar on turn 6 of Age I: the
    same turn's 7th card, the Baths (1 stone), is built; nothing else of the hand is discarded."""
    g = new_game(t2, ["babylon:B", "giza:A", "rhodes:A"], age=1, turn=6)
    setup(g, 0, cards=["Stone Pit", "Excavation"])
    set_hands(g, [["Altar", "Baths"], ["Theater", "Well"], ["Tavern", "Loom"]])
    script(g, 0, ("Altar", "stage"), ("Baths", "build"))
    script(g, 1, ("Theater", "build"))
    script(g, 2, ("Tavern", "build"))
    g.play_turn()
    city = g.pos.cities[0]
    assert city.stages == 1 and city.coins == 3
    assert city_names(g, 0) == ["Stone Pit", "Excavation", "Baths"]
    assert discard_names(g) == ["Loom", "Well"]  # the neighbours' leftovers; not the Altar (under the stage)
    assert [e[0] for e in g.events if e[3] == 0] == [MOVE, SEVENTH]
    assert coins(g) == [3, 3, 8]


def test_babylon_night_has_two_stages_the_second_a_science_symbol(t2, engine):
    """Stage 2 (3 clay + glass) is the last: once built, a card can no longer go under a stage;
    its symbol of choice makes 2 tablets and a wild one 3 tablets: 9 points at the end."""
    g = new_game(t2, ["babylon:B", "alexandria:A", "rhodes:A"], age=3, turn=1)
    setup(g, 0, cards=["Brickyard", "Clay Pool", "Library", "School"], stages=1)
    set_hands(g, [["Palace"], ["Gardens"], ["Pantheon"]])
    assert actions(g, 0, "Palace") == ["stage", "discard"]
    assert options(g, 0, "Palace", "stage") == [(2, 0)]  # the glass bought from Alexandria (left)
    script(g, 0, ("Palace", "stage", (2, 0)))
    g.play_turn()
    assert g.pos.cities[0].stages == 2
    g.turn = 2
    set_hands(g, [["Town Hall"], ["Gardens"], ["Pantheon"]])
    assert actions(g, 0, "Town Hall") == ["discard"]
    assert final_score(g, 0)["science"] == 9


# ---------------------------------------------------------------------------------------------
# 7. Refusals: no two players, no Manneken Pis, the data file and the datasets and models of
#    the other edition

def _simulate(out, *args, edition=("--edition", "2")):
    return run_cli(*edition, "simulate", "--games", "20", "--players", "3", "--chunk-size", "10", "--quiet",
                   "--out", str(out), *args)


@pytest.mark.parametrize("args, message", [
    (["--players", "2"], "--players: the second edition (2020) is played by 3 to 7 players"),
    (["--manneken-pis"], "--manneken-pis: the data file cards-2e.yaml (second edition (2020)) has no promo board"),
    (["--wonders", "fixed:manneken_pis/A,giza/A,rhodes/A"],
     "--wonders: unknown wonder 'manneken_pis' in the second edition (2020)"),
])
def test_edition2_refuses_two_players_and_manneken_pis(tmp_path, args, message):
    out = tmp_path / "ds"
    result = run_cli("--edition", "2", "simulate", "--games", "5", "--players", "3", "--out", str(out), *args)
    assert result.exit_code == 2
    assert last_error_line(result).startswith("Error: ") and message in last_error_line(result)
    assert "Traceback" not in result.output
    assert not out.exists()


@pytest.mark.parametrize("edition, data, message", [
    ("2", FIRST, "--edition 2: the data file cards.yaml is of the first edition (2010)"),
    ("1", SECOND, "--edition 1: the data file cards-2e.yaml is of the second edition (2020)"),
])
def test_edition_and_a_data_file_of_the_other_edition_are_refused(tmp_path, edition, data, message):
    out = tmp_path / "ds"
    result = run_cli("--edition", edition, "--data", str(data), "simulate", "--games", "5", "--out", str(out))
    assert result.exit_code == 2
    assert last_error_line(result) == f"Error: {message}"
    assert not out.exists()


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    """A complete 3-player dataset of each edition (20 games, two parts)."""
    root = tmp_path_factory.mktemp("editions")
    for edition in ("1", "2"):
        result = _simulate(root / edition, edition=("--edition", edition))
        assert result.exit_code == 0, result.output
    return root


def _snapshot(folder) -> dict:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


_NAMES = {"1": "first edition (2010)", "2": "second edition (2020)"}
_FILES = {"1": "cards.yaml", "2": "cards-2e.yaml"}


@pytest.mark.parametrize("made, args", [
    pytest.param("1", ["--data", str(SECOND)], id="first-by-data-2e"),
    pytest.param("2", ["--data", str(FIRST)], id="second-by-data-1e"),
    pytest.param("1", ["--edition", "2", "--data", str(SECOND)], id="first-by-edition-and-data-2e"),
    pytest.param("1", ["--edition", "2"], id="first-by-edition-2"),
    pytest.param("2", ["--edition", "1"], id="second-by-edition-1"),
])
def test_resume_with_the_other_edition_is_refused(datasets, tmp_path, made, args):
    """An interrupted dataset of one edition is not completed with the other's data: exit 2, a
    message naming both editions, the folder unchanged."""
    out = tmp_path / "ds"
    shutil.copytree(datasets / made, out)
    (out / "part-00001.parquet").unlink()
    (out / "_wsim_manifest.json").unlink()
    before = _snapshot(out)
    other = "2" if made == "1" else "1"
    result = run_cli(*args, "simulate", "--out", str(out), "--resume", "--quiet")
    assert result.exit_code == 2, result.output
    assert last_error_line(result) == (
        f"Error: --resume: the dataset in {out} is of the {_NAMES[made]}, the data file {_FILES[other]} of the "
        f"{_NAMES[other]} (leave --data and --edition out to take the dataset's)")
    assert _snapshot(out) == before


def test_a_dataset_records_its_edition(datasets):
    """A second-edition run's metadata says `edition: 2`; a first-edition one has no such key
    (its bytes are as before the second edition)."""
    assert read_metadata(datasets / "2").meta["edition"] == 2
    assert "edition" not in read_metadata(datasets / "1").meta


def _model_bytes(t, edition=None) -> bytes:
    """A tiny model (8 hidden units, random weights) of the tables' features; its header names
    `edition` when given (learn writes it for the second edition only)."""
    rng = np.random.default_rng(0)
    inputs, hidden = len(feature_names(t)), 8
    header = {"format": FORMAT, "features": features_header(t), "rules": RULES_VERSION, "target": "margin",
              "hidden": hidden, "provenance": {}}
    if edition is not None:
        header["edition"] = edition
    return Model(rng.normal(0, 0.1, (inputs, hidden)), rng.normal(0, 0.1, hidden), rng.normal(0, 1, hidden),
                 [0.0], header).to_bytes()


def test_a_model_of_the_other_edition_is_refused(t2, tmp_path):
    """A learned model says which edition it plays (no `edition` key: the first); read against
    the other edition's tables it is refused, the message naming both."""
    t1 = tables_mod.load(FIRST)
    second, first = tmp_path / "second.npz", tmp_path / "first.npz"
    second.write_bytes(_model_bytes(t2, edition=2))
    first.write_bytes(_model_bytes(t1))
    assert read_model(second, t2).header["edition"] == 2
    assert "edition" not in read_model(first, t1).header
    with pytest.raises(ModelError, match=r"a model of the second edition \(2020\); the data file cards\.yaml is of "
                                         r"the first edition \(2010\)"):
        read_model(second, t1)
    with pytest.raises(ModelError, match=r"a model of the first edition \(2010\); the data file cards-2e\.yaml is "
                                         r"of the second edition \(2020\)"):
        read_model(first, t2)


# ---------------------------------------------------------------------------------------------
# 8. Kernel games replayed by the reference (wsim/run/verify.py), seed 17: make check a few
#    random and greedy games per player count, make test more and every searching policy

QUICK_POLICIES, QUICK_GAMES = ("random", "greedy"), 4  # make check: games 0..3 of each, per player count
# make test: games per player count and policy (one entry a policy), from game QUICK_GAMES on for a
# policy of make check's, from game 0 for the others
SLOW_GAMES = {"random": 12, "greedy": 12, "heuristic": 10, "rollout": 1, "learned": 8}  # learned: learned-2e.npz


def replayed(players: int, policy: str, first: int, games: int) -> dict:
    """verify_games on the second edition, with what it must have checked: every game, every
    seat's 18 moves at least."""
    result = verify_games(players, policy, first, games, data=SECOND)
    assert result["games"] == games and result["promo_games"] == 0
    assert result["events"] >= games * players * 18
    return result


@pytest.mark.parametrize("players", range(3, 8))
def test_a_few_second_edition_games_replay_in_the_reference(players):
    for policy in QUICK_POLICIES:
        replayed(players, policy, 0, QUICK_GAMES)


def test_games_of_uniform_choices_among_all_options_replay_in_the_reference(t2):
    """Seats that pick uniformly among every option the kernels list (each purchase, a 7th
    card's decline, a discard build's pick) play games the reference replays move by move:
    the payments the policies never choose, and the 7th cards Babylon Night declines, are
    checked too."""
    rng = np.random.default_rng(2)
    for players in range(3, 8):
        for game in range(2):
            g = KernelGame(t2, players, seed=9, game=game)
            for pending in g.rounds():
                for seat, kind in pending:
                    options = g.legal(seat, kind, all_purchases=True)
                    g.apply(seat, kind, options, int(rng.integers(len(options))))
            boards, sides, hands = deal(t2, players, 9, game, promo_in_pool=False)
            res, _ = g.results()
            doc = movelog.to_json(t2, 9, game, boards.tolist(), sides.tolist(), hands.tolist(), g.events(),
                                  final_from_res(res))
            assert replay(t2, doc) == doc["final"]


@pytest.mark.slow
@pytest.mark.parametrize("players", range(3, 8))
@pytest.mark.parametrize("policy", sorted(SLOW_GAMES))
def test_second_edition_games_replay_in_the_reference(players, policy):
    """More games, and the other policies' (heuristic, rollout, learned: the shipped second-edition
    model): other moves than random's and greedy's, the heuristic's among every purchase."""
    replayed(players, policy, QUICK_GAMES if policy in QUICK_POLICIES else 0, SLOW_GAMES[policy])


def test_trade_counts_olympia_days_first_card_of_a_colour(tmp_path):
    """`wsim trade` prices a position as the engines do: with Olympia Day's stage 2 built and no
    blue card, a Palace (seven resource units) is free and legal for a city of two brown cards and
    no coins, while a card of a colour the city owns (Sawmill, brown, 1 coin) is not."""
    path = tmp_path / "olympia.yaml"
    path.write_text(yaml.safe_dump({"age": 3, "players": [
        {"wonder": "olympia", "side": "A", "stages": 2, "cards": ["Lumber Yard", "Stone Pit"], "coins": 0},
        {"wonder": "giza", "side": "A"}, {"wonder": "rhodes", "side": "A"}]}))
    out = {}
    for card in ("Palace", "Sawmill"):
        result = run_cli("--edition", "2", "trade", str(path), "--seat", "0", "--card", card, "--json")
        assert result.exit_code == 0, result.output
        out[card] = json.loads(result.output)
    assert (out["Palace"]["free"], out["Palace"]["coin_cost"], out["Palace"]["legal"]) == (True, 0, True)
    assert out["Palace"]["options"] == [{"left": 0, "right": 0}]
    assert (out["Sawmill"]["free"], out["Sawmill"]["coin_cost"], out["Sawmill"]["legal"]) == (False, 1, False)


def test_the_python_api_and_the_environments_play_the_second_edition():
    """`data=` the shipped second edition serves the API and the environments as `--edition 2`
    serves the commands: a game played decision by decision to its end, a batch of games, a
    batched environment's reset; 2 players refused there too."""
    import wsim
    from wsim.env import batched_v0

    game = wsim.Game(players=3, seed=4, data=str(SECOND))
    while not game.done:
        game.step({d.seat: game.policy_move(d.seat, "heuristic") for d in game.pending()})
    assert len(game.scores()) == 3 and game.age == 3
    table = wsim.simulate(games=20, players=7, policies="heuristic", data=str(SECOND))
    assert table.num_rows == 20 * 7
    env = batched_v0.env(num_games=4, players=5, data=str(SECOND))
    env.reset(seed=1)
    with pytest.raises(wsim.WsimError, match="3 to 7 players"):
        batched_v0.env(num_games=4, players=2, data=str(SECOND))


def test_every_disputed_reading_in_the_rules_plays_as_an_edit():
    """docs/rules.md §13 lists each disputed fact's other reading as an `--edit`: every one named
    there applies to the second edition's data (and changes it), and so does every one the data
    file's comments name."""
    import re

    from pathlib import Path

    from wsim.analysis.edits import apply_edits

    root = Path(__file__).resolve().parents[1]
    rules = (root / "docs" / "rules.md").read_text()
    section = rules[rules.index("## §13"):]
    named = set(re.findall(r'--edit\s+"([^"]+)"', section))
    comments = (root / "wsim" / "data" / "cards-2e.yaml").read_text().replace("\n#", " ")
    named |= set(re.findall(r'--edit\s+"([^"]+)"', comments))
    costs = {e for e in named if ".cost=" in e}
    assert len(costs) >= 6 and {"Theater.chain_to=Statue", "Well.chain_to=Gardens"} <= named
    tables2 = tables_mod.load(str(SECOND))
    for edit in sorted(named):
        edited = apply_edits(tables2, [edit])
        if ".cost=" in edit:
            assert not (edited.ent == tables2.ent).all(), edit
