"""The analysis commands given hostile input: paths that look like glob
patterns, a label that looks like the Free City, a dataset of one game, and manifests and part
footers that lie. Each case asserts the exit status, the last stderr line and what is left on
disk: a report of exactly the folder named, or an `Error:` and no report folder at all."""

import hashlib
import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from clikit import last_error_line, run_cli
from wsim.dataset.folder import LOCK

MANIFEST = "_wsim_manifest.json"
REPORT = ["cards.csv", "index.html", "wonders.csv"]
PAIRED_REPORT = sorted(REPORT + ["paired.csv"])


def simulate(out: Path, *args) -> Path:
    result = run_cli("simulate", "--games", "40", "--players", "4", "--chunk-size", "10", "--threads", "1",
                     *args, "--out", str(out))
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    """Two small datasets of other games (4 parts each), never modified: tests copy them."""
    base = tmp_path_factory.mktemp("datasets")
    return simulate(base / "a", "--seed", "1"), simulate(base / "b", "--seed", "2")


def copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def balance(*args):
    return run_cli("balance", *map(str, args))


def listing(folder: Path) -> list:
    """The folder's entries but the lock file (which may stay: docs/interfaces.md §2)."""
    return sorted(p.name for p in folder.iterdir() if p.name != LOCK)


def edit_manifest(out: Path, change):
    doc = json.loads((out / MANIFEST).read_text())
    change(doc)
    (out / MANIFEST).write_text(json.dumps(doc))


def rewrite_part(out: Path, name: str, table=None, meta_edits=None):
    """Rewrite a part as a hostile user would (other rows and/or another `wsim` footer) and make
    the manifest agree with it (its sha256, and its `wsim` object for footer edits)."""
    path = out / name
    old = pq.read_table(path)
    table = old if table is None else table
    metadata = dict(old.schema.metadata)
    if meta_edits:
        meta = json.loads(metadata[b"wsim"])
        meta.update(meta_edits)
        metadata[b"wsim"] = json.dumps(meta).encode()
    pq.write_table(table.replace_schema_metadata(metadata), path)
    sha = hashlib.sha256(path.read_bytes()).hexdigest()

    def agree(doc):
        doc["wsim"].update(meta_edits or {})
        next(e for e in doc["parts"] if e["file"] == name)["sha256"] = sha

    edit_manifest(out, agree)


def lie_consistently(out: Path, **edits):
    """Every footer and the manifest rewritten with the same false settings, checksums recomputed."""
    for part in sorted(out.glob("part-*.parquet")):
        rewrite_part(out, part.name, meta_edits=edits)


def wonder_seats(report: Path) -> int:
    rows = (report / "wonders.csv").read_text().splitlines()[1:]
    return sum(int(line.split(",")[3]) for line in rows)


# -- R1: a path is a path, never a glob pattern -----------------------------------------------

@pytest.mark.parametrize("name, decoy", [("h[12]", "h1"), ("g?", "gX"), ("s*", "sX")])
def test_balance_reads_the_folder_named_not_what_it_matches_as_a_pattern(datasets, tmp_path, name, decoy):
    a, b = datasets
    plain = tmp_path / "plain"
    assert balance(a, "--out", plain).exit_code == 0
    target = copy(a, tmp_path / name)
    copy(b, tmp_path / decoy)  # what DuckDB's globbing would read instead, or as well
    report = tmp_path / f"report {name}"
    result = balance(target, "--out", report)
    assert result.exit_code == 0, result.output
    assert last_error_line(result) == ""
    assert listing(report) == REPORT
    assert wonder_seats(report) == 40 * 4
    for table in ("wonders.csv", "cards.csv"):
        assert (report / table).read_bytes() == (plain / table).read_bytes(), table


# -- R2: the Free City is its column, and its label is nobody else's ---------------------------

@pytest.mark.parametrize("command", [
    ["simulate", "--games", "10", "--policies", "greedy:free_city,random,random,random"],
    ["simulate", "--games", "10", "--players", "2", "--policies", "greedy:free_city,random"],
    ["ladder", "--games", "10", "--players", "2", "--policies", "greedy:free_city,random"],
    ["ablate", "--edit", "Altar=neutral", "--games", "10", "--policies", "greedy:free_city,random,random,random"],
])
def test_the_free_city_label_is_refused(tmp_path, command):
    out = tmp_path / "out"
    result = run_cli(*command, "--threads", "1", "--out", str(out))
    assert result.exit_code == 2, result.output
    assert last_error_line(result) == ("Error: --policies: label 'free_city' is reserved: it marks the Free City's "
                                       "rows at 2 players")
    assert not out.exists()


def test_balance_finds_the_free_city_by_its_column_not_by_a_policy_value(datasets, tmp_path):
    """Rows whose `policy` reads `free_city` in a 4-player dataset (no Free City there) are
    players' rows: they count."""
    ds = copy(datasets[0], tmp_path / "ds")
    for part in sorted(ds.glob("part-*.parquet")):
        table = pq.read_table(part)
        policy = pa.array(["free_city" if s == 0 else p for s, p in
                           zip(table["seat"].to_pylist(), table["policy"].to_pylist())])
        rewrite_part(ds, part.name, table=table.set_column(table.schema.get_field_index("policy"), "policy", policy))
    assert run_cli("check", str(ds)).exit_code == 0
    result = balance(ds, "--out", tmp_path / "report")
    assert result.exit_code == 0, result.output
    assert wonder_seats(tmp_path / "report") == 40 * 4


# -- R7: a paired report of too few games for a CI ---------------------------------------------

def test_a_paired_report_of_one_game_gives_no_interval_and_no_traceback(tmp_path):
    one = tmp_path / "g1"
    assert run_cli("simulate", "--games", "1", "--threads", "1", "--out", str(one)).exit_code == 0
    result = balance(one, "--baseline", one, "--out", tmp_path / "report")
    assert result.exit_code == 0, result.output
    assert last_error_line(result).startswith("report: ") or last_error_line(result) == ""
    assert listing(tmp_path / "report") == PAIRED_REPORT
    effects = [line.split(",") for line in (tmp_path / "report" / "paired.csv").read_text().splitlines()
               if line.startswith("effect,")]
    assert effects and all(row[5:] == ["", "", "", "", ""] for row in effects)  # no CI (nor q) of any kind
    ablated = run_cli("ablate", "--edit", "Altar.points=+3", "--games", "1", "--threads", "1",
                      "--out", str(tmp_path / "ab"))
    assert ablated.exit_code == 0, ablated.output
    assert listing(tmp_path / "ab") == sorted(PAIRED_REPORT + ["data"])


@pytest.mark.system
@pytest.mark.parametrize("signum, status, line", [(signal.SIGINT, 130, "interrupted"),
                                                  (signal.SIGTERM, 143, "terminated by SIGTERM")])
def test_a_signal_while_duckdb_reads_ends_balance_cleanly(datasets, tmp_path, signum, status, line):
    """The signal arrives while DuckDB pulls the rows (sent as the first batch is read): DuckDB
    reports it as its own "Query interrupted" error, which must not end the command instead."""
    out = tmp_path / "report"
    # the parts reach DuckDB through the one literal-path reader: here a stream of its batches,
    # which sends the signal as DuckDB pulls the first one
    code = ("import os, sys\n"
            "import pyarrow as pa\n"
            "from wsim.dataset import parts\n"
            "real = parts.arrow_dataset\n"
            "def arrow_dataset(files):\n"
            "    ds = real(files)\n"
            "    def batches():\n"
            f"        os.kill(os.getpid(), {int(signum)})\n"
            "        yield from ds.to_batches()\n"
            "    return pa.RecordBatchReader.from_batches(ds.schema, batches())\n"
            "parts.arrow_dataset = arrow_dataset\n"
            "from wsim.cli.entry import run\n"
            f"sys.argv = ['wsim', 'balance', {str(datasets[0])!r}, '--out', {str(out)!r}]\n"
            "run()\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == status, done.stderr
    assert done.stderr.strip().splitlines()[-1] == line
    assert not out.exists()


# -- R8: the manifest and the footers are checked, never trusted ------------------------------

def _entry(doc, i):
    return doc["parts"][i]


LIES = {
    "a part listed twice": (lambda ds, other: edit_manifest(ds, lambda d: d["parts"].append(dict(_entry(d, 0)))),
                            "lists part-00000.parquet twice"),
    "a part outside the folder": (
        lambda ds, other: edit_manifest(ds, lambda d: _entry(d, 0).update(file=str(other / "part-00000.parquet"))),
        "not a part file of"),
    "a part up the tree": (
        lambda ds, other: edit_manifest(ds, lambda d: _entry(d, 0).update(file="../b/part-00000.parquet")),
        "not a part file of"),
    "a part left out": (lambda ds, other: edit_manifest(ds, lambda d: d["parts"].pop(2)),
                        "does not list part-00002.parquet"),
    "a first game as text": (lambda ds, other: edit_manifest(ds, lambda d: _entry(d, 1).update(first_game="10")),
                             "damaged"),
    "games as text": (lambda ds, other: lie_consistently(ds, games="many"), "--games: must be a whole number"),
    "policies as names": (lambda ds, other: lie_consistently(ds, policies=["random"] * 4),
                          "policies: expected a list of {name, params}"),
    "nine players": (lambda ds, other: lie_consistently(ds, players=9), "--players: must be a whole number from 2 to 7, got 9"),
    "a seed as a mapping": (lambda ds, other: lie_consistently(ds, seed={"a": 1}), "--seed: must be a whole number"),
    "more games than the parts hold": (lambda ds, other: lie_consistently(ds, games=50),
                                       "does not list part-00004.parquet"),
    "rows rewritten, footer kept": (
        lambda ds, other: (ds / "part-00001.parquet").write_bytes(
            _rows_of(other / "part-00001.parquet", ds / "part-00001.parquet")),
        "part-00001.parquet: checksum differs from the manifest"),
}


def _rows_of(rows_from: Path, footer_from: Path) -> bytes:
    """The bytes of a part holding the rows of one file under the footer of another."""
    table = pq.read_table(rows_from).replace_schema_metadata(pq.read_table(footer_from).schema.metadata)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return sink.getvalue().to_pybytes()


@pytest.mark.parametrize("lie", list(LIES))
def test_balance_and_check_refuse_a_dataset_whose_manifest_or_footers_lie(datasets, tmp_path, lie):
    a, b = datasets
    ds = copy(a, tmp_path / "ds")
    other = copy(b, tmp_path / "b")
    make, message = LIES[lie]
    make(ds, other)
    before = {p.name: p.read_bytes() for p in ds.iterdir()}
    for args, prefix in (([ds], "DIR: "), ([a, "--baseline", ds], "--baseline: ")):
        result = balance(*args, "--out", tmp_path / "report")
        assert result.exit_code == 2, result.output
        line = last_error_line(result)
        assert line.startswith("Error: " + prefix) and message in line, line
        assert not (tmp_path / "report").exists()
    checked = run_cli("check", str(ds))
    assert checked.exit_code == 1 and checked.stdout.splitlines()[-1].startswith("damaged: ")
    assert message in checked.stdout or "damaged (not the manifest form" in checked.stdout, checked.stdout
    assert {p.name: p.read_bytes() for p in ds.iterdir()} == before  # nothing written into the dataset


def test_resume_rewrites_a_damaged_manifest_and_never_blesses_a_changed_part(datasets, tmp_path):
    a, b = datasets
    ds = copy(a, tmp_path / "ds")
    whole = (ds / MANIFEST).read_bytes()
    written = (ds / MANIFEST).stat().st_mtime_ns
    done = run_cli("simulate", "--resume", "--out", str(ds))
    assert done.exit_code == 0 and "nothing played" in done.stdout
    assert (ds / MANIFEST).stat().st_mtime_ns == written  # a whole manifest is left alone
    edit_manifest(ds, lambda d: d["parts"].append(dict(_entry(d, 0))))
    repaired = run_cli("simulate", "--resume", "--out", str(ds))
    assert repaired.exit_code == 0 and "nothing played" in repaired.stdout
    assert (ds / MANIFEST).read_bytes() == whole and run_cli("check", str(ds)).exit_code == 0
    (ds / "part-00001.parquet").write_bytes(_rows_of(b / "part-00001.parquet", ds / "part-00001.parquet"))
    (ds / "part-00003.parquet").unlink()  # with games to play, too
    before = {p.name: p.read_bytes() for p in ds.iterdir()}
    refused = run_cli("simulate", "--resume", "--out", str(ds))
    assert refused.exit_code == 2
    assert last_error_line(refused) == (f"Error: --resume: {ds / 'part-00001.parquet'} changed after its run completed "
                                        "(its checksum is not the manifest's; see `wsim check`)")
    assert {p.name: p.read_bytes() for p in ds.iterdir()} == before


# -- AB02e: an edit is one line ----------------------------------------------------------------

@pytest.mark.parametrize("edit", ["Al\ntar=neutral", "Altar\n#.points=5", "Altar.points=+1\r", "Altar=neutral\x00",
                                  "Altar.points=\x1b[2J5", "Altar\u2028#.points=5"])
def test_an_edit_with_a_control_character_is_refused(tmp_path, edit):
    out = tmp_path / "report"
    result = run_cli("ablate", "--edit", edit, "--games", "10", "--threads", "1", "--out", str(out))
    assert result.exit_code == 2, result.output
    assert last_error_line(result) == (f"Error: --edit {edit!r}: holds a control character or a line break; an "
                                       "edit is one line of printable text, e.g. 'Altar.points=+5'")
    assert not out.exists()
