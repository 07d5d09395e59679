"""Input files that are not files (reliability round 3: R3; INTERFACES §0).

Each test injects the fault and asserts the exit status, the last `Error:` line and what is
left on disk. The FIFO tests run wsim as a real process with a deadline: a blocking open of a
FIFO ignores SIGTERM, so a regression shows as a timeout, never as a hung test run.
"""

import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import last_error_line, run_cli
from wsim.dataset.parts import MANIFEST

WSIM = [sys.executable, "-c", "from wsim.entry import run; run()"]
RUN = ["--games", "40", "--players", "3", "--chunk-size", "10", "--seed", "1", "--threads", "1"]
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
