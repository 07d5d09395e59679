"""Input files that are not regular files, writers that meet over one folder, and edits no game
deals: each refused with an `Error:` line and nothing lost (docs/interfaces.md §0).

Each test injects the fault and asserts the exit status, the last `Error:` line and what is
left on disk. The FIFO tests run wsim as a real process with a deadline: a blocking open of a
FIFO ignores SIGTERM, so a regression shows as a timeout, never as a hung test run.
"""

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from clikit import last_error_line, run_cli
from test_dataset_safety import lock_held_by_another_process
from wsim.dataset.parts import MANIFEST

WSIM = [sys.executable, "-c", "from wsim.cli.entry import run; run()"]
RUN = ["--games", "40", "--players", "3", "--chunk-size", "10", "--seed", "1", "--threads", "1"]
TUNE = ["--generations", "1", "--population", "4", "--games", "4", "--players", "3", "--seed", "7"]
DEADLINE = 30  # seconds; each command below ends in one or two when nothing blocks

fifos = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("r3") / "ds"
    assert run_cli("simulate", "--out", str(out), *RUN).exit_code == 0
    return out


def listing(folder: Path) -> dict:
    """Each entry of a folder: the bytes of a regular file, else its kind."""
    out = {}
    for p in sorted(folder.iterdir()):
        mode = p.lstat().st_mode
        out[p.name] = (p.read_bytes() if stat.S_ISREG(mode) else "fifo" if stat.S_ISFIFO(mode)
                       else "dir" if stat.S_ISDIR(mode) else "other")
    return out


def wsim_process(*args):
    """Run wsim in a process of its own; a hang fails the test (the process is killed)."""
    try:
        return subprocess.run(WSIM + list(args), capture_output=True, text=True, timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        pytest.fail(f"wsim {' '.join(args)} still running after {DEADLINE} s (blocked on a FIFO?)")


# ---------------------------------------------------------------------------------------------
# R3: a FIFO where a part or the manifest should be

def dataset_with_fifo(dataset: Path, at: Path, name: str, drop_manifest: bool = False) -> Path:
    shutil.copytree(dataset, at)
    if drop_manifest:
        (at / MANIFEST).unlink()
    (at / name).unlink()
    os.mkfifo(at / name)
    return at


@pytest.mark.system
@fifos
@pytest.mark.parametrize("case", ["overwrite", "resume", "replay", "balance"])
def test_a_fifo_in_a_dataset_is_an_error_not_a_hang(tmp_path, dataset, case):
    """FS10, FS10b, FS10c, FS10f: exit 2, an Error: naming the FIFO, the folder as it was."""
    if case == "overwrite":
        folder = tmp_path / "fs10"
        folder.mkdir()
        os.mkfifo(folder / "part-00000.parquet")
        args, named = ["simulate", *RUN, "--overwrite", "--out", str(folder)], "part-00000.parquet"
    elif case == "resume":
        folder = dataset_with_fifo(dataset, tmp_path / "e", "part-00003.parquet", drop_manifest=True)
        args, named = ["simulate", *RUN, "--resume", "--out", str(folder)], "part-00003.parquet"
    elif case == "replay":
        folder = dataset_with_fifo(dataset, tmp_path / "f", "part-00000.parquet")
        args, named = ["replay", str(folder), "--game", "1"], "part-00000.parquet"
    else:
        folder = dataset_with_fifo(dataset, tmp_path / "h", MANIFEST)
        args, named = ["balance", str(folder), "--out", str(tmp_path / "hr")], MANIFEST
    before = listing(folder)
    result = wsim_process(*args)
    assert result.returncode == 2, result.stderr
    line = last_error_line(result)
    assert line.startswith("Error: ") and str(folder / named) in line, line
    # --overwrite says it in its own words: a file it would replace that is not one of wsim's
    said = "is not a readable wsim part" if case == "overwrite" else "a FIFO (named pipe), not a regular file"
    assert said in line, line
    after = listing(folder)
    after.pop(".wsim-lock", None)  # a writer's lock file is never data
    before.pop(".wsim-lock", None)
    assert after == before
    assert not (tmp_path / "hr").exists()


@pytest.mark.system
@fifos
def test_check_reports_a_fifo_manifest_without_blocking(tmp_path):
    """FS10e: `wsim check` of a folder whose manifest is a FIFO: a finding (exit 1), no hang."""
    folder = tmp_path / "g"
    folder.mkdir()
    os.mkfifo(folder / MANIFEST)
    result = wsim_process("check", str(folder))
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"{folder / MANIFEST}: not a readable manifest (a FIFO (named pipe), not a regular file)"
    assert lines[-1] == "damaged: 1 problems"
    assert listing(folder) == {MANIFEST: "fifo"}


@fifos
def test_every_input_file_is_opened_without_blocking(tmp_path):
    """The one opener of input files refuses what is not a regular file before reading (in
    process: a FIFO opened for reading here would block the test run)."""
    from wsim.dataset import manifest, parts
    from wsim.dataset.folder import DatasetError, lock_is_held
    from wsim.inputfile import NotRegularFile, open_regular

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for path, kind in ((fifo, "a FIFO (named pipe)"), (tmp_path, "a directory"),
                       (Path("/dev/null"), "a character device")):
        with pytest.raises(NotRegularFile, match=re.escape(f"{kind}, not a regular file")):
            open_regular(path)
        for read in (parts.read_header, lambda p: parts.read_columns(p, ["game"])):
            with pytest.raises(DatasetError, match=f"^{re.escape(f'{path}: {kind}, not a regular file')}$"):
                read(path)
        with pytest.raises(OSError, match=re.escape(kind)):
            manifest.sha256_of(path)
    os.mkfifo(tmp_path / ".wsim-lock")
    assert lock_is_held(tmp_path) is False  # a FIFO in the lock's place is probed without blocking


# ---------------------------------------------------------------------------------------------
# R9: one writer at a time, from the first check of the target to the commit

def second_writer_refused(out: Path, *args):
    """Run a second writer into `out` while the first one works: it must be refused."""
    result = run_cli(*args)
    assert result.exit_code == 2, result.output
    assert last_error_line(result) == f"Error: {out} is being written by another wsim run"
    return result


def test_ladder_holds_its_folder_while_it_plays(tmp_path, monkeypatch):
    """LD25, LD26: a simulate and a second ladder into the ladder's folder while it plays."""
    from wsim.agents import ladder

    out = tmp_path / "l25"
    play = ladder.Ladder.run

    def run_meanwhile(self, *a, **kw):
        monkeypatch.setattr(ladder.Ladder, "run", play)  # once: a second writer let in plays as usual
        second_writer_refused(out, "simulate", *RUN, "--out", str(out))
        second_writer_refused(out, "ladder", "--policies", "random,greedy", "--games", "3", "--threads", "1",
                              "--out", str(out), "--overwrite")
        return play(self, *a, **kw)

    monkeypatch.setattr(ladder.Ladder, "run", run_meanwhile)
    first = run_cli("ladder", "--policies", "random,greedy", "--players", "3", "--games", "6", "--threads", "1",
                    "--out", str(out))
    assert first.exit_code == 0, first.output
    assert sorted(p.name for p in out.iterdir()) == [".wsim-lock", "ladder.csv", "play.csv", "ratings.csv"]


def test_balance_holds_its_folder_while_it_reads(tmp_path, monkeypatch, dataset):
    """BA31: a simulate into the report folder while balance works."""
    pytest.importorskip("duckdb")
    from wsim.analysis.balance import report

    out = tmp_path / "r31"
    build = report.build

    def build_meanwhile(*a, **kw):
        monkeypatch.setattr(report, "build", build)
        second_writer_refused(out, "simulate", *RUN, "--out", str(out))
        return build(*a, **kw)

    monkeypatch.setattr(report, "build", build_meanwhile)
    first = run_cli("balance", str(dataset), "--out", str(out))
    assert first.exit_code == 0, first.output
    assert sorted(p.name for p in out.iterdir()) == [".wsim-lock", "cards.csv", "index.html", "wonders.csv"]


def test_balance_report_folder_is_not_a_dataset_it_reads(tmp_path, dataset):
    """The report folder is locked while balance reads: a dataset folder cannot be it."""
    pytest.importorskip("duckdb")
    copy = tmp_path / "ds"
    shutil.copytree(dataset, copy)
    before = listing(copy)
    for args, option in (([str(copy)], "DIR"), ([str(dataset), "--baseline", str(copy)], "--baseline")):
        result = run_cli("balance", *args, "--out", str(copy), "--overwrite")
        assert result.exit_code == 2
        assert last_error_line(result) == (f"Error: --out: {copy} is the dataset folder {option} names; "
                                           "give the report a folder of its own")
    assert listing(copy) == before


def test_tune_holds_its_file_while_it_searches(tmp_path, monkeypatch):
    """TU13: a second tune of the same file while the first searches; no lock or temporary
    file is left after."""
    from wsim.agents import tune

    out = tmp_path / "t.json"
    search = tune.tune

    def tune_meanwhile(*a, **kw):
        monkeypatch.setattr(tune, "tune", search)
        second_writer_refused(out, "tune", *TUNE, "--out", str(out), "--overwrite")
        return search(*a, **kw)

    monkeypatch.setattr(tune, "tune", tune_meanwhile)
    first = run_cli("tune", *TUNE, "--out", str(out))
    assert first.exit_code == 0, first.output
    assert json.loads(out.read_text())["format"] == "wsim-weights-1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]


def test_a_lock_file_its_holder_removed_is_not_taken(tmp_path, monkeypatch):
    """A holder removes its lock file before letting go (tune's, an output folder left empty):
    a writer that opened the old file just before must lock the new one, not the removed one."""
    from wsim.dataset import folder

    lock = tmp_path / ".w.json.wsim-lock"
    flock = folder.fcntl.flock
    removed = []

    def holder_lets_go_meanwhile(fd, operation):
        if not removed:
            removed.append(lock)
            os.unlink(lock)
        return flock(fd, operation)

    monkeypatch.setattr(folder.fcntl, "flock", holder_lets_go_meanwhile)
    fd = folder.take_lock(lock, tmp_path / "w.json")
    assert removed and os.path.samestat(os.fstat(fd), os.stat(lock))
    folder.drop_lock(lock, fd, remove=True)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.system
def test_writers_meet_a_writer_of_another_process(tmp_path):
    """The locks are real ones: a process holding the ladder's folder or the tune's file makes
    the ladder and the tune exit 2 before they play; nothing is written."""
    out = tmp_path / "l"
    out.mkdir()
    (out / ".wsim-lock").touch()
    with lock_held_by_another_process(out):
        second_writer_refused(out, "ladder", "--policies", "random,greedy", "--games", "3", "--out", str(out),
                              "--overwrite")
    assert listing(out) == {".wsim-lock": b""}
    target = tmp_path / "w.json"
    (tmp_path / ".w.json.wsim-lock").touch()
    with lock_held_by_another_process(tmp_path, ".w.json.wsim-lock"):
        second_writer_refused(target, "tune", *TUNE, "--out", str(target))
    assert not target.exists()


# ---------------------------------------------------------------------------------------------
# R10: an edit of a board, side or card that no game of the run deals

@pytest.mark.parametrize("edit, options, message", [
    ("rhodes/A.stage2=neutral", ["--wonders", "fixed:giza,babylon,olympia,ephesus"],
     "rhodes is not in play in these games (--wonders fixed: deals giza, babylon, olympia, ephesus)"),
    ("giza/B.stage2=neutral", ["--sides", "A"], "giza/B is not in play in these games (--sides A)"),
    ("giza/B.stage1.points=+2", ["--wonders", "fixed:giza/A,babylon,olympia,ephesus"],
     "giza/B is not in play in these games (--wonders fixed: deals giza side A)"),
    ("manneken_pis/A.stage1=neutral", [],
     "manneken_pis is not in play in these games (add --manneken-pis, or name it in --wonders fixed:)"),
    ("Tavern.coins=0", ["--players", "3"], "Tavern is not in play in these games (no copy in a 3-player deck)"),
    ("Altar.points=3", [], "changes nothing (the data says so already)"),  # after Altar.points=+1
])
def test_ablate_refuses_an_edit_no_game_deals(tmp_path, edit, options, message):
    """AB05, AB05b: refused before anything is played; nothing is written."""
    pytest.importorskip("duckdb")
    out = tmp_path / "ab5"
    result = run_cli("ablate", "--edit", "Altar.points=+1", "--edit", edit, "--games", "10", "--threads", "1",
                     *options, "--out", str(out))
    assert result.exit_code == 2, result.output
    assert last_error_line(result) == f"Error: --edit '{edit}': {message}"
    assert not out.exists()


@pytest.mark.parametrize("edit, options", [
    ("giza/A.stage2=neutral", {"sides": "A"}),
    ("giza/B.stage2=neutral", {"wonders": "fixed:giza,babylon,olympia,ephesus"}),
    ("manneken_pis/B.stage1=neutral", {"manneken_pis": True, "sides": "B"}),
    ("manneken_pis/A.stage1=neutral", {"wonders": "fixed:giza,manneken_pis/A,olympia,ephesus"}),
    ("Tavern.coins=0", {"players": 4}),
    ("Loom=neutral", {"players": 3}),
    ("Scientists Guild=neutral", {"players": 3}),  # guilds are dealt at every player count
    ("giza/A.stage1=neutral", {"players": 2, "wonders": "fixed:rhodes,babylon,giza/A"}),  # the Free City's board
])
def test_ablate_takes_an_edit_some_game_deals(tables, edit, options):
    pytest.importorskip("duckdb")
    from wsim.analysis.ablate import refuse_edits_out_of_play
    from wsim.run.settings import build_settings

    players = options.pop("players", 4)
    settings = build_settings(tables, players=players, policies=["random"] * players, games=10, **options)
    refuse_edits_out_of_play(tables, settings, [edit])


# ---------------------------------------------------------------------------------------------
# Weak cases: what --overwrite may replace, where outputs may go, tune's --out

def test_overwrite_never_removes_a_folder_named_like_an_output(tmp_path):
    """LD14: a user's folder named ladder.csv (or index.html) is not a file wsim wrote."""
    out = tmp_path / "l14"
    (out / "ladder.csv").mkdir(parents=True)
    (out / "ladder.csv" / "mine.txt").write_text("keep me")
    result = run_cli("ladder", "--policies", "random,greedy", "--games", "3", "--threads", "1", "--overwrite",
                     "--out", str(out))
    assert result.exit_code == 2
    assert last_error_line(result) == (f"Error: --out: {out / 'ladder.csv'} is a folder, not a file wsim wrote; "
                                       "--overwrite replaces only wsim's own files (move it away first)")
    assert (out / "ladder.csv" / "mine.txt").read_text() == "keep me"
    assert sorted(p.name for p in out.iterdir()) == [".wsim-lock", "ladder.csv"]


def test_no_output_folder_inside_wsims_own_package(tmp_path, monkeypatch):
    """FS09, FS09b: outputs never land beside wsim's package files (here a stand-in package)."""
    from wsim.dataset import folder

    package = tmp_path / "site" / "wsim"
    (package / "data").mkdir(parents=True)
    monkeypatch.setattr(folder, "PACKAGE", package)
    for out in (package, package / "data", package / "data" / "new"):
        for args in (["simulate", *RUN], ["ladder", "--policies", "random,greedy", "--games", "3"]):
            result = run_cli(*args, "--overwrite", "--out", str(out))
            assert result.exit_code == 2
            assert last_error_line(result) == (f"Error: --out: {out} is inside wsim's own package ({package}); "
                                               "write outputs elsewhere")
    assert sorted(p.relative_to(package).as_posix() for p in package.rglob("*")) == ["data"]


def test_a_dangling_symbolic_link_as_out(tmp_path, monkeypatch):
    """AB15, FS06, TU06: a link to nothing is named as such, before any game."""
    from wsim.agents import tune

    link = tmp_path / "ab15"
    link.symlink_to(tmp_path / "nowhere")
    for args in (["simulate", *RUN], ["ladder", "--policies", "random,greedy", "--games", "3"]):
        result = run_cli(*args, "--out", str(link))
        assert result.exit_code == 2
        assert last_error_line(result) == f"Error: --out: {link} cannot be used (a symbolic link to nothing)"
    monkeypatch.setattr(tune, "tune", lambda *a, **kw: pytest.fail("tuned before refusing"))
    result = run_cli("tune", *TUNE, "--out", str(link))
    assert result.exit_code == 2
    assert last_error_line(result) == f"Error: --out: {link} exists (use --overwrite to replace it)"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ab15"] and not (tmp_path / "nowhere").exists()


def test_tune_out_with_a_trailing_slash_is_refused(tmp_path, monkeypatch):
    """TU19: `--out newdir/` names a folder; tune writes a file."""
    from wsim.agents import tune

    monkeypatch.setattr(tune, "tune", lambda *a, **kw: pytest.fail("tuned before refusing"))
    out = f"{tmp_path / 'newdir'}/"
    result = run_cli("tune", *TUNE, "--out", out)
    assert result.exit_code == 2
    assert last_error_line(result) == f"Error: --out: {out} names a folder; give the weights file's name"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.system
def test_tune_refuses_a_folder_it_cannot_write_before_it_searches(tmp_path, monkeypatch):
    """TU05, TU08: a read-only or full filesystem is refused up front (real tmpfs mounts)."""
    from wsim.agents import tune

    monkeypatch.setattr(tune, "tune", lambda *a, **kw: pytest.fail("tuned before refusing"))
    full, readonly = tmp_path / "full", tmp_path / "ro"
    full.mkdir()
    readonly.mkdir()
    for mnt, options in ((full, "size=64k"), (readonly, "ro,size=64k")):
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(mnt)], capture_output=True)
        if mounted.returncode != 0:
            pytest.skip(f"mount refused here: {mounted.stderr.decode().strip() or 'not root'}")
    try:
        fd = os.open(full / "filler", os.O_WRONLY | os.O_CREAT)
        try:
            with pytest.raises(OSError):
                while True:
                    os.write(fd, b"x" * 4096)
        finally:
            os.close(fd)
        before = listing(full)
        for mnt, problem in ((full, "No space left on device"), (readonly, "Read-only file system")):
            result = run_cli("tune", *TUNE, "--out", str(mnt / "w.json"))
            assert result.exit_code == 2
            assert last_error_line(result) == f"Error: --out: cannot write to {mnt} ({problem})"
        assert listing(full) == before and listing(readonly) == {}
    finally:
        for mnt in (full, readonly):
            subprocess.run(["umount", str(mnt)], capture_output=True)
