"""The Free City's constrained re-deal: the hidden Free City plays of a 2-player game dealt only
cards the Free City could have played there (docs/rules.md §10).

At 2 players the Free City's rule tells a seat more than what it sees (kernels/hidden.py): when
the other player held the Free City card and the Free City discarded or built a stage (the seat
saw the action, not the card), the card was one the Free City could play so on the position of
that turn (a card a chain made free must be built; a discard only when neither a build nor the
stage was legal). The deals consistent with the view are then the arrangements of each group's
cards in which each such place of the age in play (at most 3, every other turn; kernels/hidden.py
finds them) holds a card that was legal there.

The position of turn u is public, and rebuilt (`rebuild_at`) from the cities now (cards in build
order, stage entities) and st.starts (each city's coins, card and stage counts at the start of
each turn, noted only at 2 players); legality is turn.legal_moves' own (`fc_could`). A group
holding such places is drawn by `draw_fc_plays`: every assignment of its cards (copies taken
apart, so each distinct deal counts as often as any other) to those places that legality allows
is enumerated, and one is drawn with one bounded draw (weighted in Age III by the ways to
complete its guilds); kernels/hidden.py then shuffles the rest of the group over its other
places, as it deals a group without such a place. Earlier ages are not constrained: the seat
remembers only their public part.
"""

import numpy as np
from numba import njit

from wsim.codes import ACT_BUILD_FREE
from wsim.kernels.city import add_card, add_entity
from wsim.kernels.deal import shuffle
from wsim.kernels.layout import (F_BOARD, F_CARDS, F_COINS, F_FREE_AGE, F_HAND, F_HAND_N, F_NCARDS, F_SIDE, F_STAGE_E,
                                 F_STAGES, G_AGE, G_FC, G_N, G_TURN, I_NEW, LIST_PRICED, M_ACTION, T_COINS, T_NCARDS,
                                 T_STAGES)
from wsim.kernels.rng import draw_below
from wsim.kernels.turn import legal_moves, start_city


@njit(cache=True, _nrt=False)
def rebuild_at(ent, board, st, u, city):
    """The three cities of a 2-player game as they stood at the start of turn u of this age, into
    `city` (rows as st.seat's, F_*): what the Free City's moves of that turn were legal in.

    Everything but coins is rebuilt from what the cities hold now, which only grows within an age:
    the board and side, the first T_NCARDS cards of F_CARDS (build order), the first T_STAGES
    stages (F_STAGE_E: their entities as built, Manneken Pis copies resolved), and Olympia A's free
    build of this age if the Free City declared it before turn u (st.hist); the coins are
    st.starts' (step._start_turn notes them). The city starts as a game starts it
    (turn.start_city), then takes each entity through add_card / add_entity, so its totals
    (production, sellable units, prices, powers, owned names) are the ones the kernels had then;
    only the order of its choice units may differ, which no legality test reads (the trading
    solver's options are a set); the behaviour counters (F_DISCARDS, F_CHAINED, F_COINS_PAID,
    F_COINS_RECEIVED) stay 0, which no rule reads. Returns False without a Free City, for a turn
    not reached this age, or when st.starts does not fit the cities (a state not reached by play)."""
    seat, gs, starts, hist = st.seat, st.gs, st.starts, st.hist
    fc = gs[G_FC]
    age = gs[G_AGE]
    if fc < 0 or u < 1 or u > gs[G_TURN]:  # st.starts holds the three cities of this age's turns only
        return False
    for s in range(gs[G_N]):  # an int32 seat, as in play: the city functions then compile once
        ncards = starts[u - 1, s, T_NCARDS]
        stages = starts[u - 1, s, T_STAGES]
        if ncards < 0 or ncards > seat[s, F_NCARDS] or stages < 0 or stages > seat[s, F_STAGES]:
            return False
        start_city(board, city, s, seat[s, F_BOARD], seat[s, F_SIDE])
        for i in range(ncards):
            add_card(ent, city, s, seat[s, F_CARDS + i])
        for k in range(stages):
            e = seat[s, F_STAGE_E + k]
            city[s, F_STAGE_E + k] = e
            if e >= 0:
                add_entity(ent, city, s, np.int64(e))
        city[s, F_STAGES] = stages
        city[s, F_COINS] = starts[u - 1, s, T_COINS]
    for r in range(u - 1):
        if hist[r, fc, 0] >= 0 and hist[r, fc, 1] == ACT_BUILD_FREE:
            city[fc, F_FREE_AGE] = age  # legal_moves reads only whether it is this age
    return True


@njit(cache=True, _nrt=False)
def fc_could(ent, board, st, sc, card, action):
    """Whether the Free City, in the cities of sc.city (rebuild_at), could play `card` with
    `action`: the kernels' own rule, turn.legal_moves with free_city (docs/rules.md §10: a card a
    chain makes free only builds; a discard only when no build, free build or stage is legal).
    Uses sc.moves and sc.opts."""
    city = sc.city
    gs = st.gs
    fc = gs[G_FC]
    city[fc, F_HAND] = card
    city[fc, F_HAND_N] = 1
    moves = sc.moves
    # the flag computed and the listing typed, not literal constants: literals would compile
    # legal_moves (and the trading solver under it) a second time
    free_city = fc >= 0
    listing = (np.int64(LIST_PRICED), np.int64(1), np.int64(1))
    m = legal_moves(ent, board, city, gs, sc, fc, np.int64(fc), np.int64(-1), free_city, listing, None)
    for i in range(m):
        if moves[i, M_ACTION] == action:
            return True
    return False


@njit(cache=True, inline="always")
def _choose(n, k):
    """n choose k (0 outside 0 <= k <= n), saturating at 2**40: a weight past 2**32 is refused
    anyway (draw_fc_plays)."""
    if k < 0 or k > n:
        return np.int64(0)
    out = np.int64(1)
    for i in range(k):
        out = out * (n - i) // (i + 1)
        if out > np.int64(1) << 40:
            return np.int64(1) << 40
    return out


@njit(cache=True, _nrt=False)
def _walk(ok, c, n_cand, n_fixed, g_need, g_unseen, target, pick):
    """The injective assignments of candidates to a group's c hidden Free City plays that ok
    allows (pick[i]: play i's candidate), in lexicographic order, each weighted by the ways to
    complete it into a whole deal of the group: C(g_unseen - gu, g_need - gu), gu the guilds
    drawn again (candidates from n_fixed on) among its picks (1 when no guild is drawn again).
    target < 0: returns the total weight; else stops at the first assignment where the running
    weight passes target, leaving it in pick[:c]."""
    total = np.int64(0)
    depth = np.int64(0)
    pick[0] = -1
    while depth >= 0:
        pick[depth] += 1
        j = pick[depth]
        if j >= n_cand:
            depth -= 1
            continue
        if ok[depth, j] == 0:
            continue
        taken = False
        for i in range(depth):
            if pick[i] == j:
                taken = True
        if taken:
            continue
        if depth + 1 < c:
            depth += 1
            pick[depth] = -1
            continue
        gu = np.int64(0)
        for i in range(c):
            if pick[i] >= n_fixed:
                gu += 1
        total += _choose(g_unseen - gu, g_need - gu)
        if 0 <= target < total:
            return total
    return total


@njit(cache=True, inline="always")
def _among(values, c, x):
    """Whether x is one of values[:c]."""
    for i in range(c):
        if values[i] == x:
            return True
    return False


@njit(cache=True, _nrt=False)
def _legal_table(ent, board, st, sc, c, n_cand):
    """sc.fc_ok[i, j]: 1 where the Free City could have played candidate j (sc.fc_cand) at the
    hidden play i of sc.fc_at, in the position rebuilt for its turn. False when a position
    cannot be rebuilt (a state not reached by play)."""
    cand, ok, at = sc.fc_cand, sc.fc_ok, sc.fc_at
    for i in range(c):
        u = at[1, i]
        if not rebuild_at(ent, board, st, u, sc.city):
            return False
        action = st.hist[u - 1, st.gs[G_FC], 1]
        for j in range(n_cand):
            if j > 0 and cand[j] == cand[j - 1]:  # a copy: the same answer
                ok[i, j] = ok[i, j - 1]
            else:
                ok[i, j] = 1 if fc_could(ent, board, st, sc, cand[j], action) else 0
    return True


@njit(cache=True, _nrt=False)
def draw_fc_plays(ent, board, st, sc, m, c, n_fixed, n_cand, g_need, key, counter):
    """Draw the cards of a group's c places that are Free City plays hidden from the seat
    (sc.fc_at's first c; the group is sc.group's m places and cards, canonical order):
    uniformly over the group's deals in which each of them was legal when it was played
    (docs/rules.md §10). Returns (counter, rest): the plays' cards written (I_NEW), the group's
    other places and the cards left for them in sc.group's first rest columns; (-1, 0) when no
    deal is (the state's record does not add up).

    The candidates (sc.fc_cand, copies taken apart: each distinct deal is then as many
    arrangements of candidates as any other) are the group's cards, its first n_fixed, then the
    guilds the seat has not seen (up to n_cand), of which the group holds g_need (Age III, for
    the cards the seat never saw). Every assignment of candidates to the c plays that the rebuilt
    positions allow (_legal_table; at most 3 plays, so they are enumerated) is drawn with the
    weight of its completions, one bounded draw (no rejection loop); the group's guilds not drawn
    for a play are then drawn among the unseen ones left."""
    group, deck, cand, ok, at, inst = sc.group, sc.deck, sc.fc_cand, sc.fc_ok, sc.fc_at, sc.inst
    g_unseen = n_cand - n_fixed
    if not _legal_table(ent, board, st, sc, c, n_cand):
        return np.int64(-1), np.int64(0)
    pick = at[2]
    total = _walk(ok, c, n_cand, n_fixed, g_need, g_unseen, np.int64(-1), pick)
    if total == 0:
        return np.int64(-1), np.int64(0)
    if total >= np.int64(1) << 32:  # draw_below's range; a data file with dozens of guilds
        raise ValueError("resample_hidden: too many possible worlds for the Free City's hidden plays (too many guilds)")
    _walk(ok, c, n_cand, n_fixed, g_need, g_unseen, draw_below(key, counter, total), pick)
    counter += 1
    for i in range(c):
        inst[at[0, i], I_NEW] = cand[pick[i]]
    # the rest of the group: its cards not drawn for the plays, and its places but theirs
    rest = np.int64(0)
    for j in range(n_fixed):
        if not _among(pick, c, j):
            group[1, rest] = cand[j]
            rest += 1
    if g_need > 0:
        left = np.int64(0)
        for j in range(n_fixed, n_cand):
            if not _among(pick, c, j):
                deck[left] = cand[j]
                left += 1
        counter = shuffle(deck, left, key, counter)
        for j in range(left - (g_unseen - g_need)):  # as many as the group's guilds not drawn above
            group[1, rest] = deck[j]
            rest += 1
    places = np.int64(0)
    for j in range(m):
        if not _among(at[0], c, group[0, j]):
            group[0, places] = group[0, j]
            places += 1
    return counter, rest
