"""`wsim atlas` end to end (docs/atlas.md): a tiny atlas (two counts, few games) built by the
command; every page there, every link resolving, every number on a page its CSV's, the CSVs a
recount of the datasets; an interrupted build resumed to the same bytes; a difference atlas;
bad options refused with nothing written."""

import glob
import json

import pandas as pd
import pyarrow.parquet as pq
import pytest

from atlas_checks import site_problems
from clikit import last_error_line, run_cli
from wsim.balance_atlas.cells import card_page, side_page

pytestmark = pytest.mark.slow

TINY = ("--players", "2,4", "--games", "240", "--search-games", "6", "--sample", "4", "--search-sample", "3",
        "--skill-games", "8", "--seed", "3")


def _build(out, *extra, data=None):
    """`wsim [--data DATA] atlas TINY EXTRA --out OUT`."""
    return run_cli(*(("--data", str(data)) if data else ()), "atlas", *TINY, *extra, "--out", str(out))


def _site_files(folder) -> dict:
    """Every file of the site but about.json (its generation date), data/ included."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != "about.json" and not p.name.startswith(".wsim")}


def _pages_exist(site):
    sides = pd.read_csv(site / "tables" / "sides.csv")
    cards = pd.read_csv(site / "tables" / "cards.csv")
    assert sorted(sides.players.unique()) == [2, 4] and set(sides.anchor) == {"search"}
    expected = {"index.html", "players-2.html", "players-4.html"}
    expected |= {side_page(w, s) for w, s in zip(sides.wonder, sides.side)}
    expected |= {card_page(c) for c in cards.card}
    assert expected <= {p.name for p in site.glob("*.html")}
    for name in ("rungs", "sides", "side_curve", "cards", "card_curve", "character", "findings"):
        csv = pd.read_csv(site / "tables" / f"{name}.csv", keep_default_na=False, dtype=str)
        par = pq.read_table(site / "tables" / f"{name}.parquet").to_pandas()
        assert list(csv.columns) == list(par.columns) and len(csv) == len(par) > 0, name


def _links_and_numbers(site):
    assert site_problems(site) == []
    assert (site / "index.html").read_text().count("data-src=") > 20
    assert (site / "players-4.html").read_text().count("data-src=") > 200


def _index_opens_with_the_findings(site):
    page = (site / "index.html").read_text()
    findings = pd.read_csv(site / "tables" / "findings.csv")
    assert len(findings) >= 1
    first = findings.sentence.iloc[0]
    import html

    assert html.escape(first, quote=False) in page or html.escape(first) in page


def _csvs_are_a_recount(site):
    curve = pd.read_csv(site / "tables" / "side_curve.csv")
    rungs = pd.read_csv(site / "tables" / "rungs.csv")
    for r in rungs.itertuples():
        rows = pd.concat([pq.read_table(f).to_pandas() for f in
                          sorted(glob.glob(str(site / "data" / f"P{r.players}" / r.rung / "*.parquet")))])
        assert rows.game.nunique() == r.games
        rows = rows[~rows.free_city] if "free_city" in rows else rows  # at 2 players the Free City is no player
        count = rows.groupby(["wonder", "side"]).agg(seats=("win", "size"), wins=("win", "sum")).reset_index()
        mine = curve[(curve.players == r.players) & (curve.rung == r.rung)].merge(count, on=["wonder", "side"])
        assert len(mine) == len(curve[(curve.players == r.players) & (curve.rung == r.rung)]) > 0
        assert (mine.seats_x == mine.seats_y).all()
        assert (abs(mine.win_rate - mine.wins / mine.seats_y) < 1e-5).all()
    sides = pd.read_csv(site / "tables" / "sides.csv")
    search = curve[curve.rung == "search"].merge(sides, on=["players", "wonder", "side"], suffixes=("", "_a"))
    assert (abs(search.win_rate - search.win_rate_a) < 1e-6).all()


def _resumes_to_the_same_bytes(site, tmp_path, monkeypatch):
    from wsim.balance_atlas import play

    real = play.write_dataset

    def interrupted(req, path, *rest, **named):
        if path.parent.name == "P4" and path.name == "learned":
            raise KeyboardInterrupt
        return real(req, path, *rest, **named)

    out = tmp_path / "cut"
    with monkeypatch.context() as m:
        m.setattr(play, "write_dataset", interrupted)
        cut = _build(out)
    assert cut.exit_code == 130 and "--resume" in cut.stderr
    assert not (out / "index.html").exists() and (out / "data" / "P2" / "search").is_dir()
    refused = _build(out)
    assert refused.exit_code == 2 and "unfinished atlas" in last_error_line(refused)
    other = run_cli("atlas", *TINY[:-2], "--seed", "4", "--resume", "--out", str(out))
    assert other.exit_code == 2 and "seed" in last_error_line(other)
    done = _build(out, "--resume")
    assert done.exit_code == 0, done.output
    # the same options, the same files: the resumed build is a second build of the fixture's atlas
    assert _site_files(out) == _site_files(site)
    about = json.loads((out / "about.json").read_text())
    assert about["options"]["seed"] == 3 and about["commands"][0].startswith("wsim atlas --players 2,4")


def _difference_atlas(site, tmp_path):
    from wsim import tables
    from wsim.analysis.edits import edited_text

    edited = tmp_path / "edited.yaml"
    edited.write_text(edited_text(tables.load(), ["giza/A.stage3.points=20"]))
    out = tmp_path / "diff"
    lacking = run_cli("atlas", *TINY[2:], "--players", "3", "--against", str(site), "--out", str(out))
    assert lacking.exit_code == 2 and "no games at 3 players" in last_error_line(lacking) and not out.exists()
    # one count of the earlier atlas's two is enough to compare
    result = run_cli("--data", str(edited), "atlas", *TINY[2:], "--players", "4", "--against", str(site),
                     "--out", str(out))
    assert result.exit_code == 0, result.output
    moves = pd.read_csv(out / "tables" / "side_moves.csv")
    assert set(moves.players) == {4} and set(moves.rung) == {"learned", "search"}
    giza = moves[(moves.wonder == "giza") & (moves.side == "A") & (moves.rung == "learned")]
    assert len(giza) == 1 and (giza["diff"] > 0.1).all()  # 13 more points: Giza A wins far more often
    others = moves[(moves.wonder != "giza") & (moves.rung == "learned")]
    assert (others["diff"] <= 0.05).all()
    assert "giza" in (out / "players-4.html").read_text().lower()
    assert site_problems(out) == []


def test_a_tiny_atlas_end_to_end(tmp_path, monkeypatch):
    """One build checked every way, then built again interrupted and resumed, then a difference
    atlas against it (one test: the three builds share one worker)."""
    site = tmp_path / "site"
    result = _build(site)
    assert result.exit_code == 0, result.output
    _pages_exist(site)
    _links_and_numbers(site)
    _index_opens_with_the_findings(site)
    _csvs_are_a_recount(site)
    _resumes_to_the_same_bytes(site, tmp_path, monkeypatch)
    _difference_atlas(site, tmp_path)


@pytest.mark.parametrize("args, message", [
    (("--players", "8"), "--players"),
    (("--players", "2,x"), "--players"),
    (("--games", "0"), "--games"),
    (("--search-games", "-1"), "--search-games"),
    (("--against", "no-such-file.yaml"), "--against"),
    (("--resume", "--overwrite"), "--overwrite"),
])
def test_bad_options_are_refused_and_nothing_is_written(tmp_path, args, message):
    out = tmp_path / "site"
    result = run_cli("atlas", "--games", "20", *args, "--out", str(out))
    assert result.exit_code == 2
    assert last_error_line(result).startswith("Error:") and message in last_error_line(result)
    assert not out.exists() or not any(out.iterdir())


def test_a_folder_that_is_not_an_atlas_is_refused(tmp_path):
    out = tmp_path / "site"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    for mode in ((), ("--resume",)):
        result = run_cli("atlas", *TINY, *mode, "--out", str(out))
        assert result.exit_code == 2 and last_error_line(result).startswith("Error:")
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]


def test_a_baseline_that_cannot_be_compared_is_refused_before_anything_is_played(tmp_path):
    from wsim import tables

    out = tmp_path / "site"
    same = run_cli("atlas", *TINY, "--against", str(tables.data_path()), "--out", str(out))
    assert same.exit_code == 2 and "the same card data" in last_error_line(same)
    (tmp_path / "empty").mkdir()
    not_atlas = run_cli("atlas", *TINY, "--against", str(tmp_path / "empty"), "--out", str(out))
    assert not_atlas.exit_code == 2 and "neither a data file nor an atlas folder" in last_error_line(not_atlas)
    assert not out.exists() or not any(out.iterdir())
