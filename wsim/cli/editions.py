"""`wsim editions` (docs/interfaces.md §6): the first and the second edition side by side, and each
designer change replayed alone on the first."""

from __future__ import annotations

import click

from wsim import signals
from wsim.cli.options import (SEED, UserError, left_behind, out_folder, out_option, overwrite_option, progress_of,
                              quiet_option)


@click.command("editions")
@click.option("--players", default="3,4,5,6,7", show_default=True, metavar="P[,P...]",
              help="The player counts, 3 to 7 (the second edition has no two-player game).")
@click.option("--populations", default="learned,heuristic", show_default=True, metavar="NAME[,NAME...]",
              help="The populations, each every seat one player: random, greedy, heuristic, specialists, learned "
                   "(the shipped model of each edition); the first also plays the changes.")
@click.option("--games", type=int, default=None,
              help="Games of every population of both editions at each count (one survey) [20,000; --quick 2,000].")
@click.option("--change-games", "change_games", type=int, default=None,
              help="Games of each change's paired experiment, and of its baseline, at each count "
                   "[10,000; --quick 1,000].")
@click.option("--quick", is_flag=True, help="A preview: 2,000 games a survey and 1,000 a change (a size given wins).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="The seed of the deals.")
@click.option("--threads", type=int, default=None, help="Kernel threads, 1..cores [all cores].")
@overwrite_option("comparison")
@click.option("--resume", is_flag=True, help="Complete an interrupted comparison in --out (give its options again).")
@out_option("The comparison's folder (created if missing); what is played goes to OUT/data/.")
@quiet_option
@click.pass_context
def editions_cmd(ctx, players, populations, games, change_games, quick, seed, threads, overwrite, resume, out, quiet):
    """What did the designer change? Both editions played side by side at every player count
    under the populations (the same seeds), and every change that can be replayed alone on the
    first edition played as a paired experiment (wsim ablate's): OUT/sides.csv, spread.csv,
    cards.csv, changes.csv, whole.csv and summary.txt."""
    from wsim.api.editions import editions

    if ctx.obj.get("data") is not None:
        raise UserError("--data, --edition (or WSIM_DATA): wsim editions plays the two shipped data files, "
                        "wsim/data/cards.yaml and cards-2e.yaml; give neither")
    folder = out_folder(out)

    def on_stage(text):
        if not quiet:
            click.echo(text, err=True)

    try:
        result = editions(out=folder, players=players, populations=populations, games=games,
                          change_games=change_games, quick=quick, seed=seed, threads=threads, overwrite=overwrite,
                          resume=resume, progress=progress_of(ctx, quiet), on_stage=on_stage)
    except (KeyboardInterrupt, signals.Terminated) as e:
        left_behind(e, "what was played is kept (complete the comparison with --resume)" if not overwrite
                    else "the folder is as it was")
        raise
    click.echo(result.summary, nl=False)
    click.echo(f"editions: {folder} ({', '.join(result.files)})")
