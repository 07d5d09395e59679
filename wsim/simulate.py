"""`wsim simulate`: play a run chunk by chunk, write each chunk as a Parquet part, summarise.

Memory stays flat in the number of games: one chunk's arrays and table at a time, and the
summary keeps running sums only.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from wsim import codes, io
from wsim.kernels.layout import RES_BOARD, RES_MILITARY, RES_RANK, RES_SIDE, RES_TOTAL
from wsim.run import Chunk, Runner, Settings
from wsim.tables import Tables

PROGRESS_BATCH = 20_000  # games per kernel call inside a chunk, so progress can be shown


@dataclass
class Summary:
    """Running totals of a run, for the end-of-run report."""

    players: int
    games: int = 0
    seconds: float = 0.0
    points: np.ndarray = field(default_factory=lambda: np.zeros(len(codes.CATEGORIES) + 1, dtype=np.int64))
    seats_by_board: dict = field(default_factory=dict)  # (board, side) -> [seats, wins]

    def add(self, res: np.ndarray):
        flat = res.reshape(-1, res.shape[-1]).astype(np.int64)
        self.games += res.shape[0]
        self.points += flat[:, RES_MILITARY:RES_TOTAL + 1].sum(axis=0)
        key = flat[:, RES_BOARD] * 2 + flat[:, RES_SIDE]
        seats = np.bincount(key, minlength=32)
        wins = np.bincount(key, weights=flat[:, RES_RANK] == 1, minlength=32)
        for k in np.nonzero(seats)[0]:
            entry = self.seats_by_board.setdefault((int(k) // 2, int(k) % 2), [0, 0])
            entry[0] += int(seats[k])
            entry[1] += int(wins[k])

    def text(self, tables: Tables) -> str:
        """The end-of-run summary: speed, mean points by category, win rate by wonder and side."""
        rows = max(1, self.games * self.players)
        rate = self.games / self.seconds if self.seconds > 0 else float("inf")
        lines = [f"{self.games:,} games of {self.players} players in {self.seconds:.1f} s "
                 f"({rate:,.0f} games/s)", "", "mean points per seat:"]
        names = list(codes.CATEGORIES) + ["total"]
        lines.append("  " + "  ".join(f"{n:>10}" for n in names))
        lines.append("  " + "  ".join(f"{v / rows:>10.2f}" for v in self.points))
        lines += ["", f"win rate by wonder and side (a fair share is {1 / self.players:.1%}; "
                      "shared victories count for every winner):"]
        for (board, side), (seats, wins) in sorted(self.seats_by_board.items()):
            lines.append(f"  {tables.board_ids[board]:<14} {'AB'[side]}  {wins / seats:6.1%}  of {seats:,} seats")
        return "\n".join(lines)


def _progress(done: int, total: int, started: float):
    rate = done / max(time.perf_counter() - started, 1e-9)
    sys.stderr.write(f"\r  {done:,} / {total:,} games ({rate:,.0f} games/s)")
    sys.stderr.flush()


def simulate(tables: Tables, settings: Settings, out: Path, overwrite: bool, progress: bool) -> Summary:
    """Play the run and write its dataset to `out`; returns the summary.

    The dataset appears only whole: parts are renamed into place when complete, and an old
    dataset (with overwrite) is replaced only when the new run has finished. On any exception,
    KeyboardInterrupt included, temporary files are removed and the exception propagates.
    """
    replace = io.check_target(out, overwrite)
    runner = Runner(tables, settings)
    summary = Summary(settings.players)
    writer = io.DatasetWriter(out, replace)
    started = time.perf_counter()
    try:
        for index, first in enumerate(range(0, settings.games, settings.chunk_size)):
            games = min(settings.chunk_size, settings.games - first)
            pieces = []
            for sub in range(first, first + games, PROGRESS_BATCH):
                pieces.append(runner.play(sub, min(PROGRESS_BATCH, first + games - sub)))
                if progress:
                    _progress(sub + pieces[-1].res.shape[0], settings.games, started)
            chunk = pieces[0] if len(pieces) == 1 else _concat(pieces)
            summary.add(chunk.res)
            writer.write(index, io.chunk_table(tables, settings, chunk),
                         io.metadata(tables, settings, first, games))
        writer.commit()
    except BaseException:
        writer.abort()
        raise
    finally:
        if progress:
            sys.stderr.write("\n")
    summary.seconds = time.perf_counter() - started
    return summary


def _concat(pieces: list) -> Chunk:
    return Chunk(pieces[0].first_game, np.concatenate([p.res for p in pieces]),
                 np.concatenate([p.cards for p in pieces]), pieces[0].log, pieces[0].n_log)
