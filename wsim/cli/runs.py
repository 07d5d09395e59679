"""`wsim simulate`, `check`, `replay`, `compile` and `bench`: batch runs, their datasets and the
kernels (docs/interfaces.md §2, §3)."""

from __future__ import annotations

import json
import sys
import time

import click

from wsim import signals
from wsim.cli.options import (UserError, data_given, left_behind, load_tables, out_folder, out_option,
                              overwrite_option, progress_of, quiet_option, run_options, run_settings, threads_for)
from wsim.cli.render import people_text, summary_text
from wsim.run.compiling import FAMILIES


@click.command("simulate")
@run_options()
@overwrite_option("dataset")
@click.option("--resume", is_flag=True,
              help="Complete an interrupted run in --out (options left out are taken from the dataset).")
@out_option("Dataset folder (created if missing).")
@quiet_option
@click.pass_context
def simulate_cmd(ctx, games, players, seed, policy, policies, policy_param, wonders, sides, manneken_pis, threads,
                 chunk_size, dask, overwrite, resume, out, quiet):
    """Play many games and write one Parquet row per (game, seat) to --out.

    The same settings give the same values whatever --threads and --chunk-size. A summary
    (games/s, mean points by category, win rate by wonder and side) is printed at the end;
    progress goes to stderr (a bar on a terminal, else a line a minute; none with --quiet).
    """
    from click.core import ParameterSource

    from wsim.api.runs import write_simulation

    folder = out_folder(out)
    if overwrite and resume:
        raise UserError("--overwrite and --resume: give one or the other, not both")
    t = load_tables(ctx)
    settings = run_settings(t, games, players, seed, policy, policies, policy_param, wonders, sides, manneken_pis,
                            chunk_size)
    threads_for(threads, dask)
    given = {name for name in ("games", "players", "seed", "wonders", "sides", "manneken_pis", "chunk_size")
             if ctx.get_parameter_source(name) not in (ParameterSource.DEFAULT, None)}
    if policy is not None or policies is not None:
        given.add("policy" if policy is not None else "policies")
    if policy_param:
        given.add("policy_param")
    if data_given(ctx):
        given.add("data")
    mode = "overwrite" if overwrite else "resume" if resume else "new"
    try:
        result = write_simulation(t, settings, folder, mode=mode, explicit=frozenset(given), dask=dask,
                                  threads=threads, progress=progress_of(ctx, quiet))
    except (KeyboardInterrupt, signals.Terminated) as e:
        done = getattr(e, "wsim_complete", False)
        left_behind(e, f"the run had completed: the dataset in {out} is whole" if done
                    else "temporary files removed")
        raise
    if result.foreign:
        kept = result.foreign
        click.echo(f"warning: {out} holds files that are not part of a wsim dataset; they are kept: "
                   f"{', '.join(kept[:5])}{' …' if len(kept) > 5 else ''}", err=True)
    click.echo(summary_text(result.summary, result.tables))
    click.echo(people_text(result.summary, result.tables))
    click.echo(f"\ndataset: {out}")


@click.command("check")
@click.argument("directory", type=click.Path())
@click.option("--describe", is_flag=True,
              help="Print the dataset's columns, their types and descriptions, and its metadata keys instead.")
@click.pass_context
def check_cmd(ctx, directory, describe):
    """Verify a dataset against its manifest: parts present, rows, checksums, settings.

    Prints `ok: N games, M rows` (exit 0), or one line per problem and `damaged: K problems`
    or `incomplete: G of N games` (exit 1). With --describe, prints the dataset's schema in
    words (read from its first part; no verification) and exits 0.
    """
    if describe:
        from pathlib import Path

        from wsim.dataset.manifest import describe as describe_dataset

        click.echo(description_text(describe_dataset(Path(directory))))
        return
    from wsim.api.datasets import check

    found = check(directory, data=ctx.obj.get("data"))
    for line in found.problems:
        click.echo(line)
    click.echo(found.closing)
    if not found.ok:
        sys.exit(1)


def description_text(found) -> str:
    """`wsim check --describe`'s text of a wsim.dataset.manifest.Description: a column a line
    (name, type, description), then the metadata keys."""
    lines = [f"{found.part.parent}: schema version {found.version}, {len(found.columns)} columns "
             f"(read from {found.part.name})"]
    if not any(text for _, _, text in found.columns):
        lines.append("  its columns carry no descriptions (written before schema version 2): "
                     "docs/interfaces.md §2 has them")
    name_width = max(len(name) for name, _, _ in found.columns)
    type_width = max(len(kind) for _, kind, _ in found.columns)
    lines += [f"  {name:<{name_width}}  {kind:<{type_width}}  {text or '-'}".rstrip()
              for name, kind, text in found.columns]
    lines.append("metadata:")
    key_width = max((len(key) for key, _ in found.metadata), default=0)
    lines += [f"  {key:<{key_width}}  {what}" for key, what in found.metadata]
    return "\n".join(lines)


@click.command("replay")
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--game", "game", type=click.IntRange(min=0), required=True, help="Game index in the dataset.")
@click.option("--json", "as_json", is_flag=True, help="Print the move log itself (JSON).")
@click.pass_context
def replay_cmd(ctx, directory, game, as_json):
    """The readable log of one game of a dataset, played again from the dataset's settings.

    The game is re-played by the kernels with logging on and checked move by move by the
    reference engine before it is shown. The card data is the one the dataset carries (an
    explicit --data must be the same file).
    """
    from wsim.api.datasets import ReplayMismatch, replay

    try:
        played = replay(directory, game, data=ctx.obj.get("data"))
    except ReplayMismatch as e:
        raise click.ClickException(str(e)) from None
    click.echo(json.dumps(played.log, indent=1) if as_json else played.text)


@click.command("compile")
@click.argument("families", nargs=-1, type=click.Choice(FAMILIES))
@click.pass_context
def compile_cmd(ctx, families):
    """Fill numba's cache with the kernels, so that later runs start warm.

    FAMILIES: games (random, greedy and heuristic seats), rollout (runs with a searching seat),
    step (the step-level API driven from Python), profile (the instrumented loop of `wsim
    bench`), learned (learned seats and training games), env (the batched environment of
    wsim.env.batched_v0); default: games rollout. Run it where the cache lives (a CI image, each Dask
    worker's machine) with the same NUMBA_CACHE_DIR and wsim; a family already cached only
    loads.
    """
    from wsim.run.compiling import DEFAULT_FAMILIES, CompileWatch, warm

    ctx.meta["wsim.compile_watch"].silence()  # this command says what it compiled
    t = load_tables(ctx)
    for family in families or DEFAULT_FAMILIES:
        started = time.perf_counter()
        with CompileWatch() as watch:
            if family == "env":  # the environment's layer, above wsim.run
                from wsim.env.vector import warm as warm_env

                warm_env()
            elif family == "profile":  # the bench's layer, above wsim.run
                from wsim.bench.profiling import warm as warm_profile

                warm_profile(t)
            else:
                warm(family, t)
        seconds = time.perf_counter() - started
        how = (f"compiled {sum(watch.kernels().values())} kernel functions" if watch.compiled
               else "loaded from the cache")
        click.echo(f"{family}: {how} in {seconds:.1f} s")


@click.command("bench")
@click.option("--quick", is_flag=True, help="Fewer games per measurement (a rough check: about 2-3 minutes on 2 cores, compile included).")
@click.option("--save/--no-save", default=True, show_default=True, help="Record the results in bench/results/.")
@click.option("--against", "against", metavar="REV", default=None,
              help="Only compare with commit REV of this checkout: both trees at the same time, one per core.")
@click.option("--rounds", type=click.IntRange(1, 20), default=3, show_default=True,
              help="With --against: rounds, each running the two trees twice with the cores swapped.")
@quiet_option
@click.pass_context
def bench_cmd(ctx, quick, save, against, rounds, quiet):
    """Benchmarks: games/s by players, policy and threads; compile and start-up time; memory of a
    1,000,000-game run; trading solver calls/s; the reference engine's games/s.

    With --against REV: five-player games/s (random, greedy, heuristic) and rollout playouts/s,
    one thread, of this tree and of commit REV side by side (docs/speed.md)."""
    if against is not None:
        from wsim.bench.against import compare_with

        if ctx.obj.get("data") is not None:
            raise UserError("--against: compares the built-in card data only (no --data or WSIM_DATA)")
        compare_with(against, rounds=rounds, quick=quick, save=save, echo=click.echo)
        return
    from wsim.bench.suite import run_benchmarks

    load_tables(ctx)  # a data error is an Error: line here too, before any benchmark
    run_benchmarks(quick=quick, save=save, echo=click.echo, data=ctx.obj.get("data"), progress=progress_of(ctx, quiet))
