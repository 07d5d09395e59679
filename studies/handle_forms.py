"""How should a game state travel through the kernels? A measurement (issue 23, "measure the
form first"): the same small workload — a chain of three calls, as legal moves → trading →
a city accessor, each reading and writing a few fields of the seats, the game header, the pile
and the random keys — written with five forms of the state:

  arrays   the five state arrays passed one by one (today's kernels)
  tuple    one tuple of the five arrays
  flat     one int32 buffer with the regions at fixed offsets, indexed directly, plus the keys
  views    the same buffer, each function taking 2-D views of its regions at entry
  record   one numpy record (a structured scalar) holding the five arrays as fields
  aliased  the record, each function naming its arrays at entry (`seat = st.seat`, ...), so that
           the bodies stay as they are

Run: python studies/handle_forms.py [--calls N] [--repeat R]; prints ns per outer call, best of R.
The workload's loop is not the game: the numbers say what the form costs per call, not what a
game costs.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

SEATS, F = 7, 160  # about the width of a seat row (kernels/schema.py)
G = 24
CARDS = 80
HAND = 7
SEAT = 0
GS = SEAT + SEATS * F
PILE = GS + G
DEALT = PILE + CARDS
SIZE = DEALT + 3 * SEATS * HAND
COINS, SHIELDS, CTR = 3, 17, 42  # three seat fields the workload touches
G_TURN, G_N = 2, 0


# -- arrays ------------------------------------------------------------------------------------
@njit(cache=False)
def a_leaf(seat, keys, pile, gs, dealt, s):
    seat[s, CTR] += 1
    return seat[s, COINS] + seat[(s + 1) % gs[G_N], SHIELDS] + pile[s] + dealt[0, s, 0] + np.int64(keys[s] & 7)


@njit(cache=False)
def a_mid(seat, keys, pile, gs, dealt, s):
    t = 0
    for i in range(3):
        t += a_leaf(seat, keys, pile, gs, dealt, (s + i) % gs[G_N])
    return t


@njit(cache=False)
def a_top(seat, keys, pile, gs, dealt, calls):
    t = 0
    for c in range(calls):
        gs[G_TURN] = c & 7
        t += a_mid(seat, keys, pile, gs, dealt, c % gs[G_N])
    return t


# -- tuple -------------------------------------------------------------------------------------
@njit(cache=False)
def t_leaf(st, s):
    seat, keys, pile, gs, dealt = st
    seat[s, CTR] += 1
    return seat[s, COINS] + seat[(s + 1) % gs[G_N], SHIELDS] + pile[s] + dealt[0, s, 0] + np.int64(keys[s] & 7)


@njit(cache=False)
def t_mid(st, s):
    t = 0
    for i in range(3):
        t += t_leaf(st, (s + i) % st[3][G_N])
    return t


@njit(cache=False)
def t_top(st, calls):
    t = 0
    for c in range(calls):
        st[3][G_TURN] = c & 7
        t += t_mid(st, c % st[3][G_N])
    return t


# -- flat --------------------------------------------------------------------------------------
@njit(cache=False)
def f_leaf(st, keys, s):
    st[SEAT + s * F + CTR] += 1
    n = st[GS + G_N]
    return (st[SEAT + s * F + COINS] + st[SEAT + ((s + 1) % n) * F + SHIELDS] + st[PILE + s]
            + st[DEALT + s * HAND] + np.int64(keys[s] & 7))


@njit(cache=False)
def f_mid(st, keys, s):
    t = 0
    for i in range(3):
        t += f_leaf(st, keys, (s + i) % st[GS + G_N])
    return t


@njit(cache=False)
def f_top(st, keys, calls):
    t = 0
    for c in range(calls):
        st[GS + G_TURN] = c & 7
        t += f_mid(st, keys, c % st[GS + G_N])
    return t


# -- views -------------------------------------------------------------------------------------
@njit(cache=False, inline="always")
def _seat(st):
    return st[SEAT:GS].reshape(SEATS, F)


@njit(cache=False)
def v_leaf(st, keys, s):
    seat = _seat(st)
    gs = st[GS:PILE]
    pile = st[PILE:DEALT]
    dealt = st[DEALT:SIZE].reshape(3, SEATS, HAND)
    seat[s, CTR] += 1
    return seat[s, COINS] + seat[(s + 1) % gs[G_N], SHIELDS] + pile[s] + dealt[0, s, 0] + np.int64(keys[s] & 7)


@njit(cache=False)
def v_mid(st, keys, s):
    t = 0
    for i in range(3):
        t += v_leaf(st, keys, (s + i) % st[GS + G_N])
    return t


@njit(cache=False)
def v_top(st, keys, calls):
    t = 0
    for c in range(calls):
        st[GS + G_TURN] = c & 7
        t += v_mid(st, keys, c % st[GS + G_N])
    return t


# -- record ------------------------------------------------------------------------------------
RECORD = np.dtype([("seat", np.int32, (SEATS, F)), ("keys", np.uint64, (SEATS,)), ("pile", np.int32, (CARDS,)),
                   ("gs", np.int32, (G,)), ("dealt", np.int16, (3, SEATS, HAND))])


@njit(cache=False)
def r_leaf(r, s):
    r.seat[s, CTR] += 1
    return (r.seat[s, COINS] + r.seat[(s + 1) % r.gs[G_N], SHIELDS] + r.pile[s] + r.dealt[0, s, 0]
            + np.int64(r.keys[s] & 7))


@njit(cache=False)
def r_mid(r, s):
    t = 0
    for i in range(3):
        t += r_leaf(r, (s + i) % r.gs[G_N])
    return t


@njit(cache=False)
def r_top(arr, calls):
    r = arr[0]
    t = 0
    for c in range(calls):
        r.gs[G_TURN] = c & 7
        t += r_mid(r, c % r.gs[G_N])
    return t


# -- record, aliased: each function names the record's arrays at entry, its body as today -------
@njit(cache=False)
def ra_leaf(r, s):
    seat, keys, pile, gs, dealt = r.seat, r.keys, r.pile, r.gs, r.dealt
    seat[s, CTR] += 1
    return seat[s, COINS] + seat[(s + 1) % gs[G_N], SHIELDS] + pile[s] + dealt[0, s, 0] + np.int64(keys[s] & 7)


@njit(cache=False)
def ra_mid(r, s):
    gs = r.gs
    t = 0
    for i in range(3):
        t += ra_leaf(r, (s + i) % gs[G_N])
    return t


@njit(cache=False)
def ra_top(arr, calls):
    r = arr[0]
    gs = r.gs
    t = 0
    for c in range(calls):
        gs[G_TURN] = c & 7
        t += ra_mid(r, c % gs[G_N])
    return t


def _forms():
    seat = np.zeros((SEATS, F), np.int32)
    keys = np.arange(SEATS, dtype=np.uint64)
    pile = np.zeros(CARDS, np.int32)
    gs = np.zeros(G, np.int32)
    gs[G_N] = 5
    dealt = np.zeros((3, SEATS, HAND), np.int16)
    st = np.zeros(SIZE, np.int32)
    st[GS + G_N] = 5
    rec = np.zeros(1, RECORD)
    rec[0]["gs"][G_N] = 5
    return {"arrays": lambda n: a_top(seat, keys, pile, gs, dealt, n),
            "tuple": lambda n: t_top((seat, keys, pile, gs, dealt), n),
            "flat": lambda n: f_top(st, keys, n),
            "views": lambda n: v_top(st, keys, n),
            "record": lambda n: r_top(rec, n),
            "aliased": lambda n: ra_top(rec, n)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    forms = _forms()
    for run in forms.values():
        run(10)  # compile
    results = {}
    for name, run in forms.items():
        best = float("inf")
        for _ in range(args.repeat):
            started = time.perf_counter()
            run(args.calls)
            best = min(best, time.perf_counter() - started)
        results[name] = best / args.calls * 1e9
    for name, ns in results.items():
        print(f"{name:>7}: {ns:6.1f} ns per outer call (3 leaf calls each)")


if __name__ == "__main__":
    main()
