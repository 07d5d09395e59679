"""`wsim people`: populations of simulated players held against 8,357 human games (docs/people.md)."""

from __future__ import annotations

import sys

import click

from wsim import signals
from wsim.analysis.populations import builtin_help
from wsim.cli.options import (SEED, left_behind, out_folder, out_option, overwrite_option, progress_of,
                              quiet_option)
from wsim.cli.render import duration
from wsim.run.settings import LONG_RUN_GAMES


@click.command("people")
@click.argument("datasets", nargs=-1, metavar="[DATASET|NAME=DATASET]...")
@click.option("--population", "populations", multiple=True, metavar="NAME=POLICIES[@GAMES]",
              help="A population played at every --players count: the policies of every seat (as --policies takes "
                   "them, or one for all seats), on the first GAMES games (repeatable) [without a DATASET or "
                   "--population, the built-in set: " + builtin_help() + "].")
@click.option("--players", default="3,4,5,6,7", show_default=True, metavar="P[,P...]",
              help="The player counts compared (people's games are at 3 to 7).")
@click.option("--games", type=click.IntRange(*LONG_RUN_GAMES), default=20_000, show_default=True,
              help="Games of every population at every count; @GAMES gives a population fewer.")
@click.option("--seed", type=SEED, default=0, show_default=True, help="The seed of the deals.")
@click.option("--sides", type=click.Choice(["B", "random"]), default="B", show_default=True,
              help="The populations' wonder sides: B matches people's all-B tables, which the comparison uses "
                   "where it can.")
@click.option("--policy-param", "policy_param", multiple=True, metavar="NAME.KEY=VALUE",
              help="A parameter of a policy or label, in every population that has it (repeatable).")
@click.option("--threads", type=int, default=None, help="Kernel threads, 1..cores [all cores].")
@overwrite_option("report")
@click.option("--resume", is_flag=True, help="Complete an interrupted run in --out (give its options again).")
@out_option("Report folder (created if missing); each population's dataset goes to OUT/data/NAME-P/.")
@quiet_option
@click.pass_context
def people_cmd(ctx, datasets, populations, players, games, seed, sides, policy_param, threads, overwrite, resume,
               out, quiet):
    """Simulated players against people: each DATASET (a dataset folder, named by its folder or
    NAME=DATASET) and each --population (played at every --players count) held against 8,357 Board
    Game Arena games, count by count: the distance of the boards' first-place shares (a Wald χ²),
    the boards' first and last places, score level, points by category, behaviour, winners'
    profile and a per-board breakdown. Writes OUT/index.html, boards.csv, lasts.csv, play.csv,
    breakdown.csv and distance.csv (docs/people.md). People's games are of the first edition:
    with --edition 2 (or a second-edition dataset) the command is refused."""
    from wsim.api.people import people

    folder = out_folder(out)

    def on_estimate(estimates):
        total = sum(seconds for _, seconds in estimates)
        click.echo(f"estimated play: {duration(total)} for {len(estimates)} runs "
                   f"(the longest: {max(estimates, key=lambda e: e[1])[0]}, {duration(max(s for _, s in estimates))})",
                   err=True)

    def on_run(name, count, result):
        if not quiet and sys.stderr.isatty():  # a line per run: a terminal's, not a log's
            s = result.summary
            click.echo(f"{name} at {count} players: {s.games:,} games in {s.seconds:.1f} s", err=True)

    try:
        result = people(folder, list(datasets), populations=list(populations) or None, players=players, games=games,
                        seed=seed, sides=sides, policy_params=policy_param, threads=threads, overwrite=overwrite,
                        resume=resume, progress=progress_of(ctx, quiet), on_run=on_run,
                        on_estimate=None if quiet else on_estimate, data=ctx.obj.get("data"))
    except (KeyboardInterrupt, signals.Terminated) as e:
        left_behind(e, "whole parts are kept (complete the run with --resume)" if not overwrite
                    else "the report folder is as it was")
        raise
    click.echo(result.text)
    click.echo(f"people: {folder / 'index.html'} ({', '.join(n for n in result.files if n.endswith('.csv'))})")
