"""The levers of `wsim rebalance`: the numbers of the card data the search may change (--levers,
--fields, --cost-kinds), each one's bounds and the room it has to be measured in, and a set of
changes as --edit texts and as the data they make."""

from __future__ import annotations

from dataclasses import dataclass

from wsim import codes
from wsim.analysis.edits import apply_edits
from wsim.analysis.rebalance.plan import RebalanceError
from wsim.errors import brief, one_of, option
from wsim.errors import text as text_value
from wsim.kernels.schema import MAX_COST_UNITS
from wsim.tables import Tables

LEVER_STEP = 2  # a lever is measured this many units up (a larger signal), its effect taken per unit
# the bounds of a stage's or a card's numbers in a data file (the field checks of wsim/compiler.py):
# a lever is measured downwards where LEVER_STEP up would leave them, and no edit leaves them
FIELD_BOUNDS = {"points": (0, 20), "coins": (0, 20)}
COIN_COST_BOUNDS = (0, 20)  # a card's coin cost
RESOURCE_COUNT_MAX = 9  # one resource's count in a cost
LEVER_KINDS = ("stages", "cards", "both")
FIELD_CHOICES = ("points", "coins", "costs")  # --fields takes a comma list of them; `both` is points,coins
COST_KINDS = ("kept", "any")  # --cost-kinds: only the kinds a cost already holds change, or any kind may join


@dataclass(frozen=True)
class Lever:
    """One number the search may change: a field of a wonder stage or of a card (every copy), or
    one count of its cost (a resource's, or a card's coins)."""

    subject: str  # as an --edit names it: giza/A.stage3, or a card's printed name
    field: str  # points, coins, or cost:RESOURCE / cost:coins (the count of that kind in the cost)
    value: int  # in the input file
    entity: int  # the stage's entity, or the card's first copy
    low: int = FIELD_BOUNDS["points"][0]  # the value's bounds (a data file's; a cost's, below)
    high: int = FIELD_BOUNDS["points"][1]

    @property
    def cost_kind(self) -> str | None:
        """The resource (or "coins") of a cost lever; None for points and coins."""
        return self.field.partition(":")[2] or None

    @property
    def units(self) -> bool:
        """A resource count: it counts against the trading solver's MAX_COST_UNITS of its cost."""
        return self.cost_kind not in (None, "coins")

    def edit(self, change: int) -> str:
        """The --edit text of a change relative to the input file."""
        if self.cost_kind is None:
            return f"{self.subject}.{self.field}={change:+d}"
        count = f":{abs(change)}" if abs(change) != 1 else ""
        return f"{self.subject}.cost{'+' if change > 0 else '-'}={self.cost_kind}{count}"


def parse_fields(text: str) -> tuple:
    """--fields: a comma list of points, coins and costs (`both`: points,coins), in that order."""
    what = "points, coins or costs, comma-separated, e.g. points,costs (both: points,coins)"
    text = text_value(text, "fields", what, RebalanceError)
    chosen = set()
    for word in text.lower().replace(" ", "").split(","):
        names = ("points", "coins") if word == "both" else (word,)
        if not all(n in FIELD_CHOICES for n in names):
            raise RebalanceError(f"{option('fields')}: {what}, got {brief(text)}")
        chosen.update(names)
    return tuple(f for f in FIELD_CHOICES if f in chosen)


def _cost_levers(subject: str, e: int, t: Tables, card: bool, kinds: str) -> list:
    """The cost levers of entity e: every kind its cost holds (kinds "kept"), or every resource,
    and coins for a card, (kinds "any"); a resource count from 0 to RESOURCE_COUNT_MAX and the
    cost's resource units at most MAX_COST_UNITS (solve keeps their sum there too)."""
    counts = {r: int(t.ent_cost[e, i]) for i, r in enumerate(codes.RESOURCES)}
    units = sum(counts.values())
    out = []
    for r, n in counts.items():
        if n or kinds == "any":
            out.append(Lever(subject, f"cost:{r}", n, e, 0, min(RESOURCE_COUNT_MAX, MAX_COST_UNITS - units + n)))
    coins = int(t.ent_coin_cost[e])
    if card and (coins or kinds == "any"):
        out.append(Lever(subject, "cost:coins", coins, e, *COIN_COST_BOUNDS))
    return out


def parse_levers(text: str, fields, t: Tables, manneken_pis: bool, cost_kinds: str = "kept",
                 max_resources: int | None = None) -> list:
    """The levers of --levers stages|cards|both[:WONDER|CARD,...], --fields and --cost-kinds;
    --cost-kinds any and max_resources (whose value plan() checks) need costs in --fields."""
    fields = parse_fields(fields)
    cost_kinds = one_of(cost_kinds, "cost_kinds", COST_KINDS, RebalanceError)
    _refuse_cost_options_without_costs(fields, cost_kinds, max_resources)
    text = text_value(text, "levers", "stages, cards or both, optionally :WONDER,... or :CARD,...", RebalanceError)
    kind, colon, names = text.partition(":")
    kind = kind.strip()
    if kind not in LEVER_KINDS:
        raise RebalanceError(f"--levers: stages, cards or both, optionally :WONDER,... or :CARD,..., "
                             f"got {brief(text)}")
    wanted = [n.strip() for n in names.split(",")] if colon else []
    if colon and not all(wanted):
        raise RebalanceError(f"--levers: an empty name in {brief(text)}")
    field_list = [f for f in fields if f != "costs"]
    boards, cards = _chosen(wanted, kind, t, manneken_pis)
    levers = []
    for b in boards:
        for side in (0, 1):
            for k in range(int(t.board_stages[b, side])):
                e = t.stage_entity(b, side, k)
                if t.ent_power[e] == codes.POW_COPY_STAGE:  # a copy's numbers are the copied stage's
                    continue
                subject = f"{t.board_ids[b]}/{'AB'[side]}.stage{k + 1}"
                for f in field_list:
                    levers.append(Lever(subject, f, int(getattr(t, f"ent_{f}")[e]), int(e), *FIELD_BOUNDS[f]))
                if "costs" in fields:
                    levers += _cost_levers(subject, int(e), t, False, cost_kinds)
    for c in cards:
        for f in field_list:
            levers.append(Lever(t.card_names[c], f, int(getattr(t, f"ent_{f}")[c]), int(c), *FIELD_BOUNDS[f]))
        if "costs" in fields:
            levers += _cost_levers(t.card_names[c], int(c), t, True, cost_kinds)
    if not levers:
        raise RebalanceError(f"--levers: {brief(text)} leaves no number to change")
    return levers


def _refuse_cost_options_without_costs(fields: tuple, cost_kinds: str, max_resources: int | None):
    """Refuse --cost-kinds any and --max-resources when --fields has no costs: they shape the cost
    levers only, and a search without any would drop them without a word (a forgotten `costs`)."""
    if "costs" in fields:
        return
    given = ([f"{option('cost_kinds')} any"] if cost_kinds == "any" else []) + (
        [f"{option('max_resources')} {max_resources}"] if max_resources is not None else [])
    if given:
        raise RebalanceError(f"{given[0]}: shapes the cost levers, and {option('fields')} {','.join(fields)} makes "
                             f"none; add costs ({option('fields')} {','.join(fields + ('costs',))})")


def _chosen(wanted: list, kind: str, t: Tables, manneken_pis: bool) -> tuple:
    """(boards, first card id of each building) the lever kind and names select."""
    pool = [b for b in range(t.n_boards) if manneken_pis or not t.board_promo[b]]
    firsts = sorted({t.card_id(t.card_names[c]) for c in range(t.n_cards)})  # one per building
    boards = pool if kind in ("stages", "both") else []
    cards = firsts if kind in ("cards", "both") else []
    if not wanted:
        return boards, cards
    chosen_boards, chosen_cards = [], []
    for name in wanted:
        wonder = name.lower().replace(" ", "_")
        if wonder in t.board_ids and kind != "cards":
            b = t.board_ids.index(wonder)
            if b not in pool:
                raise RebalanceError(f"--levers: {wonder} is not in play (add --manneken-pis)")
            chosen_boards.append(b)
            continue
        try:
            card = t.card_id(name)
        except KeyError:
            card = None
        if card is None or kind == "stages":
            what = {"stages": "a wonder", "cards": "a card"}.get(kind, "a wonder or a card")
            raise RebalanceError(f"--levers: {brief(name)} is not {what} (wonders: {' '.join(t.board_ids)})")
        chosen_cards.append(t.card_id(t.card_names[card]))
    return chosen_boards, chosen_cards


def edits_of(levers: list, changes: dict) -> list:
    """The --edit texts of the changes (levers in order, zero changes left out)."""
    return [lv.edit(changes[i]) for i, lv in enumerate(levers) if changes.get(i, 0)]


def data_for(base: Tables, levers: list, changes: dict) -> Tables:
    """The input data with the changes applied."""
    edits = edits_of(levers, changes)
    return apply_edits(base, edits) if edits else base


def lever_move(levers: list, changes: dict, j: int) -> int:
    """The change lever j is measured with, from the current `changes`: LEVER_STEP up, or down
    where up would leave its bounds (a stage worth 19 points cannot be measured at 21, nor a cost
    beyond the trading solver's units with the other counts of that cost as they are now), else
    one unit up or down (a cost of one stone with no room above); 0 when nothing fits."""
    lever = levers[j]
    now = lever.value + changes.get(j, 0)
    high = lever.high
    if lever.units:
        others = sum(lv.value + changes.get(i, 0) for i, lv in enumerate(levers)
                     if i != j and lv.units and lv.entity == lever.entity)
        high = min(high, MAX_COST_UNITS - others)
    for move in (LEVER_STEP, -LEVER_STEP, 1, -1):
        if lever.low <= now + move <= high:
            return move
    return 0
