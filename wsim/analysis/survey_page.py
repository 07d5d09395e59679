"""The survey's self-contained HTML page: a verdict sentence per wonder side and card first, then
one forest plot per player count with a marker per population (and the people's games), the
verdict beside each row, and the tables (sortable, farthest from fair first)."""

from __future__ import annotations

import html
import math

import pandas as pd

from wsim.analysis import anchored
from wsim.analysis.balance import answers, plots, size
from wsim.analysis.balance.report import CSS, Q_COLUMNS, SORT_SCRIPT, family_note, html_table, pct
from wsim.analysis.playtest import PEOPLE
from wsim.analysis.significance import FINDING_Q
from wsim.analysis.verdicts import DEPENDS, NOT_RESOLVED, ROBUST
from wsim.people import columns as people_columns

VERDICT_TEXT = (
    f"<p><b>{ROBUST}</b>: every population's win rate (or effect) is on the same side of the fair share "
    f"(or of 0) with q &lt; {FINDING_Q}: a property of the game for these players, whatever their habits. "
    f"<b>{DEPENDS}</b>: two populations disagree (one above, the other below or level) and their difference "
    f"on the games they share has q &lt; {FINDING_Q} (pairs.csv): a habit of the players as much as the game. "
    f"<b>{NOT_RESOLVED}</b>: neither; <i>games needed</i> is how many games would make the least-resolved "
    "population's observed deviation significant after correction, with 80% power. The fair share is each "
    "population's mean win rate per seat (1/P unless victories are shared). q-values are Benjamini–Hochberg "
    "within each table and player count.</p>")


def _games(x: str) -> str:
    """games_needed as the CSV holds it ("", "inf" or a whole number), for reading."""
    return "never (no deviation)" if x == "inf" else f"{int(x):,}" if x else ""


def _sized_rows(rows: pd.DataFrame, value: str, fair) -> pd.DataFrame:
    """Each population's row with its distance from `fair` (a Series, or 0 for an effect) as
    `diff`, `diff_low`, `diff_high`, and whether it is a finding by size too (`star`: q < 0.05
    and at least size.PRACTICAL of the population's fair share, the rows' `share`, from fair, as
    `wsim balance` marks it)."""
    t = rows.assign(diff=rows[value] - fair, diff_low=rows.ci_low - fair, diff_high=rows.ci_high - fair)
    verdicts = size.with_verdicts(t, "diff", t.diff_low, t.diff_high, size.PRACTICAL * t.share).verdict
    return t.assign(star=verdicts.isin(size.FINDINGS))


def _population_sizes(rows: pd.DataFrame) -> str:
    """`heuristic +18.7 [+17.4, +20.0] ★, rollout +3.7 [−1.1, +9.1]`: each population's distance
    from fair in percentage points, starred where it is a finding by size too."""
    return ", ".join(f"{html.escape(r.population)} {answers.number(100 * r.diff, True)} "
                     f"[{answers.number(100 * r.diff_low, True)}, {answers.number(100 * r.diff_high, True)}]"
                     + (" ★" if r.star else "") for r in rows.itertuples())


def _verdict_items(verdicts: pd.DataFrame, sized: pd.DataFrame, key: list, name, unit: str) -> list:
    """One sentence per verdict row, farthest from fair first (its farthest population decides)."""
    groups = dict(list(sized.groupby(key)))
    none = sized.iloc[:0]
    mine = [groups.get(k, none) for k in verdicts[key].itertuples(index=False, name=None)]
    order = verdicts.assign(distance=[g["diff"].abs().max() for g in mine], position=range(len(mine)))
    items = []
    for r in size.by_distance(order, "distance").itertuples(index=False):
        needed = (f"; about {_games(r.games_needed)} games would settle it"
                  if r.verdict == NOT_RESOLVED and r.games_needed not in ("", "inf") else "")
        items.append(f"{html.escape(name(r))} ({r.players} players) — <b>{r.verdict}</b>; points of {unit}: "
                     f"{_population_sizes(mine[r.position]) or 'no estimate'}{needed}.")
    return items


def _verdict_section(survey, rows: pd.DataFrame) -> list:
    """The answers first: a sentence per wonder side and card, farthest from fair first, each
    population's distance from fair with its 95% CI."""
    rates = rows[rows.population != PEOPLE]
    sides = _sized_rows(rates.assign(share=rates.fair_share), "win_rate", rates.fair_share)
    share = rates.groupby(["population", "players"]).fair_share.first()
    effects = survey.card_effects.dropna(subset=["effect"])
    effects = effects.assign(share=[share[k] for k in effects[["population", "players"]].itertuples(index=False)])
    cards = _sized_rows(effects, "effect", 0.0)
    return ["<h2>Verdicts</h2>",
            '<p class="note">Farthest from fair first (a row\'s farthest population decides the order). After '
            "each verdict, every population's distance from fair in percentage points with its 95% CI: its win "
            "rate less its fair share, or a card's effect on its builders' chance of winning. ★: q &lt; "
            f"{FINDING_Q} and at least {size.PRACTICAL:.0%} of the population's fair share from fair "
            f"({25 * size.PRACTICAL:.1f} points at 4 players), as <code>wsim balance</code> marks a finding; <code>wsim balance</code> on a "
            "population's dataset (data/NAME) gives its sizes in victory points.</p>",
            "<h3>Wonder sides</h3>", answers.bullets(_verdict_items(
                survey.verdicts, sides, ["players", "wonder", "side"], lambda r: answers.side_name(r.wonder, r.side),
                "win share")),
            "<h3>Cards</h3>", answers.bullets(_verdict_items(survey.card_verdicts, cards, ["players", "card"],
                                                             lambda r: r.card, "win chance for its builders"))]


def _anchored_section(survey) -> list:
    """The page's first answers: per wonder side, act, not yet or don't act on the anchor's
    verdict (wsim.analysis.anchored); the cards to act on, and how many are not yet or not."""
    sides, cards = survey.anchored, survey.card_anchored
    if sides is None or not len(sides):
        return []
    anchor, below = sides.anchor.iloc[0], sides.below.iloc[0]
    out = [f"<h2>Anchored on {html.escape(anchor)}</h2>",
           f'<p class="note">The answer of {html.escape(anchor)}, sized as <code>wsim balance</code> sizes it; '
           + (f"<i>stable</i> where {html.escape(below)}, the next rung down, agrees with it on the same deals "
              f"(paired difference q ≥ {FINDING_Q}); " if below else "no rung below to check it against; ")
           + f"<i>contradicted</i> where people's rate differs from it (q &lt; {FINDING_Q}). <b>act</b>: too strong "
           "or too weak, stable, not contradicted; <b>not yet</b>: not resolved, or the answer moves between the "
           "two rungs; <b>don't act</b>: fair enough, or people contradict it (anchored.csv, "
           "card_anchored.csv).</p>"]
    for players, t in sides.groupby("players", sort=True):
        out.append(f"<h3>{players} players: wonder sides</h3>")
        out.append(answers.bullets([html.escape(anchored.line(r, answers.side_name(r.wonder, r.side)))
                                    for r in anchored.ordered(t).itertuples(index=False)]))
        mine = cards[cards.players == players]
        act = anchored.ordered(mine[mine.action == anchored.ACT], "effect")
        counts = mine.action.value_counts()
        out.append(f"<h3>{players} players: the cards to act on</h3>")
        out.append(answers.bullets([html.escape(anchored.line(r, r.card, "points of win chance for its builders"))
                                    for r in act.itertuples(index=False)] or ["none"]))
        out.append(f"<p>{counts.get(anchored.NOT_YET, 0)} cards not yet, {counts.get(anchored.DONT_ACT, 0)} "
                   "don't act (card_anchored.csv). A card's effect is an association, as in <code>wsim balance"
                   "</code>: <code>wsim ablate</code> tells whether the card causes it.</p>")
    return out


def page(survey, rows: pd.DataFrame, populations: list, datasets: dict, data_path) -> str:
    """The page of a survey (`rows`: survey.csv's rows, the people's included)."""
    first = populations[0].settings
    out = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">', "<title>wsim survey</title>",
           f"<style>{CSS}</style></head><body>", "<h1>wsim survey</h1>",
           f"<p>The same deals (seed {first.seed}; wonders {html.escape(datasets[populations[0].name].meta['wonders'])}, "
           f"sides {first.sides}{', Manneken Pis in the pool' if first.manneken_pis else ''}) played by "
           f"{len(populations)} populations; the datasets are in {html.escape(str(data_path))}:</p><ul>"]
    for pop in populations:
        out.append(f"<li><b>{html.escape(pop.name)}</b> ({html.escape(pop.spec)}): seats "
                   f"{html.escape(', '.join(pop.settings.labels))}, games 0..{pop.games - 1:,}</li>")
    out.append("</ul>")
    out += _anchored_section(survey)
    if survey.people_lines:
        out.append(people_columns.lines_html(survey.people_lines))
    out.append(VERDICT_TEXT)
    out += _verdict_section(survey, rows)
    distance = (rows.win_rate - rows.fair_share).abs().groupby([rows.players, rows.wonder, rows.side]).max()
    for players, verdicts in survey.verdicts.groupby("players", sort=True):
        here = rows[rows.players == players]
        out.append(f"<h2>{players} players: wonders</h2>")
        verdicts = size.by_distance(verdicts.assign(
            _d=[distance.get((players, w, s), math.nan) for w, s in zip(verdicts.wonder, verdicts.side)]), "_d")
        keys = list(verdicts[["wonder", "side"]].itertuples(index=False, name=None))
        people = here[here.population == PEOPLE]
        keys += [(w, s) for w, s in people[["wonder", "side"]].itertuples(index=False, name=None) if (w, s) not in keys]
        series = []
        for name in list(dict.fromkeys(here.population)):
            mine = here[here.population == name].set_index(["wonder", "side"])
            pick = [mine.loc[k] if k in mine.index else None for k in keys]
            series.append((name, *([math.nan if r is None else 100 * r[c] for r in pick]
                                   for c in ("win_rate", "ci_low", "ci_high"))))
        by_key = verdicts.set_index(["wonder", "side"]).verdict
        notes = [by_key.get(k, "") for k in keys]
        titles = [f"{answers.side_name(*k)}: " + ", ".join(
            f"{name} {value[i]:.1f}% [{low[i]:.1f}, {high[i]:.1f}]" for name, value, low, high in series
            if not math.isnan(value[i])) + (f"; {notes[i]}" if notes[i] else "") for i, k in enumerate(keys)]
        out.append("<figure>" + plots.forest_groups([f"{w} {s}" for w, s in keys], series, "win rate (%)",
                                                     100 / players, notes, titles) + "</figure>")
        out.append(html_table(people_columns.with_people(verdicts, survey.edition), {
            "wonder": ("wonder", str), "side": ("side", str), "verdict": ("verdict", str),
            "min_rate": ("min win %", pct), "max_rate": ("max win %", pct),
            "populations": ("populations", str), "games_needed": ("games needed", _games),
            **people_columns.HTML_COLUMNS}))
        out.append(f"<p>{people_columns.heading_note(survey.edition)}</p>")
        out.append("<h3>Win rates by population</h3>")
        for name, t in here.groupby("population", sort=False):
            t = size.by_distance(t.assign(_d=t.win_rate - t.fair_share.fillna(1 / players)), "_d")
            out.append(f"<p><b>{html.escape(name)}</b>, farthest from fair first</p>" + html_table(t, {
                "wonder": ("wonder", str), "side": ("side", str), "seats": ("seats", lambda v: f"{v:,}"),
                "wins": ("wins", lambda v: f"{v:,}"), "win_rate": ("win %", pct), "ci_low": ("95% CI low", pct),
                "ci_high": ("95% CI high", pct), **Q_COLUMNS}))
        out.append(family_note(here[here.population != PEOPLE]))
        if (here.population == PEOPLE).any():
            out.append("<p>The people's rows, against 1/P, are a family of their own:</p>"
                       + family_note(here[here.population == PEOPLE]))
        pairs = survey.pairs[survey.pairs.players == players]
        out.append("<h3>Populations against each other (the games they share; diff = a − b)</h3>")
        out.append(html_table(size.by_distance(pairs, "diff"), {
            "wonder": ("wonder", str), "side": ("side", str), "population_a": ("a", str), "population_b": ("b", str),
            "games": ("games", lambda v: f"{v:,}"), "diff": ("diff (pp)", pct), "ci_low": ("95% CI low", pct),
            "ci_high": ("95% CI high", pct), **Q_COLUMNS}))
        out.append(family_note(pairs))
        cards = survey.card_verdicts[survey.card_verdicts.players == players]
        out.append(f"<h2>{players} players: cards</h2><p>Each population's card effect (the mean change in a "
                   "seat's chance of winning when it builds the card, adjusted for wonder, side, seat and policy: "
                   "an association, see <code>wsim balance</code>), and the verdict over the populations.</p>")
        effects = survey.card_effects[survey.card_effects.players == players]
        farthest = effects.effect.abs().groupby(effects.card).max()
        cards = size.by_distance(cards.assign(_d=cards.card.map(farthest)), "_d")
        out.append(html_table(cards, {
            "card": ("card", str), "verdict": ("verdict", str), "min_effect": ("min effect (pp)", pct),
            "max_effect": ("max effect (pp)", pct), "populations": ("populations", str),
            "games_needed": ("games needed", _games)}))
        out.append("<p>The populations' card effects behind these verdicts, each with its 95% CI and q-value, are "
                   "in card_effects.csv;</p>" + family_note(effects))
    if survey.reference is not None:
        ref = survey.reference
        out.append("<h2>Your games against the populations</h2><p>Each population's win rate against the "
                   "people's, wonder side by wonder side (side * pools both sides), with a two-sample 95% CI "
                   "(the games are not the same ones). <i>disagrees</i>: q &lt; 0.05.</p>")
        out.append(html_table(ref, {
            "wonder": ("wonder", str), "side": ("side", str), "population": ("population", str),
            "rate": ("win %", pct), "people_rate": ("people's win %", pct), "diff": ("diff (pp)", pct),
            "ci_low": ("95% CI low", pct), "ci_high": ("95% CI high", pct), **Q_COLUMNS,
            "disagrees": ("disagrees", str)}))
        out.append(family_note(ref))
    out += [SORT_SCRIPT, "</body></html>"]
    return "\n".join(out) + "\n"
