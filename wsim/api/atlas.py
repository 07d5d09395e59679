"""The balance atlas from Python: `wsim.balance_atlas` (docs/atlas.md), the function `wsim atlas` calls.

It writes the same site folder as the command (the output rules of docs/interfaces.md §0) and
returns the atlas, whose `.tables` are the site's tables as pandas DataFrames. It needs the
analysis extra.
"""

from __future__ import annotations

from wsim.api.analysis import DATA_FILE, analysis_extra
from wsim.api.runs import folder_arg, settings_error, threads_checked, write_mode
from wsim.errors import WsimError, callback, count_list, flag, optional_path, optional_whole, progress_value, whole_number
from wsim.run.lock import KERNEL_LOCK


def atlas(*, out, players=None, quick: bool = False, games=None, search_games=None, sample=None,
          search_sample=None, skill_games=None, seed: int = 0, data=None, against=None, threads=None, dask=None,
          overwrite: bool = False, resume: bool = False, progress=False, on_stage=None):
    """The balance atlas (`wsim atlas`): the ladder of populations played at every count of
    `players` (None: every count the data's edition plays, 2..7, or 3..7 for the second edition),
    then the static site written to `out`; returns the atlas (`.tables`: its tables,
    `.about`, `.files`). quick: the 5-minute preview's sizes; games, search_games, sample,
    search_sample, skill_games override a size (None: the default's). against: a data file or an
    earlier atlas folder: the difference atlas on the same deals. on_stage(text) hears each stage."""
    from pathlib import Path

    from wsim import tables as tables_mod
    from wsim.run.settings import MAX_SEED

    folder = folder_arg(out)
    mode = write_mode(overwrite, resume)
    counts = None if players is None else count_list(players)  # None: make_plan's default_counts
    seed = whole_number(seed, "seed", 0, MAX_SEED)
    quick = flag(quick, "quick")
    sizes = {name: optional_whole(value, name, 1, 10**8) for name, value in
             (("games", games), ("search_games", search_games), ("sample", sample), ("search_sample", search_sample),
              ("skill_games", skill_games))}
    data = optional_path(data, "data", DATA_FILE)
    against = optional_path(against, "against", "a data file or an earlier atlas folder")
    progress = progress_value(progress)
    callback(on_stage, "on_stage")
    analysis_extra()
    threads_checked(threads, dask)
    from wsim.balance_atlas.plan import make_plan
    from wsim.balance_atlas.site import precheck, run_atlas

    t = tables_mod.load(data)
    plan = make_plan(t, counts, seed, quick, **sizes)
    baseline = None
    if against is not None and Path(against).is_dir():
        baseline = Path(against)  # an earlier atlas: its datasets are the baseline
    elif against is not None:
        try:
            baseline = tables_mod.load(against)
        except WsimError as e:
            raise WsimError(f"--against: {e}") from None
        if baseline.data_sha256 == t.data_sha256:
            raise WsimError(f"--against: {against} holds the same card data as the atlas's: nothing to compare")
    with settings_error():
        precheck(folder, mode)
    with settings_error(), KERNEL_LOCK:
        return run_atlas(t, plan, folder, mode, progress=progress, on_stage=on_stage, dask=dask, threads=threads,
                         against=baseline, against_name=against)
