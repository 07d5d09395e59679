"""`wsim bench`: the benchmark suite. Measures, prints and records (bench/results/*.json):

- kernel games/s for 2..7 players (2: the Free City variant) x random/greedy/heuristic x 1 and 2 threads (no Parquet,
  warm kernels; each cell the best of three equal runs);
- rollout's games/s and playouts/s at 16 and 64 playouts a move (5 players, one rollout seat; the best of two
  plays of the same games);
- where a 5-player game's time goes: the deal and the bare loop floor, and each component
  (deal, legal moves, trading solver, policy, resolution, scoring) from the instrumented twin
  of the game loop in kernels/profile.py;
- cold JIT compile time (a fresh process with an empty NUMBA_CACHE_DIR) and warm start-up time
  (the same again, cache filled: `wsim simulate --games 1`);
- a 1,000,000-game five-player `wsim simulate` run end to end: seconds and peak RSS;
- the trading solver's calls/s on random positions;
- the reference engine's games/s (random policy), measured in the same run for the speed-up.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from importlib.util import find_spec
from pathlib import Path

import numba
import numpy as np
from numba import njit

from wsim import RULES_VERSION, __version__, codes, tables as tables_mod
from wsim.kernels.deal import deal_game
from wsim.kernels.game import new_scratch
from wsim.kernels.layout import (E_COST_PK, E_COUNT, E_NAME_ID, F_CHOICE, F_COUNT, F_NCHOICE, F_NSELL_CHOICE,
                                 F_PK_LP, F_PK_PROD, F_PK_REACH, F_PK_RP, F_PK_SELL, F_PK_SELL_CAP, F_SELL_CH,
                                 RES_COUNT, kernel_tables)
from wsim.kernels.rng import STREAM_SEAT0, draw_below, stream_key
from wsim.kernels.schema import MAX_CITY, MAX_NAMES, MAX_OPTIONS, MAX_SEATS, pack_halves
from wsim.kernels.trade import trade_options_at
from wsim.run import playout_count
from wsim.run.profiling import profile_run
from wsim.run.runner import Runner, available_cores, set_threads
from wsim.run.settings import Settings, cities_of
from wsim.run.weights import LEARNED_BASE_DEPTH, default_params, rollout_row


POLICIES = ("random", "greedy", "heuristic")


RUNS_PER_CELL = 3  # a cell's games are played as this many equal runs of the same games


def cpu_model() -> str:
    """The processor's model name as the kernel reports it (Linux), else the platform's word: a
    record's speeds are only comparable with others of the same model."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict:
    """What a bench record says of the machine it was measured on."""
    return {"cpus": os.cpu_count(), "processor": platform.processor() or platform.machine(),
            "cpu_model": cpu_model(), "python": platform.python_version(), "numba": numba.__version__}


def _games_per_second(t, players: int, policy: str, threads: int, games: int) -> float:
    """Games a second: the best of RUNS_PER_CELL runs of games / RUNS_PER_CELL games each (the
    same games), after a warm-up. The best run is the one least disturbed by the rest of the
    machine, so that a cell says what the code costs rather than what the hour did."""
    set_threads(threads)
    runner = Runner(t, Settings(players=players, policies=(policy,) * players))
    runner.play(0, 64)  # warm-up: compile or load the kernels outside the timing
    return _best_rate(runner, 0, max(1, games // RUNS_PER_CELL), RUNS_PER_CELL)


def _best_rate(runner: Runner, first: int, games: int, runs: int) -> float:
    """The best games/s of `runs` plays of games first..first + games - 1 (the same each time)."""
    best = 0.0
    for _ in range(runs):
        start = time.perf_counter()
        runner.play(first, games)
        best = max(best, games / (time.perf_counter() - start))
    return best


def _subprocess_seconds(args: list, env: dict) -> tuple:
    """(wall seconds, peak RSS in MiB) of a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run(args, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of children is the largest child so far: only meaningful when it grew
    return seconds, max(peak, before) / 1024


def _wsim(*args) -> list:
    return [sys.executable, "-m", "wsim", *args]


@njit(cache=True)
def _trade_loop(costs, seat, out, repeats):
    total = 0
    for _ in range(repeats):
        for i in range(costs.shape[0]):
            total += trade_options_at(costs, i, seat, 3 * i, 3 * i + 1, 3 * i + 2, out)
    return total


def _trade_calls_per_second(positions: int = 10_000, repeats: int = 20) -> float:
    """Random positions shaped like the game's (costs of 1-5 units, a few sources per city), laid
    out as the game kernels keep them (seat rows, layout.F_*): each city's row read in place."""
    rng = np.random.default_rng(0)
    cost = np.zeros((positions, 7), np.int64)
    for i in range(positions):
        for _ in range(rng.integers(1, 6)):
            cost[i, rng.integers(0, 7)] += 1
    costs = np.zeros((positions, E_COUNT), np.int32)
    costs[:, E_COST_PK], costs[:, E_COST_PK + 1] = pack_halves(cost)
    masks = np.array([0b0101, 0b1010, 0b0011, 0b1100, 0b1111, 0b1110000], np.int64)
    seat = np.zeros((3 * positions, F_COUNT), np.int32)

    def put(row, col, counts):
        seat[row, col], seat[row, col + 1] = pack_halves(np.asarray(counts, np.int64))

    def units_of(row, choice_col, n_col, count):
        units = masks[rng.integers(0, count, rng.integers(0, 3 if choice_col == F_CHOICE else 2))]
        seat[row, n_col] = len(units)
        seat[row, choice_col:choice_col + len(units)] = units
        return np.array([sum((int(u) >> r) & 1 for u in units) for r in range(7)])  # units per resource

    for i in range(positions):
        own = 3 * i
        put(own, F_PK_PROD, rng.integers(0, 2, 7))
        put(own, F_PK_LP, rng.choice([1, 2], 7))
        put(own, F_PK_RP, rng.choice([1, 2], 7))
        put(own, F_PK_REACH, units_of(own, F_CHOICE, F_NCHOICE, len(masks)))
        for row in (own + 1, own + 2):
            fixed = rng.integers(0, 3, 7)
            put(row, F_PK_SELL, fixed)
            put(row, F_PK_SELL_CAP, fixed + units_of(row, F_SELL_CH, F_NSELL_CHOICE, 4))
    out = np.zeros((MAX_OPTIONS, 2), np.int32)
    _trade_loop(costs, seat, out, 1)
    start = time.perf_counter()
    _trade_loop(costs, seat, out, repeats)
    return positions * repeats / (time.perf_counter() - start)


@njit(cache=True)
def _deal_loop(ent, board, n_cards, n, games, with_play, sc, dealt, hand, spare, owned):
    """The loop floor of a game (with_play) or its deal alone, over `games` games: the real deal,
    then 3 ages x 6 turns of: every seat checks each card of its hand against its owned names,
    draws one legal card from its stream, removes it, and hands pass. No costs, no trading, no
    effects: what any engine of this shape pays at least."""
    total = 0
    spec = np.full(n, -1, np.int8)
    for game in range(games):
        deal_game(ent, board, n_cards, n, np.uint64(1), game, spec, spec, False, dealt, sc)
        if not with_play:
            total += dealt[0, 0, 0]
            continue
        owned[:] = 0
        counter = 0
        key = stream_key(np.uint64(1), game, STREAM_SEAT0)
        for age in range(3):
            for s in range(n):
                for j in range(7):
                    hand[s, j] = dealt[age, s, j]
            for turn in range(6):
                size = 7 - turn
                for s in range(n):
                    legal = 0
                    for j in range(size):
                        if owned[s, ent[hand[s, j], E_NAME_ID]] == 0:
                            legal += 1
                    pick = int(draw_below(key, counter, size))
                    counter += 1
                    c = hand[s, pick]
                    owned[s, ent[c, E_NAME_ID]] = 1
                    total += legal
                    for j in range(pick, size - 1):
                        hand[s, j] = hand[s, j + 1]
                for s in range(n):
                    src = (s + 1) % n if age == 1 else (s - 1) % n
                    for j in range(size - 1):
                        spare[s, j] = hand[src, j]
                for s in range(n):
                    for j in range(size - 1):
                        hand[s, j] = spare[s, j]
    return total


def _where_time_goes(t, players: int, games: int, full_rate: float) -> dict:
    """Microseconds per game of the deal alone, of the loop floor, and of the real game."""
    ent, board, n_cards = kernel_tables(t)
    scratch = (new_scratch()[0], np.zeros((3, MAX_SEATS, 7), np.int16), np.zeros((MAX_SEATS, 7), np.int32),
               np.zeros((MAX_SEATS, 7), np.int32), np.zeros((MAX_SEATS, MAX_NAMES), np.int8))
    out = {}
    for name, with_play in (("deal", False), ("loop_floor", True)):
        _deal_loop(ent, board, n_cards, players, 16, with_play, *scratch)
        start = time.perf_counter()
        _deal_loop(ent, board, n_cards, players, games, with_play, *scratch)
        out[f"{name}_us"] = round((time.perf_counter() - start) / games * 1e6, 2)
    out["game_us"] = round(1e6 / full_rate, 2)
    out["game_over_floor"] = round(out["game_us"] / out["loop_floor_us"], 1)
    return out


def _rollout_settings(playouts: int, base: str = "heuristic") -> Settings:
    """Five players: one rollout seat (seat 0) at `playouts` over `base`, four heuristic seats."""
    rows = [default_params("heuristic")] * 5
    rows[0] = rollout_row(playouts, base, default_params(base))
    return Settings(players=5, policies=("rollout",) + ("heuristic",) * 4, params=tuple(rows))


def _rollout_games_per_second(t, playouts: int, games: int, runs: int = 1, base: str = "heuristic") -> float:
    """Five-player games a second with one rollout seat (the others heuristic), one thread:
    games 1..games of seed 0, the best of `runs` plays of them (the same games each time, so
    that _rollout_playouts_per_game counts their playouts)."""
    set_threads(1)
    runner = Runner(t, _rollout_settings(playouts, base))
    runner.play(0, 1)  # compile or load outside the timing
    return _best_rate(runner, 1, games, runs)


def _rollout_playouts_per_game(t, playouts: int, games: int) -> float:
    """Playouts the rollout seat runs in a game, mean over the games _rollout_games_per_second
    times (wsim.run.playout_count: stepped through the step API and checked against them)."""
    settings = _rollout_settings(playouts)
    timed = Runner(t, settings).play(1, games)
    return playout_count.playouts_per_game(t, settings, 1, timed.res)


def _component_breakdown(t, players: int, policy: str, games: int) -> dict:
    """Microseconds per game in each component (kernels/profile.py), one thread."""
    from wsim.kernels.profile import COMPONENTS

    runner = Runner(t, Settings(players=players, policies=(policy,) * players))
    res = np.zeros((cities_of(players), RES_COUNT), np.int16)
    cards = np.zeros((cities_of(players), MAX_CITY), np.int16)
    acc = np.zeros(len(COMPONENTS) + 1, np.uint64)

    def run(n_games: int) -> float:
        start = time.perf_counter()
        profile_run(runner, n_games, res, cards, acc)
        return time.perf_counter() - start

    run(16)  # compile or load outside the timing
    seconds = run(games)
    us_per_cycle = seconds / float(acc[len(COMPONENTS)]) * 1e6
    out = {name: round(float(acc[i]) * us_per_cycle / games, 2) for i, name in enumerate(COMPONENTS)}
    out["total"] = round(float(acc[len(COMPONENTS)]) * us_per_cycle / games, 2)
    return out


def _reference_games_per_second(t, players: int, games: int) -> float:
    from wsim.reference.engine import play

    start = time.perf_counter()
    for g in range(games):
        play(0, g, players, t)
    return games / (time.perf_counter() - start)


def _env_speed(players: int, games: int) -> tuple:
    """(steps/s, games/s) of wsim.env.wonders_v0 with random legal actions (the action space's
    sample under the mask, seeded): the environment's own cost, Python included."""
    from wsim.env import wonders_v0

    env = wonders_v0.env(players=players, seed=0)
    env.reset(seed=0)
    steps = 0
    start = time.perf_counter()
    for game in range(games):
        if game:
            env.reset()
        for agent in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            env.step(None if termination or truncation else env.action_space(agent).sample(obs["action_mask"]))
            steps += 1
    seconds = time.perf_counter() - start
    return steps / seconds, games / seconds


def _parallel_env_speed(players: int, games: int) -> tuple:
    """(agent steps/s, games/s) of wonders_v0.parallel_env with random legal actions: every
    agent that has a decision acts in a step (those that wait are not counted)."""
    from wsim.env import wonders_v0

    env = wonders_v0.parallel_env(players=players, seed=0)
    rng = np.random.default_rng(0)
    steps = 0
    for game in range(games + 1):  # game 0 untimed: it loads the kernels
        if game == 1:
            steps, start = 0, time.perf_counter()
        obs, _ = env.reset(seed=0) if game == 0 else env.reset()
        while env.agents:
            actions = {}
            for a in env.agents:
                legal = np.flatnonzero(obs[a]["action_mask"])
                actions[a] = int(rng.choice(legal))
                steps += actions[a] != env.wait
            obs, *_ = env.step(actions)
    seconds = time.perf_counter() - start
    return steps / seconds, games / seconds


BATCHED_GAMES = 10_000  # the batched environment's games at once, and the count its memory is stated for


def _batched_env_speed(players: int, threads: int, seconds: float, games: int = BATCHED_GAMES) -> dict:
    """wsim.env.batched_v0 with every seat a learner and sample_legal's actions, `games` at
    once: agent steps/s (the (game, seat) pairs that act), games/s and the bytes of its
    arrays, with and without the dense mask."""
    from wsim.env import batched_v0

    set_threads(threads)
    venv = batched_v0.env(num_games=games, players=players, seed=0)
    venv.reset()
    venv.step(venv.sample_legal())  # the kernels loaded
    steps = ended = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = venv.sample_legal()
        steps += int((actions >= 0).sum())
        ended += int(venv.step(actions)[2].sum())
    elapsed = time.perf_counter() - start
    held = venv.nbytes()
    set_threads(None)
    return {"agent_steps_per_second": round(steps / elapsed), "games_per_second": round(ended / elapsed, 1),
            "mib_per_10k_games": round(held * 10_000 / games / 2**20),
            "mask_mib_per_10k_games": round(venv._views.mask.nbytes * 10_000 / games / 2**20)}


def _measurements(cores: int) -> int:
    """How many measurements run_benchmarks takes (its progress counts them)."""
    cells = (codes.MAX_PLAYERS - codes.MIN_SIMULATED_PLAYERS + 1) * len(POLICIES) * sum(1 for n in (1, 2)
                                                                                        if n <= cores)
    env = 4 + sum(1 for n in (1, 2) if n <= cores) if find_spec("pettingzoo") is not None else 0
    # cells, time splits, rollout, reference engine, environment, trading solver, start-ups
    learned = sum(1 for n in (1, 2) if n <= cores) + 1
    return cells + len(POLICIES) + 2 + learned + 3 + env + 1 + len(POLICIES) + 2 + 1 + 1


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

    with progress_mod.start(progress, _measurements(available_cores()), label="bench", unit="measurements") as tracker:
        steps = _Steps(tracker)
        out = _benchmarks(quick, save, tracker.echo if tracker.drawn else echo, data, steps)
        steps.end()
    return out


def _benchmarks(quick: bool, save: bool, echo, data: str | None, step) -> dict:
    """run_benchmarks' measurements; step(name) before each."""
    t = tables_mod.load(data)
    games = {"random": 5_000 if quick else 50_000, "greedy": 2_000 if quick else 20_000,
             "heuristic": 2_000 if quick else 20_000}
    results: dict = {
        "when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": "wsim bench" + (" --quick" if quick else ""),
        "wsim_version": __version__, "rules_version": RULES_VERSION,
        "machine": machine(),
        "games_per_second": [],
    }
    echo(f"kernel games/s ({games['random']:,} random / {games['greedy']:,} greedy and heuristic games per cell, "
         f"the best of {RUNS_PER_CELL} equal runs):")
    echo(f"  {'players':>7} {'policy':>7} {'1 thread':>10} {'2 threads':>10}")
    cores = available_cores()
    for players in range(codes.MIN_SIMULATED_PLAYERS, codes.MAX_PLAYERS + 1):
        for policy in POLICIES:
            row = {"players": players, "policy": policy}
            for threads in (1, 2):
                if threads <= cores:
                    step(f"{players} players, {policy}, {threads} thread{'s' if threads > 1 else ''}")
                    row[f"threads_{threads}"] = round(_games_per_second(t, players, policy, threads,
                                                                          games[policy]))
            results["games_per_second"].append(row)
            echo(f"  {players:>7} {policy:>7} {row.get('threads_1', 0):>10,} {row.get('threads_2', 0):>10,}")
    set_threads(None)

    echo("where a 5-player game's time goes (1 thread, microseconds per game):")
    results["time_per_game_5p"] = {}
    for policy in POLICIES:
        step(f"where a 5-player {policy} game's time goes")
        row = next(r for r in results["games_per_second"] if r["players"] == 5 and r["policy"] == policy)
        split = _where_time_goes(t, 5, games["random"], row["threads_1"])
        split["components_us"] = parts = _component_breakdown(t, 5, policy, games[policy])
        results["time_per_game_5p"][policy] = split
        echo(f"  {policy:>7}: game {split['game_us']:.1f}; loop floor (deal + pick/pass, no rules) "
             f"{split['loop_floor_us']:.1f}: the game costs {split['game_over_floor']}x the floor")
        echo("           instrumented build: " + " + ".join(f"{k} {v:.1f}" for k, v in parts.items() if k != "total")
             + f" = {parts['total']:.1f}")

    echo("rollout (5 players: one rollout seat, four heuristic ones; 1 thread; the best of two plays of the games):")
    results["rollout_games_per_second_5p"] = {}
    results["rollout_playouts_per_second_5p"] = {}
    for playouts, n_games in ((16, 2 if quick else 6), (64, 1 if quick else 3)):
        step(f"rollout, {playouts} playouts a move")
        rate = _rollout_games_per_second(t, playouts, n_games, runs=2)
        per_game = _rollout_playouts_per_game(t, playouts, n_games)
        results["rollout_games_per_second_5p"][str(playouts)] = round(rate, 2)
        results["rollout_playouts_per_second_5p"][str(playouts)] = round(rate * per_game)
        echo(f"  {playouts} playouts a move: {rate:.2f} games/s, {per_game:,.0f} playouts a game, "
             f"{rate * per_game:,.0f} playouts/s")
    set_threads(None)

    echo("learned (the shipped model, wsim/data/learned.npz; 5 players, every seat learned; the best of "
         f"{RUNS_PER_CELL} equal runs):")
    results["learned_games_per_second_5p"] = {}
    for threads in (1, 2):
        if threads <= cores:
            step(f"5 players, learned, {threads} thread{'s' if threads > 1 else ''}")
            rate = _games_per_second(t, 5, "learned", threads, 300 if quick else 3_000)
            results["learned_games_per_second_5p"][f"threads_{threads}"] = round(rate)
            echo(f"  {threads} thread{'s' if threads > 1 else ''}: {rate:,.0f} games/s")
    step("rollout over the learned base")
    rate = _rollout_games_per_second(t, 16, 2 if quick else 6, runs=2, base="learned")
    results["rollout_learned_base_games_per_second_5p"] = round(rate, 2)
    echo(f"  rollout, 16 playouts a move over the learned base, truncated at depth {LEARNED_BASE_DEPTH} (one rollout "
         f"seat, four heuristic, 1 thread): {rate:.2f} games/s")
    set_threads(None)

    echo("reference engine (plain Python, random policy):")
    ref_games = 5 if quick else 40
    results["reference_games_per_second"] = {}
    for players in (3, 5, 7):
        step(f"reference engine, {players} players")
        rate = _reference_games_per_second(t, players, ref_games)
        results["reference_games_per_second"][str(players)] = round(rate, 1)
        echo(f"  {players} players: {rate:,.1f} games/s")
    five = next(r for r in results["games_per_second"] if r["players"] == 5 and r["policy"] == "random")
    speedup = five["threads_1"] / results["reference_games_per_second"]["5"]
    results["speedup_5p_random_1_thread"] = round(speedup)
    echo(f"  kernel / reference, 5 players, 1 thread: {speedup:,.0f}x")

    if find_spec("pettingzoo") is not None:
        echo("PettingZoo environment wsim.env.wonders_v0 (random legal actions, 1 thread):")
        for players in (2, 4, 5):
            step(f"environment, {players} players")
            steps, rate = _env_speed(players, 3 if quick else 20)
            results[f"env_{players}p"] = {"steps_per_second": round(steps), "games_per_second": round(rate, 1)}
            echo(f"  AEC, {players} players: {steps:,.0f} steps/s, {rate:,.1f} games/s")
        step("parallel environment, 4 players")
        steps, rate = _parallel_env_speed(4, 3 if quick else 20)
        results["parallel_env_4p"] = {"agent_steps_per_second": round(steps), "games_per_second": round(rate, 1)}
        echo(f"  Parallel, 4 players: {steps:,.0f} agent steps/s, {rate:,.1f} games/s")
        echo(f"batched environment wsim.env.batched_v0 (4 players, every seat a learner, sample_legal's actions, "
             f"{BATCHED_GAMES:,} games at once):")
        results["batched_env_4p"] = {}
        for threads in (1, 2):
            if threads <= cores:
                step(f"batched environment, {threads} thread{'s' if threads > 1 else ''}")
                row = _batched_env_speed(4, threads, 3 if quick else 15)
                results["batched_env_4p"][f"threads_{threads}"] = row
                echo(f"  {threads} thread{'s' if threads > 1 else ''}: {row['agent_steps_per_second']:,} agent steps/s, "
                     f"{row['games_per_second']:,} games/s")
        echo(f"  memory: {row['mib_per_10k_games']:,} MiB of arrays per 10,000 games, "
             f"{row['mask_mib_per_10k_games']:,} MiB of them the dense mask (dense_mask=False drops it)")

    step("trading solver")
    rate = _trade_calls_per_second()
    results["trade_solver_calls_per_second"] = round(rate)
    echo(f"trading solver: {rate:,.0f} calls/s (random positions, 1 thread)")

    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=str(Path(tmp, "cache-heuristic")))  # warm after the cold runs
        if data is not None:
            env["WSIM_DATA"] = str(Path(data).resolve())
        out = str(Path(tmp, "ds"))
        results["cold_start_seconds"] = {}
        for policy in POLICIES:  # each on an empty cache: what a first run of that policy costs
            step(f"cold start, {policy}")
            cold_env = dict(env, NUMBA_CACHE_DIR=str(Path(tmp, f"cache-{policy}")))
            cold, _ = _subprocess_seconds(
                _wsim("simulate", "--games", "1", "--policy", policy, "--out", out, "--overwrite"), cold_env)
            results["cold_start_seconds"][policy] = round(cold, 1)
        echo("start-up of `wsim simulate --games 1 --policy P` on an empty numba cache (it compiles the games "
             "family): " + ", ".join(f"{p} {s:.1f} s" for p, s in results["cold_start_seconds"].items()))
        results["first_use_seconds"] = {}
        for family in ("rollout", "profile"):  # compiled on first use only, after the games family
            step(f"first use of the {family} family")
            seconds, _ = _subprocess_seconds(_wsim("compile", family), env)
            results["first_use_seconds"][family] = round(seconds, 1)
        echo("first use of the lazily compiled families (`wsim compile F`, games family cached): "
             + ", ".join(f"{f} {s:.1f} s" for f, s in results["first_use_seconds"].items()))
        step("warm start")
        warm = min(_subprocess_seconds(_wsim("simulate", "--games", "1", "--policy", "heuristic", "--out", out,
                                             "--overwrite"), env)[0] for _ in range(3))
        results["warm_start_seconds"] = round(warm, 2)
        echo(f"warm start of `wsim simulate --games 1 --policy heuristic` (kernels cached), best of 3: {warm:.2f} s")
        big = 100_000 if quick else 1_000_000
        step(f"a {big:,}-game run")
        seconds, peak = _subprocess_seconds(
            _wsim("simulate", "--games", str(big), "--players", "5", "--out", out, "--overwrite"), env)
        results["big_run"] = {"games": big, "players": 5, "seconds": round(seconds, 1),
                              "peak_rss_mib": round(peak)}
        echo(f"`wsim simulate --games {big:,} --players 5`: {seconds:.1f} s end to end, "
             f"peak RSS {peak:,.0f} MiB")
    if save:
        _record(results, f"bench-{results['when'][:19].replace(':', '')}{'-quick' if quick else ''}", echo)
    return results


def _record(results: dict, name: str, echo):
    """Write results to bench/results/NAME.json of the checkout (nothing from an installed copy)."""
    folder = Path(__file__).resolve().parent.parent / "bench" / "results"
    if folder.parent.is_dir():
        folder.mkdir(exist_ok=True)
        path = folder / f"{name}.json"
        path.write_text(json.dumps(results, indent=1) + "\n")
        echo(f"recorded in {path}")


def compare_with(rev: str, rounds: int, quick: bool, save: bool, echo) -> dict:
    """`wsim bench --against REV`: this tree and commit REV of its checkout side by side
    (wsim.bench_against); prints each run and the table, and returns (and saves) the results."""
    from wsim import bench_against

    root = bench_against.source_root()
    commit = bench_against.resolve(root, rev)
    games, rollout_games = (2_000, 2) if quick else (8_000, 6)
    results: dict = {
        "when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": f"wsim bench --against {rev} --rounds {rounds}" + (" --quick" if quick else ""),
        "before": {"rev": rev, "commit": commit},
        "after": {"head": bench_against.head(root), "changed": bench_against.changed(root)},
        "games_per_policy": games, "rollout_games": rollout_games, "rollout_playouts_per_move": 16,
        "machine": machine(),
    }
    echo(f"this tree ({root}) against {rev} ({commit[:10]}): five players, one thread, {games:,} games per "
         f"policy, rollout K=16 over {rollout_games} games; {rounds} round{'s' if rounds > 1 else ''} of two "
         f"runs, both trees at once (after an untimed run of each, which compiles {commit[:10]}'s kernels)")
    with bench_against.checkout(root, commit) as before:
        after = bench_against.Tree("this tree", root, None)

        def on_run(i, run):
            echo(f"  run {i}: " + ", ".join(f"{p} {run[before.label][p]:,.0f} / {run[after.label][p]:,.0f}"
                                            for p in bench_against.POLICIES))

        runs = bench_against.measure((before, after), rounds, games, rollout_games, on_run=on_run)
        rows = bench_against.summary(runs, before.label, after.label)
        echo(bench_against.table_text(rows, before.label, after.label))
    results["runs"] = runs
    results["summary"] = rows
    if save:
        _record(results, f"against-{commit[:10]}-{results['when'][:19].replace(':', '')}", echo)
    return results
