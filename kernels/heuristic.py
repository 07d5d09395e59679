"""POLICY_HEURISTIC: a weighted evaluation of every legal option, from the seat's observation.

A move's value is a sum of features, each times a weight (the seat's parameter row, H_* below,
all in hundredths of a victory point; the shipped defaults are wsim/data/heuristic.json):

  point        points the entity would score now: printed points, its end-of-game count on
               the cities as they stand, the science points it adds
  shield       per shield, times the military resolutions still to come (4 - age)
  flip         per neighbour whose strength the move's shields overtake (a defeat or a tie
               this age turned into a victory), times this age's victory token
  unit_new     per production unit of a resource the city does not produce, times (4 - age)
  unit_more    per production unit of a resource it already produces, times (4 - age)
  coin         per coin gained (coins when built, 3 for a discard) minus coins paid
  chain        per card of a later age the entity's name makes free, times the ages left
  discount     per trade discount gained (raw/manufactured goods, left/right), times (4 - age)
  stage        a wonder stage, on top of its entity's value
  free_build   Olympia's free build, times the ages in which it can still be used
  seventh      a 7th card, times the ages left
  discard_build  a discard build (the pile is hidden until then: flat, times the age)
  guild_copy   Olympia B's guild copy
  deny         per point the card would give the next player in the passing direction, when
               the move takes it out of the game (discard, stage)
  rival_coin   per coin paid to the neighbour with more points now (purchases choose the rival's
               neighbour last)

Every quantity comes from the tables and the observation (kernels/city.py accessors): no card
or wonder name appears here. kernels/decide.py plays the first best option in canonical order
(no random draw), and picks Manneken Pis A's stage-3 neighbour with entity_value.
"""

import numpy as np
from numba import njit

from wsim.codes import MILITARY_WIN, N_AGES, POW_COPY_GUILD, POW_DISCARD_BUILD, POW_FREE_BUILD, POW_SEVENTH
from wsim.kernels.city import coins_when_built, left_of, points_now, policy_stage_source, right_of
from wsim.kernels.layout import (E_CHAINS_TO, E_CHOICE, E_DISCOUNT, E_POWER, E_PROD_PK, E_SCIENCE, E_SHIELDS, F_COPY3,
                                 F_DISC, F_NCARDS, F_PK_PROD, F_SHIELDS, F_STAGES, G_AGE, G_FC, M_COIN_COST, M_COPY3,
                                 M_LEFT, M_RIGHT)
from wsim.kernels.score import science_gain
from wsim.kernels.trade import bit_count, packed_sum, packed_support, read_packed, spread

HEURISTIC_KEYS = ("point", "science", "shield", "flip", "unit_new", "unit_more", "coin", "chain", "discount",
                  "stage", "free_build", "seventh", "discard_build", "guild_copy", "deny", "rival_coin")
(H_POINT, H_SCIENCE, H_SHIELD, H_FLIP, H_UNIT_NEW, H_UNIT_MORE, H_COIN, H_CHAIN, H_DISCOUNT, H_STAGE,
 H_FREE_BUILD, H_SEVENTH, H_DISCARD_BUILD, H_GUILD_COPY, H_DENY, H_RIVAL_COIN) = range(len(HEURISTIC_KEYS))
WIN_AGE1, WIN_AGE2, WIN_AGE3 = MILITARY_WIN


@njit(cache=True, inline="always")
def _points_for(ent, seat, n, s, e):
    """(points, science points) entity e would give seat s now."""
    points = points_now(ent, seat, n, s, e, 0)
    science = 0
    if ent[e, E_SCIENCE] >= 0:
        science = science_gain(seat, np.int64(s), np.int64(ent[e, E_SCIENCE]))
    return points, science


@njit(cache=True, inline="always")
def entity_value(ent, seat, n, s, e, params, who, age):
    """Heuristic value of entity e entering seat s's city now (weights: seat who's row)."""
    left_ages = N_AGES + 1 - age  # this age and the later ones
    points, science = _points_for(ent, seat, n, s, e)
    v = params[who, H_POINT] * points + params[who, H_SCIENCE] * science
    # Kind-dependent parts without branches (a decision values cards of every kind in turn, so
    # those branches were mostly mispredicted; heuristic games 3% faster, docs/speed.md).
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
    if p == POW_FREE_BUILD:
        v += params[who, H_FREE_BUILD] * left_ages
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
    points, science = _points_for(ent, seat, n, nxt, c)
    return points + science


@njit(cache=True, _nrt=False)
def stage_value(ent, board, seat, n, s, moves, i, params, who, age, copy3):
    """Heuristic value of building seat s's next stage (legal move i is one that does), its
    entity's value included (Manneken Pis A's stage 3: that of the copy of neighbour copy3,
    kernels/decide.choose_copy3), denial excluded."""
    if moves[i, M_COPY3] == 1:
        e, _ = policy_stage_source(ent, board, seat, n, s, 2, copy3)
    else:
        e, _ = policy_stage_source(ent, board, seat, n, s, seat[s, F_STAGES], seat[s, F_COPY3])
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
def purchase_weights(seat, n, s, params, who):
    """(w_left, w_right): what a coin paid to each neighbour costs in payment_value. Of a (card,
    action) pair's purchases the choice loop keeps the first of least w_left * left + w_right *
    right coins, so a list of that purchase alone (step.legal) leads to the same move."""
    rival = rival_column(seat, n, s)
    coin = params[who, H_COIN]
    extra = params[who, H_RIVAL_COIN]
    return coin + (extra if rival == M_LEFT else 0), coin + (extra if rival == M_RIGHT else 0)


@njit(cache=True, inline="always")
def payment_value(moves, i, params, who, rival):
    """What paying for legal move i costs: every coin, and more for a coin to the rival (the
    moves column `rival_column` gives)."""
    paid = moves[i, M_COIN_COST] + moves[i, M_LEFT] + moves[i, M_RIGHT]
    v = -params[who, H_COIN] * paid
    if rival >= 0:
        v -= params[who, H_RIVAL_COIN] * moves[i, rival]
    return v
