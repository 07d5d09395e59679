"""The `wsim` command line (click).

Exit statuses: 0 done; 2 a user or environment error (`Error: ...` as the last line on stderr,
no traceback); 1 findings of `wsim check`, or a bug in wsim; 130, 143 and 129 after Ctrl-C,
SIGTERM and SIGHUP (wsim.cli.entry, wsim.signals); 141 when stdout is a closed pipe.
"""

from __future__ import annotations

import json
import math
import os
import sys
from importlib.util import find_spec
from pathlib import Path

import click

from wsim import RULES_VERSION, __version__, codes, scenario, signals, tables
from wsim.run.compiling import FAMILIES
from wsim.describe import cards_json
from wsim.errors import WsimError
from wsim.reference.positions import city_label, score_json, trade_json


class UserError(click.ClickException):
    """A user mistake: printed as `Error: <message>` with exit status 2, no traceback."""

    exit_code = 2


class PipeClosed(BaseException):
    """stdout is a closed pipe (`wsim replay ... | head`): end quietly (wsim.cli.entry)."""


class WsimGroup(click.Group):
    """The one place that maps the project's errors to exit statuses."""

    def invoke(self, ctx: click.Context):
        from wsim.run.compiling import CompileWatch

        try:
            with CompileWatch(on_first=_announce_compile) as ctx.meta["wsim.compile_watch"]:
                return super().invoke(ctx)
        except WsimError as e:
            raise UserError(str(e)) from None
        except BrokenPipeError:
            raise PipeClosed from None
        except OSError as e:  # an environment error no command foresaw: still no traceback
            where = f"{e.filename}: " if e.filename else ""
            raise UserError(f"{where}{e.strerror or e}") from None
        except KeyboardInterrupt:
            signals.swallowed()  # delivered after all
            click.echo("\ninterrupted", err=True)
            ctx.exit(130)
        except signals.Terminated as e:
            signals.swallowed()
            click.echo(f"\n{e}", err=True)
            ctx.exit(128 + e.signum)


def _announce_compile():
    """Said when numba starts compiling (an empty cache: a first run, or the kernels changed)."""
    click.echo("compiling kernels (first run only)…", err=True)


def load_tables(ctx: click.Context) -> tables.Tables:
    """The tables of the data file chosen by `--data` / WSIM_DATA (checked, the kernels' limits
    included, so that every command reports a data error the same way)."""
    return tables.load(ctx.obj.get("data"))


@click.group(cls=WsimGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="wsim",
                      message=f"%(prog)s %(version)s (rules version {RULES_VERSION})")
@click.option("--data", type=click.Path(dir_okay=False), envvar="WSIM_DATA", default=None,
              help="Card and wonder data file to use instead of the built-in one (also WSIM_DATA).")
@click.pass_context
def main(ctx: click.Context, data):
    """wsim: a fast Monte Carlo simulator of 7 Wonders (first edition, base game).

    Seats are numbered from 0; seat i's left neighbour is seat i+1, its right neighbour seat i-1.
    """
    ctx.ensure_object(dict)
    ctx.obj["data"] = data


@main.command("cards")
@click.option("--age", type=click.IntRange(1, 3), default=None, help="Only the cards of this age (1, 2 or 3).")
@click.option("--players", "players", type=click.IntRange(codes.MIN_PLAYERS, codes.MAX_PLAYERS), default=None,
              help="Only the deck for this many players (3..7); guilds are always listed.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (INTERFACES section 3) instead of a table.")
@click.pass_context
def cards_cmd(ctx, age, players, as_json):
    """List the compiled cards and wonders, as the simulator sees them."""
    t = load_tables(ctx)
    doc = cards_json(t, age=age, players=players)
    if as_json:
        click.echo(json.dumps(doc, indent=1))
        return
    header = f"{'card':<20} {'age':>3} {'colour':<7} {'copies':<10} {'cost':<34} {'chain from':<32} effect"
    click.echo(header)
    click.echo("-" * len(header))
    for c in doc["cards"]:
        copies = " ".join(f"{p}+" for p in c["players"]) or "guild"
        cost = ", ".join([f"{c['cost']['coins']} coin" + ("s" if c["cost"]["coins"] > 1 else "")] if c["cost"]["coins"] else []
                         + [f"{n} {r}" for r, n in c["cost"]["resources"].items()]) or "free"
        click.echo(f"{c['name']:<20} {c['age']:>3} {c['color']:<7} {copies:<10} {cost:<34} "
                   f"{', '.join(c['chain_from']) or '-':<32} {c['effect']}")
    click.echo("")
    for w in doc["wonders"]:
        promo = " (promo, off unless asked for)" if w["promo"] else ""
        res = w["sides"]["A"]["starting_resource"] or "none"
        click.echo(f"{w['id']}: {w['name']}{promo}; starting resource {res}, {w['starting_coins']} coins")
        for side, s in w["sides"].items():
            stages = " | ".join(
                f"[{', '.join(f'{n} {r}' for r, n in st['cost']['resources'].items())}] {st['effect']}"
                for st in s["stages"])
            click.echo(f"  {side}: {stages}")
    n_cards = len(doc["cards"])
    click.echo(f"\n{n_cards} cards, {len(doc['wonders'])} wonders (data sha256 {t.data_sha256[:12]})")
    click.echo("left and right: seen from the owner's seat i, left = seat i+1, right = seat i-1")


# ---------------------------------------------------------------------------------------------
# Scenario files: `wsim score` and `wsim trade` (INTERFACES section 1)

def load_position(ctx: click.Context, path: str):
    """The Position of a scenario file, every mistake in it turned into a UserError (exit 2)."""
    return scenario.load(path, load_tables(ctx))


@main.command("score")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print JSON (INTERFACES section 1) instead of a table.")
@click.pass_context
def score_cmd(ctx, file, as_json):
    """Final scoring of the position in scenario FILE (a YAML file, INTERFACES section 1).

    No military conflict is resolved and no "when built" effect applied: tokens and coins are
    taken as given. End-of-game choices (science wildcards, Olympia B's copied guild, Manneken
    Pis A's stage-3 neighbour when copy3 is absent) maximise each seat's own total.
    """
    pos = load_position(ctx, file)
    doc = score_json(pos)
    if as_json:
        click.echo(json.dumps(doc, indent=1))
        return
    cols = codes.CATEGORIES + ("total",)
    head = f"{'seat':>4}  {'wonder':<16} " + " ".join(f"{c:>10}" for c in cols) + f" {'coins':>6}"
    click.echo(head)
    click.echo("-" * len(head))
    for row in doc["players"]:
        seat = row["seat"]
        click.echo(f"{seat:>4}  {city_label(pos, seat):<16} " + " ".join(f"{row[c]:>10}" for c in cols)
                   + f" {pos.cities[seat].coins:>6}")
    win = doc["winners"]
    label = "winner" if len(win) == 1 else "winners (shared victory)"
    click.echo(f"\n{label}: " + ", ".join(f"seat {w}" for w in win))
    click.echo("(left = seat i+1, right = seat i-1)")


@main.command("trade")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--seat", type=int, required=True, help="The buying seat, 0..N-1.")
@click.option("--card", "card_name", default=None, metavar="NAME",
              help="The card to build (printed name; case, spaces and punctuation ignored).")
@click.option("--stage", is_flag=True, help="Price the seat's next wonder stage instead of a card.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (INTERFACES section 1) instead of text.")
@click.pass_context
def trade_cmd(ctx, file, seat, card_name, stage, as_json):
    """What it costs seat I to build a card (--card NAME) or its next wonder stage (--stage).

    Lists every Pareto-minimal purchase (coins paid to the left and right neighbours) in the
    position of scenario FILE, and whether the build is affordable and legal.
    """
    if (card_name is None) == (not stage):
        raise UserError("give exactly one of --card NAME or --stage")
    pos = load_position(ctx, file)
    if not 0 <= seat < pos.n:
        raise UserError(f"--seat: {seat} is not a seat of this scenario (0 to {pos.n - 1})")
    card = None
    if card_name is not None:
        try:
            card = pos.t.card_id(card_name)
        except KeyError:
            raise UserError(f"--card: unknown card {card_name!r} (see `wsim cards` for the names)") from None
    doc = trade_json(pos, seat, card)
    if as_json:
        click.echo(json.dumps(doc, indent=1))
        return
    city = pos.cities[seat]
    left, right = pos.left(seat), pos.right(seat)
    yes = {True: "yes", False: "no"}
    click.echo(f"seat {seat} ({city_label(pos, seat)}, {city.coins} coins): {doc['target']}")
    click.echo(f"  left neighbour = seat {left}, right neighbour = seat {right} (left = seat i+1)")
    if card is None and pos.stages_left(seat) <= 0:
        click.echo("  every wonder stage is built already")
    click.echo(f"  free: {yes[doc['free']]}    coin cost (to the bank): {doc['coin_cost']}")
    if doc["options"]:
        click.echo("  purchase options (coins to the left / right neighbour, total with the coin cost):")
        for o in doc["options"]:
            total = doc["coin_cost"] + o["left"] + o["right"]
            mark = "" if total <= city.coins else "  (too expensive)"
            click.echo(f"    left {o['left']:>2}   right {o['right']:>2}   total {total:>2}{mark}")
    elif card is not None or pos.stages_left(seat) > 0:
        click.echo("  purchase options: none (the neighbours cannot supply the cost)")
    click.echo(f"  affordable: {yes[doc['affordable']]}    legal: {yes[doc['legal']]}")
    if card is not None and pos.owns_name(seat, card):
        click.echo(f"  (the city already owns a {pos.t.names[pos.t.card_name_id[card]]})")


# ---------------------------------------------------------------------------------------------
# Batch runs: `wsim simulate`, `wsim replay`, `wsim bench` (INTERFACES sections 2-3)

def _run_options(f):
    """The options that say which games to play, shared by `simulate` and `ablate`."""
    options = [
        click.option("--games", type=click.IntRange(1, 2**63 - 1), default=100_000, show_default=True,
                     help="Games to play (at most 2^63 - 1)."),
        click.option("--players", type=int, default=4, show_default=True,
                     help="Players per game, 2..7 (2: the Free City variant, RULES.md §10)."),
        click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True, help="The run's seed."),
        click.option("--policy", default=None, metavar="NAME",
                     help="One policy for every seat: random, greedy, heuristic or rollout [random]."),
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
        click.option("--chunk-size", type=click.IntRange(1, 1_000_000), default=100_000, show_default=True,
                     help="Games per Parquet part (at most 1,000,000)."),
        click.option("--dask", default=None, metavar="tcp://HOST:PORT|local:W",
                     help="Play the parts as tasks on a Dask cluster (a running `dask scheduler`, or W local worker "
                          "processes); --threads is then each task's kernel threads [1]. Needs wsim[dask]."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def _threads_for(threads, dask):
    """Check --threads: this machine's kernel threads, or with --dask each task's (checked by the
    worker, whose cores this machine does not know)."""
    from wsim.run.runner import set_threads

    if dask is None:
        set_threads(threads)
    elif threads is not None and threads < 1:
        raise UserError(f"--threads: must be at least 1, got {threads}")
    if dask is not None:
        from wsim.run.cluster import parse_address

        parse_address(dask)
        if find_spec("distributed") is None:
            raise UserError("--dask needs the dask extra: pip install 'wsim[dask]'")


def _run_settings(t, games, players, seed, policy, policies, policy_param, wonders, sides, manneken_pis,
                  chunk_size):
    """The checked Settings of the _run_options."""
    from wsim.run.settings import build_settings

    if policy is not None and policies is not None:
        raise UserError("--policy and --policies: give one or the other, not both")
    if policies is not None:
        names, option = policies.split(","), "--policies"
    else:
        names, option = [policy or "random"] * players, "--policy"
    try:
        return build_settings(t, players=players, policies=names, seed=seed, games=games, wonders=wonders,
                              sides=sides, manneken_pis=manneken_pis, chunk_size=chunk_size,
                              policy_params=policy_param)
    except WsimError as e:  # the policy names were given by --policy or --policies
        raise UserError(str(e).replace("--policies:", f"{option}:", 1)) from None


@main.command("simulate")
@_run_options
@click.option("--overwrite", is_flag=True, help="Replace the dataset in a non-empty --out folder once the new one is complete.")
@click.option("--resume", is_flag=True,
              help="Complete an interrupted run in --out (options left out are taken from the dataset).")
@click.option("--out", type=click.Path(file_okay=False), required=True, help="Dataset folder (created if missing).")
@click.pass_context
def simulate_cmd(ctx, games, players, seed, policy, policies, policy_param, wonders, sides, manneken_pis, threads,
                 chunk_size, dask, overwrite, resume, out):
    """Play many games and write one Parquet row per (game, seat) to --out.

    The same settings give the same values whatever --threads and --chunk-size. A summary
    (games/s, mean points by category, win rate by wonder and side) is printed at the end.
    """
    from click.core import ParameterSource

    from wsim.run.batch import Request, simulate

    if out == "":
        raise UserError("--out: must name a folder, got ''")
    if overwrite and resume:
        raise UserError("--overwrite and --resume: give one or the other, not both")
    if policy is not None and policies is not None:
        raise UserError("--policy and --policies: give one or the other, not both")
    t = load_tables(ctx)
    settings = _run_settings(t, games, players, seed, policy, policies, policy_param, wonders, sides, manneken_pis,
                             chunk_size)
    _threads_for(threads, dask)
    given = {name for name in ("games", "players", "seed", "wonders", "sides", "manneken_pis", "chunk_size")
             if ctx.get_parameter_source(name) not in (ParameterSource.DEFAULT, None)}
    if policy is not None or policies is not None:
        given.add("policy" if policy is not None else "policies")
    if policy_param:
        given.add("policy_param")
    if ctx.find_root().get_parameter_source("data") not in (ParameterSource.DEFAULT, None):
        given.add("data")
    mode = "overwrite" if overwrite else "resume" if resume else "new"
    try:
        result = simulate(Request(t, settings, mode, frozenset(given), dask, threads), Path(out),
                          progress=sys.stderr.isatty())
    except (KeyboardInterrupt, signals.Terminated) as e:
        done = getattr(e, "wsim_complete", False)
        click.echo(f"\ninterrupted after the run completed: the dataset in {out} is whole" if done
                   else "\ninterrupted: temporary files removed", err=True)
        raise
    if result.foreign:
        kept = result.foreign
        click.echo(f"warning: {out} holds files that are not part of a wsim dataset; they are kept: "
                   f"{', '.join(kept[:5])}{' …' if len(kept) > 5 else ''}", err=True)
    click.echo(result.summary.text(result.tables))
    click.echo(f"\ndataset: {out}")


@main.command("check")
@click.argument("directory", type=click.Path())
@click.pass_context
def check_cmd(ctx, directory):
    """Verify a dataset against its manifest: parts present, rows, checksums, settings.

    Prints `ok: N games, M rows` (exit 0), or one line per problem and `damaged: K problems`
    or `incomplete: G of N games` (exit 1).
    """
    from wsim.dataset.manifest import check

    report = check(Path(directory), load_tables(ctx))
    for line in report.problems:
        click.echo(line)
    click.echo(report.closing)
    if not report.ok:
        sys.exit(1)


@main.command("replay")
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
    from click.core import ParameterSource

    from wsim.dataset import parts
    from wsim.logtext import log_text
    from wsim.reference.replay import ReplayError, replay
    from wsim.run.runner import Runner, game_log
    from wsim.run.settings import SettingsError, settings_from_metadata
    from wsim.dataset.manifest import tables_of_dataset

    path = Path(directory)
    header = parts.read_metadata(path)
    meta = header.meta
    if meta["rules_version"] != RULES_VERSION:
        raise UserError(f"{directory}: dataset written under rules version {str(meta['rules_version']):.20}, "
                        f"this wsim plays rules version {RULES_VERSION}")
    installed = load_tables(ctx)
    if ctx.find_root().get_parameter_source("data") not in (ParameterSource.DEFAULT, None) or header.data_text is None:
        if meta["data_sha256"] != installed.data_sha256:
            raise UserError(f"{directory}: dataset written with other card data (sha256 "
                            f"{str(meta['data_sha256'])[:12]}…, installed {installed.data_sha256[:12]}…)")
        t = installed
    else:
        t = tables_of_dataset(path / header.name, header.data_text, meta["data_sha256"], installed)
    try:
        settings = settings_from_metadata(meta, t)
    except SettingsError as e:
        raise UserError(f"{path / header.name}: its metadata holds invalid settings ({e})") from None
    if game >= settings.games:
        raise UserError(f"--game: the dataset has games 0..{settings.games - 1}, got {game}")
    doc = game_log(Runner(t, settings), game)
    try:
        replay(t, doc)
    except ReplayError as e:
        raise click.ClickException(f"internal error: the reference engine rejects this game: {e}") from None
    if as_json:
        click.echo(json.dumps(doc, indent=1))
    else:
        click.echo(log_text(doc, list(settings.labels)))


@main.command("ladder")
@click.option("--policies", required=True, metavar="A,B,...",
              help="The policies to rank (NAME or NAME:LABEL), at least two.")
@click.option("--players", type=int, default=4, show_default=True, help="Players per game, 2..7.")
@click.option("--games", type=click.IntRange(1, 10**9), default=10_000, show_default=True,
              help="Games per ordered pair of policies.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True,
              help="The seed: every pair plays the same deals.")
@click.option("--policy-param", "policy_param", multiple=True, metavar="NAME.KEY=VALUE",
              help="A parameter of a policy or label (repeatable).")
@click.option("--threads", type=int, default=None, help="Kernel threads, 1..cores [all cores].")
@click.option("--dask", default=None, metavar="tcp://HOST:PORT|local:W",
              help="Play the games as tasks on a Dask cluster (see simulate). Needs wsim[dask].")
@click.option("--overwrite", is_flag=True, help="Replace the ladder in a non-empty --out folder once the new one is complete.")
@click.option("--out", type=click.Path(file_okay=False), required=True, help="Folder for ladder.csv and ratings.csv.")
@click.pass_context
def ladder_cmd(ctx, policies, players, games, seed, policy_param, threads, dask, overwrite, out):
    """Every ordered pair (X, Y) of the policies: N games of one X seat against P-1 Y seats, X's
    seat rotating, the same deals for every pair. Writes DIR/ladder.csv (win share with its
    Wilson 95% CI, mean points and margin) and DIR/ratings.csv (one openskill rating per policy
    over all games), and prints both.
    """
    from wsim.agents.ladder import parse_entries, run_ladder

    if out == "":
        raise UserError("--out: must name a folder, got ''")
    t = load_tables(ctx)
    entries = parse_entries(policies.split(","), policy_param)
    _threads_for(threads, dask)
    total = games * len(entries) * (len(entries) - 1)
    done = [0]

    def on_progress(n):
        done[0] += n
        if sys.stderr.isatty():
            sys.stderr.write(f"\r  {done[0]:,} / {total:,} games")
            sys.stderr.flush()

    ladder_text, ratings_text = run_ladder(t, entries, players, games, seed, Path(out), overwrite, on_progress,
                                           dask, threads)
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    click.echo(_aligned(ladder_text))
    click.echo("")
    click.echo(_aligned(ratings_text))
    click.echo(f"\nladder: {Path(out) / 'ladder.csv'}, ratings: {Path(out) / 'ratings.csv'}")


def _aligned(csv_text: str) -> str:
    """A CSV document as a table with aligned columns."""
    rows = [line.split(",") for line in csv_text.strip().splitlines()]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in rows)


# ---------------------------------------------------------------------------------------------
# Balance analysis: `wsim balance`, `wsim ablate` (INTERFACES section 5)

ANALYSIS_LIBRARIES = ("duckdb", "statsmodels", "matplotlib")


def _analysis_extra():
    """Refuse the command, naming the extra to install, when an analysis library is missing."""
    for name in ANALYSIS_LIBRARIES:
        if find_spec(name) is None:
            raise UserError(f"this command needs the analysis extra ({name} is missing): "
                            "pip install 'wsim[analysis]'")


def _print_paired(report, limit: int = 8):
    """The largest paired differences, with their CIs, on stdout."""
    paired = report.paired.dropna(subset=["diff"])
    top = paired.reindex(paired["diff"].abs().sort_values(ascending=False).index).head(limit)
    click.echo(f"largest paired differences (edited − baseline, percentage points, paired 95% CI; "
               f"{len(paired)} compared):")
    for r in top.itertuples(index=False):
        click.echo(f"  {r.metric:<8} {r.key:<28} {_points(r.diff)}  [{_points(r.ci_low)}, {_points(r.ci_high)}]"
                   f"  (independent runs: [{_points(r.ci_low_independent)}, {_points(r.ci_high_independent)}])")


def _points(x: float) -> str:
    """A difference in percentage points; `none` where there is no estimate (too few games)."""
    return "   none" if math.isnan(x) else f"{100 * x:+7.2f}"


@main.command("balance")
@click.argument("directory", type=click.Path())
@click.option("--baseline", type=click.Path(), default=None, metavar="DIR0",
              help="A dataset of the same games (seed, games, players, policies) to compare with, game by game.")
@click.option("--overwrite", is_flag=True, help="Replace the report in a non-empty --out folder once the new one is complete.")
@click.option("--out", type=click.Path(file_okay=False), required=True, help="Report folder (created if missing).")
@click.pass_context
def balance_cmd(ctx, directory, baseline, overwrite, out):
    """Balance report of a dataset: REPORT/index.html (plots inline), wonders.csv (win rates with
    Wilson 95% CIs), cards.csv (build and win rates, the adjusted association of each card with
    winning) and, with --baseline, paired.csv (every metric compared game by game).
    """
    from wsim.dataset.folder import output_files

    if out == "":
        raise UserError("--out: must name a folder, got ''")
    _analysis_extra()
    from wsim.analysis.balance.report import build, owns

    for option, read in (("DIR", directory), ("--baseline", baseline)):
        # the report folder is locked while the datasets are read: it cannot be one of them
        if read is not None and os.path.realpath(read) == os.path.realpath(out):
            raise UserError(f"--out: {out} is the dataset folder {option} names; give the report a folder of its own")
    t = load_tables(ctx)
    with output_files(Path(out), owns, overwrite, "report") as commit:
        report = build(Path(directory), t, Path(baseline) if baseline is not None else None)
        commit(report.files)
    if report.paired is not None:
        _print_paired(report)
    click.echo(f"report: {Path(out) / 'index.html'} ({', '.join(n for n in report.files if n.endswith('.csv'))})")


@main.command("ablate")
@click.option("--edit", "edits", multiple=True, required=True, metavar="EDIT",
              help="CARD.points=N|+N|-N, CARD.coins=N|+N|-N, CARD=neutral or WONDER/SIDE.stageK=neutral (repeatable).")
@_run_options
@click.option("--overwrite", is_flag=True, help="Replace the report in a non-empty --out folder once the new one is complete.")
@click.option("--out", type=click.Path(file_okay=False), required=True,
              help="Report folder (created if missing); the two datasets go to REPORT/data/.")
@click.pass_context
def ablate_cmd(ctx, edits, games, players, seed, policy, policies, policy_param, wonders, sides, manneken_pis,
               threads, chunk_size, dask, overwrite, out):
    """The paired experiment: the same games played with the card data as it is and with the
    edits applied (the deal never changes), then the `wsim balance --baseline` report of the two.
    """
    if out == "":
        raise UserError("--out: must name a folder, got ''")
    _analysis_extra()
    from wsim.analysis.ablate import precheck, refuse_edits_out_of_play, run_ablate
    from wsim.analysis.edits import apply_edits

    t = load_tables(ctx)
    edited = apply_edits(t, list(edits))
    settings = _run_settings(t, games, players, seed, policy, policies, policy_param, wonders, sides, manneken_pis,
                             chunk_size)
    refuse_edits_out_of_play(t, settings, list(edits))
    _threads_for(threads, dask)
    precheck(Path(out), overwrite)

    def on_run(name, result):
        s = result.summary
        click.echo(f"{name}: {s.games:,} games in {s.seconds:.1f} s", err=True)

    try:
        report, _ = run_ablate(t, edited, settings, Path(out), overwrite, sys.stderr.isatty(), on_run, dask, threads)
    except (KeyboardInterrupt, signals.Terminated):
        click.echo("\ninterrupted: the report folder is as it was", err=True)
        raise
    _print_paired(report)
    click.echo(f"report: {Path(out) / 'index.html'}; datasets: {Path(out) / 'data'}")


@main.command("tune")
@click.option("--policy", type=click.Choice(["heuristic"]), default="heuristic", show_default=True,
              help="The policy whose weights are fitted.")
@click.option("--players", type=click.IntRange(2, 7), default=4, show_default=True, help="Players per game.")
@click.option("--generations", type=click.IntRange(1, 10_000), default=20, show_default=True,
              help="CMA-ES generations.")
@click.option("--population", type=click.IntRange(4, 1_000), default=12, show_default=True,
              help="Candidates per generation.")
@click.option("--games", type=click.IntRange(1, 10**7), default=200, show_default=True,
              help="Games per candidate and pool opponent, each generation.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=0, show_default=True, help="The seed.")
@click.option("--threads", type=int, default=None, help="Kernel threads, 1..cores [all cores].")
@click.option("--overwrite", is_flag=True, help="Replace an existing --out file once the new one is complete.")
@click.option("--out", type=click.Path(dir_okay=False), required=True, help="The weights file to write (JSON).")
@click.pass_context
def tune_cmd(ctx, policy, players, generations, population, games, seed, threads, overwrite, out):
    """Fit a policy's weights by self-play (CMA-ES): each candidate plays one seat against the
    others of a pool (greedy, the shipped weights, the three shipped specialists, the search's
    current mean) and, in self-play, must leave no wonder stage or way of scoring unused; the
    same options give the same file, which `--policy-param heuristic.weights=FILE` then uses.
    """
    from wsim.run.runner import set_threads
    from wsim.agents.tune import document_text, out_file, tune

    t = load_tables(ctx)
    set_threads(threads)

    def on_generation(entry):
        if sys.stderr.isatty():
            sys.stderr.write(f"\r  generation {entry['generation'] + 1} / {generations}: best {entry['best']:.3f}, "
                             f"mean {entry['mean']:.3f}")
            sys.stderr.flush()

    with out_file(out, overwrite, generations) as write:
        doc = tune(t, players, generations, population, games, seed, on_generation)
        if sys.stderr.isatty():
            sys.stderr.write("\n")
        write(document_text(doc))
    for entry in doc["tune"]["log"]:
        click.echo(f"generation {entry['generation']}: best fitness {entry['best']:.4f}, mean {entry['mean']:.4f}")
    click.echo(f"weights: {Path(out)}")


@main.command("compile")
@click.argument("families", nargs=-1, type=click.Choice(FAMILIES))
@click.pass_context
def compile_cmd(ctx, families):
    """Fill numba's cache with the kernels, so that later runs start warm.

    FAMILIES: games (random, greedy and heuristic seats), rollout (runs with a searching seat),
    step (the step-level API driven from Python), profile (the instrumented loop of `wsim
    bench`); default: games rollout. Run it where the cache lives (a CI image, each Dask
    worker's machine) with the same NUMBA_CACHE_DIR and wsim; a family already cached only
    loads.
    """
    import time

    from wsim.run.compiling import DEFAULT_FAMILIES, CompileWatch, warm

    ctx.meta["wsim.compile_watch"].silence()  # this command says what it compiled
    t = load_tables(ctx)
    for family in families or DEFAULT_FAMILIES:
        started = time.perf_counter()
        with CompileWatch() as watch:
            warm(family, t)
        seconds = time.perf_counter() - started
        how = (f"compiled {sum(watch.kernels().values())} kernel functions" if watch.compiled
               else "loaded from the cache")
        click.echo(f"{family}: {how} in {seconds:.1f} s")


@main.command("bench")
@click.option("--quick", is_flag=True, help="Fewer games per measurement (a rough check, under a minute).")
@click.option("--save/--no-save", default=True, show_default=True, help="Record the results in bench/results/.")
@click.pass_context
def bench_cmd(ctx, quick, save):
    """Benchmarks: games/s by players, policy and threads; compile and start-up time; memory of a
    1,000,000-game run; trading solver calls/s; the reference engine's games/s."""
    from wsim.bench import run_benchmarks

    load_tables(ctx)  # a data error is an Error: line here too, before any benchmark
    run_benchmarks(quick=quick, save=save, echo=click.echo, data=ctx.obj.get("data"))


if __name__ == "__main__":
    main()
