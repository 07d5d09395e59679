"""The mechanics of a turn on the kernel state: setup, legal moves, resolution (docs/rules.md §9
steps 2-4), military, the move log. kernels/step.py strings them into a game's decision points.

This is the fast twin of wsim.reference.engine and follows its canonical orders exactly (legal
moves: hand slots in order, then build, build_free, stage, discard; discard builds: distinct
buildings once each, card ids ascending; Halicarnassus before Manneken Pis copies, then by seat), so that the random
policy draws the same numbers and plays the same game in both engines.
"""

import numpy as np
from numba import njit

from wsim.codes import (ACT_BUILD, ACT_BUILD_FREE, ACT_DISCARD, ACT_STAGE, MILITARY, COPY_CHOICE, DISCARD_COINS, MILITARY_LOSS, MILITARY_WIN, POW_COPY_STAGE,
                        POW_FREE_BUILD, TURNS_PER_AGE)
from wsim.kernels.city import (add_card, add_entity, chain_applies, coins_when_built, left_of, owns_name, purchase,
                               right_of, set_prices, stage_entity, stage_source)
from wsim.kernels.layout import (B_COINS, B_RESOURCE, C_ACTION, C_CARD, C_COIN_COST, C_COPY3, C_LEFT, C_ON, C_RIGHT,
                                 C_SLOT, EVERY_CARD, E_COIN_COST, E_COPY_OF, E_HAS_COST, E_POWER, F_BOARD, F_CHOSEN,
                                 F_COINS, F_COPY3, F_COUNT, F_DEFEATS, F_FREE_AGE, F_HAND, F_HAND_N, F_MIL,
                                 F_PK_PROD, F_PK_SELL, F_PK_SELL_CAP, F_POWERS, F_PROD, F_SELL, F_SHIELDS, F_SIDE,
                                 F_STAGES, F_STAGE_E, G_AGE, G_BUILT, G_FC, G_NBUILT, G_TURN, LIST_COMPACT,
                                 LIST_LAZY, M_ACTION, M_CARD, M_COIN_COST, M_COPY3, M_DEFAULT, M_LEFT, M_RIGHT,
                                 M_SLOT, UNPRICED)
from wsim.kernels.rng import STREAM_SEAT0, stream_key
from wsim.kernels.trade import add_packed, surely_affordable
from wsim.kernels.schema import MAX_OPTIONS, MAX_STAGES

WIN_AGE1, WIN_AGE2, WIN_AGE3 = MILITARY_WIN


@njit(cache=True, _nrt=False)
def reset_state(board, seat, keys, pile, bs, n, seed, game):
    """Start a game: boards and sides from bs, starting coins, resources and prices."""
    for s in range(n):
        for f in range(F_COUNT):
            seat[s, f] = 0
        b = bs[0, s]
        seat[s, F_BOARD] = b
        seat[s, F_SIDE] = bs[1, s]
        seat[s, F_COPY3] = -1
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
        keys[s] = stream_key(seed, game, STREAM_SEAT0 + s)
    for c in range(pile.shape[0]):
        pile[c] = 0


@njit(cache=True, inline="always")
def log_event(log, g, n_log, kind, age, turn, s, card, action, left, right, extra):
    """Append one event to game g's log (logging is off when log has no rows)."""
    if log.shape[0] == 0:
        return
    i = n_log[g]
    row = log[g, i]
    row[0] = kind
    row[1] = age
    row[2] = turn
    row[3] = s
    row[4] = card
    row[5] = action
    row[6] = left
    row[7] = right
    row[8] = extra
    n_log[g] = i + 1


@njit(cache=True, inline="always")
def _add_move(moves, m, slot, card, action, left, right, coin_cost, copy3, default):
    moves[m, M_SLOT] = slot
    moves[m, M_CARD] = card
    moves[m, M_ACTION] = action
    moves[m, M_LEFT] = left
    moves[m, M_RIGHT] = right
    moves[m, M_COIN_COST] = coin_cost
    moves[m, M_COPY3] = copy3
    moves[m, M_DEFAULT] = default
    return m + 1


@njit(cache=True, inline="always")
def _preferred(opts, at, n_opts, budget, w_left, w_right):
    """Index in opts[at:at + n_opts] of the affordable purchase of least w_left * left + w_right *
    right coins (the first such), or -1 when none is affordable. The solver sorts options by total
    coins, then left coins, so the affordable ones come first, and weights 1, 1 keep the first:
    the default purchase."""
    best = -1
    best_cost = 0
    for i in range(at, at + n_opts):
        if opts[i, 0] + opts[i, 1] > budget:
            break
        cost = w_left * opts[i, 0] + w_right * opts[i, 1]
        if best < 0 or cost < best_cost:
            best = i
            best_cost = cost
        if w_left == w_right and w_left >= 0:  # the totals only grow: the first is the least
            break
    return best


@njit(cache=True, inline="always")
def _add_purchases(moves, m, slot, card, action, opts, at, n_opts, budget, coin_cost, copy3, all_purchases, w_left,
                   w_right):
    """The affordable purchases in opts[at:at + n_opts] as moves: every one with all_purchases
    (the first flagged M_DEFAULT), else only the one `_preferred` picks."""
    if all_purchases:
        for i in range(at, at + n_opts):
            if opts[i, 0] + opts[i, 1] > budget:
                break
            m = _add_move(moves, m, slot, card, action, opts[i, 0], opts[i, 1], coin_cost, copy3, 1 if i == at else 0)
        return m
    best = _preferred(opts, at, n_opts, budget, w_left, w_right)
    if best >= 0:
        m = _add_move(moves, m, slot, card, action, opts[best, 0], opts[best, 1], coin_cost, copy3, 1)
    return m


@njit(cache=True, _nrt=False)
def legal_moves(ent, board, seat, n, s, age, moves, opts, all_purchases, w_left, w_right, holder, skip, free_city,
                listing):
    """Fill moves with seat s's legal (card, action, purchase) moves; returns how many.

    The cards are those of seat holder's hand but slot `skip` (-1: none): a seat plays from its
    own hand; the Free City (free_city True, docs/rules.md §10) from its controller's, less the card
    the controller plays itself, and it must build a card a chain makes free and may discard a
    card only when it can neither build it nor build its next stage.
    Each (card, action) pair has exactly one move flagged M_DEFAULT, its first: with
    all_purchases, its default purchase followed by every other affordable Pareto purchase;
    without, only the purchase that the weights (w_left, w_right) prefer (_add_purchases; 1, 1:
    the default purchase). `listing` (layout.LIST_*): LIST_LAZY (the random policy, which needs
    only the pairs and the drawn pair's default purchase) lists a pair that
    trade.surely_affordable says can be paid with M_LEFT = M_RIGHT = UNPRICED instead of asking
    the solver (`price_chosen` prices it once chosen); LIST_COMPACT (the heuristic, which values
    a stage or a discard the same whatever the card, but for its denial) lists, but for the Free
    City, the build rows, then the stage's row(s) and a discard row once each as templates for
    every card of the hand (M_SLOT = M_CARD = EVERY_CARD): the pair of a card and a template is
    legal exactly when the template is listed.
    """
    lazy = listing == LIST_LAZY
    compact = listing == LIST_COMPACT and not free_city
    coins = seat[s, F_COINS]
    can_free = (seat[s, F_POWERS] >> POW_FREE_BUILD) & 1 == 1 and seat[s, F_FREE_AGE] != age
    needs3 = 0
    stage_free = False
    n_stage = 0  # the next stage's purchase options (in the upper half of opts)
    stage_unpriced = False
    e = stage_entity(board, seat[s, F_BOARD], seat[s, F_SIDE], seat[s, F_STAGES])
    if e >= 0:
        if ent[e, E_HAS_COST] == 0:
            stage_free = True
        elif lazy and surely_affordable(ent, e, seat, s, left_of(n, s), right_of(n, s), coins):
            stage_unpriced = True
        else:
            n_stage = purchase(ent, seat, n, s, e, opts)
        if ent[e, E_POWER] == POW_COPY_STAGE and ent[e, E_COPY_OF] == COPY_CHOICE:
            needs3 = 1
    # the stage's options are kept in the upper half of opts while cards use the lower half;
    # with one purchase per pair, only the preferred one (the same for every card)
    if n_stage > 0 and not all_purchases:
        best = _preferred(opts, 0, n_stage, coins, w_left, w_right)
        n_stage = 1 if best >= 0 else 0
        if best > 0:
            opts[0, 0] = opts[best, 0]
            opts[0, 1] = opts[best, 1]
    for i in range(n_stage):
        opts[MAX_OPTIONS + i, 0] = opts[i, 0]
        opts[MAX_OPTIONS + i, 1] = opts[i, 1]
    m = 0
    for slot in range(seat[holder, F_HAND_N]):
        if slot == skip:
            continue
        c = seat[holder, F_HAND + slot]
        first = m
        if not owns_name(ent, seat, s, c):
            chain = chain_applies(ent, seat, s, c)
            if ent[c, E_HAS_COST] == 0 or chain:
                m = _add_move(moves, m, slot, c, ACT_BUILD, 0, 0, 0, 0, 1)
                if free_city and chain:  # the Free City must take a chain's free build
                    continue
            else:
                cc = ent[c, E_COIN_COST]
                if cc <= coins:
                    if lazy and surely_affordable(ent, c, seat, s, left_of(n, s), right_of(n, s), coins - cc):
                        m = _add_move(moves, m, slot, c, ACT_BUILD, UNPRICED, UNPRICED, cc, 0, 1)
                    else:
                        n_opts = purchase(ent, seat, n, s, c, opts)
                        m = _add_purchases(moves, m, slot, c, ACT_BUILD, opts, 0, n_opts, coins - cc, cc, 0,
                                           all_purchases, w_left, w_right)
                if can_free:  # Olympia A: only for a card that is not free anyway
                    m = _add_move(moves, m, slot, c, ACT_BUILD_FREE, 0, 0, 0, 0, 1)
        if compact:
            continue
        if stage_free:
            m = _add_move(moves, m, slot, c, ACT_STAGE, 0, 0, 0, needs3, 1)
        elif stage_unpriced:
            m = _add_move(moves, m, slot, c, ACT_STAGE, UNPRICED, UNPRICED, 0, needs3, 1)
        elif n_stage > 0:
            m = _add_purchases(moves, m, slot, c, ACT_STAGE, opts, MAX_OPTIONS, n_stage, coins, 0, needs3,
                               all_purchases, w_left, w_right)
        if not free_city or m == first:
            m = _add_move(moves, m, slot, c, ACT_DISCARD, 0, 0, 0, 0, 1)
    if compact:
        if stage_free:
            m = _add_move(moves, m, EVERY_CARD, EVERY_CARD, ACT_STAGE, 0, 0, 0, needs3, 1)
        elif n_stage > 0:
            m = _add_purchases(moves, m, EVERY_CARD, EVERY_CARD, ACT_STAGE, opts, MAX_OPTIONS, n_stage, coins, 0,
                               needs3, all_purchases, w_left, w_right)
        m = _add_move(moves, m, EVERY_CARD, EVERY_CARD, ACT_DISCARD, 0, 0, 0, 0, 1)
    return m


@njit(cache=True, inline="always")
def price_chosen(ent, board, seat, n, s, moves, j, opts):
    """Give row j, listed UNPRICED by legal_moves' LIST_LAZY, its default purchase: the solver's
    first option (the least coins in all, then the least to the left), affordable by the test
    that left it unpriced."""
    if moves[j, M_ACTION] == ACT_STAGE:
        e = stage_entity(board, seat[s, F_BOARD], seat[s, F_SIDE], seat[s, F_STAGES])
    else:
        e = moves[j, M_CARD]
    purchase(ent, seat, n, s, np.int64(e), opts)
    moves[j, M_LEFT] = opts[0, 0]
    moves[j, M_RIGHT] = opts[0, 1]


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

    Appends the stages built to the game header's G_BUILT list (for step 6).
    """
    for s in range(n):  # step 2: payments
        if seat[s, F_CHOSEN + C_ON] != 1:
            continue
        left = seat[s, F_CHOSEN + C_LEFT]
        right = seat[s, F_CHOSEN + C_RIGHT]
        seat[s, F_COINS] -= seat[s, F_CHOSEN + C_COIN_COST] + left + right
        seat[left_of(n, s), F_COINS] += left
        seat[right_of(n, s), F_COINS] += right
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
        elif action == ACT_STAGE:
            e = seat[s, F_STAGE_E + seat[s, F_STAGES] - 1]
            if e >= 0:
                seat[s, F_COINS] += coins_when_built(ent, seat, n, s, e)
        else:
            seat[s, F_COINS] += coins_when_built(ent, seat, n, s, seat[s, F_CHOSEN + C_CARD])


@njit(cache=True, _nrt=False)
def military(seat, n, age, log, g, n_log):
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
        log_event(log, g, n_log, MILITARY, age, TURNS_PER_AGE, s, mine, 0, vs_left, vs_right, -1)
