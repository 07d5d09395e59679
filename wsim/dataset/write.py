"""`wsim simulate`'s run: planned in its folder (new, --overwrite or --resume), played part by
part here or on a Dask cluster, committed with its manifest.

Every write goes through `wsim.dataset.folder.OutputFolder` (lock, recovery, atomic files and
replacement); wsim.dataset.plan decides *what* to write. Memory stays flat in the number of
games: one part's arrays and table at a time, and the summary keeps running sums only.
"""

from __future__ import annotations

import hashlib
import sys
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from wsim import signals
from wsim.dataset import manifest, parts
from wsim.dataset.folder import DatasetError, OutputFolder
from wsim.dataset.plan import Plan, plan_run, precheck
from wsim.dataset.play import part_task, play_part
from wsim.dataset.summary import COLUMNS as SUMMARY_COLUMNS, Summary
from wsim.run import progress as progress_mod
from wsim.run.runner import Pacer, Runner, play_paced
from wsim.run.settings import Settings
from wsim.tables import Tables


@dataclass
class Request:
    """A `wsim simulate` invocation, its options checked.

    `explicit` names the options given on the command line (or by environment): with --resume
    they must equal the dataset's; the others are taken from it.
    """

    tables: Tables
    settings: Settings
    mode: str  # "new", "overwrite" or "resume"
    explicit: frozenset = frozenset()
    dask: str | None = None  # --dask ADDRESS: play the parts on that cluster (wsim.run.cluster)
    threads: int | None = None  # kernel threads of each task on the cluster (default 1)


@dataclass
class Result:
    summary: Summary
    tables: Tables  # the tables the games were played with (the dataset's own, on --resume)
    foreign: list  # files in the folder that are not wsim's (kept)


def _local_parts(plan: Plan, runner: Runner, data_text: bytes, on_progress):
    """(index, part bytes, table, metadata) of each part to play, played here by `runner`."""
    pacer = Pacer()
    for index in plan.todo:
        blob, table, meta = play_part(plan.tables, plan.settings, index, data_text,
                                      lambda first, games: play_paced(runner, pacer, first, games, on_progress),
                                      plan.version)
        yield index, blob, table, meta


def _cluster_parts(plan: Plan, data_text: bytes, on_progress, cluster, threads: int):
    """The same, played as tasks on a Dask cluster (wsim.run.cluster); each part is checked to be
    the one asked for before it is written."""
    from wsim.run.cluster import play_parts

    settings, t = plan.settings, plan.tables
    run_meta = parts.run_meta(t, settings, plan.version)
    with closing(play_parts(cluster, part_task, data_text, run_meta, plan.todo, threads)) as blobs:
        for index, blob in blobs:
            first, games = settings.part(index)
            meta = parts.metadata(t, settings, first, games, plan.version)
            header, table = parts.decode(blob, SUMMARY_COLUMNS)
            if header.meta != meta or header.rows != games * settings.cities:
                raise DatasetError(f"--dask: a worker returned another part than part {index} (other settings "
                                   "or games): are the workers running the same wsim?")
            on_progress(games)
            yield index, blob, table, meta


def ready_kernels(load) -> str:
    """Run load() (a kernel load: from numba's cache, or a compile on a first run) and say how
    long it took, for a summary."""
    from wsim.run.compiling import CompileWatch

    started = time.perf_counter()
    with CompileWatch() as watch:
        load()
    seconds = time.perf_counter() - started
    if watch.compiled:
        return f"kernels compiled in {seconds:.1f} s (first run only)"
    return f"kernels loaded in {seconds:.2f} s"


def cluster_kernels(cluster, data_text: bytes, run_meta: dict) -> str:
    """Make the run's kernels ready on every worker of `cluster` before play is timed; says how."""
    from wsim.run.cluster import ready_workers

    seconds, compiled = ready_workers(cluster, data_text, run_meta)
    how = f"compiled on {compiled} of them" if compiled else "loaded from their caches"
    return f"kernels ready on {cluster.workers} workers in {seconds:.1f} s ({how})"


def write_dataset(req: Request, out: Path, progress=False, cluster=None, label: str = "") -> Result:
    """Run `req` into `out` (docs/interfaces.md §2); returns the summary of the whole dataset.

    progress: True (drawn on stderr: a bar on a terminal, else a line a minute), False, or a
    function called with each wsim.run.progress.Update; `label` names the run in it (a survey's
    population). On any exception, KeyboardInterrupt and signals included, temporary files are
    removed and the exception propagates: a new folder keeps its whole parts (for --resume), a
    replaced dataset stays as it was. `cluster`: a connected wsim.run.cluster.Cluster to play on
    (the caller closes it), else `req.dask` is connected to here.
    """
    precheck(out, req.mode)
    if cluster is not None or req.dask is None:
        return _write(req, out, progress, cluster, label)
    from wsim.run.cluster import connect

    cluster = connect(req.dask, req.threads or 1)  # before the folder is touched: a refusal writes nothing
    try:
        return _write(req, out, progress, cluster, label)
    finally:
        cluster.close()


def _write(req: Request, out: Path, progress, cluster, label: str) -> Result:
    """write_dataset() in its folder, with the parts played here or on `cluster`."""
    with OutputFolder(out, owns=parts.owns) as folder:
        plan = plan_run(folder, req.tables, req.settings, req.mode, req.explicit)
        folder.announce({"games": plan.settings.games})  # `wsim check` reads it before the first part
        foreign = [n for n in folder.entries() if not parts.owns(n)]
        settings, t = plan.settings, plan.tables
        data_text = t.raw
        summary = Summary(settings.players, settings.labels)
        entries = {}
        for header, sha in plan.keep:
            summary.add(parts.read_columns(out / header.name, SUMMARY_COLUMNS))
            entries[parts.part_index(header.name)] = manifest.part_entry(header, sha)
        run_meta = parts.run_meta(t, settings, plan.version)
        if not plan.todo and manifest.recorded(out) == manifest.document(
                run_meta, [entries[i] for i in sorted(entries)], data_text):
            summary.seconds = 0.0  # complete, its manifest whole: nothing to write
            return Result(summary, t, foreign)
        if cluster is not None and progress is True and sys.stderr.isatty():  # progress: a terminal's
            link = cluster.dashboard
            sys.stderr.write(f"  Dask: {cluster.workers} workers" + (f", dashboard {link}" if link else "") + "\n")
        if plan.replace:
            folder.begin_replacement()
        runner = Runner(t, settings) if cluster is None else None
        if plan.todo:  # the kernels are made ready before play is timed
            summary.kernels = (ready_kernels(runner.load) if cluster is None else
                               cluster_kernels(cluster, data_text, run_meta))
        started = time.perf_counter()
        total_todo = sum(settings.part(i)[1] for i in plan.todo)
        done = [0]
        where = f"{cluster.workers} workers" if cluster is not None else ""
        tracker = progress_mod.start(progress if plan.todo else False, total_todo, label=label, step=where)

        def on_progress(games):
            done[0] += games
            tracker.advance(games)

        try:
            produced = (_cluster_parts(plan, data_text, on_progress, cluster, req.threads or 1) if cluster is not None
                        else _local_parts(plan, runner, data_text, on_progress))
            # closed here, not when garbage collected: a cluster run's generator cancels its
            # tasks when closed, which needs the client that the caller closes next
            with closing(produced):
                for index, blob, table, meta in produced:
                    folder.write(parts.part_name(index), blob)
                    summary.add(table)
                    header = parts.PartHeader(parts.part_name(index), meta, table.num_rows, data_text)
                    entries[index] = manifest.part_entry(header, hashlib.sha256(blob).hexdigest())
            summary.played = done[0]
            summary.seconds = time.perf_counter() - started
            folder.sync()
            folder.write(parts.MANIFEST, manifest.encode(run_meta, [entries[i] for i in sorted(entries)], data_text))
            folder.sync()
            if folder.target != folder.path:
                new = [parts.part_name(i) for i in sorted(entries)] + [parts.MANIFEST]
                try:
                    folder.commit(plan.replace, new)
                except (KeyboardInterrupt, signals.Terminated) as e:
                    # a signal that waited for the commit: the new dataset is whole (say so)
                    e.wsim_complete = folder.target == folder.path
                    raise
        except BaseException:
            tracker.close(complete=False)
            folder.abort()
            raise
        finally:
            tracker.close()
        return Result(summary, t, foreign)
