"""Every decision but the rollout's searched ones: `listing` and `decide` dispatch to the seat's
policy, `policy_option` lists, decides and prices, `take_decision` is that and `apply` (the step
of the game loop, kernels/loop.py).

A policy decides from a seat's observation only (docs/rules.md §2): `decide` receives the state and
the seat, and reads nothing but what that seat may see — its own hand, every city, coins and
tokens, its own random stream — through the accessors of kernels/city.py and kernels/score.py
(never another seat's hand, the later ages' deal, another seat's choice this turn or the
discard pile, whose legal cards `legal` lists when a discard build allows a look).
tests/test_step_api.py perturbs everything hidden and checks the decisions stay.

Each policy's choice is its own module's (kernels/greedy.py, kernels/heuristic.py,
kernels/rollout.py); random's is here, as it is one draw: from the seat's stream per decision,
exactly as wsim.reference.engine.RandomPolicy (docs/rules.md §12): the legal (card, action) pair
(its default purchase), then the stage-3 neighbour when the move needs one; a discard build
draws only when a legal card exists. None of them declines a 7th card or a discard build (the
decline is the list's last option).
"""

import numpy as np
from numba import njit

from wsim.kernels import greedy, heuristic, learned
from wsim.kernels.layout import (DEC_COPY3, DEC_DISCARD, DEC_MOVE, DEC_SEVENTH, F_CTR, G_AGE, G_N, LIST_COMPACT,
                                 LIST_LAZY, LIST_PRICED, M_COPY3, M_DEFAULT, M_LEFT, UNPRICED)
from wsim.kernels.policy import POLICY_HEURISTIC, POLICY_LEARNED, POLICY_RANDOM
from wsim.kernels.price import price_chosen
from wsim.kernels.rng import draw_below
from wsim.kernels.step import apply, legal
from wsim.kernels.timing import LEGAL, POLICY, RESOLUTION, TRADING, cycles


@njit(cache=True, inline="always")
def draw(seat, keys, s, m):
    """Seat s's next random number in 0..m-1 (one draw of its policy stream)."""
    v = draw_below(keys[s], seat[s, F_CTR], m)
    seat[s, F_CTR] += 1
    return v


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


@njit(cache=True, inline="always")
def listing(run, seat, n, s, who):
    """How seat s's (card, action) pairs are listed for decider who (kernels/price.py): random
    needs the pairs and the drawn pair's default purchase, so the others may stay unpriced; the
    heuristic asks for its own (heuristic.listing); greedy (and a rollout's decisions) for the
    default purchase of each pair."""
    policy = run.policies[who]
    if policy == POLICY_HEURISTIC:
        return heuristic.listing(seat, n, s, run.params, who)
    if policy == POLICY_RANDOM:
        return np.int64(LIST_LAZY), np.int64(1), np.int64(1)
    return np.int64(LIST_PRICED), np.int64(1), np.int64(1)


@njit(cache=True, inline="always")
def decide(ent, board, st, sc, s, who, kind, n_moves, run, model):
    """The policy of seat who (s itself, or the Free City's controller: step.decider; its
    policy and parameters in the run record), not rollout, picks one of the n_moves legal options
    (sc.moves) of seat s's decision `kind`; returns its index. Reads only what seat who observes
    (module docstring). model: None when no seat plays learned (numba then drops that branch),
    else the learned policy's model (kernels/learned.py)."""
    seat, gs, moves = st.seat, st.gs, sc.moves
    policy = run.policies[who]
    params = run.params
    if model is not None:
        if policy == POLICY_LEARNED:  # it may decline (its list's last option)
            return learned.choice(ent, board, st, sc, s, who, kind, n_moves, model, params)
    if kind == DEC_SEVENTH or kind == DEC_DISCARD:
        n_moves -= 1  # no policy here declines a 7th card or a discard build (the last option)
    if policy == POLICY_RANDOM:
        return _random_choice(seat, st.keys, who, kind, moves, n_moves)
    n = gs[G_N]
    age = gs[G_AGE]
    if kind == DEC_COPY3:  # the options are COPY_LEFT, then COPY_RIGHT
        if policy == POLICY_HEURISTIC:
            copy3 = heuristic.best_copy(ent, board, seat, n, s, params, who, age)
        else:
            copy3 = greedy.best_copy(ent, board, seat, n, s, params, who, age)
        return 1 if moves[1, M_COPY3] == copy3 else 0
    if policy == POLICY_HEURISTIC:
        return heuristic.choice(ent, board, seat, gs, s, who, moves, n_moves, params, n, age)
    return greedy.choice(ent, board, seat, s, who, kind, moves, n_moves, params, n, age)


@njit(cache=True, _nrt=False)
def policy_option(ent, board, st, sc, s, kind, who, run, clock, model, tape):
    """(j, keep): the row of sc.moves that decider who's policy (not rollout) chooses for seat
    s's decision `kind`, listed as that policy lists and priced, and whether the tape records it:
    the first half of the game loop's step (take_decision), and the batched environment's
    policy_actions (kernels/batched.py) without applying it. clock: None, or in the profile twin
    its timing array, where each part's cycles go (kernels/timing.py; the trading solver's are
    added where it is called, kernels/price.py). model: None, or the learned policy's (decide);
    tape: None, or the tape that records the decision for training, which may explore another
    option (kernels/learned.py, kernels/tape.py). numba compiles no branch on a None."""
    moves = sc.moves
    mode, w_left, w_right = listing(run, st.seat, st.gs[G_N], s, who)
    if tape is not None and tape.rows.shape[0] > 0 and mode == LIST_COMPACT:
        mode = np.int64(LIST_PRICED)  # the same choice (heuristic.listing), in rows a tape can explore
    # with clock None numba drops every timing line below before typing
    t0 = np.uint64(0) if clock is None else cycles()
    solver0 = np.uint64(0) if clock is None else clock[TRADING]
    m = legal(ent, board, st, sc, s, kind, (mode, w_left, w_right), clock)
    if clock is not None:
        t1 = cycles()
        clock[LEGAL] += t1 - t0 - (clock[TRADING] - solver0)
        t0 = t1
    j = decide(ent, board, st, sc, s, who, kind, m, run, model)
    keep = False
    if tape is not None:
        j, keep = learned.explore(sc, kind, j, m, tape)
    if clock is not None:
        clock[POLICY] += cycles() - t0
    if mode == LIST_LAZY and (kind == DEC_MOVE or kind == DEC_SEVENTH) and moves[j, M_LEFT] == UNPRICED:
        price_chosen(ent, board, st.seat, st.gs[G_N], s, moves, j, sc.opts, clock)  # its solver: TRADING
    return j, keep


@njit(cache=True, _nrt=False)
def take_decision(ent, board, st, sc, s, kind, who, run, log, clock, model, tape):
    """List (into the scratch record sc), decide and apply seat s's decision `kind` for decider
    who, whose policy is not rollout: the step of the game loop (kernels/loop.py), written as
    policy_option (list, decide, explore, price), the tape's record, then `apply`. clock, model,
    tape: None or as policy_option's."""
    j, keep = policy_option(ent, board, st, sc, s, kind, who, run, clock, model, tape)
    t0 = np.uint64(0) if clock is None else cycles()
    if tape is not None:
        if keep:
            learned.record(ent, board, st, sc, s, who, kind, j, tape, log.game)
    apply(ent, board, st, s, kind, sc.moves, j, log)
    if clock is not None:
        clock[RESOLUTION] += cycles() - t0
