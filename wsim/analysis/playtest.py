"""`wsim survey --reference FILE`: a designer's own games (playtest counts) held against the
simulated populations (docs/interfaces.md §6).

The file is CSV with the header `players,wonder,side,seats,wins`: per player count, wonder and
side (`A`, `B`, or `*` for both sides pooled), the seats that played it and how many of them won.
Rows of other player counts than the survey's are read and checked, then left aside. The people's
rates are tested against the fair share 1/P (a playtest log rarely records shared victories) and
form their own family; each population is compared with them by a two-sample test (the games
are not the same: no pairing): Fisher's exact test, which stays valid on the handful of seats a
playtest log holds, with Newcombe's hybrid score interval of the difference.
"""

from __future__ import annotations

import csv
import io
import math
import re
import warnings

import pandas as pd
from scipy import stats as sps
from statsmodels.stats.proportion import confint_proportions_2indep

from wsim import codes
from wsim.analysis.significance import FINDING_Q, q_values, score_test_p, wilson_ci
from wsim.errors import WsimError, brief
from wsim.inputfile import read_regular
from wsim.tables import Tables

HEADER = ["players", "wonder", "side", "seats", "wins"]
MAX_BYTES = 10_000_000
PEOPLE = "people"  # the population name of the reference's rows in survey.csv


class ReferenceError(WsimError):
    """A --reference file that cannot be used; the message names the file, the line and the problem."""


def people_reference(players: int, in_play: dict, tables: Tables) -> pd.DataFrame:
    """`--reference people`: the human games of wsim.people as the reference's rows at `players`
    (wsim.people.columns.reference_rows) for the boards and sides of `in_play` ({board index:
    side indices}, Settings.boards_in_play); ReferenceError for a survey of another edition than
    the people's (codes.EDITIONS: the human games are of the first)."""
    from wsim.people.columns import reference_rows

    named = {tables.board_ids[b]: {"AB"[s] for s in sides} for b, sides in in_play.items()}
    try:
        rows = reference_rows(players, named, tables.edition)
    except ValueError as e:
        raise ReferenceError(f"--reference people: {e}") from None
    return pd.DataFrame(rows, columns=HEADER)


def read_reference(path: str, tables: Tables, players: int, in_play: dict | None = None) -> pd.DataFrame:
    """The rows of `path` at `players` players: players, wonder, side, seats, wins (checked).
    in_play ({board: sides}, Settings.boards_in_play): a row at `players` players of a wonder
    side no survey seat can get is refused (its comparison would be empty)."""
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
    # strict: an unclosed quote is an error, not a field running on to the end of the file
    reader = csv.reader(io.StringIO(text), strict=True)
    try:
        lines = list(reader)
    except csv.Error as e:
        raise ReferenceError(f"--reference: {path} line {reader.line_num}: not CSV ({e})") from None
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
        if in_play is not None and p == players and not _in_play(tables, in_play, wonder, side):
            raise ReferenceError(f"{where}: {wonder} {side} is not in play in this survey (its boards and sides: "
                                 f"--wonders, --sides, --manneken-pis)")
        if (p, wonder, side) in seen:
            raise ReferenceError(f"{where}: {p} players, {wonder} {side} is given twice")
        seen.add((p, wonder, side))
        rows.append({"players": p, "wonder": wonder, "side": side, "seats": seats, "wins": wins})
    table = pd.DataFrame(rows, columns=HEADER)
    table = table[table.players == players].reset_index(drop=True)
    if not len(table):
        raise ReferenceError(f"--reference: {path} holds no row for {players} players (the survey's --players)")
    return table


def _in_play(tables: Tables, in_play: dict, wonder: str, side: str) -> bool:
    sides = in_play.get(tables.board_ids.index(wonder), set())
    return bool(sides) if side == "*" else "AB".index(side) in sides


def _whole(where: str, name: str, value: str) -> int:
    if not re.fullmatch(r"[0-9]{1,12}", value):
        raise ReferenceError(f"{where}: {name} must be a whole number, got {brief(value)}")
    return int(value)


def people_rows(reference: pd.DataFrame) -> pd.DataFrame:
    """The `people` rows of survey.csv: the reference's win rates with Wilson 95% CIs and
    q-values against 1/P (their own family)."""
    rows = []
    for r in reference.itertuples(index=False):
        lo, hi = wilson_ci(r.wins, r.seats)
        rows.append({"population": PEOPLE, "players": r.players, "wonder": r.wonder, "side": r.side,
                     "seats": r.seats, "wins": r.wins, "win_rate": r.wins / r.seats, "ci_low": lo, "ci_high": hi,
                     "p_value": score_test_p(r.wins, r.seats, 1 / r.players)})
    table = pd.DataFrame(rows)
    return table.assign(q_value=q_values(table))


def compare(reference: pd.DataFrame, survey: pd.DataFrame) -> pd.DataFrame:
    """reference.csv: every population's rate against the people's, wonder side by wonder side
    (side `*`: the population's seats of both sides pooled), the difference with its 95% CI
    (Newcombe) and the q-value of Fisher's exact test (one family per player count), and whether
    they disagree (q < 0.05; empty where the population never held that wonder side); also the
    people's rate's Wilson 95% CI (people_ci_low, people_ci_high), which reference.csv leaves out."""
    rows = []
    for r in reference.itertuples(index=False):
        people = r.wins / r.seats
        people_low, people_high = wilson_ci(r.wins, r.seats)
        for population, mine in survey.groupby("population", sort=False):
            match = mine[(mine.wonder == r.wonder) & ((mine.side == r.side) | (r.side == "*"))]
            seats, wins = int(match.seats.sum()), int(match.wins.sum())
            row = {"players": r.players, "wonder": r.wonder, "side": r.side, "population": population,
                   "rate": math.nan, "people_rate": people, "people_ci_low": people_low,
                   "people_ci_high": people_high, "diff": math.nan, "ci_low": math.nan,
                   "ci_high": math.nan, "p_value": math.nan}
            if seats:
                lo, hi = _newcombe(wins, seats, r.wins, r.seats)
                table = [[wins, seats - wins], [r.wins, r.seats - r.wins]]
                row.update(rate=wins / seats, diff=wins / seats - people, ci_low=lo, ci_high=hi,
                           p_value=float(sps.fisher_exact(table).pvalue))
            rows.append(row)
    table = pd.DataFrame(rows)
    table["q_value"] = q_values(table)
    table["disagrees"] = [("" if math.isnan(q) else "true" if q < FINDING_Q else "false") for q in table.q_value]
    return table


def _newcombe(wins_a: int, seats_a: int, wins_b: int, seats_b: int) -> tuple:
    """Newcombe's hybrid score 95% interval of wins_a/seats_a − wins_b/seats_b."""
    with warnings.catch_warnings():  # statsmodels also computes ratios it does not return (p = 0)
        warnings.simplefilter("ignore")
        lo, hi = confint_proportions_2indep(wins_a, seats_a, wins_b, seats_b, method="newcomb")
    return float(lo), float(hi)
