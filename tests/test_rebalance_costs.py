"""`wsim rebalance --fields costs` (issue 40): a cost's counts as integer levers, within the
designer's constraints (no count below zero, the trading solver's units, at most K resource units
changed, a resource kind kept or not), and a planted cost change found and undone on held-out
games."""

import csv
import io
import re

import numpy as np
import pytest

from wsim.analysis.edits import apply_edits
from wsim.analysis.rebalance.games import Rates
from wsim.analysis.rebalance.levers import LEVER_STEP, Lever, lever_move, parse_fields, parse_levers
from wsim.analysis.rebalance.model import solve
from wsim.analysis.rebalance.plan import Plan, RebalanceError
from wsim.codes import RESOURCES
from wsim.kernels.schema import MAX_COST_UNITS

from clikit import last_error_line, run_cli


def _stage(t, wonder, side, k):
    return t.stage_entity(t.board_id(wonder), "AB".index(side), k - 1)


@pytest.mark.parametrize("text, fields", [
    ("costs", ("costs",)), ("points,costs", ("points", "costs")), ("costs, points", ("points", "costs")),
    ("both", ("points", "coins")), ("both,costs", ("points", "coins", "costs")), ("COINS", ("coins",)),
])
def test_fields_take_a_comma_list(text, fields):
    assert parse_fields(text) == fields


@pytest.mark.parametrize("text", ["walls", "points,", "", "cost"])
def test_bad_fields_are_refused(text):
    with pytest.raises(RebalanceError, match=r"^(--)?fields: "):
        parse_fields(text)


def test_the_cost_levers_of_giza_kept_kinds(tables):
    levers = parse_levers("stages:giza", "costs", tables, False)
    got = [(lv.subject, lv.field, lv.value, lv.low, lv.high) for lv in levers]
    # each count may rise until its cost holds MAX_COST_UNITS (7) resource units, at most 9
    assert got == [("giza/A.stage1", "cost:stone", 2, 0, 7), ("giza/A.stage2", "cost:wood", 3, 0, 7),
                   ("giza/A.stage3", "cost:stone", 4, 0, 7), ("giza/B.stage1", "cost:wood", 2, 0, 7),
                   ("giza/B.stage2", "cost:stone", 3, 0, 7), ("giza/B.stage3", "cost:clay", 3, 0, 7),
                   ("giza/B.stage4", "cost:stone", 4, 0, 6), ("giza/B.stage4", "cost:papyrus", 1, 0, 3)]
    assert all(lv.units for lv in levers)


def test_any_kind_may_join_a_cost_and_cards_have_coin_levers(tables):
    stages = parse_levers("stages:giza", "costs", tables, False, "any")
    assert len(stages) == 7 * len(RESOURCES)  # every resource of every stage; a stage has no coin cost
    cards = parse_levers("cards:Tavern,Baths", "points,costs", tables, False, "any")
    tavern = [lv.field for lv in cards if lv.subject == "Tavern"]
    assert tavern == ["points"] + [f"cost:{r}" for r in RESOURCES] + ["cost:coins"]
    kept = parse_levers("cards:Tavern,Baths", "costs", tables, False)  # Tavern is free: nothing to change
    assert [(lv.subject, lv.field, lv.value) for lv in kept] == [("Baths", "cost:stone", 1)]
    coins = next(lv for lv in cards if lv.subject == "Baths" and lv.field == "cost:coins")
    assert (coins.value, coins.low, coins.high, coins.units) == (0, 0, 20, False)
    with pytest.raises(RebalanceError, match="^cost_kinds: must be one of kept, any"):
        parse_levers("stages:giza", "costs", tables, False, "some")


@pytest.mark.parametrize("change, edit, stone", [
    (-3, "giza/A.stage3.cost-=stone:3", 1), (1, "giza/A.stage3.cost+=stone", 5), (2, "giza/A.stage3.cost+=stone:2", 6),
])
def test_a_cost_lever_edits_its_count(tables, change, edit, stone):
    (lever,) = [lv for lv in parse_levers("stages:giza", "costs", tables, False) if lv.subject == "giza/A.stage3"]
    assert lever.edit(change) == edit
    edited = apply_edits(tables, [edit])
    e = _stage(tables, "giza", "A", 3)
    assert int(edited.ent_cost[e, RESOURCES.index("stone")]) == stone
    assert edited.ent_cost[e].sum() == stone  # nothing else of the cost moved


def test_a_cost_lever_is_measured_within_the_solvers_units(tables):
    levers = parse_levers("stages:giza", "costs", tables, False)
    stone, papyrus = (next(i for i, lv in enumerate(levers) if (lv.subject, lv.field) == ("giza/B.stage4", f))
                      for f in ("cost:stone", "cost:papyrus"))
    assert lever_move(levers, {}, stone) == LEVER_STEP  # 4 + 2 stone and 1 papyrus: 7 units
    assert lever_move(levers, {papyrus: 1}, stone) == -LEVER_STEP  # 2 papyrus leave room for 1 stone only
    assert lever_move(levers, {stone: 2}, papyrus) == -1  # 6 stone: papyrus can go 1 down, not 2
    single = [Lever("x", "cost:stone", 0, 0, 0, 1)]
    assert lever_move(single, {}, 0) == 1 and lever_move(single, {0: 1}, 0) == -1
    assert lever_move([Lever("x", "cost:stone", 0, 0, 0, 0)], {}, 0) == 0  # no room: not measured


def _solve(levers, jac, rate, plan_kw=None):
    """solve() on one side at 3 players whose rate is `rate` (fair 1/3), the others at fair."""
    keys = [(3, 0, 0), (3, 0, 1)]
    now = Rates(seats={k: 3000 for k in keys}, wins={keys[0]: int(rate * 3000), keys[1]: 1000},
                fair={3: 1 / 3})
    plan = Plan("p", {3: None}, 3000, 0, 0.04, 6, 3, 4, **(plan_kw or {}))
    return solve(levers, {}, now, np.array(jac, dtype=float), keys, plan)


def test_solve_keeps_costs_within_the_designers_limits():
    stone = Lever("giza/A.stage3", "cost:stone", 4, 7, 0, 7)
    # each stone added takes 4 points of win share from the side: 12 points too strong needs 3 stones
    assert _solve([stone], [[-0.04], [0.0]], 0.4533) == {0: 3}
    # at most 2 resource units changed: the least excess within that
    assert _solve([stone], [[-0.04], [0.0]], 0.4533, {"max_resources": 2}) == {0: 2}
    # the cost's other count holds 2 units: 4 + 2 leaves room for one stone in MAX_COST_UNITS, so
    # three stones in take two wood out (the fewest, then least, changes that reach the goal)
    other = Lever("giza/A.stage3", "cost:wood", 2, 7, 0, 5)
    assert MAX_COST_UNITS == 7
    assert _solve([stone, other], [[-0.04, 0.0], [0.0, 0.0]], 0.4533) == {0: 3, 1: -2}
    # nothing below zero: a cost of 1 cannot drop by 3 to make a weak side stronger
    weak = Lever("x", "cost:stone", 1, 7, 0, 7)
    assert _solve([weak], [[-0.04], [0.0]], 0.2133) == {0: -1}


@pytest.mark.parametrize("args, message", [
    (["--fields", "walls"], "--fields: points, coins or costs"),
    (["--fields", "costs", "--cost-kinds", "some"], "--cost-kinds"),
    (["--fields", "costs", "--max-resources", "0"], "--max-resources: must be a whole number from 1"),
    (["--fields", "costs", "--levers", "cards:Tavern"], "--levers: 'cards:Tavern' leaves no number to change"),
    (["--max-resources", "3"], "Error: --max-resources 3: shapes the cost levers, and --fields points makes none; "
                               "add costs (--fields points,costs)"),
    (["--fields", "both", "--cost-kinds", "any"], "Error: --cost-kinds any: shapes the cost levers, and --fields "
                                                  "points,coins makes none; add costs (--fields points,coins,costs)"),
])
def test_bad_cost_options_write_nothing(tmp_path, args, message):
    result = run_cli("rebalance", "--games", "10", *args, "--out", str(tmp_path / "r"))
    assert result.exit_code == 2
    assert last_error_line(result).startswith("Error: ") and message in last_error_line(result), result.output
    assert not (tmp_path / "r").exists()


def test_the_cost_options_without_costs_are_refused_from_python_too(tmp_path):
    import wsim

    for options, message in (({"max_resources": 3}, "max_resources 3: shapes the cost levers, and fields points "
                                                    "makes none; add costs (fields points,costs)"),
                             ({"cost_kinds": "any"}, "cost_kinds any: shapes the cost levers")):
        with pytest.raises(RebalanceError, match=re.escape(message)):
            wsim.rebalance(out=tmp_path / "r", games=10, **options)
        assert not (tmp_path / "r").exists()


PLANTED = "giza/A.stage3.cost=stone"  # four stones in the rules


def _rows(path) -> list:
    return list(csv.DictReader(io.StringIO(path.read_text())))


@pytest.mark.slow
def test_a_planted_cost_is_found_and_undone_on_held_out_games(tmp_path, tables):
    """Giza A's third stage at one stone instead of four (+12 points of win share at 4 players,
    from 19.6% to 31.7%: `wsim ablate`, 20,000 games): a cost search over Giza's stages makes
    Giza A dearer, and on held-out games the side's distance from fair is at most half what it
    was (undoing the whole plant would leave Giza A as weak as it was, 5 points under fair)."""
    data = tmp_path / "planted.yaml"
    data.write_text(apply_edits(tables, [PLANTED]).raw.decode())
    out = tmp_path / "report"
    result = run_cli("--data", str(data), "rebalance", "--players", "4", "--levers", "stages:giza", "--fields",
                     "costs", "--games", "2000", "--tolerance", "0.04", "--max-steps", "1", "--seed", "1",
                     "--threads", "2", "--out", str(out))
    assert result.exit_code == 0, result.output
    edits = out.joinpath("edits.txt").read_text().split()
    assert edits and all(e.startswith("giza/A.") and ".cost+=" in e for e in edits), edits
    rows = _rows(out / "result.csv")
    fair = sum(float(r["before"]) * int(r["seats"]) for r in rows) / sum(int(r["seats"]) for r in rows)
    row = next(r for r in rows if r["wonder"] == "giza" and r["side"] == "A")
    before, after = float(row["before"]) - fair, float(row["after"]) - fair
    assert before > 0.04  # the plant shows on the held-out games
    assert abs(after) <= before / 2  # and the cost edits undo at least half of it
