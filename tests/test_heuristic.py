"""The `heuristic` policy: weights files, parameters, and what it plays (kernels/heuristic.py)."""

import hashlib
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from clikit import last_error_line, run_cli
from wsim.kernels.greedy import GREEDY_KEYS
from wsim.kernels.heuristic import HEURISTIC_KEYS
from wsim.kernels.layout import RES_RANK
from wsim.run.runner import Runner
from wsim.run.settings import Settings
from wsim.run.weights import DEFAULT_FILE, default_params, read_weights


def _weights(tmp_path, **changes) -> str:
    doc = json.loads(DEFAULT_FILE.read_text())
    doc["weights"].update(changes)
    path = tmp_path / "w.json"
    path.write_text(json.dumps(doc))
    return str(path)


def test_the_shipped_weights_are_the_default_row():
    row, sha = read_weights(DEFAULT_FILE)
    assert row == default_params("heuristic") and len(sha) == 64
    weights = json.loads(DEFAULT_FILE.read_text())["weights"]
    assert list(row[:len(HEURISTIC_KEYS)]) == [weights[k] for k in HEURISTIC_KEYS]


def test_a_weights_file_sets_every_weight_and_a_key_wins_after_it(tmp_path):
    path = _weights(tmp_path, point=321, coin=7)
    out = tmp_path / "ds"
    result = run_cli("simulate", "--out", str(out), "--games", "20", "--players", "3",
                     "--policies", "heuristic:mine,heuristic,greedy",
                     "--policy-param", f"mine.weights={path}", "--policy-param", "mine.coin=9")
    assert result.exit_code == 0, result.output
    meta = json.loads(pq.read_schema(out / "part-00000.parquet").metadata[b"wsim"])
    mine = meta["policies"][0]["params"]  # by name
    assert (mine["point"], mine["coin"]) == (321, 9)  # the label's key, given after the file, wins
    assert meta["policies"][0]["weights_sha256"] == hashlib.sha256(Path(path).read_bytes()).hexdigest()
    assert meta["policies"][1]["params"] == dict(zip(HEURISTIC_KEYS, default_params("heuristic")))
    assert "weights_sha256" not in meta["policies"][1]
    (out / "_wsim_manifest.json").unlink()  # the recorded digest reads back on --resume
    assert run_cli("simulate", "--out", str(out), "--resume").exit_code == 0


@pytest.mark.parametrize("content, message", [
    ("{", "not valid JSON"),
    ('{"format": "wsim-weights-1", "policy": "heuristic", "weights": {"point": 1}}', "must give exactly the keys"),
    ('{"format": "other"}', "expected {\"format\": \"wsim-weights-1\""),
])
def test_bad_weights_files(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    result = run_cli("simulate", "--out", str(tmp_path / "x"), "--games", "5", "--players", "3",
                     "--policy", "heuristic", "--policy-param", f"heuristic.weights={path}")
    assert result.exit_code == 2 and message in last_error_line(result), result.stderr
    missing = run_cli("simulate", "--out", str(tmp_path / "x"), "--games", "5", "--players", "3",
                      "--policy", "heuristic", "--policy-param", f"heuristic.weights={tmp_path / 'none.json'}")
    assert missing.exit_code == 2 and "cannot read the weights file" in last_error_line(missing)
    assert not (tmp_path / "x").exists()


def test_one_heuristic_seat_beats_three_greedy_ones(tables):
    """A sanity check of strength (the ladder measures it): over 400 four-player games with the
    heuristic at each seat in turn, it wins far more than a fair 25%."""
    wins = 0
    for seat in range(4):
        policies = tuple("heuristic" if s == seat else "greedy" for s in range(4))
        res = Runner(tables, Settings(players=4, seed=2, policies=policies)).play(100 * seat, 100).res
        wins += int((res[:, seat, RES_RANK] == 1).sum())
    assert wins / 400 > 0.4


def test_rollout_games_replay_and_playouts_are_checked(tmp_path):
    """A few rollout games (the rest in `make verify`): legal moves, listed purchases; its
    playouts parameter is bounded."""
    from wsim.run.verify import verify_games

    assert verify_games(3, "rollout", 0, 2)["games"] == 2
    bad = run_cli("simulate", "--out", str(tmp_path / "x"), "--games", "2", "--players", "3",
                  "--policy", "rollout", "--policy-param", "rollout.playouts=0")
    assert bad.exit_code == 2 and "rollout.playouts must be a whole number from 1 to 1,024" in last_error_line(bad)
    for base in ("rollout", "nobody"):
        bad = run_cli("simulate", "--out", str(tmp_path / "x"), "--games", "2", "--players", "3",
                      "--policy", "rollout", "--policy-param", f"rollout.base={base}")
        assert bad.exit_code == 2 and "rollout.base must be a policy or a label" in last_error_line(bad)
    out = tmp_path / "ds"  # a greedy base with the parameters given to its label
    good = run_cli("simulate", "--out", str(out), "--games", "2", "--players", "3",
                   "--policies", "rollout,greedy:g,random", "--policy-param", "rollout.base=g",
                   "--policy-param", "g.coin=0", "--policy-param", "rollout.playouts=2")
    assert good.exit_code == 0, good.output
    row = json.loads(pq.read_schema(out / "part-00000.parquet").metadata[b"wsim"])["policies"][0]["params"]
    greedy = dict(zip(GREEDY_KEYS, default_params("greedy")), coin=0)
    assert row == {"playouts": 2, "base": "greedy", "base_params": greedy}


def test_shipped_weights_by_name():
    from wsim.run.weights import DATA_DIR, SHIPPED, read_weights

    assert set(SHIPPED) == {"tuned", "handset", "science", "military", "civilian"}
    for name, path in SHIPPED.items():
        assert path.parent == DATA_DIR and read_weights(name) == read_weights(path)
    assert read_weights("science") != read_weights("military")
