"""The held-out run of a rebalance: the input data and the chosen edits played on games no step
used, paired seat by seat, with enough games that every side's 95% half-width is at most half
the tolerance; result.csv's table, and the runs' distance to people."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd

from wsim import codes
from wsim.analysis.rebalance.games import Games, Rates, Tally, paired_mean_se, seats_of
from wsim.analysis.rebalance.levers import data_for
from wsim.analysis.rebalance.plan import Plan
from wsim.analysis.significance import bh_q, normal_test_p, wilson_ci
from wsim.analysis.stats import Z95
from wsim.kernels import layout
from wsim.kernels.layout import RES_BOARD, RES_SIDE
from wsim.people import columns as people_columns
from wsim.people.aggregate import Aggregate, aggregate
from wsim.tables import Tables

HELD_OUT_SEED_OFFSET = 1_000_003  # the held-out run's seed: --seed plus this (steps use --seed + step)
RESULT_COLUMNS = ("players", "wonder", "side", "seats", "before", "before_ci_low", "before_ci_high", "after",
                  "after_ci_low", "after_ci_high", "diff", "ci_low", "ci_high", "q_value")


def held_out_games(now: Rates, plan_: Plan) -> int:
    """Games enough that every side's 95% half-width is at most half the tolerance: from each
    side's share of the seats in the step-0 run and a rate at worst 1/2."""
    seats = (2 * Z95 / plan_.tolerance) ** 2 * 0.25  # a side's seats for that half-width at a rate of 1/2
    need = 0
    for n in now.seats.values():
        share = n / plan_.games  # the side's seats per game
        if share > 0:
            need = max(need, math.ceil(seats / share))
    return need


_RES_SEAT_COLUMNS = {"rank": "RES_RANK", "vp_total": "RES_TOTAL", "stages": "RES_STAGES", "shields": "RES_SHIELDS",
                     "discards": "RES_DISCARDS", "chained": "RES_CHAINED", "coins_paid": "RES_COINS_PAID",
                     "coins_received": "RES_COINS_RECEIVED",
                     **{f"vp_{c}": f"RES_{c.upper()}" for c in codes.CATEGORIES}}


def res_seats(players: int, res: np.ndarray, t: Tables, first_game: int) -> dict:
    """The seat table (wsim.people.aggregate.SEAT_COLUMNS, without the colour counts: res holds
    no cards) of a chunk's res rows, games first_game.., the Free City's seat left out."""
    seats = codes.FC_PLAYERS if players == codes.FC_PLAYERS else res.shape[1]
    flat = res[:, :seats].reshape(-1, res.shape[2])
    out = {"players": np.full(len(flat), players, dtype=np.int64),
           "game": np.repeat(np.arange(first_game, first_game + res.shape[0], dtype=np.int64), seats),
           "wonder": np.asarray(t.board_ids)[flat[:, RES_BOARD].astype(np.int64)],
           "side": np.array(["A", "B"])[flat[:, RES_SIDE].astype(np.int64)]}
    for column, constant in _RES_SEAT_COLUMNS.items():
        out[column] = flat[:, getattr(layout, constant)].astype(np.int64)
    return out


def held_out(games: Games, base: Tables, levers: list, changes: dict, plan_: Plan, seed: int,
             n: int) -> tuple:
    """(the result.csv table, the after run's rates, {players: (Aggregate of the input's run,
    of the edited run)}) of the input and the chosen data on the held-out games, paired seat by
    seat: the two runs are played chunk by chunk side by side, and only their tallies and their
    aggregates (wsim.people.aggregate: for the distance to people, at the player counts people
    played) kept."""
    before, after = Rates(), Rates()
    sums: dict = {}
    aggregates: dict = {}
    edited = data_for(base, levers, changes) if changes else None
    for p, settings in plan_.settings.items():
        settings = dataclasses.replace(settings, seed=seed, games=n)
        tallies = Tally(p, base), Tally(p, base)
        size = tallies[0].size
        first, second = np.zeros(size), np.zeros(size)
        edited_runs = games.chunks(edited, settings) if edited is not None else None
        runs, at = [Aggregate(), Aggregate()], 0
        for res in games.chunks(base, settings):
            index, w0 = seats_of(p, res)
            res1 = next(edited_runs) if edited_runs is not None else res
            w1 = seats_of(p, res1)[1] if edited_runs is not None else w0
            tallies[0].add(index, w0)
            tallies[1].add(index, w1)
            if people_columns.has_people(p, base.edition):
                runs[0] = runs[0] + aggregate(res_seats(p, res, base, at))
                if edited_runs is not None:
                    runs[1] = runs[1] + aggregate(res_seats(p, res1, base, at))
            at += len(res)
            d = w1.astype(np.int64) - w0
            first += np.bincount(index, weights=d, minlength=size)
            second += np.bincount(index, weights=np.abs(d), minlength=size)
        tallies[0].into(before)
        tallies[1].into(after)
        aggregates[p] = tuple(runs)
        for k in range(size):
            sums[(p, k // 2, k % 2)] = (int(first[k]), int(second[k]))
    rows = []
    for key in sorted(before.seats):
        p, b, s = key
        w0, w1, seats = before.wins[key], after.wins[key], before.seats[key]
        mean, se = paired_mean_se(seats, *sums[key])
        if seats < 2:
            se = math.nan
        lo0, hi0 = wilson_ci(w0, seats)
        lo1, hi1 = wilson_ci(w1, seats)
        rows.append({"players": p, "wonder": b, "side": "AB"[s], "seats": seats,
                     "before": w0 / seats, "before_ci_low": lo0, "before_ci_high": hi0,
                     "after": w1 / seats, "after_ci_low": lo1, "after_ci_high": hi1,
                     "diff": mean, "ci_low": mean - Z95 * se, "ci_high": mean + Z95 * se,
                     "p": normal_test_p(mean, se)})
    table = pd.DataFrame(rows, columns=list(RESULT_COLUMNS[:-1]) + ["p"])
    table["q_value"] = np.nan
    for p in table["players"].unique():
        mask = table["players"] == p
        table.loc[mask, "q_value"] = bh_q(table.loc[mask, "p"]).to_numpy()
    return table.drop(columns="p"), after, aggregates


def people_lines(plan_: Plan, aggregates: dict, edited: bool, edition: int) -> list:
    """How far the held-out runs (the input data, and the edited data when there are edits) are
    from people at each player count (wsim.people.columns.distance_lines); `edition`: the input
    data's (codes.EDITIONS): for another than the people's, the one line that says why not."""
    if not people_columns.same_edition(edition):
        return people_columns.distance_lines({}, list(aggregates), edition)
    lines = []
    for p, runs in aggregates.items():
        who = f"{plan_.name} ({', '.join(sorted(set(plan_.settings[p].labels)))})"
        names = (f"{who} with the input data", f"{who} with the edited data")[:2 if edited else 1]
        lines += people_columns.distance_lines(dict(zip(names, runs)), p, edition)
    return lines
