"""A written dataset from Python: what `wsim check` and `wsim replay` print, as objects.

    import wsim
    found = wsim.check("results/five")            # .ok, .problems, .closing
    game = wsim.replay("results/five", game=123)  # .log (the move log, `--json`), .text (in words)

`data` names a card data file (None: the data the dataset carries, else the built-in one).
Every mistake is a `wsim.WsimError` naming the argument as written here.
"""

from __future__ import annotations

from dataclasses import dataclass

from wsim.api.runs import folder_arg
from wsim.errors import WsimError, option, whole_number
from wsim.run.settings import MAX_GAMES


@dataclass(frozen=True)
class Checked:
    """What `wsim check` found: `ok`, one line per problem, and the closing line (`ok: N games,
    M rows`, `damaged: K problems` or `incomplete: G of N games`)."""

    ok: bool
    problems: tuple
    closing: str


def check(dataset, *, data=None) -> Checked:
    """Verify a dataset folder against its manifest (`wsim check`): parts present, rows,
    checksums, settings. Reads only; a damaged dataset is a result, not an error."""
    from wsim import tables
    from wsim.dataset import manifest

    report = manifest.check(folder_arg(dataset, "dataset", "a dataset folder"), tables.load(data))
    return Checked(report.ok, tuple(report.problems), report.closing)


class ReplayMismatch(RuntimeError):
    """The kernels' game and the reference engine disagree: a defect of wsim, not a mistake."""


@dataclass(frozen=True)
class Replay:
    """One game of a dataset played again: its move log (the JSON document `wsim replay --json`
    prints) and the game in words (what `wsim replay` prints)."""

    log: dict
    text: str


def replay(dataset, game, *, data=None) -> Replay:
    """Game `game` of a dataset, played again from its settings by the kernels with logging on and
    checked move by move by the reference engine (`wsim replay`). The card data is the one the
    dataset carries; an explicit `data` must be that same file."""
    from wsim import tables
    from wsim.dataset import parts
    from wsim.dataset.folder import DatasetError
    from wsim.dataset.plan import dataset_tables
    from wsim.logtext import log_text
    from wsim.reference.replay import ReplayError, replay as reference_replay
    from wsim.run.runner import Runner, game_log
    from wsim.run.settings import SettingsError, settings_from_metadata

    path = folder_arg(dataset, "dataset", "a dataset folder")
    whole_number(game, "game", 0, MAX_GAMES - 1)
    header = parts.read_metadata(path)
    meta = header.meta
    other = parts.other_rules(meta)
    if other:
        raise DatasetError(f"{path}: dataset {other}")
    # a dataset from before the data text travelled is replayed with the installed data, if it is its own
    t = dataset_tables(path / header.name, header, tables.load(data), data is not None or header.data_text is None,
                       f"{path}: dataset written with other card data (sha256 {{recorded}}…, "
                       f"{'installed' if data is None else 'the data file given'} {{given}}…)")
    try:
        settings = settings_from_metadata(meta, t)
    except SettingsError as e:
        raise DatasetError(f"{path / header.name}: its metadata holds invalid settings ({e})") from None
    if game >= settings.games:
        raise WsimError(f"{option('game')}: the dataset has games 0..{settings.games - 1}, got {game}")
    doc = game_log(Runner(t, settings), int(game))
    try:
        reference_replay(t, doc)
    except ReplayError as e:
        raise ReplayMismatch(f"internal error: the reference engine rejects this game: {e}") from None
    return Replay(doc, log_text(doc, list(settings.labels)))
