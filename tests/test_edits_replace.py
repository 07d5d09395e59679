"""A card replaced by another (issue 40): `CARD=replace:{...}` for every copy, `CARD@N=replace:{...}`
for the copies entering at some player counts (the card taken out of those counts). The new card
is dealt exactly where the old one was, so the deals stay paired; anything else that would move
a card in the deck is refused."""

import re

import pytest
import yaml

from clikit import last_error_line, run_cli
from wsim import codes
from wsim import tables as tables_mod
from wsim.analysis.edits import EditError, apply_edits, check_against, deal_differences, replacement_words
from wsim.compiler import DataError
from wsim.kernels.deal import deal
from wsim.tables import compile_text
from wsim.yamlfile import parse

DECORATORS = "Strategists Guild=replace:{name: Decorators Guild, cost: {ore: 2, stone: 1, loom: 1}, points: 7}"
CASTRUM = "Arsenal@4=replace:{name: Castrum, cost: {clay: 2, wood: 1, papyrus: 1}, shields: 3}"


def _names(t, players, seed=5, game=11) -> list:
    """Every hand of one deal, as card names (ages x seats x cards)."""
    hands = deal(t, players, seed, game)[2]
    return [[[t.card_names[c] for c in seat] for seat in age] for age in hands]


def test_a_guild_replaced_keeps_its_place_and_its_deals(tables):
    edited = apply_edits(tables, [DECORATORS])
    c = tables.card_id("Strategists Guild")
    assert edited.card_names[c] == "Decorators Guild" and edited.n_cards == tables.n_cards
    assert (edited.card_age[c], edited.ent_kind[c], edited.ent_points[c]) == (3, codes.PURPLE, 7)
    assert [int(n) for n in edited.ent_cost[c]] == [0, 1, 0, 2, 0, 1, 0]  # wood stone clay ore glass loom papyrus
    assert edited.ent_points_per[c].tolist() == [0, 0, 0]  # nothing of the Strategists' effect is left
    assert deal_differences(tables, edited) == [("Strategists Guild", "Decorators Guild", [])]
    for players in (3, 5, 7):  # the same deals, the new guild wherever the old one was dealt
        before, after = _names(tables, players), _names(edited, players)
        swapped = [[[("Decorators Guild" if n == "Strategists Guild" else n) for n in s] for s in a] for a in before]
        assert after == swapped


def test_a_copy_replaced_at_some_counts_takes_its_place_in_the_deck(tables):
    edited = apply_edits(tables, [CASTRUM])
    assert edited.n_cards == tables.n_cards + 1
    arsenal, castrum = edited.card_id("Arsenal"), edited.card_id("Castrum")
    assert castrum == arsenal + 1  # right after the card it replaces: the deck's order is kept
    assert [int(x) for x in tables.card_players[tables.card_id("Arsenal")] if x] == [3, 4, 7]
    assert [int(x) for x in edited.card_players[arsenal] if x] == [3, 7]
    assert [int(x) for x in edited.card_players[castrum] if x] == [4]
    assert (edited.ent_shields[castrum], edited.ent_kind[castrum]) == (3, codes.RED)  # the colour kept
    assert deal_differences(tables, edited) == [("Arsenal", "Castrum", [4, 5, 6, 7])]
    assert replacement_words(deal_differences(tables, edited)[0]) == "Arsenal -> Castrum at 4-7 players"
    assert _names(tables, 3) == _names(edited, 3)  # no copy replaced at 3 players
    for players in (4, 7):
        before, after = _names(tables, players), _names(edited, players)
        diff = [(x, y) for a, b in zip(before, after) for s, t in zip(a, b) for x, y in zip(s, t) if x != y]
        # Arsenal's 4+ copy, wherever the deal put it (if it was dealt, it is the Castrum now)
        assert set(diff) <= {("Arsenal", "Castrum")} and len(diff) <= 1


def test_a_whole_replacement_drops_the_chains_to_the_old_building(tables):
    edited = apply_edits(tables, ["Baths=replace:{name: Well, points: 3}"])
    assert edited.chain_sources(edited.card_id("Aqueduct")) == []
    kept = apply_edits(tables, ["Baths@7=replace:{name: Well, points: 3}"])  # Baths has a 7+ copy
    assert kept.chain_sources(kept.card_id("Aqueduct")) == [int(kept.card_name_id[kept.card_id("Baths")])]
    chained = apply_edits(tables, ["Baths=replace:{name: Well, points: 3}", "Well.chain_to=Statue"])
    assert chained.chain_sources(chained.card_id("Statue")) == sorted(
        [int(chained.card_name_id[chained.card_id("Well")]), *tables.chain_sources(tables.card_id("Statue"))])


@pytest.mark.parametrize("edits", [[DECORATORS], [CASTRUM], [DECORATORS, CASTRUM, "Castrum.coins+=1"]])
def test_a_replacement_round_trips_through_the_data_file_it_writes(tables, edits, tmp_path):
    edited = apply_edits(tables, edits)
    path = tmp_path / "edited.yaml"
    path.write_bytes(edited.raw)
    again = tables_mod.load(path)
    assert again.card_names == edited.card_names and (again.ent == edited.ent).all()
    assert (again.card_chain == edited.card_chain).all()
    check_against(tables, again, "A.yaml")  # a whole file with the replacement pairs with the original


@pytest.mark.parametrize("edit, message", [
    ("Strategists Guild=replace:{name: Decorators Guild, age: 2}", "the replaced card's age and copies are kept"),
    ("Arsenal=replace:{name: Castrum, players: [4]}", "not players"),
    ("Strategists Guild=replace:{name: Barracks2, color: red}", "a guild is replaced by a guild"),
    ("Arsenal=replace:{name: New Guild, color: purple}", "a guild is replaced by a guild"),
    ("Arsenal@5=replace:{name: Castrum}", "Arsenal (Age 3) has no copy that enters at 5 players"),
    ("Spies Guild@4=replace:{name: Castrum}", "a guild has no copies by player count"),
    ("Arsenal=replace:{shields: 3}", "a card entry with a name"),
    ("Arsenal=replace:{name: Castrum, shields: 3", "replace: takes a card entry"),
    ("Arsenal=replace:{name: Fortifications}",
     "replace: the name 'Fortifications' is taken: Fortifications is a building of Age 3; a new card takes a name "
     "unused in the deck"),
    ("Altar=replace:{name: Temple, points: 3}", "the name 'Temple' is taken: Temple is a building of Age 2"),
    ("Altar=replace:{name: LOOM}", "the name 'LOOM' is taken: Loom is a building of Ages 1, 2"),
    ("Altar=replace:{name: Caravanserai}", "the name 'Caravanserai' is taken: Caravansery is a building of Age 2"),
    ("Temple=replace:{name: temple, points: 4}",
     "replace: the new card takes the name of the card it replaces (Temple), and the report would pair the two as one "
     "building; edit Temple's fields instead (Temple.points=..., Temple.cost=..., Temple=neutral) or give the new "
     "card a name of its own"),
    ("Bazar=replace:{name: Bazaar}", "takes the name of the card it replaces (Bazar)"),
    ("Arsenal@4=replace:{name: Arsenal, shields: 3}", "takes the name of the card it replaces (Arsenal)"),
    ("Altar=replace:{name: Well, chain_from: [Altar]}",
     "replace: the new card cannot chain from Altar, the card it replaces (a chain comes from a building of an "
     "earlier age)"),
    ("Arsenal@=replace:{name: Castrum}",
     "'Arsenal@': write CARD@N[,N...] with the player counts whose copies are replaced (e.g. Arsenal@4,7), or "
     "CARD=replace:{...} for every copy"),
    ("Arsenal@.points=3", "'Arsenal@': CARD@N (some copies) goes with replace:{...} only"),
    ('Altar=replace:{name: "Well\\nx", points: 3}',
     "replace: the name 'Well\\nx' holds a control character or a line break; a name is one line of printable text"),
    ('Altar=replace:{name: "Well\\u2028x"}', "holds a control character or a line break"),
    ("giza/A.stage1=replace:{name: X}", "a wonder stage is edited field by field"),
    ("Atlantis=replace:{name: X}", "unknown card 'Atlantis'"),
])
def test_bad_replacements_are_refused(tables, edit, message):
    with pytest.raises(EditError, match=re.escape(message)):
        apply_edits(tables, [edit])


def test_a_new_card_named_like_a_card_an_earlier_edit_replaced_is_refused(tables):
    """Well replaces Baths, then Baths would come back in Well's place: a card of the baseline's
    name in another place, which the report would pair with the baseline's Baths."""
    with pytest.raises(EditError, match=re.escape(
            "--edit 'Well=replace:{name: Baths}': replace: the name 'Baths' is taken: Baths is a card of the data "
            "that an earlier edit replaced")):
        apply_edits(tables, ["Baths=replace:{name: Well}", "Well=replace:{name: Baths}"])
    apply_edits(tables, ["Baths=replace:{name: Well}", "Well=replace:{name: Spring}"])  # a new name is taken


def test_ablate_refuses_a_replacement_named_like_another_building_before_playing(tmp_path):
    out = tmp_path / "t"
    result = run_cli("ablate", "--threads", "1", "--games", "40", "--players", "3", "--policy", "heuristic",
                     "--edit", "Altar=replace:{name: Temple, points: 3}", "--out", str(out))
    assert result.exit_code == 2
    assert last_error_line(result) == ("Error: --edit 'Altar=replace:{name: Temple, points: 3}': replace: the name "
                                       "'Temple' is taken: Temple is a building of Age 2; a new card takes a name "
                                       "unused in the deck")
    assert "replaced:" not in result.stdout and not out.exists()


def test_a_removal_that_leaves_a_deck_short_is_refused(tables):
    """A copy taken out of a count with nothing in its place would leave that deck a card short:
    the data file's own check refuses it (a card leaves a count only with a replacement)."""
    doc = parse(tables.raw)
    arsenal = next(c for c in doc["cards"] if c["name"] == "Arsenal")
    arsenal["players"] = [3, 7]
    with pytest.raises(DataError, match="the Age 3 deck for 4 players has 27 cards"):
        compile_text(yaml.safe_dump(doc, sort_keys=False), source="short")


def test_ablate_names_the_replacements_and_refuses_one_out_of_play(tmp_path):
    out = tmp_path / "rep"
    result = run_cli("ablate", "--edit", CASTRUM, "--games", "200", "--players", "4", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "replaced: Arsenal -> Castrum at 4-7 players" in result.stdout.splitlines()
    result = run_cli("ablate", "--edit", CASTRUM, "--games", "200", "--players", "3", "--out", str(tmp_path / "r3"))
    assert result.exit_code == 2 and last_error_line(result).endswith(
        "Arsenal is not in play in these games (no copy replaced in a 3-player deck)")
    assert not (tmp_path / "r3").exists()


def test_a_learned_population_refuses_a_replacement_before_playing(tmp_path):
    """The learned model's features are named by building: a replaced card is one it never saw,
    and the refusal comes before the baseline is played, not after it."""
    out = tmp_path / "rep"
    result = run_cli("ablate", "--edit", "Pawnshop=replace:{name: Well, points: 3}", "--policy", "learned",
                     "--games", "50", "--players", "4", "--out", str(out))
    assert result.exit_code == 2 and "a building it never saw" in last_error_line(result)
    assert "baseline:" not in result.stderr and not out.exists()
