"""`wsim tune` (docs/interfaces.md §4): reproducible, written whole, usable as a weights file."""

import json

import pytest

from clikit import last_error_line, run_cli
from wsim.kernels.heuristic import HEURISTIC_KEYS
from wsim.run.weights import DEFAULT_FILE, read_weights

ARGS = ["--generations", "2", "--population", "4", "--games", "24", "--players", "3", "--seed", "7"]


def test_tune_twice_with_one_seed_gives_the_same_file(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    first = run_cli("tune", *ARGS, "--out", str(a))
    assert first.exit_code == 0, first.output
    assert run_cli("tune", *ARGS, "--threads", "1", "--out", str(b)).exit_code == 0
    assert a.read_bytes() == b.read_bytes()
    doc = json.loads(a.read_text())
    assert set(doc["weights"]) == set(HEURISTIC_KEYS)
    assert [e["generation"] for e in doc["tune"]["log"]] == [0, 1] and "generation 1: best fitness" in first.stdout
    row, _ = read_weights(a)  # the file is a weights file the heuristic takes
    assert row[:len(HEURISTIC_KEYS)] == tuple(doc["weights"][k] for k in HEURISTIC_KEYS)
    out = tmp_path / "ds"
    used = run_cli("simulate", "--out", str(out), "--games", "10", "--players", "3", "--policy", "heuristic",
                   "--policy-param", f"heuristic.weights={a}")
    assert used.exit_code == 0, used.output


def test_tune_refuses_an_existing_file_unless_overwrite(tmp_path):
    target = tmp_path / "w.json"
    target.write_text("mine")
    refused = run_cli("tune", *ARGS, "--out", str(target))
    assert refused.exit_code == 2 and "--overwrite" in last_error_line(refused)
    assert target.read_text() == "mine"
    assert run_cli("tune", *ARGS, "--out", str(target), "--overwrite").exit_code == 0
    assert json.loads(target.read_text())["format"] == "wsim-weights-1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.json"]  # no temporary file left


def test_tune_out_in_a_missing_folder_or_on_a_folder_is_refused(tmp_path):
    missing = run_cli("tune", *ARGS, "--out", str(tmp_path / "no" / "w.json"))
    assert missing.exit_code == 2 and last_error_line(missing) == (f"Error: --out: the folder {tmp_path / 'no'} does "
                                                                   "not exist (create it first)")
    (tmp_path / "f").write_text("")
    under_file = run_cli("tune", *ARGS, "--out", str(tmp_path / "f" / "w.json"))
    assert under_file.exit_code == 2 and last_error_line(under_file).endswith(f"{tmp_path / 'f'} exists and is not a folder")
    (tmp_path / "d").mkdir()
    folder = run_cli("tune", *ARGS, "--out", str(tmp_path / "d"), "--overwrite")
    assert folder.exit_code == 2 and "Error: " in last_error_line(folder)


@pytest.mark.deep
def test_the_shipped_weights_are_what_their_tune_command_fits(tmp_path):
    """The shipped default is tune's output, byte for byte (about 11 minutes on two cores)."""
    shipped = json.loads(DEFAULT_FILE.read_text())
    options = shipped["tune"]
    out = tmp_path / "again.json"
    args = [f"--{k}={options[k]}" for k in ("players", "generations", "population", "games", "seed")]
    assert run_cli("tune", "--policy", "heuristic", *args, "--out", str(out)).exit_code == 0
    assert out.read_bytes() == DEFAULT_FILE.read_bytes()
