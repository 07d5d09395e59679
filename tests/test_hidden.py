"""The information state (kernels/hidden.py, KernelGame.resample_hidden): a seat's hidden cards
dealt again, uniformly over the deals consistent with what it sees (RULES.md §2)."""

from collections import Counter

import numpy as np
import pytest
from scipy.stats import chisquare

from hiddenref import expected_counts, hidden_places, observed
from wsim import codes
from wsim.kernels.layout import DEC_MOVE, E_AGE, E_COPIES, E_KIND, F_CARDS, F_HAND, F_HAND_N, F_NCARDS, G_AGE, G_FC
from wsim.run.stepgame import KernelGame


def _decisions(tables, players, game, until=None):
    """(game, seat) at every turn move of a seat with a hand (random self-play), the game paused
    there; stops at `until` (age, turn) when given."""
    g = KernelGame(tables, players, seed=3, game=game)
    while not g.over:
        for seat, kind in g.pending():
            if kind == DEC_MOVE and seat != g.gs[G_FC]:
                if until is None or (g.age, g.turn) == until:
                    yield g, seat
                    if until is not None:
                        return
            options = g.legal(seat, kind)
            g.apply(seat, kind, options, g.decide(seat, kind, options))
        g.next()


def _age_cards(tables, g) -> Counter:
    """The current age's non-guild cards where they are: hands, the Free City's pile still to
    draw, the discard pile, the cities, and under the stages built this age (the state's plays)."""
    age, fc, n = g.age, int(g.gs[G_FC]), g.n
    seat, pile, hist = g.seat, g.state["pile"][0], g.state["hist"][0]
    out = Counter()
    for s in range(n):
        out.update(int(c) for c in seat[s, F_HAND:F_HAND + seat[s, F_HAND_N]])
        out.update(int(c) for c in seat[s, F_CARDS:F_CARDS + seat[s, F_NCARDS]] if tables.ent[c, E_AGE] == age)
    if fc >= 0:
        out.update(int(c) for c in g.state["dealt"][0][age - 1, fc, g.turn:])
    out.update({c: int(pile[c]) for c in range(tables.n_cards) if tables.ent[c, E_AGE] == age and pile[c]})
    out.update(int(hist[r, s, 0]) for r in range(hist.shape[0]) for s in range(n)
               if hist[r, s, 0] >= 0 and hist[r, s, 1] == codes.ACT_STAGE)
    return Counter({c: k for c, k in out.items() if tables.ent[c, E_KIND] != codes.PURPLE})


def _deck(tables, g) -> Counter:
    return Counter({c: int(tables.ent[c, E_COPIES + g.n]) for c in range(tables.n_cards)
                    if tables.ent[c, E_AGE] == g.age and tables.ent[c, E_KIND] != codes.PURPLE
                    and tables.ent[c, E_COPIES + g.n] > 0})


@pytest.mark.parametrize("players", [2, 3, 4, 7])
def test_what_the_seat_sees_is_unchanged_and_the_world_is_whole(tables, players):
    """At every turn move of two games: the seat's view is the same after the re-deal, the
    current age's cards are all somewhere (hands, piles, cities, under stages), the hidden ones
    moved in some draws, and the re-dealt game plays on to its end."""
    moved = 0
    for game in range(2):
        for g, seat in _decisions(tables, players, game):
            h = g.clone()
            before = h.view(seat)
            h.resample_hidden(seat, 1000 * game + 17 * g.age + g.turn)
            assert h.view(seat) == before
            assert _age_cards(tables, h) == _deck(tables, h) == _age_cards(tables, g)
            moved += sorted(map(tuple, hidden_places(h, seat))) != sorted(map(tuple, hidden_places(g, seat)))
            if g.turn == 3:
                h.play_out()
                assert h.over
    assert moved > 10


# (players, game, (age, turn)): states with hands seen and passed on, discards and stages since
CASES = [(4, 1, (2, 4)), (3, 0, (1, 5)), (2, 2, (2, 3)), (5, 4, (1, 6))]


@pytest.mark.parametrize("players,game,when", CASES)
def test_hidden_cards_follow_the_uniform_distribution(tables, players, game, when):
    """Over 2,000 draws (fixed keys), the count of each card at each hidden place (another
    seat's hand, the discard pile, under the stages, the Free City's pile) matches what a
    uniform draw over the consistent deals gives (tests/hiddenref.py, written from RULES.md §2):
    a chi-square test per place."""
    g, seat = next(_decisions(tables, players, game, until=when))
    places = hidden_places(g, seat)
    assert len({group for _, group, _ in places}) >= 2  # a seen hand and the never-seen cards
    draws = 2000
    seen = Counter()
    for key in range(draws):
        h = g.clone()
        h.resample_hidden(seat, key)
        seen += observed(hidden_places(h, seat))
    expected = expected_counts(places, draws)
    assert set(seen) <= set(expected)  # no card ever where the seat knows it cannot be
    for place in {p for p, _ in expected}:
        cells = sorted(c for p, c in expected if p == place)
        f_exp = np.array([expected[(place, c)] for c in cells])
        f_obs = np.array([seen[(place, c)] for c in cells])
        if len(cells) > 1:
            assert chisquare(f_obs, f_exp).pvalue > 1e-3, (place, dict(zip(cells, f_obs)), dict(zip(cells, f_exp)))
        else:
            assert f_obs[0] == pytest.approx(f_exp[0])


def test_a_hand_passed_with_nothing_hidden_since_stays_known(tables):
    """Four players, Age I turn 2: the hand seat 0 held on turn 1 is now seat 1's, less seat 0's
    own card: seat 0 knows it exactly, so every draw leaves it there; seat 3's hand, never seen,
    changes."""
    g, _ = next(_decisions(tables, 4, 0, until=(1, 2)))
    hand = sorted(g.seat[1, F_HAND:F_HAND + g.seat[1, F_HAND_N]].tolist())
    other = [sorted(g.seat[3, F_HAND:F_HAND + g.seat[3, F_HAND_N]].tolist())]
    for key in range(50):
        h = g.clone()
        h.resample_hidden(0, key)
        assert sorted(h.seat[1, F_HAND:F_HAND + h.seat[1, F_HAND_N]].tolist()) == hand
        other.append(sorted(h.seat[3, F_HAND:F_HAND + h.seat[3, F_HAND_N]].tolist()))
    assert len({tuple(x) for x in other}) > 40


def test_free_city_pile_at_two_players(tables):
    """Two players (the Free City at seat 2): the Free City's cards still to draw are dealt
    again (their number kept), and the card the seat itself drew this turn as the Free City's
    controller stays in its hand."""
    g, seat = next(_decisions(tables, 2, 1, until=(1, 3)))
    fc = int(g.gs[G_FC])
    assert codes.fc_controller(1, 3) == seat == 0
    drawn = int(g.state["dealt"][0][0, fc, 2])
    never_seen = Counter(c for _, group, c in hidden_places(g, seat) if group == 0)
    in_pile = Counter()
    for key in range(40):
        h = g.clone()
        h.resample_hidden(seat, key)
        assert drawn in h.seat[seat, F_HAND:F_HAND + h.seat[seat, F_HAND_N]].tolist()
        assert int(h.state["dealt"][0][0, fc, 2]) == drawn
        pile = Counter(h.state["dealt"][0][0, fc, 3:].tolist())
        assert sum(pile.values()) == 4 and not pile - never_seen  # drawn from the cards never seen
        in_pile += pile
        assert _age_cards(tables, h) == _age_cards(tables, g)
    assert set(in_pile) == set(never_seen)  # each of them drawn into the pile at some point


def test_the_other_seats_streams_are_keyed_on_the_draw(tables):
    """Every other seat's random stream comes from the key alone: the same key gives the same
    streams whatever the real ones were; another key, others."""
    g, seat = next(_decisions(tables, 4, 0, until=(2, 2)))
    assert seat == 0
    a, b, c = g.clone(), g.clone(), g.clone()
    b.state["keys"][0][1:4] += np.uint64(99)
    for x in (a, b):
        x.resample_hidden(seat, 5)
    c.resample_hidden(seat, 6)
    assert (a.state["keys"][0][:4] == b.state["keys"][0][:4]).all()
    assert (a.state["keys"][0][1:4] != c.state["keys"][0][1:4]).all()
    assert a.state["keys"][0][seat] == g.state["keys"][0][seat]


def test_a_state_not_reached_by_play_is_refused(tables):
    g, seat = next(_decisions(tables, 3, 0, until=(1, 3)))
    g.state["hist"][0][0, 1, 0] = g.seat[2, F_HAND]  # a play that took a card the hand never held
    before = g.state.copy()
    with pytest.raises(ValueError, match="not reached by play"):
        g.resample_hidden(seat, 1)
    # every region unchanged (compared field by field: the record's padding bytes carry no state)
    assert all(np.array_equal(g.state[name], before[name]) for name in g.state.dtype.names)
    assert g.gs[G_AGE] == 1
