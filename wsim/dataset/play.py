"""One part of a run, played into the bytes of its Parquet file: the same function for a
local run (wsim.dataset.write) and for the task a Dask worker runs (part_task, submitted by
wsim.run.cluster.play_parts)."""

from __future__ import annotations

from typing import Callable

import pyarrow as pa

from wsim.dataset import parts
from wsim.run.chunk import Chunk
from wsim.run.settings import Settings, settings_from_metadata
from wsim.tables import Tables


def play_part(tables: Tables, settings: Settings, index: int, data_text: bytes,
              play: Callable[[int, int], Chunk], version: int) -> tuple[bytes, pa.Table, dict]:
    """(part file bytes, its table, its metadata) of part `index` in schema version `version`;
    play(first, games) plays the part's games (how: the caller's threads, pacing and locks)."""
    first, games = settings.part(index)
    table = parts.chunk_table(tables, settings, play(first, games), version)
    meta = parts.metadata(tables, settings, first, games, version)
    return parts.encode(table, meta, data_text), table, meta


def part_task(data_text: bytes, run_meta: dict, index: int, threads: int) -> bytes:
    """Play part `index` of the run described by `run_meta` (a part's metadata without `part`)
    on a Dask worker and return the part file's bytes, as a local run would write them (in the
    schema version `run_meta` records: a resumed dataset keeps its own)."""
    from wsim.run import tasks  # only a Dask worker loads the worker's side of --dask

    tables = tasks.worker_tables(data_text)
    settings = settings_from_metadata(run_meta, tables)
    blob, _, _ = play_part(tables, settings, index, data_text,
                           lambda first, games: tasks.play_locked(tables, settings, first, games, threads),
                           run_meta["schema_version"])
    return blob
