"""The kernels' data layout: every offset constant, derived from kernels/schema.py.

A run's settings travel as one numpy record (RUN), a game's state as another (STATE), a game
loop's scratch as a third (SCRATCH): numba passes a record by reference, and a kernel names its arrays at entry (`seat = st.seat`),
which costs less than passing the arrays one by one (studies/handle_forms.py measures the forms).
The tables stay plain 2-D integer arrays.

Each packed row of schema.py gives this module one constant per field, the prefix and the
field's name in capitals (ENTITY "coin_cost" -> E_COIN_COST, SEAT "hand_n" -> F_HAND_N), and
PREFIX_COUNT, the row's width; the limits (MAX_*, DEAL_*) are schema.py's. The arrays:

  ent   int32[E, E_COUNT]   the compiled tables' entities (Tables.ent), read-only
  board int32[B, B_COUNT]   the boards (Tables.board), read-only
  run   a RUN record: a run's settings and every seat's policy (below)
  st    a STATE record: the whole state of one game (kernels/step.py; its fields below)
  sc    a SCRATCH record: a game loop's working arrays (its fields below)
  res   int16[game, seat, RES_COUNT] results; cards[game, seat, MAX_CITY] int16 card ids in
        build order
  log   a schema.Log record: the games' move logs (a log with zero rows turns logging off), and
        the other run-time records (book, views, tmp, slots, model, tape, alay): kernels/schema.py

{schema}
"""

import numpy as np

from wsim.kernels import schema

__doc__ = __doc__.format(schema=schema.describe())

# E_*, B_*, C_*, F_*, M_*, G_*, RES_* (module docstring), and the limits MAX_* and DEAL_*: taken
# from schema.py, so that a field or a limit is named in one place only
for _row in schema.ROWS:
    globals().update(_row.constants())
globals().update({k: v for k, v in vars(schema).items() if k.startswith(("MAX_", "DEAL_"))})

RUN, STATE, SCRATCH = (np.dtype([(name, dtype, shape) for name, dtype, shape, _ in fields], align=True)
                       for fields in (schema.RUN, schema.STATE, schema.SCRATCH))

# The move row's sentinels: one value, one meaning, whatever the column (schema.MOVE)
NO_CARD = -1  # M_SLOT and M_CARD of a row that plays no card of the hand: a neighbour, a pile card's slot, a decline
DECLINE = -2  # M_ACTION of the row that declines a 7th card or a discard build
UNPRICED = -3  # M_LEFT and M_RIGHT of a row listed unpriced (LIST_LAZY): priced once chosen
EVERY_CARD = -4  # M_SLOT and M_CARD of a template row (LIST_COMPACT): its action with any card of the hand

# How kernels/price.py lists a seat's (card, action) pairs: the first of a listing (mode, w_left, w_right)
LIST_PRICED = 0  # one purchase a pair, the one of least w_left * left + w_right * right coins
LIST_LAZY = 1  # the random policy's: a pair surely affordable is left UNPRICED (price.price_chosen)
LIST_COMPACT = 2  # the heuristic's: the build rows, then one template row each for the stage and the discard
LIST_EVERY = 3  # every affordable purchase of each pair (the Python API's lists)

# Phases of a turn, and the decisions a seat may owe (kernels/step.pending)
PH_MOVE, PH_SEVENTH, PH_DISCARD, PH_AGE_END, PH_OVER = range(5)
DEC_MOVE, DEC_SEVENTH, DEC_COPY3, DEC_DISCARD = range(4)
DEC_NAMES = ("move", "seventh", "copy3", "discard_build")  # by DEC_*: the words of the Python API


def kernel_tables(tables) -> tuple:
    """(ent, board, n_cards): the compiled tables as the kernels take them (already packed, and
    checked against the kernels' limits when compiled: wsim.tables)."""
    return tables.ent, tables.board, tables.n_cards


def stub() -> str:
    """The text of kernels/layout.pyi: every name above with its type, so that IDEs and type
    checkers resolve the offsets this module makes at import (tests/test_schema.py checks the
    file; regenerate it with `python -m wsim.kernels.layout`)."""
    names = {k: v for k, v in globals().items() if k.isupper() and not k.startswith("_")}
    lines = ['"""Generated from kernels/schema.py by kernels/layout.stub(): do not edit."""', "",
             "import numpy as np", ""]
    lines += [f"{k}: {'np.dtype' if isinstance(v, np.dtype) else type(v).__name__}" for k, v in sorted(names.items())]
    lines += ["", "", "def kernel_tables(tables) -> tuple: ...", "", "", "def stub() -> str: ..."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    from pathlib import Path

    Path(__file__).with_suffix(".pyi").write_text(stub())
