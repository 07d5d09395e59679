"""What the designer changed from the first edition to the second (docs/rules.md §13), as data
for `wsim editions` (wsim.analysis.editions): each change that can be replayed ALONE on the
first edition as a paired experiment (the first edition's data with `--edit`s, the same deals),
with the card or board side it is read on, and each change that cannot, with the reason.

The card changes are written here by hand; the board sides' are found by diffing the two data
files (board_changes): a side whose stage costs changed while its resource, its stage count
and what every stage does stayed the same is one change, its edits `WONDER/SIDE.stageK.cost=`;
any other changed side is not replayable alone (an edit changes a stage's numbers, never a
board's resource or its count of stages). Copies that move between player counts, and the new
cards dealt in their places, change the deal, which no edit does.
"""

from __future__ import annotations

from dataclasses import dataclass

from wsim import codes
from wsim.analysis.balance.answers import side_name
from wsim.tables import Tables
from wsim.yamlfile import parse

CARD, SIDE = "card", "side"  # what a change is read on: a card's effect, or a board side's win rate


@dataclass(frozen=True)
class Subject:
    """Where a change is read: a card (`name`; `becomes`: the card the edits put in its place,
    paired with it) or a board side (`name` "wonder/side")."""

    kind: str
    name: str
    becomes: str = ""

    @property
    def label(self) -> str:
        return f"{self.name} -> {self.becomes}" if self.becomes else self.name


@dataclass(frozen=True)
class Change:
    """One designer change replayable alone: an id (letters, digits, '-'), a label, the
    `--edit`s that play it on the first edition, and its subjects."""

    id: str
    label: str
    edits: tuple
    subjects: tuple


@dataclass(frozen=True)
class Unplayable:
    """A change that cannot be replayed alone on the first edition, and why."""

    id: str
    label: str
    reason: str


def _cards(*names) -> tuple:
    return tuple(Subject(CARD, n) for n in names)


DECORATORS = ("Strategists Guild=replace:{name: Decorators Guild, cost: {ore: 2, stone: 1, loom: 1}, "
              "points_per: {amount: 7, count: [wonder_complete], in: [self]}}")

CARD_CHANGES = (
    Change("altar-points", "Altar 2 -> 3 points", ("Altar.points=3",), _cards("Altar")),
    Change("theater-points", "Theater 2 -> 3 points", ("Theater.points=3",), _cards("Theater")),
    Change("temple-points", "Temple 3 -> 4 points", ("Temple.points=4",), _cards("Temple")),
    Change("chains", "the chains: Altar -> Pantheon, Theater -> Gardens, Pawnshop (Well) -> Statue replace "
           "Altar -> Temple, Temple -> Pantheon, Theater -> Statue, Statue -> Gardens",
           ("Altar.chain_to=none", "Altar.chain_to=Pantheon", "Theater.chain_to=none", "Theater.chain_to=Gardens",
            "Temple.chain_to=none", "Statue.chain_to=none", "Pawnshop.chain_to=Statue"),
           _cards("Altar", "Theater", "Pawnshop", "Temple", "Statue", "Pantheon", "Gardens")),
    # the Well is the Pawnshop (free, 3 points, 4+ and 7+) renamed, now chaining to Statue: the
    # rename changes no game, so the chain alone plays it (`Pawnshop=replace:{name: Well, points:
    # 3}` would too, but a learned model knows the cards by name and refuses a card it never saw)
    Change("well-chain", "the Pawnshop becomes the Well, chaining to Statue", ("Pawnshop.chain_to=Statue",),
           _cards("Pawnshop", "Statue")),
    Change("fortifications-cost", "Fortifications: 3 ore + stone -> 3 ore + clay",
           ("Fortifications.cost=ore:3,clay",), _cards("Fortifications")),
    Change("builders-guild-cost", "Builders Guild: 2 stone + 2 clay + glass -> 3 stone + 2 clay + glass",
           ("Builders Guild.cost=stone:3,clay:2,glass",), _cards("Builders Guild")),
    Change("spies-guild-cost", "Spies Guild: 3 clay + glass -> 2 clay + glass", ("Spies Guild.cost=clay:2,glass",),
           _cards("Spies Guild")),
    Change("decorators-guild", "the Decorators Guild takes the Strategists Guild's place", (DECORATORS,),
           (Subject(CARD, "Strategists Guild", "Decorators Guild"),)),
)

COPIES_REASON = ("a copy moves to another player count, and the deal (which cards, how many copies) is what an "
                 "edit never changes: the two runs would not play the same deals")
NEW_CARD_REASON = ("a new card dealt in the places copies of Town Hall, Arena, Circus and Arsenal leave: it comes "
                   "only with those copies' moves, which change the deal")
COUNTERPARTS = {"Well": "Pawnshop", "Decorators Guild": "Strategists Guild"}  # a second-edition card -> the first's


def _cost_text(cost: dict) -> str:
    """A stage cost as --edit writes it: RESOURCE[:N],... in the codes' order; `free` for none."""
    items = [f"{r}:{cost[r]}" if cost[r] > 1 else r for r in codes.RESOURCES if cost.get(r)]
    return ",".join(items) or "free"


def _cost_words(cost: dict) -> str:
    return " + ".join(f"{cost[r]} {r}" if cost[r] > 1 else r for r in codes.RESOURCES if cost.get(r)) or "free"


def board_changes(first: Tables, second: Tables) -> tuple:
    """(changes, unplayable): the board sides of the two data files compared stage by stage."""
    one, two = ({w["id"]: w for w in parse(t.raw)["wonders"]} for t in (first, second))
    changes, unplayable = [], []
    for wid, b in two.items():
        a = one.get(wid)
        if a is None:
            continue
        for side in ("A", "B"):
            old, new = a["sides"][side], b["sides"][side]
            name = side_name(wid, side)
            why = []
            if a.get("resource") != b.get("resource"):
                why.append(f"its board's resource changes ({a.get('resource')} -> {b.get('resource')})")
            if len(old) != len(new):
                why.append(f"its stages change in number ({len(old)} -> {len(new)})")
            elif any({k: v for k, v in s.items() if k != "cost"} != {k: v for k, v in t.items() if k != "cost"}
                     for s, t in zip(old, new)):
                why.append("what its stages do changes (points, coins or powers)")
            if why:
                unplayable.append(Unplayable(f"{wid}-{side}", f"{name}: the side", "; ".join(why) + ": an edit "
                                             "changes a stage's numbers and costs, never a board's resource or its "
                                             "count of stages, nor a power"))
                continue
            costs = [(k + 1, s.get("cost") or {}, t.get("cost") or {}) for k, (s, t) in enumerate(zip(old, new))]
            moved = [(k, s, t) for k, s, t in costs if s != t]
            if not moved:
                continue
            label = f"{name} stage costs: " + "; ".join(f"{k}: {_cost_words(s)} -> {_cost_words(t)}"
                                                        for k, s, t in moved)
            edits = tuple(f"{wid}/{side}.stage{k}.cost={_cost_text(t)}" for k, _, t in moved)
            changes.append(Change(f"{wid}-{side}-costs", label, edits, (Subject(SIDE, f"{wid}/{side}"),)))
    return tuple(changes), tuple(unplayable)


def card_moves(first: Tables, second: Tables) -> tuple:
    """The changes of the deck that are not replayable alone: every card whose copies move, and
    every card of the second edition that is new in it and no counterpart (COUNTERPARTS)."""
    one, two = ({c["name"]: c for c in parse(t.raw)["cards"]} for t in (first, second))
    out = []
    for name, c in two.items():
        a = one.get(name)
        if a is not None and a["players"] != c["players"] and c["color"] != "purple":
            out.append(Unplayable(f"{_slug(name)}-copies", f"{name}: copies {_copies(a)} -> {_copies(c)}",
                                  COPIES_REASON))
    for name, c in two.items():
        if name not in one and name not in COUNTERPARTS:
            out.append(Unplayable(f"{_slug(name)}-new", f"{name}: a new card (Age {c['age']}, {c['color']}, "
                                  f"{_copies(c)})", NEW_CARD_REASON))
    return tuple(out)


def _copies(card: dict) -> str:
    return "/".join(f"{n}+" for n in card["players"])


def _slug(name: str) -> str:
    return "-".join(name.lower().split())


def all_changes(first: Tables, second: Tables) -> tuple:
    """(replayable changes, not replayable alone): the cards' then the boards'."""
    boards, unplayable_boards = board_changes(first, second)
    return CARD_CHANGES + boards, unplayable_boards + card_moves(first, second)
