"""Scenario files (docs/interfaces.md §1): a YAML position -> a reference `Position`.

A scenario describes a position, not a history, so nothing is checked for plausibility (the same
wonder may sit at several seats, any card may stand in any city). What *is* checked is that every
value means something: each mistake raises `ScenarioError` with a message that starts with the
file name, names the field (``players[1]: coins``) and says what is allowed, e.g.::

    scenario.yaml: players[1]: unknown card 'Aquaduct' (did you mean 'Aqueduct'?)

Format (every key but ``players``, ``wonder`` and ``side`` is optional)::

    age: 3                      # 1..3, default 3; informational only
    players:                    # 3 to 7 seats, in seat order
      - wonder: babylon         # a wonder id of the data file
        side: A                 # A or B
        stages: 2               # default 0; 0..number of stages of that side
        cards: [Apothecary]     # default []; printed names or aliases, no building name twice
        coins: 5                # default 3; a whole number >= 0
        tokens: [1, -1, 3]      # default []; each one of -1, 1, 3, 5
        copy3: left             # Manneken Pis A with its 3 stages built only: left|right
        free_city: true         # default false; the Free City of a 2-player position

``cards:`` or ``tokens:`` left empty (YAML null) means the empty list.

Two players (docs/rules.md §10): exactly 3 seats, one of them (any seat) marked
``free_city: true``. That city is scored and priced like any other, but it ranks against nobody
and never wins.
"""

from __future__ import annotations

import difflib
import os

from wsim import codes, yamlfile
from wsim.compiler import normalize_name
from wsim.errors import WsimError, brief
from wsim.reference.state import City, Position
from wsim.tables import Tables

TOP_KEYS = ("age", "players")
PLAYER_KEYS = ("wonder", "side", "stages", "cards", "coins", "tokens", "copy3", "free_city")
SIDES = ("A", "B")
TOKENS = (codes.MILITARY_LOSS,) + codes.MILITARY_WIN  # the military tokens a city can hold
COPY3 = {"left": codes.COPY_LEFT, "right": codes.COPY_RIGHT}
DEFAULT_AGE = 3


class ScenarioError(WsimError):
    """A scenario file that cannot be used; the message names the file, the field and the fix."""


def _is_int(value) -> bool:
    """A YAML whole number (YAML's true/false are bools, not numbers, here)."""
    return isinstance(value, int) and not isinstance(value, bool)


def read_yaml(path: str | os.PathLike) -> object:
    """The parsed document of a YAML (or JSON) file; ScenarioError if unreadable or invalid.

    The file must be a regular file of at most 16 MiB, with no key twice in one mapping and no
    aliases expanding it beyond 16 MiB (docs/interfaces.md §0).
    """
    try:
        return yamlfile.parse(yamlfile.read_bytes(path))
    except yamlfile.YamlFileError as e:
        raise ScenarioError(f"{os.fspath(path)}: {e}") from None


def load(path: str | os.PathLike, tables: Tables) -> Position:
    """Read and validate a scenario file into a Position over `tables`."""
    return parse(read_yaml(path), tables, source=os.fspath(path))


def parse(doc, tables: Tables, source: str = "scenario") -> Position:
    """Validate a parsed scenario document and build its Position (ScenarioError on a mistake)."""
    return _Parser(tables, source).position(doc)


class _Parser:
    """Validation of one document; `fail` prefixes every message with the file name."""

    def __init__(self, tables: Tables, source: str):
        self.t = tables
        self.source = source

    def fail(self, where: str, problem: str):
        raise ScenarioError(f"{self.source}: {where}: {problem}" if where else f"{self.source}: {problem}")

    # -- the whole document ----------------------------------------------------------------------
    def position(self, doc) -> Position:
        if not isinstance(doc, dict):
            self.fail("", "expected a mapping at the top level with the key 'players' "
                          f"(and optionally 'age'), got {_kind(doc)}")
        self._unknown_keys("", doc, TOP_KEYS)
        age = doc.get("age", DEFAULT_AGE)
        if not _is_int(age) or not 1 <= age <= 3:
            self.fail("age", f"must be 1, 2 or 3, got {brief(age)}")
        if "players" not in doc:
            self.fail("players", f"required: a list of {codes.MIN_PLAYERS} to {codes.MAX_PLAYERS} seats")
        players = doc["players"]
        if not isinstance(players, list):
            self.fail("players", f"expected a list of {codes.MIN_PLAYERS} to {codes.MAX_PLAYERS} seats, "
                                 f"got {_kind(players)}")
        if not codes.MIN_PLAYERS <= len(players) <= codes.MAX_PLAYERS:
            self.fail("players", f"{len(players)} seats given, {codes.MIN_PLAYERS} to "
                                 f"{codes.MAX_PLAYERS} allowed")
        cities = [self.city(f"players[{i}]", p) for i, p in enumerate(players)]
        return Position(self.t, cities, self.free_city(players))

    def free_city(self, players: list) -> int:
        """The seat marked `free_city: true` (only in a 3-seat position), or -1 when none is."""
        marked = []
        for i, p in enumerate(players):
            flag = p.get("free_city", False)
            if not isinstance(flag, bool):
                self.fail(f"players[{i}]", f"free_city: must be true or false, got {brief(flag)}")
            if flag:
                marked.append(i)
        if len(marked) > 1:
            self.fail("players", f"free_city: seats {marked[0]} and {marked[1]} are both marked; "
                                 "a 2-player position has exactly one Free City")
        if marked and len(players) != codes.FC_CITIES:
            self.fail(f"players[{marked[0]}]", f"free_city: only in a position of exactly {codes.FC_CITIES} "
                                               f"seats (2 players and the Free City), this one has "
                                               f"{len(players)}")
        return marked[0] if marked else -1

    # -- one seat -----------------------------------------------------------------------------
    def city(self, where: str, p) -> City:
        t = self.t
        if not isinstance(p, dict):
            self.fail(where, f"expected a mapping with keys {', '.join(PLAYER_KEYS)}, got {_kind(p)}")
        self._unknown_keys(where, p, PLAYER_KEYS)

        if "wonder" not in p:
            self.fail(where, f"wonder: required (one of: {' '.join(t.board_ids)})")
        wonder = p["wonder"]
        if not isinstance(wonder, str) or wonder.strip().lower() not in t.board_ids:
            self.fail(where, f"unknown wonder {brief(wonder)} (one of: {' '.join(t.board_ids)})")
        board = t.board_id(wonder)

        if "side" not in p:
            self.fail(where, "side: required (A or B)")
        side_name = p["side"]
        if side_name not in SIDES:
            self.fail(where, f"side: must be A or B, got {brief(side_name)}")
        side = SIDES.index(side_name)

        n_stages = int(t.board_stages[board, side])
        stages = p.get("stages", 0)
        if not _is_int(stages) or not 0 <= stages <= n_stages:
            self.fail(where, f"stages: must be a whole number from 0 to {n_stages} "
                             f"({t.board_ids[board]} side {side_name} has {n_stages} stages), "
                             f"got {brief(stages)}")

        coins = p.get("coins", codes.START_COINS)
        if not _is_int(coins) or coins < 0:
            self.fail(where, f"coins: must be a whole number >= 0, got {brief(coins)}")

        cards = self.cards(where, p.get("cards"))
        tokens = self.tokens(where, p.get("tokens"))
        copy3 = self.copy3(where, p, board, side, stages)
        return City(board=board, side=side, coins=coins, cards=cards, stages=stages,
                    tokens=tokens, copy3=copy3)

    def cards(self, where: str, names) -> list:
        """Card ids in the given order; one building per name (Age I/II Loom are one name)."""
        t = self.t
        if names is None:
            return []
        if not isinstance(names, list):
            self.fail(where, f"cards: expected a list of card names, got {_kind(names)}")
        ids, owner = [], {}
        for name in names:
            if not isinstance(name, str):
                self.fail(where, f"cards: expected card names, got {brief(name)}")
            try:
                card = t.card_id(name)
            except KeyError:
                self.fail(where, f"unknown card {brief(name)}{self._suggest(name)}")
            nid = int(t.card_name_id[card])
            if nid in owner:
                self.fail(where, f"cards: {brief(t.names[nid])} is there twice "
                                 f"({brief(owner[nid])} and {brief(name)}); "
                                 "a city holds at most one building of each name")
            owner[nid] = name
            ids.append(card)
        return ids

    def tokens(self, where: str, tokens) -> list:
        if tokens is None:
            return []
        if not isinstance(tokens, list):
            self.fail(where, f"tokens: expected a list of military tokens {TOKENS}, got {_kind(tokens)}")
        for tok in tokens:
            if not _is_int(tok) or tok not in TOKENS:
                self.fail(where, f"tokens: bad token {brief(tok)}, each token is one of -1, 1, 3, 5")
        return list(tokens)

    def copy3(self, where: str, p: dict, board: int, side: int, stages: int) -> int:
        """Manneken Pis A's stage-3 neighbour: -1 when absent (scoring then picks the better one)."""
        if "copy3" not in p:
            return -1
        t = self.t
        e = t.stage_entity(board, side, 2)
        chooses = e >= 0 and t.copies_chosen_neighbour(e)
        if not chooses:
            self.fail(where, f"copy3: only for a board whose stage 3 copies a neighbour of choice "
                             f"(manneken_pis side A); {t.board_ids[board]} side {SIDES[side]} has none")
        if stages < 3:
            self.fail(where, f"copy3: only once stage 3 is built (stages: 3), this city has {stages}")
        value = p["copy3"]
        if not isinstance(value, str) or value not in COPY3:  # a list or mapping is unhashable
            self.fail(where, f"copy3: must be left or right, got {brief(value)}")
        return COPY3[value]

    # -- helpers --------------------------------------------------------------------------------
    def _unknown_keys(self, where: str, mapping: dict, allowed: tuple):
        for key in mapping:
            if key not in allowed:
                self.fail(where, f"unknown key {brief(key)} (allowed: {', '.join(allowed)})")

    def _suggest(self, name: str) -> str:
        by_key = {normalize_name(n): n for n in self.t.names}
        key = normalize_name(name)
        if len(key) > 2 * max(map(len, by_key)):  # too long to be a misspelling; spares difflib
            return ""
        close = difflib.get_close_matches(key, list(by_key), n=1, cutoff=0.75)
        return f" (did you mean {brief(by_key[close[0]])}?)" if close else ""


def _kind(value) -> str:
    """A short description of a wrong value for messages."""
    if value is None:
        return "nothing"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return brief(value)
