"""The atlas's headline findings (the index's first lines): sentences a designer can act on, made
from the anchored verdicts across the counts, each linked to its evidence.

Order: the sides to act on (largest VP first), the cards to act on, the answers people
contradict, what is not yet settled (with the games that would settle it), then the game's
character (closeness, decisiveness, skill) at the counts people play most.
"""

from __future__ import annotations

import math

import pandas as pd

from wsim.balance_atlas.cells import card_page, players_page, side_name, side_page
from wsim.balance_atlas.plan import ANCHOR, DEFAULT_RUNG

CARD_FINDINGS = 6  # card findings on the index (the count pages list every card)


def counts_text(counts) -> str:
    """3, 4 and 6 players; 4–7 players for a run of counts."""
    counts = sorted(int(c) for c in counts)
    if len(counts) > 2 and counts == list(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]}–{counts[-1]} players"
    if len(counts) == 1:
        return f"{counts[0]} players"
    return f"{', '.join(map(str, counts[:-1]))} and {counts[-1]} players"


def _range(values, fmt, unit: str = "") -> str:
    """"2.0 to 4.0 VP", or "3.0 VP" when the ends look alike."""
    lo, hi = min(values), max(values)
    return (fmt(lo) if fmt(lo) == fmt(hi) else f"{fmt(lo)} to {fmt(hi)}") + unit


def _vp(x: float) -> str:
    return f"{abs(x):.1f}"


def _pts(x: float) -> str:
    return f"{abs(x) * 100:.1f}"


def side_findings(sides: pd.DataFrame) -> list:
    """(weight, sentence, link) of each side to act on, one sentence per side and direction."""
    out = []
    act = sides[sides.action == "act"]
    for (wonder, side, direction), g in act.groupby(["wonder", "side", "direction"], sort=True):
        vp = [abs(v) for v in g.vp if not math.isnan(v)]
        size = f"by {_range(vp, _vp, ' VP')}" if vp else f"by {_range([abs(d) for d in g['diff']], _pts)} points of win share"
        confirmed = sorted(g.players[g.people == "confirmed"])
        people = f"; people agree at {counts_text(confirmed)}" if confirmed else ""
        out.append((max(vp) if vp else 0.0,
                    f"{side_name(wonder, side)} is {direction} at {counts_text(g.players)}, {size} ({ANCHOR}, stable against "
                    f"{DEFAULT_RUNG}{people}).", side_page(wonder, side)))
    return sorted(out, key=lambda x: (-x[0], x[1]))


def card_findings(cards: pd.DataFrame) -> list:
    """(weight, sentence, link) of the cards to act on, most VP first."""
    out = []
    act = cards[cards.action == "act"]
    for (card, direction), g in act.groupby(["card", "direction"], sort=True):
        vp = [abs(v) for v in g.vp if not math.isnan(v)]
        size = f"{_range([abs(e) for e in g.effect], _pts)} points of win share when built"
        if vp:
            size += f" ({_range(vp, _vp, ' VP')})"
        out.append((max(vp) if vp else 0.0,
                    f"The {card} is {direction} at {counts_text(g.players)}: {size}.", card_page(card)))
    return sorted(out, key=lambda x: (-x[0], x[1]))[:CARD_FINDINGS]


def contradicted(sides: pd.DataFrame) -> list:
    """Sides where the bots' answer and people's disagree (don't act on the bots' word)."""
    g = sides[sides.people == "contradicted"]
    if not len(g):
        return []
    names = [f"{side_name(r.wonder, r.side)} at {r.players}" for r in g.itertuples()]
    shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
    return [(0.0, f"People contradict {ANCHOR} on {len(names)} side{'s' if len(names) > 1 else ''} "
                  f"({shown}): don't act on those without people's games.", players_page(int(g.players.iloc[0])))]


def not_yet(sides: pd.DataFrame) -> list:
    """How many sides are not settled, and the games that would settle the hardest one."""
    g = sides[sides.action == "not yet"]
    if not len(g):
        return []
    needed = pd.to_numeric(g.games_needed, errors="coerce")
    finite = needed[needed.notna() & (needed != math.inf)]
    tail = ""
    if len(finite):
        worst = g.loc[finite.idxmax()]
        tail = (f"; the most demanding, {side_name(worst.wonder, worst.side)} at {int(worst.players)} players, needs about "
                f"{int(finite.max()):,} games")
    return [(0.0, f"{len(g)} of {len(sides)} side verdicts are not settled yet{tail}.",
             players_page(int(g.players.iloc[0])))]


def character_findings(character: pd.DataFrame, edition: int = 1) -> list:
    """Closeness and skill, as ranges over the counts, for the default rung and the search seat;
    people's share of close games beside the closeness at the people's edition only (`edition`:
    the atlas's, codes.EDITIONS)."""
    from wsim.people.columns import same_edition

    out = []
    close = character[(character.metric == "close_share") & (character.population == DEFAULT_RUNG)]
    if len(close):
        people = "; people: 28–36%" if same_edition(edition) else ""
        out.append((0.0, f"Games are close: {_range(list(close.value), _pts)}% are won by 2 points or fewer "
                         f"({DEFAULT_RUNG}, {counts_text(close.players)}{people}).",
                    players_page(int(close.players.iloc[0]))))
    lead = character[(character.metric == "leader_age2_wins") & (character.population == DEFAULT_RUNG)]
    if len(lead):
        out.append((0.0, f"The leader after Age II wins {_range(list(lead.value), _pts)}% of games "
                         f"({DEFAULT_RUNG}, {counts_text(lead.players)}).",
                    players_page(int(lead.players.iloc[0]))))
    skill = character[character.metric == "skill_vs_random"]
    if len(skill):
        out.append((0.0, f"Skill matters: one {ANCHOR} seat against random players wins {_range(list(skill.value), _pts)}% "
                         f"of games ({counts_text(skill.players)}).",
                    players_page(int(skill.players.iloc[0]))))
    return out


def findings(sides: pd.DataFrame, cards: pd.DataFrame, character: pd.DataFrame, edition: int = 1) -> pd.DataFrame:
    """The findings table: order, sentence, kind, link (`edition`: the atlas's, codes.EDITIONS)."""
    rows = []
    for kind, items in (("side", side_findings(sides)), ("card", card_findings(cards)),
                        ("side", contradicted(sides)), ("side", not_yet(sides)),
                        ("character", character_findings(character, edition))):
        rows += [{"kind": kind, "sentence": s, "link": link} for _, s, link in items]
    if not any(r["kind"] == "side" and " is too " in r["sentence"] for r in rows):
        rows.insert(0, {"kind": "side", "sentence": f"No wonder side is settled as too strong or too weak at any "
                                                    f"count by {ANCHOR} (see each count's page).",
                        "link": "index.html"})
    return pd.DataFrame([{"order": i, **r} for i, r in enumerate(rows)], columns=["order", "sentence", "kind", "link"])
