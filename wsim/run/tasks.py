"""What a Dask worker runs for `--dask` (the client that submits it is wsim.run.cluster): the
workers' facts, the kernels loaded, and the tasks of a ladder's or rebalance's range of games and
of `wsim learn`'s recorded games (a dataset's part task is the files layer's,
wsim.dataset.play.part_task, over worker_tables and play_locked).

Tasks are pure functions of (data text, settings, range of games), so a task re-run after its
worker died returns the same result. A worker compiles a data text's tables once per process
(worker_tables) and runs one kernel call at a time (wsim.run.lock): the kernel thread count
(wsim.run.runner.set_threads) is one setting of the process, and a worker may be started with
several threads.

Dask sends a function as its module and name, and the worker imports it from there: this module
imports neither dask nor distributed, and every function here is a module-level one.
"""

from __future__ import annotations

import hashlib
import time

from wsim.run.lock import KERNEL_LOCK

_TABLES: dict = {}  # data sha256 -> compiled tables, per worker process


def worker_facts() -> dict:
    """What the client checks on a worker before any game: versions, and the cores for --threads."""
    import wsim
    from wsim.run.runner import available_cores

    return {"wsim_version": wsim.__version__, "rules_version": wsim.RULES_VERSION, "cores": available_cores()}


def worker_tables(data_text: bytes):
    """The compiled tables of a run's data text, compiled once per worker process."""
    from wsim.tables import compile_text

    key = hashlib.sha256(data_text).hexdigest()
    if key not in _TABLES:
        _TABLES[key] = compile_text(data_text, source="the run's data file")
    return _TABLES[key]


def play_locked(tables, settings, first: int, games: int, threads: int):
    """The Chunk of games first .. first + games - 1, one kernel call of this process at a time."""
    from wsim.run.runner import Pacer, Runner, play_paced, set_threads

    with KERNEL_LOCK:
        set_threads(threads)
        return play_paced(Runner(tables, settings), Pacer(), first, games)


def load_kernels(data_text: bytes, run_meta: dict) -> tuple:
    """Load (or, on a first run, compile) the kernels of the run `run_meta` in this worker:
    (seconds, whether it compiled)."""
    from wsim.run.compiling import CompileWatch
    from wsim.run.runner import Runner
    from wsim.run.settings import settings_from_metadata

    tables = worker_tables(data_text)
    started = time.perf_counter()
    with KERNEL_LOCK, CompileWatch() as watch:
        Runner(tables, settings_from_metadata(run_meta, tables)).load()
    return time.perf_counter() - started, watch.compiled


def carried(value):
    """The task that holds one of a run's inputs on the cluster (module docstring)."""
    return value


def play_range(data_text: bytes, settings, first: int, games: int, threads: int, sets: bool = False):
    """The kernels' res rows (games x cities x RES_COUNT) of games first .. first + games - 1
    of `settings` (a wsim.run.settings.Settings): the ladder's and rebalance's tasks; sets: with
    the column SETS_COLUMN (wsim.run.runner.with_science_sets), computed on the worker."""
    from wsim.run.runner import with_science_sets

    t = worker_tables(data_text)
    chunk = play_locked(t, settings, first, games, threads)
    return with_science_sets(t, chunk) if sets else chunk.res


def _model_file(model: bytes) -> str:
    """A worker's copy of a model file's bytes (by content hash, in its temporary folder): no
    filesystem is shared with the client."""
    import os
    import tempfile
    from pathlib import Path

    folder = Path(tempfile.gettempdir()) / "wsim-models"
    folder.mkdir(exist_ok=True)
    path = folder / f"{hashlib.sha256(model).hexdigest()}.npz"
    if not path.exists():
        tmp = path.with_name(f"{path.name}.{os.getpid()}.partial")
        tmp.write_bytes(model)
        os.replace(tmp, path)
    return str(path)


def record_range(data_text: bytes, model: bytes, settings, first: int, games: int, rate: float, explore: float,
                 tape_seed: int, threads: int):
    """(inputs, facts) of teacher games first .. first + games - 1 (wsim.run.tape.record): the
    tasks of `wsim learn --dask`; model: the bytes of the learned seats' model file, or b""."""
    from dataclasses import replace

    from wsim.run.tape import record

    if model:
        settings = replace(settings, model=_model_file(model), models=())
    with KERNEL_LOCK:
        return record(worker_tables(data_text), settings, first, games, rate, explore, tape_seed, threads)
