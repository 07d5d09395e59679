"""The kernels' runner: a run's games played in chunks on the threads, and one game's move log.

A run is a pure function of its Settings and the card data: game i of a run is played from
(seed, i) alone, so chunking and threads never change a value.

Threads are Python threads, each playing a block of games in kernels/game.play_games, which
releases the GIL: numba's parallel loops would compile another copy of the whole game (about
4 s of every cold start) and bring a threading layer that aborts when two threads of one
process enter it at once.
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from wsim import movelog, signals
from wsim.errors import whole_number
from wsim.codes import CATEGORIES, COUNTERS, FC_SEAT
from wsim.kernels.deal import deal
from wsim.kernels.game import new_run, new_scratch, new_state, play_games
from wsim.kernels.learned import empty_tape
from wsim.kernels.layout import (MAX_CITY, MAX_EVENTS, RES_BOARD, RES_CHAINED, RES_COINS, RES_COINS_PAID,
                                 RES_COINS_RECEIVED, RES_COUNT, RES_DISCARDS, RES_GUILD, RES_MILITARY, RES_NCARDS,
                                 RES_RANK, RES_SCIENCE, RES_SIDE, RES_STAGES, RES_TOTAL, kernel_tables)
from wsim.kernels.policy import P_COUNT, POLICY_ROLLOUT
from wsim.kernels.schema import Log, Results
from wsim.movelog import EVENT_COLUMNS
from wsim.run.chunk import Chunk
from wsim.run.settings import MAX_CHUNK, Settings, SettingsError, check_board_pool
from wsim.tables import Tables


class Runner:
    """Plays games of one Settings with the kernels (tables and arrays prepared once)."""

    def __init__(self, tables: Tables, settings: Settings):
        self.tables = tables
        self.settings = settings
        self.ent, self.board, self.n_cards = kernel_tables(tables)
        boards, sides = settings.board_spec(tables)
        check_board_pool(tables, boards, settings.promo_in_pool())
        self.board_spec = np.array(boards, dtype=np.int8)
        self.side_spec = np.array(sides, dtype=np.int8)
        self.policies = settings.policy_ids()
        self.params = settings.policy_params()
        assert self.params.shape == (settings.players, P_COUNT)
        # the policy family (kernels/game.py): only a run with a rollout seat compiles the search
        self.search = True if (self.policies == POLICY_ROLLOUT).any() else None
        self.model = _learned_model(tables, settings, self.policies, self.params)  # None: no learned seat
        self.tape = None if self.model is None else empty_tape(self.model.lay)
        self.run = new_run(settings.players, settings.seed, self.n_cards, settings.promo_in_pool(), self.board_spec,
                           self.side_spec, self.policies, self.params)

    def load(self):
        """Load this run's game kernel from numba's cache, or compile it on a first run: a call
        that plays no game, so that the first games are timed as play."""
        self.play(0, 0)

    def play(self, first_game: int, games: int, log: bool = False) -> Chunk:
        """Play `games` games from index first_game; with log, keep every game's move log."""
        cities = self.settings.cities
        res = np.zeros((games, cities, RES_COUNT), dtype=np.int16)
        cards = np.zeros((games, cities, MAX_CITY), dtype=np.int16)
        log_rows = games if log else 0
        events = np.zeros((log_rows, MAX_EVENTS, len(EVENT_COLUMNS)), dtype=np.int16)
        n_log = np.zeros(log_rows, dtype=np.int32)
        out = Results(res, cards, Log(events, n_log, 0))

        def block(lo: int, hi: int):
            st, sc = thread_records()
            play_games(self.ent, self.board, self.run[0], first_game, lo, hi, out, st[0], sc[0],
                       self.search, self.model, self.tape)

        in_blocks(games, block)
        signals.check()  # a signal swallowed while numba loaded the kernels ends the run here
        return Chunk(first_game, res, cards, events, n_log)


def _learned_model(tables: Tables, settings: Settings, policies, params):
    """wsim.run.model.seats_model for the run's seats, its errors a SettingsError."""
    from wsim.run.model import ModelError, seats_model
    try:
        return seats_model(tables, settings.models, policies, params, settings.weights_files)
    except ModelError as e:
        raise SettingsError(str(e)) from None


def check_learned(tables: Tables, settings: Settings):
    """Refuse (SettingsError), before any game, a learned seat whose model does not fit `tables`
    (an ablation's edited data: a replaced card is a building the model never saw)."""
    _learned_model(tables, settings, settings.policy_ids(), settings.policy_params())


BLOCKS_PER_THREAD = 4  # blocks of a kernel call per thread: a slow block delays the call less


def _blocks(games: int, threads: int) -> list:
    """[(lo, hi)] blocks of games 0..games-1 for `threads` threads (one block for one thread)."""
    count = max(1, min(games, 1 if threads == 1 else threads * BLOCKS_PER_THREAD))
    edges = [games * k // count for k in range(count + 1)]
    return list(zip(edges, edges[1:]))


_local = threading.local()


def in_blocks(count: int, work) -> None:
    """Call work(lo, hi) on the kernel threads for blocks covering 0..count-1 (on this thread
    when there is one block), and wait for them all."""
    bounds = _blocks(count, _threads)
    if len(bounds) == 1:
        work(*bounds[0])
        return
    for done in [_pool().submit(work, lo, hi) for lo, hi in bounds]:
        done.result()


def thread_records() -> tuple:
    """This thread's state and scratch records for play_games (one-record arrays, allocated
    once per thread)."""
    records = getattr(_local, "records", None)
    if records is None:
        records = _local.records = (new_state(), new_scratch())
    return records


_executor: tuple | None = None  # (threads, ThreadPoolExecutor)


def _pool() -> ThreadPoolExecutor:
    """The worker threads of kernel calls, as many as set_threads asked for."""
    global _executor
    if _executor is None or _executor[0] != _threads:
        if _executor is not None:
            _executor[1].shutdown(wait=True)
        _executor = (_threads, ThreadPoolExecutor(_threads, thread_name_prefix="wsim-kernel"))
    return _executor[1]


KERNEL_SECONDS = 0.5  # work per kernel call: a signal waits for the call to return
FIRST_CALL_GAMES = 4  # the first call also loads or compiles the kernels; a rollout game takes seconds


class Pacer:
    """Sizes kernel calls by time (about KERNEL_SECONDS each), whatever the policy's speed, so
    that progress, Ctrl-C and signals stay responsive with slow policies too."""

    def __init__(self):
        self.size = FIRST_CALL_GAMES

    def played(self, games: int, seconds: float):
        rate = games / max(seconds, 1e-6)
        # at least a game per kernel thread: a call of fewer games leaves threads idle (with a
        # slow policy, one game per call would play on one core whatever --threads says)
        self.size = int(min(max(rate * KERNEL_SECONDS, _threads), MAX_CHUNK))


def play_paced(runner: Runner, pacer: Pacer, first: int, games: int, on_progress=None) -> Chunk:
    """Games first .. first + games - 1 in calls sized by `pacer`, as one Chunk (no log)."""
    pieces = []
    at = first
    while at < first + games:
        size = min(pacer.size, first + games - at)
        started = time.perf_counter()
        pieces.append(runner.play(at, size))
        pacer.played(size, time.perf_counter() - started)
        at += size
        if on_progress:
            on_progress(size)
    if len(pieces) == 1:
        return pieces[0]
    return Chunk(first, np.concatenate([p.res for p in pieces]), np.concatenate([p.cards for p in pieces]),
                 pieces[0].log, pieces[0].n_log)


# Games a long run (a rebalance measurement, a ladder's pair, a tune candidate) plays and holds
# at a time when it keeps only tallies: at 7 players a chunk's arrays take about 66 MB, whatever
# the run's length. A run of its chunks is the same games as one call (game i comes from
# (seed, i) alone), played in kernel calls that the Pacer keeps near KERNEL_SECONDS, so that
# a signal is acted on within about that time.
CHUNK_GAMES = 100_000
CLUSTER_CHUNK_GAMES = 400_000  # the same for a --dask run, whose tasks send back res rows only (84 MB at 7 players)


def chunk_ranges(first: int, games: int, size: int = CHUNK_GAMES) -> list:
    """[(first game, games)] of games first .. first + games - 1, `size` at a time."""
    return [(at, min(size, first + games - at)) for at in range(first, first + games, size)]


SETS_COLUMN = RES_COUNT  # the column with_science_sets adds to res rows: a city's complete science sets


def with_science_sets(tables: Tables, chunk: Chunk) -> np.ndarray:
    """The chunk's res rows with one column more (SETS_COLUMN): each city's complete science sets
    at the final count (wsim.reference.science, from its buildings and stages, held to its
    science points)."""
    from wsim.reference import science

    res = chunk.res
    games, cities = res.shape[:2]
    owned = np.arange(MAX_CITY) < res[:, :, RES_NCARDS, None]  # a city's cards are the first ncards
    symbols = science.card_symbols(tables)[chunk.cards.astype(np.int64)]
    owner = np.broadcast_to(np.arange(games * cities).reshape(games, cities, 1), owned.shape)
    flat = res.reshape(games * cities, -1).astype(np.int64)
    sets = science.city_sets(tables, symbols[owned], owner[owned], flat[:, RES_BOARD], flat[:, RES_SIDE],
                             flat[:, RES_STAGES], flat[:, RES_SCIENCE])
    return np.concatenate([res, sets.astype(res.dtype).reshape(games, cities, 1)], axis=2)


def play_chunks(runner: Runner, first: int, games: int, on_progress=None, pacer: Pacer | None = None,
                size: int | None = None, sets: bool = False):
    """Yield (first game, res rows) of games first .. first + games - 1, `size` (CHUNK_GAMES) at a
    time (memory: one chunk's arrays), each chunk in kernel calls sized by the pacer;
    on_progress(n) after each call. sets: the rows carry SETS_COLUMN (with_science_sets)."""
    pacer = pacer or Pacer()
    for at, count in chunk_ranges(first, games, size or CHUNK_GAMES):
        chunk = play_paced(runner, pacer, at, count, on_progress)
        yield at, with_science_sets(runner.tables, chunk) if sets else chunk.res


def available_cores() -> int:
    """CPU cores this process may run on (its affinity, not the machine's total)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


_threads = available_cores()  # kernel threads in use (set_threads)


def set_threads(threads: int | None) -> int:
    """Use this many threads for the kernels (default: every core); returns the number."""
    global _threads
    most = available_cores()
    threads = most if threads is None else whole_number(threads, "threads", 1, most, SettingsError)
    _threads = threads
    return threads


COUNTER_FIELDS = tuple(zip(COUNTERS, (RES_DISCARDS, RES_CHAINED, RES_COINS_PAID, RES_COINS_RECEIVED)))


def final_from_res(res_game: np.ndarray, free_city: bool = False) -> dict:
    """The final breakdown of one game's result rows, in the move log's JSON form (the Free
    City's entry, at seat codes.FC_SEAT when free_city, has rank null and "free_city": true)."""
    players = []
    for seat, row in enumerate(res_game):
        d = {"seat": seat}
        for name, field in zip(CATEGORIES, range(RES_MILITARY, RES_GUILD + 1)):
            d[name] = int(row[field])
        d["total"] = int(row[RES_TOTAL])
        d["coins"] = int(row[RES_COINS])
        d["rank"] = int(row[RES_RANK])
        for name, field in COUNTER_FIELDS:
            d[name] = int(row[field])
        if free_city and seat == FC_SEAT:
            d["rank"] = None
            d["free_city"] = True
        players.append(d)
    return {"players": players, "winners": [p["seat"] for p in players if p["rank"] == 1]}


def logged_games(runner: Runner, first: int, games: int) -> list:
    """Games first .. first + games - 1 of a run, played again by the kernels (in one call, on
    the kernel threads) with logging on: per game (boards, sides, hands, events, final), the
    deal as lists, the integer events and the final breakdown (final_from_res)."""
    s = runner.settings
    chunk = runner.play(first, games, log=True)
    out = []
    for i in range(games):
        boards, sides, hands = deal(runner.tables, s.cities, s.seed, first + i, runner.board_spec,
                                    runner.side_spec, s.promo_in_pool())
        out.append((boards.tolist(), sides.tolist(), hands.tolist(), chunk.log[i, :chunk.n_log[i]].tolist(),
                    final_from_res(chunk.res[i], s.free_city)))
    return out


def game_log(runner: Runner, game: int) -> dict:
    """The JSON move log of one game of a run, played again by the kernels with logging on."""
    s = runner.settings
    boards, sides, hands, events, final = logged_games(runner, game, 1)[0]
    return movelog.to_json(runner.tables, s.seed, game, boards, sides, hands, events, final, free_city=s.free_city)


