"""Games per second of the wsim this Python imports, for comparing two trees side by side.

Run it with each tree's own venv, interleaved, and take the best of several runs, e.g.:

    for i in 1 2 3 4 5; do for t in old new; do echo $t $($t/.venv/bin/python bench/side_by_side.py 1); done; done

Argument: kernel threads (default 1). Prints one JSON line: five-player games/s of random,
greedy and heuristic self-play (8,000 games after a 200-game warm-up), and of rollout (one
searching seat, K=16, four heuristic seats; 6 games) its games/s and playouts/s (the playouts of
those games, counted by wsim.bench as `wsim bench` counts them).
"""

import json
import sys
import time

from wsim.bench import _rollout_games_per_second, _rollout_playouts_per_game
from wsim.run.runner import Runner, set_threads
from wsim.run.settings import Settings
from wsim.tables import load


def main():
    set_threads(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
    tables = load(None)
    out = {}
    for policy, games in (("random", 8000), ("greedy", 8000), ("heuristic", 8000)):
        runner = Runner(tables, Settings(players=5, policies=(policy,) * 5))
        runner.load()
        runner.play(0, 200)
        started = time.perf_counter()
        runner.play(0, games)
        out[policy] = games / (time.perf_counter() - started)
    out["rollout_games"] = _rollout_games_per_second(tables, 16, 6)
    out["rollout_playouts"] = out["rollout_games"] * _rollout_playouts_per_game(tables, 16, 6)
    print(json.dumps({k: round(v, 1) for k, v in out.items()}))


if __name__ == "__main__":
    main()
