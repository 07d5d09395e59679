"""A plain-Python model of what one seat knows of this age's hidden cards, for the tests of
kernels/hidden.py: where each hidden card may be, and with which others it can trade places.

Written from docs/rules.md §2 directly, with lists and dicts: follow every card of the age from the
deal, through each turn's plays (st.hist) and discard builds (st.took), noting the last turn the
seat saw it in its hand. A hidden card's group is that turn (0: never seen this age); a uniform
draw over the deals the seat cannot tell apart puts each group's cards uniformly over the
group's places.

At 2 players docs/rules.md §10 binds the Free City: a discard or a stage it made at a turn the other
player controlled it (the seat saw the action, not the card) was legal then, so the deals the
seat cannot tell apart are only those where each such card was. The place of that play is its
own (("pile", "fc", u), ("tucked", "fc", u)), and `fc_allowed` says which cards it may hold, by
the reference engine (wsim.reference.engine.free_city_moves) on the cities as they stood at the
start of turn u, which the test records while it plays (`position_now`). `expected_counts` then
enumerates the allowed assignments of a group's cards to those places.
"""

from __future__ import annotations

from collections import Counter
from itertools import permutations
from math import comb

from wsim import codes
from wsim.kernels.layout import (F_BOARD, F_CARDS, F_COINS, F_COPY3, F_FREE_AGE, F_NCARDS, F_SIDE, F_STAGES, G_AGE,
                                 G_FC, G_NTOOK, G_TURN)
from wsim.reference.engine import free_city_moves
from wsim.reference.state import City, Position


def _in_pile(where) -> bool:
    """Whether a card's `where` (hidden_places) is the discard pile, a Free City place included."""
    return where == "pile" or (isinstance(where, tuple) and where[0] == "pile")


def hidden_places(game, who: int) -> list:
    """[(place, group, card)] for every card of the current age `who` cannot see, where place is
    ("hand", seat), ("fc_pile",), ("pile",) or ("tucked",), or for the Free City's discard or
    stage of turn u, made by the other player, ("pile", "fc", u) or ("tucked", "fc", u)."""
    gs, state = game.gs, game.state
    age, now, fc, n = int(gs[G_AGE]), int(gs[G_TURN]), int(gs[G_FC]), game.n
    dealt, hist, took = state["dealt"][0][age - 1], state["hist"][0], state["took"][0][:int(gs[G_NTOOK])]

    def holding(s, u):
        step = u - 1
        if fc >= 0:
            return s if step % 2 == 0 else 1 - s
        return (s + step) % n if age == 2 else (s - step) % n

    cards = []  # [card, where, group]: where is a hand (the seat it was dealt to), "fc", "pile", "tucked", "shown"
    for s in range(n):
        if s != fc:
            cards += [[int(c), s, 0] for c in dealt[s]]
    pile_cards = [[int(c), "fc", 0] for c in dealt[fc]] if fc >= 0 else []
    cards += pile_cards
    for u in range(1, now + 1):
        if fc >= 0:
            pile_cards[u - 1][1] = holding(codes.fc_controller(age, u), u)
        for card in cards:
            if card[1] == holding(who, u):
                card[2] = u
        rows = (u - 1, codes.TURNS_PER_AGE) if u == codes.TURNS_PER_AGE else (u - 1,)
        for row in rows:
            for s in range(n):
                c, action = int(hist[row, s, 0]), int(hist[row, s, 1])
                if c < 0:
                    continue
                holder = codes.fc_controller(age, u) if s == fc else s
                card = next(x for x in cards if x[0] == c and x[1] == holding(holder, u))
                if holder == who or action in (codes.ACT_BUILD, codes.ACT_BUILD_FREE):
                    card[1] = "shown"
                else:
                    card[1] = "pile" if action == codes.ACT_DISCARD else "tucked"
                    if s == fc:  # a play §10 constrains: a place of its own
                        card[1] = (card[1], "fc", u)
        for turn, c in took:
            if turn == u:
                # the first hidden discard of that card in deal order, the Free City's too (the
                # kernels' simplification, docs/choices.md)
                card = next((x for x in cards if x[0] == c and _in_pile(x[1])), None)
                if card is not None:
                    card[1] = "shown"
    mine = holding(who, now)
    out = []
    for c, where, group in cards:
        if where == "shown" or where == mine:
            continue
        if isinstance(where, int):
            place = ("hand", next(s for s in range(n) if s != fc and holding(s, now) == where))
        elif isinstance(where, tuple):
            place = where
        else:
            place = ("fc_pile",) if where == "fc" else (where,)
        out.append((place, group, c))
    return out


def position_now(tables, game) -> Position:
    """The cities of a kernel game now as the reference engine's Position, from their public
    columns only (what every seat sees, docs/rules.md §2)."""
    seat = game.seat
    cities = [City(board=int(seat[s, F_BOARD]), side=int(seat[s, F_SIDE]), coins=int(seat[s, F_COINS]),
                   cards=[int(c) for c in seat[s, F_CARDS:F_CARDS + seat[s, F_NCARDS]]], stages=int(seat[s, F_STAGES]),
                   copy3=int(seat[s, F_COPY3]), free_build_age=int(seat[s, F_FREE_AGE])) for s in range(game.n)]
    return Position(tables, cities, free_city=int(game.gs[G_FC]))


def is_fc_place(place) -> bool:
    """Whether a place of hidden_places is a Free City play §10 constrains."""
    return len(place) == 3 and place[1] == "fc"


def fc_allowed(starts: dict, age: int):
    """allowed(place, card): whether `card` may be at `place`. A Free City place of turn u holds
    only a card the Free City could discard (or stage with) on the cities of starts[u] (the
    Position at the start of turn u, `position_now`), by the reference engine; any other place
    holds any card."""
    action = {"pile": codes.ACT_DISCARD, "tucked": codes.ACT_STAGE}

    def allowed(place, card) -> bool:
        if not is_fc_place(place):
            return True
        return any(m.action == action[place[0]] for m in free_city_moves(starts[place[2]], [card], age, None))
    return allowed


def unseen_guilds(tables, game, who: int) -> list:
    """The guilds `who` has not seen: in no city, and not among the cards of this age it saw (any
    dealt this age but those hidden_places lists with group 0)."""
    seat = game.seat
    in_cities = {int(c) for s in range(game.n) for c in seat[s, F_CARDS:F_CARDS + seat[s, F_NCARDS]]}
    dealt = game.state["dealt"][0][int(game.gs[G_AGE]) - 1]
    this_age = Counter(int(c) for s in range(game.n) for c in dealt[s])
    seen = this_age - Counter(c for _, group, c in hidden_places(game, who) if group == 0)
    return [c for c in range(tables.n_cards)
            if tables.ent_kind[c] == codes.PURPLE and c not in in_cities and not seen[c]]


def expected_counts(places: list, draws: int, allowed=None, guilds=None) -> Counter:
    """Expected count of each (place, card) over `draws` uniform draws over the deals the seat
    cannot tell apart. allowed(place, card) (fc_allowed; None: any card anywhere) binds the Free
    City's places: for each group, every injective assignment of its cards (copies taken apart)
    to those places that `allowed` accepts, the group's other cards then uniform over its other
    places. guilds: in Age III, the guilds the seat has not seen (unseen_guilds): the group-0
    guilds are any of them (as many as the group holds), an assignment counting for its
    C(unseen left, guilds left) completions; None: the guilds stay cards of their group
    (callers then leave Age III out)."""
    allowed = allowed or (lambda place, card: True)
    groups = {}
    for place, group, c in places:
        groups.setdefault(group, []).append((place, c))
    out = Counter()
    for group, entries in groups.items():
        unseen = list(guilds) if guilds is not None and group == 0 else []
        fixed = [c for _, c in entries if c not in unseen]
        n_guilds = len(entries) - len(fixed)
        pool = fixed + unseen
        bound = [p for p, _ in entries if is_fc_place(p)]
        free = [p for p, _ in entries if not is_fc_place(p)]
        weighted = []
        for a in permutations(range(len(pool)), len(bound)):
            if all(allowed(p, pool[i]) for p, i in zip(bound, a)):
                gu = sum(i >= len(fixed) for i in a)
                w = comb(len(unseen) - gu, n_guilds - gu) if gu <= n_guilds else 0
                if w:
                    weighted.append((a, gu, w))
        total = sum(w for _, _, w in weighted)
        assert total > 0, ("no deal makes the Free City's plays legal", group, entries)
        for a, gu, w in weighted:
            share = draws * w / total
            for p, i in zip(bound, a):
                out[(p, pool[i])] += share
            rest = Counter(fixed[i] for i in range(len(fixed)) if i not in a)
            left = [pool[i] for i in range(len(fixed), len(pool)) if i not in a]
            for p in free:
                for c, k in rest.items():
                    out[(p, c)] += share * k / len(free)
                for c in left:  # an unseen guild left is dealt with chance (guilds left) / (unseen left)
                    out[(p, c)] += share * (n_guilds - gu) / len(left) / len(free)
    return out


def observed(places: list) -> Counter:
    """The count of each (place, card) in one world."""
    return Counter((place, c) for place, _, c in places)

