"""`make verify`: `--dask` against a real `dask scheduler` and two `dask worker` processes started
on 127.0.0.1 as a user would: values equal to a local run, a worker killed mid-run, and --resume."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from test_dask import _local, _parts, _wait_for_part, _wsim

pytestmark = pytest.mark.deep
distributed = pytest.importorskip("distributed", exc_type=ImportError)

BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    where = tmp_path_factory.mktemp("dask")
    file = where / "scheduler.json"
    procs = [subprocess.Popen([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", "0",
                               "--dashboard-address", ":0", "--scheduler-file", str(file)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        end = time.monotonic() + 60
        while not file.exists() and time.monotonic() < end:
            time.sleep(0.1)
        for _ in range(2):
            procs.append(subprocess.Popen([str(BIN / "dask"), "worker", "--scheduler-file", str(file), "--nthreads",
                                           "1", "--nworkers", "1"],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        client = distributed.Client(scheduler_file=str(file), timeout=60)
        client.wait_for_workers(2, timeout=60)
        yield client.scheduler.address, client
        client.close()
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            p.wait(timeout=60)


def test_real_scheduler_and_workers(tmp_path, scheduler):
    address, client = scheduler
    args = ("--games", "200000", "--chunk-size", "5000", "--players", "5", "--seed", "12")
    out = tmp_path / "d"
    proc = _wsim("simulate", *args, "--dask", address, "--out", str(out))
    _wait_for_part(out, proc)
    os.kill(next(iter(client.run(os.getpid).values())), signal.SIGKILL)
    _, stderr = proc.communicate(timeout=600)
    assert proc.returncode == 0, stderr
    expected = _local(tmp_path, "l", *args)
    assert _parts(out) == expected
    client.wait_for_workers(2, timeout=60)

    again = tmp_path / "r"
    proc = _wsim("simulate", *args, "--dask", address, "--out", str(again))
    _wait_for_part(again, proc)
    proc.kill()
    proc.wait()
    proc = _wsim("simulate", "--resume", "--dask", address, "--out", str(again))
    _, stderr = proc.communicate(timeout=600)
    assert proc.returncode == 0, stderr
    assert _parts(again) == expected
