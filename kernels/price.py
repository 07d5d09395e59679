"""Pricing: the purchase rows of the (card, action) pairs the rules find legal.

kernels/turn.legal_moves walks a hand and decides, by the rules alone, which pairs a seat may
play; for each it calls this module, which writes the pair's move rows (layout.M_*) as the
decider's `listing` asks. A listing is one tuple (mode, w_left, w_right), chosen by the deciding
policy (kernels/decide.listing):

  LIST_EVERY    every affordable Pareto purchase of each pair, its default first (M_DEFAULT);
                the Python API's lists
  LIST_PRICED   one purchase a pair: the affordable one of least w_left * left + w_right *
                right coins (1, 1: the default purchase, docs/rules.md §4)
  LIST_LAZY     as LIST_PRICED with 1, 1, but a pair trade.surely_affordable says can be paid
                is listed UNPRICED, without asking the solver (`price_chosen` prices the one
                chosen): the random policy needs the pairs and the drawn one's purchase only
  LIST_COMPACT  as LIST_PRICED, but the stage and the discard are listed once each as template
                rows for every card of the hand (M_SLOT = M_CARD = EVERY_CARD): the heuristic
                values them alike for every card but for its denial. Not for the Free City,
                which may discard only what it can neither build nor stage (`for_city`)

Affordability is the one rule priced here: a pair that pays is legal exactly when the solver
finds a purchase its coins cover, so the rules hand such pairs over and this module lists them
or not. The rules and the pricing share one walk of the hand (docs/architecture.md, "The rules,
the pricing and the policies", on the split measured against it).

The profile twin passes its `clock` (the scratch record's timing array; None in production) and
gets the solver's cycles added to clock[TRADING] at its one call site (`_solve`).
"""

import numpy as np
from numba import njit

from wsim.codes import ACT_BUILD, ACT_DISCARD, ACT_STAGE
from wsim.kernels.city import left_of, purchase, right_of, stage_entity
from wsim.kernels.layout import (E_COIN_COST, EVERY_CARD, F_BOARD, F_COINS, F_SIDE, F_STAGES, LIST_COMPACT, LIST_EVERY,
                                 LIST_LAZY, LIST_PRICED, M_ACTION, M_CARD, M_COIN_COST, M_COPY3, M_DEFAULT, M_LEFT,
                                 M_RIGHT, M_SLOT, UNPRICED)
from wsim.kernels.schema import MAX_OPTIONS
from wsim.kernels.timing import TRADING, cycles
from wsim.kernels.trade import surely_affordable


@njit(cache=True, inline="always")
def for_city(listing, free_city):
    """The listing as it applies to seat s: a compact one lists the Free City's rows in full."""
    mode, w_left, w_right = listing
    if free_city and mode == LIST_COMPACT:
        return np.int64(LIST_PRICED), w_left, w_right
    return listing


@njit(cache=True, inline="always")
def _solve(ent, seat, n, s, e, opts, clock):
    """The trading solver's purchases of entity e for seat s into opts (city.purchase), their
    cycles added to clock[TRADING] in the profile twin. clock is None in production: numba
    drops the timing before typing, so production code holds none of it (a run-time flag
    tested here cost random games 2.6% more instructions)."""
    t0 = np.uint64(0) if clock is None else cycles()
    k = purchase(ent, seat, n, s, e, opts)  # one inlined copy of the solver's entry, not two
    if clock is not None:
        clock[TRADING] += cycles() - t0
    return k


@njit(cache=True, inline="always")
def add_row(moves, m, slot, card, action, left, right, coin_cost, copy3, default):
    """Write move row m; returns m + 1."""
    moves[m, M_SLOT] = slot
    moves[m, M_CARD] = card
    moves[m, M_ACTION] = action
    moves[m, M_LEFT] = left
    moves[m, M_RIGHT] = right
    moves[m, M_COIN_COST] = coin_cost
    moves[m, M_COPY3] = copy3
    moves[m, M_DEFAULT] = default
    return m + 1


@njit(cache=True, inline="always")
def _preferred(opts, at, n_opts, budget, w_left, w_right):
    """Index in opts[at:at + n_opts] of the affordable purchase of least w_left * left + w_right *
    right coins (the first such), or -1 when none is affordable. The solver sorts options by total
    coins, then left coins, so the affordable ones come first, and weights 1, 1 keep the first:
    the default purchase."""
    best = -1
    best_cost = 0
    for i in range(at, at + n_opts):
        if opts[i, 0] + opts[i, 1] > budget:
            break
        cost = w_left * opts[i, 0] + w_right * opts[i, 1]
        if best < 0 or cost < best_cost:
            best = i
            best_cost = cost
        if w_left == w_right and w_left >= 0:  # the totals only grow: the first is the least
            break
    return best


@njit(cache=True, inline="always")
def _add_purchases(moves, m, slot, card, action, opts, at, n_opts, budget, coin_cost, copy3, listing):
    """The affordable purchases in opts[at:at + n_opts] as rows: every one with LIST_EVERY (the
    first flagged M_DEFAULT), else only the one `_preferred` picks."""
    mode, w_left, w_right = listing
    if mode == LIST_EVERY:
        for i in range(at, at + n_opts):
            if opts[i, 0] + opts[i, 1] > budget:
                break
            m = add_row(moves, m, slot, card, action, opts[i, 0], opts[i, 1], coin_cost, copy3, 1 if i == at else 0)
        return m
    best = _preferred(opts, at, n_opts, budget, w_left, w_right)
    if best >= 0:
        m = add_row(moves, m, slot, card, action, opts[best, 0], opts[best, 1], coin_cost, copy3, 1)
    return m


@njit(cache=True, inline="always")
def add_paid_build(ent, seat, n, s, slot, c, moves, m, opts, listing, clock):
    """The rows of building card c (slot `slot`), whose coin cost seat s can pay, with its
    resources bought as the listing asks; none when no purchase is affordable."""
    coin_cost = ent[c, E_COIN_COST]
    budget = seat[s, F_COINS] - coin_cost
    if listing[0] == LIST_LAZY and surely_affordable(ent, c, seat, s, left_of(n, s), right_of(n, s), budget):
        return add_row(moves, m, slot, c, ACT_BUILD, UNPRICED, UNPRICED, coin_cost, 0, 1)
    n_opts = _solve(ent, seat, n, s, c, opts, clock)
    return _add_purchases(moves, m, slot, c, ACT_BUILD, opts, 0, n_opts, budget, coin_cost, 0, listing)


@njit(cache=True, inline="always")
def price_stage(ent, seat, n, s, e, opts, listing, clock):
    """Price seat s's next stage, entity e (it has a resource cost), once for every card of the
    hand: returns (its purchases kept in the upper half of opts, whether it is left UNPRICED).
    The cards' purchases use the lower half."""
    mode, w_left, w_right = listing
    coins = seat[s, F_COINS]
    if mode == LIST_LAZY and surely_affordable(ent, e, seat, s, left_of(n, s), right_of(n, s), coins):
        return 0, True
    n_stage = _solve(ent, seat, n, s, e, opts, clock)
    if n_stage > 0 and mode != LIST_EVERY:  # one purchase a pair: the preferred, the same for every card
        best = _preferred(opts, 0, n_stage, coins, w_left, w_right)
        n_stage = 1 if best >= 0 else 0
        if best > 0:
            opts[0, 0] = opts[best, 0]
            opts[0, 1] = opts[best, 1]
    for i in range(n_stage):
        opts[MAX_OPTIONS + i, 0] = opts[i, 0]
        opts[MAX_OPTIONS + i, 1] = opts[i, 1]
    return n_stage, False


@njit(cache=True, inline="always")
def add_stage(moves, m, slot, c, free, unpriced, n_stage, needs3, opts, coins, listing):
    """The rows of building the next stage with card c: free (it has no cost), unpriced, or
    from its n_stage purchases (price_stage). A compact listing's come once, as templates."""
    if listing[0] == LIST_COMPACT and c != EVERY_CARD:
        return m
    if free:
        return add_row(moves, m, slot, c, ACT_STAGE, 0, 0, 0, needs3, 1)
    if unpriced:
        return add_row(moves, m, slot, c, ACT_STAGE, UNPRICED, UNPRICED, 0, needs3, 1)
    return _add_purchases(moves, m, slot, c, ACT_STAGE, opts, MAX_OPTIONS, n_stage, coins, 0, needs3, listing)


@njit(cache=True, inline="always")
def add_discard(moves, m, slot, c, listing):
    """The row of discarding card c (a compact listing's comes once, as a template)."""
    if listing[0] == LIST_COMPACT and c != EVERY_CARD:
        return m
    return add_row(moves, m, slot, c, ACT_DISCARD, 0, 0, 0, 0, 1)


@njit(cache=True, inline="always")
def add_templates(moves, m, free, n_stage, needs3, opts, coins, listing):
    """A compact listing's template rows, after the cards' builds: the stage's (when it may be
    built) and the discard's, for every card of the hand."""
    if listing[0] != LIST_COMPACT:
        return m
    if free or n_stage > 0:
        m = add_stage(moves, m, EVERY_CARD, EVERY_CARD, free, False, n_stage, needs3, opts, coins, listing)
    return add_discard(moves, m, EVERY_CARD, EVERY_CARD, listing)


@njit(cache=True, inline="always")
def price_chosen(ent, board, seat, n, s, moves, j, opts, clock):
    """Give row j, listed UNPRICED by LIST_LAZY, its default purchase: the solver's first option
    (the least coins in all, then the least to the left), affordable by the test that left it
    unpriced."""
    if moves[j, M_ACTION] == ACT_STAGE:
        e = stage_entity(board, seat[s, F_BOARD], seat[s, F_SIDE], seat[s, F_STAGES])
    else:
        e = moves[j, M_CARD]
    _solve(ent, seat, n, s, np.int64(e), opts, clock)
    moves[j, M_LEFT] = opts[0, 0]
    moves[j, M_RIGHT] = opts[0, 1]
