"""What a rebalance plays, checked before any game: the options' defaults and limits, the
population's settings at every player count (Plan), the held-out run's expected size, and the
games and time a whole search takes at most."""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass

from wsim.analysis.populations import NAME, PopulationError, build_populations
from wsim.analysis.stats import Z95
from wsim.errors import WsimError, brief, flag, option, real_number, whole_number
from wsim.errors import text as text_value
from wsim.run.settings import MAX_SEED, REBALANCE_MAX_GAMES, check_players
from wsim.tables import Tables

# the defaults of the options (docs/rebalance.md says how they were chosen)
DEFAULT_TOLERANCE = 0.04
DEFAULT_MAX_EDITS = 6
DEFAULT_MAX_CHANGE = 3
DEFAULT_MAX_STEPS = 4
DEFAULT_MAX_GAMES = 10**7  # the held-out run's games at most (--max-games)
MIN_TOLERANCE = 1e-4  # below it no held-out run within REBALANCE_MAX_GAMES could resolve a side
MAX_STEPS = 1_000
MAX_EDITS = 1_000
MAX_CHANGE = 99


class RebalanceError(WsimError):
    """A rebalance option that cannot be used."""


@dataclass(frozen=True)
class Plan:
    """What a rebalance plays: the player counts, each one's settings (the population's), the
    games of a measurement and the seeds."""

    name: str
    settings: dict  # players -> Settings (seed and games set per run)
    games: int
    seed: int
    tolerance: float
    max_edits: int
    max_change: int
    max_steps: int
    max_games: int = DEFAULT_MAX_GAMES
    held_games: int = 0  # the held-out run's games as expected before play (expected_held_out_games)
    max_resources: int | None = None  # resource units added or taken over every cost (None: no limit of its own)


def plan(t: Tables, players: list, population: str, policy_params: tuple, *, games: int, seed: int,
         tolerance: float, max_edits: int, max_change: int, max_steps: int, manneken_pis: bool,
         max_games: int = DEFAULT_MAX_GAMES, max_resources: int | None = None) -> Plan:
    """The checked settings of a rebalance (RebalanceError / PopulationError on a bad option),
    every refusal before any game: a held-out run that would need more than max_games games
    included."""
    if not players or len(set(players)) != len(players):
        raise RebalanceError(f"{option('players')}: distinct player counts, e.g. 4 or 3,4,5, got {brief(players)}")
    for p in players:
        check_players(p)
    tolerance = real_number(tolerance, "tolerance", MIN_TOLERANCE, 0.5, RebalanceError)
    max_games = whole_number(max_games, "max_games", *REBALANCE_MAX_GAMES, RebalanceError)
    games = whole_number(games, "games", 1, REBALANCE_MAX_GAMES[1], RebalanceError)
    if games > max_games:
        raise RebalanceError(f"{option('games')}: {games:,} games a measurement, more than {option('max_games')} "
                             f"({max_games:,}) allows; give a larger {option('max_games')} (at most "
                             f"{REBALANCE_MAX_GAMES[1]:,})")
    seed = whole_number(seed, "seed", 0, MAX_SEED, RebalanceError)
    max_edits = whole_number(max_edits, "max_edits", 1, MAX_EDITS, RebalanceError)
    max_change = whole_number(max_change, "max_change", 1, MAX_CHANGE, RebalanceError)
    max_steps = whole_number(max_steps, "max_steps", 1, MAX_STEPS, RebalanceError)
    if max_resources is not None:
        max_resources = whole_number(max_resources, "max_resources", 1, MAX_EDITS, RebalanceError)
    flag(manneken_pis, "manneken_pis", RebalanceError)
    population = text_value(population, "population", "[NAME=]POLICIES (as --policies takes them)", PopulationError)
    name, eq, spec = population.partition("=")
    if not eq:
        name, spec = "population", population
    name, spec = name.strip(), spec.strip()
    if not NAME.match(name) or not spec or "@" in spec:
        raise PopulationError(f"--population: expected [NAME=]POLICIES (as --policies takes them), got "
                              f"{brief(population)}")
    settings = {}
    for p in players:
        (pop,) = build_populations(t, [(name, spec, ())], policy_params, players=p, games=games, seed=seed,
                                   wonders="random", sides="random", manneken_pis=manneken_pis,
                                   chunk_size=min(games, 100_000))
        settings[p] = pop.settings
    boards = sum(1 for b in range(t.n_boards) if manneken_pis or not t.board_promo[b])
    planned = Plan(name, settings, games, seed, tolerance, max_edits, max_change, max_steps, max_games,
                   max_resources=max_resources)
    held = expected_held_out_games(planned, boards)
    if held > max_games:
        raise RebalanceError(f"{option('tolerance')} {tolerance:g}: the held-out run would need about {held:,} games "
                             f"(every side's 95% interval at most half the tolerance wide), more than "
                             f"{option('max_games')} ({max_games:,}) allows; give a larger {option('tolerance')} or "
                             f"{option('max_games')} (at most {REBALANCE_MAX_GAMES[1]:,})")
    return dataclasses.replace(planned, held_games=held)


def expected_held_out_games(plan_: Plan, boards: int) -> int:
    """The held-out run's games as known before any play: at least N, and enough that every
    side's 95% half-width is at most half the tolerance at a rate of 1/2, each side holding its
    expected share of the seats (boards and sides are dealt uniformly: P seats over `boards`
    boards of two sides). The run itself takes the shares the step-0 run measured
    (held_out_games: within a few percent of these at the default N), never more than
    --max-games."""
    seats = (2 * Z95 / plan_.tolerance) ** 2 * 0.25
    need = plan_.games
    for p in plan_.settings:
        need = max(need, math.ceil(seats * 2 * boards / p))
    return need


def search_games(levers: list, plan_: Plan) -> int:
    """The games a whole search plays at most, every player count together (estimate_seconds):
    the step-0 run, each step's lever and verification runs, and the held-out pair at its
    expected size (plan_.held_games)."""
    runs = 1 + plan_.max_steps * (len(levers) + 1)
    return (runs * plan_.games + 2 * max(plan_.games, plan_.held_games)) * len(plan_.settings)


def estimate_seconds(base: Tables, levers: list, plan_: Plan) -> float:
    """The play of a whole search, timed from 200 games of each player count: the step-0 run,
    every step's lever and verification runs, and the held-out pair at its expected size (an
    upper bound: a search that succeeds early stops early)."""
    from wsim.run.runner import Runner

    per_game = 0.0
    for settings in plan_.settings.values():
        runner = Runner(base, dataclasses.replace(settings, games=200))
        runner.play(0, 20)  # the kernels loaded
        start = time.perf_counter()
        runner.play(0, 200)
        per_game += (time.perf_counter() - start) / 200
    return search_games(levers, plan_) / len(plan_.settings) * per_game
