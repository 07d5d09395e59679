"""Final scoring (docs/rules.md §7), with every end-of-game choice made for the best total.

The choices: science wildcards (assigned jointly), Olympia B3 guild copies (or a Manneken Pis
copy of one), and, for a Manneken Pis A city whose stage-3 neighbour is not fixed (a scenario
without `copy3`), which neighbour stage 3 copies. Ties between choices keep the first one tried
(left before right, lower card id first), which never changes a score.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from wsim import codes
from wsim.reference.state import Position


@dataclass(frozen=True)
class Score:
    """One seat's final breakdown, in the categories of docs/interfaces.md §1."""

    military: int
    treasury: int
    wonder: int
    civilian: int
    science: int
    commercial: int
    guild: int

    @property
    def total(self) -> int:
        return (self.military + self.treasury + self.wonder + self.civilian + self.science
                + self.commercial + self.guild)

    def as_dict(self, seat: int) -> dict:
        d = {"seat": seat}
        d.update({c: getattr(self, c) for c in codes.CATEGORIES})
        d["total"] = self.total
        return d


def science_points(counts, wildcards: int) -> int:
    """c1^2 + c2^2 + c3^2 + 7 min(c1, c2, c3), wildcards assigned to the best symbols."""
    best = 0
    for a in range(wildcards + 1):
        for b in range(wildcards - a + 1):
            c = (counts[0] + a, counts[1] + b, counts[2] + wildcards - a - b)
            best = max(best, c[0] ** 2 + c[1] ** 2 + c[2] ** 2 + codes.SCIENCE_SET_POINTS * min(c))
    return best


def _score_fixed(pos: Position, seat: int, copies: tuple) -> Score:
    """The seat's score with its guild copies (card ids) fixed."""
    t = pos.t
    city = pos.cities[seat]
    wonder = sum(int(t.ent_points[e]) for e in pos.stage_entities(seat))
    civilian = commercial = guild = 0
    symbols = [0, 0, 0]
    wild = 0
    for e in pos.entities(seat) + list(copies):
        sym = int(t.ent_science[e])
        if sym == codes.SCI_ANY:
            wild += 1
        elif sym >= 0:
            symbols[sym] += 1
    for c in city.cards:
        kind = int(t.ent_kind[c])
        pts = int(t.ent_points[c]) + pos.count(seat, t.ent_points_per[c], extra_purple=len(copies))
        if kind == codes.BLUE:
            civilian += pts
        elif kind == codes.YELLOW:
            commercial += pts
        elif kind == codes.PURPLE:
            guild += pts
    for g in copies:
        guild += int(t.ent_points[g]) + pos.count(seat, t.ent_points_per[g], extra_purple=len(copies))
    return Score(
        military=sum(city.tokens),
        treasury=city.coins // codes.COINS_PER_POINT,
        wonder=wonder,
        civilian=civilian,
        science=science_points(symbols, wild),
        commercial=commercial,
        guild=guild,
    )


def _guild_candidates(pos: Position, seat: int) -> list:
    """Distinct guild cards in the two neighbouring cities, by card id."""
    t = pos.t
    found = set()
    for nb in (pos.left(seat), pos.right(seat)):
        found.update(c for c in pos.cities[nb].cards if t.ent_kind[c] == codes.PURPLE)
    return sorted(found)


def best_score(pos: Position, seat: int) -> Score:
    """The seat's final score, every end-of-game choice made to maximise its total."""
    city = pos.cities[seat]
    t = pos.t
    first = t.stage_entity(city.board, city.side, 2)
    open_copy3 = city.copy3 < 0 and city.stages >= 3 and first >= 0 and t.copies_chosen_neighbour(first)
    choices3 = (codes.COPY_LEFT, codes.COPY_RIGHT) if open_copy3 else (city.copy3,)
    best = None
    for choice in choices3:
        city.copy3 = choice
        n_copies = sum(1 for e in pos.entities(seat) if t.ent_power[e] == codes.POW_COPY_GUILD)
        candidates = _guild_candidates(pos, seat)
        picks = itertools.product(candidates, repeat=n_copies) if candidates else [()]
        for copies in picks:
            s = _score_fixed(pos, seat, tuple(copies))
            if best is None or s.total > best.total:
                best = s
    if open_copy3:
        city.copy3 = -1
    return best


def score_all(pos: Position) -> tuple:
    """(scores by seat, ranks by seat, winners) for a finished position.

    rank = 1 + the players with more points, or equal points and more coins; winners have
    rank 1. A Free City is scored in full but ranks against nobody: its rank is None.
    """
    scores = [best_score(pos, s) for s in range(pos.n)]
    players = pos.player_seats()
    ranks = [None] * pos.n
    for s in players:
        mine = (scores[s].total, pos.cities[s].coins)
        ranks[s] = 1 + sum(1 for o in players if (scores[o].total, pos.cities[o].coins) > mine)
    winners = [s for s in players if ranks[s] == 1]
    return scores, ranks, winners
