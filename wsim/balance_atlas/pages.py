"""The atlas's HTML pages, rendered from its tables (docs/atlas.md, "The site"; the tables as
pandas DataFrames, in the row order they are written to SITE/tables/NAME.csv).

`site_pages(tables, about)` gives {relative path: bytes}: index.html, players-P.html per count,
side-SLUG-A.html / -B.html per wonder side, card-SLUG.html per card. Each page is self-contained
(inline CSS and SVG, no script, no network, relative links only) and deterministic.

Every number a page shows from a table sits in an element `data-src="TABLE:ROW:COLUMN"` (ROW: the
0-based row of TABLE.csv) whose text is wsim.balance_atlas.cells.cell_text of that cell."""

from __future__ import annotations

import html
import math
import re

from wsim.analysis.page_style import PAGE_CSS
from wsim.balance_atlas import svg
from wsim.balance_atlas.cells import (as_number, card_page, decimal_text, fmt, format_key, players_page, side_name,
                                     side_page)

BOARD_ORDER = ("rhodes", "alexandria", "ephesus", "babylon", "olympia", "halicarnassus", "giza", "manneken_pis")
ACTIONS = ("act", "not yet", "don't act")  # the order of the sentences
METRICS = ("leader_age1_wins", "leader_age2_wins", "winner_rank_age1", "winner_rank_age2", "margin", "close_share",
           "options", "forced_share", "decisions", "skill_vs_random", "skill_vs_default", "rating_spread")
METRIC_NAMES = {
    "leader_age1_wins": "leader after Age I wins %", "leader_age2_wins": "leader after Age II wins %",
    "winner_rank_age1": "winner's rank after Age I", "winner_rank_age2": "winner's rank after Age II",
    "margin": "margin (VP)", "close_share": "won by ≤ 2 VP %", "options": "legal options a decision",
    "forced_share": "forced picks %", "decisions": "decisions a seat a game",
    "skill_vs_random": "top rung vs random: win %", "skill_vs_default": "top rung vs default: win %",
    "rating_spread": "rating spread (top − random)"}
SCALE = 0.3  # the grid's full colour: a side this far from fair, as a fraction of its fair share
CSS = PAGE_CSS + """
body { max-width: 72rem; }
nav { font-size: 12px; margin-bottom: 1rem; } nav a { margin-right: 0.4rem; }
table.grid td { text-align: center; padding: 3px 4px; } table.grid th { font-size: 11px; text-align: center; }
table.grid td.act { outline: 2px solid #333; outline-offset: -2px; font-weight: bold; }
table.grid a { color: #111; text-decoration: none; }
.legend span { display: inline-block; padding: 1px 6px; font-size: 11px; }
.multiples { display: flex; flex-wrap: wrap; gap: 0.6rem; } .multiples figure { margin: 0; }
.multiples figcaption { font-size: 12px; }
td svg.curve { vertical-align: middle; } div.wide { overflow-x: auto; } td { white-space: nowrap; }
td.why { white-space: normal; min-width: 14rem; }
ul.links { columns: 4; font-size: 12px; } pre { background: #f4f6f9; padding: 0.4rem 0.6rem; overflow-x: auto; }
li.act b.action { color: #a0282c; } li.notyet b.action { color: #8a6d00; } li.dontact b.action { color: #2d6a2d; }
"""


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _link(href: str, text: str) -> str:
    """A link; `text` is HTML already."""
    return f'<a href="{_e(href)}">{text}</a>'


# ---------------------------------------------------------------------------------------------
# Table rows as records, each with its row in the CSV

def _records(tables: dict, name: str) -> list:
    """The rows of tables[name] as dicts, each with `_row` (its 0-based position) and `_table`."""
    frame = tables.get(name)
    if frame is None:
        return []
    columns = list(frame.columns)
    return [dict(zip(columns, values), _row=i, _table=name)
            for i, values in enumerate(frame.itertuples(index=False, name=None))]


def _missing(value) -> bool:
    return as_number(value) is None


def _text(r: dict, column: str) -> str:
    """A text cell, "" when missing (a CSV's empty field reads back as NaN)."""
    value = r.get(column)
    return "" if _missing(value) else str(value)


def _players(r) -> int:
    return int(as_number(r["players"]))


def _v(r: dict, column: str, suffix: str = "") -> str:
    """The cell `column` of record `r` in its data-src element (empty text where missing)."""
    value = r.get(column)
    text = fmt(format_key(r["_table"], column, r.get("metric")), value)
    return (f'<span data-src="{_e(r["_table"])}:{r["_row"]}:{_e(column)}">{_e(text)}</span>'
            + (suffix if not _missing(value) else ""))


def _ci(r: dict, low: str, high: str, space: str = "") -> str:
    """`[low, high]` (after `space`) when both bounds are there, else ""."""
    if _missing(r.get(low)) or _missing(r.get(high)):
        return ""
    return f"{space}[{_v(r, low)}, {_v(r, high)}]"


def _float(r: dict, column: str):
    x = as_number(r.get(column))
    return x if isinstance(x, float) else None


def _board_key(wonder) -> tuple:
    w = str(wonder)
    return (BOARD_ORDER.index(w), "") if w in BOARD_ORDER else (len(BOARD_ORDER), w)


def _side_key(r: dict) -> tuple:
    return _board_key(r["wonder"]) + (str(r["side"]),)


# ---------------------------------------------------------------------------------------------
# Pieces of pages

def _table(rows: list, columns: list) -> str:
    """An HTML table: `columns` [(heading, column or function(record) -> HTML)], a column's cell in
    its data-src element; wider than the page, it scrolls. A column the rows lack is left out."""
    columns = [(h, c) for h, c in columns if callable(c) or any(c in r for r in rows)]

    def td(r, c):
        return (f'<td class="why">{_v(r, c)}</td>' if c == "why"
                else f"<td>{c(r) if callable(c) else _v(r, c)}</td>")

    head = "".join(f"<th>{_e(h)}</th>" for h, _ in columns)
    body = "".join("<tr>" + "".join(td(r, c) for _, c in columns) + "</tr>" for r in rows)
    return f'<div class="wide"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def _page(title: str, nav: str, parts: list) -> bytes:
    return ("\n".join(["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
                       '<meta name="viewport" content="width=device-width, initial-scale=1">',
                       f"<title>{_e(title)}</title>", f"<style>{CSS}</style></head><body>", nav, *parts,
                       "</body></html>"]) + "\n").encode()


def _nav(counts: list) -> str:
    return ("<nav>" + _link("index.html", "atlas") + " · players: "
            + " ".join(_link(players_page(p), str(p)) for p in counts) + "</nav>")


def _side_link(r: dict) -> str:
    return _link(side_page(r["wonder"], r["side"]), _e(side_name(r["wonder"], r["side"])))


def _card_link(r: dict) -> str:
    return _link(card_page(r["card"]), _e(r["card"]))


def _ladder(rungs: list, players: int, *curves: list) -> list:
    """The rung names at `players` in ladder order (rungs table, else the curves' own order)."""
    mine = [r for r in rungs if _players(r) == players]
    if not mine:
        mine = [r for c in curves for r in c if _players(r) == players]
    order = {}
    for r in sorted(mine, key=lambda r: (_float(r, "order") if _float(r, "order") is not None else math.inf)):
        order.setdefault(str(r["rung"]), None)
    return list(order)


def _curve_svg(ladder: list, rows: list, value: str, reference, name: str, small: bool = False) -> str:
    by_rung = {str(r["rung"]): r for r in rows}
    points = [(_float(by_rung[k], value), _float(by_rung[k], "ci_low"), _float(by_rung[k], "ci_high"))
              if k in by_rung else None for k in ladder]
    return svg.curve(ladder, points, reference, name, small)


def _fair(side_row, players: int) -> float:
    fair = _float(side_row, "fair_share") if side_row else None
    return fair if fair is not None else 1 / players


def _games_needed(r: dict) -> str:
    inf = _text(r, "games_needed") == "inf"
    return f"games that would settle it: {_v(r, 'games_needed')}" + (" (the estimate shows no deviation)" if inf else "")


def _side_sentence(r: dict) -> str:
    """The first line of one side: the action, its direction and size, people's state, why."""
    action, direction = _text(r, "action"), _text(r, "direction")
    head = f'<b class="action">{_e(action or "no verdict")}</b>'
    if direction:
        head += f": {_e(direction)}"
    parts = [f"{_side_link(r)} — {head}"]
    if not _missing(r.get("win_rate")):
        share = f"win share {_v(r, 'win_rate', '%')}{_ci(r, 'ci_low', 'ci_high', ' ')}"
        if not _missing(r.get("fair_share")):
            share += f" against a fair {_v(r, 'fair_share', '%')}"
        if not _missing(r.get("diff")):
            share += f" ({_v(r, 'diff')} points)"
        parts.append(share)
    if not _missing(r.get("vp")):
        parts.append(f"{_v(r, 'vp')} VP{_ci(r, 'vp_ci_low', 'vp_ci_high', ' ')}")
    if action == "not yet" and _text(r, "games_needed") != "":
        parts.append(_games_needed(r))
    people = _text(r, "people")
    if people:
        rate = (f" ({_v(r, 'people_rate', '%')}{_ci(r, 'people_ci_low', 'people_ci_high', ' ')})"
                if not _missing(r.get("people_rate")) else "")
        parts.append(f"people: {_e(people)}{rate}")
    why = _text(r, "why")
    return "; ".join(parts) + (f" ({_e(why)})" if why else "") + "."


def _card_sentence(r: dict) -> str:
    action, direction = _text(r, "action"), _text(r, "direction")
    head = f'<b class="action">{_e(action or "no verdict")}</b>' + (f": {_e(direction)}" if direction else "")
    parts = [f"{_card_link(r)} — {head}"]
    if not _missing(r.get("effect")):
        parts.append(f"effect on its builders' win chance {_v(r, 'effect')} points{_ci(r, 'ci_low', 'ci_high', ' ')}")
    if not _missing(r.get("vp")):
        parts.append(f"{_v(r, 'vp')} VP")
    if action == "not yet" and _text(r, "games_needed") != "":
        parts.append(_games_needed(r))
    why = _text(r, "why")
    return "; ".join(parts) + (f" ({_e(why)})" if why else "") + "."


def _by_action(rows: list, size: str, sentence) -> str:
    """The sentences grouped by action (act, not yet, don't act, any other), farthest first."""
    def distance(r):
        x = _float(r, size)
        return -abs(x) if x is not None else math.inf

    groups = {}
    for r in rows:
        groups.setdefault(_text(r, "action"), []).append(r)
    out = []
    for action in [a for a in ACTIONS if a in groups] + sorted(a for a in groups if a not in ACTIONS):
        mine = sorted(groups[action], key=distance)
        css = re.sub(r"[^a-z]", "", action)
        out.append(f"<h3>{_e(action.capitalize() or 'No verdict')} ({len(mine)})</h3><ul>"
                   + "".join(f'<li class="{css}">{sentence(r)}</li>' for r in mine) + "</ul>")
    return "".join(out)


def _anchor_names(rows: list) -> tuple:
    """The anchor's and the rung below's names over `rows` (the first non-empty ones)."""
    def first(column):
        return next((_text(r, column) for r in rows if _text(r, column)), "")
    return first("anchor") or "anchor", first("below") or "next rung"


def _interval(low: str, high: str):
    """A table column of one 95% CI, `[low, high]`."""
    return lambda r: _ci(r, low, high)


def _sides_columns(anchor: str, below: str, first: tuple) -> list:
    return [first, (f"{anchor} win %", "win_rate"), ("95% CI", _interval("ci_low", "ci_high")),
            ("people win %", "people_rate"), ("people's CI", _interval("people_ci_low", "people_ci_high")),
            ("people q", "people_q"), ("fair %", "fair_share"), ("diff (pts)", "diff"), ("VP", "vp"),
            ("VP CI", _interval("vp_ci_low", "vp_ci_high")), ("q", "q_value"), ("size", "size_verdict"),
            *_verdict_columns(anchor, below)]


def _verdict_columns(anchor: str, below: str) -> list:
    return [(f"{anchor} − {below} (pts)", "pair_diff"), ("CI", _interval("pair_ci_low", "pair_ci_high")),
            ("pair q", "pair_q"), ("stability", "stability"), ("people", "people"), ("action", "action"),
            ("direction", "direction"), ("games needed", "games_needed"), ("why", "why")]


def _cards_columns(anchor: str, below: str, first: tuple, curve=None) -> list:
    return [first] + ([("curve", curve)] if curve else []) + [
        (f"{anchor} effect (pts)", "effect"), ("95% CI", _interval("ci_low", "ci_high")), ("VP", "vp"),
        ("q", "q_value"), ("size", "size_verdict"), *_verdict_columns(anchor, below)]


def _moves_table(rows: list, first: tuple) -> str:
    return _table(rows, [first, ("rung", "rung"), ("base", "base"), ("edited", "edited"), ("diff (pts)", "diff"),
                         ("95% CI low", "ci_low"), ("95% CI high", "ci_high"), ("q", "q_value")])


def _character_table(rows: list, populations: list) -> str:
    """Metrics × populations: each cell the value with its 95% CI."""
    metrics = [m for m in METRICS if any(str(r["metric"]) == m for r in rows)]
    metrics += sorted({str(r["metric"]) for r in rows} - set(metrics))
    cells = {}
    for r in rows:
        cells.setdefault((str(r["metric"]), str(r["population"])), r)
    head = "".join(f"<th>{_e(p)}</th>" for p in ["metric"] + populations)
    body = []
    for m in metrics:
        tds = "".join(f"<td>{_v(cells[m, p], 'value')}{_ci(cells[m, p], 'ci_low', 'ci_high', ' ')}</td>" if (m, p) in cells
                      else "<td></td>" for p in populations)
        body.append(f"<tr><td>{_e(METRIC_NAMES.get(m, m))}</td>{tds}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _populations(rows: list, ladder: list) -> list:
    return ladder + sorted({str(r["population"]) for r in rows} - set(ladder))


# ---------------------------------------------------------------------------------------------
# The pages

class _Site:
    """The tables as records, indexed the ways the pages read them."""

    def __init__(self, tables: dict, about: dict):
        from wsim.people.columns import no_people_line, same_edition

        self.tables, self.about = tables, about
        # about's edition (absent: the first): people's games are of the first edition only
        edition = int(about.get("edition", 1))
        self.no_people = None if same_edition(edition) else no_people_line(edition)
        names = ("rungs", "sides", "side_curve", "cards", "card_curve", "character", "findings", "side_moves",
                 "card_moves")
        for name in names:
            setattr(self, name, _records(tables, name))
        self.counts = sorted({_players(r) for name in names if name != "findings"
                              for r in getattr(self, name) if not _missing(r.get("players"))})
        self.side_keys = sorted({(str(r["wonder"]), str(r["side"])) for r in self.sides + self.side_curve},
                                key=lambda k: _board_key(k[0]) + (k[1],))
        self.card_names = sorted({str(r["card"]) for r in self.cards + self.card_curve}, key=lambda c: (c.lower(), c))
        self.nav = _nav(self.counts)

    def ladder(self, players: int) -> list:
        return _ladder(self.rungs, players, self.side_curve, self.card_curve)

    def anchor_rung(self, players: int) -> str:
        mine = [r for r in self.rungs if _players(r) == players and _float(r, "anchor") == 1]
        return str(mine[0]["rung"]) if mine else (self.ladder(players)[-1:] or [""])[0]

    def side_row(self, players: int, wonder: str, side: str):
        return next((r for r in self.sides if _players(r) == players and (str(r["wonder"]), str(r["side"]))
                     == (wonder, side)), None)

    # index.html -----------------------------------------------------------------------------
    def index(self) -> bytes:
        about = self.about
        title = str(about.get("title", "wsim atlas"))
        out = [f"<h1>{_e(title)}</h1>"]
        if about.get("data"):
            out.append(f"<p>{_e(about['data'])}</p>")
        if self.no_people:
            out.append(f'<p class="note">{_e(self.no_people[0].upper() + self.no_people[1:])}: the people columns '
                       "are empty.</p>")
        findings = sorted(self.findings, key=lambda r: (_float(r, "order") if _float(r, "order") is not None
                                                         else math.inf, r["_row"]))
        if findings:
            out.append("<h2>Findings</h2><ul>" + "".join(
                f"<li>{_link(str(r['link']), _v(r, 'sentence'))}</li>" if _text(r, "link")
                else f"<li>{_v(r, 'sentence')}</li>" for r in findings) + "</ul>")
        out += self._grid()
        out += self._character_summary()
        out.append("<h2>Pages</h2><p>Player counts: " + " · ".join(
            _link(players_page(p), f"{p} players") for p in self.counts) + "</p>")
        out.append("<h3>Wonder sides</h3><ul class=\"links\">" + "".join(
            f"<li>{_link(side_page(w, s), _e(side_name(w, s)))}</li>" for w, s in self.side_keys) + "</ul>")
        out.append("<h3>Cards</h3><ul class=\"links\">" + "".join(
            f"<li>{_link(card_page(c), _e(c))}</li>" for c in self.card_names) + "</ul>")
        out.append("<h2>Data</h2><p>Every table behind these pages, as CSV and as Parquet:</p><ul>" + "".join(
            f"<li>{_e(name)}: {_link(f'tables/{name}.csv', 'CSV')} · {_link(f'tables/{name}.parquet', 'Parquet')}"
            "</li>" for name in sorted(self.tables)) + "</ul>")
        commands = [str(c) for c in about.get("commands", [])]
        if commands:
            out.append("<h2>Reproduce</h2><p>The commands that made this atlas:</p>"
                       + "".join(f"<pre><code>{_e(c)}</code></pre>" for c in commands))
        return _page(title, self.nav, out)

    def _grid(self) -> list:
        if not self.sides:
            return []
        head = "".join(f"<th>{_link(side_page(w, s), _e(side_name(w, s)).replace(' ', '<br>', 1))}</th>"
                       for w, s in self.side_keys)
        rows = []
        for p in self.counts:
            cells = []
            for w, s in self.side_keys:
                r = self.side_row(p, w, s)
                if r is None:
                    cells.append("<td></td>")
                    continue
                diff, fair = _float(r, "diff"), _float(r, "fair_share")
                t = diff / fair / SCALE if diff is not None and fair else math.nan
                act = ' class="act"' if _text(r, "action") == "act" else ""
                tip = f"{side_name(w, s)}, {p} players: {r.get('action', '')} {r.get('direction', '')}".strip()
                cells.append(f'<td{act} style="background:{svg.diverging(t)}" title="{_e(tip)}">'
                             f"{_link(side_page(w, s), _v(r, 'diff'))}</td>")
            rows.append(f"<tr><th>{_link(players_page(p), f'{p} players')}</th>{''.join(cells)}</tr>")
        legend = "".join(f'<span style="background:{svg.diverging(k / 3)}">{decimal_text(100 * SCALE * k / 3, 0, True)}%</span>'
                         for k in range(-3, 4))
        return ["<h2>Every side at every count</h2>",
                "<p>Each cell: the anchor population's win share less the fair share, in percentage points "
                "(linked to the side's page); its colour, the distance as a share of the fair share (red: too "
                "strong, blue: too weak); a framed bold cell: act.</p>",
                f'<table class="grid"><thead><tr><th></th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>',
                f'<p class="legend">distance from fair, share of the fair share: {legend}</p>']

    def _character_summary(self) -> list:
        if not self.character:
            return []
        metrics = [m for m in METRICS if any(str(r["metric"]) == m for r in self.character)]
        metrics += sorted({str(r["metric"]) for r in self.character} - set(metrics))
        rows = []
        for p in self.counts:
            mine = [r for r in self.character if _players(r) == p]
            if not mine:
                continue
            anchor = self.anchor_rung(p)
            tds = []
            for m in metrics:
                of = [r for r in mine if str(r["metric"]) == m]
                pick = next((r for r in of if str(r["population"]) == anchor), of[0] if of else None)
                tds.append(f"<td>{_v(pick, 'value')}</td>" if pick else "<td></td>")
            rows.append(f"<tr><td>{_link(players_page(p), f'{p} players')}</td>{''.join(tds)}</tr>")
        head = "".join(f"<th>{_e(METRIC_NAMES.get(m, m))}</th>" for m in metrics)
        return ["<h2>The game's character</h2><p>The anchor population's value where it has one (per count: its "
                "page has every population, with 95% CIs).</p>",
                f"<table><thead><tr><th>players</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"]

    # players-P.html -------------------------------------------------------------------------
    def count_page(self, p: int) -> bytes:
        ladder = self.ladder(p)
        sides = sorted((r for r in self.sides if _players(r) == p), key=_side_key)
        cards = sorted((r for r in self.cards if _players(r) == p), key=lambda r: (str(r["card"]).lower(), r["_row"]))
        anchor, below = _anchor_names(sides + cards)
        out = [f"<h1>{p} players</h1>"]
        if sides:
            out.append(_by_action(sides, "diff", _side_sentence))
        if ladder and self.no_people:
            out.append(f"<p>The ladder, weakest to strongest: {_e(' → '.join(ladder))}. The verdicts are "
                       f"{_e(anchor)}'s, checked against {_e(below)} on the same deals ({_e(self.no_people)}): "
                       "<i>act</i> where its size verdict is too strong or too weak and the next rung down agrees "
                       "(stable); <i>don't act</i> where it is fair enough; <i>not yet</i> where it is not "
                       "resolved or still moves between the top two rungs, with the games that would settle it. "
                       "Win shares and differences in percent (points), VP in victory points, with 95% CIs.</p>")
        elif ladder:
            out.append(f"<p>The ladder, weakest to strongest: {_e(' → '.join(ladder))}. The verdicts are "
                       f"{_e(anchor)}'s, checked against {_e(below)} on the same deals and against people's games: "
                       "<i>act</i> where its size verdict is too strong or too weak, the next rung down agrees "
                       "(stable) and people do not contradict it; <i>don't act</i> where it is fair enough or "
                       "people contradict it; <i>not yet</i> where it is not resolved or still moves between the "
                       "top two rungs, with the games that would settle it. Win shares and differences in "
                       "percent (points), VP in victory points, with 95% CIs.</p>")
        if sides:
            out.append("<h2>Wonder sides</h2>" + _table(sides, _sides_columns(anchor, below, ("side", _side_link))))
        curves = [r for r in self.side_curve if _players(r) == p]
        if curves:
            out += self._side_curves(p, ladder, curves)
        if cards:
            notable = [r for r in cards if _text(r, "action") in ("act", "not yet")]
            out.append("<h2>Cards</h2>")
            if notable:
                out.append(_by_action(notable, "effect", _card_sentence))
            card_curves = [r for r in self.card_curve if _players(r) == p]

            def sparkline(r):
                mine = [c for c in card_curves if str(c["card"]) == str(r["card"])]
                return _curve_svg(ladder, mine, "effect", 0.0, f"{r['card']}: effect by rung", small=True)

            out.append("<p>Each card's effect: the change in its builders' chance of winning, in percentage "
                       f"points; its curve, the effect along the ladder ({_e(' → '.join(ladder))}) against 0.</p>")
            out.append(_table(cards, _cards_columns(anchor, below, ("card", _card_link), sparkline)))
        character = [r for r in self.character if _players(r) == p]
        if character:
            out.append("<h2>The game's character</h2>" + _character_table(character, _populations(character, ladder)))
        rungs = sorted((r for r in self.rungs if _players(r) == p), key=lambda r: (_float(r, "order") or 0, r["_row"]))
        if rungs and self.no_people:
            out.append(f"<h2>The ladder</h2><p>Each rung's games ({_e(self.no_people)}).</p>" + _table(rungs, [
                ("order", "order"), ("rung", "rung"), ("players", "spec"), ("games", "games"), ("anchor", "anchor")]))
        elif rungs:
            out.append("<h2>The ladder</h2><p>Each rung's games and its distance to people's games (χ², p, rank "
                       "correlation of the boards' win shares).</p>" + _table(rungs, [
                           ("order", "order"), ("rung", "rung"), ("players", "spec"), ("games", "games"),
                           ("anchor", "anchor"), ("χ² to people", "people_chi2"), ("p", "people_p"),
                           ("rank correlation", "people_rho")]))
        side_moves = sorted((r for r in self.side_moves if _players(r) == p), key=_side_key)
        card_moves = sorted((r for r in self.card_moves if _players(r) == p), key=lambda r: str(r["card"]).lower())
        if side_moves or card_moves:
            out.append("<h2>What the edit moved</h2><p>Each side's win share and each card's effect, the base data "
                       "file against the edited one on the same deals.</p>")
            if side_moves:
                out.append(_moves_table(side_moves, ("side", _side_link)))
            if card_moves:
                out.append(_moves_table(card_moves, ("card", _card_link)))
        return _page(f"{p} players · {self.about.get('title', 'wsim atlas')}", self.nav, out)

    def _side_curves(self, p: int, ladder: list, curves: list) -> list:
        figures, rows = [], []
        for w, s in self.side_keys:
            mine = [r for r in curves if (str(r["wonder"]), str(r["side"])) == (w, s)]
            if not mine:
                continue
            fair = _fair(self.side_row(p, w, s), p)
            name = side_name(w, s)
            figures.append(f"<figure>{_curve_svg(ladder, mine, 'win_rate', fair, f'{name}: win share by rung')}"
                           f"<figcaption>{_link(side_page(w, s), _e(name))}</figcaption></figure>")
            by_rung = {str(r["rung"]): r for r in mine}
            rows.append(f"<tr><td>{_link(side_page(w, s), _e(name))}</td>" + "".join(
                f"<td>{_v(by_rung[k], 'win_rate')}</td>" if k in by_rung else "<td></td>"
                for k in ladder) + "</tr>")
        return ["<h2>Skill curves</h2><p>Each side's win share (%) along the ladder, with its 95% CI; dashed: the "
                "fair share.</p>", f'<div class="multiples">{"".join(figures)}</div>',
                "<h3>Win % by rung</h3>" + "<table><thead><tr><th>side</th>"
                + "".join(f"<th>{_e(k)}</th>" for k in ladder) + f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"]

    # side-SLUG-X.html and card-SLUG.html ----------------------------------------------------
    def _multiples(self, curves: list, value: str, reference, name: str) -> str:
        figures = []
        for p in self.counts:
            mine = [r for r in curves if _players(r) == p]
            if mine:
                figures.append(f"<figure>{_curve_svg(self.ladder(p), mine, value, reference(p), f'{name}, {p} players')}"
                               f"<figcaption>{_link(players_page(p), f'{p} players')}</figcaption></figure>")
        return f'<div class="multiples">{"".join(figures)}</div>' if figures else ""

    def _subject_page(self, name: str, match, rows: list, curves: list, moves: list, how: dict) -> bytes:
        """The page of one wonder side or card across the counts: its sentence at each count, its
        curves (small multiples), its row of the sides or cards table at each count, the curves'
        numbers, what an edit moved. `how`: sentence, columns, value, reference(p), intro,
        curve_columns."""
        def mine(table):
            return sorted((r for r in table if match(r)),
                          key=lambda r: (_players(r), _float(r, "order") or 0, r["_row"]))

        rows, curves, moves = mine(rows), mine(curves), mine(moves)
        anchor, below = _anchor_names(rows)
        out = [f"<h1>{_e(name)}</h1>"]
        if rows:
            out.append("<ul>" + "".join(f"<li>{_link(players_page(_players(r)), f'{_players(r)} players')}: "
                                        f"{how['sentence'](r)}</li>" for r in rows) + "</ul>")
        if curves:
            out.append(how["intro"] + self._multiples(curves, how["value"], how["reference"], name))
        if rows:
            out.append("<h2>At every count</h2>" + _table(rows, how["columns"](anchor, below, ("players", "players"))))
        if curves:
            out.append("<h2>The curves' numbers</h2>" + _table(curves, [
                ("players", "players"), ("rung", "rung"), ("order", "order"), *how["curve_columns"],
                ("95% CI low", "ci_low"), ("95% CI high", "ci_high"), ("q", "q_value")]))
        if moves:
            out.append("<h2>What the edit moved</h2>" + _moves_table(moves, ("players", "players")))
        return _page(f"{name} · {self.about.get('title', 'wsim atlas')}", self.nav, out)

    def side(self, wonder: str, side: str) -> bytes:
        return self._subject_page(
            side_name(wonder, side), lambda r: (str(r["wonder"]), str(r["side"])) == (wonder, side), self.sides,
            self.side_curve, self.side_moves, dict(
                sentence=_side_sentence, columns=_sides_columns, value="win_rate",
                reference=lambda p: _fair(self.side_row(p, wonder, side), p),
                intro="<h2>Win share along the ladder, by count</h2><p>Win share (%) with its 95% CI; dashed: the "
                      "fair share.</p>",
                curve_columns=[("seats", "seats"), ("win %", "win_rate")]))

    def card(self, card: str) -> bytes:
        return self._subject_page(
            card, lambda r: str(r["card"]) == card, self.cards, self.card_curve, self.card_moves, dict(
                sentence=_card_sentence, columns=_cards_columns, value="effect", reference=lambda p: 0.0,
                intro="<h2>Effect along the ladder, by count</h2><p>The change in its builders' chance of winning "
                      "(percentage points) with its 95% CI; dashed: no effect.</p>",
                curve_columns=[("effect (pts)", "effect")]))


def site_pages(tables: dict, about: dict) -> dict:
    """The atlas's pages {relative path: bytes} from its tables ({name: DataFrame}, docs/atlas.md "The site") and
    `about` (title, data: the data file's description, commands: the exact commands, a list of
    text). Raises ValueError when two names would share a page."""
    site = _Site(tables, about)
    pages = {"index.html": site.index()}
    for p in site.counts:
        pages[players_page(p)] = site.count_page(p)
    for path, render, args in ([(side_page(w, s), site.side, (w, s)) for w, s in site.side_keys]
                               + [(card_page(c), site.card, (c,)) for c in site.card_names]):
        if path in pages:
            raise ValueError(f"two names share the page {path}: rename one")
        pages[path] = render(*args)
    return dict(sorted(pages.items()))
