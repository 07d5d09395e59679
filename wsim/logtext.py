"""A move log (wsim.movelog JSON) as readable text, for `wsim replay`."""

from __future__ import annotations

from wsim import codes

_AGES = ("I", "II", "III")


def _move_words(ev: dict) -> str:
    card = ev["card"]
    paid = ev["left"] + ev["right"]
    trade = f" (buys for {ev['left']} left + {ev['right']} right)" if paid else ""
    action = ev["action"]
    if action == "build":
        return f"builds {card}{trade}"
    if action == "build_free":
        return f"builds {card} free (Olympia)"
    if action == "stage":
        copy = f", copying the {ev['copy3']} neighbour's stage 3" if "copy3" in ev else ""
        return f"builds a wonder stage with {card}{trade}{copy}"
    return f"discards {card} for {codes.DISCARD_COINS} coins"


def _seat_words(e: dict) -> str:
    """Who acts: "seat k", or the Free City with the player who decided for it."""
    if "by" in e:
        return f"Free City (seat {e['seat']}, decided by seat {e['by']})"
    return f"seat {e['seat']}"


def _setup_lines(doc: dict, policies: list) -> list:
    """The opening lines: the game, each seat's wonder and who plays it."""
    n = doc["players"]
    setup = doc["setup"]
    ring = " and the Free City, a ring of 3 cities" if n == codes.FC_PLAYERS else ""
    out = [f"game {doc['game']} (seed {doc['seed']}, {n} players{ring}; seat i's left neighbour is seat i+1)"]
    for s in range(n):
        out.append(f"  seat {s}: {setup['boards'][s]} {setup['sides'][s]}, policy {policies[s]}")
    if n == codes.FC_PLAYERS:
        s = codes.FC_SEAT
        out.append(f"  Free City (seat {s}): {setup['boards'][s]} {setup['sides'][s]}, played each turn by the "
                   "player holding the Free City card (seat 0 on turn 1 of Ages I and III, seat 1 on turn 1 "
                   "of Age II, then changing hands every turn)")
    return out


def _age_lines(doc: dict, age: int) -> list:
    """An age's heading (how hands move) and the hands dealt."""
    hands = doc["setup"]["hands"][age - 1]
    if doc["players"] == codes.FC_PLAYERS:
        out = [f"\nAge {_AGES[age - 1]} (seats 0 and 1 swap hands after each turn; the holder of the "
               "Free City card draws the Free City's next pile card into its hand)"]
        names = [f"seat {s} is dealt" for s in range(codes.FC_PLAYERS)] + ["Free City pile (seat 2)"]
    else:
        direction = "right" if age == 2 else "left"
        out = [f"\nAge {_AGES[age - 1]} (hands pass to the {direction})"]
        names = [f"seat {s} is dealt" for s in range(len(hands))]
    return out + [f"  {name}: {', '.join(hand)}" for name, hand in zip(names, hands)]


def log_text(doc: dict, policies: list) -> str:
    """The whole game in words: seats, hands dealt, each turn's moves, military, final scores.

    policies: the players' policy names (two for a Free City game).
    """
    out = _setup_lines(doc, policies)
    events = doc["events"]
    for age in (1, 2, 3):
        out.extend(_age_lines(doc, age))
        for turn in range(1, codes.TURNS_PER_AGE + 1):
            this = [e for e in events if e["age"] == age and e.get("turn") == turn and e["kind"] != "military"]
            if not this:
                continue
            out.append(f"  turn {turn}:")
            for e in this:
                if e["kind"] == "move":
                    out.append(f"    {_seat_words(e)} {_move_words(e)}")
                elif e["kind"] == "seventh":
                    out.append(f"    {_seat_words(e)} plays its 7th card: {_move_words(e)}")
                else:
                    what = f"builds {e['card']} from the discard pile" if e["card"] else "finds nothing to build"
                    out.append(f"    {_seat_words(e)} {what} (discard build)")
        out.append("  military:")
        for e in events:
            if e["kind"] == "military" and e["age"] == age:
                out.append(f"    seat {e['seat']}: {e['shields']} shields; vs left {e['vs_left']:+d}, "
                           f"vs right {e['vs_right']:+d}")
    out.append("\nfinal scores:")
    cats = list(codes.CATEGORIES) + ["total", "coins", "rank"]
    out.append("  seat " + " ".join(f"{c:>10}" for c in cats))
    for p in doc["final"]["players"]:
        row = " ".join(f"{'-' if p[c] is None else p[c]:>10}" for c in cats)
        out.append(f"  {p['seat']:>4} {row}" + ("  (Free City, never wins)" if p.get("free_city") else ""))
    winners = doc["final"]["winners"]
    out.append(("winner: " if len(winners) == 1 else "shared victory: ") + ", ".join(f"seat {w}" for w in winners))
    return "\n".join(out)
