"""Whole games from the step-level API (kernels/step.py), and the batch kernel the runner's
threads call.

A game is a deal (`init_game`), the game loop every agent would run (kernels/loop.py: ask
`pending` who owes which decision, list its `legal` options, let the seat's policy `decide` from
its observation, `apply` it; at the end of an age `end_age`) and the scores (`final`). Nothing
here knows a rule.

Two policy families from one source. `search` is None in runs whose seats play random,
greedy or heuristic, and True when a seat plays rollout. numba drops a branch on `x is not
None` before typing when x is None, so a run without rollout never compiles the search
(kernels/rollout.py: about half of the whole compile). The same pruning keeps the batch kernel
one function for both families.

Threads: play_games releases the GIL (nogil) and allocates nothing; wsim.run.runner calls it from
Python threads, one block of games each, with each thread's own state and scratch records
(new_state, new_scratch). A game depends only on (seed, game), so results are the same
whatever the threads and blocks.

The run's settings travel as one record (layout.RUN: players, seed, card count, promo, board and
side specs, every seat's policy and parameters), the state as another (layout.STATE), the
scratch as a third (layout.SCRATCH).
"""

import numpy as np
from numba import njit

from wsim.kernels.layout import RUN, SCRATCH, STATE
from wsim.kernels.loop import play_out
from wsim.kernels.schema import Log
from wsim.kernels.step import final, init_game


def new_state() -> np.ndarray:
    """One game's state: a one-record array (layout.STATE), zeroed; kernels take its [0]."""
    return np.zeros(1, STATE)


def new_scratch() -> np.ndarray:
    """The scratch of a game loop and its deal: a one-record array (layout.SCRATCH)."""
    return np.zeros(1, SCRATCH)


def new_run(n: int, seed: int, n_cards: int, promo: bool, board_spec, side_spec, policies, params) -> np.ndarray:
    """A run's settings as the kernels take them: a one-record array (layout.RUN)."""
    run = np.zeros(1, RUN)
    r = run[0]
    r["n"], r["seed"], r["n_cards"], r["promo"] = n, np.uint64(seed), n_cards, promo
    r["board_spec"][:len(board_spec)] = board_spec
    r["side_spec"][:len(side_spec)] = side_spec
    r["policies"][:len(policies)] = policies
    params = np.asarray(params, np.int32)
    r["params"][:params.shape[0], :params.shape[1]] = params
    return run


@njit(cache=True, inline="always")
def play_game(ent, board, run, st, sc, game, res, cards, log, search, model, tape):
    """Deal and play game `game` of the run; writes res[n, RES_COUNT], cards[n, MAX_CITY] and
    the move log's game log.game (search: None, or True when a seat may play rollout; module
    docstring).

    Inlined into play_games: numba links every kernel a compiled function calls into its own
    module and optimises the whole again, so a compiled level of its own cost the cold start
    about a second (the game's whole code once more) and saved no run time."""
    init_game(ent, board, run.n_cards, run.n, run.seed, game, run.board_spec, run.side_spec, run.promo, st, sc)
    if log.rows.shape[0] > 0:
        log.count[log.game] = 0
    play_out(ent, board, run, st, sc, log, search, None, model, tape, None)
    final(ent, st, res, cards)


@njit(cache=True, nogil=True, _nrt=False)
def play_games(ent, board, run, first_game, lo, hi, out, st, sc, search, model, tape):
    """Play games first_game + lo .. first_game + hi - 1 into out (schema.Results): its res[lo:hi]
    and cards[lo:hi], and its move log's games lo..hi-1 when logging (a log with zero rows turns
    it off), on the state and scratch records given (one of each per thread). Each game depends
    only on its (seed, game).
    model, tape: both None (no learned seat: the family compiles no learned code), or the learned
    seats' model and a tape (kernels/learned.py), an empty one in a run that records nothing: the
    learned family is one, for play and for training games (kernels/tape.py)."""
    for i in range(lo, hi):
        log = Log(out.log.rows, out.log.count, i)
        play_game(ent, board, run, st, sc, first_game + i, out.res[i], out.cards[i], log, search, model, tape)
