"""The atlas's tables (docs/atlas.md "The data"): one long table per kind, every player count in
it, made from each count's survey of the ladder (wsim.analysis.survey.build: win rates, card
effects, pairs, anchored verdicts, people's numbers) and its character (wsim.balance_atlas.character).

The pages are rendered from these tables as read back from their CSV text, so every number a page
shows is the CSV's number (the CSVs keep 6 significant digits).
"""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd

from wsim.analysis.anchored import CARD_COLUMNS, SIDE_COLUMNS
from wsim.balance_atlas import character
from wsim.balance_atlas.plan import ANCHOR, DEFAULT_RUNG, RUNGS, Plan
from wsim.balance_atlas.play import count_dir, parquet_bytes, read_skill, read_standings
from wsim.tables import Tables

RUNG_COLUMNS = ("players", "order", "rung", "spec", "games", "anchor", "people_chi2", "people_df", "people_p",
                "people_rho")
SIDE_CURVE_COLUMNS = ("players", "wonder", "side", "rung", "order", "seats", "win_rate", "ci_low", "ci_high",
                      "fair_share", "q_value")
CARD_CURVE_COLUMNS = ("players", "card", "rung", "order", "seats_built", "effect", "ci_low", "ci_high", "q_value")
FINDING_COLUMNS = ("order", "sentence", "kind", "link")
MOVE_SIDE_COLUMNS = ("players", "wonder", "side", "rung", "base", "edited", "diff", "ci_low", "ci_high", "q_value")
MOVE_CARD_COLUMNS = ("players", "card", "rung", "base", "edited", "diff", "ci_low", "ci_high", "q_value")
COLUMNS = {"rungs": RUNG_COLUMNS, "sides": SIDE_COLUMNS, "side_curve": SIDE_CURVE_COLUMNS, "cards": CARD_COLUMNS,
           "card_curve": CARD_CURVE_COLUMNS, "character": character.COLUMNS, "findings": FINDING_COLUMNS,
           "side_moves": MOVE_SIDE_COLUMNS, "card_moves": MOVE_CARD_COLUMNS}


def count_tables(tables: Tables, plan: Plan, data: Path, players: int, pops: list) -> dict:
    """The tables of one player count: its survey of the ladder, the rungs' distances to people,
    and its character."""
    from wsim.analysis.playtest import people_reference
    from wsim.analysis.survey import build
    from wsim.people.columns import has_people

    here = count_dir(data, players)
    in_play: dict = {}
    for pop in pops:
        for board, sides_of in pop.settings.boards_in_play(tables).items():
            in_play.setdefault(board, set()).update(sides_of)
    reference = people_reference(players, in_play, tables) if has_people(players, tables.edition) else None
    survey = build(here, pops, tables, reference, files=False)
    order = {name: i for i, name in enumerate(RUNGS)}
    rungs = _rungs(tables, here, pops, players)
    side_curve = survey.survey[survey.survey.population.isin(RUNGS)].rename(columns={"population": "rung"})
    side_curve = side_curve.assign(order=side_curve.rung.map(order))
    card_curve = survey.card_effects.rename(columns={"population": "rung"})
    card_curve = card_curve.assign(order=card_curve.rung.map(order))
    standings = pd.concat([read_standings(data, players, rung) for rung in (DEFAULT_RUNG, ANCHOR)],
                          ignore_index=True)
    margins = pd.concat([character.dataset_margins(here / p.name, tables, p.name) for p in pops], ignore_index=True)
    traits = character.character(standings, read_skill(data, players), margins=margins)
    return {"rungs": rungs, "sides": survey.anchored, "side_curve": side_curve, "cards": survey.card_anchored,
            "card_curve": card_curve, "character": traits}


def _rungs(tables: Tables, here: Path, pops: list, players: int) -> pd.DataFrame:
    """One row per rung: its spec, games, whether it anchors, and its distance to people."""
    from wsim.people import distance as distance_mod
    from wsim.people.columns import has_people, people
    from wsim.people.seats import dataset_aggregate

    rows = []
    for i, pop in enumerate(pops):
        d = None
        if has_people(players, tables.edition):
            d = distance_mod.distance(dataset_aggregate(here / pop.name, tables, pop.name), people(), players)
        rows.append({"players": players, "order": i, "rung": pop.name, "spec": pop.spec, "games": pop.games,
                     "anchor": int(pop.name == ANCHOR), "people_chi2": d.chi2 if d else float("nan"),
                     "people_df": d.df if d else float("nan"), "people_p": d.p_value if d else float("nan"),
                     "people_rho": d.spearman if d else float("nan")})
    return pd.DataFrame(rows, columns=list(RUNG_COLUMNS))


def joined(per_count: list) -> dict:
    """Each kind's tables of every count, one after the other (counts ascending)."""
    kinds = per_count[0].keys() if per_count else ()
    return {k: pd.concat([t[k] for t in per_count], ignore_index=True) for k in kinds}


def csv_text(table: pd.DataFrame, name: str) -> bytes:
    """A table's CSV: its contract's columns, 6 significant digits, an empty field for a value
    that cannot be estimated."""
    return table[list(COLUMNS[name])].to_csv(index=False, float_format="%.6g", lineterminator="\n").encode()


def read_back(blob: bytes) -> pd.DataFrame:
    """A table as its CSV holds it (what the pages render)."""
    # games_needed stays text ("", a whole number or "inf"): as a float, a large count would be
    # written back as 1.23457e+06
    return pd.read_csv(io.BytesIO(blob), keep_default_na=False, na_values=[""], dtype={"games_needed": str})
