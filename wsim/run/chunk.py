"""Chunk: what the kernels return for a range of games. A leaf module (numpy only), so that the
dataset code can name it without importing the kernels."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Chunk:
    """The kernel's output for games first_game .. first_game + games - 1."""

    first_game: int
    res: np.ndarray  # int16[games, cities, RES_COUNT] (wsim.kernels.layout RES_*)
    cards: np.ndarray  # int16[games, cities, MAX_CITY]
    log: np.ndarray  # int16[games, MAX_EVENTS, len(EVENT_COLUMNS)] or empty
    n_log: np.ndarray  # int32[games] or empty
