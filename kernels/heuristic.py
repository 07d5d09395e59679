"""POLICY_HEURISTIC: a weighted evaluation of every legal option, from the seat's observation.

A move's value is a sum of features, each times a weight (the seat's parameter row, H_* below,
all in hundredths of a victory point; the shipped defaults are wsim/data/heuristic.json):

  point        points the entity would score now: printed points, its end-of-game count on
               the cities as they stand, the science points it adds; a count of the city's
               complete wonder (the second edition's Decorators Guild) while the wonder is not
               complete, in proportion to the stages built
  shield       per shield, times the military resolutions still to come (4 - age)
  flip         per neighbour whose strength the move's shields overtake (a defeat or a tie
               this age turned into a victory), times this age's victory token
  unit_new     per production unit of a resource the city does not produce, times (4 - age)
  unit_more    per production unit of a resource it already produces, times (4 - age)
  coin         per coin gained (coins when built, 3 for a discard) minus coins paid
  chain        per card of a later age the entity's name makes free, times the ages left
  discount     per trade discount gained (raw/manufactured goods, left/right), times (4 - age)
  stage        a wonder stage, on top of its entity's value
  free_build   Olympia's free build, times the ages in which it can still be used (the second
               edition's Olympia Day and Night powers the same: a free card an age)
  seventh      a 7th card, times the ages left
  discard_build  a discard build (the pile is hidden until then: flat, times the age)
  guild_copy   Olympia B's guild copy
  deny         per point the card would give the next player in the passing direction, when
               the move takes it out of the game (discard, stage)
  rival_coin   per coin paid to the neighbour with more points now (purchases choose the rival's
               neighbour last)

Every quantity comes from the tables and the observation (kernels/city.py accessors): no card
or wonder name appears here. `choice` plays the first best option in canonical order (no random
draw), from the compact listing `listing` asks for; `best_copy` picks Manneken Pis A's stage-3
neighbour with entity_value.
"""

import numpy as np
from numba import njit

from wsim.codes import (ACT_DISCARD, ACT_STAGE, COPY_LEFT, COPY_RIGHT, DISCARD_COINS, MILITARY_WIN, N_AGES,
                        POW_COPY_GUILD, POW_DISCARD_BUILD, POW_FIRST_OF_AGE, POW_FIRST_OF_COLOR, POW_FREE_BUILD,
                        POW_LAST_OF_AGE, POW_SEVENTH)
from wsim.effects import COUNT_COMPLETE
from wsim.kernels.city import coins_when_built, left_of, move_stage_source, policy_stage_source, right_of
from wsim.kernels.layout import (E_CHAINS_TO, E_CHOICE, E_DISCOUNT, E_POINTS_CAP, E_POINTS_PER, E_POWER, E_PROD_PK,
                                 E_SHIELDS, F_SIDE_STAGES,
                                 EVERY_CARD, F_DISC, F_HAND, F_HAND_N, F_NCARDS, F_PK_PROD, F_SHIELDS, F_STAGES, G_AGE,
                                 G_FC, LIST_COMPACT, M_ACTION, M_CARD, M_COIN_COST, M_COPY3, M_DEFAULT, M_LEFT,
                                 M_RIGHT, M_SLOT)
from wsim.kernels.score import points_and_science
from wsim.kernels.trade import bit_count, packed_sum, packed_support, read_packed, spread

HEURISTIC_KEYS = ("point", "science", "shield", "flip", "unit_new", "unit_more", "coin", "chain", "discount",
                  "stage", "free_build", "seventh", "discard_build", "guild_copy", "deny", "rival_coin")
(H_POINT, H_SCIENCE, H_SHIELD, H_FLIP, H_UNIT_NEW, H_UNIT_MORE, H_COIN, H_CHAIN, H_DISCOUNT, H_STAGE,
 H_FREE_BUILD, H_SEVENTH, H_DISCARD_BUILD, H_GUILD_COPY, H_DENY, H_RIVAL_COIN) = range(len(HEURISTIC_KEYS))
WIN_AGE1, WIN_AGE2, WIN_AGE3 = MILITARY_WIN


@njit(cache=True, inline="always")
def entity_value(ent, seat, n, s, e, params, who, age):
    """Heuristic value of entity e entering seat s's city now (weights: seat who's row)."""
    left_ages = N_AGES + 1 - age  # this age and the later ones
    points, science = points_and_science(ent, seat, n, s, e)
    v = params[who, H_POINT] * points + params[who, H_SCIENCE] * science
    # (most entities count nothing: the amount, already read for points, tests it first)
    if (ent[e, E_POINTS_PER] != 0 and ent[e, E_POINTS_PER + 1] == COUNT_COMPLETE
            and seat[s, F_STAGES] < seat[s, F_SIDE_STAGES]):
        v += params[who, H_POINT] * ent[e, E_POINTS_PER] * seat[s, F_STAGES] // seat[s, F_SIDE_STAGES]
    # Kind-dependent parts without branches (a decision values cards of every kind in turn, so
    # those branches were mostly mispredicted; heuristic games 3% faster: CHANGELOG.md,
    # History, sixth session of 2026-12-02).
    shields = ent[e, E_SHIELDS]
    v += params[who, H_SHIELD] * shields * left_ages
    strength = seat[s, F_SHIELDS]
    token = WIN_AGE1 if age == 1 else (WIN_AGE2 if age == 2 else WIN_AGE3)
    flips = 0  # neighbours whose strength the shields overtake (none without shields)
    for j in range(2):
        other = seat[left_of(n, s) if j == 0 else right_of(n, s), F_SHIELDS]
        flips += strength <= other < strength + shields
    v += params[who, H_FLIP] * token * flips
    have = packed_support(read_packed(seat, s, F_PK_PROD))  # the resources the city produces
    units = read_packed(ent, e, E_PROD_PK)
    more = packed_sum(units & (spread(have) * 0x7F))  # the units of resources it already has
    v += (params[who, H_UNIT_NEW] * (packed_sum(units) - more) + params[who, H_UNIT_MORE] * more) * left_ages
    choice = ent[e, E_CHOICE]  # a choice unit is new when it may give a resource the city lacks
    v += params[who, H_UNIT_NEW if choice & ~have != 0 else H_UNIT_MORE] * left_ages * (choice != 0)
    v += params[who, H_COIN] * coins_when_built(ent, seat, n, s, e)
    v += params[who, H_CHAIN] * ent[e, E_CHAINS_TO] * (left_ages - 1)
    v += params[who, H_DISCOUNT] * bit_count(ent[e, E_DISCOUNT] & ~seat[s, F_DISC]) * left_ages
    p = ent[e, E_POWER]
    if p == POW_FREE_BUILD or p == POW_FIRST_OF_COLOR or p == POW_LAST_OF_AGE:
        v += params[who, H_FREE_BUILD] * left_ages
    elif p == POW_FIRST_OF_AGE:  # from the next age's first card
        v += params[who, H_FREE_BUILD] * (left_ages - 1)
    elif p == POW_SEVENTH:
        v += params[who, H_SEVENTH] * left_ages
    elif p == POW_DISCARD_BUILD:
        v += params[who, H_DISCARD_BUILD] * age
    elif p == POW_COPY_GUILD:
        v += params[who, H_GUILD_COPY]
    return v


@njit(cache=True, _nrt=False)
def entity_value_compiled(ent, seat, n, s, e, params, who, age):
    """entity_value compiled once, for the sites that value one entity a decision (the next
    stage, a stage-3 neighbour's): inlined there it cost compile time and saved no run time."""
    return entity_value(ent, seat, n, s, e, params, who, age)


@njit(cache=True, inline="always")
def _size(seat, s):
    return seat[s, F_NCARDS] + seat[s, F_STAGES]


@njit(cache=True, inline="always")
def denial(ent, seat, gs, n, s, c):
    """Points card c would give the seat that receives this hand next (0 when none does)."""
    fc = gs[G_FC]
    if fc >= 0:
        nxt = 1 - s if s != fc else -1
    else:
        nxt = right_of(n, s) if gs[G_AGE] == 2 else left_of(n, s)
    if nxt < 0:
        return 0
    points, science = points_and_science(ent, seat, n, nxt, c)
    return points + science


@njit(cache=True, _nrt=False)
def stage_value(ent, board, seat, n, s, moves, i, params, who, age, copy3):
    """Heuristic value of building seat s's next stage (legal move i is one that does), its
    entity's value included (Manneken Pis A's stage 3: that of the copy of neighbour copy3,
    best_copy), denial excluded."""
    e, _ = move_stage_source(ent, board, seat, n, s, moves[i, M_COPY3], copy3)
    v = params[who, H_STAGE]
    if e >= 0:
        v += entity_value_compiled(ent, seat, n, np.int64(s), np.int64(e), params, who, np.int64(age))
    return v


@njit(cache=True, inline="always")
def rival_column(seat, n, s):
    """The moves column of the coins paid to seat s's rival (the neighbour whose city is larger,
    a proxy for its points), or -1 when both are as large."""
    left = _size(seat, left_of(n, s))
    right = _size(seat, right_of(n, s))
    return M_LEFT if left > right else (M_RIGHT if right > left else -1)


@njit(cache=True, inline="always")
def listing(seat, n, s, params, who):
    """The heuristic's listing (kernels/price.py): compact, one purchase a pair, weighted by what
    a coin paid to each neighbour costs in payment_value. Of a (card, action) pair's purchases
    the choice loop keeps the first of least w_left * left + w_right * right coins, so a list of
    that purchase alone leads to the same move (tests/test_heuristic_choice.py)."""
    rival = rival_column(seat, n, s)
    coin = params[who, H_COIN]
    extra = params[who, H_RIVAL_COIN]
    return (np.int64(LIST_COMPACT), np.int64(coin + (extra if rival == M_LEFT else 0)),
            np.int64(coin + (extra if rival == M_RIGHT else 0)))


@njit(cache=True, inline="always")
def payment_value(moves, i, params, who, rival):
    """What paying for legal move i costs: every coin, and more for a coin to the rival (the
    moves column `rival_column` gives)."""
    paid = moves[i, M_COIN_COST] + moves[i, M_LEFT] + moves[i, M_RIGHT]
    v = -params[who, H_COIN] * paid
    if rival >= 0:
        v -= params[who, H_RIVAL_COIN] * moves[i, rival]
    return v


@njit(cache=True, _nrt=False)
def best_copy(ent, board, seat, n, s, params, who, age):
    """The stage-3 neighbour the heuristic picks for seat s (Manneken Pis A): the copy whose
    entity is worth more (entity_value; a copy of nothing is worth -1), left on a tie."""
    e_left, _ = policy_stage_source(ent, board, seat, n, s, 2, COPY_LEFT)
    e_right, _ = policy_stage_source(ent, board, seat, n, s, 2, COPY_RIGHT)
    v_left = -1 if e_left < 0 else entity_value_compiled(ent, seat, n, np.int64(s), np.int64(e_left), params, who,
                                                          np.int64(age))
    v_right = -1 if e_right < 0 else entity_value_compiled(ent, seat, n, np.int64(s), np.int64(e_right), params, who,
                                                            np.int64(age))
    return COPY_RIGHT if v_right > v_left else COPY_LEFT


@njit(cache=True, inline="always")
def _pair_at(moves, i):
    """(action, card, whether it is a stage or a discard) of the pair whose default row is i."""
    action = moves[i, M_ACTION]
    return action, moves[i, M_CARD], action == ACT_DISCARD or action == ACT_STAGE


@njit(cache=True, inline="always")
def _weighted_denial(ent, seat, gs, n, s, c, w_deny):
    """w_deny x the points card c would give the next holder of the hand (no work for 0)."""
    return 0 if w_deny == 0 else w_deny * denial(ent, seat, gs, n, s, c)


@njit(cache=True, _nrt=False)
def choice(ent, board, seat, gs, s, who, moves, n_moves, params, n, age):
    """The heuristic's option among the first n_moves rows: the first of highest value, in two
    passes (one function: split into inlined pieces it compiled a second slower, and the game
    family's cold start with it).

    The first values the build rows and bounds the others (a stage or a discard, worth its base
    value plus a denial of at most H_DENY x the card's E_POINTS_CAP); when the best build beats
    every bound, it is the choice and no denial is computed. Otherwise the second pass values the
    stage and discard rows (each card's denial once, the decision's stage value once) and the
    first of highest value over both passes wins: the choice of one pass over every row in
    canonical order (hand slots in order; in a slot, build before stage before discard), so the
    decisions are those of a plain per-row evaluation.
    A (card, action) pair's rows follow its default one (M_DEFAULT) and share its base value; a
    discard build's rows (pile cards) are default (card, build) rows that pay nothing. A compact
    listing (layout.LIST_COMPACT) ends with template rows (M_CARD = EVERY_CARD) that stand for a
    stage or a discard with each card of the hand: the second pass values them card by card, and
    the template it picks is given the card's slot and id."""
    rival = rival_column(seat, n, s)
    w_deny = params[who, H_DENY]
    discard_v = params[who, H_COIN] * DISCARD_COINS
    stage_v = 0
    stage_known = False
    best_i = -1  # the first pass's: the best build row
    best = 0
    other = False  # whether the current pair is a stage or a discard
    n_other = 0
    other_max = 0  # the most a stage or discard row is worth before its denial
    deny_cap = 0
    templates = n_moves  # the first template row (none: n_moves)
    base = 0
    for i in range(n_moves):
        if moves[i, M_DEFAULT] == 1:
            action, c, other = _pair_at(moves, i)
            if not other:
                base = entity_value(ent, seat, n, s, c, params, who, age)
            else:
                if c != EVERY_CARD:
                    deny_cap = max(deny_cap, ent[c, E_POINTS_CAP])
                elif templates == n_moves:
                    templates = i
                if action == ACT_DISCARD:
                    base = discard_v
                else:
                    if not stage_known:
                        copy3 = np.int64(COPY_LEFT)  # not a literal: one specialisation of stage_value
                        if moves[i, M_COPY3] == 1:
                            copy3 = np.int64(best_copy(ent, board, seat, n, s, params, who, age))
                        stage_v = stage_value(ent, board, seat, n, s, moves, i, params, who, age, copy3)
                        stage_known = True
                    base = stage_v
        v = base + payment_value(moves, i, params, who, rival)
        if other:
            other_max = v if n_other == 0 else max(other_max, v)
            n_other += 1
        elif best_i < 0 or v > best:
            best_i, best = i, v
    hand_n = seat[s, F_HAND_N] if templates < n_moves else 0  # templates: the seat's own hand (not the Free City)
    for k in range(hand_n):
        deny_cap = max(deny_cap, ent[seat[s, F_HAND + k], E_POINTS_CAP])
    if n_other == 0 or (best_i >= 0 and w_deny >= 0 and best > other_max + w_deny * deny_cap):
        return best_i
    other_i = -1  # the second pass's: the best stage or discard row, and its hand slot
    other_slot = -1
    other_best = 0
    deny_card = -1
    deny_v = 0
    for i in range(templates):
        if moves[i, M_DEFAULT] == 1:
            action, c, other = _pair_at(moves, i)
            if other:
                if c != deny_card:  # a card's stage and discard rows are adjacent
                    deny_card = c
                    deny_v = _weighted_denial(ent, seat, gs, n, s, c, w_deny)
                base = (discard_v if action == ACT_DISCARD else stage_v) + deny_v
        if other:
            v = base + payment_value(moves, i, params, who, rival)
            if other_i < 0 or v > other_best:
                other_i, other_slot, other_best = i, moves[i, M_SLOT], v
    for k in range(hand_n):
        deny_v = _weighted_denial(ent, seat, gs, n, s, seat[s, F_HAND + k], w_deny)
        for i in range(templates, n_moves):
            if moves[i, M_DEFAULT] == 1:
                base = (discard_v if moves[i, M_ACTION] == ACT_DISCARD else stage_v) + deny_v
            v = base + payment_value(moves, i, params, who, rival)
            if other_i < 0 or v > other_best:
                other_i, other_slot, other_best = i, k, v
    if best_i < 0 or other_best > best or (other_best == best and other_slot < moves[best_i, M_SLOT]):
        if moves[other_i, M_CARD] == EVERY_CARD:
            moves[other_i, M_SLOT] = other_slot
            moves[other_i, M_CARD] = seat[s, F_HAND + other_slot]
        return other_i
    return best_i
