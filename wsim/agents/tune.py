"""`wsim tune` (docs/interfaces.md §4): fit the heuristic's weights by self-play, with CMA-ES (`cma`).

The search runs over the weights in points (a weight / 100), within [0, 10], starting from the
hand-set weights (wsim/data/heuristic-handset.json) with a step of half a point: not from the
shipped default, which is tune's own output, so that the command the README gives reproduces
the shipped file. Each generation's candidates play the same games (common random
numbers: a candidate's luck is its rivals' luck), on the deals of games [generation × games,
(generation + 1) × games) of `--seed`:
  * as one seat against P − 1 seats of each opponent of the pool — `greedy`, the hand-set
    `heuristic`, the three shipped specialists (science-, military- and civilian-heavy) and, from
    the second generation on, the search's current mean — `--games` games per opponent, its seat
    rotating;
  * in self-play, every seat the candidate, `--games` games.
A candidate's fitness is its mean win share over the pool plus its mean points margin / 1,000
(which breaks ties), minus VARIETY_WEIGHT × its self-play's shortfall (wsim.agents.mechanics: how far
each wonder stage of each side, and each way of scoring, falls below being used by 30% of the
seats that could). Without that term the search found weights that beat the pool while their
self-play built no science and left two wonder stages unbuilt: a population no use for balance
analysis. CMA-ES is seeded from `--seed`, so the same options give the same file; the weights
written are the search distribution's final mean.

The file: {"format", "policy", "note", "weights": {KEY: int}, "tune": {the options, "pool",
"variety_weight", "log": [{"generation", "best", "mean", "shortfall"}]}} (shortfall: the best
candidate's), written whole (a temporary file renamed), refused over an existing file unless
--overwrite; the file is held by its writer's lock from its first check to the rename
(wsim.dataset.outfile, which `wsim learn` and the PPO example's --out share).
"""

from __future__ import annotations

import json
import warnings

import numpy as np

from wsim.kernels.heuristic import HEURISTIC_KEYS
from wsim.agents.ladder import Entry, play_pair, table
from wsim.agents.mechanics import shortfall, usage
from wsim.run.runner import Runner, play_chunks
from wsim.run.weights import DATA_DIR, FORMAT, HANDSET_FILE, MAX_WEIGHT, default_params, read_weights
from wsim.tables import Tables

SCALE = 100  # weights are hundredths of a point; the search moves in points
MAX_POINTS = 10  # the search's upper bound on a weight, in points
VARIETY_WEIGHT = 1.0  # a mechanic 10 points of use below the floor costs as much as 10% of wins
SPECIALISTS = ("science", "military", "civilian")


def _entry(label: str, x) -> Entry:
    row = list(default_params("heuristic"))
    for i, v in enumerate(x):
        row[i] = int(max(-MAX_WEIGHT, min(MAX_WEIGHT, round(v * SCALE))))
    return Entry("heuristic", label, tuple(row))


def self_play_shortfall(tables: Tables, candidate: Entry, players: int, games: int, seed: int,
                        first_game: int, on_progress=None) -> float:
    """wsim.agents.mechanics.shortfall of `games` games with the candidate at every seat (the
    mechanics' counts summed chunk by chunk: memory stays one chunk's)."""
    settings = table([candidate] * players, seed, first_game + games)
    counts: dict = {}
    for _, res in play_chunks(Runner(tables, settings), first_game, games, on_progress):
        for name, (used, seats) in usage(tables, res, players).items():
            was = counts.get(name, (0, 0))
            counts[name] = (was[0] + used, was[1] + seats)
    return shortfall(counts)


def fitness(tables: Tables, candidate: Entry, pool: list, players: int, games: int, seed: int,
            first_game: int, on_progress=None) -> tuple:
    """(fitness, self-play shortfall): the mean win share over the pool (one seat of the
    candidate against the rest of an opponent's), plus the mean points margin / 1,000, minus
    VARIETY_WEIGHT times the shortfall."""
    total = 0.0
    for opponent in pool:
        r = play_pair(tables, candidate, opponent, players, games, seed, first_game, on_progress=on_progress)
        total += r.wins / r.games + r.margin / r.games / 1000
    short = self_play_shortfall(tables, candidate, players, games, seed, first_game, on_progress)
    return total / len(pool) - VARIETY_WEIGHT * short, short


def search_games(generations: int, population: int, games: int) -> int:
    """The games a search plays: each candidate plays the pool (5 opponents, 6 from the second
    generation on: the previous mean joins) and its self-play, `games` games each."""
    fixed = len(SPECIALISTS) + 2
    return population * games * ((fixed + 1) + (fixed + 2) * (generations - 1))


def base_pool() -> list:
    """The fixed opponents: greedy, the hand-set weights and the shipped specialists."""
    pool = [Entry("greedy", "greedy", default_params("greedy")),
            Entry("heuristic", "hand-set", read_weights(HANDSET_FILE)[0])]
    for name in SPECIALISTS:
        pool.append(Entry("heuristic", name, read_weights(DATA_DIR / f"heuristic-{name}.json")[0]))
    return pool


def weights_room(generations: int) -> int:
    """More bytes than the file of a search of `generations` generations takes (the weights
    and options take about 1 KB, the log at most about 126 bytes a generation)."""
    return 4096 + 160 * generations


def tune(tables: Tables, players: int, generations: int, population: int, games: int, seed: int,
         on_generation=None, progress=False) -> dict:
    """Run the search; returns the weights document (see the module docstring). progress: True,
    False or a function (wsim.run.progress), over the games of the whole search."""
    from wsim.run import progress as progress_mod

    with progress_mod.start(progress, search_games(generations, population, games), label="tune") as tracker:
        return _search(tables, players, generations, population, games, seed, on_generation, tracker)


def _search(tables: Tables, players: int, generations: int, population: int, games: int, seed: int,
            on_generation, tracker) -> dict:
    """tune()'s search, its games counted by `tracker`."""
    with warnings.catch_warnings():  # cma warns at import when matplotlib is absent: plots are not used
        warnings.simplefilter("ignore")
        import cma

    start = np.array(read_weights(HANDSET_FILE)[0][:len(HEURISTIC_KEYS)], dtype=float) / SCALE
    # every feature is something a player wants (or, for deny and rival_coin, wants to avoid
    # giving): weights stay in [0, 10] points, so that noise cannot teach the search to shun a
    # whole mechanic (a negative discount weight would never build Olympia B's first stage)
    es = cma.CMAEvolutionStrategy(start, 0.5, {"seed": seed % (2**32 - 1) + 1, "popsize": population,
                                               "bounds": [0, MAX_POINTS], "verbose": -9})
    fixed = base_pool()
    pool = fixed
    log = []
    for generation in range(generations):
        xs = es.ask()
        first = generation * games
        results = []
        for i, x in enumerate(xs):
            tracker.step(f"generation {generation + 1} of {generations}: candidate {i + 1} of {len(xs)}")
            results.append(fitness(tables, _entry("candidate", x), pool, players, games, seed, first,
                                   tracker.advance))
        scores = [f for f, _ in results]
        es.tell(xs, [-f for f in scores])  # cma minimises
        best = int(np.argmax(scores))
        log.append({"generation": generation, "best": round(scores[best], 4),
                    "mean": round(float(np.mean(scores)), 4), "shortfall": round(results[best][1], 4)})
        pool = fixed + [_entry("previous", es.result.xfavorite)]
        tracker.note(f"  generation {generation + 1} of {generations}: best {log[-1]['best']:.3f}, "
                     f"mean {log[-1]['mean']:.3f}")
        if on_generation:
            on_generation(log[-1])
    # the distribution's mean, not the luckiest candidate: the estimate least fitted to noise
    row = _entry("tuned", es.result.xfavorite).params
    return {
        "format": FORMAT,
        "policy": "heuristic",
        "note": (f"fitted by wsim tune --policy heuristic --players {players} --generations {generations} "
                 f"--population {population} --games {games} --seed {seed}"),
        "weights": {k: int(row[i]) for i, k in enumerate(HEURISTIC_KEYS)},
        "tune": {"players": players, "generations": generations, "population": population, "games": games,
                 "seed": seed, "pool": [e.label for e in fixed] + ["the previous generation's mean"],
                 "variety_weight": VARIETY_WEIGHT, "log": log},
    }


def document_text(doc: dict) -> str:
    return json.dumps(doc, indent=2) + "\n"
