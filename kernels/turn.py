"""The mechanics of a turn on the kernel state: setup, legal moves, resolution (docs/rules.md §9
steps 2-4), military, the move log. kernels/step.py strings them into a game's decision points.

This is the fast twin of wsim.reference.engine and follows its canonical orders exactly (legal
moves: hand slots in order, then build, build_free, stage, discard; discard builds: distinct
buildings once each, card ids ascending; Halicarnassus before Manneken Pis copies, then by seat), so that the random
policy draws the same numbers and plays the same game in both engines.
"""

import numpy as np
from numba import njit

from wsim.codes import (ACT_BUILD, ACT_BUILD_FREE, ACT_DISCARD, ACT_STAGE, COPY_CHOICE, DISCARD_COINS, MILITARY,
                        MILITARY_LOSS, MILITARY_WIN, POW_COPY_STAGE, POW_FREE_BUILD, TURNS_PER_AGE)
from wsim.kernels import price
from wsim.kernels.city import (add_card, add_entity, chain_applies, coins_when_built, free_powers, left_of,
                               owns_name, power_makes_free, right_of, set_prices, stage_entity, stage_source)
from wsim.kernels.layout import (B_COINS, B_RESOURCE, B_STAGES, C_ACTION, C_CARD, C_COIN_COST, C_COPY3, C_LEFT, C_ON,
                                 C_RIGHT, C_SLOT, E_COIN_COST, E_COPY_OF, E_HAS_COST, E_POWER, F_BOARD, F_CHAINED, F_CHOSEN,
                                 F_COINS, F_COINS_PAID, F_COINS_RECEIVED, F_COPY3, F_COUNT, F_DEFEATS, F_DISCARDS,
                                 F_FREE_AGE, F_HAND, F_HAND_N, F_MIL, F_PK_PROD,
                                 F_PK_SELL, F_PK_SELL_CAP, F_POWERS, F_PROD, F_SELL, F_SHIELDS, F_SIDE, F_STAGES,
                                 F_SIDE_STAGES, F_STAGE_E, G_AGE, G_BUILT, G_FC, G_N, G_NBUILT, G_PHASE, G_TURN,
                                 PH_MOVE)
from wsim.kernels.rng import STREAM_SEAT0, stream_key
from wsim.kernels.schema import MAX_STAGES
from wsim.kernels.trade import add_packed

WIN_AGE1, WIN_AGE2, WIN_AGE3 = MILITARY_WIN


@njit(cache=True, inline="always")
def start_city(board, seat, s, b, side):
    """Seat s's row as a game starts it on board b, side `side`: the board's coins and resource,
    the prices it gives, nothing built. A start-of-game field is set here once, for the game's
    start and for the Free City's re-deal, which rebuilds past cities from it
    (kernels/hidden_fc.rebuild_at). Inlined: each caller keeps its own types."""
    for f in range(F_COUNT):
        seat[s, f] = 0
    seat[s, F_BOARD] = b
    seat[s, F_SIDE] = side
    seat[s, F_COPY3] = -1
    seat[s, F_SIDE_STAGES] = board[b, B_STAGES + side]
    seat[s, F_COINS] = board[b, B_COINS]
    for k in range(MAX_STAGES):
        seat[s, F_STAGE_E + k] = -1
    res = board[b, B_RESOURCE]
    if res >= 0:
        seat[s, F_PROD + res] += 1
        seat[s, F_SELL + res] += 1
        unit = np.int64(1) << (8 * res)  # the packed copies (kernels/trade.py)
        add_packed(seat, s, F_PK_PROD, unit)
        add_packed(seat, s, F_PK_SELL, unit)
        add_packed(seat, s, F_PK_SELL_CAP, unit)
    set_prices(seat, s)


@njit(cache=True, _nrt=False)
def reset_state(board, seat, keys, pile, bs, n, seed, game):
    """Start a game: boards and sides from bs, starting coins, resources and prices."""
    for s in range(n):
        start_city(board, seat, s, bs[0, s], bs[1, s])
        keys[s] = stream_key(seed, game, STREAM_SEAT0 + s)
    for c in range(pile.shape[0]):
        pile[c] = 0


@njit(cache=True, inline="always")
def log_event(log, kind, age, turn, s, card, action, left, right, extra):
    """Append one event to game log.game's rows of the move log (schema.LOG; logging is off when
    it has no rows)."""
    if log.rows.shape[0] == 0:
        return
    i = log.count[log.game]
    row = log.rows[log.game, i]
    row[0] = kind
    row[1] = age
    row[2] = turn
    row[3] = s
    row[4] = card
    row[5] = action
    row[6] = left
    row[7] = right
    row[8] = extra
    log.count[log.game] = i + 1


@njit(cache=True, _nrt=False)
def legal_moves(ent, board, seat, gs, sc, s, holder, skip, free_city, listing, clock):
    """Fill sc.moves with seat s's legal (card, action, purchase) moves; returns how many.

    The rules of a turn move (docs/rules.md §3, §4, §10): the cards are those of seat holder's
    hand but slot `skip` (-1: none): a seat plays from its own hand; the Free City (free_city
    True) from its controller's, less the card the controller plays itself, and it must build a
    card a chain makes free and may discard a card only when it can neither build it nor build
    its next stage. A card the city owns by name cannot be built; one with no cost or made free
    by a chain or a second-edition power (city.free_powers) is built for nothing; another is
    built when its coins and a purchase of its resources are affordable; Olympia A's free build takes any card not free anyway, once an age;
    the next stage is built with any card when affordable; any card may be discarded.
    Which purchases a pair lists, in which order, is kernels/price.py's (the decider's `listing`;
    `clock`: the profile twin's timing array, None in production). Rows in canonical order: hand slots in order, and in a
    slot build, build_free, stage, discard.
    """
    n = gs[G_N]
    age = gs[G_AGE]
    moves, opts = sc.moves, sc.opts
    listing = price.for_city(listing, free_city)
    coins = seat[s, F_COINS]
    can_free = (seat[s, F_POWERS] >> POW_FREE_BUILD) & 1 == 1 and seat[s, F_FREE_AGE] != age
    free_bits = free_powers(seat, s, gs[G_TURN], gs[G_PHASE] == PH_MOVE)  # a 7th card is no turn's card
    needs3 = 0
    stage_free = False
    n_stage = 0
    stage_unpriced = False
    e = stage_entity(board, seat[s, F_BOARD], seat[s, F_SIDE], seat[s, F_STAGES])
    if e >= 0:
        if ent[e, E_HAS_COST] == 0:
            stage_free = True
        else:
            n_stage, stage_unpriced = price.price_stage(ent, seat, n, s, e, opts, listing, clock)
        if ent[e, E_POWER] == POW_COPY_STAGE and ent[e, E_COPY_OF] == COPY_CHOICE:
            needs3 = 1
    m = 0
    for slot in range(seat[holder, F_HAND_N]):
        if slot == skip:
            continue
        c = seat[holder, F_HAND + slot]
        first = m
        if not owns_name(ent, seat, s, c):
            chain = chain_applies(ent, seat, s, c)
            by_power = free_bits != 0 and power_makes_free(ent, seat, s, c, free_bits)
            if ent[c, E_HAS_COST] == 0 or chain or by_power:
                m = price.add_row(moves, m, slot, c, ACT_BUILD, 0, 0, 0, 0, 1)
                if free_city and chain:  # the Free City must take a chain's free build
                    continue
            else:
                if ent[c, E_COIN_COST] <= coins:
                    m = price.add_paid_build(ent, seat, n, s, slot, c, moves, m, opts, listing, clock)
                if can_free:  # Olympia A: only for a card that is not free anyway
                    m = price.add_row(moves, m, slot, c, ACT_BUILD_FREE, 0, 0, 0, 0, 1)
        m = price.add_stage(moves, m, slot, c, stage_free, stage_unpriced, n_stage, needs3, opts, coins, listing)
        if not free_city or m == first:
            m = price.add_discard(moves, m, slot, c, listing)
    return price.add_templates(moves, m, stage_free, n_stage, needs3, opts, coins, listing)


@njit(cache=True, inline="always")
def controller_at(age, turn):
    """The seat holding the Free City card on `turn` of `age` (codes.fc_controller): seat 0 on
    turn 1 of Ages I and III, seat 1 on turn 1 of Age II, then alternating every turn."""
    return (turn - 1 + (1 if age == 2 else 0)) % 2


@njit(cache=True, inline="always")
def fc_controller(gs):
    """The seat holding the Free City card this turn."""
    return controller_at(gs[G_AGE], gs[G_TURN])


@njit(cache=True, _nrt=False)
def resolve(ent, board, seat, pile, gs, n, age):
    """Steps 2-4 for the seats whose choice is on (C_ON 1): pay, place, then immediate coins.

    Appends the stages built to the game header's G_BUILT list (for step 6), and counts each
    seat's behaviour (F_COINS_PAID / F_COINS_RECEIVED: the purchase's coins to and from the
    neighbours; F_CHAINED: an ACT_BUILD of a card with a cost while the city owns one of its
    chain sources, i.e. built free through the chain; F_DISCARDS: an ACT_DISCARD, a move's or
    a 7th card's). The counters are read by no policy.
    """
    for s in range(n):  # step 2: payments
        if seat[s, F_CHOSEN + C_ON] != 1:
            continue
        left = seat[s, F_CHOSEN + C_LEFT]
        right = seat[s, F_CHOSEN + C_RIGHT]
        seat[s, F_COINS] -= seat[s, F_CHOSEN + C_COIN_COST] + left + right
        seat[left_of(n, s), F_COINS] += left
        seat[right_of(n, s), F_COINS] += right
        seat[s, F_COINS_PAID] += left + right
        seat[left_of(n, s), F_COINS_RECEIVED] += left
        seat[right_of(n, s), F_COINS_RECEIVED] += right
    fc = gs[G_FC]
    for s in range(n):  # step 3: cards enter cities / the discard pile
        if seat[s, F_CHOSEN + C_ON] != 1:
            continue
        card = seat[s, F_CHOSEN + C_CARD]
        holder = s
        slot = seat[s, F_CHOSEN + C_SLOT]
        if s == fc:  # from the controller's hand, which has already given up its own card
            holder = fc_controller(gs)
            if slot > seat[holder, F_CHOSEN + C_SLOT]:
                slot -= 1
        hn = seat[holder, F_HAND_N]
        for j in range(slot, hn - 1):
            seat[holder, F_HAND + j] = seat[holder, F_HAND + j + 1]
        seat[holder, F_HAND_N] = hn - 1
        action = seat[s, F_CHOSEN + C_ACTION]
        if action == ACT_BUILD or action == ACT_BUILD_FREE:
            if action == ACT_BUILD and ent[card, E_HAS_COST] != 0 and chain_applies(ent, seat, s, card):
                seat[s, F_CHAINED] += 1  # before add_card: the chain sources owned when it was chosen
            add_card(ent, seat, s, card)
            if action == ACT_BUILD_FREE:
                seat[s, F_FREE_AGE] = age
        elif action == ACT_STAGE:
            k = seat[s, F_STAGES]
            gs[G_BUILT + 2 * gs[G_NBUILT]] = s
            gs[G_BUILT + 2 * gs[G_NBUILT] + 1] = k
            gs[G_NBUILT] += 1
            if seat[s, F_CHOSEN + C_COPY3] >= 0:
                seat[s, F_COPY3] = seat[s, F_CHOSEN + C_COPY3]
            seat[s, F_STAGES] = k + 1
            e, _ = stage_source(ent, board, seat, n, s, k)
            seat[s, F_STAGE_E + k] = e
            if e >= 0:
                add_entity(ent, seat, s, e)
        else:
            pile[card] += 1
    for s in range(n):  # step 4: immediate coins, on the cities as they stand
        if seat[s, F_CHOSEN + C_ON] != 1:
            continue
        action = seat[s, F_CHOSEN + C_ACTION]
        if action == ACT_DISCARD:
            seat[s, F_COINS] += DISCARD_COINS
            seat[s, F_DISCARDS] += 1
        elif action == ACT_STAGE:
            e = seat[s, F_STAGE_E + seat[s, F_STAGES] - 1]
            if e >= 0:
                seat[s, F_COINS] += coins_when_built(ent, seat, n, s, e)
        else:
            seat[s, F_COINS] += coins_when_built(ent, seat, n, s, seat[s, F_CHOSEN + C_CARD])


@njit(cache=True, _nrt=False)
def military(seat, n, age, log):
    """End of an age: every seat against each neighbour (docs/rules.md §5)."""
    win = WIN_AGE1 if age == 1 else (WIN_AGE2 if age == 2 else WIN_AGE3)
    for s in range(n):  # every result first: tokens never change shields
        mine = seat[s, F_SHIELDS]
        vs_left = 0
        vs_right = 0
        for j in range(2):
            other = seat[left_of(n, s) if j == 0 else right_of(n, s), F_SHIELDS]
            r = win if mine > other else (MILITARY_LOSS if mine < other else 0)
            if j == 0:
                vs_left = r
            else:
                vs_right = r
            seat[s, F_MIL] += r
            if r < 0:
                seat[s, F_DEFEATS] += 1
        log_event(log, MILITARY, age, TURNS_PER_AGE, s, mine, 0, vs_left, vs_right, -1)
