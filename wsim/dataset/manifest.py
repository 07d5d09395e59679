"""The manifest of a complete dataset, and `wsim check` (INTERFACES §2 "Integrity").

`_wsim_manifest.json` = {"wsim": the run's metadata less `part`, "complete": true,
"parts": [{"file", "first_game", "games", "rows", "sha256"}], "data": the data file's text}.
It is written last, so its presence means the run completed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from wsim.dataset import folder
from wsim.dataset.folder import DatasetError
from wsim.dataset.parts import MANIFEST, PART_RE, PartHeader, owns, part_files, read_header, run_metadata
from wsim.inputfile import open_regular, read_regular


def part_entry(header: PartHeader, sha256: str) -> dict:
    """The manifest's line for one part."""
    return {"file": header.name, "first_game": header.first_game, "games": header.games,
            "rows": header.rows, "sha256": sha256}


def encode(run_meta: dict, entries: list, data_text: bytes) -> bytes:
    """The manifest's bytes (parts in game order)."""
    doc = {"wsim": run_meta, "complete": True, "parts": entries, "data": data_text.decode("utf-8")}
    return (json.dumps(doc) + "\n").encode()


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
          and isinstance(doc.get("parts"), list)
          and all(isinstance(p, dict) and set(p) >= {"file", "first_game", "games", "rows", "sha256"}
                  and isinstance(p["file"], str) for p in doc["parts"])
          and isinstance(doc.get("data", ""), str))
    if not ok:
        raise DatasetError(f"{path / MANIFEST}: damaged (not the manifest form of INTERFACES §2)")
    return doc


@dataclass
class Report:
    """What `wsim check` found: one line per problem and the closing line."""

    problems: list = field(default_factory=list)
    closing: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems


def check(path: Path) -> Report:
    """Verify a dataset folder against its manifest (read-only). DatasetError if not a folder."""
    kind = folder.probe(path)
    if kind != "dir":
        what = {"missing": "no such folder", "other": "not a folder"}.get(kind, kind)
        raise DatasetError(f"{path}: {what}")
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
    listed = set()
    rows = 0
    for entry in doc["parts"]:
        name = entry["file"]
        listed.add(name)
        p = path / name
        if not PART_RE.match(name) or not p.is_file():
            report.problems.append(f"{p}: listed in the manifest but missing")
            continue
        try:
            digest = sha256_of(p)
        except OSError as e:
            report.problems.append(f"{p}: cannot be read ({folder.os_problem(e)})")
            continue
        if digest != entry["sha256"]:
            report.problems.append(f"{p}: checksum differs from the manifest (the file changed)")
            continue
        try:
            header = read_header(p)
        except DatasetError as e:
            report.problems.append(str(e))
            continue
        if header.rows != entry["rows"]:
            report.problems.append(f"{p}: {header.rows} rows, the manifest says {entry['rows']}")
        if run_metadata(header.meta) != expected:
            report.problems.append(f"{p}: its metadata differs from the manifest's")
        if (header.first_game, header.games) != (entry["first_game"], entry["games"]):
            report.problems.append(f"{p}: holds games {header.first_game}.. ({header.games}), "
                                   f"the manifest says {entry['first_game']}.. ({entry['games']})")
        rows += header.rows
    for p in part_files(path):
        if p.name not in listed:
            report.problems.append(f"{p}: a part file the manifest does not list")
    _temporary_files(path, report)
    if busy:
        return _closing_incomplete(report, rows_games(doc), expected.get("games"))
    games = rows_games(doc)
    tiling = sorted((e["first_game"], e["games"]) for e in doc["parts"])
    if not _tiles(tiling, expected.get("games")):
        report.problems.append(f"{path / MANIFEST}: its parts do not cover games 0..{expected.get('games')} "
                               "exactly once")
    report.closing = (f"damaged: {len(report.problems)} problems" if report.problems
                      else f"ok: {games} games, {rows} rows")
    return report


def _temporary_files(path: Path, report: Report):
    for name in sorted(n.name for n in path.iterdir()):
        if folder.is_temp_of(name, owns):
            report.problems.append(f"{path / name}: a temporary file of an interrupted wsim run")


def rows_games(doc: dict) -> int:
    return sum(int(e["games"]) for e in doc["parts"] if isinstance(e.get("games"), int))


def _tiles(ranges: list, games) -> bool:
    """Whether sorted (first, count) ranges cover 0..games-1 exactly once."""
    at = 0
    for first, count in ranges:
        if first != at or not isinstance(count, int) or count < 1:
            return False
        at += count
    return at == games


def _incomplete(path: Path, report: Report, busy: bool) -> Report:
    """No manifest: count the games of the readable parts."""
    parts = part_files(path)
    if not parts and not busy and not report.problems:
        raise DatasetError(f"{path}: no wsim dataset here (no part files, no manifest)")
    done, total = 0, None
    for p in parts:
        try:
            header = read_header(p)
        except DatasetError as e:
            report.problems.append(str(e))
            continue
        done += header.games
        total = header.meta.get("games") if total is None else total
    _temporary_files(path, report)
    if not busy:
        report.problems.append(f"{path / MANIFEST}: missing (the run did not complete; "
                               f"`wsim simulate --resume --out {path}` completes it)")
    return _closing_incomplete(report, done, total)


def _closing_incomplete(report: Report, done: int, total) -> Report:
    report.closing = f"incomplete: {done} of {total if isinstance(total, int) else 0} games"
    return report
