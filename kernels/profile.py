"""Where a game's time goes: an instrumented twin of kernels/game.play_game, for `wsim bench`.

The production kernels carry no timers. This module plays the same games through the same
step-level calls, reading the CPU's cycle counter (LLVM's readcyclecounter, the TSC on x86)
around each of them, and adds the cycles to one bucket per component:

  deal        init_game: boards, sides, three shuffled decks, the first hands
  legal       legal(): the (card, action, purchase) lists, the trading solver excluded
  trading     the trading solver calls that legal() makes (timed again on the same state, then
              taken out of `legal`)
  policy      decide()
  resolution  apply() (payments, placing, coins, 7th cards, discard builds, passing) and end_age
  scoring     final(): every seat's score and the ranks
  loop        pending() and the loop itself, and the timer reads

Reading the counter costs ~10 ns, a few percent of a game; bench prints the instrumented total
beside the production figure so that the difference is visible.
"""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from wsim.kernels.city import chain_applies, owns_name, purchase, stage_entity
from wsim.kernels.layout import (C_SLOT, DEC_MOVE, DEC_SEVENTH, E_COIN_COST, E_HAS_COST, F_BOARD, F_CHOSEN, F_COINS, F_HAND,
                                 F_HAND_N, F_SIDE, F_STAGES, G_N, G_PHASE, PH_AGE_END)
from wsim.kernels.policy import all_purchases, decide
from wsim.kernels.step import apply, decider, end_age, final, init_game, legal, pending

COMPONENTS = ("deal", "legal", "trading", "policy", "resolution", "scoring", "loop")
DEAL, LEGAL, TRADING, POLICY, RESOLUTION, SCORING, LOOP = range(len(COMPONENTS))


@intrinsic
def cycles(typingctx):
    """The CPU's cycle counter (uint64)."""
    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), []),
                                            "llvm.readcyclecounter")
        return builder.call(fn, [])
    return types.uint64(), codegen


@njit(cache=True, _nrt=False)
def _trading(ent, board, seat, gs, s, opts):
    """The trading solver calls legal_moves makes for seat s: its next stage when it has a cost,
    and each card it may play (its hand, or for the Free City its controller's but the card the
    controller plays) that it does not own, that no chain makes free and whose coin cost it can
    pay."""
    n = gs[G_N]
    coins = seat[s, F_COINS]
    holder = decider(gs, s)
    skip = seat[holder, F_CHOSEN + C_SLOT] if holder != s else -1
    e = stage_entity(board, seat[s, F_BOARD], seat[s, F_SIDE], seat[s, F_STAGES])
    if e >= 0 and ent[e, E_HAS_COST] != 0:
        purchase(ent, seat, n, s, e, opts)
    for slot in range(seat[holder, F_HAND_N]):
        c = seat[holder, F_HAND + slot]
        if slot == skip:
            continue
        if (not owns_name(ent, seat, s, c) and ent[c, E_HAS_COST] != 0 and not chain_applies(ent, seat, s, c)
                and ent[c, E_COIN_COST] <= coins):
            purchase(ent, seat, n, s, c, opts)


@njit(cache=True, _nrt=False)
def profile_games(ent, board, run, games, res, cards, acc, st, sc, log, n_log):
    """Play games 0..games-1 of the run (random, greedy or heuristic seats) on one thread, on
    the state and scratch records given (game.new_state, game.new_scratch; log with zero rows);
    acc[component] receives the cycles spent in each (COMPONENTS order) and acc[len(COMPONENTS)]
    the cycles of the whole run, less the second timing of the trading calls;
    acc[len(COMPONENTS) + 1] the raw cycles of the run, which measured against the wall clock
    gives the counter's rate."""
    acc[:] = 0
    seat, gs = st.seat, st.gs
    moves, opts, todo = sc.moves, sc.opts, sc.todo
    rerun = np.uint64(0)  # the trading calls timed a second time: not part of a real game
    start = cycles()
    for game in range(games):
        t0 = cycles()
        init_game(ent, board, run.n_cards, run.n, run.seed, game, run.board_spec, run.side_spec, run.promo, st, sc)
        acc[DEAL] += cycles() - t0
        while True:
            k = pending(st, todo)
            if k == 0:
                if gs[G_PHASE] != PH_AGE_END:
                    break
                t0 = cycles()
                end_age(st, log, 0, n_log)
                acc[RESOLUTION] += cycles() - t0
                continue
            for i in range(k):
                s = todo[i, 0]
                kind = todo[i, 1]
                who = todo[i, 2]
                t0 = cycles()
                m = legal(ent, board, st, s, kind, moves, opts, all_purchases(run.policies, who))
                t1 = cycles()
                acc[LEGAL] += t1 - t0
                if kind == DEC_MOVE or kind == DEC_SEVENTH:
                    _trading(ent, board, seat, gs, s, opts)
                    t2 = cycles()
                    acc[TRADING] += t2 - t1
                    acc[LEGAL] -= t2 - t1
                    rerun += t2 - t1
                    t1 = t2
                j = decide(ent, board, st, s, who, kind, moves, m, run)
                t2 = cycles()
                acc[POLICY] += t2 - t1
                apply(ent, board, st, s, kind, moves, j, log, 0, n_log)
                acc[RESOLUTION] += cycles() - t2
        t0 = cycles()
        final(ent, st, res, cards)
        acc[SCORING] += cycles() - t0
    raw = cycles() - start
    acc[len(COMPONENTS) + 1] = raw
    total = raw - rerun
    acc[len(COMPONENTS)] = total
    acc[LOOP] = total
    for c in range(LOOP):
        acc[LOOP] -= acc[c]
