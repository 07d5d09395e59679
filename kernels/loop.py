"""The game loop, written once: every decision from a state on, by the run's policies, until the
game is over or its `stop`. It serves whole games (kernels/game.py), a rollout's playouts
(kernels/rollout.py, with `search` None; a truncated playout stops at a seat's turn move), a game
driven from Python (wsim.run.stepgame.KernelGame.play_out), the batched environment's kernel seats
(kernels/batched.py: it stops where only learners' decisions are pending) and the profile twin of
`wsim bench` (kernels/profile.py: the same loop given a `clock`, the scratch
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
def learns(learner, game, who, players):
    """Whether seat who of game `game` is a learner: learner[:players] marks the learner seats,
    rotated one seat on per game when learner[players] is 1 (game i's seat who is then the seat
    (who - i) mod players of the mask); an empty mask marks none."""
    return learner.shape[0] > 0 and learner[(who - learner[players] * game) % players] == 1


@njit(cache=True, inline="always")
def _reached(todo, k, seat):
    """Whether the round's decisions include seat's turn move."""
    for i in range(k):
        if todo[i, 0] == seat and todo[i, 1] == DEC_MOVE:
            return True
    return False


@njit(cache=True, _nrt=False)
def play_out(ent, board, run, st, sc, log, search, clock, model, tape, stop):
    """Play state st on: every decision by the run's policies (module docstring), to the end of
    the game unless `stop` says otherwise; returns how many decisions are left pending (sc.todo),
    0 when the game is over. Writes the move log's game log.game when the log has rows
    (schema.LOG). clock: None, or the profile twin's timing array (a family of its own:
    production code holds no timing). model and tape: None, or the learned policy's model and a
    training tape (decide.take_decision). stop: None, or a schema.Stop: stop before its seat's
    moves-th turn move from here (a truncated playout, kernels/rollout.py; seat -1: never), and
    take no decision of its learner seats (`learns`): return once every pending decision is a
    learner's (the batched environment, kernels/batched.py)."""
    todo = sc.todo
    moves_left = 0 if stop is None else stop.moves
    while True:
        k = pending(st, todo)
        if stop is not None:
            if _reached(todo, k, stop.seat):
                moves_left -= 1
                if moves_left == 0:
                    return k
        if k == 0:
            if st.gs[G_PHASE] != PH_AGE_END:
                return 0
            t0 = np.uint64(0) if clock is None else cycles()
            end_age(st, log)
            if clock is not None:
                clock[RESOLUTION] += cycles() - t0
            continue
        took = False
        for i in range(k):
            s = todo[i, 0]
            kind = todo[i, 1]
            who = todo[i, 2]
            if stop is not None:
                if learns(stop.learner, stop.game, who, run.n):
                    continue  # the caller's decision
            took = True
            if search is not None:
                if run.policies[who] == POLICY_ROLLOUT:
                    rollout.take_search_decision(ent, board, st, sc, s, kind, who, run, log, model, tape)
                    continue
            take_decision(ent, board, st, sc, s, kind, who, run, log, clock, model, tape)
        if not took:
            return k
