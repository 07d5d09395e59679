"""Golden results: what the kernels write must not change unless RULES_VERSION does.

- every dataset column of seed 0, 2,000 random games per player count, pinned by a hash;
- one readable playthrough per player count (the `wsim replay` text), in tests/data/, which a
  reader can check by hand against RULES.md. The reference engine replays each of these games
  (test_simulate_cli.test_golden_results and wsim replay do so).

After a deliberate rules change: bump RULES_VERSION, check the new games by replay, then
regenerate with `python tests/test_golden.py`.
"""

import hashlib
import json
from pathlib import Path

import pytest

from wsim import RULES_VERSION, tables as tables_mod
from wsim.dataset import parts
from wsim.logtext import log_text
from wsim.run import Runner, game_log
from wsim.settings import Settings

DATA = Path(__file__).parent / "data"
GAMES = 2000
DATASET_SHA256 = {  # RULES_VERSION 2, seed 0, random policy, 2,000 games (2: the Free City variant)
    2: "f4a5cb14f72ec978735bfa3710950b3f8532c11d3d16331b909b5fdf88117dee",
    3: "fa485682bb1743f419d85862e3a55653548d3d229cf2c336f0b9cf980406918d",
    4: "fa51405e00aaafb149e3957c663031238f3acedac602b284941131d9338f2274",
    5: "bb6a822bd9b557ba38b8f7f28b2c64766415862fd7b402dfd6882c7a927a4756",
    6: "c70c409eb0ac28199799c2e1d25d3094f94e3838f0ac62ff2a686068bb007920",
    7: "3d8adc07bbf6adfdd6eeb3a93b18b7e0c0100ba8c34aa0f9b221479bfd45f3dc",
}


def dataset_digest(players: int) -> str:
    """sha256 over every column's values of the run (seed 0, random, GAMES games)."""
    t = tables_mod.load()
    settings = Settings(players=players, seed=0, games=GAMES, policies=("random",) * players)
    table = parts.chunk_table(t, settings, Runner(t, settings).play(0, GAMES))
    h = hashlib.sha256()
    for name in table.column_names:
        h.update(name.encode() + json.dumps(table[name].to_pylist()).encode())
    return h.hexdigest()


def playthrough(players: int) -> str:
    """The `wsim replay` text of game 0 of seed 0, every seat on `greedy`, Manneken Pis in the pool."""
    t = tables_mod.load()
    settings = Settings(players=players, seed=0, games=1, policies=("greedy",) * players, manneken_pis=True)
    return log_text(game_log(Runner(t, settings), 0), list(settings.policies)) + "\n"


@pytest.mark.parametrize("players", range(2, 8))
def test_dataset_columns_unchanged(players):
    assert RULES_VERSION == 2
    assert dataset_digest(players) == DATASET_SHA256[players]


@pytest.mark.parametrize("players", range(2, 8))
def test_readable_playthrough_unchanged(players):
    assert playthrough(players) == (DATA / f"playthrough-{players}p.txt").read_text()


if __name__ == "__main__":
    for n in range(2, 8):
        (DATA / f"playthrough-{n}p.txt").write_text(playthrough(n))
        print(n, dataset_digest(n))
