"""A game as a state machine of decision points, at kernel speed: the step-level API.

    init_game   deal and set up game (seed, game) in a state record
    pending     which seats owe which decision now (DEC_MOVE, DEC_SEVENTH, DEC_COPY3, DEC_DISCARD)
    legal       the legal options of one seat's decision (moves rows, layout.M_*)
    apply       record one decision; when the last one the game waits for is in, resolve and
                run the game on to the next decision point, or to the end of a turn 6
    end_age     after a turn 6 (phase PH_AGE_END, nothing pending): military, then the next
                age's deal, or the end of the game
    clone_state copy a state into another (search: play a copy out, keep the original)
    final       the results row of every seat once the game is over

A game's state is one record `st` (layout.STATE: kernels/schema.py declares its regions, and
layout.py's docstring lists them with every field). The step functions take the record and name its arrays at entry; the helpers below them take the arrays they use.

Decisions follow docs/rules.md §9: every seat's turn move is decided on the state at the start of the
turn (pending lists them all; none is resolved until the last is applied), a Manneken Pis A
stage-3 neighbour right after the move that builds it, the 7th cards on the state after step 4,
and the discard builds one at a time in their resolution order (Halicarnassus before Manneken
Pis copies, then by seat). A 7th card and a discard build may be declined (a last option whose
M_ACTION is DECLINE); a discard build with no legal card is no decision: it is logged as taking
nothing. Seats may decide in any order: each draws from its own random stream.
"""

import numpy as np
from numba import njit

from wsim.codes import (FC_CITIES, FC_PLAYERS, FC_SEAT, COPY_LEFT, COPY_RIGHT, DISCARD_BUILD, HAND_SIZE, MOVE, POW_DISCARD_BUILD, POW_SEVENTH,
                        SEVENTH, TURNS_PER_AGE)
from wsim.kernels.city import add_card, coins_when_built, left_of, owns_name, right_of, stage_source
from wsim.kernels.deal import deal_game
from wsim.kernels.layout import (DECLINE, NO_CARD, PH_AGE_END, C_ACTION, C_CARD, C_COIN_COST, C_COPY3, C_LEFT, C_NEEDS3, C_ON, C_RIGHT,
                                 C_SLOT, E_NAME_ID, E_POWER, F_BOARD, F_CARDS, F_CHOSEN, F_COINS, F_HAND, F_HAND2,
                                 F_HAND_N, F_NCARDS, F_POWERS, F_SHIELDS, F_SIDE, F_STAGES, G_AGE, G_BUILT,
                                 G_COUNT, G_DBQ, G_FC, G_DBQ_N, G_DBQ_POS, G_N, G_NBUILT, G_NCARDS, G_NTOOK, G_OPEN, G_PHASE, G_TURN, M_ACTION,
                                 M_CARD, M_COIN_COST, M_COPY3, M_DEFAULT, M_LEFT, M_RIGHT, M_SLOT, DEC_COPY3,
                                 DEC_DISCARD, DEC_MOVE, DEC_SEVENTH, PH_DISCARD, PH_MOVE, PH_OVER, PH_SEVENTH,
                                 F_CHAINED, F_COINS_PAID, F_COINS_RECEIVED, F_DISCARDS, RES_BOARD, RES_CHAINED,
                                 RES_COINS, RES_COINS_PAID, RES_COINS_RECEIVED, RES_DISCARDS, RES_NCARDS,
                                 RES_SHIELDS, RES_SIDE, RES_STAGES, T_COINS,
                                 T_NCARDS, T_STAGES)
from wsim.kernels.score import rank_seats, score_seat
from wsim.kernels.turn import fc_controller, legal_moves, log_event, military, reset_state, resolve


@njit(cache=True, inline="always")
def _start_age(st, age):
    """Deal age `age`'s hands (the Free City's pile stays in dealt) and forget the last age's plays."""
    seat, gs, dealt, hist = st.seat, st.gs, st.dealt, st.hist
    n = gs[G_N]
    for u in range(hist.shape[0]):
        for s in range(hist.shape[1]):
            hist[u, s, 0] = -1
            hist[u, s, 1] = -1
    gs[G_NTOOK] = 0
    for s in range(n):
        if s == gs[G_FC]:  # the Free City has no hand: its pile stays in dealt
            seat[s, F_HAND_N] = 0
            continue
        for j in range(HAND_SIZE):
            seat[s, F_HAND + j] = dealt[age - 1, s, j]
        seat[s, F_HAND_N] = HAND_SIZE
    gs[G_AGE] = age
    _start_turn(seat, gs, dealt, st.starts, 1)


@njit(cache=True, inline="always")
def _start_turn(seat, gs, dealt, starts, turn):
    """Set the game at the first decision of turn `turn`; at 2 players, draw the Free City's card
    and note in `starts` (STATE's) what kernels/hidden_fc.py cannot rebuild of this turn's position."""
    gs[G_TURN] = turn
    gs[G_PHASE] = PH_MOVE
    gs[G_NBUILT] = 0
    gs[G_OPEN] = gs[G_N]
    for s in range(gs[G_N]):
        seat[s, F_CHOSEN + C_ON] = 0
    fc = gs[G_FC]
    if fc >= 0:  # the controller draws the Free City pile's next card into its hand
        ctrl = fc_controller(gs)
        seat[ctrl, F_HAND + seat[ctrl, F_HAND_N]] = dealt[gs[G_AGE] - 1, fc, turn - 1]
        seat[ctrl, F_HAND_N] += 1
        # the cities' coins, card and stage counts now: with the cards in build order and the
        # stages' entities, they give back the position the Free City's moves of this turn are
        # legal in, which a re-deal must respect (docs/rules.md §10); 3-7 players skip it
        for s in range(gs[G_N]):
            starts[turn - 1, s, T_COINS] = seat[s, F_COINS]
            starts[turn - 1, s, T_NCARDS] = seat[s, F_NCARDS]
            starts[turn - 1, s, T_STAGES] = seat[s, F_STAGES]


@njit(cache=True, _nrt=False)
def init_game(ent, board, n_cards, n, seed, game, board_spec, side_spec, promo, st, sc):
    """Deal game (seed, game) of n players into state st and set it at the first decision
    point (Age I, turn 1). Two players play the Free City variant (docs/rules.md §10): three cities,
    dealt as for three players, the Free City at seat codes.FC_SEAT with the third hand as its
    pile. The deal uses the scratch record sc (its deck, pool and bs).
    """
    seat, keys, pile, gs, dealt = st.seat, st.keys, st.pile, st.gs, st.dealt
    bs = sc.bs
    cities = FC_CITIES if n == FC_PLAYERS else n
    deal_game(ent, board, n_cards, cities, seed, game, board_spec, side_spec, promo, dealt, sc)
    reset_state(board, seat, keys, pile, bs, cities, seed, game)
    for i in range(G_COUNT):
        gs[i] = 0
    gs[G_N] = cities
    gs[G_NCARDS] = n_cards
    gs[G_FC] = FC_SEAT if n == FC_PLAYERS else -1
    _start_age(st, 1)


@njit(cache=True, inline="always")
def _decided(seat, s):
    """Whether seat s's choice this round is complete (its stage-3 neighbour included)."""
    return seat[s, F_CHOSEN + C_ON] == 1 and (seat[s, F_CHOSEN + C_NEEDS3] == 0 or seat[s, F_CHOSEN + C_COPY3] >= 0)


@njit(cache=True, inline="always")
def decider(gs, s):
    """The seat whose policy takes seat s's decisions: s itself, or for the Free City the seat
    that holds the Free City card this turn."""
    return fc_controller(gs) if s == gs[G_FC] else s


@njit(cache=True, inline="always")
def pending(st, out):
    """Fill out[i] = (seat, decision kind, deciding seat) for every decision the game waits
    for; returns how many (0 once the game is over). The Free City's move is pending once its
    controller's own move is complete (it is chosen from the cards the controller has left)."""
    seat, gs = st.seat, st.gs
    k = 0
    phase = gs[G_PHASE]
    if phase == PH_DISCARD:
        s = gs[G_DBQ + gs[G_DBQ_POS]]
        out[0, 0] = s
        out[0, 1] = DEC_DISCARD
        out[0, 2] = decider(gs, s)
        return 1
    if phase == PH_OVER or phase == PH_AGE_END:
        return 0
    kind = DEC_MOVE if phase == PH_MOVE else DEC_SEVENTH
    fc = gs[G_FC]
    for s in range(gs[G_N]):
        on = seat[s, F_CHOSEN + C_ON]
        if on == 0 and (s != fc or _decided(seat, fc_controller(gs))):
            out[k, 0] = s
            out[k, 1] = kind
            out[k, 2] = decider(gs, s)
            k += 1
        elif on == 1 and seat[s, F_CHOSEN + C_NEEDS3] == 1 and seat[s, F_CHOSEN + C_COPY3] < 0:
            out[k, 0] = s
            out[k, 1] = DEC_COPY3
            out[k, 2] = decider(gs, s)
            k += 1
    return k


@njit(cache=True, inline="always")
def _add_option(moves, m, card, action, copy3):
    """A row that is not a (card, action, purchase) move: a pile card, a neighbour, a decline."""
    for f in range(moves.shape[1]):
        moves[m, f] = 0
    moves[m, M_SLOT] = NO_CARD
    moves[m, M_CARD] = card
    moves[m, M_ACTION] = action
    moves[m, M_COPY3] = copy3
    moves[m, M_DEFAULT] = 1
    return m + 1


@njit(cache=True, _nrt=False)
def _discard_options(ent, seat, pile, n_cards, s, moves):
    """The buildings seat s may take from the pile, once each (the Age I and Age II Loom are one
    building: the lower card id stands for it), card ids ascending; then the decline."""
    m = 0
    for c in range(n_cards):
        if pile[c] > 0 and not owns_name(ent, seat, s, c):
            listed = False
            for i in range(m):
                if ent[moves[i, M_CARD], E_NAME_ID] == ent[c, E_NAME_ID]:
                    listed = True
            if not listed:
                m = _add_option(moves, m, c, 0, 0)
    return _add_option(moves, m, NO_CARD, DECLINE, 0)


@njit(cache=True, inline="always")
def legal(ent, board, st, sc, s, kind, listing, clock):
    """The legal options of seat s's decision `kind` into sc.moves (rows M_*); returns how many.

    DEC_MOVE / DEC_SEVENTH: (card, action, purchase) moves (turn.legal_moves), their purchases as
    the decider's `listing` asks (kernels/price.py; `clock`: the profile twin's, else None); a 7th
    card's list ends with its decline (M_ACTION = DECLINE). DEC_COPY3: two rows, M_COPY3 =
    COPY_LEFT then COPY_RIGHT. DEC_DISCARD: one row per building in the pile (M_CARD, its lowest
    card id), then the decline (M_ACTION = DECLINE).
    """
    seat, gs = st.seat, st.gs
    moves = sc.moves
    if kind == DEC_MOVE or kind == DEC_SEVENTH:
        # one call site: the seat's own hand, or the Free City's from its controller's hand
        holder = np.int64(s)
        skip = np.int64(-1)
        free_city = kind == DEC_MOVE and s == gs[G_FC]
        if free_city:
            holder = np.int64(fc_controller(gs))
            skip = np.int64(seat[holder, F_CHOSEN + C_SLOT])
        m = legal_moves(ent, board, seat, gs, sc, s, holder, skip, free_city, listing, clock)
        return m if kind == DEC_MOVE else _add_option(moves, m, NO_CARD, DECLINE, 0)
    if kind == DEC_COPY3:
        m = _add_option(moves, 0, NO_CARD, 0, COPY_LEFT)
        return _add_option(moves, m, NO_CARD, 0, COPY_RIGHT)
    return _discard_options(ent, seat, st.pile, np.int64(gs[G_NCARDS]), s, moves)


@njit(cache=True, inline="always")
def set_choice(seat, s, moves, j):
    """Seat s's choice this round is turn move j of moves (its stage-3 neighbour still to come
    when the move needs one)."""
    seat[s, F_CHOSEN + C_ON] = 1
    seat[s, F_CHOSEN + C_SLOT] = moves[j, M_SLOT]
    seat[s, F_CHOSEN + C_CARD] = moves[j, M_CARD]
    seat[s, F_CHOSEN + C_ACTION] = moves[j, M_ACTION]
    seat[s, F_CHOSEN + C_LEFT] = moves[j, M_LEFT]
    seat[s, F_CHOSEN + C_RIGHT] = moves[j, M_RIGHT]
    seat[s, F_CHOSEN + C_COIN_COST] = moves[j, M_COIN_COST]
    seat[s, F_CHOSEN + C_NEEDS3] = moves[j, M_COPY3]
    seat[s, F_CHOSEN + C_COPY3] = -1


@njit(cache=True, inline="always")
def apply(ent, board, st, s, kind, moves, j, log):
    """Record seat s's decision `kind`: option j of its legal list `moves`. When it is the last
    decision the game waits for, resolve and go on to the next decision point.

    (The option is passed as (moves, j), not as the row moves[j]: numba builds an array object
    for a row view at every call, which costs more than the whole decision.)
    """
    seat, gs = st.seat, st.gs
    if kind == DEC_DISCARD:
        _take_from_pile(ent, st, s, np.int64(moves[j, M_CARD]), log)
        gs[G_DBQ_POS] += 1
        _run_discard_builds(ent, st, log)
        return
    if kind == DEC_COPY3:
        seat[s, F_CHOSEN + C_COPY3] = moves[j, M_COPY3]
        gs[G_OPEN] -= 1
    elif moves[j, M_ACTION] == DECLINE:  # a 7th card kept (discarded face down with the leftovers)
        seat[s, F_CHOSEN + C_ON] = -1
        gs[G_OPEN] -= 1
    else:
        set_choice(seat, s, moves, j)
        if moves[j, M_COPY3] != 1:  # else the round also waits for the stage-3 neighbour
            gs[G_OPEN] -= 1
    if gs[G_OPEN] == 0:
        _end_round(ent, board, st, log)


@njit(cache=True, _nrt=False)
def _end_round(ent, board, st, log):
    """Every decision of the round is in: log it, record it in hist, resolve it, then on to the
    next decision point."""
    seat, pile, gs, dealt = st.seat, st.pile, st.gs, st.dealt
    n = gs[G_N]
    age = gs[G_AGE]
    turn = gs[G_TURN]
    event = MOVE if gs[G_PHASE] == PH_MOVE else SEVENTH
    row = turn - 1 if gs[G_PHASE] == PH_MOVE else TURNS_PER_AGE
    for t in range(n):  # the log lists a round's moves in seat order
        if seat[t, F_CHOSEN + C_ON] == 1:
            st.hist[row, t, 0] = seat[t, F_CHOSEN + C_CARD]
            st.hist[row, t, 1] = seat[t, F_CHOSEN + C_ACTION]
            log_event(log, event, age, turn, t, seat[t, F_CHOSEN + C_CARD], seat[t, F_CHOSEN + C_ACTION],
                      seat[t, F_CHOSEN + C_LEFT], seat[t, F_CHOSEN + C_RIGHT], seat[t, F_CHOSEN + C_COPY3])
    resolve(ent, board, seat, pile, gs, n, age)
    if turn == TURNS_PER_AGE and gs[G_PHASE] == PH_MOVE:
        gs[G_OPEN] = 0
        for t in range(n):  # step 5: 7th cards, on the state after step 4
            if seat[t, F_HAND_N] > 0 and (seat[t, F_POWERS] >> POW_SEVENTH) & 1 == 1:
                seat[t, F_CHOSEN + C_ON] = 0
                gs[G_OPEN] += 1
            else:
                seat[t, F_CHOSEN + C_ON] = -1
        if gs[G_OPEN] > 0:
            gs[G_PHASE] = PH_SEVENTH
            return
    if turn == TURNS_PER_AGE:
        for t in range(n):  # leftovers and unplayed 7th cards: face down, no coins
            for j in range(seat[t, F_HAND_N]):
                pile[seat[t, F_HAND + j]] += 1
            seat[t, F_HAND_N] = 0
        if gs[G_FC] >= 0:  # and the Free City pile's last card
            pile[dealt[age - 1, gs[G_FC], TURNS_PER_AGE]] += 1
    _queue_discard_builds(ent, board, seat, gs)
    _run_discard_builds(ent, st, log)


@njit(cache=True, _nrt=False)
def _queue_discard_builds(ent, board, seat, gs):
    """Step 6's order: Halicarnassus (not a copy) before Manneken Pis copies, then by seat."""
    n = gs[G_N]
    q = 0
    for prio in range(2 if gs[G_NBUILT] > 0 else 0):  # most turns build no stage
        for s in range(n):
            for i in range(gs[G_NBUILT]):
                if gs[G_BUILT + 2 * i] != s:
                    continue
                e, copied = stage_source(ent, board, seat, n, s, gs[G_BUILT + 2 * i + 1])
                if e >= 0 and ent[e, E_POWER] == POW_DISCARD_BUILD and int(copied) == prio:
                    gs[G_DBQ + q] = s
                    q += 1
    gs[G_DBQ_N] = q
    gs[G_DBQ_POS] = 0


@njit(cache=True, _nrt=False)
def _take_from_pile(ent, st, s, card, log):
    """Seat s's discard build takes `card` (-1: nothing) from the pile, and hist's `took` notes it.
    Compiled once, not inlined: discard builds are rare, and each inlined copy cost compile time."""
    seat, pile, gs = st.seat, st.pile, st.gs
    log_event(log, DISCARD_BUILD, gs[G_AGE], gs[G_TURN], s, card, 0, 0, 0, -1)
    if card >= 0:
        st.took[gs[G_NTOOK], 0] = gs[G_TURN]
        st.took[gs[G_NTOOK], 1] = card
        gs[G_NTOOK] += 1
        pile[card] -= 1
        add_card(ent, seat, s, card)
        seat[s, F_COINS] += coins_when_built(ent, seat, gs[G_N], s, card)


@njit(cache=True, _nrt=False)
def _run_discard_builds(ent, st, log):
    """Go through the queued discard builds; stop at one with a choice, else end the turn."""
    seat, pile, gs, dealt = st.seat, st.pile, st.gs, st.dealt
    while gs[G_DBQ_POS] < gs[G_DBQ_N]:
        s = gs[G_DBQ + gs[G_DBQ_POS]]
        has_option = False
        for c in range(np.int64(gs[G_NCARDS])):
            if pile[c] > 0 and not owns_name(ent, seat, s, c):
                has_option = True
                break
        if has_option:
            gs[G_PHASE] = PH_DISCARD
            return
        _take_from_pile(ent, st, s, np.int64(-1), log)
        gs[G_DBQ_POS] += 1
    _end_turn(seat, gs, dealt, st.starts)


@njit(cache=True, _nrt=False)
def _end_turn(seat, gs, dealt, starts):
    """Step 7 and the next turn; after turn 6 the game waits for end_age."""
    n = gs[G_N]
    age = gs[G_AGE]
    turn = gs[G_TURN]
    if turn < TURNS_PER_AGE:  # step 7: pass hands (Age II to the right, else to the left)
        hn = seat[0, F_HAND_N]
        fc = gs[G_FC]
        for s in range(n):
            if s == fc:
                continue
            if fc >= 0:  # the two players swap hands
                src = 1 - s
            else:
                src = left_of(n, s) if age == 2 else right_of(n, s)
            for j in range(hn):
                seat[s, F_HAND2 + j] = seat[src, F_HAND + j]
        for s in range(n):
            if s != fc:
                for j in range(hn):
                    seat[s, F_HAND + j] = seat[s, F_HAND2 + j]
        _start_turn(seat, gs, dealt, starts, turn + 1)
        return
    gs[G_PHASE] = PH_AGE_END


@njit(cache=True, _nrt=False)
def end_age(st, log):
    """After an age's last turn: military (docs/rules.md §5), then the next age's hands or the end."""
    seat, gs = st.seat, st.gs
    age = gs[G_AGE]
    military(seat, gs[G_N], age, log)
    if age < 3:
        _start_age(st, age + 1)
    else:
        gs[G_PHASE] = PH_OVER


@njit(cache=True, _nrt=False)
def clone_state(st, into):
    """Copy state st into the one-record array `into` (layout.STATE): one copy."""
    into[0] = st


@njit(cache=True, _nrt=False)
def final(ent, st, res, cards):
    """Results of a finished game: res[n, RES_COUNT] (ranks included) and cards[n, MAX_CITY]."""
    seat, gs = st.seat, st.gs
    n = gs[G_N]
    for s in range(n):
        score_seat(ent, seat, n, s, res[s], cards[s])  # cards[s] is scratch until filled below
        res[s, RES_BOARD] = seat[s, F_BOARD]
        res[s, RES_SIDE] = seat[s, F_SIDE]
        res[s, RES_COINS] = seat[s, F_COINS]
        res[s, RES_SHIELDS] = seat[s, F_SHIELDS]
        res[s, RES_STAGES] = seat[s, F_STAGES]
        res[s, RES_NCARDS] = seat[s, F_NCARDS]
        res[s, RES_DISCARDS] = seat[s, F_DISCARDS]
        res[s, RES_CHAINED] = seat[s, F_CHAINED]
        res[s, RES_COINS_PAID] = seat[s, F_COINS_PAID]
        res[s, RES_COINS_RECEIVED] = seat[s, F_COINS_RECEIVED]
    rank_seats(res, n, gs[G_FC])
    for s in range(n):
        for i in range(seat[s, F_NCARDS]):
            cards[s, i] = seat[s, F_CARDS + i]
