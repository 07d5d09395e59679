"""`wsim bench`: the benchmark suite. Measures, prints and records (bench/results/*.json):

- kernel games/s for 2..7 players (2: the Free City variant) x random/greedy/heuristic x 1 and 2
  threads (no Parquet, warm kernels; each cell the best of three equal runs);
- where a 5-player game's time goes: the deal and the bare loop floor, and each component
  (deal, legal moves, trading solver, policy, resolution, scoring) from the instrumented twin
  of the game loop in kernels/profile.py;
- rollout's games/s and playouts/s at 16 and 64 playouts a move (5 players, one rollout seat;
  the best of two plays of the same games), and the learned policy's games/s;
- the reference engine's games/s (random policy), measured in the same run for the speed-up;
- the environments' steps/s (with the env extra): AEC, Parallel, and the batched one quoted two
  ways (envs.py);
- the trading solver's calls/s on random positions;
- cold JIT compile time (a fresh process with an empty NUMBA_CACHE_DIR), the first use of the
  lazily compiled families, warm start-up time (`wsim simulate --games 1`, cache filled), and a
  1,000,000-game five-player `wsim simulate` run end to end: seconds and peak RSS.

SUITE is the list of sections, in the order they run. A section lists its measurements (each a
progress step, so the progress count is theirs), then turns their values into the record's
entries and the lines printed.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from functools import partial
from importlib.util import find_spec
from pathlib import Path
from typing import Callable

from wsim import codes, tables as tables_mod
from wsim.bench import breakdown, envs, games, record, rollout, yardsticks
from wsim.bench.games import RUNS_PER_CELL, SELF_PLAY
from wsim.bench.startup import Children
from wsim.run.runner import available_cores, set_threads
from wsim.run.weights import LEARNED_BASE_DEPTH

ROLLOUT_PLAYOUTS = (16, 64)  # playouts a move timed
REFERENCE_PLAYERS = (3, 5, 7)
ENV_PLAYERS = (2, 4, 5)
LAZY_FAMILIES = ("rollout", "profile")  # compiled on first use only, after the games family


@dataclass
class Context:
    """What every section reads: the tables, the run's size, the cores, the children's folder,
    and the record so far (a later section may read an earlier one's entries)."""

    t: object
    quick: bool
    cores: int
    children: Children
    results: dict

    def threads(self) -> tuple:
        """The thread counts timed: 1 and 2, as the cores allow."""
        return tuple(n for n in (1, 2) if n <= self.cores)

    def games(self, policy: str) -> int:
        """A kernel cell's games: random is twice as fast as the others."""
        return (5_000 if self.quick else 50_000) if policy == "random" else (2_000 if self.quick else 20_000)

    def size(self, quick: int, full: int) -> int:
        """A measurement's size: `quick` under --quick, else `full`."""
        return quick if self.quick else full

    def big_run(self) -> int:
        """The games of the end-to-end run."""
        return self.size(100_000, 1_000_000)


@dataclass(frozen=True)
class Measure:
    """One measurement: its progress label, the key its value is reported under, and the call."""

    label: str
    key: object
    run: Callable


@dataclass(frozen=True)
class Section:
    """A part of the record: `measures(ctx)` its Measures, in order; `report(ctx, values)`, with
    values {key: value}, the record's entries and the lines to print."""

    measures: Callable
    report: Callable
    needs: str | None = None  # a module without which the section is skipped (an extra)


def _threads_word(n: int) -> str:
    return f"{n} thread{'s' if n > 1 else ''}"


def _row_5p(ctx: Context, policy: str) -> dict:
    return next(r for r in ctx.results["games_per_second"] if r["players"] == 5 and r["policy"] == policy)


# -- kernel games/s ------------------------------------------------------------------------------
def _cells(ctx):
    return [Measure(f"{p} players, {policy}, {_threads_word(n)}", (p, policy, n),
                    partial(games.games_per_second, ctx.t, p, policy, n, ctx.games(policy)))
            for p in range(codes.MIN_SIMULATED_PLAYERS, codes.MAX_PLAYERS + 1) for policy in SELF_PLAY
            for n in ctx.threads()]


def _cells_report(ctx, values):
    lines = [f"kernel games/s ({ctx.games('random'):,} random / {ctx.games('greedy'):,} greedy and heuristic games "
             f"per cell, the best of {RUNS_PER_CELL} equal runs):",
             f"  {'players':>7} {'policy':>7} {'1 thread':>10} {'2 threads':>10}"]
    rows = []
    for p in range(codes.MIN_SIMULATED_PLAYERS, codes.MAX_PLAYERS + 1):
        for policy in SELF_PLAY:
            row = {"players": p, "policy": policy}
            row.update({f"threads_{n}": round(values[p, policy, n]) for n in ctx.threads()})
            rows.append(row)
            lines.append(f"  {p:>7} {policy:>7} {row.get('threads_1', 0):>10,} {row.get('threads_2', 0):>10,}")
    return {"games_per_second": rows}, lines


# -- where a game's time goes --------------------------------------------------------------------
def _split(ctx, policy):
    split = breakdown.floor_split(ctx.t, 5, ctx.games("random"), _row_5p(ctx, policy)["threads_1"])
    split["components_us"] = breakdown.components(ctx.t, 5, policy, ctx.games(policy))
    return split


def _splits(ctx):
    return [Measure(f"where a 5-player {policy} game's time goes", policy, partial(_split, ctx, policy))
            for policy in SELF_PLAY]


def _splits_report(ctx, values):
    lines = ["where a 5-player game's time goes (1 thread, microseconds per game):"]
    for policy, split in values.items():
        parts = split["components_us"]
        lines += [f"  {policy:>7}: game {split['game_us']:.1f}; loop floor (deal + pick/pass, no rules) "
                  f"{split['loop_floor_us']:.1f}: the game costs {split['game_over_floor']}x the floor",
                  "           instrumented build: " + " + ".join(f"{k} {v:.1f}" for k, v in parts.items()
                                                                    if k != "total") + f" = {parts['total']:.1f}"]
    return {"time_per_game_5p": values}, lines


# -- rollout -------------------------------------------------------------------------------------
def _rollout_pair(ctx, playouts, n_games):
    return (rollout.games_per_second(ctx.t, playouts, n_games, runs=2),
            rollout.playouts_per_game(ctx.t, playouts, n_games))


def _rollouts(ctx):
    return [Measure(f"rollout, {k} playouts a move", k, partial(_rollout_pair, ctx, k, n))
            for k, n in zip(ROLLOUT_PLAYOUTS, (ctx.size(2, 6), ctx.size(1, 3)))]


def _rollouts_report(ctx, values):
    lines = ["rollout (5 players: one rollout seat, four heuristic ones; 1 thread; the best of two plays of the "
             "games):"]
    for k, (rate, per_game) in values.items():
        lines.append(f"  {k} playouts a move: {rate:.2f} games/s, {per_game:,.0f} playouts a game, "
                     f"{rate * per_game:,.0f} playouts/s")
    return ({"rollout_games_per_second_5p": {str(k): round(rate, 2) for k, (rate, _) in values.items()},
             "rollout_playouts_per_second_5p": {str(k): round(rate * per) for k, (rate, per) in values.items()}},
            lines)


# -- learned -------------------------------------------------------------------------------------
def _learned(ctx):
    return [*(Measure(f"5 players, learned, {_threads_word(n)}", n,
                      partial(games.games_per_second, ctx.t, 5, "learned", n, ctx.size(300, 3_000)))
              for n in ctx.threads()),
            Measure("rollout over the learned base", "rollout",
                    partial(rollout.games_per_second, ctx.t, 16, ctx.size(2, 6), runs=2, base="learned"))]


def _learned_report(ctx, values):
    lines = ["learned (the shipped model, wsim/data/learned.npz; 5 players, every seat learned; the best of "
             f"{RUNS_PER_CELL} equal runs):"]
    lines += [f"  {_threads_word(n)}: {values[n]:,.0f} games/s" for n in ctx.threads()]
    lines.append(f"  rollout, 16 playouts a move over the learned base, truncated at depth {LEARNED_BASE_DEPTH} (one "
                 f"rollout seat, four heuristic, 1 thread): {values['rollout']:.2f} games/s")
    return ({"learned_games_per_second_5p": {f"threads_{n}": round(values[n]) for n in ctx.threads()},
             "rollout_learned_base_games_per_second_5p": round(values["rollout"], 2)}, lines)


# -- the reference engine ------------------------------------------------------------------------
def _reference(ctx):
    return [Measure(f"reference engine, {p} players", p,
                    partial(yardsticks.reference_games_per_second, ctx.t, p, ctx.size(5, 40)))
            for p in REFERENCE_PLAYERS]


def _reference_report(ctx, values):
    speedup = _row_5p(ctx, "random")["threads_1"] / round(values[5], 1)
    lines = ["reference engine (plain Python, random policy):",
             *(f"  {p} players: {rate:,.1f} games/s" for p, rate in values.items()),
             f"  kernel / reference, 5 players, 1 thread: {speedup:,.0f}x"]
    return ({"reference_games_per_second": {str(p): round(rate, 1) for p, rate in values.items()},
             "speedup_5p_random_1_thread": round(speedup)}, lines)


# -- the environments ----------------------------------------------------------------------------
def _envs(ctx):
    seconds = ctx.size(3, 15)
    return [*(Measure(f"environment, {p} players", ("aec", p), partial(envs.aec_speed, p, ctx.size(3, 20)))
              for p in ENV_PLAYERS),
            Measure("parallel environment, 4 players", ("parallel", 4),
                    partial(envs.parallel_speed, 4, ctx.size(3, 20))),
            *(Measure(f"batched environment, {_threads_word(n)}", ("batched", n),
                      partial(envs.batched_speed, 4, n, seconds)) for n in ctx.threads()),
            *(Measure(f"batched environment, cached actions, {_threads_word(n)}", ("cached", n),
                      partial(envs.batched_speed_cached, 4, n, seconds)) for n in ctx.threads())]


def _envs_report(ctx, values):
    entries, lines = {}, ["PettingZoo environment wsim.env.wonders_v1 (random legal actions, 1 thread):"]
    for p in ENV_PLAYERS:
        steps, rate = values["aec", p]
        entries[f"env_{p}p"] = {"steps_per_second": round(steps), "games_per_second": round(rate, 1)}
        lines.append(f"  AEC, {p} players: {steps:,.0f} steps/s, {rate:,.1f} games/s")
    steps, rate = values["parallel", 4]
    entries["parallel_env_4p"] = {"agent_steps_per_second": round(steps), "games_per_second": round(rate, 1)}
    lines.append(f"  Parallel, 4 players: {steps:,.0f} agent steps/s, {rate:,.1f} games/s")
    entries["batched_env_4p"] = {f"threads_{n}": values["batched", n] for n in ctx.threads()}
    entries["batched_env_4p_cached_actions"] = {f"threads_{n}": values["cached", n] for n in ctx.threads()}
    lines.append(f"batched environment wsim.env.batched_v0 (4 players, every seat a learner, {envs.BATCHED_GAMES:,} "
                 "games at once):")
    for n in ctx.threads():
        row, cached = values["batched", n], values["cached", n]
        lines += [f"  {_threads_word(n)}, sample_legal's actions each step: {row['agent_steps_per_second']:,} agent "
                  f"steps/s, {row['games_per_second']:,} games/s",
                  f"  {_threads_word(n)}, actions cached before timing: {cached['steps_per_second']:,} steps/s "
                  f"(games stepped), {cached['agent_steps_per_second']:,} agent steps/s"]
    lines += ["  (cached: PufferLib's and EnvPool's way, actions made before the clock, steps counted as games "
              "x calls;",
              "   sample_legal's: a legal action drawn at each step, and only the seats that act counted)",
              f"  memory: {row['mib_per_10k_games']:,} MiB of arrays per 10,000 games, "
              f"{row['mask_mib_per_10k_games']:,} MiB of them the dense mask (dense_mask=False drops it)"]
    return entries, lines


# -- the trading solver --------------------------------------------------------------------------
def _trade(ctx):
    return [Measure("trading solver", "rate", yardsticks.trade_calls_per_second)]


def _trade_report(ctx, values):
    rate = values["rate"]
    return ({"trade_solver_calls_per_second": round(rate)},
            [f"trading solver: {rate:,.0f} calls/s (random positions, 1 thread)"])


# -- start-up and the big run --------------------------------------------------------------------
def _startup(ctx):
    return [*(Measure(f"cold start, {policy}", ("cold", policy), partial(ctx.children.cold_start, policy))
              for policy in SELF_PLAY),  # each on an empty cache: what a first run of that policy costs
            *(Measure(f"first use of the {family} family", ("first", family), partial(ctx.children.first_use, family))
              for family in LAZY_FAMILIES),
            Measure("warm start", "warm", ctx.children.warm_start),
            Measure(f"a {ctx.big_run():,}-game run", "big", partial(ctx.children.big_run, ctx.big_run()))]


def _startup_report(ctx, values):
    cold = {p: round(values["cold", p], 1) for p in SELF_PLAY}
    first = {f: round(values["first", f], 1) for f in LAZY_FAMILIES}
    warm, big, (seconds, peak) = values["warm"], ctx.big_run(), values["big"]
    lines = ["start-up of `wsim simulate --games 1 --policy P` on an empty numba cache (it compiles the games "
             "family): " + ", ".join(f"{p} {s:.1f} s" for p, s in cold.items()),
             "first use of the lazily compiled families (`wsim compile F`, games family cached): "
             + ", ".join(f"{f} {s:.1f} s" for f, s in first.items()),
             f"warm start of `wsim simulate --games 1 --policy heuristic` (kernels cached), best of 3: {warm:.2f} s",
             f"`wsim simulate --games {big:,} --players 5`: {seconds:.1f} s end to end, peak RSS {peak:,.0f} MiB"]
    return ({"cold_start_seconds": cold, "first_use_seconds": first, "warm_start_seconds": round(warm, 2),
             "big_run": {"games": big, "players": 5, "seconds": round(seconds, 1), "peak_rss_mib": round(peak)}},
            lines)


SUITE = (
    Section(_cells, _cells_report),
    Section(_splits, _splits_report),
    Section(_rollouts, _rollouts_report),
    Section(_learned, _learned_report),
    Section(_reference, _reference_report),
    Section(_envs, _envs_report, needs="pettingzoo"),
    Section(_trade, _trade_report),
    Section(_startup, _startup_report),
)


class _Steps:
    """Counts run_benchmarks' measurements for its progress: each call names the next one."""

    def __init__(self, tracker):
        self.tracker, self.started = tracker, False

    def __call__(self, name: str):
        if self.started:
            self.tracker.advance(1)
        self.started = True
        self.tracker.step(name)

    def end(self):
        if self.started:
            self.tracker.advance(1)


def run_benchmarks(quick: bool, save: bool, echo, data: str | None = None, progress=False) -> dict:
    """Run every measurement, print a table with `echo`, and return (and save) the results.

    data: the card data file to benchmark (default: WSIM_DATA or the built-in one); progress:
    True, False or a function (wsim.run.progress), counting the measurements."""
    from wsim.run import progress as progress_mod

    results = record.header("wsim bench" + (" --quick" if quick else ""))
    with tempfile.TemporaryDirectory() as tmp:
        ctx = Context(tables_mod.load(data), quick, available_cores(), Children(Path(tmp), data), results)
        plan = [(section, section.measures(ctx)) for section in SUITE
                if section.needs is None or find_spec(section.needs) is not None]
        total = sum(len(measures) for _, measures in plan)
        with progress_mod.start(progress, total, label="bench", unit="measurements") as tracker:
            shown = tracker.echo if tracker.drawn else echo
            step = _Steps(tracker)
            for section, measures in plan:
                values = {}
                for m in measures:
                    step(m.label)
                    values[m.key] = m.run()
                set_threads(None)
                entries, lines = section.report(ctx, values)
                results.update(entries)
                for line in lines:
                    shown(line)
            step.end()
    if save:
        record.save(results, f"bench-{record.stamp(results)}{'-quick' if quick else ''}", echo)
    return results
