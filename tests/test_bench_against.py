"""`wsim bench --against REV` (wsim/bench/against.py): REV checked out beside this tree, both
measured at the same time; its mistakes exit 2. No speed is asserted."""

import subprocess
import sys
from pathlib import Path

import pytest

from clikit import last_error_line, run_cli
from wsim.bench import against as bench_against

ROOT = Path(bench_against.__file__).resolve().parents[2]


def test_summary_takes_each_trees_best_and_counts_the_pairs_won():
    runs = [{"old": {"random": 100.0, "rollout": 10.0}, "new": {"random": 110.0, "rollout": 9.0}},
            {"old": {"random": 120.0, "rollout": 11.0}, "new": {"random": 115.0, "rollout": 12.0}},
            {"old": {"random": 90.0, "rollout": 10.0}, "new": {"random": 95.0, "rollout": 10.0}}]
    rows = bench_against.summary(runs, "old", "new", ("random", "rollout"))
    paired = (110 / 100 * 115 / 120 * 95 / 90) ** (1 / 3)
    assert rows[0] == {"policy": "random", "before": 120.0, "after": 115.0, "ratio": 115.0 / 120.0,
                       "paired": pytest.approx(paired), "after_faster": 2, "runs": 3}
    assert rows[1]["after_faster"] == 1 and rows[1]["ratio"] == 12.0 / 11.0  # a tie is no win
    text = bench_against.table_text(rows, "old", "new")
    assert text.splitlines()[1].split() == ["random", "(games/s)", "120", "115", "0.958", f"{paired:.3f}", "2", "of",
                                            "3"]
    assert "rollout (playouts/s)" in text


@pytest.mark.parametrize("args, message", [
    (["--against", "no-such-rev"], "--against: 'no-such-rev' is not a commit of"),
    (["--against", "--quick"], "--against: not a commit: '--quick'"),
    (["--against", "HEAD", "--rounds", "0"], "--rounds"),
])
def test_a_bad_revision_or_round_count_exits_2(args, message):
    result = run_cli("bench", "--no-save", *args)
    assert result.exit_code == 2
    assert message in last_error_line(result)


def test_other_card_data_is_refused(tmp_path):
    result = run_cli("--data", str(tmp_path / "cards.yaml"), "bench", "--against", "HEAD", "--no-save")
    assert result.exit_code == 2
    assert last_error_line(result) == "Error: --against: compares the built-in card data only (no --data or WSIM_DATA)"


def test_the_checkout_imports_as_wsim_and_is_removed_afterwards():
    commit = bench_against.resolve(ROOT, "HEAD")
    assert len(commit) == 40
    with bench_against.checkout(ROOT, commit) as tree:
        assert tree.label == commit[:10] and tree.cache is not None
        found = subprocess.run([sys.executable, "-c", "import wsim.kernels.game as g; print(g.__file__)"],
                               env=tree.env(), cwd=tree.root.parent, capture_output=True, text=True)
        assert Path(found.stdout.strip()).resolve() == (tree.root / "kernels" / "game.py").resolve()
        listed = subprocess.run(["git", "-C", str(ROOT), "worktree", "list"], capture_output=True, text=True).stdout
        assert str(tree.root) in listed
    assert not tree.root.parent.exists()
    listed = subprocess.run(["git", "-C", str(ROOT), "worktree", "list"], capture_output=True, text=True).stdout
    assert str(tree.root) not in listed


@pytest.mark.system
def test_both_trees_run_at_once_and_are_told_apart():
    """Two labels for this same tree (its warm cache): every run has a rate per policy for each,
    and a tree that imports wsim from elsewhere is refused rather than reported."""
    a = bench_against.Tree("a", ROOT, None)
    b = bench_against.Tree("b", ROOT, None)
    seen = []
    runs = bench_against.measure((a, b), 1, 50, 1, policies=("random",), on_run=lambda i, run: seen.append(i))
    assert seen == [1, 2] and len(runs) == 2
    assert all(set(run) == {"a", "b"} and run["a"]["random"] > 0 and run["b"]["random"] > 0 for run in runs)
    elsewhere = bench_against.Tree("elsewhere", ROOT / "tests", None)
    with pytest.raises(bench_against.AgainstError, match="the elsewhere tree imported wsim from"):
        bench_against.measure((elsewhere, a), 1, 10, 1, policies=("random",), cores=[])


@pytest.mark.deep
def test_against_a_commit_end_to_end():
    result = run_cli("bench", "--against", "HEAD", "--quick", "--rounds", "1", "--no-save")
    assert result.exit_code == 0, result.output
    table = result.stdout.splitlines()[-5:]
    assert table[0].split()[-5:] == ["this", "tree", "ratio", "paired", "faster"]
    assert [line.split()[0] for line in table[1:]] == list(bench_against.POLICIES)
