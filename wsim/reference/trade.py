"""Exact trading solver (docs/rules.md §3–§4), plain-Python reference.

Given a resource cost and what the city and its two neighbours produce, list every Pareto-minimal
way to pay for the missing units: pairs (coins to the left neighbour, coins to the right one).
The numba kernel wsim.kernels.trade computes the same lists; this version is written to be read.

Vectors are length-7 counts in codes.RESOURCES order; a choice unit is a 7-bit mask (bit i =
resource i) and gives one unit of any one resource of its mask, chosen per build.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import product

from wsim.codes import N_RES


def purchase_options(cost, own_fixed, own_choices, left_fixed, left_choices,
                     right_fixed, right_choices, left_price, right_price) -> list[tuple[int, int]]:
    """purchase_options of the arguments (memoised: the same question recurs turn after turn)."""
    args = [tuple(int(x) for x in a) for a in (cost, own_fixed, left_fixed, right_fixed, left_price, right_price)]
    choices = [tuple(sorted(int(m) for m in c)) for c in (own_choices, left_choices, right_choices)]
    return list(_options(args[0], args[1], choices[0], args[2], choices[1], args[3], choices[2], args[4], args[5]))


@lru_cache(maxsize=1 << 15)
def _options(cost, own_fixed, own_choices, left_fixed, left_choices,
             right_fixed, right_choices, left_price, right_price) -> tuple:
    """Every Pareto-minimal purchase (left coins, right coins) that lets the city pay `cost`.

    cost, *_fixed, *_price: length-7 integer sequences; *_choices: sequences of 7-bit masks.
    Each unit of the city or of a neighbour serves at most one unit of the cost; a neighbour's
    unit costs the buyer left_price[r] or right_price[r] coins for resource r.

    Returns distinct pairs, none dominated by another feasible purchase (one paying no more to
    each neighbour and less to one), sorted by total coins then left coins. [(0, 0)] when the
    city's own production covers the cost, [] when no purchase can.

    Method: the cost is split, resource by resource, into the units the city makes itself and
    those bought from each neighbour. A source (the city or a neighbour) can supply a vector of
    units exactly when its fixed units, used first, leave a deficit its choice units can cover
    one unit each: a bipartite matching, decided by Hall's condition (every set S of resources
    needs at most as many units as there are choice units whose mask meets S). Listing each
    source's suppliable vectors below the cost, then trying every split own + left + right =
    cost and keeping those whose three parts are suppliable, gives every feasible purchase
    (buying more than the cost only adds coins, so it never matters); the Pareto filter keeps
    the minimal ones.
    """
    cost = tuple(int(c) for c in cost)
    if not any(cost) or can_supply(cost, own_fixed, own_choices):
        return [(0, 0)]  # buying nothing is feasible, so it dominates every purchase
    own = _suppliable(cost, own_fixed, own_choices)
    left = _suppliable(cost, left_fixed, left_choices)
    right = _suppliable(cost, right_fixed, right_choices)
    # Per resource, every way to split its count between (own, left, right).
    splits = [[(o, lv, c - o - lv) for o in range(c + 1) for lv in range(c - o + 1)]
              for c in cost]
    purchases = set()
    for split in product(*splits):
        o, lv, rv = zip(*split)
        if o in own and lv in left and rv in right:
            purchases.add((_coins(lv, left_price), _coins(rv, right_price)))
    return tuple(pareto_front(purchases))


def can_supply(want, fixed, choices) -> bool:
    """True if a source with these fixed units and choice units can give the vector `want`."""
    deficit = [max(0, int(w) - int(f)) for w, f in zip(want, fixed)]
    support = sum(1 << r for r in range(N_RES) if deficit[r])
    # Hall's condition: only sets of resources inside the deficit's support can fail it (adding
    # a resource nobody needs adds no demand and possibly more units).
    subset = support
    while subset:
        demand = sum(deficit[r] for r in range(N_RES) if subset >> r & 1)
        units = sum(1 for mask in choices if int(mask) & subset)
        if demand > units:
            return False
        subset = (subset - 1) & support
    return True


def pareto_front(pairs) -> list[tuple[int, int]]:
    """The distinct pairs no other pair dominates, sorted by total then first coordinate."""
    pairs = set(pairs)
    front = [p for p in pairs
             if not any(q != p and q[0] <= p[0] and q[1] <= p[1] for q in pairs)]
    return sorted(front, key=lambda p: (p[0] + p[1], p[0]))


def _suppliable(cost, fixed, choices) -> set[tuple[int, ...]]:
    """Every vector v <= cost (component-wise) the source can give."""
    return {v for v in product(*(range(c + 1) for c in cost)) if can_supply(v, fixed, choices)}


def _coins(units, price) -> int:
    return sum(u * int(p) for u, p in zip(units, price))
