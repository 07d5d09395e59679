"""The step-level kernel API (kernels/step.py) driven from Python (wsim.run.stepgame): the same games
as the batch kernel, every purchase option legal for the reference engine, clones independent,
and policies that see only their seat's observation (docs/rules.md §2)."""

import numpy as np
import pytest

from wsim import movelog
from wsim.kernels.deal import deal
from wsim.kernels.layout import (C_ACTION, C_CARD, C_COPY3, C_LEFT, C_RIGHT, C_SLOT, DEC_COPY3, DEC_DISCARD,
                                 DEC_MOVE, DEC_SEVENTH, F_CHOSEN, F_CTR, F_HAND, F_HAND2, M_ACTION, M_DEFAULT, M_LEFT, M_RIGHT,
                                 M_SLOT)
from wsim.reference.replay import replay
from wsim.run.runner import Runner, final_from_res
from wsim.run.settings import Settings
from wsim.kernels.schema import MAX_HAND
from wsim.kernels.step import decider
from wsim.kernels.policy import POLICY_NAMES
from wsim.run.stepgame import KernelGame, regions


@pytest.mark.parametrize("policy", ["random", "greedy"])
@pytest.mark.parametrize("players", range(3, 8))
def test_step_by_step_equals_the_batch(tables, players, policy):
    runner = Runner(tables, Settings(players=players, seed=4, policies=(policy,) * players, manneken_pis=True))
    chunk = runner.play(0, 8, log=True)
    for game in range(8):
        g = KernelGame(tables, players, seed=4, game=game, policy=policy, promo=True)
        g.play_out()
        res, cards = g.results()
        assert (res == chunk.res[game]).all() and (cards == chunk.cards[game]).all()
        assert g.events() == chunk.log[game, :chunk.n_log[game]].tolist()


def _random_purchase_game(tables, players, seed, game, rng):
    """A game whose seats pick uniformly among ALL legal options, purchases included."""
    g = KernelGame(tables, players, seed=seed, game=game, promo=True)
    seen_choices = 0
    for pending in g.rounds():
        for seat, kind in pending:
            options = g.legal(seat, kind, all_purchases=True)
            defaults = g.legal(seat, kind, all_purchases=False)
            # one default per (card, action) pair, and it is the first of its pair (a neighbour
            # or a pile card is an option of its own)
            pairs = [(r[M_SLOT], r[M_ACTION]) if kind in (DEC_MOVE, DEC_SEVENTH) else i for i, r in enumerate(options)]
            firsts = [i for i, p in enumerate(pairs) if i == 0 or pairs[i - 1] != p]
            assert [int(options[i, M_DEFAULT]) for i in range(len(options))] == \
                [1 if i in firsts else 0 for i in range(len(options))]
            assert (options[options[:, M_DEFAULT] == 1] == defaults).all()
            seen_choices += len(options) > len(defaults)
            g.apply(seat, kind, options, int(rng.integers(len(options))))
    return g, seen_choices


def test_every_listed_purchase_is_legal_for_the_reference(tables):
    """Games played with non-default purchases replay cleanly in the reference engine, which
    checks every payment against its own list of Pareto options."""
    rng = np.random.default_rng(3)
    choices = 0
    for players in range(3, 8):
        for game in range(6):
            g, seen = _random_purchase_game(tables, players, 9, game, rng)
            choices += seen
            boards, sides, hands = deal(tables, players, 9, game, promo_in_pool=True)
            res, _ = g.results()
            doc = movelog.to_json(tables, 9, game, boards.tolist(), sides.tolist(), hands.tolist(), g.events(),
                                  final_from_res(res))
            assert replay(tables, doc) == doc["final"]
    assert choices > 100  # decisions that really offered several purchases


def test_clones_are_independent(tables):
    g = KernelGame(tables, 5, seed=2, game=7, policy="greedy")
    for _ in range(3):
        for seat, kind in g.pending():
            options = g.legal(seat, kind)
            g.apply(seat, kind, options, g.decide(seat, kind, options))
        g.next()
    before = g.state.copy()
    c = g.clone()
    c.play_out()
    # field by field: the record's alignment padding is not state, and numpy need not copy it
    assert all((g.state[name] == before[name]).all() for name in g.state.dtype.names)
    g.play_out()
    assert (g.results()[0] == c.results()[0]).all()


def _perturb_hidden(g, seat, rng):
    """Change everything seat `seat` may not see: other hands, the later deal, the discard pile,
    other seats' choices this turn and their random streams."""
    seat_arr, keys, pile, gs, dealt, *_ = regions(g.state)
    n_cards = g.n_cards
    for t in range(g.n):
        if t == seat:
            continue
        seat_arr[t, F_HAND:F_HAND + MAX_HAND] = rng.integers(0, n_cards, MAX_HAND)
        seat_arr[t, F_HAND2:F_HAND2 + MAX_HAND] = rng.integers(0, n_cards, MAX_HAND)
        for f in (C_SLOT, C_CARD, C_ACTION, C_LEFT, C_RIGHT, C_COPY3):
            seat_arr[t, F_CHOSEN + f] = rng.integers(0, 3)
        seat_arr[t, F_CTR] = rng.integers(0, 1000)
        keys[t] = np.uint64(rng.integers(0, 2**63))
    dealt[:] = rng.integers(0, n_cards, dealt.shape)
    pile[:] = rng.integers(0, 3, pile.shape)
    g.state["hist"][0][:] = rng.integers(-1, n_cards, g.state["hist"][0].shape)
    g.state["took"][0][:] = rng.integers(0, n_cards, g.state["took"][0].shape)


def _another_world(g, seat, rng):
    """Move g to another state seat `seat` cannot tell from it: a re-deal of what it cannot see
    (kernels/hidden.py, its own checks in tests/test_hidden.py), then the other seats' scratch
    hands, choice fields and random streams changed as _perturb_hidden changes them."""
    g.resample_hidden(seat, int(rng.integers(0, 2**62)))
    seat_arr, keys = regions(g.state)[:2]
    for t in range(g.n):
        if t != seat:
            seat_arr[t, F_HAND2:F_HAND2 + MAX_HAND] = rng.integers(0, g.n_cards, MAX_HAND)
            for f in (C_SLOT, C_CARD, C_ACTION, C_LEFT, C_RIGHT, C_COPY3):
                seat_arr[t, F_CHOSEN + f] = rng.integers(0, 3)
            seat_arr[t, F_CTR] = rng.integers(0, 1000)
            keys[t] = np.uint64(rng.integers(0, 2**63))


@pytest.mark.parametrize("policy", ["random", "greedy", "heuristic"])
def test_policies_see_only_their_observation(tables, policy):
    """At every decision of many games, a policy decides the same when everything hidden from the
    deciding seat is changed (kinds covered: moves, 7th cards, stage-3 neighbours, discard builds)."""
    rng = np.random.default_rng(11)
    kinds = set()
    for players in (2, 3, 5, 7):
        for game in range(6):
            g = KernelGame(tables, players, seed=21, game=game, policy=policy, promo=True)
            for pending in g.rounds():
                for seat, kind in pending:
                    options = g.legal(seat, kind)
                    plain, changed = g.clone(), g.clone()
                    _perturb_hidden(changed, decider(g.gs, seat), rng)  # the Free City's: its controller's
                    choice = plain.decide(seat, kind, options)
                    assert changed.decide(seat, kind, options) == choice, (players, game, seat, kind)
                    kinds.add(kind)
                    g.apply(seat, kind, options, g.decide(seat, kind, options))
    assert {DEC_MOVE, DEC_COPY3, DEC_DISCARD} <= kinds


@pytest.mark.parametrize("base", ["heuristic", "random"])
def test_rollout_sees_only_its_observation(tables, base):
    """The rollout's re-deal and playouts read nothing hidden: moved to another state the deciding
    seat cannot tell from this one (everything it cannot see dealt again, the other seats'
    streams and choice fields changed), it decides the same (2 and 4 players, a few playouts to
    keep it short). With a random base the playouts draw for the other seats: from streams
    keyed on the deciding seat's own, never from theirs (which the real opponents will draw
    from)."""
    rng = np.random.default_rng(4)
    for players in (2, 4):
        g = KernelGame(tables, players, seed=3, game=1, policy="rollout", promo=True)
        g.params[:, 0] = 2  # playouts
        if base == "random":
            g.params[:, 1] = POLICY_NAMES.index("random")  # R_BASE_ID; random has no parameter row
        decided = 0
        for pending in g.rounds():
            for seat, kind in pending:
                options = g.legal(seat, kind, all_purchases=False)
                if kind == DEC_MOVE and g.turn in (1, 4, 6):
                    plain, changed = g.clone(), g.clone()
                    _another_world(changed, decider(g.gs, seat), rng)
                    assert changed.decide(seat, kind, options) == plain.decide(seat, kind, options)
                    decided += 1
                g.apply(seat, kind, options, g.decide(seat, kind, options))
        assert decided >= 9 * players


def test_a_move_names_its_purchase(tables):
    """legal rows carry the purchase: the default is the cheapest; the others cost at least as much."""
    rng = np.random.default_rng(5)
    g, _ = _random_purchase_game(tables, 4, 1, 3, rng)
    assert g.over
    g = KernelGame(tables, 4, seed=1, game=3)
    for pending in g.rounds():
        for seat, kind in pending:
            options = g.legal(seat, kind)
            for i in range(len(options)):
                if options[i, M_DEFAULT] == 0:
                    j = i
                    while options[j, M_DEFAULT] == 0:
                        j -= 1
                    assert options[i, M_LEFT] + options[i, M_RIGHT] >= options[j, M_LEFT] + options[j, M_RIGHT]
            g.apply(seat, kind, options, g.decide(seat, kind, options))


@pytest.mark.parametrize("how", ["in place", "assigned"])
def test_parameters_set_on_a_game_are_the_ones_it_plays(tables, how):
    """KernelGame.params is a view of the run record the kernels read, and assigning it writes
    into the record: greedy with every weight 0 values every option alike and takes the first,
    at every decision of a game."""
    g = KernelGame(tables, 4, seed=0, game=0, policy="greedy")
    if how == "in place":
        g.params[:] = 0
    else:
        g.params = np.zeros_like(g.params)
    picks = []
    for pending in g.rounds():
        for seat, kind in pending:
            options = g.legal(seat, kind, all_purchases=False)
            picks.append(g.decide(seat, kind, options))
            g.apply(seat, kind, options, picks[-1])
    assert len(picks) >= 72 and set(picks) == {0}
    default = KernelGame(tables, 4, seed=0, game=0, policy="greedy")
    assert any(default.decide(s, k, default.legal(s, k, all_purchases=False)) != 0 for s, k in default.pending())


def test_policies_assigned_to_a_game_are_the_ones_it_plays(tables):
    """Assigning KernelGame.policies and .params (as wsim.bench.playouts' callers may) writes
    them into the run record: a game made random and then given greedy's ends as a greedy game."""
    greedy = KernelGame(tables, 5, seed=3, game=2, policy="greedy")
    g = KernelGame(tables, 5, seed=3, game=2, policy="random")
    unchanged = KernelGame(tables, 5, seed=3, game=2, policy="random")
    g.policies, g.params = greedy.policies.copy(), greedy.params.copy()
    for game in (greedy, g, unchanged):
        game.play_out()
    assert np.array_equal(g.results()[0], greedy.results()[0])
    assert not np.array_equal(unchanged.results()[0], greedy.results()[0])


def test_a_clone_has_its_own_policies(tables):
    """KernelGame.clone copies the run record: a clone given other policies leaves the
    original's, and the original still plays its own game."""
    g = KernelGame(tables, 4, seed=5, game=1, policy="greedy")
    alone = KernelGame(tables, 4, seed=5, game=1, policy="greedy")
    c = g.clone()
    c.policies = np.full(4, POLICY_NAMES.index("random"), np.int32)
    assert list(g.policies) == [POLICY_NAMES.index("greedy")] * 4
    for game in (g, c, alone):
        game.play_out()
    assert np.array_equal(g.results()[0], alone.results()[0])
    assert not np.array_equal(c.results()[0], alone.results()[0])


def test_rounds_play_every_round_and_age_end_to_the_end(tables):
    """KernelGame.rounds: each round's pending decisions, an empty round at each age's end (after
    which military runs), until the game is over, where the game loop would have taken it."""
    g = KernelGame(tables, 4, seed=0, game=5, policy="greedy")
    whole = g.clone()
    whole.play_out()
    age_ends = 0
    for pending in g.rounds():
        age_ends += not pending
        for seat, kind in pending:
            options = g.legal(seat, kind)
            g.apply(seat, kind, options, g.decide(seat, kind, options))
    assert g.over and age_ends == 3
    assert all((a == b).all() for a, b in zip(g.results(), whole.results()))
