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
a run with the same options, data file, rules and features goes on from the last completed step,
and anything else is refused, naming the difference (learn.json records them all). One run at a
time holds the folder (its lock, as a dataset's), and `--out` as `wsim tune` holds its file
(wsim.dataset.outfile), both before the first teacher game. Every file read back is read as an
input (a regular file; learn.json and the models of a bounded size), and one that does not read
as what was written is "damaged", never a traceback.
Deterministic: the same options and threads give the same model file, bit for bit, wherever it
is written and however often the run was interrupted: the header holds no wall-clock time (the
seconds stay in learn.json) and its command no --out.
"""

from __future__ import annotations

import json
import os
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from wsim import RULES_VERSION
from wsim.analysis.stats import wilson_interval
from wsim.dataset.folder import LOCK, drop_lock, take_lock
from wsim.dataset.outfile import out_file
from wsim.errors import WsimError, brief
from wsim.inputfile import TooLarge, open_regular, read_regular
from wsim.run.model import (FEATURES_VERSION, FORMAT, Model, feature_names, features_header, max_model_bytes,
                            model_file_bytes, read_model)
from wsim.run.tape import META_COLUMNS, record
from wsim.run.settings import Settings
from wsim.tables import Tables

RECORD = "learn.json"
RECORD_LIMIT = 1 << 20  # bytes of learn.json read at most (20 iterations take about 20 kB)
PARTIAL = ".partial"  # a work file's temporary name: NAME.partial, renamed once whole
DATA_KEY = b"wsim_learn"  # the Parquet metadata key of a data file's iteration and teacher
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


BASIS_NAMES = {"data_sha256": "the data file of sha256", "rules": "rules version", "features": "features version"}


def basis(tables: Tables) -> dict:
    """What decides a run's data beside its Plan: the data file (its sha256), the rules and the
    features the engine computes. learn.json records it; a folder begun on another is refused."""
    return {"data_sha256": tables.data_sha256, "rules": RULES_VERSION, "features": FEATURES_VERSION}


class Work:
    """The work folder: each iteration's data, model and the record of what was done (learn.json),
    held by one run at a time (its .wsim-lock, as a dataset's folder, removed when the run ends)
    while the object is used in `with`. On entry a temporary file a run killed mid-write left is
    removed, and the record is read and checked against the plan and `made_with` (basis():
    LearnError naming the difference, or the damage), or written when the folder is new."""

    def __init__(self, folder: Path, plan: Plan, made_with: dict):
        self.folder = folder
        self.plan = plan
        self.made_with = made_with
        self.iterations = []
        self._lock = None

    def __enter__(self) -> "Work":
        self._lock = take_lock(self.folder / LOCK, self.folder, "--work", make_folder=True)
        try:
            for leftover in self.folder.glob(f"*{PARTIAL}"):
                leftover.unlink()
            path = self.folder / RECORD
            if os.path.lexists(path):
                self.iterations = _recorded(path, self.plan, self.made_with)
            else:
                self.save()
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc):
        drop_lock(self.folder / LOCK, self._lock, remove=True)  # take_lock is safe against a removed lock file

    def save(self):
        with _replacing(self.folder / RECORD) as tmp:
            tmp.write_text(json.dumps({"plan": asdict(self.plan), **self.made_with, "iterations": self.iterations},
                                      indent=1))

    def data(self, k: int) -> Path:
        return self.folder / f"data-{k}.parquet"

    def model(self, k: int) -> Path:
        return self.folder / f"model-{k}.npz"


def _recorded(path: Path, plan: Plan, made_with: dict) -> list:
    """The iterations learn.json records, once it reads as a record of `plan` on `made_with`."""
    folder = path.parent
    try:
        doc = json.loads(read_regular(path, RECORD_LIMIT))
    except TooLarge as e:
        raise LearnError(f"{path}: damaged ({e})") from None
    except OSError as e:
        raise LearnError(f"{path}: cannot be read ({e.strerror or e})") from None
    except ValueError as e:  # not JSON, or not UTF-8
        raise LearnError(f"{path}: damaged (not JSON: {e})") from None
    if not (isinstance(doc, dict) and isinstance(doc.get("plan"), dict) and isinstance(doc.get("iterations"), list)):
        raise LearnError(f"{path}: damaged (not a learn record: an object with 'plan' and 'iterations')")
    recorded = {**asdict(Plan(mix=0.0)), **doc["plan"]}  # a folder from before an option: its default
    given = json.loads(json.dumps(asdict(plan)))
    changed = [f"--{k.replace('_', '-')} {_shown(recorded.get(k))} where this run has {_shown(given.get(k))}"
               for k in sorted(set(recorded) | set(given)) if recorded.get(k) != given.get(k)]
    if changed:
        raise LearnError(f"{folder}: holds a learn run of other options ({'; '.join(changed)}); "
                         f"give the same options to go on, or another --work folder")
    for key, value in made_with.items():
        if doc.get(key) != value:
            was = "none recorded (a work folder of an older wsim)" if key not in doc else _shown(doc[key])
            raise LearnError(f"{folder}: was begun with {BASIS_NAMES[key]} {was}, this run has {_shown(value)}; "
                             f"give the same --data to go on, or another --work folder")
    iterations = doc["iterations"]
    if len(iterations) > plan.iterations:
        raise LearnError(f"{path}: damaged (it records {len(iterations)} iterations of a run of {plan.iterations})")
    for k, entry in enumerate(iterations):
        score = entry.get("vs_heuristic") if isinstance(entry, dict) else None
        share = score.get("win_share") if isinstance(score, dict) else None
        if (not isinstance(entry, dict) or entry.get("iteration") != k or type(share) not in (int, float)
                or not 0 <= share <= 1):
            raise LearnError(f"{path}: damaged (iteration {k} is not recorded as iteration {k} with a win share "
                             "from 0 to 1)")
    return iterations


def _shown(value) -> str:
    """A recorded value in a message: a sha256 by its first 12 digits, players as typed."""
    if isinstance(value, str) and len(value) == 64:
        return value[:12] + "…"
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value))
    return brief(value)


@contextmanager
def _replacing(path: Path):
    """A temporary name for `path`'s new content, renamed to `path` once the block has written it
    and removed when the block fails (a full disk leaves no partial file in the work folder)."""
    tmp = path.with_name(path.name + PARTIAL)
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException as e:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise LearnError(f"--work: cannot write {path} ({e.strerror or e})") from None
        raise


@contextmanager
def _cluster(dask, threads: int):
    """None, or the Dask cluster of address `dask` (its tasks' threads: `threads`), closed after."""
    if dask is None:
        yield None
        return
    from wsim.run.cluster import connect

    cluster = connect(dask, threads)
    try:
        yield cluster
    finally:
        cluster.close()


def learn(tables: Tables, out: str, work: Path, plan: Plan, threads: int, command: str = "", say=print,
          progress=False, overwrite: bool = False, dask=None) -> dict:
    """Run (or go on with) the iterations, write the best model to `out`; returns its header.
    `out` (as typed) and the work folder are checked and held before the first teacher game
    (wsim.dataset.outfile: an existing file only with overwrite); command: the command line
    recorded in the model's provenance (without --out: the file does not depend on where it is
    written); progress: True, False or a function (wsim.run.progress) for the teacher games; dask:
    None, or the address of the Dask cluster that plays them (threads: each task's)."""
    from wsim.run import progress as progress_mod

    width = len(feature_names(tables))
    with (out_file(out, overwrite, max_model_bytes(width, plan.hidden), "the model file") as write,
          Work(work, plan, basis(tables)) as w, _cluster(dask, threads) as cluster):
        for k in range(len(w.iterations), plan.iterations):
            started = time.time()
            if not w.data(k).exists():
                say(f"iteration {k}: teacher games ({_teacher_name(plan, k)}, {plan.games:,} games)")
                with progress_mod.start(progress, plan.games, label=f"learn, iteration {k}",
                                        step="teacher games") as tracker:
                    inputs, facts = _teacher_games(tables, plan, k, str(w.model(k - 1)) if k else "", threads,
                                                   tracker.advance, cluster)
                write_parquet(w.data(k), inputs, facts, {"iteration": k, "teacher": _teacher_name(plan, k)})
            parts = [read_parquet(w.data(j), width, j) for j in range(max(0, k - 1), k + 1)]
            inputs, facts = np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
            del parts  # one copy of the data in memory while it is fitted
            say(f"iteration {k}: fit on {len(inputs):,} positions")
            from wsim.agents.fit import fit

            w1, b1, w2, b2, report = fit(inputs, facts[:, 6], plan.hidden, plan.seed + k, plan.epochs)
            del inputs
            with _replacing(w.model(k)) as tmp:
                tmp.write_bytes(Model(w1, b1, w2, b2, _header(tables, plan, k, command)).to_bytes())
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
        # the wall-clock seconds stay in learn.json: the model file repeats bit for bit
        repeated = [{key: v for key, v in entry.items() if key != "seconds"} for entry in w.iterations]
        model.header = {**model.header, "provenance": {**model.header["provenance"], "chosen_iteration": best,
                                                         "command": command, "iterations": repeated}}
        write(model.to_bytes())
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

        model = model_file_bytes(model_file, tables) if model_file else b""
        parts = record_ranges(cluster, tables.raw, model, ranges, plan.rate, plan.explore, threads, on_progress)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def _header(tables: Tables, plan: Plan, k: int, command: str) -> dict:
    # a second-edition model says so (run/model.check_header); a first-edition header is as before
    edition = {"edition": tables.edition} if tables.edition != 1 else {}
    return {"format": FORMAT, "features": features_header(tables), "rules": RULES_VERSION, "target": "margin",
            "hidden": plan.hidden, **edition,
            "provenance": {"data_sha256": tables.data_sha256, "teacher": plan.teacher, "plan": asdict(plan),
                           "iteration": k, "command": command}}


def default_work(out: Path) -> Path:
    """The work folder beside the model file: OUT.work."""
    return out.with_name(out.name + ".work")


def write_parquet(path: Path, inputs: np.ndarray, facts: np.ndarray, metadata: dict):
    """The rows as Parquet: one column per fact and `x`, the input as a fixed-size list of float32."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = {name: pa.array(facts[:, i]) for i, name in enumerate(META_COLUMNS)}
    cols["x"] = pa.FixedSizeListArray.from_arrays(pa.array(inputs.reshape(-1)), inputs.shape[1])
    table = pa.table(cols).replace_schema_metadata({DATA_KEY: json.dumps(metadata, sort_keys=True).encode()})
    with _replacing(path) as tmp:
        pq.write_table(table, tmp)


def read_parquet(path: Path, width: int, iteration: int) -> tuple:
    """(inputs, facts) of the file write_parquet wrote for `iteration`, of inputs of `width`
    entries; LearnError "damaged" for anything else (a truncated or foreign file)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        with open_regular(path) as source:
            table = pq.read_table(source)
        problem = _data_problem(table, width, iteration)
        if problem is None:
            facts = np.stack([table.column(n).to_numpy() for n in META_COLUMNS], axis=1).astype(np.int32)
            x = table.column("x").combine_chunks().flatten().to_numpy()
            return np.array(x.reshape(-1, width)), facts  # writable: the fit standardises it in place
    except (OSError, pa.ArrowException) as e:
        problem = str(e)
    raise LearnError(f"{path}: damaged ({problem})")


def _data_problem(table, width: int, iteration: int) -> str | None:
    """Why `table` is not write_parquet's data of `iteration` (None when it is)."""
    import pyarrow as pa

    try:
        made = json.loads((table.schema.metadata or {})[DATA_KEY])
    except (KeyError, ValueError):
        return "not written by wsim learn"
    if not isinstance(made, dict) or made.get("iteration") != iteration:
        return f"not the data of iteration {iteration}"
    missing = [n for n in (*META_COLUMNS, "x") if n not in table.column_names]
    if missing:
        return f"no column {', '.join(missing)}"
    x = table.schema.field("x").type
    if not (pa.types.is_fixed_size_list(x) and x.list_size == width and x.value_type == pa.float32()):
        return f"its inputs are not {width} float32 numbers each"
    if not all(pa.types.is_integer(table.schema.field(n).type) for n in META_COLUMNS):
        return "a fact column that is not whole numbers"
    if any(table.column(n).null_count for n in (*META_COLUMNS, "x")):
        return "missing values"
    return None
