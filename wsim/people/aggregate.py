"""Games summed up for a comparison with people: one aggregator for the human games and for any dataset.

The input is a *seat table*: a dict of equal-length numpy arrays, one entry per seat (the Free
City's rows left out), with the columns of SEAT_COLUMNS; a column a source cannot give (a
dataset of schema 1 or 2 has no `discards`) is simply absent, and so is every statistic of it.
`aggregate` sums it into moments (count, sum, sum of squares) per group, from which every mean,
rate and interval follows; sums add, so two aggregates of disjoint games merge by addition.

Groups:
- seat groups: (players, tables, wonder, side), with `tables` "all" (every game) or "all_b" (the
  games whose every board is on side B: people chose their sides, so a side's rate is clean only
  there), `wonder` a board id or "*" (every board), `side` "A", "B" or "*" (either);
- game groups: (players, tables), one observation per game (its mean points, winner, last, gap);
- winner groups: (players, tables), one observation per first-placed seat, weighted 1/k when k
  seats share first place (so the weights count games).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np

# the normal quantile of 0.975 (as wsim.analysis.stats.Z95, which sits a layer above this module:
# `wsim simulate`'s summary sums its games into an Aggregate)
Z95 = NormalDist().inv_cdf(0.975)

CATEGORIES = ("vp_military", "vp_treasury", "vp_wonder", "vp_civilian", "vp_science", "vp_commercial", "vp_guild")
COLOURS = ("civilian_cards", "science_cards", "guild_cards", "military_cards", "commercial_cards", "raw_cards",
           "manufactured_cards")
BEHAVIOUR = ("stages", "discards", "chained", "coins_paid", "coins_received", "shields") + COLOURS

# the seat table: name -> meaning (keys the loaders must give; the optional ones may be absent)
SEAT_COLUMNS = {
    "players": "the player count",
    "game": "the game's number within its source (unique per player count)",
    "wonder": "the board id (`giza`, ...; wsim's ids)",
    "side": "`A` or `B`",
    "rank": "1 + seats with more points, or as many points and more coins (a shared place repeats)",
    **{c: f"{c[3:]} points" for c in CATEGORIES},
    "vp_total": "the total of the seven categories",
    "stages": "wonder stages built",
    "shields": "military strength at the end",
    "discards": "cards discarded for coins (optional)",
    "chained": "buildings built free through a chain (optional)",
    "coins_paid": "coins paid to neighbours for resources (optional)",
    "coins_received": "coins received from neighbours for resources (optional)",
    **{c: f"{c.replace('_cards', '')} cards built" for c in COLOURS},
}
REQUIRED = ("players", "game", "wonder", "side", "rank", *CATEGORIES, "vp_total", "stages", "shields")

# per seat: the first and last place shares, a win (first place, shared or not: what the balance
# pages and `survey --reference` count), every category and behaviour column
SEAT_QUANTITIES = ("first", "last", "win", *CATEGORIES, "vp_total", *BEHAVIOUR)
# per game
GAME_QUANTITIES = ("mean_points", "winner_points", "last_points", "gap")
# per first-placed seat: a guild built, 20 or more science points, and which category was its largest
LARGEST = tuple(f"largest_{c[3:]}" for c in CATEGORIES)
WINNER_QUANTITIES = ("has_guild", "science_20", *LARGEST)

TABLES = ("all", "all_b")
ANY = "*"


@dataclass(frozen=True)
class Moments:
    """A quantity's observations in a group: their (weighted) count, sum and sum of squares."""

    n: float
    total: float
    squares: float

    def __add__(self, other: "Moments") -> "Moments":
        return Moments(self.n + other.n, self.total + other.total, self.squares + other.squares)

    @property
    def mean(self) -> float:
        return self.total / self.n if self.n else math.nan

    @property
    def sd(self) -> float:
        """The sample standard deviation (n − 1), nan below two observations."""
        if self.n < 2:
            return math.nan
        return math.sqrt(max(0.0, (self.squares - self.total * self.total / self.n) / (self.n - 1)))

    @property
    def se(self) -> float:
        """The standard error of the mean."""
        return self.sd / math.sqrt(self.n) if self.n >= 2 else math.nan

    @property
    def ci(self) -> tuple:
        """The normal 95% interval of the mean."""
        half = Z95 * self.se
        return self.mean - half, self.mean + half

    def to_list(self) -> list:
        return [self.n, self.total, self.squares]


@dataclass
class Aggregate:
    """The moments of one source (the human games, or a population's dataset), and where it came from."""

    source: dict = field(default_factory=dict)
    seats: dict = field(default_factory=dict)  # (players, tables, wonder, side) -> {quantity: Moments}
    games: dict = field(default_factory=dict)  # (players, tables) -> {quantity: Moments}
    winners: dict = field(default_factory=dict)  # (players, tables) -> {quantity: Moments}

    def counts(self) -> list:
        """The player counts it has games of, ascending."""
        return sorted({k[0] for k in self.games})

    def seat(self, players: int, tables: str, wonder: str, side: str, quantity: str) -> Moments | None:
        return self.seats.get((players, tables, wonder, side), {}).get(quantity)

    def game(self, players: int, tables: str, quantity: str) -> Moments | None:
        return self.games.get((players, tables), {}).get(quantity)

    def winner(self, players: int, tables: str, quantity: str) -> Moments | None:
        return self.winners.get((players, tables), {}).get(quantity)

    def n_games(self, players: int, tables: str = "all") -> int:
        m = self.game(players, tables, "gap")
        return 0 if m is None else int(round(m.n))

    def boards(self, players: int, tables: str, side: str) -> list:
        """The board ids with seats at `players` in `tables` on `side` (ANY: either), in id order."""
        return sorted(w for (p, t, w, s) in self.seats if p == players and t == tables and s == side and w != ANY)

    def __add__(self, other: "Aggregate") -> "Aggregate":
        out = Aggregate(source={**self.source})
        for name in ("seats", "games", "winners"):
            merged = {k: dict(v) for k, v in getattr(self, name).items()}
            for key, quantities in getattr(other, name).items():
                into = merged.setdefault(key, {})
                for q, m in quantities.items():
                    into[q] = into[q] + m if q in into else m
            setattr(out, name, merged)
        return out

    def to_json(self) -> dict:
        """A JSON-ready record (docs/people.md: the reference file's format)."""
        def rows(table, key_names):
            return [{**dict(zip(key_names, key)), "moments": {q: m.to_list() for q, m in sorted(v.items())}}
                    for key, v in sorted(table.items())]
        return {"format": FORMAT, "source": self.source,
                "seats": rows(self.seats, ("players", "tables", "wonder", "side")),
                "games": rows(self.games, ("players", "tables")),
                "winners": rows(self.winners, ("players", "tables"))}

    @classmethod
    def from_json(cls, record: dict) -> "Aggregate":
        """The aggregate of a to_json record (a ValueError when it is not one)."""
        if not isinstance(record, dict) or record.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} record")

        def table(rows, key_names):
            return {tuple(r[k] for k in key_names): {q: Moments(*map(float, m)) for q, m in r["moments"].items()}
                    for r in rows}
        return cls(source=dict(record.get("source", {})),
                   seats=table(record["seats"], ("players", "tables", "wonder", "side")),
                   games=table(record["games"], ("players", "tables")),
                   winners=table(record["winners"], ("players", "tables")))


FORMAT = "wsim-people-1"


def _moments(values: np.ndarray, weights: np.ndarray | None = None) -> Moments:
    v = values.astype(np.float64)
    if weights is None:
        return Moments(float(len(v)), float(v.sum()), float((v * v).sum()))
    return Moments(float(weights.sum()), float((weights * v).sum()), float((weights * v * v).sum()))


def place_shares(game: np.ndarray, rank: np.ndarray) -> tuple:
    """Per seat, its share of first place and of last place: 1/k for each of the k seats sharing
    the place, 0 otherwise (`game` identifies each seat's game; ranks as in SEAT_COLUMNS)."""
    _, inverse = np.unique(game, return_inverse=True)
    best = np.full(inverse.max() + 1, np.iinfo(np.int64).max)
    worst = np.full(inverse.max() + 1, np.iinfo(np.int64).min)
    np.minimum.at(best, inverse, rank)
    np.maximum.at(worst, inverse, rank)
    is_first = rank == best[inverse]
    is_last = rank == worst[inverse]
    n_first = np.bincount(inverse, weights=is_first)
    n_last = np.bincount(inverse, weights=is_last)
    return is_first / n_first[inverse], is_last / n_last[inverse]


def check_seat_table(seats: dict) -> int:
    """The seat count of a seat table (a ValueError naming what is wrong with it)."""
    missing = [c for c in REQUIRED if c not in seats]
    if missing:
        raise ValueError(f"seat table lacks {', '.join(missing)}")
    unknown = [c for c in seats if c not in SEAT_COLUMNS]
    if unknown:
        raise ValueError(f"seat table has unknown columns {', '.join(unknown)}")
    lengths = {len(v) for v in seats.values()}
    if len(lengths) != 1:
        raise ValueError("seat table columns differ in length")
    return lengths.pop()


def aggregate(seats: dict, source: dict | None = None) -> Aggregate:
    """The Aggregate of a seat table (SEAT_COLUMNS), grouped as this module's docstring says."""
    if check_seat_table(seats) == 0:
        return Aggregate(source=dict(source or {}))
    s = {k: np.asarray(v) for k, v in seats.items()}
    players = s["players"].astype(np.int64)
    key = players * (1 << 40) + s["game"].astype(np.int64)  # one id per game across counts
    first, last = place_shares(key, s["rank"].astype(np.int64))
    values = {"first": first, "last": last, "win": (first > 0).astype(np.float64)}
    values.update({q: s[q] for q in SEAT_QUANTITIES if q in s})
    _, game_of = np.unique(key, return_inverse=True)
    all_b_game = np.bincount(game_of, weights=(s["side"] != "B")) == 0
    all_b = all_b_game[game_of]
    out = Aggregate(source=dict(source or {}))
    boards, board_of = np.unique(s["wonder"].astype(str), return_inverse=True)
    side_of = np.asarray(s["side"].astype(str) == "B", dtype=np.int64)  # 0 A, 1 B
    for p in np.unique(players):
        for tables, mask in (("all", players == p), ("all_b", (players == p) & all_b)):
            if not mask.any():
                continue
            out.seats.update(_seat_moments(int(p), tables, boards, board_of[mask], side_of[mask],
                                           {q: v[mask] for q, v in values.items()}))
            out.games[(int(p), tables)] = _game_moments(s, key, mask)
            out.winners[(int(p), tables)] = _winner_moments(s, first, mask)
    return out


def _seat_moments(players: int, tables: str, boards, board_of, side_of, values: dict) -> dict:
    """{(players, tables, wonder, side): {quantity: Moments}} of some seats: the sums by board and
    side (one bincount each), and from them by board either side, by side every board, and over
    every seat (a Python loop over groups would cost seconds a 100,000 games)."""
    shape = (len(boards), 2)
    fine = board_of * 2 + side_of

    def by_board_side(weights):
        cells = np.bincount(fine, weights=weights, minlength=shape[0] * 2).reshape(shape)
        # rows: each board, then every board; columns: A, B, then either side
        with_boards = np.vstack([cells, cells.sum(axis=0, keepdims=True)])
        return np.hstack([with_boards, with_boards.sum(axis=1, keepdims=True)])

    counts = by_board_side(None)
    sums = {}
    for q, v in values.items():
        v = v.astype(np.float64)
        sums[q] = (by_board_side(v), by_board_side(v * v))
    names = [str(b) for b in boards] + [ANY]
    out = {}
    for b, s in zip(*np.nonzero(counts)):
        key = (players, tables, names[b], ("A", "B", ANY)[s])
        out[key] = {q: Moments(float(counts[b, s]), float(total[b, s]), float(squares[b, s]))
                    for q, (total, squares) in sums.items()}
    return out


def _game_moments(s: dict, key: np.ndarray, mask: np.ndarray) -> dict:
    _, g = np.unique(key[mask], return_inverse=True)
    total = s["vp_total"][mask].astype(np.float64)
    n = np.bincount(g)
    mean = np.bincount(g, weights=total) / n
    best = np.full(len(n), -np.inf)
    worst = np.full(len(n), np.inf)
    np.maximum.at(best, g, total)
    np.minimum.at(worst, g, total)
    return {"mean_points": _moments(mean), "winner_points": _moments(best), "last_points": _moments(worst),
            "gap": _moments(best - worst)}


def _winner_moments(s: dict, first: np.ndarray, mask: np.ndarray) -> dict:
    won = mask & (first > 0)
    w = first[won]
    points = np.stack([s[c][won].astype(np.int64) for c in CATEGORIES])
    # a tie for the largest category is shared equally between the tied categories
    top = points == points.max(axis=0)
    share = top / top.sum(axis=0)
    out = {"science_20": _moments((s["vp_science"][won] >= 20).astype(np.float64), w)}
    if "guild_cards" in s:
        out["has_guild"] = _moments((s["guild_cards"][won] > 0).astype(np.float64), w)
    for name, row in zip(LARGEST, share):
        out[name] = _moments(row, w)
    return out
