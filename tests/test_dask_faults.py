"""Faults of `--dask` (INTERFACES §0 and §2): each ends with the promised exit status and last
stderr line, and leaves only whole parts."""

import pytest

from conftest import last_error_line, run_cli

pytestmark = pytest.mark.system


def test_tls_is_refused_before_anything_starts(tmp_path):
    """R6: wsim takes no certificates, and distributed needs them for tls://."""
    result = run_cli("simulate", "--games", "10", "--dask", "tls://127.0.0.1:1", "--out", str(tmp_path / "d"))
    assert result.exit_code == 2
    assert last_error_line(result).startswith("Error: --dask: tls:// is not supported")
    assert not (tmp_path / "d").exists()
