"""Load, validate and compile the card data file into frozen integer tables.

Layout
------
Cards and wonder stages share one id space, the *entities*: ids 0..C-1 are the cards in data-file
order, ids C..E-1 the stages of every board and side. Anything that carries effects is an
entity, so the engines compute production, points, coins and powers the same way for both.

Names (Python side only, never passed to kernels): card_names[C] (printed name of each card
entry; Age I and II Loom are two entries), names[K] (distinct building names: the
one-copy-per-name rule works on these), board_ids[B] ("rhodes", ..., "manneken_pis").

The numbers are two read-only int32 arrays in the kernels' own layout, declared field by field
in wsim.kernels.schema: `ent` (one row per entity) and `board` (one row per board). Each field is
also a read-only view named after it: `ent_<field>` (e.g. ent_cost[E, 7]), `card_<field>` for
the card-only fields (card_name_id, card_age, card_chain, card_copies: C rows) and
`board_<field>` (board_stage_ent viewed as [B, 2, MAX_STAGES]):

{schema}
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources as importlib_resources
from pathlib import Path

import numpy as np

from wsim import codes, effects
from wsim.errors import WsimError, brief, path_value
from wsim.kernels import schema
from wsim.kernels.schema import (BOARD, CARD_ONLY, DEAL_DECK, DEAL_POOL, ENTITY, MAX_CHAIN, MAX_CHOICE,
                                 MAX_CARDS, MAX_CHOICE_SLOTS, MAX_COST_UNITS, MAX_NAMES, MAX_SEATS, MAX_STAGES,
                                 N_COPIES)
from wsim.kernels.schema import describe as describe_layout, pack_halves
from wsim.yamlfile import YamlFileError, parse, read_bytes

__doc__ = __doc__.format(schema=describe_layout())

DEFAULT_DATA = "cards.yaml"


class DataError(WsimError):
    """A card data file that cannot be used; the message names the entry, the field and the problem."""


def normalize_name(name: str) -> str:
    """Matching key for names typed by users: case, spaces and punctuation ignored."""
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


def has_control_character(text: str) -> bool:
    """Whether text holds a control character or a line break (U+0085, U+2028 and U+2029 are
    line breaks to YAML too): a card's name, printed in reports and logs, is one line of text."""
    return any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in text)


@dataclass(frozen=True)
class Tables:
    """Compiled, read-only tables (see the module docstring for the layout)."""

    data_sha256: str
    source: str
    card_names: tuple
    names: tuple
    board_ids: tuple
    board_names: tuple
    card_players: tuple  # per card, the printed player counts (for display)
    ent: np.ndarray  # int32[E, ENTITY.count]
    board: np.ndarray  # int32[B, BOARD.count]
    lookup: dict = field(repr=False, compare=False)
    raw: bytes = field(default=b"", repr=False, compare=False)  # the file's text: datasets carry it

    @property
    def n_cards(self) -> int:
        return len(self.card_names)

    @property
    def n_ent(self) -> int:
        return self.ent.shape[0]

    @property
    def n_boards(self) -> int:
        return len(self.board_ids)

    def card_id(self, name: str) -> int:
        """Id of a card by printed name or alias (case, spaces, punctuation ignored).

        Loom, Glassworks and Press name the Age I entry; both ages' copies are one building.
        """
        key = normalize_name(name)
        if key not in self.lookup:
            raise KeyError(f"unknown card {brief(name)}")
        return self.lookup[key]

    def board_id(self, wonder: str) -> int:
        """Index of a board by its wonder id (e.g. "rhodes", "manneken_pis")."""
        key = wonder.strip().lower() if isinstance(wonder, str) else None
        if key not in self.board_ids:
            raise KeyError(f"unknown wonder {brief(wonder)} (one of: {' '.join(self.board_ids)})")
        return self.board_ids.index(key)

    def chain_sources(self, card: int) -> list:
        """Name ids whose ownership makes the card free (its chain_from), ascending."""
        return sorted(int(k) for k in self.card_chain[card] if k >= 0)

    def copies_chosen_neighbour(self, e: int) -> bool:
        """Whether stage entity e copies a neighbour's stage chosen when built (Manneken Pis A3)."""
        return self.ent_power[e] == codes.POW_COPY_STAGE and self.ent_copy_of[e] == codes.COPY_CHOICE

    def stage_entity(self, board: int, side: int, stage: int) -> int:
        """Entity id of stage `stage` (0-based) of a board side, -1 if the side has no such stage."""
        if stage >= self.board_stages[board, side]:
            return -1
        return int(self.board_stage_ent[board, side, stage])


def _set_view(attr: str, array_name: str, offset: int, width: int, rows_of_cards: bool, shape=None):
    """Tables.<attr>: a view of the packed array's field, made at first use and kept (the
    reference engine reads these millions of times a run)."""
    def get(self):
        a = getattr(self, array_name)
        if rows_of_cards:
            a = a[:self.n_cards]
        v = a[:, offset] if width == 1 else a[:, offset:offset + width]
        return v.reshape((v.shape[0],) + shape) if shape else v
    view = cached_property(get)
    view.__set_name__(Tables, attr)
    setattr(Tables, attr, view)
    _VIEWS.append(attr)


_VIEWS: list = []  # the names _set_view gave

# ent_<field>, card_<field> and board_<field>: views of the packed arrays (module docstring)
for _name, _width, _ in ENTITY.fields:
    _card = _name in CARD_ONLY
    _set_view(("card_" if _card else "ent_") + _name, "ent", ENTITY.offsets[_name], _width, _card)
for _name, _width, _ in BOARD.fields:
    _set_view("board_" + _name, "board", BOARD.offsets[_name], _width, False,
              (2, MAX_STAGES) if _name == "stage_ent" else None)


# ---------------------------------------------------------------------------------------------
# Loading

def data_path(path: str | os.PathLike | None = None) -> Path:
    """The data file to use: `path`, else $WSIM_DATA, else the packaged cards.yaml."""
    if path is None:
        path = os.environ.get("WSIM_DATA") or None
    if path is None:
        return _builtin_path()
    return path_value(path, "data", "a card data file")


def _builtin_path() -> Path:
    return Path(str(importlib_resources.files("wsim") / "data" / DEFAULT_DATA))


_CACHE: dict = {}


def load(path: str | os.PathLike | None = None) -> Tables:
    """Read, validate and compile a data file (memoised per path and content hash).

    The file must be a regular file of at most 16 MiB (docs/interfaces.md §0).
    """
    p = data_path(path)
    try:
        raw = read_bytes(p, what="data file")
    except YamlFileError as e:
        raise DataError(f"{p}: {e}") from None
    digest = hashlib.sha256(raw).hexdigest()
    key = (str(p), digest)
    if key not in _CACHE:
        # a message names the user's file by its path as given, the built-in one by its name
        _CACHE[key] = compile_text(raw, source=p.name if p == _builtin_path() else str(p), digest=digest)
    return _CACHE[key]


def points_caps(t: Tables) -> np.ndarray:
    """Per entity, an upper bound of the points it can give any city at once (points_now of its
    line, no guild copy, plus its science gain): the heuristic's denial never exceeds it, so a
    decision can skip the denials when no discard or stage could win (kernels/decide.py).

    A city holds one building per name, so a colour count is at most the number of names of
    those colours; any other count target at most its wsim.effects per_city, per city counted. One
    more science symbol adds at most 2 M - 1 to the squares and SCIENCE_SET_POINTS to the sets,
    M being the most symbols a city can count: every science source the data has (names and
    stages), two copies (Manneken Pis's of a stage, Olympia's of a guild) and the card valued."""
    n_cards = t.n_cards
    names = [len({int(t.card_name_id[c]) for c in range(n_cards) if t.ent_kind[c] == k}) for k in range(codes.N_COLORS)]
    science_names = len({int(t.card_name_id[c]) for c in range(n_cards) if t.ent_science[c] >= 0})
    science_stages = int((t.ent_science[n_cards:] >= 0).sum())
    science_cap = 2 * (science_names + science_stages + 3) - 1 + codes.SCIENCE_SET_POINTS
    caps = np.zeros(t.n_ent, dtype=np.int64)
    for e in range(t.n_ent):
        amount, what, scope = (int(x) for x in t.ent_points_per[e])
        if what in effects.TARGET_OF_CODE:
            per_city = effects.TARGET_OF_CODE[what].per_city(t, schema)
        else:
            per_city = sum(names[k] for k in range(codes.N_COLORS) if what >> k & 1)
        cities = bin(scope & (codes.SCOPE_SELF | codes.SCOPE_LEFT | codes.SCOPE_RIGHT)).count("1")
        cap = int(t.ent_points[e]) + max(0, amount * per_city * cities)
        if t.ent_science[e] >= 0:
            cap += science_cap
        caps[e] = max(0, cap)
    return caps


def compile_text(raw: bytes | str, source: str = "data", digest: str | None = None) -> Tables:
    """Validate and compile the text of a data file into Tables."""
    if isinstance(raw, str):
        raw = raw.encode()
    try:
        doc = parse(raw)
    except YamlFileError as e:
        raise DataError(f"{source}: {e}") from None
    return _Compiler(doc, source, digest or hashlib.sha256(raw).hexdigest(), raw).run()


# ---------------------------------------------------------------------------------------------
# Validation and compilation

_CARD_KEYS = {"name", "aliases", "age", "color", "players", "cost", "chain_from"}
_EFFECT_KEYS = set(effects.KEYS)
_WONDER_KEYS = {"id", "name", "promo", "resource", "extra_coins", "sides"}
_STAGE_KEYS = {"cost"} | _EFFECT_KEYS


@dataclass
class _CardList:
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


class _BoardList:
    """The wonders read so far."""

    def __init__(self, n_boards: int):
        self.ids, self.names, self.resource, self.coins, self.promo = [], [], [], [], []
        self.stages = np.zeros((n_boards, 2), dtype=np.int8)
        self.stage_ent = np.full((n_boards, 2, MAX_STAGES), -1, dtype=np.int16)


class _Compiler:
    def __init__(self, doc, source: str, digest: str, raw: bytes):
        self.doc = doc
        self.source = source
        self.digest = digest
        self.raw = raw

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

    # -- the whole file -----------------------------------------------------------------------
    def run(self) -> Tables:
        """Check the whole document and compile it: cards, aliases, chains, decks, wonders."""
        doc = self.doc
        if not isinstance(doc, dict) or not isinstance(doc.get("cards"), list) \
                or not isinstance(doc.get("wonders"), list):
            raise DataError(f"{self.source}: expected top-level lists 'cards' and 'wonders'")
        extra = [k for k in doc if k not in ("cards", "wonders")]
        if extra:
            raise DataError(f"{self.source}: unknown top-level key {brief(extra[0])}")
        cards = _CardList()
        for i, entry in enumerate(doc["cards"]):
            self._card(cards, i, entry)
        self._aliases(cards)
        chain = self._chains(cards)
        copies = self._decks(cards)
        boards = _BoardList(len(doc["wonders"]))
        for b, w in enumerate(doc["wonders"]):
            self._wonder(boards, cards.rows, b, w)
        if not boards.ids:
            raise DataError(f"{self.source}: no wonders")
        return self._tables(cards, chain, copies, boards)

    def _card(self, cards: "_CardList", i: int, entry):
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

    def _aliases(self, cards: "_CardList"):
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

    def _chains(self, cards: "_CardList") -> list:
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

    def _decks(self, cards: "_CardList") -> np.ndarray:
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

    def _wonder(self, boards: "_BoardList", rows: list, b: int, w):
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

    def _tables(self, cards: "_CardList", chain: list, copies, boards: "_BoardList") -> Tables:
        """The packed read-only arrays (schema ENTITY and BOARD), checked against the kernels' limits."""
        ent = np.zeros((len(cards.rows), ENTITY.count), dtype=np.int32)
        for e, row in enumerate(cards.rows):
            for name, value in row.items():
                at = ENTITY.offsets[name]
                ent[e, at:at + ENTITY.width(name)] = value
        t = Tables(data_sha256=self.digest, source=self.source, raw=self.raw, card_names=tuple(cards.card_names),
                   names=tuple(cards.names), board_ids=tuple(boards.ids), board_names=tuple(boards.names),
                   card_players=tuple(cards.players), lookup=cards.lookup, ent=ent,
                   board=np.zeros((len(boards.ids), BOARD.count), dtype=np.int32))
        t.ent_has_cost[:] = (t.ent_coin_cost != 0) | t.ent_cost.any(axis=1)
        ent[:, ENTITY.offsets["name_id"]] = -1  # stages have no name and no chain
        ent[:, ENTITY.offsets["chain"]:ENTITY.offsets["chain"] + MAX_CHAIN] = -1
        t.card_name_id[:] = cards.name_ids
        t.card_age[:] = cards.ages
        t.card_copies[:] = copies
        for c, ids in enumerate(chain):
            t.card_chain[c, :len(ids)] = ids
        for c in range(t.n_cards):
            nid = int(t.card_name_id[c])
            t.card_chains_to[c] = sum(1 for ids in chain if nid in ids)
        t.ent_points_cap[:] = points_caps(t)
        t.board_resource[:] = boards.resource
        t.board_coins[:] = boards.coins
        t.board_promo[:] = boards.promo
        t.board_stages[:] = boards.stages
        t.board_stage_ent[:] = boards.stage_ent
        self._kernel_limits(t)
        for name in ("cost", "prod"):  # the trading solver's packed copies (within its limits now)
            packed = getattr(t, f"ent_{name}_pk")
            packed[:, 0], packed[:, 1] = pack_halves(getattr(t, f"ent_{name}").astype(np.int64))
        ent.setflags(write=False)
        t.board.setflags(write=False)
        for name in _VIEWS:  # the views made while filling were writable: read-only ones from now on
            t.__dict__.pop(name, None)
        return t

    def _kernel_limits(self, t: Tables):
        """Limits the kernels rely on (kernels/schema.py), checked once here so that no game can
        hit them: a city holds one card per name plus at most 3 stages' choice units (its own,
        or Manneken Pis copies); the trading solver takes costs of at most MAX_COST_UNITS units."""
        n_cards = t.n_cards
        choice_names = len({int(t.card_name_id[c]) for c in range(n_cards) if t.ent_choice[c]})
        if choice_names + 3 > min(MAX_CHOICE, MAX_CHOICE_SLOTS):
            raise DataError(f"{self.source}: the kernels hold {min(MAX_CHOICE, MAX_CHOICE_SLOTS)} choice units "
                            f"per city; this data allows {choice_names + 3}")
        n_guilds = int((t.ent_kind[:n_cards] == codes.PURPLE).sum())
        if t.n_boards > DEAL_POOL or max(n_guilds, 7 * MAX_SEATS) > DEAL_DECK:
            raise DataError(f"{self.source}: the kernels deal from at most {DEAL_POOL} boards and "
                            f"{DEAL_DECK} cards per age (guilds included)")
        if n_cards > MAX_CARDS:
            raise DataError(f"{self.source}: the kernels' state counts at most {MAX_CARDS} card ids in the discard "
                            f"pile; this data has {n_cards} cards")
        units = t.ent_cost.sum(axis=1)
        if int(units.max()) > MAX_COST_UNITS:
            e = int(units.argmax())
            what = t.card_names[e] if e < n_cards else "a wonder stage"
            raise DataError(f"{self.source}: the kernels' trading solver takes costs of at most "
                            f"{MAX_COST_UNITS} resource units ({what} costs {int(units[e])})")
