"""How much of the game a population of players uses, from result rows alone.

A *mechanic* here is one wonder stage of one board side (stage k is built when a seat holding
that side has built at least k stages: stages are built in order) or one way of scoring that
a player has to choose (civilian, science, commercial, guild and military points above zero).
Its *use* is the share of the seats that could use it which did. The agents issue asks that
in heuristic self-play every stage of every side be built in at least USE_FLOOR of the seats
holding that side; `wsim tune` rewards a candidate's self-play for reaching that floor on every
mechanic, so that the fitted weights leave no part of the game unplayed.
"""

from __future__ import annotations

import numpy as np

from wsim.kernels.layout import (RES_BOARD, RES_CIVILIAN, RES_COMMERCIAL, RES_GUILD, RES_MILITARY, RES_SCIENCE,
                                 RES_SIDE, RES_STAGES)
from wsim.tables import Tables

USE_FLOOR = 0.30
MIN_SEATS = 20  # a side held by fewer seats is not judged (too few to estimate its use)
SCORING = (("civilian", RES_CIVILIAN), ("science", RES_SCIENCE), ("commercial", RES_COMMERCIAL),
           ("guild", RES_GUILD), ("military", RES_MILITARY))


def usage(tables: Tables, res: np.ndarray, players: int) -> dict:
    """{mechanic: (seats that used it, seats that could)} over the player seats of `res`
    (int16[games, cities, RES_COUNT]); stage mechanics are named "BOARD/SIDE stage K"."""
    rows = res[:, :players, :].reshape(-1, res.shape[2]).astype(np.int64)
    out = {}
    for name, col in SCORING:
        out[f"{name} points"] = (int((rows[:, col] > 0).sum()), len(rows))
    for b, wid in enumerate(tables.board_ids):
        for side in range(2):
            held = rows[(rows[:, RES_BOARD] == b) & (rows[:, RES_SIDE] == side)]
            for k in range(1, int(tables.board_stages[b, side]) + 1):
                out[f"{wid}/{'AB'[side]} stage {k}"] = (int((held[:, RES_STAGES] >= k).sum()), len(held))
    return out


def shortfall(use: dict) -> float:
    """Sum over the judged mechanics of how far their use falls below USE_FLOOR (0 when every
    one reaches it); a mechanic with fewer than MIN_SEATS seats is not judged."""
    return sum(max(0.0, USE_FLOOR - used / seats) for used, seats in use.values() if seats >= MIN_SEATS)
