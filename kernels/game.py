"""Whole games on the kernel state: legal moves, the turn of RULES.md section 9, ages, military,
scoring, and the parallel batch driver.

This is the fast twin of wsim.reference.engine and follows its canonical orders exactly (legal
moves: hand slots in order, then build, build_free, stage, discard; discard builds: distinct
card ids ascending; Halicarnassus before Manneken Pis copies, then by seat), so that the random
policy draws the same numbers and plays the same game in both engines.
"""

import numpy as np
from numba import njit, prange

from wsim.codes import (COPY_CHOICE, COPY_LEFT, COPY_RIGHT, DISCARD_COINS, HAND_SIZE, MILITARY_LOSS,
                        MILITARY_WIN, POW_COPY_STAGE, POW_DISCARD_BUILD, POW_FREE_BUILD,
                        POW_SEVENTH, TURNS_PER_AGE)
from wsim.kernels.city import (add_entity, chain_applies, coins_when_built, left_of, owns_name, purchase,
                               right_of, set_prices, stage_entity, stage_source)
from wsim.kernels.deal import deal_game
from wsim.kernels.layout import (B_COINS, B_RESOURCE, C_ACTION, C_CARD, C_COIN_COST, C_COPY3,
                                 C_LEFT, C_ON, C_RIGHT, C_SLOT, E_COIN_COST, E_COPY_OF, E_HAS_COST,
                                 E_POWER, F_BOARD, F_CARDS, F_CHOSEN, F_COINS, F_COUNT, F_COPY3,
                                 F_DEFEATS, F_FREE_AGE, F_HAND, F_HAND2, F_HAND_N, F_MIL, F_NCARDS,
                                 F_POWERS, F_PROD, F_SELL, F_SHIELDS, F_SIDE, F_STAGE_E, F_STAGES,
                                 M_ACTION, M_COIN_COST, M_COPY3, M_COUNT, M_LEFT, M_RIGHT, M_SLOT,
                                 MAX_MOVES, MAX_SEATS, DEAL_DECK, DEAL_POOL, RES_BOARD, RES_COINS, RES_NCARDS, RES_SHIELDS,
                                 RES_SIDE, RES_STAGES)
from wsim.kernels.policy import P_COIN, P_STAGE, POLICY_RANDOM, draw, entity_value
from wsim.kernels.rng import STREAM_SEAT0, stream_key
from wsim.kernels.score import rank_seats, score_seat
from wsim.movelog import (ACT_BUILD, ACT_BUILD_FREE, ACT_DISCARD, ACT_STAGE, DISCARD_BUILD, MILITARY, MOVE,
                          SEVENTH)

WIN_AGE1, WIN_AGE2, WIN_AGE3 = MILITARY_WIN
BLOCK = 64  # games per parallel work item; each item allocates its state once


@njit(cache=True)
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
        for k in range(4):
            seat[s, F_STAGE_E + k] = -1
        res = board[b, B_RESOURCE]
        if res >= 0:
            seat[s, F_PROD + res] += 1
            seat[s, F_SELL + res] += 1
        set_prices(seat, s)
        keys[s] = stream_key(seed, game, STREAM_SEAT0 + s)
    for c in range(pile.shape[0]):
        pile[c] = 0


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
    moves[m, M_SLOT] = slot
    moves[m, M_ACTION] = action
    moves[m, M_LEFT] = left
    moves[m, M_RIGHT] = right
    moves[m, M_COIN_COST] = coin_cost
    moves[m, M_COPY3] = copy3
    return m + 1


@njit(cache=True)
def legal_moves(ent, board, seat, n, s, age, moves, opts):
    """Fill moves with seat s's legal moves (default purchase each); returns how many."""
    coins = seat[s, F_COINS]
    can_free = (seat[s, F_POWERS] >> POW_FREE_BUILD) & 1 == 1 and seat[s, F_FREE_AGE] != age
    stage_ok = False
    stage_l = 0
    stage_r = 0
    needs3 = 0
    e = stage_entity(board, seat[s, F_BOARD], seat[s, F_SIDE], seat[s, F_STAGES])
    if e >= 0:
        if ent[e, E_HAS_COST] == 0:
            stage_ok = True
        else:
            i = _first_affordable(opts, purchase(ent, seat, n, s, e, opts), coins)
            if i >= 0:
                stage_ok = True
                stage_l = opts[i, 0]
                stage_r = opts[i, 1]
        if ent[e, E_POWER] == POW_COPY_STAGE and ent[e, E_COPY_OF] == COPY_CHOICE:
            needs3 = 1
    m = 0
    for slot in range(seat[s, F_HAND_N]):
        c = seat[s, F_HAND + slot]
        if not owns_name(ent, seat, s, c):
            if ent[c, E_HAS_COST] == 0 or chain_applies(ent, seat, s, c):
                m = _add_move(moves, m, slot, ACT_BUILD, 0, 0, 0, 0)
            else:
                cc = ent[c, E_COIN_COST]
                if cc <= coins:
                    i = _first_affordable(opts, purchase(ent, seat, n, s, c, opts), coins - cc)
                    if i >= 0:
                        m = _add_move(moves, m, slot, ACT_BUILD, opts[i, 0], opts[i, 1], cc, 0)
                if can_free:  # Olympia A: only for a card that is not free anyway
                    m = _add_move(moves, m, slot, ACT_BUILD_FREE, 0, 0, 0, 0)
        if stage_ok:
            m = _add_move(moves, m, slot, ACT_STAGE, stage_l, stage_r, 0, needs3)
        m = _add_move(moves, m, slot, ACT_DISCARD, 0, 0, 0, 0)
    return m


@njit(cache=True)
def _copy3_target(ent, board, seat, n, s, of):
    """The stage-3 entity a Manneken Pis A stage 3 copies from neighbour `of` (-1 none)."""
    saved = seat[s, F_COPY3]
    seat[s, F_COPY3] = of
    e, _ = stage_source(ent, board, seat, n, s, 2)
    seat[s, F_COPY3] = saved
    return e


@njit(cache=True)
def _greedy_copy3(ent, board, seat, n, s, params, age):
    """Greedy's stage-3 neighbour: the copy worth more (left on a tie); returns (of, entity)."""
    e_left = _copy3_target(ent, board, seat, n, s, COPY_LEFT)
    e_right = _copy3_target(ent, board, seat, n, s, COPY_RIGHT)
    v_left = entity_value(ent, seat, n, s, e_left, 0, params, age) if e_left >= 0 else -1
    v_right = entity_value(ent, seat, n, s, e_right, 0, params, age) if e_right >= 0 else -1
    if v_right > v_left:
        return COPY_RIGHT, e_right
    return COPY_LEFT, e_left


@njit(cache=True)
def _move_value(ent, board, seat, n, s, moves, i, params, age):
    """Greedy value of legal move i of seat s."""
    action = moves[i, M_ACTION]
    if action == ACT_DISCARD:
        return params[s, P_COIN] * DISCARD_COINS
    paid = moves[i, M_COIN_COST] + moves[i, M_LEFT] + moves[i, M_RIGHT]
    if action == ACT_STAGE:
        if moves[i, M_COPY3] == 1:
            _, e = _greedy_copy3(ent, board, seat, n, s, params, age)
        else:
            e, _ = stage_source(ent, board, seat, n, s, seat[s, F_STAGES])
        if e < 0:
            return params[s, P_STAGE] - params[s, P_COIN] * paid
        return params[s, P_STAGE] + entity_value(ent, seat, n, s, e, paid, params, age)
    return entity_value(ent, seat, n, s, seat[s, F_HAND + moves[i, M_SLOT]], paid, params, age)


@njit(cache=True)
def choose(ent, board, seat, keys, n, s, moves, n_moves, policy, params, age):
    """Seat s's policy picks one of its legal moves; writes it to the seat's F_CHOSEN fields."""
    if policy == POLICY_RANDOM:
        i = draw(seat, keys, s, n_moves)
    else:
        i = 0
        best = _move_value(ent, board, seat, n, s, moves, 0, params, age)
        for j in range(1, n_moves):
            v = _move_value(ent, board, seat, n, s, moves, j, params, age)
            if v > best:
                best = v
                i = j
    seat[s, F_CHOSEN + C_ON] = 1
    seat[s, F_CHOSEN + C_SLOT] = moves[i, M_SLOT]
    seat[s, F_CHOSEN + C_CARD] = seat[s, F_HAND + moves[i, M_SLOT]]
    seat[s, F_CHOSEN + C_ACTION] = moves[i, M_ACTION]
    seat[s, F_CHOSEN + C_LEFT] = moves[i, M_LEFT]
    seat[s, F_CHOSEN + C_RIGHT] = moves[i, M_RIGHT]
    seat[s, F_CHOSEN + C_COIN_COST] = moves[i, M_COIN_COST]
    seat[s, F_CHOSEN + C_COPY3] = -1
    if moves[i, M_COPY3] == 1:
        if policy == POLICY_RANDOM:
            seat[s, F_CHOSEN + C_COPY3] = draw(seat, keys, s, 2)
        else:
            of, _ = _greedy_copy3(ent, board, seat, n, s, params, age)
            seat[s, F_CHOSEN + C_COPY3] = of


@njit(cache=True)
def resolve(ent, board, seat, pile, built, n, age, n_built):
    """Steps 2-4 for the seats whose choice is on: pay, place, then immediate coins.

    Appends the stages built to `built` after n_built entries; returns the new count.
    """
    for s in range(n):  # step 2: payments
        if seat[s, F_CHOSEN + C_ON] == 0:
            continue
        left = seat[s, F_CHOSEN + C_LEFT]
        right = seat[s, F_CHOSEN + C_RIGHT]
        seat[s, F_COINS] -= seat[s, F_CHOSEN + C_COIN_COST] + left + right
        seat[left_of(n, s), F_COINS] += left
        seat[right_of(n, s), F_COINS] += right
    for s in range(n):  # step 3: cards enter cities / the discard pile
        if seat[s, F_CHOSEN + C_ON] == 0:
            continue
        card = seat[s, F_CHOSEN + C_CARD]
        hn = seat[s, F_HAND_N]
        for j in range(seat[s, F_CHOSEN + C_SLOT], hn - 1):
            seat[s, F_HAND + j] = seat[s, F_HAND + j + 1]
        seat[s, F_HAND_N] = hn - 1
        action = seat[s, F_CHOSEN + C_ACTION]
        if action == ACT_BUILD or action == ACT_BUILD_FREE:
            add_entity(ent, seat, s, card, True)
            if action == ACT_BUILD_FREE:
                seat[s, F_FREE_AGE] = age
        elif action == ACT_STAGE:
            k = seat[s, F_STAGES]
            built[n_built, 0] = s
            built[n_built, 1] = k
            n_built += 1
            if seat[s, F_CHOSEN + C_COPY3] >= 0:
                seat[s, F_COPY3] = seat[s, F_CHOSEN + C_COPY3]
            seat[s, F_STAGES] = k + 1
            e, _ = stage_source(ent, board, seat, n, s, k)
            seat[s, F_STAGE_E + k] = e
            if e >= 0:
                add_entity(ent, seat, s, e, False)
        else:
            pile[card] += 1
    for s in range(n):  # step 4: immediate coins, on the cities as they stand
        if seat[s, F_CHOSEN + C_ON] == 0:
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
    return n_built


@njit(cache=True)
def _log_chosen(seat, s, kind, age, turn, log, g, n_log):
    log_event(log, g, n_log, kind, age, turn, s, seat[s, F_CHOSEN + C_CARD], seat[s, F_CHOSEN + C_ACTION],
              seat[s, F_CHOSEN + C_LEFT], seat[s, F_CHOSEN + C_RIGHT], seat[s, F_CHOSEN + C_COPY3])


@njit(cache=True)
def _discard_build(ent, seat, keys, pile, n, s, policy, params, age, turn, log, g, n_log):
    """One discard build for seat s: a legal card of the pile (distinct ids ascending) or none."""
    n_options = 0
    for c in range(pile.shape[0]):
        if pile[c] > 0 and not owns_name(ent, seat, s, c):
            n_options += 1
    pick = -1
    if n_options > 0:
        if policy == POLICY_RANDOM:
            j = draw(seat, keys, s, n_options)
            for c in range(pile.shape[0]):
                if pile[c] > 0 and not owns_name(ent, seat, s, c):
                    if j == 0:
                        pick = c
                        break
                    j -= 1
        else:
            best = 0
            for c in range(pile.shape[0]):
                if pile[c] > 0 and not owns_name(ent, seat, s, c):
                    v = entity_value(ent, seat, n, s, c, 0, params, age)
                    if pick < 0 or v > best:
                        best = v
                        pick = c
    log_event(log, g, n_log, DISCARD_BUILD, age, turn, s, pick, 0, 0, 0, -1)
    if pick >= 0:
        pile[pick] -= 1
        add_entity(ent, seat, s, pick, True)
        seat[s, F_COINS] += coins_when_built(ent, seat, n, s, pick)


@njit(cache=True)
def play_turn(ent, board, seat, keys, pile, moves, opts, built, n, age, turn, policies, params,
              log, g, n_log):
    """One turn, RULES.md section 9 steps 1-7."""
    for s in range(n):  # step 1: every choice against the state at the start of the turn
        n_moves = legal_moves(ent, board, seat, n, s, age, moves, opts)
        choose(ent, board, seat, keys, n, s, moves, n_moves, policies[s], params, age)
        _log_chosen(seat, s, MOVE, age, turn, log, g, n_log)
    n_built = resolve(ent, board, seat, pile, built, n, age, 0)
    if turn == TURNS_PER_AGE:
        for s in range(n):  # step 5: 7th cards on the state after step 4
            seat[s, F_CHOSEN + C_ON] = 0
            if seat[s, F_HAND_N] > 0 and (seat[s, F_POWERS] >> POW_SEVENTH) & 1 == 1:
                n_moves = legal_moves(ent, board, seat, n, s, age, moves, opts)
                choose(ent, board, seat, keys, n, s, moves, n_moves, policies[s], params, age)
                _log_chosen(seat, s, SEVENTH, age, turn, log, g, n_log)
        n_built = resolve(ent, board, seat, pile, built, n, age, n_built)
        for s in range(n):  # leftovers and unplayed 7th cards: face down, no coins
            for j in range(seat[s, F_HAND_N]):
                pile[seat[s, F_HAND + j]] += 1
            seat[s, F_HAND_N] = 0
    for prio in range(2):  # step 6: Halicarnassus (0) before Manneken Pis copies (1), by seat
        for s in range(n):
            for i in range(n_built):
                if built[i, 0] != s:
                    continue
                e, copied = stage_source(ent, board, seat, n, s, built[i, 1])
                if e < 0 or ent[e, E_POWER] != POW_DISCARD_BUILD or np.int64(copied) != prio:
                    continue
                _discard_build(ent, seat, keys, pile, n, s, policies[s], params, age, turn, log, g, n_log)
    if turn < TURNS_PER_AGE:  # step 7: pass hands (Age II to the right, else to the left)
        hn = seat[0, F_HAND_N]
        for s in range(n):
            src = left_of(n, s) if age == 2 else right_of(n, s)
            for j in range(hn):
                seat[s, F_HAND2 + j] = seat[src, F_HAND + j]
        for s in range(n):
            for j in range(hn):
                seat[s, F_HAND + j] = seat[s, F_HAND2 + j]


@njit(cache=True)
def military(seat, n, age, log, g, n_log):
    """End of an age: every seat against each neighbour (RULES.md section 5)."""
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


@njit(cache=True)
def new_state(n_cards):
    """(seat, keys, pile, moves, opts, built, dealt, deck, pool, bs): one game's arrays."""
    return (np.zeros((MAX_SEATS, F_COUNT), np.int32), np.zeros(MAX_SEATS, np.uint64),
            np.zeros(n_cards, np.int32), np.zeros((MAX_MOVES, M_COUNT), np.int32),
            np.zeros((16, 2), np.int32), np.zeros((16, 2), np.int32),
            np.zeros((3, MAX_SEATS, HAND_SIZE), np.int16), np.zeros(DEAL_DECK, np.int16),
            np.zeros(DEAL_POOL, np.int8), np.zeros((2, MAX_SEATS), np.int8))


@njit(cache=True)
def play_game(ent, board, n_cards, seat, keys, pile, moves, opts, built, dealt, deck, pool, bs,
              n, seed, game, board_spec, side_spec, promo, policies, params, res, cards, log, g, n_log):
    """Deal and play one whole game; writes res[n, RES_COUNT], cards[n, MAX_CITY] and the log."""
    deal_game(ent, board, n_cards, n, seed, game, board_spec, side_spec, promo, bs[0], bs[1], dealt, deck, pool)
    reset_state(board, seat, keys, pile, bs, n, seed, game)
    if log.shape[0] > 0:
        n_log[g] = 0
    for age in range(1, 4):
        for s in range(n):
            for j in range(HAND_SIZE):
                seat[s, F_HAND + j] = dealt[age - 1, s, j]
            seat[s, F_HAND_N] = HAND_SIZE
        for turn in range(1, TURNS_PER_AGE + 1):
            play_turn(ent, board, seat, keys, pile, moves, opts, built, n, age, turn, policies, params,
                      log, g, n_log)
        military(seat, n, age, log, g, n_log)
    for s in range(n):
        score_seat(ent, seat, n, s, res[s], cards[s])  # cards[s] is scratch until filled below
        res[s, RES_BOARD] = seat[s, F_BOARD]
        res[s, RES_SIDE] = seat[s, F_SIDE]
        res[s, RES_COINS] = seat[s, F_COINS]
        res[s, RES_SHIELDS] = seat[s, F_SHIELDS]
        res[s, RES_STAGES] = seat[s, F_STAGES]
        res[s, RES_NCARDS] = seat[s, F_NCARDS]
    rank_seats(res, n)
    for s in range(n):
        for i in range(seat[s, F_NCARDS]):
            cards[s, i] = seat[s, F_CARDS + i]


@njit(cache=True, parallel=True)
def run_batch(ent, board, n_cards, n, seed, first_game, board_spec, side_spec, promo, policies, params,
              res, cards, log, n_log):
    """Play games first_game .. first_game + len(res) - 1, in parallel blocks of BLOCK games.

    res[i] / cards[i] receive game first_game + i; log[i] / n_log[i] its events when logging
    (a log with zero rows turns logging off). Each game depends only on its (seed, game), so
    results are identical whatever the thread count or the chunking.
    """
    n_games = res.shape[0]
    n_blocks = (n_games + BLOCK - 1) // BLOCK
    for b in prange(n_blocks):
        seat, keys, pile, moves, opts, built, dealt, deck, pool, bs = new_state(n_cards)
        for i in range(b * BLOCK, min(n_games, (b + 1) * BLOCK)):
            play_game(ent, board, n_cards, seat, keys, pile, moves, opts, built, dealt, deck, pool, bs,
                      n, seed, first_game + i, board_spec, side_spec, promo, policies, params,
                      res[i], cards[i], log, i, n_log)
