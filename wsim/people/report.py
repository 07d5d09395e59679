"""`wsim people`'s tables as terminal text and as CSV files (their columns: docs/people.md).

The text is compact: per player count, each population's distance line first, then one table of
the boards' first-place shares and one of the score level, the points by category and the
behaviour, people's column first and each population's beside it. The CSVs hold every row of
every Comparison (wsim.people.compare): rates in [0, 1], an empty field where a value cannot be
estimated or a source lacks the statistic; the text shows percentages and "—" there.
"""

from __future__ import annotations

import csv
import io
import math

from wsim.people.compare import BOARD_COLUMNS, BREAKDOWN_COLUMNS, DISTANCE_COLUMNS, PLAY_COLUMNS, SECTIONS

INDEX_HTML = "index.html"
CSVS = {"boards.csv": BOARD_COLUMNS, "lasts.csv": BOARD_COLUMNS, "play.csv": PLAY_COLUMNS,
        "breakdown.csv": BREAKDOWN_COLUMNS, "distance.csv": DISTANCE_COLUMNS}
FILES = (INDEX_HTML, *CSVS)
FINDING_Q = 0.05  # a board whose q-value is below it is marked "*" (text) or "★" (page)

LABELS = {
    "mean_points": "mean points a seat", "winner_points": "winner's points", "last_points": "last's points",
    "gap": "winner − last", "vp_total": "total points", "stages": "wonder stages", "discards": "cards discarded",
    "chained": "built by chain", "coins_paid": "coins paid for trade", "coins_received": "coins received from trade",
    "shields": "shields", "has_guild": "winners with a guild", "science_20": "winners with 20+ science",
}
RATES = {"has_guild", "science_20"}  # play rows that are shares, shown as percentages


def label(quantity: str) -> str:
    """A quantity's name for people to read."""
    if quantity in LABELS:
        return LABELS[quantity]
    if quantity.startswith("vp_"):
        return f"{quantity[3:]} points"
    if quantity.startswith("largest_"):
        return f"winners' largest: {quantity[8:]}"
    if quantity.endswith("_cards"):
        return f"{quantity[:-6]} cards"
    return quantity


def is_rate(quantity: str) -> bool:
    """Whether a play row's values are shares (shown as percentages)."""
    return quantity in RATES or quantity.startswith("largest_")


# ---------------------------------------------------------------------------------------------
# CSV

def _cell(value) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def csv_bytes(rows: list, columns: tuple) -> bytes:
    """A CSV of `rows` (dicts) in `columns`, floats to 6 significant digits, None as an empty field."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(row.get(c)) for c in columns])
    return out.getvalue().encode()


def csv_files(comparisons: list) -> dict:
    """{file name: bytes} of the five CSVs of `comparisons`."""
    return {"boards.csv": csv_bytes([r for c in comparisons for r in c.boards], BOARD_COLUMNS),
            "lasts.csv": csv_bytes([r for c in comparisons for r in c.lasts], BOARD_COLUMNS),
            "play.csv": csv_bytes([r for c in comparisons for r in c.play], PLAY_COLUMNS),
            "breakdown.csv": csv_bytes([r for c in comparisons for r in c.breakdown], BREAKDOWN_COLUMNS),
            "distance.csv": csv_bytes([c.distance_row() for c in comparisons], DISTANCE_COLUMNS)}


# ---------------------------------------------------------------------------------------------
# Text

def value_text(mean, low, high, rate: bool) -> str:
    """`15.0% ±0.9` or `47.30 ±0.41` (the half-width of the 95% interval), "—" without a value."""
    if mean is None:
        return "—"
    scale, unit, digits = (100, "%", 1) if rate else (1, "", 2)
    half = "" if low is None or high is None else f" ±{scale * (high - low) / 2:.{digits}f}"
    return f"{scale * mean:.{digits}f}{unit}{half}"


def view_words(tables: str, side: str) -> str:
    """Which games a comparison stands on, in words."""
    return "side B, all-B tables" if tables == "all_b" else "either side, every table"


def groups(comparisons: list) -> list:
    """[(players, tables, side, [comparisons])]: the comparisons that share their games, by player
    count (people's numbers are the same across one group)."""
    out: dict = {}
    for c in comparisons:
        out.setdefault((c.players, c.tables, c.side), []).append(c)
    return [(*key, out[key]) for key in sorted(out, key=lambda k: (k[0], k[1] != "all_b"))]


def board_rows(members: list, table: str = "boards") -> list:
    """[(wonder, [each member's row or None])] over the boards any member of a group has, in id order."""
    by_member = [{r["wonder"]: r for r in getattr(c, table)} for c in members]
    wonders = sorted({w for rows in by_member for w in rows})
    return [(w, [rows.get(w) for rows in by_member]) for w in wonders]


def distance_text(c) -> str:
    """A population's distance line at one count (or why there is none)."""
    if c.distance is None:
        return (f"{c.population}: no board table to compare at {c.players} players (fewer than two boards with "
                f"enough seats in both; {c.games:,} games against people's {c.people_games:,})")
    return f"{c.population}: {c.distance.line()}"


def _table(head: list, rows: list) -> list:
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    return ["  " + "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in
                             enumerate(zip(r, widths))).rstrip() for r in [head, *rows]]


def text(comparisons: list) -> str:
    """The terminal report (the module's docstring); "*": a board whose share differs from people's
    with q < FINDING_Q."""
    lines = []
    by_count: dict = {}
    for players, tables, side, members in groups(comparisons):
        by_count.setdefault(players, []).append((tables, side, members))
    for players, views in sorted(by_count.items()):
        lines.append(f"{players} players")
        lines += [f"  {distance_text(c)}" for _, _, members in views for c in members]
        for tables, side, members in views:
            names = [c.population for c in members]
            rows = []
            for wonder, found in board_rows(members):
                ref = next(r for r in found if r is not None)
                cells = [wonder, value_text(ref["people_rate"], ref["people_ci_low"], ref["people_ci_high"], True)]
                for r in found:
                    r = r or {}
                    mark = " *" if (r.get("q_value") is not None and r["q_value"] < FINDING_Q) else ""
                    cells.append(value_text(r.get("rate"), r.get("ci_low"), r.get("ci_high"), True) + mark)
                rows.append(cells)
            lines += _table([f"first place ({view_words(tables, side)})", "people", *names], rows)
            rows = []
            for section, _, quantities in SECTIONS[:3]:
                for q in quantities:
                    found = [next((r for r in c.play if r["section"] == section and r["quantity"] == q), None)
                             for c in members]
                    if all(r is None for r in found):
                        continue
                    ref = next(r for r in found if r is not None)
                    rate = is_rate(q)
                    rows.append([label(q), value_text(ref["people_mean"], ref["people_ci_low"], ref["people_ci_high"],
                                                      rate),
                                 *(value_text(r["mean"], r["ci_low"], r["ci_high"], rate) if r else "—"
                                   for r in found)])
            lines += _table(["play (means, ±95%)", "people", *names], rows)
    return "\n".join(lines)
