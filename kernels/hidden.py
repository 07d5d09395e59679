"""The information state: resample_hidden deals again every card one seat cannot see.

What a seat sees (docs/rules.md §2): every city, its own hand, the hands it has held this age, the
cards publicly built, and public counts (hand sizes, the discard pile's size, the stages built).
It does not see other hands, the discard pile's cards, the cards tucked under stages, the Free
City's pile, the later ages' deal, or the choices other seats made this turn.

How: the cards of the current age are followed from the deal to now (`_track`) with the
state's record of this age's plays (st.hist, st.took). Each card gets a group from the seat's
point of view: group t > 0 if the seat last saw it in its hand at turn t and it is hidden now
(still in that hand, which has moved on, or discarded or tucked from it since by a seat that
did not show it), group 0 if the seat never saw it this age. The seat knows each group's cards
as a multiset and where the group's places are, not which card is in which place: so every
deal consistent with what it sees is one arrangement of each group's cards over that group's
places, and a uniform draw over those deals is one uniform shuffle per group. In Age III the
guilds of group 0 are drawn again among the guilds the seat has not seen (the deck's N + 2 are
a uniform choice). Earlier ages: the seat remembers only their public part (§2: the hands of
this age), so their hidden cards (the deck less what cities hold) are shuffled and as many as
the pile holds of that age go back to the pile, the rest being under stages or face down.
Later ages are dealt again from their whole decks (`deal.deal_age`).

At 2 players the Free City's rule (docs/rules.md §10) tells the seat more: when the other player held
the Free City card and the Free City discarded or built a stage (the seat saw the action, not
the card), the card was one the Free City could play so on the position of that turn (a card a
chain made free must be built; a discard only when neither a build nor the stage was legal).
The deals consistent with the view are then the arrangements of each group's cards in which
each such place of the age in play (`_fc_hidden`: at most 3, every other turn) holds a card
that was legal there. The position of turn u is public, and rebuilt (`rebuild_at`) from the
cities now (cards in build order, stage entities) and st.starts (each city's coins, card and
stage counts at the start of each turn, noted only at 2 players); legality is turn.legal_moves'
own (`fc_could`). A group holding such places is drawn by `_constrained`: every assignment of
its cards (copies taken apart, so each distinct deal counts as often as any other) to those
places that legality allows is enumerated, one is drawn with one bounded draw (weighted in Age
III by the ways to complete its guilds), and the rest of the group is shuffled over its other
places; a group without one draws exactly as before. Earlier ages are not constrained: the seat
remembers only their public part.

The draw depends on what the seat sees and on `key`, never on how the hidden cards happen to
lie: each group's cards are taken in card id order and its places in an order the seat can name
(`_canonical`; the Free City's constrained places by turn), and the hands dealt again are kept
in card id order. Two states the seat cannot tell apart give the same world for the same key
(tests/test_step_api.py checks the rollout's decisions that way).

The result is a possible world, self-consistent: the age's deal (st.dealt) and the hidden cards
of st.hist are rewritten to match, the choices of this turn by seats the seat does not decide
for are undone (pending again), and every other seat's random stream is keyed on the draw's own
key, which the caller derives from the seat's stream (a seat cannot know the numbers its
opponents will draw). Draws come from stream `key` only: the result depends on nothing the
seat cannot see, nor on threads.

One simplification, documented in docs/choices.md: a discard build that takes a card of this
age from the pile is taken to remove a hidden discard of that card (it matters only when the
same card was also discarded where the seat saw it).
"""

import numpy as np
from numba import njit

from wsim.codes import (ACT_BUILD, ACT_BUILD_FREE, ACT_DISCARD, ACT_STAGE, HAND_SIZE, PURPLE,
                        TURNS_PER_AGE)
from wsim.kernels.city import add_card, add_entity, set_prices
from wsim.kernels.deal import deal_age, shuffle
from wsim.kernels.layout import (B_RESOURCE, C_COPY3, C_NEEDS3, C_ON, E_AGE, E_COPIES, E_KIND, F_BOARD, F_CARDS,
                                 F_CHOSEN, F_COINS, F_COPY3, F_COUNT, F_CTR, F_FREE_AGE, F_HAND, F_HAND_N, F_NCARDS,
                                 F_PK_PROD, F_PK_SELL, F_PK_SELL_CAP, F_PROD, F_SELL, F_SIDE, F_STAGE_E, F_STAGES,
                                 G_AGE, G_FC, G_N, G_NCARDS, G_NTOOK, G_OPEN, G_TURN, I_CARD, I_GROUP, I_LIN, I_LOC,
                                 I_NEW, LIST_PRICED, MAX_STAGES, M_ACTION, T_COINS, T_NCARDS, T_STAGES)
from wsim.kernels.rng import STREAM_SEAT0, draw_below, stream_key
from wsim.kernels.step import decider
from wsim.kernels.trade import add_packed
from wsim.kernels.turn import controller_at, legal_moves

LOC_HAND, LOC_FC_PILE, LOC_PILE, LOC_TUCKED, LOC_KNOWN = range(5)  # inst's I_LOC
NEVER_SEEN = 0  # inst's I_GROUP for a card the seat has not seen this age
FC_PILE = -1  # inst's I_LIN for the Free City's pile


@njit(cache=True, inline="always")
def hand_of(gs, s, turn):
    """The hand seat s holds on `turn` of this age, named by the seat it was dealt to (hands pass
    left in Ages I and III, right in Age II; at 2 players the two players swap)."""
    step = turn - 1
    if gs[G_FC] >= 0:
        return s if step % 2 == 0 else 1 - s
    n = gs[G_N]
    if gs[G_AGE] == 2:
        return (s + step) % n
    return (s - step % n + n) % n


@njit(cache=True, _nrt=False)
def _play(inst, k, card, action, lin, known):
    """A card leaves hand `lin` (hist's play): shown (built, or seen by the seat because the seat
    played it) or hidden (discarded, tucked). Returns the inst row, -1 if no such card is there."""
    for i in range(k):
        if inst[i, I_LOC] == LOC_HAND and inst[i, I_LIN] == lin and inst[i, I_CARD] == card:
            if known or action == ACT_BUILD or action == ACT_BUILD_FREE:
                inst[i, I_LOC] = LOC_KNOWN
            elif action == ACT_DISCARD:
                inst[i, I_LOC] = LOC_PILE
            else:
                inst[i, I_LOC] = LOC_TUCKED
            return i
    return -1


@njit(cache=True, inline="always")
def _dealt_row(inst, k, card, lin, loc):
    """inst row k: a card as dealt (in hand `lin`, or the Free City's pile), not yet seen."""
    inst[k, I_CARD] = card
    inst[k, I_LIN] = lin
    inst[k, I_LOC] = loc
    inst[k, I_GROUP] = NEVER_SEEN
    return k + 1


@njit(cache=True, _nrt=False)
def _track(st, who, inst, play_at):
    """Follow this age's cards from the deal to now as seat who knows them (module docstring):
    fills inst's rows (I_*) and play_at (the row each play of hist moved); returns how many
    rows, or -1 when the state's record does not add up (a state not reached by play)."""
    gs, dealt, hist, took = st.gs, st.dealt, st.hist, st.took
    age = gs[G_AGE]
    now = gs[G_TURN]
    n = gs[G_N]
    fc = gs[G_FC]
    k = np.int64(0)  # not the literal 0: a callee would compile twice
    for s in range(n):  # the hands, then the Free City's pile: dealt's rows in order
        if s != fc:
            for j in range(HAND_SIZE):
                k = _dealt_row(inst, k, dealt[age - 1, s, j], s, LOC_HAND)
    first_fc = k
    if fc >= 0:
        for j in range(HAND_SIZE):
            k = _dealt_row(inst, k, dealt[age - 1, fc, j], FC_PILE, LOC_FC_PILE)
    for u in range(1, now + 1):
        if fc >= 0:  # the controller draws the pile's next card into its hand
            inst[first_fc + u - 1, I_LIN] = hand_of(gs, controller_at(age, u), u)
            inst[first_fc + u - 1, I_LOC] = LOC_HAND
        own_hand = hand_of(gs, who, u)
        for i in range(k):  # the seat sees its hand
            if inst[i, I_LOC] == LOC_HAND and inst[i, I_LIN] == own_hand:
                inst[i, I_GROUP] = u
        for row in range(u - 1, TURNS_PER_AGE + 1 if u == TURNS_PER_AGE else u):  # the 7th cards after turn 6
            for s in range(n):
                play_at[row, s] = -1
                if hist[row, s, 0] < 0:
                    continue
                holder = controller_at(age, u) if s == fc else s
                play_at[row, s] = _play(inst, k, hist[row, s, 0], hist[row, s, 1], hand_of(gs, holder, u),
                                        holder == who)
                if play_at[row, s] < 0:
                    return -1
        for t in range(gs[G_NTOOK]):  # a discard build shows the card it takes
            if took[t, 0] == u:
                for i in range(k):
                    if inst[i, I_LOC] == LOC_PILE and inst[i, I_CARD] == took[t, 1]:
                        inst[i, I_LOC] = LOC_KNOWN
                        break
    own_hand = hand_of(gs, who, now)
    for i in range(k):
        if inst[i, I_LOC] == LOC_HAND and inst[i, I_LIN] == own_hand:
            inst[i, I_LOC] = LOC_KNOWN
    return k


@njit(cache=True, _nrt=False)
def _known_guild(ent, st, inst, k, c):
    """Whether guild c is in a city or among the cards the seat has seen this age."""
    seat = st.seat
    for t in range(st.gs[G_N]):
        for i in range(seat[t, F_NCARDS]):
            if seat[t, F_CARDS + i] == c:
                return True
    for i in range(k):
        if inst[i, I_CARD] == c and (inst[i, I_LOC] == LOC_KNOWN or inst[i, I_GROUP] != NEVER_SEEN):
            return True
    return False


@njit(cache=True, inline="always")
def _place_key(inst, i):
    """The order of a hidden card's place that the seat can name: a hand (by the seat it was
    dealt to), the Free City's pile (by draw, the rows being in draw order), the discard pile,
    under a stage."""
    loc = inst[i, I_LOC]
    return loc * 64 + (inst[i, I_LIN] if loc == LOC_HAND else 0)


@njit(cache=True, _nrt=False)
def _canonical(inst, group, m):
    """Order a group's places by _place_key (rows as tie-break) and its cards by id: the draw then
    depends on what the seat sees, never on how the hidden cards happen to lie."""
    for a in range(1, m):
        row = group[0, a]
        j = a
        while j > 0 and (_place_key(inst, group[0, j - 1]) > _place_key(inst, row)
                         or (_place_key(inst, group[0, j - 1]) == _place_key(inst, row) and group[0, j - 1] > row)):
            group[0, j] = group[0, j - 1]
            j -= 1
        group[0, j] = row
    for a in range(1, m):
        card = group[1, a]
        j = a
        while j > 0 and group[1, j - 1] > card:
            group[1, j] = group[1, j - 1]
            j -= 1
        group[1, j] = card


@njit(cache=True, _nrt=False)
def rebuild_at(ent, board, st, u, city):
    """The three cities of a 2-player game as they stood at the start of turn u of this age, into
    `city` (rows as st.seat's, F_*): what the Free City's moves of that turn were legal in.

    Everything but coins is rebuilt from what the cities hold now, which only grows within an age:
    the board and side, the first T_NCARDS cards of F_CARDS (build order), the first T_STAGES
    stages (F_STAGE_E: their entities as built, Manneken Pis copies resolved), and Olympia A's free
    build of this age if the Free City declared it before turn u (st.hist); the coins are
    st.starts' (step._start_turn notes them). The city starts as turn.reset_state starts one,
    then takes each entity through add_card / add_entity, so its totals (production, sellable
    units, prices, powers, owned names) are the ones the kernels had then; only the order of its
    choice units may differ, which no legality test reads (the trading solver's options are a
    set); the behaviour counters (F_DISCARDS, F_CHAINED, F_COINS_PAID, F_COINS_RECEIVED) stay 0,
    which no rule reads. Returns False without a Free City, for a turn not reached this age, or
    when st.starts does not fit the cities (a state not reached by play)."""
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
        for f in range(F_COUNT):
            city[s, f] = 0
        b = seat[s, F_BOARD]
        city[s, F_BOARD] = b
        city[s, F_SIDE] = seat[s, F_SIDE]
        city[s, F_COPY3] = -1  # read only when a stage is built: the built ones come as entities
        for k in range(MAX_STAGES):
            city[s, F_STAGE_E + k] = -1
        res = board[b, B_RESOURCE]
        if res >= 0:  # the board's resource, as reset_state gives it
            city[s, F_PROD + res] += 1
            city[s, F_SELL + res] += 1
            unit = np.int64(1) << (8 * res)
            add_packed(city, s, F_PK_PROD, unit)
            add_packed(city, s, F_PK_SELL, unit)
            add_packed(city, s, F_PK_SELL_CAP, unit)
        set_prices(city, s)
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


@njit(cache=True, _nrt=False)
def _fc_hidden(st, who, inst, play_at, at):
    """The Free City's plays of this age that seat who saw only as an action: a discard or a
    stage at a turn another seat controlled it, its card still hidden (not taken back by a
    discard build). Fills at[0, i] (the inst row) and at[1, i] (the turn), in turn order: an
    order the seat can name. Returns how many, -1 if more than a player can miss (who is then
    no player)."""
    gs, hist = st.gs, st.hist
    fc = gs[G_FC]
    c = np.int64(0)
    if fc < 0:
        return c
    for u in range(1, gs[G_TURN] + 1):
        a = hist[u - 1, fc, 1]
        if hist[u - 1, fc, 0] < 0 or controller_at(gs[G_AGE], u) == who or (a != ACT_DISCARD and a != ACT_STAGE):
            continue
        row = play_at[u - 1, fc]
        if inst[row, I_LOC] == LOC_KNOWN:
            continue
        if c == at.shape[1]:
            return -1
        at[0, c] = row
        at[1, c] = u
        c += 1
    return c


@njit(cache=True, _nrt=False)
def fc_real_plays(ent, board, st, sc, who):
    """(checked, illegal): the Free City's plays hidden from seat who (_fc_hidden) and how many
    of them the rebuilt position says the Free City could not have made with the card the
    state holds there; (-1, -1) when the state's record does not add up. For the tests: the
    real world must pass (tests/test_hidden.py), or rebuild_at is wrong."""
    inst = sc.inst
    k = _track(st, who, inst, sc.play_at)
    if k < 0:
        return -1, -1
    c = _fc_hidden(st, who, inst, sc.play_at, sc.fc_at)
    if c < 0:
        return -1, -1
    illegal = np.int64(0)
    for i in range(c):
        u = sc.fc_at[1, i]
        if not rebuild_at(ent, board, st, u, sc.city):
            return -1, -1
        if not fc_could(ent, board, st, sc, inst[sc.fc_at[0, i], I_CARD], st.hist[u - 1, st.gs[G_FC], 1]):
            illegal += 1
    return c, illegal


@njit(cache=True, inline="always")
def _choose(n, k):
    """n choose k (0 outside 0 <= k <= n), saturating at 2**40: a weight past 2**32 is refused
    anyway (_constrained)."""
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
def _deal_group(inst, group, m, key, counter):
    """group[1, :m]'s cards shuffled over the places group[0, :m] (I_NEW); returns the counter."""
    counter = shuffle(group[1], m, key, counter)
    for j in range(m):
        inst[group[0, j], I_NEW] = group[1, j]
    return counter


@njit(cache=True, _nrt=False)
def _constrained(ent, board, st, sc, inst, k, m, c, g, key, counter):
    """Deal group g (sc.group's m places and cards, canonical order) again when c of its places
    are Free City plays hidden from the seat (sc.fc_at's first c): uniformly over the
    deals in which each of them was legal when it was played (docs/rules.md §10). Returns the
    counter, or -1 when no deal is (the state's record does not add up).

    The cards are candidates, copies taken apart (each distinct deal is then as many
    arrangements of candidates as any other): the group's cards; in Age III, for the cards the
    seat never saw, its non-guild cards and then every guild the seat has not seen, of which the
    group holds g_need. Every assignment of candidates to the c plays that the rebuilt positions
    allow (at most 3 plays, so they are enumerated) is drawn with the weight of its completions,
    one bounded draw (no rejection loop); the rest of the group is then dealt as
    _shuffle_groups deals a group: its guilds drawn among the unseen ones left, its cards
    shuffled over its other places."""
    group, deck, cand, ok, at = sc.group, sc.deck, sc.fc_cand, sc.fc_ok, sc.fc_at
    n_fixed = np.int64(0)
    g_need = np.int64(0)
    for j in range(m):
        if g == NEVER_SEEN and st.gs[G_AGE] == 3 and ent[group[1, j], E_KIND] == PURPLE:
            g_need += 1
        else:
            cand[n_fixed] = group[1, j]
            n_fixed += 1
    n_cand = n_fixed
    if g_need > 0:  # the guilds it may hold: any the seat has not seen (module docstring)
        for x in range(np.int64(st.gs[G_NCARDS])):
            if ent[x, E_KIND] == PURPLE and not _known_guild(ent, st, inst, k, x):
                cand[n_cand] = x
                n_cand += 1
    g_unseen = n_cand - n_fixed
    for i in range(c):
        u = at[1, i]
        if not rebuild_at(ent, board, st, u, sc.city):
            return np.int64(-1)
        action = st.hist[u - 1, st.gs[G_FC], 1]
        for j in range(n_cand):
            if j > 0 and cand[j] == cand[j - 1]:  # a copy: the same answer
                ok[i, j] = ok[i, j - 1]
            else:
                ok[i, j] = 1 if fc_could(ent, board, st, sc, cand[j], action) else 0
    pick = at[2]
    total = _walk(ok, c, n_cand, n_fixed, g_need, g_unseen, np.int64(-1), pick)
    if total == 0:
        return np.int64(-1)
    if total >= np.int64(1) << 32:  # draw_below's range; a data file with dozens of guilds
        raise ValueError("resample_hidden: too many possible worlds for the Free City's hidden plays (too many guilds)")
    _walk(ok, c, n_cand, n_fixed, g_need, g_unseen, draw_below(key, counter, total), pick)
    counter += 1
    for i in range(c):
        inst[at[0, i], I_NEW] = cand[pick[i]]
    # the rest of the group: its cards not drawn for the plays, and its places but theirs
    rest = np.int64(0)
    for j in range(n_fixed):
        used = False
        for i in range(c):
            if pick[i] == j:
                used = True
        if not used:
            group[1, rest] = cand[j]
            rest += 1
    if g_need > 0:
        left = np.int64(0)
        for j in range(n_fixed, n_cand):
            used = False
            for i in range(c):
                if pick[i] == j:
                    used = True
            if not used:
                deck[left] = cand[j]
                left += 1
        counter = shuffle(deck, left, key, counter)
        for j in range(left - (g_unseen - g_need)):  # as many as the group's guilds not drawn above
            group[1, rest] = deck[j]
            rest += 1
    places = np.int64(0)
    for j in range(m):
        row = group[0, j]
        constrained = False
        for i in range(c):
            if at[0, i] == row:
                constrained = True
        if not constrained:
            group[0, places] = row
            places += 1
    return _deal_group(inst, group, rest, key, counter)


@njit(cache=True, _nrt=False)
def _shuffle_groups(ent, board, st, sc, inst, k, n_fc, key, counter):
    """Deal each group's hidden cards again over the group's places (I_NEW); returns the counter,
    or -1 when the state's record does not add up. The n_fc Free City plays hidden from the seat
    (sc.fc_at) bind their groups (_constrained); a group without one draws as it always did."""
    group, deck, at = sc.group, sc.deck, sc.fc_at
    n_cards = np.int64(st.gs[G_NCARDS])
    for i in range(k):
        inst[i, I_NEW] = inst[i, I_CARD]
    for g in range(TURNS_PER_AGE + 1):
        m = np.int64(0)
        for i in range(k):
            if inst[i, I_LOC] != LOC_KNOWN and inst[i, I_GROUP] == g:
                group[0, m] = i
                group[1, m] = inst[i, I_CARD]
                m += 1
        if m == 0:
            continue
        _canonical(inst, group, m)
        c = np.int64(0)  # the group's hidden Free City plays to the front of sc.fc_at, each part in turn order
        for i in range(n_fc):
            if inst[at[0, i], I_GROUP] == g:
                row, u = at[0, i], at[1, i]
                for j in range(i, c, -1):
                    at[0, j] = at[0, j - 1]
                    at[1, j] = at[1, j - 1]
                at[0, c] = row
                at[1, c] = u
                c += 1
        if c > 0:
            counter = _constrained(ent, board, st, sc, inst, k, m, c, g, key, counter)
            if counter < 0:
                return counter
            continue
        if g == NEVER_SEEN and st.gs[G_AGE] == 3:  # its guilds: any the seat has not seen
            unseen = 0
            for c in range(n_cards):
                if ent[c, E_KIND] == PURPLE and not _known_guild(ent, st, inst, k, c):
                    deck[unseen] = c
                    unseen += 1
            counter = shuffle(deck, unseen, key, counter)
            taken = 0
            for j in range(m):
                if ent[group[1, j], E_KIND] == PURPLE:
                    group[1, j] = deck[taken]
                    taken += 1
        counter = _deal_group(inst, group, m, key, counter)
    return counter


@njit(cache=True, _nrt=False)
def _write_back(st, who, inst, k, play_at):
    """The new cards into the state: other hands, the Free City's pile, the discard pile, and
    this age's deal and plays, so that the state stays one possible world. A card seen at turn
    t keeps its path up to t (the seat saw it); its group's cards trade only what happened to
    them after t: their places now and the hidden plays that took them. A card never seen
    trades its whole path, its place in the deal included."""
    seat, pile, gs, dealt, hist = st.seat, st.pile, st.gs, st.dealt, st.hist
    age = gs[G_AGE]
    now = gs[G_TURN]
    n = gs[G_N]
    fc = gs[G_FC]
    for i in range(k):
        if inst[i, I_LOC] == LOC_PILE:
            pile[inst[i, I_CARD]] -= 1
    for i in range(k):
        if inst[i, I_LOC] == LOC_PILE:
            pile[inst[i, I_NEW]] += 1
    for s in range(n):
        if s == fc or s == who:
            continue
        lin = hand_of(gs, s, now)
        m = np.int64(0)
        for i in range(k):
            if inst[i, I_LOC] == LOC_HAND and inst[i, I_LIN] == lin:
                # in card id order: the hand's order would otherwise tell how the cards lay
                j = m
                while j > 0 and seat[s, F_HAND + j - 1] > inst[i, I_NEW]:
                    seat[s, F_HAND + j] = seat[s, F_HAND + j - 1]
                    j -= 1
                seat[s, F_HAND + j] = inst[i, I_NEW]
                m += 1
    row = 0
    for s in range(n):  # this age's deal (row order of _track): only cards the seat never saw moved
        if s == fc:
            continue
        for j in range(HAND_SIZE):
            if inst[row, I_GROUP] == NEVER_SEEN:
                dealt[age - 1, s, j] = inst[row, I_NEW]
            row += 1
    if fc >= 0:
        for j in range(HAND_SIZE):
            if inst[row + j, I_GROUP] == NEVER_SEEN:
                dealt[age - 1, fc, j] = inst[row + j, I_NEW]
    for u in range(TURNS_PER_AGE + 1):  # every play recorded is one _track followed
        for s in range(n):
            if hist[u, s, 0] >= 0:
                hist[u, s, 0] = inst[play_at[u, s], I_NEW]


@njit(cache=True, _nrt=False)
def _earlier_ages(ent, st, deck, key, counter):
    """Ages before this one: their hidden cards (the deck less the cities' cards) shuffled, and
    as many as the pile holds of each age put back in the pile; returns the counter."""
    seat, pile, gs = st.seat, st.pile, st.gs
    n = gs[G_N]
    n_cards = np.int64(gs[G_NCARDS])
    for a in range(1, gs[G_AGE]):
        in_pile = 0
        size = 0
        for c in range(n_cards):
            if ent[c, E_AGE] == a and ent[c, E_KIND] != PURPLE:
                in_pile += pile[c]
                pile[c] = 0
                for _ in range(ent[c, E_COPIES + n]):
                    deck[size] = c
                    size += 1
        for t in range(n):
            for i in range(seat[t, F_NCARDS]):
                c = seat[t, F_CARDS + i]
                if ent[c, E_AGE] == a:
                    for j in range(size):  # one copy of c leaves the hidden cards
                        if deck[j] == c:
                            deck[j] = deck[size - 1]
                            size -= 1
                            break
        counter = shuffle(deck, size, key, counter)
        for j in range(in_pile):
            pile[deck[j]] += 1
    return counter


@njit(cache=True, _nrt=False)
def _forget_others(seat, gs, who):
    """Undo the choices of this round that seat who cannot know (those of seats it does not
    decide for): they are pending again."""
    open_ = 0
    for t in range(gs[G_N]):
        if decider(gs, t) != who and seat[t, F_CHOSEN + C_ON] == 1:
            seat[t, F_CHOSEN + C_ON] = 0
        on = seat[t, F_CHOSEN + C_ON]
        if on == 0 or (on == 1 and seat[t, F_CHOSEN + C_NEEDS3] == 1 and seat[t, F_CHOSEN + C_COPY3] < 0):
            open_ += 1
    gs[G_OPEN] = open_


@njit(cache=True, _nrt=False)
def resample_hidden(ent, board, st, sc, who, key):
    """Deal again, in state st, every card seat who cannot see, uniformly over the deals
    consistent with what it sees (module docstring), drawing from stream `key`; undo the
    choices of this round who cannot know; key every other seat's policy stream on `key`.
    Uses the scratch record sc (its moves and opts too, at 2 players). Returns 0, or -1 (state
    unchanged) when st was not reached by play, so that its record of this age's plays does
    not add up (at 2 players: or no deal makes the Free City's hidden plays legal)."""
    k = _track(st, who, sc.inst, sc.play_at)
    if k < 0:
        return -1
    n_fc = _fc_hidden(st, who, sc.inst, sc.play_at, sc.fc_at)
    if n_fc < 0:
        return -1
    counter = _shuffle_groups(ent, board, st, sc, sc.inst, k, n_fc, key, np.int64(0))
    if counter < 0:
        return -1
    _write_back(st, who, sc.inst, k, sc.play_at)
    counter = _earlier_ages(ent, st, sc.deck, key, counter)
    gs = st.gs
    for a in range(gs[G_AGE] + 1, 4):
        counter = deal_age(ent, np.int64(gs[G_NCARDS]), np.int64(gs[G_N]), np.int64(a), st.dealt, sc.deck, key,
                           counter)
    _forget_others(st.seat, gs, who)
    for t in range(gs[G_N]):
        if t != who:
            st.keys[t] = stream_key(key, 0, STREAM_SEAT0 + t)
            st.seat[t, F_CTR] = 0
    return 0
