"""`wsim learn`: the learned player's iterations (docs/agents.md, "The learned player").

Iteration k plays teacher games and records sampled decisions (wsim/run/tape.py): in
iteration 0 every seat plays the teacher (`heuristic` unless told otherwise), from iteration 1 on
every seat plays the previous iteration's model. A recorded decision is explored with probability
`explore` (a uniform legal option instead of the teacher's), so the data value options the
teacher never plays; the outcome is the teacher's play after it (policy iteration: the model of
iteration k estimates what the position is worth when iteration k's teacher plays on, and
playing its best afterstate improves on that teacher). Each model is fitted to its iteration's
data and the previous one's (wsim/agents/fit.py), then evaluated: one learned seat against three
heuristic seats at 4 players, on games of a seed no teacher game used. The output is the model
of the best evaluation, its header recording every iteration.

The teacher games play here on the threads, or as tasks on a Dask cluster (`--dask`,
wsim.run.cluster.record_ranges: the same data, the model file travelling as bytes); the fit and
the evaluation run here.

Resumable: the work folder keeps each iteration's data (Parquet), model and record (learn.json);
a run with the same options goes on from the last completed step, and other options are refused.
Deterministic: the same options and threads give the same model file, bit for bit.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from wsim import RULES_VERSION
from wsim.analysis.stats import wilson_interval
from wsim.errors import WsimError
from wsim.run.model import FORMAT, Model, features_header, read_model
from wsim.run.tape import META_COLUMNS, record
from wsim.run.settings import Settings
from wsim.tables import Tables

RECORD = "learn.json"
EVAL_PLAYERS = 4
EVAL_SEED_OFFSET = 10**6  # evaluation games come from seed + this: no teacher game is among them


class LearnError(WsimError):
    """A work folder that does not fit the options given."""


@dataclass(frozen=True)
class Plan:
    """Every option that determines a learn run's models."""

    iterations: int = 3
    games: int = 50_000  # teacher games per iteration, split over the player counts
    players: tuple = (2, 3, 4, 4, 5, 6, 7)  # the player counts, one share of the games each
    rate: float = 0.05  # the share of decisions recorded
    explore: float = 0.5  # the share of recorded decisions played by a uniform legal option
    hidden: int = 64
    epochs: int = 30
    eval_games: int = 2_000
    teacher: str = "heuristic"
    seed: int = 0
    mix: float = 0.0  # from iteration 1 on, the share of each teacher table's seats that play `teacher`


def _player_games(plan: Plan) -> list:
    """[(players, games)] of one iteration's teacher games."""
    counts = sorted(set(plan.players))
    shares = [plan.players.count(p) for p in counts]
    total = sum(shares)
    out, given = [], 0
    for p, share in zip(counts, shares):
        n = plan.games * share // total if p != counts[-1] else plan.games - given
        given += n
        out.append((p, n))
    return out


def _teacher_settings(plan: Plan, k: int, players: int, model_file: str) -> Settings:
    """Iteration k's teacher table at `players`: every seat the teacher (k = 0), else the previous
    model at every seat but the first floor(players x mix + 1/2), which play the teacher."""
    seed = plan.seed * 1000 + k
    if k == 0:
        return Settings(players=players, policies=(plan.teacher,) * players, seed=seed)
    fixed = int(players * plan.mix + 0.5)
    return Settings(players=players, policies=(plan.teacher,) * fixed + ("learned",) * (players - fixed), seed=seed,
                    model=model_file)


def evaluate(tables: Tables, model_file: str, games: int, seed: int) -> dict:
    """One learned seat against three heuristic seats at 4 players (the seat rotated by blocks):
    its win share with the 95% Wilson interval, and its mean margin over the best other player."""
    from wsim.agents.ladder import Entry, play_pair
    from wsim.run.weights import default_params

    x = Entry("learned", "learned", default_params("learned"), model_file)
    y = Entry("heuristic", "heuristic", default_params("heuristic"))
    pair = play_pair(tables, x, y, EVAL_PLAYERS, games, seed + EVAL_SEED_OFFSET)
    lo, hi = wilson_interval(pair.wins, pair.games)
    return {"opponent": "3 x heuristic", "players": EVAL_PLAYERS, "games": pair.games, "wins": pair.wins,
            "win_share": round(pair.wins / pair.games, 4), "ci95": [round(lo, 4), round(hi, 4)],
            "margin": round(pair.margin / pair.games, 3)}


class Work:
    """The work folder: each iteration's data, model and the record of what was done."""

    def __init__(self, folder: Path, plan: Plan):
        self.folder = folder
        self.plan = plan
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / RECORD
        if path.exists():
            doc = json.loads(path.read_text())
            recorded = {**asdict(Plan(mix=0.0)), **doc.get("plan", {})}  # a folder from before an option: its default
            if recorded != json.loads(json.dumps(asdict(plan))):
                raise LearnError(f"{folder}: holds a learn run of other options ({_plan_text(doc.get('plan'))}); "
                                 f"give the same options to go on, or another --work folder")
            self.iterations = doc["iterations"]
        else:
            self.iterations = []
            self.save()

    def save(self):
        path = self.folder / RECORD
        tmp = path.with_name(RECORD + ".partial")
        tmp.write_text(json.dumps({"plan": asdict(self.plan), "iterations": self.iterations}, indent=1))
        tmp.replace(path)

    def data(self, k: int) -> Path:
        return self.folder / f"data-{k}.parquet"

    def model(self, k: int) -> Path:
        return self.folder / f"model-{k}.npz"


def _plan_text(plan) -> str:
    return ", ".join(f"{k}={v}" for k, v in (plan or {}).items())


def learn(tables: Tables, out: Path, work: Path, plan: Plan, threads: int, command: str = "", say=print,
          progress=False, cluster=None) -> dict:
    """Run (or go on with) the iterations, write the best model to `out`; returns its header.
    command: the command line recorded in the model's provenance; progress: True, False or a
    function (wsim.run.progress) for the teacher games; cluster: None, or the Dask cluster that
    plays them (threads: each task's)."""
    from wsim.run import progress as progress_mod

    w = Work(work, plan)
    for k in range(len(w.iterations), plan.iterations):
        started = time.time()
        if not w.data(k).exists():
            say(f"iteration {k}: teacher games ({_teacher_name(plan, k)}, {plan.games:,} games)")
            with progress_mod.start(progress, plan.games, label=f"learn, iteration {k}",
                                    step="teacher games") as tracker:
                inputs, facts = _teacher_games(tables, plan, k, str(w.model(k - 1)) if k else "", threads,
                                               tracker.advance, cluster)
            write_parquet(w.data(k), inputs, facts, {"iteration": k, "teacher": _teacher_name(plan, k)})
        parts = [read_parquet(w.data(j)) for j in range(max(0, k - 1), k + 1)]
        inputs, facts = np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
        del parts  # one copy of the data in memory while it is fitted
        say(f"iteration {k}: fit on {len(inputs):,} positions")
        from wsim.agents.fit import fit

        w1, b1, w2, b2, report = fit(inputs, facts[:, 6], plan.hidden, plan.seed + k, plan.epochs)
        del inputs
        header = _header(tables, plan, k, command)
        Model(w1, b1, w2, b2, header).write(w.model(k))
        score = evaluate(tables, str(w.model(k)), plan.eval_games, plan.seed)
        entry = {"iteration": k, "teacher": _teacher_name(plan, k), "games": plan.games, "fit": report,
                 "vs_heuristic": score, "seconds": round(time.time() - started, 1)}
        w.iterations.append(entry)
        w.save()
        say(f"iteration {k}: against 3 heuristic seats {score['win_share']:.1%} "
            f"(95% CI {score['ci95'][0]:.1%}-{score['ci95'][1]:.1%}, {score['games']:,} games), "
            f"margin {score['margin']:+.2f}")
    best = max(range(plan.iterations), key=lambda k: (w.iterations[k]["vs_heuristic"]["win_share"], -k))
    model = read_model(w.model(best), tables)
    model.header = {**model.header, "provenance": {**model.header["provenance"], "chosen_iteration": best,
                                                     "iterations": w.iterations}}
    model.write(out)
    return model.header


def _teacher_name(plan: Plan, k: int) -> str:
    if k == 0:
        return plan.teacher
    return f"learned (iteration {k - 1})" + (f" with {plan.mix:.0%} of the seats {plan.teacher}" if plan.mix else "")


def _teacher_games(tables: Tables, plan: Plan, k: int, model_file: str, threads: int, on_progress,
                   cluster=None) -> tuple:
    """(inputs, facts) of iteration k's teacher games, player count after player count."""
    ranges = [(_teacher_settings(plan, k, players, model_file), 0, games, plan.seed * 1000 + k + 7 * players)
              for players, games in _player_games(plan) if games]
    if cluster is None:
        parts = [record(tables, settings, first, games, plan.rate, plan.explore, seed, threads, on_progress)
                 for settings, first, games, seed in ranges]
    else:
        from wsim.run.cluster import record_ranges

        model = Path(model_file).read_bytes() if model_file else b""
        parts = record_ranges(cluster, tables.raw, model, ranges, plan.rate, plan.explore, threads, on_progress)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def _header(tables: Tables, plan: Plan, k: int, command: str) -> dict:
    return {"format": FORMAT, "features": features_header(tables), "rules": RULES_VERSION, "target": "margin",
            "hidden": plan.hidden,
            "provenance": {"data_sha256": tables.data_sha256, "teacher": plan.teacher, "plan": asdict(plan),
                           "iteration": k, "command": command}}


def default_work(out: Path) -> Path:
    """The work folder beside the model file: OUT.work."""
    return out.with_name(out.name + ".work")


def write_parquet(path, inputs: np.ndarray, facts: np.ndarray, metadata: dict):
    """The rows as Parquet: one column per fact and `x`, the input as a fixed-size list of float32."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = {name: pa.array(facts[:, i]) for i, name in enumerate(META_COLUMNS)}
    cols["x"] = pa.FixedSizeListArray.from_arrays(pa.array(inputs.reshape(-1)), inputs.shape[1])
    table = pa.table(cols).replace_schema_metadata({b"wsim_learn": json.dumps(metadata, sort_keys=True).encode()})
    tmp = f"{path}.partial"
    pq.write_table(table, tmp)
    os.replace(tmp, path)


def read_parquet(path) -> tuple:
    """(inputs, facts) of a file write_parquet wrote."""
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    facts = np.stack([table.column(n).to_numpy() for n in META_COLUMNS], axis=1).astype(np.int32)
    x = table.column("x").combine_chunks()
    del table
    width = x.type.list_size
    inputs = np.array(x.flatten().to_numpy().reshape(-1, width))  # writable: the fit standardises it in place
    return inputs, facts
