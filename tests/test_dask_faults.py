"""Faults of `--dask` on real Dask components (docs/interfaces.md §0 and §2): a peer that accepts the
connection and never answers, a tls:// address, the only worker lost without a nanny, a signal
while the local cluster starts, a hangup of the whole process group. Each ends with the promised
exit status and last stderr line, in seconds (a process still running after its limit fails the
test instead of hanging it), and leaves only whole parts."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clikit import last_error_line, run_cli
from test_dask import _local, _parts, _run_under_way, _wsim

pytestmark = pytest.mark.system
distributed = pytest.importorskip("distributed", reason="the dask extra is part of make test's install",
                                  exc_type=ImportError)
import psutil  # noqa: E402  (distributed's own dependency)

DASK = Path(sys.executable).parent / "dask"


def _ended(proc: subprocess.Popen, seconds: float) -> tuple:
    """(exit status, stderr) of `proc`, which must end within `seconds`."""
    try:
        _, stderr = proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"wsim still running after {seconds} s")
    return proc.returncode, stderr


def _last_line(stderr: str) -> str:
    return stderr.strip().splitlines()[-1]


def test_a_peer_that_accepts_and_never_answers_is_an_error_at_the_deadline(tmp_path):
    """R4: distributed's own timeout covers the TCP connection, not the handshake after it."""
    with socket.create_server(("127.0.0.1", 0)) as silent:  # the kernel accepts; nobody ever answers
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        proc = _wsim("simulate", "--games", "40", "--dask", address, "--out", str(tmp_path / "d"), CONNECT_SECONDS=2)
        status, stderr = _ended(proc, 30)
    assert status == 2, stderr
    assert _last_line(stderr) == f"Error: --dask: cannot use the cluster at '{address}': no answer within 2 s"
    assert "Traceback" not in stderr
    assert not (tmp_path / "d").exists()


def test_a_peer_that_answers_but_is_no_scheduler_is_one_error_line_at_once(tmp_path):
    """Round 4 (a round-3 variation): a peer that answers with bytes that are not Dask's made the
    client try to allocate exabytes; its `Error:` line was followed, 20 s later, by a traceback
    from the half-made client's destructor."""
    import threading

    with socket.create_server(("127.0.0.1", 0)) as talker:
        def answer():
            for _ in range(4):
                try:
                    conn, _ = talker.accept()
                except OSError:
                    return
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello" * 50)

        threading.Thread(target=answer, daemon=True).start()
        address = f"tcp://127.0.0.1:{talker.getsockname()[1]}"
        started = time.monotonic()
        status, stderr = _ended(_wsim("simulate", "--games", "40", "--dask", address, "--out", str(tmp_path / "d")), 30)
        elapsed = time.monotonic() - started
    assert status == 2, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: --dask: cannot use the cluster at '{address}' ("), stderr
    assert elapsed < 15, elapsed  # not the destructor's 20 s
    assert not (tmp_path / "d").exists()


def test_tls_is_refused_before_anything_starts(tmp_path):
    """R6: wsim takes no certificates, and distributed needs them for tls://."""
    result = run_cli("simulate", "--games", "10", "--dask", "tls://127.0.0.1:1", "--out", str(tmp_path / "d"))
    assert result.exit_code == 2
    assert last_error_line(result).startswith("Error: --dask: tls:// is not supported")
    assert not (tmp_path / "d").exists()


@pytest.fixture
def scheduler():
    """(address, client) of a scheduler without workers: each test starts its own."""
    with distributed.LocalCluster(n_workers=0, processes=True, dashboard_address=":0") as lc:
        with distributed.Client(lc) as client:
            yield lc.scheduler_address, client


@pytest.fixture
def no_nanny(scheduler):
    """start() starts a `dask worker --no-nanny` process (nothing restarts it once killed)."""
    started = []

    def start() -> subprocess.Popen:
        started.append(subprocess.Popen([str(DASK), "worker", scheduler[0], "--no-nanny", "--nthreads", "1"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        return started[-1]

    yield start
    for proc in started:
        proc.kill()
        proc.wait()


def test_the_only_worker_lost_without_a_nanny_costs_no_game(tmp_path, scheduler, no_nanny):
    """R5: the run's inputs (data text, settings) and the parts not yet fetched die with the
    worker; the parts are played again on the worker started next, and the dataset is the local
    run's. (Scattered inputs were forgotten with their only holder: every part left was cancelled.)"""
    address, client = scheduler
    first = no_nanny()
    client.wait_for_workers(1, timeout=60)
    proc, out, args = _run_under_way(tmp_path, address, 5)
    first.kill()
    no_nanny()
    status, stderr = _ended(proc, 120)
    assert status == 0, stderr
    assert _parts(out) == _local(tmp_path, "l", *args)


def test_a_cluster_left_without_workers_ends_the_run_and_resume_completes_it(tmp_path, scheduler, no_nanny):
    """R5: no worker comes back: an `Error:` once WORKERLESS_SECONDS pass, only whole parts are
    left, and `--resume` on a new worker completes the local run's dataset. The deadlines are
    shortened, STEP_SECONDS too: the fetch of a result lost with the worker waits that long."""
    address, client = scheduler
    first = no_nanny()
    client.wait_for_workers(1, timeout=60)
    proc, out, args = _run_under_way(tmp_path, address, 6, POLL_SECONDS=0.2, WORKERLESS_SECONDS=1, STEP_SECONDS=3)
    first.kill()
    status, stderr = _ended(proc, 60)
    assert status == 2, stderr
    assert _last_line(stderr) == f"Error: --dask: the cluster at '{address}' has had no worker for 1 s"
    assert "Traceback" not in stderr
    assert all(p.name.startswith("part-") or p.name == ".wsim-lock" for p in out.iterdir())  # no temporary file
    assert run_cli("check", str(out)).exit_code == 1  # incomplete
    no_nanny()
    result = run_cli("simulate", "--resume", "--dask", address, "--out", str(out))
    assert result.exit_code == 0, result.output
    assert _parts(out) == _local(tmp_path, "l", *args)


def _starting_workers(proc: subprocess.Popen) -> list:
    """The worker processes of wsim's local cluster, once the first one is being started."""
    parent = psutil.Process(proc.pid)
    end = time.monotonic() + 60
    while time.monotonic() < end:
        assert proc.poll() is None, proc.communicate()
        spawned = []
        for child in parent.children():
            try:
                if "spawn_main" in " ".join(child.cmdline()):
                    spawned.append(child)
            except psutil.Error:  # gone, or not yet exec'd
                pass
        if spawned:
            return spawned
        time.sleep(0.01)
    raise AssertionError("no worker process was started")


@pytest.mark.parametrize("signum, status, line", [(signal.SIGINT, 130, "interrupted"),
                                                  (signal.SIGTERM, 143, "terminated by SIGTERM"),
                                                  (signal.SIGHUP, 129, "terminated by SIGHUP")])
def test_a_signal_while_the_local_cluster_starts(tmp_path, signum, status, line):
    """R11: interrupted as it started, the LocalCluster could not be closed; distributed's exit
    hook then printed a traceback after wsim's last line (or a worker caught half-started held
    the exit). The start now ends before the signal is acted on, and the cluster is closed."""
    proc = _wsim("simulate", "--games", "100000", "--dask", "local:1", "--out", str(tmp_path / "d"))
    workers = _starting_workers(proc)
    proc.send_signal(signum)
    code, stderr = _ended(proc, 60)
    assert code == status and _last_line(stderr) == line, stderr
    assert "Traceback" not in stderr and "Exception ignored" not in stderr
    assert not (tmp_path / "d").exists()
    _, alive = psutil.wait_procs(workers, timeout=10)
    assert alive == []


def test_a_hangup_of_the_whole_process_group_mid_run(tmp_path):
    """R11: a closed terminal hangs up wsim and the local cluster's processes together, and with
    them multiprocessing's resource tracker, which ignores SIGINT and SIGTERM but not SIGHUP: the
    tracker started in its place printed a traceback for each semaphore released after wsim's
    last line. Started by wsim with SIGHUP blocked, it lives on."""
    proc, out, _ = _run_under_way(tmp_path, "local:1", 9, new_session=True)
    os.killpg(proc.pid, signal.SIGHUP)
    status, stderr = _ended(proc, 60)
    assert status == 129 and _last_line(stderr) == "terminated by SIGHUP", stderr
    assert "Traceback" not in stderr
    assert all(p.name.startswith("part-") or p.name == ".wsim-lock" for p in out.iterdir())  # no temporary file
    assert run_cli("check", str(out)).exit_code == 1  # incomplete: --resume completes it


def test_asyncio_reports_of_distributed_task_errors_are_dropped():
    """A wait of distributed's that ends when the cluster loses its last worker leaves an
    unretrieved AllExit; asyncio's report of it came after the `Error:` line in 2 of 13 runs of
    the test above (none of 10 since). Only distributed's own exceptions are dropped."""
    import logging

    from distributed.client import AllExit

    from wsim.run.cluster import _drop_distributed_task_errors

    def record(exc):
        return logging.LogRecord("asyncio", logging.ERROR, __file__, 1, "Task exception was never retrieved", None,
                                 (type(exc), exc, None))

    assert _drop_distributed_task_errors(record(AllExit())) is False
    assert _drop_distributed_task_errors(record(ValueError("ours"))) is True
    assert _drop_distributed_task_errors(logging.LogRecord("asyncio", logging.ERROR, __file__, 1, "x", None, None))
