"""wsim.cards, wsim.score and wsim.trade: the documents the command line prints with --json,
from a scenario's path or its mapping, and every mistake a WsimError naming the argument."""

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

import wsim
from clikit import run_cli

DATA = Path(__file__).parent / "data"
SCORE = DATA / "score-example.yaml"
TRADE = DATA / "trade-example.yaml"


def _expected(name: str) -> dict:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def test_score_and_trade_give_the_worked_examples_from_a_path_or_a_mapping():
    assert wsim.score(SCORE) == wsim.score(str(SCORE)) == _expected("score-example.json")
    assert wsim.score(yaml.safe_load(SCORE.read_text())) == _expected("score-example.json")
    assert wsim.trade(TRADE, 0, card="University") == _expected("trade-example.json")
    assert wsim.trade(yaml.safe_load(TRADE.read_text()), 0, card=" univer-SITY ") == _expected("trade-example.json")


def test_a_stage_question_is_the_command_lines():
    cli = json.loads(run_cli("trade", str(TRADE), "--seat", "2", "--stage", "--json").stdout)
    doc = wsim.trade(TRADE, np.int64(2), stage=True)  # numpy's whole numbers are whole numbers too
    assert doc == cli and doc["target"] != _expected("trade-example.json")["target"]
    assert wsim.cards(age=np.int32(2)) == wsim.cards(age=2)


@pytest.mark.parametrize("args, options", [({}, []), ({"age": 2}, ["--age", "2"]),
                                           ({"age": 3, "players": 5}, ["--age", "3", "--players", "5"])])
def test_cards_is_the_command_lines_document(args, options):
    doc = wsim.cards(**args)
    assert doc == json.loads(run_cli("cards", *options, "--json").stdout)
    if "age" in args:
        assert doc["cards"] and all(c["age"] == args["age"] for c in doc["cards"])


@pytest.mark.parametrize("call, message", [
    (lambda: wsim.cards(age=4), "age: must be a whole number from 1 to 3, got 4"),
    (lambda: wsim.cards(age=True), "age: must be a whole number from 1 to 3, got True"),
    (lambda: wsim.cards(players=2), "players: must be a whole number from 3 to 7, got 2"),
    (lambda: wsim.cards(players="5"), "players: must be a whole number from 3 to 7, got '5'"),
    (lambda: wsim.score(42), "scenario: must name a scenario file (its path) or be its mapping, got 42"),
    (lambda: wsim.score(DATA / "nope.yaml"), "nope.yaml: cannot read the file"),
    (lambda: wsim.score({"age": 9}), "scenario: age: must be 1, 2 or 3, got 9"),
    (lambda: wsim.trade(TRADE, 0), "give exactly one of card=NAME or stage=True"),
    (lambda: wsim.trade(TRADE, 0, card="Altar", stage=True), "give exactly one of card=NAME or stage=True"),
    (lambda: wsim.trade(TRADE, 3, stage=True), "seat: 3 is not a seat of this scenario (0 to 2)"),
    (lambda: wsim.trade(TRADE, "0", stage=True), "seat: '0' is not a seat of this scenario (0 to 2)"),
    (lambda: wsim.trade(TRADE, 0, card="Aquaduct"), "card: unknown card 'Aquaduct' (see `wsim cards` for the names)"),
])
def test_mistakes_are_wsim_errors_named_as_written_in_python(call, message):
    with pytest.raises(wsim.WsimError) as caught:
        call()
    assert message in str(caught.value)
