"""The training example (wsim.env.ppo): its pieces, a few seconds of training in `make test`,
and the documented run to its documented strength in `make verify`."""

import numpy as np
import pytest

ppo = pytest.importorskip("wsim.env.ppo")  # the ppo extra (jax, optax)


def test_advantages_with_gamma_one_stop_at_a_game_end():
    rewards = np.array([[0.0], [1.0]], np.float32)
    values = np.array([[0.5], [0.2]], np.float32)
    dones = np.array([[0.0], [1.0]], np.float32)  # the game ends at step 1: the next value (9) is not counted
    adv, ret = ppo.advantages(rewards, values, dones, np.array([9.0], np.float32), lam=1.0)
    assert adv[:, 0].tolist() == pytest.approx([0.5, 0.8])
    assert ret[:, 0].tolist() == pytest.approx([1.0, 1.0])


def test_sampled_and_best_actions_are_legal():
    import jax

    params = ppo.init_params(jax.random.PRNGKey(1), 5, 7, 8)
    obs = np.random.default_rng(0).normal(size=(64, 5)).astype(np.float32)
    mask = np.zeros((64, 7), np.int8)
    mask[np.arange(64), np.arange(64) % 7] = 1
    mask[::2, 3] = 1
    action, logp, _ = ppo.act(params, obs, mask, jax.random.PRNGKey(2))
    assert mask[np.arange(64), np.asarray(action)].all() and (np.asarray(logp) <= 0).all()
    assert mask[np.arange(64), np.asarray(ppo.best(params, obs, mask))].all()


def test_a_few_seconds_of_training_run_evaluate_and_save(tmp_path):
    cfg = ppo.Config(num_envs=8, steps=20, hidden=16, epochs=1, minibatches=2, opponents="random")
    params, curve = ppo.train(cfg, minutes=0.02, eval_games=16, log=lambda line: None)
    minutes, steps, rows = curve[-1]
    assert steps >= 8 * 20 and set(rows) == {"random", "greedy", "heuristic"}
    assert all(0 <= r["share"] <= 1 and r["games"] == 16 for r in rows.values())
    path = tmp_path / "w.npz"
    ppo.save(params, str(path))
    back = ppo.load(str(path))
    assert all(np.array_equal(back[k]["w"], params[k]["w"]) for k in params)


@pytest.mark.deep
def test_the_documented_run_beats_three_greedy_seats():
    """docs/env.md's run: ≥ 30% of the win against three greedy seats over 1,000 games."""
    params, _ = ppo.train(ppo.Config(), minutes=20, eval_every=0, eval_games=100, log=print)
    row = ppo.evaluate(params, "greedy", 1000)
    assert row["ci95"][0] >= 0.30, row
