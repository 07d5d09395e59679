"""`wsim ladder` (docs/interfaces.md §4): pairs, seat rotation, same deals, CSV tables, ratings, errors."""

import csv

import numpy as np
import pytest

from clikit import last_error_line, run_cli
from wsim.kernels.layout import RES_COINS, RES_GUILD, RES_RANK, RES_TOTAL
from wsim.run.weights import default_params
from wsim.agents.ladder import LADDER_COLUMNS, PLAY_COLUMNS, RATINGS_COLUMNS
from wsim.run.runner import Runner
from wsim.run.settings import Settings
from wsim.analysis.stats import wilson_interval


def _rows(path) -> list:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _check_play(out, tables):
    """play.csv recomputed: random's seats in both pairs (the one seat against greedy, the two
    seats beside greedy's one), each game a unit, on the deals of seed 9."""
    units, wins, guild_wins = [], 0, 0
    for k in range(3):
        for x in ("random", "greedy"):
            seats = [x if s == k else ("greedy" if x == "random" else "random") for s in range(3)]
            cols = [s for s in range(3) if seats[s] == "random"]
            res = Runner(tables, Settings(players=3, seed=9, policies=tuple(seats))).play(20 * k, 20).res
            for g in res:
                units.append([float(np.mean([g[s, c] for s in cols])) for c in (RES_TOTAL, RES_COINS, RES_GUILD)])
                wins += sum(g[s, RES_RANK] == 1 for s in cols)
                guild_wins += sum(g[s, RES_RANK] == 1 and g[s, RES_GUILD] > 0 for s in cols)
    units = np.array(units)
    row = _rows(out / "play.csv")[0]
    assert tuple(_rows(out / "play.csv")[0]) == PLAY_COLUMNS and row["policy"] == "random"
    assert (int(row["games"]), int(row["seats"]), int(row["wins"])) == (120, 180, wins)
    assert int(row["wins_with_guild_points"]) == guild_wins
    assert float(row["mean_points"]) == pytest.approx(round(units[:, 0].mean(), 3))
    half = 1.959964 * units[:, 0].std(ddof=1) / np.sqrt(120)
    assert float(row["points_ci_high"]) == pytest.approx(round(units[:, 0].mean() + half, 3), abs=2e-3)
    assert float(row["coins"]) == pytest.approx(round(units[:, 1].mean(), 3))
    assert float(row["vp_guild"]) == pytest.approx(round(units[:, 2].mean(), 3))


def test_ladder_tables_match_the_games_they_count(tmp_path, tables):
    out = tmp_path / "lad"
    result = run_cli("ladder", "--policies", "random,greedy", "--players", "3", "--games", "60", "--seed", "9",
                     "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "policy" in result.stdout and "rating_sd" in result.stdout
    rows = _rows(out / "ladder.csv")
    assert tuple(rows[0]) == LADDER_COLUMNS and [(r["policy"], r["opponent"]) for r in rows] == [
        ("random", "greedy"), ("greedy", "random")]
    # greedy's row, recomputed: X at seat k for games [20k, 20k + 20), the deals of seed 9
    wins = points = margin = 0
    for k in range(3):
        seats = ["greedy" if s == k else "random" for s in range(3)]
        res = Runner(tables, Settings(players=3, seed=9, policies=tuple(seats))).play(20 * k, 20).res
        for g in res:
            wins += g[k, RES_RANK] == 1
            points += int(g[k, RES_TOTAL])
            margin += int(g[k, RES_TOTAL]) - max(int(g[s, RES_TOTAL]) for s in range(3) if s != k)
    greedy = rows[1]
    lo, hi = wilson_interval(wins, 60)
    assert (int(greedy["games"]), int(greedy["wins"]), greedy["players"]) == (60, wins, "3")
    assert float(greedy["win_share"]) == round(wins / 60, 4)
    assert (float(greedy["ci_low"]), float(greedy["ci_high"])) == (round(lo, 4), round(hi, 4))
    assert float(greedy["mean_points"]) == round(points / 60, 3)
    assert float(greedy["mean_margin"]) == round(margin / 60, 3)
    _check_play(out, tables)
    ratings = _rows(out / "ratings.csv")
    assert tuple(ratings[0]) == RATINGS_COLUMNS
    by = {r["policy"]: float(r["rating"]) for r in ratings}
    assert by["greedy"] > by["random"]
    # the same command again gives the same files, and a non-empty folder needs --overwrite
    again = run_cli("ladder", "--policies", "random,greedy", "--players", "3", "--games", "60", "--seed", "9",
                    "--out", str(out))
    assert again.exit_code == 2 and "--overwrite" in last_error_line(again)
    before = (out / "ladder.csv").read_text(), (out / "ratings.csv").read_text()
    assert run_cli("ladder", "--policies", "random,greedy", "--players", "3", "--games", "60", "--seed", "9",
                   "--out", str(out), "--overwrite", "--threads", "1").exit_code == 0
    assert ((out / "ladder.csv").read_text(), (out / "ratings.csv").read_text()) == before


def test_two_player_ladder_with_labels(tmp_path, tables):
    out = tmp_path / "duel"
    result = run_cli("ladder", "--policies", "greedy,greedy:nocoin", "--policy-param", "nocoin.coin=0",
                     "--players", "2", "--games", "40", "--out", str(out))
    assert result.exit_code == 0, result.output
    rows = _rows(out / "ladder.csv")
    assert [(r["policy"], r["opponent"], r["players"], r["games"]) for r in rows] == [
        ("greedy", "nocoin", "2", "40"), ("nocoin", "greedy", "2", "40")]
    # nocoin's row, recomputed: seat 0 for games 0-19, seat 1 for 20-39; the Free City is no rival
    nocoin = list(default_params("greedy"))
    nocoin[3] = 0
    wins = margin = 0
    for k in range(2):
        labels = tuple("nocoin" if s == k else "greedy" for s in range(2))
        params = tuple(tuple(nocoin) if lab == "nocoin" else default_params("greedy") for lab in labels)
        res = Runner(tables, Settings(players=2, seed=0, policies=("greedy", "greedy"), labels=labels,
                                      params=params)).play(20 * k, 20).res
        wins += sum(int(g[k, RES_RANK] == 1) for g in res)
        margin += sum(int(g[k, RES_TOTAL]) - int(g[1 - k, RES_TOTAL]) for g in res)
    assert (int(rows[1]["wins"]), float(rows[1]["mean_margin"])) == (wins, round(margin / 40, 3))


@pytest.mark.parametrize("args, message", [
    (["--policies", "greedy"], "--policies: a ladder needs at least two policies"),
    (["--policies", "greedy,greedy"], "--policies: each policy of a ladder is listed once"),
    (["--policies", "greedy,clever"], "--policies: unknown policy 'clever'"),
    (["--policies", "greedy,random", "--policy-param", "random.coin=1"], "--policy-param: random has no parameter"),
    (["--policies", "greedy,random", "--players", "9"], "--players: must be a whole number from 2 to 7, got 9"),
])
def test_ladder_bad_input(tmp_path, args, message):
    result = run_cli("ladder", *args, "--games", "10", "--out", str(tmp_path / "x"))
    assert result.exit_code == 2 and last_error_line(result).startswith(f"Error: {message}"), result.stderr
    assert not (tmp_path / "x").exists()


def test_ladder_out_that_is_a_file_is_refused_before_playing(tmp_path):
    target = tmp_path / "f"
    target.write_text("mine")
    result = run_cli("ladder", "--policies", "random,greedy", "--games", "10", "--out", str(target))
    assert result.exit_code == 2 and last_error_line(result).startswith("Error: Invalid value for '--out'")
    assert "is a file" in last_error_line(result)
    assert target.read_text() == "mine"
