"""`wsim balance`, `wsim ablate`, `wsim survey` and `wsim rebalance`: balance reports of datasets, the paired
experiment of card edits, populations side by side, and the search for edits that even the boards
(docs/interfaces.md §5, §6). Their libraries
(the analysis extra) load only when they run."""

from __future__ import annotations

import sys

import click

from wsim import signals
from wsim.analysis.populations import builtin_help
from wsim.cli.options import (SEED, UserError, left_behind, load_tables, out_folder, out_option, overwrite_option, policy_names,
                              progress_of, quiet_option, run_options, run_settings)
from wsim.cli.render import duration, paired_text, play_text, population_line, verdict_text
from wsim.run.settings import LONG_RUN_GAMES, MAX_CHUNK, REBALANCE_MAX_GAMES

@click.command("balance")
@click.argument("directory", type=click.Path())
@click.option("--baseline", type=click.Path(), default=None, metavar="DIR0",
              help="A dataset of the same games (seed, games, players, policies) to compare with, game by game.")
@click.option("--practical", type=float, default=None, metavar="FRACTION",
              help="The practical threshold, a fraction of the fair share: a significant side or card closer to "
                   "fair than this is 'fair enough', not a finding [0.08: 2 points of win share at 4 players].")
@overwrite_option("report")
@out_option("Report folder (created if missing).")
@click.pass_context
def balance_cmd(ctx, directory, baseline, practical, overwrite, out):
    """Balance report of a dataset: REPORT/index.html (a verdict per wonder side and card, plots
    inline), wonders.csv (win rates with Wilson 95% CIs, their distance from fair in points of win
    share and in VP), cards.csv (build and win rates, the adjusted association of each card with
    winning) and, with --baseline, paired.csv (every metric compared game by game).
    """
    from wsim.api.analysis import balance

    folder = out_folder(out)
    report = balance(directory, out=folder, baseline=baseline, overwrite=overwrite, data=ctx.obj.get("data"),
                     practical=practical)
    echo_people(report.people_lines)
    if report.paired is not None:
        click.echo(paired_text(report))
    click.echo(f"report: {folder / 'index.html'} ({', '.join(n for n in report.files if n.endswith('.csv'))})")


@click.command("ablate")
@click.option("--edit", "edits", multiple=True, metavar="EDIT",
              help="CARD.points=N|+N|-N, CARD.coins=..., SUBJECT.cost=RES:N,...|+=RES|-=RES, "
                   "CARD.chain_to=LATER, CARD=neutral or WONDER/SIDE.stageK=neutral (repeatable).")
@click.option("--against", metavar="FILE", type=click.Path(dir_okay=False),
              help="Play this data file as the baseline (the --data file, with any edits, is the edited run).")
@run_options(LONG_RUN_GAMES, "10^9")
@overwrite_option("report")
@out_option("Report folder (created if missing); the two datasets go to REPORT/data/.")
@quiet_option
@click.pass_context
def ablate_cmd(ctx, edits, against, games, players, seed, policy, policies, policy_param, wonders, sides,
               manneken_pis, threads, chunk_size, dask, overwrite, out, quiet):
    """The paired experiment: the same games played with the card data as it is and with the
    edits applied (the deal never changes), then the `wsim balance --baseline` report of the two.
    With --against A.yaml, A is the baseline and the --data file (and its edits) the edited run.
    """
    from wsim.api.analysis import ablate

    if not edits and against is None:
        raise click.UsageError("give --edit (one or more) or --against FILE")
    folder = out_folder(out)
    # the options checked as simulate checks them, its messages naming --policy or --policies
    run_settings(load_tables(ctx), games, players, seed, policy, policies, policy_param, wonders, sides,
                 manneken_pis, chunk_size)

    def on_run(name, result):
        if not quiet:
            s = result.summary
            click.echo(f"{name}: {s.games:,} games in {s.seconds:.1f} s", err=True)

    try:
        report = ablate(list(edits), out=folder, against=against, games=games, players=players,
                        policies=policy_names(policy, policies, players)[0], policy_params=policy_param, seed=seed,
                        wonders=wonders, sides=sides, manneken_pis=manneken_pis, data=ctx.obj.get("data"),
                        threads=threads, chunk_size=chunk_size, dask=dask, overwrite=overwrite,
                        progress=progress_of(ctx, quiet), on_run=on_run, on_event=click.echo)
    except (KeyboardInterrupt, signals.Terminated) as e:
        left_behind(e, "the report folder is as it was")
        raise
    echo_people(report.people_lines)
    click.echo(paired_text(report))
    click.echo(f"report: {folder / 'index.html'}; datasets: {folder / 'data'}")


@click.command("survey")
@click.option("--population", "populations", multiple=True, metavar="NAME=POLICIES[@GAMES]",
              help="A population: the policies of every seat (as --policies takes them, or one for all seats), on "
                   "the first GAMES games (repeatable) [the built-in set: " + builtin_help() + "].")
@click.option("--players", type=int, default=4, show_default=True, help="Players per game, 2..7.")
@click.option("--games", type=click.IntRange(*LONG_RUN_GAMES), default=20_000, show_default=True,
              help="Games of every population (the same deals for all); @GAMES gives a population fewer.")
@click.option("--seed", type=SEED, default=0, show_default=True, help="The seed of the deals.")
@click.option("--policy-param", "policy_param", multiple=True, metavar="NAME.KEY=VALUE",
              help="A parameter of a policy or label, in every population that has it (repeatable); "
                   "heuristic.weights=NAME takes a shipped weights file: tuned, handset, science, military, civilian.")
@click.option("--wonders", default="random", show_default=True, metavar="random|fixed:ID/SIDE,...",
              help="As for simulate.")
@click.option("--sides", type=click.Choice(["random", "A", "B"]), default="random", show_default=True,
              help="Wonder sides.")
@click.option("--manneken-pis", "manneken_pis", is_flag=True, help="Put the Manneken Pis promo board in the pool.")
@click.option("--chunk-size", type=click.IntRange(1, MAX_CHUNK), default=100_000, show_default=True,
              help="Games per Parquet part of each population's dataset.")
@click.option("--threads", type=int, default=None, help="Kernel threads, 1..cores [all cores].")
@click.option("--dask", default=None, metavar="tcp://HOST:PORT|local:W",
              help="Play the parts as tasks on a Dask cluster (see simulate). Needs wsim[dask].")
@click.option("--reference", type=click.Path(dir_okay=False), default=None, metavar="FILE|people",
              help="Your own games: CSV players,wonder,side,seats,wins (side A, B or * for both), held against "
                   "every population; `people`: the 8,357 Board Game Arena games wsim ships, first edition only "
                   "(./people for a file of that name).")
@click.option("--anchor", default=None, metavar="NAME",
              help="The population the anchored verdicts (act, don't act, not yet) rest on; the one listed before "
                   "it is the next rung down [the last population].")
@overwrite_option("survey")
@click.option("--resume", is_flag=True, help="Complete an interrupted survey in --out (give its options again).")
@out_option("Report folder (created if missing); each population's dataset goes to REPORT/data/NAME/.")
@quiet_option
@click.pass_context
def survey_cmd(ctx, populations, players, games, seed, policy_param, wonders, sides, manneken_pis, chunk_size,
               threads, dask, reference, anchor, overwrite, resume, out, quiet):
    """The same deals played by several populations of players, side by side: win rates by wonder
    side, card effects, and a verdict on each (robust, depends on population, not resolved), and
    one anchored on the strongest population (act, don't act, not yet). Writes REPORT/index.html,
    survey.csv, verdicts.csv, card_verdicts.csv, pairs.csv, anchored.csv, card_anchored.csv (and
    reference.csv with --reference)."""
    from wsim.api.analysis import survey

    folder = out_folder(out)

    def on_estimate(estimates):
        for pop, seconds in estimates:
            click.echo(f"  {population_line(pop, seconds)}", err=True)
        total = sum(s for _, s in estimates)
        click.echo(f"estimated play: {duration(total)} for {len(estimates)} populations, then the analysis", err=True)

    def on_run(pop, result):
        if not quiet and sys.stderr.isatty():  # a line per population: a terminal's, not a log's
            s = result.summary
            click.echo(f"{pop.name}: {s.games:,} games in {s.seconds:.1f} s", err=True)

    try:
        result = survey(out=folder, populations=list(populations) or None, players=players, games=games, seed=seed,
                        policy_params=policy_param, wonders=wonders, sides=sides, manneken_pis=manneken_pis,
                        chunk_size=chunk_size, data=ctx.obj.get("data"), threads=threads, dask=dask,
                        reference=reference, anchor=anchor, overwrite=overwrite, resume=resume,
                        progress=progress_of(ctx, quiet),
                        on_estimate=None if quiet else on_estimate, on_run=on_run)
    except (KeyboardInterrupt, signals.Terminated) as e:
        left_behind(e, "whole parts are kept (complete the survey with --resume)" if not overwrite
                    else "the survey folder is as it was")
        raise
    echo_people(result.people_lines)
    click.echo(verdict_text(result))
    click.echo(play_text(result.play))
    click.echo(f"survey: {folder / 'index.html'} ({', '.join(n for n in result.files if n.endswith('.csv'))})")


@click.command("rebalance")
@click.option("--players", default="4", show_default=True, metavar="P[,P...]",
              help="The player counts every side must be fair at (one data file serves them all).")
@click.option("--population", "population", multiple=True, metavar="[NAME=]POLICIES",
              help="The players: POLICIES as --policies takes them (one for every seat), e.g. a survey population "
                   "(one population; given twice, refused) [heuristic].")
@click.option("--policy-param", "policy_param", multiple=True, metavar="NAME.KEY=VALUE",
              help="A parameter of the population's policies (repeatable).")
@click.option("--levers", default="stages", show_default=True, metavar="stages|cards|both[:WONDER|CARD,...]",
              help="What may change: wonder stages, cards or both, optionally only the named wonders or cards.")
@click.option("--fields", default="points", show_default=True, metavar="points,coins,costs",
              help="The numbers edited, a comma list: points, coins (both: points,coins) and costs (every count of "
                   "a cost: its resources, and a card's coins).")
@click.option("--cost-kinds", "cost_kinds", type=click.Choice(["kept", "any"]), default="kept", show_default=True,
              help="With costs: only the kinds a cost already holds change (kept), or any resource may join (any).")
@click.option("--tolerance", type=float, default=None,
              help="How far from the fair share a side's win rate may be, e.g. 0.05 [0.04].")
@click.option("--max-edits", "max_edits", type=int, default=None, help="At most this many numbers edited [6].")
@click.option("--max-change", "max_change", type=int, default=None, help="Each edit at most ±N [3].")
@click.option("--max-resources", "max_resources", type=int, default=None,
              help="With costs: at most K resource units added or taken, over every cost [no limit of its own].")
@click.option("--max-steps", "max_steps", type=int, default=None,
              help="Measure-solve-verify steps at most [4].")
@click.option("--games", type=click.IntRange(*REBALANCE_MAX_GAMES), default=20_000, show_default=True,
              help="Games of each paired measurement (and at least of the held-out run), at most --max-games.")
@click.option("--max-games", "max_games", type=click.IntRange(*REBALANCE_MAX_GAMES), default=10**7,
              show_default=True, help="The held-out run's games at most: a --tolerance that needs more is refused "
              "before anything is played.")
@click.option("--seed", type=SEED, default=0, show_default=True, help="The seed (steps use SEED+step; the held-out "
              "run SEED+1000003).")
@click.option("--manneken-pis", "manneken_pis", is_flag=True, help="Put the Manneken Pis promo board in the pool.")
@click.option("--threads", type=int, default=None, help="Kernel threads, 1..cores [all cores].")
@click.option("--dask", default=None, metavar="tcp://HOST:PORT|local:W",
              help="Play the runs as tasks on a Dask cluster (see simulate); a rollout population needs it.")
@overwrite_option("report")
@out_option("Report folder (created if missing).")
@quiet_option
@click.pass_context
def rebalance_cmd(ctx, players, population, policy_param, levers, fields, cost_kinds, tolerance, max_edits,
                  max_change, max_resources, max_steps, games, max_games, seed, manneken_pis, threads, dask,
                  overwrite, out, quiet):
    """The smallest edit of the printed numbers (fewest numbers, then least change) after which
    every wonder side's win rate is within --tolerance of the fair share at every player count of
    --players, verified on held-out games. Writes REPORT/edits.txt, cards.yaml, result.csv,
    path.csv, path_rates.csv and index.html (docs/rebalance.md)."""
    from wsim.api.analysis import rebalance

    folder = out_folder(out)
    if len(population) > 1:  # click keeps the last of a repeated option: the search would forget the others
        raise UserError(f"--population: a rebalance searches for one population, got {len(population)}: "
                        f"{', '.join(population)} (compare populations with wsim survey)")
    population = population[0] if population else "heuristic"

    def on_estimate(seconds, count):
        click.echo(f"estimated play: at most {duration(seconds)} ({count:,} games; a search that succeeds "
                   "early stops early)", err=True)

    try:
        result = rebalance(out=folder, players=players, population=population, policy_params=policy_param,
                           levers=levers, fields=fields, cost_kinds=cost_kinds, tolerance=tolerance,
                           max_edits=max_edits, max_change=max_change, max_resources=max_resources,
                           max_steps=max_steps, games=games, max_games=max_games, seed=seed,
                           manneken_pis=manneken_pis, data=ctx.obj.get("data"), threads=threads, dask=dask,
                           overwrite=overwrite, progress=progress_of(ctx, quiet),
                           on_estimate=None if quiet else on_estimate)
    except (KeyboardInterrupt, signals.Terminated) as e:
        left_behind(e, "the report folder is as it was (a search run again from the start gives the same result)")
        raise
    echo_people(result.people_lines)
    click.echo("edits: " + (" ".join(result.edits) or "none"))
    click.echo(f"report: {folder / 'index.html'}")
    click.echo(f"solved: {'yes' if result.solved else 'no'}, max deviation {result.max_deviation:.4f} on held-out games")


def echo_people(lines: list):
    """A report's first lines: who played and how far they are from people (docs/people.md)."""
    for line in lines:
        click.echo(line)
