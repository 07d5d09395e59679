"""The test tiers' pytest plugin (Makefile, README "Tests"): `make verify`'s shards, depth and
resumption.

- `--shard K/N` keeps every N-th deep item starting at the K-th (the N shards together are
  the whole); `--depth full` asks the deep tests for their full depth (DEEP_DEPTH below).
- Resumption: each deep item that passes is recorded, with what it checked (its user
  properties, e.g. the games replayed), in results/verify/<fingerprint>/passed.jsonl, where the
  fingerprint hashes the sources (wsim/, kernels/, tests/) and the depth. A later run of the
  same code skips the items recorded there (reported as skipped, with the record's path), so
  an interrupted shard goes on where it stopped; any edit starts afresh. `make verify-clean`
  removes the records.
- The controller process alone reads and writes the record (under pytest-xdist, it hands the
  list of items to skip to its workers, which must collect the same items).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "results" / "verify"  # WSIM_VERIFY_RECORDS moves it (tests/test_tiers.py)
DEPTHS = ("standard", "full")


def pytest_addoption(parser):
    group = parser.getgroup("wsim tiers")
    group.addoption("--shard", default="1/1", metavar="K/N", help="run the K-th of N shards of the deep items")
    group.addoption("--depth", default="standard", choices=DEPTHS, help="depth of the deep items")


def _shard(config) -> tuple:
    text = config.getoption("--shard")
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise pytest.UsageError(f"--shard: expected K/N, got {text!r}") from None
    if not 1 <= k <= n:
        raise pytest.UsageError(f"--shard: K must be 1..N, got {text!r}")
    return k, n


def fingerprint(depth: str) -> str:
    """A short hash of the sources the deep items test, and their depth."""
    h = hashlib.sha256(depth.encode())
    for folder, pattern in (("wsim", "**/*"), ("kernels", "*.py"), ("tests", "**/*")):
        for p in sorted((ROOT / folder).glob(pattern)):
            if p.is_file() and "__pycache__" not in p.parts:
                h.update(str(p.relative_to(ROOT)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def _is_worker(config) -> bool:
    return hasattr(config, "workerinput")


class DeepRecord:
    """The record of passed deep items under this code (module docstring)."""

    def __init__(self, config):
        self.config = config
        records = Path(os.environ.get("WSIM_VERIFY_RECORDS", RECORDS))
        self.path = records / fingerprint(config.getoption("--depth")) / "passed.jsonl"
        if _is_worker(config):
            self.done = set(config.workerinput.get("wsim_done", ()))
        else:
            self.done = {r["nodeid"] for r in self.entries()}
        self.passed = 0
        self.failed = 0
        self.already = 0  # skipped: passed under this code in an earlier run

    def entries(self) -> list:
        if not self.path.exists():
            return []
        return [json.loads(line) for line in self.path.read_text().splitlines() if line.strip()]

    @pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist only
    def pytest_configure_node(self, node):
        """pytest-xdist (controller): the workers skip the same recorded items."""
        node.workerinput["wsim_done"] = sorted(self.done)

    @pytest.hookimpl(trylast=True)  # after -m has deselected what it deselects
    def pytest_collection_modifyitems(self, config, items):
        deep = [item for item in items if item.get_closest_marker("deep")]
        if not deep:
            return
        k, n = _shard(config)
        mine = {item.nodeid for i, item in enumerate(deep) if i % n == k - 1}
        done = pytest.mark.skip(reason=f"passed under this code in an earlier run ({self.path})")
        for item in deep:
            if item.nodeid in mine and item.nodeid in self.done:
                item.add_marker(done)
        others = [item for item in deep if item.nodeid not in mine]  # the other shards'
        if others:
            config.hook.pytest_deselected(items=others)
            items[:] = [item for item in items if item.nodeid not in {o.nodeid for o in others}]

    def pytest_runtest_logreport(self, report):
        """Record a deep item that passed (the controller alone writes)."""
        if _is_worker(self.config) or "deep" not in report.keywords:
            return
        if report.when == "setup" and report.skipped:
            self.already += 1
            return
        if report.when != "call":
            return
        if not report.passed:
            self.failed += 1
            return
        self.passed += 1
        self.path.parent.mkdir(parents=True, exist_ok=True)
        entry = {"nodeid": report.nodeid, "seconds": round(report.duration, 1), **dict(report.user_properties)}
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def pytest_terminal_summary(self, terminalreporter):
        if _is_worker(self.config) or not (self.passed or self.failed or self.already):
            return
        entries = self.entries()
        games = sum(e.get("games", 0) for e in entries)
        minutes = sum(e.get("seconds", 0) for e in entries) / 60
        k, n = _shard(self.config)
        terminalreporter.write_line(
            f"deep items, shard {k}/{n}: {self.passed} passed and {self.failed} failed in this run, {self.already} "
            f"skipped as passed before. Recorded as passed under this code: {len(entries)} items, {games:,} games "
            f"replayed by the reference with no mismatch, {minutes:.1f} min of item time "
            f"({self.path})")


def pytest_configure(config):
    config.addinivalue_line("markers", "deep: a deep run of `make verify` (sharded, resumable)")
    _shard(config)
    config.pluginmanager.register(DeepRecord(config), "wsim-deep-record")
