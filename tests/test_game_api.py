"""wsim.Game, the step-level API: games played by policy_move are wsim.simulate's, options and
observations as documented, every misuse a WsimError."""

import pytest

import wsim
from wsim.api.game import GameError
from wsim.logtext import log_text
from wsim.run.runner import Runner, game_log
from wsim.run.settings import build_settings


def _play_by_policy_moves(g: wsim.Game) -> list:
    while not g.done:
        g.step({d.seat: g.policy_move(d.seat) for d in g.pending()})
    return g.scores()


@pytest.mark.slow
@pytest.mark.parametrize("players, policies", [
    (2, "heuristic"), (3, "random"), (4, ["greedy", "heuristic", "random", "heuristic"]),
    (5, "heuristic"), (6, "greedy"), (7, "random"),
])
def test_policy_moves_play_the_games_simulate_plays(players, policies):
    table = wsim.simulate(games=3, players=players, policies=policies, seed=21, threads=1).to_pylist()
    for game in range(3):
        scores = _play_by_policy_moves(wsim.Game(players=players, seed=21, game=game, policies=policies))
        rows = [r for r in table if r["game"] == game]
        for row, score in zip(rows, scores, strict=True):
            assert {k: row[k] for k in score if k != "seat"} == {k: v for k, v in score.items() if k != "seat"}


EVERY_KIND = "fixed:manneken_pis/A,halicarnassus/A,babylon/B,olympia/A"  # copy3, discard builds, 7th cards, free builds


@pytest.mark.parametrize("policies", ["heuristic", "random"])  # greedy seldom builds stages
def test_every_kind_of_decision_plays_as_simulate(policies):
    table = wsim.simulate(games=4, players=4, policies=policies, wonders=EVERY_KIND, seed=3, threads=1).to_pylist()
    kinds = set()
    for game in range(4):
        g = wsim.Game(players=4, seed=3, game=game, policies=policies, wonders=EVERY_KIND)
        while not g.done:
            kinds |= {d.kind for d in g.pending()}
            g.step({d.seat: g.policy_move(d.seat) for d in g.pending()})
        assert [s["vp_total"] for s in g.scores()] == [r["vp_total"] for r in table if r["game"] == game]
    # random seldom gets Manneken Pis to its third stage in 4 games
    assert kinds == {"move", "seventh", "copy3", "discard_build"} - ({"copy3"} if policies == "random" else set())


@pytest.mark.slow  # the search's kernels
def test_rollout_policy_moves_play_the_game_simulate_plays():
    """A rollout seat's searched turn moves (listed by default purchase) and its base policy's
    other decisions, found in legal()'s every-purchase listing, are simulate's."""
    policies, params = ["rollout", "heuristic", "random"], ("rollout.playouts=2",)
    table = wsim.simulate(games=1, players=3, policies=policies, policy_params=params, seed=5, threads=1).to_pylist()
    scores = _play_by_policy_moves(wsim.Game(players=3, seed=5, policies=policies, policy_params=params))
    assert [s["vp_total"] for s in scores] == [r["vp_total"] for r in table]


def test_a_policy_named_at_the_call_plays_as_that_policy():
    table = wsim.simulate(games=1, players=4, policies="greedy", seed=4, threads=1).to_pylist()
    g = wsim.Game(players=4, seed=4, policies="random")  # the seats' own policy is not the one asked for
    while not g.done:
        g.step({d.seat: g.policy_move(d.seat, "greedy") for d in g.pending()})
    assert [s["vp_total"] for s in g.scores()] == [r["vp_total"] for r in table]


def test_pending_legal_and_step():
    g = wsim.Game(players=4, seed=0)
    pending = g.pending()
    assert [(d.seat, d.kind, d.decider) for d in pending] == [(s, "move", s) for s in range(4)]
    moves = g.legal(0)
    assert all(isinstance(m, wsim.Move) for m in moves)
    assert {m.action for m in moves} <= {"build", "build_free", "stage", "discard"}
    assert sum(m.action == "discard" for m in moves) == 7  # every card of the hand may be discarded
    g.step({0: 0})
    assert [d.seat for d in g.pending()] == [1, 2, 3]  # seat 0 has chosen; the round waits for the rest
    with pytest.raises(GameError, match="seat 0 has no decision to take now"):
        g.legal(0)
    g.step({1: 0, 2: 0, 3: 0})
    assert g.turn == 2 and len(g.pending()) == 4


def test_the_free_city_is_decided_by_its_controller():
    g = wsim.Game(players=2, seed=3)
    g.step({0: g.policy_move(0), 1: g.policy_move(1)})  # the Free City's move waits for its controller's
    assert [(d.seat, d.decider) for d in g.pending()] == [(2, 0)]
    assert _play_by_policy_moves(g)[2]["rank"] is None


@pytest.mark.parametrize("choice, message", [
    ({0: 999}, "seat 0: option index: must be a whole number from 0 to"),
    ({0: True}, "seat 0: option index: must be a whole number"),
    ({0: "1"}, "seat 0: option index: must be a whole number"),
    ({9: 0}, "seat: must be a whole number from 0 to 2, got 9"),
    ({}, "step: a mapping"),
])
def test_bad_steps_are_game_errors(choice, message):
    g = wsim.Game(players=3, seed=1)
    with pytest.raises(GameError, match=message):
        g.step(choice)
    assert len(g.pending()) == 3  # nothing was played


def test_other_misuses_are_wsim_errors():
    with pytest.raises(wsim.WsimError, match="game: must be a whole number from 0 to"):
        wsim.Game(game=-1)
    with pytest.raises(wsim.WsimError, match="players: must be a whole number from 2 to 7, got 8"):
        wsim.Game(players=8)
    g = wsim.Game(players=3)
    with pytest.raises(wsim.WsimError, match="policy: one of random, greedy, heuristic, rollout"):
        g.policy_move(0, "chess")
    with pytest.raises(wsim.WsimError, match="the game is not over"):
        g.scores()
    with pytest.raises(wsim.WsimError, match="seed: must be a whole number from 0 to"):
        g.resample(0, -1)


def test_resample_and_clone_keep_what_the_seat_sees():
    g = wsim.Game(players=4, seed=8)
    for _ in range(3):
        g.step({d.seat: g.policy_move(d.seat) for d in g.pending()})
    seen = g.observation(1)
    other = g.clone()
    other.resample(1, 12345)
    assert other.observation(1) == seen
    assert other.observation(1)["hand"] == seen["hand"]
    assert any(other.observation(s)["hand"] != g.observation(s)["hand"] for s in (0, 2, 3))
    _play_by_policy_moves(other)
    assert not g.done and g.observation(1) == seen  # the clone played on its own state


def test_replay_text_is_the_replay_commands(tables):
    g = wsim.Game(players=3, seed=6, game=2, policies="greedy")
    _play_by_policy_moves(g)
    settings = build_settings(tables, players=3, policies=["greedy"] * 3, seed=6, games=3)
    assert g.replay_text() == log_text(game_log(Runner(tables, settings), 2), ["greedy"] * 3)


@pytest.mark.slow  # the learned family's kernels
def test_a_game_plays_the_model_file_its_settings_name(negated_model):
    """learned.model=FILE is played by wsim.Game as by wsim.simulate (it once played the shipped
    model whatever the setting): with the model's value negated, the learned seat's moves change,
    and the game is still the one simulate plays with that file."""
    policies = ["learned", "heuristic", "heuristic", "heuristic"]
    params = (f"learned.model={negated_model}",)
    shipped = _play_by_policy_moves(wsim.Game(players=4, seed=8, policies=policies))
    negated = _play_by_policy_moves(wsim.Game(players=4, seed=8, policies=policies, policy_params=params))
    assert negated != shipped
    table = wsim.simulate(games=1, players=4, policies=policies, policy_params=params, seed=8, threads=1).to_pylist()
    for row, score in zip(table, negated, strict=True):
        assert {k: row[k] for k in score if k != "seat"} == {k: v for k, v in score.items() if k != "seat"}


@pytest.mark.slow
def test_a_model_file_changed_after_the_game_began_is_refused(negated_model, tmp_path):
    """The game plays the model its settings read, or none: a file replaced meanwhile is refused
    at the learned seat's first decision, before any move."""
    import shutil

    from wsim.run.model import SHIPPED

    path = tmp_path / "m.npz"
    shutil.copyfile(negated_model, path)
    g = wsim.Game(players=4, seed=8, policies=["learned", "heuristic", "heuristic", "heuristic"],
                  policy_params=(f"learned.model={path}",))
    shutil.copyfile(SHIPPED, path)
    before = g.observation(0)
    with pytest.raises(wsim.WsimError, match="its sha256 is not the one these seats were set to play"):
        g.policy_move(0)
    assert repr(g.observation(0)) == repr(before) and [d.seat for d in g.pending()] == [0, 1, 2, 3]


@pytest.mark.parametrize("players, seed", [(2, 5), (3, 7)])
def test_features_are_the_batched_environments_observation(players, seed):
    """Game.features(seat) is the vector BatchedEnv observes for that seat in the same position,
    after every step of a game both play by the seats' policy (at 2 players the controller's
    vector is for the Free City while it decides for it)."""
    import numpy as np

    from wsim.env.batched import BatchedEnv

    venv = BatchedEnv(num_games=1, players=players, seed=seed)
    obs, _ = venv.reset()
    g = wsim.Game(players=players, seed=seed, policies="heuristic")
    assert g.feature_names() == venv.feature_names()
    steps = 0
    while True:
        for seat in range(players):
            mine = g.features(seat)
            assert mine.dtype == np.float32 and np.array_equal(mine, obs["observation"][0, seat]), (steps, seat)
        g.step({d.seat: g.policy_move(d.seat) for d in g.pending()})
        obs, _, ended, _, _ = venv.step(venv.policy_actions("heuristic"))
        steps += 1
        if ended[0]:
            break
    assert g.done and steps >= 3 * 6
