"""The tables of `wsim editions` (docs/interfaces.md §6) from what it played (wsim.analysis.editions, editions_plan):
sides.csv, spread.csv, cards.csv, changes.csv, whole.csv and summary.txt.

- sides and cards: each edition's survey of the populations at each count (survey.build, the
  atlas's way: its tables only), a side's VP the survey's anchored `vp` (wsim balance's
  handicap: the points the side would have to lose to win its fair share in the same games), a
  card's VP its effect over the count's value of one point;
- spread: the strongest side less the weakest, by win rate, with a bootstrap over whole games
  (B = BOOTSTRAP resamples, Poisson weights, seeded from the run's seed): the basic interval
  2·observed − quantiles, which takes the choice of the extremes into account (the observed
  spread of noisy rates is biased upward: `spread_bias` estimates by how much), and beside it the
  interval of the two sides' difference as if they had been chosen in advance (`pair_ci_*`,
  Newcombe), which ignores the choice and is too narrow and too high;
- changes: ablate's paired report frame (balance.report.paired_table) of each change against the
  baseline, read on the change's subjects; VP: the difference over the count's value of one point
  in the baseline; q-values over the subjects of one player count;
- whole: the second edition's rate of each side less the first's (independent samples: other
  decks, so other games; Newcombe's interval, the two-proportion score test, q-values over the
  sides of one population and count), and the spread's change (the two bootstraps).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from wsim.analysis import survey as survey_mod
from wsim.analysis.balance import answers, effects, read, size
from wsim.analysis.balance.report import csv_bytes, paired_table
from wsim.analysis.edition_changes import CARD, COUNTERPARTS
from wsim.analysis.editions_plan import (BASELINE, CARDS_CSV, CHANGES_CSV, EDITIONS, NOT_IN_PLAY, NOT_PLAYABLE,
                                         NOT_REPLAYABLE, PLAYED, POPULATIONS, SIDES_CSV, SPREAD_CSV, SUMMARY, WHOLE_CSV,
                                         Plan, Prepared, change_dir, command_line, edition_dir)
from wsim.analysis.significance import FINDING_Q, q_values
from wsim.dataset import parts

BOOTSTRAP = 1_000  # resamples of whole games for the spread's interval
BATCH_CELLS = 2_000_000  # resample weights held at once (resamples × seats)

SIDE_COLUMNS = ("edition", "population", "players", "wonder", "side", "seats", "wins", "win_rate", "ci_low", "ci_high",
                "q_value", "fair_share", "vp", "vp_ci_low", "vp_ci_high")
SPREAD_COLUMNS = ("edition", "population", "players", "games", "strongest", "strongest_rate", "weakest",
                  "weakest_rate", "spread", "spread_ci_low", "spread_ci_high", "spread_bias", "pair_ci_low",
                  "pair_ci_high", "vp_strongest", "vp_weakest", "vp_spread", "vp_spread_ci_low", "vp_spread_ci_high",
                  "vp_spread_bias")
CARD_COLUMNS = ("edition", "population", "players", "card", "in_editions", "counterpart", "seats_built", "build_rate",
                "effect", "ci_low", "ci_high", "q_value", "vp", "vp_ci_low", "vp_ci_high")
CHANGE_COLUMNS = ("change", "label", "edits", "population", "players", "games", "status", "subject", "metric",
                  "baseline", "value", "diff", "ci_low", "ci_high", "q_value", "vp_diff", "vp_ci_low", "vp_ci_high",
                  "reason")
WHOLE_COLUMNS = ("population", "players", "row", "wonder", "side", "seats_1e", "value_1e", "seats_2e", "value_2e",
                 "diff", "ci_low", "ci_high", "q_value", "vp_1e", "vp_2e", "vp_diff", "vp_ci_low", "vp_ci_high")
NO_ESTIMATE = ("no estimate: too few seats built the card, or did not, in one of the two runs (wsim balance's "
               "rule)")
EDITS_JOIN = " | "  # between a change's edits in changes.csv (an edit may hold commas)


@dataclass
class Editions:
    """The comparison's tables (DataFrames, as the CSVs hold them), its summary and its files."""

    sides: pd.DataFrame
    spread: pd.DataFrame
    cards: pd.DataFrame
    changes: pd.DataFrame
    whole: pd.DataFrame
    summary: str
    files: dict = field(default_factory=dict)


def build(prepared: Prepared, plan: Plan, data: Path, on_stage=None) -> Editions:
    """Every table, from the datasets under `data`; on_stage(text) hears each count's turn."""
    on_stage = on_stage or (lambda text: None)
    con = read.connect()
    sides, cards, boots = [], [], {}
    for players in plan.counts:
        on_stage(f"{players}p: the surveys' tables and the spread's bootstrap")
        for edition in EDITIONS:
            t = prepared.tables[edition]
            folder = edition_dir(data, edition, players)
            pops = prepared.pops[edition, players]
            found = survey_mod.build(folder, pops, t, None, files=False)
            for pop in pops:
                ds = read.open_dataset(folder / pop.name, t)
                margins = read.margin_table(con, ds)
                rows = size.side_sizes(found.survey[found.survey.population == pop.name], margins)
                rows = rows.assign(edition=edition, vp=rows.handicap, vp_ci_low=rows.handicap_ci_low,
                                   vp_ci_high=rows.handicap_ci_high).reset_index(drop=True)
                sides.append(rows)
                effect = found.card_effects[found.card_effects.population == pop.name]
                cards.append(size.card_sizes(effect, size.point_slopes(margins)).assign(edition=edition))
                rng = np.random.default_rng([plan.seed, edition, players, POPULATIONS.index(pop.name)])
                boots[edition, pop.name, players] = Boot(rows, *bootstrap(seat_margins(ds), rows, rng))
    sides = pd.concat(sides, ignore_index=True)
    spread = spread_table(boots, plan)
    cards = card_table(pd.concat(cards, ignore_index=True), prepared)
    changes = change_table(con, prepared, plan, data, on_stage)
    whole = whole_table(boots, plan)
    text = summary(plan, spread, changes, whole)
    shown = [t.loc[:, list(c)].reset_index(drop=True) for t, c in (
        (sides, SIDE_COLUMNS), (spread, SPREAD_COLUMNS), (cards, CARD_COLUMNS), (changes, CHANGE_COLUMNS),
        (whole, WHOLE_COLUMNS))]
    result = Editions(*shown, text)
    result.files = {name: csv_bytes(t, tuple(t.columns)) for name, t in zip(
        (SIDES_CSV, SPREAD_CSV, CARDS_CSV, CHANGES_CSV, WHOLE_CSV), shown)}
    result.files[SUMMARY] = text.encode()
    return result


# ---------------------------------------------------------------------------------------------
# The spread: a bootstrap over whole games

_COINS_BELOW = 1_000_000  # (points, coins) packed in one integer, as read.margin_table packs them


def seat_margins(ds: read.Dataset) -> pd.DataFrame:
    """Every seat of a dataset (3 to 7 players: no Free City): game, wonder, side, win, and its
    margin as read.margin_table counts it (the points it could lose and still win: its total
    less the best of the others', less one when it has fewer coins than the best of them)."""
    table = parts.arrow_dataset(ds.files).to_table(columns=["game", "wonder", "side", "win", "vp_total", "coins"])
    seats = table.to_pandas()
    key = seats.vp_total.astype(np.int64) * _COINS_BELOW + seats.coins.astype(np.int64)
    by_game = key.groupby(seats.game)
    best = by_game.transform("max")
    at_best = (key == best).groupby(seats.game).transform("sum")
    second = key.where(key < best).groupby(seats.game).transform("max").fillna(-1).astype(np.int64)
    alone = (key == best) & (at_best == 1)
    other = np.where(alone, second, best)
    margin = seats.vp_total.to_numpy(np.int64) - other // _COINS_BELOW - (seats.coins.to_numpy(np.int64)
                                                                         < other % _COINS_BELOW)
    return pd.DataFrame({"game": seats.game.to_numpy(np.int64), "wonder": seats.wonder.astype(str),
                         "side": seats.side.astype(str), "win": seats.win.to_numpy(bool).astype(np.int64),
                         "margin": margin.astype(np.int64)})


@dataclass
class Boot:
    """One population's sides (their order the columns') and its bootstrap: each resample's win
    rate and VP of every side."""

    sides: pd.DataFrame
    rates: np.ndarray  # resamples × sides
    vps: np.ndarray

    def column(self, wonder: str, side: str) -> int | None:
        hit = np.flatnonzero((self.sides.wonder == wonder).to_numpy() & (self.sides.side == side).to_numpy())
        return int(hit[0]) if len(hit) else None


def bootstrap(seats: pd.DataFrame, sides: pd.DataFrame, rng: np.random.Generator, resamples: int = BOOTSTRAP) -> tuple:
    """(rates, vps), resamples × sides: every side's win rate and handicap (size.fair_handicap's
    point, the resample's fair share) when the games are resampled with Poisson(1) weights."""
    key = list(zip(sides.wonder, sides.side))
    column = {k: i for i, k in enumerate(key)}
    seats = seats.assign(col=[column[k] for k in zip(seats.wonder, seats.side)]).sort_values(["col", "game"],
                                                                                              kind="stable")
    games = int(seats.game.max()) + 1
    game, win, margin, col = (seats[c].to_numpy() for c in ("game", "win", "margin", "col"))
    bounds = np.searchsorted(col, np.arange(len(key) + 1))
    from scipy import sparse

    curves = []
    for j in range(len(key)):  # each side's margins as a (seats × points) indicator, k from min − 1 up
        m = margin[bounds[j]:bounds[j + 1]]
        low = int(m.min()) - 1 if len(m) else 0
        k = np.arange(low, (int(m.max()) + 2) if len(m) else 1)
        onehot = sparse.csr_matrix((np.ones(len(m)), (np.arange(len(m)), m - low)), shape=(len(m), len(k)))
        curves.append((k, onehot))
    rates = np.empty((resamples, len(key)))
    vps = np.empty((resamples, len(key)))
    batch = max(1, BATCH_CELLS // max(1, len(game)))
    for start in range(0, resamples, batch):
        n = min(batch, resamples - start)
        weights = rng.poisson(1.0, size=(n, games)).astype(np.float64)[:, game]
        fair = (weights @ win) / weights.sum(axis=1)
        for j, (k, onehot) in enumerate(curves):
            w = weights[:, bounds[j]:bounds[j + 1]]
            total = w.sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                rates[start:start + n, j] = (w @ win[bounds[j]:bounds[j + 1]]) / total
                counts = np.asarray((onehot.T @ w.T).T)
                curve = counts[:, ::-1].cumsum(axis=1)[:, ::-1] / total[:, None]
            vps[start:start + n, j] = [size.crossing(k, c, f) if t > 0 else math.nan
                                       for c, f, t in zip(curve, fair, total)]
    return rates, vps


def basic_interval(observed: float, boot: np.ndarray) -> tuple:
    """(low, high, bias) of the basic bootstrap interval: 2·observed − the 97.5% and 2.5%
    quantiles, and the bootstrap's mean less the observed value."""
    boot = boot[~np.isnan(boot)]
    if not len(boot) or math.isnan(observed) or math.isinf(observed):
        return math.nan, math.nan, math.nan
    with np.errstate(invalid="ignore"):
        hi_q, lo_q = np.quantile(boot, [0.975, 0.025])
        mean = float(np.mean(boot))
    return 2 * observed - float(hi_q), 2 * observed - float(lo_q), mean - observed


def _extremes(rates: np.ndarray) -> tuple:
    """Per row: (the strongest column, the weakest) by rate, NaN columns left out."""
    filled_hi = np.where(np.isnan(rates), -np.inf, rates)
    filled_lo = np.where(np.isnan(rates), np.inf, rates)
    return filled_hi.argmax(axis=1), filled_lo.argmin(axis=1)


def _spreads(boot: Boot) -> tuple:
    """(observed rate spread, vp spread, strongest row, weakest row, bootstrap rate spreads, vp spreads)."""
    rows = boot.sides
    hi, lo = int(rows.win_rate.to_numpy().argmax()), int(rows.win_rate.to_numpy().argmin())
    observed = float(rows.win_rate.iloc[hi] - rows.win_rate.iloc[lo])
    vp = float(rows.vp.iloc[hi] - rows.vp.iloc[lo])
    b_hi, b_lo = _extremes(boot.rates)
    at = np.arange(len(boot.rates))
    with np.errstate(invalid="ignore"):
        return (observed, vp, hi, lo, boot.rates[at, b_hi] - boot.rates[at, b_lo],
                boot.vps[at, b_hi] - boot.vps[at, b_lo])


def _newcombe(wins_a: int, seats_a: int, wins_b: int, seats_b: int) -> tuple:
    """Newcombe's hybrid score 95% interval of wins_a/seats_a − wins_b/seats_b."""
    from statsmodels.stats.proportion import confint_proportions_2indep

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lo, hi = confint_proportions_2indep(wins_a, seats_a, wins_b, seats_b, method="newcomb")
    return float(lo), float(hi)


def _name(r) -> str:
    return f"{r.wonder}/{r.side}"


def spread_table(boots: dict, plan: Plan) -> pd.DataFrame:
    rows = []
    for players in plan.counts:
        for edition in EDITIONS:
            for population in plan.populations:
                boot = boots[edition, population, players]
                observed, vp, hi, lo, b_rate, b_vp = _spreads(boot)
                strong, weak = boot.sides.iloc[hi], boot.sides.iloc[lo]
                low, high, bias = basic_interval(observed, b_rate)
                vp_low, vp_high, vp_bias = basic_interval(vp, b_vp)
                pair = _newcombe(int(strong.wins), int(strong.seats), int(weak.wins), int(weak.seats))
                rows.append({"edition": edition, "population": population, "players": players,
                             "games": plan.sizes.games, "strongest": _name(strong), "strongest_rate": strong.win_rate,
                             "weakest": _name(weak), "weakest_rate": weak.win_rate, "spread": observed,
                             "spread_ci_low": low, "spread_ci_high": high, "spread_bias": bias,
                             "pair_ci_low": pair[0], "pair_ci_high": pair[1], "vp_strongest": strong.vp,
                             "vp_weakest": weak.vp, "vp_spread": vp, "vp_spread_ci_low": vp_low,
                             "vp_spread_ci_high": vp_high, "vp_spread_bias": vp_bias})
    return pd.DataFrame(rows, columns=SPREAD_COLUMNS)


# ---------------------------------------------------------------------------------------------
# Cards, changes, the whole editions

def card_table(cards: pd.DataFrame, prepared: Prepared) -> pd.DataFrame:
    """Each edition's card effects; `in_editions` says where a card's name is dealt (both, first,
    second), `counterpart` the card of the other edition it takes the place of (the Well the
    Pawnshop's, the Decorators Guild the Strategists Guild's)."""
    names = {e: set(prepared.tables[e].names) for e in EDITIONS}
    back = {old: new for new, old in COUNTERPARTS.items()}
    cards = cards.assign(
        in_editions=["both" if c in names[1] and c in names[2] else "first only" if c in names[1] else "second only"
                     for c in cards.card],
        counterpart=[COUNTERPARTS.get(c, back.get(c, "")) for c in cards.card],
        vp=cards.effect_vp, vp_ci_low=cards.effect_vp_ci_low, vp_ci_high=cards.effect_vp_ci_high)
    order = {p: i for i, p in enumerate(POPULATIONS)}
    return cards.assign(_p=cards.population.map(order)).sort_values(
        ["players", "edition", "_p", "card"], kind="stable").drop(columns="_p").reset_index(drop=True)


def change_table(con, prepared: Prepared, plan: Plan, data: Path, on_stage) -> pd.DataFrame:
    """changes.csv: each change's subjects at each count, from ablate's paired frame; then the
    changes not replayable alone."""
    rows = []
    first = prepared.tables[1]
    names = sorted({n for c in plan.changes for s in c.subjects if s.kind == CARD for n in (s.name, s.becomes) if n})
    for players in plan.counts:
        on_stage(f"{players}p: the changes, paired with their baseline")
        here = change_dir(data, players)
        base = read.open_dataset(here / BASELINE, first)
        base_cells = read.card_cells(con, base)
        base_cells = base_cells[base_cells.card.isin(names)].reset_index(drop=True)
        base_fits = effects.fit_cells(base_cells)
        slope = float(size.point_slopes(read.margin_table(con, base)).get(players, math.nan)) or math.nan
        for change in plan.changes:
            common = {"change": change.id, "label": change.label, "edits": EDITS_JOIN.join(change.edits),
                      "population": plan.default, "players": players, "games": plan.sizes.change_games}
            skipped = prepared.skipped.get((change.id, players))
            if skipped is not None:
                rows += [{**common, "status": skipped[0], "subject": s.label, "reason": skipped[1]}
                         for s in change.subjects]
                continue
            edited, _ = prepared.runs[change.id, players]
            ds = read.open_dataset(here / change.id, edited)
            cells = read.card_cells(con, ds)
            cells = cells[cells.card.isin(names)].reset_index(drop=True)
            renamed = {s.becomes: s.name for s in change.subjects if s.becomes}
            fits = {(p, renamed.get(card, card)): fit for (p, card), fit in effects.fit_cells(cells).items()}
            paired = paired_table(con, base, ds, base_cells, cells, (base_fits, fits))
            for s in change.subjects:
                metric = "effect" if s.kind == CARD else "win_rate"
                hit = paired[(paired.metric == metric) & (paired.key == f"{s.name}@{players}")]
                r = hit.iloc[0] if len(hit) else None
                value = {k: (float(r[k]) if r is not None else math.nan)
                         for k in ("baseline", "value", "diff", "ci_low", "ci_high", "p_value")}
                rows.append({**common, "status": PLAYED, "subject": s.label, "metric": metric, **value,
                             "vp_diff": value["diff"] / slope, "vp_ci_low": value["ci_low"] / slope,
                             "vp_ci_high": value["ci_high"] / slope,
                             "reason": "" if not math.isnan(value["diff"]) else NO_ESTIMATE})
    table = pd.DataFrame(rows)
    for column in ("baseline", "value", "diff", "ci_low", "ci_high", "p_value", "vp_diff", "vp_ci_low", "vp_ci_high"):
        if column not in table:
            table[column] = math.nan
    table["metric"] = table.get("metric", pd.Series("", index=table.index)).fillna("")
    table["q_value"] = q_values(table)  # one family per player count: the subjects read together
    unplayable = pd.DataFrame([{"change": u.id, "label": u.label, "edits": "", "population": "", "status":
                                NOT_REPLAYABLE, "subject": "", "metric": "", "reason": u.reason}
                               for u in plan.unplayable])
    table = pd.concat([table, unplayable], ignore_index=True)
    return table.astype({"players": "Int64", "games": "Int64"})


def _two_proportions_p(w2: int, n2: int, w1: int, n1: int) -> float:
    from statsmodels.stats.proportion import proportions_ztest

    if n1 == 0 or n2 == 0 or w1 + w2 in (0, n1 + n2):
        return math.nan
    return float(proportions_ztest([w2, w1], [n2, n1])[1])


def whole_table(boots: dict, plan: Plan) -> pd.DataFrame:
    """whole.csv: per population and count, each side's second-edition rate less its first (and
    VP), then the spread's change."""
    rows = []
    for players in plan.counts:
        for population in plan.populations:
            one, two = boots[1, population, players], boots[2, population, players]
            family = []
            for r in one.sides.itertuples():
                j1, j2 = one.column(r.wonder, r.side), two.column(r.wonder, r.side)
                if j2 is None:
                    continue
                s = two.sides.iloc[j2]
                lo, hi = _newcombe(int(s.wins), int(s.seats), int(r.wins), int(r.seats))
                with np.errstate(invalid="ignore"):
                    vp_low, vp_high, _ = basic_interval(s.vp - r.vp, two.vps[:, j2] - one.vps[:, j1])
                family.append({"population": population, "players": players, "row": "side", "wonder": r.wonder,
                               "side": r.side, "seats_1e": int(r.seats), "value_1e": r.win_rate,
                               "seats_2e": int(s.seats), "value_2e": s.win_rate, "diff": s.win_rate - r.win_rate,
                               "ci_low": lo, "ci_high": hi,
                               "p_value": _two_proportions_p(int(s.wins), int(s.seats), int(r.wins), int(r.seats)),
                               "vp_1e": r.vp, "vp_2e": s.vp, "vp_diff": s.vp - r.vp, "vp_ci_low": vp_low,
                               "vp_ci_high": vp_high})
            family = pd.DataFrame(family)
            family["q_value"] = q_values(family) if len(family) else []
            rows += family.to_dict("records")
            s1, s2 = _spreads(one), _spreads(two)
            with np.errstate(invalid="ignore"):
                low, high, _ = basic_interval(s2[0] - s1[0], s2[4] - s1[4])
                vp_low, vp_high, _ = basic_interval(s2[1] - s1[1], s2[5] - s1[5])
            rows.append({"population": population, "players": players, "row": "spread", "wonder": "", "side": "",
                         "value_1e": s1[0], "value_2e": s2[0], "diff": s2[0] - s1[0], "ci_low": low, "ci_high": high,
                         "vp_1e": s1[1], "vp_2e": s2[1], "vp_diff": s2[1] - s1[1], "vp_ci_low": vp_low,
                         "vp_ci_high": vp_high})
    table = pd.DataFrame(rows)
    return table.astype({"seats_1e": "Int64", "seats_2e": "Int64"})


# ---------------------------------------------------------------------------------------------
# summary.txt

def _pp(x: float, signed: bool = True) -> str:
    return answers.number(100 * x, signed)


def _interval(low: float, high: float, scale: float = 100) -> str:
    return f"[{answers.number(scale * low, True)}, {answers.number(scale * high, True)}]"


def _q(q: float) -> str:
    return "q < 0.0001" if q < 1e-4 else f"q {q:.4f}"


def _side(name: str) -> str:
    wonder, _, side = name.partition("/")
    return answers.side_name(wonder, side)


def summary(plan: Plan, spread: pd.DataFrame, changes: pd.DataFrame, whole: pd.DataFrame) -> str:
    """The plain-text digest: the spread per edition, the sides that moved beyond their
    interval, the changes that mattered, what could not be replayed; every sentence from the tables."""
    counts = ",".join(map(str, plan.counts))
    lines = ["wsim editions: the first edition (2010) and the second (2020) side by side",
             f"populations {', '.join(plan.populations)} at {counts} players: {plan.sizes.games:,} games a survey "
             f"(every population of both editions), {plan.sizes.change_games:,} games a change ({plan.default}); "
             f"seed {plan.seed}",
             f"again: {command_line(plan)}", "",
             "The spread: the strongest side's win rate less the weakest's, in points of win share, with its 95% "
             "interval from a bootstrap over games (which allows for picking the extremes; spread.csv):"]
    for r in spread.itertuples():
        if r.edition != 1:
            continue
        two = spread[(spread.edition == 2) & (spread.population == r.population) & (spread.players == r.players)]
        change = whole[(whole.row == "spread") & (whole.population == r.population) & (whole.players == r.players)]
        parts = []
        for s in (r, next(two.itertuples())):
            parts.append(f"{'first' if s.edition == 1 else 'second'} {_pp(s.spread, False)} "
                         f"{_interval(s.spread_ci_low, s.spread_ci_high)} ({_side(s.strongest)} "
                         f"{_pp(s.strongest_rate, False)}% to {_side(s.weakest)} {_pp(s.weakest_rate, False)}%)")
        c = next(change.itertuples())
        lines.append(f"  {r.population}, {r.players} players: {'; '.join(parts)}; change {_pp(c.diff)} "
                     f"{_interval(c.ci_low, c.ci_high)}")
    lines += ["", f"Sides whose win rate moved between the editions beyond its interval (q < {FINDING_Q}, whole.csv: "
                  "second less first, points of win share), the largest move first:"]
    for population in plan.populations:
        sides = whole[(whole.row == "side") & (whole.population == population)]
        moved = sides[sides.q_value < FINDING_Q]
        lines.append(f"  {population}: {len(moved)} of {len(sides)} readings (a side at a player count)")
        groups = sorted(moved.groupby(["wonder", "side"], sort=False), key=lambda g: -g[1]["diff"].abs().max())
        for (wonder, side), g in groups:
            at = "; ".join(f"{_pp(r.diff)} [{_pp(r.ci_low)}, {_pp(r.ci_high)}] at {r.players} ({_pp(r.value_1e, False)}% "
                           f"-> {_pp(r.value_2e, False)}%)" for r in g.sort_values("players").itertuples())
            lines.append(f"    {answers.side_name(wonder, side)}: {at}")
    played = changes[changes.status == PLAYED]
    mattered = played[played.q_value < FINDING_Q]
    lines += ["", f"The changes replayed alone on the first edition under {plan.default} (changes.csv: each paired "
                  f"with the unedited first edition on the same games): {len(mattered)} of "
                  f"{played['diff'].notna().sum()} readings with q < {FINDING_Q}; per change, the largest first:"]
    order = sorted(mattered.groupby("change", sort=False), key=lambda g: -g[1]["diff"].abs().max())
    for change, g in order:
        r = next(g.assign(_d=-g["diff"].abs()).sort_values(["_d", "players"], kind="stable").itertuples())
        what = (f"effect of building it {_pp(r.baseline)} -> {_pp(r.value)}" if r.metric == "effect" else
                f"win rate {_pp(r.baseline, False)}% -> {_pp(r.value, False)}%")
        readings = played[(played.change == change) & played["diff"].notna()]
        lines.append(f"  {r.label}: {len(g)} of {len(readings)} readings; largest {_subject(r.subject)} at "
                     f"{int(r.players)} players, {what} ({_pp(r.diff)} points {_interval(r.ci_low, r.ci_high)}, about "
                     f"{answers.number(r.vp_diff, True)} VP, {_q(r.q_value)})")
    quiet = [c.id for c in plan.changes if c.id not in set(mattered.change) and c.id in set(played.change)]
    if quiet:
        lines.append(f"  no reading with q < {FINDING_Q}: {', '.join(quiet)}")
    skipped = changes[changes.status.isin((NOT_IN_PLAY, NOT_PLAYABLE))].drop_duplicates(["change", "players"])
    for (status, change), group in skipped.groupby(["status", "change"], sort=True):
        lines.append(f"  {change}: {status} at {','.join(map(str, sorted(group.players.astype(int))))} players "
                     f"({group.reason.iloc[0]})")
    out = changes[changes.status == NOT_REPLAYABLE]
    lines += ["", f"Not replayable alone ({len(out)}): " + "; ".join(out.label) + "."]
    return "\n".join(lines) + "\n"


def _subject(subject: str) -> str:
    return _side(subject) if "/" in subject else subject
