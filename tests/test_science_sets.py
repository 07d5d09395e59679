"""Science sets in the play tables (issue 38, Deliver 5): a city's complete sets at the final count,
its wildcards placed as its science points place them, counted from its buildings and stages and
held to the engine's science points; the same counts from the kernels' rows (ladder) and from a
dataset's columns (survey)."""

import numpy as np
import pytest

import wsim
from wsim.reference.science import science_sets
from wsim.run.runner import SETS_COLUMN, Runner, with_science_sets
from wsim.run.settings import build_settings
from wsim.kernels.layout import RES_SCIENCE


@pytest.mark.parametrize("counts, wild, points, sets", [
    ([3, 2, 1], 0, 9 + 4 + 1 + 7, 1),
    ([1, 1, 0], 1, 3 + 7, 1),  # the wildcard completes the set (10) rather than a pair (5)
    ([2, 0, 0], 1, 9, 0),  # a third compass (9) beats a set-less spread (5)
    ([0, 0, 0], 2, 4, 0),
    ([1, 1, 1], 1, 6 + 7, 1),
    ([2, 2, 2], 0, 12 + 14, 2),
    ([1, 1, 0], 0, 10, 1),  # 10 points from two symbols: a copied wildcard (Olympia B, Manneken Pis)
])
def test_sets_follow_the_points(counts, wild, points, sets):
    got = science_sets(np.array([counts]), np.array([wild]), np.array([points]))
    assert got.tolist() == [sets]


def test_points_no_placement_makes_are_an_error():
    with pytest.raises(ValueError, match="no placement scores them"):
        science_sets(np.array([[0, 0, 0]]), np.array([0]), np.array([5]))


@pytest.mark.parametrize("players, manneken_pis", [(2, False), (3, True), (5, False), (7, True)])
def test_the_kernels_rows_carry_sets_that_their_points_agree_with(tables, players, manneken_pis):
    settings = build_settings(tables, players=players, seed=4, games=300, policies=["heuristic"] * players,
                              manneken_pis=manneken_pis)
    chunk = Runner(tables, settings).play(0, 300)
    res = with_science_sets(tables, chunk)  # raises where a city's symbols cannot make its points
    assert res.shape[2] == SETS_COLUMN + 1 and (res[:, :, :SETS_COLUMN] == chunk.res).all()
    sets = res[:, :, SETS_COLUMN]
    # a set is worth 7 of the points at least, and the points' square terms need as many symbols
    assert (7 * sets.astype(int) + 3 * sets <= res[:, :, RES_SCIENCE]).all()
    assert sets.max() >= 1 and sets.min() == 0


def test_the_survey_counts_the_sets_the_kernels_count(tables, tmp_path):
    """The dataset route (names, wonder ids, sides as text) and the kernels' route (ids) agree."""
    from wsim.analysis.balance import read

    settings = build_settings(tables, players=4, seed=6, games=400, policies=["heuristic"] * 4)
    res = with_science_sets(tables, Runner(tables, settings).play(0, 400))
    wsim.simulate(games=400, players=4, policies="heuristic", seed=6, out=tmp_path / "d")
    con = read.connect()
    got = read.science_sets_table(con, read.open_dataset(tmp_path / "d", tables), tables)
    per_game = res[:, :, SETS_COLUMN].mean(axis=1)
    assert got.players.tolist() == [4]
    assert got.mean_sets.iloc[0] == pytest.approx(per_game.mean(), abs=1e-12)
    assert got.sd_sets.iloc[0] == pytest.approx(per_game.std(ddof=1), abs=1e-12)
