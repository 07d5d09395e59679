"""POLICY_ROLLOUT: determinised Monte Carlo search over a turn's moves (`choice`), and
`take_search_decision`, the game loop's step for a rollout decider.

For a turn move, each legal (card, action) pair (its default purchase) is scored by K playouts
(parameter `playouts`): the state is copied, the cards the seat cannot see are dealt again
from what it can (below), the pair is played, and the game is played out to its end by the
base policy at every seat (`heuristic` unless `base=` names another, with the parameters the
row carries for it).
The pair with the best mean outcome for the deciding seat — 1,000 per win plus its points
margin over the best other player — is played; playout k of every pair uses the same deal
(common random numbers), and the other seats' decisions of the turn, which no pair changes, are
taken once per world and shared by its pairs' playouts. Other decisions (a stage-3 neighbour, a
7th card, a discard build) are the base policy's.

Each playout's world is drawn by kernels/hidden.resample_hidden: every card the deciding seat
cannot see (docs/rules.md §2) dealt again uniformly over the deals consistent with what it sees (its
hand and the hands it held this age, every city, the public counts), the other seats' choices
of the turn undone (the playouts decide them again), and their random streams keyed on the
deciding seat's own (a random base policy never draws the numbers the real opponents will).
Every draw comes from the deciding seat's own stream, so results do not depend on threads.

Over the learned base a playout may be truncated (R_DEPTH = D > 0, the default 1): it plays on
until the deciding seat's D-th next turn move and takes as its outcome the model's value there
(learned.best_option: the seat's expected margin over the best other player, the value of its
best option), so that a playout costs D turns of learned play instead of a whole game. Every
playout of a decision has the same length (a seat has one turn move a turn), so the outcomes of
one decision are all values or, near the game's end, all results.

The rollout's parameter row (kernels/policy.py): R_PLAYOUTS, R_BASE_ID (the base policy, any
but rollout) and from R_BASE on the base policy's own row (over the learned base: R_DEPTH).
"""

import numpy as np
from numba import njit

from wsim.codes import EVENT_COLUMNS, N_AGES, TURNS_PER_AGE
from wsim.kernels import loop  # a module, not its names: the loop calls the search, the search the loop
from wsim.kernels.hidden import resample_hidden
from wsim.kernels.decide import decide, take_decision
from wsim.kernels.learned import best_option, explore, record
from wsim.kernels.layout import (DEC_MOVE, F_CTR, G_FC, G_N, LIST_PRICED, MAX_CITY, MAX_SEATS, MAX_STAGES, M_DEFAULT,
                                 RES_COUNT, RES_RANK, RES_TOTAL, RUN, SCRATCH, STATE)
from wsim.kernels.policy import L_MODEL, POLICY_LEARNED, R_BASE, R_BASE_ID, R_DEPTH, R_PLAYOUTS
from wsim.kernels.rng import stream_key
from wsim.kernels.schema import Log, Stop
from wsim.kernels.step import apply, clone_state, final, legal, pending

# Playout k of a decision draws the deciding seat's own base moves from its stream's counter
# start + PLAYOUT_STRIDE * k (start: the counter at the decision). A seat draws at most twice a
# decision (a move and its stage-3 neighbour) and has at most DECISIONS_PER_GAME decisions in a
# game (each age: its moves, a 7th card, a discard build per stage), so the ranges never overlap.
DECISIONS_PER_GAME = N_AGES * (TURNS_PER_AGE + 1 + MAX_STAGES)
PLAYOUT_STRIDE = 1000
assert 2 * DECISIONS_PER_GAME < PLAYOUT_STRIDE
WIN_BONUS = 1000  # a playout's outcome for the deciding seat: this for a win, plus its points margin
EVENT_WIDTH = len(EVENT_COLUMNS)  # the playouts' log has no rows, but a log's shape

# The playouts' game index in their log (which has no rows). An int64 like the game loop's index:
# a literal 0 would compile every step function a second time.
NO_GAME = np.int64(0)


@njit(cache=True, _nrt=False)
def _outcome(res, n, fc, who):
    """WIN_BONUS for a win plus the points margin over the best other player."""
    best = 0
    found = False
    for t in range(n):
        if t != who and t != fc and (not found or res[t, RES_TOTAL] > best):
            best = res[t, RES_TOTAL]
            found = True
    return (WIN_BONUS if res[who, RES_RANK] == 1 else 0) + res[who, RES_TOTAL] - best


@njit(cache=True, _nrt=True)
def _base_of(run, who):
    """A run record (a one-record array) whose every seat plays seat who's base policy with the
    row its rollout row carries."""
    base = np.zeros(1, RUN)
    b = base[0]
    params = run.params
    for t in range(MAX_SEATS):
        b.policies[t] = params[who, R_BASE_ID]
        for f in range(params.shape[1] - R_BASE):
            b.params[t, f] = params[who, R_BASE + f]
    return base


@njit(cache=True, _nrt=False)
def _truncated(ent, board, base, st, sc, log, model, who, stop, res, cards, fc):
    """A truncated playout's outcome for seat who from state st (module docstring; stop: who's
    schema.Stop): the model's value at the seat's stop.moves-th next turn move, or the result if
    the game ends first."""
    n = st.gs[G_N]
    if loop.play_out(ent, board, base, st, sc, log, None, None, model, None, stop) > 0:
        listing = (np.int64(LIST_PRICED), np.int64(1), np.int64(1))  # the learned policy's (decide.listing)
        m = legal(ent, board, st, sc, who, DEC_MOVE, listing, None)
        return np.float64(best_option(ent, board, st, sc, who, who, DEC_MOVE, m, model, base.params[who, L_MODEL])[1])
    final(ent, st, res, cards)
    return np.float64(_outcome(res, n, fc, who))


@njit(cache=True, _nrt=False)
def _decide_others(ent, board, base, w, sc, s, log, model):
    """Take, in world w, the decisions pending now of every seat but s, by the base policies.
    Every pair's playout would take them the same way (a policy reads no other seat's choice of
    the turn, and each seat draws from its own stream), so one world's pairs share them. The Free
    City's move, pending only once its controller has chosen, is left to the playouts."""
    todo = sc.todo
    k = pending(w, todo)
    for i in range(k):
        t = todo[i, 0]
        if t != s:
            take_decision(ent, board, w, sc, t, todo[i, 1], todo[i, 2], base, log, None, model, None)


@njit(cache=True, _nrt=True)
def decide_rollout(ent, board, st, s, who, moves, n_moves, run, model):
    """The rollout policy's turn move for seat s, decided by seat who (module docstring)."""
    seat, gs = st.seat, st.gs
    n = gs[G_N]
    playouts = max(1, run.params[who, R_PLAYOUTS])
    depth = run.params[who, R_DEPTH] if run.params[who, R_BASE_ID] == POLICY_LEARNED else 0
    base = _base_of(run, who)
    world = np.zeros(1, STATE)
    copy = np.zeros(1, STATE)
    scratch = np.zeros(1, SCRATCH)  # the playouts' own: moves may hold only this decision's rows
    res = np.zeros((n, RES_COUNT), np.int16)
    cards = np.zeros((n, MAX_CITY), np.int16)
    log = Log(np.zeros((0, 1, EVENT_WIDTH), np.int16), np.zeros(1, np.int32), NO_GAME)
    totals = np.zeros(n_moves, np.float64)  # sums of whole numbers are exact: ties stay ties
    stop = Stop(np.int64(who), np.int64(depth), np.zeros(0, np.int8), NO_GAME)  # a truncated playout's
    start = seat[who, F_CTR]
    for k in range(playouts):
        # playout k's world, the same for every pair (common random numbers), drawn from a
        # stream keyed on the seat's own: (its key, its counter now, k)
        clone_state(st, world)
        w = world[0]
        if resample_hidden(ent, board, w, scratch[0], who, stream_key(st.keys[who], start, k)) < 0:
            raise ValueError("rollout: the state's record of this age's plays does not add up")
        w.seat[who, F_CTR] = start + PLAYOUT_STRIDE * k
        _decide_others(ent, board, base[0], w, scratch[0], s, log, model)
        for i in range(n_moves):
            if moves[i, M_DEFAULT] != 1:
                continue
            clone_state(w, copy)
            st2 = copy[0]
            apply(ent, board, st2, s, DEC_MOVE, moves, i, log)
            if model is not None:  # numba compiles this only for a run with a model
                if depth > 0:
                    totals[i] += _truncated(ent, board, base[0], st2, scratch[0], log, model, who, stop, res,
                                            cards, gs[G_FC])
                    continue
            loop.play_out(ent, board, base[0], st2, scratch[0], log, None, None, model, None, None)
            final(ent, st2, res, cards)
            totals[i] += _outcome(res, n, gs[G_FC], who)
    seat[who, F_CTR] = start + PLAYOUT_STRIDE * playouts
    best_i = -1
    for i in range(n_moves):
        if moves[i, M_DEFAULT] == 1 and (best_i < 0 or totals[i] > totals[best_i]):
            best_i = i
    return best_i


@njit(cache=True, inline="always")
def choice(ent, board, st, sc, s, who, kind, n_moves, run, model):
    """The option seat who's rollout policy picks for seat s's decision `kind` (index into
    sc.moves): the search for a turn move, else its base policy's (decide.decide; model: the
    learned base's, or None)."""
    if kind == DEC_MOVE:
        return decide_rollout(ent, board, st, s, who, sc.moves, n_moves, run, model)
    base = _base_of(run, who)
    return decide(ent, board, st, sc, s, who, kind, n_moves, base[0], model)


@njit(cache=True, _nrt=True)
def take_search_decision(ent, board, st, sc, s, kind, who, run, log, model, tape):
    """decide.take_decision for a decider whose policy is rollout: its search allocates, so it
    runs with numba's runtime (kernels/__init__.py), and only runs that play rollout compile it.
    Its options list the default purchase of each pair (the search plays the default); a tape
    records the decision as take_decision's does."""
    moves = sc.moves
    listing = (np.int64(LIST_PRICED), np.int64(1), np.int64(1))
    m = legal(ent, board, st, sc, s, kind, listing, None)
    j = choice(ent, board, st, sc, s, who, kind, m, run, model)
    if tape is not None:
        j, keep = explore(sc, kind, j, m, tape)
        if keep:
            record(ent, board, st, sc, s, who, kind, j, tape, log.game)
    apply(ent, board, st, s, kind, moves, j, log)
