"""The policies' registry: a seat's policy is an id plus an int32 parameter row.

    POLICY_RANDOM     docs/rules.md §12: one draw from the seat's stream per decision
    POLICY_GREEDY     one-step look-ahead (kernels/greedy.py)
    POLICY_HEURISTIC  a weighted evaluation of every option, every purchase (kernels/heuristic.py)
    POLICY_ROLLOUT    determinised Monte Carlo search of turn moves (kernels/rollout.py)
    POLICY_LEARNED    the afterstate a learned model values most (kernels/learned.py; its model is
                      a run-time argument, wsim/run/model.py)

kernels/decide.py takes every decision but the rollout's searched ones. Here: the ids and names,
the parameter keys a user may set and the rollout's row layout (the run record that carries
them: layout.RUN).
"""

from wsim.kernels import schema
from wsim.kernels.greedy import GREEDY_KEYS
from wsim.kernels.heuristic import HEURISTIC_KEYS

POLICY_RANDOM = 0
POLICY_GREEDY = 1
POLICY_HEURISTIC = 2
POLICY_ROLLOUT = 3  # kernels/rollout.py: its turn moves are searched there, never decided in decide.py
POLICY_LEARNED = 4
POLICY_NAMES = ("random", "greedy", "heuristic", "rollout", "learned")  # every list of policies derives from it
BATCHABLE = tuple(n for n in POLICY_NAMES if n != "rollout")  # what a batched environment's kernel seats play

# The parameters a user may set (--policy-param NAME.KEY=VALUE), in parameter-row order; a row
# holds P_COUNT values (the longest list; the rest are zeros). Defaults: wsim/run/weights.py.
PARAM_KEYS = {"random": (), "greedy": GREEDY_KEYS, "heuristic": HEURISTIC_KEYS,
              "rollout": ("playouts", "base", "depth"), "learned": ()}
# a rollout row: its playouts, its base policy's id, then the base policy's own row. Over a
# learned base (a policy of no parameters) the row's R_DEPTH, the base row's first entry, holds
# the playouts' depth: the deciding seat's turn moves a playout plays before the model values the
# position (kernels/rollout.py; 0: to the game's end)
R_PLAYOUTS, R_BASE_ID, R_BASE = range(3)
R_DEPTH = R_BASE
assert not PARAM_KEYS["learned"], "a learned base's row holds the rollout's depth"
# a learned row's model: its index in the run's model record (kernels/learned.py), set by the run
# layer from the seat's model file (wsim/run/settings.py), never a user's parameter; after the
# depth entry, so that a rollout's learned base row carries it too (and its playouts play it)
L_MODEL = 1
P_COUNT = R_BASE + max(len(k) for k in PARAM_KEYS.values())
assert P_COUNT <= schema.PARAMS, "a parameter row must fit the run record's room (kernels/schema.py PARAMS)"

