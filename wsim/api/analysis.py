"""The analyses from Python: `wsim.balance`, `wsim.ablate`, `wsim.ladder`, `wsim.survey`,
`wsim.rebalance`.

Each takes its command's options under their Python names, writes the same report folder (the
output rules of docs/interfaces.md §0: a non-empty folder only with overwrite, the old one replaced
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
from wsim.errors import (WsimError, callback, count_list, flag, one_of, option, optional_path, optional_whole,
                         progress_value, real_number, text, text_list, whole_number)
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


DATA_FILE = "a card data file"  # what `data` names, in its refusal


def balance(dataset, *, out=None, baseline=None, overwrite: bool = False, data=None,
            practical: float | None = None) -> Report:
    """The balance report of a dataset folder (`wsim balance`): returns the report, whose
    `.wonders` (win rates with Wilson 95% CIs, q-values, sizes in points of win share and VP,
    verdicts), `.cards` (card effects) and, with a `baseline` dataset of the same games, `.paired`
    are DataFrames. With `out`, its files (index.html, wonders.csv, cards.csv, paired.csv) are
    written there as the command writes them; without, nothing is written. practical: the
    practical threshold, a fraction of the fair share above 0 and below 1 (None: 0.08), below
    which a significant side or card is fair enough (docs/analysis.md)."""
    from wsim import tables as tables_mod

    source = folder_arg(dataset, "dataset", "a dataset folder")
    base = optional_path(baseline, "baseline", "a dataset folder")
    folder = optional_path(out, "out", "a folder")
    overwrite = flag(overwrite, "overwrite")
    data = optional_path(data, "data", DATA_FILE)
    practical = None if practical is None else real_number(practical, "practical", 0, 1)
    analysis_extra()
    from wsim.analysis.balance.report import build, owns
    from wsim.analysis.balance.size import PRACTICAL
    from wsim.dataset.folder import output_files

    t = tables_mod.load(data)
    practical = PRACTICAL if practical is None else practical
    if folder is None:
        with settings_error():
            return build(source, t, base, practical=practical)
    # the report folder is locked while the datasets are read: it cannot be one of them
    dataset_name = "dataset" if option("out") == "out" else "DIR"  # the command's argument
    for what, read in ((dataset_name, source), (option("baseline"), base)):
        if read is not None and os.path.realpath(read) == os.path.realpath(folder):
            raise WsimError(f"{option('out')}: {out} is the dataset folder {what} names; give the report a folder "
                            "of its own")
    with settings_error(), output_files(folder, owns, overwrite, "report") as commit:
        report = build(source, t, base, practical=practical)
        commit(report.files)
    return report


def ablate(edits=(), *, out, against=None, games=100_000, players=4, policies="random", policy_params=(), seed=0,
           wonders="random", sides="random", manneken_pis=False, data=None, threads=None, chunk_size=100_000,
           dask=None, overwrite: bool = False, progress=False, on_run=None, on_event=None) -> Report:
    """The paired experiment (`wsim ablate`): the same games with the card data as it is and with
    `edits` (a list of --edit texts: "Baths.points=+1", "Baths.cost+=stone", ...), then the
    balance report of the two in `out` (the two datasets in out/data/). against: a data file
    played as the baseline instead, `data` (with the edits, if any) being the edited run: two
    whole data files compared on the same deals. Returns the report (its `.paired` DataFrame:
    every metric's paired difference with its CI and q-value). on_run(name, result) is called
    after each of the two runs; on_event(text) receives, before play, the cards the edited run
    deals in another's place ("replaced: Arsenal -> Castrum at 4-7 players"); progress: True
    (drawn on stderr), False or a function receiving each wsim.run.progress.Update (docs/api.md)."""
    from wsim.run.settings import LONG_RUN_GAMES

    folder = folder_arg(out)
    against = optional_path(against, "against", DATA_FILE)
    edits = text_list(edits, "edits", "edits such as 'Baths.points=+1'", empty=against is not None)
    games = whole_number(games, "games", *LONG_RUN_GAMES)
    overwrite = flag(overwrite, "overwrite")
    progress = progress_value(progress)
    callback(on_run, "on_run")
    callback(on_event, "on_event")
    data = optional_path(data, "data", DATA_FILE)
    analysis_extra()
    from wsim.analysis.ablate import precheck, refuse_edits_out_of_play, run_ablate
    from wsim.analysis.edits import apply_edits, deal_differences, replacement_words

    t, settings = run_settings(games=games, players=players, policies=policies, policy_params=policy_params, seed=seed,
                               wonders=wonders, sides=sides, manneken_pis=manneken_pis, data=data,
                               chunk_size=chunk_size)
    with settings_error():
        edited = apply_edits(t, edits) if edits else t
        if edits:
            refuse_edits_out_of_play(t, settings, edits)
        base = t
        if against is not None:
            from wsim import tables as tables_mod
            from wsim.analysis.edits import check_against

            base = tables_mod.load(against)
            check_against(base, edited, str(against))
        from wsim.run.runner import check_learned

        for tables in (base, edited):  # a model that cannot play a run is refused before either is played
            check_learned(tables, settings)
    threads_checked(threads, dask)
    with settings_error():
        precheck(folder, overwrite)
    replaced = deal_differences(base, edited)
    if replaced and on_event is not None:
        on_event("replaced: " + "; ".join(map(replacement_words, replaced)))
    with settings_error(), KERNEL_LOCK:
        report, _ = run_ablate(base, edited, settings, folder, overwrite, progress, on_run, dask, threads)
    return report


@dataclass
class LadderResult:
    """A ladder's tables: their CSV texts (as written) and, read with pandas, DataFrames."""

    ladder_text: str
    ratings_text: str
    play_text: str

    @property
    def ladder(self) -> pd.DataFrame:
        """ladder.csv: per ordered pair, the one seat's win share with its Wilson 95% CI, mean
        points and margin."""
        return _csv_frame(self.ladder_text)

    @property
    def ratings(self) -> pd.DataFrame:
        """ratings.csv: one openskill rating per policy over all games."""
        return _csv_frame(self.ratings_text)

    @property
    def play(self) -> pd.DataFrame:
        """play.csv: how each policy played, over its seats (docs/agents.md)."""
        return _csv_frame(self.play_text)


def _csv_frame(text: str) -> pd.DataFrame:
    if find_spec("pandas") is None:
        raise WsimError("a ladder's DataFrames need pandas: pip install 'wsim[analysis]'")
    import pandas as pd

    return pd.read_csv(io.StringIO(text))


def ladder(policies, *, out, players: int = 4, games: int = 10_000, seed: int = 0, policy_params=(), data=None,
           threads=None, dask=None, overwrite: bool = False, on_progress=None, progress=False) -> LadderResult:
    """Every ordered pair of `policies` (a list, or "A,B,..."), one seat against the others on the
    same deals (`wsim ladder`): writes out/ladder.csv, out/ratings.csv and out/play.csv and returns
    the tables (`.ladder`: win share with its Wilson 95% CI, mean points and margin, per pair;
    `.ratings`: openskill ratings; `.play`: how each policy plays) as DataFrames, with their texts. on_progress(games) follows the play;
    progress: True (drawn on stderr), False or a function receiving each wsim.run.progress.Update."""
    from wsim import tables as tables_mod
    from wsim.agents.ladder import parse_entries, run_ladder
    from wsim.api.runs import param_specs
    from wsim.run.settings import LONG_RUN_GAMES, MAX_SEED, check_players

    folder = folder_arg(out)
    names = _names(policies, "policies", "policy names")
    with settings_error():
        players = check_players(players)
    games = whole_number(games, "games", *LONG_RUN_GAMES)
    seed = whole_number(seed, "seed", 0, MAX_SEED)
    overwrite = flag(overwrite, "overwrite")
    callback(on_progress, "on_progress")
    progress = progress_value(progress)
    t = tables_mod.load(optional_path(data, "data", DATA_FILE))
    with settings_error():
        entries = parse_entries(names, param_specs(policy_params))
    threads_checked(threads, dask)
    with settings_error(), KERNEL_LOCK:
        return LadderResult(*run_ladder(t, entries, players, games, seed, folder, overwrite, on_progress, dask,
                                        threads, progress))


def _names(value, name: str, what: str) -> list:
    """A list of texts, or one text of comma-separated ones ("random,greedy")."""
    if isinstance(value, str):
        return value.split(",")
    return text_list(value, name, what)


def survey(*, out, populations=None, players: int = 4, games: int = 20_000, seed: int = 0, policy_params=(),
           wonders: str = "random", sides: str = "random", manneken_pis: bool = False, chunk_size: int = 100_000,
           data=None, threads=None, dask=None, reference=None, overwrite: bool = False, resume: bool = False,
           progress=False, on_estimate=None, on_run=None, anchor=None) -> Survey:
    """The same deals played by several populations (`wsim survey`): populations as a list of
    "NAME=POLICIES[@GAMES]" texts (None: the built-in set; an empty list is refused); writes the
    survey folder and returns the survey, whose `.survey`, `.verdicts`, `.card_verdicts`,
    `.pairs`, `.card_pairs`, `.play` (how each population plays), `.anchored`, `.card_anchored`
    (the verdicts anchored on the population `anchor`, by default the last; docs/survey.md) (and
    with a `reference` CSV of your own games, `.reference`) are DataFrames.
    on_estimate([(population, seconds), ...]) receives the estimated play before it starts (not
    with dask); on_run(population, result) follows each population's run; progress: True (drawn
    on stderr), False or a function receiving each wsim.run.progress.Update."""
    from wsim import tables as tables_mod
    from wsim.run.settings import LONG_RUN_GAMES, MAX_CHUNK, MAX_SEED, check_players

    folder = folder_arg(out)
    mode = write_mode(overwrite, resume)
    if populations is not None:
        populations = text_list(populations, "populations", "'NAME=POLICIES[@GAMES]' texts")
    with settings_error():
        players = check_players(players)
    games = whole_number(games, "games", *LONG_RUN_GAMES)
    seed = whole_number(seed, "seed", 0, MAX_SEED)
    chunk_size = whole_number(chunk_size, "chunk_size", 1, MAX_CHUNK)
    text(wonders, "wonders", "'random' or 'fixed:ID/SIDE,...'")
    one_of(sides, "sides", ("random", "A", "B"))
    flag(manneken_pis, "manneken_pis")
    if anchor is not None:
        text(anchor, "anchor", "a population's name")
    from wsim.people.columns import REFERENCE_NAME

    use_people = reference == REFERENCE_NAME  # the built-in human games (a file of that name: ./people)
    reference = None if use_people else optional_path(reference, "reference", "a CSV file of your own games, "
                                                      f"or {REFERENCE_NAME!r}")
    data = optional_path(data, "data", DATA_FILE)
    progress = progress_value(progress)
    callback(on_estimate, "on_estimate")
    callback(on_run, "on_run")
    analysis_extra()
    from wsim.analysis.playtest import people_reference, read_reference
    from wsim.analysis.populations import build_populations, builtin_specs, estimate_seconds, parse_population, rungs
    from wsim.analysis.survey import games_done, precheck, run_survey
    from wsim.api.runs import param_specs

    t = tables_mod.load(data)
    with settings_error():
        specs = (builtin_specs(players, games) if populations is None
                 else [(*parse_population(p), ()) for p in populations])
        pops = build_populations(t, specs, param_specs(policy_params), players=players, games=games, seed=seed,
                                 wonders=wonders, sides=sides, manneken_pis=manneken_pis, chunk_size=chunk_size)
        rungs(pops, anchor)  # a name of none of them is refused before anything is played
        in_play: dict = {}  # the boards and sides some seat of some population may get
        for pop in pops:
            for board, sides_of in pop.settings.boards_in_play(t).items():
                in_play.setdefault(board, set()).update(sides_of)
        people = (people_reference(players, in_play, t) if use_people
                  else read_reference(reference, t, players, in_play) if reference is not None else None)
    threads_checked(threads, dask)
    with settings_error():
        precheck(folder, mode)
    if dask is None and on_estimate is not None:
        with KERNEL_LOCK:
            on_estimate(estimate_seconds(t, pops, games_done(folder, pops) if resume else None))
    with settings_error(), KERNEL_LOCK:
        return run_survey(t, pops, folder, mode, people, progress, on_run, dask, threads, anchor)


def rebalance(*, out, players=4, population: str = "heuristic", policy_params=(), levers: str = "stages",
              fields: str = "points", cost_kinds: str = "kept", tolerance: float | None = None,
              max_edits: int | None = None, max_change: int | None = None, max_resources: int | None = None,
              max_steps: int | None = None, games: int = 20_000, max_games: int = 10**7, seed: int = 0,
              manneken_pis: bool = False, data=None, threads=None, dask=None, overwrite: bool = False,
              progress=False, on_estimate=None, on_event=None):
    """The smallest edit of the printed numbers after which every wonder side's win rate is within
    `tolerance` of the fair share at every player count of `players` (`wsim rebalance`,
    docs/rebalance.md): writes the report to `out` and returns the result (`.edits`, the --edit
    texts; `.held_out`, result.csv's DataFrame; `.solved`; `.max_deviation`; `.files`).
    players: a count, a list or "3,4,5"; population: [NAME=]POLICIES; levers:
    stages|cards|both[:WONDER|CARD,...]; fields: a comma list of points, coins and costs (both:
    points,coins); cost_kinds: kept (only the kinds a cost holds change) or any; max_resources:
    the resource units added or taken over every cost at most (None: no limit of its own);
    max_games: the held-out run's games at most (a tolerance that needs more is refused before anything is played).
    on_estimate(seconds, games) receives the estimated play before the search (not with dask);
    on_event(text) follows it; progress: True (drawn on stderr), False or a function receiving
    each wsim.run.progress.Update (its step: the search's)."""
    from wsim import tables as tables_mod
    from wsim.analysis.rebalance import plan as rb_plan
    from wsim.analysis.rebalance.levers import parse_levers
    from wsim.analysis.rebalance.report import run_rebalance
    from wsim.api.runs import param_specs

    folder = folder_arg(out)
    counts = _player_counts(players)
    tolerance = rb_plan.DEFAULT_TOLERANCE if tolerance is None else real_number(tolerance, "tolerance",
                                                                                rb_plan.MIN_TOLERANCE, 0.5)
    limits = {name: rb_default if value is None else value for name, value, rb_default in (
        ("max_edits", optional_whole(max_edits, "max_edits", 1, rb_plan.MAX_EDITS), rb_plan.DEFAULT_MAX_EDITS),
        ("max_change", optional_whole(max_change, "max_change", 1, rb_plan.MAX_CHANGE), rb_plan.DEFAULT_MAX_CHANGE),
        ("max_steps", optional_whole(max_steps, "max_steps", 1, rb_plan.MAX_STEPS), rb_plan.DEFAULT_MAX_STEPS))}
    overwrite = flag(overwrite, "overwrite")
    progress = progress_value(progress)
    callback(on_estimate, "on_estimate")
    callback(on_event, "on_event")
    t = tables_mod.load(optional_path(data, "data", DATA_FILE))
    specs = param_specs(policy_params)
    with settings_error():
        plan = rb_plan.plan(t, counts, population, specs, games=games, seed=seed, tolerance=tolerance,
                       manneken_pis=manneken_pis, max_games=max_games, max_resources=max_resources, **limits)
        chosen = parse_levers(levers, fields, t, manneken_pis, cost_kinds, plan.max_resources)
    threads_checked(threads, dask)
    if dask is None and any("rollout" in s.policies for s in plan.settings.values()):
        raise WsimError(f"{option('population')}: a rollout population plays tens of games a second here, and a "
                        f"search plays up to {rb_plan.search_games(chosen, plan):,} games: give {option('dask')} (a "
                        "cluster of many cores)")
    from wsim.dataset.folder import precheck_output

    with settings_error():
        precheck_output(folder, overwrite, "report")
    if dask is None and on_estimate is not None:
        with KERNEL_LOCK:
            on_estimate(rb_plan.estimate_seconds(t, chosen, plan), rb_plan.search_games(chosen, plan))
    with settings_error(), KERNEL_LOCK:
        return run_rebalance(t, chosen, plan, specs, folder, overwrite, dask, threads, on_event, progress)


def _player_counts(players) -> list:
    """--players as a list of counts: a whole number, a list of them, or "3,4,5"."""
    from wsim.run.settings import check_players

    counts = count_list(players) or [players]  # an empty list is refused by check_players, by name
    with settings_error():
        return [check_players(p) for p in counts]
