"""`wsim survey` (docs/interfaces.md §6): the same deals played by several populations of players, their
win rates and card effects side by side, and a verdict on each: is it a property of the game,
or of the players?

REPORT/data/NAME holds each population's dataset, written in place: an interrupted survey keeps
its whole parts and `--resume` completes it. The tables and the page are written last; with
`--overwrite`, the whole survey is staged and swapped in at the end (the old one stays until then).
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from wsim import codes
from wsim.analysis import anchored as anchored_mod
from wsim.analysis.balance import effects, read
from wsim.analysis.balance.report import csv_bytes, wonders_table
from wsim.analysis.playtest import compare, people_rows
from wsim.analysis.populations import rungs
from wsim.analysis.significance import q_values, wilson_ci
from wsim.analysis.stats import Z95, mean_half_width
from wsim.analysis.verdicts import (games_for_estimate, games_for_rate, games_text, normal_critical, t_critical,
                                   verdicts)
from wsim.dataset import parts
from wsim.dataset.folder import LOCK, STAGING, DatasetError, OutputFolder, check_target
from wsim.dataset.write import Request, write_dataset
from wsim.people import columns as people_columns
from wsim.run.settings import SettingsError, settings_from_metadata, wonders_text
from wsim.tables import Tables

DATA = "data"
SURVEY_CSV, VERDICTS_CSV, CARD_VERDICTS_CSV, PAIRS_CSV, REFERENCE_CSV, INDEX_HTML = (
    "survey.csv", "verdicts.csv", "card_verdicts.csv", "pairs.csv", "reference.csv", "index.html")
CARD_EFFECTS_CSV = "card_effects.csv"
PLAY_CSV = "play.csv"
ANCHORED_CSV, CARD_ANCHORED_CSV = "anchored.csv", "card_anchored.csv"
FILES = (INDEX_HTML, SURVEY_CSV, VERDICTS_CSV, CARD_VERDICTS_CSV, CARD_EFFECTS_CSV, PAIRS_CSV, PLAY_CSV, REFERENCE_CSV,
         ANCHORED_CSV, CARD_ANCHORED_CSV)
SURVEY_COLUMNS = ("population", "players", "wonder", "side", "seats", "wins", "win_rate", "ci_low", "ci_high",
                  "q_value")
VERDICT_COLUMNS = ("players", "wonder", "side", "verdict", "min_rate", "max_rate", "populations", "games_needed")
CARD_VERDICT_COLUMNS = ("players", "card", "verdict", "min_effect", "max_effect", "populations", "games_needed")
PAIR_COLUMNS = ("players", "wonder", "side", "population_a", "population_b", "games", "diff", "ci_low", "ci_high",
                "q_value")
CARD_EFFECT_COLUMNS = ("population", "players", "card", "seats_built", "build_rate", "effect", "ci_low", "ci_high",
                       "q_value")
PLAY_COLUMNS = ("population", "players", "games", "mean_points", "points_ci_low", "points_ci_high", "mean_gap",
                "gap_ci_low", "gap_ci_high", "guild_wins", "winners_with_guild", "guild_ci_low", "guild_ci_high",
                *read.CATEGORY_COLUMNS, "coins", "stages", "science_sets", "sets_ci_low", "sets_ci_high")
REFERENCE_COLUMNS = ("players", "wonder", "side", "population", "rate", "people_rate", "diff", "ci_low", "ci_high",
                     "q_value", "disagrees")


def owns(name: str) -> bool:
    """The entries `wsim survey` writes (and replaces with --overwrite)."""
    return name in FILES or name == DATA


@dataclass
class Survey:
    """A survey's tables and the files that hold them."""

    survey: pd.DataFrame
    verdicts: pd.DataFrame
    card_verdicts: pd.DataFrame
    pairs: pd.DataFrame
    reference: pd.DataFrame | None
    card_effects: pd.DataFrame  # every population's card effects (their verdicts' evidence)
    play: pd.DataFrame  # how each population plays (play.csv)
    files: dict = field(default_factory=dict)
    people_lines: list = field(default_factory=list)  # each population's distance to people (the page's first lines)
    edition: int = 1  # the card data's (codes.EDITIONS): people's games are of the first only
    # verdicts anchored on skill (wsim.analysis.anchored): anchored.csv, card_anchored.csv
    anchored: pd.DataFrame | None = None
    card_anchored: pd.DataFrame | None = None
    card_pairs: pd.DataFrame | None = None  # every two populations' card effects compared on their shared games


# ---------------------------------------------------------------------------------------------
# Playing

def precheck(out: Path, mode: str):
    """Refusals that need no lock (a refused survey writes nothing); _run checks again under it."""
    if check_target(out) != "dir":
        return
    names = [n for n in os.listdir(out) if n not in (LOCK, STAGING)]
    if mode == "new":
        _refuse_existing(out, names)
    elif mode == "resume":
        _refuse_no_survey(out, names)


def _refuse_no_survey(out: Path, names: list):
    """--resume completes a survey: a folder with other contents and no survey is not one."""
    if names and DATA not in names:
        raise DatasetError(f"--resume: {out} holds no survey to resume (no {DATA}/ folder), and is not empty")


def _refuse_existing(out: Path, names: list):
    """A new survey goes to an empty folder; an interrupted one is completed with --resume."""
    if not names:
        return
    if DATA in names and INDEX_HTML not in names:
        raise DatasetError(f"--out: {out} holds an unfinished survey (use --resume to complete it, or --overwrite "
                           "to replace it)")
    raise DatasetError(f"--out: {out} is not empty (use --overwrite to replace the survey in it)")


def run_survey(tables: Tables, populations: list, out: Path, mode: str, reference: pd.DataFrame | None,
               progress, on_run=None, dask: str | None = None, threads: int | None = None,
               anchor: str | None = None) -> Survey:
    """Play every population (mode "new", "overwrite" or "resume") and write the survey
    (`anchor`: the population its anchored verdicts rest on; None: the last)."""
    precheck(out, mode)
    from wsim.run.cluster import optional_cluster

    # one cluster for every population
    with optional_cluster(dask, threads) as cluster, OutputFolder(out, owns=owns) as folder:
        return _run(tables, populations, folder, mode, reference, progress, on_run, cluster, threads, anchor)


def _run(tables, populations, folder: OutputFolder, mode, reference, progress, on_run, cluster, threads,
         anchor=None) -> Survey:
    present = folder.entries()
    if mode == "new":
        _refuse_existing(folder.path, present)
    if mode == "resume":
        _refuse_no_survey(folder.path, present)
    old = folder.replaced(True, "survey", folders=(DATA,)) if mode == "overwrite" else []
    if mode == "resume":
        _check_resumable(folder.path / DATA, populations, tables)
    staged = mode == "overwrite"
    if staged:  # everything staged, even into an empty folder: an interrupted --overwrite changes nothing
        folder.begin_replacement()
    try:
        data = folder.target / DATA
        for pop in populations:
            here = data / pop.name
            resume = mode == "resume" and here.is_dir() and parts.part_files(here)
            result = write_dataset(Request(tables, pop.settings, "resume" if resume else "new", threads=threads),
                                   here, progress, cluster, label=pop.name)
            if on_run is not None:
                on_run(pop, result)
        survey = build(data, populations, tables, reference, folder.path / DATA, anchor)
        stale = [n for n in present if n in FILES and n not in survey.files] if mode == "resume" else []
        replacing = [n for n in present if n in survey.files] if mode == "resume" else []
        if replacing or stale:
            folder.begin_replacement()  # the new tables and page replace the old ones at once
        for name, blob in survey.files.items():
            folder.write(name, blob)
        folder.sync()
        if staged:
            folder.commit(old, [DATA] + list(survey.files))
        elif replacing or stale:
            folder.commit(replacing + stale, list(survey.files))
    except BaseException:
        folder.abort()
        raise
    return survey


def games_done(out: Path, populations: list) -> dict:
    """Population name -> games already in REPORT/data/NAME (for --resume's estimate)."""
    done = {}
    for pop in populations:
        files = parts.part_files(out / DATA / pop.name) if (out / DATA / pop.name).is_dir() else []
        done[pop.name] = sum(parts.read_header(f).games for f in files)
    return done


def _check_resumable(data: Path, populations: list, tables: Tables):
    """--resume: every dataset already in REPORT/data must be a population of this survey, played
    with the settings this survey gives it (the options of the interrupted survey)."""
    if not data.is_dir():
        return
    names = {p.name: p for p in populations}
    for entry in sorted(data.iterdir()):
        if entry.name not in names:
            raise DatasetError(f"--resume: {entry} is not a population of this survey (populations: "
                               f"{', '.join(names)}); give the --population options of the interrupted survey")
        files = parts.part_files(entry)
        if not files:
            continue
        header = parts.read_header(files[0])
        if header.meta.get("data_sha256") != tables.data_sha256:
            raise DatasetError(f"--resume: {entry} was played with other card data than this survey's")
        try:
            recorded = settings_from_metadata(header.meta, tables)
        except SettingsError as e:
            raise DatasetError(f"--resume: {files[0]}: its metadata holds invalid settings ({e})") from None
        wanted = names[entry.name].settings
        for name in ("players", "policies", "labels", "params", "seed", "games", "wonders", "sides", "manneken_pis",
                     "chunk_size"):
            a, b = getattr(recorded, name), getattr(wanted, name)
            if a != b:
                shown = (wonders_text(a), wonders_text(b)) if name == "wonders" else (a, b)
                raise DatasetError(f"--resume: {entry} was played with {name} {shown[0]}, this survey gives it "
                                   f"{shown[1]}; give the options of the interrupted survey")


# ---------------------------------------------------------------------------------------------
# The tables

def build(data: Path, populations: list, tables: Tables, reference: pd.DataFrame | None,
          shown: Path | None = None, anchor: str | None = None, files: bool = True) -> Survey:
    """Read every population's dataset in `data` and make the survey's tables and files
    (`shown`: where the page says the datasets are; `anchor`: the population the anchored
    verdicts rest on, None: the last listed; PopulationError if it is none of them; files=False:
    the tables only, no page, CSVs or distance lines, as the atlas needs)."""
    anchor, below = rungs(populations, anchor)
    con = read.connect()
    datasets = {p.name: read.open_dataset(data / p.name, tables) for p in populations}
    rates, cards, fits, sized = [], [], {}, None
    guilds = [tables.card_names[c] for c in range(tables.n_cards) if tables.ent_kind[c] == codes.PURPLE]
    play = pd.concat([play_rows(read.play_table(con, datasets[p.name], guilds).merge(
        read.science_sets_table(con, datasets[p.name], tables), on="players")).assign(population=p.name)
                      for p in populations], ignore_index=True)
    for pop in populations:
        ds = datasets[pop.name]
        w = wonders_table(read.wonder_table(con, ds))
        rates.append(w.assign(population=pop.name, games=pop.games))
        cells = read.card_cells(con, ds)
        fits[pop.name] = (cells, effects.fit_cells(cells))
        c = effects.card_effects(cells, fitted=fits[pop.name][1])
        cards.append(c.assign(population=pop.name, games=pop.games))
        if pop.name == anchor:
            sized = [t.assign(population=pop.name, games=pop.games)
                     for t in anchored_mod.population_sizes(con, ds, w, c)]
    survey = pd.concat(rates, ignore_index=True)
    survey["q_value"] = q_values(survey)
    card_rows = pd.concat(cards, ignore_index=True)
    card_rows["q_value"] = q_values(card_rows)
    pairs, card_pairs = _pairs(con, populations, datasets, fits)
    rate_c = _criticals(survey, normal_critical)
    survey["needed"] = [games_for_rate(r.win_rate, r.fair_share, r.seats, r.games, rate_c[r.players])
                        for r in survey.itertuples()]
    pair_c = _criticals(pairs, normal_critical)
    pairs["needed"] = [games_for_estimate(r.diff, (r.ci_high - r.ci_low) / (2 * Z95), r.games, pair_c[r.players])
                       for r in pairs.itertuples()]
    card_m = card_rows.groupby("players").q_value.count().to_dict()
    card_rows["needed"] = [games_for_estimate(r.effect, r.se, r.games,
                                              t_critical(card_m[r.players], read.jackknife_df(r.games)))
                           for r in card_rows.itertuples()]
    card_pair_m = card_pairs.groupby("players").q_value.count().to_dict()
    card_pairs["needed"] = [games_for_estimate(r.diff, r.se, r.games,
                                               t_critical(card_pair_m.get(r.players, 1), read.jackknife_df(r.games)))
                            for r in card_pairs.itertuples()]
    wonder_verdicts = verdicts(survey.assign(value=survey.win_rate, deviation=survey.win_rate - survey.fair_share),
                               pairs, ["players", "wonder", "side"])
    card_verdicts = verdicts(card_rows.assign(value=card_rows.effect, deviation=card_rows.effect),
                             card_pairs, ["players", "card"])
    people = comparison = None
    if reference is not None:
        people = people_rows(reference)
        comparison = compare(reference, survey)
    result = Survey(survey, _whole_games(wonder_verdicts.rename(columns={"min": "min_rate", "max": "max_rate"})),
                    _whole_games(card_verdicts.rename(columns={"min": "min_effect", "max": "max_effect"})),
                    pairs, comparison, card_rows, play)
    result.card_pairs = card_pairs
    result.edition = tables.edition
    result.anchored = anchored_mod.anchored_sides(sized[0], pairs, comparison, anchor, below)
    result.card_anchored = anchored_mod.anchored_cards(sized[1], card_pairs, anchor, below)
    if not files:
        return result
    shown_rows = people_columns.with_people(pd.concat([survey] + ([people] if people is not None else []),
                                                      ignore_index=True), tables.edition)
    result.people_lines = people_lines(data, populations, tables)
    from wsim.analysis.survey_page import page

    result.files[INDEX_HTML] = page(result, shown_rows, populations, datasets, shown or data).encode()
    result.files[SURVEY_CSV] = csv_bytes(shown_rows, SURVEY_COLUMNS + people_columns.PEOPLE_COLUMNS)
    result.files[VERDICTS_CSV] = csv_bytes(result.verdicts, VERDICT_COLUMNS)
    result.files[CARD_VERDICTS_CSV] = csv_bytes(result.card_verdicts, CARD_VERDICT_COLUMNS)
    result.files[PAIRS_CSV] = csv_bytes(pairs, PAIR_COLUMNS)
    result.files[CARD_EFFECTS_CSV] = csv_bytes(card_rows, CARD_EFFECT_COLUMNS)
    result.files[PLAY_CSV] = csv_bytes(play, PLAY_COLUMNS)
    if comparison is not None:
        result.files[REFERENCE_CSV] = csv_bytes(comparison, REFERENCE_COLUMNS)
    result.files[ANCHORED_CSV] = csv_bytes(result.anchored, anchored_mod.SIDE_COLUMNS)
    result.files[CARD_ANCHORED_CSV] = csv_bytes(result.card_anchored, anchored_mod.CARD_COLUMNS)
    return result


def people_lines(data: Path, populations: list, tables: Tables) -> list:
    """How far each population (its dataset in data/NAME) is from people at the survey's player
    count (wsim.people.columns.distance_lines)."""
    from wsim.people.seats import dataset_aggregate

    players = populations[0].settings.players
    if not people_columns.has_people(players, tables.edition):
        return people_columns.distance_lines({}, players, tables.edition)
    return people_columns.distance_lines({p.name: dataset_aggregate(data / p.name, tables, p.name)
                                          for p in populations}, players, tables.edition)


def play_rows(table: pd.DataFrame) -> pd.DataFrame:
    """read.play_table's per-game deviations turned into 95% intervals of the means (normal, over
    independent games) and the share of games won with a guild with its Wilson interval."""
    out = table.copy()
    for what in ("points", "gap", "sets"):
        half = mean_half_width(out[f"sd_{what}"].fillna(0), out.games)
        out[f"{what}_ci_low"] = out[f"mean_{what}"] - half
        out[f"{what}_ci_high"] = out[f"mean_{what}"] + half
    out["science_sets"] = out.mean_sets
    out["winners_with_guild"] = out.guild_wins / out.games
    bounds = [wilson_ci(int(w), int(g)) for w, g in zip(out.guild_wins, out.games)]
    out["guild_ci_low"] = [lo for lo, _ in bounds]
    out["guild_ci_high"] = [hi for _, hi in bounds]
    return out


def _criticals(table: pd.DataFrame, critical) -> dict:
    """Player count -> the Bonferroni threshold of its family in `table` (rows with a q-value)."""
    return {players: critical(m) for players, m in table.groupby("players").q_value.count().items()}


def _whole_games(table: pd.DataFrame) -> pd.DataFrame:
    """games_needed as a whole number in the CSV (not 1.2e+06), "inf" for a deviation of 0, empty
    unless `not resolved`."""
    return table.assign(games_needed=table.games_needed.map(games_text))


def _pairs(con, populations: list, datasets: dict, fits: dict) -> tuple:
    """pairs.csv (every two populations' win rates compared game by game on the games they
    share, diff = a − b) and the same for card effects (paired jackknife), each with q-values
    (one family per player count)."""
    rows, card_rows = [], []
    for a, b in itertools.combinations(populations, 2):
        shared = min(a.games, b.games)
        for r in read.paired_wonders(con, datasets[b.name], datasets[a.name], shared).itertuples(index=False):
            n = int(r.seats)
            diff, lo, hi, p = effects.paired_mean_ci(n, float(r.wins_edited - r.wins_base), float(r.sum_d2))
            rows.append({"players": int(r.players), "wonder": r.wonder, "side": r.side, "population_a": a.name,
                         "population_b": b.name, "games": shared, "diff": diff, "ci_low": lo, "ci_high": hi,
                         "p_value": p})
        fitted = tuple(fits[x.name] if x.games == shared else _restricted(con, datasets[x.name], shared)
                       for x in (b, a))
        paired = effects.paired_effects(fitted[0][0], fitted[1][0], fitted=(fitted[0][1], fitted[1][1]))
        paired = paired.assign(population_a=a.name, population_b=b.name, games=shared)
        card_rows.append(paired)
    pairs = pd.DataFrame(rows, columns=[*PAIR_COLUMNS[:-1], "p_value"])
    pairs["q_value"] = q_values(pairs)
    card_pairs = pd.concat(card_rows, ignore_index=True) if card_rows else pd.DataFrame(
        columns=[*effects.PAIRED_COLUMNS, "population_a", "population_b", "games"])
    card_pairs["q_value"] = q_values(card_pairs)
    return pairs, card_pairs


def _restricted(con, ds, games: int) -> tuple:
    """(cells, fits) of the first `games` games of a dataset."""
    cells = read.card_cells(con, ds, games)
    return cells, effects.fit_cells(cells)
