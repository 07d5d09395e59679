"""`make verify`: kernel games replayed by the reference engine, move by move, in items of a few
hundred games (tests/tiers.py shards them and resumes an interrupted run). Zero mismatches is
the only pass; the random items are also the reference's own random games (invariants, the very
same log).

Standard depth, for one machine: 1,500 random and 1,500 greedy games, 400 heuristic, 3
rollout games (every seat searching), 200 learned games (the shipped model) and 3 games of
rollout over the learned base (truncated playouts) per player count, 2..7: 21,636 games.
`--depth full` (`make verify DEPTH=full`, for several machines) is the depth the project ran
before the tiers, with 1,000 learned games and 20 over the learned base: 5,000 / 5,000 / 1,000 /
20 / 1,000 / 20 per player count, 72,240 games. Games from 1,000 on (seed 17):
`make check` and `make test` replay games 0..109.

The second edition (wsim/data/cards-2e.yaml, 3..7 players, its own learned model) is replayed
beside it at a third of the first edition's depth (EDITION_2: 500 / 500 / 134 / 1 / 67 / 1 per
player count at standard depth, 6,015 games), items named e2-….
"""

import pytest

from wsim.run.verify import verify_games
from wsim.tables import edition_path

FIRST = 1_000
DEPTH = {"standard": {"random": 1_500, "greedy": 1_500, "heuristic": 400, "rollout": 3, "learned": 200,
                      "rollout-learned": 3},
         "full": {"random": 5_000, "greedy": 5_000, "heuristic": 1_000, "rollout": 20, "learned": 1_000,
                  "rollout-learned": 20}}
BLOCK = {"random": 250, "greedy": 250, "heuristic": 100, "rollout": 1, "learned": 100, "rollout-learned": 1}


EDITION_2 = 3  # the second edition's depth: a third of the first's (at least one game)
PLAYERS = {1: range(2, 8), 2: range(3, 8)}


def pytest_generate_tests(metafunc):
    if "block" not in metafunc.fixturenames:
        return
    blocks = []
    for edition, players_range in PLAYERS.items():
        counts = {policy: -(-n // (EDITION_2 if edition == 2 else 1))
                  for policy, n in DEPTH[metafunc.config.getoption("--depth")].items()}
        blocks += [(edition, players, policy, FIRST + first, min(BLOCK[policy], counts[policy] - first))
                   for players in players_range for policy in counts
                   for first in range(0, counts[policy], BLOCK[policy])]
    metafunc.parametrize("block", blocks, ids=[("e2-" if e == 2 else "") + f"{p}p-{policy}-{first}"
                                               for e, p, policy, first, _ in blocks])


@pytest.mark.deep
def test_kernel_games_replay_in_the_reference(block, record_property):
    edition, players, policy, first, games = block
    result = verify_games(players, policy, first, games, data=str(edition_path(edition)))
    record_property("games", result["games"])
    assert result["games"] == games
    assert result["events"] >= games * (3 if players == 2 else players) * 18
