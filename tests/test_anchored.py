"""Verdicts anchored on skill (wsim.analysis.anchored, docs/survey.md "Verdicts anchored on skill"):
the rules on hand-made rows with known answers, and a small real survey's anchored.csv."""

import csv
import io
import math
from types import SimpleNamespace

import pandas as pd
import pytest

from clikit import last_error_line, run_cli
from wsim.analysis import anchored
from wsim.analysis.populations import PopulationError, rungs

SIDE = ["players", "wonder", "side", "population", "games", "seats", "win_rate", "ci_low", "ci_high", "fair_share",
        "diff", "handicap", "handicap_ci_low", "handicap_ci_high", "q_value", "threshold", "verdict"]


def _side(wonder, side, rate, low, high, q, verdict, vp=(math.nan, math.nan, math.nan), population="top"):
    """One population's sized row at 4 players: fair share 25%, threshold 2 points, 1,000 seats
    in 250 games."""
    return dict(zip(SIDE, (4, wonder, side, population, 250, 1000, rate, low, high, 0.25, rate - 0.25, *vp, q, 0.02,
                           verdict)))


SIDES = pd.DataFrame([
    _side("rhodes", "A", 0.32, 0.291, 0.350, 0.001, "too strong", (3.5, 2.0, 5.0)),
    _side("rhodes", "B", 0.33, 0.301, 0.360, 0.001, "too strong", (4.0, 2.5, 5.5)),
    _side("giza", "A", 0.18, 0.157, 0.205, 0.001, "too weak", (-3.0, -4.0, -2.0)),
    _side("giza", "B", 0.251, 0.245, 0.257, 0.001, "fair enough", (0.1, -0.2, 0.4)),
    _side("babylon", "A", 0.28, 0.253, 0.309, 0.2, "not resolved"),
    _side("babylon", "B", 0.255, 0.229, 0.283, 0.75, "not resolved"),
    _side("rhodes", "A", 0.40, 0.37, 0.43, 1e-9, "too strong", population="mid"),  # not the anchor: left out
])


def _pair(wonder, side, diff, low, high, q, a="mid", b="top"):
    return {"players": 4, "wonder": wonder, "side": side, "population_a": a, "population_b": b, "games": 250,
            "diff": diff, "ci_low": low, "ci_high": high, "q_value": q}


# survey's pairs hold a − b in the populations' order (mid listed before top): mid − top
PAIRS = pd.DataFrame([
    _pair("rhodes", "A", -0.01, -0.03, 0.01, 0.4), _pair("rhodes", "B", 0.0, -0.02, 0.02, 0.9),
    _pair("giza", "A", 0.05, 0.02, 0.08, 0.01), _pair("giza", "B", 0.0, -0.01, 0.01, 1.0),
    _pair("babylon", "A", 0.0, -0.03, 0.03, 1.0), _pair("babylon", "B", 0.01, -0.02, 0.04, 0.6),
    _pair("rhodes", "A", 0.2, 0.1, 0.3, 1e-6, a="low", b="top")])  # another rung: not the one below


def _people(wonder, side, rate, q, population="top"):
    return {"players": 4, "wonder": wonder, "side": side, "population": population, "people_rate": rate,
            "people_ci_low": rate - 0.02, "people_ci_high": rate + 0.02, "q_value": q}


PEOPLE = pd.DataFrame([_people("rhodes", "A", 0.31, 0.6), _people("rhodes", "B", 0.20, 0.001),
                       _people("giza", "B", 0.25, 0.9), _people("babylon", "A", 0.27, 0.8),
                       _people("babylon", "B", 0.26, 0.7), _people("giza", "A", 0.10, 1e-9, population="mid")])


def _by_side(table):
    return table.set_index(["wonder", "side"])


def test_every_action_from_hand_made_sides():
    got = anchored.anchored_sides(SIDES, PAIRS, PEOPLE, "top", "mid")
    assert tuple(got.columns) == anchored.SIDE_COLUMNS and len(got) == 6
    assert set(got.anchor) == {"top"} and set(got.below) == {"mid"}
    t = _by_side(got)
    # too strong, stable, people agree: act
    r = t.loc[("rhodes", "A")]
    assert (r.action, r.direction, r.stability, r.people, r.games_needed) == ("act", "too strong", "stable",
                                                                             "confirmed", "")
    assert r.why == "top finds it too strong; top and mid agree; people agree"
    # the pair turned to anchor − below: +1 point [−1, +3]
    assert (r.pair_diff, r.pair_ci_low, r.pair_ci_high, r.pair_q) == pytest.approx((0.01, -0.01, 0.03, 0.4))
    assert (r.vp, r.vp_ci_low, r.vp_ci_high, r["diff"]) == pytest.approx((3.5, 2.0, 5.0, 0.07))
    assert (r.people_rate, r.people_ci_low, r.people_ci_high, r.people_q) == pytest.approx((0.31, 0.29, 0.33, 0.6))
    # too strong and stable, but people's rate differs: don't act
    r = t.loc[("rhodes", "B")]
    assert (r.action, r.direction, r.people, r.games_needed) == ("don't act", "too strong", "contradicted", "")
    assert r.why == "top finds it too strong; top and mid agree; people differ (people win 20.0%, top 33.0%)"
    # too weak, but the rung below differs (q 0.01): not yet, and no count of games settles that
    r = t.loc[("giza", "A")]
    assert (r.action, r.direction, r.stability, r.people, r.games_needed) == ("not yet", "too weak", "moves",
                                                                             "no people data", "")
    assert r.pair_diff == pytest.approx(-0.05)
    assert r.why.startswith("top finds it too weak; top and mid differ by −5.0")
    # fair enough, stable: don't act
    r = t.loc[("giza", "B")]
    assert (r.action, r.direction, r.games_needed) == ("don't act", "fair", "")
    # not resolved, 3 points from fair (past the 2-point threshold): the games at which the score test
    # at the family's Bonferroni threshold (6 rows: z = 2.638) finds it with 80% power
    r = t.loc[("babylon", "A")]
    assert (r.action, r.direction, r.games_needed) == ("not yet", "", "643")
    assert r.why == "top cannot tell it from fair yet; top and mid agree; people agree"
    # not resolved, half a point from fair: its 95% interval fits inside ±2 points at 1,655 games,
    # long before the half point itself would be significant (22,778)
    assert t.loc[("babylon", "B"), "games_needed"] == "1655"


def test_without_people_or_a_rung_below():
    got = _by_side(anchored.anchored_sides(SIDES, PAIRS, None, "top", None))
    assert set(got.people) == {"no people data"} and set(got.stability) == {""} and set(got.below) == {""}
    assert got.pair_diff.isna().all() and got.people_rate.isna().all()
    # nothing checks the anchor against people or a rung below: its own size decides
    assert list(got.action) == ["act", "act", "act", "don't act", "not yet", "not yet"]
    assert got.loc[("giza", "A"), "why"] == "top finds it too weak; no rung below; no people data"
    # a pair without a test (too few shared seats) is no evidence either way
    untested = PAIRS.assign(q_value=math.nan, ci_low=math.nan, ci_high=math.nan)
    got = _by_side(anchored.anchored_sides(SIDES, untested, None, "top", "mid"))
    assert set(got.stability) == {""} and got.loc[("giza", "A"), "action"] == "act"
    assert "too few shared games to compare with mid" in got.loc[("giza", "A"), "why"]


CARD = ["players", "card", "population", "games", "effect", "ci_low", "ci_high", "se", "effect_vp", "q_value",
        "threshold", "verdict"]


def _card(card, effect, se, q, verdict):
    return dict(zip(CARD, (4, card, "top", 1000, effect, effect - 2.093 * se, effect + 2.093 * se, se, 10 * effect,
                           q, 0.02, verdict)))


def test_every_card_action_and_its_games():
    cards = pd.DataFrame([_card("X", 0.06, 0.01, 0.001, "too strong"), _card("Y", 0.03, 0.02, 0.3, "not resolved"),
                          _card("Z", math.nan, math.nan, math.nan, "not resolved"),
                          _card("W", 0.005, 0.001, 0.001, "fair enough"),
                          _card("V", 0.01, 0.02, 0.7, "not resolved")])
    pairs = pd.DataFrame([{"players": 4, "card": c, "population_a": "mid", "population_b": "top", "diff": d,
                           "ci_low": d - 0.02, "ci_high": d + 0.02, "q_value": q}
                          for c, d, q in (("X", 0.0, 0.9), ("Y", 0.01, 0.5), ("W", 0.04, 0.001), ("V", 0.0, 1.0))])
    got = anchored.anchored_cards(cards, pairs, "top", "mid")
    assert tuple(got.columns) == anchored.CARD_COLUMNS
    got = got.set_index("card")
    assert set(got.people) == {"no people data"}
    assert (got.loc["X", "action"], got.loc["X", "direction"], got.loc["X", "vp"]) == ("act", "too strong",
                                                                                       pytest.approx(0.6))
    # 3 points, se 2 at 1,000 games: t on 19 df at the Bonferroni threshold of 4 estimated cards
    assert (got.loc["Y", "action"], got.loc["Y", "games_needed"]) == ("not yet", "5761")
    # no estimate: not yet, and nothing says how many games
    assert (got.loc["Z", "action"], got.loc["Z", "games_needed"]) == ("not yet", "")
    assert got.loc["Z", "why"].startswith("no estimate from top")
    # fair enough for the anchor, but the rung below differs: not yet
    assert (got.loc["W", "action"], got.loc["W", "stability"], got.loc["W", "games_needed"]) == ("not yet", "moves", "")
    # within the threshold: its 95% interval (t on 19 df) fits inside ±2 points sooner than 1 point is significant
    assert got.loc["V", "games_needed"] == "34449"


def test_the_lines_a_page_opens_with():
    t = _by_side(anchored.anchored_sides(SIDES, PAIRS, PEOPLE, "top", "mid"))
    lines = {k: anchored.line(SimpleNamespace(**r), f"{k[0].title()} {k[1]}") for k, r in t.iterrows()}
    assert lines[("rhodes", "A")] == "act: Rhodes A too strong by 7.0 points of win share (3.5 VP)"
    assert lines[("babylon", "A")] == ("not yet: Babylon A +3.0 points of win share (about 643 games would "
                                       "settle it)")
    assert lines[("giza", "B")] == "don't act: Giza B fair enough (+0.1 points of win share)"
    assert lines[("rhodes", "B")] == ("don't act: Rhodes B: top finds it too strong; top and mid agree; people "
                                      "differ (people win 20.0%, top 33.0%)")
    assert lines[("giza", "A")].endswith("(a stronger rung, not more games, would settle it)")
    moving = SimpleNamespace(**{**t.loc[("babylon", "A")], "stability": "moves", "pair_diff": 0.04})
    assert anchored.line(moving, "Babylon A") == ("not yet: Babylon A +3.0 points of win share (about 643 games would "
                                                 "settle it; top and mid differ by +4.0 points)")
    # act first, then not yet, then don't act; each farthest from fair first
    order = anchored.ordered(t.reset_index())
    assert list(zip(order.wonder, order.side)) == [("rhodes", "A"), ("giza", "A"), ("babylon", "A"),
                                                   ("babylon", "B"), ("rhodes", "B"), ("giza", "B")]


def test_the_anchor_and_the_rung_below():
    pops = [SimpleNamespace(name=n) for n in ("random", "greedy", "learned", "rollout")]
    assert rungs(pops) == ("rollout", "learned")
    assert rungs(pops, "greedy") == ("greedy", "random")
    assert rungs(pops, "random") == ("random", None)
    with pytest.raises(PopulationError, match=r"^--anchor: 'search' is not a population of this survey "
                                              r"\(populations: random, greedy, learned, rollout\)"):
        rungs(pops, "search")


def test_a_bad_anchor_is_refused_before_anything_is_written(tmp_path):
    result = run_cli("survey", "--players", "3", "--games", "10", "--population", "r=random", "--population",
                     "g=greedy", "--anchor", "learned", "--out", str(tmp_path / "r"))
    assert result.exit_code == 2, result.output
    assert last_error_line(result) == ("Error: --anchor: 'learned' is not a population of this survey "
                                       "(populations: r, g)")
    assert not (tmp_path / "r").exists()


def _csv(path):
    return list(csv.DictReader(io.StringIO(path.read_text())))


@pytest.mark.slow
def test_a_small_survey_anchors_on_its_last_population(tmp_path):
    from wsim import tables
    from wsim.analysis import survey as survey_mod
    from wsim.analysis.populations import build_populations

    out = tmp_path / "s"
    args = ["--players", "3", "--games", "300", "--seed", "4", "--threads", "1", "--population", "r=random",
            "--population", "g=greedy", "--reference", "people", "--out", str(out)]
    result = run_cli("survey", *args)
    assert result.exit_code == 0, result.output
    sides, cards, survey = _csv(out / "anchored.csv"), _csv(out / "card_anchored.csv"), _csv(out / "survey.csv")
    assert tuple(sides[0]) == anchored.SIDE_COLUMNS and tuple(cards[0]) == anchored.CARD_COLUMNS
    # the anchor is the last population, g; the rung below, r
    assert {(r["anchor"], r["below"]) for r in sides + cards} == {("g", "r")}
    mine = {(r["wonder"], r["side"]): r for r in survey if r["population"] == "g"}
    assert {(r["wonder"], r["side"]) for r in sides} == set(mine)
    for r in sides:
        for column in ("win_rate", "ci_low", "ci_high"):
            assert r[column] == mine[(r["wonder"], r["side"])][column]
        assert r["action"] in anchored.ACTIONS
        assert (r["games_needed"] != "") <= (r["action"] == "not yet")
    # the built-in people's games have side B and both sides pooled: side A has no people data
    assert {r["people"] for r in sides if r["side"] == "A"} == {"no people data"}
    assert {r["people"] for r in sides if r["side"] == "B"} <= {"confirmed", "contradicted"}
    assert {r["people"] for r in cards} == {"no people data"}
    # the size is `wsim balance`'s on the anchor's dataset, number for number
    from wsim.analysis.balance import report

    balance = report.build(out / "data" / "g", tables.load())
    by_side = balance.wonders.set_index(["wonder", "side"])
    for r in sides:
        b = by_side.loc[(r["wonder"], r["side"])]
        assert r["size_verdict"] == b.verdict and float(r["q_value"]) == pytest.approx(b.q_value, rel=1e-5)
        assert float(r["vp"]) == pytest.approx(b.handicap, rel=1e-5, abs=1e-9)
    by_card = balance.cards.set_index("card")
    assert {r["card"]: r["size_verdict"] for r in cards} == by_card.verdict.to_dict()
    page = (out / "index.html").read_text()
    assert page.index("<h2>Anchored on g</h2>") < page.index("<h2>Verdicts</h2>")
    assert "anchored on g: wonder sides" in result.output
    # another anchor from the same datasets: the first population, no rung below
    t = tables.load()
    pops = build_populations(t, [("r", "random", ()), ("g", "greedy", ())], (), players=3, games=300, seed=4,
                             wonders="random", sides="random", manneken_pis=False, chunk_size=100_000)
    again = survey_mod.build(out / "data", pops, t, None, anchor="r")
    assert set(again.anchored.anchor) == {"r"} and set(again.anchored.stability) == {""}
    rates = {(r["wonder"], r["side"]): float(r["win_rate"]) for r in survey if r["population"] == "r"}
    assert dict(zip(zip(again.anchored.wonder, again.anchored.side), again.anchored.win_rate)) == pytest.approx(rates,
                                                                                                               rel=1e-5)
    assert len(again.card_pairs) and {"population_a", "population_b"} <= set(again.card_pairs.columns)
