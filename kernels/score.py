"""Final scoring on the kernel state (docs/rules.md §7): the twin of wsim.reference.scoring.

End-of-game choices are made for the best total, in the reference's order (the neighbours'
guilds by ascending card id, keeping the first best). In a dealt game a city has at most one
guild copy (Olympia B3, or a Manneken Pis copy of it: boards are distinct), which this kernel
relies on; the reference engine handles any number for scenario files.
"""

import numpy as np
from numba import njit

from wsim.codes import BLUE, COINS_PER_POINT, PURPLE, SCI_ANY, SCIENCE_SET_POINTS, YELLOW
from wsim.kernels.city import left_of, owns_name, points_now, right_of
from wsim.kernels.layout import (E_KIND, E_POINTS, E_SCIENCE, F_CARDS, F_COINS, F_COPY_GUILD, F_MIL,
                                 F_NCARDS, F_SCI, F_STAGE_E, F_STAGES, RES_CIVILIAN, RES_COINS,
                                 RES_COMMERCIAL, RES_GUILD, RES_MILITARY, RES_RANK, RES_SCIENCE, RES_TOTAL,
                                 RES_TREASURY, RES_WONDER)


@njit(cache=True, _nrt=False)
def science_points(c0, c1, c2, wild):
    """c0^2 + c1^2 + c2^2 + SCIENCE_SET_POINTS x min, with the wildcards assigned for the best total."""
    best = 0
    for a in range(wild + 1):
        for b in range(wild - a + 1):
            x = c0 + a
            y = c1 + b
            z = c2 + wild - a - b
            v = x * x + y * y + z * z + SCIENCE_SET_POINTS * min(x, min(y, z))
            if v > best:
                best = v
    return best


@njit(cache=True, inline="always")
def science_with(seat, s, sym):
    """Science points of seat s's symbols plus one more `sym` (-1 none, 0..2, SCI_ANY a wildcard)."""
    c0 = np.int64(seat[s, F_SCI])  # int64 whichever branch runs: one science_points
    c1 = np.int64(seat[s, F_SCI + 1])
    c2 = np.int64(seat[s, F_SCI + 2])
    wild = np.int64(seat[s, F_SCI + 3])
    if sym == SCI_ANY:
        wild += 1
    elif sym == 0:
        c0 += 1
    elif sym == 1:
        c1 += 1
    elif sym == 2:
        c2 += 1
    return science_points(c0, c1, c2, wild)


@njit(cache=True, _nrt=False)
def science_gain(seat, s, sym):
    """Science points one more symbol `sym` (0..2, SCI_ANY a wildcard) would add to seat s's: the
    policies' science delta. Without wildcards the squares and the sets change by a formula; with
    them the best assignment is searched before and after."""
    wild = seat[s, F_SCI + 3]
    if wild == 0 and sym != SCI_ANY:
        c = np.int64(seat[s, F_SCI + sym])
        low = min(seat[s, F_SCI], min(seat[s, F_SCI + 1], seat[s, F_SCI + 2]))
        sets = 1 if c == low and _count_at(seat, s, low) == 1 else 0  # sym held the only lowest count
        return 2 * c + 1 + SCIENCE_SET_POINTS * sets
    return science_with(seat, s, sym) - science_with(seat, s, -1)


@njit(cache=True, inline="always")
def points_and_science(ent, seat, n, s, e):
    """(points, science points) entity e would give seat s now: its printed points and
    end-of-game count on the cities as they stand, and the science points it adds."""
    points = points_now(ent, seat, n, s, e, 0)
    science = 0
    if ent[e, E_SCIENCE] >= 0:
        science = science_gain(seat, np.int64(s), np.int64(ent[e, E_SCIENCE]))
    return points, science


@njit(cache=True, inline="always")
def _count_at(seat, s, value):
    """How many of seat s's three symbol counts equal value."""
    return ((1 if seat[s, F_SCI] == value else 0) + (1 if seat[s, F_SCI + 1] == value else 0)
            + (1 if seat[s, F_SCI + 2] == value else 0))


@njit(cache=True, _nrt=False)
def _score_with(ent, seat, n, s, guild, row):
    """Categories of seat s into row[RES_MILITARY..RES_TOTAL], with guild copy `guild` (-1 none)."""
    extra = 1 if guild >= 0 else 0
    wonder = 0
    for k in range(seat[s, F_STAGES]):
        e = seat[s, F_STAGE_E + k]
        if e >= 0:
            wonder += ent[e, E_POINTS]
    civ = 0
    com = 0
    gui = 0
    for i in range(seat[s, F_NCARDS]):
        c = seat[s, F_CARDS + i]
        kind = ent[c, E_KIND]
        if kind == BLUE:
            civ += points_now(ent, seat, n, s, c, extra)
        elif kind == YELLOW:
            com += points_now(ent, seat, n, s, c, extra)
        elif kind == PURPLE:
            gui += points_now(ent, seat, n, s, c, extra)
    if guild >= 0:
        gui += points_now(ent, seat, n, s, guild, extra)
    row[RES_SCIENCE] = science_with(seat, s, ent[guild, E_SCIENCE] if guild >= 0 else -1)
    row[RES_MILITARY] = seat[s, F_MIL]
    row[RES_TREASURY] = seat[s, F_COINS] // COINS_PER_POINT
    row[RES_WONDER] = wonder
    row[RES_CIVILIAN] = civ
    row[RES_COMMERCIAL] = com
    row[RES_GUILD] = gui
    total = 0
    for f in range(RES_MILITARY, RES_GUILD + 1):
        total += row[f]
    row[RES_TOTAL] = total


@njit(cache=True, _nrt=False)
def score_seat(ent, seat, n, s, row, spare):
    """Seat s's best final score into row; spare is a scratch row of the same length."""
    _score_with(ent, seat, n, s, np.int64(-1), row)
    if seat[s, F_COPY_GUILD] == 0:
        return
    lft = left_of(n, s)
    rgt = right_of(n, s)
    first = True
    for c in range(ent.shape[0]):
        if ent[c, E_KIND] != PURPLE:
            continue
        # guild names are unique, so owning the name means having this very card
        if not (owns_name(ent, seat, lft, c) or owns_name(ent, seat, rgt, c)):
            continue
        _score_with(ent, seat, n, s, c, spare)
        if first or spare[RES_TOTAL] > row[RES_TOTAL]:
            for f in range(RES_MILITARY, RES_TOTAL + 1):
                row[f] = spare[f]
        first = False


@njit(cache=True, _nrt=False)
def rank_seats(res, n, fc):
    """res[s, RES_RANK] = 1 + players with more points, or equal points and more coins; the Free
    City (seat fc, -1 none) ranks among no one and gets 0 (docs/rules.md §10)."""
    for s in range(n):
        if s == fc:
            res[s, RES_RANK] = 0
            continue
        r = 1
        for o in range(n):
            if o != fc and (res[o, RES_TOTAL] > res[s, RES_TOTAL] or (
                    res[o, RES_TOTAL] == res[s, RES_TOTAL] and res[o, RES_COINS] > res[s, RES_COINS])):
                r += 1
        res[s, RES_RANK] = r


@njit(cache=True, inline="always")
def outcome(res, players, s):
    """Player s's (win share, margin) in a finished game's results res (`final`): its share of
    the win (1/k among k tied winners, 0 if it did not win) and its total minus the best other
    player's. Only seats 0..players-1 count: the Free City (seat `players` at 2 players) neither
    wins nor is beaten (docs/rules.md §10)."""
    winners = 0
    best = res[1 if s == 0 else 0, RES_TOTAL]
    for t in range(players):
        winners += res[t, RES_RANK] == 1
        if t != s and res[t, RES_TOTAL] > best:
            best = res[t, RES_TOTAL]
    share = 1.0 / winners if res[s, RES_RANK] == 1 else 0.0
    return share, res[s, RES_TOTAL] - best
