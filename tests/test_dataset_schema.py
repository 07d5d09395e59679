"""Self-describing data (docs/interfaces.md §2): every column of a written dataset carries its
description, `policy`, `wonder` and `side` are dictionary-encoded, the policy parameters are
recorded by name, `wsim check --describe` prints it all; schema version 3 adds the columns of how
a seat played; a dataset of schema version 1 or 2 (written before) stays readable, and --resume
onto one keeps its schema."""

import hashlib
import json
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import wsim
from clikit import last_error_line, run_cli
from wsim import RULES_VERSION
from wsim.codes import COUNTERS
from wsim import tables as tables_mod
from wsim.dataset import columns, parts
from wsim.dataset import plan as plan_mod
from wsim.kernels.policy import P_COUNT, POLICY_NAMES
from wsim.run.settings import SettingsError, apply_policy_params, settings_from_metadata
from wsim.run.weights import ParamsError, default_params, params_by_name, params_row

ROOT = Path(__file__).resolve().parents[1]
RUN = ["--games", "40", "--chunk-size", "15", "--seed", "5"]
TWO = [*RUN, "--players", "2", "--policies", "greedy:g,random"]
FOUR = [*RUN, "--players", "4", "--policies", "random,greedy,random,rollout", "--policy-param", "rollout.playouts=2",
        "--policy-param", "rollout.base=greedy"]
NAMED = {"policy", "wonder", "side"}


def simulate(out, *options):
    result = run_cli("simulate", "--out", str(out), *options)
    assert result.exit_code == 0, result.output
    return out


def schema_of(out) -> pa.Schema:
    return pq.read_schema(out / "part-00000.parquet")


def meta_of(out, name="part-00000.parquet") -> dict:
    return json.loads(pq.read_schema(out / name).metadata[b"wsim"])


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """A new two-player dataset (every column, free_city included) and a four-player one."""
    root = tmp_path_factory.mktemp("schema")
    return simulate(root / "two", *TWO), simulate(root / "four", *FOUR)


def test_every_column_of_a_written_dataset_carries_its_description(written):
    two, four = written
    for out in written:
        for name in parts.part_files(out):
            for field in pq.read_schema(name):
                assert columns.description(field) == columns.COLUMNS[field.name], (name, field.name)
    assert set(schema_of(two).names) == set(columns.COLUMNS)  # the table describes every column, no more
    assert "free_city" not in schema_of(four).names


def test_names_are_dictionary_encoded_and_read_back_as_strings(written):
    two, _ = written
    schema = schema_of(two)
    for name in NAMED:
        assert schema.field(name).type == pa.dictionary(pa.int8(), pa.string()), name
    assert schema.field("cards").type == pa.list_(pa.dictionary(pa.int16(), pa.string()))
    rows = pq.read_table(two / "part-00000.parquet").to_pylist()
    assert {r["policy"] for r in rows} == {"g", "random", "free_city"}
    assert {r["side"] for r in rows} <= {"A", "B"}
    frame = wsim.open_dataset(two).to_pandas()
    assert list(frame.policy.cat.categories) == ["g", "random", "free_city"]  # each label once


def test_the_policy_parameters_are_recorded_by_name(written):
    _, four = written
    policies = meta_of(four)["policies"]
    assert meta_of(four)["schema_version"] == 3
    greedy = {"point": 100, "shield": 60, "unit": 40, "coin": 30, "stage": 25}
    assert policies[0] == {"name": "random", "params": {}}
    assert policies[1] == {"name": "greedy", "params": greedy}
    assert policies[3] == {"name": "rollout", "params": {"playouts": 2, "base": "greedy", "base_params": greedy}}


def test_the_python_api_table_carries_the_descriptions():
    table = wsim.simulate(games=3, players=3, policies="random", threads=1)
    for field in table.schema:
        assert columns.description(field) == columns.COLUMNS[field.name]
    assert table.schema.field("wonder").type == pa.dictionary(pa.int8(), pa.string())
    assert json.loads(table.schema.metadata[b"wsim"])["schema_version"] == columns.SCHEMA_VERSION


def _interfaces_table() -> dict:
    """docs/interfaces.md §2's column table: {column: (type, meaning)}, markdown taken off."""
    text = (ROOT / "docs/interfaces.md").read_text()
    section = text[text.index("## §2"):text.index("## §3")]
    out = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and re.fullmatch(r"`\w+`", cells[0]):
            out[cells[0].strip("`")] = (cells[1].replace("\\", ""), cells[2])
    return out


def test_the_interfaces_column_table_says_what_the_dataset_says(written):
    """docs/interfaces.md §2 lists every column with the type and the words a dataset carries."""
    documented = _interfaces_table()
    schema = schema_of(written[0])
    assert list(documented) == schema.names
    for field in schema:
        kind, meaning = documented[field.name]
        assert kind == columns.type_text(field.type), field.name
        assert meaning == columns.description(field), field.name


def test_check_describe_prints_every_column_its_type_and_its_description(written):
    two, _ = written
    result = run_cli("check", "--describe", str(two))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"{two}: schema version 3, {len(columns.COLUMNS)} columns (read from part-00000.parquet)"
    for field in schema_of(two):
        line = next(ln for ln in lines if ln.split()[0] == field.name)
        assert line.split()[1] == columns.type_text(field.type) and line.endswith(columns.COLUMNS[field.name])
    metadata = lines[lines.index("metadata:") + 1:]
    assert [ln.split()[0] for ln in metadata] == ["wsim", "wsim_data"]
    assert "schema_version, wsim_version, rules_version" in metadata[0] and metadata[1].endswith(" bytes)")


@pytest.mark.parametrize("where, message", [
    ("missing", "no such folder"), ("file", "not a folder"), ("empty", "no wsim dataset here"),
])
def test_check_describe_of_no_dataset_is_an_error(tmp_path, where, message):
    path = tmp_path / where
    if where == "file":
        path.write_text("x")
    elif where == "empty":
        path.mkdir()
    result = run_cli("check", "--describe", str(path))
    assert result.exit_code == 2 and last_error_line(result) == f"Error: {path}: {message}" + (
        " (no part-NNNNN.parquet files)" if where == "empty" else "")


def resumed_equals(whole, cut, part: str):
    """Interrupt `cut` (its manifest and `part` gone), resume it, and hold it byte for byte to `whole`."""
    (cut / parts.MANIFEST).unlink()
    (cut / part).unlink()
    resumed = run_cli("simulate", "--resume", "--out", str(cut))
    assert resumed.exit_code == 0, resumed.output
    names = sorted(p.name for p in whole.iterdir() if p.name != ".wsim-lock")
    assert names == sorted(p.name for p in cut.iterdir() if p.name != ".wsim-lock")
    assert all((whole / n).read_bytes() == (cut / n).read_bytes() for n in names)


def test_an_old_dataset_keeps_its_schema_on_resume(tmp_path, monkeypatch):
    """A dataset of schema version 1, interrupted, is completed in version 1: the resumed parts
    are byte for byte those of an uninterrupted version-1 run; readers read it as before."""
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    with monkeypatch.context() as m:  # written as a wsim before schema version 2 wrote them
        m.setattr(plan_mod, "SCHEMA_VERSION", 1)
        simulate(whole, *FOUR)
        simulate(cut, *FOUR)
    schema = schema_of(whole)
    assert all(schema.field(name).type == pa.string() for name in NAMED)
    assert all(columns.description(field) is None for field in schema)
    assert meta_of(whole)["schema_version"] == 1
    assert meta_of(whole)["policies"][1]["params"] == list(default_params("greedy"))
    resumed_equals(whole, cut, "part-00002.parquet")
    # the readers: check, its --describe, the API's table, DuckDB, replay
    assert run_cli("check", str(cut)).stdout.strip() == "ok: 40 games, 160 rows"
    described = run_cli("check", "--describe", str(cut))
    assert described.exit_code == 0 and "schema version 1" in described.stdout
    assert "its columns carry no descriptions" in described.stdout
    frame = wsim.open_dataset(cut).to_pandas()
    assert set(frame.policy) == {"random", "greedy", "rollout"} and len(frame) == 160
    assert wsim.replay(cut, game=3).log["final"]


def test_a_schema_2_dataset_keeps_its_schema_on_resume(tmp_path, monkeypatch):
    """A dataset of schema version 2 (before the columns of how a seat played), interrupted, is
    completed in version 2: byte for byte an uninterrupted version-2 run, without the four
    columns; check, --describe, the API's table, balance's reader and replay read it as before."""
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    with monkeypatch.context() as m:  # written as a wsim before schema version 3 wrote them
        m.setattr(plan_mod, "SCHEMA_VERSION", 2)
        simulate(whole, *TWO)
        simulate(cut, *TWO)
    schema = schema_of(whole)
    assert meta_of(whole)["schema_version"] == 2
    assert not set(COUNTERS) & set(schema.names) and "free_city" in schema.names
    assert all(columns.description(field) == columns.COLUMNS[field.name] for field in schema)
    resumed_equals(whole, cut, "part-00001.parquet")
    assert all(meta_of(cut, name.name)["schema_version"] == 2 for name in parts.part_files(cut))
    assert run_cli("check", str(cut)).stdout.strip() == "ok: 40 games, 120 rows"
    described = run_cli("check", "--describe", str(cut))
    assert described.exit_code == 0 and f"{cut}: schema version 2, {len(schema.names)} columns" in described.stdout
    assert wsim.check(cut).problems == ()
    frame = wsim.open_dataset(cut).to_pandas()
    assert len(frame) == 120 and "discards" not in frame.columns
    assert wsim.replay(cut, game=3).log["final"]


def test_schema_3_is_schema_2_and_the_four_counters(tables):
    """The same chunk written in both versions: the old columns equal, the four new ones after
    `cards` (before `free_city`), int16, and equal to the kernels' result rows."""
    from wsim.run.runner import COUNTER_FIELDS, Runner
    from wsim.run.settings import Settings

    for players in (2, 4):
        settings = Settings(players=players, seed=3, games=30, policies=("heuristic",) * players)
        chunk = Runner(tables, settings).play(0, 30)
        old, new = (parts.chunk_table(tables, settings, chunk, version) for version in (2, 3))
        assert new.drop_columns(list(COUNTERS)).equals(old)
        at = new.schema.names.index("cards")
        assert new.schema.names[at + 1:at + 5] == list(COUNTERS)
        for name, field in COUNTER_FIELDS:
            assert new.schema.field(name).type == pa.int16()
            assert new[name].to_pylist() == chunk.res[:, :, field].reshape(-1).tolist()


def test_a_new_dataset_gets_the_new_schema_on_resume(tmp_path):
    out = simulate(tmp_path / "ds", *TWO)
    (out / parts.MANIFEST).unlink()
    (out / "part-00001.parquet").unlink()
    assert run_cli("simulate", "--resume", "--out", str(out)).exit_code == 0
    for name in parts.part_files(out):
        assert meta_of(out, name.name)["schema_version"] == 3
        assert pq.read_schema(name).field("policy").type == pa.dictionary(pa.int8(), pa.string())


def test_resume_refuses_a_schema_version_it_does_not_write(tmp_path):
    out = simulate(tmp_path / "ds", *TWO)
    (out / parts.MANIFEST).unlink()
    for name in parts.part_files(out):
        table = pq.read_table(name)
        meta = dict(json.loads(table.schema.metadata[b"wsim"]), schema_version=4)
        pq.write_table(table.replace_schema_metadata({**table.schema.metadata, b"wsim": json.dumps(meta)}), name)
    result = run_cli("simulate", "--resume", "--out", str(out))
    assert result.exit_code == 2
    assert last_error_line(result) == (f"Error: --resume: {out} was written with schema version 4, this wsim "
                                       "writes versions 1, 2, 3")


def _doctor(out, key, value):
    """Every part's metadata and the manifest's (its checksums kept true) saying `key: value`."""
    for name in parts.part_files(out):
        table = pq.read_table(name)
        meta = dict(json.loads(table.schema.metadata[b"wsim"]), **{key: value})
        pq.write_table(table.replace_schema_metadata({**table.schema.metadata, b"wsim": json.dumps(meta)}), name)
    doc = json.loads((out / parts.MANIFEST).read_text())
    doc["wsim"][key] = value
    for entry in doc["parts"]:
        entry["sha256"] = hashlib.sha256((out / entry["file"]).read_bytes()).hexdigest()
    (out / parts.MANIFEST).write_text(json.dumps(doc))


@pytest.mark.parametrize("key, said", [
    ("schema_version", "written with schema version 99, this wsim writes versions 1, 2, 3"),
    ("rules_version", f"written under rules version 99, this wsim plays rules version {RULES_VERSION}"),
])
def test_check_reports_a_version_this_wsim_does_not_write(tmp_path, key, said):
    """As --resume refuses it: its columns may not mean what this wsim reads. balance, which
    reads only what check passes, refuses it too."""
    out = simulate(tmp_path / "ds", "--games", "6", "--chunk-size", "3", "--players", "3")
    _doctor(out, key, 99)
    problem = f"{out}: dataset {said}"
    checked = run_cli("check", str(out))
    assert checked.exit_code == 1 and checked.stdout.splitlines() == [problem, "damaged: 1 problems"]
    assert wsim.check(out).problems == (problem,)
    report = tmp_path / "report"
    refused = run_cli("balance", str(out), "--out", str(report))
    assert refused.exit_code == 2 and last_error_line(refused) == f"Error: DIR: {problem}"
    assert not report.exists()
    (out / parts.MANIFEST).unlink()  # an interrupted run: its first part says what --resume would read
    checked = run_cli("check", str(out))
    assert checked.exit_code == 1 and problem in checked.stdout.splitlines()


@pytest.mark.parametrize("specs", [
    (), ("rollout.base=learned",), ("rollout.base=learned", "rollout.depth=0"), ("rollout.base=random",),
    ("rollout.base=g", "g.coin=0", "rollout.playouts=3"), ("g.point=-7", "greedy.stage=1"),
])
def test_parameters_by_name_give_back_the_row(specs):
    names, labels = ("rollout", "greedy", "heuristic", "learned", "random"), ("rollout", "g", "heuristic",
                                                                            "learned", "random")
    rows = apply_policy_params(specs, names, labels)[0]
    for name, row in zip(names, rows):
        assert params_row(name, json.loads(json.dumps(params_by_name(name, row)))) == row
    for name in POLICY_NAMES:
        assert params_row(name, params_by_name(name, default_params(name))) == default_params(name)


@pytest.mark.parametrize("name, named, message", [
    ("greedy", [100, 60], "greedy's parameters must be an object of exactly the keys point, shield"),
    ("greedy", {"point": 1}, "greedy's parameters must be an object of exactly the keys"),
    ("greedy", {"point": 1, "shield": 1, "unit": 1, "coin": 1, "stage": 1.5}, "greedy.stage must be a 32-bit"),
    ("random", {"x": 1}, "random's parameters must be an object of exactly the keys (none), got ['x']"),
    ("rollout", {"playouts": 2, "base": "rollout", "base_params": {}}, "rollout's base must be a policy other"),
    ("rollout", {"playouts": 2, "base": "learned", "base_params": {}}, "exactly the keys playouts, base, depth"),
    ("rollout", {"playouts": 2**40, "base": "random", "base_params": {}}, "rollout.playouts must be a 32-bit"),
])
def test_a_malformed_parameter_record_is_refused(name, named, message):
    with pytest.raises(ParamsError, match=re.escape(message)):
        params_row(name, named)


def test_recorded_parameters_read_in_both_forms(written):
    _, four = written
    t = tables_mod.load()
    meta = meta_of(four)
    by_name = settings_from_metadata(meta, t)
    as_rows = dict(meta, policies=[dict(p, params=list(params_row(p["name"], p["params"]))) for p in meta["policies"]])
    assert settings_from_metadata(as_rows, t) == by_name
    assert all(len(row) == P_COUNT for row in by_name.params)
    broken = dict(meta, policies=[dict(p, params={"point": 1}) for p in meta["policies"]])
    with pytest.raises(SettingsError, match="policies: random's parameters must be an object"):
        settings_from_metadata(broken, t)
