"""`wsim balance` and `wsim ablate` (docs/interfaces.md §5): edits, tables recomputed from the rows, a
planted imbalance found by the paired experiment, a self-contained page, and bad input."""

import csv
import html
import re
from pathlib import Path

import numpy as np
import pyarrow.dataset as pads
import pytest

from clikit import last_error_line, run_cli
from wsim.analysis import ablate as ablate_mod
from wsim import codes
from wsim.analysis.balance import report as report_mod
from wsim.analysis.edits import EditError, apply_edits
from wsim.analysis.stats import wilson_interval
from wsim.kernels.deal import deal
from wsim.people import columns as people_columns
from wsim.people import reference
from wsim.run.settings import Settings


def _rows(path) -> list:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("bal") / "ds"
    result = run_cli("simulate", "--games", "3000", "--players", "4", "--seed", "5", "--threads", "1",
                     "--out", str(out))
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """A small paired experiment with Altar made worth 12 points more."""
    out = tmp_path_factory.mktemp("abl") / "report"
    result = run_cli("ablate", "--edit", "Altar.points=+12", "--games", "2000", "--players", "4", "--seed", "8",
                     "--threads", "1", "--out", str(out))
    assert result.exit_code == 0, result.output
    return out, result


# -- edits ------------------------------------------------------------------------------------

def test_edits_are_spelled_like_everything_else(tables):
    a = apply_edits(tables, ["giza/B.Stage2=neutral", "ALTAR.POINTS=5", "Manneken Pis/A.stage1=neutral"])
    b = apply_edits(tables, ["giza/B.stage2=neutral", "Altar.points=5", "manneken_pis/A.stage1=neutral"])
    assert (a.ent == b.ent).all()


def test_edits_change_effects_and_never_the_deal(tables):
    edited = apply_edits(tables, ["Altar.points=+5", "Tavern.coins=0", "loom=neutral", "giza/B.stage2=neutral",
                                  "Temple.points=1"])
    altar, tavern, temple = (tables.card_id(n) for n in ("Altar", "Tavern", "Temple"))
    assert (tables.ent_points[altar], edited.ent_points[altar]) == (2, 7)
    assert (tables.ent_coins[tavern], edited.ent_coins[tavern]) == (5, 0)
    assert (tables.ent_points[temple], edited.ent_points[temple]) == (3, 1)
    looms = [i for i, n in enumerate(tables.card_names) if n == "Loom"]
    assert len(looms) == 2 and all(tables.ent_prod[i].any() and not edited.ent_prod[i].any() for i in looms)
    stage = tables.stage_entity(tables.board_id("giza"), 1, 1)
    assert tables.ent_points[stage] == 5 and edited.ent_points[stage] == 0
    assert (edited.ent_cost[stage] == tables.ent_cost[stage]).all()  # the cost stays
    assert b"# wsim ablate --edit Altar.points=+5" in edited.raw
    for players in (2, 3, 7):
        assert all((a == b).all() for a, b in zip(deal(tables, players, 11, 4), deal(edited, players, 11, 4)))


@pytest.mark.parametrize("edit, message", [
    ("Altarx.points=1", "unknown card 'Altarx'"),
    ("Altar.shields=2", "must be one of points, coins"),
    ("Altar.points=lots", "whole number"),
    ("Altar.points=-5", "cannot be negative"),
    ("Altar", "write CARD.points=N"),
    ("giza/B.stage5=neutral", "giza/B has stages 1..4, not 5"),
    ("giza/C.stage1=neutral", "a wonder's side is A or B, not 'C'"),
    ("giza.stage1=neutral", "a wonder stage is written WONDER/SIDE.stageK"),
    ("atlantis/A.stage1=neutral", "unknown wonder 'atlantis'"),
])
def test_bad_edits_are_refused(tables, edit, message):
    with pytest.raises(EditError, match=re.escape(message)):
        apply_edits(tables, [edit])


# -- wsim balance -----------------------------------------------------------------------------

def test_balance_tables_match_the_rows(dataset, tmp_path):
    out = tmp_path / "rep"
    result = run_cli("balance", str(dataset), "--out", str(out))
    assert result.exit_code == 0, result.output
    rows = pads.dataset(dataset).to_table(columns=["wonder", "side", "win", "cards", "vp_total"]).to_pylist()
    wonders = _rows(out / "wonders.csv")
    assert tuple(wonders[0])[:len(report_mod.WONDER_COLUMNS)] == report_mod.WONDER_COLUMNS
    assert [c for c in wonders[0] if c.startswith("vp_")] == [f"vp_{c}" for c in codes.CATEGORIES]
    assert sum(int(w["seats"]) for w in wonders) == len(rows) == 12000
    giza_b = next(w for w in wonders if (w["wonder"], w["side"]) == ("giza", "B"))
    seats = [r for r in rows if (r["wonder"], r["side"]) == ("giza", "B")]
    wins = sum(r["win"] for r in seats)
    assert (int(giza_b["seats"]), int(giza_b["wins"])) == (len(seats), wins)
    lo, hi = wilson_interval(wins, len(seats))
    assert float(giza_b["ci_low"]) == pytest.approx(lo, abs=1e-6) and float(giza_b["ci_high"]) == pytest.approx(hi, abs=1e-6)
    assert float(giza_b["mean_points"]) == pytest.approx(np.mean([r["vp_total"] for r in seats]), abs=1e-4)

    cards = _rows(out / "cards.csv")
    assert tuple(cards[0]) == report_mod.CARD_COLUMNS
    altar = next(c for c in cards if c["card"] == "Altar")
    built = [r for r in rows if "Altar" in r["cards"]]
    assert int(altar["seats_built"]) == len(built)
    assert float(altar["win_rate_built"]) == pytest.approx(np.mean([r["win"] for r in built]), abs=1e-5)
    assert float(altar["ci_low"]) < float(altar["effect"]) < float(altar["ci_high"])
    assert not (out / "paired.csv").exists()


def test_the_page_is_self_contained(dataset, planted, tmp_path):
    out = tmp_path / "rep"
    assert run_cli("balance", str(dataset), "--out", str(out)).exit_code == 0
    for page, plots in ((out / "index.html", 3), (planted[0] / "index.html", 5)):
        text = page.read_text()
        assert text.startswith("<!doctype html>") and text.rstrip().endswith("</html>")
        assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", text, re.I)
        assert not re.search(r"<(?:link|img|iframe)\b", text, re.I)
        assert re.findall(r"<script\b[^>]*>", text) == ["<script>"]  # one, inline: the sorting of the tables
        assert text.count("<svg") == plots and text.count("</svg>") == plots
        assert html.escape(report_mod.ASSOCIATION_NOTE) in text


def _column(table_html: str, heading: str) -> list:
    """The data-v values of one column of the first HTML table in `table_html`, top to bottom."""
    table = re.search(r"<table.*?</table>", table_html, re.S).group(0)
    i = re.findall(r"<th[^>]*>(.*?)</th>", table).index(heading)
    rows = re.findall(r"<tr>(.*?)</tr>", table)[1:]
    return [re.findall(r"<td(?: data-v=\"([^\"]*)\")?>", r)[i] for r in rows]


def test_the_page_answers_first_farthest_from_fair_first(dataset, tmp_path):
    """One verdict sentence per wonder side at the top, in the order of the distance from fair,
    the same order in the table, every plot row with its hover text, and the CSVs' new columns
    after the old ones."""
    out = tmp_path / "rep"
    assert run_cli("balance", str(dataset), "--out", str(out)).exit_code == 0
    wonders = _rows(out / "wonders.csv")
    assert tuple(wonders[0]) == (report_mod.WONDER_COLUMNS + tuple(f"vp_{c}" for c in codes.CATEGORIES)
                                 + report_mod.SIZE_COLUMNS + people_columns.PEOPLE_COLUMNS)
    text = (out / "index.html").read_text()
    assert text.index("<h2>Verdicts</h2>") < text.index("<h2>Wonders</h2>") < text.index("<h2>Cards</h2>")
    farthest = sorted(wonders, key=lambda w: -abs(float(w["diff"])))
    names = [f"{w['wonder'].title()} {w['side']}" for w in farthest]
    verdicts = text[text.index("<h2>Verdicts</h2>"):text.index("<h3>Cards</h3>")]
    sentences = re.findall(r"<li>(.*?)</li>", verdicts)
    assert [re.sub(r"^★ ", "", s).split(" (4 players)")[0] for s in sentences] == names
    for w, s in zip(farthest, sentences):
        if w["verdict"] in ("too strong", "too weak"):
            assert s.startswith("★ ") and f"points of win share <b>{w['verdict']}</b>" in s
        assert f"{int(w['seats']):,} seats (random at every seat)" in s and " VP [" in s
    table = text[text.index("<h2>Wonders</h2>"):text.index("<h2>Cards</h2>")]
    column = [float(v) for v in _column(table, "from fair (pp)")]
    assert len(column) == 14 and column == sorted(column, key=abs, reverse=True)  # the "from fair" column
    assert table.count("<title>") == 28  # the forest's rows and the points' rows
    cards = _rows(out / "cards.csv")
    assert text.count("<title>") == 1 + 28 + sum(1 for c in cards if c["effect"])  # the page's own, then the rows'


def _people_cells(row: dict, players: int, tables: str) -> None:
    """A CSV row's people columns are the people's win rate on its side (a shared first a win for
    each of its seats, as the page counts its own), read here from the reference's moments
    directly (side B on the all-B tables, side A on every table), with its Wilson interval."""
    m = reference.people().seat(players, tables, row["wonder"], row["side"], "win")
    low, high = wilson_interval(int(round(m.total)), int(round(m.n)))
    assert float(row["people_rate"]) == pytest.approx(m.mean, abs=1e-6)
    assert (float(row["people_ci_low"]), float(row["people_ci_high"])) == (pytest.approx(low, abs=1e-6),
                                                                          pytest.approx(high, abs=1e-6))
    assert int(row["people_seats"]) == m.n


def test_the_page_sets_people_beside_every_side_and_says_how_far_the_players_are(dataset, tmp_path):
    out = tmp_path / "rep"
    assert run_cli("balance", str(dataset), "--out", str(out)).exit_code == 0
    wonders = {(w["wonder"], w["side"]): w for w in _rows(out / "wonders.csv")}
    _people_cells(wonders["giza", "B"], 4, "all_b")
    _people_cells(wonders["rhodes", "A"], 4, "all")
    text = (out / "index.html").read_text()
    # the page's first lines: who played, and their distance to people at 4 players
    first = text[:text.index("<h2>Verdicts</h2>")]
    assert "Against people (Board Game Arena): random at every seat against people at 4 players (" in first
    assert "Wald χ²" in first and "rank correlation" in first
    table = text[text.index("<h2>Wonders</h2>"):text.index("<h2>Cards</h2>")]
    assert "people win %" in table and people_columns.SIDE_A_NOTE in table
    rates = [float(v) for v in _column(table, "people win %")]
    assert len(rates) == 14 and sum(r == r for r in rates) == 14  # every side of the 7 boards people played


@pytest.mark.parametrize("practical", ["0", "1", "-0.1", "1.5", "nan", "inf", "lots"])
def test_balance_refuses_a_bad_practical_threshold(dataset, tmp_path, practical):
    result = run_cli("balance", str(dataset), "--practical", practical, "--out", str(tmp_path / "rep"))
    assert result.exit_code == 2 and last_error_line(result).startswith("Error:"), result.output
    assert "--practical" in last_error_line(result)
    assert not (tmp_path / "rep").exists()


def test_a_large_practical_threshold_leaves_no_finding(dataset, tmp_path):
    """--practical 0.9 (22.5 points of win share at 4 players): every side is fair enough or not
    resolved, the threshold is in the CSV and the verdicts' preamble."""
    out = tmp_path / "rep"
    assert run_cli("balance", str(dataset), "--practical", "0.9", "--out", str(out)).exit_code == 0
    wonders = _rows(out / "wonders.csv")
    assert {w["verdict"] for w in wonders} <= {"fair enough", "not resolved"}
    assert all(float(w["threshold"]) == pytest.approx(0.9 * float(w["fair_share"]), rel=1e-5) for w in wonders)
    text = (out / "index.html").read_text()
    assert "90% of the fair share (22.5 points of win share at 4 players" in text
    assert "fair enough (within ±22.5)" in text and "★ " not in text.split("<h2>Paired")[0].split("<h3>Cards")[0]


def test_effects_with_a_policy_and_a_wonder_fixed_per_seat(tmp_path):
    """Policies (and fixed wonders) repeat the seat: the adjustment keeps one of each, and a
    seat that never wins plots and tabulates without a hitch."""
    out = tmp_path / "ds"
    assert run_cli("simulate", "--games", "1500", "--players", "4", "--policies", "greedy,greedy,random,random",
                   "--wonders", "fixed:giza/A,rhodes/A,babylon/A,olympia/A", "--seed", "3", "--threads", "1",
                   "--out", str(out)).exit_code == 0
    result = run_cli("balance", str(out), "--out", str(tmp_path / "rep"))
    assert result.exit_code == 0, result.output
    assert "Warning" not in result.stderr
    cards = {c["card"]: c for c in _rows(tmp_path / "rep" / "cards.csv")}
    estimated = [c for c in cards.values() if c["effect"]]
    assert len(estimated) > 30 and float(cards["Altar"]["ci_low"]) < float(cards["Altar"]["ci_high"])
    wonders = _rows(tmp_path / "rep" / "wonders.csv")
    assert {(w["wonder"], w["seats"]) for w in wonders} == {(b, "1500") for b in ("giza", "rhodes", "babylon", "olympia")}


def test_ablate_refuses_an_edit_of_a_board_out_of_play(tmp_path):
    result = run_cli("ablate", "--edit", "manneken_pis/A.stage1=neutral", "--games", "10", "--out", str(tmp_path / "r"))
    assert result.exit_code == 2 and "manneken_pis is not in play" in last_error_line(result)
    assert not (tmp_path / "r").exists()


def test_balance_refuses_a_part_of_another_run(dataset, tmp_path):
    import shutil

    other = tmp_path / "other"
    assert run_cli("simulate", "--games", "3000", "--players", "4", "--seed", "5", "--policy", "greedy",
                   "--threads", "1", "--chunk-size", "3000", "--out", str(other)).exit_code == 0
    mixed = tmp_path / "mixed"
    shutil.copytree(dataset, mixed)
    shutil.copy(other / "part-00000.parquet", mixed / "part-00000.parquet")
    result = run_cli("balance", str(mixed), "--out", str(tmp_path / "rep"))
    assert result.exit_code == 2 and "part-00000.parquet: checksum differs from the manifest" in last_error_line(result)
    assert not (tmp_path / "rep").exists()


def test_balance_refuses_a_baseline_of_other_games(dataset, tmp_path):
    other = tmp_path / "other"
    assert run_cli("simulate", "--games", "3000", "--players", "4", "--seed", "6", "--threads", "1",
                   "--out", str(other)).exit_code == 0
    result = run_cli("balance", str(dataset), "--baseline", str(other), "--out", str(tmp_path / "rep"))
    assert result.exit_code == 2
    assert "--baseline" in last_error_line(result) and "seed" in last_error_line(result)
    assert not (tmp_path / "rep").exists()


def test_balance_bad_input_writes_nothing(dataset, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "keep.txt").write_text("mine")
    cases = [
        ([str(tmp_path / "missing")], "no such folder"),
        ([str(a_file)], "not a folder"),
        ([str(empty)], "no wsim dataset here"),
        ([str(dataset), "--baseline", str(empty)], "--baseline"),
    ]
    for args, message in cases:
        result = run_cli("balance", *args, "--out", str(tmp_path / "rep"))
        assert result.exit_code == 2 and message in last_error_line(result), (args, result.output)
        assert not (tmp_path / "rep").exists()
    result = run_cli("balance", str(dataset), "--out", str(busy))
    assert result.exit_code == 2 and "not empty" in last_error_line(result)
    assert sorted(p.name for p in busy.iterdir()) == ["keep.txt"]


# -- wsim ablate ------------------------------------------------------------------------------

def test_ablate_finds_the_planted_imbalance(planted):
    out, result = planted
    paired = _rows(out / "paired.csv")
    assert tuple(paired[0]) == report_mod.PAIRED_COLUMNS
    effects = [p for p in paired if p["metric"] == "effect" and p["diff"]]
    top = max(effects, key=lambda p: abs(float(p["diff"])))
    assert top["key"] == "Altar@4"
    assert float(top["ci_low"]) > 0  # its CI excludes 0
    assert "Altar@4" in result.stdout
    wonders = [p for p in paired if p["metric"] == "win_rate"]
    assert len(wonders) == 14 and all(re.fullmatch(r"[a-z_]+/[AB]@4", p["key"]) for p in wonders)
    # pairing pays: the typical paired interval is narrower than two independent runs' one
    widths = [(float(p["ci_high"]) - float(p["ci_low"]), float(p["ci_high_independent"]) - float(p["ci_low_independent"]))
              for p in paired if p["ci_low"]]
    assert np.median([w / w_ind for w, w_ind in widths]) < 0.8


def test_ablate_keeps_both_datasets_of_the_same_deals(planted):
    out, _ = planted
    for name in ("baseline", "edited"):
        result = run_cli("check", str(out / "data" / name))
        assert result.exit_code == 0 and result.stdout.startswith("ok: 2000 games"), result.output
    base, edited = (pads.dataset(out / "data" / n).to_table(columns=["game", "seat", "wonder", "side", "vp_civilian"])
                    for n in ("baseline", "edited"))
    assert base.select(["game", "seat", "wonder", "side"]).equals(edited.select(["game", "seat", "wonder", "side"]))
    assert not base["vp_civilian"].equals(edited["vp_civilian"])  # Altar scores more in the edited games


@pytest.mark.parametrize("players, policy", [(2, "greedy"), (3, "heuristic")])
def test_ablate_runs_at_two_players_and_with_heuristic(tmp_path, players, policy):
    out = tmp_path / "r"
    result = run_cli("ablate", "--edit", "Scriptorium=neutral", "--edit", "giza/A.stage3=neutral", "--games", "300",
                     "--players", str(players), "--policy", policy, "--seed", "2", "--threads", "1", "--out", str(out))
    assert result.exit_code == 0, result.output
    paired = _rows(out / "paired.csv")
    assert {p["key"] for p in paired} >= {f"giza/A@{players}", f"Scriptorium@{players}"}
    wonders = _rows(out / "wonders.csv")
    assert sum(int(w["seats"]) for w in wonders) == 300 * players  # the Free City's rows are left out
    # the people column and the distance to people of both runs: none at 2 players
    page = (out / "index.html").read_text()
    first = page[:page.index("<h2>Verdicts</h2>")]
    if players == 2:
        assert all(w[c] == "" for w in wonders for c in people_columns.PEOPLE_COLUMNS)
        assert "no people data at 2 players" in first
    else:
        giza_b = next(w for w in wonders if (w["wonder"], w["side"]) == ("giza", "B"))
        _people_cells(giza_b, players, "all_b")
        for run in ("the dataset", "the baseline"):
            assert f"{run} ({policy} at every seat) against people at {players} players" in first


def test_ablate_bad_input_writes_nothing(tmp_path):
    out = tmp_path / "r"
    for args, message in ([("--edit", "Nothing.points=1"), "unknown card 'Nothing'"],
                          [("--edit", "Altar.points=1", "--players", "9"), "--players"]):
        result = run_cli("ablate", *args, "--games", "10", "--out", str(out))
        assert result.exit_code == 2 and message in last_error_line(result), result.output
        assert not out.exists()
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    result = run_cli("ablate", "--edit", "Altar.points=1", "--games", "10", "--out", str(out))
    assert result.exit_code == 2 and "not empty" in last_error_line(result)
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]


def test_ablate_interrupted_leaves_the_old_report(planted, tables, monkeypatch):
    out, _ = planted
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    page = (out / "index.html").read_bytes()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(ablate_mod, "build", interrupted)
    with pytest.raises(KeyboardInterrupt):
        ablate_mod.run_ablate(tables, apply_edits(tables, ["Altar=neutral"]), Settings(players=3, games=20, policies=("random",) * 3), out,
                              True, False)
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before
    assert (out / "index.html").read_bytes() == page
    assert not any(p.name.startswith(".wsim-staging") for p in Path(out).iterdir())


def test_without_the_analysis_extra_the_commands_name_it(dataset, tmp_path, monkeypatch):
    from wsim.api import analysis

    monkeypatch.setattr(analysis, "ANALYSIS_LIBRARIES", analysis.ANALYSIS_LIBRARIES + ("wsim_no_such_library",))
    for args in (["balance", str(dataset)], ["ablate", "--edit", "Altar=neutral", "--games", "10"]):
        result = run_cli(*args, "--out", str(tmp_path / "r"))
        assert result.exit_code == 2 and "pip install 'wsim[analysis]'" in last_error_line(result)
        assert not (tmp_path / "r").exists()


@pytest.mark.system
def test_simulate_never_imports_the_analysis_libraries(tmp_path):
    """`wsim simulate` starts fast: the analysis and rating libraries load only in their commands
    (scipy is left out of the check: numba itself imports it when it is installed)."""
    import subprocess
    import sys

    code = ("import sys; from wsim.cli.entry import run; sys.argv = ['wsim', 'simulate', '--games', '2', '--threads', '1', "
            f"'--out', {str(tmp_path / 'ds')!r}]\n"
            "try:\n    run()\nexcept SystemExit:\n    pass\n"
            "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'duckdb', 'statsmodels', 'matplotlib', 'pandas', "
            "'openskill', 'cma'})\n"
            "print('HEAVY', heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert "HEAVY []" in out.stdout, out.stdout + out.stderr


@pytest.mark.system
def test_sigterm_during_ablate_keeps_the_old_report(planted):
    import signal
    import subprocess
    import sys
    import time

    out, _ = planted
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    proc = subprocess.Popen([sys.executable, "-m", "wsim", "ablate", "--edit", "Altar=neutral", "--policy", "heuristic",
                             "--games", "200000", "--threads", "1", "--overwrite", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    end = time.monotonic() + 120
    while not (out / ".wsim-staging").exists() and time.monotonic() < end:  # the run has begun
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    time.sleep(1.0)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 143, stderr
    assert "the report folder is as it was" in stderr
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
