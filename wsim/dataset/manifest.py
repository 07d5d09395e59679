"""The manifest of a complete dataset, and the one verification of a dataset against it
(docs/interfaces.md §2 "Integrity").

`_wsim_manifest.json` = {"wsim": the run's metadata less `part`, "complete": true,
"parts": [{"file", "first_game", "games", "rows", "sha256"}], "data": the data file's text}.
It is written last, so its presence means the run completed.

`check` is `wsim check`, and `wsim balance` reads only a dataset that it passes. Nothing in a
manifest or a footer is trusted: the manifest must have its form and types; the run's settings
must pass the checks of command-line options (`settings_from_metadata`, as for replay and
--resume); the parts listed must be the run's grid, each once, by its bare name in DIR
(`Settings.part`, which --resume applies to the parts it keeps); every part must have its
checksum, rows and footer.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from wsim.compiler import DataError
from wsim.dataset import folder
from wsim.dataset.folder import DatasetError
from wsim.dataset.columns import METADATA, description, type_text
from wsim.dataset.parts import (DATA_KEY, MANIFEST, META_KEY, PART_RE, PartHeader, other_rules, other_schema, owns,
                                part_files, part_index, part_name, read_header, read_metadata, run_metadata)
from wsim.errors import brief
from wsim.inputfile import open_regular, read_regular
from wsim.run.settings import Settings, SettingsError, settings_from_metadata
from wsim.tables import Tables, compile_text

_COUNTS = ("first_game", "games", "rows")


def part_entry(header: PartHeader, sha256: str) -> dict:
    """The manifest's line for one part."""
    return {"file": header.name, "first_game": header.first_game, "games": header.games,
            "rows": header.rows, "sha256": sha256}


def document(run_meta: dict, entries: list, data_text: bytes) -> dict:
    """The manifest of a run (parts in game order)."""
    return {"wsim": run_meta, "complete": True, "parts": entries, "data": data_text.decode("utf-8")}


def encode(run_meta: dict, entries: list, data_text: bytes) -> bytes:
    """The manifest's bytes (parts in game order)."""
    return (json.dumps(document(run_meta, entries, data_text)) + "\n").encode()


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open_regular(path) as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read(path: Path) -> dict:
    """A manifest's document, its form checked (DatasetError when damaged)."""
    try:
        doc = json.loads(read_regular(path / MANIFEST))
    except (OSError, ValueError) as e:
        raise DatasetError(f"{path / MANIFEST}: not a readable manifest ({e})") from None
    ok = (isinstance(doc, dict) and isinstance(doc.get("wsim"), dict) and doc.get("complete") is True
          and isinstance(doc.get("parts"), list) and all(map(_entry_form, doc["parts"]))
          and isinstance(doc.get("data", ""), str))
    if not ok:
        raise DatasetError(f"{path / MANIFEST}: damaged (not the manifest form of docs/interfaces.md §2)")
    return doc


def recorded(path: Path) -> dict | None:
    """The document of the manifest in `path`, if there is one of the manifest's form."""
    if not (path / MANIFEST).exists():
        return None
    try:
        return read(path)
    except DatasetError:
        return None


def _entry_form(entry) -> bool:
    """A manifest line with its keys and their types (what the values say is checked by `check`)."""
    return (isinstance(entry, dict) and set(entry) >= {"file", "sha256", *_COUNTS}
            and isinstance(entry["file"], str) and isinstance(entry["sha256"], str)
            and all(type(entry[k]) is int and entry[k] >= 0 for k in _COUNTS))


def tables_of_dataset(where: Path, data_text, recorded, installed: Tables) -> Tables:
    """The tables a dataset was made with: the data file text it carries (`data_text`, read
    from file `where`), checked against its recorded hash, else the installed data if it is
    that file (datasets from before the text travelled)."""
    if data_text is not None:
        raw = data_text.encode() if isinstance(data_text, str) else data_text
        if raw == installed.raw and recorded == installed.data_sha256:
            return installed  # the installed file's very text: the same tables, not compiled again
        try:
            t = compile_text(data_text, source=f"{where} (its data file)")
        except DataError as e:
            raise DatasetError(f"{where}: the data file it carries is invalid ({e})") from None
        if t.data_sha256 != recorded:
            raise DatasetError(f"{where}: the data file it carries does not match its data_sha256")
        return t
    if installed.data_sha256 != recorded:
        raise DatasetError(f"{where}: written with other card data (sha256 {str(recorded)[:12]}…, "
                           f"installed {installed.data_sha256[:12]}…) and it does not carry its data file")
    return installed


@dataclass(frozen=True)
class Description:
    """What `wsim check --describe` prints: a dataset's schema in words, read from its first part."""

    part: Path  # the part read (every part of a dataset has its schema)
    version: str  # the schema version its metadata records (1 when none), as written
    columns: tuple  # (name, type in words, description or None) per column
    metadata: tuple  # (key, what it holds) per key of the part's metadata


def describe(path: Path) -> Description:
    """The schema of the dataset in folder `path` (read-only; DatasetError if it has no
    readable part): each column with its type and description, and the metadata keys. A
    dataset of schema version 1 carries no descriptions."""
    _a_folder(path)
    header = read_metadata(path)
    schema = header.schema
    columns = tuple((f.name, type_text(f.type), description(f)) for f in schema)
    keys = []
    for key, value in (schema.metadata or {}).items():
        name = key.decode("utf-8", "replace")
        what = METADATA.get(name, "not wsim's")
        if key == META_KEY:
            what += ": " + ", ".join(header.meta)
        elif key == DATA_KEY:
            what += f" ({len(value):,} bytes)"
        keys.append((name, what))
    return Description(path / header.name, brief(header.meta.get("schema_version", 1)), columns, tuple(keys))


@dataclass
class Report:
    """What `wsim check` found: one line per problem and the closing line; for a dataset
    without problems, what a reader needs (the run's metadata and settings, its parts)."""

    problems: list = field(default_factory=list)
    closing: str = ""
    meta: dict | None = None  # the manifest's `wsim` object: the run's metadata less `part`
    settings: Settings | None = None
    files: tuple = ()  # the part files, in game order
    tables: Tables | None = None  # the card data the games were played with

    @property
    def ok(self) -> bool:
        return not self.problems


def _a_folder(path: Path):
    """DatasetError unless `path` is a folder."""
    kind = folder.probe(path)
    if kind != "dir":
        what = {"missing": "no such folder", "other": "not a folder"}.get(kind, kind)
        raise DatasetError(f"{path}: {what}")


def check(path: Path, installed: Tables) -> Report:
    """Verify a dataset folder against its manifest (read-only). DatasetError if not a folder.
    `installed`: the card data for a dataset that does not carry its own."""
    _a_folder(path)
    report = Report()
    busy = folder.lock_is_held(path)
    if busy:
        report.problems.append(f"{path}: being written by a wsim run (its lock is held)")
    if (path / folder.STAGING).exists() and not busy:  # while the lock is held, the staging is live
        report.problems.append(f"{path / folder.STAGING}: an interrupted --overwrite; the next wsim run "
                               "writing here finishes or drops it")
    if not (path / MANIFEST).exists():
        return _incomplete(path, report, busy)
    try:
        doc = read(path)
    except DatasetError as e:
        report.problems.append(str(e))
        report.closing = f"damaged: {len(report.problems)} problems"
        return report
    expected = doc["wsim"]
    report.problems += _other_versions(path, expected)
    tables, settings = _settings(path, doc, installed, report.problems)
    listed = {}  # name -> entry
    for entry in doc["parts"]:
        name = entry["file"]
        if not PART_RE.match(name):  # a bare part name: never a file elsewhere
            report.problems.append(f"{path / MANIFEST}: lists {brief(name)}, which is not a part file of {path} "
                                   "(part-NNNNN.parquet)")
        elif name in listed:
            report.problems.append(f"{path / MANIFEST}: lists {name} twice")
        else:
            listed[name] = entry
    if settings is not None and not busy:  # a run holding the lock may be changing the parts
        report.problems += _grid_problems(path / MANIFEST, listed, settings)
    rows = sum(_check_part(path / name, entry, expected, report.problems) for name, entry in listed.items())
    for p in part_files(path):
        if p.name not in listed:
            report.problems.append(f"{p}: a part file the manifest does not list")
    _temporary_files(path, report)
    games = sum(e["games"] for e in listed.values())
    if busy:
        return _closing_incomplete(report, games, expected.get("games"))
    report.closing = (f"damaged: {len(report.problems)} problems" if report.problems
                      else f"ok: {games} games, {rows} rows")
    report.meta, report.settings, report.tables = expected, settings, tables
    report.files = tuple(path / name for name in sorted(listed, key=part_index))
    return report


def _other_versions(path: Path, meta: dict) -> list:
    """A run's metadata of rules or a schema this wsim does not play or write, as problems
    (`simulate --resume` refuses them: their columns may not mean what this wsim reads)."""
    return [f"{path}: dataset {other}" for other in (other_rules(meta), other_schema(meta)) if other]


def _settings(path: Path, doc: dict, installed: Tables, problems: list) -> tuple:
    """(tables, settings): the run's card data and settings from the manifest, the settings
    checked as command-line options are; (None, None), and a problem, when they are not valid."""
    meta = doc["wsim"]
    try:
        tables = tables_of_dataset(path / MANIFEST, doc.get("data"), meta.get("data_sha256"), installed)
        return tables, settings_from_metadata(meta, tables)
    except SettingsError as e:
        problems.append(f"{path / MANIFEST}: its metadata holds invalid settings ({e})")
    except DatasetError as e:
        problems.append(str(e))
    return None, None


def _check_part(p: Path, entry: dict, expected: dict, problems: list) -> int:
    """Check one listed part against its manifest line; returns its rows (0 if unreadable)."""
    if not p.is_file():
        problems.append(f"{p}: listed in the manifest but missing")
        return 0
    try:
        digest = sha256_of(p)
    except OSError as e:
        problems.append(f"{p}: cannot be read ({folder.os_problem(e)})")
        return 0
    if digest != entry["sha256"]:
        problems.append(f"{p}: checksum differs from the manifest (the file changed)")
        return 0
    try:
        header = read_header(p)
    except DatasetError as e:
        problems.append(str(e))
        return 0
    if header.rows != entry["rows"]:
        problems.append(f"{p}: {header.rows} rows, the manifest says {entry['rows']}")
    if run_metadata(header.meta) != expected:
        problems.append(f"{p}: its metadata differs from the manifest's")
    if (header.first_game, header.games) != (entry["first_game"], entry["games"]):
        problems.append(f"{p}: holds games {header.first_game}.. ({header.games}), "
                        f"the manifest says {entry['first_game']}.. ({entry['games']})")
    return header.rows


def _grid_problems(where: Path, listed: dict, settings: Settings) -> list:
    """How the listed parts differ from the run's: part i, named part_name(i), holds
    settings.part(i), for i in 0..settings.part_count-1, each exactly once (the listed names are distinct)."""
    count = settings.part_count
    problems, present = [], []
    for name in sorted(listed, key=part_index):
        index, entry = part_index(name), listed[name]
        if index >= count or name != part_name(index):
            problems.append(f"{where}: lists {name}, which is not a part of this run (part-00000.parquet.."
                            f"{part_name(count - 1)})")
            continue
        present.append(index)
        first, games = settings.part(index)
        if (entry["first_game"], entry["games"]) != (first, games):
            problems.append(f"{where}: says {name} holds games {entry['first_game']}.. ({entry['games']}); "
                            f"in this run it holds games {first}.. ({games})")
    if len(present) < count:  # present is sorted and distinct: the first gap is the first missing part
        gap = next((i for i, index in enumerate(present) if i != index), len(present))
        first, games = settings.part(gap)
        more = count - len(present) - 1
        problems.append(f"{where}: does not list {part_name(gap)} (games {first}..{first + games - 1})"
                        + (f" nor {more} other parts" if more else ""))
    return problems


def _temporary_files(path: Path, report: Report):
    for name in sorted(n.name for n in path.iterdir()):
        if folder.is_temp_of(name, owns):
            report.problems.append(f"{path / name}: a temporary file of an interrupted wsim run")


def _incomplete(path: Path, report: Report, busy: bool) -> Report:
    """No manifest: count the games of the readable parts."""
    parts = part_files(path)
    if not parts and not busy and not report.problems:
        raise DatasetError(f"{path}: no wsim dataset here (no part files, no manifest)")
    headers = []
    for p in parts:
        try:
            headers.append(read_header(p))
        except DatasetError as e:
            report.problems.append(str(e))
    done, total = sum(h.games for h in headers), None
    if headers:  # the first readable part: what --resume reads
        report.problems += _other_versions(path, headers[0].meta)
        total = headers[0].meta.get("games")
    if total is None and busy:  # no part yet: the planned games the writer announced
        total = folder.lock_note(path).get("games")
    _temporary_files(path, report)
    if not busy:
        report.problems.append(f"{path / MANIFEST}: missing (the run did not complete; "
                               f"`wsim simulate --resume --out {path}` completes it)")
    return _closing_incomplete(report, done, total)


def _closing_incomplete(report: Report, done: int, total) -> Report:
    known = isinstance(total, int) and not isinstance(total, bool) and total >= 0
    report.closing = f"incomplete: {done} of {total if known else 'an unknown number of'} games"
    return report
