"""Training games: whole games by the run's policies, with a tape recording sampled decisions'
afterstate inputs (kernels/learned.py), and every recorded row's outcome once its game is over.

The sampling draws from a stream of its own (keyed on the tape's seed and the game), never from a
seat's, so a recorded game is the very game `wsim simulate` plays with the same settings.
"""

from numba import njit

from wsim.kernels.layout import RES_TOTAL
from wsim.kernels.learned import T_MARGIN, T_TOTAL, T_WHO, T_WIN
from wsim.kernels.loop import play_out
from wsim.kernels.rng import stream_key
from wsim.kernels.schema import Log
from wsim.kernels.score import outcome
from wsim.kernels.step import final, init_game


@njit(cache=True, _nrt=False)
def _outcomes(res, players, meta, lo, hi):
    """Rows lo..hi-1 (one game's): the deciding seat's total, margin over the best other player
    and whether it won (score.outcome)."""
    for r in range(lo, hi):
        who = meta[r, T_WHO]
        share, margin = outcome(res, players, who)
        meta[r, T_TOTAL] = res[who, RES_TOTAL]
        meta[r, T_MARGIN] = margin
        meta[r, T_WIN] = 1 if share > 0 else 0


@njit(cache=True, nogil=True, _nrt=True)
def record_games(ent, board, run, first_game, games, out, st, sc, search, model, tape, tape_seed):
    """Play games first_game .. first_game + games - 1 (out, schema.Results: one game's rows,
    reused, and a move log of no rows), recording into the tape (kernels/learned.py) with T_GAME the game's index in this call."""
    meta, count, sample = tape.meta, tape.count, tape.sample
    for i in range(games):
        game = first_game + i
        init_game(ent, board, run.n_cards, run.n, run.seed, game, run.board_spec, run.side_spec, run.promo, st, sc)
        sample[0] = stream_key(tape_seed, game, 0)
        sample[2] = 0
        lo = min(count[0], meta.shape[0])
        play_out(ent, board, run, st, sc, Log(out.log.rows, out.log.count, i), search, None, model, tape, None)
        final(ent, st, out.res, out.cards)
        _outcomes(out.res, run.n, meta, lo, min(count[0], meta.shape[0]))
