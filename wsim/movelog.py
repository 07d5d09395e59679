"""The move log: everything one game did, as integer events and as JSON.

Both engines record a game as a list of integer events (cheap for a kernel to write into an
array); `to_json` turns them, with the setup and the final breakdown, into the documented JSON
log, and `events_from_json` reads them back for a replay.

Event columns (EVENT_COLUMNS, all integers):
  kind    MOVE (a turn's move), SEVENTH (Babylon B's 7th card), DISCARD_BUILD (Halicarnassus or
          a Manneken Pis copy), MILITARY (one seat's result at the end of an age)
  age     1..3
  turn    1..6
  seat    the seat concerned
  card    card id (MOVE, SEVENTH, DISCARD_BUILD; -1 = nothing taken); shields for MILITARY
  action  ACT_BUILD, ACT_BUILD_FREE, ACT_STAGE, ACT_DISCARD (MOVE, SEVENTH), else 0
  left    coins paid to the left neighbour; for MILITARY the token won against it (+1/+3/+5,
          -1, or 0 for a tie)
  right   the same towards the right neighbour
  extra   Manneken Pis A stage-3 neighbour chosen with the move (0 left, 1 right), else -1

JSON log (`to_json`):
  {"format": "wsim-log-1", "rules_version", "data_sha256", "seed", "game", "players",
   "setup": {"boards": [wonder ids], "sides": ["A"|"B"], "hands": [age][seat][card names]},
   "events": [{"kind": "move"|"seventh", "age", "turn", "seat", "card", "action", "left",
               "right"[, "copy3": "left"|"right"]},
              {"kind": "discard_build", "age", "turn", "seat", "card": name or null,
               "card_age": the card's age (it may come from an earlier age) or null},
              {"kind": "military", "age", "seat", "shields", "vs_left", "vs_right"}],
   "final": {"players": [{seat, military, treasury, wonder, civilian, science, commercial,
                          guild, total, coins, rank, discards, chained, coins_paid,
                          coins_received}], "winners": [seats]}}
  (the last four count how the seat played, as the dataset's columns of these names:
  docs/interfaces.md §2)

Two players (the Free City variant, docs/rules.md §10): "players" is 2, while the setup lists 3
boards and sides and hands[age] 3 lists, the third the Free City's pile (seat 2, drawn in order).
Every Free City move and discard build (seat 2) carries "by": the controlling player's seat; the
Free City's final entry has "rank": null and "free_city": true.
"""

from __future__ import annotations

from wsim import RULES_VERSION, codes
from wsim.errors import WsimError
from wsim.tables import Tables

FORMAT = "wsim-log-1"
# The codes live in wsim.codes, which the kernels (writing the log) share; readers know them here.
MOVE, SEVENTH, DISCARD_BUILD, MILITARY = codes.MOVE, codes.SEVENTH, codes.DISCARD_BUILD, codes.MILITARY
ACT_BUILD, ACT_BUILD_FREE, ACT_STAGE, ACT_DISCARD = codes.ACT_BUILD, codes.ACT_BUILD_FREE, codes.ACT_STAGE, codes.ACT_DISCARD
KINDS, ACTIONS, EVENT_COLUMNS = codes.KINDS, codes.ACTIONS, codes.EVENT_COLUMNS
COPY_NAMES = ("left", "right")


class LogError(WsimError):
    """A move log that cannot be read (unknown names, missing keys, another format)."""


def event_to_json(tables: Tables, ev, free_city: bool = False) -> dict:
    """One integer event as a JSON object; free_city marks the Free City's choices with "by"."""
    kind, age, turn, seat, card, action, left, right, extra = (int(x) for x in ev)
    if kind == MILITARY:
        return {"kind": "military", "age": age, "seat": seat, "shields": card,
                "vs_left": left, "vs_right": right}
    if kind == DISCARD_BUILD:
        d = {"kind": "discard_build", "age": age, "turn": turn, "seat": seat,
             "card": tables.card_names[card] if card >= 0 else None,
             "card_age": int(tables.card_age[card]) if card >= 0 else None}
    else:
        d = {"kind": KINDS[kind], "age": age, "turn": turn, "seat": seat, "card": tables.card_names[card],
             "action": ACTIONS[action], "left": left, "right": right}
        if extra >= 0:
            d["copy3"] = COPY_NAMES[extra]
    if free_city and seat == codes.FC_SEAT:
        d["by"] = codes.fc_controller(age, turn)
    return d


def _card(tables: Tables, name, age: int) -> int:
    """Card id of a logged name; the age tells the Age I and II Loom/Glassworks/Press apart."""
    if name is None:
        return -1
    try:
        cid = tables.card_id(name)
    except KeyError as e:
        raise LogError(str(e)) from None
    for c in range(tables.n_cards):
        if tables.card_name_id[c] == tables.card_name_id[cid] and tables.card_age[c] == age:
            return c
    return cid


def event_from_json(tables: Tables, d: dict) -> tuple:
    """The integer event of a JSON event (inverse of event_to_json)."""
    try:
        kind = KINDS.index(d["kind"])
        if kind == MILITARY:
            return (kind, d["age"], codes.TURNS_PER_AGE, d["seat"], d["shields"], 0,
                    d["vs_left"], d["vs_right"], -1)
        if "by" in d and d["by"] != codes.fc_controller(d["age"], d["turn"]):
            raise ValueError(f"\"by\": seat {codes.fc_controller(d['age'], d['turn'])} controls the "
                             "Free City on that turn")
        if kind == DISCARD_BUILD:
            cid = _card(tables, d["card"], d["card_age"])
            return (kind, d["age"], d["turn"], d["seat"], cid, 0, 0, 0, -1)
        extra = COPY_NAMES.index(d["copy3"]) if "copy3" in d else -1
        return (kind, d["age"], d["turn"], d["seat"], _card(tables, d["card"], d["age"]),
                ACTIONS.index(d["action"]), d["left"], d["right"], extra)
    except (KeyError, ValueError, TypeError) as e:
        raise LogError(f"bad event {d!r}: {e}") from None


def to_json(tables: Tables, seed: int, game: int, boards, sides, hands, events, final,
            free_city: bool = False) -> dict:
    """The JSON move log of one game (see the module docstring).

    hands[age][seat] lists card ids; final is {"players": [...], "winners": [...]}.
    free_city: a 2-player game (three boards, the third the Free City's).
    """
    return {
        "format": FORMAT,
        "rules_version": RULES_VERSION,
        "data_sha256": tables.data_sha256,
        "seed": int(seed),
        "game": int(game),
        "players": codes.FC_PLAYERS if free_city else len(boards),
        "setup": {
            "boards": [tables.board_ids[b] for b in boards],
            "sides": ["AB"[s] for s in sides],
            "hands": [[[tables.card_names[c] for c in hand] for hand in age] for age in hands],
        },
        "events": [event_to_json(tables, ev, free_city) for ev in events],
        "final": final,
    }


def setup_from_json(tables: Tables, doc: dict) -> tuple:
    """(boards, sides, hands[age][seat] card ids) of a JSON log."""
    if doc.get("format") != FORMAT:
        raise LogError(f"not a wsim move log (format {doc.get('format')!r}, expected {FORMAT!r})")
    try:
        setup = doc["setup"]
        boards = [tables.board_id(b) for b in setup["boards"]]
        sides = ["AB".index(s) for s in setup["sides"]]
        hands = [[[_card(tables, name, age + 1) for name in hand] for hand in hands]
                 for age, hands in enumerate(setup["hands"])]
    except (KeyError, ValueError, TypeError) as e:
        raise LogError(f"bad setup: {e}") from None
    return boards, sides, hands


def is_free_city(doc: dict) -> bool:
    """Whether a JSON log is of a 2-player (Free City) game."""
    return doc.get("players") == codes.FC_PLAYERS


def events_from_json(tables: Tables, doc: dict) -> list:
    """The integer events of a JSON log."""
    return [event_from_json(tables, d) for d in doc.get("events", [])]
