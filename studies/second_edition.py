"""The second edition's card changes that the data file can express, replayed with `wsim ablate`
under several populations on the same deals (docs/rebalance.md, "What the designer changed").

    python studies/second_edition.py GAMES PLAYERS POPULATION [POPULATION ...]

POPULATION is POLICIES as --policies takes them (e.g. heuristic, learned). Each population plays
two paired experiments against the first edition: SURE (the changes two or more transcriptions
agree on) and ALL (SURE and the changes only some record). For every card a change touches, its
effect on the win rate (the balance report's adjusted association) before and after, and the
paired difference with its 95% CI; then the wonder sides whose win rate moved significantly.
Seed 11; the reports land in results/second-edition/POPULATION-SET.
"""

import sys
import time
from pathlib import Path

import wsim

SEED = 11
SURE = ("Altar.points+=1", "Theater.points+=1", "Temple.points+=1",  # 2 -> 3, 2 -> 3, 3 -> 4
        "Builders Guild.cost+=stone", "Spies Guild.cost-=clay")
ALL = SURE + ("Fortifications.cost-=stone", "Fortifications.cost+=clay",  # 3 ore + stone -> 3 ore + clay
              "Theater.chain_to-=Statue", "Theater.chain_to=Gardens", "Altar.chain_to-=Temple",
              "Altar.chain_to=Pantheon",
              "Pawnshop.chain_to=Statue")  # the Well is the Pawnshop (free, 3 points) renamed, chained to Statue
CARDS = ("Altar", "Theater", "Temple", "Builders Guild", "Spies Guild", "Fortifications", "Statue", "Gardens",
         "Pantheon")


def _pp(x: float) -> str:
    return f"{100 * x:+.1f}"


def report(name: str, edits: tuple, games: int, players: int, policies: str):
    """One paired experiment and its lines of the docs' tables."""
    out = Path("results/second-edition") / f"{policies.replace(',', '_')}-{name}"
    start = time.perf_counter()
    rep = wsim.ablate(list(edits), out=out, games=games, players=players, policies=policies, seed=SEED,
                      overwrite=True)
    paired = rep.paired.set_index(["metric", "key"])
    print(f"\n{policies}, {name} ({len(edits)} edits), {games:,} games of {players} players, "
          f"{time.perf_counter() - start:.0f} s; report {out}/index.html")
    print("| card | effect before | after | paired difference [95% CI] | q |")
    print("|---|---:|---:|---|---:|")
    for card in CARDS:
        key = ("effect", f"{card}@{players}")
        if key in paired.index:
            r = paired.loc[key]
            print(f"| {card} | {_pp(r.baseline)} | {_pp(r.value)} | {_pp(r['diff'])} [{_pp(r.ci_low)}, "
                  f"{_pp(r.ci_high)}] | {r.q_value:.2g} |")
    sides = paired.loc["win_rate"]
    moved = sides[sides.q_value < 0.05].sort_values("diff")
    print("sides moved (q < 0.05): " + (", ".join(f"{k} {_pp(r['diff'])} [{_pp(r.ci_low)}, {_pp(r.ci_high)}]"
                                                  for k, r in moved.iterrows()) or "none"))


def main():
    games, players = int(sys.argv[1]), int(sys.argv[2])
    for policies in sys.argv[3:]:
        for name, edits in (("sure", SURE), ("all", ALL)):
            report(name, edits, games, players, policies)


if __name__ == "__main__":
    main()
