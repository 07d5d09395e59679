"""The game's own character per player count (docs/atlas.md, "The game's own character"): how
decisive, how close, how much choice a turn offers, how much skill matters, how long it is.

Three pieces, each usable alone:
- `standings`: a sample of a run's games played again by the kernels with their move log on
  (wsim.run.runner.logged_games, what `game_log` writes) and replayed by the reference engine
  (wsim.reference.replay.replay_events, every move checked) in a Game that records, after each
  age's military, the reference score of the position as if the game ended there (score_all:
  ranks by points, then coins; equal on both is a shared place) and, per decision, the legal
  (card, action) choices. One row per game × player seat (the Free City, at 2 players, is no
  player and has no row).
- `skill`: one seat of the top population against P − 1 seats of `random`, and against P − 1
  seats of the default population, on the same deals, the top's seat rotated as `wsim ladder`
  does (games [kN/P, (k+1)N/P) put it at seat k); its win share, and the openskill
  Plackett-Luce ordinal spread top − random over its games against random.
- `character`: the long table of docs/atlas.md ("The game's own character") from standings (and skill) tables.

The metrics (value, 95% CI, n):
  leader_age1_wins, leader_age2_wins  per game, the share of the leaders after that age (rank 1
      of the position's score: the seats that would win if the game ended then, a tie on points
      going to coins as at the end) who win the game (final rank 1): 1 or 0, 1/k per winning
      leader when k seats share the lead (equal points and coins); the mean over games, Wilson
      CI (of a fractional count when leads are shared); n games.
  winner_rank_age1, winner_rank_age2  per game, the rank after that age of the eventual winner
      (the mean of the co-winners' if the win is shared); the mean over games, normal CI; n games.
  margin        per game, the best total less the second best (0 when the best total is shared,
      whoever the coins make the winner); the mean over games, normal CI; n games.
  close_share   the share of games whose margin is 2 points or less; Wilson CI; n games.
      Both from the standings sample, or from a whole dataset's final points (`dataset_margins`)
      when character() is given its table.
  options       legal (card, action) choices per decision (docs/rules.md §12's moves of a hand:
      every build, build_free, stage and discard of each card), all decisions of the sample's
      games pooled: Σ choices / Σ decisions; normal CI of that ratio with the games as the
      independent units (delta method); n decisions.
  forced_share  the share of decisions at which at most one card of the hand (copies of a name
      counted once) can be built or staged (the rest only discarded): pooled, with the same
      ratio CI as options (a game's decisions are not independent, so no Wilson); n decisions.
  decisions     decisions a seat makes in a game: its turns' moves and its 7th cards (not the
      Free City's moves its controller picks, not discard builds); per game the mean over its
      player seats, the mean over games, normal CI; n games.
  skill_vs_random, skill_vs_default  (from skill()) the top seat's win share; Wilson CI; n games.
  rating_spread  (from skill()) ordinal(top) − ordinal(random) (openskill ordinal: mu − 3 sigma)
      after rating the games against random in order; CI: ± 1.96 √(σ_top² + σ_random²), the
      ratings' own uncertainty (no resampling); n games (its row's `wins` repeats the games
      against random's).

Everything is deterministic: the same inputs give the same table, row for row.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import pandas as pd

from wsim.analysis.significance import wilson_ci
from wsim.analysis.stats import Z95, mean_half_width
from wsim.movelog import ACT_DISCARD
from wsim.reference.engine import Game
from wsim.reference.replay import ReplayError, replay_events
from wsim.reference.scoring import score_all
from wsim.run.settings import Settings, build_settings, parse_policies
from wsim.tables import Tables

COLUMNS = ("players", "metric", "population", "value", "ci_low", "ci_high", "n")
METRICS = ("leader_age1_wins", "leader_age2_wins", "winner_rank_age1", "winner_rank_age2", "margin", "close_share",
           "options", "forced_share", "decisions", "skill_vs_random", "skill_vs_default", "rating_spread")
STANDINGS_COLUMNS = ("players", "game", "seat", "policy", "points_age1", "points_age2", "points_final", "rank_age1",
                     "rank_age2", "rank_final", "won", "decisions", "options", "forced")
SKILL_COLUMNS = COLUMNS + ("opponent", "wins")
CLOSE_POINTS = 2  # a game won by this many points or fewer is close (people: 28-36% of games)
LOG_BLOCK = 256  # games played again with their log per kernel call (their logs: 256 x 192 events)


class _Recorder:
    """What one replayed game records: per age (1, 2) the totals and ranks of every city after
    that age's military, and per seat the decisions, their legal choices and the forced ones."""

    def __init__(self, cities: int):
        self.points = {}
        self.ranks = {}
        self.decisions = [0] * cities
        self.options = [0] * cities
        self.forced = [0] * cities


class _Counting:
    """A policy seen through: each (card, action) decision it is asked counted for the seat it
    is for, then passed on."""

    def __init__(self, policy, record: _Recorder):
        self.policy = policy
        self.record = record

    def choose(self, game: Game, seat: int, moves: list, seventh: bool):
        r = self.record
        r.decisions[seat] += 1
        r.options[seat] += len(moves)
        names = {int(game.t.card_name_id[m.card]) for m in moves if m.action != ACT_DISCARD}
        r.forced[seat] += len(names) <= 1
        return self.policy.choose(game, seat, moves, seventh)

    def discard_build(self, game: Game, seat: int, cards: list):
        return self.policy.discard_build(game, seat, cards)


class _StandingsGame(Game):
    """The reference Game, recording the standings after Age I and II and every decision."""

    def __init__(self, tables, boards, sides, hands, policies, free_city=False, *, record: _Recorder):
        super().__init__(tables, boards, sides, hands, [_Counting(p, record) for p in policies], free_city)
        self.record = record

    def military(self):
        super().military()
        if self.age < 3:  # Age III's is the final score
            scores, ranks, _ = score_all(self.pos)
            self.record.points[self.age] = [s.total for s in scores]
            self.record.ranks[self.age] = ranks


def standings(tables: Tables, settings: Settings, games) -> pd.DataFrame:
    """Per game of `games` (indices of the run of `settings`) × player seat, its standings after
    Age I and II and at the end, and its decisions (module docstring; STANDINGS_COLUMNS, in
    the order of `games` (each game once), then seats). The games are played again by the kernels, a block of
    consecutive indices a call, and replayed by the reference engine, which must reproduce
    every event and the kernels' final breakdown (ReplayError otherwise)."""
    from wsim.run.runner import Runner, logged_games

    runner = Runner(tables, settings)
    players, fc = settings.players, settings.free_city
    games = [int(g) for g in games]
    rows = []
    for lo, count in _runs(games):
        for at in range(lo, lo + count, LOG_BLOCK):
            for i, (boards, sides, hands, events, final) in enumerate(
                    logged_games(runner, at, min(LOG_BLOCK, lo + count - at))):
                rows += _replayed(tables, at + i, players, fc, settings.labels, boards, sides, hands, events, final)
    table = pd.DataFrame(rows, columns=list(STANDINGS_COLUMNS))
    order = {g: k for k, g in enumerate(dict.fromkeys(games))}
    table = table.assign(_order=table.game.map(order)).sort_values(["_order", "seat"], kind="stable")
    return table.drop(columns="_order").reset_index(drop=True)


def _runs(games: list) -> list:
    """[(first, count)] runs of consecutive indices covering the distinct games, ascending."""
    out = []
    for g in sorted(set(games)):
        if out and out[-1][0] + out[-1][1] == g:
            out[-1] = (out[-1][0], out[-1][1] + 1)
        else:
            out.append((g, 1))
    return out


def _replayed(tables, game, players, fc, labels, boards, sides, hands, events, final) -> list:
    """The standings rows of one game's player seats from its replay."""
    record = _Recorder(len(boards))
    _, mine = replay_events(tables, boards, sides, hands, events, fc, partial(_StandingsGame, record=record))
    if mine != final:
        raise ReplayError(f"game {game}: the reference final {mine} differs from the kernels' {final}")
    rows = []
    for seat in range(players):  # the Free City (seat FC_SEAT at 2 players) is no player
        p = final["players"][seat]
        d = record.decisions[seat]
        rows.append((players, game, seat, labels[seat], record.points[1][seat], record.points[2][seat], p["total"],
                     record.ranks[1][seat], record.ranks[2][seat], p["rank"], int(p["rank"] == 1), d,
                     record.options[seat] / d if d else 0.0, record.forced[seat]))
    return rows


# ---------------------------------------------------------------------------------------- skill

def _spec(entry) -> tuple:
    """(policy spec NAME[:LABEL], its policy_params) of a policy given as a spec or a pair."""
    if isinstance(entry, str):
        return entry, ()
    spec, params = entry
    return spec, tuple(params)


def _block(games: int, players: int, k: int) -> tuple:
    """(first game, games) of the block in which the top seat sits at seat k (wsim ladder's)."""
    first = games * k // players
    return first, games * (k + 1) // players - first


def skill(tables: Tables, top, default, players: int, games: int, seed: int, threads: int | None = None
          ) -> pd.DataFrame:
    """One seat of `top` against players − 1 seats of `random`, then of `default`, on games
    0..games−1 of `seed`, the top's seat rotated over `players` equal blocks (wsim ladder's).
    top, default: a policy spec NAME or NAME:LABEL, or (spec, policy_params) with
    --policy-param texts (e.g. ("rollout:search", ("rollout.base=learned",))): a pair's
    params go to the runs it plays in. Returns SKILL_COLUMNS rows: skill_vs_random,
    skill_vs_default and rating_spread, population = the top's label (module docstring)."""
    from openskill.models import PlackettLuce

    from wsim.kernels.layout import RES_RANK
    from wsim.run.runner import Runner, play_chunks, set_threads

    if threads is not None:
        set_threads(threads)
    top_spec, top_params = _spec(top)
    label = parse_policies([top_spec], 1)[1][0]
    model = PlackettLuce()
    rows = []
    for metric, opponent in (("skill_vs_random", ("random", ())), ("skill_vs_default", _spec(default))):
        opp_spec, opp_params = opponent
        wins = played = 0
        rating = {"top": model.rating(), "other": model.rating()}
        for seat in range(players):
            first, count = _block(games, players, seat)
            if not count:
                continue
            specs = [top_spec if s == seat else opp_spec for s in range(players)]
            settings = build_settings(tables, players=players, policies=specs, seed=seed, games=games,
                                      policy_params=top_params + opp_params)
            for _, res in play_chunks(Runner(tables, settings), first, count):
                ranks = res[:, :players, RES_RANK].astype(np.int64)
                wins += int((ranks[:, seat] == 1).sum())
                played += len(ranks)
                if metric == "skill_vs_random":
                    for game_ranks in ranks.tolist():
                        _rate(model, rating, seat, game_ranks)
        lo, hi = wilson_ci(wins, played)
        rows.append((players, metric, label, wins / played, lo, hi, played, opp_spec, wins))
        if metric == "skill_vs_random":
            top_r, other = rating["top"], rating["other"]
            spread = top_r.ordinal() - other.ordinal()
            half = Z95 * math.hypot(top_r.sigma, other.sigma)
            rows.append((players, "rating_spread", label, spread, spread - half, spread + half, played, opp_spec,
                         wins))
    return pd.DataFrame(rows, columns=list(SKILL_COLUMNS))


def _rate(model, rating: dict, seat: int, ranks: list):
    """One game into the two ratings: the top seat, and the others each as a copy of their one
    rating, whose new value is the mean of the copies' (as wsim ladder rates a policy that holds
    several seats)."""
    # a fresh rating object per seat: openskill copies the teams together, so one object in
    # two teams would come back as one object updated twice
    teams = [[model.rating(mu=r.mu, sigma=r.sigma)] for r in
             (rating["top" if s == seat else "other"] for s in range(len(ranks)))]
    new = model.rate(teams, ranks=ranks)
    others = [team[0] for s, team in enumerate(new) if s != seat]
    rating["top"] = new[seat][0]
    rating["other"] = model.rating(mu=sum(r.mu for r in others) / len(others),
                                   sigma=sum(r.sigma for r in others) / len(others))


# ------------------------------------------------------------------------------------ character

def game_margins(table: pd.DataFrame) -> pd.DataFrame:
    """Per players × population (standings rows, with a `population` column): games, and the
    mean, standard deviation and close games (≤ CLOSE_POINTS) of the margin best − second best
    final total: the table character() takes as `margins` (dataset_margins gives the same
    from a dataset)."""
    keys = ["players", "population"]
    top2 = (table.sort_values(keys + ["game", "points_final"], ascending=[True, True, True, False], kind="stable")
            .groupby(keys + ["game"], sort=False).points_final.agg(lambda s: int(s.iloc[0] - s.iloc[1])))
    margins = top2.rename("margin").reset_index()
    return _margin_summary(margins, keys)


def _margin_summary(margins: pd.DataFrame, keys: list) -> pd.DataFrame:
    grouped = margins.groupby(keys, sort=False).margin
    out = pd.DataFrame({"games": grouped.size(), "mean": grouped.mean(), "sd": grouped.std(ddof=1),
                        "close": grouped.agg(lambda m: int((m <= CLOSE_POINTS).sum()))}).reset_index()
    return out.fillna({"sd": 0.0})


def dataset_margins(path, tables: Tables, population: str) -> pd.DataFrame:
    """game_margins' table from a whole dataset's final points (every game: DuckDB, never all
    rows in memory), `population` its population's name."""
    from pathlib import Path

    from wsim.analysis.balance import read

    ds = read.open_dataset(Path(path), tables)
    con = read.connect()
    try:
        table = read.game_margin_table(con, ds, CLOSE_POINTS)
    finally:
        con.close()
    table.insert(1, "population", population)
    return table[["players", "population", "games", "mean", "sd", "close"]].astype(
        {"players": "int64", "games": "int64", "close": "int64", "mean": "float64", "sd": "float64"})


def _share(successes: float, trials: int) -> tuple:
    lo, hi = wilson_ci(successes, trials)
    return (successes / trials if trials else math.nan), lo, hi, trials


def _mean(values: np.ndarray) -> tuple:
    n = len(values)
    mean = float(values.mean()) if n else math.nan
    half = float(mean_half_width(values.std(ddof=1), n)) if n > 1 else math.nan
    return mean, mean - half, mean + half, n


def _mean_from(mean: float, sd: float, n: int) -> tuple:
    half = float(mean_half_width(sd, n)) if n > 1 else math.nan
    return mean, mean - half, mean + half, n


def _ratio(num: np.ndarray, den: np.ndarray) -> tuple:
    """Σnum / Σden over games with its normal 95% CI, the games the independent units (the
    delta method's standard error of a ratio estimator); n = Σden."""
    g, total = len(num), float(den.sum())
    if not total:
        return math.nan, math.nan, math.nan, 0
    r = float(num.sum()) / total
    if g < 2:
        return r, math.nan, math.nan, int(total)
    resid = num - r * den
    se = math.sqrt(float((resid * resid).sum()) * g / (g - 1)) / total
    return r, r - Z95 * se, r + Z95 * se, int(total)


def _age_metrics(games: pd.DataFrame) -> list:
    """(metric, value, lo, hi, n) of the leader and winner-rank metrics of one standings group."""
    out = []
    n = games.game.nunique()
    for age in (1, 2):
        rank = games[f"rank_age{age}"]
        leaders = games[rank == 1]
        per_game = leaders.groupby("game", sort=False).won.mean()  # 1/k per winning leader of k
        out.append((f"leader_age{age}_wins", *_share(float(per_game.sum()), n)))
        winners = games[games.won == 1].groupby("game", sort=False)[f"rank_age{age}"].mean()
        out.append((f"winner_rank_age{age}", *_mean(winners.to_numpy(dtype=float))))
    return out


def _choice_metrics(games: pd.DataFrame) -> list:
    by_game = games.assign(option_sum=games.options * games.decisions).groupby("game", sort=False)
    decisions = by_game.decisions.sum().to_numpy(dtype=float)
    return [("options", *_ratio(by_game.option_sum.sum().to_numpy(dtype=float), decisions)),
            ("forced_share", *_ratio(by_game.forced.sum().to_numpy(dtype=float), decisions)),
            ("decisions", *_mean(by_game.decisions.mean().to_numpy(dtype=float)))]


def character(standings_table: pd.DataFrame, skill_table: pd.DataFrame | None = None,
              margins: pd.DataFrame | None = None) -> pd.DataFrame:
    """The character table (COLUMNS, docs/atlas.md): from standings rows with a `population`
    column (standings() of each population's run, concatenated), the skill() rows, and
    optionally `margins` (dataset_margins of whole datasets: margin and close_share come
    from it for the players × population it holds, else from the standings sample). Rows by
    players, then METRICS order, then population in order of first appearance (the skill
    rows' population after the standings'); a metric without data has no row."""
    rows = []
    populations = list(dict.fromkeys(standings_table.population))
    margin_from = game_margins(standings_table)
    if margins is not None and len(margins):
        keys = ["players", "population"]
        margin_from = pd.concat([margins, margin_from]).drop_duplicates(keys, keep="first")
        populations += [p for p in dict.fromkeys(margins.population) if p not in populations]
    for (players, population), games in standings_table.groupby(["players", "population"], sort=False):
        for metric, *numbers in _age_metrics(games) + _choice_metrics(games):
            rows.append((players, metric, population, *numbers))
    for m in margin_from.itertuples(index=False):
        rows.append((m.players, "margin", m.population, *_mean_from(m.mean, m.sd, m.games)))
        rows.append((m.players, "close_share", m.population, *_share(m.close, m.games)))
    table = pd.DataFrame(rows, columns=list(COLUMNS))
    if skill_table is not None and len(skill_table):
        populations += [p for p in dict.fromkeys(skill_table.population) if p not in populations]
        table = pd.concat([table, skill_table[list(COLUMNS)]], ignore_index=True)
    table = table.assign(_m=table.metric.map({m: k for k, m in enumerate(METRICS)}),
                         _p=table.population.map({p: k for k, p in enumerate(populations)}))
    table = table.sort_values(["players", "_m", "_p"], kind="stable").drop(columns=["_m", "_p"])
    return table.astype({"players": "int64", "value": "float64", "ci_low": "float64", "ci_high": "float64",
                         "n": "int64"}).reset_index(drop=True)


def population_standings(tables: Tables, population: str, settings: Settings, games) -> pd.DataFrame:
    """standings() with a `population` column (second), ready to concatenate for character()."""
    table = standings(tables, settings, games)
    table.insert(1, "population", population)
    return table
