"""Setup and deal of one game, from the deal stream of (seed, game).

Used by the kernels and, through numba's dispatcher, by the reference engine: both play exactly
the same deal for the same (seed, game). Draw order on the deal stream (one draw each):
  1. Fisher-Yates shuffle of all boards; the seats with a random board take, in seat order,
     the first shuffled boards that are in the pool (promo only when asked) and not fixed.
  2. One side draw per seat, in seat order, even where the side is fixed (keeps the stream
     aligned whatever the settings).
  3. Age I deck shuffled, Age II deck shuffled, then the guilds shuffled (the first N+2 join
     Age III) and the Age III deck shuffled. Seat s is dealt deck[7s:7s+7].
The number of draws never depends on the wonder settings, so fixing boards or adding the promo
never changes the cards dealt.
"""

import numpy as np
from numba import njit

from wsim.codes import HAND_SIZE, PURPLE
from wsim.kernels.layout import B_PROMO, E_AGE, E_COPIES, E_KIND, SCRATCH, kernel_tables
from wsim.kernels.rng import STREAM_DEAL, draw_below, stream_key


@njit(cache=True, inline="always")
def shuffle(buf, n, key, counter):
    """Fisher-Yates shuffle of buf[:n]; returns the stream counter after its draws."""
    for i in range(n - 1, 0, -1):
        j = draw_below(key, counter, i + 1)
        counter += 1
        t = buf[i]
        buf[i] = buf[j]
        buf[j] = t
    return counter


@njit(cache=True, _nrt=False)
def deal_game(ent, board, n_cards, n, seed, game, board_spec, side_spec, promo_in_pool, hands, sc):
    """Assign boards and sides and deal the three ages' hands of game `game`.

    board_spec[s] is a board id or -1 (random); side_spec[s] is 0 (A), 1 (B) or -1 (random).
    Writes the boards and sides into the scratch record's bs[0, :n] and bs[1, :n] and
    hands[3, n, 7] (card ids); the record's deck and pool are the shuffles' buffers.
    """
    boards, sides, deck, pool = sc.bs[0], sc.bs[1], sc.deck, sc.pool
    key = stream_key(seed, game, STREAM_DEAL)
    counter = np.int64(0)  # int64, not the literal 0: deal_age compiles once
    n_boards = board.shape[0]
    for b in range(n_boards):
        pool[b] = b
    counter = shuffle(pool, n_boards, key, counter)
    next_board = 0
    for s in range(n):
        if board_spec[s] >= 0:
            boards[s] = board_spec[s]
            continue
        while True:
            b = pool[next_board]
            next_board += 1
            taken = False
            for t in range(n):
                if board_spec[t] == b:
                    taken = True
            if not taken and (board[b, B_PROMO] == 0 or promo_in_pool):
                boards[s] = b
                break
    for s in range(n):
        side = draw_below(key, counter, 2)
        counter += 1
        sides[s] = side if side_spec[s] < 0 else side_spec[s]
    for age in range(1, 4):
        counter = deal_age(ent, n_cards, n, age, hands, deck, key, counter)
    return counter


@njit(cache=True, _nrt=False)
def deal_age(ent, n_cards, n, age, hands, deck, key, counter):
    """Shuffle age `age`'s deck for n cities (Age III: N + 2 guilds drawn among all, then the
    rest) and deal it into hands[age - 1, :n]: the deal's, and the re-deal of an age a seat has
    not seen (kernels/hidden.py). Draws from stream `key` from `counter`; returns the counter
    after its draws."""
    size = 0
    if age == 3:
        n_guilds = 0
        for c in range(n_cards):
            if ent[c, E_KIND] == PURPLE:
                deck[n_guilds] = c
                n_guilds += 1
        counter = shuffle(deck, n_guilds, key, counter)
        size = n + 2
    for c in range(n_cards):
        if ent[c, E_AGE] == age and ent[c, E_KIND] != PURPLE:
            for _ in range(ent[c, E_COPIES + n]):
                deck[size] = c
                size += 1
    counter = shuffle(deck, size, key, counter)
    for s in range(n):
        for k in range(HAND_SIZE):
            hands[age - 1, s, k] = deck[s * HAND_SIZE + k]
    return counter


def board_pool(board, boards, promo_in_pool: bool) -> tuple:
    """(seats wanting a random board, boards left in the pool for them). deal_game reads past
    the shuffled pool when the first is larger: callers check it (wsim.run.settings)."""
    fixed = {int(b) for b in boards if b >= 0}
    pool = sum(1 for b in range(board.shape[0]) if b not in fixed and (not board[b, B_PROMO] or promo_in_pool))
    return sum(1 for b in boards if b < 0), pool


def deal(tables, n, seed, game, board_spec=None, side_spec=None, promo_in_pool=False):
    """Python entry point: (boards, sides, hands[3, n, 7]) of one game, as numpy arrays."""
    ent, board, n_cards = kernel_tables(tables)
    if board_spec is None:
        board_spec = np.full(n, -1, dtype=np.int8)
    wanted, pool = board_pool(board, board_spec, promo_in_pool)
    if wanted > pool:
        raise ValueError(f"{wanted} seats want a random board, the pool has {pool}")
    if side_spec is None:
        side_spec = np.full(n, -1, dtype=np.int8)
    hands = np.zeros((3, n, HAND_SIZE), dtype=np.int16)
    sc = np.zeros(1, SCRATCH)  # its deck and pool: the sizes kernel_tables checked the data against
    deal_game(ent, board, n_cards, n, np.uint64(seed), game, np.asarray(board_spec, dtype=np.int8),
              np.asarray(side_spec, dtype=np.int8), promo_in_pool, hands, sc[0])
    return sc["bs"][0, 0, :n].copy(), sc["bs"][0, 1, :n].copy(), hands
