"""Policies as kernels: a seat's policy is an id plus an int32 parameter row.

A policy decides from a seat's observation only (RULES.md §2): `decide` receives the state
arrays and the seat, and reads nothing but what that seat may see — its own hand, every city,
coins and tokens, its own random stream — through the accessors of kernels/city.py and
kernels/score.py (never another seat's hand, the later ages' deal, another seat's choice this
turn or the discard pile, whose legal cards `legal` lists when a discard build allows a look).
tests/test_policies_observe.py perturbs everything hidden and checks the decisions stay.

POLICY_RANDOM (RULES.md section 12): one draw from the seat's stream per decision, exactly as
wsim.reference.engine.RandomPolicy: the legal (card, action) pair (its default purchase), then
the stage-3 neighbour when the move needs one; a discard build draws only when a legal card
exists.

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

POLICY_HEURISTIC: kernels/heuristic.py (a weighted evaluation of every option, every purchase).
"""

import numpy as np
from numba import njit

from wsim.codes import ACT_DISCARD, ACT_STAGE, COPY_LEFT, COPY_RIGHT, DISCARD_COINS, N_RES
from wsim.kernels.city import coins_when_built, points_now, stage_source, stage_source_with
from wsim.kernels.heuristic import HEURISTIC_KEYS, decide_heuristic
from wsim.kernels.layout import (DEC_COPY3, DEC_DISCARD, DEC_MOVE, DEC_SEVENTH, E_CHOICE, E_PROD, E_PROD_PK, E_SCIENCE,
                                 E_SHIELDS, F_CTR, F_STAGES, G_AGE, G_N, M_ACTION, M_CARD,
                                 M_COIN_COST, M_COPY3, M_DEFAULT, M_LEFT, M_RIGHT, MAX_SEATS)
from wsim.kernels.rng import draw_below
from wsim.kernels.score import science_gain
from wsim.kernels.step import apply, legal
from wsim.kernels.timing import LEGAL, POLICY, RERUN, RESOLUTION, TRADING, cycles, trading_calls

POLICY_RANDOM = 0
POLICY_GREEDY = 1
POLICY_HEURISTIC = 2
POLICY_ROLLOUT = 3  # kernels/rollout.py: its turn moves are searched there, never decided here
POLICY_NAMES = ("random", "greedy", "heuristic", "rollout")

P_POINT, P_SHIELD, P_UNIT, P_COIN, P_STAGE = range(5)
GREEDY_DEFAULTS = (100, 60, 40, 30, 25)
# The parameters a user may set (--policy-param NAME.KEY=VALUE), in parameter-row order; a row
# holds P_COUNT values (the longest list; the rest are zeros). Defaults: wsim/agents/weights.py.
PARAM_KEYS = {"random": (), "greedy": ("point", "shield", "unit", "coin", "stage"), "heuristic": HEURISTIC_KEYS,
              "rollout": ("playouts", "base")}
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


@njit(cache=True, inline="always")
def draw(seat, keys, s, m):
    """Seat s's next random number in 0..m-1 (one draw of its policy stream)."""
    v = draw_below(keys[s], seat[s, F_CTR], m)
    seat[s, F_CTR] += 1
    return v


@njit(cache=True, _nrt=False)
def entity_value(ent, seat, n, s, e, paid, params, who, age):
    """Greedy value of entity e entering seat s's city now, in `age`, having paid `paid` coins
    (params: every seat's parameter rows; those of seat who, the one deciding, are used)."""
    points = points_now(ent, seat, n, s, e, 0)
    if ent[e, E_SCIENCE] >= 0:
        points += science_gain(seat, s, ent[e, E_SCIENCE])
    units = 0
    if ent[e, E_PROD_PK] | ent[e, E_PROD_PK + 1] != 0:  # most entities produce nothing
        for r in range(N_RES):
            units += ent[e, E_PROD + r]
    if ent[e, E_CHOICE] != 0:
        units += 1
    coins = coins_when_built(ent, seat, n, s, e) - paid
    return (params[who, P_POINT] * points + params[who, P_SHIELD] * ent[e, E_SHIELDS]
            + params[who, P_UNIT] * (4 - age) * units + params[who, P_COIN] * coins)


@njit(cache=True, inline="always")
def _copy_value(ent, board, seat, n, s, of, params, who, age):
    """Greedy value of Manneken Pis A's stage 3 copying neighbour `of` (-1 when it copies nothing)."""
    e, _ = stage_source_with(ent, board, seat, n, s, 2, of)
    return entity_value(ent, seat, n, s, e, np.int64(0), params, who, age) if e >= 0 else -1


@njit(cache=True, _nrt=False)
def _greedy_copy3(ent, board, seat, n, s, params, who, age):
    """Greedy's stage-3 neighbour: the copy worth more, left on a tie."""
    v_left = _copy_value(ent, board, seat, n, s, COPY_LEFT, params, who, age)
    v_right = _copy_value(ent, board, seat, n, s, COPY_RIGHT, params, who, age)
    return COPY_RIGHT if v_right > v_left else COPY_LEFT


@njit(cache=True, _nrt=False)
def _move_value(ent, board, seat, n, s, moves, i, params, who, age):
    """Greedy value of legal move i of seat s, decided by seat who."""
    action = moves[i, M_ACTION]
    if action == ACT_DISCARD:
        return params[who, P_COIN] * DISCARD_COINS
    paid = moves[i, M_COIN_COST] + moves[i, M_LEFT] + moves[i, M_RIGHT]
    if action == ACT_STAGE:
        if moves[i, M_COPY3] == 1:
            e, _ = stage_source_with(ent, board, seat, n, s, 2, _greedy_copy3(ent, board, seat, n, s, params, who, age))
        else:
            e, _ = stage_source(ent, board, seat, n, s, seat[s, F_STAGES])
        if e < 0:
            return params[who, P_STAGE] - params[who, P_COIN] * paid
        return params[who, P_STAGE] + entity_value(ent, seat, n, s, e, paid, params, who, age)
    return entity_value(ent, seat, n, s, np.int64(moves[i, M_CARD]), paid, params, who, age)


@njit(cache=True, _nrt=False)
def _nth_default(moves, n_moves, j):
    """Index of the j-th move flagged M_DEFAULT (a (card, action) pair's default purchase)."""
    for i in range(n_moves):
        if moves[i, M_DEFAULT] == 1:
            if j == 0:
                return i
            j -= 1
    return -1


@njit(cache=True, inline="always")
def decide(ent, board, st, s, who, kind, moves, n_moves, run):
    """The policy of seat who (s itself, or the Free City's controller: step.decider; its
    policy and parameters in the run record) picks one of the n_moves legal options of seat s's
    decision `kind`; returns its index. Reads only what seat who observes (module docstring)."""
    seat, keys, gs = st.seat, st.keys, st.gs
    policies, params = run.policies, run.params
    n = gs[G_N]
    age = gs[G_AGE]
    if policies[who] == POLICY_HEURISTIC:
        return decide_heuristic(ent, board, seat, gs, s, who, kind, moves, n_moves, params)
    if kind == DEC_SEVENTH or kind == DEC_DISCARD:
        n_moves -= 1  # neither policy declines a 7th card or a discard build (the last option)
    if policies[who] == POLICY_RANDOM:
        if kind == DEC_COPY3 or kind == DEC_DISCARD:
            return draw(seat, keys, who, n_moves)
        pairs = 0
        for i in range(n_moves):
            pairs += moves[i, M_DEFAULT]
        j = draw(seat, keys, who, pairs)
        return j if pairs == n_moves else _nth_default(moves, n_moves, j)
    if kind == DEC_COPY3:
        return 1 if moves[1, M_COPY3] == _greedy_copy3(ent, board, seat, n, s, params, who, age) else 0
    best_i = 0
    best = 0
    for i in range(n_moves):
        if kind == DEC_DISCARD:
            v = entity_value(ent, seat, n, s, np.int64(moves[i, M_CARD]), np.int64(0), params, who, age)
        else:
            v = _move_value(ent, board, seat, n, s, moves, i, params, who, age)
        if i == 0 or v > best:
            best = v
            best_i = i
    return best_i


@njit(cache=True, _nrt=False)
def take_decision(ent, board, st, sc, s, kind, who, run, log, g, n_log):
    """List (into the scratch record sc), decide and apply seat s's decision `kind` for decider
    who, whose policy is not rollout: the step of the game loop (kernels/loop.py). When the run
    is timed (the profile twin), each step's cycles go to sc.timing (kernels/timing.py)."""
    moves = sc.moves
    timed = run.timed
    t0 = cycles() if timed else np.uint64(0)
    m = legal(ent, board, st, s, kind, moves, sc.opts, all_purchases(run.policies, who))
    if timed:
        t1 = cycles()
        sc.timing[LEGAL] += t1 - t0
        if kind == DEC_MOVE or kind == DEC_SEVENTH:  # the solver's calls, timed again and moved
            trading_calls(ent, board, st.seat, st.gs, s, sc.opts)
            t2 = cycles()
            sc.timing[TRADING] += t2 - t1
            sc.timing[LEGAL] -= t2 - t1
            sc.timing[RERUN] += t2 - t1
        t0 = cycles()
    j = decide(ent, board, st, s, who, kind, moves, m, run)
    if timed:
        t1 = cycles()
        sc.timing[POLICY] += t1 - t0
        t0 = t1
    apply(ent, board, st, s, kind, moves, j, log, g, n_log)
    if timed:
        sc.timing[RESOLUTION] += cycles() - t0
