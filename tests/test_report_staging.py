"""Reports appear whole or not at all (N5 of the round-4 findings, issue 36): `balance`,
`ladder` and `rebalance` wrote their files straight into a new folder one by one, so a full disk
or a signal between two files left a report that looked whole (`edits.txt` alone, a balance
report without `paired.csv`). Every report is now staged and swapped in by the one commit
(wsim/dataset/folder.py output_files)."""

import errno
import os

import pytest

import wsim
from wsim.dataset import folder as folder_mod
from wsim.errors import WsimError

from clikit import last_error_line, run_cli, tmpfs


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("staging") / "ds"
    wsim.simulate(games=100, players=3, policies="greedy", threads=1, seed=4, out=str(out))
    return out


def _contents(path):
    """Every file under path but the lock file (which may stay: it is never data)."""
    if not path.exists():
        return {}
    return {p.relative_to(path): p.read_bytes() for p in path.rglob("*") if p.is_file() and p.name != ".wsim-lock"}


def _fail_on_write(monkeypatch, k):
    """Make the k-th durable write (0-based) of the run fail as a full disk does."""
    real, calls = folder_mod.write_durably, []

    def failing(fd, data):
        calls.append(1)
        if len(calls) == k + 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, data)

    monkeypatch.setattr(folder_mod, "write_durably", failing)
    return calls


def test_a_report_that_fails_at_any_write_leaves_the_folder_as_it_was(tmp_path, monkeypatch, dataset):
    """The ladder's three files, then the commit's journal: a failure at each write in turn leaves
    nothing in a new folder, and over an old report the old report byte for byte (the commit is
    output_files', shared by every report). Then the finding's case: `balance --baseline`'s
    fourth file, paired.csv, failing."""
    out = tmp_path / "ladder"

    def run(overwrite=False, seed=0):
        return wsim.ladder("random,greedy", out=str(out), players=3, games=20, threads=1, seed=seed,
                           overwrite=overwrite)

    for k in range(4):
        _fail_on_write(monkeypatch, k)
        with pytest.raises(WsimError, match="No space left on device"):
            run()
        monkeypatch.undo()
        assert not out.exists(), k
    calls = _fail_on_write(monkeypatch, 4)
    run()
    monkeypatch.undo()
    assert len(calls) == 4  # three files and the journal: every write was failed once above
    before = _contents(out)
    assert sorted(str(p) for p in before) == ["ladder.csv", "play.csv", "ratings.csv"]
    for k in range(4):
        _fail_on_write(monkeypatch, k)
        with pytest.raises(WsimError, match="No space left on device"):
            run(overwrite=True, seed=1)
        monkeypatch.undo()
        assert _contents(out) == before and not (out / folder_mod.STAGING).exists(), k
    _fail_on_write(monkeypatch, 3)
    with pytest.raises(WsimError, match=r"cannot write .*paired\.csv \(No space left on device\)"):
        wsim.balance(dataset, baseline=dataset, out=str(tmp_path / "paired"))
    assert not (tmp_path / "paired").exists()


@pytest.mark.slow
def test_a_rebalance_report_that_fails_at_its_second_file_writes_nothing(tmp_path, monkeypatch):
    """RB38: `edits.txt` alone was left in a new --out."""
    out = tmp_path / "r"
    _fail_on_write(monkeypatch, 1)
    result = run_cli("rebalance", "--threads", "1", "--players", "3", "--games", "300", "--max-steps", "1",
                     "--levers", "stages:rhodes,olympia", "--out", str(out))
    assert result.exit_code == 2
    assert "No space left on device" in last_error_line(result)
    assert not out.exists()


@pytest.mark.system
def test_balance_on_a_full_disk_leaves_no_partial_report(tmp_path, dataset):
    """BAN5, on a real full filesystem (a small tmpfs; skipped where mounting is refused)."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    with tmpfs(mnt, "size=4m"):
        report = wsim.balance(dataset, baseline=dataset)
        blocks = [-(-len(data) // 4096) * 4096 for data in report.files.values()]
        # room for every file but the last: the disk fills during the report's writes
        st = os.statvfs(mnt)
        (mnt / "fill").write_bytes(b"x" * (st.f_bavail * st.f_frsize - sum(blocks[:-1])))
        result = run_cli("balance", str(dataset), "--baseline", str(dataset), "--out", str(mnt / "b"))
        assert result.exit_code == 2 and "No space left on device" in last_error_line(result)
        assert _contents(mnt / "b") == {}
