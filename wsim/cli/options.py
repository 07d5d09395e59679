"""What several commands share: the user-error exception, the data file, the options that say
which games to play (their bounds are the settings' own), the --out check."""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

import click

from wsim import tables
from wsim.errors import WsimError
from wsim.kernels.policy import POLICY_NAMES
from wsim.run.settings import MAX_CHUNK, MAX_GAMES, MAX_SEED, build_settings

SEED = click.IntRange(0, MAX_SEED)  # every command's --seed


class UserError(click.ClickException):
    """A user mistake: printed as `Error: <message>` with exit status 2, no traceback."""

    exit_code = 2


def load_tables(ctx: click.Context) -> tables.Tables:
    """The tables of the data file chosen by `--data` / WSIM_DATA (checked, the kernels' limits
    included, so that every command reports a data error the same way)."""
    return tables.load(ctx.obj.get("data"))


def data_given(ctx: click.Context) -> bool:
    """Whether the user chose the data file (--data, WSIM_DATA or --edition), rather than the
    built-in one."""
    from click.core import ParameterSource

    root = ctx.find_root()
    return any(root.get_parameter_source(name) not in (ParameterSource.DEFAULT, None) for name in ("data", "edition"))


def out_folder(out: str) -> Path:
    """--out as a Path; an empty value names no folder (click would take it as the current one)."""
    if out == "":
        raise UserError("--out: must name a folder, got ''")
    return Path(out)


def run_options(games=(1, MAX_GAMES), bound="2^63 - 1"):
    """The options that say which games to play, shared by `simulate` and `ablate`; --games
    within `games`, its upper bound written `bound` in the help."""
    def decorate(f):
        options = [
            click.option("--games", type=click.IntRange(*games), default=100_000, show_default=True,
                         help=f"Games to play (at most {bound})."),
            click.option("--players", type=int, default=4, show_default=True,
                         help="Players per game, 2..7 (2: the Free City variant, docs/rules.md §10)."),
            click.option("--seed", type=SEED, default=0, show_default=True, help="The run's seed."),
            click.option("--policy", default=None, metavar="NAME",
                         help=f"One policy for every seat: {', '.join(POLICY_NAMES[:-1])} or {POLICY_NAMES[-1]} [random]."),
            click.option("--policies", default=None, metavar="N1,N2,...",
                         help="One policy per player, comma-separated; NAME:LABEL labels a seat (two seats may play "
                              "one policy with different parameters)."),
            click.option("--policy-param", "policy_param", multiple=True, metavar="NAME.KEY=VALUE",
                         help="A parameter of every seat playing that policy or label (repeatable), e.g. greedy.coin=40."),
            click.option("--wonders", default="random", show_default=True, metavar="random|fixed:ID/SIDE,...",
                         help="Random boards, or fixed ones seat by seat (an entry without /SIDE follows --sides)."),
            click.option("--sides", type=click.Choice(["random", "A", "B"]), default="random", show_default=True,
                         help="Wonder sides."),
            click.option("--manneken-pis", "manneken_pis", is_flag=True,
                         help="Put the Manneken Pis promo board in the pool."),
            click.option("--threads", type=int, default=None, help="Kernel threads, 1..cores [all cores]."),
            click.option("--chunk-size", type=click.IntRange(1, MAX_CHUNK), default=100_000, show_default=True,
                         help="Games per Parquet part (at most 1,000,000)."),
            click.option("--dask", default=None, metavar="tcp://HOST:PORT|local:W",
                         help="Play the parts as tasks on a Dask cluster (a running `dask scheduler`, or W local worker "
                              "processes); --threads is then each task's kernel threads [1]. Needs wsim[dask]."),
        ]
        for option in reversed(options):
            f = option(f)
        return f
    return decorate


def threads_for(threads, dask):
    """Check --threads: this machine's kernel threads, or with --dask each task's (checked by the
    worker, whose cores this machine does not know)."""
    from wsim.run.runner import set_threads  # the kernels: only for a command that plays

    if dask is None:
        set_threads(threads)
    elif threads is not None and threads < 1:
        raise UserError(f"--threads: must be at least 1, got {threads}")
    if dask is not None:
        from wsim.run.cluster import parse_address

        parse_address(dask)
        if find_spec("distributed") is None:
            raise UserError("--dask needs the dask extra: pip install 'wsim[dask]'")


def policy_names(policy, policies, players) -> tuple:
    """(one policy name per seat, the option that gave them) of --policy or --policies."""
    if policy is not None and policies is not None:
        raise UserError("--policy and --policies: give one or the other, not both")
    if policies is not None:
        return policies.split(","), "--policies"
    return [policy or "random"] * players, "--policy"


def run_settings(t, games, players, seed, policy, policies, policy_param, wonders, sides, manneken_pis,
                 chunk_size):
    """The checked Settings of the run_options."""
    names, option = policy_names(policy, policies, players)
    try:
        return build_settings(t, players=players, policies=names, seed=seed, games=games, wonders=wonders,
                              sides=sides, manneken_pis=manneken_pis, chunk_size=chunk_size,
                              policy_params=policy_param)
    except WsimError as e:  # the policy names were given by --policy or --policies
        raise UserError(str(e).replace("--policies:", f"{option}:", 1)) from None


def out_option(what: str):
    """The --out option of a command that writes a folder (checked by out_folder)."""
    return click.option("--out", type=click.Path(file_okay=False), required=True, help=what)


def overwrite_option(what: str):
    """--overwrite: replace what a non-empty --out holds, once the new `what` is complete."""
    return click.option("--overwrite", is_flag=True,
                        help=f"Replace the {what} in a non-empty --out folder once the new one is complete.")


def quiet_option(f):
    """--quiet: no progress on stderr, for a long run's log (warnings and errors stay)."""
    return click.option("--quiet", is_flag=True,
                        help="No progress and no estimate on stderr (warnings and errors only).")(f)


def progress_of(ctx: click.Context, quiet: bool) -> bool:
    """The progress= a command passes: True (a bar on a terminal, else a line a minute), or
    False with --quiet, which also keeps the note of a first run's compile off stderr."""
    if quiet:
        watch = ctx.meta.get("wsim.compile_watch")
        if watch is not None:
            watch.silence()
    return not quiet


def left_behind(error: BaseException, note: str):
    """Tell the group what an interrupted command leaves behind: it prints `note` on stderr
    before its last line (`interrupted`, `terminated by SIGTERM`), so that each is said once."""
    error.wsim_note = note

