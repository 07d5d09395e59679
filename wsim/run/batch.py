"""`wsim simulate`: plan a run (new, --overwrite or --resume), play it part by part, summarise.

Every write goes through `wsim.dataset.folder.OutputFolder` (lock, recovery, atomic files and
replacement); this module decides *what* to write. Memory stays flat in the number of games:
one part's arrays and table at a time, and the summary keeps running sums only.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from wsim import RULES_VERSION, codes, signals
from wsim.dataset import manifest, parts
from wsim.errors import brief
from wsim.dataset.folder import LOCK, STAGING, DatasetError, OutputFolder, check_target, is_temp_of
from wsim.run.runner import Pacer, Runner, play_paced
from wsim.analysis.stats import wilson_interval
from wsim.run.settings import Settings, SettingsError, cities_of, settings_from_metadata
from wsim.tables import Tables



@dataclass
class Summary:
    """Running totals of a dataset, for the end-of-run report. At 2 players the means and win
    rates are the players' (seats 0 and 1); the Free City's mean total is shown apart."""

    players: int
    policies: tuple = ()  # the players' policies (labels), seat by seat
    games: int = 0
    played: int = 0
    seconds: float = 0.0  # playing only: loading or compiling the kernels is counted apart
    kernels: str = ""  # how the kernels were made ready, for the summary (start-up, kept apart)
    points: np.ndarray = field(default_factory=lambda: np.zeros(len(codes.CATEGORIES) + 1, dtype=np.int64))
    free_city_points: int = 0
    seats_by_board: dict = field(default_factory=dict)  # (wonder id, side) -> [seats, wins]

    def add(self, table: pa.Table):
        """Add one part's rows (the dataset's columns)."""
        self.games += table.num_rows // cities_of(self.players)
        if self.players == codes.FC_PLAYERS:
            is_fc = pc.equal(table["seat"], codes.FC_SEAT)
            self.free_city_points += pc.sum(table.filter(is_fc)["vp_total"]).as_py() or 0
            table = table.filter(pc.invert(is_fc))
        for i, name in enumerate([f"vp_{c}" for c in codes.CATEGORIES] + ["vp_total"]):
            self.points[i] += pc.sum(table[name]).as_py() or 0
        # counted with numpy: Table.group_by loads pyarrow's query engine, which imports pandas
        # when it is installed and would slow every start (see parts._array)
        wonder, side = (pc.dictionary_encode(table[c]).combine_chunks() for c in ("wonder", "side"))
        key = parts.numpy_of(wonder.indices).astype(np.int64) * len(side.dictionary) + parts.numpy_of(side.indices)
        size = len(wonder.dictionary) * len(side.dictionary)
        seats = np.bincount(key, minlength=size)
        won = parts.numpy_of(pc.cast(table["win"], pa.int8()))
        wins = np.bincount(key, weights=won, minlength=size)
        for k in np.flatnonzero(seats):
            board = (str(wonder.dictionary[k // len(side.dictionary)]), str(side.dictionary[k % len(side.dictionary)]))
            entry = self.seats_by_board.setdefault(board, [0, 0])
            entry[0] += int(seats[k])
            entry[1] += int(wins[k])

    def text(self, tables: Tables) -> str:
        """The summary: speed, mean points by category, win rate by wonder and side (95% CI)."""
        rows = max(1, self.games * self.players)
        rate = self.played / self.seconds if self.seconds > 0 else float("inf")
        what = f"{self.players} players" + (" and the Free City" if self.players == codes.FC_PLAYERS else "")
        if self.policies:
            distinct = sorted(set(self.policies))
            what += f" ({distinct[0]})" if len(distinct) == 1 else f" (seats: {', '.join(self.policies)})"
        kernels = f"; {self.kernels}" if self.kernels else ""
        if self.played == self.games:
            head = f"{self.games:,} games of {what} in {self.seconds:.1f} s ({rate:,.0f} games/s){kernels}"
        elif self.played:
            head = (f"{self.games:,} games of {what}: {self.played:,} played now in {self.seconds:.1f} s "
                    f"({rate:,.0f} games/s), the rest were already in the dataset{kernels}")
        else:
            head = f"{self.games:,} games of {what}: the dataset was complete, nothing played"
        fc = self.players == codes.FC_PLAYERS
        lines = [head, "", "mean points per seat" + (" of the two players:" if fc else ":")]
        names = list(codes.CATEGORIES) + ["total"]
        lines.append("  " + "  ".join(f"{n:>10}" for n in names))
        lines.append("  " + "  ".join(f"{v / rows:>10.2f}" for v in self.points))
        if fc:
            lines.append(f"  the Free City: {self.free_city_points / max(1, self.games):.2f} points a game")
        lines += ["", f"win rate by wonder and side, with its 95% CI (a fair share is {1 / self.players:.1%}; "
                      "shared victories count for every winner):"]
        order = {b: i for i, b in enumerate(tables.board_ids)}
        for (wonder, side), (seats, wins) in sorted(self.seats_by_board.items(),
                                                    key=lambda kv: (order.get(kv[0][0], 99), kv[0][1])):
            lo, hi = wilson_interval(wins, seats)
            lines.append(f"  {wonder:<14} {side}  {wins / seats:6.1%}  [{lo:6.1%}, {hi:6.1%}]  of {seats:,} seats")
        return "\n".join(lines)


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


# ---------------------------------------------------------------------------------------------
# Planning

@dataclass
class _Plan:
    tables: Tables
    settings: Settings
    keep: list  # (PartHeader, sha256) of the parts already in place
    todo: list  # part indices to play
    replace: list  # names of the old dataset that the new one replaces (--overwrite)


def _precheck(out: Path, mode: str):
    """Refusals that need no lock, so that a refused invocation writes nothing at all."""
    kind = check_target(out)
    if kind == "dir" and mode == "new":
        # the lock, the staging folder and wsim's temporary files are not contents: recovery
        # under the lock removes or finishes the last two
        _refuse_if_not_empty(out, [n for n in os.listdir(out)
                                   if n not in (LOCK, STAGING) and not is_temp_of(n, parts.owns)])


def _refuse_if_not_empty(out: Path, names: list):
    if not names:
        return
    if any(parts.PART_RE.match(n) for n in names) and parts.MANIFEST not in names:
        raise DatasetError(f"--out: {out} holds an unfinished run (use --resume to complete it, or "
                           "--overwrite to replace it)")
    raise DatasetError(f"--out: {out} is not empty (use --overwrite to replace the dataset in it)")


def _plan_new(req: Request, folder: OutputFolder) -> _Plan:
    names = folder.entries()
    if req.mode == "new":
        _refuse_if_not_empty(folder.path, names)
    replace = []
    if req.mode == "overwrite":
        # only files wsim wrote are replaced: a part must read as one, the manifest be one
        for name in names:
            if parts.PART_RE.match(name):
                try:
                    parts.read_header(folder.path / name)
                except DatasetError:
                    raise DatasetError(f"--out: {folder.path / name} is not a readable wsim part (damaged, or "
                                       "not written by wsim); --overwrite replaces only wsim's own files "
                                       "(move it away first)") from None
            elif name == parts.MANIFEST:
                try:
                    manifest.read(folder.path)
                except DatasetError:
                    raise DatasetError(f"--out: {folder.path / name} is not a wsim manifest; --overwrite "
                                       "replaces only wsim's own files (move it away first)") from None
        replace = [n for n in names if n == parts.MANIFEST] + [n for n in names if parts.PART_RE.match(n)]
    return _Plan(req.tables, req.settings, [], list(range(manifest.part_count(req.settings))), replace)


_OPTION_FIELDS = {"games": "games", "players": "players", "seed": "seed", "policy": "labels", "policies": "labels",
                  "policy_param": "params", "wonders": "wonders", "sides": "sides", "manneken_pis": "manneken_pis",
                  "chunk_size": "chunk_size"}


def _plan_resume(req: Request, folder: OutputFolder) -> _Plan:
    """Settings from the parts in place; the kept parts verified; the missing ones to play."""
    files = parts.part_files(folder.path)
    if not files:
        names = folder.entries()
        if names:
            raise DatasetError(f"--resume: {folder.path} holds no wsim dataset to resume, and is not empty")
        return _plan_new(Request(req.tables, req.settings, "new"), folder)
    headers = [parts.read_header(p) for p in files]
    first = headers[0]
    run_meta = parts.run_metadata(first.meta)
    for h in headers[1:]:
        if parts.run_metadata(h.meta) != run_meta:
            raise DatasetError(f"--resume: {folder.path / h.name} belongs to another run than "
                               f"{folder.path / first.name} (their settings differ)")
    if run_meta.get("rules_version") != RULES_VERSION:
        raise DatasetError(f"--resume: {folder.path} was written under rules version "
                           f"{run_meta.get('rules_version')!s:.20}, this wsim plays rules version {RULES_VERSION}")
    tables = _dataset_tables(req, folder.path, first, run_meta)
    try:
        settings = settings_from_metadata(first.meta, tables)
    except SettingsError as e:
        raise DatasetError(f"--resume: {folder.path / first.name}: its metadata holds invalid settings ({e})") from None
    for option in sorted(req.explicit & set(_OPTION_FIELDS)):
        given, recorded = getattr(req.settings, _OPTION_FIELDS[option]), getattr(settings, _OPTION_FIELDS[option])
        if given != recorded:
            shown = "--" + option.replace("_", "-")
            raise DatasetError(f"--resume: {shown} is {_show(given)} but the dataset in {folder.path} was run "
                               f"with {_show(recorded)} (leave it out to take the dataset's)")
    ours = parts.run_metadata(parts.metadata(tables, settings, 0, 0))
    differs = [k for k in sorted(set(ours) | set(run_meta)) if ours.get(k) != run_meta.get(k)]
    if differs:  # e.g. another wsim version: its parts and ours would not make one dataset
        k = differs[0]
        raise DatasetError(f"--resume: {folder.path} was written with {k} {brief(run_meta.get(k))}, this run "
                           f"would write {brief(ours.get(k))}")
    # a part that differs from the manifest of the completed run is never blessed by a new one
    listed = {e["file"]: e["sha256"] for e in (manifest.recorded(folder.path) or {"parts": []})["parts"]}
    keep = []
    present = set()
    for h in headers:
        index = parts.part_index(h.name)
        first_game, games = manifest.part_range(settings, index)
        if games <= 0 or (h.first_game, h.games) != (first_game, games) or h.rows != games * settings.cities:
            raise DatasetError(f"--resume: {folder.path / h.name} does not hold the games this run puts there "
                               f"(games {first_game}.. of {settings.games}); the dataset is damaged")
        try:
            sha = manifest.sha256_of(folder.path / h.name)
        except OSError as e:
            raise DatasetError(f"--resume: cannot read {folder.path / h.name} ({e.strerror or e})") from None
        if listed.get(h.name, sha) != sha:
            raise DatasetError(f"--resume: {folder.path / h.name} changed after its run completed (its checksum is "
                               "not the manifest's; see `wsim check`)")
        keep.append((h, sha))
        present.add(index)
    todo = [i for i in range(manifest.part_count(settings)) if i not in present]
    return _Plan(tables, settings, keep, todo, [])


def _show(value) -> str:
    if isinstance(value, tuple) and all(isinstance(v, str) for v in value):
        return ",".join(value)
    return brief(value)


def _dataset_tables(req: Request, path: Path, first: parts.PartHeader, run_meta: dict) -> Tables:
    """The card data a dataset was made with: its own text, or the --data file if given (equal)."""
    recorded = run_meta.get("data_sha256")
    if "data" in req.explicit:
        if req.tables.data_sha256 != recorded:
            raise DatasetError(f"--resume: --data differs from the data file {path} was made with "
                               f"(sha256 {str(recorded)[:12]}…, given {req.tables.data_sha256[:12]}…)")
        return req.tables
    return manifest.tables_of_dataset(path / first.name, first.data_text, recorded, req.tables)


# ---------------------------------------------------------------------------------------------
# Playing

def _local_parts(plan: _Plan, runner: Runner, data_text: bytes, on_progress):
    """(index, part bytes, table, metadata) of each part to play, played here by `runner`."""
    settings, t = plan.settings, plan.tables
    pacer = Pacer()
    for index in plan.todo:
        first = index * settings.chunk_size
        games = min(settings.chunk_size, settings.games - first)
        chunk = play_paced(runner, pacer, first, games, on_progress)
        table = parts.chunk_table(t, settings, chunk)
        meta = parts.metadata(t, settings, first, games)
        yield index, parts.encode(table, meta, data_text), table, meta


def _cluster_parts(plan: _Plan, data_text: bytes, on_progress, cluster, threads: int):
    """The same, played as tasks on a Dask cluster (wsim.run.cluster); each part is checked to be
    the one asked for before it is written."""
    from wsim.run.cluster import play_parts

    settings, t = plan.settings, plan.tables
    run_meta = parts.run_metadata(parts.metadata(t, settings, 0, 0))
    with closing(play_parts(cluster, data_text, run_meta, plan.todo, threads)) as blobs:
        for index, blob in blobs:
            first = index * settings.chunk_size
            games = min(settings.chunk_size, settings.games - first)
            meta = parts.metadata(t, settings, first, games)
            header, table = parts.decode(blob, _SUMMARY_COLUMNS)
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


def simulate(req: Request, out: Path, progress: bool, cluster=None) -> Result:
    """Run `req` into `out` (INTERFACES §2); returns the summary of the whole dataset.

    On any exception, KeyboardInterrupt and signals included, temporary files are removed and
    the exception propagates: a new folder keeps its whole parts (for --resume), a replaced
    dataset stays as it was. `cluster`: a connected wsim.run.cluster.Cluster to play on (the
    caller closes it), else `req.dask` is connected to here.
    """
    _precheck(out, req.mode)
    if cluster is not None or req.dask is None:
        return _simulate(req, out, progress, cluster)
    from wsim.run.cluster import connect

    cluster = connect(req.dask, req.threads or 1)  # before the folder is touched: a refusal writes nothing
    try:
        return _simulate(req, out, progress, cluster)
    finally:
        cluster.close()


def _simulate(req: Request, out: Path, progress: bool, cluster) -> Result:
    """simulate() in its folder, with the parts played here or on `cluster`."""
    with OutputFolder(out, owns=parts.owns) as folder:
        plan = _plan_resume(req, folder) if req.mode == "resume" else _plan_new(req, folder)
        foreign = [n for n in folder.entries() if not parts.owns(n)]
        settings, t = plan.settings, plan.tables
        data_text = t.raw
        summary = Summary(settings.players, settings.labels)
        entries = {}
        for header, sha in plan.keep:
            summary.add(parts.read_columns(out / header.name, _SUMMARY_COLUMNS))
            entries[parts.part_index(header.name)] = manifest.part_entry(header, sha)
        run_meta = parts.run_metadata(parts.metadata(t, settings, 0, 0))
        if not plan.todo and manifest.recorded(out) == manifest.document(
                run_meta, [entries[i] for i in sorted(entries)], data_text):
            summary.seconds = 0.0  # complete, its manifest whole: nothing to write
            return Result(summary, t, foreign)
        if cluster is not None and progress:
            link = cluster.dashboard
            sys.stderr.write(f"  Dask: {cluster.workers} workers" + (f", dashboard {link}" if link else "") + "\n")
        if plan.replace:
            folder.begin_replacement()
        runner = Runner(t, settings) if cluster is None else None
        if plan.todo:  # the kernels are made ready before play is timed
            summary.kernels = (ready_kernels(runner.load) if cluster is None else
                               cluster_kernels(cluster, data_text, parts.run_metadata(parts.metadata(t, settings, 0, 0))))
        started = time.perf_counter()
        total_todo = sum(min(settings.chunk_size, settings.games - i * settings.chunk_size) for i in plan.todo)
        done = [0]

        def on_progress(games):
            done[0] += games
            if progress:
                rate = done[0] / max(time.perf_counter() - started, 1e-9)
                where = f", {cluster.workers} workers" if cluster is not None else ""
                sys.stderr.write(f"\r  {done[0]:,} / {total_todo:,} games ({rate:,.0f} games/s{where})")
                sys.stderr.flush()

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
            folder.abort()
            raise
        finally:
            if progress and plan.todo:
                sys.stderr.write("\n")
        return Result(summary, t, foreign)


_SUMMARY_COLUMNS = [f"vp_{c}" for c in codes.CATEGORIES] + ["vp_total", "seat", "wonder", "side", "win"]
