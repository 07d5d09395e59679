"""What `wsim score` and `wsim trade` report on a scenario's position: their JSON documents
(docs/interfaces.md §1), built from the reference engine. A 2-player position's Free City is scored and
priced like any city; it is marked "free_city": true and never among the winners."""

from __future__ import annotations

from wsim.reference.scoring import score_all
from wsim.reference.state import Cost


def city_label(pos, seat: int) -> str:
    """The seat's wonder and side, e.g. 'giza A'."""
    city = pos.cities[seat]
    return f"{pos.t.board_ids[city.board]} {'AB'[city.side]}"


def score_json(pos) -> dict:
    """The `wsim score --json` document: every seat's breakdown and the winners."""
    scores, _, winners = score_all(pos)
    players = [s.as_dict(seat) for seat, s in enumerate(scores)]
    if pos.free_city >= 0:
        players[pos.free_city]["free_city"] = True
    return {"players": players, "winners": [int(w) for w in winners]}


def trade_json(pos, seat: int, card: int | None) -> dict:
    """The `wsim trade --json` document for a card id, or for the next wonder stage (card None)."""
    t = pos.t
    city = pos.cities[seat]
    if card is None:
        target = f"{t.board_ids[city.board]} {'AB'[city.side]} stage {city.stages + 1}"
        cost = pos.stage_cost(seat)
        second_copy = False
    else:
        target = t.card_names[card]
        cost = pos.card_cost(seat, card)
        second_copy = pos.owns_name(seat, card)
        # the second edition's Olympia Day makes the first card of a colour free; a scenario has
        # no turn, so Olympia Night's turn-1 and turn-6 cards are not counted (turn None)
        if not cost.free and pos.power_makes_free(seat, card, None):
            cost = Cost(True, 0, [(0, 0)], cost.coins)
    if cost is None:  # every stage is built
        return {"seat": seat, "target": target, "free": False, "coin_cost": 0, "options": [],
                "affordable": False, "legal": False}
    options = [(int(a), int(b)) for a, b in cost.options]  # the solver's order: total, then left
    free, affordable = bool(cost.free), bool(cost.affordable)
    return {"seat": seat, "target": target, "free": free, "coin_cost": int(cost.coin_cost),
            "options": [{"left": a, "right": b} for a, b in options],
            "affordable": affordable, "legal": (free or affordable) and not second_copy}
