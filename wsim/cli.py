"""The `wsim` command line (click). Every user mistake exits 2 with one `Error: ...` line."""

from __future__ import annotations

import json

import click

from wsim import RULES_VERSION, __version__, codes, tables
from wsim.describe import cards_json


class UserError(click.ClickException):
    """A user mistake: printed as `Error: <message>` with exit status 2, no traceback."""

    exit_code = 2


def load_tables(ctx: click.Context) -> tables.Tables:
    """The tables of the data file chosen by `--data` / WSIM_DATA (validated once per run)."""
    try:
        return tables.load(ctx.obj.get("data"))
    except tables.DataError as e:
        raise UserError(str(e)) from None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
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
        cost = ", ".join([f"{c['cost']['coins']} coin"] if c["cost"]["coins"] else []
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


if __name__ == "__main__":
    main()
