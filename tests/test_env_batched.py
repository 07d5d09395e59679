"""The batched environment (wsim.env.batched_v0): its games are wsim.simulate's when every seat
takes its policy's action, its legal ids and masks are wsim.Game's, a bad action is refused
without moving any game, and a game's play depends on neither N nor the threads."""

import numpy as np
import pytest

import wsim
from wsim.api.game import DECISION_KINDS
from wsim.codes import ACTIONS, COPY_LEFT
from wsim.env import batched_v0
from wsim.env.actions import EnvError
from wsim.kernels.layout import DECLINE, M_ACTION, M_CARD, M_COPY3, M_SLOT
from wsim.run.runner import set_threads, available_cores


def _play(venv, games: int, choose) -> dict:
    """{game index: its final totals} of every game that ends until `games` have; choose(venv)
    gives each step's actions."""
    venv.reset()
    got = {}
    while len(got) < games:
        index = venv._book.game.copy()  # the game each slot plays before the step
        _, _, ended, _, info = venv.step(choose(venv))
        for g in np.flatnonzero(ended):
            got[int(index[g])] = info["vp_total"][g].copy()
    return got


def _simulated(players: int, seed: int, games: int, policies, **settings) -> np.ndarray:
    """(games, players) final totals of wsim.simulate's run."""
    t = wsim.simulate(games=games, players=players, seed=seed, policies=policies, threads=1, **settings)
    rows = t.to_pandas().sort_values(["game", "seat"])
    return rows.vp_total.to_numpy().reshape(games, -1)[:, :players]


# (players, the env's seats, the learners' policies, simulate's policies, settings)
EQUAL_CASES = [
    (2, None, "heuristic", "heuristic", {}),  # the Free City
    (2, [None, "greedy"], ["random", None], ["random", "greedy"], {}),
    (3, [None, "random", "heuristic"], ["heuristic", None, None], ["heuristic", "random", "heuristic"], {}),
    (4, None, "random", "random", {}),
    (4, [None, "heuristic", None, "greedy"], ["greedy", None, "heuristic", None],
     ["greedy", "heuristic", "heuristic", "greedy"], {}),
    (5, None, ["heuristic", "random", "greedy", "heuristic", "random"],
     ["heuristic", "random", "greedy", "heuristic", "random"], {"sides": "B"}),
    (6, None, "heuristic", "heuristic", {"manneken_pis": True}),
    (7, None, "greedy", "greedy", {"manneken_pis": True}),
]


@pytest.mark.parametrize("players,seats,learners,simulated,settings", EQUAL_CASES)
def test_games_equal_simulate_when_every_seat_plays_its_policy(players, seats, learners, simulated, settings):
    slots, games = 4, 10  # each slot plays two or three games: its next game is dealt in the step that ends one
    venv = batched_v0.env(num_games=slots, players=players, seed=5, policies=seats, **settings)
    got = _play(venv, games, lambda v: v.policy_actions(learners))
    expected = _simulated(players, 5, max(got) + 1, simulated, **settings)
    assert len(got) >= games
    for game, totals in got.items():
        assert totals.tolist() == expected[game].tolist(), f"game {game}"


def test_rotated_roles_equal_simulate_with_the_seats_turned():
    """With rotate, seat s of game i plays the role policies[(s - i) mod P]: the learner's (here
    played by its heuristic) and the kernel seats' alike."""
    roles = [None, "greedy", "random", "heuristic"]
    venv = batched_v0.env(num_games=3, players=4, seed=9, policies=roles, rotate=True)
    got = _play(venv, 8, lambda v: v.policy_actions(["random", None, None, None]))
    named = ["random", *roles[1:]]
    for game, totals in got.items():
        turned = [named[(s - game) % 4] for s in range(4)]
        assert totals.tolist() == _simulated(4, 9, game + 1, turned)[game].tolist(), f"game {game}"


def test_a_hand_with_two_copies_plays_the_copy_the_policy_chose():
    """Seven players deal two copies of some buildings: a hand may hold both (one action id for
    the two rows). The games still equal wsim.simulate's, and the case did occur."""
    venv = batched_v0.env(num_games=6, players=7, seed=2)
    venv.reset()
    hands = [i for i, name in enumerate(venv.feature_names()) if name.startswith("hand:")]
    twins, got = 0, {}
    while len(got) < 6:
        twins += int((venv._views.obs[:, :, hands] >= 2).sum())
        index = venv._book.game.copy()
        _, _, ended, _, info = venv.step(venv.policy_actions("heuristic"))
        for g in np.flatnonzero(ended):
            got[int(index[g])] = info["vp_total"][g].copy()
    expected = _simulated(7, 2, max(got) + 1, "heuristic")
    assert twins > 0
    assert all(totals.tolist() == expected[game].tolist() for game, totals in got.items())


def _row_words(row, kind: int, purchase: int, card_name) -> str:
    """A kernel row's action in ActionLayout's words, read from its columns: the independent reading
    the kernels' ids (kernels/actions.py) are checked against."""
    if kind == DECISION_KINDS.index("copy3"):
        return "copy left" if row[M_COPY3] == COPY_LEFT else "copy right"
    if row[M_ACTION] == DECLINE:
        return "decline"
    if kind == DECISION_KINDS.index("discard_build"):
        return f"take {card_name(row[M_CARD])}"
    return f"{ACTIONS[row[M_ACTION]]} {card_name(row[M_CARD])}" + (f" purchase {purchase}" if purchase else "")


def _game_ids(game, venv) -> dict:
    """{decider: (the decision, its kind, its legal ids)} of a wsim.Game's pending decisions: each
    listed row's words made into an id (a (card, action) pair's purchases follow its default one)."""
    out = {}
    for d in game.pending():
        kind = DECISION_KINDS.index(d.kind)
        ids, pair, purchase = [], None, 0
        for row in game._rows(d.seat, kind):
            key = (int(row[M_SLOT]), int(row[M_ACTION]))
            purchase = purchase + 1 if key == pair else 0
            pair = key
            words = _row_words(row, kind, purchase, lambda c: venv._names[venv._tables.card_name_id[c]])
            ids.append(venv.action_from_string(words))
        out[d.decider] = (d, kind, ids)
    return out


@pytest.mark.parametrize("players,settings", [(2, {}), (4, {"sides": "B"}), (7, {"manneken_pis": True})])
def test_legal_ids_and_masks_equal_game_legal(players, settings):
    slots = 3
    venv = batched_v0.env(num_games=slots, players=players, seed=8, **settings)
    _, info = venv.reset()
    games = [wsim.Game(players=players, seed=8, game=g, **settings) for g in range(slots)]
    live = set(range(slots))
    steps = 0
    while live:
        mask = venv._views.mask
        for g in sorted(live):
            pending = _game_ids(games[g], venv)
            acting = {s for s in range(players) if info["legal_count"][g, s] > 0}
            assert acting == set(pending), f"slot {g}, step {steps}"
            for s, (_, _, ids) in pending.items():
                listed = info["legal_ids"][g, s, :info["legal_count"][g, s]].tolist()
                assert sorted(listed) == sorted(set(ids))
                assert np.flatnonzero(mask[g, s]).tolist() == sorted(set(ids))
        actions = venv.sample_legal().copy()
        _, _, ended, _, info = venv.step(actions)
        for g in sorted(live):
            pending = _game_ids(games[g], venv)
            games[g].step({d.seat: ids.index(int(actions[g, s])) for s, (d, _, ids) in pending.items()})
            if ended[g]:
                assert games[g].done
                assert info["vp_total"][g].tolist() == [p["vp_total"] for p in games[g].scores()][:players]
                live.discard(g)
        steps += 1


def _snapshot(venv) -> list:
    return [a.copy() for a in (venv._states, *venv._book, *venv._views)]


@pytest.mark.parametrize("bad,words", [
    (lambda a, legal: 10**6, "is out of range"),
    (lambda a, legal: -5, "is out of range"),
    (lambda a, legal: next(i for i in range(10**4) if i not in legal), "is not one of its legal actions"),
])
def test_a_bad_action_is_refused_naming_game_and_seat_and_no_game_moves(bad, words):
    venv = batched_v0.env(num_games=5, players=3, seed=1)
    venv.reset()
    for _ in range(4):
        venv.step(venv.sample_legal())
    actions = venv.sample_legal().copy()
    legal = set(venv._book.legal[3, 2, :venv._book.n_legal[3, 2]].tolist())
    actions[3, 2] = bad(actions, legal)
    before = _snapshot(venv)
    with pytest.raises(EnvError, match=rf"game {int(venv._book.game[3])} \(slot 3\), seat 2: action .* {words}"):
        venv.step(actions)
    for a, b in zip(before, _snapshot(venv)):
        assert np.array_equal(a, b)
    venv.step(venv.sample_legal())  # the environment plays on


def test_a_seat_without_a_decision_must_pass_minus_one_and_shapes_are_checked():
    venv = batched_v0.env(num_games=2, players=2, seed=4)  # the Free City: a controller acts alone at times
    venv.reset()
    for _ in range(200):
        actions = venv.sample_legal().copy()
        idle = np.argwhere(actions < 0)
        if len(idle):
            break
        venv.step(actions)
    g, s = idle[0]
    actions[g, s] = 0
    with pytest.raises(EnvError, match=rf"slot {g}\), seat {s}: action 0 was given by a seat with no decision"):
        venv.step(actions)
    with pytest.raises(EnvError, match=r"shape \(2, 2\)"):
        venv.step(np.zeros((2, 3), np.int64))
    with pytest.raises(EnvError, match="integer array"):
        venv.step(np.zeros((2, 2), np.float64))


def test_settings_are_checked():
    with pytest.raises(EnvError, match="at least one seat must be a learner"):
        batched_v0.env(num_games=2, players=3, policies=["random"] * 3)
    with pytest.raises(EnvError, match="policies: each a policy name"):
        batched_v0.env(num_games=2, players=3, policies=[None, "rollout", None])
    with pytest.raises(EnvError, match="num_games"):
        batched_v0.env(num_games=0)
    with pytest.raises(EnvError, match="call reset"):
        batched_v0.env(num_games=2).step(np.zeros((2, 4), np.int64))


def test_a_game_depends_on_neither_the_slots_nor_the_threads():
    """Game i is the same game whether N is 3 or 7 and on one thread or every core: its deal, its
    kernel seats and the draws of sample_legal all come from (seed, i)."""
    runs = []
    try:
        for slots, threads in ((3, 1), (7, available_cores())):
            set_threads(threads)
            venv = batched_v0.env(num_games=slots, players=4, seed=11, policies=[None, "heuristic", None, "random"],
                                  rotate=True)
            runs.append(_play(venv, 9, lambda v: v.sample_legal()))
    finally:
        set_threads(None)
    shared = sorted(set(runs[0]) & set(runs[1]))
    assert len(shared) >= 6
    assert all(runs[0][i].tolist() == runs[1][i].tolist() for i in shared)


def test_learner_seats_rotate_by_game():
    venv = batched_v0.env(num_games=8, players=4, seed=0, policies=[None, "greedy", "greedy", "greedy"], rotate=True)
    venv.reset()
    for _ in range(30):
        index = venv._book.game
        obs = venv._views.obs
        for g in range(8):
            learner = int(index[g]) % 4
            assert not venv.acting()[g, np.arange(4) != learner].any()
            others = [s for s in range(4) if s != learner]
            assert not obs[g, others].any() and obs[g, learner].any()
        venv.step(venv.sample_legal())


def test_rewards_and_final_observation_of_an_ended_game():
    venv = batched_v0.env(num_games=4, players=3, seed=6, reward="margin")
    venv.reset()
    for _ in range(100):
        obs, rewards, ended, truncated, info = venv.step(venv.sample_legal())
        assert not truncated.any()
        if ended.any():
            break
    g = int(np.flatnonzero(ended)[0])
    vp = info["vp_total"][g].astype(int)
    assert rewards[g].tolist() == [vp[s] - max(np.delete(vp, s)) for s in range(3)]
    assert not (rewards[~ended] != 0).any()
    assert info["_final_obs"][g]
    age3 = venv.feature_names().index("age=3")
    assert info["final_obs"]["observation"][g, :, age3].all()  # the last observation: Age III
    # Gymnasium's names before 1.0, kept one release: the same arrays
    assert info["final_observation"] is info["final_obs"]["observation"]
    assert info["_final_observation"] is info["_final_obs"]
    assert obs["observation"][g, :, venv.feature_names().index("age=1")].all()  # the next game's first


def test_action_words_round_trip():
    venv = batched_v0.env(num_games=1, players=3)
    venv.reset()
    for a in venv._book.legal[0, 0, :venv._book.n_legal[0, 0]]:
        assert venv.action_from_string(venv.action_to_string(int(a))) == a


@pytest.mark.deep  # compiles the batched kernels' learned variant (about 40 s)
def test_a_learned_kernel_seat_plays_simulate_games():
    seats = [None, "learned", "heuristic"]
    venv = batched_v0.env(num_games=3, players=3, seed=2, policies=seats)
    got = _play(venv, 6, lambda v: v.policy_actions(["greedy", None, None]))
    expected = _simulated(3, 2, max(got) + 1, ["greedy", "learned", "heuristic"])
    assert all(totals.tolist() == expected[game].tolist() for game, totals in got.items())


def test_a_games_outcome_shares_the_win_among_tied_winners_and_leaves_the_free_city_out():
    """score.outcome, the one reward of the batched environment and of the training tapes: at 2
    players the Free City (seat 2) has the most points, yet neither wins nor sets the margin."""
    from wsim.kernels.layout import RES_COUNT, RES_RANK, RES_TOTAL
    from wsim.kernels.score import outcome

    res = np.zeros((3, RES_COUNT), np.int16)
    res[:, RES_TOTAL] = [50, 50, 70]
    res[:, RES_RANK] = [1, 1, 0]
    assert outcome(res, 2, 0) == (0.5, 0) and outcome(res, 2, 1) == (0.5, 0)
    res[1, RES_TOTAL], res[1, RES_RANK] = 40, 2
    assert outcome(res, 2, 0) == (1.0, 10) and outcome(res, 2, 1) == (0.0, -10)


def test_asking_one_seat_at_a_time_draws_only_that_seats_stream():
    """policy_actions with None for a learner seat leaves it alone: seats asked one by one get the
    ids one ask of every seat gets, and a step of them plays simulate's random games."""
    together = batched_v0.env(num_games=2, players=3, seed=5)
    apart = batched_v0.env(num_games=2, players=3, seed=5)
    together.reset(), apart.reset()
    for _ in range(40):
        both = together.policy_actions("random").copy()
        asked = np.full_like(both, -1)
        for seat in range(3):
            names = [None] * 3
            names[seat] = "random"
            asked[:, seat] = apart.policy_actions(names)[:, seat]
        assert (asked == both).all()
        together.step(both), apart.step(asked)
    assert (together.acting() == apart.acting()).all()
