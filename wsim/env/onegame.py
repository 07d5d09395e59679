"""One game at a time of the batched core: what the PettingZoo adapters (wonders_v1) and the
single learner (single.py) show.

A BatchedEnv(num_games=1) plays the game; OneGame keeps what a one-game front needs beside it:
which seats decide now (in seat order), the game's seed and index, and once it ends its last
observations, rewards and points (the core has dealt the next game in the same call). deal()
starts a game: game 0 of a seed, or the next game of the current seed (a game left unfinished
is played out first); play() takes one action per pending seat.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from wsim.env.actions import ASKABLE, CoreWords, EnvError
from wsim.env.batched import BatchedEnv
from wsim.errors import brief, one_of, optional_whole
from wsim.kernels.policy import POLICY_NAMES

RENDER_MODES = ("ansi",)
UNASKABLE = tuple(name for name in POLICY_NAMES if name not in ASKABLE)  # named in policy_action's refusal


def observation_space(features: int, actions: int) -> spaces.Dict:
    """The space of one seat's observation: the core's float32 vector and an int8 action mask."""
    return spaces.Dict({"observation": spaces.Box(-np.inf, np.inf, (features,), np.float32),
                        "action_mask": spaces.Box(0, 1, (actions,), np.int8)})


def _asked_policies(policies, players: int) -> list:
    """policy_action's default policy of each seat, from one name for all or a list of one per seat."""
    if isinstance(policies, str):
        policies = [policies] * players
    if not isinstance(policies, (list, tuple)) or len(policies) != players:
        raise EnvError(f"policies: a policy name, or a list of {players} (one per seat), got {brief(policies)}")
    return [one_of(name, "policies", ASKABLE, EnvError) for name in policies]


class OneGame(CoreWords):
    """One game at a time of a BatchedEnv(num_games=1) (module docstring). kernel: the core's
    policies (None: every seat a learner; else a kernel policy per seat, None for a learner);
    asked: the policy policy_action(seat, None) asks for each learner seat (one name, or one per
    seat); the other settings BatchedEnv's."""

    def __init__(self, players: int = 4, seed: int = 0, reward: str = "win", asked="heuristic", kernel=None,
                 **settings):
        self.batched = BatchedEnv(num_games=1, players=players, seed=seed, policies=kernel, reward=reward, **settings)
        self.players = self.batched.players
        self.policies = _asked_policies(asked, self.players)
        self.seed_value, self.game_index = self.batched.seed, -1
        self.done = True
        self.pending: list = []  # the seats with a decision to take now, in seat order
        self._dealt = self._unseen = False  # the core has dealt; its current game is not shown yet
        self._actions = np.full((1, self.players), -1, np.int64)
        self._no_mask = np.zeros(self.batched.n_actions, np.int8)
        self.final_obs = self.rewards = self.vp_total = None
        names = self.feature_names()
        self._age_turn = tuple([i for i, n in enumerate(names) if n.startswith(head)] for head in ("age=", "turn="))

    def deal(self, seed):
        """Start a game: game 0 of `seed`, or without one the next game of the current seed (the
        first deal without one: game 0 of the constructor's). A refused seed changes nothing."""
        from wsim.run.settings import MAX_SEED

        seed = optional_whole(seed, "seed", 0, MAX_SEED, EnvError)
        if seed is not None or not self._dealt:
            obs, info = self.batched.reset(seed=seed)
            self._obs, self._mask, self._info = obs["observation"], obs["action_mask"], info
            self._dealt = True
        elif not self._unseen:
            self._play_out()
        self.seed_value, self.game_index = self.batched.seed, int(self._info["game"][0])
        self._unseen, self.done = False, False
        self._round()

    def _play_out(self):
        """The rest of the game being played, by uniform legal actions (nobody sees it): the
        core deals the slot's next game as it ends, and a game's play depends only on its seed,
        its index and its own actions."""
        while not self.batched.step(self.batched.sample_legal())[2][0]:
            pass

    def _round(self):
        self.pending = np.flatnonzero(self._info["legal_count"][0] > 0).tolist()

    def legal(self, seat: int, action: int) -> bool:
        """Whether `action` is one of the seat's legal ids now."""
        return not self.done and bool(self._mask[0, seat, action])

    def observation(self, seat: int, masked: bool) -> dict:
        """The seat's observation (the last one, once the game is over) and, when `masked`, its
        legal ids' mask (all zeros otherwise): copies."""
        if self.done:
            return {"observation": self.final_obs[seat].copy(), "action_mask": self._no_mask.copy()}
        mask = self._mask[0, seat].copy() if masked else self._no_mask.copy()
        return {"observation": self._obs[0, seat].copy(), "action_mask": mask}

    def play(self, actions: dict):
        """Play {seat: action id} for every pending seat (ids checked by the caller; the core
        checks again); sets `done` when the game ended."""
        self._actions[:] = -1
        for seat, action in actions.items():
            self._actions[0, seat] = action
        _, rewards, ended, _, info = self.batched.step(self._actions)
        if ended[0]:
            self.final_obs = info["final_obs"]["observation"][0].copy()
            self.rewards = [float(r) for r in rewards[0]]
            self.vp_total = [int(v) for v in info["vp_total"][0]]
            self.done, self._unseen, self.pending = True, True, []
        else:
            self._round()

    def policy_action(self, seat: int, policy) -> int:
        """The id a kernel policy (ASKABLE's; None: the seat's own, `policies`) picks for the
        seat's pending decision, drawing from the seat's random stream as wsim.simulate does (the
        core asks that seat alone, and stashes the copy its policy chose: that copy is played)."""
        policy = self.policies[seat] if policy is None else policy
        if policy not in ASKABLE:
            dropped = " (the batched core cannot ask it: wsim.Game.policy_move can)" if policy in UNASKABLE else ""
            raise EnvError(f"policy: one of {', '.join(ASKABLE)}{dropped}, got {brief(policy)}")
        names = [None] * self.players
        names[seat] = policy
        return int(self.batched.policy_actions(names)[0, seat])

    def describe(self, agents: list) -> str:
        """The game in words: who decides now, or the final points and rewards."""
        if self.done:
            return (f"game {self.game_index} of seed {self.seed_value} is over: points {self.vp_total}, "
                    f"rewards {self.rewards}")
        seat = self.pending[0]
        ages, turns = self._age_turn
        age = 1 + int(np.argmax(self._obs[0, seat, ages]))
        turn = 1 + int(np.argmax(self._obs[0, seat, turns]))
        return f"game {self.game_index}, age {age}, turn {turn}: {', '.join(agents)} to decide"
