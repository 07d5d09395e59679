"""Issue 56's targets for one population, measured (not asserted): how it compares with people at
3-7 players (`wsim people`), its strength against the heuristic and its speed.

    .venv/bin/python studies/people_targets.py --policy learned \
        --games 20000 --out results/people-targets

prints one line per target (measured, wanted, met or missed) and writes OUT/targets.csv beside the
`wsim people` report (OUT/people/). docs/people.md quotes its output.
"""

from __future__ import annotations

import argparse
import csv
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from wsim.agents.ladder import parse_entries, play_pair
from wsim.analysis.stats import wilson_interval
from wsim.api.people import people
from wsim.tables import load

COUNTS = (3, 4, 5, 6, 7)
# behaviour at 4 players: (section, quantity, allowed distance from people)
BEHAVIOUR = (("behaviour", "stages", 0.3), ("behaviour", "discards", 0.3), ("behaviour", "chained", 0.5),
             ("behaviour", "coins_paid", 3.0), ("points", "vp_science", 3.0), ("score", "mean_points", 3.0),
             ("score", "gap", 2.0))
STRENGTH_COUNTS = (3, 4, 5, 7)
STRENGTH_TARGET = 0.60  # one seat against heuristic ones, at 4 players
SPEED_TARGET = 1_000  # five-player games a second on one thread


def board_targets(result, name: str) -> list:
    """(target, measured, wanted, met) rows of the board table at every count."""
    rows = []
    distances = {int(d["players"]): d for d in result.distances if d["population"] == name}
    for p in COUNTS:
        d = distances.get(p)
        if d is None or d["chi2"] in ("", None):
            rows.append((f"{p} players: board table", "none", "compared", False))
            continue
        if p in (3, 4):
            rows.append((f"{p} players: Wald chi2 p-value", f"{float(d['p_value']):.3g} (chi2 {float(d['chi2']):.1f}, "
                         f"{d['df']} df)", ">= 0.01", float(d["p_value"]) >= 0.01))
        if p in (3, 4, 5):
            rows.append((f"{p} players: rank correlation", f"{float(d['spearman']):+.2f}", ">= 0.80",
                         float(d["spearman"]) >= 0.8))
        boards = [b for b in result.boards if b["population"] == name and int(b["players"]) == p]
        weakest = min(boards, key=lambda b: float(b["rate"]))
        rows.append((f"{p} players: the weakest board", f"{weakest['wonder']} ({float(weakest['rate']):.1%})",
                     "babylon", weakest["wonder"] == "babylon"))
    return rows


def behaviour_targets(result, name: str) -> list:
    """(target, measured, wanted, met) rows of the behaviour at 4 players."""
    rows = []
    for section, quantity, allowed in BEHAVIOUR:
        match = [r for r in result.play if r["population"] == name and int(r["players"]) == 4
                 and r["section"] == section and r["quantity"] == quantity]
        if not match or match[0]["mean"] in ("", None):
            rows.append((f"4 players: {quantity}", "not measured", f"people ± {allowed}", False))
            continue
        r = match[0]
        ours, theirs = float(r["mean"]), float(r["people_mean"])
        rows.append((f"4 players: {quantity}", f"{ours:.2f} (people {theirs:.2f})", f"people ± {allowed}",
                     abs(ours - theirs) <= allowed))
    return rows


def strength_targets(policy: str, params: tuple, games: int) -> list:
    """(target, measured, wanted, met): one seat of `policy` against heuristic seats, rotated."""
    tables = load()
    x, y = parse_entries([f"{policy}:candidate", "heuristic"], params)
    rows = []
    for p in STRENGTH_COUNTS:
        pair = play_pair(tables, x, y, p, games, seed=1_000_000)
        lo, hi = wilson_interval(pair.wins, pair.games)
        share = pair.wins / pair.games
        wanted = f">= {STRENGTH_TARGET:.0%}" if p == 4 else "stated"
        rows.append((f"{p} players: one seat against {p - 1} heuristic", f"{share:.1%} [{lo:.1%}, {hi:.1%}] "
                     f"of {pair.games:,}", wanted, share >= STRENGTH_TARGET if p == 4 else True))
    return rows


def speed_target(policy: str, params: tuple, games: int) -> tuple:
    """(target, measured, wanted, met): five-player games a second on one thread (`wsim simulate`'s
    summary, which counts play only)."""
    with tempfile.TemporaryDirectory() as tmp:
        command = [str(Path(sys.executable).parent / "wsim"), "simulate", "--games", str(games), "--players", "5",
                   "--policy", policy, "--threads", "1", "--out", str(Path(tmp) / "d"), "--quiet",
                   *[a for p in params for a in ("--policy-param", p)]]
        text = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    rate = float(re.search(r"\(([0-9,]+) games/s\)", text).group(1).replace(",", ""))
    return ("5 players: games/s, one thread", f"{rate:,.0f}", f">= {SPEED_TARGET:,}", rate >= SPEED_TARGET)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--policy", default="learned")
    ap.add_argument("--policy-param", action="append", default=[])
    ap.add_argument("--name", default="candidate")
    ap.add_argument("--games", type=int, default=20_000, help="games a count against people")
    ap.add_argument("--strength-games", type=int, default=4_000)
    ap.add_argument("--speed-games", type=int, default=20_000)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    params = tuple(a.policy_param)
    result = people(a.out / "people", populations=[f"{a.name}={a.policy}"], players=COUNTS, games=a.games,
                    policy_params=params, overwrite=True)
    rows = (board_targets(result, a.name) + behaviour_targets(result, a.name)
            + strength_targets(a.policy, params, a.strength_games) + [speed_target(a.policy, params, a.speed_games)])
    with open(a.out / "targets.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["target", "measured", "wanted", "met"])
        w.writerows(rows)
    for target, measured, wanted, met in rows:
        print(f"{'met   ' if met else 'MISSED'}  {target:<42} {measured:<40} {wanted}")
    print(f"{sum(r[3] for r in rows)} of {len(rows)} met; {a.out / 'targets.csv'}, {a.out / 'people' / 'index.html'}")


if __name__ == "__main__":
    main()
