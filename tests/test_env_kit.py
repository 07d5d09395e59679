"""The learner's kit of every front: action ids in words and back, and the observation's names
(kernels/observe.py's, the same for every front)."""

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the rl extra (make test installs it)")

from wsim import codes  # noqa: E402
from wsim.env import batched_v0, single, wonders_v1  # noqa: E402
from wsim.env.actions import EnvError  # noqa: E402


def test_every_action_id_in_words_and_back():
    env = wonders_v1.env(players=4, seed=0).unwrapped
    words = [env.action_to_string(a) for a in range(env.layout.size)]
    assert len(set(words)) == env.layout.size
    assert [env.action_from_string(w) for w in words] == list(range(env.layout.size))
    assert words[0] == "build Lumber Yard" and words[-1] == "decline"
    names = env.batched._names
    assert env.action_from_string("stage Tavern purchase 2") == (
        (names.index("Tavern") * 4 + codes.ACTIONS.index("stage")) * 16 + 2)
    for bad in ("build Nothing", "copy up", "take", 7, "discard Tavern purchase 99"):
        with pytest.raises(EnvError, match="names no action"):
            env.action_from_string(bad)
    with pytest.raises(EnvError, match="action"):
        env.action_to_string(env.layout.size)
    par = wonders_v1.parallel_env(players=3, seed=0)
    assert par.action_to_string(par.wait) == "wait" and par.action_from_string("wait") == par.wait
    assert par.action_from_string("decline") == env.layout.decline
    learner = single.single_learner(players=4)
    vector = batched_v0.vector_env(num_envs=1, players=4)
    assert [learner.action_to_string(a) for a in range(0, env.layout.size, 97)] == words[::97]
    assert vector.action_from_string("take Baths") == env.action_from_string("take Baths")


@pytest.mark.parametrize("players", [2, 5])
def test_every_front_names_the_observation_as_the_encoder_does(players):
    from wsim.kernels.observe import names

    env = wonders_v1.env(players=players, seed=4)
    raw = env.unwrapped
    expected = names(raw.batched._tables)
    assert raw.feature_names() == expected == wonders_v1.parallel_env(players=players).feature_names()
    assert single.single_learner(players=players).feature_names() == expected
    assert batched_v0.vector_env(num_envs=1, players=players).feature_names() == expected
    assert len(expected) == len(set(expected)) == raw.observation_space("player_0")["observation"].shape[0]
    env.reset(seed=4)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        vec = dict(zip(expected, obs["observation"].tolist()))
        assert vec[f"players={players}"] == 1 and sum(v for n, v in vec.items() if n.startswith("age=")) == 1
        assert sum(v for n, v in vec.items() if n.startswith("hand:")) <= codes.HAND_SIZE + 1  # a Free City draw
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
