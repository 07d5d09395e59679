"""The data file, its validation, and the compiled tables (issue: foundation)."""

import copy

import numpy as np
import pytest
import yaml

from clikit import last_error_line, run_cli
from wsim import codes, effects
from wsim.compiler import DataError
from wsim.tables import compile_text


def find(doc, name, age=None):
    for c in doc["cards"]:
        if c["name"] == name and (age is None or c["age"] == age):
            return c
    raise KeyError(name)


def wonder(doc, wid):
    return next(w for w in doc["wonders"] if w["id"] == wid)


def _unknown_resource(d):
    find(d, "Baths")["cost"] = {"brick": 1}


def _unknown_colour(d):
    find(d, "Baths")["color"] = "pink"


def _unknown_science(d):
    find(d, "Apothecary")["science"] = "cog"


def _malformed_choice(d):
    find(d, "Tree Farm")["produces"] = ["wood/"]


def _unknown_chain(d):
    find(d, "Aqueduct")["chain_from"] = ["Aquaduct"]


def _chain_same_age(d):
    find(d, "Temple")["chain_from"] = ["Statue"]


def _chain_later_age(d):
    find(d, "Baths")["chain_from"] = ["Aqueduct"]


def _name_twice(d):
    dup = copy.deepcopy(find(d, "Baths"))
    d["cards"].insert(0, dup)


def _player_count(d):
    find(d, "Lumber Yard")["players"] = [2, 4]


def _deck_size(d):
    find(d, "Tavern")["players"] = [3, 4, 5, 7]


def _side_without_stages(d):
    wonder(d, "rhodes")["sides"]["B"] = []


def _unknown_stage_power(d):
    wonder(d, "olympia")["sides"]["A"][1]["power"] = "teleport"


def _unknown_stage_effect(d):
    wonder(d, "giza")["sides"]["A"][0]["glory"] = 3


BROKEN = [
    (_unknown_resource, "card 'Baths': field 'cost': unknown resource 'brick'"),
    (_unknown_colour, "card 'Baths': field 'color': unknown colour 'pink'"),
    (_unknown_science, "card 'Apothecary': field 'science': unknown science symbol 'cog'"),
    (_malformed_choice, "card 'Tree Farm': field 'produces': malformed choice 'wood/'"),
    (_unknown_chain, "card 'Aqueduct': field 'chain_from': unknown chain target 'Aquaduct'"),
    (_chain_same_age, "card 'Temple': field 'chain_from': chain from 'Statue' (Age 2) must come from an earlier age"),
    (_chain_later_age, "card 'Baths': field 'chain_from': chain from 'Aqueduct' (Age 2) must come from an earlier age"),
    (_name_twice, "card 'Baths': field 'name': the name appears twice in Age 1"),
    (_player_count, "card 'Lumber Yard': field 'players': player count 2 is outside 3..7"),
    (_deck_size, "the Age 1 deck for 3 players has 22 cards, expected 7 x 3 = 21"),
    (_side_without_stages, "wonder 'rhodes' side B: field 'stages': a wonder side needs at least one stage"),
    (_unknown_stage_power, "wonder 'olympia' side A stage 2: field 'power': unknown power 'teleport'"),
    (_unknown_stage_effect, "wonder 'giza' side A stage 1: field 'glory': unknown stage effect"),
]


@pytest.mark.parametrize("breaker,message", BROKEN, ids=[b.__name__.strip("_") for b, _ in BROKEN])
def test_broken_data_api(data_doc, breaker, message):
    doc = copy.deepcopy(data_doc)
    breaker(doc)
    with pytest.raises(DataError) as err:
        compile_text(yaml.safe_dump(doc, sort_keys=False), source="broken.yaml")
    assert str(err.value).startswith(f"broken.yaml: {message}")


@pytest.mark.parametrize("breaker,message", BROKEN, ids=[b.__name__.strip("_") for b, _ in BROKEN])
def test_broken_data_cli(tmp_path, data_doc, breaker, message):
    doc = copy.deepcopy(data_doc)
    breaker(doc)
    path = tmp_path / "broken.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    result = run_cli("--data", str(path), "cards")
    assert result.exit_code == 2
    assert last_error_line(result).startswith(f"Error: {path}: {message}")  # the path as given
    assert "Traceback" not in result.output + result.stderr
    assert result.stdout == ""


def test_wsim_data_environment_variable(tmp_path, data_doc):
    doc = copy.deepcopy(data_doc)
    _unknown_colour(doc)
    path = tmp_path / "env.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    result = run_cli("cards", env={"WSIM_DATA": str(path)})
    assert result.exit_code == 2
    assert last_error_line(result).startswith(f"Error: {path}: ") and "field 'color'" in last_error_line(result)


def test_unreadable_and_invalid_yaml(tmp_path):
    result = run_cli("--data", str(tmp_path / "missing.yaml"), "cards")
    assert result.exit_code == 2 and "cannot read the data file" in last_error_line(result)
    bad = tmp_path / "bad.yaml"
    bad.write_text("cards: [\n")
    result = run_cli("--data", str(bad), "cards")
    assert result.exit_code == 2 and last_error_line(result).startswith(f"Error: {bad}: not valid YAML")


def test_counts(tables):
    assert tables.n_cards == 78
    assert len(tables.names) == 75  # Loom, Glassworks, Press exist in Age I and II
    ages = list(tables.card_age)
    assert (ages.count(1), ages.count(2), ages.count(3)) == (27, 23, 28)
    assert int(np.sum(tables.ent_kind[:78] == codes.PURPLE)) == 10
    assert tables.board_ids == ("rhodes", "alexandria", "ephesus", "babylon", "olympia",
                                "halicarnassus", "giza", "manneken_pis")
    # copies at 7 players: 49 / 49 / 40 non-guild (docs/rules.md §1)
    at7 = [int(tables.card_copies[tables.card_age == a, 7].sum()) for a in (1, 2, 3)]
    assert at7 == [49, 49, 40]


@pytest.mark.parametrize("n", range(3, 8))
def test_deck_sizes(tables, n):
    for age in (1, 2, 3):
        size = int(tables.card_copies[tables.card_age == age, n].sum())
        assert size + (n + 2 if age == 3 else 0) == 7 * n


def test_name_id_round_trip(tables):
    for c, name in enumerate(tables.card_names):
        cid = tables.card_id(name)
        assert tables.card_names[cid] == name
        assert tables.card_name_id[cid] == tables.card_name_id[c]
    assert tables.card_id("bazaar") == tables.card_id("Bazar")
    assert tables.card_id("Craftsmen's Guild") == tables.card_id("Craftsmens Guild")
    assert tables.card_id("caravansary") == tables.card_id("Caravansery")
    assert tables.card_age[tables.card_id("Loom")] == 1
    for b, wid in enumerate(tables.board_ids):
        assert tables.board_id(wid) == b
    with pytest.raises(KeyError):
        tables.card_id("Aquaduct")
    with pytest.raises(KeyError):
        tables.board_id("atlantis")


def test_spot_checks(tables):
    t = tables
    wood, stone, clay, ore, glass, loom, papyrus = range(7)
    cara = t.card_id("Caravansery")
    assert t.ent_choice[cara] == 0b0001111 and t.ent_tradeable[cara] == 0
    assert list(t.ent_cost[cara]) == [2, 0, 0, 0, 0, 0, 0]
    assert t.card_name_id[t.card_id("Marketplace")] in t.card_chain[cara]
    forum = t.card_id("Forum")
    assert t.ent_choice[forum] == 0b1110000 and t.ent_tradeable[forum] == 0
    vine = t.card_id("Vineyard")
    assert list(t.ent_coins_per[vine]) == [1, 1 << codes.BROWN, 7]
    haven = t.card_id("Haven")
    assert list(t.ent_points_per[haven]) == [1, 1 << codes.BROWN, codes.SCOPE_SELF]
    ship = t.card_id("Shipowners Guild")
    assert list(t.ent_points_per[ship]) == [1, (1 << codes.BROWN) | (1 << codes.GREY) | (1 << codes.PURPLE), 1]
    strat = t.card_id("Strategists Guild")
    assert list(t.ent_points_per[strat]) == [1, effects.COUNT_DEFEATS, codes.SCOPE_LEFT | codes.SCOPE_RIGHT]
    olympia = t.board_id("olympia")
    e = t.stage_entity(olympia, 1, 0)
    assert t.ent_discount[e] == codes.DISC_RAW_LEFT | codes.DISC_RAW_RIGHT
    assert list(t.ent_cost[e]) == [2, 0, 0, 0, 0, 0, 0]
    east, west = t.card_id("East Trading Post"), t.card_id("West Trading Post")
    assert t.ent_discount[east] == codes.DISC_RAW_RIGHT and t.ent_discount[west] == codes.DISC_RAW_LEFT
    assert t.ent_discount[t.card_id("Marketplace")] == codes.DISC_MANUF_LEFT | codes.DISC_MANUF_RIGHT
    assert list(t.ent_prod[t.card_id("Sawmill")]) == [2, 0, 0, 0, 0, 0, 0]
    assert t.ent_coin_cost[t.card_id("Sawmill")] == 1
    assert t.ent_choice[t.card_id("Tree Farm")] == (1 << wood) | (1 << clay)
    assert list(t.card_copies[t.card_id("Lumber Yard")][3:]) == [1, 2, 2, 2, 2]
    assert t.ent_science[t.card_id("Scientists Guild")] == codes.SCI_ANY
    pal = t.card_id("Palace")
    assert list(t.ent_cost[pal]) == [1] * 7 and t.ent_points[pal] == 8
    rhodes = t.board_id("rhodes")
    assert t.board_stages[rhodes, 0] == 3 and t.board_stages[rhodes, 1] == 2
    b1 = t.stage_entity(rhodes, 1, 0)
    assert (t.ent_shields[b1], t.ent_coins[b1], t.ent_points[b1]) == (1, 3, 3)
    assert t.stage_entity(rhodes, 1, 2) == -1
    giza = t.board_id("giza")
    assert t.board_stages[giza, 1] == 4
    mp = t.board_id("manneken_pis")
    assert t.board_resource[mp] == -1 and t.board_coins[mp] == 7 and t.board_promo[mp] == 1
    s3 = t.stage_entity(mp, 0, 2)
    assert t.ent_power[s3] == codes.POW_COPY_STAGE and [t.ent_copy_stage[s3], t.ent_copy_of[s3]] == [2, codes.COPY_CHOICE]
    assert list(t.ent_cost[s3]) == [0, 0, 0, 0, 1, 1, 1]
    alex = t.board_id("alexandria")
    assert t.ent_choice[t.stage_entity(alex, 1, 1)] == 0b1110000
    assert t.board_resource[alex] == glass


def test_tables_are_read_only(tables):
    with pytest.raises(ValueError):
        tables.ent_cost[0, 0] = 5
