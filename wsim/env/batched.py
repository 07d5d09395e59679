"""The batched environment (BatchedEnv, public as wsim.env.batched_v0): N games of 7 Wonders
stepped together by the kernels (docs/env.md, "N games at once").

    from wsim.env import batched_v0
    venv = batched_v0.env(num_games=4096, players=4, seed=0)     # every seat a learner
    obs, info = venv.reset()
    for _ in range(1000):
        obs, rewards, terminations, truncations, info = venv.step(venv.sample_legal())

One call of `step` plays every acting learner's action of every game, then the kernel policies of
the other seats (policies: a list with a policy name per seat, None for a learner seat; or a list
of such seatings, game i playing seating i mod k: an opponent pool, wsim/env/pool.py) until each
game waits for a learner again. A game that ends is scored and its slot dealt its next game in the
same call (Gymnasium's same-step autoreset): info["vp_total"] and info["final_obs"] hold the ended
game's totals and last observations where terminations is True (info["_final_obs"]: that mask,
Gymnasium >= 1.0's names). info["final_observation"] and info["_final_observation"], the names of
Gymnasium before 1.0, hold the same arrays for one more release, then go.

The arrays returned are the environment's own buffers, written again by the next call (copy what
must be kept; vector_env returns copies): obs["observation"] (N, P, F) float32 (the learned
player's encoder, kernels/observe.py; zeros for kernel seats), obs["action_mask"] (N, P, A) int8
(the ids of wsim.env.actions.ActionLayout), info["legal_ids"] / info["legal_count"] (the same ids
as a compact list per seat). A seat with no decision to take passes -1.

Slot g plays games g, g + N, g + 2N, ... of the seed, so a game's play depends only on the seed,
its index and the actions it is given, never on N or the threads. `LearnerVectorEnv` (vector.py)
is one learning seat (rotated by game) against kernel policies, as a gymnasium.vector.VectorEnv.

Every array is allocated in the constructor from one list (BatchedEnv._array_specs), which the
memory check reads first: a request whose arrays need more than MEMORY_SHARE of the memory
available is refused before anything is allocated (np.zeros only reserves address space: the
pages are taken at reset(), where the OOM killer would end the process without a word).
"""

from __future__ import annotations

import math
import os
import threading
from pathlib import Path

import numpy as np

from wsim.env.actions import ASKABLE, N_ACTIONS_PER_CARD, PURCHASE_SLOTS, ActionLayout, EnvError
from wsim.errors import brief, flag, one_of, optional_whole, whole_number
from wsim.kernels.policy import BATCHABLE

REWARDS = ("win", "margin")
MAX_GAMES = 1_000_000
VERDICTS = ("", "is out of range", "is not one of its legal actions", "was given by a seat with no decision to take "
            "(pass -1)")
# The share of the memory available an environment's arrays may take: the rest is for Python, the
# kernels' scratch, the copies a caller keeps, and the other programs
MEMORY_SHARE = 0.75
INT64_MAX = np.iinfo(np.int64).max


def memory_available() -> int | None:
    """The bytes of memory this process may still take: Linux's MemAvailable, lowered to what its
    cgroup's memory limit leaves; the free pages where there is no /proc; None when neither is known."""
    found = []
    try:
        meminfo = Path("/proc/meminfo").read_text()
        found += [int(line.split()[1]) * 1024 for line in meminfo.splitlines() if line.startswith("MemAvailable:")]
        group = Path("/sys/fs/cgroup") / Path("/proc/self/cgroup").read_text().partition("::")[2].strip().lstrip("/")
        limit = (group / "memory.max").read_text().strip()
        if limit != "max":
            found.append(int(limit) - int((group / "memory.current").read_text()))
    except (OSError, ValueError):
        pass  # no cgroup v2 (or no /proc): MemAvailable alone, or the free pages below
    if not found and hasattr(os, "sysconf"):
        try:
            found.append(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
        except (OSError, ValueError):
            pass  # a system without these names: no bound but MAX_GAMES
    return min(found) if found else None


def array_bytes(specs: dict) -> int:
    """The bytes of the arrays `specs` lists (name -> (shape, dtype, fill))."""
    return sum(math.prod(shape) * np.dtype(dtype).itemsize for shape, dtype, _ in specs.values())


def _size(count: int) -> str:
    """A count of bytes in words: "93.6 GiB", "4.1 MiB"."""
    return f"{count / 2**30:,.1f} GiB" if count >= 2**30 else f"{count / 2**20:,.1f} MiB"


def refuse_beyond_memory(needed: int, num_games: int, name: str, hint: str = ""):
    """EnvError when `needed` bytes of arrays (num_games games' worth, each array linear in it)
    are more than MEMORY_SHARE of the memory available, naming the largest count that fits."""
    available = memory_available()
    if available is None:
        return
    allowed = int(max(available, 0) * MEMORY_SHARE)
    if needed <= allowed:
        return
    fits = allowed // (needed // num_games)
    raise EnvError(f"{name}: {num_games:,} games need {_size(needed)} of arrays, more than the {_size(allowed)} "
                   f"they may take ({MEMORY_SHARE:.0%} of the {_size(available)} of memory available now): at most "
                   f"{fits:,} fit{hint}")


def int64_actions(actions, shape: tuple) -> np.ndarray:
    """actions as a C-contiguous int64 array of `shape`: EnvError for another shape, an array of
    non-integers, or a value int64 cannot hold (a uint64 2**64 - 1 would be read as -1)."""
    a = np.asarray(actions)
    if a.shape != shape or not np.issubdtype(a.dtype, np.integer):
        form = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
        raise EnvError(f"step: actions as an integer array of shape ({form}), got {brief(actions)}"
                       + (f" of shape {a.shape}, dtype {a.dtype}" if a.ndim else ""))
    if a.dtype == np.uint64 and a.size and a.max() > INT64_MAX:
        where = tuple(int(i) for i in np.argwhere(a > INT64_MAX)[0])
        raise EnvError(f"step: actions[{', '.join(map(str, where))}] is {int(a[where])}, out of range (an action "
                       "id, or -1 for a seat with no decision to take); no game was played")
    return np.ascontiguousarray(a, np.int64)


def _seat_policies(policies, players: int) -> list:
    """The seatings of `policies` (module docstring): a list of one or more, each a list with one
    entry per seat, a kernel policy (NAME or NAME:LABEL) or None for a learner (policies None:
    one seating, every seat a learner); every seating's learners sit at the same seats."""
    if policies is None:
        return [[None] * players]
    pool = isinstance(policies, (list, tuple)) and bool(policies) and all(isinstance(p, (list, tuple))
                                                                          for p in policies)
    seatings = list(policies) if pool else [policies]
    for seating in seatings:
        if isinstance(seating, str) or not isinstance(seating, (list, tuple)) or len(seating) != players:
            raise EnvError(f"policies: a list of {players} entries (a policy name, NAME:LABEL, or None for a learner "
                           f"seat), or a list of such seatings, got {brief(seating)}")
        for p in seating:
            if p is not None and (not isinstance(p, str) or p.partition(":")[0] not in BATCHABLE):
                raise EnvError(f"policies: each a policy name ({', '.join(BATCHABLE)}), NAME:LABEL, or None "
                               f"for a learner seat, got {brief(p)}")
    learners = [[p is None for p in seating] for seating in seatings]
    if any(mask != learners[0] for mask in learners):
        raise EnvError(f"policies: every seating's learners (None) at the same seats, got {brief(policies)}")
    if not any(learners[0]):
        raise EnvError("policies: at least one seat must be a learner (None): a game of kernel seats only is "
                       "wsim.simulate's")
    return [list(seating) for seating in seatings]


def _turned(run: np.ndarray, turns: int) -> np.ndarray:
    """The run records of the games: `run` holds one record per seating (game i plays seating
    i mod k), `turns` 1, or the players with rotate (game i turns the seats' policies and
    parameters i seats on: seat s plays the policy of seat s - i). Game i plays copy i mod
    lcm(k, turns), which is seating c mod k turned c mod turns seats on."""
    copies = math.lcm(len(run), turns)
    runs = np.resize(run, copies)  # copy c: seating c mod k
    players = int(run[0]["n"])
    for c in range(copies):
        r = c % turns
        if r:
            order = [(s - r) % players for s in range(players)]
            runs[c]["policies"][:players] = run[c % len(run)]["policies"][order]
            runs[c]["params"][:players] = run[c % len(run)]["params"][order]
    return runs


class BatchedEnv:
    """N games in one set of state records (module docstring). num_games 1..MAX_GAMES; players
    2..7 (2: the Free City variant); seed: the games' seed (game i of it is wsim.simulate's game
    i when every seat plays its policy); policies: None (every seat a learner) or a policy per
    seat (NAME, or NAME:LABEL: a learned label plays the model file policy_params'
    "LABEL.model" names), None for a learner seat, or a list of such seatings, game i playing
    seating i mod their count (an opponent pool, wsim/env/pool.py; the learners at the same seats
    in each); reward "win" (each winner's share, 1/k among k tied) or
    "margin" (points minus the best other player's); rotate: turn the seats' roles one seat on
    per game (in game i, seat s plays the role policies[(s - i) mod players] names: a learner
    or a kernel policy); dense_mask: keep
    obs["action_mask"] (False: only the compact legal list, far less memory); wonders, sides,
    manneken_pis, policy_params (a learned seat's model file among them), data: as for
    wsim.simulate. Refused (EnvError) when its arrays would need more
    than MEMORY_SHARE of the memory available (the message names the largest num_games that fits)."""

    count_name = "num_games"  # the count's name in messages (LearnerVectorEnv's is num_envs)

    def __init__(self, num_games: int = 1024, players: int = 4, seed: int = 0, policies=None, reward: str = "win",
                 rotate: bool = False, dense_mask: bool = True, wonders: str = "random", sides: str = "random",
                 manneken_pis: bool = False, policy_params=(), data=None):
        from wsim.env.pool import pool_records, seating_settings
        from wsim.kernels.batched import REWARD_MARGIN, REWARD_WIN
        from wsim.kernels.layout import MAX_CITY, MAX_EVENTS, RES_COUNT
        from wsim.kernels.observe import O_LENGTH, names, tables_layout
        from wsim.kernels.schema import MAX_MOVES, ActionSpace, Book, Slots, Views
        from wsim.movelog import EVENT_COLUMNS
        from wsim.run.runner import Runner

        self.num_games = whole_number(num_games, self.count_name, 1, MAX_GAMES, EnvError)
        one_of(reward, "reward", REWARDS, EnvError)
        rotate, dense_mask = flag(rotate, "rotate", EnvError), flag(dense_mask, "dense_mask", EnvError)
        players = whole_number(players, "players", 2, 7, EnvError)
        self.seatings = _seat_policies(policies, players)
        self.policies = self.seatings[0]  # the first seating (every seating's learners sit as its)
        t, seatings = seating_settings(self.seatings, policy_params, players=players, seed=seed, wonders=wonders,
                                       sides=sides, manneken_pis=manneken_pis, data=data)
        settings = seatings[0]
        self.players, self.seed = players, settings.seed
        self._tables = t
        self._runner = Runner(t, settings)
        runs, self._runner.model = pool_records(t, seatings)  # the model record of every seating's files
        self._seatings = runs  # one run record per seating, before rotate turns them (policy_actions)
        self._runs = _turned(runs, players if rotate else 1)
        self.cities = settings.cities
        self.layout = ActionLayout(len(t.names))
        self._names = tuple(t.names)
        lay = self.layout
        self._alay = ActionSpace(*(int(v) for v in (PURCHASE_SLOTS, N_ACTIONS_PER_CARD, lay.moves_end, lay.copy_end,
                                                     lay.decline, lay.size)))
        self._olay = tables_layout(t)
        self._feature_names = names(t)
        self.n_features = int(self._olay[O_LENGTH])
        self.n_actions = lay.size
        self._learner = np.zeros(players + 1, np.int8)
        self._learner[:players] = [p is None for p in self.policies]
        self._learner[players] = rotate
        self.rotate = rotate
        self._reward_kind = np.int64(REWARD_WIN if reward == "win" else REWARD_MARGIN)
        self.dense_mask = dense_mask
        specs = self._array_specs()
        refuse_beyond_memory(array_bytes(specs), self.num_games, self.count_name,
                             " (dense_mask=False needs about a third less)" if dense_mask else "")
        self._held = {name: np.full(shape, fill, dtype) if fill else np.zeros(shape, dtype)
                      for name, (shape, dtype, fill) in specs.items()}
        self._states = self._held["states"]
        self._book = Book(*(self._held[name] for name in Book._fields))
        self._views = Views(*(self._held[name] for name in Views._fields))
        self._slots = Slots(self._learner, self._olay, self._alay, self._reward_kind, self._book, self._views)
        self._actions = self._held["actions"]  # sample_legal's and policy_actions' answers
        self._truncations = self._held["truncations"]
        self._tmp_shapes = (((self.cities, RES_COUNT), np.int16), ((self.cities, MAX_CITY), np.int16),
                            ((MAX_MOVES,), np.int32), ((lay.size,), np.int8))
        self._log_shapes = (((0, MAX_EVENTS, len(EVENT_COLUMNS)), np.int16), ((0,), np.int32))
        self._local = threading.local()
        self._verdict = np.full(2, -1, np.int64)
        self._final_obs = {"observation": self._views.final_obs}  # the observation's structure, as Gymnasium 1.0's
        self._dealt = self._closed = False

    def _array_specs(self) -> dict:
        """name -> (shape, dtype, fill) of every array the environment keeps, each of num_games
        rows (the dense mask of none without dense_mask): what the constructor allocates and what
        the memory check counts."""
        from wsim.kernels.layout import STATE
        from wsim.kernels.schema import MAX_MOVES

        n, p, f, a = self.num_games, self.players, self.n_features, self.n_actions
        # pend and stash are int32, the game loop's seat and kind type, so that the kernels they
        # reach (legal, apply, decide) load the step family's compiled code instead of compiling again
        return {"states": ((n,), STATE, 0),
                "game": ((n,), np.int64, 0), "pend": ((n, p, 2), np.int32, -1), "n_legal": ((n, p), np.int16, 0),
                "legal": ((n, p, MAX_MOVES), np.int16, 0), "stash": ((n, p, 2), np.int32, -1),
                "draws": ((n,), np.uint64, 0),
                "obs": ((n, p, f), np.float32, 0), "mask": ((n if self.dense_mask else 0, p, a), np.int8, 0),
                "reward": ((n, p), np.float32, 0), "vp": ((n, p), np.int16, 0), "ended": ((n,), np.bool_, 0),
                "final_obs": ((n, p, f), np.float32, 0),
                "actions": ((n, p), np.int64, -1), "truncations": ((n,), np.bool_, 0)}

    # -- the kernels' calls ----------------------------------------------------------------------
    def _scratch(self) -> tuple:
        """This thread's (scratch record, schema.Tmp) for this environment (made once per thread)."""
        mine = getattr(self._local, "scratch", None)
        if mine is None:
            from wsim.kernels.schema import Log, Tmp
            from wsim.run.runner import thread_records

            log = Log(*(np.zeros(shape, dtype) for shape, dtype in self._log_shapes), 0)
            tmp = Tmp(*(np.zeros(shape, dtype) for shape, dtype in self._tmp_shapes), log)
            mine = self._local.scratch = (thread_records()[1][0], tmp)
        return mine

    def _in_blocks(self, work):
        """work(lo, hi, sc, tmp) over every slot, on the kernel threads, under the kernel lock."""
        from wsim.run.lock import KERNEL_LOCK
        from wsim.run.runner import in_blocks

        def block(lo, hi):
            sc, tmp = self._scratch()
            work(lo, hi, sc, tmp)

        with KERNEL_LOCK:
            in_blocks(self.num_games, block)

    def _args(self):
        r = self._runner
        return r.ent, r.board, self._runs, self._states

    # -- the API ---------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple:
        """Deal every slot its first game (slot g: game g of the seed; a new seed replaces the
        constructor's) and play the kernel seats to the first learner decision; (obs, info)."""
        from wsim.kernels.batched import reset_games
        from wsim.run.settings import MAX_SEED

        self._refuse_closed("reset")
        seed = optional_whole(seed, "seed", 0, MAX_SEED, EnvError)
        if seed is not None:
            self.seed = seed
            self._runs["seed"] = np.uint64(seed)
        ent, board, run, states = self._args()
        model, slots = self._runner.model, self._slots

        def work(lo, hi, sc, tmp):
            reset_games(ent, board, run, states, sc, lo, hi, model, slots, tmp)

        self._in_blocks(work)
        self._dealt = True
        return self._observations(), self._info()

    def step(self, actions) -> tuple:
        """Play actions[g, seat] (an action id; -1 for a seat with no decision) for every game;
        (obs, rewards (N, P), terminations (N,), truncations (N,), info). Every action is checked
        first: an illegal one is refused (EnvError naming the game and seat) and no game moves."""
        from wsim.kernels.batched import step_games, validate

        self._need_reset("step")
        actions = int64_actions(actions, (self.num_games, self.players))
        self._verdict[:] = -1
        validate(actions, 0, self.num_games, self.players, self._alay, self._book, self._verdict)
        if self._verdict[0] >= 0:
            g, seat = divmod(int(self._verdict[0]), self.players)
            raise EnvError(f"step: game {int(self._book.game[g])} (slot {g}), seat {seat}: action "
                           f"{int(actions[g, seat])} {VERDICTS[int(self._verdict[1])]}; no game was played")
        ent, board, run, states = self._args()
        model, slots = self._runner.model, self._slots

        def work(lo, hi, sc, tmp):
            step_games(ent, board, run, states, sc, lo, hi, actions, model, slots, tmp)

        self._in_blocks(work)
        views = self._views
        return self._observations(), views.reward, views.ended, self._truncations, self._info()

    def sample_legal(self) -> np.ndarray:
        """(N, P) int64: a uniform legal action of every acting learner seat, -1 where none acts,
        drawn from each game's own stream (a game's draws depend only on the seed and its index).
        The array is a buffer the next call writes again."""
        from wsim.kernels.batched import sample_legal

        self._need_reset("sample_legal")
        seed, book, out = np.uint64(self.seed), self._book, self._actions
        self._in_blocks(lambda lo, hi, sc, tmp: sample_legal(seed, lo, hi, self.players, book, out))
        return out

    def policy_actions(self, policy="heuristic") -> np.ndarray:
        """(N, P) int64: the action a kernel policy (random, greedy or heuristic, its default
        parameters; or a list with one per seat) takes for every acting learner seat, -1 where
        none acts or is not asked (None in the list: a learner seat not asked, whose random stream
        is then left untouched; a kernel seat plays its own policy anyway): the decision
        wsim.simulate's game takes, drawing from the seat's own random stream once per ask.
        Stepped as given, the games are wsim.simulate's. With rotate, the list is by role (as
        policies is). A buffer, as sample_legal's."""
        from wsim.run.weights import policy_defaults
        from wsim.kernels.batched import NOT_ASKED, policy_decisions

        self._need_reset("policy_actions")
        chosen = [policy] * self.players if isinstance(policy, str) else policy
        if not isinstance(chosen, (list, tuple)) or len(chosen) != self.players:
            raise EnvError(f"policy_actions: a policy name or a list of {self.players}, got {brief(policy)}")
        seatings = self._seatings.copy()  # the learners sit at the same seats in every seating
        for seat, name in enumerate(chosen):
            if name is None:
                if self._learner[seat]:
                    seatings["policies"][:, seat] = NOT_ASKED
                continue  # a kernel seat keeps its own policy
            if name not in ASKABLE:
                raise EnvError(f"policy_actions: {', '.join(ASKABLE)} or None for seat {seat}, got {brief(name)}")
            if self._learner[seat]:
                pid, row = policy_defaults(name)
                seatings["policies"][:, seat] = pid
                seatings["params"][:, seat] = 0
                seatings["params"][:, seat, :len(row)] = row
        runs = _turned(seatings, self.players if self.rotate else 1)
        runs["seed"] = self._runs["seed"]
        ent, board, _, states = self._args()
        out = self._actions

        def work(lo, hi, sc, tmp):
            policy_decisions(ent, board, runs, states, sc, lo, hi, self._alay, self._book, tmp, out)

        self._in_blocks(work)
        return out

    def _refuse_closed(self, what: str):
        if self._closed:
            raise EnvError(f"{what}: the environment is closed (make a new one)")

    def _need_reset(self, what: str):
        self._refuse_closed(what)
        if not self._dealt:
            raise EnvError(f"{what}: call reset() first")

    def _observations(self) -> dict:
        return {"observation": self._views.obs, "action_mask": self._views.mask}

    def _info(self) -> dict:
        book, views = self._book, self._views
        return {"game": book.game, "legal_ids": book.legal, "legal_count": book.n_legal, "vp_total": views.vp,
                "final_obs": self._final_obs, "_final_obs": views.ended,
                # the names before Gymnasium 1.0, kept one release (module docstring)
                "final_observation": views.final_obs, "_final_observation": views.ended}

    # -- words -----------------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        """The words of an action id ("build Lumber Yard", "copy left", "decline", ...)."""
        a = whole_number(action, "action", 0, self.n_actions - 1, EnvError)
        return self.layout.to_string(a, self._names)

    def action_from_string(self, text: str) -> int:
        """The id of action_to_string's words."""
        return self.layout.from_string(text, self._names)

    def feature_names(self) -> list:
        """The name of every entry of an observation vector (kernels/observe.py)."""
        return list(self._feature_names)

    def nbytes(self) -> int:
        """The bytes of the environment's arrays (its games' state records, book, views and answers;
        the memory check's count, made before they were allocated)."""
        return sum(a.nbytes for a in self._held.values())

    def acting(self) -> np.ndarray:
        """(N, P) bool: which seats have a decision to take now."""
        return self._book.n_legal > 0

    def close(self):
        """End the environment: a later reset, step, sample_legal or policy_actions is refused."""
        self._closed = True

