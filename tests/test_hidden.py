"""The information state (kernels/hidden.py, KernelGame.resample_hidden): a seat's hidden cards
dealt again, uniformly over the deals consistent with what it sees (docs/rules.md §2, and at 2
players the Free City's rule, §10)."""

from collections import Counter

import numpy as np
import pytest
from scipy.stats import chisquare

from hiddenref import expected_counts, fc_allowed, hidden_places, is_fc_place, observed, position_now, unseen_guilds
from wsim import codes
from wsim.kernels.hidden import fc_real_plays
from wsim.kernels.hidden_fc import fc_could, rebuild_at
from wsim.kernels.layout import (DEC_MOVE, E_AGE, E_COPIES, E_KIND, F_CARDS, F_CHOICE, F_FREE_AGE, F_HAND, F_HAND_N,
                                 F_NCARDS, F_NCHOICE, F_NSELL_CHOICE, F_SELL_CH, G_AGE, G_FC)
from wsim.kernels.schema import SEAT
from wsim.reference.engine import free_city_moves
from wsim.run.stepgame import KernelGame


def _decisions(tables, players, game, until=None, seed=3, policy="random", **deal):
    """(game, seat) at every turn move of a seat with a hand (self-play by `policy`), the game
    paused there; stops at `until` (age, turn) when given. The game carries `starts`: the
    cities at the start of each turn of the age so far (turn -> reference Position, public
    columns only) and `rows`: the kernel's seat rows then (turn -> a copy), recorded while it is
    played, what a seat remembers of the age (tests/hiddenref.py uses them at 2 players)."""
    g = KernelGame(tables, players, seed=seed, game=game, policy=policy, **deal)
    g.starts, g.rows, at = {}, {}, None
    while not g.over:
        if (g.age, g.turn) != at:  # a new turn: nothing of it played yet
            if at is None or at[0] != g.age:
                g.starts, g.rows = {}, {}
            g.starts[g.turn], g.rows[g.turn] = position_now(tables, g), g.seat[:g.n].copy()
            at = (g.age, g.turn)
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


# (players, game, (age, turn)): states with hands seen and passed on, discards and stages since;
# at 2 players Free City discards by the other player that rule cards out (docs/rules.md §10): Age II
# turn 3 one in the never-seen cards, Age III turn 5 two, with the guilds drawn again
CASES = [(4, 1, (2, 4)), (3, 0, (1, 5)), (2, 2, (2, 3)), (5, 4, (1, 6)), (2, 2, (3, 5))]


def _ruled_out(tables, g, seat, places):
    """{Free City place: the cards of its group (in Age III's never-seen cards, every unseen
    guild for its guilds) that §10 rules out there}."""
    allowed = fc_allowed(g.starts, g.age)
    out = {}
    for place, group, _ in places:
        if is_fc_place(place):
            cards = {c for _, gr, c in places if gr == group}
            if g.age == 3 and group == 0:
                cards = ({c for c in cards if tables.ent[c, E_KIND] != codes.PURPLE}
                         | set(unseen_guilds(tables, g, seat)))
            out[place] = {c for c in cards if not allowed(place, c)}
    return out


@pytest.mark.parametrize("players,game,when", CASES)
def test_hidden_cards_follow_the_uniform_distribution(tables, players, game, when):
    """Over 2,000 draws (fixed keys), the count of each card at each hidden place (another
    seat's hand, the discard pile, under the stages, the Free City's pile, the Free City's
    discard of a turn the other player controlled it) matches what a uniform draw over the
    consistent deals gives (tests/hiddenref.py, written from docs/rules.md §2 and §10 with the
    reference engine): a chi-square test per place. At 2 players the case has Free City
    discards that rule cards of their group out (a uniform shuffle per group fails it)."""
    g, seat = next(_decisions(tables, players, game, until=when))
    places = hidden_places(g, seat)
    assert len({group for _, group, _ in places}) >= 2  # a seen hand and the never-seen cards
    if players == 2:
        ruled_out = _ruled_out(tables, g, seat, places)
        assert ruled_out and all(ruled_out.values()), ruled_out
    draws = 2000
    seen = Counter()
    for key in range(draws):
        h = g.clone()
        h.resample_hidden(seat, key)
        seen += observed(hidden_places(h, seat))
    allowed = fc_allowed(g.starts, g.age) if players == 2 else None
    guilds = unseen_guilds(tables, g, seat) if g.age == 3 else None
    expected = expected_counts(places, draws, allowed, guilds)
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


# -- the Free City's hidden plays (docs/rules.md §10, 2 players) ---------------------------------------
def _fc_places_legal(tables, h, who, allowed) -> int:
    """Asserts that every Free City play hidden from `who` in world h holds a card §10 allowed
    there (the reference engine, `allowed` = fc_allowed); returns how many were checked."""
    checked = 0
    for place, _, card in hidden_places(h, who):
        if is_fc_place(place):
            assert allowed(place, card), (place, tables.card_names[card])
            checked += 1
    return checked


def test_a_free_city_discard_is_never_dealt_a_card_it_had_to_build(tables):
    """Finding R4-1's position: seed 91, game 1, Age I turn 2, seat 1. On turn 1 seat 0 held the
    Free City card and the Free City discarded (Apothecary); seat 1 saw the discard, not the
    card. A card it could build (Ore Vein, Clay Pool, ... cost nothing) was never there: no draw
    puts one there. Rules version 5 (a uniform shuffle per group) did in 79 of 200 draws."""
    g, _ = next(_decisions(tables, 2, 1, until=(1, 2), seed=91))
    seat = 1
    hist = g.state["hist"][0]
    assert codes.fc_controller(1, 1) == 0 and hist[0, 2, 1] == codes.ACT_DISCARD
    assert tables.card_names[hist[0, 2, 0]] == "Apothecary"
    places = hidden_places(g, seat)
    ruled_out = _ruled_out(tables, g, seat, places)
    assert list(ruled_out) == [("pile", "fc", 1)]
    assert {"Ore Vein", "Clay Pool"} <= {tables.card_names[c] for c in ruled_out[("pile", "fc", 1)]}
    allowed = fc_allowed(g.starts, 1)
    there = Counter()
    for key in range(200):
        h = g.clone()
        h.resample_hidden(seat, key)
        assert _fc_places_legal(tables, h, seat, allowed) == 1
        there[int(h.state["hist"][0][0, 2, 0])] += 1
    assert len(there) > 1  # still drawn: among the cards it could not build


def test_no_resample_breaks_the_free_city_rule(tables):
    """At every turn move of 2-player games (random and heuristic play), 8 draws for the deciding
    seat: each Free City discard or stage the seat did not see holds a card the Free City could
    discard (or stage with) at that turn, by the reference engine on the cities as they stood
    then (tests/hiddenref.py)."""
    checked = constraining = 0
    for policy, games in (("random", range(16)), ("heuristic", range(6))):
        for game in games:
            for g, seat in _decisions(tables, 2, game, policy=policy):
                ruled_out = _ruled_out(tables, g, seat, hidden_places(g, seat))
                if not ruled_out:
                    continue
                constraining += any(ruled_out.values())
                allowed = fc_allowed(g.starts, g.age)
                for key in range(8):
                    h = g.clone()
                    h.resample_hidden(seat, 7919 * key + 31 * g.turn + game)
                    checked += _fc_places_legal(tables, h, seat, allowed)
    assert constraining > 100 and checked > 2000, (constraining, checked)


# the Free City's boards and sides forced (Olympia A's free build, Halicarnassus' discard builds,
# Manneken Pis' copies), then random ones with Manneken Pis in the pool, under several policies
REBUILD_GAMES = ([("random", g, None) for g in range(8)] + [("greedy", 0, None), ("heuristic", 0, None)]
                 + [("random", g, (w, side)) for g, (w, side) in enumerate(
                     [("olympia", 0), ("olympia", 0), ("halicarnassus", 0), ("halicarnassus", 1),
                      ("manneken_pis", 0), ("manneken_pis", 1)])])
SKIPPED = {"hand", "hand2", "hand_n", "chosen", "ctr", "mil", "defeats", "copy3", "free_age", "choice", "sell_ch",
           "discards", "chained", "coins_paid", "coins_received"}  # the behaviour counters: read by no rule


def _same_city(real, built, age, is_fc):
    """A rebuilt seat row (kernels/hidden_fc.rebuild_at) against the real one of that turn's start:
    every field a legality test may read, the choice units as multisets (their order follows
    the order entities entered the city)."""
    from wsim.kernels import layout

    for name, width, _ in SEAT.fields:
        if name not in SKIPPED:
            at = getattr(layout, "F_" + name.upper())
            assert real[at:at + width].tolist() == built[at:at + width].tolist(), name
    for col, n in ((F_CHOICE, F_NCHOICE), (F_SELL_CH, F_NSELL_CHOICE)):
        assert sorted(real[col:col + real[n]].tolist()) == sorted(built[col:col + built[n]].tolist())
    if is_fc:
        assert (real[F_FREE_AGE] == age) == (built[F_FREE_AGE] == age)


def test_the_free_city_positions_rebuilt_are_the_real_ones(tables):
    """The re-deal's view of the past (kernels/hidden_fc.rebuild_at): in 2-player games under random,
    greedy and heuristic play, with Olympia, Halicarnassus and Manneken Pis at the Free City:
    - at every turn move, for both players, every Free City play the player did not see is legal
      in the rebuilt position with the card the real world holds there (fc_real_plays);
    - the three cities rebuilt for each earlier turn of the age are the real rows of that turn's
      start, field by field;
    - at each age's turn 6, for each of its turns and every card of the age, the kernels' answer
      (hidden_fc.fc_could: may the Free City build / build free / stage / discard it there) is the
      reference engine's (free_city_moves on the cities recorded then)."""
    seen = Counter()
    for policy, game, fc_board in REBUILD_GAMES:
        deal = dict(promo=True)
        if fc_board is not None:
            deal.update(board_spec=[-1, -1, tables.board_id(fc_board[0])], side_spec=[-1, -1, fc_board[1]])
        compared = set()
        for g, seat in _decisions(tables, 2, game, seed=11, policy=policy, **deal):
            st, sc = g.state[0], g.scratch[0]
            for who in (0, 1):
                checked, illegal = fc_real_plays(g.ent, g.board, st, sc, np.int32(who))
                assert checked >= 0 and illegal == 0, (policy, game, g.age, g.turn, who)
                seen["hidden plays"] += checked
            city = g.scratch["city"][0]
            for u, real in g.rows.items():
                assert rebuild_at(g.ent, g.board, st, np.int64(u), city)
                for s in range(3):
                    _same_city(real[s], city[s], g.age, s == 2)
                if g.turn == 6 and (g.age, u) not in compared:
                    compared.add((g.age, u))
                    if u == 1:
                        played = g.state["hist"][0][:5, 2, 1]
                        seen["free city stages"] += int((played == codes.ACT_STAGE).sum())
                        seen["free builds"] += int((played == codes.ACT_BUILD_FREE).sum())
                    cards = sorted({int(c) for c in g.state["dealt"][0][g.age - 1].ravel()})
                    for c in cards:
                        ref = {m.action for m in free_city_moves(g.starts[u], [c], g.age, None)}
                        for action in (codes.ACT_BUILD, codes.ACT_BUILD_FREE, codes.ACT_STAGE, codes.ACT_DISCARD):
                            assert fc_could(g.ent, g.board, st, sc, np.int16(c), np.int32(action)) == (action in ref), (
                                policy, game, g.age, u, tables.card_names[c], codes.ACTIONS[action])
                            seen[codes.ACTIONS[action]] += action in ref
        seen["free city discard builds"] += sum(1 for e in g.events()
                                                if e[0] == codes.DISCARD_BUILD and e[3] == 2 and e[4] >= 0)
    assert seen["hidden plays"] > 500 and seen["free city stages"] > 20, seen
    assert seen["free builds"] > 0 and seen["free city discard builds"] > 0, seen
    assert all(seen[codes.ACTIONS[a]] > 20 for a in range(4)), seen
