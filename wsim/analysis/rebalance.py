"""`wsim rebalance` (docs/interfaces.md §7): the smallest edit of the printed numbers after which every
wonder side's win rate is within a tolerance of the fair share, at every player count asked.

The search (docs/rebalance.md):
1. measure: N games of every player count with the current data, and the same N games (the same
   deals: an edit never changes them) with each lever LEVER_STEP units up (down where up would
   leave the field's bounds, FIELD_BOUNDS); a side's paired difference in win rate per unit of
   the lever is a column of the linear model J;
2. solve: the integer edits t (per lever, relative to the input file) that make, in order, the
   fewest edited numbers and the least total change, such that the model's rates
   r + J (t - t_now) are within MARGIN x ACCEPT x tolerance of the fair share for every side and player
   count, |t| <= max_change, no number negative, at most max_edits numbers edited (scipy's MILP);
   when no edit can, those of the least worst deviation;
3. verify: N new games (seed + step) with the solved data; done when every side is within
   ACCEPT x tolerance, else the next step's model starts from these games (at most max_steps);
4. held out: the best data of the path (the fewest and least edits within ACCEPT x tolerance,
   else the least excess beyond it) against the input, paired, on a seed no step used
   (HELD_OUT_SEED_OFFSET from --seed), with enough games that every side's 95% half-width is at
   most half the tolerance (at most --max-games: a tolerance that would need more is refused
   before anything is played); its rates decide `solved`.
Every game comes from (seed, game), so the result depends on --seed only, not on threads.

Every run is played a chunk at a time (wsim.run.runner.play_chunks) and only tallies are kept:
each side's seats and wins, and, for the run the next levers are paired with, one bit per seat
(its wins), so memory is one chunk's arrays plus those bits (games x seats / 8 bytes), and a
signal ends the search within a kernel call (about half a second).
"""

from __future__ import annotations

import dataclasses
import math
import os
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from wsim import codes
from wsim.analysis.edits import apply_edits, edited_text
from wsim.analysis.populations import NAME, PopulationError, build_populations
from wsim.analysis.significance import bh_q, normal_test_p, wilson_ci
from wsim.analysis.stats import Z95
from wsim.errors import WsimError, brief, flag, one_of, option, real_number, whole_number
from wsim.errors import text as text_value
from wsim.kernels import layout
from wsim.kernels.layout import RES_BOARD, RES_RANK, RES_SIDE
from wsim.kernels.schema import MAX_COST_UNITS
from wsim.people import columns as people_columns
from wsim.people.aggregate import Aggregate, aggregate
from wsim.run.settings import MAX_SEED, REBALANCE_MAX_GAMES, Settings, check_players
from wsim.tables import Tables

ACCEPT = 0.85  # the search stops at this share of the tolerance: the held-out run has room for its noise
MARGIN = 0.75  # the model is asked for this share of that: the verification has room for its own
SIGNIFICANT = 3.0  # a lever's measured effect on a side enters the model beyond this many standard errors
LEVER_STEP = 2  # a lever is measured this many units up (a larger signal), its effect taken per unit
# the bounds of a stage's or a card's numbers in a data file (the field checks of wsim/tables.py):
# a lever is measured downwards where LEVER_STEP up would leave them, and no edit leaves them
FIELD_BOUNDS = {"points": (0, 20), "coins": (0, 20)}
COIN_COST_BOUNDS = (0, 20)  # a card's coin cost
RESOURCE_COUNT_MAX = 9  # one resource's count in a cost
# the defaults of the options (docs/rebalance.md says how they were chosen)
DEFAULT_TOLERANCE = 0.04
DEFAULT_MAX_EDITS = 6
DEFAULT_MAX_CHANGE = 3
DEFAULT_MAX_STEPS = 4
DEFAULT_MAX_GAMES = 10**7  # the held-out run's games at most (--max-games)
MIN_TOLERANCE = 1e-4  # below it no held-out run within REBALANCE_MAX_GAMES could resolve a side
HELD_OUT_SEED_OFFSET = 1_000_003  # the held-out run's seed: --seed plus this (steps use --seed + step)
MAX_STEPS = 1_000
MAX_EDITS = 1_000
MAX_CHANGE = 99
LEVER_KINDS = ("stages", "cards", "both")
FIELD_CHOICES = ("points", "coins", "costs")  # --fields takes a comma list of them; `both` is points,coins
COST_KINDS = ("kept", "any")  # --cost-kinds: only the kinds a cost already holds change, or any kind may join
REPORT_FILES = ("edits.txt", "cards.yaml", "result.csv", "path.csv", "path_rates.csv", "index.html")
RESULT_COLUMNS = ("players", "wonder", "side", "seats", "before", "before_ci_low", "before_ci_high", "after",
                  "after_ci_low", "after_ci_high", "diff", "ci_low", "ci_high", "q_value")
PATH_COLUMNS = ("step", "edits", "max_deviation")
PATH_RATE_COLUMNS = ("step", "players", "wonder", "side", "rate", "ci_low", "ci_high")


class RebalanceError(WsimError):
    """A rebalance option that cannot be used."""


def owns(name: str) -> bool:
    """The files `wsim rebalance` writes (and replaces with --overwrite)."""
    return name in REPORT_FILES


# ---------------------------------------------------------------------------------------------
# Levers

@dataclass(frozen=True)
class Lever:
    """One number the search may change: a field of a wonder stage or of a card (every copy), or
    one count of its cost (a resource's, or a card's coins)."""

    subject: str  # as an --edit names it: giza/A.stage3, or a card's printed name
    field: str  # points, coins, or cost:RESOURCE / cost:coins (the count of that kind in the cost)
    value: int  # in the input file
    entity: int  # the stage's entity, or the card's first copy
    low: int = FIELD_BOUNDS["points"][0]  # the value's bounds (a data file's; a cost's, below)
    high: int = FIELD_BOUNDS["points"][1]

    @property
    def cost_kind(self) -> str | None:
        """The resource (or "coins") of a cost lever; None for points and coins."""
        return self.field.partition(":")[2] or None

    @property
    def units(self) -> bool:
        """A resource count: it counts against the trading solver's MAX_COST_UNITS of its cost."""
        return self.cost_kind not in (None, "coins")

    def edit(self, change: int) -> str:
        """The --edit text of a change relative to the input file."""
        if self.cost_kind is None:
            return f"{self.subject}.{self.field}={change:+d}"
        count = f":{abs(change)}" if abs(change) != 1 else ""
        return f"{self.subject}.cost{'+' if change > 0 else '-'}={self.cost_kind}{count}"


def parse_fields(text: str) -> tuple:
    """--fields: a comma list of points, coins and costs (`both`: points,coins), in that order."""
    what = "points, coins or costs, comma-separated, e.g. points,costs (both: points,coins)"
    text = text_value(text, "fields", what, RebalanceError)
    chosen = set()
    for word in text.lower().replace(" ", "").split(","):
        names = ("points", "coins") if word == "both" else (word,)
        if not all(n in FIELD_CHOICES for n in names):
            raise RebalanceError(f"{option('fields')}: {what}, got {brief(text)}")
        chosen.update(names)
    return tuple(f for f in FIELD_CHOICES if f in chosen)


def _cost_levers(subject: str, e: int, t: Tables, card: bool, kinds: str) -> list:
    """The cost levers of entity e: every kind its cost holds (kinds "kept"), or every resource,
    and coins for a card, (kinds "any"); a resource count from 0 to RESOURCE_COUNT_MAX and the
    cost's resource units at most MAX_COST_UNITS (solve keeps their sum there too)."""
    counts = {r: int(t.ent_cost[e, i]) for i, r in enumerate(codes.RESOURCES)}
    units = sum(counts.values())
    out = []
    for r, n in counts.items():
        if n or kinds == "any":
            out.append(Lever(subject, f"cost:{r}", n, e, 0, min(RESOURCE_COUNT_MAX, MAX_COST_UNITS - units + n)))
    coins = int(t.ent_coin_cost[e])
    if card and (coins or kinds == "any"):
        out.append(Lever(subject, "cost:coins", coins, e, *COIN_COST_BOUNDS))
    return out


def parse_levers(text: str, fields, t: Tables, manneken_pis: bool, cost_kinds: str = "kept",
                 max_resources: int | None = None) -> list:
    """The levers of --levers stages|cards|both[:WONDER|CARD,...], --fields and --cost-kinds;
    --cost-kinds any and max_resources (whose value plan() checks) need costs in --fields."""
    fields = parse_fields(fields)
    cost_kinds = one_of(cost_kinds, "cost_kinds", COST_KINDS, RebalanceError)
    _refuse_cost_options_without_costs(fields, cost_kinds, max_resources)
    text = text_value(text, "levers", "stages, cards or both, optionally :WONDER,... or :CARD,...", RebalanceError)
    kind, colon, names = text.partition(":")
    kind = kind.strip()
    if kind not in LEVER_KINDS:
        raise RebalanceError(f"--levers: stages, cards or both, optionally :WONDER,... or :CARD,..., "
                             f"got {brief(text)}")
    wanted = [n.strip() for n in names.split(",")] if colon else []
    if colon and not all(wanted):
        raise RebalanceError(f"--levers: an empty name in {brief(text)}")
    field_list = [f for f in fields if f != "costs"]
    boards, cards = _chosen(wanted, kind, t, manneken_pis)
    levers = []
    for b in boards:
        for side in (0, 1):
            for k in range(int(t.board_stages[b, side])):
                e = t.stage_entity(b, side, k)
                if t.ent_power[e] == codes.POW_COPY_STAGE:  # a copy's numbers are the copied stage's
                    continue
                subject = f"{t.board_ids[b]}/{'AB'[side]}.stage{k + 1}"
                for f in field_list:
                    levers.append(Lever(subject, f, int(getattr(t, f"ent_{f}")[e]), int(e), *FIELD_BOUNDS[f]))
                if "costs" in fields:
                    levers += _cost_levers(subject, int(e), t, False, cost_kinds)
    for c in cards:
        for f in field_list:
            levers.append(Lever(t.card_names[c], f, int(getattr(t, f"ent_{f}")[c]), int(c), *FIELD_BOUNDS[f]))
        if "costs" in fields:
            levers += _cost_levers(t.card_names[c], int(c), t, True, cost_kinds)
    if not levers:
        raise RebalanceError(f"--levers: {brief(text)} leaves no number to change")
    return levers


def _refuse_cost_options_without_costs(fields: tuple, cost_kinds: str, max_resources: int | None):
    """Refuse --cost-kinds any and --max-resources when --fields has no costs: they shape the cost
    levers only, and a search without any would drop them without a word (a forgotten `costs`)."""
    if "costs" in fields:
        return
    given = ([f"{option('cost_kinds')} any"] if cost_kinds == "any" else []) + (
        [f"{option('max_resources')} {max_resources}"] if max_resources is not None else [])
    if given:
        raise RebalanceError(f"{given[0]}: shapes the cost levers, and {option('fields')} {','.join(fields)} makes "
                             f"none; add costs ({option('fields')} {','.join(fields + ('costs',))})")


def _chosen(wanted: list, kind: str, t: Tables, manneken_pis: bool) -> tuple:
    """(boards, first card id of each building) the lever kind and names select."""
    pool = [b for b in range(t.n_boards) if manneken_pis or not t.board_promo[b]]
    firsts = sorted({t.card_id(t.card_names[c]) for c in range(t.n_cards)})  # one per building
    boards = pool if kind in ("stages", "both") else []
    cards = firsts if kind in ("cards", "both") else []
    if not wanted:
        return boards, cards
    chosen_boards, chosen_cards = [], []
    for name in wanted:
        wonder = name.lower().replace(" ", "_")
        if wonder in t.board_ids and kind != "cards":
            b = t.board_ids.index(wonder)
            if b not in pool:
                raise RebalanceError(f"--levers: {wonder} is not in play (add --manneken-pis)")
            chosen_boards.append(b)
            continue
        try:
            card = t.card_id(name)
        except KeyError:
            card = None
        if card is None or kind == "stages":
            what = {"stages": "a wonder", "cards": "a card"}.get(kind, "a wonder or a card")
            raise RebalanceError(f"--levers: {brief(name)} is not {what} (wonders: {' '.join(t.board_ids)})")
        chosen_cards.append(t.card_id(t.card_names[card]))
    return chosen_boards, chosen_cards


# ---------------------------------------------------------------------------------------------
# The population and the games

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


class Games:
    """Plays a plan's runs, here or on a Dask cluster, a chunk at a time (module docstring); every
    game played is counted, and shown by `tracker` (wsim.run.progress) when one is given."""

    def __init__(self, cluster=None, threads: int | None = None, tracker=None):
        self.cluster, self.threads, self.tracker = cluster, threads, tracker
        self.games = 0  # played so far

    def _played(self, count: int):
        self.games += count
        if self.tracker is not None:
            self.tracker.advance(count)

    def chunks(self, t: Tables, settings: Settings):
        """Yield the res rows of games 0..settings.games-1 of `settings` with data t, in game order,
        a chunk at a time (wsim.run.runner.CHUNK_GAMES; CLUSTER_CHUNK_GAMES on a cluster)."""
        from wsim.run import runner

        if self.cluster is None:
            for _, res in runner.play_chunks(runner.Runner(t, settings), 0, settings.games, self._played):
                yield res
            return
        from wsim.run.cluster import play_ranges

        for at, count in runner.chunk_ranges(0, settings.games, runner.CLUSTER_CHUNK_GAMES):
            (res,) = play_ranges(self.cluster, t.raw, [(settings, at, count)], self.threads or 1, self._played)
            yield res


# ---------------------------------------------------------------------------------------------
# Rates

@dataclass
class Rates:
    """Per side (players, board, side): the seats and wins of one run, and each player count's
    fair share; `bits` keeps, for the run the levers are paired with, every seat's win (one bit
    a seat, chunk by chunk, in game and seat order)."""

    seats: dict = field(default_factory=dict)  # key -> seats
    wins: dict = field(default_factory=dict)  # key -> wins
    fair: dict = field(default_factory=dict)  # players -> the run's mean win rate per seat
    bits: dict = field(default_factory=dict)  # players -> [np.packbits of each chunk's per-seat wins]

    def rate(self, key) -> float:
        n = self.seats.get(key, 0)
        return self.wins[key] / n if n else math.nan

    def deviation(self) -> float:
        """The largest |rate - fair share| over the sides."""
        return max(abs(self.rate(k) - self.fair[k[0]]) for k in self.seats if self.seats[k])

    def excess(self, tolerance: float, sides=None) -> float:
        """The sides' deviations beyond the tolerance, summed (over `sides` only, if given)."""
        return sum(max(0.0, abs(self.rate(k) - self.fair[k[0]]) - tolerance) for k in self.seats
                   if self.seats[k] and (sides is None or k in sides))


def seats_of(players: int, res: np.ndarray) -> tuple:
    """(side index board * 2 + side, win) of every player seat of `res`, in game and seat order
    (the Free City's seat left out)."""
    seats = codes.FC_PLAYERS if players == codes.FC_PLAYERS else res.shape[1]
    board = res[:, :seats, RES_BOARD].ravel().astype(np.int64)
    side = res[:, :seats, RES_SIDE].ravel().astype(np.int64)
    return board * 2 + side, res[:, :seats, RES_RANK].ravel() == 1


class _Tally:
    """One player count's run, counted chunk by chunk: seats and wins per side index."""

    def __init__(self, players: int, t: Tables, keep_bits: bool = False):
        self.players, self.size = players, 2 * t.n_boards
        self.seats = np.zeros(self.size, dtype=np.int64)
        self.wins = np.zeros(self.size, dtype=np.int64)
        self.bits = [] if keep_bits else None

    def add(self, index: np.ndarray, win: np.ndarray):
        self.seats += np.bincount(index, minlength=self.size)
        self.wins += np.bincount(index[win], minlength=self.size)
        if self.bits is not None:
            self.bits.append(np.packbits(win))

    def into(self, out: Rates):
        """Add the counts to `out`, sides in board then side order (as the report lists them)."""
        for k in np.flatnonzero(self.seats):
            key = (self.players, int(k) // 2, int(k) % 2)
            out.seats[key], out.wins[key] = int(self.seats[k]), int(self.wins[k])
        out.fair[self.players] = float(self.wins.sum() / self.seats.sum())
        if self.bits is not None:
            out.bits[self.players] = self.bits


def measure(games: Games, t: Tables, plan_: Plan, seed: int, keep_bits: bool = False) -> Rates:
    """Every player count's N games (seed `seed`) with data t; keep_bits: keep every seat's win,
    for the levers' measurements paired with this run (lever_sums)."""
    out = Rates()
    for p, settings in plan_.settings.items():
        tally = _Tally(p, t, keep_bits)
        for res in games.chunks(t, dataclasses.replace(settings, seed=seed, games=plan_.games)):
            tally.add(*seats_of(p, res))
        tally.into(out)
    return out


def lever_sums(games: Games, t: Tables, plan_: Plan, seed: int, now: Rates) -> dict:
    """key -> (sum of d, sum of d²) over the seats of each side, d = a seat's win with data t minus
    its win in `now` (the same games: the same seats, in the same order; now kept its bits)."""
    out = {}
    for p, settings in plan_.settings.items():
        size = 2 * t.n_boards
        first, second = np.zeros(size), np.zeros(size)
        runs = games.chunks(t, dataclasses.replace(settings, seed=seed, games=plan_.games))
        for res, bits in zip(runs, now.bits[p], strict=True):
            index, win = seats_of(p, res)
            d = win.astype(np.int64) - np.unpackbits(bits, count=len(win))
            first += np.bincount(index, weights=d, minlength=size)
            second += np.bincount(index, weights=np.abs(d), minlength=size)
        for k in range(size):
            key = (p, k // 2, k % 2)
            if key in now.seats:
                out[key] = (int(first[k]), int(second[k]))
    return out


def paired_mean_se(n: int, first: int, second: int) -> tuple:
    """(mean, standard error of the mean) of n paired differences d in {-1, 0, 1} from their
    sum and sum of squares (the sample standard deviation, ddof 1; 0 below two seats)."""
    mean = first / n
    if n < 2:
        return mean, 0.0
    squares = max(0.0, second - first * first / n)  # the sum of (d - mean)², never below 0 by rounding
    return mean, math.sqrt(squares / (n - 1)) / math.sqrt(n)


# ---------------------------------------------------------------------------------------------
# The search

@dataclass
class Step:
    """One point of the path: the total edits (lever -> change) and the rates they gave."""

    step: int
    changes: dict
    rates: Rates


@dataclass
class Result:
    """A rebalance's outcome: the path, the chosen edits, the held-out comparison."""

    levers: list
    path: list
    best: Step
    held_out: pd.DataFrame  # RESULT_COLUMNS
    held_out_seed: int
    held_out_games: int
    solved: bool
    max_deviation: float
    seconds: float
    games_played: int
    edits: list = field(default_factory=list)  # --edit texts
    data_text: str | None = None  # cards.yaml with only the edited lines changed (None: not possible)
    people_lines: list = field(default_factory=list)  # the held-out runs' distance to people (the page's first lines)
    files: dict = field(default_factory=dict)


def edits_of(levers: list, changes: dict) -> list:
    """The --edit texts of the changes (levers in order, zero changes left out)."""
    return [lv.edit(changes[i]) for i, lv in enumerate(levers) if changes.get(i, 0)]


def path_frame(result: Result) -> pd.DataFrame:
    """path.csv's rows: each step's edits and its largest deviation from the fair share."""
    return pd.DataFrame([{"step": s.step, "edits": " ".join(edits_of(result.levers, s.changes)),
                          "max_deviation": s.rates.deviation()} for s in result.path])


def data_for(base: Tables, levers: list, changes: dict) -> Tables:
    """The input data with the changes applied."""
    edits = edits_of(levers, changes)
    return apply_edits(base, edits) if edits else base


def lever_move(levers: list, changes: dict, j: int) -> int:
    """The change lever j is measured with, from the current `changes`: LEVER_STEP up, or down
    where up would leave its bounds (a stage worth 19 points cannot be measured at 21, nor a cost
    beyond the trading solver's units with the other counts of that cost as they are now), else
    one unit up or down (a cost of one stone with no room above); 0 when nothing fits."""
    lever = levers[j]
    now = lever.value + changes.get(j, 0)
    high = lever.high
    if lever.units:
        others = sum(lv.value + changes.get(i, 0) for i, lv in enumerate(levers)
                     if i != j and lv.units and lv.entity == lever.entity)
        high = min(high, MAX_COST_UNITS - others)
    for move in (LEVER_STEP, -LEVER_STEP, 1, -1):
        if lever.low <= now + move <= high:
            return move
    return 0


def _jacobian(games: Games, base: Tables, levers: list, changes: dict, now: Rates, plan_: Plan, seed: int,
              keys: list, on_lever=None) -> np.ndarray:
    """J[side, lever]: each side's paired rate difference per unit when the lever moves
    LEVER_STEP units (lever_move), kept only where it is significant (at least SIGNIFICANT
    standard errors of the paired differences): a lever moves its own side's rate, and its faint
    effects on the others, measured on a finite number of games, would be noise the solver
    could exploit. on_lever(j, n, done) before (done False) and after lever j (1-based) of n is
    measured."""
    out = np.zeros((len(keys), len(levers)))
    for j, lever in enumerate(levers):
        if on_lever is not None:
            on_lever(j + 1, len(levers), False)
        move = lever_move(levers, changes, j)
        if move:  # else no room either way: its column stays 0 and the solver keeps it where it is
            moved = dict(changes)
            moved[j] = moved.get(j, 0) + move
            sums = lever_sums(games, data_for(base, levers, moved), plan_, seed, now)
            for i, key in enumerate(keys):  # the same deals: the same seats, in the same order
                mean, se = paired_mean_se(now.seats[key], *sums[key])
                if abs(mean) >= SIGNIFICANT * se and mean != 0:
                    out[i, j] = mean / move
        if on_lever is not None:
            on_lever(j + 1, len(levers), True)
    return out


def solve(levers: list, changes: dict, now: Rates, jac: np.ndarray, keys: list, plan_: Plan) -> dict:
    """The total changes the linear model says bring every side within MARGIN x ACCEPT x tolerance
    of the fair share: fewest edited numbers, then least total change. When no change within the limits
    can, those of the least total excess beyond it (summed over the sides), then fewest and least
    (module docstring)."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    n, k = len(levers), len(keys)
    m = plan_.max_change
    goal = MARGIN * ACCEPT * plan_.tolerance
    current = np.array([changes.get(j, 0) for j in range(n)], dtype=float)
    # within the levers' bounds: nothing negative, nothing a data file refuses
    lo = np.array([max(-m, lv.low - lv.value) for lv in levers], dtype=float)
    hi = np.array([min(m, lv.high - lv.value) for lv in levers], dtype=float)
    target = np.array([now.fair[key[0]] - now.rate(key) for key in keys]) + jac @ current  # J t must give this
    # variables: t (n integers), |t| (n), edited (n binaries), each side's excess beyond the goal (k)
    size = 3 * n + k
    rows, low, high = [], [], []

    def row(entries, a, b):
        r = np.zeros(size)
        for idx, v in entries:
            r[idx] = v
        rows.append(r)
        low.append(a)
        high.append(b)

    for j in range(n):
        row([(j, 1), (n + j, -1)], -np.inf, 0)  # t <= |t|
        row([(j, -1), (n + j, -1)], -np.inf, 0)  # -t <= |t|
        row([(j, 1), (2 * n + j, -m)], -np.inf, 0)  # an edited number is one with t != 0
        row([(j, -1), (2 * n + j, -m)], -np.inf, 0)
    row([(2 * n + j, 1) for j in range(n)], -np.inf, plan_.max_edits)
    for entity in {lv.entity for lv in levers if lv.units}:  # a cost within the trading solver's units
        group = [j for j, lv in enumerate(levers) if lv.units and lv.entity == entity]
        row([(j, 1) for j in group], -np.inf, MAX_COST_UNITS - sum(levers[j].value for j in group))
    if plan_.max_resources is not None:  # the designer's limit on resource units changed, over every cost
        row([(n + j, 1) for j, lv in enumerate(levers) if lv.units], -np.inf, plan_.max_resources)
    for i in range(k):  # |J t - target| <= goal + excess
        entries = [(j, jac[i, j]) for j in range(n) if jac[i, j] != 0]
        row(entries + [(3 * n + i, -1)], -np.inf, target[i] + goal)
        row(entries + [(3 * n + i, 1)], target[i] - goal, np.inf)
    integrality = np.r_[np.ones(n), np.zeros(n), np.ones(n), np.zeros(k)]
    lower = np.r_[lo, np.zeros(2 * n + k)]
    upper = np.r_[hi, np.full(n, m), np.ones(n), np.full(k, np.inf)]
    constraints = [LinearConstraint(np.array(rows), np.array(low), np.array(high))]
    with _c_output_silenced():
        excess = milp(np.r_[np.zeros(3 * n), np.ones(k)], integrality=integrality, bounds=Bounds(lower, upper),
                      constraints=constraints)
    if not excess.success:
        return dict(changes)
    # then the fewest edited numbers and the least change with no more excess than that
    allowed = excess.x[3 * n:].sum() * (1 + 1e-6) + 1e-9
    constraints.append(LinearConstraint(np.r_[np.zeros(3 * n), np.ones(k)][None, :], -np.inf, allowed))
    fewest = np.r_[np.zeros(n), np.ones(n), np.full(n, 2 * n * m + 1), np.zeros(k)]
    with _c_output_silenced():
        found = milp(fewest, integrality=integrality, bounds=Bounds(lower, upper), constraints=constraints)
    x = found.x if found.success else excess.x
    return {j: int(round(x[j])) for j in range(n) if round(x[j]) != 0}


@contextmanager
def _c_output_silenced():
    """File descriptor 1 sent to /dev/null: HiGHS (scipy's MILP) prints a debugging line to the C
    stdout in some searches, which would land among the command's own output."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def rebalance(base: Tables, levers: list, plan_: Plan, games: Games, on_event=None) -> Result:
    """The search and the held-out run (module docstring). on_event(text) follows the steps; the
    step in play is also shown by games.tracker (a bar's notes: the same texts)."""
    tracker = games.tracker

    def say(text: str):
        if on_event is not None:
            on_event(text)
        if tracker is not None:
            tracker.note(text)

    def step_is(text: str):
        if tracker is not None:
            tracker.step(text)

    started = time.perf_counter()
    step_is("step 0: the input")
    now = measure(games, base, plan_, plan_.seed, keep_bits=True)
    keys = sorted(k for k in now.seats if now.seats[k])
    path = [Step(0, {}, now)]
    say(f"step 0 (the input): max deviation {now.deviation():.3f}")
    changes: dict = {}
    current, seed = now, plan_.seed
    aim = ACCEPT * plan_.tolerance
    movable: set = set()  # the sides some lever was measured to move
    for step in range(1, plan_.max_steps + 1):
        if current.deviation() <= aim:
            break

        def on_lever(j: int, n: int, done: bool):
            if not done:
                step_is(f"step {step} of {plan_.max_steps}: lever {j} of {n}")
            elif j % 10 == 0 or j == n:
                say(f"  step {step}: lever {j} / {n}")

        jac = _jacobian(games, base, levers, changes, current, plan_, seed, keys, on_lever)
        movable.update(keys[i] for i in np.flatnonzero(jac.any(axis=1)))
        proposed = solve(levers, changes, current, jac, keys, plan_)
        if proposed == changes:
            say(f"step {step}: no change the model prefers; the search ends")
            break
        # verified on new games, which the next step's model then starts from
        changes, seed = proposed, plan_.seed + step
        step_is(f"step {step} of {plan_.max_steps}: verification")
        current.bits = {}  # a verification's own bits replace the last run's: memory for one run's
        current = measure(games, data_for(base, levers, changes), plan_, seed, keep_bits=step < plan_.max_steps)
        path.append(Step(step, dict(changes), current))
        say(f"step {step}: {' '.join(edits_of(levers, changes)) or '(no edit)'}: max deviation "
            f"{current.deviation():.3f}")
    current.bits = {}
    best = min(path, key=lambda s: _preference(s, aim, movable))
    held_seed = plan_.seed + HELD_OUT_SEED_OFFSET
    # the step-0 run's own shares, never beyond --max-games (a priori within it: plan())
    held_games = min(plan_.max_games, max(plan_.games, held_out_games(now, plan_)))
    if tracker is not None:  # the rest of the bar: the held-out run as it is, not as estimated
        runs = 2 if best.changes else 1
        tracker.add_total(games.games + runs * held_games * len(plan_.settings) - tracker.total)
    step_is("the held-out run")
    table, after, aggregates = held_out(games, base, levers, best.changes, plan_, held_seed, held_games)
    table["wonder"] = [base.board_ids[b] for b in table["wonder"]]
    table = people_columns.with_people(table)
    half = ((table["after_ci_high"] - table["after_ci_low"]) / 2).max() if len(table) else 0.0
    deviation = after.deviation()
    edits = edits_of(levers, best.changes)
    return Result(levers, path, best, table, held_seed, held_games,
                  solved=deviation <= plan_.tolerance and half <= plan_.tolerance / 2 + 1e-12,
                  max_deviation=deviation, seconds=time.perf_counter() - started, games_played=games.games,
                  edits=edits, data_text=edited_text(base, edits) if edits else base.raw.decode(),
                  people_lines=people_lines(plan_, aggregates, bool(best.changes)))


def people_lines(plan_: Plan, aggregates: dict, edited: bool) -> list:
    """How far the held-out runs (the input data, and the edited data when there are edits) are
    from people at each player count (wsim.people.columns.distance_lines)."""
    lines = []
    for p, runs in aggregates.items():
        who = f"{plan_.name} ({', '.join(sorted(set(plan_.settings[p].labels)))})"
        names = (f"{who} with the input data", f"{who} with the edited data")[:2 if edited else 1]
        lines += people_columns.distance_lines(dict(zip(names, runs)), p)
    return lines


def _preference(step: Step, tolerance: float, movable: set) -> tuple:
    """The order of the path's points: within tolerance first, then fewest edited numbers and
    least total change; outside it, the least excess beyond the tolerance summed over the sides
    some lever moves, then fewest and least. A side no lever moves is the same at every point
    but for the noise of each point's own games, which would otherwise decide between them."""
    size = (len(step.changes), sum(abs(v) for v in step.changes.values()))
    if step.rates.deviation() <= tolerance:
        return (0, 0.0, *size)
    return (1, step.rates.excess(tolerance, movable), *size)


def held_out_games(now: Rates, plan_: Plan) -> int:
    """Games enough that every side's 95% half-width is at most half the tolerance: from each
    side's share of the seats in the step-0 run and a rate at worst 1/2."""
    seats = (2 * Z95 / plan_.tolerance) ** 2 * 0.25  # a side's seats for that half-width at a rate of 1/2
    need = 0
    for n in now.seats.values():
        share = n / plan_.games  # the side's seats per game
        if share > 0:
            need = max(need, math.ceil(seats / share))
    return need


_RES_SEAT_COLUMNS = {"rank": "RES_RANK", "vp_total": "RES_TOTAL", "stages": "RES_STAGES", "shields": "RES_SHIELDS",
                     "discards": "RES_DISCARDS", "chained": "RES_CHAINED", "coins_paid": "RES_COINS_PAID",
                     "coins_received": "RES_COINS_RECEIVED",
                     **{f"vp_{c}": f"RES_{c.upper()}" for c in codes.CATEGORIES}}


def res_seats(players: int, res: np.ndarray, t: Tables, first_game: int) -> dict:
    """The seat table (wsim.people.aggregate.SEAT_COLUMNS, without the colour counts: res holds
    no cards) of a chunk's res rows, games first_game.., the Free City's seat left out."""
    seats = codes.FC_PLAYERS if players == codes.FC_PLAYERS else res.shape[1]
    flat = res[:, :seats].reshape(-1, res.shape[2])
    out = {"players": np.full(len(flat), players, dtype=np.int64),
           "game": np.repeat(np.arange(first_game, first_game + res.shape[0], dtype=np.int64), seats),
           "wonder": np.asarray(t.board_ids)[flat[:, RES_BOARD].astype(np.int64)],
           "side": np.array(["A", "B"])[flat[:, RES_SIDE].astype(np.int64)]}
    for column, constant in _RES_SEAT_COLUMNS.items():
        out[column] = flat[:, getattr(layout, constant)].astype(np.int64)
    return out


def held_out(games: Games, base: Tables, levers: list, changes: dict, plan_: Plan, seed: int,
             n: int) -> tuple:
    """(the result.csv table, the after run's rates, {players: (Aggregate of the input's run,
    of the edited run)}) of the input and the chosen data on the held-out games, paired seat by
    seat: the two runs are played chunk by chunk side by side, and only their tallies and their
    aggregates (wsim.people.aggregate: for the distance to people, at the player counts people
    played) kept."""
    before, after = Rates(), Rates()
    sums: dict = {}
    aggregates: dict = {}
    edited = data_for(base, levers, changes) if changes else None
    for p, settings in plan_.settings.items():
        settings = dataclasses.replace(settings, seed=seed, games=n)
        tallies = _Tally(p, base), _Tally(p, base)
        size = tallies[0].size
        first, second = np.zeros(size), np.zeros(size)
        edited_runs = games.chunks(edited, settings) if edited is not None else None
        runs, at = [Aggregate(), Aggregate()], 0
        for res in games.chunks(base, settings):
            index, w0 = seats_of(p, res)
            res1 = next(edited_runs) if edited_runs is not None else res
            w1 = seats_of(p, res1)[1] if edited_runs is not None else w0
            tallies[0].add(index, w0)
            tallies[1].add(index, w1)
            if people_columns.has_people(p):
                runs[0] = runs[0] + aggregate(res_seats(p, res, base, at))
                if edited_runs is not None:
                    runs[1] = runs[1] + aggregate(res_seats(p, res1, base, at))
            at += len(res)
            d = w1.astype(np.int64) - w0
            first += np.bincount(index, weights=d, minlength=size)
            second += np.bincount(index, weights=np.abs(d), minlength=size)
        tallies[0].into(before)
        tallies[1].into(after)
        aggregates[p] = tuple(runs)
        for k in range(size):
            sums[(p, k // 2, k % 2)] = (int(first[k]), int(second[k]))
    rows = []
    for key in sorted(before.seats):
        p, b, s = key
        w0, w1, seats = before.wins[key], after.wins[key], before.seats[key]
        mean, se = paired_mean_se(seats, *sums[key])
        if seats < 2:
            se = math.nan
        lo0, hi0 = wilson_ci(w0, seats)
        lo1, hi1 = wilson_ci(w1, seats)
        rows.append({"players": p, "wonder": b, "side": "AB"[s], "seats": seats,
                     "before": w0 / seats, "before_ci_low": lo0, "before_ci_high": hi0,
                     "after": w1 / seats, "after_ci_low": lo1, "after_ci_high": hi1,
                     "diff": mean, "ci_low": mean - Z95 * se, "ci_high": mean + Z95 * se,
                     "p": normal_test_p(mean, se)})
    table = pd.DataFrame(rows, columns=list(RESULT_COLUMNS[:-1]) + ["p"])
    table["q_value"] = np.nan
    for p in table["players"].unique():
        mask = table["players"] == p
        table.loc[mask, "q_value"] = bh_q(table.loc[mask, "p"]).to_numpy()
    return table.drop(columns="p"), after, aggregates


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



# ---------------------------------------------------------------------------------------------
# The report

def ablate_commands(result: Result, plan_: Plan, policy_params: tuple) -> list:
    """The `wsim ablate` line that plays each player count's held-out comparison again."""
    if not result.edits:
        return ["(no edit: nothing to compare)"]
    lines = []
    for p, settings in plan_.settings.items():
        words = ["wsim", "ablate", "--players", str(p), "--games", str(result.held_out_games), "--seed",
                 str(result.held_out_seed), "--policies", ",".join(_policy_words(settings))]
        words += [w for spec in policy_params for w in ("--policy-param", spec)]
        if settings.manneken_pis:
            words.append("--manneken-pis")
        words += [w for e in result.edits for w in ("--edit", e)]
        lines.append(" ".join(words + ["--out", "REPORT"]))
    return lines


def _policy_words(settings: Settings) -> list:
    """--policies as the settings were given: NAME or NAME:LABEL per seat."""
    return [name if label == name else f"{name}:{label}" for name, label in zip(settings.policies, settings.labels)]


def report_files(result: Result, base: Tables, plan_: Plan, policy_params: tuple) -> dict:
    """The report's files (docs/interfaces.md §7) {name: bytes}."""
    from wsim.analysis.balance.report import csv_bytes
    from wsim.analysis.rebalance_page import page

    data_text = result.data_text
    if data_text is None:  # a layout whose lines cannot be edited in place: the whole file, rewritten
        data_text = data_for(base, result.levers, result.best.changes).raw.decode()
    rates = []
    for s in result.path:
        for key in sorted(s.rates.seats):
            p, b, side = key
            lo, hi = wilson_ci(s.rates.wins[key], s.rates.seats[key])
            rates.append({"step": s.step, "players": p, "wonder": base.board_ids[b], "side": "AB"[side],
                          "rate": s.rates.rate(key), "ci_low": lo, "ci_high": hi})
    path = path_frame(result)
    return {
        "edits.txt": "".join(f"{e}\n" for e in result.edits).encode(),
        "cards.yaml": data_text.encode(),
        "result.csv": csv_bytes(result.held_out, RESULT_COLUMNS + people_columns.PEOPLE_COLUMNS),
        "path.csv": csv_bytes(path, PATH_COLUMNS),
        "path_rates.csv": csv_bytes(pd.DataFrame(rates, columns=PATH_RATE_COLUMNS), PATH_RATE_COLUMNS),
        "index.html": page(result, plan_, ablate_commands(result, plan_, policy_params), path).encode(),
    }


def run_rebalance(base: Tables, levers: list, plan_: Plan, policy_params: tuple, out, overwrite: bool,
                  dask: str | None = None, threads: int | None = None, on_event=None, progress=False) -> Result:
    """The search, then its report written to `out` (the output rules of every writing command:
    the folder held from its check to the commit, the old report replaced once the new one is
    whole); returns the result, its files in `.files`. progress: True, False or a function
    (wsim.run.progress), over the games the search plays at most."""
    from wsim.dataset.folder import output_files
    from wsim.run import progress as progress_mod

    cluster = None
    if dask is not None:  # connected before the folder is touched: a refusal writes nothing
        from wsim.run.cluster import connect

        cluster = connect(dask, threads or 1)
    try:
        with output_files(out, owns, overwrite, "report") as commit, \
                progress_mod.start(progress, search_games(levers, plan_), label="rebalance") as tracker:
            result = rebalance(base, levers, plan_, Games(cluster, threads, tracker), on_event)
            result.files = report_files(result, base, plan_, policy_params)
            commit(result.files)
    finally:
        if cluster is not None:
            cluster.close()
    return result
