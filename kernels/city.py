"""What the rules derive from a city, on the kernel state (wsim.kernels.layout).

The kernel twin of wsim.reference.state: entities entering a city update small running totals
(production, sellable production, discounts, shields, powers, colours, science), so a legality
check reads them instead of walking the city.
"""

import numpy as np
from numba import njit

from wsim.codes import (COPY_CHOICE, COPY_LEFT, COPY_RIGHT, COUNT_DEFEATS, COUNT_STAGES, DISC_MANUF_LEFT,
                        DISC_MANUF_RIGHT, DISC_RAW_LEFT, DISC_RAW_RIGHT, DISCOUNT_PRICE, N_RES,
                        POW_COPY_GUILD, POW_COPY_STAGE, RAW_MASK, SCOPE_LEFT, SCOPE_RIGHT, SCOPE_SELF,
                        TRADE_PRICE, PURPLE)
from wsim.kernels.layout import (F_BOARD, F_COPY3, F_COPY_GUILD, F_DEFEATS, F_DISC, F_NCARDS, F_NCHOICE,
                                 F_NSELL_CHOICE, F_POWERS, F_SHIELDS, F_SIDE, F_STAGES, S_CARDS, S_CHOICE,
                                 S_COLORS, S_OWNED, S_PROD, S_SCI, S_SEAT, S_SELL, S_SELL_CH, S_WORK,
                                 T_BOARD_STAGE_ENT, T_BOARD_STAGES, T_CARD_CHAIN, T_CARD_NAME_ID,
                                 T_ENT_CHOICE, T_ENT_COIN_COST, T_ENT_COINS, T_ENT_COINS_PER, T_ENT_COPY,
                                 T_ENT_COST, T_ENT_DISCOUNT, T_ENT_KIND, T_ENT_POWER, T_ENT_PROD,
                                 T_ENT_SCIENCE, T_ENT_SHIELDS, T_ENT_TRADEABLE, W_LP, W_RP)
from wsim.kernels.trade import trade_options

_ONE = np.uint64(1)
_B63 = np.uint64(63)


@njit(cache=True)
def left_of(n, s):
    return (s + 1) % n


@njit(cache=True)
def right_of(n, s):
    return (s - 1 + n) % n


@njit(cache=True)
def owns_name(T, st, s, card):
    """Whether seat s has a building of the card's name."""
    nid = np.int64(T[T_CARD_NAME_ID][card])
    return (st[S_OWNED][s, nid >> 6] >> (np.uint64(nid) & _B63)) & _ONE != 0


@njit(cache=True)
def chain_applies(T, st, s, card):
    """Whether a building seat s owns makes the card free."""
    chain = T[T_CARD_CHAIN]
    owned = st[S_OWNED]
    return (owned[s, 0] & chain[card, 0]) | (owned[s, 1] & chain[card, 1]) != 0


@njit(cache=True)
def stage_source(T, st, n, s, k):
    """(effective entity, copied) of stage k of seat s: -1 where a copy gives nothing."""
    seat = st[S_SEAT]
    board_stages = T[T_BOARD_STAGES]
    stage_ent = T[T_BOARD_STAGE_ENT]
    power = T[T_ENT_POWER]
    b = seat[s, F_BOARD]
    side = seat[s, F_SIDE]
    if k >= board_stages[b, side]:
        return -1, False
    e = np.int64(stage_ent[b, side, k])
    if power[e] != POW_COPY_STAGE:
        return e, False
    stage = np.int64(T[T_ENT_COPY][e, 0])
    of = np.int64(T[T_ENT_COPY][e, 1])
    if of == COPY_CHOICE:
        of = np.int64(seat[s, F_COPY3])
    if of == COPY_LEFT:
        nb = left_of(n, s)
    elif of == COPY_RIGHT:
        nb = right_of(n, s)
    else:
        return -1, True
    nb_board = seat[nb, F_BOARD]
    nb_side = seat[nb, F_SIDE]
    if stage >= board_stages[nb_board, nb_side]:
        return -1, True
    target = np.int64(stage_ent[nb_board, nb_side, stage])
    if power[target] == POW_COPY_STAGE:
        return -1, True
    return target, True


@njit(cache=True)
def add_entity(T, st, s, e, is_card):
    """An entity enters seat s's city: update its running totals (and its card list)."""
    seat = st[S_SEAT]
    prod = T[T_ENT_PROD]
    for r in range(N_RES):
        st[S_PROD][s, r] += prod[e, r]
    choice = T[T_ENT_CHOICE][e]
    if choice != 0:
        st[S_CHOICE][s, seat[s, F_NCHOICE]] = choice
        seat[s, F_NCHOICE] += 1
    if is_card and T[T_ENT_TRADEABLE][e] != 0:
        for r in range(N_RES):
            st[S_SELL][s, r] += prod[e, r]
        if choice != 0:
            st[S_SELL_CH][s, seat[s, F_NSELL_CHOICE]] = choice
            seat[s, F_NSELL_CHOICE] += 1
    seat[s, F_DISC] |= T[T_ENT_DISCOUNT][e]
    seat[s, F_SHIELDS] += T[T_ENT_SHIELDS][e]
    p = T[T_ENT_POWER][e]
    if p != 0:
        seat[s, F_POWERS] |= 1 << p
        if p == POW_COPY_GUILD:
            seat[s, F_COPY_GUILD] += 1
    sci = T[T_ENT_SCIENCE][e]
    if sci >= 0:
        st[S_SCI][s, sci] += 1
    if is_card:
        st[S_CARDS][s, seat[s, F_NCARDS]] = e
        seat[s, F_NCARDS] += 1
        nid = np.int64(T[T_CARD_NAME_ID][e])
        st[S_OWNED][s, nid >> 6] |= _ONE << (np.uint64(nid) & _B63)
        st[S_COLORS][s, T[T_ENT_KIND][e]] += 1


@njit(cache=True)
def count(st, n, s, amount, what, scope, extra_purple):
    """amount x (matching cards / stages / defeat tokens) over the scope, seen from seat s.

    extra_purple adds guild copies to seat s's own purple count (Olympia B3).
    """
    if amount == 0:
        return 0
    seat = st[S_SEAT]
    colors = st[S_COLORS]
    total = 0
    for j in range(3):
        if j == 0:
            if scope & SCOPE_SELF == 0:
                continue
            x = s
        elif j == 1:
            if scope & SCOPE_LEFT == 0:
                continue
            x = left_of(n, s)
        else:
            if scope & SCOPE_RIGHT == 0:
                continue
            x = right_of(n, s)
        if what == COUNT_STAGES:
            total += seat[x, F_STAGES]
        elif what == COUNT_DEFEATS:
            total += seat[x, F_DEFEATS]
        else:
            for k in range(7):
                if what >> k & 1:
                    total += colors[x, k]
            if x == s and what >> PURPLE & 1:
                total += extra_purple
    return amount * total


@njit(cache=True)
def coins_when_built(T, st, n, s, e):
    """Coins an entity gives when it resolves, on the cities as they stand."""
    per = T[T_ENT_COINS_PER]
    return np.int64(T[T_ENT_COINS][e]) + count(st, n, s, per[e, 0], per[e, 1], per[e, 2], 0)


@njit(cache=True)
def set_prices(st, s):
    """Fill the W_LP / W_RP rows of the work area with seat s's prices per resource."""
    disc = st[S_SEAT][s, F_DISC]
    work = st[S_WORK]
    for r in range(N_RES):
        if RAW_MASK >> r & 1:
            lbit = DISC_RAW_LEFT
            rbit = DISC_RAW_RIGHT
        else:
            lbit = DISC_MANUF_LEFT
            rbit = DISC_MANUF_RIGHT
        work[W_LP, r] = DISCOUNT_PRICE if disc & lbit else TRADE_PRICE
        work[W_RP, r] = DISCOUNT_PRICE if disc & rbit else TRADE_PRICE


@njit(cache=True)
def purchase(T, st, n, s, e, out):
    """Pareto-minimal purchases (in out) covering entity e's resource cost for seat s; returns
    how many (0 = impossible). set_prices(st, s) must have been called for seat s."""
    seat = st[S_SEAT]
    lft = left_of(n, s)
    rgt = right_of(n, s)
    work = st[S_WORK]
    return trade_options(T[T_ENT_COST][e], st[S_PROD][s], st[S_CHOICE][s], seat[s, F_NCHOICE],
                         st[S_SELL][lft], st[S_SELL_CH][lft], seat[lft, F_NSELL_CHOICE],
                         st[S_SELL][rgt], st[S_SELL_CH][rgt], seat[rgt, F_NSELL_CHOICE],
                         work[W_LP], work[W_RP], out)


@njit(cache=True)
def has_cost(T, e):
    """Whether an entity costs anything (coins or resources)."""
    if T[T_ENT_COIN_COST][e] != 0:
        return True
    cost = T[T_ENT_COST]
    for r in range(N_RES):
        if cost[e, r] != 0:
            return True
    return False
