"""Entry points for a game driven from Python, decision by decision (wsim.run.stepgame).

Each takes the state, scratch and run records, as the game loop does, and passes the scratch's
own arrays on inside numba: the step functions then run in the specialisations the game loop
compiled (an array handed in from Python is another numba type than a record's array, and would
compile every step function a second time). A decision's options are the scratch record's
`moves` rows; KernelGame copies a caller's rows there first.
"""

import numpy as np
from numba import njit

from wsim.kernels import rollout
from wsim.kernels.hidden import resample_hidden
from wsim.kernels.actions import find_row, option_key
from wsim.kernels.decide import decide, policy_option
from wsim.kernels.layout import LIST_EVERY, LIST_PRICED
from wsim.kernels.observe import encode
from wsim.kernels.step import apply, init_game, legal, pending


@njit(cache=True, _nrt=False)
def deal(ent, board, run, game, st, sc):
    """Deal game `game` of the run into st, as play_game does."""
    init_game(ent, board, run.n_cards, run.n, run.seed, game, run.board_spec, run.side_spec, run.promo, st, sc)


@njit(cache=True, _nrt=False)
def pending_into(st, sc):
    """step.pending into sc.todo; returns how many decisions are pending."""
    return pending(st, sc.todo)


@njit(cache=True, _nrt=False)
def legal_into(ent, board, st, sc, s, kind, all_purchases):
    """step.legal into sc.moves; returns how many options: every purchase of each pair with
    all_purchases, else its default one (kernels/price.py's LIST_EVERY, LIST_PRICED)."""
    listing = (np.int64(LIST_EVERY if all_purchases else LIST_PRICED), np.int64(1), np.int64(1))
    return legal(ent, board, st, sc, s, kind, listing, None)


@njit(cache=True, _nrt=False)
def decide_among(ent, board, st, sc, s, who, kind, n_moves, run, model):
    """The option (of the first n_moves of sc.moves) that seat who's policy, not rollout, picks
    (model: the learned policy's, or None)."""
    return decide(ent, board, st, sc, s, who, kind, n_moves, run, model)


@njit(cache=True, _nrt=False)
def policy_row(ent, board, st, sc, s, kind, who, run, model):
    """(row, m): the option decider who's policy (not rollout) chooses for seat s's decision, as
    the game loop chooses it (decide.policy_option, its draws included), found in the
    every-purchase listing that sc.moves then holds (m rows): the one pick -> row match of every
    front door (kernels/actions.py)."""
    j = policy_option(ent, board, st, sc, s, kind, who, run, None, model, None)[0]
    key = option_key(sc.moves, j)
    m = legal_into(ent, board, st, sc, s, kind, True)
    return find_row(sc.moves, m, key), m


@njit(cache=True, _nrt=True)
def search_row(ent, board, st, sc, s, kind, who, run, model):
    """policy_row for a rollout decider: its options listed as rollout.take_search_decision lists
    them (each pair's default purchase), its pick (the search's, or its base policy's) found in
    the every-purchase listing that sc.moves then holds (m rows). The search allocates: numba's
    runtime."""
    j = rollout.choice(ent, board, st, sc, s, who, kind, legal_into(ent, board, st, sc, s, kind, False), run, model)
    key = option_key(sc.moves, j)
    m = legal_into(ent, board, st, sc, s, kind, True)
    return find_row(sc.moves, m, key), m


@njit(cache=True, _nrt=True)
def search_among(ent, board, st, sc, s, who, kind, n_moves, run, model):
    """The same for a rollout decider (its search allocates: numba's runtime)."""
    return rollout.choice(ent, board, st, sc, s, who, kind, n_moves, run, model)


@njit(cache=True, _nrt=False)
def apply_option(ent, board, st, sc, s, kind, j, log):
    """step.apply of option j of sc.moves."""
    apply(ent, board, st, s, kind, sc.moves, j, log)


@njit(cache=True, _nrt=False)
def observe_into(ent, st, sc, who, olay, out):
    """Player who's observation (observe.encode, olay: observe.tables_layout) into out, for the
    city of the decision it owes now (at 2 players the Free City's when it decides for it), else
    its own: the batched environment's observation of that seat (kernels/batched.py records the
    last pending decision of each decider, as here)."""
    s = who
    todo = sc.todo
    for i in range(pending(st, todo)):
        if todo[i, 2] == who:
            s = todo[i, 0]
    encode(ent, st, who, s, olay, out)


@njit(cache=True, _nrt=False)
def resample(ent, board, st, sc, who, key):
    """hidden.resample_hidden on the state and scratch records."""
    return resample_hidden(ent, board, st, sc, who, key)
