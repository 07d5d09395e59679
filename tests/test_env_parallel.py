"""wonders_v1.parallel_env: PettingZoo's parallel API test, the AEC env's games and observations
when every agent acts at once, WAIT for the agents with nothing to decide, refusals that change
nothing."""

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the rl extra (make test installs it)")

from pettingzoo.test import parallel_api_test  # noqa: E402

from wsim.env import wonders_v1  # noqa: E402
from wsim.env.actions import EnvError  # noqa: E402


@pytest.mark.parametrize("players", [2, 4, 7])
def test_pettingzoo_parallel_api_test(players):
    parallel_api_test(wonders_v1.parallel_env(players=players, seed=1), num_cycles=400)


def _lowest(mask) -> int:
    return int(np.flatnonzero(mask)[0])


@pytest.mark.parametrize("players", [2, 3, 5])
def test_the_parallel_env_plays_the_aec_envs_game(players):
    """The same rule (the lowest legal id) for every decision, taken at once or one agent after
    the other: the same game, the same final observations and rewards (each seat decides from
    its own view, so the order does not matter)."""
    par = wonders_v1.parallel_env(players=players, seed=3, manneken_pis=True)
    obs, _ = par.reset(seed=3)
    steps = 0
    while par.agents:
        waiting = [a for a in par.agents if obs[a]["action_mask"][par.wait] == 1]
        assert len(waiting) < len(par.agents)  # some agent always decides
        obs, rewards, terms, truncs, infos = par.step({a: _lowest(obs[a]["action_mask"]) for a in par.agents})
        steps += 1
    aec = wonders_v1.env(players=players, seed=3, manneken_pis=True)
    aec.reset(seed=3)
    decisions, aec_rewards = 0, {}
    for agent in aec.agent_iter():
        o, reward, term, trunc, _ = aec.last()
        aec_rewards[agent] = aec_rewards.get(agent, 0) + reward
        decisions += not (term or trunc)
        aec.step(None if term or trunc else _lowest(o["action_mask"]))
    assert par.table.vp_total == aec.unwrapped.table.vp_total == [i["vp_total"] for i in infos.values()]
    assert rewards == aec_rewards and sum(rewards.values()) == pytest.approx(1)
    # a step is a round (every player's turn move at once; at 2 players the Free City's after)
    assert steps < decisions and (players == 2 or steps <= decisions // 2)


def test_observations_and_masks_are_the_aec_envs_but_for_wait():
    par = wonders_v1.parallel_env(players=4, seed=5)
    obs, _ = par.reset(seed=5)
    aec = wonders_v1.env(players=4, seed=5)
    aec.reset(seed=5)
    first = aec.agent_selection  # every player decides a turn move: the AEC env asks player_0 first
    assert all(obs[a]["action_mask"][par.wait] == 0 for a in par.agents)
    o = aec.observe(first)
    assert np.array_equal(obs[first]["observation"], o["observation"])
    assert np.array_equal(obs[first]["action_mask"][:par.wait], o["action_mask"])


def test_a_refused_step_changes_nothing():
    par = wonders_v1.parallel_env(players=3, seed=2)
    obs, _ = par.reset(seed=2)
    legal = {a: _lowest(obs[a]["action_mask"]) for a in par.agents}
    before = par.batched._states.tobytes()
    illegal = int(np.flatnonzero(obs["player_1"]["action_mask"] == 0)[0])
    for actions, said in (({"player_0": legal["player_0"], "player_1": legal["player_1"]}, "player_2: no action given"),
                          ({**legal, "player_1": illegal}, f"player_1: action {illegal} is not legal now"),
                          ({**legal, "player_1": par.wait}, f"player_1: action {par.wait} is not legal now"),
                          ({**legal, "player_9": 0}, "'player_9' is not a live agent"),
                          ({**legal, "player_2": -1}, "player_2: action")):
        with pytest.raises(EnvError, match=said):
            par.step(actions)
        assert par.batched._states.tobytes() == before
    par.step(legal)
    assert par.batched._states.tobytes() != before
    # an agent with nothing to decide may give WAIT only
    while par.agents:
        obs = {a: o for a, o in par._observations().items()}
        waiting = [a for a in par.agents if obs[a]["action_mask"][par.wait] == 1]
        if waiting:
            deciding = {a: _lowest(obs[a]["action_mask"]) for a in par.agents}
            with pytest.raises(EnvError, match=f"{waiting[0]}: has nothing to decide now"):
                par.step({**deciding, waiting[0]: 0})
            return
        par.step({a: _lowest(obs[a]["action_mask"]) for a in par.agents})
    pytest.fail("no step with a waiting agent in a whole game")
