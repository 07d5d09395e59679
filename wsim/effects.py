"""Every effect kind a card or a wonder stage can carry, declared once (KINDS), and every thing
an effect can count (COUNTS).

A kind's row says everything the front needs to know about it: its YAML key in the data file
and how that value is parsed (`Int`, `OneOf`, `Flag`, or a `Custom` parser of wsim/compiler.py),
the ENTITY fields it fills and their value when the key is absent, when it applies (TIMINGS),
the count targets it accepts, its phrase in `wsim cards` and `describe`, whether `--edit
CARD.KEY=N` may set it, its heuristic features (with the default weight a weights file may
leave out), and its lines in the header of wsim/data/cards.yaml. From these rows come the
loader's keys, blank row and simple parsers (wsim/compiler.py), the `--edit` keys
(wsim/analysis/edits.py), the wording (wsim/describe.py), the weights a weights file may omit
(wsim/run/weights.py) and the header of the data file (`with_header`, checked by
tests/test_effects.py).

Why the kernels may import this module. What an effect *does* is engine code (both engines
apply it, at its timing); the numbers the kernels index come from here: the effect fields of
kernels/schema.ENTITY (so their offsets E_*) and the COUNT_* codes kernels/city.count tests.
numba bakes such module constants into its compiled code and checks only the timestamp of the
file that holds each function, so this file is part of the kernel cache key
(wsim.kernels.key_sources): an edit here, a new phrase included, starts a fresh kernel cache.
That costs a recompile (30-60 s) for a change of wording, and buys a new kind that touches no
second list. To keep that safe this module imports nothing but wsim.codes: plain Python, no
numba, nothing from the front, as kernels/schema.py.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Callable, ClassVar

from wsim import codes


# -- how a key's value is read: wsim/compiler.py's _EntryFields._parse_<name> ------------------
@dataclass(frozen=True)
class Int:
    """A whole number from lo to hi."""

    name: ClassVar[str] = "int"
    lo: int
    hi: int


@dataclass(frozen=True)
class OneOf:
    """One of `names[first:]`, stored as its index in `names` (the names before `first` are
    codes that the data file never writes, such as POWERS' "none")."""

    name: ClassVar[str] = "one_of"
    noun: str
    names: tuple
    first: int = 0


@dataclass(frozen=True)
class Flag:
    """true or false, qualifying the effect of key `of`: required with it, meaningless without."""

    name: ClassVar[str] = "flag"
    of: str


@dataclass(frozen=True)
class Custom:
    """A value with a structure of its own, read by `_EntryFields._parse_<name>` in wsim/compiler.py."""

    name: str


# -- the table ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Field:
    """An ENTITY field an effect fills (kernels/schema.py): its name, width, meaning, and its value
    when the entity has no such effect."""

    name: str
    width: int
    meaning: str
    blank: int = 0


@dataclass(frozen=True)
class Kind:
    """One effect kind (the module docstring says what each part drives)."""

    key: str
    parser: Int | OneOf | Flag | Custom
    fields: tuple
    timing: str
    words: Callable | None  # its phrase from the entity's field values; None: another kind's phrase says it
    doc: tuple  # its lines in the data file's header; () when another kind's line names it
    edit: bool = False
    weights: tuple = ()  # (heuristic feature, default weight or None: every weights file gives it)
    counts: tuple = ()  # the COUNTS keys its `count` accepts (Custom "scope_count" kinds)


@dataclass(frozen=True)
class CountTarget:
    """A thing `count: [KEY]` counts in a city, besides card colours. `per_city(t, limits)` is the
    most of it one city can hold, for tables.points_caps: t the compiled Tables, limits
    kernels/schema (which imports this module, so this module cannot import it)."""

    key: str
    words: str
    per_city: Callable


COUNTS = (
    CountTarget("wonder_stage", "wonder stage", lambda t, limits: limits.MAX_STAGES),
    CountTarget("defeat_token", "defeat token", lambda t, limits: 2 * codes.N_AGES),  # two neighbours an age
    # 1 when every stage of the city's wonder side is built (the second edition's Decorators Guild)
    CountTarget("wonder_complete", "complete wonder", lambda t, limits: 1),
)
# A count field holds a colour bitmask (bits 0..N_COLORS-1) or one COUNTS code, the bits above.
COUNT_CODES = {target.key: 1 << (codes.N_COLORS + i) for i, target in enumerate(COUNTS)}
TARGET_OF_CODE = {code: target for target, code in zip(COUNTS, COUNT_CODES.values())}
COUNT_STAGES = COUNT_CODES["wonder_stage"]
COUNT_DEFEATS = COUNT_CODES["defeat_token"]
COUNT_COMPLETE = COUNT_CODES["wonder_complete"]

TIMINGS = {
    "turn": "every turn, while it is in the city (production)",
    "purchase": "in every purchase decided after it is in the city",
    "build": "once, when it is built",
    "age_end": "at each age's military conflicts",
    "game_end": "at final scoring",
    "power": "when its wonder power is used",
}


def _mask_names(mask: int, names) -> list:
    return [names[i] for i in range(len(names)) if mask >> i & 1]


def count_words(spec) -> str:
    """An (amount, count, scope) field in words, e.g. "1 per brown card (own city and both neighbours)"."""
    amount, count, scope = (int(x) for x in spec)
    if count in TARGET_OF_CODE:
        what = TARGET_OF_CODE[count].words
    else:
        what = "/".join(_mask_names(count, codes.COLORS)) + " card"
    where = [name for name, bit in codes.SCOPES.items() if scope & bit]
    where_words = {("self",): "own city", ("left", "right"): "both neighbours",
                   ("self", "left", "right"): "own city and both neighbours"}.get(tuple(where), "+".join(where))
    return f"{amount} per {what} ({where_words})"


def _plural(n, noun: str) -> str:
    return f"{n} {noun}" + ("s" if n > 1 else "")


def _produces_words(f) -> str | None:
    fixed = [codes.RESOURCES[r] for r in range(codes.N_RES) for _ in range(int(f["prod"][r]))]
    choice = "/".join(_mask_names(int(f["choice"]), codes.RESOURCES))
    units = fixed + ([choice] if choice else [])
    if not units:
        return None
    return "produces " + " + ".join(units) + (" (tradeable)" if f["tradeable"] else " (not sold)")


def _science_words(f) -> str | None:
    if f["science"] < 0:
        return None
    sym = codes.SCIENCE[f["science"]]
    return "science: any symbol" if sym == "any" else f"science: {sym}"


def _discount_words(f) -> str | None:
    d = int(f["discount"])
    if not d:
        return None
    goods = "raw" if d & (codes.DISC_RAW_LEFT | codes.DISC_RAW_RIGHT) else "manufactured"
    sides = [s for s, bits in (("left", codes.DISC_RAW_LEFT | codes.DISC_MANUF_LEFT),
                               ("right", codes.DISC_RAW_RIGHT | codes.DISC_MANUF_RIGHT)) if d & bits]
    return f"buys {goods} from {' and '.join(sides)} for {codes.DISCOUNT_PRICE} coin"


def _power_words(f) -> str | None:
    p = int(f["power"])
    if p == codes.POW_COPY_STAGE:
        stage, of = int(f["copy_stage"]) + 1, codes.COPY_OF[f["copy_of"]]
        return f"copies stage {stage} of the {of.replace('_', ' ')} neighbour"
    return codes.POWERS[p].replace("_", " ") if p else None


def _fill(indent: str, text: str) -> tuple:
    """Header lines of a paragraph, each indented by `indent` after the "#     " of every line."""
    return tuple(line[6:] for line in textwrap.wrap(text, width=100, initial_indent="#     " + indent,
                                                    subsequent_indent="#     " + indent, break_on_hyphens=False))


def _alternatives(head: str, names, width: int = 80) -> tuple:
    """`head` then `names` separated by " | ", continued on lines that start with "|" under the
    first name, so that the alternatives read as a column."""
    lines, line = [], head + names[0]
    for name in names[1:]:
        if len(line) + 6 + 3 + len(name) > width:
            lines.append(line)
            line = " " * len(head) + "| " + name
        else:
            line += " | " + name
    return tuple(lines + [line])


_COUNT_KEYS = [target.key for target in COUNTS]
_SCOPE_COUNT_DOC = _fill(" " * 12, "count: colours of cards, " + ", ".join(f"or [{k}]" for k in _COUNT_KEYS)
                         + " (1 when every stage of the city's wonder side is built)"
                         + "; a card counts itself when it matches (Lighthouse, Shipowners Guild). When a counting "
                         "card's coins resolve, cards the neighbours built the same turn are in their cities already "
                         "(Vineyard, Bazar: RULES.md section 8); that is engine timing, not data.")

KINDS = (
    Kind("produces", Custom("produces"),
         (Field("prod", codes.N_RES, "fixed production units"),
          Field("choice", 1, "one more unit chosen among these resources (bitmask), 0 = none")),
         "turn", _produces_words,
         ("produces: [wood, wood]      one unit per list entry, every build, consumed by nothing",
          'produces: [wood/clay]       "a/b/...": ONE unit, any one of the listed resources, chosen per build'),
         weights=(("unit_new", None), ("unit_more", None))),
    Kind("tradeable", Flag("produces"), (Field("tradeable", 1, "1 if neighbours may buy the entity's production"),),
         "turn", None, ("tradeable: true|false       may neighbours buy that production (brown/grey only)",)),
    Kind("points", Int(0, 20), (Field("points", 1, "flat points at the end"),), "game_end",
         lambda f: _plural(f["points"], "point") if f["points"] else None,
         ("points: N   shields: N   coins: N (taken once, when built)",), edit=True, weights=(("point", None),)),
    Kind("shields", Int(0, 9), (Field("shields", 1, "military strength"),), "age_end",
         lambda f: _plural(f["shields"], "shield") if f["shields"] else None, (),
         weights=(("shield", None), ("flip", None))),
    Kind("coins", Int(0, 20), (Field("coins", 1, "coins taken once, when built"),), "build",
         lambda f: f"{f['coins']} coins" if f["coins"] else None, (), edit=True, weights=(("coin", None),)),
    Kind("science", OneOf("science symbol", codes.SCIENCE),
         (Field("science", 1, "-1 none, 0 compass, 1 gear, 2 tablet, 3 any (wildcard)", blank=-1),),
         "game_end", _science_words,
         ("science: compass|gear|tablet|any   (any = one symbol of the owner's choice at final scoring)",),
         weights=(("science", None),)),
    Kind("discount", Custom("discount"),
         (Field("discount", 1, "codes.DISC_* bits: goods bought for 1 coin from that neighbour"),),
         "purchase", _discount_words,
         ("discount: {goods: raw|manufactured, from: [left, right]}",
          "                            buying those goods from those neighbours costs 1 coin, not 2,",
          "                            for purchases decided after it is in the city"),
         weights=(("discount", None),)),
    Kind("coins_per", Custom("scope_count"),
         (Field("coins_per", 3, "(amount, count, scope): coins when built = amount x count over scope"),),
         "build", lambda f: "coins when built: " + count_words(f["coins_per"]) if f["coins_per"][0] else None,
         ("coins_per:  {amount: N, count: [...], in: [self, left, right]}   coins once, when built",),
         weights=(("coin", None),), counts=tuple(_COUNT_KEYS)),
    Kind("points_per", Custom("scope_count"),
         (Field("points_per", 3, "the same, points at the end; count: colour bits or a COUNT_* code"),),
         "game_end", lambda f: "points at the end: " + count_words(f["points_per"]) if f["points_per"][0] else None,
         ("points_per: {amount: N, count: [...], in: [...]}                  points at final scoring",
          *_SCOPE_COUNT_DOC),
         weights=(("point", None),), counts=tuple(_COUNT_KEYS)),
    Kind("power", OneOf("power", codes.POWERS, first=1), (Field("power", 1, "codes.POW_*"),), "power", _power_words,
         _alternatives("power: ", codes.POWERS[1:])
         + ("       free_build_first_of_color: a building of a colour the city lacks is built free (2nd ed.)",
            "       free_build_first_of_age / _last_of_age: the card played on turn 1 (of every later age) /",
            "       on turn 6 is built free when built as a building (2nd edition; docs/rules.md §13)"),
         weights=(("free_build", None), ("seventh", None), ("discard_build", None), ("guild_copy", None))),
    Kind("copies", Custom("copies"),
         (Field("copy_stage", 1, "POW_COPY_STAGE: the neighbour's stage index copied (from 0)"),
          Field("copy_of", 1, "POW_COPY_STAGE: codes.COPY_LEFT / COPY_RIGHT / COPY_CHOICE")),
         "power", None, ("copies: {stage: K, of: left|right|left_or_right}   with power copy_neighbor_stage",)),
)
BY_KEY = {kind.key: kind for kind in KINDS}
KEYS = tuple(BY_KEY)
EDIT_KEYS = tuple(kind.key for kind in KINDS if kind.edit)  # `--edit CARD.KEY=N`


def entity_fields() -> list:
    """(name, width, meaning) of every effect field, in table order: the effect block of
    kernels/schema.ENTITY."""
    return [(f.name, f.width, f.meaning) for kind in KINDS for f in kind.fields]


def blank_fields() -> dict:
    """Every effect field at its value for an entity without that effect (lists for wide fields)."""
    return {f.name: f.blank if f.width == 1 else [f.blank] * f.width for kind in KINDS for f in kind.fields}


def weight_defaults() -> dict:
    """The heuristic features a weights file may leave out, with the weight they then take."""
    return {feature: default for kind in KINDS for feature, default in kind.weights if default is not None}


HEADER_TITLE = "#   effects (cards and wonder stages alike; an entry may carry several)"


def header_lines() -> list:
    """The effects block of the data file's header comment: a title line, then each kind's lines."""
    return [HEADER_TITLE] + ["#     " + line for kind in KINDS for line in kind.doc]


def with_header(text: str) -> str:
    """A data file's text with its effects block (from HEADER_TITLE to the next less indented
    comment line) replaced by header_lines(). To regenerate the shipped header:
    `python -c "from pathlib import Path; from wsim.effects import with_header;
    p = Path('wsim/data/cards.yaml'); p.write_text(with_header(p.read_text()))"`."""
    lines = text.split("\n")
    if HEADER_TITLE not in lines:
        raise ValueError("the data file has no effects block in its header")
    start = lines.index(HEADER_TITLE)
    end = start + 1
    while end < len(lines) and lines[end].startswith("#    "):
        end += 1
    return "\n".join(lines[:start] + header_lines() + lines[end:])
