"""A wsim dataset's seats as a seat table (wsim.people.aggregate.SEAT_COLUMNS), to set beside people's.

The dataset is checked against its manifest as `wsim check` checks it, then read a part at a time
with pyarrow (base install only). The Free City's rows (2-player datasets) are left out. The
colour counts come from each city's `cards` (a name's colour in the card data the games were
played with); `discards`, `chained`, `coins_paid` and `coins_received` only when the dataset has
them (schema 3 on), else the seat table lacks them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from wsim import codes
from wsim.dataset import manifest, parts
from wsim.dataset.folder import DatasetError
from wsim.people.aggregate import CATEGORIES, Aggregate, aggregate
from wsim.tables import Tables

# a colour of wsim.codes.COLORS -> its seat-table column
COLOUR_COLUMN = {"brown": "raw_cards", "grey": "manufactured_cards", "blue": "civilian_cards",
                 "green": "science_cards", "yellow": "commercial_cards", "red": "military_cards",
                 "purple": "guild_cards"}
_NUMBERS = ("players", "game", "rank", *CATEGORIES, "vp_total", "stages", "shields")
_OPTIONAL = ("discards", "chained", "coins_paid", "coins_received")


def _open(folder: Path, tables: Tables) -> manifest.Report:
    report = manifest.check(folder, tables)
    if not report.ok:
        raise DatasetError(f"{folder}: not a complete dataset ({report.closing}): " + "; ".join(report.problems[:5]))
    return report


def colours_of(t: Tables) -> dict:
    """{card name: its seat-table colour column} of the card data `t`."""
    return {name: COLOUR_COLUMN[codes.COLORS[int(t.ent_kind[c])]] for c, name in enumerate(t.card_names)}


def _strings(column) -> np.ndarray:
    return np.asarray(pc.cast(column, pa.string()).to_pylist(), dtype=str)


def _part_seats(table: pa.Table, colour_index: dict, optional: tuple) -> dict:
    """The seat table of one part's rows (Free City rows already removed)."""
    out = {c: parts.numpy_of(pc.cast(table[c], pa.int64())).copy() for c in (*_NUMBERS, *optional)}
    out["wonder"] = _strings(table["wonder"])
    out["side"] = _strings(table["side"])
    cards = table["cards"].combine_chunks()
    # the names dictionary-encoded: one lookup per distinct name, not per card (a 100,000-game
    # dataset holds millions of cards)
    flat = pc.list_flatten(cards)
    if not pa.types.is_dictionary(flat.type):
        flat = pc.dictionary_encode(flat)
    per_name = np.array([colour_index[n] for n in pc.cast(flat.dictionary, pa.string()).to_pylist()], dtype=np.int64)
    colour = per_name[parts.numpy_of(pc.cast(flat.indices, pa.int64()))]
    row = parts.numpy_of(pc.list_parent_indices(cards)).astype(np.int64)
    counts = np.zeros((len(table), len(COLOUR_COLUMN)), dtype=np.int64)
    np.add.at(counts, (row, colour), 1)
    for i, column in enumerate(COLOUR_COLUMN.values()):
        out[column] = counts[:, i]
    return out


def part_seats(folder, tables: Tables, report: manifest.Report | None = None):
    """The seat table of each part of the dataset in `folder`, part by part (a part holds whole
    games: each is a complete seat table); DatasetError when it is not a complete, checked
    dataset. `tables`: the installed card data, for a dataset that does not carry its own."""
    folder = Path(folder)
    report = report or _open(folder, tables)
    present = set(parts.read_metadata(folder).schema.names)
    optional = tuple(c for c in _OPTIONAL if c in present)
    columns = [*_NUMBERS, "wonder", "side", "cards", *optional] + (["free_city"] if "free_city" in present else [])
    names = colours_of(report.tables)
    colour_index = {n: list(COLOUR_COLUMN.values()).index(c) for n, c in names.items()}
    for f in report.files:
        table = parts.read_columns(f, columns)
        if "free_city" in present:
            table = table.filter(pc.invert(table["free_city"]))
            table = table.drop_columns(["free_city"])
        try:
            yield _part_seats(table, colour_index, optional)
        except KeyError as e:
            raise DatasetError(f"{f}: a card {e} its card data does not name") from None


def dataset_seats(folder, tables: Tables) -> dict:
    """The seat table of the whole dataset in `folder` (part_seats joined: for tests and small
    datasets; dataset_aggregate keeps one part in memory)."""
    pieces = list(part_seats(folder, tables))
    if not pieces:
        return {k: np.zeros(0, dtype=str if k in ("wonder", "side") else np.int64) for k in (*_NUMBERS, "wonder", "side")}
    return {k: np.concatenate([p[k] for p in pieces]) for k in pieces[0]}


def dataset_aggregate(folder, tables: Tables, name: str) -> Aggregate:
    """The Aggregate of the dataset in `folder`, its source named `name` with the run's settings:
    one part's seats in memory at a time, their aggregates summed (a part holds whole games)."""
    folder = Path(folder)
    report = _open(folder, tables)
    meta = report.meta or {}
    settings = report.settings
    source = {"name": name, "dataset": str(folder), "games": meta.get("games"), "players": meta.get("players"),
              "seed": meta.get("seed"), "sides": meta.get("sides"), "wonders": meta.get("wonders"),
              "policies": list(settings.labels) if settings is not None else None,
              "schema_version": meta.get("schema_version", 1), "data_sha256": meta.get("data_sha256")}
    total = Aggregate(source={k: v for k, v in source.items() if v is not None})
    for seats in part_seats(folder, tables, report):
        total = total + aggregate(seats)
    return total
