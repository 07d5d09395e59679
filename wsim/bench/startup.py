"""Child processes timed (`python -m wsim`): `wsim simulate --games 1` on an empty numba cache
(cold) and on a filled one (warm), the first use of the lazily compiled families, and a big
run's seconds and peak RSS. Every child works in one folder (`Children`), each policy's cold
start on a cache of its own; the heuristic's cache, filled by its cold start, is the warm one."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

WARM_POLICY = "heuristic"  # the policy of the warm start, whose cold start fills the warm cache


def child_seconds(args: list, env: dict) -> tuple:
    """(wall seconds, peak RSS in MiB) of a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run(args, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of children is the largest child so far: only meaningful when it grew
    return seconds, max(peak, before) / 1024


@dataclass(frozen=True)
class Children:
    """The folder the children work in (caches and their dataset), and the card data they load
    (None: the built-in data)."""

    folder: Path
    data: str | None

    def env(self, cache: str = WARM_POLICY) -> dict:
        env = dict(os.environ, NUMBA_CACHE_DIR=str(self.folder / f"cache-{cache}"))
        if self.data is not None:
            env["WSIM_DATA"] = str(Path(self.data).resolve())
        return env

    def simulate(self, games: int, *more: str) -> list:
        return [sys.executable, "-m", "wsim", "simulate", "--games", str(games), *more,
                "--out", str(self.folder / "ds"), "--overwrite"]

    def cold_start(self, policy: str) -> float:
        """Seconds of a first run of `policy` (its own empty cache)."""
        return child_seconds(self.simulate(1, "--policy", policy), self.env(policy))[0]

    def first_use(self, family: str) -> float:
        """Seconds of `wsim compile FAMILY` on the warm cache (the games family in it)."""
        return child_seconds([sys.executable, "-m", "wsim", "compile", family], self.env())[0]

    def warm_start(self, runs: int = 3) -> float:
        """The best seconds of `runs` one-game runs on the warm cache."""
        return min(child_seconds(self.simulate(1, "--policy", WARM_POLICY), self.env())[0] for _ in range(runs))

    def big_run(self, games: int) -> tuple:
        """(seconds, peak RSS in MiB) of a five-player run of `games` games, end to end."""
        return child_seconds(self.simulate(games, "--players", "5"), self.env())
