"""The analyses from Python: `wsim.balance`, `wsim.ablate`, `wsim.ladder`, `wsim.survey`,
`wsim.rebalance`.

Each takes its command's options under their Python names, writes the same report folder (the
output rules of INTERFACES §0: a non-empty folder only with overwrite, the old one replaced
once the new one is whole, one writer at a time) and returns its tables as pandas DataFrames.
Their games run under the per-process kernel lock (wsim.run.lock).
The command line calls these functions and prints what they return. They need the analysis
extra (`pip install 'wsim[analysis]'`).
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass
from importlib.util import find_spec
from typing import TYPE_CHECKING

from wsim.api.runs import folder_arg, run_settings, settings_error, threads_checked, write_mode
from wsim.errors import WsimError, brief, option, whole_number
from wsim.run.lock import KERNEL_LOCK

if TYPE_CHECKING:
    import pandas as pd

    from wsim.analysis.balance.report import Report
    from wsim.analysis.survey import Survey

ANALYSIS_LIBRARIES = ("duckdb", "statsmodels", "matplotlib")


def analysis_extra():
    """Refuse an analysis, naming the extra to install, when one of its libraries is missing."""
    for name in ANALYSIS_LIBRARIES:
        if find_spec(name) is None:
            raise WsimError(f"this needs the analysis extra ({name} is missing): pip install 'wsim[analysis]'")


def balance(dataset, *, out=None, baseline=None, overwrite: bool = False, data=None) -> Report:
    """The balance report of a dataset folder (`wsim balance`): returns the report, whose
    `.wonders` (win rates with Wilson 95% CIs and q-values), `.cards` (card effects) and, with a
    `baseline` dataset of the same games, `.paired` are DataFrames. With `out`, its files
    (index.html, wonders.csv, cards.csv, paired.csv) are written there as the command writes
    them; without, nothing is written."""
    from wsim import tables as tables_mod

    analysis_extra()
    from wsim.analysis.balance.report import build, owns
    from wsim.dataset.folder import output_files

    source = folder_arg(dataset, "dataset", "a dataset folder")
    base = folder_arg(baseline, "baseline", "a dataset folder") if baseline is not None else None
    t = tables_mod.load(data)
    if out is None:
        with settings_error():
            return build(source, t, base)
    folder = folder_arg(out)
    # the report folder is locked while the datasets are read: it cannot be one of them
    dataset_name = "dataset" if option("out") == "out" else "DIR"  # the command's argument
    for what, read in ((dataset_name, dataset), (option("baseline"), baseline)):
        if read is not None and os.path.realpath(read) == os.path.realpath(out):
            raise WsimError(f"{option('out')}: {out} is the dataset folder {what} names; give the report a folder "
                            "of its own")
    with settings_error(), output_files(folder, owns, overwrite, "report") as commit:
        report = build(source, t, base)
        commit(report.files)
    return report


def ablate(edits, *, out, games=100_000, players=4, policies="random", policy_params=(), seed=0,
           wonders="random", sides="random", manneken_pis=False, data=None, threads=None, chunk_size=100_000,
           dask=None, overwrite: bool = False, progress: bool = False, on_run=None) -> Report:
    """The paired experiment (`wsim ablate`): the same games with the card data as it is and with
    `edits` (a list of --edit texts: "Baths.points=+1", ...), then the balance report of the two
    in `out` (the two datasets in out/data/). Returns the report (its `.paired` DataFrame: every
    metric's paired difference with its CI and q-value). on_run(name, result) is called after
    each of the two runs."""
    analysis_extra()
    from wsim.analysis.ablate import precheck, refuse_edits_out_of_play, run_ablate
    from wsim.analysis.edits import apply_edits

    folder = folder_arg(out)
    if isinstance(edits, str) or not all(isinstance(e, str) for e in edits) or not edits:
        raise WsimError(f"{option('edit')}: a list of edits such as ['Baths.points=+1'], got {brief(edits)}")
    t, settings = run_settings(games=games, players=players, policies=policies, policy_params=policy_params, seed=seed,
                               wonders=wonders, sides=sides, manneken_pis=manneken_pis, data=data,
                               chunk_size=chunk_size)
    with settings_error():
        edited = apply_edits(t, list(edits))
        refuse_edits_out_of_play(t, settings, list(edits))
    threads_checked(threads, dask)
    with settings_error():
        precheck(folder, overwrite)
    with settings_error(), KERNEL_LOCK:
        report, _ = run_ablate(t, edited, settings, folder, overwrite, progress, on_run, dask, threads)
    return report


@dataclass
class LadderResult:
    """A ladder's two tables: their CSV texts (as written) and, read with pandas, DataFrames."""

    ladder_text: str
    ratings_text: str

    @property
    def ladder(self) -> pd.DataFrame:
        """ladder.csv: per ordered pair, the one seat's win share with its Wilson 95% CI, mean
        points and margin."""
        return _csv_frame(self.ladder_text)

    @property
    def ratings(self) -> pd.DataFrame:
        """ratings.csv: one openskill rating per policy over all games."""
        return _csv_frame(self.ratings_text)


def _csv_frame(text: str) -> pd.DataFrame:
    if find_spec("pandas") is None:
        raise WsimError("a ladder's DataFrames need pandas: pip install 'wsim[analysis]'")
    import pandas as pd

    return pd.read_csv(io.StringIO(text))


def ladder(policies, *, out, players: int = 4, games: int = 10_000, seed: int = 0, policy_params=(), data=None,
           threads=None, dask=None, overwrite: bool = False, on_progress=None) -> LadderResult:
    """Every ordered pair of `policies` (a list, or "A,B,..."), one seat against the others on the
    same deals (`wsim ladder`): writes out/ladder.csv and out/ratings.csv and returns both tables
    (`.ladder`: win share with its Wilson 95% CI, mean points and margin, per pair; `.ratings`:
    openskill ratings) as DataFrames, with their texts. on_progress(games) follows the play."""
    from wsim import tables as tables_mod
    from wsim.agents.ladder import parse_entries, run_ladder
    from wsim.api.runs import param_specs
    from wsim.run.settings import MAX_SEED

    folder = folder_arg(out)
    games = whole_number(games, "games", 1, 10**9)
    seed = whole_number(seed, "seed", 0, MAX_SEED)
    names = policies.split(",") if isinstance(policies, str) else policies
    if not isinstance(names, (list, tuple)) or not all(isinstance(p, str) for p in names):
        raise WsimError(f"{option('policies')}: a list of policy names, got {brief(policies)}")
    t = tables_mod.load(data)
    with settings_error():
        entries = parse_entries(list(names), param_specs(policy_params))
    threads_checked(threads, dask)
    with settings_error(), KERNEL_LOCK:
        return LadderResult(*run_ladder(t, entries, players, games, seed, folder, overwrite, on_progress, dask,
                                        threads))


def survey(*, out, populations=(), players: int = 4, games: int = 20_000, seed: int = 0, policy_params=(),
           wonders: str = "random", sides: str = "random", manneken_pis: bool = False, chunk_size: int = 100_000,
           data=None, threads=None, dask=None, reference=None, overwrite: bool = False, resume: bool = False,
           progress: bool = False, on_estimate=None, on_run=None) -> Survey:
    """The same deals played by several populations (`wsim survey`): populations as
    "NAME=POLICIES[@GAMES]" texts (default: the built-in set); writes the survey folder and
    returns the survey, whose `.survey`, `.verdicts`, `.card_verdicts`, `.pairs` (and with a
    `reference` CSV of your own games, `.reference`) are DataFrames. on_estimate([(population,
    seconds), ...]) receives the estimated play before it starts (not with dask); on_run(population,
    result) follows each population's run."""
    analysis_extra()
    from wsim import tables as tables_mod
    from wsim.analysis.playtest import read_reference
    from wsim.analysis.populations import build_populations, builtin_specs, parse_population
    from wsim.analysis.survey import estimate_seconds, games_done, precheck, run_survey
    from wsim.api.runs import param_specs
    from wsim.run.settings import check_players

    folder = folder_arg(out)
    mode = write_mode(overwrite, resume)
    if isinstance(populations, str) or not all(isinstance(p, str) for p in populations):
        raise WsimError(f"{option('population')}: a list of 'NAME=POLICIES[@GAMES]' texts, got {brief(populations)}")
    t = tables_mod.load(data)
    with settings_error():
        check_players(players)
        specs = [(*parse_population(p), ()) for p in populations] or builtin_specs(players, games)
        pops = build_populations(t, specs, param_specs(policy_params), players=players, games=games, seed=seed,
                                 wonders=wonders, sides=sides, manneken_pis=manneken_pis, chunk_size=chunk_size)
        people = read_reference(reference, t, players) if reference is not None else None
    threads_checked(threads, dask)
    with settings_error():
        precheck(folder, mode)
    if dask is None and on_estimate is not None:
        with KERNEL_LOCK:
            on_estimate(estimate_seconds(t, pops, games_done(folder, pops) if resume else None))
    with settings_error(), KERNEL_LOCK:
        return run_survey(t, pops, folder, mode, people, progress, on_run, dask, threads)


def rebalance(*, out, players=4, population: str = "heuristic", policy_params=(), levers: str = "stages",
              fields: str = "points", tolerance: float | None = None, max_edits: int | None = None,
              max_change: int | None = None, max_steps: int | None = None, games: int = 20_000, seed: int = 0,
              manneken_pis: bool = False, data=None, threads=None, dask=None, overwrite: bool = False,
              on_estimate=None, on_event=None):
    """The smallest edit of the printed numbers after which every wonder side's win rate is within
    `tolerance` of the fair share at every player count of `players` (`wsim rebalance`,
    docs/rebalance.md): writes the report to `out` and returns the result (`.edits`, the --edit
    texts; `.held_out`, result.csv's DataFrame; `.solved`; `.max_deviation`; `.files`).
    players: a count, a list or "3,4,5"; population: [NAME=]POLICIES; levers:
    stages|cards|both[:WONDER|CARD,...]; fields: points|coins|both. on_estimate(seconds, games)
    receives the estimated play before the search (not with dask); on_event(text) follows it."""
    from wsim import tables as tables_mod
    from wsim.analysis import rebalance as rb
    from wsim.api.runs import param_specs

    folder = folder_arg(out)
    counts = _player_counts(players)
    t = tables_mod.load(data)
    specs = param_specs(policy_params)
    tolerance = rb.DEFAULT_TOLERANCE if tolerance is None else tolerance
    with settings_error():
        plan = rb.plan(t, counts, population, specs, games=games, seed=seed, tolerance=tolerance,
                       max_edits=rb.DEFAULT_MAX_EDITS if max_edits is None else max_edits,
                       max_change=rb.DEFAULT_MAX_CHANGE if max_change is None else max_change,
                       max_steps=rb.DEFAULT_MAX_STEPS if max_steps is None else max_steps,
                       manneken_pis=manneken_pis)
        chosen = rb.parse_levers(levers, fields, t, manneken_pis)
    threads_checked(threads, dask)
    if dask is None and any("rollout" in s.policies for s in plan.settings.values()):
        raise WsimError(f"{option('population')}: a rollout population plays tens of games a second here, and a "
                        f"search plays up to {rb.search_games(chosen, plan):,} games: give {option('dask')} (a "
                        "cluster of many cores)")
    from wsim.dataset.folder import precheck_output

    with settings_error():
        precheck_output(folder, overwrite, "report")
    if dask is None and on_estimate is not None:
        with KERNEL_LOCK:
            on_estimate(rb.estimate_seconds(t, chosen, plan), rb.search_games(chosen, plan))
    with settings_error(), KERNEL_LOCK:
        return rb.run_rebalance(t, chosen, plan, specs, folder, overwrite, dask, threads, on_event)


def _player_counts(players) -> list:
    """--players as a list of counts: an int, a list of ints, or "3,4,5"."""
    if isinstance(players, str):
        parts = [p.strip() for p in players.split(",")]
        if not all(p.isdigit() for p in parts):
            raise WsimError(f"{option('players')}: player counts such as 4 or 3,4,5, got {brief(players)}")
        return [int(p) for p in parts]
    if type(players) is int:
        return [players]
    if isinstance(players, (list, tuple)) and players and all(type(p) is int for p in players):
        return list(players)
    raise WsimError(f"{option('players')}: player counts such as 4 or [3, 4, 5], got {brief(players)}")
