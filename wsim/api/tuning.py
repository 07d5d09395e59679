"""`wsim.tune`: fit the heuristic's weights by self-play (CMA-ES), as `wsim tune` does
(docs/agents.md).

    import wsim
    doc = wsim.tune(players=4, generations=20, out="my-weights.json")
    doc["weights"]   # {"point": ..., ...}; the file is what `--policy-param heuristic.weights=FILE` reads
"""

from __future__ import annotations

import os

from wsim import codes
from wsim.api.runs import settings_error, threads_checked
from wsim.errors import callback, flag, one_of, optional_path, progress_value, whole_number
from wsim.run.lock import KERNEL_LOCK

TUNED_POLICIES = ("heuristic",)


def tune(*, out=None, policy: str = "heuristic", players: int = 4, generations: int = 20, population: int = 12,
         games: int = 200, seed: int = 0, threads=None, overwrite: bool = False, data=None,
         on_generation=None, progress=False) -> dict:
    """Fit `policy`'s weights (`wsim tune`): each candidate plays one seat against the others of
    a pool, and in self-play must leave no wonder stage or way of scoring unused. Returns the
    weights document; with `out`, also writes it there (a new file, or over one with
    overwrite=True; the same options give the same file). on_generation(entry) follows the
    search; progress: True (drawn on stderr), False or a function receiving each
    wsim.run.progress.Update (its step: the generation and candidate)."""
    from wsim import tables
    from wsim.agents.tune import document_text, tune as search, weights_room
    from wsim.dataset.outfile import out_file
    from wsim.run.runner import set_threads
    from wsim.run.settings import MAX_SEED, TUNE_GAMES, TUNE_GENERATIONS, TUNE_POPULATION

    if optional_path(out, "out", "the weights file") is not None:
        out = os.fspath(out)  # as given: a trailing "/" names a folder (wsim.dataset.outfile.check_out)
    policy = one_of(policy, "policy", TUNED_POLICIES)
    players = whole_number(players, "players", codes.MIN_SIMULATED_PLAYERS, codes.MAX_PLAYERS)
    generations = whole_number(generations, "generations", *TUNE_GENERATIONS)
    population = whole_number(population, "population", *TUNE_POPULATION)
    games = whole_number(games, "games", *TUNE_GAMES)
    seed = whole_number(seed, "seed", 0, MAX_SEED)
    overwrite = flag(overwrite, "overwrite")
    callback(on_generation, "on_generation")
    progress = progress_value(progress)
    t = tables.load(optional_path(data, "data", "a card data file"))
    threads_checked(threads)
    with settings_error(), KERNEL_LOCK:
        set_threads(threads)
        if out is None:
            return search(t, players, generations, population, games, seed, on_generation, progress)
        with out_file(out, overwrite, weights_room(generations), "the weights file") as write:
            doc = search(t, players, generations, population, games, seed, on_generation, progress)
            write(document_text(doc).encode())
        return doc
