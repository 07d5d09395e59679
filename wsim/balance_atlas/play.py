"""Playing an atlas (docs/atlas.md): every player count's rungs into SITE/data/P{P}/{rung}/ (each
a dataset written part by part, so an interrupted atlas keeps every whole part), then the
standings sample and the skill runs, each kept in one file beside them once complete. A
resumed atlas plays only what is missing: the same options give the same games, so a resumed
atlas equals an uninterrupted one.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd

from wsim.balance_atlas.plan import ANCHOR, DEFAULT_RUNG, LADDER, AtlasError, Plan, populations
from wsim.dataset import parts
from wsim.dataset.folder import write_file_atomically
from wsim.dataset.write import Request, write_dataset
from wsim.tables import Tables

OPTIONS = "options.json"  # in data/: the options the data was played with (--resume demands them again)
SKILL = "skill.parquet"


def count_dir(data: Path, players: int) -> Path:
    """Where a player count's datasets and samples are kept."""
    return data / f"P{players}"


def standings_file(players_dir: Path, rung: str) -> Path:
    return players_dir / f"standings-{rung}.parquet"


def write_options(data: Path, plan: Plan):
    """Record the plan's options before anything is played."""
    data.mkdir(parents=True, exist_ok=True)
    write_file_atomically(data / OPTIONS, json.dumps(plan.options(), indent=1, sort_keys=True).encode())


def check_options(data: Path, plan: Plan, option: str = "--resume"):
    """Refuse to complete (or compare with) data played with other options."""
    try:
        recorded = json.loads((data / OPTIONS).read_text())
    except (OSError, ValueError):
        raise AtlasError(f"{option}: {data} holds no atlas options ({OPTIONS}): not an atlas's data") from None
    wanted = plan.options()
    for key, value in wanted.items():
        if recorded.get(key) != value:
            raise AtlasError(f"{option}: {data.parent} was played with {key} {recorded.get(key)!r}, these options "
                             f"give {value!r}; give the options of that atlas")


def play_rungs(tables: Tables, plan: Plan, data: Path, players: int, progress, cluster, threads,
               rungs: tuple | None = None) -> list:
    """Every rung's dataset at `players` players (or only `rungs`), completing whole parts already
    there; returns the populations."""
    pops = populations(tables, plan, players)
    here = count_dir(data, players)
    for pop in pops:
        if rungs is not None and pop.name not in rungs:
            continue
        folder = here / pop.name
        resume = folder.is_dir() and bool(parts.part_files(folder))
        if resume and (folder / parts.MANIFEST).exists():
            continue  # complete
        write_dataset(Request(tables, pop.settings, "resume" if resume else "new", threads=threads), folder,
                      progress, cluster, label=f"{players}p {pop.name}")
    return pops


def play_samples(tables: Tables, plan: Plan, data: Path, players: int, pops: list, threads, on_stage):
    """The standings sample of the default and the search rungs, and the skill runs, each kept
    in its file once complete (wsim.balance_atlas.character)."""
    from wsim.balance_atlas import character

    here = count_dir(data, players)
    by_name = {p.name: p for p in pops}
    samples = ((DEFAULT_RUNG, plan.sizes.sample), (ANCHOR, plan.sizes.search_sample))
    for rung, n in samples:
        path = standings_file(here, rung)
        if not path.exists():
            pop = by_name[rung]
            on_stage(f"{players}p: replaying {min(n, pop.games):,} {rung} games for the per-age standings")
            table = character.population_standings(tables, rung, pop.settings, list(range(min(n, pop.games))))
            write_file_atomically(path, parquet_bytes(table))
    path = here / SKILL
    if not path.exists():
        on_stage(f"{players}p: one {ANCHOR} seat against random and against {DEFAULT_RUNG}, "
                 f"{plan.sizes.skill_games:,} games each")
        table = character.skill(tables, labelled(ANCHOR), labelled(DEFAULT_RUNG), players, plan.sizes.skill_games,
                                plan.seed, threads=threads)
        write_file_atomically(path, parquet_bytes(table))


def labelled(rung: str) -> tuple:
    """(POLICY:RUNG, its params under the rung's label) of a ladder rung, as character.skill takes it."""
    policy, params = next((p, own) for name, p, own in LADDER if name == rung)
    return f"{policy}:{rung}", tuple(f"{rung}.{text.partition('.')[2]}" for text in params)


def read_standings(data: Path, players: int, rung: str) -> pd.DataFrame:
    return pd.read_parquet(standings_file(count_dir(data, players), rung))


def read_skill(data: Path, players: int) -> pd.DataFrame:
    return pd.read_parquet(count_dir(data, players) / SKILL)


def parquet_bytes(table: pd.DataFrame) -> bytes:
    """A table as Parquet bytes (the samples kept here, and the site's tables)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(table, preserve_index=False), buf)
    return buf.getvalue()
