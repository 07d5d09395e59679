"""wsim.people.compare, report and page on hand-made seat tables whose every number is known: the
board shares and their intervals, the z-test and the Benjamini–Hochberg q-values, the distance's
χ² and Spearman, the statistics a source lacks, the CSV headers and a self-contained page."""

import csv
import io
import math

import numpy as np
import pytest

from wsim.analysis.stats import Z95
from wsim.people.aggregate import CATEGORIES, COLOURS, aggregate
from wsim.people.compare import bh, compare
from wsim.people.page import page
from wsim.people.report import FILES, csv_files, text

BOARDS = ("ephesos", "giza", "rhodes")  # id order


def _table(winners: dict, drop=(), side="B", players=3) -> dict:
    """A 3-player seat table: every game has the three BOARDS on `side`; `winners` {board: games
    it wins}; in each game the board after the winner (in BOARDS' order, cyclically) is last.
    Points: 60 for the winner, 50 the second, 40 the last; `drop` leaves columns out."""
    rows = []
    game = 0
    for winner, count in winners.items():
        w = BOARDS.index(winner)
        for _ in range(count):
            for i, board in enumerate(BOARDS):
                rank = 1 if i == w else 3 if i == (w + 1) % 3 else 2
                rows.append((game, board, rank))
            game += 1
    n = len(rows)
    rank = np.array([r[2] for r in rows])
    points = {1: 60, 2: 50, 3: 40}
    total = np.array([points[r] for r in rank])
    seats = {"players": np.full(n, players), "game": np.array([r[0] for r in rows]),
             "wonder": np.array([r[1] for r in rows]), "side": np.full(n, side), "rank": rank,
             **{c: np.zeros(n, int) for c in CATEGORIES}, "vp_total": total, "stages": np.where(rank == 1, 3, 2),
             "shields": np.ones(n, int), "discards": np.where(rank == 3, 2, 0), "chained": np.ones(n, int),
             "coins_paid": np.full(n, 4), "coins_received": np.full(n, 4), **{c: np.ones(n, int) for c in COLOURS}}
    seats["vp_civilian"] = total  # every point civilian: the winners' largest category
    return {k: v for k, v in seats.items() if k not in drop}


POPULATION = {"giza": 30, "rhodes": 10, "ephesos": 20}  # 60 games
PEOPLE = {"giza": 40, "rhodes": 30, "ephesos": 20}  # 90 games


def _share(wins: int, games: int) -> tuple:
    """A board's share with its standard error, by hand: every game seats the board once, so its
    share is wins/games over `games` seats of 0 or 1 (sample variance with n − 1)."""
    p = wins / games
    var = (wins - wins * wins / games) / (games - 1)
    return p, math.sqrt(var / games)


@pytest.fixture(scope="module")
def comparison():
    return compare(aggregate(_table(POPULATION)), aggregate(_table(PEOPLE)), 3, "pop")


def test_board_shares_intervals_and_tests_by_hand(comparison):
    c = comparison
    assert (c.tables, c.side, c.games, c.people_games) == ("all_b", "B", 60, 90)
    assert [r["wonder"] for r in c.boards] == list(BOARDS)
    ps = []
    for row in c.boards:
        p, se_p = _share(POPULATION[row["wonder"]], 60)
        q, se_q = _share(PEOPLE[row["wonder"]], 90)
        assert row["rate"] == pytest.approx(p) and row["people_rate"] == pytest.approx(q)
        assert row["ci_low"] == pytest.approx(p - Z95 * se_p) and row["ci_high"] == pytest.approx(p + Z95 * se_p)
        assert row["people_ci_high"] == pytest.approx(q + Z95 * se_q)
        assert (row["seats"], row["people_seats"], row["side"], row["tables"]) == (60, 90, "B", "all_b")
        se = math.hypot(se_p, se_q)
        assert row["diff"] == pytest.approx(p - q)
        assert row["diff_ci_low"] == pytest.approx(p - q - Z95 * se)
        assert row["p_value"] == pytest.approx(math.erfc(abs(p - q) / se / math.sqrt(2)))
        ps.append(row["p_value"])
    assert [r["q_value"] for r in c.boards] == pytest.approx(bh(ps))


def test_last_places_by_hand(comparison):
    # the board after the winner is last: ephesos is last when rhodes wins, giza when ephesos wins
    last_pop = {"ephesos": 10, "giza": 20, "rhodes": 30}
    last_people = {"ephesos": 30, "giza": 20, "rhodes": 40}
    for row in comparison.lasts:
        assert row["rate"] == pytest.approx(last_pop[row["wonder"]] / 60)
        assert row["people_rate"] == pytest.approx(last_people[row["wonder"]] / 90)


def test_distance_chi2_and_spearman_by_hand(comparison):
    d = comparison.distance
    chi2 = 0.0
    for board in BOARDS:
        p, se_p = _share(POPULATION[board], 60)
        q, se_q = _share(PEOPLE[board], 90)
        chi2 += (p - q) ** 2 / (se_p ** 2 + se_q ** 2)
    assert d.boards == BOARDS and d.df == 3 and d.chi2 == pytest.approx(chi2)
    # P(χ²_3 ≥ x) in closed form
    assert d.p_value == pytest.approx(math.erfc(math.sqrt(chi2 / 2)) + math.sqrt(2 * chi2 / math.pi)
                                      * math.exp(-chi2 / 2))
    # population's order giza > ephesos > rhodes, people's giza > rhodes > ephesos: ranks (2,3,1), (1,3,2)
    assert d.spearman == pytest.approx(1 - 6 * (1 + 0 + 1) / (3 * 8))
    row = comparison.distance_row()
    assert row["boards"] == "ephesos giza rhodes" and row["games"] == 60 and row["people_games"] == 90


def test_score_level_and_winners(comparison):
    play = {(r["section"], r["quantity"]): r for r in comparison.play}
    mean = play[("score", "mean_points")]
    assert mean["mean"] == pytest.approx(50) and mean["people_mean"] == pytest.approx(50) and mean["n"] == 60
    assert mean["ci_low"] == pytest.approx(50) and mean["diff"] == pytest.approx(0)  # every game alike
    assert play[("score", "gap")]["mean"] == pytest.approx(20)
    assert play[("behaviour", "stages")]["mean"] == pytest.approx(7 / 3)
    assert play[("behaviour", "discards")]["people_mean"] == pytest.approx(2 / 3)
    assert play[("winners", "largest_civilian")]["mean"] == pytest.approx(1)
    assert play[("winners", "science_20")]["mean"] == pytest.approx(0)
    assert play[("points", "vp_total")]["n"] == 180 and play[("points", "vp_total")]["people_n"] == 270


def test_breakdown_per_board(comparison):
    rows = {(r["wonder"], r["quantity"]): r for r in comparison.breakdown}
    assert rows[("giza", "stages")]["mean"] == pytest.approx((30 * 3 + 30 * 2) / 60)
    assert rows[("giza", "vp_total")]["people_mean"] == pytest.approx((40 * 60 + 30 * 50 + 20 * 40) / 90)
    assert rows[("rhodes", "discards")]["side"] == "B"


def test_bh_against_a_hand_example():
    # sorted p 0.01, 0.03, 0.04, 0.5 (m = 4): 0.04, 0.06, 0.0533 -> monotone 0.04, 0.0533, 0.0533, 0.5
    q = bh([0.04, 0.5, None, 0.01, 0.03])
    assert q[0] == pytest.approx(0.16 / 3) and q[1] == pytest.approx(0.5) and math.isnan(q[2])
    assert q[3] == pytest.approx(0.04) and q[4] == pytest.approx(0.16 / 3)
    assert bh([0.9, 0.95]) == pytest.approx([0.95, 0.95]) and bh([]) == []


def test_a_statistic_one_source_lacks_is_empty_and_one_neither_has_is_no_row():
    older = ("discards", "chained", "coins_paid", "coins_received")
    c = compare(aggregate(_table(POPULATION, drop=older)), aggregate(_table(PEOPLE, drop=("chained",))), 3, "old")
    play = {r["quantity"]: r for r in c.play if r["section"] == "behaviour"}
    assert "chained" not in play
    assert play["discards"]["mean"] is None and play["discards"]["diff"] is None
    assert play["discards"]["people_mean"] == pytest.approx(2 / 3)
    breakdown = {(r["wonder"], r["quantity"]) for r in c.breakdown}
    assert ("giza", "discards") in breakdown and ("giza", "chained") not in breakdown
    files = csv_files([c])
    rows = list(csv.DictReader(io.StringIO(files["play.csv"].decode())))
    discards = next(r for r in rows if r["quantity"] == "discards")
    assert discards["mean"] == "" and discards["diff"] == "" and discards["people_mean"] != ""
    assert "—" in text([c])


def test_without_a_board_table_there_is_no_distance_but_the_rows_stay():
    few = compare(aggregate(_table({"giza": 5, "rhodes": 5, "ephesos": 5})), aggregate(_table(PEOPLE)), 3, "few")
    assert few.distance is None and (few.tables, few.side) == ("all", "*") and len(few.boards) == 3
    assert few.distance_row()["chi2"] is None
    assert "no board table" in text([few])


CSV_HEADERS = {
    "boards.csv": "population,players,tables,side,wonder,rate,ci_low,ci_high,seats,people_rate,people_ci_low,"
                  "people_ci_high,people_seats,diff,diff_ci_low,diff_ci_high,p_value,q_value",
    "play.csv": "population,players,section,quantity,mean,ci_low,ci_high,n,people_mean,people_ci_low,"
                "people_ci_high,people_n,diff",
    "breakdown.csv": "population,players,wonder,side,quantity,mean,ci_low,ci_high,n,people_mean,people_ci_low,"
                     "people_ci_high,people_n,diff",
    "distance.csv": "population,players,tables,side,boards,chi2,df,p_value,spearman,games,people_games",
}
CSV_HEADERS["lasts.csv"] = CSV_HEADERS["boards.csv"]


def test_csv_headers_and_rates(comparison):
    files = csv_files([comparison])
    assert set(files) == set(FILES) - {"index.html"}
    for name, header in CSV_HEADERS.items():
        lines = files[name].decode().splitlines()
        assert lines[0] == header, name
    boards = list(csv.DictReader(io.StringIO(files["boards.csv"].decode())))
    assert len(boards) == 3 and float(boards[1]["rate"]) == pytest.approx(0.5)  # a rate, not a percentage


def test_text_and_page(comparison):
    printed = text([comparison])
    lines = printed.splitlines()
    assert lines[0] == "3 players" and lines[1].startswith("  pop: 3 players (side B") and "50.0%" in printed
    other = compare(aggregate(_table({"giza": 20, "rhodes": 20, "ephesos": 20})), aggregate(_table(PEOPLE)), 3, "b")
    both = text([comparison, other]).splitlines()
    assert both[2].startswith("  b: 3 players") and both[3].split()[-2:] == ["pop", "b"]
    assert both[5].split()[0] == "giza" and both[5].split()[-2:] == ["33.3%", "±12.0"]  # b's share, 20 of 60
    html = page([comparison], {"people": {"games": 90}}, {"pop": {"kind": "population", "spec": "heuristic"}})
    assert html.startswith("<!doctype html>") and "<svg" in html and "Wald" in html
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in html
    assert "<script src" not in html and "<link" not in html
    # the distance comes before the tables, and the caveats are said
    assert html.index("Wald") < html.index("<table") and "all-B" in html and "chose" in html
