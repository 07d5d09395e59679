"""`--dask` (docs/interfaces.md §2 "Distributed runs") on real Dask components: a LocalCluster of worker
processes, a worker killed with SIGKILL, a client killed and resumed, two tasks at once on one
worker, another wsim version on a worker, a task that fails for good."""

import gc
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clikit import last_error_line, run_cli

pytestmark = pytest.mark.system  # real clusters of worker processes
distributed = pytest.importorskip("distributed", reason="the dask extra is part of make test's install",
                                  exc_type=ImportError)


def _parts(out: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.name.startswith(("part-", "_wsim"))}


def _local(tmp_path, name, *args) -> dict:
    out = tmp_path / name
    result = run_cli("simulate", *args, "--threads", "1", "--out", str(out))
    assert result.exit_code == 0, result.output
    return _parts(out)


@pytest.fixture(scope="module")
def cluster():
    """Two worker processes, one thread each (their nannies restart a killed worker)."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as lc:
        with distributed.Client(lc) as client:
            yield lc, client


def _wsim(*args, new_session: bool = False, **deadlines) -> subprocess.Popen:
    """`wsim ARGS` in a process of its own (and a process group of its own with new_session);
    deadlines: wsim.run.cluster constants (CONNECT_SECONDS=2, ...) shortened in that process, so that
    a test of a deadline takes seconds."""
    shorten = "".join(f"cluster.{name} = {value!r}; " for name, value in deadlines.items())
    start = ["-c", f"from wsim.run import cluster; {shorten}from wsim.cli.entry import run; run()"] if deadlines else \
        ["-m", "wsim"]
    return subprocess.Popen([sys.executable, *start, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=new_session)


def _wait_for_part(out: Path, proc: subprocess.Popen, seconds: float = 120):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if out.exists() and any(p.name.startswith("part-") for p in out.iterdir()):
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError("no part was written in time")


def test_a_local_cluster_writes_the_local_run_byte_for_byte(tmp_path):
    args = ("--games", "3000", "--chunk-size", "400", "--players", "5", "--policy", "greedy", "--seed", "4")
    result = run_cli("simulate", *args, "--dask", "local:2", "--out", str(tmp_path / "d"))
    assert result.exit_code == 0, result.output
    assert _parts(tmp_path / "d") == _local(tmp_path, "l", *args)
    assert "3,000 games of 5 players" in result.stdout
    assert run_cli("check", str(tmp_path / "d")).stdout.startswith("ok: 3000 games")


def _run_under_way(tmp_path, address: str, seed: int, **process) -> tuple:
    """A `wsim simulate --dask` process (`process`: _wsim's options) with its first part
    written: (process, out, options)."""
    args = ("--games", "30000", "--chunk-size", "1250", "--players", "4", "--seed", str(seed))
    out = tmp_path / "d"
    proc = _wsim("simulate", *args, "--dask", address, "--out", str(out), **process)
    _wait_for_part(out, proc)
    return proc, out, args


def test_an_interrupted_cluster_run_cancels_its_tasks_while_the_client_is_open(tmp_path, cluster, monkeypatch):
    """The parts generator is closed (its tasks cancelled) before the client closes: were it left
    to the garbage collector, the cancel would meet a closed event loop and print a traceback
    after wsim's last line (it did, in about one SIGTERM run in ten)."""
    from wsim.dataset.folder import OutputFolder
    from wsim.dataset.write import Request, write_dataset
    from wsim.run.settings import Settings
    from wsim.tables import load

    lc, _ = cluster

    def interrupted(self, name, data):
        raise KeyboardInterrupt

    monkeypatch.setattr(OutputFolder, "write", interrupted)
    unraisable = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    settings = Settings(players=4, policies=("random",) * 4, games=20_000, chunk_size=1_000, seed=3)
    request = Request(load(), settings, "new", dask=lc.scheduler_address)
    with pytest.raises(KeyboardInterrupt) as caught:
        write_dataset(request, tmp_path / "d", progress=False)
    del caught  # its traceback holds the frames that hold a generator left open
    gc.collect()
    assert [u.exc_value for u in unraisable] == []


def test_a_killed_worker_costs_only_its_tasks(tmp_path, cluster):
    lc, client = cluster
    proc, out, args = _run_under_way(tmp_path, lc.scheduler_address, 6)
    victim = next(iter(client.run(os.getpid).values()))
    os.kill(victim, signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    assert _parts(out) == _local(tmp_path, "l", *args)
    client.wait_for_workers(2, timeout=60)  # the nanny restarted it


def test_resume_after_the_client_is_killed(tmp_path, cluster):
    lc, _ = cluster
    proc, out, args = _run_under_way(tmp_path, lc.scheduler_address, 7)
    proc.kill()
    proc.wait()
    assert not (out / "_wsim_manifest.json").exists()
    result = run_cli("simulate", "--resume", "--dask", lc.scheduler_address, "--out", str(out))
    assert result.exit_code == 0, result.output
    assert _parts(out) == _local(tmp_path, "l", *args)


def test_two_tasks_at_once_on_one_worker(tmp_path):
    """A worker with two threads: both tasks run (one kernel call at a time: the kernel thread
    count is a setting of the worker process) and write the local run's parts."""
    args = ("--games", "4000", "--chunk-size", "500", "--players", "3", "--seed", "8")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=True, dashboard_address=":0") as lc:
        result = run_cli("simulate", *args, "--threads", "2", "--dask", lc.scheduler_address,
                         "--out", str(tmp_path / "d"))
    assert result.exit_code == 0, result.output
    assert _parts(tmp_path / "d") == _local(tmp_path, "l", *args)


def _patch_workers(client, module: str, name: str, value):
    """Replace MODULE.NAME in every worker process (the original kept for _restore_workers)."""
    def patch():
        from importlib import import_module

        where = import_module(module)
        where.__dict__.setdefault("_original_" + name, getattr(where, name))
        setattr(where, name, value)

    client.run(patch)


def _restore_workers(client, module: str, name: str):
    def restore():
        from importlib import import_module

        where = import_module(module)
        setattr(where, name, where.__dict__.pop("_original_" + name))

    client.run(restore)


def _other_version():
    return {"wsim_version": "0.0.0-other", "rules_version": 3, "cores": 2}


def _data_error(*args):
    from wsim.compiler import DataError

    raise DataError("the card data says no")


def test_workers_of_another_version_are_refused_before_any_game(tmp_path, cluster):
    lc, client = cluster
    _patch_workers(client, "wsim.run.tasks", "worker_facts", _other_version)
    try:
        result = run_cli("simulate", "--games", "100", "--dask", lc.scheduler_address, "--out", str(tmp_path / "d"))
    finally:
        _restore_workers(client, "wsim.run.tasks", "worker_facts")
    assert result.exit_code == 2
    assert "runs wsim_version '0.0.0-other'" in last_error_line(result)
    assert not (tmp_path / "d").exists()


def test_threads_beyond_a_workers_cores_are_refused_before_any_game(tmp_path, cluster):
    lc, _ = cluster
    result = run_cli("simulate", "--games", "100", "--threads", "512", "--dask", lc.scheduler_address,
                     "--out", str(tmp_path / "d"))
    assert result.exit_code == 2 and "--threads: 512 kernel threads a task, but worker" in last_error_line(result)
    assert not (tmp_path / "d").exists()


def test_a_task_that_fails_for_good_stops_the_run(tmp_path, cluster):
    lc, client = cluster
    _patch_workers(client, "wsim.dataset.play", "part_task", _data_error)
    try:
        result = run_cli("simulate", "--games", "100", "--chunk-size", "50", "--dask", lc.scheduler_address,
                         "--out", str(tmp_path / "d"))
    finally:
        _restore_workers(client, "wsim.dataset.play", "part_task")
    assert result.exit_code == 2
    assert "failed on a worker: the card data says no" in last_error_line(result)
    assert not (tmp_path / "d").exists()  # no part was written: the folder the run created is gone


def test_bad_dask_options(tmp_path, monkeypatch):
    from wsim.cli import options
    from wsim.run import cluster

    monkeypatch.setattr(cluster, "CONNECT_SECONDS", 2)  # nobody listens on port 9: no need to wait 20 s
    for value, message in (("udp://x", "expected tcp://HOST:PORT"), ("local:0", "local:W takes 1..64"),
                           ("tcp://[::1", "expected tcp://HOST:PORT"), ("tcp://host:port", "expected tcp://HOST:PORT"),
                           ("tcp://127.0.0.1:99999", "PORT 1..65535"),
                           ("tcp://127.0.0.1:9", "cannot use the cluster")):
        result = run_cli("simulate", "--games", "10", "--dask", value, "--out", str(tmp_path / "d"))
        assert result.exit_code == 2 and message in last_error_line(result), result.output
        assert not (tmp_path / "d").exists()
    monkeypatch.setattr(options, "find_spec", lambda name: None)
    result = run_cli("simulate", "--games", "10", "--dask", "local:1", "--out", str(tmp_path / "d"))
    assert result.exit_code == 2 and "pip install 'wsim[dask]'" in last_error_line(result)


def test_ladder_ablate_and_rebalance_on_the_cluster_equal_local_runs(tmp_path, cluster):
    lc, _ = cluster
    ladder = ("ladder", "--policies", "random,greedy", "--players", "3", "--games", "2500", "--seed", "2")
    ablate = ("ablate", "--edit", "Altar.points=+6", "--games", "1500", "--chunk-size", "500", "--seed", "3")
    rebalance = ("rebalance", "--players", "3", "--levers", "stages:giza", "--games", "600", "--tolerance", "0.2",
                 "--max-steps", "1", "--seed", "4")
    for args, files in ((ladder, ("ladder.csv", "ratings.csv", "play.csv")),
                        (ablate, ("paired.csv", "cards.csv", "wonders.csv")),
                        (rebalance, ("edits.txt", "result.csv", "path.csv", "path_rates.csv", "cards.yaml"))):
        here = run_cli(*args, "--threads", "1", "--out", str(tmp_path / "here"))
        there = run_cli(*args, "--dask", lc.scheduler_address, "--out", str(tmp_path / "there"))
        assert here.exit_code == 0 and there.exit_code == 0, there.output
        for name in files:
            assert (tmp_path / "here" / name).read_bytes() == (tmp_path / "there" / name).read_bytes(), name
        for name in ("here", "there"):
            shutil.rmtree(tmp_path / name)


def test_learn_on_the_cluster_records_the_local_data_and_fits_the_local_model(tmp_path, cluster):
    """`wsim learn --dask`: the teacher games of both iterations (the second's teacher a model
    file the workers get as bytes) give the local run's data files byte for byte, and so the
    same weights."""
    import numpy as np

    from wsim import tables as tables_mod
    from wsim.run.model import read_model

    lc, _ = cluster
    options = ["--iterations", "2", "--games", "30", "--players", "3,4", "--rate", "0.5", "--hidden", "4",
               "--epochs", "3", "--eval-games", "8", "--seed", "5"]
    here = run_cli("learn", "--out", str(tmp_path / "here.npz"), "--threads", "1", *options)
    there = run_cli("learn", "--out", str(tmp_path / "there.npz"), "--dask", lc.scheduler_address, *options)
    assert here.exit_code == 0 and there.exit_code == 0, there.output
    for k in (0, 1):
        name = f"data-{k}.parquet"
        assert (tmp_path / "here.npz.work" / name).read_bytes() == (tmp_path / "there.npz.work" / name).read_bytes()
    t = tables_mod.load()
    a, b = read_model(tmp_path / "here.npz", t), read_model(tmp_path / "there.npz", t)
    assert all(np.array_equal(getattr(a, k), getattr(b, k)) for k in ("w1", "b1", "w2", "b2"))


def test_sigterm_ends_a_cluster_run_quickly_with_whole_parts(tmp_path, cluster):
    lc, _ = cluster
    proc, out, _ = _run_under_way(tmp_path, lc.scheduler_address, 9)
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 143 and time.monotonic() - sent < 5, stderr
    assert stderr.strip().splitlines()[-1].startswith("terminated by SIGTERM")
    names = [p.name for p in out.iterdir()]
    assert not any(n.startswith(".") and n != ".wsim-lock" for n in names)  # no temporary file
    assert "_wsim_manifest.json" not in names
    assert run_cli("check", str(out)).exit_code == 1  # incomplete, and --resume would finish it
