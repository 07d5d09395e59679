"""What `wsim learn` and the model file refuse (docs/agents.md, "wsim learn"): each refusal comes
before the first teacher game, as an `Error:` line and exit status 2, and changes nothing on disk.
No game is played here: the work folders are written by hand as a run would have left them."""

import errno
import fcntl
import json
import os
import stat
from dataclasses import asdict

import numpy as np
import pytest

import wsim
from clikit import last_error_line, run_cli
from wsim import tables as tables_mod
from wsim.agents import learn
from wsim.agents.learn import RECORD, LearnError, Plan, basis, write_parquet
from wsim.dataset.folder import LOCK
from wsim.errors import brief
from wsim.run.model import ModelError, feature_names, max_model_bytes, read_model

OPTIONS = ["--iterations", "2", "--games", "30", "--players", "3,4", "--rate", "0.5", "--hidden", "4", "--epochs", "3",
           "--eval-games", "8", "--threads", "1", "--seed", "3"]
PLAN = Plan(iterations=2, games=30, players=(3, 4), rate=0.5, hidden=4, epochs=3, eval_games=8, seed=3)
LEARNED = ["simulate", "--games", "4", "--players", "3", "--threads", "1", "--policies", "learned,heuristic,heuristic"]


@pytest.fixture(autouse=True)
def no_teacher_games(monkeypatch):
    monkeypatch.setattr(learn, "_teacher_games", lambda *a, **kw: pytest.fail("teacher games played before refusing"))


def listing(folder) -> dict:
    """{path under folder: its bytes, or its kind when not a regular file}: what must not change."""
    out = {}
    for p in sorted(folder.rglob("*")):
        mode = os.lstat(p).st_mode
        out[str(p.relative_to(folder))] = p.read_bytes() if stat.S_ISREG(mode) else stat.S_IFMT(mode)
    return out


def entry(k: int) -> dict:
    """Iteration k as learn.json records it."""
    return {"iteration": k, "teacher": "heuristic", "games": 30, "fit": {}, "seconds": 1.0,
            "vs_heuristic": {"win_share": 0.25, "ci95": [0.1, 0.5], "games": 8}}


def work_folder(path, tables, iterations: int = 0, **changes):
    """The folder a run of PLAN on the shipped data leaves after `iterations` iterations (its
    learn.json), with `changes` made to the record."""
    path.mkdir()
    doc = {"plan": asdict(PLAN), **basis(tables), "iterations": [entry(k) for k in range(iterations)], **changes}
    (path / RECORD).write_text(json.dumps(doc))
    return path


def refused(tmp_path, *args) -> str:
    """The last error line of `wsim ARGS`, which must exit 2 and leave tmp_path as it was."""
    before = listing(tmp_path)
    result = run_cli(*args)
    assert result.exit_code == 2, result.output
    assert listing(tmp_path) == before
    return last_error_line(result)


def test_a_work_folder_begun_on_another_data_file_is_refused(tables, tmp_path):
    """F1: learn.json records the data file's sha256 and the rules and features versions: a run on
    an edited data file, or on a folder of an older wsim that recorded none, is refused by name."""
    work = work_folder(tmp_path / "m.npz.work", tables)
    out = str(tmp_path / "m.npz")
    edited = tmp_path / "ed.yaml"
    edited.write_text(tables_mod.data_path().read_text().replace("\n    points: 2\n", "\n    points: 3\n", 1))
    other = tables_mod.load(edited).data_sha256
    assert refused(tmp_path, "--data", str(edited), "learn", *OPTIONS, "--out", out) == (
        f"Error: {work}: was begun with the data file of sha256 {tables.data_sha256[:12]}…, this run has "
        f"{other[:12]}…; give the same --data to go on, or another --work folder")
    doc = json.loads((work / RECORD).read_text())
    for key, words in (("data_sha256", "the data file of sha256 none recorded (a work folder of an older wsim)"),
                       ("rules", "rules version none recorded")):
        (work / RECORD).write_text(json.dumps({k: v for k, v in doc.items() if k != key}))
        assert words in refused(tmp_path, "learn", *OPTIONS, "--out", out)


def test_other_options_on_a_work_folder_are_named(tables, tmp_path):
    work = work_folder(tmp_path / "m.npz.work", tables)
    line = refused(tmp_path, "learn", *OPTIONS[:-2], "--seed", "4", "--out", str(tmp_path / "m.npz"))
    assert line == (f"Error: {work}: holds a learn run of other options (--seed 3 where this run has 4); give the "
                    "same options to go on, or another --work folder")


def test_a_work_folder_another_run_holds_is_refused(tables, tmp_path):
    """F9: one run at a time writes a work folder (its lock, as a dataset folder's)."""
    work = work_folder(tmp_path / "m.npz.work", tables)
    fd = os.open(work / LOCK, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # another open file: flock refuses it as it would another process
        line = refused(tmp_path, "learn", *OPTIONS, "--out", str(tmp_path / "m.npz"))
    finally:
        os.close(fd)
    assert line == f"Error: {work} is being written by another wsim run"


def test_learn_out_is_a_new_regular_file_or_overwrite(tmp_path):
    """F4: --out as every single output file (wsim.dataset.outfile), checked before any game: an
    existing file needs --overwrite, what is not a regular file is never replaced, a missing
    folder or a name ending in / is refused; no work folder is made."""
    mine = tmp_path / "mine.npz"
    mine.write_bytes(b"precious")
    fifo = tmp_path / "p.npz"
    os.mkfifo(fifo)
    for out, extra, message in (
            (mine, [], f"--out: {mine} exists (use --overwrite to replace it)"),
            (fifo, ["--overwrite"], f"--out: {fifo} is not a regular file"),
            (tmp_path / "no" / "m.npz", [], f"--out: the folder {tmp_path / 'no'} does not exist (create it first)"),
            (f"{tmp_path / 'dir'}/", [], f"--out: {tmp_path / 'dir'}/ names a folder; give the model file's name")):
        assert refused(tmp_path, "learn", *OPTIONS, *extra, "--out", str(out)) == f"Error: {message}"
    with pytest.raises(wsim.WsimError, match="overwrite: must be True or False, got 'yes'"):
        wsim.learn(out=tmp_path / "x.npz", overwrite="yes")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.npz", "p.npz"]


def test_learn_mistakes_of_the_call_are_refused_before_anything_is_written(tmp_path):
    """F10: unicode digits in --players, a say that is not a function."""
    line = refused(tmp_path, "learn", "--players", "3,²", "--out", str(tmp_path / "x.npz"))
    assert line == "Error: --players: each count from 2 to 7, got '3,²'"
    with pytest.raises(wsim.WsimError, match="say: must be a function \\(or None\\), got 5"):
        wsim.learn(out=tmp_path / "x.npz", say=5)
    with pytest.raises(wsim.WsimError, match="work: must name another path than out"):
        wsim.learn(out=tmp_path / "x.npz", work=tmp_path / "x.npz")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("text, damage", [
    ("{not json", "not JSON: Expecting property name enclosed in double quotes"),
    ("", "not JSON: Expecting value"),
    ("[]", "not a learn record: an object with 'plan' and 'iterations'"),
    ("no iterations", "not a learn record"),
    ("a share of 'high'", "iteration 0 is not recorded as iteration 0 with a win share from 0 to 1"),
    ("a record of 5 iterations", "it records 5 iterations of a run of 2"),
    ("x" * (learn.RECORD_LIMIT + 1), f"larger than {learn.RECORD_LIMIT:,} bytes"),
])
def test_a_damaged_learn_record_is_named_damaged(tables, tmp_path, text, damage):
    """F10: a learn.json that does not read as a record is `damaged (...)`, never a traceback."""
    work = work_folder(tmp_path / "m.npz.work", tables, iterations=1)
    doc = json.loads((work / RECORD).read_text())
    if text == "no iterations":
        text = json.dumps({k: v for k, v in doc.items() if k != "iterations"})
    elif text == "a share of 'high'":
        doc["iterations"][0]["vs_heuristic"]["win_share"] = "high"
        text = json.dumps(doc)
    elif text == "a record of 5 iterations":
        text = json.dumps({**doc, "iterations": [entry(k) for k in range(5)]})
    (work / RECORD).write_text(text)
    line = refused(tmp_path, "learn", *OPTIONS, "--out", str(tmp_path / "m.npz"))
    assert line.startswith(f"Error: {work / RECORD}: damaged ({damage}"), line


def test_a_learn_record_that_is_not_a_regular_file_is_refused(tables, tmp_path):
    """F5: learn.json is read as an input file: a FIFO is refused, never waited on."""
    work = tmp_path / "m.npz.work"
    work.mkdir()
    os.mkfifo(work / RECORD)
    line = refused(tmp_path, "learn", *OPTIONS, "--out", str(tmp_path / "m.npz"))
    assert line == f"Error: {work / RECORD}: cannot be read (a FIFO (named pipe), not a regular file)"


def _data(tables, rows: int = 5) -> tuple:
    rng = np.random.default_rng(0)
    return (rng.random((rows, len(feature_names(tables))), dtype=np.float32),
            rng.integers(0, 9, (rows, 8)).astype(np.int32))


@pytest.mark.parametrize("damage", ["truncated", "foreign", "another iteration's"])
def test_a_damaged_data_file_is_named_damaged(tables, tmp_path, damage):
    """F10: iteration 1's data, read back to fit, truncated, another Parquet file or iteration 0's."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    work = work_folder(tmp_path / "m.npz.work", tables, iterations=1)
    write_parquet(work / "data-0.parquet", *_data(tables), {"iteration": 0, "teacher": "heuristic"})
    whole = (work / "data-0.parquet").read_bytes()
    if damage == "truncated":
        (work / "data-1.parquet").write_bytes(whole[:len(whole) // 2])
    elif damage == "foreign":
        pq.write_table(pa.table({"game": [0], "seat": [1]}), work / "data-1.parquet")
    else:
        (work / "data-1.parquet").write_bytes(whole)
    line = refused(tmp_path, "learn", *OPTIONS, "--out", str(tmp_path / "m.npz"))
    assert line.startswith(f"Error: {work / 'data-1.parquet'}: damaged ("), line
    if damage != "truncated":
        assert line.endswith("(not written by wsim learn)" if damage == "foreign" else "(not the data of iteration 1)")


def test_a_learn_write_that_fails_leaves_no_partial_file(tables, tmp_path, monkeypatch):
    """A full disk while a work file is written: a clean LearnError, and no NAME.partial left."""
    import pyarrow.parquet as pq

    def full_disk(table, where, **kw):
        with open(where, "wb") as f:
            f.write(b"PAR1 half")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pq, "write_table", full_disk)
    with pytest.raises(LearnError, match="--work: cannot write .*data-0.parquet \\(No space left on device\\)"):
        write_parquet(tmp_path / "data-0.parquet", *_data(tables), {"iteration": 0, "teacher": "heuristic"})
    assert list(tmp_path.iterdir()) == []


def test_a_partial_file_a_killed_run_left_is_removed_under_the_lock(tables, tmp_path):
    work = work_folder(tmp_path / "w", tables)
    (work / "model-0.npz.partial").write_bytes(b"half")
    with learn.Work(work, PLAN, basis(tables)) as w:
        assert w.iterations == []
    assert [p.name for p in work.iterdir()] == [RECORD]


def test_a_model_file_is_read_as_a_bounded_regular_file(tables, tmp_path):
    """F5, F11: a FIFO or a device is refused without reading, a file past the largest model is
    refused without reading it whole, an empty file is `not a model file`, exit 2 (never taken
    for an interrupt)."""
    fifo = tmp_path / "f.npz"
    os.mkfifo(fifo)
    zero = tmp_path / "z.npz"
    zero.symlink_to("/dev/zero")
    empty = tmp_path / "e.npz"
    empty.write_bytes(b"")
    big = tmp_path / "big.npz"
    limit = max_model_bytes(len(feature_names(tables)))
    big.write_bytes(b"\0" * (limit + 1))
    for path, problem in ((fifo, "cannot be read (a FIFO (named pipe), not a regular file)"),
                          (zero, "cannot be read (a character device, not a regular file)"),
                          (empty, "not a model file ('File is not a zip file')"),
                          (big, f"not a model file (larger than {limit:,} bytes")):
        with pytest.raises(ModelError) as raised:
            read_model(path, tables)
        assert str(raised.value).startswith(f"model file {brief(str(path))}: {problem}")
        line = refused(tmp_path, *LEARNED, "--policy-param", f"learned.model={path}", "--out", str(tmp_path / "d"))
        assert line.startswith(f"Error: model file {brief(str(path))}: {problem}"), line
