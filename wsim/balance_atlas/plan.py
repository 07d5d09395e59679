"""What an atlas plays (docs/atlas.md): the player counts, the ladder of populations, and how
many games each rung, the standings sample and the skill runs take.

The ladder, weakest to strongest: random → greedy → heuristic → learned (the default population:
the strongest player that plays thousands of games a second) → search (rollout over the learned
base: the strongest player wsim has, and the one whose board order is closest to people's, issue
56). The top rung is the ANCHOR of every verdict, the rung below it the one it must agree with to
be `stable`. Every rung plays the same deals: games 0..N−1 of the seed (search: the first
`search_games` of them).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from wsim.errors import WsimError, option
from wsim.tables import Tables

LADDER = (("random", "random", ()),
          ("greedy", "greedy", ()),
          ("heuristic", "heuristic", ()),
          ("learned", "learned", ()),
          ("search", "rollout", ("rollout.base=learned",)))
RUNGS = tuple(name for name, _, _ in LADDER)
DEFAULT_RUNG, ANCHOR = "learned", "search"
COUNTS = (2, 3, 4, 5, 6, 7)  # every count an atlas may cover (2: the first edition's Free City variant)


class AtlasError(WsimError):
    """An atlas option, or an atlas folder, that cannot be used."""


@dataclass(frozen=True)
class Sizes:
    """Games of each part of an atlas, at every player count."""

    games: int  # every rung below search
    search_games: int  # the search rung: the first of the same deals
    sample: int  # the default rung's games replayed for the per-age standings and the choices a turn offers
    search_sample: int  # the search rung's games replayed likewise
    skill_games: int  # one search seat against random, and against the default, each


# The default atlas (≤ 60 minutes on the 2-core machine, docs/atlas.md "Budget") and --quick's preview.
FULL = Sizes(games=40_000, search_games=2_000, sample=400, search_sample=150, skill_games=500)
QUICK = Sizes(games=4_000, search_games=100, sample=60, search_sample=20, skill_games=60)
LIMITS = {"games": (10, 10**8), "search_games": (2, 10**6), "sample": (1, 10**5), "search_sample": (1, 10**5),
          "skill_games": (2, 10**6)}


@dataclass(frozen=True)
class Plan:
    """An atlas's options: what is played, and the data it is played with."""

    counts: tuple
    sizes: Sizes
    seed: int
    data_sha256: str

    def options(self) -> dict:
        """The options as about.json records them (and --resume demands again)."""
        return {"players": list(self.counts), **asdict(self.sizes), "seed": self.seed,
                "data_sha256": self.data_sha256}

    def search_games(self) -> int:
        return min(self.sizes.search_games, self.sizes.games)


def default_counts(tables: Tables) -> tuple:
    """The counts of an atlas whose --players is not given: every count the data's edition plays
    (2..7; 3..7 for the second edition, which has no two-player game: docs/rules.md §13)."""
    return tuple(p for p in COUNTS if p >= tables.min_players)


def make_plan(tables: Tables, counts, seed: int, quick: bool, **given) -> Plan:
    """The checked plan: --quick's sizes or the full atlas's, each size given overriding it;
    counts None: default_counts."""
    if counts is None:
        counts = default_counts(tables)
    base = asdict(QUICK if quick else FULL)
    for name, value in given.items():
        if value is None:
            continue
        low, high = LIMITS[name]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise AtlasError(f"{option(name)}: must be a whole number from {low:,} to {high:,}, got {value!r}")
        base[name] = value
    bad = [p for p in counts if isinstance(p, bool) or p not in COUNTS]
    if bad:
        raise AtlasError(f"{option('players')}: the atlas covers counts 2..7, got {bad[0]!r}")
    counts = tuple(sorted(set(counts)))
    if not counts:
        raise AtlasError(f"{option('players')}: give at least one player count")
    bad = [p for p in counts if p not in COUNTS]
    if bad:
        raise AtlasError(f"--players: the atlas covers counts 2..7, got {bad[0]}")
    if counts[0] < tables.min_players:
        raise AtlasError(f"{option('players')}: the {tables.edition_name} is played by {tables.min_players} to "
                         f"{COUNTS[-1]} players (it has no two-player variant), got {counts[0]}")
    return Plan(counts, Sizes(**base), seed, tables.data_sha256)


def rung_specs(plan: Plan) -> list:
    """(name, POLICIES[@GAMES], own params) of each rung, for build_populations."""
    out = []
    for name, policy, params in LADDER:
        spec = f"{policy}@{plan.search_games()}" if name == ANCHOR else policy
        out.append((name, spec, params))
    return out


def populations(tables: Tables, plan: Plan, players: int) -> list:
    """The ladder's populations at `players` players, weakest first."""
    from wsim.analysis.populations import PopulationError, build_populations

    try:
        return build_populations(tables, rung_specs(plan), (), players=players, games=plan.sizes.games,
                                 seed=plan.seed, wonders="random", sides="random", manneken_pis=False,
                                 chunk_size=100_000)
    except PopulationError as e:
        raise AtlasError(str(e)) from None
