"""`wsim atlas` (docs/atlas.md): play the ladder at every player count, then write the site.

SITE/data/ holds what was played (written in place: an interrupted atlas keeps it and `--resume`
completes it); the pages, SITE/tables/ and about.json are written last, all at once. With
`--overwrite` everything is staged and swapped in at the end (the old atlas stays until then).
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from wsim.balance_atlas.plan import AtlasError, Plan
from wsim.dataset.folder import OutputFolder, entries_before_lock, refuse_resumable
from wsim.tables import Tables

DATA, AGAINST, TABLES, ABOUT, INDEX = "data", "against", "tables", "about.json", "index.html"
PAGE = re.compile(r"^(index|players-[2-7]|side-[a-z0-9-]+-[AB]|card-[a-z0-9-]+)\.html$")


def owns(name: str) -> bool:
    """The entries `wsim atlas` writes (and replaces with --overwrite)."""
    return name in (DATA, AGAINST, TABLES, ABOUT) or bool(PAGE.match(name))


@dataclass
class Atlas:
    """A built atlas: its tables (as the CSVs hold them) and the site's files."""

    tables: dict
    about: dict
    files: list = field(default_factory=list)


def precheck(out: Path, mode: str):
    """Refusals that need no lock (a refused atlas writes nothing); run_atlas checks again under it."""
    _refuse(out, entries_before_lock(out), mode)


def _refuse(out: Path, names: list, mode: str):
    refuse_resumable(out, names, mode, what="atlas", done=INDEX, error=AtlasError)


def run_atlas(tables: Tables, plan: Plan, out: Path, mode: str, *, progress=False, on_stage=None,
              dask: str | None = None, threads: int | None = None, against=None, against_name=None) -> Atlas:
    """Play what the atlas still needs (mode "new", "resume" or "overwrite") and write the site.
    against: None, or (Tables, data file name) of a baseline data file, or the Path of an earlier
    atlas: the difference atlas (wsim.balance_atlas.diff)."""
    precheck(out, mode)
    on_stage = on_stage or (lambda text: None)
    from wsim.run.cluster import optional_cluster

    # one cluster for every dataset
    with optional_cluster(dask, threads) as cluster, OutputFolder(out, owns=owns) as folder:
        return _run(tables, plan, folder, mode, progress, on_stage, cluster, threads, against, against_name)


def _run(tables, plan, folder: OutputFolder, mode, progress, on_stage, cluster, threads, against, against_name) -> Atlas:
    from wsim.balance_atlas import play

    present = folder.entries()
    _refuse(folder.path, present, mode)
    if isinstance(against, Path):
        from wsim.balance_atlas.diff import check_baseline

        check_baseline(plan, against)
    old = folder.replaced(True, "atlas", folders=(DATA, AGAINST, TABLES)) if mode == "overwrite" else []
    if mode == "overwrite":
        folder.begin_replacement()  # everything staged: an interrupted --overwrite changes nothing
    try:
        data = folder.target / DATA
        if mode == "resume" and data.is_dir():
            play.check_options(data, plan)
        else:
            play.write_options(data, plan)
        per_count = []
        for players in plan.counts:
            started = time.perf_counter()
            pops = play.play_rungs(tables, plan, data, players, progress, cluster, threads)
            play.play_samples(tables, plan, data, players, pops, threads, on_stage)
            on_stage(f"{players}p: played ({time.perf_counter() - started:.0f} s); making its tables")
            from wsim.balance_atlas.tables import count_tables

            per_count.append(count_tables(tables, plan, data, players, pops))
        moves = None
        if against is not None:
            from wsim.balance_atlas import diff

            moves = diff.moves(tables, plan, data, folder.target / AGAINST, against, progress, cluster, threads,
                               on_stage)
        atlas = _site(tables, plan, per_count, moves, against_name)
        if mode != "overwrite":
            folder.begin_replacement()  # the pages and tables replace any old ones at once
        _write_site(folder, atlas)
        site_names = [n for n in present if owns(n) and n not in (DATA, AGAINST)]
        new = ([DATA] + ([AGAINST] if (folder.target / AGAINST).exists() else []) if mode == "overwrite" else []) + \
            atlas.files
        folder.commit(old if mode == "overwrite" else site_names, new)
    except BaseException:
        folder.abort()
        raise
    return atlas


def _site(tables: Tables, plan: Plan, per_count: list, moves, against_name) -> Atlas:
    """The atlas's tables (read back from their CSV text) and its about record."""
    from wsim.balance_atlas import findings as findings_mod
    from wsim.balance_atlas import tables as atlas_tables

    joined = atlas_tables.joined(per_count)
    joined["findings"] = findings_mod.findings(joined["sides"], joined["cards"], joined["character"],
                                               edition=tables.edition)
    if moves is not None:
        joined["side_moves"], joined["card_moves"] = moves
    shown = {name: atlas_tables.read_back(atlas_tables.csv_text(t, name)) for name, t in joined.items()}
    # a second-edition atlas says so (its pages then claim no people data); a first-edition about.json is as before
    edition = {"edition": tables.edition} if tables.edition != 1 else {}
    about = {"title": "The balance atlas of 7 Wonders" + (" (difference)" if moves is not None else ""),
             "data": tables.source, "data_sha256": tables.data_sha256, **edition, "options": plan.options(),
             "commands": commands(plan, tables, against_name),
             "generated": os.environ.get("WSIM_ATLAS_DATE") or time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    return Atlas(shown, about)


def commands(plan: Plan, tables: Tables, against_name) -> list:
    """The commands that reproduce the atlas: the atlas itself (its folder called SITE), then each
    count's survey of the ladder (the same games)."""
    from wsim.balance_atlas.plan import rung_specs
    from wsim.people.columns import same_edition
    from wsim.tables import DEFAULT_DATA, EDITION_DATA

    data = ("" if tables.source == DEFAULT_DATA else f"--edition {tables.edition} "
            if tables.source == EDITION_DATA.get(tables.edition) else f"--data {tables.source} ")
    reference = "--reference people " if same_edition(tables.edition) else ""  # people's games: first edition
    pops = " ".join(f"--population {name}={spec}" for name, spec, _ in rung_specs(plan))
    params = " ".join(f"--policy-param {p}" for _, _, own in rung_specs(plan) for p in own)
    sizes = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in plan.options().items()
                     if k not in ("players", "seed", "data_sha256"))
    versus = f" --against {against_name}" if against_name is not None else ""
    out = [f"wsim {data}atlas --players {','.join(map(str, plan.counts))} {sizes} --seed {plan.seed}{versus} "
           "--out SITE"]
    for p in plan.counts:
        out.append(f"wsim {data}survey --players {p} --games {plan.sizes.games} --seed {plan.seed} {pops} {params} "
                   f"{reference}--out survey-{p}")
    return out


def _write_site(folder: OutputFolder, atlas: Atlas):
    """The pages, tables/ (CSV and Parquet of each table) and about.json, into the folder's target."""
    from wsim.balance_atlas import pages
    from wsim.balance_atlas import tables as atlas_tables
    from wsim.balance_atlas.play import parquet_bytes

    files = pages.site_pages(atlas.tables, atlas.about)
    (folder.target / TABLES).mkdir(exist_ok=True)
    for name, table in sorted(atlas.tables.items()):
        for suffix, blob in ((".csv", atlas_tables.csv_text(table, name)),
                             (".parquet", parquet_bytes(table))):
            (folder.target / TABLES / f"{name}{suffix}").write_bytes(blob)
    for name, blob in sorted(files.items()):
        folder.write(name, blob)
    folder.write(ABOUT, json.dumps(atlas.about, indent=1, sort_keys=True).encode())
    folder.sync()
    atlas.files = [TABLES] + sorted(files) + [ABOUT]
