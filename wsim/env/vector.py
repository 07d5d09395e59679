"""One learning seat against wsim's kernel policies, N games at once, as a Gymnasium vector
environment (`batched_v0.vector_env`; docs/env.md).

    from wsim.env import batched_v0
    venv = batched_v0.vector_env(num_envs=1024, players=4, opponents="greedy", seed=0)
    obs, info = venv.reset()                       # obs["observation"] (N, F), obs["action_mask"] (N, A)
    obs, rewards, terminations, truncations, info = venv.step(venv.sample_legal())

Game i's learner sits at seat i mod P (rotate=False: always seat 0); the opponents fill the other
seats in ring order from the learner's left. Every step each game's learner acts: the opponents'
decisions, and the next game's deal when one ends, happen inside the same call (same-step
autoreset: info["final_obs"] holds an ended game's last observation, info["_final_obs"] marks
which, info["vp_total"] the learner's final points and info["seat"] its seat in the game the step
played).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from wsim.env.actions import EnvError
from wsim.env.batched import BatchedEnv
from wsim.errors import brief, whole_number


class LearnerVectorEnv(VectorEnv):
    """A BatchedEnv with one learner seat per game, as gymnasium.vector.VectorEnv (module
    docstring). opponents: a policy name for every other seat, or a list of players - 1 names
    (from the learner's left); the other settings as BatchedEnv's."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int = 1024, players: int = 4, seed: int = 0, opponents="heuristic",
                 rotate: bool = True, **settings):
        from wsim.kernels.schema import MAX_MOVES

        players = whole_number(players, "players", 2, 7, EnvError)
        if isinstance(opponents, str):
            opponents = [opponents] * (players - 1)
        if not isinstance(opponents, (list, tuple)) or any(p is None for p in opponents):
            raise EnvError(f"opponents: a policy name, or one per other seat, got {brief(opponents)}")
        self.batched = BatchedEnv(num_games=num_envs, players=players, seed=seed, policies=[None, *opponents],
                                  rotate=rotate, dense_mask=False, **settings)
        b = self.batched
        self.num_envs = b.num_games
        self.single_observation_space = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (b.n_features,), np.float32),
            "action_mask": spaces.Box(0, 1, (b.n_actions,), np.int8)})
        self.single_action_space = spaces.Discrete(b.n_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        n = self.num_envs
        self._seats = np.zeros(n, np.int64)
        self._out = (np.zeros((n, b.n_features), np.float32), np.zeros((n, b.n_features), np.float32),
                     np.zeros((n, b.n_actions), np.int8))
        self._prev = (np.zeros((n, MAX_MOVES), np.int16), np.zeros(n, np.int16))
        self._full = np.full((n, b.players), -1, np.int64)
        self._before = np.zeros(n, np.int64)  # the learner's seat in the game a step played
        self._rows = np.arange(n)
        self._picked = np.zeros(n, np.int64)
        self._rewards = np.zeros(n, np.float32)
        self._vp = np.zeros(n, np.int16)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal every game (game g of the seed in slot g); (obs, info)."""
        self.batched.reset(seed=seed, options=options)
        self._vp[:] = 0
        obs = self._gather()
        np.copyto(self._before, self._seats)
        return obs, self._info()

    def step(self, actions):
        """Play each game's learner action (shape (N,)); (obs, rewards, terminations,
        truncations, info), rewards the learner's."""
        b = self.batched
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer):
            raise EnvError(f"step: actions as an integer array of shape ({self.num_envs},), got {brief(actions)}")
        self._full[:] = -1
        self._full[self._rows, self._seats] = a
        _, rewards, ended, truncated, _ = b.step(self._full)
        self._rewards[:] = rewards[self._rows, self._seats]  # the seat of the game just played
        self._vp[:] = b._views[3][self._rows, self._seats]
        np.copyto(self._before, self._seats)
        obs = self._gather()
        return obs, self._rewards, ended, truncated, self._info()

    def sample_legal(self) -> np.ndarray:
        """(N,) int64: a uniform legal action of each game's learner (BatchedEnv.sample_legal)."""
        self._picked[:] = self.batched.sample_legal()[self._rows, self._seats]
        return self._picked

    def policy_actions(self, policy: str = "heuristic") -> np.ndarray:
        """(N,) int64: the learner's action by a kernel policy (BatchedEnv.policy_actions)."""
        self._picked[:] = self.batched.policy_actions([policy] + [None] * (self.batched.players - 1))[
            self._rows, self._seats]
        return self._picked

    def _gather(self) -> dict:
        """The learner's seat of every slot and its views (the seat the step's game gives it)."""
        from wsim.kernels.batched import seat_views

        b = self.batched
        np.remainder(b._book[0], b.players if b.rotate else 1, out=self._seats)
        seat_views(self._seats, self._before, b._book, b._views, self._out, self._prev)
        return {"observation": self._out[0], "action_mask": self._out[2]}

    def _info(self) -> dict:
        b = self.batched
        return {"final_obs": {"observation": self._out[1]}, "_final_obs": b._views[4], "vp_total": self._vp,
                "seat": self._before, "game": b._book[0]}

    def action_to_string(self, action: int) -> str:
        return self.batched.action_to_string(action)

    def action_from_string(self, text: str) -> int:
        return self.batched.action_from_string(text)

    def feature_names(self) -> list:
        return self.batched.feature_names()


def warm() -> None:
    """Load the batched environment's kernels from numba's cache, or compile them (`wsim compile
    env`): a few steps of a tiny environment, learner and kernel seats both."""
    venv = LearnerVectorEnv(num_envs=2, players=3, opponents="heuristic")
    venv.reset()
    venv.step(venv.sample_legal())
    venv.policy_actions("heuristic")
    venv.batched.reset()
