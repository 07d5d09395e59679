"""The profile twin's clock (`wsim bench`'s time breakdown): the CPU's cycle counter, the
components a game's time is split into, and the trading solver's calls of a decision timed again.

The game loop and its decision step (kernels/loop.py, decide.take_decision) add to the scratch
record's `timing` array only when the run record says `timed`; in production the flag is tested
once per decision and nothing else runs.
"""

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from wsim.kernels.city import chain_applies, left_of, owns_name, purchase, right_of, stage_entity
from wsim.kernels.layout import (C_SLOT, E_COIN_COST, E_HAS_COST, F_BOARD, F_CHOSEN, F_COINS, F_HAND, F_HAND_N,
                                 F_SIDE, F_STAGES, G_FC, G_N)
from wsim.kernels.schema import TIMING_SLOTS
from wsim.kernels.trade import surely_affordable
from wsim.kernels.turn import fc_controller

COMPONENTS = ("deal", "legal", "trading", "policy", "resolution", "scoring", "loop")
DEAL, LEGAL, TRADING, POLICY, RESOLUTION, SCORING, LOOP = range(len(COMPONENTS))
RERUN = len(COMPONENTS)  # acc[RERUN]: the cycles of the trading calls timed a second time
RAW = len(COMPONENTS) + 1  # acc[RAW]: the raw cycles of a run (profile.py)
assert RAW + 1 == TIMING_SLOTS


@intrinsic
def cycles(typingctx):
    """The CPU's cycle counter (LLVM's readcyclecounter, the TSC on x86; uint64)."""
    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), []),
                                            "llvm.readcyclecounter")
        return builder.call(fn, [])
    return types.uint64(), codegen


@njit(cache=True, _nrt=False)
def trading_calls(ent, board, seat, gs, s, opts, lazy):
    """The trading solver calls legal_moves makes for seat s: its next stage when it has a cost,
    and each card it may play (its hand, or for the Free City its controller's but the card the
    controller plays) that it does not own, that no chain makes free and whose coin cost it can
    pay; with `lazy`, not those that trade.surely_affordable leaves unpriced."""
    n = gs[G_N]
    coins = seat[s, F_COINS]
    left = left_of(n, s)
    right = right_of(n, s)
    holder = fc_controller(gs) if s == gs[G_FC] else s
    skip = seat[holder, F_CHOSEN + C_SLOT] if holder != s else -1
    e = stage_entity(board, seat[s, F_BOARD], seat[s, F_SIDE], seat[s, F_STAGES])
    if e >= 0 and ent[e, E_HAS_COST] != 0 and not (lazy and surely_affordable(ent, e, seat, s, left, right, coins)):
        purchase(ent, seat, n, s, e, opts)
    for slot in range(seat[holder, F_HAND_N]):
        c = seat[holder, F_HAND + slot]
        if slot == skip:
            continue
        cc = ent[c, E_COIN_COST]
        if (not owns_name(ent, seat, s, c) and ent[c, E_HAS_COST] != 0 and not chain_applies(ent, seat, s, c)
                and cc <= coins and not (lazy and surely_affordable(ent, c, seat, s, left, right, coins - cc))):
            purchase(ent, seat, n, s, c, opts)
