"""`wsim survey --reference FILE`: a designer's own games (playtest counts) held against the
simulated populations (INTERFACES §6).

The file is CSV with the header `players,wonder,side,seats,wins`: per player count, wonder and
side (`A`, `B`, or `*` for both sides pooled), the seats that played it and how many of them won.
Rows of other player counts than the survey's are read and checked, then left aside. The people's
rates are tested against the fair share 1/P (a playtest log rarely records shared victories) and
form their own family; each population is compared with them by a two-sample test (the games
are not the same: no pairing).
"""

from __future__ import annotations

import csv
import io
import math

import pandas as pd

from wsim import codes
from wsim.analysis.significance import FINDING_Q, normal_test_p, q_values, score_test_p
from wsim.analysis.stats import Z95, wilson_interval
from wsim.errors import WsimError, brief
from wsim.inputfile import read_regular
from wsim.tables import Tables

HEADER = ["players", "wonder", "side", "seats", "wins"]
MAX_BYTES = 10_000_000
PEOPLE = "people"  # the population name of the reference's rows in survey.csv


class ReferenceError(WsimError):
    """A --reference file that cannot be used; the message names the file, the line and the problem."""


def read_reference(path: str, tables: Tables, players: int) -> pd.DataFrame:
    """The rows of `path` at `players` players: players, wonder, side, seats, wins (checked)."""
    try:
        raw = read_regular(path)
    except OSError as e:
        raise ReferenceError(f"--reference: cannot read {path} ({e.strerror or e})") from None
    if len(raw) > MAX_BYTES:
        raise ReferenceError(f"--reference: {path} is larger than {MAX_BYTES:,} bytes")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ReferenceError(f"--reference: {path} is not UTF-8 text") from None
    lines = list(csv.reader(io.StringIO(text)))
    if not lines or [c.strip() for c in lines[0]] != HEADER:
        raise ReferenceError(f"--reference: {path}: the first line must be {','.join(HEADER)}")
    rows, seen = [], set()
    for number, line in enumerate(lines[1:], start=2):
        if not any(c.strip() for c in line):
            continue
        where = f"--reference: {path} line {number}"
        if len(line) != len(HEADER):
            raise ReferenceError(f"{where}: expected {len(HEADER)} fields, got {len(line)}")
        p, wonder, side, seats, wins = (c.strip() for c in line)
        p, seats, wins = (_whole(where, name, v) for name, v in (("players", p), ("seats", seats), ("wins", wins)))
        if not codes.MIN_SIMULATED_PLAYERS <= p <= codes.MAX_PLAYERS:
            raise ReferenceError(f"{where}: players must be {codes.MIN_SIMULATED_PLAYERS}..{codes.MAX_PLAYERS}, "
                                 f"got {p}")
        wonder = wonder.lower()
        if wonder not in tables.board_ids:
            raise ReferenceError(f"{where}: unknown wonder {brief(wonder)} (one of: {' '.join(tables.board_ids)})")
        side = side.upper()
        if side not in ("A", "B", "*"):
            raise ReferenceError(f"{where}: side must be A, B or *, got {brief(side)}")
        if seats < 1 or not 0 <= wins <= seats:
            raise ReferenceError(f"{where}: needs 1 or more seats and 0..seats wins, got {seats} seats, {wins} wins")
        if (p, wonder, side) in seen:
            raise ReferenceError(f"{where}: {p} players, {wonder} {side} is given twice")
        seen.add((p, wonder, side))
        rows.append({"players": p, "wonder": wonder, "side": side, "seats": seats, "wins": wins})
    table = pd.DataFrame(rows, columns=HEADER)
    table = table[table.players == players].reset_index(drop=True)
    if not len(table):
        raise ReferenceError(f"--reference: {path} holds no row for {players} players (the survey's --players)")
    return table


def _whole(where: str, name: str, value: str) -> int:
    if not value.isdigit() or len(value) > 12:
        raise ReferenceError(f"{where}: {name} must be a whole number, got {brief(value)}")
    return int(value)


def people_rows(reference: pd.DataFrame) -> pd.DataFrame:
    """The `people` rows of survey.csv: the reference's win rates with Wilson 95% CIs and
    q-values against 1/P (their own family)."""
    rows = []
    for r in reference.itertuples(index=False):
        lo, hi = wilson_interval(r.wins, r.seats)
        rows.append({"population": PEOPLE, "players": r.players, "wonder": r.wonder, "side": r.side,
                     "seats": r.seats, "wins": r.wins, "win_rate": r.wins / r.seats, "ci_low": lo, "ci_high": hi,
                     "p_value": score_test_p(r.wins, r.seats, 1 / r.players)})
    table = pd.DataFrame(rows)
    return table.assign(q_value=q_values(table))


def compare(reference: pd.DataFrame, survey: pd.DataFrame) -> pd.DataFrame:
    """reference.csv: every population's rate against the people's, wonder side by wonder side
    (side `*`: both sides pooled), the difference with its two-sample 95% CI and q-value
    (one family per player count), and whether they disagree (q < 0.05)."""
    rows = []
    for r in reference.itertuples(index=False):
        people = r.wins / r.seats
        for population, mine in survey.groupby("population", sort=False):
            match = mine[(mine.wonder == r.wonder) & ((mine.side == r.side) | (r.side == "*"))]
            seats, wins = int(match.seats.sum()), int(match.wins.sum())
            rate = wins / seats if seats else math.nan
            se = math.sqrt(rate * (1 - rate) / seats + people * (1 - people) / r.seats) if seats else math.nan
            diff = rate - people
            rows.append({"players": r.players, "wonder": r.wonder, "side": r.side, "population": population,
                         "rate": rate, "people_rate": people, "diff": diff, "ci_low": diff - Z95 * se,
                         "ci_high": diff + Z95 * se, "p_value": normal_test_p(diff, se)})
    table = pd.DataFrame(rows)
    table["q_value"] = q_values(table)
    table["disagrees"] = (table.q_value < FINDING_Q).map({True: "true", False: "false"})
    return table
