"""The training example (wsim.env.ppo): its pieces, a few seconds of training in `make test`,
and the documented run to its documented strength in `make verify`."""

import os

import numpy as np
import pytest

from wsim.errors import WsimError

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


def test_a_few_seconds_of_training_run_evaluate_and_save(tmp_path, capsys):
    cfg = ppo.Config(num_envs=8, steps=20, hidden=16, epochs=1, minibatches=2, opponents="random")
    params, curve = ppo.train(cfg, minutes=0.02, eval_games=16, log=lambda line: None)
    minutes, steps, rows = curve[-1]
    assert steps >= 8 * 20 and set(rows) == {"random", "greedy", "heuristic"}
    assert all(0 <= r["share"] <= 1 and r["games"] == 16 for r in rows.values())
    path = tmp_path / "w.npz"
    ppo.save(params, path)
    back = ppo.load(path)
    assert all(np.array_equal(back[k]["w"], params[k]["w"]) for k in params)
    with pytest.raises(WsimError, match="exists \\(use --overwrite to replace it\\)"):
        ppo.save(params, path)
    ppo.main(["--evaluate", str(path), "--games", "2"])
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["against 3 random", "against 3 greedy", "against 3 heuristic"]
    assert all(line.endswith("over 2 games") for line in lines)


def test_the_evaluation_interval_is_wilsons_within_0_and_1():
    """A share with its 95% interval inside [0, 1] however few the games (the normal interval of
    three games went below 0): Wilson's, of the shares' sum (a tie counts 1/k of a win)."""
    import jax

    from wsim.analysis.stats import wilson_interval
    from wsim.env import batched_v0

    env = batched_v0.vector_env(num_envs=1, players=4).batched
    params = ppo.init_params(jax.random.PRNGKey(0), env.n_features, env.n_actions, 8)
    row = ppo.evaluate(params, "random", 3)
    lo, hi = row["ci95"]
    assert row["games"] == 3 and 0 <= lo <= row["share"] <= hi <= 1
    assert (lo, hi) == wilson_interval(row["share"] * 3, 3)


@pytest.fixture
def no_training(monkeypatch):
    monkeypatch.setattr(ppo, "train", lambda *a, **kw: pytest.fail("trained before refusing"))
    monkeypatch.setattr(ppo, "evaluate", lambda *a, **kw: pytest.fail("evaluated before refusing"))


def _error(argv, capsys) -> str:
    with pytest.raises(SystemExit) as ended:
        ppo.main(argv)
    assert ended.value.code == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    return lines[-1]


def test_every_mistake_is_an_error_line_and_exit_2_before_training(tmp_path, capsys, no_training):
    """Every argument is checked before the first training step or evaluation game: --out as a
    single output file (an existing file only with --overwrite, never what is not a regular
    file), the numbers in range, --evaluate a file of these weights (a `wsim learn` model or junk
    named as such); nothing on disk changes."""
    from wsim.run.model import SHIPPED

    mine = tmp_path / "mine.npz"
    mine.write_bytes(b"precious")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    cases = [
        (["--minutes", "-1"], "--minutes: must be a number above 0 and below 100000, got -1.0"),
        (["--minutes", "nan"], "--minutes: must be a number above 0 and below 100000, got nan"),
        (["--minutes", "x"], "argument --minutes: invalid float value: 'x'"),
        (["--eval-every", "-2"], "--eval-every: must be a number above 0 and below 100000, got -2.0"),
        (["--num-envs", "0"], "--num-envs: must be a whole number from 1 to 4,096, got 0"),
        (["--num-envs", "1000000"], "--num-envs: must be a whole number from 1 to 4,096, got 1000000"),
        (["--eval-games", "0"], "--eval-games: must be a whole number from 1 to 1,000,000, got 0"),
        (["--games", "0"], "--games: must be a whole number from 1 to 1,000,000, got 0"),
        (["--opponents", "nope"], "--opponents: must be one of random, greedy, heuristic, learned, got 'nope'"),
        (["--out", str(tmp_path / "no" / "w.npz")],
         f"--out: the folder {tmp_path / 'no'} does not exist (create it first)"),
        (["--out", str(mine)], f"--out: {mine} exists (use --overwrite to replace it)"),
        (["--out", str(fifo), "--overwrite"], f"--out: {fifo} is not a regular file"),
        (["--evaluate", str(tmp_path / "nosuch.npz")], "cannot be read (No such file or directory)"),
        (["--evaluate", str(fifo)], "cannot be read (a FIFO (named pipe), not a regular file)"),
        (["--evaluate", str(mine)], "not a weights file (File is not a zip file)"),
        (["--evaluate", str(SHIPPED)], "(its arrays are b1, b2, header, w1, w2; a `wsim learn` model plays as "
                                       "--policy-param learned.model=FILE)"),
        (["--evaluate", str(SHIPPED), "--out", str(tmp_path / "w.npz")], "--out: not with --evaluate, which writes "
                                                                          "nothing"),
    ]
    for argv, message in cases:
        line = _error(argv, capsys)
        assert line.startswith("Error: ") and line.endswith(message), (argv, line)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "mine.npz"] and mine.read_bytes() == b"precious"


@pytest.mark.deep
def test_the_documented_run_beats_three_greedy_seats():
    """docs/env.md's run: ≥ 30% of the win against three greedy seats over 1,000 games."""
    params, _ = ppo.train(ppo.Config(), minutes=20, eval_every=0, eval_games=100, log=print)
    row = ppo.evaluate(params, "greedy", 1000)
    assert row["ci95"][0] >= 0.30, row
