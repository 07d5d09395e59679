"""Reading datasets for the balance report: DuckDB aggregates the parts (never every row in
memory at once) into the small tables the statistics work on.

Only the players' rows count: at 2 players the Free City's row (the `free_city` column, seat 2)
is left out, as it is from the ranks. Card effects use the game's block `game % GROUPS` so that
the paired jackknife (wsim.analysis.balance.effects) can leave whole games out.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa

from wsim import codes, signals
from wsim.dataset import folder as folder_mod
from wsim.dataset import manifest, parts
from wsim.dataset.folder import DatasetError
from wsim.run.settings import Settings
from wsim.tables import Tables

GROUPS = 20  # game blocks for the jackknife: enough for a t interval with 19 degrees of freedom
MEMORY_LIMIT = "512MB"  # DuckDB spills beyond this: a 10M-row paired report peaks under 1 GB
CATEGORY_COLUMNS = [f"vp_{c}" for c in codes.CATEGORIES]
_tables = itertools.count()  # each query registers its parts under a name of its own


@dataclass(frozen=True)
class Dataset:
    """A complete dataset folder, verified (`wsim.dataset.manifest.check`): its run metadata,
    settings and card data, and the part files its manifest lists."""

    path: Path
    meta: dict
    settings: Settings
    files: tuple  # Paths, in game order
    tables: Tables  # the card data its games were played with

    @property
    def policies(self) -> list:
        return list(self.settings.labels)


def open_dataset(path: Path, installed: Tables, option: str = "DIR") -> Dataset:
    """The dataset in `path`, which must be whole (written to the end, manifest present) and
    pass `wsim check` (checksums included: hashing costs a hundredth of reading); DatasetError
    naming `option` otherwise. `installed`: the card data for a dataset that carries none."""
    kind = folder_mod.probe(path)
    if kind != "dir":
        what = {"missing": "no such folder", "other": "not a folder"}.get(kind, kind)
        raise DatasetError(f"{option}: {path}: {what}")
    if folder_mod.lock_is_held(path):
        raise DatasetError(f"{option}: {path} is being written by another wsim run")
    if not (path / parts.MANIFEST).exists():
        if parts.part_files(path):
            raise DatasetError(f"{option}: {path}: an incomplete dataset (no manifest): finish it with "
                               "`wsim simulate --resume` first")
        raise DatasetError(f"{option}: {path}: no wsim dataset here (no part-NNNNN.parquet files)")
    report = manifest.check(path, installed)
    if not report.ok:
        more = f"; `wsim check {path}` lists all {len(report.problems)}" if len(report.problems) > 1 else ""
        raise DatasetError(f"{option}: {report.problems[0]}{more}")
    return Dataset(path, report.meta, report.settings, report.files, report.tables)


def jackknife_df(games: int) -> int:
    """The jackknife's degrees of freedom on `games` games: one less than its game blocks."""
    return min(GROUPS, games) - 1


def connect() -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with a memory cap (it spills beyond it) and no progress bar."""
    con = duckdb.connect(config={"memory_limit": MEMORY_LIMIT})
    con.execute("SET enable_progress_bar = false")
    return con


def _rows(con, ds: Dataset, columns: list, games: int | None = None) -> str:
    """A SQL table of the players' rows of a dataset, `columns` only; with `games`, of games
    0..games−1 only. At 2 players the Free City's row is the one its `free_city` column marks,
    whatever its `policy` says. The parts are read through parts.arrow_dataset (their paths
    literal), those past `games` not at all: parts hold consecutive games."""
    fc = ds.settings.free_city
    name = f"rows_{next(_tables)}"
    files = ds.files[:-(-games // ds.settings.chunk_size)] if games is not None else ds.files
    con.register(name, parts.arrow_dataset(files))
    where = ["NOT free_city" if fc else "true"] + ([f"game < {int(games)}"] if games is not None else [])
    return f"(SELECT {', '.join(columns)} FROM {name} WHERE {' AND '.join(where)})"


def _query(con, sql: str, ds: Dataset) -> pd.DataFrame:
    try:
        return con.execute(sql).df()
    except BaseException as e:
        # DuckDB turns a Ctrl-C or SIGTERM that reaches it into its own "Query interrupted"
        # error: the signal, remembered, ends the command instead
        signals.check()
        if isinstance(e, (duckdb.Error, OSError, pa.ArrowException)):
            raise DatasetError(f"{ds.path}: cannot be read ({str(e).splitlines()[0]})") from None
        raise


def wonder_table(con, ds: Dataset) -> pd.DataFrame:
    """Per players, wonder, side: seats, wins, mean points, and the mean of each category."""
    means = ", ".join(f"avg({c}) AS {c}" for c in CATEGORY_COLUMNS)
    sql = f"""
        SELECT players, wonder, side, count(*) AS seats, sum(win::INTEGER) AS wins,
               avg(vp_total) AS mean_points, {means}
        FROM {_rows(con, ds, ["players", "wonder", "side", "win", "vp_total"] + CATEGORY_COLUMNS)}
        GROUP BY players, wonder, side ORDER BY players, wonder, side"""
    return _query(con, sql, ds)


_COINS_BELOW = 1_000_000  # (points, coins) packed in one integer: no seat ever holds a million coins


def margin_table(con, ds: Dataset) -> pd.DataFrame:
    """Per players, wonder, side and margin: seats and wins. A seat's margin is the largest
    number of points it could lose and still win (negative: the points it lacked), by the tie
    rule of docs/rules.md §7: the best total wins, a tie goes to the most coins, a tie on coins
    too is a shared victory (a win). With M the best total of the other players and C the most
    coins among those of them at M, a seat of total s and coins c has margin s − M, less one when
    c < C. It wins exactly when its margin is 0 or more (tests/test_balance_size.py checks that
    against the `win` column). The best of the others is one window maximum of (points, coins)
    packed in one integer, the seat itself excluded."""
    key = f"vp_total::BIGINT * {_COINS_BELOW} + coins::BIGINT"
    sql = f"""
        SELECT players, wonder, side, margin, count(*) AS seats, sum(win::INTEGER) AS wins
        FROM (SELECT players, wonder, side, win,
                     vp_total - other // {_COINS_BELOW} - (coins < other % {_COINS_BELOW})::INTEGER AS margin
              FROM (SELECT players, wonder, side, win, vp_total, coins,
                           max({key}) OVER (PARTITION BY game ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED
                                            FOLLOWING EXCLUDE CURRENT ROW) AS other
                    FROM {_rows(con, ds, ["game", "players", "wonder", "side", "win", "vp_total", "coins"])}))
        GROUP BY ALL ORDER BY players, wonder, side, margin"""
    return _query(con, sql, ds)


def card_cells(con, ds: Dataset, games: int | None = None) -> pd.DataFrame:
    """The cell table of wsim.analysis.balance.effects: per players, card, built (0/1), wonder, side, seat,
    policy and game block, the seats and their wins (of games 0..games−1 only, if given). Built
    cells come from the `cards` lists; not-built cells are each key's totals less its built cells."""
    keys = "players, wonder, side, seat, policy, game % {g} AS \"group\"".format(g=GROUPS)
    keep = "players, wonder, side, seat, policy, \"group\""
    columns = ["players", "wonder", "side", "seat", "policy", "game", "win"]
    totals = _query(con, f"""
        SELECT {keys}, count(*) AS seats, sum(win::INTEGER) AS wins
        FROM {_rows(con, ds, columns, games)} GROUP BY ALL""", ds)
    built = _query(con, f"""
        SELECT card, {keep}, count(*) AS seats, sum(win::INTEGER) AS wins
        FROM (SELECT unnest(cards) AS card, win, {keys} FROM {_rows(con, ds, columns + ["cards"], games)})
        GROUP BY ALL""", ds)
    on = ["players", "wonder", "side", "seat", "policy", "group"]
    cards = built[["players", "card"]].drop_duplicates()
    every = cards.merge(totals, on="players")  # every card x every key of its player count
    merged = every.merge(built, on=on + ["card"], how="left", suffixes=("", "_built")).fillna(
        {"seats_built": 0, "wins_built": 0})
    not_built = merged.assign(built=0, seats=merged.seats - merged.seats_built, wins=merged.wins - merged.wins_built)
    yes = built.assign(built=1)
    cols = ["players", "card", "built", "wonder", "side", "seat", "policy", "group", "seats", "wins"]
    cells = pd.concat([yes[cols], not_built[cols]], ignore_index=True)
    cells = cells[cells.seats > 0]
    return cells.astype({"players": "int64", "built": "int64", "seat": "int64", "group": "int64",
                         "seats": "int64", "wins": "int64"}).reset_index(drop=True)


def paired_wonders(con, base: Dataset, edited: Dataset, games: int | None = None) -> pd.DataFrame:
    """Per players, wonder, side: seats n, wins in each dataset, and Σd² of the per-seat
    differences d = win_edited − win_base (the seats are the same games' same seats), over
    games 0..games−1 if given. A seat whose wonder differs between the two means that the deals
    differ: DatasetError."""
    sql = f"""
        SELECT b.players, b.wonder, b.side, count(*) AS seats,
               sum(b.win::INTEGER) AS wins_base, sum(e.win::INTEGER) AS wins_edited,
               sum((e.win::INTEGER - b.win::INTEGER) * (e.win::INTEGER - b.win::INTEGER)) AS sum_d2,
               sum((b.wonder <> e.wonder OR b.side <> e.side)::INTEGER) AS mismatched
        FROM {_rows(con, base, ["game", "seat", "players", "wonder", "side", "win"], games)} b
        JOIN {_rows(con, edited, ["game", "seat", "wonder", "side", "win"], games)} e
        USING (game, seat)
        GROUP BY ALL ORDER BY b.players, b.wonder, b.side"""
    table = _query(con, sql, edited)
    if int(table["mismatched"].sum()):
        raise DatasetError(f"--baseline: {base.path} and {edited.path} deal other wonders to the same "
                           "seats: they are not the same games")
    return table.drop(columns="mismatched")


def science_sets_table(con, ds: Dataset, t: Tables) -> pd.DataFrame:
    """Per players: the complete science sets a seat scored, its mean over games (each game one
    observation: the mean of its seats) as `mean_sets` and their standard deviation `sd_sets`
    (wsim.reference.science: from each city's buildings and stages, held to its science points)."""
    from wsim.reference import science

    columns = ["players", "game", "wonder", "side", "stages", "vp_science", "cards"]
    table = _query(con, f"SELECT {', '.join(columns)} FROM {_rows(con, ds, columns)}", ds)
    built = table.cards.explode().dropna()  # a building a row, indexed by its city's row
    symbols = built.map(dict(zip(t.card_names, science.card_symbols(t).tolist()))).to_numpy(dtype="int64")
    board_of = {b: i for i, b in enumerate(t.board_ids)}
    sets = science.city_sets(t, symbols, built.index.to_numpy(), table.wonder.astype(str).map(board_of).to_numpy(),
                             table.side.astype(str).map({"A": 0, "B": 1}).to_numpy(), table.stages.to_numpy(),
                             table.vp_science.to_numpy())
    games = table[["players", "game"]].assign(sets=sets).groupby(["players", "game"]).sets.mean()
    out = games.groupby("players").agg(mean_sets="mean", sd_sets="std")
    return out.reset_index()


def play_table(con, ds: Dataset, guilds: list) -> pd.DataFrame:
    """How the dataset's players play, per player count, game by game then over games (each game
    one independent observation): games; the mean points a seat and its standard deviation over
    games; the first-to-last gap (the best total less the worst, the Free City left out) and
    its deviation; the mean of each point category, coins left and wonder stages a seat; and
    the games whose winner (every seat ranked first) built a guild (`guilds`: their names).
    (list_intersect, not list_has_any: on a 200-game dataset, DuckDB 2.0.1's list_has_any found
    98 of the 139 games that pandas and list_intersect find.)"""
    means = ", ".join(f"avg({c}) AS {c}" for c in CATEGORY_COLUMNS)
    names = ", ".join("'" + g.replace("'", "''") + "'" for g in guilds) or "NULL"
    sql = f"""
        WITH g AS (
            SELECT players, game, avg(vp_total) AS points, max(vp_total) - min(vp_total) AS gap,
                   bool_or(win AND len(list_intersect(cards, [{names}]::VARCHAR[])) > 0) AS guild_win, {means},
                   avg(coins) AS coins, avg(stages) AS stages
            FROM {_rows(con, ds, ["players", "game", "vp_total", "win", "cards", "coins", "stages"]
                        + CATEGORY_COLUMNS)}
            GROUP BY players, game)
        SELECT players, count(*) AS games, avg(points) AS mean_points, stddev_samp(points) AS sd_points,
               avg(gap) AS mean_gap, stddev_samp(gap) AS sd_gap, sum(guild_win::INTEGER) AS guild_wins,
               {", ".join(f"avg({c}) AS {c}" for c in CATEGORY_COLUMNS)}, avg(coins) AS coins,
               avg(stages) AS stages
        FROM g GROUP BY players ORDER BY players"""
    return _query(con, sql, ds)


def game_margin_table(con, ds: Dataset, close: int) -> pd.DataFrame:
    """Per players: games, and over them the mean and standard deviation of a game's margin (the
    best final total less the second best among the players: 0 when the best is shared) and
    `close`, the games whose margin is at most `close` points."""
    sql = f"""
        SELECT players, count(*) AS games, avg(margin) AS mean, coalesce(stddev_samp(margin), 0) AS sd,
               sum((margin <= {int(close)})::INTEGER) AS close
        FROM (SELECT players, game, totals[1] - totals[2] AS margin
              FROM (SELECT players, game, list_sort(list(vp_total), 'DESC') AS totals
                    FROM {_rows(con, ds, ["players", "game", "vp_total"])} GROUP BY players, game))
        GROUP BY players ORDER BY players"""
    return _query(con, sql, ds)
