"""The two editions compared from Python: `wsim.editions` (docs/interfaces.md §6), the function
`wsim editions` calls.

It writes the same folder as the command (the output rules of docs/interfaces.md §0) and returns
the comparison, whose `.sides`, `.spread`, `.cards`, `.changes` and `.whole` are the CSVs'
DataFrames and `.summary` the text of summary.txt. It needs the analysis extra.
"""

from __future__ import annotations

from wsim.api.analysis import _names, analysis_extra
from wsim.api.runs import folder_arg, settings_error, threads_checked, write_mode
from wsim.errors import callback, count_list, flag, optional_whole, progress_value, whole_number
from wsim.run.lock import KERNEL_LOCK


def editions(*, out, players="3,4,5,6,7", populations="learned,heuristic", games=None, change_games=None,
             quick: bool = False, seed: int = 0, threads=None, overwrite: bool = False, resume: bool = False,
             progress=False, on_stage=None):
    """The first and the second edition side by side (`wsim editions`): each edition's
    `populations` (a list, or "learned,heuristic") played on the same seeds at every count of
    `players` (3 to 7), and every designer change that can be replayed alone on the first edition
    played as a paired experiment under the first population; writes `out` and returns the
    comparison (`.sides`, `.spread`, `.cards`, `.changes`, `.whole`: DataFrames; `.summary`: the
    text; `.files`). games: each survey's games (None: 20,000, quick 2,000); change_games: each
    change's (None: 10,000, quick 1,000). on_stage(text) hears each stage; progress: True
    (drawn on stderr), False or a function receiving each wsim.run.progress.Update."""
    from wsim import tables as tables_mod
    from wsim.run.settings import MAX_SEED

    folder = folder_arg(out)
    mode = write_mode(overwrite, resume)
    counts = count_list(players)
    names = _names(populations, "populations", "population names such as 'learned,heuristic'")
    quick = flag(quick, "quick")
    sizes = {name: optional_whole(value, name, 10, 10**8)
             for name, value in (("games", games), ("change_games", change_games))}
    seed = whole_number(seed, "seed", 0, MAX_SEED)
    progress = progress_value(progress)
    callback(on_stage, "on_stage")
    analysis_extra()
    threads_checked(threads)
    from wsim.analysis.editions import precheck, run_editions
    from wsim.analysis.editions_plan import make_plan, prepare

    first, second = (tables_mod.load(tables_mod.edition_path(e)) for e in (1, 2))
    with settings_error():
        plan = make_plan(first, second, counts, [n.strip() for n in names], seed, quick, **sizes)
        precheck(folder, mode)
        prepared = prepare(first, second, plan)
    with settings_error(), KERNEL_LOCK:
        return run_editions(prepared, plan, folder, mode, progress=progress, on_stage=on_stage, threads=threads)
