"""The Parquet dataset of `wsim simulate` (INTERFACES section 2): schema, metadata, atomic parts.

A dataset is a folder of part-NNNNN.parquet files, in game order. Each part is written as a
hidden .part-NNNNN.parquet.tmp and renamed when complete, so readers never see half a part.
When a run replaces an old dataset (--overwrite), its parts are written to a hidden staging
folder beside the dataset and swapped in only when the whole run has completed; files in the
folder that are not part files are left alone.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from wsim import RULES_VERSION, __version__
from wsim.kernels.layout import (RES_BOARD, RES_CIVILIAN, RES_COINS, RES_COMMERCIAL, RES_GUILD, RES_MILITARY,
                                 RES_NCARDS, RES_RANK, RES_SCIENCE, RES_SHIELDS, RES_SIDE, RES_STAGES,
                                 RES_TOTAL, RES_TREASURY, RES_WONDER)
from wsim.run import Chunk, Settings
from wsim.tables import Tables

SCHEMA_VERSION = 1
PART_RE = re.compile(r"^part-(\d{5,})\.parquet$")

_VP_COLUMNS = (
    ("vp_military", RES_MILITARY), ("vp_treasury", RES_TREASURY), ("vp_wonder", RES_WONDER),
    ("vp_civilian", RES_CIVILIAN), ("vp_science", RES_SCIENCE), ("vp_commercial", RES_COMMERCIAL),
    ("vp_guild", RES_GUILD), ("vp_total", RES_TOTAL),
)


class DatasetError(ValueError):
    """A dataset folder that cannot be written or read as asked."""


def metadata(tables: Tables, settings: Settings, first_game: int, games: int) -> dict:
    """The `wsim` key-value metadata of a part."""
    return {
        "schema_version": SCHEMA_VERSION,
        "wsim_version": __version__,
        "rules_version": RULES_VERSION,
        "data_sha256": tables.data_sha256,
        "seed": settings.seed,
        "players": settings.players,
        "policies": [{"name": p, "params": row.tolist()}
                     for p, row in zip(settings.policies, settings.policy_params())],
        "wonders": settings.wonders,
        "sides": settings.sides,
        "manneken_pis": settings.manneken_pis,
        "games": settings.games,
        "chunk_size": settings.chunk_size,
        "part": {"first_game": first_game, "games": games},
    }


def chunk_table(tables: Tables, settings: Settings, chunk: Chunk) -> pa.Table:
    """One row per (game, seat) of a chunk, in (game, seat) order, with the documented columns."""
    res = chunk.res
    games, n = res.shape[0], res.shape[1]
    rows = games * n
    flat = res.reshape(rows, -1)
    game = np.repeat(np.arange(chunk.first_game, chunk.first_game + games, dtype=np.int64), n)
    seat = np.tile(np.arange(n, dtype=np.int8), games)
    policy_dict = pa.array(list(settings.policies), type=pa.string())
    policy = pa.DictionaryArray.from_arrays(pa.array(np.tile(np.arange(n, dtype=np.int8), games)), policy_dict)
    board_names = pa.array(list(tables.board_ids), type=pa.string())
    wonder = pa.DictionaryArray.from_arrays(pa.array(flat[:, RES_BOARD].astype(np.int8)), board_names)
    side = pa.DictionaryArray.from_arrays(pa.array(flat[:, RES_SIDE].astype(np.int8)), pa.array(["A", "B"]))
    # cards: a list per row, values dictionary-encoded by building name (Loom for either age)
    counts = flat[:, RES_NCARDS].astype(np.int32)
    offsets = np.zeros(rows + 1, dtype=np.int32)
    np.cumsum(counts, out=offsets[1:])
    ids = chunk.cards.reshape(rows, -1)
    mask = np.arange(ids.shape[1])[None, :] < counts[:, None]
    name_ids = np.asarray(tables.card_name_id)[ids[mask]].astype(np.int16)
    names = pa.DictionaryArray.from_arrays(pa.array(name_ids), pa.array(list(tables.names), type=pa.string()))
    cards = pa.ListArray.from_arrays(pa.array(offsets), names)
    columns = {
        "game": pa.array(game),
        "seed": pa.array(np.full(rows, settings.seed, dtype=np.uint64)),
        "players": pa.array(np.full(rows, n, dtype=np.int8)),
        "seat": pa.array(seat),
        "policy": policy.dictionary_decode(),
        "wonder": wonder.dictionary_decode(),
        "side": side.dictionary_decode(),
    }
    for name, field in _VP_COLUMNS:
        columns[name] = pa.array(flat[:, field].astype(np.int16))
    columns["coins"] = pa.array(flat[:, RES_COINS].astype(np.int16))
    columns["shields"] = pa.array(flat[:, RES_SHIELDS].astype(np.int16))
    columns["stages"] = pa.array(flat[:, RES_STAGES].astype(np.int8))
    columns["rank"] = pa.array(flat[:, RES_RANK].astype(np.int8))
    columns["win"] = pa.array(flat[:, RES_RANK] == 1)
    columns["cards"] = cards
    return pa.table(columns)


def check_target(out: Path, overwrite: bool) -> bool:
    """Refuse a non-empty folder unless overwrite. Returns whether it holds anything.

    With overwrite, the old dataset (its part files) is replaced when the new run completes;
    other files in the folder are never deleted (a warning names them).
    """
    if out.exists() and not out.is_dir():
        raise DatasetError(f"--out: {out} exists and is not a folder")
    if not out.exists() or not any(out.iterdir()):
        return False
    if not overwrite:
        raise DatasetError(f"--out: {out} is not empty (use --overwrite to replace the dataset in it)")
    return True


def strangers(out: Path) -> list:
    """Names in a dataset folder that are not wsim part files (kept by --overwrite)."""
    return sorted(p.name for p in out.iterdir() if not PART_RE.match(p.name))


def part_name(index: int) -> str:
    return f"part-{index:05d}.parquet"


def _part_index(path: Path) -> int:
    return int(PART_RE.match(path.name).group(1))


class DatasetWriter:
    """Writes the parts of one run; `commit` makes them the dataset, `abort` removes them.

    Parts of a replacement are staged in a hidden sibling folder (.NAME.wsim-staging-*), never
    inside the dataset, so readers of the folder see the old dataset, whole, until commit.
    """

    def __init__(self, out: Path, replace: bool):
        self.out = out
        self.replace = replace
        try:
            out.mkdir(parents=True, exist_ok=True)
            self.dir = (Path(tempfile.mkdtemp(prefix=f".{out.name}.wsim-staging-", dir=out.resolve().parent))
                        if replace else out)
        except OSError as e:
            raise DatasetError(f"--out: cannot write to {out} ({e.strerror or e})") from None
        self.written: list = []

    def write(self, index: int, table: pa.Table, meta: dict):
        """Write part `index` atomically (temporary hidden name, then rename)."""
        table = table.replace_schema_metadata({"wsim": json.dumps(meta)})
        final = self.dir / part_name(index)
        tmp = self.dir / f".{part_name(index)}.tmp"
        try:
            pq.write_table(table, tmp, compression="zstd")
            os.replace(tmp, final)
        except OSError as e:
            raise DatasetError(f"--out: cannot write {final} ({e.strerror or e})") from None
        self.written.append(final)

    def commit(self):
        """Make the written parts the dataset (replacing the old one, if any)."""
        if not self.replace:
            return
        for old in self.out.iterdir():
            if PART_RE.match(old.name):
                old.unlink()
        for part in self.written:
            os.replace(part, self.out / part.name)
        shutil.rmtree(self.dir, ignore_errors=True)

    def abort(self):
        """Remove temporary files; a replacement's staged parts go too (old dataset untouched)."""
        if self.replace:
            shutil.rmtree(self.dir, ignore_errors=True)
            return
        for tmp in self.dir.glob(".part-*.parquet.tmp"):
            tmp.unlink(missing_ok=True)


_REQUIRED_META = ("rules_version", "data_sha256", "seed", "players", "policies", "wonders", "sides",
                  "manneken_pis", "games", "chunk_size")


def read_metadata(out: Path) -> dict:
    """The `wsim` metadata of a dataset's first part (every part carries the run's settings)."""
    parts = sorted((p for p in Path(out).glob("part-*.parquet") if PART_RE.match(p.name)), key=_part_index)
    if not parts:
        raise DatasetError(f"{out}: no wsim dataset here (no part-NNNNN.parquet files)")
    try:
        meta = pq.read_schema(parts[0]).metadata or {}
    except (OSError, pa.ArrowException) as e:
        raise DatasetError(f"{parts[0]}: not a readable Parquet file ({e})") from None
    if b"wsim" not in meta:
        raise DatasetError(f"{parts[0]}: not written by wsim (no 'wsim' metadata)")
    try:
        doc = json.loads(meta[b"wsim"])
    except ValueError:
        doc = None
    missing = [k for k in _REQUIRED_META if not isinstance(doc, dict) or k not in doc]
    if missing:
        raise DatasetError(f"{parts[0]}: its 'wsim' metadata is damaged (missing {', '.join(missing)})")
    return doc
