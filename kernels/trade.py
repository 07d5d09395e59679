"""Exact trading solver (docs/rules.md §3–§4), numba kernel: trade_options.

Same answers as wsim.reference.trade.purchase_options, for the hot path: integers only, no
allocation, the caller owns the output buffer.

Why the vectors are packed into int64 scalars: a whole vector is then compared, subtracted or
tested in a few instructions, and the city keeps its own packed copies up to date as entities
enter it (layout.F_PK_*: production, what each resource's choice units could add, what it sells,
its prices; E_COST_PK for costs), so a call reads a handful of words instead of dozens of
fields. The search helpers take and return scalars; only trade_options_at, _solve and their
inlined readers touch arrays.

Packed layouts (all int64; numba marks signed arithmetic as non-overflowing, so nothing here
ever reaches bit 63):
- count vector: resource r in bits 8r..8r+7, counts 0..127. Bit 7 of each field stays clear and
  serves as a guard, so field-wise subtraction against a guarded operand never borrows across
  fields (see _sat_sub).
- unit list: up to 7 choice units per word, unit i of a word in bits 8i..8i+7 (its 7-bit mask,
  reduced to the resources that matter; 0 = empty slot); two words per source.
- front: for each left payment L in 0..15, the least right payment seen with exactly L, as a
  7-bit slot (127 = none yet): L 0..7 in one word, 8..15 in another.

Bounds: two Pareto-minimal options never pay the left neighbour the same amount (one would
dominate the other), so there are at most (largest left payment + 1) options. The front holds
left payments 0..15, so out's MAX_OPTIONS = 16 rows always suffice, and right payments 0..126.
In the game only missing units are bought, at most 7 (the largest cost), at 1 or 2 coins each:
left payments lie in 0..14, hence at most 15 options. Inputs beyond these limits, or with more
than MAX_CHOICE_SLOTS choice units of one source that matter (the game has at most 10), make
trade_options return -1 rather than a wrong answer.
"""

import numpy as np
from numba import njit

from wsim.codes import N_RES, TRADE_PRICE
from wsim.kernels.layout import (E_COST_PK, E_COUNT, F_CHOICE, F_COUNT, F_NCHOICE, F_NSELL_CHOICE, F_PK_LP,
                                 F_PK_PROD, F_PK_REACH, F_PK_RP, F_PK_SELL, F_PK_SELL_CAP, F_SELL_CH, MAX_CHOICE,
                                 MAX_CHOICE_SLOTS, MAX_OPTIONS)

_GUARD = 0x80808080808080  # bit 7 of each of the 7 fields
_LOW7 = 0x7F7F7F7F7F7F7F  # 127 in each field
_ONES = 0x01010101010101  # 1 in each field
_FIELD = 0x7F
_NO_RIGHT = 127  # front slot value: no option with this left payment yet
_EMPTY_FRONT = 0x7F7F7F7F7F7F7F7F  # 8 slots of _NO_RIGHT
_MAX_LEFT = MAX_OPTIONS - 1
_MAX_RIGHT = 126
_OVERFLOW = 0x80  # flag in the low front word (bit 7 of a slot is otherwise always clear)


@njit(cache=True, inline="always")
def _sat_sub(a, b):
    """Field-wise max(0, a - b) of packed vectors."""
    # Each field of (a | guard) is 128 + a_r > b_r, so no borrow leaves a field; the guard bit
    # survives exactly where a_r >= b_r, and there the low 7 bits hold a_r - b_r.
    d = (a | _GUARD) - b
    keep = d & _GUARD
    return d & (keep - (keep >> 7))


@njit(cache=True, inline="always")
def _support(v):
    """7-bit mask of the non-zero fields of a packed vector."""
    x = ((v + _LOW7) & _GUARD) >> 7  # bit 8r set iff field r > 0 (127 + field never carries)
    # Gather bits 0, 8, ..., 48 into bits 0..6 by halving the spacing three times.
    x = (x | (x >> 7)) & 0x0003000300030003
    x = (x | (x >> 14)) & 0x0000000F0000000F
    return (x | (x >> 28)) & 0x7F


@njit(cache=True, inline="always")
def _spread(mask):
    """The packed vector with a 1 in field r for each bit r of a 7-bit mask (_support undone)."""
    x = (mask | (mask << 28)) & 0x0000000F0000000F
    x = (x | (x << 14)) & 0x0003000300030003
    return (x | (x << 7)) & _ONES


@njit(cache=True, inline="always")
def _field_sum(v):
    """Sum of the fields of a packed vector."""
    v = (v & 0x00FF00FF00FF00FF) + ((v >> 8) & 0x00FF00FF00FF00FF)
    v = (v & 0x0000FFFF0000FFFF) + ((v >> 16) & 0x0000FFFF0000FFFF)
    return (v & 0xFFFFFFFF) + (v >> 32)


@njit(cache=True, inline="always")
def _count_slots(w):
    """Number of non-empty slots of a unit-list word."""
    x = ((w + _LOW7) & _GUARD) >> 7  # 1 in each non-empty slot
    x += x >> 8
    x += x >> 16
    x += x >> 32
    return x & 0xFF


@njit(cache=True, inline="always")
def _dot(v, price):
    """Coins for the packed units v at the packed per-resource prices."""
    total = 0
    for r in range(N_RES):
        total += ((v >> (8 * r)) & _FIELD) * ((price >> (8 * r)) & _FIELD)
    return total


@njit(cache=True, inline="always")
def _push(w0, w1, n, mask):
    """Appends a unit to a two-word unit list of n units; returns (w0, w1, n + 1).

    Past MAX_CHOICE_SLOTS units only the count grows; trade_options_at then gives up.
    """
    if n < 7:
        w0 |= mask << (8 * n)
    elif n < MAX_CHOICE_SLOTS:
        w1 |= mask << (8 * (n - 7))
    return w0, w1, n + 1


@njit(cache=True, inline="always")
def _units_cover(deficit, w0, w1):
    """True if the units of a unit list can give the packed deficit, one unit each.

    Hall's condition for the bipartite matching of needed units to choice units: every set S of
    resources needs at most as many units as there are units whose mask meets S. Only subsets
    of the deficit's support can fail, and the support itself (the total count, which fails
    most often) is tried first.
    """
    support = _support(deficit)
    subset = support
    while subset:
        demand = _field_sum(deficit & (_spread(subset) * _FIELD))
        meets = subset * _ONES
        if demand > _count_slots(w0 & meets) + _count_slots(w1 & meets):
            return False
        subset = (subset - 1) & support
    return True


@njit(cache=True, inline="always")
def _deficiency(need, w0, w1):
    """How many units of the packed need the units of a unit list must leave short, at least.

    The deficiency form of Hall's theorem: the largest matching of needed units to choice
    units leaves max(0, max over resource sets S of need(S) - #units meeting S) short.
    """
    support = _support(need)
    worst = 0
    subset = support
    while subset:
        meets = subset * _ONES
        short = (_field_sum(need & (_spread(subset) * _FIELD))
                 - _count_slots(w0 & meets) - _count_slots(w1 & meets))
        worst = max(worst, short)
        subset = (subset - 1) & support
    return worst


@njit(cache=True, inline="always")
def _gives(v, fixed, w0, w1):
    """True if a neighbour with packed fixed units and a unit list can sell the packed v."""
    deficit = _sat_sub(v, fixed)
    return deficit == 0 or _units_cover(deficit, w0, w1)


@njit(cache=True, inline="always")
def _record(lo, hi, left, right):
    """Notes a feasible purchase in the front words; returns the updated (lo, hi).

    A purchase beyond the front's bounds sets the _OVERFLOW flag instead.
    """
    if left > _MAX_LEFT or right > _MAX_RIGHT:
        return lo | _OVERFLOW, hi
    if left < 8:
        shift = 8 * left
        seen = (lo >> shift) & _FIELD
        if right < seen:
            lo ^= (seen ^ right) << shift
    else:
        shift = 8 * (left - 8)
        seen = (hi >> shift) & _FIELD
        if right < seen:
            hi ^= (seen ^ right) << shift
    return lo, hi


@njit(cache=True, _nrt=False)
def _buy(need, left, right, lo, hi):
    """Records every way to buy the packed vector need from the two neighbours, each a seller
    tuple (fixed, cap, listed words 0 and 1, price: `_seller` and the buyer's packed prices).

    Each cap bounds what that neighbour could sell of each resource (fixed units plus every
    choice unit mentioning it), which pins the range of left units per resource before the exact
    checks. The split is then enumerated like an odometer over the left units, with the coins
    kept up to date incrementally. Returns the updated front words (lo, hi).
    """
    left_fixed, left_cap, left0, left1, left_price = left
    right_fixed, right_cap, right0, right1, right_price = right
    top = need - _sat_sub(need, left_cap)  # at most what the left could sell
    bottom = _sat_sub(need, right_cap)  # at least what the right cannot sell
    if _sat_sub(bottom, top) != 0:
        return lo, hi
    span = top - bottom
    varying = _support(span)
    lv = bottom
    coins_left = _dot(bottom, left_price)
    coins_right = _dot(need - bottom, right_price)
    while True:
        if (_gives(lv, left_fixed, left0, left1)
                and _gives(need - lv, right_fixed, right0, right1)):
            lo, hi = _record(lo, hi, coins_left, coins_right)
        advanced = False
        for r in range(N_RES):
            if not varying >> r & 1:
                continue
            shift = 8 * r
            if (lv >> shift) & _FIELD < (top >> shift) & _FIELD:
                lv += np.int64(1) << shift
                coins_left += (left_price >> shift) & _FIELD
                coins_right -= (right_price >> shift) & _FIELD
                advanced = True
                break
            back = (span >> shift) & _FIELD  # wrap this digit back to bottom and carry
            lv -= back << shift
            coins_left -= back * ((left_price >> shift) & _FIELD)
            coins_right += back * ((right_price >> shift) & _FIELD)
        if not advanced:
            return lo, hi


@njit(cache=True, _nrt=False)
def _search(need, own0, own1, n_listed, left, right):
    """The front words (lo, hi) of every purchase covering the packed shortfall need (left,
    right: the neighbours as sellers, `_buy`).

    The vectors the city's listed choice units (own0, own1: n_listed units) can give are the
    independent sets of a transversal matroid, so the maximal ones all have the same total,
    `need` minus the deficiency that Hall's theorem gives (_deficiency). Deficiency 0 means the
    city covers need: the front is the single option (0, 0). Otherwise each vector of that
    total the units can give (checked by Hall's condition) is a maximal one, and _buy splits
    the rest between the neighbours; smaller vectors only leave more to buy.
    """
    lo = np.int64(_EMPTY_FRONT)  # int64 from the start: numba types a call at its first sight
    hi = np.int64(_EMPTY_FRONT)
    if n_listed == 0:
        return _buy(need, left, right, lo, hi)
    deficiency = _deficiency(need, own0, own1)
    if deficiency == 0:
        return _record(lo, hi, 0, 0)
    target = _field_sum(need) - deficiency
    # The units give only resources of their masks: odometer over those fields of need.
    masks = own0 | own1
    masks |= masks >> 8
    masks |= masks >> 16
    masks |= masks >> 32
    reach = need & (_spread(masks & _FIELD) * _FIELD)
    varying = _support(reach)
    given = 0
    total = 0
    while True:
        if total == target and _units_cover(given, own0, own1):
            lo, hi = _buy(need - given, left, right, lo, hi)
        advanced = False
        for r in range(N_RES):
            if not varying >> r & 1:
                continue
            shift = 8 * r
            digit = (given >> shift) & _FIELD
            if digit < (reach >> shift) & _FIELD:
                given += np.int64(1) << shift
                total += 1
                advanced = True
                break
            given -= digit << shift  # wrap this digit back to 0 and carry
            total -= digit
        if not advanced:
            return lo, hi


@njit(cache=True, inline="always")
def read_packed(table, row, col):
    """The packed vector kept split in table[row, col] (resources 0-3) and table[row, col + 1]
    (resources 4-6): schema.pack_halves."""
    return np.int64(table[row, col]) | (np.int64(table[row, col + 1]) << 32)


@njit(cache=True, inline="always")
def add_packed(table, row, col, v):
    """table[row, col:col + 2] += the packed vector v (split as read_packed reads it; the fields
    stay below 128, so no carry crosses a field or the halves)."""
    table[row, col] += v & 0xFFFFFFFF
    table[row, col + 1] += v >> 32


@njit(cache=True, inline="always")
def write_packed(table, row, col, v):
    """table[row, col:col + 2] = the packed vector v (split as read_packed reads it)."""
    table[row, col] = v & 0xFFFFFFFF
    table[row, col + 1] = v >> 32


@njit(cache=True, inline="always")
def packed_sum(v):
    """The sum of a packed count vector's fields."""
    return _field_sum(np.int64(v))


@njit(cache=True, inline="always")
def packed_support(v):
    """The 7-bit mask of a packed count vector's non-zero fields."""
    return _support(np.int64(v))


@njit(cache=True, inline="always")
def bit_count(x):
    """The number of set bits of a non-negative int below 2**32."""
    x = np.int64(x)
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    return (((x + (x >> 4)) & 0x0F0F0F0F) * 0x01010101 & 0xFFFFFFFF) >> 24


@njit(cache=True, inline="always")
def spread(mask):
    """The packed vector of one unit of each resource of a 7-bit mask (a choice unit's reach)."""
    return _spread(np.int64(mask))


@njit(cache=True, inline="always")
def _seller(seat, row, need):
    """What one neighbour can sell towards `need`: (fixed, cap, listed words 0 and 1, listed count).

    A choice unit is reduced to the resources its owner's fixed units might leave short; one
    that keeps a single resource is a fixed unit in effect, the others are listed. The cap
    counts, per resource, the fixed units and every unit that mentions it.
    """
    fix = read_packed(seat, row, F_PK_SELL)
    short = _support(_sat_sub(need, fix))
    cap = fix
    w0 = np.int64(0)  # int64 from the start (see _search)
    w1 = np.int64(0)
    listed = np.int64(0)
    for i in range(seat[row, F_NSELL_CHOICE]):
        useful = np.int64(seat[row, F_SELL_CH + i]) & short
        if useful & (useful - 1) == 0:
            fix += _spread(useful)
        else:
            w0, w1, listed = _push(w0, w1, listed, useful)
        cap += _spread(useful)
    return fix, cap, w0, w1, listed


@njit(cache=True, inline="always")
def _one_unit(need, seat, own, left, right, out):
    """trade_options_at's answer when `need` (packed) is a single unit that some source can give:
    the city's own choice units if one may give it, else one option per neighbour that can
    sell it (sorted as trade_options_at sorts)."""
    field = need * _FIELD
    if read_packed(seat, own, F_PK_REACH) & field:
        out[0, 0] = 0
        out[0, 1] = 0
        return 1
    shift = _support(need)  # a one-bit mask: its resource r
    r = 0
    while shift > 1:
        shift >>= 1
        r += 1
    n = 0
    if read_packed(seat, left, F_PK_SELL_CAP) & field:
        out[0, 0] = (read_packed(seat, own, F_PK_LP) >> (8 * r)) & _FIELD
        out[0, 1] = 0
        n = 1
    if read_packed(seat, right, F_PK_SELL_CAP) & field:
        price = (read_packed(seat, own, F_PK_RP) >> (8 * r)) & _FIELD
        if n == 1 and price <= out[0, 0]:  # cheaper, or as cheap and less to the left: first
            out[1, 0] = out[0, 0]
            out[1, 1] = 0
            out[0, 0] = 0
            out[0, 1] = price
        else:
            out[n, 0] = 0
            out[n, 1] = price
        n += 1
    return n


@njit(cache=True, inline="always")
def trade_options_at(ent, e, seat, own, left, right, out):
    """Every Pareto-minimal purchase (left coins, right coins) that lets seat `own` pay entity
    e's resource cost, its neighbours being seats `left` and `right`; written to out as
    trade_options writes them, and their number returned.

    Reads the packed columns the city keeps up to date (layout.F_PK_*, E_COST_PK) and the choice
    unit lists. Two questions are answered first, inline at the caller, and most often: the
    city's fixed production covers the cost (a third of the game's calls), or no purchase can
    (half of them: some resource is needed more times than the city's choice units and both
    neighbours' sellable units could give together). _solve answers the rest.
    """
    need = _sat_sub(read_packed(ent, e, E_COST_PK), read_packed(seat, own, F_PK_PROD))
    if need == 0:
        out[0, 0] = 0
        out[0, 1] = 0
        return 1
    beyond = _sat_sub(_sat_sub(_sat_sub(need, read_packed(seat, own, F_PK_REACH)),
                               read_packed(seat, left, F_PK_SELL_CAP)), read_packed(seat, right, F_PK_SELL_CAP))
    if beyond != 0:
        return 0
    return _solve(need, seat, own, left, right, out)


@njit(cache=True, inline="always")
def surely_affordable(ent, e, seat, own, left, right, budget):
    """Whether seat `own` can certainly pay entity e's resource cost with at most `budget` coins,
    known without the solver: the neighbours' fixed sellable units cover what the city's fixed
    production lacks, and buying all of it at the full price fits. False says nothing (the city
    pays nothing, or the solver must tell); the random policy lists such a pair unpriced."""
    need = _sat_sub(read_packed(ent, e, E_COST_PK), read_packed(seat, own, F_PK_PROD))
    if need == 0:
        return False
    sellers = read_packed(seat, left, F_PK_SELL) + read_packed(seat, right, F_PK_SELL)
    return _sat_sub(need, sellers) == 0 and TRADE_PRICE * _field_sum(need) <= budget


@njit(cache=True, _nrt=False)
def _solve(need, seat, own, left, right, out):
    """trade_options_at for a packed shortfall `need` that the sources might cover.

    A single missing unit is priced directly (a third of these calls). Otherwise a choice unit,
    of the city or a neighbour, that can give only one resource that may be needed is as good
    as a fixed unit of it and is folded in; the others go to unit lists. _search then explores
    the city's listed units and _buy the neighbours' splits, every neighbour's part checked
    exactly (fixed units first, then its listed units by Hall's condition).
    """
    if need & (need - 1) == 0 and need & _ONES == need:
        return _one_unit(need, seat, own, left, right, out)
    own0 = np.int64(0)  # int64 from the start (see _search)
    own1 = np.int64(0)
    n_listed = np.int64(0)
    for i in range(seat[own, F_NCHOICE]):
        useful = np.int64(seat[own, F_CHOICE + i]) & _support(need)
        if useful & (useful - 1) == 0:
            need = _sat_sub(need, _spread(useful))  # no-op for a useless unit (useful == 0)
        else:
            own0, own1, n_listed = _push(own0, own1, n_listed, useful)

    left_fix, left_cap, left0, left1, n_left_listed = _seller(seat, left, need)
    right_fix, right_cap, right0, right1, n_right_listed = _seller(seat, right, need)

    left_p = read_packed(seat, own, F_PK_LP)
    if need == 0:
        lo, hi = _record(_EMPTY_FRONT, _EMPTY_FRONT, 0, 0)
    elif max(n_listed, n_left_listed, n_right_listed) > MAX_CHOICE_SLOTS:
        return -1
    else:
        lo, hi = _search(need, own0, own1, n_listed, (left_fix, left_cap, left0, left1, left_p),
                         (right_fix, right_cap, right0, right1, read_packed(seat, own, F_PK_RP)))
    if lo & _OVERFLOW:
        return -1

    # The front: scanning left payments upwards, keep each one that lowers the right payment.
    n = 0
    best_right = _NO_RIGHT
    for left_coins in range(min(_MAX_LEFT, _dot(need, left_p)) + 1):  # no more than buying all from the left
        if left_coins < 8:
            right_coins = (lo >> (8 * left_coins)) & _FIELD
        else:
            right_coins = (hi >> (8 * (left_coins - 8))) & _FIELD
        if right_coins < best_right:
            best_right = right_coins
            # Insertion into out[:n], ordered by total coins then left coins.
            j = n
            while j > 0 and out[j - 1, 0] + out[j - 1, 1] > left_coins + right_coins:
                out[j, 0] = out[j - 1, 0]
                out[j, 1] = out[j - 1, 1]
                j -= 1
            out[j, 0] = left_coins
            out[j, 1] = right_coins
            n += 1
            if right_coins == 0:  # nothing can pay the right less
                break
    return n


@njit(cache=True, _nrt=True)
def trade_options(cost, own, left, right, left_price, right_price, out):
    """Every Pareto-minimal purchase (left coins, right coins) that lets a city pay `cost`.

    own, left, right: the city and its neighbours, each a tuple (fixed, choices, n): fixed a
    length-7 integer array, choices an integer array of 7-bit masks of which the first n count;
    cost, *_price: length-7 integer arrays (codes.RESOURCES order, values 0..127); out: integer array
    of shape (MAX_OPTIONS, 2). Writes the options to out[:k], sorted by total coins then left
    coins, and returns k: 0 when no purchase can cover the cost, 1 with out[0] = (0, 0) when the
    city's own production does, -1 for inputs beyond the kernel's bounds (see the module
    docstring; never with the game's data). Same rules and answers as
    wsim.reference.trade.purchase_options.

    Writes the position into seat rows for trade_options_at (it allocates: the game kernels call
    trade_options_at on their own state instead): the city at row 0, its neighbours at 1 and 2.
    """
    own_fixed, own_choices, n_own = own
    if max(n_own, max(left[2], right[2])) > MAX_CHOICE:
        return -1
    ent = np.zeros((1, E_COUNT), np.int32)
    seat = np.zeros((3, F_COUNT), np.int32)
    write_packed(ent, 0, E_COST_PK, _pack(cost))
    write_packed(seat, 0, F_PK_PROD, _pack(own_fixed))
    write_packed(seat, 0, F_PK_LP, _pack(left_price))
    write_packed(seat, 0, F_PK_RP, _pack(right_price))
    seat[0, F_NCHOICE] = n_own
    for i in range(n_own):
        seat[0, F_CHOICE + i] = own_choices[i]
        add_packed(seat, 0, F_PK_REACH, spread(own_choices[i]))
    for row in range(1, 3):
        fixed, choices, k = left if row == 1 else right
        write_packed(seat, row, F_PK_SELL, _pack(fixed))
        write_packed(seat, row, F_PK_SELL_CAP, _pack(fixed))
        seat[row, F_NSELL_CHOICE] = k
        for i in range(k):
            seat[row, F_SELL_CH + i] = choices[i]
            add_packed(seat, row, F_PK_SELL_CAP, spread(choices[i]))
    return trade_options_at(ent, 0, seat, 0, 1, 2, out)


@njit(cache=True, inline="always")
def _pack(v):
    """The packed form of a length-7 count vector."""
    p = np.int64(0)
    for r in range(N_RES):
        p |= np.int64(v[r]) << (8 * r)
    return p
