"""`wsim balance`: the tables (wonders.csv, cards.csv, paired.csv) and the self-contained HTML
page of one dataset, or of a dataset against its baseline (docs/interfaces.md §5)."""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from numbers import Real
from pathlib import Path

import pandas as pd

from wsim.analysis.balance import answers, effects, plots, read, size
from wsim.analysis.page_style import PAGE_CSS
from wsim.analysis.significance import FINDING_Q, q_values, score_test_p, wilson_ci
from wsim.dataset.folder import DatasetError
from wsim.people import columns as people_columns
from wsim.tables import Tables

WONDERS_CSV, CARDS_CSV, PAIRED_CSV, INDEX_HTML = "wonders.csv", "cards.csv", "paired.csv", "index.html"
REPORT_FILES = (INDEX_HTML, WONDERS_CSV, CARDS_CSV, PAIRED_CSV)
WONDER_COLUMNS = ("players", "wonder", "side", "seats", "wins", "win_rate", "ci_low", "ci_high", "mean_points",
                  "q_value")  # q_value after docs/interfaces.md's columns: a reader by position finds them where they were
# after the categories: how far from fair (wsim.analysis.balance.size), appended for the same reason
SIZE_COLUMNS = ("fair_share", "diff", "handicap", "handicap_ci_low", "handicap_ci_high", "threshold", "verdict")
CARD_COLUMNS = ("players", "card", "seats_built", "build_rate", "win_rate_built", "win_rate_not_built",
                "effect", "ci_low", "ci_high", "q_value",
                "effect_vp", "effect_vp_ci_low", "effect_vp_ci_high", "threshold", "verdict")  # the size, appended
PAIRED_COLUMNS = ("metric", "key", "baseline", "value", "diff", "ci_low", "ci_high", "q_value",
                  "ci_low_independent", "ci_high_independent")
# the settings that decide which games a dataset holds: a baseline must share them all
_SAME_GAMES = ("rules_version", "seed", "games", "players", "policies", "wonders", "sides", "manneken_pis")
_BOARD_ORDER = ("rhodes", "alexandria", "ephesus", "babylon", "olympia", "halicarnassus", "giza", "manneken_pis")
ASSOCIATION_NOTE = ("A card's effect here is an association, not a cause: seats that build a card differ in "
                    "other ways too, and the adjustment for wonder, side, seat and policy cannot remove all of "
                    "that. `wsim ablate` gives the causal answer, by playing the same games with the card edited.")


def owns(name: str) -> bool:
    """The files `wsim balance` writes (and replaces with --overwrite)."""
    return name in REPORT_FILES


@dataclass
class Report:
    """The report's tables and the files that hold them."""

    wonders: pd.DataFrame
    cards: pd.DataFrame
    paired: pd.DataFrame | None
    practical: float = size.PRACTICAL  # the practical threshold, a fraction of the fair share
    files: dict = field(default_factory=dict)  # name -> bytes
    people_lines: list = field(default_factory=list)  # each dataset's distance to people (the page's first lines)


# ---------------------------------------------------------------------------------------------
# Tables

def _board_key(wonder: str) -> int:
    return _BOARD_ORDER.index(wonder) if wonder in _BOARD_ORDER else len(_BOARD_ORDER)


def wonders_table(raw: pd.DataFrame) -> pd.DataFrame:
    """wonders.csv: win rate with its Wilson 95% CI, the q-value of its score test against the
    fair share (the player count's mean win rate per seat: 1/P when no victory is shared) and
    mean points, by players, wonder, side."""
    rows = []
    for r in raw.itertuples(index=False):
        lo, hi = wilson_ci(int(r.wins), int(r.seats))
        rows.append({"players": int(r.players), "wonder": r.wonder, "side": r.side, "seats": int(r.seats),
                     "wins": int(r.wins), "win_rate": r.wins / r.seats, "ci_low": lo, "ci_high": hi,
                     "mean_points": float(r.mean_points),
                     **{c: float(getattr(r, c)) for c in read.CATEGORY_COLUMNS}})
    table = pd.DataFrame(rows)
    by_players = table.groupby("players")
    table["fair_share"] = by_players.wins.transform("sum") / by_players.seats.transform("sum")
    table["p_value"] = [score_test_p(w, s, f) for w, s, f in zip(table.wins, table.seats, table.fair_share)]
    table["q_value"] = q_values(table)
    order = table.wonder.map(_board_key)
    return table.assign(_o=order).sort_values(["players", "_o", "side"]).drop(columns="_o").reset_index(drop=True)


def cards_table(cards: pd.DataFrame) -> pd.DataFrame:
    """cards.csv: the card effects with the q-value of each effect's t test (one family per
    player count; cards without an estimate stay out)."""
    return cards.assign(q_value=q_values(cards))


def sized_wonders(wonders: pd.DataFrame, margins: pd.DataFrame, practical: float) -> pd.DataFrame:
    """wonders_table's rows with their size (points of win share and VP) and verdict, the
    practical threshold `practical` × the fair share (wsim.analysis.balance.size)."""
    t = size.side_sizes(wonders, margins)
    return size.with_verdicts(t, "diff", t.ci_low - t.fair_share, t.ci_high - t.fair_share, practical * t.fair_share)


def sized_cards(cards: pd.DataFrame, margins: pd.DataFrame, fair: pd.Series, practical: float) -> pd.DataFrame:
    """cards_table's rows with their effect in VP and verdict, the threshold `practical` × the
    player count's fair share (`fair`, by players) in probability points."""
    t = size.card_sizes(cards, size.point_slopes(margins))
    return size.with_verdicts(t, "effect", t.ci_low, t.ci_high, practical * t.players.map(fair))


def check_pairable(base: read.Dataset, edited: read.Dataset):
    """Refuse a baseline that does not hold the same games as the dataset."""
    for key in _SAME_GAMES:
        a, b = base.meta.get(key), edited.meta.get(key)
        if key == "policies":
            a, b = [p.get("label", p["name"]) for p in a], [p.get("label", p["name"]) for p in b]
        if a != b:
            raise DatasetError(f"--baseline: {base.path} has {key} {_brief(a)} but {edited.path} has "
                               f"{_brief(b)}: a paired comparison needs the same games")


def _brief(value) -> str:
    text = str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _building_ages(t: Tables) -> dict:
    """Each building's name, as a dataset's `cards` column records it -> the ages of its entries."""
    ages: dict = {}
    for c in range(t.n_cards):
        ages.setdefault(t.names[int(t.card_name_id[c])], set()).add(int(t.card_age[c]))
    return {name: tuple(sorted(a)) for name, a in ages.items()}


def apart_labels(base: Tables, edited: Tables) -> tuple:
    """The buildings two data files name alike in other ages (a Temple of Age 1 in one, of Age 2
    in the other), each labelled with its ages, "Temple (Age 2)": ({name: label} of the
    baseline's, of the edited's). Within one file a name is one building (the data loader's
    rule, Loom of Ages 1 and 2); across two it is the name and its ages, so these two are
    different buildings, and paired with nothing."""
    ages = [_building_ages(t) for t in (base, edited)]
    apart = [name for name in ages[0].keys() & ages[1].keys() if ages[0][name] != ages[1][name]]
    return tuple({name: f"{name} (Age{'s' if len(a[name]) > 1 else ''} {', '.join(map(str, a[name]))})"
                  for name in apart} for a in ages)


def paired_table(con, base: read.Dataset, edited: read.Dataset, base_cells: pd.DataFrame,
                 edited_cells: pd.DataFrame, fitted: tuple) -> pd.DataFrame:
    """paired.csv: every wonder×side win rate and every card effect, baseline against edited,
    with the paired CI and the CI two independent runs would give; a card is paired with the
    same building only (apart_labels)."""
    rows = []
    for r in read.paired_wonders(con, base, edited).itertuples(index=False):
        n = int(r.seats)
        p0, p1 = r.wins_base / n, r.wins_edited / n
        diff, lo, hi, p = effects.paired_mean_ci(n, float(r.wins_edited - r.wins_base), float(r.sum_d2))
        lo_i, hi_i = effects.independent_diff_ci(p0, n, p1, n)
        rows.append({"metric": "win_rate", "key": f"{r.wonder}/{r.side}@{int(r.players)}", "baseline": p0,
                     "value": p1, "diff": diff, "ci_low": lo, "ci_high": hi,
                     "ci_low_independent": lo_i, "ci_high_independent": hi_i, "p_value": p,
                     "players": int(r.players), "_o": _board_key(r.wonder)})
    wonders = pd.DataFrame(rows).sort_values(["_o", "key"]).drop(columns="_o")
    labels = apart_labels(base.tables, edited.tables)
    fitted = tuple({(players, label.get(card, card)): fit for (players, card), fit in fits.items()}
                   for fits, label in zip(fitted, labels))
    cards = effects.paired_effects(base_cells, edited_cells, fitted=fitted)
    cards = cards.assign(metric="effect", key=cards.card + "@" + cards.players.astype(str))
    columns = [c for c in PAIRED_COLUMNS if c != "q_value"] + ["p_value", "players"]
    paired = pd.concat([wonders[columns], cards[columns]], ignore_index=True)
    return paired.assign(q_value=q_values(paired))  # win rates and effects: one family per player count


def csv_bytes(table: pd.DataFrame, columns: tuple) -> bytes:
    """A CSV of `columns`, rates to 6 decimals, an empty field for a value that cannot be estimated."""
    return table[list(columns)].to_csv(index=False, float_format="%.6g", lineterminator="\n").encode()


# ---------------------------------------------------------------------------------------------
# The page

CSS = PAGE_CSS + """table.sortable th { cursor: pointer; }
th[data-order=down]::after { content: " ▾"; } th[data-order=up]::after { content: " ▴"; }
ul.verdicts li { margin: 0.2rem 0; } td:last-child { white-space: nowrap; }
"""

# A click on a heading sorts its table by that column (numbers by their data-v value, largest
# first; again: smallest first); no library, nothing fetched.
SORT_SCRIPT = """<script>
function wsimSort(th) {
  const i = th.cellIndex, body = th.closest("table").tBodies[0], down = th.dataset.order !== "down";
  th.closest("tr").querySelectorAll("th").forEach(h => delete h.dataset.order);
  th.dataset.order = down ? "down" : "up";
  const key = r => r.cells[i].dataset.v === undefined ? r.cells[i].textContent : Number(r.cells[i].dataset.v);
  const order = (x, y) => typeof x === "number" ? (isNaN(x) - isNaN(y)) || (down ? y - x : x - y)
                                                : (down ? y.localeCompare(x) : x.localeCompare(y));
  body.append(...[...body.rows].sort((a, b) => order(key(a), key(b))));
}
document.querySelectorAll("table.sortable th").forEach(th => th.addEventListener("click", () => wsimSort(th)));
</script>"""


def pct(x) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}"


def _q(x) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return "<0.0001" if x < 1e-4 else f"{x:.4f}"


def _finding(q) -> str:
    """The mark of a finding: a row whose q-value is below FINDING_Q."""
    return "★" if isinstance(q, float) and q < FINDING_Q else ""


# the q-value and finding columns every table of the page ends with
Q_COLUMNS = {"q_value": ("q", _q), "finding": (f"finding (q < {FINDING_Q})", _finding)}


def family_note(table: pd.DataFrame) -> str:
    """How many comparisons one family made and how many of them are findings."""
    tested = int(table.q_value.notna().sum())
    found = int((table.q_value < FINDING_Q).sum())
    return (f"<p>{tested} comparisons with an estimate in this family, corrected together "
            f"(Benjamini–Hochberg): {found} finding{'s' if found != 1 else ''} with q &lt; {FINDING_Q}, marked ★; "
            "the other intervals may exclude the reference value by chance alone.</p>")


def _sort_value(value) -> str:
    """A number cell's value for SORT_SCRIPT (` data-v="..."`), empty for text: JavaScript's
    Number() reads NaN and Infinity, not Python's nan and inf."""
    if isinstance(value, bool) or not isinstance(value, Real):
        return ""
    if math.isnan(value):
        return ' data-v="NaN"'
    if math.isinf(value):
        return f' data-v="{"-" if value < 0 else ""}Infinity"'
    return f' data-v="{value!r}"'


def html_table(table: pd.DataFrame, columns: dict) -> str:
    """An HTML table of `columns` {column: (heading, formatter)}, sorted by a click on a heading
    (SORT_SCRIPT)."""
    head = "".join(f'<th title="sort">{html.escape(h)}</th>' for h, _ in columns.values())
    body = []
    table = table.assign(finding=table.q_value) if "q_value" in table else table
    for r in table.to_dict("records"):
        cells = "".join(f"<td{_sort_value(r[c])}>{html.escape(fmt(r[c]))}</td>" for c, (_, fmt) in columns.items())
        body.append(f"<tr>{cells}</tr>")
    return f'<table class="sortable"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def _describe(ds: read.Dataset, name: str) -> str:
    m = ds.meta
    policies = ", ".join(ds.policies)
    return (f"{m['games']:,} games of {m['players']} players (seed {m['seed']}; policies {policies}; wonders "
            f"{m['wonders']}, sides {m['sides']}; rules version {m['rules_version']}; data sha256 "
            f"{str(m['data_sha256'])[:12]}…), read from {name}")


def _vp(x) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else answers.number(x, True)


def _verdict(v) -> str:
    return f"★ {v}" if v in size.FINDINGS else str(v)


# the size and verdict columns of the wonder and card tables, after their own
SIZE_TABLE = {"q_value": ("q", _q), "verdict": ("verdict", _verdict)}


def size_note(table: pd.DataFrame) -> str:
    """How many comparisons one family made, how many are significant, and how many of those are
    findings (far enough from fair) or fair enough."""
    tested = int(table.q_value.notna().sum())
    significant = int((table.q_value < FINDING_Q).sum())
    found = int(table.verdict.isin(size.FINDINGS).sum())
    return (f"<p>{tested} comparisons with an estimate in this family, corrected together "
            f"(Benjamini–Hochberg): {significant} with q &lt; {FINDING_Q}, of which {found} at least the practical "
            f"threshold from fair (★ too strong or too weak) and {significant - found} closer (fair enough).</p>")


def _side_title(r) -> str:
    return (f"{answers.side_name(r.wonder, r.side)}: win rate {pct(r.win_rate)}% [{pct(r.ci_low)}, {pct(r.ci_high)}] "
            f"of {r.seats:,} seats; {_vp(100 * r.diff)} points of win share, about {_vp(r.handicap)} VP "
            f"[{_vp(r.handicap_ci_low)}, {_vp(r.handicap_ci_high)}]; q {_q(r.q_value)}; {r.verdict}")


def _wonder_section(wonders: pd.DataFrame, edition: int) -> list:
    """`edition`: the dataset's (codes.EDITIONS), for the people columns' note."""
    out = ["<h2>Wonders</h2>"]
    for players, t in wonders.groupby("players", sort=True):
        fair, t = t.fair_share.iloc[0], size.by_distance(t, "diff")
        threshold = t.threshold.iloc[0]
        labels = [answers.side_name(w, s) for w, s in zip(t.wonder, t.side)]
        out.append(f"<h3>{players} players</h3><p>Win rate of the seats holding each wonder side, with its "
                   f"Wilson 95% interval, farthest from fair first; the dashed line is the fair share, this player "
                   f"count's mean win rate per seat ({100 * fair:.2f}%: 1/{players} but for shared victories, which "
                   "count for every winner), the green band what is fair enough (within "
                   f"{100 * threshold:.1f} points of it). VP: the points the side would have to lose (negative: gain) "
                   "to win its fair share in these same games. q: the score test against the fair share, corrected "
                   "for the family of the table's rows. Hover over a row for its numbers; click a heading to "
                   "sort.</p>")
        out.append("<figure>" + plots.forest(labels, t.win_rate, t.ci_low, t.ci_high, "win rate", fair,
                                             f"fair share {100 * fair:.1f}%", (fair - threshold, fair + threshold),
                                             "fair enough", [_side_title(r) for r in t.itertuples()]) + "</figure>")
        out.append(html_table(t, {
            "wonder": ("wonder", str), "side": ("side", str), "seats": ("seats", lambda v: f"{v:,}"),
            "wins": ("wins", lambda v: f"{v:,}"), "win_rate": ("win %", pct), "ci_low": ("95% CI low", pct),
            "ci_high": ("95% CI high", pct), "diff": ("from fair (pp)", pct), "handicap": ("VP", _vp),
            "handicap_ci_low": ("VP CI low", _vp), "handicap_ci_high": ("VP CI high", _vp),
            "mean_points": ("mean points", lambda v: f"{v:.1f}"), **people_columns.HTML_COLUMNS, **SIZE_TABLE}))
        out.append(size_note(t))
        out.append(f"<p>{people_columns.heading_note(edition)}</p>")
        parts = {c[3:]: t[c] for c in read.CATEGORY_COLUMNS}
        titles = [f"{label}: " + ", ".join(f"{name} {values.iloc[i]:.1f}" for name, values in parts.items())
                  + f" (mean {t.mean_points.iloc[i]:.1f} points)" for i, label in enumerate(labels)]
        out.append("<p>Mean points by category:</p><figure>" + plots.stacked(
            labels, parts, "mean points per seat", titles) + "</figure>")
    return out


def _card_title(r) -> str:
    return (f"{r.card}: effect {_vp(100 * r.effect)} points of win chance [{_vp(100 * r.ci_low)}, "
            f"{_vp(100 * r.ci_high)}], about {_vp(r.effect_vp)} VP; built by {r.seats_built:,} seats; "
            f"q {_q(r.q_value)}; {r.verdict}")


def _card_section(cards: pd.DataFrame) -> list:
    out = ["<h2>Cards</h2>", f'<p class="note">{html.escape(ASSOCIATION_NOTE)}</p>',
           "<p>Effect: the mean change in a seat's predicted chance of winning when it builds the card, in "
           "percentage points, from a logistic regression of winning on the card, wonder × side, seat and "
           f"policy (an average marginal effect). Its 95% CI comes from a jackknife that leaves out one of "
           f"{read.GROUPS} blocks of games at a time, because the seats of one game are not independent. "
           f"Cards built by fewer than "
           f"{effects.MIN_SEATS} seats (or not built by fewer), or with fewer than 10 wins or 10 losses "
           "among their builders, get no estimate, so that rare cards do not top the list by noise. VP: the "
           "effect over the value of one point (the share of seats whom one point more or less would have "
           "turned, halved). Farthest from 0 first; the green band is what is fair enough.</p>"]
    for players, t in cards.groupby("players", sort=True):
        t = size.by_distance(t, "effect")
        est = t.dropna(subset=["effect"])
        out.append(f"<h3>{players} players</h3>")
        if len(est):
            band = 100 * est.threshold.iloc[0]
            out.append("<figure>" + plots.forest(
                list(est.card), est.effect * 100, est.ci_low * 100, est.ci_high * 100,
                "effect on the chance of winning (percentage points)", 0.0, "", (-band, band), "fair enough",
                [_card_title(r) for r in est.itertuples()]) + "</figure>")
        out.append(html_table(t, {
            "card": ("card", str), "seats_built": ("seats built", lambda v: f"{v:,}"),
            "build_rate": ("built %", pct), "win_rate_built": ("win % built", pct),
            "win_rate_not_built": ("win % not built", pct), "effect": ("effect (pp)", pct),
            "ci_low": ("95% CI low", pct), "ci_high": ("95% CI high", pct), "effect_vp": ("VP", _vp),
            "effect_vp_ci_low": ("VP CI low", _vp), "effect_vp_ci_high": ("VP CI high", _vp), **SIZE_TABLE}))
        out.append(size_note(t))
    return out


def _paired_title(r) -> str:
    return (f"{r.key}: {pct(r.baseline)} → {pct(r.value)}, {_vp(100 * r.diff)} [{_vp(100 * r.ci_low)}, "
            f"{_vp(100 * r.ci_high)}] (independent runs: [{_vp(100 * r.ci_low_independent)}, "
            f"{_vp(100 * r.ci_high_independent)}]); q {_q(r.q_value)}")


def _paired_section(paired: pd.DataFrame, base_name: str, name: str) -> list:
    both = paired.dropna(subset=["diff"])
    width = (both.ci_high - both.ci_low).median()
    width_i = (both.ci_high_independent - both.ci_low_independent).median()
    widths = ("there are too few games here for a paired interval" if math.isnan(width) else
              f"the median interval here is {100 * width:.2f} percentage points wide, against "
              f"{100 * width_i:.2f} for independent runs")
    out = ["<h2>Paired comparison</h2>",
           f"<p>The baseline ({html.escape(base_name)}) and this dataset ({html.escape(name)}) "
           "hold the same games: the same deals and the same random streams, with only the card data "
           "different. Each metric is compared game by game. Win rates: the mean of the per-seat differences, "
           "with the paired normal-approximation 95% CI. Card effects: the difference of the two effects, "
           f"with a 95% CI from a grouped jackknife that leaves out one of {read.GROUPS} blocks of games from "
           "both datasets at once. The grey intervals are what two independent runs of the same size would "
           f"give; {widths}.</p>"]
    for metric, title in (("win_rate", "Win rate by wonder side"), ("effect", "Card effects")):
        t = size.by_distance(both[both.metric == metric], "diff")
        if not len(t):
            continue
        out.append(f"<h3>{title}: edited − baseline (percentage points), largest first</h3><figure>" + plots.paired(
            list(t.key), t["diff"] * 100, t.ci_low * 100, t.ci_high * 100, t.ci_low_independent * 100,
            t.ci_high_independent * 100, "difference (percentage points)",
            [_paired_title(r) for r in t.itertuples()]) + "</figure>")
    out.append(html_table(size.by_distance(paired, "diff"), {
        "metric": ("metric", str), "key": ("key", str), "baseline": ("baseline %", pct),
        "value": ("value %", pct), "diff": ("diff (pp)", pct), "ci_low": ("paired CI low", pct),
        "ci_high": ("paired CI high", pct), "ci_low_independent": ("independent CI low", pct),
        "ci_high_independent": ("independent CI high", pct), **Q_COLUMNS}))
    for players, t in paired.groupby("players", sort=True):
        out.append(f"<h3>{players} players</h3>" + family_note(t))
    return out


def page(ds: read.Dataset, report: Report, baseline: read.Dataset | None, names: tuple) -> str:
    """The report as one self-contained HTML document (plots inline as SVG, no external resource).
    `names`: how the page names the dataset and the baseline."""
    parts = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>wsim balance report</title>", f"<style>{CSS}</style></head><body>",
             "<h1>wsim balance report</h1>", f"<p>{html.escape(_describe(ds, names[0]))}.</p>"]
    if baseline is not None:
        parts.append(f"<p>Baseline: {html.escape(_describe(baseline, names[1]))}.</p>")
    if report.people_lines:
        parts.append(people_columns.lines_html(report.people_lines))
    parts += answers.section(report.wonders, report.cards, ds.policies, report.practical)
    if baseline is not None:
        parts += _paired_section(report.paired, names[1], names[0])
    parts += _wonder_section(report.wonders, ds.tables.edition)
    parts += _card_section(report.cards)
    parts += [SORT_SCRIPT, "</body></html>"]
    return "\n".join(parts) + "\n"


# ---------------------------------------------------------------------------------------------

def people_lines(ds: read.Dataset, base: read.Dataset | None, installed: Tables) -> list:
    """How far the dataset's players (and the baseline's) are from people at its player count
    (wsim.people.columns.distance_lines): its seats read once more, into an Aggregate. A dataset
    of another edition than the people's gets the line that says why it has none."""
    from wsim.people.seats import dataset_aggregate

    players = int(ds.meta["players"])
    edition = ds.tables.edition
    named = [("the dataset", ds), ("the baseline", base)] if base is not None else [("", ds)]
    if not people_columns.has_people(players, edition):
        return people_columns.distance_lines({}, players, edition)
    aggregates, others = {}, []
    for what, d in named:
        who = answers.population(d.policies)
        label = f"{what} ({who})" if what else who
        if people_columns.same_edition(d.tables.edition):
            aggregates[label] = dataset_aggregate(d.path, installed, label)
        else:  # a baseline of another edition than the dataset's
            others.append(f"{label}: {people_columns.no_people_line(d.tables.edition)}")
    return people_columns.distance_lines(aggregates, players, edition) + others


def build(path: Path, installed: Tables, baseline_path: Path | None = None, names: tuple | None = None,
          practical: float = size.PRACTICAL) -> Report:
    """Read the dataset (and its baseline) and make every table and file of the report; `names`
    (dataset, baseline) are how the page names them (default: their paths). `installed`: the card
    data for a dataset that does not carry its own; `practical`: the practical threshold, a
    fraction of the fair share (wsim.analysis.balance.size)."""
    ds = read.open_dataset(path, installed)
    base = read.open_dataset(baseline_path, installed, "--baseline") if baseline_path is not None else None
    if base is not None:
        check_pairable(base, ds)
    con = read.connect()
    margins = read.margin_table(con, ds)
    wonders = sized_wonders(wonders_table(read.wonder_table(con, ds)), margins, practical)
    cells = read.card_cells(con, ds)
    fitted = effects.fit_cells(cells)
    fair = wonders.groupby("players").fair_share.first()
    cards = sized_cards(cards_table(effects.card_effects(cells, fitted=fitted)), margins, fair, practical)
    paired = None
    if base is not None:
        base_cells = read.card_cells(con, base)
        paired = paired_table(con, base, ds, base_cells, cells, (effects.fit_cells(base_cells), fitted))
    report = Report(people_columns.with_people(wonders, ds.tables.edition), cards, paired, practical)
    report.people_lines = people_lines(ds, base, installed)
    names = names or (str(path), str(baseline_path))
    report.files[INDEX_HTML] = page(ds, report, base, names).encode()
    report.files[WONDERS_CSV] = csv_bytes(report.wonders, WONDER_COLUMNS + tuple(read.CATEGORY_COLUMNS) + SIZE_COLUMNS
                                          + people_columns.PEOPLE_COLUMNS)
    report.files[CARDS_CSV] = csv_bytes(cards, CARD_COLUMNS)
    if paired is not None:
        report.files[PAIRED_CSV] = csv_bytes(paired, PAIRED_COLUMNS)
    return report
