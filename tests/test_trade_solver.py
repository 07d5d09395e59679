"""The exact trading solver: reference vs an independent brute force, kernel vs reference."""

import random
from itertools import product

import numpy as np
import pytest
from numba import njit

from conftest import random_positions
from wsim.codes import N_RES, RESOURCES
from wsim.kernels.city import left_of, right_of
from wsim.kernels.layout import F_COINS
from wsim.kernels.schema import MAX_CHOICE_SLOTS, MAX_OPTIONS
from wsim.kernels.trade import bit_count, packed_sum, packed_support, surely_affordable, trade_options, trade_options_at
from wsim.reference.trade import purchase_options

RAW = 0b0001111
MANUF = 0b1110000


def vec(**counts):
    """A length-7 count vector from resource names, e.g. vec(wood=2, glass=1)."""
    return [counts.get(name, 0) for name in RESOURCES]


def mask(*names):
    """A choice unit's 7-bit mask from resource names."""
    return sum(1 << RESOURCES.index(name) for name in names)


def prices(raw, manuf):
    """A price vector: `raw` coins for wood/stone/clay/ore, `manuf` for the others."""
    return [raw if (1 << r) & RAW else manuf for r in range(N_RES)]


# ---------------------------------------------------------------------------------------------
# Independent brute force: every concrete use of every physical unit.


def _unit_options(fixed, choices):
    """Per physical unit, what it may give in one build: nothing, or one resource index."""
    units = []
    for r in range(N_RES):
        units += [(None, r)] * fixed[r]
    for m in choices:
        units.append((None,) + tuple(r for r in range(N_RES) if m >> r & 1))
    return units


def _uses(cost, fixed, choices, price):
    """{units given, capped at the cost: fewest coins} over every assignment of the units.

    Units beyond the cost are useless, hence the cap; for one capped vector only its cheapest
    assignment can matter.
    """
    best = {}
    for assignment in product(*_unit_options(fixed, choices)):
        given = [0] * N_RES
        coins = 0
        for r in assignment:
            if r is not None:
                given[r] += 1
                coins += price[r]
        key = tuple(min(g, c) for g, c in zip(given, cost))
        best[key] = min(coins, best.get(key, coins))
    return best


def brute_force(cost, own_fixed, own_choices, left_fixed, left_choices,
                right_fixed, right_choices, left_price, right_price):
    """purchase_options by trying every use of every unit of the three sources (see _uses)."""
    free = [0] * N_RES
    own = _uses(cost, own_fixed, own_choices, free)
    left = _uses(cost, left_fixed, left_choices, left_price)
    right = _uses(cost, right_fixed, right_choices, right_price)
    own_left = {}
    for o in own:
        for lv, lc in left.items():
            key = tuple(min(a + b, c) for a, b, c in zip(o, lv, cost))
            own_left[key] = min(lc, own_left.get(key, lc))
    pairs = set()
    for ol, lc in own_left.items():
        for rv, rc in right.items():
            if all(a + b >= c for a, b, c in zip(ol, rv, cost)):
                pairs.add((lc, rc))
    front = [p for p in pairs
             if not any(q != p and q[0] <= p[0] and q[1] <= p[1] for q in pairs)]
    return sorted(front, key=lambda p: (p[0] + p[1], p[0]))


# ---------------------------------------------------------------------------------------------
# Random positions.


def _random_mask(rng, pool):
    kind = rng.random()
    if kind < 0.1:
        return RAW
    if kind < 0.15:
        return MANUF
    k = rng.choice((1, 2, 2, 2, 3))
    bits = rng.sample(pool, min(k, len(pool)))
    if rng.random() < 0.2:
        bits.append(rng.randrange(N_RES))
    return sum(1 << r for r in set(bits))


def _random_units(rng, pool, n):
    v = [0] * N_RES
    for _ in range(n):
        v[rng.choice(pool) if rng.random() < 0.85 else rng.randrange(N_RES)] += 1
    return v


def small_position(rng):
    """A position small enough for the brute force: few units in a few shared resources."""
    pool = rng.sample(range(N_RES), rng.randint(1, 4))
    cost = _random_units(rng, pool, rng.choice((0, 1, 2, 2, 3, 3, 3, 4, 4, 5)))
    sources = []
    for n_choices in (rng.randint(0, 3), rng.randint(0, 2), rng.randint(0, 2)):
        fixed = _random_units(rng, pool, rng.randint(0, 3))
        sources += [fixed, [_random_mask(rng, pool) for _ in range(n_choices)]]
    return (cost, *sources, [rng.choice((1, 2)) for _ in range(N_RES)],
            [rng.choice((1, 2)) for _ in range(N_RES)])


def game_position(rng):
    """A position shaped like the game's: costs up to 7 units, up to 10 own choice units."""
    pool = rng.sample(range(N_RES), rng.randint(2, 7))
    cost = [0] * N_RES
    for _ in range(rng.choice((1, 2, 2, 3, 3, 4, 4, 5, 6, 7))):
        r = rng.choice(pool)
        if cost[r] < 4:
            cost[r] += 1
    own_fixed = _random_units(rng, pool, rng.randint(0, 5))
    own_choices = [_random_mask(rng, pool) for _ in range(rng.choice((0, 0, 1, 2, 3, 5, 8, 10)))]
    sources = []
    for _ in range(2):
        fixed = _random_units(rng, pool, rng.randint(0, 6))
        n_choices = rng.choice((0, 0, 1, 2, 3, 6))
        if rng.random() < 0.8:
            # Neighbours sell only their brown cards' choices: pairs of raw resources.
            raw = [r for r in range(4) if r in pool] or [0, 1]
            choices = [sum(1 << r for r in rng.sample(raw, min(2, len(raw))))
                       for _ in range(n_choices)]
        else:  # the solver does not rely on that
            choices = [_random_mask(rng, pool) for _ in range(n_choices)]
        sources += [fixed, choices]
    left_raw, right_raw, manuf = rng.choice((1, 2)), rng.choice((1, 2)), rng.choice((1, 2))
    return (cost, own_fixed, own_choices, *sources,
            prices(left_raw, manuf), prices(right_raw, 2 if manuf == 1 else 1))


# ---------------------------------------------------------------------------------------------
# Kernel calls.


def kernel_options(position, dtype=np.int8, out_dtype=np.int16, capacity=12):
    """trade_options on a Python position, as a list (None when it returns -1).

    The choice arrays carry junk past their n, which the kernel must ignore.
    """
    cost, own_f, own_c, left_f, left_c, right_f, right_c, left_p, right_p = position

    def choices(masks):
        arr = np.full(max(capacity, len(masks)), 0b1111111, dtype=dtype)
        arr[:len(masks)] = masks
        return arr

    out = np.full((MAX_OPTIONS, 2), -1, dtype=out_dtype)

    def a(v):
        return np.asarray(v, dtype=dtype)

    k = trade_options(a(cost), (a(own_f), choices(own_c), len(own_c)), (a(left_f), choices(left_c), len(left_c)),
                      (a(right_f), choices(right_c), len(right_c)), a(left_p), a(right_p), out)
    if k == -1:
        return None
    assert 0 <= k <= MAX_OPTIONS
    return [(int(x), int(y)) for x, y in out[:k]]


@pytest.fixture(scope="module")
def kernel():
    """Compiles the kernel once (int8 inputs, int16 output) for the whole module."""
    kernel_options(([0] * 7, [0] * 7, [], [0] * 7, [], [0] * 7, [], [2] * 7, [2] * 7))
    return kernel_options


# ---------------------------------------------------------------------------------------------
# Hand cases: (cost, own_fixed, own_choices, left_fixed, left_choices, right_fixed,
# right_choices, left_price, right_price) -> expected options.

P2 = [2] * N_RES
NONE = vec()

HAND_CASES = {
    "university": (
        (vec(wood=2, glass=1, papyrus=1), vec(wood=1, glass=1), [], vec(wood=1), [],
         vec(papyrus=1), [], P2, P2),
        [(2, 2)]),
    "own_fixed_covers": (
        (vec(stone=2, ore=1), vec(stone=3, ore=1), [], vec(stone=5), [], NONE, [], P2, P2),
        [(0, 0)]),
    "zero_cost": ((NONE, NONE, [], NONE, [], NONE, [], P2, P2), [(0, 0)]),
    "own_choices_cover": (
        (vec(wood=1, clay=1), NONE, [mask("wood", "clay"), mask("wood", "clay")],
         vec(wood=3, clay=3), [], vec(wood=3), [], P2, P2),
        [(0, 0)]),
    "impossible_short_by_one": (
        (vec(ore=2), NONE, [], vec(ore=1), [], NONE, [], P2, P2), []),
    "impossible_nobody_sells": (
        (vec(loom=1), vec(wood=4), [mask("wood", "stone")], vec(glass=1), [mask("ore", "clay")],
         vec(papyrus=2), [], P2, P2),
        []),
    "choice_unit_sells_one_unit": (
        (vec(wood=1, stone=1), NONE, [], NONE, [mask("wood", "stone")], NONE, [], P2, P2), []),
    "choice_unit_one_unit_rest_from_right": (
        (vec(wood=1, stone=1), NONE, [], NONE, [mask("wood", "stone")], vec(stone=1), [], P2,
         P2),
        [(2, 2)]),
    "both_sell_cheaper_left": (
        (vec(stone=1), NONE, [], vec(stone=1), [], vec(stone=1), [], [1] * 7, P2),
        [(1, 0), (0, 2)]),
    "discounted_direction_first": (
        (vec(wood=1), NONE, [], vec(wood=1), [], vec(wood=1), [], P2, [1] * 7),
        [(0, 1), (2, 0)]),
    "split_across_neighbours": (
        (vec(ore=3), NONE, [], vec(ore=2), [], vec(ore=2), [], P2, P2), [(2, 4), (4, 2)]),
    "choice_units_both_sides": (
        (vec(wood=1, clay=1), NONE, [], NONE, [mask("wood", "clay")], NONE,
         [mask("wood", "clay")], [1] * 7, P2),
        [(1, 2)]),
    "pareto_prunes_dominated": (
        (vec(wood=1, glass=1), NONE, [mask("wood", "glass")], vec(wood=1, glass=1), [], NONE, [],
         prices(1, 2), P2),
        [(1, 0)]),
    "own_choice_decides_direction": (
        (vec(wood=1, stone=1), NONE, [mask("wood", "stone")], vec(wood=1), [], vec(stone=1), [],
         P2, P2),
        [(0, 2), (2, 0)]),
    "hall_two_units_for_two_resources": (
        (vec(wood=2, stone=1), NONE, [], NONE, [mask("wood", "stone")] * 2, vec(stone=1), [],
         P2, P2),
        [(4, 2)]),
    "palace_forum_and_mixed_prices": (
        (vec(wood=1, stone=1, clay=1, ore=1, glass=1, loom=1, papyrus=1), vec(wood=1, stone=1),
         [MANUF], vec(clay=1, glass=1), [mask("ore", "clay")], vec(ore=1, loom=1, papyrus=1), [],
         prices(1, 2), P2),
        [(2, 4), (4, 2), (1, 6)]),
}


@pytest.mark.parametrize("name", sorted(HAND_CASES))
def test_hand_cases(name, kernel):
    position, expected = HAND_CASES[name]
    assert purchase_options(*position) == expected
    assert brute_force(*position) == expected
    assert kernel(position) == expected


def test_reference_matches_brute_force():
    rng = random.Random(12345)
    differences = []
    n_options = 0
    for _ in range(10_000):
        position = small_position(rng)
        got, want = purchase_options(*position), brute_force(*position)
        n_options += len(want)
        if got != want:
            differences.append((position, got, want))
    assert differences == []
    assert n_options > 10_000  # the positions are not all trivial


def test_kernel_matches_reference(kernel):
    rng = random.Random(54321)
    differences = []
    sizes = [0] * (MAX_OPTIONS + 1)
    for _ in range(10_000):
        position = game_position(rng)
        got, want = kernel(position), purchase_options(*position)
        sizes[len(want)] += 1
        if got != want:
            differences.append((position, got, want))
    assert differences == []
    # Every outcome shows up: impossible, free, and fronts of several options.
    assert sizes[0] and sizes[1] and sum(sizes[3:])


def test_kernel_matches_reference_on_small_positions(kernel):
    rng = random.Random(777)
    for _ in range(2_000):
        position = small_position(rng)
        assert kernel(position) == purchase_options(*position), position


@pytest.mark.parametrize("dtype, out_dtype", [(np.int16, np.int32), (np.int64, np.int64)])
def test_kernel_other_dtypes(dtype, out_dtype):
    """Other input and output integer types give the same answers."""
    rng = random.Random(99)
    for name in sorted(HAND_CASES):
        position, expected = HAND_CASES[name]
        assert kernel_options(position, dtype, out_dtype) == expected
    for _ in range(300):
        position = game_position(rng)
        assert kernel_options(position, dtype, out_dtype) == purchase_options(*position)


def test_option_bound(kernel, tables):
    """At most 15 options for the game's costs (<= 7 units, prices 1-2): left coins lie in 0..14.

    A front has pairwise distinct left payments. Tried here on every cost of the data file,
    with neighbours selling everything at every combination of discounts, and on random
    7-unit costs with per-resource prices; the kernel must answer all of them.
    """
    assert MAX_OPTIONS == 16
    everything = [9] * N_RES
    costs = {tuple(int(x) for x in row) for row in tables.ent_cost}
    assert max(sum(c) for c in costs) == 7
    positions = [(list(cost), NONE, [], everything, [], everything, [],
                  prices(left_raw, left_manuf), prices(right_raw, right_manuf))
                 for cost in sorted(costs)
                 for left_raw, left_manuf, right_raw, right_manuf in product((1, 2), repeat=4)]
    rng = random.Random(2024)
    for _ in range(1_000):
        cost = [0] * N_RES
        for _ in range(7):
            cost[rng.randrange(N_RES)] += 1
        own_choices = [_random_mask(rng, list(range(N_RES))) for _ in range(rng.randint(0, 3))]
        positions.append((cost, NONE, own_choices, everything, [], everything, [],
                          [rng.choice((1, 2)) for _ in range(N_RES)],
                          [rng.choice((1, 2)) for _ in range(N_RES)]))
    largest = 0
    for position in positions:
        options = purchase_options(*position)
        assert kernel(position) == options, position
        largest = max(largest, len(options))
    assert 8 <= largest <= 15


def test_kernel_gives_up_beyond_its_bounds(kernel):
    """Far beyond the game's costs the kernel returns -1, never a wrong answer."""
    # 16 units, both sides at 1 coin: left payments up to 16, 17 options.
    position = (vec(stone=16), NONE, [], vec(stone=16), [], vec(stone=16), [], [1] * 7, [1] * 7)
    assert len(purchase_options(*position)) == 17
    assert kernel(position) is None
    # More listed choice units than the kernel holds (each can give either missing resource).
    many = MAX_CHOICE_SLOTS + 1
    position = (vec(wood=8, stone=8), NONE, [mask("wood", "stone")] * many, vec(wood=1), [],
                NONE, [], [1] * 7, [1] * 7)
    assert purchase_options(*position) == [(1, 0)]
    assert kernel(position) is None


def test_kernel_at_its_choice_slot_limit(kernel):
    """MAX_CHOICE_SLOTS listed units per source are still solved exactly."""
    unit = mask("wood", "stone")
    position = (vec(wood=8, stone=7), NONE, [unit] * MAX_CHOICE_SLOTS, vec(wood=1, stone=1),
                [unit] * MAX_CHOICE_SLOTS, vec(stone=1), [unit] * MAX_CHOICE_SLOTS,
                [1] * 7, P2)
    assert kernel(position) == purchase_options(*position) == [(1, 0), (0, 2)]


@njit(cache=True)
def _affordable_check(ent, seat, n, n_ent, opts):
    """(claims, wrong): how often trade.surely_affordable says a seat can pay an entity's cost with
    its coins, and how often the solver's first option then costs more or does not exist."""
    claims = wrong = 0
    for s in range(n):
        left, right = left_of(n, s), right_of(n, s)
        for b in range(8):
            budget = seat[s, F_COINS] if b == 7 else b
            for e in range(n_ent):
                if surely_affordable(ent, e, seat, s, left, right, budget):
                    claims += 1
                    k = trade_options_at(ent, e, seat, s, left, right, opts)
                    if k < 1 or opts[0, 0] + opts[0, 1] > budget:
                        wrong += 1
    return claims, wrong


def test_surely_affordable_never_claims_a_purchase_the_solver_denies(tables):
    """The random policy lists a pair unpriced on this test's word (turn.legal_moves' lazy): it
    must never call affordable what the solver would not."""
    claims = 0
    opts = np.zeros((MAX_OPTIONS, 2), np.int32)
    for game, players in enumerate((3, 5, 7)):
        for g in random_positions(tables, players, seed=3, game=game):
            made, wrong = _affordable_check(tables.ent, g.seat, np.int64(g.n), np.int64(tables.n_ent), opts)
            assert wrong == 0
            claims += made
    assert claims > 1000


@njit(cache=True)
def _packed_helpers(values, out):
    for i in range(values.shape[0]):
        out[i, 0] = bit_count(values[i] & 0xFFFFFFFF)
        out[i, 1] = packed_sum(values[i])
        out[i, 2] = packed_support(values[i])


def test_the_packed_helpers_the_heuristic_uses():
    rng = np.random.default_rng(3)
    fields = rng.integers(0, 128, size=(2000, 7))
    fields[rng.random(fields.shape) < 0.5] = 0
    values = (fields << (8 * np.arange(7))).sum(axis=1).astype(np.int64)
    out = np.zeros((len(values), 3), np.int64)
    _packed_helpers(values, out)
    for v, f, (bits, total, support) in zip(values.tolist(), fields.tolist(), out.tolist()):
        assert bits == bin(v & 0xFFFFFFFF).count("1")
        assert total == sum(f)
        assert support == sum(1 << r for r in range(7) if f[r])
