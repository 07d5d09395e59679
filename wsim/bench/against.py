"""`wsim bench --against REV`: this tree's kernels and commit REV's, five-player games/s (random,
greedy, heuristic self-play) and rollout playouts/s, one thread each, measured at the same time.

Why at the same time: this machine's speed drifts by 10% and more within an hour, so two trees
measured one after the other differ by the hour as much as by their code. A round runs both
trees at once, each pinned to a core of its own, then again with the cores swapped (on a machine
with one core they take turns). A figure is the best of its runs; the table also says in how
many of the simultaneous pairs this tree was the faster, which is what to read when the two
figures are within a few percent.

REV is checked out into a temporary git worktree and imported from there with a numba cache of
its own (its first run compiles it); the worktree and the cache are removed at the end. Both
trees run the same probe script (PROBE below) with the same Python and packages, so it uses
only names every wsim since the rollout policy has had (a tree's own rollout measure, found in
wsim/bench/rollout.py or, before that package, in wsim/bench.py); both count a rollout seat's
playouts with this tree's wsim/bench/playouts.py, which checks the games it steps are the ones timed.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from wsim.bench import record
from wsim.errors import WsimError
from wsim.kernels.policy import POLICY_NAMES

POLICIES = tuple(n for n in POLICY_NAMES if n != "learned")  # learned: newer than some trees REV may name

PROBE = """
import json, sys, time
import wsim
from wsim.run.runner import Runner, set_threads
from wsim.run.settings import Settings
from wsim.tables import load

games, rollout_games = int(sys.argv[1]), int(sys.argv[2])
set_threads(1)
t = load(None)
out = {"wsim": wsim.__file__}
for policy in sys.argv[3].split(","):
    if policy == "rollout":
        import importlib.util
        try:
            from wsim.bench.rollout import games_per_second, settings as settings_of
        except ImportError:  # a tree before wsim/bench/ was a package
            from wsim.bench import _rollout_games_per_second as games_per_second, _rollout_settings as settings_of
        rate = games_per_second(t, 16, rollout_games)
        # the measuring tree's counter, run on this tree's step API (see wsim/bench/playouts.py)
        spec = importlib.util.spec_from_file_location("wsim_playout_count", sys.argv[4])
        count = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(count)
        rollout = settings_of(16)
        timed = Runner(t, rollout).play(1, rollout_games)
        out[policy] = rate * count.playouts_per_game(t, rollout, 1, timed.res)
        continue
    runner = Runner(t, Settings(players=5, policies=(policy,) * 5))
    runner.play(0, 200)
    best = 0.0
    for _ in range(2):
        start = time.perf_counter()
        runner.play(0, games)
        best = max(best, games / (time.perf_counter() - start))
    out[policy] = best
print(json.dumps(out))
"""


class AgainstError(WsimError):
    """REV cannot be measured: no git checkout, no such commit, or its tree does not run."""


@dataclass(frozen=True)
class Tree:
    """One side of the comparison: where its wsim package lives, and its numba cache (None:
    the caller's own)."""

    label: str
    root: Path
    cache: Path | None

    def env(self) -> dict:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        if self.cache is not None:  # REV's checkout: imported ahead of the installed wsim
            env["PYTHONPATH"] = str(self.root)
            env["NUMBA_CACHE_DIR"] = str(self.cache)
        return env


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise AgainstError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"git {args[0]} failed")
    return done.stdout.strip()


def source_root() -> Path:
    """The checkout the running wsim was installed from (an editable install), else an error."""
    root = Path(__file__).resolve().parents[2]
    if shutil.which("git") is None or not (root / ".git").exists():
        raise AgainstError(f"--against: needs wsim installed from a git checkout (pip install -e); "
                           f"{root} is not one")
    return root


def head(root: Path) -> str:
    """The checkout's current commit."""
    return _git(root, "rev-parse", "HEAD")


def changed(root: Path) -> bool:
    """Whether the checkout's tracked files differ from its current commit (the tree measured is
    then HEAD plus those changes)."""
    return _git(root, "status", "--porcelain", "--untracked-files=no") != ""


def resolve(root: Path, rev: str) -> str:
    """The full hash of commit `rev` in the checkout, else an error naming it."""
    if rev.startswith("-"):
        raise AgainstError(f"--against: not a commit: {rev!r}")
    try:
        return _git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    except AgainstError:
        raise AgainstError(f"--against: {rev!r} is not a commit of {root}") from None


@contextmanager
def checkout(root: Path, commit: str):
    """Commit checked out into a temporary worktree (importable as `wsim`), removed afterwards."""
    tmp = Path(tempfile.mkdtemp(prefix="wsim-against-"))
    tree = tmp / "tree"
    try:
        _git(root, "worktree", "add", "--detach", "--quiet", str(tree), commit)
        # the editable install maps wsim.kernels to the top-level kernels/ (pyproject.toml);
        # imported through PYTHONPATH, the package needs that folder at wsim/kernels
        if (tree / "kernels").is_dir() and not (tree / "wsim" / "kernels").exists():
            (tree / "wsim" / "kernels").symlink_to(Path("..") / "kernels")
        yield Tree(commit[:10], tree, tmp / "numba-cache")
    finally:
        subprocess.run(["git", "-C", str(root), "worktree", "remove", "--force", str(tree)], capture_output=True)
        subprocess.run(["git", "-C", str(root), "worktree", "prune"], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


def _start(tree: Tree, core: int | None, games: int, rollout_games: int, policies: tuple, cwd: Path):
    pin = None if core is None else (lambda: os.sched_setaffinity(0, {core}))
    counter = Path(__file__).resolve().parent / "playouts.py"  # this tree's, for both trees
    return subprocess.Popen([sys.executable, "-c", PROBE, str(games), str(rollout_games), ",".join(policies),
                             str(counter)],
                            env=tree.env(), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=pin)


def _finish(tree: Tree, proc) -> dict:
    out, err = proc.communicate()
    if proc.returncode != 0:
        last = err.strip().splitlines()[-1] if err.strip() else f"exit status {proc.returncode}"
        raise AgainstError(f"--against: the {tree.label} tree did not run the benchmark: {last}")
    result = json.loads(out.strip().splitlines()[-1])
    imported = Path(result.pop("wsim")).resolve()
    if tree.root.resolve() not in imported.parents:  # never report another tree's speed under this label
        raise AgainstError(f"--against: the {tree.label} tree imported wsim from {imported}")
    return result


def _collect(started: list) -> dict:
    """{label: result} of the started (tree, process) pairs; on any error or interrupt the
    others are stopped too."""
    try:
        return {tree.label: _finish(tree, proc) for tree, proc in started}
    finally:
        for _, proc in started:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def measure(trees: tuple, rounds: int, games: int, rollout_games: int, policies: tuple = POLICIES,
            cores: list | None = None, on_run=None) -> list:
    """Runs of both trees: [{label: {policy: rate}}, ...], one dict per simultaneous pair (two per
    round, the cores swapped), or per turn when fewer than two cores are given. Each tree plays
    once untimed first."""
    cores = sorted(os.sched_getaffinity(0)) if cores is None and hasattr(os, "sched_getaffinity") else (cores or [])
    runs = []
    with tempfile.TemporaryDirectory(prefix="wsim-against-run-") as cwd:  # nothing of either tree shadows
        # a first, untimed run of each fills its numba cache, so that no timed run shares the
        # machine with the other tree's compile
        _collect([(tree, _start(tree, None, 10, 1, policies, Path(cwd))) for tree in trees])
        for _ in range(rounds):
            for swap in (False, True):
                placed = trees[::-1] if swap else trees
                if len(cores) >= 2:
                    run = _collect([(tree, _start(tree, core, games, rollout_games, policies, Path(cwd)))
                                    for tree, core in zip(placed, cores[:2])])
                else:
                    run = {}
                    for tree in placed:
                        run.update(_collect([(tree, _start(tree, None, games, rollout_games, policies, Path(cwd)))]))
                runs.append(run)
                if on_run is not None:
                    on_run(len(runs), run)
    return runs


def summary(runs: list, before: str, after: str, policies: tuple = POLICIES) -> list:
    """Per policy: the best rate of each tree and their ratio, the geometric mean of the
    simultaneous runs' ratios (`paired`: each run's two trees saw the same moment), and in how
    many runs after was the faster."""
    rows = []
    for policy in policies:
        b = [run[before][policy] for run in runs]
        a = [run[after][policy] for run in runs]
        paired = math.exp(sum(math.log(x / y) for x, y in zip(a, b)) / len(runs))
        rows.append({"policy": policy, "before": max(b), "after": max(a), "ratio": max(a) / max(b),
                     "paired": paired, "after_faster": sum(x > y for x, y in zip(a, b)), "runs": len(runs)})
    return rows


def table_text(rows: list, before: str, after: str) -> str:
    """The summary as aligned text."""
    unit = {"rollout": "playouts/s"}
    lines = [f"{'5 players, 1 thread':<22} {before:>12} {after:>12} {'ratio':>7} {'paired':>7}  faster",
             *(f"{r['policy'] + ' (' + unit.get(r['policy'], 'games/s') + ')':<22} {r['before']:>12,.0f} "
               f"{r['after']:>12,.0f} {r['ratio']:>7.3f} {r['paired']:>7.3f}  {r['after_faster']} of {r['runs']}"
               for r in rows)]
    return "\n".join(lines)


def compare_with(rev: str, rounds: int, quick: bool, save: bool, echo) -> dict:
    """`wsim bench --against REV`: this tree and commit REV of its checkout side by side; prints
    each run and the table, and returns (and saves) the results."""
    root = source_root()
    commit = resolve(root, rev)
    games, rollout_games = (2_000, 2) if quick else (8_000, 6)
    results: dict = {
        "when": record.now(),
        "command": f"wsim bench --against {rev} --rounds {rounds}" + (" --quick" if quick else ""),
        "before": {"rev": rev, "commit": commit},
        "after": {"head": head(root), "changed": changed(root)},
        "games_per_policy": games, "rollout_games": rollout_games, "rollout_playouts_per_move": 16,
        "machine": record.machine(),
    }
    echo(f"this tree ({root}) against {rev} ({commit[:10]}): five players, one thread, {games:,} games per "
         f"policy, rollout K=16 over {rollout_games} games; {rounds} round{'s' if rounds > 1 else ''} of two "
         f"runs, both trees at once (after an untimed run of each, which compiles {commit[:10]}'s kernels)")
    with checkout(root, commit) as before:
        after = Tree("this tree", root, None)

        def on_run(i, run):
            echo(f"  run {i}: " + ", ".join(f"{p} {run[before.label][p]:,.0f} / {run[after.label][p]:,.0f}"
                                            for p in POLICIES))

        runs = measure((before, after), rounds, games, rollout_games, on_run=on_run)
        rows = summary(runs, before.label, after.label)
        echo(table_text(rows, before.label, after.label))
    results["runs"] = runs
    results["summary"] = rows
    if save:
        record.save(results, f"against-{commit[:10]}-{record.stamp(results)}", echo)
    return results
