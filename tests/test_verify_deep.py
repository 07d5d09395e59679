"""`make verify`: 5,000 games per player count (2..7) and policy, kernels against the reference, in two
processes. Zero mismatches is the only pass. The random-policy half is also the reference
engine's own 5,000 random games per player count (invariants, replay, identical logs)."""

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

from wsim.verify import one_thread, verify_games

GAMES = 5_000
HEURISTIC_GAMES = 1_000
ROLLOUT_GAMES = 20  # every seat searching: about 10 s a 7-player game
JOB = 500


@pytest.mark.slow
def test_verify_kernels_against_reference_5000_games():
    jobs = [(players, policy, first, JOB) for players in range(2, 8) for policy in ("random", "greedy")
            for first in range(0, GAMES, JOB)]
    jobs += [(players, "heuristic", first, JOB) for players in range(2, 8) for first in range(0, HEURISTIC_GAMES, JOB)]
    jobs += [(players, "rollout", 0, ROLLOUT_GAMES) for players in range(2, 8)]
    start = time.perf_counter()
    # spawn: forking a process that already runs numba's thread pool is not safe
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn"), initializer=one_thread) as pool:
        results = list(pool.map(verify_games, *zip(*jobs)))
    seconds = time.perf_counter() - start
    total = sum(r["games"] for r in results)
    assert total == GAMES * 12 + (HEURISTIC_GAMES + ROLLOUT_GAMES) * 6
    print(f"\nverified {total:,} games (6 player counts x {GAMES:,} random and greedy games, {HEURISTIC_GAMES:,} heuristic, {ROLLOUT_GAMES} rollout) with zero mismatches "
          f"in {seconds:.0f} s wall time, 2 processes; Manneken Pis in {sum(r['promo_games'] for r in results):,}")
