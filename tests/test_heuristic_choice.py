"""The heuristic's two-pass choice (kernels/heuristic.choice) decides as a plain valuation
of every row would, on a priced listing and on the compact one (layout.LIST_COMPACT: template
rows for the stage and the discard) alike, and the denial bound it skips by (E_POINTS_CAP,
wsim.tables.points_caps) holds for every card in every city, the most crowded city included."""

import numpy as np
import pytest
from numba import njit

from conftest import random_positions
from wsim import codes
from wsim.codes import ACT_DISCARD, ACT_STAGE, COPY_LEFT, DISCARD_COINS
from wsim.kernels import heuristic
from wsim.kernels.decide import decide
from wsim.kernels.layout import (DEC_COPY3, DEC_DISCARD, DEC_MOVE, DEC_SEVENTH, E_CHOICE, E_DISCOUNT, E_POINTS_CAP,
                                 E_PROD, E_SHIELDS, EVERY_CARD, F_COLORS, F_DEFEATS, F_DISC, F_PROD, F_SCI, F_SHIELDS,
                                 F_STAGES, G_AGE, G_FC, G_N, LIST_COMPACT, LIST_PRICED, M_ACTION, M_CARD, M_COPY3,
                                 M_SLOT)
from wsim.kernels.schema import MAX_STAGES
from wsim.kernels.score import points_and_science
from wsim.kernels.step import decider, legal
from wsim.run.stepgame import KernelGame

pytestmark = pytest.mark.slow  # compiles the oracle below


@njit(cache=True)
def _plain_choice(ent, board, st, s, who, moves, n_moves, params):
    """The oracle: every row of seat s's decision valued on its own with decider who's weights
    (its base value, its denial, its payment), the first of highest value kept."""
    seat, gs = st.seat, st.gs
    n, age = gs[G_N], gs[G_AGE]
    rival = heuristic.rival_column(seat, n, s)
    best_i, best = 0, 0
    for i in range(n_moves):
        action, c = moves[i, M_ACTION], moves[i, M_CARD]
        if action == ACT_DISCARD or action == ACT_STAGE:
            v = params[who, heuristic.H_DENY] * heuristic.denial(ent, seat, gs, n, s, c)
            if action == ACT_DISCARD:
                v += params[who, heuristic.H_COIN] * DISCARD_COINS
            else:
                copy3 = np.int64(COPY_LEFT)
                if moves[i, M_COPY3] == 1:
                    copy3 = np.int64(heuristic.best_copy(ent, board, seat, n, s, params, who, age))
                v += heuristic.stage_value(ent, board, seat, n, s, moves, i, params, who, age, copy3)
        else:
            v = heuristic.entity_value(ent, seat, n, s, c, params, who, age)
        v += heuristic.payment_value(moves, i, params, who, rival)
        if i == 0 or v > best:
            best_i, best = i, v
    return best_i


@njit(cache=True)
def _both_listings(ent, board, st, sc, s, who, kind, run, rows):
    """Seat s's decision listed priced and compact, with the purchase the heuristic's weights
    prefer (as the game loop lists it), each copied into rows[0] / rows[1] and then decided by
    decider who. Returns (priced rows, its choice, compact rows, its choice); the compact
    choice's row is read back from sc.moves (a template is given its card there)."""
    _, w_left, w_right = heuristic.listing(st.seat, st.gs[G_N], s, run.params, who)
    counts = np.zeros(4, np.int64)
    for k in range(2):
        listing = (np.int64(LIST_PRICED) if k == 0 else np.int64(LIST_COMPACT), w_left, w_right)
        m = legal(ent, board, st, sc, s, kind, listing, None)
        rows[k, :m] = sc.moves[:m]
        j = decide(ent, board, st, sc, s, who, kind, m, run, None)
        rows[k, m] = sc.moves[j]  # the chosen row, as decided, after the listing
        counts[2 * k], counts[2 * k + 1] = m, j
    return counts


@njit(cache=True)
def _cap_excess(ent, seat, n, n_cards):
    """The most any card's points for any seat exceed its E_POINTS_CAP (<= 0 when the cap holds)."""
    worst = -(1 << 30)
    for x in range(n):
        for c in range(n_cards):
            points, science = points_and_science(ent, seat, n, x, c)
            worst = max(worst, points + science - ent[c, E_POINTS_CAP])
    return worst


WEIGHTS = {
    "shipped": None,
    "no denial": {"deny": 0},
    "denial first": {"deny": 5000},  # denial decides most discards and stages
    "negative denial": {"deny": -40},
    "random": "random",
    "all zero": "zero",  # every row is worth 0: canonical order alone decides
}


def weighted_decisions(tables, weights: str, seed: int, players_by_game, babylon_b: bool = False):
    """Every decision of heuristic games (Manneken Pis in the pool) whose seats all play the
    weight set named (WEIGHTS), as (game, the game, seat, kind); the caller applies each
    before asking for the next. babylon_b: every five-player game's seat 0 plays Babylon B
    (whose last stage gives the 7th-card decision)."""
    rng = np.random.default_rng(seed)
    babylon = tables.board_names.index("The Hanging Gardens of Babylon")
    for game, players in enumerate(players_by_game):
        boards, sides = None, None
        if babylon_b and players == 5:
            boards, sides = [babylon] + [-1] * 4, [1] + [-1] * 4
        g = KernelGame(tables, players, seed=seed, game=game, policy="heuristic", board_spec=boards,
                       side_spec=sides, promo=True)
        change = WEIGHTS[weights]
        if change == "random":
            g.params[:] = rng.integers(-200, 600, size=g.params.shape)
        elif change == "zero":
            g.params[:] = 0
        elif change is not None:
            for key, value in change.items():
                g.params[:, heuristic.HEURISTIC_KEYS.index(key)] = value
        while not g.over:
            pending = g.pending()
            if not pending:
                g.next()
            for seat, kind in pending:
                yield game, g, seat, kind


@pytest.mark.parametrize("weights", WEIGHTS, ids=list(WEIGHTS))
@pytest.mark.parametrize("all_purchases", [False, True], ids=["one purchase", "every purchase"])
def test_two_passes_decide_as_one_plain_pass(tables, weights, all_purchases):
    decisions = builds_over_others = 0
    for game, g, seat, kind in weighted_decisions(tables, weights, 5, (3, 4, 5, 7, 2)):
        options = g.legal(seat, kind, all_purchases=all_purchases)
        chosen = g.decide(seat, kind, options)
        if kind != DEC_COPY3:
            n = len(options) - (1 if kind in (DEC_SEVENTH, DEC_DISCARD) else 0)  # no decline
            who = decider(g.gs, np.int32(seat))  # the Free City's controller decides for it
            g.moves[:len(options)] = options
            assert chosen == _plain_choice(tables.ent, tables.board, g.state[0], np.int64(seat), np.int64(who),
                                           g.moves, np.int64(n), g.params), (weights, game, seat, kind)
            decisions += 1
            others = [o[M_ACTION] in (ACT_DISCARD, ACT_STAGE) for o in options[:n]]
            builds_over_others += any(others) and not others[chosen]
        g.apply(seat, kind, options, chosen)
    assert decisions > 350 and builds_over_others > decisions // 4


def test_the_denial_bound_holds_in_played_and_crowded_cities(tables):
    caps = tables.ent_points_cap[:tables.n_cards]
    assert caps.min() >= 0 and caps.max() > 0
    for game, players in enumerate((3, 5, 7)):
        for g in random_positions(tables, players, seed=9, game=game):
            assert _cap_excess(tables.ent, g.seat, np.int64(g.n), np.int64(tables.n_cards)) <= 0
    # every city as full as the data allows: each name of every colour, every stage, every defeat,
    # every science source of each symbol and every wildcard
    seat = np.zeros_like(g.seat)
    n_cards = tables.n_cards
    kinds, names = tables.ent_kind[:n_cards], tables.card_name_id
    for k in range(codes.N_COLORS):
        seat[:, F_COLORS + k] = len({int(names[c]) for c in range(n_cards) if kinds[c] == k})
    seat[:, F_STAGES] = MAX_STAGES
    seat[:, F_DEFEATS] = 2 * codes.N_AGES
    science = tables.ent_science
    for sym in range(4):
        seat[:, F_SCI + sym] = int((science == sym).sum())
    assert _cap_excess(tables.ent, seat, np.int64(7), np.int64(n_cards)) <= 0


@pytest.mark.parametrize("weights", WEIGHTS, ids=list(WEIGHTS))
def test_a_compact_listing_lists_and_decides_as_a_priced_one(tables, weights):
    rows = np.zeros((2, 200, 8), np.int32)
    decisions = others_chosen = sevenths = free_city = 0
    for game, g, seat, kind in weighted_decisions(tables, weights, 6, (2, 3, 4, 5, 6, 7, 5), babylon_b=True):
        options = g.legal(seat, kind)
        if kind in (DEC_MOVE, DEC_SEVENTH):
            who = decider(g.gs, np.int32(seat))
            m, j, mc, jc = _both_listings(tables.ent, tables.board, g.state[0], g.scratch[0], np.int64(seat),
                                          np.int64(who), np.int64(kind), g.run[0], rows)
            priced = [tuple(r) for r in rows[0, :m]]
            compact = [tuple(r) for r in rows[1, :mc]]
            if kind == DEC_MOVE and seat == g.gs[G_FC]:  # the Free City is always listed priced
                assert compact == priced
            else:  # the templates, each with every card of the hand, are the priced rows
                templates = [r for r in compact if r[M_ACTION] in (ACT_STAGE, ACT_DISCARD)]
                assert templates and all(r[M_SLOT] == r[M_CARD] == EVERY_CARD for r in templates)
                expanded = [r for r in compact if r not in templates]
                for slot, card in enumerate(g.hand(seat)):
                    for r in templates:
                        row = list(r)
                        row[M_SLOT], row[M_CARD] = slot, card
                        expanded.append(tuple(row))
                assert sorted(expanded) == sorted(priced)
            assert tuple(rows[1, mc]) == tuple(rows[0, m]) == priced[j], (weights, game, seat, kind)
            decisions += 1
            others_chosen += priced[j][M_ACTION] in (ACT_DISCARD, ACT_STAGE)
            sevenths += kind == DEC_SEVENTH
            free_city += kind == DEC_MOVE and seat == g.gs[G_FC]
        g.apply(seat, kind, options, g.decide(seat, kind, options))
    assert decisions > 500 and others_chosen > decisions // 10 and free_city > 0
    assert sevenths > 0 or weights != "shipped"  # other weights may never build Babylon B's stage


@njit(cache=True)
def _looped_terms(ent, seat, n, s, e, params, who, age):
    """The entity value's shield, production, choice-unit and discount terms as the feature
    list in kernels/heuristic.py states them, one resource and one neighbour at a time (the
    kernel computes them on packed vectors, without branches)."""
    left_ages = 4 - age
    token = (1, 3, 5)[age - 1]
    v = 0
    shields = ent[e, E_SHIELDS]
    if shields > 0:
        v += params[who, heuristic.H_SHIELD] * shields * left_ages
        for other in (seat[(s + n - 1) % n, F_SHIELDS], seat[(s + 1) % n, F_SHIELDS]):
            if seat[s, F_SHIELDS] <= other < seat[s, F_SHIELDS] + shields:
                v += params[who, heuristic.H_FLIP] * token
    new_choice = False
    for r in range(7):
        units = ent[e, E_PROD + r]
        if units > 0:
            key = heuristic.H_UNIT_MORE if seat[s, F_PROD + r] > 0 else heuristic.H_UNIT_NEW
            v += params[who, key] * units * left_ages
        if (ent[e, E_CHOICE] >> r) & 1 == 1 and seat[s, F_PROD + r] == 0:
            new_choice = True
    if ent[e, E_CHOICE] != 0:
        v += params[who, heuristic.H_UNIT_NEW if new_choice else heuristic.H_UNIT_MORE] * left_ages
    for bit in range(4):
        if (ent[e, E_DISCOUNT] >> bit) & 1 == 1 and (seat[s, F_DISC] >> bit) & 1 == 0:
            v += params[who, heuristic.H_DISCOUNT] * left_ages
    return v


@njit(cache=True)
def _value_gaps(ent, seat, n, params, age, n_entities, keys):
    """The most heuristic.entity_value differs from the same value with the looped terms in
    place of its branch-free ones, over every seat and entity; the weights of the terms varied
    through `keys` (each on its own, so that no two terms can cancel)."""
    worst = 0
    for k in keys:
        for who in range(n):
            params[who, :] = 0
            params[who, k] = 7 + who
        for s in range(n):
            for e in range(n_entities):
                v = heuristic.entity_value(ent, seat, n, np.int64(s), np.int64(e), params, np.int64(s), np.int64(age))
                plain = _looped_terms(ent, seat, n, s, e, params, s, age)
                worst = max(worst, abs(v - plain))
    return worst


def test_the_branch_free_terms_equal_the_looped_ones(tables):
    keys = np.array([heuristic.HEURISTIC_KEYS.index(k)
                     for k in ("shield", "flip", "unit_new", "unit_more", "discount")], np.int64)
    positions = 0
    for game, players in enumerate((3, 5, 7)):
        for g in random_positions(tables, players, seed=13, game=game):
            params = np.zeros_like(g.params)
            assert _value_gaps(tables.ent, g.seat, np.int64(g.n), params, np.int64(g.gs[G_AGE]),
                               np.int64(tables.ent.shape[0]), keys) == 0
            positions += 1
    assert positions > 50
