"""The numba cache is keyed on the kernel sources: an edit anywhere in them starts a new cache."""

from pathlib import Path

import numba

import wsim.kernels as kernels
from wsim import codes
from wsim.kernels.game import play_games


def test_cache_folder_follows_every_kernel_source(tmp_path):
    here = Path(kernels.__file__).resolve().parent
    sources = sorted(here.glob("*.py")) + [Path(codes.__file__).resolve()]
    key = kernels.sources_key(sources)
    assert numba.config.CACHE_DIR.endswith(f"wsim-{key}")
    assert play_games._cache._cache_path.startswith(numba.config.CACHE_DIR)
    copies = []
    for p in sources:
        copy = tmp_path / p.name
        copy.write_bytes(p.read_bytes())
        copies.append(copy)
    assert kernels.sources_key(copies) == key
    layout = tmp_path / "layout.py"
    layout.write_bytes(layout.read_bytes() + b"\n# an edit\n")
    assert kernels.sources_key(copies) != key
