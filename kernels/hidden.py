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

At 2 players the Free City's rule (docs/rules.md §10) tells the seat more: a Free City discard
or stage that the seat saw only as an action (`_fc_hidden`: at most 3, every other turn) held a
card the Free City could play so on that turn's position. A group holding such a place has those
places drawn by kernels/hidden_fc.py (the position rebuilt, legality turn.legal_moves' own, one
bounded draw over the legal assignments; `_candidates` names the cards they may hold), then the
rest of the group is shuffled over its other places; a group without one draws exactly as
before. Earlier ages are not constrained: the seat remembers only their public part.

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

from wsim.codes import ACT_BUILD, ACT_BUILD_FREE, ACT_DISCARD, ACT_STAGE, HAND_SIZE, PURPLE, TURNS_PER_AGE
from wsim.kernels.deal import deal_age, shuffle
from wsim.kernels.hidden_fc import draw_fc_plays, fc_could, rebuild_at
from wsim.kernels.layout import (C_COPY3, C_NEEDS3, C_ON, E_AGE, E_COPIES, E_KIND, F_CARDS, F_CHOSEN, F_CTR, F_HAND,
                                 F_NCARDS, G_AGE, G_FC, G_N, G_NCARDS, G_NTOOK, G_OPEN, G_TURN, I_CARD, I_GROUP, I_LIN,
                                 I_LOC, I_NEW)
from wsim.kernels.rng import STREAM_SEAT0, stream_key
from wsim.kernels.step import decider
from wsim.kernels.turn import controller_at

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
def _unseen_guilds(ent, st, inst, k, out, n):
    """Append to out[:n] every guild the seat has not seen (_known_guild), by card id; returns
    the new length: the guilds a card of the seat's group 0 may be in Age III (module docstring).
    Inlined: its two buffers (sc.deck, sc.fc_cand) are record fields of two shapes, so two types."""
    for c in range(np.int64(st.gs[G_NCARDS])):
        if ent[c, E_KIND] == PURPLE and not _known_guild(ent, st, inst, k, c):
            out[n] = c
            n += 1
    return n


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
def _deal_group(inst, group, m, key, counter):
    """group[1, :m]'s cards shuffled over the places group[0, :m] (I_NEW); returns the counter."""
    counter = shuffle(group[1], m, key, counter)
    for j in range(m):
        inst[group[0, j], I_NEW] = group[1, j]
    return counter


@njit(cache=True, _nrt=False)
def _candidates(ent, st, inst, k, m, g, group, cand):
    """The cards group g's hidden Free City plays may hold (hidden_fc.draw_fc_plays), into cand,
    copies taken apart: the group's cards; in Age III, for the cards the seat never saw, its
    non-guild cards and then every guild the seat has not seen, of which the group holds g_need.
    Returns (n_fixed, n_cand, g_need): the group's own candidates first, all of them, and g_need."""
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
        n_cand = _unseen_guilds(ent, st, inst, k, cand, n_fixed)
    return n_fixed, n_cand, g_need


@njit(cache=True, _nrt=False)
def _shuffle_groups(ent, board, st, sc, inst, k, n_fc, key, counter):
    """Deal each group's hidden cards again over the group's places (I_NEW); returns the counter,
    or -1 when the state's record does not add up. The n_fc Free City plays hidden from the seat
    (sc.fc_at) bind their groups (hidden_fc.draw_fc_plays); a group without one draws as it always did."""
    group, deck, at = sc.group, sc.deck, sc.fc_at
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
        if c > 0:  # the plays' cards drawn first, then the rest of the group over its other places
            n_fixed, n_cand, g_need = _candidates(ent, st, inst, k, m, g, group, sc.fc_cand)
            counter, m = draw_fc_plays(ent, board, st, sc, m, c, n_fixed, n_cand, g_need, key, counter)
            if counter < 0:
                return counter
        elif g == NEVER_SEEN and st.gs[G_AGE] == 3:  # its guilds: any the seat has not seen
            unseen = _unseen_guilds(ent, st, inst, k, deck, np.int64(0))
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
