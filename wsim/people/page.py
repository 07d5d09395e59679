"""`wsim people`'s page: one self-contained HTML file (inline CSS and SVG, no script, no external
asset). The distance of every population at every count first, then where the data come from and
its caveats, then per player count a forest plot of the boards' first-place shares (people's
marker beside each population's) and every table of the comparisons."""

from __future__ import annotations

import html
import math

from wsim.analysis.page_style import PAGE_CSS
from wsim.people.report import FINDING_Q, SECTIONS, board_rows, groups, is_rate, label, view_words

CSS = PAGE_CSS + "body { max-width: 64rem; }\n"  # wider: a column per population
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f")
PEOPLE_COLOUR = "#000"

CAVEATS = (
    "People chose their sides (the board is dealt at random, the side is the player's choice), so a "
    "side's rate among people is clean only on tables where every board is on the same side: the "
    "comparison uses side B on all-B tables when both sources have enough seats there, else each board "
    "over every table, either side (the population's side mix is then not people's).",
    "All-B tables are a subset of people's games: the players who choose B everywhere may not be a random "
    "sample of people.",
    "People's tables are strong and uneven: Board Game Arena games of ranked players, a mix of levels within "
    "one table, and no record of who was new to the game.",
    "Intervals are normal 95% intervals over seats (the seats of one game are taken as independent; for "
    "first-place shares, which sum to one per game, this makes the χ² slightly conservative). q-values are "
    "Benjamini–Hochberg over the boards of one table and count.",
)


def _num(x, digits: int = 2) -> str:
    return "—" if x is None or (isinstance(x, float) and not math.isfinite(x)) else f"{x:.{digits}f}"


def _pct(x) -> str:
    return "—" if x is None else f"{100 * x:.1f}"


def _p(x) -> str:
    return "—" if x is None else "<0.001" if x < 0.001 else f"{x:.3f}"


def _count(x) -> str:
    return "—" if x is None else f"{x:,}" if isinstance(x, int) else f"{x:,.1f}"


def _table(head: list, rows: list) -> str:
    heads = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{heads}</tr></thead><tbody>{body}</tbody></table>"


def record(value) -> str:
    """A source record (JSON-like: dicts, lists, scalars) as HTML: a dict as a list of its items, a
    list of dicts as a table, anything else as its text."""
    if isinstance(value, dict):
        items = "".join(f"<li><b>{html.escape(str(k))}</b>: {record(v)}</li>" for k, v in value.items())
        return f"<ul>{items}</ul>"
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        keys = list(dict.fromkeys(k for v in value for k in v))
        return _table(keys, [[v.get(k, "") for k in keys] for v in value])
    if isinstance(value, list):
        return html.escape(", ".join(map(str, value)))
    return html.escape(str(value))


def _distance_table(comparisons: list) -> str:
    rows = []
    for c in sorted(comparisons, key=lambda c: (c.players, c.population)):
        d = c.distance
        rows.append([c.population, c.players, view_words(c.tables, c.side), d.df if d else "—",
                     _num(d.chi2, 1) if d else "—", _p(d.p_value) if d else "—", _num(d.spearman) if d else "—",
                     f"{c.games:,}", f"{c.people_games:,}"])
    return _table(["population", "players", "games compared", "boards (df)", "Wald χ²", "p", "rank correlation",
                   "games", "people's games"], rows)


def _forest(members: list) -> str:
    """An SVG forest plot of the boards' first-place shares: a row per board, people's marker (black)
    and each population's, with their 95% intervals, and the fair share 1/P dashed."""
    rows = board_rows(members)
    boards = [w for w, _ in rows]
    people = {w: next(r for r in found if r is not None) for w, found in rows}
    series = [("people", PEOPLE_COLOUR, {w: (r["people_rate"], r["people_ci_low"], r["people_ci_high"])
                                         for w, r in people.items()})]
    series += [(c.population, COLOURS[i % len(COLOURS)], {r["wonder"]: (r["rate"], r["ci_low"], r["ci_high"])
                                                           for r in c.boards}) for i, c in enumerate(members)]
    values = [x for _, _, s in series for v in s.values() for x in v if x is not None]
    if not boards or not values:
        return ""
    top = min(1.0, max(values) * 1.1)
    left, width, row = 110, 480, 6 + 8 * len(series)
    height = 30 + row * len(boards) + 20 * math.ceil(len(series) / 4)

    def x(v):
        return left + width * max(0.0, min(v, top)) / top

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 20}" height="{height}" '
           f'font-size="11" font-family="sans-serif">']
    for tick in range(0, int(top * 100) + 1, 5 if top <= 0.5 else 10):
        out.append(f'<line x1="{x(tick / 100):.1f}" x2="{x(tick / 100):.1f}" y1="10" y2="{10 + row * len(boards)}" '
                   f'stroke="#eee"/><text x="{x(tick / 100):.1f}" y="{22 + row * len(boards)}" '
                   f'text-anchor="middle">{tick}%</text>')
    fair = 1 / members[0].players
    out.append(f'<line x1="{x(fair):.1f}" x2="{x(fair):.1f}" y1="10" y2="{10 + row * len(boards)}" stroke="#999" '
               'stroke-dasharray="3,3"/>')
    for b, board in enumerate(boards):
        y0 = 10 + row * b
        out.append(f'<text x="{left - 6}" y="{y0 + row / 2 + 4:.1f}" text-anchor="end">{html.escape(board)}</text>')
        for s, (name, colour, points) in enumerate(series):
            mean, low, high = points.get(board, (None, None, None))
            if mean is None:
                continue
            y = y0 + 7 + 8 * s
            if low is not None and high is not None:
                out.append(f'<line x1="{x(low):.1f}" x2="{x(high):.1f}" y1="{y}" y2="{y}" stroke="{colour}"/>')
            shape = (f'<rect x="{x(mean) - 3:.1f}" y="{y - 3}" width="6" height="6" fill="{colour}">' if s == 0 else
                     f'<circle cx="{x(mean):.1f}" cy="{y}" r="3" fill="{colour}">')
            out.append(shape + f"<title>{html.escape(name)} {html.escape(board)}: {_pct(mean)}% "
                       f"[{_pct(low)}, {_pct(high)}]</title>" + ("</rect>" if s == 0 else "</circle>"))
    for s, (name, colour, _) in enumerate(series):
        lx, ly = left + (s % 4) * 120, 40 + row * len(boards) + 20 * (s // 4)
        out.append(f'<circle cx="{lx}" cy="{ly - 4}" r="4" fill="{colour}"/><text x="{lx + 8}" y="{ly}">'
                   f"{html.escape(name)}</text>")
    out.append("</svg>")
    return "<figure>" + "".join(out) + "</figure>"


def _board_table(rows: list) -> str:
    return _table(["population", "board", "share %", "95% CI", "seats", "people %", "95% CI", "seats",
                   "diff (pp)", "95% CI", "p", "q"],
                  [[r["population"], r["wonder"], _pct(r["rate"]), f"{_pct(r['ci_low'])} – {_pct(r['ci_high'])}",
                    _count(r["seats"]), _pct(r["people_rate"]),
                    f"{_pct(r['people_ci_low'])} – {_pct(r['people_ci_high'])}", _count(r["people_seats"]),
                    _pct(r["diff"]), f"{_pct(r['diff_ci_low'])} – {_pct(r['diff_ci_high'])}", _p(r["p_value"]),
                    _p(r["q_value"]) + (" ★" if r["q_value"] is not None and r["q_value"] < FINDING_Q else "")]
                   for r in rows])


def _measure_cells(r: dict, rate: bool) -> list:
    show = _pct if rate else _num
    return [show(r["mean"]), f"{show(r['ci_low'])} – {show(r['ci_high'])}", _count(r["n"]), show(r["people_mean"]),
            f"{show(r['people_ci_low'])} – {show(r['people_ci_high'])}", _count(r["people_n"]), show(r["diff"])]


MEASURE_HEAD = ["mean", "95% CI", "n", "people", "95% CI", "n", "diff"]


def page(comparisons: list, people_source: dict, sources: dict, people_text: str | None = None) -> str:
    """The page of `comparisons`; `people_source`: the people Aggregate's source record;
    `sources`: {population name: a record of where it came from}; `people_text`: a description
    of people's data (wsim.people.reference.describe), if any."""
    out = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">', "<title>wsim people</title>",
           f"<style>{CSS}</style></head><body>", "<h1>wsim people: simulated players against people</h1>",
           "<p>Each population's games held against people's (Board Game Arena), one player count at a time. "
           "The distance: the Wald χ² of the boards' first-place shares over the boards both have, with as many "
           "degrees of freedom as boards (a population like people scores about its df), its p-value, and the "
           "rank correlation of the two orderings of the boards.</p>", "<h2>Distance to people</h2>",
           _distance_table(comparisons), "<ul>"]
    out += [f"<li>{html.escape(c.population)}: {html.escape(c.distance.line())}</li>" for c in comparisons
            if c.distance is not None]
    out += ["</ul>", "<h2>The data</h2>"]
    if people_text:
        out.append(f"<p>{html.escape(people_text)}</p>")
    out.append(f"<details><summary>people: where the games come from and how they were read</summary>"
               f"{record(people_source)}</details>")
    out.append("<p>The populations:</p><ul>" + "".join(f"<li><b>{html.escape(name)}</b>{record(src)}</li>"
                                                       for name, src in sources.items()) + "</ul>")
    out.append('<div class="note"><b>Caveats</b><ul>' + "".join(f"<li>{html.escape(c)}</li>" for c in CAVEATS)
               + "</ul></div>")
    for players, tables, side, members in groups(comparisons):
        where = view_words(tables, side)
        out.append(f"<h2>{players} players ({where})</h2>")
        out.append(f"<h3>First place by board</h3>{_forest(members)}")
        out.append(_board_table([r for c in members for r in c.boards]))
        out.append("<h3>Last place by board</h3>" + _board_table([r for c in members for r in c.lasts]))
        for section, _, _ in SECTIONS:
            rows = [[c.population, label(r["quantity"]), *_measure_cells(r, is_rate(r["quantity"]))]
                    for c in members for r in c.play if r["section"] == section]
            title = {"score": "Score level (per game)", "points": "Points by category (per seat)",
                     "behaviour": "Behaviour (per seat)", "winners": "Winners' profile (per game, % of winners)"}
            out.append(f"<h3>{title[section]}</h3>" + _table(["population", "quantity", *MEASURE_HEAD], rows))
        out.append("<h3>Why: board by board</h3><p>Per board, what its seats build and score, population "
                   "against people (the same games as the board table).</p>")
        out.append(_table(["population", "board", "quantity", *MEASURE_HEAD],
                          [[c.population, r["wonder"], label(r["quantity"]), *_measure_cells(r, False)]
                           for c in members for r in c.breakdown]))
    out.append("<p>The same tables as CSV: distance.csv, boards.csv, lasts.csv, play.csv, breakdown.csv "
               "(rates in [0, 1]).</p></body></html>")
    return "\n".join(out) + "\n"
