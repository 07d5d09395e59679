"""What `wsim editions` (wsim.analysis.editions) plays: the player counts, the populations, the
sizes, the designer's changes (wsim.analysis.edition_changes) and, checked before the first game,
every run: each edition's populations at each count, the change runs' baseline, and each change's
edited data and population, or why it is not played there. Also where each dataset goes under
OUT/data/, and the names of the files the comparison writes.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from wsim.analysis.edition_changes import all_changes
from wsim.errors import WsimError, brief, option
from wsim.tables import Tables

EDITIONS = (1, 2)
COUNTS = (3, 4, 5, 6, 7)  # the second edition has no two-player game
# the populations a run may name: each a population of `wsim survey` (its built-in set's
# specs), every seat one policy; rollout is left out (tens of games a second)
POPULATIONS = ("random", "greedy", "heuristic", "specialists", "learned")


@dataclass(frozen=True)
class Sizes:
    games: int  # games of every population of every edition and count (one survey)
    change_games: int  # games of each change's paired experiment (and of its baseline) at each count


FULL = Sizes(games=20_000, change_games=10_000)
QUICK = Sizes(games=2_000, change_games=1_000)
LIMITS = {"games": (10, 10**8), "change_games": (10, 10**8)}
CHUNK = 100_000  # games per part of every dataset
DATA, OPTIONS = "data", "options.json"
SIDES_CSV, SPREAD_CSV, CARDS_CSV, CHANGES_CSV, WHOLE_CSV, SUMMARY = (
    "sides.csv", "spread.csv", "cards.csv", "changes.csv", "whole.csv", "summary.txt")
FILES = (SIDES_CSV, SPREAD_CSV, CARDS_CSV, CHANGES_CSV, WHOLE_CSV, SUMMARY)
BASELINE = "baseline"
# a change's status at a player count (changes.csv)
PLAYED, NOT_IN_PLAY, NOT_PLAYABLE, NOT_REPLAYABLE = "played", "not in play", "not playable", "not replayable alone"


class EditionsError(WsimError):
    """An editions option, or an editions folder, that cannot be used."""


@dataclass(frozen=True)
class Plan:
    """What a run plays: its counts, populations (the first one plays the changes), sizes, seed,
    and the data of each edition (sha256)."""

    counts: tuple
    populations: tuple
    sizes: Sizes
    seed: int
    data_sha256: tuple  # (first edition's, second's)
    changes: tuple  # the replayable changes (edition_changes.Change)
    unplayable: tuple  # the changes not replayable alone (edition_changes.Unplayable)

    @property
    def default(self) -> str:
        """The population the changes are played under: the first one."""
        return self.populations[0]

    def options(self) -> dict:
        """The options as data/options.json records them (and --resume demands again)."""
        changes = hashlib.sha256(json.dumps([[c.id, list(c.edits)] for c in self.changes]).encode()).hexdigest()
        return {"players": list(self.counts), "populations": list(self.populations), **asdict(self.sizes),
                "seed": self.seed, "data_sha256": list(self.data_sha256), "changes_sha256": changes}


def make_plan(first: Tables, second: Tables, counts: list, populations: list, seed: int, quick: bool,
              **given) -> Plan:
    """The checked plan: --quick's sizes or the full run's, each size given overriding it."""
    sizes = asdict(QUICK if quick else FULL)
    for name, value in given.items():
        if value is None:
            continue
        low, high = LIMITS[name]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise EditionsError(f"{option(name)}: must be a whole number from {low:,} to {high:,}, got {brief(value)}")
        sizes[name] = value
    bad = [p for p in counts if isinstance(p, bool) or p not in COUNTS]
    if bad:
        raise EditionsError(f"{option('players')}: the two editions are compared at 3 to 7 players (the second has "
                            f"no two-player game), got {brief(bad[0])}")
    counts = tuple(sorted(set(counts)))
    if not counts:
        raise EditionsError(f"{option('players')}: give at least one player count")
    if not populations:
        raise EditionsError(f"{option('populations')}: give at least one population, e.g. learned,heuristic")
    unknown = [p for p in populations if p not in POPULATIONS]
    if unknown:
        raise EditionsError(f"{option('populations')}: unknown population {brief(unknown[0])} (one of: "
                            f"{', '.join(POPULATIONS)})")
    if len(set(populations)) != len(populations):
        twice = next(p for p in populations if populations.count(p) > 1)
        raise EditionsError(f"{option('populations')}: {twice!r} is named twice")
    for t, edition in ((first, 1), (second, 2)):
        if t.edition != edition:
            raise EditionsError(f"the data file {t.source} is of the {t.edition_name}, not edition {edition}")
    changes, unplayable = all_changes(first, second)
    return Plan(counts, tuple(populations), Sizes(**sizes), seed, (first.data_sha256, second.data_sha256), changes,
                unplayable)


def population_specs(names: tuple, players: int, games: int) -> list:
    """(name, POLICIES, own params) of each population named, as `wsim survey` builds them."""
    from wsim.analysis.populations import builtin_specs

    known = {name: (name, spec, params) for name, spec, params in builtin_specs(players, games)}
    known["random"] = ("random", "random", ())
    return [known[n] for n in names]


def populations(tables: Tables, plan: Plan, players: int, names: tuple | None = None, games: int | None = None):
    """The populations (wsim.analysis.populations.Population) of `names` (default: the plan's) at
    `players` players on `games` games (default: the plan's), every side random."""
    from wsim.analysis.populations import build_populations

    games = plan.sizes.games if games is None else games
    return build_populations(tables, population_specs(names or plan.populations, players, games), (), players=players,
                             games=games, seed=plan.seed, wonders="random", sides="random", manneken_pis=False,
                             chunk_size=CHUNK)


@dataclass
class Prepared:
    """Everything a run plays, checked before the first game: each edition's populations per
    count, the change runs' baseline population, and per count each change's edited tables and
    population, or why it is not played there."""

    tables: dict  # edition -> Tables
    pops: dict  # (edition, players) -> [Population]
    baseline: dict  # players -> Population (the first population, change_games games, unedited first edition)
    runs: dict  # (change id, players) -> (Tables, Population)
    skipped: dict = field(default_factory=dict)  # (change id, players) -> (status, reason)


def prepare(first: Tables, second: Tables, plan: Plan) -> Prepared:
    """Check every run before any is played (a model that cannot play an edition, or an edition's
    data, is refused here: nothing is played)."""
    from wsim.analysis.ablate import refuse_edits_out_of_play
    from wsim.analysis.edits import EditError, apply_edits
    from wsim.analysis.populations import PopulationError

    tables = {1: first, 2: second}
    prepared = Prepared(tables, {}, {}, {})
    for players in plan.counts:
        for edition, t in tables.items():
            try:
                prepared.pops[edition, players] = populations(t, plan, players)
            except PopulationError as e:
                raise EditionsError(f"the {t.edition_name} at {players} players: {e}") from None
        prepared.baseline[players] = populations(first, plan, players, (plan.default,), plan.sizes.change_games)[0]
    for change in plan.changes:
        edited = apply_edits(first, list(change.edits))  # an EditError here is a bug of edition_changes
        for players in plan.counts:
            base = prepared.baseline[players]
            try:
                refuse_edits_out_of_play(first, base.settings, list(change.edits))
            except EditError as e:
                prepared.skipped[change.id, players] = (NOT_IN_PLAY, str(e))
                continue
            inert = inert_chains(first, change.edits, players)
            if inert:
                prepared.skipped[change.id, players] = (NOT_IN_PLAY, inert)
                continue
            try:
                pop = populations(edited, plan, players, (plan.default,), plan.sizes.change_games)[0]
            except PopulationError as e:
                prepared.skipped[change.id, players] = (NOT_PLAYABLE, f"{plan.default} cannot play it: {e}")
                continue
            prepared.runs[change.id, players] = (edited, pop)
    return prepared


def inert_chains(t: Tables, edits: tuple, players: int) -> str:
    """Why a change whose every edit adds a chain from a card no game at `players` deals changes
    no game there (ablate's check lets it through: the later card it changes is dealt), or ""."""
    sources = []
    for edit in edits:
        subject, _, value = edit.partition("=")
        card, dot, name = subject.strip().rpartition(".")
        if not dot or name.strip().lower() != "chain_to" or value.strip().lower() == "none":
            return ""
        c = t.card_id(card)
        if t.card_copies[c, players] > 0:
            return ""
        sources.append(t.card_names[c])
    return f"{', '.join(sources)} is not dealt at {players} players: a chain from it changes no game"


# ---------------------------------------------------------------------------------------------
# Where each dataset is

def edition_dir(data: Path, edition: int, players: int) -> Path:
    return data / f"edition-{edition}" / f"P{players}"


def change_dir(data: Path, players: int) -> Path:
    return data / "changes" / f"P{players}"


def command_line(plan: Plan) -> str:
    """The command that makes this comparison again (its folder called OUT)."""
    return (f"wsim editions --players {','.join(map(str, plan.counts))} --populations {','.join(plan.populations)} "
            f"--games {plan.sizes.games} --change-games {plan.sizes.change_games} --seed {plan.seed} --out OUT")
