"""The profile twin's clock (`wsim bench`'s time breakdown): the CPU's cycle counter and the
components a game's time is split into.

The game loop, its decision step and the trading solver's call site (kernels/loop.py,
decide.take_decision, price._solve) add to the scratch record's `timing` array when they are
given it as their `clock` (kernels/profile.py does); production passes None, and numba drops
the timing before typing, so the profile twin is a compiled family of its own.
"""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from wsim.kernels.schema import TIMING_SLOTS

COMPONENTS = ("deal", "legal", "trading", "policy", "resolution", "scoring", "loop")
DEAL, LEGAL, TRADING, POLICY, RESOLUTION, SCORING, LOOP = range(len(COMPONENTS))
assert len(COMPONENTS) == TIMING_SLOTS


@intrinsic
def cycles(typingctx):
    """The CPU's cycle counter (LLVM's readcyclecounter, the TSC on x86; uint64)."""
    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), []),
                                            "llvm.readcyclecounter")
        return builder.call(fn, [])
    return types.uint64(), codegen
