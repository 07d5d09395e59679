"""POLICY_GREEDY's values: one-step look-ahead (kernels/decide.py picks the first best move).

Each legal move gets an integer value. The value of putting entity e into the city, with the
seat's parameters (GREEDY_DEFAULTS, all in hundredths of a victory point):
    P_POINT  x (flat points + end-of-game points it would give now + science points it adds)
  + P_SHIELD x shields  + P_UNIT x (4 - age) x production units (a choice unit counts 1:
    production is worth most early, when most of its uses are still ahead)
  + P_COIN   x (coins it gives when built - coins paid for it, trade included)
  + P_STAGE  for a wonder stage (on top of the copied or printed stage's value)
A discard is worth 3 x P_COIN. The same value picks discard builds (paying nothing) and
Manneken Pis' stage-3 neighbour (left on a tie).
"""

import numpy as np
from numba import njit

from wsim.codes import ACT_DISCARD, ACT_STAGE, DISCARD_COINS, N_AGES, N_RES
from wsim.kernels.city import coins_when_built, points_now, policy_stage_source
from wsim.kernels.layout import (E_CHOICE, E_PROD, E_PROD_PK, E_SCIENCE, E_SHIELDS, F_COPY3, F_STAGES, M_ACTION, M_CARD,
                                 M_COIN_COST, M_COPY3, M_LEFT, M_RIGHT)
from wsim.kernels.score import science_gain

GREEDY_KEYS = ("point", "shield", "unit", "coin", "stage")
P_POINT, P_SHIELD, P_UNIT, P_COIN, P_STAGE = range(len(GREEDY_KEYS))
GREEDY_DEFAULTS = (100, 60, 40, 30, 25)


@njit(cache=True, _nrt=False)
def entity_value(ent, seat, n, s, e, paid, params, who, age):
    """Greedy value of entity e entering seat s's city now, in `age`, having paid `paid` coins
    (params: every seat's parameter rows; those of seat who, the one deciding, are used)."""
    points = points_now(ent, seat, n, s, e, 0)
    if ent[e, E_SCIENCE] >= 0:
        points += science_gain(seat, np.int64(s), np.int64(ent[e, E_SCIENCE]))
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
    neighbour a move that needs one would copy, kernels/decide.choose_copy3)."""
    action = moves[i, M_ACTION]
    if action == ACT_DISCARD:
        return params[who, P_COIN] * DISCARD_COINS
    paid = moves[i, M_COIN_COST] + moves[i, M_LEFT] + moves[i, M_RIGHT]
    if action == ACT_STAGE:
        if moves[i, M_COPY3] == 1:
            e, _ = policy_stage_source(ent, board, seat, n, s, 2, copy3)
        else:
            e, _ = policy_stage_source(ent, board, seat, n, s, seat[s, F_STAGES], seat[s, F_COPY3])
        if e < 0:
            return params[who, P_STAGE] - params[who, P_COIN] * paid
        return params[who, P_STAGE] + entity_value(ent, seat, n, s, e, paid, params, who, age)
    return entity_value(ent, seat, n, s, np.int64(moves[i, M_CARD]), paid, params, who, age)
