"""`wsim atlas` (docs/atlas.md): the whole base game's balance at every player count, one static site."""

from __future__ import annotations

import click

from wsim import signals
from wsim.cli.options import SEED, left_behind, out_folder, out_option, overwrite_option, progress_of, quiet_option


@click.command("atlas")
@click.option("--players", default=None, metavar="P[,P...]",
              help="The player counts of the atlas [every count the edition plays: 2,3,4,5,6,7; with --edition 2, "
                   "3,4,5,6,7].")
@click.option("--quick", is_flag=True,
              help="A 5-minute preview: 4,000 games a rung, 100 of search, small samples (any size given wins).")
@click.option("--games", type=int, default=None, help="Games of every rung below search [40,000; --quick 4,000].")
@click.option("--search-games", "search_games", type=int, default=None,
              help="Games of the search rung, the first of the same deals [2,000; --quick 100].")
@click.option("--sample", type=int, default=None,
              help="Games of the default rung (learned) replayed for the per-age standings [400; --quick 60].")
@click.option("--search-sample", "search_sample", type=int, default=None,
              help="Games of the search rung replayed likewise [150; --quick 20].")
@click.option("--skill-games", "skill_games", type=int, default=None,
              help="Games of one search seat against random, and against learned [500; --quick 60].")
@click.option("--seed", type=SEED, default=0, show_default=True, help="The seed of the deals.")
@click.option("--against", type=click.Path(), default=None, metavar="FILE|ATLAS",
              help="A data file, or an earlier atlas folder: a difference atlas on the same deals (what moved).")
@click.option("--threads", type=int, default=None, help="Kernel threads, 1..cores [all cores].")
@click.option("--dask", default=None, metavar="tcp://HOST:PORT|local:W",
              help="Play the rungs' parts as tasks on a Dask cluster (see simulate). Needs wsim[dask].")
@overwrite_option("atlas")
@click.option("--resume", is_flag=True, help="Complete an interrupted atlas in --out (give its options again).")
@out_option("The site's folder (created if missing); what is played goes to SITE/data/.")
@quiet_option
@click.pass_context
def atlas_cmd(ctx, players, quick, games, search_games, sample, search_sample, skill_games, seed, against, threads,
              dask, overwrite, resume, out, quiet):
    """The balance atlas: the ladder random → greedy → heuristic → learned → search played at
    every player count on the same deals, then one static site: SITE/index.html (the headline
    findings, a grid of counts × sides), a page per count, per wonder side and per card, and
    SITE/tables/ (CSV and Parquet)."""
    from wsim.api.atlas import atlas

    folder = out_folder(out)

    def on_stage(text):
        if not quiet:
            click.echo(text, err=True)

    try:
        result = atlas(out=folder, players=players, quick=quick, games=games, search_games=search_games,
                       sample=sample, search_sample=search_sample, skill_games=skill_games, seed=seed,
                       data=ctx.obj.get("data"), against=against, threads=threads, dask=dask, overwrite=overwrite,
                       resume=resume, progress=progress_of(ctx, quiet), on_stage=on_stage)
    except (KeyboardInterrupt, signals.Terminated) as e:
        left_behind(e, "what was played is kept (complete the atlas with --resume)" if not overwrite
                    else "the atlas folder is as it was")
        raise
    for r in result.tables["findings"].itertuples():
        click.echo(f"- {r.sentence}")
    click.echo(f"atlas: {folder / 'index.html'} ({len(result.files)} entries; tables in {folder / 'tables'})")
