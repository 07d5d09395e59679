"""Teacher games: games of given seats, each sampled decision's afterstate input recorded with
the deciding seat's outcome (kernels/tape.py), as arrays (wsim/agents/learn.py writes them).

A recorded game is the very game `wsim simulate` plays with the same settings (the sampling has
a stream of its own), so a teacher's data can be checked against its dataset. Games are played in
blocks of BLOCK_GAMES at most, one block per kernel call on the threads, each with its own tape;
blocks are joined in game order, so the data do not depend on the threads (nor on a cluster's
tasks: wsim.run.cluster.record_ranges).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from wsim.codes import N_AGES, TURNS_PER_AGE
from wsim.kernels.game import new_scratch, new_state
from wsim.kernels.layout import MAX_CITY, RES_COUNT
from wsim.kernels.learned import T_GAME, TAPE_META, input_layout, new_tape, no_model
from wsim.kernels.observe import tables_layout
from wsim.kernels.schema import Log, Results
from wsim.kernels.tape import record_games
from wsim.movelog import EVENT_COLUMNS
from wsim.run.runner import Runner
from wsim.run.settings import Settings
from wsim.tables import Tables

META_COLUMNS = ("game", "seat", "kind", "age", "turn", "total", "margin", "win")
BLOCK_GAMES = 1_000  # games per kernel call at most: progress is counted a call at a time
assert len(META_COLUMNS) == TAPE_META


def record(tables: Tables, settings: Settings, first_game: int, games: int, rate: float, explore: float,
           tape_seed: int, threads: int = 1, on_progress=None) -> tuple:
    """(inputs float32[R, L], facts int32[R, TAPE_META]) of games first_game .. + games - 1 of the
    settings, each decision recorded with probability `rate`, and a recorded one played by a
    uniform legal option with probability `explore` (T_GAME: the game's index); on_progress(games)
    after each block."""
    runner = Runner(tables, settings)
    lay = input_layout(tables_layout(tables))
    model = runner.model if runner.model is not None else no_model(lay)  # one family for every teacher
    blocks = max(threads, -(-games // BLOCK_GAMES))
    edges = [first_game + games * k // blocks for k in range(blocks + 1)]

    def block(lo: int, hi: int) -> tuple:
        count = hi - lo
        # room for the expected rows and six standard deviations more; a tape that overflows says so
        expected = count * settings.cities * (TURNS_PER_AGE + 1) * N_AGES * rate
        capacity = int(expected + 6 * expected ** 0.5 + 64)
        tape = new_tape(lay, capacity, rate, explore)
        n = tape.count
        res = np.zeros((settings.cities, RES_COUNT), np.int16)
        cards = np.zeros((settings.cities, MAX_CITY), np.int16)
        out = Results(res, cards, Log(np.zeros((0, 1, len(EVENT_COLUMNS)), np.int16), np.zeros(0, np.int32), 0))
        st, sc = new_state(), new_scratch()
        record_games(runner.ent, runner.board, runner.run[0], lo, count, out, st[0], sc[0],
                     runner.search, model, tape, np.uint64(tape_seed))
        if n[0] > capacity:
            raise RuntimeError(f"teacher games {lo}..{hi - 1}: more sampled decisions than the tape's {capacity:,} rows")
        rows, meta = tape.rows[:n[0]].copy(), tape.meta[:n[0]].copy()  # not the whole tape's capacity
        meta[:, T_GAME] += lo
        return rows, meta

    parts = []
    with ThreadPoolExecutor(threads) as pool:
        for (lo, hi), part in zip(zip(edges, edges[1:]), pool.map(lambda b: block(*b), zip(edges, edges[1:]))):
            parts.append(part)
            if on_progress:
                on_progress(hi - lo)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
