"""`wsim people` end to end: a small population played at two counts and a dataset as a source, the
files and the distance lines they print, --overwrite and --resume, and the user's mistakes (an
`Error:` line, exit 2, nothing written)."""

import csv

import pytest
from clikit import last_error_line, run_cli

pytestmark = pytest.mark.slow  # it plays games (a few seconds)

SMALL = ("--population", "h=heuristic", "--players", "3,4", "--games", "200", "--threads", "1", "--quiet")
CSVS = ("boards.csv", "lasts.csv", "play.csv", "breakdown.csv", "distance.csv")


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    out = tmp_path_factory.mktemp("people") / "r"
    result = run_cli("people", *SMALL, "--out", str(out))
    assert result.exit_code == 0, result.stderr
    return out, result


def _files(folder) -> dict:
    return {n: (folder / n).read_bytes() for n in ("index.html", *CSVS)}


def test_a_population_at_two_counts(played):
    out, result = played
    assert sorted(p.name for p in (out / "data").iterdir()) == ["h-3", "h-4"]
    lines = result.stdout.splitlines()
    assert lines[0] == "3 players" and lines[1].startswith("  h: 3 players (side B, tables all on side B; 200 games")
    assert "Wald χ²" in lines[1] and "4 players" in lines and lines[-1].startswith("people: ")
    distance = list(csv.DictReader((out / "distance.csv").open()))
    assert [(r["population"], r["players"], r["tables"], r["df"], r["games"]) for r in distance] == [
        ("h", "3", "all_b", "7", "200"), ("h", "4", "all_b", "7", "200")]
    boards = list(csv.DictReader((out / "boards.csv").open()))
    assert len(boards) == 14 and all(0 <= float(r["rate"]) <= 1 and r["q_value"] for r in boards)
    play = {(r["players"], r["quantity"]): r for r in csv.DictReader((out / "play.csv").open())}
    assert play[("3", "mean_points")]["n"] == "200" and play[("3", "discards")]["people_mean"]
    assert "Distance to people" in (out / "index.html").read_text()
    assert run_cli("check", str(out / "data" / "h-3")).exit_code == 0


def test_a_dataset_as_a_source(played, tmp_path):
    out, _ = played
    named = run_cli("people", f"mine={out / 'data' / 'h-3'}", str(out / "data" / "h-4"), "--out", str(tmp_path / "d"))
    assert named.exit_code == 0, named.stderr
    assert "  mine: 3 players (side B" in named.stdout and "  h-4: 4 players (side B" in named.stdout
    assert not (tmp_path / "d" / "data").exists()
    # the same games give the same comparison, whether played here or read as a dataset
    rows = {r["players"]: r for r in csv.DictReader((tmp_path / "d" / "distance.csv").open())}
    again = {r["players"]: r for r in csv.DictReader((out / "distance.csv").open())}
    assert rows["3"]["chi2"] == again["3"]["chi2"] and rows["4"]["spearman"] == again["4"]["spearman"]


def test_a_tiny_dataset_gives_the_numbers_counted_by_hand(played, tmp_path):
    """`wsim people` on the 200 three-player games: each board's first-place share (a shared first
    1/k), its seats, the mean points and the discards a seat equal a plain recount of the dataset's
    rows, and people's column equals the shipped reference's moments."""
    import pyarrow.parquet as pq

    from wsim.people.reference import people

    out, _ = played
    rows = pq.read_table(out / "data" / "h-3").to_pylist()
    assert run_cli("people", str(out / "data" / "h-3"), "--players", "3", "--out", str(tmp_path / "t")).exit_code == 0
    firsts, seats = {}, {}
    for game in {r["game"] for r in rows}:
        table = [r for r in rows if r["game"] == game]
        winners = [r for r in table if r["rank"] == 1]
        for r in table:
            seats[r["wonder"]] = seats.get(r["wonder"], 0) + 1
            firsts[r["wonder"]] = firsts.get(r["wonder"], 0.0) + (1 / len(winners) if r["rank"] == 1 else 0.0)
    boards = {r["wonder"]: r for r in csv.DictReader((tmp_path / "t" / "boards.csv").open())}
    assert set(boards) == set(seats) and all(r["side"] == "B" and r["tables"] == "all_b" for r in boards.values())
    for wonder, r in boards.items():
        assert int(r["seats"]) == seats[wonder] and float(r["rate"]) == pytest.approx(firsts[wonder] / seats[wonder], rel=1e-5)
        m = people().seat(3, "all_b", wonder, "B", "first")
        assert float(r["people_rate"]) == pytest.approx(m.mean, abs=1e-6) and int(r["people_seats"]) == m.n
    play = {r["quantity"]: r for r in csv.DictReader((tmp_path / "t" / "play.csv").open())}
    assert float(play["mean_points"]["mean"]) == pytest.approx(sum(r["vp_total"] for r in rows) / len(rows), abs=1e-4)
    assert float(play["discards"]["mean"]) == pytest.approx(sum(r["discards"] for r in rows) / len(rows), abs=1e-4)


def test_overwrite_and_resume(played, tmp_path):
    out, _ = played
    target = tmp_path / "r"
    assert run_cli("people", *SMALL, "--out", str(target)).exit_code == 0
    whole = _files(target)
    refused = run_cli("people", *SMALL, "--out", str(target))
    assert refused.exit_code == 2 and "--overwrite" in last_error_line(refused)
    # an interrupted run: the report and the second count's dataset missing
    for name in ("index.html", *CSVS):
        (target / name).unlink()
    for p in (target / "data" / "h-4").iterdir():
        p.unlink()
    (target / "data" / "h-4").rmdir()
    done = run_cli("people", *SMALL, "--resume", "--out", str(target))
    assert done.exit_code == 0, done.stderr
    assert _files(target) == whole
    other = run_cli("people", *SMALL[:-3], "--seed", "1", "--threads", "1", "--resume", "--out", str(target))
    assert other.exit_code == 2 and "--seed" in last_error_line(other)
    assert run_cli("people", *SMALL, "--overwrite", "--out", str(target)).exit_code == 0
    assert _files(target) == whole


@pytest.mark.parametrize("args, message", [
    (("--players", "2,3"), "--players: people's games are at 3 to 7 players, got 2"),
    (("--players", "3,x"), "--players: player counts such as 4 or 3,4,5"),
    (("--population", "h=nonsense"), "--population h:"),
    (("--population", "bad name=heuristic"), "--population: name"),
    (("--policy-param", "greedy.coin=3"), "--policy-param:"),
])
def test_mistakes_are_refused_and_write_nothing(tmp_path, args, message):
    default = () if "--population" in args else ("--population", "h=heuristic")
    result = run_cli("people", *default, *args, "--games", "10", "--out", str(tmp_path / "r"))
    assert result.exit_code == 2 and last_error_line(result).startswith(f"Error: {message}"), result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "r").exists()


def test_a_folder_that_is_not_a_dataset_is_refused(tmp_path, played):
    out, _ = played
    empty = tmp_path / "empty"
    empty.mkdir()
    for source, message in ((str(empty), str(empty)), (str(tmp_path / "missing"), "no such dataset folder")):
        result = run_cli("people", source, "--out", str(tmp_path / "r"))
        assert result.exit_code == 2 and message in last_error_line(result), result.stderr
        assert not (tmp_path / "r").exists()
    elsewhere = run_cli("people", str(out / "data" / "h-3"), "--players", "4", "--out", str(tmp_path / "r"))
    assert elsewhere.exit_code == 2 and "its games are at 3 players" in last_error_line(elsewhere)
    inside = run_cli("people", str(out / "data" / "h-3"), "--overwrite", "--out", str(out))
    assert inside.exit_code == 2 and "give the report a folder of its own" in last_error_line(inside)
    twice = run_cli("people", f"h={out / 'data' / 'h-3'}", "--population", "h=greedy", "--players", "3",
                    "--games", "10", "--out", str(tmp_path / "r"))
    assert twice.exit_code == 2 and "'h' names two sources" in last_error_line(twice)
    assert not (tmp_path / "r").exists()


def test_from_python(played, tmp_path):
    from wsim.api.people import people
    from wsim.errors import WsimError

    out, _ = played
    result = people(tmp_path / "py", [f"mine={out / 'data' / 'h-4'}"], players=[4])
    assert [(c.population, c.players) for c in result.comparisons] == [("mine", 4)]
    assert len(result.boards) == 7 and result.distances[0]["df"] == 7 and result.text.startswith("4 players")
    assert sorted(result.files) == sorted(("index.html", *CSVS))
    for kwargs, message in (({"players": 2}, "players: people's games are at 3 to 7 players"),
                            ({"sides": "A"}, "sides:"), ({"datasets": str(out)}, "datasets:"),
                            ({"populations": []}, "populations:"), ({"overwrite": "no"}, "overwrite:")):
        with pytest.raises(WsimError, match=f"^{message}"):
            people(tmp_path / "no", **kwargs)
    assert not (tmp_path / "no").exists()


def test_the_play_is_estimated_before_it_starts(tmp_path):
    """Each population at each count gets a pilot's estimate before anything is played (from
    Python, on_estimate; the command prints it unless --quiet), none on --resume."""
    from wsim.api.people import people

    got = []
    people(tmp_path / "e", populations=["h=heuristic", "g=greedy"], players=(3, 4), games=40, threads=1,
           on_estimate=got.extend)
    assert [name for name, _ in got] == ["h-3", "g-3", "h-4", "g-4"] and all(s > 0 for _, s in got)
    printed = run_cli("people", "--population", "h=heuristic", "--players", "3", "--games", "40", "--out",
                      str(tmp_path / "p"))
    assert printed.exit_code == 0 and "estimated play:" in printed.stderr
