"""The atlas's headline sentences (wsim/balance_atlas/findings.py) on hand-made verdicts: which
sides and cards a designer is told to act on, in what words, by how much, and linked where."""

import math

import pandas as pd

from wsim.balance_atlas.findings import counts_text, findings


def _side(players, wonder, side, action, direction="", vp=math.nan, diff=0.0, people="confirmed", needed=""):
    return {"players": players, "wonder": wonder, "side": side, "action": action, "direction": direction, "vp": vp,
            "diff": diff, "people": people, "games_needed": needed}


def _card(players, card, action, direction="", vp=math.nan, effect=0.0):
    return {"players": players, "card": card, "action": action, "direction": direction, "vp": vp, "effect": effect}


def test_counts_are_said_as_a_reader_says_them():
    assert counts_text([4]) == "4 players"
    assert counts_text([3, 4]) == "3 and 4 players"
    assert counts_text([7, 4, 5, 6]) == "4–7 players"
    assert counts_text([3, 5, 7]) == "3, 5 and 7 players"


def test_sides_to_act_on_come_first_largest_first_with_their_counts_and_sizes():
    sides = pd.DataFrame([
        _side(3, "babylon", "B", "act", "too weak", vp=-2.04, diff=-0.04),
        _side(4, "babylon", "B", "act", "too weak", vp=-3.96, diff=-0.05, people="no people data"),
        _side(5, "babylon", "B", "act", "too weak", vp=-3.0, diff=-0.03),
        _side(4, "rhodes", "B", "act", "too strong", vp=5.5, diff=0.08),
        _side(4, "giza", "A", "not yet", needed="12000"),
        _side(5, "giza", "A", "not yet", needed="inf"),
        _side(4, "olympia", "A", "don't act", "too strong", vp=2.0, people="contradicted"),
    ])
    cards = pd.DataFrame([_card(4, "Strategists Guild", "act", "too strong", vp=3.0, effect=0.06),
                          _card(5, "Strategists Guild", "act", "too strong", vp=4.2, effect=0.07),
                          _card(4, "Altar", "don't act", "fair")])
    character = pd.DataFrame([{"players": 4, "metric": "close_share", "population": "learned", "value": 0.31}])
    got = findings(sides, cards, character)
    assert list(got.sentence[:2]) == [
        "Rhodes B is too strong at 4 players, by 5.5 VP (search, stable against learned; people agree at 4 players).",
        "Babylon B is too weak at 3–5 players, by 2.0 to 4.0 VP (search, stable against learned; people agree at 3 "
        "and 5 players)."]
    assert list(got.link[:2]) == ["side-rhodes-B.html", "side-babylon-B.html"]
    assert got.sentence[2] == ("The Strategists Guild is too strong at 4 and 5 players: 6.0 to 7.0 points of win "
                               "share when built (3.0 to 4.2 VP).")
    assert got.link[2] == "card-strategists-guild.html"
    assert got.sentence[3].startswith("People contradict search on 1 side (Olympia A at 4)")
    assert got.sentence[4] == ("2 of 7 side verdicts are not settled yet; the most demanding, Giza A at 4 players, "
                               "needs about 12,000 games.")
    assert got.sentence[5].startswith("Games are close: 31.0% are won by 2 points or fewer (learned, 4 players")
    assert list(got.order) == list(range(len(got)))
    assert set(got.kind) == {"side", "card", "character"}


def test_with_nothing_to_act_on_the_index_says_so_first():
    sides = pd.DataFrame([_side(4, "giza", "A", "not yet", needed="900")])
    got = findings(sides, pd.DataFrame([_card(4, "Altar", "not yet")]), pd.DataFrame(
        columns=["players", "metric", "population", "value"]))
    assert got.sentence[0].startswith("No wonder side is settled as too strong or too weak at any count")
    assert got.link[0] == "index.html"
