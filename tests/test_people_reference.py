"""The human games: the BGA reader on a slice of the raw files (tests/data/bga, numbers checked by
hand and by a recount in plain Python), the shipped reference's totals and pinned numbers, the
reader's refusals, and a wsim dataset read as seats (wsim.people.bga, build, reference, seats)."""

import csv
from collections import Counter
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from wsim.people import bga, build
from wsim.people.aggregate import ANY, Aggregate, aggregate
from wsim.people.reference import PEOPLE_NAME, describe, people

SLICE = Path(__file__).parent / "data" / "bga"
COUNTS = (3, 4)


@pytest.fixture(scope="module")
def slice_seats():
    seats, records = bga.read_folder(SLICE, COUNTS)
    return seats, records


@pytest.fixture(scope="module")
def slice_agg():
    return build.build(SLICE, counts=COUNTS)


def _row(seats, players, game, rank_row):
    """The seat of `players`' game `game`, its `rank_row`-th row (0-based), as a dict."""
    idx = np.flatnonzero((seats["players"] == players) & (seats["game"] == game))[rank_row]
    return {k: (v[idx].item() if hasattr(v[idx], "item") else v[idx]) for k, v in seats.items()}


# ---- (1) the slice, checked by hand


def test_slice_files_as_read(slice_seats):
    seats, records = slice_seats
    assert [(r.name, r.players, r.games, r.rows, r.nan_games) for r in records] == [
        ("7wonders3players.csv", 3, 8, 24, 1), ("7wonders4players.csv", 4, 6, 24, 0)]
    assert len(seats["players"]) == 48
    assert set(seats) == set(bga.COLUMNS)
    assert (SLICE / "7wonders4players.csv").read_bytes().count(b"\r\n") == 25  # CRLF kept
    assert b"\r" not in (SLICE / "7wonders3players.csv").read_bytes()


def test_hand_checked_rows(slice_seats):
    seats, _ = slice_seats
    # 3-player game 6 (slice line 20): 1st (56); 17; -1; 9; 7; 15; 0; 9; 0; 2; 0; 4; 4; 16; 10; no; 11;
    # 3; 0; 0; 4; 5; 4; NaN
    assert _row(seats, 3, 6, 0) == {
        "players": 3, "game": 6, "wonder": "rhodes", "side": "B", "rank": 1, "vp_military": 16, "vp_treasury": 9,
        "vp_wonder": 7, "vp_civilian": 15, "vp_science": 0, "vp_commercial": 9, "vp_guild": 0, "vp_total": 56,
        "stages": 2, "discards": 0, "chained": 4, "coins_paid": 4, "coins_received": 16, "shields": 10,
        "civilian_cards": 3, "science_cards": 0, "guild_cards": 0, "military_cards": 4, "commercial_cards": 5,
        "raw_cards": 4, "manufactured_cards": 0}
    # 4-player game 0, third row: 3rd (51); 0; -6; ... yes; 1 -> Giza side A
    r = _row(seats, 4, 0, 2)
    assert (r["wonder"], r["side"], r["rank"], r["vp_military"], r["vp_total"]) == ("giza", "A", 3, -6, 51)
    assert _row(seats, 4, 0, 0)["vp_military"] == 9 - 2
    assert _row(seats, 3, 0, 0)["vp_military"] == 10 - 4
    # the shared firsts: 3-player game 7 (Halicarnassus A and Giza A at 57), 4-player game 4 (61)
    assert [_row(seats, 3, 7, i)["rank"] for i in range(3)] == [1, 1, 3]
    assert [(_row(seats, 3, 7, i)["wonder"], _row(seats, 3, 7, i)["side"]) for i in range(2)] == [
        ("halicarnassus", "A"), ("giza", "A")]
    assert [_row(seats, 4, 4, i)["rank"] for i in range(4)] == [1, 1, 3, 4]
    # 4-player game 2: 52 and 52, third and fourth (coins)
    assert [_row(seats, 4, 2, i)["rank"] for i in range(4)] == [1, 2, 3, 4]
    # the seat that built nothing: 4-player game 5's last row
    r = _row(seats, 4, 5, 3)
    assert (r["wonder"], r["vp_total"], r["discards"], r["stages"]) == ("halicarnassus", 15, 18, 0)
    assert bga.games_where(seats, bga.built_nothing(seats)) == {3: 0, 4: 1}
    assert bga.games_where(seats, seats["vp_total"] <= 15) == {3: 0, 4: 1}


def test_hand_checked_aggregate(slice_agg):
    a = slice_agg
    assert (a.n_games(3), a.n_games(3, "all_b"), a.n_games(4), a.n_games(4, "all_b")) == (8, 5, 6, 4)
    # 3 players, every table: Rhodes won 4 of its 6 seats; Giza 1 + 1/2 (a shared first) of 3;
    # Halicarnassus 1 + 1/2 of 4; Alexandria 1 of 5; Olympia and Ephesus none
    first = {w: (a.seat(3, "all", w, ANY, "first").total, a.seat(3, "all", w, ANY, "first").n)
             for w in a.boards(3, "all", ANY)}
    assert first == {"rhodes": (4, 6), "giza": (1.5, 3), "halicarnassus": (1.5, 4), "alexandria": (1, 5),
                     "olympia": (0, 4), "ephesus": (0, 2)}
    assert a.seat(3, "all", "giza", "A", "first").mean == 0.5
    assert a.seat(3, "all", "halicarnassus", "A", "first").mean == 0.5
    # 4 players: gaps 14, 10, 11, 14, 11, 43 (all-B games: 10, 11, 14, 43); 1227 points over 24 seats
    assert a.game(4, "all", "gap").mean == pytest.approx(103 / 6)
    assert a.game(4, "all_b", "gap").mean == 19.5
    assert a.game(3, "all", "gap").mean == 51 / 8
    assert a.seat(4, "all", ANY, ANY, "vp_total").mean == pytest.approx(1227 / 24)
    assert a.seat(4, "all", "giza", ANY, "first").mean == 1.5 / 4
    assert a.seat(4, "all", "giza", "B", "first").mean == 0.5
    assert a.seat(4, "all_b", "halicarnassus", "B", "first").mean == pytest.approx(1 / 3)
    assert a.seat(4, "all", "olympia", "A", "first").mean == 0
    assert a.seat(4, "all", "babylon", ANY, "first").mean == 1 / 5


# ---- (2) the slice recounted in plain Python

WONDERS = ["giza", "babylon", "olympia", "rhodes", "ephesus", "alexandria", "halicarnassus"]


def _recount():
    """Every slice seat as a plain dict, from the CSV rows (csv module, no code under test)."""
    out = []
    for n in COUNTS:
        with open(SLICE / f"7wonders{n}players.csv", newline="") as f:
            rows = list(csv.reader(f, delimiter=";"))[1:]
        for g in range(len(rows) // n):
            game = rows[g * n:(g + 1) * n]
            ranks = [int(re.match(r"\d+", r[0]).group()) for r in game]
            scores = [int(r[0].split("(")[1].rstrip(")")) for r in game]
            firsts = ranks.count(1)
            lasts = ranks.count(max(ranks))
            all_b = all(r[16] == "no" for r in game)
            for r, rank, score in zip(game, ranks, scores):
                out.append({"players": n, "game": g, "all_b": all_b, "wonder": WONDERS[(int(r[17]) - 1) % 7],
                            "side": "A" if r[16] == "yes" else "B", "score": score,
                            "first": 1 / firsts if rank == 1 else 0.0,
                            "last": 1 / lasts if rank == max(ranks) else 0.0,
                            "military": int(r[2]) + int(r[3]), "science": int(r[7]),
                            "paid": int(r[13]), "grey": 0 if r[24] == "NaN" else int(r[24]),
                            "game_scores": scores})
    return out


def _mean(values):
    return sum(values) / len(values)


def test_slice_recount(slice_agg):
    a = slice_agg
    seats = _recount()
    for n in COUNTS:
        for tables in ("all", "all_b"):
            mine = [s for s in seats if s["players"] == n and (tables == "all" or s["all_b"])]
            for w in sorted({s["wonder"] for s in mine}):
                on = [s for s in mine if s["wonder"] == w]
                for quantity, key in (("first", "first"), ("vp_total", "score")):
                    assert a.seat(n, tables, w, ANY, quantity).mean == pytest.approx(_mean([s[key] for s in on]),
                                                                                     abs=1e-9)
                on_b = [s for s in on if s["side"] == "B"]
                if on_b:
                    assert a.seat(n, tables, w, "B", "last").mean == pytest.approx(_mean([s["last"] for s in on_b]),
                                                                               abs=1e-9)
            every = a.seat(n, tables, ANY, ANY, "vp_military")
            assert every.n == len(mine)
            assert every.mean == pytest.approx(_mean([s["military"] for s in mine]), abs=1e-9)
            assert a.seat(n, tables, ANY, ANY, "manufactured_cards").mean == pytest.approx(
                _mean([s["grey"] for s in mine]), abs=1e-9)
            assert a.seat(n, tables, ANY, ANY, "coins_paid").mean == pytest.approx(_mean([s["paid"] for s in mine]),
                                                                                  abs=1e-9)
            games = {s["game"]: s["game_scores"] for s in mine}
            assert a.game(n, tables, "gap").mean == pytest.approx(_mean([max(g) - min(g) for g in games.values()]),
                                                                  abs=1e-9)
            assert a.game(n, tables, "winner_points").mean == pytest.approx(_mean([max(g) for g in games.values()]),
                                                                            abs=1e-9)
            winners = [s for s in mine if s["first"]]
            science_20 = sum(s["first"] * (s["science"] >= 20) for s in winners) / sum(s["first"] for s in winners)
            assert a.winner(n, tables, "science_20").mean == pytest.approx(science_20, abs=1e-9)
            # first shares sum to one a game
            assert sum(a.seat(n, tables, w, ANY, "first").total for w in a.boards(n, tables, ANY)) == pytest.approx(
                len(games))


def test_build_is_deterministic_and_round_trips(slice_agg):
    data = build.encode(slice_agg)
    assert data == build.encode(build.build(SLICE, counts=COUNTS))
    back = Aggregate.from_json(json.loads(data))
    assert back.seats == slice_agg.seats and back.games == slice_agg.games and back.winners == slice_agg.winners
    assert back.source["totals"] == {"games": 14, "seats": 48}
    assert back.source["treatment"]["abandoned_games"] == {"3": 0, "4": 1}
    assert "built" not in back.source
    assert build.build(SLICE, built="2026-01-01", counts=COUNTS).source["built"] == "2026-01-01"


# ---- (3) the shipped reference

GAMES = {3: 4504, 4: 2579, 5: 666, 6: 230, 7: 378}


def test_reference_totals():
    a = people()
    assert a.counts() == [3, 4, 5, 6, 7]
    assert {p: a.n_games(p) for p in GAMES} == GAMES
    assert sum(a.n_games(p) for p in GAMES) == 8357
    assert sum(a.seat(p, "all", ANY, ANY, "first").n for p in GAMES) == 31184
    for p, n in GAMES.items():
        assert a.seat(p, "all", ANY, ANY, "first").n == p * n
        for tables in ("all", "all_b"):
            total = sum(a.seat(p, tables, w, ANY, "first").total for w in a.boards(p, tables, ANY))
            assert total == pytest.approx(a.n_games(p, tables), abs=1e-9)
            assert a.n_games(p, tables) == pytest.approx(a.seat(p, tables, ANY, ANY, "first").total, abs=1e-9)


def test_reference_source():
    s = people().source
    assert s["name"] == "Board Game Arena, first edition, March 2020"
    assert s["origin"]["repository"] == "dmag-ufsm/7wondersDataMinning"
    assert (s["origin"]["folder"], s["origin"]["commit"], s["origin"]["date"]) == (
        "datasets/abril 2020/", "cd1dd7ce", "2020-06-10")
    assert s["totals"] == {"games": 8357, "seats": 31184}
    assert s["games"] == {str(p): n for p, n in GAMES.items()}
    assert [(f["file"], f["games"], f["rows"]) for f in s["files"]] == [
        (f"7wonders{p}players.csv", n, p * n) for p, n in GAMES.items()]
    assert all(re.fullmatch("[0-9a-f]{64}", f["sha256"]) for f in s["files"])
    t = s["treatment"]
    assert t["kept"] == "all" and "rule" in t
    assert t["abandoned_games"] == {"3": 0, "4": 1, "5": 0, "6": 0, "7": 0}
    assert t["lowest_seat_at_most_15_points"] == {"3": 0, "4": 1, "5": 0, "6": 0, "7": 0}
    assert t["games_with_nan_colour_count"] == {"3": 34, "4": 0, "5": 0, "6": 0, "7": 0}
    assert describe() == f"{PEOPLE_NAME}: 8,357 Board Game Arena games (March 2020, 3–7 players)"


def test_reference_pinned_numbers():
    a = people()
    # the sum of each game's gap (winner's points less the last's), per count, from the raw files
    assert {p: a.game(p, "all", "gap").total for p in GAMES} == {3: 53359, 4: 42127, 5: 12593, 6: 4805, 7: 8680}
    # Halicarnassus B's first share on all-B tables, per count (seats, shares)
    assert {p: tuple(a.seat(p, "all_b", "halicarnassus", "B", "first").to_list()[:2]) for p in GAMES} == {
        3: (1396, 528), 4: (955, 307.5), 5: (253, 63), 6: (85, 18), 7: (108, 26)}
    # 4 players, all-B tables, side B: first shares (a shared first counted 1/k)
    shares = {w: round(100 * a.seat(4, "all_b", w, "B", "first").mean, 1) for w in a.boards(4, "all_b", "B")}
    assert shares == {"halicarnassus": 32.2, "rhodes": 27.9, "alexandria": 26.0, "ephesus": 24.5, "giza": 21.5,
                      "olympia": 21.5, "babylon": 20.7}
    lo, hi = a.seat(4, "all_b", "halicarnassus", "B", "first").ci
    assert (round(100 * lo), round(100 * hi)) == (29, 35)
    # 4 players, every table: the score level
    assert round(a.seat(4, "all", ANY, ANY, "vp_total").mean, 1) == 52.6
    assert round(a.game(4, "all", "mean_points").mean, 1) == 52.6
    assert round(a.game(4, "all", "gap").mean, 1) == 16.3
    assert round(a.seat(4, "all", ANY, ANY, "vp_science").mean, 1) == 11.0
    assert round(a.seat(4, "all", ANY, ANY, "vp_civilian").mean, 1) == 13.2


# ---- (4) bad input

HEADER_LINE = (SLICE / "7wonders3players.csv").read_text().splitlines()[0]


def _write(tmp_path, lines, players=3):
    path = tmp_path / bga.file_name(players)
    path.write_text("\n".join(lines) + "\n")
    return path


def _slice_lines():
    return (SLICE / "7wonders3players.csv").read_text().splitlines()


def _edit(line: str, index: int, value: str) -> str:
    cells = line.split(";")
    cells[index] = value
    return ";".join(cells)


F3 = r"7wonders3players\.csv"


@pytest.mark.parametrize("change, message", [
    (lambda ls: [ls[0].replace(" VP from Civilian", "VP from Civilian")] + ls[1:], F3 + ":1: unexpected header"),
    (lambda ls: ls[:2] + [_edit(ls[2], 4, "6")] + ls[3:], F3 + ":3: the points by category sum to 46, not the score"),
    (lambda ls: [ls[0], _edit(ls[1], 16, "yes")] + ls[2:], F3 + ":2: Wonder side A is yes but Wonder ID 11"),
    (lambda ls: [ls[0], _edit(ls[1], 17, "15")] + ls[2:], r"7wonders3players\.csv:2: Wonder ID 15"),
    (lambda ls: ls[:5] + [_edit(_edit(ls[5], 0, "2nd (49)"), 4, "2")] + ls[6:],
     r"7wonders3players\.csv:6: 49 points after a row of 48: rows not in finishing order"),
    (lambda ls: ls[:3] + [_edit(ls[3], 0, "4th (45)")] + ls[4:], r"7wonders3players\.csv:4: place 4 in row 3"),
    (lambda ls: ls[:4] + [_edit(ls[4], 0, "2nd (48)")] + ls[5:], r"7wonders3players\.csv:5: a game's first row"),
    (lambda ls: ls[:2] + [_edit(ls[2], 0, "1nd (45)")] + ls[3:], r"7wonders3players\.csv:3: shares place 1 with 51"),
    (lambda ls: ls[:19] + [_edit(ls[19], 24, "1")] + ls[20:], F3 + ":20: a manufactured_cards count of NaN"),
    (lambda ls: [ls[0], _edit(ls[1], 12, "x")] + ls[2:], r"7wonders3players\.csv:2: Chained constructions is 'x'"),
    (lambda ls: [ls[0], ls[1] + ";1"] + ls[2:], r"7wonders3players\.csv:2: 26 fields"),
    (lambda ls: ls[:-1], r"7wonders3players\.csv: 23 rows are not whole games of 3"),
])
def test_bad_input_refused(tmp_path, change, message):
    path = _write(tmp_path, change(_slice_lines()))
    with pytest.raises(ValueError, match=message):
        bga.read_file(path, 3)


def test_bad_folder(tmp_path):
    with pytest.raises(ValueError, match="no 7wonders3players.csv"):
        bga.read_folder(tmp_path)
    assert build.main([str(tmp_path), "--out", str(tmp_path / "x.json")]) == 2
    assert not (tmp_path / "x.json").exists()


def test_the_slice_itself_reads(tmp_path):
    assert len(bga.read_file(_write(tmp_path, _slice_lines()), 3)[0]["players"]) == 24


# ---- (5) a wsim dataset as seats


def test_dataset_round_trip(tmp_path, tables):
    import wsim
    from wsim import codes
    from wsim.people.seats import COLOUR_COLUMN, dataset_aggregate, dataset_seats

    ds = wsim.simulate(games=20, players=4, policies="heuristic", seed=1, out=tmp_path / "h4")
    rows = ds.to_arrow().to_pylist()
    seats = dataset_seats(tmp_path / "h4", tables)
    assert len(seats["players"]) == 80
    assert seats["rank"].tolist() == [r["rank"] for r in rows]
    assert seats["game"].tolist() == [r["game"] for r in rows]
    assert seats["wonder"].tolist() == [r["wonder"] for r in rows]
    assert seats["vp_total"].tolist() == [r["vp_total"] for r in rows]
    colours = sum(seats[c] for c in COLOUR_COLUMN.values())
    assert colours.tolist() == [len(r["cards"]) for r in rows]
    for i, r in enumerate(rows):  # each card's colour, by its id in the card data
        kinds = Counter(codes.COLORS[int(tables.ent_kind[tables.card_id(name)])] for name in r["cards"])
        assert {c: int(seats[COLOUR_COLUMN[c]][i]) for c in codes.COLORS} == {c: kinds[c] for c in codes.COLORS}
    for optional in ("discards", "chained", "coins_paid", "coins_received"):
        assert (optional in seats) == (optional in rows[0])
        if optional in seats:
            assert seats[optional].tolist() == [r[optional] for r in rows]
    agg = dataset_aggregate(tmp_path / "h4", tables, "heuristic")
    assert agg.n_games(4) == 20
    assert agg.source["name"] == "heuristic" and agg.source["games"] == 20 and agg.source["seed"] == 1
    assert sum(agg.seat(4, "all", w, ANY, "first").total for w in agg.boards(4, "all", ANY)) == pytest.approx(20)
    assert agg.seat(4, "all", ANY, ANY, "guild_cards").total == seats["guild_cards"].sum()
    assert math.isclose(aggregate(seats).seat(4, "all", ANY, ANY, "vp_total").mean, np.mean(seats["vp_total"]))


def test_free_city_rows_left_out(tmp_path, tables):
    import wsim
    from wsim.people.seats import dataset_seats

    ds = wsim.simulate(games=5, players=2, policies="heuristic", seed=3, out=tmp_path / "h2")
    rows = [r for r in ds.to_arrow().to_pylist() if not r["free_city"]]
    seats = dataset_seats(tmp_path / "h2", tables)
    assert len(seats["players"]) == len(rows) == 10
    assert seats["rank"].tolist() == [r["rank"] for r in rows]
    assert aggregate(seats).n_games(2) == 5
