"""Datasets nothing can lose (docs/interfaces.md §0, §2): faults injected at every step of a commit, a
real second writer, real signals and `kill -9`, `--resume`, `wsim check`, a real mount point.

Each test asserts the invariant: the exit status, the last `Error:` line, and the folder byte for
byte the old dataset or the one an uninterrupted run writes.
"""

import errno
import json
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from clikit import last_error_line, run_cli, tmpfs
from wsim import RULES_VERSION
from wsim.dataset import folder as folder_mod
from wsim.kernels.policy import P_COUNT

WSIM = [sys.executable, "-c", "from wsim.cli.entry import run; run()"]
OLD = ["--games", "30", "--players", "3", "--chunk-size", "10", "--seed", "1", "--threads", "1"]
NEW = ["--games", "40", "--players", "4", "--chunk-size", "10", "--seed", "5", "--threads", "1"]


def simulate(out, *args):
    return run_cli("simulate", "--out", str(out), *args)


def snapshot(out: Path) -> dict:
    """Every file of the folder but the lock, by name: what a reader or a later run could see."""
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and p.name != folder_mod.LOCK}


@pytest.fixture(scope="module")
def expected(tmp_path_factory):
    """The old and the new dataset as uninterrupted runs write them."""
    base = tmp_path_factory.mktemp("expected")
    assert simulate(base / "old", *OLD).exit_code == 0
    assert simulate(base / "new", *NEW).exit_code == 0
    return snapshot(base / "old"), snapshot(base / "new")


def old_dataset(tmp_path) -> Path:
    out = tmp_path / "ds"
    assert simulate(out, *OLD).exit_code == 0
    return out


@contextmanager
def lock_held_by_another_process(out: Path, name: str = folder_mod.LOCK):
    """A real second process holding the lock file DIR/NAME (a folder's by default) until the
    block ends."""
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, os, time\n"
        f"fd = os.open({str(out / name)!r}, os.O_RDWR)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "print('locked', flush=True)\n"
        "time.sleep(60)\n")], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        yield
    finally:
        holder.kill()
        holder.wait()


class Crash(BaseException):
    """Stands for `kill -9`: nothing after it runs, no handler, no clean-up."""


def count_replaces(monkeypatch, tmp_path) -> int:
    """How many os.replace calls a clean --overwrite of OLD by NEW makes (parts, journal, commit)."""
    out = old_dataset(tmp_path / "count")
    calls = []
    real = os.replace
    monkeypatch.setattr(os, "replace", lambda a, b: (calls.append(1), real(a, b))[1])
    assert simulate(out, *NEW, "--overwrite").exit_code == 0
    monkeypatch.setattr(os, "replace", real)
    return len(calls)


@pytest.mark.parametrize("code", [errno.EXDEV, errno.ENOSPC])
def test_a_failed_rename_at_any_step_keeps_the_old_dataset(tmp_path, monkeypatch, expected, code):
    """F1/F2: os.replace fails once, at the k-th call, for every k over the writes and the commit."""
    old, _ = expected
    real = os.replace
    n = count_replaces(monkeypatch, tmp_path)
    assert n == 4 + 1 + 1 + 4 + 5  # 4 parts + manifest staged, journal, 4 old aside, 5 new in
    for k in range(n):
        out = old_dataset(tmp_path / f"k{k}")
        calls = []

        def failing(a, b):
            calls.append(1)
            if len(calls) == k + 1:
                raise OSError(code, os.strerror(code), str(a))
            return real(a, b)

        monkeypatch.setattr(os, "replace", failing)
        result = simulate(out, *NEW, "--overwrite")
        monkeypatch.setattr(os, "replace", real)
        assert result.exit_code == 2, (k, result.output)
        line = last_error_line(result)
        assert line.startswith("Error: --out: cannot ") and os.strerror(code) in line, (k, line)
        if k >= 6:  # inside the commit: rolled back there and then
            assert line.endswith("the old dataset is kept"), line
        assert snapshot(out) == old, k
        assert run_cli("check", str(out)).stdout.startswith("ok: 30 games, 90 rows")


def test_a_commit_that_cannot_roll_back_is_finished_by_the_next_command(tmp_path, monkeypatch, expected):
    """Every rename from the k-th on fails (the disk went away): the journal stays, and the next
    command writing there finishes the commit before anything else. (From k = 7 on: when the
    commit's first rename fails there is nothing to roll back, which the test above covers.)"""
    old, new = expected
    real = os.replace
    for k in range(7, 15):
        out = old_dataset(tmp_path / f"k{k}")
        calls = []

        def failing(a, b):
            calls.append(1)
            if len(calls) > k:
                raise OSError(errno.EIO, os.strerror(errno.EIO), str(a))
            return real(a, b)

        monkeypatch.setattr(os, "replace", failing)
        result = simulate(out, *NEW, "--overwrite")
        monkeypatch.setattr(os, "replace", real)
        assert result.exit_code == 2
        assert "the next wsim command" in last_error_line(result)
        check = run_cli("check", str(out))
        assert check.exit_code == 1 and "interrupted --overwrite" in check.stdout
        resumed = simulate(out, "--resume")
        assert resumed.exit_code == 0, resumed.output
        assert "nothing played" in resumed.stdout
        assert snapshot(out) == new


@pytest.mark.parametrize("k", range(15))
def test_kill_at_any_step_of_an_overwrite_is_recovered(tmp_path, monkeypatch, expected, k):
    """A crash (no clean-up at all) at the k-th rename: the next command leaves the whole old
    dataset (crash before the journal) or the whole new one (after it)."""
    old, new = expected
    out = old_dataset(tmp_path)
    real = os.replace
    calls = []

    def crashing(a, b):
        calls.append(1)
        if len(calls) == k + 1:
            raise Crash
        return real(a, b)

    monkeypatch.setattr(os, "replace", crashing)
    monkeypatch.setattr(folder_mod.OutputFolder, "abort", lambda self: None)
    with pytest.raises(Crash):
        simulate(out, *NEW, "--overwrite")
    monkeypatch.undo()
    resumed = simulate(out, "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert snapshot(out) == (old if k < 6 else new)
    assert not (out / folder_mod.STAGING).exists()


@pytest.mark.system
def test_overwrite_refuses_part_files_not_written_by_wsim(tmp_path, expected):
    """F2: a folder (or a foreign file) named like a part is not wsim's: refused, nothing moved."""
    old, _ = expected
    out = old_dataset(tmp_path)
    (out / "part-00050.parquet").mkdir()
    before = snapshot(out)
    result = simulate(out, *NEW, "--overwrite")
    assert result.exit_code == 2
    assert "part-00050.parquet is not a readable wsim part" in last_error_line(result)
    assert snapshot(out) == before
    (out / "part-00050.parquet").rmdir()
    (out / "part-00003.parquet").write_bytes(b"not parquet")
    result = simulate(out, *NEW, "--overwrite")
    assert result.exit_code == 2 and "part-00003.parquet is not a readable wsim part" in last_error_line(result)


def test_leftover_temporary_files_are_cleaned_not_foreign(tmp_path, expected):
    _, new = expected
    out = tmp_path / "ds"
    out.mkdir()
    (out / ".part-00000.parquet.tmp").write_bytes(b"half a part")
    (out / ".wsim-lock").write_bytes(b"")
    result = simulate(out, *NEW)
    assert result.exit_code == 0 and "warning" not in result.stderr
    assert snapshot(out) == new


@pytest.mark.system
def test_a_second_writer_is_refused(tmp_path, expected):
    """F3: a real second process holds the lock: exit 2, the folder untouched; check says incomplete."""
    old, _ = expected
    out = old_dataset(tmp_path)
    with lock_held_by_another_process(out):
        for args in (NEW + ["--overwrite"], NEW + ["--resume"], NEW):
            result = simulate(out, *args)
            assert result.exit_code == 2
            assert last_error_line(result) == f"Error: {out} is being written by another wsim run"
        check = run_cli("check", str(out))
        assert check.exit_code == 1 and check.stdout.splitlines()[-1] == "incomplete: 30 of 30 games"
    assert snapshot(out) == old
    assert simulate(out, *NEW, "--overwrite").exit_code == 0


@pytest.mark.system
def test_overwrite_on_a_mount_point(tmp_path, expected):
    """F1: --out is a filesystem of its own (a real tmpfs mount; CI runs as root)."""
    _, new = expected
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    with tmpfs(mnt, "size=16m"):
        assert simulate(mnt, *OLD).exit_code == 0
        result = simulate(mnt, *NEW, "--overwrite")
        assert result.exit_code == 0, result.output
        assert snapshot(mnt) == new


def test_out_errors(tmp_path):
    """F9 and the weak points: no traceback, exit 2, a named option, nothing written."""
    long_name = tmp_path / ("a" * 300)
    cases = [
        (["--out", str(long_name)], "File name too long"),
        (["--out", ""], "--out: must name a folder"),
        (["--out", str(tmp_path / "x"), "--chunk-size", "1000001"], "Invalid value for '--chunk-size'"),
        (["--out", str(tmp_path / "x"), "--games", str(2**63)], "Invalid value for '--games'"),
        (["--out", str(tmp_path / "x"), "--overwrite", "--resume"], "--overwrite and --resume"),
    ]
    for args, message in cases:
        result = run_cli("simulate", "--games", "5", *args)
        assert result.exit_code == 2, args
        assert last_error_line(result).startswith("Error: ") and message in last_error_line(result), args
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    for command in (["replay", str(long_name), "--game", "1"], ["check", str(long_name)]):
        result = run_cli(*command)
        assert result.exit_code == 2 and "File name too long" in last_error_line(result), command
    help_text = run_cli("simulate", "--help").stdout
    assert "at most 1,000,000" in help_text and "2^63 - 1" in help_text


# ---------------------------------------------------------------------------------------------
# --resume and wsim check

def test_resume_rules(tmp_path, expected):
    old, _ = expected
    out = old_dataset(tmp_path)
    manifest = json.loads((out / "_wsim_manifest.json").read_text())
    # a complete dataset: nothing played; the summary covers it all
    done = simulate(out, "--resume")
    assert done.exit_code == 0 and done.stdout.startswith("30 games of 3 players (random): the dataset was complete")
    # a manifest that contradicts its parts, or is damaged, is not rewritten to agree with them
    # (`wsim check` calls the dataset damaged; --resume refuses it and changes nothing)
    text = (out / "_wsim_manifest.json").read_text()
    doctored = text.replace(f'"rules_version": {RULES_VERSION}', f'"rules_version": {RULES_VERSION - 1}')
    for bad, said in ((doctored, f"says rules_version {RULES_VERSION - 1} but its parts say {RULES_VERSION}"),
                      ("{not json", "not a readable manifest")):
        (out / "_wsim_manifest.json").write_text(bad)
        result = simulate(out, "--resume")
        assert result.exit_code == 2 and said in last_error_line(result) and "wsim check" in last_error_line(result)
        assert (out / "_wsim_manifest.json").read_text() == bad
    (out / "_wsim_manifest.json").write_text(text)
    # a dataset from before manifests: it gets its manifest
    (out / "_wsim_manifest.json").unlink()
    assert simulate(out, "--resume", "--seed", "1").exit_code == 0
    assert json.loads((out / "_wsim_manifest.json").read_text()) == manifest
    # an explicit option that differs from the dataset's
    for args, shown in ((["--seed", "2"], "--seed is 2"), (["--games", "31"], "--games is 31"),
                        (["--policy", "greedy"], "--policy is greedy,greedy,greedy"),
                        (["--chunk-size", "5"], "--chunk-size is 5"), (["--players", "4"], "--players is 4")):
        (out / "part-00001.parquet").unlink()
        result = simulate(out, "--resume", *args)
        assert result.exit_code == 2 and shown in last_error_line(result), args
        assert simulate(out, "--resume").exit_code == 0
        assert snapshot(out) == old
    # parts of another wsim version
    (out / "part-00001.parquet").unlink()
    tamper(out, wsim_version="0.0.9")
    tamper(out, wsim_version="0.0.9", name="part-00002.parquet")
    result = simulate(out, "--resume")
    assert result.exit_code == 2 and "written with wsim_version '0.0.9'" in last_error_line(result)
    # a missing folder is a normal run
    assert simulate(tmp_path / "fresh", "--resume", *OLD).exit_code == 0
    assert snapshot(tmp_path / "fresh") == old
    # a folder of foreign files only
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    result = simulate(tmp_path / "other", "--resume")
    assert result.exit_code == 2 and "holds no wsim dataset to resume" in last_error_line(result)
    # an unfinished run without --resume
    (out / "_wsim_manifest.json").unlink()
    result = simulate(out, *OLD)
    assert result.exit_code == 2 and "use --resume to complete it" in last_error_line(result)


def test_resume_with_an_edited_data_file_uses_the_data_the_dataset_carries(tmp_path, data_doc):
    import yaml

    doc = json.loads(json.dumps(data_doc))
    next(c for c in doc["cards"] if c["name"] == "Altar")["points"] = 7
    edited = tmp_path / "edited.yaml"
    edited.write_text(yaml.safe_dump(doc, sort_keys=False))
    full = tmp_path / "full"
    assert run_cli("--data", str(edited), "simulate", "--out", str(full), *OLD).exit_code == 0
    part = tmp_path / "part"
    assert run_cli("--data", str(edited), "simulate", "--out", str(part), *OLD).exit_code == 0
    (part / "part-00002.parquet").unlink()
    (part / "_wsim_manifest.json").unlink()
    edited.unlink()  # the data file is gone: the dataset carries its text
    result = simulate(part, "--resume")
    assert result.exit_code == 0, result.output
    assert snapshot(part) == snapshot(full)
    assert run_cli("replay", str(part), "--game", "3").exit_code == 0
    other = run_cli("--data", str(tmp_path / "missing.yaml"), "simulate", "--out", str(part), "--resume")
    assert other.exit_code == 2


def test_check_reports(tmp_path, expected):
    out = old_dataset(tmp_path)
    ok = run_cli("check", str(out))
    assert (ok.exit_code, ok.stdout) == (0, "ok: 30 games, 90 rows\n")
    part = out / "part-00001.parquet"
    data = part.read_bytes()
    part.write_bytes(data[:-9] + bytes([data[-9] ^ 1]) + data[-8:])
    damaged = run_cli("check", str(out))
    assert damaged.exit_code == 1
    assert damaged.stdout.splitlines() == [f"{part}: checksum differs from the manifest (the file changed)",
                                           "damaged: 1 problems"]
    part.write_bytes(data)
    (out / "part-00007.parquet").write_bytes(data)
    (out / ".part-00008.parquet.tmp").write_bytes(b"")
    (out / "notes.txt").write_text("foreign files are not stray")
    stray = run_cli("check", str(out))
    assert stray.exit_code == 1 and stray.stdout.splitlines()[-1] == "damaged: 2 problems"
    (out / "part-00007.parquet").unlink()
    (out / ".part-00008.parquet.tmp").unlink()
    (out / "_wsim_manifest.json").unlink()
    part.unlink()
    incomplete = run_cli("check", str(out))
    assert incomplete.exit_code == 1 and incomplete.stdout.splitlines()[-1] == "incomplete: 20 of 30 games"
    for target in (tmp_path / "missing", out / "notes.txt"):
        result = run_cli("check", str(target))
        assert result.exit_code == 2 and last_error_line(result).startswith("Error: ")
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run_cli("check", str(empty))
    assert result.exit_code == 2 and "no wsim dataset here" in last_error_line(result)


def test_check_compares_every_part_with_the_manifest(tmp_path):
    out = old_dataset(tmp_path)
    manifest = json.loads((out / "_wsim_manifest.json").read_text())
    manifest["wsim"]["seed"] = 99
    manifest["parts"][0]["rows"] = 1
    (out / "_wsim_manifest.json").write_text(json.dumps(manifest))
    result = run_cli("check", str(out))
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1] == "damaged: 4 problems"  # 3 metadata + 1 rows


# ---------------------------------------------------------------------------------------------
# Untrusted metadata (F4)

def tamper(out: Path, name="part-00000.parquet", **edits):
    """Rewrite a part's `wsim` metadata as a hostile dataset would."""
    path = out / name
    table = pq.read_table(path)
    meta = json.loads(table.schema.metadata[b"wsim"])
    meta.update(edits)
    pq.write_table(table.replace_schema_metadata({"wsim": json.dumps(meta)}), path)


@pytest.mark.parametrize("edits, message", [
    ({"players": 8, "policies": [{"name": "random", "params": [0] * P_COUNT}] * 8}, "--players: must be a whole number from 2 to 7, got 8"),
    ({"players": 30, "policies": [{"name": "random", "params": [0] * P_COUNT}] * 30}, "--players: must be a whole number from 2 to 7"),
    ({"players": 1, "policies": [{"name": "random", "params": [0] * P_COUNT}] * 1}, "--players: must be a whole number from 2 to 7, got 1"),
    ({"players": 2}, "--policies: needs exactly 2 names"),
    ({"players": "4"}, "--players: must be a whole number from 2 to 7, got '4'"),
    ({"players": 8}, "--players: must be a whole number from 2 to 7"),
    ({"games": "abc"}, "--games: must be a whole number"),
    ({"policies": [{"name": "random", "params": [0] * P_COUNT}] * 2}, "--policies: needs exactly 3 names"),
    ({"policies": [{"name": "clever", "params": [0] * P_COUNT}] * 3}, "unknown policy 'clever'"),
    ({"policies": ["random"] * 3}, "policies: expected a list of {name, params}"),
    ({"policies": [{"name": "greedy", "params": [1] * 9}] * 3}, f"parameters must be 3 lists of {P_COUNT}"),
    ({"wonders": "fixed:atlantis,giza,rhodes"}, "unknown wonder 'atlantis'"),
    ({"sides": "C"}, "--sides: must be one of random, A, B, got 'C'"),
    ({"sides": ["A"]}, "--sides: must be one of random, A, B"),
    ({"seed": -1}, "--seed: must be a whole number"),
    ({"seed": 2**70}, "--seed: must be a whole number"),
    ({"manneken_pis": "yes"}, "--manneken-pis: must be True or False"),
    ({"chunk_size": 0}, "--chunk-size: must be a whole number"),
])
def test_replay_checks_dataset_metadata(tmp_path, edits, message):
    out = old_dataset(tmp_path)
    tamper(out, **edits)
    result = run_cli("replay", str(out), "--game", "1")
    assert result.exit_code == 2, result.output
    line = last_error_line(result)
    assert line.startswith("Error: ") and "invalid settings" in line and message in line, line
    resumed = simulate(out, "--resume")
    assert resumed.exit_code == 2 and last_error_line(resumed).startswith("Error: ")


def test_replay_uses_the_recorded_policy_parameters(tmp_path):
    out = tmp_path / "ds"
    assert simulate(out, "--games", "5", "--players", "3", "--policy", "greedy").exit_code == 0
    normal = run_cli("replay", str(out), "--game", "2", "--json")
    tamper(out, policies=[{"name": "greedy", "params": [100, 60, 40, 30, 25] + [0] * (P_COUNT - 5)}] * 2
           + [{"name": "greedy", "params": [0, 0, 0, 900] + [0] * (P_COUNT - 4)}])
    changed = run_cli("replay", str(out), "--game", "2", "--json")
    assert normal.exit_code == changed.exit_code == 0
    assert json.loads(normal.stdout)["events"] != json.loads(changed.stdout)["events"]


# ---------------------------------------------------------------------------------------------
# Real processes: signals, kill -9, closed pipes, start-up

LONG = ["--games", "12000", "--players", "7", "--policy", "greedy", "--chunk-size", "400", "--threads", "1",
        "--seed", "3"]


@pytest.fixture(scope="module")
def long_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("long") / "ds"
    assert simulate(out, *LONG).exit_code == 0
    return snapshot(out)


def start(out, *args, **kw):
    return subprocess.Popen(WSIM + ["simulate", "--out", str(out), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def wait_for_parts(out: Path, n: int, proc, limit=60.0):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and proc.poll() is None:
        if out.is_dir() and sum(1 for p in out.iterdir() if p.name.startswith("part-")) >= n:
            return
        time.sleep(0.01)
    raise AssertionError(f"no {n} parts in time (exit {proc.poll()})")


@pytest.mark.system
@pytest.mark.parametrize("moment", [0, 3, 15])
def test_resume_after_kill_9_equals_an_uninterrupted_run(tmp_path, long_run, moment):
    out = tmp_path / "ds"
    proc = start(out, *LONG)
    if moment:
        wait_for_parts(out, moment, proc)
    else:
        time.sleep(0.3)  # still starting up
    proc.kill()
    proc.wait()
    result = simulate(out, "--resume", *LONG)  # as a batch script would: the same command again
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("12,000 games of 7 players")
    assert snapshot(out) == long_run


@pytest.mark.system
@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)])
def test_signals_clean_up_and_exit_with_their_status(tmp_path, long_run, signum, status):
    out = tmp_path / "ds"
    proc = start(out, *LONG)
    wait_for_parts(out, 2, proc)
    sent = time.monotonic()
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=30)
    assert time.monotonic() - sent < 2.0  # kernel calls are sized by time
    assert proc.returncode == status, err
    assert "Traceback" not in err
    names = [p.name for p in out.iterdir()]
    assert not [n for n in names if n.endswith(".tmp")] and "_wsim_manifest.json" not in names
    assert simulate(out, "--resume").exit_code == 0
    assert snapshot(out) == long_run


@pytest.mark.system
def test_signal_during_an_overwrite_keeps_the_old_dataset(tmp_path, long_run):
    out = tmp_path / "ds"
    assert simulate(out, *OLD).exit_code == 0
    before = snapshot(out)
    proc = start(out, *LONG, "--overwrite")
    wait_for_parts(out / folder_mod.STAGING / "new", 2, proc)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=30)
    assert proc.returncode == 143
    assert snapshot(out) == before and not (out / folder_mod.STAGING).exists()


@pytest.mark.system
def test_ctrl_c_during_start_up_exits_130(tmp_path):
    """F11: from the first line of wsim's code on (the console script installs its handlers before
    it imports anything heavy), never click's "Aborted!" and status 1. The child says when wsim's
    code has started, so a slow machine cannot move the signal into Python's own start-up, where
    wsim cannot act (Python then reports "init_import_site" and exits 1)."""
    ready = ("import sys; from wsim.cli.entry import run; sys.stderr.write('ready\\n'); sys.stderr.flush(); run()")
    for delay, signum, status in ((0.0, signal.SIGINT, 130), (0.1, signal.SIGINT, 130), (0.25, signal.SIGINT, 130),
                                  (0.4, signal.SIGINT, 130), (0.05, signal.SIGTERM, 143), (0.15, signal.SIGHUP, 129)):
        proc = subprocess.Popen([sys.executable, "-c", ready, "simulate", "--games", "200000", "--threads", "1",
                                 "--out", str(tmp_path / f"ds{delay}")], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        assert proc.stderr.readline() == "ready\n"
        time.sleep(delay)
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == status, (delay, err)
        assert "Aborted!" not in err and "Traceback" not in err


@pytest.mark.system
def test_a_closed_pipe_ends_quietly(tmp_path):
    out = tmp_path / "ds"
    assert simulate(out, "--games", "3", "--players", "3").exit_code == 0
    proc = subprocess.Popen(WSIM + ["replay", str(out), "--game", "1"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.close()  # as `| head` does once it has read enough
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141 and err == ""


@pytest.mark.system
def test_sigterm_from_a_thread_in_process(tmp_path, long_run):
    """The console entry point's handlers, in this process: SIGTERM sent from a thread while the
    kernels run ends the command with 143 and only whole parts, which --resume completes."""
    import threading

    from wsim.cli import entry

    out = tmp_path / "ds"
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}

    def send_when_started():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if out.is_dir() and any(p.name.startswith("part-") for p in out.iterdir()):
                break
            time.sleep(0.005)
        os.kill(os.getpid(), signal.SIGTERM)

    sender = threading.Thread(target=send_when_started)
    sender.start()
    try:
        status = entry.main(["simulate", "--out", str(out), *LONG])
    finally:
        sender.join()
        for s, handler in saved.items():
            signal.signal(s, handler)
    assert status == 143
    names = sorted(p.name for p in out.iterdir())
    assert names[0] == ".wsim-lock" and all(n.startswith("part-") for n in names[1:]) and len(names) > 1
    assert simulate(out, "--resume").exit_code == 0
    assert snapshot(out) == long_run


@pytest.mark.system
def test_a_signal_swallowed_by_a_c_callback_still_ends_the_run(tables):
    """llvmlite calls Python back from C while numba loads kernels; an exception raised there by
    the signal handler is swallowed. The signal is remembered and raised after the kernel call,
    and the swallowing prints nothing ("Exception ignored" and a traceback would reach the
    user's terminal), while any other exception C swallows still reaches the hook before."""
    import ctypes

    from wsim import signals
    from wsim.run.runner import Runner
    from wsim.run.settings import Settings

    saved = {s: signal.getsignal(s) for s in signals.HANDLED}
    saved_hook = sys.unraisablehook
    reported = []
    sys.unraisablehook = reported.append
    signals.install()
    try:
        @ctypes.CFUNCTYPE(None)
        def callback():
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(10_000):  # the handler runs in here; ctypes ignores its exception
                pass

        callback()
        assert reported == []
        with pytest.raises(signals.Terminated):
            Runner(tables, Settings(players=3, policies=("random",) * 3)).play(0, 2)
        assert signals.swallowed() is None

        @ctypes.CFUNCTYPE(None)
        def failing():
            raise ValueError("not a signal")

        failing()
        assert [type(u.exc_value) for u in reported] == [ValueError]
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)
        sys.unraisablehook = saved_hook


@pytest.mark.system
def test_a_signal_during_the_commit_waits_for_it(tmp_path, monkeypatch, expected):
    """SIGTERM in the middle of the swap: the swap finishes, the new dataset is whole, exit 143."""
    from wsim.cli import entry

    _, new = expected
    out = old_dataset(tmp_path)
    real = folder_mod.OutputFolder._write_journal

    def journal_then_signal(self, old, names):
        real(self, old, names)
        os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(folder_mod.OutputFolder, "_write_journal", journal_then_signal)
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        status = entry.main(["simulate", "--out", str(out), *NEW, "--overwrite"])
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)
    assert status == 143
    assert snapshot(out) == new


def test_overwrite_never_removes_a_foreign_manifest_name(tmp_path):
    out = old_dataset(tmp_path)
    (out / "_wsim_manifest.json").unlink()
    (out / "_wsim_manifest.json").mkdir()
    (out / "_wsim_manifest.json" / "mine.txt").write_text("keep me")
    result = simulate(out, *NEW, "--overwrite")
    assert result.exit_code == 2 and "is not a wsim manifest" in last_error_line(result)
    assert (out / "_wsim_manifest.json" / "mine.txt").read_text() == "keep me"


def test_a_leftover_staging_folder_alone_does_not_make_a_folder_busy(tmp_path, expected):
    _, new = expected
    out = tmp_path / "ds"
    (out / folder_mod.STAGING / "new").mkdir(parents=True)
    (out / folder_mod.STAGING / "new" / "part-00000.parquet").write_bytes(b"stale")
    result = simulate(out, *NEW)
    assert result.exit_code == 0, result.output
    assert snapshot(out) == new


@pytest.mark.system
def test_check_while_a_run_holds_the_lock_and_stray_temporaries(tmp_path):
    out = old_dataset(tmp_path)
    (out / folder_mod.STAGING / "new").mkdir(parents=True)  # as a live --overwrite has it
    with lock_held_by_another_process(out):
        lines = run_cli("check", str(out)).stdout.splitlines()
        assert not any("interrupted --overwrite" in line for line in lines)
        assert lines[-1] == "incomplete: 30 of 30 games"
    (out / folder_mod.STAGING / "new").rmdir()
    (out / folder_mod.STAGING).rmdir()
    (out / "_wsim_manifest.json").unlink()
    (out / ".part-00003.parquet.tmp").write_bytes(b"")
    lines = run_cli("check", str(out)).stdout.splitlines()
    assert any(".part-00003.parquet.tmp: a temporary file" in line for line in lines)


def test_check_while_a_run_writes_its_first_part(tmp_path, monkeypatch):
    """A run announces its planned games in its lock file, so `wsim check` counts against them
    before any part exists; a lock held with no note leaves the total unknown, not zero."""
    out = tmp_path / "ds"
    seen = []
    real_write = folder_mod.OutputFolder.write

    def write(self, name, blob):
        if not seen:
            seen.append(run_cli("check", str(out)))
        return real_write(self, name, blob)

    monkeypatch.setattr(folder_mod.OutputFolder, "write", write)
    assert simulate(out, *NEW).exit_code == 0
    assert seen[0].exit_code == 1
    assert seen[0].stdout.splitlines() == [f"{out}: being written by a wsim run (its lock is held)",
                                           "incomplete: 0 of 40 games"]
    quiet = tmp_path / "quiet"
    quiet.mkdir()
    (quiet / folder_mod.LOCK).write_bytes(b"")
    with lock_held_by_another_process(quiet):
        check = run_cli("check", str(quiet))
    assert check.exit_code == 1 and check.stdout.splitlines()[-1] == "incomplete: 0 of an unknown number of games"
    # the note goes with the run: the lock file it leaves is empty, as a refused run finds it
    assert (out / folder_mod.LOCK).read_bytes() == b""
