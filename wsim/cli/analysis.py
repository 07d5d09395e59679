"""`wsim balance` and `wsim ablate`: balance reports of datasets, and the paired experiment of
card edits (INTERFACES §5). Their libraries (the analysis extra) load only when they run."""

from __future__ import annotations

import os
import sys
from importlib.util import find_spec
from pathlib import Path

import click

from wsim import signals
from wsim.cli.options import (UserError, load_tables, out_folder, out_option, overwrite_option, run_options,
                              run_settings, threads_for)
from wsim.cli.render import paired_text

ANALYSIS_LIBRARIES = ("duckdb", "statsmodels", "matplotlib")


def _analysis_extra():
    """Refuse the command, naming the extra to install, when an analysis library is missing."""
    for name in ANALYSIS_LIBRARIES:
        if find_spec(name) is None:
            raise UserError(f"this command needs the analysis extra ({name} is missing): "
                            "pip install 'wsim[analysis]'")


@click.command("balance")
@click.argument("directory", type=click.Path())
@click.option("--baseline", type=click.Path(), default=None, metavar="DIR0",
              help="A dataset of the same games (seed, games, players, policies) to compare with, game by game.")
@overwrite_option("report")
@out_option("Report folder (created if missing).")
@click.pass_context
def balance_cmd(ctx, directory, baseline, overwrite, out):
    """Balance report of a dataset: REPORT/index.html (plots inline), wonders.csv (win rates with
    Wilson 95% CIs), cards.csv (build and win rates, the adjusted association of each card with
    winning) and, with --baseline, paired.csv (every metric compared game by game).
    """
    from wsim.dataset.folder import output_files

    folder = out_folder(out)
    _analysis_extra()
    from wsim.analysis.balance.report import build, owns

    for option, read in (("DIR", directory), ("--baseline", baseline)):
        # the report folder is locked while the datasets are read: it cannot be one of them
        if read is not None and os.path.realpath(read) == os.path.realpath(out):
            raise UserError(f"--out: {out} is the dataset folder {option} names; give the report a folder of its own")
    t = load_tables(ctx)
    with output_files(folder, owns, overwrite, "report") as commit:
        report = build(Path(directory), t, Path(baseline) if baseline is not None else None)
        commit(report.files)
    if report.paired is not None:
        click.echo(paired_text(report))
    click.echo(f"report: {folder / 'index.html'} ({', '.join(n for n in report.files if n.endswith('.csv'))})")


@click.command("ablate")
@click.option("--edit", "edits", multiple=True, required=True, metavar="EDIT",
              help="CARD.points=N|+N|-N, CARD.coins=N|+N|-N, CARD=neutral or WONDER/SIDE.stageK=neutral (repeatable).")
@run_options
@overwrite_option("report")
@out_option("Report folder (created if missing); the two datasets go to REPORT/data/.")
@click.pass_context
def ablate_cmd(ctx, edits, games, players, seed, policy, policies, policy_param, wonders, sides, manneken_pis,
               threads, chunk_size, dask, overwrite, out):
    """The paired experiment: the same games played with the card data as it is and with the
    edits applied (the deal never changes), then the `wsim balance --baseline` report of the two.
    """
    folder = out_folder(out)
    _analysis_extra()
    from wsim.analysis.ablate import precheck, refuse_edits_out_of_play, run_ablate
    from wsim.analysis.edits import apply_edits

    t = load_tables(ctx)
    edited = apply_edits(t, list(edits))
    settings = run_settings(t, games, players, seed, policy, policies, policy_param, wonders, sides, manneken_pis,
                            chunk_size)
    refuse_edits_out_of_play(t, settings, list(edits))
    threads_for(threads, dask)
    precheck(folder, overwrite)

    def on_run(name, result):
        s = result.summary
        click.echo(f"{name}: {s.games:,} games in {s.seconds:.1f} s", err=True)

    try:
        report, _ = run_ablate(t, edited, settings, folder, overwrite, sys.stderr.isatty(), on_run, dask, threads)
    except (KeyboardInterrupt, signals.Terminated):
        click.echo("\ninterrupted: the report folder is as it was", err=True)
        raise
    click.echo(paired_text(report))
    click.echo(f"report: {folder / 'index.html'}; datasets: {folder / 'data'}")
