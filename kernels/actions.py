"""Action ids and the pick -> row match, written once for every front door (docs/env.md).

An action id names a listed row of a decision (kernels/price.py's every-purchase listing) in the
fixed action space of wsim.env.actions.ActionLayout, whose words it keeps:

    (name * per_card + action) * slots + purchase    a turn move or a 7th card (a (card, action)
                                                     pair's purchases follow its default one,
                                                     numbered from 0)
    moves_end + 0 / + 1                              a stage-3 neighbour, left / right
    copy_end + name                                  a discard build takes that card
    decline                                          the decline of a 7th card or a discard build

`alay` holds those constants by name (schema.ActionSpace: slots, per_card, moves_end, copy_end,
decline, size). A policy lists its options its own way (decide.listing); the
row it picked is found again in the every-purchase listing by its six columns (`option_key`,
`find_row`), so that the batched environment, wsim.Game and the AEC environment play the very
row wsim.simulate's game plays.
"""

from numba import njit

from wsim.codes import COPY_LEFT
from wsim.kernels.layout import (DEC_COPY3, DEC_DISCARD, DECLINE, E_NAME_ID, M_ACTION, M_CARD, M_COPY3, M_LEFT,
                                 M_RIGHT, M_SLOT)


@njit(cache=True, _nrt=False)
def row_ids(ent, moves, m, kind, alay, rid):
    """The action id of each of the m listed rows of decision `kind` into rid (module docstring)."""
    pair_slot, pair_action, purchase = -9, -9, 0  # -9: no pair yet (no slot or action is negative past -4)
    for i in range(m):
        if kind == DEC_COPY3:
            rid[i] = alay.moves_end + (0 if moves[i, M_COPY3] == COPY_LEFT else 1)
        elif moves[i, M_ACTION] == DECLINE:
            rid[i] = alay.decline
        elif kind == DEC_DISCARD:
            rid[i] = alay.copy_end + ent[moves[i, M_CARD], E_NAME_ID]
        else:
            same = moves[i, M_SLOT] == pair_slot and moves[i, M_ACTION] == pair_action
            purchase = purchase + 1 if same else 0
            pair_slot, pair_action = moves[i, M_SLOT], moves[i, M_ACTION]
            name = ent[moves[i, M_CARD], E_NAME_ID]
            rid[i] = (name * alay.per_card + moves[i, M_ACTION]) * alay.slots + purchase


@njit(cache=True, inline="always")
def option_key(moves, j):
    """Row j's six columns: what makes an option the option it is, whatever the listing."""
    return (moves[j, M_SLOT], moves[j, M_CARD], moves[j, M_ACTION], moves[j, M_LEFT], moves[j, M_RIGHT],
            moves[j, M_COPY3])


@njit(cache=True, inline="always")
def find_row(moves, m, key):
    """The first of the m listed rows whose option_key is `key` (-1: none)."""
    for i in range(m):
        if option_key(moves, i) == key:
            return i
    return -1
