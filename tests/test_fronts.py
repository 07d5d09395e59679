"""One contract for every front door (the step API wsim.Game, the AEC and Parallel envs, the
batched env at N = 1 and N = 4, the vector env, the single learner), held by one drive_contract:
the seeded games a kernel policy plays through the front are wsim.simulate's (points and win
shares), a bad action is refused with a WsimError and changes nothing, and the env fronts show
the same observation at the same position. Then: a policy trained on vector_env plays through
wonders_v1 unchanged."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the rl extra (make test installs it)")

import wsim  # noqa: E402
from wsim.env import batched_v0, single, wonders_v1  # noqa: E402
from wsim.errors import WsimError  # noqa: E402

SEED, GAMES = 6, 3


class Front:
    """A front door as the contract drives it. play(): {game: {seat: (points, reward or None)}}
    of the first GAMES games of SEED, every seat played by `policy` (the front's kernel seats,
    or its policy_action for a learner seat), and `seen`: seat 0's observations in game 0, at
    each of its decisions (None where the front shows no vector). refuse(): play a bad action
    and return (the error, the state before, the state after)."""

    name = ""
    seen: list | None = None

    def __init__(self, players: int, policy: str, settings: dict):
        self.players, self.policy, self.settings = players, policy, settings


class StepAPI(Front):
    name = "wsim.Game"

    def _game(self, index: int):
        return wsim.Game(players=self.players, seed=SEED, game=index, policies=self.policy, **self.settings)

    def play(self) -> dict:
        # Game.step takes a round's decisions at once, so at 2 players the Free City's move is
        # shown before its controller's own move is played: the vectors are compared from 3 players
        out, self.seen = {}, [] if self.players > 2 else None
        for index in range(GAMES):
            g = self._game(index)
            while not g.done:
                if index == 0 and self.seen is not None and any(d.decider == 0 for d in g.pending()):
                    self.seen.append(g.features(0))
                g.step({d.seat: g.policy_move(d.seat) for d in g.pending()})
            out[index] = {p["seat"]: (p["vp_total"], None) for p in g.scores()[:self.players]}
        return out

    def refuse(self) -> tuple:
        g = self._game(0)
        seat = g.pending()[0].seat
        before = g.observation(seat)
        with pytest.raises(WsimError) as raised:
            g.step({seat: 10**6})
        return raised.value, before, g.observation(seat)


class AEC(Front):
    name = "wonders_v1.env"

    def make(self):
        return wonders_v1.env(players=self.players, seed=SEED, policies=self.policy, **self.settings)

    def play(self) -> dict:
        env, out, self.seen = self.make(), {}, []
        for index in range(GAMES):
            env.reset(seed=SEED) if index == 0 else env.reset()
            for agent in env.agent_iter():
                obs, reward, term, trunc, info = env.last()
                if term or trunc:
                    out.setdefault(info["game"], {})[int(agent[7:])] = (info["vp_total"], reward)
                    env.step(None)
                    continue
                if index == 0 and agent == "player_0":
                    self.seen.append(obs["observation"])
                env.step(env.unwrapped.policy_action(agent, None))
        return out

    def refuse(self) -> tuple:
        env = self.make()
        env.reset(seed=SEED)
        mask = env.observe(env.agent_selection)["action_mask"]
        state = lambda: (env.unwrapped.batched._states.tobytes(), env.agent_selection)  # noqa: E731
        before = state()
        with pytest.raises(WsimError) as raised:
            env.step(int(np.flatnonzero(mask == 0)[0]))
        return raised.value, before, state()


class Parallel(Front):
    name = "wonders_v1.parallel_env"

    def make(self):
        return wonders_v1.parallel_env(players=self.players, seed=SEED, policies=self.policy, **self.settings)

    def play(self) -> dict:
        par, out, self.seen = self.make(), {}, []
        for index in range(GAMES):
            obs, _ = par.reset(seed=SEED) if index == 0 else par.reset()
            while par.agents:
                deciding = set(par.table.pending)
                if index == 0 and 0 in deciding:
                    self.seen.append(obs["player_0"]["observation"])
                actions = {a: par.policy_action(a, None) if s in deciding else par.wait
                           for s, a in enumerate(par.agents)}
                obs, rewards, _, _, infos = par.step(actions)
            out[index] = {s: (infos[a]["vp_total"], rewards[a]) for s, a in enumerate(par.possible_agents)}
        return out

    def refuse(self) -> tuple:
        par = self.make()
        obs, _ = par.reset(seed=SEED)
        actions = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items()}
        actions["player_0"] = int(np.flatnonzero(obs["player_0"]["action_mask"] == 0)[0])
        before = par.batched._states.tobytes()
        with pytest.raises(WsimError) as raised:
            par.step(actions)
        return raised.value, before, par.batched._states.tobytes()


class Batched(Front):
    """batched_v0.env with every seat a learner, num_games slots."""

    num_games = 1

    @property
    def name(self):
        return f"batched_v0.env(num_games={self.num_games})"

    def make(self):
        return batched_v0.env(num_games=self.num_games, players=self.players, seed=SEED, **self.settings)

    def play(self) -> dict:
        venv, out, self.seen = self.make(), {}, []
        obs, info = venv.reset()
        while not all(game in out for game in range(GAMES)):
            games = info["game"].copy()
            if games[0] == 0 and venv.acting()[0, 0]:
                self.seen.append(obs["observation"][0, 0].copy())
            obs, rewards, ended, _, info = venv.step(venv.policy_actions(self.policy))
            for g in np.flatnonzero(ended):
                out[int(games[g])] = {s: (int(info["vp_total"][g, s]), float(rewards[g, s]))
                                      for s in range(self.players)}
        return {g: v for g, v in out.items() if g < GAMES}

    def refuse(self) -> tuple:
        venv = self.make()
        venv.reset()
        actions = venv.sample_legal().copy()
        seat = int(np.flatnonzero(actions[0] >= 0)[0])
        actions[0, seat] = 10**6
        before = venv._states.tobytes()
        with pytest.raises(WsimError) as raised:
            venv.step(actions)
        return raised.value, before, venv._states.tobytes()


class Batched4(Batched):
    num_games = 4


class Vector(Front):
    """vector_env with the learner rotating (seat g mod P in game g), played by the policy too."""

    name = "batched_v0.vector_env"

    def make(self, rotate=True):
        return batched_v0.vector_env(num_envs=2, players=self.players, seed=SEED, opponents=self.policy,
                                     rotate=rotate, **self.settings)

    def play(self) -> dict:
        out = {}
        venv = self.make()
        obs, info = venv.reset()
        while len(out) < GAMES:
            obs, rewards, ended, _, info = venv.step(venv.policy_actions(self.policy))
            for g in np.flatnonzero(ended):
                seat = int(info["seat"][g])
                out.setdefault(int(info["game"][g]) - 2, {})[seat] = (int(info["vp_total"][g]), float(rewards[g]))
        self.seen = []
        fixed = self.make(rotate=False)  # seat 0 learns in every game: its observations of game 0
        obs, info = fixed.reset()
        while info["game"][0] == 0:
            self.seen.append(obs["observation"][0])
            obs, _, _, _, info = fixed.step(fixed.policy_actions(self.policy))
        return {g: v for g, v in out.items() if g < GAMES}

    def refuse(self) -> tuple:
        venv = self.make()
        venv.reset()
        actions = venv.sample_legal().copy()
        actions[0] = 10**6
        before = venv.batched._states.tobytes()
        with pytest.raises(WsimError) as raised:
            venv.step(actions)
        return raised.value, before, venv.batched._states.tobytes()


class Single(Front):
    """single_learner, the learner seat g mod P in game g (seat 0 in game 0)."""

    name = "single.single_learner"

    def make(self, seat: int):
        return single.single_learner(players=self.players, seat=seat, seed=SEED, opponents=self.policy,
                                     **self.settings)

    def play(self) -> dict:
        out, self.seen = {}, []
        for index in range(GAMES):
            seat = index % self.players
            env = self.make(seat)
            obs, _ = env.reset(seed=SEED)
            for _ in range(index):  # the next game of the seed, each played out
                done = False
                while not done:
                    obs, _, done, _, _ = env.step(env.policy_action(self.policy))
                obs, _ = env.reset()
            done = False
            while not done:
                if index == 0:
                    self.seen.append(obs["observation"])
                obs, reward, done, _, info = env.step(env.policy_action(self.policy))
            assert info["game"] == index
            out[index] = {seat: (info["vp_total"], reward)}
        return out

    def refuse(self) -> tuple:
        env = self.make(0)
        obs, _ = env.reset(seed=SEED)
        state = lambda: (env.batched._states.tobytes(), env.np_random.bit_generator.state)  # noqa: E731
        before = state()
        with pytest.raises(WsimError) as raised:
            env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
        return raised.value, before, state()


FRONTS = (StepAPI, AEC, Parallel, Batched, Batched4, Vector, Single)


def _simulated(players: int, policy: str, settings: dict) -> dict:
    """{game: {seat: (points, win share)}} of simulate's first GAMES games of SEED."""
    table = wsim.simulate(games=GAMES, players=players, policies=policy, seed=SEED, threads=1, **settings).to_pylist()
    out = {}
    for game in range(GAMES):
        rows = [r for r in table if r["game"] == game][:players]
        winners = sum(r["win"] for r in rows)
        out[game] = {r["seat"]: (r["vp_total"], 1 / winners if r["win"] else 0.0) for r in rows}
    return out


def drive_contract(front: Front, expected: dict):
    """The contract every front keeps (module docstring); returns what the front's seat 0 saw."""
    got = front.play()
    assert sorted(got) == list(range(GAMES)), front.name
    for game, seats in got.items():
        for seat, (points, reward) in seats.items():
            want_points, share = expected[game][seat]
            assert points == want_points, f"{front.name}: game {game}, seat {seat}"
            assert reward is None or reward == pytest.approx(share), f"{front.name}: game {game}, seat {seat}"
    error, before, after = front.refuse()
    assert isinstance(error, WsimError) and before == after, front.name
    return front.seen


CASES = [(2, "heuristic", {}), (4, "random", {}), (5, "greedy", {"manneken_pis": True, "sides": "B"}),
         (7, "random", {"manneken_pis": True})]


@pytest.mark.parametrize("players, policy, settings", CASES)
def test_every_front_plays_simulates_games_and_refuses_alike(players, policy, settings):
    expected = _simulated(players, policy, settings)
    seen = {f.name: s for f in (cls(players, policy, settings) for cls in FRONTS)
            for s in [drive_contract(f, expected)] if s is not None}
    first = seen.pop(AEC.name)
    assert len(first) >= 18
    for name, views in seen.items():
        assert len(views) == len(first) and all(np.array_equal(a, b) for a, b in zip(views, first)), name


def test_a_policy_trained_on_vector_env_plays_through_wonders_v1_unchanged():
    """A fixed linear scorer over the observation (argmax over the legal ids) plays seat 0 of the
    same seeded game against heuristic seats: through vector_env and through the AEC env it makes
    the same moves, and the game ends with the same points."""
    players, seed = 4, 11
    venv = batched_v0.vector_env(num_envs=1, players=players, seed=seed, opponents="heuristic", rotate=False)
    assert venv.feature_names() == wonders_v1.env(players=players).unwrapped.feature_names()
    weights = np.random.default_rng(0).normal(size=(venv.batched.n_features, venv.batched.n_actions))

    def scorer(obs) -> int:
        scores = np.log1p(np.abs(obs["observation"])) @ weights
        return int(np.flatnonzero(obs["action_mask"])[np.argmax(scores[obs["action_mask"] == 1])])

    obs, info = venv.reset()
    vector_moves = []
    while True:
        vector_moves.append(scorer({k: v[0] for k, v in obs.items()}))
        obs, reward, ended, _, info = venv.step(np.array(vector_moves[-1:]))
        if ended[0]:
            vector_points = int(info["vp_total"][0])
            break
    env = wonders_v1.env(players=players, seed=seed)
    env.reset(seed=seed)
    aec_moves = []
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            if agent == "player_0":
                aec_points = info["vp_total"]
            env.step(None)
        elif agent == "player_0":
            aec_moves.append(scorer(obs))
            env.step(aec_moves[-1])
        else:
            env.step(env.unwrapped.policy_action(agent, "heuristic"))
    assert aec_moves == vector_moves and aec_points == vector_points
