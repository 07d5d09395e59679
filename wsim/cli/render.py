"""The commands' text output: tables and summaries rendered from the documents and results the
rest of wsim computes (the JSON forms are those documents themselves). Each function returns
the text; the commands print it."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from wsim import codes
from wsim.analysis.stats import wilson_interval
from wsim.reference.positions import city_label
from wsim.tables import Tables

if TYPE_CHECKING:  # a type only: importing it would load pyarrow for every command
    from wsim.dataset.summary import Summary


def cards_text(doc: dict, data_sha256: str) -> str:
    """`wsim cards`: the cards, then the wonders, of a `cards_json` document."""
    header = f"{'card':<20} {'age':>3} {'colour':<7} {'copies':<10} {'cost':<34} {'chain from':<32} effect"
    lines = [header, "-" * len(header)]
    for c in doc["cards"]:
        copies = " ".join(f"{p}+" for p in c["players"]) or "guild"
        cost = ", ".join([f"{c['cost']['coins']} coin" + ("s" if c["cost"]["coins"] > 1 else "")] if c["cost"]["coins"] else []
                         + [f"{n} {r}" for r, n in c["cost"]["resources"].items()]) or "free"
        lines.append(f"{c['name']:<20} {c['age']:>3} {c['color']:<7} {copies:<10} {cost:<34} "
                     f"{', '.join(c['chain_from']) or '-':<32} {c['effect']}")
    lines.append("")
    for w in doc["wonders"]:
        promo = " (promo, off unless asked for)" if w["promo"] else ""
        res = w["sides"]["A"]["starting_resource"] or "none"
        lines.append(f"{w['id']}: {w['name']}{promo}; starting resource {res}, {w['starting_coins']} coins")
        for side, s in w["sides"].items():
            stages = " | ".join(
                f"[{', '.join(f'{n} {r}' for r, n in st['cost']['resources'].items())}] {st['effect']}"
                for st in s["stages"])
            lines.append(f"  {side}: {stages}")
    lines.append(f"\n{len(doc['cards'])} cards, {len(doc['wonders'])} wonders (data sha256 {data_sha256[:12]})")
    lines.append("left and right: seen from the owner's seat i, left = seat i+1, right = seat i-1")
    return "\n".join(lines)


def score_text(pos, doc: dict) -> str:
    """`wsim score`: every seat's breakdown of a `score_json` document, and the winners."""
    cols = codes.CATEGORIES + ("total",)
    head = f"{'seat':>4}  {'wonder':<16} " + " ".join(f"{c:>10}" for c in cols) + f" {'coins':>6}"
    lines = [head, "-" * len(head)]
    for row in doc["players"]:
        seat = row["seat"]
        lines.append(f"{seat:>4}  {city_label(pos, seat):<16} " + " ".join(f"{row[c]:>10}" for c in cols)
                     + f" {pos.cities[seat].coins:>6}")
    win = doc["winners"]
    label = "winner" if len(win) == 1 else "winners (shared victory)"
    lines.append(f"\n{label}: " + ", ".join(f"seat {w}" for w in win))
    if pos.free_city >= 0:
        lines.append(f"seat {pos.free_city} is the Free City: scored in full, never among the winners")
    lines.append("(left = seat i+1, right = seat i-1)")
    return "\n".join(lines)


def trade_text(pos, seat: int, card: int | None, doc: dict) -> str:
    """`wsim trade`: a `trade_json` document (a card id, or the next stage when card is None)."""
    city = pos.cities[seat]
    left, right = pos.left(seat), pos.right(seat)
    yes = {True: "yes", False: "no"}
    lines = [f"seat {seat} ({city_label(pos, seat)}, {city.coins} coins): {doc['target']}",
             f"  left neighbour = seat {left}, right neighbour = seat {right} (left = seat i+1)"]
    if card is None and pos.stages_left(seat) <= 0:
        lines.append("  every wonder stage is built already")
    lines.append(f"  free: {yes[doc['free']]}    coin cost (to the bank): {doc['coin_cost']}")
    if doc["options"]:
        lines.append("  purchase options (coins to the left / right neighbour, total with the coin cost):")
        for o in doc["options"]:
            total = doc["coin_cost"] + o["left"] + o["right"]
            mark = "" if total <= city.coins else "  (too expensive)"
            lines.append(f"    left {o['left']:>2}   right {o['right']:>2}   total {total:>2}{mark}")
    elif card is not None or pos.stages_left(seat) > 0:
        lines.append("  purchase options: none (the neighbours cannot supply the cost)")
    lines.append(f"  affordable: {yes[doc['affordable']]}    legal: {yes[doc['legal']]}")
    if card is not None and pos.owns_name(seat, card):
        lines.append(f"  (the city already owns a {pos.t.names[pos.t.card_name_id[card]]})")
    return "\n".join(lines)


def summary_text(s: Summary, tables: Tables) -> str:
    """`wsim simulate`'s summary: speed, mean points by category, win rate by wonder and side
    (95% CI)."""
    rows = max(1, s.games * s.players)
    rate = s.played / s.seconds if s.seconds > 0 else float("inf")
    what = f"{s.players} players" + (" and the Free City" if s.players == codes.FC_PLAYERS else "")
    if s.policies:
        distinct = sorted(set(s.policies))
        what += f" ({distinct[0]})" if len(distinct) == 1 else f" (seats: {', '.join(s.policies)})"
    kernels = f"; {s.kernels}" if s.kernels else ""
    if s.played == s.games:
        head = f"{s.games:,} games of {what} in {s.seconds:.1f} s ({rate:,.0f} games/s){kernels}"
    elif s.played:
        head = (f"{s.games:,} games of {what}: {s.played:,} played now in {s.seconds:.1f} s "
                f"({rate:,.0f} games/s), the rest were already in the dataset{kernels}")
    else:
        head = f"{s.games:,} games of {what}: the dataset was complete, nothing played"
    fc = s.players == codes.FC_PLAYERS
    lines = [head, "", "mean points per seat" + (" of the two players:" if fc else ":")]
    names = list(codes.CATEGORIES) + ["total"]
    lines.append("  " + "  ".join(f"{n:>10}" for n in names))
    lines.append("  " + "  ".join(f"{v / rows:>10.2f}" for v in s.points))
    if fc:
        lines.append(f"  the Free City: {s.free_city_points / max(1, s.games):.2f} points a game")
    lines += ["", f"win rate by wonder and side, with its 95% CI (a fair share is {1 / s.players:.1%}; "
                  "shared victories count for every winner):"]
    order = {b: i for i, b in enumerate(tables.board_ids)}
    for (wonder, side), (seats, wins) in sorted(s.seats_by_board.items(),
                                                key=lambda kv: (order.get(kv[0][0], 99), kv[0][1])):
        lo, hi = wilson_interval(wins, seats)
        lines.append(f"  {wonder:<14} {side}  {wins / seats:6.1%}  [{lo:6.1%}, {hi:6.1%}]  of {seats:,} seats")
    return "\n".join(lines)


def people_text(s: Summary, tables: Tables) -> str:
    """Who played and how far their board table is from people's (docs/people.md): the summary's
    last lines. `tables`: the run's card data, whose edition decides whether people's games
    (first edition) are comparable at all."""
    from wsim.people.columns import distance_lines, has_people, no_people_line, same_edition

    distinct = sorted(set(s.policies))
    who = distinct[0] if len(distinct) == 1 else ", ".join(s.policies)
    if not same_edition(tables.edition):
        return f"\nplayers: {who}; {no_people_line(tables.edition)}"
    if not has_people(s.players, tables.edition):
        return f"\nplayers: {who}; people (Board Game Arena's games) have no {s.players}-player games to compare with"
    lines = distance_lines({who: s.people}, s.players, tables.edition)
    return "\nthe players beside people (docs/people.md):\n  " + "\n  ".join(lines)


def aligned(csv_text: str) -> str:
    """A CSV document as a table with aligned columns."""
    rows = [line.split(",") for line in csv_text.strip().splitlines()]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in rows)


def paired_text(report, limit: int = 8) -> str:
    """The largest paired differences of a balance report, with their CIs."""
    paired = report.paired.dropna(subset=["diff"])
    top = paired.reindex(paired["diff"].abs().sort_values(ascending=False).index).head(limit)
    lines = [f"largest paired differences (edited − baseline, percentage points, paired 95% CI; "
             f"{len(paired)} compared):"]
    for r in top.itertuples(index=False):
        lines.append(f"  {r.metric:<8} {r.key:<28} {_points(r.diff)}  [{_points(r.ci_low)}, {_points(r.ci_high)}]"
                     f"  (independent runs: [{_points(r.ci_low_independent)}, {_points(r.ci_high_independent)}])")
    return "\n".join(lines)


def _points(x: float) -> str:
    """A difference in percentage points; `none` where there is no estimate (too few games)."""
    return "   none" if math.isnan(x) else f"{100 * x:+7.2f}"


def duration(seconds: float) -> str:
    """A time to wait, e.g. "2 min 05 s" or "3.4 s"."""
    if seconds < 59.95:
        return f"{max(seconds, 0.1):.1f} s"
    whole = round(seconds)
    return f"{whole // 60} min {whole % 60:02d} s"


def population_line(pop, seconds: float) -> str:
    """A survey population: its name, seats, games and estimated play time."""
    return f"{pop.name}: {', '.join(pop.settings.labels)} on {pop.games:,} games, about {duration(seconds)}"


def play_text(play) -> str:
    """How each population plays (survey.play: play.csv's rows), a line per population and
    player count, each mean with its 95% interval's half width."""
    lines = []
    for r in play.itertuples(index=False):
        categories = ", ".join(f"{c[3:]} {getattr(r, c):.1f}" for c in play.columns if c.startswith("vp_")
                               and c != "vp_total")
        lines.append(f"  {r.population} @{r.players}: {r.mean_points:.1f} points a seat "
                     f"(±{r.points_ci_high - r.mean_points:.1f}), first to last {r.mean_gap:.1f} "
                     f"(±{r.gap_ci_high - r.mean_gap:.1f}), {r.coins:.1f} coins left, {r.stages:.1f} stages, "
                     f"{r.science_sets:.2f} science sets (±{r.sets_ci_high - r.science_sets:.2f}), "
                     f"winner with a guild in {100 * r.winners_with_guild:.0f}% of {r.games:,} games "
                     f"({100 * r.guild_ci_low:.0f}–{100 * r.guild_ci_high:.0f}%); points: {categories}")
    return "how each population plays (a seat's means):\n" + "\n".join(lines)


def verdict_text(survey) -> str:
    """The survey's verdicts at a glance: how many of each, and the wonder sides that are not
    `not resolved`."""
    lines = []
    for what, table, key in (("wonder sides", survey.verdicts, ("wonder", "side")),
                             ("cards", survey.card_verdicts, ("card",))):
        counts = table.verdict.value_counts()
        lines.append(f"{what}: " + ", ".join(f"{n} {v}" for v, n in counts.items()))
        if what == "wonder sides":
            for r in table[table.verdict != "not resolved"].itertuples(index=False):
                lines.append(f"  {r.wonder} {r.side} @{r.players}: {r.verdict} "
                             f"(win rate {100 * r.min_rate:.1f}–{100 * r.max_rate:.1f}% over {r.populations})")
    if survey.anchored is not None and len(survey.anchored):
        lines.append(f"anchored on {survey.anchored.anchor.iloc[0]}: " + "; ".join(
            f"{what} " + ", ".join(f"{n} {a}" for a, n in table.action.value_counts().items())
            for what, table in (("wonder sides", survey.anchored), ("cards", survey.card_anchored))))
    return "\n".join(lines)
