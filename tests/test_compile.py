"""What a cold start compiles: one specialisation per kernel function, and only the policy family
a run plays (issue: fast feedback). Each check runs in a subprocess with an empty numba cache,
since a process that compiled a kernel once never compiles it again."""

import json
import os
import subprocess
import sys

import pytest

# Plays `games` four-player games of each policy (every seat on it; rollout at seat 0 only, one
# playout, against random seats) with numba's compiles watched, and prints the specialisations
# compiled per kernel function.
_COUNT = """
import json, sys
from wsim import tables
from wsim.run.compiling import CompileWatch
from wsim.run.runner import Runner
from wsim.run.settings import build_settings

t = tables.load()
with CompileWatch() as watch:
    for policy in sys.argv[2].split(","):
        search = policy == "rollout"
        settings = build_settings(t, players=4, seed=1, policies=[policy] + [("random" if search else policy)] * 3,
                                  policy_params=["rollout.playouts=1", "rollout.base=random"] if search else [])
        Runner(t, settings).play(0, int(sys.argv[1]))
json.dump(watch.kernels(), sys.stdout)
"""


def compiled_by(tmp_path, games: int, policies: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    done = subprocess.run([sys.executable, "-c", _COUNT, str(games), policies], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.cold
def test_a_cold_run_compiles_each_kernel_function_once_and_no_search(tmp_path):
    counts = compiled_by(tmp_path, 10, "random,greedy,heuristic")
    assert {"game.play_games", "decide.take_decision", "heuristic.choice", "trade._solve"} <= set(counts)
    assert {f: n for f, n in counts.items() if n != 1} == {}, "a kernel function compiled more than once"
    assert [f for f in counts if f.startswith("rollout.")] == [], "a run without rollout compiled the search"


@pytest.mark.deep
def test_the_rollout_family_adds_only_its_own_game_loop(tmp_path):
    """Both families in one process: the batch kernel and its loop twice (once per family; the rollout's
    playouts reuse the first family's loop), the rest once."""
    counts = compiled_by(tmp_path, 1, "random,greedy,heuristic,rollout")
    assert "rollout.decide_rollout" in counts
    assert {f: n for f, n in counts.items() if n != 1} == {"game.play_games": 2, "loop.play_out": 2}


def test_a_cache_numba_cannot_write_is_said_once(tmp_path, monkeypatch, capsys):
    """W10: with NUMBA_CACHE_DIR on a read-only filesystem, `wsim compile` compiled for minutes
    and cached nothing without a word. The first compile now says so on stderr (a terminal or
    not), once: CompileWatch calls its on_first hook once. A watch the command silenced (`wsim
    compile`, which says what it compiled itself; --quiet) drops the progress note, not the
    warning: the fix's first version missed `wsim compile`, the finding's own case."""
    import numba

    from wsim.cli import app
    from wsim.run.compiling import CompileWatch, cache_problem

    assert cache_problem() is None  # this run's own cache is writable
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(blocker / "cache"))  # a folder inside a file
    assert "cannot be written" in cache_problem()
    monkeypatch.setattr(app.sys.stderr, "isatty", lambda: True, raising=False)

    class Compile:  # what numba's compile event carries
        data = {"dispatcher": type("D", (), {"py_func": staticmethod(lambda: None)})}

    warning = (f"warning: the kernel cache {blocker / 'cache'} cannot be written (Not a directory): every "
               "run compiles the kernels again (set NUMBA_CACHE_DIR to a writable folder)")
    for silenced in (False, True):
        watch = CompileWatch(on_first=app._announce_compile)
        if silenced:
            watch.silence()
        for _ in range(3):
            watch.on_start(Compile)
            watch.on_end(Compile)
        said = capsys.readouterr().err.splitlines()
        assert said == [warning] + ([] if silenced else ["compiling kernels (first run only)…"]), silenced
