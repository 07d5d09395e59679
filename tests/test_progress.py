"""Long runs you can watch (issue 36): a bar on a terminal, at most a line a minute in a log,
nothing with --quiet, an Update for a Python function; tqdm imported only for a bar."""

import os
import pty
import re
import select
import subprocess
import sys

import pytest

import wsim
from wsim.errors import WsimError
from wsim.run import progress

from clikit import run_cli


class _Clock:
    """time.perf_counter for the progress module, moved by hand."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture
def clock(monkeypatch):
    fake = _Clock()
    monkeypatch.setattr(progress.time, "perf_counter", fake)
    monkeypatch.delenv(progress.LINE_SECONDS_ENV, raising=False)
    return fake


def test_without_a_terminal_a_line_a_minute_at_most(clock, capsys):
    """Three minutes of a run advanced twice a second: three lines, the first after a minute."""
    with progress.start(True, 360_000, label="rebalance", step="step 1 of 4: lever 2 of 9") as tracker:
        assert not tracker.drawn and tracker.shown  # pytest's stderr is no terminal
        for _ in range(360):
            clock.now += 0.5
            tracker.advance(1_000)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3
    assert lines[0] == ("  rebalance: 120,000 / 360,000 games (33%), 2,000 games/s, about 2 min 0 s left; "
                        "step 1 of 4: lever 2 of 9")


def test_a_short_run_prints_no_line_and_the_interval_can_be_set(clock, capsys, monkeypatch):
    with progress.start(True, 100) as tracker:
        clock.now += 59
        tracker.advance(100)
    assert capsys.readouterr().err == ""
    monkeypatch.setenv(progress.LINE_SECONDS_ENV, "5")
    with progress.start(True, 100) as tracker:
        for _ in range(4):
            clock.now += 5
            tracker.advance(25)
    assert len(capsys.readouterr().err.splitlines()) == 4


def test_a_function_receives_every_update(clock):
    seen = []
    with progress.start(seen.append, 10, label="heuristic") as tracker:
        clock.now += 2
        tracker.advance(4)
        tracker.step("the held-out run")
    assert [u.as_dict() for u in seen] == [
        {"done": 4, "total": 10, "rate": 2.0, "seconds_left": 3.0, "step": "", "unit": "games", "label": "heuristic"},
        {"done": 4, "total": 10, "rate": 2.0, "seconds_left": 3.0, "step": "the held-out run", "unit": "games",
         "label": "heuristic"}]
    nothing = progress.start(False, 10)
    nothing.advance(10)
    assert not nothing.shown and nothing.done == 10


def test_the_api_takes_a_progress_function_and_refuses_other_values(tmp_path):
    seen = []
    wsim.ladder(["random", "greedy"], players=3, games=30, threads=1, out=tmp_path / "l", progress=seen.append)
    assert seen[-1].done == seen[-1].total == 60 and seen[-1].step == "pair 2 of 2: greedy against random"
    assert [u.done for u in seen] == sorted(u.done for u in seen)
    for call in (lambda v: wsim.ladder("random,greedy", games=10, out=tmp_path / "m", progress=v),
                 lambda v: wsim.tune(generations=1, population=4, games=2, progress=v),
                 lambda v: wsim.rebalance(out=tmp_path / "m", progress=v),
                 lambda v: wsim.survey(out=tmp_path / "m", progress=v),
                 lambda v: wsim.ablate(["Altar.points=+1"], out=tmp_path / "m", progress=v)):
        with pytest.raises(WsimError, match="^progress: must be True, False or a function, got 'yes'$"):
            call("yes")
    assert not (tmp_path / "m").exists()


def test_simulate_and_iter_batches_report_their_games(tmp_path):
    """wsim.simulate (a table, or a dataset with out=) and wsim.iter_batches call progress with
    the games played, up to the run's whole."""
    for run in (lambda f: wsim.simulate(games=300, chunk_size=100, threads=1, progress=f),
                lambda f: wsim.simulate(games=300, chunk_size=100, threads=1, progress=f, out=tmp_path / "d"),
                lambda f: list(wsim.iter_batches(games=300, chunk_size=100, threads=1, progress=f))):
        seen = []
        run(seen.append)
        assert seen and seen[-1].done == seen[-1].total == 300
        assert [u.done for u in seen] == sorted(u.done for u in seen)
    for call in (lambda v: wsim.simulate(games=2, progress=v), lambda v: wsim.iter_batches(games=2, progress=v)):
        with pytest.raises(WsimError, match="^progress: must be True, False or a function, got 'yes'$"):
            call("yes")


def _on_a_terminal(args: list, env: dict | None = None) -> tuple:
    """(exit status, what stderr's pseudo-terminal showed) of `wsim ARGS`; stdout is a pipe."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "wsim", *args], stdout=subprocess.PIPE, stderr=follower,
                            env=env or os.environ.copy())
    os.close(follower)
    shown = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            data = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        shown += data
    proc.communicate(timeout=60)
    os.close(leader)
    return proc.returncode, shown.decode(errors="replace")


@pytest.mark.system
def test_on_a_terminal_a_bar_is_drawn_and_quiet_draws_nothing(tmp_path):
    code, shown = _on_a_terminal(["simulate", "--games", "500", "--players", "3", "--threads", "1",
                                  "--out", str(tmp_path / "a")])
    assert code == 0, shown
    assert re.search(r"500/500 \[[0-9:]+<[0-9:]+, +[0-9.]+ games/s\]", shown), shown
    code, shown = _on_a_terminal(["simulate", "--games", "500", "--players", "3", "--threads", "1", "--quiet",
                                  "--out", str(tmp_path / "b")])
    assert code == 0 and shown == "", shown


def test_a_run_without_a_terminal_loads_no_bar_library(tmp_path, monkeypatch):
    """Warm start stays light: tqdm is imported for a bar only (stderr is no terminal here, and
    an import of tqdm would fail the run)."""
    monkeypatch.setitem(sys.modules, "tqdm", None)
    result = run_cli("simulate", "--games", "50", "--threads", "1", "--out", str(tmp_path / "d"))
    assert result.exit_code == 0 and result.stderr == "", result.output


def test_quiet_is_an_option_of_every_long_run():
    for command in ("simulate", "survey", "rebalance", "ladder", "ablate", "tune", "bench"):
        assert "--quiet" in run_cli(command, "--help").stdout, command
