"""The environments' speed with random legal actions, Python included: the AEC and Parallel
PettingZoo environments, and the batched one quoted two ways.

The batched environment's own figure (`batched_speed`) samples a legal action for every acting
seat at each step (sample_legal) and counts agent steps: the (game, seat) pairs that act.
Vectorised environments such as PufferLib's and EnvPool's are quoted otherwise
(`batched_speed_cached`): random actions made before the clock starts, so that no step reads a
mask or draws, and steps counted as games stepped (N games x calls of step), whoever acts. Every
action of this game must be legal, so the cached actions are a first pass's sample_legal
answers, replayed on the same games (a game depends only on the seed, its index and its
actions); step still checks each one.
"""

from __future__ import annotations

import time

import numpy as np

from wsim.run.runner import set_threads

BATCHED_GAMES = 10_000  # the batched environment's games at once, and the count its memory is stated for


def aec_speed(players: int, games: int) -> tuple:
    """(steps/s, games/s) of wsim.env.wonders_v1 with random legal actions (the action space's
    sample under the mask, seeded): the environment's own cost, Python included."""
    from wsim.env import wonders_v1

    env = wonders_v1.env(players=players, seed=0)
    env.reset(seed=0)
    steps = 0
    start = time.perf_counter()
    for game in range(games):
        if game:
            env.reset()
        for agent in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            env.step(None if termination or truncation else env.action_space(agent).sample(obs["action_mask"]))
            steps += 1
    seconds = time.perf_counter() - start
    return steps / seconds, games / seconds


def parallel_speed(players: int, games: int) -> tuple:
    """(agent steps/s, games/s) of wonders_v1.parallel_env with random legal actions: every
    agent that has a decision acts in a step (those that wait are not counted)."""
    from wsim.env import wonders_v1

    env = wonders_v1.parallel_env(players=players, seed=0)
    rng = np.random.default_rng(0)
    steps = 0
    for game in range(games + 1):  # game 0 untimed: it loads the kernels
        if game == 1:
            steps, start = 0, time.perf_counter()
        obs, _ = env.reset(seed=0) if game == 0 else env.reset()
        while env.agents:
            actions = {}
            for a in env.agents:
                legal = np.flatnonzero(obs[a]["action_mask"])
                actions[a] = int(rng.choice(legal))
                steps += actions[a] != env.wait
            obs, *_ = env.step(actions)
    seconds = time.perf_counter() - start
    return steps / seconds, games / seconds


def _batched(players: int, threads: int, games: int):
    """A batched environment of `games` games, every seat a learner, reset and stepped once (the
    kernels loaded), on `threads` kernel threads."""
    from wsim.env import batched_v0

    set_threads(threads)
    venv = batched_v0.env(num_games=games, players=players, seed=0)
    venv.reset()
    venv.step(venv.sample_legal())
    return venv


def batched_speed(players: int, threads: int, seconds: float, games: int = BATCHED_GAMES) -> dict:
    """wsim.env.batched_v0 with every seat a learner and sample_legal's actions, `games` at
    once, stepped for `seconds`: agent steps/s (the (game, seat) pairs that act), games/s and
    the bytes of its arrays, with and without the dense mask."""
    venv = _batched(players, threads, games)
    steps = ended = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = venv.sample_legal()
        steps += int((actions >= 0).sum())
        ended += int(venv.step(actions)[2].sum())
    elapsed = time.perf_counter() - start
    held = venv.nbytes()
    set_threads(None)
    return {"agent_steps_per_second": round(steps / elapsed), "games_per_second": round(ended / elapsed, 1),
            "mib_per_10k_games": round(held * 10_000 / games / 2**20),
            "mask_mib_per_10k_games": round(venv._views.mask.nbytes * 10_000 / games / 2**20)}


def batched_speed_cached(players: int, threads: int, seconds: float, games: int = BATCHED_GAMES) -> dict:
    """The same environment quoted as PufferLib and EnvPool quote theirs (module docstring): the
    actions of about `seconds` of stepping recorded first, then replayed on the same games
    against the clock; steps/s counts games stepped (games x calls), agent steps/s the pairs
    that acted, as batched_speed does."""
    venv = _batched(players, threads, games)
    venv.reset(seed=0)
    cached = []
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:  # the recording samples too: its replay takes less
        cached.append(venv.sample_legal().copy())
        venv.step(cached[-1])
    venv.reset(seed=0)
    acted = sum(int((a >= 0).sum()) for a in cached)
    start = time.perf_counter()
    for actions in cached:
        venv.step(actions)
    elapsed = time.perf_counter() - start
    set_threads(None)
    return {"steps_per_second": round(games * len(cached) / elapsed),
            "agent_steps_per_second": round(acted / elapsed), "calls": len(cached)}
