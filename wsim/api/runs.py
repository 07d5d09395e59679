"""wsim from Python: batch runs into a table or a dataset, and datasets opened for analysis.

    import wsim
    table = wsim.simulate(games=1000, players=4, policies="heuristic", seed=7)   # a pyarrow.Table
    ds = wsim.simulate(games=100_000, policies="heuristic", out="results/h4")  # a wsim.Dataset
    df = wsim.open_dataset("results/h4").to_pandas()

The settings are those of `wsim simulate` (docs/interfaces.md §2) under their Python names, checked by
the same code, so the same settings give the same values as the command line. Every user or
environment error is a `wsim.WsimError`; the kernels run under the per-process kernel lock
(wsim.run.lock). Nothing here installs a signal handler: a KeyboardInterrupt (a notebook's
interrupt) propagates, and a run into `out` leaves only whole parts, which `resume=True`
completes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING

from wsim.errors import (OPTION_STYLE, WsimError, brief, flag, option, optional_whole, path_value, progress_value,
                         text)

if TYPE_CHECKING:
    import duckdb
    import pandas
    import pyarrow as pa

    from wsim.run.settings import Settings
    from wsim.tables import Tables

# simulate(out=None) builds its table in memory: at most this many rows (games x cities), about
# 400 MiB; beyond, write a dataset (out=) or take the table a part at a time (iter_batches).
MAX_TABLE_ROWS = 4_000_000



class Default:
    """A setting's default in a signature, told apart from the same value given: with
    resume=True a setting left out is the dataset's, one given must equal it (so an explicit
    seed=0 on a seed-1 dataset is refused, not overridden). Shows as its value in help()."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __repr__(self) -> str:
        return repr(self.value)


def given(value):
    """A setting's value, whether given or left at its Default."""
    return value.value if isinstance(value, Default) else value


# The settings of `wsim simulate` whose default simulate() marks (Default) for resume
_GAMES, _PLAYERS, _POLICIES, _PARAMS = Default(100_000), Default(4), Default("random"), Default(())
_SEED, _WONDERS, _SIDES, _PROMO, _CHUNK = Default(0), Default("random"), Default("random"), Default(False), \
    Default(100_000)


def _python_names(message: str) -> str:
    """A settings message as the API's caller wrote it: `chunk_size:` for `--chunk-size:` (the
    command line, which calls the API too, keeps its option names: errors.OPTION_STYLE)."""
    if OPTION_STYLE.get() == "cli":
        return message
    message = re.sub(r"--([a-z][a-z-]*)", lambda m: m.group(1).replace("-", "_"), message)
    message = re.sub(r"^DIR:", "dataset:", message)  # the commands' DIR is the functions' `dataset`
    return message.replace("policy_param:", "policy_params:")


def _policy_list(policies, players: int) -> list:
    """policies as one name per seat: a string is every seat's, a sequence is seat by seat."""
    if isinstance(policies, str):
        return [policies] * players if "," not in policies else policies.split(",")
    if isinstance(policies, Sequence) and all(isinstance(p, str) for p in policies):
        return list(policies)
    raise WsimError(f"policies: a policy name or a list of names, one per seat, got {brief(policies)}")


def param_specs(policy_params) -> tuple:
    """policy_params as NAME.KEY=VALUE strings: a mapping {"greedy.coin": 40} or such strings."""
    if isinstance(policy_params, Mapping):
        return tuple(f"{k}={v}" for k, v in policy_params.items())
    if isinstance(policy_params, str):
        return (policy_params,)
    if isinstance(policy_params, Sequence) and all(isinstance(p, str) for p in policy_params):
        return tuple(policy_params)
    raise WsimError(f"policy_params: a mapping {{'NAME.KEY': VALUE}} or 'NAME.KEY=VALUE' strings, "
                    f"got {brief(policy_params)}")


def run_settings(*, games=100_000, players=4, policies="random", policy_params=(), seed=0, wonders="random",
                 sides="random", manneken_pis=False, data=None, chunk_size=100_000) -> tuple[Tables, Settings]:
    """(tables, Settings) of a run's settings, checked as `wsim simulate` checks its options."""
    from wsim import tables as tables_mod
    from wsim.run.settings import build_settings, check_players

    with settings_error():
        t = tables_mod.load(data)
        check_players(players)
        settings = build_settings(t, players=players, policies=_policy_list(policies, players), seed=seed,
                                  games=games, wonders=wonders, sides=sides, manneken_pis=manneken_pis,
                                  chunk_size=chunk_size, policy_params=param_specs(policy_params))
    return t, settings


@contextmanager
def settings_error():
    """Let a WsimError raised inside through with its message in the API's names."""
    try:
        yield
    except WsimError as e:
        raise type(e)(_python_names(str(e))) from None


def threads_checked(threads, dask=None):
    """Check `threads`: this process's kernel threads (set here), or with dask each task's (its
    worker checks them against its cores), and that dask can be used."""
    from wsim.run.runner import set_threads

    with settings_error():
        if dask is None:
            set_threads(threads)
            return
        optional_whole(threads, "threads", 1, 2**31 - 1)  # the worker checks them against its cores
        from wsim.run.cluster import parse_address

        parse_address(text(dask, "dask", "'tcp://HOST:PORT' or 'local:W'"))
        if find_spec("distributed") is None:
            raise WsimError("dask needs the dask extra: pip install 'wsim[dask]'")


def folder_arg(value, name: str = "out", what: str = "a folder") -> Path:
    """A folder argument as a Path (errors.path_value: a non-empty str or os.PathLike)."""
    return path_value(value, name, what)


def write_mode(overwrite, resume) -> str:
    """The mode of a writing run: "new", "overwrite" or "resume" (not both of the last two);
    each must be True or False: `overwrite="no"` read by truthiness would replace a dataset."""
    overwrite, resume = flag(overwrite, "overwrite"), flag(resume, "resume")
    if overwrite and resume:
        raise WsimError(f"{option('overwrite')} and {option('resume')}: give one or the other, not both")
    return "overwrite" if overwrite else "resume" if resume else "new"


def iter_batches(*, games=100_000, players=4, policies="random", policy_params=(), seed=0, wonders="random",
                 sides="random", manneken_pis=False, data=None, threads=None, chunk_size=100_000,
                 progress=False) -> Iterator[pa.Table]:
    """The run `simulate` would play, as one pyarrow.Table per part (chunk_size games each, the
    rows of part-NNNNN.parquet), played as the loop asks for them: memory stays one part's.
    progress: as simulate's."""
    t, settings = run_settings(games=games, players=players, policies=policies, policy_params=policy_params,
                               seed=seed, wonders=wonders, sides=sides, manneken_pis=manneken_pis, data=data,
                               chunk_size=chunk_size)
    progress = progress_value(progress)
    threads_checked(threads)  # refused now, not at the first part
    return _batches(t, settings, threads, progress)


def _batches(t: Tables, settings: Settings, threads, progress=False) -> Iterator[pa.Table]:
    """One table per part of the run, each played when asked for (under the kernel lock, the
    threads set again for it: another caller may have changed them in between); progress
    (wsim.run.progress) counts the games as the kernel calls return."""
    from wsim.dataset import parts
    from wsim.run import progress as progress_mod
    from wsim.run.lock import KERNEL_LOCK
    from wsim.run.runner import Pacer, Runner, play_paced

    meta = json.dumps(parts.run_meta(t, settings))
    runner, pacer = Runner(t, settings), Pacer()
    with progress_mod.start(progress, settings.games) as tracker:
        for index in range(settings.part_count):
            first, count = settings.part(index)
            with KERNEL_LOCK:
                threads_checked(threads)
                chunk = play_paced(runner, pacer, first, count, tracker.advance)
            yield parts.chunk_table(t, settings, chunk).replace_schema_metadata({parts.META_KEY: meta})


def simulate(*, games=_GAMES, players=_PLAYERS, policies=_POLICIES, policy_params=_PARAMS, seed=_SEED,
             wonders=_WONDERS, sides=_SIDES, manneken_pis=_PROMO, data=None, threads=None, chunk_size=_CHUNK,
             out=None, overwrite=False, resume=False, dask=None, progress=False):
    """Play a run of `wsim simulate` (docs/interfaces.md §2; the same settings, Python names).

    policies: one name for every seat ("heuristic", "rollout:deep"), or one per seat.
    policy_params: {"greedy.coin": 40, ...} or ["greedy.coin=40", ...]. data: a card data file
    (default: the built-in one). threads: kernel threads (default: every core). progress: True
    (drawn on stderr), False, or a function called with each update (docs/api.md).

    With out=None, returns a pyarrow.Table of the §2 columns, rows by (game, seat), its schema
    metadata `wsim` the run's metadata (refused above MAX_TABLE_ROWS rows: use out= or
    iter_batches). With out, writes the dataset exactly as the command line does (overwrite,
    resume and dask as its --overwrite, --resume and --dask; with resume, a setting left out is
    taken from the dataset, and one given must equal the dataset's) and returns
    wsim.open_dataset(out).
    """
    import pyarrow as pa

    settings_given = {"games": games, "players": players, "policies": policies, "policy_params": policy_params,
                      "seed": seed, "wonders": wonders, "sides": sides, "manneken_pis": manneken_pis,
                      "chunk_size": chunk_size}
    t, settings = run_settings(data=data, **{name: given(value) for name, value in settings_given.items()})
    mode = write_mode(overwrite, resume)
    progress = progress_value(progress)
    if out is None:
        for name, value in (("overwrite", overwrite), ("resume", resume), ("dask", dask)):
            if value not in (False, None):
                raise WsimError(f"{name}: only with out= (a dataset folder)")
        if settings.games * settings.cities > MAX_TABLE_ROWS:
            raise WsimError(f"games: {settings.games:,} games are {settings.games * settings.cities:,} rows, more than "
                            f"a table in memory holds here ({MAX_TABLE_ROWS:,}): give out= to write a dataset, or "
                            "read the run a part at a time with wsim.iter_batches")
        threads_checked(threads)
        return pa.concat_tables(list(_batches(t, settings, threads, progress)))
    explicit = {name for name, value in settings_given.items() if not isinstance(value, Default)}
    return _write(t, settings, folder_arg(out), mode, dask, threads, data, explicit, progress)


def _write(t, settings, folder: Path, mode: str, dask, threads, data, explicit: set, progress):
    """simulate() into the dataset folder `folder`."""
    # the settings the command line would have been given (its option is --policy-param)
    explicit = {"policy_param" if name == "policy_params" else name for name in explicit}
    if data is not None:
        explicit.add("data")
    threads_checked(threads, dask)
    with settings_error():
        try:
            write_simulation(t, settings, folder, mode=mode, explicit=frozenset(explicit), dask=dask,
                             threads=threads, progress=progress)
        except OSError as e:
            from wsim.dataset.folder import os_problem

            raise WsimError(f"{folder}: {os_problem(e)}") from None
    return open_dataset(folder)


def write_simulation(t: Tables, settings: Settings, out: Path, *, mode: str = "new", explicit=frozenset(), dask=None,
                     threads=None, progress: bool = False):
    """Run `settings` into the dataset folder `out` as `wsim simulate --out` does (mode "new",
    "overwrite" or "resume"; with resume the settings named in `explicit` must equal the
    dataset's), under the kernel lock; returns the run's wsim.dataset.write.Result (the summary of
    the whole dataset). The threads are those set before (threads_checked)."""
    from wsim.dataset.write import Request, write_dataset
    from wsim.run.lock import KERNEL_LOCK

    with KERNEL_LOCK:
        return write_dataset(Request(t, settings, mode, frozenset(explicit), dask, threads), out, progress=progress)


class Dataset:
    """A complete wsim dataset (a folder of parts and its manifest), checked when opened."""

    def __init__(self, path: Path, metadata: dict, files: Sequence[Path]):
        self.path = path
        self.metadata = metadata  # the run's `wsim` metadata (docs/interfaces.md §2: settings, versions, policies)
        self.files = list(files)  # the part files, in game order

    @property
    def games(self) -> int:
        return int(self.metadata["games"])

    def __repr__(self) -> str:
        return f"wsim.Dataset({str(self.path)!r}, games={self.games:,})"

    def to_arrow(self) -> pa.Table:
        """Every row, in (game, seat) order, as one pyarrow.Table."""
        import pyarrow as pa

        from wsim.dataset import parts

        tables = [parts.read_columns(f, None) for f in self.files]
        return pa.concat_tables([tb.replace_schema_metadata(None) for tb in tables])

    def to_pandas(self) -> pandas.DataFrame:
        """Every row as a pandas DataFrame (needs pandas: pip install 'wsim[analysis]')."""
        _needs("pandas", "to_pandas")
        return self.to_arrow().to_pandas()

    def to_duckdb(self, con: duckdb.DuckDBPyConnection | None = None) -> duckdb.DuckDBPyRelation:
        """The rows as a DuckDB relation over exactly the part files (their paths literal, never
        patterns), read lazily by `con` (default: DuckDB's default connection; needs duckdb: pip
        install 'wsim[analysis]')."""
        _needs("duckdb", "to_duckdb")
        import duckdb

        from wsim.dataset.parts import arrow_dataset

        con = duckdb.default_connection() if con is None else con
        return con.from_arrow(arrow_dataset(self.files))


def _needs(module: str, method: str):
    if find_spec(module) is None:
        raise WsimError(f"Dataset.{method} needs {module}: pip install 'wsim[analysis]'")


def open_dataset(path) -> Dataset:
    """The dataset in folder `path`, checked against its manifest as `wsim check` checks it
    (parts present, rows, checksums, settings); a WsimError names every problem otherwise."""
    from wsim import tables as tables_mod
    from wsim.dataset import manifest
    from wsim.dataset.folder import DatasetError

    where = folder_arg(path, "path", "a dataset folder")
    if not where.is_dir():
        raise DatasetError(f"{where}: no such dataset folder")
    report = manifest.check(where, tables_mod.load(None))
    if not report.ok:
        raise DatasetError(f"{where}: not a complete dataset ({report.closing}): " + "; ".join(report.problems[:5]))
    return Dataset(where, report.meta, report.files)

