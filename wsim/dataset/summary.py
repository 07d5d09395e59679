"""The running summary of a dataset's rows, for the end-of-run report (the text: wsim.cli.render).
Running sums only: memory stays flat in the number of games."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from wsim import codes
from wsim.dataset import parts
from wsim.people.aggregate import Aggregate, aggregate
from wsim.run.settings import cities_of

# the columns Summary.add reads (a part read back for the summary needs no more)
COLUMNS = [f"vp_{c}" for c in codes.CATEGORIES] + ["vp_total", "seat", "wonder", "side", "win", "game", "rank",
                                                    "stages", "shields"]


@dataclass
class Summary:
    """Running totals of a dataset, for the end-of-run report. At 2 players the means and win
    rates are the players' (seats 0 and 1); the Free City's mean total is shown apart."""

    players: int
    policies: tuple = ()  # the players' policies (labels), seat by seat
    games: int = 0
    played: int = 0
    seconds: float = 0.0  # playing only: loading or compiling the kernels is counted apart
    kernels: str = ""  # how the kernels were made ready, for the summary (start-up, kept apart)
    points: np.ndarray = field(default_factory=lambda: np.zeros(len(codes.CATEGORIES) + 1, dtype=np.int64))
    free_city_points: int = 0
    seats_by_board: dict = field(default_factory=dict)  # (wonder id, side) -> [seats, wins]
    # the parts' seats summed for a comparison with people (docs/people.md); the players' seats
    # only (2 players: people have no such games, and the Free City is no player)
    people: Aggregate = field(default_factory=Aggregate)

    def add(self, table: pa.Table):
        """Add one part's rows (the dataset's columns)."""
        self.games += table.num_rows // cities_of(self.players)
        if self.players == codes.FC_PLAYERS:
            is_fc = pc.equal(table["seat"], codes.FC_SEAT)
            self.free_city_points += pc.sum(table.filter(is_fc)["vp_total"]).as_py() or 0
            table = table.filter(pc.invert(is_fc))
        if self.players != codes.FC_PLAYERS:
            self.people = self.people + aggregate(self._seats(table))
        for i, name in enumerate([f"vp_{c}" for c in codes.CATEGORIES] + ["vp_total"]):
            self.points[i] += pc.sum(table[name]).as_py() or 0
        # counted with numpy: Table.group_by loads pyarrow's query engine, which imports pandas
        # when it is installed and would slow every start (see parts._array)
        wonder, side = (pc.dictionary_encode(table[c]).combine_chunks() for c in ("wonder", "side"))
        key = parts.numpy_of(wonder.indices).astype(np.int64) * len(side.dictionary) + parts.numpy_of(side.indices)
        size = len(wonder.dictionary) * len(side.dictionary)
        seats = np.bincount(key, minlength=size)
        won = parts.numpy_of(pc.cast(table["win"], pa.int8()))
        wins = np.bincount(key, weights=won, minlength=size)
        for k in np.flatnonzero(seats):
            board = (str(wonder.dictionary[k // len(side.dictionary)]), str(side.dictionary[k % len(side.dictionary)]))
            entry = self.seats_by_board.setdefault(board, [0, 0])
            entry[0] += int(seats[k])
            entry[1] += int(wins[k])

    def _seats(self, table: pa.Table) -> dict:
        """One part's rows as a seat table (wsim.people.aggregate.SEAT_COLUMNS; a part holds whole games)."""
        seats = {c: parts.numpy_of(pc.cast(table[c], pa.int64())) for c in
                 ("game", "rank", "vp_total", "stages", "shields", *(f"vp_{c}" for c in codes.CATEGORIES))}
        for c in ("wonder", "side"):  # by their dictionaries: a string array's to_numpy would import pandas
            coded = pc.dictionary_encode(table[c]).combine_chunks()
            names = np.asarray(pc.cast(coded.dictionary, pa.string()).to_pylist(), dtype=str)
            seats[c] = names[parts.numpy_of(coded.indices).astype(np.int64)]
        seats["players"] = np.full(table.num_rows, self.players, dtype=np.int64)
        return seats
