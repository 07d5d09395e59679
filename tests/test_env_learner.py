"""One learner seat: the Gymnasium vector environment over the batched one
(batched_v0.vector_env) and the single-agent wrapper over the AEC env (single.single_learner)."""

import warnings

import numpy as np
import pytest

import wsim
from wsim.env import batched_v0, single
from wsim.env.actions import EnvError

gymnasium = pytest.importorskip("gymnasium")


def test_vector_env_spaces_and_the_learner_seat():
    venv = batched_v0.vector_env(num_envs=6, players=4, opponents="greedy", seed=3)
    obs, info = venv.reset()
    assert isinstance(venv, gymnasium.vector.VectorEnv)
    assert obs["observation"].shape == (6, venv.batched.n_features) and obs["observation"].dtype == np.float32
    assert obs["action_mask"].shape == (6, venv.batched.n_actions) and obs["action_mask"].dtype == np.int8
    assert venv.single_action_space.n == venv.batched.n_actions
    assert info["seat"].tolist() == [g % 4 for g in range(6)]
    for _ in range(25):
        b = venv.batched
        seats = np.asarray(b._book.game) % 4
        for g in range(6):  # the learner's mask is its legal ids, and only the learner acts
            ids = b._book.legal[g, seats[g], :b._book.n_legal[g, seats[g]]]
            assert np.flatnonzero(obs["action_mask"][g]).tolist() == sorted(ids.tolist())
            assert b.acting()[g].tolist() == [s == seats[g] for s in range(4)]
            assert np.array_equal(obs["observation"][g], b._views.obs[g, seats[g]])
        obs, *_ = venv.step(venv.sample_legal())


def test_vector_env_games_equal_simulate_and_rewards_are_the_learners():
    """The learner played by greedy against three greedy seats: every game is simulate's greedy
    game, and a step that ends one gives the learner's win share and points at its seat."""
    venv = batched_v0.vector_env(num_envs=4, players=4, opponents="greedy", seed=7)
    venv.reset()
    expected = wsim.simulate(games=12, players=4, seed=7, policies="greedy", threads=1).to_pandas()
    seen = 0
    while seen < 8:
        games = venv.batched._book.game.copy()
        obs, rewards, ended, truncated, info = venv.step(venv.policy_actions("greedy"))
        assert rewards.shape == (4,) and not truncated.any()
        for g in np.flatnonzero(ended):
            game, seat = int(games[g]), int(info["seat"][g])
            assert seat == game % 4
            rows = expected[expected.game == game]
            mine = rows[rows.seat == seat].iloc[0]
            assert int(info["vp_total"][g]) == mine.vp_total
            assert rewards[g] == pytest.approx(1 / rows.win.sum() if mine.win else 0.0)
            assert info["_final_obs"][g] and info["final_obs"]["observation"][g].any()
            seen += 1
        assert not rewards[~ended].any()


def test_vector_env_refuses_a_bad_action_and_settings():
    venv = batched_v0.vector_env(num_envs=3, players=3, opponents=["random", "heuristic"])
    venv.reset()
    actions = venv.sample_legal().copy()
    actions[1] = venv.batched.n_actions + 3
    with pytest.raises(EnvError, match=r"slot 1\), seat 1: action \d+ is out of range"):
        venv.step(actions)
    with pytest.raises(EnvError, match=r"shape \(3,\)"):
        venv.step(np.zeros((3, 3), np.int64))
    with pytest.raises(EnvError, match="opponents"):
        batched_v0.vector_env(num_envs=2, players=3, opponents=[None, "random"])


def test_single_learner_passes_gymnasium_check_env_with_on_illegal_legal():
    from gymnasium.utils.env_checker import check_env

    env = single.single_learner(players=3, seat=1, opponents="greedy", on_illegal="legal")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checker's notes on the int16 Box and the Dict space
        check_env(env, skip_render_check=True)
    strict = single.single_learner(players=3, seat=1, opponents="greedy")
    obs, _ = strict.reset(seed=0)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(EnvError, match="is not legal now"):
        strict.step(illegal)


def test_single_learner_plays_simulate_games():
    """The learner played by the heuristic against heuristic seats: simulate's game 0."""
    expected = wsim.simulate(games=1, players=4, seed=4, policies="heuristic", threads=1).to_pandas()
    env = single.single_learner(players=4, seat=2, opponents="heuristic")
    env.reset(seed=4)
    done, steps = False, 0
    while not done:
        obs, reward, done, truncated, info = env.step(env.raw.policy_action(env.agent, "heuristic"))
        steps += 1
    mine = expected[expected.seat == 2].iloc[0]
    assert info["scores"]["vp_total"] == mine.vp_total
    assert reward == pytest.approx(1 / expected.win.sum() if mine.win else 0.0)
    assert steps >= 18


def _opponents_points(env) -> list:
    """Every seat's final points of game 0 of seed 4, the learner played by greedy."""
    env.reset(seed=4)
    terminated = False
    while not terminated:
        _, _, terminated, _, _ = env.step(env.raw.policy_action(env.agent, "greedy"))
    return [s["vp_total"] for s in env.raw.game.scores()]


@pytest.mark.slow  # the learned family's kernels
def test_opponents_play_the_model_file_policy_params_name(negated_model):
    """policy_params reach single_learner's opponents (the AEC env's policies and parameters):
    learned opponents playing a model whose value is negated play another game than the
    shipped model's, and wsim.simulate's game with that file."""
    shipped = _opponents_points(single.single_learner(players=3, opponents="learned"))
    params = (f"learned.model={negated_model}",)
    negated = _opponents_points(single.single_learner(players=3, opponents="learned", policy_params=params))
    assert negated != shipped
    table = wsim.simulate(games=1, players=3, seed=4, policies=["greedy", "learned", "learned"],
                          policy_params=params, threads=1).to_pylist()
    assert [r["vp_total"] for r in table] == negated
