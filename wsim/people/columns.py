"""People beside a population on every balance page (`wsim balance`, `ablate`, `survey`,
`rebalance`): the one implementation of the people column and of the distance lines the pages
print first. Thin: the numbers are wsim.people.reference's and wsim.people.distance's.

The people column of a wonder side at P players is its seats' win rate in the human games,
counted as the pages count their own (a shared first place is a win for each of its seats), with
its Wilson 95% interval and its seats (wsim people's board table and distance use the first-place
share instead, a shared first counted 1/k, so that a game's shares sum to one):
- side B: on the tables whose every board is on side B (people chose their sides: only there is
  a B board's rate the side's own, as wsim.people.distance compares them);
- side A: on every table, as the people's aggregate has no all-A tables (and people seldom chose
  A). The rate mixes the side with the players who chose it (one who takes A may play it well,
  or worse); the pages' note under each table says so ("side chosen by the players");
- side `*` (both sides pooled, a survey's --reference row): every table, either side.
Empty (None) where people have no games at P players (the human games hold none at 2 players),
where the side has fewer than distance.MIN_SEATS seats there, and for Manneken Pis (a promo
board, not in the human games).

The human games are of the first edition (PEOPLE_EDITION): a population of the second edition
(`wsim --edition 2`: other boards, other cards) is never set beside them. Every function here
that compares takes the population's edition (codes.EDITIONS): for another edition than the
people's, has_people is False, the people columns are empty, the distance lines are one line that
says why (no_people_line), and reference_rows refuses.
"""

from __future__ import annotations

import html
import math

from wsim import codes
from wsim.analysis.stats import wilson_interval
from wsim.errors import brief
from wsim.people import distance as distance_mod
from wsim.people.aggregate import ANY, Aggregate, Moments

PEOPLE_COLUMNS = ("people_rate", "people_ci_low", "people_ci_high", "people_seats")  # appended to the CSVs
NO_PEOPLE_BOARDS = ("manneken_pis",)
SIDE_A_NOTE = "side chosen by the players"
# The edition of the human games (Board Game Arena, March 2020, before it moved to the second
# edition: docs/people.md): the one edition a population is compared with people in.
PEOPLE_EDITION = 1


def same_edition(edition: int) -> bool:
    """Whether a population of `edition` (codes.EDITIONS) plays the people's edition."""
    return edition == PEOPLE_EDITION


def no_people_line(edition: int) -> str:
    """Why a population of another edition than the people's has no people comparison."""
    return (f"people's games (Board Game Arena, 2020) are of the {_edition_words(PEOPLE_EDITION)}: no comparison "
            f"for the {_edition_words(edition)}")


def _edition_words(edition: int) -> str:
    """The words "first edition" or "second edition" (codes.EDITION_NAMES without the year)."""
    return codes.EDITION_NAMES.get(edition, f"edition {brief(edition)}").partition(" (")[0]


def tables_of(side: str) -> str:
    """The people's tables a side's rate is read on (the module's docstring)."""
    return "all_b" if side == "B" else "all"


def people() -> Aggregate:
    """The people's aggregate (wsim.people.reference, cached there)."""
    from wsim.people import reference

    return reference.people()


def people_rate(players: int, wonder: str, side: str) -> Moments | None:
    """The moments of the people's wins (0 or 1 a seat) on a wonder side at `players` (the module's
    docstring), or None where there are none."""
    if wonder in NO_PEOPLE_BOARDS:
        return None
    m = people().seat(int(players), tables_of(side), wonder, side if side in ("A", "B") else ANY, "win")
    if m is None or m.n < distance_mod.MIN_SEATS:
        return None
    return m


def people_values(players: int, wonder: str, side: str) -> dict:
    """PEOPLE_COLUMNS of one wonder side: rate, 95% interval, seats (NaN and None where none)."""
    m = people_rate(players, wonder, side)
    if m is None:
        return {"people_rate": math.nan, "people_ci_low": math.nan, "people_ci_high": math.nan, "people_seats": None}
    wins, seats = int(round(m.total)), int(round(m.n))
    low, high = wilson_interval(wins, seats)
    return {"people_rate": wins / seats, "people_ci_low": low, "people_ci_high": high, "people_seats": seats}


def with_people(table, edition: int):
    """A pandas DataFrame with columns players, wonder, side, with PEOPLE_COLUMNS added (NaN where
    there are none: an empty CSV field; the seats are whole numbers below a million, which the
    pages' CSV format writes as such). `edition`: the population's (codes.EDITIONS); another
    than the people's leaves every people column empty."""
    if not same_edition(edition):
        return table.assign(**{c: [math.nan] * len(table) for c in PEOPLE_COLUMNS})
    rows = [people_values(p, w, s) for p, w, s in zip(table["players"], table["wonder"], table["side"])]
    return table.assign(**{c: [math.nan if r[c] is None else float(r[c]) for r in rows] for c in PEOPLE_COLUMNS})


def has_people(players: int, edition: int) -> bool:
    """Whether people have games to compare a population of `edition` (codes.EDITIONS) with at
    `players`: none but at the people's edition."""
    return same_edition(edition) and int(players) in people().counts()


def distance_lines(population_aggregates: dict, players, edition: int) -> list:
    """The first lines of every balance page: per population (name -> Aggregate) and player count
    (one or several), how far its board table is from people's (distance.Distance.line), or why
    there is none. `edition`: the populations' (codes.EDITIONS); another than the people's gives
    the one line no_people_line."""
    if not same_edition(edition):
        return [no_people_line(edition)]
    counts = [players] if isinstance(players, int) else list(players)
    ref = people()
    lines = []
    for p in counts:
        if not has_people(p, edition):
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


def heading_note(edition: int, side_a: bool = True) -> str:
    """What the people columns are, for a page's text (HTML-safe); for a population of another
    edition than the people's (codes.EDITIONS), why they are empty."""
    if not same_edition(edition):
        return html.escape(f"The people columns are empty: {no_people_line(edition)}.")
    text = (f"The people columns — {describe()}: the win rate (a shared first a win for each of its seats) "
            "of the seats holding the side, with its Wilson 95% interval and seats; side B on the tables whose every board "
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


REFERENCE_NAME = "people"  # `survey --reference people`: these games, no file (a file of that name: ./people)


def reference_rows(players: int, in_play: dict, edition: int) -> list:
    """`wsim survey --reference people`: the human games as playtest counts at `players`, rows
    players, wonder, side, seats, wins (a shared first a win for each of its seats), for the
    boards some survey seat may get (`in_play`, {board id: {"A", "B"}}): side B on the all-B tables and
    `*` (either side) on every table. Side A is left out: people chose it, so its rate is the
    side's and its choosers' at once. ValueError when the survey's `edition` (codes.EDITIONS) is
    not the people's, or people have no games at `players`."""
    if not same_edition(edition):
        raise ValueError(f"{no_people_line(edition)} (a --reference CSV of games of that edition can be given)")
    if not has_people(players, edition):
        raise ValueError(f"people (Board Game Arena's games) have no {players}-player games: they hold 3 to 7 players")
    rows = []
    for wonder in people().boards(int(players), "all", ANY):
        sides = in_play.get(wonder, set())
        for side, tables in (("B", "all_b"), ("*", "all")):
            if (side == "B" and "B" not in sides) or not sides:
                continue
            m = people().seat(int(players), tables, wonder, "B" if side == "B" else ANY, "win")
            if m is not None and m.n:
                rows.append({"players": int(players), "wonder": wonder, "side": side, "seats": int(round(m.n)),
                             "wins": int(round(m.total))})
    return rows
