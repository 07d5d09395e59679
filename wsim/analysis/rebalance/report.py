"""The report of `wsim rebalance` (docs/interfaces.md §7): its files (edits.txt, cards.yaml,
result.csv, path.csv, path_rates.csv, index.html) and their data, and run_rebalance, the search
with its report written to the output folder."""

from __future__ import annotations

import pandas as pd

from wsim.analysis.rebalance.games import Games
from wsim.analysis.rebalance.held_out import RESULT_COLUMNS
from wsim.analysis.rebalance.levers import data_for, edits_of
from wsim.analysis.rebalance.plan import Plan, search_games
from wsim.analysis.rebalance.search import Result, rebalance
from wsim.analysis.significance import wilson_ci
from wsim.people import columns as people_columns
from wsim.run.settings import Settings
from wsim.tables import Tables

REPORT_FILES = ("edits.txt", "cards.yaml", "result.csv", "path.csv", "path_rates.csv", "index.html")
PATH_COLUMNS = ("step", "edits", "max_deviation")
PATH_RATE_COLUMNS = ("step", "players", "wonder", "side", "rate", "ci_low", "ci_high")


def owns(name: str) -> bool:
    """The files `wsim rebalance` writes (and replaces with --overwrite)."""
    return name in REPORT_FILES


def path_frame(result: Result) -> pd.DataFrame:
    """path.csv's rows: each step's edits and its largest deviation from the fair share."""
    return pd.DataFrame([{"step": s.step, "edits": " ".join(edits_of(result.levers, s.changes)),
                          "max_deviation": s.rates.deviation()} for s in result.path])


def ablate_commands(result: Result, plan_: Plan, policy_params: tuple) -> list:
    """The `wsim ablate` line that plays each player count's held-out comparison again."""
    if not result.edits:
        return ["(no edit: nothing to compare)"]
    lines = []
    edition = ["--edition", str(result.edition)] if result.edition != 1 else []  # the second edition's data
    for p, settings in plan_.settings.items():
        words = ["wsim", *edition, "ablate", "--players", str(p), "--games", str(result.held_out_games), "--seed",
                 str(result.held_out_seed), "--policies", ",".join(_policy_words(settings))]
        words += [w for spec in policy_params for w in ("--policy-param", spec)]
        if settings.manneken_pis:
            words.append("--manneken-pis")
        words += [w for e in result.edits for w in ("--edit", e)]
        lines.append(" ".join(words + ["--out", "REPORT"]))
    return lines


def _policy_words(settings: Settings) -> list:
    """--policies as the settings were given: NAME or NAME:LABEL per seat."""
    return [name if label == name else f"{name}:{label}" for name, label in zip(settings.policies, settings.labels)]


def report_files(result: Result, base: Tables, plan_: Plan, policy_params: tuple) -> dict:
    """The report's files (docs/interfaces.md §7) {name: bytes}."""
    from wsim.analysis.balance.report import csv_bytes
    from wsim.analysis.rebalance.page import page

    data_text = result.data_text
    if data_text is None:  # a layout whose lines cannot be edited in place: the whole file, rewritten
        data_text = data_for(base, result.levers, result.best.changes).raw.decode()
    rates = []
    for s in result.path:
        for key in sorted(s.rates.seats):
            p, b, side = key
            lo, hi = wilson_ci(s.rates.wins[key], s.rates.seats[key])
            rates.append({"step": s.step, "players": p, "wonder": base.board_ids[b], "side": "AB"[side],
                          "rate": s.rates.rate(key), "ci_low": lo, "ci_high": hi})
    path = path_frame(result)
    return {
        "edits.txt": "".join(f"{e}\n" for e in result.edits).encode(),
        "cards.yaml": data_text.encode(),
        "result.csv": csv_bytes(result.held_out, RESULT_COLUMNS + people_columns.PEOPLE_COLUMNS),
        "path.csv": csv_bytes(path, PATH_COLUMNS),
        "path_rates.csv": csv_bytes(pd.DataFrame(rates, columns=PATH_RATE_COLUMNS), PATH_RATE_COLUMNS),
        "index.html": page(result, plan_, ablate_commands(result, plan_, policy_params), path).encode(),
    }


def run_rebalance(base: Tables, levers: list, plan_: Plan, policy_params: tuple, out, overwrite: bool,
                  dask: str | None = None, threads: int | None = None, on_event=None, progress=False) -> Result:
    """The search, then its report written to `out` (the output rules of every writing command:
    the folder held from its check to the commit, the old report replaced once the new one is
    whole); returns the result, its files in `.files`. progress: True, False or a function
    (wsim.run.progress), over the games the search plays at most."""
    from wsim.dataset.folder import output_files
    from wsim.run import progress as progress_mod

    from wsim.run.cluster import optional_cluster

    with optional_cluster(dask, threads) as cluster, output_files(out, owns, overwrite, "report") as commit, \
            progress_mod.start(progress, search_games(levers, plan_), label="rebalance") as tracker:
        result = rebalance(base, levers, plan_, Games(cluster, threads, tracker), on_event)
        result.files = report_files(result, base, plan_, policy_params)
        commit(result.files)
    return result
