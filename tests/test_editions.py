"""`wsim editions` (docs/interfaces.md §6): the first and the second edition side by side, and each
designer change replayed alone on the first. A tiny end-to-end run (two populations, one count,
a few hundred games) is read back: every table's columns, every change listed with edits that
apply, a side's numbers recounted from the datasets, the same bytes from a second run and from a
resumed one; the bootstrap with unit weights gives the observed numbers; the refusals."""

import json
import shutil

import numpy as np
import pandas as pd
import pyarrow.dataset as pds
import pytest

import wsim
from clikit import last_error_line, run_cli
from wsim import tables
from wsim.analysis import edition_changes, editions_tables
from wsim.analysis.editions_plan import FILES, make_plan
from wsim.analysis.edits import apply_edits
from wsim.dataset.folder import LOCK

TINY = dict(populations="heuristic,greedy", players="4", games=300, change_games=200, threads=1)
TINY_ARGS = ("--populations", "heuristic,greedy", "--players", "4", "--games", "300", "--change-games", "200",
             "--threads", "1")


def _first_second():
    return tables.load(tables.edition_path(1)), tables.load(tables.edition_path(2))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("editions") / "run"
    result = run_cli("editions", *TINY_ARGS, "--quiet", "--out", str(out))
    assert result.exit_code == 0, result.stderr
    return out, result


# -- what the designer changed, as data ----------------------------------------------------------------

def test_the_board_changes_come_from_diffing_the_two_data_files():
    first, second = _first_second()
    changes, unplayable = edition_changes.board_changes(first, second)
    assert [c.id for c in changes] == ["alexandria-A-costs", "alexandria-B-costs", "ephesus-A-costs",
                                       "ephesus-B-costs", "halicarnassus-A-costs", "halicarnassus-B-costs",
                                       "giza-A-costs"]  # Rhodes and Giza B are unchanged
    assert [u.id for u in unplayable] == ["babylon-A", "babylon-B", "olympia-A", "olympia-B"]
    giza = next(c for c in changes if c.id == "giza-A-costs")
    assert giza.edits == ("giza/A.stage1.cost=wood:2", "giza/A.stage2.cost=clay:2,loom")
    edited = apply_edits(first, list(giza.edits))
    board = first.board_id("giza")
    for k in range(3):  # each stage now costs what the second edition's does
        e, e2 = edited.stage_entity(board, 0, k), second.stage_entity(board, 0, k)
        assert (edited.ent[e] == second.ent[e2]).all()


def test_every_change_applies_and_the_rest_say_why_not():
    first, second = _first_second()
    changes, unplayable = edition_changes.all_changes(first, second)
    for change in changes:
        apply_edits(first, list(change.edits))
        assert change.subjects
    assert {u.id for u in unplayable} >= {"town-hall-copies", "arena-copies", "circus-copies", "arsenal-copies",
                                          "ludus-new", "castrum-new"}
    assert all(u.reason for u in unplayable)


# -- the tiny run ---------------------------------------------------------------------------------------

COLUMNS = {"sides.csv": editions_tables.SIDE_COLUMNS, "spread.csv": editions_tables.SPREAD_COLUMNS,
           "cards.csv": editions_tables.CARD_COLUMNS, "changes.csv": editions_tables.CHANGE_COLUMNS,
           "whole.csv": editions_tables.WHOLE_COLUMNS}


@pytest.mark.slow
def test_every_table_has_its_columns_and_rows(tiny):
    out, result = tiny
    assert sorted(p.name for p in out.iterdir() if p.name != LOCK) == sorted([*FILES, "data"])
    assert result.stdout.startswith("wsim editions: the first edition")
    for name, columns in COLUMNS.items():
        table = pd.read_csv(out / name)
        assert tuple(table.columns) == columns, name
    sides = pd.read_csv(out / "sides.csv")
    assert len(sides) == 2 * 2 * 14 and set(sides.edition) == {1, 2} and set(sides.players) == {4}
    assert ((sides.ci_low <= sides.win_rate) & (sides.win_rate <= sides.ci_high)).all()
    spread = pd.read_csv(out / "spread.csv")
    assert len(spread) == 4 and np.allclose(spread.spread, spread.strongest_rate - spread.weakest_rate, atol=2e-6)
    assert (spread.spread_ci_low < spread.spread_ci_high).all()
    cards = pd.read_csv(out / "cards.csv", keep_default_na=False)
    only = cards[cards.in_editions != "both"]
    assert set(only.card) >= {"Pawnshop", "Strategists Guild", "Well", "Decorators Guild", "Castrum"}  # no Ludus at 4
    assert set(cards[cards.card == "Well"].counterpart) == {"Pawnshop"}
    whole = pd.read_csv(out / "whole.csv")
    assert list(whole.row.value_counts().sort_index()) == [2 * 14, 2]  # side, spread
    assert (whole.q_value.notna() == (whole.row == "side")).all()
    text = (out / "summary.txt").read_text()
    assert "The spread" in text and "Not replayable alone (10)" in text


@pytest.mark.slow
def test_changes_lists_every_change_with_edits_that_apply(tiny):
    out, _ = tiny
    first, second = _first_second()
    plan = make_plan(first, second, [4], ["heuristic", "greedy"], 0, False, games=300, change_games=200)
    changes = pd.read_csv(out / "changes.csv", keep_default_na=False)
    assert list(dict.fromkeys(changes.change)) == [c.id for c in plan.changes] + [u.id for u in plan.unplayable]
    for change in plan.changes:
        rows = changes[changes.change == change.id]
        assert list(rows.subject) == [s.label for s in change.subjects]
        assert set(rows.status) == {"played"} and set(rows.population) == {"heuristic"}
        edits = rows.edits.iloc[0].split(editions_tables.EDITS_JOIN)
        assert tuple(edits) == change.edits
        apply_edits(first, edits)
    assert set(changes[changes.edits == ""].status) == {"not replayable alone"}
    played = changes[(changes.status == "played") & (changes["diff"] != "")]
    assert played.q_value.ne("").all() and len(played) >= 15
    side = changes[changes.change == "giza-A-costs"].iloc[0]
    assert side.metric == "win_rate" and side.subject == "giza/A"
    # a side's paired difference is ablate's: the mean of the per-seat differences of the same games
    rows = {}
    for run in ("baseline", "giza-A-costs"):
        seats = pds.dataset(sorted((out / "data/changes/P4" / run).glob("part-*.parquet"))).to_table(
            columns=["game", "seat", "wonder", "side", "win"]).to_pandas()
        rows[run] = seats[(seats.wonder == "giza") & (seats.side == "A")].set_index(["game", "seat"]).win
    assert float(side.baseline) == pytest.approx(rows["baseline"].mean(), abs=1e-6)
    assert float(side["diff"]) == pytest.approx((rows["giza-A-costs"].astype(int) - rows["baseline"].astype(int))
                                                .mean(), abs=1e-6)


@pytest.mark.slow
def test_a_side_recounted_from_the_datasets(tiny):
    out, _ = tiny
    sides = pd.read_csv(out / "sides.csv")
    whole = pd.read_csv(out / "whole.csv")
    for edition in (1, 2):
        seats = pds.dataset(sorted((out / f"data/edition-{edition}/P4/heuristic").glob("part-*.parquet"))).to_table(
            columns=["wonder", "side", "win"]).to_pandas()
        mine = seats[(seats.wonder == "rhodes") & (seats.side == "B")]
        row = sides[(sides.edition == edition) & (sides.population == "heuristic") & (sides.wonder == "rhodes")
                    & (sides.side == "B")].iloc[0]
        assert (row.seats, row.wins) == (len(mine), int(mine.win.sum()))
        assert row.win_rate == pytest.approx(mine.win.mean(), abs=1e-6)
        assert row.fair_share == pytest.approx(seats.win.mean(), abs=1e-6)
        w = whole[(whole.row == "side") & (whole.population == "heuristic") & (whole.wonder == "rhodes")
                  & (whole.side == "B")].iloc[0]
        assert w[f"seats_{edition}e"] == len(mine) and w[f"value_{edition}e"] == pytest.approx(mine.win.mean(),
                                                                                               abs=1e-6)


@pytest.mark.slow
def test_the_bootstrap_with_unit_weights_is_the_observed_table(tiny):
    """Every resample weighted 1: the rates are the win rates, the VPs the survey's handicaps."""
    out, _ = tiny
    from wsim.analysis.balance import read

    class Ones:
        def poisson(self, lam, size):
            return np.ones(size)

    first = tables.load(tables.edition_path(1))
    sides = pd.read_csv(out / "sides.csv")
    rows = sides[(sides.edition == 1) & (sides.population == "greedy")].reset_index(drop=True)
    ds = read.open_dataset(out / "data/edition-1/P4/greedy", first)
    rates, vps = editions_tables.bootstrap(editions_tables.seat_margins(ds), rows, Ones(), resamples=3)
    assert np.allclose(rates, rows.win_rate.to_numpy(), atol=1e-6)
    assert np.allclose(vps, rows.vp.to_numpy(), atol=1e-5)


@pytest.mark.slow
def test_a_resumed_run_gives_the_uninterrupted_runs_bytes(tiny, tmp_path):
    """An interrupted run (a copy of the tiny one with a change's dataset and every table gone)
    completed by --resume: the change is played again and every table rebuilt, byte for byte
    the uninterrupted run's (the tables hold no date; a dataset's games are the seed's)."""
    out, _ = tiny
    again = tmp_path / "again"
    shutil.copytree(out, again)
    shutil.rmtree(again / "data/changes/P4/altar-points")
    for name in FILES:
        (again / name).unlink()
    options = json.loads((again / "data/options.json").read_text())
    with pytest.raises(wsim.WsimError, match="--resume|resume: .* was played with games"):
        wsim.editions(out=str(again), **{**TINY, "games": 301}, resume=True)
    assert options == json.loads((again / "data/options.json").read_text())
    result = wsim.editions(out=str(again), **TINY, resume=True)
    for name in FILES:
        assert (again / name).read_bytes() == (out / name).read_bytes(), name
    assert list(result.changes.columns) == list(editions_tables.CHANGE_COLUMNS)
    assert result.summary == (out / "summary.txt").read_text()


# -- refusals -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (("--players", "2"), "--players: the two editions are compared at 3 to 7 players"),
    (("--players", "3,8"), "--players: the two editions are compared at 3 to 7 players"),
    (("--players", "x"), "--players: player counts such as 4 or 3,4,5"),
    (("--populations", "heuristic,rollout"), "--populations: unknown population 'rollout'"),
    (("--populations", "greedy,greedy"), "--populations: 'greedy' is named twice"),
    (("--games", "5"), "--games: must be a whole number from 10"),
    (("--change-games", "0"), "--change-games: must be a whole number from 10"),
    (("--overwrite", "--resume"), "give one or the other"),
])
def test_bad_options_are_refused_and_nothing_is_written(tmp_path, args, message):
    out = tmp_path / "ed"
    result = run_cli("editions", "--populations", "greedy", "--games", "20", *args, "--out", str(out))
    assert result.exit_code == 2
    assert last_error_line(result).startswith("Error:") and message in last_error_line(result)
    assert not out.exists()


def test_a_folder_with_other_contents_is_refused(tmp_path):
    out = tmp_path / "ed"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    for mode, message in (((), "is not empty (use --overwrite"), (("--resume",), "holds no comparison to resume")):
        result = run_cli("editions", "--populations", "greedy", "--games", "20", *mode, "--out", str(out))
        assert result.exit_code == 2 and message in last_error_line(result)
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]


def test_a_data_file_is_refused(tmp_path):
    out = tmp_path / "ed"
    result = run_cli("--edition", "2", "editions", "--populations", "greedy", "--out", str(out))
    assert result.exit_code == 2 and "plays the two shipped data files" in last_error_line(result)
    assert not out.exists()


def test_a_change_that_changes_no_game_at_a_count_is_not_played_there():
    """The Well's chain at 3 players: the Pawnshop is not dealt there (ablate lets the edit
    through: the Statue it changes is dealt)."""
    from wsim.analysis.editions_plan import NOT_IN_PLAY, prepare

    first, second = _first_second()
    plan = make_plan(first, second, [3, 4], ["greedy"], 0, False, games=20, change_games=20)
    prepared = prepare(first, second, plan)
    assert prepared.skipped == {("well-chain", 3): (NOT_IN_PLAY, "Pawnshop is not dealt at 3 players: a chain "
                                                                  "from it changes no game")}
    assert ("well-chain", 4) in prepared.runs and ("chains", 3) in prepared.runs


def test_a_learned_population_does_not_play_a_replaced_card():
    """A learned model knows the cards by name: the Decorators Guild is a building it never saw."""
    from wsim.analysis.editions_plan import NOT_PLAYABLE, prepare
    from wsim.run.model import SHIPPED_BY_EDITION

    if not SHIPPED_BY_EDITION[2].exists():
        pytest.skip("no shipped second-edition model here")
    first, second = _first_second()
    plan = make_plan(first, second, [4], ["learned", "heuristic"], 0, False, games=20, change_games=20)
    prepared = prepare(first, second, plan)
    status, reason = prepared.skipped["decorators-guild", 4]
    assert status == NOT_PLAYABLE and reason.startswith("learned cannot play it")
    assert ("altar-points", 4) in prepared.runs
