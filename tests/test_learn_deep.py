"""`make verify`: a small `wsim learn` run (2 iterations of 40,000 four-player games, about 5
minutes on the 2-core machine) reaches the strength docs/agents.md states for it: its chosen
model wins at least 40% of 2,000 games against three heuristic seats (the lower end of the 95%
interval; it measured 52.3% [50.1%, 54.5%] on 2026-12-03), and the second iteration beats the
first."""

import pytest

from clikit import run_cli
from wsim.run.model import read_model


@pytest.mark.deep
def test_a_small_learn_run_reaches_its_strength(tables, tmp_path):
    out = tmp_path / "small.npz"
    result = run_cli("learn", "--out", str(out), "--iterations", "2", "--games", "40000", "--players", "4",
                     "--rate", "0.1", "--hidden", "64", "--epochs", "30", "--eval-games", "2000", "--seed", "5",
                     "--threads", "2", "--quiet")
    assert result.exit_code == 0, result.output
    iterations = read_model(out, tables).header["provenance"]["iterations"]
    first, second = (i["vs_heuristic"] for i in iterations)
    assert second["ci95"][0] >= 0.40, second
    assert second["win_share"] > first["win_share"], (first, second)
