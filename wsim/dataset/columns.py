"""A dataset's columns and metadata keys in words, and its schema versions (docs/interfaces.md §2).

The one table of what each column means: the parts carry it in each field's metadata (key
`description`), `wsim check --describe` prints it, and docs/interfaces.md's column table says
the same words (tests/test_dataset_schema.py holds the two to each other).

Schema versions: a dataset keeps the one it was started with, so that --resume onto a dataset
of an older wsim writes its new parts as the old ones are (one schema per dataset).
- 1: `policy`, `wonder` and `side` plain strings, no descriptions, each seat's policy
  parameters a list of integers in the kernels' row order;
- 2: `policy`, `wonder` and `side` dictionary-encoded (as `cards`' names already were), every
  column described, the policy parameters by name ({KEY: value}, the keys of --policy-param);
- 3: version 2 and four int16 columns of how each seat played, after `cards` (COUNTERS:
  `discards`, `chained`, `coins_paid`, `coins_received`), the counts the kernels keep and the
  move log's final entries hold (docs/interfaces.md §2 words each rule).
"""

from __future__ import annotations

import pyarrow as pa

SCHEMA_VERSION = 3  # what a new dataset is written with
SCHEMA_VERSIONS = (1, 2, 3)  # what this wsim writes and reads
DESCRIBED = 2  # the first version whose columns carry descriptions, dictionaries and named parameters
COUNTED = 3  # the first version with the columns of wsim.codes.COUNTERS
DESCRIPTION_KEY = b"description"

_CATEGORY = "{what} points, as `wsim score` gives them"

COLUMNS = {
    "game": "the game's index in the run, 0..N−1",
    "seed": "the run's seed",
    "players": "the player count",
    "seat": "the seat, counted from 0 (at 2 players seat 2 is the Free City)",
    "policy": "the seat's policy name (or its label); `free_city` on the Free City's row",
    "wonder": "the wonder id",
    "side": "the wonder's side, `A` or `B`",
    "vp_military": _CATEGORY.format(what="military"),
    "vp_treasury": _CATEGORY.format(what="treasury"),
    "vp_wonder": _CATEGORY.format(what="wonder"),
    "vp_civilian": _CATEGORY.format(what="civilian"),
    "vp_science": _CATEGORY.format(what="science"),
    "vp_commercial": _CATEGORY.format(what="commercial"),
    "vp_guild": _CATEGORY.format(what="guild"),
    "vp_total": "the total of the seven categories",
    "coins": "coins at the end",
    "shields": "military strength at the end",
    "stages": "wonder stages built",
    "rank": "1 + the number of seats with more points, or as many points and more coins (1, 1, 3, …); "
            "null on the Free City's row",
    "win": "rank is 1",
    "cards": "the printed names of the city's buildings at the end, in build order (`Loom` for either age)",
    "discards": "cards the seat discarded for 3 coins by its own action: a turn's move or a 7th card (Babylon B); "
                "not a turn 6 leftover, which goes face down for nothing (schema version 3 on)",
    "chained": "buildings the seat built free through a chain: the build action on a card with a coin or resource "
               "cost while the city owned a building it chains from (not an Olympia A free build nor a discard "
               "build, whatever the city owned; schema version 3 on)",
    "coins_paid": "coins the seat paid its two neighbours for resources over the game, buildings and wonder stages "
                  "(schema version 3 on)",
    "coins_received": "coins the seat received from its two neighbours for its resources over the game (schema "
                      "version 3 on)",
    "free_city": "true on the Free City's row alone (2-player datasets only)",
}

METADATA = {
    "wsim": "the run's settings and versions, JSON (docs/interfaces.md §2 Metadata)",
    "wsim_data": "the text of the card data file the games were played with",
}


def described(columns: dict) -> pa.Table:
    """A table of `columns` ({name: Arrow array}), each field carrying its description."""
    fields = [pa.field(name, array.type, metadata={DESCRIPTION_KEY: COLUMNS[name].encode()})
              for name, array in columns.items()]
    return pa.Table.from_arrays(list(columns.values()), schema=pa.schema(fields))


def description(field: pa.Field) -> str | None:
    """The description a field carries, None when it has none (a dataset of schema version 1)."""
    text = (field.metadata or {}).get(DESCRIPTION_KEY)
    return None if text is None else text.decode("utf-8", "replace")


def type_text(arrow_type: pa.DataType) -> str:
    """An Arrow type as docs/interfaces.md's column table writes it: `dictionary<string>` for
    dictionary-encoded strings (whatever the width of their indices), `list<...>` of a list."""
    if pa.types.is_dictionary(arrow_type):
        return f"dictionary<{type_text(arrow_type.value_type)}>"
    if pa.types.is_list(arrow_type):
        return f"list<{type_text(arrow_type.value_type)}>"
    return str(arrow_type)
