"""One learner seat over the AEC environment, as a single-agent gymnasium.Env
(`single_learner`; docs/env.md, "One learner seat").

    from wsim.env import single
    env = single.single_learner(players=4, seat=0, opponents="heuristic")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))

The other seats play kernel policies (`policy_action`, each seat its own policy and parameters:
`opponents` are the game's policies, so `policy_params` reaches them) between the learner's decisions; the
reward comes at the end (the AEC env's). on_illegal="raise" refuses an action the mask does not
allow (EnvError); on_illegal="legal" plays a uniform legal action instead, drawn from the env's
np_random, and says so in info["illegal_action"]: what checkers that sample the action space
without the mask (Gymnasium's and stable-baselines3's check_env) need.

Every argument goes through wsim's one validation, before anything changes: the opponents in
the constructor, a seed before Gymnasium reseeds np_random (numpy's integers taken, as
everywhere in wsim), an action before any seat plays; a step before reset() or after the game
ended is an EnvError too.
"""

from __future__ import annotations

import gymnasium
import numpy as np

from wsim.env.actions import EnvError, opponent_policies
from wsim.env.wonders_v0 import raw_env
from wsim.kernels.policy import POLICY_NAMES
from wsim.errors import brief, one_of, optional_whole, whole_number

ON_ILLEGAL = ("raise", "legal")
GAME_OVER = "step: the game is over (terminated was True): reset() starts the next"


def single_learner(**kwargs) -> SingleLearnerEnv:
    """One learner seat against kernel policies, as a single-agent gymnasium.Env
    (SingleLearnerEnv's settings)."""
    return SingleLearnerEnv(**kwargs)


class SingleLearnerEnv(gymnasium.Env):
    """wonders_v0 with one learner seat (module docstring). seat: the learner's; opponents: a
    policy name (random, greedy, heuristic, rollout, learned) for every other seat, or a list
    with one per other seat in seat order; on_illegal: "raise" or "legal"; the other settings as
    wonders_v0.env's."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, players: int = 4, seat: int = 0, opponents="heuristic", on_illegal: str = "raise",
                 **settings):
        one_of(on_illegal, "on_illegal", ON_ILLEGAL, EnvError)
        if "policies" in settings:
            raise EnvError("policies: single_learner sets them itself (give opponents: the learner takes the "
                           "remaining seat)")
        players = whole_number(players, "players", 2, 7, EnvError)
        self.seat = whole_number(seat, "seat", 0, players - 1, EnvError)
        others = opponent_policies(opponents, players - 1, POLICY_NAMES)
        # the learner's seat keeps the AEC env's default, which policy_action(agent, None) plays
        policies = others[:self.seat] + ["heuristic"] + others[self.seat:]
        self.raw = raw_env(players=players, policies=policies, **settings)
        self.agent = self.raw.possible_agents[self.seat]
        self._dealt = False
        self.on_illegal = on_illegal
        self.render_mode = self.raw.render_mode
        self.observation_space = self.raw.observation_space(self.agent)
        self.action_space = self.raw.action_space(self.agent)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """A new game (wonders_v0's reset: game 0 of `seed`, or the next game), played to the
        learner's first decision; (obs, info)."""
        from wsim.run.settings import MAX_SEED

        # checked before gymnasium reseeds np_random (a refused seed changes nothing), and
        # given to it as an int (it refuses numpy's integers)
        seed = optional_whole(seed, "seed", 0, MAX_SEED, EnvError)
        super().reset(seed=seed)
        self.raw.reset(seed=seed)
        self._play_opponents()
        self._dealt = True
        return self.raw.observe(self.agent), {}

    def step(self, action):
        """Play the learner's action, then the opponents' until the learner decides again or
        the game ends; (obs, reward, terminated, truncated, info)."""
        if not self._dealt:
            raise EnvError("step: call reset() first")
        if self.raw.game.done:
            raise EnvError(GAME_OVER)
        info = {}
        mask = self.raw.observe(self.agent)["action_mask"]
        try:
            legal = whole_number(action, f"{self.agent}: action", 0, mask.shape[0] - 1, EnvError)
        except EnvError:
            legal = None
        if legal is None or not mask[legal]:
            if self.on_illegal == "raise":
                raise EnvError(f"{self.agent}: action {brief(action)} is not legal now (see the action mask; "
                               "on_illegal='legal' plays a legal one instead)")
            legal = int(self.np_random.choice(np.flatnonzero(mask)))
            info["illegal_action"] = True
        self.raw.step(legal)
        self._play_opponents()
        done = self.raw.game.done
        reward = float(self.raw.rewards[self.agent]) if done else 0.0
        if done:
            info.update(self.raw.infos[self.agent])
        return self.raw.observe(self.agent), reward, bool(done), False, info

    def _play_opponents(self):
        """The opponents' decisions until the learner's turn or the game's end."""
        raw = self.raw
        while not raw.game.done and raw.agent_selection != self.agent:
            who = raw.agent_selection
            raw.step(raw.policy_action(who, None))  # the seat's own policy and parameters

    def render(self):
        return self.raw.render()

    def action_to_string(self, action: int) -> str:
        return self.raw.action_to_string(action)

    def action_from_string(self, text: str) -> int:
        return self.raw.action_from_string(text)
