"""A batched environment's kernels: N games in N state records, each advanced by one call per
step (wsim/env/batched_v0.py is the Python side).

A slot g holds one game at a time: the slot's k-th game is game g + k * N of the seed, so a
game depends only on (seed, game), never on N, the threads or the slot. Seats are learners
(their actions come from the caller) or kernel seats (their policy's decisions, taken inside the
call by the game loop itself, loop.play_out, which stops where only learners' decisions are
pending).

The arrays travel as records declared in kernels/schema.py (their fields' types and meanings
are there): `slots` (schema.Slots) is what every call of one environment shares: the learner
mask, the observation and action layouts (`alay`, schema.ActionSpace), the reward kind, the
slots' bookkeeping `book` (schema.Book: each slot's game, its learners' pending decisions and
legal ids, the option policy_decisions stashed, sample_legal's draws) and the `views` written
after each call (schema.Views: observations, masks, rewards, totals, which games ended and their
last observations); `tmp` (schema.Tmp) is each thread's scratch, with a move log of no rows (the
environment keeps none).

Action ids are kernels/actions.py's (their words: wsim.env.actions.ActionLayout). A learner has at most one
pending decision at a time (the Free City's move is pending only once its controller's move is
complete, a stage-3 neighbour once the stage is chosen).

`slots.learner` int8[P + 1]: the learner seats' mask, and 1 at [P] to rotate it one seat on per
game (loop.learns). `runs`: the run records (layout.RUN), one, or with rotation P: game i's seats
play runs[i mod P]'s policies, the seat list turned as the learner mask turns (`run_of`).
"""

import numpy as np
from numba import njit

from wsim.kernels.actions import row_ids
from wsim.kernels.driven import legal_into, policy_row
from wsim.kernels.layout import RES_TOTAL
from wsim.kernels.loop import learns, play_out
from wsim.kernels.observe import encode
from wsim.kernels.rng import STREAM_SAMPLE, draw_below, stream_key
from wsim.kernels.score import outcome
from wsim.kernels.schema import Stop
from wsim.kernels.step import apply, final, init_game

# validate's verdicts: the action is fine, out of range, not legal, or given by a seat that does not act
OK, OUT_OF_RANGE, ILLEGAL, NOT_ACTING = range(4)
REWARD_WIN, REWARD_MARGIN = range(2)
NOT_ASKED = -1  # a run record's policy id for a learner seat policy_decisions leaves alone


@njit(cache=True, inline="always")
def run_of(runs, game):
    """The run record game `game` plays (its seats' policies: `runs` in the module docstring)."""
    return runs[game % runs.shape[0]]


@njit(cache=True, _nrt=False)
def _list_every(ent, board, st, sc, s, kind):
    """Every legal option of city s's decision into sc.moves, every purchase listed (the Python
    API's and the action layout's listing); returns how many."""
    return legal_into(ent, board, st, sc, s, kind, True)


@njit(cache=True, _nrt=False)
def _offer(ent, board, st, sc, g, who, slots, tmp):
    """List learner seat who's legal ids (its pending decision's), each once, into the book and
    the dense mask."""
    book, mask = slots.book, slots.views.mask
    rid, seen = tmp.rid, tmp.seen
    s = book.pend[g, who, 0]
    kind = book.pend[g, who, 1]
    m = _list_every(ent, board, st, sc, s, kind)
    row_ids(ent, sc.moves, m, kind, slots.alay, rid)
    lgl = book.legal
    k = 0
    for i in range(m):
        a = rid[i]
        if seen[a] == 0:
            seen[a] = 1
            lgl[g, who, k] = a
            k += 1
    book.n_legal[g, who] = k
    dense = mask.shape[0] > 0
    for i in range(k):
        a = lgl[g, who, i]
        seen[a] = 0
        if dense:
            mask[g, who, a] = 1


@njit(cache=True, _nrt=False)
def _withdraw(g, who, book, views):
    """Clear learner seat who's legal ids and mask bits (its decision is taken)."""
    n_legal, lgl, stash, mask = book.n_legal, book.legal, book.stash, views.mask
    if mask.shape[0] > 0:
        for i in range(n_legal[g, who]):
            mask[g, who, lgl[g, who, i]] = 0
    n_legal[g, who] = 0
    stash[g, who, 0] = -1
    stash[g, who, 1] = -1


@njit(cache=True, _nrt=False)
def _observe(ent, st, g, players, slots, obs):
    """Each learner seat's observation of slot g into obs[g] (for its pending decision's city)."""
    game, pend = slots.book.game, slots.book.pend
    for who in range(players):
        if learns(slots.learner, game[g], who, players):
            s = pend[g, who, 0]
            encode(ent, st, who, who if s < 0 else s, slots.olay, obs[g, who])


@njit(cache=True, _nrt=False)
def _finish(ent, st, g, players, slots, tmp):
    """A game just ended in slot g: its totals, rewards and last observation."""
    views = slots.views
    reward, vp = views.reward, views.vp
    res = tmp.res
    final(ent, st, res, tmp.cards)
    for s in range(players):  # the Free City (seat players at 2 players) neither wins nor earns
        vp[g, s] = res[s, RES_TOTAL]
        share, margin = outcome(res, players, s)
        reward[g, s] = np.float32(share if slots.reward_kind == REWARD_WIN else margin)
    views.ended[g] = True
    _observe(ent, st, g, players, slots, views.final_obs)


@njit(cache=True, _nrt=False)
def _advance(ent, board, runs, st, sc, g, n_slots, model, slots, tmp):
    """Play slot g's kernel seats on (the game loop, loop.play_out, which leaves the learners'
    decisions to the caller) until a learner's decision is pending, scoring a game that ends and
    dealing the slot's next; record the learners' pending decisions."""
    book = slots.book
    game, pend, todo = book.game, book.pend, sc.todo
    players = runs[0].n
    while True:
        stop = Stop(np.int64(-1), np.int64(0), slots.learner, game[g])
        k = play_out(ent, board, run_of(runs, game[g]), st, sc, tmp.log, None, None, model, None, stop)
        if k > 0:
            for i in range(k):
                pend[g, todo[i, 2], 0] = todo[i, 0]
                pend[g, todo[i, 2], 1] = todo[i, 1]
            return
        _finish(ent, st, g, players, slots, tmp)
        game[g] += n_slots
        book.draws[g] = 0
        run = run_of(runs, game[g])
        init_game(ent, board, run.n_cards, players, run.seed, game[g], run.board_spec, run.side_spec, run.promo,
                  st, sc)


@njit(cache=True, _nrt=False)
def _present(ent, board, st, sc, g, players, slots, tmp):
    """Slot g's views after it advanced: the learners' legal ids, masks and observations."""
    pend = slots.book.pend
    for who in range(players):
        if pend[g, who, 0] >= 0:
            _offer(ent, board, st, sc, g, who, slots, tmp)
    _observe(ent, st, g, players, slots, slots.views.obs)


@njit(cache=True, nogil=True, _nrt=False)
def reset_games(ent, board, runs, states, sc, lo, hi, model, slots, tmp):
    """Deal slots lo..hi-1 their first game (game g of the seed) and advance each to its first
    learner decision; every view written."""
    book, views = slots.book, slots.views
    pend, n_legal, stash, mask = book.pend, book.n_legal, book.stash, views.mask
    n_slots = states.shape[0]
    run = runs[0]
    players = run.n
    for g in range(lo, hi):
        st = states[g]
        for who in range(players):
            if mask.shape[0] > 0:
                for i in range(n_legal[g, who]):
                    mask[g, who, book.legal[g, who, i]] = 0
            n_legal[g, who] = 0
            pend[g, who, 0] = -1
            stash[g, who, 0] = -1
            stash[g, who, 1] = -1
            views.reward[g, who] = 0
        views.ended[g] = False
        book.game[g] = g
        book.draws[g] = 0
        init_game(ent, board, run.n_cards, players, run.seed, book.game[g], run.board_spec, run.side_spec, run.promo,
                  st, sc)
        _advance(ent, board, runs, st, sc, g, n_slots, model, slots, tmp)
        _present(ent, board, st, sc, g, players, slots, tmp)


@njit(cache=True, nogil=True, _nrt=False)
def validate(actions, lo, hi, players, alay, book, verdict):
    """Check every action of slots lo..hi-1 against the book, before any is played: verdict[0]
    is the first bad (slot * players + seat) and verdict[1] its OK-code (OUT_OF_RANGE,
    ILLEGAL, NOT_ACTING), verdict[0] -1 when every action is fine. A seat that does not act
    passes -1."""
    pend, n_legal, lgl = book.pend, book.n_legal, book.legal
    for g in range(lo, hi):
        for who in range(players):
            a = actions[g, who]
            code = OK
            if pend[g, who, 0] < 0:
                if a != -1:
                    code = NOT_ACTING
            elif a < 0 or a >= alay.size:
                code = OUT_OF_RANGE
            else:
                code = ILLEGAL
                for i in range(n_legal[g, who]):
                    if lgl[g, who, i] == a:
                        code = OK
                        break
            if code != OK:
                verdict[0] = g * players + who
                verdict[1] = code
                return


@njit(cache=True, nogil=True, _nrt=False)
def step_games(ent, board, runs, states, sc, lo, hi, actions, model, slots, tmp):
    """Play every learner's action of slots lo..hi-1 (validated: `validate`), advance each slot
    to its next learner decision (a game that ends is scored and the slot's next game dealt)
    and write the views."""
    book, views = slots.book, slots.views
    pend, stash = book.pend, book.stash
    n_slots = states.shape[0]
    players = runs[0].n
    rid = tmp.rid
    for g in range(lo, hi):
        st = states[g]
        views.ended[g] = False
        for who in range(players):
            views.reward[g, who] = 0
        for who in range(players):
            s = pend[g, who, 0]
            if s < 0:
                continue
            kind = pend[g, who, 1]
            a = actions[g, who]
            j = stash[g, who, 1] if stash[g, who, 0] == a else -1
            m = _list_every(ent, board, st, sc, s, kind)
            if j < 0:
                row_ids(ent, sc.moves, m, kind, slots.alay, rid)
                for i in range(m):
                    if rid[i] == a:
                        j = i
                        break
            _withdraw(g, who, book, views)
            pend[g, who, 0] = -1
            apply(ent, board, st, s, kind, sc.moves, j, tmp.log)
        _advance(ent, board, runs, st, sc, g, n_slots, model, slots, tmp)
        _present(ent, board, st, sc, g, players, slots, tmp)


@njit(cache=True, nogil=True, _nrt=False)
def sample_legal(seed, lo, hi, players, book, out):
    """A uniform legal id for every acting learner seat of slots lo..hi-1 into out (-1 where
    none acts), from each game's own STREAM_SAMPLE: a game's samples depend only on (seed, game)."""
    game, n_legal, lgl, draws = book.game, book.n_legal, book.legal, book.draws
    for g in range(lo, hi):
        key = stream_key(seed, game[g], STREAM_SAMPLE)
        for who in range(players):
            n = n_legal[g, who]
            if n == 0:
                out[g, who] = -1
            else:
                out[g, who] = lgl[g, who, draw_below(key, draws[g], n)]
                draws[g] += 1


@njit(cache=True, nogil=True, _nrt=False)
def policy_decisions(ent, board, runs, states, sc, lo, hi, alay, book, tmp, out):
    """The id each acting learner seat's policy (its run record's, `run_of`: random, greedy or
    heuristic; NOT_ASKED: the seat is not asked) would play, into out (-1 where none acts or is
    asked), as take_decision chooses it (random draws from the seat's stream); the option is
    stashed so that `step_games` plays that very row."""
    game, pend, stash = book.game, book.pend, book.stash
    rid = tmp.rid
    players = runs[0].n
    for g in range(lo, hi):
        st = states[g]
        run = run_of(runs, game[g])
        for who in range(players):
            out[g, who] = -1
            s = pend[g, who, 0]
            if s < 0 or run.policies[who] == NOT_ASKED:
                continue
            kind = pend[g, who, 1]
            row, m = policy_row(ent, board, st, sc, s, kind, np.int32(who), run, None)
            row_ids(ent, sc.moves, m, kind, alay, rid)
            out[g, who] = rid[row]
            stash[g, who, 0] = rid[row]
            stash[g, who, 1] = row


@njit(cache=True, nogil=True, _nrt=False)
def seat_views(seats, played, book, views, out, prev):
    """One seat per slot (seats[g]) of the views, for a single learner: its observation, its
    last observation where the game ended (from seat played[g], the seat it had in that game),
    and its legal ids as a dense mask, written into out =
    (obs float32[N, F], final_obs float32[N, F], mask int8[N, A]); the mask's bits are cleared
    from prev = (ids int16[N, MAX_MOVES], count int16[N]), the ids set last time, which it then
    holds."""
    n_legal, lgl = book.n_legal, book.legal
    obs, ended, final_obs = views.obs, views.ended, views.final_obs
    o_obs, o_final, o_mask = out
    p_ids, p_n = prev
    for g in range(seats.shape[0]):
        s = seats[g]
        for f in range(obs.shape[2]):
            o_obs[g, f] = obs[g, s, f]
        if ended[g]:
            for f in range(obs.shape[2]):
                o_final[g, f] = final_obs[g, played[g], f]
        for i in range(p_n[g]):
            o_mask[g, p_ids[g, i]] = 0
        for i in range(n_legal[g, s]):
            a = lgl[g, s, i]
            o_mask[g, a] = 1
            p_ids[g, i] = a
        p_n[g] = n_legal[g, s]
