"""The rebalance report's self-contained HTML page: the verdict, the edits and how to reproduce
them, a forest plot per player count (each side's held-out win rate before and after, the fair
share marked), the paired differences and the search's path."""

from __future__ import annotations

import html

from wsim.analysis.balance import plots
from wsim.analysis.balance.report import CSS, Q_COLUMNS, SORT_SCRIPT, family_note, html_table, pct
from wsim.people import columns as people_columns


def _verdict(result, tolerance: float) -> str:
    if result.solved:
        return (f"<p><b>Solved.</b> With the edits below every wonder side's win rate on the held-out games is "
                f"within {100 * tolerance:.1f} points of the fair share (worst: {100 * result.max_deviation:.1f}), "
                "and every 95% interval is at most half that wide on each side.</p>")
    return (f"<p><b>No solution within the limits was found.</b> The best edits the search found are shown: on "
            f"the held-out games the worst side is {100 * result.max_deviation:.1f} points from the fair share "
            f"(the tolerance is {100 * tolerance:.1f}). Allow more edits (--max-edits), larger ones "
            "(--max-change), more levers (--levers) or more steps (--max-steps).</p>")


def page(result, plan_, commands: list, path) -> str:
    """The page of a rebalance (`commands`: the `wsim ablate` lines that reproduce the held-out
    comparison, one per player count; `path`: the search's steps, path.csv's frame)."""
    table = result.held_out
    out = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">', "<title>wsim rebalance</title>",
           f"<style>{CSS}</style></head><body>", "<h1>wsim rebalance</h1>",
           f"<p>Population <b>{html.escape(plan_.name)}</b> "
           f"({html.escape(', '.join(sorted(set(next(iter(plan_.settings.values())).labels))))}) at "
           f"{', '.join(str(p) for p in plan_.settings)} players; tolerance {100 * plan_.tolerance:.1f} points "
           f"around the fair share (each run's mean win rate per seat); at most {plan_.max_edits} edited numbers "
           f"of at most ±{plan_.max_change}; {len(result.levers)} levers; {plan_.games:,} games a measurement; "
           f"{result.games_played:,} games in {result.seconds:.0f} s.</p>",
           people_columns.lines_html(result.people_lines) if result.people_lines else "",
           _verdict(result, plan_.tolerance), "<h2>The edits</h2>"]
    if result.edits:
        out.append("<pre>" + html.escape("\n".join(result.edits)) + "</pre>")
    else:
        out.append("<p>None: the input is within the tolerance already.</p>")
    out.append(f"<p>Held-out games: {result.held_out_games:,} per player count, seed {result.held_out_seed} "
               "(no step of the search used it). To see them again:</p>")
    out.append("<pre>" + html.escape("\n".join(commands)) + "</pre>")
    for players, here in table.groupby("players", sort=True):
        labels = [f"{w} {s}" for w, s in zip(here.wonder, here.side)]
        series = [("before", *(100 * here[c] for c in ("before", "before_ci_low", "before_ci_high"))),
                  ("after", *(100 * here[c] for c in ("after", "after_ci_low", "after_ci_high")))]
        fair = 100 * (here.before * here.seats).sum() / here.seats.sum()
        out.append(f"<h2>{players} players: win rates on the held-out games</h2>")
        out.append("<figure>" + plots.forest_groups(labels, series, "win rate (%)", fair) + "</figure>")
        out.append(html_table(here, {
            "wonder": ("wonder", str), "side": ("side", str), "seats": ("seats", lambda v: f"{v:,}"),
            "before": ("before %", pct), "after": ("after %", pct), "diff": ("diff (pp)", pct),
            "ci_low": ("95% CI low", pct), "ci_high": ("95% CI high", pct), **people_columns.HTML_COLUMNS,
            **Q_COLUMNS}))
        out.append(family_note(here))
        out.append(f"<p>{people_columns.heading_note(result.edition)}</p>")
    out.append("<h2>The search</h2><p>Each step measured every lever's paired effect around the data "
               "it started from, solved the linear model, and verified the solution by a run of its own:</p>")
    out.append(html_table(path, {
        "step": ("step", str), "edits": ("edits", str), "max_deviation": ("max deviation (pp)", pct)}))
    out += [SORT_SCRIPT, "</body></html>"]
    return "\n".join(out)

