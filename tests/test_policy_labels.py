"""Policy labels (NAME:LABEL) and --policy-param NAME.KEY=VALUE (docs/interfaces.md §2)."""

import json

import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from clikit import last_error_line, run_cli
from wsim.kernels.greedy import GREEDY_KEYS
from wsim.run.weights import default_params

POLICIES = "greedy:cheap,greedy:rich,random,random"


def _meta(out) -> dict:
    return json.loads(pq.read_schema(out / "part-00000.parquet").metadata[b"wsim"])


def test_labels_and_parameters_reach_the_metadata_and_the_policy_column(tmp_path):
    out = tmp_path / "ds"
    result = run_cli("simulate", "--out", str(out), "--games", "200", "--players", "4", "--policies", POLICIES,
                     "--policy-param", "cheap.coin=0", "--policy-param", "greedy.point=120",
                     "--policy-param", "greedy.coin=7")
    assert result.exit_code == 0, result.output
    greedy = dict(zip(GREEDY_KEYS, default_params("greedy")), point=120)  # the name sets every greedy seat
    cheap, rich = dict(greedy, coin=0), dict(greedy, coin=7)  # the label wins over the name, whatever the order
    assert _meta(out)["policies"] == [{"name": "greedy", "label": "cheap", "params": cheap},
                                      {"name": "greedy", "label": "rich", "params": rich},
                                      {"name": "random", "params": {}}, {"name": "random", "params": {}}]
    table = ds.dataset(str(out)).to_table(columns=["seat", "policy"])
    assert {(r["seat"], r["policy"]) for r in table.to_pylist()} == {(0, "cheap"), (1, "rich"), (2, "random"),
                                                                     (3, "random")}
    # resume and replay read the labels back from the metadata
    (out / "_wsim_manifest.json").unlink()
    assert run_cli("simulate", "--out", str(out), "--resume").exit_code == 0
    replay = run_cli("replay", str(out), "--game", "3")
    assert replay.exit_code == 0 and "policy cheap" in replay.stdout
    # a different parameter on --resume is refused
    again = run_cli("simulate", "--out", str(out), "--resume", "--policies", POLICIES,
                    "--policy-param", "cheap.coin=1")
    assert again.exit_code == 2 and "--policy-param" in last_error_line(again)


def test_a_label_alone_changes_no_game(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    common = ["--games", "100", "--players", "3", "--seed", "5"]
    assert run_cli("simulate", "--out", str(a), *common, "--policies", "greedy,random,greedy").exit_code == 0
    assert run_cli("simulate", "--out", str(b), *common, "--policies", "greedy:x,random,greedy:y").exit_code == 0
    ta = ds.dataset(str(a)).to_table().drop(["policy"])
    tb = ds.dataset(str(b)).to_table().drop(["policy"])
    assert ta.equals(tb)


@pytest.mark.parametrize("args, message", [
    (["--policy-param", "cheap.bogus=1"], "--policy-param: greedy has no parameter 'bogus'"),
    (["--policy-param", "random.coin=1"], "--policy-param: random has no parameter 'coin' (its parameters: none)"),
    (["--policy-param", "nobody.coin=1"], "--policy-param: 'nobody' is neither a policy nor a label"),
    (["--policy-param", "cheap.coin=abc"], "--policy-param: cheap.coin must be a whole number"),
    (["--policy-param", "cheap.coin=99999999"], "--policy-param: cheap.coin must be a whole number"),
    (["--policy-param", "cheapcoin"], "--policy-param: expected NAME.KEY=VALUE"),
])
def test_bad_policy_parameters(tmp_path, args, message):
    result = run_cli("simulate", "--out", str(tmp_path / "x"), "--games", "5", "--players", "4",
                     "--policies", POLICIES, *args)
    assert result.exit_code == 2 and last_error_line(result).startswith(f"Error: {message}"), result.stderr
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("policies, message", [
    ("greedy:random,random,random", "--policies: label 'random' is the name of another policy"),
    ("greedy:x,random:x,random", "--policies: label 'x' is given to two policies (greedy, random)"),
    ("greedy:,random,random", "--policies: label '' of 'greedy' must be 1 to 40 letters"),
    ("greedy:a b,random,random", "--policies: label 'a b' of 'greedy' must be 1 to 40 letters"),
])
def test_bad_labels(tmp_path, policies, message):
    result = run_cli("simulate", "--out", str(tmp_path / "x"), "--games", "5", "--players", "3",
                     "--policies", policies)
    assert result.exit_code == 2 and last_error_line(result).startswith(f"Error: {message}"), result.stderr
