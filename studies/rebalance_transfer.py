"""Do a rebalance's edits still help elsewhere? The edits of a report, checked at other player
counts and under other populations: each side's win rate before and after on the same deals,
and the largest deviation from the fair share before and after (docs/rebalance.md).

    python studies/rebalance_transfer.py REPORT/edits.txt 20000 3:heuristic 5:heuristic 4:specialists 4:greedy

Arguments: the edits file, the games of each run, then PLAYERS:POPULATION cases: a built-in
population of `wsim survey` (heuristic, specialists, greedy) or POLICIES as --policies takes
them. Seed 7 (no search step used it).
"""

import sys
import time

from wsim.analysis.edits import apply_edits
from wsim.analysis.populations import builtin_specs
from wsim.analysis.rebalance.games import Games, measure
from wsim.analysis.rebalance.plan import plan
from wsim.tables import load

SEED = 7


def main():
    edits = open(sys.argv[1]).read().split()
    games = int(sys.argv[2])
    base = load(None)
    edited = apply_edits(base, edits)
    runner = Games()
    print(f"edits: {' '.join(edits)}")
    for case in sys.argv[3:]:
        players, _, policies = case.partition(":")
        builtin = {name: (spec, params) for name, spec, params in builtin_specs(int(players), games)}
        spec, params = builtin.get(policies, (policies, ()))
        p = plan(base, [int(players)], f"{policies}={spec}", params, games=games, seed=SEED, tolerance=0.03,
                 max_edits=1, max_change=1, max_steps=1, manneken_pis=False)
        start = time.perf_counter()
        before, after = measure(runner, base, p, SEED), measure(runner, edited, p, SEED)
        print(f"{players} players, {policies}: max deviation {before.deviation():.4f} -> {after.deviation():.4f}, "
              f"excess over 0.03 {before.excess(0.03):.4f} -> {after.excess(0.03):.4f} "
              f"({2 * games:,} games in {time.perf_counter() - start:.1f} s)")
        for key in sorted(before.wins):
            fair = before.fair[key[0]]
            print(f"   {base.board_ids[key[1]]:>13} {'AB'[key[2]]}: {100 * before.rate(key):5.1f}% -> "
                  f"{100 * after.rate(key):5.1f}%  (fair {100 * fair:.1f}%)")


if __name__ == "__main__":
    main()
