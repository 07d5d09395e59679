"""The learner's side, driven with wrong-typed arguments (issue 55): every public function and
environment constructor of `wsim.learn`, `batched_v0.env`, `batched_v0.vector_env` and
`single.single_learner`, and their methods, refuses each wrong value with a WsimError whose
message names the argument, before anything changes: no file written, no game moved, no random
stream drawn from. The rest of the public API is tests/test_arguments.py's."""

from __future__ import annotations

import math

import numpy as np
import pytest

import wsim
from wsim.errors import WsimError

pytest.importorskip("pettingzoo", reason="the rl extra (make test installs it)")

WHOLE = [1.5, 2.0, "2", True, b"1", [1], None]
OPTIONAL_WHOLE = [v for v in WHOLE if v is not None]
SEED = OPTIONAL_WHOLE + [-1, 2**64, np.float64(3.0)]
FLAG = ["no", "False", 1, 0, None, np.float64(1.0)]
PATH = [42, b"x.yaml", [], ""]
TEXT = [7, b"x", ["a"]]
SHARE = ["0.1", True, math.nan, -0.5, 1.5, None]
PLAYERS = 3


@pytest.fixture(scope="module")
def live() -> dict:
    """The environments the methods are called on, each dealt (a refused call changes none)."""
    from wsim.env import batched_v0, single

    batched = batched_v0.env(num_games=2, players=PLAYERS, seed=1)
    batched.reset()
    vector = batched_v0.vector_env(num_envs=2, players=PLAYERS, opponents="random", seed=1)
    vector.reset()
    learner = single.single_learner(players=PLAYERS, opponents="random")
    learner.reset(seed=1)
    return {"batched": batched, "vector": vector, "single": learner}


def _snapshot(live: dict) -> tuple:
    """What a refused call must leave as it was: each environment's observations and streams."""
    b, v, s = live["batched"], live["vector"], live["single"]
    return (b._states.tobytes(), b._book.game.tobytes(), v.batched._states.tobytes(),
            s.batched._states.tobytes(), s.np_random.bit_generator.state["state"])


def _calls(out: str, live: dict | None) -> list:
    """(name, call taking keyword overrides, {argument: wrong values}); `out` must not exist after."""
    from wsim.env import batched_v0, single

    b, v, s = (live["batched"], live["vector"], live["single"]) if live else (None, None, None)
    game = {"wonders": TEXT, "sides": TEXT + ["C"], "manneken_pis": FLAG, "data": PATH,
            "policy_params": [3, [1], ["learned.model=/no/such/file.npz"]]}
    shape = (2, PLAYERS)
    return [
        ("learn", lambda **kw: wsim.learn(**{"out": out, "iterations": 1, "games": 10, "players": "3",
                                             "eval_games": 4, "threads": 1, **kw}),
         {"out": PATH, "work": PATH, "iterations": WHOLE, "games": WHOLE, "players": [3, "3,x", "3,²", "9", ""],
          "rate": SHARE, "explore": SHARE, "mix": SHARE, "hidden": WHOLE, "epochs": WHOLE, "eval_games": WHOLE,
          "teacher": TEXT + ["nope"], "seed": WHOLE, "threads": OPTIONAL_WHOLE, "data": PATH, "say": [5, "print"],
          "progress": ["yes", 2, None], "dask": TEXT, "overwrite": FLAG, "command": [7, None]}),
        ("batched_v0.env", lambda **kw: batched_v0.env(**{"num_games": 2, "players": PLAYERS, **kw}),
         {"num_games": WHOLE, "players": WHOLE, "seed": WHOLE, "policies": [7, "random", ["x", None, None]],
          "reward": TEXT + ["points"], "rotate": FLAG, "dense_mask": FLAG, **game}),
        ("batched.reset", lambda **kw: b.reset(**kw), {"seed": SEED}),
        ("batched.step", lambda **kw: b.step(**kw),
         {"actions": [None, 3, np.zeros(shape, np.float64), np.zeros((2, 2), np.int64), "a",
                      np.full(shape, 2**64 - 1, np.uint64)]}),
        ("batched.policy_actions", lambda **kw: b.policy_actions(**kw), {"policy": [7, "nope", ["greedy"]]}),
        ("batched.action_to_string", lambda **kw: b.action_to_string(**kw), {"action": WHOLE + [-1]}),
        ("vector_env", lambda **kw: batched_v0.vector_env(**{"num_envs": 2, "players": PLAYERS, **kw}),
         {"num_envs": WHOLE, "players": WHOLE, "seed": WHOLE, "opponents": [7, "nope", [None, None]],
          "rotate": FLAG, "copy": FLAG, "reward": TEXT, "dense_mask": [True], "policies": [[None] * PLAYERS],
          "num_games": [2], **game}),
        ("vector.reset", lambda **kw: v.reset(**kw), {"seed": SEED}),
        ("vector.step", lambda **kw: v.step(**kw),
         {"actions": [None, 3, np.zeros(2, np.float64), np.zeros(3, np.int64), np.full(2, 2**64 - 1, np.uint64)]}),
        ("vector.policy_actions", lambda **kw: v.policy_actions(**kw), {"policy": [7, "nope"]}),
        ("single_learner", lambda **kw: single.single_learner(**{"players": PLAYERS, **kw}),
         {"players": WHOLE, "seat": WHOLE + [PLAYERS], "seed": WHOLE, "opponents": [7, "nope", [None, None], ["x"]],
          "on_illegal": TEXT + ["skip"], "reward": TEXT, "render_mode": TEXT, "policies": [["random"] * PLAYERS],
          **game}),
        ("single.reset", lambda **kw: s.reset(**kw), {"seed": SEED}),
        ("single.step", lambda **kw: s.step(**kw), {"action": OPTIONAL_WHOLE + [None, -1, 10**6]}),
        ("single.action_to_string", lambda **kw: s.action_to_string(**kw), {"action": WHOLE + [-1]}),
        ("single.policy_action", lambda **kw: s.policy_action(**kw), {"policy": [7, "nope", "rollout", "learned"]}),
    ]


def _cases():
    return [pytest.param(name, arg, i, id=f"{name}-{arg}-{i}")
            for name, _, args in _calls("o", None) for arg, values in args.items() for i in range(len(values))]


# how a message names an argument that is not its own first word
NAMED = {"actions": ("step:",), "policy": ("policy_actions:", "policy:"), "action": ("action", "player_"),
         "policy_params": ("policy_param",)}


@pytest.mark.parametrize("name, arg, i", _cases())
def test_the_learners_side_refuses_a_wrong_argument_naming_it(tmp_path, live, name, arg, i):
    out = tmp_path / "model.npz"
    call, wrongs = next((c, a) for n, c, a in _calls(str(out), live) if n == name)
    wrong = wrongs[arg][i]
    before = _snapshot(live)
    with pytest.raises(WsimError) as raised:
        call(**{arg: wrong})
    message = str(raised.value)
    assert message.startswith(NAMED.get(arg, (arg,))), (name, arg, wrong, message)
    assert _snapshot(live) == before, f"{name}({arg}={wrong!r}) changed an environment"
    assert list(tmp_path.iterdir()) == [], f"{name}({arg}={wrong!r}) left {sorted(p.name for p in tmp_path.iterdir())}"
