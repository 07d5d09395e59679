"""The Parquet parts of a `wsim simulate` dataset (docs/interfaces.md §2): columns, metadata, headers.

A dataset is a folder of part-NNNNN.parquet files in game order, part i holding the games
[i * chunk_size, (i + 1) * chunk_size), then `_wsim_manifest.json`, written last. Each part's
`wsim` metadata holds the run's settings; its `wsim_data` metadata holds the text of the card
data file, so that replay, check and --resume work without the file. A part holds nothing that
differs between two runs of the same settings (no time, host or pid): a resumed dataset is byte
for byte an uninterrupted one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from wsim import RULES_VERSION, __version__
from wsim.codes import FC_POLICY, FC_SEAT
from wsim.kernels.layout import (RES_BOARD, RES_CHAINED, RES_CIVILIAN, RES_COINS, RES_COINS_PAID, RES_COINS_RECEIVED,
                                 RES_COMMERCIAL, RES_DISCARDS, RES_GUILD, RES_MILITARY, RES_NCARDS, RES_RANK,
                                 RES_SCIENCE, RES_SHIELDS, RES_SIDE, RES_STAGES, RES_TOTAL, RES_TREASURY, RES_WONDER)
from wsim.dataset.columns import COUNTED, DESCRIBED, SCHEMA_VERSION, SCHEMA_VERSIONS, described
from wsim.dataset.folder import DatasetError
from wsim.errors import brief, is_whole
from wsim.inputfile import NotRegularFile, open_regular
from wsim.run.chunk import Chunk
from wsim.run.settings import Settings, wonders_text
from wsim.run.weights import params_by_name
from wsim.tables import Tables

PART_RE = re.compile(r"^part-(\d{5,})\.parquet$")
MANIFEST = "_wsim_manifest.json"
META_KEY = b"wsim"
DATA_KEY = b"wsim_data"

_VP_COLUMNS = (
    ("vp_military", RES_MILITARY), ("vp_treasury", RES_TREASURY), ("vp_wonder", RES_WONDER),
    ("vp_civilian", RES_CIVILIAN), ("vp_science", RES_SCIENCE), ("vp_commercial", RES_COMMERCIAL),
    ("vp_guild", RES_GUILD), ("vp_total", RES_TOTAL),
)
_COUNTER_COLUMNS = (  # schema version 3 on (columns.COUNTED), after `cards`
    ("discards", RES_DISCARDS), ("chained", RES_CHAINED), ("coins_paid", RES_COINS_PAID),
    ("coins_received", RES_COINS_RECEIVED),
)


def run_meta(tables: Tables, settings: Settings, version: int = SCHEMA_VERSION) -> dict:
    """The `wsim` metadata every part of a run shares (a part's adds `part`, last), in the form
    of schema version `version`. A second-edition run also records `edition` (after
    data_sha256; absent: the first edition, so a first-edition dataset's bytes are unchanged)."""
    edition = {"edition": tables.edition} if tables.edition != 1 else {}
    return {
        "schema_version": version,
        "wsim_version": __version__,
        "rules_version": RULES_VERSION,
        "data_sha256": tables.data_sha256,
        **edition,
        "seed": settings.seed,
        "players": settings.players,
        "policies": [_policy_entry(p, label, row, sha, model, version) for p, label, row, sha, model in
                     zip(settings.policies, settings.labels, settings.params, settings.weights_files,
                         settings.models)],
        "wonders": wonders_text(settings.wonders),
        "sides": settings.sides,
        "manneken_pis": settings.manneken_pis,
        "games": settings.games,
        "chunk_size": settings.chunk_size,
    }


def metadata(tables: Tables, settings: Settings, first_game: int, games: int, version: int = SCHEMA_VERSION) -> dict:
    """The `wsim` key-value metadata of a part."""
    return {**run_meta(tables, settings, version), "part": {"first_game": first_game, "games": games}}


def _policy_entry(name: str, label: str, row, weights_sha256: str, model: str, version: int) -> dict:
    """A seat's policy in the metadata: its name, its label when it has one, every parameter
    (by name; a list in the kernels' row order before schema version 2), the sha256 of the
    weights file it plays, when one was given, and the model file of a seat that plays learned
    (its own: a run's learned seats may play different files; a rollout's over a learned base)."""
    entry = {"name": name}
    if label != name:
        entry["label"] = label
    entry["params"] = params_by_name(name, row) if version >= DESCRIBED else list(row)
    if weights_sha256:
        entry["weights_sha256"] = weights_sha256
    if model:  # a learned seat's, or a rollout's over a learned base
        entry["model"] = model
    return entry


def _array(values: np.ndarray, null: np.ndarray | None = None) -> pa.Array:
    """A numeric or bool numpy array as an Arrow array, `null` marking nulls. Built from buffers
    because `pa.array` imports pandas whenever it is installed (the analysis extra), which
    would slow every `wsim simulate` start by a fifth of a second."""
    values = np.ascontiguousarray(values)
    validity = None if null is None else pa.py_buffer(np.packbits(~null, bitorder="little"))
    if values.dtype == np.bool_:
        return pa.Array.from_buffers(pa.bool_(), len(values),
                                     [validity, pa.py_buffer(np.packbits(values, bitorder="little"))])
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), [validity, pa.py_buffer(values)])


def numpy_of(array) -> np.ndarray:
    """A null-free primitive Arrow array (or chunked array) as numpy, read from its data buffer
    (`to_numpy` imports pandas when it is installed: see _array)."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    dtype = np.dtype(array.type.to_pandas_dtype())
    return np.frombuffer(array.buffers()[1], dtype=dtype)[array.offset:array.offset + len(array)]


def _strings(texts: list) -> pa.Array:
    """A list of str as an Arrow string array (see _array for why not `pa.array`)."""
    encoded = [t.encode() for t in texts]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    return pa.Array.from_buffers(pa.string(), len(encoded), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])


def chunk_table(tables: Tables, settings: Settings, chunk: Chunk, version: int = SCHEMA_VERSION) -> pa.Table:
    """One row per (game, seat) of a chunk, in (game, seat) order, with the documented columns
    (at 2 players three rows a game, the Free City's last, and the column free_city), in the
    form of schema version `version` (wsim.dataset.columns)."""
    res = chunk.res
    games, n = res.shape[0], res.shape[1]
    rows = games * n
    flat = res.reshape(rows, -1)
    game = np.repeat(np.arange(chunk.first_game, chunk.first_game + games, dtype=np.int64), n)
    seat = np.tile(np.arange(n, dtype=np.int8), games)
    # a dictionary holds each label once (two seats may play one): pandas refuses repeated categories
    seat_labels = list(settings.labels) + ([FC_POLICY] if settings.free_city else [])
    labels = list(dict.fromkeys(seat_labels))
    label_of_seat = np.array([labels.index(label) for label in seat_labels], dtype=np.int8)
    policy = pa.DictionaryArray.from_arrays(_array(np.tile(label_of_seat, games)), _strings(labels))
    board_names = _strings(list(tables.board_ids))
    wonder = pa.DictionaryArray.from_arrays(_array(flat[:, RES_BOARD].astype(np.int8)), board_names)
    side = pa.DictionaryArray.from_arrays(_array(flat[:, RES_SIDE].astype(np.int8)), _strings(["A", "B"]))
    # cards: a list per row, values dictionary-encoded by building name (Loom for either age)
    counts = flat[:, RES_NCARDS].astype(np.int32)
    offsets = np.zeros(rows + 1, dtype=np.int32)
    np.cumsum(counts, out=offsets[1:])
    ids = chunk.cards.reshape(rows, -1)
    mask = np.arange(ids.shape[1])[None, :] < counts[:, None]
    name_ids = np.asarray(tables.card_name_id)[ids[mask]].astype(np.int16)
    names = pa.DictionaryArray.from_arrays(_array(name_ids), _strings(list(tables.names)))
    cards = pa.ListArray.from_arrays(_array(offsets), names)
    named = {"policy": policy, "wonder": wonder, "side": side}
    if version < DESCRIBED:  # plain strings, as schema version 1 wrote them
        named = {name: array.dictionary_decode() for name, array in named.items()}
    columns = {
        "game": _array(game),
        "seed": _array(np.full(rows, settings.seed, dtype=np.uint64)),
        "players": _array(np.full(rows, settings.players, dtype=np.int8)),
        "seat": _array(seat),
        **named,
    }
    for name, field in _VP_COLUMNS:
        columns[name] = _array(flat[:, field].astype(np.int16))
    columns["coins"] = _array(flat[:, RES_COINS].astype(np.int16))
    columns["shields"] = _array(flat[:, RES_SHIELDS].astype(np.int16))
    columns["stages"] = _array(flat[:, RES_STAGES].astype(np.int8))
    rank = flat[:, RES_RANK].astype(np.int8)
    columns["rank"] = _array(rank, null=rank == 0)  # the Free City's rank (0) is null
    columns["win"] = _array(flat[:, RES_RANK] == 1)
    columns["cards"] = cards
    if version >= COUNTED:
        for name, field in _COUNTER_COLUMNS:
            columns[name] = _array(flat[:, field].astype(np.int16))
    if settings.free_city:
        columns["free_city"] = _array(seat == FC_SEAT)
    return described(columns) if version >= DESCRIBED else pa.table(columns)


def part_name(index: int) -> str:
    """The file name of part `index`."""
    return f"part-{index:05d}.parquet"


def owns(name: str) -> bool:
    """Whether a file name is one that `wsim simulate` writes (a part or the manifest)."""
    return name == MANIFEST or PART_RE.match(name) is not None


def part_index(name: str) -> int:
    return int(PART_RE.match(name).group(1))


def run_metadata(meta: dict) -> dict:
    """A part's metadata less its `part` entry: what every part of one run shares."""
    return {k: v for k, v in meta.items() if k != "part"}


def encode(table: pa.Table, meta: dict, data_text: bytes) -> bytes:
    """The bytes of a part file: the table with its `wsim` and `wsim_data` metadata."""
    table = table.replace_schema_metadata({META_KEY: json.dumps(meta), DATA_KEY: data_text})
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue().to_pybytes()


def decode(blob: bytes, columns: list) -> tuple:
    """(PartHeader, table of `columns`) of a part file's bytes (DatasetError if it is not one)."""
    try:
        f = pq.ParquetFile(pa.BufferReader(blob))
        meta = f.schema_arrow.metadata or {}
        header = PartHeader("", json.loads(meta[META_KEY]), f.metadata.num_rows, meta.get(DATA_KEY))
        return header, f.read(columns=columns)
    except (OSError, KeyError, ValueError, pa.ArrowException) as e:
        raise DatasetError(f"not a wsim part file ({brief(str(e))})") from None


@dataclass
class PartHeader:
    """What a part file says about itself, read from its footer."""

    name: str
    meta: dict
    rows: int
    data_text: bytes | None
    schema: pa.Schema | None = None  # its columns (read from a file; None for a part just written)

    @property
    def first_game(self) -> int:
        return self.meta["part"]["first_game"]

    @property
    def games(self) -> int:
        return self.meta["part"]["games"]


def other_rules(meta: dict) -> str | None:
    """None when a run's metadata says this wsim's rules version, else what to say of it: the
    value as written (brief), so that a doctored "5" is not printed as if it were 5."""
    version = meta.get("rules_version")
    if is_whole(version, RULES_VERSION, RULES_VERSION):
        return None
    return f"written under rules version {brief(version)}, this wsim plays rules version {RULES_VERSION}"


def other_schema(meta: dict) -> str | None:
    """None when a run's metadata says a schema version this wsim writes, else what to say of it
    (the value as written, as other_rules says it)."""
    if schema_version(meta) is not None:
        return None
    return (f"written with schema version {brief(meta.get('schema_version'))}, this wsim writes versions "
            f"{', '.join(map(str, SCHEMA_VERSIONS))}")


def schema_version(meta: dict) -> int | None:
    """The schema version a dataset's run metadata records (1 when it records none), which its
    new parts keep; None when it is not one this wsim writes (columns.SCHEMA_VERSIONS)."""
    version = meta.get("schema_version", 1)
    return int(version) if any(is_whole(version, v, v) for v in SCHEMA_VERSIONS) else None


_REQUIRED_META = ("rules_version", "data_sha256", "seed", "players", "policies", "wonders", "sides",
                  "manneken_pis", "games", "chunk_size", "part")


def read_header(path: Path) -> PartHeader:
    """The footer of part file `path`; DatasetError if unreadable or not a wsim part.

    Only the form is checked here (keys present, part range of integers); the settings in it
    are checked by `wsim.run.settings.settings_from_metadata` before any kernel sees them.
    """
    try:
        with open_regular(path) as source:
            f = pq.ParquetFile(source)
            schema = f.schema_arrow
            meta = schema.metadata or {}
            rows = f.metadata.num_rows
    except NotRegularFile as e:
        raise DatasetError(f"{path}: {e}") from None
    except (OSError, pa.ArrowException) as e:
        raise DatasetError(f"{path}: not a readable Parquet file ({e})") from None
    if META_KEY not in meta:
        raise DatasetError(f"{path}: not written by wsim (no 'wsim' metadata)")
    try:
        doc = json.loads(meta[META_KEY])
    except ValueError:
        doc = None
    missing = [k for k in _REQUIRED_META if not isinstance(doc, dict) or k not in doc]
    if missing:
        raise DatasetError(f"{path}: its 'wsim' metadata is damaged (missing {', '.join(missing)})")
    part = doc["part"]
    if (not isinstance(part, dict) or set(part) != {"first_game", "games"}
            or not all(type(part[k]) is int and 0 <= part[k] < 2**63 for k in part)):
        raise DatasetError(f"{path}: its 'wsim' metadata is damaged (part must be {{first_game, games}})")
    return PartHeader(path.name, doc, rows, meta.get(DATA_KEY), schema)


def read_columns(path: Path, columns: list) -> pa.Table:
    """Some columns of a part, every value decoded (DatasetError if the file is damaged)."""
    try:
        with open_regular(path) as source:
            return pq.read_table(source, columns=columns)
    except NotRegularFile as e:
        raise DatasetError(f"{path}: {e}") from None
    except (OSError, pa.ArrowException) as e:
        raise DatasetError(f"{path}: damaged, its columns cannot be read ({e})") from None


def arrow_dataset(files) -> pa.dataset.Dataset:
    """Exactly these part files as one pyarrow dataset (lazy, read again by each query): the one
    way DuckDB, or anything else that would take a path for a pattern, reads a dataset's rows.
    DuckDB's read_parquet expands `*`, `?`, `[...]` in a path: it read the folder `gl1` for one
    named `gl[12]` (docs/interfaces.md §0: paths are literal); pyarrow takes a list of files as written."""
    import pyarrow.dataset as pds

    return pds.dataset([str(f) for f in files], format="parquet")


def part_files(out: Path) -> list:
    """The part files of a dataset folder, in part order."""
    try:
        names = [n for n in (p.name for p in Path(out).iterdir()) if PART_RE.match(n)]
    except OSError as e:
        raise DatasetError(f"{out}: cannot list the folder ({e.strerror or e})") from None
    return [Path(out) / n for n in sorted(names, key=part_index)]


def read_metadata(out: Path) -> PartHeader:
    """The header of a dataset's first part (every part carries the run's settings and has the
    dataset's schema)."""
    parts = part_files(out)
    if not parts:
        raise DatasetError(f"{out}: no wsim dataset here (no part-NNNNN.parquet files)")
    return read_header(parts[0])
