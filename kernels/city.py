"""What the rules derive from a city, on the kernel state (layout: wsim.kernels.layout).

The kernel twin of wsim.reference.state: entities entering a city update small running totals
(production, sellable production, prices, shields, powers, colours, science), so a legality
check reads them instead of walking the city.
"""

import numpy as np
from numba import njit

from wsim.codes import (COPY_CHOICE, COPY_LEFT, COPY_RIGHT, DISC_MANUF_LEFT, DISC_MANUF_RIGHT, DISC_RAW_LEFT,
                        DISC_RAW_RIGHT, DISCOUNT_PRICE, N_COLORS, N_RES, POW_COPY_GUILD, POW_COPY_STAGE,
                        POW_FIRST_OF_AGE, POW_FIRST_OF_COLOR, POW_LAST_OF_AGE, PURPLE, RAW_MASK, SCOPE_LEFT,
                        SCOPE_RIGHT, SCOPE_SELF, TRADE_PRICE, TURNS_PER_AGE)
from wsim.effects import COUNT_COMPLETE, COUNT_DEFEATS, COUNT_STAGES
from wsim.kernels.layout import (B_STAGE_ENT, B_STAGES, E_CHAIN, E_CHOICE, E_COINS, E_COPY_OF,
                                 E_COPY_STAGE, E_COINS_PER, E_DISCOUNT, E_KIND, E_NAME_ID, E_POINTS, E_POINTS_PER,
                                 E_POWER, E_PROD, E_PROD_PK,
                                 E_SCIENCE, E_SHIELDS, E_TRADEABLE, F_BOARD, F_CARDS, F_CHOICE, F_COLORS,
                                 F_COPY3, F_COPY_GUILD, F_DEFEATS, F_DISC, F_LP, F_NCARDS, F_NCHOICE,
                                 F_NSELL_CHOICE, F_OWNED, F_PK_LP, F_PK_PROD, F_PK_REACH, F_PK_RP, F_PK_SELL,
                                 F_PK_SELL_CAP, F_POWERS, F_PROD, F_RP, F_SCI, F_SELL,
                                 F_SELL_CH, F_SHIELDS, F_SIDE, F_SIDE_STAGES, F_STAGES, MAX_CHAIN, MAX_STAGES)
from wsim.kernels.trade import add_packed, read_packed, spread, trade_options_at, write_packed


@njit(cache=True, inline="always")
def left_of(n, s):
    """Seat s's left neighbour among n (a comparison: a modulo costs an integer division)."""
    return s + 1 if s + 1 < n else 0


@njit(cache=True, inline="always")
def right_of(n, s):
    """Seat s's right neighbour among n."""
    return s - 1 if s > 0 else n - 1


@njit(cache=True, inline="always")
def owns_name(ent, seat, s, card):
    """Whether seat s has a building of the card's name."""
    return seat[s, F_OWNED + ent[card, E_NAME_ID]] != 0


@njit(cache=True, inline="always")
def chain_applies(ent, seat, s, card):
    """Whether a building seat s owns makes the card free."""
    for j in range(MAX_CHAIN):
        name = ent[card, E_CHAIN + j]
        if name >= 0 and seat[s, F_OWNED + name] != 0:
            return True
    return False


FREE_TURN_CARD = 1  # free_powers: this turn's card is free (Olympia Night, turn 1 or 6)
FREE_NEW_COLOR = 2  # free_powers: a card of a colour the city lacks is free (Olympia Day)


@njit(cache=True, inline="always")
def free_powers(seat, s, turn, on_turn):
    """Which second-edition free builds seat s has now (docs/rules.md §13), as FREE_* bits, read
    once a decision: Olympia Night's card of turn 1 or turn 6 of an age (on_turn: a turn's move,
    not a 7th card), Olympia Day's first card of a colour (power_makes_free tests the card). A
    power counts from the turn after its stage is built: the decision reads the city as it stands."""
    powers = seat[s, F_POWERS]
    bits = FREE_NEW_COLOR if (powers >> POW_FIRST_OF_COLOR) & 1 == 1 else 0
    if on_turn and ((turn == 1 and (powers >> POW_FIRST_OF_AGE) & 1 == 1)
                    or (turn == TURNS_PER_AGE and (powers >> POW_LAST_OF_AGE) & 1 == 1)):
        bits |= FREE_TURN_CARD
    return bits


@njit(cache=True, inline="always")
def power_makes_free(ent, seat, s, card, bits):
    """Whether the free builds `bits` (free_powers) make the card free for seat s."""
    if bits & FREE_TURN_CARD != 0:
        return True
    return bits & FREE_NEW_COLOR != 0 and seat[s, F_COLORS + ent[card, E_KIND]] == 0


@njit(cache=True, inline="always")
def stage_entity(board, b, side, k):
    """Entity of stage k of a board side, -1 past its last stage."""
    if k >= board[b, B_STAGES + side]:
        return -1
    return board[b, B_STAGE_ENT + MAX_STAGES * side + k]


@njit(cache=True, inline="always")
def stage_source(ent, board, seat, n, s, k):
    """(effective entity, copied) of stage k of seat s: -1 where a copy gives nothing."""
    return stage_source_with(ent, board, seat, n, s, k, seat[s, F_COPY3])


@njit(cache=True, inline="always")
def stage_source_with(ent, board, seat, n, s, k, copy3):
    """stage_source as if seat s's Manneken Pis A stage-3 neighbour were `copy3`."""
    e = stage_entity(board, seat[s, F_BOARD], seat[s, F_SIDE], k)
    if e < 0 or ent[e, E_POWER] != POW_COPY_STAGE:
        return e, False
    of = ent[e, E_COPY_OF]
    if of == COPY_CHOICE:
        of = copy3
    if of == COPY_LEFT:
        nb = left_of(n, s)
    elif of == COPY_RIGHT:
        nb = right_of(n, s)
    else:
        return -1, True
    target = stage_entity(board, seat[nb, F_BOARD], seat[nb, F_SIDE], ent[e, E_COPY_STAGE])
    if target < 0 or ent[target, E_POWER] == POW_COPY_STAGE:
        return -1, True
    return target, True


@njit(cache=True, inline="always")
def policy_stage_source(ent, board, seat, n, s, k, copy3):
    """stage_source_with for the policies, which value one stage a decision: through one
    compiled copy. Inlined at each of their sites it cost about a second of a cold start and
    saved no run time; resolution keeps it inlined (a call there cost random games 1%)."""
    return _policy_stage_source(ent, board, seat, np.int64(n), np.int64(s), np.int64(k), np.int64(copy3))


@njit(cache=True, inline="always")
def move_stage_source(ent, board, seat, n, s, needs3, copy3):
    """The entity a stage move of seat s would add (policy_stage_source): its next stage's, or
    for a move that needs a stage-3 neighbour (M_COPY3 1) the copy of neighbour copy3's."""
    if needs3 == 1:
        return policy_stage_source(ent, board, seat, n, s, 2, copy3)
    return policy_stage_source(ent, board, seat, n, s, seat[s, F_STAGES], seat[s, F_COPY3])


@njit(cache=True, _nrt=False)
def _policy_stage_source(ent, board, seat, n, s, k, copy3):
    return stage_source_with(ent, board, seat, n, s, k, copy3)


@njit(cache=True, inline="always")
def set_prices(seat, s):
    """Seat s's price per resource from each neighbour (F_LP, F_RP, and packed) from its
    discount bits."""
    disc = seat[s, F_DISC]
    left = np.int64(0)
    right = np.int64(0)
    for r in range(N_RES):
        if RAW_MASK >> r & 1:
            lbit = DISC_RAW_LEFT
            rbit = DISC_RAW_RIGHT
        else:
            lbit = DISC_MANUF_LEFT
            rbit = DISC_MANUF_RIGHT
        seat[s, F_LP + r] = DISCOUNT_PRICE if disc & lbit else TRADE_PRICE
        seat[s, F_RP + r] = DISCOUNT_PRICE if disc & rbit else TRADE_PRICE
        left |= np.int64(seat[s, F_LP + r]) << (8 * r)
        right |= np.int64(seat[s, F_RP + r]) << (8 * r)
    write_packed(seat, s, F_PK_LP, left)
    write_packed(seat, s, F_PK_RP, right)


@njit(cache=True, inline="always")
def _add_units(ent, seat, s, e, fixed_col, choice_col, n_col, packed_col, reach_col):
    """Entity e's production units into seat s's columns: its fixed units added at fixed_col:+7
    and to the packed copy at packed_col, its choice unit (if any) appended to the list at
    choice_col (seat[s, n_col] long); reach_col counts, packed, the units that may give each
    resource (F_PK_REACH: choice units only; F_PK_SELL_CAP: fixed units too)."""
    for r in range(N_RES):
        seat[s, fixed_col + r] += ent[e, E_PROD + r]
    prod = read_packed(ent, e, E_PROD_PK)
    add_packed(seat, s, packed_col, prod)
    if reach_col == F_PK_SELL_CAP:
        add_packed(seat, s, reach_col, prod)
    choice = ent[e, E_CHOICE]
    if choice != 0:
        seat[s, choice_col + seat[s, n_col]] = choice
        seat[s, n_col] += 1
        add_packed(seat, s, reach_col, spread(choice))


@njit(cache=True, _nrt=False)
def add_entity(ent, seat, s, e):
    """An entity (a card, or the entity of a wonder stage) enters seat s's city: update the
    running totals every entity changes. A card also goes through add_card."""
    _add_units(ent, seat, s, e, F_PROD, F_CHOICE, F_NCHOICE, F_PK_PROD, F_PK_REACH)
    if ent[e, E_DISCOUNT] != 0:
        seat[s, F_DISC] |= ent[e, E_DISCOUNT]
        set_prices(seat, s)
    seat[s, F_SHIELDS] += ent[e, E_SHIELDS]
    p = ent[e, E_POWER]
    if p != 0:
        seat[s, F_POWERS] |= 1 << p
        if p == POW_COPY_GUILD:
            seat[s, F_COPY_GUILD] += 1
    sci = ent[e, E_SCIENCE]
    if sci >= 0:
        seat[s, F_SCI + sci] += 1


@njit(cache=True, inline="always")
def add_card(ent, seat, s, c):
    """A building enters seat s's city: add_entity, then what only buildings change (what the
    city may sell its neighbours, its card list, names and colours)."""
    add_entity(ent, seat, s, np.int64(c))
    if ent[c, E_TRADEABLE] != 0:
        _add_units(ent, seat, s, c, F_SELL, F_SELL_CH, F_NSELL_CHOICE, F_PK_SELL, F_PK_SELL_CAP)
    seat[s, F_CARDS + seat[s, F_NCARDS]] = c
    seat[s, F_NCARDS] += 1
    seat[s, F_OWNED + ent[c, E_NAME_ID]] = 1
    seat[s, F_COLORS + ent[c, E_KIND]] += 1


@njit(cache=True, _nrt=False)
def count(seat, n, s, amount, what, scope, extra_purple):
    """amount x (matching cards / stages / defeat tokens) over the scope, seen from seat s.

    extra_purple adds guild copies to seat s's own purple count (Olympia B3).
    """
    if amount == 0:
        return 0
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
        elif what == COUNT_COMPLETE:
            total += 1 if seat[x, F_STAGES] >= seat[x, F_SIDE_STAGES] else 0
        else:
            for k in range(N_COLORS):
                if what >> k & 1:
                    total += seat[x, F_COLORS + k]
            if x == s and what >> PURPLE & 1:
                total += extra_purple
    return amount * total


@njit(cache=True, inline="always")
def points_now(ent, seat, n, s, e, extra_purple):
    """Points an entity's own line gives seat s on the cities as they stand (extra_purple: as
    for count)."""
    points = ent[e, E_POINTS]
    if ent[e, E_POINTS_PER] != 0:  # most entities count nothing: no call
        points += count(seat, n, np.int64(s), ent[e, E_POINTS_PER], ent[e, E_POINTS_PER + 1],
                        ent[e, E_POINTS_PER + 2], np.int64(extra_purple))
    return points


@njit(cache=True, inline="always")
def coins_when_built(ent, seat, n, s, e):
    """Coins an entity gives when it resolves, on the cities as they stand."""
    coins = ent[e, E_COINS]
    if ent[e, E_COINS_PER] != 0:  # most entities count nothing: no call
        coins += count(seat, n, np.int64(s), ent[e, E_COINS_PER], ent[e, E_COINS_PER + 1], ent[e, E_COINS_PER + 2],
                       np.int64(0))
    return coins


@njit(cache=True, inline="always")
def purchase(ent, seat, n, s, e, opts):
    """Pareto-minimal purchases (into opts) covering entity e's resource cost for seat s; returns
    how many (0 = impossible)."""
    return trade_options_at(ent, e, seat, s, left_of(n, s), right_of(n, s), opts)
