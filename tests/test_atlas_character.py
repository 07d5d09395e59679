"""wsim.balance_atlas.character: the standings of replayed games checked by hand and against independent
recounts, the character metrics of a hand-made standings table, the skill rows against
`wsim ladder`'s own tallies and ratings, 2 players, determinism."""

import math

import numpy as np
import pandas as pd
import pytest

pytestmark = pytest.mark.slow

from wsim import movelog
from wsim.analysis.stats import Z95
from wsim.balance_atlas import character as ch
from wsim.reference.engine import Game
from wsim.reference.replay import LoggedPolicy, logged_choices
from wsim.reference.scoring import score_all
from wsim.run.runner import Runner, game_log
from wsim.run.settings import build_settings


def _settings(tables, players, policy="random", seed=0, games=10):
    return build_settings(tables, players=players, policies=[policy] * players, seed=seed, games=games)


def test_standings_of_one_game_checked_by_hand(tables):
    """Game 0 of seed 0, 3 random players. Its Age I, read from the log (game_log): every city
    starts with 3 coins and no shield is built, so no military token.
    seat 0: discards Clay Pit, Barracks, Loom, Workshop (+12), builds Scriptorium paying 2 to a
            neighbour and Apothecary: 13 coins = 4 VP, a tablet and a compass = 2 VP: 6 VP;
    seat 1: discards Stone Pit, Clay Pool, Ore Vein, Stockade (+12), builds Altar (2 VP) and East
            Trading Post: 15 or 17 coins (if it got seat 0's 2) = 5 VP: 7 VP;
    seat 2: discards five cards (+15), builds Lumber Yard: 18 or 20 coins = 6 VP: 6 VP.
    Ranks: seat 1 first; seats 0 and 2 tie on points, seat 2 holds more coins: 2nd, seat 0 3rd."""
    s = _settings(tables, 3)
    table = ch.standings(tables, s, [0])
    assert list(table.columns) == list(ch.STANDINGS_COLUMNS)
    assert table.points_age1.tolist() == [6, 7, 6]
    assert table.rank_age1.tolist() == [3, 1, 2]
    final = game_log(Runner(tables, s), 0)["final"]  # the kernels' final breakdown
    assert table.points_final.tolist() == [p["total"] for p in final["players"]] == [31, 32, 19]
    assert table.rank_final.tolist() == [p["rank"] for p in final["players"]]
    assert table.won.tolist() == [int(seat in final["winners"]) for seat in range(3)] == [0, 1, 0]
    assert table.decisions.tolist() == [18, 18, 18]  # 6 turns x 3 ages, no 7th card
    assert (table.forced <= table.decisions).all() and (table.options >= 1).all()


def _recount_age2(tables, doc):
    """Points and ranks after Age II recounted apart from the standings' Game (and its military
    hook): a plain reference Game replaying the logged choices of Ages I and II, then scored."""
    boards, sides, hands = movelog.setup_from_json(tables, doc)
    fc = movelog.is_free_city(doc)
    queue = logged_choices([tuple(ev) for ev in movelog.events_from_json(tables, doc)])
    g = Game(tables, boards, sides, hands, [LoggedPolicy(s, queue) for s in range(doc["players"])], free_city=fc)
    g.play_age(1)
    g.play_age(2)
    scores, ranks, _ = score_all(g.pos)
    return [sc.total for sc in scores], ranks


@pytest.mark.parametrize("players", [2, 4])
def test_standings_equal_independent_recounts(tables, players):
    """Per game: Age II as a plain replay stopped there scores it, the end as the kernels' log
    says; at 2 players the Free City has no row, and the two players rank 1 and 2."""
    s = _settings(tables, players, "learned", seed=3)
    games = [2, 0, 1]
    table = ch.standings(tables, s, games)
    assert table.game.tolist() == [g for g in games for _ in range(players)]  # the order asked
    assert table.seat.tolist() == list(range(players)) * len(games)
    runner = Runner(tables, s)
    for g in games:
        doc = game_log(runner, g)
        rows = table[table.game == g]
        points, ranks = _recount_age2(tables, doc)
        assert rows.points_age2.tolist() == points[:players]
        assert rows.rank_age2.tolist() == ranks[:players]
        final = doc["final"]["players"][:players]
        assert rows.points_final.tolist() == [p["total"] for p in final]
        assert rows.rank_final.tolist() == [p["rank"] for p in final]
        assert rows.won.sum() >= 1
        for age in ("age1", "age2", "final"):  # more points never ranks worse
            pts, rk = rows[f"points_{age}"].to_numpy(), rows[f"rank_{age}"].to_numpy()
            assert not ((pts[:, None] > pts[None, :]) & (rk[:, None] > rk[None, :])).any()
    if players == 2:
        assert sorted(table[table.game == 0].rank_final) in ([1, 2], [1, 1])


def _hand_made() -> pd.DataFrame:
    """Two 3-player games with known answers (test_character_metrics_of_a_hand_made_table)."""
    rows = [  # game, seat, age1 rank, age2 rank, final points, final rank, options, forced
        (0, 0, 1, 2, 50, 1, 10.0, 1), (0, 1, 2, 1, 48, 2, 8.0, 2), (0, 2, 3, 3, 40, 3, 6.0, 3),
        (1, 0, 1, 1, 45, 2, 9.0, 0), (1, 1, 1, 3, 52, 1, 9.0, 0), (1, 2, 3, 2, 30, 3, 9.0, 0),
    ]
    return pd.DataFrame([{"players": 3, "population": "learned", "game": g, "seat": s, "policy": "learned",
                          "points_age1": 0, "points_age2": 0, "points_final": pts, "rank_age1": r1,
                          "rank_age2": r2, "rank_final": rf, "won": int(rf == 1), "decisions": 18, "options": o,
                          "forced": f} for g, s, r1, r2, pts, rf, o, f in rows])


def test_character_metrics_of_a_hand_made_table():
    """Game 0: the Age I leader (seat 0) wins, the Age II leader (seat 1) does not; the winner
    ranked 1st then 2nd; won by 50 − 48 = 2. Game 1: seats 0 and 1 share the Age I lead and
    seat 1 wins (1/2), the Age II leader (seat 0) does not; the winner ranked 1st then 3rd; won
    by 52 − 45 = 7."""
    whole = ch.character(_hand_made())
    assert list(whole.columns) == list(ch.COLUMNS)
    table = whole.set_index("metric")
    assert set(table.index) == set(ch.METRICS) - {"skill_vs_random", "skill_vs_default", "rating_spread"}
    v = table.value
    assert v["leader_age1_wins"] == 0.75 and v["leader_age2_wins"] == 0.0
    assert v["winner_rank_age1"] == 1.0 and v["winner_rank_age2"] == 2.5
    assert v["margin"] == 4.5 and v["close_share"] == 0.5
    # options: (18 x (10 + 8 + 6) + 18 x 27) / 108 decisions; forced: 6 of 108
    assert v["options"] == 8.5 and v["forced_share"] == pytest.approx(6 / 108) and v["decisions"] == 18
    n = table.n
    assert n["leader_age1_wins"] == n["margin"] == n["decisions"] == 2 and n["options"] == n["forced_share"] == 108
    # the winner ranked 2nd and 3rd after Age II: sd √2 / 2 over 2 games, half width Z95 / 2
    assert table.loc["winner_rank_age2", "ci_high"] == pytest.approx(2.5 + Z95 / 2)
    # margins 2 and 7: sd 5 / √2, half width Z95 x 5 / 2
    assert table.loc["margin", "ci_low"] == pytest.approx(4.5 - Z95 * 5 / 2)
    # the ratio's games-as-units interval: residuals ∓27 per game, se = √(2 x 1458) / 108 = 0.5
    assert table.loc["options", "ci_low"] == pytest.approx(8.5 - Z95 * 0.5)
    assert table.loc["forced_share", "ci_high"] == pytest.approx(6 / 108 + Z95 * 6 / 108)
    assert table.loc["winner_rank_age1", "ci_low"] == table.loc["winner_rank_age1", "ci_high"] == 1.0
    from wsim.analysis.significance import wilson_ci
    assert (table.loc["leader_age1_wins", "ci_low"], table.loc["leader_age1_wins", "ci_high"]) == wilson_ci(1.5, 2)
    assert table.loc["leader_age2_wins", "ci_low"] == 0.0


def test_character_margins_from_a_dataset_table_and_skill_rows():
    """A margins table (dataset_margins' form) replaces the sample's margin and close_share for
    its players × population; skill rows join in METRICS order."""
    margins = pd.DataFrame({"players": [3], "population": ["learned"], "games": [1000], "mean": [6.0],
                            "sd": [5.0], "close": [300]})
    skill = pd.DataFrame([(3, "skill_vs_random", "search", 0.9, 0.8, 0.95, 30, "random", 27)],
                         columns=list(ch.SKILL_COLUMNS))
    table = ch.character(_hand_made(), skill, margins)
    m = table.set_index("metric")
    assert m.loc["margin", "value"] == 6.0 and m.loc["margin", "n"] == 1000
    assert m.loc["margin", "ci_high"] == pytest.approx(6 + Z95 * 5 / math.sqrt(1000))
    assert m.loc["close_share", "value"] == 0.3 and m.loc["close_share", "n"] == 1000
    assert table.metric.tolist() == [x for x in ch.METRICS if x in set(table.metric)]
    assert table.iloc[-1].tolist() == [3, "skill_vs_random", "search", 0.9, 0.8, 0.95, 30]


def test_dataset_margins_equal_the_sample_recount(tables, tmp_path):
    """dataset_margins (DuckDB over the parts) gives game_margins' numbers on the same games."""
    from wsim.dataset.write import Request, write_dataset

    s = _settings(tables, 4, seed=5, games=12)
    write_dataset(Request(tables, s, "new"), tmp_path / "ds")
    from_ds = ch.dataset_margins(tmp_path / "ds", tables, "random")
    sample = ch.standings(tables, s, range(12))
    sample.insert(1, "population", "random")
    recount = ch.game_margins(sample)
    pd.testing.assert_frame_equal(from_ds, recount, check_dtype=False)


def test_skill_equals_the_ladder_pair_and_its_ratings(tables):
    """skill's win shares are `wsim ladder`'s pair records on the same deals (the top seat
    rotated the same way), and its rating spread the ladder's ordinals, top − random."""
    from wsim.agents.ladder import Entry, Ratings, play_pair
    from wsim.run.weights import default_params

    table = ch.skill(tables, "greedy:top", ("heuristic", ()), 3, 7, 11)
    assert list(table.columns) == list(ch.SKILL_COLUMNS)
    assert table.metric.tolist() == ["skill_vs_random", "rating_spread", "skill_vs_default"]
    assert (table.population == "top").all() and (table.n == 7).all()
    top = Entry("greedy", "top", default_params("greedy"))
    rnd = Entry("random", "random", default_params("random"))
    heu = Entry("heuristic", "heuristic", default_params("heuristic"))
    ratings = Ratings([top, rnd])
    vs_random = play_pair(tables, top, rnd, 3, 7, 11, ratings=ratings)
    vs_default = play_pair(tables, top, heu, 3, 7, 11)
    rows = table.set_index("metric")
    assert rows.loc["skill_vs_random", "wins"] == vs_random.wins
    assert rows.loc["skill_vs_default", "value"] == vs_default.wins / 7
    (_, mu_t, sd_t), (_, mu_r, sd_r) = ratings.table()
    assert rows.loc["rating_spread", "value"] == pytest.approx((mu_t - 3 * sd_t) - (mu_r - 3 * sd_r), abs=1e-9)
    assert rows.loc["rating_spread", "ci_high"] - rows.loc["rating_spread", "value"] == pytest.approx(
        Z95 * math.hypot(sd_t, sd_r))


def test_the_same_inputs_give_the_same_tables(tables):
    s = _settings(tables, 2, "greedy", seed=9)
    one = ch.population_standings(tables, "greedy", s, [4, 5])
    two = ch.population_standings(tables, "greedy", s, [4, 5])
    pd.testing.assert_frame_equal(one, two)
    assert one.seat.max() == 1  # no Free City row
    assert ch.character(one).equals(ch.character(two))
    assert np.isfinite(ch.character(one).value).all()
