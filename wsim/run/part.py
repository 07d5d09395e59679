"""One part of a run, played into the bytes of its Parquet file: the same function for a
local run (wsim.run.batch) and for a task on a Dask worker (wsim.run.cluster)."""

from __future__ import annotations

from typing import Callable

import pyarrow as pa

from wsim.dataset import parts
from wsim.run.chunk import Chunk
from wsim.run.settings import Settings
from wsim.tables import Tables


def play_part(tables: Tables, settings: Settings, index: int, data_text: bytes,
              play: Callable[[int, int], Chunk]) -> tuple[bytes, pa.Table, dict]:
    """(part file bytes, its table, its metadata) of part `index`; play(first, games) plays
    the part's games (how: the caller's threads, pacing and locks)."""
    first, games = settings.part(index)
    table = parts.chunk_table(tables, settings, play(first, games))
    meta = parts.metadata(tables, settings, first, games)
    return parts.encode(table, meta, data_text), table, meta
