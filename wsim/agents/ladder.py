"""`wsim ladder` (docs/interfaces.md §4): every ordered pair (X, Y) of the listed policies plays N games,
one seat of X against P − 1 seats of Y, then one multiplayer rating per policy over all games.

Same deals for every pair: pair after pair plays games 0..N−1 of the same seed, so each pair
sees the very same boards and hands. X's seat rotates over the games in P equal blocks (games
[kN/P, (k+1)N/P) put X at seat k). At two players the Free City is played by its controller.

Ratings: openskill's Plackett-Luce model, one rating per policy, updated game by game (pairs in
the order listed, games in order: the result is deterministic). A policy that holds several seats
of a game enters each seat as its own copy of its rating; its new rating is the mean of the
copies' (so three seats of Y do not move Y three times as far).

The games are played a chunk at a time (wsim.run.runner.play_chunks) and counted as they come:
each pair's tallies, and the ratings updated with each chunk's games in that same order, so
memory stays one chunk's whatever --games says.

How each policy plays (play.csv): over every seat it held, in both roles (the one seat of X, the
P − 1 of Y), each (pair, game) it sat in one observation: the means over those games of its
seats' points, point categories, coins left and stages, the points' 95% normal interval, and
the share of its wins in which it scored guild points (a guild built, or Olympia B's copy).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from wsim import codes
from wsim.dataset.folder import output_files
from wsim.kernels.layout import RES_COINS, RES_GUILD, RES_MILITARY, RES_RANK, RES_STAGES, RES_TOTAL
from wsim.run.runner import CLUSTER_CHUNK_GAMES, SETS_COLUMN, Runner, chunk_ranges, play_chunks
from wsim.run.settings import Settings, SettingsError, apply_policy_params, check_players, parse_policies
from wsim.analysis.stats import mean_half_width, wilson_interval
from wsim.tables import Tables

LADDER_CSV = "ladder.csv"
RATINGS_CSV = "ratings.csv"
LADDER_COLUMNS = ("policy", "opponent", "players", "games", "wins", "win_share", "ci_low", "ci_high",
                  "mean_points", "mean_margin")
RATINGS_COLUMNS = ("policy", "rating", "rating_sd")
PLAY_CSV = "play.csv"
CATEGORY_COLUMNS = tuple(f"vp_{c}" for c in codes.CATEGORIES)
PLAY_COLUMNS = ("policy", "players", "games", "seats", "mean_points", "points_ci_low", "points_ci_high",
                *CATEGORY_COLUMNS, "coins", "stages", "wins", "wins_with_guild_points", "guild_share", "guild_ci_low",
                "guild_ci_high", "science_sets")
# the results columns play.csv averages: the categories (consecutive in RES_*), total, coins, stages and
# the complete science sets (the column the runner adds, SETS_COLUMN)
_PLAY_RES = list(range(RES_MILITARY, RES_MILITARY + len(codes.CATEGORIES))) + [RES_TOTAL, RES_COINS, RES_STAGES,
                                                                               SETS_COLUMN]


def owns(name: str) -> bool:
    """The files `wsim ladder` writes (and may replace with --overwrite)."""
    return name in (LADDER_CSV, RATINGS_CSV, PLAY_CSV)


@dataclass(frozen=True)
class Entry:
    """One listed policy: its name, label and parameter row (and the model file of an entry that
    plays learned)."""

    name: str
    label: str
    params: tuple
    model: str = ""


@dataclass
class PairResult:
    """X's record against Y."""

    policy: str
    opponent: str
    players: int
    games: int = 0
    wins: int = 0
    points: int = 0
    margin: int = 0

    def row(self) -> dict:
        lo, hi = wilson_interval(self.wins, self.games)
        return {"policy": self.policy, "opponent": self.opponent, "players": self.players, "games": self.games,
                "wins": self.wins, "win_share": round(self.wins / self.games, 4), "ci_low": round(lo, 4),
                "ci_high": round(hi, 4), "mean_points": round(self.points / self.games, 3),
                "mean_margin": round(self.margin / self.games, 3)}


@dataclass
class PlayTally:
    """How one policy played: sums over the (pair, game) units it sat in (module docstring)."""

    policy: str
    players: int
    units: int = 0
    seats: int = 0
    sums: np.ndarray = field(default_factory=lambda: np.zeros(len(_PLAY_RES)))  # per _PLAY_RES column, the
    # sum over units of its seats' mean
    points_sq: float = 0.0  # the sum over units of the squared mean points
    wins: int = 0
    guild_wins: int = 0

    def add(self, res: np.ndarray, cols: list):
        """Add the games of res (rows of one block) in which this policy held seats `cols`."""
        means = res[:, cols][:, :, _PLAY_RES].astype(np.float64).mean(axis=1)
        self.sums += means.sum(axis=0)
        points = means[:, len(codes.CATEGORIES)]
        self.points_sq += float((points * points).sum())
        self.units += len(res)
        self.seats += len(res) * len(cols)
        won = res[:, cols, RES_RANK] == 1
        self.wins += int(won.sum())
        self.guild_wins += int((won & (res[:, cols, RES_GUILD] > 0)).sum())

    def row(self) -> dict:
        n = self.units
        means = self.sums / n
        points = means[len(codes.CATEGORIES)]
        var = max(self.points_sq - n * points * points, 0.0) / (n - 1) if n > 1 else 0.0
        half = float(mean_half_width(np.sqrt(var), n))
        row = {"policy": self.policy, "players": self.players, "games": n, "seats": self.seats,
               "mean_points": round(points, 3), "points_ci_low": round(points - half, 3),
               "points_ci_high": round(points + half, 3)}
        row.update({c: round(float(means[i]), 3) for i, c in enumerate(CATEGORY_COLUMNS)})
        row.update({"coins": round(float(means[-3]), 3), "stages": round(float(means[-2]), 3), "wins": self.wins,
                    "wins_with_guild_points": self.guild_wins, "guild_share": "", "guild_ci_low": "",
                    "guild_ci_high": "", "science_sets": round(float(means[-1]), 3)})
        if self.wins:  # a policy that never won has no share to estimate
            lo, hi = wilson_interval(self.guild_wins, self.wins)
            row.update({"guild_share": round(self.guild_wins / self.wins, 4), "guild_ci_low": round(lo, 4),
                        "guild_ci_high": round(hi, 4)})
        return row


def parse_entries(policies: list, policy_params) -> list:
    """The listed policies (NAME or NAME:LABEL, at least two, labels distinct) with their
    parameter rows after --policy-param (SettingsError on a bad entry or parameter)."""
    if len(policies) < 2:
        raise SettingsError(f"--policies: a ladder needs at least two policies, got {len(policies)}")
    names, labels = parse_policies(policies, len(policies))
    if len(set(labels)) != len(labels):
        raise SettingsError("--policies: each policy of a ladder is listed once (label two seats of one "
                            "policy NAME:A,NAME:B to compare its parameter settings)")
    rows, _, _, models = apply_policy_params(policy_params, names, labels)
    return [Entry(n, lab, row, model) for n, lab, row, model in zip(names, labels, rows, models)]


def _block(games: int, players: int, k: int) -> tuple:
    """(first game, games) of the block in which X sits at seat k."""
    first = games * k // players
    return first, games * (k + 1) // players - first


def table(seats: list, seed: int, games: int) -> Settings:
    """Settings of games 0 .. games - 1 of `seed` with one player per entry of `seats`."""
    return Settings(players=len(seats), seed=seed, games=games, policies=tuple(e.name for e in seats),
                    labels=tuple(e.label for e in seats), params=tuple(e.params for e in seats),
                    models=tuple(e.model for e in seats))


def _blocks(x: Entry, y: Entry, players: int, games: int, seed: int, first_game: int = 0) -> list:
    """(seat of X, Settings, first game, games) of each non-empty block of a pair (module doc)."""
    out = []
    for seat in range(players):
        settings = table([x if s == seat else y for s in range(players)], seed, first_game + games)
        first, count = _block(games, players, seat)
        if count:
            out.append((seat, settings, first_game + first, count))
    return out


def _tally(pair: PairResult, seat: int, settings: Settings, res: np.ndarray, ratings=None, play=None):
    """Add some of a block's games (their res rows) to X's record, to the ratings and to how X
    and Y play (play: label -> PlayTally)."""
    players = settings.players
    if play is not None:
        play[pair.policy].add(res, [seat])
        play[pair.opponent].add(res, [s for s in range(players) if s != seat])
    totals = res[:, :players, RES_TOTAL].astype(np.int64)
    ranks = res[:, :players, RES_RANK]
    pair.games += len(res)
    pair.wins += int((ranks[:, seat] == 1).sum())
    pair.points += int(totals[:, seat].sum())
    pair.margin += int((totals[:, seat] - np.delete(totals, seat, axis=1).max(axis=1)).sum())
    if ratings is not None:
        for g in range(len(res)):
            ratings.rate(settings.labels, tuple(int(r) for r in ranks[g]))


def play_pair(tables: Tables, x: Entry, y: Entry, players: int, games: int, seed: int, first_game: int = 0,
              ratings=None, on_progress=None, play=None) -> PairResult:
    """X's record in games first_game .. first_game + games - 1 of `seed`, one seat of X against
    players - 1 seats of Y, X at seat k for the k-th of `players` equal blocks, played a chunk at
    a time. ratings, when given (a Ratings), is updated with every game, in order."""
    pair = PairResult(x.label, y.label, players)
    for seat, settings, first, count in _blocks(x, y, players, games, seed, first_game):
        for _, res in play_chunks(Runner(tables, settings), first, count, on_progress, sets=True):
            _tally(pair, seat, settings, res, ratings, play)
    return pair


class Ratings:
    """openskill's Plackett-Luce ratings of the listed policies, updated a game at a time
    (module docstring)."""

    def __init__(self, entries: list):
        from openskill.models import PlackettLuce

        self.model = PlackettLuce()
        start = self.model.rating()
        self.entries = entries
        self.rating = {e.label: (start.mu, start.sigma) for e in entries}

    def rate(self, labels: tuple, ranks: tuple):
        """One game: the label and rank of each player seat."""
        model, rating = self.model, self.rating
        teams = [[model.rating(mu=rating[lab][0], sigma=rating[lab][1])] for lab in labels]
        new = model.rate(teams, ranks=list(ranks))
        copies: dict = {}
        for lab, team in zip(labels, new):
            copies.setdefault(lab, []).append(team[0])
        for lab, got in copies.items():
            rating[lab] = (sum(r.mu for r in got) / len(got), sum(r.sigma for r in got) / len(got))

    def table(self) -> list:
        """(label, rating, rating_sd) per policy, in the order listed."""
        return [(e.label, self.rating[e.label][0], self.rating[e.label][1]) for e in self.entries]


class Ladder:
    """The games of a ladder and their tallies (run() plays them)."""

    def __init__(self, tables: Tables, entries: list, players: int, games: int, seed: int):
        self.tables = tables
        self.entries = entries
        self.players = players
        self.games = games
        self.seed = seed
        self.results: list = []
        self.play = {e.label: PlayTally(e.label, players) for e in entries}
        self._ratings = None  # Ratings, made when the games start (openskill is imported then)

    def pairs(self) -> list:
        """The ordered pairs (X, Y), in the order they are played and tallied."""
        return [(x, y) for x in self.entries for y in self.entries if x is not y]

    def run(self, on_progress=None, cluster=None, threads: int | None = None, tracker=None):
        """Play every ordered pair, here or as tasks on a Dask `cluster` (wsim.run.cluster), a
        chunk at a time; fills results (one PairResult per pair) and the ratings, in the same
        order either way. tracker (wsim.run.progress) shows the pair in play and counts games."""
        self._ratings = Ratings(self.entries)
        pairs = self.pairs()

        def played(count: int):
            if on_progress is not None:
                on_progress(count)
            if tracker is not None:
                tracker.advance(count)

        def step(k: int):
            if tracker is not None:
                x, y = pairs[k]
                tracker.step(f"pair {k + 1} of {len(pairs)}: {x.label} against {y.label}")

        if cluster is not None:
            self._run_on(cluster, threads or 1, played, step)
            return
        for k, (x, y) in enumerate(pairs):
            step(k)
            self.results.append(play_pair(self.tables, x, y, self.players, self.games, self.seed,
                                          ratings=self._ratings, on_progress=played, play=self.play))

    def _run_on(self, cluster, threads: int, played, step):
        """run() on a Dask cluster: the blocks of every pair in ranges of CLUSTER_CHUNK_GAMES games
        at most, sent in batches of that many games (enough tasks to share among the workers,
        the res rows of one batch in memory), tallied in the order run() plays them here."""
        from wsim.run.cluster import play_ranges

        pairs = self.pairs()
        pieces = [(k, seat, settings, at, n) for k, (x, y) in enumerate(pairs)
                  for seat, settings, first, count in _blocks(x, y, self.players, self.games, self.seed)
                  for at, n in chunk_ranges(first, count, CLUSTER_CHUNK_GAMES)]
        results = [PairResult(x.label, y.label, self.players) for x, y in pairs]
        batch: list = []

        def flush():
            step(batch[0][0])
            ranges = [(settings, at, n) for _, _, settings, at, n in batch]
            for (k, seat, settings, _, _), res in zip(batch, play_ranges(cluster, self.tables.raw, ranges, threads,
                                                                          played, sets=True)):
                _tally(results[k], seat, settings, res, self._ratings, self.play)
            batch.clear()

        for piece in pieces:
            if batch and sum(p[4] for p in batch) + piece[4] > CLUSTER_CHUNK_GAMES:
                flush()
            batch.append(piece)
        if batch:
            flush()
        self.results.extend(results)

    def ratings(self) -> list:
        """(label, rating, rating_sd) per policy, openskill Plackett-Luce over every game played."""
        return (self._ratings or Ratings(self.entries)).table()


def csv_text(columns: tuple, rows: list) -> str:
    """A CSV document of dict rows, in `columns` order."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def run_ladder(tables: Tables, entries: list, players: int, games: int, seed: int, out: Path, overwrite: bool,
               on_progress=None, dask: str | None = None, threads: int | None = None, progress=False) -> tuple:
    """Play the ladder (on a Dask cluster with `dask`: wsim.run.cluster), write DIR/ladder.csv,
    DIR/ratings.csv and DIR/play.csv; returns their texts. DIR is held from its check, before any game, to the
    commit. progress: True, False or a function (wsim.run.progress)."""
    from wsim.run import progress as progress_mod

    check_players(players)
    with output_files(out, owns, overwrite, "ladder") as commit:
        ladder = Ladder(tables, entries, players, games, seed)
        with progress_mod.start(progress, games * len(ladder.pairs()), label="ladder") as tracker:
            if dask is None:
                ladder.run(on_progress, tracker=tracker)
            else:
                from wsim.run.cluster import connect

                cluster = connect(dask, threads or 1)
                try:
                    ladder.run(on_progress, cluster, threads, tracker)
                finally:
                    cluster.close()
        ladder_text = csv_text(LADDER_COLUMNS, [r.row() for r in ladder.results])
        ratings_text = csv_text(RATINGS_COLUMNS, [{"policy": lab, "rating": round(mu, 3), "rating_sd": round(sd, 3)}
                                                  for lab, mu, sd in ladder.ratings()])
        play_text = csv_text(PLAY_COLUMNS, [ladder.play[e.label].row() for e in entries])
        commit({LADDER_CSV: ladder_text.encode(), RATINGS_CSV: ratings_text.encode(), PLAY_CSV: play_text.encode()})
    return ladder_text, ratings_text, play_text
