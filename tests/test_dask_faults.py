"""Faults of `--dask` on real Dask components (INTERFACES §0 and §2): a tls:// address, a signal
while the local cluster starts, a hangup of the whole process group. Each ends with the promised
exit status and last stderr line, in seconds (a process still running after its limit fails the
test instead of hanging it), and leaves only whole parts."""

import os
import signal
import subprocess
import time

import pytest

from conftest import last_error_line, run_cli
from test_dask import _run_under_way, _wsim

pytestmark = pytest.mark.system
distributed = pytest.importorskip("distributed", reason="the dask extra is part of make test's install",
                                  exc_type=ImportError)
import psutil  # noqa: E402  (distributed's own dependency)


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


def test_tls_is_refused_before_anything_starts(tmp_path):
    """R6: wsim takes no certificates, and distributed needs them for tls://."""
    result = run_cli("simulate", "--games", "10", "--dask", "tls://127.0.0.1:1", "--out", str(tmp_path / "d"))
    assert result.exit_code == 2
    assert last_error_line(result).startswith("Error: --dask: tls:// is not supported")
    assert not (tmp_path / "d").exists()


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
