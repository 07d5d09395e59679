"""One learner seat against kernel policies, one game at a time, as a single-agent gymnasium.Env
(`single_learner`; docs/env.md, "One learner seat").

    from wsim.env import single
    env = single.single_learner(players=4, seat=0, opponents="heuristic")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))

A view of the batched core (BatchedEnv(num_games=1) with one learner seat, onegame.OneGame): its
observation and action ids are vector_env's, and the kernel seats play between the learner's
decisions inside the core's step. The reward comes at the end (the win share, or the margin).
on_illegal="raise" refuses an action the mask does not allow (EnvError); on_illegal="legal"
plays a uniform legal action instead, drawn from the env's np_random, and says so in
info["illegal_action"]: what checkers that sample the action space without the mask
(Gymnasium's and stable-baselines3's check_env) need.

Every argument goes through wsim's one validation, before anything changes: the opponents in
the constructor, a seed before Gymnasium reseeds np_random (numpy's integers taken, as
everywhere in wsim), an action before any seat plays; a step before reset() or after the game
ended is an EnvError too.
"""

from __future__ import annotations

import gymnasium
import numpy as np

from wsim.env.actions import CoreWords, EnvError, opponent_policies
from wsim.env.onegame import RENDER_MODES, OneGame, observation_space
from wsim.errors import brief, one_of, optional_whole, whole_number
from wsim.kernels.policy import BATCHABLE

ON_ILLEGAL = ("raise", "legal")
GAME_OVER = "step: the game is over (terminated was True): reset() starts the next"


def single_learner(**kwargs) -> SingleLearnerEnv:
    """One learner seat against kernel policies, as a single-agent gymnasium.Env
    (SingleLearnerEnv's settings)."""
    return SingleLearnerEnv(**kwargs)


class SingleLearnerEnv(CoreWords, gymnasium.Env):
    """One learner seat (module docstring). seat: the learner's; opponents: a policy name
    (random, greedy, heuristic, learned: BATCHABLE) for every other seat, or a list with one
    per other seat in seat order; on_illegal: "raise" or "legal"; reward, render_mode and the
    game settings (wonders, sides, manneken_pis, policy_params, data) as wonders_v1.env's."""

    metadata = {"render_modes": list(RENDER_MODES)}

    def __init__(self, players: int = 4, seat: int = 0, opponents="heuristic", on_illegal: str = "raise",
                 seed: int = 0, reward: str = "win", render_mode: str | None = None, **settings):
        one_of(on_illegal, "on_illegal", ON_ILLEGAL, EnvError)
        if "policies" in settings:
            raise EnvError("policies: single_learner sets them itself (give opponents: the learner takes the "
                           "remaining seat)")
        if render_mode is not None:
            one_of(render_mode, "render_mode", RENDER_MODES, EnvError)
        players = whole_number(players, "players", 2, 7, EnvError)
        self.seat = whole_number(seat, "seat", 0, players - 1, EnvError)
        others = opponent_policies(opponents, players - 1, BATCHABLE)
        self.table = OneGame(players=players, seed=seed, reward=reward,
                             kernel=others[:self.seat] + [None] + others[self.seat:], **settings)
        self.batched = self.table.batched
        self._dealt = False
        self.on_illegal, self.render_mode = on_illegal, render_mode
        self.observation_space = observation_space(self.batched.n_features, self.batched.n_actions)
        self.action_space = gymnasium.spaces.Discrete(self.batched.n_actions)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """A new game (game 0 of `seed`, or the next game of the current seed), played to the
        learner's first decision; (obs, info)."""
        from wsim.run.settings import MAX_SEED

        # checked before gymnasium reseeds np_random (a refused seed changes nothing), and
        # given to it as an int (it refuses numpy's integers)
        seed = optional_whole(seed, "seed", 0, MAX_SEED, EnvError)
        super().reset(seed=seed)
        self.table.deal(seed)
        self._dealt = True
        return self.table.observation(self.seat, True), {}

    def step(self, action):
        """Play the learner's action, then the opponents' until the learner decides again or
        the game ends; (obs, reward, terminated, truncated, info)."""
        if not self._dealt:
            raise EnvError("step: call reset() first")
        t = self.table
        if t.done:
            raise EnvError(GAME_OVER)
        info = {}
        try:
            legal = whole_number(action, f"player_{self.seat}: action", 0, self.batched.n_actions - 1, EnvError)
        except EnvError:
            legal = None
        if legal is None or not t.legal(self.seat, legal):
            if self.on_illegal == "raise":
                raise EnvError(f"player_{self.seat}: action {brief(action)} is not legal now (see the action mask; "
                               "on_illegal='legal' plays a legal one instead)")
            mask = t.observation(self.seat, True)["action_mask"]
            legal = int(self.np_random.choice(np.flatnonzero(mask)))
            info["illegal_action"] = True
        t.play({self.seat: legal})
        reward = 0.0
        if t.done:
            reward = t.rewards[self.seat]
            info.update(vp_total=t.vp_total[self.seat], game=t.game_index)
        return t.observation(self.seat, True), reward, t.done, False, info

    def policy_action(self, policy: str = "heuristic") -> int:
        """The learner's action by a kernel policy (random, greedy or heuristic), as
        wsim.simulate's game takes it (onegame.OneGame.policy_action)."""
        if not self._dealt or self.table.done:
            raise EnvError("policy_action: the learner has no decision to take now (reset() starts a game)")
        return self.table.policy_action(self.seat, policy)

    def render(self):
        if self.render_mode is None:
            return None
        return self.table.describe([f"player_{self.seat}"])
