"""Shared fixtures: the compiled tables, a CLI runner, broken copies of the data file, a tmpfs."""

import contextlib
import subprocess

import pytest
import yaml
from click.testing import CliRunner

from wsim import tables as tables_mod
from wsim.cli.app import main

pytest_plugins = ["tiers"]  # make verify's shards, depth and resumption (tests/tiers.py)


@pytest.fixture(scope="session")
def tables():
    return tables_mod.load()


@pytest.fixture(scope="session")
def data_doc():
    """The packaged data file as a Python document, to mutate into broken copies."""
    with open(tables_mod.data_path(), encoding="utf-8") as f:
        return yaml.safe_load(f)


def run_cli(*args, env=None):
    """Run `wsim ARGS` in-process; returns click's Result (exit_code, stdout, stderr)."""
    return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)


def last_error_line(result) -> str:
    """The last line of stderr, which INTERFACES section 0 requires to be `Error: ...`."""
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def random_positions(tables, players: int, seed: int, game: int):
    """The game (random seats, Manneken Pis in the pool) at each of its decision rounds and age
    ends, played on between yields: for checks that hold in every position a game reaches."""
    from wsim.run.stepgame import KernelGame

    g = KernelGame(tables, players, seed=seed, game=game, policy="random", promo=True)
    while not g.over:
        yield g
        pending = g.pending()
        if not pending:
            g.next()
        for seat, kind in pending:
            options = g.legal(seat, kind)
            g.apply(seat, kind, options, g.decide(seat, kind, options))


@contextlib.contextmanager
def tmpfs(mnt, options: str):
    """A real tmpfs mounted on the empty folder `mnt` for the block (`options`: "size=4m",
    "ro,size=64k"), unmounted after; the test is skipped where mounting is refused (not root)."""
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(mnt)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"mount refused here: {mounted.stderr.decode().strip() or 'not root'}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)
