"""The observation encoder: one seat's view (docs/rules.md §2) as a fixed-length float32 vector.

Written once, for every consumer of a learned player's input (its policy, its training data, a
batched environment). What the vector holds, in order (`names` gives every entry's name):

  age          one-hot, Ages I-III
  turn         one-hot, turns 1-6
  players      one-hot, 2-7 players (2: the Free City variant, three cities)
  acting       one-hot over the ring: the city the decision is for (0 the observer itself; at 2
               players the Free City's place when the observer decides for it)
  pile         the discard pile's size by age of its cards (public: every discard is seen)
  fc_pile      the cards left in the Free City's pile (0 without it)
  hand         per building name, the copies in the observer's hand
  held         per building name, 1 if it was in a hand the observer held earlier this age
  city k       for k = 0..6 round the ring from the observer (k = 1 its left neighbour): present,
               coins, shields, military points, defeats, stages, cards, side (0 A, 1 B), the board
               (one-hot), fixed production per resource, cards per colour, science symbols
               (compass, gear, tablet, wildcards), per building name whether it is built there;
               zeros past the last city

Counts are raw numbers (no scaling): a model scales them as it learns. Nothing hidden is read:
no other hand, no later deal, no pile card, no choice of this turn, no random stream
(tests/test_observation.py perturbs all of it). The hands held earlier are followed from this
age's deal and its plays (st.dealt, st.hist), which the observer saw as they happened: the same
definition as KernelGame.held.

The offsets depend on the data file (its building names and boards): `layout` computes them
from the tables, as an int64 array the kernel takes (O_* below index it).
"""

import numpy as np
from numba import njit

from wsim.codes import (COLORS, FC_PLAYERS, HAND_SIZE, MAX_PLAYERS, N_AGES, N_KINDS, N_RES, N_SCIENCE, RESOURCES,
                        TURNS_PER_AGE)
from wsim.kernels.hidden import hand_of
from wsim.kernels.layout import (E_AGE, E_NAME_ID, F_BOARD, F_COINS, F_COLORS, F_DEFEATS, F_HAND, F_HAND_N, F_MIL,
                                 F_NCARDS, F_OWNED, F_PROD, F_SCI, F_SHIELDS, F_SIDE, F_STAGES, G_AGE, G_FC, G_N, G_NCARDS,
                                 G_TURN, MAX_SEATS)
from wsim.kernels.turn import controller_at

MIN_PLAYERS = FC_PLAYERS
CITY_SCALARS = ("present", "coins", "shields", "military", "defeats", "stages", "cards", "side")
SCIENCE = ("compass", "gear", "tablet", "wildcard")
(O_AGE, O_TURN, O_PLAYERS, O_ACTING, O_PILE, O_FC_PILE, O_HAND, O_HELD, O_CITY, O_CITY_SIZE, O_BOARD, O_PROD,
 O_COLORS, O_SCI, O_OWNED, O_N_NAMES, O_LENGTH) = range(17)
assert len(SCIENCE) == N_SCIENCE and len(RESOURCES) == N_RES and len(COLORS) + 1 == N_KINDS


def layout(n_names: int, n_boards: int) -> np.ndarray:
    """The offsets (O_*) of the vector for a data file of n_names building names and n_boards
    boards; O_LENGTH is its length."""
    o = np.zeros(O_LENGTH + 1, np.int64)
    at = 0
    for field, width in ((O_AGE, N_AGES), (O_TURN, TURNS_PER_AGE), (O_PLAYERS, MAX_PLAYERS - MIN_PLAYERS + 1),
                         (O_ACTING, MAX_SEATS), (O_PILE, N_AGES), (O_FC_PILE, 1), (O_HAND, n_names),
                         (O_HELD, n_names)):
        o[field] = at
        at += width
    o[O_CITY] = at
    inside = len(CITY_SCALARS)  # a city block: the scalars, then the board, production, colours, ...
    for field, width in ((O_BOARD, n_boards), (O_PROD, N_RES), (O_COLORS, N_KINDS), (O_SCI, N_SCIENCE),
                         (O_OWNED, n_names)):
        o[field] = inside
        inside += width
    o[O_CITY_SIZE] = inside
    o[O_N_NAMES] = n_names
    o[O_LENGTH] = at + MAX_SEATS * inside
    return o


def names(tables) -> list:
    """The name of every entry of the vector, for the tables' data file."""
    building = [""] * (max(int(i) for i in tables.card_name_id) + 1)
    for c, i in enumerate(tables.card_name_id):
        building[int(i)] = building[int(i)] or tables.card_names[c]
    out = [f"age={a}" for a in range(1, N_AGES + 1)] + [f"turn={u}" for u in range(1, TURNS_PER_AGE + 1)]
    out += [f"players={p}" for p in range(MIN_PLAYERS, MAX_PLAYERS + 1)]
    out += [f"acting=city{k}" for k in range(MAX_SEATS)] + [f"pile:age{a}" for a in range(1, N_AGES + 1)]
    out += ["fc_pile"] + [f"hand:{b}" for b in building] + [f"held:{b}" for b in building]
    for k in range(MAX_SEATS):
        out += [f"city{k}:{f}" for f in CITY_SCALARS] + [f"city{k}:board={b}" for b in tables.board_ids]
        out += [f"city{k}:prod:{r}" for r in RESOURCES]
        out += [f"city{k}:{c}" for c in COLORS + ("stage",)] + [f"city{k}:{s}" for s in SCIENCE]
        out += [f"city{k}:built:{b}" for b in building]
    return out


def tables_layout(tables) -> np.ndarray:
    """`layout` for the tables' data file."""
    return layout(max(int(i) for i in tables.card_name_id) + 1, len(tables.board_ids))


@njit(cache=True, inline="always")
def _in_hand(st, h, u, c):
    """Copies of card c in hand h (named by the seat it was dealt to) at the start of turn u:
    dealt there or drawn into it from the Free City's pile by turn u, less those played from it
    before turn u."""
    gs, dealt, hist = st.gs, st.dealt, st.hist
    age = gs[G_AGE]
    fc = gs[G_FC]
    k = 0
    for j in range(HAND_SIZE):
        k += dealt[age - 1, h, j] == c
    if fc >= 0:
        for v in range(1, u + 1):
            if dealt[age - 1, fc, v - 1] == c and hand_of(gs, controller_at(age, v), v) == h:
                k += 1
    for v in range(1, u):
        for s in range(gs[G_N]):
            holder = controller_at(age, v) if s == fc else s
            if hist[v - 1, s, 0] == c and hand_of(gs, holder, v) == h:
                k -= 1
    return k


@njit(cache=True, inline="always")
def hand_block(ent, seat, who, olay, out, at):
    """Seat who's hand (copies per building name) into out[at:at + olay[O_N_NAMES]]."""
    for i in range(olay[O_N_NAMES]):
        out[at + i] = 0
    for j in range(seat[who, F_HAND_N]):
        out[at + ent[seat[who, F_HAND + j], E_NAME_ID]] += 1


@njit(cache=True, inline="always")
def city_block(seat, t, olay, out, at):
    """City t's block (the module docstring's `city k`) into out[at:at + olay[O_CITY_SIZE]]."""
    for i in range(olay[O_CITY_SIZE]):
        out[at + i] = 0
    out[at] = 1
    out[at + 1] = seat[t, F_COINS]
    out[at + 2] = seat[t, F_SHIELDS]
    out[at + 3] = seat[t, F_MIL]
    out[at + 4] = seat[t, F_DEFEATS]
    out[at + 5] = seat[t, F_STAGES]
    out[at + 6] = seat[t, F_NCARDS]
    out[at + 7] = seat[t, F_SIDE]
    out[at + olay[O_BOARD] + seat[t, F_BOARD]] = 1
    for r in range(N_RES):
        out[at + olay[O_PROD] + r] = seat[t, F_PROD + r]
    for j in range(N_KINDS):
        out[at + olay[O_COLORS] + j] = seat[t, F_COLORS + j]
    for j in range(N_SCIENCE):
        out[at + olay[O_SCI] + j] = seat[t, F_SCI + j]
    for i in range(olay[O_N_NAMES]):
        out[at + olay[O_OWNED] + i] = seat[t, F_OWNED + i]


@njit(cache=True, _nrt=False)
def encode(ent, st, who, s, olay, out):
    """Write seat who's view into out (float32, olay[O_LENGTH] long), for a decision of city s
    (who itself, or at 2 players the Free City it decides for). Reads only what who sees."""
    seat, gs, pile = st.seat, st.gs, st.pile
    n = gs[G_N]
    fc = gs[G_FC]
    age = gs[G_AGE]
    turn = gs[G_TURN]
    for i in range(olay[O_LENGTH]):
        out[i] = 0
    out[olay[O_AGE] + age - 1] = 1
    out[olay[O_TURN] + min(turn, TURNS_PER_AGE) - 1] = 1
    out[olay[O_PLAYERS] + (FC_PLAYERS if fc >= 0 else n) - MIN_PLAYERS] = 1
    out[olay[O_ACTING] + (s - who + n) % n] = 1
    for c in range(gs[G_NCARDS]):  # card ids (the pile's region is longer)
        if pile[c] > 0:
            out[olay[O_PILE] + ent[c, E_AGE] - 1] += pile[c]
    if fc >= 0:
        out[olay[O_FC_PILE]] = TURNS_PER_AGE + 1 - turn
    hand_block(ent, seat, who, olay, out, olay[O_HAND])
    for u in range(1, turn):
        h = hand_of(gs, who, u)
        for j in range(HAND_SIZE):  # the hand's dealt cards, and at 2 players the pile's draws
            c = st.dealt[age - 1, h, j]
            if _in_hand(st, h, u, c) > 0:
                out[olay[O_HELD] + ent[c, E_NAME_ID]] = 1
        if fc >= 0:
            for v in range(1, u + 1):
                c = st.dealt[age - 1, fc, v - 1]
                if hand_of(gs, controller_at(age, v), v) == h and _in_hand(st, h, u, c) > 0:
                    out[olay[O_HELD] + ent[c, E_NAME_ID]] = 1
    for k in range(n):
        city_block(seat, (who + k) % n, olay, out, olay[O_CITY] + k * olay[O_CITY_SIZE])
