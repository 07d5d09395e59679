"""`wsim ablate`: the paired experiment (docs/interfaces.md §5). The same games are played twice, with
the card data as it is and with the edits applied, into REPORT/data/baseline and
REPORT/data/edited, and the `wsim balance --baseline` report of the two is written beside them.

The whole report folder is staged and swapped in at the end (wsim.dataset.folder), so an
interrupted or failed run leaves the folder as it was.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from wsim.analysis.balance.report import REPORT_FILES, Report, build
from wsim.codes import PURPLE
from wsim.dataset.folder import OutputFolder, precheck_output
from wsim.dataset.write import Request, write_dataset
from wsim.analysis.edits import EditError, apply_edits, deal_differences
from wsim.errors import brief
from wsim.run.settings import Settings
from wsim.tables import Tables

DATA = "data"
RUNS = ("baseline", "edited")


def owns(name: str) -> bool:
    """The entries `wsim ablate` writes (and replaces with --overwrite): the report's files and
    the folder of the two datasets."""
    return name in REPORT_FILES or name == DATA


def refuse_edits_out_of_play(base: Tables, settings: Settings, edits: list):
    """Refuse (EditError), before anything is played, an edit that changes nothing, or only
    cards, boards or sides that no game of the run deals: the edited run would be the baseline
    again, every paired difference zero. What an edit changes is read from the compiled tables
    (the entities that differ once it is applied after the edits before it); what the run
    deals, from its settings."""
    dealt = _Dealt(base, settings)
    before = base
    for i, edit in enumerate(edits):
        after = apply_edits(base, edits[:i + 1])
        if after.card_names != before.card_names:  # a card replaced: in play where its copies are dealt
            replaced = deal_differences(before, after)
            if not any(not counts or settings.cities in counts for _, _, counts in replaced):
                raise EditError(f"--edit {brief(edit)}: {replaced[0][0]} is not in play in these games (no copy "
                                f"replaced in a {settings.cities}-player deck)")
            before = after
            continue
        changed = [int(e) for e in np.flatnonzero((after.ent != before.ent).any(axis=1))]
        if not changed:
            raise EditError(f"--edit {brief(edit)}: changes nothing (the data says so already)")
        if not any(e in dealt for e in changed):
            raise EditError(f"--edit {brief(edit)}: {dealt.why_not(changed[0])}")
        before = after


class _Dealt:
    """The entities the games of a run can deal (`e in dealt`): the cards of the deck of its
    player count (every guild may be dealt), the stages of the boards and sides some city may
    get from --wonders, --sides and --manneken-pis."""

    def __init__(self, t: Tables, settings: Settings):
        self.t, self.settings = t, settings
        self.stages = {int(t.stage_entity(b, s, k)): (b, s) for b in range(t.n_boards) for s in (0, 1)
                       for k in range(t.board_stages[b, s])}
        self.sides = settings.boards_in_play(t)  # board -> the sides (0 A, 1 B) a city may get it with

    def __contains__(self, e: int) -> bool:
        if e < self.t.n_cards:
            return self.t.ent_kind[e] == PURPLE or self.t.card_copies[e, self.settings.cities] > 0
        if e in self.stages:
            board, side = self.stages[e]
            return side in self.sides.get(board, ())
        return True

    def why_not(self, e: int) -> str:
        """Why entity e, not dealt, is out of play (for the message)."""
        t, settings = self.t, self.settings
        if e < t.n_cards:
            return f"{t.card_names[e]} is not in play in these games (no copy in a {settings.cities}-player deck)"
        board, side = self.stages[e]
        wid = t.board_ids[board]
        fixed = dict(settings.wonders)  # wonder id -> its side, "" when --sides decides
        if board not in self.sides:
            how = (f"--wonders fixed: deals {', '.join(fixed)}" if fixed
                   else "add --manneken-pis, or name it in --wonders fixed:")
            return f"{wid} is not in play in these games ({how})"
        how = f"--wonders fixed: deals {wid} side {fixed[wid]}" if fixed.get(wid) else f"--sides {settings.sides}"
        return f"{wid}/{'AB'[side]} is not in play in these games ({how})"


def precheck(out: Path, overwrite: bool):
    """Refusals before any game is played."""
    precheck_output(out, overwrite, "report")


def run_ablate(base: Tables, edited: Tables, settings: Settings, out: Path, overwrite: bool, progress,
               on_run=None, dask: str | None = None, threads: int | None = None) -> tuple:
    """Play the two runs and write the report; returns (Report, [Result of each run]).
    on_run(name, result) is called after each run; dask and threads as for `wsim simulate`."""
    precheck(out, overwrite)
    from wsim.run.cluster import optional_cluster

    with optional_cluster(dask, threads) as cluster:  # one cluster for both runs
        return _run(base, edited, settings, out, overwrite, progress, on_run, cluster, threads)


def _run(base: Tables, edited: Tables, settings: Settings, out: Path, overwrite: bool, progress, on_run,
         cluster, threads: int | None) -> tuple:
    """run_ablate in its folder, on `cluster` if one is given."""
    with OutputFolder(out, owns=owns) as folder:
        old = folder.replaced(overwrite, "report", folders=(DATA,))
        folder.begin_replacement()  # even into an empty folder: an interrupted run leaves nothing
        try:
            staged = folder.target / DATA
            results = []
            for name, t in zip(RUNS, (base, edited)):
                result = write_dataset(Request(t, settings, "new", threads=threads), staged / name, progress, cluster,
                                       label=name)
                results.append(result)
                if on_run is not None:
                    on_run(name, result)
            report: Report = build(staged / "edited", base, staged / "baseline",
                                   names=(str(out / DATA / "edited"), str(out / DATA / "baseline")))
            for name, data in report.files.items():
                folder.write(name, data)
            folder.sync()
            folder.commit(old, [DATA] + list(report.files))
        except BaseException:
            folder.abort()
            raise
    return report, results
