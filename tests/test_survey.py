"""`wsim survey`: the verdict logic on data with a known answer, the people's reference, and the
command's output rules (docs/interfaces.md §0, §6)."""

import csv
import io
import math
import re

import numpy as np
import pandas as pd
import pytest

from clikit import last_error_line, run_cli
from wsim.analysis.stats import wilson_interval
from wsim.analysis import playtest
from wsim.analysis.balance.effects import paired_mean_ci
from wsim.analysis.significance import q_values, score_test_p
from wsim.analysis.verdicts import (DEPENDS, NOT_RESOLVED, ROBUST, games_for_estimate, games_for_rate,
                                   normal_critical, verdicts)
from wsim.people import columns as people_columns
from wsim.people import reference as people_reference

FAIR = 0.25
WONDERS = [f"w{i}" for i in range(12)]


def _planted(rates: dict, seats: dict, seed: int = 5) -> tuple:
    """Survey rows and pairs of planted win rates: rates[population][wonder] (default the fair
    share), seats[population] seats per wonder; the populations' seats are the same seats, the
    first of them shared by the smaller population."""
    rng = np.random.default_rng(seed)
    wins = {p: {w: rng.random(seats[p]) < rates[p].get(w, FAIR) for w in WONDERS} for p in rates}
    rows = [{"players": 4, "wonder": w, "population": p, "seats": seats[p], "wins": int(wins[p][w].sum()),
             "games": seats[p]} for p in rates for w in WONDERS]
    table = pd.DataFrame(rows)
    table["value"] = table.wins / table.seats
    table["deviation"] = table.value - FAIR
    table["se"] = np.sqrt(table.value * (1 - table.value) / table.seats)
    table["p_value"] = [score_test_p(w, s, FAIR) for w, s in zip(table.wins, table.seats)]
    table["q_value"] = q_values(table)
    c = normal_critical(int(table.q_value.count()))
    table["needed"] = [games_for_rate(v, FAIR, s, g, c) for v, s, g in zip(table.value, table.seats, table.games)]
    pairs = []
    names = list(rates)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            n = min(seats[a], seats[b])
            for w in WONDERS:
                d = wins[a][w][:n].astype(float) - wins[b][w][:n]
                diff, lo, hi, p = paired_mean_ci(n, d.sum(), (d * d).sum())
                pairs.append({"players": 4, "wonder": w, "population_a": a, "population_b": b, "games": n,
                              "diff": diff, "se": (hi - lo) / (2 * 1.959963984540054), "p_value": p})
    pairs = pd.DataFrame(pairs)
    pairs["q_value"] = q_values(pairs)
    c = normal_critical(int(pairs.q_value.count()))
    pairs["needed"] = [games_for_estimate(d, se, g, c) for d, se, g in zip(pairs["diff"], pairs.se, pairs.games)]
    return table, pairs


def test_planted_effects_get_their_verdicts():
    rates = {"a": {"w0": 0.33, "w1": 0.33, "w2": 0.27}, "b": {"w0": 0.33, "w1": 0.25, "w2": 0.27},
             "c": {"w0": 0.33, "w1": 0.25, "w2": 0.27}}
    rows, pairs = _planted(rates, {"a": 4000, "b": 4000, "c": 300})
    got = verdicts(rows, pairs, ["players", "wonder"]).set_index("wonder")
    # w0: 8 points above the fair share in every population, even the small one
    assert got.loc["w0", "verdict"] == ROBUST
    # w1: only population a plays it better; its difference from b is clear on their shared seats
    assert got.loc["w1", "verdict"] == DEPENDS
    # w2: 2 points above everywhere: seen in the large populations, not in c's 300 seats
    assert got.loc["w2", "verdict"] == NOT_RESOLVED
    c = rows[(rows.population == "c") & (rows.wonder == "w2")].iloc[0]
    assert got.loc["w2", "games_needed"] == c.needed > 300
    # the fair wonders: no population tells them from fair, nothing to decide
    assert set(got.loc[WONDERS[3:], "verdict"]) == {NOT_RESOLVED}
    assert got.loc["w0", "populations"] == "a b c"
    assert got.loc["w0", "min"] <= got.loc["w0", "max"]


def test_games_needed_by_hand():
    # a win rate of 0.30 against 0.25 at threshold 1.96, 80% power: seats =
    # ((1.96 · sqrt(.25 · .75) + 0.8416 · sqrt(.3 · .7)) / .05)² = 1,211.3; at 2 seats a game: 606 games
    assert games_for_rate(0.30, 0.25, 200, 100, 1.959964) == math.ceil(
        ((1.959964 * math.sqrt(0.1875) + 0.841621 * math.sqrt(0.21)) / 0.05) ** 2 / 2)
    # a rate of 0 (every seat lost) is not "0 games": the null's own spread still counts
    assert games_for_rate(0.0, 0.25, 3, 3, 2.5) > 3
    # never fewer than the games already played: the row is not significant yet
    assert games_for_rate(0.40, 0.25, 1000, 500, 1.96) == 501
    # an estimate with its se: se shrinks as 1/sqrt(games)
    assert games_for_estimate(0.02, 0.01, 1000, 1.959964) == math.ceil(1000 * (2.801585 * 0.5) ** 2)
    assert math.isinf(games_for_estimate(0.0, 0.01, 1000, 1.96)) and math.isinf(games_for_rate(0.25, 0.25, 9, 9, 2))


def test_robust_needs_every_population_and_a_pair_needs_both_estimates():
    rows = pd.DataFrame([
        {"players": 4, "card": "x", "population": "a", "value": 0.05, "deviation": 0.05, "q_value": 0.001, "needed": 9},
        {"players": 4, "card": "x", "population": "b", "value": math.nan, "deviation": math.nan, "q_value": math.nan,
         "needed": math.nan}])
    pairs = pd.DataFrame([{"players": 4, "card": "x", "population_a": "a", "population_b": "b", "q_value": math.nan,
                           "needed": math.nan}])
    got = verdicts(rows, pairs, ["players", "card"]).iloc[0]
    # one population sees it, the other has no estimate: not `robust` on a single population
    assert got.verdict == NOT_RESOLVED and got.populations == "a" and math.isnan(got.games_needed)
    # a population exactly at the reference gives no direction while another is open
    rows = pd.DataFrame([
        {"players": 4, "card": "y", "population": "a", "value": 0.0, "deviation": 0.0, "q_value": 1.0,
         "needed": math.inf},
        {"players": 4, "card": "y", "population": "b", "value": 0.01, "deviation": 0.01, "q_value": 0.4,
         "needed": 5000}])
    got = verdicts(rows, pairs.iloc[0:0], ["players", "card"]).iloc[0]
    assert got.verdict == NOT_RESOLVED and got.games_needed == 5000


def test_without_any_effect_no_verdict_says_robust_or_depends():
    """The corrected tests' coverage: 12 fair wonders, three populations, 50 surveys: a wrong
    `robust` or `depends on population` would need false findings (q < 0.05)."""
    wrong = 0
    for seed in range(50):
        rows, pairs = _planted({"a": {}, "b": {}, "c": {}}, {"a": 2000, "b": 2000, "c": 2000}, seed)
        got = verdicts(rows, pairs, ["players", "wonder"])
        wrong += int((got.verdict != NOT_RESOLVED).sum())
    assert wrong <= 5  # BH keeps it near 0 here (uncorrected 95% intervals: about 40)


def _survey_rows():
    return pd.DataFrame([
        {"population": "bots", "players": 4, "wonder": "rhodes", "side": "A", "seats": 4000, "wins": 1000},
        {"population": "bots", "players": 4, "wonder": "rhodes", "side": "B", "seats": 4000, "wins": 1400},
        {"population": "bots", "players": 4, "wonder": "giza", "side": "A", "seats": 4000, "wins": 900},
        {"population": "bots", "players": 4, "wonder": "giza", "side": "B", "seats": 4000, "wins": 1000}])


def test_a_reference_equal_to_a_population_agrees_and_a_shifted_one_is_flagged():
    survey = _survey_rows()
    same = survey.drop(columns="population").copy()
    out = playtest.compare(same, survey)
    assert list(out.disagrees) == ["false"] * 4 and list(out["diff"]) == [0.0] * 4
    shifted = same.copy()
    shifted.loc[1, "wins"] = 1400 - 600  # the people win 20 points less with Rhodes B
    out = playtest.compare(shifted, survey).set_index(["wonder", "side"])
    assert out.loc[("rhodes", "B"), "disagrees"] == "true"
    assert out.loc[("rhodes", "B"), "diff"] == pytest.approx(0.15)
    assert (out.drop(index=[("rhodes", "B")]).disagrees == "false").all()
    # side *: both sides pooled on the population's side
    pooled = pd.DataFrame([{"players": 4, "wonder": "giza", "side": "*", "seats": 8000, "wins": 1900}])
    row = playtest.compare(pooled, survey).iloc[0]
    assert row.rate == pytest.approx(1900 / 8000) and row.disagrees == "false"


def test_a_handful_of_playtest_seats_is_no_disagreement():
    """Real playtest logs are small: 0 wins of 3 seats, or 2 of 2, are no evidence against a
    population that wins 25–35% (a Wald test with the people's variance 0 said q = 1e-40)."""
    survey = _survey_rows()
    few = pd.DataFrame([{"players": 4, "wonder": "rhodes", "side": "A", "seats": 3, "wins": 0},
                        {"players": 4, "wonder": "rhodes", "side": "B", "seats": 2, "wins": 2}])
    out = playtest.compare(few, survey)
    assert list(out.disagrees) == ["false", "false"]
    assert (out.ci_low >= -1).all() and (out.ci_high <= 1).all()
    # a wonder the population never held has no comparison (no estimate, no verdict)
    absent = pd.DataFrame([{"players": 4, "wonder": "babylon", "side": "A", "seats": 30, "wins": 9}])
    row = playtest.compare(absent, survey).iloc[0]
    assert math.isnan(row.rate) and row.disagrees == ""


@pytest.mark.parametrize("text, message", [
    ("players,wonder,side,seats\n4,giza,A,10\n", "the first line must be"),
    ("players,wonder,side,seats,wins\n4,giza,C,10,3\n", "line 2: side must be A, B or *"),
    ("players,wonder,side,seats,wins\n4,atlantis,A,10,3\n", "line 2: unknown wonder"),
    ("players,wonder,side,seats,wins\n4,giza,A,10,11\n", "line 2: needs 1 or more seats"),
    ("players,wonder,side,seats,wins\n4,giza,A,ten,3\n", "line 2: seats must be a whole number"),
    ("players,wonder,side,seats,wins\n4,giza,A,10,3\n4,giza,a,5,1\n", "line 3: 4 players, giza A is given twice"),
    ("players,wonder,side,seats,wins\n5,giza,A,10,3\n", "holds no row for 4 players"),
    ("players,wonder,side,seats,wins\n4,giza,A,10\n", "line 2: expected 5 fields"),
    ("players,wonder,side,seats,wins\n4,giza,A,3²,1\n", "line 2: seats must be a whole number"),
])
def test_bad_reference_files_are_refused_before_anything_is_written(tmp_path, text, message):
    ref = tmp_path / "people.csv"
    ref.write_text(text)
    result = run_cli("survey", "--players", "4", "--games", "10", "--population", "r=random", "--reference", str(ref),
                     "--out", str(tmp_path / "r"))
    assert result.exit_code == 2 and message in last_error_line(result), result.output
    assert not (tmp_path / "r").exists()


def test_the_reference_people_is_the_shipped_human_games(tmp_path):
    """`--reference people` takes Board Game Arena's games, no file: per board, side B on the
    all-B tables and `*` on every table (side A, chosen by the players, left out), as win counts
    (a shared first a win for each seat); at 2 players, where people have no games, it is refused
    before anything is written; a file named `people` is `./people`."""
    out = tmp_path / "r"
    result = run_cli("survey", "--players", "3", "--games", "40", "--threads", "1", "--population", "g=greedy",
                     "--reference", "people", "--out", str(out))
    assert result.exit_code == 0, result.output
    ref = people_reference.people()
    rows = list(csv.DictReader(open(out / "reference.csv")))
    assert {(r["wonder"], r["side"]) for r in rows} == {(w, s) for w in ref.boards(3, "all", "*") for s in ("B", "*")}
    giza_b = next(r for r in rows if (r["wonder"], r["side"]) == ("giza", "B"))
    m = ref.seat(3, "all_b", "giza", "B", "win")
    assert float(giza_b["people_rate"]) == pytest.approx(m.total / m.n, abs=1e-6)
    people_rows = [r for r in csv.DictReader(open(out / "survey.csv")) if r["population"] == "people"]
    assert {int(r["seats"]) for r in people_rows if (r["wonder"], r["side"]) == ("giza", "B")} == {int(m.n)}
    result = run_cli("survey", "--players", "2", "--games", "10", "--population", "g=greedy", "--reference", "people",
                     "--out", str(tmp_path / "two"))
    assert result.exit_code == 2 and "have no 2-player games" in last_error_line(result)
    assert not (tmp_path / "two").exists()


def test_bad_populations_are_refused(tmp_path):
    for args, message in ((["--population", "x"], "expected NAME=POLICIES[@GAMES]"),
                          (["--population", "a b=random"], "must be 1 to 40 letters"),
                          (["--population", "r=random", "--population", "r=greedy"], "'r' is named twice"),
                          (["--population", "r=random@0"], "@GAMES must be a whole number from 1 to --games"),
                          (["--population", "r=random@11"], "@GAMES must be a whole number from 1 to --games"),
                          (["--population", "r=dice"], "--population r: --policies: unknown policy"),
                          (["--population", "r=random", "--policy-param", "greedy.coin=3"],
                           "names no policy or label of any population")):
        result = run_cli("survey", "--players", "3", "--games", "10", *args, "--out", str(tmp_path / "r"))
        assert result.exit_code == 2 and message in last_error_line(result), (args, result.output)
        assert not (tmp_path / "r").exists()


SMALL = ["--players", "3", "--games", "600", "--seed", "4", "--threads", "1", "--chunk-size", "200",
         "--population", "r=random", "--population", "g=greedy", "--population", "few=greedy@200"]


def _interrupted(monkeypatch, population: str, *args):
    """`wsim survey ARGS` with a Ctrl-C as population `population`'s dataset starts."""
    from wsim.analysis import survey as survey_mod

    real = survey_mod.write_dataset

    def interrupted(req, path, *rest, **named):
        if path.name == population:
            raise KeyboardInterrupt
        return real(req, path, *rest, **named)

    with monkeypatch.context() as m:
        m.setattr(survey_mod, "write_dataset", interrupted)
        return run_cli("survey", *args)


def _files(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file() and p.name != "index.html"}


@pytest.mark.slow
def _check_play(out, printed: str):
    """play.csv against the population's own rows, computed here game by game with pandas."""
    import glob

    import pyarrow.parquet as pq

    from wsim import tables

    t = tables.load()
    guilds = {t.card_names[c] for c in range(t.n_cards) if t.ent_kind[c] == 6}  # purple
    rows = pd.concat([pq.read_table(f).to_pandas() for f in sorted(glob.glob(str(out / "data" / "g" / "*.parquet")))])
    games = rows.groupby("game")
    points = games.vp_total.mean()
    gap = games.vp_total.max() - games.vp_total.min()
    guild_win = rows[rows.win].groupby("game").cards.apply(lambda cs: any(guilds & set(c) for c in cs))
    play = {r["population"]: r for r in csv.DictReader(io.StringIO((out / "play.csv").read_text()))}
    g = play["g"]
    assert int(g["games"]) == len(points) == 600 and int(g["players"]) == 3
    assert float(g["mean_points"]) == pytest.approx(points.mean(), rel=1e-5)
    half = 1.959964 * points.std() / math.sqrt(len(points))
    assert float(g["points_ci_high"]) - float(g["mean_points"]) == pytest.approx(half, rel=1e-3)
    assert float(g["mean_gap"]) == pytest.approx(gap.mean(), rel=1e-5)
    assert int(g["guild_wins"]) == int(guild_win.sum()) > 0
    assert float(g["coins"]) == pytest.approx(rows.coins.mean(), rel=1e-5)
    assert float(g["vp_science"]) == pytest.approx(rows.vp_science.mean(), rel=1e-5)
    assert float(g["guild_ci_low"]) < float(g["winners_with_guild"]) < float(g["guild_ci_high"])
    assert set(play) == {"r", "g", "few"}
    assert f"g @3: {points.mean():.1f} points a seat" in printed


def _check_people(out, survey: list):
    """survey.csv's people columns, the last four, against the reference's moments (side B on the
    all-B tables, side A and the pooled `*` of a --reference row on every table), and the page's
    first lines: every population's distance to people at 3 players."""
    assert list(survey[0])[-4:] == list(people_columns.PEOPLE_COLUMNS)
    ref = people_reference.people()
    for population, wonder, side, tables in (("g", "giza", "B", "all_b"), ("r", "rhodes", "A", "all"),
                                             ("people", "giza", "*", "all")):
        row = next(r for r in survey if (r["population"], r["wonder"], r["side"]) == (population, wonder, side))
        m = ref.seat(3, tables, wonder, side, "win")  # a shared first a win for each seat, as survey.csv counts
        assert float(row["people_rate"]) == pytest.approx(m.mean, abs=1e-6) and int(row["people_seats"]) == m.n
        low = wilson_interval(int(round(m.total)), int(round(m.n)))[0]
        assert float(row["people_ci_low"]) == pytest.approx(low, abs=1e-6)
    page = (out / "index.html").read_text()
    first = page[:page.index("<h2>Verdicts</h2>")]
    for name in ("r", "g", "few"):
        assert f"{name} against people at 3 players (" in first
    assert "people win %" in page


def test_a_small_survey_its_files_and_its_resume(tmp_path, monkeypatch):
    ref = tmp_path / "people.csv"
    ref.write_text("players,wonder,side,seats,wins\n3,giza,*,300,100\n3,rhodes,B,200,90\n7,giza,A,5,1\n")
    whole = run_cli("survey", *SMALL, "--reference", str(ref), "--out", str(tmp_path / "whole"))
    assert whole.exit_code == 0, whole.output
    out = tmp_path / "whole"
    assert sorted(p.name for p in out.iterdir() if p.name != ".wsim-lock") == [
        "anchored.csv", "card_anchored.csv", "card_effects.csv", "card_verdicts.csv", "data", "index.html",
        "pairs.csv", "play.csv", "reference.csv", "survey.csv", "verdicts.csv"]
    _check_play(out, whole.output)
    assert sorted(p.name for p in (out / "data").iterdir()) == ["few", "g", "r"]
    survey = list(csv.DictReader(io.StringIO((out / "survey.csv").read_text())))
    assert {r["population"] for r in survey} == {"r", "g", "few", "people"}
    _check_people(out, survey)
    verdict_rows = list(csv.DictReader(io.StringIO((out / "verdicts.csv").read_text())))
    assert verdict_rows and {r["verdict"] for r in verdict_rows} <= {ROBUST, DEPENDS, NOT_RESOLVED}
    assert all((r["games_needed"] != "") == (r["verdict"] == NOT_RESOLVED) for r in verdict_rows)
    pairs = list(csv.DictReader(io.StringIO((out / "pairs.csv").read_text())))
    assert {(r["population_a"], r["population_b"], r["games"]) for r in pairs} == {
        ("r", "g", "600"), ("r", "few", "200"), ("g", "few", "200")}
    assert len(list(csv.DictReader(io.StringIO((out / "reference.csv").read_text())))) == 2 * 3
    # a population is an ordinary dataset: `wsim check` passes it
    assert run_cli("check", str(out / "data" / "g")).exit_code == 0
    # an existing survey is not overwritten without --overwrite
    again = run_cli("survey", *SMALL, "--out", str(out))
    assert again.exit_code == 2 and "not empty" in last_error_line(again)

    # interrupted at the third population: whole parts kept, the folder refused to a new survey
    cut = _interrupted(monkeypatch, "few", *SMALL, "--reference", str(ref), "--out", str(tmp_path / "cut"))
    assert cut.exit_code == 130 and "--resume" in cut.stderr
    # said once (it was twice): what is left, then the status alone on the last line
    assert cut.stderr.count("interrupted") == 1 and cut.stderr.strip().splitlines()[-1] == "interrupted"
    assert not (tmp_path / "cut" / "survey.csv").exists()
    refused = run_cli("survey", *SMALL, "--out", str(tmp_path / "cut"))
    assert refused.exit_code == 2 and "unfinished survey" in last_error_line(refused)
    other = run_cli("survey", *SMALL[:-2], "--population", "few=greedy@300", "--resume", "--out", str(tmp_path / "cut"))
    assert other.exit_code == 0  # `few` was never written: its new games count is no conflict
    done = run_cli("survey", *SMALL, "--reference", str(ref), "--resume", "--out", str(tmp_path / "cut"))
    assert done.exit_code == 2 and "games 300, this survey gives it 200" in last_error_line(done)
    redo = run_cli("survey", *SMALL, "--reference", str(ref), "--overwrite", "--out", str(tmp_path / "cut"))
    assert redo.exit_code == 0
    assert _files(tmp_path / "cut") == _files(out)


@pytest.mark.slow
def test_resume_completes_an_interrupted_survey_to_the_same_tables(tmp_path, monkeypatch):
    whole = run_cli("survey", *SMALL, "--out", str(tmp_path / "whole"))
    assert whole.exit_code == 0
    assert _interrupted(monkeypatch, "g", *SMALL, "--out", str(tmp_path / "cut")).exit_code == 130
    done = run_cli("survey", *SMALL, "--resume", "--out", str(tmp_path / "cut"))
    assert done.exit_code == 0, done.output
    assert _files(tmp_path / "cut") == _files(tmp_path / "whole")
    # resuming a complete survey plays nothing and rewrites the same tables
    assert run_cli("survey", *SMALL, "--resume", "--out", str(tmp_path / "cut")).exit_code == 0
    assert _files(tmp_path / "cut") == _files(tmp_path / "whole")


def test_a_survey_folder_being_written_is_refused(tmp_path):
    from wsim.analysis.survey import owns
    from wsim.dataset.folder import OutputFolder

    out = tmp_path / "s"
    with OutputFolder(out, owns=owns):  # another writer holds the folder
        for mode in ([], ["--resume"], ["--overwrite"]):
            result = run_cli("survey", "--players", "3", "--games", "10", "--population", "r=random", *mode,
                             "--out", str(out))
            assert result.exit_code == 2 and last_error_line(result) == f"Error: {out} is being written by another wsim run"
    assert not (out / "data").exists()


@pytest.mark.slow
def test_a_two_player_survey_its_page_and_its_refusals(tmp_path, monkeypatch):
    out = tmp_path / "duel"
    args = ["--players", "2", "--games", "400", "--threads", "1", "--population", "r=random",
            "--population", "g=greedy@100", "--out", str(out)]
    result = run_cli("survey", *args)
    assert result.exit_code == 0, result.output
    survey = list(csv.DictReader(io.StringIO((out / "survey.csv").read_text())))
    # the Free City is no player: two seats a game
    assert sum(int(r["seats"]) for r in survey if r["population"] == "r") == 2 * 400
    # people played no 2-player game: the people columns are empty, and the page says so first
    assert all(r[c] == "" for r in survey for c in people_columns.PEOPLE_COLUMNS)
    page = (out / "index.html").read_text()
    assert "no people data at 2 players" in page[:page.index("<h2>Verdicts</h2>")]
    # the page marks exactly the rows with q < 0.05, table by table
    findings = sum(1 for name in ("survey.csv", "pairs.csv", "card_effects.csv")
                   for r in csv.DictReader(io.StringIO((out / name).read_text()))
                   if r["q_value"] and float(r["q_value"]) < 0.05)
    page = (out / "index.html").read_text()
    assert len(re.findall(r"<td[^>]*>★</td>", page)) == findings - sum(
        1 for r in csv.DictReader(io.StringIO((out / "card_effects.csv").read_text()))
        if r["q_value"] and float(r["q_value"]) < 0.05)  # card effects are in their CSV, not a table
    # the answers first: a sentence per wonder side, its farthest population's distance from fair first
    verdicts = page[page.index("<h2>Verdicts</h2>"):page.index("<h3>Cards</h3>")]
    assert page.index("<h2>Verdicts</h2>") < page.index("<h2>2 players: wonders</h2>")
    sentences = re.findall(r"<li>(\w+ [AB]) \(2 players\) — <b>([a-z ]+)</b>; points of win share: (.*?)\.</li>",
                           verdicts)
    by_side = {(r["wonder"].title() + " " + r["side"]): r["verdict"]
               for r in csv.DictReader(io.StringIO((out / "verdicts.csv").read_text()))}
    assert {name: verdict for name, verdict, _ in sentences} == by_side
    farthest = [max((abs(float(x)) for x in re.findall(r"\b[gr] ([+-][\d.]+) \[", sizes.replace("−", "-"))),
                    default=0.0) for _, _, sizes in sentences]
    assert farthest == sorted(farthest, reverse=True)
    assert '<script>' in page and '<g class="hover"><title>' in page
    pairs = list(csv.DictReader(io.StringIO((out / "pairs.csv").read_text())))
    assert all(r["q_value"] == "" for r in pairs if int(r["games"]) * 2 // 14 < 30 and r["ci_low"] == "")
    # an interrupted --overwrite leaves the survey as it was
    before = _files(out)
    assert _interrupted(monkeypatch, "g", *args, "--overwrite").exit_code == 130
    assert _files(out) == before and sorted(p.name for p in (out / "data").iterdir()) == ["g", "r"]
    # --resume refuses a folder that holds something else than a survey
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    refused = run_cli("survey", *args[:-2], "--resume", "--out", str(other))
    assert refused.exit_code == 2 and "holds no survey to resume" in last_error_line(refused)
    assert sorted(p.name for p in other.iterdir()) == ["notes.txt"]


def test_players_are_checked_before_the_populations(tmp_path):
    result = run_cli("survey", "--players", "9", "--out", str(tmp_path / "r"))
    assert result.exit_code == 2 and last_error_line(result) == "Error: --players: must be a whole number from 2 to 7, got 9"
