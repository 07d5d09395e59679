"""`wsim ladder`, `wsim tune` and `wsim learn`: ranking policies, fitting the heuristic's weights,
training the learned player."""

from __future__ import annotations

from pathlib import Path

import click

from wsim import codes, signals
from wsim.cli.options import SEED, left_behind, out_folder, out_option, overwrite_option, progress_of, quiet_option
from wsim.cli.render import aligned
from wsim.run.settings import LONG_RUN_GAMES, TUNE_GAMES, TUNE_GENERATIONS, TUNE_POPULATION


@click.command("ladder")
@click.option("--policies", required=True, metavar="A,B,...",
              help="The policies to rank (NAME or NAME:LABEL), at least two.")
@click.option("--players", type=int, default=4, show_default=True, help="Players per game, 2..7.")
@click.option("--games", type=click.IntRange(*LONG_RUN_GAMES), default=10_000, show_default=True,
              help="Games per ordered pair of policies.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="The seed: every pair plays the same deals.")
@click.option("--policy-param", "policy_param", multiple=True, metavar="NAME.KEY=VALUE",
              help="A parameter of a policy or label (repeatable).")
@click.option("--threads", type=int, default=None, help="Kernel threads, 1..cores [all cores].")
@click.option("--dask", default=None, metavar="tcp://HOST:PORT|local:W",
              help="Play the games as tasks on a Dask cluster (see simulate). Needs wsim[dask].")
@overwrite_option("ladder")
@out_option("Folder for ladder.csv, ratings.csv and play.csv.")
@quiet_option
@click.pass_context
def ladder_cmd(ctx, policies, players, games, seed, policy_param, threads, dask, overwrite, out, quiet):
    """Every ordered pair (X, Y) of the policies: N games of one X seat against P-1 Y seats, X's
    seat rotating, the same deals for every pair. Writes DIR/ladder.csv (win share with its
    Wilson 95% CI, mean points and margin), DIR/ratings.csv (one openskill rating per policy
    over all games) and DIR/play.csv (how each policy plays: points, categories, coins, stages,
    wins with guild points), and prints them.
    """
    from wsim.api.analysis import ladder

    folder = out_folder(out)
    try:
        result = ladder(policies.split(","), out=folder, players=players, games=games, seed=seed,
                        policy_params=policy_param, data=ctx.obj.get("data"), threads=threads, dask=dask,
                        overwrite=overwrite, progress=progress_of(ctx, quiet))
    except (KeyboardInterrupt, signals.Terminated) as e:
        left_behind(e, "the ladder folder is as it was")
        raise
    click.echo(aligned(result.ladder_text))
    click.echo("")
    click.echo(aligned(result.ratings_text))
    click.echo("\nhow each policy plays (its seats' means, each game it sat in counted once):")
    click.echo(aligned(result.play_text))
    click.echo(f"\nladder: {folder / 'ladder.csv'}, ratings: {folder / 'ratings.csv'}, play: {folder / 'play.csv'}")


@click.command("tune")
@click.option("--policy", type=click.Choice(["heuristic"]), default="heuristic", show_default=True,
              help="The policy whose weights are fitted.")
@click.option("--players", type=click.IntRange(codes.MIN_SIMULATED_PLAYERS, codes.MAX_PLAYERS), default=4,
              show_default=True, help="Players per game.")
@click.option("--generations", type=click.IntRange(*TUNE_GENERATIONS), default=20, show_default=True,
              help="CMA-ES generations.")
@click.option("--population", type=click.IntRange(*TUNE_POPULATION), default=12, show_default=True,
              help="Candidates per generation.")
@click.option("--games", type=click.IntRange(*TUNE_GAMES), default=200, show_default=True,
              help="Games per candidate and pool opponent, each generation.")
@click.option("--seed", type=SEED, default=0, show_default=True, help="The seed.")
@click.option("--threads", type=int, default=None, help="Kernel threads, 1..cores [all cores].")
@click.option("--overwrite", is_flag=True, help="Replace an existing --out file once the new one is complete.")
@click.option("--out", type=click.Path(dir_okay=False), required=True, help="The weights file to write (JSON).")
@quiet_option
@click.pass_context
def tune_cmd(ctx, policy, players, generations, population, games, seed, threads, overwrite, out, quiet):
    """Fit a policy's weights by self-play (CMA-ES): each candidate plays one seat against the
    others of a pool (greedy, the shipped weights, the three shipped specialists, the search's
    current mean) and, in self-play, must leave no wonder stage or way of scoring unused; the
    same options give the same file, which `--policy-param heuristic.weights=FILE` then uses.
    """
    from wsim.api.tuning import tune

    try:
        doc = tune(out=out, policy=policy, players=players, generations=generations, population=population,
                   games=games, seed=seed, threads=threads, overwrite=overwrite, data=ctx.obj.get("data"),
                   progress=progress_of(ctx, quiet))
    except (KeyboardInterrupt, signals.Terminated) as e:
        left_behind(e, f"{out} is as it was")
        raise
    for entry in doc["tune"]["log"]:
        click.echo(f"generation {entry['generation']}: best fitness {entry['best']:.4f}, mean {entry['mean']:.4f}")
    click.echo(f"weights: {Path(out)}")


@click.command("learn")
@click.option("--out", type=click.Path(dir_okay=False), required=True, help="The model file to write (.npz).")
@click.option("--work", type=click.Path(file_okay=False), default=None,
              help="The folder of each iteration's data, models and record [OUT.work]; a run goes on from it.")
@click.option("--iterations", type=click.IntRange(1, 20), default=3, show_default=True, help="Iterations.")
@click.option("--games", type=click.IntRange(10, 10**7), default=50_000, show_default=True,
              help="Teacher games per iteration, split over --players.")
@click.option("--players", default="2,3,4,4,5,6,7", show_default=True, metavar="P,P,...",
              help="Player counts of the teacher games, one share of them each (repeat a count for more).")
@click.option("--rate", type=click.FloatRange(0.001, 1.0), default=0.05, show_default=True,
              help="The share of decisions recorded.")
@click.option("--explore", type=click.FloatRange(0.0, 1.0), default=0.5, show_default=True,
              help="The share of recorded decisions played by a uniform legal option instead of the teacher's.")
@click.option("--hidden", type=click.IntRange(1, 128), default=64, show_default=True, help="Hidden units.")
@click.option("--epochs", type=click.IntRange(1, 1000), default=30, show_default=True,
              help="The fit's most epochs (it stops earlier once the held-out score stops improving).")
@click.option("--eval-games", "eval_games", type=click.IntRange(4, 10**6), default=2_000, show_default=True,
              help="Games of each evaluation (one learned seat against three heuristic seats).")
@click.option("--teacher", type=click.Choice(["heuristic", "greedy", "random", "rollout"]), default="heuristic",
              show_default=True, help="Iteration 0's teacher (later iterations: the previous model).")
@click.option("--mix", type=click.FloatRange(0.0, 1.0), default=0.0, show_default=True,
              help="From iteration 1 on, the share of each teacher table's seats that play --teacher (the others "
                   "the previous model).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="The seed.")
@click.option("--threads", type=int, default=None, help="Kernel threads, 1..cores [all cores].")
@click.option("--dask", default=None, metavar="tcp://HOST:PORT|local:W",
              help="Play the teacher games as tasks on a Dask cluster (see simulate; the fit and the evaluations "
                   "run here). Needs wsim[dask].")
@click.option("--overwrite", is_flag=True, help="Replace an existing --out file once the new model is complete.")
@quiet_option
@click.pass_context
def learn_cmd(ctx, out, work, iterations, games, players, rate, explore, hidden, epochs, eval_games, teacher, mix,
              seed, threads, dask, overwrite, quiet):
    """Train the learned player (policy `learned`): teacher games record positions and how they
    ended, a network learns them, and the next iteration's teacher is that network; each model
    is evaluated against three heuristic seats and the best is written to OUT, which
    `--policy-param learned.model=OUT` then plays. The same options give the same file.
    """
    import shlex

    from wsim.api.learning import learn

    options = {"iterations": iterations, "games": games, "players": players, "rate": rate, "explore": explore,
               "hidden": hidden, "epochs": epochs, "eval-games": eval_games, "teacher": teacher, "mix": mix, "seed": seed}
    # what decides the weights, and no --out: the file's bytes do not depend on where it is written
    command = shlex.join(["wsim", "learn"] + [w for k, v in options.items() for w in (f"--{k}", str(v))])
    try:
        header = learn(out=out, work=work, iterations=iterations, games=games, players=players, rate=rate,
                       explore=explore, hidden=hidden, epochs=epochs, eval_games=eval_games, teacher=teacher, mix=mix,
                       seed=seed, threads=threads, data=ctx.obj.get("data"), command=command,
                       say=None if quiet else click.echo, dask=dask, progress=progress_of(ctx, quiet),
                       overwrite=overwrite)
    except (KeyboardInterrupt, signals.Terminated) as e:
        left_behind(e, "the work folder keeps every completed step: the same command goes on from it")
        raise
    chosen = header["provenance"]["chosen_iteration"]
    click.echo(f"model: {Path(out)} (iteration {chosen} of {iterations})")
