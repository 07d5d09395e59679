"""wonders_v0: 7 Wonders as a PettingZoo AEC environment (docs/env.md documents every feature).

    from wsim.env import wonders_v0
    env = wonders_v0.env(players=4, seed=0)
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

One agent per player ("player_0" ...); the simultaneous turns of the rules are taken one seat
after the other, and an agent's observation never shows what the seats before it chose this
turn (it is built from the seat's view, docs/rules.md §2). At 2 players the Free City's moves are its
controller's: that agent acts twice in such a turn (the observation says for which city).
Rewards come at the end: each winner's share of the win (1/k among k tied winners), or with
reward="margin" the player's points minus the best other player's. parallel_env() is the same
game through PettingZoo's Parallel API, every agent acting at once (ParallelWonders).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers

from wsim import codes
from wsim.errors import brief, one_of, optional_whole, whole_number
from wsim.api.game import DECISION_KINDS, Game
from wsim.env.actions import ActionLayout, EnvError
from wsim.kernels.layout import (F_BOARD, F_COINS, F_COLORS, F_DEFEATS, F_MIL, F_NCARDS, F_OWNED, F_PROD, F_SCI,
                                 F_SHIELDS, F_SIDE, F_STAGES)
from wsim.run.settings import MAX_SEED
from wsim.run.stepgame import CITY_FIELDS

REWARDS = ("win", "margin")
CITY_SCALARS = (F_COINS, F_SHIELDS, F_MIL, F_DEFEATS, F_STAGES, F_NCARDS, F_SIDE)
OBS_LOW, OBS_HIGH = -999, 999


GAME_OVER = "step: the game is over (every agent is done): reset() starts the next"


def env(**kwargs) -> AECEnv:
    """The environment, wrapped in PettingZoo's order checks (the usual entry point)."""
    return _OrderChecks(raw_env(**kwargs))


def parallel_env(**kwargs) -> ParallelEnv:
    """The same game through PettingZoo's Parallel API, every agent acting at once (the same
    settings as env(); ParallelWonders)."""
    return ParallelWonders(**kwargs)


def final_rewards(game, reward_kind: str, agents: list) -> tuple:
    """(rewards, infos) of a finished game: each winner's share of the win (1/k among k tied
    winners), or with "margin" the points minus the best other player's; infos hold the scores."""
    scores = game.scores()[:len(agents)]  # not the Free City's
    totals = [p["vp_total"] for p in scores]
    winners = sum(p["win"] for p in scores)
    rewards, infos = {}, {}
    for a, p in zip(agents, scores):
        if reward_kind == "win":
            rewards[a] = 1 / winners if p["win"] else 0
        else:
            rewards[a] = p["vp_total"] - max(t for i, t in enumerate(totals) if i != p["seat"])
        infos[a] = {"scores": p}
    return rewards, infos


class _OrderChecks(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order checks, but a step after every agent is done is refused as the raw
    environment refuses it: PettingZoo's wrapper only warns and drops the action."""

    def step(self, action):
        if self._has_reset and not self.agents:
            raise EnvError(GAME_OVER)
        super().step(action)


class raw_env(AECEnv):
    """wonders_v0 without wrappers (module docstring). players 2..7; seed: the game seed (reset
    without a seed plays the next game of it); reward: "win" or "margin"; the other settings as
    wsim.Game's (policies and policy_params: those policy_action plays by default, a learned
    seat's model file among them)."""

    metadata = {"render_modes": ["ansi"], "name": "wonders_v0", "is_parallelizable": False}

    def __init__(self, players: int = 4, seed: int = 0, reward: str = "win", wonders: str = "random",
                 sides: str = "random", manneken_pis: bool = False, policies="heuristic", policy_params=(),
                 data=None, render_mode: str | None = None):
        super().__init__()
        one_of(reward, "reward", REWARDS, EnvError)
        if render_mode is not None:
            one_of(render_mode, "render_mode", ("ansi",), EnvError)
        self.settings = dict(players=players, wonders=wonders, sides=sides, manneken_pis=manneken_pis,
                             policies=policies, policy_params=policy_params, data=data)
        self.game = Game(seed=seed, **self.settings)  # checks every setting now
        players = self.game.players
        # the constructor's game is not played: the first reset() without a seed plays game 0
        self.seed_value, self.game_index = self.game.seed, -1
        self.reward_kind, self.render_mode = reward, render_mode
        t = self.game._tables
        self._name_id = np.array(t.card_name_id, np.int64)
        self._n_boards = len(t.board_ids)
        self._board_ids, self._building_names = tuple(t.board_ids), tuple(t.names)
        self.layout = ActionLayout(len(t.names))
        self.cities = codes.FC_CITIES if players == codes.FC_PLAYERS else players
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        # the city block's columns, gathered for every city at once (_features): the scalars, the
        # board (one-hot, set apart), then the production, colour, science and owned-name counts
        # (as columns of the observation's cities, whose fields are CITY_FIELDS)
        rest = np.concatenate([np.arange(block, block + width) for block, width in (
            (F_PROD, codes.N_RES), (F_COLORS, codes.N_KINDS), (F_SCI, codes.N_SCIENCE), (F_OWNED, self.layout.n_names))])
        column = {f: i for i, f in enumerate(CITY_FIELDS)}
        self._scalar_cols = np.array([column[f] for f in CITY_SCALARS])
        self._board_col = column[F_BOARD]
        self._rest_cols = np.array([column[f] for f in rest])
        self._ring = np.array([[(seat + k) % self.cities for k in range(self.cities)] for seat in range(self.cities)])
        size = self._obs_size()
        self._obs_spaces = {a: spaces.Dict({
            "observation": spaces.Box(OBS_LOW, OBS_HIGH, (size,), np.int16),
            "action_mask": spaces.Box(0, 1, (self.layout.size,), np.int8)}) for a in self.possible_agents}
        self._act_spaces = {a: spaces.Discrete(self.layout.size) for a in self.possible_agents}

    # -- spaces ----------------------------------------------------------------------------------
    def observation_space(self, agent):
        return self._obs_spaces[agent]

    def action_space(self, agent):
        return self._act_spaces[agent]

    def _city_size(self) -> int:
        return (len(CITY_SCALARS) + self._n_boards + codes.N_RES + codes.N_KINDS + codes.N_SCIENCE
                + self.layout.n_names)

    def _obs_size(self) -> int:
        header = codes.N_AGES + codes.TURNS_PER_AGE + len(DECISION_KINDS) + 3
        return header + 2 * self.layout.n_names + self.cities * self._city_size()

    # -- the game --------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None):
        """A new game: game 0 of `seed`, or without one the next game of the current seed (the
        first reset() without one: game 0 of the constructor's seed). A refused seed changes
        nothing: the next reset() plays on as if it had not been asked."""
        seed = optional_whole(seed, "seed", 0, MAX_SEED, EnvError)
        new_seed, index = (self.seed_value, self.game_index + 1) if seed is None else (seed, 0)
        self.game = Game(seed=new_seed, game=index, **self.settings)
        self.seed_value, self.game_index = new_seed, index
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._select()

    def _select(self):
        """The next decision (the first pending, in seat order) and the agent that takes it."""
        decision = self.game.pending()[0]
        self._decision = decision
        self._ids, self._row_of = self.decision_ids(decision)
        self._policy_rows = {}  # action id -> the row policy_action chose for it
        self.agent_selection = self.possible_agents[decision.decider]

    def _agent(self, agent) -> int:
        """The seat of an agent name; EnvError for a name that is not one of this game's agents."""
        if not isinstance(agent, str) or agent not in self._seat:
            raise EnvError(f"agent: one of {', '.join(self.possible_agents)}, got {brief(agent)}")
        return self._seat[agent]

    def observe(self, agent):
        seat = self._agent(agent)
        mask = np.zeros(self.layout.size, np.int8)
        mine = agent == self.agent_selection and not self.game.done
        if mine:
            mask[list(self._row_of)] = 1
        return {"observation": self._features(seat, self._decision if mine else None), "action_mask": mask}

    def _features(self, seat: int, decision) -> np.ndarray:
        """The observation vector of `seat`, which takes `decision` now (None: it takes none)."""
        # the seat's view (Game.observation), the pieces this vector uses read one by one
        seen = self.game.observation(seat)
        out = np.zeros(self._obs_size(), np.int16)
        age, turn = seen["header"][2], seen["header"][3]
        out[age - 1] = 1
        at = codes.N_AGES
        out[at + min(turn, codes.TURNS_PER_AGE) - 1] = 1
        at += codes.TURNS_PER_AGE
        if decision is not None:
            out[at + DECISION_KINDS.index(decision.kind)] = 1
        at += len(DECISION_KINDS)
        out[at] = 1 if decision is not None and decision.seat != seat else 0  # deciding for the Free City
        out[at + 1] = sum(seen["pile_by_age"])
        out[at + 2] = seen["fc_pile"]
        at += 3
        n_names = self.layout.n_names
        for c in seen["hand"]:
            out[at + self._name_id[c]] += 1
        at += n_names
        for c in {c for hand in seen["held"] for c in hand}:
            out[at + self._name_id[c]] = 1
        at += n_names
        rows = np.asarray(seen["cities"])[self._ring[seat]]  # the seat, its left neighbour, and on round the ring
        cities = out[at:].reshape(self.cities, self._city_size())
        scalars = len(CITY_SCALARS)
        cities[:, :scalars] = rows[:, self._scalar_cols]
        cities[np.arange(self.cities), scalars + rows[:, self._board_col]] = 1
        cities[:, scalars + self._n_boards:] = rows[:, self._rest_cols]
        return out

    def step(self, action):
        """Play `action` (an id whose mask bit is 1; None for an agent that is done)."""
        if not self.agents:
            raise EnvError(GAME_OVER)
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise EnvError(f"{agent}: is done: its only action is None, got {brief(action)}")
            self._was_dead_step(action)
            return
        action = whole_number(action, f"{agent}: action", 0, self.layout.size - 1, EnvError)
        if action not in self._row_of:
            raise EnvError(f"{agent}: action {action} is not legal now (see the action mask)")
        self._cumulative_rewards[agent] = 0
        self.rewards = {a: 0 for a in self.agents}
        # an id two copies of a card share plays the copy policy_action's policy chose, if it was
        # asked: the hand then stays as the kernels leave it, and the game is wsim.simulate's
        row = self._policy_rows.get(action, self._row_of[action])
        self.game.step({self._decision.seat: row})
        if self.game.done:
            self._finish()
        else:
            self._select()
        self._accumulate_rewards()

    def _finish(self):
        self.rewards, self.infos = final_rewards(self.game, self.reward_kind, self.possible_agents)
        self.terminations = {a: True for a in self.possible_agents}

    def decision_ids(self, decision) -> tuple:
        """(action id of each legal row, id -> the first row with it) of a pending decision."""
        kind = DECISION_KINDS.index(decision.kind)
        ids = self.layout.ids(self.game._rows(decision.seat, kind), kind, lambda c: int(self._name_id[c]))
        row_of = {}
        for i, a in enumerate(ids):
            row_of.setdefault(a, i)  # two copies of one name: the same move, the first row
        return ids, row_of

    def action_to_string(self, action: int) -> str:
        """The words of an action id (ActionLayout.to_string), as OpenSpiel's action_to_string."""
        action = whole_number(action, "action", 0, self.layout.size - 1, EnvError)
        return self.layout.to_string(action, self._building_names)

    def action_from_string(self, text: str) -> int:
        """The action id of action_to_string's words."""
        return self.layout.from_string(text, self._building_names)

    def feature_names(self) -> list:
        """The name of every entry of the observation vector, in order (docs/env.md)."""
        out = [f"age={a}" for a in range(1, codes.N_AGES + 1)]
        out += [f"turn={u}" for u in range(1, codes.TURNS_PER_AGE + 1)]
        out += [f"decision={k}" for k in DECISION_KINDS] + ["for_free_city", "pile", "fc_pile"]
        out += [f"hand:{n}" for n in self._building_names] + [f"held:{n}" for n in self._building_names]
        scalars = ("coins", "shields", "military", "defeats", "stages", "cards", "side")
        assert len(scalars) == len(CITY_SCALARS)
        for k in range(self.cities):
            out += [f"city{k}:{f}" for f in scalars] + [f"city{k}:board={b}" for b in self._board_ids]
            out += [f"city{k}:prod:{r}" for r in codes.RESOURCES]
            out += [f"city{k}:{c}" for c in codes.COLORS + ("stage",)]
            out += [f"city{k}:{s}" for s in ("compass", "gear", "tablet", "wildcard")]
            out += [f"city{k}:built:{n}" for n in self._building_names]
        return out

    def policy_action(self, agent: str, policy: str | None = "heuristic") -> int:
        """The action id the kernel policy `policy` (random, greedy, heuristic, rollout or
        learned, with its default parameters; None: the seat's own policy and parameters, from
        policies= and policy_params=) picks for the agent's pending decision, as
        wsim.Game.policy_move (it draws from the seat's random stream)."""
        self._agent(agent)
        if agent != self.agent_selection or self.game.done:
            raise EnvError(f"{agent}: has no decision to take now (deciding: {self.agent_selection})")
        row = self.game.policy_move(self._decision.seat, policy)
        self._policy_rows[self._ids[row]] = row
        return self._ids[row]

    def render(self):
        if self.render_mode is None:
            return None
        if self.game.done:
            return self.game.replay_text()
        d = self._decision
        return f"age {self.game.age}, turn {self.game.turn}: seat {d.seat} ({d.kind}) decided by player_{d.decider}"

    def close(self):
        pass


class ParallelWonders(ParallelEnv):
    """wonders_v0 with every agent acting at once (`parallel_env`); the settings of env().

    A step takes one action from every live agent. The agents with a decision pending (every player
    on a turn move; then, as the rules make them, a stage-3 neighbour, a 7th card, a discard build,
    the Free City's move, each taken by its decider) give one of its legal ids, those of the AEC
    env (wonders_v0.ActionLayout); the others give WAIT, the one id their mask allows (the last of
    the action space, one more than the AEC env's). Observations and rewards are the AEC env's: an
    agent sees what its seat sees, and the rewards come at the end.
    """

    metadata = {"render_modes": ["ansi"], "name": "wonders_v0"}

    def __init__(self, **settings):
        self._aec = raw_env(**settings)  # the game, its settings, the action layout and observations
        self.possible_agents = self._aec.possible_agents[:]
        self.agents = []
        self.render_mode = self._aec.render_mode
        self.wait = self._aec.layout.size  # the id of an agent with nothing to decide
        size = self._aec.observation_space(self.possible_agents[0])["observation"].shape
        self._obs_spaces = {a: spaces.Dict({
            "observation": spaces.Box(OBS_LOW, OBS_HIGH, size, np.int16),
            "action_mask": spaces.Box(0, 1, (self.wait + 1,), np.int8)}) for a in self.possible_agents}
        self._act_spaces = {a: spaces.Discrete(self.wait + 1) for a in self.possible_agents}

    def observation_space(self, agent):
        return self._obs_spaces[agent]

    def action_space(self, agent):
        return self._act_spaces[agent]

    @property
    def game(self):
        """The wsim.Game being played."""
        return self._aec.game

    def reset(self, seed: int | None = None, options: dict | None = None):
        """A new game, as wonders_v0's reset (game 0 of `seed`, or the next game of the seed)."""
        self._aec.reset(seed=seed, options=options)
        self.agents = self.possible_agents[:]
        self._take_pending()
        return self._observations(), {a: {} for a in self.agents}

    def _take_pending(self):
        """The decisions pending now, by decider: (decision, ids, id -> row)."""
        self._pending = {}
        for d in self.game.pending():
            self._pending[self.possible_agents[d.decider]] = (d, *self._aec.decision_ids(d))

    def _observations(self) -> dict:
        out = {}
        for a in self.agents:
            mask = np.zeros(self.wait + 1, np.int8)
            taken = self._pending.get(a)
            if taken is None:
                mask[self.wait] = 1
            else:
                mask[list(taken[2])] = 1
            seat = self._aec._agent(a)
            out[a] = {"observation": self._aec._features(seat, taken[0] if taken else None), "action_mask": mask}
        return out

    def step(self, actions: dict):
        """Play one action of every live agent (module docstring). A refused step (an agent
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
        for a in self.agents:
            if a not in actions:
                raise EnvError(f"{a}: no action given (every live agent acts; WAIT, {self.wait}, when it has "
                               "nothing to decide)")
            action = whole_number(actions[a], f"{a}: action", 0, self.wait, EnvError)
            taken = self._pending.get(a)
            if taken is None:
                if action != self.wait:
                    raise EnvError(f"{a}: has nothing to decide now: its only action is WAIT ({self.wait})")
            elif action not in taken[2]:
                raise EnvError(f"{a}: action {action} is not legal now (see the action mask)")
            else:
                choices[taken[0].seat] = taken[2][action]
        self.game.step(choices)
        live = self.agents
        if self.game.done:
            rewards, infos = final_rewards(self.game, self._aec.reward_kind, self.possible_agents)
            self._pending = {}
            obs = self._observations()
            self.agents = []
            return obs, rewards, {a: True for a in live}, {a: False for a in live}, infos
        self._take_pending()
        return (self._observations(), {a: 0 for a in live}, {a: False for a in live}, {a: False for a in live},
                {a: {} for a in live})

    def action_to_string(self, action: int) -> str:
        """The words of an action id: the AEC env's, or "wait"."""
        action = whole_number(action, "action", 0, self.wait, EnvError)
        return "wait" if action == self.wait else self._aec.action_to_string(action)

    def action_from_string(self, text: str) -> int:
        """The action id of action_to_string's words."""
        return self.wait if isinstance(text, str) and text.strip() == "wait" else self._aec.action_from_string(text)

    def feature_names(self) -> list:
        """The name of every entry of the observation vector (the AEC env's)."""
        return self._aec.feature_names()

    def render(self):
        if self.render_mode is None:
            return None
        if self.game.done:
            return self.game.replay_text()
        deciding = ", ".join(f"seat {d.seat} ({d.kind}) by {a}" for a, (d, _, _) in self._pending.items())
        return f"age {self.game.age}, turn {self.game.turn}: {deciding}"

    def close(self):
        pass
