"""Build the shipped reference of human games from the raw Board Game Arena files (a developer tool).

    python -m wsim.people.build BGA_FOLDER [--out wsim/data/people-bga2020.json] [--built YYYY-MM-DD]

BGA_FOLDER holds the five CSVs `7wonders{3..7}players.csv` (wsim.people.bga). The output is the
Aggregate of every game (wsim.people.aggregate) with a `source` record saying where the games come
from (repository, folder, commit, each file's sha256 and counts), their totals, and how the games
where a player seems to have left are treated. The same files and arguments give the same bytes:
nothing is taken from the clock (`--built` is recorded only when given).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from wsim.people import bga
from wsim.people.aggregate import Aggregate, aggregate

NAME = "Board Game Arena, first edition, March 2020"
ORIGIN = {
    "repository": "dmag-ufsm/7wondersDataMinning",
    "folder": "datasets/abril 2020/",
    "commit": "cd1dd7ce",
    "date": "2020-06-10",
    "crawl": "every game of the five then top-ranked BGA players (Pistolero, kake44, Iguana, Magic_Rat, Otava), "
             "found in March 2020; described in dmag-ufsm/Mining, datasets/README.md",
}
DEFAULT_OUT = Path(__file__).parents[1] / "data" / "people-bga2020.json"

TREATMENT = (
    "Every game is kept, as published. A game looks abandoned when a seat built no card and no wonder "
    "stage (it discarded all its cards, as BGA plays for a player who has left): such games are counted "
    "here, not removed; so are the games whose lowest seat has at most 15 or 20 points. A colour count "
    "written NaN (3-player file only: a colour no one at the table built, the game's whole column) is "
    "read as 0."
)


def treatment(seats: dict, records: list) -> dict:
    """The treatment rule and the games it concerns, per player count (keys are strings: JSON)."""
    def per_count(flags):
        return {str(p): n for p, n in bga.games_where(seats, flags).items()}

    return {
        "rule": TREATMENT,
        "kept": "all",
        "abandoned_games": per_count(bga.built_nothing(seats)),
        "lowest_seat_at_most_15_points": per_count(seats["vp_total"] <= 15),
        "lowest_seat_at_most_20_points": per_count(seats["vp_total"] <= 20),
        "games_with_nan_colour_count": {str(r.players): r.nan_games for r in records},
    }


def source_record(seats: dict, records: list, built: str | None = None) -> dict:
    """The `source` record of the reference: name, origin, files, totals, games per count, treatment."""
    games = {str(r.players): r.games for r in records}
    out = {
        "name": NAME,
        "origin": ORIGIN,
        "files": [r.to_json() for r in records],
        "totals": {"games": sum(r.games for r in records), "seats": int(len(seats["players"]))},
        "games": games,
        "players": [r.players for r in records],
        "treatment": treatment(seats, records),
        "tables": "all: every game; all_b: the games whose every board is on side B (people chose their sides)",
        "first": "a seat's share of first place: 1/k for each of k seats sharing it (so shares sum to 1 a game)",
    }
    if built is not None:
        out["built"] = built
    return out


def build(folder, built: str | None = None, counts=bga.COUNTS) -> Aggregate:
    """The reference Aggregate of the raw files in `folder` (the player counts `counts`: all five
    for the reference)."""
    seats, records = bga.read_folder(folder, counts)
    return aggregate(seats, source_record(seats, records, built))


def encode(agg: Aggregate) -> bytes:
    """The reference file's bytes: compact JSON, sorted keys, one group a line (deterministic)."""
    record = agg.to_json()
    lines = ["{"]
    head = [k for k in sorted(record) if k not in ("seats", "games", "winners")]
    for k in head:
        lines.append(f"{json.dumps(k)}:{_dumps(record[k])},")
    tables = ("games", "seats", "winners")
    for i, k in enumerate(tables):
        rows = record[k]
        lines.append(f"{json.dumps(k)}:[")
        lines += [_dumps(r) + ("," if j < len(rows) - 1 else "") for j, r in enumerate(rows)]
        lines.append("]" + ("," if i < len(tables) - 1 else ""))
    lines.append("}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def _dumps(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _check(agg: Aggregate):
    """What must hold of any build: each count's first-place shares sum to its games."""
    for p in agg.counts():
        for tables in ("all", "all_b"):
            n = agg.n_games(p, tables)
            if not n:
                continue
            total = sum(agg.seat(p, tables, w, "*", "first").total for w in agg.boards(p, tables, "*"))
            if not np.isclose(total, n):
                raise AssertionError(f"{p} players, {tables}: first shares sum to {total}, not {n} games")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wsim.people.build", description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="the folder of the five BGA CSVs")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the reference file to write")
    parser.add_argument("--built", default=None, help="the build date to record (YYYY-MM-DD); none by default")
    args = parser.parse_args(argv)
    try:
        agg = build(args.folder, args.built)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    _check(agg)
    data = encode(agg)
    json.loads(data)  # well-formed
    args.out.write_bytes(data)
    t = agg.source["totals"]
    print(f"{args.out}: {t['games']:,} games, {t['seats']:,} seats, {len(data):,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
