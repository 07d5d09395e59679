"""`wsim rebalance` (docs/interfaces.md §7): a planted imbalance found and undone, nothing proposed when
nothing is needed, the report and its reproduction by `wsim ablate`, determinism, bad options.
Small runs: 3 players, restricted levers, a wide tolerance."""

import csv
import difflib
import html
import io
import re

import pytest

import wsim
from wsim.analysis.edits import apply_edits, edited_text
from wsim.people import columns as people_columns
from wsim.people import reference as people_reference
from wsim.tables import compile_text

from clikit import last_error_line, run_cli

PLANTED = "giza/A.stage2.points=+6"
pytestmark = pytest.mark.slow  # small searches, a few seconds each

SMALL = ["--players", "3", "--levers", "stages:giza", "--games", "3000", "--tolerance", "0.08", "--max-steps", "2",
         "--seed", "2"]


def _rows(path) -> list:
    return list(csv.DictReader(io.StringIO(path.read_text())))


@pytest.fixture(scope="module")
def planted(tmp_path_factory, tables):
    """The data file with Giza A's second stage worth 6 more points, and its rebalance."""
    where = tmp_path_factory.mktemp("rebalance")
    data = where / "planted.yaml"
    data.write_text(edited_text(tables, [PLANTED]))
    out = where / "report"
    result = run_cli("--data", str(data), "rebalance", *SMALL, "--threads", "2", "--out", str(out))
    assert result.exit_code == 0, result.output
    return data, out, result


def test_a_planted_stage_is_edited_back_within_tolerance(planted):
    _, out, result = planted
    edits = out.joinpath("edits.txt").read_text().split()
    assert all(e.startswith("giza/") for e in edits)  # the levers asked for (Giza B is weak at 3 players)
    assert sum(int(e.rpartition("=")[2]) for e in edits if e.startswith("giza/A.")) < 0  # points taken from Giza A
    row = next(r for r in _rows(out / "result.csv") if r["wonder"] == "giza" and r["side"] == "A")
    fair = sum(float(r["before"]) * int(r["seats"]) for r in _rows(out / "result.csv")) / sum(
        int(r["seats"]) for r in _rows(out / "result.csv"))
    assert float(row["before"]) - fair > 0.08  # the plant shows on the held-out games
    assert abs(float(row["after"]) - fair) <= 0.08  # and the edits undo it there
    assert float(row["diff"]) < 0 and float(row["q_value"]) < 0.05
    assert result.output.strip().splitlines()[-1].startswith("solved: ")


def test_the_report_files(planted, tables):
    data, out, _ = planted
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == sorted(
        ["edits.txt", "cards.yaml", "result.csv", "path.csv", "path_rates.csv", "index.html"])
    assert list(_rows(out / "result.csv")[0]) == ["players", "wonder", "side", "seats", "before", "before_ci_low",
                                                  "before_ci_high", "after", "after_ci_low", "after_ci_high", "diff",
                                                  "ci_low", "ci_high", "q_value", "people_rate", "people_ci_low",
                                                  "people_ci_high", "people_seats"]
    path = _rows(out / "path.csv")
    assert list(path[0]) == ["step", "edits", "max_deviation"] and path[0]["step"] == "0" and path[0]["edits"] == ""
    assert list(_rows(out / "path_rates.csv")[0]) == ["step", "players", "wonder", "side", "rate", "ci_low", "ci_high"]
    # cards.yaml: the input with only the edited lines changed, compiling to the edited data
    before, after = data.read_text().splitlines(), (out / "cards.yaml").read_text().splitlines()
    changed = [ln for ln in difflib.unified_diff(before, after, n=0, lineterm="") if ln[:1] in "+-"
               and not ln.startswith(("+++", "---"))]
    edits = (out / "edits.txt").read_text().split()
    assert 0 < len(changed) <= 2 * len(edits) and all("points" in ln for ln in changed)
    base = compile_text(data.read_bytes())
    assert (compile_text((out / "cards.yaml").read_bytes()).ent == apply_edits(base, edits).ent).all()
    page = (out / "index.html").read_text()
    assert "wsim ablate" in page and "<svg" in page
    # people beside each side (giza B: the all-B tables' share), and the held-out runs' distance to people first
    giza_b = next(r for r in _rows(out / "result.csv") if (r["wonder"], r["side"]) == ("giza", "B"))
    m = people_reference.people().seat(3, "all_b", "giza", "B", "win")
    assert float(giza_b["people_rate"]) == pytest.approx(m.mean, abs=1e-6) and int(giza_b["people_seats"]) == m.n
    first = page[:page.index("<h2>The edits</h2>")]
    for data in ("input", "edited"):
        assert f"population (heuristic) with the {data} data against people at 3 players (" in first
    assert "people win %" in page
    assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", page, re.I)  # self-contained


def test_the_printed_ablate_line_reproduces_the_held_out_rates(planted, tmp_path):
    data, out, _ = planted
    page = (out / "index.html").read_text()
    line = next(ln for ln in page.split("<pre>")[2].split("</pre>")[0].splitlines() if ln.startswith("wsim ablate"))
    args = line.split()[1:-1] + [str(tmp_path / "ablate")]  # "ablate ... --out" REPORT
    result = run_cli("--data", str(data), *args)
    assert result.exit_code == 0, result.output
    paired = {r["key"]: r for r in _rows(tmp_path / "ablate" / "paired.csv") if r["metric"] == "win_rate"}
    for row in _rows(out / "result.csv"):
        other = paired[f"{row['wonder']}/{row['side']}@3"]
        assert float(other["baseline"]) == pytest.approx(float(row["before"]), abs=1e-6)
        assert float(other["value"]) == pytest.approx(float(row["after"]), abs=1e-6)


def test_the_same_seed_gives_the_same_report_whatever_the_threads_and_chunks(planted, tmp_path, monkeypatch):
    """Threads, and chunks: every run (measurements, the levers' runs paired with them chunk by
    chunk, the held-out pair) played 1,000 games at a time instead of in one piece."""
    from wsim.run import runner

    data, out, _ = planted
    monkeypatch.setattr(runner, "CHUNK_GAMES", 1_000)
    again = run_cli("--data", str(data), "rebalance", *SMALL, "--threads", "1", "--out", str(tmp_path / "r"))
    assert again.exit_code == 0, again.output
    for name in ("edits.txt", "result.csv", "path.csv", "path_rates.csv", "cards.yaml"):
        assert (tmp_path / "r" / name).read_bytes() == (out / name).read_bytes(), name


@pytest.mark.parametrize("players", [3, 2])
def test_nothing_is_proposed_within_a_wide_tolerance(tmp_path, tables, players):
    result = wsim.rebalance(out=tmp_path / "r", players=players, levers="stages:giza", games=2000, tolerance=0.35,
                            seed=1, threads=1)
    assert result.solved and result.edits == [] and len(result.path) == 1
    assert (tmp_path / "r" / "edits.txt").read_text() == ""
    assert (tmp_path / "r" / "cards.yaml").read_bytes() == tables.raw
    # no edit: one run to set beside people, and none at 2 players (its people columns empty)
    rows = _rows(tmp_path / "r" / "result.csv")
    if players == 2:
        assert result.people_lines == ["no people data at 2 players: each side's people column is empty"]
        assert all(r[c] == "" for r in rows for c in people_columns.PEOPLE_COLUMNS)
    else:
        assert len(result.people_lines) == 1
        assert result.people_lines[0].startswith("population (heuristic) with the input data against people at 3 ")
        assert all(r["people_rate"] for r in rows)
    assert html.escape(result.people_lines[0]) in (tmp_path / "r" / "index.html").read_text()


@pytest.mark.parametrize("args, message", [
    (["--levers", "walls"], "--levers: stages, cards or both"),
    (["--levers", "stages:atlantis"], "--levers: 'atlantis' is not a wonder"),
    (["--levers", "cards:giza"], "--levers: 'giza' is not a card"),
    (["--tolerance", "0"], "--tolerance: must be a number above 0.0001 and below 0.5, got 0"),
    (["--tolerance", "0.7"], "--tolerance: must be a number above 0.0001 and below 0.5, got 0.7"),
    (["--max-edits", "0"], "--max-edits: must be a whole number from 1"),
    (["--max-change", "0"], "--max-change: must be a whole number from 1"),
    (["--max-steps", "0"], "--max-steps: must be a whole number from 1"),
    (["--players", "9"], "--players: must be a whole number from 2 to 7, got 9"),
    (["--players", "3,3"], "--players: distinct player counts"),
    (["--players", "three"], "--players: player counts such as 4"),
    (["--population", "chess"], "--population"),
    (["--population", "deep=rollout"], "--population: a rollout population"),
    (["--policy-param", "greedy.coin=3"], "--policy-param"),
])
def test_bad_options_write_nothing(tmp_path, args, message):
    result = run_cli("rebalance", "--games", "10", *args, "--out", str(tmp_path / "r"))
    assert result.exit_code == 2
    assert last_error_line(result).startswith("Error: ") and message in last_error_line(result), result.output
    assert not (tmp_path / "r").exists()


@pytest.mark.system
def test_an_interrupted_search_writes_nothing(tmp_path):
    """SIGTERM mid-measurement: a measurement was one kernel call (a minute at --games 200000,
    the signal waiting for it; N6 of the round-4 findings, issue 36); played in chunks of short
    kernel calls, the search ends within seconds, the report folder as it was."""
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "r"
    proc = subprocess.Popen([sys.executable, "-m", "wsim", "rebalance", "--players", "3", "--games", "200000",
                             "--threads", "1", "--quiet", "--out", str(out)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    time.sleep(3)  # the kernels loaded and the step-0 run (many seconds of play) under way
    assert proc.poll() is None, proc.communicate()
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 143 and time.monotonic() - sent < 3, stderr
    assert stderr.strip().splitlines()[-2:] == [
        "the report folder is as it was (a search run again from the start gives the same result)",
        "terminated by SIGTERM"]  # each said once
    assert not out.exists() or [p.name for p in out.iterdir()] in ([], [".wsim-lock"])


def test_rebalance_takes_the_learned_population_with_its_estimate(tmp_path):
    """--population learned needs no cluster: the estimate is printed before play and the
    search writes its files."""
    out = tmp_path / "rb"
    res = run_cli("rebalance", "--population", "learned", "--players", "4", "--levers", "stages:giza", "--games",
                  "200", "--tolerance", "0.3", "--max-steps", "1", "--seed", "4", "--out", str(out))
    assert res.exit_code == 0, res.output
    assert "estimated play: at most" in res.stderr and (out / "result.csv").exists()
