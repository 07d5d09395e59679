"""`wsim editions` (docs/interfaces.md §6): what the designer changed from the first edition to
the second, measured. Both editions are played side by side at every player count under a few
populations (the same seeds: one survey of the populations per edition and count), and every
change that can be replayed alone on the first edition (wsim.analysis.edition_changes) is played
as a paired experiment under the first population, ablate's way: the first edition's data with
the change's --edits against the unedited first edition, on the same deals.

OUT/data/ holds what was played, written in place (an interrupted run keeps every whole dataset
and `--resume` completes it, refusing options other than those recorded in data/options.json):
    data/edition-E/P{P}/NAME/      a population's dataset of edition E at P players
    data/changes/P{P}/baseline/    the first population on the unedited first edition
    data/changes/P{P}/CHANGE/      the same games with the change's edits
The tables (wsim.analysis.editions_tables) and summary.txt are written last, all at once; with
`--overwrite` everything is staged and swapped in at the end (the old folder stays until then).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from wsim.analysis.editions_plan import (BASELINE, DATA, EDITIONS, FILES, OPTIONS, SUMMARY, EditionsError, Plan,
                                         Prepared, change_dir, edition_dir)
from wsim.analysis.editions_tables import build
from wsim.dataset import parts
from wsim.dataset.folder import OutputFolder, entries_before_lock, refuse_resumable, write_file_atomically
from wsim.dataset.write import Request, write_dataset
from wsim.errors import brief
from wsim.tables import Tables


def owns(name: str) -> bool:
    """The entries `wsim editions` writes (and replaces with --overwrite)."""
    return name in FILES or name == DATA


# ---------------------------------------------------------------------------------------------
# Playing

def _play(tables: Tables, settings, folder: Path, progress, threads, label: str):
    """One dataset, completed from its whole parts if some are there; nothing if it is complete."""
    resume = folder.is_dir() and bool(parts.part_files(folder))
    if resume and (folder / parts.MANIFEST).exists():
        return
    write_dataset(Request(tables, settings, "resume" if resume else "new", threads=threads), folder, progress,
                  label=label)


def play_count(prepared: Prepared, plan: Plan, data: Path, players: int, progress, threads, on_stage):
    """Every dataset of one player count: each edition's populations, then the change runs."""
    for edition in EDITIONS:
        pops = prepared.pops[edition, players]
        on_stage(f"{players}p: edition {edition}: {', '.join(p.name for p in pops)} on {plan.sizes.games:,} games")
        for pop in pops:
            _play(prepared.tables[edition], pop.settings, edition_dir(data, edition, players) / pop.name, progress,
                  threads, f"{players}p e{edition} {pop.name}")
    runs = [c for c in plan.changes if (c.id, players) in prepared.runs]
    on_stage(f"{players}p: {len(runs)} changes and their baseline, {plan.default} on {plan.sizes.change_games:,} "
             "games each")
    here = change_dir(data, players)
    _play(prepared.tables[1], prepared.baseline[players].settings, here / BASELINE, progress, threads,
          f"{players}p {BASELINE}")
    for change in runs:
        edited, pop = prepared.runs[change.id, players]
        _play(edited, pop.settings, here / change.id, progress, threads, f"{players}p {change.id}")


def write_options(data: Path, plan: Plan):
    """Record the plan's options before anything is played (a whole file or none)."""
    data.mkdir(parents=True, exist_ok=True)
    write_file_atomically(data / OPTIONS, json.dumps(plan.options(), indent=1, sort_keys=True).encode())


def check_options(data: Path, plan: Plan):
    """--resume: the data was played with these options, or it is refused."""
    try:
        recorded = json.loads((data / OPTIONS).read_text())
    except (OSError, ValueError):
        raise EditionsError(f"--resume: {data} holds no editions options ({OPTIONS}): not the data of "
                            "`wsim editions`") from None
    for key, value in plan.options().items():
        if recorded.get(key) != value:
            raise EditionsError(f"--resume: {data.parent} was played with {key} {brief(recorded.get(key))}, these "
                                f"options give {brief(value)}; give the options of that run")


# ---------------------------------------------------------------------------------------------
# The folder

def precheck(out: Path, mode: str):
    """Refusals that need no lock (a refused run writes nothing); run_editions checks again under it."""
    _refuse(out, entries_before_lock(out), mode)


def _refuse(out: Path, names: list, mode: str):
    refuse_resumable(out, names, mode, what="comparison", done=SUMMARY, error=EditionsError)


def run_editions(prepared: Prepared, plan: Plan, out: Path, mode: str, *, progress=False, on_stage=None,
                 threads: int | None = None):
    """Play what the comparison still needs (mode "new", "resume" or "overwrite") and write its
    tables; returns wsim.analysis.editions_tables.Editions."""
    precheck(out, mode)
    on_stage = on_stage or (lambda text: None)
    with OutputFolder(out, owns=owns) as folder:
        present = folder.entries()
        _refuse(folder.path, present, mode)
        old = folder.replaced(True, "comparison", folders=(DATA,)) if mode == "overwrite" else []
        if mode == "overwrite":
            folder.begin_replacement()  # everything staged: an interrupted --overwrite changes nothing
        try:
            data = folder.target / DATA
            if mode == "resume" and data.is_dir():
                check_options(data, plan)
            else:
                write_options(data, plan)
            for players in plan.counts:
                started = time.perf_counter()
                play_count(prepared, plan, data, players, progress, threads, on_stage)
                on_stage(f"{players}p: played ({time.perf_counter() - started:.0f} s)")
            result = build(prepared, plan, data, on_stage)
            if mode != "overwrite":
                folder.begin_replacement()  # the tables replace any old ones at once
            for name in FILES:
                folder.write(name, result.files[name])
            folder.sync()
            kept = [n for n in present if n in FILES]
            folder.commit(old if mode == "overwrite" else kept, ([DATA] if mode == "overwrite" else []) + list(FILES))
        except BaseException:
            folder.abort()
            raise
    return result
