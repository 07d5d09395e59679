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
"""

from numba import njit

from wsim.kernels.loop import play_out
from wsim.kernels.timing import COMPONENTS, DEAL, LOOP, SCORING, cycles
from wsim.kernels.step import final, init_game


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
