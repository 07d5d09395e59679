"""`wsim cards`, `--version` and `--help` (docs/interfaces.md §3)."""

import json

from clikit import last_error_line, run_cli


def test_cards_json_shape(tables):
    result = run_cli("cards", "--json")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert list(doc) == ["cards", "wonders"]
    assert len(doc["cards"]) == 78 and len(doc["wonders"]) == 8
    first = doc["cards"][0]
    assert {k: first[k] for k in ("name", "age", "color", "players", "cost", "chain_from")} == {
        "name": "Lumber Yard", "age": 1, "color": "brown", "players": [3, 4],
        "cost": {"coins": 0, "resources": {}}, "chain_from": []}
    assert list(first)[:6] == ["name", "age", "color", "players", "cost", "chain_from"]
    forum = next(c for c in doc["cards"] if c["name"] == "Forum")
    assert forum["chain_from"] == ["East Trading Post", "West Trading Post"]
    assert forum["cost"] == {"coins": 0, "resources": {"clay": 2}}
    rhodes = doc["wonders"][0]
    assert rhodes["id"] == "rhodes" and rhodes["promo"] is False
    assert rhodes["sides"]["A"]["starting_resource"] == "ore"
    assert rhodes["sides"]["A"]["stages"][0]["cost"] == {"coins": 0, "resources": {"wood": 2}}
    assert len(rhodes["sides"]["B"]["stages"]) == 2
    mp = doc["wonders"][7]
    assert mp["id"] == "manneken_pis" and mp["promo"] is True
    assert mp["sides"]["A"]["starting_resource"] is None and mp["sides"]["B"]["starting_resource"] is None
    assert sum(c["name"] == "Loom" for c in doc["cards"]) == 2


def test_cards_filters():
    doc = json.loads(run_cli("cards", "--json", "--players", "3").stdout)
    names = [c["name"] for c in doc["cards"]]
    assert "Tavern" not in names and "Lumber Yard" in names  # Tavern is 4+
    assert next(c for c in doc["cards"] if c["name"] == "Lumber Yard")["players"] == [3]
    guilds = [c for c in doc["cards"] if c["color"] == "purple"]
    assert len(guilds) == 10 and all(g["players"] == [] for g in guilds)
    assert len(doc["wonders"]) == 8
    copies = sum(len(c["players"]) for c in doc["cards"])
    assert copies == 3 * 21 - 5  # 63 copies minus the 5 guild slots of Age III
    doc2 = json.loads(run_cli("cards", "--json", "--age", "2").stdout)
    assert len(doc2["cards"]) == 23 and {c["age"] for c in doc2["cards"]} == {2}


def test_cards_table_and_help():
    result = run_cli("cards", "--age", "1")
    assert result.exit_code == 0
    assert "Lumber Yard" in result.stdout and "Aqueduct" not in result.stdout.split("\n\n")[0]
    assert "produces wood/clay (tradeable)" in result.stdout
    assert "27 cards, 8 wonders" in result.stdout
    assert "left neighbour is seat i+1" in run_cli("--help").stdout
    assert "List the compiled cards" in run_cli("cards", "--help").stdout
    assert "rules version" in run_cli("--version").stdout


def test_cards_bad_options():
    result = run_cli("cards", "--players", "9")
    assert result.exit_code == 2
    assert last_error_line(result).startswith("Error: Invalid value for '--players'")
    assert run_cli("cards", "--age", "4").exit_code == 2
