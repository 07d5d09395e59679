"""The command-line tests' shared helpers: run `wsim` in-process, read its last error line, and
mount a small real disk for the faults a full or read-only disk causes."""

import contextlib
import subprocess

import pytest
from click.testing import CliRunner

from wsim.cli.app import main


def run_cli(*args, env=None):
    """Run `wsim ARGS` in-process; returns click's Result (exit_code, stdout, stderr)."""
    return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)


def last_error_line(result) -> str:
    """The last line of stderr, which docs/interfaces.md §0 requires to be `Error: ...`."""
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    return lines[-1] if lines else ""


@contextlib.contextmanager
def tmpfs(mnt, options: str):
    """A real tmpfs mounted on the empty folder `mnt` for the block (`options`: "size=4m",
    "ro,size=64k"), unmounted after; the test is skipped where mounting is refused (not root)."""
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(mnt)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"mount refused here: {mounted.stderr.decode().strip() or 'not root'}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)
