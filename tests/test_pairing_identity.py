"""A building is paired with the same building only (issue 55): two data files may name two
different buildings alike (a Temple of Age I in one, of Age II in the other), and the paired
report keeps them apart; a card's name is one line of printable text in a data file too."""

import copy
import csv
import io

import pytest
import yaml

from clikit import last_error_line, run_cli
from wsim.analysis.balance.report import apart_labels
from wsim.compiler import DataError
from wsim.tables import compile_text


def _temple_moved(data_doc) -> dict:
    """The shipped data with Altar (Age I) named Temple, worth 3 points, and Age II's Temple named
    Shrine: the same deals, and a Temple that is another building than the shipped one."""
    doc = copy.deepcopy(data_doc)
    renamed = {"Temple": "Shrine", "Altar": "Temple"}
    for card in doc["cards"]:
        if card["name"] == "Altar":
            card["points"] = 3
        card["name"] = renamed.get(card["name"], card["name"])
        if "chain_from" in card:
            card["chain_from"] = [renamed.get(n, n) for n in card["chain_from"]]
    return doc


def test_buildings_named_alike_in_other_ages_are_labelled_apart(tables, data_doc):
    moved = compile_text(yaml.safe_dump(_temple_moved(data_doc), sort_keys=False), source="moved")
    assert apart_labels(tables, moved) == ({"Temple": "Temple (Age 2)"}, {"Temple": "Temple (Age 1)"})
    assert apart_labels(tables, tables) == ({}, {})  # Loom of Ages 1 and 2 is one building in both


def test_ablate_against_pairs_no_two_buildings_of_one_name(data_doc, tmp_path):
    moved = tmp_path / "moved.yaml"
    moved.write_text(yaml.safe_dump(_temple_moved(data_doc), sort_keys=False))
    shipped = tmp_path / "shipped.yaml"
    shipped.write_text(yaml.safe_dump(data_doc, sort_keys=False))
    out = tmp_path / "r"
    result = run_cli("--data", str(moved), "ablate", "--against", str(shipped), "--games", "30", "--players", "3",
                     "--threads", "1", "--quiet", "--out", str(out))
    assert result.exit_code == 0, result.output
    keys = {row["key"] for row in csv.DictReader(io.StringIO((out / "paired.csv").read_text()))}
    assert {"Temple (Age 2)@3", "Temple (Age 1)@3", "Altar@3", "Shrine@3"} <= keys
    assert "Temple@3" not in keys
    assert "Loom@3" in keys  # a building of the same name and ages in both is paired as ever


@pytest.mark.parametrize("name", ["Well\nx", "Well\u2028x", "Well\x1b[2Jx", "We\tll"])
def test_a_data_file_refuses_a_name_with_a_control_character(data_doc, tmp_path, name):
    doc = copy.deepcopy(data_doc)
    doc["cards"][0]["name"] = name
    with pytest.raises(DataError, match="field 'name': holds a control character or a line break; a name is one "
                                        "line of printable text"):
        compile_text(yaml.safe_dump(doc, sort_keys=False), source="named")
    path = tmp_path / "named.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    result = run_cli("--data", str(path), "simulate", "--games", "1", "--out", str(tmp_path / "ds"))
    assert result.exit_code == 2 and "holds a control character or a line break" in last_error_line(result)
    assert not (tmp_path / "ds").exists()
