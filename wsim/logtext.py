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
    return f"discards {card} for 3 coins"


def log_text(doc: dict, policies: list) -> str:
    """The whole game in words: seats, hands dealt, each turn's moves, military, final scores."""
    n = doc["players"]
    setup = doc["setup"]
    out = [f"game {doc['game']} (seed {doc['seed']}, {n} players; seat i's left neighbour is seat i+1)"]
    for s in range(n):
        out.append(f"  seat {s}: {setup['boards'][s]} {setup['sides'][s]}, policy {policies[s]}")
    events = doc["events"]
    for age in (1, 2, 3):
        direction = "right" if age == 2 else "left"
        out.append(f"\nAge {_AGES[age - 1]} (hands pass to the {direction})")
        for s in range(n):
            out.append(f"  seat {s} is dealt: {', '.join(setup['hands'][age - 1][s])}")
        for turn in range(1, codes.TURNS_PER_AGE + 1):
            this = [e for e in events if e["age"] == age and e.get("turn") == turn and e["kind"] != "military"]
            if not this:
                continue
            out.append(f"  turn {turn}:")
            for e in this:
                if e["kind"] == "move":
                    out.append(f"    seat {e['seat']} {_move_words(e)}")
                elif e["kind"] == "seventh":
                    out.append(f"    seat {e['seat']} plays its 7th card: {_move_words(e)}")
                else:
                    what = f"builds {e['card']} from the discard pile" if e["card"] else "finds nothing to build"
                    out.append(f"    seat {e['seat']} {what} (discard build)")
        out.append("  military:")
        for e in events:
            if e["kind"] == "military" and e["age"] == age:
                out.append(f"    seat {e['seat']}: {e['shields']} shields; vs left {e['vs_left']:+d}, "
                           f"vs right {e['vs_right']:+d}")
    out.append("\nfinal scores:")
    cats = list(codes.CATEGORIES) + ["total", "coins", "rank"]
    out.append("  seat " + " ".join(f"{c:>10}" for c in cats))
    for p in doc["final"]["players"]:
        out.append(f"  {p['seat']:>4} " + " ".join(f"{p[c]:>10}" for c in cats))
    winners = doc["final"]["winners"]
    out.append(("winner: " if len(winners) == 1 else "shared victory: ") + ", ".join(f"seat {w}" for w in winners))
    return "\n".join(out)
