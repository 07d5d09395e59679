"""The shared random generator and the deal (issue: foundation)."""

import warnings
from collections import Counter

import numpy as np
import pytest
from numba import njit

from wsim import codes
from wsim.kernels import rng
from wsim.kernels.deal import deal

M64 = (1 << 64) - 1


def splitmix_reference(z):
    """SplitMix64's finaliser on Python ints, written from its published definition."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def test_mix64_known_values():
    # SplitMix64 seeded with 0 yields 0xE220A8397B1DCDAF first: mix(0 + golden).
    assert rng.mix64(np.uint64(0x9E3779B97F4A7C15)) == 0xE220A8397B1DCDAF
    for z in (0, 1, 12345, M64, 1 << 63):
        assert rng.mix64(np.uint64(z)) == splitmix_reference(z)


def test_stream_key_and_draws_match_plain_python():
    g = 0x9E3779B97F4A7C15
    for seed, game, stream in [(0, 0, 0), (7, 123456, 3), (M64, 1 << 40, 8)]:
        z = splitmix_reference((seed + g) & M64)
        z = splitmix_reference((z + game + g) & M64)
        key = splitmix_reference((z + stream + g) & M64)
        assert rng.stream_key(np.uint64(seed), np.uint64(game), np.uint64(stream)) == key
        ukey = np.uint64(key)  # numba's dispatcher takes ints above 2**63 only as uint64
        for counter in range(20):
            x = splitmix_reference((key + (counter + 1) * g) & M64)
            assert rng.draw_u64(ukey, counter) == x
            assert rng.draw_below(ukey, counter, 7) == ((x >> 32) * 7) >> 32


@njit
def _draws_inside_numba(seed, game, stream, n, out):
    key = rng.stream_key(seed, game, stream)
    for i in range(out.shape[0]):
        out[i] = rng.draw_below(key, i, n)


def test_python_and_numba_callers_agree():
    """The reference engine calls the generator from Python, kernels call it from numba."""
    out = np.zeros(200, dtype=np.int64)
    _draws_inside_numba(42, 9, 2, 13, out)
    key = np.uint64(rng.stream_key(42, 9, 2))
    assert list(out) == [rng.draw_below(key, i, 13) for i in range(200)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy scalars warn on the intended uint64 wrap-around
        k = rng.stream_key.py_func(np.uint64(42), np.uint64(9), np.uint64(2))
        assert int(k) == key
        assert [int(rng.draw_below.py_func(k, np.uint64(i), np.uint64(13))) for i in range(50)] == list(out[:50])


def test_draw_below_is_roughly_uniform():
    key = np.uint64(rng.stream_key(1, 2, 3))
    counts = Counter(rng.draw_below(key, i, 6) for i in range(6000))
    assert set(counts) == set(range(6))
    assert all(850 < v < 1150 for v in counts.values())


@pytest.mark.parametrize("n", range(3, 8))
def test_deal_sizes(tables, n):
    for game in range(20):
        boards, sides, hands = deal(tables, n, seed=5, game=game)
        assert len(set(boards.tolist())) == n
        assert all(tables.board_promo[b] == 0 for b in boards)
        assert set(sides.tolist()) <= {0, 1}
        for age in (1, 2, 3):
            cards = hands[age - 1].ravel().tolist()
            assert len(cards) == 7 * n
            assert all(tables.card_age[c] == age for c in cards)
            guilds = [c for c in cards if tables.ent_kind[c] == codes.PURPLE]
            assert len(guilds) == (n + 2 if age == 3 else 0)
            assert len(set(guilds)) == len(guilds)
            # every non-guild copy of the N-player deck is dealt exactly once
            expected = Counter({c: int(tables.card_copies[c, n]) for c in range(tables.n_cards)
                                if tables.card_age[c] == age and tables.ent_kind[c] != codes.PURPLE
                                and tables.card_copies[c, n]})
            assert Counter(c for c in cards if tables.ent_kind[c] != codes.PURPLE) == expected


def test_deal_is_deterministic_and_games_differ(tables):
    first = deal(tables, 5, seed=11, game=3)
    again = deal(tables, 5, seed=11, game=3)
    for a, b in zip(first, again):
        assert np.array_equal(a, b)
    other_games = [deal(tables, 5, seed=11, game=g)[2] for g in range(4, 14)]
    assert all(not np.array_equal(first[2], h) for h in other_games)
    assert not np.array_equal(first[2], deal(tables, 5, seed=12, game=3)[2])


def test_deal_fixed_boards_sides_and_promo(tables):
    mp = tables.board_id("manneken_pis")
    spec = [tables.board_id("giza"), -1, mp, -1]
    sides = [1, -1, 0, 1]
    boards, got_sides, _ = deal(tables, 4, 0, 0, board_spec=spec, side_spec=sides)
    assert boards[0] == spec[0] and boards[2] == mp
    assert got_sides[0] == 1 and got_sides[2] == 0 and got_sides[3] == 1
    assert len(set(boards.tolist())) == 4
    # with the promo in the pool, Manneken Pis shows up in some 7-player games
    seen = {int(b) for g in range(30) for b in deal(tables, 7, 0, g, promo_in_pool=True)[0]}
    assert mp in seen
    # fixing boards does not change the cards dealt
    assert np.array_equal(deal(tables, 4, 0, 0)[2], deal(tables, 4, 0, 0, board_spec=spec)[2])
