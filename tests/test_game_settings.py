"""wsim.Game honours every run setting `wsim.simulate` honours for a game's play: played by
policy_move, a game under each setting is simulate's under it, and not the game without it (a
setting the Game dropped would play the default's). The learned seats' model file:
tests/test_game_api.py."""

import json

import pytest
import yaml

import wsim

BASE = {"players": 3, "seed": 11, "policies": "heuristic"}


def _scores(**settings) -> list:
    """Every seat's scores of games 0 and 1, played by policy_move."""
    out = []
    for game in range(2):
        g = wsim.Game(game=game, **settings)
        while not g.done:
            g.step({d.seat: g.policy_move(d.seat) for d in g.pending()})
        out += [{k: v for k, v in s.items() if k != "seat"} for s in g.scores()]
    return out


def _simulated(**settings) -> list:
    table = wsim.simulate(games=2, threads=1, **settings).to_pylist()
    keys = [k for k in _scores(**BASE)[0]]
    return [{k: row[k] for k in keys} for row in table]


@pytest.fixture(scope="module")
def edited_data(tmp_path_factory, data_doc):
    """The packaged data with the Altar worth 20 points: a heuristic seat then builds it."""
    doc = json.loads(json.dumps(data_doc))
    next(c for c in doc["cards"] if c["name"] == "Altar")["points"] = 20
    path = tmp_path_factory.mktemp("data") / "edited.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


MIXED = ["heuristic", "greedy", "greedy"]


# (the settings under test, the same settings without the one tested)
@pytest.mark.parametrize("settings, without", [
    ({"sides": "B"}, {}),
    ({"wonders": "fixed:babylon/B,olympia/A,rhodes/A"}, {}),
    ({"players": 7, "policies": "random", "manneken_pis": True}, {"players": 7, "policies": "random"}),
    ({"policies": ["heuristic:science", *MIXED[1:]], "policy_params": ("science.weights=science",)},
     {"policies": MIXED}),
    ({"policies": MIXED, "policy_params": ("greedy.point=0", "greedy.shield=300")}, {"policies": MIXED}),
    ({"seed": 12}, {}),
    ({"data": "edited"}, {}),
], ids=["sides", "wonders", "manneken_pis", "weights file by label", "greedy parameters", "seed", "data"])
def test_a_game_plays_simulates_game_under_each_setting(settings, without, edited_data):
    settings = {**BASE, **settings}
    if settings.get("data") == "edited":
        settings["data"] = str(edited_data)
    played = _scores(**settings)
    assert played == _simulated(**settings)
    assert played != _scores(**{**BASE, **without})
