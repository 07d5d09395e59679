"""The top of the balance page: one verdict sentence per wonder side and card, farthest from fair
first, each with its size in points of win share and in victory points, their 95% CIs, the
seats behind it, its q-value and the players it holds for (wsim.analysis.balance.size)."""

from __future__ import annotations

import html
import math

import pandas as pd

from wsim.analysis.balance import size
from wsim.analysis.significance import FINDING_Q


def side_name(wonder: str, side: str) -> str:
    """A wonder side as a designer names it: `Rhodes B`, `Manneken Pis A`."""
    return f"{wonder.replace('_', ' ').title()} {side}"


def population(policies: list) -> str:
    """The players a dataset's numbers hold for: `heuristic at every seat`, or each seat's."""
    if len(set(policies)) == 1:
        return f"{policies[0]} at every seat"
    return "seats played by " + ", ".join(policies)


def number(x: float, signed: bool) -> str:
    """x to one decimal (∞ when unbounded), with its sign if `signed`; a true minus sign."""
    if math.isinf(x):
        text = ("+" if signed and x > 0 else "−" if x < 0 else "") + "∞"
    else:
        text = f"{x:+.1f}" if signed else f"{x:.1f}"
    return text.replace("-", "−")


def _sized(value: float, low: float, high: float, direction: int) -> tuple:
    """(`value`, `[low, high]`) as text: unsigned and turned to the verdict's direction (too weak:
    −1) when it has one, signed when it has none (0)."""
    if direction < 0:
        value, low, high = -value, -high, -low
    return number(value, not direction), f"[{number(low, not direction)}, {number(high, not direction)}]"


def _q(q: float) -> str:
    return "no q-value" if math.isnan(q) else "q < 0.001" if q < 0.001 else f"q = {q:.3f}"


def _opening(name: str, players: int, verdict: str, threshold: float) -> tuple:
    """The sentence's start ("Rhodes B (4 players) is"), the verdict as HTML, and the verdict's
    direction (+1 too strong, −1 too weak, 0 neither)."""
    direction = {size.TOO_STRONG: 1, size.TOO_WEAK: -1}.get(verdict, 0)
    mark = "★ " if direction else ""
    what = f"<b>{verdict}</b>" if direction else verdict
    within = f" (within ±{number(100 * threshold, False)})" if verdict == size.FAIR_ENOUGH else ""
    return f"{mark}{html.escape(name)} ({players} players) is", what + within, direction


def sentence(name: str, r, unit: str, vp: tuple, count: str) -> str:
    """One verdict as HTML: `r` a row with players, verdict, threshold, q_value and its distance
    from fair (diff, diff_low, diff_high; probability points), `unit` what a point of it is
    ("win share"), `vp` its size in victory points (value, low, high), `count` what it rests on
    (HTML)."""
    start, what, direction = _opening(name, int(r.players), r.verdict, float(r.threshold))
    value, ci = _sized(100 * r.diff, 100 * r.diff_low, 100 * r.diff_high, direction)
    points = "" if math.isnan(vp[0]) else " — about {} VP {}".format(*_sized(*vp, direction))
    end = f"{points}; {count}; {_q(r.q_value)}."
    if direction:
        return f"{start} {value} points of {unit} {what} {ci}{end}"
    return f"{start} {what}: {value} points of {unit} {ci}{end}"


def side_sentences(wonders: pd.DataFrame, players_text: str) -> list:
    """The wonder sides' verdicts, farthest from fair first (`players_text`: whose, as HTML)."""
    t = size.by_distance(wonders, "diff")
    t = t.assign(diff_low=t.ci_low - t.fair_share, diff_high=t.ci_high - t.fair_share)
    return [sentence(side_name(r.wonder, r.side), r, "win share", (r.handicap, r.handicap_ci_low, r.handicap_ci_high),
                     f"{r.seats:,} seats ({players_text})") for r in t.itertuples(index=False)]


def card_sentences(cards: pd.DataFrame, players_text: str) -> list:
    """The cards' verdicts (those with an estimate), farthest from fair first (`players_text`:
    whose, as HTML)."""
    t = size.by_distance(cards.dropna(subset=["effect"]), "effect")
    t = t.assign(diff=t.effect, diff_low=t.ci_low, diff_high=t.ci_high)
    return [sentence(r.card, r, "win chance for its builders", (r.effect_vp, r.effect_vp_ci_low, r.effect_vp_ci_high),
                     f"built by {r.seats_built:,} seats ({players_text})") for r in t.itertuples(index=False)]


def section(wonders: pd.DataFrame, cards: pd.DataFrame, policies: list, practical: float) -> list:
    """The verdicts section of the page, as HTML pieces."""
    who = html.escape(population(policies))
    thresholds = ", ".join(f"{100 * practical * f:.1f} points of win share at {p} players"
                           for p, f in wonders.groupby("players").fair_share.first().items())
    found = sum(v in size.FINDINGS for v in pd.concat([wonders.verdict, cards.verdict]))
    out = ["<h2>Verdicts</h2>",
           f'<p class="note">For these players ({who}), farthest from fair first. A side or card '
           f"is <b>too strong</b> or <b>too weak</b> (★, {found} here) only when it is significant (q &lt; "
           f"{FINDING_Q}) <i>and</i> at least the practical threshold from fair: {100 * practical:g}% of the fair "
           f"share ({thresholds}; <code>wsim balance --practical</code>). A significant row "
           "closer than that is <i>fair enough</i>, and so is one whose whole interval lies within the "
           "threshold; any other is <i>not resolved</i>. Points of win share: the win rate less the fair "
           "share, with its 95% CI. VP: the points the side would have to lose (or gain) to win its fair "
           "share in these same games, the players playing as they did, with its 95% CI; for a card, its "
           "effect over the value of one point. A card's effect is an association (see Cards).</p>",
           "<h3>Wonder sides</h3>", bullets(side_sentences(wonders, who)), "<h3>Cards</h3>",
           bullets(card_sentences(cards, who))]
    rare = cards[cards.effect.isna()]
    if len(rare):
        out.append("<p>No estimate (too rare, or too common, among these seats): "
                   f"{html.escape(', '.join(sorted(set(rare.card))))}.</p>")
    return out


def bullets(items: list) -> str:
    """The verdict sentences as an HTML list."""
    return '<ul class="verdicts">' + "".join(f"<li>{i}</li>" for i in items) + "</ul>"
