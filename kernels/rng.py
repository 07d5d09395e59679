"""The one random generator of wsim: counter-based SplitMix64, keyed by (seed, game, stream).

Written once, compiled by numba, and called both from kernels and from the plain-Python
reference engine (through numba's dispatcher), so both draw identical numbers. A draw is a pure
function of (key, counter): no hidden state, so a game's numbers never depend on threads,
chunking or the order in which games run.

Streams: STREAM_DEAL for boards, sides, decks and hands; STREAM_SEAT0 + seat for that seat's
policy; STREAM_SAMPLE for a batched environment's uniform legal actions (kernels/batched.py).
Changing one seat's policy therefore never changes the deal or another seat's draws.
"""

import numpy as np
from numba import njit

STREAM_DEAL = 0
STREAM_SEAT0 = 1
STREAM_SAMPLE = 64  # past every seat's stream (STREAM_SEAT0 + seat)

# All arithmetic is on uint64 so that it wraps modulo 2**64 identically everywhere; mixing in an
# int64 would make numba promote to float64 or shift arithmetically.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MUL1 = np.uint64(0xBF58476D1CE4E5B9)
_MUL2 = np.uint64(0x94D049BB133111EB)
_S27 = np.uint64(27)
_S30 = np.uint64(30)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_ONE = np.uint64(1)


@njit(cache=True, inline="always")
def mix64(z):
    """SplitMix64's finaliser: a bijective scramble of a uint64."""
    z = (z ^ (z >> _S30)) * _MUL1
    z = (z ^ (z >> _S27)) * _MUL2
    return z ^ (z >> _S31)


@njit(cache=True, inline="always")
def stream_key(seed, game, stream):
    """The key of one random stream; seed, game and stream are non-negative integers."""
    z = mix64(np.uint64(seed) + _GOLDEN)
    z = mix64(z + np.uint64(game) + _GOLDEN)
    return mix64(z + np.uint64(stream) + _GOLDEN)


@njit(cache=True, inline="always")
def draw_u64(key, counter):
    """The counter-th 64-bit number of a stream."""
    return mix64(np.uint64(key) + (np.uint64(counter) + _ONE) * _GOLDEN)


@njit(cache=True, inline="always")
def draw_below(key, counter, n):
    """A number in 0..n-1 (n >= 1) from the counter-th draw of a stream.

    Takes the high 32 bits times n (Lemire's reduction without rejection): the bias is below
    n / 2**32, far under anything a simulation of this size can detect, and it needs no loop.
    """
    x = draw_u64(key, counter) >> _S32
    return np.int64((x * np.uint64(n)) >> _S32)
