"""The `wsim` command line (click): the group, and the one mapping of errors to exit statuses.

Exit statuses: 0 done; 2 a user or environment error (`Error: ...` as the last line on stderr,
no traceback); 1 findings of `wsim check`, or a bug in wsim; 130, 143 and 129 after Ctrl-C,
SIGTERM and SIGHUP (wsim.cli.entry, wsim.signals); 141 when stdout is a closed pipe.
"""

from __future__ import annotations

import sys

import click

from wsim import RULES_VERSION, __version__, signals
from wsim.cli import agents, analysis, atlas, editions, facts, people, runs
from wsim.cli.options import UserError
from wsim.errors import OPTION_STYLE, WsimError


class PipeClosed(BaseException):
    """stdout is a closed pipe (`wsim replay ... | head`): end quietly (wsim.cli.entry)."""


class WsimGroup(click.Group):
    """The one place that maps the project's errors to exit statuses."""

    def invoke(self, ctx: click.Context):
        from wsim.run.compiling import CompileWatch

        style = OPTION_STYLE.set("cli")  # the API's messages name the options as typed here
        try:
            with CompileWatch(on_first=_announce_compile) as ctx.meta["wsim.compile_watch"]:
                return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit):
            raise  # click's own: usage errors and exits
        except WsimError as e:
            raise UserError(str(e)) from None
        except BrokenPipeError:
            raise PipeClosed from None
        except OSError as e:  # an environment error no command foresaw: still no traceback
            where = f"{e.filename}: " if e.filename else ""
            raise UserError(f"{where}{e.strerror or e}") from None
        except (KeyboardInterrupt, signals.Terminated, Exception) as e:
            # a signal, also one that reached here dressed as another error (wsim.signals.behind)
            signum = signals.behind(e)
            if signum is None:
                raise  # a bug in wsim: its traceback
            _stopped(e, signals.stop_text(signum))
            ctx.exit(128 + signum)
        finally:
            OPTION_STYLE.reset(style)


def _stopped(error: BaseException, status: str):
    """The last lines of a command a signal ended: what it left behind, when the command said
    (wsim.cli.options.left_behind), then `status` alone on the last line."""
    note = getattr(error, "wsim_note", None)
    click.echo("\n" + (f"{note}\n" if note else "") + status, err=True)


def _announce_compile(watch):
    """Said when numba starts compiling (an empty cache: a first run, or the kernels changed), on
    a terminal only and unless the command silenced `watch` (--quiet, `wsim compile`): progress
    is not written into a log (docs/interfaces.md §2). A cache numba cannot write is said once whatever
    stderr is and whatever the command: every run would compile again, silently."""
    from wsim.run.compiling import cache_problem

    problem = cache_problem()
    if problem:
        click.echo(f"warning: {problem}", err=True)
    if sys.stderr.isatty() and not watch.silenced:
        click.echo("compiling kernels (first run only)…", err=True)


@click.group(cls=WsimGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="wsim",
                      message=f"%(prog)s %(version)s (rules version {RULES_VERSION})")
@click.option("--data", type=click.Path(), envvar="WSIM_DATA", default=None,  # the file checks: tables.load
              help="Card and wonder data file to use instead of the built-in one (also WSIM_DATA).")
@click.option("--edition", type=click.Choice(["1", "2"]), default=None,
              help="The game's edition: 1 (2010, the default) or 2 (2020: its shipped data file; with --data, "
                   "the file must be of that edition).")
@click.pass_context
def main(ctx: click.Context, data, edition):
    """wsim: a fast Monte Carlo simulator of 7 Wonders (base game; first edition by default,
    the second with --edition 2).

    Seats are numbered from 0; seat i's left neighbour is seat i+1, its right neighbour seat i-1.
    """
    ctx.ensure_object(dict)
    ctx.obj["data"] = data
    if edition is not None:
        ctx.obj["data"] = edition_data(data, int(edition))


def edition_data(data, edition: int):
    """The data file of `--edition`: the shipped one, or --data's when its edition agrees."""
    from wsim import tables

    if data is None:
        return str(tables.edition_path(edition))
    given = tables.load(data)
    if given.edition != edition:
        raise UserError(f"--edition {edition}: the data file {given.source} is of the {given.edition_name}")
    return data


for command in (facts.cards_cmd, facts.score_cmd, facts.trade_cmd, runs.simulate_cmd, runs.check_cmd,
                runs.replay_cmd, runs.compile_cmd, runs.bench_cmd, agents.ladder_cmd, agents.tune_cmd, agents.learn_cmd,
                analysis.balance_cmd, analysis.ablate_cmd, analysis.survey_cmd, analysis.rebalance_cmd,
                people.people_cmd, atlas.atlas_cmd, editions.editions_cmd):
    main.add_command(command)
