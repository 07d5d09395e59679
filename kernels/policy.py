"""Policies as kernels: a seat's policy is an id plus an int32 parameter row.

POLICY_RANDOM (RULES.md section 12): one draw from the seat's stream per decision, exactly as
wsim.reference.engine.RandomPolicy: the legal (card, action) pair, then the stage-3 neighbour
when the move needs one; a discard build draws only when a legal card exists.

POLICY_GREEDY: one-step look-ahead. Each legal move gets an integer value and the first best
move in canonical order is played (no random draws). The value of putting entity e into the
city, with its parameters (GREEDY_DEFAULTS, all in hundredths of a victory point):
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

from wsim.codes import N_RES
from wsim.kernels.city import coins_when_built, count
from wsim.kernels.layout import E_CHOICE, E_POINTS, E_PPER, E_PROD, E_SCIENCE, E_SHIELDS, F_CTR
from wsim.kernels.rng import draw_below
from wsim.kernels.score import science_with

POLICY_RANDOM = 0
POLICY_GREEDY = 1
POLICY_NAMES = ("random", "greedy")

P_POINT, P_SHIELD, P_UNIT, P_COIN, P_STAGE, P_COUNT = range(6)
GREEDY_DEFAULTS = (100, 60, 40, 30, 25)


def default_params(policy_id: int) -> np.ndarray:
    """The parameter row of a policy (zeros for `random`, which takes none)."""
    row = np.zeros(P_COUNT, dtype=np.int32)
    if policy_id == POLICY_GREEDY:
        row[:len(GREEDY_DEFAULTS)] = GREEDY_DEFAULTS
    return row


@njit(cache=True)
def draw(seat, keys, s, m):
    """Seat s's next random number in 0..m-1 (one draw of its policy stream)."""
    v = draw_below(keys[s], seat[s, F_CTR], m)
    seat[s, F_CTR] += 1
    return v


@njit(cache=True)
def entity_value(ent, seat, n, s, e, paid, params, age):
    """Greedy value of entity e entering seat s's city now, in `age`, having paid `paid` coins
    (params: every seat's parameter rows; seat s's are used)."""
    points = ent[e, E_POINTS] + count(seat, n, s, ent[e, E_PPER], ent[e, E_PPER + 1], ent[e, E_PPER + 2], 0)
    if ent[e, E_SCIENCE] >= 0:
        points += science_with(seat, s, ent[e, E_SCIENCE]) - science_with(seat, s, -1)
    units = 0
    for r in range(N_RES):
        units += ent[e, E_PROD + r]
    if ent[e, E_CHOICE] != 0:
        units += 1
    coins = coins_when_built(ent, seat, n, s, e) - paid
    return (params[s, P_POINT] * points + params[s, P_SHIELD] * ent[e, E_SHIELDS]
            + params[s, P_UNIT] * (4 - age) * units + params[s, P_COIN] * coins)
