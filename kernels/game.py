"""Whole games from the step-level API (kernels/step.py), and the batch kernel the runner's
threads call.

A game is the loop every agent would run: ask `pending` who owes which decision, list its
`legal` options, let the seat's policy `decide` from its observation, `apply` it; at the end
of an age (nothing pending) `end_age`; until the game is over. Nothing here knows a rule.

Two policy families from one source. `search` is None in runs whose seats play random,
greedy or heuristic, and True when a seat plays rollout. numba drops a branch on `x is not
None` before typing when x is None, so a run without rollout never compiles the search
(kernels/rollout.py: about half of the whole compile). The same pruning keeps the batch kernel
one function for both families.

Threads: play_games releases the GIL (nogil) and allocates nothing; wsim.run.runner calls it from
Python threads, one block of games each, with each thread's own state arrays (new_state,
new_scratch). A game depends only on (seed, game), so results are the same whatever the
threads and blocks.
"""

import numpy as np
from numba import njit

from wsim.codes import HAND_SIZE
from wsim.kernels.layout import (DEAL_DECK, DEAL_POOL, F_COUNT, G_COUNT, G_PHASE, MAX_MOVES, MAX_SEATS, M_COUNT,
                                 PH_AGE_END)
from wsim.kernels.policy import POLICY_ROLLOUT, take_decision
from wsim.kernels.rollout import take_search_decision
from wsim.kernels.step import end_age, final, init_game, pending
from wsim.kernels.schema import MAX_OPTIONS


def new_state(n_cards: int) -> tuple:
    """(seat, keys, pile, gs, dealt): one game's state (layout.py), zeroed."""
    return (np.zeros((MAX_SEATS, F_COUNT), np.int32), np.zeros(MAX_SEATS, np.uint64), np.zeros(n_cards, np.int32),
            np.zeros(G_COUNT, np.int32), np.zeros((3, MAX_SEATS, HAND_SIZE), np.int16))


def new_scratch() -> tuple:
    """(moves, opts, todo, deck, pool, bs): the scratch a game loop and its deal need."""
    return (np.zeros((MAX_MOVES, M_COUNT), np.int32), np.zeros((2 * MAX_OPTIONS, 2), np.int32),
            np.zeros((MAX_SEATS, 3), np.int32), np.zeros(DEAL_DECK, np.int16), np.zeros(DEAL_POOL, np.int8),
            np.zeros((2, MAX_SEATS), np.int8))


@njit(cache=True, _nrt=False)
def play_game(ent, board, n_cards, seat, keys, pile, gs, dealt, moves, opts, todo, deck, pool, bs,
              n, seed, game, board_spec, side_spec, promo, policies, params, res, cards, log, g, n_log, search):
    """Deal and play one whole game; writes res[n, RES_COUNT], cards[n, MAX_CITY] and the log
    (search: None, or True when a seat may play rollout; module docstring)."""
    init_game(ent, board, n_cards, n, seed, game, board_spec, side_spec, promo, seat, keys, pile, gs, dealt,
              deck, pool, bs)
    if log.shape[0] > 0:
        n_log[g] = 0
    while True:
        k = pending(seat, gs, todo)
        if k == 0:
            if gs[G_PHASE] != PH_AGE_END:
                break
            end_age(seat, gs, dealt, log, g, n_log)
            continue
        for i in range(k):
            s = todo[i, 0]
            kind = todo[i, 1]
            who = todo[i, 2]
            if search is not None:
                if policies[who] == POLICY_ROLLOUT:
                    take_search_decision(ent, board, seat, keys, pile, gs, dealt, moves, opts, s, kind, who,
                                         policies, params, log, g, n_log)
                    continue
            take_decision(ent, board, seat, keys, pile, gs, dealt, moves, opts, s, kind, who, policies, params, log,
                          g, n_log)
    final(ent, seat, gs, res, cards)


@njit(cache=True, nogil=True, _nrt=False)
def play_games(ent, board, n_cards, n, seed, first_game, lo, hi, board_spec, side_spec, promo, policies, params,
               res, cards, log, n_log, seat, keys, pile, gs, dealt, moves, opts, todo, deck, pool, bs, search):
    """Play games first_game + lo .. first_game + hi - 1 into res[lo:hi] / cards[lo:hi] (and
    log[lo:hi] / n_log[lo:hi] when logging: a log with zero rows turns it off), on the state
    and scratch arrays given (one set per thread). Each game depends only on its (seed, game)."""
    for i in range(lo, hi):
        play_game(ent, board, n_cards, seat, keys, pile, gs, dealt, moves, opts, todo, deck, pool, bs,
                  n, seed, first_game + i, board_spec, side_spec, promo, policies, params,
                  res[i], cards[i], log, i, n_log, search)
