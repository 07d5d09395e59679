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

What reset, step, sample_legal and policy_actions return is the caller's, as Gymnasium's
SyncVectorEnv returns it: the rewards, terminations, truncations, infos and actions are new
arrays at every call, and so are the observations unless copy=False, which hands out the
environment's observation buffers (obs and info["final_obs"]), written again by the next call,
to save their copy.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from wsim.env.actions import CoreWords, EnvError, opponent_policies
from wsim.env.batched import BatchedEnv, int64_actions
from wsim.errors import flag, whole_number
from wsim.kernels.policy import BATCHABLE

# BatchedEnv's settings vector_env gives itself, and what to give instead
SET_HERE = {"num_games": "give num_envs", "policies": "give opponents: the learner takes the remaining seat",
            "dense_mask": "it keeps only the legal-id lists and writes the learner's mask itself"}


class _LearnerGames(BatchedEnv):
    """The BatchedEnv under a LearnerVectorEnv: it also holds the vector env's own arrays (the
    learner's views), so that one memory check counts them all, and its count is num_envs."""

    count_name = "num_envs"

    def _array_specs(self) -> dict:
        from wsim.kernels.schema import MAX_MOVES

        n, f = self.num_games, self.n_features
        return {**super()._array_specs(),
                "seat": ((n,), np.int64, 0), "played_seat": ((n,), np.int64, 0),
                "learner_obs": ((n, f), np.float32, 0), "learner_final_obs": ((n, f), np.float32, 0),
                "learner_mask": ((n, self.n_actions), np.int8, 0), "mask_ids": ((n, MAX_MOVES), np.int16, 0),
                "mask_count": ((n,), np.int16, 0), "every_seat": ((n, self.players), np.int64, -1)}


class LearnerVectorEnv(CoreWords, VectorEnv):
    """A BatchedEnv with one learner seat per game, as gymnasium.vector.VectorEnv (module
    docstring). opponents: a policy name (BATCHABLE: random, greedy, heuristic, learned) for every
    other seat, or a list of players - 1 names (from the learner's left), each NAME or NAME:LABEL
    (policy_params' "LABEL.model" names a learned label's model file); or a list of such lists,
    an opponent pool: game i meets list i mod their count (BatchedEnv's seatings); copy: return copies of
    the observations (False: its buffers); the other settings as BatchedEnv's, but for
    num_games, policies and dense_mask, which it sets itself."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int = 1024, players: int = 4, seed: int = 0, opponents="heuristic",
                 rotate: bool = True, copy: bool = True, **settings):
        for name, instead in SET_HERE.items():
            if name in settings:
                raise EnvError(f"{name}: vector_env sets it itself ({instead})")
        players = whole_number(players, "players", 2, 7, EnvError)
        self.copy = flag(copy, "copy", EnvError)
        pool = isinstance(opponents, (list, tuple)) and bool(opponents) and all(isinstance(o, (list, tuple))
                                                                               for o in opponents)
        seatings = [[None, *opponent_policies(o, players - 1, BATCHABLE)] for o in (opponents if pool else [opponents])]
        self.batched = _LearnerGames(num_games=num_envs, players=players, seed=seed, policies=seatings,
                                     rotate=rotate, dense_mask=False, **settings)
        b = self.batched
        self.num_envs = b.num_games
        self.single_observation_space = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (b.n_features,), np.float32),
            "action_mask": spaces.Box(0, 1, (b.n_actions,), np.int8)})
        self.single_action_space = spaces.Discrete(b.n_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        held = b._held
        self._seats = held["seat"]  # the learner's seat in the game each slot plays now
        self._before = held["played_seat"]  # and in the game the last step played
        self._out = (held["learner_obs"], held["learner_final_obs"], held["learner_mask"])
        self._prev = (held["mask_ids"], held["mask_count"])
        self._full = held["every_seat"]

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal every game (game g of the seed in slot g); (obs, info)."""
        self.batched.reset(seed=seed, options=options)
        obs = self._gather()
        np.copyto(self._before, self._seats)
        return obs, self._info(np.zeros(self.num_envs, np.int16))

    def step(self, actions):
        """Play each game's learner action (shape (N,)); (obs, rewards, terminations,
        truncations, info), rewards the learner's."""
        b = self.batched
        a = int64_actions(actions, (self.num_envs,))
        self._full[:] = -1
        np.put_along_axis(self._full, self._seats[:, None], a[:, None], axis=1)
        _, rewards, ended, truncated, _ = b.step(self._full)
        rewards, vp = self._learners(rewards), self._learners(b._views.vp)  # at the seat of the game just played
        np.copyto(self._before, self._seats)
        obs = self._gather()
        return obs, rewards, ended.copy(), truncated.copy(), self._info(vp)

    def sample_legal(self) -> np.ndarray:
        """(N,) int64: a uniform legal action of each game's learner (BatchedEnv.sample_legal)."""
        return self._learners(self.batched.sample_legal())

    def policy_actions(self, policy: str = "heuristic") -> np.ndarray:
        """(N,) int64: the learner's action by a kernel policy (BatchedEnv.policy_actions)."""
        return self._learners(self.batched.policy_actions([policy] + [None] * (self.batched.players - 1)))

    def close_extras(self, **kwargs):
        """Close the batched environment: a later reset, step or draw is refused."""
        self.batched.close()

    def _learners(self, per_seat: np.ndarray) -> np.ndarray:
        """A new (N,) array: each slot's entry of per_seat (N, P) at its learner's seat."""
        return np.take_along_axis(per_seat, self._seats[:, None], axis=1)[:, 0]

    def _gather(self) -> dict:
        """The learner's seat of every slot and its views (the seat the step's game gives it)."""
        from wsim.kernels.batched import seat_views

        b = self.batched
        np.remainder(b._book.game, b.players if b.rotate else 1, out=self._seats)
        seat_views(self._seats, self._before, b._book, b._views, self._out, self._prev)
        return {"observation": self._handed(self._out[0]), "action_mask": self._handed(self._out[2])}

    def _handed(self, buffer: np.ndarray) -> np.ndarray:
        """An observation buffer as the caller receives it: a copy, or with copy=False itself."""
        return buffer.copy() if self.copy else buffer

    def _info(self, vp: np.ndarray) -> dict:
        b = self.batched
        return {"final_obs": {"observation": self._handed(self._out[1])}, "_final_obs": b._views.ended.copy(),
                "vp_total": vp, "seat": self._before.copy(), "game": b._book.game.copy()}


def warm() -> None:
    """Load the batched environment's kernels from numba's cache, or compile them (`wsim compile
    env`): a few steps of a tiny environment, learner and kernel seats both."""
    venv = LearnerVectorEnv(num_envs=2, players=3, opponents="heuristic")
    venv.reset()
    venv.step(venv.sample_legal())
    venv.policy_actions("heuristic")
    venv.batched.reset()
