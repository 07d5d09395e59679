"""Read and check the card data file: what each card, wonder and stage says, every mistake a
DataError that names the entry, the field and the problem.

`compile_doc` turns the parsed document into a `Compiled`: per entity (the cards in file order,
then every board's stages: the id space of wsim/tables.py's docstring) the ENTITY fields the
file sets, as a row of values by field name; the cards' names, ages, player counts, chains and
copies per deck size; the boards' ids, names, resources, coins and stages. What follows from
those is wsim/tables.py's: the packed arrays, the derived fields (has_cost, chains_to,
points_cap, the trading solver's packed copies) and the kernels' limits, all read through the
views of `Tables`. So the data file's format is known here and the kernels' layout there; this
module never imports wsim.tables, which imports it.

Two classes share the reading: `_EntryFields` reads one card's or stage's fields into its row
(the simple parsers wsim/effects.KINDS names, and the custom ones), `_Compiler` walks the file
(cards, aliases, chains, decks, wonders) and checks what holds across entries.

DataError, normalize_name and has_control_character live here, where the file is checked: its
checks raise the one and apply the others (a name matched whatever its spelling, a name kept to
one line). wsim/tables.py takes them from here (a file it cannot read, a limit of the kernels, a
card looked up by name), and so do the data file's edits (wsim/analysis/edits.py) and scenario
files (wsim/scenario.py).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

import numpy as np

from wsim import codes, effects
from wsim.errors import WsimError, brief
from wsim.kernels.schema import MAX_CHAIN, MAX_NAMES, MAX_STAGES, N_COPIES


class DataError(WsimError):
    """A card data file that cannot be used; the message names the entry, the field and the problem."""


def normalize_name(name: str) -> str:
    """Matching key for names typed by users: case, spaces and punctuation ignored."""
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


def has_control_character(text: str) -> bool:
    """Whether text holds a control character or a line break (U+0085, U+2028 and U+2029 are
    line breaks to YAML too): a card's name, printed in reports and logs, is one line of text."""
    return any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in text)


_CARD_KEYS = {"name", "aliases", "age", "color", "players", "cost", "chain_from"}
_EFFECT_KEYS = set(effects.KEYS)
_WONDER_KEYS = {"id", "name", "promo", "resource", "extra_coins", "sides"}
_STAGE_KEYS = {"cost"} | _EFFECT_KEYS


@dataclass
class CardList:
    """The cards read so far, in file order (card id = position), and their names."""

    rows: list = field(default_factory=list)  # entity rows (cards, then stages)
    card_names: list = field(default_factory=list)
    players: list = field(default_factory=list)
    ages: list = field(default_factory=list)
    colors: list = field(default_factory=list)
    chain_names: list = field(default_factory=list)
    aliases: list = field(default_factory=list)
    lookup: dict = field(default_factory=dict)  # normalised name or alias -> card id (a building's first entry)
    names: list = field(default_factory=list)  # building names, by name id
    name_ids: list = field(default_factory=list)
    building_card: list = field(default_factory=list)  # name id -> card id of the building's first entry
    seen_in_age: set = field(default_factory=set)


class BoardList:
    """The wonders read so far."""

    def __init__(self, n_boards: int):
        self.ids, self.names, self.resource, self.coins, self.promo = [], [], [], [], []
        self.stages = np.zeros((n_boards, 2), dtype=np.int8)
        self.stage_ent = np.full((n_boards, 2, MAX_STAGES), -1, dtype=np.int16)


@dataclass(frozen=True)
class Compiled:
    """A checked data file, in the ids the kernels use: its cards (their entity rows first, the
    stages' after them) and boards, with per card the name ids that make it free (`chain`) and
    its copies in a deck of each size (`copies`, int8[C, N_COPIES])."""

    cards: CardList
    boards: BoardList
    chain: list
    copies: np.ndarray
    edition: int = 1  # the file's top-level `edition` (codes.EDITIONS)


def compile_doc(doc, source: str) -> Compiled:
    """Check a parsed data file (wsim.yamlfile.parse) and read it into a Compiled; a message
    starts with `source`, the file's name as the user gave it."""
    return _Compiler(doc, source).run()


class _EntryFields:
    """One card's or stage's fields read into its entity row, each wrong value a DataError."""

    def __init__(self, source: str):
        self.source = source

    def fail(self, where: str, fld: str, problem: str):
        raise DataError(f"{self.source}: {where}: field {brief(fld)}: {problem}")

    # -- small field parsers ------------------------------------------------------------------
    def _int(self, where, fld, value, lo, hi):
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            self.fail(where, fld, f"expected a whole number from {lo} to {hi}, got {brief(value)}")
        return value

    def _resource(self, where, fld, name):
        if name not in codes.RESOURCES:
            self.fail(where, fld, f"unknown resource {brief(name)} (one of: {' '.join(codes.RESOURCES)})")
        return codes.RESOURCES.index(name)

    def _cost(self, where, cost, allow_coins):
        if cost is None:
            cost = {}
        if not isinstance(cost, dict):
            self.fail(where, "cost", "expected a mapping such as {coins: 1, wood: 2}")
        coins = 0
        vec = [0] * codes.N_RES
        for k, v in cost.items():
            if k == "coins" and allow_coins:
                coins = self._int(where, "cost", v, 0, 20)
            else:
                vec[self._resource(where, "cost", k)] = self._int(where, "cost", v, 1, 9)
        return coins, vec

    def _parse_scope_count(self, where, kind, entry, row):
        """{amount: N, count: [colours] or [a count target of the kind], in: [scopes]}."""
        if kind.key not in entry:
            return None
        fld, spec = kind.key, entry[kind.key]
        if not isinstance(spec, dict) or set(spec) != {"amount", "count", "in"}:
            self.fail(where, fld, "expected {amount: N, count: [...], in: [...]}")
        amount = self._int(where, fld, spec["amount"], 1, 9)
        what = spec["count"]
        if not isinstance(what, list) or not what:
            self.fail(where, fld, "count must be a non-empty list")
        targets = [key for key in kind.counts if what == [key]]
        if targets:
            count = effects.COUNT_CODES[targets[0]]
        else:
            count = 0
            for c in what:
                if c not in codes.COLORS:
                    others = "".join(f", or [{key}]" for key in kind.counts)
                    self.fail(where, fld, f"unknown colour {brief(c)} (one of: {' '.join(codes.COLORS)}{others})")
                count |= 1 << codes.COLORS.index(c)
        scope = 0
        if not isinstance(spec["in"], list) or not spec["in"]:
            self.fail(where, fld, "'in' must be a non-empty list of self/left/right")
        for s in spec["in"]:
            if not isinstance(s, str) or s not in codes.SCOPES:  # a list here is unhashable
                self.fail(where, fld, f"unknown scope {brief(s)} (one of: self left right)")
            scope |= codes.SCOPES[s]
        return ([amount, count, scope],)

    def _effects(self, where, entry, row):
        """Fill the effect columns of one entity from a card or stage entry, kind by kind in the
        order of wsim/effects.KINDS (so the first problem reported is the same whatever the file)."""
        for kind in effects.KINDS:
            values = getattr(self, "_parse_" + kind.parser.name)(where, kind, entry, row)
            if values is not None:
                for fld, value in zip(kind.fields, values):
                    row[fld.name] = value

    def _parse_int(self, where, kind, entry, row):
        if kind.key in entry:
            return (self._int(where, kind.key, entry[kind.key], kind.parser.lo, kind.parser.hi),)
        return None

    def _parse_one_of(self, where, kind, entry, row):
        if kind.key not in entry:
            return None
        names = kind.parser.names
        if entry[kind.key] not in names[kind.parser.first:]:
            self.fail(where, kind.key, f"unknown {kind.parser.noun} {brief(entry[kind.key])} "
                      f"(one of: {' '.join(names[kind.parser.first:])})")
        return (names.index(entry[kind.key]),)

    def _parse_flag(self, where, kind, entry, row):
        qualified = entry.get(kind.parser.of) is not None  # `produces: null` is no production
        if kind.key not in entry:
            if qualified:
                self.fail(where, kind.key, f"required with '{kind.parser.of}' (true or false)")
            return None
        if not isinstance(entry[kind.key], bool):
            self.fail(where, kind.key, "expected true or false")
        if not qualified:
            self.fail(where, kind.key, f"only meaningful with '{kind.parser.of}'")
        return (int(entry[kind.key]),)

    def _parse_produces(self, where, kind, entry, row):
        """[unit, ...]: a resource name per fixed unit, at most one "a/b/..." choice unit."""
        prod = entry.get(kind.key)
        if prod is None:
            return None
        if not isinstance(prod, list) or not prod:
            self.fail(where, "produces", "expected a list such as [wood] or [wood/clay]")
        fixed, mask = [0] * codes.N_RES, 0
        for unit in prod:
            if not isinstance(unit, str):
                self.fail(where, "produces", f"expected resource names such as wood or wood/clay, "
                          f"got {brief(unit)}")
            parts = unit.split("/")
            if len(parts) == 1:
                fixed[self._resource(where, "produces", parts[0])] += 1
                continue
            if mask:
                self.fail(where, "produces", "at most one choice unit (a/b) per entry")
            for part in parts:
                if part == "":
                    self.fail(where, "produces", f"malformed choice {brief(unit)}")
                bit = 1 << self._resource(where, "produces", part)
                if mask & bit:
                    self.fail(where, "produces", f"malformed choice {brief(unit)}: {part} twice")
                mask |= bit
        return fixed, mask

    def _parse_discount(self, where, kind, entry, row):
        """{goods: raw|manufactured, from: [left, right]}, as codes.DISC_* bits."""
        if kind.key not in entry:
            return None
        d = entry[kind.key]
        if not isinstance(d, dict) or set(d) != {"goods", "from"} or not isinstance(d["from"], list):
            self.fail(where, "discount", "expected {goods: raw|manufactured, from: [left, right]}")
        if d["goods"] not in ("raw", "manufactured"):
            self.fail(where, "discount", f"goods must be raw or manufactured, got {brief(d['goods'])}")
        bits = 0
        for side in d["from"]:
            if side not in ("left", "right"):
                self.fail(where, "discount", f"'from' takes left and right, got {brief(side)}")
            raw = d["goods"] == "raw"
            if side == "left":
                bits |= codes.DISC_RAW_LEFT if raw else codes.DISC_MANUF_LEFT
            else:
                bits |= codes.DISC_RAW_RIGHT if raw else codes.DISC_MANUF_RIGHT
        return (bits,)

    def _parse_copies(self, where, kind, entry, row):
        """{stage: K, of: left|right|left_or_right}: required by, and only with, copy_neighbor_stage."""
        if row["power"] == codes.POW_COPY_STAGE:
            c = entry.get(kind.key)
            if not isinstance(c, dict) or set(c) != {"stage", "of"} or c["of"] not in codes.COPY_OF:
                self.fail(where, "copies", "expected {stage: 1..4, of: left|right|left_or_right}")
            return self._int(where, "copies", c["stage"], 1, MAX_STAGES) - 1, codes.COPY_OF.index(c["of"])
        if kind.key in entry:
            self.fail(where, "copies", "only meaningful with power copy_neighbor_stage")
        return None

    @staticmethod
    def _blank_row(kind):
        """An entity's fields as the data file sets them (schema ENTITY names); the rest is derived."""
        return {"kind": kind, "coin_cost": 0, "cost": [0] * codes.N_RES, **effects.blank_fields()}


class _Compiler(_EntryFields):
    """The whole file, entry by entry, and what holds across entries: names, aliases, chains,
    deck sizes, wonder ids."""

    def __init__(self, doc, source: str):
        super().__init__(source)
        self.doc = doc

    def run(self) -> Compiled:
        """Check the whole document and read it: cards, aliases, chains, decks, wonders."""
        doc = self.doc
        if not isinstance(doc, dict) or not isinstance(doc.get("cards"), list) \
                or not isinstance(doc.get("wonders"), list):
            raise DataError(f"{self.source}: expected top-level lists 'cards' and 'wonders'")
        extra = [k for k in doc if k not in ("edition", "cards", "wonders")]
        if extra:
            raise DataError(f"{self.source}: unknown top-level key {brief(extra[0])}")
        edition = doc.get("edition", 1)
        if isinstance(edition, bool) or edition not in codes.EDITIONS:
            raise DataError(f"{self.source}: field 'edition': expected one of {', '.join(map(str, codes.EDITIONS))}, "
                            f"got {brief(edition)}")
        cards = CardList()
        for i, entry in enumerate(doc["cards"]):
            self._card(cards, i, entry)
        self._aliases(cards)
        chain = self._chains(cards)
        copies = self._decks(cards)
        boards = BoardList(len(doc["wonders"]))
        for b, w in enumerate(doc["wonders"]):
            self._wonder(boards, cards.rows, b, w)
        if not boards.ids:
            raise DataError(f"{self.source}: no wonders")
        if edition > 1 and any(boards.promo):
            raise DataError(f"{self.source}: the {codes.EDITION_NAMES[edition]} has no promo board "
                            f"(wonder {brief(boards.ids[boards.promo.index(1)])})")
        return Compiled(cards=cards, boards=boards, chain=chain, copies=copies, edition=edition)

    def _card(self, cards: "CardList", i: int, entry):
        """Check one card entry and add it (its aliases wait until every name is known)."""
        if not isinstance(entry, dict) or not entry.get("name"):
            raise DataError(f"{self.source}: card #{i + 1}: field 'name': missing")
        if not isinstance(entry["name"], str) or not entry["name"].strip():
            raise DataError(f"{self.source}: card #{i + 1}: field 'name': expected the card's printed name as "
                            f"text, got {brief(entry['name'])}")
        name = entry["name"].strip()
        where = f"card {brief(name)}"
        if has_control_character(name):
            self.fail(where, "name", "holds a control character or a line break; a name is one line of printable text")
        for k in entry:
            if k not in _CARD_KEYS | _EFFECT_KEYS:
                self.fail(where, k, "unknown field")
        age = self._int(where, "age", entry.get("age"), 1, 3)
        if entry.get("color") not in codes.COLORS:
            self.fail(where, "color", f"unknown colour {brief(entry.get('color'))} "
                      f"(one of: {' '.join(codes.COLORS)})")
        color = codes.COLORS.index(entry["color"])
        if color == codes.PURPLE and age != 3:
            self.fail(where, "age", "guilds (purple) belong to Age III")
        players = entry.get("players")
        if not isinstance(players, list):
            self.fail(where, "players", "expected a list of player counts, e.g. [3, 5]")
        for n in players:
            if isinstance(n, bool) or not isinstance(n, int) or not codes.MIN_PLAYERS <= n <= codes.MAX_PLAYERS:
                self.fail(where, "players", f"player count {brief(n)} is outside 3..7")
        if color == codes.PURPLE and players:
            self.fail(where, "players", "guilds take [] (N+2 of them are drawn each game)")
        if color != codes.PURPLE and not players:
            self.fail(where, "players", "a non-guild card needs at least one copy")
        if (age, normalize_name(name)) in cards.seen_in_age:
            self.fail(where, "name", f"the name appears twice in Age {age}")
        cards.seen_in_age.add((age, normalize_name(name)))
        row = self._blank_row(color)
        row["coin_cost"], row["cost"] = self._cost(where, entry.get("cost"), allow_coins=True)
        self._effects(where, entry, row)
        if color not in codes.POINT_COLORS and (row["points"] or row["points_per"][0]):
            # final scoring has no category for them (docs/rules.md §7): refused, never silently 0
            self.fail(where, "points" if row["points"] else "points_per",
                      f"a {codes.COLORS[color]} card's points are never scored (only blue, yellow and purple cards "
                      "score points: docs/rules.md §7)")
        chains = entry.get("chain_from", [])
        if not isinstance(chains, list) or not all(isinstance(c, str) for c in chains):
            self.fail(where, "chain_from", "expected a list of card names")
        if len(chains) > MAX_CHAIN:
            self.fail(where, "chain_from", f"at most {MAX_CHAIN} names")
        aliases = entry.get("aliases")
        if aliases is None:
            aliases = []
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            self.fail(where, "aliases", "expected a list of other spellings, e.g. [Caravansary]")
        key = normalize_name(name)
        if key in cards.lookup:  # the same building in another age (Loom, Glassworks, Press)
            nid = cards.name_ids[cards.lookup[key]]
        else:
            nid = len(cards.names)
            cards.names.append(name)
            cards.building_card.append(len(cards.card_names))
            cards.lookup[key] = len(cards.card_names)
        cards.name_ids.append(nid)
        cards.aliases.append(aliases)
        cards.rows.append(row)
        cards.card_names.append(name)
        cards.players.append(tuple(sorted(players)))
        cards.ages.append(age)
        cards.colors.append(color)
        cards.chain_names.append(chains)

    def _aliases(self, cards: "CardList"):
        """Aliases once every name is known, so that an alias cannot take a later card's name."""
        alias_keys: set = set()
        for c, aliases in enumerate(cards.aliases):
            where = f"card {brief(cards.card_names[c])}"
            nid = cards.name_ids[c]
            for alias in aliases:
                key = normalize_name(alias)
                if not key:
                    self.fail(where, "aliases", f"alias {brief(alias)} has no letter or digit")
                if key not in cards.lookup:
                    cards.lookup[key] = cards.building_card[nid]
                    alias_keys.add(key)
                elif cards.name_ids[cards.lookup[key]] != nid:  # the building's own name or alias again is harmless
                    taken = "an alias of" if key in alias_keys else "the name of another building,"
                    self.fail(where, "aliases", f"alias {brief(alias)} is already {taken} "
                              f"{brief(cards.names[cards.name_ids[cards.lookup[key]]])}")

    def _chains(self, cards: "CardList") -> list:
        """Per card, the name ids whose ownership makes it free (at most MAX_CHAIN)."""
        n_cards = len(cards.card_names)
        if len(cards.names) > MAX_NAMES:
            raise DataError(f"{self.source}: at most {MAX_NAMES} distinct building names, got {len(cards.names)}")
        chain = []
        for c, chains in enumerate(cards.chain_names):
            where = f"card {brief(cards.card_names[c])}"
            ids = []
            for target in chains:
                key = normalize_name(target)
                if key not in cards.lookup:
                    self.fail(where, "chain_from", f"unknown chain target {brief(target)}")
                nid = cards.name_ids[cards.lookup[key]]
                src_ages = [cards.ages[j] for j in range(n_cards) if cards.name_ids[j] == nid]
                if max(src_ages) >= cards.ages[c]:
                    self.fail(where, "chain_from", f"chain from {brief(target)} (Age {max(src_ages)}) "
                                                   "must come from an earlier age")
                if nid not in ids:
                    ids.append(nid)
            chain.append(ids)
        return chain

    def _decks(self, cards: "CardList") -> np.ndarray:
        """card_copies[c, N]: copies in an N-player deck; every age's deck must be 7N cards."""
        n_cards = len(cards.card_names)
        copies = np.zeros((n_cards, N_COPIES), dtype=np.int8)
        for c, players in enumerate(cards.players):
            for n in range(codes.MIN_PLAYERS, codes.MAX_PLAYERS + 1):
                copies[c, n] = sum(1 for p in players if p <= n)
        n_guilds = sum(1 for col in cards.colors if col == codes.PURPLE)
        for n in range(codes.MIN_PLAYERS, codes.MAX_PLAYERS + 1):
            for age in range(1, codes.N_AGES + 1):
                size = sum(int(copies[c, n]) for c in range(n_cards) if cards.ages[c] == age)
                if age == 3:
                    if n_guilds < n + 2:
                        raise DataError(f"{self.source}: Age III needs {n + 2} guilds for {n} players, "
                                        f"the data has {n_guilds}")
                    size += n + 2
                if size != codes.HAND_SIZE * n:
                    raise DataError(f"{self.source}: the Age {age} deck for {n} players has {size} cards, "
                                    f"expected {codes.HAND_SIZE} x {n} = {codes.HAND_SIZE * n}"
                                    + (" (counting N+2 guilds)" if age == 3 else ""))
        return copies

    def _wonder(self, boards: "BoardList", rows: list, b: int, w):
        """Check one wonder entry; its stages join the entity rows after the cards."""
        if not isinstance(w, dict) or w.get("id") is None:
            raise DataError(f"{self.source}: wonder #{b + 1}: field 'id': missing")
        if not isinstance(w["id"], str):
            raise DataError(f"{self.source}: wonder #{b + 1}: field 'id': expected an id such as rhodes, "
                            f"got {brief(w['id'])}")
        where = f"wonder {brief(w['id'])}"
        for k in w:
            if k not in _WONDER_KEYS:
                self.fail(where, k, "unknown field")
        if w["id"] in boards.ids:
            self.fail(where, "id", "the id appears twice")
        boards.ids.append(w["id"])
        wname = w.get("name", w["id"])
        if not isinstance(wname, str):
            self.fail(where, "name", f"expected the wonder's name as text, got {brief(wname)}")
        boards.names.append(wname)
        res = w.get("resource")
        boards.resource.append(-1 if res is None else self._resource(where, "resource", res))
        boards.coins.append(codes.START_COINS + self._int(where, "extra_coins", w.get("extra_coins", 0), 0, 20))
        promo = w.get("promo", False)
        if not isinstance(promo, bool):
            self.fail(where, "promo", "expected true or false")
        boards.promo.append(int(promo))
        sides = w.get("sides")
        if not isinstance(sides, dict) or set(sides) != {"A", "B"}:
            self.fail(where, "sides", "expected exactly the two sides A and B")
        for s, side in enumerate("AB"):
            stages = sides[side]
            if not isinstance(stages, list) or not stages:
                self.fail(f"{where} side {side}", "stages", "a wonder side needs at least one stage")
            if len(stages) > MAX_STAGES:
                self.fail(f"{where} side {side}", "stages", f"at most {MAX_STAGES} stages")
            boards.stages[b, s] = len(stages)
            for k, st in enumerate(stages):
                swhere = f"{where} side {side} stage {k + 1}"
                if not isinstance(st, dict):
                    self.fail(swhere, "cost", "expected a mapping with cost and effects")
                for key in st:
                    if key not in _STAGE_KEYS:
                        self.fail(swhere, key, "unknown stage effect")
                row = self._blank_row(codes.STAGE_KIND)
                _, row["cost"] = self._cost(swhere, st.get("cost"), allow_coins=False)
                self._effects(swhere, st, row)
                if row["tradeable"]:
                    self.fail(swhere, "tradeable", "wonder-stage production is never tradeable")
                boards.stage_ent[b, s, k] = len(rows)
                rows.append(row)

