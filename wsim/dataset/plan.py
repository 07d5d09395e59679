"""Planning a `wsim simulate` run in its folder: a new run, --overwrite or --resume.

A plan says which card data and settings the run plays, which parts already in place it keeps
(verified), which it plays and which names of an old dataset the new one replaces. The choice
of a dataset's card data is also `wsim replay`'s (dataset_tables).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from wsim import codes
from wsim.dataset import manifest, parts
from wsim.dataset.columns import SCHEMA_VERSION
from wsim.dataset.folder import LOCK, STAGING, DatasetError, OutputFolder, check_target, is_temp_of
from wsim.errors import brief
from wsim.run.settings import Settings, SettingsError, settings_from_metadata, wonders_text
from wsim.tables import Tables


@dataclass
class Plan:
    tables: Tables
    settings: Settings
    keep: list  # (PartHeader, sha256) of the parts already in place
    todo: list  # part indices to play
    replace: list  # names of the old dataset that the new one replaces (--overwrite)
    version: int  # the parts' schema version: a new dataset's is SCHEMA_VERSION, a resumed one keeps its own


def precheck(out: Path, mode: str):
    """Refusals that need no lock, so that a refused invocation writes nothing at all."""
    kind = check_target(out)
    if kind == "dir" and mode == "new":
        # the lock, the staging folder and wsim's temporary files are not contents: recovery
        # under the lock removes or finishes the last two
        _refuse_if_not_empty(out, [n for n in os.listdir(out)
                                   if n not in (LOCK, STAGING) and not is_temp_of(n, parts.owns)])


def plan_run(folder: OutputFolder, tables: Tables, settings: Settings, mode: str, explicit: frozenset) -> Plan:
    """The plan of a run in `folder` (locked): `mode` is "new", "overwrite" or "resume";
    `explicit` names the options given on the command line, which --resume compares with the
    dataset's (the others are taken from it)."""
    if mode == "resume":
        return _plan_resume(folder, tables, settings, explicit)
    return _plan_new(folder, tables, settings, mode)


def _refuse_if_not_empty(out: Path, names: list):
    if not names:
        return
    if any(parts.PART_RE.match(n) for n in names) and parts.MANIFEST not in names:
        raise DatasetError(f"--out: {out} holds an unfinished run (use --resume to complete it, or "
                           "--overwrite to replace it)")
    raise DatasetError(f"--out: {out} is not empty (use --overwrite to replace the dataset in it)")


def _plan_new(folder: OutputFolder, tables: Tables, settings: Settings, mode: str) -> Plan:
    names = folder.entries()
    if mode == "new":
        _refuse_if_not_empty(folder.path, names)
    replace = []
    if mode == "overwrite":
        # only files wsim wrote are replaced: a part must read as one, the manifest be one
        for name in names:
            if parts.PART_RE.match(name):
                try:
                    parts.read_header(folder.path / name)
                except DatasetError:
                    raise DatasetError(f"--out: {folder.path / name} is not a readable wsim part (damaged, or "
                                       "not written by wsim); --overwrite replaces only wsim's own files "
                                       "(move it away first)") from None
            elif name == parts.MANIFEST:
                try:
                    manifest.read(folder.path)
                except DatasetError:
                    raise DatasetError(f"--out: {folder.path / name} is not a wsim manifest; --overwrite "
                                       "replaces only wsim's own files (move it away first)") from None
        replace = [n for n in names if n == parts.MANIFEST] + [n for n in names if parts.PART_RE.match(n)]
    return Plan(tables, settings, [], list(range(settings.part_count)), replace, SCHEMA_VERSION)


# the run options --resume compares, and the Settings field each sets
_OPTION_FIELDS = {"games": "games", "players": "players", "seed": "seed", "policy": "labels", "policies": "labels",
                  "policy_param": "params", "wonders": "wonders", "sides": "sides", "manneken_pis": "manneken_pis",
                  "chunk_size": "chunk_size"}


def _plan_resume(folder: OutputFolder, tables: Tables, settings: Settings, explicit: frozenset) -> Plan:
    """Settings from the parts in place; the kept parts verified; the missing ones to play."""
    files = parts.part_files(folder.path)
    if not files:
        names = folder.entries()
        if names:
            raise DatasetError(f"--resume: {folder.path} holds no wsim dataset to resume, and is not empty")
        return _plan_new(folder, tables, settings, "new")
    headers = [parts.read_header(p) for p in files]
    first = headers[0]
    run_meta = parts.run_metadata(first.meta)
    for h in headers[1:]:
        if parts.run_metadata(h.meta) != run_meta:
            raise DatasetError(f"--resume: {folder.path / h.name} belongs to another run than "
                               f"{folder.path / first.name} (their settings differ)")
    for other in (parts.other_rules(run_meta), parts.other_schema(run_meta)):
        if other:
            raise DatasetError(f"--resume: {folder.path} was {other}")
    version = parts.schema_version(run_meta)
    given = tables
    edition = run_meta.get("edition", 1)  # absent: the first edition (parts.run_meta)
    if "data" in explicit and given.edition != edition:  # the sha256 would differ too: say why
        name = codes.EDITION_NAMES.get(edition, f"edition {brief(edition)}") if isinstance(edition, int) \
            else brief(edition)
        raise DatasetError(f"--resume: the dataset in {folder.path} is of the {name}, the data file {given.source} of "
                           f"the {given.edition_name} (leave --data and --edition out to take the dataset's)")
    tables = dataset_tables(folder.path / first.name, first, given, "data" in explicit,
                            f"--resume: --data differs from the data file {folder.path} was made with "
                            "(sha256 {recorded}…, given {given}…)")
    try:
        recorded = settings_from_metadata(first.meta, tables)
    except SettingsError as e:
        raise DatasetError(f"--resume: {folder.path / first.name}: its metadata holds invalid settings ({e})") from None
    for option in sorted(explicit & set(_OPTION_FIELDS)):
        ours, theirs = getattr(settings, _OPTION_FIELDS[option]), getattr(recorded, _OPTION_FIELDS[option])
        if ours != theirs:
            shown = "--" + option.replace("_", "-")
            raise DatasetError(f"--resume: {shown} is {_show(option, ours)} but the dataset in {folder.path} was "
                               f"run with {_show(option, theirs)} (leave it out to take the dataset's)")
    settings = recorded
    ours = parts.run_meta(tables, settings, version)
    differs = [k for k in sorted(set(ours) | set(run_meta)) if ours.get(k) != run_meta.get(k)]
    if differs:  # e.g. another wsim version: its parts and ours would not make one dataset
        k = differs[0]
        raise DatasetError(f"--resume: {folder.path} was written with {k} {brief(run_meta.get(k))}, this run "
                           f"would write {brief(ours.get(k))}")
    # a completed run's manifest is never rewritten to agree with parts it contradicts: `wsim check`
    # calls such a dataset damaged, and --resume says so too
    doc = _manifest_agreeing(folder.path, run_meta)
    # a part that differs from the manifest of the completed run is never blessed by a new one
    listed = {e["file"]: e["sha256"] for e in (doc or {"parts": []})["parts"]}
    keep = []
    present = set()
    for h in headers:
        index = parts.part_index(h.name)
        first_game, games = settings.part(index)
        if games <= 0 or (h.first_game, h.games) != (first_game, games) or h.rows != games * settings.cities:
            raise DatasetError(f"--resume: {folder.path / h.name} does not hold the games this run puts there "
                               f"(games {first_game}.. of {settings.games}); the dataset is damaged")
        try:
            sha = manifest.sha256_of(folder.path / h.name)
        except OSError as e:
            raise DatasetError(f"--resume: cannot read {folder.path / h.name} ({e.strerror or e})") from None
        if listed.get(h.name, sha) != sha:
            raise DatasetError(f"--resume: {folder.path / h.name} changed after its run completed (its checksum is "
                               "not the manifest's; see `wsim check`)")
        keep.append((h, sha))
        present.add(index)
    todo = [i for i in range(settings.part_count) if i not in present]
    return Plan(tables, settings, keep, todo, [], version)


def _manifest_agreeing(path: Path, run_meta: dict) -> dict | None:
    """The manifest in `path` (None when there is none), refused when it is damaged or when its
    run metadata is not its parts' (`run_meta`)."""
    if not (path / parts.MANIFEST).exists():
        return None
    try:
        doc = manifest.read(path)
    except DatasetError as e:
        raise DatasetError(f"--resume: {e}; see `wsim check`") from None
    if doc["wsim"] != run_meta:
        k = next(k for k in sorted(set(doc["wsim"]) | set(run_meta)) if doc["wsim"].get(k) != run_meta.get(k))
        raise DatasetError(f"--resume: {path / parts.MANIFEST} says {k} {brief(doc['wsim'].get(k))} but its parts "
                           f"say {brief(run_meta.get(k))}: the dataset is damaged (see `wsim check`)")
    return doc


def _show(option: str, value) -> str:
    if option == "wonders":
        return brief(wonders_text(value))
    if isinstance(value, tuple) and all(isinstance(v, str) for v in value):
        return ",".join(value)
    return brief(value)


def dataset_tables(part: Path, header: parts.PartHeader, given: Tables, use_given: bool, mismatch: str) -> Tables:
    """The card data a dataset was made with (`part`, one of its parts, read as `header`):
    with use_given, the `given` tables, which must be that data (else DatasetError(`mismatch`,
    formatted with the {recorded} and {given} hashes' first digits); otherwise the data text
    the dataset carries, else `given` if it is that data (manifest.tables_of_dataset)."""
    recorded = header.meta.get("data_sha256")
    if use_given:
        if given.data_sha256 != recorded:
            raise DatasetError(mismatch.format(recorded=str(recorded)[:12], given=given.data_sha256[:12]))
        return given
    return manifest.tables_of_dataset(part, header.data_text, recorded, given)
