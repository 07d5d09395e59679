"""wsim.env.wonders_v1 (the AEC env): PettingZoo's own API and seed tests, rewards, turn moves
kept until every pending agent has acted, refusals that change nothing, render. Its games are
wsim.simulate's: tests/test_fronts.py."""

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the rl extra (make test installs it)")

from pettingzoo.test import api_test, seed_test  # noqa: E402

import wsim  # noqa: E402
from wsim.env import wonders_v1  # noqa: E402
from wsim.env.actions import EnvError  # noqa: E402


# api_test warns about every Dict observation space, the layout PettingZoo's own masked
# environments use ({"observation", "action_mask"}): not a problem of this environment
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.parametrize("players", [2, 4, 7])
def test_pettingzoo_api_and_seed_tests(players):
    api_test(wonders_v1.env(players=players, seed=1), num_cycles=300)
    seed_test(lambda: wonders_v1.env(players=players, seed=1), num_cycles=300)


def _final(env, policy: str = "greedy") -> dict:
    """{agent: (reward, info)} at the end of the game, every agent played by the policy."""
    out = {}
    for agent in env.agent_iter():
        _, reward, termination, truncation, info = env.last()
        if termination or truncation:
            out[agent] = (reward, info)
            env.step(None)
        else:
            env.step(env.unwrapped.policy_action(agent, policy))
    return out


def test_rewards_are_the_win_share_or_the_margin():
    for kind in ("win", "margin"):
        env = wonders_v1.env(players=3, seed=2, reward=kind)
        env.reset(seed=2)
        final = _final(env)
        totals = {a: info["vp_total"] for a, (_, info) in final.items()}
        if kind == "win":
            assert sum(r for r, _ in final.values()) == pytest.approx(1)
            assert all((r > 0) == (totals[a] == max(totals.values())) for a, (r, _) in final.items() if r > 0)
        else:
            assert all(r == totals[a] - max(t for b, t in totals.items() if b != a) for a, (r, _) in final.items())


def test_a_turn_move_is_kept_until_every_pending_agent_has_acted():
    """The core takes one action per pending seat: an agent's step changes no observation until
    the last pending agent acts, so the seats after it never see its choice this turn."""
    env = wonders_v1.env(players=4, seed=5)
    env.reset(seed=5)
    raw = env.unwrapped
    before = {a: env.observe(a)["observation"] for a in raw.possible_agents}
    for agent in raw.possible_agents[:3]:
        assert env.agent_selection == agent
        env.step(raw.policy_action(agent, "heuristic"))
        assert all(np.array_equal(env.observe(a)["observation"], before[a]) for a in raw.possible_agents)
        assert not env.observe(agent)["action_mask"].any()  # only the selected agent's mask is set
    env.step(raw.policy_action("player_3", "heuristic"))
    assert env.agent_selection == "player_0"
    assert not np.array_equal(env.observe("player_0")["observation"], before["player_0"])


def test_the_free_city_controller_acts_twice_in_a_turn():
    env = wonders_v1.env(players=2, seed=3)
    env.reset(seed=3)
    raw, order = env.unwrapped, []
    for agent in env.agent_iter():
        _, _, termination, truncation, _ = env.last()
        order.append(agent)
        env.step(None if termination or truncation else raw.policy_action(agent, "random"))
    doubled = sum(a == b for a, b in zip(order, order[1:]))
    assert doubled >= 17, doubled  # the Free City's move each turn, its controller's


def test_a_refused_step_changes_nothing_and_the_game_settings_are_checked():
    env = wonders_v1.env(players=3, seed=0)
    env.reset(seed=0)
    raw = env.unwrapped
    mask = env.observe(env.agent_selection)["action_mask"]
    before = raw.batched._states.tobytes(), env.agent_selection
    for bad, words in ((int(np.flatnonzero(mask == 0)[0]), "is not legal now"), (raw.batched.n_actions, "action"),
                       (1.5, "action")):
        with pytest.raises(EnvError, match=words):
            env.step(bad)
        assert (raw.batched._states.tobytes(), env.agent_selection) == before
    with pytest.raises(wsim.WsimError, match="reward: must be one of win, margin, got .points."):
        wonders_v1.env(reward="points")
    with pytest.raises(EnvError, match=r"^policy: one of random, greedy, heuristic \(the batched core cannot ask"):
        raw.policy_action(env.agent_selection, "rollout")
    with pytest.raises(EnvError, match="^policies: must be one of random, greedy, heuristic, got 'learned'"):
        wonders_v1.env(policies="learned")


def test_reset_plays_game_0_of_a_seed_then_the_next_games():
    """reset() mid-game plays the game out unseen: the next reset() is the seed's next game."""
    env = wonders_v1.env(players=3, seed=9, policies="heuristic")
    env.reset()
    first = env.observe(env.agent_selection)["observation"]
    env.step(env.unwrapped.policy_action(env.agent_selection, None))
    env.reset()
    assert env.unwrapped.game_index == 1 and env.unwrapped.seed_value == 9
    final = _final(env, "heuristic")
    table = wsim.simulate(games=2, players=3, seed=9, policies="heuristic", threads=1).to_pylist()
    assert [final[a][1]["vp_total"] for a in env.possible_agents] == [r["vp_total"] for r in table if r["game"] == 1]
    env.reset(seed=9)
    assert env.unwrapped.game_index == 0 and np.array_equal(env.observe("player_0")["observation"], first)


def test_render_ansi_says_who_decides_then_the_result():
    env = wonders_v1.env(players=3, seed=1, render_mode="ansi")
    env.reset(seed=1)
    assert env.render() == "game 0, age 1, turn 1: player_0 to decide"
    _final(env)
    assert env.render().startswith("game 0 of seed 1 is over: points [")
    assert wonders_v1.env(players=3).unwrapped.render() is None


def test_seats_asked_with_their_own_policies_play_simulates_game():
    """policy_action(agent, None) asks each seat's policy of policies=; the core keeps the copy
    each seat's policy chose (two copies of a name share an id at 7 players) although the later
    seats of the round ask another policy."""
    mixed = ["random", "greedy", "heuristic", "random", "heuristic", "greedy", "random"]
    env = wonders_v1.env(players=7, seed=2, policies=mixed)
    table = wsim.simulate(games=3, players=7, seed=2, policies=mixed, threads=1).to_pylist()
    for game in range(3):
        env.reset(seed=2) if game == 0 else env.reset()
        assert _final_own(env) == [r["vp_total"] for r in table if r["game"] == game], game


def _final_own(env) -> list:
    """Every agent's final points, each played by its seat's own policy."""
    out = {}
    for agent in env.agent_iter():
        _, _, termination, truncation, info = env.last()
        if termination or truncation:
            out[agent] = info["vp_total"]
            env.step(None)
        else:
            env.step(env.unwrapped.policy_action(agent, None))
    return [out[a] for a in env.possible_agents]
