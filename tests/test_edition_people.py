"""People's games (Board Game Arena, March 2020) are of the first edition: a second-edition
population (`wsim --edition 2`, other boards and cards) is never set beside them. The people
columns and distance lines of every page (wsim/people/columns.py), the simulate summary, the
refusals of `wsim people` and `survey --reference people`, and the atlas's player counts and
pages per edition (docs/people.md, "The second edition")."""

import math

import pandas as pd
import pytest
from clikit import last_error_line, run_cli

from wsim import tables as tables_mod
from wsim.balance_atlas import pages
from wsim.balance_atlas.findings import character_findings
from wsim.balance_atlas.plan import AtlasError, default_counts, make_plan
from wsim.balance_atlas.site import commands
from wsim.people import columns
from wsim.people.aggregate import Aggregate

FIRST = "are of the first edition: no comparison for the second edition"


@pytest.fixture(scope="module")
def second():
    return tables_mod.load(tables_mod.edition_path(2))


@pytest.fixture(scope="module")
def first():
    return tables_mod.load()


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A tiny second-edition dataset and the summary `wsim --edition 2 simulate` printed."""
    out = tmp_path_factory.mktemp("e2") / "ds"
    result = run_cli("--edition", "2", "simulate", "--players", "4", "--games", "20", "--chunk-size", "10",
                     "--threads", "1", "--quiet", "--out", str(out))
    assert result.exit_code == 0, result.stderr
    return out, result.stdout


def test_the_people_are_of_the_first_edition():
    assert columns.PEOPLE_EDITION == 1
    assert columns.has_people(4, 1) and not columns.has_people(2, 1)
    assert not any(columns.has_people(p, 2) for p in range(2, 8))
    line = columns.no_people_line(2)
    assert line == "people's games (Board Game Arena, 2020) " + FIRST


def test_distance_lines_say_why_there_is_none(second):
    some = {"random": Aggregate(), "heuristic": Aggregate()}
    assert columns.distance_lines(some, 4, 2) == [columns.no_people_line(2)]
    assert columns.distance_lines(some, [3, 4, 5], 2) == [columns.no_people_line(2)]
    assert columns.distance_lines({}, 2, 1) == ["no people data at 2 players: each side's people column is empty"]


def test_the_people_columns_are_empty_for_the_second_edition():
    table = pd.DataFrame({"players": [4, 4, 5], "wonder": ["giza", "rhodes", "babylon"], "side": ["B", "A", "B"]})
    one, two = columns.with_people(table, 1), columns.with_people(table, 2)
    assert list(two.columns) == list(table.columns) + list(columns.PEOPLE_COLUMNS)
    assert two[list(columns.PEOPLE_COLUMNS)].isna().all().all()
    assert not math.isnan(one.people_rate.iloc[0]) and one.people_seats.iloc[0] > 0  # people played Giza B at 4
    note = columns.heading_note(2)
    assert note.startswith("The people columns are empty: people&#x27;s games") and "8,357" not in note
    assert "Board Game Arena games (March 2020" in columns.heading_note(1)


def test_reference_rows_refuse_the_second_edition():
    in_play = {"giza": {"A", "B"}}
    assert columns.reference_rows(4, in_play, 1)
    with pytest.raises(ValueError, match=FIRST):
        columns.reference_rows(4, in_play, 2)


def test_the_simulate_summary_says_why_it_compares_with_no_people(played):
    _, text = played
    assert "Wald χ²" not in text and "beside people" not in text
    assert f"players: random; people's games (Board Game Arena, 2020) {FIRST}" in text.splitlines()


def test_a_balance_report_of_the_second_edition_has_empty_people_columns(played, tmp_path):
    dataset, _ = played
    out = tmp_path / "b"
    result = run_cli("balance", str(dataset), "--out", str(out))  # the dataset carries its edition's data
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == columns.no_people_line(2)
    wonders = pd.read_csv(out / "wonders.csv")
    assert len(wonders) and wonders[list(columns.PEOPLE_COLUMNS)].isna().all().all()
    page = (out / "index.html").read_text()
    assert "The people columns are empty" in page and "Board Game Arena games (March 2020" not in page


def test_wsim_people_refuses_the_second_edition(played, tmp_path):
    out = tmp_path / "p"
    result = run_cli("--edition", "2", "people", "--players", "4", "--games", "200", "--quiet", "--out", str(out))
    assert result.exit_code == 2 and last_error_line(result).startswith("Error: the card data cards-2e.yaml is of the "
                                                                        "second edition (2020): people's games")
    assert FIRST in last_error_line(result) and not out.exists()
    dataset, _ = played  # a second-edition dataset, without --edition, is refused the same way
    result = run_cli("people", str(dataset), "--players", "4", "--out", str(out))
    assert result.exit_code == 2
    assert last_error_line(result).startswith(f"Error: the dataset {dataset} is of the second")
    assert not out.exists()


def test_survey_reference_people_is_refused_for_the_second_edition(tmp_path):
    out = tmp_path / "s"
    result = run_cli("--edition", "2", "survey", "--reference", "people", "--population", "a=random",
                     "--players", "4", "--games", "100", "--threads", "1", "--quiet", "--out", str(out))
    assert result.exit_code == 2, result.stderr
    assert last_error_line(result).startswith("Error: --reference people: people's games") and FIRST in result.stderr
    assert not out.exists()


def test_the_atlas_counts_follow_the_edition(first, second, tmp_path):
    assert default_counts(first) == (2, 3, 4, 5, 6, 7) and default_counts(second) == (3, 4, 5, 6, 7)
    assert make_plan(first, None, 0, True).counts == (2, 3, 4, 5, 6, 7)
    assert make_plan(second, None, 0, True).counts == (3, 4, 5, 6, 7)
    assert make_plan(second, [5, 3], 0, True).counts == (3, 5)
    with pytest.raises(AtlasError, match=r"players: the second edition \(2020\) is played by 3 to 7 players"):
        make_plan(second, [2, 3], 0, True)
    out = tmp_path / "a"
    result = run_cli("--edition", "2", "atlas", "--quick", "--players", "2", "--out", str(out))
    assert result.exit_code == 2 and "second edition (2020) is played by 3 to 7" in last_error_line(result)
    assert not out.exists()


def test_a_second_edition_atlas_claims_no_people(second):
    plan = make_plan(second, None, 0, True)
    lines = commands(plan, second, None)
    assert lines[0].startswith("wsim --edition 2 atlas --players 3,4,5,6,7 ")
    assert all(line.startswith("wsim --edition 2 survey") and "--reference" not in line for line in lines[1:])
    character = pd.DataFrame([{"players": 4, "metric": "close_share", "population": "learned", "value": 0.3}])
    assert "people" in character_findings(character, 1)[0][1]
    assert "people" not in character_findings(character, 2)[0][1]
    from test_atlas_pages import _tables

    tables = _tables()
    site = pages.site_pages(tables, {"title": "t", "data": "cards-2e.yaml", "edition": 2})
    index, count = site["index.html"].decode(), site["players-4.html"].decode()
    assert "the first edition: no comparison for the second edition: the people columns are empty" in index
    assert "against people's games" not in count and "distance to people" not in count
    assert count.count("no comparison for the second edition") == 2  # the verdicts' paragraph, the ladder's
    assert "against people's games" in pages.site_pages(tables, {"title": "t"})["players-4.html"].decode()
