"""The rulebook's worked examples and every end-of-game formula, with concrete numbers.

Each test writes a small scenario file (docs/interfaces.md §1) and runs `wsim score` or
`wsim trade` on it, so these are checks of docs/rules.md §3–§4 and §7 through the public
interface. Seat i's left neighbour is seat i+1, its right neighbour seat i-1.

Every player line is a YAML flow mapping, e.g. "wonder: giza, side: A, cards: [Haven]".

Each test runs twice: through the CLI (the reference engine), and with every number computed by
the kernels (tests/kernelturn.py: the same scenario loaded into the kernels' state).
"""

import itertools
import json

import pytest

from clikit import run_cli
from kernelturn import kernel_score_doc, kernel_trade_doc
from wsim import scenario, tables as tables_mod

_counter = itertools.count()
ENGINE = {"name": "reference"}


@pytest.fixture(params=["reference", "kernel"], autouse=True)
def engine(request):
    """Every scoring and trading rule test runs on both engines."""
    ENGINE["name"] = request.param
    yield request.param
    ENGINE["name"] = "reference"


def write_scenario(tmp_path, *players, age=None) -> str:
    """A scenario file with one seat per flow-mapping line; returns its path."""
    text = (f"age: {age}\n" if age is not None else "") + "players:\n"
    text += "".join(f"  - {{{p}}}\n" for p in players)
    path = tmp_path / f"scenario-{next(_counter)}.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def score(tmp_path, *players) -> dict:
    """The `wsim score --json` document of a scenario (the kernels' numbers on the kernel run)."""
    path = write_scenario(tmp_path, *players)
    if ENGINE["name"] == "kernel":
        t = tables_mod.load()
        return kernel_score_doc(t, scenario.load(path, t))
    result = run_cli("score", path, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def seat_score(tmp_path, *players, seat=0) -> dict:
    """One seat's breakdown (without the seat key)."""
    row = dict(score(tmp_path, *players)["players"][seat])
    assert row.pop("seat") == seat
    return row


def trade(tmp_path, *players, seat=0, card=None) -> dict:
    """The `wsim trade --json` document: for `card`, or the next wonder stage when card is None."""
    path = write_scenario(tmp_path, *players)
    if ENGINE["name"] == "kernel":
        t = tables_mod.load()
        doc = kernel_trade_doc(t, scenario.load(path, t), seat, None if card is None else t.card_id(card))
    else:
        args = ["trade", path, "--seat", str(seat), "--json"]
        args += ["--card", card] if card is not None else ["--stage"]
        result = run_cli(*args)
        assert result.exit_code == 0, result.stderr
        doc = json.loads(result.stdout)
    assert doc["seat"] == seat
    return doc


def opts(*pairs) -> list:
    return [{"left": a, "right": b} for a, b in pairs]


# Two neighbours that count for nothing much: boards without science, no cards.
PLAIN_L = "wonder: rhodes, side: A"
PLAIN_R = "wonder: ephesus, side: A"


def breakdown(military=0, treasury=1, wonder=0, civilian=0, science=0, commercial=0, guild=0) -> dict:
    """An expected breakdown; treasury defaults to 1 (3 coins, the scenario default)."""
    d = dict(military=military, treasury=treasury, wonder=wonder, civilian=civilian,
             science=science, commercial=commercial, guild=guild)
    d["total"] = sum(d.values())
    return d


# ---------------------------------------------------------------------------------------------
# Science, treasury, military, civilian (docs/rules.md §7)

def test_science_321_is_21(tmp_path):
    cards = "[Apothecary, Dispensary, Lodge, Workshop, Laboratory, Scriptorium]"
    row = seat_score(tmp_path, f"wonder: rhodes, side: A, cards: {cards}", PLAIN_L, PLAIN_R)
    assert row == breakdown(science=21)  # 9 + 4 + 1 + 7 * 1


def test_science_322_is_31(tmp_path):
    cards = "[Apothecary, Dispensary, Lodge, Workshop, Laboratory, Scriptorium, Library]"
    row = seat_score(tmp_path, f"wonder: rhodes, side: A, cards: {cards}", PLAIN_L, PLAIN_R)
    assert row == breakdown(science=31)  # 9 + 4 + 4 + 7 * 2


def test_science_single_symbols_and_sets(tmp_path):
    doc = score(tmp_path,
                "wonder: rhodes, side: A, cards: [Apothecary, Workshop, Scriptorium], coins: 0",  # 1/1/1
                "wonder: rhodes, side: A, cards: [Apothecary, Dispensary, Lodge], coins: 0",  # 3/0/0
                "wonder: rhodes, side: A, coins: 0")
    assert [p["science"] for p in doc["players"]] == [10, 9, 0]


@pytest.mark.parametrize("coins, points", [(0, 0), (2, 0), (3, 1), (8, 2), (14, 4), (15, 5)])
def test_treasury_one_point_per_three_coins(tmp_path, coins, points):
    row = seat_score(tmp_path, f"wonder: giza, side: A, coins: {coins}", PLAIN_L, PLAIN_R)
    assert row["treasury"] == points and row["total"] == points


def test_military_is_the_sum_of_tokens(tmp_path):
    row = seat_score(tmp_path, "wonder: giza, side: A, tokens: [1, 3, 5, -1, -1], coins: 0",
                     PLAIN_L, PLAIN_R)
    assert row == breakdown(military=7, treasury=0)
    row = seat_score(tmp_path, "wonder: giza, side: A, tokens: [-1, -1, -1], coins: 0", PLAIN_L, PLAIN_R)
    assert row == breakdown(military=-3, treasury=0)


def test_civilian_printed_points_and_wonder_stages(tmp_path):
    row = seat_score(tmp_path, "wonder: giza, side: B, stages: 4, cards: [Altar, Temple, Palace]",
                     PLAIN_L, PLAIN_R)
    assert row == breakdown(civilian=2 + 3 + 8, wonder=3 + 5 + 5 + 7)


def test_wonder_points_of_side_b_boards(tmp_path):
    doc = score(tmp_path, "wonder: rhodes, side: B, stages: 2", "wonder: ephesus, side: B, stages: 3",
                "wonder: olympia, side: B, stages: 2", "wonder: halicarnassus, side: B, stages: 3",
                "wonder: manneken_pis, side: B, stages: 1")
    assert [p["wonder"] for p in doc["players"]] == [3 + 4, 2 + 3 + 5, 0 + 5, 2 + 1, 7]


# ---------------------------------------------------------------------------------------------
# Commercial (yellow) end points: the owner's own city only

# The neighbours hold plenty of every counted kind, which must not count.
RICH_L = "wonder: giza, side: A, stages: 3, cards: [Lumber Yard, Sawmill, Loom, Glassworks, Tavern, Forum]"
RICH_R = "wonder: rhodes, side: A, stages: 2, cards: [Ore Vein, Press, Marketplace, Vineyard]"


def test_haven_one_per_own_brown(tmp_path):
    row = seat_score(tmp_path, "wonder: babylon, side: A, cards: [Lumber Yard, Stone Pit, Sawmill, Haven]",
                     RICH_L, RICH_R)
    assert row == breakdown(commercial=3)


def test_lighthouse_counts_itself(tmp_path):
    row = seat_score(tmp_path, "wonder: babylon, side: A, cards: [Lighthouse, Tavern, Marketplace]",
                     RICH_L, RICH_R)
    assert row == breakdown(commercial=3)
    row = seat_score(tmp_path, "wonder: babylon, side: A, cards: [Lighthouse]", RICH_L, RICH_R)
    assert row == breakdown(commercial=1)


def test_chamber_of_commerce_two_per_grey(tmp_path):
    row = seat_score(tmp_path, "wonder: babylon, side: A, cards: [Loom, Glassworks, Chamber of Commerce]",
                     RICH_L, RICH_R)
    assert row == breakdown(commercial=4)


def test_arena_one_per_own_stage(tmp_path):
    row = seat_score(tmp_path, "wonder: giza, side: A, stages: 2, cards: [Arena]", RICH_L, RICH_R)
    assert row == breakdown(commercial=2, wonder=3 + 5)
    row = seat_score(tmp_path, "wonder: giza, side: A, cards: [Arena]", RICH_L, RICH_R)
    assert row == breakdown(commercial=0)


def test_yellow_cards_without_end_points(tmp_path):
    row = seat_score(tmp_path, "wonder: babylon, side: A, cards: [Tavern, East Trading Post, West Trading "
                               "Post, Marketplace, Forum, Caravansery, Vineyard, Bazar]", RICH_L, RICH_R)
    assert row == breakdown(commercial=0)


# ---------------------------------------------------------------------------------------------
# Guilds: each formula and its scope. Seat 0 owns one of each counted kind (which neighbour
# guilds must not count); its left (seat 1) and right (seat 2) neighbours differ in counts.

GUILD_OWNER = ("wonder: giza, side: A, stages: 1, tokens: [-1], "
               "cards: [Clay Pool, Loom, Altar, Barracks, Tavern, Apothecary, {guild}]")
GUILD_LEFT = ("wonder: rhodes, side: A, stages: 2, tokens: [-1, -1, 3], cards: [Lumber Yard, Stone Pit, "
              "Loom, Tavern, Marketplace, Workshop, Stockade, Walls, Altar, Temple, Theater]")
GUILD_RIGHT = ("wonder: ephesus, side: A, stages: 3, tokens: [-1, 5], cards: [Sawmill, Glassworks, Press, "
               "Forum, Scriptorium, Library, Barracks, Baths]")


@pytest.mark.parametrize("guild, points", [
    ("Workers Guild", 2 + 1),  # brown: Lumber Yard, Stone Pit | Sawmill
    ("Craftsmens Guild", 2 * (1 + 2)),  # grey: Loom | Glassworks, Press
    ("Traders Guild", 2 + 1),  # yellow: Tavern, Marketplace | Forum
    ("Philosophers Guild", 1 + 2),  # green: Workshop | Scriptorium, Library
    ("Spies Guild", 2 + 1),  # red cards (not shields): Stockade, Walls | Barracks
    ("Magistrates Guild", 3 + 1),  # blue: Altar, Temple, Theater | Baths
    ("Strategists Guild", 2 + 1),  # defeat tokens: -1, -1 | -1 (not the owner's -1)
    ("Builders Guild", 1 + 2 + 3),  # stages: own 1 + left 2 + right 3
    ("Shipowners Guild", 1 + 1 + 1),  # own brown Clay Pool + grey Loom + purple (itself)
    ("Scientists Guild", 0),  # a science wildcard, no guild points
])
def test_each_guild_formula_and_scope(tmp_path, guild, points):
    row = seat_score(tmp_path, GUILD_OWNER.format(guild=guild), GUILD_LEFT, GUILD_RIGHT)
    assert row["guild"] == points
    # Apothecary alone is 1 point of science; the Scientists Guild's wildcard makes it 2 compasses.
    assert row["science"] == (4 if guild == "Scientists Guild" else 1)
    assert row["civilian"] == 2 and row["wonder"] == 3 and row["military"] == -1
    assert row["commercial"] == 0 and row["treasury"] == 1


def test_craftsmens_guild_alias_with_apostrophe(tmp_path):
    row = seat_score(tmp_path, "wonder: giza, side: A, cards: [\"Craftsmen's Guild\"]",
                     "wonder: rhodes, side: A, cards: [Loom, Press]", PLAIN_R)
    assert row["guild"] == 4


def test_shipowners_counts_own_purple_cards(tmp_path):
    row = seat_score(tmp_path, "wonder: giza, side: A, cards: [Shipowners Guild, Workers Guild, "
                               "Spies Guild, Sawmill, Press]", GUILD_LEFT, GUILD_RIGHT)
    # Shipowners 1 brown + 1 grey + 3 purple = 5; Workers 3; Spies 3.
    assert row["guild"] == 5 + 3 + 3


# ---------------------------------------------------------------------------------------------
# Science wildcards: Babylon A2 / B3, Scientists Guild, chosen jointly

def test_babylon_a2_wildcard(tmp_path):
    cards = "[Apothecary, Dispensary, Lodge, Workshop, Laboratory, Scriptorium]"  # 3/2/1
    row = seat_score(tmp_path, f"wonder: babylon, side: A, stages: 2, cards: {cards}", PLAIN_L, PLAIN_R)
    assert row == breakdown(science=31, wonder=3)  # the wildcard makes 3/2/2
    row = seat_score(tmp_path, f"wonder: babylon, side: A, stages: 1, cards: {cards}", PLAIN_L, PLAIN_R)
    assert row == breakdown(science=21, wonder=3)  # stage 2 not built: no wildcard


def test_babylon_b3_wildcard(tmp_path):
    row = seat_score(tmp_path, "wonder: babylon, side: B, stages: 3, cards: [Apothecary, Workshop]",
                     PLAIN_L, PLAIN_R)
    assert row == breakdown(science=10, wonder=3)
    row = seat_score(tmp_path, "wonder: babylon, side: B, stages: 2, cards: [Apothecary, Workshop]",
                     PLAIN_L, PLAIN_R)
    assert row == breakdown(science=2, wonder=3)


@pytest.mark.parametrize("board", ["babylon, side: A, stages: 2", "babylon, side: B, stages: 3"])
def test_two_wildcards_chosen_jointly(tmp_path, board):
    # One compass and two wildcards: one at a time, each greedy step prefers a compass (3/0/0 = 9),
    # but together gear + tablet make 1/1/1 = 10.
    row = seat_score(tmp_path, f"wonder: {board}, cards: [Apothecary, Scientists Guild]", PLAIN_L, PLAIN_R)
    assert row["science"] == 10 and row["guild"] == 0


def test_two_wildcards_complete_a_set(tmp_path):
    # 2/2/0 and two wildcards (Babylon A2, Scientists Guild): 2/2/2 = 4+4+4+14 = 26 beats
    # 3/2/1 (21) and 4/2/0 (20).
    row = seat_score(tmp_path, "wonder: babylon, side: A, stages: 2, cards: [Apothecary, Dispensary, "
                               "Workshop, Laboratory, Scientists Guild]", PLAIN_L, PLAIN_R)
    assert row["science"] == 26


def test_three_wildcards_from_copies_chosen_jointly(tmp_path):
    # Manneken Pis A: stage 2 copies Babylon A2 (right), stage 3 copies Olympia B3 (left), which
    # copies the right neighbour's Scientists Guild; plus its own Scientists Guild. Three
    # wildcards and no symbol: 1/1/1 = 10, where one at a time (1, then 4, then 9) gives 9.
    row = seat_score(tmp_path, "wonder: manneken_pis, side: A, stages: 3, copy3: left, "
                               "cards: [Scientists Guild]",
                     "wonder: olympia, side: B", "wonder: babylon, side: A, cards: [Scientists Guild]")
    assert row == breakdown(science=10)


# ---------------------------------------------------------------------------------------------
# Olympia B stage 3: copy a neighbour's guild at the end

def test_olympia_b3_copies_the_best_neighbour_guild(tmp_path):
    players = ("wonder: olympia, side: B, stages: 3",
               "wonder: giza, side: A, cards: [Workers Guild, Lumber Yard]",  # left: Workers -> 1 brown
               "wonder: rhodes, side: A, cards: [Magistrates Guild, Altar, Theater, Baths]")  # right
    doc = score(tmp_path, *players)
    # For seat 0, Workers counts 1 brown (seat 1) and Magistrates 3 blue (seat 2): it copies Magistrates.
    assert doc["players"][0]["guild"] == 3 and doc["players"][0]["wonder"] == 5
    # The owners are unaffected: seat 1's Workers counts its neighbours' brown (none).
    assert doc["players"][1]["guild"] == 0
    assert doc["players"][2]["guild"] == 0  # Magistrates of seat 2: blue of seats 0 and 1 (none)
    doc = score(tmp_path, "wonder: olympia, side: B, stages: 2", *players[1:])
    assert doc["players"][0]["guild"] == 0  # stage 3 not built: no copy


def test_olympia_b3_copy_uses_its_own_neighbours(tmp_path):
    # 4 seats: the copied Workers Guild counts seat 0's neighbours (seats 1 and 3), not seat 1's.
    doc = score(tmp_path,
                "wonder: olympia, side: B, stages: 3",
                "wonder: giza, side: A, cards: [Workers Guild, Sawmill]",
                "wonder: rhodes, side: A, cards: [Lumber Yard, Stone Pit, Clay Pool]",
                "wonder: ephesus, side: A, cards: [Ore Vein]")
    assert doc["players"][0]["guild"] == 2  # Sawmill (seat 1) + Ore Vein (seat 3)
    assert doc["players"][1]["guild"] == 3  # the owner: seats 2 and 0


def test_olympia_b3_copying_scientists_is_a_wildcard(tmp_path):
    doc = score(tmp_path,
                "wonder: olympia, side: B, stages: 3, cards: [Apothecary, Workshop]",
                "wonder: giza, side: A, cards: [Scientists Guild]",
                "wonder: rhodes, side: A, cards: [Workers Guild, Lumber Yard, Stone Pit]")
    # Workers would give 2 (brown of seats 1 and 2); Scientists turns 1/1/0 (2) into 1/1/1 (10).
    row = doc["players"][0]
    assert row["science"] == 10 and row["guild"] == 0 and row["wonder"] == 5


def test_olympia_b3_copied_shipowners_counts_itself(tmp_path):
    doc = score(tmp_path,
                "wonder: olympia, side: B, stages: 3, cards: [Lumber Yard, Loom]",
                "wonder: giza, side: A, cards: [Shipowners Guild]",
                PLAIN_R)
    assert doc["players"][0]["guild"] == 1 + 1 + 1  # brown + grey + the copy itself
    assert doc["players"][1]["guild"] == 1  # the owner's Shipowners: itself only


def test_olympia_b3_copy_is_purple_for_own_shipowners(tmp_path):
    doc = score(tmp_path,
                "wonder: olympia, side: B, stages: 3, cards: [Shipowners Guild, Lumber Yard]",
                "wonder: giza, side: A, cards: [Workers Guild, Stone Pit, Clay Pool]",
                "wonder: rhodes, side: A, cards: [Ore Vein]")
    # Copy Workers: 3 brown in seats 1 and 2; own Shipowners: 1 brown + 2 purple (itself, the copy).
    assert doc["players"][0]["guild"] == 3 + 3


def test_olympia_b3_may_copy_a_guild_it_owns(tmp_path):
    doc = score(tmp_path,
                "wonder: olympia, side: B, stages: 3, cards: [Shipowners Guild, Lumber Yard]",
                "wonder: giza, side: A, cards: [Shipowners Guild]",
                PLAIN_R)
    # Each Shipowners (own and copy) counts 1 brown + 2 purple.
    assert doc["players"][0]["guild"] == 3 + 3


# ---------------------------------------------------------------------------------------------
# Manneken Pis A: stage 1 copies the left stage 1, stage 2 the right stage 2, stage 3 either

def test_manneken_pis_copies_stage_points(tmp_path):
    doc = score(tmp_path,
                "wonder: manneken_pis, side: A, stages: 2",
                "wonder: rhodes, side: A",  # left: stage 1 = 3 points (the neighbour need not build it)
                "wonder: giza, side: A")  # right: stage 2 = 5 points
    assert doc["players"][0]["wonder"] == 3 + 5
    assert doc["players"][1]["wonder"] == 0 and doc["players"][2]["wonder"] == 0
    doc = score(tmp_path, "wonder: manneken_pis, side: A, stages: 2",
                "wonder: giza, side: A", "wonder: giza, side: A")
    assert doc["players"][0]["wonder"] == 3 + 5  # Giza A2 copied: 5


def test_manneken_pis_copies_a_wildcard(tmp_path):
    row = seat_score(tmp_path, "wonder: manneken_pis, side: A, stages: 2, cards: [Apothecary, Workshop]",
                     "wonder: giza, side: A", "wonder: babylon, side: A")
    assert row == breakdown(wonder=3, science=10)


def test_manneken_pis_copy_of_a_missing_stage_gives_nothing(tmp_path):
    # Stage 3 copying the left neighbour's stage 3, which Rhodes B does not have.
    doc = score(tmp_path, "wonder: manneken_pis, side: A, stages: 3, copy3: left",
                "wonder: rhodes, side: B", "wonder: giza, side: A")
    assert doc["players"][0]["wonder"] == 3 + 5  # Rhodes B1 (3 points) + Giza A2 (5)


def test_manneken_pis_copy3_absent_picks_the_better_neighbour(tmp_path):
    left, right = "wonder: babylon, side: B", "wonder: giza, side: A"  # B3 wildcard | A3 7 points
    # Stage 1 copies Babylon B1 (3 points), stage 2 Giza A2 (5 points).
    row = seat_score(tmp_path, "wonder: manneken_pis, side: A, stages: 3", left, right)
    assert row == breakdown(wonder=3 + 5 + 7)  # Giza's 7 points beat a lone wildcard (1)
    row = seat_score(tmp_path, "wonder: manneken_pis, side: A, stages: 3, copy3: left", left, right)
    assert row == breakdown(wonder=3 + 5, science=1)  # fixed to the left: the wildcard
    row = seat_score(tmp_path, "wonder: manneken_pis, side: A, stages: 3, cards: [Apothecary, Workshop]",
                     left, right)
    assert row == breakdown(wonder=3 + 5, science=10)  # here the wildcard (+8) beats 7 points


def test_manneken_pis_copies_olympia_b3(tmp_path):
    players = ("wonder: olympia, side: B, cards: [Altar, Theater]",  # left: B3 copies a guild
               "wonder: giza, side: A, cards: [Magistrates Guild, Baths]")  # right
    row = seat_score(tmp_path, "wonder: manneken_pis, side: A, stages: 3, copy3: left", *players)
    # Stage 2 copies Giza A2 (5 points); stage 3 copies the Magistrates Guild of the right
    # neighbour, counting the blue cards of Manneken Pis's neighbours: Altar, Theater, Baths.
    assert row == breakdown(wonder=5, guild=3)
    row = seat_score(tmp_path, "wonder: manneken_pis, side: A, stages: 3, copy3: right", *players)
    assert row == breakdown(wonder=5 + 7)


# ---------------------------------------------------------------------------------------------
# Winners

def test_tie_broken_by_coins(tmp_path):
    doc = score(tmp_path,
                "wonder: giza, side: A, coins: 5, tokens: [1]",  # 1 + 1 = 2 points, 5 coins
                "wonder: giza, side: A, coins: 4, tokens: [1]",  # 1 + 1 = 2 points, 4 coins
                "wonder: giza, side: A, coins: 0")
    assert [p["total"] for p in doc["players"]] == [2, 2, 0]
    assert doc["winners"] == [0]


def test_shared_victory_lists_every_winner(tmp_path):
    doc = score(tmp_path,
                "wonder: giza, side: A, coins: 0",
                "wonder: giza, side: A, coins: 4, tokens: [1]",
                "wonder: rhodes, side: A, coins: 4, tokens: [1]")
    assert [p["total"] for p in doc["players"]] == [0, 2, 2]
    assert doc["winners"] == [1, 2]  # same points, same coins
    doc = score(tmp_path,
                "wonder: giza, side: A, coins: 0",
                "wonder: giza, side: A, coins: 4, tokens: [1]",
                "wonder: rhodes, side: A, coins: 0",
                "wonder: rhodes, side: A, coins: 4, tokens: [1]")
    assert [p["total"] for p in doc["players"]] == [0, 2, 0, 2]
    assert doc["winners"] == [1, 3]


# ---------------------------------------------------------------------------------------------
# Trade (docs/rules.md §3–§4)

def test_university_bought_two_and_two(tmp_path):
    # Rulebook example: Alexandria (glass) with a Lumber Yard needs one more wood (left) and a
    # papyrus (right, Ephesus' board).
    players = ("wonder: alexandria, side: A, cards: [Lumber Yard], coins: {coins}",
               "wonder: olympia, side: A", "wonder: ephesus, side: A")
    doc = trade(tmp_path, players[0].format(coins=4), *players[1:], card="University")
    assert doc == {"seat": 0, "target": "University", "free": False, "coin_cost": 0,
                   "options": opts((2, 2)), "affordable": True, "legal": True}
    doc = trade(tmp_path, players[0].format(coins=3), *players[1:], card="University")
    assert doc["options"] == opts((2, 2))
    assert doc["affordable"] is False and doc["legal"] is False


ORE_BOTH = ("wonder: giza, side: A, cards: [Ore Vein, Glassworks]",
            "wonder: babylon, side: A, cards: [Ore Vein, Glassworks]")  # left, right: ore and glass


def test_plain_prices_are_two(tmp_path):
    doc = trade(tmp_path, "wonder: olympia, side: B, stages: 0", *ORE_BOTH, card="Barracks")
    assert doc["options"] == opts((0, 2), (2, 0))


def test_olympia_b1_raw_for_one_from_both(tmp_path):
    doc = trade(tmp_path, "wonder: olympia, side: B, stages: 1", *ORE_BOTH, card="Barracks")
    assert doc["options"] == opts((0, 1), (1, 0)) and doc["free"] is False
    doc = trade(tmp_path, "wonder: olympia, side: B, stages: 1", *ORE_BOTH, card="Workshop")
    assert doc["options"] == opts((0, 2), (2, 0))  # manufactured goods keep the full price


def test_olympia_b1_does_not_stack_with_a_trading_post(tmp_path):
    doc = trade(tmp_path, "wonder: olympia, side: B, stages: 1, cards: [East Trading Post]",
                *ORE_BOTH, card="Barracks")
    assert doc["options"] == opts((0, 1), (1, 0))


def test_east_trading_post_buys_raw_from_the_right(tmp_path):
    doc = trade(tmp_path, "wonder: olympia, side: A, cards: [East Trading Post]", *ORE_BOTH,
                card="Barracks")
    assert doc["options"] == opts((0, 1), (2, 0))  # East = the right neighbour (seat i-1)
    doc = trade(tmp_path, "wonder: olympia, side: A, cards: [East Trading Post]", *ORE_BOTH,
                card="Workshop")
    assert doc["options"] == opts((0, 2), (2, 0))  # raw only


def test_west_trading_post_buys_raw_from_the_left(tmp_path):
    doc = trade(tmp_path, "wonder: olympia, side: A, cards: [West Trading Post]", *ORE_BOTH,
                card="Barracks")
    assert doc["options"] == opts((1, 0), (0, 2))
    doc = trade(tmp_path, "wonder: olympia, side: A, cards: [West Trading Post, East Trading Post]",
                *ORE_BOTH, card="Barracks")
    assert doc["options"] == opts((0, 1), (1, 0))


def test_marketplace_buys_manufactured_from_both(tmp_path):
    doc = trade(tmp_path, "wonder: olympia, side: A, cards: [Marketplace]", *ORE_BOTH, card="Workshop")
    assert doc["options"] == opts((0, 1), (1, 0))
    doc = trade(tmp_path, "wonder: olympia, side: A, cards: [Marketplace]", *ORE_BOTH, card="Barracks")
    assert doc["options"] == opts((0, 2), (2, 0))  # raw keeps the full price


def test_mixed_purchase_pareto_options(tmp_path):
    # Stables: wood (own board), clay, ore. Clay only from the right (Babylon's board), ore from both.
    doc = trade(tmp_path, "wonder: olympia, side: A, cards: [West Trading Post]", *ORE_BOTH, card="Stables")
    assert doc["options"] == opts((1, 2), (0, 4))
    assert doc["affordable"] is True  # 3 coins pay 1 + 2


def test_manneken_pis_copy_of_olympia_b1_discount(tmp_path):
    doc = trade(tmp_path, "wonder: manneken_pis, side: A, stages: 1",
                "wonder: olympia, side: B, cards: [Ore Vein]",  # left: stage 1 is the discount
                "wonder: babylon, side: A, cards: [Ore Vein]", card="Barracks")
    assert doc["options"] == opts((0, 1), (1, 0))


def test_chain_makes_a_card_free(tmp_path):
    doc = trade(tmp_path, "wonder: giza, side: A, cards: [Altar], coins: 0", PLAIN_L, PLAIN_R, card="Temple")
    assert doc == {"seat": 0, "target": "Temple", "free": True, "coin_cost": 0, "options": opts((0, 0)),
                   "affordable": True, "legal": True}
    doc = trade(tmp_path, "wonder: giza, side: A, coins: 0", PLAIN_L, PLAIN_R, card="Temple")
    assert doc["free"] is False and doc["legal"] is False  # no chain: glass, wood, clay to buy


def test_card_without_cost_is_free(tmp_path):
    doc = trade(tmp_path, "wonder: giza, side: A, coins: 0", PLAIN_L, PLAIN_R, card="Lumber Yard")
    assert doc == {"seat": 0, "target": "Lumber Yard", "free": True, "coin_cost": 0,
                   "options": opts((0, 0)), "affordable": True, "legal": True}


def test_own_production_covers_is_not_free(tmp_path):
    doc = trade(tmp_path, "wonder: rhodes, side: A, coins: 0", PLAIN_L, PLAIN_R, card="Barracks")
    assert doc == {"seat": 0, "target": "Barracks", "free": False, "coin_cost": 0,
                   "options": opts((0, 0)), "affordable": True, "legal": True}


def test_coin_cost_card(tmp_path):
    doc = trade(tmp_path, "wonder: rhodes, side: A, coins: 0", PLAIN_L, PLAIN_R, card="Sawmill")
    assert doc == {"seat": 0, "target": "Sawmill", "free": False, "coin_cost": 1,
                   "options": opts((0, 0)), "affordable": False, "legal": False}
    doc = trade(tmp_path, "wonder: rhodes, side: A, coins: 1", PLAIN_L, PLAIN_R, card="Sawmill")
    assert doc["affordable"] is True and doc["legal"] is True


def test_affordable_needs_the_whole_option(tmp_path):
    # Stables: wood (own board), clay (right only: Babylon's board) and ore (either side).
    doc = trade(tmp_path, "wonder: olympia, side: A, coins: 3", *ORE_BOTH, card="Stables")
    assert doc["options"] == opts((0, 4), (2, 2))
    assert doc["affordable"] is False and doc["legal"] is False
    doc = trade(tmp_path, "wonder: olympia, side: A, coins: 4", *ORE_BOTH, card="Stables")
    assert doc["affordable"] is True and doc["legal"] is True


def test_impossible_purchase(tmp_path):
    doc = trade(tmp_path, "wonder: giza, side: A, coins: 30", PLAIN_L, PLAIN_R, card="Palace")
    assert doc == {"seat": 0, "target": "Palace", "free": False, "coin_cost": 0, "options": [],
                   "affordable": False, "legal": False}


def test_second_copy_of_an_owned_name_is_illegal(tmp_path):
    doc = trade(tmp_path, "wonder: giza, side: A, cards: [Loom]", PLAIN_L, PLAIN_R, card="Loom")
    assert doc == {"seat": 0, "target": "Loom", "free": True, "coin_cost": 0, "options": opts((0, 0)),
                   "affordable": True, "legal": False}
    doc = trade(tmp_path, "wonder: rhodes, side: A, cards: [Barracks]", PLAIN_L, PLAIN_R, card="barracks")
    assert doc["target"] == "Barracks" and doc["options"] == opts((0, 0))
    assert doc["affordable"] is True and doc["legal"] is False


@pytest.mark.parametrize("card, target", [("Caravansery", "Barracks"), ("Forum", "Workshop")])
def test_yellow_production_is_not_sold(tmp_path, card, target):
    # Nobody's board makes ore or glass: giza stone, ephesus papyrus, babylon clay.
    players = (f"wonder: giza, side: A, cards: [{card}]", "wonder: ephesus, side: A", "wonder: babylon, side: A")
    doc = trade(tmp_path, *players, seat=0, card=target)
    assert doc["options"] == opts((0, 0)) and doc["legal"] is True  # the owner uses it
    doc = trade(tmp_path, *players, seat=1, card=target)  # seat 0 is seat 1's right neighbour
    assert doc["options"] == [] and doc["legal"] is False
    doc = trade(tmp_path, *players, seat=2, card=target)  # seat 0 is seat 2's left neighbour
    assert doc["options"] == [] and doc["legal"] is False


def test_alexandria_stage_production_is_not_sold(tmp_path):
    players = ("wonder: alexandria, side: A, stages: 2", "wonder: ephesus, side: A", "wonder: babylon, side: A")
    assert trade(tmp_path, *players, seat=0, card="Barracks")["options"] == opts((0, 0))
    assert trade(tmp_path, *players, seat=1, card="Barracks")["options"] == []
    # The board's glass is sold: seat 1 buys it from its right neighbour, seat 0.
    assert trade(tmp_path, *players, seat=1, card="Workshop")["options"] == opts((0, 2))


def test_manneken_pis_copied_production_is_usable_not_sold(tmp_path):
    # Stage 1 copies the left neighbour's Alexandria B1 (one raw of choice), stage 2 the right
    # neighbour's Alexandria A2 (the same): two raw units for Manneken Pis, none for sale.
    # Neither Alexandria city has a raw resource of its own (glass boards, no cards).
    players = ("wonder: manneken_pis, side: A, stages: {stages}, cards: [Lumber Yard]",
               "wonder: alexandria, side: B", "wonder: alexandria, side: A")
    two = (players[0].format(stages=2),) + players[1:]
    one = (players[0].format(stages=1),) + players[1:]
    assert trade(tmp_path, *two, seat=0, card="Statue")["options"] == opts((0, 0))  # wood + 2 ore
    assert trade(tmp_path, *one, seat=0, card="Statue")["options"] == []  # one ore only
    assert trade(tmp_path, *one, seat=0, card="Guard Tower")["options"] == opts((0, 0))
    # Seat 1 (Manneken Pis is its right neighbour) and seat 2 (its left) cannot buy that ore.
    assert trade(tmp_path, *two, seat=1, card="Barracks")["options"] == []
    assert trade(tmp_path, *two, seat=2, card="Barracks")["options"] == []
    # The Lumber Yard is sold: seat 1 buys wood from its right neighbour.
    assert trade(tmp_path, *two, seat=1, card="Stockade")["options"] == opts((0, 2))


def test_stage_cost(tmp_path):
    doc = trade(tmp_path, "wonder: giza, side: A", "wonder: rhodes, side: A, cards: [Stone Pit]",
                PLAIN_R)
    # Giza A1: 2 stone; the board makes 1, the left neighbour sells one.
    assert doc == {"seat": 0, "target": "giza A stage 1", "free": False, "coin_cost": 0,
                   "options": opts((2, 0)), "affordable": True, "legal": True}
    doc = trade(tmp_path, "wonder: giza, side: B, stages: 3, cards: [Quarry, Stone Pit, Press]",
                PLAIN_L, PLAIN_R)
    assert doc["target"] == "giza B stage 4" and doc["options"] == opts((0, 0)) and doc["legal"] is True


def test_all_stages_built(tmp_path):
    doc = trade(tmp_path, "wonder: giza, side: A, stages: 3, coins: 20", PLAIN_L, PLAIN_R)
    assert doc == {"seat": 0, "target": "giza A stage 4", "free": False, "coin_cost": 0, "options": [],
                   "affordable": False, "legal": False}
