"""What the batched, vector and single-learner environments refuse, and what they hand out
(issue 55; findings 3, 6, 7, 8, 14 of reliability-5.md and its batched_v0 suggestions): a
Gymnasium collector owns what vector_env returns; a request beyond the memory is refused
before anything is allocated, naming the count that fits; every refusal is an EnvError that
names the argument and changes nothing (the games, the env's random stream, the arrays)."""

import tracemalloc

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the rl extra (make test installs it)")

from wsim.env import batched, batched_v0, single  # noqa: E402
from wsim.env.actions import EnvError  # noqa: E402

WRAPPED = np.uint64(2**64 - 1)  # read as int64, -1: a waiting seat's "no action"


def _snapshot(venv) -> list:
    """Copies of every array a BatchedEnv keeps."""
    return [a.copy() for a in venv._held.values()]


def _unchanged(before: list, venv) -> bool:
    return all(np.array_equal(a, b) for a, b in zip(before, _snapshot(venv)))


# -- vector_env: what a step returns is the caller's (finding 3) ------------------------------------

def test_a_collector_keeping_what_step_returns_counts_every_ended_game():
    """Transitions stored as returned keep their values (they were 25 views of one buffer, with
    no ended game in them)."""
    venv = batched_v0.vector_env(num_envs=4, players=3, opponents="greedy", seed=0)
    obs, info = venv.reset()
    kept, seen = [(obs, None, None, info)], []  # seen: copies taken at each step
    for _ in range(25):
        obs, rewards, ended, truncated, info = venv.step(venv.sample_legal())
        kept.append((obs, rewards, ended, info))
        seen.append((obs["observation"].copy(), rewards.copy(), ended.copy(), info["vp_total"].copy()))
    assert sum(int(k[2].sum()) for k in kept[1:]) == sum(int(s[2].sum()) for s in seen) >= 4
    for (obs, rewards, ended, info), (s_obs, s_rewards, s_ended, s_vp) in zip(kept[1:], seen):
        assert np.array_equal(obs["observation"], s_obs) and np.array_equal(rewards, s_rewards)
        assert np.array_equal(ended, s_ended) and np.array_equal(info["vp_total"], s_vp)
    for key in ("observation", "action_mask"):
        arrays = [k[0][key] for k in kept]
        assert not any(np.shares_memory(a, b) for i, a in enumerate(arrays) for b in arrays[i + 1:])
    infos = [k[3] for k in kept]
    for key in ("_final_obs", "vp_total", "seat", "game"):
        assert len({id(i[key]) for i in infos}) == len(infos)
    assert len({id(i["final_obs"]["observation"]) for i in infos}) == len(infos)
    assert not np.shares_memory(venv.sample_legal(), venv.sample_legal())


def test_copy_false_hands_out_the_observation_buffers_and_copies_the_rest():
    venv = batched_v0.vector_env(num_envs=3, players=3, opponents="random", seed=1, copy=False)
    first, _ = venv.reset()
    obs, rewards, ended, _, info = venv.step(venv.sample_legal())
    again, rewards2, ended2, _, info2 = venv.step(venv.sample_legal())
    assert again["observation"] is obs["observation"] is first["observation"]
    assert info2["final_obs"]["observation"] is info["final_obs"]["observation"]
    assert rewards2 is not rewards and ended2 is not ended and info2["vp_total"] is not info["vp_total"]
    with pytest.raises(EnvError, match="^copy: must be True or False, got 'no'$"):
        batched_v0.vector_env(num_envs=3, players=3, copy="no")


# -- memory: refused before allocating, naming the largest count that fits (finding 6) --------------

def test_a_million_games_at_seven_players_are_refused_on_this_machine():
    one = batched_v0.env(num_games=1, players=7).nbytes()
    available = batched.memory_available()
    if available is None or 10**6 * one <= available * batched.MEMORY_SHARE:
        pytest.skip(f"this machine has room for 10**6 games of {one:,} bytes")
    with pytest.raises(EnvError, match=r"^num_games: 1,000,000 games need 9\d\.\d GiB of arrays, more than .*"
                                       r"of memory available now\): at most [\d,]+ fit"):
        batched_v0.env(num_games=10**6, players=7)


@pytest.mark.parametrize("make,name", [
    (lambda n: batched_v0.env(num_games=n, players=3), "num_games"),
    (lambda n: batched_v0.vector_env(num_envs=n, players=3).batched, "num_envs"),
])
def test_the_memory_rule_names_the_largest_count_that_fits(monkeypatch, make, name):
    """The arrays' bytes are counted before they are allocated (the count nbytes() then gives),
    against MEMORY_SHARE of the memory available, here made room for exactly 3 games."""
    one = make(1).nbytes()
    assert make(2).nbytes() == 2 * one  # every array is num_games rows: the largest count is a division
    monkeypatch.setattr(batched, "memory_available", lambda: int(3 * one / batched.MEMORY_SHARE) + 1)
    assert make(3).nbytes() == 3 * one
    with pytest.raises(EnvError, match=rf"^{name}: 4 games need [\d.]+ MiB of arrays, .* at most 3 fit"):
        make(4)
    tracemalloc.start()
    try:
        with pytest.raises(EnvError, match=r"^\w+: 100,000 games need [\d.]+ GiB .* at most 3 fit"):
            make(10**5)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10**5 * one / 100  # refused before its gigabytes were allocated
    monkeypatch.setattr(batched, "memory_available", lambda: None)  # unknown: only num_games's range
    assert make(5).num_games == 5


# -- vector_env's own settings (finding 14) ---------------------------------------------------------

@pytest.mark.parametrize("setting,value,instead", [
    ("dense_mask", True, "writes the learner's mask itself"),
    ("policies", [None, "greedy", "greedy"], "give opponents"),
    ("num_games", 3, "give num_envs"),
])
def test_vector_env_refuses_the_settings_it_sets_itself(setting, value, instead):
    with pytest.raises(EnvError, match=rf"^{setting}: vector_env sets it itself \(.*{instead}"):
        batched_v0.vector_env(num_envs=3, players=3, **{setting: value})
    with pytest.raises(EnvError, match="^num_envs: must be a whole number from 1 to"):
        batched_v0.vector_env(num_envs=0, players=3)


# -- the batched env: actions beyond int64, and after close() (suggestions) -------------------------

def test_a_uint64_action_that_would_wrap_is_refused_as_given():
    venv = batched_v0.env(num_games=3, players=3, seed=2)
    venv.reset()
    actions = venv.sample_legal().astype(np.uint64)  # every seat acts on a turn move: -1 appears nowhere
    assert venv.acting().all()
    actions[1, 2] = WRAPPED
    before = _snapshot(venv)
    with pytest.raises(EnvError, match=r"^step: actions\[1, 2\] is 18446744073709551615, out of range .*"
                                       "no game was played$"):
        venv.step(actions)
    assert _unchanged(before, venv)
    vector = batched_v0.vector_env(num_envs=2, players=3, opponents="random")
    vector.reset()
    mine = vector.sample_legal().astype(np.uint64)
    mine[1] = WRAPPED
    with pytest.raises(EnvError, match=r"^step: actions\[1\] is 18446744073709551615, out of range"):
        vector.step(mine)
    venv.step(venv.sample_legal().astype(np.uint64))  # ids that fit are taken from any integer type


def test_a_closed_environment_refuses_every_call():
    venv = batched_v0.env(num_games=2, players=3)
    venv.reset()
    venv.close()
    before = _snapshot(venv)
    for what, call in (("step", lambda: venv.step(np.full((2, 3), -1))), ("reset", venv.reset),
                       ("sample_legal", venv.sample_legal), ("policy_actions", venv.policy_actions)):
        with pytest.raises(EnvError, match=f"^{what}: the environment is closed"):
            call()
    assert _unchanged(before, venv)
    vector = batched_v0.vector_env(num_envs=2, players=3)
    vector.reset()
    actions = vector.sample_legal()
    vector.close()
    for what, call in (("step", lambda: vector.step(actions)), ("reset", vector.reset),
                       ("sample_legal", vector.sample_legal)):
        with pytest.raises(EnvError, match=f"^{what}: the environment is closed"):
            call()


# -- single_learner (findings 7, 8) -----------------------------------------------------------------

@pytest.mark.parametrize("opponents,message", [
    ("nope", "opponents: must be one of random, greedy, heuristic, learned, got 'nope'"),
    ("rollout", "opponents: must be one of random, greedy, heuristic, learned, got 'rollout'"),
    ([None, None], "opponents: must be one of .*, got None"),
    (["greedy", 3], "opponents: must be one of .*, got 3"),
    (["greedy"], r"opponents: a policy name, or a list of 2 \(one per other seat\), got \['greedy'\]"),
])
def test_single_learner_checks_its_opponents_when_made(opponents, message):
    with pytest.raises(EnvError, match=f"^{message}$"):
        single.single_learner(players=3, opponents=opponents)


def _state(env) -> tuple:
    """The game's and the env's random stream's state (what a refused call must leave)."""
    return env.batched._states.tobytes(), env.table.pending, env.np_random.bit_generator.state


@pytest.mark.parametrize("seed", [1.5, -1, "abc", [1], 2**64, True])
def test_single_learner_refuses_a_seed_before_reseeding(seed):
    def draws(refused) -> list:
        env = single.single_learner(players=3, opponents="random", on_illegal="legal")
        env.reset(seed=5)
        before = _state(env)
        if refused is not None:
            with pytest.raises(EnvError, match=r"^seed: must be a whole number from 0 to 18,446,744,073,709,551,615"):
                env.reset(seed=refused)
            assert _state(env) == before
        env.reset()
        return [int(env.step(env.action_space.n - 1)[0]["observation"].sum()) for _ in range(3)]

    assert draws(seed) == draws(None)


def test_single_learner_takes_numpy_seeds_and_refuses_a_step_out_of_a_game():
    env = single.single_learner(players=3, opponents="random")
    with pytest.raises(EnvError, match=r"^step: call reset\(\) first$"):
        env.step(0)
    obs, _ = env.reset(seed=np.int64(3))
    assert np.array_equal(obs["observation"], single.single_learner(players=3).reset(seed=3)[0]["observation"])
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = _state(env)
    with pytest.raises(EnvError, match="is not legal now"):
        env.step(illegal)
    assert _state(env) == before
    done = False
    while not done:
        _, _, done, _, _ = env.step(env.policy_action("random"))
    for mode in ("raise", "legal"):
        env.on_illegal = mode
        before = _state(env)
        with pytest.raises(EnvError, match=r"^step: the game is over \(terminated was True\): reset\(\) starts"):
            env.step(0)
        assert _state(env) == before
