"""Populations for `wsim survey` (docs/interfaces.md §6): named assignments of policies to seats, each
played on the same deals (games 0..N−1 of the survey's seed), possibly on the first of them only.

`--population NAME=POLICIES[@GAMES]`: POLICIES is what `simulate --policies` takes, one entry
for every seat or one per seat, with labels; `--policy-param` settings apply to every
population that has their policy or label. Without --population the built-in set is used.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from wsim.errors import WsimError, brief
from wsim.run.settings import Settings, SettingsError, build_settings
from wsim.tables import Tables

NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
ROLLOUT_GAMES = 1_000  # the built-in rollout population's games: a rollout game takes about a third of a second
SPECIALISTS = ("handset", "science", "military", "civilian")  # shipped weights, seat by seat


class PopulationError(WsimError):
    """A --population (or a parameter of one) that cannot be used."""


@dataclass(frozen=True)
class Population:
    """One population of a survey: its name, its run settings, and how the user wrote it."""

    name: str
    settings: Settings
    spec: str  # POLICIES[@GAMES] as given (or built in), for the page

    @property
    def games(self) -> int:
        return self.settings.games


def builtin_specs(players: int, games: int) -> list:
    """The built-in populations at `players` players: (name, POLICIES[@GAMES], --policy-param
    settings) — heuristic self-play, the hand-set and specialist weights seat by seat, greedy
    self-play, the shipped learned model in self-play, rollout self-play on fewer games."""
    seats = [SPECIALISTS[s % len(SPECIALISTS)] for s in range(players)]
    specialists = ",".join(f"heuristic:{w}" for w in seats)
    return [("heuristic", "heuristic", ()),
            ("specialists", specialists, tuple(f"{w}.weights={w}" for w in dict.fromkeys(seats))),
            ("greedy", "greedy", ()),
            ("learned", "learned", ()),
            ("rollout", f"rollout@{min(ROLLOUT_GAMES, games)}", ())]


def builtin_help() -> str:
    """The built-in set, for `wsim survey --help`."""
    return ("heuristic (the tuned weights at every seat), specialists (the hand-set, science, military and "
            "civilian weights, seat by seat), greedy, learned (the shipped model), and rollout on the first "
            f"{ROLLOUT_GAMES:,} games (or --games if fewer)")


def parse_population(text: str) -> tuple:
    """(name, POLICIES[@GAMES]) of one --population NAME=POLICIES[@GAMES]."""
    name, eq, spec = text.partition("=")
    name, spec = name.strip(), spec.strip()
    if not eq or not spec:
        raise PopulationError(f"--population: expected NAME=POLICIES[@GAMES], got {brief(text)}")
    if not NAME.match(name):
        raise PopulationError(f"--population: name {brief(name)} must be 1 to 40 letters, digits, '_' or '-'")
    return name, spec


def build_populations(tables: Tables, specs: list, policy_params: tuple, *, players: int, games: int, seed: int,
                      wonders: str, sides: str, manneken_pis: bool, chunk_size: int) -> list:
    """The checked populations of (name, POLICIES[@GAMES], own params) specs: every population
    plays games 0..GAMES−1 (default `games`) of the same deals; each --policy-param setting goes
    to the populations that have its policy or label, and one that fits none is refused."""
    seen = set()
    out = []
    used = set()
    for name, spec, own in specs:
        if name in seen:
            raise PopulationError(f"--population: {name!r} is named twice")
        seen.add(name)
        policies, at, count = spec.partition("@")
        n = games
        if at:
            if not re.fullmatch(r"[0-9]{1,19}", count.strip()) or not 1 <= int(count) <= games:
                raise PopulationError(f"--population {name}: @GAMES must be a whole number from 1 to --games "
                                      f"({games:,}), got {brief(count)}")
            n = int(count)
        entries = [e.strip() for e in policies.split(",")]
        if len(entries) == 1:
            entries *= players
        targets = {part for e in entries for part in (e.partition(":")[0], e.partition(":")[2]) if part}
        mine = tuple(p for p in policy_params if str(p).partition(".")[0].strip() in targets)
        used.update(mine)
        try:
            settings = build_settings(tables, players=players, policies=entries, seed=seed, games=n, wonders=wonders,
                                      sides=sides, manneken_pis=manneken_pis, chunk_size=chunk_size,
                                      policy_params=tuple(own) + mine)
        except SettingsError as e:
            raise PopulationError(f"--population {name}: {e}") from None
        out.append(Population(name, settings, spec))
    unused = [p for p in policy_params if p not in used]
    if unused:
        raise PopulationError(f"--policy-param: {brief(unused[0])} names no policy or label of any population")
    return out


def rungs(populations: list, anchor: str | None = None) -> tuple:
    """(anchor, below): the population a survey's anchored verdicts rest on — `anchor`, by
    default the last listed (populations listed weakest to strongest: the strongest) — and the
    next rung down, the one listed just before it (None for the first)."""
    names = [p.name for p in populations]
    if anchor is None:
        anchor = names[-1]
    if anchor not in names:
        raise PopulationError(f"--anchor: {brief(anchor)} is not a population of this survey (populations: "
                              f"{', '.join(names)})")
    at = names.index(anchor)
    return anchor, names[at - 1] if at else None


def estimate_seconds(tables: Tables, populations: list, done: dict | None = None) -> list:
    """(population, seconds) of play for each population's games still to play (`done`: games
    already played, by name), from a short timed pilot of its first games on this machine (the
    kernels are loaded, or compiled, first and not counted)."""
    from wsim.run.runner import Runner

    out = []
    for pop in populations:
        todo = pop.games - (done or {}).get(pop.name, 0)
        if todo <= 0:
            out.append((pop, 0.0))
            continue
        runner = Runner(tables, pop.settings)
        runner.load()
        games, seconds = 1, 0.0
        while seconds < 0.25 and games < pop.games:
            games = min(pop.games, games * 4)
            started = time.perf_counter()
            runner.play(0, games)
            seconds = time.perf_counter() - started
        out.append((pop, todo * seconds / games))
    return out
