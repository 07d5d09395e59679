"""One test per rule of the reference engine's turn play (docs/rules.md §2–§6, §8, §9, §12).

Every test builds a position by hand (tests/enginekit.py), plays one turn with scripted moves
and checks concrete numbers. Seats: seat s's left neighbour is s+1, its right neighbour s-1;
with three players seat 0's left is seat 1 and its right seat 2.
"""

import pytest

from wsim import codes
from wsim.movelog import ACT_BUILD, DISCARD_BUILD, MILITARY, MOVE, SEVENTH
from wsim.reference.engine import Choice, IllegalMove, Move, RandomPolicy, legal_moves, play
from wsim.reference.scoring import best_score

import enginekit
from enginekit import (ACTION, actions, card, city_names, coins, discard_names, find_move, moves_for,
                       names, new_game, options, script, set_discard, set_hands, setup)


@pytest.fixture(params=["reference", "kernel"], autouse=True)
def engine(request, monkeypatch):
    """Every rule test runs on both engines: the reference, and the kernels' step API."""
    monkeypatch.setattr(enginekit, "ENGINE", request.param)
    return request.param


# ---------------------------------------------------------------------------------------------
# 1. Build, stage, discard basics (docs/rules.md §2–§4)

def test_discard_gives_3_coins_coin_cost_goes_to_bank_and_hands_pass_left(tables):
    g = new_game(tables, ["giza:A", "babylon:A", "ephesus:A"], age=1, turn=1)
    set_hands(g, [["Altar", "Lumber Yard"], ["Clay Pit", "Pawnshop"], ["Theater", "Baths"]])
    script(g, 0, ("Altar", "discard"))
    script(g, 1, ("Clay Pit", "build"))  # 1 coin to the bank
    script(g, 2, ("Theater", "build"))
    g.play_turn()
    assert coins(g) == [6, 2, 3]
    assert discard_names(g) == ["Altar"]
    assert city_names(g, 0) == [] and city_names(g, 1) == ["Clay Pit"] and city_names(g, 2) == ["Theater"]
    # Age I passes to the left: seat s receives the hand of seat s-1
    assert [names(tables, h) for h in g.hands] == [["Baths"], ["Lumber Yard"], ["Pawnshop"]]


@pytest.mark.parametrize("age, received", [
    (1, [["Foundry"], ["Sawmill"], ["Quarry"]]),  # to the left: seat s gets seat s-1's hand
    (2, [["Quarry"], ["Foundry"], ["Sawmill"]]),  # to the right: seat s gets seat s+1's hand
    (3, [["Foundry"], ["Sawmill"], ["Quarry"]]),
])
def test_hands_pass_left_right_left(tables, age, received):
    g = new_game(tables, ["giza:A", "babylon:A", "ephesus:A"], age=age, turn=3)
    set_hands(g, [["Vineyard", "Sawmill"], ["Bazar", "Quarry"], ["Loom", "Foundry"]])
    g.play_turn()  # everyone discards its first card
    assert coins(g) == [6, 6, 6]
    assert [names(tables, h) for h in g.hands] == received


@pytest.mark.parametrize("purchase, expected", [((2, 0), [1, 5, 3]), ((0, 2), [1, 3, 5])])
def test_purchase_pays_left_seat_plus_1_or_right_seat_minus_1(tables, purchase, expected):
    g = new_game(tables, ["giza:A", "olympia:A", "babylon:A"], age=1, turn=1)
    setup(g, 2, cards=["Lumber Yard"])  # both neighbours sell wood: Olympia's board, a Lumber Yard
    set_hands(g, [["Stockade"], ["Altar"], ["Theater"]])
    assert options(g, 0, "Stockade") == [(0, 2), (2, 0)]  # default (first): least total, then least left
    script(g, 0, ("Stockade", "build", purchase))
    script(g, 1, ("Altar", "build"))
    script(g, 2, ("Theater", "build"))
    g.play_turn()
    assert coins(g) == expected
    assert city_names(g, 0) == ["Stockade"]
    ev = [e for e in g.events if e[0] == MOVE and e[3] == 0][0]
    assert (ev[6], ev[7]) == purchase


@pytest.mark.parametrize("action, exp_coins, exp_stages, exp_discard", [
    ("stage", 3, 1, []),
    ("discard", 6, 0, ["Loom"]),
])
def test_age1_loom_owned_blocks_age2_loom_but_it_can_stage_or_discard(tables, action, exp_coins,
                                                                   exp_stages, exp_discard):
    g = new_game(tables, ["giza:A", "babylon:A", "rhodes:A"], age=2, turn=1)
    loom1, loom2 = card(tables, "Loom", 1), card(tables, "Loom", 2)
    setup(g, 0, cards=[loom1, "Stone Pit"])  # Giza's stone + Stone Pit pay stage 1 (2 stone)
    set_hands(g, [[loom2, "Glassworks"], ["Altar"], ["Theater"]])
    assert actions(g, 0, loom2) == ["stage", "discard"]
    assert actions(g, 0, "Glassworks") == ["build", "stage", "discard"]
    script(g, 0, (loom2, action))
    g.play_turn()
    city = g.pos.cities[0]
    assert city.coins == exp_coins and city.stages == exp_stages
    assert city.cards == [loom1, card(tables, "Stone Pit")]
    assert discard_names(g) == sorted(exp_discard + ["Altar", "Theater"])  # the others discarded


def test_chain_builds_free_even_with_0_coins(tables):
    g = new_game(tables, ["olympia:A", "giza:A", "rhodes:A"], age=2, turn=1)
    setup(g, 0, coins=0)
    set_hands(g, [["Aqueduct", "Walls"], ["Altar"], ["Theater"]])
    assert actions(g, 0, "Aqueduct") == ["discard"]  # 3 stone, Giza sells only 1, and 0 coins
    setup(g, 0, cards=["Baths"])
    assert actions(g, 0, "Aqueduct") == ["build", "discard"]
    m = find_move(tables, legal_moves(g.pos, 0, g.hands[0], g.age, g.turn), "Aqueduct", "build")
    assert m.coin_cost == 0 and m.options == ((0, 0),)
    assert actions(g, 0, "Walls") == ["discard"]
    script(g, 0, ("Aqueduct", "build"))
    g.play_turn()
    assert city_names(g, 0) == ["Baths", "Aqueduct"]
    assert coins(g) == [0, 6, 6]


def test_stages_are_built_in_order_and_tuck_the_card(tables):
    g = new_game(tables, ["giza:A", "babylon:A", "rhodes:A"], age=2, turn=1)
    setup(g, 0, cards=["Stone Pit"], stages=1)  # stone 2 would pay stage 1, not stage 2 (wood 3)
    set_hands(g, [["Temple", "School"], ["Altar"], ["Theater"]])
    assert actions(g, 0, "Temple") == ["discard"]
    setup(g, 0, cards=["Stone Pit", "Sawmill", "Lumber Yard"])
    assert actions(g, 0, "Temple") == ["stage", "discard"]
    assert options(g, 0, "Temple", "stage") == [(0, 0)]
    script(g, 0, ("Temple", "stage"))
    g.play_turn()
    city = g.pos.cities[0]
    assert city.stages == 2 and city.coins == 3
    assert city_names(g, 0) == ["Stone Pit", "Sawmill", "Lumber Yard"]
    assert "Temple" not in discard_names(g)
    assert all(card(tables, "Temple") not in h for h in g.hands)
    assert best_score(g.pos, 0).wonder == 3 + 5
    setup(g, 0, stages=3)  # every stage built: no stage action any more
    set_hands(g, [["School"], ["Altar"], ["Theater"]])
    assert actions(g, 0, "School") == ["discard"]


def test_engine_rejects_an_illegal_choice(tables):
    g = new_game(tables, ["giza:A", "babylon:A", "rhodes:A"], age=1, turn=1)
    setup(g, 0, coins=0)
    set_hands(g, [["Stockade"], ["Altar"], ["Theater"]])

    class Cheater:
        def choose(self, game, seat, moves, seventh):
            return Choice(Move(0, card(tables, "Stockade"), ACT_BUILD, 0, ((0, 0),), False), (0, 0))

    g.policies[0] = Cheater()
    with pytest.raises(IllegalMove):
        g.play_turn()


# ---------------------------------------------------------------------------------------------
# 2. Coins received in a turn cannot be spent in it (rulebook p.4, examples B and C)

def test_forum_example_coins_from_a_sale_cannot_be_spent_the_same_turn(tables):
    g = new_game(tables, ["olympia:A", "giza:A", "babylon:A"], age=2, turn=1)
    setup(g, 0, cards=["Clay Pool"], coins=0)  # Forum: clay 2, own 1, Babylon (right) sells clay
    setup(g, 1, cards=["Lumber Yard"])
    set_hands(g, [["Forum", "Loom"], ["Caravansery"], ["Theater"]])
    assert actions(g, 0, "Forum") == ["discard"]
    assert options(g, 1, "Caravansery") == [(0, 2)]  # Giza buys Olympia's wood (its right)
    script(g, 0, ("Loom", "build"))
    script(g, 1, ("Caravansery", "build"))
    g.play_turn()
    assert coins(g) == [2, 1, 6]
    # the 2 coins of the sale can be spent from the next turn on
    g.turn = 2
    set_hands(g, [["Forum"], ["Altar"], ["Theater"]])
    assert options(g, 0, "Forum") == [(0, 2)]


def test_library_example_seller_uses_the_stone_it_sells_to_both_neighbours(tables):
    g = new_game(tables, ["halicarnassus:A", "rhodes:A", "olympia:A"], age=2, turn=1)
    setup(g, 0, cards=["Quarry"])  # 2 stone + Halicarnassus' loom: Library (stone 2, loom 1)
    setup(g, 1, cards=["Stone Pit"], coins=5)
    setup(g, 2, cards=["Stone Pit"], coins=5)
    set_hands(g, [["Library"], ["Walls"], ["Walls"]])
    assert options(g, 0, "Library") == [(0, 0)]
    assert options(g, 1, "Walls") == [(0, 4), (2, 2)]
    assert options(g, 2, "Walls") == [(2, 2), (4, 0)]
    script(g, 0, ("Library", "build"))
    script(g, 1, ("Walls", "build", (0, 4)))  # 2 stone from seat 0 (seat 1's right)
    script(g, 2, ("Walls", "build", (4, 0)))  # 2 stone from seat 0 (seat 2's left)
    g.play_turn()
    assert coins(g) == [3 + 8, 1, 1]
    assert city_names(g, 0) == ["Quarry", "Library"]
    assert city_names(g, 1) == ["Stone Pit", "Walls"] and city_names(g, 2) == ["Stone Pit", "Walls"]


# ---------------------------------------------------------------------------------------------
# 3. Coins that cards and stages give (docs/rules.md §6 and §8)

def test_vineyard_and_bazar_count_neighbours_same_turn_builds(tables):
    g = new_game(tables, ["giza:A", "rhodes:A", "ephesus:A", "olympia:A"], age=2, turn=1)
    setup(g, 0, cards=["Lumber Yard", "Press"])
    setup(g, 1, cards=["Ore Vein", "Loom"])
    setup(g, 2, cards=["Clay Pool"])
    setup(g, 3, cards=["Stone Pit"])
    set_hands(g, [["Vineyard"], ["Bazar"], ["Glassworks"], ["Sawmill"]])
    script(g, 0, ("Vineyard", "build"))
    script(g, 1, ("Bazar", "build"))
    script(g, 2, ("Glassworks", "build"))
    script(g, 3, ("Sawmill", "build"))
    g.play_turn()
    # Vineyard (seat 0; neighbours 1 and 3): Lumber Yard + Ore Vein + Stone Pit + Sawmill (same turn)
    # = 4; seat 2's Clay Pool is not a neighbour's. Bazar (seat 1; neighbours 2 and 0):
    # 2 x (Loom + Glassworks (same turn) + Press) = 6.
    assert coins(g) == [3 + 4, 3 + 6, 3, 3 - 1]


def test_tavern_gives_5_coins(tables):
    g = new_game(tables, ["giza:A", "babylon:A", "rhodes:A"], age=1, turn=1)
    set_hands(g, [["Tavern"], ["Altar"], ["Theater"]])
    script(g, 0, ("Tavern", "build"))
    script(g, 1, ("Altar", "build"))
    script(g, 2, ("Theater", "build"))
    g.play_turn()
    assert coins(g) == [8, 3, 3]


def test_age3_commercial_cards_coins_count_own_city(tables):
    g = new_game(tables, ["giza:A", "rhodes:A", "ephesus:A", "olympia:A"], age=3, turn=1)
    setup(g, 0, cards=["Lumber Yard", "Ore Vein", "Forum"])  # Haven via the Forum chain
    setup(g, 1, cards=["Stone Pit", "Caravansery", "Tavern"])  # Lighthouse via Caravansery
    setup(g, 2, cards=["Brickyard", "Loom", "Glassworks"])  # + Ephesus' papyrus
    setup(g, 3, cards=["Dispensary"], stages=2)  # Arena via Dispensary
    set_hands(g, [["Haven"], ["Lighthouse"], ["Chamber of Commerce"], ["Arena"]])
    for seat, name in enumerate(["Haven", "Lighthouse", "Chamber of Commerce", "Arena"]):
        script(g, seat, (name, "build"))
    g.play_turn()
    # Haven 1/own brown (2; the neighbours' browns do not count), Lighthouse 1/own yellow,
    # itself included (3), Chamber of Commerce 2/own grey (4), Arena 3/own stage (6)
    assert coins(g) == [3 + 2, 3 + 3, 3 + 4, 3 + 6]


@pytest.mark.parametrize("board, stages, cards_, gain, shields, wonder", [
    ("rhodes:B", 0, ["Stone Pit", "Quarry"], 3, 1, 3),
    ("rhodes:B", 1, ["Foundry", "Ore Vein"], 4, 2, 3 + 4),
    ("ephesus:A", 1, ["Sawmill"], 9, 0, 3),
    ("ephesus:B", 0, ["Stone Pit", "Quarry"], 4, 0, 2),
    ("ephesus:B", 1, ["Sawmill"], 4, 0, 2 + 3),
    ("ephesus:B", 2, ["Glassworks", "Loom"], 4, 0, 2 + 3 + 5),
    ("giza:A", 0, ["Stone Pit"], 0, 0, 3),
])
def test_stage_coins_when_built(tables, board, stages, cards_, gain, shields, wonder):
    g = new_game(tables, [board, "babylon:A", "alexandria:A"], age=2, turn=1)
    setup(g, 0, cards=cards_, stages=stages)
    set_hands(g, [["Temple"], ["Altar"], ["Theater"]])
    assert options(g, 0, "Temple", "stage") == [(0, 0)]
    script(g, 0, ("Temple", "stage"))
    g.play_turn()
    assert g.pos.cities[0].coins == 3 + gain
    assert g.pos.cities[0].stages == stages + 1
    assert g.pos.shields(0) == shields
    assert best_score(g.pos, 0).wonder == wonder


# ---------------------------------------------------------------------------------------------
# 4. Military (docs/rules.md §5; rulebook p.5 Age II example)

def test_military_age2_rulebook_example_with_rhodes_a2_shields(tables):
    g = new_game(tables, ["alexandria:A", "rhodes:A", "ephesus:A"], age=2, turn=6)
    setup(g, 0, cards=["Walls", "Stockade"], tokens=[1])  # 3 shields
    setup(g, 1, cards=["Barracks", "Stables"], stages=2, tokens=[1])  # 1 + 2 + Rhodes A2 (2) = 5
    setup(g, 2, cards=["Archery Range"], tokens=[-1, -1])  # 2
    assert [g.pos.shields(s) for s in range(3)] == [3, 5, 2]
    g.military()
    # Alexandria: -1 against Rhodes (left), +3 against Ephesus (right)
    assert [c.tokens for c in g.pos.cities] == [[1, -1, 3], [1, 3, 3], [-1, -1, -1, -1]]
    mil = [e for e in g.events if e[0] == MILITARY]
    assert mil == [(MILITARY, 2, 6, 0, 3, 0, -1, 3, -1), (MILITARY, 2, 6, 1, 5, 0, 3, 3, -1),
                   (MILITARY, 2, 6, 2, 2, 0, -1, -1, -1)]
    assert [best_score(g.pos, s).military for s in range(3)] == [3, 7, -4]


@pytest.mark.parametrize("age, win", [(1, 1), (2, 3), (3, 5)])
def test_military_ties_give_nothing_and_victory_value_by_age(tables, age, win):
    g = new_game(tables, ["rhodes:A", "giza:A", "babylon:A"], age=age, turn=6)
    setup(g, 0, cards=["Stockade"], stages=1)  # Rhodes A1 gives no shield: 1
    setup(g, 1, cards=["Guard Tower"])  # 1
    g.military()
    assert [c.tokens for c in g.pos.cities] == [[win], [win], [-1, -1]]


# ---------------------------------------------------------------------------------------------
# 5. Trading discounts apply to purchases decided after they are in the city

@pytest.mark.parametrize("board0, cards0, nb1, nb2, play, probe, before, after", [
    ("giza:A", [], ("olympia:A", []), ("babylon:A", ["Lumber Yard"]),
     ("East Trading Post", "build"), "Stockade", [(0, 2), (2, 0)], [(0, 1), (2, 0)]),
    ("giza:A", [], ("olympia:A", []), ("babylon:A", ["Lumber Yard"]),
     ("West Trading Post", "build"), "Stockade", [(0, 2), (2, 0)], [(1, 0), (0, 2)]),
    ("giza:A", [], ("alexandria:A", []), ("babylon:A", ["Glassworks"]),
     ("Marketplace", "build"), "Workshop", [(0, 2), (2, 0)], [(0, 1), (1, 0)]),
    ("olympia:B", ["Lumber Yard"], ("rhodes:A", []), ("babylon:A", ["Ore Vein"]),
     ("Altar", "stage"), "Barracks", [(0, 2), (2, 0)], [(0, 1), (1, 0)]),
    ("olympia:B", ["Lumber Yard", "East Trading Post"], ("rhodes:A", []), ("babylon:A", ["Ore Vein"]),
     ("Altar", "stage"), "Barracks", [(0, 1), (2, 0)], [(0, 1), (1, 0)]),  # no stacking below 1
])
def test_trading_discount_applies_from_the_next_turn(tables, board0, cards0, nb1, nb2, play, probe,
                                                     before, after):
    g = new_game(tables, [board0, nb1[0], nb2[0]], age=1, turn=1)
    setup(g, 0, cards=cards0)
    setup(g, 1, cards=nb1[1])
    setup(g, 2, cards=nb2[1])
    set_hands(g, [[play[0], probe], ["Theater"], ["Pawnshop"]])
    assert options(g, 0, probe) == before  # decided on the state at the start of the turn
    script(g, 0, play)
    g.play_turn()
    assert coins(g)[0] == 3
    g.turn = 2
    set_hands(g, [[probe], ["Theater"], ["Pawnshop"]])
    assert options(g, 0, probe) == after


# ---------------------------------------------------------------------------------------------
# 6. Babylon B: the 7th card (docs/rules.md §6 and §9 step 5)

@pytest.mark.parametrize("seventh, exp_coins, exp_cards, exp_discard", [
    (("Stockade", "build", (2, 0)), 1, ["Stockade"], ["Altar", "Baths", "Pawnshop"]),
    (("Stockade", "build", (0, 2)), 1, ["Stockade"], ["Altar", "Baths", "Pawnshop"]),
    (("Stockade", "discard"), 6, [], ["Altar", "Baths", "Pawnshop", "Stockade"]),
])
def test_babylon_b_7th_card_spends_coins_received_this_turn(tables, seventh, exp_coins, exp_cards,
                                                            exp_discard):
    g = new_game(tables, ["babylon:B", "olympia:A", "giza:A"], age=1, turn=6)
    setup(g, 0, coins=0, stages=2)
    set_hands(g, [["Altar", "Stockade"], ["Theater", "Pawnshop"], ["Lumber Yard", "Baths"]])
    assert options(g, 0, "Stockade") is None  # 0 coins at the start of the turn
    script(g, 0, ("Altar", "discard"), seventh)
    script(g, 1, ("Theater", "build"))
    script(g, 2, ("Lumber Yard", "build"))
    g.play_turn()
    # the 7th card is decided after step 4: 3 coins held, and the right neighbour's Lumber Yard
    # placed this turn can already be bought
    seen7 = [m for s, m in g.policies[0].seen if s]
    assert len(seen7) == 1
    assert list(find_move(tables, seen7[0], "Stockade", "build").options) == [(0, 2), (2, 0)]
    assert city_names(g, 0) == exp_cards
    assert g.pos.cities[0].coins == exp_coins
    paid = seventh[2] if len(seventh) > 2 else (0, 0)
    assert coins(g)[1:] == [3 + paid[0], 3 + paid[1]]
    assert discard_names(g) == exp_discard
    assert g.hands == [[], [], []]
    sev = [e for e in g.events if e[0] == SEVENTH]
    assert [(e[3], tables.card_names[e[4]], e[5]) for e in sev] == [(0, "Stockade", ACTION[seventh[1]])]


def test_babylon_b_stage2_built_on_turn6_plays_the_7th_card_as_stage3(tables):
    g = new_game(tables, ["babylon:B", "giza:A", "rhodes:A"], age=2, turn=6)
    setup(g, 0, cards=["Sawmill", "Glassworks", "Brickyard", "Press"], stages=1)
    set_hands(g, [["School", "Statue"], ["Altar", "Baths"], ["Theater", "Pawnshop"]])
    script(g, 0, ("School", "stage"), ("Statue", "stage"))
    script(g, 1, ("Altar", "build"))
    script(g, 2, ("Theater", "build"))
    g.play_turn()
    city = g.pos.cities[0]
    assert city.stages == 3 and city.coins == 3
    assert city_names(g, 0) == ["Sawmill", "Glassworks", "Brickyard", "Press"]
    assert discard_names(g) == ["Baths", "Pawnshop"]  # neither tucked card; the others' leftovers
    assert [e[0] for e in g.events if e[3] == 0] == [MOVE, SEVENTH]
    assert best_score(g.pos, 0).wonder == 3


def test_babylon_b_7th_card_arena_counts_the_stage_built_this_turn(tables):
    g = new_game(tables, ["babylon:B", "giza:A", "rhodes:A"], age=3, turn=6)
    setup(g, 0, cards=["Dispensary", "Brickyard", "Press"], stages=2)  # stage 3: clay 3, papyrus
    set_hands(g, [["Senate", "Arena"], ["Gardens", "Palace"], ["Pantheon", "Study"]])
    script(g, 0, ("Senate", "stage"), ("Arena", "build"))
    g.play_turn()
    assert g.pos.cities[0].stages == 3
    assert coins(g) == [3 + 9, 6, 6]
    assert city_names(g, 0) == ["Dispensary", "Brickyard", "Press", "Arena"]


def test_babylon_b_7th_card_uses_a_discount_built_this_turn(tables):
    g = new_game(tables, ["babylon:B", "alexandria:A", "giza:A"], age=1, turn=6)
    setup(g, 0, stages=2)
    setup(g, 2, cards=["Glassworks"])
    set_hands(g, [["Marketplace", "Workshop"], ["Altar", "Baths"], ["Theater", "Pawnshop"]])
    assert options(g, 0, "Workshop") == [(0, 2), (2, 0)]
    script(g, 0, ("Marketplace", "build"), ("Workshop", "build", (1, 0)))
    g.play_turn()
    seen7 = [m for s, m in g.policies[0].seen if s][0]
    assert list(find_move(tables, seen7, "Workshop", "build").options) == [(0, 1), (1, 0)]
    assert city_names(g, 0) == ["Marketplace", "Workshop"]
    assert coins(g) == [2, 6 + 1, 6]


@pytest.mark.parametrize("stages", [1, 2])  # 1: no 7th card; 2: the owner declines it
def test_turn6_leftovers_are_discarded_without_coins(tables, stages):
    g = new_game(tables, ["babylon:B", "giza:A", "rhodes:A"], age=1, turn=6)
    setup(g, 0, stages=stages)
    set_hands(g, [["Altar", "Tavern"], ["Theater", "Baths"], ["Pawnshop", "Loom"]])
    script(g, 0, ("Altar", "build"))
    script(g, 1, ("Theater", "build"))
    script(g, 2, ("Pawnshop", "build"))
    g.play_turn()
    assert coins(g) == [3, 3, 3]
    assert discard_names(g) == ["Baths", "Loom", "Tavern"]
    assert g.hands == [[], [], []]
    assert [s for s, _ in g.policies[0].seen] == ([False] if stages == 1 else [False, True])
    assert not [e for e in g.events if e[0] == SEVENTH]


# ---------------------------------------------------------------------------------------------
# 7. Olympia A: free build once per age (docs/rules.md §6)

def test_olympia_a_free_build_once_per_age_from_the_next_turn(tables):
    g = new_game(tables, ["olympia:A", "giza:A", "rhodes:A"], age=1, turn=1)
    setup(g, 0, cards=["Stone Pit", "Timber Yard"], stages=1, coins=0)  # stone 2 for stage 2
    set_hands(g, [["Guard Tower", "Barracks"], ["Altar"], ["Theater"]])
    assert not [m for m in moves_for(g, 0) if m.action == ACTION["build_free"]]
    script(g, 0, ("Barracks", "stage"))
    script(g, 1, ("Altar", "build"))
    script(g, 2, ("Theater", "build"))
    g.play_turn()
    assert g.pos.cities[0].stages == 2

    g.turn = 2
    set_hands(g, [["Guard Tower", "Altar", "Stone Pit", "Loom"], ["Baths"], ["Pawnshop"]])
    assert actions(g, 0, "Guard Tower") == ["build_free", "discard"]  # no clay, 0 coins
    assert actions(g, 0, "Altar") == ["build", "discard"]  # free anyway: no free build
    assert actions(g, 0, "Stone Pit") == ["discard"]  # name owned
    assert actions(g, 0, "Loom") == ["build", "discard"]
    assert actions(g, 0, "Baths", hand=["Baths"]) == ["build", "build_free", "discard"]  # own stone
    m = find_move(tables, moves_for(g, 0), "Guard Tower", "build_free")
    assert m.coin_cost == 0 and m.options == ((0, 0),)
    script(g, 0, ("Guard Tower", "build_free"))
    script(g, 1, ("Baths", "build"))
    script(g, 2, ("Pawnshop", "build"))
    g.play_turn()
    city = g.pos.cities[0]
    assert city_names(g, 0) == ["Stone Pit", "Timber Yard", "Guard Tower"]
    assert coins(g) == [0, 3, 3] and city.free_build_age == 1
    assert g.pos.shields(0) == 1  # an ordinary building

    g.turn = 3
    set_hands(g, [["Scriptorium"], ["Altar"], ["Theater"]])
    assert actions(g, 0, "Scriptorium") == ["discard"]  # used this age

    g.age, g.turn = 2, 1
    setup(g, 0, cards=["Stone Pit", "Timber Yard", "Guard Tower", "Theater"])
    set_hands(g, [["Statue", "Walls"], ["Loom"], ["Press"]])
    assert actions(g, 0, "Statue") == ["build", "discard"]  # chain from Theater: free anyway
    assert actions(g, 0, "Walls") == ["build_free", "discard"]  # a new age: usable again
    script(g, 0, ("Walls", "build_free"))
    script(g, 1, ("Loom", "build"))
    script(g, 2, ("Press", "build"))
    g.play_turn()
    assert g.pos.cities[0].free_build_age == 2
    assert coins(g) == [0, 3, 3]
    assert "Walls" in city_names(g, 0)


def test_olympia_a_free_build_is_an_ordinary_building_with_its_coins(tables):
    g = new_game(tables, ["olympia:A", "giza:A", "rhodes:A"], age=3, turn=4)
    setup(g, 0, cards=["Loom", "Glassworks"], stages=2, coins=0, free_build_age=2)
    set_hands(g, [["Chamber of Commerce"], ["Gardens"], ["Senate"]])
    assert actions(g, 0, "Chamber of Commerce") == ["build_free", "discard"]
    script(g, 0, ("Chamber of Commerce", "build_free"))
    g.play_turn()
    assert coins(g) == [2 * 2, 6, 6]
    assert best_score(g.pos, 0).commercial == 2 * 2


# ---------------------------------------------------------------------------------------------
# 8. Halicarnassus: discard builds (docs/rules.md §6 and §9 step 6)

HALI_STAGES = {  # (side, stages before, production cards, wonder points after)
    "A2": ("A", 1, ["Ore Vein", "Clay Pit", "Forest Cave"], 3),
    "B1": ("B", 0, ["Ore Vein", "Clay Pit"], 2),
    "B2": ("B", 1, ["Clay Pool", "Clay Pit", "Excavation"], 3),
    "B3": ("B", 2, ["Glassworks", "Press"], 3),
}


@pytest.mark.parametrize("stage", sorted(HALI_STAGES))
def test_halicarnassus_discard_build_takes_a_card_discarded_this_turn(tables, stage):
    side, before, prod, wonder = HALI_STAGES[stage]
    g = new_game(tables, [f"halicarnassus:{side}", "rhodes:A", "giza:A"], age=1, turn=3)
    setup(g, 0, cards=prod + ["Loom"], stages=before)
    set_discard(g, ["Altar", "Loom"])
    set_hands(g, [["Barracks", "Stockade"], ["Tavern", "Scriptorium"], ["Theater", "Baths"]])
    script(g, 0, ("Barracks", "stage"), picks=["Tavern"])
    script(g, 1, ("Tavern", "discard"))
    script(g, 2, ("Theater", "build"))
    g.play_turn()
    assert g.policies[0].offered == [["Altar", "Tavern"]]  # Loom: name owned
    assert city_names(g, 0) == prod + ["Loom", "Tavern"]
    assert coins(g) == [3 + 5, 6, 3]
    assert discard_names(g) == ["Altar", "Loom"]
    assert best_score(g.pos, 0).wonder == wonder
    ev = [e for e in g.events if e[0] == DISCARD_BUILD]
    assert ev == [(DISCARD_BUILD, 1, 3, 0, card(tables, "Tavern"), 0, 0, 0, -1)]


def test_a_discard_build_offers_each_building_once_whatever_its_age(tables, engine):
    """The Age I and Age II Loom are one building: offered once (rules version 3), under the lower
    card id, which is the copy taken; the other copy stays in the pile."""
    g = new_game(tables, ["halicarnassus:B", "rhodes:A", "giza:A"], age=2, turn=2)
    setup(g, 0, cards=["Foundry"])  # B1: ore 2
    loom1, loom2 = card(tables, "Loom", 1), card(tables, "Loom", 2)
    assert loom1 < loom2
    set_discard(g, [loom2, "Tavern", loom1])
    set_hands(g, [["Temple"], ["Altar"], ["Theater"]])
    script(g, 0, ("Temple", "stage"), picks=[loom1])
    script(g, 1, ("Altar", "build"))
    script(g, 2, ("Theater", "build"))
    g.play_turn()
    assert g.policies[0].offered == [["Loom", "Tavern"]]  # card ids ascending: Loom (Age I) first
    assert g.pos.cities[0].cards[-1] == loom1
    assert sorted(g.discard) == sorted([loom2, card(tables, "Tavern")])
    assert [e[4] for e in g.events if e[0] == DISCARD_BUILD] == [loom1]


@pytest.mark.parametrize("before", [0, 2])
def test_halicarnassus_a1_a3_give_no_discard_build(tables, before):
    g = new_game(tables, ["halicarnassus:A", "rhodes:A", "giza:A"], age=2, turn=1)
    setup(g, 0, cards=["Brickyard", "Loom"], stages=before)  # A1 clay 2; A3 loom 2
    set_discard(g, ["Tavern"])
    set_hands(g, [["Temple"], ["Altar"], ["Theater"]])
    script(g, 0, ("Temple", "stage"))
    g.play_turn()
    assert g.pos.cities[0].stages == before + 1
    assert g.policies[0].offered == []
    assert not [e for e in g.events if e[0] == DISCARD_BUILD]


def test_halicarnassus_card_taken_in_step6_is_not_counted_by_a_step3_vineyard(tables):
    g = new_game(tables, ["halicarnassus:B", "rhodes:A", "giza:A"], age=2, turn=2)
    setup(g, 0, cards=["Foundry"])  # B1: ore 2
    setup(g, 1, cards=["Ore Vein"])
    setup(g, 2, cards=["Clay Pool"])
    set_discard(g, ["Sawmill"])
    set_hands(g, [["Temple"], ["Vineyard"], ["Theater"]])
    script(g, 0, ("Temple", "stage"), picks=["Sawmill"])
    script(g, 1, ("Vineyard", "build"))
    script(g, 2, ("Theater", "build"))
    g.play_turn()
    assert city_names(g, 0) == ["Foundry", "Sawmill"]
    assert coins(g) == [3, 3 + 3, 3]  # Vineyard: Ore Vein + Clay Pool + Foundry, not the Sawmill


def test_halicarnassus_arena_from_the_pile_counts_the_stage_built_this_turn(tables):
    g = new_game(tables, ["halicarnassus:A", "rhodes:A", "giza:A"], age=3, turn=1)
    setup(g, 0, cards=["Foundry", "Ore Vein"], stages=1)  # A2: ore 3
    set_discard(g, ["Arena"])
    set_hands(g, [["Senate"], ["Gardens"], ["Palace"]])
    script(g, 0, ("Senate", "stage"), picks=["Arena"])
    g.play_turn()
    assert city_names(g, 0) == ["Foundry", "Ore Vein", "Arena"]
    assert coins(g) == [3 + 3 * 2, 6, 6]


def test_halicarnassus_on_turn6_takes_its_own_leftover_before_military(tables):
    g = new_game(tables, ["halicarnassus:B", "rhodes:A", "giza:A"], age=1, turn=6)
    setup(g, 0, cards=["Ore Vein", "Clay Pit"])  # B1: ore 2
    set_hands(g, [["Altar", "Stockade"], ["Theater", "Pawnshop"], ["Lumber Yard", "Guard Tower"]])
    script(g, 0, ("Altar", "stage"), picks=["Stockade"])
    script(g, 1, ("Theater", "build"))
    script(g, 2, ("Lumber Yard", "build"))
    g.play_turn()
    assert g.policies[0].offered == [["Pawnshop", "Stockade", "Guard Tower"]]
    assert city_names(g, 0) == ["Ore Vein", "Clay Pit", "Stockade"]
    assert discard_names(g) == ["Guard Tower", "Pawnshop"]
    g.military()
    assert [c.tokens for c in g.pos.cities] == [[1, 1], [-1], [-1]]


@pytest.mark.parametrize("pile", [[], ["Loom", "Altar"]])
def test_halicarnassus_with_nothing_usable_in_the_pile_gets_nothing(tables, pile, engine):
    g = new_game(tables, ["halicarnassus:A", "rhodes:A", "giza:A"], age=2, turn=1)
    setup(g, 0, cards=["Foundry", "Ore Vein", "Loom", "Altar"], stages=1)  # A2: ore 3
    set_discard(g, pile)
    set_hands(g, [["Temple"], ["Glassworks"], ["Press"]])
    script(g, 0, ("Temple", "stage"))  # offered nothing, it answers None
    script(g, 1, ("Glassworks", "build"))
    script(g, 2, ("Press", "build"))
    g.play_turn()
    # the reference asks the policy with nothing to offer; for the kernels it is no decision
    assert g.policies[0].offered == ([[]] if engine == "reference" else [])
    assert city_names(g, 0) == ["Foundry", "Ore Vein", "Loom", "Altar"]
    assert coins(g) == [3, 3, 3] and g.pos.cities[0].stages == 2
    assert discard_names(g) == sorted(pile)
    ev = [e for e in g.events if e[0] == DISCARD_BUILD]
    assert ev == [(DISCARD_BUILD, 2, 1, 0, -1, 0, 0, 0, -1)]


def test_halicarnassus_cannot_take_a_name_it_owns(tables):
    g = new_game(tables, ["halicarnassus:A", "rhodes:A", "giza:A"], age=2, turn=1)
    setup(g, 0, cards=["Foundry", "Ore Vein", "Loom"], stages=1)  # the Age II Loom
    set_discard(g, [card(tables, "Loom", 1), "Tavern"])
    set_hands(g, [["Temple"], ["Altar"], ["Theater"]])
    script(g, 0, ("Temple", "stage"), picks=[card(tables, "Loom", 1)])
    script(g, 1, ("Altar", "build"))
    script(g, 2, ("Theater", "build"))
    with pytest.raises(IllegalMove):
        g.play_turn()
    assert g.policies[0].offered == [["Tavern"]]


# ---------------------------------------------------------------------------------------------
# 9. Manneken Pis (docs/rules.md §6)

def test_manneken_pis_starts_with_7_coins_and_no_resource(tables):
    g = new_game(tables, ["manneken_pis:A", "giza:A", "rhodes:B"])
    assert coins(g) == [7, 3, 3]
    assert g.pos.production(0) == ([0] * 7, [])
    assert int(tables.board_stages[tables.board_id("manneken_pis"), 0]) == 3


def test_manneken_pis_a1_copies_the_left_neighbours_stage1_rhodes_b1(tables):
    g = new_game(tables, ["manneken_pis:A", "rhodes:B", "ephesus:B"], age=1, turn=1)
    setup(g, 0, cards=["Stone Pit", "Clay Pool"])  # MP A1: stone 1, clay 1
    set_hands(g, [["Altar"], ["Theater"], ["Pawnshop"]])
    script(g, 0, ("Altar", "stage"))
    script(g, 1, ("Theater", "build"))
    script(g, 2, ("Pawnshop", "build"))
    g.play_turn()
    assert g.pos.stage_source(0, 0) == (tables.stage_entity(tables.board_id("rhodes"), 1, 0), True)
    assert coins(g) == [7 + 3, 3, 3]  # Rhodes B1's 3 coins, not Ephesus B1's 4
    assert g.pos.shields(0) == 1 and g.pos.shields(1) == 0
    assert best_score(g.pos, 0).wonder == 3
    assert g.pos.cities[1].stages == 0  # Rhodes unaffected


def test_manneken_pis_a2_copies_the_right_neighbours_stage2_ephesus_a2(tables):
    g = new_game(tables, ["manneken_pis:A", "rhodes:A", "ephesus:A"], age=1, turn=1)
    setup(g, 0, cards=["Lumber Yard", "Ore Vein"], stages=1)  # MP A2: wood 1, ore 1
    set_hands(g, [["Altar"], ["Theater"], ["Pawnshop"]])
    script(g, 0, ("Altar", "stage"))
    script(g, 1, ("Theater", "build"))
    script(g, 2, ("Pawnshop", "build"))
    g.play_turn()
    assert coins(g) == [7 + 9, 3, 3]
    assert g.pos.shields(0) == 0  # not the left neighbour's Rhodes A2
    assert best_score(g.pos, 0).wonder == 3  # stage 1 = Rhodes A1 (3 points), stage 2 = 0


def test_manneken_pis_copy_of_alexandria_a2_produces_for_it_but_is_not_sellable(tables):
    g = new_game(tables, ["manneken_pis:A", "giza:A", "alexandria:A"], age=1, turn=1)
    setup(g, 0, stages=2)  # stage 2 copies Alexandria A2 (right), one raw of choice per build
    setup(g, 1, coins=5)
    setup(g, 2, coins=5)
    set_hands(g, [["Stockade", "Guard Tower", "Barracks"], ["Stockade"], ["Stockade"]])
    for name in ("Stockade", "Guard Tower", "Barracks"):
        assert options(g, 0, name) == [(0, 0)]
    assert options(g, 1, "Stockade") is None  # Giza cannot buy MP's wood (its right)
    assert options(g, 2, "Stockade") is None  # Alexandria cannot buy it either (its left)
    script(g, 0, ("Stockade", "build"))
    g.play_turn()
    assert city_names(g, 0) == ["Stockade"]
    assert coins(g) == [7, 8, 8]


def test_manneken_pis_copy_of_babylon_b2_plays_the_7th_card(tables):
    g = new_game(tables, ["manneken_pis:A", "giza:A", "babylon:B"], age=1, turn=6)
    setup(g, 0, stages=2)
    set_hands(g, [["Altar", "Theater"], ["Pawnshop", "Loom"], ["Baths", "Press"]])
    script(g, 0, ("Altar", "build"), ("Theater", "build"))
    script(g, 1, ("Pawnshop", "build"))
    script(g, 2, ("Press", "build"))  # Babylon itself has not built B2: no 7th card
    g.play_turn()
    assert city_names(g, 0) == ["Altar", "Theater"]
    assert [e[3] for e in g.events if e[0] == SEVENTH] == [0]
    assert [s for s, _ in g.policies[2].seen] == [False]
    assert discard_names(g) == ["Baths", "Loom"]
    assert coins(g) == [7, 3, 3]


def test_manneken_pis_copy_of_olympia_a2_free_build_with_its_own_limit(tables):
    g = new_game(tables, ["manneken_pis:A", "rhodes:A", "olympia:A"], age=1, turn=2)
    setup(g, 0, stages=2, coins=0)
    setup(g, 2, stages=2, coins=0)
    set_hands(g, [["Guard Tower"], ["Altar"], ["Barracks"]])
    assert actions(g, 0, "Guard Tower") == ["build_free", "discard"]
    assert actions(g, 2, "Barracks") == ["build_free", "discard"]
    script(g, 0, ("Guard Tower", "build_free"))
    script(g, 1, ("Altar", "build"))
    script(g, 2, ("Barracks", "build_free"))  # Olympia's own use is separate from MP's
    g.play_turn()
    assert city_names(g, 0) == ["Guard Tower"] and city_names(g, 2) == ["Barracks"]
    assert [c.free_build_age for c in g.pos.cities] == [1, 0, 1]
    assert coins(g) == [0, 3, 0]
    g.turn = 3
    set_hands(g, [["Scriptorium"], ["Theater"], ["Apothecary"]])
    assert actions(g, 0, "Scriptorium") == ["discard"]
    g.age, g.turn = 2, 1
    set_hands(g, [["Walls"], ["Theater"], ["Apothecary"]])
    assert actions(g, 0, "Walls") == ["build_free", "discard"]


def test_manneken_pis_copy_of_halicarnassus_a2_picks_after_halicarnassus(tables):
    log = []
    g = new_game(tables, ["manneken_pis:A", "giza:A", "halicarnassus:A"], age=1, turn=2)
    for pol in g.policies:
        pol.log = log
    setup(g, 0, cards=["Lumber Yard", "Ore Vein"], stages=1)  # MP A2: wood, ore
    setup(g, 2, cards=["Ore Vein", "Clay Pit", "Forest Cave"], stages=1)  # Halicarnassus A2: ore 3
    set_discard(g, ["Tavern"])
    set_hands(g, [["Stockade"], ["Altar"], ["Barracks"]])
    script(g, 0, ("Stockade", "stage"), picks=[None])  # picks second: Tavern is gone
    script(g, 1, ("Altar", "discard"))
    script(g, 2, ("Barracks", "stage"), picks=["Tavern"])
    g.play_turn()
    assert log == [(2, "discard_build"), (0, "discard_build")]
    assert g.policies[2].offered == [["Altar", "Tavern"]]
    assert g.policies[0].offered == [["Altar"]]


def test_manneken_pis_copy_of_halicarnassus_a2_second_pick(tables):
    g = new_game(tables, ["manneken_pis:A", "giza:A", "halicarnassus:A"], age=1, turn=2)
    setup(g, 0, cards=["Lumber Yard", "Ore Vein"], stages=1)
    setup(g, 2, cards=["Ore Vein", "Clay Pit", "Forest Cave"], stages=1)
    set_discard(g, ["Tavern"])
    set_hands(g, [["Stockade"], ["Altar"], ["Barracks"]])
    script(g, 0, ("Stockade", "stage"), picks=["Altar"])
    script(g, 1, ("Altar", "discard"))
    script(g, 2, ("Barracks", "stage"), picks=["Tavern"])
    g.play_turn()
    assert city_names(g, 2) == ["Ore Vein", "Clay Pit", "Forest Cave", "Tavern"]
    assert city_names(g, 0) == ["Lumber Yard", "Ore Vein", "Altar"]
    assert coins(g) == [7, 6, 3 + 5]
    assert g.discard == []


@pytest.mark.parametrize("copy3, science, guild", [("left", 10, 0), ("right", 2, 3)])
def test_manneken_pis_a3_copies_the_chosen_neighbours_stage3(tables, copy3, science, guild):
    g = new_game(tables, ["manneken_pis:A", "babylon:B", "olympia:B"], age=3, turn=1)
    setup(g, 0, cards=["Glassworks", "Loom", "Press", "Apothecary", "Workshop"], stages=2)
    setup(g, 1, cards=["Magistrates Guild", "Altar", "Theater"])
    setup(g, 2, cards=["Baths"])
    set_hands(g, [["Gardens"], ["Senate"], ["Palace"]])
    m = find_move(tables, moves_for(g, 0), "Gardens", "stage")
    assert m.needs_copy3 and m.options == ((0, 0),)
    script(g, 0, ("Gardens", "stage", None, copy3))
    g.play_turn()
    city = g.pos.cities[0]
    assert city.stages == 3 and city.copy3 == {"left": codes.COPY_LEFT, "right": codes.COPY_RIGHT}[copy3]
    assert city.coins == 7
    assert [e[8] for e in g.events if e[0] == MOVE and e[3] == 0] == [city.copy3]
    s = best_score(g.pos, 0)
    # stage 1 = Babylon B1 (3), stage 2 = Olympia B2 (5), stage 3 = Babylon B3 (a science
    # wildcard: compass + gear + tablet = 10) or Olympia B3 (the Magistrates Guild copied,
    # counting MP's neighbours' blue cards: Altar, Theater, Baths = 3)
    assert (s.wonder, s.science, s.guild) == (8, science, guild)


@pytest.mark.parametrize("copy3, offered, exp_coins, wonder", [
    ("left", [["Pawnshop", "Theater", "Tavern"]], 7 + 5, 2 + 3),  # Halicarnassus B3: discard build
    ("right", [], 7 + 4, 2 + 3 + 5),  # Ephesus B3: 4 coins, 5 points
])
def test_manneken_pis_a3_immediate_effects_apply_when_built(tables, copy3, offered, exp_coins, wonder):
    g = new_game(tables, ["manneken_pis:A", "halicarnassus:B", "ephesus:B"], age=1, turn=2)
    setup(g, 0, cards=["Glassworks", "Loom", "Press"], stages=2)  # 1 = Hal. B1, 2 = Ephesus B2
    set_discard(g, ["Tavern"])
    set_hands(g, [["Altar"], ["Pawnshop"], ["Theater"]])
    script(g, 0, ("Altar", "stage", None, copy3), picks=["Tavern"])
    g.play_turn()  # the neighbours discard Pawnshop and Theater
    assert g.policies[0].offered == offered
    assert g.pos.cities[0].coins == exp_coins
    assert best_score(g.pos, 0).wonder == wonder


def test_manneken_pis_7th_card_stage3_copying_halicarnassus_b3_takes_its_own_discard(tables):
    g = new_game(tables, ["manneken_pis:A", "halicarnassus:B", "babylon:B"], age=1, turn=6)
    setup(g, 0, cards=["Glassworks", "Loom", "Press"], stages=2)  # stage 2 = Babylon B2
    set_hands(g, [["Tavern", "Altar"], ["Theater", "Pawnshop"], ["Lumber Yard", "Stockade"]])
    script(g, 0, ("Tavern", "discard"), ("Altar", "stage", None, "left"), picks=["Tavern"])
    script(g, 1, ("Theater", "build"))
    script(g, 2, ("Lumber Yard", "build"))
    g.play_turn()
    assert g.pos.cities[0].stages == 3
    assert g.policies[0].offered == [["Pawnshop", "Stockade", "Tavern"]]
    assert city_names(g, 0) == ["Glassworks", "Loom", "Press", "Tavern"]
    assert coins(g) == [7 + 3 + 5, 3, 3]
    assert discard_names(g) == ["Pawnshop", "Stockade"]


def test_manneken_pis_a3_needs_a_neighbour(tables):
    g = new_game(tables, ["manneken_pis:A", "babylon:B", "olympia:B"], age=3, turn=1)
    setup(g, 0, cards=["Glassworks", "Loom", "Press"], stages=2)
    set_hands(g, [["Gardens"], ["Senate"], ["Palace"]])
    m = find_move(tables, moves_for(g, 0), "Gardens", "stage")

    class NoNeighbour:
        def choose(self, game, seat, moves, seventh):
            return Choice(m, (0, 0), -1)

    g.policies[0] = NoNeighbour()
    with pytest.raises(IllegalMove):
        g.play_turn()


@pytest.mark.parametrize("copy3, wonder", [("left", 3 + 5), ("right", 3 + 5 + 7)])
def test_manneken_pis_copy_of_a_missing_stage_gives_nothing(tables, copy3, wonder):
    g = new_game(tables, ["manneken_pis:A", "rhodes:B", "giza:A"], age=3, turn=1)
    setup(g, 0, cards=["Glassworks", "Loom", "Press"], stages=2)  # 1 = Rhodes B1, 2 = Giza A2
    set_hands(g, [["Gardens"], ["Senate"], ["Palace"]])
    script(g, 0, ("Gardens", "stage", None, copy3))
    g.play_turn()
    assert g.pos.cities[0].stages == 3
    assert g.pos.stage_source(0, 2)[0] == (-1 if copy3 == "left" else
                                           tables.stage_entity(tables.board_id("giza"), 0, 2))
    assert g.pos.cities[0].coins == 7
    assert g.pos.shields(0) == 1  # Rhodes B1's shield only
    assert best_score(g.pos, 0).wonder == wonder


def test_manneken_pis_copy_of_olympia_b1_discounts_its_own_neighbours(tables):
    g = new_game(tables, ["manneken_pis:A", "olympia:B", "rhodes:A"], age=1, turn=1)
    setup(g, 0, cards=["Stone Pit", "Clay Pool"])
    set_hands(g, [["Altar", "Stockade", "Barracks"], ["Theater"], ["Pawnshop"]])
    assert options(g, 0, "Stockade") == [(2, 0)]
    assert options(g, 0, "Barracks") == [(0, 2)]
    script(g, 0, ("Altar", "stage"))
    g.play_turn()
    assert g.pos.cities[0].coins == 7  # Olympia B1 gives no coins
    g.turn = 2
    set_hands(g, [["Stockade", "Barracks"], ["Theater"], ["Pawnshop"]])
    assert options(g, 0, "Stockade") == [(1, 0)]
    assert options(g, 0, "Barracks") == [(0, 1)]


def test_manneken_pis_b_single_stage(tables):
    g = new_game(tables, ["manneken_pis:B", "giza:A", "rhodes:A"], age=1, turn=1)
    assert int(tables.board_stages[tables.board_id("manneken_pis"), 1]) == 1
    setup(g, 0, cards=["Lumber Yard", "Stone Pit", "Clay Pool", "Ore Vein", "Glassworks", "Loom"])
    set_hands(g, [["Altar", "Theater"], ["Baths"], ["Pawnshop"]])
    assert actions(g, 0, "Altar") == ["build", "discard"]  # no papyrus
    setup(g, 0, cards=["Lumber Yard", "Stone Pit", "Clay Pool", "Ore Vein", "Glassworks", "Loom", "Press"])
    assert options(g, 0, "Altar", "stage") == [(0, 0)]
    script(g, 0, ("Altar", "stage"))
    g.play_turn()
    assert coins(g)[0] == 7 + 7
    assert g.pos.shields(0) == 1
    assert best_score(g.pos, 0).wonder == 7
    g.turn = 2
    set_hands(g, [["Theater"], ["Baths"], ["Pawnshop"]])
    assert actions(g, 0, "Theater") == ["build", "discard"]  # no stage left


# ---------------------------------------------------------------------------------------------
# 10. The random policy (docs/rules.md §12)

def _random_game(tables, boards, seed, game, age, turn):
    n = len(boards)
    return new_game(tables, boards, age=age, turn=turn,
                    policies=[RandomPolicy(seed, game, s) for s in range(n)])


def test_random_policy_always_plays_a_7th_card(tables):
    for seed in range(30):
        g = _random_game(tables, ["babylon:B", "giza:A", "rhodes:A"], seed, 0, 1, 6)
        setup(g, 0, stages=2)
        set_hands(g, [["Altar", "Tavern"], ["Theater", "Baths"], ["Pawnshop", "Loom"]])
        g.play_turn()
        sev = [e for e in g.events if e[0] == SEVENTH]
        assert [e[3] for e in sev] == [0]
        assert len(g.discard) == 2 + sum(1 for e in g.events if e[0] in (MOVE, SEVENTH)
                                         and e[5] == ACTION["discard"])


def test_random_policy_draws_the_stage3_neighbour(tables):
    seen = set()
    for seed in range(40):
        g = _random_game(tables, ["manneken_pis:A", "giza:A", "rhodes:A"], seed, 3, 1, 1)
        setup(g, 0, cards=["Glassworks", "Loom", "Press"], stages=2)
        set_hands(g, [["Glassworks"], ["Altar"], ["Theater"]])  # name owned: stage or discard
        g.play_turn()
        ev = [e for e in g.events if e[0] == MOVE and e[3] == 0][0]
        if ev[5] == ACTION["stage"]:
            assert ev[8] in (codes.COPY_LEFT, codes.COPY_RIGHT) and g.pos.cities[0].copy3 == ev[8]
            seen.add(ev[8])
        else:
            assert ev[8] == -1
    assert seen == {codes.COPY_LEFT, codes.COPY_RIGHT}


def test_random_policy_discard_build_takes_a_legal_card_when_there_is_one(tables):
    for seed in range(20):
        g = _random_game(tables, ["halicarnassus:A", "rhodes:A", "giza:A"], seed, 1, 1, 3)
        setup(g, 0, cards=["Ore Vein", "Clay Pit", "Forest Cave", "Altar"], stages=1)
        set_discard(g, ["Altar", "Tavern", "Baths"])
        set_hands(g, [["Barracks"], ["Theater"], ["Pawnshop"]])
        g.play_turn()
        ev = [e for e in g.events if e[0] == DISCARD_BUILD]
        if g.pos.cities[0].stages == 2:  # offered: the pile (and this turn's discards) but Altar
            assert len(ev) == 1 and tables.card_names[ev[0][4]] in ("Tavern", "Baths", "Theater",
                                                                     "Pawnshop")
            assert card(tables, "Altar") in g.discard
        else:
            assert ev == []


def test_random_policy_is_deterministic_for_seed_and_game(tables):
    def run(seed, game):
        g = _random_game(tables, ["manneken_pis:A", "babylon:B", "halicarnassus:B", "olympia:A"],
                         seed, game, 1, 1)
        for turn in range(1, 7):
            g.turn = turn
            if turn == 1:
                set_hands(g, [["Altar", "Theater", "Baths", "Stockade", "Tavern", "Loom", "Press"],
                              ["Lumber Yard", "Stone Pit", "Clay Pool", "Ore Vein", "Glassworks",
                               "Pawnshop", "Barracks"],
                              ["Guard Tower", "Apothecary", "Workshop", "Scriptorium", "Marketplace",
                               "East Trading Post", "West Trading Post"],
                              ["Clay Pit", "Timber Yard", "Excavation", "Forest Cave", "Tree Farm",
                               "Mine", "Altar"]])
            g.play_turn()
        g.military()
        return g.events, [(c.coins, list(c.cards), c.stages, list(c.tokens)) for c in g.pos.cities]

    assert run(11, 2) == run(11, 2)
    assert any(run(11, 2) != run(11, g) for g in (3, 4, 5))
    assert play(11, 2, 5, tables, promo_in_pool=True) == play(11, 2, 5, tables, promo_in_pool=True)
