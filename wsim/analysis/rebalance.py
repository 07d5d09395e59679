"""`wsim rebalance` (INTERFACES §7): the smallest edit of the printed numbers after which every
wonder side's win rate is within a tolerance of the fair share, at every player count asked.

The search (docs/rebalance.md):
1. measure: N games of every player count with the current data, and the same N games (the same
   deals: an edit never changes them) with each lever one unit up; a side's paired difference in
   win rate per lever is a column of the linear model J;
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
   most half the tolerance; its rates decide `solved`.
Every game comes from (seed, game), so the result depends on --seed only, not on threads.
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
from wsim.analysis.significance import bh_q, normal_test_p
from wsim.analysis.stats import Z95, wilson_interval
from wsim.errors import WsimError, brief
from wsim.kernels.layout import RES_BOARD, RES_RANK, RES_SIDE
from wsim.run.settings import MAX_GAMES, MAX_SEED, Settings, check_players
from wsim.tables import Tables

ACCEPT = 0.85  # the search stops at this share of the tolerance: the held-out run has room for its noise
MARGIN = 0.75  # the model is asked for this share of that: the verification has room for its own
SIGNIFICANT = 3.0  # a lever's measured effect on a side enters the model beyond this many standard errors
LEVER_STEP = 2  # a lever is measured this many units up (a larger signal), its effect taken per unit
# the defaults of the options (docs/rebalance.md says how they were chosen)
DEFAULT_TOLERANCE = 0.04
DEFAULT_MAX_EDITS = 6
DEFAULT_MAX_CHANGE = 3
DEFAULT_MAX_STEPS = 4
HELD_OUT_SEED_OFFSET = 1_000_003  # the held-out run's seed: --seed plus this (steps use --seed + step)
MAX_STEPS = 1_000
LEVER_KINDS = ("stages", "cards", "both")
FIELD_CHOICES = ("points", "coins", "both")
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
    """One number the search may change: a field of a wonder stage or of a card (every copy)."""

    subject: str  # as an --edit names it: giza/A.stage3, or a card's printed name
    field: str  # points or coins
    value: int  # in the input file
    entity: int  # the stage's entity, or the card's first copy

    def edit(self, change: int) -> str:
        """The --edit text of a change relative to the input file."""
        return f"{self.subject}.{self.field}={change:+d}"


def parse_levers(text: str, fields: str, t: Tables, manneken_pis: bool) -> list:
    """The levers of --levers stages|cards|both[:WONDER|CARD,...] and --fields."""
    if fields not in FIELD_CHOICES:
        raise RebalanceError(f"--fields: one of {', '.join(FIELD_CHOICES)}, got {brief(fields)}")
    kind, colon, names = text.partition(":")
    kind = kind.strip()
    if kind not in LEVER_KINDS:
        raise RebalanceError(f"--levers: stages, cards or both, optionally :WONDER,... or :CARD,..., "
                             f"got {brief(text)}")
    wanted = [n.strip() for n in names.split(",")] if colon else []
    if colon and not all(wanted):
        raise RebalanceError(f"--levers: an empty name in {brief(text)}")
    field_list = ("points", "coins") if fields == "both" else (fields,)
    boards, cards = _chosen(wanted, kind, t, manneken_pis)
    levers = []
    for b in boards:
        for side in (0, 1):
            for k in range(int(t.board_stages[b, side])):
                e = t.stage_entity(b, side, k)
                if t.ent_power[e] == codes.POW_COPY_STAGE:  # a copy's numbers are the copied stage's
                    continue
                for f in field_list:
                    levers.append(Lever(f"{t.board_ids[b]}/{'AB'[side]}.stage{k + 1}", f,
                                        int(getattr(t, f"ent_{f}")[e]), int(e)))
    for c in cards:
        for f in field_list:
            levers.append(Lever(t.card_names[c], f, int(getattr(t, f"ent_{f}")[c]), int(c)))
    if not levers:
        raise RebalanceError(f"--levers: {brief(text)} leaves no number to change")
    return levers


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


def plan(t: Tables, players: list, population: str, policy_params: tuple, *, games: int, seed: int,
         tolerance: float, max_edits: int, max_change: int, max_steps: int, manneken_pis: bool) -> Plan:
    """The checked settings of a rebalance (RebalanceError / PopulationError on a bad option)."""
    if not players or len(set(players)) != len(players):
        raise RebalanceError(f"--players: distinct player counts, e.g. 4 or 3,4,5, got {brief(players)}")
    for p in players:
        check_players(p)
    if not (isinstance(tolerance, (int, float)) and 0 < tolerance < 0.5):
        raise RebalanceError(f"--tolerance: a win-rate distance between 0 and 0.5, e.g. 0.03, got {brief(tolerance)}")
    for option, value, lo, hi in (("--games", games, 1, MAX_GAMES), ("--seed", seed, 0, MAX_SEED),
                                  ("--max-edits", max_edits, 1, 1000), ("--max-change", max_change, 1, 99),
                                  ("--max-steps", max_steps, 1, MAX_STEPS)):
        if type(value) is not int or not lo <= value <= hi:
            raise RebalanceError(f"{option}: a whole number from {lo:,} to {hi:,}, got {brief(value)}")
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
    return Plan(name, settings, games, seed, tolerance, max_edits, max_change, max_steps)


class Games:
    """Plays a plan's runs, here or on a Dask cluster: the res rows of N games of data `t`."""

    def __init__(self, cluster=None, threads: int | None = None):
        self.cluster, self.threads = cluster, threads
        self.games = 0  # played so far

    def play(self, t: Tables, settings: Settings) -> np.ndarray:
        """res[games, cities, RES_COUNT] of games 0..settings.games-1 of `settings` with data t."""
        if self.cluster is None:
            from wsim.run.runner import Runner

            res = Runner(t, settings).play(0, settings.games).res
        else:
            from wsim.run.cluster import play_ranges

            (res,) = play_ranges(self.cluster, t.raw, [(settings, 0, settings.games)], self.threads or 1)
        self.games += settings.games
        return res


# ---------------------------------------------------------------------------------------------
# Rates

@dataclass
class Rates:
    """Per side (players, board, side): seats and wins of one run, and the fair share."""

    wins: dict = field(default_factory=dict)  # key -> per-seat win indicators (bool array), game order
    fair: dict = field(default_factory=dict)  # players -> the run's mean win rate per seat

    def rate(self, key) -> float:
        w = self.wins[key]
        return float(w.mean()) if len(w) else math.nan

    def deviation(self) -> float:
        """The largest |rate - fair share| over the sides."""
        return max(abs(self.rate(k) - self.fair[k[0]]) for k in self.wins if len(self.wins[k]))

    def excess(self, tolerance: float) -> float:
        """The sides' deviations beyond the tolerance, summed."""
        return sum(max(0.0, abs(self.rate(k) - self.fair[k[0]]) - tolerance) for k in self.wins if len(self.wins[k]))


def rates_of(players: int, res: np.ndarray, into: Rates):
    """Add one player count's run (res rows) to `into`: each side's win indicators, by game and seat."""
    seats = codes.FC_PLAYERS if players == codes.FC_PLAYERS else res.shape[1]  # not the Free City's
    board = res[:, :seats, RES_BOARD].ravel()
    side = res[:, :seats, RES_SIDE].ravel()
    win = res[:, :seats, RES_RANK].ravel() == 1
    into.fair[players] = float(win.mean())
    for b in np.unique(board):
        for s in (0, 1):
            mask = (board == b) & (side == s)
            if mask.any():
                into.wins[(players, int(b), s)] = win[mask]


def measure(games: Games, t: Tables, plan_: Plan, seed: int) -> Rates:
    """Every player count's N games (seed `seed`) with data t."""
    out = Rates()
    for p, settings in plan_.settings.items():
        rates_of(p, games.play(t, dataclasses.replace(settings, seed=seed, games=plan_.games)), out)
    return out


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
    files: dict = field(default_factory=dict)


def edits_of(levers: list, changes: dict) -> list:
    """The --edit texts of the changes (levers in order, zero changes left out)."""
    return [lv.edit(changes[i]) for i, lv in enumerate(levers) if changes.get(i, 0)]


def data_for(base: Tables, levers: list, changes: dict) -> Tables:
    """The input data with the changes applied."""
    edits = edits_of(levers, changes)
    return apply_edits(base, edits) if edits else base


def _jacobian(games: Games, base: Tables, levers: list, changes: dict, now: Rates, plan_: Plan, seed: int,
              keys: list, on_lever=None) -> np.ndarray:
    """J[side, lever]: each side's paired rate difference per unit when the lever goes LEVER_STEP
    units up, kept only where it is significant (at least SIGNIFICANT standard errors of the
    paired differences): a lever moves its own side's rate, and its faint effects on the others,
    measured on a finite number of games, would be noise the solver could exploit."""
    out = np.zeros((len(keys), len(levers)))
    for j in range(len(levers)):
        moved = dict(changes)
        moved[j] = moved.get(j, 0) + LEVER_STEP
        rates = measure(games, data_for(base, levers, moved), plan_, seed)
        for i, key in enumerate(keys):  # the same deals: the same seats, in the same order
            d = rates.wins[key].astype(float) - now.wins[key].astype(float)
            se = d.std(ddof=1) / math.sqrt(len(d)) if len(d) > 1 else 0.0
            if abs(d.mean()) >= SIGNIFICANT * se and d.mean() != 0:
                out[i, j] = d.mean() / LEVER_STEP
        if on_lever is not None:
            on_lever(j + 1, len(levers))
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
    lo = np.array([max(-m, -lv.value) for lv in levers], dtype=float)  # nothing negative
    hi = np.full(n, float(m))
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
    """The search and the held-out run (module docstring). on_event(text) follows the steps."""
    say = on_event or (lambda text: None)
    started = time.perf_counter()
    now = measure(games, base, plan_, plan_.seed)
    keys = sorted(k for k in now.wins if len(now.wins[k]))
    path = [Step(0, {}, now)]
    say(f"step 0 (the input): max deviation {now.deviation():.3f}")
    changes: dict = {}
    current, seed = now, plan_.seed
    aim = ACCEPT * plan_.tolerance
    for step in range(1, plan_.max_steps + 1):
        if current.deviation() <= aim:
            break
        jac = _jacobian(games, base, levers, changes, current, plan_, seed, keys,
                        lambda j, n: say(f"  step {step}: lever {j} / {n}") if j % 10 == 0 or j == n else None)
        proposed = solve(levers, changes, current, jac, keys, plan_)
        if proposed == changes:
            say(f"step {step}: no change the model prefers; the search ends")
            break
        # verified on new games, which the next step's model then starts from
        changes, seed = proposed, plan_.seed + step
        current = measure(games, data_for(base, levers, changes), plan_, seed)
        path.append(Step(step, dict(changes), current))
        say(f"step {step}: {' '.join(edits_of(levers, changes)) or '(no edit)'}: max deviation "
            f"{current.deviation():.3f}")
    best = min(path, key=lambda s: _preference(s, aim))
    held_seed = plan_.seed + HELD_OUT_SEED_OFFSET
    held_games = max(plan_.games, held_out_games(now, plan_))
    table, after = held_out(games, base, levers, best.changes, plan_, held_seed, held_games)
    table["wonder"] = [base.board_ids[b] for b in table["wonder"]]
    half = ((table["after_ci_high"] - table["after_ci_low"]) / 2).max() if len(table) else 0.0
    deviation = after.deviation()
    edits = edits_of(levers, best.changes)
    return Result(levers, path, best, table, held_seed, held_games,
                  solved=deviation <= plan_.tolerance and half <= plan_.tolerance / 2 + 1e-12,
                  max_deviation=deviation, seconds=time.perf_counter() - started, games_played=games.games,
                  edits=edits, data_text=edited_text(base, edits) if edits else base.raw.decode())


def _preference(step: Step, tolerance: float) -> tuple:
    """The order of the path's points: within tolerance first, then fewest edited numbers and
    least total change; outside it, the least excess beyond the tolerance (summed over the
    sides: a side no lever moves weighs the same at every point), then fewest and least."""
    size = (len(step.changes), sum(abs(v) for v in step.changes.values()))
    if step.rates.deviation() <= tolerance:
        return (0, 0.0, *size)
    return (1, step.rates.excess(tolerance), *size)


def held_out_games(now: Rates, plan_: Plan) -> int:
    """Games enough that every side's 95% half-width is at most half the tolerance: from each
    side's share of the seats in the step-0 run and a rate at worst 1/2."""
    seats = (2 * Z95 / plan_.tolerance) ** 2 * 0.25  # a side's seats for that half-width at a rate of 1/2
    need = 0
    for w in now.wins.values():
        share = len(w) / plan_.games  # the side's seats per game
        if share > 0:
            need = max(need, math.ceil(seats / share))
    return need


def held_out(games: Games, base: Tables, levers: list, changes: dict, plan_: Plan, seed: int,
             n: int) -> tuple:
    """(the result.csv table, the after run's rates) of the input and the chosen data on the
    held-out games, paired seat by seat."""
    plan_n = dataclasses.replace(plan_, games=n)
    before = measure(games, base, plan_n, seed)
    after = measure(games, data_for(base, levers, changes), plan_n, seed) if changes else before
    rows = []
    for key in sorted(before.wins):
        p, b, s = key
        w0, w1 = before.wins[key], after.wins[key]
        seats = len(w0)
        d = w1.astype(float) - w0.astype(float)
        mean = float(d.mean())
        se = float(d.std(ddof=1) / math.sqrt(seats)) if seats > 1 else math.nan
        lo0, hi0 = wilson_interval(int(w0.sum()), seats)
        lo1, hi1 = wilson_interval(int(w1.sum()), seats)
        rows.append({"players": p, "wonder": b, "side": "AB"[s], "seats": seats,
                     "before": w0.mean(), "before_ci_low": lo0, "before_ci_high": hi0,
                     "after": w1.mean(), "after_ci_low": lo1, "after_ci_high": hi1,
                     "diff": mean, "ci_low": mean - Z95 * se, "ci_high": mean + Z95 * se,
                     "p": normal_test_p(mean, se)})
    table = pd.DataFrame(rows, columns=list(RESULT_COLUMNS[:-1]) + ["p"])
    table["q_value"] = np.nan
    for p in table["players"].unique():
        mask = table["players"] == p
        table.loc[mask, "q_value"] = bh_q(table.loc[mask, "p"]).to_numpy()
    return table.drop(columns="p"), after


def search_games(levers: list, plan_: Plan) -> int:
    """The games a whole search plays at most, every player count together (estimate_seconds)."""
    runs = 1 + plan_.max_steps * (len(levers) + 1)
    return (runs * plan_.games + 2 * plan_.games) * len(plan_.settings)


def estimate_seconds(base: Tables, levers: list, plan_: Plan) -> float:
    """The play of a whole search, timed from 200 games of each player count: the step-0 run,
    every step's current, lever and verification runs, and the held-out pair at N games each
    (an upper bound: a search that succeeds early stops early)."""
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
    """The report's files (INTERFACES §7) {name: bytes}."""
    from wsim.analysis.balance.report import csv_bytes
    from wsim.analysis.rebalance_page import page, path_frame

    data_text = result.data_text
    if data_text is None:  # a layout whose lines cannot be edited in place: the whole file, rewritten
        data_text = data_for(base, result.levers, result.best.changes).raw.decode()
    rates = []
    for s in result.path:
        for key in sorted(s.rates.wins):
            p, b, side = key
            w = s.rates.wins[key]
            lo, hi = wilson_interval(int(w.sum()), len(w))
            rates.append({"step": s.step, "players": p, "wonder": base.board_ids[b], "side": "AB"[side],
                          "rate": float(w.mean()), "ci_low": lo, "ci_high": hi})
    return {
        "edits.txt": "".join(f"{e}\n" for e in result.edits).encode(),
        "cards.yaml": data_text.encode(),
        "result.csv": csv_bytes(result.held_out, RESULT_COLUMNS),
        "path.csv": csv_bytes(path_frame(result), PATH_COLUMNS),
        "path_rates.csv": csv_bytes(pd.DataFrame(rates, columns=PATH_RATE_COLUMNS), PATH_RATE_COLUMNS),
        "index.html": page(result, plan_, ablate_commands(result, plan_, policy_params)).encode(),
    }


def run_rebalance(base: Tables, levers: list, plan_: Plan, policy_params: tuple, out, overwrite: bool,
                  dask: str | None = None, threads: int | None = None, on_event=None) -> Result:
    """The search, then its report written to `out` (the output rules of every writing command:
    the folder held from its check to the commit, the old report replaced once the new one is
    whole); returns the result, its files in `.files`."""
    from wsim.dataset.folder import output_files

    cluster = None
    if dask is not None:  # connected before the folder is touched: a refusal writes nothing
        from wsim.run.cluster import connect

        cluster = connect(dask, threads or 1)
    try:
        with output_files(out, owns, overwrite, "report") as commit:
            result = rebalance(base, levers, plan_, Games(cluster, threads), on_event)
            result.files = report_files(result, base, plan_, policy_params)
            commit(result.files)
    finally:
        if cluster is not None:
            cluster.close()
    return result
