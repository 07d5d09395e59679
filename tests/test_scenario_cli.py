"""`wsim score` and `wsim trade` on scenario files (docs/interfaces.md §0 and §1).

The worked examples must come out byte for byte; every mistake in a scenario file or in the
options must exit 2 with one `Error: ...` line on stderr, no traceback and nothing on stdout.
"""

import json
from pathlib import Path

import pytest

from clikit import last_error_line, run_cli
from wsim import scenario

DATA = Path(__file__).parent / "data"

BASE = """\
players:
  - {wonder: babylon, side: A}
  - {wonder: olympia, side: B}
  - {wonder: giza, side: A}
"""


# ---------------------------------------------------------------------------------------------
# The worked examples

def test_score_example_byte_for_byte():
    result = run_cli("score", str(DATA / "score-example.yaml"), "--json")
    assert result.exit_code == 0, result.stderr
    expected = (DATA / "score-example.json").read_text(encoding="utf-8")
    assert json.loads(result.stdout) == json.loads(expected)
    assert result.stdout == expected.rstrip("\n") + "\n"
    assert result.stderr == ""


def test_trade_example_byte_for_byte():
    result = run_cli("trade", str(DATA / "trade-example.yaml"), "--seat", "0", "--card", "University", "--json")
    assert result.exit_code == 0, result.stderr
    expected = (DATA / "trade-example.json").read_text(encoding="utf-8")
    assert json.loads(result.stdout) == json.loads(expected)
    assert result.stdout == expected.rstrip("\n") + "\n"


def test_score_json_key_order():
    doc = json.loads(run_cli("score", str(DATA / "score-example.yaml"), "--json").stdout)
    assert list(doc) == ["players", "winners"]
    assert list(doc["players"][0]) == ["seat", "military", "treasury", "wonder", "civilian", "science",
                                       "commercial", "guild", "total"]


def test_trade_json_key_order_and_name_matching():
    result = run_cli("trade", str(DATA / "trade-example.yaml"), "--seat", "0", "--card", " univer-SITY ",
                     "--json")
    doc = json.loads(result.stdout)
    assert list(doc) == ["seat", "target", "free", "coin_cost", "options", "affordable", "legal"]
    assert doc["target"] == "University"


def test_score_table_has_the_same_numbers():
    result = run_cli("score", str(DATA / "score-example.yaml"))
    assert result.exit_code == 0
    out = result.stdout
    assert "left = seat i+1" in out and out.count("left = seat i+1") == 1
    lines = out.splitlines()
    row0 = next(ln for ln in lines if ln.split()[:2] == ["0", "babylon"])
    assert row0.split()[3:11] == ["3", "2", "3", "5", "10", "0", "0", "23"]
    row1 = next(ln for ln in lines if ln.split()[:2] == ["1", "olympia"])
    assert row1.split()[3:11] == ["3", "0", "5", "0", "0", "0", "2", "10"]
    assert "winner: seat 0" in out


def test_trade_text_has_the_same_numbers():
    result = run_cli("trade", str(DATA / "trade-example.yaml"), "--seat", "0", "--card", "University")
    assert result.exit_code == 0
    out = result.stdout
    assert "University" in out and "left = seat i+1" in out
    assert "left  2   right  2   total  4" in out
    assert "affordable: yes" in out and "legal: yes" in out


def test_trade_text_when_every_stage_is_built(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(BASE.replace("{wonder: giza, side: A}", "{wonder: giza, side: A, stages: 3}"))
    result = run_cli("trade", str(path), "--seat", "2", "--stage")
    assert result.exit_code == 0
    assert "giza A stage 4" in result.stdout and "every wonder stage is built" in result.stdout
    assert "legal: no" in result.stdout


def test_json_input_is_accepted(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"players": [{"wonder": "giza", "side": "A", "coins": 14}] * 3}))
    doc = json.loads(run_cli("score", str(path), "--json").stdout)
    assert [p["treasury"] for p in doc["players"]] == [4, 4, 4]
    assert doc["winners"] == [0, 1, 2]


def test_defaults(tables, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(BASE)
    pos = scenario.load(path, tables)
    city = pos.cities[0]
    assert (city.stages, city.cards, city.coins, city.tokens, city.copy3) == (0, [], 3, [], -1)
    assert pos.n == 3 and tables.board_ids[pos.cities[2].board] == "giza" and pos.cities[1].side == 1


def test_cards_resolve_names_and_aliases(tables, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(BASE.replace("{wonder: babylon, side: A}",
                                 "{wonder: babylon, side: A, cards: [bazaar, 'CARAVANSARY', lumber-yard, "
                                 "\"Craftsmen's Guild\", press]}"))
    pos = scenario.load(path, tables)
    assert [tables.card_names[c] for c in pos.cities[0].cards] == [
        "Bazar", "Caravansery", "Lumber Yard", "Craftsmens Guild", "Press"]


def test_copy3_is_stored(tables, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(BASE.replace("{wonder: babylon, side: A}",
                                 "{wonder: manneken_pis, side: A, stages: 3, copy3: right}"))
    assert scenario.load(path, tables).cities[0].copy3 == 1  # codes.COPY_RIGHT


# ---------------------------------------------------------------------------------------------
# Errors in scenario files (docs/interfaces.md §0): exit 2, one `Error:` line, nothing else

def check_error(result, *fragments):
    """Exit 2, no traceback, nothing on stdout, and a last stderr line naming the problem."""
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    line = last_error_line(result)
    assert line.startswith("Error: ")
    for fragment in fragments:
        assert fragment in line, line
    return line


def seat0(fields: str) -> str:
    """BASE with seat 0's flow mapping replaced."""
    return BASE.replace("{wonder: babylon, side: A}", "{" + fields + "}")


SCENARIO_ERRORS = [
    # (file text, fragments the message must contain)
    ("players: [\n  - {wonder: giza", ["not valid YAML", "line"]),
    ("", ["expected a mapping at the top level", "players"]),
    ("- {wonder: giza, side: A}\n", ["expected a mapping at the top level"]),
    ("just a string\n", ["expected a mapping at the top level"]),
    ("age: 3\n", ["players", "required"]),
    ("players: {wonder: giza}\n", ["players", "expected a list"]),
    ("players:\n  - {wonder: giza, side: A}\n  - {wonder: giza, side: A}\n", ["players", "2 seats", "3 to 7"]),
    ("players:\n" + "  - {wonder: giza, side: A}\n" * 8, ["players", "8 seats", "3 to 7"]),
    ("players: []\n", ["players", "0 seats"]),
    (BASE + "seed: 4\n", ["unknown key 'seed'", "allowed: age, players"]),
    ("age: 0\n" + BASE, ["age", "1, 2 or 3", "0"]),
    ("age: 4\n" + BASE, ["age", "4"]),
    ("age: '3'\n" + BASE, ["age", "'3'"]),
    ("age: 3\nage: 2\n" + BASE, ["'age' given twice"]),
    (BASE.replace("{wonder: giza, side: A}", "giza"), ["players[2]", "expected a mapping"]),
    (seat0("wonder: babylon, side: A, coin: 4"), ["players[0]", "unknown key 'coin'", "coins"]),
    (seat0("wonder: babylon, side: A, coins: 4, coins: 5"), ["'coins' given twice"]),
    (seat0("side: A"), ["players[0]", "wonder", "required"]),
    (seat0("wonder: atlantis, side: A"), ["players[0]", "unknown wonder 'atlantis'", "manneken_pis"]),
    (seat0("wonder: 3, side: A"), ["players[0]", "unknown wonder 3"]),
    (seat0("wonder: babylon"), ["players[0]", "side", "required", "A or B"]),
    (seat0("wonder: babylon, side: C"), ["players[0]", "side", "A or B", "'C'"]),
    (seat0("wonder: babylon, side: AB"), ["side", "'AB'"]),
    (seat0("wonder: babylon, side: A, stages: 4"), ["players[0]", "stages", "0 to 3", "4"]),
    (seat0("wonder: rhodes, side: B, stages: 3"), ["players[0]", "stages", "0 to 2", "rhodes side B"]),
    (seat0("wonder: giza, side: B, stages: 5"), ["stages", "0 to 4"]),
    (seat0("wonder: manneken_pis, side: B, stages: 2"), ["stages", "0 to 1"]),
    (seat0("wonder: babylon, side: A, stages: -1"), ["stages", "-1"]),
    (seat0("wonder: babylon, side: A, stages: 1.5"), ["stages", "1.5"]),
    (seat0("wonder: babylon, side: A, stages: true"), ["stages", "True"]),
    (seat0("wonder: babylon, side: A, cards: [Aquaduct]"), ["players[0]: unknown card 'Aquaduct'", "Aqueduct"]),
    (BASE.replace("{wonder: olympia, side: B}", "{wonder: olympia, side: B, cards: [Aquaduct]}"),
     ["players[1]: unknown card 'Aquaduct'"]),
    (seat0("wonder: babylon, side: A, cards: Altar"), ["cards", "expected a list"]),
    (seat0("wonder: babylon, side: A, cards: [7]"), ["cards", "7"]),
    (seat0("wonder: babylon, side: A, cards: [Altar, Theater, altar]"), ["players[0]", "'Altar'", "twice"]),
    (seat0("wonder: babylon, side: A, cards: [Loom, Press, LOOM]"), ["players[0]", "'Loom'", "twice"]),
    (seat0("wonder: babylon, side: A, cards: [Caravansery, Caravansary]"), ["'Caravansery'", "twice"]),
    (seat0("wonder: babylon, side: A, coins: -1"), ["players[0]", "coins", ">= 0", "-1"]),
    (seat0("wonder: babylon, side: A, coins: 2.5"), ["coins", "2.5"]),
    (seat0("wonder: babylon, side: A, coins: three"), ["coins", "'three'"]),
    (seat0("wonder: babylon, side: A, coins: true"), ["coins", "True"]),
    (seat0("wonder: babylon, side: A, coins: null"), ["coins", "None"]),
    (seat0("wonder: babylon, side: A, tokens: [1, 2]"), ["players[0]", "tokens", "2", "-1, 1, 3, 5"]),
    (seat0("wonder: babylon, side: A, tokens: [0]"), ["tokens", "bad token 0"]),
    (seat0("wonder: babylon, side: A, tokens: [-3]"), ["tokens", "-3"]),
    (seat0("wonder: babylon, side: A, tokens: ['1']"), ["tokens", "'1'"]),
    (seat0("wonder: babylon, side: A, tokens: 1"), ["tokens", "expected a list"]),
    (seat0("wonder: giza, side: A, stages: 3, copy3: left"), ["players[0]", "copy3", "manneken_pis"]),
    (seat0("wonder: manneken_pis, side: B, stages: 1, copy3: left"), ["copy3", "manneken_pis side B"]),
    (seat0("wonder: manneken_pis, side: A, stages: 2, copy3: left"), ["copy3", "stages: 3", "2"]),
    (seat0("wonder: manneken_pis, side: A, stages: 3, copy3: up"), ["copy3", "left or right", "'up'"]),
    (seat0("wonder: manneken_pis, side: A, stages: 3, copy3: null"), ["copy3", "left or right"]),
]


@pytest.mark.parametrize("text, fragments", SCENARIO_ERRORS)
def test_scenario_errors_score(tmp_path, text, fragments):
    path = tmp_path / "scenario.yaml"
    path.write_text(text, encoding="utf-8")
    result = run_cli("score", str(path), "--json")
    line = check_error(result, *fragments)
    assert line.startswith(f"Error: {path}: ")
    assert result.stderr == line + "\n"  # an error inside a file prints that one line only


@pytest.mark.parametrize("text, fragments", [
    e for e in SCENARIO_ERRORS if "players[1]: unknown card 'Aquaduct'" in e[1] or "not valid YAML" in e[1]
    or "0 to 3" in e[1] or "'C'" in e[1] or "bad token 0" in e[1] or "'up'" in e[1]])
def test_scenario_errors_trade(tmp_path, text, fragments):
    path = tmp_path / "scenario.yaml"
    path.write_text(text, encoding="utf-8")
    check_error(run_cli("trade", str(path), "--seat", "0", "--stage", "--json"), *fragments)


def test_unreadable_files(tmp_path):
    missing = tmp_path / "nope.yaml"
    check_error(run_cli("score", str(missing)), "nope.yaml", "cannot read")
    check_error(run_cli("trade", str(missing), "--seat", "0", "--stage"), "nope.yaml", "cannot read")
    # A directory: click's own check (exit 2, usage block, Error line) or ours, both fine.
    check_error(run_cli("score", str(tmp_path)))
    binary = tmp_path / "bin.yaml"
    binary.write_bytes(b"\xff\xfe\x00\x01garbage\x00")
    check_error(run_cli("score", str(binary)), "bin.yaml")


def test_scenario_error_message_example(tables, tmp_path):
    path = tmp_path / "scenario.yaml"
    path.write_text(BASE.replace("{wonder: olympia, side: B}", "{wonder: olympia, side: B, cards: [Aquaduct]}"))
    with pytest.raises(scenario.ScenarioError) as err:
        scenario.load(path, tables)
    assert str(err.value).startswith(f"{path}: players[1]: unknown card 'Aquaduct'")
    assert isinstance(err.value, ValueError)


# ---------------------------------------------------------------------------------------------
# Errors in the options of `wsim trade` and `wsim score`

@pytest.fixture
def base_file(tmp_path):
    path = tmp_path / "base.yaml"
    path.write_text(BASE)
    return str(path)


@pytest.mark.parametrize("args, fragments", [
    (["--seat", "3", "--stage"], ["--seat", "3", "0 to 2"]),
    (["--seat", "-1", "--stage"], ["--seat", "-1"]),
    (["--seat", "x", "--stage"], ["--seat"]),
    (["--stage"], ["--seat"]),
    (["--seat", "0"], ["exactly one of --card NAME or --stage"]),
    (["--seat", "0", "--stage", "--card", "Altar"], ["exactly one of --card NAME or --stage"]),
    (["--seat", "0", "--card", "Aquaduct"], ["--card", "unknown card 'Aquaduct'"]),
    (["--seat", "0", "--card", "Altar", "--bogus"], ["--bogus"]),
])
def test_trade_option_errors(base_file, args, fragments):
    check_error(run_cli("trade", base_file, *args, "--json"), *fragments)


def test_missing_file_argument():
    check_error(run_cli("score"), "FILE")
    check_error(run_cli("trade", "--seat", "0", "--stage"), "FILE")


def test_valid_file_exits_zero_whatever_legal_is(base_file):
    for args in (["--seat", "0", "--card", "Palace"], ["--seat", "2", "--stage"], ["--seat", "1", "--card", "Altar"]):
        result = run_cli("trade", base_file, *args, "--json")
        assert result.exit_code == 0 and result.stderr == ""
    assert json.loads(run_cli("trade", base_file, "--seat", "0", "--card", "Palace", "--json").stdout)[
        "legal"] is False


def test_help_texts():
    assert "--stage" in run_cli("trade", "--help").stdout
    assert "scenario FILE" in run_cli("score", "--help").stdout
