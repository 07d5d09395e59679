"""`wsim people` from Python: populations of simulated players held against 8,357 human games of
Board Game Arena (docs/people.md).

Runs on the base install (numpy and pyarrow): the tables are wsim.people's rows, not DataFrames.
Its games run under the per-process kernel lock (wsim.run.lock).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from wsim.api.runs import folder_arg, param_specs, settings_error, threads_checked, write_mode
from wsim.errors import (WsimError, brief, callback, count_list, is_whole, one_of, option, optional_path, path_value,
                         progress_value, text_list, whole_number)
from wsim.run.lock import KERNEL_LOCK

COUNTS = (3, 4, 5, 6, 7)  # the player counts of people's games
DATA = "data"  # OUT/data/NAME-P: each population's dataset at P players
CHUNK = 10_000  # games a part: an interrupted run keeps whole parts of this size for resume
# a resumed population's dataset must have been played with every setting this run gives it
RESUME_CHECKS = frozenset({"data", "games", "players", "seed", "policies", "policy_param", "wonders", "sides",
                           "manneken_pis", "chunk_size"})


@dataclass
class PeopleResult:
    """The comparisons of a `wsim people` run (wsim.people.compare.Comparison, one per population
    and player count), the terminal report, and the files written to `out` ({name: bytes})."""

    comparisons: list
    text: str
    out: Path
    files: dict = field(default_factory=dict)

    def _rows(self, name: str) -> list:
        return [r for c in self.comparisons for r in getattr(c, name)]

    @property
    def boards(self) -> list:
        """boards.csv's rows (dicts): each board's first-place share against people's."""
        return self._rows("boards")

    @property
    def lasts(self) -> list:
        """lasts.csv's rows: each board's last-place share against people's."""
        return self._rows("lasts")

    @property
    def play(self) -> list:
        """play.csv's rows: score level, points by category, behaviour, winners' profile."""
        return self._rows("play")

    @property
    def breakdown(self) -> list:
        """breakdown.csv's rows: per board, what its seats build and score."""
        return self._rows("breakdown")

    @property
    def distances(self) -> list:
        """distance.csv's rows: each population's distance to people at each count."""
        return [c.distance_row() for c in self.comparisons]


def people(out, datasets=(), populations=None, players=COUNTS, games: int = 20_000, seed: int = 0, sides: str = "B",
           policy_params=(), threads=None, overwrite: bool = False, resume: bool = False, progress=False,
           on_run=None, on_estimate=None, data=None) -> PeopleResult:
    """Hold populations against people's games (`wsim people`): each dataset folder of `datasets`
    (a path, its population named by the folder's name, or "NAME=PATH") and each population of
    `populations` ("NAME=POLICIES[@GAMES]" texts, played at every count of `players` with sides
    `sides`, "B" or "random", into out/data/NAME-P/), compared with people at every count both
    have; without either, the built-in populations of `wsim survey`. Writes out/index.html and
    the CSVs (boards, lasts, play, breakdown, distance) and returns the result. resume completes
    an interrupted run given the same options; on_run(name, players, result) follows each
    population's run; on_estimate([(NAME-P, seconds), ...]) receives the estimated play of each
    population at each count before it starts (a short timed pilot; not on --resume); progress:
    True (drawn on stderr), False or a function receiving each wsim.run.progress.Update."""
    from wsim import tables as tables_mod
    from wsim.run.settings import LONG_RUN_GAMES, MAX_SEED

    folder = folder_arg(out)
    mode = write_mode(overwrite, resume)
    sources = _dataset_args(datasets)
    if populations is not None:
        populations = text_list(populations, "populations", "'NAME=POLICIES[@GAMES]' texts")
    counts = _counts(players)
    games = whole_number(games, "games", *LONG_RUN_GAMES)
    seed = whole_number(seed, "seed", 0, MAX_SEED)
    one_of(sides, "sides", ("B", "random"))
    data = optional_path(data, "data", "a card data file")
    progress = progress_value(progress)
    callback(on_run, "on_run")
    callback(on_estimate, "on_estimate")
    t = tables_mod.load(data)
    _refuse_edition(t.edition, f"the card data {t.source}")
    with settings_error():
        plays = _populations(t, populations, not sources, counts, games, seed, sides, param_specs(policy_params))
        names = [name for name, _ in sources] + list(dict.fromkeys(pop.name for pops in plays.values() for pop in pops))
        twice = next((n for n in names if names.count(n) > 1), None)
        if twice is not None:
            raise WsimError(f"{twice!r} names two sources: give one of them another name (NAME=DATASET)")
        _refuse_inside(sources, folder)
        _precheck(folder, mode)
        read = {name: _read_dataset(name, path, t, counts) for name, path in sources}
    threads_checked(threads)
    with settings_error(), KERNEL_LOCK:
        if on_estimate is not None and mode != "resume" and any(plays.values()):
            from wsim.analysis.populations import estimate_seconds

            on_estimate([(f"{pop.name}-{p}", seconds) for p, pops in plays.items()
                         for pop, seconds in estimate_seconds(t, pops)])
        return _run(t, read, sources, plays, folder, mode, threads, progress, on_run)


def _refuse_edition(edition: int, what: str):
    """People's games are of the first edition: populations of another (`what`: its card data or
    dataset) are not compared with them, and nothing is played or read."""
    from wsim import codes
    from wsim.people.columns import no_people_line, same_edition

    if not same_edition(edition):
        raise WsimError(f"{what} is of the {codes.EDITION_NAMES.get(edition, brief(edition))}: "
                        f"{no_people_line(edition)}")


def _dataset_args(datasets) -> list:
    """[(name, path)] of the dataset arguments: PATH (named by its folder) or NAME=PATH."""
    from wsim.analysis.populations import NAME

    if not isinstance(datasets, (list, tuple)):
        raise WsimError(f"{option('datasets')}: must be a list of dataset folders (PATH or NAME=PATH), got "
                        f"{brief(datasets)}")
    out = []
    for item in datasets:
        path = path_value(item, "datasets", "a dataset folder (PATH or NAME=PATH)")
        name, eq, rest = str(item).partition("=")
        if eq and rest and NAME.match(name) and not os.path.lexists(path):
            name, path = name, Path(rest)
        else:
            name = Path(os.path.abspath(path)).name
        out.append((name, path))
    return out


def _counts(players) -> list:
    """`players` as a list of counts of people's games: a count, a list of them, or "3,4,5"."""
    players = count_list(players)
    if not players:
        raise WsimError(f"{option('players')}: give at least one player count")
    for p in players:
        if not is_whole(p, COUNTS[0], COUNTS[-1]):
            raise WsimError(f"{option('players')}: people's games are at 3 to 7 players, got {brief(p)}")
    return sorted({int(p) for p in players})


def _populations(t, populations, builtin: bool, counts: list, games: int, seed: int, sides: str,
                 params: tuple) -> dict:
    """{players: [Population]}: the populations played at each count (the built-in set when
    `populations` is None and `builtin`)."""
    from wsim.analysis.populations import build_populations, builtin_specs, parse_population

    if populations is None and not builtin:
        populations = []
    plays = {}
    for p in counts:
        specs = (builtin_specs(p, games) if populations is None
                 else [(*parse_population(text), ()) for text in populations])
        plays[p] = build_populations(t, specs, params, players=p, games=games, seed=seed, wonders="random",
                                     sides=sides, manneken_pis=False, chunk_size=min(CHUNK, games))
    return plays


def _refuse_inside(sources: list, folder: Path):
    """A dataset read for the report cannot be in the report's folder, which --overwrite replaces."""
    target = os.path.realpath(folder)
    for _, path in sources:
        here = os.path.realpath(path)
        if here == target or here.startswith(target + os.sep):
            raise WsimError(f"{option('out')}: {folder} holds the dataset {path}; give the report a folder of its own")


def _read_dataset(name: str, path: Path, t, counts: list):
    """The Aggregate of one dataset argument, refused when it is no dataset or shares no count of
    `counts` with people."""
    from wsim.people.seats import dataset_aggregate

    if not Path(path).is_dir():
        raise WsimError(f"{path}: no such dataset folder")
    from wsim.dataset import parts

    files = parts.part_files(Path(path))
    if files:  # a dataset of another edition, refused before it is read (its metadata's edition)
        _refuse_edition(parts.read_header(files[0]).meta.get("edition", 1), f"the dataset {path}")
    agg = dataset_aggregate(path, t, name)
    if not set(agg.counts()) & set(counts):
        have = ", ".join(map(str, agg.counts())) or "none"
        raise WsimError(f"{path}: its games are at {have} players; people's are compared at "
                        f"{', '.join(map(str, counts))} ({option('players')})")
    return agg


def _owns(name: str) -> bool:
    from wsim.people.report import FILES

    return name in FILES or name == DATA


def _precheck(folder: Path, mode: str):
    """Refusals that need no lock (a refused run writes nothing); _run checks again under it."""
    from wsim.dataset.folder import LOCK, STAGING, check_target

    if check_target(folder) == "dir":
        _refuse_present(folder, sorted(n for n in os.listdir(folder) if n not in (LOCK, STAGING)), mode)


def _refuse_present(folder: Path, names: list, mode: str):
    from wsim.dataset.folder import DatasetError

    if mode == "new" and names:
        how = "--resume to complete it, or " if DATA in names and "index.html" not in names else ""
        raise DatasetError(f"{option('out')}: {folder} is not empty (use {how}{option('overwrite')} to replace the "
                           "report in it)")
    if mode == "resume" and names and DATA not in names:
        raise DatasetError(f"{option('resume')}: {folder} holds no people report to resume (no {DATA}/ folder), and "
                           "is not empty")


def _run(t, read: dict, sources: list, plays: dict, folder: Path, mode: str, threads, progress, on_run):
    """Play the populations into folder/data, compare every source with people, write the files."""
    from wsim.dataset import parts
    from wsim.dataset.folder import DatasetError, OutputFolder
    from wsim.dataset.write import Request, write_dataset
    from wsim.people import reference
    from wsim.people.compare import compare
    from wsim.people.page import page
    from wsim.people.report import csv_files, text
    from wsim.people.seats import dataset_aggregate

    people_agg = reference.people()
    described = {name: {"kind": "dataset", "folder": str(path), "players": read[name].counts(),
                        **read[name].source} for name, path in sources}
    with OutputFolder(folder, owns=_owns) as f:
        present = f.entries()
        _refuse_present(folder, present, mode)
        old = f.replaced(True, "report", folders=(DATA,)) if mode == "overwrite" else []
        if mode == "overwrite":  # everything staged: an interrupted --overwrite changes nothing
            f.begin_replacement()
        try:
            aggregates = dict(read)
            for p, pops in plays.items():
                for pop in pops:
                    here = f.target / DATA / f"{pop.name}-{p}"
                    again = mode == "resume" and here.is_dir() and bool(parts.part_files(here))
                    request = Request(t, pop.settings, "resume" if again else "new",
                                      explicit=RESUME_CHECKS if again else frozenset(), threads=threads)
                    try:
                        result = write_dataset(request, here, progress, label=f"{pop.name}-{p}")
                    except DatasetError as e:
                        raise DatasetError(str(e).replace("(leave it out to take the dataset's)",
                                                          "(give the options of the interrupted run)")) from None
                    if on_run is not None:
                        on_run(pop.name, p, result)
                    agg = dataset_aggregate(here, t, pop.name)
                    aggregates[pop.name] = aggregates[pop.name] + agg if pop.name in aggregates else agg
                    entry = described.setdefault(pop.name, {"kind": "population", "policies": pop.spec,
                                                            "seed": pop.settings.seed, "sides": pop.settings.sides,
                                                            "datasets": []})
                    entry["datasets"].append(f"{DATA}/{pop.name}-{p} ({pop.games:,} games at {p} players)")
            comparisons = [compare(agg, people_agg, p, name) for name, agg in aggregates.items()
                           for p in agg.counts() if p in plays and p in people_agg.counts()]
            files = {"index.html": page(comparisons, people_agg.source, described, reference.describe()).encode(),
                     **csv_files(comparisons)}
            replacing = [n for n in present if n in files] if mode != "overwrite" else old
            if mode != "overwrite":
                f.begin_replacement()  # the files appear together, replacing a resumed run's
            for name, blob in files.items():
                f.write(name, blob)
            f.sync()
            f.commit(replacing, ([DATA] if mode == "overwrite" else []) + list(files))
        except BaseException:
            f.abort()
            raise
    return PeopleResult(comparisons, text(comparisons), folder, files)
