"""tests/tiers.py: make verify's shards are a partition of the deep items, and a shard run again
skips what passed (and runs again what failed)."""

import pytest

pytest_plugins = ["pytester"]

DEEP_FILE = """
import os
import pytest

@pytest.mark.deep
@pytest.mark.parametrize("i", range(7))
def test_item(i, record_property):
    record_property("games", 10)
    assert str(i) not in os.environ.get("FAIL_ITEMS", "")

def test_not_deep():
    pass
"""


@pytest.fixture
def project(pytester, tmp_path, monkeypatch):
    monkeypatch.setenv("WSIM_VERIFY_RECORDS", str(tmp_path / "records"))
    pytester.makepyfile(test_deep=DEEP_FILE)
    pytester.makeini("[pytest]\nmarkers =\n    deep: deep\n")
    return pytester


def _ran(result) -> set:
    return {r.nodeid.split("[")[1].rstrip("]") for r in result.getreports("pytest_runtest_logreport")
            if r.when == "call" and "deep" in r.keywords}


def test_the_shards_partition_the_deep_items(project):
    seen = []
    for k in (1, 2, 3):
        result = project.inline_run("-p", "tiers", "-m", "deep", f"--shard={k}/3")
        seen.append(_ran(result))
    assert seen[0] | seen[1] | seen[2] == {str(i) for i in range(7)}
    assert sum(len(s) for s in seen) == 7


def test_a_shard_run_again_skips_what_passed_and_reruns_what_failed(project, monkeypatch):
    monkeypatch.setenv("FAIL_ITEMS", "3")
    first = project.inline_run("-p", "tiers", "-m", "deep")
    passed, _, failed = first.listoutcomes()
    assert len(passed) == 6 and len(failed) == 1
    monkeypatch.setenv("FAIL_ITEMS", "")
    again = project.inline_run("-p", "tiers", "-m", "deep")
    passed, skipped, failed = again.listoutcomes()
    assert _ran(again) == {"3"} and len(skipped) == 6 and not failed
    assert all("passed under this code in an earlier run" in str(r.longrepr) for r in skipped)


def test_a_bad_shard_is_a_usage_error(project):
    result = project.runpytest("-p", "tiers", "--shard=4/3")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
