"""`wsim ablate`: the paired experiment (INTERFACES §5). The same games are played twice, with
the card data as it is and with the edits applied, into REPORT/data/baseline and
REPORT/data/edited, and the `wsim balance --baseline` report of the two is written beside them.

The whole report folder is staged and swapped in at the end (wsim.dataset.folder), so an
interrupted or failed run leaves the folder as it was.
"""

from __future__ import annotations

from pathlib import Path

from wsim.balance.report import REPORT_FILES, Report, build
from wsim.dataset.folder import OutputFolder, precheck_output
from wsim.settings import Settings
from wsim.simulate import Request, simulate
from wsim.tables import Tables

DATA = "data"
RUNS = ("baseline", "edited")


def owns(name: str) -> bool:
    """The entries `wsim ablate` writes (and replaces with --overwrite): the report's files and
    the folder of the two datasets."""
    return name in REPORT_FILES or name == DATA


def precheck(out: Path, overwrite: bool):
    """Refusals before any game is played."""
    precheck_output(out, overwrite, "report")


def run_ablate(base: Tables, edited: Tables, settings: Settings, out: Path, overwrite: bool, progress: bool,
               on_run=None, dask: str | None = None, threads: int | None = None) -> tuple:
    """Play the two runs and write the report; returns (Report, [Result of each run]).
    on_run(name, result) is called after each run; dask and threads as for `wsim simulate`."""
    precheck(out, overwrite)
    cluster = None
    if dask is not None:  # one cluster for both runs, connected before the folder is touched
        from wsim.cluster import connect

        cluster = connect(dask, threads or 1)
    try:
        return _run(base, edited, settings, out, overwrite, progress, on_run, cluster, threads)
    finally:
        if cluster is not None:
            cluster.close()


def _run(base: Tables, edited: Tables, settings: Settings, out: Path, overwrite: bool, progress: bool, on_run,
         cluster, threads: int | None) -> tuple:
    """run_ablate in its folder, on `cluster` if one is given."""
    with OutputFolder(out, owns=owns) as folder:
        old = folder.replaced(overwrite, "report")
        folder.begin_replacement()  # even into an empty folder: an interrupted run leaves nothing
        try:
            staged = folder.target / DATA
            results = []
            for name, t in zip(RUNS, (base, edited)):
                result = simulate(Request(t, settings, "new", threads=threads), staged / name, progress, cluster)
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
