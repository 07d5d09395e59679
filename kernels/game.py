"""Whole games on the kernel state: legal moves, the turn of RULES.md section 9, ages, military,
scoring, and the parallel batch driver.

This is the fast twin of wsim.reference.engine and follows its canonical orders exactly (legal
moves: hand slots in order, then build, build_free, stage, discard; discard builds: distinct
card ids ascending; Halicarnassus before Manneken Pis copies, then by seat), so that the random
policy draws the same numbers and plays the same game in both engines.
"""

import numpy as np
from numba import njit, prange

from wsim.codes import (COPY_CHOICE, DISCARD_COINS, HAND_SIZE, MILITARY_LOSS, N_RES, POW_COPY_STAGE,
                        POW_DISCARD_BUILD, POW_FREE_BUILD, POW_SEVENTH, TURNS_PER_AGE)
from wsim.kernels.city import (add_entity, chain_applies, coins_when_built, has_cost, left_of,
                               owns_name, purchase, right_of, set_prices, stage_source)
from wsim.kernels.deal import deal_game
from wsim.kernels.layout import (C_ACTION, C_CARD, C_COIN_COST, C_COPY3, C_COUNT, C_LEFT, C_ON, C_RIGHT,
                                 C_SLOT, F_BOARD, F_COINS, F_COUNT, F_COPY3, F_DEFEATS, F_FREE_AGE,
                                 F_HAND_N, F_MIL, F_NCARDS, F_POWERS, F_SHIELDS, F_SIDE, F_STAGES,
                                 M_ACTION, M_COIN_COST, M_COPY3, M_COUNT, M_LEFT, M_RIGHT, M_SLOT,
                                 MAX_CHOICE, MAX_CITY, MAX_MOVES, MAX_SEATS, RES_BOARD, RES_COINS,
                                 RES_COUNT, RES_NCARDS, RES_SHIELDS, RES_SIDE, RES_STAGES, S_BS,
                                 S_BUILT, S_CARDS, S_CHOICE, S_CHOSEN, S_COLORS, S_CTR, S_DEAL, S_DEALT,
                                 S_HAND, S_HAND2, S_MOVES, S_OPTS, S_OWNED, S_PILE, S_POOL, S_PROD,
                                 S_RNG, S_SCI, S_SEAT, S_SELL, S_SELL_CH, S_STAGE_E, S_WORK,
                                 T_BOARD_COINS, T_BOARD_PROMO, T_BOARD_RESOURCE, T_BOARD_STAGE_ENT,
                                 T_BOARD_STAGES, T_CARD_AGE, T_CARD_COPIES, T_ENT_COIN_COST, T_ENT_COPY,
                                 T_ENT_KIND, T_ENT_POWER, W_COUNT)
from wsim.kernels.policy import POLICY_RANDOM, P_COIN, P_STAGE, draw, entity_value
from wsim.kernels.rng import STREAM_SEAT0, stream_key
from wsim.kernels.score import rank_seats, score_seat
from wsim.movelog import (ACT_BUILD, ACT_BUILD_FREE, ACT_DISCARD, ACT_STAGE, DISCARD_BUILD, MILITARY,
                          MOVE, SEVENTH)

MILITARY_WIN_1, MILITARY_WIN_2, MILITARY_WIN_3 = 1, 3, 5
BLOCK = 64  # games per parallel work item; each item allocates its state once


@njit(cache=True)
def new_state(n_cards):
    """Allocate one game state (layout: wsim.kernels.layout)."""
    return (
        np.zeros((MAX_SEATS, F_COUNT), np.int32),       # S_SEAT
        np.zeros((MAX_SEATS, MAX_CITY), np.int16),      # S_CARDS
        np.zeros((MAX_SEATS, 4), np.int16),             # S_STAGE_E
        np.zeros((MAX_SEATS, 2), np.uint64),            # S_OWNED
        np.zeros((MAX_SEATS, 8), np.int32),             # S_COLORS
        np.zeros((MAX_SEATS, 4), np.int32),             # S_SCI
        np.zeros((MAX_SEATS, N_RES), np.int32),         # S_PROD
        np.zeros((MAX_SEATS, MAX_CHOICE), np.int32),    # S_CHOICE
        np.zeros((MAX_SEATS, N_RES), np.int32),         # S_SELL
        np.zeros((MAX_SEATS, MAX_CHOICE), np.int32),    # S_SELL_CH
        np.zeros((MAX_SEATS, HAND_SIZE), np.int16),     # S_HAND
        np.zeros(n_cards, np.int32),                    # S_PILE
        np.zeros(MAX_SEATS, np.uint64),                 # S_RNG
        np.zeros(MAX_SEATS, np.int64),                  # S_CTR
        np.zeros((3, MAX_SEATS, HAND_SIZE), np.int16),  # S_DEALT
        np.zeros((MAX_SEATS, C_COUNT), np.int32),       # S_CHOSEN
        np.zeros((MAX_MOVES, M_COUNT), np.int32),       # S_MOVES
        np.zeros((16, 2), np.int32),                    # S_OPTS
        np.zeros((W_COUNT, N_RES), np.int32),           # S_WORK
        np.zeros(HAND_SIZE * MAX_SEATS + 16, np.int16),  # S_DEAL
        np.zeros(16, np.int8),                          # S_POOL
        np.zeros((2, MAX_SEATS), np.int8),              # S_BS
        np.zeros((MAX_SEATS, HAND_SIZE), np.int16),     # S_HAND2
        np.zeros((16, 2), np.int32),                    # S_BUILT
    )


@njit(cache=True)
def reset_state(T, st, n, seed, game):
    """Start a game: boards and sides from S_BS, starting coins and resources, empty cities."""
    seat = st[S_SEAT]
    for s in range(n):
        for f in range(F_COUNT):
            seat[s, f] = 0
        b = np.int64(st[S_BS][0, s])
        seat[s, F_BOARD] = b
        seat[s, F_SIDE] = st[S_BS][1, s]
        seat[s, F_COPY3] = -1
        seat[s, F_COINS] = T[T_BOARD_COINS][b]
        st[S_OWNED][s, 0] = 0
        st[S_OWNED][s, 1] = 0
        for k in range(8):
            st[S_COLORS][s, k] = 0
        for k in range(4):
            st[S_SCI][s, k] = 0
            st[S_STAGE_E][s, k] = -1
        for r in range(N_RES):
            st[S_PROD][s, r] = 0
            st[S_SELL][s, r] = 0
        res = T[T_BOARD_RESOURCE][b]
        if res >= 0:
            st[S_PROD][s, res] += 1
            st[S_SELL][s, res] += 1
        st[S_RNG][s] = stream_key(seed, game, STREAM_SEAT0 + s)
        st[S_CTR][s] = 0
    for c in range(st[S_PILE].shape[0]):
        st[S_PILE][c] = 0


@njit(cache=True)
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


@njit(cache=True)
def _first_affordable(opts, n_opts, budget):
    """Index of the first option whose total fits the budget, -1 if none."""
    for i in range(n_opts):
        if opts[i, 0] + opts[i, 1] <= budget:
            return i
    return -1


@njit(cache=True)
def _add_move(moves, m, slot, action, left, right, coin_cost, copy3):
    row = moves[m]
    row[M_SLOT] = slot
    row[M_ACTION] = action
    row[M_LEFT] = left
    row[M_RIGHT] = right
    row[M_COIN_COST] = coin_cost
    row[M_COPY3] = copy3
    return m + 1


@njit(cache=True)
def legal_moves(T, st, n, s, age):
    """Fill S_MOVES with seat s's legal moves (default purchase each); returns how many."""
    seat = st[S_SEAT]
    moves = st[S_MOVES]
    opts = st[S_OPTS]
    hand = st[S_HAND]
    coins = seat[s, F_COINS]
    set_prices(st, s)
    can_free = (seat[s, F_POWERS] >> POW_FREE_BUILD) & 1 == 1 and seat[s, F_FREE_AGE] != age
    stage_ok = False
    stage_l = 0
    stage_r = 0
    needs3 = 0
    b = seat[s, F_BOARD]
    side = seat[s, F_SIDE]
    k = seat[s, F_STAGES]
    if k < T[T_BOARD_STAGES][b, side]:
        e = np.int64(T[T_BOARD_STAGE_ENT][b, side, k])
        if not has_cost(T, e):
            stage_ok = True
        else:
            n_opts = purchase(T, st, n, s, e, opts)
            i = _first_affordable(opts, n_opts, coins)
            if i >= 0:
                stage_ok = True
                stage_l = opts[i, 0]
                stage_r = opts[i, 1]
        if T[T_ENT_POWER][e] == POW_COPY_STAGE and T[T_ENT_COPY][e, 1] == COPY_CHOICE:
            needs3 = 1
    m = 0
    for slot in range(seat[s, F_HAND_N]):
        c = np.int64(hand[s, slot])
        if not owns_name(T, st, s, c):
            free = not has_cost(T, c) or chain_applies(T, st, s, c)
            if free:
                m = _add_move(moves, m, slot, ACT_BUILD, 0, 0, 0, 0)
            else:
                cc = np.int64(T[T_ENT_COIN_COST][c])
                if cc <= coins:
                    n_opts = purchase(T, st, n, s, c, opts)
                    i = _first_affordable(opts, n_opts, coins - cc)
                    if i >= 0:
                        m = _add_move(moves, m, slot, ACT_BUILD, opts[i, 0], opts[i, 1], cc, 0)
                if can_free:
                    m = _add_move(moves, m, slot, ACT_BUILD_FREE, 0, 0, 0, 0)
        if stage_ok:
            m = _add_move(moves, m, slot, ACT_STAGE, stage_l, stage_r, 0, needs3)
        m = _add_move(moves, m, slot, ACT_DISCARD, 0, 0, 0, 0)
    return m


@njit(cache=True)
def _move_value(T, st, n, s, i, params):
    """Greedy value of legal move i of seat s."""
    row = st[S_MOVES][i]
    action = row[M_ACTION]
    if action == ACT_DISCARD:
        return params[P_COIN] * DISCARD_COINS
    paid = row[M_COIN_COST] + row[M_LEFT] + row[M_RIGHT]
    if action == ACT_STAGE:
        seat = st[S_SEAT]
        k = seat[s, F_STAGES]
        value = params[P_STAGE]
        e, _ = stage_source(T, st, n, s, k)
        if row[M_COPY3] == 1:
            e = _best_copy3_entity(T, st, n, s, params)
        if e >= 0:
            value += entity_value(T, st, n, s, e, paid, params)
        else:
            value -= params[P_COIN] * paid
        return value
    card = np.int64(st[S_HAND][s, row[M_SLOT]])
    return entity_value(T, st, n, s, card, paid, params)


@njit(cache=True)
def _copy3_target(T, st, n, s, of):
    """The stage-3 entity a Manneken Pis A stage 3 would copy from neighbour `of` (-1 none)."""
    seat = st[S_SEAT]
    saved = seat[s, F_COPY3]
    seat[s, F_COPY3] = of
    e, _ = stage_source(T, st, n, s, 2)
    seat[s, F_COPY3] = saved
    return e


@njit(cache=True)
def _best_copy3_entity(T, st, n, s, params):
    e_left = _copy3_target(T, st, n, s, 0)
    e_right = _copy3_target(T, st, n, s, 1)
    if _copy3_value(T, st, n, s, e_right, params) > _copy3_value(T, st, n, s, e_left, params):
        return e_right
    return e_left


@njit(cache=True)
def _copy3_value(T, st, n, s, e, params):
    if e < 0:
        return -1
    return entity_value(T, st, n, s, e, 0, params)


@njit(cache=True)
def choose(T, st, n, s, n_moves, policy, params, row):
    """Seat s's policy picks one of its legal moves; writes it into the S_CHOSEN row `row`."""
    if policy == POLICY_RANDOM:
        i = draw(st, s, n_moves)
    else:
        i = 0
        best = _move_value(T, st, n, s, 0, params)
        for j in range(1, n_moves):
            v = _move_value(T, st, n, s, j, params)
            if v > best:
                best = v
                i = j
    mv = st[S_MOVES][i]
    row[C_ON] = 1
    row[C_SLOT] = mv[M_SLOT]
    row[C_CARD] = st[S_HAND][s, mv[M_SLOT]]
    row[C_ACTION] = mv[M_ACTION]
    row[C_LEFT] = mv[M_LEFT]
    row[C_RIGHT] = mv[M_RIGHT]
    row[C_COIN_COST] = mv[M_COIN_COST]
    row[C_COPY3] = -1
    if mv[M_COPY3] == 1:
        if policy == POLICY_RANDOM:
            row[C_COPY3] = draw(st, s, 2)
        else:
            left_e = _copy3_target(T, st, n, s, 0)
            right_e = _copy3_target(T, st, n, s, 1)
            better = _copy3_value(T, st, n, s, right_e, params) > _copy3_value(T, st, n, s, left_e, params)
            row[C_COPY3] = 1 if better else 0


@njit(cache=True)
def resolve(T, st, n, age, n_built):
    """Steps 2-4 for the seats with C_ON set: pay, place, then immediate coins.

    Appends the stages built to S_BUILT after n_built entries; returns the new count.
    """
    seat = st[S_SEAT]
    chosen = st[S_CHOSEN]
    hand = st[S_HAND]
    for s in range(n):  # step 2: payments
        if chosen[s, C_ON] == 0:
            continue
        left = chosen[s, C_LEFT]
        right = chosen[s, C_RIGHT]
        seat[s, F_COINS] -= chosen[s, C_COIN_COST] + left + right
        seat[left_of(n, s), F_COINS] += left
        seat[right_of(n, s), F_COINS] += right
    for s in range(n):  # step 3: cards enter cities / the discard pile
        if chosen[s, C_ON] == 0:
            continue
        slot = chosen[s, C_SLOT]
        card = np.int64(chosen[s, C_CARD])
        hn = seat[s, F_HAND_N]
        for j in range(slot, hn - 1):
            hand[s, j] = hand[s, j + 1]
        seat[s, F_HAND_N] = hn - 1
        action = chosen[s, C_ACTION]
        if action == ACT_BUILD or action == ACT_BUILD_FREE:
            add_entity(T, st, s, card, True)
            if action == ACT_BUILD_FREE:
                seat[s, F_FREE_AGE] = age
        elif action == ACT_STAGE:
            k = seat[s, F_STAGES]
            st[S_BUILT][n_built, 0] = s
            st[S_BUILT][n_built, 1] = k
            n_built += 1
            if chosen[s, C_COPY3] >= 0:
                seat[s, F_COPY3] = chosen[s, C_COPY3]
            seat[s, F_STAGES] = k + 1
            e, _ = stage_source(T, st, n, s, k)
            st[S_STAGE_E][s, k] = e
            if e >= 0:
                add_entity(T, st, s, e, False)
        else:
            st[S_PILE][card] += 1
    for s in range(n):  # step 4: immediate coins, on the cities as they stand
        if chosen[s, C_ON] == 0:
            continue
        action = chosen[s, C_ACTION]
        if action == ACT_DISCARD:
            seat[s, F_COINS] += DISCARD_COINS
        elif action == ACT_STAGE:
            e = st[S_STAGE_E][s, seat[s, F_STAGES] - 1]
            if e >= 0:
                seat[s, F_COINS] += coins_when_built(T, st, n, s, e)
        else:
            seat[s, F_COINS] += coins_when_built(T, st, n, s, chosen[s, C_CARD])
    return n_built


@njit(cache=True)
def _log_chosen(st, s, kind, age, turn, log, g, n_log):
    row = st[S_CHOSEN][s]
    log_event(log, g, n_log, kind, age, turn, s, row[C_CARD], row[C_ACTION], row[C_LEFT], row[C_RIGHT],
              row[C_COPY3])


@njit(cache=True)
def _discard_build(T, st, n, s, policy, params, age, turn, log, g, n_log):
    """One discard build for seat s: a legal card of the pile (distinct ids ascending) or none."""
    pile = st[S_PILE]
    n_options = 0
    for c in range(pile.shape[0]):
        if pile[c] > 0 and not owns_name(T, st, s, c):
            n_options += 1
    pick = -1
    if n_options > 0:
        if policy == POLICY_RANDOM:
            j = draw(st, s, n_options)
            for c in range(pile.shape[0]):
                if pile[c] > 0 and not owns_name(T, st, s, c):
                    if j == 0:
                        pick = c
                        break
                    j -= 1
        else:
            best = 0
            for c in range(pile.shape[0]):
                if pile[c] > 0 and not owns_name(T, st, s, c):
                    v = entity_value(T, st, n, s, c, 0, params)
                    if pick < 0 or v > best:
                        best = v
                        pick = c
    log_event(log, g, n_log, DISCARD_BUILD, age, turn, s, pick, 0, 0, 0, -1)
    if pick >= 0:
        pile[pick] -= 1
        add_entity(T, st, s, pick, True)
        st[S_SEAT][s, F_COINS] += coins_when_built(T, st, n, s, pick)


@njit(cache=True)
def play_turn(T, st, n, age, turn, policies, params, log, g, n_log):
    """One turn, RULES.md section 9 steps 1-7."""
    seat = st[S_SEAT]
    chosen = st[S_CHOSEN]
    for s in range(n):  # step 1: every choice against the state at the start of the turn
        n_moves = legal_moves(T, st, n, s, age)
        choose(T, st, n, s, n_moves, policies[s], params[s], chosen[s])
        _log_chosen(st, s, MOVE, age, turn, log, g, n_log)
    n_built = resolve(T, st, n, age, 0)
    if turn == TURNS_PER_AGE:
        for s in range(n):  # step 5: 7th cards on the state after step 4
            chosen[s, C_ON] = 0
            if seat[s, F_HAND_N] > 0 and (seat[s, F_POWERS] >> POW_SEVENTH) & 1 == 1:
                n_moves = legal_moves(T, st, n, s, age)
                choose(T, st, n, s, n_moves, policies[s], params[s], chosen[s])
                _log_chosen(st, s, SEVENTH, age, turn, log, g, n_log)
        n_built = resolve(T, st, n, age, n_built)
        for s in range(n):  # leftovers and unplayed 7th cards: face down, no coins
            for j in range(seat[s, F_HAND_N]):
                st[S_PILE][st[S_HAND][s, j]] += 1
            seat[s, F_HAND_N] = 0
    for prio in range(2):  # step 6: Halicarnassus (0) before Manneken Pis copies (1), by seat
        for s in range(n):
            for i in range(n_built):
                if st[S_BUILT][i, 0] != s:
                    continue
                e, copied = stage_source(T, st, n, s, st[S_BUILT][i, 1])
                if e < 0 or T[T_ENT_POWER][e] != POW_DISCARD_BUILD or np.int64(copied) != prio:
                    continue
                _discard_build(T, st, n, s, policies[s], params[s], age, turn, log, g, n_log)
    if turn < TURNS_PER_AGE:  # step 7: pass hands (Age II to the right, else to the left)
        hand = st[S_HAND]
        tmp = st[S_HAND2]
        hn = seat[0, F_HAND_N]
        for s in range(n):
            src = left_of(n, s) if age == 2 else right_of(n, s)
            for j in range(hn):
                tmp[s, j] = hand[src, j]
        for s in range(n):
            for j in range(hn):
                hand[s, j] = tmp[s, j]


@njit(cache=True)
def military(st, n, age, turn, log, g, n_log):
    """End of an age: every seat against each neighbour (RULES.md section 5)."""
    seat = st[S_SEAT]
    win = MILITARY_WIN_1 if age == 1 else (MILITARY_WIN_2 if age == 2 else MILITARY_WIN_3)
    for s in range(n):
        mine = seat[s, F_SHIELDS]
        vs_left = 0
        vs_right = 0
        for j in range(2):
            nb = left_of(n, s) if j == 0 else right_of(n, s)
            other = seat[nb, F_SHIELDS]
            result = 0
            if mine > other:
                result = win
            elif mine < other:
                result = MILITARY_LOSS
            if j == 0:
                vs_left = result
            else:
                vs_right = result
        log_event(log, g, n_log, MILITARY, age, turn, s, mine, 0, vs_left, vs_right, -1)
    # tokens after every seat's result is known (shields do not change in between anyway)
    for s in range(n):
        mine = seat[s, F_SHIELDS]
        for j in range(2):
            nb = left_of(n, s) if j == 0 else right_of(n, s)
            other = seat[nb, F_SHIELDS]
            if mine > other:
                seat[s, F_MIL] += win
            elif mine < other:
                seat[s, F_MIL] += MILITARY_LOSS
                seat[s, F_DEFEATS] += 1


@njit(cache=True)
def play_game(T, st, n, seed, game, board_spec, side_spec, promo, policies, params,
              res, res_cards, log, g, n_log):
    """Deal and play one whole game; writes res[n, RES_COUNT], res_cards[n, MAX_CITY] and the log."""
    deal_game(T[T_CARD_AGE], T[T_CARD_COPIES], T[T_ENT_KIND], T[T_BOARD_PROMO], n, seed, game,
              board_spec, side_spec, promo, st[S_BS][0], st[S_BS][1], st[S_DEALT], st[S_DEAL], st[S_POOL])
    reset_state(T, st, n, seed, game)
    seat = st[S_SEAT]
    if log.shape[0] > 0:
        n_log[g] = 0
    for age in range(1, 4):
        for s in range(n):
            for j in range(HAND_SIZE):
                st[S_HAND][s, j] = st[S_DEALT][age - 1, s, j]
            seat[s, F_HAND_N] = HAND_SIZE
        for turn in range(1, TURNS_PER_AGE + 1):
            play_turn(T, st, n, age, turn, policies, params, log, g, n_log)
        military(st, n, age, TURNS_PER_AGE, log, g, n_log)
    for s in range(n):
        score_seat(T, st, n, s, res[s], res_cards[s])
        res[s, RES_BOARD] = seat[s, F_BOARD]
        res[s, RES_SIDE] = seat[s, F_SIDE]
        res[s, RES_COINS] = seat[s, F_COINS]
        res[s, RES_SHIELDS] = seat[s, F_SHIELDS]
        res[s, RES_STAGES] = seat[s, F_STAGES]
        res[s, RES_NCARDS] = seat[s, F_NCARDS]
    rank_seats(res, n)
    for s in range(n):
        for i in range(seat[s, F_NCARDS]):
            res_cards[s, i] = st[S_CARDS][s, i]


@njit(cache=True, parallel=True)
def run_batch(T, n, seed, first_game, board_spec, side_spec, promo, policies, params,
              res, res_cards, log, n_log):
    """Play games first_game .. first_game + len(res) - 1, in parallel blocks of BLOCK games.

    res[i] / res_cards[i] receive game first_game + i; log[i] / n_log[i] its events when
    logging (log with zero rows turns logging off). Each game depends only on its (seed, game),
    so results are identical whatever the thread count or the chunking.
    """
    n_games = res.shape[0]
    n_blocks = (n_games + BLOCK - 1) // BLOCK
    for b in prange(n_blocks):
        st = new_state(T[T_CARD_AGE].shape[0])
        stop = min(n_games, (b + 1) * BLOCK)
        for i in range(b * BLOCK, stop):
            play_game(T, st, n, seed, first_game + i, board_spec, side_spec, promo, policies, params,
                      res[i], res_cards[i], log, i, n_log)
