"""The cost and chain levers of --edit, and `ablate --against` (issue 40): each form changes what
it says, round-trips through the data file it writes, never changes the deal, and a bad one is
refused with a clear error."""

import re

import numpy as np
import pytest
import yaml

from clikit import last_error_line, run_cli
from wsim import tables as tables_mod
from wsim.analysis.edits import EditError, apply_edits, check_against
from wsim.kernels.deal import deal
from wsim.tables import compile_text
from wsim.yamlfile import parse


def _stage(t, wonder, side, k):
    return t.stage_entity(t.board_id(wonder), "AB".index(side), k - 1)


def _cost(t, e) -> dict:
    from wsim.codes import RESOURCES

    out = {r: int(n) for r, n in zip(RESOURCES, t.ent_cost[e]) if n}
    if t.ent_coin_cost[e]:
        out["coins"] = int(t.ent_coin_cost[e])
    return out


@pytest.mark.parametrize("edit, subject, before, after", [
    ("giza/A.stage3.cost=stone", ("giza", "A", 3), {"stone": 4}, {"stone": 1}),
    ("giza/A.stage3.cost+=papyrus", ("giza", "A", 3), {"stone": 4}, {"stone": 4, "papyrus": 1}),
    ("babylon/B.stage2.cost=clay:3", ("babylon", "B", 2), {"wood": 2, "glass": 1}, {"clay": 3}),
    ("Builders Guild.cost+=stone", "Builders Guild", {"stone": 2, "clay": 2, "glass": 1},
     {"stone": 3, "clay": 2, "glass": 1}),
    ("Spies Guild.cost-=clay", "Spies Guild", {"clay": 3, "glass": 1}, {"clay": 2, "glass": 1}),
    ("Baths.cost=coins:2,wood", "Baths", {"stone": 1}, {"wood": 1, "coins": 2}),
    ("Tavern.cost+=coins", "Tavern", {}, {"coins": 1}),
    ("Baths.cost=free", "Baths", {"stone": 1}, {}),
])
def test_a_cost_edit_sets_adds_or_takes_resources(tables, edit, subject, before, after):
    e = _stage(tables, *subject) if isinstance(subject, tuple) else tables.card_id(subject)
    assert _cost(tables, e) == before
    edited = apply_edits(tables, [edit])
    assert _cost(edited, e) == after
    others = np.ones(len(tables.ent), bool)
    others[e] = False
    if isinstance(subject, str):  # every copy of the card, and nothing else
        copies = [i for i, n in enumerate(tables.card_names) if n == subject]
        others[copies] = False
        assert all(_cost(edited, i) == after for i in copies)
    assert (edited.ent[others] == tables.ent[others]).all()


def test_points_take_the_operator_form_too(tables):
    altar = tables.card_id("Altar")
    assert apply_edits(tables, ["Altar.points+=1"]).ent_points[altar] == tables.ent_points[altar] + 1
    assert (apply_edits(tables, ["Altar.points-=1"]).ent == apply_edits(tables, ["Altar.points=-1"]).ent).all()


def test_a_chain_edit_adds_and_drops_links(tables):
    aqueduct, baths = tables.card_id("Aqueduct"), tables.card_id("Baths")
    lumber = tables.card_name_id[tables.card_id("Lumber Yard")]
    assert tables.chain_sources(aqueduct) == [int(tables.card_name_id[baths])]
    added = apply_edits(tables, ["Lumber Yard.chain_to=Aqueduct"])
    assert added.chain_sources(aqueduct) == sorted([int(tables.card_name_id[baths]), int(lumber)])
    assert apply_edits(tables, ["Baths.chain_to-=Aqueduct"]).chain_sources(aqueduct) == []
    assert apply_edits(tables, ["Baths.chain_to=none"]).chain_sources(aqueduct) == []


@pytest.mark.parametrize("edits", [
    ["giza/A.stage3.cost=stone"], ["Builders Guild.cost+=stone", "Spies Guild.cost-=clay"],
    ["Lumber Yard.chain_to=Aqueduct"], ["Baths.chain_to=none", "Altar.points+=1"],
])
def test_each_form_round_trips_through_the_data_file_it_writes(tables, edits, tmp_path):
    edited = apply_edits(tables, edits)
    path = tmp_path / "edited.yaml"
    path.write_bytes(edited.raw)
    again = tables_mod.load(path)
    for a, b in ((edited, again), (edited, compile_text(edited.raw.decode(), source="again"))):
        assert (a.ent == b.ent).all() and (a.board == b.board).all() and (a.card_chain == b.card_chain).all()
    for players in (2, 4, 7):  # the deal never changes
        assert all((x == y).all() for x, y in zip(deal(tables, players, 3, 9), deal(edited, players, 3, 9)))


@pytest.mark.parametrize("edit, message", [
    ("Baths.cost=unobtainium", "RESOURCE one of wood, stone"),
    ("Baths.cost-=stone:2", "a cost cannot be negative"),
    ("Baths.cost=stone:0", "a count is 1 or more"),
    ("giza/A.stage1.cost=coins:2", "a wonder stage costs resources only"),
    ("Baths.cost+=free", "`free` goes with cost="),
    ("Baths.chain_to=Baths", "a chain to itself"),
    ("Aqueduct.chain_to=Baths", "must come from an earlier age"),
    ("Baths.chain_to=Atlantis", "unknown card 'Atlantis'"),
    ("Altar.chain_to-=Aqueduct", "Aqueduct has no chain from Altar"),
    ("giza/A.stage1.chain_to=Baths", "a wonder stage has none"),
    ("Altar.points+=+1", "takes a whole number N"),
])
def test_bad_cost_and_chain_edits_are_refused(tables, edit, message):
    with pytest.raises(EditError, match=re.escape(message)):
        apply_edits(tables, [edit])


def test_a_bad_edit_on_the_command_line_is_exit_2_with_one_error_line(tmp_path):
    out = tmp_path / "rep"
    result = run_cli("ablate", "--edit", "Baths.cost=unobtainium", "--games", "10", "--out", str(out))
    assert result.exit_code == 2
    assert last_error_line(result).startswith("Error: --edit 'Baths.cost=unobtainium': a cost is")
    assert not out.exists()
    result = run_cli("ablate", "--games", "10", "--out", str(out))
    assert result.exit_code == 2 and "give --edit" in last_error_line(result)


def test_against_refuses_another_deck_and_an_identical_file(tables):
    with pytest.raises(EditError, match="play the same"):
        check_against(tables, tables, "A.yaml")
    renamed = compile_text(tables.raw.decode().replace("name: Lumber Yard", "name: Lumber Mill", 1), source="other")
    with pytest.raises(EditError, match="play the same"):  # a name alone changes no game
        check_against(tables, renamed, "A.yaml")
    doc = parse(tables.raw)
    doc["cards"].append(doc["cards"].pop(0))  # the same cards, another order: other deals
    other = compile_text(yaml.safe_dump(doc, sort_keys=False), source="other")
    with pytest.raises(EditError, match="would not play the same deals"):
        check_against(tables, other, "A.yaml")
    check_against(tables, apply_edits(tables, ["Baths.cost+=wood"]), "A.yaml")
