"""`--dask ADDRESS`: the games of a run played as tasks on a Dask distributed cluster
(docs/interfaces.md §2 "Distributed runs").

One task plays one part (a `--chunk-size` range of games) and returns the part file's bytes;
the client writes them into the output folder exactly as a local run does (a hidden temporary
name, fsync, rename), and writes the manifest once every part is in. Returning bytes instead of
writing on the workers means no filesystem has to be shared, and the client stays the one
writer that the folder's lock promises: a part is whole in DIR or absent, however the task
travelled. A part is about 8 MB per 100,000 four-player games, small next to the time it takes
to play.

Tasks are pure functions of (data text, settings, part index or range of games: what a worker
runs is wsim.run.tasks), so a task re-run after its worker died returns the same bytes. The data
text and settings reach the workers as the results of tasks that return them (tasks.carried),
not as scattered data: the scheduler runs such a task again when the worker that holds its
result dies, where scattered data would be forgotten and every task that needs it cancelled.

Every wait on the cluster has a wall-clock deadline (the *_SECONDS constants): distributed's own
timeouts cover a TCP connection but not a peer that accepts it and never answers. While tasks
play, the deadline is on the scheduler's answers, not on the tasks: a task may take hours.

Only the commands given `--dask` import this module, and only it imports dask and distributed.
"""

from __future__ import annotations

import logging
import queue
import re
import signal
import threading
import time
from contextlib import closing, contextmanager
from dataclasses import dataclass

from wsim import RULES_VERSION, __version__, signals
from wsim.errors import WsimError, brief
from wsim.run.tasks import carried, load_kernels, play_range, record_range, worker_facts

EXTRA = "pip install 'wsim[dask]'"
LOCAL_PREFIX = "local:"
MAX_LOCAL_WORKERS = 64
# Deadlines of the waits on the cluster, in wall-clock seconds (module docstring)
CONNECT_SECONDS = 10  # reach the scheduler (connection and handshake), then see a worker: README's promise
STEP_SECONDS = 60  # any other request (the workers' versions, a part's bytes, the worker count, a cancel,
# a close) and the start of a local cluster: a healthy cluster takes about a second (a local one starts in 2.5 s)
KERNELS_SECONDS = 900  # every worker loads the run's kernels, or compiles them on a first run (~20 s a family here)
CLOSE_SECONDS = 2  # closing a client that never became one (its peer is no scheduler)
POLL_SECONDS = 10  # while tasks play and none completes: how often the scheduler is asked how many workers it has
WORKERLESS_SECONDS = 60  # a cluster without any worker for this long ends the run (a nanny restarts one in seconds)
RERUNS = 3  # a task whose result is lost with its worker more often than this ends the run


class ClusterError(WsimError):
    """A cluster that cannot be used: unreachable, silent, other versions, a task that fails for good."""


def _within(seconds: float, what: str, call, *args, **kwargs):
    """call(*args, **kwargs), a blocking call into distributed, given `seconds` of wall-clock
    time. ClusterError when it has not returned by then, or when it fails: whatever distributed
    raises (OSError, TimeoutError, an assertion on a peer's first message...) ends as one
    `Error:` line naming `what`.

    The call runs in a daemon thread that is left behind if the deadline passes (the command
    ends soon after, and a daemon thread does not hold the process): distributed cannot
    cancel every one of these waits itself (a Client's handshake has no timeout at all).
    Signals reach the main thread, which waits here."""
    outcome: list = []
    returned = threading.Event()

    def run():
        try:
            outcome.append((True, call(*args, **kwargs)))
        except BaseException as e:  # handed to the main thread: only it decides what ends the command
            outcome.append((False, e))
        returned.set()

    threading.Thread(target=run, name="wsim-dask-call", daemon=True).start()
    if not returned.wait(seconds):
        raise ClusterError(f"--dask: {what}: no answer within {seconds:g} s")
    ok, value = outcome[0]
    if ok:
        return value
    raise _failure(what, value) from None


def _failure(what: str, e: BaseException) -> ClusterError:
    """The one `Error:` line of an exception raised by distributed while doing `what`."""
    return ClusterError(f"--dask: {what} ({type(e).__name__}: {brief(str(e))})")


def _silence_distributed():
    """distributed's log lines (a task's traceback, "Couldn't gather 1 keys, rescheduling",
    cancelled futures at Ctrl-C) would bury the one `Error:` line or follow the last line. Its
    config gives some loggers levels of their own (distributed.client: warning), so its stream
    handlers are silenced too."""
    root = logging.getLogger("distributed")
    root.setLevel(logging.CRITICAL)
    for handler in root.handlers:
        handler.setLevel(logging.CRITICAL)
    logging.getLogger("asyncio").addFilter(_drop_distributed_task_errors)


def _drop_distributed_task_errors(record: logging.LogRecord) -> bool:
    """asyncio reports an exception of one of distributed's own tasks that nobody awaited
    ("Task exception was never retrieved": distributed.client.AllExit when a wait ends because
    the cluster lost its last worker) with a traceback after wsim's `Error:` line; wsim has said
    what happened, so those records are dropped, and every other asyncio record is kept."""
    exc = record.exc_info[1] if record.exc_info else None
    return exc is None or not type(exc).__module__.startswith("distributed")


@dataclass
class Cluster:
    """A connected client (and the local cluster it started, if any)."""

    client: object
    local: object | None
    address: str

    @property
    def workers(self) -> int:
        """How many workers the scheduler has now (ClusterError if it does not answer)."""
        info = _within(STEP_SECONDS, f"asking the scheduler at {brief(self.address)} for its workers",
                       self.client.scheduler_info, n_workers=0)
        return info["n_workers"]

    @property
    def dashboard(self) -> str | None:
        try:  # a remote scheduler is asked for it
            return _within(STEP_SECONDS, "asking the scheduler for its dashboard", getattr, self.client,
                           "dashboard_link")
        except ClusterError:  # no dashboard (bokeh missing or disabled), or no answer: only the link is lost
            return None

    def submit(self, function, *args):
        """A task of function(*args) (a new key each time: a task played again is a new task);
        the call does not wait on the network."""
        try:
            return self.client.submit(function, *args, pure=False)
        except Exception as e:  # a client closed meanwhile (the scheduler lost)
            raise _failure(f"submitting a task to the cluster at {brief(self.address)}", e) from None

    def close(self):
        """Close the client, then the local cluster if any. Best effort: the command's outcome
        is decided by then, and an error here would hide it. Signals wait until both are closed
        (or their deadlines pass): a cluster left half-closed would be closed again by
        distributed's exit hook, with a traceback after wsim's last line."""
        with signals.deferred():
            for what, part in (("closing the client", self.client), ("closing the local cluster", self.local)):
                if part is not None:
                    try:
                        _within(STEP_SECONDS, what, part.close)
                    except ClusterError:
                        pass


def _new_client(client_type, where):
    """A connected Client of distributed. One whose constructor fails (a peer that answers but
    is no scheduler: it once tried to allocate 2.8 EiB) is still an object, which its
    destructor would close at exit: 20 s later, with a traceback after wsim's `Error:` line. So
    it is closed here, within a deadline, and its destructor silenced."""
    try:
        # set_as_default=False: nothing of wsim looks the client up, and a client left half-made
        # by a passed deadline is then not closed again at exit
        return client_type(where, timeout=CONNECT_SECONDS, set_as_default=False)
    except BaseException as e:
        tb = e.__traceback__
        while tb is not None:
            half = tb.tb_frame.f_locals.get("self")
            if isinstance(half, client_type):
                _abandon(half)
                break
            tb = tb.tb_next
        raise


def _abandon(client):
    """Close a client that failed, giving it CLOSE_SECONDS, then mark it closed: its destructor
    then does nothing (neither waits for a peer that will not answer nor prints a traceback)."""
    try:
        _within(CLOSE_SECONDS, "closing the client", client.close, timeout=CLOSE_SECONDS)
    except ClusterError:
        pass
    client.status = "closed"


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


@contextmanager
def optional_cluster(address: str | None, threads: int | None):
    """The cluster of a --dask value for the block, connected first (before a command touches its
    folder: a refusal writes nothing) and closed after; None without --dask."""
    if address is None:
        yield None
        return
    cluster = connect(address, threads or 1)
    try:
        yield cluster
    finally:
        cluster.close()


def connect(address: str, threads: int = 1) -> Cluster:
    """Connect to the cluster of a --dask value, or start the local one; ClusterError if it
    cannot be reached within CONNECT_SECONDS, has no worker, or a worker cannot run `threads`
    kernel threads or runs another wsim."""
    kind, where = parse_address(address)
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError(f"--dask needs the dask extra: {EXTRA}") from None
    except Exception as e:  # distributed reads the user's Dask configuration files as it is imported
        raise _failure("importing distributed", e) from None
    _silence_distributed()
    reach = f"cannot use the cluster at {brief(address)}"
    local = client = None
    try:
        if kind == "local":
            _start_resource_tracker()
            # Signals wait until the start is over: a LocalCluster interrupted while it starts
            # cannot be closed (distributed's exit hook then fails on it, and a worker process
            # caught half-started can hold the exit).
            with signals.deferred():
                # worker processes, one thread each: a kernel call uses the threads --threads gives it
                local = _within(STEP_SECONDS, f"starting a local cluster of {where} workers", LocalCluster,
                                n_workers=where, threads_per_worker=1, processes=True, dashboard_address=":0",
                                silence_logs=logging.CRITICAL)
                local.shutdown_on_close = False  # Cluster.close closes it, not the exit hook
            where = local
        client = _within(CONNECT_SECONDS, reach, _new_client, Client, where)
        cluster = Cluster(client, local, address)
        if kind == "remote":  # distributed's own timeout, with its message, comes first
            _within(2 * CONNECT_SECONDS, f"{reach}: no worker", client.wait_for_workers, 1, timeout=CONNECT_SECONDS)
        check_workers(cluster, threads)
    except BaseException:
        if client is not None or local is not None:
            Cluster(client, local, address).close()
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
    found = _within(STEP_SECONDS, "asking the workers for their versions", cluster.client.run, worker_facts)
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
    worker's seconds, how many workers compiled). One task pinned to each worker, not
    client.run: a task runs in the worker's threads, so a compile of many seconds does not
    stop the worker answering the scheduler."""
    client = cluster.client
    info = _within(STEP_SECONDS, f"asking the scheduler at {brief(cluster.address)} for its workers",
                   client.scheduler_info)
    futures = [client.submit(load_kernels, data_text, run_meta, workers=[address], allow_other_workers=False,
                             pure=False) for address in info["workers"]]
    try:
        found = _within(KERNELS_SECONDS, "loading the kernels on the workers", client.gather, futures)
    finally:
        for future in futures:
            future.release()
    return max((s for s, _ in found), default=0.0), sum(1 for _, c in found if c)


def play_parts(cluster: Cluster, task, data_text: bytes, run_meta: dict, todo: list, threads: int):
    """Play every part of `todo` as a task(data_text, run_meta, index, threads) (the files
    layer's part_task, wsim.dataset.play) and yield (index, part bytes) as they complete
    (_results)."""
    inputs = [cluster.submit(carried, value) for value in (data_text, run_meta)]
    try:
        yield from _results(cluster, {index: (task, (*inputs, index, threads)) for index in todo},
                            lambda index: f"part {index}")
    finally:
        for future in inputs:
            future.release()


RANGE_GAMES = 2_000  # games per ladder task at most: enough tasks to share among workers


def play_ranges(cluster: Cluster, data_text: bytes, ranges: list, threads: int, on_progress=None,
                sets: bool = False) -> list:
    """The res rows of each (Settings, first, games) of `ranges`, played as tasks of at most
    RANGE_GAMES games, returned in the order of `ranges` (sets: as play_range)."""
    import numpy as np

    def task(i, data, at, games):
        return play_range, (data, ranges[i][0], at, games, threads, sets)

    return [np.concatenate(p) for p in _range_results(cluster, data_text, ranges, task, on_progress)]


def record_ranges(cluster: Cluster, data_text: bytes, model: bytes, ranges: list, rate: float, explore: float,
                  threads: int, on_progress=None) -> list:
    """(inputs, facts) of each (Settings, first, games, tape seed) of `ranges` (wsim.run.tape.record),
    recorded as tasks of at most RANGE_GAMES games, in the order of `ranges`: the arrays a local
    record gives (a game's sampling is keyed on the game alone). model: the bytes of the learned
    seats' model file, or b""."""
    import numpy as np

    held = cluster.submit(carried, model)

    def task(i, data, at, games):
        settings, _, _, tape_seed = ranges[i]
        return record_range, (data, held, settings, at, games, rate, explore, tape_seed, threads)

    try:
        pieces = _range_results(cluster, data_text, ranges, task, on_progress)
    finally:
        held.release()
    return [(np.concatenate([p[0] for p in part]), np.concatenate([p[1] for p in part])) for part in pieces]


def _range_results(cluster: Cluster, data_text: bytes, ranges: list, task, on_progress) -> list:
    """The games (first, games: a range's second and third entries) of each range of `ranges` as
    tasks of at most RANGE_GAMES games (task(i, data, first, games): range i's (function, args));
    returns per range its tasks' results in game order, on_progress(games) as each completes."""
    data = cluster.submit(carried, data_text)
    tasks, sizes = {}, {}
    for i, (_, first, games, *_) in enumerate(ranges):
        for at in range(first, first + games, RANGE_GAMES):
            sizes[(i, at)] = min(RANGE_GAMES, first + games - at)
            tasks[(i, at)] = task(i, data, at, sizes[(i, at)])
    done: dict = {}
    try:
        with closing(_results(cluster, tasks, lambda tag: f"the task of games {tag[1]}.. of block {tag[0]}")) as run:
            for tag, result in run:
                done[tag] = result
                if on_progress:
                    on_progress(sizes[tag])
    finally:
        data.release()
    return [[done[key] for key in sorted(k for k in done if k[0] == i)] for i in range(len(ranges))]


_LOST = object()  # a finished task's result that died with its worker before the client had it


def _results(cluster: Cluster, tasks: dict, name):
    """Submit each task of `tasks` ({tag: (function, args)}) and yield (tag, its result) as they
    complete; name(tag) names a task in messages. The tasks still on the cluster are cancelled
    when the generator is closed.

    Dask plays again a task whose worker dies, even after it finished if its result was not
    fetched yet; the fetch waits for that only until STEP_SECONDS pass, and the task is then
    submitted anew, RERUNS times at most. A task that fails for good, a scheduler that stops
    answering, or a cluster left without any worker for WORKERLESS_SECONDS ends the run with a
    ClusterError; the parts already written are whole."""
    client = cluster.client
    completed: queue.SimpleQueue = queue.SimpleQueue()
    running: dict = {}  # future -> (tag, reruns so far)

    def submit(tag, reruns: int):
        function, args = tasks[tag]
        future = cluster.submit(function, *args)
        running[future] = (tag, reruns)
        future.add_done_callback(completed.put)  # called in a thread of distributed's

    for tag in tasks:
        submit(tag, 0)
    last_worker = time.monotonic()
    try:
        while running:
            try:
                future = completed.get(timeout=POLL_SECONDS)
            except queue.Empty:
                if cluster.workers:  # also the scheduler's sign of life while long tasks play
                    last_worker = time.monotonic()
                elif time.monotonic() - last_worker > WORKERLESS_SECONDS:
                    raise ClusterError(f"--dask: the cluster at {brief(cluster.address)} has had no worker for "
                                       f"{WORKERLESS_SECONDS:g} s") from None
                continue
            last_worker = time.monotonic()  # a task completed: the cluster had a worker
            tag, reruns = running.pop(future)
            result = _result(cluster, future, name(tag))
            future.release()
            if result is _LOST:
                if reruns == RERUNS:
                    raise ClusterError(f"--dask: {name(tag)} was lost with its worker {RERUNS + 1} times")
                submit(tag, reruns + 1)
                continue
            yield tag, result
    finally:
        if running:
            try:
                _within(STEP_SECONDS, "cancelling the tasks left", client.cancel, list(running))
            except ClusterError:  # best effort: closing the client releases them too
                pass


def _result(cluster: Cluster, future, what: str):
    """The result of a task that is done, or _LOST if it died with its worker before it was
    fetched; ClusterError if the task failed or was cancelled, or its worker does not send it."""
    if future.status == "finished":
        try:
            return future.result(timeout=STEP_SECONDS)
        except Exception as e:  # lost or cancelled meanwhile, then the status says which
            if future.status == "finished":
                raise _failure(f"fetching {what}", e) from None
    if future.status in ("lost", "pending"):
        return _LOST
    if future.status == "cancelled" and cluster.client.status != "running":  # every task was cancelled
        raise ClusterError(f"--dask: lost the connection to the scheduler at {brief(cluster.address)}")
    _raise_task_error(future, what)


def _raise_task_error(future, what: str):
    try:
        future.result(timeout=STEP_SECONDS)  # an error or a cancel is already on the client
    except WsimError as e:
        raise ClusterError(f"--dask: {what} failed on a worker: {e}") from None
    except Exception as e:  # KilledWorker after repeated losses, or a bug: either way it will not go away
        raise ClusterError(f"--dask: {what} failed on a worker ({type(e).__name__}: {brief(str(e))})") from None
    raise ClusterError(f"--dask: {what} ended as {future.status}")
