"""`wsim.learn`: train the learned player, as `wsim learn` does (docs/agents.md, "The learned
player").

    import wsim
    header = wsim.learn(out="my-model.npz", iterations=3, games=50_000)
    # then: wsim simulate --policies learned,heuristic,heuristic,heuristic --policy-param learned.model=my-model.npz
"""

from __future__ import annotations

import os
import re
from importlib.util import find_spec
from pathlib import Path

from wsim import codes
from wsim.api.runs import settings_error, threads_checked
from wsim.errors import (WsimError, brief, callback, flag, option, optional_path, path_value, progress_value,
                         real_number, text, whole_number)
from wsim.run.lock import KERNEL_LOCK


class LearnSetupError(WsimError):
    """`wsim learn` cannot run here (its extra is not installed)."""


def _players(value) -> tuple:
    """The player counts of a text such as "2,3,4,4,5,6,7"."""
    items = text(value, "players", "player counts such as '2,3,4,4,5,6,7'").split(",")
    counts = tuple(int(p) for p in items if re.fullmatch(r"\s*[0-9]{1,2}\s*", p))  # str.isdigit takes '²'
    if len(counts) != len(items) or not all(codes.MIN_SIMULATED_PLAYERS <= p <= codes.MAX_PLAYERS for p in counts):
        raise WsimError(f"{option('players')}: each count from {codes.MIN_SIMULATED_PLAYERS} to {codes.MAX_PLAYERS}, "
                        f"got {brief(value)}")
    return counts


def _share(value, name: str) -> float:
    """A share from 0 to 1, both included."""
    return min(1.0, max(0.0, real_number(value, name, -1e-9, 1 + 1e-9)))


def learn(*, out, work=None, iterations: int = 3, games: int = 50_000, players="2,3,4,4,5,6,7", rate: float = 0.05,
          explore: float = 0.5, hidden: int = 64, epochs: int = 30, eval_games: int = 2_000,
          teacher: str = "heuristic", seed: int = 0, threads=None, data=None, command: str = "",
          say=None, dask=None, progress=False, mix: float = 0.0, overwrite: bool = False) -> dict:
    """Run `wsim learn`'s iterations (wsim/agents/learn.py) and write the best model to `out`
    (a new file, or over one with overwrite=True); returns its header. work: the folder it keeps
    each step in (default OUT.work), from which the same call goes on; mix: from iteration 1 on,
    the share of each teacher table's seats that play `teacher` (the others the previous model);
    command: the command line the model's header records; say(text) receives a line per step;
    dask: a cluster's address (or "local:W") that plays the teacher games, threads then each
    task's; progress: True (drawn on stderr), False or a function receiving each
    wsim.run.progress.Update of the teacher games."""
    from wsim import tables
    from wsim.agents.learn import Plan, default_work, learn as run
    from wsim.run.runner import available_cores
    from wsim.run.settings import MAX_SEED

    path_value(out, "out", "the model file")
    out = os.fspath(out)  # as given: a trailing "/" says it names a folder (wsim.dataset.outfile.check_out)
    work = default_work(Path(out)) if work is None else path_value(work, "work", "the work folder")
    if os.path.abspath(work) == os.path.abspath(out):
        raise WsimError(f"{option('work')}: must name another path than {option('out')} (default: OUT.work)")
    overwrite = flag(overwrite, "overwrite")
    text(command, "command", "the command line to record (a text)")
    say = callback(say, "say") or (lambda _text: None)
    if teacher not in ("heuristic", "greedy", "random", "rollout"):
        raise WsimError(f"teacher: one of heuristic, greedy, random, rollout; got {brief(teacher)}")
    plan = Plan(iterations=whole_number(iterations, "iterations", 1, 20), games=whole_number(games, "games", 10, 10**7),
                players=_players(players), rate=_share(rate, "rate"), explore=_share(explore, "explore"),
                hidden=whole_number(hidden, "hidden", 1, 128), epochs=whole_number(epochs, "epochs", 1, 1000),
                eval_games=whole_number(eval_games, "eval_games", 4, 10**6), teacher=teacher,
                seed=whole_number(seed, "seed", 0, MAX_SEED), mix=_share(mix, "mix"))
    if plan.rate == 0:
        raise WsimError("rate: must be above 0 (a run that records nothing has nothing to fit)")
    if find_spec("sklearn") is None:  # the fit's library: the learn extra
        raise LearnSetupError("wsim learn needs scikit-learn: pip install 'wsim[learn]'")
    t = tables.load(optional_path(data, "data", "a card data file"))
    threads_checked(threads, dask)
    progress = progress_value(progress)
    with settings_error(), KERNEL_LOCK:
        return run(t, out, work, plan, threads or (available_cores() if dask is None else 1), command, say, progress,
                   overwrite, dask)
