"""wonders_v1: 7 Wonders as a PettingZoo AEC environment, and through its Parallel API (docs/env.md).

    from wsim.env import wonders_v1
    env = wonders_v1.env(players=4, seed=0)
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

Both are views of one game of the batched core (BatchedEnv(num_games=1), every seat a learner):
its observation (kernels/observe.py, float32), its action ids and masks, its rewards (each
winner's share of the win, 1/k among k tied winners; with reward="margin" the player's points
minus the best other player's, given at the end). One agent per player ("player_0" ...).

The rules' turn moves are simultaneous and the core takes one action per pending seat: the AEC
env asks the pending agents one after the other, in seat order, and keeps their actions until
the last has acted, so an agent's observation never shows what the seats before it chose this
turn. At 2 players the Free City's move is its controller's, asked after the turn's moves: that
agent acts twice in such a turn (the observation's acting block says for which city).
parallel_env() takes every pending agent's action in one step (ParallelWonders).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers

from wsim.env.actions import CoreWords, EnvError
from wsim.env.onegame import RENDER_MODES, OneGame, observation_space
from wsim.errors import brief, one_of, whole_number

GAME_OVER = "step: the game is over (every agent is done): reset() starts the next"


def env(**kwargs) -> AECEnv:
    """The environment, wrapped in PettingZoo's order checks (the usual entry point)."""
    return _OrderChecks(raw_env(**kwargs))


def parallel_env(**kwargs) -> ParallelEnv:
    """The same game through PettingZoo's Parallel API, every pending agent acting at once (the
    same settings as env(); ParallelWonders)."""
    return ParallelWonders(**kwargs)


class _OrderChecks(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order checks, but a step after every agent is done is refused as the raw
    environment refuses it: PettingZoo's wrapper only warns and drops the action."""

    def step(self, action):
        if self._has_reset and not self.agents:
            raise EnvError(GAME_OVER)
        super().step(action)


class raw_env(CoreWords, AECEnv):
    """wonders_v1 without wrappers (module docstring). players 2..7; seed: the game seed (reset
    without a seed plays the next game of it); reward: "win" or "margin"; policies: the policy
    policy_action(agent, None) asks for each seat (one name, or one per seat); wonders, sides,
    manneken_pis, data: as wsim.simulate's."""

    metadata = {"render_modes": list(RENDER_MODES), "name": "wonders_v1", "is_parallelizable": False}

    def __init__(self, players: int = 4, seed: int = 0, reward: str = "win", wonders: str = "random",
                 sides: str = "random", manneken_pis: bool = False, policies="heuristic", data=None,
                 render_mode: str | None = None):
        super().__init__()
        if render_mode is not None:
            one_of(render_mode, "render_mode", RENDER_MODES, EnvError)
        self.table = OneGame(players=players, seed=seed, reward=reward, asked=policies, wonders=wonders, sides=sides,
                             manneken_pis=manneken_pis, data=data)
        self.batched, self.render_mode = self.table.batched, render_mode
        self.layout = self.batched.layout
        self.possible_agents = [f"player_{i}" for i in range(self.table.players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        space = observation_space(self.batched.n_features, self.batched.n_actions)
        self._obs_spaces = {a: space for a in self.possible_agents}
        self._act_spaces = {a: spaces.Discrete(self.batched.n_actions) for a in self.possible_agents}

    def observation_space(self, agent):
        return self._obs_spaces[agent]

    def action_space(self, agent):
        return self._act_spaces[agent]

    @property
    def seed_value(self) -> int:
        """The seed of the game being played."""
        return self.table.seed_value

    @property
    def game_index(self) -> int:
        """The index, in its seed, of the game being played (-1 before the first reset)."""
        return self.table.game_index

    def reset(self, seed: int | None = None, options: dict | None = None):
        """A new game: game 0 of `seed`, or without one the next game of the current seed (the
        first reset() without one: game 0 of the constructor's seed). A refused seed changes
        nothing: the next reset() plays on as if it had not been asked."""
        self.table.deal(seed)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._chosen = {}
        self.agent_selection = self.possible_agents[self.table.pending[0]]

    def _agent(self, agent) -> int:
        """The seat of an agent name; EnvError for a name that is not one of this game's agents."""
        if not isinstance(agent, str) or agent not in self._seat:
            raise EnvError(f"agent: one of {', '.join(self.possible_agents)}, got {brief(agent)}")
        return self._seat[agent]

    def observe(self, agent):
        seat = self._agent(agent)
        return self.table.observation(seat, agent == self.agent_selection)

    def step(self, action):
        """Keep `action` (an id whose mask bit is 1; None for an agent that is done) of the
        selected agent; when every pending agent has acted, play them all."""
        if not self.agents:
            raise EnvError(GAME_OVER)
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise EnvError(f"{agent}: is done: its only action is None, got {brief(action)}")
            self._was_dead_step(action)
            return
        seat = self._seat[agent]
        action = whole_number(action, f"{agent}: action", 0, self.batched.n_actions - 1, EnvError)
        if not self.table.legal(seat, action):
            raise EnvError(f"{agent}: action {action} is not legal now (see the action mask)")
        self._cumulative_rewards[agent] = 0
        self.rewards = dict.fromkeys(self.agents, 0)
        self._chosen[seat] = action
        pending = self.table.pending
        if len(self._chosen) < len(pending):
            self.agent_selection = self.possible_agents[pending[len(self._chosen)]]
        else:
            self.table.play(self._chosen)
            self._chosen = {}
            if self.table.done:
                self._finish()
            else:
                self.agent_selection = self.possible_agents[self.table.pending[0]]
        self._accumulate_rewards()

    def _finish(self):
        t = self.table
        self.rewards = dict(zip(self.possible_agents, t.rewards))
        self.infos = {a: {"vp_total": v, "game": t.game_index} for a, v in zip(self.possible_agents, t.vp_total)}
        self.terminations = {a: True for a in self.possible_agents}

    def policy_action(self, agent: str, policy: str | None = "heuristic") -> int:
        """The action id the kernel policy `policy` (random, greedy or heuristic, its default
        parameters; None: the seat's own, from policies=) picks for the agent's pending decision,
        as wsim.simulate's game takes it (it draws from the seat's random stream)."""
        seat = self._agent(agent)
        if agent != self.agent_selection or self.table.done:
            raise EnvError(f"{agent}: has no decision to take now (deciding: {self.agent_selection})")
        return self.table.policy_action(seat, policy)

    def render(self):
        if self.render_mode is None:
            return None
        return self.table.describe([self.agent_selection])

    def close(self):
        pass


class ParallelWonders(CoreWords, ParallelEnv):
    """wonders_v1 with every pending agent acting at once (`parallel_env`); the settings of env().

    A step takes one action from every live agent. The agents with a decision pending (every player
    on a turn move; then, as the rules make them, a stage-3 neighbour, a 7th card, a discard build,
    the Free City's move, each taken by its decider) give one of its legal ids (the AEC env's);
    the others give WAIT, the one id their mask allows (the last of the action space, one more
    than the AEC env's). Observations are the AEC env's (the core's), and so are the rewards.
    """

    metadata = {"render_modes": list(RENDER_MODES), "name": "wonders_v1"}

    def __init__(self, **settings):
        self._aec = raw_env(**settings)  # the game, its settings and its checks
        self.table, self.batched = self._aec.table, self._aec.batched
        self.possible_agents = self._aec.possible_agents[:]
        self.agents = []
        self.render_mode = self._aec.render_mode
        self.wait = self.batched.n_actions  # the id of an agent with nothing to decide
        space = observation_space(self.batched.n_features, self.wait + 1)
        self._obs_spaces = {a: space for a in self.possible_agents}
        self._act_spaces = {a: spaces.Discrete(self.wait + 1) for a in self.possible_agents}

    def observation_space(self, agent):
        return self._obs_spaces[agent]

    def action_space(self, agent):
        return self._act_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None):
        """A new game, as the AEC env's reset (game 0 of `seed`, or the next game of the seed)."""
        self.table.deal(seed)
        self.agents = self.possible_agents[:]
        return self._observations(), {a: {} for a in self.agents}

    def _observations(self) -> dict:
        out = {}
        pending = set(self.table.pending)
        for seat, a in enumerate(self.possible_agents):
            seen = self.table.observation(seat, seat in pending)
            seen["action_mask"] = np.append(seen["action_mask"], np.int8(seat not in pending))
            out[a] = seen
        return out

    def step(self, actions: dict):
        """Play one action of every live agent (the class docstring). A refused step (an agent
        left out, an id out of range or not legal now, an agent that is not live) changes
        nothing."""
        if not self.agents:
            raise EnvError(GAME_OVER)
        if not isinstance(actions, dict):
            raise EnvError(f"actions: a dict of every live agent's action, got {brief(actions)}")
        unknown = [a for a in actions if a not in self.agents]
        if unknown:
            raise EnvError(f"actions: {brief(unknown[0])} is not a live agent ({', '.join(self.agents)})")
        choices = {}
        pending = self.table.pending
        for seat, a in enumerate(self.agents):
            if a not in actions:
                raise EnvError(f"{a}: no action given (every live agent acts; WAIT, {self.wait}, when it has "
                               "nothing to decide)")
            action = whole_number(actions[a], f"{a}: action", 0, self.wait, EnvError)
            if seat not in pending:
                if action != self.wait:
                    raise EnvError(f"{a}: has nothing to decide now: its only action is WAIT ({self.wait})")
            elif action == self.wait or not self.table.legal(seat, action):
                raise EnvError(f"{a}: action {action} is not legal now (see the action mask)")
            else:
                choices[seat] = action
        self.table.play(choices)
        live = self.agents
        if self.table.done:
            t = self.table
            rewards = dict(zip(self.possible_agents, t.rewards))
            infos = {a: {"vp_total": v, "game": t.game_index} for a, v in zip(self.possible_agents, t.vp_total)}
            obs = self._observations()
            self.agents = []
            return obs, rewards, {a: True for a in live}, {a: False for a in live}, infos
        return (self._observations(), {a: 0 for a in live}, {a: False for a in live}, {a: False for a in live},
                {a: {} for a in live})

    def policy_action(self, agent: str, policy: str | None = "heuristic") -> int:
        """The AEC env's policy_action, for any agent with a decision pending."""
        seat = self._aec._agent(agent)
        if seat not in self.table.pending:
            raise EnvError(f"{agent}: has no decision to take now")
        return self.table.policy_action(seat, policy)

    def action_to_string(self, action: int) -> str:
        """The words of an action id: the AEC env's, or "wait"."""
        action = whole_number(action, "action", 0, self.wait, EnvError)
        return "wait" if action == self.wait else super().action_to_string(action)

    def action_from_string(self, text: str) -> int:
        """The action id of action_to_string's words."""
        return self.wait if isinstance(text, str) and text.strip() == "wait" else super().action_from_string(text)

    def render(self):
        if self.render_mode is None:
            return None
        return self.table.describe([self.possible_agents[s] for s in self.table.pending])

    def close(self):
        pass
