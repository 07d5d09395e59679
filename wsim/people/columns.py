"""People beside a population on every balance page (`wsim balance`, `ablate`, `survey`,
`rebalance`): the one implementation of the people column and of the distance lines the pages
print first. Thin: the numbers are wsim.people.reference's and wsim.people.distance's.

The people column of a wonder side at P players is its seats' share of first places in the human
games (a shared first counted 1/k, where wsim's own win rates count a shared victory for every
winner; shared victories are rare), with the normal 95% interval of that mean and its seats:
- side B: on the tables whose every board is on side B (people chose their sides: only there is
  a B board's rate the side's own, as wsim.people.distance compares them);
- side A: on every table, as the people's aggregate has no all-A tables (and people seldom chose
  A). The rate mixes the side with the players who chose it (one who takes A may play it well,
  or worse); the pages' note under each table says so ("side chosen by the players");
- side `*` (both sides pooled, a survey's --reference row): every table, either side.
Empty (None) where people have no games at P players (the human games hold none at 2 players),
where the side has fewer than distance.MIN_SEATS seats there, and for Manneken Pis (a promo
board, not in the human games).
"""

from __future__ import annotations

import html
import math

from wsim.people import distance as distance_mod
from wsim.people.aggregate import ANY, Aggregate, Moments

PEOPLE_COLUMNS = ("people_rate", "people_ci_low", "people_ci_high", "people_seats")  # appended to the CSVs
NO_PEOPLE_BOARDS = ("manneken_pis",)
SIDE_A_NOTE = "side chosen by the players"


def tables_of(side: str) -> str:
    """The people's tables a side's rate is read on (the module's docstring)."""
    return "all_b" if side == "B" else "all"


def people() -> Aggregate:
    """The people's aggregate (wsim.people.reference, cached there)."""
    from wsim.people import reference

    return reference.people()


def people_rate(players: int, wonder: str, side: str) -> Moments | None:
    """The people's first-place share of a wonder side at `players` (the module's docstring), or
    None where there is none."""
    if wonder in NO_PEOPLE_BOARDS:
        return None
    m = people().seat(int(players), tables_of(side), wonder, side if side in ("A", "B") else ANY, "first")
    if m is None or m.n < distance_mod.MIN_SEATS:
        return None
    return m


def people_values(players: int, wonder: str, side: str) -> dict:
    """PEOPLE_COLUMNS of one wonder side: rate, 95% interval, seats (NaN and None where none)."""
    m = people_rate(players, wonder, side)
    if m is None:
        return {"people_rate": math.nan, "people_ci_low": math.nan, "people_ci_high": math.nan, "people_seats": None}
    low, high = m.ci
    return {"people_rate": m.mean, "people_ci_low": low, "people_ci_high": high, "people_seats": int(round(m.n))}


def with_people(table):
    """A pandas DataFrame with columns players, wonder, side, with PEOPLE_COLUMNS added (NaN where
    there are none: an empty CSV field; the seats are whole numbers below a million, which the
    pages' CSV format writes as such)."""
    rows = [people_values(p, w, s) for p, w, s in zip(table["players"], table["wonder"], table["side"])]
    return table.assign(**{c: [math.nan if r[c] is None else float(r[c]) for r in rows] for c in PEOPLE_COLUMNS})


def has_people(players: int) -> bool:
    """Whether people have games at `players`."""
    return int(players) in people().counts()


def distance_lines(population_aggregates: dict, players) -> list:
    """The first lines of every balance page: per population (name -> Aggregate) and player count
    (one or several), how far its board table is from people's (distance.Distance.line), or why
    there is none."""
    counts = [players] if isinstance(players, int) else list(players)
    ref = people()
    lines = []
    for p in counts:
        if not has_people(p):
            lines.append(f"no people data at {p} players: each side's people column is empty")
            continue
        for name, agg in population_aggregates.items():
            d = distance_mod.distance(agg, ref, p)
            if d is not None:
                lines.append(f"{name} against people at {d.line()}")
            else:
                lines.append(f"{name} against people at {p} players: too few seats to compare (at least "
                             f"{distance_mod.MIN_SEATS} seats on every board people played; "
                             f"{agg.n_games(p):,} game{'' if agg.n_games(p) == 1 else 's'} here)")
    return lines


def describe() -> str:
    """Where the people's games come from (wsim.people.reference.describe)."""
    from wsim.people import reference

    return reference.describe()


def heading_note(side_a: bool = True) -> str:
    """What the people columns are, for a page's text (HTML-safe)."""
    text = (f"The people columns — {describe()}: the share of first places (a shared first counted 1/k) of "
            "the seats holding the side, with its 95% interval and seats; side B on the tables whose every board "
            "is on side B")
    if side_a:
        text += f"; side A on every table, the {SIDE_A_NOTE} (its rate mixes the side with who picks it)"
    return html.escape(text + f". Empty where people have fewer than {distance_mod.MIN_SEATS} seats on it, at 2 "
                       "players (no people data) and for Manneken Pis.")


def lines_html(lines: list) -> str:
    """The distance lines as the paragraph a page opens with."""
    return ('<p class="note">Against people (Board Game Arena): ' + "<br>".join(html.escape(x) for x in lines)
            + "</p>")


def _missing(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def pct(x) -> str:
    """A share in percent to one decimal; empty where there is none."""
    return "" if _missing(x) else f"{100 * x:.1f}"


def seats_text(x) -> str:
    return "" if _missing(x) else f"{int(x):,}"


# the people columns of a page's HTML table: {column: (heading, formatter)} (balance.report.html_table)
HTML_COLUMNS = {"people_rate": ("people win %", pct), "people_ci_low": ("people CI low", pct),
                "people_ci_high": ("people CI high", pct), "people_seats": ("people seats", seats_text)}
