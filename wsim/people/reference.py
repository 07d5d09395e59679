"""The shipped reference of human games: 8,357 games of Board Game Arena (first edition, March 2020).

The package carries their aggregate, wsim/data/people-bga2020.json (built from the raw files by
`python -m wsim.people.build`; its `source` record says where they come from and how they were
treated); nothing outside the package is read.
"""

from __future__ import annotations

import functools
import json
from importlib import resources

from wsim.people.aggregate import Aggregate

PEOPLE_NAME = "people"  # the reference's name beside the populations
FILE = "people-bga2020.json"


@functools.cache
def people() -> Aggregate:
    """The reference Aggregate (read once)."""
    text = (resources.files("wsim") / "data" / FILE).read_text(encoding="utf-8")
    return Aggregate.from_json(json.loads(text))


def describe() -> str:
    """One line: what the reference is and how many games it holds."""
    agg = people()
    counts = agg.counts()
    games = sum(agg.n_games(p) for p in counts)
    span = f"{counts[0]}–{counts[-1]}" if len(counts) > 1 else f"{counts[0]}"
    return f"{PEOPLE_NAME}: {games:,} Board Game Arena games (March 2020, {span} players)"
