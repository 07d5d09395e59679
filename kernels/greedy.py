"""POLICY_GREEDY: one-step look-ahead; `choice` plays the first option of highest value.

Each legal move gets an integer value. The value of putting entity e into the city, with the
seat's parameters (GREEDY_DEFAULTS, all in hundredths of a victory point):
    P_POINT  x (flat points + end-of-game points it would give now + science points it adds)
  + P_SHIELD x shields  + P_UNIT x (4 - age) x production units (a choice unit counts 1:
    production is worth most early, when most of its uses are still ahead)
  + P_COIN   x (coins it gives when built - coins paid for it, trade included)
  + P_STAGE  for a wonder stage (on top of the copied or printed stage's value)
A discard is worth 3 x P_COIN. The same value picks discard builds (paying nothing) and
Manneken Pis' stage-3 neighbour (`best_copy`, left on a tie). Options are taken in canonical
order and the first of highest value wins (`first_best`): no random draw.
"""

import numpy as np
from numba import njit

from wsim.codes import ACT_DISCARD, ACT_STAGE, COPY_LEFT, COPY_RIGHT, DISCARD_COINS, N_AGES, N_RES
from wsim.kernels.city import coins_when_built, move_stage_source, policy_stage_source
from wsim.kernels.layout import (DEC_DISCARD, E_CHOICE, E_PROD, E_PROD_PK, E_SHIELDS, M_ACTION, M_CARD, M_COIN_COST,
                                 M_COPY3, M_LEFT, M_RIGHT)
from wsim.kernels.score import points_and_science

GREEDY_KEYS = ("point", "shield", "unit", "coin", "stage")
P_POINT, P_SHIELD, P_UNIT, P_COIN, P_STAGE = range(len(GREEDY_KEYS))
GREEDY_DEFAULTS = (100, 60, 40, 30, 25)


@njit(cache=True, _nrt=False)
def entity_value(ent, seat, n, s, e, paid, params, who, age):
    """Greedy value of entity e entering seat s's city now, in `age`, having paid `paid` coins
    (params: every seat's parameter rows; those of seat who, the one deciding, are used)."""
    points, science = points_and_science(ent, seat, n, s, e)
    points += science
    units = 0
    if ent[e, E_PROD_PK] | ent[e, E_PROD_PK + 1] != 0:  # most entities produce nothing
        for r in range(N_RES):
            units += ent[e, E_PROD + r]
    if ent[e, E_CHOICE] != 0:
        units += 1
    coins = coins_when_built(ent, seat, n, s, e) - paid
    return (params[who, P_POINT] * points + params[who, P_SHIELD] * ent[e, E_SHIELDS]
            + params[who, P_UNIT] * (N_AGES + 1 - age) * units + params[who, P_COIN] * coins)


@njit(cache=True, _nrt=False)
def move_value(ent, board, seat, n, s, moves, i, params, who, age, copy3):
    """Greedy value of legal move i of seat s, decided by seat who (copy3: the stage-3
    neighbour a move that needs one would copy, best_copy)."""
    action = moves[i, M_ACTION]
    if action == ACT_DISCARD:
        return params[who, P_COIN] * DISCARD_COINS
    paid = moves[i, M_COIN_COST] + moves[i, M_LEFT] + moves[i, M_RIGHT]
    if action == ACT_STAGE:
        e, _ = move_stage_source(ent, board, seat, n, s, moves[i, M_COPY3], copy3)
        if e < 0:
            return params[who, P_STAGE] - params[who, P_COIN] * paid
        return params[who, P_STAGE] + entity_value(ent, seat, n, s, e, paid, params, who, age)
    return entity_value(ent, seat, n, s, np.int64(moves[i, M_CARD]), paid, params, who, age)


@njit(cache=True, inline="always")
def first_best(i, v, best_i, best):
    """The argmax rule: option i (value v) replaces the best so far only when it is the first
    or strictly better. Returns (best_i, best)."""
    if i == 0 or v > best:
        return i, v
    return best_i, best


@njit(cache=True, _nrt=False)
def best_copy(ent, board, seat, n, s, params, who, age):
    """The stage-3 neighbour greedy picks for seat s (Manneken Pis A): the copy whose entity is
    worth more (paying nothing; a copy of nothing is worth -1), left on a tie."""
    e_left, _ = policy_stage_source(ent, board, seat, n, s, 2, COPY_LEFT)
    e_right, _ = policy_stage_source(ent, board, seat, n, s, 2, COPY_RIGHT)
    v_left = -1 if e_left < 0 else entity_value(ent, seat, n, s, e_left, np.int64(0), params, who, age)
    v_right = -1 if e_right < 0 else entity_value(ent, seat, n, s, e_right, np.int64(0), params, who, age)
    return COPY_RIGHT if v_right > v_left else COPY_LEFT


@njit(cache=True, _nrt=False)
def choice(ent, board, seat, s, who, kind, moves, n_moves, params, n, age):
    """Greedy's option among the first n_moves rows: the first of highest value."""
    best_i = 0
    best = 0
    copy3 = np.int64(-1)  # chosen at the first move that needs it
    for i in range(n_moves):
        if kind == DEC_DISCARD:
            v = entity_value(ent, seat, n, s, np.int64(moves[i, M_CARD]), np.int64(0), params, who, age)
        else:
            if moves[i, M_COPY3] == 1 and copy3 < 0:
                copy3 = np.int64(best_copy(ent, board, seat, n, s, params, who, age))
            v = move_value(ent, board, seat, n, s, moves, i, params, who, age, copy3)
        best_i, best = first_best(i, v, best_i, best)
    return best_i
