"""The linear model of a rebalance step: each lever's paired effect on every side's win rate,
measured (jacobian), and the integer edits it says bring every side near the fair share, solved
as a mixed-integer linear program (solve: scipy's MILP)."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager

import numpy as np

from wsim.analysis.rebalance.games import Games, Rates, lever_sums, paired_mean_se
from wsim.analysis.rebalance.levers import data_for, lever_move
from wsim.analysis.rebalance.plan import Plan
from wsim.kernels.schema import MAX_COST_UNITS
from wsim.tables import Tables

ACCEPT = 0.85  # the search stops at this share of the tolerance: the held-out run has room for its noise
MARGIN = 0.75  # the model is asked for this share of that: the verification has room for its own
SIGNIFICANT = 3.0  # a lever's measured effect on a side enters the model beyond this many standard errors


def jacobian(games: Games, base: Tables, levers: list, changes: dict, now: Rates, plan_: Plan, seed: int,
             keys: list, on_lever=None) -> np.ndarray:
    """J[side, lever]: each side's paired rate difference per unit when the lever moves
    LEVER_STEP units (lever_move), kept only where it is significant (at least SIGNIFICANT
    standard errors of the paired differences): a lever moves its own side's rate, and its faint
    effects on the others, measured on a finite number of games, would be noise the solver
    could exploit. on_lever(j, n, done) before (done False) and after lever j (1-based) of n is
    measured."""
    out = np.zeros((len(keys), len(levers)))
    for j, lever in enumerate(levers):
        if on_lever is not None:
            on_lever(j + 1, len(levers), False)
        move = lever_move(levers, changes, j)
        if move:  # else no room either way: its column stays 0 and the solver keeps it where it is
            moved = dict(changes)
            moved[j] = moved.get(j, 0) + move
            sums = lever_sums(games, data_for(base, levers, moved), plan_, seed, now)
            for i, key in enumerate(keys):  # the same deals: the same seats, in the same order
                mean, se = paired_mean_se(now.seats[key], *sums[key])
                if abs(mean) >= SIGNIFICANT * se and mean != 0:
                    out[i, j] = mean / move
        if on_lever is not None:
            on_lever(j + 1, len(levers), True)
    return out


def solve(levers: list, changes: dict, now: Rates, jac: np.ndarray, keys: list, plan_: Plan) -> dict:
    """The total changes the linear model says bring every side within MARGIN x ACCEPT x tolerance
    of the fair share: fewest edited numbers, then least total change. When no change within the limits
    can, those of the least total excess beyond it (summed over the sides), then fewest and least
    (wsim.analysis.rebalance.search, step 2)."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    n, k = len(levers), len(keys)
    m = plan_.max_change
    goal = MARGIN * ACCEPT * plan_.tolerance
    current = np.array([changes.get(j, 0) for j in range(n)], dtype=float)
    # within the levers' bounds: nothing negative, nothing a data file refuses
    lo = np.array([max(-m, lv.low - lv.value) for lv in levers], dtype=float)
    hi = np.array([min(m, lv.high - lv.value) for lv in levers], dtype=float)
    target = np.array([now.fair[key[0]] - now.rate(key) for key in keys]) + jac @ current  # J t must give this
    # variables: t (n integers), |t| (n), edited (n binaries), each side's excess beyond the goal (k)
    size = 3 * n + k
    rows, low, high = [], [], []

    def row(entries, a, b):
        r = np.zeros(size)
        for idx, v in entries:
            r[idx] = v
        rows.append(r)
        low.append(a)
        high.append(b)

    for j in range(n):
        row([(j, 1), (n + j, -1)], -np.inf, 0)  # t <= |t|
        row([(j, -1), (n + j, -1)], -np.inf, 0)  # -t <= |t|
        row([(j, 1), (2 * n + j, -m)], -np.inf, 0)  # an edited number is one with t != 0
        row([(j, -1), (2 * n + j, -m)], -np.inf, 0)
    row([(2 * n + j, 1) for j in range(n)], -np.inf, plan_.max_edits)
    for entity in {lv.entity for lv in levers if lv.units}:  # a cost within the trading solver's units
        group = [j for j, lv in enumerate(levers) if lv.units and lv.entity == entity]
        row([(j, 1) for j in group], -np.inf, MAX_COST_UNITS - sum(levers[j].value for j in group))
    if plan_.max_resources is not None:  # the designer's limit on resource units changed, over every cost
        row([(n + j, 1) for j, lv in enumerate(levers) if lv.units], -np.inf, plan_.max_resources)
    for i in range(k):  # |J t - target| <= goal + excess
        entries = [(j, jac[i, j]) for j in range(n) if jac[i, j] != 0]
        row(entries + [(3 * n + i, -1)], -np.inf, target[i] + goal)
        row(entries + [(3 * n + i, 1)], target[i] - goal, np.inf)
    integrality = np.r_[np.ones(n), np.zeros(n), np.ones(n), np.zeros(k)]
    lower = np.r_[lo, np.zeros(2 * n + k)]
    upper = np.r_[hi, np.full(n, m), np.ones(n), np.full(k, np.inf)]
    constraints = [LinearConstraint(np.array(rows), np.array(low), np.array(high))]
    with _c_output_silenced():
        excess = milp(np.r_[np.zeros(3 * n), np.ones(k)], integrality=integrality, bounds=Bounds(lower, upper),
                      constraints=constraints)
    if not excess.success:
        return dict(changes)
    # then the fewest edited numbers and the least change with no more excess than that
    allowed = excess.x[3 * n:].sum() * (1 + 1e-6) + 1e-9
    constraints.append(LinearConstraint(np.r_[np.zeros(3 * n), np.ones(k)][None, :], -np.inf, allowed))
    fewest = np.r_[np.zeros(n), np.ones(n), np.full(n, 2 * n * m + 1), np.zeros(k)]
    with _c_output_silenced():
        found = milp(fewest, integrality=integrality, bounds=Bounds(lower, upper), constraints=constraints)
    x = found.x if found.success else excess.x
    return {j: int(round(x[j])) for j in range(n) if round(x[j]) != 0}


@contextmanager
def _c_output_silenced():
    """File descriptor 1 sent to /dev/null: HiGHS (scipy's MILP) prints a debugging line to the C
    stdout in some searches, which would land among the command's own output."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
