"""The human games of Board Game Arena (first edition, March 2020) read into one seat table.

The raw data are five CSV files, `7wonders{N}players.csv` for N = 3..7, published by the
data-mining group of the Universidade Federal de Santa Maria (repository
`dmag-ufsm/7wondersDataMinning`, folder `datasets/abril 2020/`). Each is `;`-separated, a header
line, then one row per player, in groups of N rows (one game, its rows in finishing order); some
end their lines with CRLF. `read_folder` turns them into the seat table of
wsim.people.aggregate.SEAT_COLUMNS, and refuses (ValueError naming file:line) anything that is not
what the files are documented to hold: another header, a row of another width or with a value that
is not a number, a side that disagrees with the board id, a score that is not the sum of its
categories, rows out of finishing order, a shared place with unequal scores. One gap is read, not
refused: the 3-player file writes `NaN` for a colour count where no one at the table built that
colour (34 games); it is read as 0 (`_colour_gaps` says why that is what it means).

Only this developer path reads the raw files (wsim.people.build); the package ships their
aggregate (wsim/data/people-bga2020.json, wsim.people.reference).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

COUNTS = (3, 4, 5, 6, 7)


def file_name(players: int) -> str:
    return f"7wonders{players}players.csv"


# the header of every file, as published (` VP from Civilian Structures` has its leading space)
HEADER = (
    "Place", "Thinking time", "VP from Military Conflicts (Victory)", "VP from Military Conflicts (Defeat)",
    "VP from Treasury Contents", "VP from Wonder", " VP from Civilian Structures", "VP from Scientific Structures",
    "VP from Commercial Structures", "VP from Guilds", "Constructed stages of the Wonder", "Cards discarded",
    "Chained constructions", "Coins spent on commerce", "Coins gained through commerce", "Shields", "Wonder side A",
    "Wonder ID", "Civilian Structures", "Scientific Structures", "Guilds", "Military Structures",
    "Commercial Structures", "Raw Materials", "Manufactured Goods",
)

# BGA's Wonder ID 1..7 (side A), 8..14 (the same boards on side B) -> wsim's board id
BOARDS = ("giza", "babylon", "olympia", "rhodes", "ephesus", "alexandria", "halicarnassus")

# seat-table column <- the header column it comes from (by position: two headers differ by a space)
_INTEGER = {
    "vp_treasury": 4, "vp_wonder": 5, "vp_civilian": 6, "vp_science": 7, "vp_commercial": 8, "vp_guild": 9,
    "stages": 10, "discards": 11, "chained": 12, "coins_paid": 13, "coins_received": 14, "shields": 15,
    "civilian_cards": 18, "science_cards": 19, "guild_cards": 20, "military_cards": 21, "commercial_cards": 22,
    "raw_cards": 23, "manufactured_cards": 24,
}
_VICTORY, _DEFEAT, _SIDE_A, _WONDER_ID = 2, 3, 16, 17
_PLACE = re.compile(r"(\d+)(st|nd|rd|th) \((-?\d+)\)")
_CATEGORY_COLUMNS = (_VICTORY, _DEFEAT, 4, 5, 6, 7, 8, 9)
_FIRST_COLOUR = 18  # the colour counts: the last seven columns
_NAN = -1  # a colour count written NaN, until _colour_gaps reads it

# the seat table's columns, in this order
COLUMNS = ("players", "game", "wonder", "side", "rank", "vp_military", "vp_treasury", "vp_wonder", "vp_civilian",
           "vp_science", "vp_commercial", "vp_guild", "vp_total", "stages", "discards", "chained", "coins_paid",
           "coins_received", "shields", "civilian_cards", "science_cards", "guild_cards", "military_cards",
           "commercial_cards", "raw_cards", "manufactured_cards")


@dataclass(frozen=True)
class FileRecord:
    """One raw file as read: its name, player count, games, rows and sha256 (of its bytes)."""

    name: str
    players: int
    games: int
    rows: int
    sha256: str
    nan_games: int = 0  # games with a colour count of NaN, read as 0 (_colour_gaps)

    def to_json(self) -> dict:
        return {"file": self.name, "players": self.players, "games": self.games, "rows": self.rows,
                "sha256": self.sha256, "games_with_nan_colour": self.nan_games}


def _int(text: str, where: str, column: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise ValueError(f"{where}: {column} is {text!r}, not a whole number") from None


def read_file(path: Path, players: int) -> tuple:
    """(seat table, FileRecord) of one raw file of `players`-player games; games numbered from 0
    in file order. ValueError naming file:line for anything unexpected."""
    path = Path(path)
    raw = path.read_bytes()
    name = path.name
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{name}: not UTF-8 text ({e})") from None
    lines = text.splitlines()  # LF or CRLF
    if not lines:
        raise ValueError(f"{name}:1: empty file (expected the header)")
    header = tuple(lines[0].split(";"))
    if header != HEADER:
        got = [h for h in header if h not in HEADER] or [h for h in HEADER if h not in header]
        raise ValueError(f"{name}:1: unexpected header ({len(header)} columns; expected the {len(HEADER)} of the "
                         f"BGA 2020 files{'; first difference: ' + repr(got[0]) if got else ', in their order'})")
    body = [(i, line) for i, line in enumerate(lines[1:], start=2) if line.strip()]
    if len(body) % players:
        raise ValueError(f"{name}: {len(body)} rows are not whole games of {players} players")
    out = {c: [] for c in COLUMNS}
    for k, (lineno, line) in enumerate(body):
        where = f"{name}:{lineno}"
        cells = line.split(";")
        if len(cells) != len(HEADER):
            raise ValueError(f"{where}: {len(cells)} fields, expected {len(HEADER)}")
        place = _PLACE.fullmatch(cells[0].strip())
        if not place:
            raise ValueError(f"{where}: Place is {cells[0]!r}, not like `1st (62)`")
        rank, score = int(place.group(1)), int(place.group(3))
        wonder_id = _int(cells[_WONDER_ID], where, "Wonder ID")
        if not 1 <= wonder_id <= 14:
            raise ValueError(f"{where}: Wonder ID {wonder_id} is not 1..14")
        side_a = cells[_SIDE_A].strip().lower()
        if side_a not in ("yes", "no"):
            raise ValueError(f"{where}: Wonder side A is {cells[_SIDE_A]!r}, not yes or no")
        side = "A" if side_a == "yes" else "B"
        if side != ("A" if wonder_id <= 7 else "B"):
            raise ValueError(f"{where}: Wonder side A is {side_a} but Wonder ID {wonder_id} is a side "
                             f"{'A' if wonder_id <= 7 else 'B'} board")
        categories = [_int(cells[i], where, HEADER[i].strip()) for i in _CATEGORY_COLUMNS]
        if sum(categories) != score:
            raise ValueError(f"{where}: the points by category sum to {sum(categories)}, not the score {score} "
                             f"of Place {cells[0].strip()!r}")
        out["players"].append(players)
        out["game"].append(k // players)
        out["wonder"].append(BOARDS[(wonder_id - 1) % 7])
        out["side"].append(side)
        out["rank"].append(rank)
        out["vp_military"].append(categories[0] + categories[1])
        out["vp_total"].append(score)
        for column, i in _INTEGER.items():
            if i >= _FIRST_COLOUR and cells[i].strip() == "NaN":
                out[column].append(_NAN)  # checked and read as 0 below (_colour_gaps)
            else:
                value = _int(cells[i], where, HEADER[i].strip())
                if value < 0:
                    raise ValueError(f"{where}: {HEADER[i].strip()} is {value}, below 0")
                out[column].append(value)
    seats = {c: np.asarray(v, dtype=object if c in ("wonder", "side") else np.int64) for c, v in out.items()}
    seats["wonder"] = seats["wonder"].astype(str)
    seats["side"] = seats["side"].astype(str)
    linenos = [lineno for lineno, _ in body]
    _check_order(seats, linenos, name, players)
    nan_games = _colour_gaps(seats, linenos, name, players)
    record = FileRecord(name, players, len(body) // players, len(body), hashlib.sha256(raw).hexdigest(), nan_games)
    return seats, record


def _colour_gaps(seats: dict, linenos: list, name: str, players: int) -> int:
    """Read a colour count of `NaN` as 0; returns the games that have one. The 3-player file
    writes NaN for a colour that no one at the table built (a game's whole column is NaN, never
    one row: a pivot of the cards built, with no cell for the table): on every such row the
    other counts give 18 − stages − discards cards exactly (the count every other row keeps,
    but for the cards Babylon B and Halicarnassus add), and a NaN guild count has 0 guild points.
    A NaN on some rows of a game and not on others is refused."""
    games = set()
    for column in COLUMNS[COLUMNS.index("civilian_cards"):]:
        v = seats[column]
        gaps = (v == _NAN).reshape(-1, players)
        partial = gaps.any(axis=1) & ~gaps.all(axis=1)
        if partial.any():
            g = int(np.flatnonzero(partial)[0])
            k = g * players + int(np.flatnonzero(~gaps[g])[0])
            raise ValueError(f"{name}:{linenos[k]}: a {column} count of NaN on some rows of its game only")
        games.update(np.flatnonzero(gaps.all(axis=1)).tolist())
        v[v == _NAN] = 0
    return len(games)


def _check_order(seats: dict, linenos: list, name: str, players: int):
    """Each game's rows in finishing order: the first row ranked 1, each next row either sharing
    the place above (same rank, same score) or ranked by its position (1 + the rows above), with
    no more points than the row above."""
    rank, score = seats["rank"], seats["vp_total"]
    for k in range(len(rank)):
        where = f"{name}:{linenos[k]}"
        position = k % players
        if position == 0:
            if rank[k] != 1:
                raise ValueError(f"{where}: a game's first row has place {rank[k]}, not 1")
            continue
        if score[k] > score[k - 1]:
            raise ValueError(f"{where}: {score[k]} points after a row of {score[k - 1]}: rows not in finishing order")
        if rank[k] == rank[k - 1]:
            if score[k] != score[k - 1]:
                raise ValueError(f"{where}: shares place {rank[k]} with {score[k - 1]} points against its {score[k]}")
        elif rank[k] != position + 1:
            raise ValueError(f"{where}: place {rank[k]} in row {position + 1} of its game")


def read_folder(folder, counts=COUNTS) -> tuple:
    """(seat table of every game of the files, [FileRecord per file]): the files
    `7wonders{N}players.csv` of folder `folder`, N in `counts` (all five by default), each
    required; games numbered per player count."""
    folder = Path(folder)
    tables, records = [], []
    for n in counts:
        path = folder / file_name(n)
        if not path.is_file():
            raise ValueError(f"{folder}: no {file_name(n)}")
        seats, record = read_file(path, n)
        tables.append(seats)
        records.append(record)
    return {c: np.concatenate([t[c] for t in tables]) for c in COLUMNS}, records


# ---- games where a player seems to have left early


def _game_index(seats: dict) -> tuple:
    """(index of each seat's game, number of games): games told apart by player count and number."""
    key = seats["players"].astype(np.int64) * (1 << 40) + seats["game"].astype(np.int64)
    _, g = np.unique(key, return_inverse=True)
    return g, int(g.max()) + 1 if len(g) else 0


def built_nothing(seats: dict) -> np.ndarray:
    """Per seat: it built no card and no wonder stage (it discarded every card, as BGA plays for a
    player who has left the table)."""
    cards = sum(seats[c] for c in COLUMNS[COLUMNS.index("civilian_cards"):])
    return (cards == 0) & (seats["stages"] == 0)


def games_where(seats: dict, seat_flag: np.ndarray) -> dict:
    """{player count: number of games with at least one seat flagged}, every count present."""
    g, n = _game_index(seats)
    flagged = np.bincount(g, weights=seat_flag.astype(np.float64), minlength=n) > 0
    players = np.zeros(n, dtype=np.int64)
    players[g] = seats["players"]
    return {int(p): int((flagged & (players == p)).sum()) for p in np.unique(seats["players"])}
