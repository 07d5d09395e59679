"""One learner seat: the Gymnasium vector environment (batched_v0.vector_env) and the
single-agent one (single.single_learner), both over the batched core. That their games are
wsim.simulate's and their observations the same: tests/test_fronts.py."""

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
        warnings.simplefilter("ignore")  # the checker's notes on the unbounded Box and the Dict space
        check_env(env, skip_render_check=True)
    strict = single.single_learner(players=3, seat=1, opponents="greedy")
    obs, _ = strict.reset(seed=0)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(EnvError, match="is not legal now"):
        strict.step(illegal)


def _opponents_points(env) -> list:
    """Every seat's final points of game 0 of seed 4, the learner played by greedy."""
    env.reset(seed=4)
    terminated = False
    while not terminated:
        _, _, terminated, _, _ = env.step(env.policy_action("greedy"))
    return env.table.vp_total


@pytest.mark.slow  # the learned family's kernels
def test_opponents_play_the_model_file_policy_params_name(negated_model):
    """policy_params reach single_learner's opponents (the core's kernel seats):
    learned opponents playing a model whose value is negated play another game than the
    shipped model's, and wsim.simulate's game with that file."""
    shipped = _opponents_points(single.single_learner(players=3, opponents="learned"))
    params = (f"learned.model={negated_model}",)
    negated = _opponents_points(single.single_learner(players=3, opponents="learned", policy_params=params))
    assert negated != shipped
    table = wsim.simulate(games=1, players=3, seed=4, policies=["greedy", "learned", "learned"],
                          policy_params=params, threads=1).to_pylist()
    assert [r["vp_total"] for r in table] == negated
