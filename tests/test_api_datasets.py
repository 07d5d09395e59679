"""`wsim.check`, `wsim.replay` and `wsim.tune`: what `wsim check`, `wsim replay` and `wsim tune`
print or write, from Python; every mistake a WsimError naming the argument as written there."""

import json

import numpy as np
import pytest

import wsim
from wsim.dataset import parts
from wsim.errors import WsimError
from wsim.kernels.heuristic import HEURISTIC_KEYS

from clikit import run_cli


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("api-datasets") / "d"
    result = run_cli("simulate", "--games", "12", "--players", "3", "--policies", "greedy,random,heuristic",
                     "--seed", "4", "--chunk-size", "5", "--threads", "1", "--out", str(out))
    assert result.exit_code == 0, result.output
    return out


def test_check_gives_what_the_command_prints(dataset):
    found = wsim.check(dataset)
    assert found.ok and found.problems == () and found.closing == "ok: 12 games, 36 rows"
    assert run_cli("check", str(dataset)).stdout == found.closing + "\n"


def test_check_reports_a_missing_part_as_a_result(dataset, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(dataset, copy)
    parts.part_files(copy)[1].unlink()
    found = wsim.check(str(copy))
    assert not found.ok and found.closing == "damaged: 1 problems"
    assert any("part-00001.parquet" in p for p in found.problems)
    cli = run_cli("check", str(copy))
    assert cli.exit_code == 1 and cli.stdout.splitlines() == [*found.problems, found.closing]


@pytest.mark.parametrize("game", [0, 7, np.int64(11)])
def test_replay_gives_the_log_and_the_text_the_command_prints(dataset, game):
    played = wsim.replay(dataset, game)
    assert played.log == json.loads(run_cli("replay", str(dataset), "--game", str(game), "--json").stdout)
    assert played.text + "\n" == run_cli("replay", str(dataset), "--game", str(game)).stdout
    assert played.log["game"] == game


@pytest.mark.parametrize("call, message", [
    (lambda d: wsim.check(d / "nowhere"), "nowhere: no such folder"),
    (lambda d: wsim.check(3), "dataset: must name a dataset folder, got 3"),
    (lambda d: wsim.replay(d, 12), "game: the dataset has games 0..11, got 12"),
    (lambda d: wsim.replay(d, -1), "game: must be a whole number from 0 to"),
    (lambda d: wsim.replay(d, True), "game: must be a whole number from 0 to"),
    (lambda d: wsim.replay(d, "3"), "game: must be a whole number from 0 to"),
    (lambda d: wsim.replay(d.parent, 0), "no wsim dataset here"),
])
def test_mistakes_are_errors_named_as_in_python(dataset, call, message):
    with pytest.raises(WsimError) as raised:
        call(dataset)
    assert message in str(raised.value)


TUNE = dict(players=3, generations=2, population=4, games=24, seed=7)


def test_tune_returns_the_document_the_command_writes(tmp_path):
    doc = wsim.tune(**TUNE)
    out = tmp_path / "w.json"
    assert wsim.tune(out=out, **TUNE) == doc  # a path object, written
    assert json.loads(out.read_text()) == doc
    result = run_cli("tune", *[f"--{k}={v}" for k, v in TUNE.items()], "--out", str(tmp_path / "cli.json"))
    assert result.exit_code == 0, result.output
    assert (tmp_path / "cli.json").read_text() == out.read_text()
    assert list(doc["weights"]) == list(HEURISTIC_KEYS) and doc["tune"]["players"] == 3


@pytest.mark.parametrize("kwargs, message", [
    ({"policy": "greedy"}, "policy: must be one of heuristic, got 'greedy'"),
    ({"players": 1}, "players: must be a whole number from 2 to 7, got 1"),
    ({"population": 3}, "population: must be a whole number from 4 to 1,000, got 3"),
    ({"games": 2.5}, "games: must be a whole number from 1 to 10,000,000, got 2.5"),
    ({"out": ""}, "out: must name the weights file, got ''"),
    ({"threads": 0}, "threads"),
])
def test_tune_mistakes_are_errors_named_as_in_python(kwargs, message):
    with pytest.raises(WsimError) as raised:
        wsim.tune(**{**TUNE, "generations": 1, **kwargs})
    assert message in str(raised.value)


def test_tune_refuses_an_existing_file_unless_overwrite_naming_the_argument(tmp_path):
    out = tmp_path / "w.json"
    out.write_text("mine")
    with pytest.raises(WsimError, match="out: .* exists \\(use overwrite to replace it\\)"):
        wsim.tune(out=str(out), **{**TUNE, "generations": 1})
    assert out.read_text() == "mine"
