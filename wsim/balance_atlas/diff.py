"""The difference atlas (docs/atlas.md "Atlases of edits"): this atlas's data against a baseline
(a data file, played here on the same deals, or an earlier atlas's datasets), every side's win
rate and every card's effect compared game by game (the paired comparison of `wsim ablate`),
under the default rung and the search rung, at every count.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from wsim.balance_atlas.plan import ANCHOR, DEFAULT_RUNG, AtlasError, Plan
from wsim.balance_atlas.play import OPTIONS, count_dir, play_rungs
from wsim.tables import Tables

MOVE_RUNGS = (DEFAULT_RUNG, ANCHOR)


def check_baseline(plan: Plan, against: Path):
    """An earlier atlas as the baseline: refused, before anything is played, unless it holds the
    same deals and sizes at every count of this atlas."""
    try:
        recorded = json.loads((against / "data" / OPTIONS).read_text())
    except (OSError, ValueError):
        raise AtlasError(f"--against: {against} is neither a data file nor an atlas folder (no "
                         f"data/{OPTIONS})") from None
    for key, value in plan.options().items():
        if key not in ("data_sha256", "players") and recorded.get(key) != value:
            raise AtlasError(f"--against: {against} was played with {key} {recorded.get(key)!r}, this atlas "
                             f"with {value!r}: a difference atlas needs the same deals and sizes")
    missing = [p for p in plan.counts if p not in (recorded.get("players") or [])]
    if missing:
        raise AtlasError(f"--against: {against} has no games at {missing[0]} players (its counts: "
                         f"{recorded.get('players')})")


def baseline_data(plan: Plan, against, where: Path, progress, cluster, threads, on_stage) -> tuple:
    """(folder of the baseline's P{P}/ datasets, its tables or None): an earlier atlas's data/
    (check_baseline), or the baseline data file's rungs played into `where`."""
    if isinstance(against, Path):
        return against / "data", None
    for players in plan.counts:
        on_stage(f"{players}p: the baseline ({against.source}) on the same deals")
        play_rungs(against, plan, where, players, progress, cluster, threads, rungs=MOVE_RUNGS)
    return where, against


def moves(tables: Tables, plan: Plan, data: Path, where: Path, against, progress, cluster, threads,
          on_stage) -> tuple:
    """(side_moves, card_moves): baseline against this atlas's data, paired, per count and rung."""
    from wsim.analysis.balance import effects, read
    from wsim.analysis.balance.report import paired_table

    base_root, base_tables = baseline_data(plan, against, where, progress, cluster, threads, on_stage)
    con = read.connect()
    sides, cards = [], []
    for players in plan.counts:
        for rung in MOVE_RUNGS:
            base = read.open_dataset(count_dir(base_root, players) / rung, base_tables or tables, "--against")
            edited = read.open_dataset(count_dir(data, players) / rung, tables)
            cells = [read.card_cells(con, ds) for ds in (base, edited)]
            paired = paired_table(con, base, edited, cells[0], cells[1], tuple(effects.fit_cells(c) for c in cells))
            side, card = _split(paired.assign(rung=rung))
            sides.append(side)
            cards.append(card)
    return pd.concat(sides, ignore_index=True), pd.concat(cards, ignore_index=True)


def _split(paired: pd.DataFrame) -> tuple:
    """paired.csv's rows as side_moves and card_moves rows (its key names the side or card)."""
    paired = paired.rename(columns={"baseline": "base", "value": "edited"})
    rates = paired[paired.metric == "win_rate"].copy()
    where = rates.key.str.rsplit("@", n=1).str[0]
    rates["wonder"] = where.str.rsplit("/", n=1).str[0]
    rates["side"] = where.str.rsplit("/", n=1).str[1]
    found = paired[paired.metric == "effect"].copy()
    found["card"] = found.key.str.rsplit("@", n=1).str[0]
    return rates, found
