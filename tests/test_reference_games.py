"""Random full games with the reference engine: invariants, determinism and replay."""

import copy

import pytest

from wsim import movelog
from wsim.kernels.deal import deal
from wsim.reference.engine import Game, RandomPolicy, play
from wsim.reference.replay import ReplayError, replay
from wsim.run.verify import check_complete_game

GAMES_PER_N = 20  # the deep runs are `make verify`'s (5,000 per player count, same invariants)


def _play_checked(tables, n, seed, game, promo):
    boards, sides, hands = deal(tables, n, seed, game, promo_in_pool=promo)
    g = Game(tables, boards, sides, hands, [RandomPolicy(seed, game, s) for s in range(n)])
    final = g.play()
    check_complete_game(g, game)
    return boards, sides, hands, g, final


@pytest.mark.parametrize("n", range(3, 8))
def test_random_games_replay(tables, n):
    for game in range(GAMES_PER_N):
        promo = game % 4 == 0  # Manneken Pis in the pool for a quarter of the games
        boards, sides, hands, g, final = _play_checked(tables, n, 1000 + n, game, promo)
        doc = movelog.to_json(tables, 1000 + n, game, boards.tolist(), sides.tolist(), hands.tolist(),
                              g.events, final)
        assert replay(tables, doc) == final


def test_play_is_deterministic_and_logs_json(tables):
    a = play(3, 7, 5, tables)
    b = play(3, 7, 5, tables)
    assert a == b
    assert a != play(3, 8, 5, tables)
    assert a["format"] == "wsim-log-1" and a["players"] == 5
    assert len(a["setup"]["hands"]) == 3 and len(a["setup"]["hands"][0][0]) == 7
    assert sum(1 for e in a["events"] if e["kind"] == "military") == 15


def test_replay_rejects_a_tampered_log(tables):
    doc = play(0, 1, 4, tables)
    bad = copy.deepcopy(doc)
    bad["final"]["players"][0]["total"] += 1
    with pytest.raises(ReplayError, match="final scores differ"):
        replay(tables, bad)
    bad = copy.deepcopy(doc)
    move = next(e for e in bad["events"] if e["kind"] == "move" and e["action"] == "build"
                and (e["left"] or e["right"]))
    move["left"] += 1
    with pytest.raises(ReplayError, match="purchase"):
        replay(tables, bad)
    bad = copy.deepcopy(doc)
    bad["setup"]["hands"][0][0], bad["setup"]["hands"][0][1] = bad["setup"]["hands"][0][1], bad["setup"]["hands"][0][0]
    with pytest.raises(ReplayError, match="not the deal"):
        replay(tables, bad)
