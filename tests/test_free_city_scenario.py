"""`wsim score` and `wsim trade` on 2-player positions: 3 seats, one marked `free_city: true`
(docs/interfaces.md §1 and the "Two players" paragraph of section 2; docs/rules.md §10).

The Free City sits at seat 1 here (any seat may be it): its left neighbour is seat 2, its right
neighbour seat 0.
"""

import json

import pytest

from clikit import last_error_line, run_cli

TWO_PLAYERS = """\
players:
  - {wonder: giza, side: A, coins: 7, cards: [Altar, Lumber Yard]}
  - {wonder: olympia, side: A, coins: 30, cards: [Pawnshop], free_city: true}
  - {wonder: babylon, side: A, coins: 7, cards: [Theater, Stone Pit]}
"""


@pytest.fixture
def two_players(tmp_path):
    path = tmp_path / "fc.yaml"
    path.write_text(TWO_PLAYERS)
    return path


def test_score_scores_the_free_city_but_it_never_wins(two_players):
    result = run_cli("score", str(two_players), "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert [p["total"] for p in doc["players"]] == [4, 13, 4]  # treasury + civilian
    assert [p.get("free_city") for p in doc["players"]] == [None, True, None]
    assert list(doc["players"][1]) == ["seat", "military", "treasury", "wonder", "civilian", "science",
                                       "commercial", "guild", "total", "free_city"]
    assert doc["winners"] == [0, 2]  # equal points and coins: a shared victory of the players


def test_score_table_names_only_the_players_as_winners(two_players):
    result = run_cli("score", str(two_players))
    assert result.exit_code == 0, result.stderr
    assert "winners (shared victory): seat 0, seat 2" in result.stdout
    assert "seat 1 is the Free City: scored in full, never among the winners" in result.stdout


def test_three_seats_without_a_free_city_stay_three_players(tmp_path):
    path = tmp_path / "three.yaml"
    path.write_text(TWO_PLAYERS.replace(", free_city: true", "").replace("coins: 30", "coins: 7"))
    doc = json.loads(run_cli("score", str(path), "--json").stdout)
    assert all("free_city" not in p for p in doc["players"])
    assert [p["total"] for p in doc["players"]] == [4, 5, 4] and doc["winners"] == [1]
    assert "Free City" not in run_cli("score", str(path)).stdout


def test_trade_prices_for_the_free_city_like_any_city(two_players):
    result = run_cli("trade", str(two_players), "--seat", "1", "--card", "Baths", "--json")
    assert result.exit_code == 0, result.stderr
    # 1 stone: from Babylon's Stone Pit (left, seat 2) or Giza's board (right, seat 0)
    assert json.loads(result.stdout) == {"seat": 1, "target": "Baths", "free": False, "coin_cost": 0,
                                         "options": [{"left": 0, "right": 2}, {"left": 2, "right": 0}],
                                         "affordable": True, "legal": True}
    result = run_cli("trade", str(two_players), "--seat", "1", "--stage", "--json")
    assert result.exit_code == 0, result.stderr
    # Olympia A stage 1, 2 wood: its board makes one, Giza's Lumber Yard (right) sells the other
    assert json.loads(result.stdout) == {"seat": 1, "target": "olympia A stage 1", "free": False, "coin_cost": 0,
                                         "options": [{"left": 0, "right": 2}], "affordable": True, "legal": True}


def test_trade_text_for_the_free_city(two_players):
    result = run_cli("trade", str(two_players), "--seat", "1", "--card", "Baths")
    assert result.exit_code == 0, result.stderr
    assert "left neighbour = seat 2, right neighbour = seat 0" in result.stdout
    assert "left  0   right  2   total  2" in result.stdout


@pytest.mark.parametrize("text, fragments", [
    (TWO_PLAYERS.replace("Lumber Yard]}", "Lumber Yard], free_city: true}"),
     ["players", "free_city", "seats 0 and 1", "exactly one Free City"]),
    (TWO_PLAYERS + "  - {wonder: rhodes, side: B}\n", ["players[1]", "free_city", "exactly 3 seats", "4"]),
    (TWO_PLAYERS.replace("free_city: true", "free_city: yes please"), ["players[1]", "free_city",
                                                                       "true or false", "yes please"]),
    (TWO_PLAYERS.replace("free_city: true", "free_city: 1"), ["players[1]", "free_city", "true or false"]),
])
@pytest.mark.parametrize("command", [("score",), ("trade", "--seat", "0", "--stage")])
def test_bad_free_city_exits_2(tmp_path, text, fragments, command):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    result = run_cli(command[0], str(path), *command[1:])
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and result.stdout == ""
    line = last_error_line(result)
    assert line.startswith("Error: ")
    for fragment in fragments:
        assert fragment in line, line
