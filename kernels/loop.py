"""The game loop, written once: every decision from a state on, by the run's policies, until the
game is over. It serves whole games (kernels/game.py), a rollout's playouts (kernels/rollout.py,
with `search` None), a game driven from Python (wsim.run.stepgame.KernelGame.play_out) and the
profile twin of `wsim bench` (kernels/profile.py: the same loop given a `clock`, the scratch
record's timing array, kernels/timing.py; production passes None and compiles no timing).

A round asks `pending` who owes which decision, and each deciding seat takes its decision
(decide.take_decision: `legal` options, the policy's `decide`, `apply`); at the end of an age
(nothing pending) `end_age`. `search` is None when no seat plays rollout: numba drops the branch
on `search is not None` before typing, so that family never compiles the search, and the
playouts (which run with None) cannot reach the search again (numba compiles no recursion).
"""

import numpy as np
from numba import njit

from wsim.kernels import rollout  # a module, not its names: rollout's playouts call this loop back
from wsim.kernels.layout import DEC_MOVE, G_PHASE, PH_AGE_END
from wsim.kernels.decide import take_decision
from wsim.kernels.policy import POLICY_ROLLOUT
from wsim.kernels.step import end_age, pending
from wsim.kernels.timing import RESOLUTION, cycles


@njit(cache=True, inline="always")
def _reached(todo, k, stop):
    """Whether the round's decisions include seat stop[0]'s turn move for the stop[1]-th time
    since the count began (stop[1] counts down)."""
    for i in range(k):
        if todo[i, 0] == stop[0] and todo[i, 1] == DEC_MOVE:
            stop[1] -= 1
            return stop[1] == 0
    return False


@njit(cache=True, _nrt=False)
def play_out(ent, board, run, st, sc, log, search, clock, model, tape, stop):
    """Play state st on to the end of the game: every decision by the run's policies (module
    docstring). Writes the move log's game log.game when the log has rows (schema.LOG). clock: None, or the profile
    twin's timing array (a family of its own: production code holds no timing). model and
    tape: None, or the learned policy's model and a training tape (decide.take_decision).
    stop: None, or int64[2] (seat, moves): stop before seat's moves-th turn move from here (a
    truncated playout, kernels/rollout.py; stop[1] is 0 then, else the game is over)."""
    todo = sc.todo
    while True:
        k = pending(st, todo)
        if stop is not None and _reached(todo, k, stop):
            return
        if k == 0:
            if st.gs[G_PHASE] != PH_AGE_END:
                return
            t0 = np.uint64(0) if clock is None else cycles()
            end_age(st, log)
            if clock is not None:
                clock[RESOLUTION] += cycles() - t0
            continue
        for i in range(k):
            s = todo[i, 0]
            kind = todo[i, 1]
            who = todo[i, 2]
            if search is not None:
                if run.policies[who] == POLICY_ROLLOUT:
                    rollout.take_search_decision(ent, board, st, sc, s, kind, who, run, log, model, tape)
                    continue
            take_decision(ent, board, st, sc, s, kind, who, run, log, clock, model, tape)
