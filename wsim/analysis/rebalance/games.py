"""The games of a rebalance and what is kept of them: its runs played here or on a Dask cluster
(Games), each side's seats and wins (Rates), and the paired differences' mean and standard error.

Every run is played a chunk at a time (wsim.run.runner.play_chunks) and only tallies are kept:
each side's seats and wins, and, for the run the next levers are paired with, one bit per seat
(its wins), so memory is one chunk's arrays plus those bits (games x seats / 8 bytes), and a
signal ends the search within a kernel call (about half a second).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np

from wsim import codes
from wsim.analysis.rebalance.plan import Plan
from wsim.kernels.layout import RES_BOARD, RES_RANK, RES_SIDE
from wsim.run.settings import Settings
from wsim.tables import Tables


class Games:
    """Plays a plan's runs, here or on a Dask cluster, a chunk at a time (module docstring); every
    game played is counted, and shown by `tracker` (wsim.run.progress) when one is given."""

    def __init__(self, cluster=None, threads: int | None = None, tracker=None):
        self.cluster, self.threads, self.tracker = cluster, threads, tracker
        self.games = 0  # played so far

    def _played(self, count: int):
        self.games += count
        if self.tracker is not None:
            self.tracker.advance(count)

    def chunks(self, t: Tables, settings: Settings):
        """Yield the res rows of games 0..settings.games-1 of `settings` with data t, in game order,
        a chunk at a time (wsim.run.runner.CHUNK_GAMES; CLUSTER_CHUNK_GAMES on a cluster)."""
        from wsim.run import runner

        if self.cluster is None:
            for _, res in runner.play_chunks(runner.Runner(t, settings), 0, settings.games, self._played):
                yield res
            return
        from wsim.run.cluster import play_ranges

        for at, count in runner.chunk_ranges(0, settings.games, runner.CLUSTER_CHUNK_GAMES):
            (res,) = play_ranges(self.cluster, t.raw, [(settings, at, count)], self.threads or 1, self._played)
            yield res


@dataclass
class Rates:
    """Per side (players, board, side): the seats and wins of one run, and each player count's
    fair share; `bits` keeps, for the run the levers are paired with, every seat's win (one bit
    a seat, chunk by chunk, in game and seat order)."""

    seats: dict = field(default_factory=dict)  # key -> seats
    wins: dict = field(default_factory=dict)  # key -> wins
    fair: dict = field(default_factory=dict)  # players -> the run's mean win rate per seat
    bits: dict = field(default_factory=dict)  # players -> [np.packbits of each chunk's per-seat wins]

    def rate(self, key) -> float:
        n = self.seats.get(key, 0)
        return self.wins[key] / n if n else math.nan

    def deviation(self) -> float:
        """The largest |rate - fair share| over the sides."""
        return max(abs(self.rate(k) - self.fair[k[0]]) for k in self.seats if self.seats[k])

    def excess(self, tolerance: float, sides=None) -> float:
        """The sides' deviations beyond the tolerance, summed (over `sides` only, if given)."""
        return sum(max(0.0, abs(self.rate(k) - self.fair[k[0]]) - tolerance) for k in self.seats
                   if self.seats[k] and (sides is None or k in sides))


def seats_of(players: int, res: np.ndarray) -> tuple:
    """(side index board * 2 + side, win) of every player seat of `res`, in game and seat order
    (the Free City's seat left out)."""
    seats = codes.FC_PLAYERS if players == codes.FC_PLAYERS else res.shape[1]
    board = res[:, :seats, RES_BOARD].ravel().astype(np.int64)
    side = res[:, :seats, RES_SIDE].ravel().astype(np.int64)
    return board * 2 + side, res[:, :seats, RES_RANK].ravel() == 1


class Tally:
    """One player count's run, counted chunk by chunk: seats and wins per side index."""

    def __init__(self, players: int, t: Tables, keep_bits: bool = False):
        self.players, self.size = players, 2 * t.n_boards
        self.seats = np.zeros(self.size, dtype=np.int64)
        self.wins = np.zeros(self.size, dtype=np.int64)
        self.bits = [] if keep_bits else None

    def add(self, index: np.ndarray, win: np.ndarray):
        self.seats += np.bincount(index, minlength=self.size)
        self.wins += np.bincount(index[win], minlength=self.size)
        if self.bits is not None:
            self.bits.append(np.packbits(win))

    def into(self, out: Rates):
        """Add the counts to `out`, sides in board then side order (as the report lists them)."""
        for k in np.flatnonzero(self.seats):
            key = (self.players, int(k) // 2, int(k) % 2)
            out.seats[key], out.wins[key] = int(self.seats[k]), int(self.wins[k])
        out.fair[self.players] = float(self.wins.sum() / self.seats.sum())
        if self.bits is not None:
            out.bits[self.players] = self.bits


def measure(games: Games, t: Tables, plan_: Plan, seed: int, keep_bits: bool = False) -> Rates:
    """Every player count's N games (seed `seed`) with data t; keep_bits: keep every seat's win,
    for the levers' measurements paired with this run (lever_sums)."""
    out = Rates()
    for p, settings in plan_.settings.items():
        tally = Tally(p, t, keep_bits)
        for res in games.chunks(t, dataclasses.replace(settings, seed=seed, games=plan_.games)):
            tally.add(*seats_of(p, res))
        tally.into(out)
    return out


def lever_sums(games: Games, t: Tables, plan_: Plan, seed: int, now: Rates) -> dict:
    """key -> (sum of d, sum of d²) over the seats of each side, d = a seat's win with data t minus
    its win in `now` (the same games: the same seats, in the same order; now kept its bits)."""
    out = {}
    for p, settings in plan_.settings.items():
        size = 2 * t.n_boards
        first, second = np.zeros(size), np.zeros(size)
        runs = games.chunks(t, dataclasses.replace(settings, seed=seed, games=plan_.games))
        for res, bits in zip(runs, now.bits[p], strict=True):
            index, win = seats_of(p, res)
            d = win.astype(np.int64) - np.unpackbits(bits, count=len(win))
            first += np.bincount(index, weights=d, minlength=size)
            second += np.bincount(index, weights=np.abs(d), minlength=size)
        for k in range(size):
            key = (p, k // 2, k % 2)
            if key in now.seats:
                out[key] = (int(first[k]), int(second[k]))
    return out


def paired_mean_se(n: int, first: int, second: int) -> tuple:
    """(mean, standard error of the mean) of n paired differences d in {-1, 0, 1} from their
    sum and sum of squares (the sample standard deviation, ddof 1; 0 below two seats)."""
    mean = first / n
    if n < 2:
        return mean, 0.0
    squares = max(0.0, second - first * first / n)  # the sum of (d - mean)², never below 0 by rounding
    return mean, math.sqrt(squares / (n - 1)) / math.sqrt(n)
