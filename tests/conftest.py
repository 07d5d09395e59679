"""Shared fixtures: the compiled tables, the data file as a document to break, the game's positions.

The command-line helpers (run wsim in-process, its last error line, a small real disk) are in
tests/clikit.py."""

import pytest
import yaml

from wsim import tables as tables_mod

pytest_plugins = ["tiers"]  # make verify's shards, depth and resumption (tests/tiers.py)


@pytest.fixture(scope="session")
def tables():
    return tables_mod.load()


@pytest.fixture(scope="session")
def negated_model(tables, tmp_path_factory):
    """The shipped model with its value negated: a learned seat playing it picks the options
    the shipped model values least."""
    from wsim.run.model import Model, read_model

    shipped = read_model("shipped", tables)
    path = tmp_path_factory.mktemp("model") / "negated.npz"
    path.write_bytes(Model(shipped.w1, shipped.b1, -shipped.w2, -shipped.b2, shipped.header).to_bytes())
    return path


@pytest.fixture(scope="session")
def data_doc():
    """The packaged data file as a Python document, to mutate into broken copies."""
    with open(tables_mod.data_path(), encoding="utf-8") as f:
        return yaml.safe_load(f)


def random_positions(tables, players: int, seed: int, game: int):
    """The game (random seats, Manneken Pis in the pool) at each of its decision rounds and age
    ends, played on between yields: for checks that hold in every position a game reaches."""
    from wsim.run.stepgame import KernelGame

    g = KernelGame(tables, players, seed=seed, game=game, policy="random", promo=True)
    for pending in g.rounds():
        yield g
        for seat, kind in pending:
            options = g.legal(seat, kind)
            g.apply(seat, kind, options, g.decide(seat, kind, options))
