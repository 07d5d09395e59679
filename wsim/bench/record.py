"""A bench record: its header (when, which command, versions, the machine) and its file in
bench/results/ of the checkout."""

from __future__ import annotations

import json
import os
import platform
from datetime import datetime, timezone
from pathlib import Path

import numba

from wsim import RULES_VERSION, __version__


def cpu_model() -> str:
    """The processor's model name as the kernel reports it (Linux), else the platform's word: a
    record's speeds are only comparable with others of the same model."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict:
    """What a bench record says of the machine it was measured on."""
    return {"cpus": os.cpu_count(), "processor": platform.processor() or platform.machine(),
            "cpu_model": cpu_model(), "python": platform.python_version(), "numba": numba.__version__}


def now() -> str:
    """The record's time stamp (UTC, to the second)."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def header(command: str) -> dict:
    """The first fields of a `wsim bench` record."""
    return {"when": now(), "command": command, "wsim_version": __version__, "rules_version": RULES_VERSION,
            "machine": machine()}


def stamp(results: dict) -> str:
    """The record's time as a file name takes it: 2026-12-02T115454."""
    return results["when"][:19].replace(":", "")


def save(results: dict, name: str, echo):
    """Write results to bench/results/NAME.json of the checkout (nothing from an installed copy)."""
    folder = Path(__file__).resolve().parents[2] / "bench" / "results"
    if folder.parent.is_dir():
        folder.mkdir(exist_ok=True)
        path = folder / f"{name}.json"
        path.write_text(json.dumps(results, indent=1) + "\n")
        echo(f"recorded in {path}")
