"""wsim.agents.mechanics: the use of each wonder stage and way of scoring, and tune's variety term."""

import numpy as np
import pytest

from wsim.kernels.heuristic import HEURISTIC_KEYS
from wsim.kernels.layout import RES_BOARD, RES_COUNT, RES_MILITARY, RES_SCIENCE, RES_SIDE, RES_STAGES
from wsim.agents.ladder import Entry
from wsim.agents.mechanics import MIN_SEATS, USE_FLOOR, shortfall, usage
from wsim.tables import load
from wsim.agents.tune import self_play_shortfall
from wsim.run.weights import default_params

TABLES = load()


def _res(rows):
    """res[games, 2 seats, RES_COUNT] from (board, side, stages, science, military) per seat."""
    res = np.zeros((len(rows) // 2, 2, RES_COUNT), dtype=np.int16)
    for i, (b, side, stages, science, military) in enumerate(rows):
        g, s = divmod(i, 2)
        res[g, s, [RES_BOARD, RES_SIDE, RES_STAGES, RES_SCIENCE, RES_MILITARY]] = (b, side, stages, science, military)
    return res


def test_usage_counts_stages_in_order_and_scoring_above_zero():
    giza = TABLES.board_id("giza")
    rhodes = TABLES.board_id("rhodes")
    res = _res([(giza, 1, 4, 0, -3), (giza, 1, 2, 10, 0),
                (giza, 1, 0, 0, 6), (rhodes, 0, 3, 1, 0)])
    use = usage(TABLES, res, 2)
    assert use["giza/B stage 1"] == (2, 3) and use["giza/B stage 2"] == (2, 3)
    assert use["giza/B stage 3"] == (1, 3) and use["giza/B stage 4"] == (1, 3)
    assert use["giza/A stage 1"] == (0, 0) and "giza/A stage 4" not in use  # Giza A has 3 stages
    assert use["rhodes/A stage 3"] == (1, 1)
    assert use["science points"] == (2, 4) and use["military points"] == (1, 4)  # -3 is no use


def test_usage_ignores_the_free_city_row():
    res = _res([(TABLES.board_id("giza"), 0, 3, 5, 5)] * 2)
    assert usage(TABLES, res, 1)["science points"] == (1, 1)


def test_shortfall_sums_the_gaps_below_the_floor_of_judged_mechanics_only():
    assert shortfall({"a": (30, 100), "b": (100, 100)}) == 0
    assert shortfall({"a": (10, 100), "b": (0, 200)}) == pytest.approx((USE_FLOOR - 0.1) + USE_FLOOR)
    assert shortfall({"rare": (0, MIN_SEATS - 1)}) == 0


def test_tune_penalises_weights_whose_self_play_leaves_science_unplayed():
    shipped = default_params("heuristic")
    no_science = list(shipped)
    no_science[HEURISTIC_KEYS.index("science")] = 0
    args = (4, 400, 5, 0)
    assert self_play_shortfall(TABLES, Entry("heuristic", "shipped", shipped), *args) == 0
    assert self_play_shortfall(TABLES, Entry("heuristic", "blind", tuple(no_science)), *args) > 0.05
