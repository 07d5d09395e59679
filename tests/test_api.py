"""The Python API (wsim.api, docs/interfaces.md §8): the same values as the command line, datasets
opened and checked, every user error a WsimError, and `import wsim` light."""

import json
import subprocess
import sys
import threading

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import wsim
from wsim.api import runs as api
from wsim.errors import WsimError
from wsim.dataset import parts

from clikit import run_cli


def _cli_table(out) -> pa.Table:
    files = parts.part_files(out)
    return pa.concat_tables([pq.read_table(f).replace_schema_metadata(None) for f in files])


def test_import_wsim_loads_no_heavy_library():
    code = ("import sys, wsim; wsim.__version__; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('numba', 'numpy', 'pyarrow', 'pandas', 'duckdb', 'statsmodels', 'dask', 'pettingzoo', 'click')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_public_names_load_lazily_and_are_listed():
    assert set(wsim.__all__) >= {"simulate", "iter_batches", "open_dataset", "Dataset", "Game", "Move", "WsimError"}
    assert wsim.simulate is api.simulate and wsim.WsimError is WsimError
    with pytest.raises(AttributeError):
        wsim.no_such_name


@pytest.mark.parametrize("players, policies, params", [
    (4, "heuristic", ()),
    (2, ["greedy", "random"], {"greedy.coin": 40}),
    (5, "random,greedy,heuristic,random,greedy", ["greedy.coin=70"]),
])
def test_simulate_returns_the_table_the_cli_writes(tmp_path, players, policies, params):
    table = wsim.simulate(games=6, players=players, policies=policies, policy_params=params, seed=5, threads=1,
                          chunk_size=4)
    names = policies if isinstance(policies, str) and "," in policies else (
        ",".join(policies) if isinstance(policies, list) else ",".join([policies] * players))
    specs = params.items() if isinstance(params, dict) else [p.split("=") for p in params]
    flags = [x for k, v in specs for x in ("--policy-param", f"{k}={v}")]
    result = run_cli("simulate", "--games", "6", "--players", str(players), "--policies", names, "--seed", "5",
                     "--threads", "1", "--chunk-size", "4", *flags, "--out", str(tmp_path / "d"))
    assert result.exit_code == 0, result.output
    assert table.replace_schema_metadata(None).equals(_cli_table(tmp_path / "d"))
    meta = json.loads(table.schema.metadata[b"wsim"])
    assert meta == parts.run_metadata(parts.read_header(parts.part_files(tmp_path / "d")[0]).meta)


def test_iter_batches_yields_the_parts(tmp_path):
    batches = list(wsim.iter_batches(games=5, players=3, policies="greedy", seed=2, chunk_size=2, threads=1))
    assert [b.num_rows for b in batches] == [6, 6, 3]
    wsim.simulate(games=5, players=3, policies="greedy", seed=2, chunk_size=2, threads=1, out=tmp_path / "d")
    for batch, f in zip(batches, parts.part_files(tmp_path / "d")):
        assert batch.replace_schema_metadata(None).equals(pq.read_table(f).replace_schema_metadata(None))


def test_simulate_into_a_folder_returns_the_checked_dataset(tmp_path):
    out = tmp_path / "d"
    ds = wsim.simulate(games=7, players=4, policies="heuristic", seed=3, threads=1, chunk_size=3, out=out)
    assert isinstance(ds, wsim.Dataset) and ds.games == 7 and len(ds.files) == 3
    assert ds.metadata["policies"][0]["name"] == "heuristic"
    assert ds.to_arrow().equals(wsim.simulate(games=7, players=4, policies="heuristic", seed=3, threads=1)
                                .replace_schema_metadata(None))
    assert len(ds.to_pandas()) == 28
    import duckdb

    con = duckdb.connect()
    assert ds.to_duckdb(con).aggregate("sum(CAST(win AS INTEGER))").fetchall()[0][0] >= 7
    again = wsim.open_dataset(out)  # resume on a complete dataset plays nothing and returns it
    assert wsim.simulate(games=7, players=4, policies="heuristic", seed=3, chunk_size=3, out=out,
                         resume=True).files == again.files
    with pytest.raises(WsimError, match="not empty|non-empty|--overwrite|overwrite"):
        wsim.simulate(games=7, players=4, out=out)


@pytest.mark.parametrize("name, decoy", [("gl[12]", "gl1"), ("q?", "qx"), ("s*", "sx"), ("~t", "~t")])
def test_to_duckdb_reads_exactly_the_datasets_parts(tmp_path, monkeypatch, name, decoy):
    """N1: to_duckdb handed the part paths to DuckDB's read_parquet, which expands `[12]`, `?`
    and `*`: the dataset `gl[12]` was read as `gl1`'s rows, `q?` as its own and `qx`'s."""
    import duckdb

    monkeypatch.chdir(tmp_path)
    wsim.simulate(games=40, chunk_size=20, threads=1, out=name, seed=1)
    if decoy != name:
        wsim.simulate(games=40, chunk_size=20, threads=1, out=decoy, seed=2)
    rel = wsim.open_dataset(name).to_duckdb(duckdb.connect())
    assert rel.aggregate("count(*), min(seed), max(seed)").fetchall() == [(160, 1, 1)]
    assert rel.filter("seat = 0").aggregate("count(*)").fetchall() == [(40,)]  # a relation is read again


def test_open_dataset_refuses_what_is_not_a_whole_dataset(tmp_path):
    with pytest.raises(WsimError, match="no such dataset folder"):
        wsim.open_dataset(tmp_path / "missing")
    out = tmp_path / "d"
    wsim.simulate(games=4, players=3, seed=1, threads=1, chunk_size=2, out=out)
    parts.part_files(out)[1].unlink()
    with pytest.raises(WsimError, match="not a complete dataset"):
        wsim.open_dataset(out)


@pytest.mark.parametrize("kwargs, message", [
    ({"games": 0}, "games: must be a whole number"),
    ({"players": 9}, "players: must be a whole number from 2 to 7, got 9"),
    ({"policies": "chess"}, "policies:"),
    ({"policies": ["random"] * 3}, "policies: needs exactly 4 names"),
    ({"policies": 7}, "policies: a policy name or a list"),
    ({"policy_params": {"greedy.nope": 1}, "policies": "greedy"}, "policy_params:"),
    ({"policy_params": 3}, "policy_params: a mapping"),
    ({"chunk_size": 0}, "chunk_size: must be a whole number"),
    ({"threads": 99}, "threads: must be a whole number from 1 to"),
    ({"wonders": "fixed:nowhere"}, "wonders:"),
    ({"overwrite": True}, "overwrite: only with out="),
    ({"dask": "local:2"}, "dask: only with out="),
    ({"data": "/no/such/file.yaml"}, "no/such/file.yaml"),
])
def test_bad_settings_are_wsim_errors_named_as_in_python(kwargs, message):
    with pytest.raises(WsimError, match=message.replace(".", r"\.").replace("(", r"\(")):
        wsim.simulate(**{"games": 2, **kwargs})


def test_a_table_too_large_for_memory_is_refused(monkeypatch):
    monkeypatch.setattr(api, "MAX_TABLE_ROWS", 10)
    with pytest.raises(WsimError, match="out= to write a dataset, or read the run a part at a time"):
        wsim.simulate(games=3, players=4)


def test_bad_output_arguments_write_nothing(tmp_path):
    with pytest.raises(WsimError, match="overwrite and resume"):
        wsim.simulate(games=2, out=tmp_path / "d", overwrite=True, resume=True)
    with pytest.raises(WsimError, match="out: must name a folder"):
        wsim.simulate(games=2, out="")
    assert not (tmp_path / "d").exists()


def test_input_file_errors_are_wsim_errors():
    from wsim.movelog import LogError
    from wsim.reference.replay import ReplayError
    from wsim.yamlfile import YamlFileError

    assert all(issubclass(cls, WsimError) for cls in (LogError, ReplayError, YamlFileError))


def test_api_calls_from_two_threads_take_turns():
    results, errors = [], []

    def run():
        try:
            results.append(wsim.simulate(games=20, players=4, policies="greedy", seed=9))
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    workers = [threading.Thread(target=run) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert errors == [] and results[0].equals(results[1])


def test_an_interrupt_leaves_whole_parts_and_no_handler_of_ours(tmp_path, monkeypatch):
    """A notebook's interrupt (KeyboardInterrupt in the call): whole parts only, the signal
    handlers untouched, and resume=True completes the dataset to an uninterrupted run's values."""
    import signal

    from wsim.dataset import write

    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    played = []
    real = write.play_part

    def interrupted(*args, **kwargs):
        if len(played) == 2:
            raise KeyboardInterrupt
        played.append(args[2])
        return real(*args, **kwargs)

    monkeypatch.setattr(write, "play_part", interrupted)
    out = tmp_path / "d"
    with pytest.raises(KeyboardInterrupt):
        wsim.simulate(games=10, players=3, seed=6, chunk_size=2, threads=1, out=out)
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".wsim-lock")) == [
        "part-00000.parquet", "part-00001.parquet"]
    assert {s: signal.getsignal(s) for s in handlers} == handlers
    monkeypatch.setattr(write, "play_part", real)
    ds = wsim.simulate(games=10, players=3, seed=6, chunk_size=2, threads=1, out=out, resume=True)
    assert ds.to_arrow().equals(wsim.simulate(games=10, players=3, seed=6, threads=1).replace_schema_metadata(None))
