"""POLICY_LEARNED: the option whose position a learned evaluation values most (`choice`), and the
tape that records those positions for training (`record`; wsim/agents/learn.py fits the model).

The model's input x is the deciding seat's observation (kernels/observe.py: only what that seat
sees) followed by each city's points now (score.score_seat on the cities as they stand, military
tokens so far included; ring order from the observer, zeros past the last city). The model is
one hidden layer of rectified units:

    value(x) = b2 + w2 . relu(b1 + x W1)

fitted to the seat's final margin in points over the best other player. An option is valued on
its afterstate: the position right after the option is resolved alone, before any military
resolution (the other seats' choices of the turn are hidden from the seat, so they are left out;
at 2 players the controller's own move, chosen before the Free City's, is resolved with it). The
afterstate is made by the rules' own functions (turn.resolve, city.add_card) on a copy of the
cities (sc.after), never by a second copy of the rules.

The first layer is updated, not recomputed: x's hidden layer is computed once a decision (sc.h0),
and an option changes only the blocks of the cities it touches (the seat's and its neighbours';
every city at 2 players), the observer's hand, the pile's count and those cities' points.
`_changes` lists the changed entries (sc.d_at, sc.d_by); an option's hidden layer is h0 plus
those rows of W1. The tape writes x plus the same changes, so that training and play see one
vector.

A model record is a schema.Model (lay, w1, b1, w2, b2, units: lay the input's offsets,
`input_layout`: the observation's, then L_POINTS and L_INPUT): it holds the K models of a run,
one a learned seat's file (wsim/run/model.seats_model), each padded to the widest with zero
units that its loops never reach (units[k]: its own width), so that a model plays as it plays
alone; a seat's parameter row names its model (L_MODEL). A tape is a schema.Tape (lay, rows,
meta, count, sample: the recorded inputs, each row's T_* facts, how many rows are written, and the
sampling's stream key, threshold (a decision is recorded when its draw is below it), draw counter
and exploration threshold); kernels/schema.py gives their fields' types. A recorded decision
whose next draw is below the exploration threshold plays a uniform legal option instead of the
teacher's (`explore`), so that the data also value the options a teacher never plays (the outcome
that follows is then the teacher's play after that option).

Every decision kind is valued: turn moves, 7th cards and discard builds with their declines (a
decline's afterstate is the position as it is), a stage-3 neighbour by the copy's afterstate; a
stage move that still needs its neighbour is worth the better of the two copies.
"""

import numpy as np
from numba import njit

from wsim.codes import ACT_DISCARD, COINS_PER_POINT, COPY_LEFT, COPY_RIGHT, SCOPE_LEFT, SCOPE_RIGHT
from wsim.kernels.city import add_card, coins_when_built, left_of, right_of
from wsim.kernels.layout import (C_ACTION, C_CARD, C_COPY3, C_ON, DEC_COPY3, DEC_DISCARD, DEC_MOVE, DEC_SEVENTH,
                                 DECLINE, DEAL_POOL, E_AGE, E_NAME_ID, E_POINTS_PER, F_CARDS, F_CHOSEN, F_COINS,
                                 F_COINS_RECEIVED,
                                 F_COPY_GUILD, F_COUNT, F_NCARDS, G_AGE, G_COUNT, G_FC, G_N, G_TURN, MAX_BLOCK,
                                 MAX_INPUT, MAX_NAMES, MAX_SEATS, M_ACTION, M_CARD, M_COPY3, RES_TOTAL)
from wsim.kernels.observe import (O_CITY, O_CITY_SIZE, O_HAND, O_LENGTH, O_N_NAMES, O_PILE, city_block, encode,
                                  hand_block, layout)
from wsim.kernels.rng import draw_u64
from wsim.kernels.policy import L_MODEL
from wsim.kernels.schema import Model, Tape
from wsim.kernels.score import score_seat
from wsim.kernels.step import set_choice
from wsim.kernels.turn import resolve

L_POINTS, L_INPUT = O_LENGTH + 1, O_LENGTH + 2  # the input layout's entries past the observation's
# a tape row's facts: its game (index in the call's block), the deciding seat, the decision kind,
# age and turn; then, once the game is over, the seat's total, its margin over the best other
# player and whether it won (rank 1)
TAPE_META = 8
T_GAME, T_WHO, T_KIND, T_AGE, T_TURN, T_TOTAL, T_MARGIN, T_WIN = range(TAPE_META)
_WIDEST = layout(MAX_NAMES, DEAL_POOL)
assert _WIDEST[O_LENGTH] + MAX_SEATS <= MAX_INPUT and max(_WIDEST[O_CITY_SIZE], MAX_NAMES) <= MAX_BLOCK


def input_layout(olay: np.ndarray) -> np.ndarray:
    """The model input's offsets: the observation layout olay (observe.layout), then L_POINTS
    (the cities' points) and L_INPUT (the input's length)."""
    out = np.zeros(L_INPUT + 1, np.int64)
    out[:O_LENGTH + 1] = olay
    out[L_POINTS] = olay[O_LENGTH]
    out[L_INPUT] = olay[O_LENGTH] + MAX_SEATS
    return out


def new_tape(lay: np.ndarray, capacity: int, rate: float, explore: float) -> Tape:
    """A tape of `capacity` rows recording each decision with probability `rate`, a recorded one
    explored with probability `explore` (module docstring; its stream key is set per game)."""
    def threshold(p):
        return min(2**64 - 1, int(p * 2**64))
    return Tape(lay, np.zeros((capacity, int(lay[L_INPUT])), np.float32), np.zeros((capacity, TAPE_META), np.int32),
                np.zeros(1, np.int64), np.array([0, threshold(rate), 0, threshold(explore)], np.uint64))


def empty_tape(lay: np.ndarray) -> Tape:
    """The tape of a run that records nothing (the learned family takes one: kernels/game.py)."""
    return new_tape(lay, 0, 0.0, 0.0)


def no_model(lay: np.ndarray) -> Model:
    """A model for training games without a learned seat (the learned family takes one): one
    hidden unit, every weight zero."""
    width = int(lay[L_INPUT])
    return Model(lay, np.zeros((1, width, 1), np.float32), np.zeros((1, 1), np.float32),
                 np.zeros((1, 1), np.float32), np.zeros(1, np.float32), np.ones(1, np.int64))


@njit(cache=True, _nrt=False)
def _points(ent, seat, n, t, sc):
    """City t's points now."""
    score_seat(ent, seat, n, t, sc.points[0], sc.points[1])
    return sc.points[0, RES_TOTAL]


@njit(cache=True, _nrt=False)
def _input(ent, st, sc, who, s, lay):
    """x (sc.x) for seat who's decision for city s."""
    x = sc.x
    encode(ent, st, who, s, lay, x)
    n = st.gs[G_N]
    for k in range(MAX_SEATS):
        x[lay[L_POINTS] + k] = _points(ent, st.seat, n, (who + k) % n, sc) if k < n else 0


@njit(cache=True, inline="always")
def _touched(n, fc, s, t):
    """Whether resolving a choice of city s alone may change city t."""
    return fc >= 0 or t == s or t == left_of(n, s) or t == right_of(n, s)


@njit(cache=True, _nrt=False)
def _resolve_alone(ent, board, st, sc, s, who, kind, j, copy3):
    """Resolve option j of sc.moves in sc.after (which holds st.seat): returns whether it changes
    anything (a decline does not). copy3: the stage-3 neighbour of a stage move that needs one."""
    after, moves, gs = sc.after, sc.moves, st.gs
    n = gs[G_N]
    if kind == DEC_DISCARD:
        c = moves[j, M_CARD]
        if c < 0:
            return False
        add_card(ent, after, s, c)
        after[s, F_COINS] += coins_when_built(ent, after, n, s, c)
        return True
    if kind != DEC_COPY3 and moves[j, M_ACTION] == DECLINE:
        return False
    fc = gs[G_FC]
    for t in range(n):  # the other seats' choices are hidden (the controller's own is not)
        if t != s and not (s == fc and t == who):
            after[t, F_CHOSEN + C_ON] = -1
    if kind == DEC_COPY3:
        after[s, F_CHOSEN + C_COPY3] = moves[j, M_COPY3]
    else:
        set_choice(after, s, moves, j)
        if moves[j, M_COPY3] == 1:
            after[s, F_CHOSEN + C_COPY3] = copy3
    for i in range(G_COUNT):
        sc.after_gs[i] = gs[i]
    resolve(ent, board, after, sc.after_pile, sc.after_gs, n, gs[G_AGE])
    return True


@njit(cache=True, _nrt=False)
def _reads_neighbours(ent, seat, t):
    """Whether city t's points may count its neighbours' cities (a guild copy, or a building
    whose points count a neighbour's cards, stages or tokens: kernels/score.py)."""
    if seat[t, F_COPY_GUILD] != 0:
        return True
    for i in range(seat[t, F_NCARDS]):
        c = seat[t, F_CARDS + i]
        if ent[c, E_POINTS_PER] != 0 and ent[c, E_POINTS_PER + 2] & (SCOPE_LEFT | SCOPE_RIGHT) != 0:
            return True
    return False


@njit(cache=True, inline="always")
def _diff(x, at, block, width, sc, m):
    """Append to the change list the entries of x[at:at + width] that block[:width] differs from."""
    for i in range(width):
        d = block[i] - x[at + i]
        if d != 0:
            sc.d_at[m] = at + i
            sc.d_by[m] = d
            m += 1
    return m


@njit(cache=True, inline="always")
def _change(sc, m, at, by):
    sc.d_at[m] = at
    sc.d_by[m] = by
    return m + 1


@njit(cache=True, _nrt=False)
def _changes(ent, st, sc, s, who, kind, j, lay):
    """The entries of x that the option resolved in sc.after changes (sc.d_at, sc.d_by); returns
    how many. Resets what resolving it wrote beyond the cities (sc.after_pile)."""
    x, after, block = sc.x, sc.after, sc.block
    gs = st.gs
    n = gs[G_N]
    fc = gs[G_FC]
    m = 0
    size = lay[O_CITY_SIZE]
    for t in range(n):
        if _touched(n, fc, s, t):
            k = (t - who + n) % n
            # a neighbour's block changes only by the coins it is paid (turn.resolve); its points
            # may change by this city's cards too (a guild counts them)
            if fc >= 0 or t == s or after[t, F_COINS] != st.seat[t, F_COINS]:
                city_block(after, t, lay, block, 0)
                m = _diff(x, lay[O_CITY] + k * size, block, size, sc, m)
            if fc < 0 and t != s and not _reads_neighbours(ent, after, t):
                # its points change only by the treasury's share of the coins it is paid
                by = after[t, F_COINS] // COINS_PER_POINT - st.seat[t, F_COINS] // COINS_PER_POINT
                if by != 0:
                    m = _change(sc, m, lay[L_POINTS] + k, by)
                continue
            p = _points(ent, after, n, t, sc)
            if p != x[lay[L_POINTS] + k]:
                m = _change(sc, m, lay[L_POINTS] + k, p - x[lay[L_POINTS] + k])
    if kind == DEC_DISCARD:
        if sc.moves[j, M_CARD] >= 0:
            m = _change(sc, m, lay[O_PILE] + ent[sc.moves[j, M_CARD], E_AGE] - 1, -1)
        return m
    if s == fc:  # the controller's hand gives two cards: its own and the Free City's
        hand_block(ent, after, who, lay, block, 0)
        m = _diff(x, lay[O_HAND], block, lay[O_N_NAMES], sc, m)
    else:  # the seat's own card leaves its hand
        m = _change(sc, m, lay[O_HAND] + ent[after[s, F_CHOSEN + C_CARD], E_NAME_ID], -1)
    for t in range(n):  # what went to the pile (resolve put it in sc.after_pile)
        if after[t, F_CHOSEN + C_ON] == 1 and after[t, F_CHOSEN + C_ACTION] == ACT_DISCARD:
            card = after[t, F_CHOSEN + C_CARD]
            sc.after_pile[card] = 0
            m = _change(sc, m, lay[O_PILE] + ent[card, E_AGE] - 1, 1)
    return m


@njit(cache=True, inline="always")
def _copy_cities(st, sc, s, every):
    """sc.after holds st.seat again: every city, or (every False) what an option of city s may
    have changed: its city, and of a neighbour's only the coins it was paid and their counter
    (turn.resolve changes nothing else of another city; tests/test_learned.py checks it option
    by option)."""
    n = st.gs[G_N]
    fc = st.gs[G_FC]
    for t in range(n):
        if every or t == s or fc >= 0:
            for f in range(F_COUNT):
                sc.after[t, f] = st.seat[t, f]
        elif _touched(n, fc, s, t):
            sc.after[t, F_COINS] = st.seat[t, F_COINS]
            sc.after[t, F_COINS_RECEIVED] = st.seat[t, F_COINS_RECEIVED]


@njit(cache=True, _nrt=False)
def _hidden0(model, k, sc):
    """sc.h0: the hidden layer of x for model k, before its activation."""
    lay, w1, b1 = model.lay, model.w1, model.b1
    h0, x = sc.h0, sc.x
    units = model.units[k]
    for u in range(units):
        h0[u] = b1[k, u]
    for i in range(lay[L_INPUT]):
        xi = x[i]
        if xi != 0:
            for u in range(units):
                h0[u] += xi * w1[k, i, u]


@njit(cache=True, _nrt=False, fastmath={"nnan", "ninf", "nsz", "arcp", "afn"})
def _value(model, k, sc, m):
    """Model k's value of x plus the m changes listed."""
    w1, w2 = model.w1, model.w2
    h, h0 = sc.h, sc.h0
    units = model.units[k]
    for u in range(units):
        h[u] = h0[u]
    for i in range(m):
        r = sc.d_at[i]
        d = sc.d_by[i]
        for u in range(units):
            h[u] += d * w1[k, r, u]
    # the output's sum in eight partial sums of fixed order, which the compiler may vectorise
    # without reordering a sum, so that a value is the same on every machine
    zero = np.float32(0)
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = zero
    whole = units - units % 8
    for u in range(0, whole, 8):
        a0 += w2[k, u] * max(h[u], zero)
        a1 += w2[k, u + 1] * max(h[u + 1], zero)
        a2 += w2[k, u + 2] * max(h[u + 2], zero)
        a3 += w2[k, u + 3] * max(h[u + 3], zero)
        a4 += w2[k, u + 4] * max(h[u + 4], zero)
        a5 += w2[k, u + 5] * max(h[u + 5], zero)
        a6 += w2[k, u + 6] * max(h[u + 6], zero)
        a7 += w2[k, u + 7] * max(h[u + 7], zero)
    for u in range(whole, units):
        a0 += w2[k, u] * max(h[u], zero)
    v = model.b2[k] + (((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)))
    return v


@njit(cache=True, _nrt=False)
def _option_value(ent, board, st, sc, s, who, kind, j, model, k, copy3):
    """Model k's value of option j's afterstate."""
    m = 0
    if _resolve_alone(ent, board, st, sc, s, who, kind, j, copy3):
        m = _changes(ent, st, sc, s, who, kind, j, model.lay)
        _copy_cities(st, sc, s, False)
    return _value(model, k, sc, m)


@njit(cache=True, _nrt=False)
def best_option(ent, board, st, sc, s, who, kind, n_moves, model, k):
    """(option, value): the option (of the first n_moves of sc.moves) whose afterstate seat who's
    model (model k of the record) values most, for city s's decision `kind` (the first of them on a tie), and that value
    (seat who's expected final margin over the best other player, in points)."""
    _input(ent, st, sc, who, s, model.lay)
    _hidden0(model, k, sc)
    _copy_cities(st, sc, s, True)
    best_i = -1
    best = np.float32(0)
    for j in range(n_moves):
        v = _option_value(ent, board, st, sc, s, who, kind, j, model, k, np.int64(COPY_LEFT))
        if kind != DEC_COPY3 and sc.moves[j, M_COPY3] == 1:
            v = max(v, _option_value(ent, board, st, sc, s, who, kind, j, model, k, np.int64(COPY_RIGHT)))
        if best_i < 0 or v > best:
            best_i, best = j, v
    return best_i, best


@njit(cache=True, inline="always")
def choice(ent, board, st, sc, s, who, kind, n_moves, model, params):
    """POLICY_LEARNED's option for city s's decision `kind` (best_option), by the model its row
    names (params[who, L_MODEL])."""
    return best_option(ent, board, st, sc, s, who, kind, n_moves, model, params[who, L_MODEL])[0]


@njit(cache=True, _nrt=False)
def explore(sc, kind, j, n_moves, tape):
    """The option the decision plays (the teacher's j, or on an explored decision a uniform one
    of the n_moves), and whether the decision is to be recorded (module docstring)."""
    sample = tape.sample
    if tape.rows.shape[0] == 0:  # a run that records nothing (kernels/game.py)
        return j, False
    if (kind == DEC_MOVE or kind == DEC_SEVENTH) and sc.moves[j, M_COPY3] == 1:
        return j, False  # recorded at its stage-3 neighbour's decision instead
    draw = draw_u64(sample[0], sample[2])
    sample[2] += 1
    if draw >= sample[1]:
        return j, False
    draw = draw_u64(sample[0], sample[2])
    sample[2] += 1
    if draw < sample[3]:
        j = np.int64(draw_u64(sample[0], sample[2]) % np.uint64(n_moves))
        sample[2] += 1
        if (kind == DEC_MOVE or kind == DEC_SEVENTH) and sc.moves[j, M_COPY3] == 1:
            return j, False
    return j, True


@njit(cache=True, _nrt=False)
def record(ent, board, st, sc, s, who, kind, j, tape, g):
    """Write option j's afterstate input (x plus its changes) and its facts into the next row of
    the tape (module docstring); game g's row facts T_TOTAL.. are written once it is over
    (kernels/tape.py)."""
    lay, rows, meta, count = tape.lay, tape.rows, tape.meta, tape.count
    r = count[0]
    if r >= rows.shape[0]:
        count[0] = rows.shape[0] + 1
        return
    _input(ent, st, sc, who, s, lay)
    _copy_cities(st, sc, s, True)
    m = 0
    if _resolve_alone(ent, board, st, sc, s, who, kind, j, np.int64(COPY_LEFT)):
        m = _changes(ent, st, sc, s, who, kind, j, lay)
    for i in range(lay[L_INPUT]):
        rows[r, i] = sc.x[i]
    for i in range(m):
        rows[r, sc.d_at[i]] += sc.d_by[i]
    meta[r, T_GAME] = g
    meta[r, T_WHO] = who
    meta[r, T_KIND] = kind
    meta[r, T_AGE] = st.gs[G_AGE]
    meta[r, T_TURN] = st.gs[G_TURN]
    count[0] = r + 1
