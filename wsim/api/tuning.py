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
from wsim.errors import WsimError, brief, option, whole_number
from wsim.run.lock import KERNEL_LOCK
from wsim.run.settings import MAX_SEED

TUNED_POLICIES = ("heuristic",)


def tune(*, out=None, policy: str = "heuristic", players: int = 4, generations: int = 20, population: int = 12,
         games: int = 200, seed: int = 0, threads=None, overwrite: bool = False, data=None,
         on_generation=None) -> dict:
    """Fit `policy`'s weights (`wsim tune`): each candidate plays one seat against the others of
    a pool, and in self-play must leave no wonder stage or way of scoring unused. Returns the
    weights document; with `out`, also writes it there (a new file, or over one with
    overwrite=True; the same options give the same file). on_generation(entry) follows the search."""
    from wsim import tables
    from wsim.agents.tune import document_text, out_file, tune as search
    from wsim.run.runner import set_threads

    if policy not in TUNED_POLICIES:
        raise WsimError(f"{option('policy')}: only {', '.join(TUNED_POLICIES)} has weights to fit, got {brief(policy)}")
    players = whole_number(players, "players", codes.MIN_SIMULATED_PLAYERS, codes.MAX_PLAYERS)
    generations = whole_number(generations, "generations", 1, 10_000)
    population = whole_number(population, "population", 4, 1_000)
    games = whole_number(games, "games", 1, 10**7)
    seed = whole_number(seed, "seed", 0, MAX_SEED)
    if out is not None:
        out = os.fspath(out) if isinstance(out, os.PathLike) else out
        if not isinstance(out, str) or out == "":
            raise WsimError(f"{option('out')}: must name the weights file, got {brief(out)}")
    t = tables.load(data)
    threads_checked(threads)
    with settings_error(), KERNEL_LOCK:
        set_threads(threads)
        if out is None:
            return search(t, players, generations, population, games, seed, on_generation)
        with out_file(out, overwrite, generations) as write:
            doc = search(t, players, generations, population, games, seed, on_generation)
            write(document_text(doc))
        return doc
