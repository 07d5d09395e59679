"""Where a game's time goes, for `wsim bench`: whole games played through the one game loop
(kernels/loop.py) with its timing on (kernels/timing.py), the deal and the scoring timed here.

The components (timing.COMPONENTS):

  deal        init_game: boards, sides, three shuffled decks, the first hands
  legal       legal(): the (card, action, purchase) lists, the trading solver excluded
  trading     the trading solver's calls, timed where kernels/price.py makes them (the listing's
              and the random policy's pricing of its chosen move)
  policy      decide()
  resolution  apply() (payments, placing, coins, 7th cards, discard builds, passing) and end_age
  scoring     final(): every seat's score and the ranks
  loop        pending() and the loop itself, and the timer reads

Reading the counter costs ~10 ns, a few percent of a game; bench prints the instrumented total
beside the production figure so that the difference is visible.

Two more loops serve `wsim bench`: `loop_floor`, a bare loop of the game's shape (the
deal, then picks and passes with no rules), and `trade_calls`, the trading solver on fixed positions.
"""

import numpy as np
from numba import njit

from wsim.kernels.loop import play_out
from wsim.kernels.timing import COMPONENTS, DEAL, LOOP, SCORING, cycles
from wsim.kernels.step import final, init_game
from wsim.kernels.deal import deal_game
from wsim.kernels.layout import E_NAME_ID
from wsim.kernels.rng import STREAM_SEAT0, draw_below, stream_key
from wsim.kernels.trade import trade_options_at


@njit(cache=True, _nrt=False)
def profile_games(ent, board, run, games, res, cards, acc, st, sc, log):
    """Play games 0..games-1 of the run (random, greedy or heuristic seats) through the game
    loop with its clock (sc.timing) on one thread, on the state and scratch records given (a
    move log with zero rows); acc[component] receives the cycles spent in each (COMPONENTS order) and acc[len(COMPONENTS)]
    the cycles of the whole run, which measured against the wall clock give the counter's rate."""
    timing = sc.timing
    timing[:] = 0
    start = cycles()
    for game in range(games):
        t0 = cycles()
        init_game(ent, board, run.n_cards, run.n, run.seed, game, run.board_spec, run.side_spec, run.promo, st, sc)
        timing[DEAL] += cycles() - t0
        play_out(ent, board, run, st, sc, log, None, timing, None, None, None)
        t0 = cycles()
        final(ent, st, res, cards)
        timing[SCORING] += cycles() - t0
    raw = cycles() - start
    for c in range(LOOP):
        acc[c] = timing[c]
    acc[len(COMPONENTS)] = raw
    acc[LOOP] = raw
    for c in range(LOOP):
        acc[LOOP] -= acc[c]


@njit(cache=True, _nrt=False)
def trade_calls(costs, seat, out, repeats):
    """The trading solver asked `repeats` times about every position i (cost row i, the city at
    seat row 3i and its neighbours at 3i+1 and 3i+2): `wsim bench`'s yardstick. Returns the sum
    of the answers' option counts, so that no call can be optimised away."""
    total = 0
    for _ in range(repeats):
        for i in range(costs.shape[0]):
            total += trade_options_at(costs, i, seat, 3 * i, 3 * i + 1, 3 * i + 2, out)
    return total


@njit(cache=True, _nrt=True)  # its seat spec is allocated once a call
def loop_floor(ent, board, n_cards, n, games, with_play, sc, dealt, hand, spare, owned):
    """The loop floor of a game (with_play) or its deal alone, over `games` games: the real deal,
    then 3 ages x 6 turns of: every seat checks each card of its hand against its owned names,
    draws one legal card from its stream, removes it, and hands pass. No costs, no trading, no
    effects: what any engine of this shape pays at least (`wsim bench`'s time split)."""
    total = 0
    spec = np.full(n, -1, np.int8)
    for game in range(games):
        deal_game(ent, board, n_cards, n, np.uint64(1), game, spec, spec, False, dealt, sc)
        if not with_play:
            total += dealt[0, 0, 0]
            continue
        owned[:] = 0
        counter = 0
        key = stream_key(np.uint64(1), game, STREAM_SEAT0)
        for age in range(3):
            for s in range(n):
                for j in range(7):
                    hand[s, j] = dealt[age, s, j]
            for turn in range(6):
                size = 7 - turn
                for s in range(n):
                    legal = 0
                    for j in range(size):
                        if owned[s, ent[hand[s, j], E_NAME_ID]] == 0:
                            legal += 1
                    pick = int(draw_below(key, counter, size))
                    counter += 1
                    c = hand[s, pick]
                    owned[s, ent[c, E_NAME_ID]] = 1
                    total += legal
                    for j in range(pick, size - 1):
                        hand[s, j] = hand[s, j + 1]
                for s in range(n):
                    src = (s + 1) % n if age == 1 else (s - 1) % n
                    for j in range(size - 1):
                        spare[s, j] = hand[src, j]
                for s in range(n):
                    for j in range(size - 1):
                        hand[s, j] = spare[s, j]
    return total
