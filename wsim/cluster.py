"""`--dask ADDRESS`: the games of a run played as tasks on a Dask distributed cluster
(INTERFACES §2 "Distributed runs").

One task plays one part (a `--chunk-size` range of games) and returns the part file's bytes;
the client writes them into the output folder exactly as a local run does (a hidden temporary
name, fsync, rename), and writes the manifest once every part is in. Returning bytes instead of
writing on the workers means no filesystem has to be shared, and the client stays the one
writer that the folder's lock promises: a part is whole in DIR or absent, however the task
travelled. A part is about 8 MB per 100,000 four-player games, small next to the time it takes
to play.

Tasks are pure functions of (data text, settings, part index), so a task re-run after its worker
died returns the same bytes. A worker runs one kernel call at a time (`_KERNEL_LOCK`): the
kernel thread count (wsim.run.set_threads) is one setting of the process, and a worker may be
started with several threads.

Only the commands given `--dask` import this module, and only it imports dask and distributed.
"""

from __future__ import annotations

import hashlib
import logging
import re
import signal
import threading
from dataclasses import dataclass

from wsim import RULES_VERSION, __version__, signals
from wsim.errors import WsimError, brief

EXTRA = "pip install 'wsim[dask]'"
LOCAL_PREFIX = "local:"
MAX_LOCAL_WORKERS = 64
CONNECT_SECONDS = 10

_KERNEL_LOCK = threading.Lock()
_TABLES: dict = {}  # data sha256 -> compiled tables, per worker process


class ClusterError(WsimError):
    """A cluster that cannot be used: unreachable, other versions, a task that fails for good."""


# ---------------------------------------------------------------------------------------------
# Worker side

def worker_facts() -> dict:
    """What the client checks on a worker before any game: versions, and the cores for --threads."""
    import wsim
    from wsim.run import available_cores

    return {"wsim_version": wsim.__version__, "rules_version": wsim.RULES_VERSION, "cores": available_cores()}


def _tables(data_text: bytes):
    from wsim.tables import compile_text

    key = hashlib.sha256(data_text).hexdigest()
    if key not in _TABLES:
        _TABLES[key] = compile_text(data_text, source="the run's data file")
    return _TABLES[key]


def _play(tables, settings, first: int, games: int, threads: int):
    """The Chunk of games first .. first + games - 1, one kernel call of this process at a time."""
    from wsim.run import Pacer, Runner, play_paced, set_threads

    with _KERNEL_LOCK:
        set_threads(threads)
        return play_paced(Runner(tables, settings), Pacer(), first, games)


def load_kernels(data_text: bytes, run_meta: dict) -> tuple:
    """Load (or, on a first run, compile) the kernels of the run `run_meta` in this worker:
    (seconds, whether it compiled)."""
    import time

    from wsim.compiling import CompileWatch
    from wsim.run import Runner
    from wsim.settings import settings_from_metadata

    tables = _tables(data_text)
    started = time.perf_counter()
    with _KERNEL_LOCK, CompileWatch() as watch:
        Runner(tables, settings_from_metadata(run_meta, tables)).load()
    return time.perf_counter() - started, watch.compiled


def play_part(data_text: bytes, run_meta: dict, index: int, threads: int) -> bytes:
    """Play part `index` of the run described by `run_meta` (a part's metadata without `part`)
    and return the part file's bytes, as a local run would write them."""
    from wsim.dataset import parts
    from wsim.settings import settings_from_metadata

    tables = _tables(data_text)
    settings = settings_from_metadata(run_meta, tables)
    first = index * settings.chunk_size
    games = min(settings.chunk_size, settings.games - first)
    chunk = _play(tables, settings, first, games, threads)
    table = parts.chunk_table(tables, settings, chunk)
    return parts.encode(table, parts.metadata(tables, settings, first, games), data_text)


def play_range(data_text: bytes, settings, first: int, games: int, threads: int):
    """The kernels' res rows (games x cities x RES_COUNT) of games first .. first + games - 1
    of `settings` (a wsim.settings.Settings): the ladder's tasks."""
    return _play(_tables(data_text), settings, first, games, threads).res


# ---------------------------------------------------------------------------------------------
# Client side

@dataclass
class Cluster:
    """A connected client (and the local cluster it started, if any)."""

    client: object
    local: object | None
    address: str

    @property
    def workers(self) -> int:
        return len(self.client.scheduler_info().get("workers", {}))

    @property
    def dashboard(self) -> str | None:
        try:
            return self.client.dashboard_link
        except Exception:  # no dashboard (bokeh missing or disabled): only the link is lost
            return None

    def close(self):
        """Close the client, then the local cluster if any. Signals wait until both are closed: a
        cluster left half-closed would be closed again by distributed's exit hook, with a
        traceback after wsim's last line."""
        with signals.deferred():
            self.client.close()
            if self.local is not None:
                self.local.close()


_REMOTE = re.compile(r"tcp://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)(?::(\d{1,5}))?")


def parse_address(address: str) -> tuple:
    """("local", W) or ("remote", "tcp://HOST:PORT") of a --dask value (ClusterError if neither)."""
    if address.startswith(LOCAL_PREFIX):
        count = address[len(LOCAL_PREFIX):]
        if not count.isdigit() or not 1 <= int(count) <= MAX_LOCAL_WORKERS:
            raise ClusterError(f"--dask: local:W takes 1..{MAX_LOCAL_WORKERS} worker processes, got {brief(address)}")
        return "local", int(count)
    if address.startswith("tls://"):
        # distributed needs certificates for TLS, and wsim has no option to take them
        raise ClusterError(f"--dask: tls:// is not supported (wsim takes no TLS certificates), got {brief(address)}: "
                           "use tcp://HOST:PORT (over an SSH tunnel or a private network) or local:W")
    remote = _REMOTE.fullmatch(address)
    if remote and (remote[2] is None or 1 <= int(remote[2]) <= 65535):
        return "remote", address
    raise ClusterError(f"--dask: expected tcp://HOST:PORT (a running `dask scheduler`; PORT 1..65535, an IPv6 "
                       f"HOST in brackets) or local:W, got {brief(address)}")


def connect(address: str, threads: int = 1) -> Cluster:
    """Connect to the cluster of a --dask value, or start the local one; ClusterError if it
    cannot be reached, has no worker, or a worker cannot run `threads` kernel threads or runs
    another wsim."""
    kind, where = parse_address(address)
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError(f"--dask needs the dask extra: {EXTRA}") from None
    # a task's failure reaches the user as one Error: line; distributed's own log of it
    # (tracebacks, cancelled futures at Ctrl-C) would bury it
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    local = None
    try:
        if kind == "local":
            _start_resource_tracker()
            # Signals wait until the start is over: a LocalCluster interrupted while it starts
            # cannot be closed (distributed's exit hook then fails on it, and a worker process
            # caught half-started can hold the exit).
            with signals.deferred():
                # worker processes, one thread each: a kernel call uses the threads --threads gives it
                local = LocalCluster(n_workers=where, threads_per_worker=1, processes=True, dashboard_address=":0",
                                     silence_logs=logging.CRITICAL)
                local.shutdown_on_close = False  # closed by wsim, not by the exit hook
            client = Client(local, timeout=CONNECT_SECONDS)
        else:
            client = Client(where, timeout=CONNECT_SECONDS)
            client.wait_for_workers(1, timeout=CONNECT_SECONDS)
    except BaseException as e:
        if local is not None:
            with signals.deferred():
                local.close()
        if isinstance(e, (OSError, TimeoutError, ValueError)):
            raise ClusterError(f"--dask: cannot use the cluster at {brief(address)} ({brief(str(e))})") from None
        raise
    cluster = Cluster(client, local, address)
    try:
        check_workers(cluster, threads)
    except BaseException:
        cluster.close()
        raise
    return cluster


def _start_resource_tracker():
    """Start multiprocessing's resource tracker (the process that a local cluster's worker
    processes register their semaphores with) with SIGHUP blocked, which it keeps. It ignores
    SIGINT and SIGTERM itself, not SIGHUP: a hangup of the terminal's process group killed it,
    and the tracker started in its place printed a traceback for every semaphore released
    after wsim's last line."""
    from multiprocessing import resource_tracker

    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})
    try:
        resource_tracker.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def check_workers(cluster: Cluster, threads: int):
    """Refuse, before any game, workers that run another wsim or rules version, or that have
    fewer cores than the kernel threads asked of each task."""
    ours = {"wsim_version": __version__, "rules_version": RULES_VERSION}
    found = cluster.client.run(worker_facts)
    for worker, theirs in sorted(found.items()):
        versions = {k: theirs.get(k) for k in ours}
        if versions != ours:
            key = next(k for k in ours if versions[k] != ours[k])
            raise ClusterError(f"--dask: worker {worker} runs {key} {brief(versions[key])}, this wsim "
                               f"{brief(ours[key])}: install the same wsim on every worker")
        if threads > theirs.get("cores", 1):
            raise ClusterError(f"--threads: {threads} kernel threads a task, but worker {worker} has "
                               f"{theirs.get('cores')} cores")


def ready_workers(cluster: Cluster, data_text: bytes, run_meta: dict) -> tuple:
    """Every worker loads or compiles the run's kernels before a part is timed: (the slowest
    worker's seconds, how many workers compiled)."""
    found = cluster.client.run(load_kernels, data_text, run_meta)
    return max((s for s, _ in found.values()), default=0.0), sum(1 for _, c in found.values() if c)


def play_parts(cluster: Cluster, data_text: bytes, run_meta: dict, todo: list, threads: int):
    """Submit every part of `todo` and yield (index, part bytes) as they complete. A task that
    fails (not a lost worker: Dask re-runs those) ends the run with a ClusterError."""
    from distributed import as_completed

    client = cluster.client
    # sent once to every worker, not once per task (a list: scatter would split a dict)
    meta, data = client.scatter([run_meta, data_text], broadcast=True)
    run_key = hashlib.sha256(repr((run_meta, data_text)).encode()).hexdigest()[:16]
    futures = {client.submit(play_part, data, meta, index, threads, key=f"wsim-part-{run_key}-{index}",
                             pure=False): index for index in todo}
    try:
        for future in as_completed(futures):
            index = futures[future]
            if future.status != "finished":
                _raise_task_error(future, f"part {index}")
            yield index, future.result()
            future.release()
    finally:
        client.cancel(list(futures))


RANGE_GAMES = 2_000  # games per ladder task at most: enough tasks to share among workers


def play_ranges(cluster: Cluster, data_text: bytes, ranges: list, threads: int, on_progress=None) -> list:
    """The res rows of each (Settings, first, games) of `ranges`, played as tasks of at most
    RANGE_GAMES games, returned in the order of `ranges`."""
    import numpy as np
    from distributed import as_completed

    client = cluster.client
    (data,) = client.scatter([data_text], broadcast=True)
    pieces = {}
    for i, (settings, first, games) in enumerate(ranges):
        for at in range(first, first + games, RANGE_GAMES):
            count = min(RANGE_GAMES, first + games - at)
            pieces[client.submit(play_range, data, settings, at, count, threads, pure=False)] = (i, at)
    done: dict = {}
    try:
        for future in as_completed(pieces):
            i, at = pieces[future]
            if future.status != "finished":
                _raise_task_error(future, f"the task of games {at}.. of block {i}")
            res = future.result()
            done[(i, at)] = res
            future.release()
            if on_progress:
                on_progress(len(res))
    finally:
        client.cancel(list(pieces))
    return [np.concatenate([done[key] for key in sorted(k for k in done if k[0] == i)]) for i in range(len(ranges))]


def _raise_task_error(future, what: str):
    try:
        future.result()
    except WsimError as e:
        raise ClusterError(f"--dask: {what} failed on a worker: {e}") from None
    except Exception as e:  # KilledWorker after repeated losses, or a bug: either way it will not go away
        raise ClusterError(f"--dask: {what} failed on a worker ({type(e).__name__}: {brief(str(e))})") from None
    raise ClusterError(f"--dask: {what} ended as {future.status}")
