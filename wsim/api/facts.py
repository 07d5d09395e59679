"""The card data and scenario positions from Python: the documents `wsim cards --json`,
`wsim score --json` and `wsim trade --json` print (docs/interfaces.md §1, §3), as dicts.

    import wsim
    deck = wsim.cards(age=3, players=5)                      # {"cards": [...], "wonders": [...], ...}
    points = wsim.score("position.yaml")                     # per seat, every scoring column
    costs = wsim.trade("position.yaml", seat=0, card="Caravansery")

A scenario is a YAML file's path, or the mapping such a file holds (docs/interfaces.md §1), checked by
the same code as the command line's. `data` names a card data file (None: the built-in one).
Every mistake is a `wsim.WsimError` naming the argument as written here.
"""

from __future__ import annotations

from collections.abc import Mapping

from wsim import codes, tables
from wsim.errors import OPTION_STYLE, WsimError, brief, flag, is_whole, option, path_value, text, whole_number


def _position(scenario, t: tables.Tables):
    """The Position of a scenario given as a file path or as the mapping a scenario file holds."""
    from wsim import scenario as scenario_mod

    if isinstance(scenario, Mapping):
        return scenario_mod.parse(scenario, t)
    return scenario_mod.load(path_value(scenario, "scenario", "a scenario file (its path) or be its mapping"), t)


def cards(*, age: int | None = None, players: int | None = None, data=None) -> dict:
    """The compiled cards and wonders, as the simulator sees them (`wsim cards --json`): only age
    `age` (1..3) and the deck for `players` (3..7; guilds always listed) when given."""
    from wsim.describe import cards_json

    if age is not None:
        age = whole_number(age, "age", 1, 3)
    if players is not None:
        players = whole_number(players, "players", codes.MIN_PLAYERS, codes.MAX_PLAYERS)
    return cards_json(tables.load(data), age=age, players=players)


def score(scenario, *, data=None) -> dict:
    """The final scoring of a scenario's position (`wsim score --json`): no conflict resolved, no
    "when built" effect applied; end-of-game choices maximise each seat's own total."""
    from wsim.reference.positions import score_json

    return score_json(_position(scenario, tables.load(data)))


def check_question(card: str | None, stage: bool) -> None:
    """A trade question names a card or asks for the next stage: exactly one of the two."""
    if card is not None:
        text(card, "card", "a card's printed name")
    if (card is None) == (not flag(stage, "stage")):
        either = "--card NAME or --stage" if OPTION_STYLE.get() == "cli" else "card=NAME or stage=True"
        raise WsimError(f"give exactly one of {either}")


def trade_card(pos, seat, card: str | None) -> int | None:
    """The card id a trade question asks about (None: the next stage), once seat is known to be
    a seat of the position and card a known card name."""
    if not is_whole(seat, 0, pos.n - 1):  # the one whole-number test, with the scenario's own words
        raise WsimError(f"{option('seat')}: {brief(seat)} is not a seat of this scenario (0 to {pos.n - 1})")
    if card is None:
        return None
    try:
        return pos.t.card_id(card)
    except KeyError:
        raise WsimError(f"{option('card')}: unknown card {brief(card)} (see `wsim cards` for the names)") from None


def trade(scenario, seat: int, *, card: str | None = None, stage: bool = False, data=None) -> dict:
    """What it costs `seat` to build `card` (a printed name; case, spaces and punctuation ignored)
    or, with stage=True, its next wonder stage, in a scenario's position (`wsim trade --json`):
    every Pareto-minimal purchase, and whether the build is affordable and legal."""
    from wsim.reference.positions import trade_json

    check_question(card, stage)
    pos = _position(scenario, tables.load(data))
    card_id = trade_card(pos, seat, card)
    return trade_json(pos, int(seat), card_id)
