"""Long runs bounded, refused before play when they cannot be, stopped by a signal within seconds
(issue 36: N3, N6, N7, W5, W6, W8 of the round-4 findings, and the stage worth 19
points)."""

import time

import pytest

import wsim
from wsim.analysis.edits import edited_text
from wsim.analysis.rebalance import plan as rb_plan
from wsim.analysis.rebalance.levers import FIELD_BOUNDS, LEVER_STEP, Lever, lever_move, parse_levers
from wsim.errors import WsimError

from clikit import last_error_line, run_cli

QUICK = ["rebalance", "--threads", "1", "--players", "3", "--games", "100", "--max-steps", "1",
         "--levers", "stages:rhodes,olympia"]


def _contents(path) -> dict:
    return {p.name: p.read_bytes() for p in path.iterdir()} if path.exists() else {}


@pytest.mark.parametrize("args, message", [
    # N6: a held-out run of 7 x 10^7 games was played in memory (13 GB), estimated at 0.4 s
    (["--tolerance", "0.0005"], "Error: --tolerance 0.0005: the held-out run would need about 71,707,232 games "
     "(every side's 95% interval at most half the tolerance wide), more than --max-games (10,000,000) allows; "
     "give a larger --tolerance or --max-games (at most 100,000,000)"),
    (["--tolerance", "0.002", "--max-games", "1000000"], "Error: --tolerance 0.002: the held-out run would need "
     "about 4,481,702 games"),
    # N7: OverflowError after the whole search
    (["--tolerance", "1e-200"], "Error: --tolerance: must be a number above 0.0001 and below 0.5, got 1e-200"),
    (["--tolerance", "1e-320"], "Error: --tolerance: must be a number above 0.0001 and below 0.5, got 1e-320"),
    (["--tolerance", "nan"], "Error: --tolerance: must be a number above 0.0001 and below 0.5, got nan"),
    # N6: numpy's _ArrayMemoryError (81.9 TiB) and a traceback
    (["--games", "1000000000000"], "Error: Invalid value for '--games': 1000000000000 is not in the range "
     "1<=x<=100000000."),
    (["--games", "20000000"], "Error: --games: 20,000,000 games a measurement, more than --max-games (10,000,000) "
     "allows; give a larger --max-games (at most 100,000,000)"),
    (["--max-games", "0"], "Error: Invalid value for '--max-games': 0 is not in the range 1<=x<=100000000."),
    # W8: the last --population silently won
    (["--population", "a=random", "--population", "b=greedy"], "Error: --population: a rebalance searches for one "
     "population, got 2: a=random, b=greedy (compare populations with wsim survey)"),
])
def test_a_rebalance_that_cannot_be_bounded_is_refused_before_any_play(tmp_path, args, message):
    out = tmp_path / "r"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    started = time.perf_counter()
    result = run_cli(*QUICK, *args, "--overwrite", "--out", str(out))
    assert result.exit_code == 2 and last_error_line(result).startswith(message), result.output
    assert "Traceback" not in result.output and "estimated play" not in result.stderr
    assert _contents(out) == {"notes.txt": b"mine"}
    assert time.perf_counter() - started < 2  # refused, not played


def test_the_api_refuses_the_same_and_names_its_arguments(tmp_path):
    out = tmp_path / "r"
    for kw, message in ((dict(tolerance=0.0005), r"^tolerance 0.0005: the held-out run would need about 71,707,232 "
                                                 r"games .* more than max_games \(10,000,000\)"),
                        (dict(games=10**12), r"^games: must be a whole number from 1 to 100,000,000, got "),
                        (dict(max_games=10**9), r"^max_games: must be a whole number from 1 to 100,000,000"),
                        (dict(games=5000, max_games=1000), r"^games: 5,000 games a measurement, more than max_games"),
                        (dict(overwrite="no"), r"^overwrite: must be True or False, got 'no'$"),
                        (dict(on_event=5), r"^on_event: must be a function \(or None\), got 5$"),
                        (dict(on_estimate=5), r"^on_estimate: must be a function \(or None\), got 5$")):
        with pytest.raises(WsimError, match=message):
            wsim.rebalance(out=out, **{"players": 3, "games": 100, "threads": 1, "levers": "stages:rhodes", **kw})
    assert not out.exists()


@pytest.mark.parametrize("command", [
    ["survey", "--population", "r=random", "--players", "3"],
    ["ablate", "--edit", "Altar.points=+8", "--players", "3"],
    ["ladder", "--policies", "random,greedy", "--players", "3"],
])
def test_every_long_run_bounds_its_games(tmp_path, command):
    """A typo of 10^12 games was accepted by survey (estimated at three years) and ablate (played
    until stopped): every long run's --games is bounded, at the command line and in the API."""
    result = run_cli(*command, "--games", "1000000000000", "--threads", "1", "--out", str(tmp_path / "r"))
    assert result.exit_code == 2 and last_error_line(result) == (
        "Error: Invalid value for '--games': 1000000000000 is not in the range 1<=x<=1000000000."), result.output
    call = {"survey": lambda: wsim.survey(out=tmp_path / "r", populations=["r=random"], players=3, games=10**12),
            "ablate": lambda: wsim.ablate(["Altar.points=+8"], out=tmp_path / "r", players=3, games=10**12),
            "ladder": lambda: wsim.ladder(out=tmp_path / "r", policies=["random", "greedy"], players=3,
                                          games=10**12)}[command[0]]
    with pytest.raises(WsimError, match=r"^games: must be a whole number from 1 to 1,000,000,000, got "):
        call()
    assert not (tmp_path / "r").exists()


def test_the_estimate_counts_the_held_out_run(tables):
    """N6: the printed estimate counted the held-out pair as 2 x --games whatever its size."""
    plan = rb_plan.plan(tables, [3], "heuristic", (), games=1000, seed=0, tolerance=0.02, max_edits=6,
                        max_change=3, max_steps=1, manneken_pis=False)
    levers = parse_levers("stages:giza", "points", tables, False)
    # (2 x 1.96 / 0.02)^2 / 4 seats for the narrowest side, which holds 3 of 14 seats a game
    assert plan.held_games == 44818
    assert rb_plan.search_games(levers, plan) == (1 + 1 * (len(levers) + 1)) * 1000 + 2 * 44818


def test_a_lever_at_the_top_of_its_field_is_measured_downwards(tables):
    top = Lever("giza/A.stage2", "points", 19, 0)
    assert lever_move([top], {}, 0) == -LEVER_STEP and lever_move([top], {0: -3}, 0) == LEVER_STEP
    assert lever_move([Lever("giza/A.stage2", "points", 5, 0)], {}, 0) == LEVER_STEP
    # the bounds are the data file's own: 20 points compile, 21 do not
    assert FIELD_BOUNDS["points"] == (0, 20) == FIELD_BOUNDS["coins"]
    from wsim.tables import compile_text

    compile_text(edited_text(tables, ["giza/A.stage2.points=20", "Altar.coins=20"]).encode())
    for edit in ("giza/A.stage2.points=21", "Altar.coins=21"):
        with pytest.raises(WsimError, match="from 0 to 20"):
            compile_text(edited_text(tables, [edit]).encode())


@pytest.mark.slow
def test_a_stage_worth_19_points_can_be_rebalanced(tmp_path, tables):
    """The issue's case: measured two units up, the stage went to 21 and the search ended in an
    --edit error; measured down it runs, and no edit leaves 0..20."""
    data = tmp_path / "s19.yaml"
    data.write_text(edited_text(tables, ["giza/A.stage2.points=19"]))
    result = run_cli("--data", str(data), *QUICK[:-1], "stages:giza", "--games", "300", "--tolerance", "0.3",
                     "--out", str(tmp_path / "r"))
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().splitlines()[-1].startswith("solved: ")
    for edit in (tmp_path / "r" / "edits.txt").read_text().split():
        if edit.startswith("giza/A.stage2."):
            assert 19 + int(edit.rpartition("=")[2]) <= 20


# -- the API's arguments: flags are bools, callbacks callable, lists not empty (N3, W5, W6) --------

def test_overwrite_no_changes_no_report(tmp_path):
    """N3: overwrite="no" was read as yes, and replaced the report (every writer)."""
    ladder = tmp_path / "ladder"
    wsim.ladder("random,greedy", players=3, games=20, threads=1, out=ladder)
    before = _contents(ladder)
    calls = {"ladder": lambda v: wsim.ladder("random,greedy", players=3, games=20, threads=1, out=ladder,
                                             overwrite=v),
             "survey": lambda v: wsim.survey(out=ladder, populations=["r=random"], games=10, overwrite=v),
             "ablate": lambda v: wsim.ablate(["Altar.points=+1"], out=ladder, games=10, overwrite=v),
             "rebalance": lambda v: wsim.rebalance(out=ladder, games=100, overwrite=v),
             "balance": lambda v: wsim.balance(tmp_path / "nosuch", out=ladder, overwrite=v),
             "tune": lambda v: wsim.tune(out=ladder / "ladder.csv", generations=1, population=4, games=2,
                                         overwrite=v)}
    for name, call in calls.items():
        for value in ("no", "False", 0, None):
            with pytest.raises(WsimError, match=f"^overwrite: must be True or False, got {value!r}$"):
                call(value)
        assert _contents(ladder) == before, name
    with pytest.raises(WsimError, match="^resume: must be True or False, got 'yes'$"):
        wsim.survey(out=ladder, populations=["r=random"], games=10, resume="yes")
    assert _contents(ladder) == before


@pytest.mark.parametrize("populations", [[], (), "r=random"])
def test_an_empty_or_single_text_population_list_is_refused(tmp_path, populations):
    """W5: populations=[] played the built-in set (87 s) instead of refusing."""
    with pytest.raises(WsimError, match="^populations: must be a non-empty list of 'NAME=POLICIES"):
        wsim.survey(out=tmp_path / "s", populations=populations, games=10)
    assert not (tmp_path / "s").exists()


def test_callbacks_that_cannot_be_called_are_refused_at_the_call(tmp_path):
    """W6: tune(on_generation=5) failed with a raw TypeError after its first generation."""
    started = time.perf_counter()
    for name, call in (("on_generation", lambda: wsim.tune(generations=1, population=4, games=2, on_generation=5)),
                       ("on_estimate", lambda: wsim.survey(out=tmp_path / "o", games=10, on_estimate=5)),
                       ("on_run", lambda: wsim.survey(out=tmp_path / "o", games=10, on_run=5)),
                       ("on_run", lambda: wsim.ablate(["Altar.points=+1"], out=tmp_path / "o", games=10, on_run=5)),
                       ("on_progress", lambda: wsim.ladder("random,greedy", out=tmp_path / "o", on_progress=5)),
                       ("on_event", lambda: wsim.rebalance(out=tmp_path / "o", on_event=5))):
        with pytest.raises(WsimError, match=rf"^{name}: must be a function \(or None\), got 5$"):
            call()
    assert time.perf_counter() - started < 2 and not (tmp_path / "o").exists()


def test_an_interrupted_survey_says_so_once(tmp_path, monkeypatch):
    """(also seen) survey printed `interrupted` twice after Ctrl-C."""
    from wsim.analysis import survey as survey_mod

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(survey_mod, "write_dataset", interrupted)
    result = run_cli("survey", "--players", "3", "--games", "10", "--population", "r=random", "--out",
                     str(tmp_path / "s"))
    assert result.exit_code == 130
    assert result.stderr.count("interrupted") == 1
    assert result.stderr.strip().splitlines()[-2:] == ["whole parts are kept (complete the survey with --resume)",
                                                       "interrupted"]
