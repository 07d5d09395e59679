"""The policies' registry: a seat's policy is an id plus an int32 parameter row.

    POLICY_RANDOM     docs/rules.md §12: one draw from the seat's stream per decision
    POLICY_GREEDY     one-step look-ahead (kernels/greedy.py)
    POLICY_HEURISTIC  a weighted evaluation of every option, every purchase (kernels/heuristic.py)
    POLICY_ROLLOUT    determinised Monte Carlo search of turn moves (kernels/rollout.py)

kernels/decide.py takes every decision but the rollout's searched ones. Here: the ids and names,
the parameter keys a user may set, the rollout's row layout, and the run record.
"""

import numpy as np
from numba import njit

from wsim.kernels.greedy import GREEDY_KEYS
from wsim.kernels.heuristic import HEURISTIC_KEYS
from wsim.kernels.layout import MAX_SEATS

POLICY_RANDOM = 0
POLICY_GREEDY = 1
POLICY_HEURISTIC = 2
POLICY_ROLLOUT = 3  # kernels/rollout.py: its turn moves are searched there, never decided in decide.py
POLICY_NAMES = ("random", "greedy", "heuristic", "rollout")

# The parameters a user may set (--policy-param NAME.KEY=VALUE), in parameter-row order; a row
# holds P_COUNT values (the longest list; the rest are zeros). Defaults: wsim/run/weights.py.
PARAM_KEYS = {"random": (), "greedy": GREEDY_KEYS, "heuristic": HEURISTIC_KEYS, "rollout": ("playouts", "base")}
# a rollout row: its playouts, its base policy's id, then the base policy's own row
R_PLAYOUTS, R_BASE_ID, R_BASE = range(3)
P_COUNT = R_BASE + max(len(k) for k in PARAM_KEYS.values())
# A run's settings as the kernels take them (one record, game.new_run): the players (2 for the
# Free City variant), the seed, the data's card count, whether the promo boards are in the pool,
# whether the game loop times its components (the profile twin, kernels/loop.py), the fixed
# boards and sides (-1: dealt), and every seat's policy and parameter row.
RUN = np.dtype([("n", np.int64), ("seed", np.uint64), ("n_cards", np.int64), ("promo", np.bool_), ("timed", np.bool_),
                ("board_spec", np.int8, (MAX_SEATS,)), ("side_spec", np.int8, (MAX_SEATS,)),
                ("policies", np.int32, (MAX_SEATS,)), ("params", np.int32, (MAX_SEATS, P_COUNT))], align=True)


@njit(cache=True, inline="always")
def all_purchases(policies, who):
    """Whether seat who's policy chooses among every purchase (else the default one is listed)."""
    return policies[who] == POLICY_HEURISTIC
