"""Load, validate and compile the card data file into frozen integer tables.

wsim/compiler.py reads and checks the file (every mistake in it a DataError, and the name
matching the lookups share); here what it read is packed into the kernels' layout below, the
fields that follow from others are derived (has_cost, chains_to, points_cap, the trading
solver's packed copies) and the kernels' limits are checked. This module imports the compiler,
never the other way: the compiler knows the file's format, this module the kernels' layout.

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
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources as importlib_resources
from pathlib import Path

import numpy as np

from wsim import codes, effects
from wsim.compiler import Compiled, DataError, compile_doc, normalize_name
from wsim.errors import brief, path_value
from wsim.kernels import schema
from wsim.kernels.schema import (BOARD, CARD_ONLY, DEAL_DECK, DEAL_POOL, ENTITY, MAX_CARDS, MAX_CHAIN, MAX_CHOICE,
                                 MAX_CHOICE_SLOTS, MAX_COST_UNITS, MAX_SEATS, MAX_STAGES)
from wsim.kernels.schema import describe as describe_layout, pack_halves
from wsim.yamlfile import YamlFileError, parse, read_bytes

__doc__ = __doc__.format(schema=describe_layout())

DEFAULT_DATA = "cards.yaml"
EDITION_DATA = {1: DEFAULT_DATA, 2: "cards-2e.yaml"}  # the shipped data file of each edition (`wsim --edition`)


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
    edition: int = 1  # the data file's `edition` (codes.EDITIONS)

    @property
    def edition_name(self) -> str:
        return codes.EDITION_NAMES[self.edition]

    @property
    def min_players(self) -> int:
        """The fewest players of a game of this edition (2, the Free City, in the first only)."""
        return codes.EDITION_MIN_PLAYERS[self.edition]

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
    return edition_path(1)


def edition_path(edition: int) -> Path:
    """The shipped data file of an edition (1: the first, the default; 2: the second, 2020)."""
    return Path(str(importlib_resources.files("wsim") / "data" / EDITION_DATA[edition]))


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
        shipped = p in (edition_path(k) for k in EDITION_DATA)
        _CACHE[key] = compile_text(raw, source=p.name if shipped else str(p), digest=digest)
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
    return _tables(compile_doc(doc, source), source, digest or hashlib.sha256(raw).hexdigest(), raw)


def _tables(read: Compiled, source: str, digest: str, raw: bytes) -> Tables:
    """The packed read-only arrays (schema ENTITY and BOARD) of a checked data file, with their
    derived fields, checked against the kernels' limits."""
    cards, boards, chain = read.cards, read.boards, read.chain
    ent = np.zeros((len(cards.rows), ENTITY.count), dtype=np.int32)
    for e, row in enumerate(cards.rows):
        for name, value in row.items():
            at = ENTITY.offsets[name]
            ent[e, at:at + ENTITY.width(name)] = value
    t = Tables(data_sha256=digest, source=source, raw=raw, card_names=tuple(cards.card_names),
               names=tuple(cards.names), board_ids=tuple(boards.ids), board_names=tuple(boards.names),
               card_players=tuple(cards.players), lookup=cards.lookup, ent=ent, edition=read.edition,
               board=np.zeros((len(boards.ids), BOARD.count), dtype=np.int32))
    t.ent_has_cost[:] = (t.ent_coin_cost != 0) | t.ent_cost.any(axis=1)
    ent[:, ENTITY.offsets["name_id"]] = -1  # stages have no name and no chain
    ent[:, ENTITY.offsets["chain"]:ENTITY.offsets["chain"] + MAX_CHAIN] = -1
    t.card_name_id[:] = cards.name_ids
    t.card_age[:] = cards.ages
    t.card_copies[:] = read.copies
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
    _kernel_limits(t)
    for name in ("cost", "prod"):  # the trading solver's packed copies (within its limits now)
        packed = getattr(t, f"ent_{name}_pk")
        packed[:, 0], packed[:, 1] = pack_halves(getattr(t, f"ent_{name}").astype(np.int64))
    ent.setflags(write=False)
    t.board.setflags(write=False)
    for name in _VIEWS:  # the views made while filling were writable: read-only ones from now on
        t.__dict__.pop(name, None)
    return t


def _kernel_limits(t: Tables):
    """Limits the kernels rely on (kernels/schema.py), checked once here so that no game can
    hit them: a city holds one card per name plus at most 3 stages' choice units (its own,
    or Manneken Pis copies); the trading solver takes costs of at most MAX_COST_UNITS units."""
    n_cards = t.n_cards
    choice_names = len({int(t.card_name_id[c]) for c in range(n_cards) if t.ent_choice[c]})
    if choice_names + 3 > min(MAX_CHOICE, MAX_CHOICE_SLOTS):
        raise DataError(f"{t.source}: the kernels hold {min(MAX_CHOICE, MAX_CHOICE_SLOTS)} choice units "
                        f"per city; this data allows {choice_names + 3}")
    n_guilds = int((t.ent_kind[:n_cards] == codes.PURPLE).sum())
    if t.n_boards > DEAL_POOL or max(n_guilds, 7 * MAX_SEATS) > DEAL_DECK:
        raise DataError(f"{t.source}: the kernels deal from at most {DEAL_POOL} boards and "
                        f"{DEAL_DECK} cards per age (guilds included)")
    if n_cards > MAX_CARDS:
        raise DataError(f"{t.source}: the kernels' state counts at most {MAX_CARDS} card ids in the discard "
                        f"pile; this data has {n_cards} cards")
    units = t.ent_cost.sum(axis=1)
    if int(units.max()) > MAX_COST_UNITS:
        e = int(units.argmax())
        what = t.card_names[e] if e < n_cards else "a wonder stage"
        raise DataError(f"{t.source}: the kernels' trading solver takes costs of at most "
                        f"{MAX_COST_UNITS} resource units ({what} costs {int(units[e])})")
