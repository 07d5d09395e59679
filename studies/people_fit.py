"""An experiment of issue 56 (docs/people.md, "What was tried"): the heuristic's weights fitted by
CMA-ES to how people play at one player count (their points by category, stages, discards,
chained builds, coins paid, shields and first-to-last gap), never to the boards' table, which stays
the validation (`wsim people` on the written weights).

    .venv/bin/python studies/people_fit.py --players 4 --generations 30 --out /tmp/people-fit.json
    .venv/bin/wsim people --population fit=heuristic --policy-param heuristic.weights=/tmp/people-fit.json \
        --players 3,4,5 --out results/people-fit

Every seat plays the candidate, every board on side B (people's all-B tables), the candidates of a
generation on the same deals. The loss: the sum over the quantities of ((mean − people's) /
tolerance)², the tolerances issue 56's (stages 0.3, discards 0.3, chained 0.5, coins 3, science 3,
gap 2) and 2 points for the other categories and 1 shield.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace

import cma
import numpy as np

from wsim.agents.ladder import Entry, table
from wsim.kernels import layout as L
from wsim.kernels.heuristic import HEURISTIC_KEYS
from wsim.people.reference import people
from wsim.run.runner import Runner, play_chunks
from wsim.run.weights import FORMAT, default_params
from wsim.tables import load

# (people's seat quantity, its result field, tolerance)
SEAT = (("vp_military", L.RES_MILITARY, 2.0), ("vp_treasury", L.RES_TREASURY, 2.0), ("vp_wonder", L.RES_WONDER, 2.0),
        ("vp_civilian", L.RES_CIVILIAN, 2.0), ("vp_science", L.RES_SCIENCE, 3.0),
        ("vp_commercial", L.RES_COMMERCIAL, 2.0), ("vp_guild", L.RES_GUILD, 2.0), ("stages", L.RES_STAGES, 0.3),
        ("discards", L.RES_DISCARDS, 0.3), ("chained", L.RES_CHAINED, 0.5), ("coins_paid", L.RES_COINS_PAID, 3.0),
        ("shields", L.RES_SHIELDS, 1.0))
GAP_TOLERANCE = 2.0
# --per-board adds, board by board, what each board's seats do (docs/people.md "Why the players
# disagree"): (quantity, result field, tolerance)
PER_BOARD = (("stages", L.RES_STAGES, 0.3), ("vp_science", L.RES_SCIENCE, 3.0))
SCALE = 100  # weights in hundredths of a point; the search moves in points


def entry(x) -> Entry:
    row = list(default_params("heuristic"))
    for i, v in enumerate(x):
        row[i] = int(round(min(10.0, max(0.0, v)) * SCALE))
    return Entry("heuristic", "candidate", tuple(row))


def behaviour(tables, e: Entry, players: int, games: int, seed: int, first: int) -> dict:
    """Seat means of SEAT, the mean first-to-last gap and, per board, PER_BOARD's seat means
    ((board id, quantity) keys); every seat `e`, every board on side B."""
    settings = replace(table([e] * players, seed, first + games), sides="B")
    sums = np.zeros(len(SEAT))
    boards = len(tables.board_ids)
    per_board = np.zeros((boards, len(PER_BOARD)))
    seats = np.zeros(boards)
    gap = 0.0
    n = 0
    for _, res in play_chunks(Runner(tables, settings), first, games):
        r = res[:, :players].astype(np.float64)
        sums += np.array([r[:, :, f].sum() for _, f, _ in SEAT])
        gap += float((r[:, :, L.RES_TOTAL].max(axis=1) - r[:, :, L.RES_TOTAL].min(axis=1)).sum())
        board = res[:, :players, L.RES_BOARD].ravel().astype(np.int64)
        seats += np.bincount(board, minlength=boards)
        for k, (_, f, _) in enumerate(PER_BOARD):
            per_board[:, k] += np.bincount(board, weights=r[:, :, f].ravel(), minlength=boards)
        n += len(res)
    out = {q: s / (n * players) for (q, _, _), s in zip(SEAT, sums)}
    out["gap"] = gap / n
    for b in np.flatnonzero(seats):
        for k, (q, _, _) in enumerate(PER_BOARD):
            out[(tables.board_ids[b], q)] = per_board[b, k] / seats[b]
    return out


def loss(measured: dict, target: dict) -> float:
    """The sum of squared misses in tolerances: SEAT, the gap and, in `target`, the per-board ones."""
    tolerance = {q: tol for q, _, tol in SEAT} | {"gap": GAP_TOLERANCE}
    tolerance |= {k: dict((q, tol) for q, _, tol in PER_BOARD)[k[1]] for k in target if isinstance(k, tuple)}
    return float(sum(((measured[k] - target[k]) / tolerance[k]) ** 2 for k in target))


def name(key) -> str:
    """A target's name: the quantity, or BOARD/quantity."""
    return "/".join(key) if isinstance(key, tuple) else key


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--generations", type=int, default=30)
    ap.add_argument("--population", type=int, default=12)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-board", action="store_true", help="also each board's stages and science points")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    tables = load()
    ref = people()
    target = {q: ref.seat(a.players, "all_b", "*", "B", q).mean for q, _, _ in SEAT}
    target["gap"] = ref.game(a.players, "all_b", "gap").mean
    if a.per_board:
        target |= {(w, q): ref.seat(a.players, "all_b", w, "B", q).mean
                   for w in ref.boards(a.players, "all_b", "B") for q, _, _ in PER_BOARD}
    start = [v / SCALE for v in default_params("heuristic")[:len(HEURISTIC_KEYS)]]
    es = cma.CMAEvolutionStrategy(start, 0.5, {"popsize": a.population, "seed": a.seed + 1, "bounds": [0, 10],
                                               "verbose": -9})
    log = []
    for g in range(a.generations):
        xs = es.ask()
        first = g * a.games
        values = [loss(behaviour(tables, entry(x), a.players, a.games, a.seed, first), target) for x in xs]
        es.tell(xs, values)
        log.append({"generation": g, "best": round(min(values), 3), "mean": round(float(np.mean(values)), 3)})
        print(f"generation {g}: best loss {min(values):.2f}, mean {np.mean(values):.2f}", flush=True)
    best = entry(es.mean)
    final = behaviour(tables, best, a.players, 4 * a.games, a.seed, a.generations * a.games)
    print("people  " + "  ".join(f"{name(k)} {target[k]:.2f}" for k in target))
    print("fitted  " + "  ".join(f"{name(k)} {final[k]:.2f}" for k in target) + f"  loss {loss(final, target):.2f}")
    doc = {"format": FORMAT, "policy": "heuristic",
           "note": f"fitted to people's play at {a.players} players by studies/people_fit.py (an experiment)",
           "weights": dict(zip(HEURISTIC_KEYS, best.params[:len(HEURISTIC_KEYS)])),
           "fit": {"players": a.players, "generations": a.generations, "population": a.population,
                   "games": a.games, "seed": a.seed, "per_board": a.per_board,
                   "target": {name(k): v for k, v in target.items()},
                   "fitted": {name(k): final[k] for k in target}, "log": log}}
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
    print(f"weights: {a.out}")


if __name__ == "__main__":
    main()
