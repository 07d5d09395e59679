"""Play GAMES five-player games of POLICY on one thread: the program bench/kernel_instructions.sh
runs under valgrind to count the instructions executed inside the compiled kernels.

    python bench/kernel_instructions.py POLICY GAMES

POLICY is random, greedy or heuristic (every seat), or rollout (seat 0; the others heuristic).
"""

import sys

from wsim import tables
from wsim.run.runner import Runner, set_threads
from wsim.run.settings import Settings


def main(policy: str, games: int) -> None:
    seats = ("rollout",) + ("heuristic",) * 4 if policy == "rollout" else (policy,) * 5
    set_threads(1)
    Runner(tables.load(), Settings(players=5, seed=7, policies=seats)).play(1000, games)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
