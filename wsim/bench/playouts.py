"""How many playouts a rollout seat runs in given games: the unit of `wsim bench`'s rollout speed.

A rollout seat runs its K playouts (its parameter row's R_PLAYOUTS, at least 1) for each (card,
action) pair it may play at each turn move (kernels/rollout.py). The games are stepped through the step API with the seats' policies
and parameters, and each must end exactly as the game that was timed did, else the count would
be of other games (as it was when the bench rebound KernelGame.policies instead of writing
them: it counted games of random seats, 2,133 playouts a game instead of 3,131).

`wsim bench --against REV` loads this file into REV's tree as well, so that both trees count
the same way: it uses only names every wsim since the rollout policy has had.
"""

import numpy as np

from wsim.kernels.layout import DEC_MOVE, M_DEFAULT
from wsim.kernels.policy import POLICY_HEURISTIC, POLICY_ROLLOUT, R_PLAYOUTS
from wsim.run.stepgame import KernelGame


def playouts_per_game(tables, settings, first: int, timed_res) -> float:
    """Mean playouts a game over games first .. first + len(timed_res) - 1 of `settings`
    (no Free City: each seat decides its own moves); timed_res: those games' results (a Runner's
    Chunk.res) to check the stepped games against."""
    total = 0
    for i, want in enumerate(timed_res):
        g = KernelGame(tables, settings.players, seed=settings.seed, game=first + i)
        # written in place: these arrays are what the kernels read
        g.policies[:] = settings.policy_ids()
        g.params[:] = settings.policy_params()
        while not g.over:
            for seat, kind in g.pending():
                # listed as the seat's policy lists them: the heuristic every purchase, the others the default
                options = g.legal(seat, kind, all_purchases=bool(g.policies[seat] == POLICY_HEURISTIC))
                if kind == DEC_MOVE and g.policies[seat] == POLICY_ROLLOUT:
                    total += max(1, int(g.params[seat, R_PLAYOUTS])) * int(options[:, M_DEFAULT].sum())
                g.apply(seat, kind, options, g.decide(seat, kind, options))
            g.next()
        if not np.array_equal(g.results()[0], want):
            raise RuntimeError(f"game {first + i}, stepped through the step API, did not end as the timed game did: "
                               "its playouts would be another game's")
    return total / len(timed_res)
