"""One argument validation (wsim.errors) for every public function of the Python API and the
environment (issue 36, findings N2, N3, N4, N8, W1-W7 of the round-4 findings):

- every public function, driven with wrong-typed arguments, raises a WsimError whose message
  starts with the argument's name, before it plays or writes anything;
- no public module looks at an argument's type itself: only wsim/errors.py does;
- numpy's integers are whole numbers wherever whole numbers are taken; floats, strings and
  bools are not; flags are bools (`overwrite="no"` replaced a dataset);
- a refused call changes nothing: a Game's state, the environment's seed, a dataset on disk.
"""

from __future__ import annotations

import ast
import math
import os
from pathlib import Path

import numpy as np
import pytest

import wsim
from wsim.errors import WsimError

ROOT = Path(__file__).resolve().parents[1]

WHOLE = [1.5, 2.0, "2", True, b"1", [1], None]  # each refused where a whole number is taken
OPTIONAL_WHOLE = [v for v in WHOLE if v is not None]
FLAG = ["no", "False", 1, 0, None, np.float64(1.0)]
PATH = [42, b"x.yaml", [], ""]
TEXT = [7, b"x", ["a"]]
CALLBACK = [5, "print"]
PROGRESS = ["yes", 2, None]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("args") / "ds"
    wsim.simulate(games=40, players=3, threads=1, chunk_size=20, seed=1, out=str(out))
    return str(out)


@pytest.fixture(scope="module")
def scenario() -> str:
    return str(ROOT / "tests" / "data" / "trade-example.yaml")


@pytest.fixture(scope="module")
def live() -> dict:
    """A game and an environment the calls below are made on (a refused call changes neither)."""
    env_mod = pytest.importorskip("wsim.env.wonders_v1")
    env = env_mod.raw_env(players=3, seed=0)
    env.reset(seed=0)
    return {"game": wsim.Game(players=3, seed=0), "env": env, "agent": env.agent_selection}


def _calls(dataset: str, scenario: str, out: str, live: dict | None = None) -> list:
    """(function name, call taking keyword overrides, {argument: wrong values}): every public
    function with cheap valid arguments; `out` is a folder that must not exist afterwards; `live`
    the game and environment the methods are called on (None: only the table is read)."""
    env_mod = pytest.importorskip("wsim.env.wonders_v1")
    game, env, agent = (live["game"], live["env"], live["agent"]) if live else (None, None, None)
    settings = {"games": WHOLE, "players": WHOLE, "seed": WHOLE, "chunk_size": WHOLE, "manneken_pis": FLAG,
                "data": PATH, "policies": [7, [1, 2]], "wonders": TEXT, "sides": TEXT + ["C"],
                "policy_params": [3, [1]]}
    run = {"threads": OPTIONAL_WHOLE, "overwrite": FLAG, "dask": TEXT}
    return [
        ("simulate", lambda **kw: wsim.simulate(**{"games": 2, "threads": 1, **kw}),
         {**settings, **run, "resume": FLAG, "out": PATH, "progress": PROGRESS}),
        ("iter_batches", lambda **kw: wsim.iter_batches(**{"games": 2, "threads": 1, **kw}),
         {**settings, "threads": OPTIONAL_WHOLE}),
        ("open_dataset", lambda **kw: wsim.open_dataset(**{"path": dataset, **kw}), {"path": PATH}),
        ("Game", lambda **kw: wsim.Game(**{"players": 3, **kw}),
         {"players": WHOLE, "seed": WHOLE, "game": WHOLE, "manneken_pis": FLAG, "data": PATH,
          "policies": [7], "wonders": TEXT, "sides": TEXT}),
        ("Game.legal", lambda **kw: game.legal(**{"seat": 0, **kw}), {"seat": WHOLE}),
        ("Game.observation", lambda **kw: game.observation(**{"seat": 0, **kw}), {"seat": WHOLE}),
        ("Game.features", lambda **kw: game.features(**{"seat": 0, **kw}), {"seat": WHOLE}),
        ("Game.policy_move", lambda **kw: game.policy_move(**{"seat": 0, **kw}), {"seat": WHOLE, "policy": TEXT}),
        ("Game.resample", lambda **kw: game.clone().resample(**{"seat": 0, "seed": 1, **kw}),
         {"seat": WHOLE, "seed": WHOLE}),
        ("env", lambda **kw: env_mod.raw_env(**kw),
         {"players": WHOLE, "seed": WHOLE, "reward": TEXT, "manneken_pis": FLAG, "data": PATH, "policies": [7],
          "render_mode": TEXT}),
        ("env.reset", lambda **kw: env.reset(**kw), {"seed": OPTIONAL_WHOLE + [-1, 2**64]}),
        ("env.observe", lambda **kw: env.observe(**kw), {"agent": [0, "player_9", None]}),
        ("env.policy_action", lambda **kw: env.policy_action(**{"agent": agent, **kw}),
         {"agent": [0, "player_9"], "policy": TEXT}),
        ("balance", lambda **kw: wsim.balance(**{"dataset": dataset, **kw}),
         {"dataset": PATH, "out": PATH, "baseline": PATH, "data": PATH,
          "overwrite": [v for v in FLAG if v is not None], "practical": ["0.1", True, math.nan, 0, 1, -0.5]}),
        ("ablate", lambda **kw: wsim.ablate(**{"edits": ["Baths.points=+1"], "out": out, "games": 20,
                                               "players": 3, "threads": 1, **kw}),
         {"edits": ["Baths.points=+1", [1], []], **settings, **run, "out": PATH, "progress": PROGRESS,
          "on_run": CALLBACK}),
        ("ladder", lambda **kw: wsim.ladder(**{"policies": "random,greedy", "out": out, "games": 20,
                                               "players": 3, "threads": 1, **kw}),
         {"policies": [7, [1]], "out": PATH, "players": WHOLE, "games": WHOLE, "seed": WHOLE, "data": PATH,
          "policy_params": [3], **run, "on_progress": CALLBACK}),
        ("survey", lambda **kw: wsim.survey(**{"out": out, "populations": ["a=random"], "games": 20, "players": 3,
                                               "threads": 1, **kw}),
         {"out": PATH, "populations": ["a=random", [1], []], "players": WHOLE, "games": WHOLE, "seed": WHOLE,
          "chunk_size": WHOLE, "manneken_pis": FLAG, "data": PATH, "reference": PATH, **run, "resume": FLAG,
          "progress": PROGRESS, "on_estimate": CALLBACK, "on_run": CALLBACK, "wonders": TEXT, "sides": TEXT,
          "anchor": TEXT + ["b"]}),
        ("atlas", lambda **kw: wsim.atlas(**{"out": out, "players": "3", "games": 20, "search_games": 2, "sample": 1,
                                             "search_sample": 1, "skill_games": 2, "threads": 1, **kw}),
         # players None: every count the data's edition plays (the default), so not among the wrong values
         {"out": PATH, "players": [1.5, "x", [1.5], True, 8], "quick": FLAG, "games": OPTIONAL_WHOLE,
          "search_games": OPTIONAL_WHOLE, "sample": OPTIONAL_WHOLE, "search_sample": OPTIONAL_WHOLE,
          "skill_games": OPTIONAL_WHOLE, "seed": WHOLE, "data": PATH, "against": PATH, **run, "resume": FLAG,
          "progress": PROGRESS, "on_stage": CALLBACK}),
        ("editions", lambda **kw: wsim.editions(**{"out": out, "players": "4", "populations": "greedy", "games": 20,
                                                   "change_games": 20, "threads": 1, **kw}),
         {"out": PATH, "players": [1.5, "x", [1.5], True, None, 2, 8], "populations": [7, [1], [], "rollout"],
          "quick": FLAG, "games": OPTIONAL_WHOLE + [9], "change_games": OPTIONAL_WHOLE + [9], "seed": WHOLE,
          "threads": OPTIONAL_WHOLE, "overwrite": FLAG, "resume": FLAG, "progress": PROGRESS, "on_stage": CALLBACK}),
        ("rebalance", lambda **kw: wsim.rebalance(**{"out": out, "players": 3, "population": "random",
                                                     "levers": "stages:rhodes,olympia", "games": 100,
                                                     "max_steps": 1, "threads": 1, **kw}),
         {"out": PATH, "players": [1.5, "x", [1.5], True, None], "population": TEXT, "levers": TEXT,
          "fields": TEXT, "tolerance": ["0.1", True, math.nan, 0.7, 0], "max_edits": OPTIONAL_WHOLE,
          "max_change": OPTIONAL_WHOLE, "max_steps": OPTIONAL_WHOLE, "games": WHOLE, "seed": WHOLE,
          "manneken_pis": FLAG, "data": PATH, **run, "on_estimate": CALLBACK, "on_event": CALLBACK}),
        ("cards", lambda **kw: wsim.cards(**kw), {"age": OPTIONAL_WHOLE, "players": OPTIONAL_WHOLE, "data": PATH}),
        ("score", lambda **kw: wsim.score(**{"scenario": scenario, **kw}), {"scenario": [42, b"x"], "data": PATH}),
        ("trade", lambda **kw: wsim.trade(**{"scenario": scenario, "seat": 0, "card": "University", **kw}),
         {"scenario": [42, b"x"], "seat": WHOLE, "card": [7, b"x"], "data": PATH}),
        ("trade(stage)", lambda **kw: wsim.trade(**{"scenario": scenario, "seat": 0, "stage": True, **kw}),
         {"stage": ["yes", 1]}),
        ("check", lambda **kw: wsim.check(**{"dataset": dataset, **kw}), {"dataset": PATH, "data": PATH}),
        ("replay", lambda **kw: wsim.replay(**{"dataset": dataset, "game": 0, **kw}),
         {"dataset": PATH, "game": WHOLE, "data": PATH}),
        ("tune", lambda **kw: wsim.tune(**{"generations": 1, "population": 4, "games": 2, "players": 3,
                                           "threads": 1, **kw}),
         {"out": [42, b"x", ""], "policy": TEXT, "players": WHOLE, "generations": WHOLE, "population": WHOLE,
          "games": WHOLE, "seed": WHOLE, "threads": OPTIONAL_WHOLE, "data": PATH,
          "overwrite": [v for v in FLAG if v is not None], "on_generation": CALLBACK}),
    ]


def _cases():
    """(function, argument, wrong value) for every wrong value of every argument listed."""
    probe = _calls("d", "s", "o")
    return [pytest.param(name, arg, i, id=f"{name}-{arg}-{i}")
            for name, _, args in probe for arg, values in args.items() for i in range(len(values))]


@pytest.mark.slow
@pytest.mark.parametrize("name, arg, i", _cases())
def test_every_public_function_refuses_a_wrong_argument_naming_it(tmp_path, dataset, scenario, live, name, arg, i):
    out = tmp_path / "out"
    call, wrongs = next((c, a) for n, c, a in _calls(dataset, scenario, str(out), live) if n == name)
    wrong = wrongs[arg][i]
    with pytest.raises(WsimError) as raised:
        call(**{arg: wrong})
    message = str(raised.value)
    named = {"policy_params": ("policy_params", "policy_param"), "populations": ("population",),
             "edits": ("edit",)}.get(arg, (arg,))
    assert message.startswith(named) or message.startswith("player_"), (name, arg, wrong, message)
    assert not out.exists(), f"{name}({arg}={wrong!r}) left {sorted(p.name for p in out.iterdir())}"


# -- the one validation: no public module checks a type itself --------------------------------------

TYPE_NAMES = {"int", "bool", "float", "bytes", "Integral", "Real", "PathLike", "Path", "integer", "floating",
              "int64", "int32", "bool_"}


def _type_checks(path: Path) -> list:
    """Lines of `path` that test a value's type by hand: `type(x) is/in ...`, or isinstance
    against a number, flag or path type."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(isinstance(s, ast.Call) and getattr(s.func, "id", None) == "type" for s in sides):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance" and len(node.args) == 2:
            kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
            names = {k.id if isinstance(k, ast.Name) else getattr(k, "attr", None) for k in kinds}
            if names & TYPE_NAMES:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_only_the_one_validation_checks_an_arguments_type():
    """The public functions (wsim/api, wsim/env) and the settings they share with the command
    line (wsim/run/settings.py, the runner's threads) check types through wsim/errors.py only."""
    modules = [*(ROOT / "wsim" / "api").glob("*.py"), *(ROOT / "wsim" / "env").glob("*.py"),
               ROOT / "wsim" / "run" / "settings.py", ROOT / "wsim" / "run" / "runner.py"]
    found = [line for m in modules for line in _type_checks(m)]
    assert found == []


def test_the_type_check_finder_finds_them(tmp_path):
    """The scan above can fail: it finds each form of a hand-made check."""
    sample = tmp_path / "sample.py"
    sample.write_text("def f(x, y):\n    if type(x) is not int: pass\n    if isinstance(y, (str, os.PathLike)): pass\n"
                      "    if isinstance(y, Integral): pass\n    if type(x) in (int, np.int64): pass\n"
                      "    if isinstance(y, str): pass\n")
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        assert [line.split(":")[1] for line in _type_checks(sample)] == ["2", "3", "4", "5"]
    finally:
        ROOT = saved


# -- whole numbers: numpy's are, floats and strings are not (W1, N8) ---------------------------------

def test_numpy_integers_are_whole_numbers_everywhere():
    table = wsim.simulate(games=np.int64(3), players=np.int32(3), seed=np.uint64(5), threads=np.int64(1),
                          chunk_size=np.int16(2))
    assert table.num_rows == 9 and table.equals(wsim.simulate(games=3, players=3, seed=5, threads=1, chunk_size=2))
    g = wsim.Game(players=np.int64(3), seed=np.int64(2), game=np.int64(3))
    assert (g.players, g.seed, g.game) == (3, 2, 3) and type(g.game) is int
    assert g.legal(np.int16(0)) == g.legal(0)
    g.step({np.int64(0): np.int16(0), 1: np.int8(0)})
    assert [d.seat for d in g.pending()] == [2]
    assert wsim.cards(age=np.int8(1), players=np.int64(4)) == wsim.cards(age=1, players=4)


@pytest.mark.parametrize("threads", [1.5, 2.0, "2"])
def test_threads_that_are_not_whole_numbers_are_refused(threads):
    with pytest.raises(WsimError, match=r"^threads: must be a whole number from 1 to \d+, got "):
        wsim.simulate(games=2, threads=threads)


@pytest.mark.parametrize("data", [42, b"x.yaml"])
def test_data_that_is_not_a_path_is_refused(data, dataset):
    for call in (lambda: wsim.simulate(games=2, data=data), lambda: wsim.check(dataset, data=data),
                 lambda: wsim.cards(data=data)):
        with pytest.raises(WsimError, match=f"^data: must name a card data file, got {data!r}$"):
            call()


# -- flags are bools (N3) --------------------------------------------------------------------------

@pytest.mark.parametrize("value", ["no", "False", 0, None])
def test_overwrite_no_keeps_the_dataset(tmp_path, value):
    """N3: overwrite="no" was read as yes, and replaced the dataset."""
    out = tmp_path / "ov"
    wsim.simulate(games=20, threads=1, out=str(out), seed=1)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(WsimError, match=f"^overwrite: must be True or False, got {value!r}$"):
        wsim.simulate(games=20, threads=1, out=str(out), seed=2, overwrite=value)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    with pytest.raises(WsimError, match="^resume: must be True or False, got 'yes'$"):
        wsim.simulate(games=20, threads=1, out=str(out), seed=2, resume="yes")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


# -- resume: a setting given is compared, one left out is the dataset's (W7) -------------------------

def test_resume_refuses_an_explicit_setting_that_differs_even_at_its_default(tmp_path):
    out = tmp_path / "rd"
    first = wsim.simulate(games=40, chunk_size=20, threads=1, out=str(out), seed=1)
    (out / first.files[-1].name).unlink()  # an interrupted run: its last part missing
    (out / "_wsim_manifest.json").unlink()
    before = sorted(p.name for p in out.iterdir())
    with pytest.raises(WsimError, match="seed"):
        wsim.simulate(games=40, chunk_size=20, threads=1, out=str(out), seed=0, resume=True)
    assert sorted(p.name for p in out.iterdir()) == before
    done = wsim.simulate(games=40, chunk_size=20, threads=1, out=str(out), resume=True)  # seed left out: 1
    assert done.metadata["seed"] == 1 and done.games == 40


def test_the_defaults_read_as_values_in_help():
    import inspect

    shown = str(inspect.signature(wsim.simulate))
    assert "games=100000" in shown and "seed=0" in shown and "policies='random'" in shown


# -- Game.step checks every choice before it plays any (N4) -------------------------------------------

@pytest.mark.parametrize("choices, message", [
    ({0: 0, 1: 999}, r"^seat 1: option index: must be a whole number from 0 to \d+, got 999$"),
    ({0: 0, "a": 0}, r"^seat: must be a whole number from 0 to 3, got 'a'$"),
    ({0: 0, 1.0: 0}, r"^seat: must be a whole number from 0 to 3, got 1\.0$"),
    ({0: 0, 1: 0.5}, r"^seat 1: option index: must be a whole number from 0 to \d+, got 0\.5$"),
    ({0: 0, 9: 0}, r"^seat: must be a whole number from 0 to 3, got 9$"),
])
def test_a_refused_step_plays_no_seat(choices, message):
    g = wsim.Game(players=4, seed=0)
    before = g.observation(0), [d.seat for d in g.pending()]
    with pytest.raises(WsimError, match=message):
        g.step(choices)
    assert (g.observation(0), [d.seat for d in g.pending()]) == before == (before[0], [0, 1, 2, 3])
    g.step({0: 0, 1: 0})  # then the same seats play
    assert [d.seat for d in g.pending()] == [2, 3]


def test_resample_after_the_end_is_refused():
    """W3: a finished game has nothing hidden; resample said nothing."""
    g = wsim.Game(players=3, seed=4, policies="random")
    while not g.done:
        g.step({d.seat: g.policy_move(d.seat) for d in g.pending()})
    with pytest.raises(WsimError, match="^resample: the game is over"):
        g.resample(0, 1)


# -- the environment (N2, W2, W4) ------------------------------------------------------------------

@pytest.fixture
def env_mod():
    return pytest.importorskip("wsim.env.wonders_v1")


@pytest.mark.parametrize("seed", [1.9, "abc", -1, 2**64, True, np.array([1])])
def test_a_refused_seed_changes_nothing(env_mod, seed):
    """N2: reset(seed=1.9) played seed 1; a refused reset(seed=-1) stuck, so that every later
    reset() failed."""
    env = env_mod.env(players=3, seed=5)
    env.reset()
    with pytest.raises(WsimError, match="^seed: must be a whole number from 0 to"):
        env.reset(seed=seed)
    raw = env.unwrapped
    assert (raw.seed_value, raw.game_index) == (5, 0)
    env.reset()
    assert (raw.seed_value, raw.game_index) == (5, 1)


def test_numpy_seeds_and_actions_are_whole_numbers(env_mod):
    env = env_mod.env(players=3, seed=0)
    env.reset(seed=np.int64(4))
    assert env.unwrapped.seed_value == 4 and type(env.unwrapped.seed_value) is int
    ok = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]
    env.step(np.int64(ok))


@pytest.mark.parametrize("extra", [0.7, 0.0])
def test_an_action_that_is_not_a_whole_number_is_refused(env_mod, extra):
    """N2: step(id + 0.7) played id."""
    env = env_mod.env(players=4, seed=0)
    env.reset(seed=0)
    agent = env.agent_selection
    ok = int(np.flatnonzero(env.observe(agent)["action_mask"])[0])
    for bad in (ok + extra, "abc", np.array([ok]), None):
        with pytest.raises(WsimError, match=f"^{agent}: action"):
            env.step(bad)
    assert env.agent_selection == agent  # nothing was played
    env.step(ok)
    assert env.agent_selection != agent


def test_the_first_reset_without_a_seed_plays_game_0(env_mod):
    """W2: the constructor's game counted as game 0, so the first reset() played game 1."""
    env = env_mod.env(players=3, seed=7)
    env.reset()
    assert env.unwrapped.game_index == 0 and env.unwrapped.seed_value == 7
    env.reset()
    assert env.unwrapped.game_index == 1


def test_environment_misuse_is_a_wsim_error(env_mod):
    """W4: a dead agent's action, a step after the end (in the wrapped environment too, whose
    PettingZoo wrapper only warned), an unknown agent."""
    env = env_mod.env(players=3, seed=2, policies="random")
    env.reset(seed=2)
    with pytest.raises(WsimError, match=r"^agent: one of player_0, player_1, player_2, got 'player_9'$"):
        env.observe("player_9")
    for agent in env.agent_iter():
        _, _, termination, truncation, _ = env.last()
        if termination or truncation:
            with pytest.raises(WsimError, match=f"^{agent}: is done: its only action is None, got 3$"):
                env.step(3)
            env.step(None)
        else:
            env.step(env.unwrapped.policy_action(agent, "random"))
    for step in (env.step, env.unwrapped.step):
        for action in (None, 5):
            with pytest.raises(WsimError, match="^step: the game is over"):
                step(action)
