"""`wsim rebalance` (docs/interfaces.md §7): the smallest edit of the printed numbers after which every
wonder side's win rate is within a tolerance of the fair share, at every player count asked.

The search (docs/rebalance.md):
1. measure: N games of every player count with the current data, and the same N games (the same
   deals: an edit never changes them) with each lever LEVER_STEP units up (down where up would
   leave the field's bounds, FIELD_BOUNDS: levers.py); a side's paired difference in win rate per
   unit of the lever is a column of the linear model J (model.py);
2. solve: the integer edits t (per lever, relative to the input file) that make, in order, the
   fewest edited numbers and the least total change, such that the model's rates
   r + J (t - t_now) are within MARGIN x ACCEPT x tolerance of the fair share for every side and player
   count, |t| <= max_change, no number negative, at most max_edits numbers edited (scipy's MILP);
   when no edit can, those of the least worst deviation;
3. verify: N new games (seed + step) with the solved data; done when every side is within
   ACCEPT x tolerance, else the next step's model starts from these games (at most max_steps);
4. held out: the best data of the path (the fewest and least edits within ACCEPT x tolerance,
   else the least excess beyond it) against the input, paired, on a seed no step used
   (HELD_OUT_SEED_OFFSET from --seed: held_out.py), with enough games that every side's 95%
   half-width is at most half the tolerance (at most --max-games: a tolerance that would need
   more is refused before anything is played); its rates decide `solved`.
Every game comes from (seed, game), so the result depends on --seed only, not on threads; every
run is played a chunk at a time and only tallied (wsim.analysis.rebalance.games).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from wsim.analysis.edits import edited_text
from wsim.analysis.rebalance.games import Games, Rates, measure
from wsim.analysis.rebalance.held_out import HELD_OUT_SEED_OFFSET, held_out, held_out_games, people_lines
from wsim.analysis.rebalance.levers import data_for, edits_of
from wsim.analysis.rebalance.model import ACCEPT, jacobian, solve
from wsim.analysis.rebalance.plan import Plan
from wsim.people import columns as people_columns
from wsim.tables import Tables


@dataclass
class Step:
    """One point of the path: the total edits (lever -> change) and the rates they gave."""

    step: int
    changes: dict
    rates: Rates


@dataclass
class Result:
    """A rebalance's outcome: the path, the chosen edits, the held-out comparison."""

    levers: list
    path: list
    best: Step
    held_out: pd.DataFrame  # RESULT_COLUMNS
    held_out_seed: int
    held_out_games: int
    solved: bool
    max_deviation: float
    seconds: float
    games_played: int
    edits: list = field(default_factory=list)  # --edit texts
    data_text: str | None = None  # cards.yaml with only the edited lines changed (None: not possible)
    people_lines: list = field(default_factory=list)  # the held-out runs' distance to people (the page's first lines)
    edition: int = 1  # the input data's (codes.EDITIONS): people's games are of the first only
    files: dict = field(default_factory=dict)


def rebalance(base: Tables, levers: list, plan_: Plan, games: Games, on_event=None) -> Result:
    """The search and the held-out run (module docstring). on_event(text) follows the steps; the
    step in play is also shown by games.tracker (a bar's notes: the same texts)."""
    tracker = games.tracker

    def say(text: str):
        if on_event is not None:
            on_event(text)
        if tracker is not None:
            tracker.note(text)

    def step_is(text: str):
        if tracker is not None:
            tracker.step(text)

    started = time.perf_counter()
    step_is("step 0: the input")
    now = measure(games, base, plan_, plan_.seed, keep_bits=True)
    keys = sorted(k for k in now.seats if now.seats[k])
    path = [Step(0, {}, now)]
    say(f"step 0 (the input): max deviation {now.deviation():.3f}")
    changes: dict = {}
    current, seed = now, plan_.seed
    aim = ACCEPT * plan_.tolerance
    movable: set = set()  # the sides some lever was measured to move
    for step in range(1, plan_.max_steps + 1):
        if current.deviation() <= aim:
            break

        def on_lever(j: int, n: int, done: bool):
            if not done:
                step_is(f"step {step} of {plan_.max_steps}: lever {j} of {n}")
            elif j % 10 == 0 or j == n:
                say(f"  step {step}: lever {j} / {n}")

        jac = jacobian(games, base, levers, changes, current, plan_, seed, keys, on_lever)
        movable.update(keys[i] for i in np.flatnonzero(jac.any(axis=1)))
        proposed = solve(levers, changes, current, jac, keys, plan_)
        if proposed == changes:
            say(f"step {step}: no change the model prefers; the search ends")
            break
        # verified on new games, which the next step's model then starts from
        changes, seed = proposed, plan_.seed + step
        step_is(f"step {step} of {plan_.max_steps}: verification")
        current.bits = {}  # a verification's own bits replace the last run's: memory for one run's
        current = measure(games, data_for(base, levers, changes), plan_, seed, keep_bits=step < plan_.max_steps)
        path.append(Step(step, dict(changes), current))
        say(f"step {step}: {' '.join(edits_of(levers, changes)) or '(no edit)'}: max deviation "
            f"{current.deviation():.3f}")
    current.bits = {}
    best = min(path, key=lambda s: _preference(s, aim, movable))
    held_seed = plan_.seed + HELD_OUT_SEED_OFFSET
    # the step-0 run's own shares, never beyond --max-games (a priori within it: plan())
    held_games = min(plan_.max_games, max(plan_.games, held_out_games(now, plan_)))
    if tracker is not None:  # the rest of the bar: the held-out run as it is, not as estimated
        runs = 2 if best.changes else 1
        tracker.add_total(games.games + runs * held_games * len(plan_.settings) - tracker.total)
    step_is("the held-out run")
    table, after, aggregates = held_out(games, base, levers, best.changes, plan_, held_seed, held_games)
    table["wonder"] = [base.board_ids[b] for b in table["wonder"]]
    table = people_columns.with_people(table, base.edition)
    half = ((table["after_ci_high"] - table["after_ci_low"]) / 2).max() if len(table) else 0.0
    deviation = after.deviation()
    edits = edits_of(levers, best.changes)
    return Result(levers, path, best, table, held_seed, held_games,
                  solved=deviation <= plan_.tolerance and half <= plan_.tolerance / 2 + 1e-12,
                  max_deviation=deviation, seconds=time.perf_counter() - started, games_played=games.games,
                  edits=edits, data_text=edited_text(base, edits) if edits else base.raw.decode(),
                  people_lines=people_lines(plan_, aggregates, bool(best.changes), base.edition),
                  edition=base.edition)


def _preference(step: Step, tolerance: float, movable: set) -> tuple:
    """The order of the path's points: within tolerance first, then fewest edited numbers and
    least total change; outside it, the least excess beyond the tolerance summed over the sides
    some lever moves, then fewest and least. A side no lever moves is the same at every point
    but for the noise of each point's own games, which would otherwise decide between them."""
    size = (len(step.changes), sum(abs(v) for v in step.changes.values()))
    if step.rates.deviation() <= tolerance:
        return (0, 0.0, *size)
    return (1, step.rates.excess(tolerance, movable), *size)
