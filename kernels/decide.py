"""Every decision but the rollout's searched ones: `decide` picks an option, `take_decision` lists,
decides and applies (the step of the game loop, kernels/loop.py).

A policy decides from a seat's observation only (docs/rules.md §2): `decide` receives the state and
the seat, and reads nothing but what that seat may see — its own hand, every city, coins and
tokens, its own random stream — through the accessors of kernels/city.py and kernels/score.py
(never another seat's hand, the later ages' deal, another seat's choice this turn or the
discard pile, whose legal cards `legal` lists when a discard build allows a look).
tests/test_step_api.py perturbs everything hidden and checks the decisions stay.

random (docs/rules.md §12): one draw from the seat's stream per decision, exactly as
wsim.reference.engine.RandomPolicy: the legal (card, action) pair (its default purchase), then
the stage-3 neighbour when the move needs one; a discard build draws only when a legal card
exists. greedy and heuristic value every option (kernels/greedy.py, kernels/heuristic.py) and
play the first best in canonical order (`first_best`, no random draw); both pick Manneken Pis
A's stage-3 neighbour with `choose_copy3` and their own entity value. None of them declines a
7th card or a discard build (the decline is the list's last option).
"""

import numpy as np
from numba import njit

from wsim.codes import ACT_DISCARD, ACT_STAGE, COPY_LEFT, COPY_RIGHT, DISCARD_COINS
from wsim.kernels import greedy, heuristic
from wsim.kernels.city import policy_stage_source
from wsim.kernels.layout import (DEC_COPY3, DEC_DISCARD, DEC_MOVE, DEC_SEVENTH, E_POINTS_CAP, EVERY_CARD, F_CTR,
                                 F_HAND, F_HAND_N, G_AGE, G_N, LIST_COMPACT, LIST_LAZY, LIST_PRICED, M_ACTION,
                                 M_CARD, M_COPY3, M_DEFAULT, M_LEFT, M_SLOT, UNPRICED)
from wsim.kernels.policy import POLICY_GREEDY, POLICY_HEURISTIC, POLICY_RANDOM
from wsim.kernels.rng import draw_below
from wsim.kernels.step import apply, legal
from wsim.kernels.turn import price_chosen
from wsim.kernels.timing import LEGAL, POLICY, RERUN, RESOLUTION, TRADING, cycles, trading_calls


@njit(cache=True, inline="always")
def draw(seat, keys, s, m):
    """Seat s's next random number in 0..m-1 (one draw of its policy stream)."""
    v = draw_below(keys[s], seat[s, F_CTR], m)
    seat[s, F_CTR] += 1
    return v


@njit(cache=True, inline="always")
def first_best(i, v, best_i, best):
    """The argmax rule of the valuing policies: option i (value v) replaces the best so far only
    when it is the first or strictly better. Returns (best_i, best)."""
    if i == 0 or v > best:
        return i, v
    return best_i, best


@njit(cache=True, _nrt=False)
def choose_copy3(ent, board, seat, n, s, policy, params, who, age):
    """The stage-3 neighbour a valuing policy (POLICY_GREEDY or POLICY_HEURISTIC, an int64: one
    specialisation) picks for seat s: the copy whose entity is worth more to it (its entity
    value; greedy's paying nothing; a copy of nothing is worth -1), left on a tie."""
    best = COPY_LEFT
    best_v = 0
    for j in range(2):
        of = COPY_LEFT if j == 0 else COPY_RIGHT
        e, _ = policy_stage_source(ent, board, seat, n, s, 2, of)
        if e < 0:
            v = -1
        elif policy == POLICY_HEURISTIC:
            v = heuristic.entity_value_compiled(ent, seat, n, np.int64(s), np.int64(e), params, who, np.int64(age))
        else:
            v = greedy.entity_value(ent, seat, n, s, e, np.int64(0), params, who, age)
        best, best_v = first_best(j, v, best, best_v)
    return best


@njit(cache=True, _nrt=False)
def _nth_default(moves, n_moves, j):
    """Index of the j-th move flagged M_DEFAULT (a (card, action) pair's default purchase)."""
    for i in range(n_moves):
        if moves[i, M_DEFAULT] == 1:
            if j == 0:
                return i
            j -= 1
    return -1


@njit(cache=True, inline="always")
def _random_choice(seat, keys, who, kind, moves, n_moves):
    """The random policy's option: a uniform draw among the (card, action) pairs (their default
    purchases), the neighbours or the pile's buildings."""
    if kind == DEC_COPY3 or kind == DEC_DISCARD:
        return draw(seat, keys, who, n_moves)
    pairs = 0
    for i in range(n_moves):
        pairs += moves[i, M_DEFAULT]
    j = draw(seat, keys, who, pairs)
    return j if pairs == n_moves else _nth_default(moves, n_moves, j)


@njit(cache=True, _nrt=False)
def _greedy_choice(ent, board, seat, s, who, kind, moves, n_moves, params, n, age):
    """Greedy's option: the first of highest value (kernels/greedy.py)."""
    best_i = 0
    best = 0
    copy3 = np.int64(-1)  # chosen at the first move that needs it
    for i in range(n_moves):
        if kind == DEC_DISCARD:
            v = greedy.entity_value(ent, seat, n, s, np.int64(moves[i, M_CARD]), np.int64(0), params, who, age)
        else:
            if moves[i, M_COPY3] == 1 and copy3 < 0:
                copy3 = choose_copy3(ent, board, seat, n, s, np.int64(POLICY_GREEDY), params, who, age)
            v = greedy.move_value(ent, board, seat, n, s, moves, i, params, who, age, copy3)
        best_i, best = first_best(i, v, best_i, best)
    return best_i


@njit(cache=True, inline="always")
def _pair_at(moves, i):
    """(action, card, whether it is a stage or a discard) of the pair whose default row is i."""
    action = moves[i, M_ACTION]
    return action, moves[i, M_CARD], action == ACT_DISCARD or action == ACT_STAGE


@njit(cache=True, inline="always")
def _weighted_denial(ent, seat, gs, n, s, c, w_deny):
    """w_deny x the points card c would give the next holder of the hand (no work for 0)."""
    return 0 if w_deny == 0 else w_deny * heuristic.denial(ent, seat, gs, n, s, c)


@njit(cache=True, _nrt=False)
def _heuristic_choice(ent, board, seat, gs, s, who, moves, n_moves, params, n, age):
    """The heuristic's option: the first of highest value (kernels/heuristic.py), in two passes.

    The first values the build rows and bounds the others (a stage or a discard, worth its base
    value plus a denial of at most H_DENY x the card's E_POINTS_CAP); when the best build beats
    every bound, it is the choice and no denial is computed. Otherwise the second pass values the
    stage and discard rows (each card's denial once, the decision's stage value once) and the
    first of highest value over both passes wins: the choice of one pass over every row in
    canonical order (hand slots in order; in a slot, build before stage before discard), so the
    decisions are those of a plain per-row evaluation.
    A (card, action) pair's rows follow its default one (M_DEFAULT) and share its base value; a
    discard build's rows (pile cards) are default (card, build) rows that pay nothing. A compact
    listing (layout.LIST_COMPACT) ends with template rows (M_CARD = EVERY_CARD) that stand for a
    stage or a discard with each card of the hand: the second pass values them card by card, and
    the template it picks is given the card's slot and id."""
    rival = heuristic.rival_column(seat, n, s)
    w_deny = params[who, heuristic.H_DENY]
    discard_v = params[who, heuristic.H_COIN] * DISCARD_COINS
    stage_v = 0
    stage_known = False
    best_i = -1  # the first pass's: the best build row
    best = 0
    other = False  # whether the current pair is a stage or a discard
    n_other = 0
    other_max = 0  # the most a stage or discard row is worth before its denial
    deny_cap = 0
    templates = n_moves  # the first template row (none: n_moves)
    base = 0
    for i in range(n_moves):
        if moves[i, M_DEFAULT] == 1:
            action, c, other = _pair_at(moves, i)
            if not other:
                base = heuristic.entity_value(ent, seat, n, s, c, params, who, age)
            else:
                if c != EVERY_CARD:
                    deny_cap = max(deny_cap, ent[c, E_POINTS_CAP])
                elif templates == n_moves:
                    templates = i
                if action == ACT_DISCARD:
                    base = discard_v
                else:
                    if not stage_known:
                        copy3 = np.int64(COPY_LEFT)  # not a literal: one specialisation of stage_value
                        if moves[i, M_COPY3] == 1:
                            copy3 = choose_copy3(ent, board, seat, n, s, np.int64(POLICY_HEURISTIC), params, who, age)
                        stage_v = heuristic.stage_value(ent, board, seat, n, s, moves, i, params, who, age, copy3)
                        stage_known = True
                    base = stage_v
        v = base + heuristic.payment_value(moves, i, params, who, rival)
        if other:
            other_max = v if n_other == 0 else max(other_max, v)
            n_other += 1
        elif best_i < 0 or v > best:
            best_i, best = i, v
    hand_n = seat[s, F_HAND_N] if templates < n_moves else 0  # templates: the seat's own hand (not the Free City)
    for k in range(hand_n):
        deny_cap = max(deny_cap, ent[seat[s, F_HAND + k], E_POINTS_CAP])
    if n_other == 0 or (best_i >= 0 and w_deny >= 0 and best > other_max + w_deny * deny_cap):
        return best_i
    other_i = -1  # the second pass's: the best stage or discard row, and its hand slot
    other_slot = -1
    other_best = 0
    deny_card = -1
    deny_v = 0
    for i in range(templates):
        if moves[i, M_DEFAULT] == 1:
            action, c, other = _pair_at(moves, i)
            if other:
                if c != deny_card:  # a card's stage and discard rows are adjacent
                    deny_card = c
                    deny_v = _weighted_denial(ent, seat, gs, n, s, c, w_deny)
                base = (discard_v if action == ACT_DISCARD else stage_v) + deny_v
        if other:
            v = base + heuristic.payment_value(moves, i, params, who, rival)
            if other_i < 0 or v > other_best:
                other_i, other_slot, other_best = i, moves[i, M_SLOT], v
    for k in range(hand_n):
        deny_v = _weighted_denial(ent, seat, gs, n, s, seat[s, F_HAND + k], w_deny)
        for i in range(templates, n_moves):
            if moves[i, M_DEFAULT] == 1:
                base = (discard_v if moves[i, M_ACTION] == ACT_DISCARD else stage_v) + deny_v
            v = base + heuristic.payment_value(moves, i, params, who, rival)
            if other_i < 0 or v > other_best:
                other_i, other_slot, other_best = i, k, v
    if best_i < 0 or other_best > best or (other_best == best and other_slot < moves[best_i, M_SLOT]):
        if moves[other_i, M_CARD] == EVERY_CARD:
            moves[other_i, M_SLOT] = other_slot
            moves[other_i, M_CARD] = seat[s, F_HAND + other_slot]
        return other_i
    return best_i


@njit(cache=True, inline="always")
def decide(ent, board, st, s, who, kind, moves, n_moves, run):
    """The policy of seat who (s itself, or the Free City's controller: step.decider; its
    policy and parameters in the run record) picks one of the n_moves legal options of seat s's
    decision `kind`; returns its index. Reads only what seat who observes (module docstring)."""
    seat, gs = st.seat, st.gs
    policy = run.policies[who]
    params = run.params
    if kind == DEC_SEVENTH or kind == DEC_DISCARD:
        n_moves -= 1  # no policy here declines a 7th card or a discard build (the last option)
    if policy == POLICY_RANDOM:
        return _random_choice(seat, st.keys, who, kind, moves, n_moves)
    n = gs[G_N]
    age = gs[G_AGE]
    if kind == DEC_COPY3:  # the options are COPY_LEFT, then COPY_RIGHT
        copy3 = choose_copy3(ent, board, seat, n, s, np.int64(policy), params, who, age)
        return 1 if moves[1, M_COPY3] == copy3 else 0
    if policy == POLICY_HEURISTIC:
        return _heuristic_choice(ent, board, seat, gs, s, who, moves, n_moves, params, n, age)
    return _greedy_choice(ent, board, seat, s, who, kind, moves, n_moves, params, n, age)


@njit(cache=True, _nrt=False)
def take_decision(ent, board, st, sc, s, kind, who, run, log, g, n_log):
    """List (into the scratch record sc), decide and apply seat s's decision `kind` for decider
    who, whose policy is not rollout: the step of the game loop (kernels/loop.py). When the run
    is timed (the profile twin), each step's cycles go to sc.timing (kernels/timing.py)."""
    moves = sc.moves
    timed = run.timed
    t0 = cycles() if timed else np.uint64(0)
    # one purchase per (card, action) pair: the default, or the one the heuristic would pick
    # among them all (its choice loop then walks fewer rows and decides the same move)
    w_left = np.int64(1)
    w_right = np.int64(1)
    # random needs the pairs and the drawn pair's default purchase: the others may stay unpriced;
    # the heuristic values a stage or a discard alike for every card (but its denial): one
    # template row each
    listing = np.int64(LIST_PRICED)
    if run.policies[who] == POLICY_HEURISTIC:
        w_left, w_right = heuristic.purchase_weights(st.seat, st.gs[G_N], s, run.params, who)
        listing = np.int64(LIST_COMPACT)
    elif run.policies[who] == POLICY_RANDOM:
        listing = np.int64(LIST_LAZY)
    lazy = listing == LIST_LAZY
    listed_all = np.bool_(False)  # not the literal False, which would compile legal_moves a second time
    m = legal(ent, board, st, s, kind, moves, sc.opts, listed_all, w_left, w_right, listing)
    if timed:
        t1 = cycles()
        sc.timing[LEGAL] += t1 - t0
        if kind == DEC_MOVE or kind == DEC_SEVENTH:  # the solver's calls, timed again and moved
            trading_calls(ent, board, st.seat, st.gs, s, sc.opts, lazy)
            t2 = cycles()
            sc.timing[TRADING] += t2 - t1
            sc.timing[LEGAL] -= t2 - t1
            sc.timing[RERUN] += t2 - t1
        t0 = cycles()
    j = decide(ent, board, st, s, who, kind, moves, m, run)
    if timed:
        t1 = cycles()
        sc.timing[POLICY] += t1 - t0
        t0 = t1
    if lazy and (kind == DEC_MOVE or kind == DEC_SEVENTH) and moves[j, M_LEFT] == UNPRICED:
        price_chosen(ent, board, st.seat, st.gs[G_N], s, moves, j, sc.opts)
        if timed:
            t1 = cycles()
            sc.timing[TRADING] += t1 - t0
            t0 = t1
    apply(ent, board, st, s, kind, moves, j, log, g, n_log)
    if timed:
        sc.timing[RESOLUTION] += cycles() - t0
