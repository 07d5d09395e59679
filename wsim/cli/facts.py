"""`wsim cards`, `wsim score` and `wsim trade`: the card data, and positions of scenario files
(docs/interfaces.md §1, §3)."""

from __future__ import annotations

import json

import click

from wsim import codes, scenario
from wsim.api.facts import check_question, trade_card
from wsim.cli.options import load_tables
from wsim.cli.render import cards_text, score_text, trade_text
from wsim.describe import cards_json
from wsim.reference.positions import score_json, trade_json


@click.command("cards")
@click.option("--age", type=click.IntRange(1, 3), default=None, help="Only the cards of this age (1, 2 or 3).")
@click.option("--players", "players", type=click.IntRange(codes.MIN_PLAYERS, codes.MAX_PLAYERS), default=None,
              help="Only the deck for this many players (3..7); guilds are always listed.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (docs/interfaces.md §3) instead of a table.")
@click.pass_context
def cards_cmd(ctx, age, players, as_json):
    """List the compiled cards and wonders, as the simulator sees them."""
    t = load_tables(ctx)
    doc = cards_json(t, age=age, players=players)
    click.echo(json.dumps(doc, indent=1) if as_json else cards_text(doc, t.data_sha256))


def load_position(ctx: click.Context, path: str):
    """The Position of a scenario file, every mistake in it turned into a UserError (exit 2)."""
    return scenario.load(path, load_tables(ctx))


@click.command("score")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print JSON (docs/interfaces.md §1) instead of a table.")
@click.pass_context
def score_cmd(ctx, file, as_json):
    """Final scoring of the position in scenario FILE (a YAML file, docs/interfaces.md §1).

    No military conflict is resolved and no "when built" effect applied: tokens and coins are
    taken as given. End-of-game choices (science wildcards, Olympia B's copied guild, Manneken
    Pis A's stage-3 neighbour when copy3 is absent) maximise each seat's own total.
    """
    pos = load_position(ctx, file)
    doc = score_json(pos)
    click.echo(json.dumps(doc, indent=1) if as_json else score_text(pos, doc))


@click.command("trade")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--seat", type=int, required=True, help="The buying seat, 0..N-1.")
@click.option("--card", "card_name", default=None, metavar="NAME",
              help="The card to build (printed name; case, spaces and punctuation ignored).")
@click.option("--stage", is_flag=True, help="Price the seat's next wonder stage instead of a card.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (docs/interfaces.md §1) instead of text.")
@click.pass_context
def trade_cmd(ctx, file, seat, card_name, stage, as_json):
    """What it costs seat I to build a card (--card NAME) or its next wonder stage (--stage).

    Lists every Pareto-minimal purchase (coins paid to the left and right neighbours) in the
    position of scenario FILE, and whether the build is affordable and legal.
    """
    check_question(card_name, stage)
    pos = load_position(ctx, file)
    card = trade_card(pos, seat, card_name)
    doc = trade_json(pos, seat, card)
    click.echo(json.dumps(doc, indent=1) if as_json else trade_text(pos, seat, card, doc))
