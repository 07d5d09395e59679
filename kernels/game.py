"""Whole games from the step-level API (kernels/step.py), and the parallel batch driver.

A game is the loop every agent would run: ask `pending` who owes which decision, list its
`legal` options, let the seat's policy `decide` from its observation, `apply` it; at the end
of an age (nothing pending) `end_age`; until the game is over. Nothing here knows a rule.
"""

import numpy as np
from numba import njit, prange

from wsim.codes import HAND_SIZE
from wsim.kernels.layout import (DEAL_DECK, DEAL_POOL, F_COUNT, G_COUNT, G_PHASE, MAX_MOVES, MAX_SEATS, M_COUNT,
                                 PH_AGE_END)
from wsim.kernels.policy import POLICY_ROLLOUT, all_purchases, take_decision
from wsim.kernels.rollout import decide
from wsim.kernels.step import apply, end_age, final, init_game, legal, pending
from wsim.kernels.schema import MAX_OPTIONS

BLOCK = 64  # games per parallel work item; each item allocates its state once


@njit(cache=True)
def new_state(n_cards):
    """(seat, keys, pile, gs, dealt): one game's state (layout.py)."""
    return (np.zeros((MAX_SEATS, F_COUNT), np.int32), np.zeros(MAX_SEATS, np.uint64), np.zeros(n_cards, np.int32),
            np.zeros(G_COUNT, np.int32), np.zeros((3, MAX_SEATS, HAND_SIZE), np.int16))


@njit(cache=True)
def new_scratch():
    """(moves, opts, todo, deck, pool, bs): the scratch a game loop and its deal need."""
    return (np.zeros((MAX_MOVES, M_COUNT), np.int32), np.zeros((2 * MAX_OPTIONS, 2), np.int32),
            np.zeros((MAX_SEATS, 3), np.int32), np.zeros(DEAL_DECK, np.int16), np.zeros(DEAL_POOL, np.int8),
            np.zeros((2, MAX_SEATS), np.int8))


@njit(cache=True)
def play_game(ent, board, n_cards, seat, keys, pile, gs, dealt, moves, opts, todo, deck, pool, bs,
              n, seed, game, board_spec, side_spec, promo, policies, params, res, cards, log, g, n_log):
    """Deal and play one whole game; writes res[n, RES_COUNT], cards[n, MAX_CITY] and the log."""
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
            if policies[who] == POLICY_ROLLOUT:  # its search allocates: it needs the runtime
                m = legal(ent, board, seat, pile, gs, s, kind, moves, opts, all_purchases(policies, who))
                j = decide(ent, board, seat, keys, pile, gs, dealt, s, who, kind, moves, m, policies, params)
                apply(ent, board, seat, keys, pile, gs, dealt, s, kind, moves, j, log, g, n_log)
            else:
                take_decision(ent, board, seat, keys, pile, gs, dealt, moves, opts, s, kind, who, policies, params,
                              log, g, n_log)
    final(ent, seat, gs, res, cards)


@njit(cache=True, parallel=True)
def run_batch(ent, board, n_cards, n, seed, first_game, board_spec, side_spec, promo, policies, params,
              res, cards, log, n_log):
    """Play games first_game .. first_game + len(res) - 1, in parallel blocks of BLOCK games.

    res[i] / cards[i] receive game first_game + i; log[i] / n_log[i] its events when logging
    (a log with zero rows turns logging off). Each game depends only on its (seed, game), so
    results are identical whatever the thread count or the chunking.
    """
    n_games = res.shape[0]
    n_blocks = (n_games + BLOCK - 1) // BLOCK
    for b in prange(n_blocks):
        seat, keys, pile, gs, dealt = new_state(n_cards)
        moves, opts, todo, deck, pool, bs = new_scratch()
        for i in range(b * BLOCK, min(n_games, (b + 1) * BLOCK)):
            play_game(ent, board, n_cards, seat, keys, pile, gs, dealt, moves, opts, todo, deck, pool, bs,
                      n, seed, first_game + i, board_spec, side_spec, promo, policies, params,
                      res[i], cards[i], log, i, n_log)
