"""The learner's kit of wonders_v0: action ids in words and back, and the observation's names."""

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the rl extra (make test installs it)")

from wsim import codes  # noqa: E402
from wsim.env import wonders_v0  # noqa: E402
from wsim.env.wonders_v0 import EnvError  # noqa: E402
from wsim.kernels.layout import F_COINS, F_STAGES  # noqa: E402
from wsim.run.stepgame import CITY_FIELDS  # noqa: E402


def test_every_action_id_in_words_and_back():
    env = wonders_v0.env(players=4, seed=0).unwrapped
    words = [env.action_to_string(a) for a in range(env.layout.size)]
    assert len(set(words)) == env.layout.size
    assert [env.action_from_string(w) for w in words] == list(range(env.layout.size))
    assert words[0] == "build Lumber Yard" and words[-1] == "decline"
    assert env.action_from_string("stage Tavern purchase 2") == (
        (env._building_names.index("Tavern") * 4 + codes.ACTIONS.index("stage")) * 16 + 2)
    for bad in ("build Nothing", "copy up", "take", 7, "discard Tavern purchase 99"):
        with pytest.raises(EnvError, match="names no action"):
            env.action_from_string(bad)
    with pytest.raises(EnvError, match="action"):
        env.action_to_string(env.layout.size)
    par = wonders_v0.parallel_env(players=3, seed=0)
    assert par.action_to_string(par.wait) == "wait" and par.action_from_string("wait") == par.wait
    assert par.action_from_string("decline") == env.layout.decline


@pytest.mark.parametrize("players", [2, 5])
def test_the_feature_names_name_the_observation(players):
    env = wonders_v0.env(players=players, seed=4)
    env.reset(seed=4)
    raw = env.unwrapped
    names = raw.feature_names()
    assert len(names) == len(set(names)) == raw.observation_space("player_0")["observation"].shape[0]
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        vec = dict(zip(names, obs["observation"].tolist()))
        seat = raw._seat[agent]
        seen = raw.game.observation(seat)
        assert vec[f"age={raw.game.age}"] == 1 and vec[f"turn={raw.game.turn}"] == 1
        assert sum(v for n, v in vec.items() if n.startswith("hand:")) == len(seen["hand"])
        assert vec["pile"] == sum(seen["pile_by_age"])
        left = (seat + 1) % raw.cities  # city1: the left neighbour
        assert vec["city1:coins"] == seen["cities"][left][CITY_FIELDS.index(F_COINS)]
        assert vec["city0:stages"] == seen["cities"][seat][CITY_FIELDS.index(F_STAGES)]
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
