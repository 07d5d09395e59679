"""POLICY_ROLLOUT: determinised Monte Carlo search over a turn's moves, and `decide`, the one
entry point game loops call for every policy.

For a turn move, each legal (card, action) pair (its default purchase) is scored by K playouts
(parameter `playouts`): the state is copied, the cards the seat cannot see are dealt again
from what it can (below), the pair is played, and the game is played out to its end by the
base policy at every seat (`heuristic` unless `base=` names another, with the parameters the
row carries for it).
The pair with the best mean outcome for the deciding seat — 1,000 per win plus its points
margin over the best other player — is played; playout k of every pair uses the same deal
(common random numbers). Other decisions (a stage-3 neighbour, a 7th card, a discard build)
are the base policy's.

The re-deal uses only what the deciding seat sees (RULES.md §2): the decks' composition (the
tables, the number of cities), every city, its own hand and the sizes of the hidden hands and
piles. Cards of the current age that are not in a city or its hand are shuffled into the other
players' hands, the Free City's pile and, for the rest, the discard pile; the discard pile's
cards of earlier ages are exactly those ages' decks less their cards in cities; later ages are
dealt from their full decks (Age III with N + 2 guilds drawn among those not seen). Other
seats' choices of the turn, hidden from the seat, are decided again in the playouts, and their
random streams in the playouts are keyed on the deciding seat's own (a random base policy never
draws the numbers the real opponents will). Draws come from the deciding seat's own stream, so
results do not depend on threads.

The rollout's parameter row (kernels/policy.py): R_PLAYOUTS, R_BASE_ID (the base policy, any
but rollout) and from R_BASE on the base policy's own row.
"""

import numpy as np
from numba import njit

from wsim.codes import HAND_SIZE, PURPLE, TURNS_PER_AGE
from wsim.kernels.layout import (C_COPY3, C_NEEDS3, C_ON, DEC_MOVE, E_AGE, E_COPIES, E_KIND, F_CARDS, F_CHOSEN,
                                 F_CTR, F_HAND, F_HAND_N, F_NCARDS, G_AGE, G_FC, G_N, G_NCARDS, G_OPEN, G_TURN,
                                 DEAL_DECK, MAX_CITY, MAX_SEATS, M_DEFAULT, RES_COUNT, RES_RANK, RES_TOTAL,
                                 SCRATCH, STATE)
from wsim.kernels import loop  # a module, not its names: the loop calls the search, the search the loop
from wsim.kernels.deal import shuffle
from wsim.kernels.rng import STREAM_SEAT0, stream_key
from wsim.kernels.policy import POLICY_ROLLOUT, R_BASE, R_BASE_ID, R_PLAYOUTS, RUN, all_purchases, decide as decide_simple
from wsim.kernels.step import apply, clone_state, decider, final, legal

# The playouts' game index in their log (which has no rows). An int64 like the game loop's index:
# a literal 0 would compile every step function a second time.
NO_GAME = np.int64(0)


@njit(cache=True, _nrt=False)
def _shuffle(buf, size, seat, keys, who):
    """The deal's Fisher-Yates shuffle of buf[:size], drawing from seat who's policy stream."""
    seat[who, F_CTR] = shuffle(buf, size, keys[who], seat[who, F_CTR])


@njit(cache=True, _nrt=False)
def _unseen(ent, n_cards, seat, n, age, count):
    """count[c] = copies of card c of `age` (guilds excluded) in no city: the deck for n cities
    less the cards of that age in every city."""
    for c in range(n_cards):
        count[c] = ent[c, E_COPIES + n] if ent[c, E_AGE] == age and ent[c, E_KIND] != PURPLE else 0
    for t in range(n):
        for i in range(seat[t, F_NCARDS]):
            c = seat[t, F_CARDS + i]
            if ent[c, E_AGE] == age and ent[c, E_KIND] != PURPLE and count[c] > 0:
                count[c] -= 1


@njit(cache=True, _nrt=False)
def determinise(ent, n_cards, st, who, real, count, buf):
    """Deal again, in the copy st, every card seat who cannot see (module docstring). Draws
    from who's stream in the real state `real`."""
    seat, pile, gs, dealt = st.seat, st.pile, st.gs, st.dealt
    real_seat, real_keys = real.seat, real.keys
    n = gs[G_N]
    age = gs[G_AGE]
    fc = gs[G_FC]
    for c in range(n_cards):
        pile[c] = 0
    for a in range(1, age):  # earlier ages: the pile holds what no city holds
        _unseen(ent, n_cards, seat, n, a, count)
        for c in range(n_cards):
            pile[c] += count[c]
    # the current age: unseen cards (and, in Age III, guilds not seen among the N + 2 drawn)
    _unseen(ent, n_cards, seat, n, np.int64(age), count)
    for i in range(seat[who, F_HAND_N]):
        c = seat[who, F_HAND + i]
        if ent[c, E_KIND] != PURPLE and count[c] > 0:
            count[c] -= 1
    size = 0
    for c in range(n_cards):
        for _ in range(count[c]):
            buf[size] = c
            size += 1
    if age == 3:
        size = _add_guilds(ent, n_cards, seat, n, who, real_seat, real_keys, buf, size, True)
    _shuffle(buf, size, real_seat, real_keys, who)
    at = 0
    for t in range(n):
        if t == who or t == fc:
            continue
        for i in range(seat[t, F_HAND_N]):
            seat[t, F_HAND + i] = buf[at]
            at += 1
    if fc >= 0:
        for i in range(gs[G_TURN], TURNS_PER_AGE + 1):
            dealt[age - 1, fc, i] = buf[at]
            at += 1
    for i in range(at, size):
        pile[buf[i]] += 1
    for a in range(age + 1, 4):  # later ages: their whole decks, dealt again
        size = 0
        for c in range(n_cards):
            if ent[c, E_AGE] == a and ent[c, E_KIND] != PURPLE:
                for _ in range(ent[c, E_COPIES + n]):
                    buf[size] = c
                    size += 1
        if a == 3:
            size = _add_guilds(ent, n_cards, seat, n, who, real_seat, real_keys, buf, size, False)
        _shuffle(buf, size, real_seat, real_keys, who)
        for t in range(n):
            for i in range(HAND_SIZE):
                dealt[a - 1, t, i] = buf[t * HAND_SIZE + i]


@njit(cache=True, inline="always")
def _add_guilds(ent, n_cards, seat, n, who, real_seat, real_keys, buf, size, in_play):
    """Append to buf the guilds of Age III that who has not seen: N + 2 are drawn among all
    guilds; when in_play, those in cities or in who's hand are known and left out."""
    start = size
    seen = 0
    for c in range(n_cards):
        if ent[c, E_KIND] != PURPLE:
            continue
        known = False
        if in_play:
            for t in range(n):
                for i in range(seat[t, F_NCARDS]):
                    if seat[t, F_CARDS + i] == c:
                        known = True
            for i in range(seat[who, F_HAND_N]):
                if seat[who, F_HAND + i] == c:
                    known = True
        if known:
            seen += 1
        else:
            buf[size] = c
            size += 1
    _shuffle(buf[start:], size - start, real_seat, real_keys, who)
    return start + max(0, min(size - start, n + 2 - seen))


@njit(cache=True, _nrt=False)
def _rekey_others(st, who, key, playout):
    """Give every other seat of the copy st a random stream derived from seat who's own key and
    the playout: a seat cannot know the numbers its opponents will draw (RULES.md §2), so a
    playout's random base policy must not draw theirs."""
    for t in range(st.gs[G_N]):
        if t != who:
            st.keys[t] = stream_key(key, playout, STREAM_SEAT0 + t)
            st.seat[t, F_CTR] = 0


@njit(cache=True, _nrt=False)
def _forget_others(seat, gs, s, who):
    """Undo the choices of this turn that seat who cannot know (those of seats it does not
    decide for): the playouts decide them again."""
    open_ = 0
    for t in range(gs[G_N]):
        if t != s and decider(gs, t) != who and seat[t, F_CHOSEN + C_ON] == 1:
            seat[t, F_CHOSEN + C_ON] = 0
        on = seat[t, F_CHOSEN + C_ON]
        if on == 0 or (on == 1 and seat[t, F_CHOSEN + C_NEEDS3] == 1 and seat[t, F_CHOSEN + C_COPY3] < 0):
            open_ += 1
    gs[G_OPEN] = open_


@njit(cache=True, _nrt=False)
def _outcome(res, n, fc, who):
    """1,000 for a win plus the points margin over the best other player."""
    best = -10**6
    for t in range(n):
        if t != who and t != fc and res[t, RES_TOTAL] > best:
            best = res[t, RES_TOTAL]
    return (1000 if res[who, RES_RANK] == 1 else 0) + res[who, RES_TOTAL] - best


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


@njit(cache=True, _nrt=True)
def decide_rollout(ent, board, st, s, who, moves, n_moves, run):
    """The rollout policy's turn move for seat s, decided by seat who (module docstring)."""
    seat, gs = st.seat, st.gs
    n = gs[G_N]
    n_cards = np.int64(gs[G_NCARDS])
    playouts = max(1, run.params[who, R_PLAYOUTS])
    base = _base_of(run, who)
    copy = np.zeros(1, STATE)
    scratch = np.zeros(1, SCRATCH)  # the playouts' own: moves may hold only this decision's rows
    count = np.zeros(n_cards, np.int32)
    buf = np.zeros(DEAL_DECK + n_cards, np.int16)
    res = np.zeros((n, RES_COUNT), np.int16)
    cards = np.zeros((n, MAX_CITY), np.int16)
    log = np.zeros((0, 1, 9), np.int16)
    n_log = np.zeros(1, np.int32)
    totals = np.zeros(n_moves, np.int64)
    start = seat[who, F_CTR]
    for k in range(playouts):
        for i in range(n_moves):
            if moves[i, M_DEFAULT] != 1:
                continue
            clone_state(st, copy)
            st2 = copy[0]
            seat[who, F_CTR] = start + 1000 * k  # playout k: the same deal for every pair
            determinise(ent, n_cards, st2, who, st, count, buf)
            _rekey_others(st2, who, st.keys[who], start + 1000 * k)
            _forget_others(st2.seat, st2.gs, s, who)
            apply(ent, board, st2, s, DEC_MOVE, moves, i, log, NO_GAME, n_log)
            loop.play_out(ent, board, base[0], st2, scratch[0], log, NO_GAME, n_log, None)
            final(ent, st2, res, cards)
            totals[i] += _outcome(res, n, gs[G_FC], who)
    seat[who, F_CTR] = start + 1000 * playouts
    best_i = -1
    for i in range(n_moves):
        if moves[i, M_DEFAULT] == 1 and (best_i < 0 or totals[i] > totals[best_i]):
            best_i = i
    return best_i


@njit(cache=True, inline="always")
def decide(ent, board, st, s, who, kind, moves, n_moves, run):
    """The option seat who's policy picks for seat s's decision `kind` (index into moves):
    rollout search for a rollout policy's turn moves, else kernels/policy.decide (a rollout
    policy's other decisions are its base policy's)."""
    if run.policies[who] == POLICY_ROLLOUT:
        if kind == DEC_MOVE:
            return decide_rollout(ent, board, st, s, who, moves, n_moves, run)
        base = _base_of(run, who)
        return decide_simple(ent, board, st, s, who, kind, moves, n_moves, base[0])
    return decide_simple(ent, board, st, s, who, kind, moves, n_moves, run)


@njit(cache=True, _nrt=True)
def take_search_decision(ent, board, st, sc, s, kind, who, run, log, g, n_log):
    """policy.take_decision for a decider whose policy is rollout: its search allocates, so it
    runs with numba's runtime (kernels/__init__.py), and only runs that play rollout compile it."""
    moves = sc.moves
    m = legal(ent, board, st, s, kind, moves, sc.opts, all_purchases(run.policies, who))
    j = decide(ent, board, st, s, who, kind, moves, m, run)
    apply(ent, board, st, s, kind, moves, j, log, g, n_log)
